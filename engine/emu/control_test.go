package emu

import (
	"context"
	"encoding/binary"
	"strings"
	"testing"

	"github.com/ptxplayground/ptxplay/engine/ptx"
)

// ctlKernel compiles src and prepares a launch of kernel "k" whose single
// parameter is a pointer to a zeroed u32 output buffer of n elements.
func ctlKernel(t testing.TB, src string, block, grid [3]int, n int) (*Machine, *Alloc) {
	t.Helper()
	prog, diags := CompileSource(ptx.NewSource("t.ptx", []byte(src)))
	if prog == nil {
		t.Fatalf("compile:\n%s", ptx.FormatAll(ptx.NewSource("t.ptx", []byte(src)), diags))
	}
	m, err := NewMachine(prog, "k", Config{Grid: grid, Block: block})
	if err != nil {
		t.Fatal(err)
	}
	out := m.Global.Alloc("out", 4*n, 256)
	binary.LittleEndian.PutUint64(m.Params(), out.Base)
	return m, out
}

func u32s(a *Alloc) []uint32 {
	out := make([]uint32, len(a.Data)/4)
	for i := range out {
		out[i] = binary.LittleEndian.Uint32(a.Data[4*i:])
	}
	return out
}

const ctlHeader = `.version 8.0
.target sm_80
.address_size 64
`

// Each thread stores a value computed on a divergent path, then every
// thread adds 100 after reconvergence.
func TestDivergenceReconverges(t *testing.T) {
	src := ctlHeader + `
.visible .entry k(.param .u64 out) {
	.reg .u32 %r<4>; .reg .u64 %rd<4>; .reg .pred %p;
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, %tid.x;
	and.b32 %r2, %r1, 1;
	setp.eq.u32 %p, %r2, 0;
	@%p bra EVEN;
	mov.u32 %r3, 1;
	bra.uni JOIN;
EVEN:
	mov.u32 %r3, 2;
JOIN:
	add.u32 %r3, %r3, 100;
	mul.wide.u32 %rd2, %r1, 4;
	add.u64 %rd3, %rd1, %rd2;
	st.global.u32 [%rd3], %r3;
	ret;
}`
	m, out := ctlKernel(t, src, [3]int{32, 1, 1}, [3]int{1, 1, 1}, 32)
	rec := stepRecorder{src: m.prog}
	m.SetObserver(&rec)
	if r := m.Run(context.Background()); r != StopDone {
		t.Fatalf("stop %v fault %v", r, m.Fault())
	}
	for i, v := range u32s(out) {
		want := uint32(101)
		if i%2 == 0 {
			want = 102
		}
		if v != want {
			t.Fatalf("lane %d: got %d want %d", i, v, want)
		}
	}
	if rec.diverge != 1 || rec.reconverge < 1 {
		t.Fatalf("events: %d diverge, %d reconverge", rec.diverge, rec.reconverge)
	}
	// After the join, the add must run once with all 32 lanes.
	if rec.fullAt["add.u32 %r3, %r3, 100;"] != 1 {
		t.Fatalf("post-join add ran %v times with a full mask", rec.fullAt)
	}
}

type stepRecorder struct {
	diverge, reconverge, arrive, release int
	fullAt                               map[string]int
	src                                  *Program
}

func (r *stepRecorder) Step(in *StepInfo) {
	for _, e := range in.Events {
		switch e.Kind {
		case EvDiverge:
			r.diverge++
		case EvReconverge:
			r.reconverge++
		case EvBarrierArrive:
			r.arrive++
		case EvBarrierRelease:
			r.release++
		}
	}
	if r.fullAt == nil {
		r.fullAt = map[string]int{}
	}
	if in.Mask == ^uint32(0) && r.src != nil {
		sp := r.src.Spans[in.PC]
		r.fullAt[string(r.src.Src.Text[sp.Start:sp.End])]++
	}
}

