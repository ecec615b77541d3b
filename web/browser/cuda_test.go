package browser

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

func needClangBrowser(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("clang-19"); err != nil {
		t.Skip("clang-19 is not installed")
	}
}

// cudaLineRect clicks the breakpoint gutter of kernel.cu's line n.
func (tb *tab) clickCudaGutter(n int) {
	tb.t.Helper()
	var xy []float64
	tb.eval(fmt.Sprintf(`(() => { const ls = [...document.querySelectorAll("#pg-cuda .cm-bp-gutter .cm-gutterElement")].filter((e) => e.offsetHeight > 0);
		const nums = [...document.querySelectorAll("#pg-cuda .cm-lineNumbers .cm-gutterElement")].filter((e) => e.textContent === "%d");
		const r = nums[0].getBoundingClientRect(); const g = ls[0].getBoundingClientRect();
		return [g.left + g.width / 2, r.top + r.height / 2]; })()`, n), &xy)
	tb.clickAt(xy[0], xy[1])
}

// cudaDots: the CUDA lines whose breakpoint gutter shows a dot (the
// gutter's zero-height spacer, which holds a dot to size the gutter, is
// not a line).
func (tb *tab) cudaDots() []int { return tb.dotsIn("#pg-cuda") }

// ptxDots: the PTX lines whose breakpoint gutter shows a dot (in view).
func (tb *tab) ptxDots() []int { return tb.dotsIn("#pg-editor") }

func (tb *tab) dotsIn(root string) []int {
	tb.t.Helper()
	var lines []int
	tb.eval(`(() => { const nums = [...document.querySelectorAll("`+root+` .cm-lineNumbers .cm-gutterElement")].filter((e) => e.offsetHeight > 0);
		return [...document.querySelectorAll("`+root+` .cm-bp-gutter .cm-gutterElement")].filter((e) => e.offsetHeight > 0 && e.querySelector(".bp-dot"))
			.map((e) => { const t = e.getBoundingClientRect().top; const n = nums.find((x) => Math.abs(x.getBoundingClientRect().top - t) < 2); return n ? Number(n.textContent) : 0; }); })()`, &lines)
	return lines
}

// selectedCudaLine: the CUDA line the selected warp's marker is on (0: none).
func (tb *tab) selectedCudaLine() int {
	tb.t.Helper()
	var line int
	tb.eval(`[...document.querySelectorAll("#pg-cuda .cm-line")].findIndex((l) => l.classList.contains("cm-warp-line-sel")) + 1`, &line)
	return line
}

// cudaLineStep presses the Line button at step from and waits for the
// step it reaches; it returns that step and the selected warp's CUDA line.
func (tb *tab) cudaLineStep(from int) (int, int) {
	tb.t.Helper()
	tb.button("step-line")
	var at int
	tb.waitFor("a source-line step", func() string {
		c, _ := tb.stepOf()
		if c <= from {
			return fmt.Sprintf("at step %d", c)
		}
		at = c
		return ""
	})
	return at, tb.selectedCudaLine()
}

