package sessions

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/ptxplayground/ptxplay/engine/cuda"
	"github.com/ptxplayground/ptxplay/engine/emu"
)

// needClang skips a test when clang-19 is absent (make test installs it).
func needClang(t testing.TB) {
	t.Helper()
	if _, err := exec.LookPath("clang-19"); err != nil {
		if _, err := exec.LookPath("/usr/lib/llvm-19/bin/clang"); err != nil {
			t.Skip("clang-19 is not installed")
		}
	}
}

// cudaManager is a manager with a compiler of its own (a fresh cache).
func cudaManager(t testing.TB, lim Limits, cfg cuda.Config) *Manager {
	m := newManager(t, lim)
	m.SetCompiler(cuda.NewCompiler(cfg))
	return m
}

// divergentCU diverges on line 4, loops on lines 9-10, waits at the
// barrier on line 11 and stores on line 12.
const divergentCU = `extern "C" __global__ void k(float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float s = 0;
  if (i % 3 == 0) {
    s = i * 2.0f;
  } else {
    s = i + 1.0f;
  }
  for (int j = 0; j < 3; j++)
    s += j;
  __syncthreads();
  if (i < n) out[i] = s;
}
`

const divergentCUSpec = `{"entry":"k","grid":[2],"block":[64],"buffers":[{"name":"out","type":"f32","count":128}],"params":[{"buffer":"out"},{"s32":100}]}`

func (c *client) compiled() compiledMsg {
	c.t.Helper()
	var m compiledMsg
	if err := json.Unmarshal(c.expect("compiled"), &m); err != nil {
		c.t.Fatal(err)
	}
	return m
}

// loadCUDA loads CUDA source and returns the loaded message and state.
func (c *client) loadCUDA(src, spec string, opt int) (loadedMsg, stateMsg) {
	c.t.Helper()
	c.send(map[string]any{"type": "load", "id": 1, "cuda": map[string]any{"source": src, "opt": opt}, "spec": json.RawMessage(spec)})
	if cm := c.compiled(); !cm.OK {
		c.t.Fatalf("compile: %+v", cm)
	}
	var d diagnosticsMsg
	json.Unmarshal(c.expect("diagnostics"), &d)
	for _, it := range d.Items {
		if it.Severity == "error" {
			c.t.Fatalf("diagnostic: %+v", it)
		}
	}
	var l loadedMsg
	if err := json.Unmarshal(c.expect("loaded"), &l); err != nil {
		c.t.Fatal(err)
	}
	st, _ := c.state()
	return l, st
}

