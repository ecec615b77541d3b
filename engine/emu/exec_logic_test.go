package emu

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand"
	"strings"
	"testing"
)

func TestLogicBitwise(t *testing.T) {
	ixRun(t, "and.b32 %d, %a, %b;", ixT("b32", "b32", "b32"), []uint64{0xff00ff00, 0x0ff00ff0, 0x0f000f00})
	ixRun(t, "or.b64 %d, %a, %b;", ixT("b64", "b64", "b64"), []uint64{0xff00000000000000, 0xff, 0xff000000000000ff})
	ixRun(t, "xor.b16 %d, %a, %b;", ixT("b16", "b16", "b16"), []uint64{0xffff, 0x0f0f, 0xf0f0})
	ixRun(t, "and.b32 %d, %a, 0xff;", ixT("u32", "u32"), []uint64{0x12345678, 0x78})
	ixRun(t, "not.b32 %d, %a;", ixT("b32", "b32"), []uint64{0, 0xffffffff}, []uint64{0xf0f0f0f0, 0x0f0f0f0f})
	ixRun(t, "not.b16 %d, %a;", ixT("b16", "b16"), []uint64{0x00ff, 0xff00})
	ixRun(t, "not.b64 %d, %a;", ixT("b64", "b64"), []uint64{0, math.MaxUint64})
	ixRun(t, "cnot.b32 %d, %a;", ixT("b32", "b32"), []uint64{0, 1}, []uint64{1, 0}, []uint64{0x80000000, 0})
	ixRun(t, "cnot.b16 %d, %a;", ixT("b16", "b16"), []uint64{0, 1}, []uint64{0x8000, 0})
	ixRun(t, "cnot.b64 %d, %a;", ixT("b64", "b64"), []uint64{1 << 63, 0}, []uint64{0, 1})
	ixKernelErr(t, "and.u32 %d, %a, %b;", ixT("u32", "u32", "u32"), "type .u32 is not valid")
	ixKernelErr(t, "cnot.pred %d, %a;", ixT("pred", "pred"), "type .pred is not valid")
}

func TestLogicPred(t *testing.T) {
	tt := [][]uint64{{0, 0}, {0, 1}, {1, 0}, {1, 1}}
	for _, c := range []struct {
		instr string
		f     func(a, b uint64) uint64
	}{
		{"and.pred %d, %a, %b;", func(a, b uint64) uint64 { return a & b }},
		{"or.pred %d, %a, %b;", func(a, b uint64) uint64 { return a | b }},
		{"xor.pred %d, %a, %b;", func(a, b uint64) uint64 { return a ^ b }},
		{"and.pred %d, !%a, %b;", func(a, b uint64) uint64 { return (a ^ 1) & b }},
		{"or.pred %d, %a, !%b;", func(a, b uint64) uint64 { return a | (b ^ 1) }},
		{"not.pred %d, %a;", func(a, _ uint64) uint64 { return a ^ 1 }},
		{"mov.pred %d, %a;", func(a, _ uint64) uint64 { return a }},
		{"mov.pred %d, !%a;", func(a, _ uint64) uint64 { return a ^ 1 }},
	} {
		var rows [][]uint64
		unary := strings.HasPrefix(c.instr, "not") || strings.HasPrefix(c.instr, "mov")
		for _, r := range tt {
			if unary {
				rows = append(rows, []uint64{r[0], c.f(r[0], 0)})
			} else {
				rows = append(rows, []uint64{r[0], r[1], c.f(r[0], r[1])})
			}
		}
		tys := ixT("pred", "pred", "pred")
		if unary {
			tys = ixT("pred", "pred")
		}
		ixRun(t, c.instr, tys, rows...)
	}
}

