package launch

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ptxplayground/ptxplay/engine/analysis"
	"github.com/ptxplayground/ptxplay/engine/emu"
	"github.com/ptxplayground/ptxplay/engine/isa"
)

// Parallel runs.
//
// A launch whose CTAs do not communicate through global memory gives the
// same result whatever order its CTAs run in, so its CTAs can run on
// several machines at once. RunWith with Parallel set does that, and its
// result is bit-identical to the sequential run's (Run): buffers, status,
// statistics, the checker's warnings and the memory analysis. When that
// cannot be guaranteed it runs the launch sequentially instead, and the
// ParallelReport says why.
//
// The plan: at most parallelMaxSegments workers, and only as many as the
// parallel run's memory budget holds: each worker's machine (the fixed
// state of its resident CTAs, and up to parallelDynamicBytes of call
// frames and cp.async copies in flight, past which its segment faults and
// the launch runs sequentially) and its copy of global memory, all
// workers together within parallelMemoryBudget (ParallelReport.Note says
// when fewer workers than asked for run). The grid's CTAs are split into
// contiguous ranges (segments) of whole clusters in launch order
// (emu.Machine.LaunchOrder; with one-CTA clusters, the linear order).
// The CTAs of a cluster communicate through distributed shared memory
// (.shared::cluster, mapa) and the cluster barrier, and a cluster is
// resident as a whole: the round-robin scheduler visits its warps in the
// same order whichever other clusters share the machine, so a cluster is
// the unit of work, as a CTA is without clusters. Segments end
// on wave boundaries (ResidentCTAs CTAs are resident at a time) where
// there are at least as many waves as workers, long ones first and short
// ones last (guidedBounds), at most parallelMaxSegments; the workers take
// them in order from a queue, so a worker on a busier core takes fewer,
// and the workers finish close together. Each worker runs its segments on
// a machine of its own (emu.Machine.RestrictCTAs, then Relaunch for each
// further segment) with a private copy of global memory, so no two
// goroutines touch the same memory. A CTA
// executes the same instructions in the same order on such a machine as in
// the sequential run, whichever CTAs share the machine (see
// RestrictCTAs), so a segment computes what it computes in the sequential
// run as long as the global memory it reads holds the same bytes. Each
// worker records, per allocation, a bitmap of the global bytes its
// segment read and wrote (4 KiB pages allocated on first use, so bounded
// by the bytes touched); when it ends, the pages it wrote are kept, and
// put back to the launch's initial bytes in the worker's copy before its
// next segment starts.
//
// The sequential run executes the segments one after the other, except
// that the CTAs of a wave split between two segments run interleaved.
// After the workers finish, for every pair of segments i < j:
//
//   - j must not have read a byte i wrote (sequentially, j would have read
//     i's value);
//   - if i and j share a wave, i must also not have read a byte j wrote,
//     and they must not have written the same byte (their order within the
//     wave is the sequential schedule's).
//
// Then every segment's reads saw the initial memory in both runs, and the
// final memory is the initial memory overwritten by each segment's writes
// in segment order (the last segment to write a byte writes it last in the
// sequential run too): that is how the result is merged. Reads of bytes a
// later segment writes, and writes of the same byte by segments in
// different waves, are allowed.
//
// The launch runs sequentially instead when:
//
//   - the kernel (or a function it calls) uses an instruction whose
//     outcome depends on the order of CTAs, or that communicates outside
//     global memory: global or generic atom and red (an atomic counter
//     shared by CTAs would fail the check anyway: the screen saves the
//     wasted parallel run), %clock and %globaltimer (they count the
//     launch's warp-instructions), bulk and tensor copies, st.async and red.async, griddepcontrol, textures and
//     surfaces;
//   - a segment faults: the fault and the memory the sequential run leaves
//     are those of the first fault in its schedule, which only it can say;
//   - the segments need more than maxWarpInstructions together (the
//     sequential run would stop at the limit);
//   - the checker (Check) finds anything in a segment: warnings name the
//     warp-instruction of the sequential schedule they happened at, so the
//     sequential run reports them (a launch without warnings has none in
//     either run: a cluster's shared-memory accesses and barriers are its own,
//     and a read of global memory another segment wrote is a conflict);
//   - the dynamic check above fails (a cross-CTA read), or there is one
//     wave of CTAs or fewer CTAs than two, or one worker.
//
// With the checker, a program the shared-memory phase filter can follow
// runs each segment as the sequential run does (runObserved): with the
// filter and a checker of global memory only; a segment the filter
// suspects runs again, on a fresh machine, with the checker proper.
//
// Workers check their reads against the write sets of the segments that
// already finished every 20 ms and stop early on a conflict, so a CTA that waits in a loop for a flag an earlier CTA sets
// (which ends sequentially) does not spin forever.

