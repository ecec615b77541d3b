package browser

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// Room for code on a projector and in an embed, the lesson strip, the
// splitters, text that scales with presenter mode, the warps pane's
// reconvergence stack, hint lines a projector shows, the gallery's theme.

// codeRoom is how much code the editor shows.
type codeRoom struct {
	Lines  int     `json:"lines"`
	Chars  int     `json:"chars"`
	Gutter float64 `json:"gutter"`
	Font   float64 `json:"font"`
}

// codeRoomJS counts the editor lines wholly in view (inside the scroller
// and the viewport) and the characters of code that fit across, after the
// gutter.
const codeRoomJS = `(() => {
	const sc = document.querySelector(".pg-editor .cm-scroller");
	const content = document.querySelector(".pg-editor .cm-content");
	const gut = document.querySelector(".pg-editor .cm-gutters");
	const r = sc.getBoundingClientRect();
	const top = Math.max(r.top, 0), bottom = Math.min(r.top + sc.clientHeight, innerHeight);
	let lines = 0;
	for (const l of document.querySelectorAll(".pg-editor .cm-line")) {
		const b = l.getBoundingClientRect();
		if (b.height > 0 && b.top >= top - 0.5 && b.bottom <= bottom + 0.5) lines++;
	}
	const probe = document.createElement("span");
	probe.textContent = "0".repeat(100);
	probe.style.cssText = "position:absolute;visibility:hidden;white-space:pre";
	content.querySelector(".cm-line").appendChild(probe);
	const cw = probe.getBoundingClientRect().width / 100;
	probe.remove();
	const g = gut.getBoundingClientRect();
	const right = Math.min(r.left + sc.clientWidth, innerWidth);
	const left = Math.max(g.right, r.left) + parseFloat(getComputedStyle(content.querySelector(".cm-line")).paddingLeft);
	return {lines, chars: Math.floor((right - left) / cw), gutter: g.width, font: parseFloat(getComputedStyle(content).fontSize)};
})()`

func (tb *tab) codeRoom(what string) codeRoom {
	tb.t.Helper()
	var c codeRoom
	tb.eval(codeRoomJS, &c)
	tb.t.Logf("%s: %d code lines, %d characters across, gutter %.0fpx, font %.1fpx", what, c.Lines, c.Chars, c.Gutter, c.Font)
	return c
}

// presenterOn turns presenter mode on with its key.
func (tb *tab) presenterOn() {
	tb.t.Helper()
	tb.blurFocus()
	tb.key("z")
	tb.waitJS("presenter mode", `document.documentElement.classList.contains("presenter")`)
}