func TestCompileOverSession(t *testing.T) {
	needClang(t)
	m := cudaManager(t, Limits{}, cuda.Config{})
	c := newClient(t, m)

	// ok: PTX, the line map, not cached; again: cached.
	c.send(map[string]any{"type": "compile", "id": 7, "cuda": map[string]any{"source": divergentCU, "arch": "sm_80", "opt": 2}})
	cm := c.compiled()
	if !cm.OK || *cm.ID != 7 || !strings.Contains(cm.PTX, ".entry k") || cm.Cached || cm.Error != nil || cm.Options != (cudaOptionsJSON{Arch: "sm_80", Opt: 2}) {
		t.Fatalf("compiled %+v", cm)
	}
	if n := strings.Count(cm.PTX, "\n") + 1; len(cm.PTXToCUDA) != n {
		t.Fatalf("map of %d lines for %d PTX lines", len(cm.PTXToCUDA), n)
	}
	sm := cuda.MapPTX(cm.PTX)
	seen12 := false
	for i, l := range cm.PTXToCUDA {
		want := 0
		if loc, ok := sm.CUDA(i + 1); ok {
			want = loc.Line
		}
		if l != want {
			t.Fatalf("PTX line %d: CUDA line %d, want %d", i+1, l, want)
		}
		seen12 = seen12 || (l == 12 && strings.Contains(cm.PTX[lineOffset(cm.PTX, i):], "st.global"))
	}
	if !seen12 {
		t.Fatal("no PTX line maps to CUDA line 12")
	}
	c.send(map[string]any{"type": "compile", "id": 8, "cuda": map[string]any{"source": divergentCU, "arch": "sm_80", "opt": 2}})
	if cm := c.compiled(); !cm.OK || !cm.Cached {
		t.Fatalf("second compile %+v", cm)
	}

	// A clang error: line:col on the CUDA source, no PTX.
	c.send(map[string]any{"type": "compile", "id": 9, "cuda": map[string]any{"source": "extern \"C\" __global__ void k(int *p) {\n  p[0] = undefined_name;\n}\n"}})
	cm = c.compiled()
	if cm.OK || cm.PTX != "" || len(cm.Diagnostics) == 0 || cm.Error != nil {
		t.Fatalf("error compile %+v", cm)
	}
	if d := cm.Diagnostics[0]; d.Severity != cuda.SevError || d.Line != 2 || d.Col != 10 || !strings.Contains(d.Message, "undefined_name") {
		t.Fatalf("diagnostic %+v", d)
	}

	// An include of a file is refused without its content.
	c.send(map[string]any{"type": "compile", "id": 10, "cuda": map[string]any{"source": "#include \"/etc/passwd\"\n__global__ void k() {}\n"}})
	cm = c.compiled()
	if cm.OK || !cm.Refused || len(cm.Diagnostics) == 0 || strings.Contains(string(mustJSON(t, cm)), "root:") {
		t.Fatalf("include %+v", cm)
	}

	// Bad options and too large a source: clear errors.
	c.send(map[string]any{"type": "compile", "id": 11, "cuda": map[string]any{"source": divergentCU, "arch": "sm_99"}})
	if cm := c.compiled(); cm.Error == nil || cm.Error.Code != compileBadRequest {
		t.Fatalf("bad arch %+v", cm)
	}
	c.send(map[string]any{"type": "compile", "id": 12})
	c.expectError("bad-request")

	// The session still steps after all this.
	c.loadCUDA(divergentCU, divergentCUSpec, 2)
	c.step("warp", 5)
}

func lineOffset(s string, line int) int {
	off := 0
	for ; line > 0; line-- {
		off += strings.IndexByte(s[off:], '\n') + 1
	}
	return off
}

func mustJSON(t testing.TB, v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// slowCU takes clang a while (many unrolled, distinct statements); n
// makes each copy a distinct compile.
func slowCU(n int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "// %d\nextern \"C\" __global__ void k(float *p) {\n  float s = p[threadIdx.x];\n", n)
	for i := 0; i < 1500; i++ {
		fmt.Fprintf(&b, "  s = s * %d.5f + p[(threadIdx.x + %d) & 255] / (s + %d.0f);\n", i%17, i, i+1)
	}
	b.WriteString("  p[threadIdx.x] = s;\n}\n")
	return b.String()
}

func TestCompileCancelledByNewer(t *testing.T) {
	needClang(t)
	m := cudaManager(t, Limits{}, cuda.Config{Concurrency: 1})
	c := newClient(t, m)
	c.send(map[string]any{"type": "compile", "id": 1, "cuda": map[string]any{"source": slowCU(1)}})
	c.send(map[string]any{"type": "compile", "id": 2, "cuda": map[string]any{"source": divergentCU}})
	got := map[int64]compiledMsg{}
	for len(got) < 2 {
		cm := c.compiled()
		got[*cm.ID] = cm
	}
	if e := got[1].Error; e == nil || e.Code != compileCancelled {
		t.Fatalf("the older compile: %+v", got[1].Error)
	}
	if !got[2].OK {
		t.Fatalf("the newer compile: %+v", got[2])
	}
	if st := m.Compiler().Stats(); st.Running != 0 || st.Waiting != 0 {
		t.Fatalf("compiler %+v", st)
	}
}