// RunOptions configures RunWith.
type RunOptions struct {
	// Check runs the race and memory checker (Result.Checked, Warnings).
	Check bool
	// Analyze adds the per-line memory analysis (Result.Memory).
	Analyze bool
	// Parallel runs independent CTAs on several machines at once (see
	// above); Workers is how many (0: runtime.GOMAXPROCS).
	Parallel bool
	Workers  int
	// NoFilter runs the checker proper from the start, without the
	// shared-memory phase filter's first run (see runObserved; tests
	// compare the two).
	NoFilter bool
}

// ParallelReport says how RunWith ran a launch with Parallel set.
type ParallelReport struct {
	// Parallel is true when the result comes from the parallel run.
	Parallel bool
	// Workers and Segments: the machines the parallel run used (0 when it
	// was not tried).
	Workers, Segments int
	// Cluster is the CTAs per cluster: segments are whole clusters (1:
	// single CTAs).
	Cluster int
	// Reason says why the launch ran sequentially ("" when it did not).
	Reason string
	// Note says why fewer workers were used than asked for (RunOptions.
	// Workers), when a bound of the parallel run lowered them: the cap on
	// workers and segments or the memory budget.
	Note string
	// Filtered is how many segments ran with the shared-memory phase
	// filter (the checker on, a program it can follow); Rechecked, how
	// many of them it suspected, which ran again with the checker proper.
	// Both are counted for a parallel result only.
	Filtered, Rechecked int
}

func (r *ParallelReport) String() string {
	switch {
	case r.Parallel && r.Cluster > 1:
		return fmt.Sprintf("ran in parallel: %d segments of whole %d-CTA clusters on %d workers", r.Segments, r.Cluster, r.Workers)
	case r.Parallel && r.Filtered > 0:
		return fmt.Sprintf("ran in parallel: %d segments on %d workers; %d of them checked with the shared-memory phase filter, %d of those again with the checker proper", r.Segments, r.Workers, r.Filtered, r.Rechecked)
	case r.Parallel:
		return fmt.Sprintf("ran in parallel: %d segments on %d workers", r.Segments, r.Workers)
	case r.Workers > 0:
		return fmt.Sprintf("ran sequentially after a parallel attempt (%d segments on %d workers): %s", r.Segments, r.Workers, r.Reason)
	}
	return "ran sequentially: " + r.Reason
}

// parallelMemoryBudget bounds the memory the workers' machines hold at
// once: each one's copy of global memory, the fixed state of its resident
// CTAs and its dynamic state, bounded by parallelDynamicBytes;
// parallelKeptBudget, over the size of global memory, the number of
// segments (each keeps bitmaps of the bytes it touched and the pages it
// wrote until the launch ends).
const (
	parallelMemoryBudget = 2 << 30
	parallelKeptBudget   = 512 << 20
	parallelDynamicBytes = 16 << 20
)

// A launch is split into at most parallelMaxSegments segments, run by at
// most as many workers.
const parallelMaxSegments = 64

// parallelTick is how often the workers check their segments while they
// run.
const parallelTick = 20 * time.Millisecond

