package emu

import (
	"context"
	"reflect"
	"testing"
)

// checkReplay runs src (the launch of schedKernel with n words of out) one
// warp-instruction at a time, taking snapshots along the way, and demands
// that the result equal a plain Run's (batched dispatch), and that every
// snapshot restore to the same thread groups and finish with the same
// memory and counters: history, step back and seek stay exact.
func checkReplay(t *testing.T, src string, sched Scheduling, block, grid [3]int, n int) {
	t.Helper()
	ref, rout := schedKernel(t, src, sched, block, grid, n, 0)
	if r := ref.Run(context.Background()); r != StopDone {
		t.Fatalf("%s: run: %v %v", sched, r, ref.Fault())
	}
	m, out := schedKernel(t, src, sched, block, grid, n, 0)
	type mark struct {
		s      *Snapshot
		groups [][]ThreadGroup
	}
	var marks []mark
	for i := 0; ; i++ {
		if i%37 == 0 {
			var gs [][]ThreadGroup
			for _, w := range m.Warps() {
				gs = append(gs, w.Groups())
			}
			marks = append(marks, mark{m.Snapshot(true), gs})
		}
		r := m.Step(StepWarpInstruction)
		if r == StopDone {
			break
		}
		if r != StopStepped {
			t.Fatalf("%s: step %d: %v %v", sched, i, r, m.Fault())
		}
	}
	if !reflect.DeepEqual(u32s(out), u32s(rout)) || m.Stats() != ref.Stats() {
		t.Fatalf("%s: stepped %v %+v, run %v %+v", sched, u32s(out), m.Stats(), u32s(rout), ref.Stats())
	}
	for k := 1; k < len(marks); k += max(1, len(marks)/6) {
		mk := marks[k]
		m.Restore(mk.s)
		for i, w := range m.Warps() {
			if gs := w.Groups(); !reflect.DeepEqual(gs, mk.groups[i]) {
				t.Fatalf("%s: snapshot %d warp %d: groups %+v, want %+v", sched, k, i, gs, mk.groups[i])
			}
		}
		if r := m.Run(context.Background()); r != StopDone {
			t.Fatalf("%s: restored %d: %v %v", sched, k, r, m.Fault())
		}
		if !reflect.DeepEqual(u32s(out), u32s(rout)) || m.Stats() != ref.Stats() {
			t.Fatalf("%s: restored %d: %v %+v, run %v %+v", sched, k, u32s(out), m.Stats(), u32s(rout), ref.Stats())
		}
	}
}

// Recursion with a divergent depth per lane: lane l recurses l%4 levels.
// At the bottom, the deepest lanes (l%4 == 3) spin until the lanes of
// depth 0, which return at once, raise a flag after the call: independent
// scheduling completes (the lanes that returned go on after waiting
// ReconvergeWait instructions for the rest of their call), the SIMT stack
// livelocks. out[1+t] = the sum the recursion returns, plus the flag the
// deepest lanes saw.
const recurseSrc = ctlHeader + `
.func (.param .u32 r) sum(.param .u32 n, .param .u64 f) {
	.reg .u32 %r<6>; .reg .u64 %rd1; .reg .pred %p;
	ld.param.u32 %r1, [n];
	ld.param.u64 %rd1, [f];
	setp.eq.u32 %p, %r1, 0;
	@%p bra BASE;
	sub.u32 %r2, %r1, 1;
	{
	.param .u32 a;
	.param .u64 b;
	.param .u32 c;
	st.param.u32 [a], %r2;
	st.param.u64 [b], %rd1;
	call (c), sum, (a, b);
	ld.param.u32 %r3, [c];
	}
	add.u32 %r4, %r3, %r1;
	st.param.u32 [r], %r4;
	ret;
BASE:
	mov.u32 %r5, %tid.x;
	and.b32 %r5, %r5, 3;
	setp.ne.u32 %p, %r5, 3;
	@%p bra DONE;
SPIN:
	ld.volatile.global.u32 %r5, [%rd1];
	setp.eq.u32 %p, %r5, 0;
	@%p bra SPIN;
	st.param.u32 [r], %r5;
	ret;
DONE:
	mov.u32 %r5, 0;
	st.param.u32 [r], %r5;
	ret;
}
.visible .entry k(.param .u64 out) {
	.reg .u32 %r<5>; .reg .u64 %rd<4>; .reg .pred %p;
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, %tid.x;
	and.b32 %r2, %r1, 3;
	{
	.param .u32 a;
	.param .u64 b;
	.param .u32 c;
	st.param.u32 [a], %r2;
	st.param.u64 [b], %rd1;
	call (c), sum, (a, b);
	ld.param.u32 %r3, [c];
	}
	setp.ne.u32 %p, %r2, 0;
	@%p bra OUT;
	st.volatile.global.u32 [%rd1], 100;
OUT:
	mul.wide.u32 %rd2, %r1, 4;
	add.u64 %rd3, %rd1, %rd2;
	st.global.u32 [%rd3+4], %r3;
	ret;
}
`

