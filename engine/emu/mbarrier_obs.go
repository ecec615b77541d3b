package emu

// The mbarrier events (EvMbarrier*: see observer.go), what the race
// checker orders accesses by: arrivals and completed transactions release,
// a phase's completion hands their clocks to its waiters, and a wait that
// finds its phase completed acquires.

// mbarEvent reports lane's mbarrier event of kind on r (relaxed: the
// operation has no release or acquire semantics), joining the previous
// event when it is the same kind on the same object.
func (w *Warp) mbarEvent(kind EventKind, r mbarRef, lane int, relaxed bool) {
	w.mbarEventAsync(kind, r, lane, relaxed, false)
}

// mbarEventAsync is mbarEvent with Event.Async.
func (w *Warp) mbarEventAsync(kind EventKind, r mbarRef, lane int, relaxed, async bool) {
	m := w.m
	if !m.obsEvents {
		return
	}
	m.openStep()
	evs := m.info.Events
	if n := len(evs); n > 0 {
		e := &evs[n-1]
		if e.Kind == kind && e.CTA == r.c.Linear && e.Addr == r.off && e.Relaxed == relaxed && e.Async == async && e.PC == m.curPC {
			e.Mask |= 1 << lane
			return
		}
	}
	m.info.Events = append(evs, Event{Kind: kind, PC: m.curPC, Mask: 1 << lane, Relaxed: relaxed, Async: async, CTA: r.c.Linear, Addr: r.off, ID: -1})
}

// mbarWaiters returns the warps of c waiting on the mbarrier at offset
// off (with their waiting lanes and the try_wait's pc), or nil.
func mbarWaiters(c *CTA, off uint64) []BarrierWarp {
	var ws []BarrierWarp
	for _, x := range c.Warps {
		x.eachWait(func(t *Wait) {
			if t.Kind == WaitMbarrier && t.Addr == off {
				ws = append(ws, BarrierWarp{CTA: c.Idx, Warp: x.ID, Barrier: -1, PC: t.PC, Lanes: t.Lanes})
			}
		})
	}
	return ws
}

// mbarInitEvent reports lane's init of r, naming the warps waiting on it.
func (w *Warp) mbarInitEvent(r mbarRef, lane int) {
	if !w.m.obsEvents {
		return
	}
	w.mbarEvent(EvMbarrierInit, r, lane, false)
	e := &w.m.info.Events[len(w.m.info.Events)-1]
	if ws := mbarWaiters(r.c, r.off); ws != nil && e.Warps == nil {
		e.Warps = ws
	}
}

// mbarCompleteEvent reports the completion of r's phase of parity
// parity, naming the warps it wakes (call before waking them).
func (w *Warp) mbarCompleteEvent(r mbarRef, parity uint32) {
	m := w.m
	if !m.obsEvents {
		return
	}
	m.openStep()
	var woke []BarrierWarp
	for _, x := range r.c.Warps {
		x.eachWait(func(t *Wait) {
			if t.Kind == WaitMbarrier && t.Addr == r.off && t.Parity == parity {
				woke = append(woke, BarrierWarp{CTA: r.c.Idx, Warp: x.ID, Barrier: -1, PC: t.PC, Lanes: t.Lanes})
			}
		})
	}
	m.info.Events = append(m.info.Events, Event{Kind: EvMbarrierComplete, PC: m.curPC, ID: int(parity), CTA: r.c.Linear, Addr: r.off, Warps: woke})
}

// mbarRelaxed reports whether op is a .relaxed mbarrier form.
func mbarRelaxedOp(op *Op) bool { return op.Aux&mbarRelaxed != 0 }

// isProxyAsyncFence reports whether a fence form (its name joined with
// dots) is a fence.proxy.async form.
func isProxyAsyncFence(form string) bool {
	for _, p := range []string{"fence.proxy.async", "membar.proxy.async"} {
		if len(form) >= len(p) && form[:len(p)] == p {
			return true
		}
	}
	return false
}

// execProxyAsyncFence: fence.proxy.async orders nothing further in the
// (sequentially consistent) emulator; it is reported to observers
// (EvProxyFence) for the race checker's proxy rule.
func execProxyAsyncFence(w *Warp, op *Op, mask uint32) *Fault {
	if w.m.obsEvents && mask != 0 {
		w.m.event(Event{Kind: EvProxyFence, PC: w.m.curPC, Mask: mask, ID: -1})
	}
	return nil
}
