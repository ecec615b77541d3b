package cuda_test

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"
	"math/big"
	"strings"
	"testing"

	"github.com/ptxplayground/ptxplay/engine/cuda"
)

// exprKernel writes out[k*n + i] = exprs[k] for each input pair (a, b).
func exprKernel(typ string, exprs []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "__global__ void m(const %[1]s *x, const %[1]s *y, %[1]s *out, int n) {\n  int i = blockIdx.x * blockDim.x + threadIdx.x;\n  if (i >= n) return;\n  %[1]s a = x[i], b = y[i];\n  int iq; %[1]s fp, sp;\n", typ)
	for k, e := range exprs {
		fmt.Fprintf(&b, "  out[%d * n + i] = %s;\n", k, e)
	}
	b.WriteString("}\n")
	return b.String()
}

// sinpiRef is sin(pi x) (cos if cosine) for a float64 x, reduced exactly.
func sinpiRef(x float64, cosine bool) float64 {
	if math.IsInf(x, 0) || math.IsNaN(x) {
		return math.NaN()
	}
	r := x - 2*math.Round(x/2) // exact, in [-1, 1]
	if cosine {
		r += 0.5
	}
	if r == math.Trunc(r) {
		if !cosine {
			return math.Copysign(0, x)
		}
		return 0
	}
	return math.Sin(math.Pi * r)
}

// erfcFrac is 1/(sqrt(pi) F(x)) = erfcx(x) for x >= 3 by the continued fraction.
func erfcxCF(x float64) float64 {
	t := x
	for n := 400; n >= 1; n-- {
		t = x + float64(n)/2/t
	}
	return 1 / (math.SqrtPi * t)
}

func erfcxRef(x float64) float64 {
	if math.IsNaN(x) {
		return x
	}
	if x >= 3 {
		return erfcxCF(x)
	}
	return math.Exp(x*x) * math.Erfc(x)
}

// erfcinvRef refines Go's Erfcinv (which loses tiny arguments in 1 - z)
// by Newton steps on Erfc.
func erfcinvRef(z float64) float64 {
	if !(z > 0 && z < 2) {
		return math.Erfcinv(z)
	}
	x := math.Erfcinv(z)
	if math.IsInf(x, 0) || z < 1e-10 {
		t := -math.Log(z)
		x = math.Sqrt(t - 0.5*math.Log(math.Pi*t))
	}
	for i := 0; i < 8; i++ {
		x -= (math.Erfc(x) - z) / (-2 / math.SqrtPi * math.Exp(-x*x))
	}
	return x
}

