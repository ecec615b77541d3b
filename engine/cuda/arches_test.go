package cuda_test

import (
	"context"
	"strings"
	"testing"

	"github.com/ptxplayground/ptxplay/engine/cuda"
)

// Every target the front door offers compiles an ordinary kernel with the
// prelude (shared memory, __syncthreads, an atomic, the address-space
// helpers, an address handed to inline PTX): the prelude's own functions
// must not call what a target's headers leave undeclared (the sm_90 part
// of clang's intrinsics header needs __isShared and
// __cvta_generic_to_shared declared before it; sm_70's __match*_sync).
func TestCompileEveryArch(t *testing.T) {
	needClang(t)
	src := `extern "C" __global__ void k(unsigned *out) {
    __shared__ unsigned s[32];
    unsigned a = (unsigned)__cvta_generic_to_shared(&s[threadIdx.x % 32]), v;
    s[threadIdx.x % 32] = threadIdx.x;
    __syncthreads();
    asm volatile("ld.shared.u32 %0, [%1];" : "=r"(v) : "r"(a));
    atomicAdd(out, v + __isShared(&s[0]));
}
`
	for _, arch := range cuda.Arches {
		r, err := cuda.Compile(context.Background(), src, cuda.Options{Arch: arch, Opt: 2})
		if err != nil {
			t.Fatalf("%s: %v", arch, err)
		}
		if !r.OK() {
			t.Errorf("%s: compile failed:\n%s", arch, r.Errors())
			continue
		}
		if !strings.Contains(r.PTX, ".target "+arch) {
			t.Errorf("%s: the PTX has no .target %s", arch, arch)
		}
	}
}
