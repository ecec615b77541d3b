package emu

import (
	"context"
	"strings"
	"testing"

	"github.com/ptxplayground/ptxplay/engine/isa"
)

// The spin lock inside a device function that every lane calls: the
// lanes diverge inside the call, where the groups are scheduled, so it
// completes under independent scheduling and livelocks under the SIMT
// stack, as at the kernel's top level.
func TestSpinLockInFunction(t *testing.T) {
	src := ctlHeader + `
.func lock_inc(.param .u64 lk) {
	.reg .u32 %r<4>; .reg .u64 %rd<3>; .reg .pred %p;
	ld.param.u64 %rd1, [lk];
	add.u64 %rd2, %rd1, 4;
LOCK:
	atom.global.cas.b32 %r1, [%rd1], 0, 1;
	setp.ne.u32 %p, %r1, 0;
	@%p bra LOCK;
	ld.volatile.global.u32 %r2, [%rd2];
	add.u32 %r2, %r2, 1;
	st.volatile.global.u32 [%rd2], %r2;
	atom.global.exch.b32 %r3, [%rd1], 0;
	ret;
}
.visible .entry k(.param .u64 out) {
	.reg .u64 %rd1;
	ld.param.u64 %rd1, [out];
	{
	.param .u64 a;
	st.param.u64 [a], %rd1;
	call lock_inc, (a);
	}
	ret;
}
`
	m, out := schedKernel(t, src, SchedIndependent, [3]int{32, 1, 1}, [3]int{1, 1, 1}, 2, 1_000_000)
	if r := m.Run(context.Background()); r != StopDone {
		t.Fatalf("independent: %v %v", r, m.Fault())
	}
	if got := u32s(out); got[0] != 0 || got[1] != 32 {
		t.Fatalf("independent: lock %d counter %d, want 0 and 32", got[0], got[1])
	}
	m, out = schedKernel(t, src, SchedSIMTStack, [3]int{32, 1, 1}, [3]int{1, 1, 1}, 2, 50_000)
	if r := m.Run(context.Background()); r != StopLimit {
		t.Fatalf("simt-stack: %v, want the budget", r)
	}
	if got := u32s(out); got[0] != 1 || got[1] != 0 {
		t.Fatalf("simt-stack: lock %d counter %d", got[0], got[1])
	}
}

// A call from one side of a divergent branch: the lanes in the call and
// the lanes outside it both finish with their own results, in both models.
func TestDivergentCallSite(t *testing.T) {
	src := ctlHeader + `
.func (.param .u32 r) twice_plus(.param .u32 x) {
	.reg .u32 %r<3>; .reg .pred %p;
	ld.param.u32 %r1, [x];
	setp.lt.u32 %p, %r1, 8;        // diverges inside the call too
	@%p bra SMALL;
	mul.lo.u32 %r2, %r1, 2;
	bra.uni DONE;
SMALL:
	add.u32 %r2, %r1, 1000;
DONE:
	st.param.u32 [r], %r2;
	ret;
}
.visible .entry k(.param .u64 out) {
	.reg .u32 %r<4>; .reg .u64 %rd<4>; .reg .pred %p;
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, %tid.x;
	mul.wide.u32 %rd2, %r1, 4;
	add.u64 %rd3, %rd1, %rd2;
	setp.lt.u32 %p, %r1, 16;
	@!%p bra OUTSIDE;
	{
	.param .u32 a;
	.param .u32 b;
	st.param.u32 [a], %r1;
	call (b), twice_plus, (a);
	ld.param.u32 %r2, [b];
	}
	bra.uni JOIN;
OUTSIDE:
	mul.lo.u32 %r2, %r1, 3;
JOIN:
	st.global.u32 [%rd3], %r2;
	ret;
}
`
	for _, sched := range []Scheduling{SchedIndependent, SchedSIMTStack} {
		m, out := schedKernel(t, src, sched, [3]int{32, 1, 1}, [3]int{1, 1, 1}, 32, 100_000)
		if r := m.Run(context.Background()); r != StopDone {
			t.Fatalf("%s: %v %v", sched, r, m.Fault())
		}
		got := u32s(out)
		for i, v := range got {
			want := uint32(3 * i)
			switch {
			case i < 8:
				want = uint32(i + 1000)
			case i < 16:
				want = uint32(2 * i)
			}
			if v != want {
				t.Errorf("%s: out[%d] = %d, want %d", sched, i, v, want)
			}
		}
	}
}

