package fpx

import (
	"math"
	"math/big"
	"testing"
)

func TestConvertTable(t *testing.T) {
	t16 := []struct {
		name      string
		got, want uint16
	}{
		{"f16(1)", F32ToF16(one32, RN, 0), 0x3C00},
		{"f16(-2)", F32ToF16(fb(-2), RZ, 0), 0xC000},
		{"f16(65504)", F32ToF16(fb(65504), RN, 0), 0x7BFF},
		{"f16(65519) rn", F32ToF16(fb(65519), RN, 0), 0x7BFF},
		{"f16(65520) rn", F32ToF16(fb(65520), RN, 0), 0x7C00},
		{"f16(65520) rz", F32ToF16(fb(65520), RZ, 0), 0x7BFF},
		{"f16(1e10) rz", F32ToF16(fb(1e10), RZ, 0), 0x7BFF},
		{"f16(1e10) rm", F32ToF16(fb(1e10), RM, 0), 0x7BFF},
		{"f16(-1e10) rm", F32ToF16(fb(-1e10), RM, 0), 0xFC00},
		{"f16(-1e10) rp", F32ToF16(fb(-1e10), RP, 0), 0xFBFF},
		{"f16(1e10) satfinite", F32ToF16(fb(1e10), RN, SatFinite), 0x7BFF},
		{"f16(-1e10) satfinite", F32ToF16(fb(-1e10), RN, SatFinite), 0xFBFF},
		{"f16(inf) satfinite", F32ToF16(pInf32, RN, SatFinite), 0x7BFF},
		{"f16(-inf) satfinite", F32ToF16(nInf32, RZ, SatFinite), 0xFBFF},
		{"f16(inf) rz", F32ToF16(pInf32, RZ, 0), 0x7C00},
		{"f16(nan)", F32ToF16(qnan32, RN, 0), 0x7FFF},
		{"f16(nan) satfinite", F32ToF16(0xFFC00000, RN, SatFinite), 0x7FFF},
		{"f16(nan) relu", F32ToF16(0xFFC00000, RN, Relu), 0x7FFF},
		{"f16(-1) relu", F32ToF16(fb(-1), RN, Relu), 0},
		{"f16(-0) relu", F32ToF16(negz32, RN, Relu), 0},
		{"f16(-inf) relu satfinite", F32ToF16(nInf32, RN, Relu|SatFinite), 0},
		{"f16(2) relu", F32ToF16(fb(2), RN, Relu), 0x4000},
		{"f16(2) sat", F32ToF16(fb(2), RN, Sat), 0x3C00},
		{"f16(nan) sat", F32ToF16(qnan32, RN, Sat), 0},
		{"f16(2^-24)", F32ToF16(fb(0x1p-24), RN, 0), 0x0001},
		{"f16(2^-25) rn (tie even)", F32ToF16(fb(0x1p-25), RN, 0), 0},
		{"f16(2^-25) rp", F32ToF16(fb(0x1p-25), RP, 0), 0x0001},
		{"f16(-2^-25) rm", F32ToF16(fb(-0x1p-25), RM, 0), 0x8001},
		{"f16(-2^-25) rn", F32ToF16(fb(-0x1p-25), RN, 0), 0x8000},
		{"f16(3*2^-26) rn", F32ToF16(fb(3*0x1p-26), RN, 0), 0x0001},
		{"f16(3*2^-25) rn (tie even up)", F32ToF16(fb(3*0x1p-25), RN, 0), 0x0002},
		{"f16(1+2^-11) rn", F32ToF16(0x3F801000, RN, 0), 0x3C00},
		{"f16(1+2^-11+2^-23) rn", F32ToF16(0x3F801001, RN, 0), 0x3C01},
		{"f16(1+2^-11) rp", F32ToF16(0x3F801000, RP, 0), 0x3C01},
		{"f16(f32 minsub) rp", F32ToF16(1, RP, 0), 0x0001},
		{"f16(f32 minsub) rp ftz", F32ToF16(1, RP, FTZ), 0},
		{"f16(max f16 subnormal)", F32ToF16(fb(0x3FF*0x1p-24), RN, 0), 0x03FF},
		{"f16(2^-14-2^-25) rn -> min normal", F32ToF16(fb(0x1p-14-0x1p-25), RN, 0), 0x0400},
		{"bf16(1)", F32ToBF16(one32, RN, 0), 0x3F80},
		{"bf16 tie even down", F32ToBF16(0x3F808000, RN, 0), 0x3F80},
		{"bf16 tie even up", F32ToBF16(0x3F818000, RN, 0), 0x3F82},
		{"bf16 rz", F32ToBF16(0x3F81FFFF, RZ, 0), 0x3F81},
		{"bf16 rp", F32ToBF16(0x3F810001, RP, 0), 0x3F82},
		{"bf16 overflow rn", F32ToBF16(max32, RN, 0), 0x7F80},
		{"bf16 overflow rz", F32ToBF16(max32, RZ, 0), 0x7F7F},
		{"bf16 overflow satfinite", F32ToBF16(max32, RN, SatFinite), 0x7F7F},
		{"bf16 inf satfinite", F32ToBF16(nInf32, RN, SatFinite), 0xFF7F},
		{"bf16 nan", F32ToBF16(qnan32, RN, 0), 0x7FFF},
		{"bf16 relu", F32ToBF16(fb(-3), RZ, Relu), 0},
		{"bf16 subnormal", F32ToBF16(0x00018000, RN, 0), 0x0002},
		{"f64->f16 single rounding", F64ToF16(db(1+0x1p-11+0x1p-40), RN, 0), 0x3C01},
		{"f64->f16 big", F64ToF16(db(1e300), RZ, 0), 0x7BFF},
		{"f64->f16 tiny rp", F64ToF16(1, RP, 0), 0x0001},
		{"f64->bf16", F64ToBF16(db(3), RN, 0), 0x4040},
		{"f16->bf16", F16ToBF16(0x3C01, RN, 0), 0x3F80},
		{"f16->bf16 rp", F16ToBF16(0x3C01, RP, 0), 0x3F81},
		{"f16->bf16 subnormal", F16ToBF16(0x0001, RN, 0), 0x3380},
		{"f16->bf16 inf", F16ToBF16(0xFC00, RN, 0), 0xFF80},
		{"f16->bf16 nan", F16ToBF16(0x7C01, RN, 0), 0x7FFF},
		{"bf16->f16", BF16ToF16(0x3F80, RN, 0), 0x3C00},
		{"bf16->f16 overflow", BF16ToF16(0x4780, RN, 0), 0x7C00},
		{"bf16->f16 overflow rz", BF16ToF16(0x4780, RZ, 0), 0x7BFF},
		{"bf16->f16 overflow satfinite", BF16ToF16(0xC780, RN, SatFinite), 0xFBFF},
		{"bf16->f16 underflow rp", BF16ToF16(0x0001, RP, 0), 0x0001},
		{"bf16->f16 underflow rn", BF16ToF16(0x0001, RN, 0), 0},
	}
	for _, tc := range t16 {
		if tc.got != tc.want {
			t.Errorf("%s: got %#04x want %#04x", tc.name, tc.got, tc.want)
		}
	}
	t32 := []struct {
		name      string
		got, want uint32
	}{
		{"f16->f32 1", F16ToF32(0x3C00), one32},
		{"f16->f32 minsub", F16ToF32(0x0001), fb(0x1p-24)},
		{"f16->f32 -maxsub", F16ToF32(0x83FF), fb(-0x3FF * 0x1p-24)},
		{"f16->f32 -0", F16ToF32(0x8000), negz32},
		{"f16->f32 inf", F16ToF32(0xFC00), nInf32},
		{"f16->f32 nan", F16ToF32(0x7E01), NaN32},
		{"f16->f32 max", F16ToF32(0x7BFF), fb(65504)},
		{"bf16->f32", BF16ToF32(0xC040), fb(-3)},
		{"bf16->f32 nan", BF16ToF32(0xFFC1), NaN32},
		{"bf16->f32 inf", BF16ToF32(0x7F80), pInf32},
		{"tf32 rna tie away", F32ToTF32(0x3F801000, RNA, 0), 0x3F802000},
		{"tf32 rna -tie away", F32ToTF32(0xBF801000, RNA, 0), 0xBF802000},
		{"tf32 rn tie even", F32ToTF32(0x3F801000, RN, 0), 0x3F800000},
		{"tf32 rn tie even up", F32ToTF32(0x3F803000, RN, 0), 0x3F804000},
		{"tf32 rz", F32ToTF32(0x3F801FFF, RZ, 0), 0x3F800000},
		{"tf32 rna below tie", F32ToTF32(0x3F800FFF, RNA, 0), 0x3F800000},
		{"tf32 nan", F32ToTF32(qnan32, RNA, 0), NaNTF32},
		{"tf32 -nan relu", F32ToTF32(0xFFFFFFFF, RN, Relu), NaNTF32},
		{"tf32 inf", F32ToTF32(pInf32, RNA, 0), pInf32},
		{"tf32 inf satfinite", F32ToTF32(pInf32, RNA, SatFinite), 0x7F7FE000},
		{"tf32 -inf satfinite", F32ToTF32(nInf32, RN, SatFinite), 0xFF7FE000},
		{"tf32 overflow rna", F32ToTF32(0x7F7FF000, RNA, 0), pInf32},
		{"tf32 overflow rna satfinite", F32ToTF32(0x7F7FF000, RNA, SatFinite), 0x7F7FE000},
		{"tf32 max rz", F32ToTF32(max32, RZ, 0), 0x7F7FE000},
		{"tf32 relu", F32ToTF32(fb(-1.5), RNA, Relu), 0},
		{"tf32 subnormal rna", F32ToTF32(0x00001000, RNA, 0), 0x00002000},
		{"tf32 -0", F32ToTF32(negz32, RNA, 0), negz32},
		{"f64->f32 rn", F64ToF32(db(1.0/3), RN, false, false), 0x3EAAAAAB},
		{"f64->f32 rz", F64ToF32(db(1.0/3), RZ, false, false), 0x3EAAAAAA},
		{"f64->f32 rm neg", F64ToF32(db(-1.0/3), RM, false, false), 0xBEAAAAAB},
		{"f64->f32 overflow rn", F64ToF32(db(1e300), RN, false, false), pInf32},
		{"f64->f32 overflow rz", F64ToF32(db(1e300), RZ, false, false), max32},
		{"f64->f32 overflow rm", F64ToF32(db(-1e300), RP, false, false), nmax32},
		{"f64->f32 subnormal", F64ToF32(db(0x1p-140), RN, false, false), 0x00000200},
		{"f64->f32 subnormal ftz", F64ToF32(db(0x1p-140), RN, true, false), 0},
		{"f64->f32 tiny rp", F64ToF32(1, RP, false, false), 1},
		{"f64->f32 tiny rn", F64ToF32(1, RN, false, false), 0},
		{"f64->f32 sat", F64ToF32(db(1.5), RN, false, true), one32},
		{"f64->f32 sat nan", F64ToF32(NaN64, RN, false, true), 0},
		{"f64->f32 nan", F64ToF32(0xFFF8000000000001, RZ, false, false), NaN32},
		{"f64->f32 inf", F64ToF32(nInf64, RZ, false, false), nInf32},
		{"cvt.f32.f32 ftz", CvtF32F32(0x80000001, true, false), negz32},
		{"cvt.f32.f32 sat", CvtF32F32(fb(-2), false, true), 0},
		{"cvt.f32.f32 nan", CvtF32F32(qnan32, false, false), NaN32},
		{"cvt.f32.f32 nan sat", CvtF32F32(qnan32, false, true), 0},
		{"cvt.f32.f32", CvtF32F32(1, false, false), 1},
		{"f32x2->f16x2: a high, b low", F32x2ToF16x2(one32, fb(2), RN, 0), 0x3C004000},
		{"f32x2->bf16x2", F32x2ToBF16x2(one32, fb(2), RZ, 0), 0x3F804000},
		{"f32x2->f16x2 relu", F32x2ToF16x2(fb(-1), fb(2), RN, Relu), 0x00004000},
	}
	for _, tc := range t32 {
		if tc.got != tc.want {
			t.Errorf("%s: got %#08x want %#08x", tc.name, tc.got, tc.want)
		}
	}
	t64 := []struct {
		name      string
		got, want uint64
	}{
		{"f32->f64", F32ToF64(fb(1.5), false), db(1.5)},
		{"f32->f64 subnormal", F32ToF64(1, false), db(0x1p-149)},
		{"f32->f64 subnormal ftz", F32ToF64(0x80000001, true), sign64},
		{"f32->f64 nan", F32ToF64(qnan32, false), NaN64},
		{"f32->f64 inf", F32ToF64(nInf32, false), nInf64},
		{"f16->f64", F16ToF64(0xC200), db(-3)},
		{"f16->f64 nan", F16ToF64(0xFE00), NaN64},
		{"bf16->f64", BF16ToF64(0x3F80), one64},
	}
	for _, tc := range t64 {
		if tc.got != tc.want {
			t.Errorf("%s: got %#016x want %#016x", tc.name, tc.got, tc.want)
		}
	}
}

