package emu

import (
	"context"
	"reflect"
	"strings"
	"testing"
)

// brxSrc: every thread runs seven rounds of a five-way switch on
// (gtid + round) % 5: four cases through brx.idx, the fifth (index 4)
// with the brx guarded off, so a warp splits five ways each round and
// reconverges at NEXT.
const brxSrc = ctlHeader + `
.visible .entry k(.param .u64 buf) {
	.reg .u32 %r<8>; .reg .u64 %rd<4>; .reg .pred %p<3>;
	ld.param.u64 %rd1, [buf];
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, %ctaid.x;
	mad.lo.u32 %r3, %r2, 64, %r1;
	mov.u32 %r4, 0;
	mov.u32 %r5, 0;
	ts: .branchtargets T0, T1, T2, T3;
LOOP:
	add.u32 %r6, %r3, %r4;
	rem.u32 %r6, %r6, 5;
	setp.lt.u32 %p1, %r6, 4;
	@%p1 brx.idx %r6, ts;
	add.u32 %r5, %r5, 1000;
	bra.uni NEXT;
T0:	add.u32 %r5, %r5, 1;
	bra.uni NEXT;
T1:	shl.b32 %r5, %r5, 1;
	bra.uni NEXT;
T2:	xor.b32 %r5, %r5, 0x55;
	bra.uni NEXT;
T3:	add.u32 %r5, %r5, %r3;
NEXT:
	add.u32 %r4, %r4, 1;
	setp.lt.u32 %p2, %r4, 7;
	@%p2 bra LOOP;
	mul.wide.u32 %rd2, %r3, 4;
	add.u64 %rd3, %rd1, %rd2;
	st.global.u32 [%rd3], %r5;
	ret;
}`

func brxWant(n int) []uint32 {
	out := make([]uint32, n)
	for g := range out {
		acc := uint32(0)
		for i := range 7 {
			switch (g + i) % 5 {
			case 0:
				acc++
			case 1:
				acc <<= 1
			case 2:
				acc ^= 0x55
			case 3:
				acc += uint32(g)
			case 4:
				acc += 1000
			}
		}
		out[g] = acc
	}
	return out
}

// TestBrxIdx: brx.idx sends each lane to the label its index selects, in
// both scheduling models, run, stepped and batched alike; a warp split
// five ways reconverges where the switch ends (as many warp-instructions
// as five paths of one warp take), and the split is reported once, with
// the lanes of the lowest lane's target running first.
func TestBrxIdx(t *testing.T) {
	const n = 128
	want := brxWant(n)
	for _, sched := range []Scheduling{SchedIndependent, SchedSIMTStack} {
		m, out := schedKernel(t, brxSrc, sched, [3]int{64, 1, 1}, [3]int{2, 1, 1}, n, 0)
		if r := m.Run(context.Background()); r != StopDone {
			t.Fatalf("%s: %v %v", sched, r, m.Fault())
		}
		if got := u32s(out); !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: out %v\nwant %v", sched, got, want)
		}
		// Per warp: 6 instructions before the loop, then per round 4 up
		// to the brx, 2 on each of the five paths (1 on T3's), 3 at NEXT;
		// 4 after it.
		if w := int64(4 * (6 + 7*(4+2+2+2+2+1+3) + 4)); m.Stats().WarpInstructions != w {
			t.Errorf("%s: %d warp-instructions, want %d (reconverged at NEXT)", sched, m.Stats().WarpInstructions, w)
		}
		checkReplay(t, brxSrc, sched, [3]int{64, 1, 1}, [3]int{2, 1, 1}, n)
		runBothWays(t, "brx", batchLaunch{src: brxSrc, grid: 2, block: 64, words: n, sched: sched})
	}
	_, div := reconvergences(t, brxSrc)
	// Round 4: lane 0's guard is false; the lanes that branch go first.
	if len(div) != 7 || div[0] != "18:42108421/bdef7bde" || div[4] != "18:84210842/7bdef7bd" {
		t.Errorf("diverge events %v, want 7 at line 18, lanes 0, 5, … 30 first but in round 4 (lanes 1, 6, … 31)", div)
	}
}

