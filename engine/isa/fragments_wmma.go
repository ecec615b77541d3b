package isa

import "fmt"

// The wmma forms (PTX ISA 9.7.14.4: wmma.load, wmma.store, wmma.mma).
//
// The ISA leaves the distribution of wmma fragments across the lanes
// unspecified. The table uses the layouts of sm_80 (Ampere), built from the
// dense mma fragments (PTX ISA 9.7.14.5) placed side by side: a wmma shape
// is a set of mma products, and each operand is the concatenation of the
// products' fragments, register after register (see docs/emulator.md for
// the evidence and for the shapes where the choice is the emulator's own):
//
//   - .m16n16k16: two m16n8k16 products side by side in N (k = 16: the
//     integer products are m16n8k16 .s8/.u8). A is one m16n8k16 A fragment;
//     B and C/D are the two products' fragments, the first product's (N
//     columns 0-7) in the low registers.
//   - .m32n8k16: two m16n8k16 products stacked in M: A and C/D hold the
//     products' fragments (rows 0-15 first), B is one m16n8k16 B fragment.
//   - .m8n32k16: four products side by side in N, each with the 8 rows of
//     A: the .f16/.bf16 A fragment is the row-g half of an m16n8k16 A
//     fragment (a0, a1, a4, a5), the integer one an m8n8k16 A fragment; B
//     holds four m16n8k16 (m8n8k16) B fragments, C/D four 8x8 accumulators
//     (c0, c1 of each).
//   - .m16n16k8 .tf32: two m16n8k8 .tf32 products side by side in N.
//   - .m8n8k4 .f64, .m8n8k32 .s4/.u4, .m8n8k128 .b1: the mma fragments of
//     the same shape.
//
// .f16 A and B fragments are eight registers whatever the shape (a layout
// inherited from sm_70), more than the matrix needs: the registers hold
// copies of it (FragOperand.Copies).
//
// The fragment layout does not depend on .row/.col, which only say how the
// matrix lies in memory, so the keys carry no layout:
// "wmma.m16n16k16.f32.f16.f16.f32" (wmma.mma, types d.a.b.c),
// "wmma.load.a.m16n16k16.f16", "wmma.store.d.m16n16k16.f32".

// wtile is one mma product's fragment within a wmma operand: n values at
// positions pos, offset by (row, col).
type wtile struct {
	n        int
	row, col int
	pos      fragPos
}

// wmmaOp builds a wmma operand from its tiles, register after register.
func wmmaOp(name, typ string, rows, cols, copies int, tiles ...wtile) FragOperand {
	eb := FragTypeBits(typ)
	rb := 32
	if eb == 64 {
		rb = 64
	}
	per := max(rb/eb, 1)
	o := FragOperand{Name: name, Rows: rows, Cols: cols, Type: typ}
	reg := 0
	for _, t := range tiles {
		for lane := 0; lane < 32; lane++ {
			g, q := lane>>2, lane&3
			for v := 0; v < t.n; v++ {
				r, c := t.pos(g, q, v)
				o.Elems = append(o.Elems, FragElem{uint8(lane), uint8(reg + v/per), uint8(v % per), uint8(r + t.row), uint8(c + t.col)})
			}
		}
		reg += (t.n + per - 1) / per
	}
	o.Regs = reg * max(copies, 1)
	if copies > 1 {
		o.Copies = copies
	}
	sortElems(o.Elems)
	return o
}

// WmmaShapeDims returns M, N and K of a wmma shape, or ok false.
func WmmaShapeDims(shape string) (m, n, k int, ok bool) {
	switch shape {
	case "m16n16k16":
		return 16, 16, 16, true
	case "m32n8k16":
		return 32, 8, 16, true
	case "m8n32k16":
		return 8, 32, 16, true
	case "m16n16k8":
		return 16, 16, 8, true
	case "m8n8k4":
		return 8, 8, 4, true
	case "m8n8k32":
		return 8, 8, 32, true
	case "m8n8k128":
		return 8, 8, 128, true
	}
	return 0, 0, 0, false
}

