package fpx

// min / max for f32, f64, f16, f16x2, bf16, bf16x2, and testp.
//
// PTX semantics (min shown; max is symmetric):
//
//	if .xorsign.abs: s = sign(a) XOR sign(b); a = |a|; b = |b|
//	if isNaN(a) && isNaN(b):        d = canonical NaN
//	else if .NaN && (isNaN(a) || isNaN(b)): d = canonical NaN
//	else if isNaN(a):               d = b
//	else if isNaN(b):               d = a
//	else                            d = a < b ? a : b   (with -0.0 < +0.0)
//	if .xorsign.abs && !isNaN(d):   sign(d) = s
//
// .ftz flushes subnormal inputs to sign-preserving zero first.

// mmFmt describes a format for min/max: sign bit, +Inf encoding (NaNs are
// the magnitudes above it), exponent mask and canonical NaN.
type mmFmt struct {
	sign, inf, exp, nan uint64
}

var (
	mm64   = &mmFmt{sign64, 0x7FF0000000000000, 0x7FF0000000000000, NaN64}
	mm32   = &mmFmt{sign32, 0x7F800000, 0x7F800000, uint64(NaN32)}
	mm16   = &mmFmt{sign16, 0x7C00, 0x7C00, uint64(NaN16)}
	mmBF16 = &mmFmt{sign16, 0x7F80, 0x7F80, uint64(NaNBF16)}
)

// key maps an encoding to an unsigned integer with the same order as the
// numeric value (non-NaN), -0 ordered below +0.
func (f *mmFmt) key(x uint64) uint64 {
	if x&f.sign != 0 {
		return ^x & (f.sign<<1 - 1)
	}
	return x | f.sign
}

func minmax(f *mmFmt, a, b uint64, max bool, m Mod) uint64 {
	if m&FTZ != 0 {
		if a&f.exp == 0 {
			a &= f.sign
		}
		if b&f.exp == 0 {
			b &= f.sign
		}
	}
	var xs uint64
	xor := m&XorSignAbs != 0
	if xor {
		xs = (a ^ b) & f.sign
		a &^= f.sign
		b &^= f.sign
	}
	an := a&^f.sign > f.inf
	bn := b&^f.sign > f.inf
	var d uint64
	switch {
	case an && bn, (an || bn) && m&NaN != 0:
		return f.nan
	case an:
		d = b
	case bn:
		d = a
	default:
		if (f.key(a) < f.key(b)) != max {
			d = a
		} else {
			d = b
		}
	}
	if xor {
		d = d&^f.sign | xs
	}
	return d
}

// MinF32 implements min{.ftz}.f32 d, a, b: the smaller value, -0.0 < +0.0;
// a NaN operand is ignored (the other is returned); two NaNs give NaN32.
func MinF32(a, b uint32, ftz bool) uint32 {
	return uint32(minmax(mm32, uint64(a), uint64(b), false, ftzMod(ftz)))
}

// MaxF32 implements max{.ftz}.f32 d, a, b (see MinF32).
func MaxF32(a, b uint32, ftz bool) uint32 {
	return uint32(minmax(mm32, uint64(a), uint64(b), true, ftzMod(ftz)))
}

// MinNaNF32 implements min{.ftz}.NaN.f32: NaN32 if either input is NaN.
func MinNaNF32(a, b uint32, ftz bool) uint32 {
	return uint32(minmax(mm32, uint64(a), uint64(b), false, ftzMod(ftz)|NaN))
}

// MaxNaNF32 implements max{.ftz}.NaN.f32: NaN32 if either input is NaN.
func MaxNaNF32(a, b uint32, ftz bool) uint32 {
	return uint32(minmax(mm32, uint64(a), uint64(b), true, ftzMod(ftz)|NaN))
}

// MinXorSignAbsF32 implements min{.ftz}{.NaN}.xorsign.abs.f32 (PTX 7.2):
// min(|a|, |b|) with sign(a) XOR sign(b) as its sign.
func MinXorSignAbsF32(a, b uint32, nan, ftz bool) uint32 {
	return uint32(minmax(mm32, uint64(a), uint64(b), false, ftzMod(ftz)|nanMod(nan)|XorSignAbs))
}

// MaxXorSignAbsF32 implements max{.ftz}{.NaN}.xorsign.abs.f32 (PTX 7.2).
func MaxXorSignAbsF32(a, b uint32, nan, ftz bool) uint32 {
	return uint32(minmax(mm32, uint64(a), uint64(b), true, ftzMod(ftz)|nanMod(nan)|XorSignAbs))
}

