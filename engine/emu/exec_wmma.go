package emu

import (
	"strings"

	"github.com/ptxplayground/ptxplay/engine/isa"
)

// wmma: wmma.load, wmma.store and wmma.mma (PTX ISA 9.7.14.4).
//
// The fragments are entries of isa.FragmentTable() (keys "wmma.load.a.…",
// "wmma.store.d.…", "wmma.<shape>.<d>.<a>.<b>.<c>"), laid out as on sm_80;
// wmma.mma runs on the mma executors (exec_tensor.go), which compute the
// whole shape: every element of D is one mma product's, over the full K.
//
// wmma.load and wmma.store: each lane reads or writes its own elements, at
// its own address p (and stride) — the ISA requires the same values in
// every lane. Element (row, col) is at p + (row*stride + col) elements with
// .row, p + (col*stride + row) with .col; stride defaults to the leading
// dimension. p must be aligned to the fragment's size in bytes (the lane's
// registers), and each row (column) start to the same or 16 bytes,
// whichever is smaller: a stride of a multiple of 16 bytes is always valid
// (CUDA's rule for load_matrix_sync), a larger fragment alignment as the
// ISA words it is not required of the stride. Every access is checked
// before any is made: a faulting wmma.load or wmma.store changes nothing
// and names the lowest faulting lane (Fault.Lanes: all of them).

func init() {
	binders[isa.OpWmmaLoad] = bindWmmaMem
	binders[isa.OpWmmaStore] = bindWmmaMem
	binders[isa.OpWmmaMma] = bindWmmaMma
}

// wmmaUnit is one memory access of a lane: one element, or for the
// sub-byte types one whole register (its elements are consecutive in the
// leading dimension). row, col: its first element; reg, part: where it goes.
type wmmaUnit struct{ row, col, reg, part uint8 }

// wmmaMem is the memory side of a wmma.load / wmma.store form.
type wmmaMem struct {
	rows, cols int
	bits       int // element bits
	unitBytes  int
	fragBytes  int // the lane's registers, in bytes (the alignment of p)
	regs       int // registers of the operand (copies included)
	primary    int // registers of the first copy
	wide       bool
	units      [32][]wmmaUnit
}

func newWmmaMem(fi *isa.FragInstr) *wmmaMem {
	o := &fi.Operands[0]
	wm := &wmmaMem{rows: o.Rows, cols: o.Cols, bits: isa.FragTypeBits(o.Type), regs: o.Regs, primary: o.Primary()}
	wm.wide = wm.bits == 64
	wm.fragBytes = 4 * o.Regs
	if wm.wide {
		wm.fragBytes = 8 * o.Regs
	}
	wm.unitBytes = max(wm.bits/8, 1)
	if wm.bits < 8 {
		wm.unitBytes = 4
	}
	for _, e := range o.Elems {
		if wm.bits < 8 && e.Part != 0 {
			continue // the register's unit starts at part 0
		}
		wm.units[e.Lane] = append(wm.units[e.Lane], wmmaUnit{e.Row, e.Col, e.Reg, e.Part})
	}
	return wm
}

