package emu

import (
	"math"
	"math/bits"
)

// Diamonds: the two sides of an if/else, run side by side.
//
// Under independent scheduling the two paths of a region take turns
// instruction by instruction (the pick rotates between them), one of them
// reaches the region's reconvergence point first and pops, the other runs
// on alone and pops too, and the region merges. When both paths get there
// by straight-line register-only code (instructions that are not control
// flow, then the reconvergence point by fall-through or by an unguarded
// bra to it), none of those picks depends on what the instructions compute:
// the order of the turns, the pick records after each of them and the
// waiting clocks follow from the two paths' lengths alone, and the
// instructions of the two paths touch disjoint lanes of registers only, so
// they commute. leadDiamond therefore executes each path's instructions in
// one loop and writes the state the turns would have left.

// straightRuns returns, for every pc, how many register-only instructions
// that are not control flow follow from it (itself included), at most 255.
func straightRuns(ops []Op, kind []leadKind) []uint8 {
	s := make([]uint8, len(ops))
	run := 0
	for pc := len(ops) - 1; pc >= 0; pc-- {
		if pc < len(kind) && (kind[pc] == leadPure || kind[pc] == leadPair) && !ops[pc].Ctrl {
			run = min(run+1, 255)
		} else {
			run = 0
		}
		s[pc] = uint8(run)
	}
	return s
}

// pureRuns returns Program.pure: for each pc, the number of consecutive
// leadPure instructions from it that are not control flow, at most 255.
func pureRuns(ops []Op, kind []leadKind) []uint8 {
	s := make([]uint8, len(ops))
	run := 0
	for pc := len(ops) - 1; pc >= 0; pc-- {
		if pc < len(kind) && kind[pc] == leadPure && !ops[pc].Ctrl {
			run = min(run+1, 255)
		} else {
			run = 0
		}
		s[pc] = uint8(run)
	}
	return s
}

// pathRun returns the number of instructions a path at pc issues until it
// reaches its reconvergence point r when they are straight-line
// register-only code (see above), or 0.
func (p *Program) pathRun(pc, r int32) int32 {
	if r < 0 || pc < 0 || pc == r || int(pc) >= len(p.straight) {
		return 0
	}
	j := pc + int32(p.straight[pc])
	if pc < r && r <= j {
		return r - pc
	}
	if int(j) >= len(p.Ops) || p.lead[j] != leadBra {
		return 0
	}
	if op := &p.Ops[j]; op.Guard >= 0 || op.Target != r {
		return 0
	}
	return j - pc + 1
}

// sides executes the two sides of a diamond, the picked one (from pa, a
// instructions, lanes ma) and the other (pb, b, mb), and writes the pick
// records that their turns leave: the turns alternate from the picked
// side; it reaches its reconvergence point first, at turn 2a-1, when
// a <= b, the other at turn 2b otherwise; the side left then issues the
// rest alone (linePop's pick after the first arrival, then onLine's). It
// returns the warp's issue count at the first arrival, the lanes of the
// side that arrived first and of the other, and the pc of the last
// instruction.
func (m *Machine) sides(w *Warp, pa int32, ma uint32, a int32, pb int32, mb uint32, b int32) (tq int64, fm, om uint32, last int32) {
	ops := m.prog.Ops
	// Each side in one loop (a final bra only moves the path: the caller
	// does).
	for pc, end := pa, pa+a; pc < end; pc++ {
		op := &ops[pc]
		if op.Ctrl {
			break
		}
		if e := guarded(w, op, ma); e != 0 {
			m.execOp(w, op, e)
		}
	}
	for pc, end := pb, pb+b; pc < end; pc++ {
		op := &ops[pc]
		if op.Ctrl {
			break
		}
		if e := guarded(w, op, mb); e != 0 {
			m.execOp(w, op, e)
		}
	}
	fp, fl := pa, a // the first to arrive
	op, ol := pb, b // the other
	fm, om = ma, mb
	q := 2*a - 1
	if a > b {
		fp, fl, fm, op, ol, om = pb, b, mb, pa, a, ma
		q = 2 * b
	}
	t0 := w.issued
	n := a + b
	lo := int8(bits.TrailingZeros32(om))
	w.pick = PickOnly
	w.lastLane = lo
	w.lineMask = om
	if n-q > 1 {
		// The other side's turns alone but its last.
		w.prevPC, w.prevMask, w.prevLane = int(op+ol-2), om, lo
	} else {
		w.prevPC, w.prevMask, w.prevLane = int(fp+fl-1), fm, int8(bits.TrailingZeros32(fm))
	}
	w.lineNext = t0 + int64(n)
	w.issued = t0 + int64(n)
	m.fast.diamonds++
	m.fast.diamondInsts += int64(n)
	return t0 + int64(q), fm, om, op + ol - 1
}

