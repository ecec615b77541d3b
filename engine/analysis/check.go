package analysis

import (
	"math/bits"
	"sort"

	"github.com/ptxplayground/ptxplay/engine/emu"
	"github.com/ptxplayground/ptxplay/engine/isa"
)

// The race and memory checker (like compute-sanitizer's racecheck and
// initcheck).
//
// Checker is an emu.Observer. It keeps, per resident CTA, a shadow of the
// CTA's shared memory (per byte: the last write and the reads since it,
// whether the byte was ever written, and the cp.async copy still in flight
// to it) and, for global memory, a bitmap of the bytes written in the
// allocations the launch left uninitialised. From the exact per-lane
// accesses the emulator reports it finds:
//
//   - Shared-memory hazards. Two accesses of the same shared byte by
//     different threads, at least one of them a write, race when neither
//     happens before the other. The kinds are named after the order in
//     which they executed: read-after-write (a write, then another
//     thread's read), write-after-read, write-after-write. Atomics are
//     writes (and reads), but two atomics never race with each other.
//   - Reads of cp.async destination bytes before the copy landed: between
//     the cp.async and the cp.async.wait_group/wait_all (or exit) that
//     lands it (see engine/emu/async.go), the bytes hold stale data.
//   - Reads of shared memory never written in this CTA (shared memory is
//     not initialised), and loads of global bytes the launch did not
//     initialise (Region; see launch.Launch.UninitialisedRegions for the
//     rule).
//
// # Happens-before
//
// Between warps, only barriers order accesses (bar.sync, bar.red,
// bar.arrive, barrier.cta.*; every form with or without a thread count).
// Every warp has a vector clock with one component per warp of its CTA;
// its own component is its barrier epoch, stamped on each access it
// makes. When a warp arrives at barrier b (bar.sync, bar.red or
// bar.arrive), its clock is joined into b's pending clock and its epoch
// advances, so its later accesses are not ordered by this barrier. When
// b completes (EvBarrierRelease) every warp that waited at it (the
// released warps: bar.arrive does not wait) joins b's pending clock into
// its own: everything each arriving warp did before arriving happens
// before everything the released warps do afterwards. Named barriers with
// a thread count synchronise only the warps that took part. A thread that
// exits publishes nothing: exiting is not a barrier, so its accesses stay
// unordered with the later accesses of the threads that did not wait for
// it, as on hardware.
//
// # Clusters
//
// The shadow of a CTA's shared memory is its cluster's: accesses to it by
// threads of any CTA of the cluster (distributed shared memory: an
// emu.Access with another CTA's index) are checked against each other.
// The clocks span the cluster (clusterState): a warp is named by its
// cluster warp, rank*nwarps + its index in its CTA, in records and
// clocks, and a CTA barrier's clock, joined only by warps of its CTA,
// orders only them. The cluster barrier orders the cluster's threads: a
// release arrive (EvClusterArrive, not .relaxed) joins the warp's clock
// into the phase's pending clock and starts a new epoch; the phase's
// completion (EvClusterRelease) makes that clock the one its waits
// acquire: the warps it releases join it, and so does a warp whose wait
// goes on at once (EvClusterWait; the phase it arrived in is the last
// completed one). A .relaxed arrive publishes nothing; fences are not
// followed. ctaState.gen's rule holds cluster-wide (clusterState.gen).
//
// # mbarriers and the asynchronous proxy
//
// mbarrier arrivals release and the waits that observe a completed phase
// acquire; the asynchronous proxy (emu.Access.Async) is one more clock
// component of the cluster, released by the transaction bytes a copy
// completes; fence.proxy.async is followed per lane. See mbarrier.go.
//
// Within a warp, the emulator runs the lanes in lockstep under a SIMT
// stack: lanes that execute a warp-instruction together have all finished
// the instructions before it. The checker uses exactly that: an access by
// lane a at the warp's k-th instruction happens before an access by lane
// b at a later instruction when a and b executed some instruction
// together at or after the k-th (they were converged since; bar.warp.sync
// is one such instruction). Lanes on different paths of a divergent
// branch are not ordered until they reconverge, which catches races
// between the two sides of a branch. So warp-synchronous code that runs
// converged (a reduction's tail within one warp, like the barrier-free
// last rounds of CUDA's classic reduction) is not flagged, for the
// principled reason that the converged warp orders it, while the same
// accesses on divergent paths are. Accesses of different lanes within one
// warp-instruction are simultaneous and never flagged: a store by several
// lanes to the same bytes is the instruction's defined behaviour (one
// write wins), not a race between instructions.
//
// # Bounds
//
// Warnings are deduplicated by (kind, instruction, earlier instruction):
// each keeps the first occurrence's details (threads, offset, the
// warp-instruction at which it happened) and counts its occurrences (one
// per lane access). At most MaxWarnings distinct warnings are kept; later
// ones are counted in Dropped. The shared shadow grows with the highest
// offset accessed: about 21 bytes per byte of the CTA's shared memory
// while its words are uniform (see Fast paths), 80 more per byte of a word
// accessed in part, 8 more once a cp.async ran (at most MaxSharedShadow
// bytes of shared memory are tracked), plus the sets of concurrent reads (one record per reading
// warp-instruction not yet ordered, so bounded by the CTA's threads); it
// is reused for a later CTA when the CTA's threads have all exited (at
// most 8 are kept). Reads concurrent
// with each other are kept as a set per byte, pruned of the reads ordered
// before a newer one (FastTrack's rule: a later write that races with a
// pruned read also races with the newer read, so the byte's first race is
// always found, though the earlier read's line may not be named). The
// global bitmap is one bit per byte of the uninitialised allocations,
// allocated on first use, so it is bounded by the launch's buffer budget.
//
// # Fast paths
//
// The checker is byte-exact, but it does not have to touch every byte of
// every lane access to be. Each of the shortcuts below reaches exactly the
// state and the warnings of the byte-by-byte algorithm (a test runs both
// side by side on every gallery example and on random kernels and compares
// the warnings, and on the random kernels the shadows after every access):
//
//   - A 4-byte word whose bytes have the same state is kept as one unit
//     (the uniform bit; one shadow record per word): an access that covers
//     the whole word updates it once, reporting at the word's first byte
//     as the byte loop would; an access to part of it splits it into four
//     byte records first, and a write that leaves the four bytes equal
//     (with no concurrent reads) merges them again.
//   - Lanes of one load that read the same bytes: the first lane is
//     checked; when its outcome did not depend on the lane (no record of
//     its own warp from an earlier instruction was consulted, other than
//     one whose lanes all run this instruction), every later lane with the
//     same offset joins the same read record and makes the same reports
//     with its own thread, in lane order. A run of such lanes with nothing
//     to report joins at once.
//   - A read of a byte whose recorded reads all belong to other warps and
//     were all made since the last barrier release that ordered anything
//     (clusterState.gen) joins them without scanning them: no warp's clock
//     holds another warp's current epoch until a release, so none of those
//     reads is ordered before it and none would be pruned.
//   - A same-warp record whose lanes all run the current instruction is
//     ordered before it at once (they were converged since).
//   - A 4-byte load or store whose every word is uniform and decides
//     every lane alike without a report is checked a word at a time, the
//     lanes of a word as one lane vector (sharedWarp, sharedwarp.go).
//   - A CTA barrier's waiting arrivals are joined at its release, and a
//     release whose warps' clocks are one clock apart from their own
//     components copies that clock, raised to the arrivals' epochs, into
//     each (barrier.go); the clocks are those of the rule above.
//
// The checker follows every step (it counts the launch's
// warp-instructions for Warning.Step, and each warp's instructions and
// active lanes for the same-warp rule) but asks for neither the old bytes
// nor the tensor and shuffle reports.

// WarningKind classifies a warning.
type WarningKind string

