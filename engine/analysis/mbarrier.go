package analysis

import (
	"math/bits"

	"github.com/ptxplayground/ptxplay/engine/emu"
	"github.com/ptxplayground/ptxplay/engine/isa"
)

// mbarriers and the asynchronous proxy in the checker.
//
// An mbarrier orders like a barrier whose arrivals and waits are
// separate instructions: a release arrive (mbarrier.arrive{_drop}, not
// .relaxed; cp.async.mbarrier.arrive) and a complete_tx instruction join
// the thread's warp's clock into the object's pending clock for its
// current phase (EvMbarrierArrive, EvMbarrierCompleteTx) and start a new
// epoch; the phase's completion (EvMbarrierComplete) makes that clock the
// one its waits acquire: the warps it wakes (try_wait) join it, and so
// does a wait that finds the phase completed (EvMbarrierWait: test_wait
// or try_wait returning true, not .relaxed). A successful wait always
// observes the last completed phase (the ISA's parity rule), so one
// released clock per object is enough.
//
// The asynchronous proxy is one more agent of the cluster, with its own
// clock component (clusterState.agent). An asynchronous copy's writes
// (emu.Access.Async stores) are checked with the issuing warp's clock
// (the copy is ordered after what the issuer did before it) and recorded
// as the agent's, in its current epoch; a complete_tx that the copy
// performs (EvMbarrierCompleteTx with Async) releases the agent's epoch
// (not the issuing thread's generic accesses) to the phase's waiters. So
// a generic read of the copy's bytes, by any thread and the issuing one
// included, is ordered after the write only through a wait on the phase
// the copy completed; otherwise it is WarnAsyncWriteRead. An asynchronous
// read (an emu.Access.Async load: a copy's shared-memory source, or a
// wgmma.mma_async's A or B operand read through its descriptor) must be
// ordered after the generic write of the bytes as any read is, and in
// addition the writing thread must have executed fence.proxy.async after
// its write (EvProxyFence; warpState.pfence); otherwise it is
// WarnProxyFence. The fence is looked for anywhere in the writing thread
// between its write and the copy's read (not only before the
// synchronisation that orders them). Asynchronous reads are not recorded:
// the completion of a copy's reads (cp.async.bulk.wait_group.read) is not
// followed, so a generic write over a copy's source is not checked
// against the copy.

// who returns the cluster warp that made r: for the asynchronous proxy's
// records, the warp that issued the copy (kept in r.step, plus one).
func (cs *ctaState) who(r *rec) int {
	if r.warp == cs.cl.agent {
		return int(r.step) - 1
	}
	return int(r.warp)
}

// mbarOp reports whether the instruction at pc is an mbarrier
// instruction (whose accesses of mbarrier bytes are its own business).
func (c *Checker) mbarOp(pc int) bool {
	if pc < 0 || pc >= len(c.prog.Ops) {
		return false
	}
	switch c.prog.Ops[pc].Code {
	case isa.OpMbarrierInit, isa.OpMbarrierInval, isa.OpMbarrierArrive, isa.OpMbarrierArriveDrop,
		isa.OpMbarrierExpectTx, isa.OpMbarrierCompleteTx, isa.OpMbarrierTestWait, isa.OpMbarrierTryWait,
		isa.OpCpAsyncMbarrierArrive:
		return true
	}
	return false
}

// mbarPlain warns of each lane's ordinary access of an initialised
// mbarrier's bytes in cs's shared memory.
func (c *Checker) mbarPlain(cs *ctaState, w int, in *emu.StepInfo, a *emu.Access) {
	size := uint64(a.Size)
	for m := a.Lanes; m != 0; m &= m - 1 {
		lane := bits.TrailingZeros32(m)
		off := a.Addr[lane]
		if off+size < off {
			continue
		}
		for o := off &^ 7; o < off+size; o += 8 {
			if mi, ok := cs.mbar[o]; ok {
				c.warn(WarnMbarrierPlain, isa.Shared, in.PC, c.thread(cs, w, lane), int(mi.pc), c.thread(cs, int(mi.warp), int(mi.lane)), o)
				break
			}
		}
	}
}

