package emu

import (
	"math"
	"math/bits"
	"strconv"
	"strings"

	"github.com/ptxplayground/ptxplay/engine/fpx"
	"github.com/ptxplayground/ptxplay/engine/isa"
)

// The floating-point family: add/sub/mul/mad/div/abs/neg/min/max on .f32
// and .f64 (bound through bindFloatArith by the owner of those shared
// opcodes), and fma, rcp, sqrt, rsqrt, sin, cos, lg2, ex2, tanh, testp and
// copysign. The half-precision types are in exec_half.go. All arithmetic
// goes through engine/fpx, which returns the canonical NaN of each type and
// rounds correctly in every mode; the hot round-to-nearest f32/f64 forms
// use native arithmetic in tight loops.

func init() {
	binders[isa.OpFma] = bindFma
	binders[isa.OpRcp] = bindRcp
	binders[isa.OpSqrt] = bindSqrt
	binders[isa.OpRsqrt] = bindRsqrt
	binders[isa.OpSin] = bindFloatApprox
	binders[isa.OpCos] = bindFloatApprox
	binders[isa.OpLg2] = bindFloatApprox
	binders[isa.OpEx2] = bindFloatApprox
	binders[isa.OpTanh] = bindFloatApprox
	binders[isa.OpTestp] = bindTestp
	binders[isa.OpCopysign] = bindCopysign
}

// fxAll is the mask of a fully active warp.
const fxAll = ^uint32(0)

// fxRnd4 are the IEEE rounding modifiers.
var fxRnd4 = []isa.Rnd{isa.RN, isa.RZ, isa.RM, isa.RP}

// ---- small shared helpers (also used by exec_half.go and exec_cvt.go) ----

// fxRound maps a PTX rounding modifier to fpx's: the integer modifiers
// .rni/.rzi/.rmi/.rpi map to the same directions; none means .rn.
func fxRound(r isa.Rnd) fpx.Rnd {
	switch r {
	case isa.RZ, isa.RZI:
		return fpx.RZ
	case isa.RM, isa.RMI:
		return fpx.RM
	case isa.RP, isa.RPI:
		return fpx.RP
	case isa.RNA:
		return fpx.RNA
	}
	return fpx.RN
}

// fxForm names an instruction form in messages: "add.f64".
func fxForm(b *binder, t isa.Type) string {
	return b.op.Code.String() + "." + t.String()
}

// fxFlags accepts the flags in allowed and reports any other flag present
// on the instruction. It returns the allowed flags that are present.
func fxFlags(b *binder, form string, allowed ...isa.Flag) isa.Flags {
	var ok isa.Flags
	for _, f := range allowed {
		ok = ok.With(f)
		b.Flag(f)
	}
	if rest := b.m.Flags &^ ok; rest != 0 {
		for f := isa.Flag(0); f < isa.NumFlags; f++ {
			if rest.Has(f) {
				b.errorf("modifier .%s is not valid for %s", f, form)
				break
			}
		}
	}
	return b.m.Flags & ok
}

// fxRndOf returns the rounding modifier, reporting one that is not in
// allowed (no modifier is always accepted here; callers decide whether one
// is required).
func fxRndOf(b *binder, form string, allowed ...isa.Rnd) isa.Rnd {
	r := b.Rnd()
	if r == isa.RndNone {
		return r
	}
	for _, a := range allowed {
		if r == a {
			return r
		}
	}
	if len(allowed) == 0 {
		b.errorf("rounding modifier .%s is not valid for %s", r, form)
	} else {
		b.errorf("rounding modifier .%s is not valid for %s (expected %s)", r, form, fxRndList(allowed))
	}
	return r
}

func fxRndList(rs []isa.Rnd) string {
	s := make([]string, len(rs))
	for i, r := range rs {
		s[i] = "." + r.String()
	}
	return strings.Join(s, ", ")
}

// fxPTXVersion returns the module's .version as major*100+minor (104 for
// 1.4), or 0 if absent.
func fxPTXVersion(b *binder) int {
	if b.c.mod == nil {
		return 0
	}
	maj, mnr, ok := strings.Cut(b.c.mod.Version, ".")
	if !ok {
		return 0
	}
	x, err1 := strconv.Atoi(maj)
	y, err2 := strconv.Atoi(mnr)
	if err1 != nil || err2 != nil {
		return 0
	}
	return x*100 + y
}

// fxTargetSM returns the SM version of the module's .target (13 for sm_13,
// 90 for sm_90a), or 0 if none is given.
func fxTargetSM(b *binder) int {
	if b.c.mod == nil {
		return 0
	}
	for _, t := range b.c.mod.Target {
		if s, ok := strings.CutPrefix(strings.TrimSpace(t), "sm_"); ok {
			s = strings.TrimRight(s, "abcdefghijklmnopqrstuvwxyz")
			if n, err := strconv.Atoi(s); err == nil {
				return n
			}
		}
	}
	return 0
}

