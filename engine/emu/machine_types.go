package emu

import (
	"fmt"

	"github.com/ptxplayground/ptxplay/engine/isa"
)

// Address-space layout of the emulated GPU. State-space addresses of
// .shared, .local, .const and .param start at 0; their generic addresses
// live in fixed windows. Global addresses are generic addresses.
const (
	GenericShared uint64 = 0x0000_1000_0000_0000 // + shared address (the executing CTA's shared memory)
	GenericLocal  uint64 = 0x0000_2000_0000_0000 // + local address (the executing thread's local memory)
	GenericConst  uint64 = 0x0000_3000_0000_0000 // + constant-bank address
	GenericParam  uint64 = 0x0000_4000_0000_0000 // + kernel-parameter address
	WindowSize    uint64 = 0x0000_0001_0000_0000 // 4 GiB per window
	GlobalBase    uint64 = 0x0000_7f00_0000_0000 // the module's .global segment; buffers follow it
)

// FaultKind classifies faults.
type FaultKind string

const (
	FaultOutOfBounds   FaultKind = "out-of-bounds"
	FaultMisaligned    FaultKind = "misaligned"
	FaultReadOnly      FaultKind = "read-only"
	FaultDeadlock      FaultKind = "barrier-deadlock"
	FaultTrap          FaultKind = "trap"
	FaultStack         FaultKind = "call-stack-overflow"
	FaultIllegal       FaultKind = "illegal-instruction"
	FaultInvalidMember FaultKind = "invalid-membermask"
	// FaultDivergentAligned: under independent scheduling the threads of
	// a warp reached an .aligned warp collective on divergent paths that
	// can never meet at the same instruction.
	FaultDivergentAligned FaultKind = "divergent-aligned"
	// FaultBarrierMismatch: under independent scheduling the diverged
	// threads of one warp wait at barriers that disagree (barrier id,
	// thread count or operation), where the warp arrives once.
	FaultBarrierMismatch FaultKind = "barrier-mismatch"
	// FaultMemoryLimit: a call or cp.async would take the launch's
	// dynamic state (call frames with the state saved for recursion,
	// cp.async copies in flight) past Config.MaxDynamicBytes.
	FaultMemoryLimit FaultKind = "memory-limit"
	// FaultAssert: a thread called __assertfail (a failed assert).
	FaultAssert   FaultKind = "assertion-failed"
	FaultInternal FaultKind = "internal-error" // an emulator bug, caught instead of crashing
)

// Fault stops a launch: what happened, where, and to whom. Thread, Lane
// and Addr describe the first faulting lane (the lowest of Lanes); Lanes
// names every lane of the warp that faults, and Waiting every warp stuck
// in a barrier deadlock.
type Fault struct {
	Kind    FaultKind
	Message string
	PC      int    // -1 if not tied to an instruction
	CTA     [3]int // block index
	Thread  [3]int // thread index within the block (of Lane)
	Lane    int
	Warp    int    // warp index within its CTA
	Addr    uint64 // faulting address of Lane, if HasAddr
	HasAddr bool
	// Lanes is the mask of the faulting lanes of Warp: for a memory access,
	// every executing lane whose access faults (Lane and the lanes above it;
	// the lanes below it executed); for an instruction that fails as a
	// whole (trap, a barrier or call that cannot proceed, an unsupported
	// instruction), every lane executing it; for a barrier deadlock, the
	// warp's live lanes.
	Lanes uint32
	// Waiting lists, for a deadlock, every waiting warp of the CTA with its
	// live lanes: the threads that are stuck (those at barriers first, by
	// barrier; Barrier -1 for a warp waiting for something else, which
	// the message names). The first entry is the fault's warp. Nil for
	// other faults.
	Waiting []BarrierWarp
}

// BarrierWarp is a warp at a barrier: waiting at it (deadlock faults) or
// released by it (EvBarrierRelease events).
type BarrierWarp struct {
	CTA     [3]int
	Warp    int    // warp index within its CTA
	Barrier int    // barrier id (0-15; -1: a deadlocked warp waiting for something else)
	PC      int    // the barrier instruction the warp executed
	Lanes   uint32 // the warp's live lanes (a warp arrives with all of them)
}

func (f *Fault) Error() string { return string(f.Kind) + ": " + f.Message }

// WarpState is the scheduling state of a warp.
type WarpState uint8

const (
	WarpReady WarpState = iota
	// WarpWaiting: the warp waits for what its Wait records (wait.go).
	WarpWaiting
	WarpExited
	WarpFaulted
)

var warpStateNames = []string{"ready", "waiting", "exited", "faulted"}

// WarpStateNames lists the names of the warp states, as the protocol sends them.
func WarpStateNames() []string { return append([]string(nil), warpStateNames...) }

func (s WarpState) String() string {
	if int(s) < len(warpStateNames) {
		return warpStateNames[s]
	}
	return fmt.Sprintf("unknown-%d", s)
}

