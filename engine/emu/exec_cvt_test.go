package emu

import (
	"math"
	"strings"
	"testing"
)

// Helpers (fxEval, fxCheck, fxWantError, ...) are in exec_float_test.go.

func TestCvtIntInt(t *testing.T) {
	// zluda cvt_s16_s8: the s8 source is the low byte of a .b32 register;
	// the s16 result is sign-extended to the 32-bit destination register.
	fxCheck(t, "", "cvt.s16.s8 %d, %a", "b32", fx1w, []fxRow{{[]uint64{0x139231c2}, 0xffffffc2}, {[]uint64{0x7f}, 0x7f}})
	fxCheck(t, "", "cvt.u16.s8 %d, %a", "b32", fx1w, []fxRow{{[]uint64{0xc2}, 0xffc2}})
	fxCheck(t, "", "cvt.s16.u8 %d, %a", "b32", fx1w, []fxRow{{[]uint64{0xc2}, 0xc2}})
	fxCheck(t, "", "cvt.s64.s32 %d, %a", "b64", fx1w, []fxRow{{[]uint64{0xffffffff}, 0xffffffffffffffff}, {[]uint64{5}, 5}})
	fxCheck(t, "", "cvt.u64.u32 %d, %a", "b64", fx1w, []fxRow{{[]uint64{0xffffffff}, 0xffffffff}})
	fxCheck(t, "", "cvt.u64.s32 %d, %a", "b64", fx1w, []fxRow{{[]uint64{0xfffffffe}, 0xfffffffffffffffe}})
	fxCheck(t, "", "cvt.u32.u64 %d, %a", "b32", []string{"b64"}, []fxRow{{[]uint64{0x123456789}, 0x23456789}})
	fxCheck(t, "", "cvt.s32.s64 %d, %a", "b32", []string{"b64"}, []fxRow{{[]uint64{0x1fffffffe}, 0xfffffffe}})
	fxCheck(t, "", "cvt.u8.u32 %d, %a", "b32", fx1w, []fxRow{{[]uint64{0x1234}, 0x34}})
	fxCheck(t, "", "cvt.s8.u32 %d, %a", "b32", fx1w, []fxRow{{[]uint64{0x1280}, 0xffffff80}})
	fxCheck(t, "", "cvt.s8.u32 %d, %a", "b16", fx1w, []fxRow{{[]uint64{0x1280}, 0xff80}})
	fxCheck(t, "", "cvt.u16.u32 %d, %a", "b16", fx1w, []fxRow{{[]uint64{0x12345}, 0x2345}})
	// .sat clamps to the destination range; zluda cvt_sat_s_u.
	fxCheck(t, "", "cvt.sat.u32.s32 %d, %a", "b32", fx1w, []fxRow{{[]uint64{0xffffffff}, 0}, {[]uint64{7}, 7}})
	fxCheck(t, "", "cvt.sat.s32.u32 %d, %a", "b32", fx1w, []fxRow{{[]uint64{0xffffffff}, 0x7fffffff}, {[]uint64{3}, 3}})
	fxCheck(t, "", "cvt.sat.u8.s32 %d, %a", "b32", fx1w, []fxRow{{[]uint64{300}, 255}, {[]uint64{0xfffffffb}, 0}, {[]uint64{17}, 17}})
	fxCheck(t, "", "cvt.sat.s8.s32 %d, %a", "b32", fx1w, []fxRow{{[]uint64{0xffffff38}, 0xffffff80}, {[]uint64{200}, 0x7f}, {[]uint64{0xfffffff0}, 0xfffffff0}})
	fxCheck(t, "", "cvt.sat.s16.s64 %d, %a", "b16", []string{"b64"}, []fxRow{{[]uint64{1 << 40}, 0x7fff}, {[]uint64{0xffffff0000000000}, 0x8000}})
	fxCheck(t, "", "cvt.sat.u64.s64 %d, %a", "b64", []string{"b64"}, []fxRow{{[]uint64{1 << 63}, 0}, {[]uint64{12}, 12}})
	fxCheck(t, "", "cvt.sat.s64.u64 %d, %a", "b64", []string{"b64"}, []fxRow{{[]uint64{1 << 63}, 1<<63 - 1}})
	fxCheck(t, "", "cvt.sat.u16.u8 %d, %a", "b16", fx1h, []fxRow{{[]uint64{0x1ff}, 0xff}})
}

