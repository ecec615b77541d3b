package emu

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"sync/atomic"

	"github.com/ptxplayground/ptxplay/engine/isa"
)

// Config describes a launch.
type Config struct {
	Grid  [3]int
	Block [3]int
	// Cluster is the number of CTAs per cluster in each dimension; zero
	// (all three) means the kernel's .reqnctapercluster, else 1x1x1. The
	// CTAs of a cluster are resident together (cluster.go).
	Cluster [3]int
	// DynamicSharedBytes is the dynamic shared memory per CTA.
	DynamicSharedBytes int
	// MaxWarpInstructions stops the launch with StopLimit after this many
	// warp-instructions (0: no limit).
	MaxWarpInstructions int64
	// ResidentCTAs is how many CTAs are resident (scheduled) at once; the
	// rest wait in linear order. 0 means DefaultResidentCTAs.
	ResidentCTAs int
	// AllocSlack maps this many zero-filled bytes after every global
	// allocation (the module's globals and each buffer), as the CUDA
	// driver's page-granular allocations do, so that small overruns read
	// and write them instead of faulting. Only conformance tests that
	// replay kernels recorded on GPUs set it; with 0 (the default) every
	// byte past an allocation is unmapped.
	AllocSlack int
	// Scheduling is the model for divergent lanes of a warp; SchedDefault
	// picks it from the module's .target (Program.DefaultScheduling).
	Scheduling Scheduling
	// MaxDynamicBytes bounds the machine's dynamic state (dynamic.go): the
	// call frames of the resident warps, with the registers and .local
	// memory saved for recursive calls, and the cp.async copies in flight.
	// The call or cp.async that would pass it faults with
	// FaultMemoryLimit. 0: no bound.
	MaxDynamicBytes int64
	// MaxPrintfBytes bounds the printf output the launch keeps (each
	// line's text plus PrintfLineOverhead); later lines are dropped and
	// counted. 0: DefaultPrintfBytes.
	MaxPrintfBytes int64
}

// Limits of a launch.
const (
	DefaultResidentCTAs = 4
	MaxBlockThreads     = 1024
	MaxSharedBytes      = 228 << 10 // per CTA, as on Hopper
	MaxCallDepth        = 256
	MaxGridCTAs         = 1 << 31
	// MaxClusterCTAs bounds the CTAs of a cluster (Hopper's non-portable
	// cluster size).
	MaxClusterCTAs = isa.MaxClusterCTAs
)

// StopReason tells why Step or Run returned.
type StopReason uint8

const (
	StopStepped     StopReason = iota // the requested step completed
	StopDone                          // every thread of the grid exited
	StopFault                         // a fault stopped the launch (see Fault)
	StopBreakpoint                    // a warp reached a breakpoint (before executing it)
	StopLimit                         // the warp-instruction budget is spent
	StopInterrupted                   // Interrupt was called or the context ended
)

var stopNames = []string{"stepped", "done", "fault", "breakpoint", "limit", "interrupted"}

func (s StopReason) String() string { return stopNames[s] }

// Granularity of Step.
type Granularity uint8

const (
	StepWarpInstruction Granularity = iota // one warp-instruction, from the scheduler's next warp
	StepRound                              // until the scheduler wraps around its warps (one instruction of each ready warp from the first)
	StepToBarrier                          // until a barrier releases its warps (or the launch stops)
)

// Stats counts executed work.
type Stats struct {
	WarpInstructions   int64 `json:"warpInstructions"`
	ThreadInstructions int64 `json:"threadInstructions"`
}