func TestFP8Table(t *testing.T) {
	t8 := []struct {
		name      string
		got, want uint8
	}{
		{"e4m3(1)", F32ToE4M3(one32, true, false), 0x38},
		{"e4m3(-1)", F32ToE4M3(fb(-1), true, false), 0xB8},
		{"e4m3(448)", F32ToE4M3(fb(448), true, false), 0x7E},
		{"e4m3(464) tie even", F32ToE4M3(fb(464), false, false), 0x7E},
		{"e4m3(465) satfinite", F32ToE4M3(fb(465), true, false), 0x7E},
		{"e4m3(465) no sat", F32ToE4M3(fb(465), false, false), 0x7F},
		{"e4m3(-1000) satfinite", F32ToE4M3(fb(-1000), true, false), 0xFE},
		{"e4m3(-1000) no sat", F32ToE4M3(fb(-1000), false, false), 0xFF},
		{"e4m3(inf) satfinite", F32ToE4M3(pInf32, true, false), 0x7E},
		{"e4m3(-inf) satfinite", F32ToE4M3(nInf32, true, false), 0xFE},
		{"e4m3(inf) no sat", F32ToE4M3(pInf32, false, false), 0x7F},
		{"e4m3(nan)", F32ToE4M3(0xFFC00000, true, false), 0x7F},
		{"e4m3(nan) relu", F32ToE4M3(qnan32, true, true), 0x7F},
		{"e4m3(-2) relu", F32ToE4M3(fb(-2), true, true), 0},
		{"e4m3(-inf) relu", F32ToE4M3(nInf32, true, true), 0},
		{"e4m3(256)", F32ToE4M3(fb(256), true, false), 0x78},
		{"e4m3(2^-9)", F32ToE4M3(fb(0x1p-9), true, false), 0x01},
		{"e4m3(2^-10) tie even", F32ToE4M3(fb(0x1p-10), true, false), 0},
		{"e4m3(1.5*2^-10)", F32ToE4M3(fb(1.5*0x1p-10), true, false), 0x01},
		{"e4m3(-2^-12)", F32ToE4M3(fb(-0x1p-12), true, false), 0x80},
		{"e4m3(1.0625) tie even", F32ToE4M3(fb(1.0625), true, false), 0x38},
		{"e4m3(1.1875) tie even up", F32ToE4M3(fb(1.1875), true, false), 0x3A},
		{"e4m3(2^-6) min normal", F32ToE4M3(fb(0x1p-6), true, false), 0x08},
		{"e5m2(1)", F32ToE5M2(one32, true, false), 0x3C},
		{"e5m2(57344)", F32ToE5M2(fb(57344), true, false), 0x7B},
		{"e5m2(61440) tie -> inf", F32ToE5M2(fb(61440), false, false), 0x7C},
		{"e5m2(61440) satfinite", F32ToE5M2(fb(61440), true, false), 0x7B},
		{"e5m2(61439)", F32ToE5M2(fb(61439), false, false), 0x7B},
		{"e5m2(inf)", F32ToE5M2(pInf32, false, false), 0x7C},
		{"e5m2(-inf) satfinite", F32ToE5M2(nInf32, true, false), 0xFB},
		{"e5m2(nan)", F32ToE5M2(qnan32, true, false), 0x7F},
		{"e5m2(-3) relu", F32ToE5M2(fb(-3), true, true), 0},
		{"e5m2(2^-16)", F32ToE5M2(fb(0x1p-16), true, false), 0x01},
		{"e5m2(2^-17) tie even", F32ToE5M2(fb(0x1p-17), true, false), 0},
		{"f16->e4m3", F16ToE4M3(0x3C00, true, false), 0x38},
		{"f16->e4m3 inf", F16ToE4M3(0x7C00, true, false), 0x7E},
		{"f16->e4m3 max", F16ToE4M3(0x7BFF, false, false), 0x7F},
		{"f16->e5m2", F16ToE5M2(0x3C00, true, false), 0x3C},
		{"f16->e5m2 rounds", F16ToE5M2(0x3C80, true, false), 0x3C},
		{"f16->e5m2 rounds up", F16ToE5M2(0x3C81, true, false), 0x3D},
		{"f16->e5m2 max satfinite", F16ToE5M2(0x7BFF, true, false), 0x7B},
		{"f16->e5m2 max", F16ToE5M2(0x7BFF, false, false), 0x7C},
	}
	for _, tc := range t8 {
		if tc.got != tc.want {
			t.Errorf("%s: got %#02x want %#02x", tc.name, tc.got, tc.want)
		}
	}
	tp := []struct {
		name      string
		got, want uint32
	}{
		{"e4m3x2.f32 a high", uint32(F32x2ToE4M3x2(one32, fb(2), true, false)), 0x3840},
		{"e5m2x2.f32 a high", uint32(F32x2ToE5M2x2(one32, fb(-2), true, false)), 0x3CC0},
		{"e4m3x2.f16x2 high->high", uint32(F16x2ToE4M3x2(Pack2(0x4000, 0x3C00), true, false)), 0x3840},
		{"e5m2x2.f16x2 relu", uint32(F16x2ToE5M2x2(Pack2(0xC000, 0x3C00), true, true)), 0x3C00},
		{"f16x2.e4m3x2", E4M3x2ToF16x2(0x3840, false), 0x3C004000},
		{"f16x2.e4m3x2 relu", E4M3x2ToF16x2(0xB840, true), 0x00004000},
		{"f16x2.e4m3x2 nan", E4M3x2ToF16x2(0x7FFF, false), 0x7FFF7FFF},
		{"f16x2.e5m2x2", E5M2x2ToF16x2(0x3CC0, false), 0x3C00C000},
		{"f16x2.e5m2x2 relu nan", E5M2x2ToF16x2(0xFDC0, true), 0x7FFF0000},
	}
	for _, tc := range tp {
		if tc.got != tc.want {
			t.Errorf("%s: got %#08x want %#08x", tc.name, tc.got, tc.want)
		}
	}
	if E4M3ToF16(0x7E) != 0x5F00 || E4M3ToF16(0x01) != 0x1800 || E4M3ToF16(0xFF) != 0x7FFF || E4M3ToF16(0x80) != 0x8000 || E4M3ToF16(0x78) != 0x5C00 {
		t.Error("E4M3ToF16")
	}
	if E5M2ToF16(0x7C) != 0x7C00 || E5M2ToF16(0xFD) != 0x7FFF || E5M2ToF16(0x01) != 0x0100 {
		t.Error("E5M2ToF16")
	}
}

