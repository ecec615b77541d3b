package web

import (
	"context"
	"encoding/binary"
	"math"
	"strconv"
	"testing"

	"github.com/ptxplayground/ptxplay/engine/fpx"
	"github.com/ptxplayground/ptxplay/engine/launch"
	"github.com/ptxplayground/ptxplay/engine/ptx"
)

// runExample compiles and runs a gallery example to the end through
// engine/launch and returns its result.
func runExample(t *testing.T, name string) *launch.Result {
	t.Helper()
	e := BuiltinExamples().Get(name)
	if e == nil {
		t.Fatalf("no example %q", name)
	}
	spec, err := e.Launch()
	if err != nil {
		t.Fatalf("%s: spec: %v", name, err)
	}
	prog, src, diags := launch.Compile(e.File, []byte(e.Source))
	if len(diags) > 0 {
		t.Errorf("%s: diagnostics:\n%s", name, ptx.FormatAll(src, diags))
	}
	if prog == nil {
		t.FailNow()
	}
	res, err := launch.Run(context.Background(), prog, spec)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if res.Status != launch.StatusOK {
		msg := res.Message
		if res.Fault != nil {
			msg = res.Fault.Kind + ": " + res.Fault.Message + " at " + res.Fault.Instruction
		}
		t.Fatalf("%s: status %s: %s", name, res.Status, msg)
	}
	return res
}

func exF32(t *testing.T, r *launch.Result, buf string) []float32 {
	t.Helper()
	b := r.Buffer(buf)
	if b == nil {
		t.Fatalf("no buffer %q in the result", buf)
	}
	out := make([]float32, len(b.Data)/4)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(b.Data[4*i:]))
	}
	return out
}

func exU32(t *testing.T, r *launch.Result, buf string) []uint32 {
	t.Helper()
	b := r.Buffer(buf)
	if b == nil {
		t.Fatalf("no buffer %q in the result", buf)
	}
	out := make([]uint32, len(b.Data)/4)
	for i := range out {
		out[i] = binary.LittleEndian.Uint32(b.Data[4*i:])
	}
	return out
}

func TestExamplesGallery(t *testing.T) {
	x := BuiltinExamples()
	// Lesson order: from thread indexing to a compiler's GEMM.
	want := []string{"vector-add", "coalescing", "divergence", "reconvergence", "branch-uniformity", "shared-reduction", "race", "warp-shuffle", "syncwarp",
		"transpose", "transpose-padded", "transpose-swizzled", "histogram", "spin-lock", "producer-consumer", "mma-tile", "mma-tf32", "mma-int8",
		"cp-async", "cp-async-missing-wait", "dsmem-exchange", "dsmem-exchange-race", "tma-pipeline", "tma-swizzle", "tma-missing-fence", "wgmma-layouts", "hopper-gemm-tile", "mini-gemm", "tma-dot", "fastcu-tma-wgmma", "fastcu-cpasync-wgmma", "triton-matmul"}
	if len(x.List()) != len(want) {
		t.Fatalf("%d examples, want %d", len(x.List()), len(want))
	}
	for i, e := range x.List() {
		if e.Name != want[i] {
			t.Errorf("example %d is %q, want %q", i, e.Name, want[i])
		}
		if e.Title == "" || e.Description == "" || e.Source == "" || e.Entry == "" {
			t.Errorf("example %s lacks a title, description, source or entry", e.Name)
		}
	}
}

func TestExampleVectorAdd(t *testing.T) {
	r := runExample(t, "vector-add")
	a, b, c := exF32(t, r, "a"), exF32(t, r, "b"), exF32(t, r, "c")
	if len(c) != 200 {
		t.Fatalf("c has %d elements", len(c))
	}
	for i := range c {
		if c[i] != a[i]+b[i] || c[i] != float32(1000+3*i) {
			t.Fatalf("c[%d] = %v, want %v", i, c[i], a[i]+b[i])
		}
	}
}

func TestExampleDivergence(t *testing.T) {
	r := runExample(t, "divergence")
	start, steps := exU32(t, r, "start"), exU32(t, r, "steps_out")
	for i, x := range start {
		n := uint32(0)
		for v := x; v > 1; n++ {
			if v%2 == 0 {
				v /= 2
			} else {
				v = 3*v + 1
			}
		}
		if steps[i] != n {
			t.Errorf("steps[%d] (start %d) = %d, want %d", i, x, steps[i], n)
		}
	}
	if steps[26] != 111 { // 27 takes 111 steps
		t.Errorf("steps for 27 = %d, want 111", steps[26])
	}
}

