package fpx

import "math"

// Conversions (cvt) between the floating-point formats and integers.
//
// Narrowing float-to-float conversions are correctly rounded in the given
// mode with a single rounding from the source value (for example
// f32 -> e4m3 does not go through f16). Widening conversions are exact.
// On overflow the IEEE rule applies (Inf for .rn, the largest finite value
// when rounding toward zero, direction-dependent for .rm/.rp), unless
// .satfinite is given. PTX's old note that out-of-range f16 conversions
// give "~131,000" predates IEEE f16 handling and is not modelled: the
// hardware produces Inf (or 65504 with .rz/.satfinite).

// cvtTo rounds an unpacked value to dst in mode r applying the Sat, Relu
// and SatFinite modifiers of m. nan is the destination's NaN encoding.
//
//   - NaN input: nan (or +0 with .sat).
//   - .relu / .sat: a negative input, including -0 and -Inf, gives +0.
//   - .satfinite: a result that is infinite or overflowed is replaced by
//     the largest finite magnitude with the input's sign.
//   - e4m3 without .satfinite: Inf inputs and overflowing results are NaN
//     (0x7F with the input's sign bit, i.e. 0x7F or 0xFF).
//   - .sat: results above 1.0 become 1.0.
func cvtTo(dst *format, u unp, r Rnd, m Mod, nan uint64) uint64 {
	if u.cls == clsNaN {
		if m&Sat != 0 {
			return 0
		}
		return nan
	}
	if m&(Relu|Sat) != 0 && u.neg {
		return 0
	}
	z, st := packUnp(dst, u, r)
	if st == stOvf || u.cls == clsInf {
		sb := z & dst.signBit()
		switch {
		case m&SatFinite != 0:
			z = sb | dst.maxMag
		case dst.noInf:
			z = sb | nan
		}
	}
	if m&Sat != 0 && z > dst.oneMag() {
		z = dst.oneMag()
	}
	return z
}

// ---- f32 / f64 ----

// F32ToF64 implements cvt{.ftz}.f64.f32: exact widening. ftz flushes a
// subnormal input to a signed zero; a NaN becomes NaN64.
func F32ToF64(x uint32, ftz bool) uint64 {
	if ftz {
		x = FlushF32(x)
	}
	if isNaN32(x) {
		return NaN64
	}
	return b64(float64(f32(x)))
}

// F64ToF32 implements cvt.rnd{.ftz}{.sat}.f32.f64: correctly rounded in
// mode r (overflow per IEEE for the mode). ftz flushes a subnormal result
// to a signed zero; sat clamps to [0, 1] (NaN -> +0). A NaN becomes NaN32.
func F64ToF32(x uint64, r Rnd, ftz, sat bool) uint32 {
	if isNaN64(x) {
		if sat {
			return 0
		}
		return NaN32
	}
	var z uint32
	if r == RN {
		z = b32(float32(f64(x)))
	} else {
		zz, _ := packUnp(fmtF32, unp64(x), r)
		z = uint32(zz)
	}
	if ftz {
		z = FlushF32(z)
	}
	if sat {
		z = SatF32(z)
	}
	return z
}

// CvtF32F32 implements cvt{.rnd}{.ftz}{.sat}.f32.f32 (and the f32 form of
// mov-with-modifiers): the value is unchanged except that ftz flushes a
// subnormal, sat clamps to [0, 1], and a NaN becomes NaN32 (+0 with sat).
func CvtF32F32(x uint32, ftz, sat bool) uint32 {
	if isNaN32(x) {
		if sat {
			return 0
		}
		return NaN32
	}
	if ftz {
		x = FlushF32(x)
	}
	if sat {
		x = SatF32(x)
	}
	return x
}

// ---- f16 / bf16 ----

// F32ToF16 implements cvt.frnd{.relu}{.satfinite}{.sat}.f16.f32 (frnd is
// .rn or .rz in PTX; .rm/.rp are accepted too). Honours FTZ (flush a
// subnormal f32 input), Relu, SatFinite and Sat. NaN gives NaN16.
func F32ToF16(x uint32, r Rnd, m Mod) uint16 {
	if m&FTZ != 0 {
		x = FlushF32(x)
	}
	return uint16(cvtTo(fmtF16, unp32(x), r, m, uint64(NaN16)))
}