const (
	WarnReadAfterWrite  WarningKind = "read-after-write"
	WarnWriteAfterRead  WarningKind = "write-after-read"
	WarnWriteAfterWrite WarningKind = "write-after-write"
	// WarnAsyncRead: a read of cp.async destination bytes before the copy
	// landed.
	WarnAsyncRead WarningKind = "cp-async-read-before-wait"
	// WarnUninitShared: a read of shared memory never written in the CTA.
	WarnUninitShared WarningKind = "uninitialised-shared-read"
	// WarnUninitGlobal: a load of global memory the launch did not
	// initialise and the kernel had not written.
	WarnUninitGlobal WarningKind = "uninitialised-global-read"
	// WarnMbarrierPlain: an ordinary load, store or atomic (not an
	// mbarrier instruction) of an initialised mbarrier's bytes; Prev*
	// names the mbarrier.init.
	WarnMbarrierPlain WarningKind = "mbarrier-plain-access"
	// WarnMbarrierInitWaiting: mbarrier.init of an mbarrier that threads
	// are waiting on (try_wait); Prev* names a waiting thread's try_wait.
	WarnMbarrierInitWaiting WarningKind = "mbarrier-init-while-waiting"
	// WarnProxyFence: an asynchronous-proxy read (an asynchronous copy's
	// source, a wgmma.mma_async's shared-memory operand) of shared bytes a generic-proxy write wrote, with no
	// fence.proxy.async in the writing thread since that write; Prev*
	// names the write.
	WarnProxyFence WarningKind = "missing-proxy-fence"
	// WarnAsyncWriteRead: a generic read of shared bytes an asynchronous
	// copy wrote, not ordered after the copy's completion (no wait on the
	// mbarrier phase it completed); Prev* names the copy.
	WarnAsyncWriteRead WarningKind = "async-write-read-before-wait"
	// WarnWgmmaInFlight: an instruction reads or writes an accumulator or
	// A register of a wgmma.mma_async before a wgmma.wait_group waited
	// for it; Prev* names the mma_async, Register the register (see
	// wgmma.go).
	WarnWgmmaInFlight WarningKind = "wgmma-register-in-flight"
	// WarnWgmmaFence: a wgmma.mma_async reads an accumulator or A
	// register written since the warp's last wgmma.fence; Prev* names the
	// write, Register the register.
	WarnWgmmaFence WarningKind = "wgmma-missing-fence"
)

// Race reports whether k is a shared-memory hazard between two threads.
func (k WarningKind) Race() bool {
	return k == WarnReadAfterWrite || k == WarnWriteAfterRead || k == WarnWriteAfterWrite
}

// MaxWarnings caps the distinct warnings a Checker keeps.
const MaxWarnings = 100

// MaxOccurrenceSteps caps the occurrences per warning whose
// warp-instruction is remembered (for WarningsAt).
const MaxOccurrenceSteps = 1000

// maxByLin is the number of CTAs whose states a Checker also finds by
// index, without the map.
const maxByLin = 1 << 16

// maxSpare is the most retired CTA states a Checker keeps for reuse.
const maxSpare = 8

// MaxSharedShadow is the most shared memory per CTA the checker tracks
// (the emulator allows 228 KiB).
const MaxSharedShadow = 256 << 10

// Thread names a thread: its CTA, its index in the CTA, and its warp and
// lane.
type Thread struct {
	CTA  [3]int
	Tid  [3]int
	Warp int
	Lane int
}

// Warning is one deduplicated finding with its first occurrence.
type Warning struct {
	Kind  WarningKind
	Space isa.Space // isa.Shared or isa.Global
	// PC, Line and Instruction: the access that found it (the later of a
	// race's two; the read for the others).
	PC          int
	Line        int
	Instruction string
	Thread      Thread
	// Prev*: the other instruction of a race (the earlier access), or the
	// cp.async of an early read; PrevPC is -1 for the initialisation
	// checks.
	PrevPC          int
	PrevLine        int
	PrevInstruction string
	PrevThread      Thread
	// Offset is the first byte concerned: the offset in the CTA's shared
	// memory, or the global address.
	Offset uint64
	// Count is the number of occurrences (lane accesses) so far.
	Count int64
	// Step is the warp-instruction (1-based, counted over the launch) of
	// the first occurrence.
	Step int64
	// Capped: Count is at least MaxOccurrenceSteps but only that many
	// occurrences are remembered (set by WarningsAt only).
	Capped bool
	// Register names the register of the wgmma register rules' warnings
	// (Space isa.Reg); "" for the others.
	Register string
}

// HasPrev reports whether the warning names a second instruction.
func (w *Warning) HasPrev() bool { return w.PrevPC >= 0 }

// Region is a range of global memory the launch left uninitialised.
type Region struct {
	Base, Size uint64
}

// CheckerConfig configures a Checker.
type CheckerConfig struct {
	Block [3]int // the launch's block dimensions
	// Grid and Cluster: the launch's grid and cluster dimensions (CTAs
	// per cluster). With clusters of more than one CTA (and the grid
	// given), accesses to a peer CTA's shared memory are checked against
	// every other access of it, across the cluster (see Clusters).
	Grid, Cluster [3]int
	// Uninitialised lists the global ranges whose loads before a write
	// are flagged; every other global byte counts as initialised.
	Uninitialised []Region
}

// Checker is the race and memory checker, an emu.Observer (see above).
type Checker struct {
	prog    *emu.Program
	block   [3]int
	threads int
	nwarps  int
	seq     int64
	// grid and cdim: the launch's grid and cluster dimensions; csize is
	// the CTAs per cluster (1: every CTA is its own cluster).
	grid, cdim [3]int
	csize      int

	ctas     map[int]*ctaState
	clusters map[int]*clusterState // by the cluster's linear index
	spareCl  []*clusterState       // retired clusters' states, for reuse
	regions  []globalRegion
	lastReg  int // the region the last global access fell in (a hint)
	// gapLo, gapHi: the addresses between regions that the last access
	// outside them fell in (a hint; empty at first).
	gapLo, gapHi uint64
	// globalOnly: shared memory is left to the machine's phase filter
	// (LeaveShared).
	globalOnly bool
	// lanePath turns off the warp-access path of shared (sharedWarp):
	// every access goes lane by lane, the reference the tests compare the
	// warp-access path with.
	lanePath bool
	// warpAccesses counts the accesses sharedWarp checked a word at a
	// time, regularAccesses those of them groupRegular grouped and
	// wideAccesses those of 8 or 16 bytes (tests check that the paths
	// ran).
	warpAccesses, regularAccesses, wideAccesses int64
	// byteExact turns off the word-level shadow, the replay of lanes that
	// load the same bytes, the shortcuts for reads since the last release
	// and for converged lanes, and the reuse of retired CTAs' state: the
	// byte-by-byte checker the tests compare the fast one with.
	byteExact bool
	spare     []*ctaState // retired CTAs' states, for reuse
	// slowBarriers turns off the deferred barrier joins (barrier.go):
	// every CTA barrier joins clocks per warp, the reference the tests
	// compare the fast barriers with.
	slowBarriers bool
	// fastRel and slowRel count the CTA barrier releases made by copying
	// the synchronised clock and along the general rule (tests).
	fastRel, slowRel int64
	byLin            []*ctaState // ctas, by linear index (the first maxByLin)

	warns    []warnEntry
	index    map[warnKey]int
	dropped  int64
	dropStep int64 // the warp-instruction of the first dropped warning (0: none)

	// wg: the program has a wgmma.mma_async, whose register rules the
	// checker follows in every step (wgmma.go); wgw: each warp's state,
	// by (linear CTA, warp).
	wg  bool
	wgw map[[2]int]*wgWarp
}

type warnKey struct {
	kind   WarningKind
	pc, pv int
}

type warnEntry struct {
	w     Warning
	steps []int64 // the first MaxOccurrenceSteps occurrences' warp-instructions
}

type globalRegion struct {
	base, size uint64
	bits       []uint64 // written bytes (nil until first used)
}

// rec is one access in the shadow: by the lanes in lanes of warp warp, at
// the warp's step-th instruction (0: no record) in barrier epoch epoch.
type rec struct {
	pc     int32
	epoch  uint32
	step   uint32
	lanes  uint32
	warp   uint16
	atomic bool
}

// pend is a copy in flight to a byte: pc+1 of the cp.async, or of the
// bulk or tensor copy when bulk (0: none), and the issuing thread.
type pend struct {
	pc1  int32
	warp uint16
	lane uint8
	bulk bool
}

// pendRead is the warning for a generic read of a byte a copy in flight
// will write: a cp.async's, or a bulk or tensor copy's (which lands no
// earlier than a wait on its mbarrier's phase).
func (p pend) pendRead() WarningKind {
	if p.bulk {
		return WarnAsyncWriteRead
	}
	return WarnAsyncRead
}