// Machine runs one launch of a kernel. It is not safe for concurrent use:
// one goroutine owns it (Interrupt may be called from any goroutine).
type Machine struct {
	prog   *Program
	fn     *Function
	rf     *regFile
	cfg    Config
	Global GlobalMem

	constMem []byte
	params   []byte

	ctas     []*CTA  // resident CTAs, whole clusters in rank order
	free     []*CTA  // retired CTAs whose memory is reused
	warps    []*Warp // warps of resident CTAs, in scheduling order
	cursor   int
	nextCTA  int // the next CTA to launch, in launch order (ctaLinear)
	numCTAs  int
	finished int
	// The cluster shape (CTAs per cluster in each dimension), the CTAs per
	// cluster, and whether the launch gave it explicitly.
	cdim     [3]int
	csize    int
	explicit bool

	stats     Stats
	sleptNS   int64
	fault     *Fault
	done      bool
	dyn       int64 // bytes of dynamic state (dynamic.go)
	printf    printfLog
	interrupt atomic.Bool
	sf        sharedFilter // the shared-memory phase filter (sharedfilter.go)
	// sink receives the plain shared loads and stores while plainSink
	// (SetPlainSharedSink); addrCopy holds a load's addresses when its
	// destination is its address register.
	sink      SharedSink
	plainSink bool
	// obsQuiet: a global allocation is quiet (Alloc.quiet, setQuiet).
	obsQuiet bool
	addrCopy [32]uint64
	bp       []bool
	bpResume bool
	released bool // a barrier released during the current step
	brkpt    bool // a brkpt instruction executed

	obs       Observer // every installed observer; nil when none
	observers observerSet
	// What the installed observers ask for (observer.go): accesses, their
	// old bytes, events, tensor and shuffle details, every step.
	obsAcc, obsOld, obsEvents, obsDetails, obsEvery, obsMasks bool
	info                                                      StepInfo
	stepOpen                                                  bool // info holds the current instruction's report
	// The instruction issued last while observed (observeIssue): its
	// masks, CTA, warp, whether its mask changed, and its number
	// (LastIssued; 0: none since the machine was made or restored).
	curMask, curEmask uint32
	curLin, curWarp   int
	curChanged        bool
	lastIssued        int64
	// obsShared: an observer uses the accesses to other spaces than global
	// memory (obsAcc without ObserveGlobalOnly); the plain ld/st.shared
	// and the uniform loads (of parameters, constants) report them only
	// then.
	obsShared bool
	// obsUnordered: every observer collects accesses as a set
	// (ObserveUnordered).
	obsUnordered bool
	// obsTurns: an observer asked for events or mask changes, which
	// register-only instructions can report (a branch that diverges, a
	// path that reconverges, a change of the active lanes): a batched
	// Run's leads then run only converged warps with unchanged lanes and
	// stop before a branch that diverges (batch.go).
	obsTurns bool
	// obsLast: the number (StepInfo.Step) of the last step reported to
	// the observers; obsMuteTo: steps up to this number are not reported
	// (they were, before a batched Run replayed them: runBatched).
	obsLast, obsMuteTo int64
	// asyncAccess: the accesses being noted are the asynchronous proxy's
	// (Access.Async; asyncAccesses).
	asyncAccess bool
	asyncPC     int // the copy instruction of the async accesses (Access.AsyncPC)
	// The tensor report of the current instruction (StepInfo.Tensor) and
	// its rows' storage, reused.
	tensor      TensorStep
	tensorRows  []MatrixRow
	tensorSlots [2]int32    // movmatrix's d and a
	shuffle     ShuffleStep // StepInfo.Shuffle's storage

	mma *mmaScratch // working storage of the float mma executors

	cur   *Warp // the warp executing, for internal-error faults
	curPC int

	indep      bool          // independent thread scheduling (sched.go)
	syncGroup  uint32        // lanes executing the current warp-synchronous instruction together (independent scheduling)
	pendReconv []Event       // reconvergences found while scheduling, reported with the next step
	bwBlock    []BarrierWarp // the block barrierWarps hands out pieces of

	// Batched dispatch (batch.go): the work ahead of the schedule.
	ahead    int64 // instructions executed ahead, over all warps
	picked   int   // warps whose next group is picked
	consumed int   // consecutive turns consumed without dispatch
	// relWarps collects the warps a barrier releases during a batched
	// turn (when collect), whose leads start at the release (leadReleased).
	relWarps []*Warp
	collect  bool

	fast   fastPaths // the fast paths' switches and counters
	failed *Fault    // the fault of an instruction execOp executed, until settled
}

// fastPaths holds the switches of the fast paths (batched dispatch,
// leads, lines, diamonds, the unchecked observed ld/st), which tests turn
// off to compare results with and without them, and the counters with
// which tests check that a fast path ran.
type fastPaths struct {
	// Batched dispatch (batch.go): off for tests (noBatch), possible for
	// the kernel (batchProg).
	noBatch, batchProg     bool
	noReplay               bool  // a fault in a batched run is not replayed (SetFaultReplay)
	issueEnd               int64 // the warp-instruction count a batched IssueN ends at (0: none)
	replays                int   // batched runs replayed to a stop one instruction at a time
	pairs                  int64 // instruction-and-bra pairs leads ran fused (batch.go)
	lineRuns, lineInsts    int64 // leadLine's runs and the instructions they executed (batch.go)
	sharedLeads            int64 // shared-memory loads leads ran in quiet CTAs (quiet.go)
	releaseLeads           int64 // leads run at a barrier's release (leadReleased)
	localLeads             int64 // warp-level instructions leads ran (batch.go)
	obsShared4             int64 // full-warp observed 4-byte shared loads (memObservedLoadShared4)
	noLine                 bool  // leads never use leadLine (tests compare them with and without it)
	diamonds, diamondInsts int64 // leadDiamond's runs and the instructions they executed (diamond.go)
	splits                 int64 // diamonds leadSplit ran from their split
	oneInsts               int64 // instructions leadLine ran in onePath's loop (diamond.go)
	noDiamond              bool  // leadLine never uses leadDiamond (tests compare it with and without)
	// noObservedFast sends observed ld/st through the checked per-lane
	// path (tests compare the two).
	noObservedFast bool
}

// NewMachine prepares a launch of entry with cfg. Buffers are allocated
// with m.Global.Alloc and parameters set with SetParams before running.
func NewMachine(p *Program, entry string, cfg Config) (*Machine, error) {
	fn := p.Function(entry)
	if fn == nil || fn.Kind != 0 || !fn.HasBody {
		names := ""
		for _, e := range p.Entries() {
			if names != "" {
				names += ", "
			}
			names += e.Name
		}
		return nil, fmt.Errorf("no kernel named %q (kernels: %s)", entry, names)
	}
	if err := CheckConfig(p, fn, &cfg); err != nil {
		return nil, err
	}
	n := int64(cfg.Grid[0]) * int64(cfg.Grid[1]) * int64(cfg.Grid[2])
	if cfg.ResidentCTAs <= 0 {
		cfg.ResidentCTAs = DefaultResidentCTAs
	}
	m := &Machine{prog: p, fn: fn, rf: newRegFile(p, fn), cfg: cfg, numCTAs: int(n)}
	m.cdim, m.explicit = ClusterDims(fn, &cfg)
	m.csize = m.cdim[0] * m.cdim[1] * m.cdim[2]
	// Whole clusters are resident: at least one.
	m.cfg.ResidentCTAs = max(m.csize, (cfg.ResidentCTAs+m.csize-1)/m.csize*m.csize)
	m.constMem = append([]byte(nil), p.ConstImg...)
	m.params = make([]byte, fn.ParamSize)
	m.Global.slack = max(cfg.AllocSlack, 0)
	g := m.Global.Alloc("module globals", max(p.GlobalSize, len(p.GlobalImg)), 256)
	copy(g.Data, p.GlobalImg)
	if g.Base != GlobalBase {
		return nil, errors.New("internal: global segment misplaced")
	}
	m.bp = make([]bool, len(p.Ops))
	sched := cfg.Scheduling
	if sched == SchedDefault {
		sched = p.DefaultScheduling()
	}
	if _, err := ParseScheduling(string(sched)); err != nil {
		return nil, err
	}
	m.indep = sched == SchedIndependent
	m.cfg.Scheduling = sched
	m.fast.batchProg = m.batchProgram()
	return m, nil
}

