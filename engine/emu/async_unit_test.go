package emu

import (
	"context"
	"encoding/binary"
	"slices"
	"testing"
	"unsafe"

	"github.com/ptxplayground/ptxplay/engine/isa"
	"github.com/ptxplayground/ptxplay/engine/ptx"
)

// stepToPending steps m until warp 0 has n cp.async copies in flight.
func stepToPending(t *testing.T, m *Machine, n int) {
	t.Helper()
	for len(m.Warps()) == 0 || len(m.Warps()[0].PendingCopies()) < n {
		if r := m.Step(StepWarpInstruction); r != StopStepped {
			t.Fatal(r, m.Fault())
		}
	}
}

// Two machines in the same state but for the bytes of their copies in
// flight are different states: DiffState says so (the copies land later
// and the kernels' results differ).
func TestDiffStateSeesPendingCopies(t *testing.T) {
	a, _, aout := asyncMachine(t, asyncGroupsPTX, 32, 8*32)
	b, bin, bout := asyncMachine(t, asyncGroupsPTX, 32, 8*32)
	// b's copies read other source words; its global memory is put back
	// once they are issued, so only the copies in flight differ.
	orig := slices.Clone(bin.Data)
	for i := range 256 {
		binary.LittleEndian.PutUint32(bin.Data[4*i:], uint32(5000+i))
	}
	stepToPending(t, a, 64)
	stepToPending(t, b, 64)
	copy(bin.Data, orig)
	if d := a.DiffState(b); d == "" {
		t.Fatal("DiffState: the same state, though the copies in flight carry different bytes")
	} else {
		t.Log(d)
	}
	// The same machines with the same copies are the same state.
	c, _, _ := asyncMachine(t, asyncGroupsPTX, 32, 8*32)
	stepToPending(t, c, 64)
	if d := a.DiffState(c); d != "" {
		t.Fatalf("DiffState of two equal runs: %s", d)
	}
	for _, m := range []*Machine{a, b} {
		if r := m.Run(context.Background()); r != StopDone {
			t.Fatal(r, m.Fault())
		}
	}
	if slices.Equal(aout.Data, bout.Data) {
		t.Fatal("the copies in flight differed but the results are the same")
	}
}

// DiffState sees a copy in flight that one machine has and the other has
// landed (the same registers, memory and pcs otherwise: the wait is the
// difference, and the copy has not changed shared memory yet because it
// writes the bytes already there).
func TestDiffStateSeesPendingQueueLength(t *testing.T) {
	a, _, _ := asyncMachine(t, asyncGroupsPTX, 32, 8*32)
	stepToPending(t, a, 64)
	s := a.Snapshot(true)
	b, _, _ := asyncMachine(t, asyncGroupsPTX, 32, 8*32)
	b.Restore(s)
	if d := a.DiffState(b); d != "" {
		t.Fatalf("restored: %s", d)
	}
	// Land warp 0's copies of lane 3 in b only, as an exiting lane would,
	// then put the shared bytes back: only the queue differs.
	w := b.Warps()[0]
	sh := slices.Clone(w.cta.shared)
	dyn := b.dyn
	w.landCopies(1<<3, -1)
	copy(w.cta.shared, sh)
	b.dyn = dyn
	if n := len(w.PendingCopies()); n != 62 {
		t.Fatalf("%d copies left in flight, want 62", n)
	}
	if d := a.DiffState(b); d == "" {
		t.Fatal("DiffState: the same state, though one machine has two fewer copies in flight")
	} else {
		t.Log(d)
	}
}

// A snapshot and a Restore keep the CTA's asynchronous work: the copies
// in flight and every thread's commit groups (a copy issued after the
// restore joins the group it would have joined).
func TestSnapshotKeepsCommitGroups(t *testing.T) {
	m, _, out := asyncMachine(t, asyncGroupsPTX, 32, 8*32)
	var steps []isa.Opcode
	m.SetObserver(observerFunc(func(s *StepInfo) { steps = append(steps, m.prog.Ops[s.PC].Code) }))
	// Just after the first commit: one committed group per lane.
	for len(steps) == 0 || steps[len(steps)-1] != isa.OpCpAsyncCommitGroup {
		if r := m.Step(StepWarpInstruction); r != StopStepped {
			t.Fatal(r, m.Fault())
		}
	}
	s := m.Snapshot(true)
	if r := m.Run(context.Background()); r != StopDone {
		t.Fatal(r, m.Fault())
	}
	want := slices.Clone(out.Data)
	m2, _, out2 := asyncMachine(t, asyncGroupsPTX, 32, 8*32)
	m2.Restore(s)
	stepToPending(t, m2, 64)
	for _, c := range m2.Warps()[0].PendingCopies() {
		if wantG := uint32(min(c.PC-m2.Warps()[0].PendingCopies()[0].PC, 1)); c.Group != wantG {
			t.Fatalf("copy %+v: group %d, want %d", c, c.Group, wantG)
		}
	}
	if r := m2.Run(context.Background()); r != StopDone {
		t.Fatal(r, m2.Fault())
	}
	if !slices.Equal(out2.Data, want) {
		t.Fatal("the run restored from the snapshot differs")
	}
}

