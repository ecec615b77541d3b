package emu

import "github.com/ptxplayground/ptxplay/engine/isa"

// Observer receives a report after every warp-instruction. The StepInfo is
// reused: copy what you keep. With no observer installed none of this work
// is done. Several observers may be installed at once (Machine.AddObserver);
// each sees the same StepInfo, in the order they were installed, and must
// not modify it.
//
// An observer that implements SelectiveObserver is called only for what it
// asks for, and the machine leaves out the work no installed observer
// wants; every other observer is called for every instruction with
// everything (ObserveAll).
type Observer interface {
	Step(info *StepInfo)
}

// ObserveFlags says which parts of the report an observer uses.
type ObserveFlags uint8

const (
	// ObserveAccesses: StepInfo.Accesses, except the Old bytes.
	ObserveAccesses ObserveFlags = 1 << iota
	// ObserveOldBytes: Access.Old, the bytes stores and atomics replaced
	// (with ObserveAccesses).
	ObserveOldBytes
	// ObserveEvents: StepInfo.Events.
	ObserveEvents
	// ObserveDetails: StepInfo.Tensor and StepInfo.Shuffle.
	ObserveDetails
	// ObserveEveryStep: a call for every warp-instruction. Without it the
	// observer is called only for instructions that report something it
	// asked for (an access, an event, a tensor or shuffle report) or that
	// faulted (StepInfo.Fault).
	ObserveEveryStep
	// ObserveMaskChanges: a call for every warp-instruction whose active
	// lanes differ from those of the warp's previous instruction (the
	// warp's first instruction included; StepInfo.MaskChanged). With it an
	// observer that counts each warp's instructions (StepInfo.WarpStep)
	// knows the active lanes of every instruction it was not called for:
	// those of the warp's last one it was called for.
	ObserveMaskChanges
	// ObserveGlobalOnly: with ObserveAccesses, the observer uses only the
	// accesses of global memory. When every observer that asks for
	// accesses says so, the plain 32- and 64-bit ld.shared and st.shared
	// run unobserved (other instructions may still report shared-memory
	// accesses: ignore them).
	ObserveGlobalOnly
	// ObserveUnordered: the observer collects accesses as a set. It does
	// not use the numbering of steps (StepInfo.Step, WarpStep) or the order
	// of instructions of different warps other than the order of their
	// accesses. (Run batches for every observer that does not ask for
	// ObserveEveryStep, whether or not it says this: see batch.go.)
	ObserveUnordered

	// ObserveAll is everything: what an Observer that does not implement
	// SelectiveObserver gets.
	ObserveAll = ObserveAccesses | ObserveOldBytes | ObserveEvents | ObserveDetails | ObserveEveryStep | ObserveMaskChanges
)

// SelectiveObserver is an Observer that declares what it uses. The parts
// of a StepInfo that no installed observer asked for are left empty (or,
// for Access.Old, unspecified), and instructions that report nothing an
// observer asked for are not reported to it. Observes is called when the
// observer is installed.
type SelectiveObserver interface {
	Observer
	Observes() ObserveFlags
}

// observesOf returns what o asks for.
func observesOf(o Observer) ObserveFlags {
	if s, ok := o.(SelectiveObserver); ok {
		return s.Observes()
	}
	return ObserveAll
}

// observerSet is the machine's installed observers: the SetObserver slot
// and those added with AddObserver.
type observerSet struct {
	primary Observer
	added   []addedObserver
	nextID  int
}

type addedObserver struct {
	id int
	o  Observer
}

// flagged is an installed observer with what it asked for (globalOnly:
// ObserveGlobalOnly, which flags leaves out).
type flagged struct {
	o          Observer
	flags      ObserveFlags
	globalOnly bool
}

