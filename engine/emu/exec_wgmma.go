package emu

import (
	"encoding/binary"
	"fmt"
	"math"
	"sync"

	"github.com/ptxplayground/ptxplay/engine/fpx"
	"github.com/ptxplayground/ptxplay/engine/isa"
	"github.com/ptxplayground/ptxplay/engine/ptx"
)

// Warpgroup matrix multiply-accumulate: wgmma.fence, wgmma.mma_async,
// wgmma.commit_group and wgmma.wait_group (PTX ISA §9.7.15).
//
// All four are warpgroup-collective (.sync.aligned): every thread of the
// 4 warps of a warpgroup executes the same sequence of them. The warps of
// a warpgroup do not wait for each other (.sync synchronises the threads
// of a warp); the emulator checks the rule as they go:
//   - the whole warp executes each one (a missing lane faults, as for the
//     warp-collective tensor instructions);
//   - the warpgroup is complete: 4 warps of 32 threads;
//   - the k-th wgmma instruction of every warp of the warpgroup is the
//     same instruction (asyncUnit.wgSeq logs the pcs the leading warp
//     executed until every warp has), and no warp exits before executing
//     an instruction another warp of its warpgroup executed.
//
// The product. Warp w of the warpgroup owns rows 16w..16w+15 of D (and of
// a register A: isa.WgmmaFragments), so its part of the product depends
// only on its own registers, its part of A and the whole of B. An
// mma_async computes the warp's part when the warp issues it: it reads
// its registers (A, and the accumulator when scale-d is true: the result
// of the warp's latest mma_async in flight on the same register, if any,
// so that a chain of mma_async on one accumulator accumulates in issue
// order, as the ISA allows without a wait between them) and shared
// memory through the descriptors then, and queues the result in the
// CTA's asynchronous work (asyncUnit.wgmma, target targetWarpgroupGroup)
// in the warp's open wgmma-group. commit_group closes the open group;
// wait_group N writes the results of every committed group but the
// newest N into the accumulator registers, in issue order, and is a wait
// of kind WaitWgmmaGroup that is over at once (the results it waits for
// have landed). A thread that exits lands what its warp has in flight. So
// the accumulator keeps its old value until the covering wait_group,
// deterministically and the same in both scheduling models.
//
// Numerics: as mma (docs/emulator.md): the products are exact (imm-scale
// ±1 negates an operand exactly), D = C + the K products accumulated in
// f64 from C (0 when scale-d is false) in ascending k, rounded once to
// nearest even to the accumulator type; a NaN result is the canonical NaN.

func init() {
	binders[isa.OpWgmmaFence] = bindWgmmaSync
	binders[isa.OpWgmmaCommitGroup] = bindWgmmaSync
	binders[isa.OpWgmmaWaitGroup] = bindWgmmaSync
	binders[isa.OpWgmmaMmaAsync] = bindWgmmaMma
}

// WgmmaSeqLimit bounds how many wgmma instructions the leading warp of a
// warpgroup may execute ahead of the last one (the log the .aligned check
// keeps).
const WgmmaSeqLimit = 4096

// MaxWgmmaWaitGroup bounds wait_group's N.
const MaxWgmmaWaitGroup = 1 << 20

func bindWgmmaSync(b *binder) {
	if !tensorSyncAligned(b) {
		return
	}
	op := b.op
	op.Flags = op.Flags.With(isa.FSync).With(isa.FAligned)
	switch op.Code {
	case isa.OpWgmmaWaitGroup:
		if !b.Want(1, 1) {
			return
		}
		if !b.IsImm(0) {
			b.operr(0, "the group count N must be a constant")
			return
		}
		v, ok := b.Imm(0)
		if !ok {
			return
		}
		if v.Int > MaxWgmmaWaitGroup {
			b.operr(0, "group count %d: N is from 0 to %d", int64(v.Int), MaxWgmmaWaitGroup)
			return
		}
		op.Imm = v.Int
		op.Exec = execWgmmaWait
	case isa.OpWgmmaCommitGroup:
		if b.Want(0, 0) {
			op.Exec = execWgmmaCommit
		}
	default:
		if b.Want(0, 0) {
			op.Exec = execWgmmaFence
		}
	}
}

// wgmmaImm bits of an mma_async's Op.Imm.
const (
	wgNegA   = 1 << iota // imm-scale-a is -1
	wgNegB               // imm-scale-b is -1
	wgTransA             // imm-trans-a is 1: A is M-major
	wgTransB             // imm-trans-b is 1: B is N-major
	wgRegA               // A is in registers (Regs after D)
	// wgSelShift: the sparsity selector of wgmma.mma_async.sp is
	// Op.Imm>>wgSelShift&3 (its metadata register is Op.E).
	wgSelShift = 8
)

// wgmmaExecKey names an executor: the form (its fragments) and B's type
// (A's, or the other 8-bit type of the same kind).
type wgmmaExecKey struct {
	form  isa.WgmmaForm
	bType string
}

