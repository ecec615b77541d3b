package cuda_test

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"
	"math/big"
	"testing"

	"github.com/ptxplayground/ptxplay/engine/cuda"
)

// bigRound rounds the exact value v to a double in mode m (ok false for
// results outside the normal range, which big.Float does not model).
func bigRound(v *big.Float, m big.RoundingMode) (float64, bool) {
	z := new(big.Float).SetPrec(53).SetMode(m).Set(v)
	f, _ := z.Float64()
	if f != 0 && (math.Abs(f) < 0x1p-1022 || math.IsInf(f, 0)) || z.IsInf() {
		return 0, false
	}
	return f, true
}

// bigToInt rounds x to an integer in mode m and saturates it to [lo, hi]
// (NaN gives 0), as PTX's cvt.r*i.s64/u64/s32/u32.f64 do.
func bigToInt(x float64, m big.RoundingMode, lo, hi *big.Int) *big.Int {
	if math.IsNaN(x) {
		return new(big.Int)
	}
	if math.IsInf(x, 1) {
		return hi
	}
	if math.IsInf(x, -1) {
		return lo
	}
	b := new(big.Float).SetFloat64(x)
	i, _ := b.Int(nil) // toward zero
	fr := new(big.Float).Sub(b, new(big.Float).SetInt(i))
	switch m {
	case big.ToNearestEven:
		h := new(big.Float).Abs(fr).Cmp(big.NewFloat(0.5))
		if h > 0 || h == 0 && i.Bit(0) == 1 {
			i.Add(i, big.NewInt(int64(fr.Sign())))
		}
	case big.ToPositiveInf:
		if fr.Sign() > 0 {
			i.Add(i, big.NewInt(1))
		}
	case big.ToNegativeInf:
		if fr.Sign() < 0 {
			i.Sub(i, big.NewInt(1))
		}
	}
	if i.Cmp(lo) < 0 {
		return lo
	}
	if i.Cmp(hi) > 0 {
		return hi
	}
	return i
}

