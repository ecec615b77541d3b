package fpx

import (
	"math/rand"
	"testing"
)

// Rows that pin down what the PTX ISA states for the floating-point
// instructions (chapter 9.7.3, "Floating-Point Instructions", and the
// family notes before it). Each row quotes the sentence, or the row of the
// special-value table, that determines its expected bits; a row fails when
// the implementation disagrees with the text.

type isaRow struct {
	instr string // the PTX instruction form
	isa   string // the ISA sentence or table row the row checks
	got   uint64
	want  uint64
}

func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

const (
	negNaNPay64 = 0xFFF0000000000123 // a negative signalling NaN with a payload
	posNaNPay64 = 0x7FF8000000000ABC // a positive quiet NaN with a payload
	minSub64    = 1
	nMinSub64   = sign64 | 1
	minSub32    = 1
	nMinSub32   = sign32 | 1
)

func checkISARows(t *testing.T, rows []isaRow) {
	t.Helper()
	for _, r := range rows {
		if r.got != r.want {
			t.Errorf("%s: got %#x, want %#x\n\tISA: %q", r.instr, r.got, r.want, r.isa)
		}
	}
}

func TestISATestp(t *testing.T) {
	const zeroNormal = "As a special case, positive and negative zero are considered normal numbers."
	checkISARows(t, []isaRow{
		{"testp.normal.f32 +0", zeroNormal, b2u(TestpF32(TestNormal, 0)), 1},
		{"testp.normal.f32 -0", zeroNormal, b2u(TestpF32(TestNormal, negz32)), 1},
		{"testp.normal.f64 +0", zeroNormal, b2u(TestpF64(TestNormal, 0)), 1},
		{"testp.normal.f64 -0", zeroNormal, b2u(TestpF64(TestNormal, sign64)), 1},
		{"testp.subnormal.f32 +0", zeroNormal, b2u(TestpF32(TestSubnormal, 0)), 0},
		{"testp.subnormal.f64 -0", zeroNormal, b2u(TestpF64(TestSubnormal, sign64)), 0},
		{"testp.subnormal.f32 minsub", "testp tests common properties of floating-point numbers (.subnormal)", b2u(TestpF32(TestSubnormal, nMinSub32)), 1},
		{"testp.normal.f64 minsub", "testp tests common properties of floating-point numbers (.normal)", b2u(TestpF64(TestNormal, minSub64)), 0},
		{"testp.normal.f32 +Inf", "testp tests common properties of floating-point numbers (.normal)", b2u(TestpF32(TestNormal, pInf32)), 0},
		{"testp.notanumber.f64 NaN", "testp.notanumber is true for NaN", b2u(TestpF64(TestNotANumber, negNaNPay64)), 1},
		{"testp.number.f32 -Inf", "testp.number is true for every non-NaN value", b2u(TestpF32(TestNumber, nInf32)), 1},
		{"testp.finite.f64 -Inf", "testp.finite is false for infinities", b2u(TestpF64(TestFinite, nInf64)), 0},
	})
}

func TestISAAbsNeg(t *testing.T) {
	const absNaN = "For abs.f64, NaN input is passed through unchanged."
	const absSub = "abs.f64 supports subnormal numbers."
	const absFtz = "abs.ftz.f32 flushes subnormal inputs and results to sign-preserving zero."
	const negFtz = "neg.ftz.f32 flushes subnormal inputs and results to sign-preserving zero."
	checkISARows(t, []isaRow{
		{"abs.f64 -NaN(payload)", absNaN, AbsF64(negNaNPay64), negNaNPay64},
		{"abs.f64 +NaN(payload)", absNaN, AbsF64(posNaNPay64), posNaNPay64},
		{"abs.f64 -NaN canonical", absNaN, AbsF64(0xFFFFFFFFFFFFFFFF), 0xFFFFFFFFFFFFFFFF},
		{"abs.f64 -minsub", absSub, AbsF64(nMinSub64), minSub64},
		{"abs.f64 -Inf", "d = |a|", AbsF64(nInf64), pInf64},
		{"abs.f64 -0", "d = |a|", AbsF64(sign64), 0},
		{"abs.ftz.f32 -minsub", absFtz, uint64(AbsF32(nMinSub32, true)), 0},
		{"abs.f32 -minsub", "abs.f32 supports subnormal numbers (without .ftz)", uint64(AbsF32(nMinSub32, false)), minSub32},
		{"neg.ftz.f32 +minsub", negFtz, uint64(NegF32(minSub32, true)), negz32},
		{"neg.f64 +minsub", "neg.f64 supports subnormal numbers.", NegF64(minSub64), nMinSub64},
		{"neg.f64 +0", "d = -a", NegF64(0), sign64},
	})
}

