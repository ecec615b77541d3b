package cuda_test

import (
	"encoding/binary"
	"math"
	"strings"
	"testing"

	"github.com/ptxplayground/ptxplay/engine/cuda"
	"github.com/ptxplayground/ptxplay/engine/launch"
)

// Coverage of the prelude: every warp intrinsic, atomic function, block
// vote, vector load and __half/__nv_bfloat16 basic in a kernel that
// compiles and runs to results computed here by hand.

func u64s(t *testing.T, res *launch.Result, name string) []uint64 {
	b := res.Buffer(name)
	if b == nil {
		t.Fatalf("no buffer %s", name)
	}
	out := make([]uint64, len(b.Data)/8)
	for i := range out {
		out[i] = binary.LittleEndian.Uint64(b.Data[8*i:])
	}
	return out
}

const warpIntrinsics = `
__global__ void warp(unsigned *out) {
  const unsigned m = 0xffffffff;
  unsigned l = threadIdx.x;
  int k = 0;
#define OUT(v) out[32 * k++ + l] = (unsigned)(v)
  OUT(__shfl_sync(m, l * 3, (l + 5) % 32));
  OUT(__shfl_sync(m, l, 2, 8));
  OUT(__shfl_sync(m, (float)l * 0.5f, 31) * 2);
  OUT(__shfl_up_sync(m, l * 3, 3));
  OUT(__shfl_up_sync(m, l, 1, 4));
  OUT(__shfl_down_sync(m, l, 5));
  OUT(__shfl_down_sync(m, (long long)l << 33, 2) >> 33);
  OUT(__shfl_xor_sync(m, l, 6));
  OUT(__shfl_xor_sync(m, (double)l, 1));
  OUT(__ballot_sync(m, l % 3 == 0));
  OUT(__any_sync(m, l == 31) | __any_sync(m, l == 32) << 1);
  OUT(__all_sync(m, l < 32) | __all_sync(m, l < 31) << 1);
  unsigned act = 0;
  if (l < 10)
    act = __activemask();
  __syncwarp();
  OUT(act);
  OUT(__reduce_add_sync(m, l));
  OUT(__reduce_add_sync(m, (int)l - 20));
  OUT(__reduce_min_sync(m, l + 3));
  OUT(__reduce_min_sync(m, (int)l - 16));
  OUT(__reduce_max_sync(m, l + 3));
  OUT(__reduce_max_sync(m, 5 - (int)l));
  OUT(__reduce_and_sync(m, l | 0x100));
  OUT(__reduce_or_sync(m, l << 4));
  OUT(__reduce_xor_sync(m, l * l));
  OUT(__match_any_sync(m, l % 4));
  OUT(__match_any_sync(m, (unsigned long long)(l % 2) << 40));
  OUT(__match_any_sync(m, (float)(l / 16)));
  int pred;
  unsigned r = __match_all_sync(m, 7u, &pred);
  OUT(r ^ pred);
  r = __match_all_sync(m, l / 16, &pred);
  OUT(r | pred);
  r = __match_all_sync(m, 9ull << 40, &pred);
  OUT(r ^ pred);
}
`

func TestPreludeWarpIntrinsics(t *testing.T) {
	const n = 28
	for _, o := range []int{0, 2} {
		res, _, _, _ := compileRun(t, warpIntrinsics, cuda.Options{Opt: o}, `"entry": "_Z4warpPj", "grid": [1,1,1], "block": [32,1,1],
		"buffers": [{"name": "out", "type": "u32", "count": 896}], "params": [{"buffer": "out"}]}`)
		got := u32s(t, res, "out")
		ballot := uint32(0)
		xor := uint32(0)
		for l := uint32(0); l < 32; l++ {
			if l%3 == 0 {
				ballot |= 1 << l
			}
			xor ^= l * l
		}
		for l := uint32(0); l < 32; l++ {
			up3, up1w4, down5, down2 := l*3, l, l, l
			if l >= 3 {
				up3 = (l - 3) * 3
			}
			if l%4 >= 1 {
				up1w4 = l - 1
			}
			if l+5 < 32 {
				down5 = l + 5
			}
			if l+2 < 32 {
				down2 = l + 2
			}
			act := uint32(0)
			if l < 10 {
				act = 0x3ff
			}
			want := [n]uint32{
				((l + 5) % 32) * 3, l/8*8 + 2, 31, up3, up1w4, down5, down2, l ^ 6, l ^ 1,
				ballot, 1, 1, act,
				496, uint32(0xffffff70), 3, uint32(0xfffffff0), 34, 5, 0x100, 0x1f0, xor,
				0x11111111 << (l % 4), 0x55555555 << (l % 2), 0xffff << (l / 16 * 16),
				0xffffffff ^ 1, 0, 0xffffffff ^ 1,
			}
			for k := 0; k < n; k++ {
				if g := got[32*k+int(l)]; g != want[k] {
					t.Errorf("-O%d: test %d, lane %d = %#x, want %#x", o, k, l, g, want[k])
				}
			}
		}
	}
}

