package emu

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// runModes runs l under sched batched, unbatched and one warp-instruction
// at a time, checks that the three end in the same state, and returns the
// stop reason, the output and the batched machine.
func (l clusterLaunch) runModes(t *testing.T, sched Scheduling) (StopReason, []uint32, *Machine) {
	t.Helper()
	a, b, c := l.machine(t, sched), l.machine(t, sched), l.machine(t, sched)
	b.SetBatchedDispatch(false)
	ra, rb := a.Run(context.Background()), b.Run(context.Background())
	rc := StopStepped
	for n := 0; rc == StopStepped && n < 1e6; n++ {
		rc = c.Step(StepWarpInstruction)
	}
	if ra != rb || ra != rc {
		t.Fatalf("%s: batched run stopped with %v, unbatched with %v, stepped with %v (%v)", sched, ra, rb, rc, b.Fault())
	}
	if d := a.DiffState(b); d != "" {
		t.Fatalf("%s: batched and unbatched runs differ: %s", sched, d)
	}
	if d := a.DiffState(c); d != "" {
		t.Fatalf("%s: run and one-at-a-time stepping differ: %s", sched, d)
	}
	return ra, outWords(a, l.words), a
}

// A producer and its consumers inside one warp: lane 0 (elect.sync)
// produces 4 values into shared memory, each after waiting on the
// "empty" mbarrier (bar2) that lanes 1-31 arrive on once they consumed
// the value before; lanes 1-31 wait on the "full" mbarrier (bar) for each
// value and sum them (0+100+200+300). Under independent scheduling the
// waiting group blocks only its own lanes, so the ring completes with
// every consumer's sum 600, in every dispatch mode; under the SIMT stack
// the warp waits as a whole and the launch deadlocks.
const intraWarpRing = `
	.shared .align 4 .u32 buf;
` + "\x00" + `
	setp.ne.u32 %p1, %r1, 0;
	@%p1 bra INITED;
	mbarrier.init.shared.b64 [bar], 1;
	mbarrier.init.shared.b64 [bar2], 31;
INITED:
	bar.sync 0;
	mov.u32 %r5, 0;
	mov.u32 %r20, 0;
	elect.sync _|%p3, 0xffffffff;
	@!%p3 bra CONSUMER;
PLOOP:
	and.b32 %r7, %r5, 1;
	xor.b32 %r7, %r7, 1;
WE:
	mbarrier.try_wait.parity.shared.b64 %p5, [bar2], %r7;
	@!%p5 bra WE;
	mul.lo.u32 %r13, %r5, 100;
	st.shared.u32 [buf], %r13;
	mbarrier.arrive.release.cta.shared.b64 %rd2, [bar];
	add.u32 %r5, %r5, 1;
	setp.lt.u32 %p4, %r5, 4;
	@%p4 bra PLOOP;
	bra DONE;
CONSUMER:
	and.b32 %r7, %r5, 1;
WF:
	mbarrier.try_wait.parity.acquire.cta.shared.b64 %p5, [bar], %r7;
	@!%p5 bra WF;
	ld.shared.u32 %r13, [buf];
	add.u32 %r20, %r20, %r13;
	mbarrier.arrive.shared.b64 %rd2, [bar2];
	add.u32 %r5, %r5, 1;
	setp.lt.u32 %p4, %r5, 4;
	@%p4 bra CONSUMER;
DONE:
	mul.wide.u32 %rd3, %r1, 4;
	add.u64 %rd3, %rd1, %rd3;
	st.global.u32 [%rd3], %r20;
	ret;`

func splitKernel(src string) string {
	parts := strings.SplitN(src, "\x00", 2)
	return mbarKernel(parts[0], parts[1])
}

func TestGroupWaitProducerConsumerInOneWarp(t *testing.T) {
	l := clusterLaunch{src: splitKernel(intraWarpRing), grid: [3]int{1, 1, 1}, block: 32, words: 32}
	r, out, m := l.runModes(t, SchedIndependent)
	if r != StopDone {
		t.Fatalf("independent: stop %v: %v", r, m.Fault())
	}
	for k, v := range out {
		want := uint32(600)
		if k == 0 {
			want = 0
		}
		if v != want {
			t.Fatalf("independent: lane %d summed %d, want %d (all %v)", k, v, want, out)
		}
	}
	// The SIMT stack runs one path at a time: its warp waits as a whole.
	r, _, m = l.runModes(t, SchedSIMTStack)
	if f := m.Fault(); r != StopFault || f == nil || f.Kind != FaultDeadlock {
		t.Fatalf("simt-stack: stop %v, fault %v; want a deadlock", r, f)
	}
}

