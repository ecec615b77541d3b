package sessions

import (
	"math/bits"
	"slices"
	"sort"

	"github.com/ptxplayground/ptxplay/engine/analysis"
	"github.com/ptxplayground/ptxplay/engine/emu"
	"github.com/ptxplayground/ptxplay/engine/isa"
)

// recorder is the machine's observer: it feeds the history's undo log with
// every global store and atomic, and collects what the next state message
// reports (events and the memory written since the previous state). The
// last StepInfo stays valid until the machine executes again, so the last
// instruction's details are read from it only when a state is built.
//
// It is a selective observer: it is called for the instructions that
// access memory, report events or tensor details, or fault (and, for the
// checker, those that change a warp's active lanes), so the machine runs
// the register-only instructions between them without reporting. Only a
// history scan (onStep) or the divergence view (trace) follows every
// instruction; setting or clearing either reinstalls the recorder
// (setHooks). The last instruction executed is found at a stop from the
// machine (Machine.LastIssued) and, when it reported something, from the
// last StepInfo (last).
type recorder struct {
	h        *history
	m        *emu.Machine
	replay   bool          // replaying history: no events
	info     *emu.StepInfo // the last instruction reported
	executed bool          // an instruction executed since cleared (set by whoever runs the machine)
	released bool          // a barrier released since cleared
	// onStep, if set, sees every instruction (history scans); trace, if
	// set, records every instruction (the divergence view). Set them with
	// setHooks.
	onStep func(*emu.StepInfo)
	trace  *trace
	// chk, if set, is the race and memory checker: it sees every
	// instruction once, the first time the machine executes it (execution
	// is deterministic, so going back and forth in history replays the
	// same instructions; warnings are then filtered by position).
	chk *analysis.Checker

	events  []evRec
	dropped int // events beyond maxEvents since the last state
	dirty   dirtySet
}

type evRec struct {
	ctaLin, warp int
	step         int64 // the instruction's number in the launch (the position after it)
	ev           emu.Event
}

// maxEvents caps the events of one state.
const maxEvents = 200

func trailingZeros(x uint32) int { return bits.TrailingZeros32(x) }

// Observes implements emu.SelectiveObserver.
func (r *recorder) Observes() emu.ObserveFlags {
	f := emu.ObserveAccesses | emu.ObserveOldBytes | emu.ObserveEvents | emu.ObserveDetails
	if r.chk != nil {
		f |= emu.ObserveMaskChanges
	}
	if r.onStep != nil || r.trace != nil {
		f |= emu.ObserveEveryStep
	}
	return f
}

// setHooks sets onStep and trace and reinstalls the recorder, so that the
// machine reports every instruction exactly while one of them is set.
func (r *recorder) setHooks(onStep func(*emu.StepInfo), t *trace) {
	r.onStep, r.trace = onStep, t
	r.m.SetObserver(r)
}

// last returns the record of the last instruction the machine executed
// (callers know one executed: executed), by lastOf; false if the machine
// cannot tell (none since it was restored).
func (r *recorder) last(lastOf func(*emu.StepInfo) lastRec) (lastRec, bool) {
	li, ok := r.m.LastIssued()
	if !ok {
		return lastRec{}, false
	}
	if r.info != nil && r.info.Step == li.Step {
		return lastOf(r.info), true // it reported accesses or details
	}
	return lastOf(&li), true
}

func (r *recorder) Step(in *emu.StepInfo) {
	r.info = in
	wi := in.Step
	if r.onStep != nil {
		r.onStep(in)
	}
	if r.trace != nil {
		r.trace.step(in, wi)
	}
	if r.chk != nil && wi > r.chk.Steps() {
		r.chk.StepAt(in, wi)
	}
	if len(in.Accesses) > 0 {
		for i := range in.Accesses {
			a := &in.Accesses[i]
			if a.Kind == emu.AccessLoad {
				continue
			}
			switch a.Space {
			case isa.Global:
				r.h.logStore(wi, a)
				r.dirtyAccess(isa.Global, 0, a)
			case isa.Shared:
				r.dirtyAccess(isa.Shared, a.CTA, a)
			}
		}
	}
	for _, e := range in.Events {
		if e.Releases() {
			r.released = true
		}
		if e.Kind == emu.EvMbarrierCompleteTx || e.Kind == emu.EvMbarrierComplete {
			// An asynchronous copy that lands completes its transaction
			// bytes (and maybe the phase) on the mbarrier's 8 bytes with
			// no access of the instruction that let it land: the event
			// names the bytes.
			r.dirty.add(isa.Shared, e.CTA, e.Addr, 8)
		}
		if r.replay {
			continue
		}
		if len(r.events) < maxEvents {
			r.events = append(r.events, evRec{ctaLin: in.CTALin, warp: in.Warp, step: wi, ev: e})
		} else {
			r.dropped++
		}
	}
}

