package sessions

import (
	"errors"
	"fmt"
	"math"

	"github.com/ptxplayground/ptxplay/engine/emu"
	"github.com/ptxplayground/ptxplay/engine/isa"
)

// History: the machine is deterministic, so a step (the state after a
// command that moved the machine) is identified by the warp-instruction
// count it reached, plus a "tail" for the rare stops that change the
// machine without executing (a breakpoint stop, or a launch that finished
// or deadlocked without executing another instruction).
//
// To reach a step, the session restores the latest usable snapshot at or
// before it and replays forward (breakpoints cleared). Snapshots hold the
// machine state without global memory; global memory is moved with two
// logs fed by the observer (every store/atomic to global reports each
// lane's address and previous bytes):
//
//   - undo, a stack of (instruction count, address, previous bytes):
//     popping records newer than a snapshot brings global memory back to
//     the snapshot's time;
//   - redo, filled while undoing (the bytes a record overwrites are the
//     bytes after its write), so that seeking forward again can move global
//     memory to a later snapshot without re-executing.
//
// Records are ordered by segment (the instructions between two consecutive
// snapshots), not necessarily by count within one; both logs are only ever
// cut at snapshot boundaries, which is what keeps them exact. A closed
// segment can be deduplicated (only the first write of each address
// matters to undo it), which bounds a long run's log by the memory it
// touches. When the history exceeds its budget, the oldest snapshots and
// their records are dropped (firstStep moves up); if one segment alone is
// over budget, a snapshot of the current state becomes the new base.
type history struct {
	m   *emu.Machine
	rec *recorder

	first   int     // absolute step number of entries[0]
	entries []entry // reachable steps, oldest first
	cur     int     // absolute step number of the machine's state

	snaps []snapRec // oldest first, by count
	undo  memLog
	redo  memLog
	floor int64 // redo covers the segments after count floor (MaxInt64: no redo)

	interval    int64 // count distance between snapshots at step ends
	jobInterval int64 // count distance between snapshots inside one long command
	budget      int64
	compacted   int   // undo bytes after the last deduplication
	deduped     int64 // segments ending at or before this count are deduplicated
}

type tail struct {
	bpPC    int32 // >= 0: the step ended with a breakpoint stop at this pc
	settled bool  // the step ended with the launch finishing or deadlocking without executing
}

type entry struct {
	wi      int64
	tail    tail
	reason  string
	message string
	last    lastRec
	touched []touchRec
}

// lastRec is the last warp-instruction executed before a step's state.
type lastRec struct {
	valid          bool
	ctaLin, warp   int
	pc             int
	mask, execMask uint32
}

// touchRec is one memory access of that instruction, summarised.
type touchRec struct {
	kind   emu.AccessKind
	space  isa.Space
	ctaLin int
	addr   uint64 // global address, or shared offset
	bytes  int
}

type snapKind uint8

const (
	snapClean   snapKind = iota // the state right after the count-th instruction
	snapBP                      // a breakpoint tail applied (usable for later steps too)
	snapSettled                 // a settled tail applied (usable only for its own step)
)

type snapRec struct {
	wi    int64
	step  int  // the step it was taken at (inside a command: the step that command will record)
	exact bool // the state of step itself (taken when the step was recorded)
	kind  snapKind
	s     *emu.Snapshot
}

const entryBytes = 128

// ---- memory logs ----

type memRec struct {
	wi   int64
	addr uint64
	off  uint32 // of its bytes in data
	n    uint32
}

const memRecBytes = 24

// memLog is a stack of records; the front can be dropped.
type memLog struct {
	recs  []memRec
	data  []byte
	head  int // recs[:head] are dropped
	dhead int // data[:dhead] is dead
}

func (l *memLog) len() int    { return len(l.recs) - l.head }
func (l *memLog) bytes() int  { return l.len()*memRecBytes + len(l.data) - l.dhead }
func (l *memLog) top() memRec { return l.recs[len(l.recs)-1] }

func (l *memLog) reset() {
	l.recs, l.data, l.head, l.dhead = l.recs[:0], l.data[:0], 0, 0
}

func (l *memLog) push(wi int64, addr uint64, b []byte) {
	l.recs = append(l.recs, memRec{wi: wi, addr: addr, off: uint32(len(l.data)), n: uint32(len(b))})
	l.data = append(l.data, b...)
}

