package sessions

import (
	"fmt"
	"time"

	"github.com/ptxplayground/ptxplay/engine/emu"
	"github.com/ptxplayground/ptxplay/engine/launch"
)

// A job is a command that moves the machine (step or run). It executes in
// slices of a few milliseconds so that the session sees pause and other
// commands promptly; a run sends state frames between slices.
type job struct {
	kind      int
	id        *int64
	gran      emu.Granularity
	count     int   // units (warp-instructions, rounds, barrier releases, source lines) left
	srcLine   int   // source-line steps: the selected warp's CUDA line the unit started at
	cap       int64 // warp-instructions this command may execute
	inHist    bool  // moving through the recorded past (below the head)
	startWI   int64
	stopped   bool // the launch had stopped before the command
	bpsSet    bool
	throttled bool // waiting for the session's CPU allowance
	t0        time.Time
	lastFrame time.Time
}

const (
	jobStep = iota
	jobRun
)

// Slice sizes adapt to take about sliceTarget: long enough that the
// work between slices (the fault-replay snapshot of a batched IssueN, the
// leads cut at the slice's end, the CPU token passed on) stays small next
// to the slice (8 ms runs a lone Run about 10 % faster than 4 ms did:
// docs/benchmarks.md), short enough that a command of another session
// waits for at most one slice per core.
const (
	sliceTarget = 8 * time.Millisecond
	minSlice    = 64
	maxSlice    = 1 << 20
)

func (s *Session) startJob(j *job) {
	m := s.m
	j.startWI = m.Stats().WarpInstructions
	j.stopped = s.terminal()
	j.t0 = time.Now()
	j.lastFrame = j.t0
	if j.stopped {
		_, msg := s.h.reason()
		reason := "limit"
		switch {
		case m.Fault() != nil:
			reason = "fault"
		case m.Done():
			reason = "done"
		}
		s.send(s.buildState(stateOpts{id: j.id, reason: reason, message: msg})...)
		return
	}
	if j.kind == jobStep && j.gran == emu.StepToBarrier && !barrierAhead(m) {
		s.send(s.buildState(stateOpts{id: j.id, reason: "no-barrier", message: noBarrierMessage})...)
		return
	}
	if j.kind == jobStep && j.gran == stepSourceLine {
		j.srcLine = s.selLine()
	}
	switch {
	case s.h.cur == s.h.head:
		s.h.beginExec()
	case j.kind == jobRun:
		// A run stops wherever a breakpoint is now: the future is redone.
		s.h.truncate()
		s.h.beginExec()
	default:
		// Steps from the past move through the recorded trajectory (the
		// machine is deterministic) and keep the future.
		j.inHist = true
	}
	s.rec.executed = false
	s.rec.released = false
	s.job = j
	s.slice()
}

// slice advances the job by up to s.sliceN warp-instructions.
//
// Between the points where the job must look at the machine (the command's
// cap, the head of the history while stepping through the past, the first
// instruction of a run, which passes any breakpoint, the end of a
// warp-instruction step), the machine issues a batch of instructions in one
// call (Machine.IssueN): exactly the instructions, and the states after
// them, that one Issue at a time gives.
func (s *Session) slice() {
	j, m := s.job, s.m
	t0 := time.Now()
	n := s.sliceN
	for i := 0; i < n; {
		wi := m.Stats().WarpInstructions
		if wi-j.startWI >= j.cap {
			s.finishJob(nil, "budget", noTail, fmt.Sprintf("paused after %d warp-instructions, the most one command may run; continue to go on", wi-j.startWI))
			return
		}
		if j.inHist && wi >= s.h.head {
			j.inHist = false
			s.h.beginExec()
		}
		batch := 1
		if (j.kind == jobRun && j.bpsSet) || (j.kind == jobStep && j.gran == emu.StepWarpInstruction) {
			left := min(int64(n-i), j.cap-(wi-j.startWI))
			if j.inHist {
				left = min(left, s.h.head-wi)
			}
			if j.kind == jobStep {
				left = min(left, int64(j.count))
			}
			batch = int(max(left, 1))
		}
		r, before := m.IssueN(true, batch)
		done := m.Stats().WarpInstructions - wi
		if done > 0 {
			s.rec.executed = true
		}
		i += int(max(done, 1))
		if j.kind == jobRun && !j.bpsSet {
			s.setMachineBreakpoints() // the first instruction passes any breakpoint
			j.bpsSet = true
		}
		switch r {
		case emu.StopStepped:
		case emu.StopBreakpoint:
			if m.Stats().WarpInstructions == before {
				pc := int32(-1)
				if w := m.NextWarp(); w != nil {
					pc = int32(w.PC())
				}
				s.finishJob(nil, "breakpoint", tail{bpPC: pc}, "")
			} else {
				s.finishJob(nil, "breakpoint", noTail, "a brkpt instruction executed")
			}
			return
		case emu.StopDone, emu.StopFault:
			reason := "done"
			if r == emu.StopFault {
				reason = "fault"
			}
			s.finishJob(nil, reason, tail{bpPC: -1, settled: m.Stats().WarpInstructions == before}, "")
			return
		case emu.StopLimit:
			s.finishJob(nil, "limit", noTail, fmt.Sprintf("stopped after %d warp-instructions (maxWarpInstructions of the launch)", m.Stats().WarpInstructions))
			return
		default:
			s.finishJob(nil, "paused", noTail, "")
			return
		}
		if j.kind == jobStep {
			unit := false
			switch j.gran {
			case emu.StepWarpInstruction:
				j.count -= int(done)
				unit = j.count <= 0
			case emu.StepRound:
				// A round ends where the scheduler wraps around its warps.
				next := m.NextWarp()
				last, ok := m.LastIssued()
				unit = next == nil || !ok ||
					schedKey{next.CTA().Linear, next.ID}.le(schedKey{last.CTALin, last.Warp})
			case emu.StepToBarrier:
				unit = s.rec.released
				s.rec.released = false
			case stepSourceLine:
				if l := s.selLine(); l != j.srcLine && l != 0 {
					unit, j.srcLine = true, l
				}
			}
			if unit && j.gran != emu.StepWarpInstruction {
				j.count--
			}
			if unit && j.count <= 0 {
				s.finishJob(nil, "stepped", noTail, "")
				return
			}
		}
	}
	// The slice is spent: adapt its size, keep the history in budget, and
	// show a running command's progress.
	el := time.Since(t0)
	switch {
	case el < sliceTarget/2 && s.sliceN < maxSlice:
		s.sliceN *= 2
	case el > 2*sliceTarget && s.sliceN > minSlice:
		s.sliceN /= 2
	}
	if !j.inHist {
		s.h.midSnapshot()
		s.h.trim(true)
	}
	if j.kind == jobRun && time.Since(j.lastFrame) >= s.lim.FrameInterval && !s.out.framePending() {
		s.pushFrame(s.buildState(stateOpts{id: j.id, running: true, reason: "running"}))
		j.lastFrame = time.Now()
	}
}

