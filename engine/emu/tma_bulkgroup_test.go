package emu

import (
	"context"
	"slices"
	"strings"
	"testing"
)

// bulkStoreBody: every thread writes tid+1 to word tid of buf; thread 0
// copies the 32 words to out[0..31] in a bulk async-group, reads out[0]
// before any wait into out[32], then runs the body's tail (which may
// overwrite buf[0] with 999 and wait) and reads out[0] again into out[33].
func bulkStoreBody(tail string) string {
	return `	add.u32 %r2, %r1, 1;
	shl.b32 %r6, %r1, 2;
	mov.u32 %r7, buf;
	add.u32 %r7, %r7, %r6;
	st.shared.u32 [%r7], %r2;
	fence.proxy.async.shared::cta;
	bar.sync 0;
	setp.ne.u32 %p1, %r1, 0;
	@%p1 ret;
	mov.u32 %r10, 999;
	cp.async.bulk.global.shared::cta.bulk_group [%rd1], [buf], 128;
	cp.async.bulk.commit_group;
	ld.global.u32 %r9, [%rd1];
	st.global.u32 [%rd1+128], %r9;
` + tail + `	ld.global.u32 %r11, [%rd1];
	st.global.u32 [%rd1+132], %r11;
`
}

// A copy to global memory is performed at the issuing thread's
// wait_group (or its exit), reading its shared source then: a read of the
// destination before the wait sees the old bytes, an overwrite of the
// source before wait_group.read lands in global memory (the bug made
// visible), and the wait placed before the overwrite gives the right
// result. Every case runs in both scheduling models, run and stepped.
func TestBulkGroupCompletesAtWait(t *testing.T) {
	for _, c := range []struct {
		name, tail string
		first      uint32 // out[0]
		after      uint32 // out[33]: out[0] read after the tail
	}{
		{"overwrite before wait", "	st.shared.u32 [buf], %r10;\n	cp.async.bulk.wait_group.read 0;\n", 999, 999},
		{"wait before overwrite", "	cp.async.bulk.wait_group.read 0;\n	st.shared.u32 [buf], %r10;\n", 1, 1},
		{"full wait", "	cp.async.bulk.wait_group 0;\n", 1, 1},
		// Never waited for: performed when the thread exits, after its
		// last read of out[0] (which is still the old zero).
		{"no wait", "", 1, 0},
		// wait_group 1 leaves the newest committed group in flight.
		{"wait keeps one", "	cp.async.bulk.wait_group.read 1;\n", 1, 0},
	} {
		r, out, _, m := tmaLaunch{src: tmaKernel(bulkStoreBody(c.tail)), block: 32, words: 34, tensor: make([]byte, 16)}.run(t)
		if r != StopDone {
			t.Fatalf("%s: stopped with %v: %v", c.name, r, m.Fault())
		}
		if out[32] != 0 {
			t.Fatalf("%s: out[0] read before any wait is %d, want the old 0", c.name, out[32])
		}
		if out[0] != c.first || out[33] != c.after {
			t.Fatalf("%s: out[0] = %d and %d read after the tail, want %d and %d", c.name, out[0], out[33], c.first, c.after)
		}
		for i := 1; i < 32; i++ {
			if out[i] != uint32(i+1) {
				t.Fatalf("%s: out[%d] = %d, want %d", c.name, i, out[i], i+1)
			}
		}
	}
}