// wgmmaExec is what the executor keeps of a form: its fragments, flattened
// for warp 0 (every warp's are the same, rows offset by 16w).
type wgmmaExec struct {
	form  isa.WgmmaForm
	bType string
	fi    *isa.FragInstr
	// dPos[(r*32+lane)*per+part] and aPos likewise: the element's index in
	// the warp's 16 x N (D) or 16 x K (A) tile, row-major.
	dPos, aPos     []uint16
	dRegs, aRegs   int
	dPer, aPer     int
	elemBits, dBit int
	// aVal and bVal give the value of an element's bits (aBits, bBits
	// wide) of A's and B's types: every element type of wgmma is exact in
	// f64, the integers and b1 (0 or 1) included.
	aVal, bVal func(uint32) float64
	// aF16, bF16: the type is .f16 (read through f16Values).
	aF16, bF16 bool
	// sp: a sparse form's metadata layout for one warp (rows 0-15; warp
	// w's describes rows 16w..16w+15 the same way), shared with mma.sp.
	sp *sparseMeta
}

var wgmmaExecs struct {
	sync.Mutex
	list  []*wgmmaExec
	index map[wgmmaExecKey]int32
}

// wgmmaElemFunc returns the value of the bits of an element of type t.
func wgmmaElemFunc(t string) func(uint32) float64 {
	switch t {
	case "e4m3":
		return func(x uint32) float64 { return e4m3Values[uint8(x)] }
	case "e5m2":
		return func(x uint32) float64 { return e5m2Values[uint8(x)] }
	case "s8":
		return func(x uint32) float64 { return float64(int8(x)) }
	case "u8":
		return func(x uint32) float64 { return float64(uint8(x)) }
	case "b1":
		return func(x uint32) float64 { return float64(x & 1) }
	}
	return func(x uint32) float64 { return wgmmaElem(t, x) }
}

// wgmmaExecIndex returns the index of the executor of form f with B of
// type bt (built once).
func wgmmaExecIndex(f isa.WgmmaForm, bt string) int32 {
	wgmmaExecs.Lock()
	defer wgmmaExecs.Unlock()
	key := wgmmaExecKey{f, bt}
	if i, ok := wgmmaExecs.index[key]; ok {
		return i
	}
	tensorFormAt(0) // builds f16Values
	fi := isa.WgmmaFragments(f)
	x := &wgmmaExec{aF16: f.AType == "f16", bF16: bt == "f16", form: f, bType: bt, fi: fi, elemBits: isa.FragTypeBits(f.AType), dBit: isa.FragTypeBits(f.DType),
		aVal: wgmmaElemFunc(f.AType), bVal: wgmmaElemFunc(bt)}
	flat := func(o *isa.FragOperand, cols int) (pos []uint16, regs, per int) {
		per = 32 / isa.FragTypeBits(o.Type)
		pos = make([]uint16, o.Regs*32*per)
		for _, e := range o.Elems {
			if e.Lane >= 32 {
				continue
			}
			pos[(int(e.Reg)*32+int(e.Lane))*per+int(e.Part)] = uint16(int(e.Row)*cols + int(e.Col))
		}
		return pos, o.Regs, per
	}
	x.dPos, x.dRegs, x.dPer = flat(fi.Operand("d"), f.N)
	x.aPos, x.aRegs, x.aPer = flat(fi.Operand("a"), f.AK())
	if f.Sparse {
		// Warp 0's metadata fields: the mma.sp form's layout.
		e := *fi.Operand("e")
		e.Rows, e.Elems = 16, nil
		for _, el := range fi.Operand("e").Elems {
			if el.Lane < 32 {
				e.Elems = append(e.Elems, el)
			}
		}
		x.sp = newSparseMeta(&isa.FragInstr{Sparse: fi.Sparse, Operands: []isa.FragOperand{e}})
	}
	if wgmmaExecs.index == nil {
		wgmmaExecs.index = map[wgmmaExecKey]int32{}
	}
	i := int32(len(wgmmaExecs.list))
	wgmmaExecs.list = append(wgmmaExecs.list, x)
	wgmmaExecs.index[key] = i
	return i
}

func wgmmaExecAt(i int32) *wgmmaExec {
	wgmmaExecs.Lock()
	defer wgmmaExecs.Unlock()
	return wgmmaExecs.list[i]
}