type warpState struct {
	step uint32
	mask uint32          // lanes active in the current run of steps
	tog  *[32][32]uint32 // last step two lanes ran together, before the current run
	// all: the last step, before the current run, at which every lane of
	// the warp (init) ran: it stands for tog[a][b] of every pair where it
	// is larger (together), so a run of the whole warp ends without
	// writing the table.
	all uint32
	// pfence: per lane, the warp step of its last fence.proxy.async (nil:
	// none yet).
	pfence *[32]uint32
	vc     []uint32 // vector clock (per warp of the CTA)
	live   uint32   // lanes not exited
	init   uint32   // the warp's lanes
}

// shadow is a shared byte's state (or a uniform word's: see uni).
type shadow struct {
	w, r rec   // last write, last read
	rs   []rec // further concurrent reads
	// rgen and rwarps summarise the reads (r and rs) while r is set: no
	// read was recorded before barrier generation rgen, and only warps
	// in rwarps recorded one (both may be conservative).
	rgen   uint32
	rwarps uint64
}

type barState struct {
	vc   []uint32
	used bool
	// arr: the CTA's warps that arrived in this phase; lazy: their clocks
	// are not joined into vc yet (barrier.go); nowait: one of them did
	// not wait (bar.arrive).
	arr          uint64
	lazy, nowait bool
}

// clusterState is what the CTAs of a cluster share: their warps' clocks
// and the cluster barrier. A warp is named in the cluster by rank*nwarps
// + its index in its CTA (its cluster warp); records (rec.warp, pend.warp)
// and clocks use that name.
type clusterState struct {
	warps []warpState // by cluster warp
	idx   []([3]int)  // the CTA of each rank
	ctas  []*ctaState // the tracked CTA of each rank (nil: none)
	key   int         // the cluster's linear index (c.clusters)
	gone  int         // CTAs of the cluster whose threads have all exited
	gen   uint32      // barrier generation: the releases that ordered anything
	// The cluster barrier: the clocks of the phase's release arrivals and
	// the clock the last completed phase released.
	cbPend, cbRel []uint32
	cbUsed        bool
	// agent is the clock component (and rec.warp) of the cluster's
	// asynchronous proxy (csize*nwarps: every clock has one more
	// component than the cluster has warps); aepoch its current epoch.
	agent  uint16
	aepoch uint32
	// mbars: the synchronisation state of the mbarriers used (by object).
	mbars map[mbKey]*mbarSync
}

// mbKey names an mbarrier: the linear index of the CTA whose shared
// memory holds it and its offset there.
type mbKey struct {
	cta  int
	addr uint64
}

// mbarSync is an mbarrier's clocks: the join of the release arrivals
// (and completed transactions) of its current phase, and the clock its
// last completed phase released (what a wait for it acquires).
type mbarSync struct {
	pend, rel []uint32
	used      bool
}

// mbInit is an initialised mbarrier of a CTA: its mbarrier.init.
type mbInit struct {
	pc   int32
	warp uint16
	lane uint8
}

type ctaState struct {
	idx   [3]int
	cl    *clusterState
	base  int         // the cluster warp of the CTA's warp 0 (rank*nwarps)
	warps []warpState // the cluster's (cl.warps)
	bars  [16]barState
	// syncM: warps whose clocks are all syncS apart from their own
	// components (barrier.go).
	syncM uint64
	syncS []uint32
	// The shadow units: words[k] is word k's state while it is uniform
	// (see uni); a split word's bytes are bytes[4*(block[k]-1)+j].
	words   []shadow
	block   []int32
	bytes   []shadow
	free    []int32  // blocks of bytes no word uses
	written []uint64 // bytes ever written
	pend    []pend   // copies in flight, per byte (nil until a cp.async)
	// mbar: the initialised mbarriers in the CTA's shared memory, by
	// offset (nil until an mbarrier.init).
	mbar map[uint64]mbInit
	// uni has a bit per 4-byte word whose four bytes share one shadow
	// state (words[k]; the word's first byte stands for it in pend and
	// written); the word is split into bytes when an access covers part
	// of it.
	uni    []uint64
	exited int
	// byteExact: no word is ever uniform (Checker.byteExact).
	byteExact bool
	// acc counts the shared accesses checked (keys reps).
	acc uint32
	// placed: the read record readByte last recorded a read in (nil:
	// unknown).
	placed *rec
	// dep: unordered met a record of the current warp from an earlier
	// instruction (its answer depended on the lane).
	dep bool
	// reps remembers, per offset, the outcome of the current load's lane
	// accesses (see shared).
	reps [64]repEntry
	// wtab and wgrp: the words of the current access and their lanes
	// (sharedWarp).
	wtab [128]wordSlot
	wgrp [128]wordGroup
}

// repEntry is the outcome of one lane's load of off..off+size in the
// current access (step of warp warp): the reports it made, in order, and
// whether the outcome did not depend on the lane (dep false), so that
// another lane loading the same bytes in the same access has the same
// outcome with its own thread.
type repEntry struct {
	off uint64
	acc uint32 // ctaState.acc of the access (0: none)
	n   uint8
	at  *rec // the read record of a one-word load (nil: unknown)
	log [5]repRec
}

// repRec is one report of a lane access.
type repRec struct {
	bit                      uint8
	k                        WarningKind
	o                        uint64
	prevPC, prevWarp, prevLn int
}

// NewChecker returns a checker for prog launched with cfg.
func NewChecker(prog *emu.Program, cfg CheckerConfig) *Checker {
	b := cfg.Block
	for i := range b {
		if b[i] < 1 {
			b[i] = 1
		}
	}
	threads := b[0] * b[1] * b[2]
	c := &Checker{prog: prog, block: b, threads: threads, nwarps: (threads + 31) / 32,
		ctas: map[int]*ctaState{}, clusters: map[int]*clusterState{}, index: map[warnKey]int{}, csize: 1, cdim: [3]int{1, 1, 1}}
	if d := cfg.Cluster; d[0]*d[1]*d[2] > 1 && cfg.Grid[0] > 0 && cfg.Grid[1] > 0 && cfg.Grid[2] > 0 {
		for i := range d {
			d[i] = max(d[i], 1)
		}
		if cfg.Grid[0]%d[0] == 0 && cfg.Grid[1]%d[1] == 0 && cfg.Grid[2]%d[2] == 0 {
			c.grid, c.cdim, c.csize = cfg.Grid, d, d[0]*d[1]*d[2]
		}
	}
	for _, r := range cfg.Uninitialised {
		if r.Size > 0 {
			c.regions = append(c.regions, globalRegion{base: r.Base, size: r.Size})
		}
	}
	sort.Slice(c.regions, func(i, j int) bool { return c.regions[i].base < c.regions[j].base })
	if c.wg = hasWgmma(prog); c.wg {
		c.wgw = map[[2]int]*wgWarp{}
	}
	return c
}

// Observes implements emu.SelectiveObserver: the checker uses the
// accesses (with the cp.async copies issued) and the events, and each
// warp's instructions and active lanes for the same-warp rule: it is
// called for every change of a warp's active lanes, and numbers
// instructions by StepInfo.Step and WarpStep, so the instructions between
// (register-only, same lanes) need no call. It does not use the old bytes,
// tensor or shuffle reports. For a program with a wgmma.mma_async it asks
// for every step, for the register rules of wgmma (wgmma.go).
func (c *Checker) Observes() emu.ObserveFlags {
	if c.globalOnly {
		return emu.ObserveAccesses | emu.ObserveGlobalOnly
	}
	f := emu.ObserveAccesses | emu.ObserveEvents | emu.ObserveMaskChanges
	if c.wg {
		f |= emu.ObserveEveryStep
	}
	return f
}

// LeaveShared makes the checker follow global memory only (the
// uninitialised-global rule) and leave shared memory to the machine's
// phase filter (emu.Machine.EnableSharedFilter), whose clean verdict
// stands for what the checker would find there: with it the checker asks
// for global accesses only (emu.ObserveGlobalOnly), so shared-memory
// accesses, barriers and changes of active lanes need no report. Call it
// before installing the checker, and only when the filter is on; when the
// filter finds a suspect access, its run's warnings do not count (run the
// launch again with a checker that checks everything: launch.RunWith does).
func (c *Checker) LeaveShared() { c.globalOnly = true }

