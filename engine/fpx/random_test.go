package fpx

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// Randomized property tests against the math/big reference.

var allModes = []Rnd{RN, RZ, RM, RP}

type failLog struct {
	t    *testing.T
	n    int
	name string
}

func (l *failLog) check(got, want uint64, format string, args ...any) {
	if got == want {
		return
	}
	l.n++
	if l.n <= 10 {
		l.t.Errorf("%s: %s: got %#x want %#x", l.name, fmt.Sprintf(format, args...), got, want)
	}
}

func (l *failLog) done() {
	if l.n > 10 {
		l.t.Errorf("%s: %d mismatches in total", l.name, l.n)
	}
}

// f32 operands: a random encoding; b random or (for add) close to -a.
func f32Pair(rng *rand.Rand, cancel bool) (uint32, uint32) {
	a := randEnc(rng, rF32, rng.IntN(50) != 0)
	var b uint64
	if cancel && rng.IntN(3) == 0 {
		b = nearNeg(rng, rF32, a)
	} else {
		b = randEnc(rng, rF32, rng.IntN(50) != 0)
		if rng.IntN(3) == 0 {
			// similar exponent
			b = b&^0x7F800000 | a&0x7F800000
		}
	}
	return uint32(a), uint32(b)
}

func TestRandomF32Arith(t *testing.T) {
	n := nRandom(200000)
	nan := uint64(NaN32)
	for _, r := range allModes {
		t.Run("add/"+r.String(), func(t *testing.T) {
			rng := newRNG(t, 1+uint64(r))
			l := &failLog{t: t, name: "AddF32"}
			for i := 0; i < n; i++ {
				a, b := f32Pair(rng, true)
				l.check(uint64(AddF32(a, b, r, false)), refAdd(rF32, uint64(a), uint64(b), r, nan), "%#x+%#x %v", a, b, r)
				if i%4 == 0 {
					l.check(uint64(SubF32(a, b, r, false)), refAdd(rF32, uint64(a), uint64(b^sign32), r, nan), "%#x-%#x %v", a, b, r)
				}
			}
			l.done()
		})
		t.Run("mul/"+r.String(), func(t *testing.T) {
			rng := newRNG(t, 11+uint64(r))
			l := &failLog{t: t, name: "MulF32"}
			for i := 0; i < n; i++ {
				a, b := f32Pair(rng, false)
				l.check(uint64(MulF32(a, b, r, false)), refMul(rF32, uint64(a), uint64(b), r, nan), "%#x*%#x %v", a, b, r)
			}
			l.done()
		})
		t.Run("div/"+r.String(), func(t *testing.T) {
			rng := newRNG(t, 21+uint64(r))
			l := &failLog{t: t, name: "DivF32"}
			for i := 0; i < n; i++ {
				a, b := f32Pair(rng, false)
				l.check(uint64(DivF32(a, b, r, false)), refDiv(rF32, uint64(a), uint64(b), r, nan), "%#x/%#x %v", a, b, r)
			}
			l.done()
		})
		t.Run("fma/"+r.String(), func(t *testing.T) {
			rng := newRNG(t, 31+uint64(r))
			l := &failLog{t: t, name: "FmaF32"}
			for i := 0; i < n; i++ {
				a, b := f32Pair(rng, false)
				var c uint32
				switch rng.IntN(3) {
				case 0:
					// c ≈ -(a*b): massive cancellation
					c = uint32(nearNeg(rng, rF32, uint64(MulF32(a, b, RN, false))))
					if isNaN32(c) {
						c = 0
					}
				case 1:
					// c is tiny or huge relative to a*b
					c = uint32(randEnc(rng, rF32, true))
				default:
					_, c = f32Pair(rng, false)
				}
				l.check(uint64(FmaF32(a, b, c, r, false)), refFMA(rF32, uint64(a), uint64(b), uint64(c), r, nan), "fma(%#x,%#x,%#x) %v", a, b, c, r)
			}
			l.done()
		})
		t.Run("sqrt/"+r.String(), func(t *testing.T) {
			rng := newRNG(t, 41+uint64(r))
			l := &failLog{t: t, name: "SqrtF32"}
			for i := 0; i < n/2; i++ {
				a := uint32(randEnc(rng, rF32, false))
				if i%2 == 0 {
					a &^= sign32
				}
				l.check(uint64(SqrtF32(a, r, false)), refSqrt(rF32, uint64(a), r, nan), "sqrt(%#x) %v", a, r)
				l.check(uint64(RcpF32(a, r, false)), refDiv(rF32, one32, uint64(a), r, nan), "rcp(%#x) %v", a, r)
			}
			l.done()
		})
	}
}

