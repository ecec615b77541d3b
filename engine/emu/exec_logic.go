package emu

import (
	"github.com/ptxplayground/ptxplay/engine/isa"
	"github.com/ptxplayground/ptxplay/engine/ptx"
	"math/bits"
)

// Logic and shift instructions: and, or, xor, not, cnot, lop3, shf, shl,
// shr. The .pred forms of and/or/xor/not operate on the predicate
// bitmasks.

func init() {
	binders[isa.OpAnd] = bindLogic
	binders[isa.OpOr] = bindLogic
	binders[isa.OpXor] = bindLogic
	binders[isa.OpNot] = bindNot
	binders[isa.OpCnot] = bindCnot
	binders[isa.OpLop3] = bindLop3
	binders[isa.OpShf] = bindShf
	binders[isa.OpShl] = bindShift
	binders[isa.OpShr] = bindShift
}

// ixPredSrc returns predicate source slot s negated if bit field of op.Neg
// is set.
func ixPredSrc(w *Warp, op *Op, s int32, field uint8) uint32 {
	p := w.preds[s]
	if op.Neg>>field&1 != 0 {
		p = ^p
	}
	return p
}

// ixSetPred writes v to predicate slot d for the lanes in mask.
func ixSetPred(w *Warp, d int32, v, mask uint32) {
	if d >= 0 {
		p := &w.preds[d]
		*p = *p&^mask | v&mask
	}
}

// ---- and / or / xor ----

func bindLogic(b *binder) {
	t := b.Type()
	if !ixCheck(b, t, isa.Pred, isa.B16, isa.B32, isa.B64) || !b.Want(3, 3) {
		return
	}
	b.op.Type = t
	if t == isa.Pred {
		b.op.D = b.Dst(0, isa.Pred)
		b.op.A = b.SrcPred(1, 0)
		b.op.B = b.SrcPred(2, 1)
		switch b.op.Code {
		case isa.OpAnd:
			b.op.Exec = execIxAndPred
		case isa.OpOr:
			b.op.Exec = execIxOrPred
		default:
			b.op.Exec = execIxXorPred
		}
		return
	}
	if !ixOps(b, t, t, t) {
		return
	}
	b.op.Imm = ixMask(ixWidth(t))
	switch b.op.Code {
	case isa.OpAnd:
		b.op.Exec = execIxAnd
	case isa.OpOr:
		b.op.Exec = execIxOr
	default:
		b.op.Exec = execIxXor
	}
}

func execIxAndPred(w *Warp, op *Op, mask uint32) *Fault {
	ixSetPred(w, op.D, ixPredSrc(w, op, op.A, 0)&ixPredSrc(w, op, op.B, 1), mask)
	return nil
}

func execIxOrPred(w *Warp, op *Op, mask uint32) *Fault {
	ixSetPred(w, op.D, ixPredSrc(w, op, op.A, 0)|ixPredSrc(w, op, op.B, 1), mask)
	return nil
}

func execIxXorPred(w *Warp, op *Op, mask uint32) *Fault {
	ixSetPred(w, op.D, ixPredSrc(w, op, op.A, 0)^ixPredSrc(w, op, op.B, 1), mask)
	return nil
}

func execIxAnd(w *Warp, op *Op, mask uint32) *Fault {
	d, a, b := w.r(op.D), w.r(op.A), w.r(op.B)
	m := op.Imm
	if mask == ixAll {
		if ixVec {
			vecAndM(d, a, b, m)
		} else {
			andAllGo(d, a, b, m)
		}
		return nil
	}
	for lanes := mask; lanes != 0; lanes &= lanes - 1 {
		l := bits.TrailingZeros32(lanes) & 31
		d[l] = a[l] & b[l] & m
	}
	return nil
}

func execIxOr(w *Warp, op *Op, mask uint32) *Fault {
	d, a, b := w.r(op.D), w.r(op.A), w.r(op.B)
	m := op.Imm
	if mask == ixAll {
		if ixVec {
			vecOrM(d, a, b, m)
		} else {
			orAllGo(d, a, b, m)
		}
		return nil
	}
	for lanes := mask; lanes != 0; lanes &= lanes - 1 {
		l := bits.TrailingZeros32(lanes) & 31
		d[l] = (a[l] | b[l]) & m
	}
	return nil
}

func execIxXor(w *Warp, op *Op, mask uint32) *Fault {
	d, a, b := w.r(op.D), w.r(op.A), w.r(op.B)
	m := op.Imm
	if mask == ixAll {
		if ixVec {
			vecXorM(d, a, b, m)
		} else {
			xorAllGo(d, a, b, m)
		}
		return nil
	}
	for lanes := mask; lanes != 0; lanes &= lanes - 1 {
		l := bits.TrailingZeros32(lanes) & 31
		d[l] = (a[l] ^ b[l]) & m
	}
	return nil
}

