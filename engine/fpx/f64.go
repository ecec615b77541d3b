package fpx

import "math"

// f64 arithmetic: add, sub, mul, fma/mad, div.rnd, rcp.rnd and sqrt.rnd.
// f64 has no .ftz in PTX; subnormals are always supported.
//
// NaN results follow the ISA's family note for the floating-point
// instructions, "NaN payloads are supported for double-precision
// instructions", with the IEEE 754-2008 (§6.2.3) propagation rule: when
// one or more operands are NaN the result is the first NaN operand in
// operand order (a, then b, then c), quieted by setting the most
// significant fraction bit, sign and payload kept. This is the rule of
// x86 SSE/AVX (Intel SDM vol. 1, table 4-7: "First operand (if this
// operand is an SNaN, it is converted to a QNaN)"); NVIDIA documents no
// order. An invalid operation without NaN operands (Inf-Inf, 0*Inf, 0/0,
// sqrt of a negative number) produces the canonical NaN64.

func unp64(x uint64) unp { return unpack(fmtF64, x) }

// quietBit64 is the most significant fraction bit of an f64, set in
// every quiet NaN.
const quietBit64 = 0x0008000000000000

// NaNResultF64 returns the NaN result of a two-operand f64 arithmetic
// instruction whose result is NaN: the first NaN of a and b, quieted, or
// NaN64 when neither is a NaN (an invalid operation).
func NaNResultF64(a, b uint64) uint64 {
	switch {
	case isNaN64(a):
		return a | quietBit64
	case isNaN64(b):
		return b | quietBit64
	}
	return NaN64
}

// NaNResultF64x3 is NaNResultF64 for fma/mad (a*b+c): the first NaN of a,
// b and c, quieted, or NaN64.
func NaNResultF64x3(a, b, c uint64) uint64 {
	if isNaN64(a) || isNaN64(b) {
		return NaNResultF64(a, b)
	}
	return NaNResultF64(c, c)
}

func soft64(z uint64, st status, a, b uint64) uint64 {
	if st == stNaN {
		return NaNResultF64(a, b)
	}
	return z
}

func post64(z, a, b uint64) uint64 {
	if isNaN64(z) {
		return NaNResultF64(a, b)
	}
	return z
}

// AddF64 implements add{.rnd}.f64 d, a, b: a+b correctly rounded in mode r.
func AddF64(a, b uint64, r Rnd) uint64 {
	if r == RN {
		return post64(b64(f64(a)+f64(b)), a, b)
	}
	z, st := softAdd(fmtF64, unp64(a), unp64(b), r)
	return soft64(z, st, a, b)
}

// SubF64 implements sub{.rnd}.f64 d, a, b: a-b correctly rounded in mode r.
func SubF64(a, b uint64, r Rnd) uint64 {
	if r == RN {
		return post64(b64(f64(a)-f64(b)), a, b)
	}
	z, st := softAdd(fmtF64, unp64(a), unp64(b^sign64), r)
	return soft64(z, st, a, b)
}

// MulF64 implements mul{.rnd}.f64 d, a, b: a*b correctly rounded in mode r.
func MulF64(a, b uint64, r Rnd) uint64 {
	if r == RN {
		return post64(b64(f64(a)*f64(b)), a, b)
	}
	z, st := softMul(fmtF64, unp64(a), unp64(b), r)
	return soft64(z, st, a, b)
}

// FmaF64 implements fma.rnd.f64 d, a, b, c (and mad.rnd.f64): a*b+c with a
// single rounding in mode r. RN uses math.FMA, which is exact.
func FmaF64(a, b, c uint64, r Rnd) uint64 {
	if r == RN {
		if z := b64(math.FMA(f64(a), f64(b), f64(c))); !isNaN64(z) {
			return z
		}
		return NaNResultF64x3(a, b, c)
	}
	z, st := softFMA(fmtF64, unp64(a), unp64(b), unp64(c), r)
	if st == stNaN {
		return NaNResultF64x3(a, b, c)
	}
	return z
}

// DivF64 implements div.rnd.f64 d, a, b: IEEE division correctly rounded
// in mode r.
func DivF64(a, b uint64, r Rnd) uint64 {
	if r == RN {
		return post64(b64(f64(a)/f64(b)), a, b)
	}
	z, st := softDiv(fmtF64, unp64(a), unp64(b), r)
	return soft64(z, st, a, b)
}

// RcpF64 implements rcp.rnd.f64 d, a: 1/a correctly rounded in mode r; a
// NaN a is returned quieted.
func RcpF64(a uint64, r Rnd) uint64 { return DivF64(0x3FF0000000000000, a, r) }

// SqrtF64 implements sqrt.rnd.f64 d, a: the correctly rounded square root
// in mode r.
func SqrtF64(a uint64, r Rnd) uint64 {
	if r == RN {
		return post64(b64(math.Sqrt(f64(a))), a, a)
	}
	z, st := softSqrt(fmtF64, unp64(a), r)
	return soft64(z, st, a, a)
}

// NegF64 implements neg.f64: the sign bit is flipped.
func NegF64(a uint64) uint64 { return a ^ sign64 }

// AbsF64 implements abs.f64: the sign bit of a number is cleared; a NaN
// input is passed through unchanged (sign and payload), as the ISA states
// for abs.f64.
func AbsF64(a uint64) uint64 {
	if isNaN64(a) {
		return a
	}
	return a &^ sign64
}

// CopysignF64 implements copysign.f64 d, a, b: b with the sign of a.
func CopysignF64(a, b uint64) uint64 { return b&^sign64 | a&sign64 }