// bindWgmmaMma binds wgmma.mma_async.sync.aligned.m64nNkK.dtype.atype.btype
//
//	f16, bf16:   d, a-desc, b-desc, scale-d, imm-scale-a, imm-scale-b, imm-trans-a, imm-trans-b;
//	             d, a-regs, b-desc, scale-d, imm-scale-a, imm-scale-b, imm-trans-b;
//	tf32, e4m3, e5m2 (A and B mixing the two 8-bit types):
//	             d, a-desc|a-regs, b-desc, scale-d, imm-scale-a, imm-scale-b;
//	s8, u8 (mixing; .s32, {.satfinite}), b1 (.s32, .and.popc):
//	             d, a-desc|a-regs, b-desc, scale-d;
//
// and wgmma.mma_async.sp (every type but .b1, twice the K) with the
// metadata register sp-meta and the sparsity selector sp-sel (a constant)
// after b-desc: d, a-desc|a-regs, b-desc, sp-meta, sp-sel, scale-d, ....
func bindWgmmaMma(b *binder) {
	if !tensorSyncAligned(b) {
		return
	}
	shape, ok := uint8(0), false
	sparse := false
	var elems []isa.Elem // .b1 .b1 (a narrow element type is a matrix modifier)
	for _, m := range b.Tensor() {
		switch {
		case m.Kind == isa.ModElem && isa.Elem(m.Value) == isa.ElemB1:
			elems = append(elems, isa.ElemB1)
		case m.Kind == isa.ModTensor && isa.TensorWord(m.Value) == isa.TensorSp && !sparse:
			sparse = true
		case m.Kind != isa.ModWgmmaShape || ok:
			b.errorf("needs one shape .m64nNkK and no other matrix modifier")
			return
		default:
			shape, ok = m.Value, true
		}
	}
	if !ok {
		b.errorf("needs a shape .m64nNkK (N a multiple of 8 from 8 to 256)")
		return
	}
	sat := b.Flag(isa.FSatfinite)
	var subs []isa.SubOp
	for s := b.Sub(); s != isa.SubNone; s = b.Sub() {
		subs = append(subs, s)
	}
	types := b.AllTypes()
	if len(elems) == 2 && len(types) == 1 {
		types = []isa.Type{types[0], isa.B32, isa.B32} // .b1.b1: named "b1" below
	}
	if len(types) != 3 || len(elems) != 0 && len(elems) != 2 {
		b.errorf("needs the three types .dtype.atype.btype")
		return
	}
	at, bt := types[1], types[2]
	aName, bName := at.String(), bt.String()
	if len(elems) == 2 {
		aName, bName = "b1", "b1"
	}
	mixes := func(x, y isa.Type) bool {
		return (x == isa.E4M3 || x == isa.E5M2) && (y == isa.E4M3 || y == isa.E5M2) || (x == isa.S8 || x == isa.U8) && (y == isa.S8 || y == isa.U8)
	}
	if at != bt && !mixes(at, bt) {
		b.errorf("A and B have the same type (.%s.%s), except that .e4m3 and .e5m2 mix, as do .s8 and .u8", at, bt)
		return
	}
	n, k := isa.WgmmaShape(shape)
	form := isa.WgmmaForm{N: n, K: k, DType: types[0].String(), AType: aName, Sparse: sparse}
	if msg := isa.WgmmaFormOf(form); msg != "" {
		name := "wgmma.mma_async"
		if sparse {
			name = "wgmma.mma_async.sp"
		}
		b.errorf("not a form of %s: %s", name, msg)
		return
	}
	integer := form.DType == "s32"
	switch {
	case form.AType == "b1":
		if len(subs) != 2 || subs[0] != isa.SubAnd || subs[1] != isa.SubPopc {
			b.errorf(".b1 forms need .and.popc")
			return
		}
		if sat {
			b.errorf(".satfinite is not valid for .b1 forms")
			return
		}
	case len(subs) > 0:
		b.errorf(".and.popc is for .b1 forms only")
		return
	case sat && !integer:
		b.errorf(".satfinite is for the integer (.s8, .u8) forms only")
		return
	}
	trans := form.AType == "f16" || form.AType == "bf16"
	regA := b.opd(1) != nil && b.opd(1).Kind == ptx.OpdVec
	want := 6
	switch {
	case integer:
		want = 4
	case trans && regA:
		want = 7
	case trans:
		want = 8
	}
	sp := 0 // sp-meta and sp-sel come after b-desc
	if sparse {
		sp = 2
	}
	if !b.Want(want+sp, want+sp) {
		return
	}
	op := b.op
	idx := wgmmaExecIndex(form, bName)
	x := wgmmaExecAt(idx)
	d := b.VecRegs(0, x.dRegs, isa.B32, true)
	if b.failed {
		return
	}
	regs := d
	op.Parts[0] = uint8(len(d))
	if regA {
		a := b.VecRegs(1, x.aRegs, isa.B32, false)
		if b.failed {
			return
		}
		regs = append(regs, a...)
		op.Parts[1] = uint8(len(a))
		op.Imm |= wgRegA
	} else {
		op.A = b.Src(1, isa.B64)
	}
	op.B = b.Src(2, isa.B64)
	if sparse {
		info := x.fi.Sparse
		if !b.IsImm(4) {
			b.operr(4, "the sparsity selector sp-sel must be a constant 0..%d", info.Selectors-1)
			return
		}
		v, ok := b.Imm(4)
		if !ok {
			return
		}
		if v.Kind == ptx.ValFloat {
			b.operr(4, "the sparsity selector sp-sel must be an integer constant 0..%d", info.Selectors-1)
			return
		}
		if v.Int >= uint64(info.Selectors) {
			b.operr(4, "sparsity selector %s is out of range for .%s: %s", v, form.AType, selectorRule(info))
			return
		}
		op.E = b.Src(3, isa.B32)
		op.Imm |= v.Int << wgSelShift
	}
	op.C = b.SrcPred(3+sp, 2)
	if b.failed {
		return
	}
	imm := func(i int, what string, vals ...int64) (int64, bool) {
		if !b.IsImm(i) {
			b.operr(i, "%s must be a constant", what)
			return 0, false
		}
		v, ok := b.Imm(i)
		if !ok {
			return 0, false
		}
		for _, x := range vals {
			if int64(v.Int) == x {
				return x, true
			}
		}
		b.operr(i, "%s is %d: it must be %v", what, int64(v.Int), vals)
		return 0, false
	}
	if !integer {
		if v, ok := imm(4+sp, "imm-scale-a", 1, -1); !ok {
			return
		} else if v < 0 {
			op.Imm |= wgNegA
		}
		if v, ok := imm(5+sp, "imm-scale-b", 1, -1); !ok {
			return
		} else if v < 0 {
			op.Imm |= wgNegB
		}
	}
	if trans {
		i := 6 + sp
		if !regA {
			if v, ok := imm(i, "imm-trans-a", 0, 1); !ok {
				return
			} else if v == 1 {
				op.Imm |= wgTransA
			}
			i++
		}
		if v, ok := imm(i, "imm-trans-b", 0, 1); !ok {
			return
		} else if v == 1 {
			op.Imm |= wgTransB
		}
	}
	op.Regs = regs
	op.Type, op.Type2 = types[0], at
	op.Aux = idx
	op.Flags = op.Flags.With(isa.FSync).With(isa.FAligned)
	if sat {
		op.Flags = op.Flags.With(isa.FSatfinite)
	}
	op.Exec = execWgmmaMma
}

