package web

import (
	"context"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/ptxplayground/ptxplay/engine/cuda"
	"github.com/ptxplayground/ptxplay/engine/launch"
	"github.com/ptxplayground/ptxplay/engine/ptx"
)

// The lessons that have a CUDA version, by topic (issue: thread indexing,
// divergence, shared memory + __syncthreads, bank conflicts and padding,
// warp shuffles, an inline-PTX mma.sync tile).
var cudaLessonTopics = map[string]string{
	"thread indexing":               "vector-add",
	"divergence":                    "divergence",
	"shared memory + __syncthreads": "shared-reduction",
	"bank conflicts":                "transpose",
	"bank conflicts: padding":       "transpose-padded",
	"warp shuffles":                 "warp-shuffle",
	"an inline-PTX mma.sync tile":   "mma-tile",
}

func TestCUDALessonsCoverTopics(t *testing.T) {
	x := BuiltinExamples()
	for topic, name := range cudaLessonTopics {
		e := x.Get(name)
		if e == nil || e.CUDA == nil || e.CUDA.Lesson == nil {
			t.Errorf("no CUDA lesson %s on %s", name, topic)
			continue
		}
		if in := e.Info(); in.CUDA == nil || in.CUDA.Lesson != e.CUDA.Lesson {
			t.Errorf("%s: the gallery's short form does not carry the CUDA lesson", name)
		}
	}
	// The inline-PTX lesson writes mma.sync as CUDA users do.
	if src := x.Get("mma-tile").CUDA.Source; !strings.Contains(src, `asm volatile("mma.sync.aligned.m16n8k16`) {
		t.Errorf("mma-tile.cu has no asm volatile mma.sync.aligned.m16n8k16")
	}
}

// Every CUDA hint names a CUDA line with code (not blank, not a comment)
// that holds its code, an instruction and a panel the playground has.
func TestCUDALessonHints(t *testing.T) {
	panels := playgroundPanels(t)
	for _, e := range BuiltinExamples().List() {
		if e.CUDA == nil {
			continue
		}
		l := e.CUDA.Lesson
		lines := strings.Split(e.CUDA.Source, "\n")
		sentences := len(regexp.MustCompile(`[.!?](\s|$)`).FindAllString(l.Explanation, -1))
		if sentences < 2 || sentences > 4 {
			t.Errorf("%s: the CUDA explanation has %d sentences, want 2 to 4", e.Name, sentences)
		}
		if len(l.Hints) < 3 {
			t.Errorf("%s: %d CUDA hints, want at least 3", e.Name, len(l.Hints))
		}
		for i, h := range l.Hints {
			if h.Line != 0 || h.CUDALine < 1 || h.CUDALine > len(lines) {
				t.Errorf("%s: CUDA hint %d: line %d, cudaLine %d", e.Name, i, h.Line, h.CUDALine)
				continue
			}
			text := strings.TrimSpace(lines[h.CUDALine-1])
			if h.Code == "" || !strings.Contains(text, h.Code) {
				t.Errorf("%s: CUDA hint %d: line %d (%q) does not hold its code %q", e.Name, i, h.CUDALine, text, h.Code)
			}
			if h.PTX == "" || !panels[h.Panel] || strings.TrimSpace(h.Text) == "" {
				t.Errorf("%s: CUDA hint %d: ptx %q, panel %q, text %q", e.Name, i, h.PTX, h.Panel, h.Text)
			}
		}
	}
}

// needClang skips a test when clang-19 is not installed (make test
// installs it).
func needClang(t *testing.T) {
	t.Helper()
	if err := cuda.Default().Available(); err != nil {
		if _, lerr := exec.LookPath("clang-19"); lerr == nil {
			t.Fatalf("clang-19 is on PATH but unusable: %v", err)
		}
		t.Skipf("skipping: %v", err)
	}
}

// compileCUDALesson compiles a CUDA twin with its options.
func compileCUDALesson(t *testing.T, e *Example) *cuda.Result {
	t.Helper()
	o := e.CUDA.Options
	r, err := cuda.Compile(context.Background(), e.CUDA.Source, cuda.SpecOptions(&o))
	if err != nil {
		t.Fatal(err)
	}
	if !r.OK() {
		t.Fatalf("%s: compile failed:\n%s", e.CUDA.File, r.Errors())
	}
	for _, d := range r.Diagnostics {
		t.Errorf("%s: %s", e.CUDA.File, d)
	}
	return r
}

