package browser

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/ptxplayground/ptxplay/engine/analysis"
	"github.com/ptxplayground/ptxplay/engine/emu"
)

// badgeView is what the editor shows in the memory gutter beside a line.
type badgeView struct {
	Line   int      `json:"line"`   // the data-line of the badge
	Texts  []string `json:"texts"`  // each badge's visible text
	Kinds  []string `json:"kinds"`  // each badge's class list
	Title  string   `json:"title"`  // the hover text
	Placed bool     `json:"placed"` // the badge sits on the line's row
}

// badgeAtJS returns the badge beside line (scrolled into view), or null.
func badgeAtJS(line int) string {
	return fmt.Sprintf(`(() => {
		let y = null;
		for (const g of document.querySelectorAll(".cm-lineNumbers .cm-gutterElement")) {
			if (g.textContent !== "%d") continue;
			const b = g.getBoundingClientRect();
			if (b.height > 0) y = (b.top + b.bottom) / 2;
		}
		if (y === null) return null;
		for (const el of document.querySelectorAll(".cm-mem-gutter .mem-badges")) {
			const b = el.getBoundingClientRect();
			if (b.height === 0 || Number(el.dataset.line) !== %d) continue;
			const bs = [...el.querySelectorAll(".mem-badge")];
			return {
				line: Number(el.dataset.line),
				texts: bs.map((x) => x.innerText.trim()),
				kinds: bs.map((x) => x.className),
				title: el.title,
				placed: b.top <= y && y <= b.bottom,
			};
		}
		return null;
	})()`, line, line)
}

// badgeLinesJS lists the lines of every rendered badge.
const badgeLinesJS = `[...document.querySelectorAll(".cm-mem-gutter .mem-badges")].map((e) => Number(e.dataset.line))`

// wantBadge is the finding the page must show for a line of the reference
// table: the badge text and phrases of its explanation.
type wantBadge struct {
	text    string
	explain []string
}

// expectedBadges applies the badge rules to the reference machine's
// per-line table (the aggregator observed it from the launch on).
func expectedBadges(agg *analysis.Aggregator, src string) map[int]wantBadge {
	lines := strings.Split(src, "\n")
	out := map[int]wantBadge{}
	for _, l := range agg.Lines() {
		op := strings.Fields(strings.TrimSpace(lines[l.Line-1]))[0]
		var w wantBadge
		if l.Shared {
			d := float64(l.Wavefronts) / float64(l.IdealWavefronts)
			if l.Wavefronts > l.IdealWavefronts {
				deg := strconv.FormatFloat(d, 'f', 1, 64)
				if d >= 10 || math.Abs(d-math.Round(d)) < 0.05 {
					deg = strconv.Itoa(int(math.Round(d)))
				}
				w.text = deg + "-way conflict"
				w.explain = append(w.explain, fmt.Sprintf("%s executed %s×: %s wavefronts for an ideal %s — on average a %s-way bank conflict",
					op, grouped(l.Executions), grouped(l.Wavefronts), grouped(l.IdealWavefronts), deg))
			} else {
				w.explain = append(w.explain, fmt.Sprintf("%s executed %s×: %s wavefront", op, grouped(l.Executions), grouped(l.Wavefronts)), "no bank conflict")
			}
		}
		if l.Global {
			moved := l.Sectors * analysis.SectorBytes
			per := func(x int64) string {
				return strconv.FormatFloat(math.Round(float64(x)/float64(l.Executions)*10)/10, 'f', -1, 64)
			}
			what := fmt.Sprintf("%s: %s sectors of 32 B (%s line", op, per(l.Sectors), per(l.Lines))
			if l.BytesRequested < moved {
				pct := strconv.FormatFloat(math.Floor(float64(l.BytesRequested)/float64(moved)*1000)/10, 'f', -1, 64)
				if w.text == "" {
					w.text = pct + "% coalesced"
				} else {
					w.text += " " + pct + "% coalesced"
				}
				w.explain = append(w.explain, what, fmt.Sprintf("for %s requested bytes per warp access", per(l.BytesRequested)), pct+"% of the moved bytes were used")
			} else {
				w.explain = append(w.explain, what, "fully coalesced")
			}
		}
		if w.text == "" {
			w.text = "✓"
		}
		out[l.Line] = w
	}
	return out
}