// fxLegacy reports whether the module is PTX ISA 1.0-1.3, where div, rcp,
// sqrt, rsqrt, sin, cos, lg2, ex2 and mad.f64 have implicit defaults.
func fxLegacy(b *binder) bool {
	v := fxPTXVersion(b)
	return v > 0 && v < 104
}

func fxCanon32(z float32) uint64 {
	if z != z {
		return uint64(fpx.NaN32)
	}
	return uint64(math.Float32bits(z))
}

// fxNaN64 returns the bits of an f64 result z of an operation on a and b:
// a NaN result carries the first NaN operand's payload, quieted, or is
// the canonical NaN for an invalid operation (fpx.NaNResultF64).
func fxNaN64(z float64, a, b uint64) uint64 {
	if z != z {
		return fpx.NaNResultF64(a, b)
	}
	return math.Float64bits(z)
}

func fxF32(x uint64) float32 { return math.Float32frombits(uint32(x)) }
func fxF64(x uint64) float64 { return math.Float64frombits(x) }

// fxMap1, fxMap2 and fxMap3 build execFns applying f lane by lane to the
// sources A (B, C) and writing D. They serve the less common forms.
func fxMap1(f func(a uint64) uint64) execFn {
	return func(w *Warp, op *Op, mask uint32) *Fault {
		d, a := w.r(op.D), w.r(op.A)
		if mask == fxAll {
			for l := range d {
				d[l] = f(a[l])
			}
			return nil
		}
		for l := range d {
			if mask>>l&1 != 0 {
				d[l] = f(a[l])
			}
		}
		return nil
	}
}

func fxMap2(f func(a, b uint64) uint64) execFn {
	return func(w *Warp, op *Op, mask uint32) *Fault {
		d, a, b := w.r(op.D), w.r(op.A), w.r(op.B)
		if mask == fxAll {
			for l := range d {
				d[l] = f(a[l], b[l])
			}
			return nil
		}
		for l := range d {
			if mask>>l&1 != 0 {
				d[l] = f(a[l], b[l])
			}
		}
		return nil
	}
}

func fxMap3(f func(a, b, c uint64) uint64) execFn {
	return func(w *Warp, op *Op, mask uint32) *Fault {
		d, a, b, c := w.r(op.D), w.r(op.A), w.r(op.B), w.r(op.C)
		if mask == fxAll {
			for l := range d {
				d[l] = f(a[l], b[l], c[l])
			}
			return nil
		}
		for l := range d {
			if mask>>l&1 != 0 {
				d[l] = f(a[l], b[l], c[l])
			}
		}
		return nil
	}
}

// fxBind binds "d, a{, b{, c}}" of type t (n operands in all).
func fxBind(b *binder, n int, t isa.Type) bool {
	if b.failed || !b.Want(n, n) {
		return false
	}
	b.op.D = b.Dst(0, t)
	b.op.A = b.Src(1, t)
	if n > 2 {
		b.op.B = b.Src(2, t)
	}
	if n > 3 {
		b.op.C = b.Src(3, t)
	}
	return !b.failed
}

// ---- the shared arithmetic opcodes ----

// bindFloatArith binds add, sub, mul, mad, div, abs, neg, min and max when
// the instruction type is a floating-point type. The binder of those
// opcodes calls it.
func bindFloatArith(b *binder) {
	ts := b.AllTypes()
	if len(ts) == 2 && ts[0] == isa.F32 && (ts[1] == isa.F16 || ts[1] == isa.BF16) &&
		(b.op.Code == isa.OpAdd || b.op.Code == isa.OpSub) {
		fxBindMixed(b, ts[1])
		return
	}
	t := b.Type()
	if b.failed {
		return
	}
	b.op.Type = t
	switch t {
	case isa.F16, isa.F16x2, isa.BF16, isa.BF16x2:
		bindHalfArith(b, t)
		return
	case isa.F32, isa.F64:
	default:
		b.errorf("type .%s is not supported by %s", t, b.op.Code)
		return
	}
	switch b.op.Code {
	case isa.OpAdd, isa.OpSub, isa.OpMul:
		fxBindAddMul(b, t)
	case isa.OpMad:
		fxBindFma(b, t, true)
	case isa.OpDiv:
		fxBindDiv(b, t)
	case isa.OpAbs, isa.OpNeg:
		fxBindAbsNeg(b, t)
	case isa.OpMin, isa.OpMax:
		fxBindMinMax(b, t)
	default:
		b.errorf("%s has no floating-point form", b.op.Code)
	}
}

