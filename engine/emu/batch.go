package emu

import (
	"context"
	"math/bits"
)

// Batched dispatch.
//
// The scheduler issues one warp-instruction per turn, warps taking turns
// in round-robin order (issueNext). When nothing observes the schedule (no
// observer that asks for every step (ObserveEveryStep), no breakpoint, no
// %clock or %globaltimer read, no brkpt, a budget far away), Run lets a
// warp run ahead: after the instruction of its turn it executes the
// register-only instructions that follow (a *lead*), up to leadMax of
// them, and its next turns are consumed without dispatch, one executed
// instruction each (Warp.ahead counts them).
//
// Observers that ask for less than every step are shown exactly what the
// one-at-a-time run shows them: instructions executed ahead report nothing
// they asked for (a lead runs no shared-memory load when one watches
// shared memory, no warp-level instruction when one wants its details;
// when one asks for events or changes of active lanes, a lead runs only a
// converged warp with the lanes of its instruction before and stops
// before a branch that diverges), everything else is executed and
// reported at its turn, numbered as in the one-at-a-time run
// (StepInfo.Step: endStep leaves out the instructions other warps
// executed ahead), and a fault replay (below) does not show the observers
// the steps they were shown before it.
//
// A register-only instruction (pure) reads and writes only the warp's own
// registers, predicates, carry flag and reconvergence stack: integer,
// floating-point, comparison, logic, move and conversion instructions,
// cvta, isspacep and bra. It never faults, never changes whether a warp is
// ready, and commutes with every instruction of every other warp. Every
// other instruction (memory, atomics, barriers, warp-synchronous
// instructions, calls, exit) is executed only at a turn whose warp has no
// instructions ahead, i.e. exactly at the turn where the one-at-a-time
// scheduler executes it: the global order of everything that another warp
// can see is unchanged, so racy programs and atomics give bit-identical
// results. Two kinds of instruction that are not register-only still run
// in leads of one group (or the SIMT stack's top): warp-level
// instructions (shfl, vote, match, activemask, redux, elect,
// bar.warp.sync, and mma, wmma.mma, movmatrix), which read and write only
// their own warp's lanes, and a
// shared-memory load in a CTA where no warp can write shared memory before
// the CTA's next barrier completes (quiet.go), which reads the same bytes
// at any turn until then. A fault of either in a lead is replayed like any
// other (below). Under independent scheduling the group picked for each
// instruction of a lead is the one its turn would pick: the pick depends
// only on the warp's own state (schedule), and a lead that picked a group
// whose instruction is not pure leaves it picked (Warp.picked) for the
// turn that issues it.
//
// The state between two turns is therefore off the one-at-a-time
// trajectory only while some warp is ahead; Run never returns in that
// state:
//   - it stops leading early enough that the warp-instruction budget is
//     reached only when no warp is ahead (budgetMargin);
//   - on an interrupt it stops leading and keeps issuing until no warp is
//     ahead (at most leadMax rounds) before it returns;
//   - a launch is done, or deadlocks, only when no warp is ready, hence
//     none is ahead;
//   - a fault while some warp is ahead (the warps ahead would show
//     registers of later instructions) makes Run restore the state it
//     started from (a snapshot with global memory, taken when it starts)
//     and run again one instruction at a time to the same fault.
//
// Statistics count an instruction when it executes; at every point where
// Run returns they are those of the one-at-a-time run.

// leadMax bounds the instructions a warp runs ahead.
const leadMax = 128

// maxBatchSnapshot bounds the memory a batched Run copies to be able to
// replay up to a fault (global memory and resident CTAs); larger launches
// run one instruction at a time.
const maxBatchSnapshot = 256 << 20

// leadKind classifies an op for leads (Program.lead).
type leadKind uint8

