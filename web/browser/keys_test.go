package browser

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/ptxplayground/ptxplay/engine/emu"
)

// The keyboard does what the help says whatever control was used last:
// a shortcut works after choosing from a dropdown, pressing a button or
// ticking a box, a key never changes a dropdown (no type-ahead switches
// the lesson), and only the editor and text fields keep letter keys.

// keysState is what the keyboard tests check after each key.
type keysState struct {
	Example string `json:"example"`
	File    string `json:"file"`
	Search  string `json:"search"`
	Focus   string `json:"focus"`
	Step    string `json:"step"`
	Tab     string `json:"tab"`
}

const keysStateJS = `({
	example: document.getElementById("pg-example-select").value,
	file: document.getElementById("pg-file").textContent,
	search: location.search,
	focus: document.activeElement ? (document.activeElement.id || document.activeElement.tagName) : "",
	step: document.getElementById("pg-step").textContent,
	tab: document.querySelector("[data-tab].on")?.dataset.tab ?? "",
})`

func (tb *tab) keysState() keysState {
	tb.t.Helper()
	var st keysState
	tb.eval(keysStateJS, &st)
	return st
}

// expectLesson fails when the page left the example name.
func (tb *tab) expectLesson(name, what string) {
	tb.t.Helper()
	st := tb.keysState()
	if st.Example != name || st.File != name+".ptx" || !strings.Contains(st.Search, "example="+name) {
		tb.t.Fatalf("%s: the page shows example %q (file %q, address %q), want %s", what, st.Example, st.File, st.Search, name)
	}
}

// chooseExample picks an example in the top dropdown as a mouse does:
// the dropdown keeps the focus and fires change.
func (tb *tab) chooseExample(name string) {
	tb.t.Helper()
	tb.eval(fmt.Sprintf(`(() => { const s = document.getElementById("pg-example-select"); s.focus(); s.value = %q; s.dispatchEvent(new Event("change", {bubbles: true})); return true; })()`, name), nil)
	tb.waitLoaded(name + ".ptx")
}

func TestKeysAfterDropdown(t *testing.T) {
	s := need(t)
	tb := s.newTab(t, "/?example=vector-add")
	tb.waitLoaded("vector-add.ptx")
	tb.chooseExample("divergence")
	if f := tb.keysState().Focus; f != "pg-example-select" {
		t.Fatalf("after choosing from the dropdown the focus is on %q, want the dropdown (as after a mouse choice)", f)
	}
	r := exampleRef(t, "divergence")

	// n steps, with the focus still on the dropdown.
	tb.key("n")
	r.step(emu.StepWarpInstruction, 1)
	tb.waitStep(1, 1)
	tb.expectWarps(r, "n on the dropdown")
	tb.expectLesson("divergence", "n on the dropdown")

	// r steps a round; p goes back; keys that start no lesson's title do
	// nothing to the dropdown, and neither do the arrows.
	tb.key("r")
	r.step(emu.StepRound, 1)
	tb.waitAt(r)
	tb.expectLesson("divergence", "r on the dropdown")
	round := int(r.m.Stats().WarpInstructions)
	tb.key("p")
	tb.waitStep(1, round)
	tb.expectLesson("divergence", "p on the dropdown")
	for _, k := range []string{"t", "m", "s", "w", "x", kb.ArrowDown, kb.ArrowUp, kb.PageDown} {
		tb.key(k)
		tb.settle()
		tb.expectLesson("divergence", fmt.Sprintf("%q on the dropdown", k))
	}
	// End goes to the last step (not to the last example).
	tb.key(kb.End)
	tb.waitStep(round, round)
	tb.expectLesson("divergence", "End on the dropdown")

	// 7 opens the Swizzle tab, 1 the registers, from the dropdown.
	tb.key("7")
	tb.waitJS("the Swizzle tab by its key", `!document.getElementById("pg-tab-swizzle").hidden`)
	tb.key("1")
	tb.waitJS("the Registers tab by its key", `!document.getElementById("pg-tab-regs").hidden`)
	tb.expectLesson("divergence", "number keys on the dropdown")

	// c runs to the end, with the focus still on the dropdown.
	tb.key("c")
	tb.waitStatus("the run to finish", func(s status) string {
		if s.Status != "done" {
			return "not done: " + s.Status
		}
		return ""
	})
	tb.expectLesson("divergence", "c on the dropdown")
	if f := tb.keysState().Focus; f != "pg-example-select" {
		t.Errorf("the focus moved to %q", f)
	}
}

