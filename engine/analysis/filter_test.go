package analysis_test

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math/rand"
	"reflect"
	"strings"
	"testing"

	"github.com/ptxplayground/ptxplay/engine/analysis"
	"github.com/ptxplayground/ptxplay/engine/emu"
	"github.com/ptxplayground/ptxplay/engine/launch"
)

// filterOutcome is what the shared-memory phase filter made of a run.
type filterOutcome int

const (
	filterOff     filterOutcome = iota // the program or launch cannot use it
	filterClean                        // the run was clean: its result stands
	filterSuspect                      // a suspect access (or a fault): the launch runs again with the checker
)

// installChecker installs chk on m, which has not started; with filter,
// the phase filter goes on first and chk leaves shared memory to it (false,
// and nothing installed, when the launch cannot use the filter).
func installChecker(m *emu.Machine, chk *analysis.Checker, filter bool) bool {
	if filter {
		if !m.EnableSharedFilter() {
			return false
		}
		chk.LeaveShared()
	}
	m.AddObserver(chk)
	return true
}

// outcome is what the phase filter made of m's run: off without it,
// suspect at a suspect access or a fault (the launch runs again with the
// checker proper), else clean.
func outcome(m *emu.Machine, filter bool) filterOutcome {
	if !filter {
		return filterOff
	}
	if sus, _ := m.SharedFilterSuspect(); sus || m.Fault() != nil {
		return filterSuspect
	}
	return filterClean
}

// filterAgainstChecker runs p's entry as spec s twice, with the checker
// proper and with the phase filter (and the checker of global memory
// only), and checks the filter's promise: when it calls a run clean, that
// run's warnings, stop and final state are the checker's. It returns what
// the filter made of the run and the checker's warnings.
func filterAgainstChecker(t *testing.T, name string, p *emu.Program, s *launch.Spec) (filterOutcome, []analysis.Warning) {
	t.Helper()
	run := func(filter bool) (*launch.Launch, filterOutcome, []analysis.Warning, emu.StopReason) {
		l, err := launch.Prepare(p, s)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		m := l.Machine()
		chk := l.NewChecker()
		if !installChecker(m, chk, filter) {
			return l, filterOff, nil, 0
		}
		ctx, cancel := context.WithTimeout(context.Background(), 60e9)
		defer cancel()
		stop := m.Run(ctx)
		for stop == emu.StopBreakpoint {
			stop = m.Run(ctx)
		}
		return l, outcome(m, filter), chk.Warnings(), stop
	}
	le, _, we, se := run(false)
	lf, out, wf, sf := run(true)
	if out != filterClean {
		return out, we
	}
	if !reflect.DeepEqual(wf, we) || sf != se {
		t.Errorf("%s: the filter called the run clean, but the checker finds otherwise\nfilter:  stop %v %+v\nchecker: stop %v %+v", name, sf, wf, se, we)
	} else if d := lf.Machine().DiffState(le.Machine()); d != "" {
		t.Errorf("%s: %s", name, d)
	}
	return out, we
}

// sharedWarnings reports whether ws has a warning about shared memory.
func sharedWarnings(ws []analysis.Warning) bool {
	for _, w := range ws {
		if w.Kind != analysis.WarnUninitGlobal {
			return true
		}
	}
	return false
}

// TestSharedFilterGallery: on every gallery example, under both
// scheduling models, a run the phase filter calls clean has the checker's
// warnings and final state; the racy examples are suspect.
func TestSharedFilterGallery(t *testing.T) {
	count := map[filterOutcome]int{}
	for _, ex := range galleryExamples(t) {
		p, diags, _ := launch.Compile(ex.file, ex.text)
		if p == nil {
			t.Fatalf("%s: %v", ex.name, diags)
		}
		for _, sched := range []string{"independent", "simt-stack"} {
			s := *ex.spec
			s.Scheduling = sched
			out, ws := filterAgainstChecker(t, ex.name+" ("+sched+")", p, &s)
			count[out]++
			if out == filterSuspect {
				t.Logf("%s (%s): suspect; the checker's warnings: %d", ex.name, sched, len(ws))
			}
			if sharedWarnings(ws) && out == filterClean {
				t.Errorf("%s (%s): clean, with shared-memory warnings %+v", ex.name, sched, ws)
			}
			if ex.name == "race" && out != filterSuspect {
				t.Errorf("race (%s): the filter did not suspect it (%v)", sched, out)
			}
		}
	}
	t.Logf("gallery runs: %d clean, %d suspect, %d without the filter", count[filterClean], count[filterSuspect], count[filterOff])
	if count[filterClean] < 20 {
		t.Errorf("only %d gallery runs were clean", count[filterClean])
	}
}

