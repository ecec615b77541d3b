package browser

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The lesson strip, the hint lines, the warps pane's reconvergence stack,
// the embed and the gallery's theme, at the sizes a class uses.

// lessonNames lists the gallery's lessons in order.
func lessonNames(t *testing.T) []string {
	t.Helper()
	root, err := repoRoot()
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(root, "web", "examples", "index.json"))
	if err != nil {
		t.Fatal(err)
	}
	var idx []struct {
		Name   string          `json:"name"`
		Lesson json.RawMessage `json:"lesson"`
	}
	if err := json.Unmarshal(data, &idx); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range idx {
		if len(e.Lesson) > 0 && string(e.Lesson) != "null" {
			names = append(names, e.Name)
		}
	}
	if len(names) == 0 {
		t.Fatal("no lessons in the gallery")
	}
	return names
}

// TestLessonStripFitsAt1440: at 1440×900 every lesson's strip shows its
// explanation, hints and result without a scroll box of its own, and the
// code keeps at least 10 lines below it.
func TestLessonStripFitsAt1440(t *testing.T) {
	s := need(t)
	tb := s.newTab(t, "/?example=vector-add")
	tb.waitLoaded("vector-add.ptx")
	tb.viewport(1440, 900)
	for _, name := range lessonNames(t) {
		if name != "vector-add" {
			tb.chooseExample(name)
		}
		tb.waitJS(name+"'s lesson", `!document.getElementById("pg-lesson").hidden && document.querySelector("#pg-lesson details").open`)
		var st struct {
			Scroll, Client float64
			Result         bool
		}
		tb.eval(`(() => {
			const box = document.getElementById("pg-lesson");
			const res = box.querySelector(".lesson-result");
			const b = box.getBoundingClientRect();
			return {Scroll: box.scrollHeight, Client: box.clientHeight,
				Result: !res || res.getBoundingClientRect().bottom <= b.bottom + 0.5};
		})()`, &st)
		c := tb.codeRoom("1440×900 " + name)
		if st.Scroll > st.Client+1 || !st.Result {
			t.Errorf("%s at 1440×900: the lesson strip scrolls inside itself (%.0f of %.0fpx shown; result in view: %v)", name, st.Client, st.Scroll, st.Result)
		}
		if c.Lines < 10 {
			t.Errorf("%s at 1440×900: %d code lines under the lesson, want at least 10", name, c.Lines)
		}
		if name == "spin-lock" {
			tb.screenshot("spin-lock-1440")
		}
	}
}

// hintLineJS measures the line a hint marked: its line number and the
// contrast of its background against the editor's.
const hintLineJS = `(() => {
	const rgba = (s) => { const m = s.match(/[\d.]+/g).map(Number); const k = s.startsWith("color(") ? 255 : 1; return [m[0] * k, m[1] * k, m[2] * k, m.length > 3 ? m[3] : 1]; };
	const lum = (c) => { const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; }; return 0.2126 * f(c[0]) + 0.7152 * f(c[1]) + 0.0722 * f(c[2]); };
	const ratio = (a, b) => { const x = lum(a), y = lum(b); return (Math.max(x, y) + 0.05) / (Math.min(x, y) + 0.05); };
	const ed = rgba(getComputedStyle(document.querySelector(".pg-editor .cm-editor")).backgroundColor);
	const lines = [...document.querySelectorAll(".pg-editor .cm-line")];
	const nums = [...document.querySelectorAll(".pg-editor .cm-lineNumbers .cm-gutterElement")];
	const marked = lines.filter((l) => l.classList.contains("cm-hint-line"));
	if (marked.length !== 1) return {count: marked.length};
	const l = marked[0];
	const top = l.getBoundingClientRect().top;
	const num = nums.find((n) => Math.abs(n.getBoundingClientRect().top - top) < 2);
	const bg = rgba(getComputedStyle(l).backgroundColor);
	const mix = bg.slice(0, 3).map((v, i) => v * bg[3] + ed[i] * (1 - bg[3]));
	return {count: 1, line: num ? num.textContent.trim() : "", contrast: ratio(mix, ed)};
})()`

