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
	// WaitWgmmaGroup: wgmma.wait_group N (Groups = N): it ends when the
	// warp's wgmma.mma_async results other than those of its newest N
	// committed wgmma-groups have landed in its registers.
	WaitWgmmaGroup
)

var waitKindNames = [...]string{"none", "barrier", "async-group", "warp-sync", "mbarrier", "cluster-barrier", "wgmma-group"}

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
	// WaitAsyncGroup, WaitWgmmaGroup: the newest committed groups the
	// lanes may leave in flight (-1: none, wait_all).
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
	case WaitWgmmaGroup:
		return fmt.Sprintf("wgmma groups (all but the newest %d)", t.Groups)
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

// waitOver reports whether the warp's recorded wait has ended: its
// whole-warp wait, or (a warp whose thread groups all wait) the wait of
// one of its thread groups.
func (w *Warp) waitOver() bool {
	if w.wait.Kind == WaitNone && len(w.held) > 0 {
		for i := range w.held {
			if w.over(&w.held[i]) {
				return true
			}
		}
		return false
	}
	return w.over(&w.wait)
}

// over reports whether wait t of the warp (its own or a thread group's)
// has ended.
func (w *Warp) over(t *Wait) bool {
	switch t.Kind {
	case WaitBarrier:
		return t.Barrier >= 0 && t.Barrier < len(w.cta.bars) && w.cta.bars[t.Barrier].phase != t.phase
	case WaitAsyncGroup:
		return !w.copiesPending(t.Lanes, int64(t.Groups))
	case WaitClusterBarrier:
		return t.Lanes&^w.cbDone == 0
	case WaitMbarrier:
		return w.mbarrierWaitOver(t)
	case WaitWgmmaGroup:
		return !w.wgmmaPending(int64(t.Groups))
	}
	return false
}

// Group waits. Under independent scheduling the wait of a thread group of
// a diverged warp (mbarrier.try_wait, barrier.cluster.wait,
// cp.async.wait_group: a wait of the lanes' own, not the warp's) blocks
// only that group: it is recorded in the warp's held list, and the stack
// entries holding its lanes do not issue, nor execute with another group,
// until it ends; the warp's other groups go on. Lanes of one instruction
// that wait on different mbarrier phases wait as one group wait on each
// (in both models). The warp is WarpWaiting, for readiness and everything
// that asks it, exactly when none of its groups can issue (holdSettle,
// after every instruction of a warp with group waits and whenever one
// ends); it is then Wakeable when one of the waits is over. Under the SIMT
// stack the warp waits as a whole while any of its group waits lasts (its
// stack's top is the group that waits). A CTA barrier (bar.sync) stays a
// wait of the whole warp: a group at one waits for the warp's other live
// lanes (those of waiting groups too), and the warp arrives once for all.

// groupWait reports whether a wait of lanes is a group wait: independent
// scheduling, with live lanes of the warp that do not wait (in other
// groups, or lanes of the issuing group that do not wait: their guard
// was false, or their phase had completed).
func (w *Warp) groupWait(lanes uint32) bool {
	return w.m.indep && (w.valid&^w.exited)&^lanes != 0
}

// hold records t as the wait of a thread group: its lanes wait (the
// instruction's end settles the warp, holdSettle).
func (w *Warp) hold(t Wait) {
	w.held = append(w.held, t)
}

// heldLanes returns the lanes of the warp's group waits.
func (w *Warp) heldLanes() uint32 {
	var m uint32
	for i := range w.held {
		m |= w.held[i].Lanes
	}
	return m
}

// isHeld reports whether stack entry e holds lanes of a group wait.
func (w *Warp) isHeld(e *StackEntry) bool {
	return len(w.held) > 0 && e.Mask&w.heldLanes() != 0
}

// endGroupWaits ends the group waits that are over (their lanes can
// issue again) and reports whether there were any.
func (w *Warp) endGroupWaits() bool {
	kept := w.held[:0]
	ended := false
	for _, t := range w.held {
		if w.over(&t) {
			w.endWait(&t)
			ended = true
			continue
		}
		kept = append(kept, t)
	}
	clear(w.held[len(kept):])
	w.held = kept
	if len(w.held) == 0 {
		w.held = nil
	}
	return ended
}

