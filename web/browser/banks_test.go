package browser

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/ptxplayground/ptxplay/engine/emu"
)

// bankMark is a lane badge of the bank grid: the word it is on and the
// lanes it names ("5" or "0–31").
type bankMark struct {
	Word     int    `json:"word"`
	Lanes    string `json:"lanes"`
	Wave     int    `json:"wave"`
	Conflict bool   `json:"conflict"`
	Colour   string `json:"colour"`
}

// stepToLoad steps the reference warp-instruction by warp-instruction
// until it has executed the first instruction whose line starts with
// prefix, and returns the number of steps and the warp that executed it.
func stepToLoad(t *testing.T, r *ref, source, prefix string) (n, warp int) {
	t.Helper()
	lines := strings.Split(source, "\n")
	for n < 5000 {
		w := r.m.NextWarp()
		if w == nil {
			break
		}
		pc, id := w.PC(), w.ID
		if r.m.Step(emu.StepWarpInstruction) != emu.StopStepped {
			break
		}
		n++
		if l := r.line(pc); l > 0 && strings.HasPrefix(strings.TrimSpace(lines[l-1]), prefix) {
			return n, id
		}
	}
	t.Fatalf("no %q executed in %d steps", prefix, n)
	return 0, 0
}

// bankMarks reads every lane badge of the bank grid, scrolling it from top
// to bottom (it draws only the rows in view).
func (tb *tab) bankMarks() []bankMark {
	tb.t.Helper()
	seen := map[string]bankMark{}
	var rows struct{ Rows, RowH, View int }
	tb.eval(`(() => {
		const s = document.querySelector("#pg-tab-memory .bank-scroll");
		const r = s.querySelector("tr.bank-row");
		return {Rows: 0, RowH: r ? r.offsetHeight : 0, View: s.clientHeight};
	})()`, &rows)
	if rows.RowH == 0 || rows.View == 0 {
		tb.t.Fatalf("the bank grid has no rows in view (row %dpx, view %dpx)", rows.RowH, rows.View)
	}
	var total int
	tb.eval(`document.querySelector("#pg-tab-memory .bank-scroll").scrollHeight`, &total)
	for top := 0; ; top += rows.View / 2 {
		tb.eval(fmt.Sprintf(`(() => { const s = document.querySelector("#pg-tab-memory .bank-scroll"); s.scrollTop = %d; s.dispatchEvent(new Event("scroll")); return true; })()`, top), nil)
		// Wait until the first and the last row in view (where the
		// scroll actually went: it stops at the end) are drawn.
		tb.waitJS(fmt.Sprintf("bank rows at %dpx drawn", top), fmt.Sprintf(`(() => {
			const s = document.querySelector("#pg-tab-memory .bank-scroll");
			const rows = s.querySelectorAll("tbody tr").length && Math.round((s.scrollHeight - s.querySelector("thead").offsetHeight) / %[1]d);
			const first = Math.floor(s.scrollTop / %[1]d), last = Math.min(rows - 1, Math.floor((s.scrollTop + s.clientHeight - 1) / %[1]d));
			const drawn = (r) => !!s.querySelector('td.bw[data-word="' + (r * 32) + '"]');
			return drawn(first) && drawn(Math.max(first, last - 1));
		})()`, rows.RowH))
		var ms []bankMark
		tb.eval(`[...document.querySelectorAll("#pg-tab-memory td.bw .bl")].map((b) => ({
			word: +b.closest("td").dataset.word, lanes: b.textContent, wave: +b.dataset.wave,
			conflict: b.classList.contains("bl-x") && b.closest("td").classList.contains("b-conflict"),
			colour: getComputedStyle(b).backgroundColor}))`, &ms)
		for _, m := range ms {
			seen[fmt.Sprintf("%d/%s", m.Word, m.Lanes)] = m
		}
		if top+rows.View >= total {
			break
		}
	}
	out := make([]bankMark, 0, len(seen))
	for _, m := range seen {
		out = append(out, m)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Word < out[j].Word })
	return out
}