// filterKernel returns a random kernel the filter can follow: shared-memory
// loads, stores and atomics of every size, through .shared and generic
// addresses and at the array's own address, cp.async copies with their
// commits and waits, and ldmatrix, at addresses that are each thread's
// own or that collide within and across warps, with bar.sync between
// phases, divergent branches, and lanes or whole warps that exit early.
func filterKernel(rng *rand.Rand) string {
	var b strings.Builder
	b.WriteString(`.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 p) {
	.shared .align 16 .b8 s[4096];
	.reg .pred %p<4>;
	.reg .b32 %r<40>;
	.reg .b64 %rd<8>;
	ld.param.u64 %rd1, [p];
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, s;
	cvta.shared.u64 %rd4, s;
`)
	if rng.Intn(4) != 0 {
		// Each thread writes its own 16 bytes first (or a random part of
		// them, leaving the rest never written).
		ty := []string{"v4.u32", "v4.u32", "v2.u32", "u32", "u8"}[rng.Intn(5)]
		fmt.Fprintf(&b, "\tshl.b32 %%r10, %%r1, 4;\n\tadd.u32 %%r10, %%r2, %%r10;\n\tmov.u32 %%r20, 7;\n\tmov.u64 %%rd3, 7;\n\tst.shared.%s [%%r10], %s;\n\tbar.sync 0;\n",
			ty, map[string]string{"v4.u32": "{%r20, %r20, %r20, %r20}", "v2.u32": "{%r20, %r20}", "u32": "%r20", "u8": "%r20"}[ty])
		if rng.Intn(2) == 0 {
			// Every lane reads thread 0's first word (a broadcast through
			// a register), then a barrier.
			b.WriteString("\tld.shared.u32 %r26, [%r2];\n\tbar.sync 0;\n")
		}
	}
	// Most kernels keep each thread to its own words, so that many runs
	// are clean; the others collide.
	private := rng.Intn(4) != 0
	access := func(inBranch bool) {
		sizes := []int{1, 2, 4, 4, 4, 8, 16}
		size := sizes[rng.Intn(len(sizes))]
		var mul, add, mask int
		if private {
			// Thread t's own 16 bytes.
			mul, add, mask = 16, rng.Intn(16/size)*size, 4095
		} else {
			mul = []int{0, 1, 2, 4, 5, 8, 16}[rng.Intn(7)]
			add = rng.Intn(64)
			mask = []int{15, 63, 127, 255, 511, 4095}[rng.Intn(6)] &^ (size - 1)
			add &^= size - 1
		}
		fmt.Fprintf(&b, "\tmul.lo.u32 %%r10, %%r1, %d;\n\tadd.u32 %%r10, %%r10, %d;\n\tand.b32 %%r10, %%r10, %d;\n\tadd.u32 %%r10, %%r2, %%r10;\n", mul, add, mask)
		ty := map[int]string{1: "u8", 2: "u16", 4: "u32", 8: "u64", 16: "v4.u32"}[size]
		regs := map[int]string{1: "%r20", 2: "%r20", 4: "%r20", 8: "%rd3", 16: "{%r20, %r21, %r22, %r23}"}[size]
		addr := "[%r10]"
		space := ".shared"
		if rng.Intn(5) == 0 {
			// The generic address of the same bytes.
			fmt.Fprintf(&b, "\tsub.u32 %%r12, %%r10, %%r2;\n\tcvt.u64.u32 %%rd5, %%r12;\n\tadd.u64 %%rd5, %%rd4, %%rd5;\n")
			addr, space = "[%rd5]", ""
		}
		var line string
		switch op := rng.Intn(15); {
		case op == 12 && size >= 4:
			// A cp.async of the thread's bytes or colliding ones, from
			// the (initialised) buffer; it lands at a wait or exit.
			cache := "ca"
			if size == 16 && rng.Intn(2) == 0 {
				cache = "cg"
			}
			line = fmt.Sprintf("cp.async.%s.shared.global [%%r10], [%%rd1+%d], %d;", cache, 16*rng.Intn(8), size)
		case op == 13:
			line = []string{"cp.async.commit_group;", "cp.async.wait_group 0;", "cp.async.wait_group 1;", "cp.async.wait_all;"}[rng.Intn(4)]
		case (op == 14 || op < 3) && size == 16 && !inBranch:
			// ldmatrix: lanes 0-7 give a row of 16 bytes each.
			line = fmt.Sprintf("ldmatrix.sync.aligned.m8n8.x1%s.b16 {%%r30}, %s;", space, addr)
		case op < 4:
			line = fmt.Sprintf("ld%s.%s %s, %s;", space, ty, regs, addr)
		case op < 8:
			line = fmt.Sprintf("st%s.%s %s, %s;", space, ty, addr, regs)
		case op < 9 && size == 4:
			line = fmt.Sprintf("atom%s.add.u32 %%r24, %s, 1;", space, addr)
		case op < 10 && size == 4:
			// The array's own address: every lane the same word.
			line = fmt.Sprintf("ld.shared.u32 %%r25, [s+%d];", 4*rng.Intn(8))
		case op < 11 && !inBranch:
			line = "bar.sync 0;"
		default:
			line = fmt.Sprintf("ld%s.%s %s, %s;", space, ty, regs, addr)
		}
		b.WriteString("\t" + line + "\n")
	}
	g := &branchGen{b: &b, rng: rng, kinds: 6, side: 1, condBits: 7, access: access}
	block := g.block
	for i := 0; i < 6+rng.Intn(14); i++ {
		block(2, false)
		switch rng.Intn(8) {
		case 0, 1, 2:
			b.WriteString("\tbar.sync 0;\n")
		case 3:
			if rng.Intn(4) == 0 {
				// Some lanes, or whole warps, leave early.
				fmt.Fprintf(&b, "\tsetp.ge.u32 %%p2, %%r1, %d;\n\t@%%p2 exit;\n", []int{1, 16, 32, 64, 100}[rng.Intn(5)])
			}
		}
	}
	b.WriteString("\tret;\n}\n")
	return b.String()
}

