package browser

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ptxplayground/ptxplay/engine/emu"
	"github.com/ptxplayground/ptxplay/sessions"
)

// Classroom scenarios: what the page shows is the machine's true state at
// any step, Back is one step back, edits never throw a run away, and a
// reload or a server restart loses nothing.

// regTableJS evaluates to the register table of the selected warp: for
// each row (register or predicate) its name and the 32 lanes' hex values.
const regTableJS = `(() => {
	const out = {};
	for (const th of document.querySelectorAll('#pg-tab-regs th.reg-name[data-name]')) {
		out[th.dataset.name] = [...th.parentElement.querySelectorAll("td.val")].map((td) => td.dataset.hex ?? "");
	}
	return out;
})()`

// stepOf reads the page's position ("step N/M").
func (tb *tab) stepOf() (cur, last int) {
	tb.t.Helper()
	s := tb.status().Step
	if _, err := fmt.Sscanf(s, "step %d/%d", &cur, &last); err != nil {
		tb.t.Fatalf("the step counter says %q", s)
	}
	return cur, last
}

// predSlot returns the slot of predicate name.
func (r *ref) predSlot(name string) int {
	r.t.Helper()
	for i, ri := range r.prog.Preds {
		if ri.Name == name && ri.Kind == emu.RegUser {
			return i
		}
	}
	r.t.Fatalf("no predicate %s", name)
	return -1
}

// at returns a fresh reference machine of the example stepped to position
// wi, as the page shows it.
func refAt(t *testing.T, name string, wi int) *ref {
	r := exampleRef(t, name)
	r.step(emu.StepWarpInstruction, wi)
	return r
}

// expectRegTable waits until every register and predicate row of the
// table holds the reference warp's values in all 32 lanes.
func (tb *tab) expectRegTable(r *ref, w *emu.Warp, what string) {
	tb.t.Helper()
	tb.showTab("regs")
	tb.waitFor("the register table "+what, func() string {
		var rows map[string][]string
		if err := tb.tryEval(regTableJS, &rows); err != nil {
			return err.Error()
		}
		if len(rows) == 0 {
			return "no rows"
		}
		for name, cells := range rows {
			if len(cells) != 32 {
				return fmt.Sprintf("%s: %d cells", name, len(cells))
			}
			isPred := false
			for _, p := range r.prog.Preds {
				if p.Name == name && p.Kind == emu.RegUser {
					isPred = true
				}
			}
			for l, c := range cells {
				var want uint64
				if isPred {
					want = uint64(w.Pred(r.predSlot(name))>>l) & 1
				} else {
					want = w.Reg(r.slot(name))[l]
				}
				got, err := strconv.ParseUint(c, 16, 64)
				if err != nil || got != want {
					return fmt.Sprintf("%s lane %d shows %q, the machine holds %#x", name, l, c, want)
				}
			}
		}
		return ""
	})
}

// TestStateAlwaysExact clicks through the divergence example at random
// (warp, round and barrier steps, Back by each unit, the timeline keys)
// and, at every stop, compares the register table (registers and
// predicates) and the warps view with a machine built fresh at that step.
// The step after a setp changes only predicates: those must show too.
func TestStateAlwaysExact(t *testing.T) {
	s := need(t)
	tb := s.newTab(t, "/?example=divergence")
	tb.waitLoaded("divergence.ptx")
	// The walk: n thirteen times, then the predicates at the split.
	for i := 1; i <= 13; i++ {
		tb.key("n")
		tb.waitStep(i, i)
	}
	r := refAt(t, "divergence", 13)
	tb.expectRegTable(r, r.warp(0, 0), "after 13 warp-instructions")
	tb.expectWarps(r, "after 13 warp-instructions")

	rnd := rand.New(rand.NewSource(6))
	actions := []string{"step-warp", "step-warp", "step-round", "step-barrier", "back", "back", "[", "]"}
	for i := 0; i < 30; i++ {
		cur, last := tb.stepOf()
		a := actions[rnd.Intn(len(actions))]
		switch {
		case a == "back" && cur == 0, a == "[" && cur == 0, a == "]" && cur == last:
			continue
		case strings.HasPrefix(a, "step-") && tb.status().Status != "paused":
			continue
		}
		switch a {
		case "[", "]":
			tb.key(a)
		default:
			tb.button(a)
		}
		tb.waitStatus(fmt.Sprintf("the page to move from step %d (%s)", cur, a), func(s status) string {
			if s.Step == fmt.Sprintf("step %d/%d", cur, last) {
				// The kernel has no barrier: a barrier step runs nothing and says so.
				if a == "step-barrier" && strings.Contains(s.StatusText, "no barrier ahead") {
					return ""
				}
				return "still at " + s.Step
			}
			if a == "step-barrier" {
				return "a barrier step moved in a kernel without a barrier, to " + s.Step
			}
			return ""
		})
		if i%3 != 0 {
			continue
		}
		now, _ := tb.stepOf()
		r := refAt(t, "divergence", now)
		what := fmt.Sprintf("at step %d (after %s)", now, a)
		tb.expectRegTable(r, r.warp(0, 0), what)
		tb.expectWarps(r, what)
	}
}