// FmaF32 RN on inputs whose float64 sum is exactly an f32 midpoint: the
// fast path must defer to the exact core there.
func TestRandomF32FmaMidpoints(t *testing.T) {
	rng := newRNG(t, 77)
	n := nRandom(100000)
	l := &failLog{t: t, name: "FmaF32 midpoint"}
	for i := 0; i < n; i++ {
		// a*b exact with a low-order tail; c cancels the head so that the
		// double-rounded sum lands on a midpoint.
		a := uint32(0x3F800000 | rng.Uint32()&0x7FFFFF)
		b := uint32(0x3F800000 | rng.Uint32()&0x7FFFFF)
		if rng.IntN(2) == 0 {
			b = uint32(0x33800000 | rng.Uint32()&0x7FFFFF) // 2^-24 scale
		}
		c := uint32(randEnc(rng, rF32, true))
		if rng.IntN(2) == 0 {
			c = uint32(0x3F800000 | rng.Uint32()&0x7FFFFF)
			if rng.IntN(2) == 0 {
				c |= sign32
			}
		}
		for _, r := range allModes {
			l.check(uint64(FmaF32(a, b, c, r, false)), refFMA(rF32, uint64(a), uint64(b), uint64(c), r, uint64(NaN32)), "fma(%#x,%#x,%#x) %v", a, b, c, r)
		}
	}
	l.done()
}

func TestRandomF32FTZ(t *testing.T) {
	rng := newRNG(t, 91)
	n := nRandom(40000)
	fl := func(x uint32) uint64 { return uint64(FlushF32(x)) }
	nan := uint64(NaN32)
	flr := func(x uint64) uint64 {
		if isNaN32(uint32(x)) {
			return x
		}
		return uint64(FlushF32(uint32(x)))
	}
	l := &failLog{t: t, name: "ftz"}
	for i := 0; i < n; i++ {
		a, b := f32Pair(rng, true)
		if rng.IntN(2) == 0 {
			a &= 0x807FFFFF // subnormal input
		}
		c := uint32(randEnc(rng, rF32, true)) & 0x80FFFFFF
		for _, r := range allModes {
			l.check(uint64(AddF32(a, b, r, true)), flr(refAdd(rF32, fl(a), fl(b), r, nan)), "add.ftz %#x %#x %v", a, b, r)
			l.check(uint64(MulF32(a, b, r, true)), flr(refMul(rF32, fl(a), fl(b), r, nan)), "mul.ftz %#x %#x %v", a, b, r)
			l.check(uint64(FmaF32(a, b, c, r, true)), flr(refFMA(rF32, fl(a), fl(b), fl(c), r, nan)), "fma.ftz %#x %#x %#x %v", a, b, c, r)
			l.check(uint64(DivF32(a, b, r, true)), flr(refDiv(rF32, fl(a), fl(b), r, nan)), "div.ftz %#x %#x %v", a, b, r)
		}
	}
	l.done()
}

// payload64 applies the f64 NaN rule to a reference result: when the
// result is NaN and an operand is NaN, the expected bits are the first NaN
// operand with its quiet bit (fraction bit 51) set.
func payload64(want uint64, ops ...uint64) uint64 {
	if want&0x7FFFFFFFFFFFFFFF <= 0x7FF0000000000000 {
		return want
	}
	for _, x := range ops {
		if x&0x7FF0000000000000 == 0x7FF0000000000000 && x&0x000FFFFFFFFFFFFF != 0 {
			return x | 1<<51
		}
	}
	return want
}