// The rest of the single-precision math library, swept over mathInputs:
// each function within the error CUDA documents, and the exact ones (0
// ulp: frexpf, ldexpf, ilogbf, modff, nextafterf, remquof, llrintf,
// directed rounding) exact, special values included.
func TestMathLibrarySingleMore(t *testing.T) {
	xs, ys := mathInputs()
	sortPairs32(xs, ys)
	n := len(xs)
	sq2 := math.Sqrt2
	type fn struct {
		expr string
		ulp  float64
		ref  func(a, b float64) float64
		skip func(a, b float64) bool // inputs outside the documented bound's range
	}
	bits := func(v int32) float64 { return float64(math.Float32frombits(uint32(v))) }
	fns := []fn{
		{"expm1f(a)", 1, func(a, _ float64) float64 { return math.Expm1(a) }, nil},
		{"log1pf(a)", 1, func(a, _ float64) float64 { return math.Log1p(a) }, nil},
		{"asinhf(a)", 3, func(a, _ float64) float64 { return math.Asinh(a) }, nil},
		{"acoshf(a)", 4, func(a, _ float64) float64 { return math.Acosh(a) }, nil},
		{"acoshf(1.0f + fabsf(a))", 4, func(a, _ float64) float64 { return math.Acosh(float64(float32(1 + math.Abs(a)))) }, nil},
		{"atanhf(a)", 3, func(a, _ float64) float64 { return math.Atanh(a) }, nil},
		{"atanhf(a * 0.1f)", 3, func(a, _ float64) float64 { return math.Atanh(float64(float32(a) * float32(0.1))) }, nil},
		{"sinpif(a)", 1, func(a, _ float64) float64 { return sinpiRef(a, false) }, nil},
		{"cospif(a)", 1, func(a, _ float64) float64 { return sinpiRef(a, true) }, nil},
		{"(sincospif(a, &sp, &fp), sp + 4.0f * fp)", 1, func(a, _ float64) float64 {
			return float64(float32(sinpiRef(a, false)) + 4*float32(sinpiRef(a, true)))
		}, nil},
		{"erfcxf(a)", 4, func(a, _ float64) float64 { return erfcxRef(a) }, nil},
		{"erfinvf(a * 0.1f)", 2, func(a, _ float64) float64 { return math.Erfinv(float64(float32(a) * float32(0.1))) }, nil},
		{"erfinvf(a)", 2, func(a, _ float64) float64 { return math.Erfinv(a) }, nil},
		{"erfcinvf(fabsf(a) * 0.2f)", 4, func(a, _ float64) float64 { return erfcinvRef(float64(float32(math.Abs(a)) * float32(0.2))) }, nil},
		{"erfcinvf(fabsf(a))", 4, func(a, _ float64) float64 { return erfcinvRef(math.Abs(a)) }, nil},
		{"normcdff(a)", 5, func(a, _ float64) float64 { return 0.5 * math.Erfc(-a/sq2) }, nil},
		{"normcdfinvf(fabsf(a) * 0.1f)", 5, func(a, _ float64) float64 {
			return -sq2 * erfcinvRef(2*float64(float32(math.Abs(a))*float32(0.1)))
		}, nil},
		{"lgammaf(a)", 6, func(a, _ float64) float64 {
			if math.IsInf(a, 0) {
				return math.Inf(1) // C99 (Go's Lgamma(-Inf) is -Inf)
			}
			l, _ := math.Lgamma(a)
			return l
		},
			func(a, _ float64) bool { return a > -10.001 && a < -2.264 }},
		{"tgammaf(a)", 5, func(a, _ float64) float64 { return math.Gamma(a) }, nil},
		{"rcbrtf(a)", 1, func(a, _ float64) float64 { return 1 / math.Cbrt(a) }, nil},
		{"rhypotf(a, b)", 2, func(a, b float64) float64 {
			if math.IsInf(a, 0) || math.IsInf(b, 0) {
				return 0
			}
			return 1 / math.Hypot(a, b)
		}, nil},
		{"norm3df(a, b, 0.75f)", 2, func(a, b float64) float64 {
			if math.IsInf(a, 0) || math.IsInf(b, 0) {
				return math.Inf(1)
			}
			return math.Sqrt(a*a + b*b + 0.5625)
		}, nil},
		{"rnorm3df(a, b, a)", 2, func(a, b float64) float64 {
			if math.IsInf(a, 0) || math.IsInf(b, 0) {
				return 0
			}
			return 1 / math.Sqrt(2*a*a+b*b)
		}, nil},
		{"norm4df(a, b, b, -3.0f)", 2, func(a, b float64) float64 {
			if math.IsInf(a, 0) || math.IsInf(b, 0) {
				return math.Inf(1)
			}
			return math.Sqrt(a*a + 2*b*b + 9)
		}, nil},
		{"rnorm4df(a, a, b, 0.0f)", 2, func(a, b float64) float64 {
			if math.IsInf(a, 0) || math.IsInf(b, 0) {
				return 0
			}
			return 1 / math.Sqrt(2*a*a+b*b)
		}, nil},
		// Exact (0 ulp).
		{"frexpf(a, &iq) + (float)iq * 2.0f", 0, func(a, _ float64) float64 {
			f, e := math.Frexp(a)
			if math.IsInf(a, 0) || math.IsNaN(a) {
				return a
			}
			return float64(float32(f) + float32(e)*2)
		}, nil},
		{"ldexpf(a, (int)(b * 4.0f) % 300)", 0, func(a, b float64) float64 {
			if math.IsNaN(b) || math.IsInf(b, 0) || math.Abs(b*4) > 2e9 {
				return math.NaN() // the conversion of NaN/inf is not the function's business
			}
			return float64(float32(math.Ldexp(a, int(int32(float32(b*4)))%300)))
		}, func(_, b float64) bool { return math.IsNaN(b) || math.IsInf(b, 0) || math.Abs(b*4) > 2e9 }},
		{"__int_as_float(ilogbf(a))", 0, func(a, _ float64) float64 {
			switch {
			case math.IsNaN(a), a == 0:
				return bits(math.MinInt32)
			case math.IsInf(a, 0):
				return bits(math.MaxInt32)
			}
			return bits(int32(math.Ilogb(a)))
		}, nil},
		{"logbf(a)", 0, func(a, _ float64) float64 { return math.Logb(a) }, nil},
		{"modff(a, &fp) + fp * 0.0f + (fp == truncf(a) ? 0.0f : 1e30f)", 0, func(a, _ float64) float64 {
			_, f := math.Modf(a)
			if math.IsInf(a, 0) {
				return math.NaN() // inf*0
			}
			return f
		}, nil},
		{"nextafterf(a, b)", 0, func(a, b float64) float64 { return float64(math.Nextafter32(float32(a), float32(b))) }, nil},
		{"__fadd_rn(remquof(a, b, &iq), (float)(iq & 7) * 1e30f)", 0, func(a, b float64) float64 {
			r := math.Remainder(a, b)
			if math.IsNaN(r) {
				return r
			}
			q := math.Round((a - r) / b) // exact enough for the low 3 bits below 2^53
			if math.Abs((a-r)/b) >= 0x1p53 {
				return math.NaN()
			}
			sq := int32(int64(math.Abs(q)) & 7)
			if (a < 0) != (b < 0) {
				sq = -sq
			}
			return float64(float32(r) + float32(sq&7)*1e30)
		}, func(a, b float64) bool {
			r := math.Remainder(a, b)
			return !math.IsNaN(r) && math.Abs((a-r)/b) >= 0x1p24
		}},
		{"fdimf(a, b)", 0, func(a, b float64) float64 {
			if a == b && !math.IsNaN(a) {
				return 0 // C99 fdim(inf, inf) = +0 (Go's Dim gives NaN)
			}
			return math.Dim(a, b)
		}, nil},
		{"(float)(llrintf(a * 1e-6f) - llroundf(a * 1e-6f)) + (float)llroundf(a * 1e-6f)", 0, func(a, _ float64) float64 {
			v := float64(float32(a) * float32(1e-6)) // the kernel's float product
			return float64(float32(float64(int64(math.RoundToEven(v))-int64(math.Round(v))) + float64(int64(math.Round(v)))))
		}, func(a, _ float64) bool { return math.IsNaN(a) || math.Abs(a*1e-6) > 9e18 }},
	}
	// Directed rounding (0 ulp): the exact result rounded by math/big.
	type dr struct {
		expr string
		op   func(z, a, b *big.Float) *big.Float
		mode big.RoundingMode
	}
	drs := []dr{
		{"__fadd_rd(a, b)", (*big.Float).Add, big.ToNegativeInf}, {"__fadd_ru(a, b)", (*big.Float).Add, big.ToPositiveInf},
		{"__fsub_rz(a, b)", (*big.Float).Sub, big.ToZero}, {"__fmul_rd(a, b)", (*big.Float).Mul, big.ToNegativeInf},
		{"__fmul_ru(a, b)", (*big.Float).Mul, big.ToPositiveInf}, {"__fdiv_rd(a, b)", (*big.Float).Quo, big.ToNegativeInf},
		{"__fdiv_ru(a, b)", (*big.Float).Quo, big.ToPositiveInf},
		{"__fsqrt_rd(fabsf(a))", func(z, a, _ *big.Float) *big.Float { return z.Sqrt(new(big.Float).Abs(a)) }, big.ToNegativeInf},
		{"__fsqrt_ru(fabsf(a))", func(z, a, _ *big.Float) *big.Float { return z.Sqrt(new(big.Float).Abs(a)) }, big.ToPositiveInf},
		{"__frcp_rz(a)", func(z, a, _ *big.Float) *big.Float { return z.Quo(big.NewFloat(1), a) }, big.ToZero},
	}
	var exprs []string
	for _, f := range fns {
		exprs = append(exprs, f.expr)
	}
	for _, d := range drs {
		exprs = append(exprs, d.expr)
	}
	enc := func(v []float32) string {
		raw := make([]byte, 4*len(v))
		for i, x := range v {
			binary.LittleEndian.PutUint32(raw[4*i:], math.Float32bits(x))
		}
		return hex.EncodeToString(raw)
	}
	spec := fmt.Sprintf(`"entry": "_Z1mPKfS0_Pfi", "grid": [%d,1,1], "block": [64,1,1],
		"buffers": [{"name": "x", "type": "f32", "count": %d, "init": {"bytes": %q}}, {"name": "y", "type": "f32", "count": %d, "init": {"bytes": %q}}, {"name": "out", "type": "f32", "count": %d}],
		"params": [{"buffer": "x"}, {"buffer": "y"}, {"buffer": "out"}, {"u32": %d}]}`, n/64, n, enc(xs), n, enc(ys), n*len(exprs), n)
	res, _, _, _ := compileRun(t, exprKernel("float", exprs), cuda.Options{Opt: 2}, spec)
	out := f32s(t, res, "out")
	for k, f := range fns {
		worst, wi := 0.0, 0
		for i := range xs {
			a, b := float64(xs[i]), float64(ys[i])
			if f.skip != nil && f.skip(a, b) {
				continue
			}
			got, want := out[k*n+i], f.ref(a, b)
			e := ulpErr(got, want)
			if f.ulp == 0 {
				e = 0 // exact functions: any difference fails
				if got != float32(want) && !(got != got && want != want) {
					e = math.Max(ulpErr(got, want), 1)
				}
			}
			if e > worst || math.IsNaN(e) {
				worst, wi = e, i
			}
		}
		bound := f.ulp
		t.Logf("%-40s max error %.3f ulp (at x=%g y=%g), documented %g", f.expr, worst, xs[wi], ys[wi], bound)
		if bound == 0 {
			bound = 0.5
		}
		if !(worst <= bound) {
			t.Errorf("%s at a=%g b=%g = %g, want %g: %.2f ulp > %g", f.expr, xs[wi], ys[wi], out[k*n+wi], f.ref(float64(xs[wi]), float64(ys[wi])), worst, bound)
		}
	}
	for j, d := range drs {
		k := len(fns) + j
		bad := 0
		for i := range xs {
			if xs[i] != xs[i] || ys[i] != ys[i] || math.IsInf(float64(xs[i]), 0) || math.IsInf(float64(ys[i]), 0) || ys[i] == 0 && strings.Contains(d.expr, "div") || xs[i] == 0 && strings.Contains(d.expr, "rcp") {
				continue
			}
			a, b := new(big.Float).SetFloat64(float64(xs[i])), new(big.Float).SetFloat64(float64(ys[i]))
			// At 300 bits, then rounded (big.Float's Sqrt ignores directed modes).
			h := new(big.Float).SetPrec(300)
			d.op(h, a, b)
			z := new(big.Float).SetPrec(24).SetMode(d.mode).Set(h)
			w, _ := z.Float32()
			got := out[k*n+i]
			if math.Abs(float64(w)) < 0x1p-126 || math.IsInf(float64(w), 0) || math.Abs(float64(w)) > math.MaxFloat32 {
				continue // subnormal or overflowing results: big.Float has neither
			}
			if got != w {
				if bad < 3 {
					t.Errorf("%s at a=%g b=%g = %g, want %g", d.expr, xs[i], ys[i], got, w)
				}
				bad++
			}
		}
		t.Logf("%-40s exact on all normal results (%d mismatches)", d.expr, bad)
	}
}
