package browser

import (
	"encoding/json"
	"strings"
	"testing"
)

// tmaSrc: thread 0 loads the 64x8 box at (32, 60) of a 64x64 f16 tensor
// with the 128-byte swizzle (half of each row and the last four rows out
// of bounds) and the CTA waits for it on an mbarrier.
const tmaSrc = `.version 8.0
.target sm_90
.address_size 64

.visible .entry tmabox(.param .u64 tmptr) {
	.reg .u32 %r<8>; .reg .u64 %rd<4>; .reg .pred %p<4>;
	.shared .align 1024 .b8 tile[1024];
	.shared .align 8 .b64 full;
	ld.param.u64 %rd1, [tmptr];
	mov.u32 %r1, %tid.x;
	setp.ne.u32 %p1, %r1, 0;
	@%p1 bra WAIT;
	mbarrier.init.shared.b64 [full], 1;
	mov.u32 %r2, 32;
	mov.u32 %r3, 60;
	mbarrier.arrive.expect_tx.shared.b64 %rd2, [full], 1024;
	cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [tile], [%rd1, {%r2, %r3}], [full];
WAIT:
	bar.sync 0;
LOOP:
	mbarrier.try_wait.parity.shared.b64 %p2, [full], 0;
	@!%p2 bra LOOP;
	ret;
}
`

// TestTMAView: the TMA tab shows the copy the warp runs next (its tensor
// map, the box with its 384 out-of-bounds elements hatched, the shared
// tile drawn with the swizzle explorer's grids) and, once it ran, the
// CTA's last copy; "Show in Banks" opens the bank grid. Screenshots at
// 1440×900, 1024×768 presenter and 390×844.
func TestTMAView(t *testing.T) {
	s := need(t)
	tm := map[string]any{"buffer": "a", "dataType": "f16", "globalDim": []int{64, 64}, "globalStrides": []int{128}, "boxDim": []int{64, 8},
		"elementStrides": []int{1, 1}, "interleave": "none", "swizzle": "128B", "oobFill": "zero"}
	snap := map[string]any{
		"title":  "TMA box",
		"source": tmaSrc,
		"spec": map[string]any{"grid": []int{1}, "block": []int{32},
			"buffers": []any{map[string]any{"name": "a", "type": "f16", "count": 4096, "init": map[string]any{"iota": map[string]any{}}}},
			"params":  []any{map[string]any{"tensorMap": tm}}},
		"id": "AAAAAAAAAAAA",
	}
	data, err := json.Marshal(snap)
	if err != nil {
		t.Fatal(err)
	}
	tb := s.newTab(t, "/"+linkFragment(t, data))
	tb.wake()
	tb.waitLoaded("tmabox.ptx")
	tb.viewport(1440, 900)
	tb.click("#pg-tabbtn-tma")
	tb.waitJS("the TMA tab", `!document.getElementById("pg-tab-tma").hidden && document.getElementById("pg-tab-tma").textContent.includes("No tensor copy yet")`)
	ok := false
	for range 20 {
		cur, _ := tb.stepOf()
		tb.button("step-warp")
		tb.waitStep(cur+1, cur+1)
		var got bool
		tb.eval(`!!document.querySelector('.tma-src[data-source="next"]')`, &got)
		if got {
			ok = true
			break
		}
	}
	if !ok {
		var text string
		tb.eval(`document.getElementById("pg-tab-tma").textContent`, &text)
		t.Fatalf("the TMA tab never showed the next copy: %q", text)
	}
	tb.waitJS("the shared tile", `document.querySelectorAll("#pg-tab-tma .swz-grid").length === 2`)
	var facts struct {
		OOB, Cells, Fill int
		Text             string
	}
	tb.eval(`(() => { const p = document.getElementById("pg-tab-tma"); return {OOB: p.querySelectorAll(".tma-box td.tma-oob").length, Cells: p.querySelectorAll(".tma-box td").length,
		Fill: p.querySelectorAll(".swz-grid td.tma-oob").length, Text: p.textContent}; })()`, &facts)
	if facts.Cells != 512 || facts.OOB != 384 || facts.Fill != 2*48 {
		t.Errorf("box cells %d, out of bounds %d, fill chunks on the grids %d (want 512, 384, 96)", facts.Cells, facts.OOB, facts.Fill)
	}
	for _, want := range []string{"384 out of bounds", "1,024 bytes", "swizzle128B (atom 16B)", "globalDim[64, 64]", "load: global → shared::cluster", "coords (32, 60)", "y=67", "mbarrier::complete_tx::bytes"} {
		if !strings.Contains(facts.Text, want) {
			t.Errorf("the TMA tab does not say %q: %q", want, facts.Text)
		}
	}
	tb.atEverySize("TMA view", "tma")
	// On a phone the inspectors are below the editor: the panel itself,
	// scrolled to, box and tile included, must not overflow.
	tb.viewport(390, 844)
	tb.eval(`(() => { document.querySelector("#pg-tab-tma .tma-global").scrollIntoView(); return true; })()`, nil)
	tb.expectNoOverflow("TMA view box 390x844")
	tb.screenshot("tma-box-390")
	tb.eval(`(() => { document.querySelector("#pg-tab-tma .tma-tile").scrollIntoView(); return true; })()`, nil)
	tb.expectNoOverflow("TMA view tile 390x844")
	tb.screenshot("tma-tile-390")
	tb.viewport(1440, 900)
	// After the copy: the CTA's last.
	cur, _ := tb.stepOf()
	tb.button("step-warp")
	tb.waitStep(cur+1, cur+1)
	tb.waitJS("the last copy", `!!document.querySelector('.tma-src[data-source="last"]')`)
	tb.click(`[data-action="tma-banks"]`)
	tb.waitJS("the bank grid", `!document.getElementById("pg-tab-memory").hidden && !!document.querySelector("#pg-tab-memory table.banks")`)
}
