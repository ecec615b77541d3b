package browser

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
)

// The scheduling lessons walked as a student walks them: opened from the
// Examples page, hint by hint, with what each hint points at checked in
// the page, then the model switch and its note.

// openLesson opens an example from the Examples page and waits for its
// lesson strip; it returns the number of hints.
func (tb *tab) openLesson(name string) int {
	tb.t.Helper()
	tb.navigate("/gallery")
	tb.click(fmt.Sprintf(`#example-%s a.open`, name))
	tb.waitLoaded(name + ".ptx")
	tb.waitJS("the lesson strip", `!document.getElementById("pg-lesson").hidden && document.querySelectorAll("#pg-lesson .lesson-hint").length > 0`)
	var n int
	tb.eval(`document.querySelectorAll("#pg-lesson .lesson-hint").length`, &n)
	return n
}

// followHint clicks hint i of the lesson strip and waits for its line and
// panel (a tab of the inspector).
func (tb *tab) followHint(i int) (line int, panel string) {
	tb.t.Helper()
	var h struct {
		Line  string `json:"line"`
		Panel string `json:"panel"`
	}
	tb.eval(fmt.Sprintf(`(() => { const b = document.querySelector('#pg-lesson .lesson-hint[data-hint="%d"]'); return {line: b.dataset.line, panel: b.dataset.panel}; })()`, i), &h)
	tb.click(fmt.Sprintf(`#pg-lesson .lesson-hint[data-hint="%d"]`, i))
	tb.waitJS(fmt.Sprintf("hint %d's line %s", i, h.Line), fmt.Sprintf(`document.querySelector(".cm-lineNumbers .cm-activeLineGutter")?.textContent.trim() === %q`, h.Line))
	if h.Panel != "warps" && h.Panel != "editor" {
		tb.waitJS(fmt.Sprintf("hint %d's panel %s", i, h.Panel), fmt.Sprintf(`document.querySelector('[data-tab].on')?.dataset.tab === %q && !document.getElementById("pg-tab-%s").hidden`, h.Panel, h.Panel))
	}
	line, _ = strconv.Atoi(h.Line)
	return line, h.Panel
}

// hintText returns the text of hint i.
func (tb *tab) hintText(i int) string {
	tb.t.Helper()
	var s string
	tb.eval(fmt.Sprintf(`document.querySelector('#pg-lesson .lesson-hint[data-hint="%d"]').parentElement.textContent`, i), &s)
	return s
}

// stepTo steps the selected warp one instruction at a time from step
// from to step to.
func (tb *tab) stepTo(from, to int) {
	tb.t.Helper()
	tb.blurFocus()
	for i := from + 1; i <= to; i++ {
		tb.key("n")
		tb.waitStep(i, i)
	}
}

// bufferWords reads a global buffer of 32-bit elements from the Memory
// tab, once every cell is known.
func (tb *tab) bufferWords(name string, n int) []uint32 {
	tb.t.Helper()
	tb.showTab("memory")
	tb.click(fmt.Sprintf(`#pg-tab-memory .mem-tab[data-key="global:%s"]`, name))
	var out []uint32
	tb.waitFor("buffer "+name, func() string {
		var cells []memCell
		if err := tb.tryEval(memCellsJS, &cells); err != nil {
			return err.Error()
		}
		if len(cells) < n {
			return fmt.Sprintf("%d cells", len(cells))
		}
		out = out[:0]
		for i, c := range cells[:n] {
			if c.Hex == nil {
				return fmt.Sprintf("%s[%d] not known yet", name, i)
			}
			v, err := strconv.ParseUint(*c.Hex, 16, 32)
			if err != nil {
				return err.Error()
			}
			out = append(out, uint32(v))
		}
		return ""
	})
	return out
}

// laneWhy taps a lane of the "why each lane waits" strip in the Divergence
// tab and returns what the strip says and the lane's reason.
func (tb *tab) laneWhy(lane int) (text, reason string) {
	tb.t.Helper()
	sel := fmt.Sprintf(`#pg-tab-divergence .tg-lane[data-lane="%d"]`, lane)
	tb.eval(fmt.Sprintf(`(() => { document.querySelector(%q).scrollIntoView({block: "nearest"}); return true; })()`, sel), nil)
	tb.click(sel)
	var got struct {
		Text   string `json:"text"`
		Reason string `json:"reason"`
	}
	tb.eval(fmt.Sprintf(`({text: document.querySelector("#pg-tab-divergence .tg-why")?.textContent ?? "", reason: document.querySelector(%q)?.dataset.reason ?? ""})`, sel), &got)
	return got.Text, got.Reason
}

