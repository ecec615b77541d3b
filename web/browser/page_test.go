package browser

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/chromedp/chromedp/kb"

	"github.com/ptxplayground/ptxplay/engine/emu"
)

// Reading the playground page (web/playground.templ, ui/*.ts): the element
// ids and classes are the UI's contract.

// status is the page's status bar.
type status struct {
	Conn       string `json:"conn"`       // #pg-conn data-state
	Status     string `json:"status"`     // #pg-status data-status
	StatusText string `json:"statusText"` // #pg-status text
	Step       string `json:"step"`       // #pg-step: "step N/M"
	Diag       string `json:"diag"`       // #pg-diag-summary
	Stats      string `json:"stats"`      // #pg-stats
	File       string `json:"file"`       // #pg-file
	Dirty      bool   `json:"dirty"`      // #pg-dirty.on
	RunLabel   string `json:"runLabel"`   // the run button's label
}

const statusJS = `(() => {
	const q = (id) => document.getElementById(id);
	const run = document.querySelector('[data-action="run"] .label');
	return {
		conn: q("pg-conn").dataset.state, status: q("pg-status").dataset.status,
		statusText: q("pg-status").textContent, step: q("pg-step").textContent,
		diag: q("pg-diag-summary").textContent, stats: q("pg-stats").textContent,
		file: q("pg-file").textContent, dirty: q("pg-dirty").classList.contains("on"),
		runLabel: run ? run.textContent : "",
	};
})()`

func (tb *tab) status() status {
	tb.t.Helper()
	var s status
	tb.eval(statusJS, &s)
	return s
}

// waitStatus waits until the status bar passes check ("" when it does).
func (tb *tab) waitStatus(what string, check func(s status) string) status {
	tb.t.Helper()
	var s status
	tb.waitFor(what, func() string {
		if err := tb.tryEval(statusJS, &s); err != nil {
			return err.Error()
		}
		if why := check(s); why != "" {
			return fmt.Sprintf("%s (status %+v)", why, s)
		}
		return ""
	})
	return s
}

// waitLoaded waits until the page is connected and has compiled and
// loaded file: no errors, the history at step 0.
func (tb *tab) waitLoaded(file string) {
	tb.t.Helper()
	tb.waitStatus("the page to connect and load "+file, func(s status) string {
		switch {
		case s.Conn != "open":
			return "not connected"
		case s.File != file:
			return "another file"
		case s.Dirty:
			return "edited, not compiled yet"
		case s.Diag != "✓ compiled":
			return "not compiled"
		case s.Status != "paused" || s.Step != "step 0/0":
			return "not at step 0"
		}
		return ""
	})
	tb.waitJS("the warps view", `document.querySelectorAll("#pg-warps .warp-row").length > 0`)
}

// waitRestored waits, after a reload, until the page has reconnected and
// replayed its draft to the step it was at (a step greater than 0).
func (tb *tab) waitRestored() {
	tb.t.Helper()
	tb.waitStatus("the page to restore its draft", func(s status) string {
		var cur, last int
		if _, err := fmt.Sscanf(s.Step, "step %d/%d", &cur, &last); err != nil || s.Conn != "open" || s.Dirty || cur == 0 || cur != last {
			return "not restored"
		}
		return ""
	})
	tb.waitJS("the warps view", `document.querySelectorAll("#pg-warps .warp-row").length > 0`)
}

// waitAt waits until the page is at the reference machine's position (its
// warp-instruction count) at the head of the history.
func (tb *tab) waitAt(r *ref) status {
	tb.t.Helper()
	wi := int(r.m.Stats().WarpInstructions)
	return tb.waitStep(wi, wi)
}

// waitStep waits until the history shows step cur of last.
func (tb *tab) waitStep(cur, last int) status {
	tb.t.Helper()
	want := fmt.Sprintf("step %d/%d", cur, last)
	return tb.waitStatus(want, func(s status) string {
		if s.Step != want {
			return "at " + s.Step
		}
		return ""
	})
}

// setCount sets the "× steps per click" field.
func (tb *tab) setCount(n int) {
	tb.t.Helper()
	tb.eval(fmt.Sprintf(`(() => { const c = document.getElementById("pg-count"); c.value = "%d"; c.dispatchEvent(new Event("input", {bubbles: true})); c.dispatchEvent(new Event("change", {bubbles: true})); return true; })()`, n), nil)
}

// button clicks a control button by its data-action, once it is enabled.
func (tb *tab) button(action string) {
	tb.t.Helper()
	sel := fmt.Sprintf(`[data-action="%s"]`, action)
	tb.waitJS(action+" enabled", fmt.Sprintf(`(() => { const b = document.querySelector('%s'); return b && !b.disabled; })()`, sel))
	tb.click(sel)
}

// ---- the warps view ----