// Exhaustive checks over the small formats.
func TestConvertExhaustive(t *testing.T) {
	l := &failLog{t: t, name: "exhaustive"}
	// every f16 -> f32 (against the big decoder), -> f64, and back in every mode
	for h := 0; h < 1<<16; h++ {
		h16 := uint16(h)
		x := F16ToF32(h16)
		if rF16.isNaN(uint64(h)) {
			l.check(uint64(x), uint64(NaN32), "f16->f32 %#x", h)
			continue
		}
		want := float32(rF16.toF64(uint64(h)))
		l.check(uint64(x), uint64(fb(want)), "f16->f32 %#x", h)
		l.check(F16ToF64(h16), db(float64(want)), "f16->f64 %#x", h)
		for _, r := range allModes {
			l.check(uint64(F32ToF16(x, r, 0)), uint64(h), "f16 roundtrip %#x %v", h, r)
			l.check(uint64(F64ToF16(F16ToF64(h16), r, 0)), uint64(h), "f16 roundtrip64 %#x %v", h, r)
		}
		b := BF16ToF32(h16)
		if !rBF16.isNaN(uint64(h)) {
			l.check(uint64(b), uint64(h)<<16, "bf16->f32 %#x", h)
			l.check(uint64(F32ToBF16(b, RZ, 0)), uint64(h), "bf16 roundtrip %#x", h)
		}
	}
	// f16 <-> bf16 in every mode, f16 -> fp8 with every modifier
	for h := 0; h < 1<<16; h++ {
		for _, r := range allModes {
			l.check(uint64(F16ToBF16(uint16(h), r, 0)), refConvert(rF16, rBF16, uint64(h), r, 0, 0x7FFF), "f16->bf16 %#x %v", h, r)
			l.check(uint64(BF16ToF16(uint16(h), r, 0)), refConvert(rBF16, rF16, uint64(h), r, 0, 0x7FFF), "bf16->f16 %#x %v", h, r)
		}
		for _, sf := range []bool{false, true} {
			for _, relu := range []bool{false, true} {
				m := f8mods(sf, relu)
				l.check(uint64(F16ToE4M3(uint16(h), sf, relu)), refConvert(rF16, rE4M3, uint64(h), RN, m, 0x7F), "f16->e4m3 %#x %v", h, m)
				l.check(uint64(F16ToE5M2(uint16(h), sf, relu)), refConvert(rF16, rE5M2, uint64(h), RN, m, 0x7F), "f16->e5m2 %#x %v", h, m)
			}
		}
	}
	// every fp8 value widens exactly and converts back to itself
	for b := 0; b < 256; b++ {
		h4 := E4M3ToF16(uint8(b))
		if rE4M3.isNaN(uint64(b)) {
			l.check(uint64(h4), 0x7FFF, "e4m3 nan %#x", b)
		} else {
			l.check(uint64(F16ToF32(h4)), uint64(fb(float32(rE4M3.toF64(uint64(b))))), "e4m3->f16 %#x", b)
			l.check(uint64(F16ToE4M3(h4, false, false)), uint64(b), "e4m3 roundtrip %#x", b)
			l.check(uint64(F32ToE4M3(F16ToF32(h4), true, false)), uint64(b), "e4m3 roundtrip32 %#x", b)
		}
		h5 := E5M2ToF16(uint8(b))
		if rE5M2.isNaN(uint64(b)) {
			l.check(uint64(h5), 0x7FFF, "e5m2 nan %#x", b)
		} else {
			l.check(uint64(h5), uint64(b)<<8, "e5m2->f16 %#x", b)
			l.check(uint64(F16ToE5M2(h5, false, false)), uint64(b), "e5m2 roundtrip %#x", b)
			l.check(uint64(F32ToE5M2(F16ToF32(h5), false, false)), uint64(b), "e5m2 roundtrip32 %#x", b)
		}
	}
	l.done()
}

