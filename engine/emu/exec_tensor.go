package emu

import (
	"math"
	"math/bits"
	"strings"
	"sync"
	"unsafe"

	"github.com/ptxplayground/ptxplay/engine/fpx"
	"github.com/ptxplayground/ptxplay/engine/isa"
	"github.com/ptxplayground/ptxplay/engine/ptx"
)

// The tensor-core family: mma, ldmatrix, stmatrix and movmatrix (wmma:
// exec_wmma.go, on the mma executors).
//
// Every form the emulator executes is an entry of isa.FragmentTable(): the
// op's Aux is the entry's index and the executors place elements by its
// layouts. Operands are read from the Op: Regs holds the vector operands
// one after the other (mma: D, A, B, C, with their lengths in Parts), A
// the address register of ldmatrix/stmatrix (as for ld and st).
//
// These instructions are warp-collective (.sync.aligned): all 32 lanes of
// the warp must execute them together. When some lane does not (inactive,
// guard false, exited, or absent from a partial warp), the launch stops with
// an invalid-membermask fault naming the missing lanes.
//
// Numerics of mma (see docs/emulator.md): products are exact; floating
// point D = C + sum of the K products, accumulated in f64 from C in
// ascending k and rounded once, to nearest even, to the accumulator type
// (a NaN result is the canonical NaN). Integer forms are exact, wrapping
// modulo 2^32 or clamped with .satfinite. .f64 forms chain fused
// multiply-adds from C in ascending k.

func init() {
	binders[isa.OpMma] = bindMma
	binders[isa.OpLdmatrix] = bindMatrixMem
	binders[isa.OpStmatrix] = bindMatrixMem
	binders[isa.OpMovmatrix] = bindMovmatrix
}

// ---- forms ----

// fragMap is one operand's layout, flattened for the executors: pos[(reg*32
// + lane)*per + part] is the element's index in the operand's matrix
// (row*cols + col; B of the integer, .b1 and .f64 mma forms is stored
// transposed, col*rows + row, that of the other float forms is not).
//
// For the float forms, n is the matrix's element count, and words, when
// every register holds two 16-bit elements side by side in a row (A of
// the .f16 and .bf16 mma forms), is pos by register halves: words[reg*32 +
// lane] = pos[(reg*32+lane)*2] / 2. The vector gathers place the raw
// encodings by these plans and convert the matrix in one pass.
type fragMap struct {
	regs, per, bits int
	elem            string
	pos             []uint16
	n               int
	words           []uint16
	vec             vecGather
}

// vecGather says how the vector path gathers an operand (gatherFloatVec).
type vecGather uint8

const (
	vecNone      vecGather = iota
	vecF16Words            // .f16, whole registers by fragMap.words
	vecF16Halves           // .f16, each half by fragMap.pos
	vecF32                 // .f32 (.tf32: vecTF32), each word by fragMap.pos
	vecTF32
)

type tensorKind uint8

const (
	tkFloat tensorKind = iota
	tkInt
	tkBit
	tkF64
	tkLd
	tkSt
	tkMov
	tkWmmaLd
	tkWmmaSt
)

type tensorForm struct {
	fi      *isa.FragInstr
	kind    tensorKind
	m, n, k int // of one product
	groups  int // independent products (4 for m8n8k4 .f16, else 1)
	ops     []fragMap
	// mma.sp: k is the logical K, k2 the columns of the compressed A, sp
	// the metadata fields.
	k2   int
	sp   *sparseMeta
	wmem *wmmaMem // wmma.load / wmma.store
}

var tensorForms struct {
	sync.Once
	list []tensorForm
}

func tensorFormAt(i int32) *tensorForm {
	tensorForms.Do(func() {
		f16Values = new([1 << 16]float64)
		for h := range f16Values {
			f16Values[h] = f16ToF64(uint16(h))
		}
		tab := isa.FragmentTable()
		tensorForms.list = make([]tensorForm, len(tab))
		for i := range tab {
			tensorForms.list[i] = newTensorForm(&tab[i])
		}
	})
	return &tensorForms.list[i]
}

func newTensorForm(fi *isa.FragInstr) tensorForm {
	f := tensorForm{fi: fi}
	switch fi.Op {
	case "ldmatrix":
		f.kind = tkLd
	case "stmatrix":
		f.kind = tkSt
	case "movmatrix":
		f.kind = tkMov
	case "wmma.load":
		f.kind = tkWmmaLd
	case "wmma.store":
		f.kind = tkWmmaSt
	default:
		a, b := fi.Operand("a"), fi.Operand("b")
		f.groups = max(fi.Groups, 1)
		f.m, f.k, f.n = a.Rows/f.groups, a.Cols, b.Cols
		if fi.Sparse != nil {
			f.k, f.k2 = fi.Sparse.K, a.Cols
			f.sp = newSparseMeta(fi)
		}
		switch a.Type {
		case "s8", "u8", "s4", "u4":
			f.kind = tkInt
		case "b1":
			f.kind = tkBit
		case "f64":
			f.kind = tkF64
		default:
			f.kind = tkFloat
		}
	}
	for oi := range fi.Operands {
		o := &fi.Operands[oi]
		if o.Name == "e" {
			continue // the mma.sp metadata: sparseMeta
		}
		eb := isa.FragTypeBits(o.Type)
		rb := 32
		if eb == 64 {
			rb = 64
		}
		// Operands with copies (wmma .f16 A and B): the map covers the
		// first copy; the executors read it and wmma.load writes every copy.
		fm := fragMap{regs: o.Primary(), per: rb / eb, bits: eb, elem: o.Type}
		if f.kind == tkLd || f.kind == tkSt {
			// o's Reg is its position in the vector: matrix j has
			// registers Regs*j to Regs*j+Regs-1.
			fm.regs = o.Regs
		}
		fm.pos = make([]uint16, fm.regs*32*fm.per)
		for _, e := range o.Elems {
			reg := int(e.Reg)
			if f.kind == tkLd || f.kind == tkSt {
				reg %= o.Regs
			}
			idx := int(e.Row)*o.Cols + int(e.Col)
			if o.Name == "b" && (fi.Op == "mma" || fi.Op == "wmma.mma") && f.kind != tkFloat {
				// Each group's B transposed: group g at g*K*N.
				k := f.k
				idx = int(e.Row)/k*k*o.Cols + int(e.Col)*k + int(e.Row)%k
			}
			if (f.kind == tkFloat || f.kind == tkF64) && idx >= tensorFloatElems {
				panic("emu: " + fi.Key + ": an operand exceeds the float mma storage")
			}
			fm.pos[(reg*32+int(e.Lane))*fm.per+int(e.Part)] = uint16(idx)
		}
		if fm.bits == 1 && f.kind == tkBit {
			// execMmaBit moves whole registers: each must hold 32
			// consecutive elements of a row of A (column of B), from a
			// multiple of 32.
			for i := 0; i < len(fm.pos); i += 32 {
				for p := 0; p < 32; p++ {
					if fm.pos[i]%32 != 0 || fm.pos[i+p] != fm.pos[i]+uint16(p) {
						panic("emu: " + fi.Key + ": a .b1 register is not 32 consecutive elements")
					}
				}
			}
		}
		if f.kind == tkFloat {
			fm.n = o.Rows * o.Cols
			if fm.bits == 16 {
				fm.words = make([]uint16, len(fm.pos)/2)
				for i := range fm.words {
					p := fm.pos[2*i]
					if p%2 != 0 || fm.pos[2*i+1] != p+1 {
						fm.words = nil
						break
					}
					fm.words[i] = p / 2
				}
			}
			switch {
			case fm.elem == "f16" && fm.n%8 == 0 && fm.words != nil:
				fm.vec = vecF16Words
			case fm.elem == "f16" && fm.n%8 == 0:
				fm.vec = vecF16Halves
			case fm.elem == "f32" && fm.n%4 == 0:
				fm.vec = vecF32
			case fm.elem == "tf32" && fm.n%4 == 0:
				fm.vec = vecTF32
			}
		}
		f.ops = append(f.ops, fm)
	}
	if f.kind == tkWmmaLd || f.kind == tkWmmaSt {
		f.wmem = newWmmaMem(fi)
	}
	return f
}

