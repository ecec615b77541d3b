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

// runWarpLane runs prog with spec s under two checkers at once, one with
// the warp-access path and one checking every shared access lane by lane
// (analysis.LanePath), compares their shadows after every step with an
// access, and returns their warnings and dropped counts. It also returns
// how many steps had a shared access.
func runWarpLane(t *testing.T, name string, prog []byte, s *launch.Spec) (warp, lane []analysis.Warning, dw, dl int64) {
	t.Helper()
	p, diags, _ := launch.Compile(name, prog)
	if p == nil {
		t.Fatalf("%s: compile: %v\n%s", name, diags, prog)
	}
	l, err := launch.Prepare(p, s)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	cw, cl := l.NewChecker(), l.NewChecker()
	analysis.LanePath(cl)
	l.Machine().AddObserver(&twoCheckers{t: t, name: name, fast: cw, exact: cl, shadows: true})
	if _, err := l.Run(context.Background()); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	word, regular, wide := analysis.WarpAccesses(cw)
	warpPathWord += word
	warpPathRegular += regular
	warpPathWide += wide
	return cw.Warnings(), cl.Warnings(), cw.Dropped(), cl.Dropped()
}

// warpPathWord, warpPathRegular and warpPathWide count the accesses
// runWarpLane's warp-access checkers checked a word at a time, grouped by
// pattern (groupRegular) and of 8 or 16 bytes.
var warpPathWord, warpPathRegular, warpPathWide int64

// wordKernel returns a kernel of random 4-byte shared loads and stores
// (the accesses the warp-access path takes), most of them after the
// shared words were written, at word addresses computed from the thread
// index that collide within and across warps (every lane one word, lanes
// sharing words, warps sharing words), with barriers, divergent branches
// and now and then an access of another size or an atomic (which split
// words or take the lane path) between them.
func wordKernel(rng *rand.Rand) string {
	var b strings.Builder
	b.WriteString(randomKernelHead + `	.reg .pred %p<4>;
	.reg .b32 %r<40>;
	.reg .b64 %rd<8>;
	ld.param.u64 %rd1, [p];
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, s;
	cvt.u64.u32 %rd2, %r1;
`)
	if rng.Intn(4) > 0 {
		// Every word written first (by lanes of every warp).
		b.WriteString("\tand.b32 %r10, %r1, 127;\n\tshl.b32 %r10, %r10, 2;\n\tadd.u32 %r10, %r2, %r10;\n\tst.shared.u32 [%r10], %r1;\n")
		if rng.Intn(3) > 0 {
			b.WriteString("\tbar.sync 0;\n")
		}
	}
	access := func() {
		mul := []int{0, 0, 1, 1, 2, 3, 16, 32, 33}[rng.Intn(9)]
		div := []int{1, 1, 2, 16, 32}[rng.Intn(5)]
		add := rng.Intn(128)
		// The lane's index, or one that puts both half-warps on the same
		// words (a tile's column), or one half on a run of words and the
		// other on one word.
		b.WriteString([]string{"\tmov.u32 %r10, %r1;\n", "\tmov.u32 %r10, %r1;\n", "\tand.b32 %r10, %r1, 15;\n",
			"\tmin.u32 %r10, %r1, 16;\n", "\tmax.u32 %r10, %r1, 15;\n"}[rng.Intn(5)])
		fmt.Fprintf(&b, "\tdiv.u32 %%r10, %%r10, %d;\n\tmul.lo.u32 %%r10, %%r10, %d;\n\tadd.u32 %%r10, %%r10, %d;\n", div, mul, add)
		if rng.Intn(4) == 0 {
			// An 8- or 16-byte access (two or four words a lane).
			wide := [][3]string{{"3", "63", "u64"}, {"3", "63", "v2.u32"}, {"4", "31", "v4.u32"}}[rng.Intn(3)]
			fmt.Fprintf(&b, "\tand.b32 %%r10, %%r10, %s;\n\tshl.b32 %%r10, %%r10, %s;\n\tadd.u32 %%r10, %%r2, %%r10;\n", wide[1], wide[0])
			regs := map[string][2]string{"u64": {"%rd4", "%rd2"}, "v2.u32": {"{%r20, %r21}", "{%r1, %r1}"}, "v4.u32": {"{%r20, %r21, %r22, %r23}", "{%r1, %r1, %r1, %r1}"}}[wide[2]]
			if rng.Intn(2) == 0 {
				fmt.Fprintf(&b, "\tld.shared.%s %s, [%%r10];\n", wide[2], regs[0])
			} else {
				fmt.Fprintf(&b, "\tst.shared.%s [%%r10], %s;\n", wide[2], regs[1])
			}
			return
		}
		fmt.Fprintf(&b, "\tand.b32 %%r10, %%r10, 127;\n\tshl.b32 %%r10, %%r10, 2;\n\tadd.u32 %%r10, %%r2, %%r10;\n")
		switch op := rng.Intn(20); {
		case op < 11:
			b.WriteString("\tld.shared.u32 %r20, [%r10];\n")
		case op < 18:
			b.WriteString("\tst.shared.u32 [%r10], %r1;\n")
		case op < 19:
			b.WriteString("\tatom.shared.add.u32 %r24, [%r10], 1;\n")
		default:
			b.WriteString("\tst.shared.u8 [%r10+1], %r1;\n")
		}
	}
	label := 0
	for i := 0; i < 8+rng.Intn(20); i++ {
		switch rng.Intn(8) {
		case 0:
			b.WriteString("\tbar.sync 0;\n")
		case 1:
			// A lane subset skips some accesses.
			fmt.Fprintf(&b, "\tand.b32 %%r11, %%r1, %d;\n\tsetp.eq.u32 %%p1, %%r11, 0;\n", 1<<rng.Intn(6))
			label++
			fmt.Fprintf(&b, "\t@%%p1 bra L%d;\n", label)
			access()
			access()
			fmt.Fprintf(&b, "L%d:\n", label)
		default:
			access()
		}
	}
	b.WriteString("\tret;\n}\n")
	return b.String()
}