func TestISARcpRsqrtApproxFtzF64(t *testing.T) {
	const nanMap = "Input NaNs map to a canonical NaN with encoding 0x7fffffff00000000."
	const flush = "Subnormal inputs and results are flushed to sign-preserving zero."
	const upper = "tmp = a[63:32]; // upper word of a, 1.11.20 format"
	const lower = "d[31:0] = 0x00000000;"
	checkISARows(t, []isaRow{
		// rcp.approx.ftz.f64 special-value table.
		{"rcp.approx.ftz.f64 -Inf", "Input -Inf: result -0.0", RcpApproxFtzF64(nInf64), sign64},
		{"rcp.approx.ftz.f64 -subnormal", "Input -subnormal: result -Inf", RcpApproxFtzF64(nMinSub64), nInf64},
		{"rcp.approx.ftz.f64 -0", "Input -0.0: result -Inf", RcpApproxFtzF64(sign64), nInf64},
		{"rcp.approx.ftz.f64 +0", "Input +0.0: result +Inf", RcpApproxFtzF64(0), pInf64},
		{"rcp.approx.ftz.f64 +subnormal", "Input +subnormal: result +Inf", RcpApproxFtzF64(0x000FFFFFFFFFFFFF), pInf64},
		{"rcp.approx.ftz.f64 +Inf", "Input +Inf: result +0.0", RcpApproxFtzF64(pInf64), 0},
		{"rcp.approx.ftz.f64 -NaN(payload)", nanMap, RcpApproxFtzF64(negNaNPay64), NaN64Hi},
		{"rcp.approx.ftz.f64 +NaN(payload)", nanMap, RcpApproxFtzF64(posNaNPay64), NaN64Hi},
		{"rcp.approx.ftz.f64 NaN in low word only", nanMap, RcpApproxFtzF64(0x7FF0000000000001), NaN64Hi},
		{"rcp.approx.ftz.f64 max", flush, RcpApproxFtzF64(max64), 0},
		{"rcp.approx.ftz.f64 -max", flush, RcpApproxFtzF64(sign64 | max64), sign64},
		{"rcp.approx.ftz.f64 1+2^-40", upper, RcpApproxFtzF64(one64 | 1<<12), one64},
		{"rcp.approx.ftz.f64 3", lower, RcpApproxFtzF64(db(3)), 0x3FD5555500000000},
		{"rcp.approx.ftz.f64 -0.25", lower, RcpApproxFtzF64(db(-0.25)), db(-4)},
		// rsqrt.approx.ftz.f64 special-value table.
		{"rsqrt.approx.ftz.f64 -Inf", "Input -Inf: result NaN", RsqrtApproxFtzF64(nInf64), NaN64Hi},
		{"rsqrt.approx.ftz.f64 -1", "rsqrt of a negative number is NaN", RsqrtApproxFtzF64(db(-1)), NaN64Hi},
		{"rsqrt.approx.ftz.f64 -subnormal", "Input -subnormal: result -Inf", RsqrtApproxFtzF64(nMinSub64), nInf64},
		{"rsqrt.approx.ftz.f64 -0", "Input -0.0: result -Inf", RsqrtApproxFtzF64(sign64), nInf64},
		{"rsqrt.approx.ftz.f64 +0", "Input +0.0: result +Inf", RsqrtApproxFtzF64(0), pInf64},
		{"rsqrt.approx.ftz.f64 +subnormal", "Input +subnormal: result +Inf", RsqrtApproxFtzF64(minSub64), pInf64},
		{"rsqrt.approx.ftz.f64 +Inf", "Input +Inf: result +0.0", RsqrtApproxFtzF64(pInf64), 0},
		{"rsqrt.approx.ftz.f64 -NaN(payload)", nanMap, RsqrtApproxFtzF64(negNaNPay64), NaN64Hi},
		{"rsqrt.approx.ftz.f64 +NaN(payload)", nanMap, RsqrtApproxFtzF64(posNaNPay64), NaN64Hi},
		{"rsqrt.approx.ftz.f64 0.25", lower, RsqrtApproxFtzF64(db(0.25)), db(2)},
		{"rsqrt.approx.ftz.f64 3", lower, RsqrtApproxFtzF64(db(3)), 0x3FE279A700000000},
		{"rsqrt.approx.ftz.f64 4+2^-40", upper, RsqrtApproxFtzF64(db(4) | 1<<10), db(0.5)},
		// rsqrt.approx.f64 (no .ftz) keeps subnormals.
		{"rsqrt.approx.f64 minsub", "rsqrt.approx.f64 supports subnormal numbers.", RsqrtApproxF64(minSub64), 0x6180000000000000},
	})
}

