package emu

import (
	"fmt"
	"math"
	"math/bits"
	"strconv"
	"strings"

	"github.com/ptxplayground/ptxplay/engine/isa"
)

// Scheduling is the model by which the lanes of a warp that diverged are
// scheduled (see docs/emulator.md, "Scheduling models"); the names are
// engine/isa's, so the launch spec is checked without the emulator.
type Scheduling = isa.Scheduling

// The scheduling models (isa.SchedDefault and the others).
const (
	SchedDefault     = isa.SchedDefault
	SchedIndependent = isa.SchedIndependent
	SchedSIMTStack   = isa.SchedSIMTStack
)

// ParseScheduling accepts "", "independent" and "simt-stack".
func ParseScheduling(s string) (Scheduling, error) { return isa.ParseScheduling(s) }

// ReconvergeWait is how many of its warp's instructions lanes that reached
// their reconvergence point wait, under independent scheduling, for the
// other lanes of their divergent region before they go on without them
// (counted from the latest arrival). Paths of ordinary structured code
// arrive well within it, so they reconverge as under the SIMT stack; a
// path that spins waiting for the waiting lanes (a lock held by one of
// them) cannot starve them.
const ReconvergeWait = 256

// TargetSM returns the highest sm_NN of the module's .target directive
// (0 when there is none).
func (p *Program) TargetSM() int {
	best := 0
	if p.Module == nil {
		return 0
	}
	for _, t := range p.Module.Target {
		if !strings.HasPrefix(t, "sm_") {
			continue
		}
		d := strings.TrimRight(t[3:], "abf")
		if n, err := strconv.Atoi(d); err == nil && n > best {
			best = n
		}
	}
	return best
}

// DefaultScheduling is the model a launch of p gets without a choice:
// independent for sm_70 and later (and when the target names no sm),
// the SIMT stack for older targets.
func (p *Program) DefaultScheduling() Scheduling {
	if sm := p.TargetSM(); sm > 0 && sm < 70 {
		return SchedSIMTStack
	}
	return SchedIndependent
}

// Scheduling returns the launch's scheduling model (never SchedDefault).
func (m *Machine) Scheduling() Scheduling {
	if m.indep {
		return SchedIndependent
	}
	return SchedSIMTStack
}

// PickReason says why the scheduler issued a warp's current thread group.
type PickReason uint8

const (
	PickOnly       PickReason = iota // the warp has one runnable group
	PickRoundRobin                   // the groups take turns: the next one by lowest lane
	PickStack                        // SIMT stack: the top of the reconvergence stack
)

var pickNames = []string{"only", "round-robin", "stack"}

func (r PickReason) String() string { return pickNames[r] }

// GroupState is what a thread group of a warp is doing.
type GroupState uint8

const (
	GroupRunnable    GroupState = iota // can issue
	GroupWaiting                       // at its reconvergence point, waiting for the rest of its region
	GroupInCall                        // its lanes are in a call; they continue when it returns
	GroupSuspended                     // SIMT stack: below the top, runs when the entries above are done
	GroupSyncWait                      // at a warp-synchronous instruction, waiting for member lanes elsewhere
	GroupBarrierWait                   // at a barrier, waiting for the other live lanes of its warp
	// GroupAtWait: its lanes wait for the warp's recorded wait (Warp.Waiting:
	// a CTA or cluster barrier, cp.async copies, …); PC is the instruction
	// they wait at.
	GroupAtWait
)

var groupStateNames = []string{"runnable", "waiting", "in-call", "suspended", "sync-wait", "barrier-wait", "at-wait"}

func (s GroupState) String() string { return groupStateNames[s] }

// ThreadGroup is one group of lanes of a warp: what the divergence view
// shows. Under independent scheduling the runnable groups are the paths
// that take turns; waiting groups are lanes that reached Reconv and wait
// there for the rest of their region (WaitLeft more instructions of the
// warp at most). Under the SIMT stack the groups are the stack's paths,
// the top one runnable and the others suspended.
type ThreadGroup struct {
	PC     int        // where the lanes continue
	Mask   uint32     // the lanes
	State  GroupState //
	Reconv int        // where the lanes reconverge (-1: at exit or return)
	// Waiting: how many more of the warp's instructions the lanes wait
	// before they go on alone (independent scheduling).
	WaitLeft int
	// Picked: the group at the top of the stack, the one the warp's last
	// instruction was issued from (independent scheduling picks again at
	// the next issue; the SIMT stack issues from it until it is done).
	Picked bool
	// Depth is the call depth of the group's lanes.
	Depth int
	// Awaits (sync-wait): the live lanes of the membermask that the group
	// waits for: those not at the instruction with it, less the lanes
	// that can only go on to exit (the scheduler's exact rule).
	Awaits uint32
}

// The reasons of a LaneWait other than a kind of wait.
const (
	LaneRunning       = "running"
	LaneTurn          = "turn"
	LaneReconvergence = "reconvergence"
	LaneSync          = "sync"
	LaneCall          = "call"
	LaneSuspended     = "suspended"
	LaneExited        = "exited"
)

var laneReasonNames = []string{LaneRunning, LaneTurn, LaneReconvergence, LaneSync, LaneCall, LaneSuspended, LaneExited}

// LaneWaitReasons lists every LaneWait.Reason: the lane's own reasons,
// then the kinds of wait (WaitKindNames).
func LaneWaitReasons() []string {
	return append(append([]string(nil), laneReasonNames...), WaitKindNames()...)
}

// LaneWait says why a lane of a warp is not issuing: the divergence view's
// "why is this lane waiting".
//
// It is computed here once for every view: Reason is "exited",
// "reconvergence", "sync", "call", "turn", "suspended", "running" or, for
// the lanes of a waiting warp, the kind of its Wait ("barrier",
// "async-group", ...; a thread group at a barrier for the warp's other
// lanes is "barrier" too).
type LaneWait struct {
	Lane   int
	Reason string
	PC     int // where the lane waits (-1 when exited)
	// Group is the index in Groups() of the innermost group holding the
	// lane (-1: none, e.g. exited).
	Group int
	// WaitLeft (reconvergence, independent scheduling): the warp's
	// instructions left before the lane goes on alone; Awaits (sync; and
	// reconvergence under the SIMT stack): the lanes it waits for.
	WaitLeft int
	Awaits   uint32
	// SIMT stack: With, the other lanes of the lane's path (its innermost
	// stack entry); Above (suspended), the lanes of the paths above it,
	// which must reach Reconv (-1: exit) before it goes on.
	With   uint32
	Above  uint32
	Reconv int
}

