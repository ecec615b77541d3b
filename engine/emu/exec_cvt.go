package emu

import (
	"github.com/ptxplayground/ptxplay/engine/fpx"
	"github.com/ptxplayground/ptxplay/engine/isa"
)

// cvt: conversions between the integer types, the floating-point types
// (.f16, .bf16, .f32, .f64, .tf32, the packed .f16x2/.bf16x2 and the fp8
// pairs .e4m3x2/.e5m2x2), and cvt.pack.sat.
//
// Rules of the PTX ISA enforced here:
//   - integer rounding (.rni .rzi .rmi .rpi) is required for float-to-integer
//     conversions and optional for same-type float conversions (round to an
//     integral value); it is invalid elsewhere;
//   - float rounding (.rn .rz .rm .rp) is required for integer-to-float and
//     narrowing float-to-float conversions; where it has no effect (exact
//     widening, same type) it is accepted with a warning;
//   - .ftz needs .f32 as the source or destination type;
//   - float-to-integer conversions saturate to the destination range (NaN
//     gives 0), .sat on integer destinations clamps, .sat on float
//     destinations clamps to [0.0, 1.0] (NaN gives +0.0).
//
// The destination register may be wider than the destination type: a
// signed integer result is sign-extended to the register's width, every
// other result zero-extended. Source registers wider than the source type
// are truncated to it.

func init() {
	binders[isa.OpCvt] = bindCvt
}

func cvtIsInt(t isa.Type) bool {
	switch t {
	case isa.U8, isa.U16, isa.U32, isa.U64, isa.S8, isa.S16, isa.S32, isa.S64:
		return true
	}
	return false
}

func cvtIsFloat(t isa.Type) bool {
	switch t {
	case isa.F16, isa.BF16, isa.F32, isa.F64:
		return true
	}
	return false
}

// cvtRegBits returns the width of the value register in slot (64 for
// anything unusual).
func cvtRegBits(b *binder, slot int32) int {
	if slot < 0 || int(slot) >= len(b.c.prog.Regs) {
		return 64
	}
	n := b.c.prog.Regs[slot].Type.Bits()
	if n <= 0 || n > 64 {
		return 64
	}
	return n
}

func cvtMask(bits int) uint64 {
	if bits >= 64 {
		return ^uint64(0)
	}
	return 1<<uint(bits) - 1
}

// cvtWarn reports a harmless but non-ISA modifier.
func cvtWarn(b *binder, format string, args ...any) {
	b.warnNonISA(format, args...)
}

func bindCvt(b *binder) {
	if b.Flag(isa.FPack) {
		cvtBindPack(b)
		return
	}
	ts := b.Types(2)
	if b.failed {
		return
	}
	dt, at := ts[0], ts[1]
	b.op.Type, b.op.Type2 = dt, at
	r := b.Rnd()
	b.op.Rnd = r
	switch {
	case r == isa.RS:
		b.errorf("stochastic rounding (cvt.rs) is not supported by the emulator")
	case dt == isa.E4M3x2 || dt == isa.E5M2x2:
		cvtBindToF8(b, dt, at, r)
	case at == isa.E4M3x2 || at == isa.E5M2x2:
		cvtBindFromF8(b, dt, at, r)
	case dt == isa.F16x2 || dt == isa.BF16x2:
		cvtBindPair(b, dt, at, r)
	case dt == isa.TF32:
		cvtBindTF32(b, at, r)
	case (cvtIsInt(dt) || cvtIsFloat(dt)) && (cvtIsInt(at) || cvtIsFloat(at)):
		cvtBindScalar(b, dt, at, r)
	default:
		bad := dt
		if cvtIsInt(dt) || cvtIsFloat(dt) {
			bad = at
		}
		switch bad {
		case isa.E4M3, isa.E5M2:
			b.errorf("cvt converts fp8 values only in pairs (.e4m3x2, .e5m2x2)")
		case isa.B8, isa.B16, isa.B32, isa.B64:
			b.errorf("type .%s is not valid for cvt (use an unsigned or signed type)", bad)
		default:
			b.errorf("cvt.%s.%s is not a valid conversion", dt, at)
		}
	}
}

