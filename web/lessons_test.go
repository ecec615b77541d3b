package web

import (
	"context"
	"fmt"
	"html"
	"math"
	"os"
	"regexp"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/ptxplayground/ptxplay/engine/emu"
	"github.com/ptxplayground/ptxplay/engine/fpx"
	"github.com/ptxplayground/ptxplay/engine/launch"
	"github.com/ptxplayground/ptxplay/engine/ptx"
)

// The topics the lessons must cover, each by the lesson that teaches it.
var lessonTopics = map[string]string{
	"thread indexing":               "vector-add",
	"coalescing":                    "coalescing",
	"divergence":                    "divergence",
	"reconvergence":                 "reconvergence",
	"shared memory + bar.sync":      "shared-reduction",
	"warp shuffles":                 "warp-shuffle",
	"bank conflicts":                "transpose",
	"bank conflicts: padding":       "transpose-padded",
	"bank conflicts: XOR swizzle":   "transpose-swizzled",
	"atomics":                       "histogram",
	"__syncwarp in divergent code":  "syncwarp",
	"an intra-warp spin lock":       "spin-lock",
	"a producer/consumer in a warp": "producer-consumer",
	"ldmatrix + mma":                "mma-tile",
	"cp.async double buffering":     "cp-async",
	"distributed shared memory":     "dsmem-exchange",
	"a miniature GEMM":              "mini-gemm",
	"a TMA + mbarrier pipeline":     "tma-pipeline",
	"TMA swizzle modes":             "tma-swizzle",
	"a missing proxy fence":         "tma-missing-fence",
	"a real sm_90 module (TMA)":     "tma-dot",
	"a real wgmma GEMM (TMA)":       "fastcu-tma-wgmma",
	"a real wgmma GEMM (cp.async)":  "fastcu-cpasync-wgmma",
	"a compiler's kernel (Triton)":  "triton-matmul",
}

func TestLessonsCoverTopics(t *testing.T) {
	x := BuiltinExamples()
	n := 0
	for _, e := range x.List() {
		if e.Lesson == nil {
			t.Errorf("example %s has no lesson", e.Name)
			continue
		}
		n++
	}
	if n < 12 {
		t.Errorf("%d lessons, want at least 12", n)
	}
	for topic, name := range lessonTopics {
		if e := x.Get(name); e == nil || e.Lesson == nil {
			t.Errorf("no lesson %s on %s", name, topic)
		}
	}
	// Thread indexing first, the compiler's kernel last.
	list := x.List()
	if list[0].Name != "vector-add" || list[len(list)-1].Name != "triton-matmul" {
		t.Errorf("lessons run from %s to %s, want vector-add to triton-matmul", list[0].Name, list[len(list)-1].Name)
	}
}

// Every hint points at a real line of the kernel (not blank, not only a
// comment), the line holds the hint's code, and the panel is one the
// playground has.
func TestLessonHints(t *testing.T) {
	panels := playgroundPanels(t)
	for _, e := range BuiltinExamples().List() {
		if e.Lesson == nil {
			continue
		}
		lines := strings.Split(e.Source, "\n")
		sentences := len(regexp.MustCompile(`[.!?](\s|$)`).FindAllString(e.Lesson.Explanation, -1))
		if sentences < 2 || sentences > 4 {
			t.Errorf("%s: the explanation has %d sentences, want 2 to 4", e.Name, sentences)
		}
		if len(e.Lesson.Hints) < 3 {
			t.Errorf("%s: %d hints, want at least 3", e.Name, len(e.Lesson.Hints))
		}
		for i, h := range e.Lesson.Hints {
			if h.Line < 1 || h.Line > len(lines) {
				t.Errorf("%s: hint %d: line %d is not in the source (%d lines)", e.Name, i, h.Line, len(lines))
				continue
			}
			text := strings.TrimSpace(lines[h.Line-1])
			if text == "" || strings.HasPrefix(text, "//") {
				t.Errorf("%s: hint %d: line %d is blank or a comment: %q", e.Name, i, h.Line, text)
			}
			if h.Code == "" || !strings.Contains(text, h.Code) {
				t.Errorf("%s: hint %d: line %d (%q) does not hold its code %q", e.Name, i, h.Line, text, h.Code)
			}
			if !panels[h.Panel] {
				t.Errorf("%s: hint %d: the playground has no panel %q", e.Name, i, h.Panel)
			}
			// The Fragments tab shows mma and ldmatrix operands.
			if h.Panel == "fragments" && !strings.Contains(text, "mma") && !strings.Contains(text, "ldmatrix") {
				t.Errorf("%s: hint %d: line %d (%q) has no fragments to show", e.Name, i, h.Line, text)
			}
			if strings.TrimSpace(h.Text) == "" {
				t.Errorf("%s: hint %d has no text", e.Name, i)
			}
		}
	}
}

