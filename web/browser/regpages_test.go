package browser

import (
	"fmt"
	"testing"

	"github.com/ptxplayground/ptxplay/engine/emu"
)

// regPagesSource declares 5000 registers (%r0 … %r4999): more than a page
// of 2048, so the session sends the register file in three pages
// (%r0-%r2047, %r2048-%r4095, %r4096-%r4999) and the registers view gets a
// page control. The kernel writes one register on each page.
const regPagesSource = `// A register file of three pages.
.version 8.0
.target sm_80
.address_size 64

.visible .entry vector_add(
	.param .u64 a,
	.param .u64 b,
	.param .u64 c,
	.param .u32 n
)
{
	.reg .b32 %r<5000>;

	mov.u32 %r1, %tid.x;
	ld.param.u32 %r2, [n];
	add.u32 %r2100, %r1, 7;
	mul.lo.u32 %r4321, %r2100, 3;
	add.u32 %r4999, %r4321, %r2;
	ret;
}
`

// TestRegisterPages loads a kernel with 5000 registers, steps it, and
// switches the Registers tab's pages: page 1 shows %r1 but not %r2100,
// page 2 (by its "next" button) shows %r2100 with the emulator's values,
// page 3 (by the page menu) %r4321 and %r4999; the filter says which page
// it filters. Screenshots at 1440x900 and 390x844.
func TestRegisterPages(t *testing.T) {
	s := need(t)
	tb := s.newTab(t, "/?example=vector-add")
	tb.viewport(1440, 900)
	tb.waitLoaded("vector-add.ptx")
	tb.replaceEditorText(regPagesSource)
	tb.waitLoaded("vector-add.ptx")
	r := newRef(t, "vector-add.ptx", regPagesSource, example(t, "vector-add").Spec)

	// Step until warp 0 of CTA 0 has written %r4999 (its last instruction
	// before ret), as the reference schedules the warps.
	w := r.warp(0, 0)
	last := r.slot("%r4999")
	n := 0
	for w.Reg(last)[0] == 0 {
		if n++; n > 200 {
			t.Fatal("reference: warp 0 never writes %r4999")
		}
		r.step(emu.StepWarpInstruction, 1)
	}
	tb.setCount(n)
	tb.button("step-warp")
	tb.waitAt(r)
	tb.expectReg(r, w, "%r1", "on page 1")

	// The page control: three pages by register range, on the first.
	tb.waitJS("the register page control", `(() => {
		const p = document.querySelector("#pg-tab-regs .reg-pager");
		return p && !p.hidden && p.offsetParent !== null;
	})()`)
	var opts []string
	tb.eval(`[...document.querySelectorAll("#pg-tab-regs select.reg-page option")].map((o) => o.textContent)`, &opts)
	if want := []string{"1–2,048", "2,049–4,096", "4,097–5,000"}; fmt.Sprint(opts) != fmt.Sprint(want) {
		t.Errorf("page menu %q, want %q", opts, want)
	}
	var of string
	tb.eval(`document.querySelector("#pg-tab-regs .reg-page-of").textContent`, &of)
	if of != "of 5,000" {
		t.Errorf("page control says %q, want \"of 5,000\"", of)
	}
	var has bool
	tb.eval(`!!document.querySelector('#pg-tab-regs th.reg-name[data-name="%r2100"]')`, &has)
	if has {
		t.Error("%r2100 (page 2) is shown on page 1")
	}
	tb.screenshot("page1-1440")

	// The next button: page 2 with %r2100 = tid + 7.
	tb.click(`#pg-tab-regs .reg-pager button[aria-label="Next register page"]`)
	tb.expectReg(r, w, "%r2100", "on page 2")
	for l, v := range w.Reg(r.slot("%r2100")) {
		if v != uint64(l+7) {
			t.Fatalf("reference: lane %d has %%r2100 = %d, want %d", l, v, l+7)
		}
	}
	tb.waitJS("page 2 selected, %r1 gone", `document.querySelector("#pg-tab-regs select.reg-page").value === "1" &&
		!document.querySelector('#pg-tab-regs th.reg-name[data-name="%r1"]')`)

	// The filter filters the page shown, and says so.
	tb.eval(`(() => { const f = document.querySelector('#pg-tab-regs input[type="search"]'); f.value = "r21"; f.dispatchEvent(new Event("input", {bubbles: true})); return true; })()`, nil)
	tb.waitJS("the filter note", `(() => {
		const n = document.querySelector("#pg-tab-regs .reg-filter-note");
		const rows = [...document.querySelectorAll("#pg-tab-regs tr")].filter((tr) => tr.querySelector("th.reg-name") && !tr.hidden);
		return n && !n.hidden && n.textContent === "on page 2/3" && rows.length > 0 &&
			rows.every((tr) => tr.querySelector("th.reg-name").dataset.name.includes("r21"));
	})()`)
	var ph string
	tb.eval(`document.querySelector('#pg-tab-regs input[type="search"]').placeholder`, &ph)
	if ph != "filter page 2…" {
		t.Errorf("filter placeholder %q", ph)
	}
	tb.screenshot("page2-filtered-1440")
	tb.eval(`(() => { const f = document.querySelector('#pg-tab-regs input[type="search"]'); f.value = ""; f.dispatchEvent(new Event("input", {bubbles: true})); return true; })()`, nil)

	// The page menu: page 3, then one more step keeps the page.
	tb.eval(`(() => { const s = document.querySelector("#pg-tab-regs select.reg-page"); s.value = "2"; s.dispatchEvent(new Event("change", {bubbles: true})); return true; })()`, nil)
	tb.expectReg(r, w, "%r4321", "on page 3")
	tb.expectReg(r, w, "%r4999", "on page 3")
	var nextOff bool
	tb.eval(`document.querySelector('#pg-tab-regs .reg-pager button[aria-label="Next register page"]').disabled`, &nextOff)
	if !nextOff {
		t.Error("the next button is enabled on the last page")
	}

	tb.viewport(390, 844)
	tb.expectNoOverflow("390x844 with the register pages")
	tb.eval(`(document.getElementById("pg-tabbtn-regs").scrollIntoView({block: "start"}), true)`, nil)
	tb.screenshot("page3-390")
	tb.click(`#pg-tab-regs .reg-pager button[aria-label="Previous register page"]`)
	tb.expectReg(r, w, "%r2100", "back on page 2 at 390x844")
	tb.screenshot("page2-390")
}
