package browser

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/ptxplayground/ptxplay/engine/launch"
	"github.com/ptxplayground/ptxplay/sessions"
)

// consoleSpec launches nvcc's printf kernel over 70 floats in 2 CTAs of 40.
const consoleSpec = `{"version": 1, "entry": "_Z5helloPKfi", "grid": [2, 1, 1], "block": [40, 1, 1],
	"buffers": [{"name": "x", "type": "f32", "count": 70, "init": {"iota": {"start": 0, "step": 0.25}}}],
	"params": [{"buffer": "x"}, {"u32": 70}]}`

type consoleRow struct {
	Step string `json:"step"`
	Who  string `json:"who"`
	Text string `json:"text"`
}

// consoleRows reads the Console's rows.
func (tb *tab) consoleRows() []consoleRow {
	var rows []consoleRow
	tb.eval(`[...document.querySelectorAll("#pg-tab-console .console-line")].map((r) => ({
		step: r.dataset.step, who: r.querySelector(".console-who").textContent, text: r.querySelector(".console-text").textContent}))`, &rows)
	return rows
}

// expectConsole checks the Console against the printf lines of a
// reference run up to step k.
func (tb *tab) expectConsoleAt(want []launch.PrintfLine, k int64, what string) {
	tb.t.Helper()
	n := 0
	for n < len(want) && want[n].Step <= k {
		n++
	}
	tb.waitJS(what+": the Console's rows", fmt.Sprintf(`document.querySelectorAll("#pg-tab-console .console-line").length === %d`, n))
	rows := tb.consoleRows()
	for i, r := range rows {
		w := want[i]
		who := fmt.Sprintf("CTA %d t%d", w.CTA[0], w.Thread[0])
		if r.Step != fmt.Sprint(w.Step) || r.Who != who || r.Text != strings.TrimSuffix(w.Text, "\n") {
			tb.t.Errorf("%s: row %d is %+v, want step %d %s %q", what, i, r, w.Step, who, w.Text)
			return
		}
	}
}

