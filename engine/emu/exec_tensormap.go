package emu

import (
	"fmt"
	"math/bits"

	"github.com/ptxplayground/ptxplay/engine/isa"
)

// Tensor maps built on the device: tensormap.replace and
// tensormap.cp_fenceproxy (PTX §9.7.9.28, §9.7.13.16). A tensor map is the
// 128 bytes of isa.TensorMap's encoding (docs/emulator.md, "Tensor
// maps"); these instructions read and write those bytes like any other
// memory, so snapshots, history, the memory view and the race checker see
// them.
//
// Choices documented here:
//   - The map must be 128-byte aligned and lie in .global or .shared::cta
//     memory (through a generic address, the address must fall in one of
//     those windows); anything else faults, naming the field and address.
//   - tensormap.replace is a weak 128-byte read-modify-write of the whole
//     map (the ISA treats it as a weak operation on the whole object): each
//     executing lane replaces the field of the map at its own address, in
//     lane order. An ordinal or a value outside the field's range (Table
//     33, and the rank's 0..4) is a compile error when it is an immediate
//     and a fault naming the field and value when it is a register; a
//     fault changes no lane's map.
//   - tensormap.cp_fenceproxy copies each lane's 128 bytes from shared to
//     global memory when the warp executes it; its release fence is an
//     ordering point only (the emulator is sequentially consistent).

func init() {
	binders[isa.OpTensormapReplace] = bindTensormapReplace
	binders[isa.OpTensormapCpFenceproxy] = bindTensormapCpFenceproxy
}

// tensormapFieldMod finds the field qualifier of a tensormap.replace.
func tensormapFieldMod(b *binder) (isa.TensorMapField, bool) {
	var field isa.TensorMapField
	n := 0
	for _, h := range b.m.Hints {
		if f, ok := isa.ParseTensorMapField(h); ok {
			field = f
			n++
		}
	}
	switch {
	case n == 0:
		b.errorf("needs a field: .global_address, .rank, .box_dim, .global_dim, .global_stride, .element_stride, .elemtype, .interleave_layout, .swizzle_mode, .swizzle_atomicity or .fill_mode")
		return 0, false
	case n > 1:
		b.errorf("names more than one field")
		return 0, false
	}
	return field, true
}

// tensormapField3 reports a field whose new_val must be an immediate
// (.field3 of the ISA's syntax).
func tensormapField3(f isa.TensorMapField) bool {
	switch f {
	case isa.FieldElemType, isa.FieldInterleaveLayout, isa.FieldSwizzleMode, isa.FieldSwizzleAtomicity, isa.FieldFillMode:
		return true
	}
	return false
}