func TestRecursionDivergentDepth(t *testing.T) {
	m, out := schedKernel(t, recurseSrc, SchedIndependent, [3]int{32, 1, 1}, [3]int{1, 1, 1}, 33, 200_000)
	if r := m.Run(context.Background()); r != StopDone {
		t.Fatalf("independent: %v %v", r, m.Fault())
	}
	got := u32s(out)
	for l := 0; l < 32; l++ {
		d := uint32(l % 4)
		want := d * (d + 1) / 2
		if d == 3 {
			want += 100
		}
		if got[1+l] != want {
			t.Errorf("lane %d returned %d, want %d", l, got[1+l], want)
		}
	}
	m, _ = schedKernel(t, recurseSrc, SchedSIMTStack, [3]int{32, 1, 1}, [3]int{1, 1, 1}, 33, 30_000)
	if r := m.Run(context.Background()); r != StopLimit {
		t.Errorf("simt-stack: %v %v, want the budget", r, m.Fault())
	}
	checkReplay(t, recurseSrc, SchedIndependent, [3]int{32, 1, 1}, [3]int{1, 1, 1}, 33)
}

// Nested calls with divergence at every level and no dependence between
// lanes: both models give the same results, and reconverge at the same
// immediate post-dominators (the same number of reconvergences).
func TestNestedCallsDivergence(t *testing.T) {
	src := ctlHeader + `
.func (.param .u32 r) inner(.param .u32 x) {
	.reg .u32 %r<3>; .reg .pred %p;
	ld.param.u32 %r1, [x];
	and.b32 %r2, %r1, 1;
	setp.eq.u32 %p, %r2, 0;
	@%p bra EVEN;
	mul.lo.u32 %r1, %r1, 3;
	bra.uni J;
EVEN:
	add.u32 %r1, %r1, 1000;
J:
	st.param.u32 [r], %r1;
	ret;
}
.func (.param .u32 r) outer(.param .u32 x) {
	.reg .u32 %r<4>; .reg .pred %p;
	ld.param.u32 %r1, [x];
	setp.lt.u32 %p, %r1, 12;
	@%p bra SMALL;
	{
	.param .u32 a;
	.param .u32 b;
	st.param.u32 [a], %r1;
	call (b), inner, (a);
	ld.param.u32 %r2, [b];
	}
	bra.uni J;
SMALL:
	shl.b32 %r2, %r1, 4;
J:
	add.u32 %r2, %r2, 7;
	st.param.u32 [r], %r2;
	ret;
}
.visible .entry k(.param .u64 out) {
	.reg .u32 %r<4>; .reg .u64 %rd<4>; .reg .pred %p;
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, %tid.x;
	setp.ge.u32 %p, %r1, 24;
	@%p bra SKIP;
	{
	.param .u32 a;
	.param .u32 b;
	st.param.u32 [a], %r1;
	call (b), outer, (a);
	ld.param.u32 %r2, [b];
	}
	bra.uni J;
SKIP:
	mov.u32 %r2, 5;
J:
	mul.wide.u32 %rd2, %r1, 4;
	add.u64 %rd3, %rd1, %rd2;
	st.global.u32 [%rd3], %r2;
	ret;
}
`
	var reconv []int
	for _, sched := range []Scheduling{SchedIndependent, SchedSIMTStack} {
		m, out := schedKernel(t, src, sched, [3]int{32, 1, 1}, [3]int{1, 1, 1}, 32, 100_000)
		c := &stepCollector{}
		m.SetObserver(c)
		if r := m.Run(context.Background()); r != StopDone {
			t.Fatalf("%s: %v %v", sched, r, m.Fault())
		}
		for i, v := range u32s(out) {
			want := uint32(5)
			switch {
			case i < 12:
				want = uint32(i<<4 + 7)
			case i < 24 && i%2 == 0:
				want = uint32(i + 1007)
			case i < 24:
				want = uint32(3*i + 7)
			}
			if v != want {
				t.Errorf("%s: out[%d] = %d, want %d", sched, i, v, want)
			}
		}
		reconv = append(reconv, c.reconverge)
		checkReplay(t, src, sched, [3]int{32, 1, 1}, [3]int{1, 1, 1}, 32)
	}
	if reconv[0] != reconv[1] || reconv[0] == 0 {
		t.Errorf("reconvergences: independent %d, simt-stack %d", reconv[0], reconv[1])
	}
}

