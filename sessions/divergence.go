package sessions

import (
	"math"
	"math/bits"
	"sort"

	"github.com/ptxplayground/ptxplay/engine/emu"
)

// The divergence view (docs/protocol.md, "divergence"): the control-flow
// graph goes once in `loaded`; once a client asks for it, every state
// carries, for the position shown, per source line the lane- and
// warp-executions so far and the selected warp's timeline of active lanes.
//
// The data comes from a trace of the executed warp-instructions, one
// record per position, kept by the recorder only while the view is on. It
// is indexed by position, so moving through the history moves the
// aggregates by the records in between (exactly, without re-executing).
// Turning the view on replays the history from its first reachable step to
// the furthest one reached (at most maxTrace steps), in slices (walk.go).

// maxCFGBlocks caps the blocks the `loaded` message describes; past it the
// graph is cut (cfg.truncated) and the view says so.
const maxCFGBlocks = 2000

// maxTrace caps the trace (12 bytes a warp-instruction); past it the
// aggregates stop at the last recorded position (divergence.upTo).
const maxTrace = 1 << 19

// maxTimeline is the number of the selected warp's instructions a state
// carries (the latest up to the position shown).
const maxTimeline = 256

// cfgJSON is the control-flow graph of the kernel and of the functions it
// can call.
type cfgJSON struct {
	Blocks []blockJSON `json:"blocks"`
	// Truncated: the functions have more than maxBlocks blocks; only the
	// first maxBlocks are listed (edges to the others are left out).
	Truncated bool `json:"truncated,omitempty"`
	MaxBlocks int  `json:"maxBlocks"`
}

// blockJSON is a basic block: pcs first..last, source lines firstLine..
// lastLine (the lines of its first and last instruction); succ holds
// indices into blocks, -1 for the function's exit. A block that ends with a
// branch has branch (its pc), divergent (the branch can split the warp)
// and reconv (the pc where split lanes rejoin, -1: at function exit).
type blockJSON struct {
	Func      string `json:"func"`
	First     int    `json:"first"`
	Last      int    `json:"last"`
	FirstLine int    `json:"firstLine"`
	LastLine  int    `json:"lastLine"`
	// FirstCUDALine and LastCUDALine: the CUDA lines of first and last
	// (CUDA programs; absent: none).
	FirstCUDALine int   `json:"firstCudaLine,omitempty"`
	LastCUDALine  int   `json:"lastCudaLine,omitempty"`
	Succ          []int `json:"succ"`
	Branch        *int  `json:"branch,omitempty"`
	Divergent     bool  `json:"divergent,omitempty"`
	Reconv        *int  `json:"reconv,omitempty"`
}

// divergenceJSON is the divergence data of a state or inspect reply.
type divergenceJSON struct {
	// From..UpTo are the positions the data covers: from the trace's start
	// (the first reachable step when the view was turned on) to the
	// position shown, or to the end of the trace (truncated).
	From      int64          `json:"from"`
	UpTo      int64          `json:"upTo"`
	Truncated bool           `json:"truncated,omitempty"`
	Lines     []lineExecJSON `json:"lines"`
	Timeline  timelineJSON   `json:"timeline"`
}

// lineExecJSON: the warp-instructions executed at a line (warps) and the
// active lanes they had in all (lanes).
type lineExecJSON struct {
	Line  int   `json:"line"`
	Lanes int64 `json:"lanes"`
	Warps int64 `json:"warps"`
}

// timelineJSON is the selected warp's latest instructions (at most
// maxTimeline): steps[i] is the position after the instruction, pcs[i] its
// pc, active[i] its active lanes; marks[i] has bit 0 when the instruction
// split the warp, bit 1 when lanes reconverged after it.
type timelineJSON struct {
	CTA    int     `json:"cta"` // linear CTA index
	Warp   int     `json:"warp"`
	Steps  []int64 `json:"steps"`
	PCs    []int   `json:"pcs"`
	Active []int   `json:"active"`
	Marks  []int   `json:"marks"`
}

// cfgOf builds the control-flow graph of the functions the launch can
// reach, the kernel first.
func (s *Session) cfgOf() *cfgJSON {
	p, m := s.prog.prog, s.m
	out := &cfgJSON{Blocks: []blockJSON{}, MaxBlocks: maxCFGBlocks}
	fns := []*emu.Function{m.Kernel()}
	for _, f := range p.Funcs {
		if f != m.Kernel() && f.HasBody && m.Reachable(f) {
			fns = append(fns, f)
		}
	}
	for _, f := range fns {
		bs := emu.Blocks(p, f)
		base := len(out.Blocks)
		for i, b := range bs {
			if base+i >= maxCFGBlocks {
				out.Truncated = true
				return out
			}
			j := blockJSON{Func: f.Name, First: b.Start, Last: b.End - 1,
				FirstLine: s.prog.line(b.Start), LastLine: s.prog.line(b.End - 1),
				FirstCUDALine: s.cline(b.Start), LastCUDALine: s.cline(b.End - 1), Succ: []int{}}
			for _, x := range b.Succ {
				if x >= 0 {
					x += base
					if x >= maxCFGBlocks {
						continue
					}
				}
				j.Succ = append(j.Succ, x)
			}
			if op := &p.Ops[b.End-1]; op.Eff.Has(emu.EffBranch) {
				pc, rc := b.End-1, int(op.Reconv)
				j.Branch, j.Reconv, j.Divergent = &pc, &rc, emu.MayDiverge(op)
			}
			out.Blocks = append(out.Blocks, j)
		}
	}
	return out
}

// traceRec is one executed warp-instruction.
type traceRec struct {
	pc     int32
	warp   uint32 // index into trace.warps
	active uint8
	marks  uint8
}

