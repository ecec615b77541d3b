package browser

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// shareVia opens the Share dialog, optionally with the current step, and
// returns the link it made (stored, or link-only).
func (tb *tab) shareVia(title string, withStep, linkOnly bool) string {
	tb.t.Helper()
	tb.click(`[data-action="share"]`)
	tb.waitJS("the share dialog", `!document.getElementById("pg-share").hidden`)
	tb.eval(fmt.Sprintf(`(() => {
		const t = document.getElementById("pg-share-title"); t.value = %q;
		const s = document.getElementById("pg-share-step"); s.checked = %v && !s.disabled;
		return true; })()`, title, withStep), nil)
	if linkOnly {
		tb.click(`[data-share="link-only"]`)
	} else {
		tb.click(`[data-share="create"]`)
	}
	tb.waitJS("the link", `!!document.getElementById("pg-share-url")`)
	var url string
	tb.eval(`document.getElementById("pg-share-url").value`, &url)
	tb.key(kb.Escape)
	tb.waitJS("the dialog to close", `document.getElementById("pg-share").hidden`)
	return url
}

func (tb *tab) selectedWarp() string {
	var s string
	tb.eval(`(() => { const r = document.querySelector('#pg-warps .warp-row.sel'); return r ? r.dataset.cta + "/" + r.dataset.warp : ""; })()`, &s)
	return s
}

func (tb *tab) activeTab() string {
	var s string
	tb.eval(`document.querySelector('[data-tab].on')?.dataset.tab ?? ""`, &s)
	return s
}

// TestShareLinks: a link opens the same kernel, launch, view and moment as
// the author had, whether stored on the server or carried in the URL; Fork
// detaches the copy from the link.
func TestShareLinks(t *testing.T) {
	s := need(t)
	tb := s.newTab(t, "/?example=shared-reduction")
	tb.waitLoaded("shared-reduction.ptx")
	tb.setCount(9)
	tb.button("step-warp")
	tb.waitStep(9, 9)
	tb.eval(`document.querySelectorAll("#pg-warps .warp-row")[2].click(), true`, nil)
	tb.waitJS("warp 2 selected", `document.querySelector('#pg-warps .warp-row.sel')?.dataset.warp === "2"`)
	sel := tb.selectedWarp()
	tb.showTab("memory")

	url := tb.shareVia("A reduction, nine steps in", true, false)
	if !strings.HasPrefix(url, s.base+"/s/") || len(url) != len(s.base)+len("/s/")+12 {
		t.Fatalf("share link %q", url)
	}
	// The same content makes the same link.
	if again := tb.shareVia("A reduction, nine steps in", true, false); again != url {
		t.Fatalf("sharing again gave %q, then %q", url, again)
	}

	// Open it as someone else would: the same moment as stepping there by hand.
	// The page holds no session until the first action.
	other := s.newTab(t, strings.TrimPrefix(url, s.base))
	other.wake()
	other.waitStep(9, 9)
	var title string
	other.eval(`document.title`, &title)
	if !strings.HasPrefix(title, "A reduction, nine steps in") {
		t.Errorf("page title %q", title)
	}
	other.waitJS("the shared selection", fmt.Sprintf(`document.querySelector('#pg-warps .warp-row.sel')?.dataset.cta + "/" + document.querySelector('#pg-warps .warp-row.sel')?.dataset.warp === %q`, sel))
	if tab := other.activeTab(); tab != "memory" {
		t.Errorf("the link opened the %q tab, want memory", tab)
	}
	r := refAt(t, "shared-reduction", 9)
	other.expectWarps(r, "opened from the link at step 9")
	other.expectRegTable(r, r.warp(0, 2), "opened from the link at step 9")
	// Named after the example it came from, not the kernel's entry (block_sum).
	if f := other.status().File; f != "shared-reduction.ptx" {
		t.Errorf("file name %q", f)
	}

	// Fork: the copy is the user's own and the address stops naming the link.
	other.waitJS("the Fork button", `!document.querySelector('[data-action="fork"]').hidden`)
	other.click(`[data-action="fork"]`)
	other.waitJS("the forked address", `location.pathname === "/" && document.querySelector('[data-action="fork"]').hidden`)

	// Without the step, the link opens at the start.
	start := tb.shareVia("", false, false)
	if start == url {
		t.Fatal("a link without the step is the same link")
	}
	st := s.newTab(t, strings.TrimPrefix(start, s.base))
	st.wake()
	st.waitLoaded("shared-reduction.ptx")

	// Link-only: the kernel travels in the URL's fragment.
	lo := tb.shareVia("", true, true)
	if !strings.HasPrefix(lo, s.base+"/#k=") {
		t.Fatalf("link-only URL %q", lo)
	}
	lt := s.newTab(t, strings.TrimPrefix(lo, s.base))
	lt.wake()
	lt.waitStep(9, 9)
	lt.expectWarps(r, "opened from a link-only URL at step 9")

	// A damaged link-only URL says so and opens the default kernel.
	bad := s.newTab(t, "/#k=AAAA")
	bad.waitJS("the damaged-link notice", `document.getElementById("pg-toast").textContent.includes("could not be read")`)

	// Unknown links get the friendly page.
	nf := s.newTab(t, "/healthz")
	nf.expectConsole("404")
	nf.navigate("/s/AAAAAAAAAAAA")
	nf.waitJS("the not-found page", `document.body.textContent.includes("This share link does not exist")`)
}

