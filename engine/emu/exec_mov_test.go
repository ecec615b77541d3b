package emu

import (
	"encoding/binary"
	"fmt"
	"testing"

	"github.com/ptxplayground/ptxplay/engine/ptx"
)

func TestMovScalar(t *testing.T) {
	ixRun(t, "mov.u32 %d, %a;", ixT("u32", "u32"), []uint64{0xdeadbeef, 0xdeadbeef})
	ixRun(t, "mov.u64 %d, %a;", ixT("u64", "s64"), []uint64{1 << 63, 1 << 63})
	ixRun(t, "mov.b16 %d, %a;", ixT("b16", "f16"), []uint64{0x3c00, 0x3c00})
	ixRun(t, "mov.s16 %d, -1;", ixT("s16"), []uint64{0xffff})
	ixRun(t, "mov.u64 %d, -1;", ixT("u64"), []uint64{^uint64(0)})
	ixRun(t, "mov.f32 %d, 0f3F800000;", ixT("f32"), []uint64{0x3f800000})
	ixRun(t, "mov.f32 %d, 1.5;", ixT("f32"), []uint64{0x3fc00000})
	ixRun(t, "mov.f64 %d, 1.5;", ixT("f64"), []uint64{0x3ff8000000000000})
	ixRun(t, "mov.f64 %d, 0d3FF0000000000000;", ixT("f64"), []uint64{0x3ff0000000000000})
	ixRun(t, "mov.b32 %d, 0x100000001;", ixT("b32"), []uint64{1})
	ixRun(t, "mov.u32 %d, WARP_SZ;", ixT("u32"), []uint64{32})
	var lanes [][]uint64
	for i := uint64(0); i < 32; i++ {
		lanes = append(lanes, []uint64{i})
	}
	ixRun(t, "mov.u32 %d, %laneid;", ixT("u32"), lanes...)
	ixRun(t, "mov.u32 %d, %tid.x;", ixT("u32"), lanes...)
	ixRun(t, "mov.u16 %d, %tid.x;", ixT("u16"), lanes...)
	var lt [][]uint64
	for i := uint64(0); i < 32; i++ {
		lt = append(lt, []uint64{1<<i - 1})
	}
	ixRun(t, "mov.u32 %d, %lanemask_lt;", ixT("u32"), lt...)
	ixKernelErr(t, "mov.u32 %d, %a;", ixT("u32", "u64"), "incompatible with .u32")
	ixKernelErr(t, "mov.u32 %d, [%a];", ixT("u32", "u64"), "not a memory operand")
	ixKernelErr(t, "mov.b128 %d, %a;", ixT("b64", "b64"), "128-bit registers are not supported")
}

func TestMovPackUnpack(t *testing.T) {
	ixRun(t, "mov.b64 %d, {%a, %b};", ixT("b64", "b32", "b32"), []uint64{1, 2, 0x0000000200000001}, []uint64{0xffffffff, 0, 0xffffffff})
	ixRun(t, "mov.b64 %d, {%a, 0};", ixT("b64", "b32"), []uint64{0xdeadbeef, 0xdeadbeef})
	ixRun(t, "mov.b32 %d, {%a, %b};", ixT("b32", "b16", "b16"), []uint64{0x1234, 0xabcd, 0xabcd1234})
	ixRun(t, "mov.b32 %d, {%a, %b};", ixT("b32", "f16", "f16"), []uint64{0x3c00, 0xbc00, 0xbc003c00})
	ixRun(t, "mov.b64 %d, {%a, %b, %c, %e};", ixT("b64", "b16", "b16", "b16", "b16"), []uint64{1, 2, 3, 4, 0x0004000300020001})
	ixRun(t, "mov.b32 %d, {1, 2, 3, 4};", ixT("b32"), []uint64{0x04030201})
	ixRun(t, "mov.b16 %d, {%a, %b};", ixT("b16", "u16", "u16"), []uint64{0x1ff, 0x2, 0x02ff})
	ixRun(t, "mov.b64 {%a, %b}, %c; mov.b64 %d, {%b, %a};", ixT("b64", "b32", "b32", "b64"),
		[]uint64{0, 0, 0x1122334455667788, 0x5566778811223344})
	ixRun(t, "mov.b32 {%a, %b}, %c; mov.b32 %d, {%b, %a};", ixT("b32", "b16", "b16", "b32"), []uint64{0, 0, 0x11223344, 0x33441122})
	// Sinks leave the other registers alone.
	ixRun(t, "mov.b64 {_, %b}, %c; mov.b64 %d, {%b, %a};", ixT("b64", "b32", "b32", "b64"),
		[]uint64{0xaaaaaaaa, 0, 0x1122334455667788, 0xaaaaaaaa11223344})
	ixRun(t, "mov.b32 {%a, _, _, %b}, %c; mov.b32 %d, {%a, %b};", ixT("b32", "b16", "b16", "b32"), []uint64{0xffff, 0xffff, 0x11223344, 0x00110044})
	ixRun(t, "mov.b64 {%a, %b, %c, _}, %e; mov.b64 %d, {%c, %b, %a, 0};", ixT("b64", "b16", "b16", "b16", "b64"),
		[]uint64{0, 0, 0, 0x1111222233334444, 0x0000444433332222})
	ixKernelErr(t, "mov.b64 %d, {%a, %b, %c};", ixT("b64", "b32", "b32", "b32"), "cannot split .b64 into 3 elements")
	ixKernelErr(t, "mov.b64 {%a, %b}, {%a, %b};", ixT("b64", "b32", "b32"), "cannot move a vector to a vector")
}

