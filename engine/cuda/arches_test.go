package cuda_test

import (
	"context"
	"strings"
	"testing"

	"github.com/ptxplayground/ptxplay/engine/cuda"
)

// Every target the front door offers compiles a kernel that uses the
// prelude's address-space helpers: the sm_90 part of clang's intrinsics
// header needs __isShared and __cvta_generic_to_shared declared before it,
// and without them every sm_90/sm_90a compile failed inside the prelude.
func TestCompileEveryArch(t *testing.T) {
	needClang(t)
	src := `__global__ void k(unsigned *out) {
    __shared__ int s[32];
    s[threadIdx.x] = threadIdx.x;
    out[threadIdx.x] = (unsigned)__cvta_generic_to_shared(&s[threadIdx.x]) + __isShared(&s[0]);
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