const atomics = `
__global__ void atom(int *i, unsigned *u, unsigned long long *q, float *f, double *d, int *olds) {
  int l = threadIdx.x;
  if (l == 0) {
    u[1] = 1000; u[2] = 77; i[2] = 0x7fffffff; i[3] = -0x7fffffff; u[3] = 0xffffffff;
    q[2] = ~0ull; i[4] = -1; u[4] = ~0u; q[3] = ~0ull; u[6] = 5; f[1] = 2.5f;
    ((long long *)q)[4] = 0; ((long long *)q)[5] = 0; q[7] = 3;
  }
  __syncthreads();
  atomicAdd(&i[0], l);
  atomicAdd(&u[0], (unsigned)l);
  atomicAdd(&q[0], 1ull << 33);
  atomicAdd(&f[0], 0.5f);
  atomicAdd(&d[0], 0.25);
  atomicSub(&i[1], l);
  atomicSub(&u[1], 1u);
  olds[l] = atomicExch(&u[2], (unsigned)l);
  olds[64 + l] = atomicExch(&i[6], l + 1000);
  olds[128 + l] = (int)(atomicExch(&q[6], (unsigned long long)l << 40) >> 40);
  olds[192 + l] = (int)atomicExch(&f[1], (float)l);
  atomicMin(&i[2], l - 40);
  atomicMax(&i[3], l - 40);
  atomicMin(&u[3], (unsigned)l + 7);
  atomicMax(&u[5], (unsigned)l * 3);
  atomicMin((long long *)&q[4], -((long long)l << 35));
  atomicMax((long long *)&q[5], (long long)l << 35);
  atomicMin(&q[2], (unsigned long long)(l + 9) << 36);
  atomicMax(&q[1], (unsigned long long)(l + 1) << 36);
  atomicInc(&u[7], 9u);
  atomicDec(&u[6], 9u);
  olds[256 + l] = atomicCAS(&i[16 + l], 0, l + 100);
  olds[320 + l] = atomicCAS(&i[16 + l], 5, 7);
  atomicCAS(&u[16 + l], 0u, (unsigned)l + 200);
  atomicCAS(&q[16 + l], 0ull, (unsigned long long)l << 40);
  // The classic CAS loop: an atomic add made of compare-and-swap.
  unsigned long long old = q[7], seen;
  do {
    seen = old;
    old = atomicCAS(&q[7], seen, seen + l);
  } while (old != seen);
  atomicAnd(&i[4], ~(1 << (l % 32)));
  atomicAnd(&u[4], ~(1u << (l % 31)));
  atomicAnd(&q[3], ~(1ull << l));
  atomicOr(&i[5], 1 << (l % 32));
  atomicOr(&u[8], 1u << (l % 16));
  atomicOr(&q[8], 1ull << l);
  atomicXor(&i[7], l * l);
  atomicXor(&u[9], (unsigned)l * 3);
  atomicXor(&q[9], (unsigned long long)l << 32);
}
`

