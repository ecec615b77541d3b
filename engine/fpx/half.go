package fpx

// Half-precision arithmetic: add, sub, mul, fma, neg, abs on .f16, .f16x2,
// .bf16 and .bf16x2. PTX only has round-to-nearest-even for these (.rn,
// the default), so there is no rounding-mode argument. Each operation is
// computed exactly and rounded once (fma.rn.f16 is a single rounding of
// the exact a*b+c). Modifiers (Mod):
//
//   - FTZ: flush subnormal inputs and results to sign-preserving zero
//     (.ftz exists for f16 only; it is honoured for bf16 too if passed).
//   - Sat: clamp the result to [+0.0, 1.0]; NaN becomes +0.0 (add, sub,
//     mul, fma on f16).
//   - Relu: negative results become +0.0 and NaN the canonical NaN (fma).
//
// NaN results are NaN16 / NaNBF16 (0x7FFF). Packed x2 forms apply the
// scalar operation to each half independently.

const (
	opAdd = iota
	opSub
	opMul
)

// flushH flushes a subnormal f16/bf16 encoding of format f.
func flushH(f *format, h uint16) uint16 {
	if uint64(h)>>f.frac&(1<<f.ebits-1) == 0 {
		return h & sign16
	}
	return h
}

// halfPost finishes a soft result: NaN, FTZ, Sat and Relu.
func halfPost(f *format, z uint64, st status, m Mod) uint16 {
	if st == stNaN {
		if m&Sat != 0 {
			return 0
		}
		return 0x7FFF
	}
	h := uint16(z)
	if m&FTZ != 0 {
		h = flushH(f, h)
	}
	if m&(Sat|Relu) != 0 && h&sign16 != 0 {
		h = 0
	}
	if m&Sat != 0 && uint64(h) > f.oneMag() {
		h = uint16(f.oneMag())
	}
	return h
}

// halfBinSoft computes add/sub/mul with the exact soft-float core.
func halfBinSoft(f *format, op int, a, b uint16, m Mod) uint16 {
	ua, ub := unpack(f, uint64(a)), unpack(f, uint64(b))
	var z uint64
	var st status
	switch op {
	case opAdd:
		z, st = softAdd(f, ua, ub, RN)
	case opSub:
		ub.neg = !ub.neg
		z, st = softAdd(f, ua, ub, RN)
	default:
		z, st = softMul(f, ua, ub, RN)
	}
	return halfPost(f, z, st, m)
}

// halfToF64 widens an f16/bf16 encoding exactly (NaN -> a NaN).
func halfToF64(f *format, h uint16) float64 {
	if f == fmtF16 {
		return float64(f32(F16ToF32(h)))
	}
	return float64(f32(uint32(h) << 16))
}

// twoSumErr returns the rounding error of s = x + y: 0 when the float64
// addition was exact, NaN when an operand is infinite.
func twoSumErr(x, y, s float64) float64 {
	bv := s - x
	av := s - bv
	return (x - av) + (y - bv)
}

// halfBin computes add/sub/mul. The fast path evaluates in float64, where
// the product of two half values is always exact, and checks with TwoSum
// that the sum was exact; the single rounding to the half format is then
// done by round. Inexact float64 sums (exponents far apart) and infinite
// operands take the exact soft-float path.
func halfBin(f *format, op int, a, b uint16, m Mod) uint16 {
	if m&FTZ != 0 {
		a, b = flushH(f, a), flushH(f, b)
	}
	x, y := halfToF64(f, a), halfToF64(f, b)
	var s float64
	switch op {
	case opMul:
		s = x * y
	case opSub:
		y = -y
		fallthrough
	default:
		s = x + y
		if twoSumErr(x, y, s) != 0 {
			return halfBinSoft(f, op, a, b, m)
		}
	}
	z, st := packUnp(f, unpackF64v(s), RN)
	return halfPost(f, z, st, m)
}

// halfFMA computes a*b+c with a single rounding: the product is exact in
// float64; when the float64 sum is exact as well, rounding it is the single
// rounding, otherwise the exact soft-float FMA is used.
func halfFMA(f *format, a, b, c uint16, m Mod) uint16 {
	if m&FTZ != 0 {
		a, b, c = flushH(f, a), flushH(f, b), flushH(f, c)
	}
	x, y, w := halfToF64(f, a), halfToF64(f, b), halfToF64(f, c)
	p := float64(x * y)
	s := p + w
	if twoSumErr(p, w, s) != 0 {
		z, st := softFMA(f, unpack(f, uint64(a)), unpack(f, uint64(b)), unpack(f, uint64(c)), RN)
		return halfPost(f, z, st, m)
	}
	z, st := packUnp(f, unpackF64v(s), RN)
	return halfPost(f, z, st, m)
}

func x2Bin(f *format, op int, a, b uint32, m Mod) uint32 {
	return Pack2(halfBin(f, op, uint16(a), uint16(b), m), halfBin(f, op, uint16(a>>16), uint16(b>>16), m))
}

func x2FMA(f *format, a, b, c uint32, m Mod) uint32 {
	return Pack2(halfFMA(f, uint16(a), uint16(b), uint16(c), m), halfFMA(f, uint16(a>>16), uint16(b>>16), uint16(c>>16), m))
}

