package isa

import (
	"fmt"
	"strings"
	"sync"
)

// Register fragments of wgmma.mma_async (PTX ISA §9.7.15.5.1, "Register
// Fragments"): the warpgroup's 128 threads hold the 64 x N accumulator D
// and, when A comes from registers, the 64 x K matrix A. Warp w of the
// warpgroup (its rank, 0-3) holds rows 16w..16w+15 of both; within a warp,
//
//   - D is the m16n8 accumulator pattern of mma (c0, c1 at row g, columns
//     2q, 2q+1; c2, c3 at row g+8) repeated over the N/8 column blocks:
//     f32 value i of a thread is at row 16w + g + 8*((i/2)%2), column
//     8*(i/4) + 2q + i%2 (g = lane/4, q = lane%4), in register i (N/2
//     registers); an f16 accumulator packs values 2j and 2j+1 into the
//     low and high halves of register j (N/4 registers);
//   - A is the A fragment of the mma of the same K per element type
//     (m16n8k16 for f16/bf16, m16n8k8 for tf32, m16n8k32 for the 8-bit
//     types), rows offset by 16w.
//
// This is CUTLASS's CLayout_64xN and ALayout_64x16 (mma_traits_sm90_gmma.hpp).
// In these tables an element's Lane is the thread's index in the
// warpgroup (0-127: warp rank*32 + lane), the one difference from the
// warp-level tables. The emulator executes wgmma from them.

// WgmmaForm is one form of wgmma.mma_async: shape m64nNkK, D's type and
// A's and B's (the same), and whether it is the structured-sparse
// wgmma.mma_async.sp (K is then the logical K: A holds 64 x K/2).
type WgmmaForm struct {
	N, K   int
	DType  string // "f32", "f16", "s32"
	AType  string // "f16", "bf16", "tf32", "e4m3", "e5m2", "s8", "u8", "b1"
	Sparse bool
}

// Key is the form's name in the tables: "wgmma.m64n128k16.f32.f16.f16",
// "wgmma.sp.m64n128k32.f32.f16.f16".
func (f WgmmaForm) Key() string {
	sp := ""
	if f.Sparse {
		sp = "sp."
	}
	return fmt.Sprintf("wgmma.%sm64n%dk%d.%s.%s.%s", sp, f.N, f.K, f.DType, f.AType, f.AType)
}

// AK is the number of columns of A as the registers or shared memory hold
// it: K, or K/2 for a sparse form (the compressed A).
func (f WgmmaForm) AK() int {
	if f.Sparse {
		return f.K / 2
	}
	return f.K
}

