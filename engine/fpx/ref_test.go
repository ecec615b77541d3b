package fpx

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// An independent reference built on math/big: values are decoded into
// exact big.Floats, the exact (or exactly-sided) result is computed with
// big arithmetic and rounded to the destination format with big.Float's
// own rounding, with the subnormal grid and overflow handled here.

type rfmt struct {
	name   string
	p      int    // precision including the implicit bit
	ebits  int    // exponent field width
	bias   int    // exponent bias
	noInf  bool   // e4m3
	maxMag uint64 // largest finite magnitude encoding
}

var (
	rF64  = rfmt{"f64", 53, 11, 1023, false, 0x7FEFFFFFFFFFFFFF}
	rF32  = rfmt{"f32", 24, 8, 127, false, 0x7F7FFFFF}
	rF16  = rfmt{"f16", 11, 5, 15, false, 0x7BFF}
	rBF16 = rfmt{"bf16", 8, 8, 127, false, 0x7F7F}
	rTF32 = rfmt{"tf32", 11, 8, 127, false, 0x3FBFF}
	rE4M3 = rfmt{"e4m3", 4, 4, 7, true, 0x7E}
	rE5M2 = rfmt{"e5m2", 3, 5, 15, false, 0x7B}
)

func (f rfmt) frac() int    { return f.p - 1 }
func (f rfmt) sign() uint64 { return 1 << uint(f.p-1+f.ebits) }
func (f rfmt) inf() uint64  { return (1<<uint(f.ebits) - 1) << uint(f.p-1) }
func (f rfmt) emin() int    { return 1 - f.bias }
func (f rfmt) isNaN(b uint64) bool {
	mag := b &^ f.sign()
	if f.noInf {
		return mag == f.inf()|(1<<uint(f.p-1)-1)
	}
	return mag > f.inf()
}
func (f rfmt) isInf(b uint64) bool { return !f.noInf && b&^f.sign() == f.inf() }

// decode returns the exact value of a finite encoding (zero included).
func (f rfmt) decode(b uint64) *big.Float {
	neg := b&f.sign() != 0
	mag := b &^ f.sign()
	ex := int(mag >> uint(f.frac()))
	fr := mag & (1<<uint(f.frac()) - 1)
	z := new(big.Float).SetPrec(200)
	if ex == 0 {
		z.SetMantExp(new(big.Float).SetUint64(fr), f.emin()-f.frac())
	} else {
		z.SetMantExp(new(big.Float).SetUint64(fr|1<<uint(f.frac())), ex-f.bias-f.frac())
	}
	if neg {
		z.Neg(z) // big.Float has a signed zero
	}
	return z
}

func bigMode(r Rnd) big.RoundingMode {
	switch r {
	case RZ:
		return big.ToZero
	case RM:
		return big.ToNegativeInf
	case RP:
		return big.ToPositiveInf
	case RNA:
		return big.ToNearestAway
	}
	return big.ToNearestEven
}

func pow2(e int) *big.Float { return new(big.Float).SetMantExp(big.NewFloat(1), e) }

// refRound rounds a nonzero finite big value to format f in mode r and
// returns the encoding and whether it overflowed (IEEE result encoded).
func refRound(v *big.Float, f rfmt, r Rnd) (uint64, bool) {
	neg := v.Signbit()
	var sb uint64
	if neg {
		sb = f.sign()
	}
	E := v.MantExp(nil) - 1
	L := E - f.p + 1
	if lmin := f.emin() - f.p + 1; L < lmin {
		L = lmin
	}
	k := E - L + 1
	var res *big.Float
	if k >= 1 {
		res = new(big.Float).SetMode(bigMode(r)).SetPrec(uint(k)).Set(v)
	} else {
		a := new(big.Float).Abs(v)
		c := a.Cmp(pow2(L - 1))
		up := false
		switch r {
		case RP:
			up = !neg
		case RM:
			up = neg
		case RN:
			up = c > 0
		case RNA:
			up = c >= 0
		}
		if !up {
			return sb, false
		}
		res = pow2(L)
		if neg {
			res.Neg(res)
		}
	}
	a := new(big.Float).Abs(res)
	if a.Sign() == 0 {
		return sb, false
	}
	maxv := f.decode(f.maxMag)
	if a.Cmp(maxv) > 0 {
		toInf := r == RN || r == RNA || (r == RP && !neg) || (r == RM && neg)
		if toInf {
			return sb | f.inf(), true
		}
		return sb | f.maxMag, true
	}
	E2 := a.MantExp(nil) - 1
	if E2 >= f.emin() {
		m, _ := new(big.Float).SetMantExp(a, -(E2 - f.p + 1)).Uint64()
		return sb | uint64(E2+f.bias)<<uint(f.frac()) | (m - 1<<uint(f.frac())), false
	}
	m, _ := new(big.Float).SetMantExp(a, -(f.emin() - f.p + 1)).Uint64()
	return sb | m, false
}

