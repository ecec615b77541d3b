package emu

import "github.com/ptxplayground/ptxplay/engine/isa"

// Block is a basic block of a function's control-flow graph: the
// instructions Start to End-1 (program pcs). Succ lists the indices of its
// successor blocks in the slice Blocks returns, -1 standing for the
// function's exit; a block that falls through lists the next block.
type Block struct {
	Start, End int
	Succ       []int
}

// Blocks returns the basic blocks of fn in pc order (the blocks of
// BlockLeaders, with the edges computeReconvergence uses). The reconvergence
// point of a block's closing branch is that instruction's Op.Reconv.
func Blocks(p *Program, fn *Function) []Block {
	lo, hi := fn.Entry, fn.End
	n := hi - lo
	if n <= 0 || hi > len(p.Ops) {
		return nil
	}
	leader := BlockLeaders(p, fn)
	blockOf := make([]int, n)
	var out []Block
	for i := 0; i < n; i++ {
		if leader[i] {
			if k := len(out); k > 0 {
				out[k-1].End = lo + i
			}
			out = append(out, Block{Start: lo + i})
		}
		blockOf[i] = len(out) - 1
	}
	out[len(out)-1].End = hi
	for b := range out {
		blk := &out[b]
		last := &p.Ops[blk.End-1]
		add := func(pc int) {
			s := -1
			if pc >= lo && pc < hi {
				s = blockOf[pc-lo]
			}
			for _, x := range blk.Succ {
				if x == s {
					return
				}
			}
			blk.Succ = append(blk.Succ, s)
		}
		switch flowKind(last) {
		case flowJump:
			add(int(last.Target))
			if last.Guard >= 0 {
				add(blk.End)
			}
		case flowTable:
			if last.Aux >= 0 && int(last.Aux) < len(p.Tables) {
				for _, t := range p.Tables[last.Aux] {
					add(int(t))
				}
			}
			if last.Guard >= 0 {
				add(blk.End)
			}
		case flowEnd:
			add(-1)
			if last.Guard >= 0 {
				add(blk.End)
			}
		default:
			add(blk.End)
		}
	}
	return out
}

// MayDiverge reports whether the branch op can split a warp: a guarded
// bra or a brx.idx that is not marked .uni.
func MayDiverge(op *Op) bool {
	switch flowKind(op) {
	case flowJump:
		return op.Guard >= 0 && !op.Flags.Has(isa.FUni)
	case flowTable:
		return !op.Flags.Has(isa.FUni)
	}
	return false
}