// RunWith runs the launch to the end like Run, with the checker and the
// memory analysis when opt asks for them, and with opt.Parallel on several
// machines when the result cannot depend on it (see above). The report is
// nil unless opt.Parallel. A launch run in parallel leaves its machine
// unstarted (its buffers hold the result); its statistics are in the
// result. An interrupted parallel run reports the launch as it was before
// it started. RunWith must be called on a launch that has not run.
func (l *Launch) RunWith(ctx context.Context, opt RunOptions) (*Result, *ParallelReport, error) {
	if !opt.Parallel {
		res, err := l.runObserved(ctx, opt)
		return res, nil, err
	}
	workers := opt.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	rep := &ParallelReport{Cluster: l.m.ClusterCTAs()}
	asked := opt.Workers
	segs, workers, reason := l.planSegments(workers)
	if asked > 0 && reason == "" {
		rep.Note = l.workersNote(asked)
	}
	if reason != "" {
		rep.Reason = reason
		res, err := l.runObserved(ctx, opt)
		return res, rep, err
	}
	rep.Workers, rep.Segments = workers, len(segs)
	if reason := l.runSegments(ctx, segs, workers, opt); reason != "" {
		if err := ctx.Err(); err != nil {
			rep.Reason = "interrupted"
			return l.Result(), rep, err
		}
		rep.Reason = reason
		res, err := l.runObserved(ctx, opt)
		return res, rep, err
	}
	rep.Parallel = true
	for _, s := range segs {
		if s.filter || s.rechecked {
			rep.Filtered++
		}
		if s.rechecked {
			rep.Rechecked++
		}
	}
	return l.mergeSegments(segs, opt), rep, nil
}

// runObserved runs the launch sequentially with the observers opt asks for.
//
// With the checker, a program the shared-memory phase filter can follow
// (emu.SharedFilterable) runs first with the filter and a checker of global
// memory only (analysis.Checker.LeaveShared): when the filter finds the
// run clean, the checker proper would have found nothing in shared memory,
// and that run's result is the result. Otherwise (a suspect access, which
// stops that run at once, or a fault) the launch is prepared again and run
// with the checker proper, which decides.
func (l *Launch) runObserved(ctx context.Context, opt RunOptions) (*Result, error) {
	if opt.Check && !opt.NoFilter && l.m.EnableSharedFilter() {
		res, err := l.runFiltered(ctx, opt)
		if suspect, _ := l.m.SharedFilterSuspect(); !suspect && l.m.Fault() == nil {
			return res, err
		}
		if err := ctx.Err(); err != nil {
			return res, err
		}
		fresh, err := Prepare(l.prog, l.spec)
		if err != nil {
			return nil, err
		}
		*l = *fresh
	}
	return l.runChecked(ctx, opt)
}

// runFiltered is runObserved's run with the shared-memory phase filter on.
func (l *Launch) runFiltered(ctx context.Context, opt RunOptions) (*Result, error) {
	var agg *analysis.Aggregator
	if opt.Analyze {
		agg = analysis.NewAggregator(l.prog)
		l.m.AddObserver(agg)
	}
	chk := l.NewChecker()
	chk.LeaveShared()
	l.m.AddObserver(chk)
	if agg != nil {
		// The memory analysis takes the plain shared loads and stores
		// without their reports, as the filter does.
		l.m.SetPlainSharedSink(agg)
	}
	res, err := l.Run(ctx)
	if agg != nil {
		res.Memory = agg.Lines()
	}
	res.Checked = true
	res.Warnings = chk.Warnings()
	res.WarningsDropped = chk.Dropped()
	return res, err
}

// runChecked runs the launch sequentially with the observers opt asks
// for, the checker proper among them.
func (l *Launch) runChecked(ctx context.Context, opt RunOptions) (*Result, error) {
	var agg *analysis.Aggregator
	if opt.Analyze {
		agg = analysis.NewAggregator(l.prog)
		l.m.AddObserver(agg)
	}
	var chk *analysis.Checker
	if opt.Check {
		chk = l.NewChecker()
		l.m.AddObserver(chk)
	}
	res, err := l.Run(ctx)
	if agg != nil {
		res.Memory = agg.Lines()
	}
	if chk != nil {
		res.Checked = true
		res.Warnings = chk.Warnings()
		res.WarningsDropped = chk.Dropped()
	}
	return res, err
}

// segment is a contiguous range of CTAs run on a machine of its own.
type segment struct {
	first, end   int // linear CTA indices [first, end)
	wave0, wave1 int // the waves of its first and last CTA
	trk          *tracker
	chk          *analysis.Checker
	agg          *analysis.Aggregator
	// filter: the segment runs with the shared-memory phase filter (and
	// chk leaves shared memory to it); rechecked: the filter suspected
	// it, and it ran again with the checker proper.
	filter, rechecked bool
	// After the run: the work done, and a copy of every 4 KiB page of
	// global memory it wrote to (per allocation, as the tracker's pages).
	stats emu.Stats
	pages [][]*[pageBytes]byte
}

