package sessions

import (
	"github.com/ptxplayground/ptxplay/engine/emu"
)

// The thread-group view (docs/protocol.md, "threads"): under independent
// thread scheduling the divergent paths of a warp are thread groups that
// take turns (emu.Warp.Groups); every warp summary carries its groups, and
// the selected warp's state adds why the scheduler issued its last group and
// why each lane is or is not issuing. Everything is read from the machine at
// the position shown: back and seek restore the machine (the snapshots keep
// the groups, the waiting clocks and the round-robin position), so the view
// is exact at every step of the history.

// maxGroups caps the groups a warp summary lists (a warp of 32 lanes has
// few; deep recursion inside calls can stack more).
const maxGroups = 64

// groupJSON is one thread group of a warp.
type groupJSON struct {
	PC   int `json:"pc"`   // where its lanes continue (-1: returning from the kernel)
	Line int `json:"line"` // its source line (0: none)
	// CUDALine: the CUDA line of pc (CUDA programs; absent: none).
	CUDALine int `json:"cudaLine,omitempty"`
	// Lanes: the group's lanes (hex mask).
	Lanes string `json:"lanes"`
	// State: "runnable", "waiting" (at its reconvergence point), "sync-wait"
	// (at a warp-synchronous instruction, for member lanes elsewhere),
	// "barrier-wait" (at a barrier, for the warp's other live lanes),
	// "at-wait" (the lanes wait for the warp's wait, at its pc),
	// "in-call" (its lanes are in a call) or "suspended" (SIMT stack: below
	// the top).
	State string `json:"state"`
	// Reconv and ReconvLine: where the lanes reconverge (-1 and 0: at exit
	// or return).
	Reconv     int `json:"reconv"`
	ReconvLine int `json:"reconvLine"`
	// ReconvCUDALine: the CUDA line of reconv (CUDA programs; absent:
	// none).
	ReconvCUDALine int `json:"reconvCudaLine,omitempty"`
	// WaitLeft (waiting): the warp's instructions left before the lanes go
	// on alone.
	WaitLeft int `json:"waitLeft,omitempty"`
	// Picked: the group the warp issued its last instruction from (the top
	// of the stack).
	Picked bool `json:"picked,omitempty"`
	// Depth: the call depth of its lanes.
	Depth int `json:"depth,omitempty"`
	// Awaits (sync-wait): the lanes the group waits for, as the engine
	// decides (emu.ThreadGroup.Awaits): the live lanes named by the
	// membermask of its lanes that are not at the instruction with it,
	// less those that can only go on to exit (hex mask).
	Awaits string `json:"awaits,omitempty"`
}

// threadsJSON is the selected warp's scheduling: its groups, the last
// issue and, for every existing lane, why it is or is not issuing.
type threadsJSON struct {
	CTA  int `json:"cta"` // index among resident CTAs
	Warp int `json:"warp"`
	// Groups as in the warp summary (also under the SIMT stack, where they
	// are the stack's paths).
	Groups        []groupJSON `json:"groups"`
	GroupsOmitted int         `json:"groupsOmitted,omitempty"`
	// Last: the warp's last issue (null before its first instruction).
	Last *issueJSON `json:"last"`
	// Lanes: one entry per lane that holds a thread, in lane order.
	Lanes []laneWaitJSON `json:"lanes"`
}

// issueJSON is a warp's last issue: the group's pc and lanes, and why the
// scheduler picked it: "only" (one runnable group), "round-robin" (the
// groups take turns: the one whose lowest lane comes next after the
// previous group's), "stack" (SIMT stack: the top entry).
type issueJSON struct {
	PC   int `json:"pc"`
	Line int `json:"line"`
	// CUDALine: the CUDA line of pc (CUDA programs; absent: none).
	CUDALine int    `json:"cudaLine,omitempty"`
	Lanes    string `json:"lanes"`
	Reason   string `json:"reason"`
	// After (round-robin): the lane the round robin followed, the lowest
	// lane of the group the scheduler picked before; the issued group's
	// lowest lane is the first of a runnable group after it (wrapping
	// around).
	After *int `json:"after,omitempty"`
	// Prev (round-robin): the warp's issue before this one, as the
	// scheduler saw it when it picked this group.
	Prev *prevIssueJSON `json:"prev,omitempty"`
}

// prevIssueJSON is the issue before a warp's last one: pc, line, lanes.
type prevIssueJSON struct {
	PC   int `json:"pc"`
	Line int `json:"line"`
	// CUDALine: the CUDA line of pc (CUDA programs; absent: none).
	CUDALine int    `json:"cudaLine,omitempty"`
	Lanes    string `json:"lanes"`
}