func TestCvtFloatInt(t *testing.T) {
	rows := func(vals []float32, want ...uint64) []fxRow {
		r := make([]fxRow, len(vals))
		for i, v := range vals {
			r[i] = fxRow{[]uint64{f32b(v)}, want[i]}
		}
		return r
	}
	vals := []float32{2.5, 3.5, -2.5, -2.7, 2.1}
	fxCheck(t, "", "cvt.rni.s32.f32 %d, %a", "b32", fx1s, rows(vals, 2, 4, 0xfffffffe, 0xfffffffd, 2))
	fxCheck(t, "", "cvt.rzi.s32.f32 %d, %a", "b32", fx1s, rows(vals, 2, 3, 0xfffffffe, 0xfffffffe, 2))
	fxCheck(t, "", "cvt.rmi.s32.f32 %d, %a", "b32", fx1s, rows(vals, 2, 3, 0xfffffffd, 0xfffffffd, 2))
	fxCheck(t, "", "cvt.rpi.s32.f32 %d, %a", "b32", fx1s, rows(vals, 3, 4, 0xfffffffe, 0xfffffffe, 3))
	// Saturation; NaN gives 0.
	special := []fxRow{
		{[]uint64{0x7fc00000}, 0},
		{[]uint64{f32b(1e10)}, 0x7fffffff},
		{[]uint64{f32b(-1e10)}, 0x80000000},
		{[]uint64{0x7f800000}, 0x7fffffff},
		{[]uint64{0xff800000}, 0x80000000},
	}
	fxCheck(t, "", "cvt.rzi.s32.f32 %d, %a", "b32", fx1s, special)
	fxCheck(t, "", "cvt.rzi.sat.s32.f32 %d, %a", "b32", fx1s, special)
	fxCheck(t, "", "cvt.rzi.u32.f32 %d, %a", "b32", fx1s, []fxRow{{[]uint64{f32b(-1)}, 0}, {[]uint64{f32b(5e9)}, 0xffffffff}, {[]uint64{0x7fffffff}, 0}})
	// zluda cvt_rni_u16_f32: 65535.5 rounds to 65536, clamped to 65535.
	fxCheck(t, "", "cvt.rni.u16.f32 %d, %a", "b16", fx1s, []fxRow{{[]uint64{0x477fff80}, 0xffff}})
	// zluda cvt_s32_f32 (into .b32 registers, with .ftz).
	fxCheck(t, "", "cvt.rpi.ftz.s32.f32 %d, %a", "b32", fx1w, []fxRow{{[]uint64{0xc15ccccd}, 0xfffffff3}, {[]uint64{0x414e6666}, 0xd}})
	// .ftz matters for .rpi/.rmi on subnormals.
	fxCheck(t, "", "cvt.rpi.s32.f32 %d, %a", "b32", fx1s, []fxRow{{[]uint64{fxSub}, 1}})
	fxCheck(t, "", "cvt.rpi.ftz.s32.f32 %d, %a", "b32", fx1s, []fxRow{{[]uint64{fxSub}, 0}})
	// A signed result is sign-extended to a wider register.
	fxCheck(t, "", "cvt.rzi.s8.f32 %d, %a", "b32", fx1s, []fxRow{{[]uint64{f32b(-3.5)}, 0xfffffffd}, {[]uint64{f32b(1000)}, 0x7f}, {[]uint64{f32b(-1000)}, 0xffffff80}})
	fxCheck(t, "", "cvt.rzi.u8.f32 %d, %a", "b32", fx1s, []fxRow{{[]uint64{f32b(1000)}, 0xff}, {[]uint64{f32b(-3)}, 0}})
	// f64 / f16 / bf16 sources.
	fxCheck(t, "", "cvt.rni.s64.f64 %d, %a", "b64", fx1d, []fxRow{{[]uint64{f64b(-4.5)}, 0xfffffffffffffffc}, {[]uint64{f64b(1e300)}, 1<<63 - 1}, {[]uint64{0x7ff8000000000000}, 0}})
	fxCheck(t, "", "cvt.rzi.u64.f64 %d, %a", "b64", fx1d, []fxRow{{[]uint64{f64b(1.8446744073709552e19)}, 0xffffffffffffffff}, {[]uint64{f64b(9.3e18)}, 9300000000000000000}})
	fxCheck(t, "", "cvt.rni.s32.f16 %d, %a", "b32", fx1h, []fxRow{{[]uint64{0x4100}, 2}, {[]uint64{0xc500}, 0xfffffffb}, {[]uint64{0x7e00}, 0}})
	fxCheck(t, "", "cvt.rzi.u16.bf16 %d, %a", "b16", fx1h, []fxRow{{[]uint64{0x4049}, 3}, {[]uint64{0x7f80}, 0xffff}})
}