// randomFilterLaunch draws random kernel i (filterKernel) and its launch:
// two CTAs of a random size, a random scheduling model.
func randomFilterLaunch(t *testing.T, rng *rand.Rand, i int) (name, src string, p *emu.Program, s *launch.Spec) {
	t.Helper()
	src = filterKernel(rng)
	block := []int{32, 64, 96, 128, 256}[rng.Intn(5)]
	sched := []string{"independent", "simt-stack"}[rng.Intn(2)]
	s, err := launch.ParseSpec([]byte(fmt.Sprintf(`{"source": "(below)", "grid": [2], "block": [%d], "scheduling": %q, "buffers": [{"name": "p", "type": "u32", "count": 256, "init": {"fill": 1}}], "params": [{"buffer": "p"}]}`, block, sched)))
	if err != nil {
		t.Fatal(err)
	}
	name = fmt.Sprintf("random kernel %d (block %d, %s)", i, block, sched)
	p, diags, _ := launch.Compile("random.ptx", []byte(src))
	if p == nil {
		t.Fatalf("%s: %v\n%s", name, diags, src)
	}
	return name, src, p, s
}

// TestSharedFilterRandom: on random kernels of every kind of shared-memory
// access the filter follows, in both scheduling models, a run the filter
// calls clean has the checker's warnings and final state.
func TestSharedFilterRandom(t *testing.T) {
	rng := rand.New(rand.NewSource(26))
	iters := 600
	if testing.Short() {
		iters = 120
	}
	count := map[filterOutcome]int{}
	racy := 0
	// Clean runs of kernels with cp.async, with ldmatrix.
	cleanWith := map[string]int{}
	for i := 0; i < iters; i++ {
		name, src, p, s := randomFilterLaunch(t, rng, i)
		out, ws := filterAgainstChecker(t, name, p, s)
		count[out]++
		if sharedWarnings(ws) {
			racy++
		}
		for _, k := range []string{"cp.async.c", "ldmatrix"} {
			if out == filterClean && strings.Contains(src, k) {
				cleanWith[k]++
			}
		}
		if t.Failed() {
			t.Fatalf("%s:\n%s", name, src)
		}
	}
	t.Logf("%d random kernels: %d clean, %d suspect, %d without the filter; %d with shared-memory warnings; clean with cp.async %d, with ldmatrix %d",
		iters, count[filterClean], count[filterSuspect], count[filterOff], racy, cleanWith["cp.async.c"], cleanWith["ldmatrix"])
	// Both outcomes must be common, and the checker must find something.
	if count[filterOff] > 0 || count[filterClean] < iters/8 || count[filterSuspect] < iters/5 || racy < iters/5 || cleanWith["cp.async.c"] < iters/40 || cleanWith["ldmatrix"] < iters/40 {
		t.Errorf("the random kernels do not exercise the filter: %v, %d racy, clean with %v", count, racy, cleanWith)
	}
}