// TestCUDAMode: a kernel written in CUDA compiles as it is typed, its PTX
// shows beside it with colour-matched lines (hovering a CUDA line lights
// its PTX lines), a breakpoint on a CUDA line stops a run there with the
// warp marked on that CUDA line, a source-line step moves the warp to
// another CUDA line and Back (Shift+L) returns. Reports the time from a
// keystroke to the first runnable state. Screenshots at the three sizes.
func TestCUDAMode(t *testing.T) {
	needClangBrowser(t)
	s := need(t)
	tb := s.newTab(t, "/")
	tb.viewport(1440, 900)
	tb.waitJS("connected", `document.getElementById("pg-conn").dataset.state === "open"`)
	tb.click("#pg-cuda-toggle")
	tb.waitJS("the CUDA editor and its first PTX", `document.querySelector("#pg-cuda .cm-content") && document.getElementById("pg-cuda-status").textContent.startsWith("PTX in")`)
	tb.waitJS("the CUDA program loaded", `!document.getElementById("pg-step-line").hidden`)
	tb.waitJS("colour-matched CUDA lines", `document.querySelectorAll("#pg-cuda .cm-link[data-link]").length >= 2`)

	// A keystroke: the time until the edited kernel is runnable (its PTX
	// shown and loaded, the step buttons enabled).
	tb.eval(`(() => { const v = document.querySelector("#pg-cuda .cm-content"); v.focus(); return true; })()`, new(bool))
	tb.key(kb.End, chromedp.ModifierCtrl)
	start := time.Now()
	tb.insertText(" ")
	tb.insertText("// edited")
	tb.waitJS("the edit compiled and loaded", `document.querySelector("#pg-cuda .cm-content").textContent.includes("// edited") && document.getElementById("pg-cuda-status").dataset.kind === "ok" && document.getElementById("pg-dirty").textContent === "" && !document.querySelector('[data-action="step-line"]').disabled && document.querySelector("#pg-editor .cm-content").textContent.includes(".entry")`)
	ms := time.Since(start).Milliseconds()
	t.Logf("keystroke to runnable (300 ms compile debounce, 650 ms live-load debounce included): %d ms", ms)
	_ = os.WriteFile(filepath.Join(s.artifacts, "cuda-keystroke-ms.txt"), []byte(fmt.Sprintf("%d\n", ms)), 0o644)

	// Colour-matched lines on both sides, and the hover link.
	var n struct{ Cuda, Ptx int }
	tb.eval(`({cuda: document.querySelectorAll("#pg-cuda .cm-link[data-link]").length, ptx: document.querySelectorAll("#pg-editor .cm-link[data-link]").length})`, &n)
	if n.Cuda < 2 || n.Ptx < n.Cuda {
		var dbg string
		tb.eval(`document.querySelector("#pg-cuda .cm-content").innerHTML.slice(0, 1500)`, &dbg)
		t.Fatalf("colour-matched lines: %d CUDA, %d PTX\n%s", n.Cuda, n.Ptx, dbg)
	}
	var xy []float64
	tb.eval(`(() => { const l = [...document.querySelectorAll("#pg-cuda .cm-line")].find((e) => e.textContent.includes("c[i] = a[i] + b[i]")); const r = l.getBoundingClientRect(); return [r.left + 40, r.top + r.height / 2]; })()`, &xy)
	tb.do("hover a CUDA line", chromedp.MouseEvent(chromedp.MouseMoved, xy[0], xy[1]))
	tb.waitJS("its PTX lines lit", `document.querySelectorAll("#pg-editor .cm-link-hot").length >= 2 && document.querySelectorAll("#pg-cuda .cm-link-hot").length === 1`)

	// A breakpoint on CUDA line 5 (c[i] = a[i] + b[i];), run.
	tb.clickCudaGutter(5)
	tb.waitFor("the breakpoint on CUDA line 5, set on the server", func() string {
		if got := tb.cudaDots(); len(got) != 1 || got[0] != 5 {
			return fmt.Sprintf("dots on CUDA lines %v", got)
		}
		return ""
	})
	tb.button("run")
	tb.waitJS("stopped at the breakpoint, the warp on CUDA line 5", `(() => { const l = [...document.querySelectorAll("#pg-cuda .cm-line")][4]; return document.getElementById("pg-status").textContent.includes("breakpoint") && l && l.classList.contains("cm-warp-line"); })()`)
	// The thread groups of the selected warp name the CUDA line as the
	// warp rows do: the group's pc, the last issue and each lane's reason.
	tb.waitJS("the thread groups name kernel.cu:5", `(() => {
		const b = document.querySelector("#pg-warps .tg-box");
		const pc = b && b.querySelector(".tg-table .tg-row td button.linklike");
		const lane = document.querySelector("#pg-warps .warp-row.sel .lanes .ln");
		return !!pc && pc.textContent === "kernel.cu:5" && /kernel\.cu line 5/.test(pc.title) &&
			/^Last issue: .* at kernel\.cu:\d+ \(PTX line \d+\)/.test(b.querySelector(".tg-last").textContent) &&
			!!lane && /kernel\.cu:5 \(PTX line \d+\)/.test(lane.title);
	})()`)
	tb.atEverySize("CUDA mode at a breakpoint", "cuda-breakpoint")

	// Two source-line steps: each ends where the selected warp enters
	// another CUDA line; Back (Shift+L) retraces the second exactly.
	at5, _ := tb.stepOf()
	s1, l1 := tb.cudaLineStep(at5)
	if l1 == 5 || l1 == 0 {
		t.Fatalf("after a source-line step from CUDA line 5 the selected warp is on CUDA line %d", l1)
	}
	s2, l2 := tb.cudaLineStep(s1)
	if l2 == l1 {
		t.Fatalf("a second source-line step left the selected warp on CUDA line %d", l2)
	}
	tb.blurFocus()
	tb.key("L")
	tb.waitFor("back by a source line", func() string {
		c, _ := tb.stepOf()
		if l := tb.selectedCudaLine(); c != s1 || l != l1 {
			return fmt.Sprintf("at step %d on CUDA line %d, want step %d on line %d (from step %d)", c, l, s1, l1, s2)
		}
		return ""
	})
	tb.screenshot("cuda-back")
	if p := tb.problems(); len(p) > 0 {
		t.Fatalf("console problems: %s", strings.Join(p, "\n"))
	}
}