// pop removes the top record; its bytes stay valid until the next push.
func (l *memLog) pop() (memRec, []byte) {
	r := l.recs[len(l.recs)-1]
	l.recs = l.recs[:len(l.recs)-1]
	b := l.data[r.off : r.off+r.n]
	l.data = l.data[:r.off]
	if l.len() == 0 {
		l.reset()
	}
	return r, b
}

// dropFront drops the records up to count wi (a segment boundary).
func (l *memLog) dropFront(wi int64) {
	for l.head < len(l.recs) && l.recs[l.head].wi <= wi {
		l.head++
	}
	if l.head == len(l.recs) {
		l.reset()
		return
	}
	l.dhead = int(l.recs[l.head].off)
	if l.head > len(l.recs)/2 && l.head > 1024 {
		l.compact(nil)
	}
}

// compact rewrites the log in place without the dropped front, keeping
// only the records keep accepts (nil: all).
func (l *memLog) compact(keep func(r memRec) bool) {
	w, dw := 0, uint32(0)
	for i := l.head; i < len(l.recs); i++ {
		r := l.recs[i]
		if keep != nil && !keep(r) {
			continue
		}
		if r.off != dw {
			copy(l.data[dw:], l.data[r.off:r.off+r.n])
			r.off = dw
		}
		l.recs[w] = r
		w++
		dw += r.n
	}
	l.recs, l.data, l.head, l.dhead = l.recs[:w], l.data[:dw], 0, 0
}

// ---- history ----

func newHistory(m *emu.Machine, rec *recorder, interval, budget int64, reason string) *history {
	h := &history{m: m, rec: rec, floor: math.MaxInt64, interval: interval, jobInterval: 16 * interval, budget: budget}
	h.entries = []entry{{wi: 0, tail: tail{bpPC: -1}, reason: reason}}
	h.snaps = []snapRec{{wi: 0, step: 0, exact: true, kind: snapClean, s: m.Snapshot(false)}}
	return h
}

func (h *history) head() int          { return h.first + len(h.entries) - 1 }
func (h *history) entry(k int) *entry { return &h.entries[k-h.first] }
func (h *history) wi() int64          { return h.m.Stats().WarpInstructions }
func (h *history) lastSnap() *snapRec { return &h.snaps[len(h.snaps)-1] }

func (h *history) bytes() int64 {
	n := int64(h.undo.bytes()+h.redo.bytes()) + int64(len(h.entries))*entryBytes
	for _, s := range h.snaps {
		n += int64(s.s.Size()) + 64
	}
	return n
}

// logStore records the previous bytes of a global store or atomic at
// instruction count wi (called by the observer).
func (h *history) logStore(wi int64, a *emu.Access) {
	n := a.Size
	if n <= 0 || n > len(a.Old[0]) {
		return
	}
	u := &h.undo
	ri, end := -1, uint64(0)
	for lanes := a.Lanes; lanes != 0; lanes &= lanes - 1 {
		l := trailingZeros(lanes)
		addr := a.Addr[l]
		if ri >= 0 && addr == end {
			// Lanes storing to consecutive addresses make one record.
			u.data = append(u.data, a.Old[l][:n]...)
			u.recs[ri].n += uint32(n)
			end += uint64(n)
			continue
		}
		u.push(wi, addr, a.Old[l][:n])
		ri, end = len(u.recs)-1, addr+uint64(n)
	}
}

// beginExec makes the current step the head before the machine moves on
// from it: later steps, their snapshots and the redo log are dropped.
func (h *history) beginExec() {
	if h.cur == h.head() {
		return
	}
	h.entries = h.entries[:h.cur-h.first+1]
	k := len(h.snaps)
	for k > 0 && h.snaps[k-1].step > h.cur {
		k--
	}
	for i := k; i < len(h.snaps); i++ {
		h.snaps[i].s = nil
	}
	h.snaps = h.snaps[:k]
	h.redo.reset()
	h.floor = math.MaxInt64
	h.deduped = min(h.deduped, h.wi())
}