func TestCvtIntFloat(t *testing.T) {
	big := uint64(16777217) // 2^24 + 1: not representable in f32
	fxCheck(t, "", "cvt.rn.f32.s32 %d, %a", "f32", fx1w, []fxRow{{[]uint64{big}, 0x4b800000}, {[]uint64{0xffffffff}, f32b(-1)}, {[]uint64{16777219}, 0x4b800002}})
	fxCheck(t, "", "cvt.rz.f32.s32 %d, %a", "f32", fx1w, []fxRow{{[]uint64{big}, 0x4b800000}})
	fxCheck(t, "", "cvt.rp.f32.s32 %d, %a", "f32", fx1w, []fxRow{{[]uint64{big}, 0x4b800001}})
	fxCheck(t, "", "cvt.rm.f32.s32 %d, %a", "f32", fx1w, []fxRow{{[]uint64{(-big) & 0xffffffff}, 0xcb800001}})
	fxCheck(t, "", "cvt.rn.f32.u32 %d, %a", "f32", fx1w, []fxRow{{[]uint64{0xffffffff}, 0x4f800000}})
	fxCheck(t, "", "cvt.rz.f32.u32 %d, %a", "f32", fx1w, []fxRow{{[]uint64{0xffffffff}, 0x4f7fffff}})
	fxCheck(t, "", "cvt.rz.f32.u64 %d, %a", "f32", []string{"b64"}, []fxRow{{[]uint64{math.MaxUint64}, 0x5f7fffff}})
	fxCheck(t, "", "cvt.rn.f32.s16 %d, %a", "f32", fx1h, []fxRow{{[]uint64{0x8000}, f32b(-32768)}})
	fxCheck(t, "", "cvt.rn.f32.u8 %d, %a", "f32", fx1w, []fxRow{{[]uint64{0x1ff}, f32b(255)}})
	fxCheck(t, "", "cvt.rn.f64.s64 %d, %a", "f64", []string{"b64"}, []fxRow{{[]uint64{1<<63 + 1}, f64b(-0x1p63)}, {[]uint64{1<<53 + 1}, f64b(0x1p53)}})
	fxCheck(t, "", "cvt.rp.f64.u64 %d, %a", "f64", []string{"b64"}, []fxRow{{[]uint64{1<<53 + 1}, f64b(0x1p53 + 2)}})
	fxCheck(t, "", "cvt.rn.f64.s32 %d, %a", "f64", fx1w, []fxRow{{[]uint64{0x80000000}, f64b(-0x1p31)}})
	fxCheck(t, "", "cvt.rn.f16.u32 %d, %a", "b16", fx1w, []fxRow{{[]uint64{70000}, 0x7c00}, {[]uint64{3}, 0x4200}, {[]uint64{2049}, 0x6800}})
	fxCheck(t, "", "cvt.rz.f16.u32 %d, %a", "b16", fx1w, []fxRow{{[]uint64{70000}, 0x7bff}})
	fxCheck(t, "", "cvt.rn.f16.s32 %d, %a", "b16", fx1w, []fxRow{{[]uint64{0xfffffffe}, 0xc000}})
	fxCheck(t, "", "cvt.rn.bf16.u32 %d, %a", "b16", fx1w, []fxRow{{[]uint64{1}, 0x3f80}, {[]uint64{257}, 0x4380}})
	fxCheck(t, "", "cvt.rn.sat.f32.s32 %d, %a", "f32", fx1w, []fxRow{{[]uint64{5}, f32b(1)}, {[]uint64{0xffffffff}, 0}})
}