// lop3 over the constants F0, CC, AA yields the table itself, for every
// one of the 256 tables.
func TestLogicLop3Tables(t *testing.T) {
	var sb strings.Builder
	sb.WriteString(ixHdr + ".visible .entry k(.param .u64 in, .param .u64 out)\n{\n\t.reg .u64 %op;\n\t.reg .b32 %r, %a, %b, %c;\n")
	sb.WriteString("\tld.param.u64 %op, [out];\n\tmov.b32 %a, 0xF0F0F0F0;\n\tmov.b32 %b, 0xCCCCCCCC;\n\tmov.b32 %c, 0xAAAAAAAA;\n")
	for i := 0; i < 256; i++ {
		fmt.Fprintf(&sb, "\tlop3.b32 %%r, %%a, %%b, %%c, %d;\n\tst.global.u32 [%%op+%d], %%r;\n", i, 4*i)
	}
	sb.WriteString("\tret;\n}\n")
	out := runIntKernel(t, sb.String(), 1, nil, 1024)
	for i := 0; i < 256; i++ {
		got := binary.LittleEndian.Uint32(out[4*i:])
		want := uint32(i) * 0x01010101
		if got != want {
			t.Errorf("lop3 table %#02x: got %#08x, want %#08x", i, got, want)
		}
	}
	rng := rand.New(rand.NewSource(5))
	for _, c := range []struct {
		lut int
		f   func(a, b, c uint64) uint64
	}{
		{0x96, func(a, b, c uint64) uint64 { return a ^ b ^ c }},
		{0xe8, func(a, b, c uint64) uint64 { return a&b | a&c | b&c }},
		{0xca, func(a, b, c uint64) uint64 { return a&b | ^a&c }},
		{0x40, func(a, b, c uint64) uint64 { return a & b &^ c }},
		{0x1a, func(a, b, c uint64) uint64 { return (a&b | c) ^ a }},
		{0x00, func(a, b, c uint64) uint64 { return 0 }},
		{0xff, func(a, b, c uint64) uint64 { return math.MaxUint64 }},
	} {
		var rows [][]uint64
		for i := 0; i < 8; i++ {
			a, b, cc := uint64(rng.Uint32()), uint64(rng.Uint32()), uint64(rng.Uint32())
			rows = append(rows, []uint64{a, b, cc, c.f(a, b, cc) & 0xffffffff})
		}
		ixRun(t, fmt.Sprintf("lop3.b32 %%d, %%a, %%b, %%c, %#x;", c.lut), ixT("b32", "b32", "b32", "b32"), rows...)
	}
	ixKernelErr(t, "lop3.b32 %d, %a, %b, %c, 256;", ixT("b32", "b32", "b32", "b32"), "immLut must be an integer from 0 to 255")
	ixKernelErr(t, "lop3.b32 %d, %a, %b, %c, %a;", ixT("b32", "b32", "b32", "b32"), "must be a constant")
}

// The PTX 8.2 form with a predicate result: p = (d != 0) BoolOp q.
func TestLogicLop3Pred(t *testing.T) {
	ixRun(t, "lop3.or.b32 %d|%q, %a, %b, %c, 0x80, %e;", ixT("b32", "b32", "b32", "b32", "pred"),
		[]uint64{1, 1, 1, 0, 1, 1}, []uint64{1, 1, 0, 0, 0, 0}, []uint64{1, 1, 0, 1, 0, 1}, []uint64{3, 2, 6, 0, 2, 1})
	ixRun(t, "lop3.and.b32 %d|%q, %a, %b, %c, 0x80, !%e;", ixT("b32", "b32", "b32", "b32", "pred"),
		[]uint64{1, 1, 1, 0, 1, 1}, []uint64{1, 1, 1, 1, 1, 0}, []uint64{1, 1, 0, 0, 0, 0})
	ixRun(t, "lop3.and.b32 _|%q, %a, %b, %c, 0xfe, %e;", ixT("b32", "b32", "b32", "b32", "pred"),
		[]uint64{0, 0, 0, 1, ixSentinel, 0}, []uint64{0, 4, 0, 1, ixSentinel, 1}, []uint64{0, 4, 0, 0, ixSentinel, 0})
	ixKernelErr(t, "lop3.or.b32 %d, %a, %b, %c, 0x80, %e;", ixT("b32", "b32", "b32", "b32", "pred"), "needs a destination pair d|p")
	ixKernelErr(t, "lop3.xor.b32 %d|%q, %a, %b, %c, 0x80, %e;", ixT("b32", "b32", "b32", "b32", "pred"), "expects .and or .or")
}

