package fpx

import (
	"math"
	"testing"
)

// Table tests with known bit patterns.

const (
	pInf32 = 0x7F800000
	nInf32 = 0xFF800000
	max32  = 0x7F7FFFFF
	nmax32 = 0xFF7FFFFF
	negz32 = 0x80000000
	qnan32 = 0x7FC00001 // a NaN with a payload
	pInf64 = 0x7FF0000000000000
	nInf64 = 0xFFF0000000000000
	max64  = 0x7FEFFFFFFFFFFFFF
	one64  = 0x3FF0000000000000
)

func fb(x float32) uint32 { return math.Float32bits(x) }
func db(x float64) uint64 { return math.Float64bits(x) }

func TestF32ArithTable(t *testing.T) {
	type op func(a, b uint32, r Rnd, ftz bool) uint32
	tests := []struct {
		name string
		f    op
		a, b uint32
		r    Rnd
		ftz  bool
		want uint32
	}{
		// ties and directed rounding
		{"1+2^-24 rn (tie to even)", AddF32, one32, 0x33800000, RN, false, one32},
		{"1+2^-24 rp", AddF32, one32, 0x33800000, RP, false, 0x3F800001},
		{"1+2^-24 rz", AddF32, one32, 0x33800000, RZ, false, one32},
		{"1+2^-24 rm", AddF32, one32, 0x33800000, RM, false, one32},
		{"(1+ulp)+2^-24 rn (tie to even, up)", AddF32, 0x3F800001, 0x33800000, RN, false, 0x3F800002},
		{"1-2^-25 rm", AddF32, one32, 0xB3000000, RM, false, 0x3F7FFFFF},
		{"1-2^-25 rz", AddF32, one32, 0xB3000000, RZ, false, 0x3F7FFFFF},
		{"1-2^-25 rp", AddF32, one32, 0xB3000000, RP, false, one32},
		{"1-2^-25 rn", AddF32, one32, 0xB3000000, RN, false, one32},
		{"-1-2^-24 rm", AddF32, 0xBF800000, 0xB3800000, RM, false, 0xBF800001},
		{"-1-2^-24 rp", AddF32, 0xBF800000, 0xB3800000, RP, false, 0xBF800000},
		// overflow per mode
		{"max+max rn", AddF32, max32, max32, RN, false, pInf32},
		{"max+max rz", AddF32, max32, max32, RZ, false, max32},
		{"max+max rm", AddF32, max32, max32, RM, false, max32},
		{"max+max rp", AddF32, max32, max32, RP, false, pInf32},
		{"-max-max rn", AddF32, nmax32, nmax32, RN, false, nInf32},
		{"-max-max rz", AddF32, nmax32, nmax32, RZ, false, nmax32},
		{"-max-max rm", AddF32, nmax32, nmax32, RM, false, nInf32},
		{"-max-max rp", AddF32, nmax32, nmax32, RP, false, nmax32},
		{"max*2 rz", MulF32, max32, 0x40000000, RZ, false, max32},
		{"max*-2 rm", MulF32, max32, 0xC0000000, RM, false, nInf32},
		{"max*-2 rp", MulF32, max32, 0xC0000000, RP, false, nmax32},
		{"max+1ulp/2 rp", AddF32, max32, 0x73000000, RP, false, pInf32},
		{"max+1ulp/2 rn (tie to even -> inf)", AddF32, max32, 0x73000000, RN, false, pInf32},
		{"max+1ulp/4 rn", AddF32, max32, 0x72800000, RN, false, max32},
		// signed zeros
		{"x-x rn", AddF32, 0x3FC00000, 0xBFC00000, RN, false, 0},
		{"x-x rz", AddF32, 0x3FC00000, 0xBFC00000, RZ, false, 0},
		{"x-x rp", AddF32, 0x3FC00000, 0xBFC00000, RP, false, 0},
		{"x-x rm", AddF32, 0x3FC00000, 0xBFC00000, RM, false, negz32},
		{"-0+-0", AddF32, negz32, negz32, RN, false, negz32},
		{"-0++0 rn", AddF32, negz32, 0, RN, false, 0},
		{"-0++0 rm", AddF32, negz32, 0, RM, false, negz32},
		{"-0-0 rn", SubF32, negz32, 0, RN, false, negz32},
		{"-1*0", MulF32, 0xBF800000, 0, RN, false, negz32},
		{"-1*0 rp", MulF32, 0xBF800000, 0, RP, false, negz32},
		// NaNs and invalid operations give the canonical NaN
		{"nan payload + 1", AddF32, qnan32, one32, RN, false, NaN32},
		{"1 + -nan", AddF32, one32, 0xFFC12345, RZ, false, NaN32},
		{"inf-inf", AddF32, pInf32, nInf32, RN, false, NaN32},
		{"inf-inf rp", AddF32, pInf32, nInf32, RP, false, NaN32},
		{"0*inf", MulF32, 0, pInf32, RN, false, NaN32},
		{"0*inf rm", MulF32, 0, pInf32, RM, false, NaN32},
		{"inf*-2", MulF32, pInf32, 0xC0000000, RZ, false, nInf32},
		{"inf+1 rz", AddF32, pInf32, one32, RZ, false, pInf32},
		// subnormals and ftz
		{"2^-126*0.5", MulF32, 0x00800000, 0x3F000000, RN, false, 0x00400000},
		{"2^-126*0.5 ftz", MulF32, 0x00800000, 0x3F000000, RN, true, 0},
		{"-2^-126*0.5 ftz", MulF32, 0x80800000, 0x3F000000, RN, true, negz32},
		{"minsub*0.5 rn (tie to even)", MulF32, 1, 0x3F000000, RN, false, 0},
		{"minsub*0.5 rp", MulF32, 1, 0x3F000000, RP, false, 1},
		{"minsub*0.5 rz", MulF32, 1, 0x3F000000, RZ, false, 0},
		{"-minsub*0.5 rm", MulF32, 0x80000001, 0x3F000000, RM, false, 0x80000001},
		{"-minsub*0.5 rn", MulF32, 0x80000001, 0x3F000000, RN, false, negz32},
		{"3*minsub*0.5 rn (tie to even, up)", MulF32, 3, 0x3F000000, RN, false, 2},
		{"sub+sub", AddF32, 0x00400000, 0x00400000, RN, false, 0x00800000},
		{"sub+sub ftz", AddF32, 0x00400000, 0x00400000, RN, true, 0},
		{"normal-normal -> subnormal", SubF32, 0x00800001, 0x00800000, RN, false, 1},
		{"normal-normal -> subnormal ftz", SubF32, 0x00800001, 0x00800000, RN, true, 0},
		{"1+sub ftz", AddF32, one32, 0x00000001, RP, true, one32},
		{"1+sub rp", AddF32, one32, 0x00000001, RP, false, 0x3F800001},
		// division
		{"1/3 rn", DivF32, one32, 0x40400000, RN, false, 0x3EAAAAAB},
		{"1/3 rz", DivF32, one32, 0x40400000, RZ, false, 0x3EAAAAAA},
		{"1/3 rm", DivF32, one32, 0x40400000, RM, false, 0x3EAAAAAA},
		{"1/3 rp", DivF32, one32, 0x40400000, RP, false, 0x3EAAAAAB},
		{"-1/3 rm", DivF32, 0xBF800000, 0x40400000, RM, false, 0xBEAAAAAB},
		{"-1/3 rz", DivF32, 0xBF800000, 0x40400000, RZ, false, 0xBEAAAAAA},
		{"2/3 rn", DivF32, 0x40000000, 0x40400000, RN, false, 0x3F2AAAAB},
		{"1/0", DivF32, one32, 0, RZ, false, pInf32},
		{"1/-0", DivF32, one32, negz32, RN, false, nInf32},
		{"0/0", DivF32, 0, 0, RN, false, NaN32},
		{"inf/inf", DivF32, pInf32, nInf32, RP, false, NaN32},
		{"1/inf", DivF32, one32, nInf32, RP, false, negz32},
		{"1/sub ftz", DivF32, one32, 1, RN, true, pInf32},
		{"max/0.5 rz", DivF32, max32, 0x3F000000, RZ, false, max32},
		{"max/0.5 rn", DivF32, max32, 0x3F000000, RN, false, pInf32},
		{"minsub/2 rp", DivF32, 1, 0x40000000, RP, false, 1},
		{"minsub/2 rn", DivF32, 1, 0x40000000, RN, false, 0},
		{"6/3 exact", DivF32, 0x40C00000, 0x40400000, RM, false, 0x40000000},
	}
	for _, tc := range tests {
		if got := tc.f(tc.a, tc.b, tc.r, tc.ftz); got != tc.want {
			t.Errorf("%s: got %#08x want %#08x", tc.name, got, tc.want)
		}
	}
}

