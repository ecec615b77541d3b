package emu

import (
	"context"
	"encoding/binary"
	"reflect"
	"testing"

	"github.com/ptxplayground/ptxplay/engine/ptx"
)

// Every lane of one warp takes a global lock with atom.cas in a loop,
// increments a counter in the critical section and releases the lock
// with atom.exch. out[0] is the lock, out[1] the counter.
const spinLockSrc = `.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 out) {
	.reg .u32 %r<4>; .reg .u64 %rd<4>; .reg .pred %p;
	ld.param.u64 %rd1, [out];
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
`

func schedKernel(t testing.TB, src string, sched Scheduling, block, grid [3]int, n int, budget int64) (*Machine, *Alloc) {
	t.Helper()
	prog, diags := CompileSource(ptx.NewSource("t.ptx", []byte(src)))
	if prog == nil {
		t.Fatalf("compile:\n%s", ptx.FormatAll(ptx.NewSource("t.ptx", []byte(src)), diags))
	}
	m, err := NewMachine(prog, "k", Config{Grid: grid, Block: block, Scheduling: sched, MaxWarpInstructions: budget})
	if err != nil {
		t.Fatal(err)
	}
	out := m.Global.Alloc("out", 4*n, 256)
	binary.LittleEndian.PutUint64(m.Params(), out.Base)
	return m, out
}

func TestSpinLockIndependentScheduling(t *testing.T) {
	m, out := schedKernel(t, spinLockSrc, SchedDefault, [3]int{32, 1, 1}, [3]int{1, 1, 1}, 2, 1_000_000)
	if m.Scheduling() != SchedIndependent {
		t.Fatalf("sm_80 defaults to %s", m.Scheduling())
	}
	if r := m.Run(context.Background()); r != StopDone {
		t.Fatalf("independent: stopped with %v (fault %v)", r, m.Fault())
	}
	if got := u32s(out); got[0] != 0 || got[1] != 32 {
		t.Fatalf("independent: lock %d counter %d, want 0 and 32", got[0], got[1])
	}

	m, out = schedKernel(t, spinLockSrc, SchedSIMTStack, [3]int{32, 1, 1}, [3]int{1, 1, 1}, 2, 100_000)
	if r := m.Run(context.Background()); r != StopLimit {
		t.Fatalf("simt-stack: stopped with %v, want the budget (livelock)", r)
	}
	if got := u32s(out); got[0] != 1 || got[1] != 0 {
		t.Fatalf("simt-stack: lock %d counter %d, want the lock held and 0", got[0], got[1])
	}
}

func TestSchedulingDefaultFromTarget(t *testing.T) {
	for _, c := range []struct {
		target string
		want   Scheduling
	}{{"sm_90a", SchedIndependent}, {"sm_70", SchedIndependent}, {"sm_61", SchedSIMTStack}, {"sm_52, texmode_independent", SchedSIMTStack}} {
		src := ".version 7.0\n.target " + c.target + "\n.address_size 64\n.visible .entry k(.param .u64 out) { ret; }\n"
		m, _ := schedKernel(t, src, SchedDefault, [3]int{32, 1, 1}, [3]int{1, 1, 1}, 1, 0)
		if m.Scheduling() != c.want {
			t.Errorf("%s: %s, want %s", c.target, m.Scheduling(), c.want)
		}
	}
	prog, _ := CompileSource(ptx.NewSource("t.ptx", []byte(spinLockSrc)))
	if _, err := NewMachine(prog, "k", Config{Grid: [3]int{1, 1, 1}, Block: [3]int{32, 1, 1}, Scheduling: "fair"}); err == nil {
		t.Fatal("unknown scheduling model accepted")
	}
}