// TestBackAfterFault: after Run ends on a fault, Back goes one
// warp-instruction back (not to step 0), and the timeline scrubs to any
// warp-instruction.
func TestBackAfterFault(t *testing.T) {
	s := need(t)
	tb := s.newTab(t, "/?example=vector-add")
	tb.waitLoaded("vector-add.ptx")
	e := example(t, "vector-add")
	var spec map[string]any
	json.Unmarshal(e.Spec, &spec)
	params := spec["params"].([]any)
	params[len(params)-1] = map[string]any{"u32": 256}
	specJSON, _ := json.MarshalIndent(spec, "", "  ")
	tb.showTab("launch")
	tb.eval(fmt.Sprintf(`(() => { const t = document.getElementById("pg-spec-json"); t.value = %q; t.dispatchEvent(new Event("input", {bubbles: true})); return true; })()`, specJSON), nil)
	tb.waitLoaded("vector-add.ptx") // nothing ran yet: the edit loads at once
	tb.button("run")
	st := tb.waitStatus("the fault", func(s status) string {
		if s.Status != "fault" {
			return "no fault"
		}
		return ""
	})
	var end int
	fmt.Sscanf(st.Step, "step %d", &end)
	if end < 10 {
		t.Fatalf("the fault came at step %d", end)
	}
	tb.button("back")
	tb.waitStep(end-1, end)
	r := newRef(t, "vector-add.ptx", e.Source, specJSON)
	r.step(emu.StepWarpInstruction, end-1)
	tb.expectWarps(r, "one warp-instruction before the fault")
	tb.expectStats(r)
	if st := tb.status(); st.Status != "paused" || st.RunLabel != "Continue" {
		t.Errorf("before the fault: status %q, run button %q", st.Status, st.RunLabel)
	}
	tb.screenshot("back-before-fault")

	// The timeline reaches every warp-instruction.
	mid := end / 3
	tb.eval(fmt.Sprintf(`(() => { const t = document.getElementById("pg-timeline"); t.value = "%d"; t.dispatchEvent(new Event("input", {bubbles: true})); return true; })()`, mid), nil)
	tb.waitStep(mid, end)
	r = newRef(t, "vector-add.ptx", e.Source, specJSON)
	r.step(emu.StepWarpInstruction, mid)
	tb.expectWarps(r, fmt.Sprintf("scrubbed to step %d", mid))
	tb.expectStats(r)
	// Forward from the past replays the recorded steps, the head stays.
	tb.button("step-warp")
	tb.waitStep(mid+1, end)
	// Continue from the past runs to the fault again.
	tb.button("run")
	tb.waitStatus("the fault again", func(s status) string {
		if s.Status != "fault" || s.Step != fmt.Sprintf("step %d/%d", end, end) {
			return "not at the fault"
		}
		return ""
	})
}