// While one group of the warp waits, the views say so for its lanes only:
// the group is at-wait at the try_wait, its lanes' reason is "mbarrier",
// WaitText names the group's lanes, and the warp itself is ready (the
// other group issues). Snapshots taken at every step (with group waits
// among them) restore to machines that finish like a fresh run.
func TestGroupWaitViewsAndSnapshots(t *testing.T) {
	l := clusterLaunch{src: splitKernel(intraWarpRing), grid: [3]int{1, 1, 1}, block: 32, words: 32}
	ref := l.machine(t, SchedIndependent)
	ref.Run(context.Background())
	m := l.machine(t, SchedIndependent)
	var snaps []*Snapshot
	seen := false
	for m.Step(StepWarpInstruction) == StopStepped {
		snaps = append(snaps, m.Snapshot(true))
		w := m.CTAs()[0].Warps[0]
		gw := w.GroupWaits()
		if len(gw) == 0 || w.State != WarpReady {
			continue
		}
		seen = true
		g := gw[0]
		if g.Kind != WaitMbarrier {
			t.Fatalf("group wait %+v", g)
		}
		want := fmt.Sprintf("thread group lanes %s waits for mbarrier ", warpLaneList(g.Lanes))
		if txt := w.WaitText(); !strings.HasPrefix(txt, want) {
			t.Fatalf("wait text %q, want prefix %q", txt, want)
		}
		for _, lw := range w.LaneWaits() {
			waits := g.Lanes>>lw.Lane&1 != 0
			if waits != (lw.Reason == "mbarrier") || waits && lw.PC != g.PC {
				t.Fatalf("lane %d: %+v with group wait %+v", lw.Lane, lw, g)
			}
		}
		at := false
		for _, tg := range w.Groups() {
			if tg.Mask&g.Lanes != 0 {
				at = tg.State == GroupAtWait && tg.PC == g.PC
			}
		}
		if !at {
			t.Fatalf("groups %+v: the waiting lanes %x are not at-wait at %d", w.Groups(), g.Lanes, g.PC)
		}
		if _, ok := w.Waiting(); ok {
			t.Fatalf("a warp whose other group issues says it waits")
		}
	}
	if !seen {
		t.Fatal("no group of the warp waited while the other ran")
	}
	for i := 0; i < len(snaps); i += 3 {
		x := l.machine(t, SchedIndependent)
		x.Restore(snaps[i])
		x.Run(context.Background())
		if d := x.DiffState(ref); d != "" {
			t.Fatalf("run from snapshot %d differs from a fresh run: %s", i, d)
		}
	}
}

// Lanes of one warp wait on two different mbarriers at once: lanes 0-15
// of warp 0 on bar, lanes 16-31 on bar2; warp 1 arrives on bar2, then
// (after a delay) on bar. Each half goes on when its phase completes, in
// both models (the SIMT stack's warp waits until both have).
func TestGroupWaitTwoMbarriersInOneWarp(t *testing.T) {
	body := `	setp.ne.u32 %p1, %r1, 0;
	@%p1 bra INITED;
	mbarrier.init.shared.b64 [bar], 32;
	mbarrier.init.shared.b64 [bar2], 32;
INITED:
	bar.sync 0;
	setp.ge.u32 %p2, %r1, 32;
	@%p2 bra ARRIVER;
	mov.u32 %r2, bar;
	mov.u32 %r3, bar2;
	setp.ge.u32 %p3, %r1, 16;
	selp.u32 %r4, %r3, %r2, %p3;
W:
	mbarrier.try_wait.parity.shared.b64 %p5, [%r4], 0;
	@!%p5 bra W;
	mbarrier.test_wait.parity.shared.b64 %p6, [bar], 0;
	mbarrier.test_wait.parity.shared.b64 %p7, [bar2], 0;
	selp.u32 %r10, 1, 0, %p6;
	selp.u32 %r11, 2, 0, %p7;
	add.u32 %r10, %r10, %r11;
	mul.wide.u32 %rd3, %r1, 4;
	add.u64 %rd3, %rd1, %rd3;
	st.global.u32 [%rd3], %r10;
	ret;
ARRIVER:
	mov.u32 %r15, 0;
D0:
	add.u32 %r15, %r15, 1;
	setp.lt.u32 %p7, %r15, 10;
	@%p7 bra D0;
	mbarrier.arrive.shared.b64 %rd2, [bar2];
	mov.u32 %r15, 0;
D:
	add.u32 %r15, %r15, 1;
	setp.lt.u32 %p7, %r15, 20;
	@%p7 bra D;
	mbarrier.arrive.shared.b64 %rd2, [bar];
	ret;`
	l := clusterLaunch{src: mbarKernel("", body), grid: [3]int{1, 1, 1}, block: 64, words: 32}
	for _, sched := range bothScheds {
		r, out, m := l.runModes(t, sched)
		if r != StopDone {
			t.Fatalf("%s: stop %v: %v", sched, r, m.Fault())
		}
		for k, v := range out {
			// Lanes 16-31 (bar2) may see bar's phase still open under
			// independent scheduling; lanes 0-15 see both complete.
			if k < 16 && v != 3 || k >= 16 && v&2 == 0 {
				t.Fatalf("%s: lane %d stored %d (all %v)", sched, k, v, out)
			}
		}
		if sched == SchedIndependent && out[16] != 2 {
			t.Errorf("independent: lanes 16-31 did not go on before bar completed: %v", out)
		}
	}
	// While both wait, the warp names both groups.
	m := l.machine(t, SchedIndependent)
	for m.Step(StepWarpInstruction) == StopStepped {
		if w := m.CTAs()[0].Warps[0]; len(w.GroupWaits()) == 2 {
			txt := w.WaitText()
			for _, s := range []string{"thread group lanes 0-15 waits for mbarrier bar @0x0, phase 0", "thread group lanes 16-31 waits for mbarrier bar2 @0x8, phase 0"} {
				if !strings.Contains(txt, s) {
					t.Fatalf("wait text %q lacks %q", txt, s)
				}
			}
			return
		}
	}
	t.Fatal("warp 0 never waited on both mbarriers")
}

