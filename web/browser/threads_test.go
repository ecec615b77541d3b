package browser

import (
	"fmt"
	"strings"
	"testing"
)

// Both paths of the branch are two instructions long: under independent
// scheduling they take turns.
const interleaveKernel = `.version 8.0
.target sm_80
.address_size 64

.visible .entry il(.param .u64 out) {
	.reg .u32 %r<5>; .reg .u64 %rd<4>; .reg .pred %p;
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, %tid.x;
	and.b32 %r2, %r1, 1;
	setp.eq.u32 %p, %r2, 0;
	@%p bra EVEN;
	mov.u32 %r3, 1;
	add.u32 %r3, %r3, 10;
	bra.uni JOIN;
EVEN:
	mov.u32 %r3, 2;
	add.u32 %r3, %r3, 20;
JOIN:
	add.u32 %r3, %r3, 100;
	mul.wide.u32 %rd2, %r1, 4;
	add.u64 %rd3, %rd1, %rd2;
	st.global.u32 [%rd3], %r3;
	ret;
}
`

// Every lane of the warp takes a global lock in a loop, increments a
// counter and releases the lock: it completes only with independent
// scheduling.
const spinLockKernel = `.version 8.0
.target sm_80
.address_size 64

.visible .entry spin(.param .u64 out) {
	.reg .u32 %r<4>; .reg .u64 %rd<4>; .reg .pred %p;
	ld.param.u64 %rd1, [out];
	add.u64 %rd2, %rd1, 4;
LOCK:
	atom.global.cas.b32 %r1, [%rd1], 0, 1;
	setp.ne.u32 %p, %r1, 0;
	@%p bra LOCK;
	ld.volatile.global.u32 %r2, [%rd2];
	add.u32 %r2, %r2, 1;
	st.volatile.global.u32 [%rd2], %r2;
	atom.global.exch.b32 %r3, [%rd1], 0;
	ret;
}
`

// setSpec replaces the launch spec through its JSON box.
func (tb *tab) setSpec(js string) {
	tb.t.Helper()
	tb.showTab("launch")
	tb.eval(fmt.Sprintf(`(() => { const t = document.getElementById("pg-spec-json"); t.value = JSON.stringify(%s); t.dispatchEvent(new Event("input", {bubbles: true})); return true; })()`, js), nil)
}

type groupRow struct {
	Lanes  string `json:"lanes"`
	State  string `json:"state"`
	Picked bool   `json:"picked"`
}

// groupRows reads the thread-group table of a container.
func (tb *tab) groupRows(sel string) ([]groupRow, string) {
	var got struct {
		Rows []groupRow `json:"rows"`
		Last string     `json:"last"`
	}
	if err := tb.tryEval(fmt.Sprintf(`(() => { const b = document.querySelector(%q); if (!b) return {rows: [], last: ""};
		return {rows: [...b.querySelectorAll(".tg-row")].map((r) => ({lanes: r.dataset.lanes, state: r.dataset.state, picked: r.classList.contains("picked")})),
			last: b.querySelector(".tg-last")?.textContent ?? ""}; })()`, sel), &got); err != nil {
		return nil, err.Error()
	}
	return got.Rows, got.Last
}

// oneWarpKernel opens the playground at 1440×900 with src, kernel entry
// (file entry.ptx) launched on one warp with a 32-word u32 buffer out,
// and shows the Divergence tab.
func oneWarpKernel(t *testing.T, src, entry string) *tab {
	t.Helper()
	s := need(t)
	tb := s.newTab(t, "/?example=vector-add")
	tb.viewport(1440, 900)
	tb.waitLoaded("vector-add.ptx")
	tb.replaceEditorText(src)
	tb.waitLoaded(entry + ".ptx")
	tb.setSpec(fmt.Sprintf(`{version: 1, entry: %q, grid: [1], block: [32], buffers: [{name: "out", type: "u32", count: 32}], params: [{buffer: "out"}]}`, entry))
	tb.waitLoaded(entry + ".ptx")
	tb.showTab("divergence")
	return tb
}