// enterCuda switches to CUDA mode with src in kernel.cu and waits until
// that source is compiled and loaded.
func (tb *tab) enterCuda(src string) {
	tb.t.Helper()
	tb.waitJS("connected", `document.getElementById("pg-conn").dataset.state === "open"`)
	tb.click("#pg-cuda-toggle")
	tb.waitJS("the CUDA editor", `!!document.querySelector("#pg-cuda .cm-content")`)
	tb.eval(`(() => { document.querySelector("#pg-cuda .cm-content").focus(); return true; })()`, new(bool))
	tb.key("a", chromedp.ModifierCtrl)
	tb.insertText(src)
	first := strings.SplitN(src, "\n", 2)[0]
	tb.waitJS("the CUDA compiled and loaded", fmt.Sprintf(`document.querySelector("#pg-cuda .cm-content").textContent.startsWith(%q) && document.getElementById("pg-cuda-status").dataset.kind === "ok" && document.getElementById("pg-dirty").textContent === "" && !document.getElementById("pg-step-line").hidden && !document.querySelector('[data-action="step-line"]').disabled`, first))
}

const cudaPlaces = `// places: a race, a barrier, printf and a fault, each on its own CUDA line
__global__ void places(int *out) {
    __shared__ int s[64];
    s[threadIdx.x] = threadIdx.x;
    int v = s[(threadIdx.x + 33) % 64];
    __syncthreads();
    printf("t%d got %d\n", (int)threadIdx.x, v);
    out[threadIdx.x * 4096] = v;
}
`