// Consumers spinning inside a device function on a flag that the producer
// lane sets outside the call, in the caller. Under independent scheduling
// the caller's groups outside the call take turns with the groups inside
// it, so the producer sets the flag and every consumer returns what it
// saw; under the SIMT stack the consumers (the branch target) run first and
// spin until the budget.
func TestSpinInCallWaitingForCaller(t *testing.T) {
	src := ctlHeader + `
.func (.param .u32 seen) wait_flag(.param .u64 f) {
	.reg .u32 %r1; .reg .u64 %rd1; .reg .pred %p;
	ld.param.u64 %rd1, [f];
SPIN:
	ld.volatile.global.u32 %r1, [%rd1];
	setp.eq.u32 %p, %r1, 0;
	@%p bra SPIN;
	st.param.u32 [seen], %r1;
	ret;
}
.visible .entry k(.param .u64 out) {
	.reg .u32 %r<4>; .reg .u64 %rd<4>; .reg .pred %p;
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, %tid.x;
	mul.wide.u32 %rd2, %r1, 4;
	add.u64 %rd3, %rd1, %rd2;
	setp.ne.u32 %p, %r1, 31;
	@%p bra CONSUME;
	mov.u32 %r2, 0;                    // lane 31 works a little, then produces
WORK:
	add.u32 %r2, %r2, 1;
	setp.lt.u32 %p, %r2, 10;
	@%p bra WORK;
	st.volatile.global.u32 [%rd1], 7;
	mov.u32 %r3, 99;
	bra.uni JOIN;
CONSUME:
	{
	.param .u64 a;
	.param .u32 b;
	st.param.u64 [a], %rd1;
	call (b), wait_flag, (a);
	ld.param.u32 %r3, [b];
	}
JOIN:
	st.global.u32 [%rd3+4], %r3;
	ret;
}
`
	m, out := schedKernel(t, src, SchedIndependent, [3]int{32, 1, 1}, [3]int{1, 1, 1}, 33, 100_000)
	if r := m.Run(context.Background()); r != StopDone {
		t.Fatalf("independent: %v %v", r, m.Fault())
	}
	got := u32s(out)
	for l := 0; l < 32; l++ {
		want := uint32(7)
		if l == 31 {
			want = 99
		}
		if got[1+l] != want {
			t.Errorf("independent: lane %d returned %d, want %d", l, got[1+l], want)
		}
	}
	m, out = schedKernel(t, src, SchedSIMTStack, [3]int{32, 1, 1}, [3]int{1, 1, 1}, 33, 20_000)
	if r := m.Run(context.Background()); r != StopLimit || u32s(out)[0] != 0 {
		t.Errorf("simt-stack: %v %v, flag %d: want the budget with the flag unset", r, m.Fault(), u32s(out)[0])
	}
	checkReplay(t, src, SchedIndependent, [3]int{32, 1, 1}, [3]int{1, 1, 1}, 33)
}