// wgmmaTypes lists the dense forms the emulator executes: the A type, its
// K, the accumulator types it allows and its N steps. (B's type is A's,
// except that .e4m3 and .e5m2 mix, as do .s8 and .u8: the fragments
// depend on A's type only.)
//
// N: the floating types take every multiple of 8 from 8 to 256; the
// integer types (.s8, .u8, .b1) take 8, 16, 24 and the multiples of 16
// from 32 to 256. This follows the ISA's table of matrix shapes
// (§9.7.15.5.1, "Matrix shape"); its syntax list for .s8/.u8 stops at
// .m64n224k32, the table goes on to n240 and n256 (docs/emulator.md).
//
// The sparse forms (wgmma.mma_async.sp, §9.7.15.6) exist for every type
// but .b1, with twice the K (spK): A is the compressed 64 x K/2 matrix,
// laid out (registers and shared memory) as the A of the dense form of
// the same type, whose K is K/2; warp w's metadata describes rows
// 16w..16w+15 as the metadata of the mma.sp form spMma describes its 16
// rows (the ISA's figures for sparse wgmma metadata are those of
// mma.sp.m16n8k32 .f16/.bf16, m16n8k16 .tf32 and m16n8k64 .u8/.s8), and
// the sparsity selector takes the same values.
var wgmmaTypes = []struct {
	ab     string
	k      int
	acc    []string
	mma    string // the mma.sync form whose A fragment a warp's part of A follows
	coarse bool   // N steps of 16 above 32 (the integer types)
	spK    int    // K of the sparse forms (0: none)
	spMma  string // the mma.sp form whose metadata layout a warp's follows
}{
	{"f16", 16, []string{"f32", "f16"}, "mma.m16n8k16.row.col.f32.f16.f16.f32", false, 32, "mma.sp.m16n8k32.row.col.f32.f16.f16.f32"},
	{"bf16", 16, []string{"f32"}, "mma.m16n8k16.row.col.f32.bf16.bf16.f32", false, 32, "mma.sp.m16n8k32.row.col.f32.bf16.bf16.f32"},
	{"tf32", 8, []string{"f32"}, "mma.m16n8k8.row.col.f32.tf32.tf32.f32", false, 16, "mma.sp.m16n8k16.row.col.f32.tf32.tf32.f32"},
	{"e4m3", 32, []string{"f32", "f16"}, "mma.m16n8k32.row.col.f32.e4m3.e4m3.f32", false, 64, "mma.sp.m16n8k64.row.col.f32.e4m3.e4m3.f32"},
	{"e5m2", 32, []string{"f32", "f16"}, "mma.m16n8k32.row.col.f32.e5m2.e5m2.f32", false, 64, "mma.sp.m16n8k64.row.col.f32.e5m2.e5m2.f32"},
	{"s8", 32, []string{"s32"}, "mma.m16n8k32.row.col.s32.s8.s8.s32", true, 64, "mma.sp.m16n8k64.row.col.s32.s8.s8.s32"},
	{"u8", 32, []string{"s32"}, "mma.m16n8k32.row.col.s32.u8.u8.s32", true, 64, "mma.sp.m16n8k64.row.col.s32.u8.u8.s32"},
	{"b1", 256, []string{"s32"}, "mma.m16n8k256.row.col.s32.b1.b1.s32", true, 0, ""},
}

// wgmmaNOK reports whether N is one of the type's N (wgmmaTypes).
func wgmmaNOK(n int, coarse bool) bool {
	if n < 8 || n > 256 || n%8 != 0 {
		return false
	}
	return !coarse || n <= 32 || n%16 == 0
}

// WgmmaFormOf checks a form: N a multiple of 8 from 8 to 256, K and the
// accumulator type allowed for the A/B type. It returns what is wrong, or
// "".
func WgmmaFormOf(f WgmmaForm) string {
	if f.N < 8 || f.N > 256 || f.N%8 != 0 {
		return fmt.Sprintf("N = %d: wgmma's N is a multiple of 8 from 8 to 256", f.N)
	}
	for _, t := range wgmmaTypes {
		if t.ab != f.AType {
			continue
		}
		k := t.k
		if f.Sparse {
			if t.spK == 0 {
				return fmt.Sprintf("wgmma.mma_async.sp has no .%s form (sparse A is .f16, .bf16, .tf32, .e4m3, .e5m2, .s8 or .u8)", f.AType)
			}
			k = t.spK
		}
		if f.K != k {
			sp := ""
			if f.Sparse {
				sp = " in wgmma.mma_async.sp"
			}
			return fmt.Sprintf(".%s operands take K = %d%s (.m64n%dk%d)", f.AType, k, sp, f.N, k)
		}
		if !wgmmaNOK(f.N, t.coarse) {
			return fmt.Sprintf("N = %d: .%s operands take N = 8, 16, 24 or a multiple of 16 from 32 to 256 (the ISA's table of shapes)", f.N, f.AType)
		}
		for _, a := range t.acc {
			if a == f.DType {
				return ""
			}
		}
		return fmt.Sprintf(".%s operands accumulate in .%s", f.AType, strings.Join(t.acc, " or ."))
	}
	return fmt.Sprintf("A/B type .%s is not one of wgmma's (.f16, .bf16, .tf32, .e4m3, .e5m2, .s8, .u8, .b1)", f.AType)
}

// WgmmaForms lists every form the emulator executes: the dense forms,
// then the sparse ones.
func WgmmaForms() []WgmmaForm {
	var out []WgmmaForm
	for _, sparse := range []bool{false, true} {
		for _, t := range wgmmaTypes {
			k := t.k
			if sparse {
				k = t.spK
			}
			for _, acc := range t.acc {
				for n := 8; n <= 256 && k > 0; n += 8 {
					if wgmmaNOK(n, t.coarse) {
						out = append(out, WgmmaForm{n, k, acc, t.ab, sparse})
					}
				}
			}
		}
	}
	return out
}