// F32ToBF16 implements cvt.frnd{.relu}{.satfinite}.bf16.f32, with the same
// modifiers as F32ToF16. NaN gives NaNBF16.
func F32ToBF16(x uint32, r Rnd, m Mod) uint16 {
	if m&FTZ != 0 {
		x = FlushF32(x)
	}
	if r == RN && m&^FTZ == 0 && !isNaN32(x) {
		// Round-to-nearest-even on the upper half; correct for subnormals
		// and rounds to Inf on overflow.
		return uint16((x + 0x7FFF + x>>16&1) >> 16)
	}
	return uint16(cvtTo(fmtBF16, unp32(x), r, m, uint64(NaNBF16)))
}

// F64ToF16 implements cvt.rnd{.sat}.f16.f64: a single correct rounding from
// f64 to f16 (Relu/SatFinite/Sat honoured as in F32ToF16).
func F64ToF16(x uint64, r Rnd, m Mod) uint16 {
	return uint16(cvtTo(fmtF16, unp64(x), r, m, uint64(NaN16)))
}

// F64ToBF16 implements cvt.rnd.bf16.f64 (single rounding).
func F64ToBF16(x uint64, r Rnd, m Mod) uint16 {
	return uint16(cvtTo(fmtBF16, unp64(x), r, m, uint64(NaNBF16)))
}

// F16ToF32 implements cvt.f32.f16: exact widening; NaN gives NaN32.
func F16ToF32(h uint16) uint32 {
	s := uint32(h&sign16) << 16
	e := uint32(h>>10) & 0x1F
	f := uint32(h & 0x3FF)
	switch e {
	case 0x1F:
		if f != 0 {
			return NaN32
		}
		return s | 0x7F800000
	case 0:
		if f == 0 {
			return s
		}
		return s | b32(float32(f)*0x1p-24) // exact
	}
	return s | (e+112)<<23 | f<<13
}

// BF16ToF32 implements cvt.f32.bf16: exact widening; NaN gives NaN32.
func BF16ToF32(h uint16) uint32 {
	x := uint32(h) << 16
	if isNaN32(x) {
		return NaN32
	}
	return x
}

// F16ToF64 implements cvt.f64.f16: exact; NaN gives NaN64.
func F16ToF64(h uint16) uint64 { return F32ToF64(F16ToF32(h), false) }

// BF16ToF64 implements cvt.f64.bf16: exact; NaN gives NaN64.
func BF16ToF64(h uint16) uint64 { return F32ToF64(BF16ToF32(h), false) }

// F16ToBF16 implements cvt.rnd.bf16.f16 (sm_90+): correctly rounded (bf16
// has fewer significand bits but a wider range). Relu/SatFinite/Sat as in
// F32ToF16.
func F16ToBF16(h uint16, r Rnd, m Mod) uint16 {
	return uint16(cvtTo(fmtBF16, unpack(fmtF16, uint64(h)), r, m, uint64(NaNBF16)))
}

// BF16ToF16 implements cvt.rnd.f16.bf16 (sm_90+): correctly rounded,
// overflowing to Inf/65504 per mode. Relu/SatFinite/Sat as in F32ToF16.
func BF16ToF16(h uint16, r Rnd, m Mod) uint16 {
	return uint16(cvtTo(fmtF16, unpack(fmtBF16, uint64(h)), r, m, uint64(NaN16)))
}

// F32x2ToF16x2 implements cvt.frnd{.relu}{.satfinite}.f16x2.f32 d, a, b:
// cvt(a) goes to the upper half of d and cvt(b) to the lower half.
func F32x2ToF16x2(a, b uint32, r Rnd, m Mod) uint32 {
	return Pack2(F32ToF16(b, r, m), F32ToF16(a, r, m))
}

// F32x2ToBF16x2 implements cvt.frnd{.relu}{.satfinite}.bf16x2.f32 d, a, b:
// cvt(a) in the upper half, cvt(b) in the lower half.
func F32x2ToBF16x2(a, b uint32, r Rnd, m Mod) uint32 {
	return Pack2(F32ToBF16(b, r, m), F32ToBF16(a, r, m))
}

// SatF16 is .sat on an f16 value: clamp to [+0.0, 1.0], NaN -> +0.0,
// -0.0 -> +0.0.
func SatF16(h uint16) uint16 {
	switch {
	case h&0x7FFF > 0x7C00, h&sign16 != 0:
		return 0
	case h > 0x3C00:
		return 0x3C00
	}
	return h
}

// SatBF16 is .sat on a bf16 value: clamp to [+0.0, 1.0], NaN -> +0.0.
func SatBF16(h uint16) uint16 {
	switch {
	case h&0x7FFF > 0x7F80, h&sign16 != 0:
		return 0
	case h > 0x3F80:
		return 0x3F80
	}
	return h
}

