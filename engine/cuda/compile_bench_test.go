package cuda_test

import (
	"context"
	"fmt"
	"sort"
	"testing"
	"time"

	"github.com/ptxplayground/ptxplay/engine/cuda"
)

// lessonKernel is lesson-sized: the shared-memory reduction lesson's
// kernel (web/examples/shared-reduction.cu).
const lessonKernel = `// Shared-memory reduction: each block sums 128 floats.
extern "C" __global__ void block_sum(const float *in, float *partial) {
  __shared__ float sdata[128];
  unsigned tid = threadIdx.x;
  sdata[tid] = in[blockIdx.x * blockDim.x + tid];
  __syncthreads();
  for (unsigned stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (tid < stride)
      sdata[tid] += sdata[tid + stride];
    __syncthreads();
  }
  if (tid == 0)
    partial[blockIdx.x] = sdata[0];
}
`

// BenchmarkCompileLatency measures a compile of lessonKernel as the
// playground runs it (sandbox, limits, -O2 for sm_80), one at a time:
// "cold" is a cache miss (every iteration's source differs by a comment),
// "cached" the same source again. It reports the p50 and p99 latency in
// milliseconds.
func BenchmarkCompileLatency(b *testing.B) {
	needClang(b)
	for _, mode := range []string{"cold", "cached"} {
		b.Run(mode, func(b *testing.B) {
			c := cuda.NewCompiler(cuda.Config{})
			ctx := context.Background()
			opt := cuda.Options{Opt: 2}
			if _, err := c.Compile(ctx, lessonKernel, opt); err != nil {
				b.Fatal(err)
			}
			lat := make([]time.Duration, 0, b.N)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				src := lessonKernel
				if mode == "cold" {
					src += fmt.Sprintf("// edit %d\n", i)
				}
				t0 := time.Now()
				r, err := c.Compile(ctx, src, opt)
				d := time.Since(t0)
				if err != nil || !r.OK() {
					b.Fatalf("compile: %v", err)
				}
				if r.Cached != (mode == "cached") {
					b.Fatalf("%s compile %d: cached = %v", mode, i, r.Cached)
				}
				lat = append(lat, d)
			}
			b.StopTimer()
			sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
			q := func(p float64) float64 {
				return float64(lat[min(len(lat)-1, int(p*float64(len(lat))))]) / 1e6
			}
			b.ReportMetric(q(0.50), "p50-ms")
			b.ReportMetric(q(0.99), "p99-ms")
			b.ReportMetric(0, "ns/op")
			b.Logf("sandbox %s, %d compiles", c.Sandbox(), len(lat))
		})
	}
}