// WgmmaFormKeys lists the keys of every form the emulator executes.
func WgmmaFormKeys() []string {
	fs := WgmmaForms()
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = f.Key()
	}
	return out
}

var wgmmaFrags sync.Map // key -> *FragInstr

// WgmmaFragments returns the register fragments of a form (built on first
// use and shared: do not modify), or nil for a form WgmmaFormOf rejects.
// Its operands are "d" (64 x N, the accumulator, also the input C) and
// "a" (64 x K, when A comes from registers); B always comes from shared
// memory through a descriptor.
func WgmmaFragments(f WgmmaForm) *FragInstr {
	if WgmmaFormOf(f) != "" {
		return nil
	}
	key := f.Key()
	if v, ok := wgmmaFrags.Load(key); ok {
		return v.(*FragInstr)
	}
	var mmaKey, spKey string
	for _, t := range wgmmaTypes {
		if t.ab == f.AType {
			mmaKey, spKey = t.mma, t.spMma
		}
	}
	ma := LookupFragments(mmaKey).Operand("a")
	a := FragOperand{Name: "a", Rows: 64, Cols: f.AK(), Type: f.AType, Regs: ma.Regs}
	for w := 0; w < 4; w++ {
		for _, e := range ma.Elems {
			a.Elems = append(a.Elems, FragElem{Lane: e.Lane + uint8(32*w), Reg: e.Reg, Part: e.Part, Row: e.Row + uint8(16*w), Col: e.Col})
		}
	}
	per := 32 / FragTypeBits(f.DType) // values per register
	d := FragOperand{Name: "d", Rows: 64, Cols: f.N, Type: f.DType, Regs: f.N / 2 / per}
	for t := 0; t < 128; t++ {
		w, g, q := t/32, t%32/4, t%4
		for i := 0; i < f.N/2; i++ {
			row := 16*w + g + 8*(i/2%2)
			col := 8*(i/4) + 2*q + i%2
			d.Elems = append(d.Elems, FragElem{Lane: uint8(t), Reg: uint8(i / per), Part: uint8(i % per), Row: uint8(row), Col: uint8(col)})
		}
	}
	fi := &FragInstr{
		Key:      key,
		Op:       "wgmma.mma_async",
		Shape:    fmt.Sprintf("m64n%dk%d", f.N, f.K),
		Operands: []FragOperand{d, a},
		Notes:    "Lanes are the threads of the warpgroup (0-127): warp w of the warpgroup holds rows 16w to 16w+15 of D and of a register A. B (K x N) is read from shared memory through its descriptor, as is A when it is not in registers.",
	}
	if f.Sparse {
		// The metadata: warp w's fields describe rows 16w..16w+15 as the
		// mma.sp form's describe its 16 rows.
		sp := LookupFragments(spKey)
		me := sp.Operand("e")
		e := FragOperand{Name: "e", Rows: 64, Cols: me.Cols, Type: me.Type, Regs: me.Regs}
		for w := 0; w < 4; w++ {
			for _, el := range me.Elems {
				e.Elems = append(e.Elems, FragElem{Lane: el.Lane + uint8(32*w), Reg: el.Reg, Part: el.Part, Row: el.Row + uint8(16*w), Col: el.Col})
			}
		}
		fi.Operands = append(fi.Operands, e)
		fi.Sparse = sp.Sparse
		fi.Notes = "Lanes are the threads of the warpgroup (0-127): warp w of the warpgroup holds rows 16w to 16w+15 of D and of a register A, and its metadata register e describes those rows. A is structured-sparse: operand a holds the compressed 64 x K/2 matrix (in registers, or in shared memory through its descriptor), and e (for selector 0; selector s moves it to lane + s*threads in each group of four) says for each stored element which column of the logical A it is in (sparse.kcols). B (K x N, the logical K) is read from shared memory through its descriptor."
	}
	v, _ := wgmmaFrags.LoadOrStore(key, fi)
	return v.(*FragInstr)
}