// TestThreadGroupView steps a kernel whose two paths take turns under
// independent scheduling: the Divergence tab and the warps panel show the
// warp's two thread groups with the picked one and the round-robin reason,
// a lane's hover (and tap) says why it waits, and the SIMT stack shows its
// reconvergence stack instead. Screenshots at three sizes.
func TestThreadGroupView(t *testing.T) {
	tb := oneWarpKernel(t, interleaveKernel, "il")
	// ld, mov, and, setp, bra (split), mov (even), mov (odd): the odd
	// lanes' group issued last, round-robin after lane 0's.
	for i := 1; i <= 7; i++ {
		tb.key("n")
		tb.waitStep(i, i)
	}
	tb.waitFor("two thread groups in the Divergence tab", func() string {
		rows, last := tb.groupRows("#pg-tab-divergence .tg-box")
		if len(rows) != 2 {
			return fmt.Sprintf("groups %+v", rows)
		}
		picked := ""
		for _, r := range rows {
			if r.Picked {
				picked = r.Lanes
			}
			if r.State != "runnable" {
				return fmt.Sprintf("group %s is %s, want runnable", r.Lanes, r.State)
			}
		}
		if picked != "aaaaaaaa" {
			return fmt.Sprintf("picked group %q, want the odd lanes (aaaaaaaa)", picked)
		}
		if !strings.Contains(last, "round-robin") || !strings.Contains(last, "lane 1's group follows lane 0's") {
			return "last issue: " + last
		}
		return ""
	})
	// While the Divergence tab shows the groups, the warps panel sums them
	// up in one line; with another tab open it shows the table again.
	var summary string
	tb.eval(`(() => { const p = document.querySelector("#pg-warps .sched-summary"); return p && !document.querySelector("#pg-warps .tg-box") ? p.textContent : ""; })()`, &summary)
	if !strings.Contains(summary, "CTA 0 warp 0: 2 thread groups") || !strings.Contains(summary, "Divergence tab") {
		t.Errorf("the warps panel's summary beside the Divergence tab: %q", summary)
	}
	tb.showTab("regs")
	tb.waitFor("the groups in the warps panel", func() string {
		if rows, _ := tb.groupRows("#pg-warps .tg-box"); len(rows) != 2 {
			return fmt.Sprintf("the warps panel shows %d groups, want 2", len(rows))
		}
		return ""
	})
	// The register table dims the even lanes, which wait for their turn,
	// as it dims lanes parked by divergence; the odd lanes issue next.
	var dim struct{ Class0, Class1, Color0, Color1 string }
	tb.eval(`(() => {
		const cell = (l) => document.querySelector('#pg-tab-regs td.val[data-reg="%r1"][data-lane="' + l + '"]');
		const a = cell(0), b = cell(1);
		return {Class0: a?.className ?? "", Class1: b?.className ?? "", Color0: a ? getComputedStyle(a).color : "", Color1: b ? getComputedStyle(b).color : ""};
	})()`, &dim)
	if !strings.Contains(dim.Class0, "l-turn") || strings.Contains(dim.Class1, "l-") || dim.Color0 == "" || dim.Color0 == dim.Color1 {
		t.Errorf("register cells of lane 0 (waiting for its turn) and lane 1 (issuing): %+v", dim)
	}
	tb.screenshot("regs-turns-1440")
	for _, size := range [][2]int64{{1024, 768}, {390, 844}} {
		tb.viewport(size[0], size[1])
		tb.expectNoOverflow(fmt.Sprintf("%dx%d with the registers", size[0], size[1]))
		tb.eval(`(() => { document.querySelector('#pg-tab-regs td.val[data-reg="%r1"][data-lane="0"]')?.scrollIntoView({block: "center"}); return true; })()`, nil)
		tb.screenshot(fmt.Sprintf("regs-turns-%d", size[0]))
	}
	tb.viewport(1440, 900)
	tb.showTab("divergence")
	tb.waitJS("the summary again", `!!document.querySelector("#pg-warps .sched-summary") && !document.querySelector("#pg-warps .tg-box")`)
	var turn int
	tb.eval(`document.querySelectorAll('#pg-warps .warp-row[data-warp="0"] .ln-turn').length`, &turn)
	if turn != 16 {
		t.Errorf("%d lanes of warp 0 marked as taking turns, want the 16 even lanes", turn)
	}
	// Lane 0 waits for its turn: the hover says so, a tap too.
	tb.hover(`#pg-tab-divergence .tg-lane[data-lane="0"]`)
	tb.waitJS("lane 0's reason", `(document.querySelector("#pg-tab-divergence .tg-why")?.textContent ?? "").includes("Lane 0 waits for its turn")`)
	tb.click(`#pg-tab-divergence .tg-lane[data-lane="1"]`)
	tb.waitJS("lane 1's reason", `(document.querySelector("#pg-tab-divergence .tg-why")?.textContent ?? "").includes("Lane 1 is running")`)
	var title string
	tb.eval(`document.querySelector('#pg-tab-divergence .tg-lane[data-lane="2"]').title`, &title)
	if !strings.Contains(title, "Lane 2 waits for its turn") {
		t.Errorf("lane 2's hover text %q", title)
	}
	tb.screenshot("groups-1440")
	// Two more steps: the even lanes reach the join and wait there.
	tb.key("n")
	tb.waitStep(8, 8)
	tb.key("n")
	tb.waitStep(9, 9)
	tb.waitJS("lane 0 waiting to reconverge", `(document.querySelector('#pg-tab-divergence .tg-lane[data-lane="0"]')?.title ?? "").includes("waiting to reconverge at line")`)
	for _, size := range [][2]int64{{1024, 768}, {390, 844}} {
		tb.viewport(size[0], size[1])
		tb.showTab("divergence")
		tb.expectNoOverflow(fmt.Sprintf("%dx%d with the thread groups", size[0], size[1]))
		tb.eval(`(() => { document.querySelector("#pg-tab-divergence .tg-box").scrollIntoView({block: "center"}); return true; })()`, nil)
		tb.click(`#pg-tab-divergence .tg-lane[data-lane="0"]`)
		tb.waitJS("lane 0's reason after a tap", `(document.querySelector("#pg-tab-divergence .tg-why")?.textContent ?? "").includes("Lane 0 is waiting to reconverge")`)
		tb.screenshot(fmt.Sprintf("groups-%d", size[0]))
	}
	// The same launch under the SIMT stack: the stack, not groups.
	tb.viewport(1440, 900)
	tb.click(`#pg-tab-divergence .sched-rerun`)
	tb.waitJS("the SIMT stack", `document.querySelector('#pg-tab-divergence .sched-bar')?.dataset.scheduling === "simt-stack" && !document.querySelector("#pg-tab-divergence .tg-box") && !!document.querySelector("#pg-tab-divergence .div-stack")`)
	tb.waitJS("the same results note", `(document.querySelector("#pg-tab-divergence .sched-note")?.textContent ?? "").startsWith("Same results under both models")`)
}

