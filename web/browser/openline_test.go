package browser

import (
	"fmt"
	"strings"
	"testing"
)

// selectedLineInView reports whether the selected warp's line (the
// editor's marked line) is in the editor's view and on screen, and which
// line that is.
func (tb *tab) selectedLineInView() (line string, inView bool) {
	tb.t.Helper()
	var v struct {
		Line   string
		InView bool
	}
	tb.eval(`(() => {
		const s = document.querySelector(".cm-scroller").getBoundingClientRect();
		const sel = document.querySelector("#pg-warps .warp-row.sel");
		const m = /line (\d+)/.exec(sel ? sel.textContent : "");
		if (!m) return {Line: "", InView: false};
		for (const g of document.querySelectorAll(".cm-lineNumbers .cm-gutterElement")) {
			if (g.textContent !== m[1]) continue;
			const b = g.getBoundingClientRect();
			return {Line: m[1], InView: b.height > 0 && b.top >= s.top && b.bottom <= s.bottom && b.top >= 0 && b.bottom <= innerHeight};
		}
		return {Line: m[1], InView: false};
	})()`, &v)
	return v.Line, v.InView
}

// TestShareOpensAtWarpLine: a share link made deep in a lesson (the
// swizzled transpose at its column read, line 225, warp 1 selected) opens
// with the selected warp's line in the editor's view, without scrolling,
// once woken at the shared step (asleep, no warp has a line yet). At 1440×900, 1024×768
// presenter and 390×844 (where the page scrolls to the editor), opened
// there or switched to after opening; and a lesson's hint line stays in
// view the same way. Screenshots.
func TestShareOpensAtWarpLine(t *testing.T) {
	s := need(t)
	const name = "transpose-swizzled"
	url, cur, want := shareSwizzleRead(t, s)

	for _, vp := range []struct {
		w, h      int64
		presenter bool
	}{{1440, 900, false}, {1024, 768, true}, {390, 844, false}} {
		o := s.newTab(t, "/?example=vector-add")
		o.waitLoaded("vector-add.ptx")
		o.viewport(vp.w, vp.h)
		if vp.presenter {
			o.blurFocus()
			o.key("z")
			o.waitJS("presenter mode", `document.documentElement.classList.contains("presenter")`)
		}
		o.navigate(url)
		o.waitJS("the page", `document.documentElement.classList.contains("hydrated")`)
		at := fmt.Sprintf("%dx%d", vp.w, vp.h)
		o.wake()
		o.waitStep(cur, cur)
		o.settle()
		if vp.w < 500 {
			o.eval(`(document.querySelector(".cm-editor").scrollIntoView({block: "start"}), true)`, nil)
		}
		if line, ok := o.selectedLineInView(); line != want || !ok {
			t.Errorf("%s: the opened link, woken: the selected warp's line %q (want %s) in view: %v", at, line, want, ok)
		}
		o.screenshot(fmt.Sprintf("open-line-%d", vp.w))
	}

	// Opened on one screen and shown on another (a laptop plugged into a
	// projector, presenter mode on, a phone): the line stays in view.
	o := s.newTab(t, url)
	o.viewport(1440, 900)
	o.wake()
	o.waitStep(cur, cur)
	o.settle()
	if line, ok := o.selectedLineInView(); line != want || !ok {
		t.Errorf("1440x900: the selected warp's line %q (want %s) in view: %v", line, want, ok)
	}
	o.expectLineAtEverySize("the opened link", "open-resized", func() (string, bool) { return o.selectedLineInView() })

	// A lesson's hint brings its line into view; it stays there as the
	// screen changes.
	l := s.newTab(t, "/?example="+name)
	l.waitLoaded(name + ".ptx")
	l.viewport(1440, 900)
	l.waitJS("the lesson strip", `document.querySelectorAll("#pg-lesson .lesson-hint").length > 0`)
	var last int
	l.eval(`document.querySelectorAll("#pg-lesson .lesson-hint").length - 1`, &last)
	line, _ := l.followHint(last)
	hintLine := func() (string, bool) {
		var v struct {
			Line   string
			InView bool
		}
		l.eval(fmt.Sprintf(`(() => {
			const s = document.querySelector(".cm-scroller").getBoundingClientRect();
			for (const g of document.querySelectorAll(".cm-lineNumbers .cm-gutterElement")) {
				if (g.textContent !== "%d") continue;
				const b = g.getBoundingClientRect();
				return {Line: g.textContent, InView: b.height > 0 && b.top >= s.top && b.bottom <= s.bottom && b.top >= 0 && b.bottom <= innerHeight};
			}
			return {Line: "%d", InView: false};
		})()`, line, line), &v)
		return v.Line, v.InView
	}
	if _, ok := hintLine(); !ok {
		t.Errorf("1440x900: hint %d's line %d is not in view", last, line)
	}
	l.expectLineAtEverySize(fmt.Sprintf("hint %d's line %d", last, line), "hint-resized", hintLine)
}