// StackEntry is one entry of a warp's reconvergence stack: the lanes in
// Mask execute from PC until they reach RPC (their reconvergence point),
// where the entry is popped. RPC -1 never reconverges by pc (function exit).
type StackEntry struct {
	PC   int32
	RPC  int32
	Mask uint32
	// Independent scheduling (sched.go): parent marks an entry whose
	// lanes diverged (its paths follow it and reconverge at its PC);
	// waiting are its lanes that already arrived there, since the warp's
	// issue count when the latest of them did. For a caller whose lanes
	// are in a call (call), waiting are the lanes that already returned.
	parent  bool
	waiting uint32
	since   int64
	// call marks the caller's entry of an active call: the callee's first
	// entry follows it, and the callee's entries are its subtree. frame (on the callee's first entry) is 1 + the index of the
	// call's frame in Warp.frames.
	call  bool
	frame int32
	// level is the entry's depth in the tree of the stack (independent
	// scheduling): a parent's children and a caller's callee are one
	// level deeper, and an entry's subtree is the entries that follow it
	// at deeper levels.
	level int32
}

// frame is an active call.
type frame struct {
	fn       *Function
	call     *CallInfo
	base     int      // index of the callee's first stack entry
	lanes    uint32   // lanes that made the call and have not gone on after it
	retMask  uint32   // lanes that executed ret
	saved    []uint64 // callee registers saved because it was already active (recursion)
	savedP   []uint32
	savedLoc []byte
}

// Warp is 32 lanes executing in lock step. Registers are register-major:
// row j of lane l is rows[j*32+l]; a value slot maps to its row through
// slot (see regFile), an immediate to a row of konst.
type Warp struct {
	m      *Machine
	cta    *CTA
	ID     int          // warp index within the CTA
	rows   []uint64     // the warp's value storage, 32 lanes per row
	slot   []int32      // module value slot → row (>= 0) or ^constant row (shared by the machine's warps)
	konst  [][32]uint64 // the program's constant rows (read-only)
	preds  []uint32     // one bit per lane
	stack  []StackEntry
	frames []frame
	valid  uint32 // lanes that exist (a partial last warp has fewer)
	carry  uint32 // per-lane carry flag (CC.CF) written by .cc instructions
	exited uint32
	// sfPhase: the CTA's filter phase of the warp's latest shared access
	// (sharedfilter.go).
	sfPhase uint32
	// The cluster barrier (cluster.go): lanes arrived in its current
	// phase, and lanes whose phase completed that have not waited yet.
	cbPending, cbDone uint32
	// fenced: lanes that executed a fence of cluster scope or wider since
	// their last cluster arrive (which then releases even when .relaxed).
	fenced uint32
	// smn: the warp's setmaxnreg instructions (setmaxnreg.go).
	smn   smnState
	State WarpState
	wait  Wait // what the warp waits for, when State == WarpWaiting (wait.go)
	// held: the waits of the warp's thread groups (wait.go, group
	// waits), disjoint lanes each, in the order they began.
	held []Wait
	// Independent scheduling: instructions the warp issued, the lowest
	// lane of the group issued last (round robin), and that group's pc,
	// lanes and why it was picked.
	issued   int64
	lastLane int8
	lastPC   int
	lastMask uint32
	pick     PickReason
	// The issue before that, as the scheduler saw it when it picked the
	// last issue's group, and the lane its round robin followed.
	prevPC   int
	prevMask uint32
	prevLane int8
	// Batched dispatch (batch.go): instructions executed ahead of the
	// warp's turns, and whether its next issue's group is already picked.
	ahead  int32
	picked bool
	// Independent scheduling (sched.go, onLine): the last pick found the
	// stack in a line (scheduleLine) with the paths from entry
	// lineFirst on; the next pick follows from it when the warp issued
	// one instruction since (issued == lineNext), from the path picked,
	// and the stack still has lineLen entries and that path lineMask,
	// before waiting lanes are due to go on (lineDue). Not part of the
	// warp's state: a copy starts without it.
	lineLen   int32
	lineFirst int32
	lineMask  uint32
	lineNext  int64
	lineDue   int64
}

// r returns the 32 lanes of value slot i. The rows of immediates are
// shared and read-only: only destinations may be written through r.
func (w *Warp) r(i int32) *[32]uint64 {
	j := w.slot[i]
	if j < 0 {
		return &w.konst[^j]
	}
	o := int(j) * 32
	return (*[32]uint64)(w.rows[o : o+32])
}

// tid returns the thread index (x, y, z) of a lane within the CTA.
func (w *Warp) tid(lane int) [3]int {
	t := w.ID*32 + lane
	b := w.m.cfg.Block
	return [3]int{t % b[0], t / b[0] % b[1], t / (b[0] * b[1])}
}

// linearTid returns the linear thread index of lane within the CTA.
func (w *Warp) linearTid(lane int) int { return w.ID*32 + lane }

// fault builds a fault at the warp's current pc for lane.
func (w *Warp) fault(kind FaultKind, lane int, format string, args ...any) *Fault {
	f := &Fault{Kind: kind, Message: fmt.Sprintf(format, args...), PC: w.pc(), CTA: w.cta.Idx, Lane: lane, Warp: w.ID}
	if lane >= 0 {
		f.Thread = w.tid(lane)
	}
	return f
}