// ---- binding ----

// tensorNotYet lowers a recognised form the emulator does not execute yet:
// a warning, and an op that faults when reached (as lowerInstr does for
// planned instructions).
// variant names what is planned ("" for "this form of <op>").
func tensorNotYet(b *binder, variant string) {
	b.used.types, b.used.space, b.used.rnd, b.used.cmp, b.used.vec, b.used.tensor = true, true, true, true, true, true
	b.used.subs = len(b.m.Subs)
	b.used.flags = b.m.Flags
	if variant == "" {
		variant = "this form of " + b.op.Code.String()
	}
	what := b.name + " is not supported yet (" + variant + " is planned)"
	b.c.diags.Warnf(b.ins.OpSpan, ptx.DiagUnsupportedInstruction, "%s; the launch faults if a thread reaches it", what)
	b.op.Exec = func(w *Warp, op *Op, mask uint32) *Fault {
		return w.faultAll(FaultIllegal, mask, "%s", what)
	}
	b.notYet = true
}

// tensorMods splits the tensor modifiers: the shape, the layouts, the matrix
// count, the sub-byte element types and whether other words appear (.sp and
// .sp::ordered_metadata are not counted: see mmaSparse).
func tensorMods(b *binder) (shape isa.Shape, lays []isa.Layout, num int, elems []isa.Elem, other bool) {
	for _, m := range b.Tensor() {
		if m.Kind == isa.ModTensor && (isa.TensorWord(m.Value) == isa.TensorSp || isa.TensorWord(m.Value) == isa.TensorSpOrdered) {
			continue
		}
		switch m.Kind {
		case isa.ModElem:
			elems = append(elems, isa.Elem(m.Value))
		case isa.ModShape:
			if shape != isa.ShapeNone {
				other = true
			}
			shape = isa.Shape(m.Value)
		case isa.ModLayout:
			lays = append(lays, isa.Layout(m.Value))
		case isa.ModNum:
			if num != 0 {
				other = true
			}
			num = int(m.Value)
		default:
			other = true
		}
	}
	return
}

// mmaPlanned names the variant of mma that the modifier words select when
// the emulator does not execute it yet, or "".
func mmaPlanned(b *binder) string {
	for _, m := range b.m.Tensor {
		if m.Kind != isa.ModTensor {
			continue
		}
		switch isa.TensorWord(m.Value) {
		case isa.TensorKindF8F6F4:
			return "mma .kind::f8f6f4 of sm_120a"
		case isa.TensorKindMxF8F6F4, isa.TensorKindMxF4, isa.TensorKindMxF4NvF4, isa.TensorBlockScale,
			isa.TensorScaleVec1X, isa.TensorScaleVec2X, isa.TensorScaleVec4X:
			return "mma with block scaling (.block_scale, .kind::mx*)"
		}
	}
	return ""
}

// mmaSparse reports whether the instruction is mma.sp (sp) and whether it
// is mma.sp::ordered_metadata (ordered); twice is an error.
func mmaSparse(b *binder) (sp, ordered bool) {
	n := 0
	for _, m := range b.m.Tensor {
		if m.Kind != isa.ModTensor {
			continue
		}
		switch isa.TensorWord(m.Value) {
		case isa.TensorSp:
			sp = true
			n++
		case isa.TensorSpOrdered:
			sp, ordered = true, true
			n++
		}
	}
	if n > 1 {
		b.errorf("takes one of .sp and .sp::ordered_metadata")
	}
	return
}

func tensorSyncAligned(b *binder) bool {
	s, a := b.Flag(isa.FSync), b.Flag(isa.FAligned)
	if !s || !a {
		b.errorf("needs .sync.aligned")
		return false
	}
	return true
}

func bindMma(b *binder) {
	if !tensorSyncAligned(b) {
		return
	}
	sat := b.Flag(isa.FSatfinite)
	rnd := b.Rnd()
	types := b.AllTypes()
	var subs []isa.SubOp // .and.popc / .xor.popc of the .b1 forms
	for s := b.Sub(); s != isa.SubNone; s = b.Sub() {
		subs = append(subs, s)
	}
	sparse, ordered := mmaSparse(b)
	shape, lays, num, elems, other := tensorMods(b)
	if b.failed {
		return
	}
	if shape == isa.ShapeNone || num != 0 {
		b.errorf("needs one shape (.m16n8k16, ...) and no matrix count")
		return
	}
	name := "mma"
	if sparse {
		name = "mma.sp"
	}
	// The element types in order d, a, b, c: sub-byte A and B (.s4, .u4,
	// .b1) are modifiers of their own, between D's type and C's.
	var tnames []string
	for _, t := range types {
		tnames = append(tnames, t.String())
	}
	if len(elems) == 2 && len(types) == 2 {
		tnames = []string{tnames[0], elems[0].String(), elems[1].String(), tnames[1]}
	} else if len(elems) > 0 {
		other = true
	}
	if v := mmaPlanned(b); v != "" {
		tensorNotYet(b, v)
		return
	}
	if other || len(tnames) != 4 || len(lays) != 2 {
		b.errorf("not a form of %s: it needs .alayout.blayout and the four types .dtype.atype.btype.ctype", name)
		return
	}
	types4 := "." + strings.Join(tnames, ".")
	key := name + "." + shape.String() + "." + lays[0].String() + "." + lays[1].String() + types4
	fi := isa.FragmentIndex(key)
	if fi < 0 {
		if lays[0] != isa.Row || lays[1] != isa.Col {
			// Only .m8n8k4 with .f16 inputs has other layouts.
			if isa.FragmentIndex(name+"."+shape.String()+".row.col"+types4) >= 0 {
				b.errorf("this form of %s takes .row.col layouts only", name)
				return
			}
		}
		b.errorf("not a form of %s: no .%s form with types %s (d.a.b.c)", name, shape, types4)
		return
	}
	f := tensorFormAt(int32(fi))
	if f.kind == tkBit {
		if len(subs) != 2 || (subs[0] != isa.SubAnd && subs[0] != isa.SubXor) || subs[1] != isa.SubPopc {
			b.errorf(".b1 forms need .and.popc or .xor.popc")
			return
		}
		if sat {
			b.errorf(".satfinite is not valid for .b1 forms")
			return
		}
	} else if len(subs) > 0 {
		b.errorf(".and.popc / .xor.popc apply to .b1 forms only")
		return
	}
	if sat && f.kind != tkInt {
		b.errorf(".satfinite applies to integer forms only")
		return
	}
	if rnd != isa.RndNone && (rnd != isa.RN || f.kind != tkF64) {
		b.errorf("rounding modifier .%s is not valid for this form", rnd)
		return
	}
	nopd := 4
	if sparse {
		nopd = 6
	}
	if !b.Want(nopd, nopd) {
		return
	}
	op := b.op
	if sparse {
		// e: the metadata register (or a constant); f: the sparsity
		// selector, a constant. op.Imm holds the selector, bit 8 says
		// ::ordered_metadata.
		sp := f.fi.Sparse
		if !b.IsImm(5) {
			b.operr(5, "the sparsity selector (operand 6) must be a constant 0..%d", sp.Selectors-1)
			return
		}
		v, ok := b.Imm(5)
		if !ok {
			return
		}
		if v.Kind == ptx.ValFloat {
			b.operr(5, "the sparsity selector (operand 6) must be an integer constant 0..%d", sp.Selectors-1)
			return
		}
		if v.Int >= uint64(sp.Selectors) {
			b.operr(5, "sparsity selector %s is out of range for this form: %s", v, selectorRule(sp))
			return
		}
		op.E = b.Src(4, isa.B32)
		if b.failed {
			return
		}
		op.Imm = uint64(v.Int)
		if ordered {
			op.Imm |= mmaOrdered
		}
	}
	op.Aux = int32(fi)
	op.Flags = op.Flags.With(isa.FSync).With(isa.FAligned)
	if sat {
		op.Flags = op.Flags.With(isa.FSatfinite)
	}
	op.Type = types[0]
	if len(types) == 4 {
		op.Type2 = types[1]
	}
	op.Shape = shape
	var regs []int32
	for i, fm := range f.ops { // d, a, b, c
		t := isa.B32
		if fm.bits == 64 {
			t = isa.B64
		}
		rs := b.VecRegs(i, fm.regs, t, i == 0)
		if b.failed {
			return
		}
		op.Parts[i] = uint8(len(rs))
		regs = append(regs, rs...)
	}
	op.Regs = regs
	switch {
	case f.sp != nil && f.kind == tkInt:
		op.Exec = execMmaSparseInt
	case f.sp != nil:
		op.Exec = execMmaSparseFloat
	case f.kind == tkInt:
		op.Exec = execMmaInt
	case f.kind == tkBit:
		op.Sub = subs[0]
		op.Exec = execMmaBit
	case f.kind == tkF64:
		op.Exec = execMmaF64
	default:
		op.Exec = execMmaFloat
	}
}

