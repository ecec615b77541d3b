package browser

import (
	"fmt"
	"testing"
)

// TestWgmmaLessons: the descriptor-layout and Hopper GEMM tile lessons open
// with their strip, every hint brings its line and panel into view, and a
// run stops after the wgmma results have landed; screenshots at 1440×900,
// 1024×768 presenter and 390×844 with the Fragments tab on a wgmma (its
// descriptor view) and live accumulators.
func TestWgmmaLessons(t *testing.T) {
	s := need(t)
	for _, c := range []struct {
		name      string
		stop      int // the hint whose line gets the breakpoint (after wait_group)
		fragments int // the hint shown in the screenshots (a wgmma, panel fragments)
	}{
		{"wgmma-layouts", 7, 3},
		{"hopper-gemm-tile", 6, 4},
		{"fastcu-tma-wgmma", 5, 3}, // real compiler output (clang-19 from fast.cu)
	} {
		e := example(t, c.name)
		tb := s.newTab(t, "/?example="+c.name)
		tb.waitLoaded(c.name + ".ptx")
		tb.viewport(1440, 900)
		tb.waitJS("the lesson strip", `!document.getElementById("pg-lesson").hidden && document.querySelectorAll("#pg-lesson .lesson-hint").length > 0`)
		for i, h := range e.Lesson.Hints {
			line, panel := tb.followHint(i)
			if line != h.Line || panel != h.Panel {
				t.Fatalf("%s hint %d: the strip points at line %d, %s; want %d, %s", c.name, i, line, panel, h.Line, h.Panel)
			}
		}
		stop := e.Lesson.Hints[c.stop]
		tb.followHint(c.stop)
		x, y := tb.gutterLineCentre(stop.Line)
		tb.clickAt(x, y)
		tb.expectMarks(".cm-bp-gutter .bp-dot", "the breakpoint dot", stop.Line)
		tb.button("run")
		tb.waitStatus("the breakpoint", func(s status) string {
			if s.StatusText != "paused · breakpoint" {
				return s.StatusText
			}
			return ""
		})
		if h := e.Lesson.Hints[c.fragments]; h.Panel != "fragments" {
			t.Fatalf("%s hint %d is on panel %s, want fragments", c.name, c.fragments, h.Panel)
		}
		tb.followHint(c.fragments)
		// The explorer shows the hint's own wgmma, live, not the last
		// tensor instruction executed or a default form.
		hint := e.Lesson.Hints[c.fragments]
		tb.waitJS("the Fragments tab on the hint's wgmma", fmt.Sprintf(`(() => {
			const s = document.querySelector('select[aria-label="Instruction of the kernel"]');
			const o = s && s.selectedOptions[0];
			return !!o && o.textContent.startsWith("line %d · wgmma.");
		})()`, hint.Line))
		tb.atEverySize(fmt.Sprintf("the %s lesson", c.name), c.name)
	}
}