func (s *segment) name() string {
	if s.end-s.first == 1 {
		return fmt.Sprintf("CTA %d", s.first)
	}
	return fmt.Sprintf("CTAs %d-%d", s.first, s.end-1)
}

// planSegments splits the grid into segments for at most workers
// workers, or says why the launch must run sequentially. It returns the
// number of workers to use.
func (l *Launch) planSegments(workers int) ([]*segment, int, string) {
	m := l.m
	if m.Stats().WarpInstructions > 0 || m.Stopped() || len(m.CTAs()) > 0 {
		return nil, 0, "the launch has already started"
	}
	if why := sequentialOnly(l.prog, m.Kernel()); why != "" {
		return nil, 0, why
	}
	// The unit of work is a cluster (its CTAs communicate through
	// distributed shared memory and the cluster barrier): segments are
	// ranges of whole clusters in launch order (RestrictCTAs).
	n, cs := m.NumCTAs(), m.ClusterCTAs()
	units := n / cs
	gb := max(GlobalBytes(l.prog, l.spec), 1)
	byMemory := int(parallelMemoryBudget / l.workerBytes())
	workers = min(workers, parallelMaxSegments, byMemory, units)
	if workers < 2 {
		switch {
		case units < 2 && cs > 1:
			return nil, 0, "the grid has one cluster"
		case n < 2:
			return nil, 0, "the grid has one CTA"
		case byMemory < 2:
			return nil, 0, fmt.Sprintf("two workers' machines and copies of global memory (%d bytes each) would pass the parallel run's memory budget of %d bytes", l.workerBytes(), parallelMemoryBudget)
		case runtime.GOMAXPROCS(0) < 2:
			return nil, 0, "one worker (GOMAXPROCS is 1)"
		}
		return nil, 0, "one worker"
	}
	// More segments than workers balance the work when CTAs or cores
	// differ in speed; each keeps bitmaps of the bytes it touched and
	// the pages it wrote until the end. Segments end on wave boundaries
	// (then they share no wave) unless there are fewer waves than
	// workers. ResidentCTAs is a multiple of the cluster size, so wave
	// boundaries are cluster boundaries.
	r := m.Config().ResidentCTAs
	waves := (n + r - 1) / r
	most := max(min(parallelMaxSegments, n, int(parallelKeptBudget/gb)), workers)
	var bounds []int
	if waves >= workers {
		bounds = guidedBounds(waves, workers, most)
		for k := range bounds {
			bounds[k] = min(bounds[k]*r, n)
		}
	} else {
		bounds = make([]int, workers+1)
		for k := range bounds {
			bounds[k] = k * units / workers * cs
		}
	}
	chunks := len(bounds) - 1
	segs := make([]*segment, 0, chunks)
	for k := range chunks {
		if bounds[k] == bounds[k+1] {
			continue
		}
		segs = append(segs, &segment{first: bounds[k], end: bounds[k+1], wave0: bounds[k] / r, wave1: (bounds[k+1] - 1) / r})
	}
	return segs, min(workers, len(segs)), ""
}

// workerBytes is the memory one worker of a parallel run may hold: its
// machine's fixed state and bounded dynamic state, and its copy of global
// memory.
func (l *Launch) workerBytes() int64 {
	return max(GlobalBytes(l.prog, l.spec), 1) + l.m.FixedStateBytes() + parallelDynamicBytes
}

// workersNote says why a parallel run asked for asked workers uses fewer
// ("" when no bound of the parallel run lowered them).
func (l *Launch) workersNote(asked int) string {
	if asked > parallelMaxSegments {
		return fmt.Sprintf("%d workers asked for; a parallel run uses at most %d", asked, parallelMaxSegments)
	}
	if per := l.workerBytes(); int64(asked)*per > parallelMemoryBudget {
		return fmt.Sprintf("%d workers asked for; %d fit the parallel run's memory budget of %d bytes (each worker's machine and copy of global memory: %d bytes)",
			asked, max(parallelMemoryBudget/per, 1), int64(parallelMemoryBudget), per)
	}
	return ""
}

