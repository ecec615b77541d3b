package analysis_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ptxplayground/ptxplay/engine/analysis"
	"github.com/ptxplayground/ptxplay/engine/isa"
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

const (
	wgFence  = "\twgmma.fence.sync.aligned;\n"
	wgCommit = "\twgmma.commit_group.sync.aligned;\n"
	wgWait0  = "\twgmma.wait_group.sync.aligned 0;\n"
	// wgMmaRegA is the form with A in registers %a0..%a3.
	wgMmaRegA = "\twgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%d0, %d1, %d2, %d3}, {%a0, %a1, %a2, %a3}, %rd2, %p2, 1, 1, 0;   // MMA\n"
	wgSetA    = "\tmov.b32 %a0, 0x3c003c00;\n\tmov.b32 %a1, 0x3c003c00;\n\tmov.b32 %a2, 0x3c003c00;\n\tmov.b32 %a3, 0x3c003c00;\n"
)

// The ISA's register rules for wgmma: an accumulator or A register of
// an mma_async in flight read or written by another instruction before
// the wait_group that waits for it (wgmma-register-in-flight), and an
// mma_async's accumulator or A register written after the last fence
// (wgmma-missing-fence). Each fires on a minimal kernel naming both
// lines and the register, and the correct kernels (the chain of
// mma_async on one accumulator, which the ISA exempts, a pipelined wait
// of 1 included) say nothing, in both scheduling models.
func TestCheckerWgmmaRegisterRules(t *testing.T) {
	fenced := "\tfence.proxy.async.shared::cta;"
	mma2 := strings.Replace(wgMmaLine, "// MMA", "// MMA2", 1)
	for _, c := range []struct {
		name string
		body string
		kind analysis.WarningKind
		reg  string
		line string // the instruction that found it ("" : none)
		prev string
		msg  string
	}{
		{"correct", wgGood, "", "", "", "", ""},
		{"chain", wgFence + wgMmaLine + mma2 + wgCommit + wgWait0, "", "", "", "", ""},
		{"pipelined", wgFence + wgMmaLine + wgCommit + mma2 + wgCommit + "\twgmma.wait_group.sync.aligned 1;\n" + wgWait0 + "\tadd.f32 %r5, %d0, %d1;\n", "", "", "", "", ""},
		{"register A", wgSetA + wgFence + wgMmaRegA + wgCommit + wgWait0 + "\tmov.b32 %a0, 0;\n", "", "", "", "", ""},
		{"write then fence", "\tmov.b32 %d2, 0x3f800000;\n" + wgGood, "", "", "", "", ""},
		{"read in flight", wgFence + wgMmaLine + wgCommit + "\tadd.f32 %r5, %d0, %d1;   // USE\n" + wgWait0, analysis.WarnWgmmaInFlight, "%d0", "// USE", "// MMA",
			"'s add.f32 at line %d accesses register %%d0 while the wgmma.mma_async at line %d still uses it: no wgmma.wait_group waits for that mma_async between them"},
		{"write in flight", wgFence + wgMmaLine + "\tmov.b32 %d3, 0;   // USE\n" + wgCommit + wgWait0, analysis.WarnWgmmaInFlight, "%d3", "// USE", "// MMA", ""},
		{"wait 1 keeps it", wgFence + wgMmaLine + wgCommit + "\twgmma.wait_group.sync.aligned 1;\n\tmov.b32 %r5, %d2;   // USE\n" + wgWait0, analysis.WarnWgmmaInFlight, "%d2", "// USE", "// MMA", ""},
		{"A in flight", wgSetA + wgFence + wgMmaRegA + wgCommit + "\tmov.b32 %a1, 0;   // USE\n" + wgWait0, analysis.WarnWgmmaInFlight, "%a1", "// USE", "// MMA", ""},
		{"accumulator as A in flight", wgSetA + wgFence + wgMmaLine + strings.Replace(strings.Replace(wgMmaRegA, "%a0", "%d0", 1), "// MMA", "// MMA2", 1) + wgCommit + wgWait0, analysis.WarnWgmmaInFlight, "%d0", "// MMA2", "// MMA",
			"'s wgmma.mma_async at line %d uses register %%d0, which the wgmma.mma_async at line %d still uses in flight"},
		{"accumulator written after fence", wgFence + "\tmov.b32 %d1, 0x3f800000;   // WRITE\n" + wgMmaLine + wgCommit + wgWait0, analysis.WarnWgmmaFence, "%d1", "// MMA", "// WRITE",
			"the wgmma.mma_async at line %d (thread 0 of CTA 0) reads register %%d1, which thread 0 of CTA 0 wrote at line %d, with no wgmma.fence between them"},
		{"A written after fence", wgSetA + wgFence + "\tmov.b32 %a2, 0;   // WRITE\n" + wgMmaRegA + wgCommit + wgWait0, analysis.WarnWgmmaFence, "%a2", "// MMA", "// WRITE", ""},
		{"accumulator written after a wait", wgGood + "\tadd.f32 %d0, %d0, %d1;   // WRITE\n" + mma2 + wgCommit + wgWait0, analysis.WarnWgmmaFence, "%d0", "// MMA2", "// WRITE", ""},
	} {
		for _, sched := range scheds {
			src := wgSrc(fenced, c.body)
			ws := checkMbar(t, src, wgSpec(sched))
			if c.kind == "" {
				if len(ws) != 0 {
					t.Errorf("%s (%s): %v", c.name, sched, kinds(ws))
				}
				continue
			}
			if len(ws) != 1 || ws[0].Kind != c.kind {
				t.Errorf("%s (%s): %v, want one %s", c.name, sched, kinds(ws), c.kind)
				continue
			}
			w := ws[0]
			if w.Line != lineOf(t, src, c.line) || w.PrevLine != lineOf(t, src, c.prev) || w.Register != c.reg || w.Space != isa.Reg {
				t.Errorf("%s (%s): lines %d<-%d register %q space %v, want %d<-%d %q reg", c.name, sched, w.Line, w.PrevLine, w.Register, w.Space, lineOf(t, src, c.line), lineOf(t, src, c.prev), c.reg)
			}
			if c.msg != "" {
				if want := fmt.Sprintf(c.msg, w.Line, w.PrevLine); !strings.Contains(w.Message(), want) {
					t.Errorf("%s (%s): message %q, want it to say %q", c.name, sched, w.Message(), want)
				}
			}
		}
	}
}
