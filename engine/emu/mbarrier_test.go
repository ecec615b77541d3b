package emu

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// mbarKernel wraps body in k(.param .u64 out) with registers and an
// mbarrier bar (and bar2) in shared memory; %rd1 holds out.
func mbarKernel(decls, body string) string {
	return clusterHead + `.visible .entry k(.param .u64 out) {
	.reg .u32 %r<40>; .reg .u64 %rd<40>; .reg .pred %p<16>;
	.shared .align 8 .b64 bar;
	.shared .align 8 .b64 bar2;
` + decls + `
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, %tid.x;
` + body + `
}`
}

// outPred stores predicate p as word n of out (thread 0's %rd1).
func outPred(p string, n int) string {
	return fmt.Sprintf("\tselp.u32 %%r30, 1, 0, %s;\n\tst.global.u32 [%%rd1+%d], %%r30;\n", p, 4*n)
}

// Phase and parity semantics, arrival counts (with a count, .noComplete
// and arrive_drop lowering the expected count), transaction counting
// (the phase completes only when both arrivals and transaction bytes
// reach zero) and pending_count, against hand-computed values, in both
// scheduling models.
func TestMbarrierPhaseParityAndCounts(t *testing.T) {
	tw := func(par string, n int) string {
		return "\tmbarrier.test_wait.parity.shared.b64 %p2, [bar], " + par + ";\n" + outPred("%p2", n)
	}
	body := `	setp.ne.u32 %p1, %r1, 0;
	@%p1 ret;
	mbarrier.init.shared::cta.b64 [bar], 2;
` + tw("0", 0) + tw("1", 1) + `
	mbarrier.arrive.noComplete.release.cta.shared.b64 %rd2, [bar], 1;
	mbarrier.pending_count.b64 %r2, %rd2;
	st.global.u32 [%rd1+8], %r2;
	mbarrier.test_wait.shared.b64 %p2, [bar], %rd2;
` + outPred("%p2", 3) + `
	mbarrier.arrive.shared.b64 %rd3, [bar];
	mbarrier.test_wait.acquire.cta.shared.b64 %p2, [bar], %rd2;
` + outPred("%p2", 4) + tw("0", 5) + tw("1", 6) + `
	mbarrier.expect_tx.relaxed.cta.shared.b64 [bar], 4096;
	mbarrier.arrive.shared.b64 %rd4, [bar], 2;
` + tw("1", 7) + `
	mbarrier.complete_tx.shared.b64 [bar], 4000;
` + tw("1", 8) + `
	mbarrier.complete_tx.shared.b64 [bar], 96;
` + tw("1", 9) + `
	mbarrier.arrive_drop.shared.b64 %rd5, [bar];
	mbarrier.pending_count.b64 %r2, %rd5;
	st.global.u32 [%rd1+40], %r2;
` + tw("0", 11) + `
	mbarrier.arrive.expect_tx.shared.b64 %rd6, [bar], 16;
` + tw("0", 12) + `
	mbarrier.complete_tx.shared.b64 [bar], 16;
` + tw("0", 13) + `
	ld.shared.v2.u32 {%r3, %r4}, [bar];
	st.global.v2.u32 [%rd1+56], {%r3, %r4};
	mbarrier.arrive.shared.b64 %rd7, [bar];
` + tw("1", 16) + `
	mbarrier.inval.shared.b64 [bar];
	ld.shared.v2.u32 {%r3, %r4}, [bar];
	st.global.u32 [%rd1+68], %r3;
	st.global.u32 [%rd1+72], %r4;
	ret;`
	l := clusterLaunch{src: mbarKernel("", body), grid: [3]int{1, 1, 1}, block: 32, words: 19}
	r, out, m := l.run(t)
	if r != StopDone {
		t.Fatalf("stop %v: %v", r, m.Fault())
	}
	got := out
	// Hand-computed, word by word.
	exp := map[int]uint32{0: 0, 1: 1, 2: 1, 3: 0, 4: 1, 5: 1, 6: 0, 7: 0, 8: 0, 9: 1, 10: 1, 11: 0, 12: 0, 13: 1, 16: 1,
		// phase 3 (parity 1): pending 1, expected 1 (after the drop), tx 0, initialised.
		14: 1 | 1<<20, 15: 1<<31 | 1<<29,
		// invalidated: zero.
		17: 0, 18: 0}
	for i, v := range exp {
		if got[i] != v {
			t.Errorf("word %d = %#x, want %#x (all %v)", i, got[i], v, got)
		}
	}
}

