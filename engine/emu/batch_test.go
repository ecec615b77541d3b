package emu

import (
	"context"
	"encoding/binary"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/ptxplayground/ptxplay/engine/isa"
	"github.com/ptxplayground/ptxplay/engine/ptx"
)

// batchLaunch is a launch of kernel k with one u32 buffer of words words
// (word i = i*2654435761) passed as each of its 64-bit parameters.
type batchLaunch struct {
	src   string
	grid  int
	block int
	words int
	sched Scheduling
	limit int64
}

func (l batchLaunch) machine(t testing.TB, batched bool) *Machine {
	t.Helper()
	prog, diags := CompileSource(ptx.NewSource("k.ptx", []byte(l.src)))
	if prog == nil {
		t.Fatalf("compile:\n%s\n%s", ptx.FormatAll(ptx.NewSource("k.ptx", []byte(l.src)), diags), l.src)
	}
	m, err := NewMachine(prog, "k", Config{Grid: [3]int{l.grid, 1, 1}, Block: [3]int{l.block, 1, 1}, Scheduling: l.sched, MaxWarpInstructions: l.limit})
	if err != nil {
		t.Fatal(err)
	}
	a := m.Global.Alloc("buf", 4*l.words, 256)
	for i := 0; i < l.words; i++ {
		binary.LittleEndian.PutUint32(a.Data[4*i:], uint32(i)*2654435761)
	}
	for _, p := range m.Kernel().Params {
		if p.Size == 8 {
			binary.LittleEndian.PutUint64(m.Params()[p.Offset:], a.Base)
		}
	}
	m.SetBatchedDispatch(batched)
	return m
}

// runBothWays runs l to its end batched and one instruction at a time and
// fails on any difference in the final state; it returns the stop reason
// and how many turns the batched run executed ahead.
func runBothWays(t *testing.T, name string, l batchLaunch) StopReason {
	t.Helper()
	a, b := l.machine(t, true), l.machine(t, false)
	if !a.batchable() {
		t.Fatalf("%s: batched dispatch not used", name)
	}
	ra, rb := a.Run(context.Background()), b.Run(context.Background())
	if ra != rb {
		t.Fatalf("%s (%s): batched run stopped with %v, unbatched with %v (%v)", name, l.sched, ra, rb, b.Fault())
	}
	if d := a.DiffState(b); d != "" {
		t.Fatalf("%s (%s): batched and unbatched runs differ: %s\n%s", name, l.sched, d, l.src)
	}
	return ra
}

// A racy kernel: every thread does global atomics whose returned values
// depend on the order of the warps, racy plain loads and stores of the
// same words, and long register-only stretches in between (which batched
// dispatch runs ahead), in divergent code.
const racyPTX = `.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 buf) {
	.reg .u32 %r<16>; .reg .u64 %rd<8>; .reg .pred %p<4>;
	ld.param.u64 %rd1, [buf];
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, %ctaid.x;
	mad.lo.u32 %r3, %r2, 96, %r1;
	mov.u32 %r4, 0;
	mov.u32 %r5, 0;
LOOP:
	add.u32 %r5, %r5, %r3;
	xor.b32 %r5, %r5, 0x9e3779b9;
	shl.b32 %r6, %r5, 5;
	add.u32 %r5, %r5, %r6;
	and.b32 %r7, %r3, 3;
	setp.eq.u32 %p1, %r7, 1;
	@%p1 bra SKIP;
	mul.lo.u32 %r6, %r5, 7;
	add.u32 %r5, %r6, %r4;
	atom.global.add.u32 %r8, [%rd1], %r5;
	add.u32 %r5, %r5, %r8;
SKIP:
	and.b32 %r9, %r5, 15;
	mul.wide.u32 %rd2, %r9, 4;
	add.u64 %rd3, %rd1, %rd2;
	ld.global.u32 %r10, [%rd3+4];
	add.u32 %r10, %r10, %r3;
	st.global.u32 [%rd3+4], %r10;
	atom.global.exch.b32 %r11, [%rd1+68], %r3;
	xor.b32 %r5, %r5, %r11;
	add.u32 %r4, %r4, 1;
	setp.lt.u32 %p2, %r4, 20;
	@%p2 bra LOOP;
	mul.wide.u32 %rd4, %r3, 4;
	add.u64 %rd5, %rd1, %rd4;
	st.global.u32 [%rd5+128], %r5;
	ret;
}`