// bindMatrixMem binds ldmatrix and stmatrix: the .m8n8 .b16 forms, the
// 8-bit forms (ldmatrix .m16n16 .trans .b8, stmatrix .m16n8 .trans .b8)
// and the packed loads (ldmatrix .m8n16 / .m16n16 .b8x16.b6x16_p32 and
// .b8x16.b4x16_p64).
func bindMatrixMem(b *binder) {
	if !tensorSyncAligned(b) {
		return
	}
	trans := b.Flag(isa.FTrans)
	space := b.Space()
	name := b.op.Code.String()
	// The packed loads name a destination and a source format instead of
	// a type.
	var dst, src string
	var shape isa.Shape
	var num int
	other := false
	for _, m := range b.Tensor() {
		switch m.Kind {
		case isa.ModShape:
			other = other || shape != isa.ShapeNone
			shape = isa.Shape(m.Value)
		case isa.ModNum:
			other = other || num != 0
			num = int(m.Value)
		case isa.ModTensor:
			switch isa.TensorWord(m.Value) {
			case isa.TensorB8x16:
				other = other || dst != ""
				dst = "b8x16"
			case isa.TensorB6x16P32, isa.TensorB4x16P64:
				other = other || src != ""
				src = isa.TensorWord(m.Value).String()
			default:
				other = true
			}
		default:
			other = true
		}
	}
	if b.failed {
		return
	}
	if shape == isa.ShapeNone || num == 0 {
		b.errorf("needs a shape and a matrix count (.m8n8.x1, .x2 or .x4)")
		return
	}
	if other {
		b.errorf("not a form of %s: unexpected modifiers", name)
		return
	}
	var typ string // the key's last part
	t := isa.TNone
	if dst != "" || src != "" {
		b.used.types = true
		if len(b.m.Types) > 0 {
			b.errorf("the packed formats (.b8x16.b6x16_p32, .b8x16.b4x16_p64) take no type modifier")
			return
		}
		if dst == "" || src == "" {
			b.errorf("a packed load needs the destination format .b8x16 and a source format (.b6x16_p32 or .b4x16_p64)")
			return
		}
		if b.op.Code != isa.OpLdmatrix {
			b.errorf("stmatrix has no packed formats (.b8x16.b6x16_p32, .b8x16.b4x16_p64)")
			return
		}
		typ = dst + "." + src
		t = isa.B8
	} else {
		t = b.Type()
		if b.failed {
			return
		}
		typ = t.String()
	}
	if msg := matrixFormRule(b.op.Code, shape, num, trans, t, src != ""); msg != "" {
		b.errorf("%s", msg)
		return
	}
	switch space {
	case isa.SpaceNone, isa.Shared:
	default:
		b.errorf("accesses .shared memory only (or a generic address of it)")
		return
	}
	key := name + "." + shape.String() + ".x" + itoa(num)
	if trans {
		key += ".trans"
	}
	fi := isa.FragmentIndex(key + "." + typ)
	if fi < 0 {
		b.errorf("not a form of %s: %s.%s", name, key, typ)
		return
	}
	if !b.Want(2, 2) {
		return
	}
	vi, ai := 0, 1
	if b.op.Code == isa.OpStmatrix {
		vi, ai = 1, 0
	}
	ref, ok := bindMemRef(b, ai, space)
	if !ok {
		return
	}
	if ref.space != isa.Shared && ref.space != isa.SpaceNone {
		b.operr(ai, "%s accesses .shared memory only", name)
		return
	}
	f := tensorFormAt(int32(fi))
	nregs := 0
	for _, fm := range f.ops {
		nregs += fm.regs
	}
	regs := b.VecRegs(vi, nregs, isa.B32, vi == 0)
	if b.failed {
		return
	}
	op := b.op
	ref.set(op)
	op.Type, op.Vec, op.Shape = t, uint8(num), shape
	op.Aux = int32(fi)
	op.Regs = regs
	op.Flags = op.Flags.With(isa.FSync).With(isa.FAligned)
	if trans {
		op.Flags = op.Flags.With(isa.FTrans)
	}
	switch {
	case op.Code == isa.OpLdmatrix && shape == isa.M8N8:
		op.Exec = execLdmatrix
	case op.Code == isa.OpStmatrix && shape == isa.M8N8:
		op.Exec = execStmatrix
	case op.Code == isa.OpLdmatrix:
		op.Exec = execLdmatrix8
	default:
		op.Exec = execStmatrix8
	}
}

