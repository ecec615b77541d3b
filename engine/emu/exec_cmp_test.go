package emu

import (
	"fmt"
	"math"
	"testing"
)

// ixRefCmpInt is the reference integer comparison.
func ixRefCmpInt(c string, x, y uint64, bits uint, signed bool) bool {
	var lt, eq bool
	if signed {
		a, b := ixSext(x, bits), ixSext(y, bits)
		lt, eq = a < b, a == b
	} else {
		m := ixMask(bits)
		lt, eq = x&m < y&m, x&m == y&m
	}
	switch c {
	case "eq":
		return eq
	case "ne":
		return !eq
	case "lt", "lo":
		return lt
	case "le", "ls":
		return lt || eq
	case "gt", "hi":
		return !lt && !eq
	case "ge", "hs":
		return !lt
	}
	panic(c)
}

// ixRefCmpFloat is the reference floating-point comparison.
func ixRefCmpFloat(c string, x, y float64) bool {
	nan := x != x || y != y
	switch c {
	case "eq":
		return x == y
	case "ne":
		return x != y && !nan
	case "lt":
		return x < y
	case "le":
		return x <= y
	case "gt":
		return x > y
	case "ge":
		return x >= y
	case "equ":
		return x == y || nan
	case "neu":
		return x != y
	case "ltu":
		return !(x >= y)
	case "leu":
		return !(x > y)
	case "gtu":
		return !(x <= y)
	case "geu":
		return !(x < y)
	case "num":
		return !nan
	case "nan":
		return nan
	}
	panic(c)
}

