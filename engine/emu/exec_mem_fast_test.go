package emu

import (
	"math/rand"
	"reflect"
	"testing"

	"github.com/ptxplayground/ptxplay/engine/isa"
	"github.com/ptxplayground/ptxplay/engine/ptx"
)

// TestMemShared4FastMatchesSlow runs the 4-byte shared-memory handlers
// bound at lowering (st.shared.u32 with an offset: execStShared4 and its
// full-warp memStShared4All; addressed by a 32-bit register alone:
// execStShared4R32 and execLdShared4R32, the load also with the address
// register as destination) against the lane-by-lane accesses on random
// addresses (now and then a misaligned or out-of-range one, and garbage
// above 32 bits), values and masks: shared memory, every lane of the
// destination row (inactive ones keep their values) and the fault (kind,
// lane, message) must be identical.
func TestMemShared4FastMatchesSlow(t *testing.T) {
	cases := []struct {
		ins  string
		exec execFn
	}{
		{"st.shared.u32 [%r1+8], %r2;", execStShared4},
		{"st.shared.u32 [%r1], %r2;", execStShared4R32},
		{"ld.shared.u32 %r2, [%r1];", execLdShared4R32},
		{"ld.shared.u32 %r1, [%r1];", execLdShared4R32},
	}
	for _, c := range cases {
		src := memHdr + `
.visible .entry k(.param .u64 pout) {
	.shared .align 4 .b8 sm[512];
	.reg .u32 %r<4>;
	mov.u32 %r1, sm;
	` + c.ins + `
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
		if reflect.ValueOf(op.Exec).Pointer() != reflect.ValueOf(c.exec).Pointer() {
			t.Fatalf("%s: not bound to the expected handler", c.ins)
		}
		load := op.Code == isa.OpLd
		sh := w.cta.shared
		rng := rand.New(rand.NewSource(3))
		faults := 0
		for it := 0; it < 4000; it++ {
			a := w.r(op.A)
			for l := range a {
				a[l] = uint64(4 * rng.Intn(len(sh)/4-2))
				if rng.Intn(2) == 0 {
					a[l] |= rng.Uint64() << 32 // above the 32-bit address
				}
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
			dst := op.B // the stored value's row, or the loaded one's
			if load {
				dst = op.D
			}
			if dst != op.A {
				for l := range w.r(dst) {
					w.r(dst)[l] = rng.Uint64()
				}
			}
			regs := *w.r(dst)
			addrs := *w.r(op.A)
			mask := uint32(ixAll)
			if rng.Intn(3) == 0 {
				mask = ixRandomMask(rng)
			}
			init := make([]byte, len(sh))
			rng.Read(init)
			copy(sh, init)
			f1 := op.Exec(w, op, mask)
			got, gotRow := append([]byte(nil), sh...), *w.r(dst)
			copy(sh, init)
			*w.r(dst), *w.r(op.A) = regs, addrs
			var f2 *Fault
			if load {
				f2 = memLdSlow(w, op, mask, isa.Shared, 4)
			} else {
				f2 = memStSlow(w, op, mask, isa.Shared, 4)
			}
			if (f1 == nil) != (f2 == nil) || f1 != nil && (f1.Lane != f2.Lane || f1.Message != f2.Message || f1.Kind != f2.Kind) {
				t.Fatalf("%s mask %#x: fault %+v, want %+v", c.ins, mask, f1, f2)
			}
			if f1 != nil {
				faults++
			}
			if string(got) != string(sh) {
				t.Fatalf("%s mask %#x: shared memory differs from the lane-by-lane access", c.ins, mask)
			}
			if gotRow != *w.r(dst) {
				t.Fatalf("%s mask %#x: register row differs from the lane-by-lane access", c.ins, mask)
			}
		}
		if faults < 300 {
			t.Fatalf("%s: only %d of the draws faulted", c.ins, faults)
		}
	}
}

// TestMemLdGlobal4MatchesSlow runs ld.global.u32 (execLdGlobal4) against
// the lane-by-lane load on random addresses: mostly inside one
// allocation, now and then a lane in another allocation, misaligned,
// past the end or below the start, under random masks. The register row
// (every lane) and the fault must be identical.
func TestMemLdGlobal4MatchesSlow(t *testing.T) {
	for _, ins := range []string{"ld.global.u32 %r2, [%rd1];", "ld.global.f32 %f1, [%rd1+12];"} {
		src := memHdr + `
.visible .entry k(.param .u64 pout) {
	.reg .u32 %r<4>; .reg .u64 %rd<4>; .reg .f32 %f<2>;
	mov.u64 %rd1, 0;
	` + ins + `
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
		allocs := []*Alloc{m.Global.Alloc("a", 1024, 256), m.Global.Alloc("b", 512, 256)}
		rng := rand.New(rand.NewSource(9))
		for _, a := range allocs {
			rng.Read(a.Data)
		}
		if r := m.Step(StepWarpInstruction); r != StopStepped {
			t.Fatalf("step: %v", r)
		}
		w := m.CTAs()[0].Warps[0]
		op := &prog.Ops[w.PC()]
		if reflect.ValueOf(op.Exec).Pointer() != reflect.ValueOf(execLdGlobal4).Pointer() {
			t.Fatalf("%s: not bound to execLdGlobal4", ins)
		}
		faults, fast := 0, 0
		for it := 0; it < 4000; it++ {
			home := allocs[rng.Intn(2)]
			a := w.r(op.A)
			for l := range a {
				a[l] = home.Base + uint64(4*rng.Intn(len(home.Data)/4-4))
			}
			if rng.Intn(2) == 0 {
				l := rng.Intn(32)
				switch rng.Intn(5) {
				case 0:
					a[l] += uint64(1 + rng.Intn(3))
				case 1:
					a[l] = home.Base + uint64(len(home.Data)-4*rng.Intn(4))
				case 2:
					a[l] = home.Base - 4
				case 3:
					other := allocs[0]
					if other == home {
						other = allocs[1]
					}
					a[l] = other.Base + 4*uint64(rng.Intn(8))
				case 4:
					a[l] = uint64(rng.Uint32()) &^ 3
				}
			}
			for l := range w.r(op.D) {
				w.r(op.D)[l] = rng.Uint64()
			}
			before := *w.r(op.D)
			mask := uint32(ixAll)
			if rng.Intn(4) == 0 {
				mask = ixRandomMask(rng)
			}
			f1 := op.Exec(w, op, mask)
			got := *w.r(op.D)
			*w.r(op.D) = before
			f2 := memLdSlow(w, op, mask, isa.Global, 4)
			if (f1 == nil) != (f2 == nil) || f1 != nil && (f1.Lane != f2.Lane || f1.Message != f2.Message || f1.Kind != f2.Kind) {
				t.Fatalf("%s mask %#x: fault %+v, want %+v", ins, mask, f1, f2)
			}
			if got != *w.r(op.D) {
				t.Fatalf("%s mask %#x: register row differs from the lane-by-lane load", ins, mask)
			}
			if f1 != nil {
				faults++
			} else if mask == ixAll {
				fast++
			}
		}
		if faults < 300 || fast < 1000 {
			t.Fatalf("%s: %d faults, %d clean full-warp loads", ins, faults, fast)
		}
	}
}