// GlobalWatcher is implemented by an observer of memory accesses that
// needs those of some global allocations only (the race checker: the
// allocations that hold bytes the launch left uninitialised). A plain
// global load or store whose lanes all access allocations that no
// installed observer watches is then not reported; every other access
// is, as without it.
type GlobalWatcher interface {
	// WatchGlobal reports whether the observer needs the accesses to the
	// allocation of size bytes (its capacity) at base.
	WatchGlobal(base, size uint64) bool
}

// setQuiet marks the global allocations no observer of accesses watches
// (Alloc.quiet) and notes in obsQuiet whether there is one.
func (m *Machine) setQuiet() {
	m.obsQuiet = false
	for _, a := range m.Global.allocs {
		a.quiet = m.obsAcc && m.observers.quiet(a)
		m.obsQuiet = m.obsQuiet || a.quiet
	}
}

// quiet reports whether no installed observer of accesses watches a.
func (s *observerSet) quiet(a *Alloc) bool {
	ok := true
	check := func(o Observer) {
		if observesOf(o)&(ObserveAccesses|ObserveOldBytes) == 0 {
			return
		}
		if gw, is := o.(GlobalWatcher); !is || gw.WatchGlobal(a.Base, uint64(cap(a.Data))) {
			ok = false
		}
	}
	if s.primary != nil {
		check(s.primary)
	}
	for _, x := range s.added {
		check(x.o)
	}
	return ok
}

// wants reports whether an observer that asked for flags is called for in.
func wants(flags ObserveFlags, in *StepInfo) bool {
	return flags&ObserveEveryStep != 0 || in.Fault != nil ||
		flags&ObserveMaskChanges != 0 && in.MaskChanged ||
		flags&ObserveAccesses != 0 && (len(in.Accesses) > 0 || len(in.Issued) > 0 || len(in.BulkIssued) > 0) ||
		flags&ObserveEvents != 0 && len(in.Events) > 0 ||
		flags&ObserveDetails != 0 && (in.Tensor != nil || in.Shuffle != nil)
}

// multiObserver calls several observers in turn, each when the step has
// something it asked for.
type multiObserver []flagged

func (mo multiObserver) Step(in *StepInfo) {
	for _, f := range mo {
		if wants(f.flags, in) && (!f.globalOnly || wantsGlobal(f.flags, in)) {
			f.o.Step(in)
		}
	}
}

// wantsGlobal reports whether an observer that asked for flags with
// ObserveGlobalOnly is called for in, whose accesses may be of other
// spaces (another observer asked for them): not when all it would get is
// accesses of other spaces.
func wantsGlobal(flags ObserveFlags, in *StepInfo) bool {
	if flags&^ObserveAccesses != 0 || in.Fault != nil || len(in.Issued) > 0 || len(in.BulkIssued) > 0 {
		return true
	}
	for i := range in.Accesses {
		if in.Accesses[i].Space == isa.Global {
			return true
		}
	}
	return false
}

// combined returns the observer the machine calls and the union of what
// the observers ask for: nil when none is installed (the machine then does
// no reporting work at all), the observer itself when there is one (the
// machine opens a step's report only for what it asked for, so it needs
// no filtering).
func (s *observerSet) combined() (Observer, ObserveFlags) {
	var all multiObserver
	var union ObserveFlags
	// ObserveGlobalOnly holds for the union when it holds for every
	// observer that asks for accesses.
	globalOnly, unordered := true, true
	add := func(o Observer) {
		f := observesOf(o)
		if f&ObserveOldBytes != 0 {
			f |= ObserveAccesses
		}
		if f&ObserveAccesses != 0 && f&ObserveGlobalOnly == 0 {
			globalOnly = false
		}
		if f&ObserveUnordered == 0 {
			unordered = false
		}
		all = append(all, flagged{o, f &^ (ObserveGlobalOnly | ObserveUnordered), f&ObserveAccesses != 0 && f&ObserveGlobalOnly != 0})
		union |= f
	}
	if s.primary != nil {
		add(s.primary)
	}
	for _, a := range s.added {
		add(a.o)
	}
	if !globalOnly {
		union &^= ObserveGlobalOnly
	}
	if !unordered || union&^(ObserveAccesses|ObserveOldBytes|ObserveGlobalOnly|ObserveUnordered) != 0 {
		union &^= ObserveUnordered
	}
	switch len(all) {
	case 0:
		return nil, 0
	case 1:
		return all[0].o, union
	}
	return all, union
}

