package cuda_test

import (
	"context"
	"strings"
	"testing"

	"github.com/ptxplayground/ptxplay/engine/cuda"
)

// Every PTX instruction line of a kernel maps to a line of the user's file
// (never a prelude line), lines of inlined prelude code (expf) are
// inherited from the user's line before them, and the reverse map
// holds the same pairs.
func TestSourceMap(t *testing.T) {
	needClang(t)
	src := "#include <cuda_runtime.h>\n__global__ void k(float *a, int n) {\n  int i = threadIdx.x;\n  if (i < n)\n    a[i] = expf(a[i]);\n}\n"
	r, err := cuda.Compile(context.Background(), src, cuda.Options{Opt: 2})
	if err != nil || !r.OK() {
		t.Fatal(err, r.Errors())
	}
	lines := strings.Split(r.PTX, "\n")
	inherited := 0
	mapped := 0
	for i := range lines {
		loc, ok := r.Map.CUDA(i + 1)
		if !ok {
			continue
		}
		mapped++
		if loc.Line < 2 || loc.Line > 6 {
			t.Errorf("PTX line %d (%s) maps to CUDA line %d, outside the kernel", i+1, lines[i], loc.Line)
		}
		if loc.Inherited {
			inherited++
		}
		found := false
		for _, p := range r.Map.PTXLines(loc.Line) {
			found = found || p == i+1
		}
		if !found {
			t.Errorf("PTX line %d not in PTXLines(%d)", i+1, loc.Line)
		}
	}
	if mapped < 10 || inherited == 0 {
		t.Errorf("%d PTX lines mapped, %d inherited", mapped, inherited)
	}
	if got := r.Map.CUDALines(); len(got) < 3 || got[0] < 2 {
		t.Errorf("CUDA lines with PTX: %v", got)
	}
	for _, l := range []int{1, 7, 1000} {
		if len(r.Map.PTXLines(l)) != 0 {
			t.Errorf("line %d has PTX lines", l)
		}
	}
	// expf's inlined ex2.approx (a prelude line) and the store belong to
	// line 5.
	n := 0
	for i, l := range lines {
		ins := strings.TrimSpace(l)
		if strings.HasPrefix(ins, "ex2.approx") || strings.HasPrefix(ins, "st.global") {
			n++
			if loc, ok := r.Map.CUDA(i + 1); !ok || loc.Line != 5 {
				t.Errorf("%s at PTX line %d maps to %+v, want line 5", ins, i+1, loc)
			}
		}
	}
	if n < 2 {
		t.Errorf("no ex2.approx or st.global in the PTX")
	}
}

// Inlined header code goes to the user line that uses it: the shuffle of
// __shfl_down_sync to the line that calls it (not the load before it), the
// reads of blockIdx/blockDim/threadIdx to the line that reads them (not
// the function's opening line), while expf stays on its own line when the
// line after it calls nothing.
func TestSourceMapInlinedAttribution(t *testing.T) {
	needClang(t)
	src := `extern "C" __global__ void warp_sum(const float *in, float *warp_sums, float *e) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = in[i];
  for (int delta = 16; delta > 0; delta /= 2)
    v += __shfl_down_sync(0xffffffff, v, delta);
  float x = expf(v);
  e[i] = 2.0f;
  if (threadIdx.x % 32 == 0)
    warp_sums[i / 32] = x;
}
`
	r, err := cuda.Compile(context.Background(), src, cuda.Options{Opt: 2})
	if err != nil || !r.OK() {
		t.Fatal(err, r.Errors())
	}
	want := map[string]int{"shfl.sync.down": 5, "%ctaid.x": 2, "%ntid.x": 2, "%tid.x": 2, "ex2.approx": 6}
	seen := map[string]int{}
	for i, l := range strings.Split(r.PTX, "\n") {
		ins := strings.TrimSpace(l)
		if strings.HasPrefix(ins, ".") || strings.HasPrefix(ins, "//") {
			continue
		}
		for k, line := range want {
			if strings.Contains(ins, k) {
				seen[k]++
				if loc, ok := r.Map.CUDA(i + 1); !ok || loc.Line != line || !loc.Inherited {
					t.Errorf("%q (PTX line %d) maps to %+v, want line %d (inherited)", ins, i+1, loc, line)
				}
			}
		}
	}
	for k := range want {
		if seen[k] == 0 {
			t.Errorf("no %s in the PTX:\n%s", k, r.PTX)
		}
	}
}

// An inline asm statement written as a scope on one line ("{ .reg .pred p;
// mbarrier.try_wait... }", as CUDA code waits on an mbarrier) maps to its
// CUDA line like any other instruction line; a line of braces alone or
// declarations alone maps to nothing.
func TestSourceMapScopedAsm(t *testing.T) {
	ptxText := `.version 8.0
.target sm_80
.address_size 64
.file 1 "kernel.cu"
.visible .entry k(
	.param .u32 k_param_0
)
{
	.reg .b32 %r<4>;
	.loc 1 3 3
	ld.param.u32 %r1, [k_param_0];
	.loc 1 4 5
	{ .reg .pred p; mbarrier.try_wait.parity.shared.b64 p, [%r1], 0; selp.u32 %r2, 1, 0, p; }
	.loc 1 5 5
	{
	.reg .b32 t;
	}
	.loc 1 6 3
	ret;
}
`
	m := cuda.MapPTX(ptxText)
	lines := strings.Split(ptxText, "\n")
	for i, l := range lines {
		loc, ok := m.CUDA(i + 1)
		want := 0
		switch {
		case strings.Contains(l, "mbarrier.try_wait"):
			want = 4
		case strings.Contains(l, "ld.param"):
			want = 3
		case strings.Contains(l, "ret;"):
			want = 6
		}
		if got := loc.Line; want != got || ok != (want > 0) {
			t.Errorf("PTX line %d %q maps to CUDA line %d (%v), want %d", i+1, strings.TrimSpace(l), got, ok, want)
		}
	}
}