func TestBatchedRacyAtomics(t *testing.T) {
	for _, s := range []Scheduling{SchedIndependent, SchedSIMTStack} {
		for _, grid := range []int{1, 3, 7} {
			l := batchLaunch{src: racyPTX, grid: grid, block: 96, words: 32 + 96*grid, sched: s}
			if r := runBothWays(t, fmt.Sprintf("racy grid %d", grid), l); r != StopDone {
				t.Fatalf("grid %d: %v", grid, r)
			}
		}
	}
}

// The same racy kernel with a buffer too short for the last threads'
// results: a thread faults while the other warps are ahead, and the
// batched run ends in exactly the unbatched run's state.
func TestBatchedFaultExact(t *testing.T) {
	for _, s := range []Scheduling{SchedIndependent, SchedSIMTStack} {
		l := batchLaunch{src: racyPTX, grid: 2, block: 96, words: 32 + 96*2 - 5, sched: s}
		if r := runBothWays(t, "racy short buffer", l); r != StopFault {
			t.Fatalf("stop %v, want a fault", r)
		}
		// The last warp stores out of bounds between two long
		// register-only stretches: the warps before it are ahead.
		l = batchLaunch{src: faultPTX, grid: 2, block: 128, words: 256, sched: s}
		if r := runBothWays(t, "fault between stretches", l); r != StopFault {
			t.Fatalf("stop %v, want a fault", r)
		}
		if m := l.machine(t, true); m.Run(context.Background()) != StopFault || m.fast.replays != 1 {
			t.Fatalf("the batched run was not replayed (%d)", m.fast.replays)
		}
	}
}

// With fault replay off, a batched run that faults while warps are ahead
// stops there, without the snapshot and the replay; it still stops with a
// fault, in the same CTA's work.
func TestFaultReplayOff(t *testing.T) {
	for _, s := range []Scheduling{SchedIndependent, SchedSIMTStack} {
		l := batchLaunch{src: faultPTX, grid: 2, block: 128, words: 256, sched: s}
		m := l.machine(t, true)
		m.SetFaultReplay(false)
		if r := m.Run(context.Background()); r != StopFault || m.fast.replays != 0 {
			t.Fatalf("%s: stop %v, %d replays", s, r, m.fast.replays)
		}
		exact := l.machine(t, true)
		exact.Run(context.Background())
		if m.Fault().Kind != exact.Fault().Kind || m.Fault().PC != exact.Fault().PC {
			t.Fatalf("%s: fault %v, the exact run's %v", s, m.Fault(), exact.Fault())
		}
		// Without a fault the results are those of the exact run.
		l.words = 4096
		a, b := l.machine(t, true), l.machine(t, false)
		a.SetFaultReplay(false)
		if ra, rb := a.Run(context.Background()), b.Run(context.Background()); ra != StopDone || rb != StopDone {
			t.Fatalf("%s: %v %v", s, ra, rb)
		}
		if d := a.DiffState(b); d != "" {
			t.Fatalf("%s: %s", s, d)
		}
	}
}

const faultPTX = `.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 buf) {
	.reg .u32 %r<16>; .reg .u64 %rd<8>; .reg .pred %p<4>;
	ld.param.u64 %rd1, [buf];
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, %ctaid.x;
	mad.lo.u32 %r3, %r2, 128, %r1;
	mov.u32 %r4, 0;
	mov.u32 %r5, %r3;
A:
	mad.lo.u32 %r5, %r5, 1664525, 1013904223;
	add.u32 %r4, %r4, 1;
	setp.lt.u32 %p1, %r4, 10;
	@%p1 bra A;
	mul.wide.u32 %rd2, %r3, 4;
	setp.eq.u32 %p2, %r3, 200;
	@%p2 add.u64 %rd2, %rd2, 4096;
	add.u64 %rd3, %rd1, %rd2;
	st.global.u32 [%rd3], %r5;
B:
	mad.lo.u32 %r5, %r5, 1664525, 1013904223;
	add.u32 %r4, %r4, 1;
	setp.lt.u32 %p1, %r4, 30;
	@%p1 bra B;
	st.global.u32 [%rd3], %r5;
	ret;
}`