// zeroSum is the IEEE sign of an exact zero sum x+y.
func zeroSum(f rfmt, xneg, yneg, bothZero bool, r Rnd) uint64 {
	if bothZero && xneg == yneg {
		if xneg {
			return f.sign()
		}
		return 0
	}
	if r == RM {
		return f.sign()
	}
	return 0
}

func isZeroBig(x *big.Float) bool { return x.Sign() == 0 }

// refSpecial reports whether any operand is Inf/NaN; then the result is
// exact and can be computed with native float64 arithmetic.
func (f rfmt) special(ops ...uint64) bool {
	for _, o := range ops {
		if f.isNaN(o) || f.isInf(o) {
			return true
		}
	}
	return false
}

// toF64 gives the float64 value of an encoding (exact for all formats here).
func (f rfmt) toF64(b uint64) float64 {
	if f.isNaN(b) {
		return math.NaN()
	}
	if f.isInf(b) {
		if b&f.sign() != 0 {
			return math.Inf(-1)
		}
		return math.Inf(1)
	}
	v, _ := f.decode(b).Float64()
	return v
}

// fromSpecial encodes an Inf/NaN/zero float64 result in format f.
func (f rfmt) fromSpecial(v float64, nan uint64) uint64 {
	switch {
	case v != v:
		return nan
	case math.IsInf(v, 1):
		return f.inf()
	case math.IsInf(v, -1):
		return f.sign() | f.inf()
	case v == 0 && math.Signbit(v):
		return f.sign()
	case v == 0:
		return 0
	}
	panic("fromSpecial: finite nonzero")
}

func refAdd(f rfmt, a, b uint64, r Rnd, nan uint64) uint64 {
	if f.special(a, b) {
		return f.fromSpecial(f.toF64(a)+f.toF64(b), nan)
	}
	x, y := f.decode(a), f.decode(b)
	s := new(big.Float).SetPrec(4000).Add(x, y)
	if isZeroBig(s) {
		return zeroSum(f, x.Signbit(), y.Signbit(), isZeroBig(x) && isZeroBig(y), r)
	}
	z, _ := refRound(s, f, r)
	return z
}

func refMul(f rfmt, a, b uint64, r Rnd, nan uint64) uint64 {
	if f.special(a, b) {
		return f.fromSpecial(f.toF64(a)*f.toF64(b), nan)
	}
	x, y := f.decode(a), f.decode(b)
	if isZeroBig(x) || isZeroBig(y) {
		if x.Signbit() != y.Signbit() {
			return f.sign()
		}
		return 0
	}
	z, _ := refRound(new(big.Float).SetPrec(300).Mul(x, y), f, r)
	return z
}

func refFMA(f rfmt, a, b, c uint64, r Rnd, nan uint64) uint64 {
	if f.special(a, b, c) {
		return f.fromSpecial(math.FMA(f.toF64(a), f.toF64(b), f.toF64(c)), nan)
	}
	x, y, w := f.decode(a), f.decode(b), f.decode(c)
	p := new(big.Float).SetPrec(300).Mul(x, y)
	pneg := x.Signbit() != y.Signbit()
	s := new(big.Float).SetPrec(5000).Add(p, w)
	if isZeroBig(s) {
		return zeroSum(f, pneg, w.Signbit(), isZeroBig(p) && isZeroBig(w), r)
	}
	z, _ := refRound(s, f, r)
	return z
}

func refDiv(f rfmt, a, b uint64, r Rnd, nan uint64) uint64 {
	if f.special(a, b) {
		return f.fromSpecial(f.toF64(a)/f.toF64(b), nan)
	}
	x, y := f.decode(a), f.decode(b)
	if isZeroBig(x) || isZeroBig(y) {
		return f.fromSpecial(f.toF64(a)/f.toF64(b), nan)
	}
	q := new(big.Float).SetPrec(300).SetMode(big.ToZero).Quo(x, y)
	back := new(big.Float).SetPrec(1000).Mul(q, y)
	if back.Cmp(x) != 0 {
		e := q.MantExp(nil)
		nudge := pow2(e - 302)
		if q.Signbit() {
			nudge.Neg(nudge)
		}
		q = new(big.Float).SetPrec(400).Add(q, nudge)
	}
	z, _ := refRound(q, f, r)
	return z
}

