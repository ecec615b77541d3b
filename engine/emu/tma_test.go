package emu

import (
	"bytes"
	"testing"

	"github.com/ptxplayground/ptxplay/engine/isa"
)

// The swizzle tables of PTX §5.5.7, copied from the ISA text: row r (a
// 128-byte shared-memory line of a pattern that starts on its boundary),
// position p holds the 16-byte chunk c of that line's logical data.
var isaSwizzleTables = []struct {
	name  string
	mode  uint8
	atom  isa.SwizzleAtom
	span  int // box inner bytes (the swizzle span)
	table [][8]int
}{
	{"none", isa.TMSwizzleNone, isa.Atom16B, 128, [][8]int{
		{0, 1, 2, 3, 4, 5, 6, 7},
	}},
	{"32B", isa.TMSwizzle32B, isa.Atom16B, 32, [][8]int{
		{0, 1, 2, 3, 4, 5, 6, 7},
		{1, 0, 3, 2, 5, 4, 7, 6},
	}},
	{"64B", isa.TMSwizzle64B, isa.Atom16B, 64, [][8]int{
		{0, 1, 2, 3, 4, 5, 6, 7},
		{1, 0, 3, 2, 5, 4, 7, 6},
		{2, 3, 0, 1, 6, 7, 4, 5},
		{3, 2, 1, 0, 7, 6, 5, 4},
	}},
	{"96B", isa.TMSwizzle96B, isa.Atom16B, 96, [][8]int{
		{0, 1, 2, 3, 4, 5, 6, 7},
		{1, 0, 3, 2, 5, 4, 7, 6},
	}},
	{"128B", isa.TMSwizzle128B, isa.Atom16B, 128, [][8]int{
		{0, 1, 2, 3, 4, 5, 6, 7},
		{1, 0, 3, 2, 5, 4, 7, 6},
		{2, 3, 0, 1, 6, 7, 4, 5},
		{3, 2, 1, 0, 7, 6, 5, 4},
		{4, 5, 6, 7, 0, 1, 2, 3},
		{5, 4, 7, 6, 1, 0, 3, 2},
		{6, 7, 4, 5, 2, 3, 0, 1},
		{7, 6, 5, 4, 3, 2, 1, 0},
	}},
	{"128B atom 32B", isa.TMSwizzle128B, isa.Atom32B, 128, [][8]int{
		{0, 1, 2, 3, 4, 5, 6, 7},
		{2, 3, 0, 1, 6, 7, 4, 5},
		{4, 5, 6, 7, 0, 1, 2, 3},
		{6, 7, 4, 5, 2, 3, 0, 1},
	}},
	{"128B atom 64B", isa.TMSwizzle128B, isa.Atom64B, 128, [][8]int{
		{0, 1, 2, 3, 4, 5, 6, 7},
		{4, 5, 6, 7, 0, 1, 2, 3},
	}},
}

func f32Map2D(span, rows int) isa.TensorMap {
	m := isa.TensorMap{
		GlobalAddress: 0x10000, Rank: 2, ElemType: isa.TensorF32,
		GlobalStrides: [4]uint64{uint64(span)},
	}
	m.GlobalDim[0], m.GlobalDim[1] = uint64(span/4), uint64(rows)
	m.BoxDim[0], m.BoxDim[1] = uint32(span/4), uint32(rows)
	m.ElementStrides[0], m.ElementStrides[1] = 1, 1
	return m
}

// Every §5.5.7 table through the placement function, from a destination on
// the pattern's boundary and from every other 128-byte line (the base
// offset: the table starts at row (dst/128) mod rows).
func TestTMAPlaceSwizzleTables(t *testing.T) {
	for _, tc := range isaSwizzleTables {
		rows := len(tc.table)
		// Enough rows of span bytes to cover the pattern twice.
		nrows := 2 * rows * 128 / tc.span
		if 128%tc.span != 0 {
			nrows = 2 * rows * 4 // 96B: 96-byte rows, several lines
		}
		m := f32Map2D(tc.span, nrows)
		m.SwizzleMode, m.SwizzleAtom = tc.mode, tc.atom
		for base := 0; base < 8; base++ {
			dst := uint64(0x4000 + base*128)
			p, err := TMAPlaceTile(m, []int32{0, 0}, dst)
			if err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
			if len(p.Elements) != tc.span/4*nrows {
				t.Fatalf("%s: %d elements", tc.name, len(p.Elements))
			}
			for k, e := range p.Elements {
				o := k * 4
				line, chunk := o/128, (o%128)/16
				row := (line + base) % rows
				pos := -1
				for i, c := range tc.table[row] {
					if c == chunk {
						pos = i
					}
				}
				want := uint64(line*128 + pos*16 + o%16)
				if e.Shared != want {
					t.Fatalf("%s, dst %#x: element %d (line %d, chunk %d) lands at +%d, the table says +%d", tc.name, dst, k, line, chunk, e.Shared, want)
				}
				wantG := m.GlobalAddress + uint64(k/(tc.span/4))*uint64(tc.span) + uint64(k%(tc.span/4))*4
				if e.OOB || e.Global != wantG {
					t.Fatalf("%s: element %d reads %#x (oob %v), want %#x", tc.name, k, e.Global, e.OOB, wantG)
				}
			}
		}
	}
}