// TestEmbedFraming: the embed player renders inside an iframe of another
// origin (a course page), read-only, while the playground itself refuses
// to be framed.
func TestEmbedFraming(t *testing.T) {
	s := need(t)
	tb := s.newTab(t, "/?example=warp-shuffle")
	tb.waitLoaded("warp-shuffle.ptx")
	url := tb.shareVia("Shuffle", false, false)
	id := url[strings.LastIndex(url, "/")+1:]

	course := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		src := s.base + "/embed/" + id
		switch r.URL.Path {
		case "/framed-app":
			src = s.base + "/s/" + id
		case "/blank":
			fmt.Fprint(w, "<!DOCTYPE html><title>blank</title>")
			return
		}
		fmt.Fprintf(w, `<!DOCTYPE html><title>Course</title><h1>Lesson 3</h1><iframe id="f" src="%s" width="1000" height="640"></iframe>`, src)
	}))
	defer course.Close()
	if strings.HasPrefix(course.URL, s.base) || course.URL == s.base {
		t.Fatalf("the course page must be another origin: %s vs %s", course.URL, s.base)
	}

	page := s.newTabAt(t, course.URL, "/lesson")
	// The embed holds no session until the reader acts.
	page.waitFrame("#f", "the embed player", `document.getElementById("pg-conn")?.dataset.state === "idle" && document.body.classList.contains("compact") && !!document.querySelector("#pg-notice .pg-wake")`)
	page.waitFrame("#f", "a click on Start", `(document.querySelector("#pg-notice .pg-wake").click(), true)`)
	page.waitFrame("#f", "the embed's session", `document.querySelector("#pg-step")?.textContent === "step 0/0" && document.getElementById("pg-conn")?.dataset.state === "open"`)
	page.waitFrame("#f", "a read-only editor", `document.querySelector(".cm-content")?.getAttribute("contenteditable") === "false"`)
	page.screenshot("embed-in-course-page")

	framed := s.newTabAt(t, course.URL, "/blank")
	framed.expectConsole("frame-ancestors 'none'")
	framed.navigate("/framed-app")
	framed.waitFrameBlocked("#f")
}

// frameEval evaluates expr in the first child frame of the page (in an
// isolated world: the frame's DOM, not its scripts' variables) and
// returns the frame's URL and the expression's value.
func (tb *tab) frameEval(expr string) (frameURL string, ok bool, err error) {
	ctx, cancel := context.WithTimeout(tb.ctx, waitTimeout)
	defer cancel()
	err = chromedp.Do(ctx, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		tree, err := cdp.Call(ctx, tg, page.GetFrameTree, cdp.Empty{})
		if err != nil {
			return err
		}
		if tree.FrameTree == nil || len(tree.FrameTree.ChildFrames) == 0 {
			return errors.New("no child frame yet")
		}
		f := tree.FrameTree.ChildFrames[0].Frame
		frameURL = f.URL
		if f.UnreachableURL != "" {
			frameURL = f.UnreachableURL
		}
		world, err := cdp.Call(ctx, tg, page.CreateIsolatedWorld, page.CreateIsolatedWorldParams{FrameID: f.ID, WorldName: "test"})
		if err != nil {
			return err
		}
		yes := true
		res, err := cdp.Call(ctx, tg, runtime.Evaluate, runtime.EvaluateParams{Expression: "!!(" + expr + ")", ContextID: world.ExecutionContextID, ReturnByValue: &yes})
		if err != nil {
			return err
		}
		if res.ExceptionDetails != nil {
			return fmt.Errorf("exception: %s", res.ExceptionDetails.Text)
		}
		return json.Unmarshal(res.Result.Value, &ok)
	}))
	return frameURL, ok, err
}