// ---- the warpgroup's sequence of wgmma instructions ----

// wgSeq is the .aligned log of a warpgroup: pcs[i] is the pc of its
// (base+i)-th wgmma instruction, kept until every warp has executed it.
type wgSeq struct {
	base uint32
	pcs  []int32
	// descs: the descriptors of the mma_async instructions not every
	// warp has executed yet (wgmmaWarpDescs).
	descs []wgDescs
}

// wgmmaCollective checks that the whole warpgroup executes op, the warp's
// next wgmma instruction, and logs it.
func (w *Warp) wgmmaCollective(op *Op, mask uint32) *Fault {
	if mask != ^uint32(0) {
		return tensorConverged(w, op, mask)
	}
	name := wgmmaName(op)
	g := w.cta.Warpgroup(w.Warpgroup())
	if len(g) < WarpgroupSize {
		return w.faultAll(FaultIllegal, mask, "%s is warpgroup-collective (.sync.aligned): every thread of the 4 warps of a warpgroup executes it, but warp %d is in warpgroup %d, which has warp(s) %d to %d only (the CTA has %d warps): warp(s) %d to %d are missing",
			name, w.ID, w.Warpgroup(), g[0].ID, g[len(g)-1].ID, len(w.cta.Warps), g[len(g)-1].ID+1, g[0].ID+WarpgroupSize-1)
	}
	u := &w.cta.async
	me := u.warp(w.ID)
	k := me.wgCount
	for _, v := range g {
		if v.valid != ^uint32(0) {
			return w.faultAll(FaultIllegal, mask, "%s is warpgroup-collective (.sync.aligned): every thread of the 4 warps of warpgroup %d executes it, but lane(s) %s of warp %d do not exist (the CTA's thread count is not a multiple of 128)", name, w.Warpgroup(), warpLaneList(^v.valid), v.ID)
		}
	}
	s := u.seq(w.Warpgroup())
	pc := int32(w.m.curPC)
	if i := int(k - s.base); i < len(s.pcs) {
		if s.pcs[i] != pc {
			for _, v := range g {
				if u.warp(v.ID).wgCount > k {
					return w.faultAll(FaultIllegal, mask, "%s at pc %d is warp %d's wgmma instruction #%d, but warp %d of its warpgroup executed the one at pc %d as #%d: every thread of a warpgroup executes the same wgmma instructions (.aligned)", name, pc, w.ID, k+1, v.ID, s.pcs[i], k+1)
				}
			}
		}
	} else {
		for _, v := range g {
			if v != w && v.valid&^v.exited != v.valid {
				return w.faultAll(FaultIllegal, mask, "%s: lane(s) %s of warp %d of the same warpgroup exited without executing it: every thread of a warpgroup executes the same wgmma instructions (.aligned)", name, warpLaneList(v.exited), v.ID)
			}
		}
		if len(s.pcs) >= WgmmaSeqLimit {
			return w.faultAll(FaultIllegal, mask, "%s: warp %d is %d wgmma instructions ahead of another warp of its warpgroup (the limit the emulator checks .aligned over)", name, w.ID, len(s.pcs))
		}
		s.pcs = append(s.pcs, pc)
	}
	me.wgCount = k + 1
	// Drop what every warp has executed.
	lo := me.wgCount
	for _, v := range g {
		lo = min(lo, u.warp(v.ID).wgCount)
	}
	if d := int(lo - s.base); d > 0 {
		s.pcs = append(s.pcs[:0], s.pcs[d:]...)
		s.base = lo
	}
	return nil
}

// wgmmaExit faults when the warp's last lanes exit (emask) before it
// executed a wgmma instruction another warp of its warpgroup executed,
// and lands the results its warp has in flight.
func (w *Warp) wgmmaExit(emask uint32) *Fault {
	u := &w.cta.async
	if w.ID >= len(u.warps) && len(u.wgSeqs) == 0 {
		return nil
	}
	if (w.valid&^w.exited)&^emask == 0 {
		mine := uint32(0)
		if w.ID < len(u.warps) {
			mine = u.warps[w.ID].wgCount
		}
		for _, v := range w.cta.Warpgroup(w.Warpgroup()) {
			if v != w && v.ID < len(u.warps) && u.warps[v.ID].wgCount > mine {
				s := u.seq(w.Warpgroup())
				pc := int32(-1)
				if i := int(mine - s.base); i >= 0 && i < len(s.pcs) {
					pc = s.pcs[i]
				}
				return w.faultAll(FaultIllegal, emask, "warp %d exits without executing the wgmma instruction at pc %d that warp %d of its warpgroup executed (every thread of a warpgroup executes the same wgmma instructions)", w.ID, pc, v.ID)
			}
		}
		w.landWgmma(-1)
	}
	return nil
}

func wgmmaName(op *Op) string {
	switch op.Code {
	case isa.OpWgmmaMmaAsync:
		return "wgmma.mma_async"
	case isa.OpWgmmaCommitGroup:
		return "wgmma.commit_group"
	case isa.OpWgmmaWaitGroup:
		return "wgmma.wait_group"
	}
	return "wgmma.fence"
}

