package emu

import (
	"fmt"

	"github.com/ptxplayground/ptxplay/engine/isa"
)

// setmaxnreg and griddepcontrol: instructions of warp-specialised Hopper
// kernels that change nothing the emulator models, checked for the rules
// the PTX ISA gives them.
//
// setmaxnreg.{inc,dec}.sync.aligned.u32 N asks for a new per-thread
// register count. The emulator's registers are not limited (a kernel's
// registers are whatever it declares), so the count only is checked: N is
// a multiple of 8 in 24..256 (at lowering), .inc never lowers and .dec
// never raises the count the warp last set, every thread of the warp
// executes it together (.aligned), and the same setmaxnreg is executed by
// all warps of the warpgroup, which synchronise before the next one. What
// the ISA leaves undefined faults.
//
// griddepcontrol.launch_dependents and griddepcontrol.wait control
// programmatic dependent launch between a kernel and the grids launched
// after it; a launch of one grid has no prerequisite grid and no
// dependent, so both are no-ops.

func init() {
	binders[isa.OpSetmaxnreg] = bindSetmaxnreg
	binders[isa.OpGriddepcontrol] = bindGriddepcontrol
}

// Register counts setmaxnreg accepts.
const (
	SetmaxnregMin  = 24
	SetmaxnregMax  = 256
	SetmaxnregStep = 8
)

// smnState is what a warp keeps of its setmaxnreg instructions: how many
// it executed, the pc of the last and the register count it set (0 before
// the first: the launch's count is not known).
type smnState struct {
	count int32
	pc    int32
	regs  int32
}

func bindSetmaxnreg(b *binder) {
	sub := b.Sub()
	sync, aligned := b.Flag(isa.FSync), b.Flag(isa.FAligned)
	t := b.Type()
	switch {
	case sub != isa.SubInc && sub != isa.SubDec:
		b.errorf("needs .inc or .dec")
		return
	case !sync || !aligned:
		b.errorf("needs .sync.aligned (setmaxnreg.%s.sync.aligned.u32 N)", sub)
		return
	case t != isa.U32:
		b.errorf("needs .u32")
		return
	}
	if !b.Want(1, 1) {
		return
	}
	v, ok := b.Imm(0)
	if !ok {
		b.operr(0, "the register count must be a constant")
		return
	}
	if v.Int < SetmaxnregMin || v.Int > SetmaxnregMax || v.Int%SetmaxnregStep != 0 {
		b.operr(0, "register count %d: must be a multiple of %d from %d to %d", v.Int, SetmaxnregStep, SetmaxnregMin, SetmaxnregMax)
		return
	}
	b.op.Sub = sub
	b.op.Imm = uint64(v.Int)
	b.op.Flags = b.op.Flags.With(isa.FAligned)
	b.op.Exec = execSetmaxnreg
}

func execSetmaxnreg(w *Warp, op *Op, emask uint32) *Fault {
	if emask == 0 {
		return nil
	}
	n := int32(op.Imm)
	name := fmt.Sprintf("setmaxnreg.%s.sync.aligned.u32 %d", op.Sub, n)
	if live := w.valid &^ w.exited; emask != live {
		return w.faultAll(FaultDivergentAligned, emask, "%s is executed by lanes %08x of the warp's live lanes %08x: .aligned needs every thread of the warp to execute it together", name, emask, live)
	}
	g := w.cta.Warpgroup(w.Warpgroup())
	if len(g) < WarpgroupSize {
		return w.faultAll(FaultIllegal, emask, "%s: warp %d is in warpgroup %d, which has %d warp(s) (the CTA has %d): setmaxnreg is executed by all 4 warps of a warpgroup", name, w.ID, w.Warpgroup(), len(g), len(w.cta.Warps))
	}
	s := &w.smn
	switch {
	case s.regs > 0 && op.Sub == isa.SubInc && n < s.regs:
		return w.faultAll(FaultIllegal, emask, "%s would lower the warp's register count from %d (setmaxnreg.inc only raises it)", name, s.regs)
	case s.regs > 0 && op.Sub == isa.SubDec && n > s.regs:
		return w.faultAll(FaultIllegal, emask, "%s would raise the warp's register count from %d (setmaxnreg.dec only lowers it)", name, s.regs)
	}
	k := s.count + 1 // this is the warp's k-th setmaxnreg
	pc := int32(w.m.curPC)
	for _, v := range g {
		if v == w {
			continue
		}
		p := v.smn
		switch {
		case p.count == k && p.pc != pc:
			return w.faultAll(FaultIllegal, emask, "%s at pc %d: warp %d of the same warpgroup executed the setmaxnreg at pc %d instead (all warps of a warpgroup execute the same setmaxnreg)", name, pc, v.ID, p.pc)
		case p.count < k-1:
			return w.faultAll(FaultIllegal, emask, "%s: warp %d of the same warpgroup has not executed the previous setmaxnreg (pc %d) yet: the warps of a warpgroup synchronise after a setmaxnreg before the next", name, v.ID, s.pc)
		case p.count < k && v.State == WarpExited:
			return w.faultAll(FaultIllegal, emask, "%s: warp %d of the same warpgroup exited without executing it (all warps of a warpgroup execute the same setmaxnreg)", name, v.ID)
		}
	}
	s.count, s.pc, s.regs = k, pc, n
	return nil
}

// setmaxnregExit faults when the warp's last lanes exit (emask) before it
// executed a setmaxnreg that another warp of its warpgroup executed.
func (w *Warp) setmaxnregExit(emask uint32) *Fault {
	if (w.valid&^w.exited)&^emask != 0 {
		return nil // lanes remain
	}
	for _, v := range w.cta.Warpgroup(w.Warpgroup()) {
		if v != w && v.smn.count > w.smn.count {
			return w.faultAll(FaultIllegal, emask, "warp %d exits without executing the setmaxnreg at pc %d that warp %d of its warpgroup executed (all warps of a warpgroup execute the same setmaxnreg)", w.ID, v.smn.pc, v.ID)
		}
	}
	return nil
}

func bindGriddepcontrol(b *binder) {
	launch := b.Hint("launch_dependents")
	wait := b.Sub() == isa.SubWait
	if launch == wait {
		b.errorf("needs .launch_dependents or .wait")
		return
	}
	if !b.Want(0, 0) {
		return
	}
	b.op.Exec = execNop
}
