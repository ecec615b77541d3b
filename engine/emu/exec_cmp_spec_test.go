package emu

import (
	"fmt"
	"math"
	"math/bits"
	"math/rand"
	"testing"

	"github.com/ptxplayground/ptxplay/engine/isa"
)

// ixCmpTestWarp is a bare warp with value slots 0..n-1 in rows 1..n and
// predicate slots 0..3, enough for the comparison kernels.
func ixCmpTestWarp(n int) *Warp {
	w := &Warp{slot: make([]int32, n), rows: make([]uint64, (n+1)*32), preds: make([]uint32, 4)}
	for i := range w.slot {
		w.slot[i] = int32(i + 1)
	}
	return w
}

// ixCmpRandom returns a random operand of type t: mostly values from a
// small pool of edge cases (so that lanes often compare equal, and NaNs,
// infinities, zeros of both signs and subnormals occur), with random
// garbage above the type's width.
func ixCmpRandom(rng *rand.Rand, t isa.Type) uint64 {
	garbage := rng.Uint64()
	if rng.Intn(2) == 0 {
		garbage = 0
	}
	switch t {
	case isa.F32:
		pool := []uint32{0, 0x80000000, 0x3f800000, 0xbf800000, 0x7f800000, 0xff800000, 0x7fc00000, 0xffc00001,
			0x7f800001, 0x00000001, 0x80000001, 0x007fffff, 0x807fffff, 0x00800000, 0x7f7fffff, 0xff7fffff}
		v := rng.Uint32()
		if rng.Intn(4) != 0 {
			v = pool[rng.Intn(len(pool))]
		}
		return garbage<<32 | uint64(v)
	case isa.F64:
		pool := []uint64{0, 1 << 63, math.Float64bits(1), math.Float64bits(-1), math.Float64bits(math.Inf(1)),
			math.Float64bits(math.Inf(-1)), math.Float64bits(math.NaN()), 0xfff0000000000001, 1, 1<<63 | 1,
			0x000fffffffffffff, math.Float64bits(math.MaxFloat64), math.Float64bits(-math.MaxFloat64)}
		if rng.Intn(4) != 0 {
			return pool[rng.Intn(len(pool))]
		}
		return rng.Uint64()
	}
	bits := ixWidth(t)
	pool := []uint64{0, 1, 2, ixMask(bits), ixMask(bits) - 1, 1 << (bits - 1), 1<<(bits-1) - 1, 1<<(bits-1) + 1}
	v := rng.Uint64()
	if rng.Intn(3) != 0 {
		v = pool[rng.Intn(len(pool))]
	}
	if bits < 64 {
		v = v&ixMask(bits) | garbage<<bits
	}
	return v
}

