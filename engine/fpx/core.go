package fpx

import (
	"math"
	"math/bits"
)

// This file holds the exact soft-float core: a description of every
// binary floating-point format PTX uses, unpacking of encodings into an
// exact (significand, exponent) form, a single correctly-rounding packer
// (round) and exact add/mul/fma/div/sqrt on unpacked operands that feed
// it. Everything works on integers, so results are exact for every
// rounding mode and every format, including subnormal results.

// format describes a binary floating-point encoding.
type format struct {
	frac   uint   // explicit fraction bits; precision p = frac+1
	ebits  uint   // exponent field width
	bias   int    // exponent bias
	noInf  bool   // e4m3: no infinities; all-ones exponent is finite except the NaN pattern
	maxMag uint64 // encoding of the largest finite magnitude
}

var (
	fmtF64  = &format{52, 11, 1023, false, 0x7FEFFFFFFFFFFFFF}
	fmtF32  = &format{23, 8, 127, false, 0x7F7FFFFF}
	fmtF16  = &format{10, 5, 15, false, 0x7BFF}
	fmtBF16 = &format{7, 8, 127, false, 0x7F7F}
	fmtTF32 = &format{10, 8, 127, false, 0x7F7FE000 >> 13}
	fmtE4M3 = &format{3, 4, 7, true, 0x7E}
	fmtE5M2 = &format{2, 5, 15, false, 0x7B}
)

func (f *format) signBit() uint64 { return 1 << (f.frac + f.ebits) }
func (f *format) infMag() uint64  { return (1<<f.ebits - 1) << f.frac }
func (f *format) oneMag() uint64  { return uint64(f.bias) << f.frac }

// class of an unpacked value.
type class uint8

const (
	clsZero class = iota
	clsFinite
	clsInf
	clsNaN
)

// unp is an unpacked value: (-1)^neg × m × 2^e for clsFinite (m != 0).
type unp struct {
	neg bool
	cls class
	m   uint64
	e   int
}

// unpack decodes an encoding of format f.
func unpack(f *format, b uint64) unp {
	u := unp{neg: b&f.signBit() != 0}
	expMask := uint64(1)<<f.ebits - 1
	ex := b >> f.frac & expMask
	fr := b & (1<<f.frac - 1)
	switch {
	case ex == expMask && f.noInf:
		if fr == 1<<f.frac-1 {
			u.cls = clsNaN
			return u
		}
	case ex == expMask:
		if fr == 0 {
			u.cls = clsInf
		} else {
			u.cls = clsNaN
		}
		return u
	case ex == 0:
		if fr == 0 {
			u.cls = clsZero
			return u
		}
		u.cls = clsFinite
		u.m = fr
		u.e = 1 - f.bias - int(f.frac)
		return u
	}
	u.cls = clsFinite
	u.m = fr | 1<<f.frac
	u.e = int(ex) - f.bias - int(f.frac)
	return u
}

// unpackF64v unpacks a float64 value.
func unpackF64v(x float64) unp { return unpack(fmtF64, math.Float64bits(x)) }