// Groups returns the warp's thread groups in stack order (the group at the
// top last). Lanes of an independent-scheduling region that wait at its
// reconvergence point are a group of their own (GroupWaiting), and so are
// lanes that returned from a call and wait in the caller for the call's
// other lanes.
func (w *Warp) Groups() []ThreadGroup {
	var out []ThreadGroup
	if len(w.stack) == 0 {
		return nil
	}
	top := len(w.stack) - 1
	for i := range w.stack {
		e := &w.stack[i]
		d := w.depth(i)
		if w.m != nil && w.m.indep {
			if e.parent {
				waiting := e.Mask &^ w.childLanes(i)
				if waiting != 0 {
					// The clock as the scheduler keeps it: lanes that
					// arrived since it last looked start it now (schedule
					// updates it lazily, before the warp's next issue).
					since := e.since
					if waiting&^e.waiting != 0 {
						since = w.issued
					}
					left := ReconvergeWait - int(w.issued-since)
					out = append(out, ThreadGroup{PC: int(e.PC), Mask: waiting, State: GroupWaiting, Reconv: int(e.PC), WaitLeft: max(left, 0), Depth: d})
				}
				continue
			}
			if e.Mask == 0 {
				continue
			}
			if e.call {
				if e.waiting != 0 {
					left := ReconvergeWait - int(w.issued-e.since)
					out = append(out, ThreadGroup{PC: int(e.PC), Mask: e.waiting, State: GroupWaiting, Reconv: int(e.PC), WaitLeft: max(left, 0), Depth: d})
				}
				if in := e.Mask &^ e.waiting; in != 0 {
					out = append(out, ThreadGroup{PC: int(e.PC), Mask: in, State: GroupInCall, Reconv: int(e.RPC), Depth: d})
				}
				continue
			}
			g := ThreadGroup{PC: int(e.PC), Mask: e.Mask, State: GroupRunnable, Reconv: int(e.RPC), Picked: i == top, Depth: d}
			if w.atBarrier(e) && w.barrierLanes(0) != w.valid&^w.exited {
				g.State = GroupBarrierWait
			} else if _, away, ok := w.syncJoin(i, 0, true); ok && away != 0 {
				g.State, g.Awaits = GroupSyncWait, away
			}
			out = append(out, g)
			continue
		}
		if e.Mask == 0 || (i < top && e.PC == e.RPC) {
			continue
		}
		st := GroupSuspended
		if i == top {
			st = GroupRunnable
		}
		out = append(out, ThreadGroup{PC: int(e.PC), Mask: e.Mask, State: st, Reconv: int(e.RPC), Picked: i == top, Depth: d})
	}
	// The lanes of a wait stand at the instruction they wait at (the
	// group's pc has moved past it), not runnable: those of the waiting
	// warp's wait, and the groups holding lanes of a group wait.
	w.eachWait(func(t *Wait) {
		for i := range out {
			if g := &out[i]; g.State == GroupRunnable && g.Mask&t.Lanes != 0 {
				g.State, g.PC = GroupAtWait, t.PC
			}
		}
	})
	return out
}

// LastIssue returns the pc and lanes of the group the warp's last
// instruction was issued from, and why the scheduler picked it (mask 0
// before the warp's first instruction).
func (w *Warp) LastIssue() (pc int, mask uint32, why PickReason) {
	return w.lastPC, w.lastMask, w.pick
}

// PrevIssue returns what the independent scheduler saw when it picked
// the group of the warp's last issue: the pc and lanes of the issue before
// it (mask 0: none), and after, the lane its round robin followed (the
// lowest lane of the group it picked before; -1: none), so that the last
// group is the runnable one whose lowest lane comes next after it. It is
// recorded whenever the warp has more than one stack entry under
// independent scheduling; for other issues it keeps its earlier value.
func (w *Warp) PrevIssue() (pc int, mask uint32, after int) {
	return w.prevPC, w.prevMask, int(w.prevLane)
}

// LaneWaits says, for every existing lane of the warp, why it is or is not
// issuing.
func (w *Warp) LaneWaits() []LaneWait {
	var out []LaneWait
	gs := w.Groups()
	if w.m != nil && !w.m.indep {
		return w.stackLaneWaits(gs)
	}
	for l := 0; l < 32; l++ {
		if w.valid>>l&1 == 0 {
			continue
		}
		lw := LaneWait{Lane: l, Reason: LaneExited, PC: -1, Group: -1}
		if w.exited>>l&1 == 0 {
			// The innermost group holding the lane (groups are in stack order).
			for k := len(gs) - 1; k >= 0; k-- {
				g := gs[k]
				if g.Mask>>l&1 == 0 {
					continue
				}
				lw.PC, lw.Group = g.PC, k
				switch {
				case w.State == WarpWaiting && w.wait.Kind != WaitNone:
					lw.Reason, lw.PC = w.wait.Kind.String(), w.wait.PC
				case g.State == GroupAtWait:
					// A group wait holds the group's lanes.
					t := w.groupWaitOf(g.Mask)
					lw.Reason, lw.PC = t.Kind.String(), t.PC
				case g.State == GroupWaiting:
					lw.Reason, lw.WaitLeft = LaneReconvergence, g.WaitLeft
				case g.State == GroupInCall:
					lw.Reason = LaneCall
				case g.State == GroupSuspended:
					lw.Reason = LaneSuspended
				case g.State == GroupSyncWait:
					lw.Reason, lw.Awaits = LaneSync, g.Awaits
				case g.State == GroupBarrierWait:
					lw.Reason = WaitBarrier.String()
				case g.Picked:
					lw.Reason = LaneRunning
				default:
					lw.Reason = LaneTurn
				}
				break
			}
		}
		out = append(out, lw)
	}
	return out
}