// Collatz: a data-dependent loop where every lane leaves at a different
// iteration; each stores its step count.
func TestDivergentLoop(t *testing.T) {
	src := ctlHeader + `
.visible .entry k(.param .u64 out) {
	.reg .u32 %r<8>; .reg .u64 %rd<4>; .reg .pred %p<3>;
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, %tid.x;
	add.u32 %r2, %r1, 1;      // n
	mov.u32 %r3, 0;           // steps
LOOP:
	setp.le.u32 %p1, %r2, 1;
	@%p1 bra DONE;
	and.b32 %r4, %r2, 1;
	setp.eq.u32 %p2, %r4, 0;
	@%p2 bra HALF;
	mad.lo.u32 %r2, %r2, 3, 1;
	bra.uni NEXT;
HALF:
	shr.u32 %r2, %r2, 1;
NEXT:
	add.u32 %r3, %r3, 1;
	bra.uni LOOP;
DONE:
	mul.wide.u32 %rd2, %r1, 4;
	add.u64 %rd3, %rd1, %rd2;
	st.global.u32 [%rd3], %r3;
	ret;
}`
	m, out := ctlKernel(t, src, [3]int{64, 1, 1}, [3]int{1, 1, 1}, 64)
	if r := m.Run(context.Background()); r != StopDone {
		t.Fatalf("stop %v fault %v", r, m.Fault())
	}
	for i, v := range u32s(out) {
		n, steps := uint32(i+1), uint32(0)
		for n > 1 {
			if n%2 == 0 {
				n /= 2
			} else {
				n = 3*n + 1
			}
			steps++
		}
		if v != steps {
			t.Fatalf("thread %d: got %d steps, want %d", i, v, steps)
		}
	}
	for _, w := range m.warps {
		if len(w.stack) != 0 {
			t.Fatalf("warp %d stack not empty: %v", w.ID, w.stack)
		}
	}
}

// Shared-memory reversal across warps needs the barrier; the observer sees
// one release.
func TestBarrierSharedReverse(t *testing.T) {
	src := ctlHeader + `
.visible .entry k(.param .u64 out) {
	.shared .align 4 .u32 buf[128];
	.reg .u32 %r<8>; .reg .u64 %rd<4>;
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, %tid.x;
	shl.b32 %r2, %r1, 2;
	mov.u32 %r3, buf;
	add.u32 %r4, %r3, %r2;
	st.shared.u32 [%r4], %r1;
	bar.sync 0;
	sub.u32 %r5, 127, %r1;
	shl.b32 %r5, %r5, 2;
	add.u32 %r5, %r3, %r5;
	ld.shared.u32 %r6, [%r5];
	mul.wide.u32 %rd2, %r1, 4;
	add.u64 %rd3, %rd1, %rd2;
	st.global.u32 [%rd3], %r6;
	ret;
}`
	m, out := ctlKernel(t, src, [3]int{128, 1, 1}, [3]int{1, 1, 1}, 128)
	var rec stepRecorder
	m.SetObserver(&rec)
	if r := m.Run(context.Background()); r != StopDone {
		t.Fatalf("stop %v fault %v", r, m.Fault())
	}
	for i, v := range u32s(out) {
		if v != uint32(127-i) {
			t.Fatalf("out[%d] = %d, want %d", i, v, 127-i)
		}
	}
	if rec.arrive != 4 || rec.release != 1 {
		t.Fatalf("arrive %d release %d", rec.arrive, rec.release)
	}
}

// A barrier that only some warps reach deadlocks and names the barrier.
func TestBarrierDeadlock(t *testing.T) {
	src := ctlHeader + `
.visible .entry k(.param .u64 out) {
	.reg .u32 %r<3>; .reg .pred %p;
	mov.u32 %r1, %tid.x;
	setp.lt.u32 %p, %r1, 32;
	@%p bra SKIP;
	bar.sync 1, 64;
SKIP:
	bar.sync 0;
	ret;
}`
	m, _ := ctlKernel(t, src, [3]int{64, 1, 1}, [3]int{1, 1, 1}, 1)
	if r := m.Run(context.Background()); r != StopFault {
		t.Fatalf("stop %v, want fault", r)
	}
	f := m.Fault()
	if f.Kind != FaultDeadlock || !strings.Contains(f.Message, "barrier") {
		t.Fatalf("fault %+v", f)
	}
	// The fault points at the barrier the first waiting warp issued.
	if p := m.prog.Src.Position(m.prog.Spans[f.PC].Start); p.Line != 12 {
		t.Fatalf("deadlock reported at line %d, want 12 (bar.sync 0)", p.Line)
	}
}

