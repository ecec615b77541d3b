package emu

import "fmt"

// Waiting is data. A warp that cannot go on until something outside it
// happens records what it waits for as a Wait and is in State
// WarpWaiting: at a CTA barrier, for its cp.async groups, and (kinds
// reserved for what comes next) at an mbarrier phase or a cluster
// barrier. One predicate, readiness, decides for every warp whether it
// can issue, waits or has finished: the scheduler's round robin (through
// State, which only wake and await change), retire, deadlock detection,
// the debugger's "can the next issue settle" and the views all ask it. A
// wait whose kind the predicate does not know never ends and never counts
// as finished: its CTA is reported as a deadlock, never retired.
//
// A Wait names the lanes that wait (Lanes): the active lanes that executed
// the waiting instruction, with the thread groups that arrived with them
// under independent scheduling.

// WaitKind is what a waiting warp waits for.
type WaitKind uint8

const (
	WaitNone WaitKind = iota
	// WaitBarrier: a CTA barrier (bar.sync, barrier.sync, bar.red):
	// Barrier and Count. It ends when the barrier releases.
	WaitBarrier
	// WaitAsyncGroup: cp.async.wait_group N (Groups = N) or
	// cp.async.wait_all (Groups = -1): it ends when the lanes' copies
	// other than those of their newest N committed groups have landed.
	WaitAsyncGroup
	// WaitWarpSync: a warp-synchronous instruction waiting for the other
	// lanes of Members.
	WaitWarpSync
	// WaitMbarrier: an mbarrier phase (Addr: the object's offset in the
	// CTA's shared memory, Parity: the phase's parity), waited for by
	// mbarrier.try_wait: it ends when that phase has completed.
	WaitMbarrier
	// WaitClusterBarrier: the cluster barrier (barrier.cluster.wait): it
	// ends when the phase the lanes arrived in has completed.
	WaitClusterBarrier
)

var waitKindNames = [...]string{"none", "barrier", "async-group", "warp-sync", "mbarrier", "cluster-barrier"}

func (k WaitKind) String() string {
	if int(k) < len(waitKindNames) {
		return waitKindNames[k]
	}
	return fmt.Sprintf("unknown-%d", k)
}

// WaitKindNames lists the names of the kinds of wait (WaitNone excluded),
// as the protocol sends them.
func WaitKindNames() []string { return append([]string(nil), waitKindNames[1:]...) }

// Wait is what a waiting warp (or thread group: Lanes) waits for.
type Wait struct {
	Kind  WaitKind
	Lanes uint32 // the lanes that wait
	PC    int    // the instruction the lanes wait at
	// WaitBarrier: the barrier id (0-15) and the thread count it waits
	// for (0: every live thread of the CTA).
	Barrier int
	Count   int
	// WaitMbarrier: the mbarrier's offset in the CTA's shared memory and
	// the parity of the phase waited for.
	Addr   uint64
	Parity uint32
	// WaitWarpSync: the member mask.
	Members uint32
	// WaitAsyncGroup: the newest committed groups the lanes may leave in
	// flight (-1: none, wait_all).
	Groups int
	// phase (WaitBarrier): the barrier's phase the warp arrived in.
	phase uint32
	op    *Op // the instruction (a barrier's results are written on release)
}

// same reports whether t and u are the same wait (in two machines of the
// same program: their instructions are compared by pc).
func (t Wait) same(u Wait) bool {
	t.op, u.op = nil, nil
	return t == u
}

// String says what the wait waits for, in words.
func (t Wait) String() string {
	switch t.Kind {
	case WaitBarrier:
		if t.Count > 0 {
			return fmt.Sprintf("barrier %d (%d threads)", t.Barrier, t.Count)
		}
		return fmt.Sprintf("barrier %d", t.Barrier)
	case WaitAsyncGroup:
		if t.Groups < 0 {
			return "every cp.async copy (cp.async.wait_all)"
		}
		return fmt.Sprintf("cp.async groups (all but the newest %d)", t.Groups)
	case WaitWarpSync:
		return fmt.Sprintf("lanes %08x of its warp", t.Members)
	case WaitMbarrier:
		return fmt.Sprintf("mbarrier @%#x, phase %d", t.Addr, t.Parity)
	case WaitClusterBarrier:
		return "the cluster barrier"
	}
	return fmt.Sprintf("an unknown wait (kind %d)", t.Kind)
}