// TestCUDANamesLines: with a CUDA program loaded, the fault, the race
// checker's warning, the barrier's event, the printf output and the warp
// rows name the kernel.cu line (and the PTX line after it).
func TestCUDANamesLines(t *testing.T) {
	needClangBrowser(t)
	s := need(t)
	tb := s.newTab(t, "/")
	tb.viewport(1440, 900)
	tb.enterCuda(cudaPlaces)
	tb.waitJS("the warp rows name kernel.cu", `document.getElementById("pg-warps").textContent.includes("kernel.cu:")`)
	tb.button("run")
	tb.waitJS("the fault", `!document.getElementById("pg-fault").hidden`)
	var fault string
	tb.eval(`document.getElementById("pg-fault").textContent`, &fault)
	if !regexp.MustCompile(`kernel\.cu:8 \(PTX line \d+`).MatchString(fault) {
		t.Fatalf("the fault does not name kernel.cu:8: %q", fault)
	}
	tb.showTab("events")
	var events string
	tb.waitJS("the events and warnings", `document.getElementById("pg-tab-events").textContent.includes("kernel.cu:")`)
	tb.eval(`document.getElementById("pg-tab-events").textContent`, &events)
	for _, want := range []*regexp.Regexp{regexp.MustCompile(`kernel\.cu:6 \(PTX line \d+\)`), regexp.MustCompile(`kernel\.cu:[45] \(PTX line \d+\)`)} {
		if !want.MatchString(events) {
			t.Fatalf("the events tab does not match %s: %q", want, events)
		}
	}
	var warn string
	tb.eval(`[...document.querySelectorAll("#pg-tab-events .warn-lines")].map((e) => e.textContent).join("\n")`, &warn)
	if !strings.Contains(warn, "kernel.cu:4 (PTX line") || !strings.Contains(warn, "kernel.cu:5 (PTX line") {
		t.Fatalf("the race warning does not name kernel.cu lines 4 and 5: %q", warn)
	}
	tb.showTab("console")
	tb.waitJS("the printf output", `document.querySelectorAll("#pg-tab-console .console-line").length > 0`)
	var loc string
	tb.eval(`document.querySelector("#pg-tab-console .console-loc").textContent`, &loc)
	if loc != "kernel.cu:7" {
		t.Fatalf("the printf line names %q, want kernel.cu:7", loc)
	}
	// The CFG's blocks and a barrier release's warps name kernel.cu lines.
	var released string
	tb.eval(`[...document.querySelectorAll("#pg-tab-events .ev-barrier-release .ev-mask")].map((e) => e.title).join("\n")`, &released)
	if !regexp.MustCompile(`w\d+: .* at kernel\.cu:6 \(PTX line \d+\)`).MatchString(released) {
		t.Fatalf("the released warps do not name kernel.cu:6: %q", released)
	}
	tb.showTab("divergence")
	tb.waitJS("the CFG names kernel.cu lines", `[...document.querySelectorAll("#pg-tab-divergence .cfg-label")].some((e) => /^kernel\.cu:\d/.test(e.textContent))`)
	var tip string
	tb.eval(`document.querySelector("#pg-tab-divergence .cfg-block title").textContent`, &tip)
	if !regexp.MustCompile(`^kernel\.cu:\d+(–\d+)? \(PTX lines? \d+`).MatchString(tip) {
		t.Fatalf("the first block's title does not name its kernel.cu lines: %q", tip)
	}
	// With the Events and Console tabs carrying their counts, the nine
	// inspector tabs keep one row beside the CUDA and PTX panes at
	// 1440x900, in presenter mode at 1024x768, and in PTX mode.
	tb.expectTabsOneRow("1440x900 CUDA")
	tb.viewport(1024, 768)
	tb.blurFocus()
	tb.key("z")
	tb.waitJS("presenter mode", `document.documentElement.classList.contains("presenter")`)
	tb.expectTabsOneRow("1024x768 presenter")
	tb.key("z")
	tb.waitJS("presenter mode off", `!document.documentElement.classList.contains("presenter")`)
	tb.viewport(1440, 900)
	tb.atEverySize("CUDA lines named in the fault and the console", "cuda-places")
	tb.click("#pg-cuda-toggle")
	tb.waitJS("PTX mode", `!document.querySelector(".pg-left.cuda-on")`)
	tb.expectTabsOneRow("1440x900 PTX")
	tb.screenshot("cuda-places-ptx-mode-1440")
	if p := tb.problems(); len(p) > 0 {
		t.Fatalf("console problems: %s", strings.Join(p, "\n"))
	}
}

