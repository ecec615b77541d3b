package cuda_test

import (
	"math"
	"math/big"
	"sync"
)

// A reference for the double-precision math functions in math/big at
// 400 bits (1,500 for the reduction of trigonometric arguments): Go's
// float64 math is itself off by up to tens of ulp in places (Pow of large
// results, Log of subnormals, Exp near overflow, Cos of huge arguments), so
// it cannot referee a 1-ulp bound.

const refPrec = 400

func bf(x float64) *big.Float { return new(big.Float).SetPrec(refPrec).SetFloat64(x) }
func bnew() *big.Float        { return new(big.Float).SetPrec(refPrec) }

// atanhSeries is sum x^(2n+1)/(2n+1) for small |x|.
func atanhSeries(x *big.Float, alt bool) *big.Float {
	p := x.Prec()
	x2 := new(big.Float).SetPrec(p).Mul(x, x)
	if alt {
		x2.Neg(x2)
	}
	term := new(big.Float).SetPrec(p).Set(x)
	sum := new(big.Float).SetPrec(p).Set(x)
	for n := int64(1); n < 100000; n++ {
		term.Mul(term, x2)
		t := new(big.Float).SetPrec(p).Quo(term, new(big.Float).SetPrec(p).SetInt64(2*n+1))
		sum.Add(sum, t)
		if t.Sign() == 0 || t.MantExp(nil)-sum.MantExp(nil) < -int(p)-8 {
			break
		}
	}
	return sum
}

var refConsts = sync.OnceValues(func() (*big.Float, *big.Float) {
	const p = 1600
	one := new(big.Float).SetPrec(p).SetInt64(1)
	inv := func(n int64) *big.Float {
		return new(big.Float).SetPrec(p).Quo(one, new(big.Float).SetPrec(p).SetInt64(n))
	}
	// pi = 16 atan(1/5) - 4 atan(1/239); ln2 = 2 atanh(1/3).
	pi := new(big.Float).SetPrec(p).Mul(atanhSeries(inv(5), true), new(big.Float).SetInt64(16))
	pi.Sub(pi, new(big.Float).SetPrec(p).Mul(atanhSeries(inv(239), true), new(big.Float).SetInt64(4)))
	ln2 := new(big.Float).SetPrec(p).Mul(atanhSeries(inv(3), false), new(big.Float).SetInt64(2))
	return pi, ln2
})

func refExp(x *big.Float) *big.Float {
	_, ln2 := refConsts()
	q := new(big.Float).SetPrec(refPrec).Quo(x, ln2)
	k, _ := q.Int64()
	r := bnew().Sub(x, bnew().Mul(new(big.Float).SetInt64(k), ln2))
	r.SetMantExp(r, -20) // r / 2^20, then Taylor, then square 20 times
	sum, term := bf(1), bf(1)
	for n := int64(1); n < 200; n++ {
		term.Mul(term, r)
		term.Quo(term, new(big.Float).SetInt64(n))
		sum.Add(sum, term)
		if term.Sign() == 0 || term.MantExp(nil) < -refPrec-8 {
			break
		}
	}
	for i := 0; i < 20; i++ {
		sum.Mul(sum, sum)
	}
	return sum.SetMantExp(sum, int(k))
}

func refLog(x *big.Float) *big.Float { // x > 0
	_, ln2 := refConsts()
	m := bnew()
	e := x.MantExp(m) // x = m * 2^e, m in [0.5, 1)
	s := bnew().Quo(bnew().Sub(m, bf(1)), bnew().Add(m, bf(1)))
	l := atanhSeries(s, false)
	l.Mul(l, bf(2))
	return l.Add(l, bnew().Mul(new(big.Float).SetInt64(int64(e)), ln2))
}

