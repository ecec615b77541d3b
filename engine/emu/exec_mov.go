package emu

import (
	"github.com/ptxplayground/ptxplay/engine/isa"
	"github.com/ptxplayground/ptxplay/engine/ptx"
	"math/bits"
)

// Data movement within registers: mov (registers, immediates, special
// registers, variable and function addresses, predicates, and the vector
// pack/unpack forms) and prmt.

func init() {
	binders[isa.OpMov] = bindMov
	binders[isa.OpPrmt] = bindPrmt
}

// ixMovTypes are the scalar types mov accepts besides .pred: the ISA's
// list plus the half-precision and packed types, which move as bits.
var ixMovTypes = []isa.Type{isa.B16, isa.B32, isa.B64, isa.U16, isa.U32, isa.U64, isa.S16, isa.S32, isa.S64,
	isa.F16, isa.BF16, isa.F16x2, isa.BF16x2, isa.U16x2, isa.S16x2, isa.F32, isa.F64, isa.B128}

func bindMov(b *binder) {
	t := b.Type()
	if b.failed || !b.Want(2, 2) {
		return
	}
	if n := b.Vec(); n > 1 {
		bindMovVec(b, t, n)
		return
	}
	if t == isa.Pred {
		b.op.D = b.Dst(0, isa.Pred)
		b.op.A = b.SrcPred(1, 0)
		b.op.Type = t
		b.op.Exec = func(w *Warp, op *Op, mask uint32) *Fault {
			ixSetPred(w, op.D, ixPredSrc(w, op, op.A, 0), mask)
			return nil
		}
		return
	}
	if !ixCheck(b, t, ixMovTypes...) {
		return
	}
	if t == isa.B128 {
		b.errorf("128-bit registers are not supported by the emulator")
		return
	}
	b.op.Type = t
	d, s := b.opd(0), b.opd(1)
	if d == nil || s == nil {
		return
	}
	switch {
	case d.Kind == ptx.OpdVec && s.Kind == ptx.OpdVec:
		b.errorf("cannot move a vector to a vector")
	case s.Kind == ptx.OpdVec:
		ixBindPack(b, t, len(s.Elems))
	case d.Kind == ptx.OpdVec:
		ixBindUnpack(b, t, len(d.Elems))
	case vecRegSize(b, s) > 1:
		ixBindPack(b, t, vecRegSize(b, s)) // mov.b64 d, v where v is a .v2 .u32 register
	case vecRegSize(b, d) > 1:
		ixBindUnpack(b, t, vecRegSize(b, d))
	default:
		b.op.D = b.Dst(0, t)
		b.op.A = ixMovSrc(b, 1, t)
		b.op.Imm = ixMask(ixWidth(t))
		b.op.Exec = execIxMov
	}
}

// ixMovSrc resolves the source of mov: besides what Src accepts, a
// constant expression over variable and function names ("arr+8") and an
// indexed variable ("arr[2]") give addresses.
func ixMovSrc(b *binder, i int, t isa.Type) int32 {
	o := b.opd(i)
	if o == nil {
		return -1
	}
	switch o.Kind {
	case ptx.OpdImm:
		v, err := ptx.Eval(o.Expr, func(name string) (ptx.Value, bool) {
			s := b.c.lookup(name)
			switch {
			case s == nil:
				return ptx.Value{}, false
			case s.kind == symVar:
				return ptx.Value{Kind: ptx.ValUint, Int: s.addr}, true
			case s.kind == symFunc:
				return ptx.Value{Kind: ptx.ValUint, Int: funcAddr(s.fn, b.c.prog)}, true
			}
			return ptx.Value{}, false
		})
		if err != nil {
			b.c.evalError(o.Expr, err)
			b.failed = true
			return -1
		}
		return b.constSrc(encodeImm(v, t), t)
	case ptx.OpdAddr:
		base, off, space, ok := b.Addr(i)
		if !ok {
			return -1
		}
		if base >= 0 || space == isa.SpaceNone {
			b.operr(i, "mov takes a register, a constant or a variable, not a memory operand")
			return -1
		}
		return b.constSrc(uint64(off)&ixMask(ixWidth(t)), t)
	}
	return b.Src(i, t)
}

func execIxMov(w *Warp, op *Op, mask uint32) *Fault {
	d, a := w.r(op.D), w.r(op.A)
	m := op.Imm
	if mask == ixAll {
		for l := 0; l < 32; l += 4 { // unrolled: no bounds checks, a quarter of the loop overhead
			d[l] = a[l] & m
			d[l+1] = a[l+1] & m
			d[l+2] = a[l+2] & m
			d[l+3] = a[l+3] & m
		}
		return nil
	}
	for lanes := mask; lanes != 0; lanes &= lanes - 1 {
		l := bits.TrailingZeros32(lanes) & 31
		d[l] = a[l] & m
	}
	return nil
}

// ixElemType returns the element type of a t split into n parts, or TNone.
func ixElemType(b *binder, t isa.Type, n int) isa.Type {
	w := t.Bits()
	if n == 2 || n == 4 {
		switch w / n {
		case 8:
			return isa.B8
		case 16:
			return isa.B16
		case 32:
			return isa.B32
		}
	}
	b.errorf("cannot split .%s into %d elements (use 2 or 4 elements of 8, 16 or 32 bits)", t, n)
	return isa.TNone
}