// ---- not / cnot ----

func bindNot(b *binder) {
	t := b.Type()
	if !ixCheck(b, t, isa.Pred, isa.B16, isa.B32, isa.B64) || !b.Want(2, 2) {
		return
	}
	b.op.Type = t
	if t == isa.Pred {
		b.op.D = b.Dst(0, isa.Pred)
		b.op.A = b.SrcPred(1, 0)
		b.op.Exec = func(w *Warp, op *Op, mask uint32) *Fault {
			ixSetPred(w, op.D, ^ixPredSrc(w, op, op.A, 0), mask)
			return nil
		}
		return
	}
	if !ixOps(b, t, t) {
		return
	}
	m := ixMask(ixWidth(t))
	b.op.Exec = ixExec1(func(a uint64) uint64 { return ^a & m })
}

func bindCnot(b *binder) {
	t := b.Type()
	if !ixCheck(b, t, ixBits...) || !ixOps(b, t, t) {
		return
	}
	m := ixMask(ixWidth(t))
	b.op.Type = t
	b.op.Exec = ixExec1(func(a uint64) uint64 {
		if a&m == 0 {
			return 1
		}
		return 0
	})
}

// ---- lop3 ----

// bindLop3 supports lop3.b32 d, a, b, c, immLut and the predicate-output
// form lop3.BoolOp.b32 d|p, a, b, c, immLut, {!}q (BoolOp .and/.or), where
// p = (d != 0) BoolOp q.
func bindLop3(b *binder) {
	t := b.Type()
	boolOp := b.Sub()
	if !ixCheck(b, t, isa.B32) {
		return
	}
	switch boolOp {
	case isa.SubNone:
		if !b.Want(5, 5) {
			return
		}
		b.op.D = b.Dst(0, t)
	case isa.SubAnd, isa.SubOr:
		if !b.Want(6, 6) {
			return
		}
		o := b.opd(0)
		if o == nil || o.Kind != ptx.OpdPair {
			b.operr(0, "lop3.%s needs a destination pair d|p", boolOp)
			return
		}
		saved := b.ins.Operands
		b.ins.Operands = o.Elems
		b.op.D = b.Dst(0, t)
		b.op.D2 = b.Dst(1, isa.Pred)
		b.ins.Operands = saved
		b.op.E = b.SrcPred(5, 3)
	default:
		b.errorf("boolean operation .%s is not valid (expects .and or .or)", boolOp)
		return
	}
	b.op.A = b.Src(1, t)
	b.op.B = b.Src(2, t)
	b.op.C = b.Src(3, t)
	if b.failed {
		return
	}
	v, ok := b.Imm(4)
	if !ok {
		return
	}
	if v.Kind == ptx.ValFloat || v.Int > 255 {
		b.operr(4, "immLut must be an integer from 0 to 255")
		return
	}
	b.op.Type, b.op.Sub2, b.op.Imm = t, boolOp, v.Int
	b.op.Exec = execIxLop3
}

// ixLop3 applies the 3-input truth table lut bitwise: bit i of lut is the
// result for the inputs a = i>>2&1, b = i>>1&1, c = i&1.
func ixLop3(a, b, c, lut uint64) uint64 {
	var r uint64
	for i := uint(0); i < 8; i++ {
		if lut>>i&1 == 0 {
			continue
		}
		x, y, z := a, b, c
		if i&4 == 0 {
			x = ^a
		}
		if i&2 == 0 {
			y = ^b
		}
		if i&1 == 0 {
			z = ^c
		}
		r |= x & y & z
	}
	return r & 0xffffffff
}

func execIxLop3(w *Warp, op *Op, mask uint32) *Fault {
	d, a, b, c := w.r(op.D), w.r(op.A), w.r(op.B), w.r(op.C)
	lut := op.Imm
	var nz uint32
	for l := range d {
		if mask>>l&1 != 0 {
			v := ixLop3(a[l], b[l], c[l], lut)
			d[l] = v
			if v != 0 {
				nz |= 1 << l
			}
		}
	}
	if op.Sub2 != isa.SubNone {
		q := ixPredSrc(w, op, op.E, 3)
		if op.Sub2 == isa.SubAnd {
			nz &= q
		} else {
			nz |= q
		}
		ixSetPred(w, op.D2, nz, mask)
	}
	return nil
}

// ---- funnel shift ----