// bindWmmaMem binds wmma.load.{a,b,c} and wmma.store.d.
func bindWmmaMem(b *binder) {
	if !tensorSyncAligned(b) {
		return
	}
	store := b.op.Code == isa.OpWmmaStore
	space := b.Space()
	types := b.AllTypes()
	var frag string
	var shape isa.Shape
	var lays []isa.Layout
	var tnames []string
	for _, t := range types {
		tnames = append(tnames, t.String())
	}
	for i, m := range b.Tensor() {
		switch {
		case m.Kind == isa.ModShape && shape == isa.ShapeNone:
			shape = isa.Shape(m.Value)
		case m.Kind == isa.ModLayout:
			lays = append(lays, isa.Layout(m.Value))
		case m.Kind == isa.ModElem:
			tnames = append(tnames, isa.Elem(m.Value).String())
		case m.Kind == isa.ModTensor && isa.TensorWord(m.Value) >= isa.TensorFragA && isa.TensorWord(m.Value) <= isa.TensorFragD && frag == "":
			frag = isa.TensorWord(m.Value).String()
		default:
			b.errorf("modifier .%s is not valid for %s", b.m.TensorNames[i], b.op.Code)
			return
		}
	}
	name := b.op.Code.String()
	switch {
	case store && frag != "d", !store && (frag == "" || frag == "d"):
		if store {
			b.errorf("needs the fragment .d (wmma.store.d.sync.aligned.layout.shape.type)")
		} else {
			b.errorf("needs the fragment .a, .b or .c (wmma.load.a.sync.aligned.layout.shape.type)")
		}
		return
	case len(lays) != 1:
		b.errorf("needs one layout, .row or .col")
		return
	case shape == isa.ShapeNone:
		b.errorf("needs a shape (.m16n16k16, .m32n8k16, .m8n32k16, .m16n16k8, .m8n8k4, .m8n8k32 or .m8n8k128)")
		return
	case len(tnames) != 1:
		b.errorf("needs one element type")
		return
	}
	if _, _, _, ok := isa.WmmaShapeDims(shape.String()); !ok {
		b.errorf("not a wmma shape: .%s", shape)
		return
	}
	key := name + "." + frag + "." + shape.String() + "." + tnames[0]
	fi := isa.FragmentIndex(key)
	if fi < 0 {
		b.errorf("no %s.%s form for .%s with type .%s", name, frag, shape, tnames[0])
		return
	}
	switch t := tnames[0]; {
	case (t == "s4" || t == "u4" || t == "b1") && frag == "a" && lays[0] != isa.Row:
		b.errorf("the .%s A fragment must be loaded .row", t)
		return
	case (t == "s4" || t == "u4" || t == "b1") && frag == "b" && lays[0] != isa.Col:
		b.errorf("the .%s B fragment must be loaded .col", t)
		return
	}
	switch space {
	case isa.SpaceNone, isa.Global, isa.Shared, isa.SharedCluster:
	default:
		b.errorf("accesses .global or .shared memory (or a generic address)")
		return
	}
	if !b.Want(2, 3) {
		return
	}
	vi, ai := 0, 1
	if store {
		vi, ai = 1, 0
	}
	ref, ok := bindMemRef(b, ai, space)
	if !ok {
		return
	}
	if space == isa.SharedCluster {
		ref.space = isa.Shared
	}
	if ref.space != isa.SpaceNone && ref.space != isa.Global && ref.space != isa.Shared {
		b.operr(ai, "%s accesses .global or .shared memory, not .%s", name, ref.space)
		return
	}
	f := tensorFormAt(int32(fi))
	rt := isa.B32
	if f.wmem.wide {
		rt = isa.B64
	}
	regs := b.VecRegs(vi, f.wmem.regs, rt, !store)
	if b.failed {
		return
	}
	op := b.op
	op.B = -1
	stride := int64(f.wmem.cols) // the default: the leading dimension
	if lays[0] == isa.Col {
		stride = int64(f.wmem.rows)
	}
	if b.N() == 3 {
		stride = -1 // a register: not known here
		if b.IsImm(2) {
			if v, ok := b.Imm(2); ok {
				stride = int64(v.Int)
			}
		}
		op.B = b.Src(2, isa.U32)
		if b.failed {
			return
		}
	}
	if lines, width := int64(f.wmem.rows), int64(f.wmem.cols); stride > 0 && stride <= 1<<20 {
		if lays[0] == isa.Col {
			lines, width = width, lines
		}
		b.memSpan(((lines-1)*stride + width) * int64(f.wmem.bits) / 8)
	}
	ref.set(op)
	op.Aux = int32(fi)
	op.Regs = regs
	op.Shape = shape
	if len(types) == 1 {
		op.Type = types[0]
	}
	op.Vec = 0
	if lays[0] == isa.Col {
		op.Vec = 1
	}
	op.Flags = op.Flags.With(isa.FSync).With(isa.FAligned)
	if store {
		op.Exec = execWmmaStore
	} else {
		op.Exec = execWmmaLoad
	}
}

