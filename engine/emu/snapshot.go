package emu

import "slices"

// Snapshot is a copy of a machine's execution state: every resident CTA
// (registers, predicates, reconvergence stacks, call frames, barriers,
// asynchronous work in flight with its commit groups, shared and local
// memory) and the scheduler. Global memory is included only
// when asked for: a debugger keeps an undo log of global writes (from the
// observer's Access.Old bytes) between snapshots instead.
type Snapshot struct {
	ctas     []*CTA
	cursor   int
	nextCTA  int
	finished int
	stats    Stats
	sleptNS  int64
	fault    *Fault
	done     bool
	bpResume bool
	global   [][]byte // per allocation, when taken with global memory
	dyn      int64    // the machine's dynamic state (dynamic.go)
	printf   printfLog
	size     int
}

// Stats returns the machine's counters at the time of the snapshot.
func (s *Snapshot) Stats() Stats { return s.stats }

// Size returns the approximate number of bytes the snapshot holds.
func (s *Snapshot) Size() int { return s.size }

// HasGlobal reports whether the snapshot holds global memory.
func (s *Snapshot) HasGlobal() bool { return s.global != nil }

// Snapshot copies the machine's state (and global memory if withGlobal).
func (m *Machine) Snapshot(withGlobal bool) *Snapshot {
	s := &Snapshot{cursor: m.cursor, nextCTA: m.nextCTA, finished: m.finished, stats: m.stats,
		sleptNS: m.sleptNS, fault: m.fault, done: m.done, bpResume: m.bpResume, dyn: m.dyn, printf: m.printf}
	for _, c := range m.ctas {
		cc, n := cloneCTA(c, m)
		s.ctas = append(s.ctas, cc)
		s.size += n
	}
	relinkClusters(s.ctas, m.ctas)
	if withGlobal {
		for _, a := range m.Global.allocs {
			s.global = append(s.global, append([]byte(nil), a.Data...))
			s.size += len(a.Data)
		}
	}
	return s
}

// Restore puts the machine back in the state of s (which stays reusable).
// A snapshot without global memory leaves global memory as it is.
func (m *Machine) Restore(s *Snapshot) {
	m.ctas = m.ctas[:0]
	for _, c := range s.ctas {
		cc, _ := cloneCTA(c, m)
		m.ctas = append(m.ctas, cc)
	}
	relinkClusters(m.ctas, s.ctas)
	m.rebuildWarps()
	m.cursor, m.nextCTA, m.finished, m.stats = s.cursor, s.nextCTA, s.finished, s.stats
	m.sleptNS, m.fault, m.done, m.bpResume = s.sleptNS, s.fault, s.done, s.bpResume
	m.dyn = s.dyn
	m.obsMuteTo = 0
	// The lines are shared with the snapshot: cap them so that the next
	// line is appended to a copy.
	m.printf = s.printf
	m.printf.lines = s.printf.lines[:len(s.printf.lines):len(s.printf.lines)]
	m.released, m.brkpt = false, false
	m.lastIssued = 0
	m.pendReconv = m.pendReconv[:0]
	if s.global != nil {
		for i, a := range m.Global.allocs {
			if i < len(s.global) {
				copy(a.Data, s.global[i])
			}
		}
	}
}

func cloneCTA(c *CTA, m *Machine) (*CTA, int) {
	n := &CTA{Idx: c.Idx, Linear: c.Linear, done: c.done, Rank: c.Rank, ClusterIdx: c.ClusterIdx}
	n.shared = append([]byte(nil), c.shared...)
	n.local = append([]byte(nil), c.local...)
	n.mbars = slices.Clone(c.mbars)
	// The asynchronous work in flight: its operations (counted as dynamic
	// state) and what it keeps per thread.
	n.async = c.async.clone()
	size := len(n.shared) + len(n.local) + 8*len(n.mbars) + int(n.async.bytes()) + n.async.size()
	byID := make(map[int]*Warp, len(c.Warps))
	for _, w := range c.Warps {
		nw := &Warp{m: m, cta: n, ID: w.ID, valid: w.valid, exited: w.exited, carry: w.carry, cbPending: w.cbPending, cbDone: w.cbDone, fenced: w.fenced, smn: w.smn,
			State: w.State, wait: w.wait, held: slices.Clone(w.held),
			issued: w.issued, lastLane: w.lastLane, lastPC: w.lastPC, lastMask: w.lastMask, pick: w.pick,
			prevPC: w.prevPC, prevMask: w.prevMask, prevLane: w.prevLane}
		nw.rows = append([]uint64(nil), w.rows...)
		m.bindRegs(nw)
		nw.preds = append([]uint32(nil), w.preds...)
		nw.stack = append([]StackEntry(nil), w.stack...)
		for _, f := range w.frames {
			f.saved = append([]uint64(nil), f.saved...)
			f.savedP = append([]uint32(nil), f.savedP...)
			f.savedLoc = append([]byte(nil), f.savedLoc...)
			nw.frames = append(nw.frames, f)
		}
		// The copy holds the warp's dynamic state as the machine counts it
		// (dynamic.go).
		size += int(nw.dynamicBytes())
		size += 8*len(nw.rows) + 4*len(nw.preds) + 12*len(nw.stack) + 64
		n.Warps = append(n.Warps, nw)
		byID[w.ID] = nw
	}
	for i := range c.bars {
		b := c.bars[i]
		b.waiting = nil
		for _, w := range c.bars[i].waiting {
			b.waiting = append(b.waiting, byID[w.ID])
		}
		n.bars[i] = b
	}
	return n, size
}
