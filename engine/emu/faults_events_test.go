package emu

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// lineOf returns the source line of pc.
func lineOf(m *Machine, pc int) int {
	return m.prog.Src.Position(m.prog.Spans[pc].Start).Line
}

// eventLog records every event with the warp that reported it.
type eventLog struct {
	evs   []Event
	warps []int
}

func (r *eventLog) Step(in *StepInfo) {
	for _, e := range in.Events {
		r.evs = append(r.evs, e)
		r.warps = append(r.warps, in.Warp)
	}
}

func (r *eventLog) of(k EventKind) []Event {
	var out []Event
	for _, e := range r.evs {
		if e.Kind == k {
			out = append(out, e)
		}
	}
	return out
}

// Warp 0 reaches bar.sync on a divergent path (its even lanes) while warp
// 1 has exited, so the barrier can never complete. After the deadlock the
// warp still reports the barrier's pc and the lanes that executed it, it
// stays in WarpWaiting, and the fault names every stuck lane: under the
// SIMT stack the odd lanes wait at JOIN, so all 32; under independent
// scheduling the even lanes wait at the barrier for the odd ones, which go
// on and exit, so the warp arrives with the even lanes alone.
func TestDeadlockKeepsBarrierPC(t *testing.T) {
	src := ctlHeader + `
.visible .entry k(.param .u64 out) {
	.reg .u32 %r<3>; .reg .pred %p<3>;
	mov.u32 %r1, %tid.x;
	setp.ge.u32 %p1, %r1, 32;
	@%p1 exit;
	and.b32 %r2, %r1, 1;
	setp.eq.u32 %p2, %r2, 0;
	@%p2 bra EVEN;
	bra.uni JOIN;
EVEN:
	bar.sync 0, 64;
JOIN:
	ret;
}`
	for _, c := range []struct {
		sched   Scheduling
		observe bool
	}{{SchedSIMTStack, false}, {SchedSIMTStack, true}, {SchedIndependent, false}, {SchedIndependent, true}} {
		observe := c.observe
		stuck := ^uint32(0)
		if c.sched == SchedIndependent {
			stuck = 0x55555555
		}
		m, _ := schedKernel(t, src, c.sched, [3]int{64, 1, 1}, [3]int{1, 1, 1}, 1, 0)
		if observe {
			m.SetObserver(&eventLog{})
		}
		if r := m.Run(context.Background()); r != StopFault {
			t.Fatalf("stop %v, want fault", r)
		}
		f := m.Fault()
		if f.Kind != FaultDeadlock || lineOf(m, f.PC) != 15 {
			t.Fatalf("fault %+v at line %d, want a deadlock at line 15", f, lineOf(m, f.PC))
		}
		if f.Warp != 0 || f.Lane != 0 || f.Thread != [3]int{0, 0, 0} || f.Lanes != stuck {
			t.Fatalf("%s: fault names warp %d lane %d thread %v lanes %08x", c.sched, f.Warp, f.Lane, f.Thread, f.Lanes)
		}
		want := []BarrierWarp{{CTA: [3]int{}, Warp: 0, Barrier: 0, PC: f.PC, Lanes: stuck}}
		if !slices.Equal(f.Waiting, want) {
			t.Fatalf("waiting %+v, want %+v", f.Waiting, want)
		}
		w := m.CTAs()[0].Warps[0]
		if w.State != WarpWaiting || w.PC() != f.PC || lineOf(m, w.PC()) != 15 || w.Barrier() != 0 {
			t.Fatalf("warp 0: state %v pc %d (line %d) barrier %d", w.State, w.PC(), lineOf(m, w.PC()), w.Barrier())
		}
		if w.Active() != 0x55555555 {
			t.Fatalf("warp 0 active %08x, want the even lanes that executed bar.sync", w.Active())
		}
		if w1 := m.CTAs()[0].Warps[1]; w1.State != WarpExited {
			t.Fatalf("warp 1: %v", w1.State)
		}
		// The state survives a snapshot.
		s := m.Snapshot(false)
		m.Restore(s)
		if w := m.CTAs()[0].Warps[0]; w.PC() != f.PC || w.Active() != 0x55555555 || w.State != WarpWaiting {
			t.Fatalf("after restore: pc %d active %08x state %v", w.PC(), w.Active(), w.State)
		}
	}
}