// playgroundPanels reads the panels a hint may name from the playground's
// template: the inspector tabs (data-tab) and the editor and warps panes.
func playgroundPanels(t *testing.T) map[string]bool {
	t.Helper()
	src, err := os.ReadFile("playground.templ")
	if err != nil {
		t.Fatal(err)
	}
	page := map[string]bool{}
	for _, m := range regexp.MustCompile(`data-tab="([a-z]+)"`).FindAllStringSubmatch(string(src), -1) {
		page[m[1]] = true
	}
	for _, pane := range []string{"editor", "warps"} {
		if strings.Contains(string(src), `id="pg-`+pane+`"`) {
			page[pane] = true
		}
	}
	for _, p := range LessonPanels {
		if !page[p] {
			t.Errorf("LessonPanels has %q, which web/playground.templ does not render", p)
		}
	}
	if len(page) != len(LessonPanels) {
		t.Errorf("the playground has panels %v, LessonPanels %v", page, LessonPanels)
	}
	return page
}

// Lessons are stepped in a classroom: all CTAs resident at once (the
// emulator keeps 4), and a few hundred threads at most.
func TestLessonLaunchSizes(t *testing.T) {
	for _, e := range BuiltinExamples().List() {
		ctas := e.Grid[0] * e.Grid[1] * e.Grid[2]
		threads := ctas * e.Block[0] * e.Block[1] * e.Block[2]
		if ctas > 4 || threads > 512 {
			t.Errorf("%s: %d CTAs, %d threads: too many to step through in a class", e.Name, ctas, threads)
		}
	}
}

// lessonRun is the outcome of a lesson's launch, run to the end.
type lessonRun struct {
	res *launch.Result
	// events maps each event kind to the source lines where it happened.
	events map[emu.EventKind]map[int]bool
	// depth is the deepest any warp's reconvergence stack grew.
	depth int
}

func runLesson(t *testing.T, e *Example) *lessonRun {
	t.Helper()
	return runLessonSched(t, e, "")
}

// runLessonSched runs a lesson under the scheduling model sched ("": the
// spec's).
func runLessonSched(t *testing.T, e *Example, sched string) *lessonRun {
	t.Helper()
	spec, err := e.Launch()
	if err != nil {
		t.Fatalf("spec: %v", err)
	}
	if sched != "" {
		spec.Scheduling = sched
	}
	prog, src, diags := launch.Compile(e.File, []byte(e.Source))
	if len(diags) > 0 {
		t.Errorf("diagnostics:\n%s", ptx.FormatAll(src, diags))
	}
	if prog == nil {
		t.FailNow()
	}
	l, err := launch.Prepare(prog, spec)
	if err != nil {
		t.Fatalf("prepare: %v", err)
	}
	lr := &lessonRun{events: map[emu.EventKind]map[int]bool{}}
	m := l.Machine()
	m.SetObserver(observerFunc(func(info *emu.StepInfo) {
		for _, ev := range info.Events {
			if lr.events[ev.Kind] == nil {
				lr.events[ev.Kind] = map[int]bool{}
			}
			if ev.PC >= 0 && ev.PC < len(prog.Spans) {
				lr.events[ev.Kind][src.Position(prog.Spans[ev.PC].Start).Line] = true
			}
		}
		for _, w := range m.Warps() {
			lr.depth = max(lr.depth, len(w.Stack()))
		}
	}))
	res, err := l.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != launch.StatusOK {
		msg := res.Message
		if res.Fault != nil {
			msg = res.Fault.Kind + ": " + res.Fault.Message + " at " + res.Fault.Instruction
		}
		t.Fatalf("status %s: %s", res.Status, msg)
	}
	lr.res = res
	return lr
}

