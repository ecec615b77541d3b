package analysis_test

import (
	"context"
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/ptxplayground/ptxplay/engine/analysis"
	"github.com/ptxplayground/ptxplay/engine/emu"
	"github.com/ptxplayground/ptxplay/engine/launch"
)

// everyStep hides the checker's Observes: the machine reports every
// instruction to it, with everything.
type everyStep struct{ c *analysis.Checker }

func (e everyStep) Step(in *emu.StepInfo) { e.c.Step(in) }

// checkBoth runs a launch twice, with the checker as the selective
// observer it declares itself (called for accesses, events and changes of
// a warp's active lanes) and behind a plain observer that sees every
// instruction, and returns both warning lists as text.
func checkBoth(t *testing.T, file string, src []byte, s *launch.Spec) (sel, all string, n int) {
	t.Helper()
	prog, _, _ := launch.Compile(file, src)
	if prog == nil {
		t.Fatal("compile failed")
	}
	var out [2]string
	for i := range out {
		l, err := launch.Prepare(prog, s)
		if err != nil {
			t.Fatal(err)
		}
		chk := l.NewChecker()
		if i == 0 {
			l.Machine().AddObserver(chk)
		} else {
			l.Machine().AddObserver(everyStep{chk})
		}
		if _, err := l.Run(context.Background()); err != nil {
			t.Fatal(err)
		}
		ws := chk.Warnings()
		n = len(ws)
		out[i] = fmt.Sprintf("%+v dropped %d steps %d", ws, chk.Dropped(), chk.Steps())
	}
	return out[0], out[1], n
}

// The checker finds the same warnings (same steps, threads, counts) when
// it is called only where it asks to be as when it sees every
// instruction: on every gallery example and on divergent kernels, under
// both scheduling models.
func TestCheckerSelectiveSameWarnings(t *testing.T) {
	type tc struct {
		name, file string
		src        []byte
		spec       *launch.Spec
	}
	var cases []tc
	for _, ex := range galleryExamples(t) {
		name, s, text, file := ex.name, ex.spec, ex.text, ex.file
		cases = append(cases, tc{name, file, text, s})
	}
	// The two sides of a branch race on s[t^16]; after reconvergence the
	// warp's own lanes are ordered.
	div := kernel(`
	shl.b32 %r3, %r1, 2;
	add.u32 %r4, %r2, %r3;
	and.b32 %r9, %r1, 31;
	setp.lt.u32 %p1, %r9, 16;
	@%p1 bra A;
	st.shared.u32 [%r4], %r1;
	bra.uni J;
A:
	xor.b32 %r5, %r3, 64;
	add.u32 %r6, %r2, %r5;
	ld.shared.u32 %r7, [%r6];
J:
	xor.b32 %r5, %r3, 4;
	add.u32 %r6, %r2, %r5;
	ld.shared.u32 %r8, [%r6];
	st.shared.u32 [%r6], %r8;`)
	// Lanes 0-15 write s[t] on one side of a branch, the warp reconverges
	// for register-only instructions, and lanes 16-31 read those words on
	// one side of a second branch: the reconverged run orders them, which
	// the checker knows only if it hears of the change of active lanes.
	reconv := kernel(`
	and.b32 %r9, %r1, 31;
	shl.b32 %r3, %r1, 2;
	add.u32 %r4, %r2, %r3;
	setp.lt.u32 %p1, %r9, 16;
	@!%p1 bra B1;
	st.shared.u32 [%r4], %r1;
B1:
	add.u32 %r10, %r1, 7;
	mul.lo.u32 %r10, %r10, 3;
	@%p1 bra B2;
	sub.u32 %r5, %r4, 64;
	ld.shared.u32 %r7, [%r5];
B2:
	add.u32 %r11, %r10, 1;`)
	for _, sched := range []string{"simt-stack", "independent"} {
		s, err := launch.ParseSpec([]byte(`{"source": "(below)", "scheduling": "` + sched + `", ` + spec64[1:]))
		if err != nil {
			t.Fatal(err)
		}
		cases = append(cases, tc{"divergent/" + sched, "k.ptx", []byte(div), s}, tc{"reconverged/" + sched, "k.ptx", []byte(reconv), s})
	}
	flagged := 0
	for _, c := range cases {
		sel, all, n := checkBoth(t, c.file, c.src, c.spec)
		if sel != all {
			t.Errorf("%s: selective checker\n%s\nevery step\n%s", c.name, sel, all)
		}
		if strings.HasPrefix(c.name, "divergent/") && n == 0 {
			t.Errorf("%s: no warning", c.name)
		}
		if strings.HasPrefix(c.name, "reconverged/") && n != 0 {
			t.Errorf("%s: warnings %s", c.name, sel)
		}
		flagged += n
	}
	if flagged == 0 {
		t.Fatal("no case has warnings")
	}
}

// checkDispatch runs a launch with the checker twice, with batched
// dispatch (the default: the checker asks for no call per instruction,
// so register-only instructions run ahead) and one instruction at a time,
// and returns both warning lists as text.
func checkDispatch(t *testing.T, file string, src []byte, s *launch.Spec) (batched, plain string, n int) {
	t.Helper()
	prog, _, _ := launch.Compile(file, src)
	if prog == nil {
		t.Fatal("compile failed")
	}
	var out [2]string
	for i := range out {
		l, err := launch.Prepare(prog, s)
		if err != nil {
			t.Fatal(err)
		}
		l.Machine().SetBatchedDispatch(i == 0)
		chk := l.NewChecker()
		l.Machine().AddObserver(chk)
		res, err := l.Run(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		ws := chk.Warnings()
		n = len(ws)
		out[i] = fmt.Sprintf("%s %+v dropped %d steps %d", res.Status, ws, chk.Dropped(), chk.Steps())
	}
	return out[0], out[1], n
}

// The checker's verdicts are the same with batched dispatch as one
// instruction at a time (same warnings, steps, threads, counts): on every
// gallery example and on random kernels.
func TestCheckerBatchedSameWarnings(t *testing.T) {
	n := 0
	for _, ex := range galleryExamples(t) {
		name, s, text, file := ex.name, ex.spec, ex.text, ex.file
		b, p, _ := checkDispatch(t, file, text, s)
		if b != p {
			t.Errorf("%s: batched and one-at-a-time checks differ\nbatched: %s\nplain:   %s", name, b, p)
		}
		n++
	}
	if n < 5 {
		t.Fatalf("only %d gallery examples", n)
	}
	rng := rand.New(rand.NewSource(26))
	iters := 200
	if testing.Short() {
		iters = 40
	}
	found := 0
	for i := 0; i < iters; i++ {
		src := randomKernel(rng)
		block := []int{32, 64, 96, 128}[rng.Intn(4)]
		s, err := launch.ParseSpec([]byte(fmt.Sprintf(`{"source": "(below)", "block": [%d], "grid": [2], "buffers": [{"name": "p", "type": "u32", "count": 256, "init": {"fill": 1}}], "params": [{"buffer": "p"}]}`, block)))
		if err != nil {
			t.Fatal(err)
		}
		b, p, k := checkDispatch(t, fmt.Sprintf("random%d.ptx", i), []byte(src), s)
		if b != p {
			t.Fatalf("random kernel %d: batched and one-at-a-time checks differ\nbatched: %s\nplain:   %s\n%s", i, b, p, src)
		}
		if k > 0 {
			found++
		}
	}
	if found < iters/4 {
		t.Errorf("only %d of %d random kernels had warnings", found, iters)
	}
}