// guidedBounds splits waves into at most most (≥ workers) contiguous
// segments and returns their bounds (0, …, waves): each segment takes
// about 1/(2·workers) of the waves left (guided self-scheduling), and at
// least floor waves, the smallest floor that keeps the count within
// most (equal segments, one per worker, when even that leaves fewer
// segments than workers). The first segments are long and the last ones short, so the
// workers, taking them in order, finish close together.
func guidedBounds(waves, workers, most int) []int {
	split := func(floor int, out []int) []int {
		out = append(out[:0], 0)
		for at := 0; at < waves; {
			left := waves - at
			at += min(left, max(floor, (left+2*workers-1)/(2*workers)))
			out = append(out, at)
		}
		return out
	}
	// The count falls as floor grows; at ⌈waves/workers⌉ it is at most
	// workers.
	lo, hi := 1, (waves+workers-1)/workers
	var b []int
	for lo < hi {
		mid := lo + (hi-lo)/2
		if b = split(mid, b); len(b)-1 <= most {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	if b = split(lo, b); len(b)-1 < workers {
		// Too few segments allowed for guided sizes: equal ones.
		b = b[:0]
		for k := range workers + 1 {
			b = append(b, k*waves/workers)
		}
	}
	return b
}

// sequentialOnly returns why fn (with the functions it calls) must run
// sequentially, or "".
func sequentialOnly(p *emu.Program, fn *emu.Function) string {
	seen := map[*emu.Function]bool{}
	var visit func(f *emu.Function) string
	visit = func(f *emu.Function) string {
		if f == nil || seen[f] {
			return ""
		}
		seen[f] = true
		for pc := f.Entry; pc < f.End && pc < len(p.Ops); pc++ {
			op := &p.Ops[pc]
			if why := opHazard(op); why != "" {
				return fmt.Sprintf("%s (line %d)", why, opLine(p, pc))
			}
			if op.Eff.Has(emu.EffCall) && op.Aux >= 0 && int(op.Aux) < len(p.Calls) {
				c := &p.Calls[op.Aux]
				if c.Callee == nil {
					// An indirect call may reach any function whose
					// address is taken.
					for _, g := range p.Funcs {
						if g.AddrTaken {
							if why := visit(g); why != "" {
								return why
							}
						}
					}
				} else if c.Callee.Builtin == emu.BuiltinVprintf {
					return fmt.Sprintf("the kernel calls printf (line %d), whose output is in the order of the sequential run", opLine(p, pc))
				} else if why := visit(c.Callee); why != "" {
					return why
				}
			}
		}
		return ""
	}
	return visit(fn)
}

// opHazard says why op makes a launch's result depend on the order of its
// CTAs (or on more than its global-memory accesses), or "".
func opHazard(op *emu.Op) string {
	if op.Eff.Has(emu.EffDynamic) {
		return "the kernel reads %clock or %globaltimer, which count the launch's warp-instructions"
	}
	if op.Eff.Has(emu.EffAtomic) && op.Eff.Any(emu.EffWriteGlobal) {
		return fmt.Sprintf("the kernel uses global atomics (%s)", op.Code)
	}
	// Instructions the emulator does not execute yet (their effects are
	// EffFault) whose results would depend on the order of the CTAs.
	switch op.Code {
	case isa.OpRedAsync, isa.OpCpReduceAsyncBulk, isa.OpCpAsyncBulk, isa.OpCpAsyncBulkTensor, isa.OpStAsync,
		isa.OpTensormapReplace,
		isa.OpTex, isa.OpTld4, isa.OpSuld, isa.OpSust, isa.OpSured:
		return fmt.Sprintf("the kernel uses %s", op.Code)
	}
	return ""
}

// opLine returns the source line of pc (0 if unknown).
func opLine(p *emu.Program, pc int) int {
	if p.Src == nil || pc < 0 || pc >= len(p.Spans) {
		return 0
	}
	return p.Src.Position(p.Spans[pc].Start).Line
}

// worker is what a worker keeps between its segments: its machine and
// the segment that ran on it last.
type worker struct {
	m    *emu.Machine
	last *segment
	// remove takes the last segment's observers off m.
	remove []func()
}

// machineFor returns a machine ready to run s: w's machine relaunched
// over s's CTAs, with the global memory its last segment wrote put back
// to the launch's, or a new one for w's first segment. Reusing the
// machine saves a copy of global memory and new CTAs per segment.
func (l *Launch) machineFor(w *worker, s *segment) (*emu.Machine, error) {
	if w.m == nil {
		m, err := l.segmentMachine(s)
		w.m = m
		return m, err
	}
	for _, rm := range w.remove {
		rm()
	}
	w.remove = w.remove[:0]
	src := l.m.Global.Allocs()
	for x, a := range w.m.Global.Allocs() {
		data, orig := a.Data[:cap(a.Data)], src[x].Data[:cap(src[x].Data)]
		for i, p := range w.last.trk.allocs[x].write.pages {
			if p != nil {
				copy(data[i*pageBytes:min((i+1)*pageBytes, len(data))], orig[i*pageBytes:])
			}
		}
	}
	return w.m, w.m.Relaunch(s.first, s.end)
}

// segmentMachine builds a machine for s: the launch's configuration,
// global memory (copied), parameters and constant bank, restricted to s's
// CTAs.
func (l *Launch) segmentMachine(s *segment) (*emu.Machine, error) {
	cfg := l.m.Config()
	cfg.MaxWarpInstructions = 0
	// The dynamic state is bounded as the memory budget assumes: a
	// segment that needs more faults, and the launch runs sequentially.
	cfg.MaxDynamicBytes = parallelDynamicBytes
	if l.m.Config().MaxDynamicBytes > 0 {
		cfg.MaxDynamicBytes = min(cfg.MaxDynamicBytes, l.m.Config().MaxDynamicBytes)
	}
	m, err := emu.NewMachine(l.prog, l.m.Kernel().Name, cfg)
	if err != nil {
		return nil, err
	}
	for i, a := range l.m.Global.Allocs() {
		var b *emu.Alloc
		if i == 0 {
			b = m.Global.Allocs()[0]
		} else {
			b = m.Global.Alloc(a.Name, len(a.Data), 256)
		}
		if b.Base != a.Base || len(b.Data) != len(a.Data) || cap(b.Data) != cap(a.Data) {
			return nil, fmt.Errorf("allocation %s does not have the same place in a copy", a.Name)
		}
		copy(b.Data[:cap(b.Data)], a.Data[:cap(a.Data)])
	}
	copy(m.Params(), l.m.Params())
	copy(m.ConstMem(), l.m.ConstMem())
	if err := m.RestrictCTAs(s.first, s.end); err != nil {
		return nil, err
	}
	// A segment that faults is discarded (the launch runs sequentially
	// and reports the fault), so its runs need no snapshot to replay to
	// an exact fault; the ticker makes many runs of each segment.
	m.SetFaultReplay(false)
	return m, nil
}

// coordinator is what the workers share: which segments finished (their
// trackers are then read-only), the first reason to give up, and the
// warp-instructions run so far.
type coordinator struct {
	mu       sync.Mutex
	finished []bool
	reason   string
	abort    atomic.Bool
	total    atomic.Int64
	budget   int64
	// running holds each worker's machine while it runs (for the ticker).
	running []atomic.Pointer[emu.Machine]
}

func (c *coordinator) stop(reason string) {
	c.mu.Lock()
	if c.reason == "" {
		c.reason = reason
	}
	c.mu.Unlock()
	c.abort.Store(true)
}

// finishedOthers returns the indices of the finished segments other than k.
func (c *coordinator) finishedOthers(k int) []int {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []int
	for i, f := range c.finished {
		if f && i != k {
			out = append(out, i)
		}
	}
	return out
}

// runSegments runs the segments on workers goroutines, which take them in
// order, and checks them; it returns why their results cannot be used,
// or "".
func (l *Launch) runSegments(ctx context.Context, segs []*segment, workers int, opt RunOptions) string {
	c := &coordinator{finished: make([]bool, len(segs)), budget: l.m.Config().MaxWarpInstructions}
	filter := opt.Check && !opt.NoFilter && l.m.ClusterCTAs() == 1 && emu.SharedFilterable(l.prog) == ""
	for _, s := range segs {
		s.filter = filter
		l.segmentObservers(s, opt)
	}
	c.running = make([]atomic.Pointer[emu.Machine], workers)
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var wk worker
			for !c.abort.Load() {
				k := int(next.Add(1) - 1)
				if k >= len(segs) {
					return
				}
				if !l.runSegment(ctx, c, segs, k, w, &wk) {
					return
				}
			}
		}()
	}
	stopTicks := make(chan struct{})
	ticker := time.NewTicker(parallelTick)
	go func() {
		for {
			select {
			case <-stopTicks:
				return
			case <-ticker.C:
				for i := range c.running {
					if m := c.running[i].Load(); m != nil {
						m.Interrupt()
					}
				}
			}
		}
	}()
	wg.Wait()
	ticker.Stop()
	close(stopTicks)
	if c.reason != "" {
		return c.reason
	}
	for j := range segs {
		for i := range j {
			if why := conflict(segs[i], segs[j]); why != "" {
				return why
			}
		}
	}
	return ""
}