// randomKernel writes a random kernel: register-only arithmetic, data-
// dependent branches and loops, global atomics returning values, racy
// global loads and stores, shared memory and barriers, and now and then a
// store that may fall outside the buffer.
func randomKernel(rng *rand.Rand, threads int) string {
	var b strings.Builder
	fmt.Fprintf(&b, `.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 buf) {
	.reg .u32 %%r<20>; .reg .u64 %%rd<8>; .reg .pred %%p<4>;
	.shared .u32 sh[64];
	ld.param.u64 %%rd1, [buf];
	mov.u32 %%r0, %%tid.x;
	mov.u32 %%r1, %%ctaid.x;
	mov.u32 %%r2, %%ntid.x;
	mad.lo.u32 %%r2, %%r1, %%r2, %%r0;
`)
	reg := func() string { return fmt.Sprintf("%%r%d", 3+rng.Intn(9)) }
	src := func() string {
		if rng.Intn(4) == 0 {
			return fmt.Sprint(rng.Intn(1000))
		}
		return fmt.Sprintf("%%r%d", rng.Intn(12))
	}
	for r := 3; r < 12; r++ {
		fmt.Fprintf(&b, "\tmul.lo.u32 %%r%d, %%r2, %d;\n\txor.b32 %%r%d, %%r%d, %d;\n", r, 1+rng.Intn(97), r, r, rng.Intn(1<<20))
	}
	labels := 0
	var stmts func(depth int, top bool)
	alu := func() {
		switch rng.Intn(8) {
		case 0:
			fmt.Fprintf(&b, "\tadd.u32 %s, %s, %s;\n", reg(), src(), src())
		case 1:
			fmt.Fprintf(&b, "\tsub.u32 %s, %s, %s;\n", reg(), src(), src())
		case 2:
			fmt.Fprintf(&b, "\tmad.lo.u32 %s, %s, %s, %s;\n", reg(), src(), src(), src())
		case 3:
			fmt.Fprintf(&b, "\txor.b32 %s, %s, %s;\n", reg(), src(), src())
		case 4:
			fmt.Fprintf(&b, "\tshr.u32 %s, %s, %d;\n", reg(), src(), rng.Intn(32))
		case 5:
			fmt.Fprintf(&b, "\tmin.u32 %s, %s, %s;\n", reg(), src(), src())
		case 6:
			fmt.Fprintf(&b, "\tsetp.lt.u32 %%p3, %s, %s;\n\tselp.u32 %s, %s, %s, %%p3;\n", src(), src(), reg(), src(), src())
		default:
			fmt.Fprintf(&b, "\tshl.b32 %s, %s, %d;\n", reg(), src(), rng.Intn(8))
		}
	}
	// addr puts in %rd3 the address of word (x & mask) + off of the buffer.
	addr := func(x string, mask, off int) {
		fmt.Fprintf(&b, "\tand.b32 %%r12, %s, %d;\n\tadd.u32 %%r12, %%r12, %d;\n\tmul.wide.u32 %%rd2, %%r12, 4;\n\tadd.u64 %%rd3, %%rd1, %%rd2;\n", x, mask, off)
	}
	stmts = func(depth int, top bool) {
		n := 3 + rng.Intn(6)
		for i := 0; i < n; i++ {
			switch k := rng.Intn(14); {
			case k < 5:
				alu()
			case k == 5:
				addr(reg(), 15, 0)
				fmt.Fprintf(&b, "\tatom.global.add.u32 %s, [%%rd3], %s;\n", reg(), src())
			case k == 6:
				addr(reg(), 15, 0)
				fmt.Fprintf(&b, "\tld.global.u32 %s, [%%rd3];\n", reg())
			case k == 7:
				addr(reg(), 15, 0)
				fmt.Fprintf(&b, "\tst.global.u32 [%%rd3], %s;\n", src())
			case k == 8:
				fmt.Fprintf(&b, "\tand.b32 %%r12, %s, 63;\n\tshl.b32 %%r12, %%r12, 2;\n\tmov.u32 %%r13, sh;\n\tadd.u32 %%r13, %%r13, %%r12;\n", reg())
				if rng.Intn(2) == 0 {
					fmt.Fprintf(&b, "\tst.shared.u32 [%%r13], %s;\n", src())
				} else {
					fmt.Fprintf(&b, "\tld.shared.u32 %s, [%%r13];\n", reg())
				}
			case k == 9 && top:
				fmt.Fprintf(&b, "\tbar.sync 0;\n")
			case k == 10 && depth < 2:
				// A data-dependent forward branch.
				labels++
				l := labels
				fmt.Fprintf(&b, "\tand.b32 %%r14, %s, %d;\n\tsetp.eq.u32 %%p1, %%r14, 0;\n\t@%%p1 bra L%d;\n", reg(), 1+rng.Intn(3), l)
				stmts(depth+1, false)
				fmt.Fprintf(&b, "L%d:\n", l)
			case k == 11 && depth < 2:
				// A loop of a data-dependent trip count (1 to 4).
				labels++
				l := labels
				cnt := 15 + depth
				fmt.Fprintf(&b, "\tand.b32 %%r%d, %s, 3;\n\tadd.u32 %%r%d, %%r%d, 1;\nL%d:\n", cnt, reg(), cnt, cnt, l)
				stmts(depth+1, false)
				fmt.Fprintf(&b, "\tsub.u32 %%r%d, %%r%d, 1;\n\tsetp.ne.u32 %%p2, %%r%d, 0;\n\t@%%p2 bra L%d;\n", cnt, cnt, cnt, l)
			case k == 12 && rng.Intn(6) == 0:
				// May fall outside the buffer.
				addr(reg(), 1023, 16)
				fmt.Fprintf(&b, "\tst.global.u32 [%%rd3], %s;\n", src())
			default:
				alu()
			}
		}
	}
	stmts(0, true)
	fmt.Fprintf(&b, "\tmul.wide.u32 %%rd4, %%r2, 4;\n\tadd.u64 %%rd5, %%rd1, %%rd4;\n")
	for r := 3; r < 12; r += 4 {
		fmt.Fprintf(&b, "\tst.global.u32 [%%rd5+%d], %%r%d;\n", 64+4*threads*(r-3)/4, r)
	}
	b.WriteString("\tret;\n}\n")
	return b.String()
}