// DiffState sees a difference in a thread's commit groups alone.
func TestDiffStateSeesCommitGroups(t *testing.T) {
	a, _, _ := asyncMachine(t, asyncGroupsPTX, 32, 8*32)
	b, _, _ := asyncMachine(t, asyncGroupsPTX, 32, 8*32)
	stepToPending(t, a, 32)
	stepToPending(t, b, 32)
	b.CTAs()[0].Warps[0].commitCopies(1 << 7)
	if d := a.DiffState(b); d == "" {
		t.Fatal("DiffState: the same state, though lane 7 committed one more group in one machine")
	} else {
		t.Log(d)
	}
}

// An operation in flight fits in the dynamic state it is counted as.
func TestAsyncOpSize(t *testing.T) {
	if n := unsafe.Sizeof(asyncOp{}); int64(n) > copyBytes {
		t.Fatalf("an operation in flight takes %d bytes, counted as %d", n, copyBytes)
	}
}

// A CTA whose memory is reused by the next one starts without commit
// groups: the next CTA's copies are in groups 0 and 1 again.
func TestAsyncReusedCTAStartsAfresh(t *testing.T) {
	s := ptx.NewSource("t.ptx", []byte(asyncGroupsPTX))
	prog, diags := CompileSource(s)
	if prog == nil {
		t.Fatalf("compile:\n%s", ptx.FormatAll(s, diags))
	}
	m, err := NewMachine(prog, "k", Config{Grid: [3]int{2, 1, 1}, Block: [3]int{32, 1, 1}, ResidentCTAs: 1})
	if err != nil {
		t.Fatal(err)
	}
	in := m.Global.Alloc("in", 4*256, 256)
	out := m.Global.Alloc("out", 4*8*32, 256)
	binary.LittleEndian.PutUint64(m.Params(), in.Base)
	binary.LittleEndian.PutUint64(m.Params()[8:], out.Base)
	for len(m.CTAs()) == 0 || m.CTAs()[0].Linear != 1 || len(m.Warps()[0].PendingCopies()) < 64 {
		if r := m.Step(StepWarpInstruction); r != StopStepped {
			t.Fatal(r, m.Fault())
		}
	}
	for i, c := range m.Warps()[0].PendingCopies() {
		if want := uint32(i / 32); c.Group != want || c.Committed != (want == 0) {
			t.Fatalf("copy %d of the second CTA: group %d committed %v, want group %d", i, c.Group, c.Committed, want)
		}
	}
}

// A batched run that faults while warps are ahead replays from the
// snapshot it took when it started: the copies in flight then, and the
// commit groups, come back, and the run ends in the one-at-a-time run's
// state.
func TestFaultReplayRestoresAsyncWork(t *testing.T) {
	src := memHdr + `
.visible .entry k(.param .u64 buf) {
	.shared .align 16 .u32 sm[256];
	.reg .u32 %r<16>; .reg .u64 %rd<8>; .reg .pred %p<4>;
	ld.param.u64 %rd1, [buf];
	mov.u32 %r1, %tid.x;
	shl.b32 %r2, %r1, 2;
	mov.u32 %r9, sm;
	add.u32 %r2, %r2, %r9;
	mul.wide.u32 %rd2, %r1, 4;
	add.u64 %rd3, %rd1, %rd2;
	cp.async.ca.shared.global [%r2], [%rd3], 4;
	cp.async.commit_group;
	cp.async.ca.shared.global [%r2+512], [%rd3+512], 4;
	mov.u32 %r4, 0;
	mov.u32 %r5, %r1;
LOOP:
	mul.lo.u32 %r5, %r5, 7;
	add.u32 %r5, %r5, 3;
	xor.b32 %r5, %r5, 0x55;
	add.u32 %r4, %r4, 1;
	setp.lt.u32 %p1, %r4, 30;
	@%p1 bra LOOP;
	cp.async.wait_group 0;
	ld.shared.u32 %r6, [%r2];
	add.u32 %r6, %r6, %r5;
	setp.eq.u32 %p2, %r1, 100;
	@%p2 add.u64 %rd3, %rd3, 4096;
	st.global.u32 [%rd3], %r6;
B:
	mad.lo.u32 %r5, %r5, 1664525, 1013904223;
	add.u32 %r4, %r4, 1;
	setp.lt.u32 %p1, %r4, 60;
	@%p1 bra B;
	st.global.u32 [%rd3], %r5;
	cp.async.wait_all;
	ret;
}`
	for _, sched := range []Scheduling{SchedSIMTStack, SchedIndependent} {
		l := batchLaunch{src: src, grid: 1, block: 128, words: 300, sched: sched}
		a, b := l.machine(t, true), l.machine(t, false)
		// Both start the run with copies in flight and a group committed.
		for _, m := range []*Machine{a, b} {
			stepToPending(t, m, 64)
		}
		if d := a.DiffState(b); d != "" {
			t.Fatal(d)
		}
		ra, rb := a.Run(context.Background()), b.Run(context.Background())
		if ra != StopFault || rb != StopFault || a.fast.replays != 1 {
			t.Fatalf("%s: batched %v (%d replays), one at a time %v", sched, ra, a.fast.replays, rb)
		}
		if d := a.DiffState(b); d != "" {
			t.Fatalf("%s: the replayed run and the one-at-a-time run differ: %s", sched, d)
		}
		if len(a.Warps()[3].PendingCopies()) == 0 {
			t.Fatalf("%s: no copies in flight at the fault", sched)
		}
	}
}
