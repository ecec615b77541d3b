package emu

import (
	"context"
	"testing"
)

// threeWayPTX splits each warp three ways by tid.x % 3 inside a loop:
// three paths of one region (an if / else-if / else joining at one pc)
// take turns over long register-only stretches, and lanes leave the loop
// at different trip counts.
const threeWayPTX = `.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 buf) {
	.reg .u32 %r<12>; .reg .u64 %rd<4>; .reg .pred %p<4>;
	ld.param.u64 %rd1, [buf];
	mov.u32 %r1, %tid.x;
	rem.u32 %r2, %r1, 3;
	and.b32 %r3, %r1, 7;
	add.u32 %r3, %r3, 40;
	mov.u32 %r4, %r1;
	mov.u32 %r5, 0;
LOOP:
	setp.eq.u32 %p1, %r2, 0;
	@%p1 bra A;
	setp.eq.u32 %p2, %r2, 1;
	@%p2 bra B;
	mul.lo.u32 %r4, %r4, 5;
	add.u32 %r4, %r4, 1;
	xor.b32 %r4, %r4, %r5;
	bra.uni J;
A:
	shl.b32 %r6, %r4, 3;
	add.u32 %r4, %r4, %r6;
	add.u32 %r4, %r4, 7;
	xor.b32 %r4, %r4, 0x55;
	bra.uni J;
B:
	shr.u32 %r6, %r4, 2;
	add.u32 %r4, %r4, %r6;
	bra.uni J;
J:
	add.u32 %r5, %r5, 1;
	setp.lt.u32 %p3, %r5, %r3;
	@%p3 bra LOOP;
	mul.wide.u32 %rd2, %r1, 4;
	add.u64 %rd3, %rd1, %rd2;
	st.global.u32 [%rd3], %r4;
	ret;
}`

// longSidePTX has an if whose one side is short and whose other side is
// a long register-only loop: the lanes of the short side wait at the join
// until ReconvergeWait runs out and go on alone while the others loop.
const longSidePTX = `.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 buf) {
	.reg .u32 %r<8>; .reg .u64 %rd<4>; .reg .pred %p<3>;
	ld.param.u64 %rd1, [buf];
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, %r1;
	and.b32 %r3, %r1, 3;
	setp.ne.u32 %p1, %r3, 0;
	@%p1 bra LONG;
	add.u32 %r2, %r2, 5;
	xor.b32 %r2, %r2, 9;
	bra.uni JOIN;
LONG:
	mov.u32 %r4, 0;
L2:
	mad.lo.u32 %r2, %r2, 3, %r4;
	add.u32 %r4, %r4, 1;
	setp.lt.u32 %p2, %r4, 150;
	@%p2 bra L2;
JOIN:
	add.u32 %r2, %r2, %r1;
	mul.wide.u32 %rd2, %r1, 4;
	add.u64 %rd3, %rd1, %rd2;
	st.global.u32 [%rd3], %r2;
	ret;
}`

// Leads of diverged warps run in leadLine on the divergent kernels, and
// the results are those of leads that pick every group through schedule
// and of the one-at-a-time run.
func TestLeadLineUsed(t *testing.T) {
	for _, k := range []struct {
		name string
		l    batchLaunch
	}{
		{"collatz", batchLaunch{src: collatzPTX, grid: 2, block: 256, words: 512}},
		{"three-way", batchLaunch{src: threeWayPTX, grid: 1, block: 96, words: 96}},
	} {
		for _, s := range []Scheduling{SchedIndependent, SchedSIMTStack} {
			l := k.l
			l.sched = s
			a, b := l.machine(t, true), l.machine(t, false)
			c := l.machine(t, true)
			c.fast.noLine = true
			rc := c.Run(context.Background())
			ra, rb := a.Run(context.Background()), b.Run(context.Background())
			if ra != StopDone || rb != StopDone || rc != StopDone {
				t.Fatalf("%s (%s): %v, %v, %v", k.name, s, ra, rb, rc)
			}
			if d := a.DiffState(b); d != "" {
				t.Fatalf("%s (%s): batched and unbatched runs differ: %s", k.name, s, d)
			}
			if d := a.DiffState(c); d != "" {
				t.Fatalf("%s (%s): leads with and without leadLine differ: %s", k.name, s, d)
			}
			if a.fast.replays != 0 {
				t.Fatalf("%s (%s): %d replays", k.name, s, a.fast.replays)
			}
			total := a.Stats().WarpInstructions
			t.Logf("%s (%s): leadLine ran %d times, %d of %d warp-instructions", k.name, s, a.fast.lineRuns, a.fast.lineInsts, total)
			if c.fast.lineRuns != 0 || b.fast.lineRuns != 0 {
				t.Fatalf("%s (%s): leadLine used while off", k.name, s)
			}
			if k.name == "three-way" && s == SchedIndependent && maxRunnable(t, l) < 3 {
				t.Fatalf("three-way: never three paths")
			}
			if s == SchedSIMTStack {
				if a.fast.lineRuns != 0 {
					t.Fatalf("%s: leadLine used under the SIMT stack", k.name)
				}
				continue
			}
			// Most instructions of these kernels run while a warp is
			// diverged.
			if a.fast.lineInsts*3 < total {
				t.Fatalf("%s: leadLine ran %d of %d warp-instructions", k.name, a.fast.lineInsts, total)
			}
		}
	}
}

