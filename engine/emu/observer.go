package emu

import "github.com/ptxplayground/ptxplay/engine/isa"

// Observer receives a report after every warp-instruction. The StepInfo is
// reused: copy what you keep. With no observer installed none of this work
// is done.
type Observer interface {
	Step(info *StepInfo)
}

// EventKind classifies per-step events.
type EventKind uint8

// Every event's Mask holds lanes of the warp that executed the step.
const (
	// EvDiverge: the branch at PC split the warp. Mask: the lanes that
	// take it (they run first); Other: the lanes that do not; Reconv: the
	// pc where they rejoin (-1: they only meet at exit).
	EvDiverge EventKind = iota
	// EvReconverge: the paths of a divergent region have all arrived at
	// its reconvergence point PC and the warp continues there with the
	// merged lanes in Mask. A path that arrives while another is still
	// pending does not report it.
	EvReconverge
	// EvBarrierArrive: the warp arrived at barrier ID with the lanes in
	// Mask (its live lanes: a warp arrives with all of them); Count threads
	// have arrived of Expected.
	EvBarrierArrive
	// EvBarrierRelease: barrier ID completed with Count threads of
	// Expected and released the warps in Warps (each with its lanes). Mask:
	// this warp's released lanes, 0 when it did not wait (it completed the
	// barrier with bar.arrive, or by exiting).
	EvBarrierRelease
	// EvExit: the lanes in Mask exited.
	EvExit
	// EvCall: the lanes in Mask called the function whose first pc is Target.
	EvCall
	// EvReturn: the lanes in Mask returned from a call, once every lane of
	// the call returned or exited (not reported when none returned).
	EvReturn
)

var eventNames = []string{"diverge", "reconverge", "barrier-arrive", "barrier-release", "exit", "call", "return"}

func (k EventKind) String() string { return eventNames[k] }

// Event is something that happened during a step. PC is the instruction
// that caused it (for EvReconverge: where the lanes rejoined).
type Event struct {
	Kind     EventKind
	PC       int
	Reconv   int
	Target   int
	Mask     uint32
	Other    uint32
	ID       int
	Count    int
	Expected int
	// Warps lists the warps a barrier released (EvBarrierRelease); each
	// event has its own slice, which may be kept.
	Warps []BarrierWarp
}

// StepInfo describes one executed warp-instruction.
type StepInfo struct {
	CTA      [3]int
	CTALin   int
	Warp     int
	PC       int    // the instruction executed
	Mask     uint32 // active lanes
	ExecMask uint32 // active lanes whose guard held
	NextPC   int    // the warp's pc afterwards (-1 if it exited or waits)
	Accesses []Access
	Events   []Event
	Fault    *Fault
}

func (m *Machine) beginStep(w *Warp, pc int, mask, emask uint32) {
	in := &m.info
	in.CTA, in.CTALin, in.Warp, in.PC, in.Mask, in.ExecMask = w.cta.Idx, w.cta.Linear, w.ID, pc, mask, emask
	in.Accesses = in.Accesses[:0]
	in.Events = in.Events[:0]
	in.Fault = nil
}

func (m *Machine) endStep(w *Warp) {
	m.info.NextPC = -1
	if w.State == WarpReady && len(w.stack) > 0 {
		m.info.NextPC = w.pc()
	}
	m.obs.Step(&m.info)
}

func (m *Machine) event(e Event) {
	if m.obs != nil {
		m.info.Events = append(m.info.Events, e)
	}
}

// recordAccess adds lane's access to the current instruction's report. A
// new Access starts when the kind, space or size changes.
func (m *Machine) recordAccess(kind AccessKind, space isa.Space, lane int, addr uint64, buf []byte) {
	in := &m.info
	size := len(buf)
	if kind == AccessLoad {
		size = 0
	}
	var a *Access
	if n := len(in.Accesses); n > 0 {
		a = &in.Accesses[n-1]
		if a.Kind != kind || a.Space != space || a.Lanes&(1<<lane) != 0 {
			a = nil
		}
	}
	if a == nil {
		in.Accesses = append(in.Accesses, Access{Kind: kind, Space: space})
		a = &in.Accesses[len(in.Accesses)-1]
	}
	a.Lanes |= 1 << lane
	a.Addr[lane] = addr
	if size > 0 {
		a.Size = size
		copy(a.Old[lane][:], buf)
	}
}
