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
// every element of its lane, the picture exports as SVG; the .b1 forms
// draw one cell per register word and mma.m8n8k4 .f16 its four quad-pair
// matrices; after the tile's ldmatrix.x4 executes the explorer shows the
// lane and address of every row and the register each matrix landed in,
// and after its mma the warp's live values of D and the registers the mma
// read and wrote.
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
	checkCells(tb, fi)

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

	// .b1: one cell per 32-bit register word, not one per bit.
	for _, key := range []string{"mma.m8n8k128.row.col.s32.b1.b1.s32", "mma.m16n8k128.row.col.s32.b1.b1.s32", "mma.m16n8k256.row.col.s32.b1.b1.s32"} {
		pickForm(tb, key)
		checkWords(tb, isa.LookupFragments(key))
	}
	tb.viewport(1440, 900)
	tb.eval(`(document.querySelectorAll("#pg-tab-fragments figure.frag-op")[1].scrollIntoView(), true)`, nil)
	tb.screenshot("fragments-b1-1440x900")
	tb.viewport(390, 844)
	tb.eval(`(document.getElementById("pg-tab-fragments").scrollIntoView(), true)`, nil)
	tb.screenshot("fragments-b1-390x844")
	tb.viewport(viewW, viewH)

	// mma.m8n8k4 .f16: four labelled quad-pair matrices per operand.
	const qkey = "mma.m8n8k4.row.col.f32.f16.f16.f32"
	pickForm(tb, qkey)
	qfi := isa.LookupFragments(qkey)
	checkCells(tb, qfi)
	for i, op := range qfi.Operands {
		var groups []struct {
			Title string
			Rows  []int
			Lanes []int
		}
		tb.eval(fmt.Sprintf(`[...document.querySelectorAll("#pg-tab-fragments figure.frag-op")[%d].querySelectorAll("figure.frag-group")].map((g) => ({
			Title: g.querySelector("figcaption").textContent,
			Rows: [...g.querySelectorAll(".frag-cell")].map((c) => Number(c.dataset.row)),
			Lanes: [...g.querySelectorAll(".frag-cell")].map((c) => Number(c.dataset.lane)) }))`, i), &groups)
		if len(groups) != 4 {
			t.Fatalf("m8n8k4 %s: %d groups, want 4", op.Name, len(groups))
		}
		rows := op.Rows / 4
		for p, g := range groups {
			if !strings.Contains(g.Title, fmt.Sprintf("quad pair %d", p)) || !strings.Contains(g.Title, fmt.Sprintf("T%d–T%d, T%d–T%d", 4*p, 4*p+3, 16+4*p, 16+4*p+3)) {
				t.Errorf("m8n8k4 %s group %d: title %q", op.Name, p, g.Title)
			}
			if len(g.Rows) != rows*op.Cols {
				t.Errorf("m8n8k4 %s group %d: %d cells, want %d", op.Name, p, len(g.Rows), rows*op.Cols)
			}
			for k, row := range g.Rows {
				if row/rows != p || (g.Lanes[k]%16)/4 != p {
					t.Errorf("m8n8k4 %s group %d: a cell of row %d, lane %d", op.Name, p, row, g.Lanes[k])
					break
				}
			}
		}
	}
	tb.viewport(1440, 900)
	tb.screenshot("fragments-m8n8k4-1440x900")
	tb.viewport(390, 844)
	tb.eval(`(document.getElementById("pg-tab-fragments").scrollIntoView(), true)`, nil)
	tb.screenshot("fragments-m8n8k4-390x844")
	tb.viewport(viewW, viewH)
	pickForm(tb, key)

	// Live: step over the ldmatrix.x4; the explorer follows it and shows,
	// beside each matrix, the lane and address of every row, and the
	// register it landed in.
	r := exampleRef(t, "mma-tile")
	mmaPC, ldPC := -1, -1
	for pc := range r.prog.Ops {
		switch {
		case r.prog.Ops[pc].Code == isa.OpMma:
			mmaPC = pc
		case r.prog.Ops[pc].Code == isa.OpLdmatrix && ldPC < 0:
			ldPC = pc
		}
	}
	var obs tensorObs
	r.m.SetObserver(&obs)
	n := 0
	for obs.pc != ldPC {
		r.step(emu.StepWarpInstruction, 1)
		n++
	}
	if obs.rep == nil || len(obs.rep.Matrices) != 4 {
		t.Fatalf("the reference ldmatrix reported %+v", obs.rep)
	}
	tb.setCount(n)
	tb.button("step-warp")
	tb.waitAt(r)
	tb.showTab("fragments")
	tb.waitFor("the row addresses of the ldmatrix", func() string {
		var rows []struct {
			Fig, Row, Lane int
			Addr, Dest     string
		}
		if err := tb.tryEval(`[...document.querySelectorAll("#pg-tab-fragments figure.frag-op")].flatMap((f, i) => [...f.querySelectorAll(".frag-rowaddr")].map((g) => ({
			Fig: i, Row: Number(g.dataset.row), Lane: Number(g.dataset.lane), Addr: g.dataset.addr,
			Dest: f.querySelector(".frag-dest")?.dataset.reg ?? "" })))`, &rows); err != nil {
			return err.Error()
		}
		if len(rows) != 32 {
			return fmt.Sprintf("%d row addresses", len(rows))
		}
		for _, x := range rows {
			m := obs.rep.Matrices[x.Fig]
			want := fmt.Sprintf("%x", m.Rows[x.Row].Addr)
			if x.Lane != 8*x.Fig+x.Row || m.Rows[x.Row].Lane != x.Lane || x.Addr != want {
				return fmt.Sprintf("matrix %d row %d: lane %d address %s, want lane %d address %s", x.Fig, x.Row, x.Lane, x.Addr, 8*x.Fig+x.Row, want)
			}
			if reg := r.prog.Regs[m.Reg].Name; x.Dest != reg {
				return fmt.Sprintf("matrix %d landed in %q, want %s", x.Fig, x.Dest, reg)
			}
		}
		return ""
	})
	var label string
	tb.eval(`document.querySelector("#pg-tab-fragments .frag-rowaddr").textContent`, &label)
	if !strings.HasPrefix(label, "T0") || !strings.Contains(label, "0x") {
		t.Errorf("row 0 reads %q", label)
	}
	for _, size := range [][2]int64{{1440, 900}, {390, 844}} {
		tb.viewport(size[0], size[1])
		tb.eval(`(document.querySelector("#pg-tab-fragments .frag-rowaddr").scrollIntoView(), true)`, nil)
		tb.screenshot(fmt.Sprintf("fragments-ldmatrix-%dx%d", size[0], size[1]))
	}
	tb.viewport(viewW, viewH)

	// On through the mma; the explorer follows it and shows D, and the
	// registers it read and wrote.
	n = 0
	for r.warp(0, 0).PC() <= mmaPC {
		r.step(emu.StepWarpInstruction, 1)
		n++
	}
	tb.setCount(n)
	tb.button("step-warp")
	tb.waitAt(r)
	tb.showTab("fragments")
	tb.waitFor("the registers the mma read and wrote", func() string {
		var ops []string
		if err := tb.tryEval(`[...document.querySelectorAll("#pg-tab-fragments .frag-regop")].map((e) => e.dataset.operand + e.dataset.write + " " + e.querySelector("code").textContent)`, &ops); err != nil {
			return err.Error()
		}
		var want []string
		for _, o := range obs.rep.Operands {
			w := "0"
			if o.Write {
				w = "1"
			}
			var names []string
			for _, s := range o.Regs {
				names = append(names, r.prog.Regs[s].Name)
			}
			want = append(want, o.Name+w+" "+strings.Join(names, " "))
		}
		if obs.pc != mmaPC || strings.Join(ops, "; ") != strings.Join(want, "; ") {
			return fmt.Sprintf("%q, want %q", ops, want)
		}
		return ""
	})
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
	for _, size := range [][2]int64{{1440, 900}, {390, 844}} {
		tb.viewport(size[0], size[1])
		tb.eval(`(document.querySelector("#pg-tab-fragments .frag-regs").scrollIntoView(), true)`, nil)
		tb.screenshot(fmt.Sprintf("fragments-mma-registers-%dx%d", size[0], size[1]))
	}
	tb.viewport(viewW, viewH)
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

