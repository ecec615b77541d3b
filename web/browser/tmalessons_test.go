package browser

import (
	"fmt"
	"testing"
)

// TestTMALessons: the TMA pipeline, missing-fence and Triton TMA GEMM
// lessons open with their strip, every hint brings its line and panel into
// view, and a run to the end finishes; screenshots of each at 1440×900,
// 1024×768 presenter and 390×844, the pipeline's while its consumer waits
// on an mbarrier (the mbarrier panel in the Warps pane), the GEMM's paused
// at its first k-step's wait with the TMA tab on the last copy.
func TestTMALessons(t *testing.T) {
	s := need(t)
	for _, name := range []string{"tma-pipeline", "tma-missing-fence", "tma-dot"} {
		e := example(t, name)
		tb := s.newTab(t, "/?example="+name)
		tb.waitLoaded(name + ".ptx")
		tb.viewport(1440, 900)
		tb.waitJS("the lesson strip", `!document.getElementById("pg-lesson").hidden && document.querySelectorAll("#pg-lesson .lesson-hint").length > 0`)
		for i, h := range e.Lesson.Hints {
			line, panel := tb.followHint(i)
			if line != h.Line || panel != h.Panel {
				t.Fatalf("%s hint %d: the strip points at line %d, %s; want %d, %s", name, i, line, panel, h.Line, h.Panel)
			}
		}
		if name == "tma-pipeline" {
			// Stop at the consumer's wait: the breakpoint on its line.
			wait := e.Lesson.Hints[5]
			tb.followHint(5)
			x, y := tb.gutterLineCentre(wait.Line)
			tb.clickAt(x, y)
			tb.expectMarks(".cm-bp-gutter .bp-dot", "the breakpoint dot", wait.Line)
			tb.button("run")
			tb.waitStatus("the breakpoint", func(s status) string {
				if s.StatusText != "paused · breakpoint" {
					return s.StatusText
				}
				return ""
			})
		}
		if name == "tma-dot" {
			// Stop at k-step 0's try_wait on stage 0's mbarrier, then show
			// the TMA tab (hint 4's panel) with the copies issued so far.
			wait := e.Lesson.Hints[6]
			tb.followHint(6)
			x, y := tb.gutterLineCentre(wait.Line)
			tb.clickAt(x, y)
			tb.expectMarks(".cm-bp-gutter .bp-dot", "the breakpoint dot", wait.Line)
			tb.button("run")
			tb.waitStatus("the breakpoint", func(s status) string {
				if s.StatusText != "paused · breakpoint" {
					return s.StatusText
				}
				return ""
			})
			tb.followHint(4)
		}
		tb.atEverySize(fmt.Sprintf("the %s lesson", name), name)
	}
}
