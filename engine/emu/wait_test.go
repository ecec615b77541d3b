package emu

import (
	"context"
	"strings"
	"testing"
)

const waitPTX = ctlHeader + `
.visible .entry k(.param .u64 out) {
	.reg .u32 %r<3>;
	mov.u32 %r1, %tid.x;
	add.u32 %r2, %r1, 1;
	ret;
}`

// A warp in a state, or waiting for a kind of wait, that the readiness
// predicate does not know never counts as finished: its CTA is not
// retired, and the launch stops with a deadlock naming the warp and what
// it waits for instead of finishing.
func TestUnknownWaitNeverFinishes(t *testing.T) {
	for _, tc := range []struct {
		name string
		set  func(w *Warp)
		want string
	}{
		{"unknown wait kind", func(w *Warp) {
			w.State = WarpWaiting
			w.wait = Wait{Kind: WaitKind(200), PC: w.pc(), Lanes: w.activeMask()}
		}, "warp 0 waits for an unknown wait (kind 200)"},
		{"mbarrier outside shared memory", func(w *Warp) {
			w.State = WarpWaiting
			w.wait = Wait{Kind: WaitMbarrier, PC: w.pc(), Lanes: w.activeMask(), Addr: 0x40, Parity: 1}
		}, "warp 0 waits for mbarrier @0x40, phase 1"},
		{"unknown warp state", func(w *Warp) {
			w.State = WarpState(7)
		}, "warp 0 is in an unknown state (unknown-7)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, _ := ctlKernel(t, waitPTX, [3]int{64, 1, 1}, [3]int{1, 1, 1}, 1)
			m.Step(StepWarpInstruction) // warp 0: mov
			w := m.CTAs()[0].Warps[0]
			pc := w.pc()
			tc.set(w)
			r := m.Run(context.Background())
			f := m.Fault()
			if r != StopFault || f == nil || f.Kind != FaultDeadlock {
				t.Fatalf("stop %v fault %v, want a deadlock", r, f)
			}
			if !strings.Contains(f.Message, tc.want) {
				t.Fatalf("message %q does not say %q", f.Message, tc.want)
			}
			if m.CTAsFinished() != 0 || m.CTAs()[0].done || m.Done() {
				t.Fatalf("the CTA counts as finished (%d finished, done %v)", m.CTAsFinished(), m.Done())
			}
			if len(f.Waiting) != 1 || f.Waiting[0].Warp != 0 || f.Waiting[0].Barrier != -1 || f.Waiting[0].PC != pc || f.PC != pc || f.Warp != 0 {
				t.Fatalf("fault names %+v at pc %d, want warp 0 at pc %d", f.Waiting, f.PC, pc)
			}
			if w.Readiness() != Blocked {
				t.Fatalf("readiness %v, want blocked", w.Readiness())
			}
		})
	}
}

// A wait whose condition holds is over: the scheduler wakes the warp when
// it finds no other warp to issue, and the warp goes on.
func TestWaitOverWakes(t *testing.T) {
	m, out := ctlKernel(t, waitPTX, [3]int{64, 1, 1}, [3]int{1, 1, 1}, 1)
	m.Step(StepWarpInstruction) // warp 0: mov
	w := m.CTAs()[0].Warps[0]
	w.await(Wait{Kind: WaitAsyncGroup, Lanes: w.activeMask(), Groups: -1}, w.pc())
	if w.State != WarpReady {
		t.Fatalf("a wait for no copies in flight waits (%v)", w.State)
	}
	w.State, w.wait = WarpWaiting, Wait{Kind: WaitAsyncGroup, PC: w.pc(), Lanes: w.activeMask(), Groups: -1}
	if w.Readiness() != Wakeable {
		t.Fatalf("readiness %v, want wakeable", w.Readiness())
	}
	if r := m.Run(context.Background()); r != StopDone {
		t.Fatalf("stop %v %v", r, m.Fault())
	}
	_ = out
	if w.State != WarpExited || w.wait != (Wait{}) {
		t.Fatalf("warp 0: %v waiting for %v", w.State, w.wait)
	}
}