const (
	leadStop leadKind = iota // not register-only: ends a lead
	leadPure                 // register-only (see above)
	leadPair                 // register-only, not control, followed by bra
	leadBra                  // bra
	// leadShared (only in Program.runKind, leadStop in Program.lead): a
	// shared-memory load at a quiet pc, which leadRun runs while
	// the CTA is quiet (quiet.go).
	leadShared
	// leadLocal (only in Program.runKind, leadStop in Program.lead): a
	// warp-level instruction (warpLocal: shfl, vote, match, activemask,
	// redux, elect, bar.warp.sync, mma, wmma.mma, movmatrix), which reads and writes only its warp's state; leadRun
	// runs it for the warp's only thread group or the SIMT stack's top,
	// exactly as its turn would.
	leadLocal
	// leadStraight (only in Program.runKind, leadPure in Program.lead):
	// the first of at least three leadPure instructions that are not
	// control flow (Program.pure), which leadRun runs in one loop.
	leadStraight
)

// leadKinds classifies ops: lead[pc] says whether Ops[pc] is register-only
// (see above) and whether a lead may run it together with the bra that
// follows it (a superinstruction: setp and its @p bra, or the last
// instruction of a loop body and its bra.uni). The pair counts as two
// instructions: two executed turns, two in the statistics, and each of
// the two is what the one-at-a-time scheduler executes at those turns.
func leadKinds(ops []Op) []leadKind {
	k := make([]leadKind, len(ops))
	for pc := range ops {
		switch {
		case !isPure(&ops[pc]):
			k[pc] = leadStop
		case flowKind(&ops[pc]) == flowJump:
			k[pc] = leadBra
		case !ops[pc].Ctrl && pc+1 < len(ops) && flowKind(&ops[pc+1]) == flowJump && isPure(&ops[pc+1]):
			k[pc] = leadPair
		default:
			k[pc] = leadPure
		}
	}
	return k
}

// isPure reports whether op is register-only (EffRegs) or a direct
// branch.
func isPure(op *Op) bool {
	return op.Exec != nil && (op.Eff.Has(EffRegs) || op.Eff&^EffCtrl == EffBranch)
}

// stopsBatch reports whether op keeps Run from batching a kernel that
// can reach it: it reads a time-dependent special register (its value
// depends on the global instruction count) or it is brkpt (a stop in the
// middle of a run).
func stopsBatch(op *Op) bool { return op.Eff.Any(EffDynamic | EffBreak) }

// SetBatchedDispatch turns batched dispatch in Run on (the default) or
// off. The results are the same either way; turning it off is for tests
// that prove it and for measuring it.
func (m *Machine) SetBatchedDispatch(on bool) { m.fast.noBatch = !on }

// batchable reports whether Run may batch from here.
func (m *Machine) batchable() bool {
	if m.fast.noBatch || !m.fast.batchProg || m.obs != nil && m.obsEvery || m.bpResume || len(m.pendReconv) > 0 {
		return false
	}
	for _, b := range m.bp {
		if b {
			return false
		}
	}
	return m.snapshotBytes() <= maxBatchSnapshot
}

// batchProgram reports whether the kernel's reachable code lets Run
// batch at all: no instruction reads a time-dependent special register
// (its value depends on the global instruction count) and none is brkpt
// (a stop in the middle of a run).
func (m *Machine) batchProgram() bool {
	p := m.prog
	if len(p.lead) != len(p.Ops) || len(p.runKind) != len(p.Ops) {
		return false
	}
	for i, f := range p.Funcs {
		if !m.rf.reach[i] || !f.HasBody {
			continue
		}
		for pc := f.Entry; pc < f.End && pc < len(p.Ops); pc++ {
			if stopsBatch(&p.Ops[pc]) {
				return false
			}
		}
	}
	return true
}

func (m *Machine) snapshotBytes() int {
	n := 0
	for _, a := range m.Global.allocs {
		n += len(a.Data)
	}
	for _, c := range m.ctas {
		n += len(c.shared) + len(c.local) + len(c.Warps)*m.rf.rows*32*8
	}
	return n + int(m.dyn)
}

// SetFaultReplay turns off (or back on) the exact fault state of batched
// runs. With it off, Run takes no snapshot of the machine and global memory
// when it starts, and a fault while warps are ahead ends the run there
// (StopFault) instead of replaying to the one-at-a-time run's fault: the
// fault and the machine's state may then differ from the one-at-a-time
// run's. It is for callers that discard a machine that faulted, such as
// the segments of a parallel run, which rerun the launch sequentially.
func (m *Machine) SetFaultReplay(on bool) { m.fast.noReplay = !on }