// ixBindPack binds mov d, {e0, e1, ...}: element k goes to bits
// [k*ew, (k+1)*ew) of d.
func ixBindPack(b *binder, t isa.Type, n int) {
	et := ixElemType(b, t, n)
	if b.failed {
		return
	}
	b.op.D = b.Dst(0, t)
	b.op.Regs = b.VecRegs(1, n, et, false)
	if b.failed {
		return
	}
	b.op.Imm = uint64(et.Bits())
	b.op.Vec = uint8(n)
	b.op.Exec = execIxPack
}

func execIxPack(w *Warp, op *Op, mask uint32) *Fault {
	d := w.r(op.D)
	ew := uint(op.Imm)
	em := ixMask(ew)
	for l := range d {
		if mask>>l&1 == 0 {
			continue
		}
		var v uint64
		for k, r := range op.Regs {
			v |= (w.r(r)[l] & em) << (ew * uint(k))
		}
		d[l] = v
	}
	return nil
}

// ixBindUnpack binds mov {e0, e1, ...}, a (sinks "_" allowed).
func ixBindUnpack(b *binder, t isa.Type, n int) {
	et := ixElemType(b, t, n)
	if b.failed {
		return
	}
	b.op.Regs = b.VecRegs(0, n, et, true)
	b.op.A = b.Src(1, t)
	if b.failed {
		return
	}
	b.op.Imm = uint64(et.Bits())
	b.op.Vec = uint8(n)
	b.op.Exec = execIxUnpack
}

func execIxUnpack(w *Warp, op *Op, mask uint32) *Fault {
	a := w.r(op.A)
	ew := uint(op.Imm)
	em := ixMask(ew)
	for l := range a {
		if mask>>l&1 == 0 {
			continue
		}
		v := a[l]
		for k, r := range op.Regs {
			w.r(r)[l] = v >> (ew * uint(k)) & em
		}
	}
	return nil
}

// ---- prmt ----

// ixPrmtModes gives, for each prmt mode and selector c[1:0], the source
// byte of result bytes 0..3 (a nibble each, byte 0 in the low nibble).
var ixPrmtModes = map[isa.SubOp][4]uint32{
	isa.SubF4E:  {0x3210, 0x4321, 0x5432, 0x6543},
	isa.SubB4E:  {0x5670, 0x6701, 0x7012, 0x0123},
	isa.SubRC8:  {0x0000, 0x1111, 0x2222, 0x3333},
	isa.SubECL:  {0x3210, 0x3211, 0x3222, 0x3333},
	isa.SubECR:  {0x0000, 0x1110, 0x2210, 0x3210},
	isa.SubRC16: {0x1010, 0x3232, 0x1010, 0x3232},
}

func bindPrmt(b *binder) {
	t := b.Type()
	mode := b.Sub()
	if !ixCheck(b, t, isa.B32) {
		return
	}
	tbl, ok := ixPrmtModes[mode]
	if mode != isa.SubNone && !ok {
		b.errorf("mode .%s is not valid (expects .f4e, .b4e, .rc8, .ecl, .ecr or .rc16)", mode)
		return
	}
	if !ixOps(b, t, t, t, t) {
		return
	}
	b.op.Type, b.op.Sub = t, mode
	if mode == isa.SubNone {
		b.op.Exec = ixExec3(func(a, b, c uint64) uint64 { return uint64(ixPrmt(uint32(a), uint32(b), uint32(c))) })
		return
	}
	b.op.Exec = ixExec3(func(a, b, c uint64) uint64 {
		// The modes select bytes without sign replication.
		return uint64(ixPrmt(uint32(a), uint32(b), tbl[c&3]))
	})
}

// ixPrmt is the generic prmt: four selector nibbles of c pick bytes of
// {b, a} (bytes 0-3 from a, 4-7 from b); a selector with bit 3 set
// replicates the picked byte's sign bit instead.
func ixPrmt(a, b, c uint32) uint32 {
	src := uint64(b)<<32 | uint64(a)
	var r uint32
	for i := 0; i < 4; i++ {
		sel := c >> (4 * i) & 0xf
		v := uint32(src>>(8*(sel&7))) & 0xff
		if sel&8 != 0 {
			v = -(v >> 7) & 0xff
		}
		r |= v << (8 * i)
	}
	return r
}

// bindMovVec binds mov.vN: an element-wise copy between vector registers
// (".reg .v4 .u16 v") and brace vectors; every source is read before any
// destination is written, so permutations work.
func bindMovVec(b *binder, t isa.Type, n int) {
	if t == isa.Pred || t.Bits() == 0 || t.Bits() > 64 {
		b.errorf("vector moves need a 8- to 64-bit type")
		return
	}
	d := b.VecRegs(0, n, t, true)
	s := b.VecRegs(1, n, t, false)
	if b.failed {
		return
	}
	b.op.Type = t
	b.op.Regs = append(d, s...)
	b.op.Imm = ixMask(ixWidth(t))
	b.op.Exec = execMovVec
}

func execMovVec(w *Warp, op *Op, mask uint32) *Fault {
	n := len(op.Regs) / 2
	var tmp [8]uint64
	for l := 0; l < 32; l++ {
		if mask>>l&1 == 0 {
			continue
		}
		for k := 0; k < n; k++ {
			tmp[k] = w.r(op.Regs[n+k])[l] & op.Imm
		}
		for k := 0; k < n; k++ {
			w.r(op.Regs[k])[l] = tmp[k]
		}
	}
	return nil
}

// vecRegSize returns the element count of a vector register operand
// (".reg .v2 .u32 v"), or 0.
func vecRegSize(b *binder, o *ptx.Operand) int {
	if o.Kind != ptx.OpdName {
		return 0
	}
	if sy := b.c.lookup(o.Name); sy != nil && sy.kind == symReg {
		return sy.size
	}
	return 0
}
