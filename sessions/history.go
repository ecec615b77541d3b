package sessions

import (
	"errors"
	"fmt"
	"math"
	"sort"

	"github.com/ptxplayground/ptxplay/engine/analysis"
	"github.com/ptxplayground/ptxplay/engine/emu"
)

// History: the machine is deterministic, so the whole session is one
// trajectory and a position on it is the warp-instruction count the machine
// has reached. Every position from firstStep to the head (the furthest
// position executed) can be shown again: the timeline scrubs through them
// one warp-instruction at a time. Where a command ended, a "stop" records
// why (stepped, breakpoint, fault, …), the command's message, and a "tail"
// for the rare stops that change the machine without executing (a
// breakpoint stop, or a launch that finished or deadlocked without
// executing another instruction).
//
// To reach a position, the session restores the latest usable snapshot at
// or before it and replays forward (breakpoints cleared). Snapshots hold the
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
// their stops are dropped (firstStep moves up); if one segment alone is
// over budget, a snapshot of the current state becomes the new base.
type history struct {
	m *emu.Machine
	// lowMemory, if set, reports that the server's accounted memory is
	// over its limit (memoryLow).
	lowMemory func() bool
	rec       *recorder
	lastOf    func(*emu.StepInfo) lastRec
	// mem, if set, is the per-pc memory analysis: snapshots keep its sums
	// and restoring one restores them.
	mem *memStats
	// pace, if set, is called after each replayed instruction short of the
	// replay's target; an error stops the replay (walk.go: the slices and
	// the time limit of history commands).
	pace func() error
	// mustPass, if set, returns the latest position that moving forward may
	// skip (pass: a later position is reached by replaying from at most
	// there) and the position after which that no longer matters (until):
	// the divergence trace records only what the machine executes, up to
	// its capacity.
	mustPass func() (pass, until int64)

	first int64  // the earliest reachable position (the base snapshot's)
	head  int64  // the furthest position reached
	cur   int64  // the machine's position
	stops []stop // where commands ended, by position; one per position

	// The last instruction before the current position (from its stop, the
	// replay that reached it, or the snapshot it was restored from).
	last lastRec

	snaps []snapRec // oldest first, by count
	undo  memLog
	redo  memLog
	floor int64 // redo covers the segments after count floor (MaxInt64: no redo)

	interval    int64 // count distance between snapshots at command ends
	jobInterval int64 // count distance between snapshots inside one long command
	budget      int64
	pressured   bool  // the budget was lowered for the manager (shrink): trim thins before it drops steps
	compacted   int   // undo bytes after the last deduplication
	deduped     int64 // segments ending at or before this count are deduplicated
}

type tail struct {
	bpPC    int32 // >= 0: the command ended with a breakpoint stop at this pc
	settled bool  // the command ended with the launch finishing or deadlocking without executing
}

func (t tail) none() bool { return t.bpPC < 0 && !t.settled }

// stop is where a command ended.
type stop struct {
	wi      int64
	tail    tail
	reason  string
	message string
	last    lastRec
}

// lastRec is the last warp-instruction executed before a position.
type lastRec struct {
	valid          bool
	ctaLin, warp   int
	pc             int
	mask, execMask uint32
	tensor         *tensorJSON // its fragment report (tensor-core instructions); never modified
	// accesses: its shared- and global-memory accesses, exact (at most
	// maxAccesses; omitted counts the rest); never modified.
	accesses []accessRec
	omitted  int
	swizzle  *liveSwizzleJSON // the Swizzle tab's view of its first shared access; never modified
}

// accessRec is one warp access of that instruction: every lane's offset
// (shared: in the shared memory of CTA cta; global: the address).
type accessRec struct {
	a   analysis.WarpAccess
	cta int
}

// maxAccesses bounds the accesses kept of one instruction (one for most;
// wmma's fragment loads and stores make several).
const maxAccesses = 16

const accessRecBytes = 48 + 8*32

// bytes returns what the record holds beyond stopBytes.
func (lr *lastRec) bytes() int64 {
	n := int64(len(lr.accesses)) * accessRecBytes
	if sw := lr.swizzle; sw != nil {
		n += liveSwizzleBytes + int64(len(sw.Lanes))*(8+8+8)
	}
	return n
}

// liveSwizzleBytes is a Swizzle tab report beyond its lanes' slices.
const liveSwizzleBytes = 256