// runBatched is Run with batched dispatch.
func (m *Machine) runBatched(ctx context.Context) StopReason {
	var start *Snapshot
	if !m.fast.noReplay {
		start = m.Snapshot(true)
	}
	done := ctx.Done()
	lead := true
	// i counts the turns; every 1024th looks for an interrupt.
	for i, check := 0, 1023; ; i++ {
		if i >= check && lead {
			check = i + 1024
			if m.interrupt.Load() {
				lead = false
			} else {
				select {
				case <-done:
					lead = false
				default:
				}
			}
		}
		if !lead && m.ahead == 0 && m.picked == 0 {
			return StopInterrupted
		}
		w, j := m.readyScan()
		if m.fault == nil {
			// The turns of warps ahead, consumed here as issueAt would
			// (consumeTurn written out: it does not inline, and a call
			// per turn costs the reduction 1.6 % more instructions).
			for w != nil && w.ahead > 0 {
				i++
				m.passTurn(j)
				w.ahead--
				m.ahead--
				if m.consumed++; m.consumed >= len(m.warps) {
					m.skipRounds()
				}
				w, j = m.readyScan()
			}
		}
		r := m.issueAt(lead, w, j)
		if r == StopStepped {
			continue
		}
		if m.ahead == 0 && m.picked == 0 || start == nil {
			return r
		}
		// Warps are ahead of the one-at-a-time trajectory: replay it
		// from the start of the run. The observers saw the steps up to
		// the last one reported, in the one-at-a-time order and
		// numbering (endStep): the replay does not show them again.
		last := m.obsLast
		m.Restore(start)
		m.ahead, m.picked, m.consumed = 0, 0, 0
		m.fast.replays++
		if m.obs != nil {
			m.obsMuteTo = last
		}
		return m.runPlain(ctx)
	}
}

// issueBatched is issueNext without breakpoints, with leads (when lead)
// and turns consumed by instructions executed ahead.
func (m *Machine) issueBatched(lead bool) StopReason {
	w, i := m.readyScan()
	return m.issueAt(lead, w, i)
}

// issueAt is issueBatched with the ready scan's result (w, i) made.
func (m *Machine) issueAt(lead bool, w *Warp, i int) StopReason {
	if m.fault != nil {
		return StopFault
	}
	limit := m.overBudget()
	if w == nil {
		var r StopReason
		if w, i, r = m.nextReady(); w == nil {
			return r
		}
	}
	if w.ahead > 0 {
		m.consumeTurn(w, i)
		return StopStepped
	}
	m.consumed = 0
	if limit {
		return StopLimit
	}
	m.passTurn(i)
	if w.picked {
		w.picked = false
		m.picked--
	} else if m.indep && len(w.stack) > 1 && !w.schedule() {
		// Its groups wait (group waits): the warp waits, and the next
		// ready warp issues, as issueNext does.
		return m.issueBatched(lead)
	}
	m.collect = lead
	if len(w.stack) == 1 && len(m.pendReconv) == 0 {
		m.execOne(w) // exec's own test, without the call to exec
	} else {
		m.exec(w)
	}
	m.collect = false
	if r := m.issued(); r != StopStepped {
		clear(m.relWarps)
		m.relWarps = m.relWarps[:0]
		return r
	}
	if lead && w.State == WarpReady && len(w.held) == 0 && (len(w.stack) != 1 || m.runsAhead(w)) && m.leadRoom() {
		m.lead(w)
	}
	if len(m.relWarps) > 0 {
		m.leadReleased(w)
	}
	return StopStepped
}

// leadReleased runs the leads of the converged warps a barrier released
// in this turn (other than w, whose lead ran): the register-only
// instructions they go on with, which their next turns would execute
// first, run at the release, as they would after such a turn.
func (m *Machine) leadReleased(w *Warp) {
	for _, x := range m.relWarps {
		if x != w && x.State == WarpReady && x.ahead == 0 && !x.picked && len(x.stack) == 1 && len(x.held) == 0 && m.runsAhead(x) && m.fault == nil && m.leadRoom() {
			m.lead(x)
			m.fast.releaseLeads++
		}
	}
	clear(m.relWarps)
	m.relWarps = m.relWarps[:0]
}