// wmmaOperand returns the layout of fragment frag ("a", "b", "c" or "d")
// of a wmma shape with element type typ, or ok false when the ISA has no
// such fragment.
func wmmaOperand(frag, shape, typ string) (FragOperand, bool) {
	M, N, K, ok := WmmaShapeDims(shape)
	if !ok {
		return FragOperand{}, false
	}
	rows, cols := M, N
	switch frag {
	case "a":
		rows, cols = M, K
	case "b":
		rows, cols = K, N
	}
	// Positions of the mma fragments (PTX ISA 9.7.14.5).
	a16816h := func(g, q, v int) (int, int) { return g + 8*((v>>1)&1), 2*q + v&1 + 8*(v>>2) }
	b16816h := func(g, q, v int) (int, int) { return 2*q + v&1 + 8*(v>>1), g }
	a16816i := func(g, q, v int) (int, int) { return g + 8*(v>>2), 4*q + v&3 }
	b16816i := func(g, q, v int) (int, int) { return 4*q + v, g }
	a8816i := func(g, q, v int) (int, int) { return g, 4*q + v }
	acc16 := accM16N8
	acc8 := func(g, q, v int) (int, int) { return g, 2*q + v }
	half := typ == "f16" || typ == "bf16"
	int8 := typ == "s8" || typ == "u8"
	acc := typ == "f16" || typ == "f32" || typ == "s32"
	copies := 1
	if typ == "f16" && (frag == "a" || frag == "b") {
		copies = 512 / (rows * cols)
	}
	op := func(tiles ...wtile) (FragOperand, bool) {
		return wmmaOp(frag, typ, rows, cols, copies, tiles...), true
	}
	isAB := frag == "a" || frag == "b"
	switch shape {
	case "m16n16k16", "m32n8k16", "m8n32k16":
		switch {
		case isAB && !half && !int8, !isAB && !acc:
			return FragOperand{}, false
		}
		pa, pb := a16816h, b16816h
		if int8 {
			pa, pb = a16816i, b16816i
		}
		switch shape + frag {
		case "m16n16k16a":
			return op(wtile{8, 0, 0, pa})
		case "m16n16k16b":
			return op(wtile{4, 0, 0, pb}, wtile{4, 0, 8, pb})
		case "m32n8k16a":
			return op(wtile{8, 0, 0, pa}, wtile{8, 16, 0, pa})
		case "m32n8k16b":
			return op(wtile{4, 0, 0, pb})
		case "m8n32k16a":
			if int8 {
				return op(wtile{4, 0, 0, a8816i})
			}
			return op(wtile{4, 0, 0, func(g, q, v int) (int, int) { return g, 2*q + v&1 + 8*(v>>1) }})
		case "m8n32k16b": // integers: m8n8k16 B fragments, the same positions
			return op(wtile{4, 0, 0, pb}, wtile{4, 0, 8, pb}, wtile{4, 0, 16, pb}, wtile{4, 0, 24, pb})
		case "m16n16k16c", "m16n16k16d":
			return op(wtile{4, 0, 0, acc16}, wtile{4, 0, 8, acc16})
		case "m32n8k16c", "m32n8k16d":
			return op(wtile{4, 0, 0, acc16}, wtile{4, 16, 0, acc16})
		default: // m8n32k16 c, d
			return op(wtile{2, 0, 0, acc8}, wtile{2, 0, 8, acc8}, wtile{2, 0, 16, acc8}, wtile{2, 0, 24, acc8})
		}
	case "m16n16k8":
		switch {
		case isAB && typ != "tf32", !isAB && typ != "f32":
			return FragOperand{}, false
		case frag == "a":
			return op(wtile{4, 0, 0, func(g, q, v int) (int, int) { return g + 8*(v&1), q + 4*(v>>1) }})
		case frag == "b":
			pb := func(g, q, v int) (int, int) { return q + 4*v, g }
			return op(wtile{2, 0, 0, pb}, wtile{2, 0, 8, pb})
		}
		return op(wtile{4, 0, 0, acc16}, wtile{4, 0, 8, acc16})
	case "m8n8k4":
		switch {
		case typ != "f64":
			return FragOperand{}, false
		case frag == "a":
			return op(wtile{1, 0, 0, func(g, q, v int) (int, int) { return g, q }})
		case frag == "b":
			return op(wtile{1, 0, 0, func(g, q, v int) (int, int) { return q, g }})
		}
		return op(wtile{2, 0, 0, acc8})
	case "m8n8k32", "m8n8k128":
		w := 8
		sub := typ == "s4" || typ == "u4"
		if shape == "m8n8k128" {
			w, sub = 32, typ == "b1"
		}
		switch {
		case isAB && !sub, !isAB && typ != "s32":
			return FragOperand{}, false
		case frag == "a":
			return op(wtile{w, 0, 0, func(g, q, v int) (int, int) { return g, w*q + v }})
		case frag == "b":
			return op(wtile{w, 0, 0, func(g, q, v int) (int, int) { return w*q + v, g }})
		}
		return op(wtile{2, 0, 0, acc8})
	}
	return FragOperand{}, false
}