// TestHintLineOnProjector: a followed hint marks its line strongly enough
// for a projector (presenter mode, both themes), and the hint is marked as
// the one followed; a hint that starts with a PTX label names it as one.
func TestHintLineOnProjector(t *testing.T) {
	s := need(t)
	tb := s.newTab(t, "/")
	tb.openLesson("divergence")
	tb.viewport(1024, 768)
	tb.presenterOn()
	for _, theme := range []string{"dark", "light"} {
		tb.eval(fmt.Sprintf(`(document.documentElement.dataset.theme = %q, true)`, theme), nil)
		for i := 0; i < 2; i++ {
			line, _ := tb.followHint(i)
			tb.settle()
			var m struct {
				Count    int     `json:"count"`
				Line     string  `json:"line"`
				Contrast float64 `json:"contrast"`
			}
			tb.eval(hintLineJS, &m)
			t.Logf("%s, hint %d: line %s marked, contrast %.2f", theme, i, m.Line, m.Contrast)
			if m.Count != 1 || m.Line != fmt.Sprint(line) || m.Contrast < 1.5 {
				t.Errorf("%s theme, hint %d (line %d): %d lines marked (line %q), contrast %.2f against the editor, want line %d at 1.5 or more", theme, i, line, m.Count, m.Line, m.Contrast, line)
			}
			var on []string
			tb.eval(`[...document.querySelectorAll("#pg-lesson .lesson-hint.on")].map((b) => b.dataset.hint)`, &on)
			if len(on) != 1 || on[0] != fmt.Sprint(i) {
				t.Errorf("%s theme: the followed hints marked are %v, want [%d]", theme, on, i)
			}
		}
		tb.screenshot("hint-line-" + theme)
	}

	// "NEXT: both paths rejoin here" names the label as code.
	var label struct {
		Text  string `json:"text"`
		Label string `json:"label"`
	}
	tb.eval(`(() => { const li = [...document.querySelectorAll("#pg-lesson .lesson-hints li")].find((li) => li.textContent.includes("rejoin")); const c = li.querySelector("code.lesson-label"); return {text: li.textContent, label: c ? c.textContent : ""}; })()`, &label)
	if label.Label != "NEXT" || !strings.Contains(label.Text, "At label NEXT, both paths rejoin here") {
		t.Errorf("the hint on the label NEXT reads %q (label element %q), want it to say \"At label NEXT, both paths rejoin here\" with NEXT as code", label.Text, label.Label)
	}
}

// TestReconvergenceStackAllEntries: every entry of the selected warp's
// reconvergence stack is shown, not cut by a scroll box of its own: all in
// view at 1440×900; at 1024×768 presenter and on a phone its box does not
// scroll, and each entry is reached by scrolling the pane or the page.
func TestReconvergenceStackAllEntries(t *testing.T) {
	s := need(t)
	tb := s.newTab(t, "/")
	tb.openLesson("reconvergence")
	tb.viewport(1440, 900)
	tb.blurFocus()
	rows := 0
	for i := 1; i <= 60 && rows < 4; i++ {
		tb.key("n")
		tb.waitStep(i, i)
		tb.eval(`document.querySelectorAll(".warps-stack .stack-table tbody tr").length`, &rows)
	}
	if rows < 4 {
		t.Fatalf("the stack never reached 4 entries (%d)", rows)
	}
	type stackView struct {
		Rows     int  `json:"rows"`
		InView   int  `json:"inView"`
		Scrolls  bool `json:"scrolls"`
		Reached  int  `json:"reached"`
		BoxFixed bool `json:"boxFixed"`
	}
	check := func(what string, wantInView bool) {
		var v stackView
		tb.eval(`(() => {
			const box = document.querySelector(".warps-stack");
			const trs = [...box.querySelectorAll(".stack-table tbody tr")];
			const pane = document.querySelector(".pg-warps-pane").getBoundingClientRect();
			const seen = (tr) => { const r = tr.getBoundingClientRect(); const top = document.elementFromPoint(r.left + 10, (r.top + r.bottom) / 2); return r.top >= Math.max(0, pane.top) - 0.5 && r.bottom <= Math.min(innerHeight, pane.bottom) + 0.5 && !!top && tr.contains(top); };
			const inView = trs.filter(seen).length;
			let reached = 0;
			for (const tr of trs) { tr.scrollIntoView({block: "nearest"}); if (seen(tr)) reached++; }
			const cs = getComputedStyle(box);
			return {rows: trs.length, inView, scrolls: box.scrollHeight > box.clientHeight + 1, reached, boxFixed: cs.maxHeight !== "none"};
		})()`, &v)
		t.Logf("%s: %d stack entries, %d in view, %d reached by scrolling; its box scrolls: %v", what, v.Rows, v.InView, v.Reached, v.Scrolls)
		if v.Scrolls || v.BoxFixed {
			t.Errorf("%s: the stack is a scroll box of its own (scrolls %v, max-height set %v)", what, v.Scrolls, v.BoxFixed)
		}
		if v.Reached != v.Rows {
			t.Errorf("%s: %d of %d stack entries can be brought into view", what, v.Reached, v.Rows)
		}
		if wantInView && v.InView != v.Rows {
			t.Errorf("%s: %d of %d stack entries in view", what, v.InView, v.Rows)
		}
	}
	check("1440×900", true)
	tb.screenshot("stack-1440")
	tb.viewport(1024, 768)
	tb.presenterOn()
	check("1024×768 presenter", false)
	tb.screenshot("stack-1024")
	tb.blurFocus()
	tb.key("z")
	tb.viewport(390, 844)
	check("390×844", false)
	tb.screenshot("stack-390")
	tb.viewport(1440, 900)
	tb.atEverySize("the reconvergence stack", "stack")
}