// A call on each side of a divergent branch: the lanes in one call spin
// on a flag that the lanes in the other call raise. Independent scheduling
// lets the groups of both calls take turns; under the SIMT stack the
// branch target (the spinning side) runs first and never stops.
func TestCallsOnBothSides(t *testing.T) {
	src := ctlHeader + `
.func (.param .u32 r) waiter(.param .u64 f) {
	.reg .u32 %r1; .reg .u64 %rd1; .reg .pred %p;
	ld.param.u64 %rd1, [f];
SPIN:
	ld.volatile.global.u32 %r1, [%rd1];
	setp.eq.u32 %p, %r1, 0;
	@%p bra SPIN;
	add.u32 %r1, %r1, 1;
	st.param.u32 [r], %r1;
	ret;
}
.func (.param .u32 r) raiser(.param .u64 f) {
	.reg .u32 %r1; .reg .u64 %rd1;
	ld.param.u64 %rd1, [f];
	mov.u32 %r1, %tid.x;
	atom.global.add.u32 %r1, [%rd1], 1;
	mov.u32 %r1, 50;
	st.param.u32 [r], %r1;
	ret;
}
.visible .entry k(.param .u64 out) {
	.reg .u32 %r<4>; .reg .u64 %rd<4>; .reg .pred %p;
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, %tid.x;
	setp.lt.u32 %p, %r1, 16;
	@%p bra WAIT;
	{
	.param .u64 a;
	.param .u32 b;
	st.param.u64 [a], %rd1;
	call (b), raiser, (a);
	ld.param.u32 %r2, [b];
	}
	bra.uni J;
WAIT:
	{
	.param .u64 a;
	.param .u32 b;
	st.param.u64 [a], %rd1;
	call (b), waiter, (a);
	ld.param.u32 %r2, [b];
	}
J:
	mul.wide.u32 %rd2, %r1, 4;
	add.u64 %rd3, %rd1, %rd2;
	st.global.u32 [%rd3+4], %r2;
	ret;
}
`
	m, out := schedKernel(t, src, SchedIndependent, [3]int{32, 1, 1}, [3]int{1, 1, 1}, 33, 100_000)
	if r := m.Run(context.Background()); r != StopDone {
		t.Fatalf("independent: %v %v", r, m.Fault())
	}
	got := u32s(out)
	if got[0] != 16 {
		t.Errorf("flag %d, want 16", got[0])
	}
	for l := 0; l < 32; l++ {
		// The waiters saw the flag once some raisers raised it.
		if l >= 16 && got[1+l] != 50 || l < 16 && (got[1+l] < 2 || got[1+l] > 17) {
			t.Errorf("lane %d returned %d", l, got[1+l])
		}
	}
	m, _ = schedKernel(t, src, SchedSIMTStack, [3]int{32, 1, 1}, [3]int{1, 1, 1}, 33, 20_000)
	if r := m.Run(context.Background()); r != StopLimit {
		t.Errorf("simt-stack: %v %v, want the budget", r, m.Fault())
	}
	checkReplay(t, src, SchedIndependent, [3]int{32, 1, 1}, [3]int{1, 1, 1}, 33)
}