// stackLaneWaits says why each lane waits under the SIMT stack, read from
// the reconvergence stack: the lanes of the top entry run (or, while the
// warp waits, wait for its Wait); a lane whose innermost entry sits at its
// reconvergence point, or waits there for the paths pushed above it, waits
// to reconverge for the lanes above it that have not arrived (Awaits);
// any other lane is suspended until the paths above it (Above) reach its
// entry's reconvergence point. Group is the innermost group of gs holding
// the lane.
func (w *Warp) stackLaneWaits(gs []ThreadGroup) []LaneWait {
	st := w.stack
	top := len(st) - 1
	above := make([]uint32, len(st))
	for k := top - 1; k >= 0; k-- {
		above[k] = above[k+1] | st[k+1].Mask
	}
	joined := make([]bool, len(st))
	for k := 0; k < top; k++ {
		e := st[k]
		joined[k] = e.PC == e.RPC
		for _, a := range st[k+1:] {
			joined[k] = joined[k] || a.RPC == e.PC
		}
	}
	var inner [32]int
	for l := range inner {
		k := top
		for k >= 0 && st[k].Mask>>l&1 == 0 {
			k--
		}
		inner[l] = k
	}
	var out []LaneWait
	for l := 0; l < 32; l++ {
		bit := uint32(1) << l
		if w.valid&bit == 0 {
			continue
		}
		k := inner[l]
		lw := LaneWait{Lane: l, Reason: LaneExited, PC: -1, Group: -1, Reconv: -1}
		if w.exited&bit != 0 || k < 0 {
			out = append(out, lw)
			continue
		}
		for g := len(gs) - 1; g >= 0; g-- {
			if gs[g].Mask&bit != 0 {
				lw.Group = g
				break
			}
		}
		e := st[k]
		lw.PC, lw.With = int(e.PC), e.Mask&^bit
		switch {
		case k == top && w.State == WarpWaiting && w.wait.Kind != WaitNone && w.wait.Lanes&bit != 0:
			lw.Reason, lw.PC = w.wait.Kind.String(), w.wait.PC
		case k == top && len(w.held) > 0 && e.Mask&w.heldLanes() != 0:
			t := w.groupWaitOf(e.Mask)
			lw.Reason, lw.PC = t.Kind.String(), t.PC
		case k == top:
			lw.Reason = LaneRunning
		case joined[k]:
			// The lanes above that have not reached this point yet.
			var away uint32
			for m := 0; m < 32; m++ {
				j := inner[m]
				if above[k]>>m&1 != 0 && w.exited>>m&1 == 0 && j >= 0 && !(joined[j] && st[j].PC == e.PC) {
					away |= 1 << m
				}
			}
			lw.Reason, lw.Awaits = LaneReconvergence, away
		default:
			lw.Reason, lw.Above, lw.Reconv = LaneSuspended, above[k]&^bit, int(e.RPC)
		}
		out = append(out, lw)
	}
	return out
}

// frameBase is where the scheduling of the warp's groups starts: 0 under
// independent scheduling, where the groups of every call and of the
// callers take turns; under the SIMT stack the index of the innermost
// call's first stack entry (0 outside calls).
func (w *Warp) frameBase() int {
	if w.m.indep {
		return 0
	}
	if nf := len(w.frames); nf > 0 {
		return w.frames[nf-1].base
	}
	return 0
}

// frameOf returns the index in w.frames of the innermost call holding
// stack entry i (-1: none). Under independent scheduling a call's entries
// are the subtree of its first entry; under the SIMT stack every entry
// above it.
func (w *Warp) frameOf(i int) int {
	best, bb := -1, -1
	for k := range w.frames {
		b := w.frames[k].base
		if b <= i && b > bb && (!w.m.indep || i < w.blockEnd(b)) {
			best, bb = k, b
		}
	}
	return best
}

// depth returns the number of active calls holding stack entry i.
func (w *Warp) depth(i int) int {
	d := 0
	for k := range w.frames {
		b := w.frames[k].base
		if b <= i && (w.m == nil || !w.m.indep || i < w.blockEnd(b)) {
			d++
		}
	}
	return d
}

// returnPCs returns where the calls holding stack entry i return to,
// innermost first.
func (w *Warp) returnPCs(i int) []int {
	var rets []int
	for {
		k := w.frameOf(i)
		if k < 0 {
			return rets
		}
		b := w.frames[k].base
		rets = append(rets, int(w.stack[b-1].PC))
		i = b - 1
	}
}

// isRoot reports whether stack entry i begins a region that no pc
// reconverges: the kernel's first entry or a callee's.
func (w *Warp) isRoot(i int) bool { return i == 0 || w.stack[i].frame != 0 }

// rebase sets the frames' bases after entries moved (independent
// scheduling).
func (w *Warp) rebase() {
	if len(w.frames) == 0 {
		return
	}
	for i := range w.stack {
		if f := w.stack[i].frame; f > 0 {
			w.frames[f-1].base = i
		}
	}
}

// blockEnd returns the end of the subtree of stack entry i (independent
// scheduling): the entries that follow it at deeper levels, a parent's
// children (which reconverge at its pc) and a caller's callee.
func (w *Warp) blockEnd(i int) int {
	l := w.stack[i].level
	j := i + 1
	for j < len(w.stack) && w.stack[j].level > l {
		j++
	}
	return j
}

// childLanes returns the lanes of the children of parent entry i.
func (w *Warp) childLanes(i int) uint32 {
	var m uint32
	e := w.stack[i]
	for j := i + 1; j < len(w.stack) && w.stack[j].level == e.level+1; j = w.blockEnd(j) {
		m |= w.stack[j].Mask
	}
	return m
}