// ---- the asynchronous groups ----

// wgmmaOp is one warp's part of an mma_async in flight: the values it
// writes to the accumulator registers when it lands.
type wgmmaOp struct {
	warp  int32
	pc    int32
	group uint32  // the warp's wgmma-group it belongs to
	regs  []int32 // the accumulator's slots (the Op's)
	vals  []uint64
}

func (o *wgmmaOp) bytes() int64 { return int64(8*len(o.vals)) + 64 }

func (o *wgmmaOp) same(p *wgmmaOp) bool {
	if o.warp != p.warp || o.pc != p.pc || o.group != p.group || len(o.regs) != len(p.regs) || len(o.vals) != len(p.vals) {
		return false
	}
	for i := range o.regs {
		if o.regs[i] != p.regs[i] {
			return false
		}
	}
	for i := range o.vals {
		if o.vals[i] != p.vals[i] {
			return false
		}
	}
	return true
}

// seq returns warpgroup g's .aligned log, growing the unit to hold it.
func (u *asyncUnit) seq(g int) *wgSeq {
	if g >= len(u.wgSeqs) {
		u.wgSeqs = append(u.wgSeqs, make([]wgSeq, g+1-len(u.wgSeqs))...)
	}
	return &u.wgSeqs[g]
}

// WgmmaGroup is a wgmma-group of a warp in flight, as the debugger lists
// it: its number (counted from 0 per warp), whether it is committed, and
// the mma_async instructions (pcs) in it.
type WgmmaGroup struct {
	Group     uint32
	Committed bool
	PCs       []int
}

// PendingWgmma returns the warp's wgmma-groups in flight, oldest first.
func (w *Warp) PendingWgmma() []WgmmaGroup {
	u := &w.cta.async
	var out []WgmmaGroup
	for i := range u.wgmma {
		o := &u.wgmma[i]
		if int(o.warp) != w.ID {
			continue
		}
		if len(out) == 0 || out[len(out)-1].Group != o.group {
			out = append(out, WgmmaGroup{Group: o.group, Committed: o.group < u.warps[w.ID].wgCommitted})
		}
		out[len(out)-1].PCs = append(out[len(out)-1].PCs, int(o.pc))
	}
	return out
}

// wgmmaDue reports whether o, an operation of warp w, is one a wait for
// all but the warp's newest keep committed groups (keep < 0: every
// operation) waits for.
func (u *asyncUnit) wgmmaDue(o *wgmmaOp, warp int32, keep int64) bool {
	return o.warp == warp && (keep < 0 || int64(o.group)+keep < int64(u.warps[warp].wgCommitted))
}

// wgmmaPending reports whether the warp has an operation in flight that a
// wait for all but its newest keep committed groups waits for.
func (w *Warp) wgmmaPending(keep int64) bool {
	u := &w.cta.async
	for i := range u.wgmma {
		if u.wgmmaDue(&u.wgmma[i], int32(w.ID), keep) {
			return true
		}
	}
	return false
}

// landWgmma writes the results of the warp's operations in flight that a
// wait for all but its newest keep committed groups waits for (keep < 0:
// all) into their registers, in issue order, and drops them.
func (w *Warp) landWgmma(keep int64) {
	u := &w.cta.async
	if len(u.wgmma) == 0 {
		return
	}
	out := u.wgmma[:0]
	var t *TensorStep
	for _, o := range u.wgmma {
		if !u.wgmmaDue(&o, int32(w.ID), keep) {
			out = append(out, o)
			continue
		}
		for r, s := range o.regs {
			copy(w.r(s)[:], o.vals[r*32:r*32+32])
		}
		w.m.dyn -= o.bytes()
		if w.m.obsDetails {
			// The landing is a register write of the instruction that
			// lands it (wait_group, or the warp's exit): reported as
			// such, the accumulator of each mma_async landed ("d",
			// written), the report's key the first one's form.
			if t == nil {
				t = w.m.tensorStep(wgmmaExecAt(w.m.prog.Ops[o.pc].Aux).fi.Key)
			}
			t.Operands = append(t.Operands, TensorOperand{Name: "d", Write: true, Regs: o.regs})
		}
	}
	clear(u.wgmma[len(out):])
	u.wgmma = out
}

func execWgmmaFence(w *Warp, op *Op, mask uint32) *Fault {
	if f := w.wgmmaCollective(op, mask); f != nil {
		return f
	}
	w.cta.async.warp(w.ID).wgFenced = true
	return nil
}

func execWgmmaCommit(w *Warp, op *Op, mask uint32) *Fault {
	if f := w.wgmmaCollective(op, mask); f != nil {
		return f
	}
	w.cta.async.warp(w.ID).wgCommitted++
	return nil
}

func execWgmmaWait(w *Warp, op *Op, mask uint32) *Fault {
	if f := w.wgmmaCollective(op, mask); f != nil {
		return f
	}
	w.landWgmma(int64(op.Imm))
	w.await(Wait{Kind: WaitWgmmaGroup, Lanes: mask, Groups: int(op.Imm), op: op}, w.pc())
	return nil
}

// ---- the product ----

// wgmmaElem reads element bits of type t (16 or 32 bits) as a float64.
func wgmmaElem(t string, x uint32) float64 {
	switch t {
	case "f16":
		return f16ToF64(uint16(x))
	case "bf16":
		return float64(math.Float32frombits(x << 16))
	case "tf32":
		return float64(math.Float32frombits(x & 0xffffe000))
	}
	return float64(math.Float32frombits(x))
}