// TestCUDALesson: a gallery lesson with a CUDA twin opens its CUDA
// version from the lesson strip; the strip's hints name kernel.cu lines,
// and following one marks that CUDA line and lights its PTX; "PTX
// version" goes back. Screenshots at the three sizes.
func TestCUDALesson(t *testing.T) {
	needClangBrowser(t)
	s := need(t)
	tb := s.newTab(t, "/?example=vector-add")
	tb.viewport(1440, 900)
	tb.waitJS("the PTX lesson", `document.querySelector("#pg-lesson .lesson-hint") && document.getElementById("pg-lesson-twin")?.textContent === "CUDA version"`)
	tb.click("#pg-lesson-twin")
	tb.waitJS("the CUDA lesson loaded", `document.getElementById("pg-lesson-twin")?.textContent === "PTX version" && document.querySelector('#pg-lesson .lesson-hint[data-cuda="1"]') && !document.getElementById("pg-step-line").hidden && document.getElementById("pg-dirty").textContent === ""`)
	var hint struct {
		Line  string `json:"line"`
		Label string `json:"label"`
		Code  string `json:"code"`
	}
	tb.eval(`(() => { const b = document.querySelector('#pg-lesson .lesson-hint[data-hint="2"]'); return {line: b.dataset.line, label: b.querySelector(".lesson-line").textContent, code: b.parentElement.querySelector(".lesson-code")?.textContent ?? ""}; })()`, &hint)
	if hint.Label != "kernel.cu:"+hint.Line || hint.Code == "" {
		t.Fatalf("the CUDA hint: %+v", hint)
	}
	tb.click(`#pg-lesson .lesson-hint[data-hint="2"]`)
	tb.waitJS("the hint's CUDA line marked and its PTX lit", fmt.Sprintf(`(() => { const l = [...document.querySelectorAll("#pg-cuda .cm-line")][%s - 1]; return l && l.classList.contains("cm-hint-line") && l.textContent.includes(%q) && document.querySelectorAll("#pg-editor .cm-hint-line").length === 1 && document.querySelectorAll("#pg-editor .cm-link-hot").length >= 1; })()`, hint.Line, hint.Code))
	tb.waitJS("the hint's panel", `!document.getElementById("pg-tab-memory").hidden`)
	tb.atEverySize("a CUDA lesson's hint", "cuda-lesson")
	tb.button("run")
	tb.waitJS("the run done", `document.getElementById("pg-status").dataset.status === "done"`)
	tb.click("#pg-lesson-twin")
	tb.waitJS("back to the PTX lesson", `document.getElementById("pg-lesson-twin")?.textContent === "CUDA version" && !document.querySelector("#pg-cuda .cm-content")?.isConnected && document.getElementById("pg-step-line").hidden && document.querySelector('#pg-lesson .lesson-hint:not([data-cuda])')`)
	if p := tb.problems(); len(p) > 0 {
		t.Fatalf("console problems: %s", strings.Join(p, "\n"))
	}
}

// expectCudaBreakpoints waits until the page shows kernel.cu holding src,
// -O opt, and breakpoints on cuda and the PTX on ptx (as dots), then runs: the run stops at kernel.cu's
// first breakpoint line, so the server holds it too.
func (tb *tab) expectCudaBreakpoints(what, src string, opt int, cuda, ptx []int) {
	tb.t.Helper()
	first := strings.SplitN(src, "\n", 2)[0]
	tb.waitJS(what+": kernel.cu", fmt.Sprintf(`document.querySelector("#pg-cuda .cm-content")?.textContent.startsWith(%q) && document.getElementById("pg-cuda-opt").value === "%d"`, first, opt))
	tb.waitFor(what+": the breakpoints", func() string {
		tb.eval(`(() => { const s = document.querySelector("#pg-editor .cm-scroller"); s.scrollTop = s.scrollHeight; return true; })()`, new(bool))
		if c, p := tb.cudaDots(), tb.ptxDots(); fmt.Sprint(c) != fmt.Sprint(cuda) || fmt.Sprint(p) != fmt.Sprint(ptx) {
			return fmt.Sprintf("dots on CUDA lines %v and PTX lines %v", c, p)
		}
		return ""
	})
	tb.button("run")
	tb.waitJS(what+": stopped at the breakpoint on kernel.cu line "+fmt.Sprint(cuda[0]), fmt.Sprintf(`(() => { const l = [...document.querySelectorAll("#pg-cuda .cm-line")][%d]; return document.getElementById("pg-status").textContent.includes("breakpoint") && l && l.classList.contains("cm-warp-line"); })()`, cuda[0]-1))
}

