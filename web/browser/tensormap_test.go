package browser

import (
	"encoding/json"
	"strings"
	"testing"
)

// tmapSrc: a kernel taking a tensor map by value and one through a .u64.
const tmapSrc = `.version 8.0
.target sm_90a
.address_size 64
.visible .entry k(.param .align 64 .b8 tmap[128], .param .u64 tmptr)
{
	ret;
}
`

// TestTensorMapParamRow: the Launch tab shows a tensor-map parameter as
// "tensor map" with its fields as JSON (not "[object Object]"); an edit to
// valid JSON is applied to the spec, text that is not a JSON object is
// marked and not applied. Screenshots at the three sizes.
func TestTensorMapParamRow(t *testing.T) {
	s := need(t)
	tm := map[string]any{"buffer": "a", "dataType": "f16", "globalDim": []int{64, 64}, "globalStrides": []int{128}, "boxDim": []int{64, 8}, "swizzle": "128B"}
	snap := map[string]any{
		"title":  "tensor maps",
		"source": tmapSrc,
		"spec": map[string]any{"grid": []int{1}, "block": []int{32},
			"buffers": []any{map[string]any{"name": "a", "type": "f16", "count": 4096}},
			"params":  []any{map[string]any{"tensorMap": tm}, map[string]any{"tensorMap": tm}}},
		"id": "AAAAAAAAAAAA",
	}
	data, err := json.Marshal(snap)
	if err != nil {
		t.Fatal(err)
	}
	tb := s.newTab(t, "/"+linkFragment(t, data))
	tb.wake()
	tb.waitLoaded("k.ptx")
	tb.viewport(1440, 900)
	tb.showTab("launch")
	const field = `document.querySelector('#pg-tab-launch input[aria-label="parameter 0 tensor map"]')`
	var kind, text string
	tb.eval(`document.querySelector('#pg-tab-launch select[aria-label="parameter 0 kind"]')?.value ?? ""`, &kind)
	tb.eval(field+`?.value ?? ""`, &text)
	if kind != "tensorMap" || !strings.Contains(text, `"swizzle":"128B"`) || strings.Contains(text, "object Object") {
		t.Fatalf("parameter 0: kind %q, text %q", kind, text)
	}
	tb.atEverySize("tensor-map parameters", "tensormap-params")
	tb.phoneAt("#pg-tab-launch", "tensormap-params-390-scrolled")

	// Not JSON: marked, the spec keeps the map.
	set := func(v string) {
		b, _ := json.Marshal(v)
		tb.eval(`(() => { const i = `+field+`; i.value = `+string(b)+`; i.dispatchEvent(new Event("change")); return true; })()`, nil)
	}
	set(`{"buffer": "a", `)
	var invalid bool
	tb.eval(field+`.classList.contains("invalid")`, &invalid)
	if !invalid {
		t.Errorf("unparsable tensor map not marked")
	}
	// Valid JSON: applied (the JSON view of the spec shows it).
	set(`{"buffer": "a", "dataType": "f16", "globalDim": [64, 64], "globalStrides": [128], "boxDim": [64, 16], "swizzle": "64B"}`)
	tb.waitFor("the applied map in the spec's JSON", func() string {
		var got string
		tb.eval(`(() => { const i = `+field+`; const j = document.querySelector('#pg-tab-launch textarea[aria-label="Launch spec as JSON"]')?.value ?? ""; return i && !i.classList.contains("invalid") && /"swizzle": "64B"/.test(j) && /"boxDim": \[\s*64,\s*16\s*\]/.test(j) ? "ok" : j; })()`, &got)
		if got == "ok" {
			return ""
		}
		return got
	})
}