type observerFunc func(*emu.StepInfo)

func (f observerFunc) Step(info *emu.StepInfo) { f(info) }

// Every lesson's launch compiles, runs to completion and produces the
// result its lesson states.
func TestLessonResults(t *testing.T) {
	for _, e := range BuiltinExamples().List() {
		if e.Lesson == nil {
			continue
		}
		t.Run(e.Name, func(t *testing.T) {
			lr := runLesson(t, e)
			for _, x := range e.Lesson.Expect.Buffers {
				checkExpect(t, lr.res, x)
			}
			// A hint on the Events tab points where an event happens.
			for i, h := range e.Lesson.Hints {
				if h.Panel != "events" {
					continue
				}
				found := false
				for _, lines := range lr.events {
					found = found || lines[h.Line]
				}
				if !found {
					t.Errorf("hint %d: no event at line %d", i, h.Line)
				}
			}
		})
	}
}

// The reconvergence lesson's promises: the warp rejoins at JOIN_PARITY,
// AFTER_LOOP and JOIN_ALL, with a branch nested in a branch on the stack.
func TestLessonReconvergence(t *testing.T) {
	e := BuiltinExamples().Get("reconvergence")
	lr := runLesson(t, e)
	lines := strings.Split(e.Source, "\n")
	want := map[int]bool{}
	for _, label := range []string{"JOIN_PARITY:", "AFTER_LOOP:", "JOIN_ALL:"} {
		for i, l := range lines {
			if strings.HasPrefix(strings.TrimSpace(l), label) {
				// The lanes rejoin at the instruction after the label.
				j := i + 1
				for strings.TrimSpace(lines[j]) == "" || strings.HasPrefix(strings.TrimSpace(lines[j]), "//") {
					j++
				}
				want[j+1] = true
			}
		}
	}
	if len(want) != 3 {
		t.Fatalf("found %d of the 3 join labels", len(want))
	}
	got := lr.events[emu.EvReconverge]
	for l := range want {
		if !got[l] {
			t.Errorf("no reconvergence at line %d (%s); reconvergences at %v", l, strings.TrimSpace(lines[l-1]), got)
		}
	}
	for l := range got {
		if !want[l] {
			t.Errorf("unexpected reconvergence at line %d (%s)", l, strings.TrimSpace(lines[l-1]))
		}
	}
	// The whole warp, split 1's two groups, and split 2's on top: nested
	// entries, deeper than one divergent branch makes (on the SIMT stack,
	// where paths run one after the other; with independent scheduling
	// the groups of both lessons take turns).
	one := runLessonSched(t, BuiltinExamples().Get("divergence"), "simt-stack")
	lr = runLessonSched(t, e, "simt-stack")
	if lr.depth <= one.depth {
		t.Errorf("the stack grew %d deep, no deeper than the single if/else's %d", lr.depth, one.depth)
	}
}

// checkExpect compares a buffer of the result with one expectation.
func checkExpect(t *testing.T, r *launch.Result, x ExpectBuffer) {
	t.Helper()
	for _, d := range expectDiffs(t, r, x) {
		t.Error(d)
	}
}

