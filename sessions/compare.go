package sessions

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/ptxplayground/ptxplay/engine/emu"
	"github.com/ptxplayground/ptxplay/engine/launch"
)

// compare-scheduling (docs/protocol.md): run the loaded source and spec to
// an end under both scheduling models, from the start, on machines of
// their own (the session's machine and history stay as they are), and say
// whether the outcomes and the final buffers differ. The runs execute in
// slices between the session's other commands, holding a CPU token like a
// run's slices, each bounded by the budget and both together by the
// longest time one command may take.

// errCompareMemory refuses or stops a comparison while the accounted
// memory is over the limit.
var errCompareMemory = errf("busy", "the server is low on memory: the comparison was not run or was stopped; try again later")

// maxBufferDiffs caps the differing buffers a reply lists.
const maxBufferDiffs = 16

// compareJob is a comparison under way.
type compareJob struct {
	id     *int64
	key    string
	budget int64
	runs   [2]*compareRun
	t0     time.Time
}

// compareRun is the launch under one model.
type compareRun struct {
	sched emu.Scheduling
	l     *launch.Launch
	// outcome, once it ended: done, fault, deadlock, budget or interrupted.
	outcome compareOutcome
}

// compareMsg is the reply.
type compareMsg struct {
	Type string `json:"type"`
	ID   *int64 `json:"id,omitempty"`
	// Budget: the warp-instructions each run could take.
	Budget int64 `json:"budget"`
	// Runs: independent first, then simt-stack.
	Runs []compareRunJSON `json:"runs"`
	// Same: the outcomes (and a fault's kind and line) and every output
	// buffer are the same.
	Same bool `json:"same"`
	// Differences lists what differs: "outcome", "fault", "buffers".
	Differences []string `json:"differences"`
	// Buffers are the output buffers that differ (at most 16;
	// buffersOmitted counts the rest).
	Buffers        []bufferDiffJSON `json:"buffers"`
	BuffersOmitted int              `json:"buffersOmitted,omitempty"`
	// Cancelled: a load replaced the program before the runs ended.
	Cancelled bool `json:"cancelled,omitempty"`
}

// compareRunJSON is how the launch ended under one model: "done" (every
// thread exited), "fault", "deadlock" (a barrier deadlock, a fault too),
// "budget" (the budget was spent first) or "interrupted" (the time limit
// of one command was reached first).
type compareOutcome string

// compareOutcomes lists every compareOutcome (the generated TypeScript
// union CompareOutcome).
var compareOutcomes = []compareOutcome{outcomeDone, outcomeFault, outcomeDeadlock, outcomeBudget, outcomeInterrupted}

const (
	outcomeDone        compareOutcome = "done"
	outcomeFault       compareOutcome = "fault"
	outcomeDeadlock    compareOutcome = "deadlock"
	outcomeBudget      compareOutcome = "budget"
	outcomeInterrupted compareOutcome = "interrupted"
)

type compareRunJSON struct {
	Scheduling       string            `json:"scheduling"`
	Outcome          compareOutcome    `json:"outcome"`
	WarpInstructions int64             `json:"warpInstructions"`
	Fault            *compareFaultJSON `json:"fault,omitempty"`
	// Current: the session's launch runs under this model.
	Current bool `json:"current"`
}

type compareFaultJSON struct {
	Kind    string `json:"kind"`
	Message string `json:"message"`
	Line    int    `json:"line"`
}

// bufferDiffJSON is an output buffer whose final contents differ: how many
// elements differ and the first 8 of them with their value under each
// model (in runs order).
type bufferDiffJSON struct {
	Name     string         `json:"name"`
	Elements int            `json:"elements"`
	Samples  []elemDiffJSON `json:"samples"`
}

// maxElemDiffs caps the samples of a differing buffer.
const maxElemDiffs = 8

type elemDiffJSON struct {
	Index  int       `json:"index"`
	Values [2]string `json:"values"`
}

// startCompare begins a comparison (or answers at once from the last one
// when the program, spec and budget are the same).
func (s *Session) startCompare(msg *clientMsg) {
	budget := s.lim.MaxWarpInstructions
	if b := s.spec.MaxWarpInstructions; b > 0 {
		budget = min(budget, b)
	}
	if msg.MaxWarpInstructions != nil && *msg.MaxWarpInstructions > 0 {
		budget = min(budget, *msg.MaxWarpInstructions)
	}
	// The runs do not depend on the spec's model: both are run.
	anyModel := *s.spec
	anyModel.Scheduling = ""
	key := fmt.Sprintf("%x\x00%s\x00%d", sha256.Sum256(s.prog.prog.Src.Text), specKey(&anyModel), budget)
	if s.cmpLast != nil && s.cmpLast.key == key {
		r := *s.cmpLast.msg
		r.ID = msg.ID
		r.Runs = slices.Clone(r.Runs)
		for i := range r.Runs {
			r.Runs[i].Current = r.Runs[i].Scheduling == string(s.m.Scheduling())
		}
		s.send(encode(&r))
		return
	}
	if s.cmp != nil {
		s.cancelCompare()
	}
	if s.mgr.memoryHigh(2 * (launch.GlobalBytes(s.prog.prog, s.spec) + machineBytes(s.m))) {
		s.send(errReply(msg.ID, errCompareMemory))
		return
	}
	j := &compareJob{id: msg.ID, key: key, budget: budget, t0: time.Now()}
	for i, sched := range []emu.Scheduling{emu.SchedIndependent, emu.SchedSIMTStack} {
		spec := *s.spec
		spec.Scheduling = string(sched)
		spec.MaxWarpInstructions = budget
		l, err := s.newLaunch(&spec)
		if err != nil {
			s.send(errReply(msg.ID, err))
			return
		}
		j.runs[i] = &compareRun{sched: sched, l: l}
	}
	s.cmp = j
	s.account(true)
}