func TestIntConvertTable(t *testing.T) {
	t32 := []struct {
		name      string
		got, want uint32
	}{
		{"u64 max rz", IntToF32(^uint64(0), 64, false, RZ), 0x5F7FFFFF},
		{"u64 max rn", IntToF32(^uint64(0), 64, false, RN), 0x5F800000},
		{"u64 max rm", IntToF32(^uint64(0), 64, false, RM), 0x5F7FFFFF},
		{"s32 -1", IntToF32(0xFFFFFFFF, 32, true, RN), 0xBF800000},
		{"s32 -1 (sign-extended register)", IntToF32(^uint64(0), 32, true, RN), 0xBF800000},
		{"u32 0xFFFFFFFF", IntToF32(0xFFFFFFFF, 32, false, RZ), 0x4F7FFFFF},
		{"2^24+1 rn (tie even)", IntToF32(1<<24+1, 32, false, RN), 0x4B800000},
		{"2^24+1 rp", IntToF32(1<<24+1, 32, false, RP), 0x4B800001},
		{"2^24+3 rn (tie even up)", IntToF32(1<<24+3, 32, false, RN), 0x4B800002},
		{"-(2^24+1) rm", IntToF32(negU64(1<<24+1), 64, true, RM), 0xCB800001},
		{"-(2^24+1) rz", IntToF32(negU64(1<<24+1), 64, true, RZ), 0xCB800000},
		{"s8 0xFF = -1", IntToF32(0x1FF, 8, true, RN), 0xBF800000},
		{"u8 0xFF", IntToF32(0x1FF, 8, false, RN), fb(255)},
		{"s16 -32768", IntToF32(0x8000, 16, true, RN), fb(-32768)},
		{"s64 min", IntToF32(1<<63, 64, true, RN), 0xDF000000},
		{"0", IntToF32(0, 32, true, RM), 0},
	}
	for _, tc := range t32 {
		if tc.got != tc.want {
			t.Errorf("%s: got %#08x want %#08x", tc.name, tc.got, tc.want)
		}
	}
	if got := IntToF64(1<<63|1, 64, false, RN); got != 0x43E0000000000000 {
		t.Errorf("u64 2^63+1 rn -> f64: %#x", got)
	}
	if got := IntToF64(1<<63|1, 64, false, RP); got != 0x43E0000000000001 {
		t.Errorf("u64 2^63+1 rp -> f64: %#x", got)
	}
	if got := IntToF64(uint64(math.MaxUint32), 32, true, RN); got != db(-1) {
		t.Errorf("s32 -1 -> f64: %#x", got)
	}
	if got := IntToF16(65535, 16, false, RN); got != 0x7C00 {
		t.Errorf("u16 65535 -> f16 rn: %#x", got)
	}
	if got := IntToF16(65535, 16, false, RZ); got != 0x7BFF {
		t.Errorf("u16 65535 -> f16 rz: %#x", got)
	}
	if got := IntToF16(2049, 32, false, RN); got != 0x6800 {
		t.Errorf("2049 -> f16 rn: %#x", got)
	}
	if got := IntToF16(0xFFFE, 16, true, RN); got != 0xC000 {
		t.Errorf("s16 -2 -> f16: %#x", got)
	}
	if got := IntToBF16(257, 32, false, RN); got != 0x4380 {
		t.Errorf("257 -> bf16 rn: %#x", got)
	}
	if got := IntToBF16(257, 32, false, RP); got != 0x4381 {
		t.Errorf("257 -> bf16 rp: %#x", got)
	}

	ti := []struct {
		name      string
		got, want uint64
	}{
		{"rni 2.5", F32ToInt(fb(2.5), 32, true, RN, false, false), 2},
		{"rni 3.5", F32ToInt(fb(3.5), 32, true, RN, false, false), 4},
		{"rni -2.5", F32ToInt(fb(-2.5), 32, true, RN, false, false), 0xFFFFFFFE},
		{"rzi -2.7", F32ToInt(fb(-2.7), 32, true, RZ, false, false), 0xFFFFFFFE},
		{"rmi -2.1", F32ToInt(fb(-2.1), 32, true, RM, false, false), 0xFFFFFFFD},
		{"rpi 2.1", F32ToInt(fb(2.1), 32, true, RP, false, false), 3},
		{"rna 2.5", F32ToInt(fb(2.5), 32, true, RNA, false, false), 3},
		{"nan", F32ToInt(qnan32, 32, true, RZ, false, false), 0},
		{"nan u64", F64ToInt(NaN64, 64, false, RZ), 0},
		{"1e10 s32", F32ToInt(fb(1e10), 32, true, RZ, false, false), 0x7FFFFFFF},
		{"-1e10 s32", F32ToInt(fb(-1e10), 32, true, RZ, false, false), 0x80000000},
		{"inf s32", F32ToInt(pInf32, 32, true, RN, false, false), 0x7FFFFFFF},
		{"-inf s64", F32ToInt(nInf32, 64, true, RN, false, false), 1 << 63},
		{"-5 u32", F32ToInt(fb(-5), 32, false, RZ, false, false), 0},
		{"-0.7 u32 rzi", F32ToInt(fb(-0.7), 32, false, RZ, false, false), 0},
		{"5e9 u32", F32ToInt(fb(5e9), 32, false, RZ, false, false), 0xFFFFFFFF},
		{"200 s8", F32ToInt(fb(200), 8, true, RZ, false, false), 0x7F},
		{"-200 s8", F32ToInt(fb(-200), 8, true, RZ, false, false), 0x80},
		{"-100 s8", F32ToInt(fb(-100), 8, true, RZ, false, false), 0x9C},
		{"300 u8", F32ToInt(fb(300), 8, false, RZ, false, false), 0xFF},
		{"70000 u16", F32ToInt(fb(70000), 16, false, RZ, false, false), 0xFFFF},
		{"-40000 s16", F32ToInt(fb(-40000), 16, true, RZ, false, false), 0x8000},
		{"1.8e19 u64", F64ToInt(db(1.8e19), 64, false, RZ), 18000000000000000000},
		{"2^64 u64", F64ToInt(db(0x1p64), 64, false, RZ), ^uint64(0)},
		{"2^63 s64", F64ToInt(db(0x1p63), 64, true, RZ), 1<<63 - 1},
		{"-2^63 s64", F64ToInt(db(-0x1p63), 64, true, RZ), 1 << 63},
		{"2^63-1024 s64", F64ToInt(db(0x1p63-1024), 64, true, RZ), 1<<63 - 1024},
		{"minsub rpi", F32ToInt(1, 32, true, RP, false, false), 1},
		{"minsub rpi ftz", F32ToInt(1, 32, true, RP, true, false), 0},
		{"-minsub rmi", F32ToInt(0x80000001, 32, true, RM, false, false), 0xFFFFFFFF},
		{"-minsub rmi ftz", F32ToInt(0x80000001, 32, true, RM, true, false), 0},
		{"f16 2.5 rni", F16ToInt(0x4100, 32, true, RN), 2},
		{"f16 -inf u16", F16ToInt(0xFC00, 16, false, RN), 0},
		{"f16 65504 s16", F16ToInt(0x7BFF, 16, true, RZ), 0x7FFF},
		{"bf16 -3 s32", BF16ToInt(0xC040, 32, true, RZ), 0xFFFFFFFD},
		{"bf16 nan", BF16ToInt(0x7FC0, 32, true, RZ), 0},
	}
	for _, tc := range ti {
		if tc.got != tc.want {
			t.Errorf("%s: got %#x want %#x", tc.name, tc.got, tc.want)
		}
	}

	tr := []struct {
		name      string
		got, want uint32
	}{
		{"rni 2.5", RoundToIntF32(fb(2.5), RN, false), fb(2)},
		{"rni -0.3", RoundToIntF32(fb(-0.3), RN, false), negz32},
		{"rpi -0.3", RoundToIntF32(fb(-0.3), RP, false), negz32},
		{"rmi 0.3", RoundToIntF32(fb(0.3), RM, false), 0},
		{"rmi -0.3", RoundToIntF32(fb(-0.3), RM, false), fb(-1)},
		{"rzi 1.5", RoundToIntF32(fb(1.5), RZ, false), one32},
		{"rni nan", RoundToIntF32(qnan32, RN, false), NaN32},
		{"rni inf", RoundToIntF32(nInf32, RN, false), nInf32},
		{"rpi minsub", RoundToIntF32(1, RP, false), one32},
		{"rpi minsub ftz", RoundToIntF32(1, RP, true), 0},
		{"rni 2^23+0.5", RoundToIntF32(0x4B000001, RN, false), 0x4B000001},
		{"rni big", RoundToIntF32(max32, RN, false), max32},
	}
	for _, tc := range tr {
		if tc.got != tc.want {
			t.Errorf("%s: got %#08x want %#08x", tc.name, tc.got, tc.want)
		}
	}
	if RoundToIntF64(db(-2.5), RN) != db(-2) || RoundToIntF64(db(2.5), RP) != db(3) || RoundToIntF64(NaN64|1, RN) != NaN64 || RoundToIntF64(db(-0.5), RZ) != sign64 {
		t.Error("RoundToIntF64")
	}
	if RoundToIntF16(0x3E00, RN) != 0x4000 || RoundToIntF16(0xBA00, RZ) != 0x8000 || RoundToIntF16(0x7E00, RN) != 0x7FFF || RoundToIntF16(0x3800, RP) != 0x3C00 {
		t.Error("RoundToIntF16")
	}
	if RoundToIntBF16(0x3FC0, RN) != 0x4000 || RoundToIntBF16(0xBF40, RM) != 0xBF80 || RoundToIntBF16(0x7FC1, RN) != 0x7FFF {
		t.Error("RoundToIntBF16")
	}
}