// TestISAApproxFtzF64LowWord checks, over random operands of every class,
// the ISA's statement for rcp.approx.ftz.f64 and rsqrt.approx.ftz.f64 that
// the least significant 32 bits of the destination are zero, and that the
// result depends on the upper word of the operand only.
func TestISAApproxFtzF64LowWord(t *testing.T) {
	rng := rand.New(rand.NewSource(10))
	for i := 0; i < 200000; i++ {
		x := rng.Uint64()
		switch i % 4 {
		case 1:
			x &^= 0x7FF0000000000000 // subnormal or zero
		case 2:
			x |= 0x7FF0000000000000 // Inf or NaN
		}
		y := x ^ uint64(rng.Uint32()) // same upper word
		for _, f := range []struct {
			name string
			fn   func(uint64) uint64
		}{{"rcp.approx.ftz.f64", RcpApproxFtzF64}, {"rsqrt.approx.ftz.f64", RsqrtApproxFtzF64}} {
			d := f.fn(x)
			if d&0xFFFFFFFF != 0 {
				t.Fatalf("%s(%#x) = %#x: low word not zero (ISA: \"d[31:0] = 0x00000000;\")", f.name, x, d)
			}
			if isNaN64(d) && d != NaN64Hi {
				t.Fatalf("%s(%#x) = %#x: NaN not canonical", f.name, x, d)
			}
			if x&0x7FF0000000000000 != 0x7FF0000000000000 || x&0x000FFFFF00000000 != 0 {
				// Not a NaN whose payload lies in the low word only.
				if e := f.fn(y); e != d {
					t.Fatalf("%s: %#x -> %#x but %#x -> %#x (ISA: \"tmp = a[63:32]\")", f.name, x, d, y, e)
				}
			}
		}
	}
}