// cvtBindScalar binds cvt{.rnd}{.ftz}{.sat}{.relu}{.satfinite}.dtype.atype
// d, a between the integer types and .f16, .bf16, .f32, .f64.
func cvtBindScalar(b *binder, dt, at isa.Type, r isa.Rnd) {
	form := "cvt." + dt.String() + "." + at.String()
	fl := fxFlags(b, form, isa.FFtz, isa.FSat, isa.FRelu, isa.FSatfinite)
	if b.failed {
		return
	}
	dInt, aInt := cvtIsInt(dt), cvtIsInt(at)
	ftz, sat := fl.Has(isa.FFtz), fl.Has(isa.FSat)
	relu, satfin := fl.Has(isa.FRelu), fl.Has(isa.FSatfinite)
	fr := r >= isa.RN && r <= isa.RP
	switch {
	case ftz && dt != isa.F32 && at != isa.F32:
		b.errorf(".ftz is only valid for cvt when the source or destination type is .f32")
		return
	case (relu || satfin) && !(at == isa.F32 && (dt == isa.F16 || dt == isa.BF16)):
		b.errorf(".relu and .satfinite are only valid for cvt to .f16/.bf16/.tf32 from .f32 and for fp8 conversions")
		return
	case (relu || satfin) && r != isa.RN && r != isa.RZ:
		b.errorf("requires .rn or .rz with .relu or .satfinite")
		return
	case r == isa.RNA:
		b.errorf("rounding modifier .rna is only valid for cvt.rna.tf32.f32")
		return
	}
	// Rounding requirements.
	same := dt == at
	exact := !dInt && !aInt && !same && cvtFloatWidens(dt, at)
	switch {
	case dInt && aInt:
		if r != isa.RndNone {
			b.errorf("rounding modifier .%s is not valid for an integer-to-integer cvt", r)
			return
		}
	case dInt:
		if !r.IsInt() {
			if r == isa.RndNone {
				b.errorf("requires an integer rounding modifier (.rni, .rzi, .rmi, .rpi)")
			} else {
				b.errorf("requires an integer rounding modifier (.rni, .rzi, .rmi, .rpi), not .%s", r)
			}
			return
		}
	case aInt:
		if !fr {
			if r == isa.RndNone {
				b.errorf("requires a rounding modifier (.rn, .rz, .rm, .rp)")
			} else {
				b.errorf("requires a floating-point rounding modifier (.rn, .rz, .rm, .rp), not .%s", r)
			}
			return
		}
	case same:
		if fr {
			cvtWarn(b, "rounding modifier .%s has no effect on a same-type conversion (use .rni, .rzi, .rmi or .rpi to round to an integral value)", r)
		}
	case exact:
		if r.IsInt() {
			b.errorf("integer rounding .%s is only valid for same-type float conversions", r)
			return
		}
		if fr {
			cvtWarn(b, "rounding modifier .%s has no effect: %s is exact", r, form)
		}
	default: // narrowing float-to-float
		if !fr {
			if r == isa.RndNone {
				b.errorf("requires a rounding modifier (.rn, .rz, .rm, .rp)")
			} else {
				b.errorf("requires a floating-point rounding modifier (.rn, .rz, .rm, .rp), not .%s", r)
			}
			return
		}
	}
	if !b.Want(2, 2) {
		return
	}
	b.op.D = b.DstRelaxed(0, dt)
	b.op.A = b.SrcRelaxed(1, at)
	if b.failed {
		return
	}
	b.op.Flags = fl
	rn := fxRound(r)
	regBits := cvtRegBits(b, b.op.D)
	if dInt && aInt {
		b.op.Exec = cvtIntIntExec(at.Bits(), at.IsSigned(), dt.Bits(), dt.IsSigned(), regBits, sat)
		return
	}
	var m fpx.Mod
	if ftz {
		m |= fpx.FTZ
	}
	if sat {
		m |= fpx.Sat
	}
	if relu {
		m |= fpx.Relu
	}
	if satfin {
		m |= fpx.SatFinite
	}
	if dInt {
		b.op.Exec = cvtFloatIntExec(at, dt.Bits(), dt.IsSigned(), regBits, rn, ftz, sat)
		return
	}
	var f func(x uint64) uint64
	if aInt {
		f = cvtIntFloat(dt, at.Bits(), at.IsSigned(), rn, sat)
	} else {
		f = cvtFloatFloat(dt, at, r, rn, m)
	}
	b.op.Exec = fxMap1(f)
}