// round rounds (-1)^neg × (m + δ) × 2^e, where m != 0, 0 ≤ δ < 1 and δ > 0
// exactly when sticky is set, to format f in mode r. It returns the
// magnitude encoding (without the sign) and whether the rounded value
// overflowed the finite range; on overflow mag is the IEEE result for the
// mode (Inf for round-to-nearest and for rounding away from zero, the
// largest finite value otherwise). A result that rounds to zero has mag 0.
func round(f *format, neg bool, m uint64, e int, sticky bool, r Rnd) (mag uint64, ovf bool) {
	lz := bits.LeadingZeros64(m)
	m <<= uint(lz)
	e -= lz
	p := int(f.frac) + 1
	emin := 1 - f.bias
	top := e + 63 // exponent of the leading bit
	lsb := top - (p - 1)
	if top < emin {
		lsb = emin - (p - 1) // subnormal grid
	}
	s := lsb - e // ≥ 64-p ≥ 1
	var q uint64
	var half, rest bool
	switch {
	case s > 64:
		rest = true
	case s == 64:
		half = true // m has its top bit set
		rest = m<<1 != 0
	default:
		q = m >> uint(s)
		half = m>>uint(s-1)&1 != 0
		rest = m&(1<<uint(s-1)-1) != 0
	}
	rest = rest || sticky
	var up bool
	switch r {
	case RN:
		up = half && (rest || q&1 != 0)
	case RNA:
		up = half
	case RP:
		up = !neg && (half || rest)
	case RM:
		up = neg && (half || rest)
	}
	if up {
		q++
		if q == 1<<uint(p) {
			q >>= 1
			lsb++
		}
	}
	if q == 0 {
		return 0, false
	}
	if q >= 1<<uint(p-1) {
		// normal: exponent of the leading bit is lsb+p-1
		emaxNorm := int(f.maxMag>>f.frac) - f.bias
		if lsb+p-1 > emaxNorm {
			return ovfMag(f, neg, r), true
		}
	}
	mag = uint64(lsb-(emin-(p-1)))<<uint(p-1) + q
	if mag > f.maxMag {
		return ovfMag(f, neg, r), true
	}
	return mag, false
}

// ovfMag is the IEEE overflow result magnitude for mode r.
func ovfMag(f *format, neg bool, r Rnd) uint64 {
	if r == RN || r == RNA || (r == RP && !neg) || (r == RM && neg) {
		return f.infMag()
	}
	return f.maxMag
}

// status of a soft operation.
type status uint8

const (
	stOK  status = iota
	stNaN        // the result is NaN; the bits are unspecified
	stOvf        // finite operands overflowed; the bits hold the IEEE result
)

// norm128 shrinks a 128-bit significand (hi:lo) × 2^e to 64 bits, folding
// the discarded bits into sticky.
func norm128(hi, lo uint64, e int, sticky bool) (uint64, int, bool) {
	if hi == 0 {
		return lo, e, sticky
	}
	n := uint(bits.Len64(hi))
	if n == 64 {
		return hi, e + 64, sticky || lo != 0
	}
	m := hi<<(64-n) | lo>>n
	sticky = sticky || lo<<(64-n) != 0
	return m, e + int(n), sticky
}

// finish rounds a nonzero 128-bit result to f and applies the sign.
func finish(f *format, neg bool, hi, lo uint64, e int, sticky bool, r Rnd) (uint64, status) {
	m, e, sticky := norm128(hi, lo, e, sticky)
	mag, ovf := round(f, neg, m, e, sticky, r)
	if neg {
		mag |= f.signBit()
	}
	if ovf {
		return mag, stOvf
	}
	return mag, stOK
}

// packUnp rounds an unpacked value (not NaN) to format f.
func packUnp(f *format, u unp, r Rnd) (uint64, status) {
	var sb uint64
	if u.neg {
		sb = f.signBit()
	}
	switch u.cls {
	case clsZero:
		return sb, stOK
	case clsInf:
		return sb | f.infMag(), stOK
	case clsNaN:
		return 0, stNaN
	}
	mag, ovf := round(f, u.neg, u.m, u.e, false, r)
	if ovf {
		return sb | mag, stOvf
	}
	return sb | mag, stOK
}

// shl128 shifts hi:lo left by s (0 ≤ s < 128).
func shl128(hi, lo uint64, s uint) (uint64, uint64) {
	switch {
	case s == 0:
		return hi, lo
	case s >= 64:
		return lo << (s - 64), 0
	}
	return hi<<s | lo>>(64-s), lo << s
}

// shr128 shifts hi:lo right by s and reports whether nonzero bits were lost.
func shr128(hi, lo uint64, s uint) (uint64, uint64, bool) {
	switch {
	case s == 0:
		return hi, lo, false
	case s >= 128:
		return 0, 0, hi|lo != 0
	case s >= 64:
		lost := lo != 0 || hi<<(128-s) != 0
		if s == 64 {
			lost = lo != 0
		}
		return 0, hi >> (s - 64), lost
	}
	lost := lo<<(64-s) != 0
	return hi >> s, lo>>s | hi<<(64-s), lost
}

