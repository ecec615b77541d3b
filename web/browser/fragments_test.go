package browser

import (
	"fmt"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"strconv"
	"strings"
	"testing"

	"github.com/ptxplayground/ptxplay/engine/emu"
	"github.com/ptxplayground/ptxplay/engine/isa"
)

// TestFragmentExplorer: the Fragments tab draws the layout table (every
// cell at its row and column with its lane), hovering a cell highlights
// every element of its lane, the picture exports as SVG, and after the
// tile's mma executes the explorer shows the warp's live values of D.
func TestFragmentExplorer(t *testing.T) {
	s := need(t)
	tb := s.newTab(t, "/?example=mma-tile")
	tb.waitLoaded("mma-tile.ptx")
	tb.showTab("fragments")
	const key = "mma.m16n8k16.row.col.f32.f16.f16.f32"
	fi := isa.LookupFragments(key)
	if fi == nil {
		t.Fatalf("no layout %s", key)
	}
	tb.waitJS("the forms to load", fmt.Sprintf(`!!document.querySelector('#pg-tab-fragments select[aria-label="Instruction"] option[value=%q]')`, key))
	tb.eval(fmt.Sprintf(`(() => { const s = document.querySelector('#pg-tab-fragments select[aria-label="Instruction"]'); s.value = %q; s.dispatchEvent(new Event("change", {bubbles: true})); return true; })()`, key), nil)

	// Static: every element of every operand at its place, with its lane.
	for i, op := range fi.Operands {
		var cells [][3]int
		tb.waitFor(fmt.Sprintf("operand %s drawn", op.Name), func() string {
			if err := tb.tryEval(fmt.Sprintf(`[...document.querySelectorAll("#pg-tab-fragments figure.frag-op")[%d].querySelectorAll(".frag-cell")].map((g) => [Number(g.dataset.row), Number(g.dataset.col), Number(g.dataset.lane)])`, i), &cells); err != nil {
				return err.Error()
			}
			if len(cells) != len(op.Elems) {
				return fmt.Sprintf("%d cells, the table has %d", len(cells), len(op.Elems))
			}
			return ""
		})
		at := map[[2]int]int{}
		for _, c := range cells {
			at[[2]int{c[0], c[1]}] = c[2]
		}
		for _, e := range op.Elems {
			if lane, ok := at[[2]int{int(e.Row), int(e.Col)}]; !ok || lane != int(e.Lane) {
				t.Fatalf("%s[%d][%d] shows lane %d, the table says %d", op.Name, e.Row, e.Col, lane, e.Lane)
			}
		}
	}

	// Hovering a cell of lane 5 highlights all of lane 5's elements.
	want := 0
	for _, op := range fi.Operands {
		for _, e := range op.Elems {
			if e.Lane == 5 {
				want++
			}
		}
	}
	var hl int
	tb.eval(`(() => {
		const g = document.querySelector('#pg-tab-fragments .frag-cell[data-lane="5"]');
		g.dispatchEvent(new PointerEvent("pointerover", {bubbles: true}));
		return document.querySelectorAll("#pg-tab-fragments .frag-cell.hl").length;
	})()`, &hl)
	if hl != want {
		t.Errorf("hovering lane 5 highlights %d cells, want %d", hl, want)
	}
	tb.screenshot("fragments-static")

	// SVG export: capture the download and read it.
	tb.eval(`(() => {
		window.__dl = [];
		const mk = URL.createObjectURL;
		URL.createObjectURL = (b) => { b.text().then((t) => { window.__text = t; }); return mk(b); };
		HTMLAnchorElement.prototype.click = function () { window.__dl.push(this.download); };
		return true;
	})()`, nil)
	tb.click(`#pg-tab-fragments button[title="Download the picture as SVG"]`)
	var svgText string
	tb.waitFor("the exported SVG", func() string {
		if err := tb.tryEval(`window.__dl[0] && window.__text ? window.__dl[0] + "\n" + window.__text : ""`, &svgText); err != nil {
			return err.Error()
		}
		if !strings.Contains(svgText, "<svg") || !strings.Contains(svgText, ">T5<") || !strings.HasPrefix(svgText, "mma.m16n8k16") {
			return fmt.Sprintf("download %.80q", svgText)
		}
		return ""
	})

	// Live: step through the mma; the explorer follows it and shows D.
	r := exampleRef(t, "mma-tile")
	mmaPC := -1
	for pc := range r.prog.Ops {
		if r.prog.Ops[pc].Code == isa.OpMma {
			mmaPC = pc
		}
	}
	n := 0
	for r.warp(0, 0).PC() <= mmaPC {
		r.step(emu.StepWarpInstruction, 1)
		n++
	}
	tb.setCount(n)
	tb.button("step-warp")
	tb.waitAt(r)
	tb.showTab("fragments")
	d := fi.Operand("d")
	tb.waitFor("the live values of D", func() string {
		var vals []string
		if err := tb.tryEval(`[...document.querySelectorAll("#pg-tab-fragments figure.frag-op")[0].querySelectorAll(".frag-cell")].map((g) => g.dataset.row + "," + g.dataset.col + "=" + (g.querySelector(".frag-val")?.textContent ?? ""))`, &vals); err != nil {
			return err.Error()
		}
		if len(vals) != len(d.Elems) {
			return fmt.Sprintf("%d cells", len(vals))
		}
		for _, v := range vals {
			var m, c int
			var got string
			fmt.Sscanf(strings.Replace(v, "=", " ", 1), "%d,%d %s", &m, &c, &got)
			sum := 0
			for k := 0; k < 16; k++ {
				sum += (16*m + k) * (8*k + c + 1)
			}
			if got != strconv.Itoa(sum) {
				return fmt.Sprintf("D[%d][%d] shows %q, want %d", m, c, got, sum)
			}
		}
		return ""
	})
	var pick string
	tb.eval(`document.querySelector('#pg-tab-fragments select[aria-label="Instruction of the kernel"]').value`, &pick)
	if pick != strconv.Itoa(mmaPC) {
		t.Errorf("the explorer shows pc %s, the mma is at %d", pick, mmaPC)
	}
	tb.screenshot("fragments-live")
	// The explorer on a projector and a phone: no sideways page scroll.
	for _, size := range [][2]int64{{1024, 768}, {390, 844}} {
		tb.viewport(size[0], size[1])
		var over bool
		tb.eval(`document.documentElement.scrollWidth > window.innerWidth`, &over)
		if over {
			t.Errorf("%dx%d: the page scrolls sideways with the Fragments tab open", size[0], size[1])
		}
		tb.eval(`(document.getElementById("pg-tab-fragments").scrollIntoView(), true)`, nil)
		tb.screenshot(fmt.Sprintf("fragments-%dx%d", size[0], size[1]))
	}
	tb.viewport(viewW, viewH)

	// The editor's hover on the mma offers "Show fragments".
	tb.showTab("regs")
	line := r.line(mmaPC)
	tb.scrollEditorToLine(line)
	var pt struct{ X, Y float64 }
	tb.eval(fmt.Sprintf(`(() => {
		const el = [...document.querySelectorAll(".cm-line")].find((l) => l.textContent.includes("mma.sync") && !l.textContent.trim().startsWith("//"));
		const range = document.createRange();
		const node = [...el.querySelectorAll("span")].find((s) => s.textContent === "mma") ?? el;
		range.selectNodeContents(node);
		const b = range.getBoundingClientRect();
		return {X: b.left + 6, Y: (b.top + b.bottom) / 2, line: %d};
	})()`, line), &pt)
	tb.do("hover the mma", chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, pt.X, pt.Y))
	tb.waitJS("the hover's Show fragments button", `!!document.querySelector(".cm-tooltip .hover-action")`)
	tb.click(".cm-tooltip .hover-action")
	tb.waitJS("the Fragments tab on the mma", fmt.Sprintf(`!document.getElementById("pg-tab-fragments").hidden && document.querySelector('#pg-tab-fragments select[aria-label="Instruction of the kernel"]').value === "%d"`, mmaPC))
}