func TestF32FmaSqrtTable(t *testing.T) {
	// (1+2^-23)^2 - (1+2^-22) = 2^-46 exactly: needs a single rounding.
	a := uint32(0x3F800001)
	c := uint32(0xBF800002)
	fmas := []struct {
		name    string
		a, b, c uint32
		r       Rnd
		ftz     bool
		want    uint32
	}{
		{"single rounding", a, a, c, RN, false, 0x28800000},
		{"single rounding rz", a, a, c, RZ, false, 0x28800000},
		{"1*1-1", one32, one32, 0xBF800000, RN, false, 0},
		{"1*1-1 rm", one32, one32, 0xBF800000, RM, false, negz32},
		{"-0*1 + -0", negz32, one32, negz32, RN, false, negz32},
		{"-0*1 + +0", negz32, one32, 0, RN, false, 0},
		{"-0*1 + +0 rm", negz32, one32, 0, RM, false, negz32},
		{"0*5 + x", 0, 0x40A00000, 0x3FC00000, RZ, false, 0x3FC00000},
		{"inf*0 + 1", pInf32, 0, one32, RN, false, NaN32},
		{"inf*1 - inf", pInf32, one32, nInf32, RN, false, NaN32},
		{"2*3 + inf", 0x40000000, 0x40400000, nInf32, RP, false, nInf32},
		{"nan", qnan32, one32, one32, RN, false, NaN32},
		{"max*2 - max rn (no intermediate overflow)", max32, 0x40000000, nmax32, RN, false, max32},
		{"max*max rz", max32, max32, 0, RZ, false, max32},
		{"max*max rn", max32, max32, 0, RN, false, pInf32},
		{"tiny product + sub", 0x00800000, 0x3F000000, 0x00000001, RN, false, 0x00400001},
		{"tiny product + sub ftz", 0x00800000, 0x3F000000, 0x00000001, RN, true, 0},
		{"1 + tiny*tiny rp", 0x20000000, 0x20000000, one32, RP, false, 0x3F800001},
		{"1 + tiny*tiny rn", 0x20000000, 0x20000000, one32, RN, false, one32},
		{"-1 + tiny*tiny rz", 0x20000000, 0x20000000, 0xBF800000, RZ, false, 0xBF7FFFFF},
		// (1+2^-23)*(1-2^-23) + (2^24+2) = 2^24+3-2^-46: the float64 sum
		// rounds to the f32 midpoint 2^24+3, the exact value is below it.
		{"midpoint double rounding", 0x3F800001, 0x3F7FFFFE, 0x4B800001, RN, false, 0x4B800001},
		{"midpoint double rounding rp", 0x3F800001, 0x3F7FFFFE, 0x4B800001, RP, false, 0x4B800002},
		{"above midpoint", 0x3F800001, 0x3F800001, 0xB4400000, RN, false, 0x3F800001},
	}
	for _, tc := range fmas {
		if got := FmaF32(tc.a, tc.b, tc.c, tc.r, tc.ftz); got != tc.want {
			t.Errorf("fma %s: got %#08x want %#08x", tc.name, got, tc.want)
		}
	}
	sq := []struct {
		a    uint32
		r    Rnd
		ftz  bool
		want uint32
	}{
		{0x40000000, RN, false, 0x3FB504F3},
		{0x40000000, RZ, false, 0x3FB504F3},
		{0x40000000, RM, false, 0x3FB504F3},
		{0x40000000, RP, false, 0x3FB504F4},
		{0x40800000, RP, false, 0x40000000},
		{negz32, RN, false, negz32},
		{negz32, RP, false, negz32},
		{0xBF800000, RN, false, NaN32},
		{nInf32, RZ, false, NaN32},
		{pInf32, RZ, false, pInf32},
		{qnan32, RN, false, NaN32},
		{0x00000001, RN, false, 0x1A3504F3},
		{0x00000001, RN, true, 0},
		{0x80000001, RN, true, negz32},
	}
	for _, tc := range sq {
		if got := SqrtF32(tc.a, tc.r, tc.ftz); got != tc.want {
			t.Errorf("sqrt(%#x) %v ftz=%v: got %#08x want %#08x", tc.a, tc.r, tc.ftz, got, tc.want)
		}
	}
	if got := RcpF32(0x40400000, RN, false); got != 0x3EAAAAAB {
		t.Errorf("rcp.rn(3) = %#x", got)
	}
	if got := RcpF32(0x40400000, RZ, false); got != 0x3EAAAAAA {
		t.Errorf("rcp.rz(3) = %#x", got)
	}
	if got := RcpF32(negz32, RZ, false); got != nInf32 {
		t.Errorf("rcp.rz(-0) = %#x", got)
	}
	// rcp of the largest subnormal is finite (2^126 scale) without ftz.
	if got := RcpF32(0x007FFFFF, RN, false); got != 0x7E800001 {
		t.Errorf("rcp.rn(max subnormal) = %#x", got)
	}
}