// scrollToLine scrolls the editor so that line is in the middle of its
// viewport, by the height of a rendered line (the editor renders only the
// lines near the viewport).
func (tb *tab) scrollToLine(line int) {
	tb.t.Helper()
	tb.eval(fmt.Sprintf(`(() => {
		const s = document.querySelector(".cm-scroller");
		const l = document.querySelector(".cm-content .cm-line");
		const lh = l ? l.getBoundingClientRect().height : 20;
		s.scrollTop = Math.max(0, (%d - 1) * lh - s.clientHeight / 2);
		return true;
	})()`, line), nil)
	tb.waitJS(fmt.Sprintf("line %d in view", line), fmt.Sprintf(`(() => {
		const s = document.querySelector(".cm-scroller").getBoundingClientRect();
		for (const g of document.querySelectorAll(".cm-lineNumbers .cm-gutterElement")) {
			if (g.textContent !== "%d") continue;
			const b = g.getBoundingClientRect();
			return b.height > 0 && b.top >= s.top && b.bottom <= s.bottom;
		}
		return false;
	})()`, line))
}

// expectBadges waits until every line of want shows its badge (scrolling
// to each) and no other line has one.
func (tb *tab) expectBadges(what string, want map[int]wantBadge) {
	tb.t.Helper()
	for line, w := range want {
		tb.scrollToLine(line)
		tb.waitFor(fmt.Sprintf("%s: the badge of line %d", what, line), func() string {
			var got *badgeView
			if err := tb.tryEval(badgeAtJS(line), &got); err != nil {
				return err.Error()
			}
			if got == nil {
				return "no badge"
			}
			if !got.Placed {
				return "the badge is not on the line's row"
			}
			if text := strings.Join(got.Texts, " "); text != w.text {
				return fmt.Sprintf("badge %q, want %q", text, w.text)
			}
			for _, p := range w.explain {
				if !strings.Contains(got.Title, p) {
					return fmt.Sprintf("hover %q lacks %q", got.Title, p)
				}
			}
			return ""
		})
	}
	tb.waitFor(what+": no other badges", func() string {
		var lines []int
		if err := tb.tryEval(badgeLinesJS, &lines); err != nil {
			return err.Error()
		}
		for _, l := range lines {
			if _, ok := want[l]; !ok {
				return fmt.Sprintf("a badge on line %d", l)
			}
		}
		return ""
	})
}

// memRefAt returns the reference machine of an example stepped to wi, with
// an aggregator that observed every step.
func memRefAt(t *testing.T, name string, wi int) (*ref, *analysis.Aggregator) {
	r := exampleRef(t, name)
	agg := analysis.NewAggregator(r.prog)
	r.m.SetObserver(agg)
	r.step(emu.StepWarpInstruction, wi)
	return r, agg
}

