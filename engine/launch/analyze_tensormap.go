package launch

import (
	"github.com/ptxplayground/ptxplay/engine/emu"
	"github.com/ptxplayground/ptxplay/engine/isa"
	"github.com/ptxplayground/ptxplay/engine/ptx"
)

// The part of the analysis that finds tensor maps: a kernel parameter
// whose address (a `.param .align 64 .b8 NAME[128]` passed by value, its
// address taken with `mov.b64 %rd, NAME;` and maybe cvta.param, or named
// directly in the operand) or whose value (a .u64 holding the map's
// address) reaches the tensor-map operand of cp.async.bulk.tensor,
// cp.reduce.async.bulk.tensor, prefetch.tensor, prefetch.tensormap or
// tensormap.replace. Such an operand does not make its parameter a
// pointer to a buffer of elements. The asynchronous copies that complete
// on mbarriers and the constant expect_tx byte counts are collected too,
// for the box Infer gives the map.

// tmapUse is an instruction that uses a parameter as its tensor map.
type tmapUse struct {
	pc   int
	what string // "cp.async.bulk.tensor", "cp.reduce.async.bulk.tensor", ...
	rank int    // the instruction's .Nd (0: it has none)
	load bool   // a copy into shared memory (completes on an mbarrier)
	// reads and writes: whether the copy reads or writes the tensor in
	// global memory (a load or prefetch reads, a store writes, a
	// reduction does both).
	reads, writes bool
	// mbar is a load's mbarrier operand (hasMbar).
	mbar    emu.MemOperand
	hasMbar bool
}

// txCopy is an asynchronous copy that completes on an mbarrier
// (.mbarrier::complete_tx::bytes).
type txCopy struct {
	pc     int
	mbar   emu.MemOperand
	tensor bool
	params []int // the tensor-map parameters of a tensor copy
}

// txExpect is an mbarrier.arrive.expect_tx or mbarrier.expect_tx with a
// constant byte count.
type txExpect struct {
	pc    int
	mbar  emu.MemOperand
	bytes int64
}

// sourceInstrs indexes the source instructions of the analysed functions
// by the start of their spans, and finds the movs that take the address
// of an array parameter of the kernel.
func (a *analyzer) sourceInstrs() {
	a.instrs = map[int32]*ptx.Instr{}
	a.paramAddr = map[int]int{}
	if a.p.Module == nil {
		return
	}
	want := map[string]bool{}
	for _, ff := range a.funcs {
		want[ff.fn.Name] = true
	}
	var walk func(b *ptx.Block)
	walk = func(b *ptx.Block) {
		if b == nil {
			return
		}
		for _, s := range b.Stmts {
			switch s := s.(type) {
			case *ptx.Instr:
				a.instrs[s.Span.Start] = s
			case *ptx.Block:
				walk(s)
			}
		}
	}
	for _, d := range a.p.Module.Decls {
		if f, ok := d.(*ptx.Func); ok && want[f.Name] {
			walk(f.Body)
		}
	}
	byName := map[string]int{}
	for i, p := range a.fn.Params {
		if p.Size != p.Type.Size() { // arrays: a scalar's "address" is not taken this way
			byName[p.Name] = i
		}
	}
	if len(byName) == 0 {
		return
	}
	for pc := a.fn.Entry; pc < a.fn.End && pc < len(a.p.Ops); pc++ {
		if a.p.Ops[pc].Code != isa.OpMov {
			continue
		}
		in := a.instrAt(pc)
		if in == nil || in.Opcode != "mov" || len(in.Operands) != 2 {
			continue
		}
		if o := in.Operands[1]; o.Kind == ptx.OpdName {
			if i, ok := byName[o.Name]; ok {
				a.paramAddr[pc] = i
			}
		}
	}
}

// instrAt returns the source instruction of pc, or nil.
func (a *analyzer) instrAt(pc int) *ptx.Instr {
	if pc < 0 || pc >= len(a.p.Spans) {
		return nil
	}
	return a.instrs[a.p.Spans[pc].Start]
}

func modWords(in *ptx.Instr) []string {
	ws := make([]string, len(in.Mods))
	for i, m := range in.Mods {
		ws[i] = m.Name
	}
	return ws
}

func hasMod(ws []string, w string) bool {
	for _, x := range ws {
		if x == w {
			return true
		}
	}
	return false
}

// modRank returns the N of an .Nd modifier (0: none).
func modRank(ws []string) int {
	for _, w := range ws {
		if len(w) == 2 && w[1] == 'd' && w[0] >= '1' && w[0] <= '5' {
			return int(w[0] - '0')
		}
	}
	return 0
}