// The double directed-rounding intrinsics and the double-to-integer and
// 64-bit-integer-to-double conversions, one launch: each result exact
// against math/big in its rounding mode on every normal result (ties,
// halfway cases, saturation and NaN included for the conversions).
func TestDoubleRoundingIntrinsics(t *testing.T) {
	xf, yf := mathInputs()
	var xs, ys []float64
	for i := range xf {
		x := float64(xf[i])
		if i%3 == 1 {
			x *= 1 + 0x1p-45*float64(i%89)
		}
		xs, ys = append(xs, x), append(ys, float64(yf[i])*(1+0x1p-50*float64(i%7)))
	}
	edges := []float64{0.5, 1.5, 2.5, -0.5, -2.5, 4503599627370495.5, -4503599627370495.5, 9007199254740993, 2147483647.5, 2147483648, -2147483648.5, -2147483649,
		4294967295.5, 4294967296, 9.223372036854775807e18, -9.223372036854775808e18, 1.8446744073709552e19, -1, -0.9999999999999999, 0.49999999999999994}
	for k, e := range edges {
		xs[len(xs)-64+k] = e
	}
	n := len(xs)
	modes := []struct {
		s string
		m big.RoundingMode
	}{{"rn", big.ToNearestEven}, {"rz", big.ToZero}, {"ru", big.ToPositiveInf}, {"rd", big.ToNegativeInf}}
	type arith struct {
		expr string
		m    big.RoundingMode
		op   func(a, b float64) *big.Float // nil: skip
	}
	const p = 2200
	B := func(v float64) *big.Float { return new(big.Float).SetPrec(p).SetFloat64(v) }
	var ar []arith
	for _, md := range modes {
		ar = append(ar,
			arith{"__dadd_" + md.s + "(a, b)", md.m, func(a, b float64) *big.Float { return new(big.Float).SetPrec(p).Add(B(a), B(b)) }},
			arith{"__dmul_" + md.s + "(a, b)", md.m, func(a, b float64) *big.Float { return new(big.Float).SetPrec(p).Mul(B(a), B(b)) }},
			arith{"__ddiv_" + md.s + "(a, b)", md.m, func(a, b float64) *big.Float {
				if b == 0 {
					return nil
				}
				return new(big.Float).SetPrec(p).Quo(B(a), B(b))
			}},
			arith{"__drcp_" + md.s + "(a)", md.m, func(a, _ float64) *big.Float {
				if a == 0 {
					return nil
				}
				return new(big.Float).SetPrec(p).Quo(B(1), B(a))
			}},
			arith{"__dsqrt_" + md.s + "(fabs(a))", md.m, func(a, _ float64) *big.Float { return new(big.Float).SetPrec(p).Sqrt(B(math.Abs(a))) }},
			arith{"__fma_" + md.s + "(a, b, 0.75)", md.m, func(a, b float64) *big.Float {
				return new(big.Float).SetPrec(p).Add(new(big.Float).SetPrec(p).Mul(B(a), B(b)), B(0.75))
			}},
		)
	}
	if len(ar) != 24 {
		t.Fatal(len(ar))
	}
	type conv struct {
		expr   string
		m      big.RoundingMode
		lo, hi *big.Int
		signed bool
		bits   int
	}
	i64lo, i64hi := big.NewInt(math.MinInt64), big.NewInt(math.MaxInt64)
	u64hi := new(big.Int).SetUint64(math.MaxUint64)
	var cv []conv
	for _, md := range modes {
		cv = append(cv,
			conv{"__longlong_as_double(__double2ll_" + md.s + "(a))", md.m, i64lo, i64hi, true, 64},
			conv{"__longlong_as_double((long long)__double2ull_" + md.s + "(a))", md.m, new(big.Int), u64hi, false, 64},
			conv{"__longlong_as_double((long long)__double2int_" + md.s + "(a))", md.m, big.NewInt(math.MinInt32), big.NewInt(math.MaxInt32), true, 32},
			conv{"__longlong_as_double((long long)__double2uint_" + md.s + "(a))", md.m, new(big.Int), big.NewInt(math.MaxUint32), false, 32},
		)
	}
	// 64-bit integers to double: the integer is a's bits reinterpreted.
	var ic []arith
	for _, md := range modes {
		ic = append(ic,
			arith{"__ll2double_" + md.s + "(__double_as_longlong(a))", md.m, func(a, _ float64) *big.Float {
				return new(big.Float).SetPrec(p).SetInt64(int64(math.Float64bits(a)))
			}},
			arith{"__ull2double_" + md.s + "((unsigned long long)__double_as_longlong(a))", md.m, func(a, _ float64) *big.Float {
				return new(big.Float).SetPrec(p).SetUint64(math.Float64bits(a))
			}},
		)
	}
	// Integers to float (the result widened to double, exactly): a's bits
	// as a 64-bit integer, and their low 32 bits.
	f32 := func(m big.RoundingMode, v *big.Float) float64 {
		z := new(big.Float).SetPrec(24).SetMode(m).Set(v)
		f, _ := z.Float64()
		return f
	}
	type fconv struct {
		expr string
		m    big.RoundingMode
		v    func(bits uint64) *big.Float
	}
	var fc []fconv
	for _, md := range modes {
		fc = append(fc,
			fconv{"(double)__ll2float_" + md.s + "(__double_as_longlong(a))", md.m, func(u uint64) *big.Float { return new(big.Float).SetInt64(int64(u)) }},
			fconv{"(double)__ull2float_" + md.s + "((unsigned long long)__double_as_longlong(a))", md.m, func(u uint64) *big.Float { return new(big.Float).SetUint64(u) }},
			fconv{"(double)__int2float_" + md.s + "((int)__double_as_longlong(a))", md.m, func(u uint64) *big.Float { return new(big.Float).SetInt64(int64(int32(uint32(u)))) }},
			fconv{"(double)__uint2float_" + md.s + "((unsigned)__double_as_longlong(a))", md.m, func(u uint64) *big.Float { return new(big.Float).SetUint64(uint64(uint32(u))) }},
		)
	}
	var exprs []string
	for _, a := range ar {
		exprs = append(exprs, a.expr)
	}
	for _, c := range cv {
		exprs = append(exprs, c.expr)
	}
	for _, a := range ic {
		exprs = append(exprs, a.expr)
	}
	for _, f := range fc {
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
	bad, checkedBad := 0, 0
	report := func(expr string, i int, got, want string) {
		if bad < 12 {
			t.Errorf("%s at a=%g b=%g = %s, want %s", expr, xs[i], ys[i], got, want)
		}
		bad++
	}
	arithCheck := func(k int, a arith) int {
		checked, before := 0, bad
		defer func() { checkedBad = bad - before }()
		for i := range xs {
			if !(isFinite(xs[i]) && isFinite(ys[i])) {
				continue
			}
			v := a.op(xs[i], ys[i])
			if v == nil {
				continue
			}
			w, ok := bigRound(v, a.m)
			if !ok {
				continue
			}
			checked++
			if got := math.Float64frombits(raw[k*n+i]); got != w {
				report(a.expr, i, fmt.Sprint(got), fmt.Sprint(w))
			}
		}
		return checked
	}
	for k, a := range ar {
		c := arithCheck(k, a)
		t.Logf("%-45s %d mismatches on %d normal results", a.expr, checkedBad, c)
	}
	for j, c := range cv {
		k, before := len(ar)+j, bad
		for i := range xs {
			w := bigToInt(xs[i], c.m, c.lo, c.hi)
			var got *big.Int
			r := raw[k*n+i]
			switch {
			case c.signed && c.bits == 64:
				got = big.NewInt(int64(r))
			case c.bits == 64:
				got = new(big.Int).SetUint64(r)
			case c.signed:
				got = big.NewInt(int64(int32(uint32(r))))
			default:
				got = new(big.Int).SetUint64(uint64(uint32(r)))
			}
			if got.Cmp(w) != 0 {
				report(c.expr, i, got.String(), w.String())
			}
		}
		t.Logf("%-45s %d mismatches on %d inputs (saturating, NaN to 0)", c.expr, bad-before, n)
	}
	for j, a := range ic {
		c := arithCheck(len(ar)+len(cv)+j, a)
		t.Logf("%-45s %d mismatches on %d results", a.expr, checkedBad, c)
	}
	for j, f := range fc {
		k, before := len(ar)+len(cv)+len(ic)+j, bad
		for i := range xs {
			u := math.Float64bits(xs[i])
			if w, got := f32(f.m, f.v(u)), math.Float64frombits(raw[k*n+i]); got != w {
				report(f.expr, i, fmt.Sprint(got), fmt.Sprint(w))
			}
		}
		t.Logf("%-45s %d mismatches on %d inputs", f.expr, bad-before, n)
	}
}

func isFinite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