// A group of a warp waits at bar.sync while the warp's other group waits
// on an mbarrier that lanes 1-31 arrive on before their bar.sync: lane 0
// goes on when the phase completes, reaches the bar.sync, and the warp
// arrives at the barrier for all its threads (a CTA barrier stays the
// warp's: the group at bar.sync waited for lane 0). Lanes 1-31 take a
// while before they arrive, so lane 0 waits first.
func TestGroupWaitWithBarSync(t *testing.T) {
	body := `	.shared .align 4 .u32 v;
	setp.ne.u32 %p1, %r1, 0;
	@%p1 bra INITED;
	mbarrier.init.shared.b64 [bar], 31;
	st.shared.u32 [v], 1;
INITED:
	bar.sync 0;
	setp.ge.u32 %p2, %r1, 32;
	@%p2 bra JOIN;
	setp.eq.u32 %p3, %r1, 0;
	@!%p3 bra ARRIVE;
W:
	mbarrier.try_wait.parity.shared.b64 %p5, [bar], 0;
	@!%p5 bra W;
	st.shared.u32 [v], 7;
	bar.sync 0;
	bra OUT;
ARRIVE:
	mov.u32 %r15, 0;
D:
	add.u32 %r15, %r15, 1;
	setp.lt.u32 %p7, %r15, 10;
	@%p7 bra D;
	mbarrier.arrive.shared.b64 %rd2, [bar];
	bar.sync 0;
	bra OUT;
JOIN:
	bar.sync 0;
OUT:
	ld.shared.u32 %r10, [v];
	mul.wide.u32 %rd3, %r1, 4;
	add.u64 %rd3, %rd1, %rd3;
	st.global.u32 [%rd3], %r10;
	ret;`
	l := clusterLaunch{src: mbarKernel("", body), grid: [3]int{1, 1, 1}, block: 64, words: 64}
	r, out, m := l.runModes(t, SchedIndependent)
	if r != StopDone {
		t.Fatalf("stop %v: %v", r, m.Fault())
	}
	for k, v := range out {
		if v != 7 {
			t.Fatalf("thread %d read %d after the barrier, want 7 (all %v)", k, v, out)
		}
	}
}

// When every group of a warp waits and no wait can end, the deadlock names
// each group with its lanes and what it waits for.
func TestGroupWaitDeadlockNamesGroups(t *testing.T) {
	body := `	setp.ne.u32 %p1, %r1, 0;
	@%p1 bra INITED;
	mbarrier.init.shared.b64 [bar], 1;
	mbarrier.init.shared.b64 [bar2], 64;
INITED:
	bar.sync 0;
	setp.eq.u32 %p3, %r1, 0;
	@!%p3 bra OTHER;
W:
	mbarrier.try_wait.parity.shared.b64 %p5, [bar], 0;
	@!%p5 bra W;
	bra OUT;
OTHER:
	mbarrier.arrive.shared.b64 %rd2, [bar2];
W2:
	mbarrier.try_wait.parity.shared.b64 %p5, [bar2], 0;
	@!%p5 bra W2;
OUT:
	ret;`
	l := clusterLaunch{src: mbarKernel("", body), grid: [3]int{1, 1, 1}, block: 32, words: 1}
	r, _, m := l.runModes(t, SchedIndependent)
	f := m.Fault()
	if r != StopFault || f == nil || f.Kind != FaultDeadlock {
		t.Fatalf("stop %v, fault %v", r, f)
	}
	for _, s := range []string{
		"mbarrier deadlock",
		"warp 0: thread group lanes 0 waits for mbarrier bar @0x0, phase 0: 1 arrival missing",
		"thread group lanes 1-31 waits for mbarrier bar2 @0x8, phase 0: 33 arrivals missing",
	} {
		if !strings.Contains(f.Message, s) {
			t.Errorf("fault %q\nlacks %q", f.Message, s)
		}
	}
	if len(f.Waiting) != 2 || f.Waiting[0].Lanes != 1 || f.Waiting[1].Lanes != 0xfffffffe {
		t.Errorf("waiting %+v", f.Waiting)
	}
	w := m.CTAs()[0].Warps[0]
	if tw, ok := w.Waiting(); !ok || tw.Kind != WaitMbarrier || w.Readiness() != Blocked {
		t.Errorf("waiting %+v %v, readiness %v", tw, ok, w.Readiness())
	}
}