// WatchGlobal implements emu.GlobalWatcher: of global memory, the checker
// needs the accesses to the allocations that hold bytes the launch left
// uninitialised (its regions) only.
func (c *Checker) WatchGlobal(base, size uint64) bool {
	for _, r := range c.regions {
		if r.base < base+size && base < r.base+r.size {
			return true
		}
	}
	return false
}

// Steps returns the number of warp-instructions the checker has seen.
func (c *Checker) Steps() int64 { return c.seq }

// Dropped returns the occurrences of warnings beyond MaxWarnings.
func (c *Checker) Dropped() int64 { return c.dropped }

// Warnings returns the warnings found, in the order they were first found.
func (c *Checker) Warnings() []Warning {
	out := make([]Warning, len(c.warns))
	for i := range c.warns {
		out[i] = c.warns[i].w
	}
	return out
}

// WarningsAt returns the warnings a run stopped after warp-instruction n
// would have found: those first found at or before n, with the
// occurrences up to n (Capped when more than MaxOccurrenceSteps of them
// are remembered), and whether warnings beyond MaxWarnings had been
// dropped by then. The checker must have seen at least n instructions for
// the answer to be complete.
func (c *Checker) WarningsAt(n int64) (ws []Warning, dropped bool) {
	for i := range c.warns {
		e := &c.warns[i]
		if e.w.Step > n {
			continue
		}
		w := e.w
		k := sort.Search(len(e.steps), func(j int) bool { return e.steps[j] > n })
		w.Count = int64(k)
		w.Capped = k == MaxOccurrenceSteps
		ws = append(ws, w)
	}
	return ws, c.dropStep > 0 && c.dropStep <= n
}

// Step implements emu.Observer: it checks the instruction as the launch's
// warp-instruction StepInfo.Step (the next one after the last checked,
// for a StepInfo without a number).
func (c *Checker) Step(in *emu.StepInfo) {
	seq := in.Step
	if seq <= 0 {
		seq = c.seq + 1 // a StepInfo that does not number itself
	}
	c.StepAt(in, seq)
}

// StepAt checks the instruction as the launch's warp-instruction seq
// (1-based); seq must grow from call to call.
func (c *Checker) StepAt(in *emu.StepInfo, seq int64) {
	c.seq = seq
	if c.globalOnly {
		if len(c.regions) > 0 {
			for i := range in.Accesses {
				if a := &in.Accesses[i]; a.Space == isa.Global {
					c.global(in, a)
				}
			}
		}
		return
	}
	if in.Warp < 0 || in.Warp >= c.nwarps {
		return
	}
	cs := c.cta(in.CTALin, in.CTA)
	if cs == nil {
		return
	}
	w := cs.base + in.Warp // the warp in its cluster
	ws := &cs.warps[w]
	if in.WarpStep > 0 {
		ws.advanceTo(uint32(in.WarpStep), in.Mask)
	} else {
		ws.advance(in.Mask)
	}
	landing := false
	if in.PC >= 0 && in.PC < len(c.prog.Ops) {
		// Asynchronous copies land at a wait for them and where lanes exit.
		e := c.prog.Ops[in.PC].Eff
		landing = e.Has(emu.EffAsync|emu.EffBlocks) || e.Any(emu.EffExit|emu.EffReturn)
	}
	for i := range in.Accesses {
		a := &in.Accesses[i]
		switch a.Space {
		case isa.Shared:
			t := cs
			if a.CTA != in.CTALin {
				// A peer's shared memory (distributed shared memory):
				// its shadow, with this warp's clock (cluster-wide).
				if t = c.peer(cs, a.CTA); t == nil {
					continue
				}
			}
			if len(t.mbar) > 0 && !a.Async && !c.mbarOp(in.PC) {
				c.mbarPlain(t, w, in, a)
			}
			switch {
			case a.Async:
				c.asyncShared(t, w, in, a)
			case t == cs:
				c.shared(cs, w, in, a, landing)
			default:
				c.shared(t, w, in, a, false)
			}
		case isa.Global:
			if len(c.regions) > 0 {
				c.global(in, a)
			}
		}
	}
	for i := range in.Issued {
		c.issue(cs, w, &in.Issued[i])
	}
	for i := range in.BulkIssued {
		c.bulkIssue(cs, w, in, &in.BulkIssued[i])
	}
	for i := range in.Events {
		c.event(cs, w, in, &in.Events[i])
	}
	if c.wg && in.Fault == nil {
		c.wgmmaStep(cs, w, in)
	}
}

// peer returns the state of CTA lin when it is another CTA of cs's
// cluster (creating it: a peer may be accessed before its threads run),
// else nil.
func (c *Checker) peer(cs *ctaState, lin int) *ctaState {
	if c.csize == 1 || lin < 0 || lin >= c.grid[0]*c.grid[1]*c.grid[2] {
		return nil
	}
	g := c.grid
	idx := [3]int{lin % g[0], lin / g[0] % g[1], lin / (g[0] * g[1])}
	if k, _ := c.clusterOf(idx); k != cs.cl.key {
		return nil
	}
	return c.cta(lin, idx)
}

// clusterOf returns the linear index of CTA idx's cluster and its rank
// in it.
func (c *Checker) clusterOf(idx [3]int) (int, int) {
	d := c.cdim
	cg := [3]int{c.grid[0] / d[0], c.grid[1] / d[1], c.grid[2] / d[2]}
	k := idx[0]/d[0] + idx[1]/d[1]*cg[0] + idx[2]/d[2]*cg[0]*cg[1]
	r := idx[0]%d[0] + idx[1]%d[1]*d[0] + idx[2]%d[2]*d[0]*d[1]
	return k, r
}

// cluster returns the state of cluster k, creating it (idx: a CTA of it,
// at rank).
func (c *Checker) cluster(k int, idx [3]int, rank int) *clusterState {
	if cl := c.clusters[k]; cl != nil {
		return cl
	}
	var cl *clusterState
	if n := len(c.spareCl); n > 0 {
		cl = c.spareCl[n-1]
		c.spareCl = c.spareCl[:n-1]
		cl.reset()
	} else {
		n := c.csize * c.nwarps
		// One clock component per warp and one for the asynchronous proxy.
		nc := n + 1
		cl = &clusterState{warps: make([]warpState, n), idx: make([][3]int, c.csize), ctas: make([]*ctaState, c.csize),
			cbPend: make([]uint32, nc), cbRel: make([]uint32, nc), agent: uint16(n), aepoch: 1}
		clocks := make([]uint32, n*nc)
		for w := range cl.warps {
			ws := &cl.warps[w]
			ws.vc = clocks[w*nc : (w+1)*nc : (w+1)*nc]
			ws.vc[w] = 1
			lanes := min(32, c.threads-32*(w%c.nwarps))
			ws.live = uint32(1<<lanes - 1)
			ws.init = ws.live
		}
	}
	// The CTA of each rank.
	d := c.cdim
	o := [3]int{idx[0] - idx[0]%d[0], idx[1] - idx[1]%d[1], idx[2] - idx[2]%d[2]}
	for r := range cl.idx {
		cl.idx[r] = [3]int{o[0] + r%d[0], o[1] + r/d[0]%d[1], o[2] + r/(d[0]*d[1])}
	}
	if c.csize == 1 {
		cl.idx[0] = idx
	}
	cl.key = k
	c.clusters[k] = cl
	return cl
}

// reset makes a retired cluster's state that of a new cluster.
func (cl *clusterState) reset() {
	for w := range cl.warps {
		ws := &cl.warps[w]
		ws.step, ws.mask = 0, 0
		if ws.tog != nil {
			*ws.tog = [32][32]uint32{}
		}
		ws.all = 0
		clear(ws.vc)
		ws.vc[w] = 1
		ws.live = ws.init
		if ws.pfence != nil {
			*ws.pfence = [32]uint32{}
		}
	}
	clear(cl.ctas)
	clear(cl.mbars)
	cl.aepoch = 1
	clear(cl.cbPend)
	clear(cl.cbRel)
	cl.gone, cl.gen, cl.cbUsed = 0, 0, false
}

// bump counts a release that ordered something in the cluster.
func (cl *clusterState) bump() {
	if cl.gen++; cl.gen == 0 {
		// Wrapped: no summary may claim the new generation.
		for _, cs := range cl.ctas {
			if cs == nil {
				continue
			}
			for i := range cs.words {
				cs.words[i].rgen = 0
			}
			for i := range cs.bytes {
				cs.bytes[i].rgen = 0
			}
		}
		cl.gen = 1
	}
}

