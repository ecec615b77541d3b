package sessions

import (
	"github.com/ptxplayground/ptxplay/engine/analysis"
	"github.com/ptxplayground/ptxplay/engine/emu"
)

// The per-line memory analysis (docs/protocol.md, "lineMemory"): for every
// source line whose instructions accessed shared or global memory, the
// bank-conflict and coalescing sums of engine/analysis over the steps from
// the launch to the position shown, exactly what a fresh run to that step
// computes.
//
// memStats keeps, per pc, the sums at the machine's position. It observes
// every executed instruction, replays included, so moving forward adds the
// instructions executed. Moving back restores a snapshot and replays from
// it: each history snapshot keeps the (sparse) sums of its position, and
// restoring the snapshot restores them. The sums therefore always belong
// to the machine's state, whatever the sequence of commands, and a
// history that dropped its start still knows the sums from step 0. Their
// memory is bounded by the number of memory instructions per snapshot and
// counted in the history's budget.

// memStats is an observer: the analysis.Aggregator computes each
// instruction's contribution (the difference of its sums for the pc), and
// sums holds the totals at the machine's position.
type memStats struct {
	agg  *analysis.Aggregator
	sums []analysis.PCStats
	// sent is the table the client holds (nil: none yet).
	sent []lineMemJSON
}

// pcSum is one instruction's sums, as a snapshot keeps them.
type pcSum struct {
	pc int32
	s  analysis.PCStats
}

// pcSumBytes is the memory a pcSum takes.
const pcSumBytes = 72

func newMemStats(p *emu.Program) *memStats {
	return &memStats{agg: analysis.NewAggregator(p), sums: make([]analysis.PCStats, len(p.Ops))}
}

// Observes implements emu.SelectiveObserver: only instructions that
// access memory count.
func (ms *memStats) Observes() emu.ObserveFlags { return emu.ObserveAccesses }

// Step implements emu.Observer.
func (ms *memStats) Step(in *emu.StepInfo) {
	if len(in.Accesses) == 0 || in.PC < 0 || in.PC >= len(ms.sums) {
		return
	}
	before := ms.agg.PC(in.PC)
	ms.agg.Step(in)
	after := ms.agg.PC(in.PC)
	if after.Executions == before.Executions {
		return // no shared or global access
	}
	s := &ms.sums[in.PC]
	s.Executions += after.Executions - before.Executions
	// Every shared access has an ideal of at least one wavefront, every
	// global one at least one sector.
	s.Shared = s.Shared || after.IdealWavefronts > before.IdealWavefronts || (after.Shared && !before.Shared)
	s.Global = s.Global || after.Sectors > before.Sectors || (after.Global && !before.Global)
	s.Wavefronts += after.Wavefronts - before.Wavefronts
	s.IdealWavefronts += after.IdealWavefronts - before.IdealWavefronts
	s.Sectors += after.Sectors - before.Sectors
	s.Lines += after.Lines - before.Lines
	s.BytesRequested += after.BytesRequested - before.BytesRequested
}

// save returns the sums of the instructions executed so far.
func (ms *memStats) save() []pcSum {
	var out []pcSum
	for pc := range ms.sums {
		if ms.sums[pc].Executions > 0 {
			out = append(out, pcSum{pc: int32(pc), s: ms.sums[pc]})
		}
	}
	return out
}

// restore sets the sums to a saved state.
func (ms *memStats) restore(saved []pcSum) {
	clear(ms.sums)
	for _, x := range saved {
		if int(x.pc) < len(ms.sums) {
			ms.sums[x.pc] = x.s
		}
	}
}

// lineMemJSON is one source line's memory behaviour: its instructions'
// warp-instructions that accessed shared or global memory (executions);
// for shared memory the wavefronts taken and the ideal (bank conflicts);
// for global memory the 32-byte sectors and 128-byte lines touched and the
// bytes the lanes requested (coalescing). Sums over every execution.
type lineMemJSON struct {
	Line            int   `json:"line"`
	Shared          bool  `json:"shared,omitempty"`
	Global          bool  `json:"global,omitempty"`
	Executions      int64 `json:"executions"`
	Wavefronts      int64 `json:"wavefronts"`
	IdealWavefronts int64 `json:"idealWavefronts"`
	Sectors         int64 `json:"sectors"`
	Lines           int64 `json:"lines"`
	BytesRequested  int64 `json:"bytesRequested"`
}

// lineMemory renders the per-line table at the machine's position.
func (s *Session) lineMemory() []lineMemJSON {
	ms := s.mem
	out := []lineMemJSON{}
	if ms == nil {
		return out
	}
	for _, l := range s.prog.lines {
		var t analysis.PCStats
		for _, pc := range l.PCs {
			if pc < len(ms.sums) {
				t.Add(&ms.sums[pc])
			}
		}
		j := lineMemJSON{Line: l.Line, Shared: t.Shared, Global: t.Global, Executions: t.Executions,
			Wavefronts: t.Wavefronts, IdealWavefronts: t.IdealWavefronts, Sectors: t.Sectors, Lines: t.Lines, BytesRequested: t.BytesRequested}
		if j.Executions > 0 {
			out = append(out, j)
		}
	}
	return out
}

// lineMemChunk bounds the entries of the table one message carries (an
// entry takes at most about 300 bytes of JSON, so a chunk stays near
// 1 MiB): a larger update goes out in `line-memory` messages right after
// the state.
const lineMemChunk = 4096

// lineMemoryUpdate adds to a state what the client needs to hold the table
// at the machine's position: the whole table (lineMemory) when it holds
// none (the first state of a launch: after a load or reset), else the
// entries that differ from the table it holds (lineMemoryDelta; an entry
// with no executions removes its line), nothing when none does. It
// returns the rest of an update larger than lineMemChunk entries, to
// follow the state as line-memory messages.
func (s *Session) lineMemoryUpdate(msg *stateMsg) [][]lineMemJSON {
	ms := s.mem
	if ms == nil {
		return nil
	}
	t := s.lineMemory()
	whole := ms.sent == nil
	upd := t
	if !whole {
		upd = lineMemDiff(ms.sent, t)
		if len(upd) == 0 {
			return nil
		}
	}
	ms.sent = t
	first := upd[:min(len(upd), lineMemChunk)]
	if whole {
		msg.LineMemory = &first
	} else {
		msg.LineMemoryDelta = first
	}
	var rest [][]lineMemJSON
	for upd = upd[len(first):]; len(upd) > 0; {
		n := min(len(upd), lineMemChunk)
		rest = append(rest, upd[:n])
		upd = upd[n:]
	}
	return rest
}

// lineMemDiff returns the entries that turn table a into table b (both
// sorted by line): b's entries that a lacks or holds with other sums, and
// an entry with only the line for each line of a that b lacks.
func lineMemDiff(a, b []lineMemJSON) []lineMemJSON {
	var out []lineMemJSON
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case j == len(b) || (i < len(a) && a[i].Line < b[j].Line):
			out = append(out, lineMemJSON{Line: a[i].Line})
			i++
		case i == len(a) || b[j].Line < a[i].Line:
			out = append(out, b[j])
			j++
		default:
			if a[i] != b[j] {
				out = append(out, b[j])
			}
			i++
			j++
		}
	}
	return out
}