// wgmmaLayoutEntry is a cached operand layout: the layout of a
// descriptor value for an operand shape, or the error decoding it, and
// the end of the bytes it reads.
type wgmmaLayoutEntry struct {
	l   *isa.WgmmaLayout
	err error
	end uint64
}

type wgmmaLayoutKey struct {
	desc uint64
	o    isa.WgmmaOperand
}

// The layouts of the descriptors executed, shared by every machine (a
// layout depends on the descriptor's value and the operand's shape only).
// Bounded: the cache is emptied when it reaches wgmmaLayoutCacheMax.
var wgmmaLayouts struct {
	sync.Mutex
	m map[wgmmaLayoutKey]*wgmmaLayoutEntry
}

const wgmmaLayoutCacheMax = 4096

// wgmmaLayout is isa.WgmmaOperandLayout(isa.DecodeWgmmaDescriptor(desc),
// o), cached (wgmmaLayoutSlow is the definition; a test compares them).
func wgmmaLayout(desc uint64, o isa.WgmmaOperand) *wgmmaLayoutEntry {
	k := wgmmaLayoutKey{desc, o}
	wgmmaLayouts.Lock()
	e, ok := wgmmaLayouts.m[k]
	wgmmaLayouts.Unlock()
	if ok {
		return e
	}
	e = wgmmaLayoutSlow(desc, o)
	wgmmaLayouts.Lock()
	if wgmmaLayouts.m == nil || len(wgmmaLayouts.m) >= wgmmaLayoutCacheMax {
		wgmmaLayouts.m = map[wgmmaLayoutKey]*wgmmaLayoutEntry{}
	}
	wgmmaLayouts.m[k] = e
	wgmmaLayouts.Unlock()
	return e
}

// wgmmaLayoutSlow computes a layout entry.
func wgmmaLayoutSlow(desc uint64, o isa.WgmmaOperand) *wgmmaLayoutEntry {
	l, err := isa.WgmmaOperandLayout(isa.DecodeWgmmaDescriptor(desc), o)
	e := &wgmmaLayoutEntry{l: l, err: err}
	if err == nil {
		size := uint64(max(1, o.ElemBits/8))
		for _, a := range l.Addr {
			e.end = max(e.end, a+size)
		}
	}
	return e
}

// wgmmaShared reads an operand (rows x K) from shared memory through
// descriptor desc into dst (dst[r*K+k], rows lo..lo+len(dst)/K-1 of the
// operand), each element's value by val, negated when neg.
func (w *Warp) wgmmaShared(mask uint32, which string, desc uint64, o isa.WgmmaOperand, lo int, dst []float64, neg bool, val func(uint32) float64) *Fault {
	e := wgmmaLayout(desc, o)
	err := e.err
	if err == nil && e.end > uint64(len(w.cta.shared)) {
		err = e.l.CheckShared(uint64(len(w.cta.shared)))
	}
	if err != nil {
		return w.faultAll(FaultIllegal, mask, "wgmma.mma_async: the %s descriptor %#016x: %v", which, desc, err)
	}
	sh := w.cta.shared
	addr := e.l.Addr[lo*o.K : lo*o.K+len(dst)]
	sign := 1.0
	if neg {
		sign = -1
	}
	switch {
	case o.ElemBits == 16 && val == nil:
		// f16, through the table of every f16 value.
		tab := f16Values
		for i, a := range addr {
			dst[i] = sign * tab[binary.LittleEndian.Uint16(sh[a:])]
		}
	case o.ElemBits == 1:
		for i, a := range addr {
			dst[i] = sign * val(uint32(sh[a]>>(i%o.K%8))&1)
		}
	case o.ElemBits == 8:
		for i, a := range addr {
			dst[i] = sign * val(uint32(sh[a]))
		}
	case o.ElemBits == 16:
		for i, a := range addr {
			dst[i] = sign * val(uint32(binary.LittleEndian.Uint16(sh[a:])))
		}
	default:
		for i, a := range addr {
			dst[i] = sign * val(binary.LittleEndian.Uint32(sh[a:]))
		}
	}
	w.noteWgmmaRead(e.l, o, lo, len(dst)/o.K)
	return nil
}

// uniformDesc returns the descriptor in slot s, faulting when the lanes
// of the warp hold different ones.
func (w *Warp) uniformDesc(mask uint32, s int32, which string) (uint64, *Fault) {
	v := w.r(s)
	for l := 1; l < 32; l++ {
		if v[l] != v[0] {
			return 0, w.faultAll(FaultIllegal, mask, "wgmma.mma_async: the %s descriptor differs between the threads of warp %d (lane 0 %#016x, lane %d %#016x): every thread of the warpgroup passes the same descriptor", which, w.ID, v[0], l, v[l])
		}
	}
	return v[0], nil
}

