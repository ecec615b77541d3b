package isa

import (
	"fmt"
	"strings"
	"testing"
)

// wmmaRegs is the number of registers of every wmma fragment, from the
// PTX ISA's fragment sizes (as LLVM's NVPTX WMMA_REGS tabulates them):
// "frag:shape:type".
var wmmaRegs = map[string]int{
	"a:m16n16k16:f16": 8, "b:m16n16k16:f16": 8, "a:m32n8k16:f16": 8, "b:m32n8k16:f16": 8, "a:m8n32k16:f16": 8, "b:m8n32k16:f16": 8,
	"c:m16n16k16:f16": 4, "c:m32n8k16:f16": 4, "c:m8n32k16:f16": 4, "c:m16n16k16:f32": 8, "c:m32n8k16:f32": 8, "c:m8n32k16:f32": 8,
	"a:m16n16k16:bf16": 4, "b:m16n16k16:bf16": 4, "a:m8n32k16:bf16": 2, "b:m8n32k16:bf16": 8, "a:m32n8k16:bf16": 8, "b:m32n8k16:bf16": 2,
	"a:m16n16k16:s8": 2, "b:m16n16k16:s8": 2, "a:m8n32k16:s8": 1, "b:m8n32k16:s8": 4, "a:m32n8k16:s8": 4, "b:m32n8k16:s8": 1,
	"a:m16n16k16:u8": 2, "b:m16n16k16:u8": 2, "a:m8n32k16:u8": 1, "b:m8n32k16:u8": 4, "a:m32n8k16:u8": 4, "b:m32n8k16:u8": 1,
	"c:m16n16k16:s32": 8, "c:m32n8k16:s32": 8, "c:m8n32k16:s32": 8,
	"a:m16n16k8:tf32": 4, "b:m16n16k8:tf32": 4, "c:m16n16k8:f32": 8,
	"a:m8n8k4:f64": 1, "b:m8n8k4:f64": 1, "c:m8n8k4:f64": 2,
	"a:m8n8k32:s4": 1, "b:m8n8k32:s4": 1, "a:m8n8k32:u4": 1, "b:m8n8k32:u4": 1, "c:m8n8k32:s32": 2,
	"a:m8n8k128:b1": 1, "b:m8n8k128:b1": 1, "c:m8n8k128:s32": 2,
}

// TestWmmaFragmentsBijective: every wmma operand's first copy is a
// bijection between the slots (lane, register, part) of its registers and
// the elements of its matrix; the register counts are the ISA's.
func TestWmmaFragmentsBijective(t *testing.T) {
	seen := map[string]bool{}
	n := 0
	for _, f := range FragmentTable() {
		if !strings.HasPrefix(f.Op, "wmma.") {
			continue
		}
		n++
		for _, o := range f.Operands {
			name := o.Name
			if name == "d" {
				name = "c"
			}
			k := name + ":" + f.Shape + ":" + o.Type
			want, ok := wmmaRegs[k]
			if !ok || o.Regs != want {
				t.Errorf("%s %s: %d registers, want %d (%s)", f.Key, o.Name, o.Regs, want, k)
			}
			seen[k] = true
			bits := FragTypeBits(o.Type)
			per := 32 / min(bits, 32)
			if o.Regs%max(o.Copies, 1) != 0 || o.Primary()*per*32 != o.Rows*o.Cols {
				t.Errorf("%s %s: %d registers in %d copies for a %dx%d matrix", f.Key, o.Name, o.Regs, o.Copies, o.Rows, o.Cols)
			}
			cells := map[[2]uint8]bool{}
			slots := map[[3]uint8]bool{}
			for _, e := range o.Elems {
				if int(e.Row) >= o.Rows || int(e.Col) >= o.Cols || e.Lane >= 32 || int(e.Reg) >= o.Primary() || int(e.Part) >= per {
					t.Errorf("%s %s: element %+v outside the matrix or the first copy", f.Key, o.Name, e)
				}
				c, s := [2]uint8{e.Row, e.Col}, [3]uint8{e.Lane, e.Reg, e.Part}
				if cells[c] || slots[s] {
					t.Errorf("%s %s: element %+v placed twice", f.Key, o.Name, e)
				}
				cells[c], slots[s] = true, true
			}
			if len(cells) != o.Rows*o.Cols || len(slots) != 32*o.Primary()*per {
				t.Errorf("%s %s: %d elements in %d slots", f.Key, o.Name, len(cells), len(slots))
			}
		}
	}
	if n != 26+47+13 { // wmma.mma, wmma.load, wmma.store
		t.Errorf("%d wmma forms", n)
	}
	if len(seen) != len(wmmaRegs) {
		t.Errorf("%d of %d fragments in the table", len(seen), len(wmmaRegs))
	}
}