// runsAhead reports whether a lead can run the instruction of a converged
// warp w (one that no lead runs gives it none).
func (m *Machine) runsAhead(w *Warp) bool { return m.prog.runKind[w.stack[0].PC] != leadStop }

// consumeTurn consumes the turn of w (at index i), whose instruction was
// executed ahead.
func (m *Machine) consumeTurn(w *Warp, i int) {
	m.passTurn(i)
	w.ahead--
	m.ahead--
	if m.consumed++; m.consumed >= len(m.warps) {
		m.skipRounds()
	}
}

// skipRounds consumes whole rounds at once when every ready warp is
// ahead: c rounds are c turns of each ready warp, from any cursor, and
// leave the cursor where it is.
func (m *Machine) skipRounds() {
	m.consumed = 0
	c := int32(leadMax + 1)
	ready := 0
	for _, w := range m.warps {
		if w.State == WarpReady {
			c = min(c, w.ahead)
			ready++
		}
	}
	if c <= 0 || ready == 0 {
		return
	}
	for _, w := range m.warps {
		if w.State == WarpReady {
			w.ahead -= c
		}
	}
	m.ahead -= int64(c) * int64(ready)
}

// leadRoom reports whether a lead cannot bring the budget within reach
// while warps are ahead: a warp is at most leadMax instructions ahead,
// gets a turn every round, and the rounds that consume a lead issue at
// most leadMax instructions per warp.
func (m *Machine) leadRoom() bool {
	b := m.cfg.MaxWarpInstructions
	if e := m.fast.issueEnd; e > 0 && (b <= 0 || e < b) {
		b = e // a batched IssueN's end (issuen.go)
	}
	return b <= 0 || m.stats.WarpInstructions+2*int64(leadMax+1)*int64(len(m.warps)+1) < b
}

// lead executes the register-only instructions that follow w's current
// one, as its next turns would.
func (m *Machine) lead(w *Warp) {
	kind := m.prog.lead
	m.cur = w
	var n int32
	for n < leadMax {
		if m.obsTurns && (len(w.stack) != 1 || w.stack[0].Mask != w.lastMask) {
			// An observer follows events or active lanes: a lead runs
			// only a converged warp's instructions with the lanes of the
			// instruction before (no mask change, no reconvergence to
			// report), and leadRun stops before a branch that diverges.
			break
		}
		if m.indep && len(w.stack) > 1 {
			// Several groups: each instruction is issued from the group
			// its turn would pick.
			w.schedule()
			top := &w.stack[len(w.stack)-1]
			if kind[top.PC] == leadStop {
				w.picked = true
				m.picked++
				break
			}
			if !m.fast.noLine {
				if !m.leadLine(w, &n) {
					break
				}
				continue
			}
			m.leadOne(w, top)
			n++
			if w.State != WarpReady || m.failed != nil {
				break
			}
			continue
		}
		if !m.leadRun(w, &n) {
			break
		}
	}
	w.ahead += n
	m.ahead += int64(n)
	if f := m.failed; f != nil {
		// At the pc the fault names: w.fault takes it from the warp's
		// stack top, which the leads keep at the instruction they
		// execute (and stop at when it faults).
		m.settleFault(int32(f.PC), 0)
	}
}

// leadOne executes the register-only instruction of w's stack top.
func (m *Machine) leadOne(w *Warp, top *StackEntry) {
	pc := top.PC
	op := &m.prog.Ops[pc]
	m.curPC = int(pc)
	mask := top.Mask
	emask := mask
	if op.Guard >= 0 {
		p := w.preds[op.Guard]
		if op.GuardNeg {
			p = ^p
		}
		emask &= p
	}
	w.issued++
	w.lastPC, w.lastMask = int(pc), mask
	m.stats.WarpInstructions++
	m.stats.ThreadInstructions += int64(bits.OnesCount32(mask))
	if op.Ctrl {
		m.execOp(w, op, emask)
		return
	}
	if emask != 0 && !m.execOp(w, op, emask) {
		return
	}
	top.PC++
	if top.PC == top.RPC {
		w.unwind()
	}
}