func refSqrt(f rfmt, a uint64, r Rnd, nan uint64) uint64 {
	if f.special(a) {
		return f.fromSpecial(math.Sqrt(f.toF64(a)), nan)
	}
	x := f.decode(a)
	if isZeroBig(x) {
		return a
	}
	if x.Signbit() {
		return nan
	}
	s := new(big.Float).SetPrec(300).Sqrt(x)
	sq := new(big.Float).SetPrec(1000).Mul(s, s)
	if c := sq.Cmp(x); c != 0 {
		nudge := pow2(s.MantExp(nil) - 305)
		if c > 0 {
			nudge.Neg(nudge)
		}
		s = new(big.Float).SetPrec(400).Add(s, nudge)
	}
	z, _ := refRound(s, f, r)
	return z
}

// refConvert converts an encoding of format src to dst in mode r, with the
// PTX conversion modifiers, written independently of cvtTo.
func refConvert(src, dst rfmt, x uint64, r Rnd, m Mod, nan uint64) uint64 {
	if src.isNaN(x) {
		if m&Sat != 0 {
			return 0
		}
		return nan
	}
	neg := x&src.sign() != 0
	if m&(Relu|Sat) != 0 && neg {
		return 0
	}
	var sb uint64
	if neg {
		sb = dst.sign()
	}
	var z uint64
	ovf := false
	switch {
	case src.isInf(x):
		ovf = true
		z = sb | dst.inf()
	case x&^src.sign() == 0:
		z = sb
	default:
		z, ovf = refRound(src.decode(x), dst, r)
	}
	if ovf {
		switch {
		case m&SatFinite != 0:
			z = sb | dst.maxMag
		case dst.noInf:
			z = sb | nan
		}
	}
	if m&Sat != 0 {
		one := uint64(dst.bias) << uint(dst.frac())
		if z > one {
			z = one
		}
	}
	return z
}

// ---- random inputs ----

// randEnc returns an interesting random encoding of format f: uniformly
// random bits, values near the extremes of the exponent range, subnormals,
// zeros, and fractions with long runs of ones or zeros.
func randEnc(rng *rand.Rand, f rfmt, finiteOnly bool) uint64 {
	nbits := f.p + f.ebits
	emax := 1<<uint(f.ebits) - 1
	for {
		var b uint64
		switch rng.IntN(8) {
		case 0, 1:
			b = rng.Uint64() & (1<<uint(nbits) - 1)
		case 2:
			// exponent near the bottom (subnormal or tiny normal)
			b = uint64(rng.IntN(4))<<uint(f.frac()) | randFrac(rng, f)
		case 3:
			// exponent near the top
			b = uint64(emax-1-rng.IntN(3))<<uint(f.frac()) | randFrac(rng, f)
		case 4:
			// around 1.0
			b = uint64(f.bias-4+rng.IntN(9))<<uint(f.frac()) | randFrac(rng, f)
		default:
			b = uint64(1+rng.IntN(emax-1))<<uint(f.frac()) | randFrac(rng, f)
		}
		if rng.IntN(2) == 0 {
			b |= f.sign()
		}
		if finiteOnly && (f.isNaN(b) || f.isInf(b)) {
			continue
		}
		return b
	}
}

func randFrac(rng *rand.Rand, f rfmt) uint64 {
	n := uint(f.frac())
	mask := uint64(1)<<n - 1
	switch rng.IntN(6) {
	case 0:
		return 0
	case 1:
		return mask
	case 2:
		return mask >> uint(rng.IntN(int(n)+1))
	case 3:
		return mask << uint(rng.IntN(int(n)+1)) & mask
	case 4:
		return uint64(rng.IntN(4))
	}
	return rng.Uint64() & mask
}

// nearNeg returns an encoding close to -x (a few ulps away), to provoke
// cancellation.
func nearNeg(rng *rand.Rand, f rfmt, x uint64) uint64 {
	y := x ^ f.sign()
	d := uint64(rng.IntN(5))
	if rng.IntN(2) == 0 && y&^f.sign() >= d {
		y -= d
	} else {
		y += d
	}
	if f.isNaN(y) || f.isInf(y) {
		return x ^ f.sign()
	}
	return y
}

func newRNG(t testing.TB, seed uint64) *rand.Rand {
	t.Helper()
	return rand.New(rand.NewPCG(seed, seed^0x9E3779B97F4A7C15))
}

// nRandom scales the randomized test sizes down with -short.
func nRandom(n int) int {
	if testing.Short() {
		return n / 20
	}
	return n
}