func fxBindAddMul(b *binder, t isa.Type) {
	form := fxForm(b, t)
	r := fxRndOf(b, form, fxRnd4...)
	var fl isa.Flags
	if t == isa.F32 {
		fl = fxFlags(b, form, isa.FFtz, isa.FSat)
	} else {
		fxFlags(b, form)
	}
	if !fxBind(b, 3, t) {
		return
	}
	b.op.Rnd, b.op.Flags = r, fl
	rn, ftz, sat := fxRound(r), fl.Has(isa.FFtz), fl.Has(isa.FSat)
	code := b.op.Code
	if t == isa.F32 {
		if rn == fpx.RN && !ftz && !sat {
			switch code {
			case isa.OpAdd:
				b.op.Exec = execAddF32
			case isa.OpSub:
				b.op.Exec = execSubF32
			default:
				b.op.Exec = execMulF32
			}
			return
		}
		f := fpx.AddF32
		switch code {
		case isa.OpSub:
			f = fpx.SubF32
		case isa.OpMul:
			f = fpx.MulF32
		}
		b.op.Exec = fxMap2(func(x, y uint64) uint64 {
			z := f(uint32(x), uint32(y), rn, ftz)
			if sat {
				z = fpx.SatF32(z)
			}
			return uint64(z)
		})
		return
	}
	if rn == fpx.RN {
		switch code {
		case isa.OpAdd:
			b.op.Exec = execAddF64
		case isa.OpSub:
			b.op.Exec = execSubF64
		default:
			b.op.Exec = execMulF64
		}
		return
	}
	f := fpx.AddF64
	switch code {
	case isa.OpSub:
		f = fpx.SubF64
	case isa.OpMul:
		f = fpx.MulF64
	}
	b.op.Exec = fxMap2(func(x, y uint64) uint64 { return f(x, y, rn) })
}

// fxBindMixed binds add/sub{.rnd}{.sat}.f32.atype d, a, c (atype .f16 or
// .bf16): a is widened exactly to f32 and the sum rounded once.
func fxBindMixed(b *binder, at isa.Type) {
	form := fxForm(b, isa.F32) + "." + at.String()
	r := fxRndOf(b, form, fxRnd4...)
	fl := fxFlags(b, form, isa.FSat)
	if b.failed || !b.Want(3, 3) {
		return
	}
	b.op.Type, b.op.Type2 = isa.F32, at
	b.op.D, b.op.A, b.op.B = b.Dst(0, isa.F32), b.Src(1, at), b.Src(2, isa.F32)
	if b.failed {
		return
	}
	b.op.Rnd, b.op.Flags = r, fl
	rn, sat := fxRound(r), fl.Has(isa.FSat)
	widen := fpx.F16ToF32
	if at == isa.BF16 {
		widen = fpx.BF16ToF32
	}
	f := fpx.AddF32
	if b.op.Code == isa.OpSub {
		f = fpx.SubF32
	}
	b.op.Exec = fxMap2(func(x, y uint64) uint64 {
		z := f(widen(uint16(x)), uint32(y), rn, false)
		if sat {
			z = fpx.SatF32(z)
		}
		return uint64(z)
	})
}

// fxBindFma binds fma.rnd{.ftz}{.sat}.f32, fma.rnd.f64 and mad (mad.rnd is
// fma; a mad.f32 without rounding is accepted for sm_1x targets and PTX
// before 2.0, and mad.f64 without rounding for PTX before 1.4, as mad.rn).
func fxBindFma(b *binder, t isa.Type, mad bool) {
	form := fxForm(b, t)
	r := fxRndOf(b, form, fxRnd4...)
	var fl isa.Flags
	if t == isa.F32 {
		fl = fxFlags(b, form, isa.FFtz, isa.FSat)
	} else {
		fxFlags(b, form)
	}
	if b.failed {
		return
	}
	if r == isa.RndNone {
		legacy := false
		if mad {
			v, sm := fxPTXVersion(b), fxTargetSM(b)
			if t == isa.F32 {
				// A module without .target defaults to sm_10, as ptxas did.
				legacy = sm < 20 || (v > 0 && v < 200)
			} else {
				legacy = v > 0 && v < 104
			}
		}
		if !legacy {
			if mad && t == isa.F32 {
				b.errorf("requires a rounding modifier (.rn, .rz, .rm, .rp) on sm_20 and later targets (mad.rn.f32 is fma.rn.f32)")
			} else {
				b.errorf("requires a rounding modifier (.rn, .rz, .rm, .rp)")
			}
			return
		}
		r = isa.RN
	}
	if !fxBind(b, 4, t) {
		return
	}
	b.op.Rnd, b.op.Flags = r, fl
	rn, ftz, sat := fxRound(r), fl.Has(isa.FFtz), fl.Has(isa.FSat)
	if t == isa.F32 {
		if rn == fpx.RN && !ftz && !sat {
			b.op.Exec = execFmaF32
			return
		}
		b.op.Exec = fxMap3(func(x, y, z uint64) uint64 {
			v := fpx.FmaF32(uint32(x), uint32(y), uint32(z), rn, ftz)
			if sat {
				v = fpx.SatF32(v)
			}
			return uint64(v)
		})
		return
	}
	if rn == fpx.RN {
		b.op.Exec = execFmaF64
		return
	}
	b.op.Exec = fxMap3(func(x, y, z uint64) uint64 { return fpx.FmaF64(x, y, z, rn) })
}