func TestRandomF64Arith(t *testing.T) {
	n := nRandom(200000)
	nan := NaN64
	for _, r := range allModes {
		t.Run(r.String(), func(t *testing.T) {
			rng := newRNG(t, 101+uint64(r))
			l := &failLog{t: t, name: "f64"}
			for i := 0; i < n; i++ {
				a := randEnc(rng, rF64, rng.IntN(50) != 0)
				b := randEnc(rng, rF64, rng.IntN(50) != 0)
				if rng.IntN(3) == 0 {
					b = nearNeg(rng, rF64, a)
				} else if rng.IntN(3) == 0 {
					b = b&^0x7FF0000000000000 | a&0x7FF0000000000000
				}
				l.check(AddF64(a, b, r), payload64(refAdd(rF64, a, b, r, nan), a, b), "%#x+%#x %v", a, b, r)
				l.check(MulF64(a, b, r), payload64(refMul(rF64, a, b, r, nan), a, b), "%#x*%#x %v", a, b, r)
				var c uint64
				if rng.IntN(2) == 0 {
					c = nearNeg(rng, rF64, MulF64(a, b, RN))
					if isNaN64(c) {
						c = b
					}
				} else {
					c = randEnc(rng, rF64, true)
				}
				l.check(FmaF64(a, b, c, r), payload64(refFMA(rF64, a, b, c, r, nan), a, b, c), "fma(%#x,%#x,%#x) %v", a, b, c, r)
				if i%4 == 0 {
					l.check(SubF64(a, b, r), payload64(refAdd(rF64, a, b^sign64, r, nan), a, b), "%#x-%#x %v", a, b, r)
					l.check(DivF64(a, b, r), payload64(refDiv(rF64, a, b, r, nan), a, b), "%#x/%#x %v", a, b, r)
					sa := a &^ sign64
					l.check(SqrtF64(sa, r), payload64(refSqrt(rF64, sa, r, nan), sa), "sqrt(%#x) %v", sa, r)
				}
			}
			l.done()
		})
	}
}

func TestRandomHalfArith(t *testing.T) {
	n := nRandom(100000)
	type hf struct {
		f             rfmt
		add, sub, mul func(a, b uint16, m Mod) uint16
		fma           func(a, b, c uint16, m Mod) uint16
	}
	for _, h := range []hf{
		{rF16, AddF16, SubF16, MulF16, FmaF16},
		{rBF16, AddBF16, SubBF16, MulBF16, FmaBF16},
	} {
		t.Run(h.f.name, func(t *testing.T) {
			rng := newRNG(t, 201+uint64(h.f.p))
			l := &failLog{t: t, name: h.f.name}
			nan := uint64(0x7FFF)
			for i := 0; i < n; i++ {
				a := randEnc(rng, h.f, rng.IntN(30) != 0)
				b := randEnc(rng, h.f, rng.IntN(30) != 0)
				if rng.IntN(3) == 0 {
					b = nearNeg(rng, h.f, a)
				}
				c := randEnc(rng, h.f, rng.IntN(30) != 0)
				if rng.IntN(2) == 0 {
					c = nearNeg(rng, h.f, uint64(h.mul(uint16(a), uint16(b), 0)))
					if h.f.isNaN(c) {
						c = 0
					}
				}
				a16, b16, c16 := uint16(a), uint16(b), uint16(c)
				l.check(uint64(h.add(a16, b16, 0)), refAdd(h.f, a, b, RN, nan), "%#x+%#x", a, b)
				l.check(uint64(h.sub(a16, b16, 0)), refAdd(h.f, a, b^0x8000, RN, nan), "%#x-%#x", a, b)
				l.check(uint64(h.mul(a16, b16, 0)), refMul(h.f, a, b, RN, nan), "%#x*%#x", a, b)
				want := refFMA(h.f, a, b, c, RN, nan)
				l.check(uint64(h.fma(a16, b16, c16, 0)), want, "fma(%#x,%#x,%#x)", a, b, c)
				// .relu
				wr := want
				if h.f.isNaN(want) {
					wr = nan
				} else if want&0x8000 != 0 {
					wr = 0
				}
				l.check(uint64(h.fma(a16, b16, c16, Relu)), wr, "fma.relu(%#x,%#x,%#x)", a, b, c)
				// .sat
				ws := want
				switch {
				case h.f.isNaN(want), want&0x8000 != 0:
					ws = 0
				case ws > uint64(h.f.bias)<<uint(h.f.frac()):
					ws = uint64(h.f.bias) << uint(h.f.frac())
				}
				l.check(uint64(h.fma(a16, b16, c16, Sat)), ws, "fma.sat(%#x,%#x,%#x)", a, b, c)
				if h.f.name == "f16" {
					// .ftz: flush inputs and result
					fa, fb := uint64(FlushF16(a16)), uint64(FlushF16(b16))
					w := refAdd(h.f, fa, fb, RN, nan)
					if !h.f.isNaN(w) {
						w = uint64(FlushF16(uint16(w)))
					}
					l.check(uint64(h.add(a16, b16, FTZ)), w, "add.ftz(%#x,%#x)", a, b)
				}
			}
			l.done()
		})
	}
}