// warpRow is one row of the warps view.
type warpRow struct {
	CTA   int      `json:"cta"`
	Warp  int      `json:"warp"`
	Where string   `json:"where"`
	Label string   `json:"label"`
	Lanes []string `json:"lanes"` // each lane cell's class list
	Sel   bool     `json:"sel"`
}

const warpsJS = `[...document.querySelectorAll("#pg-warps .warp-row")].map((r) => ({
	cta: Number(r.dataset.cta), warp: Number(r.dataset.warp),
	where: r.querySelector(".warp-where").textContent,
	label: r.querySelector(".warp-state").textContent,
	lanes: [...r.querySelectorAll(".lanes .ln")].map((c) => c.className),
	sel: r.classList.contains("sel"),
}))`

// count returns the number of lanes whose cell has class cls.
func (r warpRow) count(cls string) int {
	n := 0
	for _, c := range r.Lanes {
		for _, f := range strings.Fields(c) {
			if f == cls {
				n++
			}
		}
	}
	return n
}

// view turns a row into the warpView the reference computes.
func (r warpRow) view() warpView {
	return warpView{Where: r.Where, Label: r.Label, Active: r.count("ln-active"), Idle: r.count("ln-inactive"),
		Bar: r.count("ln-barrier"), Exited: r.count("ln-exited")}
}

// expectWarps waits until every resident warp's row shows what the
// reference machine says: pc and line, the state, and the lane colours
// (active / inactive by divergence / at barrier / exited).
func (tb *tab) expectWarps(r *ref, what string) []warpRow {
	tb.t.Helper()
	var rows []warpRow
	tb.waitFor("the warps view "+what, func() string {
		rows = nil
		if err := tb.tryEval(warpsJS, &rows); err != nil {
			return err.Error()
		}
		return diffWarps(r, rows)
	})
	return rows
}

func diffWarps(r *ref, rows []warpRow) string {
	r.m.NextWarp()
	n := 0
	for ci, c := range r.m.CTAs() {
		for wi := range c.Warps {
			n++
			want := r.view(r.warp(ci, wi))
			var got *warpRow
			for i := range rows {
				if rows[i].CTA == ci && rows[i].Warp == wi {
					got = &rows[i]
				}
			}
			if got == nil {
				return fmt.Sprintf("no row for CTA %d warp %d", ci, wi)
			}
			if len(got.Lanes) != 32 {
				return fmt.Sprintf("CTA %d warp %d: %d lane cells", ci, wi, len(got.Lanes))
			}
			if g := got.view(); g != want {
				return fmt.Sprintf("CTA %d warp %d shows %+v, the emulator says %+v", ci, wi, g, want)
			}
		}
	}
	if len(rows) != n {
		return fmt.Sprintf("%d warp rows, the emulator has %d resident warps", len(rows), n)
	}
	return ""
}

// ---- the registers view ----

// showTab shows an inspector tab (regs, memory, launch, events).
func (tb *tab) showTab(name string) {
	tb.t.Helper()
	var on bool
	tb.eval(fmt.Sprintf(`document.getElementById("pg-tabbtn-%s").getAttribute("aria-selected") === "true"`, name), &on)
	if !on {
		tb.click("#pg-tabbtn-" + name)
	}
	tb.waitJS("the "+name+" tab", fmt.Sprintf(`!document.getElementById("pg-tab-%s").hidden`, name))
}

// regCell is one lane of a register row.
type regCell struct {
	Hex  *string `json:"hex"`
	Text string  `json:"text"`
}

func regJS(name string) string {
	return fmt.Sprintf(`(() => {
		const th = document.querySelector('#pg-tab-regs th.reg-name[data-name="%s"]');
		if (!th) return null;
		return [...th.parentElement.querySelectorAll("td.val")].map((td) => ({hex: td.dataset.hex ?? null, text: td.textContent}));
	})()`, name)
}

// expectReg waits until the registers view shows, in all 32 lanes of
// register name, the values of the reference's warp w (and shows them in
// decimal, the "auto" format of small integers).
func (tb *tab) expectReg(r *ref, w *emu.Warp, name, what string) {
	tb.t.Helper()
	slot := r.slot(name)
	tb.showTab("regs")
	tb.waitFor(name+" in the registers view "+what, func() string {
		var cells []regCell
		if err := tb.tryEval(regJS(name), &cells); err != nil {
			return err.Error()
		}
		if len(cells) != 32 {
			return fmt.Sprintf("%d cells", len(cells))
		}
		vals := w.Reg(slot)
		typ := r.prog.Regs[slot].Type
		for l, c := range cells {
			want := vals[l]
			if c.Hex == nil {
				return fmt.Sprintf("lane %d has no value (%q)", l, c.Text)
			}
			got, err := strconv.ParseUint(*c.Hex, 16, 64)
			if err != nil {
				return fmt.Sprintf("lane %d: hex %q", l, *c.Hex)
			}
			if got != want {
				return fmt.Sprintf("lane %d holds %#x, the emulator says %#x", l, got, want)
			}
			if typ.Bits() <= 32 && !typ.IsFloat() && want < 1<<24 && c.Text != strconv.FormatUint(want, 10) {
				return fmt.Sprintf("lane %d shows %q, want %d", l, c.Text, want)
			}
		}
		return ""
	})
}