func TestISAApproxF32Tables(t *testing.T) {
	w := func(x uint32) uint64 { return uint64(x) }
	checkISARows(t, []isaRow{
		// rcp.approx.f32
		{"rcp.approx.f32 -Inf", "Input -Inf: result -0.0", w(RcpApproxF32(nInf32, false)), negz32},
		{"rcp.approx.f32 -0", "Input -0.0: result -Inf", w(RcpApproxF32(negz32, false)), nInf32},
		{"rcp.approx.f32 +0", "Input +0.0: result +Inf", w(RcpApproxF32(0, false)), pInf32},
		{"rcp.approx.f32 +Inf", "Input +Inf: result +0.0", w(RcpApproxF32(pInf32, false)), 0},
		{"rcp.approx.ftz.f32 -subnormal", "rcp.approx.ftz.f32 flushes subnormal inputs and results to sign-preserving zero.", w(RcpApproxF32(nMinSub32, true)), nInf32},
		{"rcp.approx.f32 NaN", "Input NaN: result NaN", w(RcpApproxF32(qnan32, false)), uint64(NaN32)},
		// sqrt.approx.f32
		{"sqrt.approx.f32 -Inf", "Input -Inf: result NaN", w(SqrtApproxF32(nInf32, false)), uint64(NaN32)},
		{"sqrt.approx.f32 -1", "Input -normal: result NaN", w(SqrtApproxF32(0xBF800000, false)), uint64(NaN32)},
		{"sqrt.approx.f32 -0", "Input -0.0: result -0.0", w(SqrtApproxF32(negz32, false)), negz32},
		{"sqrt.approx.f32 +0", "Input +0.0: result +0.0", w(SqrtApproxF32(0, false)), 0},
		{"sqrt.approx.f32 +Inf", "Input +Inf: result +Inf", w(SqrtApproxF32(pInf32, false)), pInf32},
		{"sqrt.approx.ftz.f32 -subnormal", "sqrt.ftz.f32 flushes subnormal inputs and results to sign-preserving zero.", w(SqrtApproxF32(nMinSub32, true)), negz32},
		// rsqrt.approx.f32
		{"rsqrt.approx.f32 -Inf", "Input -Inf: result NaN", w(RsqrtApproxF32(nInf32, false)), uint64(NaN32)},
		{"rsqrt.approx.f32 -1", "Input -normal: result NaN", w(RsqrtApproxF32(0xBF800000, false)), uint64(NaN32)},
		{"rsqrt.approx.f32 -0", "Input -0.0: result -Inf", w(RsqrtApproxF32(negz32, false)), nInf32},
		{"rsqrt.approx.f32 +0", "Input +0.0: result +Inf", w(RsqrtApproxF32(0, false)), pInf32},
		{"rsqrt.approx.f32 +Inf", "Input +Inf: result +0.0", w(RsqrtApproxF32(pInf32, false)), 0},
		{"rsqrt.approx.ftz.f32 +subnormal", "rsqrt.approx.ftz.f32 flushes subnormal inputs and results to sign-preserving zero.", w(RsqrtApproxF32(minSub32, true)), pInf32},
		// sin / cos
		{"sin.approx.f32 -Inf", "Input -Inf: result NaN", w(SinApproxF32(nInf32, false)), uint64(NaN32)},
		{"sin.approx.f32 -0", "Input -0.0: result -0.0", w(SinApproxF32(negz32, false)), negz32},
		{"sin.approx.f32 +0", "Input +0.0: result +0.0", w(SinApproxF32(0, false)), 0},
		{"sin.approx.f32 +Inf", "Input +Inf: result NaN", w(SinApproxF32(pInf32, false)), uint64(NaN32)},
		{"cos.approx.f32 -Inf", "Input -Inf: result NaN", w(CosApproxF32(nInf32, false)), uint64(NaN32)},
		{"cos.approx.f32 -0", "Input -0.0: result +1.0", w(CosApproxF32(negz32, false)), one32},
		{"cos.approx.f32 +0", "Input +0.0: result +1.0", w(CosApproxF32(0, false)), one32},
		{"cos.approx.f32 +Inf", "Input +Inf: result NaN", w(CosApproxF32(pInf32, false)), uint64(NaN32)},
		{"sin.approx.ftz.f32 -subnormal", "sin.approx.ftz.f32 flushes subnormal inputs and results to sign-preserving zero.", w(SinApproxF32(nMinSub32, true)), negz32},
		// lg2
		{"lg2.approx.f32 -Inf", "Input -Inf: result NaN", w(Lg2ApproxF32(nInf32, false)), uint64(NaN32)},
		{"lg2.approx.f32 -1", "Input -normal: result NaN", w(Lg2ApproxF32(0xBF800000, false)), uint64(NaN32)},
		{"lg2.approx.f32 -0", "Input -0.0: result -Inf", w(Lg2ApproxF32(negz32, false)), nInf32},
		{"lg2.approx.f32 +0", "Input +0.0: result -Inf", w(Lg2ApproxF32(0, false)), nInf32},
		{"lg2.approx.f32 +Inf", "Input +Inf: result +Inf", w(Lg2ApproxF32(pInf32, false)), pInf32},
		{"lg2.approx.ftz.f32 +subnormal", "lg2.approx.ftz.f32 flushes subnormal inputs and results to sign-preserving zero.", w(Lg2ApproxF32(minSub32, true)), nInf32},
		// ex2
		{"ex2.approx.f32 -Inf", "Input -Inf: result +0.0", w(Ex2ApproxF32(nInf32, false)), 0},
		{"ex2.approx.f32 -0", "Input -0.0: result +1.0", w(Ex2ApproxF32(negz32, false)), one32},
		{"ex2.approx.f32 +0", "Input +0.0: result +1.0", w(Ex2ApproxF32(0, false)), one32},
		{"ex2.approx.f32 +Inf", "Input +Inf: result +Inf", w(Ex2ApproxF32(pInf32, false)), pInf32},
		{"ex2.approx.ftz.f32 -140", "ex2.approx.ftz.f32 flushes subnormal inputs and results to sign-preserving zero.", w(Ex2ApproxF32(fb(-140), true)), 0},
		// tanh
		{"tanh.approx.f32 -Inf", "Input -Inf: result -1.0", w(TanhApproxF32(nInf32, false)), 0xBF800000},
		{"tanh.approx.f32 -0", "Input -0.0: result -0.0", w(TanhApproxF32(negz32, false)), negz32},
		{"tanh.approx.f32 +0", "Input +0.0: result +0.0", w(TanhApproxF32(0, false)), 0},
		{"tanh.approx.f32 +Inf", "Input +Inf: result +1.0", w(TanhApproxF32(pInf32, false)), one32},
		// div.approx
		{"div.approx.f32 1/2^127", "For 2^126 < |b| < 2^128, if a is infinity, div.approx.f32 returns NaN, otherwise it returns 0.", w(DivApproxF32(one32, 0x7F000000, false)), 0},
		{"div.approx.f32 Inf/2^127", "For 2^126 < |b| < 2^128, if a is infinity, div.approx.f32 returns NaN, otherwise it returns 0.", w(DivApproxF32(pInf32, 0x7F000000, false)), uint64(NaN32)},
		{"div.approx.f32 6/3", "d = a * (1/b)", w(DivApproxF32(fb(6), fb(3), false)), uint64(fb(2))},
	})
}