// tensorMapOperand reports whether memory operand m of the instruction at
// pc is a tensor-map operand.
func (a *analyzer) tensorMapOperand(pc int, m emu.MemOperand) bool {
	switch a.p.Ops[pc].Code {
	case isa.OpCpAsyncBulkTensor, isa.OpCpReduceAsyncBulk, isa.OpPrefetch, isa.OpTensormapReplace:
	default:
		return false
	}
	in := a.instrAt(pc)
	if in == nil || int(m.Operand) >= len(in.Operands) {
		return false
	}
	ws := modWords(in)
	switch a.p.Ops[pc].Code {
	case isa.OpTensormapReplace:
		return m.Operand == 0
	case isa.OpPrefetch:
		return m.Operand == 0 && (hasMod(ws, "tensor") || hasMod(ws, "tensormap"))
	}
	o := in.Operands[m.Operand]
	return hasMod(ws, "tensor") && o.Kind == ptx.OpdAddr && len(o.Elems) == 1
}

// memOperands returns the memory operands of the instruction at pc.
func (a *analyzer) memOperands(pc int) []emu.MemOperand {
	mops := a.p.MemOperands
	lo, hi := 0, len(mops)
	for lo < hi {
		mid := (lo + hi) / 2
		if int(mops[mid].PC) < pc {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	end := lo
	for end < len(mops) && int(mops[end].PC) == pc {
		end++
	}
	return mops[lo:end]
}

// constValue returns the value of constant slot r.
func (a *analyzer) constValue(r int32) (uint64, bool) {
	if !a.isConst(r) {
		return 0, false
	}
	for _, c := range a.p.Consts {
		if c.Reg == r {
			return c.Val, true
		}
	}
	return 0, false
}

// asyncCopies records the tensor-map uses of the parameters, the copies
// that complete on mbarriers, the constant expect_tx counts and the
// element types of shared-memory accesses.
func (a *analyzer) asyncCopies(pc int, op *emu.Op, st state, ff *funcFlow) {
	kf := a.kf
	switch op.Code {
	case isa.OpLd, isa.OpSt:
		if op.Space == isa.Shared || op.Space == isa.SharedCluster {
			if t := a.accessType(op); t != isa.TNone {
				kf.sharedTypes[t]++
			}
		}
		return
	case isa.OpMbarrierArrive, isa.OpMbarrierArriveDrop, isa.OpMbarrierExpectTx,
		isa.OpCpAsyncBulkTensor, isa.OpCpReduceAsyncBulk, isa.OpCpAsyncBulk, isa.OpPrefetch, isa.OpTensormapReplace:
	default:
		return
	}
	in := a.instrAt(pc)
	if in == nil {
		return
	}
	ws := modWords(in)
	mops := a.memOperands(pc)
	switch op.Code {
	case isa.OpMbarrierArrive, isa.OpMbarrierArriveDrop, isa.OpMbarrierExpectTx:
		if op.Code != isa.OpMbarrierExpectTx && !hasMod(ws, "expect_tx") || len(mops) == 0 {
			return
		}
		if v, ok := a.constValue(op.B); ok && v > 0 && v < 1<<32 {
			kf.expectTx = append(kf.expectTx, txExpect{pc: pc, mbar: mops[len(mops)-1], bytes: int64(v)})
		}
		return
	}
	complete := hasMod(ws, "mbarrier::complete_tx::bytes")
	var c *txCopy
	if complete && len(mops) > 0 {
		kf.txCopies = append(kf.txCopies, txCopy{pc: pc, mbar: mops[len(mops)-1], tensor: hasMod(ws, "tensor")})
		c = &kf.txCopies[len(kf.txCopies)-1]
	}
	for _, m := range mops {
		if !a.tensorMapOperand(pc, m) {
			continue
		}
		var params []int
		switch {
		case m.Base < 0:
			if m.Space == isa.Param && ff.fn == a.fn {
				if i := a.paramAt(m.Off); i >= 0 && m.Off == int64(a.fn.Params[i].Offset) {
					params = []int{i}
				}
			}
		default:
			if f := a.get(st, m.Base); f != nil {
				params = f.ptr.members()
			}
		}
		u := tmapUse{pc: pc, rank: modRank(ws)}
		switch op.Code {
		case isa.OpCpAsyncBulkTensor:
			u.what = "cp.async.bulk.tensor"
			u.load = complete
			u.reads, u.writes = complete, !complete
			if complete && len(mops) > 0 {
				u.mbar, u.hasMbar = mops[len(mops)-1], true
			}
		case isa.OpCpReduceAsyncBulk:
			u.what = "cp.reduce.async.bulk.tensor"
			u.reads, u.writes = true, true
		case isa.OpPrefetch:
			u.what = "prefetch.tensor"
			if hasMod(ws, "tensormap") {
				u.what = "prefetch.tensormap"
			}
			u.reads = u.rank > 0
		case isa.OpTensormapReplace:
			u.what = "tensormap.replace"
		}
		for _, i := range params {
			kf.params[i].tmap = append(kf.params[i].tmap, u)
			if c != nil {
				c.params = append(c.params, i)
			}
		}
	}
}

// sameAddr reports whether two memory operands name the same address as
// far as the analysis can tell: the same base register and offset, or
// the same absolute address.
func sameAddr(x, y emu.MemOperand) bool {
	if x.Off != y.Off || (x.Base < 0) != (y.Base < 0) {
		return false
	}
	return x.Base == y.Base
}