// arrive starts region e's waiting clock as linePop does when a path of
// it arrived at tq and the lanes in paths still run.
func (w *Warp) arrive(e *StackEntry, paths uint32, tq int64) {
	if e.PC < 0 {
		return
	}
	waiting := e.Mask &^ paths
	if waiting != e.waiting {
		if waiting&^e.waiting != 0 {
			e.since = tq
		}
		e.waiting = waiting
	}
	if waiting != 0 {
		w.lineDue = min(w.lineDue, e.since+ReconvergeWait)
	}
}

// leadDiamond runs the two paths on top of a line (leadLine's state at a
// pick: the stack has ns entries, the paths are entries f = ns-2 and
// ns-1, the top one picked) to their reconvergence points when both are
// straight-line register-only code, within room instructions of the
// lead and before waiting lanes are due to go on. It leaves the warp as
// leadLine leaves it after the instruction with which the second path
// reached its reconvergence point and unwind (the picks and pick records
// of every turn in between, the waiting clock that the first path's
// arrival started, the memo that linePop made then) and returns the
// instructions executed (0: not a diamond, nothing changed), their
// thread-instructions, and the pc and lanes of the last one.
func (m *Machine) leadDiamond(w *Warp, f, ns int, room int32) (d int32, threads int64, last int32, lastMask uint32) {
	if f != ns-2 || f < 1 || len(w.frames) != 0 || m.fast.noDiamond {
		return
	}
	s := w.stack
	ta, tb := &s[ns-1], &s[ns-2]
	r := ta.RPC
	if w.lineLen != int32(ns) || int(w.lastLane) != bits.TrailingZeros32(ta.Mask) || w.lineMask != ta.Mask || tb.RPC != r {
		return
	}
	p := m.prog
	a := p.pathRun(ta.PC, r)
	if a == 0 {
		return
	}
	b := p.pathRun(tb.PC, r)
	if b == 0 || a+b > room || w.issued+int64(a+b) >= w.lineDue {
		return
	}
	ma, mb := ta.Mask, tb.Mask
	tq, _, om, last := m.sides(w, ta.PC, ma, a, tb.PC, mb, b)
	// The first arrival: the other path is the line's one path.
	w.arrive(&s[f-1], om, tq)
	w.lineLen, w.lineFirst = int32(ns-1), int32(f)
	// The second: unwind pops it onto its region, which resumes.
	if u := &s[ns-3]; m.obsEvents || u.Mask == 0 || u.PC == u.RPC || u.PC < 0 {
		s[ns-2] = StackEntry{PC: r, RPC: r, Mask: om}
		w.stack = s[:ns-1]
		w.unwind()
	} else {
		w.stack = s[:ns-2]
		u.parent = false
	}
	threads = int64(a)*int64(bits.OnesCount32(ma)) + int64(b)*int64(bits.OnesCount32(mb))
	return a + b, threads, last, om
}

