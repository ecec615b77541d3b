package analysis

import (
	"math/bits"

	"github.com/ptxplayground/ptxplay/engine/emu"
	"github.com/ptxplayground/ptxplay/engine/isa"
)

// CTA barriers without per-warp clock joins.
//
// The general rule (Happens-before above) joins every arriving warp's
// clock into the barrier's pending clock and, at the release, the pending
// clock into every released warp's: two passes over the clock per warp
// and barrier. Most barriers are a bar.sync of the whole CTA, between
// which the warps' clocks stay alike, and for them the checker reaches
// the same clocks with far less work:
//
//   - Deferred arrivals. An arrival that waits (bar.sync, bar.red, no
//     thread count) at a barrier whose arrivals so far were all such only
//     sets the warp's bit in barState.arr (and starts the warp's new
//     epoch); the barrier is lazy. A waiting warp executes nothing until
//     it is released, so its clock at the release is its clock at the
//     arrival with its own component one higher: the join the general
//     rule made at the arrival can be made later from it (flush). Any
//     other arrival at a lazy barrier, and any mbarrier or cluster event
//     (which may change a clock), flushes the CTA's lazy barriers first.
//   - Synchronised clocks. ctaState.syncM is a set of warps whose clocks
//     are all syncS except for their own components (a warp's own
//     component is never below any other clock's component for it). A
//     release of a lazy barrier whose arrivals are all in syncM (and are
//     the warps it releases) then leaves every released warp with syncS
//     raised, for each arrived warp x, to x's epoch at its arrival, apart
//     from its own component: the pending clock the general rule would
//     have joined, and the result of joining it into each released warp.
//     The release copies that one clock into each released warp's: no
//     join per warp.
//   - syncM is kept exact: a release along the general rule re-forms it
//     from the released warps whose clocks came out equal to the pending
//     clock apart from their own (checked component by component), and an
//     mbarrier or cluster event empties it. New epochs (arrivals) keep it.
//
// Launches with clusters of more than one CTA (whose clocks span the
// cluster) and a Checker with slowBarriers take the general rule only.

// barrierFast reports whether arrival e at a CTA barrier may be deferred:
// a waiting form (not bar.arrive) without a thread count.
func (c *Checker) barrierFast(e *emu.Event) bool {
	if c.slowBarriers || c.csize != 1 || e.PC < 0 || e.PC >= len(c.prog.Ops) {
		return false
	}
	op := &c.prog.Ops[e.PC]
	return op.Sub != isa.SubArrive && op.B < 0
}

// barrierWaits reports whether the barrier instruction at pc waits (is
// not bar.arrive).
func (c *Checker) barrierWaits(pc int) bool {
	return pc >= 0 && pc < len(c.prog.Ops) && c.prog.Ops[pc].Sub != isa.SubArrive
}

// barrierArrive applies cluster warp w's arrival at CTA barrier e.ID.
func (c *Checker) barrierArrive(cs *ctaState, w int, e *emu.Event) {
	b := &cs.bars[e.ID]
	ws := &cs.warps[w]
	bit := uint64(1) << uint(w-cs.base)
	if (b.lazy || !b.used) && c.barrierFast(e) {
		b.arr |= bit
		b.used, b.lazy = true, true
		ws.vc[w]++
		return
	}
	if b.lazy {
		cs.flushBar(b)
	}
	if b.vc == nil {
		b.vc = make([]uint32, len(ws.vc))
	}
	for i, v := range ws.vc {
		b.vc[i] = max(b.vc[i], v)
	}
	b.used = true
	b.arr |= bit
	if !c.barrierWaits(e.PC) {
		b.nowait = true
	}
	ws.vc[w]++
}

// flushBar makes lazy barrier b's pending clock the join of its arrivals'
// clocks (each arrived warp's clock with its own component back to the
// epoch it arrived in).
func (cs *ctaState) flushBar(b *barState) {
	for m := b.arr; m != 0; m &= m - 1 {
		x := cs.base + bits.TrailingZeros64(m)
		vc := cs.warps[x].vc
		if b.vc == nil {
			b.vc = make([]uint32, len(vc))
		}
		for i, v := range vc {
			if i == x {
				v--
			}
			b.vc[i] = max(b.vc[i], v)
		}
	}
	b.lazy = false
}

// flushBars flushes every lazy barrier of cs and empties syncM: an
// mbarrier or cluster event may change clocks.
func (cs *ctaState) flushBars() {
	for i := range cs.bars {
		if cs.bars[i].lazy {
			cs.flushBar(&cs.bars[i])
		}
	}
	cs.syncM = 0
}

// barrierRelease applies the release of CTA barrier e.ID.
func (c *Checker) barrierRelease(cs *ctaState, e *emu.Event) {
	b := &cs.bars[e.ID]
	if !b.used {
		return
	}
	var rel uint64
	for _, bw := range e.Warps {
		if bw.Warp >= 0 && bw.Warp < c.nwarps {
			rel |= 1 << uint(bw.Warp)
		}
	}
	if b.lazy && rel == b.arr && b.arr&^cs.syncM == 0 {
		s := cs.syncS
		for m := b.arr; m != 0; m &= m - 1 {
			x := cs.base + bits.TrailingZeros64(m)
			s[x] = max(s[x], cs.warps[x].vc[x]-1)
		}
		for m := b.arr; m != 0; m &= m - 1 {
			x := cs.base + bits.TrailingZeros64(m)
			vc := cs.warps[x].vc
			own := vc[x]
			copy(vc, s)
			vc[x] = max(own, s[x])
		}
		cs.syncM = b.arr
		c.fastRel++
	} else {
		c.slowRel++
		if b.lazy {
			cs.flushBar(b)
		}
		// The general rule; the released warps whose clocks come out as
		// the pending clock apart from their own form syncM.
		same := uint64(0)
		for m := rel; m != 0; m &= m - 1 {
			k := bits.TrailingZeros64(m)
			x := cs.base + k
			vc := cs.warps[x].vc
			eq := true
			for i, v := range b.vc {
				if vc[i] < v {
					vc[i] = v
				} else if vc[i] > v && i != x {
					eq = false
				}
			}
			if eq {
				same |= 1 << uint(k)
			}
		}
		cs.syncM &^= rel
		if !c.slowBarriers && c.csize == 1 && same != 0 {
			if cs.syncS == nil {
				cs.syncS = make([]uint32, len(b.vc))
			}
			copy(cs.syncS, b.vc)
			cs.syncM = same
		}
		clear(b.vc)
	}
	b.used, b.lazy, b.nowait, b.arr = false, false, false, 0
	cs.cl.bump()
}
