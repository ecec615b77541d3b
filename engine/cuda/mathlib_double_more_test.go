package cuda_test

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"
	"math/big"
	"sort"
	"sync"
	"testing"

	"github.com/ptxplayground/ptxplay/engine/cuda"
)

// bernoulli2k returns B_2, B_4, …, B_2n as exact rationals (Akiyama–Tanigawa).
var bernoulli2k = sync.OnceValue(func() []*big.Rat {
	const n = 80
	a := make([]*big.Rat, 2*n+1)
	var out []*big.Rat
	for m := 0; m <= 2*n; m++ {
		a[m] = big.NewRat(1, int64(m+1))
		for j := m; j >= 1; j-- {
			d := new(big.Rat).Sub(a[j-1], a[j])
			a[j-1] = d.Mul(d, big.NewRat(int64(j), 1))
		}
		if m >= 2 && m%2 == 0 {
			out = append(out, new(big.Rat).Set(a[0]))
		}
	}
	return out
})

// refLgammaPos is ln Γ(x) for x > 0 at refPrec bits: Stirling's series
// at x + N (N so that x + N ≥ 60, where 80 terms are far below 2^-400),
// less the log of x (x+1) … (x+N-1).
func refLgammaPos(x *big.Float) *big.Float {
	xf, _ := x.Float64()
	N := 0
	if xf < 60 {
		N = int(60-xf) + 1
	}
	z := bnew().Add(x, bf(float64(N)))
	prod := bnew().Set(x)
	for k := 1; k < N; k++ {
		prod.Mul(prod, bnew().Add(x, bf(float64(k))))
	}
	pi, _ := refConsts()
	// (z - 1/2) ln z - z + ln(2π)/2
	s := bnew().Mul(bnew().Sub(z, bf(0.5)), refLog(z))
	s.Sub(s, z)
	s.Add(s, bnew().Quo(refLog(bnew().Mul(pi, bf(2))), bf(2)))
	zp := bnew().Set(z)    // z^(2k-1)
	z2 := bnew().Mul(z, z) // z^2
	for k, b := range bernoulli2k() {
		kk := int64(k + 1)
		c := new(big.Float).SetPrec(refPrec).SetRat(b)
		c.Quo(c, bf(float64(2*kk*(2*kk-1))))
		s.Add(s, c.Quo(c, zp))
		zp.Mul(zp, z2)
	}
	if N > 0 {
		s.Sub(s, refLog(prod))
	}
	return s
}

// refLgamma is ln|Γ(x)| for finite x that is not a pole (sign: Γ's sign).
func refLgamma(x float64) (*big.Float, int) {
	if x > 0 {
		return refLgammaPos(bf(x)), 1
	}
	// Reflection: Γ(x) Γ(1-x) = π / sin(πx); sin(πx) from x reduced exactly.
	pi, _ := refConsts()
	r := bnew().Sub(bf(x), bf(2*math.Floor(x/2))) // in [0, 2), exact for |x| > 1e-100
	s := bnew().Mul(pi, r)
	sn := refSinBig(s)
	sign := sn.Sign()
	l := refLog(bnew().Quo(pi, sn.Abs(sn)))
	return l.Sub(l, refLgammaPos(bnew().Sub(bf(1), bf(x)))), sign
}

// refSinBig is sin(s) by its Taylor series (|s| < 2π here).
func refSinBig(s *big.Float) *big.Float {
	sum, term := bnew().Set(s), bnew().Set(s)
	s2 := bnew().Mul(s, s)
	for n := int64(1); n < 400; n++ {
		term.Mul(term, s2)
		term.Quo(term, bf(float64((2*n)*(2*n+1))))
		term.Neg(term)
		sum.Add(sum, term)
		if term.Sign() == 0 || term.MantExp(nil)-sum.MantExp(nil) < -refPrec-8 {
			break
		}
	}
	return sum
}

