package analysis_test

import (
	"context"
	"fmt"
	"math/rand"
	"reflect"
	"strings"
	"testing"

	"github.com/ptxplayground/ptxplay/engine/analysis"
	"github.com/ptxplayground/ptxplay/engine/emu"
	"github.com/ptxplayground/ptxplay/engine/launch"
)

// twoBarrierCheckers runs a checker with the deferred barrier joins and
// one with the general rule (analysis.SlowBarriers) side by side and
// compares their clocks, barriers and shadows after every step.
type twoBarrierCheckers struct {
	t          *testing.T
	name       string
	fast, slow *analysis.Checker
	failed     bool
}

func (tc *twoBarrierCheckers) Step(in *emu.StepInfo) {
	tc.fast.Step(in)
	tc.slow.Step(in)
	if tc.failed {
		return
	}
	if d := analysis.ClockDiff(tc.fast, tc.slow); d != "" {
		tc.t.Errorf("%s: after warp-instruction %d (pc %d, warp %d): clocks differ: %s", tc.name, tc.fast.Steps(), in.PC, in.Warp, d)
		tc.failed = true
	} else if d := analysis.ShadowDiff(tc.fast, tc.slow, 512); d != "" {
		tc.t.Errorf("%s: after warp-instruction %d (pc %d, warp %d): shadows differ: %s", tc.name, tc.fast.Steps(), in.PC, in.Warp, d)
		tc.failed = true
	}
}

// barrierKernel returns a kernel of nw warps that mixes shared loads and
// stores (some on divergent paths) with bar.sync of the CTA, bar.red,
// named barriers with thread counts for the first warps, a bar.arrive of
// one warp that another waits for (bar.sync with the count), whole warps
// that exit early, lanes that exit, and the cluster barrier.
func barrierKernel(rng *rand.Rand, nw int) string {
	var b strings.Builder
	b.WriteString(randomKernelHead + `	.reg .pred %p<6>;
	.reg .b32 %r<40>;
	.reg .b64 %rd<8>;
	ld.param.u64 %rd1, [p];
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, s;
	and.b32 %r3, %r1, 1;
	setp.eq.u32 %p2, %r3, 0;
`)
	label := 0
	live := nw    // warps 0..live-1 have not exited
	whole := true // no lane of them exited (counted barriers stay satisfiable)
	access := func() {
		mul := []int{0, 1, 4, 4, 4, 8, 32}[rng.Intn(7)]
		add := 4 * rng.Intn(32)
		fmt.Fprintf(&b, "\tmul.lo.u32 %%r10, %%r1, %d;\n\tadd.u32 %%r10, %%r10, %d;\n\tand.b32 %%r10, %%r10, 508;\n\tadd.u32 %%r10, %%r2, %%r10;\n", mul, add)
		if rng.Intn(2) == 0 {
			b.WriteString("\tld.shared.u32 %r20, [%r10];\n")
		} else {
			b.WriteString("\tst.shared.u32 [%r10], %r1;\n")
		}
	}
	// warpsBelow branches the warps from k on past what follows (a
	// warp-uniform branch), returning the label to close it with.
	warpsBelow := func(k int) string {
		label++
		fmt.Fprintf(&b, "\tsetp.ge.u32 %%p3, %%r1, %d;\n\t@%%p3 bra W%d;\n", 32*k, label)
		return fmt.Sprintf("W%d:\n", label)
	}
	for i := 0; i < 10+rng.Intn(25); i++ {
		switch rng.Intn(12) {
		case 0, 1:
			b.WriteString("\tbar.sync 0;\n")
		case 2:
			b.WriteString("\tbar.red.popc.u32 %r30, 0, %p2;\n")
		case 3:
			if rng.Intn(2) == 0 {
				b.WriteString("\tbarrier.sync 0;\n")
			} else {
				// The cluster barrier (a cluster of one CTA) between.
				b.WriteString("\tbarrier.cluster.arrive;\n")
				access()
				b.WriteString("\tbarrier.cluster.wait;\n")
			}
		case 4:
			// A named barrier with a count, for the first warps.
			if whole && live >= 1 {
				k := 1 + rng.Intn(live)
				end := warpsBelow(k)
				access()
				fmt.Fprintf(&b, "\tbar.sync %d, %d;\n", 1+rng.Intn(3), 32*k)
				access()
				b.WriteString(end)
			}
		case 5:
			// Warp 0 arrives, warp 1 waits for it.
			if whole && live >= 2 {
				label++
				l := label
				fmt.Fprintf(&b, "\tsetp.ge.u32 %%p3, %%r1, 64;\n\t@%%p3 bra P%d;\n\tsetp.ge.u32 %%p4, %%r1, 32;\n\t@%%p4 bra C%d;\n", l, l)
				access()
				fmt.Fprintf(&b, "\tbar.arrive 5, 64;\n\tbra.uni P%d;\nC%d:\n\tbar.sync 5, 64;\n", l, l)
				access()
				fmt.Fprintf(&b, "P%d:\n", l)
			}
		case 6:
			// A divergent stretch of accesses.
			label++
			fmt.Fprintf(&b, "\tand.b32 %%r11, %%r1, %d;\n\tsetp.eq.u32 %%p1, %%r11, 0;\n\t@%%p1 bra D%d;\n", 1<<rng.Intn(6), label)
			access()
			fmt.Fprintf(&b, "D%d:\n", label)
			access()
		case 7:
			// The last warp exits.
			if live > 1 && rng.Intn(3) == 0 {
				live--
				fmt.Fprintf(&b, "\tsetp.ge.u32 %%p3, %%r1, %d;\n\t@%%p3 ret;\n", 32*live)
			}
		case 8:
			// Some lanes exit.
			if rng.Intn(4) == 0 {
				whole = false
				b.WriteString("\tand.b32 %r12, %r1, 31;\n\tsetp.eq.u32 %p3, %r12, 31;\n\t@%p3 ret;\n")
			}
		default:
			access()
		}
	}
	b.WriteString("\tret;\n}\n")
	return b.String()
}

