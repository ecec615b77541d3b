package browser

import (
	"fmt"
	"strings"
	"testing"
)

// TestBankLessonViews: each bank or swizzle lesson, opened at each hint
// that states what the views show: the hint's line gets a breakpoint, Run
// stops on warp 0 before it, one step runs it, and the Swizzle tab's live
// bar and the Memory tab's Banks summary say what the hint's text says
// (no conflict, or the n-way conflict; the pattern it names). The
// swizzle lesson's column read on warp 0 is Swizzle<5,2,5>, drawn in
// 4-byte words, explained as a padded tile's column too; its hint opens
// the Swizzle tab. Screenshots at 1440×900, 1024×768 presenter and
// 390×844.
func TestBankLessonViews(t *testing.T) {
	s := need(t)
	checked := 0
	for _, name := range []string{"transpose", "transpose-padded", "transpose-swizzled", "tma-swizzle"} {
		e := example(t, name)
		for i, h := range e.Lesson.Hints {
			if h.Shows == nil {
				continue
			}
			checked++
			what := fmt.Sprintf("%s hint %d (line %d)", name, i, h.Line)
			tb := s.newTab(t, "/?example="+name)
			tb.waitLoaded(name + ".ptx")
			tb.viewport(1440, 900)
			tb.waitJS("the lesson strip", `!document.getElementById("pg-lesson").hidden && document.querySelectorAll("#pg-lesson .lesson-hint").length > 0`)
			line, panel := tb.followHint(i)
			if line != h.Line || panel != h.Panel {
				t.Fatalf("%s: the strip points at line %d, %s", what, line, panel)
			}
			text := tb.hintText(i)
			// The hint brought its line into view.
			x, y := tb.gutterLineCentre(line)
			tb.clickAt(x, y)
			tb.expectMarks(".cm-bp-gutter .bp-dot", "the breakpoint dot", line)
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

			// The verdict the hint's text gives, as each view words it.
			swVerdict, bankVerdict := "no conflict", "conflict-free"
			if n := h.Shows.Wavefronts / h.Shows.IdealOrOne(); n > 1 {
				swVerdict, bankVerdict = fmt.Sprintf("%d-way bank conflict", n), fmt.Sprintf("%d-way bank conflict", n)
				if !strings.Contains(text, fmt.Sprintf("%d-way", n)) {
					t.Errorf("%s: the hint %q does not say %d-way", what, text, n)
				}
			} else if !strings.Contains(text, "no conflict") {
				t.Errorf("%s: the hint %q does not say no conflict", what, text)
			}

			tb.showTab("swizzle")
			head := fmt.Sprintf("line %d · CTA #0 warp 0: ", line)
			tb.waitJS(what+": the live bar", fmt.Sprintf(`(document.querySelector("#pg-tab-swizzle .swz-live-bar") || {}).textContent.includes(%q)`, head))
			var bar string
			tb.eval(`document.querySelector("#pg-tab-swizzle .swz-live-bar").textContent`, &bar)
			if !strings.Contains(bar, swVerdict) {
				t.Errorf("%s: the Swizzle tab says %q, the hint %q", what, bar, text)
			}
			if h.Shows.Swizzle == "none" {
				if !strings.Contains(bar, "no swizzle") {
					t.Errorf("%s: the Swizzle tab says %q, want no swizzle", what, bar)
				}
			} else {
				if !strings.Contains(bar, "follows "+h.Shows.Swizzle) || !strings.Contains(text, h.Shows.Swizzle) {
					t.Errorf("%s: the Swizzle tab says %q, the hint %q; want %s in both", what, bar, text, h.Shows.Swizzle)
				}
				tb.waitJS(what+": the pattern drawn", fmt.Sprintf(`(document.querySelector("#pg-tab-swizzle .swz-info b") || {}).textContent === %q`, h.Shows.Swizzle))
			}
			// A 4-byte access is drawn in 4-byte words, a 16-byte one in
			// 16-byte chunks (4 wavefronts at best), every lane on both grids.
			unit := 4
			if h.Shows.IdealOrOne() == 4 {
				unit = 16
			}
			tb.waitJS(what+": cells with the lanes", fmt.Sprintf(`[...document.querySelectorAll("#pg-tab-swizzle table.swz-grid")].every((g) => g.dataset.unit === "%d" && g.querySelectorAll("td.swz-live").length === 32)`, unit))
			if name == "transpose-swizzled" {
				// Warp 0's column 0: word 33·tx, the padded tile's column too.
				if !strings.Contains(bar, "lane l is at byte 0 + 128·l") || !strings.Contains(bar, "affine too, lane l at byte 0 + 132·l") || !strings.Contains(bar, "33 words") {
					t.Errorf("%s: the live bar %q does not explain the padded twin", what, bar)
				}
				var lanes []string
				tb.eval(`[...document.querySelectorAll("#pg-tab-swizzle table.swz-grid")[1].querySelectorAll("td.swz-live")].map((td) => td.dataset.row + ":" + td.dataset.chunk + ":" + td.dataset.lanes)`, &lanes)
				for _, l := range lanes {
					var r, c, lane int
					fmt.Sscanf(strings.ReplaceAll(l, ":", " "), "%d %d %d", &r, &c, &lane)
					if r != lane || c != lane {
						t.Errorf("%s: physical cell %s, want lane l at row l word l", what, l)
					}
				}
				tb.eval(`(document.getElementById("pg-tabbtn-swizzle").scrollIntoView({block: "start"}), true)`, nil)
				tb.atEverySize("the swizzle lesson's column read", "swizzle-lesson")
			}
			if name == "tma-swizzle" && h.Shows.Swizzle == "TMA 128B" {
				tb.eval(`(document.getElementById("pg-tabbtn-swizzle").scrollIntoView({block: "start"}), true)`, nil)
				tb.atEverySize("the TMA 128B copy's column read", "tma-swizzle-lesson")
			}

			tb.openBanks()
			tb.waitJS(what+": the bank summary", fmt.Sprintf(`[...document.querySelectorAll("#pg-tab-memory .bank-line")].some((l) => l.textContent.includes(%q))`, bankVerdict))
		}
	}
	if checked < 8 {
		t.Fatalf("%d hints checked, want the 8 that state what the views show", checked)
	}
}