// endWait does what the end of wait t does to its lanes' state.
func (w *Warp) endWait(t *Wait) {
	switch {
	case t.Kind == WaitClusterBarrier:
		// The lanes' arrivals are waited for.
		w.cbDone &^= t.Lanes
	case t.Kind == WaitMbarrier && t.op != nil && t.op.D >= 0:
		// mbarrier.try_wait returns true once the phase has completed.
		w.preds[t.op.D] |= t.Lanes
	}
}

// holdSettle decides, for a ready warp with group waits, whether one of
// its groups can issue; otherwise the warp waits (WarpWaiting, with its
// group waits). Under independent scheduling it settles the groups as
// the next pick would (at the same instruction count, so with the same
// result) and looks for a group as the pick's first pass does
// (pickable). Lanes waiting at a reconvergence point keep waiting (their
// clock counts the warp's instructions). Under the SIMT stack any group
// wait makes the warp wait.
func (w *Warp) holdSettle() {
	if len(w.held) == 0 || w.State != WarpReady {
		return
	}
	if w.m.indep {
		lo := w.frameBase()
		if len(w.stack)-lo > 1 {
			w.settle(lo)
		}
		w.splitHeld()
		if w.pickable(lo, false) {
			return
		}
	}
	w.State = WarpWaiting
}

// splitHeld makes the lanes of each group wait a group of their own
// (independent scheduling): a leaf holding them and other lanes (of
// another wait, or lanes that do not wait) leaves them as a path of its
// region at the same pc (goOn), so that the lanes that do not wait go on
// and each waiting group resumes when its own wait ends.
func (w *Warp) splitHeld() {
	for again := len(w.held) > 0; again; {
		again = false
	scan:
		for i := range w.stack {
			e := &w.stack[i]
			if e.parent || e.call || e.Mask == 0 || e.PC < 0 {
				continue
			}
			for _, t := range w.held {
				if l := e.Mask & t.Lanes; l != 0 && l != e.Mask {
					e.Mask &^= l
					w.goOn(i, StackEntry{PC: e.PC, RPC: e.RPC, Mask: l})
					w.rebase()
					again = true
					break scan
				}
			}
		}
	}
}

// pickable reports whether a leaf above lo can issue by the first pass of
// schedule's pick: a group not holding lanes of a group wait, not at its
// reconvergence point, not at a barrier that waits for lanes elsewhere
// and not at a warp-synchronous instruction whose member lanes are
// elsewhere. With settle it settles the groups first.
func (w *Warp) pickable(lo int, settle bool) bool {
	if len(w.stack) == 0 {
		return false
	}
	if settle && len(w.stack)-lo > 1 {
		w.settle(lo)
	}
	bar := w.barrierLanes(lo)
	full := bar != 0 && bar == w.valid&^w.exited
	for i := lo; i < len(w.stack); i++ {
		e := &w.stack[i]
		if e.parent || e.call || e.Mask == 0 || w.isHeld(e) {
			continue
		}
		if i > lo && e.frame == 0 && e.PC == e.RPC {
			continue // at its reconvergence point: its lanes wait there
		}
		if !full && w.atBarrier(e) {
			continue
		}
		if _, away, ok := w.syncJoin(i, lo, true); ok && away != 0 {
			continue
		}
		return true
	}
	return false
}

// await makes the lanes of t wait for it (at pc, the instruction they
// execute) unless t is already over: the whole warp, or under
// independent scheduling, when live lanes of the warp are outside the
// issuing group, only that group (a group wait; a CTA barrier is never
// one).
func (w *Warp) await(t Wait, pc int) {
	t.PC = pc
	if t.Kind != WaitBarrier && w.groupWait(t.Lanes) {
		if !w.over(&t) {
			w.hold(t)
		}
		return
	}
	w.wait = t
	if w.waitOver() {
		w.wait = Wait{}
		return
	}
	w.State = WarpWaiting
}

