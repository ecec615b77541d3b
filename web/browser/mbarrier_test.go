package browser

import (
	"encoding/json"
	"strings"
	"testing"
)

// mbringSrc: a 2-stage mbarrier ring (sessions/mbarrier_view_test.go):
// warp 0 produces tiles counted as 128 transaction bytes on full[s],
// warp 1 consumes them and arrives on empty[s].
var mbringSrc = sessionsKernel("mbring.ptx")

// TestMbarrierPanel: the Warps pane lists the CTA's live mbarriers with
// their names, phase, arrivals, transaction bytes and the warps waiting
// on them; clicking an address shows its bytes in the Memory tab.
// Screenshots at 1440×900, 1024×768 presenter and 390×844.
func TestMbarrierPanel(t *testing.T) {
	s := need(t)
	snap := map[string]any{
		"title":  "mbarrier ring",
		"source": strings.TrimPrefix(mbringSrc, "\n"),
		"spec":   map[string]any{"grid": []int{1}, "block": []int{64}, "buffers": []any{map[string]any{"name": "out", "type": "u32", "count": 32}}, "params": []any{map[string]any{"buffer": "out"}}},
		"id":     "AAAAAAAAAAAA",
	}
	data, err := json.Marshal(snap)
	if err != nil {
		t.Fatal(err)
	}
	tb := s.newTab(t, "/"+linkFragment(t, data))
	tb.wake()
	tb.waitLoaded("mbring.ptx")
	tb.viewport(1440, 900)
	// Step until a warp waits on an mbarrier with transaction bytes outstanding.
	ok := false
	for range 80 {
		tb.button("step-warp")
		var got bool
		tb.eval(`(() => { const t = document.querySelector(".cta-mbars")?.textContent ?? ""; return document.querySelectorAll(".mbar").length === 4 && !!document.querySelector(".mbar-wait") && t.includes("128 tx bytes"); })()`, &got)
		if got {
			ok = true
			break
		}
	}
	if !ok {
		var text string
		tb.eval(`document.querySelector(".cta-mbars")?.textContent ?? ""`, &text)
		t.Fatalf("no mbarrier with a waiting warp and 128 transaction bytes: %q", text)
	}
	var names []string
	tb.eval(`[...document.querySelectorAll(".mbar-addr")].map((b) => b.textContent)`, &names)
	if strings.Join(names, " ") != "full[0] @0x0 full[1] @0x8 empty[0] @0x10 empty[1] @0x18" {
		t.Errorf("mbarrier names %q", names)
	}
	tb.atEverySize("mbarrier panel", "mbarriers")
	tb.click(".mbar-addr")
	tb.waitJS("the Memory tab", `!document.getElementById("pg-tab-memory").hidden && document.getElementById("pg-tab-memory").getBoundingClientRect().height > 0`)
}