// fxBindMixedFma binds fma.rnd{.sat}.f32.abtype d, a, b, c (abtype .f16 or
// .bf16): a and b are widened exactly and a*b+c rounded once.
func fxBindMixedFma(b *binder, at isa.Type) {
	form := "fma.f32." + at.String()
	r := fxRndOf(b, form, fxRnd4...)
	fl := fxFlags(b, form, isa.FSat)
	if b.failed {
		return
	}
	if r == isa.RndNone {
		b.errorf("requires a rounding modifier (.rn, .rz, .rm, .rp)")
		return
	}
	if !b.Want(4, 4) {
		return
	}
	b.op.Type, b.op.Type2 = isa.F32, at
	b.op.D, b.op.A, b.op.B, b.op.C = b.Dst(0, isa.F32), b.Src(1, at), b.Src(2, at), b.Src(3, isa.F32)
	if b.failed {
		return
	}
	b.op.Rnd, b.op.Flags = r, fl
	rn, sat := fxRound(r), fl.Has(isa.FSat)
	widen := fpx.F16ToF32
	if at == isa.BF16 {
		widen = fpx.BF16ToF32
	}
	b.op.Exec = fxMap3(func(x, y, z uint64) uint64 {
		v := fpx.FmaF32(widen(uint16(x)), widen(uint16(y)), uint32(z), rn, false)
		if sat {
			v = fpx.SatF32(v)
		}
		return uint64(v)
	})
}

func fxBindDiv(b *binder, t isa.Type) {
	form := fxForm(b, t)
	r := fxRndOf(b, form, fxRnd4...)
	if t == isa.F64 {
		fxFlags(b, form)
		if b.failed {
			return
		}
		if r == isa.RndNone {
			if !fxLegacy(b) {
				b.errorf("requires a rounding modifier (.rn, .rz, .rm, .rp)")
				return
			}
			r = isa.RN
		}
		if !fxBind(b, 3, t) {
			return
		}
		b.op.Rnd = r
		rn := fxRound(r)
		b.op.Exec = fxMap2(func(x, y uint64) uint64 { return fpx.DivF64(x, y, rn) })
		return
	}
	fl := fxFlags(b, form, isa.FFtz, isa.FApprox, isa.FFull)
	if b.failed {
		return
	}
	approx, full := fl.Has(isa.FApprox), fl.Has(isa.FFull)
	n := 0
	for _, x := range []bool{approx, full, r != isa.RndNone} {
		if x {
			n++
		}
	}
	switch {
	case n > 1:
		b.errorf("div.f32 takes only one of .approx, .full and a rounding modifier")
		return
	case n == 0 && fxLegacy(b):
		// PTX ISA 1.0-1.3: div.f32 is div.approx.ftz.f32.
		approx = true
		fl = fl.With(isa.FApprox).With(isa.FFtz)
	case n == 0:
		b.errorf("requires .approx, .full or a rounding modifier (.rn, .rz, .rm, .rp)")
		return
	}
	if !fxBind(b, 3, t) {
		return
	}
	b.op.Rnd, b.op.Flags = r, fl
	ftz, rn := fl.Has(isa.FFtz), fxRound(r)
	switch {
	case approx:
		b.op.Exec = fxMap2(func(x, y uint64) uint64 { return uint64(fpx.DivApproxF32(uint32(x), uint32(y), ftz)) })
	case full:
		b.op.Exec = fxMap2(func(x, y uint64) uint64 { return uint64(fpx.DivFullF32(uint32(x), uint32(y), ftz)) })
	default:
		b.op.Exec = fxMap2(func(x, y uint64) uint64 { return uint64(fpx.DivF32(uint32(x), uint32(y), rn, ftz)) })
	}
}

func fxBindAbsNeg(b *binder, t isa.Type) {
	form := fxForm(b, t)
	fxRndOf(b, form)
	var fl isa.Flags
	if t == isa.F32 {
		fl = fxFlags(b, form, isa.FFtz)
	} else {
		fxFlags(b, form)
	}
	if !fxBind(b, 2, t) {
		return
	}
	b.op.Flags = fl
	ftz, neg := fl.Has(isa.FFtz), b.op.Code == isa.OpNeg
	switch {
	case t == isa.F64 && neg:
		b.op.Exec = fxMap1(fpx.NegF64)
	case t == isa.F64:
		b.op.Exec = fxMap1(fpx.AbsF64)
	case neg:
		b.op.Exec = fxMap1(func(x uint64) uint64 { return uint64(fpx.NegF32(uint32(x), ftz)) })
	default:
		b.op.Exec = fxMap1(func(x uint64) uint64 { return uint64(fpx.AbsF32(uint32(x), ftz)) })
	}
}