// afterLockSrc: every lane takes a spin lock (which leaves the warp split
// into groups that only meet at exit under independent scheduling), then
// executes elect.sync and the .aligned movmatrix. out[0..1] lock and
// counter, out[2] the number of leaders, out[32+t] the leader t saw,
// out[64+t] t's movmatrix result.
const afterLockSrc = ctlHeader + `
.visible .entry k(.param .u64 out) {
	.reg .u32 %r<10>; .reg .u64 %rd<8>; .reg .pred %p<3>; .reg .b32 %x<2>;
	ld.param.u64 %rd1, [out];
	add.u64 %rd2, %rd1, 4;
	mov.u32 %r8, %tid.x;
LOCK:
	atom.global.cas.b32 %r1, [%rd1], 0, 1;
	setp.ne.u32 %p1, %r1, 0;
	@%p1 bra LOCK;
	ld.volatile.global.u32 %r2, [%rd2];
	add.u32 %r2, %r2, 1;
	st.volatile.global.u32 [%rd2], %r2;
	atom.global.exch.b32 %r3, [%rd1], 0;
AFTER:
	elect.sync %r5|%p2, 0xffffffff;
	@%p2 red.global.add.u32 [%rd1+8], 1;
	mul.lo.u32 %x0, %r8, 0x10001;
	add.u32 %x0, %x0, 0x80000;
	movmatrix.sync.aligned.m8n8.trans.b16 %x1, %x0;
	mul.wide.u32 %rd3, %r8, 4;
	add.u64 %rd4, %rd1, %rd3;
	st.global.u32 [%rd4+128], %r5;
	st.global.u32 [%rd4+256], %x1;
	ret;
}
`

// elect.sync and the .aligned warp collectives wait for their lanes under
// independent scheduling: after a spin lock the lanes reach them as
// separate groups, which execute them together, once (one leader, one
// transpose), with the same results as a warp that never diverged.
func TestSyncAfterSpinLock(t *testing.T) {
	ref := strings.Replace(afterLockSrc, "LOCK:", "bra.uni AFTER;\nLOCK:", 1)
	mr, outRef := schedKernel(t, ref, SchedIndependent, [3]int{32, 1, 1}, [3]int{1, 1, 1}, 96, 100_000)
	if r := mr.Run(context.Background()); r != StopDone {
		t.Fatalf("reference: %v %v", r, mr.Fault())
	}
	m, out := schedKernel(t, afterLockSrc, SchedIndependent, [3]int{32, 1, 1}, [3]int{1, 1, 1}, 96, 1_000_000)
	waited := map[isa.Opcode]bool{}
	for {
		r := m.Step(StepWarpInstruction)
		if r == StopDone {
			break
		}
		if r != StopStepped {
			t.Fatalf("%v %v", r, m.Fault())
		}
		w := m.Warps()[0]
		for _, g := range w.Groups() {
			if g.State == GroupSyncWait {
				waited[m.prog.Ops[g.PC].Code] = true
			}
		}
	}
	if !waited[isa.OpElect] || !waited[isa.OpMovmatrix] {
		t.Errorf("groups waited at %v: want elect and movmatrix (the lanes must reach them diverged)", waited)
	}
	got, want := u32s(out), u32s(outRef)
	if got[0] != 0 || got[1] != 32 {
		t.Errorf("lock %d counter %d", got[0], got[1])
	}
	if got[2] != 1 || want[2] != 1 {
		t.Errorf("%d leaders (reference %d), want 1", got[2], want[2])
	}
	for i := 32; i < 96; i++ {
		if got[i] != want[i] {
			t.Errorf("out[%d] = %#x, want %#x as without the lock", i, got[i], want[i])
		}
	}
}