func bindTensormapReplace(b *binder) {
	mode := b.Tensor()
	if len(mode) != 1 || mode[0].Kind != isa.ModTensor || isa.TensorWord(mode[0].Value) != isa.TensorTile {
		b.errorf("needs the mode .tile (tensormap.replace.tile.field{.ss}.b1024.type)")
		return
	}
	if !b.Hint("b1024") {
		b.errorf("needs .b1024 (the size of the tensor-map object)")
		return
	}
	field, ok := tensormapFieldMod(b)
	if !ok {
		return
	}
	space := b.Space()
	switch space {
	case isa.SpaceNone, isa.Global, isa.Shared:
	default:
		b.errorf("the tensor map is in .global or .shared::cta memory (or at a generic address of either), not .%s", space)
		return
	}
	t := b.Type()
	if b.failed {
		return
	}
	want := isa.B32
	if field.ValueBits() == 64 {
		want = isa.B64
	}
	if t != want {
		b.errorf(".%s takes .%s, not .%s", field, want, t)
		return
	}
	vi := 1
	ord := 0
	if field.Ordinal() {
		if !b.Want(3, 3) {
			return
		}
		v, ok := b.Imm(1)
		if !ok {
			return
		}
		if v.Int > 255 {
			b.operr(1, "tensormap.replace.%s: ordinal %d is out of range", field, v.Int)
			return
		}
		ord = int(v.Int)
		vi = 2
	} else if !b.Want(2, 2) {
		return
	}
	if tensormapField3(field) && !b.IsImm(vi) {
		b.operr(vi, "the new value of .%s must be an immediate", field)
		return
	}
	ref, ok := bindMemRef(b, 0, space)
	if !ok {
		return
	}
	b.memSpan(isa.TensorMapBytes)
	val := b.Src(vi, want)
	if b.failed {
		return
	}
	// An ordinal, or an immediate value, the field cannot hold is an
	// error now rather than a fault at run time.
	var probe [isa.TensorMapBytes]byte
	if err := isa.ReplaceTensorMapField(probe[:], field, ord, 0); err != nil {
		b.operr(1, "%v", err)
		return
	}
	if v, imm := b.immediate(val); imm {
		if err := isa.ReplaceTensorMapField(probe[:], field, ord, tensormapValue(v, want)); err != nil {
			b.operr(vi, "%v", err)
			return
		}
	}
	op := b.op
	ref.set(op)
	op.B = val
	op.Type = want
	op.Aux = int32(field) | int32(ord)<<8
	op.Exec = execTensormapReplace
}

// tensormapValue is new_val of type t as the instruction reads it.
func tensormapValue(v uint64, t isa.Type) uint64 {
	if t.Bits() == 32 {
		return v & 0xffffffff
	}
	return v
}

// tensormapAt checks and resolves the tensor map of lane l at addr in
// space (SpaceNone: generic): 128-byte aligned, in .global or
// .shared::cta memory, inside its allocation. what names the
// instruction (and field) in the fault.
func tensormapAt(w *Warp, space isa.Space, l int, addr uint64, what string) ([]byte, *Fault) {
	sp, at := space, addr
	where := ""
	if sp == isa.SpaceNone {
		sp, at = w.m.genericToSpace(addr)
		if sp != isa.Global && sp != isa.Shared {
			return nil, w.faultAddr(FaultIllegal, l, addr, "%s: generic address 0x%x of lane %d is in %s memory; a tensor map is in .global or .shared::cta memory", what, addr, l, sp)
		}
		if sp != isa.Global {
			where = fmt.Sprintf(" (generic address 0x%x)", addr)
		}
	}
	if at%isa.TensorMapBytes != 0 {
		return nil, w.faultAddr(FaultMisaligned, l, addr, "%s: the tensor map at %s address 0x%x%s of lane %d is not 128-byte aligned", what, sp, at, where, l)
	}
	b, _, f := w.spaceBytes(space, l, addr, isa.TensorMapBytes, isa.TensorMapBytes)
	if f != nil {
		f.Message = what + ": " + f.Message
		return nil, f
	}
	return b, nil
}

func execTensormapReplace(w *Warp, op *Op, mask uint32) *Fault {
	field, ord := isa.TensorMapField(op.Aux&0xff), int(op.Aux>>8)
	what := "tensormap.replace." + field.String()
	base := memBase(w, op)
	vals := w.r(op.B)
	// Check every lane first: a fault changes no map.
	var first *Fault
	var bad uint32
	for m := mask; m != 0; m &= m - 1 {
		l := bits.TrailingZeros32(m)
		addr := memAt(base, op, l)
		f := func() *Fault {
			buf, f := tensormapAt(w, op.Space, l, addr, what)
			if f != nil {
				return f
			}
			var probe [isa.TensorMapBytes]byte
			copy(probe[:], buf)
			if err := isa.ReplaceTensorMapField(probe[:], field, ord, tensormapValue(vals[l], op.Type)); err != nil {
				return w.faultAddr(FaultIllegal, l, addr, "%v (lane %d, the tensor map at 0x%x; an invalid value is undefined behaviour)", err, l, addr)
			}
			return nil
		}()
		if f != nil {
			if first == nil {
				first = f
			}
			bad |= 1 << l
		}
	}
	if first != nil {
		first.Lanes = bad
		return first
	}
	for m := mask; m != 0; m &= m - 1 {
		l := bits.TrailingZeros32(m)
		buf, f := w.access(AccessStore, op.Space, l, memAt(base, op, l), isa.TensorMapBytes, isa.TensorMapBytes)
		if f != nil {
			return f
		}
		if err := isa.ReplaceTensorMapField(buf, field, ord, tensormapValue(vals[l], op.Type)); err != nil {
			return w.fault(FaultInternal, l, "%s: %v", what, err)
		}
	}
	return nil
}