// cvtFloatWidens reports whether converting at to dt is exact.
func cvtFloatWidens(dt, at isa.Type) bool {
	switch at {
	case isa.F16, isa.BF16:
		return dt == isa.F32 || dt == isa.F64
	case isa.F32:
		return dt == isa.F64
	}
	return false
}

// cvtClampInt clamps x (the source value: a sign-extended int64 if
// srcSigned, else a uint64) to the range of the destination type.
func cvtClampInt(x uint64, srcSigned bool, dstBits int, dstSigned bool) uint64 {
	if srcSigned && int64(x) < 0 {
		if !dstSigned {
			return 0
		}
		lo := int64(-1) << uint(dstBits-1)
		if int64(x) < lo {
			return uint64(lo)
		}
		return x
	}
	hi := cvtMask(dstBits)
	if dstSigned {
		hi >>= 1
	}
	if x > hi {
		return hi
	}
	return x
}

// cvtIntIntExec converts between integer types: the source is truncated to
// its type and sign- or zero-extended, clamped with .sat, truncated to the
// destination type, then sign-extended (signed destinations) or
// zero-extended to the register width.
func cvtIntIntExec(srcBits int, srcSigned bool, dstBits int, dstSigned bool, regBits int, sat bool) execFn {
	ss, ds := uint(64-srcBits), uint(64-dstBits)
	rm := cvtMask(regBits)
	conv := func(v uint64) uint64 {
		v <<= ss
		if srcSigned {
			v = uint64(int64(v) >> ss)
		} else {
			v >>= ss
		}
		if sat {
			v = cvtClampInt(v, srcSigned, dstBits, dstSigned)
		}
		v <<= ds
		if dstSigned {
			v = uint64(int64(v) >> ds)
		} else {
			v >>= ds
		}
		return v & rm
	}
	if !sat {
		// The common widening/narrowing moves as tight loops.
		return func(w *Warp, op *Op, mask uint32) *Fault {
			d, a := w.r(op.D), w.r(op.A)
			for l := range d {
				if mask>>l&1 == 0 {
					continue
				}
				v := a[l] << ss
				if srcSigned {
					v = uint64(int64(v) >> ss)
				} else {
					v >>= ss
				}
				v <<= ds
				if dstSigned {
					v = uint64(int64(v) >> ds)
				} else {
					v >>= ds
				}
				d[l] = v & rm
			}
			return nil
		}
	}
	return fxMap1(conv)
}

// cvtFloatIntExec converts a float to an integer type (the conversion
// saturates; NaN gives 0) and extends the result to the register width.
func cvtFloatIntExec(at isa.Type, dstBits int, signed bool, regBits int, rn fpx.Rnd, ftz, sat bool) execFn {
	var f func(x uint64) uint64
	switch at {
	case isa.F32:
		f = func(x uint64) uint64 { return fpx.F32ToInt(uint32(x), dstBits, signed, rn, ftz, sat) }
	case isa.F64:
		f = func(x uint64) uint64 { return fpx.F64ToInt(x, dstBits, signed, rn) }
	case isa.F16:
		f = func(x uint64) uint64 { return fpx.F16ToInt(uint16(x), dstBits, signed, rn) }
	default:
		f = func(x uint64) uint64 { return fpx.BF16ToInt(uint16(x), dstBits, signed, rn) }
	}
	if !signed || regBits <= dstBits {
		return fxMap1(f)
	}
	ds := uint(64 - dstBits)
	rm := cvtMask(regBits)
	return fxMap1(func(x uint64) uint64 { return uint64(int64(f(x)<<ds)>>ds) & rm })
}

// cvtIntFloat converts an integer to a float type, correctly rounded.
func cvtIntFloat(dt isa.Type, srcBits int, signed bool, rn fpx.Rnd, sat bool) func(uint64) uint64 {
	switch dt {
	case isa.F32:
		return func(x uint64) uint64 {
			z := fpx.IntToF32(x, srcBits, signed, rn)
			if sat {
				z = fpx.SatF32(z)
			}
			return uint64(z)
		}
	case isa.F64:
		return func(x uint64) uint64 {
			z := fpx.IntToF64(x, srcBits, signed, rn)
			if sat {
				z = fpx.SatF64(z)
			}
			return z
		}
	case isa.F16:
		return func(x uint64) uint64 {
			z := fpx.IntToF16(x, srcBits, signed, rn)
			if sat {
				z = fpx.SatF16(z)
			}
			return uint64(z)
		}
	default:
		return func(x uint64) uint64 {
			z := fpx.IntToBF16(x, srcBits, signed, rn)
			if sat {
				z = fpx.SatBF16(z)
			}
			return uint64(z)
		}
	}
}