// TestConsole: a pasted nvcc module that calls printf prints its lines in
// the Console with their steps, CTAs and threads, exactly those of a
// reference run; a click on a step seeks there and the Console shows the
// output up to it; back and a share link land with the same Console.
// Screenshots at the three sizes.
func TestConsole(t *testing.T) {
	s := need(t)
	src, err := os.ReadFile("../../engine/emu/testdata/printf_nvcc.ptx")
	if err != nil {
		t.Fatal(err)
	}
	r := newRef(t, "printf_nvcc.ptx", string(src), []byte(consoleSpec))
	res, err := r.l.Run(context.Background())
	if err != nil || res.Status != launch.StatusOK || len(res.Printf) != 70 {
		t.Fatalf("reference run: %v %v, %d lines", res.Status, err, len(res.Printf))
	}
	want := res.Printf

	tb := s.newTab(t, "/?example=vector-add")
	tb.waitLoaded("vector-add.ptx")
	tb.replaceEditorText(string(src))
	tb.waitLoaded("_Z5helloPKfi.ptx")
	var spec map[string]any
	json.Unmarshal([]byte(consoleSpec), &spec)
	specJS, _ := json.Marshal(spec)
	tb.setSpec(string(specJS))
	tb.waitLoaded("_Z5helloPKfi.ptx")
	tb.showTab("console")
	tb.waitJS("the empty Console", `document.querySelector("#pg-tab-console .empty")?.textContent.includes("No printf output up to this step")`)

	tb.button("run")
	last := int(res.Stats.WarpInstructions)
	tb.waitStep(last, last)
	tb.expectConsoleAt(want, res.Stats.WarpInstructions, "after the run")
	tb.waitJS("the line count on the Console tab", `document.querySelector("#pg-tabbtn-console .tab-count")?.textContent === "70"`)

	// A click on a line's step goes there: the Console shows the lines
	// printed up to it (those of that warp-instruction the last).
	k := want[45].Step
	tb.click(`#pg-tab-console .console-line:nth-child(46) .console-step`)
	tb.waitStep(int(k), last)
	tb.expectConsoleAt(want, k, fmt.Sprintf("after seeking to step %d", k))
	// Back one instruction: the call that printed the last lines is undone.
	tb.button("back")
	tb.waitStep(int(k)-1, last)
	tb.expectConsoleAt(want, k-1, fmt.Sprintf("back at step %d", k-1))
	tb.screenshot("console-back-1440")

	// A share link at that step lands with the same Console.
	url := tb.shareVia("printf", true, false)
	other := s.newTab(t, strings.TrimPrefix(url, s.base))
	other.wake()
	other.waitStep(int(k)-1, int(k)-1)
	if tab := other.activeTab(); tab != "console" {
		t.Errorf("the link opened the %q tab, want console", tab)
	}
	other.expectConsoleAt(want, k-1, "opened from the link")

	// The Console at the three sizes (after the run, at the end).
	tb.button("run")
	tb.waitStep(last, last)
	tb.showTab("console")
	tb.expectConsoleAt(want, res.Stats.WarpInstructions, "after running again")
	tb.atEverySize("the Console", "console")
	// On a phone the inspectors stack below the editor: the Console there.
	tb.viewport(390, 844)
	tb.eval(`document.getElementById("pg-tab-console").scrollIntoView(), true`, nil)
	tb.expectNoOverflow("the Console 390x844, scrolled to it")
	tb.screenshot("console-390-panel")
	tb.viewport(1440, 900)
	tb.settle()

	// Past the session's printf limit the Console ends with a note saying
	// how many lines were dropped; the count on the tab says "+".
	big := strings.NewReplacer(`"grid": [2, 1, 1]`, `"grid": [50, 1, 1]`, `"count": 70`, `"count": 2000`, `{"u32": 70}`, `{"u32": 2000}`).Replace(consoleSpec)
	rb := newRef(t, "printf_nvcc.ptx", string(src), []byte(big))
	rb.l.Machine().SetMaxPrintfBytes(sessions.DefaultLimits.MaxPrintfBytes)
	resBig, err := rb.l.Run(context.Background())
	if err != nil || resBig.PrintfDropped == 0 {
		t.Fatalf("reference run: %v, %d dropped", err, resBig.PrintfDropped)
	}
	json.Unmarshal([]byte(big), &spec)
	specJS, _ = json.Marshal(spec)
	tb.setSpec(string(specJS))
	// The edited launch waits for the user's choice: start fresh.
	tb.waitJS("the launch-changed banner", `!document.getElementById("pg-changed").hidden && !!document.querySelector('#pg-changed [data-change="fresh"]')`)
	tb.click(`#pg-changed [data-change="fresh"]`)
	tb.waitStep(0, 0)
	tb.waitLoaded("_Z5helloPKfi.ptx")
	tb.showTab("console")
	tb.waitJS("the Console emptied by the new launch", `!document.querySelector("#pg-tab-console .console-line") && !document.querySelector("#pg-tabbtn-console .tab-count")`)
	tb.button("run")
	lastBig := int(resBig.Stats.WarpInstructions)
	tb.waitStep(lastBig, lastBig)
	tb.waitJS("the dropped-lines note", fmt.Sprintf(`document.querySelector("#pg-tab-console .console-note")?.textContent.includes("%d later lines were dropped")`, resBig.PrintfDropped))
	tb.waitJS("the count with +", fmt.Sprintf(`document.querySelector("#pg-tabbtn-console .tab-count")?.textContent === "%d+"`, len(resBig.Printf)))
	tb.expectConsoleAt(resBig.Printf, resBig.Stats.WarpInstructions, "past the limit")
	tb.waitJS("the dropped count in the header", fmt.Sprintf(`document.querySelector("#pg-tab-console .console-dropped")?.textContent.includes("%d later lines dropped")`, resBig.PrintfDropped))
	tb.screenshot("console-dropped-1440")
}