// Going past a limit of the ISA, or using an object wrongly, faults with
// a message that names the mbarrier.
func TestMbarrierFaults(t *testing.T) {
	for _, tc := range []struct{ name, body, want string }{
		{"init count 0", "mbarrier.init.shared.b64 [bar], 0;", "expected arrival count 0 of mbarrier @0x0 is outside the ISA's range 1 .. 1,048,575"},
		{"init count 2^20", "mbarrier.init.shared.b64 [bar], 1048576;", "outside the ISA's range 1 .. 1,048,575"},
		{"uninitialised", "mbarrier.arrive.shared.b64 %rd2, [bar];", "mbarrier.arrive on mbarrier @0x0, which is not initialised"},
		{"after inval", "mbarrier.init.shared.b64 [bar], 1;\n\tmbarrier.inval.shared.b64 [bar];\n\tmbarrier.test_wait.parity.shared.b64 %p2, [bar], 0;", "mbarrier.test_wait on mbarrier @0x0, which is not initialised"},
		{"misaligned", "mov.u32 %r2, bar;\n\tadd.u32 %r2, %r2, 4;\n\tmbarrier.init.shared.b64 [%r2], 1;", "mbarrier address 0x4 is not 8-byte aligned"},
		{"too many arrivals", "mbarrier.init.shared.b64 [bar], 2;\n\tmbarrier.arrive.shared.b64 %rd2, [bar], 3;", "3 arrivals on mbarrier @0x0, which has 2 pending in phase 0"},
		{"arrive count 0", "mbarrier.init.shared.b64 [bar], 2;\n\tmbarrier.arrive.shared.b64 %rd2, [bar], 0;", "arrival count 0 on mbarrier @0x0 is outside the ISA's range"},
		{"tx over", "mbarrier.init.shared.b64 [bar], 1;\n\tmbarrier.expect_tx.shared.b64 [bar], 1048575;\n\tmbarrier.expect_tx.shared.b64 [bar], 1;", "transaction count of mbarrier @0x0 would become 1,048,576 bytes"},
		{"tx under", "mbarrier.init.shared.b64 [bar], 1;\n\tmbarrier.complete_tx.shared.b64 [bar], 1048575;\n\tmbarrier.complete_tx.shared.b64 [bar], 1;", "would become -1,048,576 bytes"},
		{"noComplete completes", "mbarrier.init.shared.b64 [bar], 1;\n\tmbarrier.arrive.noComplete.shared.b64 %rd2, [bar], 1;", "completes phase 0 of mbarrier @0x0"},
		{"drop too many", "mbarrier.init.shared.b64 [bar], 2;\n\tmbarrier.arrive.shared.b64 %rd2, [bar];\n\tmbarrier.arrive_drop.shared.b64 %rd2, [bar], 2;", "2 arrivals on mbarrier @0x0, which has 1 pending"},
		{"parity 2", "mbarrier.init.shared.b64 [bar], 1;\n\tmov.u32 %r2, 2;\n\tmbarrier.test_wait.parity.shared.b64 %p2, [bar], %r2;", "the phase parity 2 is not 0 or 1"},
		{"global address", "mbarrier.init.b64 [%rd1], 1;", "an mbarrier object is in shared memory"},
	} {
		body := "\tsetp.ne.u32 %p1, %r1, 0;\n\t@%p1 ret;\n\t" + tc.body + "\n\tret;"
		l := clusterLaunch{src: mbarKernel("", body), grid: [3]int{1, 1, 1}, block: 32, words: 2}
		r, _, m := l.run(t)
		f := m.Fault()
		if r != StopFault || f == nil || !strings.Contains(f.Message, tc.want) {
			t.Errorf("%s: stop %v, fault %v; want one saying %q", tc.name, r, f, tc.want)
		}
	}
}

// A deadlock on an mbarrier names it, its phase and what is missing, and
// so does the waiting warp's wait text.
func TestMbarrierDeadlockNamesWhatIsMissing(t *testing.T) {
	body := `	setp.eq.u32 %p1, %r1, 0;
	@%p1 mbarrier.init.shared.b64 [bar2], 2;
	bar.sync 0;
	@%p1 mbarrier.arrive.expect_tx.shared.b64 %rd2, [bar2], 4096;
W:
	mbarrier.try_wait.parity.shared.b64 %p2, [bar2], 0, 1000;
	@!%p2 bra W;
	ret;`
	l := clusterLaunch{src: mbarKernel("", body), grid: [3]int{1, 1, 1}, block: 64, words: 1}
	r, _, m := l.run(t)
	f := m.Fault()
	if r != StopFault || f == nil || f.Kind != FaultDeadlock {
		t.Fatalf("stop %v, fault %v", r, f)
	}
	want := "mbarrier bar2 @0x8, phase 0: 1 arrival and 4,096 transaction bytes missing"
	for _, s := range []string{"mbarrier deadlock", "warp 0 waits for " + want, "warp 1 waits for " + want} {
		if !strings.Contains(f.Message, s) {
			t.Errorf("fault %q\nlacks %q", f.Message, s)
		}
	}
	w := m.CTAs()[0].Warps[1]
	if got := w.WaitText(); got != want {
		t.Errorf("wait text %q, want %q", got, want)
	}
	if tw, ok := w.Waiting(); !ok || tw.Kind != WaitMbarrier || tw.Addr != 8 || tw.Parity != 0 || tw.String() != "mbarrier @0x8, phase 0" {
		t.Errorf("wait %+v (%q)", tw, tw.String())
	}
}