// cta returns the state of CTA lin (index idx), creating it.
func (c *Checker) cta(lin int, idx [3]int) *ctaState {
	if lin >= 0 && lin < len(c.byLin) {
		if cs := c.byLin[lin]; cs != nil {
			return cs
		}
	} else if cs := c.ctas[lin]; cs != nil {
		return cs
	}
	var cs *ctaState
	if c.nwarps > 64 {
		return nil
	}
	k, rank := lin, 0
	if c.csize > 1 {
		k, rank = c.clusterOf(idx)
	}
	cl := c.cluster(k, idx, rank)
	if n := len(c.spare); n > 0 {
		cs = c.spare[n-1]
		c.spare = c.spare[:n-1]
		cs.reset(idx)
	} else {
		cs = &ctaState{idx: idx, byteExact: c.byteExact}
	}
	cs.cl, cs.base, cs.warps = cl, rank*c.nwarps, cl.warps
	cl.ctas[rank] = cs
	c.ctas[lin] = cs
	c.index1(lin, cs)
	return cs
}

// index1 records cs as CTA lin's state in byLin (for the first
// maxByLin CTAs).
func (c *Checker) index1(lin int, cs *ctaState) {
	if lin < 0 || lin >= maxByLin {
		return
	}
	if lin >= len(c.byLin) {
		c.byLin = append(c.byLin, make([]*ctaState, lin+1-len(c.byLin))...)
	}
	c.byLin[lin] = cs
}

// reset makes a retired CTA's state that of a new CTA idx: the state
// NewChecker's cta would create, with the shadow's memory kept.
func (cs *ctaState) reset(idx [3]int) {
	cs.idx = idx
	for i := range cs.bars {
		clear(cs.bars[i].vc)
		b := &cs.bars[i]
		b.used, b.lazy, b.nowait, b.arr = false, false, false, 0
	}
	cs.syncM = 0
	for i := range cs.words {
		x := &cs.words[i]
		*x = shadow{rs: x.rs[:0]}
	}
	clear(cs.block)
	cs.bytes, cs.free = cs.bytes[:0], cs.free[:0]
	if cs.byteExact {
		for k := range cs.words {
			cs.newBlock(uint64(k))
		}
	}
	clear(cs.written)
	clear(cs.pend)
	clear(cs.mbar)
	fill := ^uint64(0)
	if cs.byteExact {
		fill = 0
	}
	for i := range cs.uni {
		cs.uni[i] = fill
	}
	cs.exited = 0
}

// advance counts the warp's next instruction, run by the lanes in mask.
func (ws *warpState) advance(mask uint32) { ws.advanceTo(ws.step+1, mask) }

// advanceTo counts the warp's instruction number step, run by the lanes in
// mask; the instructions since the last one counted ran with the same
// lanes as it.
func (ws *warpState) advanceTo(step, mask uint32) {
	ws.step = step
	if mask == ws.mask {
		return
	}
	if old := ws.mask; old&ws.init == ws.init && ws.init&(ws.init-1) != 0 {
		// Every lane of the warp ran: every pair together.
		ws.all = ws.step - 1
	} else if old&(old-1) != 0 {
		if ws.tog == nil {
			ws.tog = new([32][32]uint32)
		}
		last := ws.step - 1
		for m := old; m != 0; m &= m - 1 {
			a := bits.TrailingZeros32(m)
			row := &ws.tog[a]
			for n := old; n != 0; n &= n - 1 {
				row[bits.TrailingZeros32(n)] = last
			}
		}
	}
	ws.mask = mask
}

// together returns the last step at which lanes a and b both ran (0: never).
func (ws *warpState) together(a, b int) uint32 {
	if ws.mask>>a&1 != 0 && ws.mask>>b&1 != 0 {
		return ws.step
	}
	if ws.tog == nil {
		return ws.all
	}
	return max(ws.tog[a][b], ws.all)
}

// unordered returns a lane of r whose access does not happen before lane's
// current access in warp w of cs, or -1 when all of r's do.
func (cs *ctaState) unordered(r *rec, w, lane int) int {
	if int(r.warp) != w {
		if cs.warps[w].vc[r.warp] >= r.epoch {
			return -1
		}
		return bits.TrailingZeros32(r.lanes)
	}
	return cs.unorderedSameWarp(r, w, lane)
}

// unorderedSameWarp is unordered for a record r of warp w itself.
func (cs *ctaState) unorderedSameWarp(r *rec, w, lane int) int {
	ws := &cs.warps[w]
	if r.step == ws.step {
		return -1 // the same warp-instruction
	}
	if r.lanes&^ws.mask == 0 && !cs.byteExact {
		// r's lanes all run this instruction with lane: converged since.
		return -1
	}
	cs.dep = true
	for m := r.lanes &^ (1 << lane); m != 0; m &= m - 1 {
		a := bits.TrailingZeros32(m)
		if ws.together(a, lane) < r.step {
			return a
		}
	}
	return -1
}

// grow makes the shadow cover n bytes.
func (cs *ctaState) grow(n int) {
	if n <= 4*len(cs.words) {
		return
	}
	n = min(MaxSharedShadow, (n+4095)&^4095)
	old := len(cs.words)
	cs.words = append(cs.words, make([]shadow, n/4-old)...)
	cs.block = append(cs.block, make([]int32, n/4-old)...)
	cs.written = append(cs.written, make([]uint64, (n+63)/64-len(cs.written))...)
	// n is a multiple of 4096: the new words fill whole uint64s of uni,
	// uniform (all zero) unless the checker tracks bytes only.
	var fill uint64
	if !cs.byteExact {
		fill = ^uint64(0)
	}
	for len(cs.uni) < n/256 {
		cs.uni = append(cs.uni, fill)
	}
	if cs.byteExact {
		for k := old; k < n/4; k++ {
			cs.newBlock(uint64(k))
		}
	}
	if cs.pend != nil {
		cs.pend = append(cs.pend, make([]pend, n-len(cs.pend))...)
	}
}

// laneThread names lane of the warp that executed in.
func (c *Checker) laneThread(in *emu.StepInfo, lane int) Thread {
	if cs := c.ctas[in.CTALin]; cs != nil {
		return c.thread(cs, cs.base+in.Warp, lane)
	}
	t, b := in.Warp*32+lane, c.block
	return Thread{CTA: in.CTA, Tid: [3]int{t % b[0], t / b[0] % b[1], t / (b[0] * b[1])}, Warp: in.Warp, Lane: lane}
}

// thread names lane of cluster warp warp of cs's cluster.
func (c *Checker) thread(cs *ctaState, warp, lane int) Thread {
	idx := cs.idx
	if r := warp / c.nwarps; r < len(cs.cl.idx) {
		idx = cs.cl.idx[r]
	}
	warp %= c.nwarps
	t := warp*32 + lane
	b := c.block
	return Thread{CTA: idx, Tid: [3]int{t % b[0], t / b[0] % b[1], t / (b[0] * b[1])}, Warp: warp, Lane: lane}
}

// at returns shadow unit o's state: the word's if o's word is uniform
// (o is then its first byte), else the byte's.
func (cs *ctaState) at(o uint64) *shadow {
	k := o >> 2
	if i := cs.block[k]; i != 0 {
		return &cs.bytes[4*int(i-1)+int(o&3)]
	}
	return &cs.words[k]
}

// split gives the four bytes of uniform word k the word's
// state.
func (cs *ctaState) split(k uint64) {
	cs.uni[k>>6] &^= 1 << (k & 63)
	src := &cs.words[k]
	blk := cs.newBlock(k)
	for j := range blk {
		rs := blk[j].rs[:0]
		blk[j] = *src
		blk[j].rs = append(rs, src.rs...)
	}
	b := k << 2
	if cs.pend != nil {
		for o := b + 1; o < b+4; o++ {
			cs.pend[o] = cs.pend[b]
		}
	}
	if sh := b & 63; cs.written[b>>6]>>sh&1 != 0 {
		cs.written[b>>6] |= 0xf << sh
	} else {
		cs.written[b>>6] &^= 0xf << sh
	}
}