// cancelCompare drops the comparison under way, telling the client.
func (s *Session) cancelCompare() {
	if j := s.cmp; j != nil {
		s.cmp = nil
		s.send(encode(&compareMsg{Type: "scheduling-compare", ID: j.id, Budget: j.budget, Runs: []compareRunJSON{},
			Differences: []string{}, Buffers: []bufferDiffJSON{}, Cancelled: true}))
	}
}

// compareBytes is the memory the comparison's launches hold.
func (s *Session) compareBytes() int64 {
	j := s.cmp
	if j == nil || s.prog == nil || s.spec == nil {
		return 0
	}
	var n int64
	for _, r := range j.runs {
		if r != nil && r.l != nil {
			n += launch.GlobalBytes(s.prog.prog, s.spec) + machineBytes(r.l.Machine())
		}
	}
	return n
}

// compareSlice advances the comparison by up to s.sliceN warp-instructions
// of the first run that has not ended; the reply goes when both have.
func (s *Session) compareSlice() {
	j := s.cmp
	if s.account(s.prog.grows); s.mgr.memoryHigh(0) {
		// The machines are charged (chargeCompare) as they grow; over the
		// manager's limit the comparison ends rather than the process.
		s.cmp = nil
		s.account(true)
		s.send(errReply(j.id, errCompareMemory))
		return
	}
	if time.Since(j.t0) >= s.lim.MaxCommandTime {
		for _, r := range j.runs {
			if r.outcome == "" {
				r.outcome = outcomeInterrupted
			}
		}
	}
	for _, r := range j.runs {
		if r.outcome != "" {
			continue
		}
		m := r.l.Machine()
		t0 := time.Now()
		for i := 0; i < s.sliceN && r.outcome == ""; i++ {
			switch m.Issue(false) {
			case emu.StopStepped, emu.StopBreakpoint:
			case emu.StopDone:
				r.outcome = outcomeDone
			case emu.StopFault:
				r.outcome = outcomeFault
				if m.Fault().Kind == emu.FaultDeadlock {
					r.outcome = outcomeDeadlock
				}
			case emu.StopLimit:
				r.outcome = outcomeBudget
			default:
				r.outcome = outcomeInterrupted
			}
		}
		if el := time.Since(t0); el < sliceTarget/2 && s.sliceN < maxSlice {
			s.sliceN *= 2
		} else if el > 2*sliceTarget && s.sliceN > minSlice {
			s.sliceN /= 2
		}
		if r.outcome == "" {
			return
		}
	}
	s.cmp = nil
	reply := s.compareReply(j)
	s.cmpLast = &cmpCache{key: j.key, msg: reply}
	s.send(encode(reply))
}

// cmpCache is the last comparison's reply.
type cmpCache struct {
	key string
	msg *compareMsg
}

// compareReply compares the two ended runs.
func (s *Session) compareReply(j *compareJob) *compareMsg {
	out := &compareMsg{Type: "scheduling-compare", ID: j.id, Budget: j.budget, Differences: []string{}, Buffers: []bufferDiffJSON{}}
	var res [2]*launch.Result
	for i, r := range j.runs {
		res[i] = r.l.Result()
		rj := compareRunJSON{Scheduling: string(r.sched), Outcome: r.outcome, WarpInstructions: res[i].Stats.WarpInstructions,
			Current: s.m != nil && s.m.Scheduling() == r.sched}
		if f := res[i].Fault; f != nil {
			rj.Fault = &compareFaultJSON{Kind: f.Kind, Message: f.Message, Line: f.Line}
		}
		out.Runs = append(out.Runs, rj)
	}
	a, b := out.Runs[0], out.Runs[1]
	if a.Outcome != b.Outcome {
		out.Differences = append(out.Differences, "outcome")
	} else if a.Fault != nil && b.Fault != nil && (a.Fault.Kind != b.Fault.Kind || a.Fault.Line != b.Fault.Line) {
		out.Differences = append(out.Differences, "fault")
	}
	for i := range res[0].Buffers {
		x := &res[0].Buffers[i]
		y := res[1].Buffer(x.Name)
		if y == nil || bytes.Equal(x.Data, y.Data) {
			continue
		}
		d := bufferDiffJSON{Name: x.Name, Samples: []elemDiffJSON{}}
		for e := 0; e < x.Len() && e < y.Len(); e++ {
			if x.Bits(e) != y.Bits(e) {
				if len(d.Samples) < maxElemDiffs {
					d.Samples = append(d.Samples, elemDiffJSON{Index: e,
						Values: [2]string{strings.Trim(x.ValueJSON(e), `"`), strings.Trim(y.ValueJSON(e), `"`)}})
				}
				d.Elements++
			}
		}
		if len(out.Buffers) < maxBufferDiffs {
			out.Buffers = append(out.Buffers, d)
		} else {
			out.BuffersOmitted++
		}
	}
	if len(out.Buffers) > 0 {
		out.Differences = append(out.Differences, "buffers")
	}
	out.Same = len(out.Differences) == 0
	return out
}
