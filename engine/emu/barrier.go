package emu

import (
	"math/bits"

	"github.com/ptxplayground/ptxplay/engine/isa"
)

// CTA barriers (bar, barrier, bar.red) and the warp barrier
// (bar.warp.sync). A warp that waits at a CTA barrier records a Wait of
// kind WaitBarrier (wait.go); the barrier's release moves its phase on,
// which ends the wait of every warp that arrived in the phase before.

// barrier is one of a CTA's 16 named barriers.
type barrier struct {
	arrived  int // threads arrived
	expected int // 0: every non-exited thread of the CTA
	waiting  []*Warp
	redAnd   bool
	redOr    bool
	redPopc  uint32
	// phase counts the barrier's releases: a warp that arrived in phase p
	// waits until it is p+1.
	phase uint32
}

func bindBar(b *binder) {
	b.Flag(isa.FAligned)
	form := isa.SubSync
	if !b.Flag(isa.FSync) {
		form = b.Sub()
		if form == isa.SubNone {
			b.errorf("expects .sync, .arrive or .red")
			return
		}
	}
	op := b.op
	op.Ctrl = true
	op.Exec = execBar
	op.Sub = form
	switch form {
	case isa.SubSync, isa.SubArrive:
		lo := 1
		if form == isa.SubArrive {
			lo = 2
		}
		if !b.Want(lo, 2) {
			return
		}
		op.A = b.Src(0, isa.U32)
		if b.N() == 2 {
			op.B = b.Src(1, isa.U32)
		}
	case isa.SubRed:
		op.Sub2 = b.Sub()
		t := b.Type()
		switch op.Sub2 {
		case isa.SubPopc:
			if t != isa.U32 {
				b.errorf("bar.red.popc needs .u32")
				return
			}
		case isa.SubAnd, isa.SubOr:
			if t != isa.Pred {
				b.errorf("bar.red.%s needs .pred", op.Sub2)
				return
			}
		default:
			b.errorf("bar.red needs .popc, .and or .or")
			return
		}
		if !b.Want(3, 4) {
			return
		}
		op.D = b.Dst(0, t)
		op.A = b.Src(1, isa.U32)
		if b.N() == 4 {
			op.B = b.Src(2, isa.U32)
		}
		op.C = b.SrcPred(b.N()-1, 2)
	default:
		b.errorf("unknown barrier form .%s", form)
	}
}

func execBar(w *Warp, op *Op, emask uint32) *Fault {
	if emask == 0 {
		w.advance()
		return nil
	}
	lane := firstLane(emask)
	id := w.r(op.A)[lane]
	if id >= 16 {
		return w.faultAll(FaultIllegal, emask, "barrier id %d out of range (0-15)", id)
	}
	cnt := 0
	if op.B >= 0 {
		c := w.r(op.B)[lane] & 0xffffffff
		if c == 0 || c%32 != 0 || c > MaxBlockThreads {
			return w.faultAll(FaultIllegal, emask, "barrier thread count %d must be a positive multiple of 32 (at most %d)", c, MaxBlockThreads)
		}
		cnt = int(c)
	}
	c := w.cta
	bar := &c.bars[id]
	if bar.arrived == 0 {
		bar.redAnd, bar.redOr, bar.redPopc = true, false, 0
	}
	if cnt > 0 {
		bar.expected = cnt
	}
	bar.arrived += bits.OnesCount32(w.valid &^ w.exited)
	if op.Sub == isa.SubRed {
		p := w.preds[op.C]
		if op.Neg&4 != 0 {
			p = ^p
		}
		p &= emask
		bar.redPopc += uint32(bits.OnesCount32(p))
		bar.redAnd = bar.redAnd && p == emask
		bar.redOr = bar.redOr || p != 0
	}
	act := w.activeMask() | w.m.syncGroup // with the groups that arrived together
	w.advance()
	if op.Sub != isa.SubArrive && w.State == WarpReady {
		// The warp waits at the barrier: its stack already holds where it
		// continues, but it reports the barrier's pc and active lanes
		// (PC, Active) until it is released.
		w.State = WarpWaiting
		// Field by field: the other fields are zero (wake clears them),
		// and a barrier is a hot path.
		t := &w.wait
		t.Kind, t.PC, t.Lanes, t.Barrier, t.Count, t.phase, t.op = WaitBarrier, w.m.curPC, act, int(id), cnt, bar.phase, op
		bar.waiting = append(bar.waiting, w)
	}
	if w.m.obsEvents {
		exp := bar.expected
		if exp == 0 {
			exp = c.liveThreads()
		}
		w.m.event(Event{Kind: EvBarrierArrive, PC: w.m.curPC, ID: int(id), Count: bar.arrived, Expected: exp, Mask: w.valid &^ w.exited})
	}
	w.m.checkBarrier(c, int(id))
	return nil
}

