package emu

import (
	"github.com/ptxplayground/ptxplay/engine/fpx"
	"github.com/ptxplayground/ptxplay/engine/isa"
)

// Half-precision arithmetic: add, sub, mul, fma, neg, abs, min and max on
// .f16, .f16x2, .bf16 and .bf16x2, and the half forms of ex2 and tanh.
// Packed x2 values hold element 0 in the low 16 bits of the register.
// PTX rounds half-precision arithmetic to nearest even only (.rn, the
// default); the packed forms apply the scalar operation to each half.

// halfIsBF reports whether t is .bf16 or .bf16x2.
func halfIsBF(t isa.Type) bool { return t == isa.BF16 || t == isa.BF16x2 }

// halfIsX2 reports whether t is a packed pair.
func halfIsX2(t isa.Type) bool { return t == isa.F16x2 || t == isa.BF16x2 }

// halfMods converts the present flags to fpx modifiers.
func halfMods(fl isa.Flags) fpx.Mod {
	var m fpx.Mod
	if fl.Has(isa.FFtz) {
		m |= fpx.FTZ
	}
	if fl.Has(isa.FSat) {
		m |= fpx.Sat
	}
	if fl.Has(isa.FRelu) {
		m |= fpx.Relu
	}
	if fl.Has(isa.FNaN) {
		m |= fpx.NaN
	}
	if fl.Has(isa.FXorsign) && fl.Has(isa.FAbs) {
		m |= fpx.XorSignAbs
	}
	return m
}

// halfExec2 builds the execFn of a binary half operation: f16 (scalar on
// the low 16 bits) or x2 (both halves of 32 bits).
func halfExec2(t isa.Type, f16 func(a, b uint16, m fpx.Mod) uint16, x2 func(a, b uint32, m fpx.Mod) uint32, m fpx.Mod) execFn {
	if halfIsX2(t) {
		return fxMap2(func(x, y uint64) uint64 { return uint64(x2(uint32(x), uint32(y), m)) })
	}
	return fxMap2(func(x, y uint64) uint64 { return uint64(f16(uint16(x), uint16(y), m)) })
}

// bindHalfArith binds add, sub, mul, abs, neg, min and max on the half
// types (called by bindFloatArith).
func bindHalfArith(b *binder, t isa.Type) {
	switch b.op.Code {
	case isa.OpAdd, isa.OpSub, isa.OpMul:
		halfBindBin(b, t)
	case isa.OpAbs, isa.OpNeg:
		halfBindAbsNeg(b, t)
	case isa.OpMin, isa.OpMax:
		halfBindMinMax(b, t)
	case isa.OpMad:
		b.errorf("mad has no .%s form (use fma.rn.%s)", t, t)
	default:
		b.errorf("%s has no .%s form", b.op.Code, t)
	}
}

// halfBindBin binds add/sub/mul{.rn}{.ftz}{.sat}.f16/.f16x2 and
// add/sub/mul{.rn}.bf16/.bf16x2.
func halfBindBin(b *binder, t isa.Type) {
	form := fxForm(b, t)
	r := fxRndOf(b, form, isa.RN)
	var fl isa.Flags
	if halfIsBF(t) {
		fxFlags(b, form)
	} else {
		fl = fxFlags(b, form, isa.FFtz, isa.FSat)
	}
	if !fxBind(b, 3, t) {
		return
	}
	b.op.Rnd, b.op.Flags = r, fl
	m := halfMods(fl)
	bf := halfIsBF(t)
	switch b.op.Code {
	case isa.OpAdd:
		if bf {
			b.op.Exec = halfExec2(t, fpx.AddBF16, fpx.AddBF16x2, m)
		} else {
			b.op.Exec = halfExec2(t, fpx.AddF16, fpx.AddF16x2, m)
		}
	case isa.OpSub:
		if bf {
			b.op.Exec = halfExec2(t, fpx.SubBF16, fpx.SubBF16x2, m)
		} else {
			b.op.Exec = halfExec2(t, fpx.SubF16, fpx.SubF16x2, m)
		}
	default:
		if bf {
			b.op.Exec = halfExec2(t, fpx.MulBF16, fpx.MulBF16x2, m)
		} else {
			b.op.Exec = halfExec2(t, fpx.MulF16, fpx.MulF16x2, m)
		}
	}
}

// halfBindFma binds fma.rn{.ftz}{.sat}.f16/.f16x2, fma.rn{.ftz}.relu.f16/
// .f16x2 and fma.rn{.relu}.bf16/.bf16x2.
func halfBindFma(b *binder, t isa.Type) {
	form := fxForm(b, t)
	r := fxRndOf(b, form, isa.RN)
	var fl isa.Flags
	if halfIsBF(t) {
		fl = fxFlags(b, form, isa.FRelu)
	} else {
		fl = fxFlags(b, form, isa.FFtz, isa.FSat, isa.FRelu)
	}
	if b.failed {
		return
	}
	switch {
	case r == isa.RndNone:
		b.errorf("requires the rounding modifier .rn")
		return
	case fl.Has(isa.FSat) && fl.Has(isa.FRelu):
		b.errorf(".sat and .relu cannot be combined in %s", form)
		return
	}
	if !fxBind(b, 4, t) {
		return
	}
	b.op.Rnd, b.op.Flags = r, fl
	m := halfMods(fl)
	switch t {
	case isa.F16:
		b.op.Exec = fxMap3(func(x, y, z uint64) uint64 { return uint64(fpx.FmaF16(uint16(x), uint16(y), uint16(z), m)) })
	case isa.F16x2:
		b.op.Exec = fxMap3(func(x, y, z uint64) uint64 { return uint64(fpx.FmaF16x2(uint32(x), uint32(y), uint32(z), m)) })
	case isa.BF16:
		b.op.Exec = fxMap3(func(x, y, z uint64) uint64 { return uint64(fpx.FmaBF16(uint16(x), uint16(y), uint16(z), m)) })
	default:
		b.op.Exec = fxMap3(func(x, y, z uint64) uint64 { return uint64(fpx.FmaBF16x2(uint32(x), uint32(y), uint32(z), m)) })
	}
}