// setObservers installs the combined observer and what it asks for.
func (m *Machine) setObservers() {
	var f ObserveFlags
	m.obs, f = m.observers.combined()
	m.plainSink = m.sink != nil && m.sf.on && m.observers.onlySharedObserver(m.sink.(Observer))
	m.obsAcc = f&ObserveAccesses != 0
	m.obsShared = m.obsAcc && f&ObserveGlobalOnly == 0
	m.obsOld = f&ObserveOldBytes != 0
	m.obsEvents = f&ObserveEvents != 0
	m.obsDetails = f&ObserveDetails != 0
	m.obsEvery = f&ObserveEveryStep != 0
	m.obsMasks = f&ObserveMaskChanges != 0
	m.obsUnordered = f&ObserveUnordered != 0
	m.obsTurns = f&(ObserveEvents|ObserveMaskChanges) != 0
	m.setQuiet()
}

// installed reports whether o is installed.
func (s *observerSet) installed(o Observer) bool {
	if s.primary == o {
		return true
	}
	for _, a := range s.added {
		if a.o == o {
			return true
		}
	}
	return false
}

// onlySharedObserver reports whether o is installed and no other installed
// observer asks for shared-memory accesses.
func (s *observerSet) onlySharedObserver(o Observer) bool {
	if !s.installed(o) {
		return false
	}
	other := func(x Observer) bool {
		f := observesOf(x)
		if f&ObserveOldBytes != 0 {
			f |= ObserveAccesses
		}
		return x != o && f&ObserveAccesses != 0 && f&ObserveGlobalOnly == 0
	}
	if s.primary != nil && other(s.primary) {
		return false
	}
	for _, a := range s.added {
		if other(a.o) {
			return false
		}
	}
	return true
}

// SetObserver installs o in the machine's primary observer slot (nil
// empties it), replacing the observer set there before; observers added
// with AddObserver stay installed. Observers are called after every
// warp-instruction (a SelectiveObserver after those it asked for).
func (m *Machine) SetObserver(o Observer) {
	m.observers.primary = o
	m.setObservers()
}