// bar.red.popc counts predicates across the CTA.
func TestBarRedPopc(t *testing.T) {
	src := ctlHeader + `
.visible .entry k(.param .u64 out) {
	.reg .u32 %r<4>; .reg .u64 %rd<4>; .reg .pred %p<3>;
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, %tid.x;
	setp.lt.u32 %p1, %r1, 10;
	bar.red.popc.u32 %r2, 0, %p1;
	bar.red.and.pred %p2, 0, %p1;
	selp.u32 %r3, 1, 0, %p2;
	add.u32 %r2, %r2, %r3;
	mul.wide.u32 %rd2, %r1, 4;
	add.u64 %rd3, %rd1, %rd2;
	st.global.u32 [%rd3], %r2;
	ret;
}`
	m, out := ctlKernel(t, src, [3]int{64, 1, 1}, [3]int{1, 1, 1}, 64)
	if r := m.Run(context.Background()); r != StopDone {
		t.Fatalf("stop %v fault %v", r, m.Fault())
	}
	for i, v := range u32s(out) {
		if v != 10 {
			t.Fatalf("out[%d] = %d, want 10", i, v)
		}
	}
}

// A recursive device function (factorial) with the .param ABI.
func TestRecursiveCall(t *testing.T) {
	src := ctlHeader + `
.func (.param .b32 r) fact(.param .b32 n) {
	.reg .u32 %r<5>; .reg .pred %p;
	ld.param.u32 %r1, [n];
	setp.le.u32 %p, %r1, 1;
	@%p bra BASE;
	sub.u32 %r2, %r1, 1;
	{
		.param .b32 a;
		.param .b32 res;
		st.param.b32 [a], %r2;
		call (res), fact, (a);
		ld.param.b32 %r3, [res];
	}
	mul.lo.u32 %r4, %r3, %r1;
	st.param.b32 [r], %r4;
	ret;
BASE:
	st.param.b32 [r], 1;
	ret;
}
.visible .entry k(.param .u64 out) {
	.reg .u32 %r<4>; .reg .u64 %rd<4>;
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, %tid.x;
	add.u32 %r2, %r1, 1;
	{
		.param .b32 a;
		.param .b32 res;
		st.param.b32 [a], %r2;
		call (res), fact, (a);
		ld.param.b32 %r3, [res];
	}
	mul.wide.u32 %rd2, %r1, 4;
	add.u64 %rd3, %rd1, %rd2;
	st.global.u32 [%rd3], %r3;
	ret;
}`
	m, out := ctlKernel(t, src, [3]int{12, 1, 1}, [3]int{1, 1, 1}, 12)
	if r := m.Run(context.Background()); r != StopDone {
		t.Fatalf("stop %v fault %v", r, m.Fault())
	}
	f := uint32(1)
	for i, v := range u32s(out) {
		f *= uint32(i + 1)
		if v != f {
			t.Fatalf("fact(%d) = %d, want %d", i+1, v, f)
		}
	}
}

// Unbounded recursion stops with a call-stack fault, not a crash.
func TestRecursionLimit(t *testing.T) {
	src := ctlHeader + `
.func f() {
	call f;
	ret;
}
.visible .entry k(.param .u64 out) {
	call f;
	ret;
}`
	m, _ := ctlKernel(t, src, [3]int{1, 1, 1}, [3]int{1, 1, 1}, 1)
	if r := m.Run(context.Background()); r != StopFault || m.Fault().Kind != FaultStack {
		t.Fatalf("stop %v fault %v", r, m.Fault())
	}
}

// exit in some lanes; the others continue and store.
func TestPartialExitAndGrid(t *testing.T) {
	src := ctlHeader + `
.visible .entry k(.param .u64 out) {
	.reg .u32 %r<6>; .reg .u64 %rd<4>; .reg .pred %p;
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, %ctaid.x;
	mov.u32 %r3, %ntid.x;
	mad.lo.u32 %r4, %r2, %r3, %r1;
	setp.ge.u32 %p, %r4, 100;
	@%p exit;
	mul.wide.u32 %rd2, %r4, 4;
	add.u64 %rd3, %rd1, %rd2;
	add.u32 %r5, %r4, 7;
	st.global.u32 [%rd3], %r5;
	ret;
}`
	m, out := ctlKernel(t, src, [3]int{48, 1, 1}, [3]int{3, 1, 1}, 144)
	if r := m.Run(context.Background()); r != StopDone {
		t.Fatalf("stop %v fault %v", r, m.Fault())
	}
	for i, v := range u32s(out) {
		want := uint32(i + 7)
		if i >= 100 {
			want = 0
		}
		if v != want {
			t.Fatalf("out[%d] = %d, want %d", i, v, want)
		}
	}
	if m.CTAsFinished() != 3 {
		t.Fatalf("finished %d CTAs", m.CTAsFinished())
	}
}

