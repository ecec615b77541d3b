package browser

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ptxplayground/ptxplay/engine/emu"
)

// lastObserver keeps the machine's last executed instruction.
type lastObserver struct {
	pc, warp int
}

func (o *lastObserver) Step(in *emu.StepInfo) { o.pc, o.warp = in.PC, in.Warp }

// stepRefTo steps the reference until warp executed line (n-th time it
// does), returning the warp-instruction count.
func stepRefTo(t *testing.T, r *ref, line, warp, n int) int {
	t.Helper()
	var o lastObserver
	r.m.SetObserver(&o)
	defer r.m.SetObserver(nil)
	for i := 0; i < 10000; i++ {
		if r.m.Step(emu.StepWarpInstruction) != emu.StopStepped {
			t.Fatalf("the reference stopped before warp %d reached line %d", warp, line)
		}
		if o.warp == warp && r.line(o.pc) == line {
			if n--; n == 0 {
				return int(r.m.Stats().WarpInstructions)
			}
		}
	}
	t.Fatalf("warp %d never reached line %d", warp, line)
	return 0
}

// TestPendingCopiesPanel: the cp-async example stepped to just after the
// prologue's commit: the warps panel says warp 0 has 1 group in flight (32
// copies, 512 B), the selected warp's table lists the group (committed,
// issued by the cp.async line), and the memory view marks the 512 bytes
// of buffer 0 the copies will write, with a hover that names the line.
// The copies land at the wait: the marks go.
func TestPendingCopiesPanel(t *testing.T) {
	s := need(t)
	e := example(t, "cp-async")
	r := exampleRef(t, "cp-async")
	cpLine := lineOf(t, e.Source, "cp.async.cg.shared.global [%r6]")
	commit := lineOf(t, e.Source, "cp.async.commit_group;")
	wi := stepRefTo(t, r, commit, 0, 1)
	want := r.warp(0, 0).PendingCopies()
	if len(want) != 32 {
		t.Fatalf("the reference has %d copies in flight", len(want))
	}

	tb := s.newTab(t, "/?example=cp-async")
	tb.waitLoaded("cp-async.ptx")
	tb.viewport(1440, 900)
	tb.setCount(wi)
	tb.button("step-warp")
	tb.waitStep(wi, wi)
	tb.waitJS("warp 0's copies in flight", `(document.querySelector('#pg-warps .warp-row[data-warp="0"] .warp-async') || {}).textContent === "1 group in flight (32 copies, 512 B)"`)
	// Warp 1 has issued its copies (the scheduler alternates) but not
	// committed them: one open group.
	w1want := ""
	pendingBytes := 512
	if n := len(r.warp(0, 1).PendingCopies()); n > 0 {
		w1want = fmt.Sprintf("1 open group, not committed (%d copies, %d B)", n, 16*n)
		pendingBytes += 16 * n
	}
	var w1 string
	tb.eval(`document.querySelector('#pg-warps .warp-row[data-warp="1"] .warp-async').textContent`, &w1)
	if w1 != w1want {
		t.Errorf("warp 1 shows %q, want %q", w1, w1want)
	}
	type groupRow struct {
		Group     string `json:"group"`
		Committed string `json:"committed"`
		Text      string `json:"text"`
	}
	var rows []groupRow
	tb.eval(`[...document.querySelectorAll("#pg-warps .async-table tbody tr")].map((tr) => ({group: tr.dataset.group, committed: tr.dataset.committed, text: tr.textContent}))`, &rows)
	if len(rows) != 1 || rows[0].Group != "0" || rows[0].Committed != "1" || !strings.Contains(rows[0].Text, "committed") ||
		!strings.Contains(rows[0].Text, fmt.Sprintf("line %d", cpLine)) || !strings.Contains(rows[0].Text, "shared 0…511") {
		t.Errorf("the selected warp's groups: %+v", rows)
	}
	tb.screenshot("warps-1440")

	// The memory view marks the bytes of buffer 0 the copies will write
	// (4-byte floats).
	tb.showTab("memory")
	tb.waitJS("the shared-memory tab", `!!document.querySelector('#pg-tab-memory [data-key="shared"]')`)
	tb.click(`#pg-tab-memory [data-key="shared"]`)
	tb.waitJS("pending cells", fmt.Sprintf(`document.querySelectorAll("#pg-tab-memory td.t-pending").length === %d`, pendingBytes/4))
	var firstPending struct {
		Where string `json:"where"`
		Text  string `json:"text"`
	}
	tb.hover("#pg-tab-memory td.t-pending")
	tb.eval(`(() => { const td = document.querySelector("#pg-tab-memory td.t-pending"); return {where: td.dataset.where, text: td.title}; })()`, &firstPending)
	if !strings.Contains(firstPending.Where, "byte 0") || !strings.Contains(firstPending.Text, fmt.Sprintf("pending cp.async from line %d", cpLine)) {
		t.Errorf("the first pending cell: %+v", firstPending)
	}
	tb.screenshot("memory-1440")
	for _, vp := range [][2]int64{{1024, 768}, {390, 844}} {
		tb.viewport(vp[0], vp[1])
		tb.expectNoOverflow(fmt.Sprintf("pending copies %dx%d", vp[0], vp[1]))
		tb.screenshot(fmt.Sprintf("memory-%d", vp[0]))
		tb.eval(`(document.getElementById("pg-warps").scrollIntoView({block: "start"}), true)`, nil)
		tb.screenshot(fmt.Sprintf("warps-%d", vp[0]))
	}
	tb.viewport(1440, 900)

	// Step to warp 0's first wait_group: tile 0 lands (the marks on buffer 0
	// go), the prefetch of tile 1 into buffer 1 stays in flight.
	wait := lineOf(t, e.Source, "cp.async.wait_group 1;")
	wi2 := stepRefTo(t, r, wait, 0, 1)
	tb.setCount(wi2 - wi)
	tb.button("step-warp")
	tb.waitStep(wi2, wi2)
	total := 0
	for w := 0; w < 2; w++ {
		for _, c := range r.warp(0, w).PendingCopies() {
			total += c.Size
		}
	}
	tb.waitJS("tile 0 of warp 0 landed", fmt.Sprintf(`(() => { const c = [...document.querySelectorAll("#pg-tab-memory td.t-pending")]; return c.length === %d && c.every((td) => +/byte (\d+)/.exec(td.dataset.where)[1] >= 512); })()`, total/4))
	tb.waitJS("warp 0's prefetch group", `(document.querySelector('#pg-warps .warp-row[data-warp="0"] .warp-async') || {}).textContent === "1 group in flight (32 copies, 512 B)" && document.querySelector("#pg-warps .async-table tbody tr").dataset.group === "1"`)
}