// ---- the editor ----

// editorLinesJS evaluates to the numbers of the editor lines (from the
// line-number gutter) at the vertical centre of the visible elements sel
// matches (gutter spacers, which CodeMirror hides, are skipped).
func editorLinesJS(sel string) string {
	return fmt.Sprintf(`(() => {
		const out = [];
		for (const el of document.querySelectorAll(%q)) {
			const g = el.closest(".cm-gutterElement");
			if (g && (g.style.visibility === "hidden" || g.getBoundingClientRect().height === 0)) continue;
			const r = el.getBoundingClientRect();
			if (r.height === 0) continue;
			const y = (r.top + r.bottom) / 2;
			for (const n of document.querySelectorAll(".cm-lineNumbers .cm-gutterElement")) {
				const b = n.getBoundingClientRect();
				if (b.height > 0 && y >= b.top && y < b.bottom && /^\d+$/.test(n.textContent)) { out.push(Number(n.textContent)); break; }
			}
		}
		return out;
	})()`, sel)
}

// expectMarks waits until the visible elements sel matches sit exactly on
// lines.
func (tb *tab) expectMarks(sel, what string, lines ...int) {
	tb.t.Helper()
	want := fmt.Sprint(lines)
	tb.waitFor(fmt.Sprintf("%s on lines %v", what, lines), func() string {
		var got []int
		if err := tb.tryEval(editorLinesJS(sel), &got); err != nil {
			return err.Error()
		}
		if g := fmt.Sprint(got); g != want {
			return "on lines " + g
		}
		return ""
	})
}

// editorTextJS evaluates to the editor's document, read from CodeMirror's
// view (reached from its DOM, as EditorView.findFromDOM does), or null.
const editorTextJS = `(() => {
	const c = document.querySelector(".cm-content");
	if (!c) return null;
	const t = c.cmTile || c.cmView;
	const v = t && (t.root ? t.root.view : t.rootView ? t.rootView.view : t.view);
	return v && v.state ? v.state.doc.toString() : null;
})()`

// replaceEditorText selects everything in the editor and types text over
// it, as a user pasting would.
func (tb *tab) replaceEditorText(text string) {
	tb.t.Helper()
	// Focus the editor as a click on its text would (a click at the middle
	// of a long document can land below the scrolled pane).
	tb.eval(`(() => { document.querySelector(".cm-content").focus(); return document.activeElement === document.querySelector(".cm-content"); })()`, nil)
	tb.waitJS("the editor to have the focus", `document.activeElement === document.querySelector(".cm-content")`)
	tb.key("a", kb.ModifierCtrl)
	tb.insertText(text)
	tb.waitFor("the editor to hold the new text", func() string {
		var got *string
		if err := tb.tryEval(editorTextJS, &got); err != nil {
			return err.Error()
		}
		if got == nil {
			return "cannot read the editor's document"
		}
		if *got != text {
			i := 0
			for i < len(*got) && i < len(text) && (*got)[i] == text[i] {
				i++
			}
			return fmt.Sprintf("the editor holds %d bytes, want %d; they differ at byte %d: %q, want %q", len(*got), len(text), i, (*got)[i:min(i+30, len(*got))], text[i:min(i+30, len(text))])
		}
		return ""
	})
}

// scrollEditorToLine scrolls the editor so that line is in the middle of
// its viewport (the editor renders only the lines near the viewport).
func (tb *tab) scrollEditorToLine(line int) {
	tb.t.Helper()
	tb.eval(fmt.Sprintf(`(() => {
		const s = document.querySelector(".cm-scroller");
		// One line's height (the editor renders only the lines near the view).
		const lh = document.querySelector(".cm-content .cm-line").getBoundingClientRect().height;
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

// gutterLineCentre returns the centre of a line's number in the gutter.
func (tb *tab) gutterLineCentre(line int) (x, y float64) {
	tb.t.Helper()
	var p struct{ X, Y float64 }
	tb.eval(fmt.Sprintf(`(() => {
		for (const g of document.querySelectorAll(".cm-lineNumbers .cm-gutterElement")) {
			if (g.textContent !== "%d") continue;
			const b = g.getBoundingClientRect();
			return {X: (b.left + b.right) / 2, Y: (b.top + b.bottom) / 2};
		}
		return null;
	})()`, line), &p)
	if p.X == 0 && p.Y == 0 {
		tb.t.Fatalf("line %d is not in the editor's gutter", line)
	}
	return p.X, p.Y
}