// Several warps wait, one with exited lanes: every waiting warp is listed
// with its live lanes, and each reports its barrier.
func TestDeadlockNamesEveryStuckLane(t *testing.T) {
	src := ctlHeader + `
.visible .entry k(.param .u64 out) {
	.reg .u32 %r<3>; .reg .pred %p<3>;
	mov.u32 %r1, %tid.x;
	setp.ge.u32 %p1, %r1, 48;
	@%p1 exit;
	bar.sync 0, 96;
	ret;
}`
	m, _ := ctlKernel(t, src, [3]int{96, 1, 1}, [3]int{1, 1, 1}, 1)
	if r := m.Run(context.Background()); r != StopFault {
		t.Fatalf("stop %v", r)
	}
	f := m.Fault()
	bar := m.fn.Entry + 3
	want := []BarrierWarp{
		{Warp: 0, Barrier: 0, PC: bar, Lanes: ^uint32(0)},
		{Warp: 1, Barrier: 0, PC: bar, Lanes: 0x0000ffff},
	}
	if f.Kind != FaultDeadlock || f.PC != bar || !slices.Equal(f.Waiting, want) || f.Lanes != ^uint32(0) {
		t.Fatalf("fault %+v", f)
	}
	if !strings.Contains(f.Message, "barrier 0 has 48 of 96 threads (warps 0,1 waiting)") {
		t.Fatalf("message %q", f.Message)
	}
	for i, w := range m.CTAs()[0].Warps[:2] {
		if w.State != WarpWaiting || w.PC() != bar {
			t.Fatalf("warp %d: %v at %d", i, w.State, w.PC())
		}
	}
}

// A waiting warp reports the barrier's pc before any deadlock too, and the
// next pc once released.
func TestWaitingWarpReportsBarrier(t *testing.T) {
	src := ctlHeader + `
.visible .entry k(.param .u64 out) {
	.reg .u32 %r<3>;
	mov.u32 %r1, %tid.x;
	bar.sync 0;
	add.u32 %r2, %r1, 1;
	ret;
}`
	m, _ := ctlKernel(t, src, [3]int{64, 1, 1}, [3]int{1, 1, 1}, 1)
	bar := m.fn.Entry + 1
	m.Step(StepWarpInstruction) // warp 0: mov
	m.Step(StepWarpInstruction) // warp 1: mov
	m.Step(StepWarpInstruction) // warp 0: bar.sync, waits
	w0 := m.CTAs()[0].Warps[0]
	if w0.State != WarpWaiting || w0.PC() != bar || w0.Active() != ^uint32(0) {
		t.Fatalf("waiting warp: %v pc %d active %08x", w0.State, w0.PC(), w0.Active())
	}
	m.Step(StepWarpInstruction) // warp 1: bar.sync, releases both
	if w0.State != WarpReady || w0.PC() != bar+1 {
		t.Fatalf("released warp: %v pc %d", w0.State, w0.PC())
	}
}

// Barrier events carry the lanes that arrived and were released.
func TestBarrierEventMasks(t *testing.T) {
	src := ctlHeader + `
.visible .entry k(.param .u64 out) {
	.reg .u32 %r<3>; .reg .pred %p<3>;
	mov.u32 %r1, %tid.x;
	setp.ge.u32 %p1, %r1, 40;
	@%p1 exit;
	bar.sync 0;
	ret;
}`
	m, _ := ctlKernel(t, src, [3]int{64, 1, 1}, [3]int{1, 1, 1}, 1)
	var log eventLog
	m.SetObserver(&log)
	if r := m.Run(context.Background()); r != StopDone {
		t.Fatalf("stop %v %v", r, m.Fault())
	}
	arr := log.of(EvBarrierArrive)
	if len(arr) != 2 || arr[0].Mask != ^uint32(0) || arr[1].Mask != 0xff || arr[0].Count != 32 || arr[1].Count != 40 || arr[1].Expected != 40 {
		t.Fatalf("arrivals %+v", arr)
	}
	rel := log.of(EvBarrierRelease)
	want := []BarrierWarp{{Warp: 0, PC: m.fn.Entry + 3, Lanes: ^uint32(0)}, {Warp: 1, PC: m.fn.Entry + 3, Lanes: 0xff}}
	if len(rel) != 1 || rel[0].Mask != 0xff || rel[0].Count != 40 || rel[0].Expected != 40 || !slices.Equal(rel[0].Warps, want) {
		t.Fatalf("release %+v", rel)
	}
	exits := log.of(EvExit)
	var exited uint32
	for _, e := range exits {
		if e.Mask == 0 {
			t.Fatalf("exit event without lanes: %+v", exits)
		}
		exited += uint32(popc(e.Mask))
	}
	if exited != 64 {
		t.Fatalf("%d lanes exited in events %+v", exited, exits)
	}
	for _, e := range log.evs {
		if e.Mask == 0 {
			t.Fatalf("%v event without lanes: %+v", e.Kind, e)
		}
	}
}