func TestSatNegAbsCopysign(t *testing.T) {
	sat := map[uint32]uint32{
		0x3F000000: 0x3F000000, one32: one32, 0x3F800001: one32, pInf32: one32,
		0xBF800000: 0, negz32: 0, nInf32: 0, NaN32: 0, 0xFFC00000: 0, 1: 1, 0: 0,
	}
	for in, want := range sat {
		if got := SatF32(in); got != want {
			t.Errorf("SatF32(%#x) = %#x want %#x", in, got, want)
		}
	}
	if got := SatF32(AddF32(0x3F400000, 0x3F400000, RN, false)); got != one32 {
		t.Errorf("add.sat(0.75,0.75) = %#x", got)
	}
	if SatF64(0xBFF0000000000000) != 0 || SatF64(NaN64) != 0 || SatF64(0x4000000000000000) != one64 || SatF64(0x3FE0000000000000) != 0x3FE0000000000000 {
		t.Error("SatF64")
	}
	if SatF16(0x4000) != 0x3C00 || SatF16(0xBC00) != 0 || SatF16(0x7E00) != 0 || SatF16(0x3800) != 0x3800 {
		t.Error("SatF16")
	}
	if SatBF16(0x4000) != 0x3F80 || SatBF16(0xBF80) != 0 || SatBF16(0x7FC0) != 0 || SatBF16(0x3F00) != 0x3F00 {
		t.Error("SatBF16")
	}
	if NegF32(one32, false) != 0xBF800000 || NegF32(0, false) != negz32 || NegF32(1, true) != negz32 || NegF32(qnan32, false) != 0xFFC00001 {
		t.Error("NegF32")
	}
	if AbsF32(0xBF800000, false) != one32 || AbsF32(0x80000001, true) != 0 || AbsF32(0x80000001, false) != 1 {
		t.Error("AbsF32")
	}
	if NegF64(one64) != 0xBFF0000000000000 || AbsF64(0xBFF0000000000000) != one64 {
		t.Error("NegF64/AbsF64")
	}
	if CopysignF32(negz32, one32) != 0xBF800000 || CopysignF32(0, 0xBF800000) != one32 {
		t.Error("CopysignF32")
	}
	if CopysignF64(sign64, one64) != 0xBFF0000000000000 {
		t.Error("CopysignF64")
	}
	if NegF16(0x3C00, false) != 0xBC00 || NegF16(0x0001, true) != 0x8000 || AbsF16(0x8001, true) != 0 || AbsF16(0xBC00, false) != 0x3C00 {
		t.Error("NegF16/AbsF16")
	}
	if NegF16x2(0x3C000001, true) != 0xBC008000 || AbsF16x2(0xBC008001, false) != 0x3C000001 {
		t.Error("f16x2 neg/abs")
	}
	if NegBF16(0x3F80) != 0xBF80 || AbsBF16(0xBF80) != 0x3F80 || NegBF16x2(0x3F80BF80) != 0xBF803F80 || AbsBF16x2(0xBF80BF80) != 0x3F803F80 {
		t.Error("bf16 neg/abs")
	}
}