// TestLessonSpinLock: the spin-lock lesson from the Examples page. Under
// independent scheduling lane 0 (the lock's first owner) waits to
// reconverge with a count of instructions left while lanes 1–31 spin; the
// run ends with counter 32 and lock 0. "Re-run under the SIMT stack" parks
// lane 0 below the spinning lanes, whose reason says it cannot go on; the
// run stops at the budget with the counter at 0, and the note says the
// results differ and names the livelock.
func TestLessonSpinLock(t *testing.T) {
	s := need(t)
	tb := s.newTab(t, "/")
	tb.viewport(1440, 900)
	if n := tb.openLesson("spin-lock"); n != 5 {
		t.Fatalf("the spin-lock lesson shows %d hints, want 5", n)
	}
	// Hint 1: atom.cas (Memory). Hint 2: the split (Divergence).
	tb.followHint(0)
	if line, panel := tb.followHint(1); line != 37 || panel != "divergence" {
		t.Fatalf("hint 2 opens line %d, panel %s", line, panel)
	}
	if h := tb.hintText(1); !strings.Contains(h, `"waiting to reconverge"`) || !strings.Contains(h, "why each lane waits") {
		t.Errorf("hint 2 does not name what the Divergence tab shows: %q", h)
	}
	// ld, ld, atom.cas, setp, bra (the split), then the spinning group.
	tb.stepTo(0, 8)
	var got struct {
		Groups []struct {
			Lanes, State string
			Left         string
		}
		Last string
	}
	tb.waitFor("lane 0 waiting to reconverge, lanes 1–31 spinning", func() string {
		if err := tb.tryEval(`(() => ({groups: [...document.querySelectorAll("#pg-tab-divergence .tg-row")].map((r) => ({Lanes: r.dataset.lanes, State: r.dataset.state, Left: r.querySelector(".tg-state").textContent})),
			last: document.querySelector("#pg-tab-divergence .tg-last")?.textContent ?? ""}))()`, &got); err != nil {
			return err.Error()
		}
		if len(got.Groups) != 2 || got.Groups[0].Lanes != "1" || got.Groups[0].State != "waiting" || got.Groups[1].Lanes != "fffffffe" || got.Groups[1].State != "runnable" {
			return fmt.Sprintf("groups %+v", got.Groups)
		}
		return ""
	})
	var left int
	if _, err := fmt.Sscanf(got.Groups[0].Left[strings.Index(got.Groups[0].Left, "·")+len("·"):], " %d left", &left); err != nil || left <= 0 || left > 256 {
		t.Errorf("lane 0's group: %q, want a count of instructions left (at most 256)", got.Groups[0].Left)
	}
	why, reason := tb.laneWhy(0)
	if reason != "reconvergence" || !strings.Contains(why, "Lane 0 is waiting to reconverge at line 40") || !strings.Contains(why, "before it goes on alone") {
		t.Errorf("lane 0 (%s): %q", reason, why)
	}
	if why, reason := tb.laneWhy(5); reason != "running" || !strings.Contains(why, "Lane 5 is running") {
		t.Errorf("lane 5 (%s): %q", reason, why)
	}
	tb.screenshot("independent-split")
	// Hints 3 and 4, then the run to the end: every lane took the lock once.
	tb.followHint(2)
	tb.followHint(3)
	tb.button("run")
	tb.waitStatus("the launch to complete", func(s status) string {
		if s.Status != "done" {
			return "status " + s.Status
		}
		return ""
	})
	if c := tb.bufferWords("counter", 1); c[0] != 32 {
		t.Errorf("counter = %d after the run, want 32", c[0])
	}
	if l := tb.bufferWords("lock", 1); l[0] != 0 {
		t.Errorf("lock = %d after the run, want 0 (released)", l[0])
	}
	tb.screenshot("independent-done")

	// Hint 5: re-run under the SIMT stack, from the Divergence tab.
	if line, panel := tb.followHint(4); line != 37 || panel != "divergence" {
		t.Fatalf("hint 5 opens line %d, panel %s", line, panel)
	}
	if h := tb.hintText(4); !strings.Contains(h, `"Re-run under the SIMT stack"`) || !strings.Contains(h, "Likely a livelock") {
		t.Errorf("hint 5 does not name the switch and the note: %q", h)
	}
	tb.click(`#pg-tab-divergence .sched-rerun`)
	tb.waitJS("the SIMT stack", `document.querySelector('#pg-tab-divergence .sched-bar')?.dataset.scheduling === "simt-stack" && !!document.querySelector("#pg-tab-divergence .div-stack")`)
	tb.waitLoaded("spin-lock.ptx")
	tb.waitJS("the lesson strip after the re-run", `!document.getElementById("pg-lesson").hidden`)
	var note string
	tb.waitFor("the results-differ note", func() string {
		if err := tb.tryEval(`document.querySelector("#pg-tab-divergence .sched-note.differ")?.textContent ?? ""`, &note); err != nil {
			return err.Error()
		}
		for _, want := range []string{"Does not finish (budget spent at 100,000 warp-instructions) under the SIMT stack", "completes", "with independent scheduling",
			"Likely a livelock", "counter[0] = 32 vs 0", "lock[0] = 0 vs 1", "counter: 1 element differs"} {
			if !strings.Contains(note, want) {
				return fmt.Sprintf("no %q in the note %q", want, note)
			}
		}
		return ""
	})
	// The warps panel sums it up beside the Divergence tab.
	var summary string
	tb.eval(`document.querySelector("#pg-warps .sched-summary")?.textContent ?? ""`, &summary)
	if !strings.Contains(summary, "SIMT stack") || !strings.Contains(summary, "the models' results differ") {
		t.Errorf("the warps panel's summary: %q", summary)
	}
	tb.stepTo(0, 8)
	// The stack parks lane 0 at line 40 below the spinning lanes.
	tb.waitJS("the stack", `[...document.querySelectorAll("#pg-tab-divergence .div-stack-list li")].map((li) => li.textContent).join(" | ").startsWith("2 line 35 until line 40 · 31 lanes | 1 line 40 until line 40 · 1 lane | 0 line 40 until exit")`)
	why, reason = tb.laneWhy(0)
	if reason != "reconvergence" || !strings.Contains(why, "Lane 0 has reached its reconvergence point line 40") || !strings.Contains(why, "waits there for lanes 1–31") || !strings.Contains(why, "cannot go on before they arrive") {
		t.Errorf("lane 0 under the SIMT stack (%s): %q", reason, why)
	}
	if why, reason := tb.laneWhy(7); reason != "running" || !strings.Contains(why, "top entry of the SIMT stack") {
		t.Errorf("lane 7 under the SIMT stack (%s): %q", reason, why)
	}
	// The selected warp's lane titles in the warps panel say the same.
	var title string
	tb.eval(`document.querySelector('#pg-warps .warp-row[data-warp="0"] .ln[data-lane="0"]').title`, &title)
	if !strings.Contains(title, "Lane 0 has reached its reconvergence point line 40") {
		t.Errorf("lane 0's title in the warps panel: %q", title)
	}
	tb.screenshot("simt-stack-split")
	tb.button("run")
	tb.waitStatus("the budget", func(s status) string {
		if s.Status != "limit" {
			return "status " + s.Status
		}
		return ""
	})
	if c := tb.bufferWords("counter", 1); c[0] != 0 {
		t.Errorf("counter = %d at the budget under the SIMT stack, want 0", c[0])
	}
	if l := tb.bufferWords("lock", 1); l[0] != 1 {
		t.Errorf("lock = %d at the budget under the SIMT stack, want 1 (held)", l[0])
	}
	tb.showTab("divergence")
	tb.screenshot("simt-stack-budget")
	for _, size := range [][2]int64{{1024, 768}, {390, 844}} {
		tb.viewport(size[0], size[1])
		tb.expectNoOverflow(fmt.Sprintf("%dx%d, the spin lock under the SIMT stack", size[0], size[1]))
		tb.eval(`(() => { document.querySelector("#pg-tab-divergence .sched-note").scrollIntoView({block: "start"}); return true; })()`, nil)
		tb.screenshot(fmt.Sprintf("simt-stack-%d", size[0]))
	}
}

