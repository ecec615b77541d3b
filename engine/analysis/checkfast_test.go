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

// twoCheckers steps a fast and a byte-exact checker and compares their
// shadows of shared memory after every step.
type twoCheckers struct {
	t           *testing.T
	name        string
	fast, exact *analysis.Checker
	shadows     bool // compare the shadows (after steps with shared accesses)
	failed      bool
}

func (tc *twoCheckers) Step(in *emu.StepInfo) {
	tc.fast.Step(in)
	tc.exact.Step(in)
	if tc.shadows && !tc.failed && (len(in.Accesses) > 0 || len(in.Issued) > 0) {
		if d := analysis.ShadowDiff(tc.fast, tc.exact, 512); d != "" {
			tc.t.Errorf("%s: after warp-instruction %d (pc %d, warp %d): shadows differ: %s", tc.name, tc.fast.Steps(), in.PC, in.Warp, d)
			tc.failed = true
		}
	}
}

// runBoth runs prog with spec s under two checkers at once, one with the
// fast paths and one byte-exact, compares their shadows after every step
// with an access (if shadows) and returns their warnings and dropped counts.
func runBoth(t *testing.T, name string, prog []byte, s *launch.Spec, shadows bool) (fast, exact []analysis.Warning, df, de int64) {
	t.Helper()
	p, diags, _ := launch.Compile(name, prog)
	if p == nil {
		t.Fatalf("%s: compile: %v\n%s", name, diags, prog)
	}
	l, err := launch.Prepare(p, s)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	cf, ce := l.NewChecker(), l.NewChecker()
	analysis.ByteExact(ce)
	l.Machine().AddObserver(&twoCheckers{t: t, name: name, fast: cf, exact: ce, shadows: shadows})
	if _, err := l.Run(context.Background()); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return cf.Warnings(), ce.Warnings(), cf.Dropped(), ce.Dropped()
}

func sameWarnings(t *testing.T, name string, fast, exact []analysis.Warning, df, de int64, src string) {
	t.Helper()
	if !reflect.DeepEqual(fast, exact) || df != de {
		t.Errorf("%s: fast paths and byte-exact checker disagree\nfast  (%d dropped): %+v\nexact (%d dropped): %+v\n%s", name, df, fast, de, exact, src)
	}
}

// TestCheckerFastPathGallery: on every gallery example the checker's
// word-level shadow and same-bytes replay report exactly what the
// byte-exact checker does.
func TestCheckerFastPathGallery(t *testing.T) {
	n := 0
	for _, ex := range galleryExamples(t) {
		name, s, text, file := ex.name, ex.spec, ex.text, ex.file
		f, x, df, de := runBoth(t, file, text, s, false)
		sameWarnings(t, name, f, x, df, de, "")
		n++
	}
	if n < 5 {
		t.Fatalf("only %d gallery examples", n)
	}
}

// randomKernelHead opens the random kernels of the checker's tests: one
// entry k with a pointer parameter p and 512 bytes of shared memory s.
const randomKernelHead = `.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 p) {
	.shared .align 16 .b8 s[512];
`

// branchGen appends random blocks to b: an access (access(inBranch)), or
// (depth > 0) a divergent branch on a lane bit (1<<rng.Intn(condBits) of
// %r1, the thread index) with blocks on one side (two of them) or both
// (side each), chosen by rng.Intn(kinds) (0: one side, 1: both, else an
// access).
type branchGen struct {
	b        *strings.Builder
	rng      *rand.Rand
	label    int
	kinds    int
	side     int
	condBits int
	access   func(inBranch bool)
}

func (g *branchGen) block(depth int, inBranch bool) {
	b := g.b
	k := g.rng.Intn(g.kinds)
	if depth == 0 {
		k = g.kinds - 1
	}
	cond := func() {
		fmt.Fprintf(b, "\tand.b32 %%r11, %%r1, %d;\n\tsetp.eq.u32 %%p1, %%r11, 0;\n", 1<<g.rng.Intn(g.condBits))
	}
	switch k {
	case 0:
		// A lane subset skips the block.
		cond()
		g.label++
		l := g.label
		fmt.Fprintf(b, "\t@%%p1 bra L%d;\n", l)
		g.block(depth-1, true)
		g.block(depth-1, true)
		fmt.Fprintf(b, "L%d:\n", l)
	case 1:
		// Both sides of a divergent branch.
		cond()
		g.label += 2
		l := g.label
		fmt.Fprintf(b, "\t@%%p1 bra L%d;\n", l-1)
		for range g.side {
			g.block(depth-1, true)
		}
		fmt.Fprintf(b, "\tbra L%d;\nL%d:\n", l, l-1)
		for range g.side {
			g.block(depth-1, true)
		}
		fmt.Fprintf(b, "L%d:\n", l)
	default:
		g.access(inBranch)
	}
}