// Divergent paths take turns: the if and else sides interleave, each
// issue from the next group by lowest lane, and the warp reconverges at
// the join with a single group, reporting the reconvergence.
func TestIndependentGroupsInterleaveAndReconverge(t *testing.T) {
	src := ctlHeader + `
.visible .entry k(.param .u64 out) {
	.reg .u32 %r<5>; .reg .u64 %rd<4>; .reg .pred %p;
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, %tid.x;
	and.b32 %r2, %r1, 1;
	setp.eq.u32 %p, %r2, 0;
	@%p bra EVEN;
	mov.u32 %r3, 1;
	add.u32 %r3, %r3, 10;
	bra.uni JOIN;
EVEN:
	mov.u32 %r3, 2;
	add.u32 %r3, %r3, 20;
JOIN:
	add.u32 %r3, %r3, 100;
	mul.wide.u32 %rd2, %r1, 4;
	add.u64 %rd3, %rd1, %rd2;
	st.global.u32 [%rd3], %r3;
	ret;
}
`
	m, out := schedKernel(t, src, SchedIndependent, [3]int{32, 1, 1}, [3]int{1, 1, 1}, 32, 0)
	var rec stepCollector
	m.SetObserver(&rec)
	var masks []uint32
	sawTwo := false
	for {
		r := m.Step(StepWarpInstruction)
		w := m.Warps()[0]
		if _, mask, _ := w.LastIssue(); r == StopStepped {
			masks = append(masks, mask)
		}
		if gs := w.Groups(); len(gs) >= 2 {
			sawTwo = true
		}
		if r != StopStepped {
			if r != StopDone {
				t.Fatalf("stopped with %v: %v", r, m.Fault())
			}
			break
		}
	}
	for l, v := range u32s(out) {
		want := uint32(111)
		if l%2 == 0 {
			want = 122
		}
		if v != want {
			t.Fatalf("lane %d: %d, want %d", l, v, want)
		}
	}
	if !sawTwo {
		t.Fatal("never saw two thread groups")
	}
	odd, even := uint32(0xaaaaaaaa), uint32(0x55555555)
	// After the branch the groups alternate from the lowest lane: even
	// (mov), odd (mov), even (add, reaching the join), odd (add), odd
	// (bra.uni to the join); then the warp runs reconverged.
	want := []uint32{even, odd, even, odd, odd}
	got := masks[5 : 5+len(want)]
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("issue masks after the branch: %x, want %x (all: %x)", got, want, masks)
	}
	if last := masks[len(masks)-1]; last != ^uint32(0) {
		t.Fatalf("last instruction issued for %x, want every lane (reconverged)", last)
	}
	if rec.reconverge != 1 {
		t.Fatalf("%d reconverge events, want 1", rec.reconverge)
	}
}

type stepCollector struct{ reconverge int }

func (c *stepCollector) Step(info *StepInfo) {
	for _, e := range info.Events {
		if e.Kind == EvReconverge {
			c.reconverge++
		}
	}
}

// A snapshot taken mid-divergence under independent scheduling restores to
// a machine that finishes exactly like a fresh run.
func TestIndependentSnapshotMidDivergence(t *testing.T) {
	fresh, fout := schedKernel(t, spinLockSrc, SchedIndependent, [3]int{32, 1, 1}, [3]int{1, 1, 1}, 2, 0)
	if r := fresh.Run(context.Background()); r != StopDone {
		t.Fatalf("fresh: %v", r)
	}
	m, out := schedKernel(t, spinLockSrc, SchedIndependent, [3]int{32, 1, 1}, [3]int{1, 1, 1}, 2, 0)
	var snap *Snapshot
	var groups []ThreadGroup
	for i := 0; i < 2000; i++ {
		m.Step(StepWarpInstruction)
		if gs := m.Warps()[0].Groups(); i == 700 {
			if len(gs) < 2 {
				t.Fatalf("not diverged at step %d: %+v", i, gs)
			}
			snap, groups = m.Snapshot(true), gs
		}
	}
	m.Restore(snap)
	if gs := m.Warps()[0].Groups(); !reflect.DeepEqual(gs, groups) {
		t.Fatalf("restored groups %+v, want %+v", gs, groups)
	}
	if r := m.Run(context.Background()); r != StopDone {
		t.Fatalf("restored: %v", r)
	}
	if !reflect.DeepEqual(u32s(out), u32s(fout)) || m.Stats() != fresh.Stats() {
		t.Fatalf("restored run: %v %+v, fresh %v %+v", u32s(out), m.Stats(), u32s(fout), fresh.Stats())
	}
}