// AddF16 implements add{.rn}{.ftz}{.sat}.f16 d, a, b (Mod: FTZ, Sat).
func AddF16(a, b uint16, m Mod) uint16 { return halfBin(fmtF16, opAdd, a, b, m) }

// SubF16 implements sub{.rn}{.ftz}{.sat}.f16 d, a, b (Mod: FTZ, Sat).
func SubF16(a, b uint16, m Mod) uint16 { return halfBin(fmtF16, opSub, a, b, m) }

// MulF16 implements mul{.rn}{.ftz}{.sat}.f16 d, a, b (Mod: FTZ, Sat).
func MulF16(a, b uint16, m Mod) uint16 { return halfBin(fmtF16, opMul, a, b, m) }

// FmaF16 implements fma.rn{.ftz}{.sat|.relu}.f16 d, a, b, c: a single
// rounding of the exact a*b+c (Mod: FTZ, Sat, Relu).
func FmaF16(a, b, c uint16, m Mod) uint16 { return halfFMA(fmtF16, a, b, c, m) }

// AddF16x2 implements add{.rn}{.ftz}{.sat}.f16x2 d, a, b.
func AddF16x2(a, b uint32, m Mod) uint32 { return x2Bin(fmtF16, opAdd, a, b, m) }

// SubF16x2 implements sub{.rn}{.ftz}{.sat}.f16x2 d, a, b.
func SubF16x2(a, b uint32, m Mod) uint32 { return x2Bin(fmtF16, opSub, a, b, m) }

// MulF16x2 implements mul{.rn}{.ftz}{.sat}.f16x2 d, a, b.
func MulF16x2(a, b uint32, m Mod) uint32 { return x2Bin(fmtF16, opMul, a, b, m) }

// FmaF16x2 implements fma.rn{.ftz}{.sat|.relu}.f16x2 d, a, b, c.
func FmaF16x2(a, b, c uint32, m Mod) uint32 { return x2FMA(fmtF16, a, b, c, m) }

// AddBF16 implements add{.rn}.bf16 d, a, b (sm_90+).
func AddBF16(a, b uint16, m Mod) uint16 { return halfBin(fmtBF16, opAdd, a, b, m) }

// SubBF16 implements sub{.rn}.bf16 d, a, b (sm_90+).
func SubBF16(a, b uint16, m Mod) uint16 { return halfBin(fmtBF16, opSub, a, b, m) }

// MulBF16 implements mul{.rn}.bf16 d, a, b (sm_90+).
func MulBF16(a, b uint16, m Mod) uint16 { return halfBin(fmtBF16, opMul, a, b, m) }

// FmaBF16 implements fma.rn{.relu}.bf16 d, a, b, c: a single rounding of
// the exact a*b+c (Mod: Relu).
func FmaBF16(a, b, c uint16, m Mod) uint16 { return halfFMA(fmtBF16, a, b, c, m) }

// AddBF16x2 implements add{.rn}.bf16x2 d, a, b.
func AddBF16x2(a, b uint32, m Mod) uint32 { return x2Bin(fmtBF16, opAdd, a, b, m) }

// SubBF16x2 implements sub{.rn}.bf16x2 d, a, b.
func SubBF16x2(a, b uint32, m Mod) uint32 { return x2Bin(fmtBF16, opSub, a, b, m) }

// MulBF16x2 implements mul{.rn}.bf16x2 d, a, b.
func MulBF16x2(a, b uint32, m Mod) uint32 { return x2Bin(fmtBF16, opMul, a, b, m) }

// FmaBF16x2 implements fma.rn{.relu}.bf16x2 d, a, b, c.
func FmaBF16x2(a, b, c uint32, m Mod) uint32 { return x2FMA(fmtBF16, a, b, c, m) }

// NegF16 implements neg{.ftz}.f16: flips the sign bit (after flushing a
// subnormal input with ftz). NaNs keep their payload.
func NegF16(a uint16, ftz bool) uint16 {
	if ftz {
		a = FlushF16(a)
	}
	return a ^ sign16
}

// AbsF16 implements abs{.ftz}.f16: clears the sign bit.
func AbsF16(a uint16, ftz bool) uint16 {
	if ftz {
		a = FlushF16(a)
	}
	return a &^ sign16
}

// NegF16x2 implements neg{.ftz}.f16x2.
func NegF16x2(a uint32, ftz bool) uint32 {
	return Pack2(NegF16(uint16(a), ftz), NegF16(uint16(a>>16), ftz))
}

// AbsF16x2 implements abs{.ftz}.f16x2.
func AbsF16x2(a uint32, ftz bool) uint32 {
	return Pack2(AbsF16(uint16(a), ftz), AbsF16(uint16(a>>16), ftz))
}

// NegBF16 implements neg.bf16: flips the sign bit.
func NegBF16(a uint16) uint16 { return a ^ sign16 }

// AbsBF16 implements abs.bf16: clears the sign bit.
func AbsBF16(a uint16) uint16 { return a &^ sign16 }

// NegBF16x2 implements neg.bf16x2.
func NegBF16x2(a uint32) uint32 { return a ^ 0x80008000 }

// AbsBF16x2 implements abs.bf16x2.
func AbsBF16x2(a uint32) uint32 { return a &^ 0x80008000 }