// segmentObservers gives s a new checker and aggregator as opt asks; the
// checker leaves shared memory to the filter when s runs with it.
func (l *Launch) segmentObservers(s *segment, opt RunOptions) {
	s.chk, s.agg = nil, nil
	if opt.Check {
		s.chk = l.NewChecker()
		if s.filter {
			s.chk.LeaveShared()
		}
	}
	if opt.Analyze {
		s.agg = analysis.NewAggregator(l.prog)
	}
}

// runSegment runs segs[k] on worker w (whose state is wk), checking at
// every tick what would make its result unusable. It reports whether the
// segment finished (wk's machine can then run the next one). A segment
// that the shared-memory phase filter suspects runs again from its start
// on a fresh machine, with the checker proper.
func (l *Launch) runSegment(ctx context.Context, c *coordinator, segs []*segment, k, w int, wk *worker) bool {
	s := segs[k]
	done, suspect := l.runSegmentOnce(ctx, c, s, k, segs, w, wk)
	if !suspect {
		return done
	}
	// The filtered machine holds part of the segment's writes: drop it.
	wk.m, wk.last, wk.remove = nil, nil, nil
	s.filter, s.rechecked = false, true
	l.segmentObservers(s, RunOptions{Check: true, Analyze: s.agg != nil})
	done, _ = l.runSegmentOnce(ctx, c, s, k, segs, w, wk)
	return done
}

