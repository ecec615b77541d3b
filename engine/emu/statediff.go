package emu

import (
	"bytes"
	"fmt"
	"reflect"
	"slices"
)

// DiffState describes the first difference between the execution states
// of m and o, two machines of the same program (or
// of two compilations of the same source) ("" when they are the
// same): the scheduler (cursor, CTAs issued and finished, done), the
// statistics, the fault, global memory, and every resident CTA (shared and
// local memory, barriers, asynchronous work in flight and the threads'
// commit groups) and warp (scheduling state, registers,
// predicates, carry flags, reconvergence stack, call depth, the last
// issue). Tests use it to prove that two ways of running a launch end in
// the same state.
func (m *Machine) DiffState(o *Machine) string {
	switch {
	case len(m.prog.Ops) != len(o.prog.Ops) || len(m.prog.Regs) != len(o.prog.Regs) || len(m.prog.Preds) != len(o.prog.Preds):
		return "different programs"
	case m.stats != o.stats:
		return fmt.Sprintf("stats %+v vs %+v", m.stats, o.stats)
	case m.done != o.done:
		return fmt.Sprintf("done %v vs %v", m.done, o.done)
	case !reflect.DeepEqual(m.fault, o.fault):
		return fmt.Sprintf("fault %+v vs %+v", m.fault, o.fault)
	case !reflect.DeepEqual(m.printf, o.printf):
		return fmt.Sprintf("printf output (%d lines, %d dropped) vs (%d lines, %d dropped)", len(m.printf.lines), m.printf.dropped, len(o.printf.lines), o.printf.dropped)
	case m.dyn != o.dyn:
		return fmt.Sprintf("dynamic state %d vs %d bytes", m.dyn, o.dyn)
	case m.cursor != o.cursor || m.nextCTA != o.nextCTA || m.finished != o.finished:
		return fmt.Sprintf("scheduler (cursor %d, next CTA %d, finished %d) vs (%d, %d, %d)", m.cursor, m.nextCTA, m.finished, o.cursor, o.nextCTA, o.finished)
	case len(m.Global.allocs) != len(o.Global.allocs):
		return fmt.Sprintf("%d vs %d global allocations", len(m.Global.allocs), len(o.Global.allocs))
	case len(m.ctas) != len(o.ctas):
		return fmt.Sprintf("%d vs %d resident CTAs", len(m.ctas), len(o.ctas))
	}
	for i, a := range m.Global.allocs {
		if b := o.Global.allocs[i]; !bytes.Equal(a.Data, b.Data) {
			return fmt.Sprintf("global allocation %s differs at byte %d", a.Name, firstDiff(a.Data, b.Data))
		}
	}
	for i, c := range m.ctas {
		d := o.ctas[i]
		where := fmt.Sprintf("CTA %v", c.Idx)
		switch {
		case c.Linear != d.Linear || c.done != d.done:
			return fmt.Sprintf("CTA %d (done %v) vs CTA %d (done %v)", c.Linear, c.done, d.Linear, d.done)
		case !bytes.Equal(c.shared, d.shared):
			return fmt.Sprintf("%s: shared memory differs at byte %d", where, firstDiff(c.shared, d.shared))
		case !bytes.Equal(c.local, d.local):
			return fmt.Sprintf("%s: local memory differs at byte %d", where, firstDiff(c.local, d.local))
		case !slices.Equal(c.mbars, d.mbars):
			return fmt.Sprintf("%s: live mbarriers at %#x vs %#x", where, c.mbars, d.mbars)
		case !reflect.DeepEqual(c.Barriers(), d.Barriers()):
			return fmt.Sprintf("%s: barriers %+v vs %+v", where, c.Barriers(), d.Barriers())
		}
		if c.Rank != d.Rank || (c.cluster == nil) != (d.cluster == nil) {
			return fmt.Sprintf("%s: cluster rank %d vs %d", where, c.Rank, d.Rank)
		}
		if x, y := c.cluster, d.cluster; x != nil && (x.Linear != y.Linear || x.arrived != y.arrived || x.Phase != y.Phase || len(x.CTAs) != len(y.CTAs)) {
			return fmt.Sprintf("%s: cluster %d (barrier phase %d, %d arrived) vs %d (%d, %d)", where, x.Linear, x.Phase, x.arrived, y.Linear, y.Phase, y.arrived)
		}
		if s := c.async.diff(&d.async); s != "" {
			return fmt.Sprintf("%s: %s", where, s)
		}
		for id := range c.bars {
			if a, b := c.bars[id].phase, d.bars[id].phase; a != b {
				return fmt.Sprintf("%s: barrier %d in phase %d vs %d", where, id, a, b)
			}
		}
		for j, w := range c.Warps {
			if s := w.diff(d.Warps[j]); s != "" {
				return fmt.Sprintf("%s warp %d: %s", where, j, s)
			}
		}
	}
	return ""
}