func TestBatchedRandomKernels(t *testing.T) {
	rng := rand.New(rand.NewSource(12))
	stops := map[StopReason]int{}
	quiet := 0
	n := 150
	if testing.Short() {
		n = 40
	}
	for i := 0; i < n; i++ {
		grid, block := 1+rng.Intn(5), 32*(1+rng.Intn(4))-rng.Intn(2)*7
		src := randomKernel(rng, grid*block)
		s := []Scheduling{SchedIndependent, SchedSIMTStack}[i%2]
		l := batchLaunch{src: src, grid: grid, block: block, words: 16 + 3*grid*block + 4, sched: s, limit: 2_000_000}
		stops[runBothWays(t, fmt.Sprintf("random kernel %d", i), l)]++
		if m := l.machine(t, true); m.Run(context.Background()) != StopFault && m.fast.sharedLeads > 0 {
			quiet++
		}
	}
	t.Logf("stops: %v; %d completed with shared-memory loads in leads", stops, quiet)
	if quiet == 0 {
		t.Fatal("no random kernel ran shared-memory loads in leads")
	}
	if stops[StopDone] == 0 || stops[StopFault] == 0 {
		t.Fatalf("the random kernels should both complete and fault: %v", stops)
	}
}

// stepStates steps m n warp-instructions and records, after each, the
// issuing warp, its pc, lanes and registers.
func stepStates(m *Machine, n int) []string {
	var out []string
	for i := 0; i < n && !m.Stopped(); i++ {
		w := m.NextWarp()
		r := m.Step(StepWarpInstruction)
		s := fmt.Sprint(r)
		if w != nil {
			pc, mask, why := w.LastIssue()
			s += fmt.Sprintf(" cta %d warp %d pc %d lanes %x %v next %d stack %v", w.CTA().Linear, w.ID, pc, mask, why, w.PC(), w.Stack())
			for reg := range m.prog.Regs {
				v := w.Reg(reg)
				s += fmt.Sprint(v[:4])
			}
			for p := range m.prog.Preds {
				s += fmt.Sprintf(" %x", w.Pred(p))
			}
		}
		out = append(out, s)
	}
	return out
}