// Two groups: wait_group 1 performs the older group's copy only; the
// newer one lands when the thread exits.
func TestBulkGroupWaitKeepsNewest(t *testing.T) {
	body := `	add.u32 %r2, %r1, 1;
	shl.b32 %r6, %r1, 2;
	mov.u32 %r7, buf;
	add.u32 %r7, %r7, %r6;
	st.shared.u32 [%r7], %r2;
	fence.proxy.async.shared::cta;
	bar.sync 0;
	setp.ne.u32 %p1, %r1, 0;
	@%p1 ret;
	cp.async.bulk.global.shared::cta.bulk_group [%rd1], [buf], 128;
	cp.async.bulk.commit_group;
	add.u64 %rd6, %rd1, 256;
	cp.reduce.async.bulk.global.shared::cta.bulk_group.add.u32 [%rd6], [buf], 128;
	cp.async.bulk.commit_group;
	cp.async.bulk.wait_group 1;
	ld.global.u32 %r8, [%rd1];
	ld.global.u32 %r9, [%rd6];
	st.global.u32 [%rd1+512], %r8;
	st.global.u32 [%rd1+516], %r9;
`
	r, out, _, m := tmaLaunch{src: tmaKernel(body), block: 32, words: 130, tensor: make([]byte, 16)}.run(t)
	if r != StopDone {
		t.Fatalf("stopped with %v: %v", r, m.Fault())
	}
	if out[128] != 1 || out[129] != 0 {
		t.Fatalf("after wait_group 1: group 0's word %d (want 1), group 1's word %d (want 0)", out[128], out[129])
	}
	if out[64] != 1 || out[95] != 32 {
		t.Fatalf("at exit the newer group's reduction landed %d .. %d, want 1 .. 32", out[64], out[95])
	}
}

// stepToStores steps m until CTA 0 has n copies to global memory in
// flight.
func stepToStores(t *testing.T, m *Machine, n int) {
	t.Helper()
	for len(m.CTAs()) == 0 || len(m.CTAs()[0].async.stores) < n {
		if r := m.Step(StepWarpInstruction); r != StopStepped {
			t.Fatal(r, m.Fault())
		}
	}
}

// The copies to global memory in flight and the bulk async-groups are
// machine state: DiffState sees a queue that differs (one machine has
// performed the copy, its global bytes put back) and a commit count that
// differs; a snapshot restores them, and the restored run ends alike.
func TestDiffStateSeesBulkStores(t *testing.T) {
	l := tmaLaunch{src: tmaKernel(bulkStoreBody("	st.shared.u32 [buf], %r10;\n	cp.async.bulk.wait_group.read 0;\n")), block: 32, words: 34, tensor: make([]byte, 16)}
	for _, sched := range bothScheds {
		a, b := l.machine(t, sched), l.machine(t, sched)
		stepToStores(t, a, 1)
		stepToStores(t, b, 1)
		if d := a.DiffState(b); d != "" {
			t.Fatalf("%s: equal runs differ: %s", sched, d)
		}
		s := a.Snapshot(true)
		w := b.CTAs()[0].Warps[0]
		glob := map[string][]byte{}
		for _, x := range b.Global.Allocs() {
			glob[x.Name] = slices.Clone(x.Data)
		}
		dyn := b.dyn
		if f := w.landStores(1, -1); f != nil {
			t.Fatal(f)
		}
		for _, x := range b.Global.Allocs() {
			copy(x.Data, glob[x.Name])
		}
		b.dyn = dyn
		if d := a.DiffState(b); !strings.Contains(d, "bulk copies to global memory") {
			t.Fatalf("%s: DiffState %q, want the queue's difference", sched, d)
		}
		c := l.machine(t, sched)
		c.Restore(s)
		if d := a.DiffState(c); d != "" {
			t.Fatalf("%s: restored: %s", sched, d)
		}
		c.CTAs()[0].Warps[0].cta.async.warps[0].bulkCommitted[0]++
		if d := a.DiffState(c); !strings.Contains(d, "bulk async-groups committed") {
			t.Fatalf("%s: DiffState %q, want the commit count's difference", sched, d)
		}
		c.CTAs()[0].Warps[0].cta.async.warps[0].bulkCommitted[0]--
		ra, rc := a.Run(context.Background()), c.Run(context.Background())
		if ra != StopDone || rc != StopDone {
			t.Fatalf("%s: %v %v", sched, ra, rc)
		}
		if d := a.DiffState(c); d != "" {
			t.Fatalf("%s: the restored run ends differently: %s", sched, d)
		}
	}
}