// waitFrame waits until expr is true inside the page's iframe.
func (tb *tab) waitFrame(sel, what, expr string) {
	tb.t.Helper()
	tb.waitFor(what+" in the frame", func() string {
		u, ok, err := tb.frameEval(expr)
		switch {
		case err != nil:
			return err.Error()
		case !ok:
			return "not yet in frame " + u + ": " + short(expr)
		}
		return ""
	})
}

// waitFrameBlocked waits until the browser has refused to render the
// page's iframe (its document is an error page, not the playground).
func (tb *tab) waitFrameBlocked(sel string) {
	tb.t.Helper()
	tb.waitFor("the frame to be refused", func() string {
		u, ok, err := tb.frameEval(`!document.getElementById("playground")`)
		if err != nil {
			return err.Error()
		}
		if !ok {
			return "the playground rendered in the frame " + u
		}
		return ""
	})
	// And it stays refused.
	time.Sleep(500 * time.Millisecond)
	if u, ok, err := tb.frameEval(`!document.getElementById("playground")`); err == nil && !ok {
		tb.t.Fatalf("the playground rendered in a frame (%s)", u)
	}
}

// TestLessons: every lesson opens from its share link with the lesson
// strip (explanation and hints), a hint opens its line and panel, and the
// launch runs to the end.
func TestLessons(t *testing.T) {
	s := need(t)
	var infos []struct {
		Name, Title, Link string
		Lesson            *struct {
			Hints []struct {
				Line  int
				Panel string
			}
		}
	}
	tb := s.newTab(t, "/gallery")
	ctx, cancel := context.WithTimeout(tb.ctx, waitTimeout)
	raw, err := chromedp.Run(ctx, chromedp.Evaluate[string](`fetch("/api/examples").then(r => r.text())`, chromedp.EvalAwaitPromise))
	cancel()
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(raw), &infos); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, info := range infos {
		if info.Lesson == nil {
			continue
		}
		n++
		if info.Link == "" {
			t.Errorf("%s: no share link", info.Name)
			continue
		}
		tb.navigate(info.Link)
		// A lesson link holds no session until the first action.
		tb.wake()
		tb.waitStatus(info.Name+" to load", func(s status) string {
			if s.Conn != "open" || s.Diag != "✓ compiled" || s.Status != "paused" || s.Step != "step 0/0" {
				return "not loaded"
			}
			return ""
		})
		var hints int
		tb.eval(`document.querySelectorAll("#pg-lesson .lesson-hint").length`, &hints)
		if hints != len(info.Lesson.Hints) {
			t.Errorf("%s: the lesson strip shows %d hints, want %d", info.Name, hints, len(info.Lesson.Hints))
		}
		// The last hint opens its panel and line.
		last := info.Lesson.Hints[len(info.Lesson.Hints)-1]
		tb.click(fmt.Sprintf(`#pg-lesson .lesson-hint[data-hint="%d"]`, len(info.Lesson.Hints)-1))
		switch last.Panel {
		case "regs", "memory", "launch", "events", "fragments":
			tb.waitJS(info.Name+": the hint's panel", fmt.Sprintf(`document.querySelector('[data-tab].on')?.dataset.tab === %q`, last.Panel))
		}
		tb.waitJS(info.Name+": the hint's line", fmt.Sprintf(`document.querySelector(".cm-lineNumbers .cm-activeLineGutter")?.textContent.trim() === "%d"`, last.Line))
		tb.button("run")
		tb.waitStatus(info.Name+" to finish", func(s status) string {
			if s.Status != "done" {
				return "not done"
			}
			return ""
		})
	}
	if n < 12 {
		t.Errorf("%d lessons", n)
	}
}