// schedule prepares the warp's next issue under independent scheduling:
// it settles the groups (drops finished paths, resumes reconverged
// regions, lets lanes that waited ReconvergeWait instructions go on, at a
// reconvergence point or after returning from a call) and rotates the next
// group, in round-robin order of lowest lane, to the top of the stack. The
// groups of every call take turns with those of its callers: a group in a
// call is not runnable itself (its lanes are in the callee's groups).
//
// Most picks take a quick path that decides exactly what the general one
// would, in the shapes where settling changes nothing but the waiting
// clocks: the pick before stands or rotates among the same paths
// (onLine), the regions nest in a line with the paths on top
// (scheduleLine), or any tree without calls, barriers or warp-synchronous
// instructions (scheduleFast). Everything else goes through settle and
// the general pick below.
func (w *Warp) schedule() bool {
	w.prevPC, w.prevMask, w.prevLane = w.lastPC, w.lastMask, w.lastLane
	if len(w.held) > 0 {
		// Group waits: the general pick, which leaves their groups out;
		// those whose wait is over issue again.
		w.lineLen = 0
		w.endGroupWaits()
		return w.schedulePick()
	}
	if w.lineLen != 0 {
		if !schedGeneralOnly && w.onLine() {
			return true
		}
		w.lineLen = 0
	}
	if !schedGeneralOnly && len(w.frames) == 0 && (w.scheduleLine() || w.scheduleFast()) {
		return true
	}
	return w.schedulePick()
}

// schedulePick is schedule's general pick. It reports false, making the
// warp wait, when no group can issue because groups wait (group waits);
// holdSettle makes the warp wait before that whenever the pick would.
func (w *Warp) schedulePick() bool {
	lo := w.frameBase()
	held := len(w.held) > 0
	if !held && (len(w.stack)-lo <= 1 || w.chain()) {
		w.pick = PickOnly
		return true
	}
	w.settle(lo)
	if held {
		w.splitHeld()
	}
	if !held && len(w.stack)-lo <= 1 {
		w.pick = PickOnly
		return true
	}
	// Runnable leaves, and the next one after the last issued lane. A
	// leaf at a warp-synchronous instruction whose member lanes are
	// elsewhere waits for them (it is not runnable), and so does a leaf
	// at bar.sync until every live lane of the warp is at one. When every
	// leaf waits: lanes waiting at a reconvergence point go on at once if
	// a leaf waits at a barrier (they would reach one); otherwise the
	// lanes waited for can never arrive, and the next leaf issues anyway
	// (a warp-synchronous instruction faults naming them; a barrier makes
	// the warp arrive with all its live lanes, the SIMT-stack rule).
	var best, first, bestKey, firstKey, count int
pick:
	for {
		best, first = -1, -1
		bestKey, firstKey = 33, 33
		count = 0
		bar := w.barrierLanes(lo)
		full := bar != 0 && bar == w.valid&^w.exited
		barWait := false
		for pass := 0; pass < 2 && count == 0; pass++ {
			if pass == 1 && held {
				// The groups that wait for lanes of waiting groups wait
				// with them.
				break
			}
			if pass == 1 && barWait && w.forceRelease(lo) {
				continue pick
			}
			for i := lo; i < len(w.stack); i++ {
				e := &w.stack[i]
				if e.parent || e.call || e.Mask == 0 || held && w.isHeld(e) {
					continue
				}
				if pass == 0 {
					if !full && w.atBarrier(e) {
						barWait = true
						continue
					}
					if _, away, ok := w.syncJoin(i, lo, true); ok && away != 0 {
						continue
					}
				}
				count++
				k := bits.TrailingZeros32(e.Mask)
				if k < firstKey {
					first, firstKey = i, k
				}
				if k > int(w.lastLane) && k < bestKey {
					best, bestKey = i, k
				}
			}
		}
		break
	}
	if best < 0 {
		best, bestKey = first, firstKey
	}
	if best < 0 {
		if held {
			w.State = WarpWaiting
			return false
		}
		return true
	}
	w.pick = PickRoundRobin
	if count == 1 {
		w.pick = PickOnly
	}
	w.lastLane = int8(bestKey)
	if best != len(w.stack)-1 {
		w.raise(lo, best)
		w.rebase()
	}
	return true
}

// groupWaitOf returns the first group wait holding lanes of mask.
func (w *Warp) groupWaitOf(mask uint32) Wait {
	for _, t := range w.held {
		if t.Lanes&mask != 0 {
			return t
		}
	}
	return Wait{}
}

// chain reports whether the warp runs one group inside calls: every
// entry below the top is a caller whose lanes are all in its call (the
// path of a call without divergence, which needs no scheduling).
func (w *Warp) chain() bool {
	n := len(w.stack) - 1
	for i := 0; i < n; i++ {
		if e := &w.stack[i]; !e.call || e.waiting != 0 || e.parent {
			return false
		}
	}
	return !w.stack[n].parent
}

// raise reorders sibling subtrees so that leaf k ends up at the top of the
// stack: at every level the block holding k becomes its parent's last
// child. Siblings of a region are independent, so their order is free.
func (w *Warp) raise(node, k int) {
	for node < k {
		e := w.stack[node]
		if !e.parent {
			if !e.call {
				return
			}
			node++ // into the callee's subtree
			continue
		}
		end := len(w.stack)
		j := node + 1
		var bs, be int
		for j < end && w.stack[j].level == e.level+1 {
			je := w.blockEnd(j)
			if j <= k && k < je {
				bs, be = j, je
			}
			j = je
		}
		if be == 0 {
			return
		}
		if be < end {
			// stack[bs:end] = chosen ++ rest → rest ++ chosen
			rotate(w.stack[bs:end], be-bs)
			k += end - be
			bs = end - (be - bs)
		}
		node = bs
	}
}

// rotate moves the first n entries of s to its end, keeping the order of
// both parts, in place.
func rotate(s []StackEntry, n int) {
	if n == 1 {
		// The common case: one leaf moves past its siblings.
		e := s[0]
		copy(s, s[1:])
		s[len(s)-1] = e
		return
	}
	reverse(s[:n])
	reverse(s[n:])
	reverse(s)
}

