package cuda_test

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/ptxplayground/ptxplay/engine/cuda"
)

// mathInputs is the sweep the math library is tested over: a uniform
// sweep of [-10, 10], magnitudes 2^-149 .. 2^127 of both signs, large
// arguments near multiples of pi/2, and the special values (±0,
// subnormals, ±inf, NaN, the largest float). ys pairs each x with a
// second argument for the binary functions.
func mathInputs() (xs, ys []float32) {
	for i := 0; i < 640; i++ {
		xs = append(xs, -10+float32(i)*(20/640.0)+float32(i%5)*0.0031)
	}
	for i := 0; i < 552; i++ {
		e := -149 + i%277 // exponents -149..127, each with both signs
		m := 1 + float64((i*37)%64)/64
		v := float32(math.Ldexp(m, e))
		if i%2 == 1 {
			v = -v
		}
		xs = append(xs, v)
	}
	for k := 1; k < 40; k++ { // near k*pi/2 * 2^j: hard for the reduction
		j := (k * 13) % 100
		xs = append(xs, float32(float64(k)*math.Pi/2*math.Ldexp(1, j)), float32(float64(k)*math.Pi/2))
	}
	big := []float32{1e6, 1.6e6, 1.7e6, 1e7, 123456.789, 1e10, 1e20, 1e30, 3.4e38, -1e15, -7.5e37, 0x1.8p60, 105414350, 1e-45, 1.1754942e-38, 1.1754944e-38, 5e-40}
	xs = append(xs, big...)
	special := []float32{0, float32(math.Copysign(0, -1)), float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()), math.MaxFloat32, -math.MaxFloat32, 1, -1, 0.5, -0.5, 2, 3, -3, 0.99999994, 1.0000001}
	xs = append(xs, special...)
	for len(xs)%64 != 0 {
		xs = append(xs, float32(len(xs))*0.731)
	}
	n := len(xs)
	ys = make([]float32, n)
	for i := range ys {
		ys[i] = xs[(i*7919+13)%n]
		if i%9 == 0 { // small integer and half-integer exponents for pow
			ys[i] = float32(i%23-11) * 0.5
		}
	}
	// Specials against specials for the binary functions.
	for i, s := range special {
		for j, t := range special[:8] {
			k := (i*8 + j) % n
			xs[k], ys[k] = s, t
		}
	}
	return xs, ys
}

var floatUnary = []struct {
	name string
	ref  func(x float64) float64
	ulp  float64 // CUDA Programming Guide, "Mathematical Functions"
}{
	{"sinf", math.Sin, 2}, {"cosf", math.Cos, 2}, {"tanf", math.Tan, 4},
	{"sinhf", math.Sinh, 3}, {"coshf", math.Cosh, 2}, {"tanhf", math.Tanh, 2},
	{"asinf", math.Asin, 2}, {"acosf", math.Acos, 2}, {"atanf", math.Atan, 2},
	{"erff", math.Erf, 2}, {"erfcf", math.Erfc, 4}, {"cbrtf", math.Cbrt, 1},
}

var floatBinary = []struct {
	name string
	ref  func(x, y float64) float64
	ulp  float64
}{
	{"powf", math.Pow, 4}, {"atan2f", math.Atan2, 3}, {"hypotf", math.Hypot, 3},
	{"fmodf", math.Mod, 0}, {"remainderf", math.Remainder, 0},
}

// sortPairs32 is sortPairs for the float sweep.
func sortPairs32(xs, ys []float32) {
	x, y := make([]float64, len(xs)), make([]float64, len(ys))
	for i := range xs {
		x[i], y[i] = float64(xs[i]), float64(ys[i])
	}
	sortPairs(x, y)
	for i := range xs {
		xs[i], ys[i] = float32(x[i]), float32(y[i])
	}
}

func mathKernelSrc(typ string, unary []string, binary []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "__global__ void m(const %[1]s *x, const %[1]s *y, %[1]s *out, int n) {\n  int i = blockIdx.x * blockDim.x + threadIdx.x;\n  if (i >= n) return;\n  %[1]s a = x[i], b = y[i];\n", typ)
	k := 0
	for _, f := range unary {
		fmt.Fprintf(&b, "  out[%d * n + i] = %s(a);\n", k, f)
		k++
	}
	for _, f := range binary {
		fmt.Fprintf(&b, "  out[%d * n + i] = %s(a, b);\n", k, f)
		k++
	}
	b.WriteString("}\n")
	return b.String()
}