// runSegmentOnce is one run of runSegment's; suspect reports that the
// filter stopped it (the run's instructions are then no longer counted).
func (l *Launch) runSegmentOnce(ctx context.Context, c *coordinator, s *segment, k int, segs []*segment, w int, wk *worker) (done, suspect bool) {
	m, err := l.machineFor(wk, s)
	if err != nil {
		c.stop("internal: " + err.Error())
		return false, false
	}
	if s.filter && !m.EnableSharedFilter() {
		c.stop("internal: the shared-memory phase filter cannot follow a segment")
		return false, false
	}
	wk.last = s
	s.trk = newTracker(m.Global.Allocs())
	wk.remove = append(wk.remove, m.AddObserver(s.trk))
	if s.agg != nil {
		wk.remove = append(wk.remove, m.AddObserver(s.agg))
	}
	if s.chk != nil {
		wk.remove = append(wk.remove, m.AddObserver(s.chk))
	}
	if s.filter && s.agg != nil {
		// As in runFiltered: the memory analysis takes the plain shared
		// loads and stores without their reports.
		m.SetPlainSharedSink(s.agg)
	}
	// A segment alone may run up to the launch's budget; the ticker
	// interrupts the run every parallelTick for the checks below.
	m.SetMaxWarpInstructions(c.budget)
	c.running[w].Store(m)
	defer c.running[w].Store(nil)
	var counted int64
	for {
		r := m.Run(ctx)
		n := m.Stats().WarpInstructions
		if flagged, _ := m.SharedFilterSuspect(); flagged && ctx.Err() == nil {
			c.total.Add(-counted)
			return false, true
		}
		total := c.total.Add(n - counted)
		counted = n
		if r == emu.StopLimit || c.budget > 0 && total > c.budget {
			c.stop(fmt.Sprintf("the launch needs more than maxWarpInstructions (%d)", c.budget))
			return false, false
		}
		if r == emu.StopFault {
			f := m.Fault()
			c.stop(fmt.Sprintf("CTA (%d,%d,%d) faulted (%s); the sequential run reports the launch's first fault", f.CTA[0], f.CTA[1], f.CTA[2], f.Kind))
			return false, false
		}
		if s.chk != nil && (len(s.chk.Warnings()) > 0 || s.chk.Dropped() > 0) {
			c.stop("the race and memory checker has warnings; they name warp-instructions of the sequential schedule")
			return false, false
		}
		switch r {
		case emu.StopInterrupted:
			if ctx.Err() != nil {
				c.stop("interrupted")
				return false, false
			}
		case emu.StopDone:
			if s.trk.outside {
				c.stop("internal: a global access outside every allocation")
				return false, false
			}
			s.stats = m.Stats()
			s.keepWrites(m.Global.Allocs())
			c.mu.Lock()
			c.finished[k] = true
			c.mu.Unlock()
			return true, false
		}
		// A tick, or StopBreakpoint (brkpt).
		if c.abort.Load() {
			return false, false
		}
		for _, i := range c.finishedOthers(k) {
			a, b := segs[i], s
			if k < i {
				a, b = s, segs[i]
			}
			if why := conflict(a, b); why != "" {
				c.stop(why)
				return false, false
			}
		}
	}
}