// ConfigError is a launch configuration that CheckConfig rejects. Field
// names what is wrong: "grid", "block" or "dynamicSharedBytes".
type ConfigError struct {
	Field string
	Msg   string
}

func (e *ConfigError) Error() string { return e.Msg }

// CheckConfig checks cfg against the limits of a launch and the kernel's
// .reqntid and .maxntid: the checks NewMachine makes. Zero dimensions
// count as 1 (cfg is normalised in place). The error is a *ConfigError.
func CheckConfig(p *Program, fn *Function, cfg *Config) error {
	bad := func(field, format string, args ...any) error {
		return &ConfigError{Field: field, Msg: fmt.Sprintf(format, args...)}
	}
	if p.GlobalOver > 0 {
		return bad("module", "launch limit: the module's .global variables need %d bytes, more than the emulator's %d-byte global segment", p.GlobalOver, MaxGlobalSegment)
	}
	for i := range 3 {
		if cfg.Grid[i] == 0 {
			cfg.Grid[i] = 1
		}
		if cfg.Block[i] == 0 {
			cfg.Block[i] = 1
		}
		if cfg.Grid[i] < 0 {
			return bad("grid", "grid and block dimensions must be positive")
		}
		if cfg.Block[i] < 0 {
			return bad("block", "grid and block dimensions must be positive")
		}
	}
	// Each dimension is bounded before any product is taken, so that none
	// can wrap (at most 1024 x 1024 x 64 threads, 2^31 x 65535 x 65535
	// CTAs: both below 2^63).
	if err := checkDims("block", cfg.Block, [3]int{MaxBlockThreads, MaxBlockThreads, 64}); err != nil {
		return err
	}
	nt := cfg.Block[0] * cfg.Block[1] * cfg.Block[2]
	if nt > MaxBlockThreads {
		return bad("block", "block %dx%dx%d has %d threads; the limit is %d", cfg.Block[0], cfg.Block[1], cfg.Block[2], nt, MaxBlockThreads)
	}
	if r := fn.ReqNTID; r[0] > 0 && (r[0] != cfg.Block[0] || max(r[1], 1) != cfg.Block[1] || max(r[2], 1) != cfg.Block[2]) {
		return bad("block", "kernel %s requires a block of %dx%dx%d threads (.reqntid)", fn.Name, r[0], max(r[1], 1), max(r[2], 1))
	}
	if r := fn.MaxNTID; r[0] > 0 && nt > NTIDThreads(r) {
		return bad("block", "kernel %s allows at most %d threads per block (.maxntid)", fn.Name, NTIDThreads(r))
	}
	if err := checkDims("grid", cfg.Grid, [3]int{MaxGridCTAs, 65535, 65535}); err != nil {
		return err
	}
	if n := int64(cfg.Grid[0]) * int64(cfg.Grid[1]) * int64(cfg.Grid[2]); n > MaxGridCTAs {
		return bad("grid", "grid %dx%dx%d has %d CTAs; the limit is %d", cfg.Grid[0], cfg.Grid[1], cfg.Grid[2], n, MaxGridCTAs)
	}
	if cfg.DynamicSharedBytes < 0 || cfg.DynamicSharedBytes > MaxSharedBytes || p.DynSharedBase+cfg.DynamicSharedBytes > MaxSharedBytes {
		return bad("dynamicSharedBytes", "shared memory of %d + %d bytes (static + dynamic) exceeds the limit of %d", p.DynSharedBase, cfg.DynamicSharedBytes, MaxSharedBytes)
	}
	return checkCluster(fn, cfg)
}

// NTIDThreads is the number of threads of a .reqntid or .maxntid
// directive (missing and non-positive y and z count as 1), saturating at
// math.MaxInt: the directive's values are whatever the PTX says.
func NTIDThreads(r [3]int) int {
	n := uint64(max(r[0], 0))
	for _, d := range r[1:] {
		hi, lo := bits.Mul64(n, uint64(max(d, 1)))
		if hi != 0 || lo > math.MaxInt {
			return math.MaxInt
		}
		n = lo
	}
	return int(n)
}

// checkDims checks each dimension of a grid or block against its bound.
func checkDims(field string, d, bound [3]int) error {
	for i, n := range d {
		if n > bound[i] {
			return &ConfigError{Field: field, Msg: fmt.Sprintf("%s[%d] is %d; at most %d (a %s is at most %d x %d x %d)", field, i, n, bound[i], field, bound[0], bound[1], bound[2])}
		}
	}
	return nil
}

// Program returns the program being run.
func (m *Machine) Program() *Program { return m.prog }

// Kernel returns the function being launched.
func (m *Machine) Kernel() *Function { return m.fn }

// Config returns the launch configuration.
func (m *Machine) Config() Config { return m.cfg }

// Params returns the kernel parameter buffer (write it before running).
func (m *Machine) Params() []byte { return m.params }

// SetParams copies b into the kernel parameter buffer.
func (m *Machine) SetParams(b []byte) error {
	if len(b) != len(m.params) {
		return fmt.Errorf("kernel %s takes %d bytes of parameters, got %d", m.fn.Name, len(m.params), len(b))
	}
	copy(m.params, b)
	return nil
}