// Every CUDA lesson compiles, runs to completion under both scheduling
// models and produces the result it states.
func TestCUDALessonResults(t *testing.T) {
	needClang(t)
	for _, e := range BuiltinExamples().List() {
		if e.CUDA == nil {
			continue
		}
		t.Run(e.Name, func(t *testing.T) {
			r := compileCUDALesson(t, e)
			for _, sched := range []string{"independent", "simt-stack"} {
				spec, err := e.CUDALaunch(r.PTX)
				if err != nil {
					t.Fatal(err)
				}
				spec.Scheduling = sched
				prog, src, diags := launch.Compile("kernel.ptx", []byte(r.PTX))
				if len(diags) > 0 {
					t.Errorf("PTX diagnostics:\n%s", ptx.FormatAll(src, diags))
				}
				if prog == nil {
					t.FailNow()
				}
				res, err := launch.Run(context.Background(), prog, spec)
				if err != nil {
					t.Fatal(err)
				}
				if res.Status != launch.StatusOK {
					msg := res.Message
					if res.Fault != nil {
						msg = res.Fault.Kind + ": " + res.Fault.Message + " at " + res.Fault.Instruction
					}
					t.Fatalf("%s: status %s: %s", sched, res.Status, msg)
				}
				for _, x := range e.CUDA.Lesson.Expect.Buffers {
					for _, d := range expectDiffs(t, res, x) {
						t.Errorf("%s: %s", sched, d)
					}
				}
			}
		})
	}
}

// The mapping of every CUDA lesson: each hint's CUDA line maps to at least
// one PTX line whose instruction is the one the hint is about (the
// __syncthreads() line to a bar.sync, the asm line to its mma.sync), and
// each of those PTX lines maps back to a CUDA line.
func TestCUDALessonMapping(t *testing.T) {
	needClang(t)
	for _, e := range BuiltinExamples().List() {
		if e.CUDA == nil {
			continue
		}
		t.Run(e.Name, func(t *testing.T) {
			r := compileCUDALesson(t, e)
			ptxLines := strings.Split(r.PTX, "\n")
			for i, h := range e.CUDA.Lesson.Hints {
				var got []string
				found := false
				for _, pl := range r.Map.PTXLines(h.CUDALine) {
					in := ptxInstruction(ptxLines[pl-1])
					got = append(got, in)
					found = found || strings.HasPrefix(in, h.PTX)
					if loc, ok := r.Map.CUDA(pl); !ok || loc.Line != h.CUDALine {
						t.Errorf("hint %d: PTX line %d is listed for CUDA line %d but maps to %+v", i, pl, h.CUDALine, loc)
					}
				}
				if !found {
					t.Errorf("hint %d: CUDA line %d (%s) maps to no %q; its PTX: %q", i, h.CUDALine, h.Code, h.PTX, got)
				}
			}
			// Inlined header code lands on the line that wrote it: each
			// shuffle on a line calling __shfl*, each special-register read
			// on a line naming its built-in variable.
			src := strings.Split(e.CUDA.Source, "\n")
			for pl, l := range ptxLines {
				in := ptxInstruction(l)
				if in == "" || strings.HasPrefix(in, ".") {
					continue
				}
				for _, w := range []struct{ ptx, cuda string }{{"shfl.sync", "__shfl"}, {"%ctaid.", "blockIdx"}, {"%ntid.", "blockDim"}, {"%tid.", "threadIdx"}} {
					if !strings.Contains(in, w.ptx) {
						continue
					}
					loc, ok := r.Map.CUDA(pl + 1)
					if !ok || loc.Line > len(src) || !strings.Contains(src[loc.Line-1], w.cuda) {
						t.Errorf("%q (PTX line %d) maps to %+v, a line without %s", in, pl+1, loc, w.cuda)
					}
				}
			}
		})
	}
}

// ptxInstruction is a PTX line's instruction without its guard predicate
// and comment: "@%p1 bra $L__BB0_2;" is "bra $L__BB0_2;".
func ptxInstruction(line string) string {
	if c := strings.Index(line, "//"); c >= 0 {
		line = line[:c]
	}
	f := strings.Fields(line)
	if len(f) > 0 && strings.HasPrefix(f[0], "@") {
		f = f[1:]
	}
	return strings.Join(f, " ")
}