// The single-precision functions the prelude computes through its double
// core stay within the error CUDA documents for each over the sweep,
// including the large arguments of sinf/cosf/tanf (exact reduction) and the
// special values. 0-ulp functions must be exact: ulpErr of a correctly
// rounded result is at most 0.5, so they are held to 0.5.
func TestMathLibrarySingle(t *testing.T) {
	xs, ys := mathInputs()
	sortPairs32(xs, ys)
	n := len(xs)
	var un, bn []string
	for _, f := range floatUnary {
		un = append(un, f.name)
	}
	for _, f := range floatBinary {
		bn = append(bn, f.name)
	}
	src := mathKernelSrc("float", un, bn)
	enc := func(v []float32) string {
		raw := make([]byte, 4*len(v))
		for i, x := range v {
			binary.LittleEndian.PutUint32(raw[4*i:], math.Float32bits(x))
		}
		return hex.EncodeToString(raw)
	}
	nf := len(floatUnary) + len(floatBinary)
	spec := fmt.Sprintf(`"entry": "_Z1mPKfS0_Pfi", "grid": [%d,1,1], "block": [64,1,1],
		"buffers": [{"name": "x", "type": "f32", "count": %d, "init": {"bytes": %q}}, {"name": "y", "type": "f32", "count": %d, "init": {"bytes": %q}}, {"name": "out", "type": "f32", "count": %d}],
		"params": [{"buffer": "x"}, {"buffer": "y"}, {"buffer": "out"}, {"u32": %d}]}`, n/64, n, enc(xs), n, enc(ys), n*nf, n)
	res, _, _, _ := compileRun(t, src, cuda.Options{Opt: 2}, spec)
	out := f32s(t, res, "out")
	check := func(k int, name string, bound float64, ref func(i int) float64) {
		worst, wi := 0.0, 0
		for i := range xs {
			if e := ulpErr(out[k*n+i], ref(i)); e > worst {
				worst, wi = e, i
			}
		}
		t.Logf("%-11s max error %.3f ulp (at x=%g y=%g), documented %g", name, worst, xs[wi], ys[wi], bound)
		if bound == 0 {
			bound = 0.5
		}
		if worst > bound {
			t.Errorf("%s(%g, %g) = %g, want %g: %.2f ulp > %g", name, xs[wi], ys[wi], out[k*n+wi], ref(wi), worst, bound)
		}
	}
	for k, f := range floatUnary {
		check(k, f.name, f.ulp, func(i int) float64 { return f.ref(float64(xs[i])) })
	}
	for k, f := range floatBinary {
		check(len(floatUnary)+k, f.name, f.ulp, func(i int) float64 { return f.ref(float64(xs[i]), float64(ys[i])) })
	}
}

var doubleUnary = []struct {
	name string
	ref  func(x float64) float64
	ulp  float64
}{
	{"exp", math.Exp, 1}, {"exp2", math.Exp2, 1}, {"log", math.Log, 1}, {"log2", math.Log2, 1}, {"log10", math.Log10, 1},
	{"sin", math.Sin, 2}, {"cos", math.Cos, 2}, {"tan", math.Tan, 2}, {"atan", math.Atan, 2},
	{"sinh", math.Sinh, 2}, {"cosh", math.Cosh, 1}, {"tanh", math.Tanh, 1}, {"erf", math.Erf, 2}, {"cbrt", math.Cbrt, 1},
}

var doubleBinary = []struct {
	name string
	ref  func(x, y float64) float64
	ulp  float64
}{
	{"pow", math.Pow, 2}, {"atan2", math.Atan2, 2}, {"hypot", math.Hypot, 2}, {"fmod", math.Mod, 0}, {"remainder", math.Remainder, 0},
}