// Readiness is what the one readiness predicate says of a warp.
type Readiness uint8

const (
	Runnable Readiness = iota // it can issue
	Wakeable                  // it waits, and its wait is over (the scheduler wakes it when it next looks)
	Blocked                   // it waits, and its wait is not over
	Finished                  // it exited or faulted
)

var readinessNames = [...]string{"runnable", "wakeable", "blocked", "finished"}

func (r Readiness) String() string { return readinessNames[r] }

// Readiness is the one readiness predicate: whether w can issue, waits
// (and whether its wait is over) or has finished. A state or a wait kind
// it does not know is blocked, never finished.
func (w *Warp) Readiness() Readiness {
	switch w.State {
	case WarpReady:
		return Runnable
	case WarpExited, WarpFaulted:
		return Finished
	case WarpWaiting:
		if w.waitOver() {
			return Wakeable
		}
	}
	return Blocked
}

// waitOver reports whether the warp's recorded wait has ended.
func (w *Warp) waitOver() bool {
	t := &w.wait
	switch t.Kind {
	case WaitBarrier:
		return t.Barrier >= 0 && t.Barrier < len(w.cta.bars) && w.cta.bars[t.Barrier].phase != t.phase
	case WaitAsyncGroup:
		return !w.copiesPending(t.Lanes, int64(t.Groups))
	case WaitClusterBarrier:
		return t.Lanes&^w.cbDone == 0
	case WaitMbarrier:
		return w.mbarrierWaitOver(t)
	}
	return false
}

// await makes the warp wait for t (at pc, the instruction it executes)
// unless t is already over.
func (w *Warp) await(t Wait, pc int) {
	t.PC = pc
	w.wait = t
	if w.waitOver() {
		w.wait = Wait{}
		return
	}
	w.State = WarpWaiting
}

// wake ends the warp's wait: it can issue again.
func (w *Warp) wake() {
	if w.State == WarpWaiting {
		w.State = WarpReady
	}
	if t := &w.wait; t.Kind == WaitBarrier {
		// The fields a barrier sets (the others are zero): a barrier's
		// release is a hot path.
		t.Kind, t.PC, t.Lanes, t.Barrier, t.Count, t.phase, t.op = WaitNone, 0, 0, 0, 0, 0, nil
		return
	}
	if t := &w.wait; t.Kind == WaitClusterBarrier {
		// The lanes' arrivals are waited for.
		w.cbDone &^= t.Lanes
	}
	if t := &w.wait; t.Kind == WaitMbarrier && t.op != nil && t.op.D >= 0 {
		// mbarrier.try_wait returns true once the phase has completed.
		w.preds[t.op.D] |= t.Lanes
	}
	w.wait = Wait{}
}

// WaitText says in words what the warp waits for (as Wait.String), with
// how far the wait has come where the wait's state says it: for the
// cluster barrier, how many of the cluster's live threads have arrived;
// for an mbarrier, its phase and what the phase still needs ("mbarrier
// @0x40, phase 1: 1 arrival and 4,096 transaction bytes missing").
// It is "" when the warp does not wait.
func (w *Warp) WaitText() string {
	if w.State != WarpWaiting {
		return ""
	}
	t := w.wait
	if t.Kind == WaitMbarrier {
		return w.mbarrierWaitText(t)
	}
	what := t.String()
	if t.Kind == WaitClusterBarrier && w.cta != nil && w.cta.cluster != nil {
		arrived, live := w.cta.cluster.Arrivals()
		what += fmt.Sprintf(" (%d of %d threads of the cluster arrived)", arrived, live)
	}
	return what
}