// newBlock gives split word k a block of four byte states and returns it.
func (cs *ctaState) newBlock(k uint64) []shadow {
	var i int
	if n := len(cs.free); n > 0 {
		i = int(cs.free[n-1])
		cs.free = cs.free[:n-1]
	} else {
		i = len(cs.bytes) / 4
		cs.bytes = append(cs.bytes, shadow{}, shadow{}, shadow{}, shadow{})
	}
	cs.block[k] = int32(i) + 1
	return cs.bytes[4*i : 4*i+4 : 4*i+4]
}

// tryMerge makes word k uniform again when its four bytes have the same
// state and no set of further reads (after a write to the whole word).
func (cs *ctaState) tryMerge(k uint64) {
	b := k << 2
	if nib := cs.written[b>>6] >> (b & 63) & 0xf; nib != 0 && nib != 0xf {
		return
	}
	i := cs.block[k] - 1
	blk := cs.bytes[4*i : 4*i+4]
	for j := range blk {
		if len(blk[j].rs) > 0 {
			return
		}
		o := b + uint64(j)
		if j > 0 && (blk[j].w != blk[0].w || blk[j].r != blk[0].r || cs.pend != nil && cs.pend[o] != cs.pend[b]) {
			return
		}
	}
	x := &cs.words[k]
	rs := x.rs[:0]
	*x = blk[0]
	x.rs = rs
	cs.block[k] = 0
	cs.free = append(cs.free, i)
	cs.uni[k>>6] |= 1 << (k & 63)
}

// units calls f for each shadow unit of off..off+size: a uniform word
// the range covers (f gets its first byte) or a byte (splitting a
// uniform word the range covers only in part). After a write to the last
// byte of a split word it tries to make the word uniform again.
func (cs *ctaState) units(off, size uint64, write bool, f func(o uint64)) {
	end := off + size
	for o := off; o < end; {
		k := o >> 2
		if cs.uni[k>>6]>>(k&63)&1 != 0 {
			if o&3 == 0 && o+4 <= end {
				f(o)
				o += 4
				continue
			}
			cs.split(k)
		}
		f(o)
		if write && o&3 == 3 && !cs.byteExact {
			cs.tryMerge(k)
		}
		o++
	}
}

// laneAcc is one lane's access being checked: it reports each kind of
// finding once (at the first byte that has it) and logs the reports.
type laneAcc struct {
	c     *Checker
	cs    *ctaState
	pc    int
	w     int
	lane  int
	found uint8 // kinds reported
	n     uint8
	log   [5]repRec
}

func (la *laneAcc) report(bit uint8, k WarningKind, o uint64, prevPC int, prevWarp, prevLane int) {
	if la.found&bit != 0 {
		return
	}
	la.found |= bit
	if int(la.n) < len(la.log) {
		la.log[la.n] = repRec{bit: bit, k: k, o: o, prevPC: prevPC, prevWarp: prevWarp, prevLn: prevLane}
		la.n++
	}
	c := la.c
	c.warn(k, isa.Shared, la.pc, c.thread(la.cs, la.w, la.lane), prevPC, c.thread(la.cs, prevWarp, prevLane), o)
}

// shared checks and records one shared-memory access.
// cs is the state of the CTA whose shared memory it is, w the accessing
// cluster warp.
func (c *Checker) shared(cs *ctaState, w int, in *emu.StepInfo, a *emu.Access, landing bool) {
	size := uint64(a.Size)
	if size == 0 {
		return
	}
	if (size == 4 || size == 8 || size == 16) && !c.byteExact && !c.lanePath && (a.Kind == emu.AccessLoad || a.Kind == emu.AccessStore) {
		cs.nextAcc()
		if ok, regular := cs.sharedWarp(w, in.PC, a); ok {
			c.warpAccesses++
			if regular {
				c.regularAccesses++
			}
			if size != 4 {
				c.wideAccesses++
			}
			return
		}
	}
	ws := &cs.warps[w]
	var hi uint64
	for m := a.Lanes; m != 0; m &= m - 1 {
		off := a.Addr[bits.TrailingZeros32(m)]
		if off < MaxSharedShadow && off+size <= MaxSharedShadow {
			hi = max(hi, off+size)
		}
	}
	if hi == 0 {
		return
	}
	cs.grow(int(hi))
	cs.nextAcc()
	// Lanes of a load that read the same bytes as an earlier lane of it
	// whose outcome did not depend on the lane get the same outcome.
	replay := a.Kind == emu.AccessLoad && !c.byteExact && size <= 16
	me := rec{pc: int32(in.PC), epoch: ws.vc[w], step: ws.step, warp: uint16(w), atomic: a.Kind == emu.AccessAtomic}
	la := laneAcc{c: c, cs: cs, pc: in.PC, w: w}
	for m := a.Lanes; m != 0; {
		lane := bits.TrailingZeros32(m)
		m &= m - 1
		off := a.Addr[lane]
		if off >= MaxSharedShadow || off+size > MaxSharedShadow {
			continue
		}
		la.lane, la.found, la.n = lane, 0, 0
		me.lanes = 1 << lane
		if !replay {
			if size == 4 && off&3 == 0 && cs.uni[off>>8]>>(off>>2&63)&1 != 0 && !landing {
				// One uniform word: the word path of sharedLane.
				if a.Kind == emu.AccessLoad {
					c.readByte(cs, off, &me, w, lane, &la)
				} else {
					c.writeByte(cs, off, &me, w, lane, &la, true)
				}
				continue
			}
			c.sharedLane(cs, &la, &me, off, size, a.Kind, landing)
			continue
		}
		e := &cs.reps[(off>>2)&63]
		if e.acc == cs.acc && e.off == off {
			if r := e.at; r != nil && r.step == ws.step && r.warp == uint16(w) {
				// A one-word load: join the record the first lane's
				// read went to (no later lane of this load moves it).
				r.lanes |= 1 << lane
				for _, r := range e.log[:e.n] {
					la.report(r.bit, r.k, r.o, r.prevPC, r.prevWarp, r.prevLn)
				}
				if e.n == 0 {
					m = joinRun(r, a, m, off)
				}
				continue
			}
			if c.replayLoad(cs, &la, e, off, size, ws.step) {
				continue
			}
		}
		cs.dep = false
		cs.placed = nil
		if size == 4 && off&3 == 0 && cs.uni[off>>8]>>(off>>2&63)&1 != 0 {
			c.readByte(cs, off, &me, w, lane, &la)
		} else {
			c.sharedLane(cs, &la, &me, off, size, a.Kind, landing)
			cs.placed = nil
		}
		if !cs.dep && int(la.n) <= len(la.log) {
			e.off, e.acc, e.n, e.at = off, cs.acc, la.n, cs.placed
			copy(e.log[:la.n], la.log[:la.n])
			if la.n == 0 && cs.placed != nil {
				m = joinRun(cs.placed, a, m, off)
			}
		} else if e.acc == cs.acc && e.off == off {
			e.acc = 0
		}
	}
}

// nextAcc numbers a new access (ctaState.acc), clearing the tables keyed
// by it when the number wraps.
func (cs *ctaState) nextAcc() {
	cs.acc++
	if cs.acc == 0 {
		cs.reps = [64]repEntry{}
		cs.wtab = [128]wordSlot{}
		cs.acc = 1
	}
}

// joinRun adds the next lanes of m that load off, as a run, to the read
// record r of an earlier lane of the same one-word load that reported
// nothing (their outcome: the same, with nothing to report), and returns
// the lanes left.
func joinRun(r *rec, a *emu.Access, m uint32, off uint64) uint32 {
	for m != 0 {
		l := bits.TrailingZeros32(m)
		if a.Addr[l] != off {
			break
		}
		r.lanes |= 1 << l
		m &= m - 1
	}
	return m
}

// readRecs calls f with the lanes of the read record of warp w's step-th
// instruction in each shadow unit of off..off+size, and reports whether
// every unit has one (it stops at the first that has none).
func (cs *ctaState) readRecs(off, size uint64, w uint16, step uint32, f func(*uint32)) bool {
	for o := off; o < off+size; {
		k := o >> 2
		next := o + 1
		if cs.uni[k>>6]>>(k&63)&1 != 0 {
			next = o + 4
		}
		var p *uint32
		if r := &cs.at(o).r; r.step == step && r.warp == w && step != 0 {
			p = &r.lanes
		} else {
			for i := range cs.at(o).rs {
				if x := &cs.at(o).rs[i]; x.step == step && x.warp == w {
					p = &x.lanes
					break
				}
			}
		}
		if p == nil {
			return false
		}
		f(p)
		o = next
	}
	return true
}