// halfBindAbsNeg binds abs/neg{.ftz}.f16/.f16x2 and abs/neg.bf16/.bf16x2.
func halfBindAbsNeg(b *binder, t isa.Type) {
	form := fxForm(b, t)
	fxRndOf(b, form)
	var fl isa.Flags
	if halfIsBF(t) {
		fxFlags(b, form)
	} else {
		fl = fxFlags(b, form, isa.FFtz)
	}
	if !fxBind(b, 2, t) {
		return
	}
	b.op.Flags = fl
	ftz, neg := fl.Has(isa.FFtz), b.op.Code == isa.OpNeg
	var f func(uint64) uint64
	switch {
	case t == isa.F16 && neg:
		f = func(x uint64) uint64 { return uint64(fpx.NegF16(uint16(x), ftz)) }
	case t == isa.F16:
		f = func(x uint64) uint64 { return uint64(fpx.AbsF16(uint16(x), ftz)) }
	case t == isa.F16x2 && neg:
		f = func(x uint64) uint64 { return uint64(fpx.NegF16x2(uint32(x), ftz)) }
	case t == isa.F16x2:
		f = func(x uint64) uint64 { return uint64(fpx.AbsF16x2(uint32(x), ftz)) }
	case t == isa.BF16 && neg:
		f = func(x uint64) uint64 { return uint64(fpx.NegBF16(uint16(x))) }
	case t == isa.BF16:
		f = func(x uint64) uint64 { return uint64(fpx.AbsBF16(uint16(x))) }
	case neg:
		f = func(x uint64) uint64 { return uint64(fpx.NegBF16x2(uint32(x))) }
	default:
		f = func(x uint64) uint64 { return uint64(fpx.AbsBF16x2(uint32(x))) }
	}
	b.op.Exec = fxMap1(f)
}

// halfBindMinMax binds min/max{.ftz}{.NaN}{.xorsign.abs}.f16/.f16x2 and
// min/max{.NaN}{.xorsign.abs}.bf16/.bf16x2.
func halfBindMinMax(b *binder, t isa.Type) {
	form := fxForm(b, t)
	fxRndOf(b, form)
	var fl isa.Flags
	if halfIsBF(t) {
		fl = fxFlags(b, form, isa.FNaN, isa.FXorsign, isa.FAbs)
	} else {
		fl = fxFlags(b, form, isa.FFtz, isa.FNaN, isa.FXorsign, isa.FAbs)
	}
	if b.failed {
		return
	}
	if fl.Has(isa.FXorsign) != fl.Has(isa.FAbs) {
		b.errorf(".xorsign and .abs must be used together in %s", form)
		return
	}
	if !fxBind(b, 3, t) {
		return
	}
	b.op.Flags = fl
	m := halfMods(fl)
	if b.op.Code == isa.OpMax {
		if halfIsBF(t) {
			b.op.Exec = halfExec2(t, fpx.MaxBF16, fpx.MaxBF16x2, m)
		} else {
			b.op.Exec = halfExec2(t, fpx.MaxF16, fpx.MaxF16x2, m)
		}
		return
	}
	if halfIsBF(t) {
		b.op.Exec = halfExec2(t, fpx.MinBF16, fpx.MinBF16x2, m)
	} else {
		b.op.Exec = halfExec2(t, fpx.MinF16, fpx.MinF16x2, m)
	}
}

// halfApproxExec returns the execFn of ex2.approx / tanh.approx on a half
// type (the binder has checked the modifiers).
func halfApproxExec(code isa.Opcode, t isa.Type) execFn {
	var f func(uint64) uint64
	switch {
	case code == isa.OpEx2 && t == isa.F16:
		f = func(x uint64) uint64 { return uint64(fpx.Ex2ApproxF16(uint16(x))) }
	case code == isa.OpEx2 && t == isa.F16x2:
		f = func(x uint64) uint64 { return uint64(fpx.Ex2ApproxF16x2(uint32(x))) }
	case code == isa.OpEx2 && t == isa.BF16:
		f = func(x uint64) uint64 { return uint64(fpx.Ex2ApproxBF16(uint16(x))) }
	case code == isa.OpEx2:
		f = func(x uint64) uint64 { return uint64(fpx.Ex2ApproxBF16x2(uint32(x))) }
	case t == isa.F16:
		f = func(x uint64) uint64 { return uint64(fpx.TanhApproxF16(uint16(x))) }
	case t == isa.F16x2:
		f = func(x uint64) uint64 { return uint64(fpx.TanhApproxF16x2(uint32(x))) }
	case t == isa.BF16:
		f = func(x uint64) uint64 { return uint64(fpx.TanhApproxBF16(uint16(x))) }
	default:
		f = func(x uint64) uint64 { return uint64(fpx.TanhApproxBF16x2(uint32(x))) }
	}
	return fxMap1(f)
}