// A Run that stops at its budget leaves the machine where the unbatched
// run leaves it, and stepping from there goes through the same states.
func TestBatchedStepAfterBudget(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	kernels := []string{racyPTX, racyPTX, randomKernel(rng, 96), randomKernel(rng, 96)}
	for _, s := range []Scheduling{SchedIndependent, SchedSIMTStack} {
		for ki, src := range kernels {
			for _, budget := range []int64{1, 37, 300, 1000, 2345, 4000} {
				l := batchLaunch{src: src, grid: 2, block: 48, words: 600, sched: s, limit: budget}
				a, b := l.machine(t, true), l.machine(t, false)
				ra, rb := a.Run(context.Background()), b.Run(context.Background())
				if ra != rb {
					t.Fatalf("kernel %d budget %d: %v vs %v", ki, budget, ra, rb)
				}
				if d := a.DiffState(b); d != "" {
					t.Fatalf("kernel %d (%s) budget %d: %s", ki, s, budget, d)
				}
				a.SetMaxWarpInstructions(0)
				b.SetMaxWarpInstructions(0)
				sa, sb := stepStates(a, 300), stepStates(b, 300)
				for i := range min(len(sa), len(sb)) {
					if sa[i] != sb[i] {
						t.Fatalf("kernel %d (%s) budget %d step %d:\n%s\n%s", ki, s, budget, i, sa[i], sb[i])
					}
				}
				if len(sa) != len(sb) {
					t.Fatalf("kernel %d budget %d: %d vs %d steps", ki, budget, len(sa), len(sb))
				}
				if d := a.DiffState(b); d != "" {
					t.Fatalf("kernel %d (%s) budget %d after stepping: %s", ki, s, budget, d)
				}
				// Running on to the end batched after the steps.
				a.Run(context.Background())
				b.Run(context.Background())
				if d := a.DiffState(b); d != "" {
					t.Fatalf("kernel %d (%s) budget %d at the end: %s", ki, s, budget, d)
				}
			}
		}
	}
}

// An interrupted batched Run stops on the unbatched trajectory: its state
// is the state of the launch stepped as many warp-instructions, and
// stepping on from it goes through the same states.
func TestBatchedInterrupt(t *testing.T) {
	for _, s := range []Scheduling{SchedIndependent, SchedSIMTStack} {
		l := batchLaunch{src: racyPTX, grid: 4, block: 96, words: 32 + 96*4, sched: s}
		a := l.machine(t, true)
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if r := a.Run(ctx); r != StopInterrupted {
			t.Fatalf("stop %v", r)
		}
		if a.ahead != 0 || a.picked != 0 {
			t.Fatalf("interrupted with %d instructions ahead, %d picks", a.ahead, a.picked)
		}
		n := a.Stats().WarpInstructions
		b := l.machine(t, false)
		for b.Stats().WarpInstructions < n {
			if r := b.Step(StepWarpInstruction); r != StopStepped {
				t.Fatalf("step: %v", r)
			}
		}
		if d := a.DiffState(b); d != "" {
			t.Fatalf("%s: after %d warp-instructions: %s", s, n, d)
		}
		sa, sb := stepStates(a, 500), stepStates(b, 500)
		if strings.Join(sa, "\n") != strings.Join(sb, "\n") {
			t.Fatalf("%s: stepping after the interrupted run differs", s)
		}
	}
}

// Batched dispatch is off where the schedule is observable: with a
// breakpoint set, an observer installed, or a %clock read in the kernel.
func TestBatchedOnlyWhenUnobserved(t *testing.T) {
	l := batchLaunch{src: racyPTX, grid: 1, block: 64, words: 128}
	m := l.machine(t, true)
	if !m.batchable() {
		t.Fatal("plain launch not batched")
	}
	m.SetBreakpoint(10, true)
	if m.batchable() {
		t.Fatal("batched with a breakpoint set")
	}
	m.ClearBreakpoints()
	m.SetObserver(&countingObserver{})
	if m.batchable() {
		t.Fatal("batched with an observer")
	}
	clock := strings.Replace(racyPTX, "mov.u32 %r4, 0;", "mov.u32 %r4, %clock;\n\tand.b32 %r4, %r4, 0;", 1)
	l.src = clock
	if m := l.machine(t, true); m.batchable() {
		t.Fatal("batched with a clock read")
	}
	for _, src := range []string{racyPTX, clock} {
		l.src = src
		a, b := l.machine(t, true), l.machine(t, false)
		a.Run(context.Background())
		b.Run(context.Background())
		if d := a.DiffState(b); d != "" {
			t.Fatal(d)
		}
	}
}