// randomKernel returns a kernel of random shared-memory accesses of every
// size (loads, stores, atomics, cp.async copies), at addresses computed
// from the thread index that collide within and across warps, aligned and
// unaligned to words, with barriers and divergent branches between them.
func randomKernel(rng *rand.Rand) string {
	var b strings.Builder
	b.WriteString(randomKernelHead + `	.reg .pred %p<4>;
	.reg .b32 %r<40>;
	.reg .b64 %rd<8>;
	ld.param.u64 %rd1, [p];
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, s;
`)
	// access appends a random access (never a barrier when inBranch) at
	// an address computed into %r10.
	access := func(inBranch bool) {
		// %r10 = s + ((tid*mul + add) & mask), a multiple of the size.
		sizes := []int{1, 2, 4, 8, 16}
		size := sizes[rng.Intn(len(sizes))]
		mul := []int{0, 1, 2, 4, 5, 8, 16}[rng.Intn(7)]
		add := rng.Intn(64)
		mask := []int{15, 63, 127, 255}[rng.Intn(4)] &^ (size - 1)
		fmt.Fprintf(&b, "\tmul.lo.u32 %%r10, %%r1, %d;\n\tadd.u32 %%r10, %%r10, %d;\n\tand.b32 %%r10, %%r10, %d;\n\tadd.u32 %%r10, %%r2, %%r10;\n", mul, add, mask)
		ty := map[int]string{1: "u8", 2: "u16", 4: "u32", 8: "u64", 16: "v4.u32"}[size]
		regs := map[int]string{1: "%r20", 2: "%r20", 4: "%r20", 8: "%rd3", 16: "{%r20, %r21, %r22, %r23}"}[size]
		var line string
		switch op := rng.Intn(10); {
		case op < 4 || op == 9 && inBranch:
			line = fmt.Sprintf("ld.shared.%s %s, [%%r10];", ty, regs)
		case op < 7:
			line = fmt.Sprintf("st.shared.%s [%%r10], %s;", ty, regs)
		case op < 8 && size == 4:
			line = "atom.shared.add.u32 %r24, [%r10], 1;"
		case op < 9 && (size == 4 || size == 8 || size == 16):
			line = fmt.Sprintf("cp.async.ca.shared.global [%%r10], [%%rd1], %d;", size)
		case op == 9:
			line = "bar.sync 0;"
		default:
			line = fmt.Sprintf("ld.shared.%s %s, [%%r10];", ty, regs)
		}
		b.WriteString("\t" + line + "\n")
	}
	g := &branchGen{b: &b, rng: rng, kinds: 5, side: 2, condBits: 6, access: access}
	block := g.block
	for i := 0; i < 6+rng.Intn(14); i++ {
		block(2, false)
		switch rng.Intn(6) {
		case 0:
			b.WriteString("\tbar.sync 0;\n")
		case 1:
			b.WriteString("\tcp.async.wait_all;\n")
		}
	}
	b.WriteString("\tret;\n}\n")
	return b.String()
}

// TestCheckerFastPathRandom: on random kernels the fast paths and the
// byte-exact checker report exactly the same warnings.
func TestCheckerFastPathRandom(t *testing.T) {
	rng := rand.New(rand.NewSource(9))
	iters := 300
	if testing.Short() {
		iters = 60
	}
	found := 0
	for i := 0; i < iters; i++ {
		src := randomKernel(rng)
		block := []int{32, 64, 96, 128}[rng.Intn(4)]
		s, err := launch.ParseSpec([]byte(fmt.Sprintf(`{"source": "(below)", "block": [%d], "buffers": [{"name": "p", "type": "u32", "count": 256, "init": {"fill": 1}}], "params": [{"buffer": "p"}]}`, block)))
		if err != nil {
			t.Fatal(err)
		}
		f, x, df, de := runBoth(t, fmt.Sprintf("random%d.ptx", i), []byte(src), s, true)
		sameWarnings(t, fmt.Sprintf("random kernel %d", i), f, x, df, de, src)
		if len(f) > 0 {
			found++
		}
	}
	// The kernels must exercise the checker, not be quiet.
	if found < iters/4 {
		t.Errorf("only %d of %d random kernels had warnings", found, iters)
	}
}