// matrixFormRule checks the shape, count, .trans and type of an
// ldmatrix/stmatrix against the PTX ISA's forms, returning what is wrong
// or "". packed: a .b8x16.b6x16_p32 / .b8x16.b4x16_p64 load (t is .b8).
func matrixFormRule(code isa.Opcode, shape isa.Shape, num int, trans bool, t isa.Type, packed bool) string {
	ld := code == isa.OpLdmatrix
	switch {
	case shape == isa.M8N8:
		if t != isa.B16 || packed {
			return ".m8n8 takes .b16 only"
		}
	case shape == isa.M16N16 && ld:
		if t != isa.B8 {
			return ".m16n16 takes .b8 or a packed format (.b8x16.b6x16_p32, .b8x16.b4x16_p64)"
		}
		if num == 4 {
			return ".m16n16 loads one or two matrices (.x1 or .x2)"
		}
		if !trans {
			return ".m16n16 needs .trans (the 16x16 matrices are always transposed)"
		}
	case shape == isa.M8N16 && ld:
		if !packed {
			return ".m8n16 takes a packed format only (.b8x16.b6x16_p32 or .b8x16.b4x16_p64)"
		}
		if trans {
			return ".trans is not valid with .m8n16"
		}
	case shape == isa.M16N8 && !ld:
		if t != isa.B8 {
			return ".m16n8 takes .b8 only"
		}
		if !trans {
			return ".m16n8 needs .trans (the 16x8 matrices are stored column-major)"
		}
	default:
		if ld {
			return "ldmatrix shapes are .m8n8 (.b16), .m16n16 (.b8 and packed) and .m8n16 (packed)"
		}
		return "stmatrix shapes are .m8n8 (.b16) and .m16n8 (.b8)"
	}
	if num != 1 && num != 2 && num != 4 {
		return "the matrix count is .x1, .x2 or .x4"
	}
	return ""
}

func bindMovmatrix(b *binder) {
	if !tensorSyncAligned(b) {
		return
	}
	trans := b.Flag(isa.FTrans)
	t := b.Type()
	shape, lays, num, elems, other := tensorMods(b)
	other = other || len(elems) > 0
	if b.failed {
		return
	}
	if !trans || shape != isa.M8N8 || t != isa.B16 || num != 0 || len(lays) > 0 || other {
		b.errorf("the only form is movmatrix.sync.aligned.m8n8.trans.b16")
		return
	}
	if !b.Want(2, 2) {
		return
	}
	op := b.op
	op.D = b.Dst(0, isa.B32)
	op.A = b.Src(1, isa.B32)
	op.Type, op.Shape = t, shape
	op.Aux = int32(isa.FragmentIndex("movmatrix.m8n8.trans.b16"))
	op.Flags = op.Flags.With(isa.FSync).With(isa.FAligned).With(isa.FTrans)
	op.Exec = execMovmatrix
}

// ---- execution ----

// tensorConverged checks that the whole warp executes a warp-collective
// instruction.
func tensorConverged(w *Warp, op *Op, mask uint32) *Fault {
	if mask == ^uint32(0) {
		return nil
	}
	if w.m.indep {
		// Independent scheduling made the executing lanes wait for the
		// rest of the warp (syncJoin): the live lanes still missing are
		// at another instruction and can never arrive at this one.
		if away := w.valid &^ w.exited &^ mask &^ w.m.syncGroup &^ w.stack[len(w.stack)-1].Mask; away != 0 {
			return w.faultAll(FaultDivergentAligned, mask, "%s is .sync.aligned: every thread of the warp must execute the same %s instruction, but lane(s) %s are elsewhere (%s) and can never reach this one (divergent execution of an .aligned instruction is undefined)", op.Code, op.Code, warpLaneList(away), w.laneWhere(away))
		}
	}
	return w.faultAll(FaultInvalidMember, mask, "%s is warp-collective (.sync.aligned): every lane of the warp must execute it together, but lane(s) %s do not (inactive, guard false, exited or absent)", op.Code, warpLaneList(^mask))
}

// tensorOperand returns the slots of vector operand i of op.
func tensorOperand(op *Op, i int) []int32 {
	off := 0
	for j := 0; j < i; j++ {
		off += int(op.Parts[j])
	}
	return op.Regs[off : off+int(op.Parts[i])]
}

// Largest integer operands: A of m16n8k64 (16x64), B (64x8); C/D of the
// wmma shapes (16x16, 32x8, 8x32).
const (
	tensorMaxElems = 1024
	tensorAccElems = 256
)

// mmaScratch is the working storage of the floating-point mma executors:
// the operands as f64 matrices. The machine keeps one (its warps run on one
// goroutine), so it is not cleared for every instruction: each executor
// writes every element it reads (the layouts cover their matrices).
type mmaScratch struct {
	a, b, c [tensorFloatElems]float64
	// raw: an operand's encodings in matrix order, for the vector
	// conversions (16-bit elements: two per word, the lower first).
	raw [tensorFloatElems]uint32
}

// Largest float operands: A of m16n8k32 .e4m3 (16x32); B (32x8) and the
// C/D of the four products of m8n8k4 .f16 (32x8) are smaller.
const tensorFloatElems = 512

func (w *Warp) mmaScratch() *mmaScratch {
	if w.m.mma == nil {
		w.m.mma = new(mmaScratch)
	}
	return w.m.mma
}

// gatherFloat converts operand fm held in slots to f64 matrix elements.
func gatherFloat(w *Warp, fm *fragMap, slots []int32, dst *[tensorFloatElems]float64) {
	slots = slots[:fm.regs] // the first copy
	if mmaFMA && fm.vec != vecNone && gatherFloatVec(w, fm, slots, dst) {
		return
	}
	n := 32 * fm.per
	for r, s := range slots {
		vals := w.r(s)
		pos := fm.pos[r*n : r*n+n]
		switch fm.elem {
		case "f16":
			gatherF16(vals, (*[64]uint16)(pos), dst)
		case "bf16":
			gatherBF16(vals, (*[64]uint16)(pos), dst)
		case "e4m3":
			gatherF8(vals, (*[128]uint16)(pos), &e4m3Values, dst)
		case "e5m2":
			gatherF8(vals, (*[128]uint16)(pos), &e5m2Values, dst)
		case "tf32":
			gatherF32(vals, (*[32]uint16)(pos), 0xffffe000, dst)
		case "f32":
			gatherF32(vals, (*[32]uint16)(pos), 0xffffffff, dst)
		case "f64":
			pos := (*[32]uint16)(pos)
			for l, x := range vals {
				dst[pos[l]%tensorFloatElems] = math.Float64frombits(x)
			}
		}
	}
}

// gatherFloatVec is gatherFloat for .f16, .f32 and .tf32 operands with
// the vector conversions: the encodings are placed in matrix order in the
// scratch's raw words (whole registers where fm.words allows), then
// converted in one pass. It reports false for the other operands.
func gatherFloatVec(w *Warp, fm *fragMap, slots []int32, dst *[tensorFloatElems]float64) bool {
	raw := &w.mmaScratch().raw
	switch fm.vec {
	case vecF16Words:
		for r, s := range slots {
			placeWords(raw, w.r(s), (*[32]uint16)(fm.words[r*32:r*32+32]))
		}
	case vecF16Halves:
		h := (*[2 * tensorFloatElems]uint16)(unsafe.Pointer(raw))
		for r, s := range slots {
			placeHalves(h, w.r(s), (*[64]uint16)(fm.pos[r*64:r*64+64]))
		}
	case vecF32, vecTF32:
		for r, s := range slots {
			placeWords(raw, w.r(s), (*[32]uint16)(fm.pos[r*32:r*32+32]))
		}
		mask := uint32(0xffffffff)
		if fm.vec == vecTF32 {
			mask = 0xffffe000
		}
		cvtS2D(&raw[0], &dst[0], fm.n, mask)
		return true
	default:
		return false
	}
	cvtH2D(unsafe.Pointer(raw), &dst[0], fm.n)
	return true
}