// Stepping and running give the same schedule; breakpoints stop before
// the instruction and resume past it; the budget stops with StopLimit.
func TestStepBreakpointBudget(t *testing.T) {
	src := ctlHeader + `
.visible .entry k(.param .u64 out) {
	.reg .u32 %r<3>; .reg .u64 %rd<2>;
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, 5;
	add.u32 %r2, %r1, 1;
	st.global.u32 [%rd1], %r2;
	ret;
}`
	m, out := ctlKernel(t, src, [3]int{64, 1, 1}, [3]int{1, 1, 1}, 1)
	if r := m.Step(StepWarpInstruction); r != StopStepped {
		t.Fatal(r)
	}
	if m.warps[0].pc() != m.fn.Entry+1 || m.warps[1].pc() != m.fn.Entry {
		t.Fatalf("after one step: pcs %d %d", m.warps[0].pc(), m.warps[1].pc())
	}
	// A round runs to where the scheduler wraps around: warp 1 only.
	if r := m.Step(StepRound); r != StopStepped {
		t.Fatal(r)
	}
	if m.warps[0].pc() != m.fn.Entry+1 || m.warps[1].pc() != m.fn.Entry+1 {
		t.Fatalf("after a round: pcs %d %d", m.warps[0].pc(), m.warps[1].pc())
	}
	if r := m.Step(StepRound); r != StopStepped || m.warps[0].pc() != m.fn.Entry+2 || m.warps[1].pc() != m.fn.Entry+2 {
		t.Fatalf("after a second round: %v, pcs %d %d", r, m.warps[0].pc(), m.warps[1].pc())
	}
	bp := m.fn.Entry + 3 // the st
	m.SetBreakpoint(bp, true)
	if r := m.Run(context.Background()); r != StopBreakpoint || m.warps[0].pc() != bp {
		t.Fatalf("run: %v at %d", r, m.warps[0].pc())
	}
	if out.Data[0] != 0 {
		t.Fatal("breakpoint let the store run")
	}
	if r := m.Run(context.Background()); r != StopBreakpoint || m.warps[1].pc() != bp {
		t.Fatalf("second warp: %v", r)
	}
	if r := m.Run(context.Background()); r != StopDone || out.Data[0] != 6 {
		t.Fatalf("finish: %v %v", r, out.Data[0])
	}

	m2, _ := ctlKernel(t, src, [3]int{64, 1, 1}, [3]int{1, 1, 1}, 1)
	m2.cfg.MaxWarpInstructions = 3
	if r := m2.Run(context.Background()); r != StopLimit || m2.Stats().WarpInstructions != 3 {
		t.Fatalf("budget: %v %+v", r, m2.Stats())
	}
}

func TestOutOfBoundsFault(t *testing.T) {
	src := ctlHeader + `
.visible .entry k(.param .u64 out) {
	.reg .u32 %r<3>; .reg .u64 %rd<4>;
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, %tid.x;
	mul.wide.u32 %rd2, %r1, 4;
	add.u64 %rd3, %rd1, %rd2;
	st.global.u32 [%rd3], %r1;
	ret;
}`
	m, out := ctlKernel(t, src, [3]int{32, 1, 1}, [3]int{1, 1, 1}, 8)
	if r := m.Run(context.Background()); r != StopFault {
		t.Fatalf("stop %v", r)
	}
	f := m.Fault()
	if f.Kind != FaultOutOfBounds || f.Thread != [3]int{8, 0, 0} || f.Addr != out.Base+32 {
		t.Fatalf("fault %+v", f)
	}
	if p := m.prog.Src.Position(m.prog.Spans[f.PC].Start); p.Line != 11 {
		t.Fatalf("fault at line %d", p.Line)
	}
}

