package analysis_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ptxplayground/ptxplay/engine/analysis"
)

// wgSrc is a one-warpgroup kernel around wgmma.mma_async m64n8k16
// f32.f16.f16 with A (64x16, K-major, no swizzle) at shared offset 0 and
// B (8x16) at 2048: every thread stores ones into 5 words of the 2560
// bytes (STORE), then PRE, bar.sync, then BODY (the wgmma instructions),
// then writes D's first register to out. %rd1 and %rd2 are the A and B
// descriptors, %p2 is true (scale-d).
func wgSrc(pre, body string) string {
	return `.version 8.0
.target sm_90a
.address_size 64
.visible .entry k(.param .u64 out) {
	.shared .align 1024 .b8 smem[2560];
	.reg .b32 %d<8>, %r<16>, %a<8>;
	.reg .b64 %rd<8>;
	.reg .pred %p<4>;
	mov.u32 %r1, %tid.x;
	mov.b64 %rd1, 0x0000001000080000;
	mov.b64 %rd2, 0x0000001000080080;
	setp.ne.u32 %p2, %r1, 1000;
	mov.b32 %d0, 0;
	mov.b32 %d1, 0;
	mov.b32 %d2, 0;
	mov.b32 %d3, 0;
	mov.u32 %r2, smem;
	shl.b32 %r3, %r1, 2;
	add.u32 %r2, %r2, %r3;
	mov.b32 %r4, 0x3c003c00;
	st.shared.b32 [%r2], %r4;              // STORE
	st.shared.b32 [%r2+512], %r4;
	st.shared.b32 [%r2+1024], %r4;
	st.shared.b32 [%r2+1536], %r4;
	st.shared.b32 [%r2+2048], %r4;
` + pre + `
	bar.sync 0;
` + body + `
	ld.param.u64 %rd3, [out];
	mul.wide.u32 %rd4, %r1, 4;
	add.u64 %rd3, %rd3, %rd4;
	st.global.b32 [%rd3], %d0;
	ret;
}`
}

const wgMmaLine = "\twgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%d0, %d1, %d2, %d3}, %rd1, %rd2, %p2, 1, 1, 0, 0;   // MMA\n"

// wgGood is the correct sequence: fence, mma_async, commit, wait.
const wgGood = "\twgmma.fence.sync.aligned;\n" + wgMmaLine + "\twgmma.commit_group.sync.aligned;\n\twgmma.wait_group.sync.aligned 0;\n"

func wgSpec(sched string) string {
	return fmt.Sprintf(`{"grid": [1], "block": [128], "scheduling": %q, "buffers": [{"name": "out", "type": "u32", "count": 128}], "params": [{"buffer": "out"}]}`, sched)
}

func countKind(ws []analysis.Warning, k analysis.WarningKind) int {
	n := 0
	for _, w := range ws {
		if w.Kind == k {
			n++
		}
	}
	return n
}

// An mma_async reads A and B through its descriptors in the asynchronous
// proxy: shared memory the threads stored (generic proxy) needs a
// fence.proxy.async in each writing thread before the mma_async reads
// it. Without it the checker warns, naming the mma_async and the store;
// with it (the ISA's pattern: store, fence.proxy.async, bar.sync,
// wgmma) it says nothing, in both scheduling models.
func TestCheckerWgmmaProxyFence(t *testing.T) {
	for _, sched := range scheds {
		src := wgSrc("", wgGood)
		ws := checkMbar(t, src, wgSpec(sched))
		if countKind(ws, analysis.WarnProxyFence) == 0 {
			t.Errorf("%s: no %s warning: %v", sched, analysis.WarnProxyFence, kinds(ws))
		}
		for _, w := range ws {
			if w.Kind != analysis.WarnProxyFence {
				t.Errorf("%s: unexpected %s", sched, w.Message())
				continue
			}
			mma, st := lineOf(t, src, "// MMA"), lineOf(t, src, "// STORE")
			if w.Line != mma || w.PrevLine < st || w.PrevLine > st+4 {
				t.Errorf("%s: warning at lines %d<-%d, want the mma_async (%d) and a store (%d..%d)", sched, w.Line, w.PrevLine, mma, st, st+4)
			}
			want := fmt.Sprintf("the wgmma.mma_async at line %d (%s) reads shared memory that thread %s wrote at line %d through the generic proxy, with no fence.proxy.async between them",
				mma, "thread "+analysis.ThreadName(w.Thread), analysis.ThreadName(w.PrevThread), w.PrevLine)
			if w.Message() != want {
				t.Errorf("%s: message %q, want %q", sched, w.Message(), want)
			}
		}
		if ws := checkMbar(t, wgSrc("\tfence.proxy.async.shared::cta;", wgGood), wgSpec(sched)); len(ws) != 0 {
			t.Errorf("%s: with fence.proxy.async: %v", sched, kinds(ws))
		}
		// The barrier is needed as well: without it another warp's
		// store races with the read.
		nobar := strings.Replace(wgSrc("\tfence.proxy.async.shared::cta;", wgGood), "\tbar.sync 0;\n", "", 1)
		if ws := checkMbar(t, nobar, wgSpec(sched)); countKind(ws, analysis.WarnReadAfterWrite) == 0 {
			t.Errorf("%s: without the barrier: no %s: %v", sched, analysis.WarnReadAfterWrite, kinds(ws))
		}
	}
}