// refSinCos returns sin and cos of x (reduced modulo 2pi at 1,600 bits).
func refSinCos(x float64) (*big.Float, *big.Float) {
	pi, _ := refConsts()
	X := new(big.Float).SetPrec(1600).SetFloat64(x)
	twoPi := new(big.Float).SetPrec(1600).Mul(pi, big.NewFloat(2))
	q := new(big.Float).SetPrec(1600).Quo(X, twoPi)
	qi, _ := q.Int(nil)
	r := new(big.Float).SetPrec(1600).Sub(X, new(big.Float).SetPrec(1600).Mul(new(big.Float).SetPrec(1600).SetInt(qi), twoPi))
	r.SetPrec(refPrec)
	sin, cos := bnew().Set(r), bf(1)
	term := bf(1)
	r2 := bnew().Mul(r, r)
	for n := int64(1); n < 400; n++ {
		term.Mul(term, r2)
		term.Quo(term, new(big.Float).SetInt64((2*n-1)*(2*n)))
		term.Neg(term)
		cos.Add(cos, term)
		st := bnew().Mul(term, r)
		st.Quo(st, new(big.Float).SetInt64(2*n+1))
		sin.Add(sin, st)
		if term.Sign() == 0 || term.MantExp(nil) < -refPrec-8 {
			break
		}
	}
	return sin, cos
}

func refAtan(x *big.Float) *big.Float {
	pi, _ := refConsts()
	neg := x.Sign() < 0
	a := bnew().Abs(x)
	inv := a.Cmp(bf(1)) > 0
	if inv {
		a.Quo(bf(1), a)
	}
	// atan(a) = 2 atan(a / (1 + sqrt(1 + a^2))), 8 times
	for i := 0; i < 8; i++ {
		d := bnew().Sqrt(bnew().Add(bf(1), bnew().Mul(a, a)))
		a.Quo(a, d.Add(d, bf(1)))
	}
	r := atanhSeries(a, true)
	r.SetMantExp(r, 8)
	if inv {
		r.Sub(bnew().SetMantExp(bnew().Set(pi), -1), r)
	}
	if neg {
		r.Neg(r)
	}
	return r
}

func refErf(x float64) *big.Float {
	if math.Abs(x) >= 6 {
		return bf(math.Copysign(1, x))
	}
	const p = 600
	X := new(big.Float).SetPrec(p).SetFloat64(x)
	x2 := new(big.Float).SetPrec(p).Mul(X, X)
	x2.Neg(x2)
	term := new(big.Float).SetPrec(p).Set(X)
	sum := new(big.Float).SetPrec(p).Set(X)
	for n := int64(1); n < 1000; n++ {
		term.Mul(term, x2)
		term.Quo(term, new(big.Float).SetInt64(n))
		t := new(big.Float).SetPrec(p).Quo(term, new(big.Float).SetInt64(2*n+1))
		sum.Add(sum, t)
		if t.Sign() == 0 || t.MantExp(nil)-sum.MantExp(nil) < -refPrec-8 {
			break
		}
	}
	pi, _ := refConsts()
	c := new(big.Float).SetPrec(p).Sqrt(new(big.Float).SetPrec(p).Set(pi))
	sum.Quo(sum, c)
	return sum.Mul(sum, big.NewFloat(2)).SetPrec(refPrec)
}

// refSinh is sinh at 400 bits (its Taylor series below 1, where e^x - e^-x
// would cancel).
func refSinh(x float64) *big.Float {
	X := bf(x)
	if math.Abs(x) < 1 {
		x2 := bnew().Mul(X, X)
		term, sum := bnew().Set(X), bnew().Set(X)
		for n := int64(1); n < 200; n++ {
			term.Mul(term, x2)
			term.Quo(term, new(big.Float).SetInt64((2*n)*(2*n+1)))
			sum.Add(sum, term)
			if term.Sign() == 0 || term.MantExp(nil)-sum.MantExp(nil) < -refPrec-8 {
				break
			}
		}
		return sum
	}
	e := refExp(X)
	r := bnew().Sub(e, bnew().Quo(bf(1), e))
	return r.SetMantExp(r, -1)
}

func refCosh(x float64) *big.Float {
	e := refExp(bf(x))
	r := bnew().Add(e, bnew().Quo(bf(1), e))
	return r.SetMantExp(r, -1)
}

func refCbrt(x float64) *big.Float {
	X := bf(math.Abs(x))
	t := bf(math.Cbrt(math.Abs(x)))
	for i := 0; i < 6; i++ { // t -= (t^3 - x) / (3 t^2)
		t2 := bnew().Mul(t, t)
		num := bnew().Sub(bnew().Mul(t2, t), X)
		t.Sub(t, num.Quo(num, t2.Mul(t2, bf(3))))
	}
	if x < 0 {
		t.Neg(t)
	}
	return t
}