func TestF64ArithTable(t *testing.T) {
	tiny := uint64(0x3CA0000000000000) // 2^-53
	tests := []struct {
		name string
		got  uint64
		want uint64
	}{
		{"1+2^-53 rn", AddF64(one64, tiny, RN), one64},
		{"1+2^-53 rp", AddF64(one64, tiny, RP), one64 + 1},
		{"1+2^-53 rz", AddF64(one64, tiny, RZ), one64},
		{"1-2^-54 rm", AddF64(one64, tiny^sign64-1<<52, RM), 0x3FEFFFFFFFFFFFFF},
		{"max+max rz", AddF64(max64, max64, RZ), max64},
		{"max+max rp", AddF64(max64, max64, RP), pInf64},
		{"-max-max rp", AddF64(max64|sign64, max64|sign64, RP), max64 | sign64},
		{"-max-max rm", AddF64(max64|sign64, max64|sign64, RM), nInf64},
		{"max*2 rz", MulF64(max64, 0x4000000000000000, RZ), max64},
		{"max*-2 rm", MulF64(max64, 0xC000000000000000, RM), nInf64},
		{"x-x rm", SubF64(one64, one64, RM), sign64},
		{"x-x rn", SubF64(one64, one64, RN), 0},
		{"1/3 rn", DivF64(one64, 0x4008000000000000, RN), 0x3FD5555555555555},
		{"1/3 rz", DivF64(one64, 0x4008000000000000, RZ), 0x3FD5555555555555},
		{"1/3 rp", DivF64(one64, 0x4008000000000000, RP), 0x3FD5555555555556},
		{"-1/3 rm", DivF64(one64|sign64, 0x4008000000000000, RM), 0xBFD5555555555556},
		{"rcp(3) rp", RcpF64(0x4008000000000000, RP), 0x3FD5555555555556},
		{"rcp(-0)", RcpF64(sign64, RZ), nInf64},
		{"sqrt(2) rn", SqrtF64(0x4000000000000000, RN), 0x3FF6A09E667F3BCD},
		{"sqrt(2) rz", SqrtF64(0x4000000000000000, RZ), 0x3FF6A09E667F3BCC},
		{"sqrt(2) rp", SqrtF64(0x4000000000000000, RP), 0x3FF6A09E667F3BCD},
		{"sqrt(-1) rp", SqrtF64(0xBFF0000000000000, RP), NaN64},
		{"sqrt(-0) rp", SqrtF64(sign64, RP), sign64},
		{"minsub*0.5 rp", MulF64(1, 0x3FE0000000000000, RP), 1},
		{"minsub*0.5 rn", MulF64(1, 0x3FE0000000000000, RN), 0},
		{"minsub*-0.5 rm", MulF64(1, 0xBFE0000000000000, RM), sign64 | 1},
		{"minsub/2 rp", DivF64(1, 0x4000000000000000, RP), 1},
		{"fma single rounding", FmaF64(one64+1, one64+1, 0xBFF0000000000002, RN), 0x3970000000000000},
		{"fma single rounding rz", FmaF64(one64+1, one64+1, 0xBFF0000000000002, RZ), 0x3970000000000000},
		{"fma 1*1-1 rm", FmaF64(one64, one64, 0xBFF0000000000000, RM), sign64},
		{"fma 1+tiny rp", FmaF64(0x2000000000000000, 0x2000000000000000, one64, RP), one64 + 1},
		{"fma -1+tiny rz", FmaF64(0x2000000000000000, 0x2000000000000000, 0xBFF0000000000000, RZ), 0xBFEFFFFFFFFFFFFF},
		{"fma inf*0", FmaF64(pInf64, 0, one64, RZ), NaN64},
		{"nan payload", AddF64(0x7FF8000000000123, one64, RN), 0x7FF8000000000123},
		{"nan payload rz", MulF64(0xFFF8000000000123, one64, RZ), 0xFFF8000000000123},
		{"inf-inf", AddF64(pInf64, nInf64, RN), NaN64},
	}
	for _, tc := range tests {
		if tc.got != tc.want {
			t.Errorf("%s: got %#016x want %#016x", tc.name, tc.got, tc.want)
		}
	}
}

