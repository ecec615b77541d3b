// Package fpx implements the floating-point and conversion arithmetic of PTX
// as pure functions on raw register bits.
//
// Every value is passed as its IEEE (or alternate-format) bit pattern:
// f64 in a uint64, f32 in a uint32, f16/bf16 in a uint16, e4m3/e5m2 in a
// uint8, and packed pairs (f16x2, bf16x2) in a uint32 whose low half holds
// element 0 and whose high half holds element 1. The functions never
// allocate and have no state; the emulator calls them once per lane.
//
// The results are meant to be bit-identical to what NVIDIA GPUs produce:
//
//   - Operations with a rounding modifier (.rn, .rz, .rm, .rp, and .rna for
//     tf32) are correctly rounded, IEEE 754 style, including subnormal
//     results, overflow to Inf or to the largest finite value according to
//     the direction, and signed zeros. The RN paths of the common f32/f64
//     operations use the host's native IEEE arithmetic (which is RN); the
//     directed modes, f16/bf16 arithmetic and all narrowing conversions go
//     through an exact integer soft-float core (see round).
//   - .ftz flushes subnormal f32 (or f16, where PTX allows it) inputs and
//     results to a zero of the same sign. A result is flushed when the
//     correctly rounded (subnormal-capable) result is subnormal.
//   - Single- and half-precision arithmetic that produces a NaN, including
//     any NaN input, returns the canonical NaN of the type: 0x7FFFFFFF
//     (f32), 0x7FFF (f16 and bf16), 0x7F (e4m3 and e5m2). The PTX ISA only
//     says that these NaN results are "unspecified"; the canonical patterns
//     above are what the hardware returns.
//   - Double-precision arithmetic supports NaN payloads, as the ISA states:
//     a NaN operand is returned quieted with its sign and payload (the first
//     NaN operand when there are several), and an invalid operation without
//     NaN operands returns the canonical 0x7FFFFFFFFFFFFFFF (see f64.go and
//     NaNResultF64). rcp.approx.ftz.f64 and rsqrt.approx.ftz.f64 map every
//     NaN to 0x7FFFFFFF00000000 (NaN64Hi); min/max and conversions keep
//     their own rules.
//   - .approx instructions are computed in float64 with the Go math package
//     and rounded to nearest; their error is far below the bounds the ISA
//     states, and results that are exactly representable (sin(π/2) = 1,
//     lg2(512) = 9, ex2(10) = 1024, rcp(2) = 0.5, ...) are exact.
package fpx

import "math"

// Rnd is a rounding mode. For float-to-integer conversions and for the
// round-to-integral conversions the same values stand for the integer
// rounding modifiers: RN = .rni, RZ = .rzi, RM = .rmi, RP = .rpi.
type Rnd uint8

const (
	RN  Rnd = iota // .rn: round to nearest, ties to even
	RZ             // .rz: round toward zero
	RM             // .rm: round toward -Inf
	RP             // .rp: round toward +Inf
	RNA            // .rna: round to nearest, ties away from zero (cvt.rna.tf32.f32)
)

var rndNames = [...]string{"rn", "rz", "rm", "rp", "rna"}

// String returns the PTX spelling of the rounding mode without the dot.
func (r Rnd) String() string {
	if int(r) < len(rndNames) {
		return rndNames[r]
	}
	return "rnd?"
}

// Mod is a set of instruction modifiers for the half-precision arithmetic,
// min/max and conversion functions. Each function documents which of them
// it honours; the others are ignored.
type Mod uint8

const (
	// FTZ (.ftz) flushes subnormal inputs and results to sign-preserving
	// zero. For conversions it applies to the f32 side only (PTX restricts
	// .ftz on cvt to f32 operands); for f16 arithmetic it applies to f16.
	FTZ Mod = 1 << iota
	// Sat (.sat) clamps the result to [+0.0, 1.0]; NaN becomes +0.0.
	Sat
	// Relu (.relu) clamps negative results (including -0.0) to +0.0; a NaN
	// result becomes the canonical NaN.
	Relu
	// SatFinite (.satfinite) turns a result whose magnitude exceeds the
	// largest finite value of the destination (including Inf) into the
	// largest finite value with the same sign; NaN stays NaN.
	SatFinite
	// NaN (.NaN on min/max) makes a NaN input produce the canonical NaN
	// instead of returning the other operand.
	NaN
	// XorSignAbs (.xorsign.abs on min/max) compares absolute values and
	// gives the result the XOR of the input signs.
	XorSignAbs
)

// Canonical NaN bit patterns produced by this package.
const (
	NaN32   uint32 = 0x7FFFFFFF
	NaN64   uint64 = 0x7FFFFFFFFFFFFFFF
	NaN16   uint16 = 0x7FFF // f16
	NaNBF16 uint16 = 0x7FFF // bf16
	NaNE4M3 uint8  = 0x7F
	NaNE5M2 uint8  = 0x7F
	// NaNTF32 is the result of converting a NaN to tf32: every tf32
	// fraction bit set, the 13 low bits (not part of tf32) clear.
	NaNTF32 uint32 = 0x7FFFE000
)

const (
	sign32 = 0x80000000
	sign64 = 0x8000000000000000
	sign16 = 0x8000
	one32  = 0x3F800000
)

func f32(x uint32) float32  { return math.Float32frombits(x) }
func b32(x float32) uint32  { return math.Float32bits(x) }
func f64(x uint64) float64  { return math.Float64frombits(x) }
func b64(x float64) uint64  { return math.Float64bits(x) }
func isNaN32(x uint32) bool { return x&0x7FFFFFFF > 0x7F800000 }
func isNaN64(x uint64) bool { return x&0x7FFFFFFFFFFFFFFF > 0x7FF0000000000000 }

// FlushF32 implements .ftz on one f32 operand: a subnormal value becomes a
// zero of the same sign; every other value is returned unchanged.
func FlushF32(x uint32) uint32 {
	if x&0x7F800000 == 0 {
		return x & sign32
	}
	return x
}

// FlushF16 implements .ftz on one f16 operand: a subnormal f16 becomes a
// zero of the same sign.
func FlushF16(h uint16) uint16 {
	if h&0x7C00 == 0 {
		return h & sign16
	}
	return h
}

// flushF64 flushes a subnormal f64 to a signed zero (used by the .ftz f64
// approximations).
func flushF64(x uint64) uint64 {
	if x&0x7FF0000000000000 == 0 {
		return x & sign64
	}
	return x
}

// Pack2 builds a packed pair (f16x2, bf16x2) from element 0 (low half) and
// element 1 (high half).
func Pack2(lo, hi uint16) uint32 { return uint32(lo) | uint32(hi)<<16 }

// Unpack2 splits a packed pair into element 0 (low half) and element 1
// (high half).
func Unpack2(x uint32) (lo, hi uint16) { return uint16(x), uint16(x >> 16) }