// cvtCanon16 canonicalises an f16 (inf = 0x7C00) or bf16 (inf = 0x7F80) NaN.
func cvtCanon16(h uint16, inf uint16) uint16 {
	if h&0x7FFF > inf {
		return 0x7FFF
	}
	return h
}

// cvtFloatFloat converts between .f16, .bf16, .f32 and .f64. r is the PTX
// rounding modifier (integer rounding selects round-to-integral for
// same-type conversions), rn its fpx direction, m the modifiers.
func cvtFloatFloat(dt, at isa.Type, r isa.Rnd, rn fpx.Rnd, m fpx.Mod) func(uint64) uint64 {
	ftz, sat := m&fpx.FTZ != 0, m&fpx.Sat != 0
	irnd := r.IsInt()
	switch {
	case dt == isa.F32 && at == isa.F32:
		if irnd {
			return func(x uint64) uint64 {
				z := fpx.RoundToIntF32(uint32(x), rn, ftz)
				if sat {
					z = fpx.SatF32(z)
				}
				return uint64(z)
			}
		}
		return func(x uint64) uint64 { return uint64(fpx.CvtF32F32(uint32(x), ftz, sat)) }
	case dt == isa.F64 && at == isa.F64:
		return func(x uint64) uint64 {
			if irnd {
				x = fpx.RoundToIntF64(x, rn)
			}
			if sat {
				x = fpx.SatF64(x)
			}
			return x
		}
	case dt == isa.F16 && at == isa.F16:
		return func(x uint64) uint64 {
			h := cvtCanon16(uint16(x), 0x7C00)
			if irnd {
				h = fpx.RoundToIntF16(h, rn)
			}
			if sat {
				h = fpx.SatF16(h)
			}
			return uint64(h)
		}
	case dt == isa.BF16 && at == isa.BF16:
		return func(x uint64) uint64 {
			h := cvtCanon16(uint16(x), 0x7F80)
			if irnd {
				h = fpx.RoundToIntBF16(h, rn)
			}
			if sat {
				h = fpx.SatBF16(h)
			}
			return uint64(h)
		}
	case dt == isa.F32:
		widen := fpx.F16ToF32
		if at == isa.BF16 {
			widen = fpx.BF16ToF32
		}
		if at == isa.F64 {
			return func(x uint64) uint64 { return uint64(fpx.F64ToF32(x, rn, ftz, sat)) }
		}
		return func(x uint64) uint64 {
			z := widen(uint16(x))
			if ftz {
				z = fpx.FlushF32(z)
			}
			if sat {
				z = fpx.SatF32(z)
			}
			return uint64(z)
		}
	case dt == isa.F64:
		return func(x uint64) uint64 {
			var z uint64
			switch at {
			case isa.F32:
				z = fpx.F32ToF64(uint32(x), ftz)
			case isa.F16:
				z = fpx.F16ToF64(uint16(x))
			default:
				z = fpx.BF16ToF64(uint16(x))
			}
			if sat {
				z = fpx.SatF64(z)
			}
			return z
		}
	case dt == isa.F16:
		switch at {
		case isa.F32:
			return func(x uint64) uint64 { return uint64(fpx.F32ToF16(uint32(x), rn, m)) }
		case isa.F64:
			return func(x uint64) uint64 { return uint64(fpx.F64ToF16(x, rn, m)) }
		default:
			return func(x uint64) uint64 { return uint64(fpx.BF16ToF16(uint16(x), rn, m)) }
		}
	default: // bf16
		switch at {
		case isa.F32:
			return func(x uint64) uint64 { return uint64(fpx.F32ToBF16(uint32(x), rn, m)) }
		case isa.F64:
			return func(x uint64) uint64 { return uint64(fpx.F64ToBF16(x, rn, m)) }
		default:
			return func(x uint64) uint64 { return uint64(fpx.F16ToBF16(uint16(x), rn, m)) }
		}
	}
}