// TestWmmaFragmentsSm80: the sm_80 layouts published by wmma_extension
// (github.com/wmmae/wmma_extension, include/wmma_extension/detail/sm_80.hpp
// and sm_80_tf32.hpp, foreach_ij: fragment element x of lane l is at (i, j))
// for .m16n16k16 .f16 A, B, C/D and .m16n16k8 .tf32. x indexes the
// fragment's elements (x/per is the register, x%per the part); .f16 A and B
// elements x and x+8 are the two copies.
func TestWmmaFragmentsSm80(t *testing.T) {
	type ref func(l, x int) (int, int)
	g, q := func(l int) int { return l / 4 }, func(l int) int { return l % 4 }
	aH := func(l, x int) (int, int) { return g(l) + (x&2)*4, 2*q(l) + x&1 + (x&4)*2 }
	bH := func(l, x int) (int, int) { return 2*q(l) + x&1 + (x&2)*4, g(l) + (x&4)*2 }
	acc := func(l, x int) (int, int) { return g(l) + (x&2)*4, 2*q(l) + (x&4)*2 + x&1 }
	aT := func(l, x int) (int, int) { return g(l) + (x&1)*8, q(l) + (x&2)*2 }
	bT := func(l, x int) (int, int) { return q(l) + (x&1)*4, g(l) + (x&2)*4 }
	for _, c := range []struct {
		key, op string
		n       int
		pos     ref
	}{
		{"wmma.load.a.m16n16k16.f16", "a", 16, func(l, x int) (int, int) { return aH(l, x%8) }},
		{"wmma.load.b.m16n16k16.f16", "b", 16, func(l, x int) (int, int) { return bH(l, x%8) }},
		{"wmma.load.c.m16n16k16.f16", "c", 8, acc},
		{"wmma.load.c.m16n16k16.f32", "c", 8, acc},
		{"wmma.store.d.m16n16k16.f32", "d", 8, acc},
		{"wmma.m16n16k16.f32.f16.f16.f16", "c", 8, acc},
		{"wmma.load.a.m16n16k8.tf32", "a", 4, aT},
		{"wmma.load.b.m16n16k8.tf32", "b", 4, bT},
		{"wmma.load.c.m16n16k8.f32", "c", 8, acc},
	} {
		f := LookupFragments(c.key)
		if f == nil {
			t.Fatalf("no form %s", c.key)
		}
		o := f.Operand(c.op)
		per := 32 / min(FragTypeBits(o.Type), 32)
		at := map[[3]uint8][2]uint8{}
		for _, e := range o.Elems {
			at[[3]uint8{e.Lane, e.Reg, e.Part}] = [2]uint8{e.Row, e.Col}
		}
		for l := 0; l < 32; l++ {
			for x := 0; x < c.n; x++ {
				r, col := c.pos(l, x)
				reg := x / per % o.Primary() // the copy's register holds the same element
				got, ok := at[[3]uint8{uint8(l), uint8(reg), uint8(x % per)}]
				if !ok || int(got[0]) != r || int(got[1]) != col {
					t.Errorf("%s: lane %d element %d at %v, want (%d,%d)", c.key, l, x, got, r, col)
				}
			}
		}
	}
}