// Waiting returns what the warp waits for (ok false when it does not
// wait). After a deadlock the warps keep their waits.
func (w *Warp) Waiting() (Wait, bool) {
	if w.State != WarpWaiting {
		return Wait{}, false
	}
	return w.wait, true
}

// deadlock stops the launch: no warp of the cluster cs (its CTAs, in
// rank order; one CTA without clusters) can issue and none of their waits
// can end. The fault names the first waiting warp of the lowest barrier
// (at the instruction it waits at), else the first waiting warp, and
// lists every waiting warp with its live lanes; its message says what
// each waits for (with the CTA when the cluster has several). The warps
// stay in WarpWaiting, at their waits.
func (m *Machine) deadlock(cs []*CTA) {
	var waiting []BarrierWarp
	msg := ""
	onBar, onCluster, onMbar := false, false, false
	add := func(c *CTA, part string) {
		if msg != "" {
			msg += "; "
		}
		if len(cs) > 1 {
			part = fmt.Sprintf("CTA (%d,%d,%d): ", c.Idx[0], c.Idx[1], c.Idx[2]) + part
		}
		msg += part
	}
	for _, c := range cs {
		for id := range c.bars {
			b := &c.bars[id]
			if len(b.waiting) == 0 {
				continue
			}
			onBar = true
			for _, w := range b.waiting {
				waiting = append(waiting, BarrierWarp{CTA: c.Idx, Warp: w.ID, Barrier: id, PC: w.wait.PC, Lanes: w.valid &^ w.exited})
			}
			exp := b.expected
			if exp == 0 {
				exp = c.liveThreads()
			}
			ws := ""
			for _, w := range b.waiting {
				if ws != "" {
					ws += ","
				}
				ws += itoa(w.ID)
			}
			add(c, fmt.Sprintf("barrier %d has %d of %d threads (warps %s waiting)", id, b.arrived, exp, ws))
		}
	}
	for _, c := range cs {
		// Warps waiting for anything else, in warp order.
		for _, w := range c.Warps {
			if w.Readiness() != Blocked || w.State == WarpWaiting && w.wait.Kind == WaitBarrier {
				continue
			}
			t := w.wait
			if w.State != WarpWaiting {
				t = Wait{Kind: WaitKind(255), PC: w.pc()}
				add(c, fmt.Sprintf("warp %d is in an unknown state (%v)", w.ID, w.State))
			} else {
				onCluster = onCluster || t.Kind == WaitClusterBarrier
				onMbar = onMbar || t.Kind == WaitMbarrier
				add(c, fmt.Sprintf("warp %d waits for %s", w.ID, w.WaitText()))
			}
			waiting = append(waiting, BarrierWarp{CTA: c.Idx, Warp: w.ID, Barrier: -1, PC: t.PC, Lanes: w.valid &^ w.exited})
		}
	}
	head := "deadlock: every live warp is waiting and no wait can end: "
	switch {
	case onCluster:
		head = "cluster barrier deadlock: every live warp of the cluster is waiting and no wait can end: "
	case onMbar && !onBar:
		head = "mbarrier deadlock: every live warp is waiting and no mbarrier phase can complete: "
	case onBar:
		head = "barrier deadlock: every live warp is waiting and no barrier can complete: "
	}
	c := cs[0]
	f := &Fault{Kind: FaultDeadlock, Message: head + msg, PC: -1, CTA: c.Idx, Waiting: waiting}
	if len(waiting) > 0 {
		w0 := waiting[0]
		for _, x := range cs {
			if x.Idx == w0.CTA {
				c = x
			}
		}
		f.CTA = c.Idx
		f.PC, f.Warp, f.Lanes = w0.PC, w0.Warp, w0.Lanes
		f.Lane = firstLane(w0.Lanes)
		f.Thread = c.Warps[w0.Warp].tid(f.Lane)
	}
	m.setFault(f)
}