// leadLine executes the register-only instructions of a warp with
// several groups under independent scheduling (a lead's instructions from
// its first pick on, made by schedule), making each next pick inline while
// it follows from the one before as schedule's quick path onLine decides
// it: the pick found the stack in a line (w.lineLen != 0), and the
// instruction kept the picked path's lanes and the stack's depth (a
// non-control instruction that does not reach the path's reconvergence
// point, or a bra that does not diverge and does not reach it) before
// waiting lanes are due to go on. Then the next pick is what schedule
// would make: the same stack but for the path's pc, rotated to the next
// path by lowest lane (two paths: they swap), with the same issue
// records. Anything else (a bra that diverges, a path reaching its
// reconvergence point, a path's next instruction that needs the general
// rules, waiting lanes due, a pick that did not find a line) goes through
// schedule, as the next turn would, except a path that popped from a line,
// whose pick linePop makes when it can. When the picked group's instruction
// is not register-only the lead ends with it picked. Statistics are
// written once per run. It adds the instructions to *n and reports
// whether the lead may go on (with one group: leadRun).
func (m *Machine) leadLine(w *Warp, n *int32) (more bool) {
	kind := m.prog.lead
	ops := m.prog.Ops
	s := w.stack
	ns := len(s)
	f := int(w.lineFirst)
	top := &s[ns-1]
	// general: the pick was not made on a line; the next one goes
	// through schedule.
	general := w.lineLen == 0
	popped := false // the last instruction's path reached its reconvergence point
	k := *n
	start := k
	var threads int64
	var last int32
	var lastMask uint32
	// fresh: the pick was just made at a split or a merge; the paths may
	// be the two sides of a diamond (leadDiamond).
	fresh := !general
	var pc int32
	var mask, e uint32
	var op *Op
	for {
		if fresh {
			fresh = false
			if f != ns-2 {
				// Not two paths: no diamond.
			} else if d, th, l, lm := m.leadDiamond(w, f, ns, leadMax-k); d != 0 {
				k += d
				threads += th
				last, lastMask = l, lm
				// As after the first path's pop: the line is one entry
				// shorter.
				ns--
				popped = true
				goto resched
			}
		}
		if f == ns-1 && !general && !m.fast.noDiamond && (ops[top.PC].Ctrl || int(top.PC)+1 < len(kind) && kind[top.PC+1] != leadStop) {
			// One path: the instructions whose next pick is the path
			// again, in a tight loop (onePath); the instruction after
			// them issues below.
			c, th, l, lm, pending := m.onePath(w, top, leadMax-1-k)
			k += c
			threads += th
			if pending {
				// A split ran whose next pick linePop did not make.
				last, lastMask = l, lm
				f, ns = ns, ns+1
				popped = true
				goto resched
			}
		}
		pc = top.PC
		mask = top.Mask
		op = &ops[pc]
		w.issued++
		k++
		threads += int64(bits.OnesCount32(mask))
		last, lastMask = pc, mask
		e = guarded(w, op, mask)
		if op.Ctrl {
			// bra (the only register-only control instruction).
			switch {
			case e == 0:
				top.PC = pc + 1
			case e == mask:
				top.PC = op.Target
			default:
				m.curPC = int(pc)
				if !general && f == ns-1 {
					// The path splits into the two sides of a diamond?
					if d, th, l, lm := m.leadSplit(w, op, e, leadMax-k); d != 0 {
						k += d
						threads += th
						last, lastMask = l, lm
						// As after the first side's pop: the line has
						// one region and one path more.
						f, ns = ns, ns+1
						popped = true
						goto resched
					}
				}
				m.execOp(w, op, e)
				goto resched
			}
		} else {
			if e != 0 && !m.execOp(w, op, e) {
				more = false
				goto out
			}
			top.PC = pc + 1
		}
		if top.PC == top.RPC {
			w.unwind()
			popped = true
			goto resched
		}
		if k >= leadMax {
			more = false
			goto out
		}
		if general || w.issued >= w.lineDue {
			goto resched
		}
		// The next turn's pick (schedule, onLine).
		{
			npc := top.PC
			if int(npc) >= len(kind) {
				goto resched
			}
			nk := kind[npc]
			if nk == leadStop && !plainOp(&ops[npc]) {
				goto resched
			}
			w.prevPC, w.prevMask, w.prevLane = int(pc), mask, w.lastLane
			w.lineNext++
			switch {
			case f == ns-1:
				// One path: it stays picked.
				w.pick = PickOnly
			case f == ns-2:
				// Two paths take turns: the other one is next (the last
				// issued lane is the top's lowest).
				s[ns-2], s[ns-1] = s[ns-1], s[ns-2]
				w.pick = PickRoundRobin
				w.lastLane = int8(bits.TrailingZeros32(top.Mask))
				w.lineMask = top.Mask
				nk = kind[top.PC]
			default:
				w.nextPath(f)
				nk = kind[top.PC]
			}
			if nk == leadStop {
				w.picked = true
				m.picked++
				more = false
				goto out
			}
			continue
		}
	resched:
		// The next turn's pick through schedule.
		if k >= leadMax || w.State != WarpReady || len(w.stack) <= 1 {
			more = true
			goto out
		}
		if popped && !general {
			popped = false
			lane := w.lastLane
			if w.linePop(f, ns) {
				w.prevPC, w.prevMask, w.prevLane = int(last), lastMask, lane
				goto pick
			}
		}
		popped = false
		w.lastPC, w.lastMask = int(last), lastMask
		w.schedule()
		general = w.lineLen == 0
	pick:
		s = w.stack
		ns = len(s)
		top = &s[ns-1]
		if kind[top.PC] == leadStop {
			w.picked = true
			m.picked++
			more = false
			goto out
		}
		f = int(w.lineFirst)
		fresh = !general
	}
out:
	w.lastPC, w.lastMask = int(last), lastMask
	m.curPC = int(last)
	d := int64(k - start)
	m.stats.WarpInstructions += d
	m.stats.ThreadInstructions += threads
	m.fast.lineRuns++
	m.fast.lineInsts += d
	*n = k
	return more && k < leadMax && w.State == WarpReady
}