// expectDiffs lists how a buffer of the result differs from one
// expectation (at most 5 elements, then a count); none when it holds.
func expectDiffs(t *testing.T, r *launch.Result, x ExpectBuffer) []string {
	t.Helper()
	b := r.Buffer(x.Buffer)
	if b == nil {
		t.Fatalf("no buffer %q in the result", x.Buffer)
	}
	got := elems(t, b)
	var want []float64
	switch {
	case x.Iota != nil:
		for i := range got {
			want = append(want, x.Iota.Start+float64(i)*x.Iota.Step)
		}
	case x.Fill != nil:
		for range got {
			want = append(want, *x.Fill)
		}
	case x.Values != nil:
		want = x.Values
	case x.Check != "":
		check := lessonChecks[x.Check]
		if check == nil {
			t.Fatalf("%s: no reference check %q", x.Buffer, x.Check)
		}
		var of [][]float64
		for _, o := range x.Of {
			ob := r.Buffer(o)
			if ob == nil {
				t.Fatalf("%s: no buffer %q in the result", x.Buffer, o)
			}
			of = append(of, elems(t, ob))
		}
		want = check(t, of, len(got))
	default:
		t.Fatalf("%s: no expectation", x.Buffer)
	}
	if len(want) != len(got) {
		t.Fatalf("%s: %d elements, want %d", x.Buffer, len(got), len(want))
	}
	var diffs []string
	bad := 0
	for i := range got {
		if w := roundTo(t, b.Type, want[i]); got[i] != w {
			if bad++; bad <= 5 {
				diffs = append(diffs, fmt.Sprintf("%s[%d] = %v, want %v", x.Buffer, i, got[i], w))
			}
		}
	}
	if bad > 5 {
		diffs = append(diffs, fmt.Sprintf("%s: %d elements differ", x.Buffer, bad))
	}
	return diffs
}

// elems decodes a buffer's elements exactly.
func elems(t *testing.T, b *launch.BufferData) []float64 {
	t.Helper()
	out := make([]float64, b.Len())
	for i := range out {
		v := b.Bits(i)
		switch b.Type {
		case "f32":
			out[i] = float64(math.Float32frombits(uint32(v)))
		case "f64":
			out[i] = math.Float64frombits(v)
		case "f16":
			out[i] = math.Float64frombits(fpx.F16ToF64(uint16(v)))
		case "bf16":
			out[i] = float64(math.Float32frombits(fpx.BF16ToF32(uint16(v))))
		case "s8":
			out[i] = float64(int8(v))
		case "s16":
			out[i] = float64(int16(v))
		case "s32":
			out[i] = float64(int32(v))
		case "s64":
			out[i] = float64(int64(v))
		case "u8", "u16", "u32", "u64", "b8", "b16", "b32", "b64":
			out[i] = float64(v)
		default:
			t.Fatalf("buffer %s: unknown type %s", b.Name, b.Type)
		}
	}
	return out
}

// roundTo rounds v to the nearest value of the element type (integers
// must be exact).
func roundTo(t *testing.T, typ string, v float64) float64 {
	switch typ {
	case "f32":
		return float64(float32(v))
	case "f16":
		return math.Float64frombits(fpx.F16ToF64(fpx.F64ToF16(math.Float64bits(v), fpx.RN, 0)))
	case "bf16":
		return float64(math.Float32frombits(fpx.BF16ToF32(fpx.F64ToBF16(math.Float64bits(v), fpx.RN, 0))))
	case "f64":
		return v
	}
	if v != math.Trunc(v) {
		t.Fatalf("expected %v in an integer buffer (%s)", v, typ)
	}
	return v
}

