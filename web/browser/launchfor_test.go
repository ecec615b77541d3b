package browser

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
)

// stagePTX stages through dynamic shared memory with cp.async (an extern
// .shared array), as compiler output does: it needs a dynamicSharedBytes.
const stagePTX = `.version 8.0
.target sm_80
.address_size 64
.extern .shared .align 16 .b8 smem[];
.visible .entry stage(.param .u64 src, .param .u64 dst, .param .u32 n) {
	.reg .u32 %r<6>; .reg .u64 %rd<6>; .reg .f32 %f<2>;
	ld.param.u64 %rd1, [src];
	ld.param.u64 %rd2, [dst];
	mov.u32 %r1, %tid.x;
	mul.wide.u32 %rd3, %r1, 4;
	add.u64 %rd4, %rd1, %rd3;
	mov.u32 %r2, smem;
	shl.b32 %r3, %r1, 2;
	add.u32 %r4, %r2, %r3;
	cp.async.ca.shared.global [%r4], [%rd4], 4;
	cp.async.wait_all;
	ld.shared.f32 %f1, [%r4];
	add.u64 %rd5, %rd2, %rd3;
	st.global.f32 [%rd5], %f1;
	ret;
}
`

// launchJSON reads the Launch tab's spec.
func (tb *tab) launchJSON() map[string]any {
	tb.t.Helper()
	var text string
	tb.eval(`document.querySelector("textarea.launch-json").value`, &text)
	var v map[string]any
	if err := json.Unmarshal([]byte(text), &v); err != nil {
		tb.t.Fatalf("the launch JSON %q: %v", text, err)
	}
	return v
}

// TestPastedKernelGetsItsLaunch: a kernel pasted over vector-add runs the
// launch inferred from it (grid 1, its parameters, 48 KiB of dynamic shared
// memory for its extern .shared array), not vector-add's; its 48 KiB do not
// leak into the next, unrelated kernel; the Launch tab's "Infer launch"
// brings the inferred launch back after an edit.
func TestPastedKernelGetsItsLaunch(t *testing.T) {
	s := need(t)
	vadd, err := os.ReadFile("../examples/vector-add.ptx")
	if err != nil {
		t.Fatal(err)
	}
	tb := s.newTab(t, "/")
	tb.waitLoaded("vector-add.ptx")
	tb.replaceEditorText(stagePTX)
	tb.waitLoaded("stage.ptx")
	sp := tb.launchJSON()
	if sp["entry"] != "stage" || sp["dynamicSharedBytes"] != float64(48<<10) || fmt.Sprint(sp["grid"]) != "[1 1 1]" || len(sp["params"].([]any)) != 3 {
		t.Fatalf("the pasted kernel's launch: %v", sp)
	}
	tb.waitJS("the launch summary", `document.getElementById("pg-launch-summary").textContent.includes("49,152 B dynamic shared")`)
	tb.button("run")
	tb.waitStatus("the launch to end", func(s status) string {
		if s.Status == "running" || s.Status == "paused" {
			return "still running"
		}
		return ""
	})
	var fault string
	tb.eval(`document.getElementById("pg-fault").textContent`, &fault)
	if strings.Contains(fault, "outside its 0 bytes") {
		t.Fatalf("the pasted kernel ran without its dynamic shared memory: %s", fault)
	}

	// Another kernel after it: nothing of its launch stays.
	tb.replaceEditorText(string(vadd))
	tb.waitJS("the another-kernel banner", `!document.getElementById("pg-changed").hidden && document.getElementById("pg-changed").textContent.includes("another kernel")`)
	var replay bool
	tb.eval(`!!document.querySelector('#pg-changed [data-change="replay"]')`, &replay)
	if replay {
		t.Fatal("the banner offers to replay another kernel")
	}
	tb.screenshot("another-kernel-banner")
	tb.click(`#pg-changed [data-change="fresh"]`)
	tb.waitLoaded("vector-add.ptx")
	sp = tb.launchJSON()
	if _, ok := sp["dynamicSharedBytes"]; ok || sp["entry"] != "vector_add" {
		t.Fatalf("the next kernel's launch kept the last one's: %v", sp)
	}

	// A launch edit of the same kernel stays; the banner says the launch changed.
	tb.button("step-warp")
	tb.waitStep(1, 1)
	tb.showTab("launch")
	tb.eval(`(() => { const j = document.querySelector("textarea.launch-json"); const v = JSON.parse(j.value); v.grid = [3, 1, 1]; j.value = JSON.stringify(v); j.dispatchEvent(new Event("input", {bubbles: true})); return true; })()`, nil)
	tb.waitJS("the launch-changed banner", `!document.getElementById("pg-changed").hidden && document.getElementById("pg-changed").textContent.includes("The launch changed")`)
	var banner string
	tb.eval(`document.getElementById("pg-changed").textContent`, &banner)
	if strings.Contains(banner, "source changed") || strings.Contains(banner, "The source") {
		t.Fatalf("a launch edit's banner: %q", banner)
	}
	tb.atEverySize("launch-changed banner", "launch-changed")
	tb.click(`#pg-changed [data-change="fresh"]`)
	tb.waitLoaded("vector-add.ptx")
	if sp = tb.launchJSON(); fmt.Sprint(sp["grid"]) != "[3 1 1]" {
		t.Fatalf("the user's launch edit was not kept: %v", sp)
	}

	// Infer launch: always there, back to what ptxplay init gives.
	tb.waitJS("the Infer launch button", `!!document.querySelector("#pg-tab-launch .infer-launch")`)
	tb.click("#pg-tab-launch .infer-launch")
	tb.waitFor("the inferred launch", func() string {
		var text string
		if err := tb.tryEval(`document.querySelector("textarea.launch-json").value`, &text); err != nil {
			return err.Error()
		}
		if !strings.Contains(text, `"grid": [1, 1, 1]`) {
			return "grid not inferred: " + text
		}
		return ""
	})
	tb.atEverySize("launch tab with Infer launch", "launch-infer")
}