// leadRun executes register-only instructions of w while its stack top
// is the issuing group (the SIMT stack, or one group under independent
// scheduling) and its lanes do not change: until an instruction that is
// not register-only, a branch that diverges or reconverges, or leadMax.
// It adds the instructions to *n and reports whether the lead may go on.
func (m *Machine) leadRun(w *Warp, n *int32) (more bool) {
	kind, pure := m.prog.runKind, m.prog.pure
	ops := m.prog.Ops
	top := &w.stack[len(w.stack)-1]
	mask := top.Mask
	k := *n
	start := k
	var pairs int64
	pc := top.PC
	last := pc
	for k < leadMax {
		pc = top.PC
		var op *Op
		if kd := kind[pc]; kd != leadPure {
			switch kd {
			case leadStop:
				more = false
				goto out
			case leadStraight:
				// A run of register-only instructions, none of them
				// control flow: each executed as below (at the stack
				// top's pc, which names an instruction's fault), without
				// looking at each one's kind.
				end := min(pc+int32(pure[pc]), pc+(leadMax-k))
				if rp := top.RPC; pc < rp && rp < end {
					end = rp
				}
				for p := pc; p < end; p++ {
					op = &ops[p]
					top.PC = p
					if e := guarded(w, op, mask); e != 0 && !m.execOp(w, op, e) {
						k += p - pc + 1
						last = p
						goto out
					}
				}
				k += end - pc
				last = end - 1
				top.PC = end
				if end == top.RPC {
					w.unwind()
					more = true
					goto out
				}
				continue
			case leadShared, leadLocal:
				// A shared-memory load at a quiet pc, which runs while the
				// CTA is quiet, or a warp-level instruction (leadOther).
				if !m.leadOther(w, kd, pc, mask) {
					more = false
					goto out
				}
				last = pc
				k++
				if m.fault != nil {
					more = false
					goto out
				}
				top.PC = pc + 1
				if top.PC == top.RPC {
					w.unwind()
					more = true
					goto out
				}
				continue
			case leadPair:
				if k+2 > leadMax || pc+1 == top.RPC {
					break
				}
				// The instruction and the bra after it.
				op = &ops[pc]
				last = pc
				if e := guarded(w, op, mask); e != 0 && !m.execOp(w, op, e) {
					k++
					goto out
				}
				pc++
				top.PC = pc
				k++
				pairs++
				fallthrough
			case leadBra:
				op = &ops[pc]
				e := guarded(w, op, mask)
				if m.obsTurns && e != 0 && e != mask {
					// It diverges: at its turn, where its events and the
					// lanes after it are reported.
					if kd == leadPair {
						pairs--
					}
					more = false
					goto out
				}
				last = pc
				k++
				switch {
				case e == 0:
					top.PC = pc + 1
				case e == mask:
					top.PC = op.Target
				default:
					m.curPC = int(pc)
					m.execOp(w, op, e)
					more = true
					goto out
				}
				if top.PC == top.RPC {
					w.unwind()
					more = true
					goto out
				}
				continue
			}
		}
		op = &ops[pc]
		if op.Ctrl && m.obsTurns {
			// At its turn (see leadBra).
			more = false
			goto out
		}
		last = pc
		k++
		if op.Ctrl {
			m.curPC = int(pc)
			m.execOp(w, op, guarded(w, op, mask))
			more = true
			goto out
		}
		if e := guarded(w, op, mask); e != 0 && !m.execOp(w, op, e) {
			goto out
		}
		top.PC = pc + 1
		if top.PC == top.RPC {
			w.unwind()
			more = true
			goto out
		}
	}
out:
	if d := k - start; d > 0 {
		w.issued += int64(d)
		w.lastPC, w.lastMask = int(last), mask
		m.curPC = int(last)
		if m.indep {
			w.pick = PickOnly
		} else {
			w.pick = PickStack
		}
		m.stats.WarpInstructions += int64(d)
		m.stats.ThreadInstructions += int64(d) * int64(bits.OnesCount32(mask))
	}
	m.fast.pairs += pairs
	*n = k
	return more && k < leadMax && w.State == WarpReady
}

