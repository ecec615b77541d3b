package emu

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/ptxplayground/ptxplay/engine/ptx"
)

// wgmmaBenchIters is the number of wgmma.mma_async per warpgroup in the
// benchmark kernel.
const wgmmaBenchIters = 64

// wgmmaBenchSrc is a kernel of one warpgroup that runs
// wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 in a loop (fence,
// mma_async, commit, wait), A (64x16) and B (128x16) K-major without
// swizzle in shared memory.
func wgmmaBenchSrc() string {
	var d []string
	for i := 0; i < 64; i++ {
		d = append(d, fmt.Sprintf("%%d%d", i))
	}
	return fmt.Sprintf(`.version 8.0
.target sm_90a
.address_size 64
.visible .entry k(.param .u64 out) {
	.shared .align 1024 .b8 smem[8192];
	.reg .b32 %%d<64>, %%r<4>;
	.reg .b64 %%rd<4>;
	.reg .pred %%p<3>;
	mov.b64 %%rd1, 0x0000001000080000;
	mov.b64 %%rd2, 0x0000001000080080;
	mov.u32 %%r1, 0;
	setp.eq.u32 %%p2, %%r1, 0;
LOOP:
	wgmma.fence.sync.aligned;
	wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {%s}, %%rd1, %%rd2, %%p2, 1, 1, 0, 0;
	wgmma.commit_group.sync.aligned;
	wgmma.wait_group.sync.aligned 0;
	add.u32 %%r1, %%r1, 1;
	setp.lt.u32 %%p1, %%r1, %d;
	@%%p1 bra LOOP;
	ret;
}
`, strings.Join(d, ", "), wgmmaBenchIters)
}

// BenchmarkWgmmaM64N128K16 runs the kernel through the normal run path and
// reports multiply-accumulates per second (MAC/s: 64*128*16 per
// mma_async).
func BenchmarkWgmmaM64N128K16(b *testing.B) {
	prog, diags := CompileSource(ptx.NewSource("t.ptx", []byte(wgmmaBenchSrc())))
	if prog == nil {
		b.Fatal(diags)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		m, err := NewMachine(prog, "k", Config{Grid: [3]int{1, 1, 1}, Block: [3]int{128, 1, 1}})
		if err != nil {
			b.Fatal(err)
		}
		if r := m.Run(context.Background()); r != StopDone {
			b.Fatal(r, m.Fault())
		}
	}
	b.ReportMetric(float64(b.N)*64*128*16*wgmmaBenchIters/b.Elapsed().Seconds(), "MAC/s")
}