// ConstMem returns the constant bank.
func (m *Machine) ConstMem() []byte { return m.constMem }

// SetBreakpoint sets or clears a breakpoint at pc.
func (m *Machine) SetBreakpoint(pc int, on bool) {
	if pc >= 0 && pc < len(m.bp) {
		m.bp[pc] = on
	}
}

// ClearBreakpoints removes every breakpoint.
func (m *Machine) ClearBreakpoints() { clear(m.bp) }

// Interrupt asks a running Run to stop; safe from any goroutine.
func (m *Machine) Interrupt() { m.interrupt.Store(true) }

// Fault returns the fault that stopped the launch, or nil.
func (m *Machine) Fault() *Fault { return m.fault }

// Done reports whether every thread exited.
func (m *Machine) Done() bool { return m.done }

// Stats returns the work done so far.
func (m *Machine) Stats() Stats { return m.stats }

// Stopped reports whether the launch can make no more progress.
func (m *Machine) Stopped() bool { return m.done || m.fault != nil }

// SetMaxWarpInstructions changes the warp-instruction budget of a live
// machine (0: no limit). After a StopLimit, raising it lets Step and Run
// continue where the launch stopped; a budget at or below the work already
// done makes the next issue stop with StopLimit again.
func (m *Machine) SetMaxWarpInstructions(n int64) { m.cfg.MaxWarpInstructions = max(n, 0) }

// LimitReached reports whether the warp-instruction budget is spent while
// the launch could still make progress: the next Step, Issue or Run
// returns StopLimit.
func (m *Machine) LimitReached() bool {
	return !m.Stopped() && m.overBudget()
}

func (m *Machine) overBudget() bool {
	return m.cfg.MaxWarpInstructions > 0 && m.stats.WarpInstructions >= m.cfg.MaxWarpInstructions
}

// CTAs returns the resident CTAs.
func (m *Machine) CTAs() []*CTA { return m.ctas }

// Warps returns the warps of the resident CTAs in scheduling order.
func (m *Machine) Warps() []*Warp { return m.warps }

// CTAsFinished returns how many CTAs have completed.
func (m *Machine) CTAsFinished() int { return m.finished }

// NumCTAs returns the number of CTAs in the grid.
func (m *Machine) NumCTAs() int { return m.numCTAs }

func (m *Machine) ctaIndex(lin int) [3]int {
	g := m.cfg.Grid
	return [3]int{lin % g[0], lin / g[0] % g[1], lin / (g[0] * g[1])}
}

// fill makes whole clusters resident until ResidentCTAs CTAs are, or the
// grid is exhausted.
func (m *Machine) fill() {
	changed := false
	for len(m.ctas)+m.csize <= m.cfg.ResidentCTAs && m.nextCTA < m.numCTAs {
		var cl *Cluster
		for r := range m.csize {
			c := m.newCTA(m.ctaLinear(m.nextCTA))
			if r == 0 {
				// A reused CTA's one-CTA cluster retired with it: reuse
				// it too (several CTAs of a larger one may be reused in
				// different new clusters).
				var old *Cluster
				if m.csize == 1 {
					old = c.cluster
				}
				cl = m.newCluster(m.nextCTA/m.csize, old)
			}
			c.cluster, c.Rank = cl, r
			c.ClusterIdx = m.rankIndex(r)
			cl.CTAs = append(cl.CTAs, c)
			m.ctas = append(m.ctas, c)
			m.nextCTA++
		}
		changed = true
	}
	if changed {
		m.rebuildWarps()
	}
}

func (m *Machine) rebuildWarps() {
	m.warps = m.warps[:0]
	for _, c := range m.ctas {
		m.warps = append(m.warps, c.Warps...)
	}
	if m.cursor >= len(m.warps) {
		m.cursor = 0
	}
}

func (m *Machine) newCTA(lin int) *CTA {
	p := m.prog
	b := m.cfg.Block
	nt := b[0] * b[1] * b[2]
	nw := (nt + 31) / 32
	var c *CTA
	if n := len(m.free); n > 0 {
		// Reuse a retired CTA's memory: it has the same shape.
		c = m.free[n-1]
		m.free = m.free[:n-1]
		clear(c.shared)
		clear(c.local)
		c.bars = [16]barrier{}
		c.mbars = c.mbars[:0]
		c.done = false
		c.quiet = quietUnknown
	} else {
		c = &CTA{}
		c.shared = make([]byte, p.DynSharedBase+m.cfg.DynamicSharedBytes)
		c.local = make([]byte, p.LocalSize*nt)
		c.Warps = make([]*Warp, nw)
		for i := range c.Warps {
			c.Warps[i] = &Warp{rows: make([]uint64, m.rf.rows*32), preds: make([]uint32, len(p.Preds))}
		}
	}
	c.Idx, c.Linear = m.ctaIndex(lin), lin
	c.liveOK = false
	for i, w := range c.Warps {
		rows, preds, stack := w.rows, w.preds, w.stack[:0]
		clear(rows)
		clear(preds)
		*w = Warp{m: m, cta: c, ID: i, rows: rows, preds: preds, stack: stack, lastLane: -1, lastPC: -1, prevLane: -1, prevPC: -1}
		m.bindRegs(w)
		n := min(32, nt-i*32)
		w.valid = uint32(1<<n - 1)
		if n == 32 {
			w.valid = ^uint32(0)
		}
		for j, pi := range p.Preds {
			switch {
			case pi.Kind == RegConst && pi.Name == "true":
				w.preds[j] = ^uint32(0)
			case pi.Kind == RegSpecial && pi.Name == isa.Specials[isa.SRIsExplicitCluster].Name && m.explicit:
				w.preds[j] = ^uint32(0)
			}
		}
		m.fillSpecials(w)
		w.stack = append(w.stack, StackEntry{PC: int32(m.fn.Entry), RPC: -1, Mask: w.valid})
	}
	if m.sf.on {
		m.sfInit(c)
	}
	return c
}