// barrierWarpsBlock is how many BarrierWarp entries barrierWarps takes
// from one allocation.
const barrierWarpsBlock = 512

// barrierWarps returns an empty slice with room for n entries for an
// event's Warps: a piece of a block shared by several events, each piece
// its own (capped at n, so that an append past it copies), which the
// event's receivers may keep. One allocation serves many barrier
// releases (the entries hold no pointers, so the garbage collector does
// not scan them).
func (m *Machine) barrierWarps(n int) []BarrierWarp {
	if n > barrierWarpsBlock/4 {
		return make([]BarrierWarp, 0, n)
	}
	b := m.bwBlock
	if cap(b)-len(b) < n {
		b = make([]BarrierWarp, 0, barrierWarpsBlock)
	}
	k := len(b)
	m.bwBlock = b[:k+n]
	return b[k : k : k+n]
}

// checkBarrier releases barrier id of c once enough threads arrived.
func (m *Machine) checkBarrier(c *CTA, id int) {
	bar := &c.bars[id]
	exp := bar.expected
	if exp == 0 {
		exp = c.liveThreads()
	}
	if bar.arrived < exp {
		return
	}
	m.forgetQuiet(c) // warps go on past the barrier
	if m.sf.on {
		m.sfRelease(c)
	}
	var ev Event
	if m.obsEvents {
		ev = Event{Kind: EvBarrierRelease, PC: m.curPC, ID: id, Count: bar.arrived, Expected: exp}
		ev.Warps = m.barrierWarps(len(bar.waiting))
		for _, w := range bar.waiting {
			lanes := w.valid &^ w.exited
			ev.Warps = append(ev.Warps, BarrierWarp{CTA: c.Idx, Warp: w.ID, Barrier: id, PC: w.wait.PC, Lanes: lanes})
			if w == m.cur {
				ev.Mask = lanes
			}
		}
	}
	phase := bar.phase + 1
	for _, w := range bar.waiting {
		if op := w.wait.op; op != nil && op.Sub == isa.SubRed {
			switch op.Sub2 {
			case isa.SubPopc:
				r := w.r(op.D)
				for l := range r {
					r[l] = uint64(bar.redPopc)
				}
			case isa.SubAnd:
				w.preds[op.D] = 0
				if bar.redAnd {
					w.preds[op.D] = ^uint32(0)
				}
			case isa.SubOr:
				w.preds[op.D] = 0
				if bar.redOr {
					w.preds[op.D] = ^uint32(0)
				}
			}
		}
		w.wake()
	}
	if m.collect {
		m.relWarps = append(m.relWarps, bar.waiting...)
	}
	*bar = barrier{waiting: bar.waiting[:0], phase: phase}
	m.released = true
	if m.obsEvents {
		m.event(ev)
	}
}

func bindBarWarpSync(b *binder) {
	if !b.Want(1, 1) {
		return
	}
	b.op.A = b.Src(0, isa.B32)
	b.op.Exec = execBarWarpSync
}

// execBarWarpSync: under independent scheduling the lanes of membermask
// execute it together (the scheduler makes a group wait for the others,
// see syncJoin), so only the membermask rules remain; under the SIMT stack
// it is a no-op.
func execBarWarpSync(w *Warp, op *Op, mask uint32) *Fault {
	if !w.m.indep {
		return nil
	}
	return warpMembersOf(w, op, op.A, mask, nil)
}
