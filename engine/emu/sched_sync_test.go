package emu

import (
	"context"
	"strings"
	"testing"
)

// syncKernel builds a kernel for one warp of 32 threads: %r1 is the lane,
// %rd1 the output buffer (out[0..31] an exchange area, out[32..63] the
// results). body runs after every lane stored 7 into its exchange slot.
func syncKernel(body string) string {
	return `.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 out) {
	.reg .u32 %r<12>; .reg .u64 %rd<8>; .reg .pred %p<8>;
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, %tid.x;
	mul.wide.u32 %rd2, %r1, 4;
	add.u64 %rd3, %rd1, %rd2;      // &out[lane]
	add.u64 %rd4, %rd3, 128;       // &out[32+lane]
	xor.b32 %r2, %r1, 16;
	mul.wide.u32 %rd5, %r2, 4;
	add.u64 %rd5, %rd1, %rd5;      // &out[lane^16]
	st.global.u32 [%rd3], 7;
` + body + `
DONE:
	ret;
}
`
}

// The if/else paths reach the warp-synchronous instruction at different
// times: the then-path (lanes 0-15) does more work first, and a branch to
// DONE that is never taken makes DONE, not SYNC, the reconvergence point.
const syncIfElse = `
	setp.lt.u32 %p1, %r1, 16;
	@%p1 bra THEN;
	mul.lo.u32 %r3, %r1, 2;
	st.global.u32 [%rd3], %r3;
	bra.uni SYNC;
THEN:
	add.u32 %r3, %r1, %r1;
	add.u32 %r3, %r3, %r1;
	add.u32 %r4, %r3, 0;
	add.u32 %r4, %r4, 0;
	add.u32 %r4, %r4, 0;
	add.u32 %r4, %r4, 0;
	add.u32 %r4, %r4, 0;
	add.u32 %r4, %r4, 0;
	st.global.u32 [%rd3], %r3;
	setp.eq.u32 %p3, %r1, 99;
	@%p3 bra DONE;
SYNC:
`

// want is lane l's value: 3*l for lanes 0-15, 2*l for lanes 16-31.
func syncIfElseValue(l int) uint32 {
	if l < 16 {
		return uint32(3 * l)
	}
	return uint32(2 * l)
}

func TestDivergentSyncwarp(t *testing.T) {
	src := syncKernel(syncIfElse + `
	bar.warp.sync 0xffffffff;
	ld.global.u32 %r5, [%rd5];
	st.global.u32 [%rd4], %r5;`)

	// Independent scheduling: every lane waits at bar.warp.sync for the
	// others, so every lane reads its partner's value.
	m, out := schedKernel(t, src, SchedIndependent, [3]int{32, 1, 1}, [3]int{1, 1, 1}, 64, 100_000)
	if r := m.Run(context.Background()); r != StopDone {
		t.Fatalf("independent: %v %v", r, m.Fault())
	}
	got := u32s(out)
	for l := 0; l < 32; l++ {
		if want := syncIfElseValue(l ^ 16); got[32+l] != want {
			t.Errorf("independent lane %d read %d, want %d", l, got[32+l], want)
		}
	}

	// The SIMT stack runs the then-path to the end first; bar.warp.sync is
	// a no-op there, so lanes 0-15 read the 7 lanes 16-31 stored before
	// the branch, and lanes 16-31 read the values of lanes 0-15.
	m, out = schedKernel(t, src, SchedSIMTStack, [3]int{32, 1, 1}, [3]int{1, 1, 1}, 64, 100_000)
	if r := m.Run(context.Background()); r != StopDone {
		t.Fatalf("simt-stack: %v %v", r, m.Fault())
	}
	got = u32s(out)
	for l := 0; l < 32; l++ {
		want := uint32(7)
		if l >= 16 {
			want = syncIfElseValue(l ^ 16)
		}
		if got[32+l] != want {
			t.Errorf("simt-stack lane %d read %d, want %d", l, got[32+l], want)
		}
	}
}

// The classic sm_70 pattern: each side of an if/else has its own
// bar.warp.sync with the full mask; they synchronise with each other.
func TestSyncwarpInBothBranches(t *testing.T) {
	src := syncKernel(`
	setp.lt.u32 %p1, %r1, 16;
	@%p1 bra THEN;
	mul.lo.u32 %r3, %r1, 2;
	st.global.u32 [%rd3], %r3;
	bar.warp.sync 0xffffffff;
	ld.global.u32 %r5, [%rd5];
	bra.uni JOIN;
THEN:
	add.u32 %r3, %r1, %r1;
	add.u32 %r3, %r3, %r1;
	add.u32 %r4, %r3, 0;
	add.u32 %r4, %r4, 0;
	st.global.u32 [%rd3], %r3;
	bar.warp.sync 0xffffffff;
	ld.global.u32 %r5, [%rd5];
JOIN:
	st.global.u32 [%rd4], %r5;`)
	m, out := schedKernel(t, src, SchedIndependent, [3]int{32, 1, 1}, [3]int{1, 1, 1}, 64, 100_000)
	if r := m.Run(context.Background()); r != StopDone {
		t.Fatalf("independent: %v %v", r, m.Fault())
	}
	got := u32s(out)
	for l := 0; l < 32; l++ {
		if want := syncIfElseValue(l ^ 16); got[32+l] != want {
			t.Errorf("lane %d read %d, want %d", l, got[32+l], want)
		}
	}
}