// A CUDA twin's mistakes are caught when the gallery loads: hints must
// name CUDA lines with code and the PTX instruction, the spec its CUDA
// file.
func TestCUDALessonLoadErrors(t *testing.T) {
	kernel := ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k(.param .u64 p)\n{\n\tret;\n}\n"
	spec := `{"ptx": "k.ptx", "block": [32], "buffers": [{"name": "p", "type": "u32", "count": 32}], "params": [{"buffer": "p"}]}`
	cspec := `{"cuda": "k.cu", "block": [32], "buffers": [{"name": "p", "type": "u32", "count": 32}], "params": [{"buffer": "p"}]}`
	cu := "// k\n__global__ void k(unsigned *p) {\n  p[threadIdx.x] = 0;\n}\n"
	good := `{"explanation": "Text. More.", "hints": [{"cudaLine": 3, "ptx": "st.global", "code": "p[threadIdx.x]", "panel": "memory", "text": "t"}], "expect": {"result": "r", "buffers": [{"buffer": "p", "fill": 0}]}}`
	load := func(lesson, cspec string) (*Examples, error) {
		idx := `[{"name": "k", "title": "K", "description": "d", "spec": "k.json", "cuda": {"spec": "k-cuda.json", "lesson": ` + lesson + `}}]`
		return LoadExamples(fstest.MapFS{
			"index.json":  {Data: []byte(idx)},
			"k.json":      {Data: []byte(spec)},
			"k.ptx":       {Data: []byte(kernel)},
			"k-cuda.json": {Data: []byte(cspec)},
			"k.cu":        {Data: []byte(cu)},
		})
	}
	x, err := load(good, cspec)
	if err != nil {
		t.Fatalf("a good CUDA lesson: %v", err)
	}
	c := x.Get("k").CUDA
	if c == nil || c.Source != cu || c.File != "k.cu" || c.Options.Level() != 2 || strings.Contains(string(c.Spec), `"cuda"`) {
		t.Errorf("CUDA twin loaded as %+v", c)
	}
	for _, b := range []struct{ from, to, want string }{
		{`"cudaLine": 3`, `"line": 3`, `names its line with "cudaLine"`},
		{`"cudaLine": 3`, `"cudaLine": 3, "line": 6`, `names its line with "cudaLine"`},
		{`"ptx": "st.global", `, ``, `no "ptx"`},
		{`"cudaLine": 3`, `"cudaLine": 1`, "blank or only a comment"},
		{`"cudaLine": 3`, `"cudaLine": 9`, "outside the source"},
		{`"code": "p[threadIdx.x]"`, `"code": "q[0]"`, `does not contain "q[0]"`},
		{`"panel": "memory"`, `"panel": "memory", "shows": {"wavefronts": 1, "swizzle": "none"}`, `"shows" is for PTX lessons`},
		{`"buffer": "p"`, `"buffer": "x"`, `no buffer "x"`},
	} {
		if _, err := load(strings.Replace(good, b.from, b.to, 1), cspec); err == nil || !strings.Contains(err.Error(), b.want) {
			t.Errorf("%s -> %s: error %v, want %q", b.from, b.to, err, b.want)
		}
	}
	if _, err := load(good, strings.Replace(cspec, `"cuda": "k.cu"`, `"ptx": "k.ptx"`, 1)); err == nil || !strings.Contains(err.Error(), `must name its CUDA file`) {
		t.Errorf("a CUDA twin whose spec names PTX: %v", err)
	}
	// A PTX lesson's hint may not name a CUDA line.
	idx := `[{"name": "k", "title": "K", "description": "d", "spec": "k.json", "lesson": {"explanation": "A. B.", "hints": [{"line": 6, "cudaLine": 3, "code": "ret", "panel": "warps", "text": "t"}], "expect": {"result": "r", "buffers": [{"buffer": "p", "fill": 0}]}}}]`
	if _, err := LoadExamples(fstest.MapFS{"index.json": {Data: []byte(idx)}, "k.json": {Data: []byte(spec)}, "k.ptx": {Data: []byte(kernel)}}); err == nil || !strings.Contains(err.Error(), `no "cudaLine" or "ptx"`) {
		t.Errorf("a PTX hint with cudaLine: %v", err)
	}
}