// replayLoad gives lane la.lane the outcome e of an earlier lane's load of
// the same bytes in the same access (whose outcome did not depend on the
// lane): it joins that lane's read records and makes the same reports.
// It returns false, having changed nothing, when a record is missing.
func (c *Checker) replayLoad(cs *ctaState, la *laneAcc, e *repEntry, off, size uint64, step uint32) bool {
	var at [16]*uint32
	n := 0
	if !cs.readRecs(off, size, uint16(la.w), step, func(p *uint32) { at[n] = p; n++ }) {
		return false
	}
	for _, p := range at[:n] {
		*p |= 1 << la.lane
	}
	for _, r := range e.log[:e.n] {
		la.report(r.bit, r.k, r.o, r.prevPC, r.prevWarp, r.prevLn)
	}
	return true
}

// sharedLane checks and records one lane's access of off..off+size, a
// shadow unit at a time (see units).
func (c *Checker) sharedLane(cs *ctaState, la *laneAcc, me *rec, off, size uint64, kind emu.AccessKind, landing bool) {
	w, lane := la.w, la.lane
	end := off + size
	for o := off; o < end; {
		k := o >> 2
		next := o + 1
		if cs.uni[k>>6]>>(k&63)&1 != 0 {
			if o&3 == 0 && o+4 <= end {
				next = o + 4
			} else {
				cs.split(k)
			}
		}
		switch {
		case kind == emu.AccessStore && landing && cs.pend != nil && cs.pend[o].pc1 != 0 && !cs.pend[o].bulk && int(cs.pend[o].warp) == w && int(cs.pend[o].lane) == lane:
			// A cp.async copy landing: the issuing thread writes now;
			// its hazards were checked when it was issued.
			p := cs.pend[o]
			cs.pend[o] = pend{}
			x := *me
			x.pc = p.pc1 - 1
			cs.at(o).w = x
			cs.at(o).r = rec{}
			cs.at(o).rs = cs.at(o).rs[:0]
			cs.written[o>>6] |= 1 << (o & 63)
		case kind == emu.AccessLoad:
			c.readByte(cs, o, me, w, lane, la)
		default:
			c.writeByte(cs, o, me, w, lane, la, true)
		}
		if kind != emu.AccessLoad && next == o+1 && o&3 == 3 && !cs.byteExact {
			cs.tryMerge(k)
		}
		o = next
	}
}

const (
	bitRAW = 1 << iota
	bitWAR
	bitWAW
	bitAsync
	bitUninit
)

// readByte checks and records a plain read of byte o.
func (c *Checker) readByte(cs *ctaState, o uint64, me *rec, w, lane int, la *laneAcc) {
	sh := cs.at(o) // o's shadow unit
	if cs.pend != nil && cs.pend[o].pc1 != 0 {
		p := cs.pend[o]
		la.report(bitAsync, p.pendRead(), o, int(p.pc1-1), int(p.warp), int(p.lane))
	} else if cs.written[o>>6]>>(o&63)&1 == 0 {
		la.report(bitUninit, WarnUninitShared, o, -1, w, lane)
	}
	if r := &sh.w; r.step != 0 {
		if l := cs.unordered(r, w, lane); l >= 0 {
			if r.warp == cs.cl.agent {
				la.report(bitRAW, WarnAsyncWriteRead, o, int(r.pc), cs.who(r), l)
			} else {
				la.report(bitRAW, WarnReadAfterWrite, o, int(r.pc), int(r.warp), l)
			}
		}
	}
	// Record the read: drop the reads it is ordered after.
	r := &sh.r
	if r.step != 0 && r.warp == me.warp && r.step == me.step {
		r.lanes |= me.lanes
		cs.placed = r
		return
	}
	if r.step != 0 && sh.rgen == cs.cl.gen && sh.rwarps>>(w&63)&1 == 0 && !cs.byteExact {
		// Every read recorded is another warp's since the last release
		// that ordered anything: none is ordered before this one (a
		// warp's clock never holds another's current epoch), so none is
		// dropped and this one joins them.
		sh.rs = append(sh.rs, *me)
		sh.rwarps |= 1 << (w & 63)
		cs.placed = &sh.rs[len(sh.rs)-1]
		return
	}
	if r.step == 0 || cs.unordered(r, w, lane) < 0 {
		*r = *me
		cs.placed = r
		if len(sh.rs) == 0 {
			sh.rgen, sh.rwarps = cs.cl.gen, 1<<(w&63)
		} else {
			sh.rwarps |= 1 << (w & 63)
		}
	} else {
		sh.rwarps |= 1 << (w & 63)
		extra := sh.rs
		n, merged := 0, false
		for i := range extra {
			x := &extra[i]
			if x.warp == me.warp && x.step == me.step {
				x.lanes |= me.lanes
				merged = true
				cs.placed = x
			} else if cs.unordered(x, w, lane) < 0 {
				continue
			}
			if n != i {
				extra[n] = *x
			}
			n++
		}
		extra = extra[:n]
		if !merged {
			extra = append(extra, *me)
			cs.placed = &extra[n]
		} else {
			cs.placed = nil // it may have moved: joinReads finds it
		}
		sh.rs = extra
		return
	}
	// The main read was replaced: prune the further ones too.
	if len(sh.rs) > 0 {
		extra := sh.rs
		n := 0
		for i := range extra {
			if cs.unordered(&extra[i], w, lane) >= 0 {
				extra[n] = extra[i]
				n++
			}
		}
		sh.rs = extra[:n]
	}
}

// writeByte checks a write (store or atomic, or a cp.async destination
// when record is false) of byte o, and records it.
func (c *Checker) writeByte(cs *ctaState, o uint64, me *rec, w, lane int, la *laneAcc, record bool) {
	sh := cs.at(o) // o's shadow unit
	if me.atomic {
		// An atomic also reads.
		if cs.pend != nil && cs.pend[o].pc1 != 0 {
			p := cs.pend[o]
			la.report(bitAsync, p.pendRead(), o, int(p.pc1-1), int(p.warp), int(p.lane))
		} else if cs.written[o>>6]>>(o&63)&1 == 0 {
			la.report(bitUninit, WarnUninitShared, o, -1, w, lane)
		}
	} else if cs.pend != nil && cs.pend[o].pc1 != 0 && (cs.pend[o].bulk || int(cs.pend[o].warp) != w || int(cs.pend[o].lane) != lane) {
		// A write over a copy in flight (a bulk copy's: by any thread,
		// its issuer's included).
		p := cs.pend[o]
		la.report(bitWAW, WarnWriteAfterWrite, o, int(p.pc1-1), int(p.warp), int(p.lane))
	}
	if r := &sh.w; r.step != 0 && !(me.atomic && r.atomic) {
		if l := cs.unordered(r, w, lane); l >= 0 {
			k, bit := WarnWriteAfterWrite, uint8(bitWAW)
			if me.atomic {
				k, bit = WarnReadAfterWrite, bitRAW
			}
			la.report(bit, k, o, int(r.pc), cs.who(r), l)
		}
	}
	if r := &sh.r; r.step != 0 {
		if l := cs.unordered(r, w, lane); l >= 0 {
			la.report(bitWAR, WarnWriteAfterRead, o, int(r.pc), int(r.warp), l)
		}
		extra := sh.rs
		for i := range extra {
			x := &extra[i]
			if l := cs.unordered(x, w, lane); l >= 0 {
				la.report(bitWAR, WarnWriteAfterRead, o, int(x.pc), int(x.warp), l)
				break
			}
		}
	}
	if !record {
		return
	}
	if r := &sh.w; r.warp == me.warp && r.step == me.step && r.step != 0 {
		r.lanes |= me.lanes
	} else {
		*r = *me
	}
	sh.r = rec{}
	sh.rs = sh.rs[:0]
	cs.written[o>>6] |= 1 << (o & 63)
}