// A divergent execution of an .aligned collective (a movmatrix on each
// side of an if/else) is undefined: under independent scheduling each
// side waits for the other, which waits at another instruction, and the
// launch stops with a divergent-aligned fault naming the lanes and where
// they are. The SIMT stack keeps its rule (the lanes of the other path do
// not execute it).
func TestAlignedDivergentFault(t *testing.T) {
	src := ctlHeader + `
.visible .entry k(.param .u64 out) {
	.reg .u32 %r<3>; .reg .pred %p; .reg .b32 %x<2>;
	mov.u32 %r1, %tid.x;
	mov.u32 %x0, %r1;
	setp.lt.u32 %p, %r1, 16;
	@%p bra LOW;
	movmatrix.sync.aligned.m8n8.trans.b16 %x1, %x0;
	bra.uni JOIN;
LOW:
	movmatrix.sync.aligned.m8n8.trans.b16 %x1, %x0;
JOIN:
	ret;
}
`
	m, _ := schedKernel(t, src, SchedIndependent, [3]int{32, 1, 1}, [3]int{1, 1, 1}, 1, 10_000)
	if r := m.Run(context.Background()); r != StopFault {
		t.Fatalf("independent: %v, want a fault", r)
	}
	f := m.Fault()
	if f.Kind != FaultDivergentAligned || f.PC != 4 && f.PC != 6 {
		t.Fatalf("independent: fault %+v", f)
	}
	other := "lane(s) 16-31 are elsewhere (lane(s) 16-31 at pc 4 (sync))"
	if f.PC == 4 {
		other = "lane(s) 0-15 are elsewhere (lane(s) 0-15 at pc 6 (sync))"
	}
	if !strings.Contains(f.Message, other) || !strings.Contains(f.Message, "undefined") {
		t.Errorf("independent: message %q, want %q", f.Message, other)
	}
	m, _ = schedKernel(t, src, SchedSIMTStack, [3]int{32, 1, 1}, [3]int{1, 1, 1}, 1, 10_000)
	if r := m.Run(context.Background()); r != StopFault || m.Fault().Kind != FaultInvalidMember || !strings.Contains(m.Fault().Message, "do not") {
		t.Fatalf("simt-stack: %v %+v", r, m.Fault())
	}
}

// elect.sync waits for its membermask: an elect on each side of an
// if/else with the full mask can never complete (the two halves wait at
// different instructions) and faults naming the lanes; with a membermask
// of its own side's lanes each side elects its lowest lane.
func TestElectWaitsForMembermask(t *testing.T) {
	src := func(lo, hi string) string {
		return ctlHeader + `
.visible .entry k(.param .u64 out) {
	.reg .u32 %r<4>; .reg .u64 %rd<4>; .reg .pred %p<2>;
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, %tid.x;
	mul.wide.u32 %rd2, %r1, 4;
	add.u64 %rd3, %rd1, %rd2;
	setp.lt.u32 %p0, %r1, 16;
	@%p0 bra LOW;
	elect.sync %r2|%p1, ` + hi + `;
	bra.uni JOIN;
LOW:
	elect.sync %r2|%p1, ` + lo + `;
JOIN:
	st.global.u32 [%rd3], %r2;
	ret;
}
`
	}
	m, out := schedKernel(t, src("0x0000ffff", "0xffff0000"), SchedIndependent, [3]int{32, 1, 1}, [3]int{1, 1, 1}, 32, 10_000)
	if r := m.Run(context.Background()); r != StopDone {
		t.Fatalf("own masks: %v %v", r, m.Fault())
	}
	for i, v := range u32s(out) {
		if want := uint32(i / 16 * 16); v != want {
			t.Errorf("own masks: lane %d elected %d, want %d", i, v, want)
		}
	}
	m, _ = schedKernel(t, src("0xffffffff", "0xffffffff"), SchedIndependent, [3]int{32, 1, 1}, [3]int{1, 1, 1}, 32, 10_000)
	if r := m.Run(context.Background()); r != StopFault {
		t.Fatalf("full masks: %v, want a fault", r)
	}
	if f := m.Fault(); f.Kind != FaultInvalidMember || !strings.Contains(f.Message, "can never arrive") || !strings.Contains(f.Message, "(sync)") {
		t.Errorf("full masks: fault %+v", f)
	}
}

