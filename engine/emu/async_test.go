package emu

import (
	"context"
	"encoding/binary"
	"slices"
	"testing"

	"github.com/ptxplayground/ptxplay/engine/isa"
	"github.com/ptxplayground/ptxplay/engine/ptx"
)

// asyncMachine compiles src (kernel k taking in and out) and prepares a
// launch of one CTA of threads threads with in holding 4-byte words
// 1000+i and out 4*n bytes.
func asyncMachine(t *testing.T, src string, threads, n int) (*Machine, *Alloc, *Alloc) {
	t.Helper()
	s := ptx.NewSource("t.ptx", []byte(src))
	prog, diags := CompileSource(s)
	if prog == nil {
		t.Fatalf("compile:\n%s", ptx.FormatAll(s, diags))
	}
	m, err := NewMachine(prog, "k", Config{Block: [3]int{threads, 1, 1}})
	if err != nil {
		t.Fatal(err)
	}
	in := m.Global.Alloc("in", 4*256, 256)
	for i := range 256 {
		binary.LittleEndian.PutUint32(in.Data[4*i:], uint32(1000+i))
	}
	out := m.Global.Alloc("out", 4*n, 256)
	binary.LittleEndian.PutUint64(m.Params(), in.Base)
	binary.LittleEndian.PutUint64(m.Params()[8:], out.Base)
	return m, in, out
}

func words(b []byte) []uint32 {
	var w []uint32
	for i := 0; i+4 <= len(b); i += 4 {
		w = append(w, binary.LittleEndian.Uint32(b[i:]))
	}
	return w
}

// Each thread copies word tid of two tiles (tile 0: in[tid] to sm[tid],
// tile 1: in[64+tid] to sm[64+tid]), one group each, and reads both words
// back after each synchronisation step. out[8*tid+k] is read k.
const asyncGroupsPTX = memHdr + `
.visible .entry k(.param .u64 pin, .param .u64 pout) {
	.shared .align 16 .u32 sm[128];
	.reg .u32 %r<12>; .reg .u64 %rd<8>;
	ld.param.u64 %rd1, [pin];
	ld.param.u64 %rd2, [pout];
	mov.u32 %r1, %tid.x;
	mul.wide.u32 %rd3, %r1, 4;
	add.u64 %rd4, %rd1, %rd3;
	mul.wide.u32 %rd5, %r1, 32;
	add.u64 %rd6, %rd2, %rd5;
	shl.b32 %r2, %r1, 2;
	mov.u32 %r9, sm;
	add.u32 %r2, %r2, %r9;
	cp.async.ca.shared.global [%r2], [%rd4], 4;
	cp.async.commit_group;
	cp.async.ca.shared.global [%r2+256], [%rd4+256], 4;
	// read 0, 1: nothing has landed (the second copy is not even committed)
	ld.shared.u32 %r3, [%r2];
	ld.shared.u32 %r4, [%r2+256];
	// wait_group 0 lands the committed group (tile 0) only
	cp.async.wait_group 0;
	ld.shared.u32 %r5, [%r2];
	ld.shared.u32 %r6, [%r2+256];
	cp.async.commit_group;
	// wait_group 1: tile 1's group is the newest: it stays in flight
	cp.async.wait_group 1;
	ld.shared.u32 %r7, [%r2+256];
	cp.async.wait_all;
	ld.shared.u32 %r8, [%r2+256];
	st.global.v4.u32 [%rd6], {%r3, %r4, %r5, %r6};
	st.global.v2.u32 [%rd6+16], {%r7, %r8};
	ret;
}`

// A read before the wait sees the old shared memory; wait_group N lands
// all committed groups but the newest N, and wait_all everything.
func TestCpAsyncLandsAtWait(t *testing.T) {
	m, _, out := asyncMachine(t, asyncGroupsPTX, 32, 8*32)
	if r := m.Run(context.Background()); r != StopDone {
		t.Fatal(r, m.Fault())
	}
	for tid := range 32 {
		got := words(out.Data[32*tid : 32*tid+24])
		w0, w1 := uint32(1000+tid), uint32(1064+tid)
		want := []uint32{0, 0, w0, 0, 0, w1}
		if !slices.Equal(got, want) {
			t.Errorf("thread %d: reads %v, want %v", tid, got, want)
		}
	}
}