// TestCUDAShareAndDraft: a share link (stored, and link-only) made in
// CUDA mode carries kernel.cu and its options and opens in CUDA mode; a
// reload brings the CUDA draft back.
func TestCUDAShareAndDraft(t *testing.T) {
	needClangBrowser(t)
	s := need(t)
	tb := s.newTab(t, "/")
	tb.viewport(1440, 900)
	src := strings.Replace(defaultCudaForTest, "// kernel.cu", "// shared.cu", 1)
	tb.enterCuda(src)
	tb.eval(`(() => { const o = document.getElementById("pg-cuda-opt"); o.value = "1"; o.dispatchEvent(new Event("change")); return true; })()`, new(bool))
	tb.waitJS("the -O1 compile loaded", `document.getElementById("pg-cuda-status").dataset.kind === "ok" && document.getElementById("pg-dirty").textContent === ""`)
	// A breakpoint on kernel.cu line 5 and one on the PTX's ret.
	tb.clickCudaGutter(5)
	var ret int
	tb.eval(`(() => { const ls = [...document.querySelectorAll("#pg-editor .cm-line")]; const i = ls.findIndex((l) => l.textContent.trim() === "ret;"); ls[i].scrollIntoView({block: "center"}); return i + 1; })()`, &ret)
	var xy []float64
	tb.eval(fmt.Sprintf(`(() => { const g = [...document.querySelectorAll("#pg-editor .cm-bp-gutter .cm-gutterElement")].filter((e) => e.offsetHeight > 0)[0].getBoundingClientRect();
		const n = [...document.querySelectorAll("#pg-editor .cm-lineNumbers .cm-gutterElement")].find((e) => e.textContent === "%d").getBoundingClientRect();
		return [g.left + g.width / 2, n.top + n.height / 2]; })()`, ret), &xy)
	tb.clickAt(xy[0], xy[1])
	tb.waitFor("the breakpoints set", func() string {
		if c, p := tb.cudaDots(), tb.ptxDots(); fmt.Sprint(c) != "[5]" || fmt.Sprint(p) != fmt.Sprint([]int{ret}) {
			return fmt.Sprintf("dots on CUDA lines %v and PTX lines %v", c, p)
		}
		return ""
	})

	stored := tb.shareVia("CUDA link", false, false)
	other := s.newTab(t, strings.TrimPrefix(stored, s.base))
	other.viewport(1440, 900)
	other.expectCudaBreakpoints("the stored link", src, 1, []int{5}, []int{ret})

	linkOnly := tb.shareVia("CUDA link only", false, true)
	third := s.newTab(t, strings.TrimPrefix(linkOnly, s.base))
	third.viewport(1440, 900)
	third.expectCudaBreakpoints("the link-only link", src, 1, []int{5}, []int{ret})

	tb.navigate("/")
	tb.expectCudaBreakpoints("the draft after a reload", src, 1, []int{5}, []int{ret})
	for _, x := range []*tab{tb, other, third} {
		if p := x.problems(); len(p) > 0 {
			t.Fatalf("console problems: %s", strings.Join(p, "\n"))
		}
	}
}

const defaultCudaForTest = `// kernel.cu: each thread adds one pair of elements.
__global__ void add(const float *a, const float *b, float *c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        c[i] = a[i] + b[i];
    }
}
`

// TestCUDAKeystrokeLatency measures, in the browser, the time from a
// keystroke in kernel.cu to the first runnable state (the edit's PTX
// compiled, loaded and shown, the step buttons enabled): the p50 and the
// maximum over several edits that compile cold (a source not compiled
// before) and several that hit the compile cache (an undo back to a
// source compiled before). Both include the UI's debounces (300 ms to the
// compile, 650 ms to the live load). Written to
// artifacts/browser/cuda-keystroke.txt (docs/benchmarks.md). The test run
// makes one edit of each kind; PTXPLAY_BROWSER_BENCH=1 makes it the
// measurement of seven.
func TestCUDAKeystrokeLatency(t *testing.T) {
	needClangBrowser(t)
	s := need(t)
	tb := s.newTab(t, "/")
	tb.viewport(1440, 900)
	tb.enterCuda(defaultCudaForTest)
	runnable := func(what string, has string, hasIt bool) time.Duration {
		start := time.Now()
		not := "!"
		if hasIt {
			not = ""
		}
		tb.waitJS(what, fmt.Sprintf(`%sdocument.querySelector("#pg-cuda .cm-content").textContent.includes(%q) && document.getElementById("pg-cuda-status").dataset.kind === "ok" && document.getElementById("pg-dirty").textContent === "" && !document.querySelector('[data-action="step-line"]').disabled && document.querySelector("#pg-editor .cm-content").textContent.includes(".entry")`, not, has))
		return time.Since(start)
	}
	n := 1 // the path checked; the measurement takes 7 of each
	if os.Getenv("PTXPLAY_BROWSER_BENCH") != "" {
		n = 7
	}
	var cold, cached []time.Duration
	for i := 0; i < n; i++ {
		tb.eval(`(() => { document.querySelector("#pg-cuda .cm-content").focus(); return true; })()`, new(bool))
		tb.key(kb.End, chromedp.ModifierCtrl)
		mark := fmt.Sprintf("// edit %d", i)
		start := time.Now()
		tb.insertText(mark)
		runnable("a cold edit runnable", mark, true)
		cold = append(cold, time.Since(start))
		start = time.Now()
		tb.key("z", chromedp.ModifierCtrl)
		runnable("an undo (cached) runnable", mark, false)
		cached = append(cached, time.Since(start))
		tb.key("y", chromedp.ModifierCtrl) // redo: the next edit goes on from it
		runnable("a redo runnable", mark, true)
	}
	p50 := func(d []time.Duration) (time.Duration, time.Duration) {
		c := append([]time.Duration(nil), d...)
		sort.Slice(c, func(i, j int) bool { return c[i] < c[j] })
		return c[len(c)/2], c[len(c)-1]
	}
	cp, cm := p50(cold)
	hp, hm := p50(cached)
	line := fmt.Sprintf("keystroke to runnable over %d edits each: cold compile p50 %d ms (max %d ms); cached p50 %d ms (max %d ms)\n", n, cp.Milliseconds(), cm.Milliseconds(), hp.Milliseconds(), hm.Milliseconds())
	t.Log(line)
	_ = os.WriteFile(filepath.Join(s.artifacts, "cuda-keystroke.txt"), []byte(line), 0o644)
	if p := tb.problems(); len(p) > 0 {
		t.Fatalf("console problems: %s", strings.Join(p, "\n"))
	}
}