// TestShareAndLessonLayout: the lesson strip and the Share dialog fit a
// laptop, a projector and a phone (screenshots in artifacts/browser).
func TestShareAndLessonLayout(t *testing.T) {
	s := need(t)
	for _, vp := range []struct {
		name string
		w, h int64
	}{{"laptop", 1440, 900}, {"projector", 1024, 768}, {"phone", 390, 844}} {
		tb := s.newTab(t, "/?example=reconvergence")
		tb.viewport(vp.w, vp.h)
		tb.waitLoaded("reconvergence.ptx")
		tb.waitJS("the lesson strip", `!document.getElementById("pg-lesson").hidden`)
		var fits bool
		tb.eval(`(() => { const r = document.getElementById("pg-lesson").getBoundingClientRect(); return r.width > 0 && r.right <= window.innerWidth + 1; })()`, &fits)
		if !fits {
			t.Errorf("%s: the lesson strip overflows the window", vp.name)
		}
		tb.screenshot(vp.name + "-lesson")
		tb.click(`[data-action="share"]`)
		tb.waitJS("the share dialog", `!document.getElementById("pg-share").hidden`)
		tb.click(`[data-share="create"]`)
		tb.waitJS("the link", `!!document.getElementById("pg-share-url")`)
		tb.eval(`(() => { const c = document.querySelector(".share-card").getBoundingClientRect(); return c.left >= 0 && c.right <= window.innerWidth && c.bottom <= window.innerHeight; })()`, &fits)
		if !fits {
			t.Errorf("%s: the share dialog does not fit the window", vp.name)
		}
		tb.screenshot(vp.name + "-share")
	}
}

// TestShareFragmentView: a link made from the Fragments tab opens on the
// same tab, following the same instruction of the kernel.
func TestShareFragmentView(t *testing.T) {
	s := need(t)
	tb := s.newTab(t, "/?example=mma-tile")
	tb.waitLoaded("mma-tile.ptx")
	tb.button("run")
	tb.waitStatus("the launch to finish", func(s status) string {
		if s.Status != "done" {
			return "not done"
		}
		return ""
	})
	tb.showTab("fragments")
	// Pick the kernel's last tensor instruction (its mma).
	var pc string
	tb.eval(`(() => { const s = document.querySelector('#pg-tab-fragments select[aria-label="Instruction of the kernel"]');
		s.value = s.options[s.options.length - 1].value; s.dispatchEvent(new Event("change")); return s.value; })()`, &pc)
	if pc == "" || pc == "-1" {
		t.Fatalf("no tensor instruction to pick (%q)", pc)
	}
	url := tb.shareVia("", true, false)
	other := s.newTab(t, strings.TrimPrefix(url, s.base))
	other.waitJS("the fragments tab", `document.querySelector('[data-tab].on')?.dataset.tab === "fragments"`)
	other.wake() // the shared page connects on the first action
	other.waitJS("the same instruction", fmt.Sprintf(`document.querySelector('#pg-tab-fragments select[aria-label="Instruction of the kernel"]').value === %q`, pc))
	other.waitJS("its live values", `document.querySelectorAll("#pg-tab-fragments .frag-cell").length > 0`)
}

// evalAwait evaluates a JavaScript expression that returns a promise and
// decodes its JSON value into v.
func (tb *tab) evalAwait(expr string, v any) {
	tb.t.Helper()
	ctx, cancel := context.WithTimeout(tb.ctx, waitTimeout)
	defer cancel()
	raw, err := chromedp.Run(ctx, chromedp.Evaluate[[]byte](expr, chromedp.EvalAwaitPromise))
	if err != nil {
		tb.t.Fatalf("evaluating %s: %v", short(expr), err)
	}
	if err := json.Unmarshal(raw, v); err != nil {
		tb.t.Fatalf("%s: %v", short(expr), err)
	}
}

// sharedView is what the view of a link shows: the file, the example
// menu, the tab, the selection and every tab's settings.
type sharedView struct {
	File       string `json:"file"`
	Example    string `json:"example"`
	YourKernel bool   `json:"yourKernel"`
	Tab        string `json:"tab"`
	Warp       string `json:"warp"`
	Region     string `json:"region"`
	Banks      bool   `json:"banks"`
	Hex        bool   `json:"hex"`
	Type       string `json:"type"`
	RegFormat  string `json:"regFormat"`
	Watch      string `json:"watch"`
	Filter     string `json:"filter"`
	Fragment   string `json:"fragment"`
	Lane       string `json:"lane"`
	Pattern    string `json:"pattern"`
	Live       bool   `json:"live"`
}