// placeWords stores the low words of a register's lanes at their
// positions in dst; placeHalves the two halfwords (pos: two per lane, the
// lower half first); takeWords sets each lane to the word at its position
// in src. They are only called with mmaFMA (the vector path's placements).
func placeWords(dst *[tensorFloatElems]uint32, vals *[32]uint64, pos *[32]uint16) {
	placeWordsVec(&dst[0], &vals[0], &pos[0])
}

func placeHalves(dst *[2 * tensorFloatElems]uint16, vals *[32]uint64, pos *[64]uint16) {
	placeHalvesVec(&dst[0], &vals[0], &pos[0])
}

func takeWords(out *[32]uint64, src *[tensorFloatElems]uint32, pos *[32]uint16) {
	takeWordsVec(&out[0], &src[0], &pos[0])
}

// The gathers of one register: pos as in fragMap (one register's part).
// Positions are below tensorFloatElems (checked in newTensorForm); the
// index masks only spare the bounds checks.

func gatherF16(vals *[32]uint64, pos *[64]uint16, dst *[tensorFloatElems]float64) {
	tab := f16Values
	for l, x := range vals {
		dst[pos[2*l%64]%tensorFloatElems] = tab[uint16(x)]
		dst[pos[(2*l+1)%64]%tensorFloatElems] = tab[uint16(x>>16)]
	}
}

func gatherBF16(vals *[32]uint64, pos *[64]uint16, dst *[tensorFloatElems]float64) {
	for l, x := range vals {
		dst[pos[2*l%64]%tensorFloatElems] = float64(math.Float32frombits(uint32(x) << 16))
		dst[pos[(2*l+1)%64]%tensorFloatElems] = float64(math.Float32frombits(uint32(x) & 0xffff0000))
	}
}

func gatherF8(vals *[32]uint64, pos *[128]uint16, tab *[256]float64, dst *[tensorFloatElems]float64) {
	for l, x := range vals {
		p := (*[4]uint16)(pos[4*l%128:])
		dst[p[0]%tensorFloatElems] = tab[uint8(x)]
		dst[p[1]%tensorFloatElems] = tab[uint8(x>>8)]
		dst[p[2]%tensorFloatElems] = tab[uint8(x>>16)]
		dst[p[3]%tensorFloatElems] = tab[uint8(x>>24)]
	}
}

// gatherF32 converts f32 (tf32: mask drops the low 13 mantissa bits).
func gatherF32(vals *[32]uint64, pos *[32]uint16, mask uint32, dst *[tensorFloatElems]float64) {
	for l, x := range vals {
		dst[pos[l]%tensorFloatElems] = float64(math.Float32frombits(uint32(x) & mask))
	}
}

// The values of the 8-bit float encodings (exact; NaN encodings are NaN).
var e4m3Values, e5m2Values = func() (e4, e5 [256]float64) {
	for i := range e4 {
		e4[i] = f16ToF64(fpx.E4M3ToF16(uint8(i)))
		e5[i] = f16ToF64(fpx.E5M2ToF16(uint8(i)))
	}
	return
}()

// f16Values holds the value of every f16 encoding (exact; NaN encodings
// are NaN), built with the forms (tensorFormAt).
var f16Values *[1 << 16]float64

// f16ToF64 widens an f16 exactly.
func f16ToF64(h uint16) float64 { return float64(math.Float32frombits(fpx.F16ToF32(h))) }

// scatter writes matrix elements src (raw bits of fm's element type) into
// the registers of operand fm; every register is written whole.
func scatter(w *Warp, fm *fragMap, slots []int32, src []uint64) {
	mask := uint64(1)<<fm.bits - 1
	if fm.bits == 64 {
		mask = ^uint64(0)
	}
	for r, s := range slots {
		out := w.r(s)
		pos := fm.pos[r*32*fm.per : (r+1)*32*fm.per]
		if fm.per == 1 {
			pos = pos[:32]
			for l := range out {
				out[l] = src[pos[l]] & mask
			}
			continue
		}
		for l := range out {
			var v uint64
			for p := 0; p < fm.per; p++ {
				v |= (src[pos[l*fm.per+p]] & mask) << (p * fm.bits)
			}
			out[l] = v
		}
	}
}

// scatterF32 rounds the f64 elements of src to f32 (to nearest even; a
// NaN is the canonical NaN) into the registers of .f32 operand fm.
func scatterF32(w *Warp, fm *fragMap, slots []int32, src *[tensorFloatElems]float64) {
	if mmaFMA && fm.vec == vecF32 {
		// Rounded in one pass, then placed.
		raw := &w.mmaScratch().raw
		cvtD2S(&src[0], &raw[0], fm.n)
		for r, s := range slots {
			takeWords(w.r(s), raw, (*[32]uint16)(fm.pos[r*32:r*32+32]))
		}
		return
	}
	for r, s := range slots {
		out := w.r(s)
		pos := (*[32]uint16)(fm.pos[r*32 : r*32+32])
		for l := range out {
			v := src[pos[l]%tensorFloatElems]
			x := uint64(math.Float32bits(float32(v)))
			if v != v {
				x = uint64(fpx.NaN32)
			}
			out[l] = x
		}
	}
}

func execMmaFloat(w *Warp, op *Op, mask uint32) *Fault {
	if f := tensorConverged(w, op, mask); f != nil {
		return f
	}
	if w.m.obsDetails {
		noteTensorOperands(w, op)
	}
	f := tensorFormAt(op.Aux)
	sc := w.mmaScratch()
	gatherFloat(w, &f.ops[1], tensorOperand(op, 1), &sc.a)
	gatherFloat(w, &f.ops[2], tensorOperand(op, 2), &sc.b)
	gatherFloat(w, &f.ops[3], tensorOperand(op, 3), &sc.c)
	M, N, K := f.m, f.n, f.k
	rows := f.groups * M
	if N == 8 {
		mmaFloatN8(sc, f.groups, M, K)
	} else {
		mmaFloatSum(sc, f.groups, M, N, K)
	}
	if f.ops[0].elem == "f32" {
		scatterF32(w, &f.ops[0], tensorOperand(op, 0), &sc.c)
		return nil
	}
	var d [tensorFloatElems / 2]uint64
	for i, v := range sc.c[:rows*N] {
		d[i] = uint64(fpx.F64ToF16(math.Float64bits(v), fpx.RN, 0))
	}
	scatter(w, &f.ops[0], tensorOperand(op, 0), d[:rows*N])
	return nil
}