func TestPreludeAtomics(t *testing.T) {
	res, _, _, _ := compileRun(t, atomics, cuda.Options{Opt: 2}, `"entry": "_Z4atomPiPjPyPfPdS_", "grid": [1,1,1], "block": [64,1,1],
		"buffers": [{"name": "i", "type": "s32", "count": 80}, {"name": "u", "type": "u32", "count": 80}, {"name": "q", "type": "u64", "count": 80},
		{"name": "f", "type": "f32", "count": 2}, {"name": "d", "type": "f64", "count": 1}, {"name": "olds", "type": "s32", "count": 384}],
		"params": [{"buffer": "i"}, {"buffer": "u"}, {"buffer": "q"}, {"buffer": "f"}, {"buffer": "d"}, {"buffer": "olds"}]}`)
	i, u, q := u32s(t, res, "i"), u32s(t, res, "u"), u64s(t, res, "q")
	f, olds := f32s(t, res, "f"), u32s(t, res, "olds")
	d := math.Float64frombits(u64s(t, res, "d")[0])
	s := func(v int32) uint32 { return uint32(v) }
	var sq, x3 uint32
	for l := uint32(0); l < 64; l++ {
		sq ^= l * l
		x3 ^= l * 3
	}
	checks := []struct {
		name      string
		got, want uint64
	}{
		{"atomicAdd int", uint64(i[0]), 2016},
		{"atomicAdd unsigned", uint64(u[0]), 2016},
		{"atomicAdd unsigned long long", q[0], 64 << 33},
		{"atomicAdd float", uint64(math.Float32bits(f[0])), uint64(math.Float32bits(32))},
		{"atomicAdd double", math.Float64bits(d), math.Float64bits(16)},
		{"atomicSub int", uint64(i[1]), uint64(s(-2016))},
		{"atomicSub unsigned", uint64(u[1]), 936},
		{"atomicMin int", uint64(i[2]), uint64(s(-40))},
		{"atomicMax int", uint64(i[3]), 23},
		{"atomicMin unsigned", uint64(u[3]), 7},
		{"atomicMax unsigned", uint64(u[5]), 189},
		{"atomicMin long long", q[4], uint64(1<<64 - 63<<35)},
		{"atomicMax long long", q[5], 63 << 35},
		{"atomicMin unsigned long long", q[2], 9 << 36},
		{"atomicMax unsigned long long", q[1], 64 << 36},
		{"atomicInc", uint64(u[7]), 4}, // 64 increments wrapping at 10
		{"atomicDec", uint64(u[6]), 1}, // (5 - 64) mod 10
		{"atomicCAS loop", q[7], 3 + 2016},
		{"atomicAnd int", uint64(i[4]), 0},
		{"atomicAnd unsigned", uint64(u[4]), 0x80000000},
		{"atomicAnd unsigned long long", q[3], 0},
		{"atomicOr int", uint64(i[5]), 0xffffffff},
		{"atomicOr unsigned", uint64(u[8]), 0xffff},
		{"atomicOr unsigned long long", q[8], ^uint64(0)},
		{"atomicXor int", uint64(i[7]), uint64(sq)},
		{"atomicXor unsigned", uint64(u[9]), uint64(x3)},
		{"atomicXor unsigned long long", q[9], 0},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s: %#x, want %#x", c.name, c.got, c.want)
		}
	}
	for l := uint32(0); l < 64; l++ {
		if i[16+l] != l+100 || olds[256+l] != 0 || olds[320+l] != l+100 {
			t.Errorf("atomicCAS int, lane %d: %d (returned %d, then %d), want %d (0, then %d)", l, i[16+l], olds[256+l], olds[320+l], l+100, l+100)
		}
		if u[16+l] != l+200 || q[16+l] != uint64(l)<<40 {
			t.Errorf("atomicCAS unsigned / unsigned long long, lane %d: %d, %#x", l, u[16+l], q[16+l])
		}
	}
	// atomicExch: the values returned and the one left are the initial
	// value and the 64 exchanged ones, each once.
	exch := []struct {
		name  string
		olds  []uint32
		final uint32
		init  uint32
		val   func(l uint32) uint32
	}{
		{"unsigned", olds[0:64], u[2], 77, func(l uint32) uint32 { return l }},
		{"int", olds[64:128], i[6], 0, func(l uint32) uint32 { return l + 1000 }},
		{"unsigned long long", olds[128:192], uint32(q[6] >> 40), 0, func(l uint32) uint32 { return l }},
		{"float", olds[192:256], uint32(f[1]), 2, func(l uint32) uint32 { return l }},
	}
	for _, e := range exch {
		seen := map[uint32]int{}
		for _, o := range append(append([]uint32(nil), e.olds...), e.final) {
			seen[o]++
		}
		want := map[uint32]int{e.init: 1}
		for l := uint32(0); l < 64; l++ {
			want[e.val(l)]++
		}
		for v, n := range want {
			if seen[v] != n {
				t.Errorf("atomicExch %s: value %d seen %d times, want %d (olds %v, final %d)", e.name, v, seen[v], n, e.olds, e.final)
				break
			}
		}
	}
}