// faultAddr builds a memory fault for lane at addr.
func (w *Warp) faultAddr(kind FaultKind, lane int, addr uint64, format string, args ...any) *Fault {
	f := w.fault(kind, lane, format, args...)
	f.Addr, f.HasAddr = addr, true
	return f
}

// pc returns the pc of the warp's current stack top, or -1.
func (w *Warp) pc() int {
	if len(w.stack) == 0 {
		return -1
	}
	return int(w.stack[len(w.stack)-1].PC)
}

// activeMask returns the active lanes at the top of the stack.
func (w *Warp) activeMask() uint32 {
	if len(w.stack) == 0 {
		return 0
	}
	return w.stack[len(w.stack)-1].Mask
}

// CTA is a resident thread block.
type CTA struct {
	Idx    [3]int
	Linear int
	// Its cluster, its rank there (%cluster_ctarank) and its index there
	// (%cluster_ctaid).
	cluster    *Cluster
	Rank       int
	ClusterIdx [3]int
	Warps      []*Warp
	shared     []byte
	local      []byte // LocalSize bytes per thread
	bars       [16]barrier
	done       bool
	// async is the CTA's asynchronous work in flight (async.go).
	async asyncUnit
	// mbars: the offsets of the live mbarriers in shared (mbarrier_list.go).
	mbars []uint64
	// quiet caches whether no warp can write shared memory before one of
	// the CTA's barriers completes (quiet.go); quietRetry is when to ask
	// again after quietNo.
	quiet      int8
	quietRetry int64
	// live caches liveThreads while liveOK: barriers without a thread
	// count ask on every arrival; only exit changes it (liveOK = false).
	live   int
	liveOK bool
	// The shared-memory phase filter's words, phase, whether a warp
	// exited after accessing shared memory in the phase, and whether
	// anything accessed shared memory since the last release
	// (sharedfilter.go).
	sfAcc    []uint32
	sfWr     []uint8
	sfPhase  uint32
	sfExited bool
	sfDirty  bool
}

// AccessKind classifies a memory access.
type AccessKind uint8

const (
	AccessLoad AccessKind = iota
	AccessStore
	AccessAtomic
)

// Access is one instruction's memory access across the warp, as reported to
// observers: for every lane in Lanes the offset it touched in Space, Size
// bytes from there, and for stores and atomics the bytes held there before
// (so an undo log can restore them). An instruction reports one Access per
// kind, space and size, more when a lane accesses memory several times
// (vector units of wmma, a copy's source and destination), in execution
// order.
type Access struct {
	Kind  AccessKind
	Space isa.Space // the resolved space: generic and .shared::cluster addresses are resolved (never SpaceNone or SharedCluster)
	// Generic: the instruction addressed memory generically; the address
	// it computed is GenericAddr(lane).
	Generic bool
	// CTA is the linear index of the CTA whose memory was accessed: the
	// executing CTA, or for a .shared::cluster address the peer CTA it
	// names. Shared offsets are in its shared memory, local offsets in
	// the lane's thread's local memory.
	CTA   int
	Size  int // bytes per lane, loads included
	Lanes uint32
	Addr  [32]uint64   // each lane's offset in Space (for global: the address); lanes in Lanes only
	Old   [32][32]byte // previous bytes (stores and atomics), Size bytes per lane (the first 32); lanes in Lanes, when an observer asked for them (ObserveOldBytes)
	// Async: the access was made by the asynchronous proxy on behalf of
	// the lanes in Lanes (an asynchronous copy's source reads and
	// destination writes: cp.async.bulk, TMA), not by the generic proxy
	// of ordinary loads and stores. An asynchronous copy reports its
	// accesses with Async set in the step at which its bytes move (the
	// race checker orders them by proxy fences and mbarrier completions,
	// not by the issuing thread's program order); everything else leaves
	// it false.
	Async bool
	// AsyncPC is, for an Async access, the copy instruction that issued
	// it (its bytes may move at a later instruction: an mbarrier wait, a
	// bulk wait_group or an exit), so a checker can name the copy.
	AsyncPC int
}

// GenericAddr returns the address lane l's instruction computed: the
// generic address of Addr[l] when the access was generic, Addr[l]
// otherwise.
func (a *Access) GenericAddr(l int) uint64 {
	if a.Generic {
		if base, ok := window(a.Space); ok {
			return base + a.Addr[l]
		}
	}
	return a.Addr[l]
}

// noteAccess records a lane's access of buf for the observer (space: the
// space the instruction named, sp: where addr resolved); it costs a nil
// check when nobody observes.
func (w *Warp) noteAccess(kind AccessKind, space, sp isa.Space, lane int, addr uint64, buf []byte) {
	if w.m.sf.on && sp != isa.Global {
		w.sfNote(kind, space, sp, lane, addr, len(buf))
	}
	if !w.m.obsAcc {
		return
	}
	w.m.recordAccess(w, kind, space, sp, lane, addr, buf)
}