// ulpErr64 is |got-want| in units of the last place of want (float64).
func ulpErr64(got, want float64) float64 {
	if math.IsNaN(want) || math.IsNaN(got) {
		if math.IsNaN(want) && math.IsNaN(got) {
			return 0
		}
		return math.Inf(1)
	}
	if got == want {
		return 0
	}
	if math.IsInf(want, 0) || math.IsInf(got, 0) {
		return math.Inf(1)
	}
	a := math.Abs(want)
	ulp := math.Nextafter(a, math.Inf(1)) - a
	if math.IsInf(ulp, 0) {
		ulp = a - math.Nextafter(a, 0)
	}
	return math.Abs(got-want) / ulp
}

// The double-precision functions over the same sweep (the float inputs
// widened, plus doubles of their own: huge, tiny and subnormal ones, the
// hardest case known for reduction by pi/2), against a 400-bit math/big
// reference (bigref_test.go) for finite results and Go's math for the
// special values.
func TestMathLibraryDouble(t *testing.T) {
	xf, yf := mathInputs()
	xs := make([]float64, len(xf))
	ys := make([]float64, len(yf))
	for i := range xf {
		xs[i], ys[i] = float64(xf[i]), float64(yf[i])
		if i%11 == 3 { // bits below float precision
			xs[i] *= 1 + 0x1p-40*float64(i%97)
		}
	}
	extra := []float64{1e300, -1e300, math.MaxFloat64, 5e-324, -5e-324, 2.2250738585072014e-308, 1e-310, 709.78, -745.1, 1023.9, -1074.5, 0x1p1000, 6381956970095103 * 0x1p797, 5.319372648326541e255, 1.0000000000000002, 0.9999999999999999, 22.5, 0.175, 0.35, 2.9999, 3.0001, 710.4}
	copy(xs[len(xs)-64:], extra) // over the filler at the end
	sortPairs(xs, ys)
	n := len(xs)
	var un, bn []string
	for _, f := range doubleUnary {
		un = append(un, f.name)
	}
	for _, f := range doubleBinary {
		bn = append(bn, f.name)
	}
	src := mathKernelSrc("double", un, bn)
	enc := func(v []float64) string {
		raw := make([]byte, 8*len(v))
		for i, x := range v {
			binary.LittleEndian.PutUint64(raw[8*i:], math.Float64bits(x))
		}
		return hex.EncodeToString(raw)
	}
	nf := len(doubleUnary) + len(doubleBinary)
	spec := fmt.Sprintf(`"entry": "_Z1mPKdS0_Pdi", "grid": [%d,1,1], "block": [64,1,1],
		"buffers": [{"name": "x", "type": "f64", "count": %d, "init": {"bytes": %q}}, {"name": "y", "type": "f64", "count": %d, "init": {"bytes": %q}}, {"name": "out", "type": "f64", "count": %d}],
		"params": [{"buffer": "x"}, {"buffer": "y"}, {"buffer": "out"}, {"u32": %d}]}`, n/64, n, enc(xs), n, enc(ys), n*nf, n)
	res, _, _, _ := compileRun(t, src, cuda.Options{Opt: 2}, spec)
	raw := u64s(t, res, "out")
	check := func(k int, name string, bound float64, goRef func(i int) float64) {
		worst, wi := 0.0, 0
		for i := range xs {
			got := math.Float64frombits(raw[k*n+i])
			var e float64
			if ref, ok := bigRef(name, xs[i], ys[i]); ok {
				e = ulpErrBig(got, ref)
			} else {
				e = ulpErr64(got, goRef(i)) // special values: as Go's math
			}
			if e > worst {
				worst, wi = e, i
			}
		}
		got := math.Float64frombits(raw[k*n+wi])
		want := goRef(wi)
		if ref, ok := bigRef(name, xs[wi], ys[wi]); ok {
			want, _ = ref.Float64()
		}
		t.Logf("%-10s max error %.3f ulp (at x=%g y=%g: %g, want %g), documented %g", name, worst, xs[wi], ys[wi], got, want, bound)
		if bound == 0 {
			bound = 0.5
		}
		if worst > bound {
			t.Errorf("%s(%g, %g) = %g, want %g: %.2f ulp > %g", name, xs[wi], ys[wi], got, want, worst, bound)
		}
	}
	for k, f := range doubleUnary {
		check(k, f.name, f.ulp, func(i int) float64 { return f.ref(xs[i]) })
	}
	for k, f := range doubleBinary {
		check(len(doubleUnary)+k, f.name, f.ulp, func(i int) float64 { return f.ref(xs[i], ys[i]) })
	}
}