// record appends the machine's current state as a new step and makes it
// current; clean tells whether a snapshot may be taken of it.
func (h *history) record(e entry) int {
	h.entries = append(h.entries, e)
	h.cur = h.head()
	kind := snapClean
	switch {
	case e.tail.bpPC >= 0:
		kind = snapBP
	case e.tail.settled:
		kind = snapSettled
	}
	if e.wi-h.lastSnap().wi >= h.interval {
		h.snaps = append(h.snaps, snapRec{wi: e.wi, step: h.cur, exact: true, kind: kind, s: h.m.Snapshot(false)})
	}
	return h.cur
}

// midSnapshot takes a snapshot inside a long command (the machine has just
// executed an instruction) when the last one is far enough back.
func (h *history) midSnapshot() {
	wi := h.wi()
	if wi-h.lastSnap().wi < h.jobInterval {
		return
	}
	h.snaps = append(h.snaps, snapRec{wi: wi, step: h.head() + 1, kind: snapClean, s: h.m.Snapshot(false)})
}

// trim enforces the budget; it runs while executing at the head. inJob
// tells that a command is under way (the machine just executed an
// instruction and its step is not recorded yet); clean that the machine's
// state is the plain state after its last instruction.
func (h *history) trim(inJob, clean bool) {
	over := h.bytes() > h.budget
	ub := h.undo.bytes()
	if (over && ub > 2*h.compacted && int64(ub) > h.budget/8) || ub-h.compacted > dedupEvery {
		if clean {
			h.snapNow(inJob) // closes the open segment
		}
		h.dedup()
		h.compacted = h.undo.bytes()
	}
	if !over {
		return
	}
	for h.bytes() > h.budget*3/4 && len(h.snaps) > 1 {
		h.dropBase()
	}
	if h.bytes() > h.budget && clean {
		h.snapNow(inJob)
		for len(h.snaps) > 1 {
			h.dropBase()
		}
		h.compacted = 0
	}
}

// dedupEvery is the undo-log growth after which closed segments are
// deduplicated even within budget (it keeps stepping back over a long run
// fast).
const dedupEvery = 4 << 20

// snapNow takes a snapshot of the current (clean) state unless the last
// one is of it already.
func (h *history) snapNow(inJob bool) {
	wi := h.wi()
	if wi <= h.lastSnap().wi {
		return
	}
	if inJob {
		h.snaps = append(h.snaps, snapRec{wi: wi, step: h.head() + 1, kind: snapClean, s: h.m.Snapshot(false)})
	} else {
		h.snaps = append(h.snaps, snapRec{wi: wi, step: h.cur, exact: true, kind: snapClean, s: h.m.Snapshot(false)})
	}
}

// dropBase forgets the oldest snapshot and everything only it could reach.
func (h *history) dropBase() {
	h.snaps[0].s = nil
	h.snaps = h.snaps[1:]
	base := h.snaps[0]
	h.undo.dropFront(base.wi)
	if drop := base.step - h.first; drop > 0 {
		if drop > len(h.entries) {
			drop = len(h.entries)
		}
		h.entries = append([]entry(nil), h.entries[drop:]...)
		h.first += drop
	}
}

// dedup keeps, in every closed segment of the undo log, only the first
// record of each (address, size): undoing a whole segment restores the
// same bytes, and the logs are only cut at segment boundaries.
func (h *history) dedup() {
	type key struct {
		addr uint64
		n    uint32
	}
	seen := map[key]struct{}{}
	j := 0
	h.undo.compact(func(r memRec) bool {
		for j < len(h.snaps) && r.wi > h.snaps[j].wi {
			j++
			clear(seen)
		}
		if j == len(h.snaps) || h.snaps[j].wi <= h.deduped {
			return true // the open segment, or one deduplicated before
		}
		k := key{r.addr, r.n}
		if _, dup := seen[k]; dup {
			return false
		}
		seen[k] = struct{}{}
		return true
	})
	h.deduped = h.lastSnap().wi
}

// usable reports whether snapshot s can be the start of a replay to step
// k (count wi).
func usable(s *snapRec, k int, wi int64) bool {
	switch {
	case s.exact && s.step == k:
		return true
	case s.wi < wi:
		return s.kind != snapSettled
	case s.wi == wi:
		return s.kind == snapClean
	}
	return false
}

var errReplay = errors.New("history replay diverged")