// lessonChecks are the reference computations of ExpectBuffer.Check:
// each gets the "of" buffers and the size of the checked one and returns
// the expected elements, computed here without the emulator.
var lessonChecks = map[string]func(t *testing.T, of [][]float64, n int) []float64{
	// warp-sums: the sum of each 32 elements, in the order of a shuffle
	// tree (delta 16, 8, 4, 2, 1) in f32.
	"warp-sums": func(t *testing.T, of [][]float64, n int) []float64 {
		in := of[0]
		out := make([]float64, n)
		for w := range out {
			var v [32]float32
			for l := range v {
				v[l] = float32(in[32*w+l])
			}
			for d := 16; d >= 1; d /= 2 {
				var next [32]float32
				for l := range v {
					o := v[l]
					if l+d < 32 {
						o = v[l+d]
					}
					next[l] = v[l] + o
				}
				v = next
			}
			out[w] = float64(v[0])
		}
		return out
	},
	// transpose: of a square matrix.
	"transpose": func(t *testing.T, of [][]float64, n int) []float64 {
		in := of[0]
		w := int(math.Sqrt(float64(len(in))))
		if w*w != len(in) || n != len(in) {
			t.Fatalf("transpose of %d elements into %d", len(in), n)
		}
		out := make([]float64, n)
		for y := 0; y < w; y++ {
			for x := 0; x < w; x++ {
				out[x*w+y] = in[y*w+x]
			}
		}
		return out
	},
	// histogram: how often each value 0..n-1 occurs.
	"histogram": func(t *testing.T, of [][]float64, n int) []float64 {
		out := make([]float64, n)
		for i, v := range of[0] {
			if v < 0 || int(v) >= n {
				t.Fatalf("input %d is %v, outside the %d bins", i, v, n)
			}
			out[int(v)]++
		}
		return out
	},
	// matmul: C = A*B, all row-major (M x K times K x N).
	"matmul": func(t *testing.T, of [][]float64, n int) []float64 {
		a, b := of[0], of[1]
		m, k, nn := gemmDims(t, len(a), len(b), n)
		return gemm(m, k, nn, func(i, l int) float64 { return a[i*k+l] }, func(l, j int) float64 { return b[l*nn+j] })
	},
	// matmul-bt: C = A*B with B stored n-major (N rows of K).
	"matmul-bt": func(t *testing.T, of [][]float64, n int) []float64 {
		a, bt := of[0], of[1]
		m, k, nn := gemmDims(t, len(a), len(bt), n)
		return gemm(m, k, nn, func(i, l int) float64 { return a[i*k+l] }, func(l, j int) float64 { return bt[j*k+l] })
	},
}

// gemmDims finds M, K, N from the sizes of A (M*K), B (K*N) and C (M*N).
func gemmDims(t *testing.T, a, b, c int) (m, k, n int) {
	t.Helper()
	m = int(math.Round(math.Sqrt(float64(a) * float64(c) / float64(b))))
	if m == 0 || a%m != 0 || c%m != 0 {
		t.Fatalf("no M, K, N for sizes %d, %d, %d", a, b, c)
	}
	k, n = a/m, c/m
	if k*n != b {
		t.Fatalf("no M, K, N for sizes %d, %d, %d", a, b, c)
	}
	return m, k, n
}

// gemm computes C = A*B in float64 (exact for the lessons' small integers).
func gemm(m, k, n int, a, b func(i, j int) float64) []float64 {
	c := make([]float64, m*n)
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			var s float64
			for l := 0; l < k; l++ {
				s += a(i, l) * b(l, j)
			}
			c[i*n+j] = s
		}
	}
	return c
}