func TestApproxTable(t *testing.T) {
	tests := []struct {
		name string
		got  uint32
		want uint32
	}{
		{"sin(pi/2)", SinApproxF32(0x3FC90FDB, false), one32},
		{"sin(0)", SinApproxF32(0, false), 0},
		{"sin(-0)", SinApproxF32(negz32, false), negz32},
		{"sin(inf)", SinApproxF32(pInf32, false), NaN32},
		{"sin(nan)", SinApproxF32(qnan32, false), NaN32},
		{"sin(sub)", SinApproxF32(5, false), 5},
		{"sin.ftz(sub)", SinApproxF32(0x80000005, true), negz32},
		{"cos(pi)", CosApproxF32(0x40490FDB, false), 0xBF800000},
		{"cos(0)", CosApproxF32(negz32, false), one32},
		{"cos(-inf)", CosApproxF32(nInf32, false), NaN32},
		{"lg2(512)", Lg2ApproxF32(fb(512), false), fb(9)},
		{"lg2(1)", Lg2ApproxF32(one32, false), 0},
		{"lg2(0.125)", Lg2ApproxF32(fb(0.125), false), fb(-3)},
		{"lg2(0)", Lg2ApproxF32(0, false), nInf32},
		{"lg2(-0)", Lg2ApproxF32(negz32, false), nInf32},
		{"lg2(-1)", Lg2ApproxF32(0xBF800000, false), NaN32},
		{"lg2(-inf)", Lg2ApproxF32(nInf32, false), NaN32},
		{"lg2(inf)", Lg2ApproxF32(pInf32, false), pInf32},
		{"lg2(minsub)", Lg2ApproxF32(1, false), fb(-149)},
		{"lg2.ftz(minsub)", Lg2ApproxF32(1, true), nInf32},
		{"ex2(10)", Ex2ApproxF32(fb(10), false), fb(1024)},
		{"ex2(-1)", Ex2ApproxF32(0xBF800000, false), 0x3F000000},
		{"ex2(0)", Ex2ApproxF32(negz32, false), one32},
		{"ex2(-inf)", Ex2ApproxF32(nInf32, false), 0},
		{"ex2(inf)", Ex2ApproxF32(pInf32, false), pInf32},
		{"ex2(128)", Ex2ApproxF32(fb(128), false), pInf32},
		{"ex2(-149)", Ex2ApproxF32(fb(-149), false), 1},
		{"ex2.ftz(-149)", Ex2ApproxF32(fb(-149), true), 0},
		{"ex2(nan)", Ex2ApproxF32(qnan32, false), NaN32},
		{"rcp(2)", RcpApproxF32(fb(2), false), fb(0.5)},
		{"rcp(0)", RcpApproxF32(0, false), pInf32},
		{"rcp(-0)", RcpApproxF32(negz32, false), nInf32},
		{"rcp(inf)", RcpApproxF32(pInf32, false), 0},
		{"rcp(-inf)", RcpApproxF32(nInf32, false), negz32},
		{"rcp.ftz(sub)", RcpApproxF32(0x80000010, true), nInf32},
		{"rcp(max)", RcpApproxF32(max32, false), 0x00200000},
		{"rcp.ftz(max)", RcpApproxF32(max32, true), 0},
		{"rsqrt(4)", RsqrtApproxF32(fb(4), false), fb(0.5)},
		{"rsqrt(0)", RsqrtApproxF32(0, false), pInf32},
		{"rsqrt(-0)", RsqrtApproxF32(negz32, false), nInf32},
		{"rsqrt(-1)", RsqrtApproxF32(0xBF800000, false), NaN32},
		{"rsqrt(inf)", RsqrtApproxF32(pInf32, false), 0},
		{"rsqrt(-inf)", RsqrtApproxF32(nInf32, false), NaN32},
		{"rsqrt.ftz(sub)", RsqrtApproxF32(3, true), pInf32},
		{"sqrt(4)", SqrtApproxF32(fb(4), false), fb(2)},
		{"sqrt(-0)", SqrtApproxF32(negz32, false), negz32},
		{"sqrt(-4)", SqrtApproxF32(fb(-4), false), NaN32},
		{"tanh(inf)", TanhApproxF32(pInf32, false), one32},
		{"tanh(-inf)", TanhApproxF32(nInf32, false), 0xBF800000},
		{"tanh(-0)", TanhApproxF32(negz32, false), negz32},
		{"tanh(nan)", TanhApproxF32(qnan32, false), NaN32},
		{"div.approx 6/3", DivApproxF32(fb(6), fb(3), false), fb(2)},
		{"div.approx 1/2^127", DivApproxF32(one32, 0x7F000000, false), 0},
		{"div.approx -1/2^127", DivApproxF32(0xBF800000, 0x7F000000, false), negz32},
		{"div.approx inf/2^127", DivApproxF32(pInf32, 0x7F000000, false), NaN32},
		{"div.approx 1/2^126", DivApproxF32(one32, 0x7E800000, false), 0x00800000},
		{"div.approx 1/0", DivApproxF32(one32, 0, false), pInf32},
		{"div.approx 0/0", DivApproxF32(0, 0, false), NaN32},
		{"div.approx inf/inf", DivApproxF32(pInf32, pInf32, false), NaN32},
		{"div.full 1/3", DivFullF32(one32, fb(3), false), 0x3EAAAAAB},
		{"div.full 1/2^127", DivFullF32(one32, 0x7F000000, false), 0x00400000},
		{"div.full.ftz 1/2^127", DivFullF32(one32, 0x7F000000, true), 0},
	}
	for _, tc := range tests {
		if tc.got != tc.want {
			t.Errorf("%s: got %#08x want %#08x", tc.name, tc.got, tc.want)
		}
	}
	t64 := []struct {
		name      string
		got, want uint64
	}{
		{"rsqrt.f64(0.25)", RsqrtApproxF64(db(0.25)), db(2)},
		{"rsqrt.f64(0)", RsqrtApproxF64(0), pInf64},
		{"rsqrt.f64(-0)", RsqrtApproxF64(sign64), nInf64},
		{"rsqrt.f64(-1)", RsqrtApproxF64(db(-1)), NaN64},
		{"rsqrt.f64(inf)", RsqrtApproxF64(pInf64), 0},
		{"rsqrt.f64(nan)", RsqrtApproxF64(0x7FF8000000000001), 0x7FF8000000000001},
		{"rsqrt.f64(minsub)", RsqrtApproxF64(1), db(math.Ldexp(1, 537))},
		{"rsqrt.ftz.f64(minsub)", RsqrtApproxFtzF64(1), pInf64},
		{"rcp.f64(4)", RcpApproxF64(db(4)), db(0.25)},
		{"rcp.f64(-0)", RcpApproxF64(sign64), nInf64},
		{"rcp.f64(inf)", RcpApproxF64(pInf64), 0},
		{"rcp.ftz.f64(4)", RcpApproxFtzF64(db(4)), db(0.25)},
		{"rcp.ftz.f64(sub)", RcpApproxFtzF64(sign64 | 5), nInf64},
		{"rcp.ftz.f64(max)", RcpApproxFtzF64(max64), 0},
		{"rcp.f64(max)", RcpApproxF64(max64), 0x0004000000000000},
		{"rcp.ftz.f64(nan)", RcpApproxFtzF64(0xFFF8000000000001), NaN64Hi},
	}
	for _, tc := range t64 {
		if tc.got != tc.want {
			t.Errorf("%s: got %#016x want %#016x", tc.name, tc.got, tc.want)
		}
	}
	t16 := []struct {
		name      string
		got, want uint16
	}{
		{"ex2.f16(10)", Ex2ApproxF16(0x4900), 0x6400},
		{"ex2.f16(-inf)", Ex2ApproxF16(0xFC00), 0},
		{"ex2.f16(16)", Ex2ApproxF16(0x4C00), 0x7C00},
		{"ex2.f16(-24)", Ex2ApproxF16(0xCE00), 0x0001},
		{"ex2.f16(nan)", Ex2ApproxF16(0x7C01), 0x7FFF},
		{"ex2.ftz.bf16(3)", Ex2ApproxBF16(0x4040), 0x4100},
		{"ex2.ftz.bf16(-inf)", Ex2ApproxBF16(0xFF80), 0},
		{"ex2.ftz.bf16(-130)", Ex2ApproxBF16(0xC302), 0},
		{"tanh.f16(inf)", TanhApproxF16(0x7C00), 0x3C00},
		{"tanh.f16(-inf)", TanhApproxF16(0xFC00), 0xBC00},
		{"tanh.f16(-0)", TanhApproxF16(0x8000), 0x8000},
		{"tanh.bf16(inf)", TanhApproxBF16(0x7F80), 0x3F80},
		{"tanh.bf16(nan)", TanhApproxBF16(0x7FC0), 0x7FFF},
	}
	for _, tc := range t16 {
		if tc.got != tc.want {
			t.Errorf("%s: got %#04x want %#04x", tc.name, tc.got, tc.want)
		}
	}
	if got := Ex2ApproxF16x2(0x49000000); got != 0x64003C00 {
		t.Errorf("ex2.f16x2 = %#x", got)
	}
	if got := TanhApproxF16x2(0xFC007C00); got != 0xBC003C00 {
		t.Errorf("tanh.f16x2 = %#x", got)
	}
	if got := TanhApproxBF16x2(0xFF807F80); got != 0xBF803F80 {
		t.Errorf("tanh.bf16x2 = %#x", got)
	}
	if got := Ex2ApproxBF16x2(0x3F800000); got != 0x40003F80 {
		t.Errorf("ex2.bf16x2 = %#x", got)
	}
}