func (r *recorder) dirtyAccess(space isa.Space, cta int, a *emu.Access) {
	if r.dirty.stale {
		return
	}
	n := a.Size
	if n <= 0 {
		return
	}
	// Lanes writing consecutive addresses make one range.
	var lo, end uint64
	open := false
	for lanes := a.Lanes; lanes != 0; lanes &= lanes - 1 {
		addr := a.Addr[trailingZeros(lanes)]
		if open && addr == end {
			end += uint64(n)
			continue
		}
		if open {
			r.dirty.add(space, cta, lo, int(end-lo))
		}
		lo, end, open = addr, addr+uint64(n), true
	}
	if open {
		r.dirty.add(space, cta, lo, int(end-lo))
	}
}

func (r *recorder) dirtyGlobal(addr uint64, n int) { r.dirty.add(isa.Global, 0, addr, n) }

// resetReport forgets what the previous state reported.
func (r *recorder) resetReport() {
	r.events = r.events[:0]
	r.dropped = 0
	r.dirty.reset()
}

// ---- memory written since the last state ----

type dirtyRange struct {
	space isa.Space
	cta   int
	addr  uint64
	n     uint64
}

// dirtySet collects written ranges, merged; past maxInspectBytes of
// distinct bytes it gives up and reports the memory stale.
type dirtySet struct {
	r      []dirtyRange
	merged int // r[:merged] is sorted and disjoint
	stale  bool
}

func (d *dirtySet) reset() {
	d.r, d.merged, d.stale = d.r[:0], 0, false
}

func (d *dirtySet) add(space isa.Space, cta int, addr uint64, n int) {
	if d.stale || n <= 0 {
		return
	}
	end := addr + uint64(n)
	if k := len(d.r); k > 0 {
		// Consecutive lanes usually touch adjacent bytes, in either order.
		last := &d.r[k-1]
		if last.space == space && last.cta == cta {
			lend := last.addr + last.n
			if addr <= lend && end >= last.addr {
				lo, hi := min(addr, last.addr), max(end, lend)
				last.addr, last.n = lo, hi-lo
				return
			}
		}
	}
	if d.merged > 0 && d.covered(space, cta, addr, end) {
		return
	}
	d.r = append(d.r, dirtyRange{space: space, cta: cta, addr: addr, n: uint64(n)})
	if len(d.r) >= 4096+d.merged {
		d.merge()
	}
}

// covered reports whether [addr, end) lies in one of the merged ranges.
func (d *dirtySet) covered(space isa.Space, cta int, addr, end uint64) bool {
	m := d.r[:d.merged]
	i := sort.Search(len(m), func(i int) bool { return !rangeLess(&m[i], space, cta, addr+1) }) - 1
	if i < 0 {
		return false
	}
	x := &m[i]
	return x.space == space && x.cta == cta && x.addr <= addr && end <= x.addr+x.n
}

// rangeLess orders ranges by space, CTA and start.
func rangeLess(a *dirtyRange, space isa.Space, cta int, addr uint64) bool {
	if a.space != space {
		return a.space < space
	}
	if a.cta != cta {
		return a.cta < cta
	}
	return a.addr < addr
}

// merge sorts and coalesces the ranges; it marks the set stale when they
// cover more than maxInspectBytes.
func (d *dirtySet) merge() {
	slices.SortFunc(d.r, func(a, b dirtyRange) int {
		if rangeLess(&a, b.space, b.cta, b.addr) {
			return -1
		}
		if rangeLess(&b, a.space, a.cta, a.addr) {
			return 1
		}
		return 0
	})
	out := d.r[:0]
	var total uint64
	for _, x := range d.r {
		if k := len(out); k > 0 {
			p := &out[k-1]
			if p.space == x.space && p.cta == x.cta && x.addr <= p.addr+p.n {
				if e := x.addr + x.n; e > p.addr+p.n {
					total += e - (p.addr + p.n)
					p.n = e - p.addr
				}
				continue
			}
		}
		out = append(out, x)
		total += x.n
	}
	d.r = out
	d.merged = len(out)
	if total > maxInspectBytes {
		d.stale = true
		d.r = d.r[:0]
		d.merged = 0
	}
}