// ringPTX: a 2-stage producer/consumer ring. Warp 0 produces 6 tiles of
// 64 words (tile i, word k: 1000*i + k) into stage i%2 after waiting for
// the stage's empty barrier; warps 1 and 2 wait for the stage's full
// barrier, add word k of it (thread 32+k) and arrive on its empty
// barrier (after a delay, so that a producer that does not wait for the
// empty barrier overwrites a stage before it is read; the producer takes
// longer over its first tile, so that a consumer that does not wait for
// the full barrier reads the stage before it is written). Each consumer's
// sum is 15000 + 6k. WAITFULL and WAITEMPTY are
// the two waits.
const ringPTX = `
	.shared .align 8 .b64 full[2];
	.shared .align 8 .b64 empty[2];
	.shared .align 4 .u32 buf[128];
` + "\x00" + `
	setp.ne.u32 %p1, %r1, 0;
	@%p1 bra INITED;
	mov.u32 %r2, full;
	mbarrier.init.shared.b64 [%r2], 32;
	mbarrier.init.shared.b64 [%r2+8], 32;
	mov.u32 %r2, empty;
	mbarrier.init.shared.b64 [%r2], 64;
	mbarrier.init.shared.b64 [%r2+8], 64;
INITED:
	bar.sync 0;
	mov.u32 %r5, 0;              // i
	mov.u32 %r20, 0;             // sum
	setp.ge.u32 %p3, %r1, 32;
	@%p3 bra CONSUMER;
PLOOP:
	and.b32 %r6, %r5, 1;         // stage
	shr.u32 %r7, %r5, 1;
	and.b32 %r7, %r7, 1;
	xor.b32 %r7, %r7, 1;         // empty parity: the preceding phase first
	shl.b32 %r8, %r6, 3;
	mov.u32 %r9, empty;
	add.u32 %r9, %r9, %r8;
WAITEMPTY
	setp.ne.u32 %p8, %r5, 0;     // the first tile takes the producer long
	@%p8 bra FAST;
	mov.u32 %r15, 0;
SLOW:
	add.u32 %r15, %r15, 1;
	setp.lt.u32 %p7, %r15, 200;
	@%p7 bra SLOW;
FAST:
	mov.u32 %r10, buf;
	shl.b32 %r11, %r6, 8;
	add.u32 %r10, %r10, %r11;
	shl.b32 %r12, %r1, 2;
	add.u32 %r10, %r10, %r12;
	mul.lo.u32 %r13, %r5, 1000;
	add.u32 %r13, %r13, %r1;
	st.shared.u32 [%r10], %r13;
	add.u32 %r13, %r13, 32;
	st.shared.u32 [%r10+128], %r13;
	mov.u32 %r9, full;
	add.u32 %r9, %r9, %r8;
	mbarrier.arrive.release.cta.shared.b64 %rd2, [%r9];
	add.u32 %r5, %r5, 1;
	setp.lt.u32 %p4, %r5, 6;
	@%p4 bra PLOOP;
	ret;
CONSUMER:
	sub.u32 %r14, %r1, 32;
CLOOP:
	and.b32 %r6, %r5, 1;
	shr.u32 %r7, %r5, 1;
	and.b32 %r7, %r7, 1;         // full parity
	shl.b32 %r8, %r6, 3;
	mov.u32 %r9, full;
	add.u32 %r9, %r9, %r8;
WAITFULL
	mov.u32 %r15, 0;             // a consumer takes its time
DELAY:
	add.u32 %r15, %r15, 1;
	setp.lt.u32 %p7, %r15, 30;
	@%p7 bra DELAY;
	mov.u32 %r10, buf;
	shl.b32 %r11, %r6, 8;
	add.u32 %r10, %r10, %r11;
	shl.b32 %r12, %r14, 2;
	add.u32 %r10, %r10, %r12;
	ld.shared.u32 %r13, [%r10];
	add.u32 %r20, %r20, %r13;
	mov.u32 %r9, empty;
	add.u32 %r9, %r9, %r8;
	mbarrier.arrive.shared.b64 %rd2, [%r9];
	add.u32 %r5, %r5, 1;
	setp.lt.u32 %p4, %r5, 6;
	@%p4 bra CLOOP;
	mul.wide.u32 %rd3, %r14, 4;
	add.u64 %rd3, %rd1, %rd3;
	st.global.u32 [%rd3], %r20;
	ret;`