// TestEmbedRoom: the embed at its suggested 960×600 shows at least 15
// lines of code and labelled controls; /embed/{name} has no example
// dropdown (it plays what it embeds) but names it.
func TestEmbedRoom(t *testing.T) {
	s := need(t)
	tb := s.newTab(t, "/embed/divergence")
	tb.viewport(960, 600)
	tb.waitJS("the kernel", `document.querySelector(".cm-content")?.textContent.includes(".entry collatz")`)
	var top struct {
		Select bool   `json:"select"`
		Title  string `json:"title"`
	}
	tb.eval(`({select: !!document.getElementById("pg-example-select"), title: document.getElementById("pg-top").textContent})`, &top)
	if top.Select || !strings.Contains(top.Title, "Branch divergence") {
		t.Errorf("/embed/divergence: example dropdown %v, top bar %q: want no dropdown and the example's title", top.Select, top.Title)
	}
	c := tb.codeRoom("embed 960×600")
	if c.Lines < 15 {
		t.Errorf("the embed at 960×600 shows %d code lines, want at least 15", c.Lines)
	}
	var unlabelled []string
	tb.eval(`[...document.querySelectorAll("#pg-controls button[data-action]")].filter((b) => b.getBoundingClientRect().width > 0).filter((b) => { const l = b.querySelector(".label"); return !l || l.getBoundingClientRect().width === 0 || l.textContent.trim() === ""; }).map((b) => b.dataset.action)`, &unlabelled)
	if len(unlabelled) > 0 {
		t.Errorf("controls without a visible label in the embed at 960×600: %v", unlabelled)
	}
	tb.expectNoOverflow("embed 960×600")
	tb.screenshot("embed-960")
	tb.atEverySize("the embed", "embed")
}

// TestGalleryFollowsTheme: the gallery (and the other server-rendered
// pages) follow the theme chosen in the playground.
func TestGalleryFollowsTheme(t *testing.T) {
	s := need(t)
	tb := s.newTab(t, "/?example=vector-add")
	tb.waitLoaded("vector-add.ptx")
	bright := func() float64 {
		var l float64
		tb.eval(`(() => { const m = getComputedStyle(document.body).backgroundColor.match(/[\d.]+/g).map(Number); const c = getComputedStyle(document.documentElement).backgroundColor.match(/[\d.]+/g).map(Number); const x = (m.length > 3 && m[3] === 0) ? c : m; return (x[0] + x[1] + x[2]) / 3; })()`, &l)
		return l
	}
	for i := 0; i < 2; i++ {
		tb.click(`[data-action="theme"]`)
		var theme string
		tb.eval(`localStorage.getItem("ptxplay.theme")`, &theme)
		tb.navigate("/gallery")
		tb.waitJS("the gallery", `document.querySelectorAll(".card").length > 0`)
		l := bright()
		t.Logf("theme %s: the gallery's background is %.0f/255 bright", theme, l)
		if (theme == "dark") != (l < 100) {
			t.Errorf("the playground's theme is %s, the gallery's background %.0f/255 bright", theme, l)
		}
		tb.screenshot("gallery-" + theme)
		tb.navigate("/?example=vector-add")
		tb.waitLoaded("vector-add.ptx")
	}
}