func reverse(s []StackEntry) {
	for i, j := 0, len(s)-1; i < j; i, j = i+1, j-1 {
		s[i], s[j] = s[j], s[i]
	}
}

// schedGeneralOnly turns the quick paths of schedule off (tests compare
// them with the general one).
var schedGeneralOnly bool

// fastMax bounds the stack entries and tree levels scheduleFast handles.
const fastMax = 16

// scheduleFast is schedule in the common case, in one pass over the
// stack: no calls, every path still has lanes and is short of its
// reconvergence point, every region still has paths and no waiting lanes
// are due to go on, and no path is at a barrier or a warp-synchronous
// instruction. Then settle changes nothing but the waiting clocks (lanes
// that arrived since the last pick start them), and the pick is the leaf
// whose lowest lane comes next after the last issued one. It reports false,
// having changed nothing that schedule would not, when the case is not
// the common one: schedule then does the general work.
func (w *Warp) scheduleFast() bool {
	n := len(w.stack)
	if len(w.frames) != 0 || n > fastMax {
		return false
	}
	if n <= 1 {
		w.pick = PickOnly
		return true
	}
	// kids[i]: the lanes of the direct children of parent entry i; open[l]:
	// the latest entry at level l (in the stack's preorder, the parent of
	// the next entry one level deeper).
	var kids [fastMax]uint32
	var open [fastMax]int8
	best, first, bestKey, firstKey, count := -1, -1, 33, 33, 0
	last := int(w.lastLane)
	base, prev := w.stack[0].level, int32(-1)
	for i := 0; i < n; i++ {
		e := &w.stack[i]
		l := e.level - base
		// Levels as the tree keeps them: the first entry holds all the
		// others, and an entry is at most one level below the one before.
		if l >= fastMax || l > prev+1 || i > 0 && l < 1 || e.call {
			return false
		}
		prev = l
		open[l] = int8(i)
		if l > 0 {
			kids[open[l-1]] |= e.Mask
		}
		if e.parent {
			if i+1 >= n || w.stack[i+1].level <= l {
				return false // the region reconverged
			}
			continue
		}
		if e.Mask == 0 || e.PC < 0 || i > 0 && (e.PC == e.RPC || e.frame != 0) {
			return false
		}
		if !w.plainAt(e.PC) {
			return false
		}
		count++
		k := bits.TrailingZeros32(e.Mask)
		if k < firstKey {
			first, firstKey = i, k
		}
		if k > last && k < bestKey {
			best, bestKey = i, k
		}
	}
	if count == 0 {
		return false
	}
	// The waiting clocks, in stack order as settle keeps them; lanes due
	// to go on leave the rest to settle (which finds the clocks it
	// already updated as they are).
	for i := 0; i < n; i++ {
		e := &w.stack[i]
		if !e.parent || e.PC < 0 {
			continue
		}
		waiting := e.Mask &^ kids[i]
		if waiting != e.waiting {
			if waiting&^e.waiting != 0 {
				e.since = w.issued
			}
			e.waiting = waiting
		}
		if waiting != 0 && w.issued-e.since >= ReconvergeWait {
			return false
		}
	}
	if best < 0 {
		best, bestKey = first, firstKey
	}
	w.pick = PickRoundRobin
	if count == 1 {
		w.pick = PickOnly
	}
	w.lastLane = int8(bestKey)
	if best != n-1 {
		w.raise(0, best)
	}
	return true
}

// scheduleLine is scheduleFast when the warp's regions nest in a line
// and only the innermost one has paths that are not regions themselves:
// every entry below the first path is a region whose only path is the
// entry above it (a loop some of whose lanes left, an if whose other side
// finished), and the paths that follow are the innermost region's (the
// sides of an if/else that take turns). The pick is then among those
// paths, which raise moves by rotating them, and settling only starts
// the waiting clocks.
func (w *Warp) scheduleLine() bool {
	s := w.stack
	n := len(s)
	if n < 2 {
		return false
	}
	// The regions: each one level below the one before.
	f := 0
	lv := s[0].level
	for f < n && s[f].parent {
		if s[f].level != lv {
			return false
		}
		lv++
		f++
	}
	if f == 0 || f == n {
		return false
	}
	// The paths: all of the innermost region.
	lead := w.m.prog.lead
	var paths uint32
	impure := false
	for i := f; i < n; i++ {
		e := &s[i]
		if e.parent || e.call || e.level != lv || e.frame != 0 || e.Mask == 0 || e.PC < 0 || e.PC == e.RPC {
			return false
		}
		if int(e.PC) >= len(lead) || lead[e.PC] == leadStop {
			impure = true
		}
		paths |= e.Mask
	}
	if impure {
		for i := f; i < n; i++ {
			if !w.plainAt(s[i].PC) {
				return false
			}
		}
	}
	// The waiting clocks, in stack order as settle keeps them; lanes due
	// to go on leave the rest to settle (which finds the clocks it
	// already updated as they are).
	due := int64(math.MaxInt64)
	for i := 0; i < f; i++ {
		e := &s[i]
		if e.PC < 0 {
			continue
		}
		kids := paths
		if i < f-1 {
			kids = s[i+1].Mask
		}
		waiting := e.Mask &^ kids
		if waiting != e.waiting {
			if waiting&^e.waiting != 0 {
				e.since = w.issued
			}
			e.waiting = waiting
		}
		if waiting != 0 {
			if w.issued-e.since >= ReconvergeWait {
				return false
			}
			due = min(due, e.since+ReconvergeWait)
		}
	}
	w.lineLen, w.lineFirst, w.lineNext, w.lineDue = int32(n), int32(f), w.issued+1, due
	if f == n-1 {
		w.pick = PickOnly
		w.lastLane = int8(bits.TrailingZeros32(s[f].Mask))
		w.lineMask = s[f].Mask
		return true
	}
	w.nextPath(f)
	return true
}