type warpKey struct{ cta, warp int }

// trace records the warp-instructions from position base on: recs[i] is
// the instruction that brought the count to base+i+1.
type trace struct {
	base  int64
	recs  []traceRec
	full  bool // maxTrace reached
	keys  map[warpKey]uint32
	warps []warpKey
	byW   [][]uint32 // per warp, the indices of its records

	// The per-pc aggregates at position at.
	at           int64
	lanes, execs []int64
}

func newTrace(base int64, nops int) *trace {
	return &trace{base: base, at: base, keys: map[warpKey]uint32{},
		lanes: make([]int64, nops), execs: make([]int64, nops)}
}

// step records an instruction that brought the count to wi, unless the
// trace holds it already (a replay) or is full.
func (t *trace) step(in *emu.StepInfo, wi int64) {
	if wi != t.base+int64(len(t.recs))+1 {
		return
	}
	if len(t.recs) >= maxTrace {
		t.full = true
		return
	}
	k := warpKey{in.CTALin, in.Warp}
	w, ok := t.keys[k]
	if !ok {
		w = uint32(len(t.warps))
		t.keys[k] = w
		t.warps = append(t.warps, k)
		t.byW = append(t.byW, nil)
	}
	var marks uint8
	for _, e := range in.Events {
		switch e.Kind {
		case emu.EvDiverge:
			marks |= 1
		case emu.EvReconverge:
			marks |= 2
		}
	}
	t.byW[w] = append(t.byW[w], uint32(len(t.recs)))
	t.recs = append(t.recs, traceRec{pc: int32(in.PC), warp: w, active: uint8(bits.OnesCount32(in.Mask)), marks: marks})
}

// moveTo brings the per-pc aggregates to position k (clamped to what the
// trace covers) and returns that position.
func (t *trace) moveTo(k int64) int64 {
	k = max(t.base, min(k, t.base+int64(len(t.recs))))
	for t.at < k {
		r := &t.recs[t.at-t.base]
		t.lanes[r.pc] += int64(r.active)
		t.execs[r.pc]++
		t.at++
	}
	for t.at > k {
		t.at--
		r := &t.recs[t.at-t.base]
		t.lanes[r.pc] -= int64(r.active)
		t.execs[r.pc]--
	}
	return k
}

// setDivergence turns the divergence data on or off. Turning it on
// installs an empty trace from the first reachable step and replays the
// history into it, up to the furthest step reached (or maxTrace steps),
// then comes back to the current position. It runs as a walk (walkCmd):
// stopped early, the trace covers the steps up to the machine's position,
// and moving forward later replays from the trace's end (traceEnd), so the
// data always covers the position shown.
func (s *Session) setDivergence(on bool) error {
	s.divOn = on
	if !on {
		s.trace = nil
		if s.rec != nil {
			s.rec.setHooks(nil, nil)
		}
		return nil
	}
	if s.m == nil || s.trace != nil {
		return nil
	}
	h := s.h
	t := newTrace(h.first, len(s.prog.prog.Ops))
	s.trace = t
	s.rec.setHooks(nil, t)
	cur := h.cur
	if end := min(h.head, h.first+maxTrace); end > h.first {
		// From the trace's start, goTo(end) replays (traceEnd).
		if err := h.goTo(h.first); err != nil {
			return err
		}
		if err := h.goTo(end); err != nil {
			return err
		}
	}
	return h.goTo(cur)
}

// traceEnd is history.mustPass: the end of the divergence trace while it
// can still grow (a later position is reached by replaying through it),
// and where it stops growing.
func (s *Session) traceEnd() (pass, until int64) {
	t := s.trace
	if t == nil || len(t.recs) >= maxTrace {
		return math.MaxInt64, math.MaxInt64
	}
	return t.base + int64(len(t.recs)), t.base + maxTrace
}

// divergenceJSON reports the trace at the machine's position for the
// warp of resident CTA ci.
func (s *Session) divergenceJSON(ci, wi int) *divergenceJSON {
	t := s.trace
	if t == nil {
		return nil
	}
	pos := s.m.Stats().WarpInstructions
	k := t.moveTo(pos)
	out := &divergenceJSON{From: t.base, UpTo: k, Truncated: t.full || k < pos, Lines: []lineExecJSON{}}
	for _, l := range s.prog.lines {
		var lanes, execs int64
		for _, pc := range l.PCs {
			if pc < len(t.execs) {
				lanes += t.lanes[pc]
				execs += t.execs[pc]
			}
		}
		if execs > 0 {
			out.Lines = append(out.Lines, lineExecJSON{Line: l.Line, Lanes: lanes, Warps: execs})
		}
	}
	tl := &out.Timeline
	tl.Steps, tl.PCs, tl.Active, tl.Marks = []int64{}, []int{}, []int{}, []int{}
	ctas := s.m.CTAs()
	if ci < 0 || ci >= len(ctas) {
		return out
	}
	tl.CTA, tl.Warp = ctas[ci].Linear, wi
	w, ok := t.keys[warpKey{tl.CTA, wi}]
	if !ok {
		return out
	}
	idx := t.byW[w]
	end := sort.Search(len(idx), func(i int) bool { return t.base+int64(idx[i]) >= k })
	for _, i := range idx[max(0, end-maxTimeline):end] {
		r := &t.recs[i]
		tl.Steps = append(tl.Steps, t.base+int64(i)+1)
		tl.PCs = append(tl.PCs, int(r.pc))
		tl.Active = append(tl.Active, int(r.active))
		tl.Marks = append(tl.Marks, int(r.marks))
	}
	return out
}
