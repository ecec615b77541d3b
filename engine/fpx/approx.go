package fpx

import "math"

// Approximate instructions (.approx, div.full).
//
// The hardware evaluates these with the multi-function unit, whose exact
// results are not documented. Here they are computed in float64 with the Go
// math package and rounded once to the destination format, so the error is
// at most about 0.5 ulp of the destination plus ~1 ulp of float64 — far
// inside the bounds the PTX ISA gives (e.g. sin/cos absolute error
// 2^-20.5, lg2 2^-22, ex2/rcp/rsqrt/sqrt a couple of ulp, tanh relative
// 2^-11). Results that are exactly representable are returned exactly.
// Special values follow the ISA tables; NaN results are canonical.
// With ftz, subnormal inputs are flushed to signed zero before the
// computation (so e.g. rcp.approx.ftz(subnormal) = ±Inf) and subnormal
// results are flushed after it; without ftz subnormals are handled as
// ordinary values.

// out32 rounds a float64 result to f32 and applies NaN canonicalisation
// and ftz.
func out32(v float64, ftz bool) uint32 {
	z := b32(float32(v))
	if isNaN32(z) {
		return NaN32
	}
	if ftz {
		z = FlushF32(z)
	}
	return z
}

func in32(x uint32, ftz bool) float64 {
	if ftz {
		x = FlushF32(x)
	}
	return float64(f32(x))
}

// SinApproxF32 implements sin.approx{.ftz}.f32: sin(±0) = ±0,
// sin(±Inf) = NaN.
func SinApproxF32(x uint32, ftz bool) uint32 {
	v := in32(x, ftz)
	if math.IsInf(v, 0) || v != v {
		return NaN32
	}
	return out32(math.Sin(v), ftz)
}

// CosApproxF32 implements cos.approx{.ftz}.f32: cos(±0) = 1,
// cos(±Inf) = NaN.
func CosApproxF32(x uint32, ftz bool) uint32 {
	v := in32(x, ftz)
	if math.IsInf(v, 0) || v != v {
		return NaN32
	}
	return out32(math.Cos(v), ftz)
}

// Lg2ApproxF32 implements lg2.approx{.ftz}.f32 (log base 2):
// lg2(±0) = -Inf, lg2(x<0) = NaN (including -Inf), lg2(+Inf) = +Inf.
func Lg2ApproxF32(x uint32, ftz bool) uint32 {
	v := in32(x, ftz)
	switch {
	case v != v, v < 0:
		return NaN32
	case v == 0:
		return 0xFF800000
	}
	return out32(math.Log2(v), ftz)
}

// Ex2ApproxF32 implements ex2.approx{.ftz}.f32 (2^x): ex2(-Inf) = +0,
// ex2(+Inf) = +Inf, ex2(±0) = 1; integral inputs give exact powers of two.
func Ex2ApproxF32(x uint32, ftz bool) uint32 {
	v := in32(x, ftz)
	if v != v {
		return NaN32
	}
	return out32(math.Exp2(v), ftz)
}

// RcpApproxF32 implements rcp.approx{.ftz}.f32 (1/x): rcp(±0) = ±Inf,
// rcp(±Inf) = ±0. The result is the correctly rounded reciprocal (float64
// division rounded to f32 is innocuous double rounding).
func RcpApproxF32(x uint32, ftz bool) uint32 {
	return out32(1/in32(x, ftz), ftz)
}

// RsqrtApproxF32 implements rsqrt.approx{.ftz}.f32 (1/sqrt(x)):
// rsqrt(+0) = +Inf, rsqrt(-0) = -Inf, rsqrt(x<0) = NaN, rsqrt(+Inf) = +0.
func RsqrtApproxF32(x uint32, ftz bool) uint32 {
	v := in32(x, ftz)
	switch {
	case v != v, v < 0:
		return NaN32
	case v == 0:
		return uint32(x&sign32) | 0x7F800000
	}
	return out32(1/math.Sqrt(v), ftz)
}

// SqrtApproxF32 implements sqrt.approx{.ftz}.f32: sqrt(-0) = -0,
// sqrt(x<0) = NaN, sqrt(+Inf) = +Inf; the result is correctly rounded.
func SqrtApproxF32(x uint32, ftz bool) uint32 { return SqrtF32(x, RN, ftz) }