// A gallery's lessons are checked when it loads.
func TestLessonLoadErrors(t *testing.T) {
	kernel := ".version 8.0\n.target sm_80\n.address_size 64\n\n// a comment\n.visible .entry k(.param .u64 p)\n{\n\tret;\n}\n"
	spec := `{"ptx": "k.ptx", "block": [32], "buffers": [{"name": "p", "type": "u32", "count": 32}, {"name": "q", "type": "u32", "count": 4, "output": false}], "params": [{"buffer": "p"}]}`
	good := `{"explanation": "Text. More.", "hints": [{"line": 8, "code": "ret", "panel": "warps", "text": "t"}], "expect": {"result": "r", "buffers": [{"buffer": "p", "fill": 0}]}}`
	load := func(lesson string) error {
		idx := `[{"name": "k", "title": "K", "description": "d", "spec": "k.json", "lesson": ` + lesson + `}]`
		_, err := LoadExamples(fstest.MapFS{
			"index.json": {Data: []byte(idx)},
			"k.json":     {Data: []byte(spec)},
			"k.ptx":      {Data: []byte(kernel)},
		})
		return err
	}
	if err := load(good); err != nil {
		t.Fatalf("a good lesson: %v", err)
	}
	for _, c := range []struct{ from, to, want string }{
		{`"line": 8`, `"line": 5`, "blank or only a comment"},
		{`"line": 8`, `"line": 4`, "blank or only a comment"},
		{`"line": 8`, `"line": 99`, "outside the source"},
		{`"code": "ret"`, `"code": "exit"`, `does not contain "exit"`},
		{`"panel": "warps"`, `"panel": "registers"`, `unknown panel "registers"`},
		{`"buffer": "p"`, `"buffer": "x"`, `no buffer "x"`},
		{`"buffer": "p"`, `"buffer": "q"`, "not an output"},
		{`"fill": 0`, `"fill": 0, "iota": {"start": 0, "step": 1}`, "exactly one of"},
		{`"fill": 0`, `"values": [1, 2]`, "2 values for 32 elements"},
		{`"fill": 0`, `"check": "matmul", "of": ["a", "b"]`, `no output buffer "a"`},
		{`"explanation": "Text. More."`, `"explanation": " "`, "no explanation"},
		{`"result": "r"`, `"result": ""`, "no result"},
		{`"panel": "warps"`, `"panel": "warps", "colour": 1`, "unknown field"},
	} {
		bad := strings.Replace(good, c.from, c.to, 1)
		err := load(bad)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s -> %s: error %v, want %q", c.from, c.to, err, c.want)
		}
	}
}

// The gallery page shows each lesson's title, explanation and number.
func TestGalleryPageLessons(t *testing.T) {
	x := BuiltinExamples()
	var buf strings.Builder
	if err := GalleryPage(x.Infos()).Render(context.Background(), &buf); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	for i, e := range x.List() {
		card := page[strings.Index(page, `id="example-`+e.Name+`"`):]
		card = card[:strings.Index(card, "</li>")]
		for _, want := range []string{
			html.EscapeString(e.Title),
			html.EscapeString(e.Lesson.Explanation),
			fmt.Sprintf("Lesson %d · %s", i+1, e.Entry),
		} {
			if !strings.Contains(card, want) {
				t.Errorf("%s: the card lacks %q", e.Name, want)
			}
		}
	}
}

// A hint's shows counts a conflict against the access's ideal: a warp's
// 16-byte load takes 4 wavefronts at best, so 4 is "no conflict" and 32 is
// an 8-way conflict, not a 32-way one.
func TestHintShowsIdeal(t *testing.T) {
	for _, c := range []struct {
		s    HintShows
		text string
		ok   bool
	}{
		{HintShows{Wavefronts: 4, Ideal: 4, Swizzle: "none"}, "4 wavefronts, no conflict", true},
		{HintShows{Wavefronts: 4, Ideal: 4, Swizzle: "none"}, "a 4-way conflict", false},
		{HintShows{Wavefronts: 32, Ideal: 4, Swizzle: "none"}, "an 8-way conflict", true},
		{HintShows{Wavefronts: 32, Ideal: 4, Swizzle: "none"}, "a 32-way conflict", false},
		{HintShows{Wavefronts: 6, Ideal: 4, Swizzle: "none"}, "a 1-way conflict", false},
		{HintShows{Wavefronts: 2, Ideal: 4, Swizzle: "none"}, "no conflict", false},
		{HintShows{Wavefronts: 32, Swizzle: "none"}, "a 32-way conflict", true},
		{HintShows{Wavefronts: 1, Swizzle: "none"}, "no conflict", true},
	} {
		if err := c.s.check(c.text); (err == nil) != c.ok {
			t.Errorf("%+v with %q: %v, want ok %v", c.s, c.text, err, c.ok)
		}
	}
}