func popc(m uint32) int {
	n := 0
	for ; m != 0; m &= m - 1 {
		n++
	}
	return n
}

// reconvergences runs src on one warp and returns its reconverge events
// (as "line:mask") and its diverge events (as "line:taken/other").
func reconvergences(t *testing.T, src string) (rec, div []string) {
	t.Helper()
	m, _ := ctlKernel(t, src, [3]int{32, 1, 1}, [3]int{1, 1, 1}, 32)
	var log eventLog
	m.SetObserver(&log)
	if r := m.Run(context.Background()); r != StopDone {
		t.Fatalf("stop %v %v", r, m.Fault())
	}
	for _, e := range log.evs {
		switch e.Kind {
		case EvReconverge:
			rec = append(rec, fmt.Sprintf("%d:%08x", lineOf(m, e.PC), e.Mask))
		case EvDiverge:
			div = append(div, fmt.Sprintf("%d:%08x/%08x", lineOf(m, e.PC), e.Mask, e.Other))
		}
	}
	return rec, div
}

// Reconvergence is reported once per divergent region, when the last path
// arrives, with the merged lanes.
func TestReconvergeWhenMerged(t *testing.T) {
	ifElse := ctlHeader + `
.visible .entry k(.param .u64 out) {
	.reg .u32 %r<4>; .reg .pred %p;
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
	ret;
}`
	rec, div := reconvergences(t, ifElse)
	if !slices.Equal(rec, []string{"16:ffffffff"}) || !slices.Equal(div, []string{"10:55555555/aaaaaaaa"}) {
		t.Fatalf("if/else: reconverge %v diverge %v", rec, div)
	}

	// A branch to its own reconvergence point (if without else): the
	// taken lanes arrive at once, the others later.
	ifThen := ctlHeader + `
.visible .entry k(.param .u64 out) {
	.reg .u32 %r<4>; .reg .pred %p;
	mov.u32 %r1, %tid.x;
	setp.lt.u32 %p, %r1, 10;
	@%p bra SKIP;
	add.u32 %r1, %r1, 7;
SKIP:
	ret;
}`
	rec, div = reconvergences(t, ifThen)
	if !slices.Equal(rec, []string{"12:ffffffff"}) || !slices.Equal(div, []string{"9:000003ff/fffffc00"}) {
		t.Fatalf("if/then: reconverge %v diverge %v", rec, div)
	}

	// Nested: the inner region merges the low half, then the outer region
	// merges everything.
	nested := ctlHeader + `
.visible .entry k(.param .u64 out) {
	.reg .u32 %r<4>; .reg .pred %p<3>;
	mov.u32 %r1, %tid.x;
	setp.ge.u32 %p1, %r1, 16;
	@%p1 bra HIGH;
	and.b32 %r2, %r1, 1;
	setp.eq.u32 %p2, %r2, 0;
	@%p2 bra EVEN;
	mov.u32 %r3, 1;
	bra.uni INNER;
EVEN:
	mov.u32 %r3, 2;
INNER:
	add.u32 %r3, %r3, 10;
	bra.uni OUTER;
HIGH:
	mov.u32 %r3, 3;
OUTER:
	add.u32 %r3, %r3, 100;
	ret;
}`
	rec, div = reconvergences(t, nested)
	if !slices.Equal(rec, []string{"18:0000ffff", "23:ffffffff"}) || len(div) != 2 {
		t.Fatalf("nested: reconverge %v diverge %v", rec, div)
	}

	// A loop whose lanes break out one iteration apart: the stack stays
	// flat and the warp reconverges once, after the last lane left.
	loop := ctlHeader + `
.visible .entry k(.param .u64 out) {
	.reg .u32 %r<4>; .reg .pred %p;
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, 0;
LOOP:
	setp.gt.u32 %p, %r2, %r1;
	@%p bra EXIT;
	add.u32 %r2, %r2, 1;
	bra.uni LOOP;
EXIT:
	add.u32 %r3, %r2, 1;
	ret;
}`
	rec, div = reconvergences(t, loop)
	if !slices.Equal(rec, []string{"15:ffffffff"}) || len(div) != 31 {
		t.Fatalf("loop: reconverge %v, %d diverges", rec, len(div))
	}

	// A path that may exit makes the paths meet only at exit: the warp
	// never reconverges.
	apart := ctlHeader + `
.visible .entry k(.param .u64 out) {
	.reg .u32 %r<4>; .reg .pred %p;
	mov.u32 %r1, %tid.x;
	setp.lt.u32 %p, %r1, 4;
	@%p bra OUT;
	add.u32 %r1, %r1, 7;
	bra.uni JOIN;
OUT:
	@%p exit;
JOIN:
	ret;
}`
	if rec, _ = reconvergences(t, apart); len(rec) != 0 {
		t.Fatalf("paths apart: reconverge %v", rec)
	}
}