// The approximations stay within the PTX ISA's stated error bounds.
func TestApproxBounds(t *testing.T) {
	rng := newRNG(t, 501)
	for i := 0; i < nRandom(100000); i++ {
		x := math.Float32frombits(uint32(randEnc(rng, rF32, true)))
		v := float64(x)
		if math.Abs(v) <= 100*math.Pi {
			if d := math.Abs(float64(f32(SinApproxF32(fb(x), false))) - math.Sin(v)); d > math.Exp2(-20.5) {
				t.Fatalf("sin(%g) error %g", x, d)
			}
			if d := math.Abs(float64(f32(CosApproxF32(fb(x), false))) - math.Cos(v)); d > math.Exp2(-20.5) {
				t.Fatalf("cos(%g) error %g", x, d)
			}
		}
		if v > 0 && !math.IsInf(v, 0) {
			want := math.Log2(v)
			got := float64(f32(Lg2ApproxF32(fb(x), false)))
			if d := math.Abs(got - want); d > 0x1p-22 && d > math.Abs(want)*0x1p-22 {
				t.Fatalf("lg2(%g) = %g want %g", x, got, want)
			}
			r := float64(f32(RsqrtApproxF32(fb(x), false)))
			if w := 1 / math.Sqrt(v); math.Abs(r-w) > w*0x1p-23 {
				t.Fatalf("rsqrt(%g) = %g want %g", x, r, w)
			}
		}
		if math.Abs(v) < 120 {
			w := math.Exp2(v)
			if g := float64(f32(Ex2ApproxF32(fb(x), false))); math.Abs(g-w) > w*0x1p-22 {
				t.Fatalf("ex2(%g) = %g want %g", x, g, w)
			}
		}
		w := math.Tanh(v)
		if g := float64(f32(TanhApproxF32(fb(x), false))); math.Abs(g-w) > math.Abs(w)*0x1p-11 {
			t.Fatalf("tanh(%g) = %g want %g", x, g, w)
		}
	}
}