func ixB2U(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

var ixFloatCmps = []string{"eq", "ne", "lt", "le", "gt", "ge", "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan"}

func TestCmpSetpInt(t *testing.T) {
	for _, c := range []struct {
		ty     string
		bits   uint
		signed bool
		cmps   []string
	}{
		{"u16", 16, false, []string{"eq", "ne", "lt", "le", "gt", "ge", "lo", "ls", "hi", "hs"}},
		{"s16", 16, true, []string{"eq", "ne", "lt", "le", "gt", "ge"}},
		{"u32", 32, false, []string{"eq", "ne", "lt", "le", "gt", "ge", "lo", "ls", "hi", "hs"}},
		{"s32", 32, true, []string{"eq", "ne", "lt", "le", "gt", "ge"}},
		{"u64", 64, false, []string{"eq", "ne", "lt", "le", "gt", "ge", "lo", "ls", "hi", "hs"}},
		{"s64", 64, true, []string{"eq", "ne", "lt", "le", "gt", "ge"}},
		{"b16", 16, false, []string{"eq", "ne"}},
		{"b32", 32, false, []string{"eq", "ne"}},
		{"b64", 64, false, []string{"eq", "ne"}},
	} {
		m := ixMask(c.bits)
		vals := []uint64{0, 1, 2, m, m >> 1, (m >> 1) + 1, 0x1234567890abcdef & m}
		for _, cmp := range c.cmps {
			var rows [][]uint64
			for _, x := range vals {
				for _, y := range vals {
					rows = append(rows, []uint64{x, y, ixB2U(ixRefCmpInt(cmp, x, y, c.bits, c.signed))})
				}
			}
			ixRun(t, fmt.Sprintf("setp.%s.%s %%d, %%a, %%b;", cmp, c.ty), ixT("pred", c.ty, c.ty), rows...)
		}
	}
}

func TestCmpSetpCombine(t *testing.T) {
	// p = (a < b) op c, q = !(a < b) op c.
	rows := func(op func(t, c uint64) uint64, negC bool) [][]uint64 {
		var out [][]uint64
		for _, ab := range [][2]uint64{{1, 2}, {2, 1}, {0x80000000, 1}} {
			for c := uint64(0); c < 2; c++ {
				tt := ixB2U(int32(ab[0]) < int32(ab[1]))
				cc := c
				if negC {
					cc ^= 1
				}
				out = append(out, []uint64{ab[0], ab[1], c, op(tt, cc), op(tt^1, cc)})
			}
		}
		return out
	}
	and := func(t, c uint64) uint64 { return t & c }
	or := func(t, c uint64) uint64 { return t | c }
	xor := func(t, c uint64) uint64 { return t ^ c }
	tys := ixT("pred", "s32", "s32", "pred")
	ixRun(t, "setp.lt.and.s32 %d|%q, %a, %b, %c;", tys, rows(and, false)...)
	ixRun(t, "setp.lt.or.s32 %d|%q, %a, %b, %c;", tys, rows(or, false)...)
	ixRun(t, "setp.lt.xor.s32 %d|%q, %a, %b, %c;", tys, rows(xor, false)...)
	ixRun(t, "setp.lt.and.s32 %d|%q, %a, %b, !%c;", tys, rows(and, true)...)
	// Without a combiner q is the complement; either destination may be a sink.
	ixRun(t, "setp.lt.s32 %d|%q, %a, %b;", ixT("pred", "s32", "s32"), []uint64{1, 2, 1, 0}, []uint64{2, 1, 0, 1})
	ixRun(t, "setp.lt.s32 _|%q, %a, %b;", ixT("pred", "s32", "s32"), []uint64{1, 2, 1, 0}, []uint64{2, 1, 1, 1})
	ixRun(t, "setp.lt.s32 %d|_, %a, %b;", ixT("pred", "s32", "s32"), []uint64{1, 2, 1}, []uint64{2, 1, 0})
	// Immediate operands.
	ixRun(t, "setp.gt.s32 %d, %a, -1;", ixT("pred", "s32"), []uint64{0, 1}, []uint64{0xffffffff, 0}, []uint64{0x80000000, 0})
	ixRun(t, "setp.ne.and.u32 %d, %a, 0, 1;", ixT("pred", "u32"), []uint64{0, 0}, []uint64{5, 1})
}

// ixF16 decodes an f16 independently of fpx.
func ixF16(h uint16) float64 {
	s := 1.0
	if h&0x8000 != 0 {
		s = -1
	}
	e, f := int(h>>10&0x1f), float64(h&0x3ff)
	switch e {
	case 0x1f:
		if f != 0 {
			return math.NaN()
		}
		return s * math.Inf(1)
	case 0:
		return s * f * 0x1p-24
	}
	return s * (1024 + f) * math.Ldexp(1, e-25)
}

func ixBF16(h uint16) float64 { return float64(math.Float32frombits(uint32(h) << 16)) }

func TestCmpSetpFloat(t *testing.T) {
	f32s := []uint64{0, 0x80000000, 0x3f800000, 0xbf800000, 0x3fc00000, 0x7f800000, 0xff800000,
		0x7fc00000, 0xffc00001, 0x7f800001, 0x00000001, 0x80000001, 0x7f7fffff}
	f32 := func(x uint64) float64 { return float64(math.Float32frombits(uint32(x))) }
	flush := func(x uint64) uint64 {
		if x&0x7f800000 == 0 {
			return x & 0x80000000
		}
		return x
	}
	f64s := []uint64{0, 1 << 63, math.Float64bits(1), math.Float64bits(-2.5), math.Float64bits(math.Inf(1)),
		math.Float64bits(math.Inf(-1)), 0x7ff8000000000000, 0xfff0000000000001, 1, 1<<63 | 1, math.Float64bits(1e300)}
	for _, cmp := range ixFloatCmps {
		var r32, r32ftz, r64 [][]uint64
		for _, x := range f32s {
			for _, y := range f32s {
				r32 = append(r32, []uint64{x, y, ixB2U(ixRefCmpFloat(cmp, f32(x), f32(y)))})
				r32ftz = append(r32ftz, []uint64{x, y, ixB2U(ixRefCmpFloat(cmp, f32(flush(x)), f32(flush(y))))})
			}
		}
		for _, x := range f64s {
			for _, y := range f64s {
				r64 = append(r64, []uint64{x, y, ixB2U(ixRefCmpFloat(cmp, math.Float64frombits(x), math.Float64frombits(y)))})
			}
		}
		ixRun(t, fmt.Sprintf("setp.%s.f32 %%d, %%a, %%b;", cmp), ixT("pred", "f32", "f32"), r32...)
		ixRun(t, fmt.Sprintf("setp.%s.ftz.f32 %%d, %%a, %%b;", cmp), ixT("pred", "f32", "f32"), r32ftz...)
		ixRun(t, fmt.Sprintf("setp.%s.f64 %%d, %%a, %%b;", cmp), ixT("pred", "f64", "f64"), r64...)
	}
}

func TestCmpSetpHalf(t *testing.T) {
	f16s := []uint16{0, 0x8000, 0x3c00, 0xbc00, 0x7c00, 0xfc00, 0x7e00, 0xfc01, 0x0001, 0x8001, 0x7bff}
	bf16s := []uint16{0, 0x8000, 0x3f80, 0xbf80, 0x7f80, 0xff80, 0x7fc0, 0x0001, 0x8001}
	flush := func(h uint16) uint16 {
		if h&0x7c00 == 0 {
			return h & 0x8000
		}
		return h
	}
	for _, cmp := range ixFloatCmps {
		var h, hftz, bf, h2, bf2 [][]uint64
		for i, x := range f16s {
			for j, y := range f16s {
				h = append(h, []uint64{uint64(x), uint64(y), ixB2U(ixRefCmpFloat(cmp, ixF16(x), ixF16(y)))})
				hftz = append(hftz, []uint64{uint64(x), uint64(y), ixB2U(ixRefCmpFloat(cmp, ixF16(flush(x)), ixF16(flush(y))))})
				// Packed: the high halves are the pair (y, x) reversed in the list.
				xh, yh := f16s[len(f16s)-1-i], f16s[len(f16s)-1-j]
				h2 = append(h2, []uint64{uint64(x) | uint64(xh)<<16, uint64(y) | uint64(yh)<<16,
					ixB2U(ixRefCmpFloat(cmp, ixF16(x), ixF16(y))), ixB2U(ixRefCmpFloat(cmp, ixF16(xh), ixF16(yh)))})
			}
		}
		for i, x := range bf16s {
			for j, y := range bf16s {
				bf = append(bf, []uint64{uint64(x), uint64(y), ixB2U(ixRefCmpFloat(cmp, ixBF16(x), ixBF16(y)))})
				xh, yh := bf16s[len(bf16s)-1-i], bf16s[len(bf16s)-1-j]
				bf2 = append(bf2, []uint64{uint64(x) | uint64(xh)<<16, uint64(y) | uint64(yh)<<16,
					ixB2U(ixRefCmpFloat(cmp, ixBF16(x), ixBF16(y))), ixB2U(ixRefCmpFloat(cmp, ixBF16(xh), ixBF16(yh)))})
			}
		}
		ixRun(t, fmt.Sprintf("setp.%s.f16 %%d, %%a, %%b;", cmp), ixT("pred", "f16", "f16"), h...)
		ixRun(t, fmt.Sprintf("setp.%s.ftz.f16 %%d, %%a, %%b;", cmp), ixT("pred", "b16", "b16"), hftz...)
		ixRun(t, fmt.Sprintf("setp.%s.bf16 %%d, %%a, %%b;", cmp), ixT("pred", "b16", "b16"), bf...)
		ixRun(t, fmt.Sprintf("setp.%s.f16x2 %%d|%%q, %%a, %%b;", cmp), ixT("pred", "b32", "b32"), h2...)
		ixRun(t, fmt.Sprintf("setp.%s.bf16x2 %%d|%%q, %%a, %%b;", cmp), ixT("pred", "b32", "b32"), bf2...)
	}
	// The boolean combine applies to both halves.
	ixRun(t, "setp.lt.and.f16x2 %d|%q, %a, %b, !%c;", ixT("pred", "b32", "b32", "pred"),
		[]uint64{0x3c00bc00, 0x00000000, 0, 1, 0}, []uint64{0x3c00bc00, 0x00000000, 1, 0, 0}, []uint64{0xbc00bc00, 0, 0, 1, 1})
}

func TestCmpSetpErrors(t *testing.T) {
	ixKernelErr(t, "setp.lo.s32 %d, %a, %b;", ixT("pred", "s32", "s32"), "comparison .lo is not valid for .s32")
	ixKernelErr(t, "setp.lt.b32 %d, %a, %b;", ixT("pred", "b32", "b32"), "comparison .lt is not valid for .b32")
	ixKernelErr(t, "setp.hi.f32 %d, %a, %b;", ixT("pred", "f32", "f32"), "comparison .hi is not valid for .f32")
	ixKernelErr(t, "setp.ltu.u32 %d, %a, %b;", ixT("pred", "u32", "u32"), "comparison .ltu is not valid for .u32")
	ixKernelErr(t, "setp.lt.ftz.f64 %d, %a, %b;", ixT("pred", "f64", "f64"), ".ftz applies only to")
	ixKernelErr(t, "setp.lt.f16x2 %d, %a, %b;", ixT("pred", "b32", "b32"), "needs two destination predicates p|q")
	ixKernelErr(t, "setp.lt.and.u32 %d, %a, %b;", ixT("pred", "u32", "u32"), "expects 4 operands")
	ixKernelErr(t, "setp.u32 %d, %a, %b;", ixT("pred", "u32", "u32"), "needs exactly one comparison operator")
	ixKernelErr(t, "setp.lt.u32 %d, %a, %b;", ixT("u32", "u32", "u32"), "is not a predicate register")
}

func TestCmpSet(t *testing.T) {
	ixRun(t, "set.lt.u32.s32 %d, %a, %b;", ixT("u32", "s32", "s32"), []uint64{0xffffffff, 0, 0xffffffff}, []uint64{0, 0xffffffff, 0})
	ixRun(t, "set.lt.s32.u32 %d, %a, %b;", ixT("s32", "u32", "u32"), []uint64{0xffffffff, 0, 0}, []uint64{0, 0xffffffff, 0xffffffff})
	ixRun(t, "set.lt.f32.s32 %d, %a, %b;", ixT("f32", "s32", "s32"), []uint64{1, 2, 0x3f800000}, []uint64{2, 1, 0})
	ixRun(t, "set.nan.u32.f64 %d, %a, %b;", ixT("u32", "f64", "f64"), []uint64{0x7ff8000000000000, 0, 0xffffffff}, []uint64{0, 0, 0})
	ixRun(t, "set.eq.ftz.u32.f32 %d, %a, %b;", ixT("u32", "f32", "f32"), []uint64{1, 0x80000000, 0xffffffff})
	ixRun(t, "set.eq.u32.f32 %d, %a, %b;", ixT("u32", "f32", "f32"), []uint64{1, 0x80000000, 0})
	ixRun(t, "set.lt.and.u32.u32 %d, %a, %b, %c;", ixT("u32", "u32", "u32", "pred"),
		[]uint64{1, 2, 1, 0xffffffff}, []uint64{1, 2, 0, 0}, []uint64{2, 1, 1, 0})
	ixRun(t, "set.lt.or.f32.u32 %d, %a, %b, !%c;", ixT("f32", "u32", "u32", "pred"),
		[]uint64{2, 1, 0, 0x3f800000}, []uint64{2, 1, 1, 0}, []uint64{1, 2, 1, 0x3f800000})
	// Half-precision destinations and sources.
	ixRun(t, "set.gt.f16.f32 %d, %a, %b;", ixT("f16", "f32", "f32"), []uint64{0x40000000, 0x3f800000, 0x3c00}, []uint64{0, 0x3f800000, 0})
	ixRun(t, "set.gt.bf16.s32 %d, %a, %b;", ixT("bf16", "s32", "s32"), []uint64{1, 0, 0x3f80})
	ixRun(t, "set.gtu.u16.f16 %d, %a, %b;", ixT("u16", "b16", "b16"), []uint64{0x7e00, 0x7e00, 0xffff}, []uint64{0x3c00, 0x4000, 0})
	ixRun(t, "set.gtu.u32.f16 %d, %a, %b;", ixT("u32", "b16", "b16"), []uint64{0x7e00, 0x7e00, 0xffffffff})
	ixRun(t, "set.gtu.u32.f16x2 %d, %a, %b;", ixT("u32", "b32", "b32"), []uint64{0xfc004248, 0x00008000, 0x0000ffff})
	ixRun(t, "set.gt.f16x2.f16x2 %d, %a, %b;", ixT("b32", "b32", "b32"), []uint64{0x38d38000, 0x35aa0000, 0x3c000000})
	ixRun(t, "set.lt.bf16x2.bf16x2 %d, %a, %b;", ixT("b32", "b32", "b32"), []uint64{0x3f80bf80, 0x40000000, 0x3f803f80})
	ixRun(t, "set.ge.s32.bf16x2 %d, %a, %b;", ixT("s32", "b32", "b32"), []uint64{0x3f80bf80, 0x4000c000, 0x0000ffff})
	ixRun(t, "set.lt.xor.f16x2.f16x2 %d, %a, %b, %c;", ixT("b32", "b32", "b32", "pred"), []uint64{0x3c00bc00, 0, 1, 0x3c000000})
	ixKernelErr(t, "set.lt.u16.u32 %d, %a, %b;", ixT("u16", "u32", "u32"), "type .u16 is not valid")
	ixKernelErr(t, "set.lt.f32.f16x2 %d, %a, %b;", ixT("f32", "b32", "b32"), "type .f32 is not valid")
}

func TestCmpSelpSlct(t *testing.T) {
	ixRun(t, "selp.b32 %d, %a, %b, %c;", ixT("b32", "b32", "b32", "pred"), []uint64{1, 2, 1, 1}, []uint64{1, 2, 0, 2})
	ixRun(t, "selp.b32 %d, %a, %b, !%c;", ixT("b32", "b32", "b32", "pred"), []uint64{1, 2, 1, 2}, []uint64{1, 2, 0, 1})
	ixRun(t, "selp.f64 %d, %a, %b, %c;", ixT("f64", "f64", "f64", "pred"), []uint64{1 << 63, 7, 1, 1 << 63}, []uint64{1 << 63, 7, 0, 7})
	ixRun(t, "selp.u16 %d, %a, %b, %c;", ixT("u16", "u16", "u16", "pred"), []uint64{0x64, 0xc8, 0, 0xc8})
	ixRun(t, "selp.s32 %d, 1, -1, %c;", ixT("s32", "", "", "pred"), []uint64{1, 1}, []uint64{0, 0xffffffff})
	ixRun(t, "slct.u32.s32 %d, %a, %b, %c;", ixT("u32", "u32", "u32", "s32"), []uint64{1, 2, 0, 1}, []uint64{1, 2, 0xffffffff, 2}, []uint64{1, 2, 0x7fffffff, 1})
	ixRun(t, "slct.f64.f32 %d, %a, %b, %c;", ixT("f64", "f64", "f64", "f32"),
		[]uint64{1, 2, 0x80000000, 1}, []uint64{1, 2, 0xbf800000, 2}, []uint64{1, 2, 0x7fc00000, 2}, []uint64{1, 2, 0x80000001, 2})
	ixRun(t, "slct.ftz.u16.f32 %d, %a, %b, %c;", ixT("u16", "u16", "u16", "f32"), []uint64{1, 2, 0x80000001, 1}, []uint64{1, 2, 0xbf800000, 2})
	ixKernelErr(t, "slct.ftz.u32.s32 %d, %a, %b, %c;", ixT("u32", "u32", "u32", "s32"), ".ftz applies only to slct")
	ixKernelErr(t, "selp.pred %d, %a, %b, %c;", ixT("pred", "pred", "pred", "pred"), "type .pred is not valid")
}