// WmmaOperand is wmmaOperand for other packages (the emulator's binder
// names the form it looks up).
func WmmaOperand(frag, shape, typ string) (FragOperand, bool) { return wmmaOperand(frag, shape, typ) }

func wmmaForms(fnote, tnote, inote, bnote, dnote string) []FragInstr {
	var out []FragInstr
	const sides = " The fragments are those of the mma products that make up the shape, side by side (docs/emulator.md)."
	mma := func(shape, d, a, b, c, notes string) {
		od, _ := wmmaOperand("d", shape, d)
		oa, _ := wmmaOperand("a", shape, a)
		ob, _ := wmmaOperand("b", shape, b)
		oc, _ := wmmaOperand("c", shape, c)
		if oa.Copies > 1 || ob.Copies > 1 {
			notes += " The .f16 A and B fragments hold copies of their matrix (copies); wmma.mma reads the first."
		}
		out = append(out, FragInstr{Key: "wmma." + shape + "." + d + "." + a + "." + b + "." + c, Op: "wmma.mma", Shape: shape,
			Operands: []FragOperand{od, oa, ob, oc}, Notes: notes + sides})
	}
	big := []string{"m16n16k16", "m32n8k16", "m8n32k16"}
	for _, sh := range big {
		for _, dc := range [][2]string{{"f32", "f32"}, {"f16", "f16"}, {"f16", "f32"}, {"f32", "f16"}} {
			mma(sh, dc[0], "f16", "f16", dc[1], fnote)
		}
		mma(sh, "f32", "bf16", "bf16", "f32", fnote)
		for _, t := range []string{"s8", "u8"} {
			mma(sh, "s32", t, t, "s32", inote)
		}
	}
	mma("m16n16k8", "f32", "tf32", "tf32", "f32", tnote)
	mma("m8n8k4", "f64", "f64", "f64", "f64", dnote+" With .rz, .rm or .rp every step rounds in that direction.")
	for _, t := range []string{"s4", "u4"} {
		mma("m8n8k32", "s32", t, t, "s32", inote)
	}
	mma("m8n8k128", "s32", "b1", "b1", "s32", bnote)

	type ld struct{ frag, shape, typ string }
	var mems []ld
	for _, sh := range big {
		for _, f := range []string{"a", "b"} {
			for _, t := range []string{"f16", "bf16", "s8", "u8"} {
				mems = append(mems, ld{f, sh, t})
			}
		}
		for _, t := range []string{"f16", "f32", "s32"} {
			mems = append(mems, ld{"c", sh, t})
		}
	}
	mems = append(mems, ld{"a", "m16n16k8", "tf32"}, ld{"b", "m16n16k8", "tf32"}, ld{"c", "m16n16k8", "f32"},
		ld{"a", "m8n8k4", "f64"}, ld{"b", "m8n8k4", "f64"}, ld{"c", "m8n8k4", "f64"})
	for _, t := range []string{"s4", "u4"} {
		mems = append(mems, ld{"a", "m8n8k32", t}, ld{"b", "m8n8k32", t})
	}
	mems = append(mems, ld{"c", "m8n8k32", "s32"}, ld{"a", "m8n8k128", "b1"}, ld{"b", "m8n8k128", "b1"}, ld{"c", "m8n8k128", "s32"})
	const memNote = "Each lane reads (writes) its elements at p + (row*stride + col) elements with .row, p + (col*stride + row) with .col; stride defaults to the leading dimension."
	for _, st := range []bool{false, true} {
		for _, m := range mems {
			name, op := m.frag, "wmma.load"
			if st {
				if m.frag != "c" {
					continue
				}
				name, op = "d", "wmma.store"
			}
			o, ok := wmmaOperand(name, m.shape, m.typ)
			if !ok {
				panic(fmt.Sprintf("isa: no wmma fragment %s %s %s", name, m.shape, m.typ))
			}
			notes := memNote
			if o.Copies > 1 {
				notes += fmt.Sprintf(" The %d registers hold %d copies of the matrix (registers r and r+%d are equal).", o.Regs, o.Copies, o.Primary())
			}
			out = append(out, FragInstr{Key: op + "." + name + "." + m.shape + "." + m.typ, Op: op, Shape: m.shape,
				Operands: []FragOperand{o}, Notes: notes + sides})
		}
	}
	return out
}