// leadSplit is leadLine's diverging bra op (lanes e of the top path take
// it) when the top path is a line's one path and the two sides are a
// diamond: it leaves the warp as the split (execBra), schedule's pick
// after it (scheduleLine) and leadDiamond would, without pushing the
// sides. It returns 0, having changed nothing, when the split is not one.
func (m *Machine) leadSplit(w *Warp, op *Op, e uint32, room int32) (d int32, threads int64, last int32, lastMask uint32) {
	s := w.stack
	ns := len(s)
	t := &s[ns-1]
	r := op.Reconv
	if m.fast.noDiamond || m.obsEvents || len(w.frames) != 0 || ns < 2 || r < 0 || t.RPC == r || w.lineLen != int32(ns) || w.lineFirst != int32(ns-1) {
		return
	}
	not := t.Mask &^ e
	pn, pt := t.PC+1, op.Target
	p := m.prog
	ln := p.pathRun(pn, r)
	if ln == 0 {
		return
	}
	lt := p.pathRun(pt, r)
	if lt == 0 || ln+lt > room {
		return
	}
	// scheduleLine after the split: the regions below keep their child
	// lanes; the split path's region has no waiting lanes yet.
	now := w.issued
	due := int64(math.MaxInt64)
	for i := 0; i < ns-1; i++ {
		g := &s[i]
		if g.PC < 0 {
			continue
		}
		since := g.since
		waiting := g.Mask &^ s[i+1].Mask
		if waiting&^g.waiting != 0 {
			since = now
		}
		if waiting != 0 {
			if now-since >= ReconvergeWait {
				return
			}
			due = min(due, since+ReconvergeWait)
		}
	}
	if now+int64(ln+lt) >= due {
		return
	}
	for i := 0; i < ns-1; i++ {
		g := &s[i]
		if g.PC < 0 {
			continue
		}
		waiting := g.Mask &^ s[i+1].Mask
		if waiting != g.waiting {
			if waiting&^g.waiting != 0 {
				g.since = now
			}
			g.waiting = waiting
		}
	}
	w.lineDue = due
	w.lastPC, w.lastMask = int(t.PC), t.Mask
	// nextPath: the side whose lowest lane comes next after the last
	// issued one is picked first.
	kn, kt := int8(bits.TrailingZeros32(not)), int8(bits.TrailingZeros32(e))
	last8 := w.lastLane
	var tq int64
	var om uint32
	if kt > last8 && (kn <= last8 || kt < kn) || kt < kn && kn <= last8 {
		tq, _, om, last = m.sides(w, pt, e, lt, pn, not, ln)
	} else {
		tq, _, om, last = m.sides(w, pn, not, ln, pt, e, lt)
	}
	// The split path is the region, waiting at r (diverge) until the
	// first side arrives; with the second it resumes at r (unwind).
	t.PC, t.waiting = r, 0
	w.arrive(t, om, tq)
	t.parent = false
	w.lineLen, w.lineFirst = int32(ns+1), int32(ns)
	m.fast.splits++
	threads = int64(ln)*int64(bits.OnesCount32(not)) + int64(lt)*int64(bits.OnesCount32(e))
	return ln + lt, threads, last, om
}

