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
	// Tensor reports a tensor-core instruction (ldmatrix, stmatrix, mma,
	// movmatrix) that ran past its convergence check; nil for every other
	// instruction. It is reused like the rest of the StepInfo.
	Tensor *TensorStep
}

// TensorStep describes the fragments of one tensor-core instruction.
// Matrix loads and stores (ldmatrix, stmatrix) fill Matrices: where each
// row of each matrix came from, which lane supplied its address, and the
// register the matrix occupies. Register-to-register forms (mma,
// movmatrix) fill Operands: the register slots each operand read or
// wrote. A form may fill both.
type TensorStep struct {
	// Key is the form's fragment layout (a key of isa.FragmentTable).
	Key      string
	Matrices []TensorMatrix
	Operands []TensorOperand
}

// TensorMatrix is one matrix of a matrix load or store: the register of
// the vector operand that holds it and its rows in memory, in row order.
// With a fault on an address the rows are still reported (the faulting
// row's Space says where its address fell).
type TensorMatrix struct {
	Index    int   // position in the vector operand
	Reg      int32 // its register slot
	Write    bool  // the register was written (ldmatrix), not read (stmatrix)
	RowBytes int   // bytes per row
	Rows     []MatrixRow
}

// MatrixRow is one row of a matrix in memory.
type MatrixRow struct {
	Lane   int       // the lane whose address operand gave the row's address
	Addr   uint64    // that address, as computed (generic or in Space)
	Space  isa.Space // the state space it resolves to
	Offset uint64    // the row's offset in Space (Addr for a non-generic access)
}

// TensorOperand is one register operand of the instruction.
type TensorOperand struct {
	Name  string  // the layout's operand name: "a", "b", "c", "d"
	Write bool    // written (D) rather than read
	Regs  []int32 // register slots in the layout's register order (shared with the program: do not modify)
}

func (m *Machine) beginStep(w *Warp, pc int, mask, emask uint32) {
	in := &m.info
	in.CTA, in.CTALin, in.Warp, in.PC, in.Mask, in.ExecMask = w.cta.Idx, w.cta.Linear, w.ID, pc, mask, emask
	in.Accesses = in.Accesses[:0]
	in.Events = in.Events[:0]
	in.Fault = nil
	in.Tensor = nil
}

// tensorStep starts the tensor report of the current instruction.
func (m *Machine) tensorStep(key string) *TensorStep {
	t := &m.tensor
	t.Key = key
	t.Matrices = t.Matrices[:0]
	t.Operands = t.Operands[:0]
	m.tensorRows = m.tensorRows[:0]
	m.info.Tensor = t
	return t
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