// TestEditKeepsRun: typing a comment keeps the run and moves the warp
// markers with their lines; a real edit keeps the run too, shows the
// source-changed banner with live diagnostics, and "Recompile & replay"
// returns to the same step with the new program.
func TestEditKeepsRun(t *testing.T) {
	s := need(t)
	tb := s.newTab(t, "/?example=divergence")
	tb.waitLoaded("divergence.ptx")
	src := example(t, "divergence").Source
	for i := 1; i <= 5; i++ {
		tb.key("n")
	}
	tb.waitStep(5, 5)
	r := refAt(t, "divergence", 5)
	wline := r.line(r.warp(0, 0).PC())
	tb.expectMarks(".warp-mark-sel", "the selected warp's marker", wline)

	// A comment line at the top: same step, the marker one line down.
	commented := "// my notes\n" + src
	tb.replaceEditorText(commented)
	tb.waitStatus("the comment to be applied", func(s status) string {
		if s.Dirty {
			return "still edited"
		}
		if s.Step != "step 5/5" {
			return "moved to " + s.Step
		}
		return ""
	})
	tb.expectMarks(".warp-mark-sel", "the marker after the comment", wline+1)
	tb.expectRegTable(r, r.warp(0, 0), "after a comment-only edit")

	// A real edit: the run stays, the banner offers the choices.
	edited := strings.Replace(commented, "mul.lo.u32", "mad.lo.u32", 1)
	if edited == commented {
		edited = strings.Replace(commented, "add.u32", "sub.u32", 1)
	}
	if edited == commented {
		t.Fatal("no instruction to change in the example")
	}
	tb.replaceEditorText(edited)
	tb.waitJS("the source-changed banner", `!document.getElementById("pg-changed").hidden && !!document.querySelector('#pg-changed [data-change="replay"]')`)
	if st := tb.status(); st.Step != "step 5/5" {
		t.Fatalf("the edit moved the run to %q", st.Step)
	}
	// Live diagnostics while the run is kept: an error shows at once.
	broken := strings.Replace(edited, "// my notes", "// my notes\n\tbogus.op %r1;", 1)
	tb.replaceEditorText(broken)
	tb.waitStatus("the diagnostic of the broken edit", func(s status) string {
		if !strings.Contains(s.Diag, "error") {
			return "diag " + s.Diag
		}
		if s.Step != "step 5/5" {
			return "moved to " + s.Step
		}
		return ""
	})
	tb.screenshot("edit-kept-run")
	tb.replaceEditorText(edited)
	tb.waitJS("the replay button", `!!document.querySelector('#pg-changed [data-change="replay"]:not([disabled])')`)
	tb.click(`#pg-changed [data-change="replay"]`)
	tb.waitStatus("the replay to step 5", func(s status) string {
		if s.Dirty || s.Step != "step 5/5" || s.Diag != "✓ compiled" {
			return "not replayed"
		}
		return ""
	})
	re := newRef(t, "divergence.ptx", edited, example(t, "divergence").Spec)
	re.step(emu.StepWarpInstruction, 5)
	tb.expectRegTable(re, re.warp(0, 0), "after recompiling and replaying")
	tb.waitJS("the banner to close", `document.getElementById("pg-changed").hidden`)
}

// TestFileNameFollowsEditor: a pasted kernel is named after its entry and
// the example menu stops claiming the example.
func TestFileNameFollowsEditor(t *testing.T) {
	s := need(t)
	tb := s.newTab(t, "/?example=vector-add")
	tb.waitLoaded("vector-add.ptx")
	mine := example(t, "divergence").Source
	tb.replaceEditorText(mine)
	tb.waitFor("the file name of the pasted kernel", func() string {
		if f := tb.status().File; f != "collatz.ptx" {
			return "file " + f
		}
		var sel string
		tb.eval(`document.getElementById("pg-example-select").value`, &sel)
		if sel != "" {
			return "the example menu says " + sel
		}
		return ""
	})
}