func TestISASatFtz(t *testing.T) {
	const sat = "Single-precision add, sub, mul, and mad support saturation of results to the range [0.0, 1.0], with NaNs being flushed to positive zero."
	const addFtz = "add.ftz.f32 flushes subnormal inputs and results to sign-preserving zero."
	const mulFtz = "mul.ftz.f32 flushes subnormal inputs and results to sign-preserving zero."
	const fmaFtz = "fma.ftz.f32 flushes subnormal inputs and results to sign-preserving zero."
	w := func(x uint32) uint64 { return uint64(x) }
	checkISARows(t, []isaRow{
		{"add.sat.f32 NaN", sat, w(SatF32(AddF32(qnan32, one32, RN, false))), 0},
		{"add.sat.f32 Inf-Inf", sat, w(SatF32(AddF32(pInf32, nInf32, RN, false))), 0},
		{"add.sat.f32 1+1", sat, w(SatF32(AddF32(one32, one32, RN, false))), one32},
		{"sub.sat.f32 0-1", sat, w(SatF32(SubF32(0, one32, RN, false))), 0},
		{"mul.sat.f32 -0*1", sat, w(SatF32(MulF32(negz32, one32, RN, false))), 0},
		{"mul.sat.f32 0.5*0.5", sat, w(SatF32(MulF32(fb(0.5), fb(0.5), RN, false))), uint64(fb(0.25))},
		{"mad.sat.f32 0*Inf+1", sat, w(SatF32(FmaF32(0, pInf32, one32, RN, false))), 0},
		{"add.ftz.f32 -minsub + -0", addFtz, w(AddF32(nMinSub32, negz32, RN, true)), negz32},
		{"add.ftz.f32 minsub + minsub", addFtz, w(AddF32(minSub32, minSub32, RN, true)), 0},
		{"add.f32 minsub + minsub", "add.f32 supports subnormal numbers (without .ftz)", w(AddF32(minSub32, minSub32, RN, false)), 2},
		{"mul.ftz.f32 2^-126 * -0.5", mulFtz, w(MulF32(0x00800000, fb(-0.5), RN, true)), negz32},
		{"mul.f32 2^-126 * 0.5", "mul.f32 supports subnormal numbers (without .ftz)", w(MulF32(0x00800000, fb(0.5), RN, false)), 0x00400000},
		{"fma.rn.ftz.f32 result", fmaFtz, w(FmaF32(0x00800000, fb(0.5), 0, RN, true)), 0},
		{"fma.rn.f64 subnormal", "fma.f64 supports subnormal numbers.", FmaF64(0x0010000000000000, db(0.5), 0, RN), 0x0008000000000000},
		{"add.rm.f64 x-x", "IEEE 754 rounding: an exact zero sum is -0 in .rm", AddF64(one64, one64|sign64, RM), sign64},
		{"add.rn.f32 x-x", "IEEE 754 rounding: an exact zero sum is +0 in .rn", w(AddF32(one32, one32|sign32, RN, false)), 0},
	})
}

