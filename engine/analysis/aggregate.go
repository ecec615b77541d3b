package analysis

import (
	"sort"
	"strings"

	"github.com/ptxplayground/ptxplay/engine/emu"
	"github.com/ptxplayground/ptxplay/engine/isa"
)

// Aggregator is an emu.Observer that applies the shared- and global-memory
// models to every warp-instruction that accesses memory and sums them per
// instruction. Install it with Machine.SetObserver or AddObserver; Lines
// gives the per-source-line table. It asks only for accesses
// (emu.SelectiveObserver), so the emulator reports nothing else to it.
type Aggregator struct {
	prog *emu.Program
	pcs  []PCStats
	buf  []WarpAccess
	addr [32]uint64 // PlainShared's offsets
}

// PCStats sums the accesses of one instruction over its executions.
type PCStats struct {
	// Executions counts the warp-instructions that accessed shared or
	// global memory.
	Executions int64
	Shared     bool // it accessed shared memory
	Global     bool // it accessed global memory
	// Shared memory: wavefronts taken and the ideal.
	Wavefronts, IdealWavefronts int64
	// Global memory: sectors and lines touched, bytes requested.
	Sectors, Lines, BytesRequested int64
}

// Add adds t's sums to s.
func (s *PCStats) Add(t *PCStats) {
	s.Executions += t.Executions
	s.Shared = s.Shared || t.Shared
	s.Global = s.Global || t.Global
	s.Wavefronts += t.Wavefronts
	s.IdealWavefronts += t.IdealWavefronts
	s.Sectors += t.Sectors
	s.Lines += t.Lines
	s.BytesRequested += t.BytesRequested
}

// NewAggregator returns an aggregator for prog.
func NewAggregator(prog *emu.Program) *Aggregator {
	return &Aggregator{prog: prog, pcs: make([]PCStats, len(prog.Ops))}
}

// Observes implements emu.SelectiveObserver: the aggregator uses only the
// accesses' addresses, so the emulator skips every other report.
func (g *Aggregator) Observes() emu.ObserveFlags { return emu.ObserveAccesses }

// Step implements emu.Observer.
func (g *Aggregator) Step(in *emu.StepInfo) {
	if len(in.Accesses) == 0 || in.PC < 0 || in.PC >= len(g.pcs) {
		return
	}
	if g.prog.Ops[in.PC].Eff.Has(emu.EffSync) {
		// A synchronisation object's update (an mbarrier: 8 bytes every
		// lane names) or an asynchronous bulk copy is not a warp's data
		// access: the bank and coalescing models do not apply to it.
		return
	}
	if allAsync(in.Accesses) {
		// The asynchronous proxy's reads and writes (a wgmma's operands
		// through its descriptors, a copy's bytes) are not a warp's lanes
		// accessing banks or sectors either.
		return
	}
	if !oneGroupEach(in.Accesses) {
		g.stepMerged(in)
		return
	}
	// Each access is one WarpAccess of its own (what FromStep would
	// return): apply the models to the report in place.
	s := &g.pcs[in.PC]
	counted := false
	for i := range in.Accesses {
		a := &in.Accesses[i]
		if sp := modelSpace(a.Space); sp != isa.SpaceNone && a.Size > 0 {
			s.count(sp, a.Kind, a.Size, a.Lanes, &a.Addr)
			counted = true
		}
	}
	if counted {
		s.Executions++
	}
}

// PlainShared implements emu.SharedSink: a plain shared load or store,
// counted as Step counts its report (one access, one execution).
func (g *Aggregator) PlainShared(pc int, kind emu.AccessKind, size int, lanes uint32, base *[32]uint64, am, off uint64) {
	if pc < 0 || pc >= len(g.pcs) || lanes == 0 || g.prog.Ops[pc].Eff.Has(emu.EffSync) {
		return
	}
	s := &g.pcs[pc]
	s.Executions++
	if size == 4 && lanes == ^uint32(0) && kind != emu.AccessAtomic {
		if free, known := sharedRegular4(base, am, off); known && free {
			// One wavefront, the ideal (count's answer, without the
			// addresses written out).
			s.Shared = true
			s.Wavefronts++
			s.IdealWavefronts++
			return
		}
	}
	a := &g.addr
	for l := range a {
		a[l] = off + base[l]&am
	}
	s.count(isa.Shared, kind, size, lanes, a)
}

// PlainSharedPattern is PlainShared for a full warp's 4-byte access whose
// offsets follow pattern p from o0 and o16 (emu.SharedSink).
func (g *Aggregator) PlainSharedPattern(pc int, kind emu.AccessKind, p emu.WarpPattern, o0, o16 uint64) {
	if pc < 0 || pc >= len(g.pcs) || g.prog.Ops[pc].Eff.Has(emu.EffSync) {
		return
	}
	s := &g.pcs[pc]
	s.Executions++
	if free, known := patternCost(p, o0, o16); known && free && kind != emu.AccessAtomic {
		s.Shared = true
		s.Wavefronts++
		s.IdealWavefronts++
		return
	}
	p.Offsets(o0, o16, &g.addr)
	s.count(isa.Shared, kind, 4, ^uint32(0), &g.addr)
}

// allAsync reports whether every access is the asynchronous proxy's.
func allAsync(as []emu.Access) bool {
	for i := range as {
		if !as[i].Async {
			return false
		}
	}
	return true
}