// The pending copies are visible on the warp, kept by snapshots, and
// landed by the wait that reports them as stores with the old bytes.
func TestCpAsyncPendingSnapshotAndReport(t *testing.T) {
	m, in, out := asyncMachine(t, asyncGroupsPTX, 32, 8*32)
	var acc []Access
	var steps []isa.Opcode
	m.SetObserver(observerFunc(func(s *StepInfo) {
		steps = append(steps, m.prog.Ops[s.PC].Code)
		for _, a := range s.Accesses {
			if a.Space == isa.Shared && a.Kind == AccessStore {
				acc = append(acc, a)
			}
		}
	}))
	// Run to the first ld.shared: two copies per lane issued, one committed.
	for len(steps) == 0 || steps[len(steps)-1] != isa.OpCpAsync || len(m.Warps()[0].PendingCopies()) < 64 {
		if r := m.Step(StepWarpInstruction); r != StopStepped {
			t.Fatal(r, m.Fault())
		}
	}
	w := m.Warps()[0]
	p := w.PendingCopies()
	if len(p) != 64 || len(acc) != 0 {
		t.Fatalf("%d pending copies, %d shared stores reported", len(p), len(acc))
	}
	for i, c := range p {
		lane, second := i%32, i >= 32
		wantDst, wantSrc := uint64(4*lane), in.Base+uint64(4*lane)
		if second {
			wantDst, wantSrc = wantDst+256, wantSrc+256
		}
		wv := uint32(1000 + lane)
		if second {
			wv += 64
		}
		if c.Lane != lane || c.Dst != wantDst || c.Src != wantSrc || c.Size != 4 || c.Committed == second || c.Group != map[bool]uint32{false: 0, true: 1}[second] ||
			binary.LittleEndian.Uint32(c.Data[:]) != wv || m.prog.Ops[c.PC].Code != isa.OpCpAsync {
			t.Fatalf("copy %d: %+v", i, c)
		}
	}
	snap := m.Snapshot(true)
	if r := m.Run(context.Background()); r != StopDone {
		t.Fatal(r, m.Fault())
	}
	first := slices.Clone(out.Data)
	// Two waits landed: tile 0 at wait_group 0, tile 1 at wait_all.
	if len(acc) != 2 || acc[0].Lanes != 0xffffffff || acc[0].Size != 4 || acc[0].Addr[5] != 20 || acc[1].Addr[5] != 276 {
		t.Fatalf("landing stores %+v", acc)
	}
	m.Restore(snap)
	if got := m.Warps()[0].PendingCopies(); !slices.Equal(got, p) {
		t.Fatalf("restored pending copies differ")
	}
	clear(out.Data)
	if r := m.Run(context.Background()); r != StopDone {
		t.Fatal(r, m.Fault())
	}
	if !slices.Equal(out.Data, first) {
		t.Fatal("replay from the snapshot differs")
	}
	if got := m.Warps()[0].PendingCopies(); len(got) != 0 {
		t.Fatalf("copies left pending: %+v", got)
	}
}

// Copies are per thread: a wait executed by some lanes lands only theirs;
// an exiting thread lands its copies (another warp sees them after a
// barrier).
func TestCpAsyncPerThreadAndExit(t *testing.T) {
	src := memHdr + `
.visible .entry k(.param .u64 pin, .param .u64 pout) {
	.shared .align 16 .u32 sm[64];
	.reg .u32 %r<10>; .reg .u64 %rd<8>; .reg .pred %p, %q;
	ld.param.u64 %rd1, [pin];
	ld.param.u64 %rd2, [pout];
	mov.u32 %r1, %tid.x;
	shl.b32 %r2, %r1, 2;
	mov.u32 %r9, sm;
	add.u32 %r2, %r2, %r9;
	mul.wide.u32 %rd3, %r1, 4;
	add.u64 %rd4, %rd1, %rd3;
	add.u64 %rd5, %rd2, %rd3;
	setp.ge.u32 %q, %r1, 32;
	@%q bra SECOND;
	// warp 0: copy word tid, even lanes wait, then read
	cp.async.ca.shared.global [%r2], [%rd4], 4;
	cp.async.commit_group;
	and.b32 %r3, %r1, 1;
	setp.eq.u32 %p, %r3, 0;
	@%p cp.async.wait_group 0;
	ld.shared.u32 %r4, [%r2];
	st.global.u32 [%rd5], %r4;
	// and copy word 32+tid with no wait at all before exiting
	cp.async.ca.shared.global [%r2+128], [%rd4+128], 4;
	exit;
SECOND:
	// warp 1: waits until warp 0 has exited (the barrier counts live
	// threads), then reads what warp 0's exit landed
	bar.sync 0;
	ld.shared.u32 %r4, [%r2+0];
	st.global.u32 [%rd5], %r4;
	ret;
}`
	m, _, out := asyncMachine(t, src, 64, 64)
	if r := m.Run(context.Background()); r != StopDone {
		t.Fatal(r, m.Fault())
	}
	got := words(out.Data)
	for l := range 32 {
		want := uint32(0)
		if l%2 == 0 {
			want = uint32(1000 + l)
		}
		if got[l] != want {
			t.Errorf("thread %d read %d, want %d", l, got[l], want)
		}
		// warp 1's lane l reads word 32+l: landed when warp 0 exited
		if want := uint32(1032 + l); got[32+l] != want {
			t.Errorf("thread %d read %d, want %d", 32+l, got[32+l], want)
		}
	}
}

// An out-of-bounds copy faults when it is issued, naming the cp.async,
// its CTA, thread and address.
func TestCpAsyncFault(t *testing.T) {
	src := memHdr + `
.visible .entry k(.param .u64 pin, .param .u64 pout) {
	.shared .align 16 .u32 sm[64];
	.reg .u32 %r<10>; .reg .u64 %rd<8>;
	ld.param.u64 %rd1, [pin];
	mov.u32 %r1, %tid.x;
	mul.wide.u32 %rd3, %r1, 64;
	add.u64 %rd4, %rd1, %rd3;
	cp.async.cg.shared.global [sm], [%rd4], 16;
	cp.async.wait_all;
	ret;
}`
	m, in, _ := asyncMachine(t, src, 32, 1)
	if r := m.Run(context.Background()); r != StopFault {
		t.Fatal(r)
	}
	f := m.Fault()
	// 1 KiB of input: lane 16 is the first to read past it.
	if f == nil || f.Kind != FaultOutOfBounds || m.prog.Ops[f.PC].Code != isa.OpCpAsync || f.Lane != 16 || f.Thread != [3]int{16, 0, 0} ||
		f.CTA != [3]int{0, 0, 0} || !f.HasAddr || f.Addr != in.Base+16*64 || f.Lanes != 0xffff0000 {
		t.Fatalf("fault %+v", f)
	}
	if p := m.Warps()[0].PendingCopies(); len(p) != 16 {
		t.Errorf("%d copies pending after the fault, want the 16 issued", len(p))
	}
}

type observerFunc func(*StepInfo)

func (f observerFunc) Step(in *StepInfo) { f(in) }