// wake ends the warp's wait: it can issue again. A warp whose groups
// wait ends the group waits that are over and issues again when one of
// its groups can.
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
	if w.wait.Kind != WaitNone {
		w.endWait(&w.wait)
		w.wait = Wait{}
	}
	if len(w.held) > 0 {
		w.endGroupWaits()
		w.holdSettle()
	}
}

// wakeOver ends what of the warp's waiting is over: its whole-warp wait
// (wake) when it is of kind k and over, else the waits of its groups that
// are over. It reports whether something ended.
func (w *Warp) wakeOver(k WaitKind) bool {
	if w.State == WarpWaiting && w.wait.Kind == k && w.waitOver() {
		w.wake()
		return true
	}
	if len(w.held) == 0 || w.State == WarpExited || w.State == WarpFaulted {
		return false
	}
	if w.State == WarpWaiting && w.wait.Kind == WaitNone {
		if !w.waitOver() {
			return false
		}
		w.wake()
		return true
	}
	return w.endGroupWaits()
}

// eachWait calls f with each wait of the warp: its whole-warp wait while
// it waits, then its groups' waits.
func (w *Warp) eachWait(f func(t *Wait)) {
	if w.State == WarpWaiting && w.wait.Kind != WaitNone {
		f(&w.wait)
	}
	for i := range w.held {
		f(&w.held[i])
	}
}

// GroupWaits returns the waits of the warp's thread groups (a copy; nil
// when none waits): under independent scheduling, the waits of groups of
// a diverged warp, which block only their lanes; in both models, the
// waits of lanes of one mbarrier.try_wait on different phases.
func (w *Warp) GroupWaits() []Wait { return append([]Wait(nil), w.held...) }

// headWait is the wait the warp's pc and lanes are read from while it
// waits: its own, else its first group's.
func (w *Warp) headWait() Wait {
	if w.wait.Kind == WaitNone && len(w.held) > 0 {
		return w.held[0]
	}
	return w.wait
}

// WaitText says in words what the warp waits for (as Wait.String), with
// how far the wait has come where the wait's state says it: for the
// cluster barrier, how many of the cluster's live threads have arrived;
// for an mbarrier, its phase and what the phase still needs ("mbarrier
// @0x40, phase 1: 1 arrival and 4,096 transaction bytes missing"). The
// waits of thread groups name their lanes ("thread group lanes 0 waits
// for mbarrier ..."; several joined with "; "), also while the warp's
// other groups run. It is "" when nothing of the warp waits.
func (w *Warp) WaitText() string {
	if w.State == WarpWaiting && w.wait.Kind != WaitNone {
		return w.waitText(w.wait)
	}
	s := ""
	for _, t := range w.held {
		if s != "" {
			s += "; "
		}
		s += fmt.Sprintf("thread group lanes %s waits for %s", warpLaneList(t.Lanes), w.waitText(t))
	}
	return s
}

// DescribeWait says in words what wait t of the warp (its own or one of
// GroupWaits) waits for, as WaitText does for one wait, without naming
// the lanes.
func (w *Warp) DescribeWait(t Wait) string { return w.waitText(t) }

func (w *Warp) waitText(t Wait) string {
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
// wait): its own wait, or when its thread groups all wait, the first
// group's (GroupWaits lists them all). After a deadlock the warps keep
// their waits.
func (w *Warp) Waiting() (Wait, bool) {
	if w.State != WarpWaiting {
		return Wait{}, false
	}
	return w.headWait(), true
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
			if w.State == WarpWaiting && t.Kind == WaitNone && len(w.held) > 0 {
				// Its thread groups wait: each one named with its lanes.
				for _, g := range w.held {
					onCluster = onCluster || g.Kind == WaitClusterBarrier
					onMbar = onMbar || g.Kind == WaitMbarrier
					waiting = append(waiting, BarrierWarp{CTA: c.Idx, Warp: w.ID, Barrier: -1, PC: g.PC, Lanes: g.Lanes})
				}
				add(c, fmt.Sprintf("warp %d: %s", w.ID, w.WaitText()))
				continue
			}
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