type countingObserver struct{ n int }

func (o *countingObserver) Step(info *StepInfo) { o.n++ }

// accessSet collects the global bytes read and written, as sets
// (ObserveUnordered when unordered).
type accessSet struct {
	unordered bool
	extra     ObserveFlags
	read      map[uint64]bool
	written   map[uint64]bool
}

func (s *accessSet) Observes() ObserveFlags {
	f := ObserveAccesses | ObserveGlobalOnly | s.extra
	if s.unordered {
		f |= ObserveUnordered
	}
	return f
}

func (s *accessSet) Step(in *StepInfo) {
	for _, a := range in.Accesses {
		if a.Space != isa.Global {
			continue
		}
		for l, addr := range a.Addr {
			if a.Lanes&(1<<l) == 0 {
				continue
			}
			for b := uint64(0); b < uint64(a.Size); b++ {
				if a.Kind == AccessLoad {
					s.read[addr+b] = true
				} else {
					s.written[addr+b] = true
				}
			}
		}
	}
}

// An observer that collects accesses as a set keeps batched dispatch, sees
// the same accesses as without batching, and leaves the same final state;
// one that asks for more, or does not say it is unordered, turns it off.
func TestBatchedWithUnorderedObserver(t *testing.T) {
	l := batchLaunch{src: racyPTX, grid: 3, block: 64, words: 128}
	for _, sched := range []Scheduling{SchedIndependent, SchedSIMTStack} {
		l.sched = sched
		a, b := l.machine(t, true), l.machine(t, false)
		sa := &accessSet{unordered: true, read: map[uint64]bool{}, written: map[uint64]bool{}}
		sb := &accessSet{unordered: true, read: map[uint64]bool{}, written: map[uint64]bool{}}
		a.SetObserver(sa)
		b.SetObserver(sb)
		if !a.batchable() {
			t.Fatal("an unordered access observer turned batching off")
		}
		a.Run(context.Background())
		b.Run(context.Background())
		if d := a.DiffState(b); d != "" {
			t.Fatal(d)
		}
		if len(sa.read) == 0 || len(sa.written) == 0 {
			t.Fatal("the observer saw no global accesses")
		}
		if !reflect.DeepEqual(sa.read, sb.read) || !reflect.DeepEqual(sa.written, sb.written) {
			t.Fatalf("%v: batched run reported other accesses: read %d/%d written %d/%d", sched, len(sa.read), len(sb.read), len(sa.written), len(sb.written))
		}
	}
	// Any observer that does not ask for every step keeps batching
	// (TestBatchedObserverStream checks what it is shown); one that does
	// turns it off.
	m := l.machine(t, true)
	m.SetObserver(&accessSet{read: map[uint64]bool{}, written: map[uint64]bool{}})
	if !m.batchable() {
		t.Fatal("an access observer turned batching off")
	}
	m.SetObserver(&accessSet{unordered: true, extra: ObserveEvents | ObserveMaskChanges})
	if !m.batchable() {
		t.Fatal("an observer of events and active lanes turned batching off")
	}
	m.SetObserver(&accessSet{unordered: true})
	m.AddObserver(&countingObserver{})
	if m.batchable() {
		t.Fatal("batched with a second observer that asks for every step")
	}
}