// AddObserver installs o beside the other observers (nil is ignored) and
// returns a function that removes it again (calling it twice is harmless).
func (m *Machine) AddObserver(o Observer) (remove func()) {
	if o == nil {
		return func() {}
	}
	s := &m.observers
	s.nextID++
	id := s.nextID
	s.added = append(s.added, addedObserver{id: id, o: o})
	m.setObservers()
	return func() {
		for i, a := range s.added {
			if a.id == id {
				s.added = append(s.added[:i:i], s.added[i+1:]...)
				m.setObservers()
				return
			}
		}
	}
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
	// EvClusterArrive: the lanes in Mask arrived at the cluster barrier
	// (barrier.cluster.arrive) in its phase ID; Count threads of the
	// cluster have arrived of Expected (its live threads). Relaxed: the
	// arrive was .relaxed (it has no release semantics).
	EvClusterArrive
	// EvClusterWait: the lanes in Mask executed barrier.cluster.wait and
	// went on at once: the phase they arrived in had completed. (Lanes
	// whose phase had not completed wait; EvClusterRelease lets them go.)
	EvClusterWait
	// EvClusterRelease: phase ID of the cluster barrier completed with
	// Count threads arrived of Expected, and released the warps in Warps
	// (each with the lanes that waited; BarrierWarp.Barrier is -1), which
	// may belong to any CTA of the cluster. Mask: this warp's released
	// lanes (0 when it did not wait: it completed the phase by arriving
	// or exiting).
	EvClusterRelease
	// The mbarrier events name the object by CTA (the linear index of the
	// CTA whose shared memory holds it) and Addr (its offset there); Mask
	// holds the lanes that did it. Lanes of one instruction on the same
	// object share one event; events are in execution order.
	//
	// EvMbarrierInit: the lanes initialised the mbarrier. Warps: the warps
	// that were waiting on it (try_wait) at that moment, each with its
	// waiting lanes and the try_wait's PC (Barrier -1); nil when none.
	EvMbarrierInit
	// EvMbarrierInval: the lanes invalidated the mbarrier.
	EvMbarrierInval
	// EvMbarrierArrive: an arrive-on operation (arrive, arrive_drop,
	// cp.async.mbarrier.arrive) on the mbarrier's current phase. Relaxed:
	// the arrive was .relaxed (no release semantics).
	EvMbarrierArrive
	// EvMbarrierCompleteTx: transaction bytes completed on the mbarrier:
	// by mbarrier.complete_tx (Async false; Relaxed for .relaxed), or by
	// an asynchronous copy of the instruction at PC (Async true), which
	// performs the release on behalf of the asynchronous proxy.
	EvMbarrierCompleteTx
	// EvMbarrierComplete: the mbarrier's current phase completed (after
	// the arrive or complete_tx event that completed it). ID: the parity
	// of the completed phase. Warps: the warps its completion woke (each
	// with the lanes that waited in try_wait and its PC; Barrier -1), nil
	// when none.
	EvMbarrierComplete
	// EvMbarrierWait: test_wait or try_wait found the phase the lanes in
	// Mask test completed and returned true (lanes that wait are reported
	// by EvMbarrierComplete when they wake). Relaxed: the wait was
	// .relaxed (no acquire semantics).
	EvMbarrierWait
	// EvProxyFence: the lanes in Mask executed a fence.proxy.async form
	// (any state space; membar.proxy.async and the
	// fence.proxy.async::generic forms included): it orders their earlier
	// generic-proxy accesses with later asynchronous-proxy ones.
	EvProxyFence
)

var eventNames = []string{"diverge", "reconverge", "barrier-arrive", "barrier-release", "exit", "call", "return", "cluster-arrive", "cluster-wait", "cluster-release",
	"mbarrier-init", "mbarrier-inval", "mbarrier-arrive", "mbarrier-complete-tx", "mbarrier-complete", "mbarrier-wait", "proxy-fence"}

func (k EventKind) String() string { return eventNames[k] }

// Releases reports whether the event is a barrier's completion releasing
// its waiting warps (a CTA barrier's or the cluster barrier's): what a
// step to the next barrier stops after.
func (k EventKind) Releases() bool { return k == EvBarrierRelease || k == EvClusterRelease }

// Releases reports whether the event let waiting warps go: a CTA
// barrier's or the cluster barrier's release, or an mbarrier phase's
// completion that woke warps waiting on it (what a step to the next
// barrier stops after: the machine's StepToBarrier).
func (e *Event) Releases() bool {
	return e.Kind.Releases() || e.Kind == EvMbarrierComplete && len(e.Warps) > 0
}

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
	// Relaxed: a .relaxed cluster barrier arrive (EvClusterArrive), or a
	// .relaxed mbarrier arrive, complete_tx or wait.
	Relaxed bool
	// Async: an mbarrier's transaction bytes completed by an asynchronous
	// copy (EvMbarrierCompleteTx).
	Async bool
	// CTA and Addr name an mbarrier (the EvMbarrier* events): the linear
	// index of the CTA whose shared memory holds it and its offset there.
	CTA  int
	Addr uint64
	// Warps lists the warps a barrier released (EvBarrierRelease,
	// EvClusterRelease); each event has its own slice, which may be kept.
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
	// Step is the instruction's number in the launch (the machine's
	// WarpInstructions after it, from 1), WarpStep its number among the
	// warp's instructions (from 1). MaskChanged: Mask differs from the
	// active lanes of the warp's previous instruction (always true for the
	// warp's first).
	Step        int64
	WarpStep    int64
	MaskChanged bool
	Accesses    []Access
	Events      []Event
	Fault       *Fault
	// Tensor reports a tensor-core instruction (ldmatrix, stmatrix, mma,
	// movmatrix) that ran past its convergence check; nil for every other
	// instruction. It is reused like the rest of the StepInfo.
	Tensor *TensorStep
	// Shuffle reports a shfl that ran past its member-mask check: the lane
	// each lane read from. nil for every other instruction; reused.
	Shuffle *ShuffleStep
	// Issued lists the cp.async copies the instruction issued, in issue
	// order (their destinations are written later, when they land: see
	// async.go); reported with the accesses (ObserveAccesses) and reused
	// like them.
	Issued []AsyncCopy
	// BulkIssued lists the bulk and tensor (TMA) copies into shared
	// memory the instruction issued that did not land at once (they land
	// when a thread tests their mbarrier: see exec_tma_bulk.go), in issue
	// order; reported with the accesses (ObserveAccesses) and reused like
	// them.
	BulkIssued []BulkCopy
}

