package browser

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/bits"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp/kb"

	"github.com/ptxplayground/ptxplay/engine/emu"
	"github.com/ptxplayground/ptxplay/engine/launch"
	"github.com/ptxplayground/ptxplay/engine/ptx"
)

// The scenarios. Each opens its own tab on the shared server and browser,
// drives the page as a user would (clicks, keys, typing) and checks what
// it shows against the reference machine (ref_test.go), stepped the same
// way. Every tab fails its test on a console error or warning, an uncaught
// exception or a server warning.

// grouped formats n as the page does (toLocaleString("en-US")).
func grouped(n int64) string {
	s := strconv.FormatInt(n, 10)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// statsText is the warps pane's summary for the reference machine.
func statsText(r *ref) string {
	st := r.m.Stats()
	return fmt.Sprintf("%d/%d CTAs finished · %s warp-instructions · %s thread-instructions",
		r.m.CTAsFinished(), r.m.NumCTAs(), grouped(st.WarpInstructions), grouped(st.ThreadInstructions))
}

func (tb *tab) expectStats(r *ref) {
	tb.t.Helper()
	want := statsText(r)
	tb.waitStatus("the statistics "+want, func(s status) string {
		if s.Stats != want {
			return "stats " + s.Stats
		}
		return ""
	})
}

// TestStepping opens the divergence example from the gallery, steps it
// warp-instruction by warp-instruction through the first divergent branch,
// checks the warps and registers views against the emulator, steps back,
// then switches to the shared-memory reduction to step by round and to a
// barrier.
func TestStepping(t *testing.T) {
	s := need(t)
	tb := s.newTab(t, "/")
	tb.waitLoaded("vector-add.ptx")

	// The gallery's Open link opens the example in the playground.
	tb.click(`.site-header a[href="/gallery"]`)
	tb.waitJS("the gallery", `location.pathname === "/gallery" && !!document.querySelector("#example-divergence a.open")`)
	tb.click(`#example-divergence a.open`)
	tb.waitJS("the divergence example's page", `location.pathname === "/" && location.search === "?example=divergence"`)
	tb.waitLoaded("divergence.ptx")
	r := exampleRef(t, "divergence")
	tb.expectWarps(r, "after the load")
	tb.expectStats(r)
	tb.screenshot("divergence-loaded")

	// One warp-instruction.
	tb.button("step-warp")
	r.step(emu.StepWarpInstruction, 1)
	tb.waitStep(1, 1)
	tb.expectWarps(r, "after one warp-instruction")

	// Twelve more in one click: x = start[i] = i+1 is loaded, steps = 0.
	tb.setCount(12)
	tb.button("step-warp")
	r.step(emu.StepWarpInstruction, 12)
	tb.waitStep(13, 13)
	w := r.warp(0, 0)
	tb.expectWarps(r, "after 13 warp-instructions")
	tb.expectReg(r, w, "%r5", "after the load of x")
	tb.expectReg(r, w, "%r6", "after steps = 0")
	tb.expectStats(r)
	for l, v := range w.Reg(r.slot("%r5")) {
		if v != uint64(l+1) {
			t.Fatalf("reference: lane %d loaded x = %d, want %d", l, v, l+1)
		}
	}

	// The if/else splits the warp: lane 0 (x = 1) left the loop at the
	// previous branch; the lanes with an even x (odd lanes) run the even
	// path while the others wait.
	tb.setCount(1)
	tb.button("step-warp")
	r.step(emu.StepWarpInstruction, 1)
	tb.waitStep(14, 14)
	rows := tb.expectWarps(r, "at the divergent branch")
	for l, cls := range rows[0].Lanes {
		wantActive := (l+1)%2 == 0
		if strings.Contains(cls, "ln-active") != wantActive || strings.Contains(cls, "ln-inactive") == wantActive {
			t.Errorf("lane %d (x = %d) has class %q, want active=%v", l, l+1, cls, wantActive)
		}
	}
	if got := rows[0].count("ln-active"); got != bits.OnesCount32(w.Active()) {
		t.Errorf("%d active lanes shown, the emulator's active mask %08x has %d", got, w.Active(), bits.OnesCount32(w.Active()))
	}
	evenLine := lineOf(t, example(t, "divergence").Source, "shr.u32 %r5, %r5, 1;")
	if want := fmt.Sprintf("line %d · pc %d", evenLine, w.PC()); rows[0].Where != want {
		t.Errorf("warp 0 is at %q, want %q", rows[0].Where, want)
	}
	var stackRows int
	tb.eval(`document.querySelectorAll("#pg-warps .stack-table tbody tr").length`, &stackRows)
	if want := len(w.Stack()); stackRows != want {
		t.Errorf("the reconvergence stack shows %d entries, the emulator has %d", stackRows, want)
	}
	tb.screenshot("divergence-split")

	// The even path halves x in the active lanes only.
	tb.button("step-warp")
	r.step(emu.StepWarpInstruction, 1)
	tb.waitStep(15, 15)
	tb.expectWarps(r, "after the even path's shr")
	tb.expectReg(r, w, "%r5", "after x = x/2 on the even lanes")
	var changed int
	tb.eval(`document.querySelectorAll('#pg-tab-regs th.reg-name[data-name="%r5"] ~ td.val.chg').length`, &changed)
	if changed != 16 {
		t.Errorf("%d lanes of %%r5 are highlighted as changed, want the 16 even-x lanes", changed)
	}
	tb.screenshot("divergence-even-path")

	// Back: one warp-instruction, to the state at the branch.
	tb.button("back")
	tb.waitStep(14, 15)
	back := exampleRef(t, "divergence")
	back.step(emu.StepWarpInstruction, 14)
	tb.expectWarps(back, "after stepping back")
	tb.expectReg(back, back.warp(0, 0), "%r5", "after stepping back")
	tb.expectStats(back)
	tb.screenshot("divergence-back")

	// Round and barrier granularity, on the shared-memory reduction (4
	// CTAs of 4 warps), picked from the example menu.
	tb.eval(`(() => { const s = document.getElementById("pg-example-select"); s.value = "shared-reduction"; s.dispatchEvent(new Event("change", {bubbles: true})); return true; })()`, nil)
	tb.waitLoaded("shared-reduction.ptx")
	rs := exampleRef(t, "shared-reduction")
	tb.expectWarps(rs, "after the load")

	tb.button("step-round")
	rs.step(emu.StepRound, 1)
	tb.waitAt(rs)
	tb.expectWarps(rs, "after one round")
	tb.expectStats(rs)
	if got := rs.m.Stats().WarpInstructions; got != 16 {
		t.Errorf("reference: a round of 16 ready warps ran %d warp-instructions", got)
	}

	tb.button("step-barrier")
	rs.step(emu.StepToBarrier, 1)
	tb.waitAt(rs)
	tb.expectWarps(rs, "after the first barrier released")
	tb.expectStats(rs)
	tb.expectReg(rs, rs.warp(0, 0), "%r4", "(the global index) after the barrier")
	tb.expectReg(rs, rs.warp(0, 0), "%f1", "(the loaded element) after the barrier")

	// The next warp-instruction is CTA 1's warp 0 arriving at bar.sync.
	tb.button("step-warp")
	rs.step(emu.StepWarpInstruction, 1)
	tb.waitAt(rs)
	rows = tb.expectWarps(rs, "with a warp at the barrier")
	bw := rs.warp(1, 0)
	if bw.State != emu.WarpWaiting {
		t.Fatalf("reference: CTA 1 warp 0 is %v, want at a barrier", bw.State)
	}
	for _, row := range rows {
		if row.CTA == 1 && row.Warp == 0 && (row.Label != "at barrier 0" || row.count("ln-barrier") != 32) {
			t.Errorf("CTA 1 warp 0 shows %q with %d lanes at the barrier, want \"at barrier 0\" and 32", row.Label, row.count("ln-barrier"))
		}
	}
	bs := rs.m.CTAs()[1].Barriers()
	if len(bs) != 1 {
		t.Fatalf("reference: CTA 1 has %d barriers with arrivals", len(bs))
	}
	wantBar := fmt.Sprintf("barrier %d: %d of %d threads arrived · waiting: w%d", bs[0].ID, bs[0].Arrived, rs.m.CTAs()[1].LiveThreads(), bs[0].Waiting[0])
	tb.waitJS("CTA 1's barrier summary "+wantBar, fmt.Sprintf(`[...document.querySelectorAll("#pg-warps .cta-bars")].some((e) => e.textContent === %q)`, wantBar))
	tb.screenshot("reduction-at-barrier")
}

// TestRunToEnd runs vector-add to the end and checks the status and the
// output buffer in the memory view against the emulator's result.
func TestRunToEnd(t *testing.T) {
	s := need(t)
	tb := s.newTab(t, "/?example=vector-add")
	tb.waitLoaded("vector-add.ptx")
	r := exampleRef(t, "vector-add")
	res, err := r.l.Run(context.Background())
	if err != nil || res.Status != launch.StatusOK {
		t.Fatalf("reference run: %v %v", res.Status, err)
	}
	r.settle()

	st := tb.status()
	if st.RunLabel != "Run" {
		t.Errorf("the run button says %q at step 0, want Run", st.RunLabel)
	}
	tb.button("run")
	tb.waitStatus("the launch to finish", func(s status) string {
		if s.Status != "done" || s.StatusText != "done" {
			return "not done"
		}
		return ""
	})
	tb.expectStats(r)
	tb.expectWarps(r, "when every CTA has finished")
	for _, a := range []string{"step-warp", "step-round", "step-barrier"} {
		var disabled bool
		tb.eval(fmt.Sprintf(`document.querySelector('[data-action="%s"]').disabled`, a), &disabled)
		if !disabled {
			t.Errorf("%s is enabled after the launch finished", a)
		}
	}

	// The memory view: buffer c holds c[i] = a[i] + b[i].
	tb.showTab("memory")
	tb.click(`#pg-tab-memory .mem-tab[data-key="global:c"]`)
	c := res.Buffer("c")
	type cell struct {
		Where string  `json:"where"`
		Hex   *string `json:"hex"`
		Text  string  `json:"text"`
	}
	var cells []cell
	tb.waitFor("buffer c in the memory view", func() string {
		cells = nil
		if err := tb.tryEval(`[...document.querySelectorAll("#pg-tab-memory table.mem td.val:not(.pad)")].map((td) => ({where: td.dataset.where ?? "", hex: td.dataset.hex ?? null, text: td.textContent}))`, &cells); err != nil {
			return err.Error()
		}
		if len(cells) != c.Len() {
			return fmt.Sprintf("%d cells, want %d", len(cells), c.Len())
		}
		for i, x := range cells {
			if x.Hex == nil {
				return fmt.Sprintf("c[%d] not known yet (%q)", i, x.Text)
			}
		}
		return ""
	})
	for i, x := range cells {
		bitsHex := c.BitsHex(i)
		f := math.Float32frombits(uint32(c.Bits(i)))
		if want := float32(i) + float32(1000+2*i); f != want {
			t.Fatalf("reference: c[%d] = %v, want %v", i, f, want)
		}
		wantWhere := fmt.Sprintf("c[%d] · byte %d", i, 4*i)
		wantText := strconv.FormatFloat(float64(f), 'g', -1, 32)
		if x.Where != wantWhere || strings.TrimLeft(*x.Hex, "0") != strings.TrimLeft(bitsHex, "0") || x.Text != wantText {
			t.Errorf("memory cell %d: %s = %s (%s), the emulator says %s = %s (%s)", i, x.Where, x.Text, *x.Hex, wantWhere, wantText, bitsHex)
		}
	}
	tb.screenshot("vector-add-done-memory")
}

// TestDiagnostic types broken PTX into the editor and checks that the
// compile error shows at its line: the lint marker in the gutter, the
// underline, and the problems list with the checker's message.
func TestDiagnostic(t *testing.T) {
	s := need(t)
	tb := s.newTab(t, "/?example=vector-add")
	tb.waitLoaded("vector-add.ptx")

	src := example(t, "vector-add").Source
	good := "add.f32 %f3, %f1, %f2;"
	if !strings.Contains(src, good) {
		t.Fatalf("vector-add has no %q", good)
	}
	broken := strings.Replace(src, good, "add.f32 %f3, %f1, %q2;", 1)
	_, bsrc, diags := launch.Compile("vector-add.ptx", []byte(broken))
	if !ptx.HasErrors(diags) {
		t.Fatal("reference: the broken PTX compiles")
	}
	var msgs []ptx.Message
	errors := 0
	for _, d := range diags {
		msgs = append(msgs, d.ToMessage(bsrc))
		if d.Severity == ptx.SevError {
			errors++
		}
	}
	want := msgs[0]
	if want.Line != lineOf(t, broken, "add.f32 %f3, %f1, %q2;") {
		t.Fatalf("reference: the first diagnostic is at line %d: %+v", want.Line, want)
	}

	tb.replaceEditorText(broken)
	wantSummary := fmt.Sprintf("%d error", errors)
	if errors != 1 {
		wantSummary += "s"
	}
	tb.waitStatus("the compile errors", func(s status) string {
		if s.Diag != wantSummary || s.Status != "error" || s.StatusText != "compile errors" {
			return "no errors shown"
		}
		return ""
	})

	// The problems list: one entry per diagnostic, with line:col and the
	// checker's message.
	type item struct {
		Loc string `json:"loc"`
		Sev string `json:"sev"`
		Msg string `json:"msg"`
	}
	var items []item
	tb.eval(`[...document.querySelectorAll("#pg-problems li.diag")].map((li) => ({loc: li.querySelector(".diag-loc").textContent, sev: li.querySelector(".diag-sev").textContent, msg: li.querySelector(".diag-msg").textContent}))`, &items)
	if len(items) != len(msgs) {
		t.Fatalf("the problems list has %d entries %+v, want %d %+v", len(items), items, len(msgs), msgs)
	}
	for i, m := range msgs {
		if w := (item{Loc: fmt.Sprintf("%d:%d", m.Line, m.Col), Sev: m.Severity, Msg: m.Message}); items[i] != w {
			t.Errorf("problem %d is %+v, want %+v", i, items[i], w)
		}
	}

	// Its location button brings the line into view; the gutter marks it.
	tb.click("#pg-problems li.diag .diag-loc")
	tb.expectMarks(".cm-gutter-lint .cm-lint-marker-error", "the error marker", want.Line)
	tb.expectMarks(".cm-lintRange-error", "the error underline", want.Line)
	var under string
	tb.eval(`document.querySelector(".cm-lintRange-error").textContent`, &under)
	if !strings.Contains(broken, under) || under == "" {
		t.Errorf("underlined text %q", under)
	}
	// Nothing can run.
	var disabled bool
	tb.eval(`document.querySelector('[data-action="step-warp"]').disabled && document.querySelector('[data-action="run"]').disabled`, &disabled)
	if !disabled {
		t.Error("stepping or running is enabled with compile errors")
	}
	tb.screenshot("diagnostic")

	// Fixing the line compiles again.
	tb.replaceEditorText(src)
	tb.waitLoaded("vector-add.ptx")
	tb.waitJS("no error markers", `document.querySelectorAll(".cm-lint-marker-error").length === 0 && document.getElementById("pg-problems").hidden`)
}

// TestFault launches vector-add with n larger than its buffers (edited in
// the launch panel's JSON) and checks the fault panel against the
// emulator's fault.
func TestFault(t *testing.T) {
	s := need(t)
	tb := s.newTab(t, "/?example=vector-add")
	tb.waitLoaded("vector-add.ptx")
	e := example(t, "vector-add")

	var spec map[string]any
	if err := json.Unmarshal(e.Spec, &spec); err != nil {
		t.Fatal(err)
	}
	params := spec["params"].([]any)
	params[len(params)-1] = map[string]any{"u32": 256}
	specJSON, _ := json.MarshalIndent(spec, "", "  ")
	r := newRef(t, "vector-add.ptx", e.Source, specJSON)
	res, err := r.l.Run(context.Background())
	if err != nil || res.Status != launch.StatusFault || res.Fault == nil {
		t.Fatalf("reference: %v %v, want a fault", res.Status, err)
	}
	f := res.Fault

	// A step first: the edited launch then waits for the user's choice
	// instead of throwing the run away; "Start fresh" reloads at step 0.
	tb.button("step-warp")
	tb.waitStep(1, 1)
	tb.showTab("launch")
	tb.eval(fmt.Sprintf(`(() => { const t = document.getElementById("pg-spec-json"); t.value = %q; t.dispatchEvent(new Event("input", {bubbles: true})); return true; })()`, specJSON), nil)
	tb.waitJS("the launch-changed banner", `!document.getElementById("pg-changed").hidden && !!document.querySelector('#pg-changed [data-change="fresh"]')`)
	tb.waitStep(1, 1)
	tb.click(`#pg-changed [data-change="fresh"]`)
	tb.waitStep(0, 0)
	tb.waitLoaded("vector-add.ptx")

	tb.button("run")
	tb.waitStatus("the fault", func(s status) string {
		if s.Status != "fault" || s.StatusText != "fault" {
			return "no fault"
		}
		return ""
	})
	tb.waitJS("the fault panel", `!document.getElementById("pg-fault").hidden`)
	type panel struct {
		Kind string            `json:"kind"`
		Msg  string            `json:"msg"`
		KV   map[string]string `json:"kv"`
	}
	var p panel
	tb.eval(`(() => {
		const el = document.getElementById("pg-fault");
		const kv = {};
		for (const r of el.querySelectorAll(".fault-kv")) kv[r.querySelector(".k").textContent] = r.querySelector(".v").textContent;
		return {kind: el.querySelector(".fault-kind").textContent, msg: el.querySelector(".fault-msg").textContent, kv};
	})()`, &p)
	cta := fmt.Sprintf("(%d)", f.CTA[0])
	for _, c := range r.m.CTAs() {
		if c.Idx == f.CTA {
			cta += fmt.Sprintf(" · #%d", c.Linear)
		}
	}
	want := panel{Kind: f.Kind, Msg: f.Message, KV: map[string]string{
		"line":        fmt.Sprintf("%d:%d", f.Line, f.Col),
		"CTA":         cta,
		"thread":      fmt.Sprintf("(%d)", f.Thread[0]),
		"warp / lane": fmt.Sprintf("warp %d, lane %d", f.Warp, f.Lane),
		"address":     fmt.Sprintf("0x%x", f.Address),
	}}
	if p.Kind != want.Kind || p.Msg != want.Msg || fmt.Sprint(p.KV) != fmt.Sprint(want.KV) {
		t.Errorf("the fault panel shows\n  %+v\nthe emulator says\n  %+v", p, want)
	}
	if f.Line != lineOf(t, e.Source, "ld.global.f32 %f1, [%rd5];") {
		t.Errorf("reference: the fault is at line %d", f.Line)
	}
	// Every faulting lane is marked in its warp's row (the first is the
	// fault's lane), the line in the gutter.
	lanes := r.m.Fault().Lanes
	if lanes&(1<<f.Lane) == 0 || bits.TrailingZeros32(lanes) != f.Lane {
		t.Fatalf("reference: fault lanes %08x, lane %d", lanes, f.Lane)
	}
	tb.waitJS("the faulted lanes", fmt.Sprintf(`(() => {
		for (const r of document.querySelectorAll("#pg-warps .warp-row")) {
			const cells = [...r.querySelectorAll(".lanes .ln")];
			const f = cells.filter((c) => c.classList.contains("ln-fault"));
			if (f.length === %d && cells.indexOf(f[0]) === %d && r.classList.contains("sel")) return true;
		}
		return false;
	})()`, bits.OnesCount32(lanes), f.Lane))
	tb.expectMarks(".warp-mark-fault", "the fault mark", f.Line)
	tb.expectStats(r)
	tb.screenshot("fault")
}

// TestBreakpoint sets a breakpoint by clicking a line number and checks
// that Run and Continue stop there, where the emulator stops.
func TestBreakpoint(t *testing.T) {
	s := need(t)
	tb := s.newTab(t, "/?example=divergence")
	tb.waitLoaded("divergence.ptx")
	r := exampleRef(t, "divergence")
	line := lineOf(t, example(t, "divergence").Source, "shr.u32 %r5, %r5, 1;")

	tb.scrollEditorToLine(line)
	x, y := tb.gutterLineCentre(line)
	tb.clickAt(x, y)
	tb.expectMarks(".cm-bp-gutter .bp-dot", "the breakpoint dot", line)

	for i, label := range []string{"Run", "Continue"} {
		st := tb.status()
		if st.RunLabel != label {
			t.Errorf("the run button says %q, want %q", st.RunLabel, label)
		}
		if res := r.runToBreakpoint(line); res != emu.StopBreakpoint {
			t.Fatalf("reference: run %d stopped with %v", i, res)
		}
		tb.button("run")
		tb.waitStatus("the breakpoint", func(s status) string {
			if wi := r.m.Stats().WarpInstructions; s.StatusText != "paused · breakpoint" || s.Step != fmt.Sprintf("step %d/%d", wi, wi) {
				return "not stopped at the breakpoint"
			}
			return ""
		})
		rows := tb.expectWarps(r, fmt.Sprintf("at the breakpoint (run %d)", i+1))
		if want := fmt.Sprintf("line %d · pc %d", line, r.warp(0, 0).PC()); rows[0].Where != want {
			t.Errorf("warp 0 stopped at %q, want %q", rows[0].Where, want)
		}
		tb.expectReg(r, r.warp(0, 0), "%r5", "at the breakpoint")
		tb.expectReg(r, r.warp(0, 0), "%r6", "at the breakpoint")
		tb.expectStats(r)
		tb.expectMarks(".warp-mark-sel", "the selected warp's marker", line)
		tb.screenshot(fmt.Sprintf("breakpoint-%d", i+1))
	}
}

// TestHelpAndKeys checks the layout at 1280×800, the `?` overlay, and
// stepping from the keyboard.
func TestHelpAndKeys(t *testing.T) {
	s := need(t)
	tb := s.newTab(t, "/?example=vector-add")
	tb.waitLoaded("vector-add.ptx")
	r := exampleRef(t, "vector-add")

	// Usable at 1280×800: nothing overflows sideways, every control is on
	// screen and not covered.
	var layout struct {
		W, H, ScrollW int
		Hidden        []string
	}
	tb.eval(`(() => {
		const hidden = [];
		for (const b of document.querySelectorAll("#pg-controls [data-action], #pg-top [data-action], #pg-count, #pg-timeline, .tabbar [data-tab]")) {
			if (b.closest("[hidden]")) continue; // deliberately hidden (Fork off a share link)
			const r = b.getBoundingClientRect();
			const x = (r.left + r.right) / 2, y = (r.top + r.bottom) / 2;
			const top = document.elementFromPoint(x, y);
			if (r.width === 0 || r.right > innerWidth || r.bottom > innerHeight || !top || !(b === top || b.contains(top))) hidden.push(b.dataset.action || b.dataset.tab || b.id);
		}
		return {W: innerWidth, H: innerHeight, ScrollW: document.documentElement.scrollWidth, Hidden: hidden};
	})()`, &layout)
	t.Logf("viewport %dx%d", layout.W, layout.H)
	if layout.W != viewW || layout.ScrollW > layout.W {
		t.Errorf("viewport %dx%d, page %d wide: want %d and no horizontal scrolling", layout.W, layout.H, layout.ScrollW, viewW)
	}
	if len(layout.Hidden) > 0 {
		t.Errorf("controls off screen or covered at %dx%d: %v", layout.W, layout.H, layout.Hidden)
	}

	// ? opens the overlay with every shortcut.
	tb.eval(`(document.activeElement && document.activeElement.blur(), true)`, nil)
	tb.key("?")
	tb.waitJS("the help overlay", `!document.getElementById("pg-help").hidden`)
	type row struct {
		Keys []string `json:"keys"`
		Desc string   `json:"desc"`
	}
	var help struct {
		Title string `json:"title"`
		Rows  []row  `json:"rows"`
	}
	tb.eval(`(() => {
		const el = document.getElementById("pg-help");
		return {title: el.querySelector("h2").textContent, rows: [...el.querySelectorAll("tbody tr")].map((tr) => ({
			keys: [...tr.querySelectorAll("td.help-keys > .keys")].map((k) => k.textContent), desc: tr.cells[1].textContent}))};
	})()`, &help)
	if help.Title != "Keyboard shortcuts" {
		t.Errorf("help title %q", help.Title)
	}
	wantRows := map[string]string{
		"Forward one warp-instruction (the scheduler's next warp, marked ◂)": "F10 n",
		"Back one round":   "Shift+F11 u",
		"Back one barrier": "Shift+B",
		"CUDA: forward until the selected warp's CUDA source line changes":              "l",
		"CUDA: back to where the selected warp entered its previous source line":        "Shift+L",
		"Forward one round: until the scheduler has visited every ready warp":           "F11 r",
		"Forward until a barrier releases":                                              "b",
		"Back one unit of the last step (warp-instruction, round or barrier)":           "Shift+F10 p",
		"Run / continue to a breakpoint, a fault or the end":                            "F5 c",
		"Compile and load the kernel (replays to the current step when there is a run)": "Ctrl+Enter",
		"Show or hide this help":                "?",
		"Reset the launch (clears the history)": "Shift+R",
		"Registers, Memory, Launch, Events, Fragments, Divergence, Swizzle, TMA, Console tab": "1 2 3 4 5 6 7 8 9",
		"Focus the editor (Esc, then Tab leaves it)":                                          "e",
		"Select the next / previous warp":                                                     "j k",
		"One warp-instruction earlier / later in the history":                                 "[ ]",
		"First / last step of the history":                                                    "Home End",
		"Pause a run":                                                                         "Esc Space",
		"Show the selected warp's line in the editor":                                         "g",
		"Presenter mode: larger type, stronger contrast":                                      "z",
	}
	if len(help.Rows) != len(wantRows) {
		t.Errorf("the help lists %d shortcuts, want %d: %+v", len(help.Rows), len(wantRows), help.Rows)
	}
	for _, hr := range help.Rows {
		if keys, ok := wantRows[hr.Desc]; !ok || strings.Join(hr.Keys, " ") != keys {
			t.Errorf("help row %q: keys %q, want %q", hr.Desc, strings.Join(hr.Keys, " "), keys)
		}
	}
	tb.screenshot("help")
	tb.key(kb.Escape)
	tb.waitJS("the help overlay to close", `document.getElementById("pg-help").hidden`)

	// n steps one warp-instruction, r a round, p steps back, c runs.
	tb.key("n")
	r.step(emu.StepWarpInstruction, 1)
	tb.waitStep(1, 1)
	tb.expectWarps(r, "after n")
	tb.key("n")
	r.step(emu.StepWarpInstruction, 1)
	tb.waitStep(2, 2)
	tb.expectWarps(r, "after n, n")
	tb.key("r")
	r.step(emu.StepRound, 1)
	round := r.m.Stats().WarpInstructions
	tb.waitStep(int(round), int(round))
	tb.expectWarps(r, "after n, n, r")
	tb.expectStats(r)
	// p steps back one unit of the last granularity: to the start of the
	// round that r completed, which began at step 0.
	tb.key("p")
	tb.waitStep(0, int(round))
	back := exampleRef(t, "vector-add")
	tb.expectWarps(back, "after p")
	tb.expectReg(back, back.warp(0, 0), "%r1", "after p")
	// F10 steps forward one warp-instruction through the recorded history.
	tb.key(kb.F10)
	tb.waitStep(1, int(round))
	back.step(emu.StepWarpInstruction, 1)
	tb.expectWarps(back, "after F10")
	tb.expectReg(back, back.warp(0, 0), "%r1", "after F10")
	tb.key("c")
	tb.waitStatus("the run to finish", func(s status) string {
		if s.Status != "done" {
			return "not done"
		}
		return ""
	})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	back.m.Run(ctx)
	back.settle()
	tb.expectStats(back)
	tb.screenshot("keys-done")
}