func TestLogicShf(t *testing.T) {
	a, b := uint64(0x12345678), uint64(0x9abcdef0)
	ixRun(t, "shf.l.clamp.b32 %d, %a, %b, %c;", ixT("b32", "b32", "b32", "u32"),
		[]uint64{a, b, 12, 0xcdef0123}, []uint64{a, b, 44, a}, []uint64{a, b, 0, b}, []uint64{a, b, 32, a}, []uint64{a, b, 0xffffffff, a})
	ixRun(t, "shf.l.wrap.b32 %d, %a, %b, %c;", ixT("b32", "b32", "b32", "u32"),
		[]uint64{a, b, 12, 0xcdef0123}, []uint64{a, b, 44, 0xcdef0123}, []uint64{a, b, 32, b}, []uint64{a, b, 1, 0x3579bde0})
	ixRun(t, "shf.r.clamp.b32 %d, %a, %b, %c;", ixT("b32", "b32", "b32", "u32"),
		[]uint64{a, b, 12, 0xef012345}, []uint64{a, b, 44, b}, []uint64{a, b, 0, a}, []uint64{a, b, 31, 0x3579bde0})
	ixRun(t, "shf.r.wrap.b32 %d, %a, %b, %c;", ixT("b32", "b32", "b32", "u32"),
		[]uint64{a, b, 12, 0xef012345}, []uint64{a, b, 44, 0xef012345}, []uint64{a, b, 32, a})
	ixKernelErr(t, "shf.l.b32 %d, %a, %b, %c;", ixT("b32", "b32", "b32", "u32"), "needs a direction (.l or .r) and a mode (.clamp or .wrap)")
	ixKernelErr(t, "shf.l.r.wrap.b32 %d, %a, %b, %c;", ixT("b32", "b32", "b32", "u32"), ".l and .r cannot be combined")
}

func TestLogicShifts(t *testing.T) {
	ixRun(t, "shl.b32 %d, %a, %b;", ixT("b32", "b32", "u32"),
		[]uint64{1, 31, 0x80000000}, []uint64{1, 32, 0}, []uint64{1, 0xffffffff, 0}, []uint64{0xffffffff, 4, 0xfffffff0}, []uint64{3, 0, 3})
	ixRun(t, "shl.b16 %d, %a, %b;", ixT("b16", "b16", "u32"), []uint64{1, 15, 0x8000}, []uint64{1, 16, 0}, []uint64{0xffff, 8, 0xff00})
	ixRun(t, "shl.b64 %d, %a, %b;", ixT("b64", "b64", "u32"), []uint64{1, 63, 1 << 63}, []uint64{1, 64, 0}, []uint64{3, 1000, 0}, []uint64{0xb, 2, 0x2c})
	ixRun(t, "shl.b64 %d, %a, 2;", ixT("b64", "b64"), []uint64{0xb, 0x2c})
	ixRun(t, "shr.u32 %d, %a, %b;", ixT("u32", "u32", "u32"), []uint64{0x80000000, 31, 1}, []uint64{0x80000000, 32, 0}, []uint64{0xffffffff, 0x80000000, 0})
	ixRun(t, "shr.b32 %d, %a, %b;", ixT("b32", "b32", "u32"), []uint64{0x80000000, 4, 0x08000000})
	ixRun(t, "shr.s32 %d, %a, %b;", ixT("s32", "s32", "u32"),
		[]uint64{0x80000000, 31, 0xffffffff}, []uint64{0x80000000, 32, 0xffffffff}, []uint64{0x80000000, 0xffffffff, 0xffffffff},
		[]uint64{0x40000000, 40, 0}, []uint64{0xfffffffe, 1, 0xffffffff}, []uint64{0x80000000, 4, 0xf8000000})
	ixRun(t, "shr.s16 %d, %a, %b;", ixT("s16", "s16", "u32"), []uint64{0x8000, 16, 0xffff}, []uint64{0x8000, 1, 0xc000}, []uint64{0x4000, 20, 0})
	ixRun(t, "shr.u16 %d, %a, %b;", ixT("u16", "u16", "u32"), []uint64{0x8000, 15, 1}, []uint64{0x8000, 16, 0})
	ixRun(t, "shr.s64 %d, %a, %b;", ixT("s64", "s64", "u32"), []uint64{1 << 63, 64, math.MaxUint64}, []uint64{1 << 62, 200, 0}, []uint64{1 << 63, 62, ixU(-2)})
	ixRun(t, "shr.u64 %d, %a, %b;", ixT("u64", "u64", "u32"), []uint64{1 << 63, 63, 1}, []uint64{1 << 63, 64, 0})
	ixKernelErr(t, "shl.u32 %d, %a, %b;", ixT("u32", "u32", "u32"), "type .u32 is not valid")
	ixKernelErr(t, "shl.b64 %d, %a, %b;", ixT("b64", "b64", "b64"), "incompatible with .u32")
}