// ---- tf32 ----

// F32ToTF32 implements cvt.rna{.satfinite}.tf32.f32 and
// cvt.frnd{.satfinite}{.relu}.tf32.f32 (frnd = .rn, .rz; sm_90+): the f32
// is rounded to 10 fraction bits in mode r and returned as an f32 bit
// pattern whose 13 low bits are zero. Inf stays Inf (±max tf32 with
// SatFinite); overflow follows the mode. A NaN gives NaNTF32 (0x7FFFE000:
// all tf32 fraction bits set). Honours Relu, SatFinite and Sat.
func F32ToTF32(x uint32, r Rnd, m Mod) uint32 {
	return uint32(cvtTo(fmtTF32, unp32(x), r, m, uint64(NaNTF32>>13))) << 13
}

// ---- fp8: e4m3 and e5m2 ----

func f8mods(satfinite, relu bool) Mod {
	var m Mod
	if satfinite {
		m |= SatFinite
	}
	if relu {
		m |= Relu
	}
	return m
}

// F32ToE4M3 converts one f32 to e4m3 as cvt.rn.satfinite{.relu}.e4m3x2.f32
// does for each operand: round to nearest even. e4m3 has no Inf; its
// largest finite value is 448 (0x7E) and its NaN is 0x7F/0xFF. With
// satfinite, Inf and out-of-range values give ±448; without it (PTX
// requires .satfinite, this is the OCP "no saturation" behaviour) they give
// NaN. NaN inputs give NaNE4M3; relu turns negative values into +0.
func F32ToE4M3(x uint32, satfinite, relu bool) uint8 {
	return uint8(cvtTo(fmtE4M3, unp32(x), RN, f8mods(satfinite, relu), uint64(NaNE4M3)))
}

// F32ToE5M2 converts one f32 to e5m2 (IEEE-like: max 57344 = 0x7B, Inf
// 0x7C, NaN 0x7F) with round to nearest even. With satfinite, Inf and
// out-of-range values give ±57344; without, they give ±Inf.
func F32ToE5M2(x uint32, satfinite, relu bool) uint8 {
	return uint8(cvtTo(fmtE5M2, unp32(x), RN, f8mods(satfinite, relu), uint64(NaNE5M2)))
}

// F16ToE4M3 converts one f16 to e4m3 (as cvt.rn.satfinite{.relu}.e4m3x2.f16x2
// does per element), rounding once from the f16 value.
func F16ToE4M3(h uint16, satfinite, relu bool) uint8 {
	return uint8(cvtTo(fmtE4M3, unpack(fmtF16, uint64(h)), RN, f8mods(satfinite, relu), uint64(NaNE4M3)))
}

// F16ToE5M2 converts one f16 to e5m2 with round to nearest even.
func F16ToE5M2(h uint16, satfinite, relu bool) uint8 {
	return uint8(cvtTo(fmtE5M2, unpack(fmtF16, uint64(h)), RN, f8mods(satfinite, relu), uint64(NaNE5M2)))
}

// e8ToF16 widens an fp8 value to f16 exactly, applying .relu.
func e8ToF16(f *format, b uint8, relu bool) uint16 {
	u := unpack(f, uint64(b))
	if u.cls == clsNaN {
		return NaN16
	}
	if relu && u.neg {
		return 0
	}
	z, _ := packUnp(fmtF16, u, RN)
	return uint16(z)
}

// E4M3ToF16 widens one e4m3 value to f16 exactly (cvt.rn.f16x2.e4m3x2 per
// element). NaN (0x7F/0xFF) gives NaN16.
func E4M3ToF16(b uint8) uint16 { return e8ToF16(fmtE4M3, b, false) }

// E5M2ToF16 widens one e5m2 value to f16 exactly (e5m2 is the upper byte of
// an f16). NaN gives NaN16.
func E5M2ToF16(b uint8) uint16 { return e8ToF16(fmtE5M2, b, false) }

// F32x2ToE4M3x2 implements cvt.rn.satfinite{.relu}.e4m3x2.f32 d, a, b:
// d[15:8] = cvt(a), d[7:0] = cvt(b).
func F32x2ToE4M3x2(a, b uint32, satfinite, relu bool) uint16 {
	return uint16(F32ToE4M3(a, satfinite, relu))<<8 | uint16(F32ToE4M3(b, satfinite, relu))
}