func (m *Machine) fillSpecials(w *Warp) {
	if len(m.prog.Specials) == 0 {
		return
	}
	var tids [32][3]int
	for l := range tids {
		tids[l] = w.tid(l)
	}
	for _, s := range m.prog.Specials {
		m.fillSpecial(w, s, &tids)
	}
}

func (m *Machine) fillSpecial(w *Warp, s SpecialReg, tids *[32][3]int) {
	r := w.r(s.Reg)
	c := w.cta
	for l := 0; l < 32; l++ {
		t := tids[l]
		var v uint64
		switch s.SR {
		case isa.SRTidX, isa.SRTidY, isa.SRTidZ:
			v = uint64(t[s.SR-isa.SRTidX])
		case isa.SRNtidX, isa.SRNtidY, isa.SRNtidZ:
			v = uint64(m.cfg.Block[s.SR-isa.SRNtidX])
		case isa.SRLaneid:
			v = uint64(l)
		case isa.SRWarpid:
			v = uint64(w.ID)
		case isa.SRNwarpid:
			v = 64
		case isa.SRCtaidX, isa.SRCtaidY, isa.SRCtaidZ:
			v = uint64(c.Idx[s.SR-isa.SRCtaidX])
		case isa.SRClusteridX, isa.SRClusteridY, isa.SRClusteridZ:
			v = uint64(c.Idx[s.SR-isa.SRClusteridX] / m.cdim[s.SR-isa.SRClusteridX])
		case isa.SRNctaidX, isa.SRNctaidY, isa.SRNctaidZ:
			v = uint64(m.cfg.Grid[s.SR-isa.SRNctaidX])
		case isa.SRNclusteridX, isa.SRNclusteridY, isa.SRNclusteridZ:
			v = uint64(m.clusterGrid()[s.SR-isa.SRNclusteridX])
		case isa.SRClusterCtaidX, isa.SRClusterCtaidY, isa.SRClusterCtaidZ:
			v = uint64(c.Idx[s.SR-isa.SRClusterCtaidX] % m.cdim[s.SR-isa.SRClusterCtaidX])
		case isa.SRClusterNctaidX, isa.SRClusterNctaidY, isa.SRClusterNctaidZ:
			v = uint64(m.cdim[s.SR-isa.SRClusterNctaidX])
		case isa.SRClusterCtarank:
			i := c.Idx
			d := m.cdim
			v = uint64(i[0]%d[0] + i[1]%d[1]*d[0] + i[2]%d[2]*d[0]*d[1])
		case isa.SRClusterNctarank:
			v = uint64(m.csize)
		case isa.SRIsExplicitCluster:
			if m.explicit {
				v = 1
			}
		case isa.SRSmid:
			v = uint64(c.Linear % 132)
		case isa.SRNsmid:
			v = 132
		case isa.SRGridid:
			v = 1
		case isa.SRLanemaskEq:
			v = 1 << l
		case isa.SRLanemaskLe:
			v = uint64(uint32(1<<(l+1) - 1))
		case isa.SRLanemaskLt:
			v = 1<<l - 1
		case isa.SRLanemaskGe:
			v = uint64(^uint32(1<<l - 1))
		case isa.SRLanemaskGt:
			v = uint64(^uint32(1<<(l+1) - 1))
		case isa.SRDynamicSmemSize:
			v = uint64(m.cfg.DynamicSharedBytes)
		case isa.SRTotalSmemSize, isa.SRAggrSmemSize:
			v = uint64(len(c.shared))
		}
		r[l] = v
	}
}

// refreshDyn updates the dynamic special registers of w.
func (m *Machine) refreshDyn(w *Warp) {
	clk := uint64(m.stats.WarpInstructions)
	t := clk + uint64(m.sleptNS)
	for _, s := range m.prog.Specials {
		var v uint64
		switch s.SR {
		case isa.SRClock:
			v = clk & 0xffffffff
		case isa.SRClockHi:
			v = clk >> 32
		case isa.SRClock64:
			v = clk
		case isa.SRGlobaltimer:
			v = t
		case isa.SRGlobaltimerLo:
			v = t & 0xffffffff
		case isa.SRGlobaltimerHi:
			v = t >> 32
		default:
			continue
		}
		r := w.r(s.Reg)
		for l := range r {
			r[l] = v
		}
	}
}

// ---- scheduling ----

// recoverInternal turns a panic inside the emulator into an internal-error
// fault at the instruction being executed, so that no emulator bug can crash
// the program embedding the machine.
func (m *Machine) recoverInternal(r *StopReason) {
	p := recover()
	if p == nil {
		return
	}
	f := &Fault{Kind: FaultInternal, Message: fmt.Sprintf("internal emulator error: %v", p), PC: -1}
	if w := m.cur; w != nil {
		f.PC, f.CTA, f.Warp = m.curPC, w.cta.Idx, w.ID
		if a := w.activeMask(); a != 0 {
			l := firstLane(a)
			f.Lane, f.Thread, f.Lanes = l, w.tid(l), a
		}
	}
	m.fault = nil
	m.setFault(f)
	*r = StopFault
}