// Loops whose setp and @p bra leads run fused: uniform and divergent
// exits, a guarded setp before its bra, a bra.uni after the last
// instruction of a path, and a path whose last instruction is followed by
// a bra at its reconvergence point (not fused: the path ends there).
const fusedPTX = `.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 buf) {
	.reg .u32 %r<12>; .reg .u64 %rd<4>; .reg .pred %p<4>;
	ld.param.u64 %rd1, [buf];
	mov.u32 %r1, %tid.x;
	and.b32 %r2, %r1, 7;
	add.u32 %r2, %r2, 3;
	setp.ne.u32 %p3, %r2, 5;
	mov.u32 %r5, 0;
	mov.u32 %r7, 0;
OUTER:
	mov.u32 %r3, 0;
LOOP:
	add.u32 %r5, %r5, %r3;
	add.u32 %r4, %r3, %r1;
	and.b32 %r4, %r4, 1;
	setp.eq.u32 %p1, %r4, 0;
	@%p1 bra ELSE;
	xor.b32 %r5, %r5, 0x55;
	bra.uni JOIN;
ELSE:
	shl.b32 %r6, %r5, 1;
	add.u32 %r5, %r5, %r6;
JOIN:
	bra.uni NEXT;
NEXT:
	@%p3 setp.lt.u32 %p2, %r3, 4;
	@%p2 bra SKIP;
	add.u32 %r5, %r5, 7;
SKIP:
	add.u32 %r3, %r3, 1;
	setp.lt.u32 %p1, %r3, %r2;
	@%p1 bra LOOP;
	mul.wide.u32 %rd2, %r1, 4;
	add.u64 %rd3, %rd1, %rd2;
	st.global.u32 [%rd3], %r5;
	add.u32 %r7, %r7, 1;
	setp.lt.u32 %p1, %r7, 30;
	@%p1 bra OUTER;
	ret;
}`

// Fused pairs count as two instructions everywhere: a Run stopped at any
// budget (odd ones too, between the two halves of a pair's turns) leaves
// the one-at-a-time state, stepping on goes through the same states, and
// the runs end the same.
func TestBatchedFusedBranch(t *testing.T) {
	for _, s := range []Scheduling{SchedIndependent, SchedSIMTStack} {
		l := batchLaunch{src: fusedPTX, grid: 2, block: 48, words: 64, sched: s}
		a, b := l.machine(t, true), l.machine(t, false)
		a.Run(context.Background())
		b.Run(context.Background())
		if d := a.DiffState(b); d != "" {
			t.Fatalf("%s: %s", s, d)
		}
		if a.fast.pairs == 0 || b.fast.pairs != 0 {
			t.Fatalf("%s: %d pairs fused batched, %d unbatched", s, a.fast.pairs, b.fast.pairs)
		}
		total := a.Stats().WarpInstructions
		for _, budget := range []int64{1601, 2602, 3333, 5001, 7777, total/2 + 1, total - 3} {
			l.limit = budget
			a, b := l.machine(t, true), l.machine(t, false)
			ra, rb := a.Run(context.Background()), b.Run(context.Background())
			if ra != rb || ra != StopLimit {
				t.Fatalf("%s budget %d: %v vs %v", s, budget, ra, rb)
			}
			if d := a.DiffState(b); d != "" {
				t.Fatalf("%s budget %d: %s", s, budget, d)
			}
			if a.fast.pairs == 0 {
				t.Fatalf("%s budget %d: no pair fused", s, budget)
			}
			a.SetMaxWarpInstructions(0)
			b.SetMaxWarpInstructions(0)
			sa, sb := stepStates(a, 200), stepStates(b, 200)
			if len(sa) != len(sb) {
				t.Fatalf("%s budget %d: %d vs %d steps", s, budget, len(sa), len(sb))
			}
			for i := range sa {
				if sa[i] != sb[i] {
					t.Fatalf("%s budget %d step %d:\n%s\n%s", s, budget, i, sa[i], sb[i])
				}
			}
			a.Run(context.Background())
			b.Run(context.Background())
			if d := a.DiffState(b); d != "" {
				t.Fatalf("%s budget %d at the end: %s", s, budget, d)
			}
		}
	}
}

// straightPTX: a loop whose body is n register-only instructions (none of
// them control flow) and, when diverge, a branch around half of them for
// odd lanes; with barriers, a bar.sync before the loop (where odd lanes
// of even warps arrive apart from the others) and at the end of its body.
func straightPTX(n int, diverge, barriers bool) string {
	var b strings.Builder
	b.WriteString(`.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 buf) {
	.reg .u32 %r<8>; .reg .u64 %rd<4>; .reg .pred %p<3>;
	ld.param.u64 %rd1, [buf];
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, %r1;
	mov.u32 %r3, 0;
	and.b32 %r4, %r1, 1;
	setp.eq.u32 %p2, %r4, 1;
`)
	if barriers {
		b.WriteString(`	and.b32 %r5, %r1, 33;
	setp.eq.u32 %p1, %r5, 1;
	@%p1 bra ODD;
	bar.sync 0;
	bra.uni LOOP;
ODD:
	bar.sync 0;
`)
	}
	b.WriteString("LOOP:\n")
	for i := range n {
		if diverge && i == n/2 {
			b.WriteString("\t@%p2 bra HALF;\n")
		}
		if i%2 == 0 {
			fmt.Fprintf(&b, "\txor.b32 %%r2, %%r2, %d;\n", i*2654435761%1000+1)
		} else {
			b.WriteString("\tadd.u32 %r2, %r2, %r1;\n")
		}
		if diverge && i == n/2+n/4 {
			b.WriteString("HALF:\n")
		}
	}
	if barriers {
		b.WriteString("\tbar.sync 0;\n")
	}
	b.WriteString(`	add.u32 %r3, %r3, 1;
	setp.lt.u32 %p1, %r3, 7;
	@%p1 bra LOOP;
	mul.wide.u32 %rd2, %r1, 4;
	add.u64 %rd3, %rd1, %rd2;
	st.global.u32 [%rd3], %r2;
	ret;
}`)
	return b.String()
}

