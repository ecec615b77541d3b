package cuda_test

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"os/exec"
	"strings"
	"testing"

	"github.com/ptxplayground/ptxplay/engine/cuda"
	"github.com/ptxplayground/ptxplay/engine/emu"
	"github.com/ptxplayground/ptxplay/engine/launch"
	"github.com/ptxplayground/ptxplay/engine/ptx"
)

// needClang skips a test when clang-19 is not installed (make test installs
// it; CI always has it).
func needClang(t testing.TB) {
	t.Helper()
	if err := cuda.Default().Available(); err != nil {
		if _, lerr := exec.LookPath("clang-19"); lerr == nil {
			t.Fatalf("clang-19 is on PATH but unusable: %v", err)
		}
		t.Skipf("skipping: %v", err)
	}
}

// compileRun compiles src, checks it compiled cleanly, and runs the launch
// spec (JSON without "ptx") on the emulator.
func compileRun(t *testing.T, src string, opt cuda.Options, spec string) (*launch.Result, *cuda.Result, *emu.Program, *ptx.Source) {
	t.Helper()
	needClang(t)
	r, err := cuda.Compile(context.Background(), src, opt)
	if err != nil {
		t.Fatal(err)
	}
	if !r.OK() {
		t.Fatalf("compile failed:\n%s", r.Errors())
	}
	psrc := ptx.NewSource("kernel.ptx", []byte(r.PTX))
	prog, diags := emu.CompileSource(psrc)
	if prog == nil {
		t.Fatalf("PTX rejected: %v\n%s", diags, r.PTX)
	}
	s, err := launch.ParseSpec([]byte(`{"version": 1, "ptx": "kernel.ptx", ` + spec))
	if err != nil {
		t.Fatal(err)
	}
	res, err := launch.Run(context.Background(), prog, s)
	if err != nil {
		t.Fatal(err)
	}
	if res.Fault != nil {
		t.Fatalf("fault: %+v", res.Fault)
	}
	return res, r, prog, psrc
}

func f32s(t *testing.T, res *launch.Result, name string) []float32 {
	b := res.Buffer(name)
	if b == nil {
		t.Fatalf("no buffer %s", name)
	}
	out := make([]float32, len(b.Data)/4)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(b.Data[4*i:]))
	}
	return out
}

func u32s(t *testing.T, res *launch.Result, name string) []uint32 {
	b := res.Buffer(name)
	if b == nil {
		t.Fatalf("no buffer %s", name)
	}
	out := make([]uint32, len(b.Data)/4)
	for i := range out {
		out[i] = binary.LittleEndian.Uint32(b.Data[4*i:])
	}
	return out
}

const indexing = `#include <cuda_runtime.h>
__global__ void idx(int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = i * 10 + threadIdx.x % warpSize + gridDim.x * 1000;
}
`

func TestKernelIndexing(t *testing.T) {
	for _, o := range []int{0, 2} {
		res, _, _, _ := compileRun(t, indexing, cuda.Options{Opt: o}, `"entry": "_Z3idxPii", "grid": [3,1,1], "block": [64,1,1],
			"buffers": [{"name": "out", "type": "u32", "count": 200}], "params": [{"buffer": "out"}, {"u32": 150}]}`)
		got := u32s(t, res, "out")
		for i, v := range got {
			want := uint32(0)
			if i < 150 {
				want = uint32(i*10 + (i%64)%32 + 3000)
			}
			if v != want {
				t.Fatalf("-O%d: out[%d] = %d, want %d", o, i, v, want)
			}
		}
	}
}

const reductions = `
__global__ void blocksum(const float *in, float *out) {
  __shared__ float s[256];
  unsigned t = threadIdx.x;
  s[t] = in[blockIdx.x * blockDim.x + t];
  __syncthreads();
  for (unsigned stride = blockDim.x / 2; stride > 0; stride >>= 1) {
    if (t < stride) s[t] += s[t + stride];
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = s[0];
}

__global__ void warpsum(const float *in, float *out) {
  float v = in[blockIdx.x * blockDim.x + threadIdx.x];
  for (int off = 16; off > 0; off >>= 1) v += __shfl_down_sync(0xffffffff, v, off);
  if ((threadIdx.x & 31) == 0) out[(blockIdx.x * blockDim.x + threadIdx.x) / 32] = v;
}
`