// linePop is scheduleLine after the path on top of a line popped: the
// last pick found the stack in a line of ns entries with the paths from
// entry f on (onLine's memo), the top path then ran one instruction that
// reached its reconvergence point, and unwind removed exactly that entry.
// The regions below are unchanged, and so are the other paths (none of
// them issued since they were checked), so the stack is still a line:
// with the remaining paths when there are some, whose region's waiting
// lanes gain the popped ones (their clock starts now); otherwise with the
// innermost region, which unwind made a path again, as the one path (the
// region below it has the same child lanes). It makes scheduleLine's pick
// and memo and reports true, or reports false having changed nothing
// (schedule decides). The memo's due time may be earlier than
// scheduleLine's (a region whose clock restarted or that reconverged is
// still counted): onLine then only hands the pick to scheduleLine
// sooner.
func (w *Warp) linePop(f, ns int) bool {
	s := w.stack
	n := len(s)
	if n != ns-1 || len(w.frames) != 0 || f < 1 || w.issued >= w.lineDue {
		// Not one entry popped, or waiting lanes may be due to go on.
		return false
	}
	if f < n {
		// Paths remain: the region's waiting lanes gain the popped ones.
		var paths uint32
		for i := f; i < n; i++ {
			paths |= s[i].Mask
		}
		if e := &s[f-1]; e.PC >= 0 {
			waiting := e.Mask &^ paths
			if waiting != e.waiting {
				if waiting&^e.waiting != 0 {
					e.since = w.issued
				}
				e.waiting = waiting
			}
			if waiting != 0 {
				w.lineDue = min(w.lineDue, e.since+ReconvergeWait)
			}
		}
	} else {
		// The region reconverged: it is the one path.
		f--
		t := &s[f]
		if f < 1 || t.parent || t.call || t.frame != 0 || t.Mask == 0 || t.PC < 0 || t.PC == t.RPC || t.level != s[f-1].level+1 || !w.plainAt(t.PC) {
			return false
		}
	}
	w.lineLen, w.lineFirst, w.lineNext = int32(n), int32(f), w.issued+1
	if f == n-1 {
		w.pick = PickOnly
		w.lastLane = int8(bits.TrailingZeros32(s[f].Mask))
		w.lineMask = s[f].Mask
		return true
	}
	w.nextPath(f)
	return true
}

// nextPath picks, among the paths from stack entry f on, the next one by
// lowest lane after the last issued lane, and rotates it to the top (what
// raise does when the regions below each hold the rest of the stack as
// their one path and the paths are one entry each).
func (w *Warp) nextPath(f int) {
	s := w.stack
	n := len(s)
	last := int(w.lastLane)
	best, first, bestKey, firstKey := -1, -1, 33, 33
	for i := f; i < n; i++ {
		k := bits.TrailingZeros32(s[i].Mask)
		if k < firstKey {
			first, firstKey = i, k
		}
		if k > last && k < bestKey {
			best, bestKey = i, k
		}
	}
	if best < 0 {
		best, bestKey = first, firstKey
	}
	w.pick = PickRoundRobin
	w.lastLane = int8(bestKey)
	if best != n-1 {
		rotate(s[best:], 1)
	}
	w.lineMask = s[n-1].Mask
}

// onLine decides the pick from the last one when that found the stack in
// a line (scheduleLine) and the warp issued one instruction since, from
// the path picked, which kept its lanes and the stack's depth: then the
// stack is as it was but for that path's pc (an instruction that
// diverged, reconverged, exited lanes or called changes the depth or the
// path's lanes), the waiting lanes are the same, and the pick is the next
// of the same paths, unless the path's new instruction needs the general
// rules or waiting lanes are due to go on.
func (w *Warp) onLine() bool {
	s := w.stack
	n := len(s)
	t := &s[n-1]
	if int32(n) != w.lineLen || w.issued != w.lineNext || t.Mask != w.lineMask || w.issued >= w.lineDue ||
		t.parent || t.PC < 0 || t.PC == t.RPC || len(w.frames) != 0 {
		return false
	}
	if lead := w.m.prog.lead; int(t.PC) >= len(lead) || lead[t.PC] == leadStop {
		if !w.plainAt(t.PC) {
			return false
		}
	}
	w.lineNext++
	if f := int(w.lineFirst); f != n-1 {
		w.nextPath(f)
		return true
	}
	w.pick = PickOnly
	return true
}

// plainAt reports that the instruction at pc is neither a barrier nor a
// warp-synchronous instruction (register-only instructions never are):
// a group there is runnable without looking at the other groups. (A
// bar.arrive, which does not wait, counts as a barrier here: the general
// pick decides.)
func (w *Warp) plainAt(pc int32) bool {
	p := w.m.prog
	if int(pc) < len(p.lead) && p.lead[pc] != leadStop {
		return true
	}
	return plainOp(&p.Ops[pc])
}

func plainOp(op *Op) bool {
	if op.Eff.Has(EffBarrier) {
		return false
	}
	_, sync := warpSyncSlot(op)
	return !sync
}