// MinMaxF32 is the general f32 min (max=false) or max (max=true) with any
// combination of FTZ, NaN and XorSignAbs.
func MinMaxF32(a, b uint32, max bool, m Mod) uint32 {
	return uint32(minmax(mm32, uint64(a), uint64(b), max, m))
}

// MinF64 implements min.f64 d, a, b (see MinF32); two NaNs give NaN64.
func MinF64(a, b uint64) uint64 { return minmax(mm64, a, b, false, 0) }

// MaxF64 implements max.f64 d, a, b.
func MaxF64(a, b uint64) uint64 { return minmax(mm64, a, b, true, 0) }

// MinMaxF64 is the general f64 min/max with NaN (and XorSignAbs) modifiers.
func MinMaxF64(a, b uint64, max bool, m Mod) uint64 { return minmax(mm64, a, b, max, m) }

// MinF16 implements min{.ftz}{.NaN}{.xorsign.abs}.f16 d, a, b
// (Mod: FTZ, NaN, XorSignAbs); NaN results are NaN16.
func MinF16(a, b uint16, m Mod) uint16 {
	return uint16(minmax(mm16, uint64(a), uint64(b), false, m))
}

// MaxF16 implements max{.ftz}{.NaN}{.xorsign.abs}.f16 d, a, b.
func MaxF16(a, b uint16, m Mod) uint16 {
	return uint16(minmax(mm16, uint64(a), uint64(b), true, m))
}

// MinF16x2 implements min{.ftz}{.NaN}{.xorsign.abs}.f16x2, per half.
func MinF16x2(a, b uint32, m Mod) uint32 {
	return Pack2(MinF16(uint16(a), uint16(b), m), MinF16(uint16(a>>16), uint16(b>>16), m))
}

// MaxF16x2 implements max{.ftz}{.NaN}{.xorsign.abs}.f16x2, per half.
func MaxF16x2(a, b uint32, m Mod) uint32 {
	return Pack2(MaxF16(uint16(a), uint16(b), m), MaxF16(uint16(a>>16), uint16(b>>16), m))
}

// MinBF16 implements min{.NaN}{.xorsign.abs}.bf16 d, a, b; NaN results are
// NaNBF16.
func MinBF16(a, b uint16, m Mod) uint16 {
	return uint16(minmax(mmBF16, uint64(a), uint64(b), false, m))
}

// MaxBF16 implements max{.NaN}{.xorsign.abs}.bf16 d, a, b.
func MaxBF16(a, b uint16, m Mod) uint16 {
	return uint16(minmax(mmBF16, uint64(a), uint64(b), true, m))
}

// MinBF16x2 implements min{.NaN}{.xorsign.abs}.bf16x2, per half.
func MinBF16x2(a, b uint32, m Mod) uint32 {
	return Pack2(MinBF16(uint16(a), uint16(b), m), MinBF16(uint16(a>>16), uint16(b>>16), m))
}

// MaxBF16x2 implements max{.NaN}{.xorsign.abs}.bf16x2, per half.
func MaxBF16x2(a, b uint32, m Mod) uint32 {
	return Pack2(MaxBF16(uint16(a), uint16(b), m), MaxBF16(uint16(a>>16), uint16(b>>16), m))
}

func ftzMod(ftz bool) Mod {
	if ftz {
		return FTZ
	}
	return 0
}

func nanMod(nan bool) Mod {
	if nan {
		return NaN
	}
	return 0
}

// TestpOp is the class tested by testp.
type TestpOp uint8

const (
	TestFinite     TestpOp = iota // .finite: not Inf and not NaN
	TestInfinite                  // .infinite: ±Inf
	TestNumber                    // .number: not NaN
	TestNotANumber                // .notanumber: NaN
	TestNormal                    // .normal: finite and not subnormal; ±0 counts as normal
	TestSubnormal                 // .subnormal: nonzero with a zero exponent field
)

func testp(op TestpOp, mag, inf, expMask uint64) bool {
	switch op {
	case TestFinite:
		return mag < inf
	case TestInfinite:
		return mag == inf
	case TestNumber:
		return mag <= inf
	case TestNotANumber:
		return mag > inf
	case TestNormal:
		// "As a special case, positive and negative zero are considered
		// normal numbers."
		return mag < inf && (mag&expMask != 0 || mag == 0)
	case TestSubnormal:
		return mag != 0 && mag&expMask == 0
	}
	return false
}

// TestpF32 implements testp.op.f32 p, a.
func TestpF32(op TestpOp, x uint32) bool {
	return testp(op, uint64(x&^sign32), 0x7F800000, 0x7F800000)
}

// TestpF64 implements testp.op.f64 p, a.
func TestpF64(op TestpOp, x uint64) bool {
	return testp(op, x&^sign64, 0x7FF0000000000000, 0x7FF0000000000000)
}