func TestKernelReductions(t *testing.T) {
	res, _, _, _ := compileRun(t, reductions, cuda.Options{Opt: 3}, `"entry": "_Z8blocksumPKfPf", "grid": [2,1,1], "block": [256,1,1],
		"buffers": [{"name": "in", "type": "f32", "count": 512, "init": {"iota": {"start": 0, "step": 1}}}, {"name": "out", "type": "f32", "count": 2}],
		"params": [{"buffer": "in"}, {"buffer": "out"}]}`)
	// sum 0..255 = 32640; sum 256..511 = 98176
	if got := f32s(t, res, "out"); got[0] != 32640 || got[1] != 98176 {
		t.Errorf("blocksum = %v, want [32640 98176]", got)
	}
	res, _, _, _ = compileRun(t, reductions, cuda.Options{Opt: 2}, `"entry": "_Z7warpsumPKfPf", "grid": [1,1,1], "block": [64,1,1],
		"buffers": [{"name": "in", "type": "f32", "count": 64, "init": {"iota": {"start": 1, "step": 1}}}, {"name": "out", "type": "f32", "count": 2}],
		"params": [{"buffer": "in"}, {"buffer": "out"}]}`)
	// sum 1..32 = 528; sum 33..64 = 1552
	if got := f32s(t, res, "out"); got[0] != 528 || got[1] != 1552 {
		t.Errorf("warpsum = %v, want [528 1552]", got)
	}
}

const histogram = `#include <cstdio>
__global__ void hist(const unsigned *in, unsigned *bins, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&bins[in[i] % 8], 1u);
}
__global__ void vec4(const float4 *in, float *out) {
  float4 v = in[threadIdx.x];
  out[threadIdx.x] = v.x + 2 * v.y + 4 * v.z + 8 * v.w;
  if (threadIdx.x == 1) printf("thread %d: %.1f\n", threadIdx.x, out[threadIdx.x]);
}
__global__ void warpops(unsigned *out) {
  unsigned l = threadIdx.x;
  out[l] = __ballot_sync(0xffffffff, l & 1) ^ __popc(l) ^ (__any_sync(0xffffffff, l == 5) << 8) ^ (__all_sync(0xffffffff, l < 32) << 9)
    ^ (__reduce_add_sync(0xffffffff, l) << 10) ^ (__brev(l) ) ^ (__clz(l) << 20);
}
`

func TestKernelAtomicsVectorsPrintf(t *testing.T) {
	res, _, _, _ := compileRun(t, histogram, cuda.Options{Opt: 2}, `"entry": "_Z4histPKjPji", "grid": [2,1,1], "block": [64,1,1],
		"buffers": [{"name": "in", "type": "u32", "count": 100, "init": {"iota": {"start": 0, "step": 3}}}, {"name": "bins", "type": "u32", "count": 8}],
		"params": [{"buffer": "in"}, {"buffer": "bins"}, {"u32": 100}]}`)
	var want [8]uint32
	for i := 0; i < 100; i++ {
		want[(3*i)%8]++
	}
	if got := u32s(t, res, "bins"); [8]uint32(got) != want {
		t.Errorf("bins = %v, want %v", got, want)
	}
	res, _, prog, psrc := compileRun(t, histogram, cuda.Options{Opt: 2}, `"entry": "_Z4vec4PK6float4Pf", "grid": [1,1,1], "block": [4,1,1],
		"buffers": [{"name": "in", "type": "f32", "count": 16, "init": {"iota": {"start": 0, "step": 1}}}, {"name": "out", "type": "f32", "count": 4}],
		"params": [{"buffer": "in"}, {"buffer": "out"}]}`)
	got := f32s(t, res, "out")
	for i := range got {
		b := float32(4 * i)
		if w := b + 2*(b+1) + 4*(b+2) + 8*(b+3); got[i] != w {
			t.Errorf("vec4 out[%d] = %v, want %v", i, got[i], w)
		}
	}
	if len(res.Printf) != 1 || res.Printf[0].Text != "thread 1: 94.0\n" {
		t.Errorf("printf = %+v", res.Printf)
	}
	// The printf's pc maps to CUDA line 8.
	r, _ := cuda.Compile(context.Background(), histogram, cuda.Options{Opt: 2})
	if l := r.Map.PCLines(prog, psrc)[res.Printf[0].PC]; l != 9 {
		t.Errorf("printf pc maps to CUDA line %d, want 9", l)
	}
	// A float4 load is one ld.global.v4.f32.
	if !strings.Contains(r.PTX, "ld.global.v4.f32") && !strings.Contains(r.PTX, "ld.global.nc.v4.f32") {
		t.Errorf("no v4 load in PTX")
	}
	res, _, _, _ = compileRun(t, histogram, cuda.Options{Opt: 2, Arch: "sm_80"}, `"entry": "_Z7warpopsPj", "grid": [1,1,1], "block": [32,1,1],
		"buffers": [{"name": "out", "type": "u32", "count": 32}], "params": [{"buffer": "out"}]}`)
	for l, v := range u32s(t, res, "out") {
		lu := uint32(l)
		w := uint32(0xaaaaaaaa) ^ uint32(popc(lu)) ^ 1<<8 ^ 1<<9 ^ (496 << 10) ^ brev(lu) ^ uint32(clz(lu))<<20
		if v != w {
			t.Errorf("warpops lane %d = %#x, want %#x", l, v, w)
		}
	}
}