func bindShf(b *binder) {
	t := b.Type()
	dir := ixMode(b, isa.FL, isa.FR)
	mode := ixMode(b, isa.FClamp, isa.FWrap)
	if !ixCheck(b, t, isa.B32) {
		return
	}
	if dir == 0 || mode == 0 {
		if !b.failed {
			b.errorf("needs a direction (.l or .r) and a mode (.clamp or .wrap)")
		}
		return
	}
	if !ixOps(b, t, t, t, isa.U32) {
		return
	}
	left, clamp := dir == 1, mode == 1
	b.op.Type = t
	b.op.Flags = b.op.Flags.With([]isa.Flag{0, isa.FL, isa.FR}[dir]).With([]isa.Flag{0, isa.FClamp, isa.FWrap}[mode])
	b.op.Exec = ixExec3(func(a, b, c uint64) uint64 {
		n := uint32(c)
		if clamp {
			n = min(n, 32)
		} else {
			n &= 0x1f
		}
		lo, hi := uint32(a), uint32(b)
		if left {
			return uint64(hi<<n | lo>>(32-n))
		}
		return uint64(hi<<(32-n) | lo>>n)
	})
}

// ---- shl / shr ----

func bindShift(b *binder) {
	t := b.Type()
	right := b.op.Code == isa.OpShr
	ok := false
	if right {
		ok = ixCheck(b, t, isa.B16, isa.B32, isa.B64, isa.U16, isa.U32, isa.U64, isa.S16, isa.S32, isa.S64)
	} else {
		ok = ixCheck(b, t, ixBits...)
	}
	if !ok || !ixOps(b, t, t, isa.U32) {
		return
	}
	w := ixWidth(t)
	b.op.Type = t
	b.op.Imm = ixMask(w)
	switch {
	case !right && ixImmediateB(b, w, execIxShlImm32, execIxShlImm64):
	case right && !t.IsSigned() && ixImmediateB(b, w, execIxShrImm32, execIxShrImm64):
	case !right:
		b.op.Exec = execIxShl
	case t.IsSigned():
		b.op.Exec = execIxSar
	default:
		b.op.Exec = execIxShr
	}
}

// Shift amounts are unsigned 32-bit values; amounts of the operand width
// or more shift everything out (Go shifts by >= 64 give 0 or the sign).

func execIxShl(w *Warp, op *Op, mask uint32) *Fault {
	d, a, b := w.r(op.D), w.r(op.A), w.r(op.B)
	m := op.Imm
	if mask == ixAll {
		for l := 0; l < 32; l += 4 { // unrolled: no bounds checks, a quarter of the loop overhead
			d[l] = (a[l] & m) << uint32(b[l]) & m
			d[l+1] = (a[l+1] & m) << uint32(b[l+1]) & m
			d[l+2] = (a[l+2] & m) << uint32(b[l+2]) & m
			d[l+3] = (a[l+3] & m) << uint32(b[l+3]) & m
		}
		return nil
	}
	for lanes := mask; lanes != 0; lanes &= lanes - 1 {
		l := bits.TrailingZeros32(lanes) & 31
		d[l] = (a[l] & m) << uint32(b[l]) & m
	}
	return nil
}

func execIxShr(w *Warp, op *Op, mask uint32) *Fault {
	d, a, b := w.r(op.D), w.r(op.A), w.r(op.B)
	m := op.Imm
	if mask == ixAll {
		for l := 0; l < 32; l += 4 { // unrolled: no bounds checks, a quarter of the loop overhead
			d[l] = (a[l] & m) >> uint32(b[l])
			d[l+1] = (a[l+1] & m) >> uint32(b[l+1])
			d[l+2] = (a[l+2] & m) >> uint32(b[l+2])
			d[l+3] = (a[l+3] & m) >> uint32(b[l+3])
		}
		return nil
	}
	for lanes := mask; lanes != 0; lanes &= lanes - 1 {
		l := bits.TrailingZeros32(lanes) & 31
		d[l] = (a[l] & m) >> uint32(b[l])
	}
	return nil
}

func execIxSar(w *Warp, op *Op, mask uint32) *Fault {
	d, a, b := w.r(op.D), w.r(op.A), w.r(op.B)
	m, s := op.Imm, 64-uint(op.Type.Bits()) // s moves the sign bit to bit 63
	if mask == ixAll {
		for l := 0; l < 32; l += 4 { // unrolled: no bounds checks, a quarter of the loop overhead
			d[l] = uint64(int64(a[l]<<s)>>s>>uint32(b[l])) & m
			d[l+1] = uint64(int64(a[l+1]<<s)>>s>>uint32(b[l+1])) & m
			d[l+2] = uint64(int64(a[l+2]<<s)>>s>>uint32(b[l+2])) & m
			d[l+3] = uint64(int64(a[l+3]<<s)>>s>>uint32(b[l+3])) & m
		}
		return nil
	}
	for lanes := mask; lanes != 0; lanes &= lanes - 1 {
		l := bits.TrailingZeros32(lanes) & 31
		d[l] = uint64(int64(a[l]<<s)>>s>>uint32(b[l])) & m
	}
	return nil
}