// cvtBindPair binds cvt.frnd2{.relu}{.satfinite}.f16x2.f32 d, a, b and the
// .bf16x2 form: cvt(a) goes to the upper half of d, cvt(b) to the lower.
func cvtBindPair(b *binder, dt, at isa.Type, r isa.Rnd) {
	form := "cvt." + dt.String() + "." + at.String()
	if at != isa.F32 {
		b.errorf("not a valid conversion (a .%s result comes from two .f32 values, or from .e4m3x2/.e5m2x2)", dt)
		return
	}
	fl := fxFlags(b, form, isa.FRelu, isa.FSatfinite)
	if b.failed {
		return
	}
	if r != isa.RN && r != isa.RZ {
		b.errorf("requires .rn or .rz")
		return
	}
	if !b.Want(3, 3) {
		return
	}
	b.op.D = b.DstRelaxed(0, dt)
	b.op.A = b.Src(1, isa.F32)
	b.op.B = b.Src(2, isa.F32)
	if b.failed {
		return
	}
	b.op.Flags = fl
	var m fpx.Mod
	if fl.Has(isa.FRelu) {
		m |= fpx.Relu
	}
	if fl.Has(isa.FSatfinite) {
		m |= fpx.SatFinite
	}
	rn := fxRound(r)
	if dt == isa.F16x2 {
		b.op.Exec = fxMap2(func(x, y uint64) uint64 { return uint64(fpx.F32x2ToF16x2(uint32(x), uint32(y), rn, m)) })
		return
	}
	b.op.Exec = fxMap2(func(x, y uint64) uint64 { return uint64(fpx.F32x2ToBF16x2(uint32(x), uint32(y), rn, m)) })
}

// cvtBindTF32 binds cvt.rna{.satfinite}.tf32.f32 d, a and
// cvt.frnd2{.satfinite}{.relu}.tf32.f32 d, a (frnd2: .rn, .rz). The
// result is an f32 bit pattern with the 13 low bits clear.
func cvtBindTF32(b *binder, at isa.Type, r isa.Rnd) {
	form := "cvt.tf32." + at.String()
	if at != isa.F32 {
		b.errorf("not a valid conversion (tf32 is converted from .f32)")
		return
	}
	fl := fxFlags(b, form, isa.FRelu, isa.FSatfinite)
	if b.failed {
		return
	}
	switch {
	case r != isa.RNA && r != isa.RN && r != isa.RZ:
		b.errorf("requires .rna, .rn or .rz")
		return
	case r == isa.RNA && fl.Has(isa.FRelu):
		b.errorf(".relu is not valid with cvt.rna.tf32.f32")
		return
	}
	if !b.Want(2, 2) {
		return
	}
	b.op.D = b.DstRelaxed(0, isa.TF32)
	b.op.A = b.Src(1, isa.F32)
	if b.failed {
		return
	}
	b.op.Flags = fl
	var m fpx.Mod
	if fl.Has(isa.FRelu) {
		m |= fpx.Relu
	}
	if fl.Has(isa.FSatfinite) {
		m |= fpx.SatFinite
	}
	rn := fxRound(r)
	b.op.Exec = fxMap1(func(x uint64) uint64 { return uint64(fpx.F32ToTF32(uint32(x), rn, m)) })
}

// cvtBindToF8 binds cvt.rn.satfinite{.relu}.e4m3x2.f32 d, a, b (cvt(a) in
// d[15:8], cvt(b) in d[7:0]), cvt.rn.satfinite{.relu}.e4m3x2.f16x2 d, a,
// and the .e5m2x2 forms.
func cvtBindToF8(b *binder, dt, at isa.Type, r isa.Rnd) {
	form := "cvt." + dt.String() + "." + at.String()
	if at != isa.F32 && at != isa.F16x2 {
		b.errorf("not a valid conversion (fp8 pairs are converted from .f32 or .f16x2)")
		return
	}
	fl := fxFlags(b, form, isa.FRelu, isa.FSatfinite)
	if b.failed {
		return
	}
	switch {
	case r != isa.RN:
		b.errorf("requires .rn")
		return
	case !fl.Has(isa.FSatfinite):
		b.errorf("requires .satfinite")
		return
	}
	n := 3
	if at == isa.F16x2 {
		n = 2
	}
	if !b.Want(n, n) {
		return
	}
	b.op.D = b.DstRelaxed(0, dt)
	b.op.A = b.Src(1, at)
	if n == 3 {
		b.op.B = b.Src(2, at)
	}
	if b.failed {
		return
	}
	b.op.Flags = fl
	relu := fl.Has(isa.FRelu)
	e4 := dt == isa.E4M3x2
	switch {
	case n == 3 && e4:
		b.op.Exec = fxMap2(func(x, y uint64) uint64 { return uint64(fpx.F32x2ToE4M3x2(uint32(x), uint32(y), true, relu)) })
	case n == 3:
		b.op.Exec = fxMap2(func(x, y uint64) uint64 { return uint64(fpx.F32x2ToE5M2x2(uint32(x), uint32(y), true, relu)) })
	case e4:
		b.op.Exec = fxMap1(func(x uint64) uint64 { return uint64(fpx.F16x2ToE4M3x2(uint32(x), true, relu)) })
	default:
		b.op.Exec = fxMap1(func(x uint64) uint64 { return uint64(fpx.F16x2ToE5M2x2(uint32(x), true, relu)) })
	}
}