// expectLineAtEverySize switches to 1024×768 presenter mode, then 390×844
// (the page scrolled to the editor, as a reader of a phone would), and
// checks at each that inView reports its line in the editor's view
// without scrolling the editor; screenshots.
func (tb *tab) expectLineAtEverySize(what, name string, inView func() (string, bool)) {
	tb.t.Helper()
	tb.viewport(1024, 768)
	tb.blurFocus()
	tb.key("z")
	tb.waitJS("presenter mode", `document.documentElement.classList.contains("presenter")`)
	tb.settle()
	if line, ok := inView(); !ok {
		tb.t.Errorf("%s: 1024x768 presenter: line %s not in view", what, line)
	}
	tb.screenshot(name + "-1024")
	tb.blurFocus()
	tb.key("z")
	tb.waitJS("presenter mode off", `!document.documentElement.classList.contains("presenter")`)
	tb.viewport(390, 844)
	tb.eval(`(document.querySelector(".cm-editor").scrollIntoView({block: "start"}), true)`, nil)
	tb.settle()
	if line, ok := inView(); !ok {
		tb.t.Errorf("%s: 390x844: line %s not in view", what, line)
	}
	tb.screenshot(name + "-390")
	tb.viewport(1440, 900)
}

// shareSwizzleRead shares the swizzle lesson (transpose-swizzled) at its
// column read: a breakpoint on line 225, Run, one warp step, warp 1
// selected, titled "The swizzled transpose at its column read". It
// returns the link's path, its step and the selected warp's line.
func shareSwizzleRead(t *testing.T, s *suite) (url string, cur int, want string) {
	t.Helper()
	const name = "transpose-swizzled"
	tb := s.newTab(t, "/?example="+name)
	tb.waitLoaded(name + ".ptx")
	tb.viewport(1440, 900)
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
	cur, _ = tb.stepOf()
	cur++
	tb.button("step-warp")
	tb.waitStep(cur, cur)
	tb.eval(`document.querySelectorAll("#pg-warps .warp-row")[1].click(), true`, nil)
	tb.waitJS("warp 1 selected", `document.querySelector('#pg-warps .warp-row.sel')?.dataset.warp === "1"`)
	want, _ = tb.selectedLineInView()
	if want == "" {
		t.Fatal("the selected warp has no line")
	}
	// The author scrolls away: the link must not depend on where the
	// author's editor was.
	tb.eval(`(document.querySelector(".cm-scroller").scrollTop = 0, true)`, nil)
	url = strings.TrimPrefix(tb.shareVia("The swizzled transpose at its column read", true, false), s.base)
	return url, cur, want
}

// TestShareOfLessonTitles: a share link of a lesson, titled by its author,
// keeps the lesson's strip headed by the lesson's title (the example's, as
// the menu and the file name say); the link's title is the page's (the
// browser tab), the sleeping page's notice names it, and the lesson
// title's hover says it was shared as that. Screenshots at 1440×900,
// 1024×768 presenter and 390×844.
func TestShareOfLessonTitles(t *testing.T) {
	s := need(t)
	url, cur, _ := shareSwizzleRead(t, s)
	const shareTitle = "The swizzled transpose at its column read"
	e := example(t, "transpose-swizzled")
	o := s.newTab(t, url)
	o.waitJS("the page", `document.documentElement.classList.contains("hydrated") && !document.getElementById("pg-lesson").hidden`)
	var got struct {
		Heading, Hover, Menu, Page, Notice string
	}
	read := func() {
		o.eval(`(() => { const t = document.querySelector("#pg-lesson .lesson-title"), m = document.getElementById("pg-example-select");
			return {Heading: t.textContent, Hover: t.title, Menu: m.options[m.selectedIndex].textContent, Page: document.title, Notice: document.getElementById("pg-notice").textContent}; })()`, &got)
	}
	read()
	if got.Heading != e.Title || got.Menu != e.Title {
		t.Errorf("the opened link's lesson strip is headed %q, the menu says %q; want the lesson's title %q", got.Heading, got.Menu, e.Title)
	}
	if !strings.Contains(got.Hover, shareTitle) || !strings.HasPrefix(got.Page, shareTitle) || !strings.Contains(got.Notice, "“"+shareTitle+"”") {
		t.Errorf("the link's title %q: hover %q, page %q, notice %q", shareTitle, got.Hover, got.Page, got.Notice)
	}
	o.atEverySize("the opened lesson link, asleep", "lesson-link")
	o.wake()
	o.waitStep(cur, cur)
	read()
	if got.Heading != e.Title {
		t.Errorf("the woken link's lesson strip is headed %q, want %q", got.Heading, e.Title)
	}
}
