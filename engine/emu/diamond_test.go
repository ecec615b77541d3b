package emu

import (
	"context"
	"strings"
	"testing"
)

// diamondPTX runs, in a loop whose trip count differs by lane (lanes
// that leave wait at its exit, and wait long enough to go on alone while
// the others still loop), if/else diamonds of unequal lengths (the else
// side falls through to the join) and of equal lengths (both sides end in
// bra.uni), an if without else, an if/else nested in the then side of
// another, a side with a guarded instruction, and a side longer than a
// lead (it never runs as a diamond).
const diamondPTX = `.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 buf) {
	.reg .u32 %r<12>; .reg .u64 %rd<4>; .reg .pred %p<5>;
	ld.param.u64 %rd1, [buf];
	mov.u32 %r1, %tid.x;
	mul.wide.u32 %rd2, %r1, 4;
	add.u64 %rd3, %rd1, %rd2;
	ld.global.u32 %r2, [%rd3];
	and.b32 %r9, %r1, 7;
	mad.lo.u32 %r9, %r9, 9, 3;
	mov.u32 %r3, 0;
	mov.u32 %r5, 1;
	mov.u32 %r6, 2;
	mov.u32 %r7, 3;
	mov.u32 %r8, 4;
LOOP:
	// Unequal sides, the short one falls through to the join.
	and.b32 %r4, %r2, 1;
	setp.eq.u32 %p1, %r4, 0;
	@%p1 bra E1;
	mad.lo.u32 %r2, %r2, 3, 1;
	xor.b32 %r5, %r5, %r2;
	add.u32 %r5, %r5, 3;
	bra.uni J1;
E1:
	shr.u32 %r2, %r2, 1;
J1:
	// Equal sides, both end in bra.
	and.b32 %r4, %r2, 6;
	setp.ne.u32 %p2, %r4, 0;
	@%p2 bra E2;
	add.u32 %r6, %r6, %r2;
	xor.b32 %r6, %r6, 5;
	bra.uni J2;
E2:
	sub.u32 %r6, %r6, %r2;
	shl.b32 %r6, %r6, 1;
	bra.uni J2;
J2:
	// An if without else.
	setp.lt.u32 %p3, %r2, 5000;
	@%p3 bra J3;
	add.u32 %r7, %r7, %r2;
	xor.b32 %r7, %r7, 1;
J3:
	// Nested: the then side holds an if/else, the else side is short.
	and.b32 %r4, %r1, 4;
	setp.eq.u32 %p1, %r4, 0;
	@%p1 bra OE;
	and.b32 %r4, %r2, 3;
	setp.eq.u32 %p2, %r4, 1;
	@%p2 bra IE;
	add.u32 %r8, %r8, 1;
	bra.uni IJ;
IE:
	add.u32 %r8, %r8, 2;
	setp.gt.u32 %p4, %r8, 100;
	@%p4 mul.lo.u32 %r8, %r8, 3;
IJ:
	add.u32 %r8, %r8, %r2;
	bra.uni OJ;
OE:
	sub.u32 %r8, %r8, 1;
OJ:
	// Every 16th trip: a side longer than a lead.
	and.b32 %r4, %r3, 15;
	setp.ne.u32 %p1, %r4, 7;
	@%p1 bra LJ;
	and.b32 %r4, %r1, 1;
	setp.eq.u32 %p2, %r4, 0;
	@%p2 bra LE;
	mov.u32 %r10, 0;
LL:
	add.u32 %r7, %r7, %r10;
	add.u32 %r10, %r10, 1;
	setp.lt.u32 %p3, %r10, 70;
	@%p3 bra LL;
	bra.uni LJ;
LE:
	xor.b32 %r7, %r7, 77;
LJ:
	add.u32 %r3, %r3, 1;
	setp.lt.u32 %p1, %r3, %r9;
	@%p1 bra LOOP;
	add.u32 %r2, %r2, %r5;
	add.u32 %r2, %r2, %r6;
	add.u32 %r2, %r2, %r7;
	add.u32 %r2, %r2, %r8;
	st.global.u32 [%rd3], %r2;
	ret;
}`

