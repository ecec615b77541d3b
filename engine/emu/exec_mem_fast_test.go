package emu

import (
	"math/rand"
	"testing"

	"github.com/ptxplayground/ptxplay/engine/isa"
	"github.com/ptxplayground/ptxplay/engine/ptx"
)

// TestMemStShared4AllMatchesSlow runs st.shared.u32's full-warp path
// (memStShared4All, through execStShared4) and its partly active path
// against the lane-by-lane store on random addresses (now and then a
// misaligned, negative or out-of-range one) and values: the shared memory
// afterwards and the fault (lane, message) must be identical.
func TestMemStShared4AllMatchesSlow(t *testing.T) {
	src := memHdr + `
.visible .entry k(.param .u64 pout) {
	.shared .align 4 .b8 sm[512];
	.reg .u32 %r<4>;
	mov.u32 %r1, sm;
	st.shared.u32 [%r1+8], %r2;
	ret;
}`
	s := ptx.NewSource("t.ptx", []byte(src))
	prog, diags := CompileSource(s)
	if prog == nil {
		t.Fatal(ptx.FormatAll(s, diags))
	}
	m, err := NewMachine(prog, "k", Config{Grid: [3]int{1, 1, 1}, Block: [3]int{32, 1, 1}})
	if err != nil {
		t.Fatal(err)
	}
	if r := m.Step(StepWarpInstruction); r != StopStepped {
		t.Fatalf("step: %v", r)
	}
	w := m.CTAs()[0].Warps[0]
	op := &prog.Ops[w.PC()]
	if op.Code != isa.OpSt {
		t.Fatalf("pc %d is %s, want the store", w.PC(), op.Code)
	}
	sh := w.cta.shared
	rng := rand.New(rand.NewSource(3))
	faults := 0
	for it := 0; it < 4000; it++ {
		a, v := w.r(op.A), w.r(op.B)
		for l := range a {
			a[l] = uint64(4 * rng.Intn(len(sh)/4-2))
			if rng.Intn(2) == 0 {
				a[l] |= rng.Uint64() << 32 // above the 32-bit address
			}
			v[l] = rng.Uint64()
		}
		if rng.Intn(3) == 0 {
			l := rng.Intn(32)
			switch rng.Intn(3) {
			case 0:
				a[l] += uint64(1 + rng.Intn(3))
			case 1:
				a[l] = uint64(len(sh) - 8 + 4*rng.Intn(3))
			case 2:
				a[l] = uint64(1<<32 - 4*(1+rng.Intn(4))) // the top of the 32-bit space
			}
		}
		mask := uint32(ixAll)
		if rng.Intn(3) == 0 {
			mask = ixRandomMask(rng)
		}
		init := make([]byte, len(sh))
		rng.Read(init)
		copy(sh, init)
		f1 := op.Exec(w, op, mask)
		got := append([]byte(nil), sh...)
		copy(sh, init)
		f2 := memStSlow(w, op, mask, isa.Shared, 4)
		if (f1 == nil) != (f2 == nil) || f1 != nil && (f1.Lane != f2.Lane || f1.Message != f2.Message || f1.Kind != f2.Kind) {
			t.Fatalf("mask %#x: fault %+v, want %+v", mask, f1, f2)
		}
		if f1 != nil {
			faults++
		}
		if string(got) != string(sh) {
			t.Fatalf("mask %#x: shared memory differs from the lane-by-lane store", mask)
		}
	}
	if faults < 300 {
		t.Fatalf("only %d of the draws faulted", faults)
	}
}