func refPow(x, y float64) *big.Float {
	ax := math.Abs(x)
	r := refExp(bnew().Mul(bf(y), refLog(bf(ax))))
	if x < 0 && math.Mod(math.Abs(y), 2) == 1 {
		r.Neg(r)
	}
	return r
}

// bigRef computes a double function at 400 bits for finite arguments
// where the result is a finite nonzero real; ok is false elsewhere (the
// special values, checked against Go's math instead).
func bigRef(name string, x, y float64) (r *big.Float, ok bool) {
	binary := name == "pow" || name == "atan2" || name == "hypot"
	if math.IsNaN(x) || math.IsInf(x, 0) || binary && (math.IsNaN(y) || math.IsInf(y, 0)) {
		return nil, false
	}
	// Far outside the finite range (exp of -1e38, tanh of 1e300): Go's
	// math gets these right (0, ±Inf, ±1).
	switch name {
	case "exp", "exp2":
		if math.Abs(x) > 1100 {
			return nil, false
		}
	case "sinh", "cosh", "tanh":
		if math.Abs(x) > 800 {
			return nil, false
		}
	}
	switch name {
	case "exp":
		return refExp(bf(x)), true
	case "exp2":
		_, ln2 := refConsts()
		return refExp(bnew().Mul(bf(x), ln2)), true
	case "log", "log2", "log10":
		if x <= 0 || x == 1 {
			return nil, false
		}
		l := refLog(bf(x))
		_, ln2 := refConsts()
		switch name {
		case "log2":
			l.Quo(l, ln2)
		case "log10":
			l.Quo(l, refLog(bf(10)))
		}
		return l, true
	case "sin", "cos", "tan":
		if x == 0 {
			return nil, false
		}
		s, c := refSinCos(x)
		switch name {
		case "sin":
			return s, true
		case "cos":
			return c, true
		}
		return s.Quo(s, c), true
	case "atan":
		if x == 0 {
			return nil, false
		}
		return refAtan(bf(x)), true
	case "atan2":
		if x == 0 || y == 0 {
			return nil, false
		}
		pi, _ := refConsts()
		a := refAtan(bnew().Quo(bf(x), bf(y))) // atan2(x, y): x is the y coordinate
		if y < 0 {
			if x >= 0 {
				a.Add(a, pi)
			} else {
				a.Sub(a, pi)
			}
		}
		return a, true
	case "sinh":
		if x == 0 {
			return nil, false
		}
		return refSinh(x), true
	case "cosh":
		return refCosh(x), true
	case "tanh":
		if x == 0 {
			return nil, false
		}
		return bnew().Quo(refSinh(x), refCosh(x)), true
	case "erf":
		if x == 0 {
			return nil, false
		}
		return refErf(x), true
	case "cbrt":
		if x == 0 {
			return nil, false
		}
		return refCbrt(x), true
	case "hypot":
		if x == 0 && y == 0 {
			return nil, false
		}
		X, Y := bf(x), bf(y)
		return bnew().Sqrt(bnew().Add(bnew().Mul(X, X), bnew().Mul(Y, Y))), true
	case "pow":
		if x == 0 || y == 0 || x == 1 || (x < 0 && math.Trunc(y) != y) || math.Abs(y*math.Log2(math.Abs(x))) > 1e5 {
			return nil, false
		}
		return refPow(x, y), true
	}
	return nil, false
}

// ulpErrBig is |got - want| in units of the last place of want rounded to
// float64 (the smallest subnormal below the normal range).
func ulpErrBig(got float64, want *big.Float) float64 {
	w, _ := want.Float64()
	if math.IsInf(w, 0) || math.IsInf(got, 0) {
		if got == w {
			return 0
		}
		return math.Inf(1)
	}
	if math.IsNaN(got) {
		return math.Inf(1)
	}
	a := math.Abs(w)
	ulp := math.Nextafter(a, math.Inf(1)) - a
	if math.IsInf(ulp, 0) {
		ulp = a - math.Nextafter(a, 0)
	}
	d := bnew().Sub(bf(got), want)
	d.Abs(d)
	d.Quo(d, bf(ulp))
	e, _ := d.Float64()
	return e
}