// mmaFloatSum replaces C (sc.c, groups*m x n, row-major) by C + A·B: A
// (sc.a) is groups*m x k row-major, sc.b holds each group's B (k x n)
// row-major, one after the other. Each element is its C plus the products
// in ascending k, accumulated in f64 (the products are exact).
func mmaFloatSum(sc *mmaScratch, groups, m, n, k int) {
	if mmaFMA && m%4 == 0 && n%8 == 0 {
		// Eight columns at a time (wmma's n = 16 and 32).
		for g := 0; g < groups; g++ {
			a, b, c := sc.a[g*m*k:(g+1)*m*k], sc.b[g*k*n:(g+1)*k*n], sc.c[g*m*n:(g+1)*m*n]
			for j := 0; j < n; j += 8 {
				mmaRowsFMA(a, b[j:], c[j:], m, k, n, n)
			}
		}
		return
	}
	for g := 0; g < groups; g++ {
		floatSum(sc.a[g*m*k:(g+1)*m*k], sc.b[g*k*n:(g+1)*k*n], sc.c[g*m*n:(g+1)*m*n], m, n, k)
	}
}

// floatSum replaces c (m x n, row-major) by c + a·b, a (m x k) and b (k x
// n) row-major: each element its C plus the products in ascending k,
// accumulated in f64 (the products are exact). mma and wgmma share it.
func floatSum(a, b, c []float64, m, n, k int) {
	for i := 0; i < m; i++ {
		ar := a[i*k : i*k+k]
		cr := c[i*n : i*n+n]
		for j := range cr {
			v := cr[j]
			for kk, x := range ar {
				v += x * b[kk*n+j]
			}
			cr[j] = v
		}
	}
}

// mmaFloatN8 is mmaFloatSum for n = 8 (every float mma form): on amd64
// with AVX and FMA3 the vector loop (fmaRows8), else mmaFloatN8Go.
func mmaFloatN8(sc *mmaScratch, groups, m, k int) {
	if mmaFMA && m%4 == 0 {
		for g := 0; g < groups; g++ {
			mmaRowsFMA(sc.a[g*m*k:(g+1)*m*k], sc.b[g*k*8:(g+1)*k*8], sc.c[g*m*8:(g+1)*m*8], m, k, 8, 8)
		}
		return
	}
	mmaFloatN8Go(sc, groups, m, k)
}

// mmaRowsFMA is fmaRows8 on slices: c (rows of 8 at stride ldc) += a (rows
// x k) · b (k rows of 8 at stride ldb), with the bounds checked.
func mmaRowsFMA(a, b, c []float64, rows, k, ldb, ldc int) {
	if rows <= 0 || rows%4 != 0 || k <= 0 || ldb < 8 || ldc < 8 ||
		len(a) < rows*k || len(b) < (k-1)*ldb+8 || len(c) < (rows-1)*ldc+8 {
		panic("emu: mmaRowsFMA: operands out of range")
	}
	fmaRows8(&a[0], &b[0], &c[0], rows, k, ldb, ldc)
}

// mmaFloatN8Go is the portable mmaFloatN8: the eight sums of a row of D
// are independent and kept in registers, each in ascending k.
func mmaFloatN8Go(sc *mmaScratch, groups, m, k int) {
	for g := 0; g < groups; g++ {
		bg := sc.b[g*k*8 : (g+1)*k*8]
		for i := g * m; i < (g+1)*m; i++ {
			ar := sc.a[i*k : i*k+k]
			cr := (*[8]float64)(sc.c[i*8 : i*8+8])
			s0, s1, s2, s3, s4, s5, s6, s7 := cr[0], cr[1], cr[2], cr[3], cr[4], cr[5], cr[6], cr[7]
			for kk, x := range ar {
				br := (*[8]float64)(bg[kk*8 : kk*8+8])
				s0 += x * br[0]
				s1 += x * br[1]
				s2 += x * br[2]
				s3 += x * br[3]
				s4 += x * br[4]
				s5 += x * br[5]
				s6 += x * br[6]
				s7 += x * br[7]
			}
			cr[0], cr[1], cr[2], cr[3], cr[4], cr[5], cr[6], cr[7] = s0, s1, s2, s3, s4, s5, s6, s7
		}
	}
}

func execMmaF64(w *Warp, op *Op, mask uint32) *Fault {
	if f := tensorConverged(w, op, mask); f != nil {
		return f
	}
	if w.m.obsDetails {
		noteTensorOperands(w, op)
	}
	f := tensorFormAt(op.Aux)
	// Largest: A of m16n8k16 (16x16), B (16x8), C/D (16x8).
	sc := w.mmaScratch()
	a, b, c := &sc.a, &sc.b, &sc.c
	var d [128]uint64
	gatherFloat(w, &f.ops[1], tensorOperand(op, 1), a)
	gatherFloat(w, &f.ops[2], tensorOperand(op, 2), b)
	gatherFloat(w, &f.ops[3], tensorOperand(op, 3), c)
	M, N, K := f.m, f.n, f.k
	directed := op.Rnd == isa.RZ || op.Rnd == isa.RM || op.Rnd == isa.RP // wmma .f64
	for i := 0; i < M; i++ {
		for j := 0; j < N; j++ {
			s := c[i*N+j]
			for k := 0; k < K; k++ {
				if directed {
					s = math.Float64frombits(fpx.FmaF64(math.Float64bits(a[i*K+k]), math.Float64bits(b[j*K+k]), math.Float64bits(s), fxRound(op.Rnd)))
					continue
				}
				s = math.FMA(a[i*K+k], b[j*K+k], s)
			}
			if s != s {
				d[i*N+j] = fpx.NaN64
			} else {
				d[i*N+j] = math.Float64bits(s)
			}
		}
	}
	scatter(w, &f.ops[0], tensorOperand(op, 0), d[:M*N])
	return nil
}

// gatherInt extracts integer elements of operand fm (s4, u4, s8, u8 or s32).
func gatherInt(w *Warp, fm *fragMap, slots []int32, dst []int64) {
	for r, s := range slots[:fm.regs] {
		vals := w.r(s)
		pos := fm.pos[r*32*fm.per : (r+1)*32*fm.per]
		switch fm.elem {
		case "s4":
			for l, x := range vals {
				p := pos[8*l : 8*l+8]
				for i, e := range p {
					dst[e] = int64(int32(x<<(28-4*i)) >> 28)
				}
			}
		case "u4":
			for l, x := range vals {
				p := pos[8*l : 8*l+8]
				for i, e := range p {
					dst[e] = int64(x >> (4 * i) & 15)
				}
			}
		case "s8":
			for l, x := range vals {
				p := pos[4*l : 4*l+4]
				dst[p[0]] = int64(int8(x))
				dst[p[1]] = int64(int8(x >> 8))
				dst[p[2]] = int64(int8(x >> 16))
				dst[p[3]] = int64(int8(x >> 24))
			}
		case "u8":
			for l, x := range vals {
				p := pos[4*l : 4*l+4]
				dst[p[0]] = int64(uint8(x))
				dst[p[1]] = int64(uint8(x >> 8))
				dst[p[2]] = int64(uint8(x >> 16))
				dst[p[3]] = int64(uint8(x >> 24))
			}
		default:
			for l, x := range vals {
				dst[pos[l]] = int64(int32(x))
			}
		}
	}
}