// onePath runs the instructions of a line's one path (top, picked: leadLine
// with w.lineFirst the top) after which leadLine's next pick is the same
// path again, inline: a register-only instruction that is not control
// flow or a bra that does not diverge, that leaves the path short of its
// reconvergence point, at a register-only instruction, with the lead
// (room more instructions at most) and the waiting lanes' due time
// (lineDue) not reached. A bra that splits the path into the two sides of
// a diamond (leadSplit) whose reconvergence point is register-only runs
// there too, with linePop's pick after it (the path resumes at that point
// as the line's one path), when the lead has room for it and one more
// instruction. It stops before the first instruction that does not
// qualify, which leadLine then issues, having written the pick records as
// leadLine's own turns would have left them. It returns the instructions
// it issued, their thread-instructions and the pc and lanes of the last
// one, and pending: a split ran but linePop could not make the pick after
// it (leadLine goes on as after its own leadSplit).
func (m *Machine) onePath(w *Warp, top *StackEntry, room int32) (k int32, threads int64, last int32, lastMask uint32, pending bool) {
	kind := m.prog.lead
	ops := m.prog.Ops
	mask := top.Mask
	merges := 0 // after a split the path is the line's one path (1) or not (2)
	for {
		limit := min(int64(room-k), w.lineDue-w.issued-1)
		n, pc, lp, split := oneStretch(w, ops, kind, top.PC, top.RPC, mask, limit)
		top.PC = pc
		if n != 0 {
			w.issued += n
			w.prevPC, w.prevMask, w.prevLane = int(lp), mask, w.lastLane
			w.lineNext += n
			w.pick = PickOnly
			m.fast.oneInsts += n
			k += int32(n)
			threads += n * int64(bits.OnesCount32(mask))
			last, lastMask = lp, mask
		}
		if !split {
			return
		}
		// A split at pc: a diamond whose sides leave the path at a
		// register-only instruction?
		op := &ops[pc]
		r := op.Reconv
		if r < 0 || int(r) >= len(kind) || kind[r] == leadStop {
			return
		}
		w.issued++ // the bra
		d, th, l, lm := m.leadSplit(w, op, guarded(w, op, mask), room-k-1)
		if d == 0 {
			w.issued--
			return
		}
		k += 1 + d
		threads += th + int64(bits.OnesCount32(mask))
		last, lastMask = l, lm
		// linePop: the region reconverged at r and is the line's one
		// path (what linePop checks beyond this, leadSplit and the
		// loop did).
		if merges == 0 {
			merges = 2
			if s := w.stack; !top.call && top.frame == 0 && top.level == s[len(s)-2].level+1 {
				merges = 1
			}
		}
		if merges != 1 || w.issued >= w.lineDue {
			pending = true
			return
		}
		w.prevPC, w.prevMask, w.prevLane = int(last), lastMask, w.lastLane
		w.lineLen, w.lineFirst, w.lineNext = int32(len(w.stack)), int32(len(w.stack)-1), w.issued+1
		w.pick = PickOnly
		w.lastLane = int8(bits.TrailingZeros32(mask))
		w.lineMask = mask
		// The path resumes at r.
	}
}

// oneStretch is onePath's loop up to a split: it executes from pc (the
// path's lanes mask, its reconvergence point rpc) at most limit
// instructions that leave the path picked, and returns how many, the pc
// it stopped at and the last one's, and whether it stopped at a bra that
// diverges.
func oneStretch(w *Warp, ops []Op, kind []leadKind, pc, rpc int32, mask uint32, limit int64) (n int64, at, lp int32, split bool) {
	for n < limit {
		op := &ops[pc]
		npc := pc + 1
		e := guarded(w, op, mask)
		if op.Ctrl {
			if kind[pc] != leadBra {
				break
			}
			if e == mask {
				npc = op.Target
			} else if e != 0 {
				split = true
				break
			}
		} else if kind[pc] == leadPair && npc != rpc && n+1 < limit {
			// The instruction and the bra that follows it (two turns).
			if e != 0 {
				w.m.execOp(w, op, e)
			}
			lp, pc = pc, npc
			n++
			op = &ops[pc]
			npc = pc + 1
			e = guarded(w, op, mask)
			if e == mask {
				npc = op.Target
			} else if e != 0 {
				split = true
				break
			}
			if npc == rpc || int(npc) >= len(kind) || kind[npc] == leadStop {
				break
			}
			lp, pc = pc, npc
			n++
			continue
		}
		if npc == rpc || int(npc) >= len(kind) || kind[npc] == leadStop {
			break
		}
		if !op.Ctrl && e != 0 {
			w.m.execOp(w, op, e)
		}
		lp = pc
		pc = npc
		n++
	}
	return n, pc, lp, split
}