// pickForm shows a form of the layout table.
func pickForm(tb *tab, key string) {
	tb.t.Helper()
	tb.eval(fmt.Sprintf(`(() => { const s = document.querySelector('#pg-tab-fragments select[aria-label="Instruction"]'); s.value = %q; s.dispatchEvent(new Event("change", {bubbles: true})); return true; })()`, key), nil)
}

// checkCells: every element of every operand of fi is drawn at its row and
// column with its lane.
func checkCells(tb *tab, fi *isa.FragInstr) {
	tb.t.Helper()
	for i, op := range fi.Operands {
		var cells [][3]int
		tb.waitFor(fmt.Sprintf("operand %s of %s drawn", op.Name, fi.Key), func() string {
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
				tb.t.Fatalf("%s %s[%d][%d] shows lane %d, the table says %d", fi.Key, op.Name, e.Row, e.Col, lane, e.Lane)
			}
		}
	}
}

// checkWords: a .b1 form draws one cell per register word, each covering
// the 32 elements the table gives that lane's register, labelled with the
// lane and register.
func checkWords(tb *tab, fi *isa.FragInstr) {
	tb.t.Helper()
	for i, op := range fi.Operands {
		if op.Type != "b1" {
			continue
		}
		type word struct {
			Lane, Reg, Row, Col, Rows, Cols int
			Label                           string
		}
		var cells []word
		want := len(op.Elems) / 32
		tb.waitFor(fmt.Sprintf("the words of %s %s", fi.Key, op.Name), func() string {
			if err := tb.tryEval(fmt.Sprintf(`[...document.querySelectorAll("#pg-tab-fragments figure.frag-op")[%d].querySelectorAll(".frag-cell")].map((g) => ({
				Lane: Number(g.dataset.lane), Reg: Number(g.dataset.reg), Row: Number(g.dataset.row), Col: Number(g.dataset.col),
				Rows: Number(g.dataset.rows), Cols: Number(g.dataset.cols), Label: g.querySelector(".frag-lane").textContent }))`, i), &cells); err != nil {
				return err.Error()
			}
			if len(cells) != want {
				return fmt.Sprintf("%d cells, want %d (one per register word)", len(cells), want)
			}
			return ""
		})
		if want > 256 {
			tb.t.Errorf("%s %s: %d cells", fi.Key, op.Name, want)
		}
		byWord := map[[2]int]word{}
		for _, c := range cells {
			byWord[[2]int{c.Lane, c.Reg}] = c
			if c.Label != fmt.Sprintf("T%d:%s%d", c.Lane, op.Name, c.Reg) {
				tb.t.Errorf("%s %s: a word labelled %q, lane %d register %d", fi.Key, op.Name, c.Label, c.Lane, c.Reg)
			}
			if c.Rows*c.Cols != 32 {
				tb.t.Errorf("%s %s: a word of %dx%d elements", fi.Key, op.Name, c.Rows, c.Cols)
			}
		}
		for _, e := range op.Elems {
			c, ok := byWord[[2]int{int(e.Lane), int(e.Reg)}]
			if !ok || int(e.Row) < c.Row || int(e.Row) >= c.Row+c.Rows || int(e.Col) < c.Col || int(e.Col) >= c.Col+c.Cols {
				tb.t.Fatalf("%s %s[%d][%d] (lane %d register %d) is not in its word cell %+v", fi.Key, op.Name, e.Row, e.Col, e.Lane, e.Reg, c)
			}
		}
	}
}

// tensorObs keeps the reference machine's last instruction and its tensor
// report (copied: the machine reuses it).
type tensorObs struct {
	pc  int
	rep *emu.TensorStep
}

func (o *tensorObs) Step(in *emu.StepInfo) {
	o.pc = in.PC
	if in.Tensor == nil {
		return
	}
	t := *in.Tensor
	t.Matrices = append([]emu.TensorMatrix(nil), t.Matrices...)
	for i := range t.Matrices {
		t.Matrices[i].Rows = append([]emu.MatrixRow(nil), t.Matrices[i].Rows...)
	}
	t.Operands = append([]emu.TensorOperand(nil), t.Operands...)
	o.rep = &t
}