// fxBindMinMax binds min/max{.ftz}{.NaN}{.xorsign.abs}.f32 d, a, b, the
// three-input min/max{.ftz}{.NaN}{.abs}.f32 d, a, b, c, and min/max.f64.
func fxBindMinMax(b *binder, t isa.Type) {
	form := fxForm(b, t)
	fxRndOf(b, form)
	isMax := b.op.Code == isa.OpMax
	if t == isa.F64 {
		fxFlags(b, form)
		if !fxBind(b, 3, t) {
			return
		}
		if isMax {
			b.op.Exec = fxMap2(fpx.MaxF64)
		} else {
			b.op.Exec = fxMap2(fpx.MinF64)
		}
		return
	}
	fl := fxFlags(b, form, isa.FFtz, isa.FNaN, isa.FXorsign, isa.FAbs)
	if b.failed || !b.Want(3, 4) {
		return
	}
	three := b.N() == 4
	xor, abs := fl.Has(isa.FXorsign), fl.Has(isa.FAbs)
	switch {
	case three && xor:
		b.errorf(".xorsign is not valid for the three-input %s.f32", b.op.Code)
		return
	case !three && xor != abs:
		b.errorf(".xorsign and .abs must be used together in %s.f32", b.op.Code)
		return
	}
	if !fxBind(b, b.N(), t) {
		return
	}
	b.op.Flags = fl
	var m fpx.Mod
	if fl.Has(isa.FFtz) {
		m |= fpx.FTZ
	}
	if fl.Has(isa.FNaN) {
		m |= fpx.NaN
	}
	if three {
		var clear uint32
		if abs {
			clear = 0x80000000
		}
		b.op.Exec = fxMap3(func(x, y, z uint64) uint64 {
			p := fpx.MinMaxF32(uint32(x)&^clear, uint32(y)&^clear, isMax, m)
			return uint64(fpx.MinMaxF32(p, uint32(z)&^clear, isMax, m))
		})
		return
	}
	if xor {
		m |= fpx.XorSignAbs
	}
	b.op.Exec = fxMap2(func(x, y uint64) uint64 { return uint64(fpx.MinMaxF32(uint32(x), uint32(y), isMax, m)) })
}

// ---- fma, rcp, sqrt, rsqrt, approximations, testp, copysign ----

func bindFma(b *binder) {
	ts := b.AllTypes()
	if len(ts) == 2 && ts[0] == isa.F32 && (ts[1] == isa.F16 || ts[1] == isa.BF16) {
		fxBindMixedFma(b, ts[1])
		return
	}
	t := b.Type()
	if b.failed {
		return
	}
	b.op.Type = t
	switch t {
	case isa.F32, isa.F64:
		fxBindFma(b, t, false)
	case isa.F16, isa.F16x2, isa.BF16, isa.BF16x2:
		halfBindFma(b, t)
	default:
		b.errorf("type .%s is not valid for fma (expected .f32, .f64, .f16, .f16x2, .bf16 or .bf16x2)", t)
	}
}

// fxFloatType checks that t is .f32 or .f64.
func fxFloatType(b *binder, t isa.Type) bool {
	if t != isa.F32 && t != isa.F64 {
		if !b.failed {
			b.errorf("type .%s is not valid for %s (expected .f32 or .f64)", t, b.op.Code)
		}
		return false
	}
	return true
}

func bindRcp(b *binder) {
	t := b.Type()
	if !fxFloatType(b, t) {
		return
	}
	b.op.Type = t
	form := fxForm(b, t)
	r := fxRndOf(b, form, fxRnd4...)
	fl := fxFlags(b, form, isa.FFtz, isa.FApprox)
	if b.failed {
		return
	}
	approx, ftz := fl.Has(isa.FApprox), fl.Has(isa.FFtz)
	switch {
	case approx && r != isa.RndNone:
		b.errorf("rcp takes either .approx or a rounding modifier, not both")
		return
	case !approx && r == isa.RndNone && fxLegacy(b):
		// PTX ISA 1.0-1.3: rcp.f32 is rcp.approx.ftz.f32, rcp.f64 is rcp.rn.f64.
		if t == isa.F32 {
			approx, ftz = true, true
		} else {
			r = isa.RN
		}
	case !approx && r == isa.RndNone:
		b.errorf("requires .approx or a rounding modifier (.rn, .rz, .rm, .rp)")
		return
	case t == isa.F64 && approx && !ftz:
		b.errorf("requires .ftz (rcp.approx.ftz.f64)")
		return
	case t == isa.F64 && !approx && ftz:
		b.errorf("modifier .ftz is not valid for rcp.rnd.f64")
		return
	}
	if !fxBind(b, 2, t) {
		return
	}
	b.op.Rnd, b.op.Flags = r, fl
	rn := fxRound(r)
	switch {
	case t == isa.F64 && approx:
		b.op.Exec = fxMap1(fpx.RcpApproxFtzF64)
	case t == isa.F64:
		b.op.Exec = fxMap1(func(x uint64) uint64 { return fpx.RcpF64(x, rn) })
	case approx:
		b.op.Exec = fxMap1(func(x uint64) uint64 { return uint64(fpx.RcpApproxF32(uint32(x), ftz)) })
	default:
		b.op.Exec = fxMap1(func(x uint64) uint64 { return uint64(fpx.RcpF32(uint32(x), rn, ftz)) })
	}
}