// openBanks shows the memory tab's shared memory as banks.
func (tb *tab) openBanks() {
	tb.t.Helper()
	tb.showTab("memory")
	tb.click(`#pg-tab-memory .mem-tab[data-key="shared"]`)
	tb.waitJS("the shared memory tab", `document.querySelector('#pg-tab-memory .mem-tab[data-key="shared"]').getAttribute("aria-selected") === "true"`)
	tb.click(`#pg-tab-memory [data-view="banks"]`)
	tb.waitJS("the bank grid", `!!document.querySelector("#pg-tab-memory table.banks td.bw")`)
}

// TestBankGrid: the transpose example stepped to its column read
// (ld.shared.f32 of tile[tx][ty+j]) shows, in the Memory tab's Banks view,
// every lane l on word 32l + w (w: the warp, whose column it reads), all
// in bank w, each in its own wavefront and marked as conflicting, with
// the summary "32 wavefronts (ideal 1): 32-way bank conflict"; the table
// view highlights exactly those 32 elements (not the 3,972 bytes between
// them) with the lane on hover. The padded tile (33 words a row) puts
// lane l on word 1024 + 33l + w, 32 banks, one wavefront, conflict-free.
// Screenshots at 1440×900, 1024×768 and 390×844.
func TestBankGrid(t *testing.T) {
	s := need(t)
	for _, tc := range []struct {
		name    string
		base    int // the tile's first word
		stride  int // words between the lanes' words
		summary string
	}{
		{"transpose", 0, 32, "ld.shared.f32 · 32 lanes · 32 wavefronts (ideal 1): 32-way bank conflict"},
		{"transpose-padded", 1024, 33, "ld.shared.f32 · 32 lanes · 1 wavefront (ideal 1): conflict-free"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tb := s.newTab(t, "/?example="+tc.name)
			tb.waitLoaded(tc.name + ".ptx")
			tb.viewport(1440, 900)
			r := exampleRef(t, tc.name)
			n, w := stepToLoad(t, r, example(t, tc.name).Source, "ld.shared.f32")
			tb.setCount(n)
			tb.button("step-warp")
			tb.waitAt(r)

			tb.openBanks()
			tb.waitJS("the bank summary", fmt.Sprintf(`document.querySelector("#pg-tab-memory .bank-summary").textContent === %q`, tc.summary))
			marks := tb.bankMarks()
			if len(marks) != 32 {
				t.Fatalf("%d lane badges, want 32 (one per lane): %+v", len(marks), marks)
			}
			banks := map[int]bool{}
			colours := map[string]bool{}
			for l, m := range marks {
				want := tc.base + tc.stride*l + w
				if m.Word != want || m.Lanes != fmt.Sprint(l) {
					t.Fatalf("badge %d: lanes %q on word %d, want lane %d on word %d", l, m.Lanes, m.Word, l, want)
				}
				banks[m.Word%32] = true
				colours[m.Colour] = true
				wantWave := 0
				if tc.stride == 32 {
					wantWave = l
				}
				if m.Wave != wantWave || m.Conflict != (tc.stride == 32) {
					t.Fatalf("lane %d: wavefront %d, conflict %v; want %d, %v", l, m.Wave, m.Conflict, wantWave, tc.stride == 32)
				}
			}
			if tc.stride == 32 && (len(banks) != 1 || !banks[w] || len(colours) < 8) {
				t.Errorf("conflicting column: banks %v (want only %d), %d wavefront colours", banks, w, len(colours))
			}
			if tc.stride == 33 && (len(banks) != 32 || len(colours) != 1) {
				t.Errorf("padded column: %d banks (want 32), %d wavefront colours (want 1)", len(banks), len(colours))
			}
			// Column headers are the 32 banks; rows are 128 bytes.
			var head []string
			tb.eval(`[...document.querySelectorAll("#pg-tab-memory table.banks th.bank-h")].map((th) => th.textContent)`, &head)
			if len(head) != 32 || head[0] != "0" || head[31] != "31" {
				t.Errorf("bank headers %v", head)
			}
			var offs []string
			tb.eval(`[...document.querySelectorAll("#pg-tab-memory table.banks th.bank-off")].slice(0, 2).map((th) => th.textContent)`, &offs)
			if len(offs) != 2 {
				t.Errorf("row offsets %v", offs)
			}

			for _, vp := range [][2]int64{{1440, 900}, {1024, 768}, {390, 844}} {
				tb.viewport(vp[0], vp[1])
				tb.eval(`(document.querySelector("#pg-tab-memory .bank-view").scrollIntoView({block: "start"}), true)`, nil)
				tb.settle()
				// A click on the summary scrolls the accessed words into view.
				tb.click(`#pg-tab-memory .bank-summary`)
				tb.waitJS("the accessed words in view", `(() => {
					const s = document.querySelector("#pg-tab-memory .bank-scroll").getBoundingClientRect();
					const b = document.querySelector("#pg-tab-memory td.bw .bl");
					if (!b) return false;
					const r = b.getBoundingClientRect();
					return r.top >= s.top && r.bottom <= s.bottom && r.left >= s.left && r.right <= s.right && r.top >= 0 && r.bottom <= innerHeight;
				})()`)
				tb.expectNoOverflow(fmt.Sprintf("%dx%d banks", vp[0], vp[1]))
				var sum struct{ Visible bool }
				tb.eval(`(() => { const r = document.querySelector("#pg-tab-memory .bank-summary").getBoundingClientRect(); return {Visible: r.width > 0 && r.top >= 0 && r.bottom <= innerHeight}; })()`, &sum)
				if !sum.Visible {
					t.Errorf("%dx%d: the bank summary is not on screen", vp[0], vp[1])
				}
				// Only the rows in view (and a few more) are in the DOM.
				var drawn, rowsInView int
				tb.eval(`document.querySelectorAll("#pg-tab-memory tr.bank-row").length`, &drawn)
				tb.eval(`(() => { const s = document.querySelector("#pg-tab-memory .bank-scroll"); return Math.ceil(s.clientHeight / s.querySelector("tr.bank-row").offsetHeight); })()`, &rowsInView)
				if drawn > rowsInView+12 || drawn >= 65 {
					t.Errorf("%dx%d: %d rows drawn for %d in view", vp[0], vp[1], drawn, rowsInView)
				}
				tb.screenshot(fmt.Sprintf("banks-%dx%d", vp[0], vp[1]))
			}
			tb.viewport(1440, 900)

			// The table view: exactly the lanes' words on the page (512
			// elements; follow shows the page of the first), lane numbers on
			// hover.
			tb.click(`#pg-tab-memory [data-view="table"]`)
			tb.waitJS("the memory table", `!!document.querySelector("#pg-tab-memory table.mem td.val")`)
			page := (tc.base + w) / 512
			want := map[int]int{} // element -> lane
			for l := range 32 {
				if e := tc.base + tc.stride*l + w; e/512 == page {
					want[e] = l
				}
			}
			tb.waitJS("the highlighted elements", fmt.Sprintf(`document.querySelectorAll("#pg-tab-memory table.mem td.t-load").length === %d`, len(want)))
			var cells []struct {
				Where string `json:"where"`
				Lanes string `json:"lanes"`
			}
			tb.eval(`[...document.querySelectorAll("#pg-tab-memory table.mem td.t-load")].map((td) => ({where: td.dataset.where, lanes: td.dataset.lanes}))`, &cells)
			for _, c := range cells {
				var e int
				if _, err := fmt.Sscanf(c.Where[strings.Index(c.Where, "[")+1:], "%d]", &e); err != nil {
					t.Fatalf("cell %q: %v", c.Where, err)
				}
				l, ok := want[e]
				if !ok {
					t.Errorf("element %d highlighted (%q); no lane read it", e, c.Lanes)
				} else if w := fmt.Sprintf("last step: lane %d: load", l); c.Lanes != w {
					t.Errorf("element %d: %q, want %q", e, c.Lanes, w)
				}
			}
			tb.hover(`#pg-tab-memory table.mem td.t-load`)
			tb.waitJS("the hover title", `(document.querySelector("#pg-tab-memory table.mem td.t-load").title || "").includes(": load")`)
			tb.screenshot("table-exact")
		})
	}
}