// runBarrierPair runs src with spec s under the two checkers and returns
// their warnings and dropped counts and the fast checker's release counts.
func runBarrierPair(t *testing.T, name, src string, s *launch.Spec) (f, g []analysis.Warning, df, dg, fast, general int64) {
	t.Helper()
	p, diags, _ := launch.Compile(name, []byte(src))
	if p == nil {
		t.Fatalf("%s: compile: %v\n%s", name, diags, src)
	}
	l, err := launch.Prepare(p, s)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	cf, cg := l.NewChecker(), l.NewChecker()
	analysis.SlowBarriers(cg)
	l.Machine().AddObserver(&twoBarrierCheckers{t: t, name: name, fast: cf, slow: cg})
	if _, err := l.Run(context.Background()); err != nil {
		t.Fatalf("%s: %v\n%s", name, err, src)
	}
	fast, general = analysis.FastBarriers(cf)
	return cf.Warnings(), cg.Warnings(), cf.Dropped(), cg.Dropped(), fast, general
}

// TestCheckerFastBarriersRandom: on random kernels with every kind of CTA
// barrier, divergence and exits, under both scheduling models, the
// deferred barrier joins leave the same clocks, barriers and shadows
// after every step and report the same warnings as joining clocks per
// warp at every arrival and release; and both of the fast checker's
// release paths ran.
func TestCheckerFastBarriersRandom(t *testing.T) {
	rng := rand.New(rand.NewSource(26))
	iters := 150
	if testing.Short() {
		iters = 40
	}
	var fast, general int64
	found := 0
	for _, sched := range []string{"independent", "simt-stack"} {
		for i := 0; i < iters; i++ {
			nw := []int{2, 3, 4, 8}[rng.Intn(4)]
			src := barrierKernel(rng, nw)
			s, err := launch.ParseSpec([]byte(fmt.Sprintf(`{"source": "(below)", "block": [%d], "grid": [2], "buffers": [{"name": "p", "type": "u32", "count": 256, "init": {"fill": 1}}], "params": [{"buffer": "p"}]}`, 32*nw)))
			if err != nil {
				t.Fatal(err)
			}
			s.Scheduling = sched
			name := fmt.Sprintf("%s barrier kernel %d", sched, i)
			f, g, df, dg, nf, ng := runBarrierPair(t, name, src, s)
			if !reflect.DeepEqual(f, g) || df != dg {
				t.Fatalf("%s: fast and general barriers disagree\nfast (%d dropped): %+v\ngeneral (%d dropped): %+v\n%s", name, df, f, dg, g, src)
			}
			if t.Failed() {
				t.Fatalf("%s:\n%s", name, src)
			}
			if len(f) > 0 {
				found++
			}
			fast += nf
			general += ng
		}
	}
	t.Logf("%d releases by the synchronised clock, %d by the general rule; %d of %d kernels with warnings", fast, general, found, 2*iters)
	if fast == 0 || general == 0 {
		t.Errorf("%d fast and %d general releases: both paths must run", fast, general)
	}
	if found < iters/4 {
		t.Errorf("only %d of %d kernels had warnings", found, 2*iters)
	}
}