// cp.async.wait_group and wait_all are waits on the warp's copies in
// flight: with copies of the lanes pending the warp waits (and a deadlock
// says for what); once they landed the wait is over.
func TestAsyncGroupWait(t *testing.T) {
	m, _, _ := asyncMachine(t, asyncGroupsPTX, 32, 8*32)
	m.Step(StepWarpInstruction)
	w := m.CTAs()[0].Warps[0]
	for len(w.PendingCopies()) == 0 {
		if r := m.Step(StepWarpInstruction); r != StopStepped {
			t.Fatalf("stop %v %v", r, m.Fault())
		}
	}
	all := w.activeMask()
	pc := w.pc()
	w.await(Wait{Kind: WaitAsyncGroup, Lanes: all, Groups: -1}, pc)
	if got, ok := w.Waiting(); !ok || got.Kind != WaitAsyncGroup || w.Readiness() != Blocked || w.PC() != pc || w.Active() != all {
		t.Fatalf("with copies in flight: waiting %v %+v, readiness %v, pc %d active %x", ok, got, w.Readiness(), w.PC(), w.Active())
	}
	// Only the committed groups count for wait_group 0: none is committed.
	if w.copiesPending(all, 0) {
		t.Fatal("wait_group 0 waits for a copy of the open group")
	}
	if r := m.Run(context.Background()); r != StopFault || m.Fault().Kind != FaultDeadlock ||
		!strings.Contains(m.Fault().Message, "warp 0 waits for every cp.async copy (cp.async.wait_all)") {
		t.Fatalf("stop %v %v", r, m.Fault())
	}
	w.landCopies(all, -1)
	if w.Readiness() != Wakeable {
		t.Fatalf("after the copies landed: readiness %v", w.Readiness())
	}
}

// The executed cp.async waits end at once (the copies land when waited
// for): the warp never stops in WarpWaiting, and every wait leaves the
// warp ready.
func TestAsyncWaitInstructionsEndAtOnce(t *testing.T) {
	for _, sched := range []Scheduling{SchedSIMTStack, SchedIndependent} {
		m, _, _ := asyncMachine(t, asyncGroupsPTX, 32, 8*32)
		m.indep = sched == SchedIndependent
		for {
			r := m.Step(StepWarpInstruction)
			for _, c := range m.CTAs() {
				for _, w := range c.Warps {
					if w.State == WarpWaiting {
						t.Fatalf("%s: warp %d waits for %v", sched, w.ID, w.wait)
					}
				}
			}
			if r != StopStepped {
				if r != StopDone {
					t.Fatalf("%s: stop %v %v", sched, r, m.Fault())
				}
				break
			}
		}
	}
}

// Snapshots keep a warp's wait and the barrier's phase, and DiffState
// sees both.
func TestWaitSnapshotAndDiff(t *testing.T) {
	src := ctlHeader + `
.visible .entry k(.param .u64 out) {
	.reg .u32 %r<3>;
	mov.u32 %r1, %tid.x;
	bar.sync 0;
	add.u32 %r2, %r1, 1;
	ret;
}`
	m, _ := ctlKernel(t, src, [3]int{64, 1, 1}, [3]int{1, 1, 1}, 1)
	o, _ := ctlKernel(t, src, [3]int{64, 1, 1}, [3]int{1, 1, 1}, 1)
	for range 3 { // mov, mov, bar.sync: warp 0 waits
		m.Step(StepWarpInstruction)
		o.Step(StepWarpInstruction)
	}
	w := m.CTAs()[0].Warps[0]
	want, ok := w.Waiting()
	if !ok || want.Kind != WaitBarrier || want.Barrier != 0 || want.Count != 0 || want.Lanes != ^uint32(0) {
		t.Fatalf("warp 0 waits %v for %+v", ok, want)
	}
	if d := m.DiffState(o); d != "" {
		t.Fatalf("same steps differ: %s", d)
	}
	s := m.Snapshot(true)
	m.Step(StepWarpInstruction) // warp 1 arrives: both go on
	if _, ok := w.Waiting(); ok || m.CTAs()[0].bars[0].phase != 1 {
		t.Fatalf("not released: %v phase %d", w.State, m.CTAs()[0].bars[0].phase)
	}
	m.Restore(s)
	w = m.CTAs()[0].Warps[0]
	if got, ok := w.Waiting(); !ok || !got.same(want) || got.op == nil {
		t.Fatalf("restored wait %v %+v, want %+v", ok, got, want)
	}
	if d := m.DiffState(o); d != "" {
		t.Fatalf("restored state differs: %s", d)
	}
	o.CTAs()[0].bars[0].phase = 1
	if d := m.DiffState(o); !strings.Contains(d, "barrier 0 in phase 0 vs 1") {
		t.Fatalf("diff of phases: %q", d)
	}
	o.CTAs()[0].bars[0].phase = 0
	o.CTAs()[0].Warps[0].wait.Count = 64
	if d := m.DiffState(o); !strings.Contains(d, "waits for barrier 0 at") {
		t.Fatalf("diff of waits: %q", d)
	}
}