// corpusFilterRun runs entry of p as checkCorpusKernel does, with the
// checker proper or with the phase filter, and returns the run's verdict
// (stop, warnings, dropped, statistics), its machine and what the filter
// made of it.
func corpusFilterRun(p *emu.Program, entry string, filter bool) (string, *emu.Machine, filterOutcome) {
	cfg := emu.Config{Grid: [3]int{2, 1, 1}, Block: [3]int{64, 1, 1}, DynamicSharedBytes: 1024, MaxWarpInstructions: 20000}
	m, err := emu.NewMachine(p, entry, cfg)
	if err != nil {
		return "", nil, filterOff
	}
	buf := m.Global.Alloc("buf", 64<<10, 256)
	params := m.Params()
	for _, pr := range p.Function(entry).Params {
		if pr.Offset < 0 || pr.Offset+pr.Size > len(params) {
			return "", nil, filterOff
		}
		switch pr.Size {
		case 8:
			binary.LittleEndian.PutUint64(params[pr.Offset:], buf.Base)
		case 4:
			binary.LittleEndian.PutUint32(params[pr.Offset:], 16)
		}
	}
	chk := analysis.NewChecker(p, analysis.CheckerConfig{Grid: cfg.Grid, Block: cfg.Block})
	if !installChecker(m, chk, filter) {
		return "", m, filterOff
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20e9)
	defer cancel()
	stop := m.Run(ctx)
	return fmt.Sprintf("stop %v %+v dropped %d stats %+v", stop, chk.Warnings(), chk.Dropped(), m.Stats()), m, outcome(m, filter)
}

// TestSharedFilterCorpus: on the 200 kernels of the shared corpus that
// TestCheckerBatchedCorpus runs, a run the phase filter calls clean has
// the checker's verdict and final state.
func TestSharedFilterCorpus(t *testing.T) {
	count := map[filterOutcome]int{}
	forCorpusKernels(t, func(f string, p *emu.Program, entry string) bool {
		ve, me, _ := corpusFilterRun(p, entry, false)
		if me == nil {
			return false
		}
		vf, mf, out := corpusFilterRun(p, entry, true)
		count[out]++
		if out != filterClean {
			return true
		}
		if vf != ve {
			t.Errorf("%s %s: the filter called the run clean, but the checker finds otherwise\nfilter:  %s\nchecker: %s", f, entry, vf, ve)
		} else if d := mf.DiffState(me); d != "" {
			t.Errorf("%s %s: %s", f, entry, d)
		}
		return true
	})
	t.Logf("corpus kernels: %d clean, %d suspect, %d without the filter", count[filterClean], count[filterSuspect], count[filterOff])
	if count[filterClean] < 50 {
		t.Errorf("only %d corpus kernels were clean", count[filterClean])
	}
}

