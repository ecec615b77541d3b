package emu

import (
	"github.com/ptxplayground/ptxplay/engine/ptx"
)

// The register file of a launch.
//
// Instructions name value registers by their module-wide slot (an index in
// Program.Regs), but a machine stores only the registers its kernel can
// use: the used registers (RegInfo.Used) of the functions reachable from
// the kernel, and the special registers. They are numbered densely into
// per-warp *rows* of 32 lanes; row 0 is a spare row that every slot without
// storage of its own maps to (it stays zero). Immediates have no per-warp
// storage at all: their slots map to the program's read-only rows.
//
// regFile.slot maps a module slot to its row: r >= 0 is row r of the warp's
// storage, r < 0 is row ^r of Program.constRows. The map is built once per
// machine and shared by its warps (Warp.slot), so fetching an operand is
// one load from the map and a branch, outside the lane loops (Warp.r).
//
// Predicates keep their module-wide slots: one uint32 per slot per warp.
type regFile struct {
	slot  []int32 // module value slot → row (see above)
	rows  int     // rows of value storage per warp (row 0 included)
	reach []bool  // per function (Program.Funcs): reachable from the kernel
	// frame[i] is the range of rows of function i (its used registers),
	// saved and restored when a call re-enters it.
	frame []rowRange
}

type rowRange struct{ lo, hi int32 }

// reachable returns the functions reachable from entry: through direct
// calls, and through indirect calls to every function whose address the
// module takes (all functions, if an indirect call exists and no address
// is taken anywhere, which can then only fault).
func reachable(p *Program, entry *Function) []bool {
	reach := make([]bool, len(p.Funcs))
	var addrTaken []*Function
	for _, f := range p.Funcs {
		if f.AddrTaken {
			addrTaken = append(addrTaken, f)
		}
	}
	indirect := false
	stack := []*Function{entry}
	reach[entry.index] = true
	for len(stack) > 0 {
		f := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for pc := f.Entry; pc < f.End && pc < len(p.Ops); pc++ {
			op := &p.Ops[pc]
			if op.Eff.Has(EffCall) && int(op.Aux) >= 0 && int(op.Aux) < len(p.Calls) {
				callees := []*Function{p.Calls[op.Aux].Callee}
				if callees[0] == nil {
					if indirect {
						continue
					}
					indirect = true
					callees = addrTaken
					if len(callees) == 0 {
						callees = p.Funcs
					}
				}
				for _, g := range callees {
					if !reach[g.index] && g.Kind != ptx.KindEntry {
						reach[g.index] = true
						stack = append(stack, g)
					}
				}
			}
		}
	}
	return reach
}

// newRegFile lays out the register file of a launch of entry.
func newRegFile(p *Program, entry *Function) *regFile {
	rf := &regFile{slot: make([]int32, len(p.Regs)), reach: reachable(p, entry), frame: make([]rowRange, len(p.Funcs)), rows: 1}
	stored := make([]bool, len(p.Regs))
	for i, r := range p.Regs {
		stored[i] = r.Used && (r.Func < 0 || int(r.Func) < len(rf.reach) && rf.reach[r.Func])
	}
	// Registers a call writes or reads on its own (parameters, arguments
	// and results) need storage even if no instruction names them.
	mark := func(reg int32, count int, pred bool) {
		if reg < 0 || pred {
			return
		}
		for k := int32(0); k < int32(max(count, 1)); k++ {
			if r := reg + k; int(r) < len(stored) {
				stored[r] = true
			}
		}
	}
	for i, f := range p.Funcs {
		if !rf.reach[i] {
			continue
		}
		for _, q := range f.Params {
			mark(q.Reg, q.Count, q.Pred)
		}
		for _, q := range f.Rets {
			mark(q.Reg, q.Count, q.Pred)
		}
		for pc := f.Entry; pc < f.End && pc < len(p.Ops); pc++ {
			if op := &p.Ops[pc]; op.Eff.Has(EffCall) && int(op.Aux) >= 0 && int(op.Aux) < len(p.Calls) {
				ci := &p.Calls[op.Aux]
				mark(ci.Indirect, 1, false)
				for _, a := range ci.Args {
					mark(a.Reg, a.Count, a.Pred)
				}
				for _, a := range ci.Rets {
					mark(a.Reg, a.Count, a.Pred)
				}
			}
		}
	}
	for _, k := range p.Consts {
		stored[k.Reg] = false
	}
	// Module-scope slots (special registers) first, then each function's
	// registers in slot order, so that a function's rows are contiguous.
	for i, r := range p.Regs {
		if stored[i] && r.Func < 0 {
			rf.slot[i] = int32(rf.rows)
			rf.rows++
		}
	}
	for i := range rf.frame {
		rf.frame[i] = rowRange{int32(rf.rows), int32(rf.rows)}
	}
	for i, r := range p.Regs {
		if stored[i] && r.Func >= 0 {
			fr := &rf.frame[r.Func]
			if fr.lo == fr.hi {
				fr.lo = int32(rf.rows)
			}
			rf.slot[i] = int32(rf.rows)
			rf.rows++
			fr.hi = int32(rf.rows)
		}
	}
	for j, k := range p.Consts {
		rf.slot[k.Reg] = ^int32(j)
	}
	return rf
}

// bindRegs gives w the machine's slot map and the program's constant rows.
func (m *Machine) bindRegs(w *Warp) {
	w.slot, w.konst = m.rf.slot, m.prog.constRows
}

// RegisterRows returns the number of value-register rows (32 lanes of 8
// bytes each) every warp of the launch stores: the used registers of the
// functions reachable from the kernel, the special registers, and one
// spare row. Immediates take none.
func (m *Machine) RegisterRows() int { return m.rf.rows }

// WarpRegisterBytes returns the bytes of register storage of one warp:
// its value rows and its predicates.
func (m *Machine) WarpRegisterBytes() int64 {
	return int64(m.rf.rows)*32*8 + int64(len(m.prog.Preds))*4
}

// FixedStateBytes estimates the state of the launch's resident CTAs that
// their shape fixes: per warp its register storage and a fixed overhead,
// per CTA its shared and local memory (the dynamic state, call frames and
// cp.async copies in flight, is DynamicStateBytes).
func (m *Machine) FixedStateBytes() int64 {
	b := m.cfg.Block
	threads := int64(b[0]) * int64(b[1]) * int64(b[2])
	warps := (threads + 31) / 32
	per := warps*(m.WarpRegisterBytes()+256) +
		int64(m.prog.DynSharedBase+m.cfg.DynamicSharedBytes) + int64(m.prog.LocalSize)*threads
	return per * int64(min(m.cfg.ResidentCTAs, m.numCTAs))
}

// Reachable reports whether the launch's kernel can reach fn (the kernel
// itself, or a function it may call directly or indirectly). Registers of
// functions it cannot reach have no storage (Warp.Reg reads zero).
func (m *Machine) Reachable(fn *Function) bool {
	return fn != nil && int(fn.index) < len(m.rf.reach) && m.prog.Funcs[fn.index] == fn && m.rf.reach[fn.index]
}