// panelText is the text of an inspector tab without its pickers (which
// list every form) and of the warps pane.
const panelTextJS = `(() => {
	const out = {};
	for (const id of ["regs", "memory", "launch", "events", "fragments", "divergence", "swizzle"]) {
		const el = document.getElementById("pg-tab-" + id);
		if (!el) continue;
		const c = el.cloneNode(true);
		for (const s of c.querySelectorAll("select, option, textarea, form")) s.remove();
		out[id] = c.textContent;
	}
	out.warps = document.getElementById("pg-warps").textContent;
	return out;
})()`

// TestNoViewShowsAnotherKernel: with kernel A run to its end and every tab
// opened, loading kernel B (another kernel: Start fresh) leaves no view
// showing A's lines, instructions or buffers.
func TestNoViewShowsAnotherKernel(t *testing.T) {
	s := need(t)
	vadd, err := os.ReadFile("../examples/vector-add.ptx")
	if err != nil {
		t.Fatal(err)
	}
	tb := s.newTab(t, "/?example=mma-tile")
	tb.waitLoaded("mma-tile.ptx")
	tb.button("run")
	tb.waitStatus("the launch to finish", func(s status) string {
		if s.Status != "done" {
			return "not done"
		}
		return ""
	})
	tabs := []string{"regs", "memory", "events", "fragments", "divergence", "swizzle", "launch"}
	for _, id := range tabs {
		tb.showTab(id)
	}
	tb.showTab("fragments")
	tb.eval(`(() => { const s = document.querySelector('#pg-tab-fragments select[aria-label="Instruction of the kernel"]'); const o = [...s.options].find((o) => o.textContent.startsWith("line 84")); s.value = o.value; s.dispatchEvent(new Event("change", {bubbles: true})); return true; })()`, nil)
	tb.waitJS("A's mma shown live", `!!document.querySelector("#pg-tab-fragments .frag-live")`)
	tb.showTab("memory")
	tb.waitJS("A's buffer d", `!!document.querySelector('#pg-tab-memory .mem-tab[data-key="global:d"]')`)
	tb.replaceEditorText(string(vadd))
	tb.waitJS("the another-kernel banner", `!document.getElementById("pg-changed").hidden && !!document.querySelector('#pg-changed [data-change="fresh"]')`)
	tb.click(`#pg-changed [data-change="fresh"]`)
	tb.waitLoaded("vector_add.ptx")
	for _, id := range tabs {
		tb.showTab(id)
		var after map[string]string
		tb.eval(panelTextJS, &after)
		for view, text := range after {
			// (The Swizzle tab's static pictures name ldmatrix whatever runs.)
			for _, a := range []string{"mma", "wrote D", "line 84", "line 70", "f16[", "global:d"} {
				if strings.Contains(text, a) {
					t.Errorf("with the %s tab open, the %s view still shows kernel A's %q: %.300q", id, view, a, text)
				}
			}
		}
	}
	var frag struct {
		Live bool   `json:"live"`
		Pick string `json:"pick"`
	}
	tb.eval(`({live: !!document.querySelector("#pg-tab-fragments .frag-live"), pick: document.querySelector('#pg-tab-fragments select[aria-label="Instruction of the kernel"]').selectedOptions[0].textContent})`, &frag)
	if frag.Live || frag.Pick != "(none)" {
		t.Errorf("the Fragments tab after another kernel: %+v", frag)
	}
	tb.showTab("fragments")
	tb.atEverySize("fragments after another kernel", "fragments-other-kernel")
}