// conflict says why segments a and b (a before b) cannot both have run
// from the initial memory, or "".
func conflict(a, b *segment) string {
	for x, ta := range a.trk.allocs {
		tb := &b.trk.allocs[x]
		if off, ok := ta.write.intersect(&tb.read); ok {
			return fmt.Sprintf("%s read global memory that %s wrote (address 0x%x)", b.name(), a.name(), ta.base+off)
		}
		if a.wave1 < b.wave0 {
			continue
		}
		// They share a wave: their CTAs run interleaved.
		if off, ok := ta.read.intersect(&tb.write); ok {
			return fmt.Sprintf("%s read global memory that %s wrote, in the same wave (address 0x%x)", a.name(), b.name(), ta.base+off)
		}
		if off, ok := ta.write.intersect(&tb.write); ok {
			return fmt.Sprintf("%s and %s wrote the same global memory in the same wave (address 0x%x)", a.name(), b.name(), ta.base+off)
		}
	}
	return ""
}

// keepWrites copies the pages of allocs that the segment wrote to.
func (s *segment) keepWrites(allocs []*emu.Alloc) {
	s.pages = make([][]*[pageBytes]byte, len(allocs))
	for x, a := range allocs {
		w := &s.trk.allocs[x].write
		data := a.Data[:cap(a.Data)]
		for i, p := range w.pages {
			if p == nil {
				continue
			}
			if s.pages[x] == nil {
				s.pages[x] = make([]*[pageBytes]byte, len(w.pages))
			}
			cp := new([pageBytes]byte)
			copy(cp[:], data[i*pageBytes:])
			s.pages[x][i] = cp
		}
	}
}

// mergeSegments writes every segment's writes into the launch's memory in
// segment order and builds the result.
func (l *Launch) mergeSegments(segs []*segment, opt RunOptions) *Result {
	dst := l.m.Global.Allocs()
	var stats emu.Stats
	for _, s := range segs {
		for x := range s.trk.allocs {
			d := dst[x].Data[:cap(dst[x].Data)]
			s.trk.allocs[x].write.copyMarked(d, s.pages[x])
		}
		stats.WarpInstructions += s.stats.WarpInstructions
		stats.ThreadInstructions += s.stats.ThreadInstructions
	}
	r := &Result{Status: StatusOK, Stats: stats, Buffers: l.resultBuffers()}
	l.addPrintf(r) // none: a kernel that calls printf runs sequentially
	if opt.Analyze {
		agg := analysis.NewAggregator(l.prog)
		for _, s := range segs {
			agg.Merge(s.agg)
		}
		r.Memory = agg.Lines()
	}
	if opt.Check {
		r.Checked = true
		r.Warnings = []analysis.Warning{}
	}
	return r
}