// goTo brings the machine to step k of the history.
func (h *history) goTo(k int) error {
	if k < h.first || k > h.head() {
		return fmt.Errorf("step %d is not in the history (%d to %d)", k, h.first, h.head())
	}
	if k == h.cur {
		return nil
	}
	e := h.entry(k)
	T := e.wi
	P := h.wi()
	ce := h.entry(h.cur)
	y := -1
	for i := len(h.snaps) - 1; i >= 0; i-- {
		if usable(&h.snaps[i], k, T) {
			y = i
			break
		}
	}
	if y < 0 {
		return errReplay
	}
	s := &h.snaps[y]
	h.rec.replay = true
	defer func() { h.rec.replay = false }()
	if T > P && !ce.tail.settled && s.wi <= P {
		// Forward from the current state.
		if err := h.replay(T); err != nil {
			return err
		}
		h.cur = k
		return h.applyTail(e)
	}
	if s.wi <= P {
		h.undoTo(s.wi)
	} else {
		h.redoTo(s.wi)
	}
	h.m.Restore(s.s)
	h.cur = k
	if s.exact && s.step == k {
		return nil
	}
	if err := h.replay(T); err != nil {
		return err
	}
	return h.applyTail(e)
}

// undoTo pops undo records newer than count wi, restoring global memory;
// records the redo log does not cover yet move to it.
func (h *history) undoTo(wi int64) {
	g := &h.m.Global
	for h.undo.len() > 0 && h.undo.top().wi > wi {
		r, old := h.undo.pop()
		mem := g.Slice(r.addr, int(r.n))
		if mem == nil {
			continue
		}
		h.rec.dirtyGlobal(r.addr, int(r.n))
		if r.wi <= h.floor {
			h.redo.push(r.wi, r.addr, mem)
		}
		copy(mem, old)
	}
	h.floor = min(h.floor, wi)
}

// redoTo moves global memory forward from the current step to a later
// snapshot at count wi: the current segment's replayed writes are undone
// (the redo log has the whole segment), then redo records up to wi apply.
func (h *history) redoTo(wi int64) {
	g := &h.m.Global
	for h.undo.len() > 0 && h.undo.top().wi > h.floor {
		r, old := h.undo.pop()
		if mem := g.Slice(r.addr, int(r.n)); mem != nil {
			h.rec.dirtyGlobal(r.addr, int(r.n))
			copy(mem, old)
		}
	}
	for h.redo.len() > 0 && h.redo.top().wi <= wi {
		r, nb := h.redo.pop()
		mem := g.Slice(r.addr, int(r.n))
		if mem == nil {
			continue
		}
		h.rec.dirtyGlobal(r.addr, int(r.n))
		h.undo.push(r.wi, r.addr, mem)
		copy(mem, nb)
	}
	h.floor = wi
	if h.redo.len() == 0 {
		h.floor = math.MaxInt64
	}
}

// replay executes instructions until the count reaches wi.
func (h *history) replay(wi int64) error {
	m := h.m
	for m.Stats().WarpInstructions < wi {
		before := m.Stats().WarpInstructions
		r := m.Step(emu.StepWarpInstruction)
		switch r {
		case emu.StopStepped:
		case emu.StopBreakpoint: // a brkpt instruction
			if m.Stats().WarpInstructions == before {
				return errReplay
			}
		case emu.StopFault:
			if m.Stats().WarpInstructions != wi {
				return errReplay
			}
		default:
			return errReplay
		}
	}
	if m.Stats().WarpInstructions != wi {
		return errReplay
	}
	return nil
}

// applyTail redoes a step's non-executing stop.
func (h *history) applyTail(e *entry) error {
	m := h.m
	before := m.Stats().WarpInstructions
	switch {
	case e.tail.bpPC >= 0:
		m.SetBreakpoint(int(e.tail.bpPC), true)
		r := m.Issue(true)
		m.SetBreakpoint(int(e.tail.bpPC), false)
		if r != emu.StopBreakpoint || m.Stats().WarpInstructions != before {
			return errReplay
		}
	case e.tail.settled && !m.Stopped():
		r := m.Step(emu.StepWarpInstruction)
		if (r != emu.StopDone && r != emu.StopFault) || m.Stats().WarpInstructions != before {
			return errReplay
		}
	}
	return nil
}