// TestMemoryBadges steps the transpose example (32x32 tile, bank
// conflicts) and the coalescing example and checks the editor's memory
// badges and their hover text against the reference machine's per-line
// analysis: at the first column read, after the run, after going back and
// forward; the badges clear on a new load, open their explanation on a
// tap and hide with the toggle; screenshots at three sizes.
func TestMemoryBadges(t *testing.T) {
	s := need(t)
	tb := s.newTab(t, "/?example=transpose")
	tb.viewport(1440, 900)
	tb.waitLoaded("transpose.ptx")
	src := example(t, "transpose").Source
	column := lineOf(t, src, "ld.shared.f32 %f1, [%r12];          // 32-way")

	var n int
	tb.eval(badgeLinesJS+`.length`, &n)
	if n != 0 {
		t.Fatalf("%d badges before any step", n)
	}

	// To just after the first column read.
	r := exampleRef(t, "transpose")
	first := 0
	for i := 1; first == 0 && i < 10000; i++ {
		w := r.m.NextWarp()
		if w == nil {
			t.Fatal("the reference never reads a column")
		}
		if r.line(w.PC()) == column {
			first = i
		}
		r.step(emu.StepWarpInstruction, 1)
	}
	tb.setCount(first)
	tb.button("step-warp")
	tb.waitStep(first, first)
	_, agg := memRefAt(t, "transpose", first)
	want := expectedBadges(agg, src)
	if w := want[column]; w.text != "32-way conflict" || !strings.Contains(w.explain[0], "executed 1×: 32 wavefronts for an ideal 1 ") {
		t.Fatalf("reference: the column read after step %d is %+v", first, w)
	}
	tb.expectBadges(fmt.Sprintf("step %d", first), want)
	tb.screenshot("transpose-first-column-read")

	// The whole run.
	tb.button("run")
	st := tb.waitStatus("the launch to finish", func(s status) string {
		if s.Status != "done" {
			return "not done"
		}
		return ""
	})
	var end int
	fmt.Sscanf(st.Step, "step %d/", &end)
	_, agg = memRefAt(t, "transpose", end)
	want = expectedBadges(agg, src)
	if w := want[column]; w.text != "32-way conflict" || !strings.Contains(w.explain[0], "ld.shared.f32 executed 32×: 1,024 wavefronts for an ideal 32 — on average a 32-way bank conflict") {
		t.Fatalf("reference: the column read after the run is %+v", w)
	}
	tb.expectBadges("after the run", want)
	// The hover explains why.
	tb.scrollToLine(column)
	var title string
	tb.eval(`document.querySelector('.cm-mem-gutter .mem-badges[data-line="`+strconv.Itoa(column)+`"]').title`, &title)
	if !strings.Contains(title, "lanes of one warp hit the same bank at different words, so the access is split into 32 serial wavefronts") {
		t.Errorf("hover of the column read: %q", title)
	}
	tb.screenshot("transpose-done-1440")

	// The instruction's hover (its ISA docs) explains it too.
	var pt struct{ X, Y float64 }
	tb.eval(`(() => {
		const el = [...document.querySelectorAll(".cm-line")].find((l) => l.textContent.includes("// 32-way bank conflict"));
		const node = [...el.querySelectorAll("span")].find((s) => s.textContent === "ld") ?? el;
		const range = document.createRange();
		range.selectNodeContents(node);
		const b = range.getBoundingClientRect();
		return {X: b.left + 4, Y: (b.top + b.bottom) / 2};
	})()`, &pt)
	tb.do("hover the column read", chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, pt.X, pt.Y))
	tb.waitJS("the instruction hover with the memory finding", `(() => { const m = document.querySelector(".cm-tooltip .hover-mem"); return !!m && m.textContent.includes("1,024 wavefronts for an ideal 32"); })()`)
	tb.do("move away", chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, 5, 5))

	// A tap opens the explanation as a tooltip (no hover on touch screens).
	tb.click(`.cm-mem-gutter .mem-badges[data-line="` + strconv.Itoa(column) + `"]`)
	tb.waitJS("the badge's tooltip", `(() => { const t = document.querySelector(".cm-tooltip.mem-tip"); return !!t && t.textContent.includes("32-way bank conflict"); })()`)
	tb.screenshot("transpose-badge-tip")
	tb.click("#pg-warps-title")
	tb.waitJS("the tooltip to close", `!document.querySelector(".cm-tooltip.mem-tip")`)

	// Back to the start: no badges; forward again: the same badges.
	tb.blurFocus()
	tb.key(kb.Home)
	tb.waitStep(0, end)
	tb.expectBadges("at step 0", map[int]wantBadge{})
	tb.key(kb.End)
	tb.waitStep(end, end)
	tb.expectBadges("at the end again", want)
	// Back by the first column read's step count.
	tb.button("back")
	tb.waitStep(max(0, end-first), end)
	_, agg = memRefAt(t, "transpose", end-first)
	tb.expectBadges(fmt.Sprintf("back at step %d", end-first), expectedBadges(agg, src))

	// The toggle hides them, and shows them again.
	tb.click("#pg-badges")
	tb.waitJS("no badges", badgeLinesJS+`.length === 0`)
	tb.click("#pg-badges")
	tb.waitJS("badges again", badgeLinesJS+`.length > 0`)

	// Another example: the load clears them.
	tb.eval(`(() => { const s = document.getElementById("pg-example-select"); s.value = "coalescing"; s.dispatchEvent(new Event("change", {bubbles: true})); return true; })()`, nil)
	tb.waitLoaded("coalescing.ptx")
	tb.waitJS("no badges after the load", badgeLinesJS+`.length === 0`)
	tb.button("run")
	st = tb.waitStatus("the coalescing launch to finish", func(s status) string {
		if s.Status != "done" {
			return "not done"
		}
		return ""
	})
	fmt.Sscanf(st.Step, "step %d/", &end)
	csrc := example(t, "coalescing").Source
	_, agg = memRefAt(t, "coalescing", end)
	want = expectedBadges(agg, csrc)
	strided := lineOf(t, csrc, "ld.global.f32 %f1, [%rd8];")
	coalesced := lineOf(t, csrc, "ld.global.f32 %f1, [%rd5];")
	if w := want[strided]; w.text != "12.5% coalesced" || strings.Join(w.explain, "|") != "ld.global.f32: 32 sectors of 32 B (8 line|for 128 requested bytes per warp access|12.5% of the moved bytes were used" {
		t.Fatalf("reference: the strided load is %+v", w)
	}
	if w := want[coalesced]; w.text != "✓" {
		t.Fatalf("reference: the coalesced load is %+v", w)
	}
	tb.expectBadges("coalescing, after the run", want)
	tb.scrollToLine(strided)
	tb.eval(`document.querySelector('.cm-mem-gutter .mem-badges[data-line="`+strconv.Itoa(strided)+`"]').title`, &title)
	if !strings.Contains(title, "ld.global.f32: 32 sectors of 32 B (8 lines of 128 B) for 128 requested bytes per warp access (16×): 12.5% of the moved bytes were used") {
		t.Errorf("hover of the strided load: %q", title)
	}
	tb.screenshot("coalescing-done-1440")

	for _, size := range [][2]int64{{1024, 768}, {390, 844}} {
		tb.viewport(size[0], size[1])
		tb.expectNoOverflow(fmt.Sprintf("%dx%d with memory badges", size[0], size[1]))
		tb.scrollToLine(strided)
		var g struct {
			Gutter, Content, Editor float64
			Text                    string
		}
		tb.eval(`(() => {
			const el = document.querySelector('.cm-mem-gutter .mem-badges[data-line="`+strconv.Itoa(strided)+`"]');
			return {
				gutter: document.querySelector(".cm-mem-gutter").getBoundingClientRect().width,
				content: document.querySelector(".cm-content").getBoundingClientRect().width,
				editor: document.querySelector(".cm-editor").getBoundingClientRect().width,
				text: el ? el.innerText.trim() : "",
			};
		})()`, &g)
		t.Logf("%dx%d: badge gutter %.0fpx of an editor %.0fpx wide (%q)", size[0], size[1], g.Gutter, g.Editor, g.Text)
		if g.Gutter > g.Editor/4 {
			t.Errorf("%dx%d: the badge gutter takes %.0fpx of %.0fpx", size[0], size[1], g.Gutter, g.Editor)
		}
		// An editor narrower than 640px shows the short form.
		if want := map[bool]string{true: "12.5%", false: "12.5% coalesced"}[g.Editor <= 640]; g.Text != want {
			t.Errorf("%dx%d: badge %q in an editor %.0fpx wide, want %q", size[0], size[1], g.Text, g.Editor, want)
		}
		tb.screenshot(fmt.Sprintf("coalescing-%d", size[0]))
	}
	tb.viewport(390, 844)
	tb.eval(`(() => { const s = document.getElementById("pg-example-select"); s.value = "transpose"; s.dispatchEvent(new Event("change", {bubbles: true})); return true; })()`, nil)
	tb.waitLoaded("transpose.ptx")
	tb.button("run")
	tb.waitStatus("the transpose launch to finish", func(s status) string {
		if s.Status != "done" {
			return "not done"
		}
		return ""
	})
	tb.scrollToLine(column)
	tb.waitJS("the short badge", `(() => { const el = document.querySelector('.cm-mem-gutter .mem-badges[data-line="`+strconv.Itoa(column)+`"]'); return !!el && el.innerText.trim() === "32-way"; })()`)
	tb.expectNoOverflow("390x844, transpose with badges")
	tb.screenshot("transpose-390")
}