// The diverged threads of a warp that wait at barriers must wait at the
// same one: different barrier ids or thread counts on the two paths are a
// barrier-mismatch fault naming both (independent scheduling).
func TestBarrierMismatch(t *testing.T) {
	src := func(lo, hi string) string {
		return ctlHeader + `
.visible .entry k(.param .u64 out) {
	.reg .u32 %r<4>; .reg .pred %p;
	mov.u32 %r1, %tid.x;
	and.b32 %r2, %r1, 1;
	setp.lt.u32 %p, %r1, 16;
	@%p bra LOW;
	` + hi + `;
	bra.uni JOIN;
LOW:
	` + lo + `;
JOIN:
	ret;
}
`
	}
	for _, c := range []struct{ lo, hi, msg string }{
		{"bar.sync 0", "bar.sync 0", ""},
		{"bar.sync 0", "barrier.sync 0", ""},
		{"bar.sync 0, 64", "bar.sync 0, 64", ""},
		{"bar.sync 0", "bar.sync 1", "lane(s) 0-15 at pc 6 (barrier 0), lane(s) 16-31 at pc 4 (barrier 1)"},
		{"bar.sync 0, 64", "bar.sync 0", "(barrier 0 with thread count 64)"},
		{"bar.sync %r2", "bar.sync %r2", "name a different barrier id or thread count"},
	} {
		m, _ := schedKernel(t, src(c.lo, c.hi), SchedIndependent, [3]int{64, 1, 1}, [3]int{1, 1, 1}, 1, 10_000)
		r := m.Run(context.Background())
		if c.msg == "" {
			if r != StopDone {
				t.Errorf("%s | %s: %v %v", c.lo, c.hi, r, m.Fault())
			}
			continue
		}
		f := m.Fault()
		if r != StopFault || f.Kind != FaultBarrierMismatch || !strings.Contains(f.Message, c.msg) || f.Warp != 0 {
			t.Errorf("%s | %s: %v %+v, want barrier-mismatch %q", c.lo, c.hi, r, f, c.msg)
		}
	}
}

// Paths of one warp reach two different bar.sync instructions hundreds of
// instructions apart (one path loops 300 times first, longer than lanes
// wait to reconverge): the early path waits at its barrier for the late
// one, the warp arrives once, and the other warp's data written before the
// barrier is what every thread reads after it.
func TestBarrierDifferentInstructionsLate(t *testing.T) {
	src := ctlHeader + `
.visible .entry k(.param .u64 out) {
	.reg .u32 %r<8>; .reg .u64 %rd<8>; .reg .pred %p<3>;
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, %tid.x;
	mul.wide.u32 %rd2, %r1, 4;
	add.u64 %rd3, %rd1, %rd2;         // &out[tid]
	xor.b32 %r2, %r1, 32;
	mul.wide.u32 %rd4, %r2, 4;
	add.u64 %rd4, %rd1, %rd4;         // &out[tid^32]
	add.u32 %r3, %r1, 500;
	and.b32 %r4, %r1, 1;
	setp.eq.u32 %p1, %r4, 0;
	@%p1 bra EVEN;
	mov.u32 %r5, 0;
SLOW:
	add.u32 %r5, %r5, 1;
	setp.lt.u32 %p2, %r5, 300;
	@%p2 bra SLOW;
	st.global.u32 [%rd3], %r3;
	bar.sync 0;
	ld.global.u32 %r6, [%rd4];
	bra.uni JOIN;
EVEN:
	st.global.u32 [%rd3], %r3;
	bar.sync 0;
	ld.global.u32 %r6, [%rd4];
JOIN:
	st.global.u32 [%rd3+256], %r6;
	ret;
}
`
	for _, sched := range []Scheduling{SchedIndependent, SchedSIMTStack} {
		m, out := schedKernel(t, src, sched, [3]int{64, 1, 1}, [3]int{1, 1, 1}, 128, 100_000)
		log := &eventLog{}
		m.SetObserver(log)
		if r := m.Run(context.Background()); r != StopDone {
			t.Fatalf("%s: %v %v", sched, r, m.Fault())
		}
		got := u32s(out)
		for tid := 0; tid < 64; tid++ {
			if want := uint32(tid^32) + 500; got[64+tid] != want && sched == SchedIndependent {
				t.Errorf("%s: thread %d read %d, want %d", sched, tid, got[64+tid], want)
			}
		}
		if sched == SchedIndependent {
			if arrive := log.of(EvBarrierArrive); len(arrive) != 2 {
				t.Errorf("%d barrier arrivals, want one per warp", len(arrive))
			}
		}
	}
}