func bindSqrt(b *binder) {
	t := b.Type()
	if !fxFloatType(b, t) {
		return
	}
	b.op.Type = t
	form := fxForm(b, t)
	r := fxRndOf(b, form, fxRnd4...)
	var fl isa.Flags
	if t == isa.F32 {
		fl = fxFlags(b, form, isa.FFtz, isa.FApprox)
	} else {
		fxFlags(b, form)
	}
	if b.failed {
		return
	}
	approx, ftz := fl.Has(isa.FApprox), fl.Has(isa.FFtz)
	switch {
	case approx && r != isa.RndNone:
		b.errorf("sqrt takes either .approx or a rounding modifier, not both")
		return
	case !approx && r == isa.RndNone && fxLegacy(b):
		// PTX ISA 1.0-1.3: sqrt.f32 is sqrt.approx.ftz.f32, sqrt.f64 is sqrt.rn.f64.
		if t == isa.F32 {
			approx, ftz = true, true
		} else {
			r = isa.RN
		}
	case !approx && r == isa.RndNone:
		if t == isa.F32 {
			b.errorf("requires .approx or a rounding modifier (.rn, .rz, .rm, .rp)")
		} else {
			b.errorf("requires a rounding modifier (.rn, .rz, .rm, .rp)")
		}
		return
	}
	if !fxBind(b, 2, t) {
		return
	}
	b.op.Rnd, b.op.Flags = r, fl
	rn := fxRound(r)
	switch {
	case t == isa.F64:
		b.op.Exec = fxMap1(func(x uint64) uint64 { return fpx.SqrtF64(x, rn) })
	case approx:
		b.op.Exec = fxMap1(func(x uint64) uint64 { return uint64(fpx.SqrtApproxF32(uint32(x), ftz)) })
	default:
		b.op.Exec = fxMap1(func(x uint64) uint64 { return uint64(fpx.SqrtF32(uint32(x), rn, ftz)) })
	}
}

func bindRsqrt(b *binder) {
	t := b.Type()
	if !fxFloatType(b, t) {
		return
	}
	b.op.Type = t
	form := fxForm(b, t)
	fxRndOf(b, form)
	fl := fxFlags(b, form, isa.FFtz, isa.FApprox)
	if b.failed {
		return
	}
	approx, ftz := fl.Has(isa.FApprox), fl.Has(isa.FFtz)
	if !approx {
		if !fxLegacy(b) {
			b.errorf("requires .approx")
			return
		}
		// PTX ISA 1.0-1.3: rsqrt.f32 is rsqrt.approx.ftz.f32.
		ftz = ftz || t == isa.F32
	}
	if !fxBind(b, 2, t) {
		return
	}
	b.op.Flags = fl
	switch {
	case t == isa.F64 && ftz:
		b.op.Exec = fxMap1(fpx.RsqrtApproxFtzF64)
	case t == isa.F64:
		b.op.Exec = fxMap1(fpx.RsqrtApproxF64)
	default:
		b.op.Exec = fxMap1(func(x uint64) uint64 { return uint64(fpx.RsqrtApproxF32(uint32(x), ftz)) })
	}
}

// bindFloatApprox binds sin, cos, lg2, ex2 (.approx{.ftz}.f32; ex2 also
// .approx.f16/.f16x2 and .approx.ftz.bf16/.bf16x2) and tanh (.approx with
// .f32, .f16, .f16x2, .bf16, .bf16x2).
func bindFloatApprox(b *binder) {
	t := b.Type()
	if b.failed {
		return
	}
	b.op.Type = t
	code := b.op.Code
	form := fxForm(b, t)
	fxRndOf(b, form)
	half := t == isa.F16 || t == isa.F16x2 || t == isa.BF16 || t == isa.BF16x2
	switch {
	case t == isa.F32:
	case half && (code == isa.OpEx2 || code == isa.OpTanh):
	case code == isa.OpEx2 || code == isa.OpTanh:
		b.errorf("type .%s is not valid for %s (expected .f32, .f16, .f16x2, .bf16 or .bf16x2)", t, code)
		return
	default:
		b.errorf("type .%s is not valid for %s (expected .f32)", t, code)
		return
	}
	var fl isa.Flags
	switch {
	case code == isa.OpTanh, code == isa.OpEx2 && (t == isa.F16 || t == isa.F16x2):
		fl = fxFlags(b, form, isa.FApprox)
	default:
		fl = fxFlags(b, form, isa.FApprox, isa.FFtz)
	}
	if b.failed {
		return
	}
	ftz := fl.Has(isa.FFtz)
	if !fl.Has(isa.FApprox) {
		if t != isa.F32 || code == isa.OpTanh || !fxLegacy(b) {
			b.errorf("requires .approx")
			return
		}
		// PTX ISA 1.0-1.3: sin.f32 (cos, lg2, ex2) is sin.approx.ftz.f32.
		ftz = true
	}
	if code == isa.OpEx2 && (t == isa.BF16 || t == isa.BF16x2) && !ftz {
		b.errorf("requires .ftz (ex2.approx.ftz.%s)", t)
		return
	}
	if !fxBind(b, 2, t) {
		return
	}
	b.op.Flags = fl
	if half {
		b.op.Exec = halfApproxExec(code, t)
		return
	}
	var f func(uint32, bool) uint32
	switch code {
	case isa.OpSin:
		f = fpx.SinApproxF32
	case isa.OpCos:
		f = fpx.CosApproxF32
	case isa.OpLg2:
		f = fpx.Lg2ApproxF32
	case isa.OpEx2:
		f = fpx.Ex2ApproxF32
	default:
		f = fpx.TanhApproxF32
	}
	b.op.Exec = fxMap1(func(x uint64) uint64 { return uint64(f(uint32(x), ftz)) })
}