func TestCompileBusy(t *testing.T) {
	needClang(t)
	m := cudaManager(t, Limits{}, cuda.Config{Concurrency: 1, MaxQueue: 1})
	a, b, c := newClient(t, m), newClient(t, m), newClient(t, m)
	a.send(map[string]any{"type": "compile", "id": 1, "cuda": map[string]any{"source": slowCU(1)}})
	waitFor(t, func() bool { return m.Compiler().Stats().Running == 1 })
	b.send(map[string]any{"type": "compile", "id": 1, "cuda": map[string]any{"source": slowCU(2)}})
	waitFor(t, func() bool { return m.Compiler().Stats().Waiting == 1 })
	c.send(map[string]any{"type": "compile", "id": 1, "cuda": map[string]any{"source": slowCU(3)}})
	if cm := c.compiled(); cm.Error == nil || cm.Error.Code != compileBusy || !strings.Contains(cm.Error.Message, "busy") {
		t.Fatalf("third compile %+v", cm)
	}
	if cm := a.compiled(); !cm.OK {
		t.Fatalf("first compile %+v", cm.Error)
	}
	if cm := b.compiled(); !cm.OK {
		t.Fatalf("second compile %+v", cm.Error)
	}
}

func TestCompileNotInstalled(t *testing.T) {
	m := cudaManager(t, Limits{}, cuda.Config{Clang: "/nonexistent/clang-19"})
	c := newClient(t, m)
	c.send(map[string]any{"type": "compile", "id": 1, "cuda": map[string]any{"source": divergentCU}})
	cm := c.compiled()
	if cm.Error == nil || cm.Error.Code != compileNotInstalled || !strings.Contains(cm.Error.Message, "apt-get install clang-19") {
		t.Fatalf("compiled %+v", cm)
	}
	// A load with CUDA says the same; PTX still loads.
	c.send(map[string]any{"type": "load", "id": 2, "cuda": map[string]any{"source": divergentCU}, "spec": json.RawMessage(divergentCUSpec)})
	c.compiled()
	c.expectError(string(compileNotInstalled))
	c.load(divergentPTX, divergentSpec)
}