func (w *Warp) diff(v *Warp) string {
	switch {
	case w.State != v.State || w.valid != v.valid || w.exited != v.exited || w.carry != v.carry:
		return fmt.Sprintf("state %v valid %x exited %x carry %x vs %v %x %x %x", w.State, w.valid, w.exited, w.carry, v.State, v.valid, v.exited, v.carry)
	case w.smn != v.smn:
		return fmt.Sprintf("setmaxnreg state %+v vs %+v", w.smn, v.smn)
	case w.cbPending != v.cbPending || w.cbDone != v.cbDone || w.fenced != v.fenced:
		return fmt.Sprintf("cluster barrier arrivals %x (done %x, fenced %x) vs %x (%x, %x)", w.cbPending, w.cbDone, w.fenced, v.cbPending, v.cbDone, v.fenced)
	case !w.wait.same(v.wait):
		return fmt.Sprintf("waits for %v at %d (%x) vs %v at %d (%x)", w.wait, w.wait.PC, w.wait.Lanes, v.wait, v.wait.PC, v.wait.Lanes)
	case !sameWaits(w.held, v.held):
		return fmt.Sprintf("thread group waits %v vs %v", w.held, v.held)
	case (len(w.stack) > 0 || len(v.stack) > 0) && !reflect.DeepEqual(w.stack, v.stack):
		return fmt.Sprintf("stack %+v vs %+v", w.stack, v.stack)
	case len(w.frames) != len(v.frames):
		return fmt.Sprintf("call depth %d vs %d", len(w.frames), len(v.frames))
	case w.issued != v.issued || w.lastLane != v.lastLane || w.lastPC != v.lastPC || w.lastMask != v.lastMask || w.pick != v.pick:
		return fmt.Sprintf("last issue (%d: pc %d lanes %x lane %d %v) vs (%d: pc %d lanes %x lane %d %v)",
			w.issued, w.lastPC, w.lastMask, w.lastLane, w.pick, v.issued, v.lastPC, v.lastMask, v.lastLane, v.pick)
	case w.prevPC != v.prevPC || w.prevMask != v.prevMask || w.prevLane != v.prevLane:
		return fmt.Sprintf("previous issue (pc %d lanes %x lane %d) vs (pc %d lanes %x lane %d)", w.prevPC, w.prevMask, w.prevLane, v.prevPC, v.prevMask, v.prevLane)
	case w.ahead != v.ahead || w.picked != v.picked:
		return fmt.Sprintf("batched dispatch (%d ahead, picked %v) vs (%d, %v)", w.ahead, w.picked, v.ahead, v.picked)
	}
	for i, p := range w.preds {
		if p != v.preds[i] {
			return fmt.Sprintf("predicate %s: %x vs %x", w.m.prog.Preds[i].Name, p, v.preds[i])
		}
	}
	for r := range w.m.prog.Regs {
		if a, b := w.r(int32(r)), v.r(int32(r)); *a != *b {
			return fmt.Sprintf("register %s: %v vs %v", w.m.prog.Regs[r].Name, *a, *b)
		}
	}
	return ""
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// sameWaits reports whether two lists of group waits are the same.
func sameWaits(a, b []Wait) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !a[i].same(b[i]) {
			return false
		}
	}
	return true
}
