package cuda_test

import (
	"context"
	"testing"

	"github.com/ptxplayground/ptxplay/engine/cuda"
	"github.com/ptxplayground/ptxplay/engine/launchspec"
)

// Every target the CUDA mode offers compiles an ordinary kernel with the
// prelude (shared memory, __syncthreads, an atomic, an address handed to
// inline PTX): the prelude's own functions must not call what a target's
// headers leave undeclared (sm_90's __isCtaShared and __isShared, sm_70's
// __match*_sync).
func TestEveryArchCompiles(t *testing.T) {
	needClang(t)
	const src = `extern "C" __global__ void k(unsigned *out) {
  __shared__ unsigned s[32];
  unsigned a = (unsigned)__cvta_generic_to_shared(&s[threadIdx.x % 32]), v;
  s[threadIdx.x % 32] = threadIdx.x;
  __syncthreads();
  asm volatile("ld.shared.u32 %0, [%1];" : "=r"(v) : "r"(a));
  atomicAdd(out, v);
}
`
	for _, arch := range launchspec.CUDAArches {
		r, err := cuda.Compile(context.Background(), src, cuda.Options{Arch: arch, Opt: 2})
		if err != nil {
			t.Fatalf("%s: %v", arch, err)
		}
		if !r.OK() {
			t.Errorf("%s: compile failed:\n%s", arch, r.Errors())
		}
	}
}