func len128(hi, lo uint64) int {
	if hi != 0 {
		return 64 + bits.Len64(hi)
	}
	return bits.Len64(lo)
}

// addExact adds two nonzero finite values given as 128-bit significands
// (value = hi:lo × 2^e, at most 126 bits wide) and rounds the sum to f.
// An exact zero sum gets the IEEE sign: -0 in mode RM, +0 otherwise.
func addExact(f *format, xn bool, xh, xl uint64, xe int, yn bool, yh, yl uint64, ye int, r Rnd) (uint64, status) {
	// Normalise both so the leading bit is bit 125 (two bits of headroom).
	sx := 126 - len128(xh, xl)
	xh, xl = shl128(xh, xl, uint(sx))
	xe -= sx
	sy := 126 - len128(yh, yl)
	yh, yl = shl128(yh, yl, uint(sy))
	ye -= sy
	if xe < ye || (xe == ye && (xh < yh || (xh == yh && xl < yl))) {
		xn, xh, xl, xe, yn, yh, yl, ye = yn, yh, yl, ye, xn, xh, xl, xe
	}
	// Now |x| ≥ |y|.
	d := xe - ye
	var sticky bool
	if d >= 128 {
		yh, yl, sticky = 0, 0, true
	} else {
		yh, yl, sticky = shr128(yh, yl, uint(d))
	}
	var h, l uint64
	if xn == yn {
		var c uint64
		l, c = bits.Add64(xl, yl, 0)
		h, _ = bits.Add64(xh, yh, c)
	} else {
		var b uint64
		l, b = bits.Sub64(xl, yl, 0)
		h, _ = bits.Sub64(xh, yh, b)
		if sticky {
			// The true y is slightly larger than the shifted one: the
			// difference lies strictly between (x-y-1) and (x-y).
			l, b = bits.Sub64(l, 1, 0)
			h, _ = bits.Sub64(h, 0, b)
		}
		if h == 0 && l == 0 && !sticky {
			if r == RM {
				return f.signBit(), stOK
			}
			return 0, stOK
		}
	}
	return finish(f, xn, h, l, xe, sticky, r)
}

// softAdd computes a+b rounded to f (a, b unpacked in any format).
func softAdd(f *format, a, b unp, r Rnd) (uint64, status) {
	if a.cls == clsNaN || b.cls == clsNaN {
		return 0, stNaN
	}
	if a.cls == clsInf || b.cls == clsInf {
		if a.cls == clsInf && b.cls == clsInf && a.neg != b.neg {
			return 0, stNaN
		}
		if a.cls == clsInf {
			return packUnp(f, a, r)
		}
		return packUnp(f, b, r)
	}
	if a.cls == clsZero && b.cls == clsZero {
		switch {
		case a.neg == b.neg:
			return packUnp(f, a, r)
		case r == RM:
			return f.signBit(), stOK
		}
		return 0, stOK
	}
	if a.cls == clsZero {
		return packUnp(f, b, r)
	}
	if b.cls == clsZero {
		return packUnp(f, a, r)
	}
	return addExact(f, a.neg, 0, a.m, a.e, b.neg, 0, b.m, b.e, r)
}

// softMul computes a*b rounded to f.
func softMul(f *format, a, b unp, r Rnd) (uint64, status) {
	if a.cls == clsNaN || b.cls == clsNaN {
		return 0, stNaN
	}
	neg := a.neg != b.neg
	var sb uint64
	if neg {
		sb = f.signBit()
	}
	if a.cls == clsInf || b.cls == clsInf {
		if a.cls == clsZero || b.cls == clsZero {
			return 0, stNaN
		}
		return sb | f.infMag(), stOK
	}
	if a.cls == clsZero || b.cls == clsZero {
		return sb, stOK
	}
	hi, lo := bits.Mul64(a.m, b.m)
	return finish(f, neg, hi, lo, a.e+b.e, false, r)
}