// refExpm1 is e^x - 1 (Taylor series near 0, where e^x - 1 cancels).
func refExpm1(x float64) *big.Float {
	if math.Abs(x) > 0.5 {
		return bnew().Sub(refExp(bf(x)), bf(1))
	}
	X := bf(x)
	sum, term := bnew().Set(X), bnew().Set(X)
	for n := int64(2); n < 400; n++ {
		term.Mul(term, X)
		term.Quo(term, bf(float64(n)))
		sum.Add(sum, term)
		if term.Sign() == 0 || term.MantExp(nil)-sum.MantExp(nil) < -refPrec-8 {
			break
		}
	}
	return sum
}

// refLog1p is ln(1+x) = 2 atanh(x / (2 + x)), which does not lose x to 1 + x.
func refLog1p(x float64) *big.Float {
	p := uint(refPrec + 2200) // 2 + x exact for any double x > -1
	X := new(big.Float).SetPrec(p).SetFloat64(x)
	d := new(big.Float).SetPrec(p).Add(X, new(big.Float).SetPrec(p).SetInt64(2))
	q := new(big.Float).SetPrec(refPrec).Quo(X, d)
	if new(big.Float).Abs(q).Cmp(bf(0.25)) > 0 {
		s := new(big.Float).SetPrec(p).Add(X, new(big.Float).SetPrec(p).SetInt64(1))
		return refLog(bnew().Set(s))
	}
	r := atanhSeries(q, false)
	return r.Mul(r, bf(2))
}

// normSpecial is norm3d/norm4d of non-finite arguments: +Inf if one is
// infinite (even with a NaN), else NaN.
func normSpecial(a, b float64) float64 {
	if math.IsInf(a, 0) || math.IsInf(b, 0) {
		return math.Inf(1)
	}
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.NaN()
	}
	return 0 // both zero (rnorm: +Inf)
}

// refSinpi is sin(πx) (cos(πx) if cosine) for finite x, with x reduced
// exactly in big arithmetic; ok is false where the result is 0 or x is
// not finite.
func refSinpi(x float64, cosine bool) (*big.Float, bool) {
	if math.IsNaN(x) || math.IsInf(x, 0) || math.Abs(x) < 1e-100 && cosine == false {
		return nil, false
	}
	p := uint(refPrec + 1100)
	r := new(big.Float).SetPrec(p).SetFloat64(x)
	r.Sub(r, new(big.Float).SetPrec(p).SetFloat64(2*math.Round(x/2))) // [-1, 1]
	if cosine {
		r.Add(r, new(big.Float).SetPrec(p).SetFloat64(0.5))
	}
	if r.IsInt() {
		return nil, false
	}
	pi, _ := refConsts()
	return refSinBig(bnew().Mul(pi, bnew().Set(r))), true
}

// sortPairs sorts the inputs (xs[i], ys[i]) by xs: the lanes of a warp
// then take the same paths through a function far more often, and the
// emulator runs the sweep several times faster (divergent paths are what
// it spends its time scheduling). NaNs go last.
func sortPairs(xs, ys []float64) {
	idx := make([]int, len(xs))
	for i := range idx {
		idx[i] = i
	}
	key := func(x float64) float64 {
		if x != x {
			return math.Inf(1)
		}
		return x
	}
	sort.SliceStable(idx, func(a, b int) bool { return key(xs[idx[a]]) < key(xs[idx[b]]) })
	x2, y2 := make([]float64, len(xs)), make([]float64, len(ys))
	for k, i := range idx {
		x2[k], y2[k] = xs[i], ys[i]
	}
	copy(xs, x2)
	copy(ys, y2)
}

func bsqrt(x *big.Float) *big.Float { return bnew().Sqrt(x) }