// TestSharedFilterRunWith: launch.RunWith's result (buffers, warnings,
// memory analysis, statistics, fault) is the same with the phase filter's
// first run as with the checker proper alone, on every gallery example:
// those the filter calls clean, those it suspects (which run again), and
// those it cannot follow.
func TestSharedFilterRunWith(t *testing.T) {
	sinks := 0
	for _, ex := range galleryExamples(t) {
		p, diags, _ := launch.Compile(ex.file, ex.text)
		if p == nil {
			t.Fatalf("%s: %v", ex.name, diags)
		}
		for _, noFilter := range []bool{false, true} {
			l, err := launch.Prepare(p, ex.spec)
			if err != nil {
				t.Fatalf("%s: %v", ex.name, err)
			}
			res, _, err := l.RunWith(context.Background(), launch.RunOptions{Check: true, Analyze: true, NoFilter: noFilter})
			if err != nil {
				t.Fatalf("%s: %v", ex.name, err)
			}
			if st := l.Machine().Stats(); st != res.Stats {
				t.Errorf("%s: the launch's machine is not the one whose result it gave", ex.name)
			}
		}
		same, a, b, sink := runWithBoth(t, ex.name, p, ex.spec)
		if sink {
			sinks++
		}
		if !same {
			t.Errorf("%s: results differ\nwith the filter: %.2000s\nwithout:         %.2000s", ex.name, a, b)
		}
	}
	if sinks < 15 {
		t.Errorf("the sink took part in only %d gallery runs", sinks)
	}
}

// runWithBoth runs p as s through launch.RunWith with the checker and the
// memory analysis, with and without the phase filter's first run, and
// reports whether the results are the same (and both, as JSON); sink
// reports whether the memory analysis took the plain shared accesses
// through the sink.
func runWithBoth(t *testing.T, name string, p *emu.Program, s *launch.Spec) (same bool, a, b []byte, sink bool) {
	t.Helper()
	var out [2][]byte
	for i, noFilter := range []bool{false, true} {
		l, err := launch.Prepare(p, s)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		res, _, _ := l.RunWith(context.Background(), launch.RunOptions{Check: true, Analyze: true, NoFilter: noFilter})
		if out[i], err = json.Marshal(res); err != nil {
			t.Fatal(err)
		}
	}
	if l, err := launch.Prepare(p, s); err == nil && l.Machine().EnableSharedFilter() {
		agg := analysis.NewAggregator(p)
		l.Machine().AddObserver(agg)
		sink = l.Machine().SetPlainSharedSink(agg)
	}
	return string(out[0]) == string(out[1]), out[0], out[1], sink
}

// TestSharedFilterRunWithRandom: on random kernels the phase filter can
// follow (clean and suspect ones), launch.RunWith's result with the
// memory analysis, whose plain shared accesses then come through the sink,
// is the same as without the filter.
func TestSharedFilterRunWithRandom(t *testing.T) {
	rng := rand.New(rand.NewSource(2026))
	iters := 200
	if testing.Short() {
		iters = 50
	}
	sinks := 0
	for i := 0; i < iters; i++ {
		name, src, p, s := randomFilterLaunch(t, rng, i)
		same, a, b, sink := runWithBoth(t, name, p, s)
		if sink {
			sinks++
		}
		if !same {
			t.Fatalf("%s: results differ\nwith the filter: %.3000s\nwithout:         %.3000s\n%s", name, a, b, src)
		}
	}
	if sinks < iters/2 {
		t.Errorf("the sink took part in only %d of %d runs", sinks, iters)
	}
}