// The 32B + 8B-flip sub-mode: the 32-byte table of its parent and, on every
// odd 128-byte line, the two 8-byte halves of each 16 bytes swapped.
func TestTMAPlaceSwizzleFlip8B(t *testing.T) {
	table := isaSwizzleTables[5].table // 128B atom 32B
	m := f32Map2D(128, 8)
	m.SwizzleMode, m.SwizzleAtom = isa.TMSwizzle128B, isa.Atom32BFlip8B
	p, err := TMAPlaceTile(m, []int32{0, 0}, 0x8000)
	if err != nil {
		t.Fatal(err)
	}
	for k, e := range p.Elements {
		o := k * 4
		line, chunk := o/128, (o%128)/16
		pos := 0
		for i, c := range table[line%4] {
			if c == chunk {
				pos = i
			}
		}
		in := o % 16
		if line%2 == 1 {
			in ^= 8
		}
		if want := uint64(line*128 + pos*16 + in); e.Shared != want {
			t.Fatalf("element %d lands at +%d, want +%d", k, e.Shared, want)
		}
	}
}

// A box that hangs over two edges: out-of-bounds elements are marked, read
// nothing, and the transaction count is still the whole box; the fill is
// zero or the type's NaN.
func TestTMAPlaceOOBFillAndFullBoxBytes(t *testing.T) {
	m := isa.TensorMap{GlobalAddress: 0x1000, Rank: 2, ElemType: isa.TensorF32, GlobalStrides: [4]uint64{48}}
	m.GlobalDim[0], m.GlobalDim[1] = 10, 10
	m.BoxDim[0], m.BoxDim[1] = 8, 8
	m.ElementStrides[0], m.ElementStrides[1] = 1, 1
	p, err := TMAPlaceTile(m, []int32{-2, 6}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if p.TxBytes != 8*8*4 {
		t.Fatalf("transaction bytes %d, want %d", p.TxBytes, 8*8*4)
	}
	inb := 0
	for k, e := range p.Elements {
		x, y := int64(-2+k%8), int64(6+k/8)
		wantOOB := x < 0 || x >= 10 || y >= 10
		if e.Coord[0] != x || e.Coord[1] != y || e.OOB != wantOOB {
			t.Fatalf("element %d: coord %v oob %v, want (%d,%d) oob %v", k, e.Coord[:2], e.OOB, x, y, wantOOB)
		}
		if !wantOOB {
			inb++
			if want := uint64(0x1000 + y*48 + x*4); e.Global != want {
				t.Fatalf("element %d reads %#x, want %#x", k, e.Global, want)
			}
		}
		if e.Shared != uint64(k*4) {
			t.Fatalf("element %d lands at %d", k, e.Shared)
		}
	}
	if inb != 6*4 { // x in 0..5 → 6 columns, y in 6..9 → 4 rows
		t.Fatalf("%d elements in bounds, want 24", inb)
	}
	if !bytes.Equal(p.Fill, []byte{0, 0, 0, 0}) {
		t.Fatalf("zero fill %x", p.Fill)
	}
	m.FillNaN = true
	p, _ = TMAPlaceTile(m, []int32{-2, 6}, 0)
	if !bytes.Equal(p.Fill, []byte{0xff, 0xff, 0xff, 0x7f}) {
		t.Fatalf("NaN fill %x", p.Fill)
	}
	m.ElemType = isa.TensorBF16
	m.BoxDim[0] = 8
	if p, err = TMAPlaceTile(m, []int32{0, 0}, 0); err != nil || !bytes.Equal(p.Fill, []byte{0xff, 0x7f}) {
		t.Fatalf("bf16 NaN fill %x %v", p.Fill, err)
	}
}

// Element strides: dimension d visits ceil(boxDim/elementStride) elements,
// elementStride apart; dimension 0's stride is ignored without interleave
// and honoured with it.
func TestTMAPlaceElementStrides(t *testing.T) {
	m := isa.TensorMap{GlobalAddress: 0x2000, Rank: 3, ElemType: isa.TensorU32, GlobalStrides: [4]uint64{64, 64 * 16}}
	m.GlobalDim = [5]uint64{16, 16, 16}
	m.BoxDim = [5]uint32{4, 5, 6}
	m.ElementStrides = [5]uint32{3, 2, 3}
	p, err := TMAPlaceTile(m, []int32{1, 2, 3}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if p.Box[0] != 4 || p.Box[1] != 3 || p.Box[2] != 2 {
		t.Fatalf("box %v, want [4 3 2]", p.Box[:3])
	}
	if p.TxBytes != 4*3*2*4 || len(p.Elements) != 24 {
		t.Fatalf("tx %d, %d elements", p.TxBytes, len(p.Elements))
	}
	k := 0
	for z := 0; z < 2; z++ {
		for y := 0; y < 3; y++ {
			for x := 0; x < 4; x++ {
				e := p.Elements[k]
				cx, cy, cz := 1+x, 2+2*y, 3+3*z
				if e.Coord[0] != int64(cx) || e.Coord[1] != int64(cy) || e.Coord[2] != int64(cz) {
					t.Fatalf("element %d at %v, want (%d,%d,%d)", k, e.Coord[:3], cx, cy, cz)
				}
				if want := uint64(0x2000 + cz*1024 + cy*64 + cx*4); e.Global != want {
					t.Fatalf("element %d reads %#x, want %#x", k, e.Global, want)
				}
				k++
			}
		}
	}
	// Interleaved: dimension 0's stride counts.
	m.Interleave = isa.Interleave16B
	p, err = TMAPlaceTile(m, []int32{1, 2, 3}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if p.Box[0] != 2 || p.Elements[1].Coord[0] != 4 {
		t.Fatalf("interleaved box %v, element 1 at %v", p.Box[:3], p.Elements[1].Coord[:3])
	}
}

func TestTMAPlace1DAnd5D(t *testing.T) {
	m := isa.TensorMap{GlobalAddress: 0x3000, Rank: 1, ElemType: isa.TensorF16}
	m.GlobalDim[0], m.BoxDim[0], m.ElementStrides[0] = 100, 16, 1
	p, err := TMAPlaceTile(m, []int32{90}, 0x80)
	if err != nil {
		t.Fatal(err)
	}
	if p.TxBytes != 32 || len(p.Elements) != 16 {
		t.Fatalf("1-D: tx %d, %d elements", p.TxBytes, len(p.Elements))
	}
	for k, e := range p.Elements {
		if oob := 90+k >= 100; e.OOB != oob || !oob && e.Global != uint64(0x3000+2*(90+k)) || e.Shared != uint64(2*k) {
			t.Fatalf("1-D element %d: %+v", k, e)
		}
	}

	m = isa.TensorMap{GlobalAddress: 0x10000, Rank: 5, ElemType: isa.TensorU8,
		GlobalDim: [5]uint64{32, 3, 2, 2, 3}, GlobalStrides: [4]uint64{32, 96, 192, 384},
		BoxDim: [5]uint32{16, 3, 2, 2, 2}, ElementStrides: [5]uint32{1, 1, 1, 1, 1}}
	p, err = TMAPlaceTile(m, []int32{16, 0, 0, 0, 2}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if n := 16 * 3 * 2 * 2 * 2; len(p.Elements) != n || p.TxBytes != int64(n) {
		t.Fatalf("5-D: %d elements, tx %d", len(p.Elements), p.TxBytes)
	}
	k := 0
	for d4 := 0; d4 < 2; d4++ {
		for d3 := 0; d3 < 2; d3++ {
			for d2 := 0; d2 < 2; d2++ {
				for d1 := 0; d1 < 3; d1++ {
					for d0 := 0; d0 < 16; d0++ {
						e := p.Elements[k]
						oob := 2+d4 >= 3
						want := uint64(0x10000 + (16 + d0) + 32*d1 + 96*d2 + 192*d3 + 384*(2+d4))
						if e.OOB != oob || !oob && e.Global != want || e.Shared != uint64(k) {
							t.Fatalf("5-D element %d: %+v, want global %#x oob %v", k, e, want, oob)
						}
						k++
					}
				}
			}
		}
	}
}

func TestTMAPlaceRejects(t *testing.T) {
	m := f32Map2D(128, 4)
	if _, err := TMAPlaceTile(m, []int32{0}, 0); err == nil {
		t.Error("wrong number of coordinates accepted")
	}
	if _, err := TMAPlaceTile(m, []int32{0, 0}, 64); err == nil {
		t.Error("a shared address off 128 bytes accepted")
	}
	m.BoxDim[0] = 0
	if _, err := TMAPlaceTile(m, []int32{0, 0}, 0); err == nil {
		t.Error("an invalid map accepted")
	}
}