// cvtBindFromF8 binds cvt.rn{.relu}.f16x2.e4m3x2 d, a and the .e5m2x2
// form: a[7:0] goes to the lower f16 of d, a[15:8] to the upper.
func cvtBindFromF8(b *binder, dt, at isa.Type, r isa.Rnd) {
	form := "cvt." + dt.String() + "." + at.String()
	if dt != isa.F16x2 {
		b.errorf("not a valid conversion (fp8 pairs convert to .f16x2)")
		return
	}
	fl := fxFlags(b, form, isa.FRelu)
	if b.failed {
		return
	}
	if r != isa.RN {
		b.errorf("requires .rn")
		return
	}
	if !b.Want(2, 2) {
		return
	}
	b.op.D = b.DstRelaxed(0, dt)
	b.op.A = b.SrcRelaxed(1, at)
	if b.failed {
		return
	}
	b.op.Flags = fl
	relu := fl.Has(isa.FRelu)
	if at == isa.E4M3x2 {
		b.op.Exec = fxMap1(func(x uint64) uint64 { return uint64(fpx.E4M3x2ToF16x2(uint16(x), relu)) })
		return
	}
	b.op.Exec = fxMap1(func(x uint64) uint64 { return uint64(fpx.E5M2x2ToF16x2(uint16(x), relu)) })
}

// cvtBindPack binds cvt.pack.sat.{u16,s16}.s32 d, a, b and
// cvt.pack.sat.{u8,s8}.s32.b32 d, a, b, c: a and b are clamped to the
// destination type, b goes to the low element and a above it; the 3-type
// form fills the rest of d with the low bits of c.
func cvtBindPack(b *binder) {
	ts := b.AllTypes()
	form := "cvt.pack"
	fl := fxFlags(b, form, isa.FPack, isa.FSat)
	fxRndOf(b, form)
	if b.failed {
		return
	}
	if !fl.Has(isa.FSat) {
		b.errorf("requires .sat")
		return
	}
	n := len(ts)
	switch {
	case n == 2 && (ts[0] == isa.U16 || ts[0] == isa.S16) && ts[1] == isa.S32:
	case n == 3 && (ts[0] == isa.U8 || ts[0] == isa.S8) && ts[1] == isa.S32 && ts[2] == isa.B32:
	default:
		b.errorf("cvt.pack takes .u16/.s16 with .s32, or .u8/.s8 with .s32.b32")
		return
	}
	if !b.Want(n+1, n+1) {
		return
	}
	dt := ts[0]
	b.op.Type, b.op.Type2 = dt, isa.S32
	b.op.D = b.DstRelaxed(0, isa.B32)
	b.op.A = b.Src(1, isa.S32)
	b.op.B = b.Src(2, isa.S32)
	if n == 3 {
		b.op.C = b.Src(3, isa.B32)
	}
	if b.failed {
		return
	}
	b.op.Flags = fl
	size := uint(dt.Bits())
	signed := dt.IsSigned()
	em := cvtMask(int(size))
	pack := func(x, y uint64) uint64 {
		hi := cvtClampInt(uint64(int64(int32(x))), true, int(size), signed) & em
		lo := cvtClampInt(uint64(int64(int32(y))), true, int(size), signed) & em
		return hi<<size | lo
	}
	if n == 2 {
		b.op.Exec = fxMap2(pack)
		return
	}
	b.op.Exec = fxMap3(func(x, y, z uint64) uint64 {
		return uint64(uint32(pack(x, y) | z<<(2*size)))
	})
}