// TanhApproxF32 implements tanh.approx.f32 (sm_75+): tanh(±0) = ±0,
// tanh(±Inf) = ±1. ftz is accepted for symmetry (PTX has no .ftz form).
func TanhApproxF32(x uint32, ftz bool) uint32 {
	v := in32(x, ftz)
	if v != v {
		return NaN32
	}
	return out32(math.Tanh(v), ftz)
}

// DivApproxF32 implements div.approx{.ftz}.f32 d, a, b, which PTX defines
// as a * (1/b): the reciprocal of b (rounded to f32) times a, rounded to
// nearest. Following the ISA, for 2^126 < |b| < 2^128 the result is 0
// (sign of a*b), or NaN if a is infinite.
func DivApproxF32(a, b uint32, ftz bool) uint32 {
	if ftz {
		a, b = FlushF32(a), FlushF32(b)
	}
	if isNaN32(a) || isNaN32(b) {
		return NaN32
	}
	if mb := b &^ sign32; mb > 0x7E800000 && mb < 0x7F800000 {
		if a&^sign32 == 0x7F800000 {
			return NaN32
		}
		return (a ^ b) & sign32
	}
	rb := float32(1 / float64(f32(b)))
	return post32(b32(f32(a)*rb), ftz)
}

// DivFullF32 implements div.full{.ftz}.f32 d, a, b: a full-range division
// the ISA bounds at 2 ulp; the correctly rounded (RN) quotient is returned.
func DivFullF32(a, b uint32, ftz bool) uint32 { return DivF32(a, b, RN, ftz) }

// ---- f64 ----

// RcpApproxF64 is an approximate f64 reciprocal that keeps subnormal
// inputs and results (PTX itself only defines the .ftz form, see
// RcpApproxFtzF64). It returns the correctly rounded 1/x:
// rcp(±0) = ±Inf, rcp(±Inf) = ±0, and a NaN input is returned quieted
// (payload kept, see f64.go).
func RcpApproxF64(x uint64) uint64 { return post64(b64(1/f64(x)), x, x) }

// NaN64Hi is the canonical NaN of rcp.approx.ftz.f64 and
// rsqrt.approx.ftz.f64: the ISA maps every input NaN of these two
// instructions to the encoding 0x7fffffff00000000.
const NaN64Hi uint64 = 0x7FFFFFFF00000000

// hi64 keeps only the most significant 32 bits of an f64 operand (its
// 1.11.20 form: sign, exponent and the top 20 fraction bits), as the
// .ftz.f64 approximations read their input.
func hi64(x uint64) uint64 { return x &^ 0xFFFFFFFF }

// roundHi64 rounds a finite, non-NaN f64 result to the 1.11.20 format
// (to nearest, ties to even) and flushes a subnormal result to a
// sign-preserving zero, so the 32 least significant bits of the result
// are zero. A carry out of the fraction correctly bumps the exponent
// (up to Inf).
func roundHi64(z uint64) uint64 {
	if z&0x7FF0000000000000 == 0 {
		return z & sign64
	}
	if z&0x7FF0000000000000 == 0x7FF0000000000000 {
		return z // ±Inf
	}
	z += 0x7FFFFFFF + (z >> 32 & 1)
	return hi64(z)
}

// RcpApproxFtzF64 implements rcp.approx.ftz.f64, which the ISA defines on
// the upper word of a: tmp = a[63:32] (1.11.20 format), d[63:32] = 1/tmp,
// d[31:0] = 0. Subnormal inputs and results are flushed to a
// sign-preserving zero (rcp(±subnormal) = ±Inf), rcp(±Inf) = ±0, and
// every input NaN maps to the canonical NaN64Hi. The upper word is the
// reciprocal of tmp rounded to nearest; the hardware's MUFU estimate may
// differ from it in the last bits of the 20-bit fraction.
func RcpApproxFtzF64(x uint64) uint64 {
	if isNaN64(x) {
		return NaN64Hi
	}
	return roundHi64(b64(1 / f64(hi64(flushF64(x)))))
}