func TestISAMinMax(t *testing.T) {
	const oneNaN = "If either a or b is NaN, the other input is returned (.NaN absent)."
	const bothNaN = "If both inputs are NaN, the result is canonical NaN."
	const nanMod = "If .NaN modifier is specified, the result is canonical NaN if either of the inputs is NaN."
	const zeros = "-0.0 is considered smaller than +0.0."
	w := func(x uint32) uint64 { return uint64(x) }
	checkISARows(t, []isaRow{
		{"min.f32 NaN,1", oneNaN, w(MinF32(qnan32, one32, false)), one32},
		{"max.f64 1,NaN", oneNaN, MaxF64(one64, negNaNPay64), one64},
		{"min.f32 NaN,NaN", bothNaN, w(MinF32(qnan32, 0xFFC00000, false)), uint64(NaN32)},
		{"max.f64 NaN,NaN", bothNaN, MaxF64(negNaNPay64, posNaNPay64), NaN64},
		{"min.NaN.f32 NaN,1", nanMod, w(MinNaNF32(qnan32, one32, false)), uint64(NaN32)},
		{"max.NaN.f32 1,NaN", nanMod, w(MaxNaNF32(one32, qnan32, false)), uint64(NaN32)},
		{"min.f32 +0,-0", zeros, w(MinF32(0, negz32, false)), negz32},
		{"max.f32 -0,+0", zeros, w(MaxF32(negz32, 0, false)), 0},
		{"min.f64 +0,-0", zeros, MinF64(0, sign64), sign64},
		{"min.ftz.f32 -minsub,+0", "min.ftz.f32 flushes subnormal inputs to sign-preserving zero.", w(MinF32(nMinSub32, 0, true)), negz32},
		{"max.xorsign.abs.f32 -2,3", "sign(d) = sign(a) XOR sign(b); d = max(|a|, |b|)", w(MaxXorSignAbsF32(fb(-2), fb(3), false, false)), uint64(fb(-3))},
	})
}

