package emu

import (
	"context"
	"strings"
	"testing"

	"github.com/ptxplayground/ptxplay/engine/ptx"
)

// A warp-specialised kernel: warpgroup 0 (the producer) gives registers up
// and warpgroup 1 (the consumers) takes them, each after a branch on its
// warpgroup; both run to their end in both scheduling models, and
// griddepcontrol is a no-op.
func TestSetmaxnregWarpSpecialised(t *testing.T) {
	src := hopperKernel(`
	griddepcontrol.wait;
	shr.u32 %r2, %r1, 7;
	mov.u32 %r9, 0;
	setp.ne.u32 %p1, %r2, 0;
	@%p1 bra CONSUMER;
	setmaxnreg.dec.sync.aligned.u32 40;
	mov.u32 %r9, 40;
	bra.uni JOIN;
CONSUMER:
	setmaxnreg.inc.sync.aligned.u32 232;
	bar.sync 1, 128;
	setmaxnreg.inc.sync.aligned.u32 240;
	setmaxnreg.dec.sync.aligned.u32 232;
	mov.u32 %r9, 232;
JOIN:
	griddepcontrol.launch_dependents;
	mul.wide.u32 %rd2, %r1, 4;
	add.u64 %rd3, %rd1, %rd2;
	st.u32 [%rd3], %r9;`)
	for _, sched := range []Scheduling{SchedSIMTStack, SchedIndependent} {
		for _, batched := range []bool{false, true} {
			m := batchLaunch{src: src, grid: 2, block: 256, words: 256, sched: sched}.machine(t, batched)
			if r := m.Run(context.Background()); r != StopDone {
				t.Fatalf("%s: stopped with %v (%v)", sched, r, m.Fault())
			}
			for i, v := range u32s(m.Global.allocs[0]) {
				want := uint32(40)
				if i >= 128 {
					want = 232
				}
				if v != want {
					t.Fatalf("%s: thread %d = %d, want %d", sched, i, v, want)
				}
			}
		}
	}
}

// What the ISA leaves undefined faults, naming the rule.
func TestSetmaxnregFaults(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		block      int
		want       string
	}{
		{"one warp of the warpgroup", `
	shr.u32 %r2, %r1, 5;
	setp.ne.u32 %p1, %r2, 0;
	@%p1 bra DONE;
	setmaxnreg.dec.sync.aligned.u32 40;
DONE:`, 128, "exits without executing the setmaxnreg"},
		{"the first warp skips it", `
	shr.u32 %r2, %r1, 5;
	setp.eq.u32 %p1, %r2, 0;
	@%p1 bra DONE;
	setmaxnreg.dec.sync.aligned.u32 40;
DONE:`, 128, "exited without executing it"},
		{"different setmaxnreg", `
	shr.u32 %r2, %r1, 5;
	setp.ne.u32 %p1, %r2, 0;
	@%p1 bra OTHER;
	setmaxnreg.dec.sync.aligned.u32 40;
	bra.uni DONE;
OTHER:
	setmaxnreg.dec.sync.aligned.u32 40;
DONE:`, 128, "executed the setmaxnreg at pc"},
		{"no synchronisation between two", `
	shr.u32 %r2, %r1, 5;
	setp.eq.u32 %p1, %r2, 0;
	mov.u32 %r3, 0;
	@%p1 bra GO;
SPIN:
	add.u32 %r3, %r3, 1;
	setp.lt.u32 %p2, %r3, 50;
	@%p2 bra SPIN;
GO:
	setmaxnreg.dec.sync.aligned.u32 48;
	setmaxnreg.dec.sync.aligned.u32 40;`, 128, "synchronise after a setmaxnreg"},
		{"divergent warp", `
	and.b32 %r2, %r1, 31;
	setp.lt.u32 %p1, %r2, 16;
	@%p1 setmaxnreg.dec.sync.aligned.u32 40;`, 128, ".aligned needs every thread"},
		{"partial warpgroup", `
	setmaxnreg.dec.sync.aligned.u32 40;`, 96, "executed by all 4 warps of a warpgroup"},
		{"inc that lowers", `
	setmaxnreg.inc.sync.aligned.u32 200;
	bar.sync 0;
	setmaxnreg.inc.sync.aligned.u32 160;`, 128, "only raises it"},
		{"dec that raises", `
	setmaxnreg.dec.sync.aligned.u32 64;
	bar.sync 0;
	setmaxnreg.dec.sync.aligned.u32 80;`, 128, "only lowers it"},
	} {
		for _, sched := range []Scheduling{SchedSIMTStack, SchedIndependent} {
			m := batchLaunch{src: hopperKernel(tc.body), grid: 1, block: tc.block, words: tc.block, sched: sched}.machine(t, false)
			r := m.Run(context.Background())
			if r != StopFault || !strings.Contains(m.Fault().Message, tc.want) {
				t.Errorf("%s (%s): stopped with %v (%v), want a fault containing %q", tc.name, sched, r, m.Fault(), tc.want)
			}
		}
	}
}

// Register counts outside 24..256 or not a multiple of 8, and malformed
// forms, are errors at lowering, at the operand.
func TestSetmaxnregLowering(t *testing.T) {
	for _, tc := range []struct{ form, want string }{
		{"setmaxnreg.inc.sync.aligned.u32 16", "11:34: error[invalid-operand]: setmaxnreg.inc.sync.aligned.u32: register count 16: must be a multiple of 8 from 24 to 256"},
		{"setmaxnreg.dec.sync.aligned.u32 264", "11:34: error[invalid-operand]"},
		{"setmaxnreg.dec.sync.aligned.u32 100", "register count 100: must be a multiple of 8"},
		{"setmaxnreg.dec.sync.aligned.u32 %r1", "the register count must be a constant"},
		{"setmaxnreg.sync.aligned.u32 40", "needs .inc or .dec"},
		{"setmaxnreg.inc.sync.u32 40", "needs .sync.aligned"},
		{"setmaxnreg.inc.sync.aligned.b32 40", "needs .u32"},
		{"griddepcontrol", "needs .launch_dependents or .wait"},
		{"griddepcontrol.wait.launch_dependents", "needs .launch_dependents or .wait"},
		{"griddepcontrol.wait %r1", "expects 0 operands"},
	} {
		src := hopperKernel("\t" + tc.form + ";")
		prog, diags := CompileSource(ptx.NewSource("t.ptx", []byte(src)))
		text := ptx.FormatAll(ptx.NewSource("t.ptx", []byte(src)), diags)
		if prog != nil || !strings.Contains(text, tc.want) {
			t.Errorf("%s: want an error containing %q, got:\n%s", tc.form, tc.want, text)
		}
	}
}