// Lanes leaving a loop one iteration apart do not deepen the stack: a
// divergence reconverging where the current entry already reconverges
// splits that entry in place.
func TestLoopExitStackStaysFlat(t *testing.T) {
	src := ctlHeader + `
.visible .entry k(.param .u64 out) {
	.reg .u32 %r<4>; .reg .u64 %rd<4>; .reg .pred %p;
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, 0;
LOOP:
	setp.gt.u32 %p, %r2, %r1;
	@%p bra EXIT;
	add.u32 %r2, %r2, 1;
	bra.uni LOOP;
EXIT:
	mul.wide.u32 %rd2, %r1, 4;
	add.u64 %rd3, %rd1, %rd2;
	st.global.u32 [%rd3], %r2;
	ret;
}`
	m, out := ctlKernel(t, src, [3]int{32, 1, 1}, [3]int{1, 1, 1}, 32)
	maxDepth := 0
	for !m.Done() {
		if r := m.Step(StepWarpInstruction); r != StopStepped && r != StopDone {
			t.Fatalf("stop %v: %v", r, m.Fault())
		}
		if len(m.warps) > 0 {
			maxDepth = max(maxDepth, len(m.warps[0].stack))
		}
	}
	for i, v := range u32s(out) {
		if v != uint32(i+1) {
			t.Fatalf("out[%d] = %d", i, v)
		}
	}
	if maxDepth > 3 {
		t.Fatalf("stack grew to %d entries", maxDepth)
	}
}

// After the launch completes, the last wave of CTAs stays resident (all
// finished) so that its final registers can be inspected; earlier waves are
// retired.
func TestFinalCTAsStayInspectable(t *testing.T) {
	src := ctlHeader + `
.visible .entry k(.param .u64 out) {
	.reg .u32 %r<3>;
	mov.u32 %r1, %ctaid.x;
	add.u32 %r2, %r1, 40;
	ret;
}`
	m, _ := ctlKernel(t, src, [3]int{32, 1, 1}, [3]int{6, 1, 1}, 1)
	m.cfg.ResidentCTAs = 2
	if r := m.Run(context.Background()); r != StopDone {
		t.Fatalf("stop %v", r)
	}
	ctas := m.CTAs()
	if len(ctas) != 2 || m.CTAsFinished() != 6 {
		t.Fatalf("%d resident, %d finished", len(ctas), m.CTAsFinished())
	}
	for i, c := range ctas {
		if !c.Done() || c.Linear != 4+i {
			t.Fatalf("cta %d: linear %d done %v", i, c.Linear, c.Done())
		}
		w := c.Warps[0]
		if w.State != WarpExited {
			t.Fatalf("warp state %v", w.State)
		}
		slot := -1
		for j, r := range m.prog.Regs {
			if r.Name == "%r2" {
				slot = j
			}
		}
		if got := w.Reg(slot)[5]; got != uint64(c.Linear+40) {
			t.Fatalf("cta %d: %%r2 = %d", c.Linear, got)
		}
	}
	if r := m.Step(StepWarpInstruction); r != StopDone {
		t.Fatalf("step after done: %v", r)
	}
}

// A panic inside an instruction's implementation becomes an internal-error
// fault at that instruction instead of crashing the caller.
func TestInternalErrorIsAFault(t *testing.T) {
	src := ctlHeader + `
.visible .entry k(.param .u64 out) {
	.reg .u32 %r<3>;
	mov.u32 %r1, 1;
	trap;
	ret;
}`
	m, _ := ctlKernel(t, src, [3]int{32, 1, 1}, [3]int{1, 1, 1}, 1)
	prog := *m.prog
	prog.Ops = append([]Op(nil), m.prog.Ops...)
	prog.Ops[m.fn.Entry+1].Exec = func(w *Warp, op *Op, mask uint32) *Fault { panic("boom") }
	m.prog = &prog
	if r := m.Run(context.Background()); r != StopFault {
		t.Fatalf("stop %v", r)
	}
	f := m.Fault()
	if f.Kind != FaultInternal || f.PC != m.fn.Entry+1 || !strings.Contains(f.Message, "boom") {
		t.Fatalf("fault %+v", f)
	}
	if r := m.Step(StepWarpInstruction); r != StopFault {
		t.Fatalf("after the fault: %v", r)
	}
}
