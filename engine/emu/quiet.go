package emu

import (
	"github.com/ptxplayground/ptxplay/engine/isa"
	"github.com/ptxplayground/ptxplay/engine/ptx"
)

// Shared-memory loads in leads.
//
// A load from shared memory is not register-only: another warp of the CTA
// may write the location between the load's lead and its turn. But a CTA
// spends long stretches in which no warp can write shared memory at all,
// e.g. a tiled kernel's inner product between the two bar.sync of a tile.
// In such a stretch the CTA is *quiet*, its shared memory is constant
// until a barrier of the CTA completes, and a shared-memory load reads the
// same bytes at any turn before that: a lead may run it.
//
// Program.quiet[pc] says that from Ops[pc] no instruction that may write
// shared memory is reachable before a CTA-wide barrier: following the
// fall-through and branch targets within the function, every path either
// ends (exit, or ret of a kernel) or reaches a bar.sync/barrier.sync
// without a thread count (all the CTA's threads must arrive there) before
// anything other than register-only instructions, loads, and stores to
// global, local or parameter space. Anything else (shared or generic
// stores, atomics and reductions, cp.async and its waits, barriers with a
// count, bar.arrive and bar.red, warp-synchronous and tensor-core
// instructions, calls, indirect branches, ret of a function) counts as a
// possible write.
//
// A CTA is quiet when every lane that has not exited is at a quiet pc
// (every entry of every warp's stack, no call in progress, no cp.async
// pending, which would land at an exit) or waits at a CTA-wide barrier.
// Quiet pcs only lead to quiet pcs until a barrier is passed, so a quiet
// CTA stays quiet until one of its barriers completes (checkBarrier
// forgets it then). A warp's shared load that a lead runs early precedes
// its own arrival at the next barrier, hence the completion of that
// barrier and every write after it: the load reads what it reads at its
// turn.
//
// CTA.quiet caches the answer: quietYes until a barrier of the CTA
// completes; quietNo is recomputed only once the launch has issued
// another round of instructions, so a CTA that is not quiet costs a
// lead little.

const (
	quietUnknown int8 = iota
	quietYes
	quietNo
)

// quietPCs computes Program.quiet: see above.
func quietPCs(p *Program) []bool {
	ops := p.Ops
	q := make([]bool, len(ops))
	// kind: 0 an instruction that cannot write shared memory, 1 one that
	// may, 2 a CTA-wide barrier, 3 the end of the thread.
	kind := make([]uint8, len(ops))
	inFunc := make([]bool, len(ops))
	for _, f := range p.Funcs {
		if !f.HasBody {
			continue
		}
		entry := f.Kind == ptx.KindEntry
		for pc := f.Entry; pc < f.End && pc < len(ops); pc++ {
			inFunc[pc] = true
			kind[pc] = quietKind(&ops[pc], entry)
			q[pc] = kind[pc] != 1
		}
	}
	// Greatest fixed point: a pc is quiet when it is not a write and, unless
	// it ends the path, everything it can go to next is quiet.
	for changed := true; changed; {
		changed = false
		for pc := len(ops) - 1; pc >= 0; pc-- {
			if !q[pc] || kind[pc] != 0 {
				continue
			}
			op := &ops[pc]
			ok := true
			if flowKind(op) == flowJump {
				t := int(op.Target)
				ok = t >= 0 && t < len(ops) && inFunc[t] && q[t]
				if ok && op.Guard >= 0 {
					ok = pc+1 < len(ops) && inFunc[pc+1] && q[pc+1]
				}
			} else {
				ok = pc+1 < len(ops) && inFunc[pc+1] && q[pc+1]
			}
			if !ok {
				q[pc] = false
				changed = true
			}
		}
	}
	return q
}

// quietKind classifies op for quietPCs from its effects: 0 when it
// writes no shared memory and goes on to the next instruction (or
// branches), 1 when it may write shared memory or its path leaves what
// the analysis follows, 2 for a barrier that waits for the whole CTA, 3
// for the end of the kernel. A guarded exit or full barrier is 0: lanes
// whose guard is false go on to the next instruction (past the barrier
// without waiting), so it is no end of the path.
func quietKind(op *Op, entry bool) uint8 {
	e := op.Eff
	if op.Exec == nil || e.Any(EffFault|EffDynamic) {
		return 1
	}
	var k uint8
	switch {
	case e.Has(EffExit), e.Has(EffReturn) && entry:
		k = 3
	case e.Has(EffFullBarrier):
		k = 2
	case e&^EffCtrl == EffBranch, e&^quietSafe == 0:
		return 0
	default:
		return 1
	}
	if op.Guard >= 0 {
		return 0
	}
	return k
}