func TestKeysAfterControls(t *testing.T) {
	s := need(t)
	tb := s.newTab(t, "/?example=divergence")
	tb.waitLoaded("divergence.ptx")
	r := exampleRef(t, "divergence")

	// After pressing a button (the focus stays on it).
	tb.button("step-warp")
	r.step(emu.StepWarpInstruction, 1)
	tb.waitStep(1, 1)
	tb.key("n")
	r.step(emu.StepWarpInstruction, 1)
	tb.waitStep(2, 2)
	tb.expectWarps(r, "n after the Warp button")

	// After ticking a box.
	tb.click("#pg-badges")
	tb.key("n")
	r.step(emu.StepWarpInstruction, 1)
	tb.waitStep(3, 3)

	// After choosing a register format from a dropdown.
	tb.showTab("regs")
	tb.eval(`(() => { const s = document.querySelector("#pg-tab-regs .toolbar select"); s.focus(); return true; })()`, nil)
	var before string
	tb.eval(`document.querySelector("#pg-tab-regs .toolbar select").value`, &before)
	tb.key("n")
	r.step(emu.StepWarpInstruction, 1)
	tb.waitStep(4, 4)
	var after string
	tb.eval(`document.querySelector("#pg-tab-regs .toolbar select").value`, &after)
	if after != before {
		t.Errorf("n changed the format dropdown from %q to %q", before, after)
	}

	// After the timeline (a range input): letter keys step.
	tb.eval(`(document.getElementById("pg-timeline").focus(), true)`, nil)
	tb.key("n")
	r.step(emu.StepWarpInstruction, 1)
	tb.waitStep(5, 5)
	tb.expectWarps(r, "n on the timeline")

	// Back by round and by barrier have their own keys, whatever the last
	// step was: each makes Back step by its unit.
	tb.key("u")
	tb.waitJS("u: back one round", `document.querySelector('[data-action="back"] .label').textContent === "Back round" && document.getElementById("pg-step").textContent === "step 4/5"`)
	tb.key("B", chromedp.ModifierShift)
	tb.waitJS("Shift+B: back one barrier", `document.querySelector('[data-action="back"] .label').textContent === "Back barrier" && document.getElementById("pg-step").textContent === "step 0/5"`)

	// In the editor, n types; a text field too.
	tb.click(".cm-content")
	tb.key(kb.End)
	tb.key("n")
	tb.settle()
	if st := tb.keysState(); st.Step != "step 0/5" {
		t.Errorf("n in the editor stepped: %s", st.Step)
	}
	tb.waitJS("n typed in the editor", `document.querySelector(".cm-content").textContent.includes("number.n") || document.getElementById("pg-dirty").textContent !== ""`)
	tb.eval(`(() => { const f = document.querySelector("#pg-tab-regs .toolbar input[type=search], #pg-tab-regs .toolbar input:not([type=checkbox])"); f.focus(); return true; })()`, nil)
	tb.key("n")
	tb.settle()
	if st := tb.keysState(); st.Step != "step 0/5" {
		t.Errorf("n in the register filter stepped: %s", st.Step)
	}
}

// TestKeysHelpListsEveryKey: the overlay is made from the key table the
// handler reads: every key it lists does what its row says.
func TestKeysHelpListsEveryKey(t *testing.T) {
	s := need(t)
	tb := s.newTab(t, "/?example=divergence")
	tb.waitLoaded("divergence.ptx")
	tb.blurFocus()
	tb.key("?")
	tb.waitJS("the help overlay", `!document.getElementById("pg-help").hidden`)
	var rows []string
	tb.eval(`[...document.querySelectorAll("#pg-help tbody tr")].map((tr) => tr.textContent)`, &rows)
	all := strings.Join(rows, "\n")
	for _, want := range []string{"Back one round", "Back one barrier", "1 2 3 4 5 6 7 8", "Console tab", "◂"} {
		if !strings.Contains(all, want) {
			t.Errorf("the help does not list %q:\n%s", want, all)
		}
	}
	tb.key(kb.Escape)
	tb.waitJS("the help to close", `document.getElementById("pg-help").hidden`)
	// The legend explains the ◂ after a warp's name.
	tb.waitJS("the ◂ in the legend", `[...document.querySelectorAll("#pg-legend .legend-item")].some((e) => e.textContent.includes("◂") && e.textContent.includes("next"))`)
}