// Turn by turn, leads that run diamonds and one-path stretches in a tight
// loop leave every warp and the statistics exactly as leadLine without
// them and as leads that pick every group through schedule.
func TestDiamondLockstep(t *testing.T) {
	for _, k := range []struct {
		name string
		l    batchLaunch
	}{
		{"diamonds", batchLaunch{src: diamondPTX, grid: 2, block: 96, words: 96}},
		{"collatz", batchLaunch{src: collatzPTX, grid: 4, block: 256, words: 1024}},
		{"three-way", batchLaunch{src: threeWayPTX, grid: 1, block: 96, words: 96}},
		{"long side", batchLaunch{src: longSidePTX, grid: 1, block: 64, words: 64}},
	} {
		l := k.l
		l.sched = SchedIndependent
		a, b, c := l.machine(t, true), l.machine(t, true), l.machine(t, true)
		b.fast.noDiamond = true
		c.fast.noLine = true
		for turn := 0; ; turn++ {
			ra, rb, rc := a.issueBatched(true), b.issueBatched(true), c.issueBatched(true)
			if ra != rb || ra != rc {
				t.Fatalf("%s turn %d: %v, %v, %v", k.name, turn, ra, rb, rc)
			}
			if i := a.cursor - 1; i >= 0 && i < len(a.warps) && i < len(b.warps) && i < len(c.warps) {
				if d := a.warps[i].diff(b.warps[i]); d != "" {
					t.Fatalf("%s turn %d warp %d, without diamonds: %s", k.name, turn, i, d)
				}
				if d := a.warps[i].diff(c.warps[i]); d != "" {
					t.Fatalf("%s turn %d warp %d, one pick at a time: %s", k.name, turn, i, d)
				}
			}
			if turn%1024 == 0 || ra != StopStepped {
				if d := a.DiffState(c); d != "" {
					t.Fatalf("%s turn %d: %s", k.name, turn, d)
				}
			}
			if a.Stats() != c.Stats() || a.ahead != c.ahead || a.picked != c.picked || a.cursor != c.cursor ||
				a.Stats() != b.Stats() || a.ahead != b.ahead || a.picked != b.picked {
				t.Fatalf("%s turn %d: stats %+v vs %+v, %d/%d ahead, %d/%d picked", k.name, turn, a.Stats(), c.Stats(), a.ahead, c.ahead, a.picked, c.picked)
			}
			if ra != StopStepped {
				break
			}
		}
		t.Logf("%s: %d diamonds (%d from their split), %d instructions; one path: %d instructions; %d warp-instructions",
			k.name, a.fast.diamonds, a.fast.splits, a.fast.diamondInsts, a.fast.oneInsts, a.Stats().WarpInstructions)
		if b.fast.diamonds != 0 || b.fast.oneInsts != 0 || c.fast.diamonds != 0 || c.fast.oneInsts != 0 {
			t.Fatalf("%s: diamonds used while off", k.name)
		}
		if k.name == "diamonds" || k.name == "collatz" {
			if a.fast.diamonds == 0 || a.fast.splits == 0 || a.fast.oneInsts == 0 {
				t.Fatalf("%s: diamonds %d, splits %d, one-path instructions %d", k.name, a.fast.diamonds, a.fast.splits, a.fast.oneInsts)
			}
		}
	}
}

// A batched Run with diamonds stopped at any budget is where the
// one-at-a-time run stops; stepping on and running to the end from there
// give the same states.
func TestDiamondEveryBudget(t *testing.T) {
	// Fewer trips (3 to 24): lanes still wait at the exit long enough to
	// go on alone.
	src := strings.Replace(diamondPTX, "mad.lo.u32 %r9, %r9, 9, 3;", "mad.lo.u32 %r9, %r9, 3, 3;", 1)
	if src == diamondPTX {
		t.Fatal("trip count not found")
	}
	l := batchLaunch{src: src, grid: 1, block: 64, words: 64, sched: SchedIndependent}
	full := l.machine(t, true)
	full.Run(context.Background())
	total := full.Stats().WarpInstructions
	if full.fast.diamonds == 0 {
		t.Fatal("no diamonds")
	}
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
			t.Fatalf("budget %d: %v vs %v", budget, ra, rb)
		}
		if d := a.DiffState(b); d != "" {
			t.Fatalf("budget %d: %s", budget, d)
		}
		used += a.fast.diamondInsts
		a.SetMaxWarpInstructions(0)
		b.SetMaxWarpInstructions(0)
		sa, sb := stepStates(a, 6), stepStates(b, 6)
		if len(sa) != len(sb) {
			t.Fatalf("budget %d: %d vs %d steps", budget, len(sa), len(sb))
		}
		for i := range sa {
			if sa[i] != sb[i] {
				t.Fatalf("budget %d step %d:\n%s\n%s", budget, i, sa[i], sb[i])
			}
		}
		a.Run(context.Background())
		b.Run(context.Background())
		if d := a.DiffState(b); d != "" {
			t.Fatalf("budget %d at the end: %s", budget, d)
		}
	}
	if used == 0 {
		t.Fatal("no diamond ran before a stop")
	}
	t.Logf("%d budgets, diamonds ran %d warp-instructions before the stops", total, used)
}