// refFloatToInt rounds an exact value to an integer in mode r and
// saturates it, with math/big.
func refFloatToInt(v *big.Float, dstBits int, signed bool, r Rnd) uint64 {
	ti, _ := v.Int(nil) // truncated toward zero
	fr := new(big.Float).SetPrec(2000).Sub(v, new(big.Float).SetInt(ti))
	if fr.Sign() != 0 {
		half := big.NewFloat(0.5)
		afr := new(big.Float).Abs(fr)
		c := afr.Cmp(half)
		away := false
		switch r {
		case RM:
			away = v.Sign() < 0
		case RP:
			away = v.Sign() > 0
		case RN:
			away = c > 0 || (c == 0 && ti.Bit(0) == 1)
		case RNA:
			away = c >= 0
		}
		if away {
			ti.Add(ti, big.NewInt(int64(v.Sign())))
		}
	}
	var lo, hi *big.Int
	if signed {
		lo = new(big.Int).Neg(new(big.Int).Lsh(big.NewInt(1), uint(dstBits-1)))
		hi = new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), uint(dstBits-1)), big.NewInt(1))
	} else {
		lo = big.NewInt(0)
		hi = new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), uint(dstBits)), big.NewInt(1))
	}
	if ti.Cmp(lo) < 0 {
		ti = lo
	}
	if ti.Cmp(hi) > 0 {
		ti = hi
	}
	mask := new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), uint(dstBits)), big.NewInt(1))
	return new(big.Int).And(ti, mask).Uint64() // And of a negative uses two's complement
}