// TestLessonSyncwarp: the syncwarp lesson. The lower half reaches its
// bar.warp.sync first and waits there for lanes 16–31 ("sync-wait", and
// its lanes say so) while the upper half issues alone; then both groups
// execute their bar.warp.sync together, and the kernel swaps the halves'
// values. Under the SIMT stack the lanes' reasons come from the stack, and
// the note says out differs.
func TestLessonSyncwarp(t *testing.T) {
	s := need(t)
	tb := s.newTab(t, "/")
	tb.viewport(1440, 900)
	if n := tb.openLesson("syncwarp"); n != 4 {
		t.Fatalf("the syncwarp lesson shows %d hints, want 4", n)
	}
	tb.followHint(0)
	tb.followHint(1)
	if line, panel := tb.followHint(2); line != 54 || panel != "divergence" {
		t.Fatalf("hint 3 opens line %d, panel %s", line, panel)
	}
	// 12 instructions to the split, then the halves take turns: shl (lower),
	// mul (upper), st (lower), and the lower half is at its bar.warp.sync.
	tb.stepTo(0, 15)
	type row struct{ Lanes, State, Text string }
	var rows []row
	tb.waitFor("the lower half waiting at bar.warp.sync", func() string {
		if err := tb.tryEval(`[...document.querySelectorAll("#pg-tab-divergence .tg-row")].map((r) => ({Lanes: r.dataset.lanes, State: r.dataset.state, Text: r.textContent}))`, &rows); err != nil {
			return err.Error()
		}
		for _, r := range rows {
			if r.Lanes == "ffff" && r.State == "sync-wait" && strings.Contains(r.Text, "line 54") && strings.Contains(r.Text, "waiting at a warp-synchronous instruction for lanes 16–31") {
				return ""
			}
		}
		return fmt.Sprintf("groups %+v", rows)
	})
	why, reason := tb.laneWhy(3)
	if reason != "sync" || !strings.Contains(why, "Lane 3 is waiting at the warp-synchronous instruction at line 54 for lanes 16–31") {
		t.Errorf("lane 3 (%s): %q", reason, why)
	}
	tb.screenshot("sync-wait")
	// The upper half issues alone (its st.shared), reaches line 61, and the
	// two groups execute bar.warp.sync together.
	tb.stepTo(15, 16)
	tb.waitJS("the upper half issuing alone", `(document.querySelector("#pg-tab-divergence .tg-last")?.textContent ?? "").startsWith("Last issue: lanes 16–31 at line 60 — the only runnable group")`)
	tb.stepTo(16, 17)
	tb.waitJS("both halves executing bar.warp.sync", `(document.querySelector("#pg-tab-divergence .tg-last")?.textContent ?? "").startsWith("Last issue: lanes 0–31 at line 54 — the groups that waited for each other there executed it together")`)
	tb.followHint(3)
	tb.button("run")
	tb.waitStatus("the launch to complete", func(s status) string {
		if s.Status != "done" {
			return "status " + s.Status
		}
		return ""
	})
	out := tb.bufferWords("out", 32)
	for i, v := range out {
		want := uint32(3 * (i + 17))
		if i >= 16 {
			want = uint32(2 * (i - 15))
		}
		if v != want {
			t.Errorf("out[%d] = %d, want %d", i, v, want)
		}
	}
	// Under the SIMT stack: the stack's reasons, and the note.
	tb.showTab("divergence")
	tb.click(`#pg-tab-divergence .sched-rerun`)
	tb.waitJS("the SIMT stack", `document.querySelector('#pg-tab-divergence .sched-bar')?.dataset.scheduling === "simt-stack"`)
	tb.waitLoaded("syncwarp.ptx")
	tb.waitJS("the note", `(document.querySelector("#pg-tab-divergence .sched-note.differ")?.textContent ?? "").includes("out: 16 elements differ")`)
	tb.stepTo(0, 15)
	why, reason = tb.laneWhy(3)
	if reason != "suspended" || !strings.Contains(why, "Lane 3 is suspended below the top of the SIMT stack") || !strings.Contains(why, "continues at line 52 once lanes 16–31 above it reach line 65") {
		t.Errorf("lane 3 under the SIMT stack (%s): %q", reason, why)
	}
	tb.screenshot("simt-stack")
}