func ringSrc(waitEmpty, waitFull bool) string {
	parts := strings.SplitN(ringPTX, "\x00", 2)
	body := parts[1]
	we, wf := "", ""
	if waitEmpty {
		we = "WE:\n\tmbarrier.try_wait.parity.acquire.cta.shared.b64 %p5, [%r9], %r7;\n\t@!%p5 bra WE;"
	}
	if waitFull {
		wf = "WF:\n\tmbarrier.try_wait.parity.shared::cta.b64 %p5, [%r9], %r7;\n\t@!%p5 bra WF;"
	}
	body = strings.Replace(body, "WAITEMPTY", we, 1)
	body = strings.Replace(body, "WAITFULL", wf, 1)
	return mbarKernel(parts[0], body)
}

// The ring gives its hand-computed result in both scheduling models, and
// a wrong one (or a fault) with either wait removed.
func TestMbarrierProducerConsumerRing(t *testing.T) {
	l := clusterLaunch{src: ringSrc(true, true), grid: [3]int{1, 1, 1}, block: 96, words: 64}
	r, out, m := l.run(t)
	if r != StopDone {
		t.Fatalf("stop %v: %v", r, m.Fault())
	}
	for k, v := range out {
		if v != uint32(15000+6*k) {
			t.Fatalf("consumer %d summed %d, want %d (all %v)", k, v, 15000+6*k, out)
		}
	}
	for _, c := range []struct {
		name        string
		empty, full bool
	}{{"no empty wait", false, true}, {"no full wait", true, false}} {
		l := clusterLaunch{src: ringSrc(c.empty, c.full), grid: [3]int{1, 1, 1}, block: 96, words: 64}
		r2, out2, m2 := l.run(t)
		if r2 == StopDone && fmt.Sprint(out2) == fmt.Sprint(out) {
			t.Errorf("%s: the ring still gives the right result %v", c.name, out2)
		}
		t.Logf("%s: %v %v", c.name, r2, m2.Fault())
	}
}

// Snapshots taken at every step of the ring (warps waiting on mbarriers
// among them) restore to machines that finish like a fresh run.
func TestMbarrierSnapshotsRestore(t *testing.T) {
	l := clusterLaunch{src: ringSrc(true, true), grid: [3]int{1, 1, 1}, block: 96, words: 64}
	for _, sched := range bothScheds {
		ref := l.machine(t, sched)
		ref.Run(context.Background())
		m := l.machine(t, sched)
		var snaps []*Snapshot
		waiting := 0
		for m.Step(StepWarpInstruction) == StopStepped {
			snaps = append(snaps, m.Snapshot(true))
			for _, w := range m.CTAs()[0].Warps {
				if t, ok := w.Waiting(); ok && t.Kind == WaitMbarrier {
					waiting++
				}
			}
		}
		if waiting == 0 {
			t.Fatalf("%s: no warp ever waited on an mbarrier", sched)
		}
		for i := 0; i < len(snaps); i += 5 {
			x := l.machine(t, sched)
			x.Restore(snaps[i])
			x.Run(context.Background())
			if d := x.DiffState(ref); d != "" {
				t.Fatalf("%s: run from snapshot %d differs from a fresh run: %s", sched, i, d)
			}
		}
	}
}