var noTail = tail{bpPC: -1}

// finishJob ends the job: it records the step, replies with the state
// (id: the command's, unless given) and, when the launch has just ended,
// with `done`. t is the non-executing stop the job ended with, if any.
func (s *Session) finishJob(id *int64, reason string, t tail, message string) {
	j, m, h := s.job, s.m, s.h
	s.job = nil
	if id == nil {
		id = j.id
	}
	if j.bpsSet {
		m.ClearBreakpoints()
	}
	if t.bpPC < 0 && !t.settled && !m.Stopped() && m.NextWarp() == nil && s.canSettle() {
		before := m.Stats().WarpInstructions
		switch m.Issue(true) {
		case emu.StopDone:
			reason = "done"
		case emu.StopFault:
			reason = "fault"
		}
		t.settled = m.Stats().WarpInstructions == before && m.Stopped()
	}
	wi := m.Stats().WarpInstructions
	st := stop{wi: wi, tail: t, reason: reason, message: message}
	st.last = h.last
	if s.rec.executed {
		if lr, ok := s.rec.last(s.lastOf); ok {
			st.last = lr
		}
	}
	if wi != j.startWI || !t.none() {
		h.record(st)
		s.mgr.met.AddSteps(1)
	}
	if !j.inHist && h.cur == h.head {
		h.trim(t.none())
	}
	// The metrics are updated before the client hears of the result, so
	// that a client that reads the final state and then the metrics finds
	// the fault (and the step) counted.
	ended := !j.stopped && s.terminal()
	if f := m.Fault(); ended && f != nil {
		s.mgr.met.AddFault(string(f.Kind))
	}
	state := s.buildState(stateOpts{id: id, reason: reason, message: message})
	if j.kind == jobStep {
		s.mgr.met.ObserveStepLatency(time.Since(j.t0))
	}
	s.send(state...)
	if ended {
		s.send(s.doneMsg(id))
	}
}

// canSettle reports whether, with no ready warp, the machine's next issue
// ends the launch (done or deadlock) without executing an instruction.
func (s *Session) canSettle() bool {
	m := s.m
	if m.NumCTAs()-m.CTAsFinished()-len(m.CTAs()) == 0 {
		return true
	}
	// A warp whose wait is over is woken by the next issue, which then
	// executes it; otherwise a waiting warp makes it a deadlock.
	settles := false
	for _, w := range m.Warps() {
		switch w.Readiness() {
		case emu.Wakeable:
			return false
		case emu.Blocked:
			settles = true
		}
	}
	return settles
}

// terminal reports whether the launch can make no more progress.
func (s *Session) terminal() bool {
	m := s.m
	if m.Stopped() {
		return true
	}
	b := m.Config().MaxWarpInstructions
	return b > 0 && m.Stats().WarpInstructions >= b
}

// doneMsg renders the `done` reply. It never exceeds the reply limit:
// the buffers go in, in spec order, while their exact JSON fits what the
// rest of the message leaves of MaxReplyBytes; the others are listed in
// omittedBuffers, for the client to read with `read`.
func (s *Session) doneMsg(id *int64) []byte {
	r := s.l.Result()
	// The states carry the printf output (the Console); the result does
	// not repeat it.
	r.Printf, r.PrintfDropped = nil, 0
	all := r.Buffers
	msg := doneMsg{Type: "done", ID: id}
	// The message without buffers, every buffer listed as omitted: what
	// is left of the limit is the room for buffers.
	for i := range all {
		msg.OmittedBuffers = append(msg.OmittedBuffers, omittedBufferJSON{Name: all[i].Name, Type: all[i].Type, Bytes: len(all[i].Data)})
	}
	r.Buffers = nil
	msg.BuffersOmitted = len(all) > 0
	msg.Result = r.AppendJSON(nil, false)
	room := s.lim.MaxReplyBytes - len(encode(&msg))
	var kept []launch.BufferData
	var omitted []omittedBufferJSON
	for i := range all {
		// Each member after the first costs a comma.
		if n, ok := all[i].JSONSize(room - 1); ok {
			kept = append(kept, all[i])
			room -= n + 1
		} else {
			omitted = append(omitted, msg.OmittedBuffers[i])
		}
	}
	r.Buffers = kept
	msg.OmittedBuffers, msg.BuffersOmitted = omitted, len(omitted) > 0
	msg.Result = r.AppendJSON(nil, false)
	return encode(&msg)
}
