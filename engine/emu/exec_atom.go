package emu

import (
	"math/bits"

	"github.com/ptxplayground/ptxplay/engine/fpx"
	"github.com/ptxplayground/ptxplay/engine/isa"
)

// The atomic and reduction family: atom and red.
//
//	atom{.sem}{.scope}{.space}.op{.L2::cache_hint}.type d, [a], b{, c}{, cache-policy};
//	red{.sem}{.scope}{.space}.op{.L2::cache_hint}.type [a], b{, cache-policy};
//	atom/red{.global}.add{.noftz}.vec.type ... (vector forms)
//
// Spaces: .global, .shared{::cta,::cluster} and generic addressing. Memory
// order and scope qualifiers are accepted; the emulator runs one warp at a
// time and is sequentially consistent, so every atomic is indivisible.
//
// Within one warp-instruction the emulator serialises the lanes' atomic
// operations in ascending lane order: with contention on one address, the
// lowest lane sees the original value and each following lane the result of
// the one before. Hardware uses some order; this one makes results
// deterministic. A vector atomic is atomic per element.
//
// Semantics per the PTX ISA:
//   - .inc: d = old; *a = (old >= b) ? 0 : old+1 (unsigned).
//   - .dec: d = old; *a = (old == 0 || old > b) ? b : old-1 (unsigned).
//   - .cas: *a = (old == b) ? c : old.
//   - .add.f32 rounds to nearest even and, on global memory, flushes
//     subnormal inputs and results to sign-preserving zero; on shared
//     memory it keeps subnormals (the ISA notes and NVIDIA's documented
//     behaviour). Generic addresses use the space they resolve to.
//   - .add.f64 rounds to nearest even and keeps subnormals.
//   - .add.noftz.{f16,f16x2,bf16,bf16x2} round to nearest even and keep
//     subnormals; min/max on those types follow PTX min/max (a NaN operand
//     yields the other one).
// Atomics on local memory (through a generic address) fault: the ISA
// leaves them undefined.

func init() {
	binders[isa.OpAtom] = bindAtom
	binders[isa.OpRed] = bindAtom
}

// atomFn computes the new memory value from the old one and the operands b
// and c (raw bits, zero-extended).
type atomFn func(old, b, c uint64) uint64

func bindAtom(b *binder) {
	red := b.op.Code == isa.OpRed
	sub := b.Sub()
	space := b.Space()
	t := b.Type()
	noftz := b.Flag(isa.FNoftz)
	vec := b.Vec()
	if b.failed {
		return
	}
	switch space {
	case isa.SpaceNone, isa.Global, isa.Shared, isa.SharedCluster:
	default:
		b.errorf("atomic operations work on .global, .shared or generic addresses, not .%s", space)
		return
	}
	if sub == isa.SubNone {
		b.errorf("needs an operation (.add .min .max .inc .dec .and .or .xor .exch .cas)")
		return
	}
	if red && sub == isa.SubCas {
		b.errorf("red has no .cas (use atom.cas)")
		return
	}
	if vec > 1 && space != isa.SpaceNone && space != isa.Global {
		b.errorf("vector atomics work on .global memory only")
		return
	}
	fnG, fnS := atomOp(b, sub, t, noftz, vec)
	if b.failed {
		return
	}
	if vec <= 1 {
		vec = 0
	}
	// Operand layout.
	first := 0
	if !red {
		first = 1
	}
	n := first + 2
	if sub == isa.SubCas {
		n++
	}
	if !b.Want(n, memCachePolicyOperand(b, n)) {
		return
	}
	ref, ok := bindMemRef(b, first, space)
	if !ok {
		return
	}
	op := b.op
	ref.set(op)
	op.Type, op.Sub, op.Vec = t, sub, uint8(vec)
	size := t.Size()
	if vec == 0 {
		if !red {
			op.D = b.Dst(0, t)
		}
		op.B = b.Src(first+1, t)
		if sub == isa.SubCas {
			op.C = b.Src(first+2, t)
		}
		if b.failed {
			return
		}
		op.Exec = makeAtom(ref.space, size, fnG, fnS)
		return
	}
	var dregs []int32
	if !red {
		dregs = b.VecRegs(0, vec, t, true)
	}
	bregs := b.VecRegs(first+1, vec, t, false)
	if b.failed {
		return
	}
	op.Regs = append(append([]int32(nil), bregs...), dregs...)
	op.Exec = makeAtomVec(ref.space, size, vec, !red, fnG)
}

