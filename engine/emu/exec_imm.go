package emu

import "math/bits"

// Integer handlers specialised on an immediate second operand, chosen at
// lowering (add, shl and shr on 32 and 64 bits): op.Imm holds the
// immediate, so the lane loop reads one register row instead of two and
// the result needs no width mask of its own. Each computes exactly what
// the generic handler computes on the immediate's read-only row.

// ixImmediateB binds the immediate form e32 or e64 of an add or shift of
// width w when its second source is an immediate, and reports whether it
// did (op.Imm then holds the immediate instead of the width mask).
func ixImmediateB(b *binder, w uint, e32, e64 execFn) bool {
	k, ok := b.immediate(b.op.B)
	if !ok || w != 32 && w != 64 {
		return false
	}
	b.op.Imm = k
	b.op.Exec = e32
	if w == 64 {
		b.op.Exec = e64
	}
	return true
}

func execIxAddImm32(w *Warp, op *Op, mask uint32) *Fault {
	d, a, k := w.r(op.D), w.r(op.A), uint32(op.Imm)
	if mask == ixAll {
		if ixVec {
			vecAddImm32(d, a, uint64(k))
		} else {
			addImm32AllGo(d, a, uint64(k))
		}
		return nil
	}
	for lanes := mask; lanes != 0; lanes &= lanes - 1 {
		l := bits.TrailingZeros32(lanes) & 31
		d[l] = uint64(uint32(a[l]) + k)
	}
	return nil
}

func execIxAddImm64(w *Warp, op *Op, mask uint32) *Fault {
	d, a, k := w.r(op.D), w.r(op.A), op.Imm
	if mask == ixAll {
		for l := 0; l < 32; l += 4 {
			d[l] = a[l] + k
			d[l+1] = a[l+1] + k
			d[l+2] = a[l+2] + k
			d[l+3] = a[l+3] + k
		}
		return nil
	}
	for lanes := mask; lanes != 0; lanes &= lanes - 1 {
		l := bits.TrailingZeros32(lanes) & 31
		d[l] = a[l] + k
	}
	return nil
}

// Shift amounts are the immediate's low 32 bits (as in execIxShl and
// execIxShr); amounts of the width or more give 0, as in PTX.

// ixZeroLanes clears the lanes of mask in d.
func ixZeroLanes(d *[32]uint64, mask uint32) *Fault {
	if mask == ixAll {
		*d = [32]uint64{}
		return nil
	}
	for lanes := mask; lanes != 0; lanes &= lanes - 1 {
		d[bits.TrailingZeros32(lanes)&31] = 0
	}
	return nil
}

func execIxShlImm32(w *Warp, op *Op, mask uint32) *Fault {
	d, a, s := w.r(op.D), w.r(op.A), uint32(op.Imm)
	if s >= 32 {
		return ixZeroLanes(d, mask)
	}
	s &= 31 // in range: lets the shifts skip Go's test for large amounts
	if mask == ixAll {
		if ixVec {
			vecShlImm32(d, a, uint64(s))
		} else {
			shlImm32AllGo(d, a, uint64(s))
		}
		return nil
	}
	for lanes := mask; lanes != 0; lanes &= lanes - 1 {
		l := bits.TrailingZeros32(lanes) & 31
		d[l] = uint64(uint32(a[l]) << s)
	}
	return nil
}

func execIxShlImm64(w *Warp, op *Op, mask uint32) *Fault {
	d, a, s := w.r(op.D), w.r(op.A), uint32(op.Imm)
	if s >= 64 {
		return ixZeroLanes(d, mask)
	}
	s &= 63 // in range: lets the shifts skip Go's test for large amounts
	if mask == ixAll {
		for l := 0; l < 32; l += 4 {
			d[l] = a[l] << s
			d[l+1] = a[l+1] << s
			d[l+2] = a[l+2] << s
			d[l+3] = a[l+3] << s
		}
		return nil
	}
	for lanes := mask; lanes != 0; lanes &= lanes - 1 {
		l := bits.TrailingZeros32(lanes) & 31
		d[l] = a[l] << s
	}
	return nil
}

func execIxShrImm32(w *Warp, op *Op, mask uint32) *Fault {
	d, a, s := w.r(op.D), w.r(op.A), uint32(op.Imm)
	if s >= 32 {
		return ixZeroLanes(d, mask)
	}
	s &= 31 // in range: lets the shifts skip Go's test for large amounts
	if mask == ixAll {
		if ixVec {
			vecShrImm32(d, a, uint64(s))
		} else {
			shrImm32AllGo(d, a, uint64(s))
		}
		return nil
	}
	for lanes := mask; lanes != 0; lanes &= lanes - 1 {
		l := bits.TrailingZeros32(lanes) & 31
		d[l] = uint64(uint32(a[l]) >> s)
	}
	return nil
}

func execIxShrImm64(w *Warp, op *Op, mask uint32) *Fault {
	d, a, s := w.r(op.D), w.r(op.A), uint32(op.Imm)
	if s >= 64 {
		return ixZeroLanes(d, mask)
	}
	s &= 63 // in range: lets the shifts skip Go's test for large amounts
	if mask == ixAll {
		for l := 0; l < 32; l += 4 {
			d[l] = a[l] >> s
			d[l+1] = a[l+1] >> s
			d[l+2] = a[l+2] >> s
			d[l+3] = a[l+3] >> s
		}
		return nil
	}
	for lanes := mask; lanes != 0; lanes &= lanes - 1 {
		l := bits.TrailingZeros32(lanes) & 31
		d[l] = a[l] >> s
	}
	return nil
}