func bindTestp(b *binder) {
	t := b.Type()
	if !fxFloatType(b, t) {
		return
	}
	b.op.Type = t
	form := fxForm(b, t)
	fxRndOf(b, form)
	fxFlags(b, form)
	s := b.Sub()
	var k fpx.TestpOp
	switch s {
	case isa.SubFinite:
		k = fpx.TestFinite
	case isa.SubInfinite:
		k = fpx.TestInfinite
	case isa.SubNumber:
		k = fpx.TestNumber
	case isa.SubNotANumber:
		k = fpx.TestNotANumber
	case isa.SubNormal:
		k = fpx.TestNormal
	case isa.SubSubnormal:
		k = fpx.TestSubnormal
	case isa.SubNone:
		b.errorf("testp needs a property: .finite, .infinite, .number, .notanumber, .normal or .subnormal")
		return
	default:
		b.errorf("modifier .%s is not a testp property (expected .finite, .infinite, .number, .notanumber, .normal or .subnormal)", s)
		return
	}
	if b.failed || !b.Want(2, 2) {
		return
	}
	b.op.Sub = s
	b.op.D = b.Dst(0, isa.Pred)
	b.op.A = b.Src(1, t)
	if b.failed {
		return
	}
	f64 := t == isa.F64
	b.op.Exec = func(w *Warp, op *Op, mask uint32) *Fault {
		a := w.r(op.A)
		var res uint32
		for l := range a {
			if mask>>l&1 == 0 {
				continue
			}
			var ok bool
			if f64 {
				ok = fpx.TestpF64(k, a[l])
			} else {
				ok = fpx.TestpF32(k, uint32(a[l]))
			}
			if ok {
				res |= 1 << l
			}
		}
		w.preds[op.D] = w.preds[op.D]&^mask | res
		return nil
	}
}

// bindCopysign binds copysign.type d, a, b: b with the sign of a.
func bindCopysign(b *binder) {
	t := b.Type()
	if !fxFloatType(b, t) {
		return
	}
	b.op.Type = t
	form := fxForm(b, t)
	fxRndOf(b, form)
	fxFlags(b, form)
	if !fxBind(b, 3, t) {
		return
	}
	if t == isa.F64 {
		b.op.Exec = fxMap2(fpx.CopysignF64)
		return
	}
	b.op.Exec = fxMap2(func(x, y uint64) uint64 { return uint64(fpx.CopysignF32(uint32(x), uint32(y))) })
}

// ---- tight loops for the hot round-to-nearest forms ----
//
// Native float32/float64 arithmetic is IEEE round-to-nearest-even with
// subnormals, which is exactly add/sub/mul.rn; only NaN results need
// canonicalising.

func execAddF32(w *Warp, op *Op, mask uint32) *Fault {
	d, a, b := w.r(op.D), w.r(op.A), w.r(op.B)
	if mask == fxAll {
		for l := range d {
			d[l] = fxCanon32(fxF32(a[l]) + fxF32(b[l]))
		}
		return nil
	}
	for l := range d {
		if mask>>l&1 != 0 {
			d[l] = fxCanon32(fxF32(a[l]) + fxF32(b[l]))
		}
	}
	return nil
}

func execSubF32(w *Warp, op *Op, mask uint32) *Fault {
	d, a, b := w.r(op.D), w.r(op.A), w.r(op.B)
	if mask == fxAll {
		for l := range d {
			d[l] = fxCanon32(fxF32(a[l]) - fxF32(b[l]))
		}
		return nil
	}
	for l := range d {
		if mask>>l&1 != 0 {
			d[l] = fxCanon32(fxF32(a[l]) - fxF32(b[l]))
		}
	}
	return nil
}