// TestCmpSpecialisedMatchesGeneric compares every specialised comparison
// kernel (each operator valid for each integer, f32 and f64 type, with and
// without .ftz) with the table-driven generic kernel on random operands
// and random execution masks (full, sparse, dense, and any count of active
// lanes), and setp built on it (plain, with two destinations, and combined
// with a possibly negated predicate by .and, .or and .xor) with setp built
// on the generic kernel, and the direct setp handlers (no combiner; B a
// register, and B an immediate in op.Imm) likewise; setp must leave
// inactive lanes' predicate bits untouched.
func TestCmpSpecialisedMatchesGeneric(t *testing.T) {
	rng := rand.New(rand.NewSource(12))
	n, nDirect := 0, 0
	for _, ty := range ixCmpTypes {
		for c := isa.Cmp(1); c < isa.NumCmp; c++ {
			if ok, _ := ixCmpAllowed(c, ty); !ok {
				continue
			}
			for _, ftz := range []bool{false, true} {
				if ftz && ty != isa.F32 {
					continue
				}
				spec := ixNewMaskedCmp(ty, c, ftz)
				if spec == nil {
					if ty == isa.F16 || ty == isa.F16x2 || ty == isa.BF16 || ty == isa.BF16x2 {
						continue
					}
					t.Fatalf("%s.%s: no specialised kernel", c, ty)
				}
				n++
				gen := ixGenericCmpKernel(ty, c, ftz)
				fast, slow := ixSetpFast(spec), ixSetpExec(gen, false)
				w := ixCmpTestWarp(2)
				op := &Op{A: 0, B: 1, D: 0, D2: -1, C: 2}
				for it := 0; it < 400; it++ {
					a, bb := w.r(0), w.r(1)
					for l := range a {
						a[l], bb[l] = ixCmpRandom(rng, ty), ixCmpRandom(rng, ty)
						if rng.Intn(8) == 0 {
							bb[l] = a[l]
						}
					}
					mask := rng.Uint32()
					switch rng.Intn(5) {
					case 0:
						mask = ixAll
					case 1:
						mask &= rng.Uint32() & rng.Uint32()
					case 2: // any number of active lanes from 1 to 31
						mask = 0
						for k := 1 + rng.Intn(31); bits.OnesCount32(mask) < k; {
							mask |= 1 << rng.Intn(32)
						}
					}
					if it < 64 { // every number of active lanes, 1 to 32, twice
						mask = 0
						for k := 1 + it%32; bits.OnesCount32(mask) < k; {
							mask |= 1 << rng.Intn(32)
						}
					}
					want, _ := gen(w, op, ixAll)
					if got := spec(a, bb, mask); (got^want)&mask != 0 {
						l := 0
						for ; (got^want)&mask>>l&1 == 0; l++ {
						}
						t.Fatalf("%s.%s ftz=%v lane %d: a=%#x b=%#x: got %d, want %d", c, ty, ftz, l, a[l], bb[l], got>>l&1, want>>l&1)
					}
					// setp: random destinations, combiner and predicate.
					op.D, op.D2 = int32(rng.Intn(2)), int32(rng.Intn(3))-1
					op.Sub2 = []isa.SubOp{isa.SubNone, isa.SubAnd, isa.SubOr, isa.SubXor}[rng.Intn(4)]
					op.C, op.Neg = int32(rng.Intn(4)), uint8(rng.Intn(2))<<2
					init := [4]uint32{rng.Uint32(), rng.Uint32(), rng.Uint32(), rng.Uint32()}
					copy(w.preds, init[:])
					slow(w, op, mask)
					wantP := append([]uint32(nil), w.preds...)
					copy(w.preds, init[:])
					fast(w, op, mask)
					ixCheckSetp(t, w, op, init, wantP, mask, fmt.Sprintf("setp.%s.%s%s ftz=%v", c, ty, op.Sub2, ftz))
					if op.Sub2 != isa.SubNone || ftz && ty == isa.F32 {
						continue
					}
					// The direct handlers: on the register B, and on B as
					// an immediate (op.Imm, its row holding the value).
					copy(w.preds, init[:])
					ixSetpSpecial(ty, c, false)(w, op, mask)
					ixCheckSetp(t, w, op, init, wantP, mask, fmt.Sprintf("setp.%s.%s (direct)", c, ty))
					k := bb[rng.Intn(32)]
					for l := range bb {
						bb[l] = k
					}
					copy(w.preds, init[:])
					slow(w, op, mask)
					copy(wantP, w.preds)
					copy(w.preds, init[:])
					op.Imm = k
					ixSetpSpecial(ty, c, true)(w, op, mask)
					op.Imm = 0
					ixCheckSetp(t, w, op, init, wantP, mask, fmt.Sprintf("setp.%s.%s (immediate %#x)", c, ty, k))
					nDirect++
				}
			}
		}
	}
	if n != 96 {
		t.Fatalf("%d specialised kernels checked, want 96 (3 bit, 3 unsigned, 3 signed types, f32 with and without .ftz, f64)", n)
	}
	if nDirect < 400*96/6 { // a quarter of the draws have no combiner
		t.Fatalf("the direct setp handlers were checked %d times", nDirect)
	}
}

// ixCheckSetp compares the predicates after a setp with want and checks
// that inactive lanes' predicate bits kept their initial values.
func ixCheckSetp(t *testing.T, w *Warp, op *Op, init [4]uint32, want []uint32, mask uint32, what string) {
	t.Helper()
	for i := range want {
		if (w.preds[i]^init[i])&^mask != 0 {
			t.Fatalf("%s D=%d mask=%#x: pred %d changed inactive lanes %#x", what, op.D, mask, i, (w.preds[i]^init[i])&^mask)
		}
		if w.preds[i] != want[i] {
			t.Fatalf("%s D=%d D2=%d C=%d neg=%d mask=%#x: pred %d = %#x, want %#x", what, op.D, op.D2, op.C, op.Neg, mask, i, w.preds[i], want[i])
		}
	}
}