// TestBrxIdxUniform: lanes that agree take the branch together (no
// split), whatever the list's length; a guard false for every lane goes
// on to the next instruction.
func TestBrxIdxUniform(t *testing.T) {
	src := ctlHeader + `
.visible .entry k(.param .u64 out) {
	.reg .u32 %r<4>; .reg .u64 %rd<4>; .reg .pred %p;
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, 2;
	setp.gt.u32 %p, %r1, 100;
	tl: .branchtargets A, B, C;
	@%p brx.idx %r1, tl;
	brx.idx.uni %r2, tl;
A:	mov.u32 %r3, 1;
	bra.uni E;
B:	mov.u32 %r3, 2;
	bra.uni E;
C:	mov.u32 %r3, 3;
E:	mul.wide.u32 %rd2, %r1, 4;
	add.u64 %rd3, %rd1, %rd2;
	st.global.u32 [%rd3], %r3;
	ret;
}`
	for _, sched := range []Scheduling{SchedIndependent, SchedSIMTStack} {
		m, out := schedKernel(t, src, sched, [3]int{32, 1, 1}, [3]int{1, 1, 1}, 32, 0)
		if r := m.Run(context.Background()); r != StopDone {
			t.Fatalf("%s: %v %v", sched, r, m.Fault())
		}
		for i, v := range u32s(out) {
			if v != 3 {
				t.Fatalf("%s: out[%d] = %d, want 3", sched, i, v)
			}
		}
		if m.Stats().WarpInstructions != 11 {
			t.Errorf("%s: %d warp-instructions, want 11", sched, m.Stats().WarpInstructions)
		}
	}
	if _, div := reconvergences(t, src); len(div) != 0 {
		t.Errorf("diverge events %v, want none", div)
	}
}

// TestBrxIdxFault: an index past the end of the list faults (PTX leaves
// it undefined), naming every lane that selected past it.
func TestBrxIdxFault(t *testing.T) {
	src := ctlHeader + `
.visible .entry k(.param .u64 out) {
	.reg .u32 %r<4>;
	mov.u32 %r1, %tid.x;
	shr.u32 %r2, %r1, 3;
	tl: .branchtargets A, B, C;
	brx.idx %r2, tl;
A:	ret;
B:	ret;
C:	ret;
}`
	for _, sched := range []Scheduling{SchedIndependent, SchedSIMTStack} {
		m, _ := schedKernel(t, src, sched, [3]int{32, 1, 1}, [3]int{1, 1, 1}, 1, 0)
		if r := m.Run(context.Background()); r != StopFault {
			t.Fatalf("%s: %v, want a fault", sched, r)
		}
		f := m.Fault()
		if f.Kind != FaultIllegal || f.Lanes != 0xff000000 || f.Lane != 24 || lineOf(m, f.PC) != 10 ||
			!strings.Contains(f.Message, "index 3 is past the end of the list's 3 labels") {
			t.Errorf("%s: fault %+v", sched, f)
		}
	}
}

// TestBrxIdxErrors: the list must be a .branchtargets label of the
// function, declared before its use, of labels.
func TestBrxIdxErrors(t *testing.T) {
	body := func(s string) string {
		return ctlHeader + ".visible .entry k() {\n\t.reg .u32 %r<2>;\n\tmov.u32 %r1, 0;\n" + s + "\nA:\tret;\n}"
	}
	for _, c := range []struct{ src, want string }{
		{body("\tbrx.idx %r1, A;"), "A is not a .branchtargets list of this function"},
		{body("\tbrx.idx %r1, tl;\n\ttl: .branchtargets A;"), "the .branchtargets list tl must be declared before brx.idx uses it"},
		{body("\ttl: .branchtargets A, NOPE;\n\tbrx.idx %r1, tl;"), "undefined label NOPE"},
		{body("\ttl: .branchtargets A, 3;\n\tbrx.idx %r1, tl;"), "entry 2 is not a label"},
		{body("\ttl: .branchtargets;\n\tbrx.idx %r1, tl;"), ".branchtargets tl lists no label"},
		{body("\t.branchtargets A;\n\tbrx.idx %r1, tl;"), ".branchtargets needs a label"},
		{body("\tbrx.idx %r1;"), "brx.idx"},
	} {
		if got := memCompileErr(t, c.src); !strings.Contains(got, c.want) {
			t.Errorf("%q:\n%s\nwant %q", c.src, got, c.want)
		}
	}
}
