package emu

import (
	"testing"

	"github.com/ptxplayground/ptxplay/engine/ptx"
)

// Under the SIMT stack the engine says why each lane waits, from the
// reconvergence stack: after a branch that sends lanes 0-15 ahead to the
// join point, lanes 16-31 run on the top entry, lanes 0-15 wait at the
// join for them, and the lanes of an entry parked below both paths are
// suspended until the paths above reach its reconvergence point.
func TestStackLaneWaits(t *testing.T) {
	src := ctlHeader + `
.visible .entry k(.param .u64 out) {
	.reg .u32 %r<4>; .reg .pred %p<3>;
	mov.u32 %r1, %tid.x;
	setp.lt.u32 %p1, %r1, 16;
	@%p1 bra SKIP;
	setp.lt.u32 %p2, %r1, 24;
	@%p2 bra INNER;
	add.u32 %r2, %r1, 1;
INNER:
	add.u32 %r2, %r1, 2;
SKIP:
	ret;
}`
	prog, diags := CompileSource(ptx.NewSource("t.ptx", []byte(src)))
	if prog == nil {
		t.Fatal(diags)
	}
	m, err := NewMachine(prog, "k", Config{Grid: [3]int{1, 1, 1}, Block: [3]int{32, 1, 1}, Scheduling: SchedSIMTStack})
	if err != nil {
		t.Fatal(err)
	}
	for range 5 { // mov, setp, bra (diverges), setp, bra (diverges)
		if r := m.Step(StepWarpInstruction); r != StopStepped {
			t.Fatal(r, m.Fault())
		}
	}
	w := m.CTAs()[0].Warps[0]
	skip, inner := m.fn.Entry+7, m.fn.Entry+6
	for _, lw := range w.LaneWaits() {
		l := lw.Lane
		switch {
		case l < 16: // at SKIP, waiting for lanes 16-31 (all above it)
			if lw.Reason != "reconvergence" || lw.PC != skip || lw.Awaits != 0xffff0000 || lw.With != ^uint32(0)&^(1<<l) {
				t.Fatalf("lane %d: %+v", l, lw)
			}
		case l < 24: // at INNER, waiting for lanes 24-31
			if lw.Reason != "reconvergence" || lw.PC != inner || lw.Awaits != 0xff000000 || lw.With != 0xffff0000&^(1<<l) {
				t.Fatalf("lane %d: %+v", l, lw)
			}
		default: // the top entry: runs the add before INNER
			if lw.Reason != "running" || lw.PC != inner-1 || lw.With != 0xff000000&^(1<<l) {
				t.Fatalf("lane %d: %+v", l, lw)
			}
		}
	}
}

// An if/else under the SIMT stack: the path below the top is suspended
// until the top path's lanes (Above) reach the join (Reconv).
func TestStackLaneWaitsSuspended(t *testing.T) {
	src := ctlHeader + `
.visible .entry k(.param .u64 out) {
	.reg .u32 %r<4>; .reg .pred %p<3>;
	mov.u32 %r1, %tid.x;
	setp.lt.u32 %p1, %r1, 16;
	@%p1 bra THEN;
	add.u32 %r2, %r1, 1;
	bra.uni JOIN;
THEN:
	add.u32 %r2, %r1, 2;
JOIN:
	ret;
}`
	prog, diags := CompileSource(ptx.NewSource("t.ptx", []byte(src)))
	if prog == nil {
		t.Fatal(diags)
	}
	m, err := NewMachine(prog, "k", Config{Grid: [3]int{1, 1, 1}, Block: [3]int{32, 1, 1}, Scheduling: SchedSIMTStack})
	if err != nil {
		t.Fatal(err)
	}
	for range 3 { // mov, setp, bra (diverges)
		if r := m.Step(StepWarpInstruction); r != StopStepped {
			t.Fatal(r, m.Fault())
		}
	}
	w := m.CTAs()[0].Warps[0]
	top := w.stack[len(w.stack)-1]
	join := m.fn.Entry + 6
	for _, lw := range w.LaneWaits() {
		bit := uint32(1) << lw.Lane
		if top.Mask&bit != 0 {
			if lw.Reason != "running" || lw.PC != int(top.PC) || lw.With != top.Mask&^bit {
				t.Fatalf("lane %d: %+v", lw.Lane, lw)
			}
			continue
		}
		if lw.Reason != "suspended" || lw.Above != top.Mask || lw.Reconv != join || lw.With != ^top.Mask&^bit {
			t.Fatalf("lane %d: %+v (top %+v)", lw.Lane, lw, top)
		}
	}
}
