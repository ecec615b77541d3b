package sessions

import (
	"errors"
	"fmt"
	"time"
)

// Walks: the commands that move through the recorded history without
// executing past its head (seek, back, turning the divergence view on)
// may replay any number of instructions: a `back` by thousands of rounds
// replays the segments they span, the divergence view replays the history
// into its trace. Every replay goes through history.replay, and
// history.replay paces itself through Session.pace: like a run's slices,
// the replay gives its CPU token back after about sliceTarget and waits
// for its next turn with the priority of a run's slice (behind other
// sessions' commands), it waits while the session is over its CPU
// allowance, and it stops at the command's time limit (MaxCommandTime,
// reason "interrupted") or when the client sends a command that would
// pause a run (reason "paused"; that command is handled next). A replay
// outside walkCmd is a defect (pace refuses it with errUnpaced, which
// ends the program with an internal error), so no command can replay
// unbounded.
//
// A walk that stops early leaves the machine where the replay got to: the
// state after an instruction of the recorded trajectory, which is an exact
// position of the history; history.settle makes it the current one (with
// the stop recorded there, if any). The divergence trace records what the
// replay executed, so it covers the position shown; a later seek forward
// replays from the trace's end (history.mustPass), so the data keeps up.

// walk is the history command in progress.
type walk struct {
	t0    time.Time // the command's start
	step  bool      // a back or seek (its latency is a step latency)
	n     int       // instructions replayed since the clock was last read
	stop  string    // why it stopped early: "interrupted" or "paused"
	again string    // how to go on after an interruption ("seek again to go on")
}

var (
	// errWalkStopped: the walk reached the command's time limit, or the
	// client sent a command that stops it (walk.stop says which).
	errWalkStopped = errors.New("the command stopped before its end")
	// errUnpaced: a history replay outside walkCmd (a defect).
	errUnpaced = errors.New("history replay outside a paced history command (walkCmd)")
	// errSessionClosed: the session was closed while the walk waited.
	errSessionClosed = errors.New("the session was closed")
)

// paceEvery is the number of replayed instructions between two looks at
// the clock.
const paceEvery = 32

// walkCmd runs a history command: fn moves the machine (its replays are
// paced); then the client gets the state at the position reached, with
// the reason recorded there or, when fn stopped early, "interrupted" or
// "paused". again says how to go on after an interruption; step tells a
// back or seek (Metrics.ObserveStepLatency).
func (s *Session) walkCmd(id *int64, step bool, again string, fn func() error) {
	w := &walk{t0: time.Now(), step: step, again: again}
	s.walk = w
	err := fn()
	s.walk = nil
	switch {
	case err == nil:
		reason, message := s.h.reason()
		s.send(s.buildState(stateOpts{id: id, full: true, reason: reason, message: message, sharedAll: true})...)
		if w.step {
			s.mgr.met.ObserveStepLatency(time.Since(w.t0))
		}
	case errors.Is(err, errWalkStopped), errors.Is(err, errSessionClosed):
		if e := s.h.settle(); e != nil {
			s.failHistory(id, e)
			return
		}
		if errors.Is(err, errSessionClosed) {
			return
		}
		message := ""
		if w.stop == "interrupted" {
			message = fmt.Sprintf("stopped at step %d after %v, the longest one command may take; %s", s.h.cur, s.lim.MaxCommandTime, w.again)
		}
		s.send(s.buildState(stateOpts{id: id, full: true, reason: w.stop, message: message, sharedAll: true})...)
		if w.step {
			s.mgr.met.ObserveStepLatency(time.Since(w.t0))
		}
	default:
		s.failHistory(id, err)
	}
}

// pace is called by history.replay after each replayed instruction that
// leaves it short of its target: it stops the walk at its time limit and
// gives the CPU to others once the slice is spent.
func (s *Session) pace() error {
	w := s.walk
	if w == nil {
		return errUnpaced
	}
	if w.n++; w.n < paceEvery {
		return nil
	}
	w.n = 0
	now := time.Now()
	if now.Sub(w.t0) >= s.lim.MaxCommandTime {
		w.stop = "interrupted"
		return errWalkStopped
	}
	if now.Sub(s.tokenAt) < sliceTarget {
		return nil
	}
	return s.yield(w)
}

// yield returns the CPU token between two slices of a walk and waits for
// the next turn: after the session's CPU allowance comes back, if it used
// it, then with the priority of a run's slice. A client message that
// arrives meanwhile is kept (s.pending, handled after the walk); one that
// would pause a run stops the walk once the token is back.
func (s *Session) yield(w *walk) error {
	s.releaseCPU()
	var t *ticket
	var tm *time.Timer
	defer func() {
		if tm != nil {
			tm.Stop()
		}
	}()
	for {
		if t == nil && tm == nil {
			now := time.Now()
			wait := time.Duration(0)
			if left := s.lim.MaxCommandTime - now.Sub(w.t0); left > 0 && !stopsWalk(s.pending) {
				wait = min(s.cpu.until(now, s.lim.CPUAllowance), left)
			}
			if wait > 0 {
				tm = time.NewTimer(wait)
			} else {
				p := prioLow
				if stopsWalk(s.pending) && s.cpu.total(now) < s.lim.CPUAllowance {
					p = prioHigh // the client waits for the answer to its command
				}
				t = s.mgr.sched.request(p)
			}
		}
		var in <-chan command
		if s.pending == nil {
			in = s.in
		}
		var ready <-chan struct{}
		if t != nil {
			ready = t.ready
		}
		var wake <-chan time.Time
		if tm != nil {
			wake = tm.C
		}
		select {
		case <-s.quit:
			if t != nil {
				s.mgr.sched.cancel(t)
			}
			return errSessionClosed
		case c := <-in:
			if c.raw != nil {
				// Parsed here to know whether it stops the walk (one
				// message at most: nothing more is read until the walk
				// ends).
				n := c.bytes
				c = s.parse(c.raw)
				c.bytes = n
			}
			s.pending = &c
			if stopsWalk(s.pending) {
				// Ask again, now for the client's command.
				if t != nil {
					s.mgr.sched.cancel(t)
					t = nil
				}
				if tm != nil {
					tm.Stop()
					tm = nil
				}
			}
		case <-wake:
			tm = nil
		case <-ready:
			s.holdCPU()
			switch {
			case stopsWalk(s.pending):
				w.stop = "paused"
				return errWalkStopped
			case time.Since(w.t0) >= s.lim.MaxCommandTime:
				w.stop = "interrupted"
				return errWalkStopped
			}
			return nil
		}
	}
}

// stopsWalk reports whether c is a command that stops a walk in progress:
// one that would pause a run (every command but breakpoint, inspect, check
// and compare-scheduling).
func stopsWalk(c *command) bool {
	if c == nil || c.msg == nil || c.reply != nil {
		return false
	}
	switch c.msg.Type {
	case "breakpoint", "inspect", "check", "compare-scheduling":
		return false
	}
	return true
}