// asyncShared checks and records an asynchronous-proxy access of cs's
// shared memory made for cluster warp w's copy (see above).
func (c *Checker) asyncShared(cs *ctaState, w int, in *emu.StepInfo, a *emu.Access) {
	size := uint64(a.Size)
	if size == 0 {
		return
	}
	cl := cs.cl
	ws := &cs.warps[w]
	for m := a.Lanes; m != 0; m &= m - 1 {
		lane := bits.TrailingZeros32(m)
		off := a.Addr[lane]
		if off >= MaxSharedShadow || off+size > MaxSharedShadow {
			continue
		}
		cs.grow(int(off + size))
		// The copy instruction, not where its bytes move, is the line a
		// warning names (Access.AsyncPC).
		la := laneAcc{c: c, cs: cs, pc: a.AsyncPC, w: w, lane: lane}
		if a.Kind == emu.AccessLoad {
			cs.units(off, size, false, func(o uint64) { c.asyncRead(cs, o, w, &la) })
			continue
		}
		// A write: checked with the issuer's clock, recorded as the
		// asynchronous proxy's in its current epoch.
		me := rec{pc: int32(a.AsyncPC), epoch: ws.vc[w], step: ws.step, lanes: 1 << lane, warp: uint16(w)}
		ag := rec{pc: int32(a.AsyncPC), epoch: cl.aepoch, step: uint32(w) + 1, lanes: 1 << lane, warp: cl.agent}
		cs.units(off, size, true, func(o uint64) {
			if cs.pend != nil && cs.pend[o].bulk {
				// A copy in flight lands: checked when it was issued,
				// and every access since against it (bulkIssue).
				cs.pend[o] = pend{}
			} else {
				c.writeByte(cs, o, &me, w, lane, &la, false)
			}
			sh := cs.at(o)
			sh.w = ag
			sh.r = rec{}
			sh.rs = sh.rs[:0]
			cs.written[o>>6] |= 1 << (o & 63)
		})
	}
}

// bulkIssue checks the destination bytes of a bulk or tensor copy that
// cluster warp w issued into cs's (or a peer's) shared memory as a write
// of the issuer, and marks them in flight until the copy lands
// (asyncShared, which then records the asynchronous proxy's write without
// checking it again): until then a generic read of
// them is WarnAsyncWriteRead and a generic write WarnWriteAfterWrite,
// naming the copy, whatever thread makes it. The copy lands when a thread
// of the destination CTA tests its mbarrier, so an access ordered after a
// wait on the phase it completes never finds it in flight.
func (c *Checker) bulkIssue(cs *ctaState, w int, in *emu.StepInfo, b *emu.BulkCopy) {
	t := cs
	if b.CTA != in.CTALin {
		if t = c.peer(cs, b.CTA); t == nil {
			return
		}
	}
	off, size := b.Dst, b.Size
	if size == 0 || off >= MaxSharedShadow || size > MaxSharedShadow-off {
		return
	}
	t.grow(int(off + size))
	if t.pend == nil {
		t.pend = make([]pend, 4*len(t.words))
	}
	// Checked now as a write with the issuer's clock (it may land at any
	// time until the wait), as a cp.async is.
	ws := &cs.warps[w]
	me := rec{pc: int32(b.PC), epoch: ws.vc[w], step: ws.step, lanes: 1 << b.Lane, warp: uint16(w)}
	la := laneAcc{c: c, cs: t, pc: b.PC, w: w, lane: b.Lane}
	p := pend{pc1: int32(b.PC) + 1, warp: uint16(w), lane: uint8(b.Lane), bulk: true}
	t.units(off, size, true, func(o uint64) {
		c.writeByte(t, o, &me, w, b.Lane, &la, false)
		t.pend[o] = p
	})
}

// asyncRead checks an asynchronous-proxy read of byte o by the copy of
// lane la.lane of cluster warp w.
func (c *Checker) asyncRead(cs *ctaState, o uint64, w int, la *laneAcc) {
	sh := cs.at(o)
	if cs.pend != nil && cs.pend[o].pc1 != 0 {
		p := cs.pend[o]
		la.report(bitAsync, p.pendRead(), o, int(p.pc1-1), int(p.warp), int(p.lane))
	} else if cs.written[o>>6]>>(o&63)&1 == 0 {
		la.report(bitUninit, WarnUninitShared, o, -1, w, la.lane)
	}
	r := &sh.w
	if r.step == 0 {
		return
	}
	if l := cs.unordered(r, w, la.lane); l >= 0 {
		k := WarnReadAfterWrite
		if r.warp == cs.cl.agent {
			k = WarnAsyncWriteRead
		}
		la.report(bitRAW, k, o, int(r.pc), cs.who(r), l)
		return
	}
	if r.warp == cs.cl.agent {
		return // the asynchronous proxy's own write
	}
	// The writing lanes must each have fenced since the write.
	wr := &cs.warps[r.warp]
	for m := r.lanes; m != 0; m &= m - 1 {
		l := bits.TrailingZeros32(m)
		if wr.pfence == nil || wr.pfence[l] <= r.step {
			la.report(bitWAW, WarnProxyFence, o, int(r.pc), int(r.warp), l)
			return
		}
	}
}