func execMulF32(w *Warp, op *Op, mask uint32) *Fault {
	d, a, b := w.r(op.D), w.r(op.A), w.r(op.B)
	if mask == fxAll {
		for l := range d {
			d[l] = fxCanon32(fxF32(a[l]) * fxF32(b[l]))
		}
		return nil
	}
	for l := range d {
		if mask>>l&1 != 0 {
			d[l] = fxCanon32(fxF32(a[l]) * fxF32(b[l]))
		}
	}
	return nil
}

// fxFmaRN32 is fma.rn.f32: fpx.FmaF32's fast path inlined (the exact
// product in float64 plus c, rounded once to f32 unless the float64 sum
// is a tie or lies in the f32 subnormal range), falling back to fpx for
// the rare cases a double rounding could differ.
func fxFmaRN32(a, b, c uint64) uint64 {
	s := float64(fxF32(a))*float64(fxF32(b)) + float64(fxF32(c))
	sb := math.Float64bits(s)
	ex := sb >> 52 & 0x7FF
	if ex >= 1023-126 && ex != 0x7FF && sb&0x1FFFFFFF != 0x10000000 {
		return uint64(math.Float32bits(float32(s)))
	}
	return uint64(fpx.FmaF32(uint32(a), uint32(b), uint32(c), fpx.RN, false))
}

// fmaF32WarpGo is fmaF32Warp (fma_lanes_amd64.go) in Go: execFmaF32's
// fast path for a whole warp.
func fmaF32WarpGo(d, a, b, c *[32]uint64) (slow uint32) {
	for l := range d {
		s := float64(math.Float32frombits(uint32(a[l])))*float64(math.Float32frombits(uint32(b[l]))) + float64(math.Float32frombits(uint32(c[l])))
		if sb := math.Float64bits(s); sb>>52&0x7FF-(1023-126) < 0x7FF-(1023-126) && sb&0x1FFFFFFF != 0x10000000 {
			d[l] = uint64(math.Float32bits(float32(s)))
		} else {
			slow |= 1 << l
		}
	}
	return slow
}

func execFmaF32(w *Warp, op *Op, mask uint32) *Fault {
	d, a, b, c := w.r(op.D), w.r(op.A), w.r(op.B), w.r(op.C)
	// fxFmaRN32's fast path written out, so that its test is one branch
	// per lane. Lanes it cannot round exactly are left unwritten in the loop
	// (no call inside it: nothing to spill around) and finished after it;
	// their sources are intact even where D is a source, since each lane
	// reads only its own.
	var slow uint32
	if mask == fxAll {
		if fmaVec {
			slow = fmaF32Warp(d, a, b, c)
		} else {
			slow = fmaF32WarpGo(d, a, b, c)
		}
	} else {
		for lanes := mask; lanes != 0; lanes &= lanes - 1 {
			l := bits.TrailingZeros32(lanes) & 31
			s := float64(math.Float32frombits(uint32(a[l])))*float64(math.Float32frombits(uint32(b[l]))) + float64(math.Float32frombits(uint32(c[l])))
			if sb := math.Float64bits(s); sb>>52&0x7FF-(1023-126) < 0x7FF-(1023-126) && sb&0x1FFFFFFF != 0x10000000 {
				d[l] = uint64(math.Float32bits(float32(s)))
			} else {
				slow |= 1 << l
			}
		}
	}
	for ; slow != 0; slow &= slow - 1 {
		l := bits.TrailingZeros32(slow) & 31
		d[l] = fxFmaRN32(a[l], b[l], c[l])
	}
	return nil
}

func execAddF64(w *Warp, op *Op, mask uint32) *Fault {
	d, a, b := w.r(op.D), w.r(op.A), w.r(op.B)
	for l := range d {
		if mask>>l&1 != 0 {
			d[l] = fxNaN64(fxF64(a[l])+fxF64(b[l]), a[l], b[l])
		}
	}
	return nil
}

func execSubF64(w *Warp, op *Op, mask uint32) *Fault {
	d, a, b := w.r(op.D), w.r(op.A), w.r(op.B)
	for l := range d {
		if mask>>l&1 != 0 {
			d[l] = fxNaN64(fxF64(a[l])-fxF64(b[l]), a[l], b[l])
		}
	}
	return nil
}

func execMulF64(w *Warp, op *Op, mask uint32) *Fault {
	d, a, b := w.r(op.D), w.r(op.A), w.r(op.B)
	for l := range d {
		if mask>>l&1 != 0 {
			d[l] = fxNaN64(fxF64(a[l])*fxF64(b[l]), a[l], b[l])
		}
	}
	return nil
}

func execFmaF64(w *Warp, op *Op, mask uint32) *Fault {
	d, a, b, c := w.r(op.D), w.r(op.A), w.r(op.B), w.r(op.C)
	for l := range d {
		if mask>>l&1 != 0 {
			if z := math.FMA(fxF64(a[l]), fxF64(b[l]), fxF64(c[l])); z == z {
				d[l] = math.Float64bits(z)
			} else {
				d[l] = fpx.NaNResultF64x3(a[l], b[l], c[l])
			}
		}
	}
	return nil
}