// issue checks a cp.async's destination as a write (it may land at any
// time until the wait) and marks its bytes in flight.
func (c *Checker) issue(cs *ctaState, w int, cp *emu.AsyncCopy) {
	size := uint64(cp.Size)
	off := cp.Dst
	if size == 0 || off >= MaxSharedShadow || off+size > MaxSharedShadow {
		return
	}
	cs.grow(int(off + size))
	if cs.pend == nil {
		cs.pend = make([]pend, 4*len(cs.words))
	}
	lane := cp.Lane
	ws := &cs.warps[w]
	me := rec{pc: int32(cp.PC), epoch: ws.vc[w], step: ws.step, lanes: 1 << lane, warp: uint16(w)}
	la := laneAcc{c: c, cs: cs, pc: cp.PC, w: w, lane: lane}
	cs.units(off, size, true, func(o uint64) {
		c.writeByte(cs, o, &me, w, lane, &la, false)
		cs.pend[o] = pend{pc1: int32(cp.PC) + 1, warp: uint16(w), lane: uint8(lane)}
	})
}

// event applies a barrier or exit event of cluster warp w.
func (c *Checker) event(cs *ctaState, w int, in *emu.StepInfo, e *emu.Event) {
	cl := cs.cl
	switch e.Kind {
	case emu.EvClusterArrive, emu.EvClusterRelease, emu.EvClusterWait, emu.EvMbarrierArrive,
		emu.EvMbarrierCompleteTx, emu.EvMbarrierComplete, emu.EvMbarrierWait:
		// May change clocks: the CTA barriers' deferred joins are made
		// first (barrier.go).
		cs.flushBars()
	}
	switch e.Kind {
	case emu.EvBarrierArrive:
		if e.ID < 0 || e.ID >= len(cs.bars) {
			return
		}
		c.barrierArrive(cs, w, e)
	case emu.EvBarrierRelease:
		if e.ID < 0 || e.ID >= len(cs.bars) {
			return
		}
		c.barrierRelease(cs, e)
	case emu.EvClusterArrive:
		// A release arrive publishes the warp's accesses so far to the
		// threads that wait for this phase; a .relaxed one publishes
		// nothing. Either way the warp's later accesses are a new epoch.
		ws := &cs.warps[w]
		if !e.Relaxed {
			for i, v := range ws.vc {
				cl.cbPend[i] = max(cl.cbPend[i], v)
			}
			cl.cbUsed = true
		}
		ws.vc[w]++
	case emu.EvClusterRelease:
		// The phase completed: its arrivals' clocks are what a wait for
		// it acquires, now (the waiting warps it releases) or later (a
		// wait after the completion: EvClusterWait).
		cl.cbRel, cl.cbPend = cl.cbPend, cl.cbRel
		clear(cl.cbPend)
		used := cl.cbUsed
		cl.cbUsed = false
		if !used {
			clear(cl.cbRel)
			return
		}
		for _, bw := range e.Warps {
			if bw.Warp < 0 || bw.Warp >= c.nwarps {
				continue
			}
			_, r := c.clusterOf(bw.CTA)
			if c.csize == 1 {
				r = 0
			}
			cl.acquire(r*c.nwarps + bw.Warp)
		}
		cl.bump()
	case emu.EvClusterWait:
		if cl.acquire(w) {
			cl.bump()
		}
	case emu.EvMbarrierInit, emu.EvMbarrierInval, emu.EvMbarrierArrive, emu.EvMbarrierCompleteTx,
		emu.EvMbarrierComplete, emu.EvMbarrierWait, emu.EvProxyFence:
		c.mbarEvent(cs, w, in, e)
	case emu.EvExit:
		ws := &cs.warps[w]
		gone := e.Mask & ws.live
		ws.live &^= gone
		cs.exited += bits.OnesCount32(gone)
		if cs.exited >= c.threads {
			// The CTA's shared memory is not accessed again (a peer's
			// access to it faults); the cluster's clocks stay while
			// another CTA of it runs.
			delete(c.ctas, in.CTALin)
			c.index1(in.CTALin, nil)
			cl.ctas[cs.base/c.nwarps] = nil
			if len(c.spare) < maxSpare && !c.byteExact {
				c.spare = append(c.spare, cs)
			}
			if cl.gone++; cl.gone >= c.csize {
				delete(c.clusters, cl.key)
				if len(c.spareCl) < maxSpare && !c.byteExact {
					c.spareCl = append(c.spareCl, cl)
				}
			}
		}
	}
}

// acquire joins the clock the cluster barrier's last phase released into
// cluster warp w's, and reports whether it held anything.
func (cl *clusterState) acquire(w int) bool {
	vc := cl.warps[w].vc
	any := false
	for i, v := range cl.cbRel {
		if v > vc[i] {
			vc[i] = v
			any = true
		}
	}
	return any
}

// global checks and records one global-memory access against the
// uninitialised regions.
func (c *Checker) global(in *emu.StepInfo, a *emu.Access) {
	size := uint64(a.Size)
	if size == 0 {
		return
	}
	for m := a.Lanes; m != 0; m &= m - 1 {
		lane := bits.TrailingZeros32(m)
		addr := a.Addr[lane]
		if addr+size < addr {
			continue
		}
		if addr >= c.gapLo && addr+size <= c.gapHi {
			continue // between the regions, where the last lane outside them was
		}
		var g *globalRegion
		if h := c.lastReg; h < len(c.regions) && addr >= c.regions[h].base && addr+size <= c.regions[h].base+c.regions[h].size {
			g = &c.regions[h] // lanes mostly access the region the last one did
		} else {
			i := sort.Search(len(c.regions), func(i int) bool { return c.regions[i].base+c.regions[i].size > addr })
			if i == len(c.regions) || addr+size <= c.regions[i].base {
				// Outside every region: remember the gap it is in.
				c.gapLo, c.gapHi = 0, ^uint64(0)
				if i > 0 {
					c.gapLo = c.regions[i-1].base + c.regions[i-1].size
				}
				if i < len(c.regions) {
					c.gapHi = c.regions[i].base
				}
				continue
			}
			g = &c.regions[i]
			if addr < g.base || addr+size > g.base+g.size {
				continue
			}
			c.lastReg = i
		}
		if g.bits == nil {
			g.bits = make([]uint64, (g.size+63)/64)
		}
		lo := addr - g.base
		// The bytes' bits when they lie in one word.
		var word, mask uint64
		if sh := lo & 63; size < 64 && sh+size <= 64 {
			word, mask = lo>>6, (uint64(1)<<size-1)<<sh
		}
		if a.Kind == emu.AccessLoad {
			if mask != 0 && g.bits[word]&mask == mask {
				continue // all written
			}
			for o := lo; o < lo+size; o++ {
				if g.bits[o>>6]>>(o&63)&1 == 0 {
					c.warn(WarnUninitGlobal, isa.Global, in.PC, c.laneThread(in, lane), -1, Thread{}, g.base+o)
					break
				}
			}
			continue
		}
		// Stores and atomics write (atomics on the zero-filled bytes are
		// how accumulating outputs are meant: see the rule).
		if mask != 0 {
			g.bits[word] |= mask
			continue
		}
		for o := lo; o < lo+size; o++ {
			g.bits[o>>6] |= 1 << (o & 63)
		}
	}
}

// warn records an occurrence.
func (c *Checker) warn(k WarningKind, space isa.Space, pc int, t Thread, prevPC int, pt Thread, off uint64) {
	key := warnKey{k, pc, prevPC}
	if i, ok := c.index[key]; ok {
		e := &c.warns[i]
		e.w.Count++
		if len(e.steps) < MaxOccurrenceSteps {
			e.steps = append(e.steps, c.seq)
		}
		return
	}
	if len(c.warns) >= MaxWarnings {
		c.dropped++
		if c.dropStep == 0 {
			c.dropStep = c.seq
		}
		return
	}
	w := Warning{Kind: k, Space: space, PC: pc, Thread: t, PrevPC: prevPC, Offset: off, Count: 1, Step: c.seq}
	w.Line, w.Instruction = lineOf(c.prog, pc)
	if prevPC >= 0 {
		w.PrevThread = pt
		w.PrevLine, w.PrevInstruction = lineOf(c.prog, prevPC)
	}
	c.index[key] = len(c.warns)
	c.warns = append(c.warns, warnEntry{w: w, steps: []int64{c.seq}})
}

// lineOf returns pc's source line and its trimmed text (0 if unknown).
func lineOf(p *emu.Program, pc int) (int, string) {
	if p.Src == nil || pc < 0 || pc >= len(p.Spans) {
		return 0, ""
	}
	off := p.Spans[pc].Start
	return p.Src.Position(off).Line, lineText(p.Src.Text, int(off))
}