const blockVotes = `
__global__ void votes(int *out) {
  unsigned l = threadIdx.x;
  int c = __syncthreads_count(l % 3 == 0);
  int a1 = __syncthreads_and(l < 64), a0 = __syncthreads_and(l != 40);
  int o1 = __syncthreads_or(l == 40), o0 = __syncthreads_or(l > 64);
  out[l] = c | a1 << 8 | a0 << 9 | o1 << 10 | o0 << 11;
}
`

func TestPreludeBlockVotes(t *testing.T) {
	for _, sched := range []string{"independent", "simt-stack"} {
		res, _, _, _ := compileRun(t, blockVotes, cuda.Options{Opt: 2}, `"entry": "_Z5votesPi", "grid": [1,1,1], "block": [64,1,1], "scheduling": "`+sched+`",
			"buffers": [{"name": "out", "type": "s32", "count": 64}], "params": [{"buffer": "out"}]}`)
		for l, v := range u32s(t, res, "out") {
			if want := uint32(22 | 1<<8 | 1<<10); v != want {
				t.Errorf("%s: thread %d: %#x, want %#x (count 22, and 1/0, or 1/0)", sched, l, v, want)
			}
		}
	}
}

const vectorLoads = `
__global__ void vec(const int2 *a, const float4 *b, const uint4 *c, const double2 *d, const char4 *e, const short2 *s, float *out) {
  unsigned l = threadIdx.x;
  int2 x = a[l];
  float4 y = b[l];
  uint4 z = c[l];
  double2 w = d[l];
  char4 v = e[l];
  short2 h = s[l];
  out[l] = x.x + 2 * x.y + y.x + 2 * y.y + 4 * y.z + 8 * y.w + z.x + 2 * z.y + z.z - z.w + (float)(w.x * w.y) + v.x + v.w + h.x * h.y;
  float4 r = make_float4(y.w, y.z, y.y, y.x);
  reinterpret_cast<float4 *>(out)[8 + l] = r;
}
`

func TestPreludeVectorLoads(t *testing.T) {
	res, r, _, _ := compileRun(t, vectorLoads, cuda.Options{Opt: 2}, `"entry": "_Z3vecPK4int2PK6float4PK5uint4PK7double2PK5char4PK6short2Pf", "grid": [1,1,1], "block": [4,1,1],
		"buffers": [{"name": "a", "type": "s32", "count": 8, "init": {"iota": {"start": 1, "step": 1}}},
		{"name": "b", "type": "f32", "count": 16, "init": {"iota": {"start": 0, "step": 0.5}}},
		{"name": "c", "type": "u32", "count": 16, "init": {"iota": {"start": 10, "step": 3}}},
		{"name": "d", "type": "f64", "count": 8, "init": {"iota": {"start": 1, "step": 1}}},
		{"name": "e", "type": "s8", "count": 16, "init": {"iota": {"start": -8, "step": 1}}},
		{"name": "s", "type": "s16", "count": 8, "init": {"iota": {"start": -3, "step": 2}}},
		{"name": "out", "type": "f32", "count": 48}],
		"params": [{"buffer": "a"}, {"buffer": "b"}, {"buffer": "c"}, {"buffer": "d"}, {"buffer": "e"}, {"buffer": "s"}, {"buffer": "out"}]}`)
	out := f32s(t, res, "out")
	for l := 0; l < 4; l++ {
		x0, x1 := float64(1+2*l), float64(2+2*l)
		y := func(k int) float64 { return 0.5 * float64(4*l+k) }
		z := func(k int) float64 { return float64(10 + 3*(4*l+k)) }
		w0, w1 := float64(1+2*l), float64(2+2*l)
		v := func(k int) float64 { return float64(-8 + 4*l + k) }
		h0, h1 := float64(-3+2*(2*l)), float64(-3+2*(2*l+1))
		want := x0 + 2*x1 + y(0) + 2*y(1) + 4*y(2) + 8*y(3) + (z(0) + 2*z(1) + z(2) - z(3)) + w0*w1 + v(0) + v(3) + h0*h1
		if float64(out[l]) != want {
			t.Errorf("vec out[%d] = %v, want %v", l, out[l], want)
		}
		for k := 0; k < 4; k++ {
			if g := float64(out[32+4*l+k]); g != y(3-k) {
				t.Errorf("float4 store, lane %d component %d: %v, want %v", l, k, g, y(3-k))
			}
		}
	}
	// One vector instruction per vector access, as nvcc compiles them.
	for _, in := range []string{".v2.u32", ".v4.f32", ".v4.u32", ".v2.f64", "st.global.v4.f32"} {
		if !strings.Contains(r.PTX, in) {
			t.Errorf("no %s access in the PTX", in)
		}
	}
}