// bar.warp.sync inside a call waits for the member lanes outside it: the
// lanes 0-15 in the call wait (sync-wait, awaiting lanes 16-31) until
// lanes 16-31 in the caller store their values and execute their own
// bar.warp.sync with the same membermask; then the lanes in the call read
// those values. Under the SIMT stack bar.warp.sync does not wait and the
// lanes in the call (the branch target, first) read zeros.
func TestWarpSyncInCallWaitsForCaller(t *testing.T) {
	src := ctlHeader + `
.func (.param .u32 r) get(.param .u64 p) {
	.reg .u32 %r1; .reg .u64 %rd1;
	ld.param.u64 %rd1, [p];
	bar.warp.sync 0xffffffff;
	ld.global.u32 %r1, [%rd1+64];
	st.param.u32 [r], %r1;
	ret;
}
.visible .entry k(.param .u64 out) {
	.reg .u32 %r<4>; .reg .u64 %rd<4>; .reg .pred %p;
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, %tid.x;
	mov.u32 %r3, 0;
	mul.wide.u32 %rd2, %r1, 4;
	add.u64 %rd3, %rd1, %rd2;
	setp.lt.u32 %p, %r1, 16;
	@%p bra LOW;
	mov.u32 %r2, 0;
WORK:                                  // the lanes outside the call take a while
	add.u32 %r2, %r2, %r1;
	add.u32 %r3, %r3, 1;
	setp.lt.u32 %p, %r3, 11;
	@%p bra WORK;
	st.global.u32 [%rd3], %r2;
	bar.warp.sync 0xffffffff;
	bra.uni J;
LOW:
	{
	.param .u64 a;
	.param .u32 b;
	st.param.u64 [a], %rd3;
	call (b), get, (a);
	ld.param.u32 %r2, [b];
	}
	st.global.u32 [%rd3], %r2;
J:
	ret;
}
`
	m, out := schedKernel(t, src, SchedIndependent, [3]int{32, 1, 1}, [3]int{1, 1, 1}, 32, 100_000)
	sawWait := false
	for {
		r := m.Step(StepWarpInstruction)
		if r == StopDone {
			break
		}
		if r != StopStepped {
			t.Fatalf("independent: %v %v", r, m.Fault())
		}
		for _, g := range m.Warps()[0].Groups() {
			if g.State == GroupSyncWait {
				sawWait = true
				if g.Mask != 0x0000ffff || g.Awaits != 0xffff0000 || g.Depth != 1 {
					t.Fatalf("sync-wait group %+v: want lanes 0-15 in the call awaiting lanes 16-31", g)
				}
			}
		}
	}
	if !sawWait {
		t.Errorf("the lanes in the call never waited at bar.warp.sync")
	}
	for l, v := range u32s(out) {
		want := uint32(11 * l)
		if l < 16 {
			want = uint32(11 * (l + 16))
		}
		if v != want {
			t.Errorf("independent: out[%d] = %d, want %d", l, v, want)
		}
	}
	m, out = schedKernel(t, src, SchedSIMTStack, [3]int{32, 1, 1}, [3]int{1, 1, 1}, 32, 100_000)
	if r := m.Run(context.Background()); r != StopDone {
		t.Fatalf("simt-stack: %v %v", r, m.Fault())
	}
	if got := u32s(out); got[0] != 0 || got[31] != 11*31 {
		t.Errorf("simt-stack: out[0] %d out[31] %d, want 0 and %d", got[0], got[31], 11*31)
	}
	checkReplay(t, src, SchedIndependent, [3]int{32, 1, 1}, [3]int{1, 1, 1}, 32)
}

