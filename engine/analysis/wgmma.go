package analysis

import (
	"math/bits"

	"github.com/ptxplayground/ptxplay/engine/emu"
	"github.com/ptxplayground/ptxplay/engine/isa"
)

// The register rules of wgmma (PTX ISA §9.7.15.5.1 and "wgmma.fence").
//
// An mma_async reads its A registers and its accumulator, and writes the
// accumulator, asynchronously: until a wgmma.wait_group waits for the
// wgmma-group holding it, any other instruction that reads or writes
// those registers is undefined behaviour (WarnWgmmaInFlight). The one
// exception is the accumulator of another mma_async with the same
// accumulator registers (the chain a K loop issues without waits), which
// the hardware orders. And an mma_async reads its registers at some time
// after it is issued: a register write to its accumulator or A registers
// must be followed by a wgmma.fence before the mma_async that reads them
// (WarnWgmmaFence; the accumulator written by an earlier mma_async of
// the chain needs none). The emulator gives a defined result in both
// cases (the accumulator keeps its old value until the wait_group; an
// mma_async reads its registers when it is issued), so these are the
// checker's warnings, not faults; an mma_async with no wgmma.fence at all
// before it faults in the emulator.
//
// The checker follows each warp's wgmma instructions and every other
// instruction's register operands (emu.Program.Operands) in program
// order: a Checker on a program with an mma_async asks for every step
// (ObserveEveryStep). Per warp it keeps the registers in flight (the
// mma_async that uses them, as accumulator or A, and its wgmma-group) and
// the registers written since the warp's last wgmma.fence. An
// instruction counts when some lane executes it (ExecMask); the thread a
// warning names is its first such lane.

// wgReg is a register an mma_async in flight uses.
type wgReg struct {
	pc    int32  // the mma_async
	group uint32 // its wgmma-group
	acc   bool   // as its accumulator (else as A)
}

// wgWarp is a warp's wgmma state.
type wgWarp struct {
	committed uint32
	flight    map[int32]wgReg
	// written: the registers written since the last wgmma.fence, by the
	// instruction at pc by lane.
	written map[int32]wgWrite
}

type wgWrite struct {
	pc   int32
	lane uint8
}

// hasWgmma reports whether prog has a wgmma.mma_async.
func hasWgmma(prog *emu.Program) bool {
	for i := range prog.Ops {
		if prog.Ops[i].Code == isa.OpWgmmaMmaAsync {
			return true
		}
	}
	return false
}

// wgmmaStep follows cluster warp w's instruction in (which ran without a
// fault) for the register rules.
func (c *Checker) wgmmaStep(cs *ctaState, w int, in *emu.StepInfo) {
	key := [2]int{in.CTALin, in.Warp}
	st := c.wgw[key]
	if st == nil {
		st = &wgWarp{flight: map[int32]wgReg{}, written: map[int32]wgWrite{}}
		c.wgw[key] = st
	}
	defer func() {
		if cs.warps[w].live == 0 {
			delete(c.wgw, key) // the warp has exited
		}
	}()
	if in.ExecMask == 0 || in.PC < 0 || in.PC >= len(c.prog.Ops) {
		return
	}
	lane := bits.TrailingZeros32(in.ExecMask)
	me := c.thread(cs, w, lane)
	op := &c.prog.Ops[in.PC]
	switch op.Code {
	case isa.OpWgmmaFence:
		clear(st.written)
		return
	case isa.OpWgmmaCommitGroup:
		st.committed++
		return
	case isa.OpWgmmaWaitGroup:
		for r, f := range st.flight {
			if int64(f.group)+int64(op.Imm) < int64(st.committed) {
				delete(st.flight, r)
			}
		}
		return
	case isa.OpWgmmaMmaAsync:
		acc, a, ok := c.prog.WgmmaRegs(in.PC)
		if !ok {
			return
		}
		use := func(r int32, asAcc bool) {
			if f, ok := st.flight[r]; ok && !(asAcc && f.acc && c.sameAcc(int(f.pc), acc)) {
				c.warnReg(WarnWgmmaInFlight, in.PC, me, int(f.pc), me, r)
			}
			if x, ok := st.written[r]; ok {
				c.warnReg(WarnWgmmaFence, in.PC, me, int(x.pc), c.thread(cs, w, int(x.lane)), r)
			}
		}
		for _, r := range acc {
			use(r, true)
		}
		for _, r := range a {
			use(r, false)
		}
		for _, r := range a {
			st.flight[r] = wgReg{pc: int32(in.PC), group: st.committed}
		}
		for _, r := range acc {
			st.flight[r] = wgReg{pc: int32(in.PC), group: st.committed, acc: true}
		}
		return
	}
	if op.Eff.Any(emu.EffExit | emu.EffReturn) {
		return // an exit lands what is in flight; a return reads nothing of it
	}
	if in.PC >= len(c.prog.Operands) {
		return
	}
	for _, o := range c.prog.Operands[in.PC] {
		if o.Pred {
			continue
		}
		if f, ok := st.flight[o.Slot]; ok {
			c.warnReg(WarnWgmmaInFlight, in.PC, me, int(f.pc), me, o.Slot)
		}
		if o.Def {
			st.written[o.Slot] = wgWrite{pc: int32(in.PC), lane: uint8(lane)}
		}
	}
}

// sameAcc reports whether the mma_async at pc has accumulator acc (the
// same registers in the same order: the chain the ISA exempts).
func (c *Checker) sameAcc(pc int, acc []int32) bool {
	b, _, ok := c.prog.WgmmaRegs(pc)
	if !ok || len(b) != len(acc) {
		return false
	}
	for i := range b {
		if b[i] != acc[i] {
			return false
		}
	}
	return true
}

// warnReg warns of kind k about register slot r (named in the message).
func (c *Checker) warnReg(k WarningKind, pc int, t Thread, prevPC int, pt Thread, r int32) {
	c.warn(k, isa.Reg, pc, t, prevPC, pt, 0)
	if i, ok := c.index[warnKey{k, pc, prevPC}]; ok && c.warns[i].w.Register == "" && int(r) < len(c.prog.Regs) {
		c.warns[i].w.Register = c.prog.Regs[r].Name
	}
}