func execMmaInt(w *Warp, op *Op, mask uint32) *Fault {
	if f := tensorConverged(w, op, mask); f != nil {
		return f
	}
	if w.m.obsDetails {
		noteTensorOperands(w, op)
	}
	f := tensorFormAt(op.Aux)
	var a [tensorMaxElems]int64
	var b [tensorMaxElems / 2]int64
	var c [tensorAccElems]int64
	var d [tensorAccElems]uint64
	gatherInt(w, &f.ops[1], tensorOperand(op, 1), a[:])
	gatherInt(w, &f.ops[2], tensorOperand(op, 2), b[:])
	gatherInt(w, &f.ops[3], tensorOperand(op, 3), c[:])
	M, N, K := f.m, f.n, f.k
	sat := op.Flags.Has(isa.FSatfinite)
	for i := 0; i < M; i++ {
		ar := a[i*K : i*K+K]
		for j := 0; j < N; j++ {
			br := b[j*K : j*K+K]
			br = br[:len(ar)]
			s := c[i*N+j]
			for k, x := range ar {
				s += x * br[k]
			}
			if sat {
				s = min(max(s, math.MinInt32), math.MaxInt32)
			}
			d[i*N+j] = uint64(uint32(s))
		}
	}
	scatter(w, &f.ops[0], tensorOperand(op, 0), d[:M*N])
	return nil
}

// gatherBits places the registers of a .b1 operand as words of its rows
// (columns of B): each register holds 32 consecutive elements, element i at
// bit i, the first at element pos (a multiple of 32; see newTensorForm).
func gatherBits(w *Warp, fm *fragMap, slots []int32, dst []uint32) {
	for r, s := range slots[:fm.regs] {
		pos := fm.pos[r*32*32:]
		for l, x := range w.r(s) {
			dst[pos[32*l]/32] = uint32(x)
		}
	}
}

// execMmaBit executes the .b1 forms: D = C + popc(A row AND/XOR B column).
func execMmaBit(w *Warp, op *Op, mask uint32) *Fault {
	if f := tensorConverged(w, op, mask); f != nil {
		return f
	}
	if w.m.obsDetails {
		noteTensorOperands(w, op)
	}
	f := tensorFormAt(op.Aux)
	// Rows of A and columns of B as 32-bit words: A of m16n8k256 (16x256),
	// B (256x8).
	var a [128]uint32
	var b [64]uint32
	gatherBits(w, &f.ops[1], tensorOperand(op, 1), a[:])
	gatherBits(w, &f.ops[2], tensorOperand(op, 2), b[:])
	var c [128]int64
	var d [128]uint64
	gatherInt(w, &f.ops[3], tensorOperand(op, 3), c[:])
	M, N, W := f.m, f.n, f.k/32
	xor := op.Sub == isa.SubXor
	for i := 0; i < M; i++ {
		ar := a[i*W : i*W+W]
		for j := 0; j < N; j++ {
			br := b[j*W : j*W+W]
			s := uint32(c[i*N+j])
			for k, x := range ar {
				if xor {
					s += uint32(bits.OnesCount32(x ^ br[k]))
				} else {
					s += uint32(bits.OnesCount32(x & br[k]))
				}
			}
			d[i*N+j] = uint64(s)
		}
	}
	scatter(w, &f.ops[0], tensorOperand(op, 0), d[:M*N])
	return nil
}

// noteTensorOperands reports the register operands of an mma or
// movmatrix to the observer: D written, the others read.
func noteTensorOperands(w *Warp, op *Op) {
	f := tensorFormAt(op.Aux)
	t := w.m.tensorStep(f.fi.Key)
	for i := range f.fi.Operands {
		var regs []int32
		if op.Code == isa.OpMovmatrix {
			// One register each: d (operand 0) and a.
			w.m.tensorSlots = [2]int32{op.D, op.A}
			regs = w.m.tensorSlots[i : i+1]
		} else {
			regs = tensorOperand(op, i)
		}
		t.Operands = append(t.Operands, TensorOperand{Name: f.fi.Operands[i].Name, Write: i == 0, Regs: regs})
	}
}

// noteMatrixRows reports the matrices of an ldmatrix/stmatrix to the
// observer: row r of matrix j at the address of lane 8j+r.
func noteMatrixRows(w *Warp, op *Op, store bool) {
	m := w.m
	t := m.tensorStep(tensorFormAt(op.Aux).fi.Key)
	base := memBase(w, op)
	f := tensorFormAt(op.Aux)
	for l := 0; l < matrixAddrRows(f); l++ {
		addr := memAt(base, op, l)
		sp, off := op.Space, addr
		if sp == isa.SpaceNone {
			sp, off = m.genericToSpace(addr)
		}
		m.tensorRows = append(m.tensorRows, MatrixRow{Lane: l, Addr: addr, Space: sp, Offset: off})
	}
	for j, fm := range f.ops {
		o := &f.fi.Operands[j]
		first := int(o.AddrLanes[0])
		t.Matrices = append(t.Matrices, TensorMatrix{Index: j, Reg: op.Regs[j*fm.regs], Write: !store, RowBytes: 16, Rows: m.tensorRows[first : first+len(o.AddrLanes)]})
	}
}

// matrixRows resolves the row addresses of ldmatrix/stmatrix: row r of
// matrix j is 16 bytes at the address of lane 8j+r, in shared memory
// (directly or through a generic address). It checks every row before
// anything is accessed, so a fault leaves registers and memory unchanged;
// the fault names the lowest faulting lane and carries all of them.
func matrixRows(w *Warp, op *Op, store bool, rows *[32][]byte) *Fault {
	n := matrixAddrRows(tensorFormAt(op.Aux))
	if w.m.obsDetails {
		noteMatrixRows(w, op, store)
	}
	var first *Fault
	var bad uint32
	for l := 0; l < n; l++ {
		addr := memAddr(w, op, l)
		space := op.Space
		if space == isa.SpaceNone {
			if sp, _ := w.m.genericToSpace(addr); sp != isa.Shared {
				f := w.faultAddr(FaultOutOfBounds, l, addr, "%s: generic address 0x%x of lane %d is not in shared memory", op.Code, addr, l)
				if first == nil {
					first = f
				}
				bad |= 1 << l
				continue
			}
		}
		if _, _, f := w.spaceBytes(space, l, addr, 16, 16); f != nil {
			if first == nil {
				first = f
			}
			bad |= 1 << l
		}
	}
	if first != nil {
		first.Lanes = bad
		return first
	}
	kind := AccessLoad
	if store {
		kind = AccessStore
	}
	for l := 0; l < n; l++ {
		buf, f := w.access(kind, op.Space, l, memAddr(w, op, l), 16, 16)
		if f != nil {
			return f
		}
		rows[l] = buf
	}
	return nil
}

// matrixAddrRows is the number of row addresses of an ldmatrix/stmatrix
// form: lanes 0 to n-1 supply them.
func matrixAddrRows(f *tensorForm) int {
	n := 0
	for i := range f.fi.Operands {
		n += len(f.fi.Operands[i].AddrLanes)
	}
	return n
}