const halves = `
__global__ void halves(const __half *h, const __nv_bfloat16 *b, float *out) {
  unsigned l = threadIdx.x;
  __half x = h[l], y = __float2half(0.25f);
  out[l] = __half2float(__hadd(x, y));
  out[8 + l] = __half2float(__hmul(x, x));
  out[16 + l] = __half2float(__hfma(x, x, __float2half_rn(-1.0f)));
  out[24 + l] = __half2float(__hsub(y, x));
  __half2 p = __floats2half2_rn(x, 2.0f), q = __float2half2_rn(3.0f);
  __half2 s = __hadd2(p, q), m = __hmul2(p, q);
  out[32 + l] = __low2float(s) + 100 * __high2float(m);
  out[40 + l] = __bfloat162float(b[l]) + __bfloat162float(__float2bfloat16(1.00390625f)) * 1000;
  __nv_bfloat162 bb = __floats2bfloat162_rn(__bfloat162float(b[l]), 3.0f);
  out[48 + l] = __bfloat162float(bb.x) * __bfloat162float(bb.y);
  out[56 + l] = __half2float(__float2half(65520.0f * (float)l));
}
`

func TestPreludeHalfBfloat16(t *testing.T) {
	res, _, _, _ := compileRun(t, halves, cuda.Options{Opt: 2}, `"entry": "_Z6halvesPKDF16_PKDF16bPf", "grid": [1,1,1], "block": [8,1,1],
		"buffers": [{"name": "h", "type": "f16", "count": 8, "init": {"iota": {"start": -1.5, "step": 0.5}}},
		{"name": "b", "type": "bf16", "count": 8, "init": {"iota": {"start": 0.5, "step": 0.25}}},
		{"name": "out", "type": "f32", "count": 64}],
		"params": [{"buffer": "h"}, {"buffer": "b"}, {"buffer": "out"}]}`)
	out := f32s(t, res, "out")
	for l := 0; l < 8; l++ {
		x := -1.5 + 0.5*float32(l)
		bl := 0.5 + 0.25*float32(l)
		inf := float32(math.Inf(1))
		if l == 0 {
			inf = 0
		}
		want := []float32{x + 0.25, x * x, x*x - 1, 0.25 - x, (x + 3) + 100*6, bl + 1000, bl * 3, inf}
		for k, w := range want {
			if g := out[8*k+l]; g != w {
				t.Errorf("test %d, lane %d: %v, want %v", k, l, g, w)
			}
		}
	}
}

const cvta = `
__global__ void cvta(unsigned *out) {
  __shared__ unsigned s[32];
  unsigned l = threadIdx.x;
  s[l] = l * 7;
  __syncthreads();
  unsigned a = (unsigned)__cvta_generic_to_shared(&s[31 - l]), v;
  asm volatile("ld.shared.u32 %0, [%1];" : "=r"(v) : "r"(a));
  unsigned *g = (unsigned *)__cvta_global_to_generic(__cvta_generic_to_global(&out[l]));
  *g = v + (unsigned)(__cvta_shared_to_generic(a) == (void *)&s[31 - l]);
}
`

// __cvta_generic_to_shared is how CUDA code hands a shared address to
// inline PTX (ldmatrix, cp.async, mbarrier).
func TestPreludeCvta(t *testing.T) {
	res, _, _, _ := compileRun(t, cvta, cuda.Options{Opt: 2}, `"entry": "_Z4cvtaPj", "grid": [1,1,1], "block": [32,1,1],
		"buffers": [{"name": "out", "type": "u32", "count": 32}], "params": [{"buffer": "out"}]}`)
	for l, v := range u32s(t, res, "out") {
		if want := uint32((31-l)*7 + 1); v != want {
			t.Errorf("lane %d: %d, want %d", l, v, want)
		}
	}
}
