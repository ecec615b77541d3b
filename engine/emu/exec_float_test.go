package emu

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand"
	"strings"
	"testing"

	"github.com/ptxplayground/ptxplay/engine/fpx"
	"github.com/ptxplayground/ptxplay/engine/ptx"
)

// ---- helpers shared by exec_float_test.go and exec_cvt_test.go ----

// fxHeader is the default module header of the test kernels.
const fxHeader = ".version 8.5\n.target sm_90\n.address_size 64\n"

// fxCompile compiles src, failing the test on errors.
func fxCompile(t testing.TB, src string) *Program {
	t.Helper()
	s := ptx.NewSource("t.ptx", []byte(src))
	prog, diags := CompileSource(s)
	if prog == nil {
		t.Fatalf("compile:\n%s\nsource:\n%s", ptx.FormatAll(s, diags), src)
	}
	return prog
}

// fxDiags compiles src and returns whether it compiled and the formatted
// diagnostics (errors and warnings).
func fxDiags(src string) (bool, string) {
	s := ptx.NewSource("t.ptx", []byte(src))
	prog, diags := CompileSource(s)
	return prog != nil, ptx.FormatAll(s, diags)
}

// fxLaunch runs kernel entry of prog with one CTA of block threads; params
// are u64 values (buffer addresses) allocated from bufs, returned after the
// run.
func fxLaunch(t testing.TB, prog *Program, entry string, block [3]int, bufs [][]byte) [][]byte {
	t.Helper()
	m, err := NewMachine(prog, entry, Config{Grid: [3]int{1, 1, 1}, Block: block, MaxWarpInstructions: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	allocs := make([]*Alloc, len(bufs))
	for i, data := range bufs {
		a := m.Global.Alloc(fmt.Sprintf("buf%d", i), max(len(data), 1), 256)
		copy(a.Data, data)
		allocs[i] = a
		binary.LittleEndian.PutUint64(m.Params()[8*i:], a.Base)
	}
	if r := m.Run(context.Background()); r != StopDone {
		t.Fatalf("run stopped with %v: %v", r, m.Fault())
	}
	out := make([][]byte, len(bufs))
	for i, a := range allocs {
		out[i] = a.Data
	}
	return out
}

// fxRegBits is the width of a register type name ("b32", "f16x2", "pred").
func fxRegBits(rt string) int {
	switch {
	case strings.HasSuffix(rt, "64"):
		return 64
	case strings.HasSuffix(rt, "32"), strings.HasSuffix(rt, "x2") && !strings.Contains(rt, "e"):
		return 32
	case strings.HasSuffix(rt, "16"):
		return 16
	case strings.HasSuffix(rt, "8"):
		return 8
	}
	return 32
}

// fxEval runs instr once per row, one thread per row. instr names its
// destination %d and its sources %a, %b, %c; dreg and sregs are their
// register types (dreg "pred" for a predicate destination, read back as
// 0/1). Each row holds the raw bits of the sources; the result is the raw
// bits of %d per row. header replaces fxHeader when not empty.
func fxEval(t testing.TB, header, instr, dreg string, sregs []string, rows [][]uint64) []uint64 {
	t.Helper()
	if header == "" {
		header = fxHeader
	}
	var sb strings.Builder
	sb.WriteString(header)
	sb.WriteString(".visible .entry k(.param .u64 in, .param .u64 out)\n{\n\t.reg .b64 %rd<8>;\n")
	names := []string{"%a", "%b", "%c"}
	if dreg == "pred" {
		sb.WriteString("\t.reg .pred %d;\n\t.reg .b32 %one;\n")
	} else {
		fmt.Fprintf(&sb, "\t.reg .%s %%d;\n", dreg)
	}
	for i, r := range sregs {
		fmt.Fprintf(&sb, "\t.reg .%s %s;\n", r, names[i])
	}
	sb.WriteString("\tld.param.u64 %rd1, [in];\n\tld.param.u64 %rd2, [out];\n\tcvt.u64.u32 %rd3, %tid.x;\n")
	sb.WriteString("\tmul.lo.u64 %rd4, %rd3, 32;\n\tadd.u64 %rd5, %rd1, %rd4;\n")
	for i, r := range sregs {
		fmt.Fprintf(&sb, "\tld.global.b%d %s, [%%rd5+%d];\n", fxRegBits(r), names[i], 8*i)
	}
	fmt.Fprintf(&sb, "\t%s;\n", instr)
	sb.WriteString("\tmul.lo.u64 %rd6, %rd3, 8;\n\tadd.u64 %rd7, %rd2, %rd6;\n")
	if dreg == "pred" {
		sb.WriteString("\tld.global.b32 %one, [%rd5+24];\n\t@%d st.global.b32 [%rd7], %one;\n")
	} else {
		fmt.Fprintf(&sb, "\tst.global.b%d [%%rd7], %%d;\n", fxRegBits(dreg))
	}
	sb.WriteString("\tret;\n}\n")
	prog := fxCompile(t, sb.String())
	in := make([]byte, 32*len(rows))
	for i, row := range rows {
		for j, v := range row {
			binary.LittleEndian.PutUint64(in[32*i+8*j:], v)
		}
		binary.LittleEndian.PutUint32(in[32*i+24:], 1)
	}
	out := fxLaunch(t, prog, "k", [3]int{len(rows), 1, 1}, [][]byte{in, make([]byte, 8*len(rows))})[1]
	res := make([]uint64, len(rows))
	bits := fxRegBits(dreg)
	for i := range res {
		v := binary.LittleEndian.Uint64(out[8*i:])
		if bits < 64 {
			v &= 1<<uint(bits) - 1
		}
		if dreg == "pred" {
			v &= 1
		}
		res[i] = v
	}
	return res
}

// fxRow is one case: the source bits and the expected result bits.
type fxRow struct {
	src  []uint64
	want uint64
}

// fxCheck runs instr on every row and compares the results.
func fxCheck(t *testing.T, header, instr, dreg string, sregs []string, rows []fxRow) {
	t.Helper()
	in := make([][]uint64, len(rows))
	for i, r := range rows {
		in[i] = r.src
	}
	got := fxEval(t, header, instr, dreg, sregs, in)
	for i, r := range rows {
		if got[i] != r.want {
			t.Errorf("%s with %#x: got %#x, want %#x", instr, r.src, got[i], r.want)
		}
	}
}

// fxSnippet wraps one instruction into a kernel declaring %f* (.f32), %fd*
// (.f64), %h* (.b16), %r* (.b32), %rd* (.b64) and %p* (.pred).
func fxSnippet(header, instr string) string {
	if header == "" {
		header = fxHeader
	}
	return header + `.visible .entry k()
{
	.reg .f32 %f<4>; .reg .f64 %fd<4>; .reg .b16 %h<4>; .reg .b32 %r<4>; .reg .b64 %rd<4>; .reg .pred %p<2>;
	.reg .s32 %s<2>; .reg .u16 %us<2>; .reg .f16 %hf<2>;
	` + instr + `;
	ret;
}
`
}

// fxWantError checks that instr fails to compile with a message containing want.
func fxWantError(t *testing.T, header, instr, want string) {
	t.Helper()
	ok, msg := fxDiags(fxSnippet(header, instr))
	if ok || !strings.Contains(msg, want) {
		t.Errorf("%s: want an error containing %q, got ok=%v:\n%s", instr, want, ok, msg)
	}
}

// fxWantOK checks that instr compiles.
func fxWantOK(t *testing.T, header, instr string) {
	t.Helper()
	if ok, msg := fxDiags(fxSnippet(header, instr)); !ok {
		t.Errorf("%s: want success, got:\n%s", instr, msg)
	}
}

func f32b(f float32) uint64 { return uint64(math.Float32bits(f)) }
func f64b(f float64) uint64 { return math.Float64bits(f) }

var (
	fx1s  = []string{"f32"}
	fx2s  = []string{"f32", "f32"}
	fx3s  = []string{"f32", "f32", "f32"}
	fx1d  = []string{"f64"}
	fx2d  = []string{"f64", "f64"}
	fx3d  = []string{"f64", "f64", "f64"}
	fx1h  = []string{"b16"}
	fx2h  = []string{"b16", "b16"}
	fx3h  = []string{"b16", "b16", "b16"}
	fx1w  = []string{"b32"}
	fx2w  = []string{"b32", "b32"}
	fx3w  = []string{"b32", "b32", "b32"}
	fxSub = uint64(0x00400000) // an f32 subnormal (2^-127)
)

// ---- add / sub / mul ----

func TestFloatAddSubMulRounding(t *testing.T) {
	one, tiny := f32b(1), uint64(0x33800000) // 2^-24: half an ulp of 1.0
	rows := func(want ...uint64) []fxRow {
		return []fxRow{
			{[]uint64{one, tiny}, want[0]},
			{[]uint64{one | 1<<31, tiny | 1<<31}, want[1]},
			{[]uint64{one, 0x33c00000}, want[2]}, // 1 + 1.5*2^-24
		}
	}
	fxCheck(t, "", "add.f32 %d, %a, %b", "f32", fx2s, rows(one, one|1<<31, 0x3f800001))
	fxCheck(t, "", "add.rn.f32 %d, %a, %b", "f32", fx2s, rows(one, one|1<<31, 0x3f800001))
	fxCheck(t, "", "add.rz.f32 %d, %a, %b", "f32", fx2s, rows(one, one|1<<31, one))
	fxCheck(t, "", "add.rm.f32 %d, %a, %b", "f32", fx2s, rows(one, 0xbf800001, one))
	fxCheck(t, "", "add.rp.f32 %d, %a, %b", "f32", fx2s, rows(0x3f800001, one|1<<31, 0x3f800001))
	// 1 - 2^-25 is between 1-2^-24 and 1.
	fxCheck(t, "", "sub.rz.f32 %d, %a, %b", "f32", fx2s, []fxRow{{[]uint64{one, 0x33000000}, 0x3f7fffff}})
	fxCheck(t, "", "sub.rp.f32 %d, %a, %b", "f32", fx2s, []fxRow{{[]uint64{one, 0x33000000}, one}})
	fxCheck(t, "", "sub.f32 %d, %a, %b", "f32", fx2s, []fxRow{{[]uint64{one, one}, 0}, {[]uint64{f32b(5), f32b(7)}, f32b(-2)}})
	// Exact zero sums: +0 except in .rm.
	fxCheck(t, "", "sub.rm.f32 %d, %a, %b", "f32", fx2s, []fxRow{{[]uint64{one, one}, 0x80000000}})
	// (1+2^-23)^2 = 1 + 2^-22 + 2^-46.
	sq := []uint64{0x3f800001, 0x3f800001}
	fxCheck(t, "", "mul.rn.f32 %d, %a, %b", "f32", fx2s, []fxRow{{sq, 0x3f800002}, {[]uint64{f32b(3), f32b(-0.5)}, f32b(-1.5)}})
	fxCheck(t, "", "mul.rz.f32 %d, %a, %b", "f32", fx2s, []fxRow{{sq, 0x3f800002}})
	fxCheck(t, "", "mul.rp.f32 %d, %a, %b", "f32", fx2s, []fxRow{{sq, 0x3f800003}})
	fxCheck(t, "", "mul.rm.f32 %d, %a, %b", "f32", fx2s, []fxRow{{sq, 0x3f800002}})
	// Overflow: .rn gives Inf, .rz the largest finite value.
	big := uint64(0x7f7fffff)
	fxCheck(t, "", "mul.f32 %d, %a, %b", "f32", fx2s, []fxRow{{[]uint64{big, f32b(2)}, 0x7f800000}})
	fxCheck(t, "", "mul.rz.f32 %d, %a, %b", "f32", fx2s, []fxRow{{[]uint64{big, f32b(2)}, big}})
	// f64
	d1 := f64b(1)
	fxCheck(t, "", "add.f64 %d, %a, %b", "f64", fx2d, []fxRow{{[]uint64{d1, f64b(0x1p-60)}, d1}, {[]uint64{d1, d1}, f64b(2)}})
	fxCheck(t, "", "add.rp.f64 %d, %a, %b", "f64", fx2d, []fxRow{{[]uint64{d1, f64b(0x1p-60)}, d1 + 1}})
	fxCheck(t, "", "sub.rm.f64 %d, %a, %b", "f64", fx2d, []fxRow{{[]uint64{d1, f64b(0x1p-60)}, f64b(1 - 0x1p-53)}})
	fxCheck(t, "", "mul.rz.f64 %d, %a, %b", "f64", fx2d, []fxRow{{[]uint64{f64b(1 + 0x1p-52), f64b(1 + 0x1p-52)}, f64b(1 + 0x1p-51)}})
	fxCheck(t, "", "mul.rp.f64 %d, %a, %b", "f64", fx2d, []fxRow{{[]uint64{f64b(1 + 0x1p-52), f64b(1 + 0x1p-52)}, f64b(1 + 0x1p-51 + 0x1p-52)}})
	fxCheck(t, "", "sub.f64 %d, %a, %b", "f64", fx2d, []fxRow{{[]uint64{f64b(1.5), f64b(0.25)}, f64b(1.25)}})
}

func TestFloatNaNCanonical(t *testing.T) {
	inf, ninf := uint64(0x7f800000), uint64(0xff800000)
	payload := uint64(0x7fc12345)
	rows := []fxRow{
		{[]uint64{payload, f32b(1)}, 0x7fffffff},
		{[]uint64{0xffc00001, f32b(1)}, 0x7fffffff},
		{[]uint64{inf, ninf}, 0x7fffffff},
	}
	fxCheck(t, "", "add.f32 %d, %a, %b", "f32", fx2s, rows)
	fxCheck(t, "", "add.rz.ftz.f32 %d, %a, %b", "f32", fx2s, rows)
	fxCheck(t, "", "sub.f32 %d, %a, %b", "f32", fx2s, []fxRow{{[]uint64{inf, inf}, 0x7fffffff}})
	fxCheck(t, "", "mul.f32 %d, %a, %b", "f32", fx2s, []fxRow{{[]uint64{0, inf}, 0x7fffffff}, {[]uint64{payload, 0}, 0x7fffffff}})
	fxCheck(t, "", "fma.rn.f32 %d, %a, %b, %c", "f32", fx3s, []fxRow{{[]uint64{0, inf, 0}, 0x7fffffff}, {[]uint64{f32b(1), f32b(1), payload}, 0x7fffffff}})
	fxCheck(t, "", "div.rn.f32 %d, %a, %b", "f32", fx2s, []fxRow{{[]uint64{0, 0}, 0x7fffffff}})
	fxCheck(t, "", "sqrt.rn.f32 %d, %a", "f32", fx1s, []fxRow{{[]uint64{f32b(-1)}, 0x7fffffff}})
	// f64 keeps NaN payloads (ISA: "NaN payloads are supported for
	// double-precision instructions"): the first NaN operand, quieted; an
	// invalid operation without NaN operands gives the canonical NaN.
	dn := uint64(0x7ff8000000012345)
	sn := uint64(0xfff0000000000777) // negative signalling NaN
	sq := sn | 1<<51
	fxCheck(t, "", "mul.rz.f64 %d, %a, %b", "f64", fx2d, []fxRow{{[]uint64{0, 0x7ff0000000000000}, 0x7fffffffffffffff}})
	for _, in := range []string{"add.f64", "add.rn.f64", "add.rm.f64", "sub.f64", "sub.rp.f64", "mul.f64", "mul.rz.f64", "div.rn.f64", "div.rz.f64"} {
		fxCheck(t, "", in+" %d, %a, %b", "f64", fx2d, []fxRow{
			{[]uint64{dn, f64b(1)}, dn},
			{[]uint64{f64b(2), dn}, dn},
			{[]uint64{sn, dn}, sq},
			{[]uint64{dn, sn}, dn},
			{[]uint64{f64b(3), sn}, sq},
		})
	}
	for _, in := range []string{"fma.rn.f64", "fma.rp.f64", "mad.rn.f64"} {
		fxCheck(t, "", in+" %d, %a, %b, %c", "f64", fx3d, []fxRow{
			{[]uint64{dn, 0, 0}, dn},
			{[]uint64{f64b(1), sn, dn}, sq},
			{[]uint64{0, 0x7ff0000000000000, dn}, dn},
			{[]uint64{f64b(1), f64b(1), sn}, sq},
			{[]uint64{0, 0x7ff0000000000000, f64b(1)}, 0x7fffffffffffffff},
		})
	}
	fxCheck(t, "", "rcp.rn.f64 %d, %a", "f64", fx1d, []fxRow{{[]uint64{sn}, sq}})
	fxCheck(t, "", "sqrt.rz.f64 %d, %a", "f64", fx1d, []fxRow{{[]uint64{sn}, sq}, {[]uint64{f64b(-1)}, 0x7fffffffffffffff}})
	fxCheck(t, "", "sqrt.rn.f64 %d, %a", "f64", fx1d, []fxRow{{[]uint64{dn}, dn}})
	fxCheck(t, "", "add.f16 %d, %a, %b", "b16", fx2h, []fxRow{{[]uint64{0x7e01, 0x3c00}, 0x7fff}, {[]uint64{0x7c00, 0xfc00}, 0x7fff}})
	fxCheck(t, "", "mul.bf16 %d, %a, %b", "b16", fx2h, []fxRow{{[]uint64{0x7fc1, 0x3f80}, 0x7fff}})
}

func TestFloatFtz(t *testing.T) {
	// zluda mul_ftz / mul_non_ftz: -2^-127 * 0.5.
	a, half := uint64(0x80400000), uint64(0x3f000000)
	fxCheck(t, "", "mul.ftz.f32 %d, %a, %b", "f32", fx2s, []fxRow{{[]uint64{a, half}, 0x80000000}})
	fxCheck(t, "", "mul.f32 %d, %a, %b", "f32", fx2s, []fxRow{{[]uint64{a, half}, 0x80200000}})
	// A subnormal input is flushed; a subnormal result is flushed.
	fxCheck(t, "", "add.ftz.f32 %d, %a, %b", "f32", fx2s, []fxRow{
		{[]uint64{fxSub, 0}, 0},
		{[]uint64{fxSub, f32b(1)}, f32b(1)},
		{[]uint64{0x00800001, 0x80800000}, 0}, // 2^-149 result
	})
	fxCheck(t, "", "add.f32 %d, %a, %b", "f32", fx2s, []fxRow{{[]uint64{0x00800001, 0x80800000}, 1}})
	fxCheck(t, "", "sub.ftz.f32 %d, %a, %b", "f32", fx2s, []fxRow{{[]uint64{fxSub | 1<<31, 0}, 0x80000000}})
	fxCheck(t, "", "fma.rn.ftz.f32 %d, %a, %b, %c", "f32", fx3s, []fxRow{{[]uint64{fxSub, f32b(2), 0}, 0}})
	fxCheck(t, "", "fma.rn.f32 %d, %a, %b, %c", "f32", fx3s, []fxRow{{[]uint64{fxSub, f32b(2), 0}, 0x00800000}})
	fxCheck(t, "", "neg.ftz.f32 %d, %a", "f32", fx1s, []fxRow{{[]uint64{fxSub}, 0x80000000}, {[]uint64{f32b(2)}, f32b(-2)}})
	fxCheck(t, "", "neg.f32 %d, %a", "f32", fx1s, []fxRow{{[]uint64{fxSub}, fxSub | 1<<31}})
	fxCheck(t, "", "abs.ftz.f32 %d, %a", "f32", fx1s, []fxRow{{[]uint64{fxSub | 1<<31}, 0}, {[]uint64{f32b(-3)}, f32b(3)}})
	fxCheck(t, "", "abs.f32 %d, %a", "f32", fx1s, []fxRow{{[]uint64{fxSub | 1<<31}, fxSub}})
	fxCheck(t, "", "min.ftz.f32 %d, %a, %b", "f32", fx2s, []fxRow{{[]uint64{fxSub, 0x80000000}, 0x80000000}})
	// zluda div_ftz / div_noftz.
	fxCheck(t, "", "div.ftz.rn.f32 %d, %a, %b", "b32", fx2w, []fxRow{{[]uint64{0x16a2028d, 0x5e89f6ae}, 0}})
	fxCheck(t, "", "div.rn.f32 %d, %a, %b", "b32", fx2w, []fxRow{{[]uint64{0x16a2028d, 0x5e89f6ae}, 0x26}})
	fxCheck(t, "", "sqrt.rn.ftz.f32 %d, %a", "b32", fx1w, []fxRow{{[]uint64{1}, 0}})
	fxCheck(t, "", "rcp.approx.ftz.f32 %d, %a", "f32", fx1s, []fxRow{{[]uint64{fxSub}, 0x7f800000}})
	// f16 .ftz
	fxCheck(t, "", "add.ftz.f16 %d, %a, %b", "b16", fx2h, []fxRow{{[]uint64{0x0001, 0}, 0}, {[]uint64{0x8001, 0x3c00}, 0x3c00}})
	fxCheck(t, "", "add.f16 %d, %a, %b", "b16", fx2h, []fxRow{{[]uint64{0x0001, 0x0001}, 0x0002}})
}

func TestFloatSat(t *testing.T) {
	rows := []fxRow{
		{[]uint64{f32b(0.75), f32b(0.5)}, f32b(1)},
		{[]uint64{f32b(-1), f32b(0.5)}, 0},
		{[]uint64{f32b(0.25), f32b(0.5)}, f32b(0.75)},
		{[]uint64{0x7fc00000, f32b(1)}, 0},
		{[]uint64{0x80000000, 0x80000000}, 0}, // -0 becomes +0
	}
	fxCheck(t, "", "add.sat.f32 %d, %a, %b", "f32", fx2s, rows)
	fxCheck(t, "", "add.rz.sat.f32 %d, %a, %b", "f32", fx2s, rows)
	fxCheck(t, "", "mul.sat.f32 %d, %a, %b", "f32", fx2s, []fxRow{{[]uint64{f32b(4), f32b(0.5)}, f32b(1)}, {[]uint64{f32b(-4), f32b(0.1)}, 0}})
	fxCheck(t, "", "sub.sat.f32 %d, %a, %b", "f32", fx2s, []fxRow{{[]uint64{f32b(0.5), f32b(1)}, 0}})
	fxCheck(t, "", "fma.rn.sat.f32 %d, %a, %b, %c", "f32", fx3s, []fxRow{{[]uint64{f32b(2), f32b(2), f32b(-3.5)}, f32b(0.5)}, {[]uint64{f32b(2), f32b(2), f32b(1)}, f32b(1)}})
	fxCheck(t, "", "mad.rn.sat.f32 %d, %a, %b, %c", "f32", fx3s, []fxRow{{[]uint64{f32b(2), f32b(2), f32b(-5)}, 0}})
	fxCheck(t, "", "add.sat.f16 %d, %a, %b", "b16", fx2h, []fxRow{{[]uint64{0x3c00, 0x3c00}, 0x3c00}, {[]uint64{0xbc00, 0x3800}, 0}, {[]uint64{0x7e00, 0x3800}, 0}})
	fxCheck(t, "", "mul.sat.f16x2 %d, %a, %b", "b32", fx2w, []fxRow{{[]uint64{0x40003800, 0x40004000}, 0x3c003c00}})
}

// ---- fma / mad ----

func TestFloatFma(t *testing.T) {
	// zluda fma: 2*3+5.
	fxCheck(t, "", "fma.rn.f32 %d, %a, %b, %c", "f32", fx3s, []fxRow{{[]uint64{f32b(2), f32b(3), f32b(5)}, 0x41300000}})
	// (1+2^-12)^2 - 1 = 2^-11 + 2^-24 exactly: fused, no intermediate rounding.
	a := uint64(0x3f800800)
	fused := []fxRow{{[]uint64{a, a, f32b(-1)}, 0x3a000400}}
	fxCheck(t, "", "fma.rn.f32 %d, %a, %b, %c", "f32", fx3s, fused)
	fxCheck(t, "", "mad.rn.f32 %d, %a, %b, %c", "f32", fx3s, fused)
	fxCheck(t, "", "fma.rz.f32 %d, %a, %b, %c", "f32", fx3s, fused)
	// The unfused sequence loses the low term.
	p := fxEval(t, "", "mul.rn.f32 %d, %a, %b", "f32", fx2s, [][]uint64{{a, a}})[0]
	fxCheck(t, "", "add.rn.f32 %d, %a, %b", "f32", fx2s, []fxRow{{[]uint64{p, f32b(-1)}, 0x3a000000}})
	// Directed modes: 1*1 + 2^-30.
	small := []uint64{f32b(1), f32b(1), f32b(0x1p-30)}
	fxCheck(t, "", "fma.rp.f32 %d, %a, %b, %c", "f32", fx3s, []fxRow{{small, 0x3f800001}})
	fxCheck(t, "", "fma.rm.f32 %d, %a, %b, %c", "f32", fx3s, []fxRow{{small, 0x3f800000}})
	fxCheck(t, "", "fma.rn.f32 %d, %a, %b, %c", "f32", fx3s, []fxRow{{small, 0x3f800000}})
	// Ties in the f32 result, the subnormal range and zero sums take the exact path.
	fxCheck(t, "", "fma.rn.f32 %d, %a, %b, %c", "f32", fx3s, []fxRow{
		{[]uint64{f32b(1), f32b(1), 0x33800000}, f32b(1)},                     // 1 + 2^-24: tie to even
		{[]uint64{f32b(1), 0x3f800001, 0x33800000}, 0x3f800002},               // (1+2^-23) + 2^-24: tie to even (up)
		{[]uint64{f32b(0x1p-100), f32b(0x1p-40), f32b(0x1p-149)}, 0x00000201}, // 2^-140 + 2^-149
		{[]uint64{f32b(1), f32b(-1), f32b(1)}, 0},
		{[]uint64{f32b(-1), f32b(1), f32b(1)}, 0},
		{[]uint64{0x7f800000, f32b(1), f32b(1)}, 0x7f800000},
		{[]uint64{0x7f7fffff, f32b(2), 0xff7fffff}, 0x7f7fffff},
	})
	fxCheck(t, "", "fma.rm.f32 %d, %a, %b, %c", "f32", fx3s, []fxRow{{[]uint64{f32b(1), f32b(-1), f32b(1)}, 0x80000000}})
	// f64
	d := []uint64{f64b(1 + 0x1p-30), f64b(1 + 0x1p-30), f64b(-1)}
	fxCheck(t, "", "fma.rn.f64 %d, %a, %b, %c", "f64", fx3d, []fxRow{{d, f64b(0x1p-29 + 0x1p-60)}})
	fxCheck(t, "", "mad.rn.f64 %d, %a, %b, %c", "f64", fx3d, []fxRow{{d, f64b(0x1p-29 + 0x1p-60)}})
	fxCheck(t, "", "fma.rp.f64 %d, %a, %b, %c", "f64", fx3d, []fxRow{{[]uint64{f64b(1), f64b(1), f64b(0x1p-80)}, f64b(1) + 1}})
	fxCheck(t, "", "fma.rz.f64 %d, %a, %b, %c", "f64", fx3d, []fxRow{{[]uint64{f64b(1), f64b(1), f64b(-0x1p-80)}, f64b(1) - 1}})
}

func TestFloatMadLegacyAndErrors(t *testing.T) {
	legacy := ".version 1.4\n.target sm_13\n.address_size 64\n"
	fxCheck(t, legacy, "mad.f32 %d, %a, %b, %c", "f32", fx3s, []fxRow{{[]uint64{f32b(2), f32b(3), f32b(5)}, f32b(11)}})
	fxWantError(t, "", "mad.f32 %f1, %f2, %f3, %f1", "requires a rounding modifier")
	fxWantError(t, "", "mad.f64 %fd1, %fd2, %fd3, %fd1", "requires a rounding modifier")
	fxWantOK(t, ".version 1.3\n.target sm_13\n.address_size 64\n", "mad.f64 %fd1, %fd2, %fd3, %fd1")
	fxWantError(t, "", "fma.f32 %f1, %f2, %f3, %f1", "requires a rounding modifier")
	fxWantError(t, "", "fma.rn.sat.f64 %fd1, %fd2, %fd3, %fd1", "modifier .sat is not valid")
	fxWantError(t, "", "fma.rni.f32 %f1, %f2, %f3, %f1", "rounding modifier .rni is not valid")
	fxWantError(t, "", "add.ftz.f64 %fd1, %fd2, %fd3", "modifier .ftz is not valid")
	fxWantError(t, "", "add.rz.f16 %h1, %h2, %h3", "rounding modifier .rz is not valid")
	fxWantError(t, "", "mul.sat.bf16 %h1, %h2, %h3", "modifier .sat is not valid")
	fxWantError(t, "", "add.f32 %f1, %f2", "expects 3 operands")
	fxWantError(t, "", "add.f32 %f1, %fd1, %f2", "incompatible")
	fxWantError(t, "", "div.f32 %f1, %f2, %f3", "requires .approx, .full or a rounding modifier")
	fxWantError(t, "", "div.approx.rn.f32 %f1, %f2, %f3", "only one of")
	fxWantError(t, "", "div.f64 %fd1, %fd2, %fd3", "requires a rounding modifier")
	fxWantError(t, "", "div.approx.f64 %fd1, %fd2, %fd3", "modifier .approx is not valid")
	fxWantError(t, "", "rcp.f32 %f1, %f2", "requires .approx or a rounding modifier")
	fxWantError(t, "", "rcp.approx.f64 %fd1, %fd2", "requires .ftz")
	fxWantError(t, "", "sqrt.approx.f64 %fd1, %fd2", "modifier .approx is not valid")
	fxWantError(t, "", "rsqrt.f32 %f1, %f2", "requires .approx")
	fxWantError(t, "", "sin.f32 %f1, %f2", "requires .approx")
	fxWantError(t, "", "sin.approx.f64 %fd1, %fd2", "not valid for sin")
	fxWantError(t, "", "ex2.approx.bf16 %h1, %h2", "requires .ftz")
	fxWantError(t, "", "ex2.approx.ftz.f16 %h1, %h2", "modifier .ftz is not valid")
	fxWantError(t, "", "tanh.approx.f64 %fd1, %fd2", "not valid for tanh")
	fxWantError(t, "", "testp.f32 %p1, %f1", "testp needs a property")
	fxWantError(t, "", "min.xorsign.f32 %f1, %f2, %f3", "must be used together")
	fxWantError(t, "", "min.NaN.f64 %fd1, %fd2, %fd3", "modifier .NaN is not valid")
	fxWantError(t, "", "mad.rn.f16 %h1, %h2, %h3, %h1", "mad has no .f16 form")
	fxWantError(t, "", "fma.rn.sat.relu.f16 %h1, %h2, %h3, %h1", "cannot be combined")
	fxWantError(t, "", "fma.f16 %h1, %h2, %h3, %h1", "requires the rounding modifier .rn")
	fxWantError(t, "", "copysign.f16 %h1, %h2, %h3", "not valid for copysign")
	// PTX ISA 1.0-1.3 defaults.
	old := ".version 1.3\n.target sm_13\n.address_size 64\n"
	for _, s := range []string{"div.f32 %f1, %f2, %f3", "div.f64 %fd1, %fd2, %fd3", "rcp.f32 %f1, %f2", "rcp.f64 %fd1, %fd2",
		"sqrt.f32 %f1, %f2", "sqrt.f64 %fd1, %fd2", "rsqrt.f32 %f1, %f2", "sin.f32 %f1, %f2", "cos.f32 %f1, %f2",
		"lg2.f32 %f1, %f2", "ex2.f32 %f1, %f2"} {
		fxWantOK(t, old, s)
	}
	fxCheck(t, old, "div.f32 %d, %a, %b", "f32", fx2s, []fxRow{{[]uint64{f32b(1), f32b(4)}, f32b(0.25)}})
}

// ---- div, rcp, sqrt, rsqrt ----

func TestFloatDivRcpSqrt(t *testing.T) {
	third := []uint64{f32b(1), f32b(3)}
	fxCheck(t, "", "div.rn.f32 %d, %a, %b", "f32", fx2s, []fxRow{{third, 0x3eaaaaab}, {[]uint64{f32b(1), 0}, 0x7f800000}, {[]uint64{f32b(-1), 0}, 0xff800000}})
	fxCheck(t, "", "div.rz.f32 %d, %a, %b", "f32", fx2s, []fxRow{{third, 0x3eaaaaaa}})
	fxCheck(t, "", "div.rm.f32 %d, %a, %b", "f32", fx2s, []fxRow{{third, 0x3eaaaaaa}})
	fxCheck(t, "", "div.rp.f32 %d, %a, %b", "f32", fx2s, []fxRow{{third, 0x3eaaaaab}})
	fxCheck(t, "", "div.full.f32 %d, %a, %b", "f32", fx2s, []fxRow{{third, 0x3eaaaaab}, {[]uint64{f32b(6), f32b(2)}, f32b(3)}})
	fxCheck(t, "", "div.approx.f32 %d, %a, %b", "f32", fx2s, []fxRow{{[]uint64{f32b(1), f32b(2)}, 0x3f000000}, {[]uint64{f32b(9), f32b(3)}, f32b(3)}})
	fxCheck(t, "", "div.approx.ftz.f32 %d, %a, %b", "f32", fx2s, []fxRow{{[]uint64{fxSub, f32b(1)}, 0}})
	fxCheck(t, "", "div.rn.f64 %d, %a, %b", "f64", fx2d, []fxRow{{[]uint64{f64b(1), f64b(3)}, 0x3fd5555555555555}})
	fxCheck(t, "", "div.rp.f64 %d, %a, %b", "f64", fx2d, []fxRow{{[]uint64{f64b(1), f64b(3)}, 0x3fd5555555555556}})
	fxCheck(t, "", "div.rz.f64 %d, %a, %b", "f64", fx2d, []fxRow{{[]uint64{f64b(2), f64b(3)}, 0x3fe5555555555555}})

	fxCheck(t, "", "rcp.rn.f32 %d, %a", "f32", fx1s, []fxRow{{[]uint64{f32b(3)}, 0x3eaaaaab}, {[]uint64{0x80000000}, 0xff800000}})
	fxCheck(t, "", "rcp.rz.f32 %d, %a", "f32", fx1s, []fxRow{{[]uint64{f32b(3)}, 0x3eaaaaaa}})
	fxCheck(t, "", "rcp.approx.f32 %d, %a", "f32", fx1s, []fxRow{{[]uint64{f32b(2)}, 0x3f000000}, {[]uint64{0x7f800000}, 0}})
	fxCheck(t, "", "rcp.rz.f64 %d, %a", "f64", fx1d, []fxRow{{[]uint64{f64b(2)}, 0x3fe0000000000000}, {[]uint64{f64b(3)}, 0x3fd5555555555555}})
	fxCheck(t, "", "rcp.rp.f64 %d, %a", "f64", fx1d, []fxRow{{[]uint64{f64b(3)}, 0x3fd5555555555556}})
	fxCheck(t, "", "rcp.approx.ftz.f64 %d, %a", "f64", fx1d, []fxRow{{[]uint64{f64b(4)}, f64b(0.25)}, {[]uint64{1}, 0x7ff0000000000000}, {[]uint64{0x7ff8000000000001}, 0x7fffffff00000000}, {[]uint64{f64b(3)}, 0x3fd5555500000000}})

	fxCheck(t, "", "sqrt.rn.f32 %d, %a", "f32", fx1s, []fxRow{{[]uint64{f32b(2)}, 0x3fb504f3}, {[]uint64{0x80000000}, 0x80000000}, {[]uint64{0x7f800000}, 0x7f800000}})
	fxCheck(t, "", "sqrt.rp.f32 %d, %a", "f32", fx1s, []fxRow{{[]uint64{f32b(2)}, 0x3fb504f4}})
	fxCheck(t, "", "sqrt.rz.f32 %d, %a", "f32", fx1s, []fxRow{{[]uint64{f32b(2)}, 0x3fb504f3}})
	fxCheck(t, "", "sqrt.approx.f32 %d, %a", "f32", fx1s, []fxRow{{[]uint64{f32b(0.25)}, 0x3f000000}})
	fxCheck(t, "", "sqrt.approx.ftz.f32 %d, %a", "f32", fx1s, []fxRow{{[]uint64{fxSub}, 0}})
	fxCheck(t, "", "sqrt.rn.f64 %d, %a", "f64", fx1d, []fxRow{{[]uint64{f64b(2)}, f64b(math.Sqrt2)}, {[]uint64{f64b(-4)}, 0x7fffffffffffffff}})
	// The nearest f64 to sqrt(2) is above it.
	fxCheck(t, "", "sqrt.rp.f64 %d, %a", "f64", fx1d, []fxRow{{[]uint64{f64b(2)}, f64b(math.Sqrt2)}})
	fxCheck(t, "", "sqrt.rz.f64 %d, %a", "f64", fx1d, []fxRow{{[]uint64{f64b(2)}, f64b(math.Sqrt2) - 1}})

	fxCheck(t, "", "rsqrt.approx.f32 %d, %a", "f32", fx1s, []fxRow{{[]uint64{f32b(4)}, f32b(0.5)}, {[]uint64{0}, 0x7f800000}, {[]uint64{f32b(-4)}, 0x7fffffff}})
	fxCheck(t, "", "rsqrt.approx.ftz.f32 %d, %a", "f32", fx1s, []fxRow{{[]uint64{fxSub | 1<<31}, 0xff800000}})
	fxCheck(t, "", "rsqrt.approx.f64 %d, %a", "f64", fx1d, []fxRow{{[]uint64{0x3fd0000000000000}, 0x4000000000000000}})
	fxCheck(t, "", "rsqrt.approx.ftz.f64 %d, %a", "f64", fx1d, []fxRow{{[]uint64{1}, 0x7ff0000000000000}, {[]uint64{f64b(16)}, f64b(0.25)}, {[]uint64{0xfff8000000000123}, 0x7fffffff00000000}, {[]uint64{f64b(3)}, 0x3fe279a700000000}})
}

// ---- abs, neg, min, max, copysign, testp ----

func TestFloatAbsNegMinMax(t *testing.T) {
	fxCheck(t, "", "abs.f32 %d, %a", "f32", fx1s, []fxRow{{[]uint64{f32b(-2)}, f32b(2)}, {[]uint64{0x80000000}, 0}})
	fxCheck(t, "", "neg.f32 %d, %a", "f32", fx1s, []fxRow{{[]uint64{f32b(2)}, f32b(-2)}, {[]uint64{0}, 0x80000000}})
	fxCheck(t, "", "abs.f64 %d, %a", "f64", fx1d, []fxRow{{[]uint64{f64b(-2)}, f64b(2)}, {[]uint64{0xfff8000000000123}, 0xfff8000000000123}})
	fxCheck(t, "", "neg.f64 %d, %a", "f64", fx1d, []fxRow{{[]uint64{f64b(2)}, f64b(-2)}})

	nan := uint64(0x7fc00000)
	fxCheck(t, "", "min.f32 %d, %a, %b", "f32", fx2s, []fxRow{
		{[]uint64{f32b(1), f32b(2)}, f32b(1)},
		{[]uint64{nan, f32b(2)}, f32b(2)},
		{[]uint64{f32b(2), nan}, f32b(2)},
		{[]uint64{nan, nan}, 0x7fffffff},
		{[]uint64{0, 0x80000000}, 0x80000000},
		{[]uint64{0x80000000, 0}, 0x80000000},
	})
	fxCheck(t, "", "max.f32 %d, %a, %b", "f32", fx2s, []fxRow{
		{[]uint64{f32b(1), f32b(2)}, f32b(2)},
		{[]uint64{nan, f32b(-2)}, f32b(-2)},
		{[]uint64{0x80000000, 0}, 0},
	})
	fxCheck(t, "", "min.NaN.f32 %d, %a, %b", "f32", fx2s, []fxRow{{[]uint64{nan, f32b(2)}, 0x7fffffff}, {[]uint64{f32b(3), f32b(2)}, f32b(2)}})
	fxCheck(t, "", "max.NaN.f32 %d, %a, %b", "f32", fx2s, []fxRow{{[]uint64{f32b(2), nan}, 0x7fffffff}})
	fxCheck(t, "", "min.xorsign.abs.f32 %d, %a, %b", "f32", fx2s, []fxRow{{[]uint64{f32b(-2), f32b(3)}, f32b(-2)}, {[]uint64{f32b(-2), f32b(-3)}, f32b(2)}})
	fxCheck(t, "", "max.xorsign.abs.f32 %d, %a, %b", "f32", fx2s, []fxRow{{[]uint64{f32b(-2), f32b(3)}, f32b(-3)}})
	fxCheck(t, "", "min.f32 %d, %a, %b, %c", "f32", fx3s, []fxRow{{[]uint64{f32b(3), f32b(1), f32b(2)}, f32b(1)}, {[]uint64{nan, nan, f32b(2)}, f32b(2)}})
	fxCheck(t, "", "max.abs.f32 %d, %a, %b, %c", "f32", fx3s, []fxRow{{[]uint64{f32b(-3), f32b(1), f32b(-5)}, f32b(5)}})
	fxCheck(t, "", "min.NaN.f32 %d, %a, %b, %c", "f32", fx3s, []fxRow{{[]uint64{f32b(3), f32b(1), nan}, 0x7fffffff}})
	fxCheck(t, "", "min.f64 %d, %a, %b", "f64", fx2d, []fxRow{{[]uint64{f64b(1), f64b(-1)}, f64b(-1)}, {[]uint64{0x7ff8000000000000, f64b(4)}, f64b(4)}})
	fxCheck(t, "", "max.f64 %d, %a, %b", "f64", fx2d, []fxRow{{[]uint64{f64b(1), f64b(-1)}, f64b(1)}, {[]uint64{0x7ff8000000000000, 0x7ff8000000000001}, 0x7fffffffffffffff}})
}

func TestFloatCopysignTestp(t *testing.T) {
	// zluda copysign: d = b with the sign of a.
	fxCheck(t, "", "copysign.f32 %d, %a, %b", "b32", fx2w, []fxRow{{[]uint64{0x0bda2a2c, 0xe31a8fd7}, 0x631a8fd7}, {[]uint64{0x80000000, f32b(3)}, f32b(-3)}})
	fxCheck(t, "", "copysign.f64 %d, %a, %b", "f64", fx2d, []fxRow{{[]uint64{f64b(-1), f64b(2)}, f64b(-2)}})

	vals := []uint64{f32b(1), 0x7f800000, 0xff800000, 0x7fc00000, 0, 0x80000000, fxSub, f32b(-5)}
	want := map[string][]uint64{
		"finite":     {1, 0, 0, 0, 1, 1, 1, 1},
		"infinite":   {0, 1, 1, 0, 0, 0, 0, 0},
		"number":     {1, 1, 1, 0, 1, 1, 1, 1},
		"notanumber": {0, 0, 0, 1, 0, 0, 0, 0},
		"normal":     {1, 0, 0, 0, 1, 1, 0, 1}, // "positive and negative zero are considered normal numbers"
		"subnormal":  {0, 0, 0, 0, 0, 0, 1, 0},
	}
	for prop, w := range want {
		rows := make([]fxRow, len(vals))
		for i, v := range vals {
			rows[i] = fxRow{[]uint64{v}, w[i]}
		}
		fxCheck(t, "", "testp."+prop+".f32 %d, %a", "pred", fx1s, rows)
	}
	fxCheck(t, "", "testp.subnormal.f64 %d, %a", "pred", fx1d, []fxRow{{[]uint64{1}, 1}, {[]uint64{f64b(1)}, 0}})
	fxCheck(t, "", "testp.normal.f64 %d, %a", "pred", fx1d, []fxRow{{[]uint64{1}, 0}, {[]uint64{f64b(-1)}, 1}, {[]uint64{0x8000000000000000}, 1}, {[]uint64{0}, 1}})
}

// ---- sin, cos, lg2, ex2, tanh ----

func TestFloatApprox(t *testing.T) {
	fxCheck(t, "", "sin.approx.f32 %d, %a", "f32", fx1s, []fxRow{
		{[]uint64{0x3fc90fdb}, 0x3f800000}, // zluda sin: sin(pi/2)
		{[]uint64{0x80000000}, 0x80000000},
		{[]uint64{0x7f800000}, 0x7fffffff},
	})
	fxCheck(t, "", "cos.approx.f32 %d, %a", "f32", fx1s, []fxRow{{[]uint64{0x40490fdb}, 0xbf800000}, {[]uint64{0}, f32b(1)}})
	fxCheck(t, "", "cos.approx.ftz.f32 %d, %a", "f32", fx1s, []fxRow{{[]uint64{fxSub}, f32b(1)}})
	fxCheck(t, "", "lg2.approx.f32 %d, %a", "f32", fx1s, []fxRow{
		{[]uint64{0x44000000}, 0x41100000}, // zluda lg2: lg2(512) = 9
		{[]uint64{0}, 0xff800000},
		{[]uint64{f32b(-1)}, 0x7fffffff},
		{[]uint64{0x7f800000}, 0x7f800000},
	})
	fxCheck(t, "", "lg2.approx.ftz.f32 %d, %a", "f32", fx1s, []fxRow{{[]uint64{fxSub}, 0xff800000}})
	fxCheck(t, "", "ex2.approx.f32 %d, %a", "f32", fx1s, []fxRow{
		{[]uint64{0x41200000}, 0x44800000}, // zluda ex2: 2^10
		{[]uint64{0xff800000}, 0},
		{[]uint64{f32b(-1)}, f32b(0.5)},
	})
	fxCheck(t, "", "ex2.approx.ftz.f32 %d, %a", "f32", fx1s, []fxRow{{[]uint64{f32b(-130)}, 0}})
	fxCheck(t, "", "ex2.approx.f32 %d, %a", "f32", fx1s, []fxRow{{[]uint64{f32b(-130)}, 0x00080000}})
	fxCheck(t, "", "tanh.approx.f32 %d, %a", "f32", fx1s, []fxRow{{[]uint64{0x7f800000}, 0x3f800000}, {[]uint64{0x80000000}, 0x80000000}})
	// Half forms.
	fxCheck(t, "", "ex2.approx.f16 %d, %a", "b16", fx1h, []fxRow{{[]uint64{0x3c00}, 0x4000}, {[]uint64{0xfc00}, 0}})
	fxCheck(t, "", "ex2.approx.f16x2 %d, %a", "b32", fx1w, []fxRow{{[]uint64{0x4000bc00}, 0x44003800}})
	fxCheck(t, "", "ex2.approx.ftz.bf16 %d, %a", "b16", fx1h, []fxRow{{[]uint64{0x3f80}, 0x4000}})
	fxCheck(t, "", "ex2.approx.ftz.bf16x2 %d, %a", "b32", fx1w, []fxRow{{[]uint64{0x00003f80}, 0x3f804000}})
	fxCheck(t, "", "tanh.approx.f16 %d, %a", "b16", fx1h, []fxRow{{[]uint64{0}, 0}, {[]uint64{0x7c00}, 0x3c00}})
	fxCheck(t, "", "tanh.approx.f16x2 %d, %a", "b32", fx1w, []fxRow{{[]uint64{0xfc000000}, 0xbc000000}})
	fxCheck(t, "", "tanh.approx.bf16 %d, %a", "b16", fx1h, []fxRow{{[]uint64{0xff80}, 0xbf80}})
	fxCheck(t, "", "tanh.approx.bf16x2 %d, %a", "b32", fx1w, []fxRow{{[]uint64{0x7fc00000}, 0x7fff0000}})
}

// ---- half precision ----

func TestHalfArith(t *testing.T) {
	fxCheck(t, "", "add.f16 %d, %a, %b", "b16", fx2h, []fxRow{{[]uint64{0x3c00, 0x4000}, 0x4200}})
	fxCheck(t, "", "add.rn.f16 %d, %a, %b", "b16", fx2h, []fxRow{{[]uint64{0x3c00, 0x1000}, 0x3c00}}) // 1 + 2^-11: tie to even
	fxCheck(t, "", "sub.f16 %d, %a, %b", "b16", fx2h, []fxRow{{[]uint64{0x3c00, 0x4000}, 0xbc00}})
	fxCheck(t, "", "mul.f16 %d, %a, %b", "b16", fx2h, []fxRow{{[]uint64{0x4200, 0x4000}, 0x4600}, {[]uint64{0x7bff, 0x4000}, 0x7c00}})
	// Packed: element 0 in the low half.
	fxCheck(t, "", "add.f16x2 %d, %a, %b", "b32", fx2w, []fxRow{{[]uint64{0x40003c00, 0x3c003c00}, 0x42004000}})
	fxCheck(t, "", "sub.f16x2 %d, %a, %b", "b32", fx2w, []fxRow{{[]uint64{0x40003c00, 0x3c003c00}, 0x3c000000}})
	fxCheck(t, "", "mul.ftz.f16x2 %d, %a, %b", "b32", fx2w, []fxRow{{[]uint64{0x00014200, 0x3c004000}, 0x00004600}})
	fxCheck(t, "", "add.bf16 %d, %a, %b", "b16", fx2h, []fxRow{{[]uint64{0x3f80, 0x3f80}, 0x4000}})
	fxCheck(t, "", "add.rn.bf16x2 %d, %a, %b", "b32", fx2w, []fxRow{{[]uint64{0x40003f80, 0x3f803f80}, 0x40404000}})
	fxCheck(t, "", "sub.bf16x2 %d, %a, %b", "b32", fx2w, []fxRow{{[]uint64{0x40003f80, 0x3f803f80}, 0x3f800000}})
	fxCheck(t, "", "mul.bf16 %d, %a, %b", "b16", fx2h, []fxRow{{[]uint64{0x4040, 0xc000}, 0xc0c0}})
	// fma: zluda fma_f16x2 and fma_bf16x2.
	fxCheck(t, "", "fma.rn.f16x2 %d, %a, %b, %c", "b32", fx3w, []fxRow{{[]uint64{0x40004040, 0x40404080, 0x40a04040}, 0x469046e8}})
	fxCheck(t, "", "fma.rn.bf16x2 %d, %a, %b, %c", "b32", fx3w, []fxRow{{[]uint64{0x40004040, 0x40404080, 0x40a04040}, 0x41304170}})
	fxCheck(t, "", "fma.rn.f16 %d, %a, %b, %c", "b16", fx3h, []fxRow{{[]uint64{0x4000, 0x4200, 0x4500}, 0x4980}}) // 2*3+5 = 11
	fxCheck(t, "", "fma.rn.relu.f16 %d, %a, %b, %c", "b16", fx3h, []fxRow{{[]uint64{0x4000, 0xc200, 0x3c00}, 0}, {[]uint64{0x4000, 0x4200, 0x3c00}, 0x4700}})
	fxCheck(t, "", "fma.rn.sat.f16 %d, %a, %b, %c", "b16", fx3h, []fxRow{{[]uint64{0x4000, 0x4200, 0x3c00}, 0x3c00}})
	fxCheck(t, "", "fma.rn.relu.bf16 %d, %a, %b, %c", "b16", fx3h, []fxRow{{[]uint64{0x4000, 0xc040, 0x3f80}, 0}})
	fxCheck(t, "", "fma.rn.relu.bf16x2 %d, %a, %b, %c", "b32", fx3w, []fxRow{{[]uint64{0x40004000, 0xc0404040, 0x3f803f80}, 0x000040e0}})
	fxCheck(t, "", "fma.rn.ftz.f16 %d, %a, %b, %c", "b16", fx3h, []fxRow{{[]uint64{0x0200, 0x3800, 0}, 0}})
	// neg / abs
	fxCheck(t, "", "neg.f16 %d, %a", "b16", fx1h, []fxRow{{[]uint64{0x3c00}, 0xbc00}})
	fxCheck(t, "", "neg.ftz.f16 %d, %a", "b16", fx1h, []fxRow{{[]uint64{0x0001}, 0x8000}})
	fxCheck(t, "", "abs.f16x2 %d, %a", "b32", fx1w, []fxRow{{[]uint64{0xbc004000}, 0x3c004000}})
	fxCheck(t, "", "neg.bf16x2 %d, %a", "b32", fx1w, []fxRow{{[]uint64{0xbf803f80}, 0x3f80bf80}})
	fxCheck(t, "", "abs.bf16 %d, %a", "b16", fx1h, []fxRow{{[]uint64{0xbf80}, 0x3f80}})
	// min / max: zluda min_f16 and fmax.
	fxCheck(t, "", "min.f16 %d, %a, %b", "b16", fx2h, []fxRow{{[]uint64{0x7e00, 0x57b0}, 0x57b0}, {[]uint64{0x3c00, 0xbc00}, 0xbc00}})
	fxCheck(t, "", "max.f16 %d, %a, %b", "b16", fx2h, []fxRow{{[]uint64{0x7e00, 0x0000}, 0}, {[]uint64{0x7e00, 0x7e01}, 0x7fff}})
	fxCheck(t, "", "max.NaN.f16 %d, %a, %b", "b16", fx2h, []fxRow{{[]uint64{0x7e00, 0x3c00}, 0x7fff}})
	fxCheck(t, "", "min.xorsign.abs.f16 %d, %a, %b", "b16", fx2h, []fxRow{{[]uint64{0xc000, 0x4200}, 0xc000}})
	fxCheck(t, "", "max.f16x2 %d, %a, %b", "b32", fx2w, []fxRow{{[]uint64{0x3c004200, 0x40003c00}, 0x40004200}})
	fxCheck(t, "", "min.bf16x2 %d, %a, %b", "b32", fx2w, []fxRow{{[]uint64{0x3f804040, 0x40003f80}, 0x3f803f80}})
	fxCheck(t, "", "max.NaN.bf16 %d, %a, %b", "b16", fx2h, []fxRow{{[]uint64{0x7fc0, 0x3f80}, 0x7fff}})
	// Mixed precision fma (f32 accumulate of f16/bf16 products).
	fxCheck(t, "", "fma.rn.f32.f16 %d, %a, %b, %c", "f32", []string{"b16", "b16", "f32"}, []fxRow{{[]uint64{0x4000, 0x4200, f32b(0.5)}, f32b(6.5)}})
	fxCheck(t, "", "fma.rz.sat.f32.bf16 %d, %a, %b, %c", "f32", []string{"b16", "b16", "f32"}, []fxRow{{[]uint64{0x3f00, 0x3f00, f32b(0.5)}, f32b(0.75)}})
}

// TestFloatPartialMask runs the hot f32 loops and a generic one with only
// some lanes active: inactive lanes keep their old values.
func TestFloatPartialMask(t *testing.T) {
	src := fxHeader + `.visible .entry k(.param .u64 out)
{
	.reg .b64 %rd<4>; .reg .b32 %r<4>; .reg .f32 %f<8>; .reg .pred %p;
	ld.param.u64 %rd1, [out];
	cvt.u64.u32 %rd2, %tid.x;
	cvt.rn.f32.u32 %f1, %tid.x;
	cvt.rn.f32.u64 %f2, %rd2;
	cvt.rzi.u32.f32 %r1, %f1;
	cvt.rn.f32.u32 %f3, %r1;
	cvt.rn.f32.u32 %f4, %tid.x;
	cvt.rn.f32.u32 %f5, %tid.x;
	cvt.rn.f32.u32 %f6, %tid.x;
	cvt.rn.f32.u32 %f7, %tid.x;
	sub.f32 %f1, %f1, 0f41800000;       // tid - 16: negative for the low half
	setp.ne.f32 %p, %f1, 0f00000000;    // false for tid == 16 (zero)
	@%p add.f32 %f3, %f2, 0f3f800000;   // tid + 1
	@%p mul.f32 %f4, %f2, 0f40000000;   // tid * 2
	@%p fma.rn.f32 %f5, %f2, %f2, %f2;  // tid^2 + tid
	@%p add.rz.f32 %f6, %f2, 0f3f000000; // tid + 0.5
	@%p sub.f32 %f7, %f2, 0f3f800000;   // tid - 1
	mul.wide.u32 %rd3, %tid.x, 32;
	add.u64 %rd3, %rd1, %rd3;
	st.global.f32 [%rd3], %f3;
	st.global.f32 [%rd3+4], %f4;
	st.global.f32 [%rd3+8], %f5;
	st.global.f32 [%rd3+12], %f6;
	st.global.f32 [%rd3+16], %f7;
	ret;
}
`
	out := fxLaunch(t, fxCompile(t, src), "k", [3]int{32, 1, 1}, [][]byte{make([]byte, 32*32)})[0]
	for l := 0; l < 32; l++ {
		x := float32(l)
		want := []float32{x + 1, 2 * x, x*x + x, x + 0.5, x - 1}
		if l == 16 {
			want = []float32{x, x, x, x, x}
		}
		for k, w := range want {
			got := math.Float32frombits(binary.LittleEndian.Uint32(out[32*l+4*k:]))
			if got != w {
				t.Errorf("lane %d result %d: got %v, want %v", l, k, got, w)
			}
		}
	}
}

// ---- zluda conformance cases of the floating-point and conversion families ----

func BenchmarkFloatFmaF32Loop(b *testing.B) {
	// 2000 iterations of 4 f32 add/mul/fma plus loop control (the exit test
	// uses testp so that the benchmark only needs this family and cvt).
	src := fxHeader + `.visible .entry k(.param .u64 out) {
	.reg .u32 %r<4>; .reg .f32 %f<8>; .reg .pred %p;
	cvt.rn.f32.u32 %f1, %tid.x;
	mul.f32 %f2, %f1, 0f3a800000;
	add.f32 %f3, %f1, 0f3f800000;
	cvt.rn.f32.u32 %f5, %tid.x;
	mul.f32 %f5, %f5, 0f00000000;
LOOP:
	fma.rn.f32 %f1, %f1, 0f3f7ff000, %f2;
	add.f32 %f3, %f3, %f1;
	mul.f32 %f4, %f3, 0f3f000000;
	fma.rn.f32 %f3, %f4, %f2, %f1;
	add.f32 %f5, %f5, 0f3f800000;
	sub.f32 %f6, %f5, 0f44fa0000;
	setp.ne.f32 %p, %f6, 0f00000000;
	@%p bra LOOP;
	ret;
}`
	benchLaunch(b, src, [3]int{1, 1, 1}, [3]int{256, 1, 1}, []int{1024}, nil)
}

// TestFloatFmaFastPath cross-checks fma.rn.f32's fast paths (fxFmaRN32 and
// the one written out in execFmaF32's lane loops) with fpx's exact FmaF32
// on random and near-tie operands: the handler runs on batches of 32
// operand triples (with garbage above the low 32 bits) under random masks,
// its destination sometimes one of the sources; inactive lanes must keep
// their values.
func TestFloatFmaFastPath(t *testing.T) {
	seed := uint64(0x9e3779b97f4a7c15)
	next := func() uint32 {
		seed ^= seed << 13
		seed ^= seed >> 7
		seed ^= seed << 17
		return uint32(seed >> 11)
	}
	rng := rand.New(rand.NewSource(5))
	w := ixCmpTestWarp(4) // slots 0..2: a, b, c; 3: d
	var want [32]uint64
	n := 0
	check := func(a, b, c uint32) {
		got := fxFmaRN32(uint64(a), uint64(b), uint64(c))
		exact := uint64(fpx.FmaF32(a, b, c, fpx.RN, false))
		if got != exact {
			t.Fatalf("fma.rn(%#x, %#x, %#x): fast path %#x, exact %#x", a, b, c, got, exact)
		}
		garbage := func() uint64 { return uint64(rng.Intn(2)) * rng.Uint64() << 32 }
		w.r(0)[n], w.r(1)[n], w.r(2)[n] = uint64(a)|garbage(), uint64(b)|garbage(), uint64(c)|garbage()
		want[n] = exact
		if n++; n < 32 {
			return
		}
		n = 0
		mask := ixRandomMask(rng)
		op := &Op{A: 0, B: 1, C: 2, D: int32(rng.Intn(4))} // D: a source, or a row of its own
		if op.D == 3 {
			for l := range w.r(3) {
				w.r(3)[l] = rng.Uint64()
			}
		}
		before := *w.r(op.D)
		in := [3][32]uint64{*w.r(0), *w.r(1), *w.r(2)}
		execFmaF32(w, op, mask)
		for l, v := range w.r(op.D) {
			switch {
			case mask>>l&1 == 0 && v != before[l]:
				t.Fatalf("fma.rn mask %#x: inactive lane %d changed", mask, l)
			case mask>>l&1 != 0 && v != want[l]:
				t.Fatalf("fma.rn(%#x, %#x, %#x) lane %d of mask %#x, D=%d: handler %#x, exact %#x",
					in[0][l], in[1][l], in[2][l], l, mask, op.D, v, want[l])
			}
		}
	}
	for i := 0; i < 200000; i++ {
		a, b, c := next(), next(), next()
		check(a, b, c)
		// Narrow exponents so that products and addends overlap.
		a = a&0x807fffff | (120+next()%16)<<23
		b = b&0x807fffff | (120+next()%16)<<23
		c = c&0x807fffff | (110+next()%30)<<23
		check(a, b, c)
		// A tie of the f32 result plus a tiny term of either sign.
		x := next()&0x007fffff | 0x3f800000
		check(x, 0x3f800000, 0x33800000|next()&1<<31)
		check(x, 0x3f800001, 0x33800000|next()&1<<31)
		check(x, 0x3f800000^next()&0x1, 0x33800000+next()%4)
		// Double rounding: (1-2^-23) * 2^-24(1+2^-23) = 2^-24 - 2^-70
		// (either sign) added to x in [1, 2) rounds in f64 to the f32
		// midpoint x + 2^-24, while the exact sum lies just inside it.
		check(0x3f7ffffe, 0x33800001|next()&1<<31, x)
		check(0x3f7ffffe|next()&1<<31, 0x33800001, x|1)
		// Results in the subnormal range.
		check(next()&0x807fffff|(40+next()%20)<<23, next()&0x807fffff|(40+next()%20)<<23, next()&0x80ffffff)
	}
}