func TestCvtFloatFloat(t *testing.T) {
	// Widening (exact); zluda cvt_f64_f32.
	fxCheck(t, "", "cvt.ftz.f64.f32 %d, %a", "f64", fx1s, []fxRow{{[]uint64{0x3e000000}, 0x3fc0000000000000}, {[]uint64{fxSub | 1<<31}, 1 << 63}})
	fxCheck(t, "", "cvt.f64.f32 %d, %a", "f64", fx1s, []fxRow{{[]uint64{fxSub}, f64b(0x1p-127)}, {[]uint64{0x7fc00001}, 0x7fffffffffffffff}})
	fxCheck(t, "", "cvt.f32.f16 %d, %a", "f32", fx1h, []fxRow{{[]uint64{0x3c00}, f32b(1)}, {[]uint64{0x0001}, f32b(0x1p-24)}, {[]uint64{0xfc00}, 0xff800000}, {[]uint64{0x7e01}, 0x7fffffff}})
	fxCheck(t, "", "cvt.f32.bf16 %d, %a", "f32", fx1h, []fxRow{{[]uint64{0x3f80}, f32b(1)}, {[]uint64{0x0001}, 0x00010000}})
	fxCheck(t, "", "cvt.ftz.f32.bf16 %d, %a", "f32", fx1h, []fxRow{{[]uint64{0x8001}, 0x80000000}})
	fxCheck(t, "", "cvt.f64.f16 %d, %a", "f64", fx1h, []fxRow{{[]uint64{0xc000}, f64b(-2)}})
	fxCheck(t, "", "cvt.f64.bf16 %d, %a", "f64", fx1h, []fxRow{{[]uint64{0x4040}, f64b(3)}})
	fxCheck(t, "", "cvt.sat.f32.f16 %d, %a", "f32", fx1h, []fxRow{{[]uint64{0x4000}, f32b(1)}, {[]uint64{0x7e00}, 0}})
	// Narrowing (rounding required).
	third := f64b(1.0 / 3)
	fxCheck(t, "", "cvt.rn.f32.f64 %d, %a", "f32", fx1d, []fxRow{{[]uint64{third}, 0x3eaaaaab}, {[]uint64{f64b(1e300)}, 0x7f800000}, {[]uint64{0x7ff8000000000123}, 0x7fffffff}})
	fxCheck(t, "", "cvt.rz.f32.f64 %d, %a", "f32", fx1d, []fxRow{{[]uint64{third}, 0x3eaaaaaa}, {[]uint64{f64b(1e300)}, 0x7f7fffff}})
	fxCheck(t, "", "cvt.rm.f32.f64 %d, %a", "f32", fx1d, []fxRow{{[]uint64{f64b(-1.0 / 3)}, 0xbeaaaaab}})
	fxCheck(t, "", "cvt.rp.f32.f64 %d, %a", "f32", fx1d, []fxRow{{[]uint64{third}, 0x3eaaaaab}})
	fxCheck(t, "", "cvt.rn.ftz.f32.f64 %d, %a", "f32", fx1d, []fxRow{{[]uint64{f64b(0x1p-130)}, 0}})
	fxCheck(t, "", "cvt.rn.f32.f64 %d, %a", "f32", fx1d, []fxRow{{[]uint64{f64b(0x1p-130)}, 0x00080000}})
	fxCheck(t, "", "cvt.rn.sat.f32.f64 %d, %a", "f32", fx1d, []fxRow{{[]uint64{f64b(7)}, f32b(1)}, {[]uint64{f64b(-7)}, 0}})
	fxCheck(t, "", "cvt.rn.f16.f32 %d, %a", "b16", fx1s, []fxRow{
		{[]uint64{f32b(1)}, 0x3c00},
		{[]uint64{f32b(65520)}, 0x7c00},
		{[]uint64{f32b(0x1p-25)}, 0},   // tie to even (zero)
		{[]uint64{0x33000001}, 0x0001}, // just above half the smallest subnormal
		{[]uint64{0x7fc12345}, 0x7fff},
	})
	fxCheck(t, "", "cvt.rz.f16.f32 %d, %a", "b16", fx1s, []fxRow{{[]uint64{f32b(65520)}, 0x7bff}, {[]uint64{f32b(1e9)}, 0x7bff}})
	fxCheck(t, "", "cvt.rm.f16.f32 %d, %a", "b16", fx1s, []fxRow{{[]uint64{f32b(-1e9)}, 0xfc00}, {[]uint64{f32b(1e9)}, 0x7bff}})
	fxCheck(t, "", "cvt.rp.f16.f32 %d, %a", "b16", fx1s, []fxRow{{[]uint64{0x3f800001}, 0x3c01}})
	fxCheck(t, "", "cvt.rn.satfinite.f16.f32 %d, %a", "b16", fx1s, []fxRow{{[]uint64{f32b(1e6)}, 0x7bff}, {[]uint64{0xff800000}, 0xfbff}, {[]uint64{0x7fc00000}, 0x7fff}})
	fxCheck(t, "", "cvt.rn.relu.f16.f32 %d, %a", "b16", fx1s, []fxRow{{[]uint64{f32b(-1)}, 0}, {[]uint64{f32b(2)}, 0x4000}, {[]uint64{0x80000000}, 0}})
	fxCheck(t, "", "cvt.rn.sat.f16.f32 %d, %a", "b16", fx1s, []fxRow{{[]uint64{f32b(3)}, 0x3c00}})
	fxCheck(t, "", "cvt.rn.ftz.f16.f32 %d, %a", "b16", fx1s, []fxRow{{[]uint64{fxSub}, 0}})
	fxCheck(t, "", "cvt.rn.f16.f64 %d, %a", "b16", fx1d, []fxRow{{[]uint64{f64b(1 + 0x1p-11 + 0x1p-40)}, 0x3c01}})
	fxCheck(t, "", "cvt.rn.bf16.f32 %d, %a", "b16", fx1s, []fxRow{{[]uint64{f32b(1)}, 0x3f80}, {[]uint64{0x3f808000}, 0x3f80}, {[]uint64{0x3f818000}, 0x3f82}, {[]uint64{0x7fc00001}, 0x7fff}})
	fxCheck(t, "", "cvt.rz.bf16.f32 %d, %a", "b16", fx1s, []fxRow{{[]uint64{0x3f81ffff}, 0x3f81}})
	fxCheck(t, "", "cvt.rn.relu.satfinite.bf16.f32 %d, %a", "b16", fx1s, []fxRow{{[]uint64{0x7f800000}, 0x7f7f}, {[]uint64{f32b(-2)}, 0}})
	fxCheck(t, "", "cvt.rn.bf16.f64 %d, %a", "b16", fx1d, []fxRow{{[]uint64{f64b(3)}, 0x4040}})
	fxCheck(t, "", "cvt.rn.bf16.f16 %d, %a", "b16", fx1h, []fxRow{{[]uint64{0x3c00}, 0x3f80}, {[]uint64{0x3c01}, 0x3f80}})
	fxCheck(t, "", "cvt.rn.f16.bf16 %d, %a", "b16", fx1h, []fxRow{{[]uint64{0x4780}, 0x7c00}, {[]uint64{0x3f80}, 0x3c00}})
	fxCheck(t, "", "cvt.rz.f16.bf16 %d, %a", "b16", fx1h, []fxRow{{[]uint64{0x4780}, 0x7bff}})
	// Same type: round to integral (zluda cvt_rni, cvt_rzi), .sat, .ftz.
	fxCheck(t, "", "cvt.rni.f32.f32 %d, %a", "f32", fx1s, []fxRow{{[]uint64{0x41180000}, 0x41200000}, {[]uint64{0x41280000}, 0x41200000}, {[]uint64{f32b(-0.3)}, 0x80000000}})
	fxCheck(t, "", "cvt.rzi.f32.f32 %d, %a", "f32", fx1s, []fxRow{{[]uint64{0xc15ccccd}, 0xc1500000}, {[]uint64{0x414e6666}, 0x41400000}})
	fxCheck(t, "", "cvt.rmi.f32.f32 %d, %a", "f32", fx1s, []fxRow{{[]uint64{f32b(-1.5)}, f32b(-2)}, {[]uint64{0x7f800000}, 0x7f800000}})
	fxCheck(t, "", "cvt.rpi.f32.f32 %d, %a", "f32", fx1s, []fxRow{{[]uint64{f32b(1.25)}, f32b(2)}, {[]uint64{fxSub}, f32b(1)}})
	fxCheck(t, "", "cvt.rpi.ftz.f32.f32 %d, %a", "f32", fx1s, []fxRow{{[]uint64{fxSub}, 0}})
	fxCheck(t, "", "cvt.rni.sat.f32.f32 %d, %a", "f32", fx1s, []fxRow{{[]uint64{f32b(1.5)}, f32b(1)}})
	fxCheck(t, "", "cvt.sat.f32.f32 %d, %a", "f32", fx1s, []fxRow{{[]uint64{f32b(2)}, f32b(1)}, {[]uint64{0x7fc00000}, 0}, {[]uint64{f32b(0.5)}, f32b(0.5)}})
	fxCheck(t, "", "cvt.ftz.f32.f32 %d, %a", "f32", fx1s, []fxRow{{[]uint64{fxSub | 1<<31}, 0x80000000}, {[]uint64{f32b(2)}, f32b(2)}})
	fxCheck(t, "", "cvt.f32.f32 %d, %a", "f32", fx1s, []fxRow{{[]uint64{0x7fc00001}, 0x7fffffff}, {[]uint64{fxSub}, fxSub}})
	fxCheck(t, "", "cvt.rni.f64.f64 %d, %a", "f64", fx1d, []fxRow{{[]uint64{f64b(2.5)}, f64b(2)}, {[]uint64{f64b(-2.5)}, f64b(-2)}})
	fxCheck(t, "", "cvt.rpi.f64.f64 %d, %a", "f64", fx1d, []fxRow{{[]uint64{f64b(2.1)}, f64b(3)}})
	fxCheck(t, "", "cvt.sat.f64.f64 %d, %a", "f64", fx1d, []fxRow{{[]uint64{f64b(2.1)}, f64b(1)}})
	fxCheck(t, "", "cvt.rni.f16.f16 %d, %a", "b16", fx1h, []fxRow{{[]uint64{0x4100}, 0x4000}, {[]uint64{0x4300}, 0x4400}})
	fxCheck(t, "", "cvt.rzi.bf16.bf16 %d, %a", "b16", fx1h, []fxRow{{[]uint64{0xc020}, 0xc000}})
}