func waitFor(t testing.TB, cond func() bool) {
	t.Helper()
	for i := 0; i < 2000; i++ {
		if cond() {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatal("condition not reached")
}

// TestCUDALoadedLines: a CUDA load names CUDA lines in loaded, warps,
// last and printf.
func TestCUDALoadedLines(t *testing.T) {
	needClang(t)
	c := newClient(t, cudaManager(t, Limits{}, cuda.Config{}))
	l, st := c.loadCUDA(divergentCU, divergentCUSpec, 0)
	if l.CUDA == nil || l.CUDA.Options.Opt != 0 || len(l.CUDA.Lines) == 0 {
		t.Fatalf("loaded.cuda %+v", l.CUDA)
	}
	has := map[int]bool{}
	for _, ln := range l.CUDA.Lines {
		has[ln.Line] = len(ln.PCs) > 0
	}
	for _, want := range []int{2, 4, 5, 7, 11, 12} {
		if !has[want] {
			t.Fatalf("CUDA line %d has no pcs: %+v", want, l.CUDA.Lines)
		}
	}
	w := st.CTAs[0].Warps[0]
	if w.CUDALine == 0 {
		t.Fatalf("warp %+v has no CUDA line", w.warpJSON)
	}
	st = c.step("warp", 3)
	if st.Last == nil || st.Last.CUDALine == 0 {
		t.Fatalf("last %+v", st.Last)
	}
	var wantLast int
	c.do(func() { wantLast = c.s.cline(st.Last.PC) })
	if st.Last.CUDALine != wantLast {
		t.Fatalf("last cudaLine %d, want %d", st.Last.CUDALine, wantLast)
	}
	// A PTX load forgets the CUDA.
	c.load(divergentPTX, divergentSpec)
	var cu *cudaInfo
	c.do(func() { cu = c.s.cu })
	if cu != nil {
		t.Fatal("a PTX load kept the CUDA map")
	}
}

// selLineFresh is the selected warp's CUDA line (as selLine) at every
// position of a fresh machine stepped one warp-instruction at a time.
func selLinesFresh(c *client, sel [2]int) []int {
	c.t.Helper()
	var pcLine []int32
	c.do(func() { pcLine = c.s.cu.pcLine })
	fm := c.freshMachine(0)
	line := func() int {
		fm.NextWarp() // the first CTAs resident, as the session shows them
		ctas := fm.CTAs()
		if len(ctas) == 0 {
			return -1
		}
		ci := sel[0]
		if ci >= len(ctas) {
			ci = 0
		}
		ws := ctas[ci].Warps
		wi := sel[1]
		if wi >= len(ws) {
			wi = 0
		}
		pc := ws[wi].PC()
		if pc < 0 {
			return -1
		}
		return int(pcLine[pc])
	}
	out := []int{line()}
	for !fm.Done() && fm.Fault() == nil {
		before := fm.Stats().WarpInstructions
		r := fm.Step(emu.StepWarpInstruction)
		if fm.Stats().WarpInstructions == before+1 {
			out = append(out, line())
		}
		if r != emu.StopStepped {
			break
		}
	}
	return out
}

// TestSourceLineStepExact: "source-line" steps stop where the selected
// warp's CUDA line changes and backs return to where the previous line
// was entered, both as a fresh machine stepped one warp-instruction at a
// time says; every position reached is that machine's state.
func TestSourceLineStepExact(t *testing.T) {
	needClang(t)
	defer func(w int64) { sourceLineWindow = w }(sourceLineWindow)
	sourceLineWindow = 8 // windows grow several times
	for _, opt := range []int{0, 2} {
		t.Run(fmt.Sprint("O", opt), func(t *testing.T) {
			c := newClient(t, cudaManager(t, Limits{}, cuda.Config{}))
			c.loadCUDA(divergentCU, divergentCUSpec, opt)
			rng := rand.New(rand.NewSource(int64(opt) + 1))
			for _, sel := range [][2]int{{0, 0}, {0, 1}, {1, 1}} {
				c.send(map[string]any{"type": "inspect", "cta": sel[0], "warp": sel[1]})
				c.expect("inspect")
				c.send(map[string]any{"type": "seek", "step": 0})
				c.state()
				v := selLinesFresh(c, sel)
				end := int64(len(v) - 1)
				next := func(p int64) int64 {
					for q := p + 1; q <= end; q++ {
						if v[q] != v[p] && v[q] != 0 {
							return q
						}
					}
					return end
				}
				var path []int64
				pos := int64(0)
				for pos < end && len(path) < 60 {
					st := c.step("source-line", 1)
					want := next(pos)
					if st.Step != want {
						t.Fatalf("sel %v: source-line step from %d reached %d, want %d (lines %v)", sel, pos, st.Step, want, v[pos:min(int64(len(v)), want+2)])
					}
					if st.Status == "done" {
						c.expect("done")
					}
					path = append(path, pos)
					pos = want
					if rng.Intn(4) == 0 {
						if d := diffDumps(c.dump(), c.fresh(pos)); d != "" {
							t.Fatalf("at %d: %s", pos, d)
						}
					}
				}
				if len(path) < 4 {
					t.Fatalf("sel %v: only %d source lines", sel, len(path))
				}
				// Back retraces the forward path: each back lands where
				// the step that left it started.
				for i := len(path) - 1; i >= 0; i-- {
					c.send(map[string]any{"type": "back", "granularity": "source-line"})
					st, _ := c.state()
					if st.Step != path[i] {
						t.Fatalf("sel %v: back from %d reached %d, want %d", sel, pos, st.Step, path[i])
					}
					pos = path[i]
					if d := diffDumps(c.dump(), c.fresh(pos)); d != "" {
						t.Fatalf("after back at %d: %s", pos, d)
					}
				}
			}
		})
	}
}

func TestSourceLineStart(t *testing.T) {
	for _, tc := range []struct {
		v       []int
		atFirst bool
		want    int64
	}{
		{[]int{5, 5, 0, 6, 6, 7}, true, 3},
		{[]int{5, 5, 0, 6, 6, 0, 7}, true, 3},
		{[]int{5, 5, 5}, true, 0},
		{[]int{5, 5, 5}, false, -1},
		{[]int{6, 6, 7}, false, -1},
		{[]int{5, 6, 6, 7}, false, 1},
		{[]int{0, 6, 0, 6, 7, 7}, true, 4},
		{[]int{0, 6, 0, 6, 6, 7}, true, 1},
		{[]int{5, 6, -1, -1}, false, 2},
		{[]int{0, 0, 6, 6}, true, 2},
		{[]int{0, 0, 6, 6}, false, -1},
	} {
		want := tc.want
		if want >= 0 {
			want += 10
		}
		if got := sourceLineStart(tc.v, 10, tc.atFirst); got != want {
			t.Errorf("%v atFirst=%v: %d, want %d", tc.v, tc.atFirst, got, tc.want)
		}
	}
}

// TestCUDABreakpoints: a breakpoint on a CUDA line stops a run at each of
// its instructions and nowhere else; off, the run goes on to the end.
func TestCUDABreakpoints(t *testing.T) {
	needClang(t)
	c := newClient(t, cudaManager(t, Limits{}, cuda.Config{}))
	c.loadCUDA(divergentCU, divergentCUSpec, 2)
	c.send(map[string]any{"type": "breakpoint", "id": 2, "cudaLine": 12, "on": true})
	var bp breakpointsMsg
	json.Unmarshal(c.expect("breakpoints"), &bp)
	if len(bp.CUDALines) != 1 || bp.CUDALines[0] != 12 || len(bp.Lines) != 0 {
		t.Fatalf("breakpoints %+v", bp)
	}
	c.send(map[string]any{"type": "breakpoint", "cudaLine": 3, "on": true}) // a declaration: no code
	c.expectError("bad-request")
	c.send(map[string]any{"type": "breakpoint", "line": 1, "cudaLine": 12})
	c.expectError("bad-request")
	stops := 0
	for {
		c.send(map[string]any{"type": "run"})
		st, _ := c.state()
		if st.Reason != "breakpoint" {
			if st.Status != "done" {
				t.Fatalf("run %+v", st)
			}
			c.expect("done")
			break
		}
		var line int
		c.do(func() { line = c.s.cline(c.s.m.NextWarp().PC()) })
		if line != 12 {
			t.Fatalf("stopped at CUDA line %d", line)
		}
		if stops++; stops > 64 {
			t.Fatal("too many stops")
		}
	}
	if stops < 4 {
		t.Fatalf("%d stops; every warp reaches line 12", stops)
	}
	// Off: a run from the start goes through.
	c.send(map[string]any{"type": "reset"})
	c.state()
	c.send(map[string]any{"type": "breakpoint", "cudaLine": 12, "on": false})
	json.Unmarshal(c.expect("breakpoints"), &bp)
	if len(bp.CUDALines) != 0 {
		t.Fatalf("breakpoints %+v", bp)
	}
	c.send(map[string]any{"type": "run"})
	if st, _ := c.state(); st.Status != "done" {
		t.Fatalf("run %+v", st)
	}
	c.expect("done")
}

// TestCUDAFaultLine: a fault names the CUDA line.
func TestCUDAFaultLine(t *testing.T) {
	needClang(t)
	c := newClient(t, cudaManager(t, Limits{}, cuda.Config{}))
	src := "extern \"C\" __global__ void k(int *p) {\n  int i = threadIdx.x;\n  p[i * 1000] = i;\n}\n"
	c.loadCUDA(src, `{"entry":"k","grid":[1],"block":[32],"buffers":[{"name":"p","type":"s32","count":8}],"params":[{"buffer":"p"}]}`, 2)
	c.send(map[string]any{"type": "run"})
	st, _ := c.state()
	if st.Fault == nil || st.Fault.CUDALine != 3 {
		t.Fatalf("fault %+v", st.Fault)
	}
}

// hello says whether CUDA compiles here, and why not.
func TestHelloCUDA(t *testing.T) {
	hello := func(m *Manager) helloMsg {
		s, err := m.NewSession()
		if err != nil {
			t.Fatal(err)
		}
		c := &client{t: t, s: s}
		var h helloMsg
		json.Unmarshal(c.expect("hello"), &h)
		return h
	}
	if h := hello(newManager(t, Limits{})).CUDA; h.Available || !strings.Contains(h.Message, "does not compile CUDA") || h.DefaultArch != "sm_80" || len(h.Arches) != len(cuda.Arches) {
		t.Fatalf("no compiler: %+v", h)
	}
	if h := hello(cudaManager(t, Limits{}, cuda.Config{Clang: "/nonexistent/clang-19"})).CUDA; h.Available || !strings.Contains(h.Message, "apt-get install clang-19") {
		t.Fatalf("clang missing: %+v", h)
	}
	needClang(t)
	if h := hello(cudaManager(t, Limits{}, cuda.Config{})).CUDA; !h.Available || h.Message != "" {
		t.Fatalf("clang: %+v", h)
	}
}