func bindTensormapCpFenceproxy(b *binder) {
	// tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.scope.sync.aligned [dst], [src], 128;
	b.Space()
	var names []string
	for _, m := range b.ins.Mods {
		names = append(names, m.Name)
	}
	scope := ""
	for _, s := range []string{"cta", "cluster", "gpu", "sys"} {
		if b.Hint(s) {
			if scope != "" {
				b.errorf("names more than one scope")
				return
			}
			scope = s
		}
	}
	sync, aligned := b.Flag(isa.FSync), b.Flag(isa.FAligned)
	form := fmt.Sprint(names)
	want := fmt.Sprint([]string{"cp_fenceproxy", "global", "shared::cta", "tensormap::generic", "release", scope, "sync", "aligned"})
	if scope == "" || !sync || !aligned || form != want {
		b.errorf("the form is tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.{cta,cluster,gpu,sys}.sync.aligned")
		return
	}
	if !b.Want(3, 3) {
		return
	}
	if v, ok := b.Imm(2); !ok {
		return
	} else if v.Int != isa.TensorMapBytes {
		b.operr(2, "size must be 128")
		return
	}
	dst, ok := bindMemRef(b, 0, isa.Global)
	if !ok {
		return
	}
	b.memSpan(isa.TensorMapBytes)
	src, ok := bindMemRef(b, 1, isa.Shared)
	if !ok {
		return
	}
	b.memSpan(isa.TensorMapBytes)
	op := b.op
	dst.set(op)
	op.E = src.base
	op.Flags = op.Flags.With(isa.FSync).With(isa.FAligned)
	srcOff, srcMask := uint64(src.off), src.amask
	srcAddr := func(w *Warp, l int) uint64 {
		a := srcOff
		if op.E >= 0 {
			a += w.r(op.E)[l] & srcMask
		}
		return a
	}
	op.Exec = func(w *Warp, op *Op, mask uint32) *Fault {
		if f := tensorConverged(w, op, mask); f != nil {
			return f
		}
		const what = "tensormap.cp_fenceproxy"
		var first *Fault
		var bad uint32
		for m := mask; m != 0; m &= m - 1 {
			l := bits.TrailingZeros32(m)
			_, f := tensormapAt(w, isa.Shared, l, srcAddr(w, l), what)
			if f == nil {
				_, f = tensormapAt(w, isa.Global, l, memAddr(w, op, l), what)
			}
			if f != nil {
				if first == nil {
					first = f
				}
				bad |= 1 << l
			}
		}
		if first != nil {
			first.Lanes = bad
			return first
		}
		for m := mask; m != 0; m &= m - 1 {
			l := bits.TrailingZeros32(m)
			s, f := w.access(AccessLoad, isa.Shared, l, srcAddr(w, l), isa.TensorMapBytes, isa.TensorMapBytes)
			if f != nil {
				return f
			}
			var tmp [isa.TensorMapBytes]byte
			copy(tmp[:], s)
			d, f := w.access(AccessStore, isa.Global, l, memAddr(w, op, l), isa.TensorMapBytes, isa.TensorMapBytes)
			if f != nil {
				return f
			}
			copy(d, tmp[:])
		}
		return nil
	}
}