// TestSchedulingSwitch: the intra-warp spin lock under the SIMT stack
// (chosen in the launch panel) spends its budget; "Re-run under
// independent scheduling" completes it with the counter at 32 and the note
// says how the models differ; the switch back re-runs under the SIMT stack.
func TestSchedulingSwitch(t *testing.T) {
	s := need(t)
	tb := s.newTab(t, "/?example=vector-add")
	tb.viewport(1440, 900)
	tb.waitLoaded("vector-add.ptx")
	tb.replaceEditorText(spinLockKernel)
	tb.waitLoaded("spin.ptx")
	tb.setSpec(`{version: 1, entry: "spin", grid: [1], block: [32], maxWarpInstructions: 100000, buffers: [{name: "out", type: "u32", count: 2}], params: [{buffer: "out"}]}`)
	tb.waitLoaded("spin.ptx")
	// The launch panel's model chooser.
	tb.eval(`(() => { const s = document.querySelector('#pg-tab-launch select[aria-label="Scheduling model"]'); s.value = "simt-stack"; s.dispatchEvent(new Event("change", {bubbles: true})); return true; })()`, nil)
	tb.waitJS("the SIMT stack launch", `document.querySelector('#pg-warps .sched-bar')?.dataset.scheduling === "simt-stack"`)
	tb.button("run")
	tb.waitStatus("the budget", func(s status) string {
		if s.Status != "limit" {
			return "status " + s.Status
		}
		return ""
	})
	tb.click(`#pg-warps .sched-rerun`)
	tb.waitJS("independent scheduling", `document.querySelector('#pg-warps .sched-bar')?.dataset.scheduling === "independent"`)
	var spec string
	tb.eval(`document.getElementById("pg-spec-json").value`, &spec)
	if !strings.Contains(spec, `"scheduling": "independent"`) {
		t.Errorf("the launch spec after the re-run: %s", spec)
	}
	var note string
	tb.waitFor("the results-differ note", func() string {
		if err := tb.tryEval(`document.querySelector("#pg-warps .sched-note.differ")?.textContent ?? ""`, &note); err != nil {
			return err.Error()
		}
		if !strings.Contains(note, "Does not finish (budget spent at 100,000 warp-instructions) under the SIMT stack") ||
			!strings.Contains(note, "completes") || !strings.Contains(note, "with independent scheduling") || !strings.Contains(note, "out[1] = 32 vs 0") {
			return "note: " + note
		}
		return ""
	})
	tb.button("run")
	tb.waitStatus("done", func(s status) string {
		if s.Status != "done" {
			return "status " + s.Status
		}
		return ""
	})
	tb.screenshot("switch-1440")
	for _, size := range [][2]int64{{1024, 768}, {390, 844}} {
		tb.viewport(size[0], size[1])
		tb.expectNoOverflow(fmt.Sprintf("%dx%d with the scheduling note", size[0], size[1]))
		tb.eval(`(() => { document.querySelector("#pg-warps .sched-bar").scrollIntoView({block: "center"}); return true; })()`, nil)
		tb.screenshot(fmt.Sprintf("switch-%d", size[0]))
	}
	// And back: the note stays (the same comparison), the model changes.
	tb.viewport(1440, 900)
	tb.click(`#pg-warps .sched-rerun`)
	tb.waitJS("the SIMT stack again", `document.querySelector('#pg-warps .sched-bar')?.dataset.scheduling === "simt-stack" && !!document.querySelector("#pg-warps .sched-note.differ")`)
}