func TestHalfArithTable(t *testing.T) {
	tests := []struct {
		name      string
		got, want uint16
	}{
		{"1+1", AddF16(0x3C00, 0x3C00, 0), 0x4000},
		{"1+1 sat", AddF16(0x3C00, 0x3C00, Sat), 0x3C00},
		{"-1+0.5 sat", AddF16(0xBC00, 0x3800, Sat), 0},
		{"nan sat", AddF16(0x7C00, 0xFC00, Sat), 0},
		{"inf-inf", AddF16(0x7C00, 0xFC00, 0), 0x7FFF},
		{"nan payload", MulF16(0x7E01, 0x3C00, 0), 0x7FFF},
		{"max+max", AddF16(0x7BFF, 0x7BFF, 0), 0x7C00},
		{"1+2^-11 (tie even)", AddF16(0x3C00, 0x1000, 0), 0x3C00},
		{"(1+2^-10)+2^-11 (tie even up)", AddF16(0x3C01, 0x1000, 0), 0x3C02},
		{"x-x", SubF16(0x4200, 0x4200, 0), 0},
		{"-0-0", SubF16(0x8000, 0x0000, 0), 0x8000},
		{"minsub*1", MulF16(0x0001, 0x3C00, 0), 0x0001},
		{"minsub*1 ftz", MulF16(0x0001, 0x3C00, FTZ), 0},
		{"2^-14*0.5 ftz", MulF16(0x0400, 0x3800, FTZ), 0},
		{"-2^-14*0.5 ftz", MulF16(0x8400, 0x3800, FTZ), 0x8000},
		{"2^-14*0.5", MulF16(0x0400, 0x3800, 0), 0x0200},
		// (1+2^-10)^2 - (1+2^-9) = 2^-20 needs the single rounding
		{"fma single rounding", FmaF16(0x3C01, 0x3C01, 0xBC02, 0), 0x0010},
		{"fma relu", FmaF16(0x3C00, 0xBC00, 0x3800, Relu), 0},
		{"fma relu pos", FmaF16(0x3C00, 0x3C00, 0x3800, Relu), 0x3E00},
		{"fma relu nan", FmaF16(0x7C00, 0x0000, 0x3800, Relu), 0x7FFF},
		{"fma sat", FmaF16(0x4000, 0x4000, 0x3800, Sat), 0x3C00},
		{"fma ftz", FmaF16(0x0400, 0x3800, 0x0000, FTZ), 0},
		{"bf16 1+1", AddBF16(0x3F80, 0x3F80, 0), 0x4000},
		{"bf16 1+2^-8 (tie even)", AddBF16(0x3F80, 0x3B80, 0), 0x3F80},
		{"bf16 1.0078125+2^-8 (tie even up)", AddBF16(0x3F81, 0x3B80, 0), 0x3F82},
		{"bf16 3-1", SubBF16(0x4040, 0x3F80, 0), 0x4000},
		{"bf16 max*2", MulBF16(0x7F7F, 0x4000, 0), 0x7F80},
		{"bf16 fma single rounding", FmaBF16(0x3F81, 0x3F81, 0xBF82, 0), 0x3880},
		{"bf16 fma relu", FmaBF16(0x3F80, 0xBF80, 0x3F00, Relu), 0},
		{"bf16 fma nan", FmaBF16(0x7FC1, 0x3F80, 0x3F00, 0), 0x7FFF},
		{"bf16 subnormal", MulBF16(0x0080, 0x3F00, 0), 0x0040},
	}
	for _, tc := range tests {
		if tc.got != tc.want {
			t.Errorf("%s: got %#04x want %#04x", tc.name, tc.got, tc.want)
		}
	}
	// packed: element 0 in the low half
	a := Pack2(0x3C00, 0x4000) // {1, 2}
	b := Pack2(0x4000, 0x4200) // {2, 3}
	if got := AddF16x2(a, b, 0); got != Pack2(0x4200, 0x4500) {
		t.Errorf("add.f16x2 = %#x", got)
	}
	if got := SubF16x2(a, b, 0); got != Pack2(0xBC00, 0xBC00) {
		t.Errorf("sub.f16x2 = %#x", got)
	}
	if got := MulF16x2(a, b, Sat); got != Pack2(0x3C00, 0x3C00) {
		t.Errorf("mul.sat.f16x2 = %#x", got)
	}
	if got := FmaF16x2(a, b, Pack2(0xC400, 0x3C00), Relu); got != Pack2(0, 0x4700) {
		t.Errorf("fma.relu.f16x2 = %#x", got)
	}
	ab := Pack2(0x3F80, 0x4000)
	bb := Pack2(0x4000, 0x4040)
	if got := AddBF16x2(ab, bb, 0); got != Pack2(0x4040, 0x40A0) {
		t.Errorf("add.bf16x2 = %#x", got)
	}
	if got := SubBF16x2(ab, bb, 0); got != Pack2(0xBF80, 0xBF80) {
		t.Errorf("sub.bf16x2 = %#x", got)
	}
	if got := MulBF16x2(ab, bb, 0); got != Pack2(0x4000, 0x40C0) {
		t.Errorf("mul.bf16x2 = %#x", got)
	}
	if got := FmaBF16x2(ab, bb, Pack2(0xC080, 0x3F80), Relu); got != Pack2(0, 0x40E0) {
		t.Errorf("fma.relu.bf16x2 = %#x", got)
	}
	lo, hi := Unpack2(0x12345678)
	if lo != 0x5678 || hi != 0x1234 {
		t.Error("Unpack2")
	}
}