// TestPresenterRoomForCode: at 1024×768 in presenter mode with the lesson
// strip open and the memory badges showing, at least 18 lines and 60
// characters of code are in view, the gutter is narrow, and the lesson's
// hints are in view beside the code (its explanation cut to a few lines
// with "more…").
func TestPresenterRoomForCode(t *testing.T) {
	s := need(t)
	tb := s.newTab(t, "/")
	tb.openLesson("transpose")
	tb.blurFocus()
	tb.key("c")
	tb.waitStatus("the run to finish", func(s status) string {
		if s.Status != "done" {
			return "not done: " + s.Status
		}
		return ""
	})
	tb.viewport(1024, 768)
	tb.presenterOn()
	tb.followHint(1)
	tb.waitJS("the memory badges", `document.querySelectorAll(".mem-badge").length > 0`)
	tb.waitJS("the lesson open", `document.querySelector("#pg-lesson details").open`)
	c := tb.codeRoom("1024×768 presenter, transpose")
	var gutters []string
	tb.eval(`[...document.querySelectorAll(".pg-editor .cm-gutter")].map((g) => g.className + " " + Math.round(g.getBoundingClientRect().width))`, &gutters)
	t.Logf("gutters: %v", gutters)
	if c.Lines < 18 || c.Chars < 60 {
		t.Errorf("1024×768 presenter with the lesson open: %d code lines and %d characters in view, want at least 18 and 60", c.Lines, c.Chars)
	}
	if c.Gutter > 150 {
		t.Errorf("the gutter takes %.0fpx at 1024×768 presenter, want at most 150 (the code keeps the width)", c.Gutter)
	}
	if c.Font < 16 {
		t.Errorf("the code is %.1fpx in presenter mode, want it large (≥ 16px)", c.Font)
	}
	var lesson struct {
		Visible []bool `json:"visible"`
		More    bool   `json:"more"`
		Clamped bool   `json:"clamped"`
	}
	tb.eval(`(() => {
		const box = document.getElementById("pg-lesson");
		box.scrollTop = 0;
		const b = box.getBoundingClientRect();
		const visible = [...box.querySelectorAll(".lesson-hint")].map((h) => {
			const r = h.getBoundingClientRect();
			return r.top >= b.top - 0.5 && r.bottom <= b.bottom + 0.5 && r.bottom <= innerHeight && r.width > 0;
		});
		const more = box.querySelector(".lesson-more");
		const text = box.querySelector(".lesson-text");
		return {visible, more: !!more && more.getBoundingClientRect().width > 0, clamped: text.scrollHeight > text.clientHeight + 1};
	})()`, &lesson)
	t.Logf("hints in view beside the code: %v; explanation cut: %v", lesson.Visible, lesson.Clamped)
	if len(lesson.Visible) < 3 || !lesson.Visible[0] || !lesson.Visible[1] || !lesson.Visible[2] {
		t.Errorf("the first three hints are not all in view in the lesson box: %v", lesson.Visible)
	}
	if !lesson.More || !lesson.Clamped {
		t.Errorf("the explanation is not cut with a more… button beside the code (more %v, cut %v)", lesson.More, lesson.Clamped)
	}
	// more… reads the whole explanation.
	tb.click("#pg-lesson .lesson-more")
	tb.waitJS("the whole explanation", `(() => { const t = document.querySelector("#pg-lesson .lesson-text"); return t.scrollHeight <= t.clientHeight + 1; })()`)
	tb.click("#pg-lesson .lesson-more")
	tb.screenshot("transpose-1024-presenter")

	// Every lesson at 1024×768 presenter: the room for code holds.
	for _, name := range []string{"vector-add", "reconvergence", "spin-lock", "mini-gemm"} {
		tb.chooseExample(name)
		tb.blurFocus()
		tb.waitJS("the lesson open", `document.querySelector("#pg-lesson details")?.open === true`)
		c := tb.codeRoom("1024×768 presenter, " + name)
		if c.Lines < 18 || c.Chars < 60 {
			t.Errorf("%s at 1024×768 presenter: %d code lines and %d characters in view, want at least 18 and 60", name, c.Lines, c.Chars)
		}
		var first bool
		tb.eval(`(() => { const box = document.getElementById("pg-lesson"); const b = box.getBoundingClientRect(); const r = box.querySelector(".lesson-hint").getBoundingClientRect(); return r.top >= b.top && r.bottom <= b.bottom; })()`, &first)
		if !first {
			t.Errorf("%s: the first hint is not in view in the lesson box", name)
		}
	}
	tb.chooseExample("vector-add")
	tb.blurFocus()
	tb.key("z")
	tb.waitJS("normal mode", `!document.documentElement.classList.contains("presenter")`)
	tb.atEverySize("lesson beside the code", "room")
}