func execWgmmaMma(w *Warp, op *Op, mask uint32) *Fault {
	if f := w.wgmmaCollective(op, mask); f != nil {
		return f
	}
	u := &w.cta.async
	me := u.warp(w.ID)
	if !me.wgFenced {
		return w.faultAll(FaultIllegal, mask, "wgmma.mma_async without a wgmma.fence before it: the first wgmma.mma_async of a warpgroup (and any after a register write to its accumulator or A registers) needs a wgmma.fence first (undefined behaviour otherwise)")
	}
	x := wgmmaExecAt(op.Aux)
	f := x.form
	N, K, AK := f.N, f.K, f.AK()
	rank := w.WarpgroupRank()
	// A (16 x AK: K, or K/2 for the compressed A of a sparse form), B as
	// the descriptor reads it (N x K: row n, column k) and C (16 x N), in
	// a buffer reused across instructions.
	buf := wgmmaBufs.Get().(*[]float64)
	defer wgmmaBufs.Put(buf)
	if need := 16*AK + N*K + 16*N; cap(*buf) < need {
		*buf = make([]float64, need)
	}
	a := (*buf)[:16*AK]
	bm := (*buf)[16*AK : 16*AK+N*K]
	c := (*buf)[16*AK+N*K : 16*AK+N*K+16*N]
	// kcol: a sparse form's logical column of each element of the warp's
	// compressed A (the metadata decoded as for mma.sp).
	var kcol [16 * 64]uint16
	if x.sp != nil {
		if flt := decodeSparseMeta(w, x.sp, AK, w.r(op.E), int(op.Imm>>wgSelShift&3), false, kcol[:]); flt != nil {
			return flt
		}
	}
	aVal, bVal := x.aVal, x.bVal
	if x.aF16 {
		aVal = nil
	}
	if x.bF16 {
		bVal = nil
	}
	var aDesc uint64
	if op.Imm&wgRegA != 0 {
		slots := tensorOperand(op, 1)
		emask := uint32(1)<<x.elemBits - 1
		for r, s := range slots {
			vals := w.r(s)
			for l := 0; l < 32; l++ {
				for p := 0; p < x.aPer; p++ {
					v := x.aVal(uint32(vals[l]>>(p*x.elemBits)) & emask)
					if op.Imm&wgNegA != 0 {
						v = -v
					}
					a[x.aPos[(r*32+l)*x.aPer+p]] = v
				}
			}
		}
	} else {
		desc, flt := w.uniformDesc(mask, op.A, "A")
		if flt != nil {
			return flt
		}
		aDesc = desc
		major := isa.WgmmaKMajor
		if op.Imm&wgTransA != 0 {
			major = isa.WgmmaMNMajor
		}
		if flt := w.wgmmaShared(mask, "A", desc, isa.WgmmaOperand{Major: major, ElemBits: x.elemBits, Rows: 64, K: AK}, 16*rank, a, op.Imm&wgNegA != 0, aVal); flt != nil {
			return flt
		}
	}
	desc, flt := w.uniformDesc(mask, op.B, "B")
	if flt != nil {
		return flt
	}
	major := isa.WgmmaKMajor
	if op.Imm&wgTransB != 0 {
		major = isa.WgmmaMNMajor
	}
	if flt := w.wgmmaShared(mask, "B", desc, isa.WgmmaOperand{Major: major, ElemBits: x.elemBits, Rows: N, K: K}, 0, bm, op.Imm&wgNegB != 0, bVal); flt != nil {
		return flt
	}
	if flt := w.wgmmaWarpDescs(mask, aDesc, desc); flt != nil {
		return flt
	}
	dSlots := tensorOperand(op, 0)
	scaleD := w.preds[op.C]&1 != 0
	if op.Neg>>2&1 != 0 {
		scaleD = !scaleD
	}
	if w.m.obsDetails {
		// What the issue reads: a register A, and the accumulator when
		// scale-d (its write is reported when the result lands).
		t := w.m.tensorStep(x.fi.Key)
		if op.Imm&wgRegA != 0 {
			t.Operands = append(t.Operands, TensorOperand{Name: "a", Regs: tensorOperand(op, 1)})
		}
		if x.sp != nil {
			t.Operands = append(t.Operands, TensorOperand{Name: "e", Regs: []int32{op.E}})
		}
		if scaleD {
			t.Operands = append(t.Operands, TensorOperand{Name: "d", Regs: dSlots})
		}
	}
	// The accumulator is uniform: lane 0's scale-d decides (the ISA asks
	// for the same value in every thread).
	if !scaleD {
		clear(c)
	} else {
		// Every element of c is set: the fragment covers the 16 x N tile.
		for r, s := range dSlots {
			// An accumulator register another mma_async of the warp still
			// in flight writes is read as that result (the ISA's chain of
			// mma_async on one accumulator, in issue order).
			vals := w.r(s)
			for i := range u.wgmma {
				o := &u.wgmma[i]
				if int(o.warp) != w.ID {
					continue
				}
				for j, s2 := range o.regs {
					if s2 == s {
						vals = (*[32]uint64)(o.vals[j*32 : j*32+32])
					}
				}
			}
			pos := x.dPos[r*32*x.dPer : (r+1)*32*x.dPer]
			switch f.DType {
			case "f32":
				for l, e := range vals {
					c[pos[l]] = float64(math.Float32frombits(uint32(e)))
				}
			case "s32":
				for l, e := range vals {
					c[pos[l]] = float64(int32(e))
				}
			default: // f16
				for l, e := range vals {
					c[pos[2*l]] = f16Values[uint16(e)]
					c[pos[2*l+1]] = f16Values[uint16(e>>16)]
				}
			}
		}
	}
	// D = C + A·B, each element its C plus the products in ascending k,
	// accumulated in f64 (mma's rule: mmaFloatSum). Integer and .b1 forms
	// are exact: every partial sum is an integer below 2^53 (|C| <= 2^31,
	// K products of at most 2^16), and and.popc is the sum of the products
	// of bits.
	if x.sp != nil {
		wgmmaSparseSum(a, kcol[:16*AK], bm, c, N, K)
	} else {
		wgmmaSum(a, bm, c, N, K)
	}
	sat := op.Flags.Has(isa.FSatfinite)
	n := int64(len(dSlots)*32*8) + 64
	if w.m.overDynamic(n) {
		return w.dynamicFault(n, mask, "wgmma.mma_async")
	}
	vals := make([]uint64, len(dSlots)*32)
	switch f.DType {
	case "f32":
		for i, p := range x.dPos {
			d := c[p]
			v := uint64(math.Float32bits(float32(d)))
			if d != d {
				v = uint64(fpx.NaN32)
			}
			vals[i] = v
		}
	case "s32":
		for i, p := range x.dPos {
			s := int64(c[p])
			if sat {
				s = min(max(s, math.MinInt32), math.MaxInt32)
			}
			vals[i] = uint64(uint32(s))
		}
	default: // f16: two per register
		for i := range vals {
			lo := fpx.F64ToF16(math.Float64bits(c[x.dPos[2*i]]), fpx.RN, 0)
			hi := fpx.F64ToF16(math.Float64bits(c[x.dPos[2*i+1]]), fpx.RN, 0)
			vals[i] = uint64(lo) | uint64(hi)<<16
		}
	}
	o := wgmmaOp{warp: int32(w.ID), pc: int32(w.m.curPC), group: me.wgCommitted, regs: dSlots, vals: vals}
	u.wgmma = append(u.wgmma, o)
	w.m.dyn += o.bytes()
	return nil
}