// brxKernel: a four-way switch through brx.idx on tid % 4.
const brxKernel = `.version 8.0
.target sm_80
.address_size 64

.visible .entry sw(.param .u64 out) {
	.reg .u32 %r<5>; .reg .u64 %rd<4>;
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, %tid.x;
	and.b32 %r2, %r1, 3;
	cases: .branchtargets C0, C1, C2, C3;
	brx.idx %r2, cases;
C0:	mov.u32 %r3, 10;
	bra.uni JOIN;
C1:	mov.u32 %r3, 11;
	bra.uni JOIN;
C2:	mov.u32 %r3, 12;
	bra.uni JOIN;
C3:	mov.u32 %r3, 13;
JOIN:
	mul.wide.u32 %rd2, %r1, 4;
	add.u64 %rd3, %rd1, %rd2;
	st.global.u32 [%rd3], %r3;
	ret;
}
`

// TestBrxGroups: a warp that brx.idx splits four ways shows four thread
// groups in the Divergence tab (one per target, every fourth lane each),
// and the launch ends with every thread's case; screenshots at three
// sizes.
func TestBrxGroups(t *testing.T) {
	tb := oneWarpKernel(t, brxKernel, "sw")
	// ld, mov, and, brx: four paths.
	for i := 1; i <= 4; i++ {
		tb.key("n")
		tb.waitStep(i, i)
	}
	tb.waitFor("four thread groups", func() string {
		rows, _ := tb.groupRows("#pg-tab-divergence .tg-box")
		var lanes []string
		for _, r := range rows {
			lanes = append(lanes, r.Lanes)
		}
		if got := strings.Join(lanes, " "); len(rows) != 4 || !strings.Contains(got, "11111111") || !strings.Contains(got, "22222222") ||
			!strings.Contains(got, "44444444") || !strings.Contains(got, "88888888") {
			return fmt.Sprintf("groups %+v", rows)
		}
		return ""
	})
	for _, size := range [][2]int64{{1440, 900}, {1024, 768}, {390, 844}} {
		tb.viewport(size[0], size[1])
		tb.expectNoOverflow(fmt.Sprintf("%dx%d with four groups", size[0], size[1]))
		tb.screenshot(fmt.Sprintf("brx-%d", size[0]))
	}
	tb.viewport(1440, 900)
	tb.button("run")
	tb.waitStatus("the launch to finish", func(s status) string {
		if s.Status != "done" {
			return "status " + s.Status
		}
		return ""
	})
	out := tb.bufferWords("out", 32)
	for i, v := range out {
		if v != uint32(10+i%4) {
			t.Fatalf("out = %v, want 10, 11, 12, 13 repeated", out)
		}
	}
}
