package browser

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp/kb"

	"github.com/ptxplayground/ptxplay/engine/launch"
)

// TestRaceWarnings runs the race example to the end and expects the
// checker's warnings (those of a reference run with the checker) at the
// top of the Events tab, with their count on the tab's button; a click on
// a warning's line selects the line in the editor. Screenshots at 1440x900
// and 390x844.
func TestRaceWarnings(t *testing.T) {
	s := need(t)
	tb := s.newTab(t, "/?example=race")
	tb.viewport(1440, 900)
	tb.waitLoaded("race.ptx")

	r := exampleRef(t, "race")
	chk := r.l.NewChecker()
	r.l.Machine().AddObserver(chk)
	res, err := r.l.Run(context.Background())
	if err != nil || res.Status != launch.StatusOK {
		t.Fatalf("reference run: %v %v", res.Status, err)
	}
	want := chk.Warnings()
	if len(want) == 0 {
		t.Fatal("the reference run found no warnings")
	}

	// Before running there are none.
	tb.waitJS("no warning count at step 0", `!document.querySelector("#pg-tabbtn-events .tab-count")`)
	tb.button("run")
	tb.waitStatus("the launch to finish", func(s status) string {
		if s.Status != "done" {
			return "not done"
		}
		return ""
	})
	tb.waitJS("the warning count on the Events tab", fmt.Sprintf(`document.querySelector("#pg-tabbtn-events .tab-count")?.textContent === "%d"`, len(want)))
	tb.showTab("events")
	tb.waitJS("the warnings list", fmt.Sprintf(`document.querySelectorAll("#pg-tab-events .warn").length === %d`, len(want)))
	for i, w := range want {
		var kind, line string
		tb.eval(fmt.Sprintf(`document.querySelectorAll("#pg-tab-events .warn")[%d].querySelector(".warn-kind").textContent`, i), &kind)
		tb.eval(fmt.Sprintf(`document.querySelectorAll("#pg-tab-events .warn")[%d].dataset.line`, i), &line)
		if kind != string(w.Kind) || line != fmt.Sprint(w.Line) {
			t.Errorf("warning %d shows %s at line %s, want %s at line %d", i, kind, line, w.Kind, w.Line)
		}
	}
	// The race between the store (line 54) and the load (line 62) names
	// both lines; a click on the store's line selects it in the editor.
	race := -1
	for i, w := range want {
		if w.Kind.Race() && w.PrevLine != w.Line {
			race = i
			break
		}
	}
	if race < 0 {
		t.Fatal("no race between two lines in the reference")
	}
	w := want[race]
	var text string
	tb.eval(fmt.Sprintf(`document.querySelectorAll("#pg-tab-events .warn")[%d].textContent`, race), &text)
	for _, s := range []string{fmt.Sprintf("line %d", w.PrevLine), fmt.Sprintf("line %d", w.Line), fmt.Sprintf("t%d", w.Thread.Tid[0]), fmt.Sprintf("t%d", w.PrevThread.Tid[0])} {
		if !strings.Contains(text, s) {
			t.Errorf("the race warning %q does not name %q", text, s)
		}
	}
	tb.click(fmt.Sprintf(`#pg-tab-events .warn:nth-child(%d) .warn-lines button`, race+1))
	tb.waitJS("the warning's first line selected in the editor", fmt.Sprintf(`document.querySelector(".cm-lineNumbers .cm-activeLineGutter")?.textContent.trim() === "%d"`, w.PrevLine))
	tb.screenshot("warnings-1440")

	// Back to step 0: the warnings go away; at the end they are back.
	tb.blurFocus()
	tb.key(kb.Home)
	tb.waitJS("no warnings at the start", `!document.querySelector("#pg-tabbtn-events .tab-count") && !document.querySelector("#pg-tab-events .warn")`)
	tb.key(kb.End)
	tb.waitJS("the warnings at the end again", fmt.Sprintf(`document.querySelectorAll("#pg-tab-events .warn").length === %d`, len(want)))

	tb.viewport(390, 844)
	tb.expectNoOverflow("390x844 with the warnings")
	var ok bool
	tb.eval(`(document.querySelector("#pg-tab-events .warn-box").scrollIntoView(), true)`, &ok)
	tb.screenshot("warnings-390")
}