// F32x2ToE5M2x2 implements cvt.rn.satfinite{.relu}.e5m2x2.f32 d, a, b:
// d[15:8] = cvt(a), d[7:0] = cvt(b).
func F32x2ToE5M2x2(a, b uint32, satfinite, relu bool) uint16 {
	return uint16(F32ToE5M2(a, satfinite, relu))<<8 | uint16(F32ToE5M2(b, satfinite, relu))
}

// F16x2ToE4M3x2 implements cvt.rn.satfinite{.relu}.e4m3x2.f16x2 d, a: the
// upper f16 of a goes to d[15:8], the lower to d[7:0].
func F16x2ToE4M3x2(a uint32, satfinite, relu bool) uint16 {
	lo, hi := Unpack2(a)
	return uint16(F16ToE4M3(hi, satfinite, relu))<<8 | uint16(F16ToE4M3(lo, satfinite, relu))
}

// F16x2ToE5M2x2 implements cvt.rn.satfinite{.relu}.e5m2x2.f16x2 d, a.
func F16x2ToE5M2x2(a uint32, satfinite, relu bool) uint16 {
	lo, hi := Unpack2(a)
	return uint16(F16ToE5M2(hi, satfinite, relu))<<8 | uint16(F16ToE5M2(lo, satfinite, relu))
}

// E4M3x2ToF16x2 implements cvt.rn{.relu}.f16x2.e4m3x2 d, a: a[15:8] goes to
// the upper f16 of d, a[7:0] to the lower. relu turns negative results
// into +0; NaN gives NaN16.
func E4M3x2ToF16x2(a uint16, relu bool) uint32 {
	return Pack2(e8ToF16(fmtE4M3, uint8(a), relu), e8ToF16(fmtE4M3, uint8(a>>8), relu))
}

// E5M2x2ToF16x2 implements cvt.rn{.relu}.f16x2.e5m2x2 d, a.
func E5M2x2ToF16x2(a uint16, relu bool) uint32 {
	return Pack2(e8ToF16(fmtE5M2, uint8(a), relu), e8ToF16(fmtE5M2, uint8(a>>8), relu))
}

// ---- integers ----

// intUnp interprets the low srcBits of v as a signed or unsigned integer.
func intUnp(v uint64, srcBits int, signed bool) unp {
	if srcBits < 64 {
		mask := uint64(1)<<uint(srcBits) - 1
		v &= mask
		if signed && v>>uint(srcBits-1)&1 != 0 {
			v |= ^mask
		}
	}
	neg := signed && int64(v) < 0
	if neg {
		v = -v
	}
	if v == 0 {
		return unp{cls: clsZero}
	}
	return unp{neg: neg, cls: clsFinite, m: v}
}

// IntToF32 implements cvt.rnd.f32.{s,u}{8,16,32,64}: the low srcBits of v
// read as a signed or unsigned integer, correctly rounded to f32 in mode r
// (e.g. u64 -> f32 with .rz truncates exactly).
func IntToF32(v uint64, srcBits int, signed bool, r Rnd) uint32 {
	z, _ := packUnp(fmtF32, intUnp(v, srcBits, signed), r)
	return uint32(z)
}

// IntToF64 implements cvt.rnd.f64.{s,u}{8,16,32,64} (exact unless the
// integer has more than 53 significant bits).
func IntToF64(v uint64, srcBits int, signed bool, r Rnd) uint64 {
	z, _ := packUnp(fmtF64, intUnp(v, srcBits, signed), r)
	return z
}

// IntToF16 implements cvt.rnd.f16.{s,u}*: correctly rounded; integers
// beyond the f16 range give Inf for .rn (65504 for .rz).
func IntToF16(v uint64, srcBits int, signed bool, r Rnd) uint16 {
	z, _ := packUnp(fmtF16, intUnp(v, srcBits, signed), r)
	return uint16(z)
}

// IntToBF16 implements cvt.rnd.bf16.{s,u}* (sm_90+): correctly rounded.
func IntToBF16(v uint64, srcBits int, signed bool, r Rnd) uint16 {
	z, _ := packUnp(fmtBF16, intUnp(v, srcBits, signed), r)
	return uint16(z)
}

// roundIntF64 rounds to an integral value: RN = .rni (ties to even),
// RZ = .rzi, RM = .rmi, RP = .rpi, RNA = ties away from zero.
func roundIntF64(x float64, r Rnd) float64 {
	switch r {
	case RZ:
		return math.Trunc(x)
	case RM:
		return math.Floor(x)
	case RP:
		return math.Ceil(x)
	case RNA:
		return math.Round(x)
	}
	return math.RoundToEven(x)
}