// A batched Run stopped at any budget, on a divergent kernel, is where the
// one-at-a-time run stops; stepping on and running to the end from there
// give the same states.
func TestLeadLineEveryBudget(t *testing.T) {
	for _, k := range []struct {
		name string
		l    batchLaunch
	}{
		{"collatz", batchLaunch{src: collatzPTX, grid: 1, block: 64, words: 64}},
		{"three-way", batchLaunch{src: threeWayPTX, grid: 1, block: 64, words: 64}},
	} {
		l := k.l
		l.sched = SchedIndependent
		full := l.machine(t, true)
		full.Run(context.Background())
		total := full.Stats().WarpInstructions
		step := int64(1)
		if testing.Short() {
			step = 7
		}
		var used int64
		for budget := int64(1); budget <= total; budget += step {
			l.limit = budget
			a, b := l.machine(t, true), l.machine(t, false)
			ra, rb := a.Run(context.Background()), b.Run(context.Background())
			if ra != rb {
				t.Fatalf("%s budget %d: %v vs %v", k.name, budget, ra, rb)
			}
			if d := a.DiffState(b); d != "" {
				t.Fatalf("%s budget %d: %s", k.name, budget, d)
			}
			used += a.fast.lineInsts
			a.SetMaxWarpInstructions(0)
			b.SetMaxWarpInstructions(0)
			sa, sb := stepStates(a, 6), stepStates(b, 6)
			if len(sa) != len(sb) {
				t.Fatalf("%s budget %d: %d vs %d steps", k.name, budget, len(sa), len(sb))
			}
			for i := range sa {
				if sa[i] != sb[i] {
					t.Fatalf("%s budget %d step %d:\n%s\n%s", k.name, budget, i, sa[i], sb[i])
				}
			}
			a.Run(context.Background())
			b.Run(context.Background())
			if d := a.DiffState(b); d != "" {
				t.Fatalf("%s budget %d at the end: %s", k.name, budget, d)
			}
		}
		if used == 0 {
			t.Fatalf("%s: leadLine never ran (%d warp-instructions)", k.name, total)
		}
		t.Logf("%s: %d budgets, leadLine ran %d warp-instructions before the stops", k.name, total, used)
	}
}

// maxRunnable steps l one instruction at a time and returns the most
// runnable groups a warp had.
func maxRunnable(t *testing.T, l batchLaunch) int {
	m := l.machine(t, false)
	best := 0
	for !m.Stopped() {
		w := m.NextWarp()
		m.Step(StepWarpInstruction)
		if w == nil {
			continue
		}
		n := 0
		for _, g := range w.Groups() {
			if g.State == GroupRunnable {
				n++
			}
		}
		best = max(best, n)
	}
	return best
}

// Turn by turn, leads that run in leadLine leave every warp (the
// instructions it executed ahead, its stack, picks and issue records)
// and the statistics exactly as leads that pick every group through
// schedule and execute one instruction at a time.
func TestLeadLineLockstep(t *testing.T) {
	for _, k := range []struct {
		name string
		l    batchLaunch
	}{
		// The benchmark's launch: lanes that left the loop wait at its
		// exit long enough to go on alone, at all kinds of moments.
		{"collatz", batchLaunch{src: collatzPTX, grid: 16, block: 256, words: 4096}},
		{"three-way", batchLaunch{src: threeWayPTX, grid: 1, block: 96, words: 96}},
		{"racy", batchLaunch{src: racyPTX, grid: 2, block: 48, words: 600}},
		{"long side", batchLaunch{src: longSidePTX, grid: 1, block: 64, words: 64}},
	} {
		l := k.l
		l.sched = SchedIndependent
		a, b := l.machine(t, true), l.machine(t, true)
		b.fast.noLine = true
		for turn := 0; ; turn++ {
			ra, rb := a.issueBatched(true), b.issueBatched(true)
			if ra != rb {
				t.Fatalf("%s turn %d: %v vs %v", k.name, turn, ra, rb)
			}
			// The warp that had the turn, and every warp now and then.
			if i := a.cursor - 1; i >= 0 && i < len(a.warps) && i < len(b.warps) {
				if d := a.warps[i].diff(b.warps[i]); d != "" {
					t.Fatalf("%s turn %d warp %d: %s", k.name, turn, i, d)
				}
			}
			if turn%4096 == 0 || ra != StopStepped {
				if d := a.DiffState(b); d != "" {
					t.Fatalf("%s turn %d: %s", k.name, turn, d)
				}
			}
			if a.Stats() != b.Stats() || a.ahead != b.ahead || a.picked != b.picked || a.cursor != b.cursor {
				t.Fatalf("%s turn %d: stats %+v vs %+v, %d/%d ahead, %d/%d picked", k.name, turn, a.Stats(), b.Stats(), a.ahead, b.ahead, a.picked, b.picked)
			}
			if ra != StopStepped {
				break
			}
		}
		if a.fast.lineRuns == 0 || b.fast.lineRuns != 0 {
			t.Fatalf("%s: leadLine ran %d times, %d times off", k.name, a.fast.lineRuns, b.fast.lineRuns)
		}
	}
}