// quietSafe are the effects of an instruction that writes no shared
// memory: register-only work, per-lane loads from any space and per-lane
// stores to global and thread-private memory.
const quietSafe = EffRegs | EffAccess | EffReadMem | EffWriteGlobal | EffWriteLocal

// sharedLoads marks the loads from the CTA's shared memory that a
// lead may run in a quiet CTA: those at quiet pcs (a warp at any other pc
// makes its CTA not quiet).
func sharedLoads(ops []Op, quiet []bool) []bool {
	s := make([]bool, len(ops))
	for pc := range ops {
		s[pc] = quiet[pc] && sharedLoad(&ops[pc])
	}
	return s
}

// sharedLoad reports whether op is a per-lane load from the CTA's shared
// memory and nothing else.
func sharedLoad(op *Op) bool {
	return op.Exec != nil && op.Eff == EffAccess|EffReadShared && (op.D >= 0 || len(op.Regs) > 0) && op.Type.Size() > 0
}

// runKinds returns Program.runKind: Program.lead with the shared-memory
// loads at quiet pcs marked leadShared, the warp-level instructions
// leadLocal and the starts of runs of register-only instructions
// leadStraight (batch.go; pure is Program.pure).
func runKinds(ops []Op, lead []leadKind, sharedLd []bool, pure []uint8) []leadKind {
	k := append([]leadKind(nil), lead...)
	for pc := range k {
		if k[pc] == leadPure && pure[pc] >= 3 {
			k[pc] = leadStraight
		}
		if k[pc] != leadStop {
			continue
		}
		switch {
		case sharedLd[pc]:
			k[pc] = leadShared
		case warpLocal(&ops[pc]):
			k[pc] = leadLocal
		}
	}
	return k
}

// warpLocal reports whether op is a warp-level instruction that reads and
// writes only its own warp's registers, predicates and lanes: the
// warp-level family, bar.warp.sync, and the tensor-core instructions that
// work on registers alone (mma, wmma.mma, movmatrix).
func warpLocal(op *Op) bool {
	return op.Exec != nil && op.Eff.Has(EffWarp) && op.Eff&^(EffWarp|EffWarpSync|EffAligned) == 0
}

// ctaQuiet reports whether c is quiet (see above), from its cache when it
// can.
func (m *Machine) ctaQuiet(c *CTA) bool {
	switch c.quiet {
	case quietYes:
		return true
	case quietNo:
		if m.stats.WarpInstructions < c.quietRetry {
			return false
		}
	}
	if m.quietNow(c) {
		c.quiet = quietYes
		return true
	}
	c.quiet = quietNo
	c.quietRetry = m.stats.WarpInstructions + int64(len(m.warps))
	return false
}

// quietNow computes whether c is quiet. In a cluster of several CTAs its
// peers may write its shared memory (.shared::cluster), so it is quiet
// only when they are too: a quiet pc reaches no write of any shared
// memory before a CTA-wide barrier, and the completion of any barrier of
// the cluster forgets the answer of every CTA in it (forgetQuiet).
func (m *Machine) quietNow(c *CTA) bool {
	if cl := c.cluster; cl != nil && len(cl.CTAs) > 1 && m.prog.remoteShared {
		for _, p := range cl.CTAs {
			if !m.quietOwn(p) {
				return false
			}
		}
		return true
	}
	return m.quietOwn(c)
}

// forgetQuiet forgets whether c is quiet, and its cluster's peers (which
// may write its shared memory) whether they are.
func (m *Machine) forgetQuiet(c *CTA) {
	c.quiet = quietUnknown
	if cl := c.cluster; cl != nil && len(cl.CTAs) > 1 {
		for _, p := range cl.CTAs {
			p.quiet = quietUnknown
		}
	}
}

// quietOwn computes whether the warps of c are all at quiet pcs or wait
// at a CTA-wide barrier.
func (m *Machine) quietOwn(c *CTA) bool {
	q := m.prog.quiet
	for _, w := range c.Warps {
		switch w.State {
		case WarpExited:
			continue
		case WarpWaiting:
			// Waiting at a barrier that needs every thread of the CTA:
			// it goes on only when that barrier completes.
			if t := &w.wait; t.Kind == WaitBarrier && t.op != nil && t.op.Sub == isa.SubSync && t.op.B < 0 {
				continue
			}
		case WarpReady:
		default:
			return false
		}
		if len(w.frames) > 0 || w.cta.async.inFlight(w.ID) > 0 {
			return false
		}
		for i := range w.stack {
			e := &w.stack[i]
			if e.Mask == 0 {
				continue
			}
			if e.call || e.PC < 0 || int(e.PC) >= len(q) || !q[e.PC] {
				return false
			}
		}
	}
	return true
}
