package browser

import (
	"fmt"
	"testing"

	"github.com/ptxplayground/ptxplay/engine/isa"
)

// swzCell is one cell of the explorer's logical grid.
type swzCell struct {
	Row    int `json:"row"`
	Chunk  int `json:"chunk"`
	PChunk int `json:"pchunk"`
	PRow   int `json:"prow"`
	Addr   int `json:"addr"`
}

// TestSwizzleExplorer: the Swizzle tab with TMA 128B on a 32-row tile of
// 128-byte rows draws every chunk where isa.Swizzle puts it, the
// column-wise check reports 4 wavefronts with all 32 lanes conflicting
// (hand-computed in engine/isa), ldmatrix none; with no swizzle the column
// check is 32-way; Swizzle<B,M,S> shows its number inputs; the view fits
// 1440×900, 1024×768 and 390×844.
func TestSwizzleExplorer(t *testing.T) {
	s := need(t)
	tb := s.newTab(t, "/?example=vector-add")
	tb.waitLoaded("vector-add.ptx")
	tb.viewport(1440, 900)
	tb.showTab("swizzle")
	set := func(name, value string) {
		tb.eval(fmt.Sprintf(`(() => { const f = document.querySelector('#pg-tab-swizzle [name=%q]'); f.value = %q; f.dispatchEvent(new Event("change", {bubbles: true})); return true; })()`, name, value), nil)
	}
	set("rows", "32")
	set("pattern", "128B")
	tb.waitJS("TMA 128B drawn", `(document.querySelector("#pg-tab-swizzle .swz-info b") || {}).textContent === "TMA 128B" && document.querySelectorAll("#pg-tab-swizzle table.swz-grid")[0].tBodies[0].rows.length === 32`)

	var cells []swzCell
	tb.eval(`[...document.querySelectorAll('#pg-tab-swizzle table.swz-grid')[0].querySelectorAll("td.swz-cell")].map((td) => ({
		row: +td.dataset.row, chunk: +td.dataset.chunk, prow: +td.dataset.prow, pchunk: +td.dataset.pchunk, addr: +td.dataset.addr,
		text: td.querySelector(".swz-pc").textContent }))`, &cells)
	if len(cells) != 32*8 {
		t.Fatalf("%d cells, want 256", len(cells))
	}
	sz := isa.Swizzle{Mode: isa.SwizzleTMA128B}
	for _, c := range cells {
		phys := sz.Apply(uint64(c.Row*128 + c.Chunk*16))
		if c.Addr != int(phys) || c.PChunk != int(phys%128)/16 || c.PRow != c.Row {
			t.Errorf("cell %d,%d: physical row %d chunk %d (%#x), want chunk %d (%#x)", c.Row, c.Chunk, c.PRow, c.PChunk, c.Addr, (phys%128)/16, phys)
		}
	}
	// A few by hand: row 3 chunk 5 → 5^3 = 6; row 7 chunk 0 → 7; row 9 chunk 2 → 2^1 = 3.
	var shown []string
	tb.eval(`[[3,5],[7,0],[9,2]].map(([r, c]) => document.querySelector('#pg-tab-swizzle table.swz-grid td[data-row="' + r + '"][data-chunk="' + c + '"] .swz-pc').textContent)`, &shown)
	if fmt.Sprint(shown) != "[6 7 3]" {
		t.Errorf("cells (3,5), (7,0), (9,2) show %v, want [6 7 3]", shown)
	}

	type card struct {
		Pattern    string `json:"pattern"`
		Wavefronts int    `json:"wavefronts"`
		Conflicts  int    `json:"conflicts"`
		Text       string `json:"text"`
	}
	cards := func() []card {
		var cs []card
		tb.eval(`[...document.querySelectorAll("#pg-tab-swizzle .swz-card")].map((c) => ({
			pattern: c.dataset.pattern, wavefronts: +c.dataset.wavefronts,
			conflicts: c.querySelectorAll(".swz-lane.conflict").length, text: c.querySelector(".swz-verdict").textContent }))`, &cs)
		return cs
	}
	got := cards()
	want := []card{{"row", 1, 0, ""}, {"column", 4, 32, ""}, {"ldmatrix", 1, 0, ""}}
	if len(got) != 3 {
		t.Fatalf("cards: %+v", got)
	}
	for i, w := range want {
		if got[i].Pattern != w.Pattern || got[i].Wavefronts != w.Wavefronts || got[i].Conflicts != w.Conflicts {
			t.Errorf("%s: %d wavefronts, %d conflicting lanes (%q); want %d, %d", w.Pattern, got[i].Wavefronts, got[i].Conflicts, got[i].Text, w.Wavefronts, w.Conflicts)
		}
	}
	// The column access is marked on the grid: chunk 0 of every row, all conflicting.
	var marked int
	tb.eval(`document.querySelectorAll('#pg-tab-swizzle table.swz-grid')[0].querySelectorAll("td.swz-conflict").length`, &marked)
	if marked != 32 {
		t.Errorf("%d grid cells marked conflicting, want 32", marked)
	}
	tb.screenshot("128B-1440")
	for _, vp := range [][2]int64{{1024, 768}, {390, 844}} {
		tb.viewport(vp[0], vp[1])
		tb.expectNoOverflow(fmt.Sprintf("swizzle %dx%d", vp[0], vp[1]))
		tb.eval(`(document.getElementById("pg-tabbtn-swizzle").scrollIntoView({block: "start"}), true)`, nil)
		tb.screenshot(fmt.Sprintf("128B-%d", vp[0]))
	}
	tb.viewport(1440, 900)

	// No swizzle: the column of 128-byte rows is one bank, 32-way.
	set("pattern", "none")
	tb.waitJS("no swizzle", `(document.querySelector('#pg-tab-swizzle .swz-card[data-pattern="column"]') || {dataset: {}}).dataset.wavefronts === "32"`)

	// Swizzle<B,M,S>: its inputs appear; <2,4,3> is the 64B mode (column: 8).
	set("pattern", "xor")
	set("b", "2")
	tb.waitJS("Swizzle<2,4,3>", `!document.querySelector("#pg-tab-swizzle .swz-bms").hidden && (document.querySelector("#pg-tab-swizzle .swz-info b") || {}).textContent === "Swizzle<2,4,3>" && document.querySelector('#pg-tab-swizzle .swz-card[data-pattern="column"]').dataset.wavefronts === "8"`)
	// A bad combination is explained, not drawn: S < B (the 400 reaches the console).
	tb.expectConsole("400 (Bad Request)")
	set("s", "1")
	tb.waitJS("the error", `document.querySelector("#pg-tab-swizzle .swz-info").classList.contains("error") && /S must be at least B/.test(document.querySelector("#pg-tab-swizzle .swz-info").textContent)`)
	tb.screenshot("xor-error")
}