// wmmaAccess resolves every access of a wmma.load / wmma.store: bufs[u*32+l]
// is unit u of lane l. It checks everything before accessing anything.
func wmmaAccess(w *Warp, op *Op, wm *wmmaMem, store bool, bufs *[32 * 16][]byte) *Fault {
	col := op.Vec == 1
	var strideRow *[32]uint64
	if op.B >= 0 {
		strideRow = w.r(op.B)
	}
	lead := wm.cols // default stride: the leading dimension
	if col {
		lead = wm.rows
	}
	rowAlign := min(wm.fragBytes, 16)
	base := memBase(w, op)
	var addrs [32][16]uint64
	var first *Fault
	var bad uint32
	fail := func(l int, f *Fault) {
		if first == nil {
			first = f
		}
		bad |= 1 << l
	}
	for l := 0; l < 32; l++ {
		p := memAt(base, op, l)
		stride := uint64(lead)
		if strideRow != nil {
			stride = uint64(uint32(strideRow[l]))
		}
		if p%uint64(wm.fragBytes) != 0 {
			fail(l, w.faultAddr(FaultMisaligned, l, p, "%s: misaligned matrix address 0x%x in lane %d (needs %d-byte alignment, the fragment's size)", op.Code, p, l, wm.fragBytes))
			continue
		}
		if sb := stride * uint64(wm.bits); sb%uint64(8*rowAlign) != 0 {
			fail(l, w.faultAddr(FaultMisaligned, l, p, "%s: stride %d in lane %d is %d bits, not a multiple of %d bytes: rows (columns) would be misaligned", op.Code, stride, l, sb, rowAlign))
			continue
		}
		for u, un := range wm.units[l] {
			r, c := uint64(un.row), uint64(un.col)
			if col {
				r, c = c, r
			}
			addrs[l][u] = p + (r*stride+c)*uint64(wm.bits)/8
			if _, _, f := w.spaceBytes(op.Space, l, addrs[l][u], wm.unitBytes, wm.unitBytes); f != nil {
				fail(l, f)
				break
			}
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
	for u := range wm.units[0] {
		for l := 0; l < 32; l++ {
			buf, f := w.access(kind, op.Space, l, addrs[l][u], wm.unitBytes, wm.unitBytes)
			if f != nil {
				return f
			}
			bufs[u*32+l] = buf
		}
	}
	return nil
}

func leUint(b []byte) uint64 {
	var v uint64
	for i := len(b) - 1; i >= 0; i-- {
		v = v<<8 | uint64(b[i])
	}
	return v
}

func execWmmaLoad(w *Warp, op *Op, mask uint32) *Fault {
	if f := tensorConverged(w, op, mask); f != nil {
		return f
	}
	wm := tensorFormAt(op.Aux).wmem
	var bufs [32 * 16][]byte
	if f := wmmaAccess(w, op, wm, false, &bufs); f != nil {
		return f
	}
	var vals [8][32]uint64
	for l := 0; l < 32; l++ {
		for u, un := range wm.units[l] {
			x := leUint(bufs[u*32+l])
			vals[un.reg][l] |= x << (uint(un.part) * uint(wm.bits))
		}
	}
	for r, s := range op.Regs {
		*w.r(s) = vals[r%wm.primary] // copies repeat the first
	}
	return nil
}

func execWmmaStore(w *Warp, op *Op, mask uint32) *Fault {
	if f := tensorConverged(w, op, mask); f != nil {
		return f
	}
	wm := tensorFormAt(op.Aux).wmem
	// Read the registers first: the accesses report the old bytes.
	var vals [8][32]uint64
	for r, s := range op.Regs[:wm.primary] {
		vals[r] = *w.r(s)
	}
	var bufs [32 * 16][]byte
	if f := wmmaAccess(w, op, wm, true, &bufs); f != nil {
		return f
	}
	for l := 0; l < 32; l++ {
		for u, un := range wm.units[l] {
			x := vals[un.reg][l] >> (uint(un.part) * uint(wm.bits))
			buf := bufs[u*32+l]
			for i := range buf {
				buf[i] = byte(x >> (8 * i))
			}
		}
	}
	return nil
}

// bindWmmaMma binds wmma.mma.
func bindWmmaMma(b *binder) {
	if !tensorSyncAligned(b) {
		return
	}
	sat := b.Flag(isa.FSatfinite)
	rnd := b.Rnd()
	types := b.AllTypes()
	var subs []isa.SubOp
	for s := b.Sub(); s != isa.SubNone; s = b.Sub() {
		subs = append(subs, s)
	}
	shape, lays, num, elems, other := tensorMods(b)
	if b.failed {
		return
	}
	if shape == isa.ShapeNone || num != 0 || other {
		b.errorf("needs one shape (.m16n16k16, .m32n8k16, .m8n32k16, .m16n16k8, .m8n8k4, .m8n8k32, .m8n8k128) and no other tensor modifier")
		return
	}
	if len(lays) != 2 {
		b.errorf("needs the layouts of A and B (.row/.col each): wmma.mma.sync.aligned.alayout.blayout.shape...")
		return
	}
	var tn []string
	for _, t := range types {
		tn = append(tn, t.String())
	}
	switch {
	case len(elems) == 2 && len(tn) == 2:
		tn = []string{tn[0], elems[0].String(), elems[1].String(), tn[1]}
	case len(elems) > 0:
		tn = nil
	case len(tn) == 2 && shape != isa.M8N8K4 && shape != isa.M16N16K8:
		// .f16 multiplicands: only .dtype.ctype are written.
		tn = []string{tn[0], "f16", "f16", tn[1]}
		if tn[0] != "f16" && tn[0] != "f32" || tn[3] != "f16" && tn[3] != "f32" {
			b.errorf("the .f16 form takes .dtype.ctype, each .f16 or .f32 (got .%s.%s)", tn[0], tn[3])
			return
		}
	case len(tn) == 4 && tn[1] == "f16":
		b.errorf("the .f16 form names only .dtype.ctype (wmma.mma.sync.aligned.alayout.blayout.shape.dtype.ctype)")
		return
	}
	if len(tn) != 4 {
		b.errorf("not a form of wmma.mma: it needs .dtype.ctype (.f16 inputs) or .dtype.atype.btype.ctype")
		return
	}
	key := "wmma." + shape.String() + "." + strings.Join(tn, ".")
	fi := isa.FragmentIndex(key)
	if fi < 0 {
		if _, _, _, ok := isa.WmmaShapeDims(shape.String()); !ok {
			b.errorf("not a wmma shape: .%s", shape)
		} else {
			b.errorf("not a form of wmma.mma: no .%s form with types .%s (d.a.b.c)", shape, strings.Join(tn, "."))
		}
		return
	}
	f := tensorFormAt(int32(fi))
	sub := tn[1] == "s4" || tn[1] == "u4" || tn[1] == "b1"
	if sub && (lays[0] != isa.Row || lays[1] != isa.Col) {
		b.errorf("the .%s form takes .row.col layouts only", tn[1])
		return
	}
	if f.kind == tkBit {
		if len(subs) != 2 || (subs[0] != isa.SubAnd && subs[0] != isa.SubXor) || subs[1] != isa.SubPopc {
			b.errorf(".b1 forms need .and.popc or .xor.popc")
			return
		}
	} else if len(subs) > 0 {
		b.errorf(".and.popc / .xor.popc apply to .b1 forms only")
		return
	}
	if sat && f.kind != tkInt {
		b.errorf(".satfinite applies to the integer forms only (.s8, .u8, .s4, .u4)")
		return
	}
	if rnd != isa.RndNone && f.kind != tkF64 {
		b.errorf("rounding modifier .%s is valid for the .f64 form only", rnd)
		return
	}
	if !b.Want(4, 4) {
		return
	}
	op := b.op
	op.Aux = int32(fi)
	op.Flags = op.Flags.With(isa.FSync).With(isa.FAligned)
	if sat {
		op.Flags = op.Flags.With(isa.FSatfinite)
	}
	op.Rnd = rnd
	op.Type = types[0]
	op.Shape = shape
	var regs []int32
	for i := range f.ops {
		o := &f.fi.Operands[i]
		t := isa.B32
		if f.ops[i].bits == 64 {
			t = isa.B64
		}
		rs := b.VecRegs(i, o.Regs, t, i == 0)
		if b.failed {
			return
		}
		op.Parts[i] = uint8(len(rs))
		regs = append(regs, rs...)
	}
	op.Regs = regs
	switch f.kind {
	case tkInt:
		op.Exec = execMmaInt
	case tkBit:
		op.Sub = subs[0]
		op.Exec = execMmaBit
	case tkF64:
		op.Exec = execMmaF64
	default:
		op.Exec = execMmaFloat
	}
}