// settle tidies the entries above lo: a path at its reconvergence point
// or without lanes is removed (its lanes wait in the parent); a parent
// whose children are all gone resumes with the merged lanes (the region
// reconverged); lanes that waited ReconvergeWait instructions leave their
// region and go on as a sibling of it, and so do lanes that returned from
// a call and waited that long in the caller for the call's other lanes.
func (w *Warp) settle(lo int) {
	defer w.rebase()
	for changed := true; changed; {
		changed = false
		for i := len(w.stack) - 1; i > lo; i-- {
			e := &w.stack[i]
			if !e.parent && !e.call && e.frame == 0 && (e.Mask == 0 || e.PC == e.RPC) {
				w.stack = append(w.stack[:i], w.stack[i+1:]...)
				changed = true
				continue
			}
			if !e.parent {
				continue
			}
			if i+1 >= len(w.stack) || w.stack[i+1].level <= e.level {
				// Every path arrived: the region reconverged.
				e.parent = false
				if e.Mask != 0 && e.PC >= 0 && w.m.obsEvents {
					w.m.pendReconv = append(w.m.pendReconv, Event{Kind: EvReconverge, PC: int(e.PC), Mask: e.Mask})
				}
				changed = true
			}
		}
		if r := &w.stack[lo]; r.parent && (lo+1 >= len(w.stack) || w.stack[lo+1].level <= r.level) {
			r.parent = false
			if r.Mask != 0 && r.PC >= 0 && w.m.obsEvents {
				w.m.pendReconv = append(w.m.pendReconv, Event{Kind: EvReconverge, PC: int(r.PC), Mask: r.Mask})
			}
			changed = true
		}
	}
	// Waiting lanes: start their clock when more arrive, release them when
	// it runs out.
	for i := lo; i < len(w.stack); i++ {
		e := &w.stack[i]
		if e.call && e.waiting != 0 && w.issued-e.since >= ReconvergeWait {
			// Lanes that returned go on alone after the call, as a path of
			// the caller's region; the call goes on with the others.
			gone := e.waiting
			fr := &w.frames[w.stack[i+1].frame-1]
			w.returnLanes(fr, gone, gone)
			fr.retMask &^= gone
			fr.lanes &^= gone
			e.Mask &^= gone
			e.waiting = 0
			w.goOn(i, StackEntry{PC: e.PC, RPC: e.RPC, Mask: gone})
			return
		}
		if !e.parent || e.PC < 0 {
			continue
		}
		waiting := e.Mask &^ w.childLanes(i)
		if waiting != e.waiting {
			if waiting&^e.waiting != 0 {
				e.since = w.issued
			}
			e.waiting = waiting
		}
		if waiting == 0 || w.issued-e.since < ReconvergeWait {
			continue
		}
		// The waiting lanes go on alone from the reconvergence point, as a
		// path of the enclosing region.
		e.Mask &^= waiting
		e.waiting = 0
		w.goOn(i, StackEntry{PC: e.PC, RPC: e.RPC, Mask: waiting})
		return
	}
}

// goOn puts path g, lanes that leave entry i, next to it as a path of the
// region holding i. When i begins a region that no pc reconverges (the
// kernel's or a callee's first entry), a new first entry holds both: a
// root that never reconverges by pc.
func (w *Warp) goOn(i int, g StackEntry) {
	e := &w.stack[i]
	g.level = e.level
	if !w.isRoot(i) {
		w.stack = append(w.stack[:i], append([]StackEntry{g}, w.stack[i:]...)...)
		return
	}
	root := StackEntry{PC: -1, RPC: e.RPC, Mask: e.Mask | g.Mask, parent: true, frame: e.frame, level: e.level}
	for j, end := i, w.blockEnd(i); j < end; j++ {
		w.stack[j].level++
	}
	e.RPC, e.frame = -1, 0
	g.RPC, g.level = -1, root.level+1
	w.stack = append(w.stack[:i], append([]StackEntry{root, g}, w.stack[i:]...)...)
}

// wholeWarp is the membermask "slot" of the .aligned warp collectives:
// they wait for every existing lane of the warp.
const wholeWarp int32 = -2

// warpSyncSlot returns the membermask slot of op when it is a
// warp-synchronous instruction whose lanes wait for their membermask under
// independent scheduling: shfl.sync, vote.sync, match.sync, redux.sync,
// elect.sync and bar.warp.sync; wholeWarp for the .sync.aligned warp
// collectives (mma, wmma.*, ldmatrix, stmatrix, movmatrix), which wait
// for every thread of the warp.
func warpSyncSlot(op *Op) (int32, bool) {
	switch {
	case op.Eff.Has(EffWarpSync):
		return op.Mask, true
	case op.Eff.Has(EffAligned):
		return wholeWarp, true
	}
	return -1, false
}

// syncJoin looks at leaf i (above lo) under independent scheduling when its
// pc holds a warp-synchronous instruction (ok): group is its lanes and
// those of the other groups at the same pc that its membermasks (and
// theirs, transitively) name, which execute the instruction together with
// it; away are the live member lanes that are elsewhere (in groups at
// other pcs, waiting at a reconvergence point, or in a caller), for which
// the group has to wait.
func (w *Warp) syncJoin(i, lo int, wantAway bool) (group, away uint32, ok bool) {
	e := w.stack[i]
	if e.parent || e.call || e.Mask == 0 || e.PC < 0 {
		return 0, 0, false
	}
	op := &w.m.prog.Ops[e.PC]
	slot, ok := warpSyncSlot(op)
	if !ok {
		return 0, 0, false
	}
	guard := ^uint32(0)
	if op.Guard >= 0 {
		guard = w.preds[op.Guard]
		if op.GuardNeg {
			guard = ^guard
		}
	}
	var mm *[32]uint64
	if slot != wholeWarp {
		mm = w.r(slot)
	}
	group = e.Mask
	var need uint32
	for changed := true; changed; {
		changed = false
		need = 0
		if mm == nil {
			if group&guard != 0 {
				need = w.valid
			}
		} else {
			for m := group & guard; m != 0; m &= m - 1 {
				need |= uint32(mm[bits.TrailingZeros32(m)])
			}
		}
		if need&^group == 0 {
			break
		}
		for j := lo; j < len(w.stack); j++ {
			f := &w.stack[j]
			if j == i || f.parent || f.call || f.Mask&group != 0 || f.Mask&need == 0 || !sameSync(w.m.prog, op, f.PC, e.PC) || w.isHeld(f) {
				continue
			}
			group |= f.Mask
			changed = true
		}
	}
	away = need &^ group & w.valid &^ w.exited
	if away != 0 && wantAway {
		// Lanes that can no longer execute a warp-synchronous
		// instruction with these lanes (they only go on to exit) are not
		// waited for, as exited lanes are not.
		away = w.lanesMaySync(away, group&guard, group, i)
	}
	return group, away, true
}