type snapKind uint8

const (
	snapClean   snapKind = iota // the state right after the count-th instruction
	snapBP                      // a breakpoint tail applied (usable for later positions too)
	snapSettled                 // a settled tail applied (usable only for its own position)
)

func kindOf(t tail) snapKind {
	switch {
	case t.bpPC >= 0:
		return snapBP
	case t.settled:
		return snapSettled
	}
	return snapClean
}

type snapRec struct {
	wi   int64
	kind snapKind
	last lastRec // the instruction before it
	s    *emu.Snapshot
	mem  []pcSum // the memory analysis' sums at wi
}

const stopBytes = 128

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

func (l *memLog) len() int   { return len(l.recs) - l.head }
func (l *memLog) bytes() int { return l.len()*memRecBytes + len(l.data) - l.dhead }

// held is the memory the log holds: its arrays' capacity, which popping
// and dropping do not return (fit does).
func (l *memLog) held() int { return cap(l.recs)*memRecBytes + cap(l.data) }

// fit gives back the arrays' spare capacity when it is most of them.
func (l *memLog) fit() {
	if cap(l.recs) > 2*len(l.recs)+64 {
		l.recs = append(make([]memRec, 0, len(l.recs)+len(l.recs)/4), l.recs...)
	}
	if cap(l.data) > 2*len(l.data)+4096 {
		l.data = append(make([]byte, 0, len(l.data)+len(l.data)/4), l.data...)
	}
}
func (l *memLog) top() memRec { return l.recs[len(l.recs)-1] }

func (l *memLog) reset() {
	l.recs, l.data, l.head, l.dhead = l.recs[:0], l.data[:0], 0, 0
	l.fit()
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
	l.fit()
}

// ---- history ----

func newHistory(m *emu.Machine, rec *recorder, lastOf func(*emu.StepInfo) lastRec, interval, budget int64, reason string) *history {
	h := &history{m: m, rec: rec, lastOf: lastOf, floor: math.MaxInt64, interval: interval, jobInterval: 16 * interval, budget: budget}
	h.stops = []stop{{wi: 0, tail: noTail, reason: reason}}
	h.snaps = []snapRec{{wi: 0, kind: snapClean, s: m.Snapshot(false)}}
	return h
}

func (h *history) wi() int64          { return h.m.Stats().WarpInstructions }
func (h *history) lastSnap() *snapRec { return &h.snaps[len(h.snaps)-1] }

// stopAt returns the stop at position wi, or nil.
func (h *history) stopAt(wi int64) *stop {
	i := sort.Search(len(h.stops), func(i int) bool { return h.stops[i].wi >= wi })
	if i < len(h.stops) && h.stops[i].wi == wi {
		return &h.stops[i]
	}
	return nil
}

// reason returns why the machine stands at the current position, and the
// message that came with it.
func (h *history) reason() (string, string) {
	if st := h.stopAt(h.cur); st != nil {
		return st.reason, st.message
	}
	return "stepped", ""
}