func TestExampleSharedReduction(t *testing.T) {
	r := runExample(t, "shared-reduction")
	in, partial := exF32(t, r, "in"), exF32(t, r, "partial")
	if len(partial) != 4 {
		t.Fatalf("%d partial sums", len(partial))
	}
	var total float64
	for c := range partial {
		var want float64
		for _, v := range in[c*128 : (c+1)*128] {
			want += float64(v)
		}
		if float64(partial[c]) != want {
			t.Errorf("partial[%d] = %v, want %v", c, partial[c], want)
		}
		total += float64(partial[c])
	}
	if total != 512*513/2 {
		t.Errorf("total %v, want %v", total, 512*513/2)
	}
}

func TestExampleWarpShuffle(t *testing.T) {
	r := runExample(t, "warp-shuffle")
	in, sums := exF32(t, r, "in"), exF32(t, r, "warp_sums")
	if len(sums) != 4 {
		t.Fatalf("%d warp sums", len(sums))
	}
	for w := range sums {
		// The same tree as shfl.sync.down: a lane whose source is past
		// lane 31 keeps its own value.
		var v [32]float32
		copy(v[:], in[w*32:])
		for d := 16; d >= 1; d /= 2 {
			var next [32]float32
			for l := range v {
				o := v[l]
				if l+d < 32 {
					o = v[l+d]
				}
				next[l] = v[l] + o
			}
			v = next
		}
		if math.Float32bits(sums[w]) != math.Float32bits(v[0]) {
			t.Errorf("warp_sums[%d] = %v, want %v", w, sums[w], v[0])
		}
		var exact float64
		for _, x := range in[w*32 : (w+1)*32] {
			exact += float64(x)
		}
		if math.Abs(float64(sums[w])-exact) > 1e-4 {
			t.Errorf("warp_sums[%d] = %v, far from the exact sum %v", w, sums[w], exact)
		}
	}
}

func TestExampleTranspose(t *testing.T) {
	for _, name := range []string{"transpose", "transpose-padded", "transpose-swizzled"} {
		t.Run(name, func(t *testing.T) {
			r := runExample(t, name)
			in, out := exF32(t, r, "in"), exF32(t, r, "out")
			n := int(math.Sqrt(float64(len(in))))
			if n*n != len(in) || n%32 != 0 || len(out) != len(in) {
				t.Fatalf("in has %d elements, out %d: want a square matrix of a multiple of 32", len(in), len(out))
			}
			for y := 0; y < n; y++ {
				for x := 0; x < n; x++ {
					if in[y*n+x] != float32(y*n+x) {
						t.Fatalf("in[%d][%d] changed", y, x)
					}
					if out[x*n+y] != in[y*n+x] {
						t.Fatalf("out[%d][%d] = %v, want in[%d][%d] = %v", x, y, out[x*n+y], y, x, in[y*n+x])
					}
				}
			}
		})
	}
}

func TestExampleHistogram(t *testing.T) {
	r := runExample(t, "histogram")
	data, bins := exU32(t, r, "data"), exU32(t, r, "bins")
	var want [16]uint32
	for _, v := range data {
		if v > 15 {
			t.Fatalf("input value %d out of range", v)
		}
		want[v]++
	}
	var sum uint32
	for i, b := range bins {
		sum += b
		if b != want[i] {
			t.Errorf("bins[%d] = %d, want %d", i, b, want[i])
		}
	}
	if sum != uint32(len(data)) || len(data) != 2048 {
		t.Errorf("bins sum to %d, want %d", sum, len(data))
	}
}

// The tensor-core tile: D = A*B with A[m][k] = 16m+k and B[k][n] = 8k+n+1
// (small integers: every product and sum is exact in f32).
func TestExampleMmaTile(t *testing.T) {
	r := runExample(t, "mma-tile")
	d := exF32(t, r, "d")
	for m := 0; m < 16; m++ {
		for n := 0; n < 8; n++ {
			want := 0
			for k := 0; k < 16; k++ {
				want += (16*m + k) * (8*k + n + 1)
			}
			if got := d[8*m+n]; got != float32(want) {
				t.Fatalf("D[%d][%d] = %v, want %d", m, n, got, want)
			}
		}
	}
}