// TestISANaNPayloadF64 checks the family note of chapter 9.7.3: "NaN
// payloads are supported for double-precision instructions (except for
// rcp.approx.ftz.f64 and rsqrt.approx.ftz.f64, which maps input NaNs to a
// canonical NaN). Single-precision instructions return an unspecified
// NaN." The ISA does not say which payload wins when several operands are
// NaN; the rows pin the IEEE 754-2008 §6.2.3 rule as x86 SSE applies it
// (Intel SDM vol. 1, table 4-7): the first NaN operand, quieted.
func TestISANaNPayloadF64(t *testing.T) {
	const payload = "NaN payloads are supported for double-precision instructions"
	const first = "IEEE 754 §6.2.3 / Intel SDM table 4-7 (SSE): first NaN operand, an SNaN converted to a QNaN"
	const invalid = "IEEE 754 §7.2: an invalid operation without NaN operands delivers a quiet NaN (canonical)"
	const except = "except for rcp.approx.ftz.f64 and rsqrt.approx.ftz.f64, which maps input NaNs to a canonical NaN"
	const single = "Single-precision instructions return an unspecified NaN."
	negQ := uint64(negNaNPay64 | 1<<51) // the signalling NaN, quieted
	w := func(x uint32) uint64 { return uint64(x) }
	rows := []isaRow{
		{"rcp.approx.ftz.f64 NaN(payload)", except, RcpApproxFtzF64(posNaNPay64), NaN64Hi},
		{"rsqrt.approx.ftz.f64 NaN(payload)", except, RsqrtApproxFtzF64(negNaNPay64), NaN64Hi},
		{"add.rn.f32 NaN(payload)", single, w(AddF32(0x7FC01234, one32, RN, false)), uint64(NaN32)},
		{"mul.rz.f32 sNaN", single, w(MulF32(0xFF800001, one32, RZ, false)), uint64(NaN32)},
		{"fma.rn.f32 c=NaN(payload)", single, w(FmaF32(one32, one32, 0x7FC01234, RN, false)), uint64(NaN32)},
		{"add.rn.f64 Inf-Inf", invalid, AddF64(pInf64, nInf64, RN), NaN64},
		{"mul.rp.f64 0*Inf", invalid, MulF64(0, pInf64, RP), NaN64},
		{"div.rn.f64 0/0", invalid, DivF64(0, sign64, RN), NaN64},
		{"sqrt.rm.f64 -1", invalid, SqrtF64(db(-1), RM), NaN64},
		{"fma.rz.f64 Inf*0+1", invalid, FmaF64(nInf64, 0, one64, RZ), NaN64},
		{"rsqrt.approx.f64 -1", invalid, RsqrtApproxF64(db(-1)), NaN64},
	}
	for _, r := range allModes {
		m := "." + r.String() + ".f64 "
		rows = append(rows,
			isaRow{"add" + m + "qNaN(payload)+1", payload, AddF64(posNaNPay64, one64, r), posNaNPay64},
			isaRow{"add" + m + "1+sNaN(payload)", payload, AddF64(one64, negNaNPay64, r), negQ},
			isaRow{"add" + m + "Inf+qNaN", payload, AddF64(nInf64, posNaNPay64, r), posNaNPay64},
			isaRow{"sub" + m + "1-NaN keeps the NaN's sign", payload, SubF64(one64, negNaNPay64, r), negQ},
			isaRow{"sub" + m + "NaN-1", payload, SubF64(posNaNPay64, one64, r), posNaNPay64},
			isaRow{"mul" + m + "0*NaN", payload, MulF64(0, posNaNPay64, r), posNaNPay64},
			isaRow{"mul" + m + "sNaN*qNaN", first, MulF64(negNaNPay64, posNaNPay64, r), negQ},
			isaRow{"mul" + m + "qNaN*sNaN", first, MulF64(posNaNPay64, negNaNPay64, r), posNaNPay64},
			isaRow{"fma" + m + "1*1+NaN", payload, FmaF64(one64, one64, negNaNPay64, r), negQ},
			isaRow{"fma" + m + "Inf*0+NaN", payload, FmaF64(pInf64, 0, posNaNPay64, r), posNaNPay64},
			isaRow{"fma" + m + "a,NaN,NaN", first, FmaF64(one64, posNaNPay64, negNaNPay64, r), posNaNPay64},
			isaRow{"fma" + m + "NaN,1,NaN", first, FmaF64(negNaNPay64, one64, posNaNPay64, r), negQ},
			isaRow{"div" + m + "NaN/0", payload, DivF64(negNaNPay64, 0, r), negQ},
			isaRow{"div" + m + "0/NaN", payload, DivF64(0, posNaNPay64, r), posNaNPay64},
			isaRow{"div" + m + "qNaN/sNaN", first, DivF64(posNaNPay64, negNaNPay64, r), posNaNPay64},
			isaRow{"rcp" + m + "sNaN", payload, RcpF64(negNaNPay64, r), negQ},
			isaRow{"sqrt" + m + "-NaN", payload, SqrtF64(negNaNPay64, r), negQ},
		)
	}
	rows = append(rows,
		isaRow{"rsqrt.approx.f64 sNaN", payload, RsqrtApproxF64(negNaNPay64), negQ},
		isaRow{"rcp.approx.f64 (no .ftz) NaN", payload, RcpApproxF64(posNaNPay64), posNaNPay64},
	)
	checkISARows(t, rows)
}