func TestCvtPackedAndSmallFloats(t *testing.T) {
	// zluda cvt_f16x2_f32: a goes to the upper half, b to the lower.
	fxCheck(t, "", "cvt.rn.f16x2.f32 %d, %a, %b", "b32", fx2s, []fxRow{{[]uint64{f32b(1), f32b(2)}, 0x3c004000}})
	// zluda cvt_relu_f16x2_f32.
	fxCheck(t, "", "cvt.rn.relu.f16x2.f32 %d, %a, %b", "b32", fx2s, []fxRow{
		{[]uint64{f32b(-1), f32b(1)}, 0x00003c00},
		{[]uint64{0x4048f5c3, 0xff800000}, 0x42480000},
	})
	fxCheck(t, "", "cvt.rz.satfinite.f16x2.f32 %d, %a, %b", "b32", fx2s, []fxRow{{[]uint64{f32b(1e6), f32b(-1e6)}, 0x7bfffbff}})
	fxCheck(t, "", "cvt.rn.f16x2.f32 %d, %a, %b", "f16x2", fx2s, []fxRow{{[]uint64{0x7fc00000, f32b(0.5)}, 0x7fff3800}})
	// zluda cvt_rn_bf16x2_f32.
	fxCheck(t, "", "cvt.rn.bf16x2.f32 %d, %a, %b", "b32", fx2s, []fxRow{{[]uint64{0x3ed00000, 0x414e6666}, 0x3ed0414e}})
	fxCheck(t, "", "cvt.rz.relu.bf16x2.f32 %d, %a, %b", "b32", fx2s, []fxRow{{[]uint64{f32b(-1), 0x3f81ffff}, 0x00003f81}})
	// tf32: 1 + 2^-11 is a tie between two tf32 values.
	tie := uint64(0x3f801000)
	fxCheck(t, "", "cvt.rna.tf32.f32 %d, %a", "b32", fx1s, []fxRow{{[]uint64{tie}, 0x3f802000}, {[]uint64{0x7fc00000}, 0x7fffe000}, {[]uint64{0x7f7fffff}, 0x7f800000}})
	fxCheck(t, "", "cvt.rna.satfinite.tf32.f32 %d, %a", "b32", fx1s, []fxRow{{[]uint64{0x7f7fffff}, 0x7f7fe000}})
	fxCheck(t, "", "cvt.rn.tf32.f32 %d, %a", "b32", fx1s, []fxRow{{[]uint64{tie}, 0x3f800000}})
	fxCheck(t, "", "cvt.rz.relu.tf32.f32 %d, %a", "b32", fx1s, []fxRow{{[]uint64{0x3f803fff}, 0x3f802000}, {[]uint64{f32b(-3)}, 0}})
	// fp8: zluda cases (a in the upper byte).
	fxCheck(t, "", "cvt.rn.satfinite.e4m3x2.f32 %d, %a, %b", "b16", fx2s, []fxRow{
		{[]uint64{0x3ed00000, 0x414e6666}, 0x2d55},
		{[]uint64{f32b(1000), f32b(-1000)}, 0x7efe}, // ±448
		{[]uint64{0x7fc00000, 0x7f800000}, 0x7f7e},
	})
	fxCheck(t, "", "cvt.rn.satfinite.relu.e4m3x2.f32 %d, %a, %b", "b16", fx2s, []fxRow{{[]uint64{f32b(-1), f32b(1)}, 0x0038}})
	fxCheck(t, "", "cvt.rn.satfinite.e5m2x2.f32 %d, %a, %b", "b16", fx2s, []fxRow{
		{[]uint64{0x3ec00000, 0xc5a444cd}, 0x36ed},
		{[]uint64{f32b(1e6), 0xff800000}, 0x7bfb}, // ±57344
	})
	fxCheck(t, "", "cvt.rn.f16x2.e4m3x2 %d, %a", "b32", fx1h, []fxRow{{[]uint64{0x2d55}, 0x36804a80}, {[]uint64{0x7fff}, 0x7fff7fff}})
	fxCheck(t, "", "cvt.rn.f16x2.e5m2x2 %d, %a", "b32", fx1h, []fxRow{{[]uint64{0x36ed}, 0x3600ed00}, {[]uint64{0x7c7f}, 0x7c007fff}})
	fxCheck(t, "", "cvt.rn.relu.f16x2.e4m3x2 %d, %a", "b32", fx1h, []fxRow{{[]uint64{0xb838}, 0x00003c00}})
	fxCheck(t, "", "cvt.rn.satfinite.e4m3x2.f16x2 %d, %a", "b16", fx1w, []fxRow{{[]uint64{0x3c00c000}, 0x38c0}})
	fxCheck(t, "", "cvt.rn.satfinite.e5m2x2.f16x2 %d, %a", "b16", fx1w, []fxRow{{[]uint64{0x3c00c000}, 0x3cc0}})
	// The source register may be wider than a .e4m3x2 source.
	fxCheck(t, "", "cvt.rn.f16x2.e4m3x2 %d, %a", "b32", fx1w, []fxRow{{[]uint64{0xffff2d55}, 0x36804a80}})
}