func TestRandomConvertF32ToSmall(t *testing.T) {
	n := nRandom(100000)
	mods := []Mod{0, Relu, SatFinite, Relu | SatFinite, Sat}
	rng := newRNG(t, 301)
	l := &failLog{t: t, name: "f32->small"}
	for i := 0; i < n; i++ {
		x := randEnc(rng, rF32, rng.IntN(20) != 0)
		if rng.IntN(4) == 0 {
			// values near the small formats' ranges
			x = x&^0x7F800000 | uint64(100+rng.IntN(60))<<23
		}
		x32 := uint32(x)
		m := mods[rng.IntN(len(mods))]
		for _, r := range allModes {
			l.check(uint64(F32ToF16(x32, r, m)), refConvert(rF32, rF16, x, r, m, 0x7FFF), "f16(%#x) %v %v", x, r, m)
			l.check(uint64(F32ToBF16(x32, r, m)), refConvert(rF32, rBF16, x, r, m, 0x7FFF), "bf16(%#x) %v %v", x, r, m)
			l.check(uint64(F32ToTF32(x32, r, m)), refConvert(rF32, rTF32, x, r, m, uint64(NaNTF32>>13))<<13, "tf32(%#x) %v %v", x, r, m)
		}
		l.check(uint64(F32ToBF16(x32, RN, 0)), refConvert(rF32, rBF16, x, RN, 0, 0x7FFF), "bf16(%#x) fast", x)
		l.check(uint64(F32ToTF32(x32, RNA, m)), refConvert(rF32, rTF32, x, RNA, m, uint64(NaNTF32>>13))<<13, "tf32(%#x) rna %v", x, m)
		sf, relu := rng.IntN(2) == 0, rng.IntN(2) == 0
		fm := f8mods(sf, relu)
		l.check(uint64(F32ToE4M3(x32, sf, relu)), refConvert(rF32, rE4M3, x, RN, fm, 0x7F), "e4m3(%#x) %v", x, fm)
		l.check(uint64(F32ToE5M2(x32, sf, relu)), refConvert(rF32, rE5M2, x, RN, fm, 0x7F), "e5m2(%#x) %v", x, fm)
	}
	l.done()
}

func TestRandomConvertF64(t *testing.T) {
	n := nRandom(100000)
	rng := newRNG(t, 401)
	l := &failLog{t: t, name: "f64->"}
	for i := 0; i < n; i++ {
		x := randEnc(rng, rF64, rng.IntN(20) != 0)
		if rng.IntN(3) == 0 {
			x = x&^0x7FF0000000000000 | uint64(1023-160+rng.IntN(320))<<52
		}
		for _, r := range allModes {
			l.check(uint64(F64ToF32(x, r, false, false)), refConvert(rF64, rF32, x, r, 0, uint64(NaN32)), "f32(%#x) %v", x, r)
			l.check(uint64(F64ToF16(x, r, 0)), refConvert(rF64, rF16, x, r, 0, 0x7FFF), "f16(%#x) %v", x, r)
			l.check(uint64(F64ToBF16(x, r, 0)), refConvert(rF64, rBF16, x, r, 0, 0x7FFF), "bf16(%#x) %v", x, r)
		}
		want := refConvert(rF64, rF32, x, RZ, Sat, 0)
		if rF32.isNaN(want) {
			want = 0
		}
		got := F64ToF32(x, RZ, false, true)
		l.check(uint64(got), want, "f32.sat(%#x)", x)
	}
	l.done()
}