// softFMA computes a*b+c with a single rounding to f.
func softFMA(f *format, a, b, c unp, r Rnd) (uint64, status) {
	if a.cls == clsNaN || b.cls == clsNaN || c.cls == clsNaN {
		return 0, stNaN
	}
	pneg := a.neg != b.neg
	if a.cls == clsInf || b.cls == clsInf {
		if a.cls == clsZero || b.cls == clsZero {
			return 0, stNaN
		}
		if c.cls == clsInf && c.neg != pneg {
			return 0, stNaN
		}
		return packUnp(f, unp{neg: pneg, cls: clsInf}, r)
	}
	if c.cls == clsInf {
		return packUnp(f, c, r)
	}
	if a.cls == clsZero || b.cls == clsZero {
		// The product is an exact signed zero.
		return softAdd(f, unp{neg: pneg, cls: clsZero}, c, r)
	}
	hi, lo := bits.Mul64(a.m, b.m)
	if c.cls == clsZero {
		return finish(f, pneg, hi, lo, a.e+b.e, false, r)
	}
	return addExact(f, pneg, hi, lo, a.e+b.e, c.neg, 0, c.m, c.e, r)
}

// softDiv computes a/b rounded to f.
func softDiv(f *format, a, b unp, r Rnd) (uint64, status) {
	if a.cls == clsNaN || b.cls == clsNaN {
		return 0, stNaN
	}
	neg := a.neg != b.neg
	var sb uint64
	if neg {
		sb = f.signBit()
	}
	switch {
	case a.cls == clsInf && b.cls == clsInf, a.cls == clsZero && b.cls == clsZero:
		return 0, stNaN
	case a.cls == clsInf || b.cls == clsZero:
		return sb | f.infMag(), stOK
	case a.cls == clsZero || b.cls == clsInf:
		return sb, stOK
	}
	la := bits.LeadingZeros64(a.m)
	lb := bits.LeadingZeros64(b.m)
	A := a.m << uint(la)
	B := b.m << uint(lb)
	// q = floor(A·2^63 / B); A>>1 < 2^63 ≤ B, so the quotient fits.
	q, rem := bits.Div64(A>>1, A<<63, B)
	e := (a.e - la) - (b.e - lb) - 63
	return finish(f, neg, 0, q, e, rem != 0, r)
}

// softSqrt computes sqrt(a) rounded to f.
func softSqrt(f *format, a unp, r Rnd) (uint64, status) {
	switch {
	case a.cls == clsNaN:
		return 0, stNaN
	case a.cls == clsZero:
		return packUnp(f, a, r) // sqrt(±0) = ±0
	case a.neg:
		return 0, stNaN
	case a.cls == clsInf:
		return packUnp(f, a, r)
	}
	// Place the significand so the leading bit is bit 125 or 124 of a
	// 128-bit integer M with an even exponent.
	top := 63 - bits.LeadingZeros64(a.m)
	s := 125 - top
	if (a.e-s)&1 != 0 {
		s--
	}
	hi, lo := shl128(0, a.m, uint(s))
	root, exact := isqrt128(hi, lo)
	return finish(f, false, 0, root, (a.e-s)/2, !exact, r)
}

// isqrt128 returns floor(sqrt(hi:lo)) for 2^124 ≤ hi:lo < 2^126 and whether
// the root is exact.
func isqrt128(hi, lo uint64) (uint64, bool) {
	x := float64(hi)*0x1p64 + float64(lo)
	g := uint64(math.Sqrt(x))
	// One Newton step from a float estimate accurate to ~2^10 units.
	if g < 1<<62 {
		g = 1 << 62
	}
	qt, _ := bits.Div64(hi, lo, g)
	g = g/2 + qt/2 + (g&1+qt&1)/2
	// Exact correction.
	for {
		ph, pl := bits.Mul64(g, g)
		if ph > hi || (ph == hi && pl > lo) {
			g--
			continue
		}
		g1 := g + 1
		ph, pl = bits.Mul64(g1, g1)
		if ph < hi || (ph == hi && pl <= lo) {
			g = g1
			continue
		}
		ph, pl = bits.Mul64(g, g)
		return g, ph == hi && pl == lo
	}
}