func TestMinMaxTable(t *testing.T) {
	tests := []struct {
		name      string
		got, want uint32
	}{
		{"min(1,2)", MinF32(one32, fb(2), false), one32},
		{"max(1,2)", MaxF32(one32, fb(2), false), fb(2)},
		{"min(-1,2)", MinF32(fb(-1), fb(2), false), fb(-1)},
		{"max(-inf,3)", MaxF32(nInf32, fb(3), false), fb(3)},
		{"min(-inf,3)", MinF32(nInf32, fb(3), false), nInf32},
		{"min(1,nan)", MinF32(one32, qnan32, false), one32},
		{"min(nan,1)", MinF32(qnan32, one32, false), one32},
		{"max(nan,-1)", MaxF32(qnan32, fb(-1), false), fb(-1)},
		{"min(nan,nan)", MinF32(qnan32, 0xFFC00000, false), NaN32},
		{"min.NaN(1,nan)", MinNaNF32(one32, qnan32, false), NaN32},
		{"max.NaN(nan,1)", MaxNaNF32(qnan32, one32, false), NaN32},
		{"min.NaN(1,2)", MinNaNF32(one32, fb(2), false), one32},
		{"min(-0,+0)", MinF32(negz32, 0, false), negz32},
		{"min(+0,-0)", MinF32(0, negz32, false), negz32},
		{"max(-0,+0)", MaxF32(negz32, 0, false), 0},
		{"max(+0,-0)", MaxF32(0, negz32, false), 0},
		{"min(sub,0)", MinF32(1, 0, false), 0},
		{"min.ftz(sub,-0)", MinF32(1, negz32, true), negz32},
		{"max.ftz(sub,+0)", MaxF32(5, 0, true), 0},
		{"max.ftz(-sub,2^-126)", MaxF32(0x80000005, 0x00800000, true), 0x00800000},
		{"max.xorsign.abs(-3,2)", MaxXorSignAbsF32(fb(-3), fb(2), false, false), fb(-3)},
		{"min.xorsign.abs(-3,-2)", MinXorSignAbsF32(fb(-3), fb(-2), false, false), fb(2)},
		{"min.xorsign.abs(3,-2)", MinXorSignAbsF32(fb(3), fb(-2), false, false), fb(-2)},
		{"max.xorsign.abs(nan,-2)", MaxXorSignAbsF32(qnan32, fb(-2), false, false), fb(-2)},
		{"max.xorsign.abs(-nan,-2)", MaxXorSignAbsF32(0xFFC00000, fb(-2), false, false), fb(2)},
		{"max.NaN.xorsign.abs(nan,-2)", MaxXorSignAbsF32(qnan32, fb(-2), true, false), NaN32},
		{"min.xorsign.abs(nan,nan)", MinXorSignAbsF32(qnan32, qnan32, false, false), NaN32},
		{"MinMaxF32 max.NaN", MinMaxF32(one32, fb(2), true, NaN), fb(2)},
	}
	for _, tc := range tests {
		if tc.got != tc.want {
			t.Errorf("%s: got %#08x want %#08x", tc.name, tc.got, tc.want)
		}
	}
	t64 := []struct {
		name      string
		got, want uint64
	}{
		{"min(1,2)", MinF64(one64, db(2)), one64},
		{"max(1,2)", MaxF64(one64, db(2)), db(2)},
		{"min(nan,2)", MinF64(0x7FF8000000000001, db(2)), db(2)},
		{"max(nan,nan)", MaxF64(0x7FF8000000000001, 0x7FF8000000000002), NaN64},
		{"min(-0,0)", MinF64(0, sign64), sign64},
		{"max(-0,0)", MaxF64(sign64, 0), 0},
		{"max.NaN", MinMaxF64(one64, 0x7FF8000000000001, true, NaN), NaN64},
		{"min subnormals", MinF64(2, 1), 1},
	}
	for _, tc := range t64 {
		if tc.got != tc.want {
			t.Errorf("%s: got %#016x want %#016x", tc.name, tc.got, tc.want)
		}
	}
	t16 := []struct {
		name      string
		got, want uint16
	}{
		{"min.f16(1,nan)", MinF16(0x3C00, 0x7E00, 0), 0x3C00},
		{"min.f16(nan,nan)", MinF16(0x7E00, 0x7C01, 0), 0x7FFF},
		{"min.NaN.f16(1,nan)", MinF16(0x3C00, 0x7E00, NaN), 0x7FFF},
		{"max.f16(-0,0)", MaxF16(0x8000, 0, 0), 0},
		{"min.f16(-0,0)", MinF16(0, 0x8000, 0), 0x8000},
		{"min.f16(-2,1)", MinF16(0xC000, 0x3C00, 0), 0xC000},
		{"max.ftz.f16(sub,0)", MaxF16(0x0001, 0, FTZ), 0},
		{"max.xorsign.abs.f16(-3,2)", MaxF16(0xC200, 0x4000, XorSignAbs), 0xC200},
		{"min.bf16(1,nan)", MinBF16(0x3F80, 0x7FC0, 0), 0x3F80},
		{"max.bf16(1,2)", MaxBF16(0x3F80, 0x4000, 0), 0x4000},
		{"max.NaN.bf16(1,nan)", MaxBF16(0x3F80, 0xFFC0, NaN), 0x7FFF},
		{"min.xorsign.abs.bf16(-3,-2)", MinBF16(0xC040, 0xC000, XorSignAbs), 0x4000},
	}
	for _, tc := range t16 {
		if tc.got != tc.want {
			t.Errorf("%s: got %#04x want %#04x", tc.name, tc.got, tc.want)
		}
	}
	if got := MinF16x2(Pack2(0x3C00, 0x7E00), Pack2(0x4000, 0xC000), 0); got != Pack2(0x3C00, 0xC000) {
		t.Errorf("min.f16x2 = %#x", got)
	}
	if got := MaxF16x2(Pack2(0x3C00, 0x7E00), Pack2(0x4000, 0xC000), NaN); got != Pack2(0x4000, 0x7FFF) {
		t.Errorf("max.NaN.f16x2 = %#x", got)
	}
	if got := MinBF16x2(Pack2(0x3F80, 0x4000), Pack2(0x4000, 0x3F80), 0); got != Pack2(0x3F80, 0x3F80) {
		t.Errorf("min.bf16x2 = %#x", got)
	}
	if got := MaxBF16x2(Pack2(0x3F80, 0x4000), Pack2(0x4000, 0x3F80), 0); got != Pack2(0x4000, 0x4000) {
		t.Errorf("max.bf16x2 = %#x", got)
	}
}

func TestTestp(t *testing.T) {
	type row struct {
		x                                   uint32
		finite, inf, number, nan, norm, sub bool
	}
	rows := []row{
		// ±0 are normal: "As a special case, positive and negative zero
		// are considered normal numbers."
		{0, true, false, true, false, true, false},
		{negz32, true, false, true, false, true, false},
		{1, true, false, true, false, false, true},
		{0x807FFFFF, true, false, true, false, false, true},
		{0x00800000, true, false, true, false, true, false},
		{max32, true, false, true, false, true, false},
		{pInf32, false, true, true, false, false, false},
		{nInf32, false, true, true, false, false, false},
		{qnan32, false, false, false, true, false, false},
		{0xFF800001, false, false, false, true, false, false},
	}
	for _, r := range rows {
		want := []bool{r.finite, r.inf, r.number, r.nan, r.norm, r.sub}
		x64 := F32ToF64(r.x, false)
		if r.x&0x7F800000 == 0 && r.x&0x7FFFFF != 0 {
			x64 = uint64(r.x&sign32)<<32 | 1 // an f64 subnormal
		}
		for op := TestFinite; op <= TestSubnormal; op++ {
			if got := TestpF32(op, r.x); got != want[op] {
				t.Errorf("testp %d f32 %#x = %v", op, r.x, got)
			}
			if got := TestpF64(op, x64); got != want[op] {
				t.Errorf("testp %d f64 %#x = %v", op, x64, got)
			}
		}
	}
	if TestpF32(TestpOp(99), 0) {
		t.Error("unknown op")
	}
}

func TestRndString(t *testing.T) {
	if RN.String() != "rn" || RNA.String() != "rna" || Rnd(9).String() != "rnd?" {
		t.Error("Rnd.String")
	}
}