// sameSync reports whether a group at pc executes the warp-synchronous
// instruction op (at opPC) together with the group there: the same
// instruction, or for bar.warp.sync another bar.warp.sync with the same
// membermask operand (the ISA makes a thread wait until the threads of
// membermask "have executed a bar.warp.sync", not the same one) and the
// same guard.
func sameSync(p *Program, op *Op, pc, opPC int32) bool {
	if pc == opPC {
		return true
	}
	if pc < 0 || op.Code != isa.OpBarWarpSync {
		return false
	}
	o := &p.Ops[pc]
	return o.Code == isa.OpBarWarpSync && o.A == op.A && o.Guard == op.Guard && o.GuardNeg == op.GuardNeg
}

// atBarrier reports whether leaf e is at a bar.sync, barrier.sync or
// bar.red that some of its lanes execute (guard true): under independent
// scheduling its lanes wait there for the other live lanes of the warp.
func (w *Warp) atBarrier(e *StackEntry) bool {
	if e.parent || e.call || e.Mask == 0 || e.PC < 0 {
		return false
	}
	op := &w.m.prog.Ops[e.PC]
	if !op.Eff.Has(EffBarrier | EffBlocks) { // a barrier it waits at, not one it only arrives at
		return false
	}
	if op.Guard >= 0 {
		p := w.preds[op.Guard]
		if op.GuardNeg {
			p = ^p
		}
		return e.Mask&p != 0
	}
	return true
}

// barrierLanes returns the lanes of the leaves above lo that are at a
// barrier (atBarrier).
func (w *Warp) barrierLanes(lo int) uint32 {
	var m uint32
	for i := lo; i < len(w.stack); i++ {
		if e := &w.stack[i]; w.atBarrier(e) && !w.isHeld(e) {
			m |= e.Mask
		}
	}
	return m
}

// barrierKey is what the threads of a diverged warp waiting at barriers
// must agree on, since the warp arrives once for all of them: the
// operation, the barrier id, the thread count (0: all) and, for bar.red,
// the predicate operand.
type barrierKey struct {
	sub, sub2 isa.SubOp
	id, count uint64
	pred      int32
	neg       uint8
}

// barrierOf returns the key of leaf e at a barrier, read from its first
// executing lane, and the executing lanes whose id or count differ from
// it.
func (w *Warp) barrierOf(e *StackEntry) (barrierKey, uint32) {
	op := &w.m.prog.Ops[e.PC]
	ex := e.Mask
	if op.Guard >= 0 {
		p := w.preds[op.Guard]
		if op.GuardNeg {
			p = ^p
		}
		ex &= p
	}
	k := barrierKey{sub: op.Sub, pred: -1}
	if op.Sub == isa.SubRed {
		k.sub2, k.pred, k.neg = op.Sub2, op.C, op.Neg&4
	}
	if ex == 0 {
		return k, 0
	}
	ids := w.r(op.A)
	var counts *[32]uint64
	if op.B >= 0 {
		counts = w.r(op.B)
	}
	l0 := bits.TrailingZeros32(ex)
	k.id = ids[l0]
	if counts != nil {
		k.count = counts[l0] & 0xffffffff
	}
	var odd uint32
	for m := ex; m != 0; m &= m - 1 {
		l := bits.TrailingZeros32(m)
		if ids[l] != k.id || counts != nil && counts[l]&0xffffffff != k.count {
			odd |= 1 << l
		}
	}
	return k, odd
}

// barrierAgree checks, before the groups of a diverged warp at barriers
// execute together (the top one issuing), that they wait at the same
// barrier: same operation, barrier id and thread count in every executing
// lane (and the same predicate for bar.red). They need not be the same
// instruction. Otherwise it returns a barrier-mismatch fault naming the
// lanes that disagree with the issuing group and where they wait.
func (w *Warp) barrierAgree(lo int) *Fault {
	top := &w.stack[len(w.stack)-1]
	want, odd := w.barrierOf(top)
	op := &w.m.prog.Ops[top.PC]
	describe := func(k barrierKey) string {
		s := fmt.Sprintf("barrier %d", k.id)
		if k.count != 0 {
			s += fmt.Sprintf(" with thread count %d", k.count)
		}
		if k.sub == isa.SubRed {
			s += fmt.Sprintf(" (.red.%s)", k.sub2)
		}
		return s
	}
	if odd != 0 {
		return w.faultAll(FaultBarrierMismatch, top.Mask, "%s: lane(s) %s name a different barrier id or thread count than lane %d (%s): the threads of a warp arrive at a barrier together", op.Code, warpLaneList(odd), firstLane(top.Mask&^odd), describe(want))
	}
	for i := lo; i < len(w.stack)-1; i++ {
		e := &w.stack[i]
		if !w.atBarrier(e) || w.isHeld(e) {
			continue
		}
		k, odd := w.barrierOf(e)
		if k == want && odd == 0 {
			continue
		}
		return w.faultAll(FaultBarrierMismatch, top.Mask|e.Mask, "%s: the diverged threads of the warp wait at different barriers: lane(s) %s at pc %d (%s), lane(s) %s at pc %d (%s); under independent scheduling the warp arrives once for all its threads, so they must wait at the same barrier with the same thread count", op.Code, warpLaneList(top.Mask), top.PC, describe(want), warpLaneList(e.Mask), e.PC, describe(k))
	}
	return nil
}

// forceRelease lets the lanes of one region waiting at its reconvergence
// point (or lanes waiting after a return for the rest of their call) go
// on at once, as if their ReconvergeWait had run out: every
// runnable group waits, some at a barrier that needs these lanes. It
// reports whether there were such lanes.
func (w *Warp) forceRelease(lo int) bool {
	for i := lo; i < len(w.stack); i++ {
		e := &w.stack[i]
		if e.call && e.waiting != 0 || e.parent && e.PC >= 0 && e.Mask&^w.childLanes(i) != 0 {
			e.since = w.issued - ReconvergeWait
			w.settle(lo)
			return true
		}
	}
	return false
}

// PickReasons lists every PickReason's name, in order (the protocol's
// generated TypeScript union).
func PickReasons() []string { return append([]string(nil), pickNames...) }

// GroupStates lists every GroupState's name, in order.
func GroupStates() []string { return append([]string(nil), groupStateNames...) }