// laneWaitJSON says why a lane is not issuing: "running" (in the group
// picked last), "turn" (runnable, waiting for its group's turn),
// "reconvergence" (waiting at its reconvergence point: waitLeft more of
// the warp's instructions at most), "sync" (at a warp-synchronous
// instruction, for the lanes of awaits), "barrier", "call" (its group is
// in a call), "suspended" (SIMT stack) or "exited"; pc and line: where.
type laneWaitJSON struct {
	Lane   int    `json:"lane"`
	Reason string `json:"reason"`
	PC     int    `json:"pc"`
	Line   int    `json:"line"`
	// CUDALine: the CUDA line of pc (CUDA programs; absent: none).
	CUDALine int    `json:"cudaLine,omitempty"`
	WaitLeft int    `json:"waitLeft,omitempty"`
	Awaits   string `json:"awaits,omitempty"`
	// Group: the index in groups of the innermost group holding the lane
	// (-1: none, e.g. exited).
	Group int `json:"group"`
	// SIMT stack: with, the other lanes of the lane's path; above
	// (suspended), the lanes of the paths above it, which must reach
	// reconv (line reconvLine; -1: exit) before it goes on (hex masks).
	// Under the SIMT stack a reconvergence lane's awaits are the lanes
	// above it that have not arrived.
	With       string `json:"with,omitempty"`
	Above      string `json:"above,omitempty"`
	Reconv     *int   `json:"reconv,omitempty"`
	ReconvLine int    `json:"reconvLine,omitempty"`
	// ReconvCUDALine: the CUDA line of reconv (CUDA programs; absent:
	// none).
	ReconvCUDALine int `json:"reconvCudaLine,omitempty"`
}

// groupsOf renders a warp's thread groups (at most maxGroups) and how many
// were left out.
func (s *Session) groupsOf(gs []emu.ThreadGroup) ([]groupJSON, int) {
	out := make([]groupJSON, 0, min(len(gs), maxGroups))
	for i, g := range gs {
		if i == maxGroups {
			return out, len(gs) - maxGroups
		}
		j := groupJSON{PC: g.PC, Line: s.prog.line(g.PC), CUDALine: s.cline(g.PC), Lanes: hex32(g.Mask), State: g.State.String(),
			Reconv: g.Reconv, ReconvLine: s.prog.line(g.Reconv), ReconvCUDALine: s.cline(g.Reconv), Picked: g.Picked, Depth: g.Depth}
		if g.State == emu.GroupWaiting {
			j.WaitLeft = g.WaitLeft
		}
		if g.State == emu.GroupSyncWait && g.Awaits != 0 {
			j.Awaits = hex32(g.Awaits)
		}
		out = append(out, j)
	}
	return out, 0
}

// threadsJSON renders the scheduling of warp wi of resident CTA ci.
func (s *Session) threadsJSON(ci int, w *emu.Warp) *threadsJSON {
	gs := w.Groups()
	groups, omitted := s.groupsOf(gs)
	out := &threadsJSON{CTA: ci, Warp: w.ID, Groups: groups, GroupsOmitted: omitted, Lanes: []laneWaitJSON{}}
	if pc, mask, why := w.LastIssue(); mask != 0 {
		out.Last = &issueJSON{PC: pc, Line: s.prog.line(pc), CUDALine: s.cline(pc), Lanes: hex32(mask), Reason: why.String()}
		if why == emu.PickRoundRobin {
			ppc, pmask, after := w.PrevIssue()
			if after >= 0 {
				out.Last.After = &after
			}
			if pmask != 0 {
				out.Last.Prev = &prevIssueJSON{PC: ppc, Line: s.prog.line(ppc), CUDALine: s.cline(ppc), Lanes: hex32(pmask)}
			}
		}
	}
	// Why each lane waits is the engine's (emu.Warp.LaneWaits); this only
	// renders it.
	for _, lw := range w.LaneWaits() {
		j := laneWaitJSON{Lane: lw.Lane, Reason: lw.Reason, PC: lw.PC, Line: s.prog.line(lw.PC), CUDALine: s.cline(lw.PC), Group: lw.Group, WaitLeft: lw.WaitLeft}
		if lw.Awaits != 0 {
			j.Awaits = hex32(lw.Awaits)
		}
		if lw.With != 0 {
			j.With = hex32(lw.With)
		}
		if lw.Reason == "suspended" && lw.Above != 0 {
			r := lw.Reconv
			j.Above, j.Reconv, j.ReconvLine, j.ReconvCUDALine = hex32(lw.Above), &r, s.prog.line(r), s.cline(r)
		}
		if j.Group >= len(groups) {
			j.Group = -1
		}
		out.Lanes = append(out.Lanes, j)
	}
	return out
}