const sharedViewJS = `(() => {
	const q = (s) => document.querySelector(s);
	const sel = q("#pg-example-select");
	const region = q('#pg-tab-memory .mem-tab[aria-selected="true"]');
	const row = q('#pg-warps .warp-row.sel');
	return {
		file: q("#pg-file").textContent, example: sel ? sel.value : "",
		yourKernel: !!(sel && sel.querySelector('option[value=""]')),
		tab: q('[data-tab].on')?.dataset.tab ?? "",
		warp: row ? row.dataset.cta + "/" + row.dataset.warp : "",
		region: region ? region.dataset.key : "",
		banks: q('#pg-tab-memory [data-view="banks"]')?.getAttribute("aria-pressed") === "true",
		hex: !!q('#pg-tab-memory label[title="Show raw bits in hex"] input')?.checked,
		type: q('#pg-tab-memory select[aria-label="Element type"]')?.value ?? "",
		regFormat: q('#pg-tab-regs select[aria-label="Format of all registers"]').value,
		watch: q("#pg-tab-regs .watch")?.hidden ? "" : (q("#pg-tab-regs .watch code")?.textContent ?? ""),
		filter: q('#pg-tab-regs input[aria-label="Filter registers"]').value,
		fragment: q('#pg-tab-fragments select[aria-label="Instruction"]').value,
		lane: q("#pg-tab-fragments .frag-cell.hl, #pg-tab-fragments .frag-cell.on")?.dataset.lane ?? "",
		pattern: q('#pg-tab-swizzle [name="pattern"]').value,
		live: q('#pg-tab-swizzle [name="live"]').checked,
	};
})()`

func (tb *tab) sharedView() sharedView {
	tb.t.Helper()
	var v sharedView
	tb.eval(sharedViewJS, &v)
	return v
}