// Remote arrives in a 2-CTA cluster: every thread of both CTAs stores
// its rank+1 into rank 0's shared memory (st.shared::cluster) and arrives
// on rank 0's mbarrier through its mapa address; rank 1 also expects and
// completes transaction bytes on it remotely. Rank 0 waits for the phase
// and sums what was stored.
func TestMbarrierRemoteArrive(t *testing.T) {
	decls := "\t.shared .align 4 .u32 slot[64];"
	body := `	mov.u32 %r2, %cluster_ctarank;
	setp.eq.u32 %p1, %r1, 0;
	setp.eq.u32 %p3, %r2, 0;
	and.pred %p4, %p1, %p3;
	@%p4 mbarrier.init.shared::cta.b64 [bar], 64;
	barrier.cluster.arrive.release;
	barrier.cluster.wait.acquire;
	mov.u32 %r3, bar;
	mapa.shared::cluster.u32 %r4, %r3, 0;
	mov.u32 %r5, slot;
	shl.b32 %r6, %r2, 5;
	add.u32 %r6, %r6, %r1;
	shl.b32 %r6, %r6, 2;
	add.u32 %r5, %r5, %r6;
	mapa.shared::cluster.u32 %r7, %r5, 0;
	add.u32 %r8, %r2, 1;
	st.shared::cluster.u32 [%r7], %r8;
	setp.eq.u32 %p5, %r2, 1;
	and.pred %p5, %p5, %p1;
	@%p5 mbarrier.expect_tx.relaxed.cluster.shared::cluster.b64 [%r4], 256;
	mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%r4];
	@%p5 mbarrier.complete_tx.shared::cluster.b64 [%r4], 256;
	@!%p3 bra DONE;
W:
	mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 %p6, [bar], 0;
	@!%p6 bra W;
	mov.u32 %r9, slot;
	shl.b32 %r10, %r1, 2;
	add.u32 %r9, %r9, %r10;
	ld.shared.u32 %r11, [%r9];
	ld.shared.u32 %r12, [%r9+128];
	add.u32 %r11, %r11, %r12;
	mul.wide.u32 %rd3, %r1, 4;
	add.u64 %rd3, %rd1, %rd3;
	st.global.u32 [%rd3], %r11;
DONE:
	barrier.cluster.arrive;
	barrier.cluster.wait;
	ret;`
	l := clusterLaunch{src: mbarKernel(decls, body), grid: [3]int{2, 1, 1}, block: 32, cluster: [3]int{2, 1, 1}, words: 32}
	r, out, m := l.run(t)
	if r != StopDone {
		t.Fatalf("stop %v: %v", r, m.Fault())
	}
	for i, v := range out {
		if v != 3 {
			t.Fatalf("word %d = %d, want 3 (1 from rank 0, 2 from rank 1): %v", i, v, out)
		}
	}
}

// cp.async.mbarrier.arrive lands the thread's prior cp.async copies and
// arrives: with .noinc as one of the expected arrivals, without it with
// no net effect on the pending count (the thread arrives itself too).
// The consumer warp reads the copied words after waiting for the phase.
func TestMbarrierCpAsyncArrive(t *testing.T) {
	for _, noinc := range []bool{true, false} {
		arrive := "\tcp.async.mbarrier.arrive.noinc.shared.b64 [bar];\n"
		if !noinc {
			arrive = "\tcp.async.mbarrier.arrive.shared.b64 [bar];\n\tmbarrier.arrive.shared.b64 %rd9, [bar];\n"
		}
		decls := "\t.shared .align 16 .u32 dst[32];"
		body := `	setp.eq.u32 %p1, %r1, 0;
	@%p1 mbarrier.init.shared.b64 [bar], 32;
	// the source: out[32..63] = 7*k
	setp.lt.u32 %p2, %r1, 32;
	mul.lo.u32 %r2, %r1, 7;
	mul.wide.u32 %rd2, %r1, 4;
	add.u64 %rd3, %rd1, %rd2;
	@%p2 st.global.u32 [%rd3+128], %r2;
	bar.sync 0;
	@!%p2 bra CONSUME;
	mov.u32 %r3, dst;
	shl.b32 %r4, %r1, 2;
	add.u32 %r3, %r3, %r4;
	add.u64 %rd4, %rd3, 128;
	cp.async.ca.shared.global [%r3], [%rd4], 4;
` + arrive + `	ret;
CONSUME:
	sub.u32 %r5, %r1, 32;
W:
	mbarrier.try_wait.parity.shared.b64 %p3, [bar], 0;
	@!%p3 bra W;
	mov.u32 %r3, dst;
	shl.b32 %r4, %r5, 2;
	add.u32 %r3, %r3, %r4;
	ld.shared.u32 %r6, [%r3];
	mul.wide.u32 %rd5, %r5, 4;
	add.u64 %rd5, %rd1, %rd5;
	st.global.u32 [%rd5], %r6;
	ret;`
		l := clusterLaunch{src: mbarKernel(decls, body), grid: [3]int{1, 1, 1}, block: 64, words: 64}
		r, out, m := l.run(t)
		if r != StopDone {
			t.Fatalf("noinc %v: stop %v: %v", noinc, r, m.Fault())
		}
		for k := 0; k < 32; k++ {
			if out[k] != uint32(7*k) {
				t.Fatalf("noinc %v: word %d = %d, want %d: %v", noinc, k, out[k], 7*k, out[:32])
			}
		}
	}
}