func (h *history) bytes() int64 {
	n := int64(h.undo.held()+h.redo.held()) + int64(cap(h.stops))*stopBytes
	for i := range h.stops {
		n += h.stops[i].last.bytes()
	}
	for _, s := range h.snaps {
		n += int64(s.s.Size()) + 64 + s.last.bytes() + int64(len(s.mem))*pcSumBytes
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

// beginExec is called before the machine executes past the head: the
// redo log only ever covers positions up to the head, so it is dropped.
func (h *history) beginExec() {
	h.redo.reset()
	h.floor = math.MaxInt64
}

// truncate makes the current position the head: later stops, snapshots
// and the redo log are dropped (a command that may end anywhere, a run
// with breakpoints, starts from the past).
func (h *history) truncate() {
	if h.cur == h.head {
		return
	}
	k := sort.Search(len(h.stops), func(i int) bool { return h.stops[i].wi > h.cur })
	h.stops = h.stops[:k]
	if len(h.stops) == 0 || h.stops[k-1].wi != h.cur {
		h.stops = append(h.stops, stop{wi: h.cur, tail: noTail, reason: "stepped", last: h.last})
	}
	k = len(h.snaps)
	for k > 1 && h.snaps[k-1].wi > h.cur {
		k--
	}
	for i := k; i < len(h.snaps); i++ {
		h.snaps[i].s = nil
	}
	h.snaps = h.snaps[:k]
	h.head = h.cur
	h.beginExec()
	h.deduped = min(h.deduped, h.cur)
}

// record notes a command's end at the machine's position: a stop when the
// command reached a new head or ended with a tail; within the recorded
// past the position just becomes current.
func (h *history) record(st stop) {
	h.cur = st.wi
	h.last = st.last
	if st.wi < h.head && st.tail.none() {
		return
	}
	if old := h.stopAt(st.wi); old != nil {
		if st.wi < h.head {
			return // the past already has its stop there
		}
		*old = st
	} else {
		h.stops = append(h.stops, st)
	}
	h.head = st.wi
	if st.wi-h.lastSnap().wi >= h.interval && !h.memoryLow() {
		h.snaps = append(h.snaps, snapRec{wi: st.wi, kind: kindOf(st.tail), last: st.last, s: h.m.Snapshot(false), mem: h.saveMem()})
	}
}

// saveMem returns the memory analysis' sums for a snapshot.
func (h *history) saveMem() []pcSum {
	if h.mem == nil {
		return nil
	}
	return h.mem.save()
}

// midSnapshot takes a snapshot inside a long command (the machine has just
// executed an instruction past the head) when the last one is far enough
// back.
func (h *history) midSnapshot() {
	wi := h.wi()
	if wi-h.lastSnap().wi < h.jobInterval || h.memoryLow() {
		return
	}
	h.snapNow()
}

// memoryLow reports whether the server's accounted memory is over its
// limit: then the history takes no periodic snapshot (each one a copy of
// the machine). Positions stay exact, replayed from the snapshots before,
// as after thinning.
func (h *history) memoryLow() bool { return h.lowMemory != nil && h.lowMemory() }

// trim enforces the budget; it runs while executing at the head. clean
// tells that the machine's state is the plain state after its last
// instruction.
func (h *history) trim(clean bool) {
	over := h.bytes() > h.budget
	ub := h.undo.bytes()
	if (over && ub > 2*h.compacted && int64(ub) > h.budget/8) || ub-h.compacted > dedupEvery {
		if clean {
			h.snapNow() // closes the open segment
		}
		h.dedup()
		h.compacted = h.undo.bytes()
	}
	if !over {
		return
	}
	if h.pressured {
		h.thinTo(h.budget*3/4, math.MaxInt64, true)
	}
	for h.bytes() > h.budget*3/4 && len(h.snaps) > 1 {
		h.dropBase()
	}
	if h.bytes() > h.budget && clean {
		h.snapNow()
		for len(h.snaps) > 1 {
			h.dropBase()
		}
		h.compacted = 0
	}
}

// shrink brings the history down to target bytes, for a manager whose
// accounted memory is high, and keeps it there (its budget becomes
// target; atExec: the machine executes at the head, within a command).
// First it thins the snapshots: every other one between the base and the
// last (before the current position unless at the head), oldest first;
// the positions they served stay reachable, exactly, by replay from the
// snapshot before, and the merged segments of the undo log are
// deduplicated again. Only if that is not enough are the oldest steps
// dropped (firstStep moves up). It reports how many snapshots went and
// whether steps were dropped.
func (h *history) shrink(target int64, atExec bool) (thinned int, dropped bool) {
	h.budget, h.pressured = target, true
	lim := h.cur
	if atExec || h.cur == h.head {
		lim = math.MaxInt64
	}
	thinned = h.thinTo(target, lim, atExec || h.cur == h.head)
	first := h.first
	for h.bytes() > target && len(h.snaps) > 1 && (atExec || h.snaps[1].wi <= h.cur) {
		h.dropBase()
	}
	return thinned, h.first != first
}

// thinTo thins the snapshots before position lim until the history holds
// at most target bytes or none is left to thin; dedup: the undo log may be
// deduplicated (the machine is at the head), first as it is (that loses
// nothing), then after each pass over merged segments. It returns how
// many snapshots went.
func (h *history) thinTo(target, lim int64, dedup bool) int {
	thinned := 0
	for {
		if dedup {
			h.deduped = h.snaps[0].wi
			h.dedup()
			h.compacted = h.undo.bytes()
		}
		if h.bytes() <= target {
			break
		}
		n := h.thin(lim)
		if n == 0 {
			break
		}
		thinned += n
	}
	return thinned
}

// thin drops every other snapshot strictly between the base and the last
// one, and before position lim, oldest first; it returns how many went.
func (h *history) thin(lim int64) int {
	keep := h.snaps[:1]
	n := 0
	for i := 1; i < len(h.snaps); i++ {
		sr := h.snaps[i]
		if i < len(h.snaps)-1 && sr.wi < lim && i%2 == 1 {
			sr.s = nil
			n++
			continue
		}
		keep = append(keep, sr)
	}
	clear(h.snaps[len(keep):])
	h.snaps = keep
	return n
}

// dedupEvery is the undo-log growth after which closed segments are
// deduplicated even within budget (it keeps stepping back over a long run
// fast).
const dedupEvery = 4 << 20

// snapNow takes a snapshot of the current (clean) state unless the last
// one is of it already.
func (h *history) snapNow() {
	wi := h.wi()
	if wi <= h.lastSnap().wi {
		return
	}
	sr := snapRec{wi: wi, kind: snapClean, s: h.m.Snapshot(false), mem: h.saveMem()}
	if h.rec.executed {
		sr.last, _ = h.rec.last(h.lastOf)
	}
	h.snaps = append(h.snaps, sr)
}

// dropBase forgets the oldest snapshot and everything only it could reach.
func (h *history) dropBase() {
	h.snaps[0].s = nil
	h.snaps = h.snaps[1:]
	base := h.snaps[0].wi
	h.undo.dropFront(base)
	k := sort.Search(len(h.stops), func(i int) bool { return h.stops[i].wi >= base })
	if k > 0 {
		h.stops = append([]stop(nil), h.stops[k:]...)
	}
	h.first = base
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

// usable reports whether snapshot s can be the start of a replay to
// position wi, whose stop (if any) is st.
func usable(s *snapRec, wi int64, st *stop) bool {
	switch {
	case s.wi < wi:
		return s.kind != snapSettled
	case s.wi == wi:
		return s.kind == snapClean || (st != nil && s.kind == kindOf(st.tail))
	}
	return false
}

var errReplay = errors.New("history replay diverged")

// goTo brings the machine to position k of the history.
func (h *history) goTo(k int64) error {
	if k < h.first || k > h.head {
		return fmt.Errorf("step %d is not in the history (%d to %d)", k, h.first, h.head)
	}
	if k == h.cur {
		return nil
	}
	pass := int64(math.MaxInt64)
	if h.mustPass != nil {
		var until int64
		if pass, until = h.mustPass(); k > pass && k > until && until > h.cur {
			// Replay only as far as the trace grows, then skip.
			if err := h.goTo(until); err != nil {
				return err
			}
			pass, _ = h.mustPass()
		}
	}
	st := h.stopAt(k)
	P := h.cur
	cst := h.stopAt(P)
	y := -1
	for _, bounded := range []bool{true, false} {
		for i := len(h.snaps) - 1; i >= 0 && y < 0; i-- {
			if usable(&h.snaps[i], k, st) && (!bounded || k <= pass || h.snaps[i].wi <= pass) {
				y = i
			}
		}
	}
	if y < 0 {
		return errReplay
	}
	s := &h.snaps[y]
	h.rec.replay = true
	h.rec.executed = false
	defer func() { h.rec.replay = false }()
	tailDone := false
	if k > P && (cst == nil || !cst.tail.settled) && s.wi <= P && (k <= pass || P <= pass) {
		// Forward from the current state.
		if err := h.replay(k); err != nil {
			return err
		}
	} else {
		if s.wi <= P {
			h.undoTo(s.wi)
		} else {
			h.redoTo(s.wi)
		}
		h.m.Restore(s.s)
		if h.mem != nil {
			h.mem.restore(s.mem)
		}
		h.last = s.last
		tailDone = s.kind != snapClean
		if s.wi < k {
			if err := h.replay(k); err != nil {
				return err
			}
			tailDone = false
		}
	}
	h.cur = k
	if h.rec.executed {
		if lr, ok := h.rec.last(h.lastOf); ok {
			h.last = lr
		}
	}
	if st == nil {
		return nil
	}
	h.last = st.last
	if tailDone {
		return nil
	}
	return h.applyTail(st.tail)
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

// redoTo moves global memory forward from the current position to a later
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

// replay executes instructions until the count reaches wi. After each
// instruction short of wi it calls pace, and stops with pace's error: the
// machine then stands at an exact position of the history (settle makes it
// the current one).
func (h *history) replay(wi int64) error {
	m := h.m
	if m.Stats().WarpInstructions < wi {
		h.rec.executed = true
	}
	for first := true; m.Stats().WarpInstructions < wi; first = false {
		if !first && h.pace != nil {
			if err := h.pace(); err != nil {
				return err
			}
		}
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

// settle makes the machine's position the current one after a replay
// stopped short of its target (pace): the machine stands just after a
// replayed instruction, so the position is exact once the stop recorded
// there, if any, has its tail applied.
func (h *history) settle() error {
	wi := h.wi()
	h.cur = wi
	if lr, ok := h.rec.last(h.lastOf); ok {
		h.last = lr
	}
	if st := h.stopAt(wi); st != nil {
		h.last = st.last
		return h.applyTail(st.tail)
	}
	return nil
}

// applyTail redoes a stop's non-executing part.
func (h *history) applyTail(t tail) error {
	m := h.m
	before := m.Stats().WarpInstructions
	switch {
	case t.bpPC >= 0:
		m.SetBreakpoint(int(t.bpPC), true)
		r := m.Issue(true)
		m.SetBreakpoint(int(t.bpPC), false)
		if r != emu.StopBreakpoint || m.Stats().WarpInstructions != before {
			return errReplay
		}
	case t.settled && !m.Stopped():
		r := m.Step(emu.StepWarpInstruction)
		if (r != emu.StopDone && r != emu.StopFault) || m.Stats().WarpInstructions != before {
			return errReplay
		}
	}
	return nil
}

// ---- moving by units ----

// schedKey orders warps as the round-robin scheduler visits them.
type schedKey struct{ cta, warp int }

func (a schedKey) le(b schedKey) bool { return a.cta < b.cta || (a.cta == b.cta && a.warp <= b.warp) }

// prevBoundary returns the n-th latest position before p that starts a
// unit of g (as n calls each from the previous result would), or firstStep
// if there are fewer: a round starts where the scheduler wraps around its
// warps (the next instruction's warp comes at or before the last one's), a
// barrier unit ends with the instruction that released a barrier. The
// positions are found by replaying the segments before p once each, latest
// first, until n are found.
func (h *history) prevBoundary(p int64, g emu.Granularity, n int) (int64, error) {
	hi := p
	var after schedKey // the warp of instruction hi+1
	haveAfter := false
	for hi > h.first {
		// The latest snapshot before hi to replay from.
		s := h.first
		for i := len(h.snaps) - 1; i >= 0; i-- {
			if h.snaps[i].wi < hi && h.snaps[i].kind != snapSettled {
				s = h.snaps[i].wi
				break
			}
		}
		if err := h.goTo(s); err != nil {
			return 0, err
		}
		cnt := int(hi - s)
		keys := make([]schedKey, 0, cnt)
		rel := make([]bool, 0, cnt)
		trace := h.rec.trace
		h.rec.setHooks(func(in *emu.StepInfo) {
			keys = append(keys, schedKey{in.CTALin, in.Warp})
			r := false
			for _, e := range in.Events {
				r = r || e.Releases()
			}
			rel = append(rel, r)
		}, trace)
		h.rec.replay = true
		err := h.replay(hi)
		h.rec.replay = false
		h.rec.setHooks(nil, trace)
		if err != nil {
			return 0, err
		}
		h.cur = hi
		if lr, ok := h.rec.last(h.lastOf); ok {
			h.last = lr
		}
		if st := h.stopAt(hi); st != nil {
			h.last = st.last
			if err := h.applyTail(st.tail); err != nil {
				return 0, err
			}
		}
		if len(keys) != cnt {
			return 0, errReplay
		}
		// keys[i] is instruction s+1+i; position b is the state after
		// instruction b.
		for b := hi; b > s; b-- {
			if b >= p {
				continue
			}
			i := int(b - s - 1)
			found := false
			switch g {
			case emu.StepToBarrier:
				found = rel[i]
			default:
				switch {
				case i+1 < cnt:
					found = keys[i+1].le(keys[i])
				case haveAfter:
					found = after.le(keys[i])
				}
			}
			if found {
				if n--; n <= 0 {
					return b, nil
				}
			}
		}
		if cnt > 0 {
			after, haveAfter = keys[0], true
		}
		hi = s
	}
	return h.first, nil
}