// bankTextsCut returns the drawn bank-grid words whose value text does not
// show whole: wider than its box, or its box cut by its cell (an 8-byte
// element's box runs over the next cell, its second word).
func (tb *tab) bankTextsCut() []string {
	tb.t.Helper()
	var cut []string
	tb.eval(`[...document.querySelectorAll("#pg-tab-memory table.banks td.bw")].flatMap((td) => {
		const v = td.querySelector(".bw-v");
		if (!v || v.textContent === "") return [];
		const end = (td.classList.contains("wide") ? td.nextElementSibling || td : td).getBoundingClientRect().right;
		const r = v.getBoundingClientRect(), rg = document.createRange();
		rg.selectNodeContents(v);
		const t = rg.getBoundingClientRect();
		const whole = v.scrollWidth <= v.clientWidth && t.left >= r.left - 0.5 && t.right <= r.right + 0.5 && r.right <= end + 0.5;
		return whole ? [] : [td.dataset.word + ": " + JSON.stringify(v.textContent) + " in " + Math.round(r.width) + "px"];
	})`, &cut)
	return cut
}

// TestBankGridWholeValues: the Banks view shows every word's value whole
// in each type and format a kernel engineer reads shared memory as (u32
// in hex was "0x420…"): the columns are as wide as the widest text the
// format can give; a float too long for its budget is rounded, marked,
// and exact in the hover title. Checked at 1440×900, 1024×768 presenter
// and 390×844, with screenshots.
func TestBankGridWholeValues(t *testing.T) {
	s := need(t)
	tb := s.newTab(t, "/?example=transpose")
	tb.waitLoaded("transpose.ptx")
	tb.viewport(1440, 900)
	r := exampleRef(t, "transpose")
	n, _ := stepToLoad(t, r, example(t, "transpose").Source, "ld.shared.f32")
	tb.setCount(n)
	tb.button("step-warp")
	tb.waitAt(r)
	tb.openBanks()

	setView := func(typ string, hex bool) {
		tb.t.Helper()
		tb.eval(fmt.Sprintf(`(() => { const s = document.querySelector('#pg-tab-memory select[aria-label="Element type"]'); s.value = %q; s.dispatchEvent(new Event("change"));
			const x = document.querySelector('#pg-tab-memory label[title="Show raw bits in hex"] input'); if (x.checked !== %v) x.click(); return true; })()`, typ, hex), nil)
		tb.waitJS(typ+" drawn", fmt.Sprintf(`document.querySelector('#pg-tab-memory select[aria-label="Element type"]').value === %q && document.querySelector('#pg-tab-memory label[title="Show raw bits in hex"] input').checked === %v && [...document.querySelectorAll("#pg-tab-memory td.bw .bw-v")].some((v) => v.textContent !== "" && v.textContent !== "…")`, typ, hex))
	}
	for _, c := range []struct {
		typ string
		hex bool
	}{{"u32", true}, {"u32", false}, {"s32", false}, {"f32", false}, {"u8", true}, {"s16", false}, {"f16", false}, {"u64", true}, {"s64", false}, {"f64", false}} {
		setView(c.typ, c.hex)
		if cut := tb.bankTextsCut(); len(cut) > 0 {
			t.Errorf("%s (hex %v): %d values cut, e.g. %v", c.typ, c.hex, len(cut), cut[:min(4, len(cut))])
		}
	}

	// u32 in hex at every size: 0x and eight digits, whole.
	setView("u32", true)
	var first string
	tb.eval(`document.querySelector('#pg-tab-memory td.bw[data-word="1"] .bw-v').textContent`, &first)
	if len(first) != 10 || !strings.HasPrefix(first, "0x") {
		t.Errorf("word 1 in hex reads %q, want 0x and 8 digits", first)
	}
	for _, vp := range []struct {
		w, h      int64
		presenter bool
	}{{1440, 900, false}, {1024, 768, true}, {390, 844, false}} {
		tb.viewport(vp.w, vp.h)
		if vp.presenter {
			tb.blurFocus()
			tb.key("z")
			tb.waitJS("presenter mode", `document.documentElement.classList.contains("presenter")`)
		}
		tb.eval(`(document.querySelector("#pg-tab-memory .bank-view").scrollIntoView({block: "start"}), true)`, nil)
		tb.settle()
		what := fmt.Sprintf("%dx%d hex banks", vp.w, vp.h)
		if cut := tb.bankTextsCut(); len(cut) > 0 {
			t.Errorf("%s: %d values cut, e.g. %v", what, len(cut), cut[:min(4, len(cut))])
		}
		tb.expectNoOverflow(what)
		tb.screenshot(fmt.Sprintf("banks-hex-%d", vp.w))
		if vp.presenter {
			tb.blurFocus()
			tb.key("z")
			tb.waitJS("presenter mode off", `!document.documentElement.classList.contains("presenter")`)
		}
	}
	tb.viewport(1440, 900)
}