// BulkCopy is a bulk or tensor copy into shared memory in flight: the
// instruction at PC issued it from Lane; it will write bytes Dst ..
// Dst+Size of the shared memory of the CTA of linear index CTA (the bytes
// spanned by its pieces) and complete on the mbarrier at offset Mbar
// there.
type BulkCopy struct {
	PC, Lane int
	CTA      int
	Dst      uint64
	Size     uint64
	Mbar     uint64
}

// ShuffleStep describes one shfl: for every lane in Lanes (the lanes that
// executed it), Src[l] is the lane whose value lane l received. A lane
// whose computed source was out of its segment keeps its own value: its
// Src is itself and its bit in Valid (shfl's predicate result) is clear.
type ShuffleStep struct {
	Lanes uint32
	Valid uint32
	Src   [32]int8
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

// A step's report is opened by beginStep: at the instruction's issue when
// an observer wants every step, otherwise on the first thing reported
// (openStep), so that an instruction that reports nothing anybody asked
// for costs a flag.

func (m *Machine) beginStep(w *Warp, pc int, mask, emask uint32) {
	in := &m.info
	in.CTA, in.CTALin, in.Warp, in.PC, in.Mask, in.ExecMask = w.cta.Idx, w.cta.Linear, w.ID, pc, mask, emask
	in.MaskChanged = m.curChanged
	in.Accesses = in.Accesses[:0]
	in.Events = in.Events[:0]
	in.Fault = nil
	in.Tensor = nil
	in.Shuffle = nil
	in.Issued = in.Issued[:0]
	in.BulkIssued = in.BulkIssued[:0]
	m.stepOpen = true
}

// openStep opens the current instruction's report if it is not open yet.
func (m *Machine) openStep() {
	if !m.stepOpen {
		m.beginStep(m.cur, m.curPC, m.curMask, m.curEmask)
	}
}

// tensorStep starts the tensor report of the current instruction.
func (m *Machine) tensorStep(key string) *TensorStep {
	m.openStep()
	t := &m.tensor
	t.Key = key
	t.Matrices = t.Matrices[:0]
	t.Operands = t.Operands[:0]
	m.tensorRows = m.tensorRows[:0]
	m.info.Tensor = t
	return t
}

// shuffleStep returns the shuffle report of the current instruction.
func (m *Machine) shuffleStep() *ShuffleStep {
	m.openStep()
	m.info.Shuffle = &m.shuffle
	return &m.shuffle
}

// reporting are the effects of an instruction that may report something
// to an observer of global accesses alone (silentOps).
const reporting = EffMem | EffAtomic | EffAccess | EffAsync | EffCall | EffReturn | EffExit | EffIndirect |
	EffTrap | EffBreak | EffFault | EffDynamic | EffCluster | EffClusterBarrier

// silentOps returns Program.silent.
func silentOps(ops []Op) []bool {
	s := make([]bool, len(ops))
	for pc := range ops {
		op := &ops[pc]
		s[pc] = op.Exec != nil && (op.PlainShared || !op.Eff.Any(reporting))
	}
	return s
}

// observeIssue notes the instruction being issued (exec calls it when an
// observer is installed) and opens its report when an observer wants this
// one whatever it reports: every step, or a change of the active lanes.
func (m *Machine) observeIssue(w *Warp, pc int, mask, emask uint32) {
	m.curMask, m.curEmask = mask, emask
	m.curLin, m.curWarp = w.cta.Linear, w.ID
	m.curChanged = mask != w.lastMask || w.issued == 0
	m.lastIssued = m.stats.WarpInstructions + 1
	m.stepOpen = false
	if m.obsEvery || m.obsMasks && m.curChanged {
		m.beginStep(w, pc, mask, emask)
	}
}

// LastIssued describes the last warp-instruction the machine executed
// while an observer was installed: the identifying fields of its StepInfo
// (CTA, CTALin, Warp, PC, Mask, ExecMask, Step; none of the reports). ok
// is false when none was executed since the machine was made or
// restored. Observers that are not called for every instruction learn the
// last one from it (the machine's StepInfo holds the last one reported).
func (m *Machine) LastIssued() (in StepInfo, ok bool) {
	if m.lastIssued == 0 || m.lastIssued != m.stats.WarpInstructions {
		return StepInfo{}, false
	}
	in = StepInfo{CTA: m.ctaIndex(m.curLin), CTALin: m.curLin, Warp: m.curWarp, PC: m.curPC,
		Mask: m.curMask, ExecMask: m.curEmask, NextPC: -1, Step: m.lastIssued}
	return in, true
}

func (m *Machine) endStep(w *Warp) {
	m.stepOpen = false
	// The instruction's number in the one-at-a-time run: in a batched Run
	// the instructions other warps executed ahead of their turns are not
	// its predecessors yet (m.ahead is 0 otherwise). w itself is at its
	// turn, so w.issued is exact.
	step := m.stats.WarpInstructions - m.ahead
	m.info.Step, m.info.WarpStep = step, w.issued
	m.info.NextPC = -1
	if w.State == WarpReady && len(w.stack) > 0 {
		m.info.NextPC = w.pc()
	}
	if step <= m.obsMuteTo {
		// Reported before the batched Run that replays it restored its
		// start (runBatched).
		return
	}
	m.obsMuteTo = 0
	m.obsLast = step
	m.obs.Step(&m.info)
}

// event reports e when an observer asked for events.
func (m *Machine) event(e Event) {
	if m.obsEvents {
		m.openStep()
		m.info.Events = append(m.info.Events, e)
	}
}

// newAccess appends an Access to the current report and returns it. Its
// Addr and Old entries are not cleared: only the lanes in Lanes are
// defined.
func (m *Machine) newAccess(w *Warp, kind AccessKind, sp isa.Space, size int, generic bool) *Access {
	in := &m.info
	n := len(in.Accesses)
	if n < cap(in.Accesses) {
		in.Accesses = in.Accesses[:n+1]
	} else {
		in.Accesses = append(in.Accesses, Access{})
	}
	a := &in.Accesses[n]
	a.Kind, a.Space, a.Size, a.Generic, a.CTA, a.Lanes = kind, sp, size, generic, w.cta.Linear, 0
	a.Async, a.AsyncPC = m.asyncAccess, 0
	if m.asyncAccess {
		a.AsyncPC = m.asyncPC
	}
	return a
}

// warpAccess returns the Access that every lane in lanes joins when each
// of them accesses size bytes of sp in turn (what recordAccess would do
// lane by lane), or nil when they would not all join the same one (a lane
// is already in the latest matching Access). sp is resolved (never
// SharedCluster); generic: the instruction addressed memory generically.
// The caller sets Addr, (when m.obsOld) Old and then Lanes, or gives the
// Access back with dropAccess.
func (m *Machine) warpAccess(w *Warp, kind AccessKind, sp isa.Space, size int, generic bool, lanes uint32) *Access {
	m.openStep()
	in := &m.info
	for i := len(in.Accesses) - 1; i >= 0; i-- {
		x := &in.Accesses[i]
		if x.Kind == kind && x.Space == sp && x.Size == size && x.Generic == generic && x.CTA == w.cta.Linear && x.Async == m.asyncAccess && (!x.Async || x.AsyncPC == m.asyncPC) {
			if x.Lanes&lanes == 0 {
				return x
			}
			if x.Lanes&(lanes&-lanes) == 0 {
				// The lanes below the first one already in x would join
				// x, the others a new Access.
				return nil
			}
			break
		}
	}
	return m.newAccess(w, kind, sp, size, generic)
}

// asyncAccesses makes the accesses noted until the returned function is
// called asynchronous-proxy accesses (Access.Async): an asynchronous
// copy (cp.async.bulk, TMA) notes its source reads and destination writes
// (noteAccess, recordAccess, warpAccess) between the two calls:
//
//	done := w.m.asyncAccesses(pc)
//	... w.noteAccess(...) for each lane's bytes ...
//	done()
//
// pc is the copy instruction (Access.AsyncPC).
func (m *Machine) asyncAccesses(pc int) (done func()) {
	m.asyncAccess, m.asyncPC = true, pc
	return func() { m.asyncAccess = false }
}

// dropAccess takes back an Access that warpAccess returned when the caller
// recorded no lane in it after all.
func (m *Machine) dropAccess(a *Access) {
	in := &m.info
	if n := len(in.Accesses); a.Lanes == 0 && n > 0 && a == &in.Accesses[n-1] {
		in.Accesses = in.Accesses[:n-1]
	}
}

// recordAccess adds lane's access to the current instruction's report.
// space is the space the instruction named (isa.SpaceNone: generic), sp the
// space the address resolved to and buf the bytes accessed (before a store
// or atomic changes them). The lane joins the latest Access of the same
// kind, space and size unless it is already in it; so lanes that access
// memory in turn (one copy's load and store after another's) are grouped,
// and every lane's accesses stay in execution order.
func (m *Machine) recordAccess(w *Warp, kind AccessKind, space, sp isa.Space, lane int, addr uint64, buf []byte) {
	if sp != isa.Global && !m.obsShared {
		// Every observer asked for global accesses only.
		return
	}
	m.openStep()
	in := &m.info
	size := len(buf)
	generic := space == isa.SpaceNone
	if generic {
		if base, ok := window(sp); ok {
			addr -= base
		}
	}
	cta := w.cta.Linear
	if sp == isa.SharedCluster {
		// A .shared::cluster address: the CTA it names and the offset
		// there (spaceBytes checked the rank).
		sp = isa.Shared
		rank, off := splitClusterAddr(w.cta.Rank, addr)
		if cl := w.cta.cluster; cl != nil && rank < uint64(len(cl.CTAs)) {
			cta, addr = cl.CTAs[rank].Linear, off
		}
	}
	var a *Access
	for i := len(in.Accesses) - 1; i >= 0; i-- {
		x := &in.Accesses[i]
		if x.Kind == kind && x.Space == sp && x.Size == size && x.Generic == generic && x.CTA == cta && x.Async == m.asyncAccess && (!x.Async || x.AsyncPC == m.asyncPC) {
			if x.Lanes&(1<<lane) == 0 {
				a = x
			}
			break
		}
	}
	if a == nil {
		a = m.newAccess(w, kind, sp, size, generic)
		a.CTA = cta
	}
	a.Lanes |= 1 << lane
	a.Addr[lane] = addr
	if kind != AccessLoad && m.obsOld {
		copy(a.Old[lane][:], buf)
	}
}