// Calls report their lanes; a call whose lanes all exit in the callee
// reports no return.
func TestCallEventMasks(t *testing.T) {
	src := ctlHeader + `
.func f(.reg .u32 x) {
	.reg .pred %q;
	setp.lt.u32 %q, x, 8;
	@%q exit;
	ret;
}
.func g() {
	exit;
}
.visible .entry k(.param .u64 out) {
	.reg .u32 %r<3>; .reg .pred %p;
	mov.u32 %r1, %tid.x;
	setp.lt.u32 %p, %r1, 16;
	@%p call f, (%r1);
	@%p call g;
	ret;
}`
	m, _ := ctlKernel(t, src, [3]int{32, 1, 1}, [3]int{1, 1, 1}, 1)
	var log eventLog
	m.SetObserver(&log)
	if r := m.Run(context.Background()); r != StopDone {
		t.Fatalf("stop %v %v", r, m.Fault())
	}
	calls, rets := log.of(EvCall), log.of(EvReturn)
	if len(calls) != 2 || calls[0].Mask != 0xffff || calls[1].Mask != 0xff00 {
		t.Fatalf("calls %+v", calls)
	}
	if len(rets) != 1 || rets[0].Mask != 0xff00 {
		t.Fatalf("returns %+v", rets)
	}
}

// A memory fault names every lane whose access faults.
func TestMemoryFaultLanes(t *testing.T) {
	// 32 lanes store to a buffer of 8 words: lanes 8-31 are out of bounds.
	scalar := ctlHeader + `
.visible .entry k(.param .u64 out) {
	.reg .u32 %r<3>; .reg .u64 %rd<4>;
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, %tid.x;
	mul.wide.u32 %rd2, %r1, 4;
	add.u64 %rd3, %rd1, %rd2;
	st.global.u32 [%rd3], %r1;
	ret;
}`
	// v2 stores 4 bytes apart to 16 words: odd lanes are misaligned (the
	// first fault), even lanes from 16 on are out of bounds.
	vector := ctlHeader + `
.visible .entry k(.param .u64 out) {
	.reg .u32 %r<3>; .reg .u64 %rd<4>;
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, %tid.x;
	mul.wide.u32 %rd2, %r1, 4;
	add.u64 %rd3, %rd1, %rd2;
	st.global.v2.u32 [%rd3], {%r1, %r1};
	ret;
}`
	// Loads through the register they overwrite: lanes below the first
	// faulting lane executed and do not count.
	load := ctlHeader + `
.visible .entry k(.param .u64 out) {
	.reg .u32 %r<3>; .reg .u64 %rd<4>;
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, %tid.x;
	mul.wide.u32 %rd2, %r1, 8;
	add.u64 %rd3, %rd1, %rd2;
	ld.global.u64 %rd3, [%rd3];
	ret;
}`
	cases := []struct {
		name  string
		src   string
		n     int
		kind  FaultKind
		lane  int
		lanes uint32
	}{
		{"scalar", scalar, 8, FaultOutOfBounds, 8, 0xffffff00},
		{"vector", vector, 16, FaultMisaligned, 1, 0xffffaaaa},
		{"load", load, 8, FaultOutOfBounds, 4, 0xfffffff0},
	}
	for _, c := range cases {
		for _, observe := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/observed=%v", c.name, observe), func(t *testing.T) {
				m, out := ctlKernel(t, c.src, [3]int{32, 1, 1}, [3]int{1, 1, 1}, c.n)
				if observe {
					m.SetObserver(&eventLog{})
				}
				if r := m.Run(context.Background()); r != StopFault {
					t.Fatalf("stop %v", r)
				}
				f := m.Fault()
				if f.Kind != c.kind || f.Lane != c.lane || f.Thread != [3]int{c.lane, 0, 0} || f.Lanes != c.lanes {
					t.Fatalf("fault %s lane %d lanes %08x, want %s lane %d lanes %08x", f.Kind, f.Lane, f.Lanes, c.kind, c.lane, c.lanes)
				}
				if c.name == "scalar" && f.Addr != out.Base+32 {
					t.Fatalf("address %x", f.Addr)
				}
				if w := m.CTAs()[0].Warps[0]; w.State != WarpFaulted {
					t.Fatalf("warp state %v", w.State)
				}
			})
		}
	}
}