// TestCheckerWarpPathRandom: on random kernels, under both scheduling
// models, the warp-access path leaves the same shadow after every access
// and reports the same warnings as checking every lane on its own.
func TestCheckerWarpPathRandom(t *testing.T) {
	warpPathWord, warpPathRegular, warpPathWide = 0, 0, 0
	rng := rand.New(rand.NewSource(27))
	iters := 200
	if testing.Short() {
		iters = 40
	}
	found := 0
	for _, sched := range []string{"independent", "simt-stack"} {
		for i := 0; i < iters; i++ {
			src := randomKernel(rng)
			if i%2 == 1 {
				src = wordKernel(rng)
			}
			block := []int{32, 64, 96, 128}[rng.Intn(4)]
			s, err := launch.ParseSpec([]byte(fmt.Sprintf(`{"source": "(below)", "block": [%d], "grid": [2], "buffers": [{"name": "p", "type": "u32", "count": 256, "init": {"fill": 1}}], "params": [{"buffer": "p"}]}`, block)))
			if err != nil {
				t.Fatal(err)
			}
			s.Scheduling = sched
			name := fmt.Sprintf("%s random kernel %d", sched, i)
			wv, lv, dw, dl := runWarpLane(t, name, []byte(src), s)
			if !reflect.DeepEqual(wv, lv) || dw != dl {
				t.Fatalf("%s: warp-access and lane-by-lane checks disagree\nwarp (%d dropped): %+v\nlane (%d dropped): %+v\n%s", name, dw, wv, dl, lv, src)
			}
			if t.Failed() {
				t.Fatalf("%s:\n%s", name, src)
			}
			if len(wv) > 0 {
				found++
			}
		}
	}
	if found < iters/4 {
		t.Errorf("only %d of %d random kernels had warnings", found, 2*iters)
	}
	t.Logf("%d of %d word-path accesses grouped by pattern, %d of 8 or 16 bytes", warpPathRegular, warpPathWord, warpPathWide)
	if warpPathWide == 0 {
		t.Errorf("no 8- or 16-byte access took the word path")
	}
	if warpPathRegular == 0 || warpPathRegular == warpPathWord {
		t.Errorf("%d of %d word-path accesses grouped by pattern: both paths must run", warpPathRegular, warpPathWord)
	}
}

// TestCheckerWarpPathGallery: on every gallery example the warp-access
// path leaves the same shadows and reports the same warnings as checking
// lane by lane.
func TestCheckerWarpPathGallery(t *testing.T) {
	n := 0
	for _, ex := range galleryExamples(t) {
		name, s, text, file := ex.name, ex.spec, ex.text, ex.file
		wv, lv, dw, dl := runWarpLane(t, file, text, s)
		if !reflect.DeepEqual(wv, lv) || dw != dl {
			t.Errorf("%s: warp-access and lane-by-lane checks disagree\nwarp (%d dropped): %+v\nlane (%d dropped): %+v", name, dw, wv, dl, lv)
		}
		n++
	}
	if n < 5 {
		t.Fatalf("only %d gallery examples", n)
	}
}

var _ emu.Observer = (*twoCheckers)(nil)