// Step advances the launch by one unit of g.
func (m *Machine) Step(g Granularity) (r StopReason) {
	defer m.recoverInternal(&r)
	if r, stop := m.stopped(); stop {
		return r
	}
	switch g {
	case StepWarpInstruction:
		return m.issueNext(false)
	case StepRound:
		// A round ends where the round-robin scheduler wraps around: the
		// next warp to issue comes at or before the one just issued (CTAs
		// in linear order, then warps). From the first warp, that is one
		// instruction of every ready warp.
		for i := 0; ; i++ {
			w := m.NextWarp()
			if r := m.issueNext(i > 0); r != StopStepped || w == nil {
				return r
			}
			if next := m.NextWarp(); next == nil || !warpAfter(next, w) {
				return StopStepped
			}
		}
	default:
		m.released = false
		for !m.released {
			if r := m.issueNext(true); r != StopStepped {
				return r
			}
		}
		return StopStepped
	}
}

// warpAfter reports whether the scheduler visits a after b within a round.
func warpAfter(a, b *Warp) bool {
	ca, cb := a.CTA().Linear, b.CTA().Linear
	return ca > cb || (ca == cb && a.ID > b.ID)
}

// Issue issues one warp-instruction from the scheduler's next warp. With
// checkBreakpoints a breakpoint at that warp's pc stops first (and the next
// Issue executes it); Step never stops at breakpoints.
func (m *Machine) Issue(checkBreakpoints bool) (r StopReason) {
	defer m.recoverInternal(&r)
	if r, stop := m.stopped(); stop {
		return r
	}
	return m.issueNext(checkBreakpoints)
}

// Run runs until the launch completes, faults, reaches a breakpoint, spends
// its budget, or is interrupted (by Interrupt or ctx).
func (m *Machine) Run(ctx context.Context) (r StopReason) {
	defer m.recoverInternal(&r)
	if r, stop := m.stopped(); stop {
		return r
	}
	m.interrupt.Store(false)
	if m.batchable() {
		return m.runBatched(ctx)
	}
	return m.runPlain(ctx)
}

func (m *Machine) stopped() (StopReason, bool) {
	switch {
	case m.fault != nil:
		return StopFault, true
	case m.done:
		return StopDone, true
	}
	return 0, false
}

// issueNext issues one warp-instruction from the next ready warp in
// round-robin order. checkBP makes a breakpoint at the warp's pc stop first.
// When the budget is spent it executes nothing, but still settles what
// needs no instruction (the launch completing, a deadlock) before it
// reports StopLimit, so that a launch that has in fact ended is reported
// as ended, and one that has not continues exactly where it stopped once
// the budget is raised.
func (m *Machine) issueNext(checkBP bool) StopReason {
	if m.fault != nil {
		return StopFault
	}
	limit := m.overBudget()
	w, i := m.readyScan()
	if w == nil {
		var r StopReason
		if w, i, r = m.nextReady(); w == nil {
			return r
		}
	}
	if limit {
		return StopLimit
	}
	if m.indep && len(w.stack) > 1 && !m.bpResume {
		// Pick the group to issue (independent scheduling); a
		// breakpoint stop keeps it for the issue that resumes. When
		// none can issue (its groups wait) the warp waits, and the
		// next ready warp issues.
		if !w.schedule() {
			return m.issueNext(checkBP)
		}
	}
	pc := w.stack[len(w.stack)-1].PC
	if checkBP && m.bp[pc] {
		if m.bpResume {
			m.bpResume = false
		} else {
			m.cursor = i
			m.bpResume = true
			return StopBreakpoint
		}
	}
	m.bpResume = false
	m.passTurn(i)
	m.exec(w)
	return m.issued()
}

// nextReady returns the next ready warp in round-robin order from the
// cursor and its index in m.warps, filling the machine with CTAs and
// retiring finished ones while none is ready; when none is left it
// returns nil and why: StopDone, or StopFault on a deadlock. issueNext
// and issueBatched issue from it when their inlined readyScan finds no
// ready warp.
func (m *Machine) nextReady() (*Warp, int, StopReason) {
	for {
		if len(m.warps) == 0 {
			m.fill()
			if len(m.warps) == 0 {
				m.done = true
				return nil, 0, StopDone
			}
		}
		if m.done {
			return nil, 0, StopDone
		}
		if w, i := m.readyScan(); w != nil {
			return w, i, StopStepped
		}
		// No ready warp: retire finished CTAs, detect deadlocks.
		if !m.retire() {
			return nil, 0, StopFault
		}
		if m.done {
			return nil, 0, StopDone
		}
	}
}

// readyScan returns the first ready warp of m.warps in round-robin order
// from the cursor and its index, else nil: nextReady's scan, which
// issueNext and issueBatched inline where every turn counts (m.done is
// set only when no warp is ready, so a warp it finds is nextReady's).
func (m *Machine) readyScan() (*Warp, int) {
	ws := m.warps
	i := m.cursor
	for range ws {
		if i >= len(ws) {
			i = 0
		}
		if w := ws[i]; w.State == WarpReady {
			return w, i
		}
		i++
	}
	return nil, 0
}

// passTurn moves the cursor past the warp at index i, whose turn it is.
func (m *Machine) passTurn(i int) {
	m.cursor = i + 1
	if m.cursor >= len(m.warps) {
		m.cursor = 0
	}
}

// issued is how an issue ends after its warp executed: at the fault or
// the brkpt it reached, else stepped.
func (m *Machine) issued() StopReason {
	if m.fault != nil {
		return StopFault
	}
	if m.brkpt {
		m.brkpt = false
		return StopBreakpoint
	}
	return StopStepped
}