// atomOp checks the operation and type and returns the update functions
// for global and for shared memory (they differ only for .add.f32).
func atomOp(b *binder, sub isa.SubOp, t isa.Type, noftz bool, vec int) (atomFn, atomFn) {
	bad := func() (atomFn, atomFn) {
		if vec > 1 {
			b.errorf(".v%d.%s is not a valid type for .%s", vec, t, sub)
		} else {
			b.errorf(".%s is not a valid type for .%s", t, sub)
		}
		return nil, nil
	}
	half := t == isa.F16 || t == isa.BF16 || t == isa.F16x2 || t == isa.BF16x2
	if half && !noftz {
		b.errorf(".%s.%s needs .noftz", sub, t)
		return nil, nil
	}
	if noftz && !half {
		b.errorf(".noftz applies only to .f16, .f16x2, .bf16 and .bf16x2")
		return nil, nil
	}
	if vec > 1 {
		switch {
		case sub == isa.SubAdd && t == isa.F32 && (vec == 2 || vec == 4):
		case half && (sub == isa.SubAdd || sub == isa.SubMin || sub == isa.SubMax) &&
			(vec == 2 || vec == 4 || vec == 8 && (t == isa.F16 || t == isa.BF16)):
		default:
			return bad()
		}
	}
	var wm uint64 = ^uint64(0)
	if t.Bits() < 64 {
		wm = 1<<t.Bits() - 1
	}
	sh := uint(64 - t.Bits())
	sx := func(v uint64) int64 { return int64(v<<sh) >> sh }
	var f atomFn
	switch sub {
	case isa.SubAdd:
		switch t {
		case isa.U32, isa.S32, isa.U64, isa.S64:
			f = func(o, x, _ uint64) uint64 { return (o + x) & wm }
		case isa.F32:
			g := func(o, x, _ uint64) uint64 { return uint64(fpx.AddF32(uint32(o), uint32(x), fpx.RN, true)) }
			s := func(o, x, _ uint64) uint64 { return uint64(fpx.AddF32(uint32(o), uint32(x), fpx.RN, false)) }
			return g, s
		case isa.F64:
			f = func(o, x, _ uint64) uint64 { return fpx.AddF64(o, x, fpx.RN) }
		case isa.F16:
			f = func(o, x, _ uint64) uint64 { return uint64(fpx.AddF16(uint16(o), uint16(x), 0)) }
		case isa.BF16:
			f = func(o, x, _ uint64) uint64 { return uint64(fpx.AddBF16(uint16(o), uint16(x), 0)) }
		case isa.F16x2:
			f = func(o, x, _ uint64) uint64 { return uint64(fpx.AddF16x2(uint32(o), uint32(x), 0)) }
		case isa.BF16x2:
			f = func(o, x, _ uint64) uint64 { return uint64(fpx.AddBF16x2(uint32(o), uint32(x), 0)) }
		default:
			return bad()
		}
	case isa.SubMin, isa.SubMax:
		isMax := sub == isa.SubMax
		switch t {
		case isa.U32, isa.U64:
			f = func(o, x, _ uint64) uint64 {
				o, x = o&wm, x&wm
				if (x < o) != isMax && x != o {
					return x
				}
				return o
			}
		case isa.S32, isa.S64:
			f = func(o, x, _ uint64) uint64 {
				a, c := sx(o), sx(x)
				if (c < a) != isMax && c != a {
					return x & wm
				}
				return o & wm
			}
		case isa.F16:
			f = func(o, x, _ uint64) uint64 {
				if isMax {
					return uint64(fpx.MaxF16(uint16(o), uint16(x), 0))
				}
				return uint64(fpx.MinF16(uint16(o), uint16(x), 0))
			}
		case isa.BF16:
			f = func(o, x, _ uint64) uint64 {
				if isMax {
					return uint64(fpx.MaxBF16(uint16(o), uint16(x), 0))
				}
				return uint64(fpx.MinBF16(uint16(o), uint16(x), 0))
			}
		case isa.F16x2:
			f = func(o, x, _ uint64) uint64 {
				if isMax {
					return uint64(fpx.MaxF16x2(uint32(o), uint32(x), 0))
				}
				return uint64(fpx.MinF16x2(uint32(o), uint32(x), 0))
			}
		case isa.BF16x2:
			f = func(o, x, _ uint64) uint64 {
				if isMax {
					return uint64(fpx.MaxBF16x2(uint32(o), uint32(x), 0))
				}
				return uint64(fpx.MinBF16x2(uint32(o), uint32(x), 0))
			}
		default:
			return bad()
		}
		if half && vec <= 1 {
			return bad() // scalar half min/max exist only as vectors
		}
	case isa.SubInc, isa.SubDec:
		if t != isa.U32 {
			return bad()
		}
		if sub == isa.SubInc {
			f = func(o, x, _ uint64) uint64 {
				if uint32(o) >= uint32(x) {
					return 0
				}
				return uint64(uint32(o) + 1)
			}
		} else {
			f = func(o, x, _ uint64) uint64 {
				if uint32(o) == 0 || uint32(o) > uint32(x) {
					return uint64(uint32(x))
				}
				return uint64(uint32(o) - 1)
			}
		}
	case isa.SubAnd, isa.SubOr, isa.SubXor, isa.SubExch:
		if t != isa.B32 && t != isa.B64 {
			return bad()
		}
		switch sub {
		case isa.SubAnd:
			f = func(o, x, _ uint64) uint64 { return o & x & wm }
		case isa.SubOr:
			f = func(o, x, _ uint64) uint64 { return (o | x) & wm }
		case isa.SubXor:
			f = func(o, x, _ uint64) uint64 { return (o ^ x) & wm }
		default:
			f = func(_, x, _ uint64) uint64 { return x & wm }
		}
	case isa.SubCas:
		if t != isa.B16 && t != isa.B32 && t != isa.B64 {
			return bad()
		}
		f = func(o, x, c uint64) uint64 {
			if o&wm == x&wm {
				return c & wm
			}
			return o & wm
		}
	default:
		b.errorf(".%s is not an atomic operation", sub)
		return nil, nil
	}
	return f, f
}