func TestCvtPack(t *testing.T) {
	// zluda cvt_pack: a = -257, b = 257, c = 0xf839b0ed.
	rows := []fxRow{{[]uint64{0xfffffeff, 0x00000101, 0xf839b0ed}, 0xb0ed00ff}}
	fxCheck(t, "", "cvt.pack.sat.u8.s32.b32 %d, %a, %b, %c", "b32", fx3w, rows)
	rows[0].want = 0xb0ed807f
	fxCheck(t, "", "cvt.pack.sat.s8.s32.b32 %d, %a, %b, %c", "b32", fx3w, rows)
	fxCheck(t, "", "cvt.pack.sat.s16.s32 %d, %a, %b", "b32", fx2w, []fxRow{{[]uint64{40000, 0xffff63c0}, 0x7fff8000}, {[]uint64{5, 0xfffffffe}, 0x0005fffe}})
	fxCheck(t, "", "cvt.pack.sat.u16.s32 %d, %a, %b", "b32", fx2w, []fxRow{{[]uint64{70000, 0xffffffff}, 0xffff0000}})
}

func TestCvtSpecialsAndLegacy(t *testing.T) {
	// Special registers are .u32 slots; cvt.u32.u16 %r, %tid.x truncates.
	src := fxHeader + `.visible .entry k(.param .u64 out)
{
	.reg .u32 %r<3>; .reg .u16 %h; .reg .u64 %rd<4>; .reg .f32 %f;
	ld.param.u64 %rd1, [out];
	cvt.u32.u16 %r1, %tid.x;
	cvt.u16.u32 %h, %ntid.x;
	cvt.u32.u16 %r2, %h;
	cvt.rn.f32.u32 %f, %laneid;
	cvt.u64.u32 %rd2, %tid.x;
	mul.lo.u64 %rd2, %rd2, 12;
	add.u64 %rd3, %rd1, %rd2;
	st.global.u32 [%rd3], %r1;
	st.global.u32 [%rd3+4], %r2;
	st.global.f32 [%rd3+8], %f;
	ret;
}
`
	out := fxLaunch(t, fxCompile(t, src), "k", [3]int{40, 1, 1}, [][]byte{make([]byte, 12*40)})[0]
	for i := 0; i < 40; i++ {
		r1 := uint32(out[12*i]) | uint32(out[12*i+1])<<8
		r2 := uint32(out[12*i+4])
		f := math.Float32frombits(uint32(out[12*i+8]) | uint32(out[12*i+9])<<8 | uint32(out[12*i+10])<<16 | uint32(out[12*i+11])<<24)
		if r1 != uint32(i) || r2 != 40 || f != float32(i%32) {
			t.Errorf("thread %d: got %d %d %v", i, r1, r2, f)
		}
	}
}