// retire removes finished CTAs and refills; it reports false on deadlock.
// The CTAs of the last wave stay resident (finished) so that the final state
// can be inspected; the launch is done when they all finished.
func (m *Machine) retire() bool {
	all := m.ctas
	kept := all[:0]
	// The resident CTAs are whole clusters, in rank order: a cluster
	// retires when every CTA of it has finished (a finished CTA's shared
	// memory stays while its peers run), and is deadlocked when none of
	// its warps can issue and some wait.
	for i := 0; i < len(all); i += m.csize {
		group := all[i:min(i+m.csize, len(all))]
		live, waiting := 0, 0
		for _, c := range group {
			cl, cw := 0, 0
			for _, w := range c.Warps {
				switch w.Readiness() {
				case Runnable:
					cl++
				case Wakeable:
					w.wake()
					cl++
				case Blocked:
					cw++
				}
			}
			if cl == 0 && cw == 0 && !c.done {
				c.done = true
				m.finished++
			}
			live += cl
			waiting += cw
		}
		switch {
		case live == 0 && waiting == 0:
			if m.nextCTA >= m.numCTAs {
				kept = append(kept, group...)
				continue
			}
			for _, c := range group {
				m.leaveCTA(c)
				if !m.obsEvery {
					// Reuse its memory for the next CTA, unless an observer
					// follows every step (a debugger, which may keep the
					// CTAs it was shown and look at them later).
					m.free = append(m.free, c)
				}
			}
			continue
		case live == 0:
			m.deadlock(group)
			return false
		}
		kept = append(kept, group...)
	}
	clear(all[len(kept):])
	m.ctas = kept
	m.rebuildWarps()
	m.fill()
	done := m.nextCTA >= m.numCTAs
	for _, c := range m.ctas {
		done = done && c.done
	}
	m.done = done
	return true
}

func (c *CTA) liveThreads() int {
	if c.liveOK {
		return c.live
	}
	n := 0
	for _, w := range c.Warps {
		n += bits.OnesCount32(w.valid &^ w.exited)
	}
	c.live, c.liveOK = n, true
	return n
}

// setFault records f and marks the faulting warp WarpFaulted; in a
// deadlock the warps keep waiting (WarpWaiting).
func (m *Machine) setFault(f *Fault) {
	if m.fault == nil {
		m.fault = f
	}
	if f.Kind == FaultDeadlock {
		return
	}
	for _, c := range m.ctas {
		for _, w := range c.Warps {
			if w.cta.Idx == f.CTA && w.ID == f.Warp && w.State != WarpExited {
				w.State = WarpFaulted
			}
		}
	}
}

// exec issues the instruction at w's pc.
func (m *Machine) exec(w *Warp) {
	if len(w.stack) == 1 && m.obs == nil && len(m.pendReconv) == 0 {
		m.execOne(w)
		return
	}
	if !m.indep {
		w.pick = PickStack
	} else if len(w.stack) == 1 {
		w.pick = PickOnly
	}
	top := &w.stack[len(w.stack)-1]
	pc := top.PC
	op := &m.prog.Ops[pc]
	m.cur, m.curPC = w, int(pc)
	mask := top.Mask
	var joined uint32
	var pre *Fault // the instruction cannot execute (diverged barriers disagree)
	if m.indep && len(w.stack) > 1 {
		// A warp-synchronous instruction executes once for the groups of
		// its membermask that wait at it (independent scheduling).
		if g, _, ok := w.syncJoin(len(w.stack)-1, w.frameBase(), false); ok {
			m.syncGroup = g
			joined = g &^ mask
			mask = g
		} else if w.atBarrier(top) {
			// So does a barrier, for every group at one: the warp's
			// threads all wait there, and the warp arrives.
			joined = w.barrierLanes(w.frameBase()) &^ mask
			if joined != 0 {
				pre = w.barrierAgree(w.frameBase())
			}
			mask |= joined
			m.syncGroup = mask
		}
	}
	emask := mask
	if op.Guard >= 0 {
		p := w.preds[op.Guard]
		if op.GuardNeg {
			p = ^p
		}
		emask &= p
	}
	if op.Dyn {
		m.refreshDyn(w)
	}
	if m.obs != nil {
		m.observeIssue(w, int(pc), mask, emask)
	}
	if len(m.pendReconv) > 0 {
		for _, e := range m.pendReconv {
			m.event(e)
		}
		m.pendReconv = m.pendReconv[:0]
	}
	w.issued++
	w.lastPC, w.lastMask = int(pc), mask
	m.stats.WarpInstructions++
	m.stats.ThreadInstructions += int64(bits.OnesCount32(mask))
	ok := true
	switch {
	case pre != nil:
		// The instruction does not execute.
		m.execFault(w, op, pc, emask, pre)
	case op.Ctrl:
		if ok = m.execOp(w, op, emask); ok && joined != 0 {
			w.advanceJoined(joined)
		}
	default:
		if emask != 0 {
			ok = m.execOp(w, op, emask)
		}
		if ok {
			if joined != 0 {
				w.advanceJoined(joined)
			}
			top.PC++
			if top.PC == top.RPC {
				w.unwind()
			}
		}
	}
	m.syncGroup = 0
	if !ok {
		m.settleFault(pc, emask)
	}
	if len(w.held) > 0 {
		// Groups of the warp wait: it goes on waiting when none of its
		// groups can issue.
		w.holdSettle()
	}
	if m.stepOpen {
		m.endStep(w)
	}
}