func exF16(t *testing.T, r *launch.Result, buf string) []float32 {
	t.Helper()
	b := r.Buffer(buf)
	if b == nil {
		t.Fatalf("no buffer %q in the result", buf)
	}
	out := make([]float32, len(b.Data)/2)
	for i := range out {
		out[i] = math.Float32frombits(fpx.F16ToF32(binary.LittleEndian.Uint16(b.Data[2*i:])))
	}
	return out
}

// The Triton GEMM: C = A*B for the M, N, K of the spec's parameters, with
// small integer inputs, so the f16 result must be the exact product.
func TestExampleTritonMatmul(t *testing.T) {
	e := BuiltinExamples().Get("triton-matmul")
	if e == nil {
		t.Fatal("no example triton-matmul")
	}
	spec, err := e.Launch()
	if err != nil {
		t.Fatal(err)
	}
	dim := func(i int) int {
		n, err := strconv.Atoi(string(spec.Params[i].Values[0]))
		if err != nil {
			t.Fatalf("params[%d]: %v", i, err)
		}
		return n
	}
	m, n, k := dim(3), dim(4), dim(5)
	if dim(6) != k || dim(7) != n || dim(8) != n {
		t.Fatalf("strides %d %d %d, want row-major %d %d %d", dim(6), dim(7), dim(8), k, n, n)
	}
	if grid := (m + 127) / 128 * ((n + 63) / 64); spec.Grid != [3]int{grid, 1, 1} || grid < 2 || k < 64 {
		t.Errorf("grid %v for M=%d N=%d K=%d: want %d CTAs, at least 2, and 2 trips of the K loop", spec.Grid, m, n, k, grid)
	}
	r := runExample(t, "triton-matmul")
	a, b, c := exF16(t, r, "a"), exF16(t, r, "b"), exF16(t, r, "c")
	if len(a) != m*k || len(b) != k*n || len(c) != m*n {
		t.Fatalf("buffer sizes %d %d %d for M=%d N=%d K=%d", len(a), len(b), len(c), m, n, k)
	}
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			want := 0
			for l := 0; l < k; l++ {
				x, y := a[i*k+l], b[l*n+j]
				if x != float32(int(x)) || y != float32(int(y)) || x*x > 16 || y*y > 16 {
					t.Fatalf("inputs a[%d][%d] = %v, b[%d][%d] = %v: want small integers", i, l, x, l, j, y)
				}
				want += int(x) * int(y)
			}
			if got := c[i*n+j]; got != float32(want) {
				t.Fatalf("C[%d][%d] = %v, want %d", i, j, got, want)
			}
		}
	}
}

// The int8 tile: D = A*B exactly, A row-major 16x32, B stored n-major.
func TestExampleMmaInt8(t *testing.T) {
	r := runExample(t, "mma-int8")
	a, bt, d := r.Buffer("a").Data, r.Buffer("bt").Data, r.Buffer("d").Data
	for m := 0; m < 16; m++ {
		for n := 0; n < 8; n++ {
			want := int32(0)
			for k := 0; k < 32; k++ {
				want += int32(int8(a[32*m+k])) * int32(int8(bt[32*n+k]))
			}
			if got := int32(binary.LittleEndian.Uint32(d[4*(8*m+n):])); got != want {
				t.Fatalf("D[%d][%d] = %d, want %d", m, n, got, want)
			}
		}
	}
}

// The tf32 tile: D = A*B with A[m][k] = 8m+k and B[k][n] = 8k+n+1, small
// integers that tf32 holds exactly.
func TestExampleMmaTF32(t *testing.T) {
	r := runExample(t, "mma-tf32")
	d := exF32(t, r, "d")
	for m := 0; m < 16; m++ {
		for n := 0; n < 8; n++ {
			want := 0
			for k := 0; k < 8; k++ {
				want += (8*m + k) * (8*k + n + 1)
			}
			if got := d[8*m+n]; got != float32(want) {
				t.Fatalf("D[%d][%d] = %v, want %d", m, n, got, want)
			}
		}
	}
}