func TestCvtErrors(t *testing.T) {
	fxWantError(t, "", "cvt.f32.s32 %f1, %s1", "requires a rounding modifier")
	fxWantError(t, "", "cvt.rni.f32.s32 %f1, %s1", "requires a floating-point rounding modifier")
	fxWantError(t, "", "cvt.s32.f32 %s1, %f1", "requires an integer rounding modifier")
	fxWantError(t, "", "cvt.rn.s32.f32 %s1, %f1", "requires an integer rounding modifier")
	fxWantError(t, "", "cvt.rni.u32.u16 %r1, %us1", "not valid for an integer-to-integer cvt")
	fxWantError(t, "", "cvt.f16.f32 %h1, %f1", "requires a rounding modifier")
	fxWantError(t, "", "cvt.f32.f64 %f1, %fd1", "requires a rounding modifier")
	fxWantError(t, "", "cvt.rni.f64.f32 %fd1, %f1", "only valid for same-type float conversions")
	fxWantError(t, "", "cvt.ftz.f64.f16 %fd1, %h1", ".ftz is only valid")
	fxWantError(t, "", "cvt.rn.relu.f32.f64 %f1, %fd1", ".relu and .satfinite are only valid")
	fxWantError(t, "", "cvt.rm.relu.f16.f32 %h1, %f1", "requires .rn or .rz")
	fxWantError(t, "", "cvt.rn.e4m3x2.f32 %h1, %f1, %f2", "requires .satfinite")
	fxWantError(t, "", "cvt.rz.satfinite.e4m3x2.f32 %h1, %f1, %f2", "requires .rn")
	fxWantError(t, "", "cvt.rn.e4m3.f32 %h1, %f1", "only in pairs")
	fxWantError(t, "", "cvt.rm.tf32.f32 %r1, %f1", "requires .rna, .rn or .rz")
	fxWantError(t, "", "cvt.rna.f32.f64 %f1, %fd1", ".rna is only valid")
	fxWantError(t, "", "cvt.rn.f16x2.f16 %r1, %h1, %h2", "not a valid conversion")
	fxWantError(t, "", "cvt.rn.f16x2.f32 %r1, %f1", "expects 3 operands")
	fxWantError(t, "", "cvt.u32.b32 %r1, %r2", "not valid for cvt")
	fxWantError(t, "", "cvt.pack.u8.s32.b32 %r1, %r2, %r3, %r1", "requires .sat")
	fxWantError(t, "", "cvt.pack.sat.u8.s32 %r1, %r2, %r3", "cvt.pack takes")
	fxWantError(t, "", "cvt.rs.f16x2.f32 %r1, %f1, %f2, %r2", "stochastic rounding")
	fxWantError(t, "", "cvt.u32 %r1, %r2", "expects 2 type modifiers")
	// Accepted with a warning: a float rounding modifier on an exact conversion.
	ok, msg := fxDiags(fxSnippet("", "cvt.rn.f32.f16 %f1, %h1"))
	if !ok || !strings.Contains(msg, "has no effect") {
		t.Errorf("cvt.rn.f32.f16: want a warning, got ok=%v:\n%s", ok, msg)
	}
	fxWantOK(t, "", "cvt.rn.f32.f32 %f1, %f2")
	fxWantOK(t, "", "cvt.rzi.s32.f32 %r1, %f1")
	fxWantOK(t, "", "cvt.rn.f16.f32 %r1, %f1")
	fxWantOK(t, "", "cvt.u32.u8 %r1, %h1")
}