// execOne is exec for a warp with one group (one stack entry) and no
// reconvergence event to report: exec without the steps for groups that
// execute together.
func (m *Machine) execOne(w *Warp) {
	w.pick = PickOnly
	if !m.indep {
		w.pick = PickStack
	}
	top := &w.stack[0]
	pc := top.PC
	op := &m.prog.Ops[pc]
	m.cur, m.curPC = w, int(pc)
	mask := top.Mask
	emask := mask
	if op.Guard >= 0 {
		p := w.preds[op.Guard]
		if op.GuardNeg {
			p = ^p
		}
		emask &= p
	}
	if op.Dyn {
		m.refreshDyn(w)
	}
	if m.obs != nil && (m.obsEvery || m.obsTurns || m.prog.lead[pc] == leadStop && (m.obsShared || m.obsDetails || !m.prog.silent[pc])) {
		// Observed, unless it is a register-only instruction or a bra
		// (no access, no fault) and no observer follows every step,
		// events or changes of active lanes: a lead runs those so too;
		// nor one that can report nothing to observers that take only
		// global accesses (Program.silent).
		m.observeIssue(w, int(pc), mask, emask)
	}
	w.issued++
	w.lastPC, w.lastMask = int(pc), mask
	m.stats.WarpInstructions++
	m.stats.ThreadInstructions += int64(bits.OnesCount32(mask))
	ok := true
	if op.Ctrl {
		ok = m.execOp(w, op, emask)
	} else {
		if emask != 0 {
			ok = m.execOp(w, op, emask)
		}
		if ok {
			top.PC++
			if top.PC == top.RPC {
				w.unwind()
			}
		}
	}
	m.syncGroup = 0
	if !ok {
		m.settleFault(pc, emask)
	}
	if len(w.held) > 0 {
		w.holdSettle()
	}
	if m.stepOpen {
		m.endStep(w)
	}
}

// execOp executes op for the lanes of emask of w, keeps the fault it
// returns in m.failed and reports whether it ran without one. It is the
// one place where the engine executes an instruction: exec and execOne,
// and every fast path (the leads of batch.go, the diamonds and one-path
// loops of diamond.go) call it, and each settles a kept fault
// (settleFault) when its instruction or its lead ends, before anything
// reads m.fault; an instruction that faulted does not advance the pc.
// The fast paths run only instructions that cannot fault (register-only
// ops and direct branches, TestLeadOpsNeverFault), or loads they check
// first; should one fault all the same, the fault is recorded, the lead
// stops at it where its loop can, and the batched run replays to it one
// instruction at a time (TestFastPathFaultIsRecorded). It stays small
// enough to be inlined into the fast paths' loops (go build -gcflags=-m
// reports it, at the budget's edge: keeping only the fault, not its pc,
// is what lets it inline with the early exit that the leads' loops take).
func (m *Machine) execOp(w *Warp, op *Op, emask uint32) (ok bool) {
	if f := op.Exec(w, op, emask); f != nil {
		m.failed = f
		return false
	}
	return true
}

// settleFault records the fault execOp kept (execFault), raised by the
// instruction at pc executed by the lanes of emask: the instruction's
// executing lanes where the caller knows them (exec, execOne, leadOther),
// else 0 (a lead's register-only instructions, whose faults have no
// address, so that the faulting lane is the only one).
func (m *Machine) settleFault(pc int32, emask uint32) {
	f := m.failed
	m.failed = nil
	m.execFault(m.cur, &m.prog.Ops[pc], pc, emask, f)
}

// execFault records the fault f of op (at pc, executed by the lanes of
// emask).
func (m *Machine) execFault(w *Warp, op *Op, pc int32, emask uint32, f *Fault) {
	if f.PC < 0 {
		f.PC = int(pc)
	}
	if f.Lanes == 0 && f.Lane >= 0 && f.Lane < 32 {
		f.Lanes = w.faultLanes(op, emask, f)
	}
	m.setFault(f)
	if m.obs != nil {
		m.openStep()
		m.info.Fault = f
	}
}

// unwind pops stack entries that reconverged or emptied, completing calls
// whose lanes all returned; an empty stack means the warp exited.
//
// The paths of a divergent region are entries that end at the region's
// reconvergence pc, above the entry that waits there. The warp reconverges
// when the last of them is popped and that entry resumes with the merged
// lanes: only then is EvReconverge reported (a path that arrives while
// another is still pending reports nothing).
func (w *Warp) unwind() {
	for len(w.stack) > 0 {
		i := len(w.stack) - 1
		t := w.stack[i]
		if t.Mask != 0 && (t.PC != t.RPC || t.PC < 0 || i == 0) {
			w.stack[i].parent = false // the top is never waiting for paths
			return
		}
		if t.frame > 0 {
			// The first entry of a callee: the call completes.
			if t.Mask != 0 {
				return
			}
			w.stack = w.stack[:i]
			w.finishCall(int(t.frame) - 1)
			continue
		}
		w.stack = w.stack[:i]
		if w.m.obsEvents && i > 0 && t.RPC >= 0 {
			// The entry below is either another pending path of the same
			// region (it ends at the same pc) or the entry waiting there.
			if u := w.stack[i-1]; u.PC == t.RPC && u.RPC != t.RPC && u.Mask != 0 {
				w.m.event(Event{Kind: EvReconverge, PC: int(u.PC), Mask: u.Mask})
			}
		}
	}
	w.State = WarpExited
	w.m.warpExited(w)
}

func (m *Machine) warpExited(w *Warp) {
	// Barriers that wait for every live thread may now be complete.
	for id := range w.cta.bars {
		if len(w.cta.bars[id].waiting) > 0 {
			m.checkBarrier(w.cta, id)
		}
	}
}

// removeLanes takes lanes out of stack entries from index from upward.
func (w *Warp) removeLanes(lanes uint32, from int) {
	for i := from; i < len(w.stack); i++ {
		w.stack[i].Mask &^= lanes
	}
}

// advanceJoined moves the groups that executed the current instruction
// with the top one (their lanes are joined) past it; those now at their
// reconvergence point are settled at the next pick.
func (w *Warp) advanceJoined(joined uint32) {
	for j := w.frameBase(); j < len(w.stack); j++ {
		if g := &w.stack[j]; !g.parent && !g.call && g.Mask&joined != 0 {
			g.PC++
		}
	}
}
