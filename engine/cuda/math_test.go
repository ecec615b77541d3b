package cuda_test

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"
	"testing"

	"github.com/ptxplayground/ptxplay/engine/cuda"
)

const mathKernel = `
__global__ void m(const float *x, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = x[i];
  out[0 * n + i] = expf(v);
  out[1 * n + i] = exp2f(v);
  out[2 * n + i] = logf(fabsf(v));
  out[3 * n + i] = log2f(fabsf(v));
  out[4 * n + i] = log10f(fabsf(v));
  out[5 * n + i] = sinf(v);
  out[6 * n + i] = cosf(v);
  out[7 * n + i] = sqrtf(fabsf(v));
  out[8 * n + i] = exp10f(v * 0.25f);
  out[9 * n + i] = tanf(v);
  out[10 * n + i] = floorf(v) + ceilf(v * 0.5f) * 1024.0f;
  out[11 * n + i] = rsqrtf(fabsf(v));
}
`

// mathFuncs are the functions of mathKernel with Go's reference and the
// maximum error CUDA documents (ulp), in the order of the kernel's outputs.
var mathFuncs = []struct {
	name string
	ref  func(x float64) float64
	ulp  float64
}{
	{"expf", math.Exp, 2},
	{"exp2f", math.Exp2, 2},
	{"logf", func(x float64) float64 { return math.Log(math.Abs(x)) }, 1},
	{"log2f", func(x float64) float64 { return math.Log2(math.Abs(x)) }, 1},
	{"log10f", func(x float64) float64 { return math.Log10(math.Abs(x)) }, 2},
	{"sinf", math.Sin, 2},
	{"cosf", math.Cos, 2},
	{"sqrtf", func(x float64) float64 { return math.Sqrt(math.Abs(x)) }, 0.5}, // correctly rounded
	{"exp10f", func(x float64) float64 { return math.Pow(10, float64(float32(x*0.25))) }, 2},
	{"tanf", math.Tan, 4},
	{"floorf+ceilf", func(x float64) float64 { return math.Floor(x) + math.Ceil(float64(float32(x*0.5)))*1024 }, 0.5},
	{"rsqrtf", func(x float64) float64 { return 1 / math.Sqrt(math.Abs(x)) }, 2},
}

// ulpErr is |got-want| in units of the last place of want rounded to float32.
func ulpErr(got float32, want float64) float64 {
	if math.IsNaN(want) {
		if math.IsNaN(float64(got)) {
			return 0
		}
		return math.Inf(1)
	}
	w := float32(want)
	if math.IsInf(float64(w), 0) || w == 0 && want != 0 && math.Abs(want) < 1e-45 {
		if float64(got) == float64(w) {
			return 0
		}
	}
	if float64(got) == want {
		return 0
	}
	a := float32(math.Abs(float64(w)))
	ulp := float64(math.Nextafter32(a, float32(math.Inf(1))) - a)
	if a == 0 || ulp == 0 || math.IsInf(ulp, 0) {
		ulp = float64(math.Float32frombits(1))
	}
	return math.Abs(float64(got)-want) / ulp
}

// The prelude's math functions, run by the emulator over a sweep of inputs,
// stay within the error CUDA documents for each.
func TestMathSweep(t *testing.T) {
	var xs []float32
	for i := 0; i < 1536; i++ {
		xs = append(xs, -87+float32(i)*(87*2/1536.0)+float32(i%7)*0.013)
	}
	for i := 0; i < 256; i++ {
		xs = append(xs, float32(math.Ldexp(1+float64(i)/256, i%60-30)))        // magnitudes 2^-30..2^29
		xs = append(xs, float32(-math.Ldexp(1+float64(i)/97, i%40-20)*1.0001)) // negative
	}
	xs = append(xs, 1, 0.5, 2, 10, 100, 1e-20, 3.14159265, 1.5707963, 12345.678, 0.999999, 1.000001)
	for len(xs)%64 != 0 {
		xs = append(xs, float32(len(xs))*0.37)
	}
	n := len(xs)
	raw := make([]byte, 4*n)
	for i, x := range xs {
		binary.LittleEndian.PutUint32(raw[4*i:], math.Float32bits(x))
	}
	spec := fmt.Sprintf(`"entry": "_Z1mPKfPfi", "grid": [%d,1,1], "block": [64,1,1],
		"buffers": [{"name": "x", "type": "f32", "count": %d, "init": {"bytes": %q}}, {"name": "out", "type": "f32", "count": %d}],
		"params": [{"buffer": "x"}, {"buffer": "out"}, {"u32": %d}]}`, n/64, n, hex.EncodeToString(raw), n*len(mathFuncs), n)
	res, _, _, _ := compileRun(t, mathKernel, cuda.Options{Opt: 2}, spec)
	out := f32s(t, res, "out")
	for f, fn := range mathFuncs {
		worst, at := 0.0, float32(0)
		for i, x := range xs {
			e := ulpErr(out[f*n+i], fn.ref(float64(x)))
			if e > worst {
				worst, at = e, x
			}
		}
		t.Logf("%-13s max error %.3f ulp (at %g), documented %g", fn.name, worst, at, fn.ulp)
		if worst > fn.ulp {
			i := 0
			for i = range xs {
				if xs[i] == at {
					break
				}
			}
			t.Errorf("%s(%g) = %g, want %g: %.2f ulp > %g", fn.name, at, out[f*n+i], fn.ref(float64(at)), worst, fn.ulp)
		}
	}
}