// RsqrtApproxF64 implements rsqrt.approx.f64 (1/sqrt(x)): rsqrt(±0) = ±Inf,
// rsqrt(x<0) = NaN, rsqrt(+Inf) = +0; powers of four give exact results
// (rsqrt(0.25) = 2). Subnormal inputs are supported. A NaN input is
// returned quieted (payload kept, see f64.go); a negative input gives the
// canonical NaN64.
func RsqrtApproxF64(x uint64) uint64 {
	v := f64(x)
	switch {
	case v != v:
		return x | quietBit64
	case v < 0:
		return NaN64
	case v == 0:
		return x&sign64 | 0x7FF0000000000000
	}
	return b64(1 / math.Sqrt(v))
}

// RsqrtApproxFtzF64 implements rsqrt.approx.ftz.f64: tmp = a[63:32]
// (1.11.20 format), d[63:32] = 1/sqrt(tmp), d[31:0] = 0. Subnormal inputs
// are flushed to a sign-preserving zero (rsqrt(±subnormal) = ±Inf),
// rsqrt(+Inf) = +0, negative inputs (including -Inf) give NaN, and every
// NaN result is the canonical NaN64Hi, so the 32 least significant bits of
// every result are zero.
func RsqrtApproxFtzF64(x uint64) uint64 {
	v := f64(hi64(flushF64(x)))
	switch {
	case v != v, v < 0:
		return NaN64Hi
	case v == 0:
		return x&sign64 | 0x7FF0000000000000
	}
	return roundHi64(b64(1 / math.Sqrt(v)))
}

// ---- f16 / bf16 ----

func approxHalf(f *format, h uint16, ftz bool, fn func(float64) float64) uint16 {
	if ftz {
		h = flushH(f, h)
	}
	u := unpack(f, uint64(h))
	if u.cls == clsNaN {
		return 0x7FFF
	}
	var v float64
	if f == fmtF16 {
		v = f64(F16ToF64(h))
	} else {
		v = f64(BF16ToF64(h))
	}
	z, _ := packUnp(f, unpackF64v(fn(v)), RN)
	if ftz {
		return flushH(f, uint16(z))
	}
	return uint16(z)
}

// TanhApproxF16 implements tanh.approx.f16 (sm_75+).
func TanhApproxF16(h uint16) uint16 { return approxHalf(fmtF16, h, false, math.Tanh) }

// TanhApproxBF16 implements tanh.approx.bf16 (sm_90+).
func TanhApproxBF16(h uint16) uint16 { return approxHalf(fmtBF16, h, false, math.Tanh) }

// Ex2ApproxF16 implements ex2.approx.f16 (2^x): ex2(-Inf) = +0.
func Ex2ApproxF16(h uint16) uint16 { return approxHalf(fmtF16, h, false, math.Exp2) }

// Ex2ApproxBF16 implements ex2.approx.ftz.bf16: subnormal inputs and
// results are flushed.
func Ex2ApproxBF16(h uint16) uint16 { return approxHalf(fmtBF16, h, true, math.Exp2) }

// TanhApproxF16x2 implements tanh.approx.f16x2, per half.
func TanhApproxF16x2(a uint32) uint32 {
	return Pack2(TanhApproxF16(uint16(a)), TanhApproxF16(uint16(a>>16)))
}

// TanhApproxBF16x2 implements tanh.approx.bf16x2, per half.
func TanhApproxBF16x2(a uint32) uint32 {
	return Pack2(TanhApproxBF16(uint16(a)), TanhApproxBF16(uint16(a>>16)))
}

// Ex2ApproxF16x2 implements ex2.approx.f16x2, per half.
func Ex2ApproxF16x2(a uint32) uint32 {
	return Pack2(Ex2ApproxF16(uint16(a)), Ex2ApproxF16(uint16(a>>16)))
}

// Ex2ApproxBF16x2 implements ex2.approx.ftz.bf16x2, per half.
func Ex2ApproxBF16x2(a uint32) uint32 {
	return Pack2(Ex2ApproxBF16(uint16(a)), Ex2ApproxBF16(uint16(a>>16)))
}
