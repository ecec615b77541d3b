package fpx

import "math"

// f64 arithmetic: add, sub, mul, fma/mad, div.rnd, rcp.rnd and sqrt.rnd.
// f64 has no .ftz in PTX; subnormals are always supported. Any NaN result
// is NaN64 (see the package comment).

func unp64(x uint64) unp { return unpack(fmtF64, x) }

func soft64(z uint64, st status) uint64 {
	if st == stNaN {
		return NaN64
	}
	return z
}

func post64(z uint64) uint64 {
	if isNaN64(z) {
		return NaN64
	}
	return z
}

// AddF64 implements add{.rnd}.f64 d, a, b: a+b correctly rounded in mode r.
func AddF64(a, b uint64, r Rnd) uint64 {
	if r == RN {
		return post64(b64(f64(a) + f64(b)))
	}
	return soft64(softAdd(fmtF64, unp64(a), unp64(b), r))
}

// SubF64 implements sub{.rnd}.f64 d, a, b: a-b correctly rounded in mode r.
func SubF64(a, b uint64, r Rnd) uint64 {
	if r == RN {
		return post64(b64(f64(a) - f64(b)))
	}
	return soft64(softAdd(fmtF64, unp64(a), unp64(b^sign64), r))
}

// MulF64 implements mul{.rnd}.f64 d, a, b: a*b correctly rounded in mode r.
func MulF64(a, b uint64, r Rnd) uint64 {
	if r == RN {
		return post64(b64(f64(a) * f64(b)))
	}
	return soft64(softMul(fmtF64, unp64(a), unp64(b), r))
}

// FmaF64 implements fma.rnd.f64 d, a, b, c (and mad.rnd.f64): a*b+c with a
// single rounding in mode r. RN uses math.FMA, which is exact.
func FmaF64(a, b, c uint64, r Rnd) uint64 {
	if r == RN {
		return post64(b64(math.FMA(f64(a), f64(b), f64(c))))
	}
	return soft64(softFMA(fmtF64, unp64(a), unp64(b), unp64(c), r))
}

// DivF64 implements div.rnd.f64 d, a, b: IEEE division correctly rounded
// in mode r.
func DivF64(a, b uint64, r Rnd) uint64 {
	if r == RN {
		return post64(b64(f64(a) / f64(b)))
	}
	return soft64(softDiv(fmtF64, unp64(a), unp64(b), r))
}

// RcpF64 implements rcp.rnd.f64 d, a: 1/a correctly rounded in mode r.
func RcpF64(a uint64, r Rnd) uint64 { return DivF64(0x3FF0000000000000, a, r) }

// SqrtF64 implements sqrt.rnd.f64 d, a: the correctly rounded square root
// in mode r.
func SqrtF64(a uint64, r Rnd) uint64 {
	if r == RN {
		return post64(b64(math.Sqrt(f64(a))))
	}
	return soft64(softSqrt(fmtF64, unp64(a), r))
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
