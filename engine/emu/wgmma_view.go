package emu

import "github.com/ptxplayground/ptxplay/engine/isa"

// What the debugger shows of a tensor-core instruction: its fragment
// layout (FragInstr) whichever table it comes from, and for a
// wgmma.mma_async the registers of its descriptors and the shape of the
// operands they describe. Op.Aux indexes isa.FragmentTable for the
// warp-level tensor instructions and the wgmma executors for
// wgmma.mma_async; TensorForm is the one place that tells them apart.

// TensorForm returns the fragment layout of a bound tensor-core
// instruction (mma, wmma, ldmatrix, stmatrix, movmatrix, wgmma.mma_async),
// or nil for any other instruction. Do not modify it.
func (op *Op) TensorForm() *isa.FragInstr {
	if op.Exec == nil || !op.Eff.Has(EffAligned) || op.Aux < 0 {
		return nil
	}
	if op.Code == isa.OpWgmmaMmaAsync {
		x := wgmmaExecLookup(op.Aux)
		if x == nil {
			return nil
		}
		return x.fi
	}
	switch op.Code {
	case isa.OpWgmmaFence, isa.OpWgmmaCommitGroup, isa.OpWgmmaWaitGroup:
		return nil
	}
	table := isa.FragmentTable()
	if int(op.Aux) >= len(table) {
		return nil
	}
	return &table[op.Aux]
}

// wgmmaExecLookup is wgmmaExecAt, nil for an index that names no executor.
func wgmmaExecLookup(i int32) *wgmmaExec {
	wgmmaExecs.Lock()
	defer wgmmaExecs.Unlock()
	if i < 0 || int(i) >= len(wgmmaExecs.list) {
		return nil
	}
	return wgmmaExecs.list[i]
}

// WgmmaOperandInfo is a shared-memory operand of a wgmma.mma_async: the
// register holding its descriptor and the operand's shape.
type WgmmaOperandInfo struct {
	Name    string // "a" or "b"
	Slot    int32  // the descriptor's register slot
	Operand isa.WgmmaOperand
}

// WgmmaInfo describes a bound wgmma.mma_async: its form, the register slots
// of D (and of A when A is in registers), and its descriptor operands (B,
// and A when A is not in registers; A first).
type WgmmaInfo struct {
	Form isa.WgmmaForm
	D, A []int32
	// E: the metadata register of a sparse form (wgmma.mma_async.sp), -1
	// otherwise; Sel its sparsity selector.
	E     int32
	Sel   int
	Descs []WgmmaOperandInfo
	// NegA, NegB: imm-scale-a/b are -1.
	NegA, NegB bool
}

// Wgmma describes op when it is a bound wgmma.mma_async.
func (op *Op) Wgmma() (*WgmmaInfo, bool) {
	if op.Code != isa.OpWgmmaMmaAsync || op.Exec == nil {
		return nil, false
	}
	x := wgmmaExecLookup(op.Aux)
	if x == nil {
		return nil, false
	}
	f := x.form
	major := func(bit uint64) isa.WgmmaMajor {
		if op.Imm&bit != 0 {
			return isa.WgmmaMNMajor
		}
		return isa.WgmmaKMajor
	}
	in := &WgmmaInfo{Form: f, D: tensorOperand(op, 0), E: -1, NegA: op.Imm&wgNegA != 0, NegB: op.Imm&wgNegB != 0}
	if f.Sparse {
		in.E, in.Sel = op.E, int(op.Imm>>wgSelShift&3)
	}
	if op.Imm&wgRegA != 0 {
		in.A = tensorOperand(op, 1)
	} else {
		in.Descs = append(in.Descs, WgmmaOperandInfo{Name: "a", Slot: op.A,
			Operand: isa.WgmmaOperand{Major: major(wgTransA), ElemBits: x.elemBits, Rows: 64, K: f.AK()}})
	}
	in.Descs = append(in.Descs, WgmmaOperandInfo{Name: "b", Slot: op.B,
		Operand: isa.WgmmaOperand{Major: major(wgTransB), ElemBits: x.elemBits, Rows: f.N, K: f.K}})
	return in, true
}