// atomBytes returns the bytes of an atomic access and the space it
// resolved to, reporting it to the observer.
func atomBytes(w *Warp, space isa.Space, l int, addr uint64, size int) ([]byte, isa.Space, *Fault) {
	buf, sp, f := w.spaceBytes(space, l, addr, size, size)
	if f != nil {
		return nil, sp, f
	}
	switch sp {
	case isa.Const, isa.Param:
		return nil, sp, w.faultAddr(FaultReadOnly, l, addr, "atomic operation on read-only %s memory at 0x%x", sp, addr)
	case isa.Local:
		return nil, sp, w.faultAddr(FaultIllegal, l, addr, "atomic operation on local memory at 0x%x (undefined in PTX)", addr)
	}
	w.noteAccess(AccessAtomic, space, sp, l, addr, buf)
	return buf, sp, nil
}

func makeAtom(space isa.Space, size int, fnG, fnS atomFn) execFn {
	return func(w *Warp, op *Op, mask uint32) *Fault {
		for m := mask; m != 0; m &= m - 1 {
			l := bits.TrailingZeros32(m)
			addr := memAddr(w, op, l)
			buf, sp, f := atomBytes(w, space, l, addr, size)
			if f != nil {
				return f
			}
			x := w.r(op.B)[l]
			var c uint64
			if op.C >= 0 {
				c = w.r(op.C)[l]
			}
			old := getLE(buf)
			fn := fnS
			if sp == isa.Global {
				fn = fnG
			}
			putLE(buf, fn(old, x, c))
			if op.D >= 0 {
				w.r(op.D)[l] = old
			}
		}
		return nil
	}
}

// makeAtomVec executes a vector atomic: op.Regs holds the n source slots,
// then (atom) the n destination slots. The whole vector must be aligned to
// its size.
func makeAtomVec(space isa.Space, es, n int, hasD bool, fn atomFn) execFn {
	total := es * n
	return func(w *Warp, op *Op, mask uint32) *Fault {
		var old [8]uint64
		for m := mask; m != 0; m &= m - 1 {
			l := bits.TrailingZeros32(m)
			addr := memAddr(w, op, l)
			buf, sp, f := w.spaceBytes(space, l, addr, total, total)
			if f != nil {
				return f
			}
			if sp != isa.Global {
				return w.faultAddr(FaultIllegal, l, addr, "vector atomic on %s memory at 0x%x (only .global is allowed)", sp, addr)
			}
			w.noteAccess(AccessAtomic, space, sp, l, addr, buf)
			for k := 0; k < n; k++ {
				e := buf[k*es : (k+1)*es]
				old[k] = getLE(e)
				putLE(e, fn(old[k], w.r(op.Regs[k])[l], 0))
			}
			if hasD {
				for k := 0; k < n; k++ {
					w.r(op.Regs[n+k])[l] = old[k]
				}
			}
		}
		return nil
	}
}