// TestPresenterSplitter: the row splitter between the editor and the
// inspectors drags, moves with the arrow keys, and is remembered (for
// presenter mode apart from normal mode).
func TestPresenterSplitter(t *testing.T) {
	s := need(t)
	tb := s.newTab(t, "/?example=vector-add")
	tb.waitLoaded("vector-add.ptx")
	tb.viewport(1024, 768)
	tb.presenterOn()
	before := tb.codeRoom("before the drag")
	var p struct{ X, Y float64 }
	tb.eval(`(() => { const r = document.getElementById("pg-hsplit").getBoundingClientRect(); return {X: r.left + 200, Y: (r.top + r.bottom) / 2}; })()`, &p)
	if p.Y <= 0 {
		t.Fatal("no row splitter in view at 1024×768 presenter")
	}
	tb.do("drag the row splitter up", chromedp.MouseEvent("mousePressed", p.X, p.Y, chromedp.ButtonLeft),
		chromedp.MouseEvent("mouseMoved", p.X, p.Y-60, chromedp.ButtonLeft),
		chromedp.MouseEvent("mouseMoved", p.X, p.Y-120, chromedp.ButtonLeft),
		chromedp.MouseEvent("mouseReleased", p.X, p.Y-120, chromedp.ButtonLeft))
	tb.settle()
	var st struct {
		Stored string `json:"stored"`
		Normal string `json:"normal"`
		Now    string `json:"now"`
	}
	tb.eval(`({stored: localStorage.getItem("ptxplay.hsplit.presenter"), normal: localStorage.getItem("ptxplay.hsplit"), now: document.getElementById("pg-hsplit").getAttribute("aria-valuenow")})`, &st)
	after := tb.codeRoom("after dragging up 120px")
	if st.Stored == "" || st.Normal != "" || after.Lines >= before.Lines-3 {
		t.Fatalf("dragging the row splitter up: stored %q (normal mode %q), code lines %d → %d", st.Stored, st.Normal, before.Lines, after.Lines)
	}
	// The arrow keys move it by 2%.
	tb.eval(`(document.getElementById("pg-hsplit").focus(), true)`, nil)
	was := st.Now
	tb.key(kb.ArrowDown)
	tb.eval(`({stored: localStorage.getItem("ptxplay.hsplit.presenter"), now: document.getElementById("pg-hsplit").getAttribute("aria-valuenow")})`, &st)
	if st.Now == was {
		t.Errorf("ArrowDown on the row splitter left it at %s%%", st.Now)
	}
	// Remembered across a reload.
	tb.navigate("/?example=vector-add")
	tb.waitLoaded("vector-add.ptx")
	tb.waitJS("the remembered row split", fmt.Sprintf(`document.getElementById("pg-work").style.getPropertyValue("--top-p") === "%s%%"`, st.Stored))
	again := tb.codeRoom("after a reload")
	if again.Lines > after.Lines+1 {
		t.Errorf("after a reload the editor shows %d lines, %d before it", again.Lines, after.Lines)
	}
	// The column splitter moves with the arrow keys too.
	tb.eval(`(document.getElementById("pg-split").focus(), true)`, nil)
	var v0, v1 string
	tb.eval(`document.getElementById("pg-split").getAttribute("aria-valuenow")`, &v0)
	tb.key(kb.ArrowLeft)
	tb.eval(`document.getElementById("pg-split").getAttribute("aria-valuenow")`, &v1)
	if v0 == v1 {
		t.Errorf("ArrowLeft on the column splitter left it at %s%%", v1)
	}
	tb.screenshot("dragged")
	// In normal mode at the same size, the row splitter is there too.
	tb.blurFocus()
	tb.key("z")
	tb.waitJS("normal mode", `!document.documentElement.classList.contains("presenter")`)
	tb.waitJS("the row splitter in normal mode", `document.getElementById("pg-hsplit").getBoundingClientRect().height > 0`)
}

// textSizesJS lists the font size of every element that holds text in
// the visible inspector panel and the warps pane.
const textSizesJS = `(() => {
	const out = {};
	const roots = [document.querySelector(".tabpanel:not([hidden])"), document.querySelector(".pg-warps-pane")];
	let i = 0;
	for (const root of roots) {
		for (const el of root.querySelectorAll("*")) {
			i++;
			if (![...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim() !== "")) continue;
			const cs = getComputedStyle(el);
			if (cs.display === "none" || cs.visibility === "hidden") continue;
			const key = (el.id || el.className?.baseVal || el.className || el.tagName) + "#" + i;
			out[key] = parseFloat(cs.fontSize);
		}
	}
	return out;
})()`

// TestPresenterTextScales: every view's text grows with presenter mode
// (no fixed pixel sizes left behind).
func TestPresenterTextScales(t *testing.T) {
	s := need(t)
	tb := s.newTab(t, "/")
	tb.openLesson("mma-tile")
	tb.blurFocus()
	tb.key("c")
	tb.waitStatus("the run to finish", func(s status) string {
		if s.Status != "done" {
			return "not done: " + s.Status
		}
		return ""
	})
	tb.viewport(1024, 768)
	for _, panel := range []string{"regs", "memory", "launch", "events", "fragments", "divergence", "swizzle"} {
		tb.showTab(panel)
		tb.settle()
		var normal, pres map[string]float64
		tb.eval(textSizesJS, &normal)
		tb.presenterOn()
		tb.settle()
		tb.eval(textSizesJS, &pres)
		var small []string
		n := 0
		for k, a := range normal {
			b, ok := pres[k]
			if !ok {
				continue
			}
			n++
			if b < a*1.15 {
				small = append(small, fmt.Sprintf("%s %.1f→%.1fpx", k, a, b))
			}
		}
		t.Logf("%s: %d text elements compared", panel, n)
		if n == 0 {
			t.Errorf("%s: no text to compare", panel)
		}
		if len(small) > 0 {
			if len(small) > 12 {
				small = small[:12]
			}
			t.Errorf("%s: text that does not grow with presenter mode: %s", panel, strings.Join(small, ", "))
		}
		if panel == "fragments" {
			tb.screenshot("fragments-presenter")
		}
		tb.blurFocus()
		tb.key("z")
		tb.waitJS("normal mode", `!document.documentElement.classList.contains("presenter")`)
	}
}