// F64ToInt implements cvt.irnd.{s,u}{8,16,32,64}.f64: the value is rounded
// to an integer in mode r (RN = .rni, RZ = .rzi, RM = .rmi, RP = .rpi)
// and saturated to the destination range, as PTX float-to-integer
// conversions always are; NaN gives 0. The result is the dstBits-wide
// two's-complement pattern, zero-extended to 64 bits (the caller
// sign-extends when the destination register is wider than the type).
func F64ToInt(x uint64, dstBits int, signed bool, r Rnd) uint64 {
	return floatToInt(f64(x), dstBits, signed, r)
}

func floatToInt(f float64, dstBits int, signed bool, r Rnd) uint64 {
	if f != f {
		return 0
	}
	f = roundIntF64(f, r)
	mask := ^uint64(0)
	if dstBits < 64 {
		mask = 1<<uint(dstBits) - 1
	}
	if signed {
		lim := math.Ldexp(1, dstBits-1) // 2^(n-1)
		switch {
		case f >= lim:
			return mask >> 1
		case f <= -lim:
			return (mask >> 1) ^ mask // most negative
		}
		return uint64(int64(f)) & mask
	}
	lim := math.Ldexp(1, dstBits) // 2^n
	switch {
	case f <= 0:
		return 0
	case f >= lim:
		return mask
	case f >= 0x1p63:
		return uint64(int64(f-0x1p63)) | 1<<63
	}
	return uint64(int64(f))
}

// F32ToInt implements cvt.irnd{.ftz}{.sat}.{s,u}{8,16,32,64}.f32 (see
// F64ToInt). ftz flushes a subnormal input first, which matters for .rpi
// and .rmi; sat is accepted for completeness (the conversion saturates
// anyway).
func F32ToInt(x uint32, dstBits int, signed bool, r Rnd, ftz, sat bool) uint64 {
	if ftz {
		x = FlushF32(x)
	}
	return floatToInt(float64(f32(x)), dstBits, signed, r)
}

// F16ToInt implements cvt.irnd.{s,u}*.f16 (see F64ToInt).
func F16ToInt(h uint16, dstBits int, signed bool, r Rnd) uint64 {
	return floatToInt(float64(f32(F16ToF32(h))), dstBits, signed, r)
}

// BF16ToInt implements cvt.irnd.{s,u}*.bf16 (see F64ToInt).
func BF16ToInt(h uint16, dstBits int, signed bool, r Rnd) uint64 {
	return floatToInt(float64(f32(BF16ToF32(h))), dstBits, signed, r)
}

// RoundToIntF32 implements cvt.irnd{.ftz}.f32.f32 (round to an integral
// value, result in f32): RN = .rni, RZ = .rzi, RM = .rmi, RP = .rpi. The
// sign of zero is kept (rni(-0.3) = -0.0); ±Inf are unchanged; NaN gives
// NaN32. For .sat apply SatF32 to the result.
func RoundToIntF32(x uint32, r Rnd, ftz bool) uint32 {
	if ftz {
		x = FlushF32(x)
	}
	if isNaN32(x) {
		return NaN32
	}
	return b32(float32(roundIntF64(float64(f32(x)), r)))
}

// RoundToIntF64 implements cvt.irnd.f64.f64 (see RoundToIntF32); NaN gives
// NaN64.
func RoundToIntF64(x uint64, r Rnd) uint64 {
	if isNaN64(x) {
		return NaN64
	}
	return b64(roundIntF64(f64(x), r))
}

// RoundToIntF16 implements cvt.irnd.f16.f16 (see RoundToIntF32); NaN gives
// NaN16. The integral result is always representable.
func RoundToIntF16(h uint16, r Rnd) uint16 {
	if h&0x7FFF > 0x7C00 {
		return NaN16
	}
	z, _ := packUnp(fmtF16, unpackF64v(roundIntF64(f64(F16ToF64(h)), r)), RN)
	return uint16(z)
}

// RoundToIntBF16 implements cvt.irnd.bf16.bf16 (see RoundToIntF32); NaN
// gives NaNBF16.
func RoundToIntBF16(h uint16, r Rnd) uint16 {
	if h&0x7FFF > 0x7F80 {
		return NaNBF16
	}
	return uint16(b32(float32(roundIntF64(f64(BF16ToF64(h)), r))) >> 16)
}
