package fpx

import "math"

// f32 arithmetic: add, sub, mul, fma/mad, div.rnd, rcp.rnd and sqrt.rnd.
//
// The RN paths use the host's IEEE float32/float64 arithmetic (correctly
// rounded to nearest even, subnormals supported); the directed modes use
// the exact soft-float core. Any NaN result is NaN32.

func unp32(x uint32) unp { return unpack(fmtF32, uint64(x)) }

// soft32 turns a soft-core result into an f32 encoding.
func soft32(z uint64, st status) uint32 {
	if st == stNaN {
		return NaN32
	}
	return uint32(z)
}

// post32 canonicalises a NaN result and applies .ftz to the result.
func post32(z uint32, ftz bool) uint32 {
	if isNaN32(z) {
		return NaN32
	}
	if ftz {
		return FlushF32(z)
	}
	return z
}

// AddF32 implements add{.rnd}{.ftz}.f32 d, a, b: a+b correctly rounded in
// mode r (.rn is PTX's default). ftz flushes subnormal inputs and the
// result to sign-preserving zero. NaN results are NaN32. Apply SatF32 to the
// result for .sat.
func AddF32(a, b uint32, r Rnd, ftz bool) uint32 {
	if ftz {
		a, b = FlushF32(a), FlushF32(b)
	}
	var z uint32
	if r == RN {
		z = b32(f32(a) + f32(b))
	} else {
		z = soft32(softAdd(fmtF32, unp32(a), unp32(b), r))
	}
	return post32(z, ftz)
}

// SubF32 implements sub{.rnd}{.ftz}.f32 d, a, b: a-b, as AddF32(a, -b).
func SubF32(a, b uint32, r Rnd, ftz bool) uint32 {
	if ftz {
		a, b = FlushF32(a), FlushF32(b)
	}
	var z uint32
	if r == RN {
		z = b32(f32(a) - f32(b))
	} else {
		z = soft32(softAdd(fmtF32, unp32(a), unp32(b^sign32), r))
	}
	return post32(z, ftz)
}

// MulF32 implements mul{.rnd}{.ftz}.f32 d, a, b: a*b correctly rounded in
// mode r.
func MulF32(a, b uint32, r Rnd, ftz bool) uint32 {
	if ftz {
		a, b = FlushF32(a), FlushF32(b)
	}
	var z uint32
	if r == RN {
		z = b32(f32(a) * f32(b))
	} else {
		z = soft32(softMul(fmtF32, unp32(a), unp32(b), r))
	}
	return post32(z, ftz)
}

// FmaF32 implements fma.rnd{.ftz}.f32 d, a, b, c (and mad.rnd.f32, which
// is the same operation on sm_20+): a*b+c computed exactly and rounded
// once in mode r.
//
// The RN path computes the exact product in float64 (two 24-bit
// significands fit in 53 bits) and adds c in float64. Double rounding can
// only differ from a single rounding when that float64 sum lies exactly on
// a midpoint between two f32 values, or in the f32 subnormal range; those
// cases (and all directed modes) use the exact soft-float core.
func FmaF32(a, b, c uint32, r Rnd, ftz bool) uint32 {
	if ftz {
		a, b, c = FlushF32(a), FlushF32(b), FlushF32(c)
	}
	var z uint32
	if r == RN {
		p := float64(f32(a)) * float64(f32(b))
		s := float64(p + float64(f32(c)))
		sb := b64(s)
		ex := sb >> 52 & 0x7FF
		switch {
		case ex >= 1023-126 && ex != 0x7FF && sb&0x1FFFFFFF != 0x10000000:
			// Normal f32 range (or overflow), not a midpoint.
			z = b32(float32(s))
		case ex == 0x7FF:
			z = b32(float32(s)) // Inf or NaN, only from Inf/NaN inputs
		case sb<<1 == 0:
			// An exact zero sum: float64 applied the IEEE sign rules.
			z = b32(float32(s))
		default:
			z = soft32(softFMA(fmtF32, unp32(a), unp32(b), unp32(c), RN))
		}
	} else {
		z = soft32(softFMA(fmtF32, unp32(a), unp32(b), unp32(c), r))
	}
	return post32(z, ftz)
}

// DivF32 implements div.rnd{.ftz}.f32 d, a, b (IEEE 754 compliant
// division, correctly rounded in mode r). x/±0 is ±Inf for finite nonzero
// x, 0/0 and Inf/Inf are NaN.
func DivF32(a, b uint32, r Rnd, ftz bool) uint32 {
	if ftz {
		a, b = FlushF32(a), FlushF32(b)
	}
	var z uint32
	if r == RN {
		z = b32(f32(a) / f32(b))
	} else {
		z = soft32(softDiv(fmtF32, unp32(a), unp32(b), r))
	}
	return post32(z, ftz)
}

// RcpF32 implements rcp.rnd{.ftz}.f32 d, a: 1/a correctly rounded in mode r.
func RcpF32(a uint32, r Rnd, ftz bool) uint32 { return DivF32(one32, a, r, ftz) }

// SqrtF32 implements sqrt.rnd{.ftz}.f32 d, a: the correctly rounded square
// root in mode r. sqrt(-0) = -0, sqrt(x<0) = NaN, sqrt(+Inf) = +Inf.
//
// RN uses float64 sqrt then rounds to f32; this double rounding is
// innocuous because 53 ≥ 2·24+2.
func SqrtF32(a uint32, r Rnd, ftz bool) uint32 {
	if ftz {
		a = FlushF32(a)
	}
	var z uint32
	if r == RN {
		z = b32(float32(math.Sqrt(float64(f32(a)))))
	} else {
		z = soft32(softSqrt(fmtF32, unp32(a), r))
	}
	return post32(z, ftz)
}

// SatF32 implements the .sat modifier of f32 add/sub/mul/mad/fma/cvt: the
// value is clamped to [+0.0, 1.0] and a NaN becomes +0.0. A negative zero
// also becomes +0.0 (the clamp is max(+0.0, min(x, 1.0)) with -0 < +0).
func SatF32(x uint32) uint32 {
	switch {
	case isNaN32(x), x&sign32 != 0:
		return 0
	case x > one32:
		return one32
	}
	return x
}

// SatF64 is .sat for f64 results (cvt.sat.f64.*): clamp to [+0.0, 1.0],
// NaN becomes +0.0.
func SatF64(x uint64) uint64 {
	switch {
	case isNaN64(x), x&sign64 != 0:
		return 0
	case x > 0x3FF0000000000000:
		return 0x3FF0000000000000
	}
	return x
}

// NegF32 implements neg{.ftz}.f32: the sign bit is flipped (a NaN keeps
// its payload); ftz flushes a subnormal input first.
func NegF32(a uint32, ftz bool) uint32 {
	if ftz {
		a = FlushF32(a)
	}
	return a ^ sign32
}

// AbsF32 implements abs{.ftz}.f32: the sign bit is cleared.
func AbsF32(a uint32, ftz bool) uint32 {
	if ftz {
		a = FlushF32(a)
	}
	return a &^ sign32
}

// CopysignF32 implements copysign.f32 d, a, b: b with the sign of a.
func CopysignF32(a, b uint32) uint32 { return b&^sign32 | a&sign32 }