// TestReloadAndRestart: a reload restores the edited source and the
// position; after the server restarts, the page reconnects, replays to
// the step it was at and says so. A command that spends the server's
// per-command budget pauses with a visible notice and can continue.
func TestReloadAndRestart(t *testing.T) {
	s := need(t)
	lim := sessions.Limits{MaxWarpInstructions: 400}
	base, stop, err := s.serve("127.0.0.1:0", lim)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { stop() }()
	tb := s.newTabAt(t, base, "/?example=divergence")
	tb.waitLoaded("divergence.ptx")
	src := example(t, "divergence").Source
	edited := "// lecture 3\n" + src
	tb.replaceEditorText(edited)
	tb.waitStatus("the comment to load", func(s status) string {
		if s.Dirty || s.Step != "step 0/0" {
			return "not loaded"
		}
		return ""
	})
	tb.setCount(7)
	tb.button("step-warp")
	tb.waitStep(7, 7)

	// Reload: the draft comes back at step 7.
	tb.navigate("/?example=divergence")
	tb.waitStatus("the draft to be restored", func(s status) string {
		if s.Conn != "open" || s.Step != "step 7/7" || s.Dirty {
			return "not restored"
		}
		return ""
	})
	var text *string
	tb.eval(editorTextJS, &text)
	if text == nil || *text != edited {
		t.Fatalf("the editor holds %v after the reload", text)
	}
	r := newRef(t, "divergence.ptx", edited, example(t, "divergence").Spec)
	r.step(emu.StepWarpInstruction, 7)
	tb.expectRegTable(r, r.warp(0, 0), "after the reload")

	// The server restarts on the same address.
	addr := strings.TrimPrefix(base, "http://")
	tb.expectConsole(fmt.Sprintf("WebSocket connection to 'ws://%s/ws' failed", addr))
	stop()
	tb.waitStatus("the page to see the connection drop", func(s status) string {
		if s.Conn == "open" {
			return "still connected"
		}
		return ""
	})
	var stop2 func()
	for i := 0; ; i++ {
		_, stop2, err = s.serve(addr, lim)
		if err == nil {
			break
		}
		if i > 50 {
			t.Fatalf("restarting the server on %s: %v", addr, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	stop = stop2
	tb.waitStatus("the reconnect and replay", func(s status) string {
		if s.Conn != "open" || s.Step != "step 7/7" {
			return "not replayed"
		}
		return ""
	})
	// The page still shows step 7 while the new session replays: wait for
	// the replay's toast.
	tb.waitFor("the reconnect toast", func() string {
		var toast string
		if err := tb.tryEval(`document.getElementById("pg-toast").textContent`, &toast); err != nil {
			return err.Error()
		}
		if !strings.Contains(toast, "Reconnected") || !strings.Contains(toast, "step 7") {
			return fmt.Sprintf("the toast says %q", toast)
		}
		return ""
	})
	tb.expectRegTable(r, r.warp(0, 0), "after the restart")
	tb.screenshot("reconnected")

	// Run: the per-command budget (400) pauses it with a notice; Continue
	// goes on.
	tb.button("run")
	tb.waitStatus("the budget pause", func(s status) string {
		if s.Status != "paused" || s.StatusText != "paused · budget" || s.RunLabel != "Continue" {
			return "not paused by the budget"
		}
		return ""
	})
	var notice struct {
		Hidden bool   `json:"hidden"`
		Text   string `json:"text"`
	}
	tb.eval(`(() => { const n = document.getElementById("pg-notice"); return {hidden: n.hidden, text: n.textContent}; })()`, &notice)
	if notice.Hidden || !strings.Contains(notice.Text, "continue") {
		t.Errorf("the notice is %+v", notice)
	}
	cur, _ := tb.stepOf()
	tb.button("run")
	tb.waitStatus("Continue to go on", func(s status) string {
		var n int
		fmt.Sscanf(s.Step, "step %d", &n)
		if n <= cur {
			return "did not continue"
		}
		return ""
	})
	tb.screenshot("budget")
}

// A kernel whose threads 32 and up exit while the others wait for all 64
// at the barrier: a deadlock.
const deadlockKernel = `.version 8.0
.target sm_80
.address_size 64

.visible .entry stuck(.param .u64 out)
{
	.reg .u32 %r<3>;
	.reg .pred %p;
	mov.u32 %r1, %tid.x;
	setp.ge.u32 %p, %r1, 32;
	@%p exit;
	bar.sync 0, 64;
	ret;
}
`

// TestLaunchFollowsKernel pastes other kernels over vector-add: no compile
// error, the launch is inferred from the kernel (and says so), and it runs.
// A module with two kernels gets an entry chooser.
func TestLaunchFollowsKernel(t *testing.T) {
	s := need(t)
	tb := s.newTab(t, "/?example=vector-add")
	tb.waitLoaded("vector-add.ptx")
	tb.replaceEditorText(example(t, "divergence").Source)
	tb.waitLoaded("collatz.ptx")
	tb.waitJS("the launch note", `[...document.querySelectorAll("#pg-problems .launch-fit")].some((e) => e.textContent.includes("collatz"))`)
	var summary string
	tb.eval(`document.getElementById("pg-launch-summary").textContent`, &summary)
	if !strings.Contains(summary, "2 buffers") {
		t.Errorf("the launch summary says %q", summary)
	}
	tb.screenshot("launch-follows-kernel")
	tb.button("run")
	tb.waitStatus("the pasted kernel to finish", func(s status) string {
		if s.Status != "done" {
			return "not done"
		}
		return ""
	})

	// Two kernels: the Launch tab offers both.
	two := example(t, "divergence").Source + "\n" + strings.Replace(deadlockKernel, ".version 8.0\n.target sm_80\n.address_size 64\n", "", 1)
	tb.replaceEditorText(two)
	tb.waitJS("the source-changed banner or a reload", `!document.getElementById("pg-changed").hidden || document.getElementById("pg-step").textContent === "step 0/0"`)
	if tb.status().Step != "step 0/0" {
		tb.click(`#pg-changed [data-change="fresh"]`)
	}
	tb.waitLoaded("collatz.ptx")
	tb.showTab("launch")
	var entries []string
	tb.waitFor("the entry chooser", func() string {
		if err := tb.tryEval(`[...document.querySelectorAll('#pg-tab-launch select[aria-label="Entry kernel"] option')].map((o) => o.value)`, &entries); err != nil {
			return err.Error()
		}
		if strings.Join(entries, ",") != "collatz,stuck" {
			return fmt.Sprintf("entries %v", entries)
		}
		return ""
	})
}

// TestDeadlockAndDiagnostics: a barrier deadlock keeps every stuck warp at
// its bar.sync line with all its stuck lanes marked, arrival events count
// their lanes, and a syntax error no longer hides the semantic errors of
// the rest of the module.
func TestDeadlockAndDiagnostics(t *testing.T) {
	s := need(t)
	tb := s.newTab(t, "/?example=vector-add")
	tb.waitLoaded("vector-add.ptx")
	tb.replaceEditorText(deadlockKernel)
	tb.waitLoaded("stuck.ptx")
	tb.showTab("launch")
	tb.eval(`(() => { const t = document.getElementById("pg-spec-json"); t.value = JSON.stringify({version: 1, entry: "stuck", grid: [1], block: [64], buffers: [{name: "out", type: "u32", count: 64}], params: [{buffer: "out"}]}); t.dispatchEvent(new Event("input", {bubbles: true})); return true; })()`, nil)
	tb.waitLoaded("stuck.ptx")
	tb.button("run")
	tb.waitStatus("the deadlock", func(s status) string {
		if s.Status != "fault" {
			return "no fault"
		}
		return ""
	})
	barLine := lineOf(t, deadlockKernel, "bar.sync 0, 64;")
	var row struct {
		Where  string `json:"where"`
		State  string `json:"state"`
		Faults int    `json:"faults"`
	}
	tb.waitFor("warp 0 at the barrier with its 32 stuck lanes marked", func() string {
		if err := tb.tryEval(`(() => { const r = document.querySelector('#pg-warps .warp-row[data-warp="0"]'); return {where: r.querySelector(".warp-where")?.textContent ?? "", state: r.querySelector(".warp-state")?.textContent ?? "", faults: r.querySelectorAll(".lanes .ln-fault").length}; })()`, &row); err != nil {
			return err.Error()
		}
		if !strings.HasPrefix(row.Where, fmt.Sprintf("line %d ", barLine)) || row.Faults != 32 || !strings.Contains(row.State, "barrier") {
			return fmt.Sprintf("warp 0: %+v (want line %d, 32 faulted lanes, at barrier)", row, barLine)
		}
		return ""
	})
	tb.showTab("events")
	var arrive string
	tb.eval(`[...document.querySelectorAll("#pg-tab-events .ev-barrier-arrive")].map((e) => e.textContent).join("|")`, &arrive)
	if !strings.Contains(arrive, "32 lanes") || strings.Contains(arrive, "0 lanes") {
		t.Errorf("the arrival events say %q", arrive)
	}
	tb.screenshot("deadlock")

	// A syntax error and an undeclared register elsewhere: both reported.
	broken := strings.Replace(deadlockKernel, "mov.u32 %r1, %tid.x;", "mov.u32 %r1, %tid.x;\n\tadd.u32 %r2, %r9, 1;", 1)
	broken = strings.Replace(broken, "ret;", "ret ret;", 1)
	tb.replaceEditorText(broken)
	tb.waitFor("both diagnostics", func() string {
		var msgs []string
		if err := tb.tryEval(`[...document.querySelectorAll("#pg-problems .diag-error .diag-msg")].map((e) => e.textContent)`, &msgs); err != nil {
			return err.Error()
		}
		all := strings.Join(msgs, " | ")
		if len(msgs) < 2 || !strings.Contains(all, "%r9") {
			return "problems: " + all
		}
		return ""
	})
}

// spinKernel counts to 2^32 in one thread: far longer than any test's
// per-command time limit.
const spinKernel = `.version 7.0
.target sm_70
.address_size 64

.visible .entry spin()
{
	.reg .pred %p;
	.reg .b32 %r<2>;
	mov.u32 %r1, 0;
LOOP:
	add.u32 %r1, %r1, 1;
	setp.ne.u32 %p, %r1, 0;
	@%p bra LOOP;
	ret;
}
`

// TestTimeLimitNotice: a run that reaches the server's wall-clock limit
// per command pauses with "time limit" and a notice that says so, and
// Continue goes on from there.
func TestTimeLimitNotice(t *testing.T) {
	s := need(t)
	base, stop, err := s.serve("127.0.0.1:0", sessions.Limits{MaxCommandTime: 400 * time.Millisecond, MaxWarpInstructions: 1 << 40})
	if err != nil {
		t.Fatal(err)
	}
	// Stopped after the tabs close (cleanups run last first): a page whose
	// server is gone logs its failed reconnection.
	t.Cleanup(stop)
	tb := s.newTabAt(t, base, "/?example=divergence")
	tb.waitLoaded("divergence.ptx")
	tb.replaceEditorText(spinKernel)
	tb.waitStatus("the spin kernel to load", func(s status) string {
		if s.Dirty || s.Step != "step 0/0" {
			return "not loaded"
		}
		return ""
	})
	tb.button("run")
	tb.waitStatus("the time-limit pause", func(s status) string {
		if s.Status != "paused" || s.StatusText != "paused · time limit" || s.RunLabel != "Continue" {
			return fmt.Sprintf("status %q %q", s.Status, s.StatusText)
		}
		return ""
	})
	var notice struct {
		Hidden bool   `json:"hidden"`
		Text   string `json:"text"`
	}
	tb.eval(`(() => { const n = document.getElementById("pg-notice"); return {hidden: n.hidden, text: n.textContent}; })()`, &notice)
	if notice.Hidden || !strings.Contains(notice.Text, "Stopped after 400ms") || !strings.HasSuffix(notice.Text, ".") {
		t.Errorf("the notice is %+v", notice)
	}
	cur, _ := tb.stepOf()
	if cur == 0 {
		t.Fatal("the run made no progress before its time limit")
	}
	tb.button("run")
	tb.waitStatus("Continue to go on", func(s status) string {
		var n int
		fmt.Sscanf(s.Step, "step %d", &n)
		if n <= cur || s.StatusText != "paused · time limit" {
			return fmt.Sprintf("at %s, %q", s.Step, s.StatusText)
		}
		return ""
	})
	tb.screenshot("time-limit")
}