// leadOther runs, in leadRun, w's instruction at pc of kind leadShared or
// leadLocal for the lanes of mask (the warp's only group, or the SIMT
// stack's top) as its turn would execute it (exec without syncJoin, which
// only a warp with several groups needs), and reports whether it did: a
// shared-memory load only while its CTA is quiet and no observer watches
// shared memory (quiet.go), a warp-level instruction unless an observer
// wants its details. An instruction that faults sets the fault (Run then
// replays to it one instruction at a time).
func (m *Machine) leadOther(w *Warp, kind leadKind, pc int32, mask uint32) bool {
	if kind == leadShared {
		if m.obsShared && !(m.plainSink && m.prog.Ops[pc].PlainShared) || !m.ctaQuiet(w.cta) {
			return false
		}
		m.fast.sharedLeads++
	} else {
		if m.obsDetails {
			return false
		}
		m.fast.localLeads++
	}
	m.curPC = int(pc)
	op := &m.prog.Ops[pc]
	if e := guarded(w, op, mask); e != 0 {
		if !m.execOp(w, op, e) {
			m.settleFault(pc, e)
		}
	}
	return true
}

// guarded returns the lanes of mask that execute op (its guard).
func guarded(w *Warp, op *Op, mask uint32) uint32 {
	if op.Guard >= 0 {
		p := w.preds[op.Guard]
		if op.GuardNeg {
			p = ^p
		}
		mask &= p
	}
	return mask
}

// runPlain is Run one instruction at a time.
func (m *Machine) runPlain(ctx context.Context) StopReason {
	done := ctx.Done()
	for i := 0; ; i++ {
		if i&1023 == 1023 {
			if m.interrupt.Load() {
				return StopInterrupted
			}
			select {
			case <-done:
				return StopInterrupted
			default:
			}
		}
		if r := m.issueNext(true); r != StopStepped {
			return r
		}
	}
}