func TestDivergentShflWaits(t *testing.T) {
	src := syncKernel(syncIfElse + `
	shfl.sync.bfly.b32 %r5, %r3, 16, 31, 0xffffffff;
	st.global.u32 [%rd4], %r5;`)
	m, out := schedKernel(t, src, SchedIndependent, [3]int{32, 1, 1}, [3]int{1, 1, 1}, 64, 100_000)
	var shuffles []ShuffleStep
	m.SetObserver(observerFunc(func(s *StepInfo) {
		if s.Shuffle != nil {
			shuffles = append(shuffles, *s.Shuffle)
		}
	}))
	if r := m.Run(context.Background()); r != StopDone {
		t.Fatalf("independent: %v %v", r, m.Fault())
	}
	got := u32s(out)
	for l := 0; l < 32; l++ {
		if want := syncIfElseValue(l ^ 16); got[32+l] != want {
			t.Errorf("lane %d got %d, want %d", l, got[32+l], want)
		}
	}
	// One shuffle, executed by the whole warp at once.
	if len(shuffles) != 1 || shuffles[0].Lanes != 0xffffffff {
		t.Errorf("shuffles: %+v", shuffles)
	}

	// The SIMT stack keeps its rule: the other lanes could still reach
	// the shfl.sync, which it cannot wait for.
	m, _ = schedKernel(t, src, SchedSIMTStack, [3]int{32, 1, 1}, [3]int{1, 1, 1}, 64, 100_000)
	if r := m.Run(context.Background()); r != StopFault || m.Fault().Kind != FaultInvalidMember {
		t.Fatalf("simt-stack: %v %v", r, m.Fault())
	}
}

func TestSyncwarpExitedLaneFaults(t *testing.T) {
	src := syncKernel(`
	setp.eq.u32 %p1, %r1, 5;
	@%p1 exit;
	bar.warp.sync 0xffffffff;
	st.global.u32 [%rd4], %r1;`)
	m, _ := schedKernel(t, src, SchedIndependent, [3]int{32, 1, 1}, [3]int{1, 1, 1}, 64, 100_000)
	r := m.Run(context.Background())
	f := m.Fault()
	if r != StopFault || f.Kind != FaultInvalidMember || f.Lanes != 1<<5 || !strings.Contains(f.Message, "lane(s) 5, which exited") {
		t.Fatalf("%v %v", r, f)
	}
	if op := m.Program().Ops[f.PC]; op.Code.String() != "bar" && !strings.Contains(f.Message, "bar.warp.sync") {
		t.Errorf("fault at %v", op.Code)
	}
	// A partial warp has no lanes 20-31: they are not waited for.
	m, _ = schedKernel(t, syncKernel(`
	bar.warp.sync 0xffffffff;
	st.global.u32 [%rd4], %r1;`), SchedIndependent, [3]int{20, 1, 1}, [3]int{1, 1, 1}, 64, 100_000)
	if r := m.Run(context.Background()); r != StopDone {
		t.Fatalf("partial warp: %v %v", r, m.Fault())
	}
}

// Lanes that wait at another shfl.sync can never arrive: every group of
// the warp waits, and the fault names the lanes and where they are.
func TestShflNeverArrives(t *testing.T) {
	src := syncKernel(`
	setp.lt.u32 %p1, %r1, 16;
	@%p1 bra THEN;
	shfl.sync.bfly.b32 %r5, %r1, 1, 31, 0xffffffff;
	bra.uni JOIN;
THEN:
	shfl.sync.bfly.b32 %r5, %r1, 2, 31, 0xffffffff;
JOIN:
	st.global.u32 [%rd4], %r5;`)
	m, _ := schedKernel(t, src, SchedIndependent, [3]int{32, 1, 1}, [3]int{1, 1, 1}, 64, 100_000)
	r := m.Run(context.Background())
	f := m.Fault()
	if r != StopFault || f.Kind != FaultInvalidMember || !strings.Contains(f.Message, "can never arrive") {
		t.Fatalf("%v %v", r, f)
	}
	if f.Lanes != 0xffff0000 && f.Lanes != 0x0000ffff {
		t.Errorf("fault lanes %#x", f.Lanes)
	}
	t.Log(f.Message)
}