// TestCUDAEditAfterColours: the colour-matched lines follow edits that
// change the document's length (here: everything deleted, then typed
// again) without a decoration left out of range.
func TestCUDAEditAfterColours(t *testing.T) {
	needClangBrowser(t)
	s := need(t)
	tb := s.newTab(t, "/")
	tb.viewport(1440, 900)
	tb.enterCuda(defaultCudaForTest)
	tb.waitJS("colour-matched CUDA lines", `document.querySelectorAll("#pg-cuda .cm-link[data-link]").length >= 2`)
	tb.eval(`(() => { document.querySelector("#pg-cuda .cm-content").focus(); return true; })()`, new(bool))
	tb.key("a", chromedp.ModifierCtrl)
	tb.key(kb.Backspace)
	tb.insertText("//")
	tb.waitJS("the short source compiled", `document.querySelector("#pg-cuda .cm-content").textContent === "//" && document.getElementById("pg-cuda-status").dataset.kind !== "busy"`)
	tb.insertText(" x")
	time.Sleep(500 * time.Millisecond)
	if p := tb.problems(); len(p) > 0 {
		t.Fatalf("console problems: %s", strings.Join(p, "\n"))
	}
}

// expectTabsOneRow checks that the inspector's tabs, counts included,
// stand on one row, each showing all of its label.
func (tb *tab) expectTabsOneRow(what string) {
	tb.t.Helper()
	tb.waitJS(what+": the Events and Console counts", `!!document.querySelector('[data-tab="events"] .tab-count') && !!document.querySelector('[data-tab="console"] .tab-count')`)
	var rows struct {
		Tops  []float64
		Clips []string
	}
	tb.eval(`(() => { const ts = [...document.querySelectorAll(".tabbar .tab")];
		return {tops: ts.map((t) => Math.round(t.getBoundingClientRect().top)), clips: ts.filter((t) => t.scrollWidth > t.clientWidth + 1).map((t) => t.textContent)}; })()`, &rows)
	for _, y := range rows.Tops {
		if y != rows.Tops[0] {
			var dbg string
			tb.eval(`(() => { const b = document.querySelector(".tabbar"); return b.clientWidth + " wide; tabs " + [...b.querySelectorAll(".tab")].map((t) => t.textContent + "=" + Math.round(t.getBoundingClientRect().width)).join(" "); })()`, &dbg)
			tb.t.Fatalf("%s: the inspector tabs wrap (their tops: %v; %s)", what, rows.Tops, dbg)
		}
	}
	if len(rows.Clips) > 0 {
		tb.t.Fatalf("%s: tabs cut short: %q", what, rows.Clips)
	}
}