func TestRandomIntConvert(t *testing.T) {
	rng := newRNG(t, 601)
	n := nRandom(100000)
	widths := []int{8, 16, 32, 64}
	l := &failLog{t: t, name: "int"}
	for i := 0; i < n; i++ {
		w := widths[rng.IntN(4)]
		signed := rng.IntN(2) == 0
		v := rng.Uint64() >> uint(rng.IntN(64))
		if rng.IntN(2) == 0 {
			v = -v
		}
		// the value the source register denotes
		mask := ^uint64(0)
		if w < 64 {
			mask = 1<<uint(w) - 1
		}
		x := v & mask
		bv := new(big.Float).SetPrec(100).SetUint64(x)
		if signed && x>>uint(w-1)&1 != 0 {
			bv.Sub(bv, new(big.Float).SetMantExp(big.NewFloat(1), w))
		}
		for _, r := range allModes {
			var w32, w64, w16, wb uint64
			if bv.Sign() == 0 {
				w32, w64, w16, wb = 0, 0, 0, 0
			} else {
				w32, _ = refRound(bv, rF32, r)
				w64, _ = refRound(bv, rF64, r)
				w16, _ = refRound(bv, rF16, r)
				wb, _ = refRound(bv, rBF16, r)
			}
			l.check(uint64(IntToF32(v, w, signed, r)), w32, "i%d(%#x,s=%v)->f32 %v", w, v, signed, r)
			l.check(IntToF64(v, w, signed, r), w64, "i%d(%#x,s=%v)->f64 %v", w, v, signed, r)
			l.check(uint64(IntToF16(v, w, signed, r)), w16, "i%d(%#x,s=%v)->f16 %v", w, v, signed, r)
			l.check(uint64(IntToBF16(v, w, signed, r)), wb, "i%d(%#x,s=%v)->bf16 %v", w, v, signed, r)
		}
		// float -> int
		var fx uint64
		if rng.IntN(2) == 0 {
			fx = randEnc(rng, rF64, false)
		} else {
			// values around the integer range of the width
			e := rng.IntN(w + 4)
			f := math.Ldexp(rng.Float64()+0.5, e)
			if rng.IntN(4) == 0 {
				f = math.Floor(f) + float64(rng.IntN(3))*0.25
			}
			if rng.IntN(2) == 0 {
				f = -f
			}
			fx = db(f)
		}
		f32x := F64ToF32(fx, RN, false, false)
		for _, r := range []Rnd{RN, RZ, RM, RP, RNA} {
			var want64, want32 uint64
			if !rF64.isNaN(fx) {
				fv := f64(fx)
				if math.IsInf(fv, 0) {
					fv = math.Copysign(0x1p200, fv)
				}
				want64 = refFloatToInt(new(big.Float).SetFloat64(fv), w, signed, r)
			}
			if !isNaN32(f32x) {
				fv := float64(f32(f32x))
				if math.IsInf(fv, 0) {
					fv = math.Copysign(0x1p200, fv)
				}
				want32 = refFloatToInt(new(big.Float).SetFloat64(fv), w, signed, r)
			}
			l.check(F64ToInt(fx, w, signed, r), want64, "f64 %#x -> i%d s=%v %v", fx, w, signed, r)
			l.check(F32ToInt(f32x, w, signed, r, false, false), want32, "f32 %#x -> i%d s=%v %v", f32x, w, signed, r)
		}
	}
	l.done()
}

func negU64(v uint64) uint64 { return -v }