// TestSwizzleLive: the transpose example's swizzled kernel paused after
// warp 1's column read (lane t reads word t*32 + (1 ^ t)): the Swizzle tab
// selects Swizzle<5,2,5> on a 32-row tile of 128-byte rows in 4-byte
// cells (the access's words), draws lane t at logical (row t, word 1) and
// at physical word 1^t of row t, and
// says one wavefront where the unswizzled column needs 32. A share link
// reopens the tab as it was; a pattern chosen by hand leaves live and is
// kept by the link too.
func TestSwizzleLive(t *testing.T) {
	s := need(t)
	e := example(t, "transpose-swizzled")
	r := exampleRef(t, "transpose-swizzled")
	read := lineOf(t, e.Source, "ld.shared.f32 %f1, [%r12];          // bank col ^ tx")
	wi := stepRefTo(t, r, read, 1, 1)

	tb := s.newTab(t, "/?example=transpose-swizzled")
	tb.waitLoaded("transpose-swizzled.ptx")
	tb.viewport(1440, 900)
	tb.setCount(wi)
	tb.button("step-warp")
	tb.waitStep(wi, wi)
	tb.showTab("swizzle")
	tb.waitJS("the live pattern", `/Swizzle<5,2,5>/.test(document.querySelector("#pg-tab-swizzle .swz-live-bar").textContent) && (document.querySelector("#pg-tab-swizzle .swz-info b") || {}).textContent === "Swizzle<5,2,5>" && document.querySelectorAll("#pg-tab-swizzle td.swz-live").length === 64`)
	var form map[string]string
	tb.eval(`Object.fromEntries(["pattern", "b", "m", "s", "rowBytes", "rows", "base", "unit"].map((k) => [k, document.querySelector('#pg-tab-swizzle [name="' + k + '"]').value]))`, &form)
	if fmt.Sprint(form) != "map[b:5 base:0 m:2 pattern:xor rowBytes:128 rows:32 s:5 unit:4]" {
		t.Errorf("the explorer's settings: %v", form)
	}
	type liveCell struct {
		Row   int    `json:"row"`
		Chunk int    `json:"chunk"`
		Lanes string `json:"lanes"`
	}
	cells := func(grid int) []liveCell {
		var cs []liveCell
		tb.eval(fmt.Sprintf(`[...document.querySelectorAll("#pg-tab-swizzle table.swz-grid")[%d].querySelectorAll("td.swz-live")].map((td) => ({row: +td.dataset.row, chunk: +td.dataset.chunk, lanes: td.dataset.lanes}))`, grid), &cs)
		return cs
	}
	logical, physical := cells(0), cells(1)
	if len(logical) != 32 || len(physical) != 32 {
		t.Fatalf("%d logical and %d physical live cells, want 32 each", len(logical), len(physical))
	}
	for _, c := range logical {
		if c.Chunk != 1 || c.Lanes != fmt.Sprint(c.Row) {
			t.Errorf("logical cell (%d, %d) holds lanes %s, want lane %d at word 1", c.Row, c.Chunk, c.Lanes, c.Row)
		}
	}
	for _, c := range physical {
		if c.Lanes != fmt.Sprint(c.Row) || c.Chunk != 1^c.Row {
			t.Errorf("physical cell (%d, %d) holds lanes %s, want lane %d at word %d", c.Row, c.Chunk, c.Lanes, c.Row, 1^c.Row)
		}
	}
	var bar string
	tb.eval(`document.querySelector("#pg-tab-swizzle .swz-live-bar").textContent`, &bar)
	if !strings.Contains(bar, "1 wavefront, no conflict") || !strings.Contains(bar, "without the swizzle 32") || !strings.Contains(bar, fmt.Sprintf("line %d", read)) {
		t.Errorf("live bar %q", bar)
	}
	tb.screenshot("live-1440")
	for _, vp := range [][2]int64{{1024, 768}, {390, 844}} {
		tb.viewport(vp[0], vp[1])
		tb.expectNoOverflow(fmt.Sprintf("live swizzle %dx%d", vp[0], vp[1]))
		tb.eval(`(document.getElementById("pg-tabbtn-swizzle").scrollIntoView({block: "start"}), true)`, nil)
		tb.screenshot(fmt.Sprintf("live-%d", vp[0]))
	}
	tb.viewport(1440, 900)

	// The link reopens the live view at the same step.
	url := tb.shareVia("Swizzled transpose, live", true, false)
	other := s.newTab(t, strings.TrimPrefix(url, s.base))
	other.wake()
	other.waitStep(wi, wi)
	other.waitJS("the live view from the link", `!document.getElementById("pg-tab-swizzle").hidden && (document.querySelector("#pg-tab-swizzle .swz-info b") || {}).textContent === "Swizzle<5,2,5>" && document.querySelectorAll("#pg-tab-swizzle td.swz-live").length === 64`)

	// A pattern chosen by hand leaves live; the link keeps it, its
	// parameters and the access check marked on the grid.
	tb.eval(`(() => { const f = document.querySelector('#pg-tab-swizzle [name="pattern"]'); f.value = "128B/32B"; f.dispatchEvent(new Event("change", {bubbles: true})); return true; })()`, nil)
	tb.waitJS("TMA 128B, 32B atom", `(document.querySelector("#pg-tab-swizzle .swz-info b") || {}).textContent === "TMA 128B, 32B atomicity" && !document.querySelector('#pg-tab-swizzle [name="live"]').checked && !document.querySelector("#pg-tab-swizzle td.swz-live")`)
	tb.click(`#pg-tab-swizzle .swz-card[data-pattern="ldmatrix"] header button`)
	tb.waitJS("the ldmatrix check marked", `document.querySelector('#pg-tab-swizzle .swz-card[data-pattern="ldmatrix"]').classList.contains("on")`)
	url2 := tb.shareVia("", true, false)
	if url2 == url {
		t.Fatal("the explorer's settings did not change the link")
	}
	third := s.newTab(t, strings.TrimPrefix(url2, s.base))
	third.wake()
	third.waitStep(wi, wi)
	third.waitJS("the explorer as it was", `!document.getElementById("pg-tab-swizzle").hidden && (document.querySelector("#pg-tab-swizzle .swz-info b") || {}).textContent === "TMA 128B, 32B atomicity" && !document.querySelector('#pg-tab-swizzle [name="live"]').checked && document.querySelector('#pg-tab-swizzle .swz-card[data-pattern="ldmatrix"]').classList.contains("on") && document.querySelector('#pg-tab-swizzle [name="rows"]').value === "32"`)
	third.screenshot("from-link")
}