// unpackRow unpacks a 16-byte row of a packed ldmatrix source into 16
// bytes, each element in the low bits of its own byte: .b6x16_p32, 16
// 6-bit elements in the first 12 bytes (element k at bits 6k..6k+5,
// little-endian); .b4x16_p64, 16 4-bit elements in the first 8 (element k
// at bits 4k..4k+3). The padding is not read.
func unpackRow(row []byte, bits int, out *[16]byte) {
	var lo, hi uint64
	for i := 0; i < 8; i++ {
		lo |= uint64(row[i]) << (8 * i)
		hi |= uint64(row[8+i]) << (8 * i)
	}
	mask := uint64(1)<<bits - 1
	for k := range out {
		p := k * bits
		var v uint64
		if p < 64 {
			v = lo >> p
			if p+bits > 64 {
				v |= hi << (64 - p)
			}
		} else {
			v = hi >> (p - 64)
		}
		out[k] = byte(v & mask)
	}
}

// execLdmatrix8 executes the 8-bit loads (.m16n16 .b8, .m8n16 and .m16n16
// with the packed sources) from the form's layout: register slot r of
// matrix j, lane l, byte i receives the element at (row, col) of that
// matrix's rows.
func execLdmatrix8(w *Warp, op *Op, mask uint32) *Fault {
	if f := tensorConverged(w, op, mask); f != nil {
		return f
	}
	var rows [32][]byte
	if f := matrixRows(w, op, false, &rows); f != nil {
		return f
	}
	f := tensorFormAt(op.Aux)
	bits := 8
	switch {
	case strings.HasSuffix(f.fi.Key, ".b6x16_p32"):
		bits = 6
	case strings.HasSuffix(f.fi.Key, ".b4x16_p64"):
		bits = 4
	}
	var unpacked [32][16]byte
	n := matrixAddrRows(f)
	for l := 0; l < n; l++ {
		if bits == 8 {
			copy(unpacked[l][:], rows[l])
		} else {
			unpackRow(rows[l], bits, &unpacked[l])
		}
	}
	slot := 0
	for j := range f.ops {
		fm := &f.ops[j]
		first := int(f.fi.Operands[j].AddrLanes[0])
		for r := 0; r < fm.regs; r++ {
			out := w.r(op.Regs[slot])
			slot++
			pos := fm.pos[r*128 : r*128+128]
			for l := range out {
				var v uint64
				for i := 0; i < 4; i++ {
					e := int(pos[4*l+i])
					v |= uint64(unpacked[first+e/16][e%16]) << (8 * i)
				}
				out[l] = v
			}
		}
	}
	return nil
}

// execStmatrix8 executes stmatrix .m16n8 .trans .b8 from the form's
// layout: byte i of lane l's register j goes to (row, col) of matrix j's
// rows.
func execStmatrix8(w *Warp, op *Op, mask uint32) *Fault {
	if f := tensorConverged(w, op, mask); f != nil {
		return f
	}
	f := tensorFormAt(op.Aux)
	// Gather the rows first: the row accesses report the old bytes.
	var data [32][16]byte
	slot := 0
	for j := range f.ops {
		fm := &f.ops[j]
		first := int(f.fi.Operands[j].AddrLanes[0])
		for r := 0; r < fm.regs; r++ {
			pos := fm.pos[r*128 : r*128+128]
			for l, x := range w.r(op.Regs[slot]) {
				for i := 0; i < 4; i++ {
					e := int(pos[4*l+i])
					data[first+e/16][e%16] = byte(x >> (8 * i))
				}
			}
			slot++
		}
	}
	var rows [32][]byte
	if fl := matrixRows(w, op, true, &rows); fl != nil {
		return fl
	}
	for l := 0; l < matrixAddrRows(f); l++ {
		copy(rows[l], data[l][:])
	}
	return nil
}

func execLdmatrix(w *Warp, op *Op, mask uint32) *Fault {
	if f := tensorConverged(w, op, mask); f != nil {
		return f
	}
	var rows [32][]byte
	if f := matrixRows(w, op, false, &rows); f != nil {
		return f
	}
	f := tensorFormAt(op.Aux)
	for j, s := range op.Regs {
		pos := f.ops[j].pos
		out := w.r(s)
		for l := range out {
			var v uint64
			for p := 0; p < 2; p++ {
				e := pos[2*l+p]
				row := rows[8*j+int(e>>3)]
				c := 2 * int(e&7)
				v |= uint64(row[c])<<(16*p) | uint64(row[c+1])<<(16*p+8)
			}
			out[l] = v
		}
	}
	return nil
}

func execStmatrix(w *Warp, op *Op, mask uint32) *Fault {
	if f := tensorConverged(w, op, mask); f != nil {
		return f
	}
	f := tensorFormAt(op.Aux)
	// Gather the matrices first: the row accesses report the old bytes.
	var data [4][128]byte
	for j, s := range op.Regs {
		pos := f.ops[j].pos
		for l, x := range w.r(s) {
			for p := 0; p < 2; p++ {
				e := int(pos[2*l+p])
				h := uint16(x >> (16 * p))
				data[j][2*e], data[j][2*e+1] = byte(h), byte(h>>8)
			}
		}
	}
	var rows [32][]byte
	if fl := matrixRows(w, op, true, &rows); fl != nil {
		return fl
	}
	for l := 0; l < 8*int(op.Vec); l++ {
		copy(rows[l], data[l/8][16*(l%8):16*(l%8)+16])
	}
	return nil
}

func execMovmatrix(w *Warp, op *Op, mask uint32) *Fault {
	if f := tensorConverged(w, op, mask); f != nil {
		return f
	}
	if w.m.obsDetails {
		noteTensorOperands(w, op)
	}
	f := tensorFormAt(op.Aux)
	// Operand 1 (a) places the source matrix; operand 0 (d) says which
	// source element each destination half receives.
	var m [64]uint16
	src := w.r(op.A)
	apos := f.ops[1].pos
	for l, x := range src {
		m[apos[2*l]], m[apos[2*l+1]] = uint16(x), uint16(x>>16)
	}
	dpos := f.ops[0].pos
	dst := w.r(op.D)
	for l := range dst {
		dst[l] = uint64(m[dpos[2*l]]) | uint64(m[dpos[2*l+1]])<<16
	}
	return nil
}

// TensorSlots returns, for a tensor-core instruction the emulator executes
// (its form is TensorForm), the register slots of each operand of its
// layout, by operand name: the slots that the layout's element Reg
// indices select. nil for other instructions.
func (op *Op) TensorSlots() map[string][]int32 {
	fi := op.TensorForm()
	if fi == nil {
		return nil
	}
	out := map[string][]int32{}
	if wg, ok := op.Wgmma(); ok {
		out["d"] = wg.D
		if wg.A != nil {
			out["a"] = wg.A
		}
		if wg.E >= 0 {
			out["e"] = []int32{wg.E}
		}
		return out
	}
	switch fi.Op {
	case "mma", "wmma.mma":
		off := 0
		for i, o := range fi.Operands {
			if o.Name == "e" { // mma.sp metadata: one register
				out["e"] = []int32{op.E}
				continue
			}
			if i >= len(op.Parts) {
				break
			}
			n := int(op.Parts[i])
			if off+n > len(op.Regs) {
				break
			}
			out[o.Name] = op.Regs[off : off+n : off+n]
			off += n
		}
	case "movmatrix":
		out["a"], out["d"] = []int32{op.A}, []int32{op.D}
	default: // ldmatrix, stmatrix: matrix j is register j of the vector; wmma.load, wmma.store: the fragment
		for _, o := range fi.Operands {
			out[o.Name] = op.Regs[:len(op.Regs):len(op.Regs)]
		}
	}
	return out
}