var wgmmaBufs = sync.Pool{New: func() any { return new([]float64) }}

// wgmmaSum replaces c (16 x n, row-major) by c + a·bᵀ, a (16 x k) and b
// (n x k) row-major: each element its C plus the products in ascending k,
// accumulated in f64. It is wgmmaSumSlow (floatSum on b transposed), two
// rows by four columns at a time (a test compares them).
func wgmmaSum(a, b, c []float64, n, k int) {
	for i := 0; i+1 < 16; i += 2 {
		a0, a1 := a[i*k:i*k+k], a[(i+1)*k:(i+1)*k+k]
		c0, c1 := c[i*n:i*n+n], c[(i+1)*n:(i+1)*n+n]
		j := 0
		for ; j+3 < n; j += 4 {
			b0, b1, b2, b3 := b[j*k:j*k+k], b[(j+1)*k:(j+1)*k+k], b[(j+2)*k:(j+2)*k+k], b[(j+3)*k:(j+3)*k+k]
			s00, s01, s02, s03 := c0[j], c0[j+1], c0[j+2], c0[j+3]
			s10, s11, s12, s13 := c1[j], c1[j+1], c1[j+2], c1[j+3]
			b1, b2, b3 = b1[:len(b0)], b2[:len(b0)], b3[:len(b0)]
			x1s := a1[:len(a0)]
			for kk, x0 := range a0 {
				x1 := x1s[kk]
				y0, y1, y2, y3 := b0[kk], b1[kk], b2[kk], b3[kk]
				s00 += x0 * y0
				s01 += x0 * y1
				s02 += x0 * y2
				s03 += x0 * y3
				s10 += x1 * y0
				s11 += x1 * y1
				s12 += x1 * y2
				s13 += x1 * y3
			}
			c0[j], c0[j+1], c0[j+2], c0[j+3] = s00, s01, s02, s03
			c1[j], c1[j+1], c1[j+2], c1[j+3] = s10, s11, s12, s13
		}
		for ; j < n; j++ {
			bj := b[j*k : j*k+k]
			s0, s1 := c0[j], c1[j]
			for kk, y := range bj {
				s0 += a0[kk] * y
				s1 += a1[kk] * y
			}
			c0[j], c1[j] = s0, s1
		}
	}
}

// wgmmaSparseSum replaces c (16 x n, row-major) by c + A·bᵀ for the
// sparse A whose stored elements are a (16 x k2, row-major, k2 =
// len(a)/16), element t of row i in logical column kcol[i*k2+t]; b is n x
// k (row n, column k). Each element of D is its C plus the products of the
// stored elements of its row with the B elements of their columns, in the
// order they are stored, accumulated in f64 (mma.sp's rule: the zeros of
// the logical A are not multiplied).
func wgmmaSparseSum(a []float64, kcol []uint16, b, c []float64, n, k int) {
	k2 := len(a) / 16
	for i := 0; i < 16; i++ {
		ar, kr := a[i*k2:i*k2+k2], kcol[i*k2:i*k2+k2]
		cr := c[i*n : i*n+n]
		for j := range cr {
			bj := b[j*k : j*k+k]
			s := cr[j]
			for t, x := range ar {
				s += x * bj[int(kr[t])%k]
			}
			cr[j] = s
		}
	}
}

// wgmmaSumSlow is the definition of wgmmaSum: mma's floatSum on B
// transposed to k x n.
func wgmmaSumSlow(a, b, c []float64, n, k int) {
	bt := make([]float64, k*n)
	for j := 0; j < n; j++ {
		for kk := 0; kk < k; kk++ {
			bt[kk*n+j] = b[j*k+kk]
		}
	}
	floatSum(a, bt, c, 16, n, k)
}

// String describes o for state differences.
func (o *wgmmaOp) String() string {
	return fmt.Sprintf("(warp %d pc %d group %d, %d registers)", o.warp, o.pc, o.group, len(o.regs))
}