// mov of variable addresses (with offsets) and function addresses.
func TestMovAddresses(t *testing.T) {
	src := ixHdr + `.global .align 8 .u32 gv[4] = {1, 2, 3, 4};
.shared .align 4 .u32 sv[8];
.func (.reg .u32 r) fn(.reg .u32 x)
{
	add.u32 r, x, 1;
	ret;
}
.visible .entry k(.param .u64 in, .param .u64 out)
{
	.reg .u64 %op, %g<4>, %f;
	.reg .u32 %s<2>, %x;
	.local .align 8 .b8 depot[16];
	ld.param.u64 %op, [out];
	mov.u64 %g0, gv;
	mov.u64 %g1, gv+8;
	mov.u64 %g2, gv[4];
	sub.u64 %g1, %g1, %g0;
	sub.u64 %g2, %g2, %g0;
	st.global.u64 [%op], %g1;
	st.global.u64 [%op+8], %g2;
	ld.global.u32 %x, [%g0+12];
	st.global.u32 [%op+16], %x;
	mov.u32 %s0, sv;
	mov.u32 %s1, sv+4*3;
	sub.u32 %s1, %s1, %s0;
	st.global.u32 [%op+20], %s1;
	mov.u64 %f, fn;
	st.global.u64 [%op+24], %f;
	mov.u64 %g3, depot;
	st.global.u64 [%op+32], %g3;
	ret;
}
`
	out := runIntKernel(t, src, 1, nil, 40)
	get := func(off int) uint64 { return binary.LittleEndian.Uint64(out[off:]) }
	if got := get(0); got != 8 {
		t.Errorf("gv+8 - gv = %d", got)
	}
	if got := get(8); got != 4 {
		t.Errorf("gv[4] - gv = %d", got)
	}
	if got := binary.LittleEndian.Uint32(out[16:]); got != 4 {
		t.Errorf("load through the address of gv: %d, want 4", got)
	}
	if got := binary.LittleEndian.Uint32(out[20:]); got != 12 {
		t.Errorf("sv+12 - sv = %d", got)
	}
	prog, _ := CompileSource(ptx.NewSource("t.ptx", []byte(src)))
	if got, want := get(24), funcAddr(prog.Function("fn"), prog); got != want {
		t.Errorf("address of fn: %#x, want %#x", got, want)
	}
	if got := get(32); got >= WindowSize {
		t.Errorf("address of a .local variable: %#x, want an address in the local window", got)
	}
}

func TestPrmt(t *testing.T) {
	ixRun(t, "prmt.b32 %d, %a, %b, %c;", ixT("b32", "b32", "b32", "b32"),
		[]uint64{0x70c507d6, 0x6fbd4b5c, 0x7604, 0x6fbdd65c},
		[]uint64{0x0100fe80, 0, 0x0a08, 0x800080ff},          // sign replication
		[]uint64{0x33221100, 0x77665544, 0x3210, 0x33221100}, // identity
		[]uint64{0x33221100, 0x77665544, 0x4567, 0x44556677}, // reverse of b
		[]uint64{0x33221100, 0x77665544, 0xffff3210, 0x33221100},
		[]uint64{0x807f0080, 0, 0x9bab, 0x00ff00ff})
	ixRun(t, "prmt.b32 %d, %a, %b, 0x5410;", ixT("b32", "b32", "b32"), []uint64{0x33221100, 0x77665544, 0x55441100})
	// Bytes are numbered 0-7 across {b, a}; a table entry "3210" is d.b3 d.b2 d.b1 d.b0.
	a, b := uint64(0x33221100), uint64(0x77665544)
	modes := map[string][4]uint64{
		"f4e":  {0x33221100, 0x44332211, 0x55443322, 0x66554433},
		"b4e":  {0x55667700, 0x66770011, 0x77001122, 0x00112233},
		"rc8":  {0x00000000, 0x11111111, 0x22222222, 0x33333333},
		"ecl":  {0x33221100, 0x33221111, 0x33222222, 0x33333333},
		"ecr":  {0x00000000, 0x11111100, 0x22221100, 0x33221100},
		"rc16": {0x11001100, 0x33223322, 0x11001100, 0x33223322},
	}
	for mode, want := range modes {
		var rows [][]uint64
		for c := uint64(0); c < 8; c++ {
			// Only c[1:0] selects; the modes never replicate signs.
			rows = append(rows, []uint64{a, b, c | 0xfff0, want[c&3]})
		}
		ixRun(t, fmt.Sprintf("prmt.b32.%s %%d, %%a, %%b, %%c;", mode), ixT("b32", "b32", "b32", "b32"), rows...)
	}
	ixRun(t, "prmt.b32.rc8 %d, %a, %b, %c;", ixT("b32", "b32", "b32", "b32"), []uint64{0x000000ff, 0, 0, 0xffffffff}, []uint64{0x00000080, 0, 0, 0x80808080})
	ixKernelErr(t, "prmt.b32.up %d, %a, %b, %c;", ixT("b32", "b32", "b32", "b32"), "mode .up is not valid")
	ixKernelErr(t, "prmt.u32 %d, %a, %b, %c;", ixT("b32", "b32", "b32", "b32"), "type .u32 is not valid")
}