// An instruction that fails as a whole names every lane executing it.
func TestWholeInstructionFaultLanes(t *testing.T) {
	src := ctlHeader + `
.visible .entry k(.param .u64 out) {
	.reg .u32 %r<3>; .reg .pred %p;
	mov.u32 %r1, %tid.x;
	setp.ge.u32 %p, %r1, 5;
	@%p trap;
	ret;
}`
	m, _ := ctlKernel(t, src, [3]int{32, 1, 1}, [3]int{1, 1, 1}, 1)
	if r := m.Run(context.Background()); r != StopFault {
		t.Fatalf("stop %v", r)
	}
	if f := m.Fault(); f.Kind != FaultTrap || f.Lane != 5 || f.Lanes != 0xffffffe0 {
		t.Fatalf("fault %+v", f)
	}
}

// The budget stops the launch cleanly: raising it continues exactly where
// the launch stopped, with the result of an unlimited run; a launch that
// ends exactly at the budget is reported as ended.
func TestBudgetRaiseAndContinue(t *testing.T) {
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
	bar.sync 0;
	bra.uni LOOP;
EXIT:
	mul.wide.u32 %rd2, %r1, 4;
	add.u64 %rd3, %rd1, %rd2;
	st.global.u32 [%rd3], %r2;
	ret;
}`
	ref, refOut := ctlKernel(t, src, [3]int{32, 1, 1}, [3]int{3, 1, 1}, 32)
	ref.cfg.ResidentCTAs = 2
	if r := ref.Run(context.Background()); r != StopDone {
		t.Fatalf("reference: %v %v", r, ref.Fault())
	}
	total := ref.Stats().WarpInstructions

	m, out := ctlKernel(t, src, [3]int{32, 1, 1}, [3]int{3, 1, 1}, 32)
	m.cfg.ResidentCTAs = 2
	for budget := int64(7); ; budget += 13 {
		m.SetMaxWarpInstructions(budget)
		r := m.Run(context.Background())
		if r == StopDone {
			break
		}
		if r != StopLimit || !m.LimitReached() || m.Stats().WarpInstructions != budget {
			t.Fatalf("budget %d: %v after %d (limit reached %v)", budget, r, m.Stats().WarpInstructions, m.LimitReached())
		}
		if r := m.Step(StepRound); r != StopLimit {
			t.Fatalf("step over budget: %v", r)
		}
	}
	if m.Stats() != ref.Stats() || !slices.Equal(u32s(out), u32s(refOut)) {
		t.Fatalf("stats %+v vs %+v", m.Stats(), ref.Stats())
	}

	// A budget that ends exactly with the launch: done, not limit.
	m2, _ := ctlKernel(t, src, [3]int{32, 1, 1}, [3]int{3, 1, 1}, 32)
	m2.cfg.ResidentCTAs = 2
	m2.SetMaxWarpInstructions(total)
	if r := m2.Run(context.Background()); r != StopDone || m2.LimitReached() {
		t.Fatalf("exact budget: %v", r)
	}

	// A deadlock needs no instruction: it is reported even when the budget
	// is spent.
	dl := ctlHeader + `
.visible .entry k(.param .u64 out) {
	.reg .u32 %r<3>; .reg .pred %p;
	mov.u32 %r1, %tid.x;
	setp.ge.u32 %p, %r1, 32;
	@%p exit;
	bar.sync 0, 64;
	ret;
}`
	m3, _ := ctlKernel(t, dl, [3]int{64, 1, 1}, [3]int{1, 1, 1}, 1)
	m3.SetMaxWarpInstructions(8) // 4 instructions per warp up to the barrier
	if r := m3.Run(context.Background()); r != StopFault || m3.Fault().Kind != FaultDeadlock {
		t.Fatalf("deadlock at the budget: %v %v", r, m3.Fault())
	}
}