// bar.sync on both sides of an if/else, in two warps: under independent
// scheduling the threads of each warp wait at their bar.sync for the rest
// of the warp, the warp arrives once, and every thread then sees the
// values both warps stored before the barrier.
func TestBarSyncBothBranchesIndependent(t *testing.T) {
	src := `.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 out) {
	.reg .u32 %r<12>; .reg .u64 %rd<8>; .reg .pred %p<8>;
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, %tid.x;
	mul.wide.u32 %rd2, %r1, 4;
	add.u64 %rd3, %rd1, %rd2;      // &out[tid]
	add.u64 %rd4, %rd3, 256;       // &out[64+tid]
	xor.b32 %r2, %r1, 33;
	mul.wide.u32 %rd5, %r2, 4;
	add.u64 %rd5, %rd1, %rd5;      // &out[tid^33]
	and.b32 %r6, %r1, 1;
	setp.eq.u32 %p1, %r6, 0;
	@%p1 bra EVEN;
	mul.lo.u32 %r3, %r1, 5;
	add.u32 %r3, %r3, 1;
	add.u32 %r3, %r3, 1;
	add.u32 %r3, %r3, 1;
	st.global.u32 [%rd3], %r3;
	bar.sync 0;
	ld.global.u32 %r5, [%rd5];
	bra.uni JOIN;
EVEN:
	mul.lo.u32 %r3, %r1, 7;
	st.global.u32 [%rd3], %r3;
	bar.sync 0;
	ld.global.u32 %r5, [%rd5];
JOIN:
	st.global.u32 [%rd4], %r5;
	ret;
}
`
	value := func(tid int) uint32 {
		if tid%2 == 0 {
			return uint32(7 * tid)
		}
		return uint32(5*tid + 3)
	}
	m, out := schedKernel(t, src, SchedIndependent, [3]int{64, 1, 1}, [3]int{1, 1, 1}, 128, 100_000)
	log := &eventLog{}
	m.SetObserver(log)
	if r := m.Run(context.Background()); r != StopDone {
		t.Fatalf("%v %v", r, m.Fault())
	}
	got := u32s(out)
	for tid := 0; tid < 64; tid++ {
		if want := value(tid ^ 33); got[64+tid] != want {
			t.Errorf("thread %d read %d, want %d", tid, got[64+tid], want)
		}
	}
	arrive := log.of(EvBarrierArrive)
	if len(arrive) != 2 {
		t.Fatalf("%d barrier arrivals, want one per warp: %+v", len(arrive), arrive)
	}
	for _, e := range arrive {
		if e.Mask != ^uint32(0) {
			t.Errorf("arrival %+v: want the whole warp", e)
		}
	}
	if rel := log.of(EvBarrierRelease); len(rel) != 1 || rel[0].Count != 64 {
		t.Errorf("releases %+v", rel)
	}
}

// While one path waits at the shfl.sync for the other, the divergence view
// says so: the group is sync-wait and its lanes wait for "sync"; a
// snapshot taken then resumes to the same result.
func TestSyncWaitVisible(t *testing.T) {
	src := syncKernel(syncIfElse + `
	shfl.sync.bfly.b32 %r5, %r3, 16, 31, 0xffffffff;
	st.global.u32 [%rd4], %r5;`)
	m, out := schedKernel(t, src, SchedIndependent, [3]int{32, 1, 1}, [3]int{1, 1, 1}, 64, 100_000)
	var snap *Snapshot
	for i := 0; i < 200 && snap == nil; i++ {
		if r := m.Step(StepWarpInstruction); r == StopDone || r == StopFault {
			t.Fatalf("ended before a group waited: %v %v", r, m.Fault())
		}
		w := m.Warps()[0]
		for _, g := range w.Groups() {
			if g.State != GroupSyncWait {
				continue
			}
			if g.Mask != 0xffff0000 {
				t.Fatalf("waiting group %+v, want lanes 16-31 (the short path)", g)
			}
			for _, lw := range w.LaneWaits() {
				if want := lw.Lane >= 16; (lw.Reason == "sync") != want {
					t.Fatalf("lane %d waits for %q", lw.Lane, lw.Reason)
				}
			}
			snap = m.Snapshot(true)
		}
	}
	if snap == nil {
		t.Fatal("no group waited at the shfl.sync")
	}
	m.Restore(snap)
	if r := m.Run(context.Background()); r != StopDone {
		t.Fatalf("%v %v", r, m.Fault())
	}
	got := u32s(out)
	for l := 0; l < 32; l++ {
		if want := syncIfElseValue(l ^ 16); got[32+l] != want {
			t.Errorf("lane %d got %d, want %d", l, got[32+l], want)
		}
	}
}