// On the benchmark's Collatz launch, most of the divergent if/else runs
// as diamonds from their split, and most of the rest of the loop in the
// one-path loop.
func TestDiamondUsedOnCollatz(t *testing.T) {
	l := batchLaunch{src: collatzPTX, grid: 2, block: 256, words: 512, sched: SchedIndependent}
	a := l.machine(t, true)
	if r := a.Run(context.Background()); r != StopDone {
		t.Fatal(r)
	}
	total := a.Stats().WarpInstructions
	t.Logf("%d diamonds (%d from their split), %d instructions; one path: %d instructions; %d warp-instructions", a.fast.diamonds, a.fast.splits, a.fast.diamondInsts, a.fast.oneInsts, total)
	if a.fast.diamondInsts*5 < total || a.fast.splits*10 < a.fast.diamonds*8 || a.fast.oneInsts*3 < total {
		t.Fatalf("diamonds ran %d (%d from their split) with %d instructions, one path %d, of %d", a.fast.diamonds, a.fast.splits, a.fast.diamondInsts, a.fast.oneInsts, total)
	}
	b := l.machine(t, true)
	b.fast.noDiamond = true
	b.Run(context.Background())
	if d := a.DiffState(b); d != "" {
		t.Fatalf("with and without diamonds: %s", d)
	}
}

// onePath runs the splits of a line's one path into a diamond in its own
// loop: from the pick a lead starts with (schedule), one call goes on past
// the split, its diamond and the join, as far as leadLine's turns would.
// (TestDiamondLockstep and TestDiamondEveryBudget check the states.)
func TestOnePathRunsSplits(t *testing.T) {
	for _, k := range []struct {
		name string
		l    batchLaunch
	}{
		{"diamonds", batchLaunch{src: diamondPTX, grid: 1, block: 96, words: 96}},
		{"collatz", batchLaunch{src: collatzPTX, grid: 1, block: 256, words: 256}},
	} {
		l := k.l
		l.sched = SchedIndependent
		m := l.machine(t, true)
		found := false
		for turn := 0; !found; turn++ {
			for _, w := range m.warps {
				if w.State != WarpReady || len(w.stack) < 2 {
					continue
				}
				w.schedule()
				ns := len(w.stack)
				top := &w.stack[ns-1]
				if w.lineLen != int32(ns) || w.lineFirst != int32(ns-1) || m.prog.lead[top.PC] == leadStop {
					continue
				}
				splits, diamonds, issued := m.fast.splits, m.fast.diamondInsts, w.issued
				c, threads, last, lastMask, pending := m.onePath(w, top, leadMax-1)
				if m.fast.splits == splits {
					continue
				}
				found = true
				if pending || c != int32(w.issued-issued) || c <= int32(m.fast.diamondInsts-diamonds) || threads <= 0 {
					t.Fatalf("%s: %d instructions (%d issued, %d in diamonds), %d threads, pending %v", k.name, c, w.issued-issued, m.fast.diamondInsts-diamonds, threads, pending)
				}
				// The path goes on at the join (or past it) as the
				// line's one path, with the pick records of its turns.
				if w.lineLen != int32(len(w.stack)) || w.lineFirst != int32(len(w.stack)-1) || w.pick != PickOnly || w.lineMask != top.Mask {
					t.Fatalf("%s: line %d/%d of %d entries, pick %v", k.name, w.lineLen, w.lineFirst, len(w.stack), w.pick)
				}
				if lastMask == 0 || last < 0 || w.prevPC < 0 {
					t.Fatalf("%s: last %d lanes %#x, prev %d", k.name, last, lastMask, w.prevPC)
				}
				t.Logf("%s turn %d: %d instructions, %d splits", k.name, turn, c, m.fast.splits-splits)
				break
			}
			if !found && m.issueBatched(true) != StopStepped {
				t.Fatalf("%s: no split ran in onePath", k.name)
			}
		}
	}
}

// A split after which linePop would not make the pick (here: the path's
// level does not follow its region's) is handed back to leadLine as
// pending, with linePop refusing it there too.
func TestOnePathPendingSplit(t *testing.T) {
	l := batchLaunch{src: collatzPTX, grid: 1, block: 256, words: 256, sched: SchedIndependent}
	m := l.machine(t, true)
	for {
		for _, w := range m.warps {
			if w.State != WarpReady || len(w.stack) < 2 {
				continue
			}
			w.schedule()
			ns := len(w.stack)
			top := &w.stack[ns-1]
			if w.lineLen != int32(ns) || w.lineFirst != int32(ns-1) || m.prog.lead[top.PC] == leadStop {
				continue
			}
			splits := m.fast.splits
			top.level++
			c, _, _, _, pending := m.onePath(w, top, leadMax-1)
			if m.fast.splits == splits {
				if pending {
					t.Fatal("pending without a split")
				}
				top.level--
				continue
			}
			if !pending || len(w.stack) != ns || c < 2 {
				t.Fatalf("pending %v, %d entries of %d, %d instructions", pending, len(w.stack), ns, c)
			}
			if w.linePop(ns, ns+1) {
				t.Fatal("linePop made the pick that onePath left pending")
			}
			return
		}
		if m.issueBatched(true) != StopStepped {
			t.Fatal("no split ran in onePath")
		}
	}
}