// The double-precision functions added beside the core, in one launch
// over the double sweep of TestMathLibraryDouble plus the arguments each
// function finds hard (lgamma near its zeros 1 and 2 and at negative
// non-integers, tgamma's large negative arguments, log1p/expm1 near 0).
// The reference is a refPrec-bit math/big value where one is written
// below; Go's math (within 1 ulp: erfc, erfinv by Newton on Erfc,
// sinpi/cospi after an exact reduction) for the rest, whose bounds are
// at least 2 ulp wider than Go's error; exact functions must be exact.
func TestMathLibraryDoubleMore(t *testing.T) {
	xf, yf := mathInputs()
	var xs, ys []float64
	for i := range xf {
		x := float64(xf[i])
		if i%11 == 3 {
			x *= 1 + 0x1p-40*float64(i%97)
		}
		xs, ys = append(xs, x), append(ys, float64(yf[i]))
	}
	hard := []float64{1 + 0x1p-30, 1 - 0x1p-30, 2 + 0x1p-30, 2 - 0x1p-30, 1.0000001, 0.9999999, 1.9999999, 2.0000001, 1.5, 2.5,
		-0.5, -1.5, -2.5, -3.5, -10.5, -20.25, -100.75, -170.5, -171.5, -177.3, -180.1, -190.5, -1e-300, 1e-300, 5e-324,
		170.6, 171.6, 171.7, 172, 1e-10, -1e-10, 1e-20, 0x1p-1022, 3.0000000000000004, 0.49999999999999994,
		-0.9999999999999999, 0.9999999999999999, 1e-17, -1e-17, 36.5, 37.5, 709.5, -745.2, 0.00390625, 307.9, -307.9}
	for k, h := range hard {
		xs[len(xs)-64+k%64] = h
	}
	sortPairs(xs, ys)
	n := len(xs)
	type fn struct {
		expr string
		ulp  float64
		big  func(a, b float64) (*big.Float, bool) // nil or !ok: Go's ref
		ref  func(a, b float64) float64
		skip func(a, b float64) bool
	}
	F := func(v float64) *big.Float { return bf(v) }
	pi, ln2 := refConsts()
	_ = ln2
	finite := func(v ...float64) bool {
		for _, x := range v {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return false
			}
		}
		return true
	}
	fns := []fn{
		{"asin(a * 0.1)", 2, func(a, _ float64) (*big.Float, bool) {
			x := a * 0.1
			if !finite(x) || x == 0 || math.Abs(x) >= 1 {
				return nil, false
			}
			X := F(x)
			return refAtan(bnew().Quo(X, bsqrt(bnew().Sub(bf(1), bnew().Mul(X, X))))), true
		}, func(a, _ float64) float64 { return math.Asin(a * 0.1) }, nil},
		{"acos(a * 0.1)", 2, func(a, _ float64) (*big.Float, bool) {
			x := a * 0.1
			if !finite(x) || math.Abs(x) >= 1 {
				return nil, false
			}
			X := F(x)
			as := bf(0)
			if x != 0 {
				as = refAtan(bnew().Quo(X, bsqrt(bnew().Sub(bf(1), bnew().Mul(X, X)))))
			}
			return bnew().Sub(bnew().Quo(pi, bf(2)), as), true
		}, func(a, _ float64) float64 { return math.Acos(a * 0.1) }, nil},
		{"asinh(a)", 3, func(a, _ float64) (*big.Float, bool) {
			if !finite(a) || a == 0 || math.Abs(a) > 1e150 || math.Abs(a) < 1e-150 {
				return nil, false
			}
			X := F(math.Abs(a))
			r := refLog(bnew().Add(X, bsqrt(bnew().Add(bnew().Mul(X, X), bf(1)))))
			if a < 0 {
				r.Neg(r)
			}
			return r, true
		}, func(a, _ float64) float64 { return math.Asinh(a) }, nil},
		{"acosh(1.0 + fabs(a))", 3, func(a, _ float64) (*big.Float, bool) {
			x := 1 + math.Abs(a)
			if !finite(x) || x == 1 || x > 1e150 {
				return nil, false
			}
			X := F(x)
			return refLog(bnew().Add(X, bsqrt(bnew().Sub(bnew().Mul(X, X), bf(1))))), true
		}, func(a, _ float64) float64 { return math.Acosh(1 + math.Abs(a)) }, nil},
		{"atanh(a * 0.1)", 2, func(a, _ float64) (*big.Float, bool) {
			x := a * 0.1
			if !finite(x) || x == 0 || math.Abs(x) >= 1 {
				return nil, false
			}
			if math.Abs(x) < 0.25 {
				return atanhSeries(F(x), false), true
			}
			X := F(x)
			r := refLog(bnew().Quo(bnew().Add(bf(1), X), bnew().Sub(bf(1), X)))
			return r.Quo(r, bf(2)), true
		}, func(a, _ float64) float64 { return math.Atanh(a * 0.1) }, nil},
		{"exp10(a)", 1, func(a, _ float64) (*big.Float, bool) {
			if !finite(a) || math.Abs(a) > 330 {
				return nil, false
			}
			return refExp(bnew().Mul(F(a), refLog(bf(10)))), true
		}, func(a, _ float64) float64 { return math.Pow(10, a) }, nil},
		{"expm1(a)", 1, func(a, _ float64) (*big.Float, bool) {
			if !finite(a) || a == 0 || math.Abs(a) > 700 {
				return nil, false
			}
			return refExpm1(a), true
		}, func(a, _ float64) float64 { return math.Expm1(a) }, nil},
		{"log1p(a)", 1, func(a, _ float64) (*big.Float, bool) {
			if !finite(a) || a == 0 || a <= -1 {
				return nil, false
			}
			return refLog1p(a), true
		}, func(a, _ float64) float64 { return math.Log1p(a) }, nil},
		{"lgamma(a)", 4, func(a, _ float64) (*big.Float, bool) {
			if !finite(a) || a == math.Trunc(a) && a <= 0 || a == 1 || a == 2 || math.Abs(a) > 1e30 {
				return nil, false
			}
			if math.Abs(a) < 1e-100 { // -log|a| - γa + …: -log|a| to 2^-300
				r := refLog(F(math.Abs(a)))
				return r.Neg(r), true
			}
			r, _ := refLgamma(a)
			return r, true
		}, func(a, _ float64) float64 {
			if math.IsInf(a, 0) {
				return math.Inf(1)
			}
			l, _ := math.Lgamma(a)
			return l
		}, func(a, _ float64) bool { return a > -23.0001 && a < -2.2637 }},
		{"tgamma(a)", 10, func(a, _ float64) (*big.Float, bool) {
			if !finite(a) || a == math.Trunc(a) && a <= 0 || a > 171.7 || a < -200 || math.Abs(a) < 1e-100 {
				return nil, false
			}
			l, s := refLgamma(a)
			r := refExp(l)
			if s < 0 {
				r.Neg(r)
			}
			return r, true
		}, func(a, _ float64) float64 { return math.Gamma(a) }, nil},
		{"sinpi(a)", 2, func(a, _ float64) (*big.Float, bool) { return refSinpi(a, false) }, func(a, _ float64) float64 { return sinpiRef(a, false) }, nil},
		{"cospi(a)", 2, func(a, _ float64) (*big.Float, bool) { return refSinpi(a, true) }, func(a, _ float64) float64 { return sinpiRef(a, true) }, nil},
		{"erfc(a)", 5, nil, func(a, _ float64) float64 { return math.Erfc(a) }, nil},
		{"erfcx(a)", 4, nil, func(a, _ float64) float64 { return erfcxRef(a) }, func(a, _ float64) bool { return a < 3 && a > -26 && a != 0 }}, // Go's exp(x²)·erfc(x) loses the product's error there
		{"erfinv(a * 0.1)", 5, nil, func(a, _ float64) float64 {
			y := a * 0.1
			if !(math.Abs(y) < 1) {
				return math.Erfinv(y)
			}
			x := math.Erfinv(y)
			if y != 0 && !math.IsInf(x, 0) {
				for i := 0; i < 3; i++ {
					x -= (math.Erf(x) - y) / (2 / math.SqrtPi * math.Exp(-x*x))
				}
			}
			return x
		}, nil},
		{"erfcinv(fabs(a) * 0.2)", 6, nil, func(a, _ float64) float64 { return erfcinvRef(math.Abs(a) * 0.2) }, nil},
		{"normcdf(a)", 5, nil, func(a, _ float64) float64 { return 0.5 * math.Erfc(-a/math.Sqrt2) }, func(a, _ float64) bool { return a < -1 && a > -40 }},
		{"normcdfinv(fabs(a) * 0.1)", 8, nil, func(a, _ float64) float64 { return -math.Sqrt2 * erfcinvRef(2*math.Abs(a)*0.1) }, nil},
		{"rsqrt(fabs(a))", 1, func(a, _ float64) (*big.Float, bool) {
			if !finite(a) || a == 0 {
				return nil, false
			}
			return bnew().Quo(bf(1), bsqrt(F(math.Abs(a)))), true
		}, func(a, _ float64) float64 { return 1 / math.Sqrt(math.Abs(a)) }, nil},
		{"rcbrt(a)", 1, func(a, _ float64) (*big.Float, bool) {
			if !finite(a) || a == 0 {
				return nil, false
			}
			return bnew().Quo(bf(1), refCbrt(a)), true
		}, func(a, _ float64) float64 { return 1 / math.Cbrt(a) }, nil},
		{"rhypot(a, b)", 1, func(a, b float64) (*big.Float, bool) {
			if !finite(a, b) || a == 0 && b == 0 {
				return nil, false
			}
			return bnew().Quo(bf(1), bsqrt(bnew().Add(bnew().Mul(F(a), F(a)), bnew().Mul(F(b), F(b))))), true
		}, func(a, b float64) float64 { return 1 / math.Hypot(a, b) }, nil},
		{"norm3d(a, b, 0.75)", 2, func(a, b float64) (*big.Float, bool) {
			if !finite(a, b) {
				return nil, false
			}
			return bsqrt(bnew().Add(bnew().Add(bnew().Mul(F(a), F(a)), bnew().Mul(F(b), F(b))), bf(0.5625))), true
		}, normSpecial, nil},
		{"rnorm3d(a, b, a)", 1, func(a, b float64) (*big.Float, bool) {
			if !finite(a, b) || a == 0 && b == 0 {
				return nil, false
			}
			return bnew().Quo(bf(1), bsqrt(bnew().Add(bnew().Mul(bnew().Mul(F(a), F(a)), bf(2)), bnew().Mul(F(b), F(b))))), true
		}, func(a, b float64) float64 { return 1 / normSpecial(a, b) }, nil},
		{"norm4d(a, b, b, -3.0)", 2, func(a, b float64) (*big.Float, bool) {
			if !finite(a, b) {
				return nil, false
			}
			return bsqrt(bnew().Add(bnew().Add(bnew().Mul(F(a), F(a)), bnew().Mul(bnew().Mul(F(b), F(b)), bf(2))), bf(9))), true
		}, normSpecial, nil},
		{"rnorm4d(a, a, b, 0.0)", 1, func(a, b float64) (*big.Float, bool) {
			if !finite(a, b) || a == 0 && b == 0 {
				return nil, false
			}
			return bnew().Quo(bf(1), bsqrt(bnew().Add(bnew().Mul(bnew().Mul(F(a), F(a)), bf(2)), bnew().Mul(F(b), F(b))))), true
		}, func(a, b float64) float64 { return 1 / normSpecial(a, b) }, nil},
		// Exact (0 ulp).
		{"frexp(a, &iq) + (double)iq * 2.0", 0, nil, func(a, _ float64) float64 {
			if math.IsInf(a, 0) || math.IsNaN(a) {
				return a
			}
			f, e := math.Frexp(a)
			return f + float64(e)*2
		}, nil},
		{"ldexp(a, (int)(b * 4.0) % 2200)", 0, nil, func(a, b float64) float64 {
			return math.Ldexp(a, int(int32(b*4))%2200)
		}, func(_, b float64) bool { return !finite(b) || math.Abs(b*4) > 2e9 }},
		{"scalbn(a, -(int)(b * 4.0) % 2200)", 0, nil, func(a, b float64) float64 {
			return math.Ldexp(a, -int(int32(b*4))%2200)
		}, func(_, b float64) bool { return !finite(b) || math.Abs(b*4) > 2e9 }},
		{"(double)ilogb(a)", 0, nil, func(a, _ float64) float64 {
			switch {
			case math.IsNaN(a), a == 0:
				return math.MinInt32
			case math.IsInf(a, 0):
				return math.MaxInt32
			}
			return float64(math.Ilogb(a))
		}, nil},
		{"logb(a)", 0, nil, func(a, _ float64) float64 { return math.Logb(a) }, nil},
		{"modf(a, &fp) + (fp == trunc(a) ? 0.0 : 1e300)", 0, nil, func(a, _ float64) float64 {
			if math.IsInf(a, 0) {
				return math.Copysign(0, a)
			}
			_, f := math.Modf(a)
			return f
		}, nil},
		{"nextafter(a, b)", 0, nil, math.Nextafter, nil},
		{"remquo(a, b, &iq) + (double)(iq & 7) * 1e300", 0, nil, func(a, b float64) float64 {
			r := math.Remainder(a, b)
			if math.IsNaN(r) {
				return r
			}
			q := math.Round((a - r) / b)
			sq := int64(math.Abs(q)) & 7
			if (a < 0) != (b < 0) {
				sq = -sq
			}
			return r + float64(int32(sq)&7)*1e300
		}, func(a, b float64) bool {
			r := math.Remainder(a, b)
			return !math.IsNaN(r) && math.Abs((a-r)/b) >= 0x1p52
		}},
		{"fdim(a, b)", 0, nil, func(a, b float64) float64 {
			if a == b && !math.IsNaN(a) {
				return 0
			}
			return math.Dim(a, b)
		}, nil},
		{"(double)(llrint(a) - llround(a)) + (double)llround(a * 1e-3)", 0, nil, func(a, _ float64) float64 {
			return float64(int64(math.RoundToEven(a))-int64(math.Round(a))) + float64(int64(math.Round(a*1e-3)))
		}, func(a, _ float64) bool { return !finite(a) || math.Abs(a) > 9e18 }},
	}
	var exprs []string
	for _, f := range fns {
		exprs = append(exprs, f.expr)
	}
	enc := func(v []float64) string {
		raw := make([]byte, 8*len(v))
		for i, x := range v {
			binary.LittleEndian.PutUint64(raw[8*i:], math.Float64bits(x))
		}
		return hex.EncodeToString(raw)
	}
	spec := fmt.Sprintf(`"entry": "_Z1mPKdS0_Pdi", "grid": [%d,1,1], "block": [64,1,1],
		"buffers": [{"name": "x", "type": "f64", "count": %d, "init": {"bytes": %q}}, {"name": "y", "type": "f64", "count": %d, "init": {"bytes": %q}}, {"name": "out", "type": "f64", "count": %d}],
		"params": [{"buffer": "x"}, {"buffer": "y"}, {"buffer": "out"}, {"u32": %d}]}`, n/64, n, enc(xs), n, enc(ys), n*len(exprs), n)
	res, _, _, _ := compileRun(t, exprKernel("double", exprs), cuda.Options{Opt: 2}, spec)
	raw := u64s(t, res, "out")
	for k, f := range fns {
		worst, wi := 0.0, 0
		var wgot, wwant float64
		for i := range xs {
			a, b := xs[i], ys[i]
			if f.skip != nil && f.skip(a, b) {
				continue
			}
			got := math.Float64frombits(raw[k*n+i])
			var e, want float64
			if r, ok := (*big.Float)(nil), false; f.big != nil {
				if r, ok = f.big(a, b); ok {
					e = ulpErrBig(got, r)
					want, _ = r.Float64()
				}
				if !ok {
					want = f.ref(a, b)
					e = ulpErr64(got, want)
				}
			} else {
				want = f.ref(a, b)
				e = ulpErr64(got, want)
			}
			if f.ulp == 0 && got != want && !(got != got && want != want) {
				e = math.Max(e, 1)
			}
			if e > worst || math.IsNaN(e) {
				worst, wi, wgot, wwant = e, i, got, want
			}
		}
		bound := f.ulp
		t.Logf("%-45s max error %.3f ulp (at a=%g b=%g: %g, want %g), documented %g", f.expr, worst, xs[wi], ys[wi], wgot, wwant, bound)
		if bound == 0 {
			bound = 0.5
		}
		if !(worst <= bound) {
			t.Errorf("%s at a=%g b=%g = %g, want %g: %.2f ulp > %g", f.expr, xs[wi], ys[wi], wgot, wwant, worst, bound)
		}
	}
}