// runTurnByTurn runs a batched machine to its end one issueBatched at a
// time, failing when a warp gets more than leadMax instructions ahead,
// and returns the stop.
func runTurnByTurn(t *testing.T, name string, a *Machine) StopReason {
	t.Helper()
	for {
		r := a.issueBatched(true)
		for _, w := range a.warps {
			if w.ahead > leadMax {
				t.Fatalf("%s: a warp is %d instructions ahead", name, w.ahead)
			}
		}
		if r != StopStepped {
			return r
		}
	}
}

// TestLeadStraightRuns: leads run runs of register-only instructions
// (leadStraight) of every length around the lead's limit and a
// reconvergence point inside them as one instruction at a time does, and
// no warp gets more than leadMax instructions ahead.
func TestLeadStraightRuns(t *testing.T) {
	for _, n := range []int{3, 40, 127, 130, 260} {
		for _, diverge := range []bool{false, true} {
			for _, s := range []Scheduling{SchedIndependent, SchedSIMTStack} {
				name := fmt.Sprintf("n %d diverge %v %s", n, diverge, s)
				l := batchLaunch{src: straightPTX(n, diverge, false), grid: 2, block: 96, words: 2 * 96, sched: s}
				a, b := l.machine(t, true), l.machine(t, false)
				if !slices.Contains(a.prog.runKind, leadStraight) {
					t.Fatalf("%s: no straight run", name)
				}
				if r := runTurnByTurn(t, name, a); r != StopDone || a.ahead != 0 {
					t.Fatalf("%s: stop %v with %d ahead", name, r, a.ahead)
				}
				if r := b.Run(context.Background()); r != StopDone {
					t.Fatalf("%s: unbatched stop %v", name, r)
				}
				if d := a.DiffState(b); d != "" {
					t.Fatalf("%s: %s", name, d)
				}
			}
		}
	}
}

// TestLeadAtRelease: the warps a barrier releases run their leads at the
// release, none gets more than leadMax instructions ahead, and the run
// ends where one instruction at a time ends, under both scheduling models
// and with a budget that stops it on the way: the tree reduction of
// testdata/reduce.ptx (its input and output in one buffer) and long
// register-only runs after barriers.
func TestLeadAtRelease(t *testing.T) {
	reduce, err := os.ReadFile(filepath.Join("testdata", "reduce.ptx"))
	if err != nil {
		t.Fatal(err)
	}
	for _, src := range []string{string(reduce), straightPTX(200, false, true)} {
		for _, s := range []Scheduling{SchedIndependent, SchedSIMTStack} {
			for _, limit := range []int64{0, 999, 4321} {
				l := batchLaunch{src: src, grid: 6, block: 256, words: 6 * 256, sched: s, limit: limit}
				a, b := l.machine(t, true), l.machine(t, false)
				var ra StopReason
				if limit == 0 {
					ra = runTurnByTurn(t, string(s), a)
				} else {
					ra = a.Run(context.Background())
				}
				rb := b.Run(context.Background())
				if ra != rb {
					t.Fatalf("%s limit %d: stop %v batched, %v one at a time", s, limit, ra, rb)
				}
				if d := a.DiffState(b); d != "" {
					t.Fatalf("%s limit %d: %s", s, limit, d)
				}
				if limit == 0 && a.fast.releaseLeads == 0 {
					t.Errorf("%s: no lead ran at a release", s)
				}
			}
		}
	}
}