// count adds one warp access to s: size bytes of space (isa.Shared or
// isa.Global) by every lane in lanes at offsets off[lane].
func (s *PCStats) count(space isa.Space, kind emu.AccessKind, size int, lanes uint32, off *[32]uint64) {
	switch space {
	case isa.Shared:
		c := sharedCost(kind, size, lanes, off)
		s.Shared = true
		s.Wavefronts += int64(c.Wavefronts)
		s.IdealWavefronts += int64(c.Ideal)
	case isa.Global:
		c := globalCost(size, lanes, off)
		s.Global = true
		s.Sectors += int64(c.Sectors)
		s.Lines += int64(c.Lines)
		s.BytesRequested += int64(c.Requested)
	}
}

// oneGroupEach reports whether no two of the shared- and global-memory
// accesses in as have the same kind, space and size, so that FromStep
// would merge none of them.
func oneGroupEach(as []emu.Access) bool {
	if len(as) == 1 {
		return true
	}
	for i := range as {
		a := &as[i]
		si := modelSpace(a.Space)
		if si == isa.SpaceNone || a.Size <= 0 {
			continue
		}
		for j := i + 1; j < len(as); j++ {
			b := &as[j]
			if b.Kind == a.Kind && b.Size == a.Size && modelSpace(b.Space) == si {
				return false
			}
		}
	}
	return true
}

// modelSpace returns the space whose model applies to an access of sp
// (isa.SpaceNone: neither).
func modelSpace(sp isa.Space) isa.Space {
	switch sp {
	case isa.Global:
		return isa.Global
	case isa.Shared, isa.SharedCluster:
		return isa.Shared
	}
	return isa.SpaceNone
}

// stepMerged aggregates a step whose accesses FromStep merges.
func (g *Aggregator) stepMerged(in *emu.StepInfo) {
	g.buf = FromStep(in, g.buf[:0])
	if len(g.buf) == 0 {
		return
	}
	s := &g.pcs[in.PC]
	s.Executions++
	for i := range g.buf {
		a := &g.buf[i]
		s.count(a.Space, a.Kind, a.Size, a.Lanes, &a.Offset)
	}
}

// PC returns the sums for instruction pc (zero if out of range).
func (g *Aggregator) PC(pc int) PCStats {
	if pc < 0 || pc >= len(g.pcs) {
		return PCStats{}
	}
	return g.pcs[pc]
}

// Merge adds o's sums to g's, as if g had also observed what o observed
// (o must aggregate the same program). The sums do not depend on the order
// of the accesses, so aggregators of disjoint parts of a launch (its CTAs
// run on several machines) merge into the whole launch's.
func (g *Aggregator) Merge(o *Aggregator) {
	for pc := range min(len(g.pcs), len(o.pcs)) {
		g.pcs[pc].Add(&o.pcs[pc])
	}
}

// LineStats is one source line's memory behaviour: the sums of the
// instructions on it.
type LineStats struct {
	Line        int    // 1-based source line
	Instruction string // the line's text, trimmed
	PCStats
}

// Space names the state spaces the line accessed: "shared", "global" or
// "global+shared".
func (l *LineStats) Space() string {
	switch {
	case l.Shared && l.Global:
		return "global+shared"
	case l.Shared:
		return "shared"
	}
	return "global"
}

// ConflictDegree returns wavefronts per ideal wavefront (0 without shared
// accesses): 1 is conflict-free, 32 a 32-way conflict.
func (l *LineStats) ConflictDegree() float64 {
	if l.IdealWavefronts == 0 {
		return 0
	}
	return float64(l.Wavefronts) / float64(l.IdealWavefronts)
}

// Efficiency returns the bytes requested over the bytes the sectors moved,
// at most 1 (0 without global accesses).
func (l *LineStats) Efficiency() float64 {
	if l.Sectors == 0 {
		return 0
	}
	return min(1, float64(l.BytesRequested)/float64(l.Sectors*SectorBytes))
}

// Lines returns the per-line table, sorted by line: every line whose
// instructions accessed shared or global memory. Instructions without a
// source position (none in a compiled program) are left out.
func (g *Aggregator) Lines() []LineStats {
	byLine := map[int]*LineStats{}
	for pc := range g.pcs {
		s := &g.pcs[pc]
		if s.Executions == 0 {
			continue
		}
		line, text := g.line(pc)
		if line <= 0 {
			continue
		}
		ls := byLine[line]
		if ls == nil {
			ls = &LineStats{Line: line, Instruction: text}
			byLine[line] = ls
		}
		ls.Add(s)
	}
	out := make([]LineStats, 0, len(byLine))
	for _, ls := range byLine {
		out = append(out, *ls)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Line < out[j].Line })
	return out
}

// line returns the source line of pc and its trimmed text (0 if unknown).
func (g *Aggregator) line(pc int) (int, string) {
	p := g.prog
	if p.Src == nil || pc >= len(p.Spans) {
		return 0, ""
	}
	off := p.Spans[pc].Start
	return p.Src.Position(off).Line, lineText(p.Src.Text, int(off))
}

// lineText returns the trimmed text of the line holding offset off.
func lineText(text []byte, off int) string {
	if off < 0 || off > len(text) {
		return ""
	}
	start, end := off, off
	for start > 0 && text[start-1] != '\n' {
		start--
	}
	for end < len(text) && text[end] != '\n' {
		end++
	}
	return strings.TrimSpace(string(text[start:end]))
}