// TestShareWholeView: a link restores the whole view the author had, not
// just the kernel and the step: the file named after the example it came
// from (transpose-swizzled.ptx, not its first .entry), the example menu on
// that example (not "Your kernel"), the Memory tab on shared memory as
// banks in hex as u32, the registers' format, watch and filter, the
// fragment form and the swizzle explorer's pattern, the selected warp.
// A fresh browser is told "Opened the shared kernel", not "Restored your
// draft". Opening the link and sharing again gives the same link: every
// field of the view goes round. A link in the format written before the
// view grew (tab, selection, granularity only) still opens. Screenshots
// at 1440×900, 1024×768 presenter and 390×844.
func TestShareWholeView(t *testing.T) {
	s := need(t)
	const name = "transpose-swizzled"
	tb := s.newTab(t, "/?example="+name)
	tb.waitLoaded(name + ".ptx")
	// Run to the swizzled read (line 225), then execute it: the bank view
	// shows its lanes.
	const bp = 225
	tb.scrollEditorToLine(bp)
	x, y := tb.gutterLineCentre(bp)
	tb.clickAt(x, y)
	tb.expectMarks(".cm-bp-gutter .bp-dot", "the breakpoint dot", bp)
	tb.button("run")
	tb.waitStatus("the breakpoint", func(s status) string {
		if s.Status != "paused" || s.Step == "step 0/0" {
			return "not stopped"
		}
		return ""
	})
	cur, _ := tb.stepOf()
	cur++
	tb.button("step-warp")
	tb.waitStep(cur, cur)
	tb.eval(`document.querySelectorAll("#pg-warps .warp-row")[1].click(), true`, nil)
	tb.waitJS("warp 1 selected", `document.querySelector('#pg-warps .warp-row.sel')?.dataset.warp === "1"`)

	// The swizzle explorer: 64B by hand, not following the kernel.
	tb.showTab("swizzle")
	tb.eval(`(() => { const l = document.querySelector('#pg-tab-swizzle [name="live"]'); l.checked = false; l.dispatchEvent(new Event("change", {bubbles: true}));
		const f = document.querySelector('#pg-tab-swizzle [name="pattern"]'); f.value = "64B"; f.dispatchEvent(new Event("change", {bubbles: true})); return true; })()`, nil)
	tb.waitJS("64B drawn", `(document.querySelector("#pg-tab-swizzle .swz-info") || {}).textContent.includes("64B")`)
	// The fragment explorer: a form other than the first, a lane.
	tb.showTab("fragments")
	tb.waitJS("the fragment forms", `document.querySelectorAll('#pg-tab-fragments select[aria-label="Instruction"] option').length > 2`)
	var form string
	tb.eval(`(() => { const s = document.querySelector('#pg-tab-fragments select[aria-label="Instruction"]');
		s.value = s.options[2].value; s.dispatchEvent(new Event("change")); return s.value; })()`, &form)
	tb.waitJS("the fragment drawn", `document.querySelectorAll("#pg-tab-fragments .frag-cell").length > 0`)
	tb.eval(`(() => { const g = document.querySelectorAll("#pg-tab-fragments .frag-cell")[5]; g.dispatchEvent(new MouseEvent("click", {bubbles: true})); return true; })()`, nil)
	// The registers: hex, a watch, a filter.
	tb.showTab("regs")
	var reg string
	tb.eval(`(() => { const s = document.querySelector('#pg-tab-regs select[aria-label="Format of all registers"]'); s.value = "hex"; s.dispatchEvent(new Event("change"));
		const th = document.querySelectorAll("#pg-tab-regs th.reg-name[data-name]")[1]; th.click(); return th.dataset.name; })()`, &reg)
	tb.eval(`(() => { const f = document.querySelector('#pg-tab-regs input[aria-label="Filter registers"]'); f.value = "%r"; f.dispatchEvent(new Event("input")); return true; })()`, nil)
	// The memory: shared memory as banks, in hex, as u32.
	tb.openBanks()
	tb.eval(`(() => { const s = document.querySelector('#pg-tab-memory select[aria-label="Element type"]'); s.value = "u32"; s.dispatchEvent(new Event("change")); return true; })()`, nil)
	tb.click(`#pg-tab-memory label[title="Show raw bits in hex"] input`)
	tb.waitJS("hex banks", `document.querySelector('#pg-tab-memory label[title="Show raw bits in hex"] input').checked && !!document.querySelector("#pg-tab-memory table.banks")`)
	author := tb.sharedView()
	want := sharedView{File: name + ".ptx", Example: name, Tab: "memory", Warp: "0/1", Region: "shared", Banks: true, Hex: true, Type: "u32",
		RegFormat: "hex", Watch: reg, Filter: "%r", Fragment: form, Lane: author.Lane, Pattern: "64B"}
	if author != want || author.Lane == "" {
		t.Fatalf("the author's view %+v, want %+v with a lane", author, want)
	}

	url := tb.shareVia("The swizzled transpose", true, false)
	id := url[strings.LastIndex(url, "/")+1:]
	var stored struct {
		Example string                     `json:"example"`
		View    map[string]json.RawMessage `json:"view"`
	}
	tb.evalAwait(fmt.Sprintf(`fetch("/api/share/%s").then((r) => r.json())`, id), &stored)
	for _, k := range []string{"tab", "breakpoints", "cta", "warp", "gran", "memory", "regs", "fragment", "lane", "swizzle"} {
		if _, ok := stored.View[k]; !ok {
			t.Errorf("the link's view has no %q: %v", k, stored.View)
		}
	}
	if stored.Example != name {
		t.Errorf("the link's example %q", stored.Example)
	}

	// A fresh browser: before any action, the file, the menu and the tab.
	other := s.newTab(t, strings.TrimPrefix(url, s.base))
	other.waitJS("the page", `document.documentElement.classList.contains("hydrated")`)
	if v := other.sharedView(); v.File != want.File || v.Example != name || v.YourKernel || v.Tab != "memory" {
		t.Errorf("the opened link, asleep: file %q, menu %q (Your kernel: %v), tab %q; want %q, %q, memory", v.File, v.Example, v.YourKernel, v.Tab, want.File, name)
	}
	other.wake()
	other.waitStep(cur, cur)
	other.waitJS("the greeting", fmt.Sprintf(`document.getElementById("pg-toast").textContent.includes("Opened the shared kernel: replayed to step %s")`, grouped(int64(cur))))
	var toast string
	other.eval(`document.getElementById("pg-toast").textContent`, &toast)
	if strings.Contains(toast, "Restored your draft") {
		t.Errorf("a fresh browser is greeted with %q", toast)
	}
	other.waitJS("the bank grid", `!!document.querySelector("#pg-tab-memory table.banks td.bw")`)
	other.waitJS("the swizzle pattern", `document.querySelector('#pg-tab-swizzle [name="pattern"]').value === "64B"`)
	// The fragment explorer draws (and fills its menu) once its tab shows: checked below.
	wantHidden := want
	wantHidden.Fragment, wantHidden.Lane = "", ""
	got := other.sharedView()
	got.Fragment, got.Lane = "", ""
	if got != wantHidden {
		t.Errorf("the opened link's view\n %+v\nwant\n %+v", got, wantHidden)
	}
	other.expectMarks(".cm-bp-gutter .bp-dot", "the link's breakpoint", bp)
	other.waitJS("the read's lanes on the banks", `document.querySelector("#pg-tab-memory .bank-summary")?.textContent.includes("32 lanes")`)
	other.atEverySize("the opened link's bank view", "share-banks")
	// On a phone the inspector is below the editor: the bank view itself.
	other.viewport(390, 844)
	other.eval(`document.getElementById("pg-tab-memory").scrollIntoView(), true`, nil)
	other.screenshot("share-banks-390-scrolled")
	other.viewport(1440, 900)
	other.showTab("regs")
	other.atEverySize("the opened link's registers", "share-regs")
	other.showTab("memory")

	// Round trip: sharing the opened link again, unchanged, is the same link.
	if again := other.shareVia("The swizzled transpose", true, false); again != url {
		var v2 struct {
			View map[string]json.RawMessage `json:"view"`
		}
		other.evalAwait(fmt.Sprintf(`fetch("/api/share/%s").then((r) => r.json())`, again[strings.LastIndex(again, "/")+1:]), &v2)
		t.Errorf("sharing the opened link again gave another link: view\n %s\nwas\n %s", mustJSON(v2.View), mustJSON(stored.View))
	}
	other.showTab("fragments")
	other.waitJS("the fragment drawn", `document.querySelectorAll("#pg-tab-fragments .frag-cell").length > 0`)
	if v := other.sharedView(); v.Fragment != want.Fragment || v.Lane != want.Lane {
		t.Errorf("the opened link's fragment explorer: form %q lane %q, want %q lane %q", v.Fragment, v.Lane, want.Fragment, want.Lane)
	}

	// Links in the format written before the view grew still open: stored
	// and link-only, with only the tab, the selection and the granularity.
	var old struct {
		Stored string `json:"stored"`
		Frag   string `json:"frag"`
	}
	tb.evalAwait(fmt.Sprintf(`(async () => {
		const ex = await (await fetch("/api/examples/%s")).json();
		const spec = typeof ex.spec === "string" ? JSON.parse(ex.spec) : ex.spec;
		delete spec.ptx; delete spec.source; delete spec.version; delete spec.comment;
		const snap = {source: ex.source, spec, step: %d, example: ex.name, view: {tab: "memory", cta: 0, warp: 1, gran: "warp"}};
		const r = await (await fetch("/api/share", {method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify(snap)})).json();
		const z = new Blob([new TextEncoder().encode(JSON.stringify(snap))]).stream().pipeThrough(new CompressionStream("deflate-raw"));
		const b = new Uint8Array(await new Response(z).arrayBuffer());
		let s = ""; for (const x of b) s += String.fromCharCode(x);
		return {stored: r.url ?? JSON.stringify(r), frag: "#k=" + btoa(s).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "")};
	})()`, name, cur), &old)
	for _, path := range []string{old.Stored, "/" + old.Frag} {
		o := s.newTab(t, path)
		o.wake()
		o.waitStep(cur, cur)
		o.waitJS("the old link's selection", `document.querySelector('#pg-warps .warp-row.sel')?.dataset.warp === "1"`)
		if v := o.sharedView(); v.File != want.File || v.Example != name || v.YourKernel || v.Tab != "memory" || v.Warp != "0/1" {
			t.Errorf("old-format link %.40s: %+v", path, v)
		}
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
