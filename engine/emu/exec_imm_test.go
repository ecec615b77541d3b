package emu

import (
	"math/bits"
	"math/rand"
	"reflect"
	"strings"
	"testing"

	"github.com/ptxplayground/ptxplay/engine/isa"
	"github.com/ptxplayground/ptxplay/engine/ptx"
)

// ixRandomMask draws an execution mask: full, sparse, dense, or any count
// of active lanes from 1 to 31.
func ixRandomMask(rng *rand.Rand) uint32 {
	mask := rng.Uint32()
	switch rng.Intn(5) {
	case 0:
		return ixAll
	case 1:
		return mask & rng.Uint32() & rng.Uint32()
	case 2:
		mask = 0
		for k := 1 + rng.Intn(31); bits.OnesCount32(mask) < k; {
			mask |= 1 << rng.Intn(32)
		}
	}
	return mask
}

// TestIntImmediateMatchesGeneric runs add, shl and shr specialised on an
// immediate against the generic handlers on the immediate's row, on
// random operands (with garbage above the type's width), immediates (shift
// amounts past the width included) and masks: the destination row must
// be bit-identical in every lane (inactive lanes keep their old values),
// also where the destination is the source.
func TestIntImmediateMatchesGeneric(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	cases := []struct {
		name      string
		width     uint
		imm, slow execFn
	}{
		{"add.u32", 32, execIxAddImm32, execIxAdd},
		{"add.u64", 64, execIxAddImm64, execIxAdd},
		{"shl.b32", 32, execIxShlImm32, execIxShl},
		{"shl.b64", 64, execIxShlImm64, execIxShl},
		{"shr.u32", 32, execIxShrImm32, execIxShr},
		{"shr.u64", 64, execIxShrImm64, execIxShr},
	}
	for _, c := range cases {
		shift := strings.HasPrefix(c.name, "sh")
		for it := 0; it < 3000; it++ {
			// Slots 0: a, 1: the immediate's row, 2 and 3: destinations.
			w := ixCmpTestWarp(4)
			a := w.r(0)
			for l := range a {
				a[l] = ixCmpRandom(rng, isa.U64)
				if rng.Intn(2) == 0 {
					a[l] = uint64(rng.Uint32())
				}
			}
			k := ixCmpRandom(rng, isa.U64)
			if shift {
				k = uint64(rng.Intn(80)) | uint64(rng.Intn(2))<<40
			}
			for l := range w.r(1) {
				w.r(1)[l] = k
			}
			for l := range w.r(2) {
				w.r(2)[l] = rng.Uint64()
			}
			*w.r(3) = *w.r(2)
			mask := ixRandomMask(rng)
			inPlace := rng.Intn(4) == 0
			if inPlace {
				*w.r(3) = *w.r(0)
				*w.r(2) = *w.r(0)
			}
			slowOp := &Op{D: 2, A: 0, B: 1, Imm: ixMask(c.width)}
			immOp := &Op{D: 3, A: 0, B: -1, Imm: k}
			if inPlace {
				immOp.A = 3
				slowOp.A = 2
			}
			c.slow(w, slowOp, mask)
			c.imm(w, immOp, mask)
			if got, want := *w.r(3), *w.r(2); got != want {
				for l := range got {
					if got[l] != want[l] {
						t.Fatalf("%s imm %#x mask %#x in place %v lane %d (active %v): a=%#x: got %#x, want %#x",
							c.name, k, mask, inPlace, l, mask>>l&1 != 0, a[l], got[l], want[l])
					}
				}
			}
		}
	}
}

// TestIntImmediateBinding checks that lowering binds the immediate forms
// where the second source is an immediate (and only there), and that the
// immediate reaches op.Imm.
func TestIntImmediateBinding(t *testing.T) {
	src := ixHdr + `.visible .entry k(.param .u64 in, .param .u64 out) {
	.reg .u32 %r<4>; .reg .u64 %rd<4>; .reg .s32 %s<3>; .reg .u16 %h<3>; .reg .pred %p;
	add.u32 %r1, %r2, 5;
	add.u64 %rd1, %rd2, -3;
	shl.b32 %r1, %r2, 3;
	shr.u64 %rd1, %rd2, 40;
	add.u32 %r1, %r2, %r3;
	shr.s32 %s1, %s2, 1;
	add.u16 %h1, %h2, 1;
	sub.u32 %r1, %r2, 1;
	setp.lt.u32 %p, %r1, 16;
	setp.lt.u32 %p, %r1, %r2;
	setp.ne.and.u32 %p, %r1, 0, %p;
	ret;
}`
	s := ptx.NewSource("t.ptx", []byte(src))
	prog, diags := CompileSource(s)
	if prog == nil {
		t.Fatal(ptx.FormatAll(s, diags))
	}
	fn := func(f execFn) uintptr { return reflect.ValueOf(f).Pointer() }
	want := []struct {
		exec execFn
		imm  uint64
	}{
		{execIxAddImm32, 5},
		{execIxAddImm64, 1<<64 - 3},
		{execIxShlImm32, 3},
		{execIxShrImm64, 40},
		{execIxAdd, ixMask(32)},
		{execIxSar, ixMask(32)},
		{execIxAdd, ixMask(16)},
		{execIxSub, ixMask(32)},
		{setpLTU32Imm, 16},
		{setpLTU32, 0},
		{nil, 0}, // with a combiner: the general setp
	}
	ops := prog.Ops[prog.Funcs[0].Entry:]
	for i, wt := range want {
		op := &ops[i]
		if wt.exec == nil {
			if fn(op.Exec) == fn(setpNEU32Imm) || fn(op.Exec) == fn(setpNEU32) {
				t.Errorf("op %d (%s): bound a setp without its combiner", i, op.Code)
			}
			continue
		}
		if fn(op.Exec) != fn(wt.exec) {
			t.Errorf("op %d (%s): not bound to the expected handler", i, op.Code)
		}
		if op.Imm != wt.imm && (wt.imm != 0 || fn(wt.exec) != fn(setpLTU32)) {
			t.Errorf("op %d (%s): Imm %#x, want %#x", i, op.Code, op.Imm, wt.imm)
		}
	}
}