func popc(x uint32) int {
	n := 0
	for ; x != 0; x &= x - 1 {
		n++
	}
	return n
}

func brev(x uint32) uint32 {
	var r uint32
	for i := 0; i < 32; i++ {
		r |= (x >> i & 1) << (31 - i)
	}
	return r
}

func clz(x uint32) int {
	n := 0
	for i := 31; i >= 0 && x>>i&1 == 0; i-- {
		n++
	}
	return n
}

// A recursive device function (clang keeps the call at -O0) called right
// after a divergent if/else: every lane gets its own result. (The
// emulator once took the lanes that reached the join first for lanes that
// had returned from the call, and they stored 0; recursive math library
// functions showed it as wrong values that depended on the other
// functions of the kernel.)
const recursionAfterBranch = `
__device__ unsigned mix(unsigned x, int n) {
  if (n > 0) return mix(x * 2654435761u + 1, n - 1) ^ (unsigned)n;
  for (int k = 0; k < 80; k++) x = x * 1664525u + 1013904223u;
  return x;
}
__global__ void k(const unsigned *in, unsigned *out) {
  unsigned t = threadIdx.x;
  unsigned v = in[t];
  if (v & 1) v = v * 7 + 3; else v = v / 3 + 11;
  out[t] = mix(v, t % 3);
}
`

func TestKernelRecursionAfterBranch(t *testing.T) {
	var mix func(x uint32, n int) uint32
	mix = func(x uint32, n int) uint32 {
		if n > 0 {
			return mix(x*2654435761+1, n-1) ^ uint32(n)
		}
		for k := 0; k < 80; k++ {
			x = x*1664525 + 1013904223
		}
		return x
	}
	var in []string
	want := make([]uint32, 32)
	for i := range want {
		v := uint32((i*37 + 5) % 101)
		in = append(in, fmt.Sprint(v))
		if v&1 != 0 {
			v = v*7 + 3
		} else {
			v = v/3 + 11
		}
		want[i] = mix(v, i%3)
	}
	for _, o := range []int{0, 2} {
		res, r, _, _ := compileRun(t, recursionAfterBranch, cuda.Options{Opt: o}, `"entry": "_Z1kPKjPj", "grid": [1,1,1], "block": [32,1,1],
			"buffers": [{"name": "in", "type": "u32", "count": 32, "init": {"values": [`+strings.Join(in, ",")+`]}}, {"name": "out", "type": "u32", "count": 32}],
			"params": [{"buffer": "in"}, {"buffer": "out"}]}`)
		if o == 0 && !strings.Contains(r.PTX, "call.uni") {
			t.Fatalf("-O0: the recursion is no call:\n%s", r.PTX)
		}
		for i, v := range u32s(t, res, "out") {
			if v != want[i] {
				t.Errorf("-O%d: out[%d] = %d, want %d", o, i, v, want[i])
			}
		}
	}
}