// mbarSyncOf returns the clocks of the mbarrier e names (creating them).
func (c *Checker) mbarSyncOf(cl *clusterState, e *emu.Event) *mbarSync {
	k := mbKey{e.CTA, e.Addr}
	if st := cl.mbars[k]; st != nil {
		return st
	}
	if cl.mbars == nil {
		cl.mbars = map[mbKey]*mbarSync{}
	}
	n := len(cl.cbPend)
	st := &mbarSync{pend: make([]uint32, n), rel: make([]uint32, n)}
	cl.mbars[k] = st
	return st
}

// join joins vc into dst and reports whether it raised anything.
func join(dst, vc []uint32) bool {
	any := false
	for i, v := range vc {
		if v > dst[i] {
			dst[i] = v
			any = true
		}
	}
	return any
}

// mbarEvent applies an mbarrier or proxy-fence event of cluster warp w.
func (c *Checker) mbarEvent(cs *ctaState, w int, in *emu.StepInfo, e *emu.Event) {
	cl := cs.cl
	ws := &cs.warps[w]
	switch e.Kind {
	case emu.EvProxyFence:
		if ws.pfence == nil {
			ws.pfence = new([32]uint32)
		}
		for m := e.Mask; m != 0; m &= m - 1 {
			ws.pfence[bits.TrailingZeros32(m)] = ws.step
		}
		return
	}
	// The CTA holding the object (the executing one, or a peer for a
	// remote arrive or complete_tx).
	t := cs
	if e.CTA != in.CTALin {
		if t = c.peer(cs, e.CTA); t == nil {
			return
		}
	}
	switch e.Kind {
	case emu.EvMbarrierInit:
		lane := bits.TrailingZeros32(e.Mask)
		if t.mbar == nil {
			t.mbar = map[uint64]mbInit{}
		}
		t.mbar[e.Addr] = mbInit{pc: int32(e.PC), warp: uint16(w), lane: uint8(lane)}
		delete(cl.mbars, mbKey{e.CTA, e.Addr})
		if len(e.Warps) > 0 {
			bw := e.Warps[0]
			_, r := c.clusterOf(bw.CTA)
			if c.csize == 1 {
				r = 0
			}
			c.warn(WarnMbarrierInitWaiting, isa.Shared, in.PC, c.thread(cs, w, lane), bw.PC,
				c.thread(cs, r*c.nwarps+bw.Warp, bits.TrailingZeros32(bw.Lanes)), e.Addr)
		}
	case emu.EvMbarrierInval:
		delete(t.mbar, e.Addr)
		delete(cl.mbars, mbKey{e.CTA, e.Addr})
	case emu.EvMbarrierArrive, emu.EvMbarrierCompleteTx:
		st := c.mbarSyncOf(cl, e)
		switch {
		case e.Async:
			// The asynchronous proxy's writes so far are released.
			a := cl.agent
			st.pend[a] = max(st.pend[a], cl.aepoch)
			cl.aepoch++
			st.used = true
		case !e.Relaxed:
			join(st.pend, ws.vc)
			st.used = true
			ws.vc[w]++
		default:
			ws.vc[w]++
		}
	case emu.EvMbarrierComplete:
		st := c.mbarSyncOf(cl, e)
		st.rel, st.pend = st.pend, st.rel
		clear(st.pend)
		used := st.used
		st.used = false
		if !used {
			clear(st.rel)
			return
		}
		for _, bw := range e.Warps {
			if bw.Warp < 0 || bw.Warp >= c.nwarps {
				continue
			}
			_, r := c.clusterOf(bw.CTA)
			if c.csize == 1 {
				r = 0
			}
			join(cl.warps[r*c.nwarps+bw.Warp].vc, st.rel)
		}
		cl.bump()
	case emu.EvMbarrierWait:
		if e.Relaxed {
			return
		}
		if st := cl.mbars[mbKey{e.CTA, e.Addr}]; st != nil && join(ws.vc, st.rel) {
			cl.bump()
		}
	}
}