// bar.sync inside a call taken by half of a warp, and in the caller by the
// other half: under independent scheduling the group in the call waits at
// its barrier for the lanes outside, which reach theirs; the warp arrives
// once. Every thread then reads what the thread 32 places on wrote before
// the barrier (in the other warp).
func TestBarrierInCall(t *testing.T) {
	src := ctlHeader + `
.shared .align 4 .b32 buf[64];
.func sync_read(.param .u32 i) {
	.reg .u32 %r<3>;
	ld.param.u32 %r1, [i];
	bar.sync 0;
	ret;
}
.visible .entry k(.param .u64 out) {
	.reg .u32 %r<8>; .reg .u64 %rd<4>; .reg .pred %p;
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, %tid.x;
	shl.b32 %r2, %r1, 2;
	mov.u32 %r3, buf;
	add.u32 %r4, %r3, %r2;
	mul.lo.u32 %r5, %r1, 7;
	st.shared.u32 [%r4], %r5;
	and.b32 %r6, %r1, 31;
	setp.lt.u32 %p, %r6, 16;
	@%p bra LOW;
	bar.sync 0;
	bra.uni J;
LOW:
	{
	.param .u32 a;
	st.param.u32 [a], %r1;
	call sync_read, (a);
	}
J:
	add.u32 %r6, %r1, 32;
	and.b32 %r6, %r6, 63;
	shl.b32 %r6, %r6, 2;
	add.u32 %r6, %r3, %r6;
	ld.shared.u32 %r7, [%r6];
	mul.wide.u32 %rd2, %r1, 4;
	add.u64 %rd3, %rd1, %rd2;
	st.global.u32 [%rd3], %r7;
	ret;
}
`
	m, out := schedKernel(t, src, SchedIndependent, [3]int{64, 1, 1}, [3]int{1, 1, 1}, 64, 100_000)
	if r := m.Run(context.Background()); r != StopDone {
		t.Fatalf("independent: %v %v", r, m.Fault())
	}
	for i, v := range u32s(out) {
		if want := uint32(7 * ((i + 32) % 64)); v != want {
			t.Errorf("out[%d] = %d, want %d", i, v, want)
		}
	}
	checkReplay(t, src, SchedIndependent, [3]int{64, 1, 1}, [3]int{1, 1, 1}, 64)
}

// A call made right after a divergent region reconverges, to a callee
// that runs longer than ReconvergeWait: the lanes that reached the join
// first waited there as a region's waiting lanes; when the region
// reconverged and the merged path made the call, those lanes must not be
// taken for lanes that returned from the call (they were once: after
// ReconvergeWait instructions they went on with the callee's stale result
// register, 0 here, while the call went on with them still in it). No
// recursion is needed; recursive CUDA device functions, which clang cannot
// inline, were where it showed (erfcinvf, lgammaf).
const callAfterJoinSrc = ctlHeader + `
.func (.reg .u32 r) slow(.reg .u32 x) {
	.reg .u32 %i; .reg .pred %p;
	mov.u32 %i, 0;
LOOP:
	add.u32 x, x, 3;
	add.u32 %i, %i, 1;
	setp.lt.u32 %p, %i, 100;
	@%p bra LOOP;
	mov.u32 r, x;
	ret;
}
.visible .entry k(.param .u64 out) {
	.reg .u32 %t, %v, %r; .reg .pred %p; .reg .u64 %a, %o;
	ld.param.u64 %o, [out];
	mov.u32 %t, %tid.x;
	mov.u32 %v, %t;
	setp.lt.u32 %p, %t, 16;
	@%p bra JOIN;
	add.u32 %v, %v, 1000;
JOIN:
	call (%r), slow, (%v);
	mul.wide.u32 %a, %t, 4;
	add.u64 %a, %o, %a;
	st.global.u32 [%a], %r;
	ret;
}
`

func TestCallAfterReconvergence(t *testing.T) {
	for _, sched := range []Scheduling{SchedIndependent, SchedSIMTStack} {
		m, out := schedKernel(t, callAfterJoinSrc, sched, [3]int{32, 1, 1}, [3]int{1, 1, 1}, 32, 100_000)
		if r := m.Run(context.Background()); r != StopDone {
			t.Fatalf("%s: %v %v", sched, r, m.Fault())
		}
		for l, v := range u32s(out) {
			want := uint32(l + 300)
			if l >= 16 {
				want += 1000
			}
			if v != want {
				t.Errorf("%s: lane %d: slow returned %d, want %d", sched, l, v, want)
			}
		}
	}
	checkReplay(t, callAfterJoinSrc, SchedIndependent, [3]int{32, 1, 1}, [3]int{1, 1, 1}, 32)
}
