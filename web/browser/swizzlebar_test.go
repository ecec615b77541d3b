package browser

import (
	"fmt"
	"strings"
	"testing"
)

// liveBarShape is how the Swizzle tab's live bar reads: its parts (the
// headline, the banks' verdict, the layout, the padded reading, the note
// on the grids) and how long its lines are.
type liveBarShape struct {
	Parts map[string]string `json:"parts"`
	// Widest is the widest line of text in the bar, in characters of its
	// font ("0" widths); Overflow: text wider than the bar.
	Widest   float64 `json:"widest"`
	Overflow bool    `json:"overflow"`
	// VerdictLine: the line of the bar the banks' verdict starts on (0 the first).
	VerdictLine int `json:"verdictLine"`
}

func (tb *tab) liveBarShape() liveBarShape {
	tb.t.Helper()
	var s liveBarShape
	tb.eval(`(() => {
		const bar = document.querySelector("#pg-tab-swizzle .swz-live-bar");
		const parts = {};
		for (const p of bar.querySelectorAll("[data-part]")) parts[p.dataset.part] = p.textContent;
		const zero = document.createElement("span");
		zero.textContent = "0".repeat(100);
		zero.style.cssText = "position:absolute;visibility:hidden;white-space:pre";
		const measure = (el) => { el.appendChild(zero); const w = zero.getBoundingClientRect().width / 100; zero.remove(); return w; };
		let widest = 0;
		const walk = document.createTreeWalker(bar, NodeFilter.SHOW_TEXT);
		const lines = new Map();
		for (let n = walk.nextNode(); n; n = walk.nextNode()) {
			if (!n.textContent.trim()) continue;
			const ch = measure(n.parentElement);
			const r = document.createRange();
			r.selectNodeContents(n);
			for (const q of r.getClientRects()) {
				// One line: rects whose tops lie within 6px (the tag's box sits higher than its text).
				let key = Math.round(q.top);
				for (const k of lines.keys()) if (Math.abs(k - key) <= 6) key = k;
				const l = lines.get(key) || {left: Infinity, right: -Infinity, ch};
				l.left = Math.min(l.left, q.left); l.right = Math.max(l.right, q.right);
				lines.set(key, l);
			}
		}
		for (const l of lines.values()) widest = Math.max(widest, (l.right - l.left) / l.ch);
		const tops = [...lines.keys()].sort((a, b) => a - b);
		const v = bar.querySelector('[data-part="banks"]');
		const vTop = v ? Math.round(v.getClientRects()[0].top) : -1;
		return {parts, widest, overflow: bar.scrollWidth > bar.clientWidth + 1,
			verdictLine: v ? tops.filter((t) => t < vTop - 6).length : -1};
	})()`, &s)
	return s
}

// TestSwizzleLiveBarReadable: the Swizzle tab's live bar, on the lesson
// "Bank conflicts: an XOR swizzle" stopped by a breakpoint on line 225
// and one warp step (warp 0's column read), is structured, not one long
// sentence: a headline (line, warp, what the access follows), the banks'
// verdict on the next line, then the un-swizzled layout, the padded
// reading and the note on the grids as parts of their own, each line of a
// readable length (at most 100 characters) and no text wider than the
// bar. At 1440×900, 1024×768 presenter and 390×844, with screenshots.
func TestSwizzleLiveBarReadable(t *testing.T) {
	s := need(t)
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
		if s.StatusText != "paused · breakpoint" {
			return s.StatusText
		}
		return ""
	})
	cur, _ := tb.stepOf()
	tb.setCount(1)
	tb.button("step-warp")
	tb.waitStep(cur+1, cur+1)
	tb.showTab("swizzle")
	tb.waitJS("the live bar", fmt.Sprintf(`(document.querySelector("#pg-tab-swizzle .swz-live-bar") || {}).textContent.includes("line %d · CTA #0 warp 0: ")`, bp))

	for _, vp := range []struct {
		w, h      int64
		presenter bool
	}{{1440, 900, false}, {1024, 768, true}, {390, 844, false}} {
		tb.viewport(vp.w, vp.h)
		if vp.presenter {
			tb.blurFocus()
			tb.key("z")
			tb.waitJS("presenter mode", `document.documentElement.classList.contains("presenter")`)
		}
		tb.eval(`(document.getElementById("pg-tabbtn-swizzle").scrollIntoView({block: "start"}), true)`, nil)
		tb.settle()
		at := fmt.Sprintf("%dx%d", vp.w, vp.h)
		b := tb.liveBarShape()
		want := map[string]string{
			"head":   "follows Swizzle<5,2,5>",
			"banks":  "1 wavefront, no conflict",
			"layout": "lane l is at byte 0 + 128·l",
			"padded": "affine too, lane l at byte 0 + 132·l",
			"grids":  "one cell is a 4-byte word",
		}
		for part, text := range want {
			if !strings.Contains(b.Parts[part], text) {
				t.Errorf("%s: the live bar's %s part %q does not say %q (parts %v)", at, part, b.Parts[part], text, b.Parts)
			}
		}
		if !strings.HasPrefix(b.Parts["head"], fmt.Sprintf("line %d · CTA #0 warp 0: ", bp)) {
			t.Errorf("%s: the headline %q", at, b.Parts["head"])
		}
		if b.Widest > 100 || b.Overflow {
			t.Errorf("%s: the live bar's widest line is %.0f characters (want ≤ 100), text wider than the bar: %v", at, b.Widest, b.Overflow)
		}
		if b.VerdictLine < 0 || b.VerdictLine > 2 {
			t.Errorf("%s: the banks' verdict starts on line %d of the bar, want within the first 3", at, b.VerdictLine)
		}
		tb.expectNoOverflow("the live bar " + at)
		tb.screenshot(fmt.Sprintf("live-bar-%d", vp.w))
		if vp.presenter {
			tb.blurFocus()
			tb.key("z")
			tb.waitJS("presenter mode off", `!document.documentElement.classList.contains("presenter")`)
		}
	}
	tb.viewport(1440, 900)
}