// TestWmmaFragmentsAreMmaProducts: each wmma operand is made of the
// fragments of the mma products of the table, side by side: registers
// [reg, reg+n) of the wmma operand, shifted by (row, col), are the mma
// operand.
func TestWmmaFragmentsAreMmaProducts(t *testing.T) {
	type part struct {
		reg, n, row, col int
	}
	check := func(wkey, wop, mkey, mop string, parts ...part) {
		w, m := LookupFragments(wkey), LookupFragments(mkey)
		if w == nil || m == nil {
			t.Fatalf("no form %s or %s", wkey, mkey)
		}
		wo, mo := w.Operand(wop), m.Operand(mop)
		want := map[string]bool{}
		for _, e := range mo.Elems {
			want[fmt.Sprint(e)] = true
		}
		for _, p := range parts {
			got := map[string]bool{}
			for _, e := range wo.Elems {
				if int(e.Reg) >= p.reg && int(e.Reg) < p.reg+p.n {
					got[fmt.Sprint(FragElem{e.Lane, e.Reg - uint8(p.reg), e.Part, e.Row - uint8(p.row), e.Col - uint8(p.col)})] = true
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("%s %s registers %d-%d are not %s %s shifted by (%d,%d)", wkey, wop, p.reg, p.reg+p.n-1, mkey, mop, p.row, p.col)
			}
		}
	}
	h := "mma.m16n8k16.row.col.f32.f16.f16.f32"
	hh := "mma.m16n8k16.row.col.f16.f16.f16.f16"
	check("wmma.m16n16k16.f32.f16.f16.f32", "a", h, "a", part{0, 4, 0, 0})
	check("wmma.m16n16k16.f32.f16.f16.f32", "b", h, "b", part{0, 2, 0, 0}, part{2, 2, 0, 8})
	check("wmma.m16n16k16.f32.f16.f16.f32", "d", h, "d", part{0, 4, 0, 0}, part{4, 4, 0, 8})
	check("wmma.m16n16k16.f16.f16.f16.f16", "c", hh, "c", part{0, 2, 0, 0}, part{2, 2, 0, 8})
	check("wmma.m32n8k16.f32.bf16.bf16.f32", "a", "mma.m16n8k16.row.col.f32.bf16.bf16.f32", "a", part{0, 4, 0, 0}, part{4, 4, 16, 0})
	check("wmma.m32n8k16.f32.f16.f16.f32", "b", h, "b", part{0, 2, 0, 0})
	check("wmma.m32n8k16.f32.f16.f16.f32", "c", h, "c", part{0, 4, 0, 0}, part{4, 4, 16, 0})
	check("wmma.m8n32k16.f32.bf16.bf16.f32", "b", "mma.m16n8k16.row.col.f32.bf16.bf16.f32", "b", part{0, 2, 0, 0}, part{2, 2, 0, 8}, part{4, 2, 0, 16}, part{6, 2, 0, 24})
	i8 := "mma.m16n8k16.row.col.s32.s8.s8.s32"
	check("wmma.m16n16k16.s32.s8.s8.s32", "a", i8, "a", part{0, 2, 0, 0})
	check("wmma.m16n16k16.s32.s8.s8.s32", "b", i8, "b", part{0, 1, 0, 0}, part{1, 1, 0, 8})
	check("wmma.m32n8k16.s32.u8.u8.s32", "a", "mma.m16n8k16.row.col.s32.u8.u8.s32", "a", part{0, 2, 0, 0}, part{2, 2, 16, 0})
	m8 := "mma.m8n8k16.row.col.s32.s8.s8.s32"
	check("wmma.m8n32k16.s32.s8.s8.s32", "a", m8, "a", part{0, 1, 0, 0})
	check("wmma.m8n32k16.s32.s8.s8.s32", "b", m8, "b", part{0, 1, 0, 0}, part{1, 1, 0, 8}, part{2, 1, 0, 16}, part{3, 1, 0, 24})
	check("wmma.m8n32k16.s32.s8.s8.s32", "c", m8, "c", part{0, 2, 0, 0}, part{2, 2, 0, 8}, part{4, 2, 0, 16}, part{6, 2, 0, 24})
	t8 := "mma.m16n8k8.row.col.f32.tf32.tf32.f32"
	check("wmma.m16n16k8.f32.tf32.tf32.f32", "a", t8, "a", part{0, 4, 0, 0})
	check("wmma.m16n16k8.f32.tf32.tf32.f32", "b", t8, "b", part{0, 2, 0, 0}, part{2, 2, 0, 8})
	for _, s := range []string{"a", "b", "c", "d"} {
		check("wmma.m8n8k4.f64.f64.f64.f64", s, "mma.m8n8k4.row.col.f64.f64.f64.f64", s, part{0, 8, 0, 0})
		check("wmma.m8n8k32.s32.u4.u4.s32", s, "mma.m8n8k32.row.col.s32.u4.u4.s32", s, part{0, 8, 0, 0})
		check("wmma.m8n8k128.s32.b1.b1.s32", s, "mma.m8n8k128.row.col.s32.b1.b1.s32", s, part{0, 8, 0, 0})
	}
}
