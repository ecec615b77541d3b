package browser

import (
	"github.com/ptxplayground/ptxplay/engine/emu"

	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// The layout at projector, laptop and phone sizes: presenter mode, the
// compact register formats, the two orientations of the register table,
// lane numbers and thread titles, and the stacked layout of a phone.

// viewport resizes the tab's viewport (CSS pixels, desktop, no touch).
func (tb *tab) viewport(w, h int64) {
	tb.t.Helper()
	tb.do(fmt.Sprintf("viewport %dx%d", w, h), chromedp.EmulateViewport(w, h))
	tb.waitJS(fmt.Sprintf("the %dx%d viewport", w, h), fmt.Sprintf("innerWidth === %d && innerHeight === %d", w, h))
	tb.settle()
}

// hover moves the mouse to the centre of the element sel matches.
func (tb *tab) hover(sel string) {
	tb.t.Helper()
	var p struct{ X, Y float64 }
	tb.eval(fmt.Sprintf(`(() => {
		const el = document.querySelector(%q);
		el.scrollIntoView({block: "nearest", inline: "nearest"});
		const r = el.getBoundingClientRect();
		return {X: (r.left + r.right) / 2, Y: (r.top + r.bottom) / 2};
	})()`, sel), &p)
	tb.do("hover "+sel, chromedp.MouseEvent(chromedp.MouseMoved, p.X, p.Y))
}

// blurFocus takes the focus off fields, so that letter keys reach the page.
func (tb *tab) blurFocus() {
	tb.t.Helper()
	tb.eval(`(document.activeElement && document.activeElement.blur(), true)`, nil)
}

// steppedVectorAdd opens vector-add and steps it until every warp has
// computed its element's addresses (%rd5 = a + 4i, …), with a 64-bit
// register row to look at.
func steppedVectorAdd(t *testing.T) *tab {
	s := need(t)
	tb := s.newTab(t, "/?example=vector-add")
	tb.waitLoaded("vector-add.ptx")
	r := exampleRef(t, "vector-add")
	tb.setCount(6)
	tb.button("step-round")
	r.step(emu.StepRound, 6)
	tb.waitAt(r)
	tb.button("step-round")
	r.step(emu.StepRound, 6)
	tb.waitAt(r)
	tb.setCount(1)
	tb.button("step-warp")
	r.step(emu.StepWarpInstruction, 1)
	tb.waitAt(r)
	tb.showTab("regs")
	tb.waitJS("%rd5 to hold a's addresses", `(document.querySelector('td.val[data-reg="%rd5"][data-lane="1"]')?.textContent ?? "") === "a+4"`)
	return tb
}

// visibleLanesJS counts the lane cells of register reg that lie wholly
// inside the visible part of the register pane (and of the viewport) and
// whose text is not cut, after scrolling the row into view vertically only.
func visibleLanesJS(reg string) string {
	return fmt.Sprintf(`(() => {
		const th = document.querySelector('#pg-tab-regs th.reg-name[data-name="%s"]');
		const sc = document.querySelector("#pg-tab-regs .regs-scroll");
		if (!th || !sc) return {error: "no row or no pane"};
		sc.scrollLeft = 0;
		const b0 = sc.getBoundingClientRect();
		const r0 = th.getBoundingClientRect();
		const head = th.closest("table").tHead.getBoundingClientRect().height;
		if (r0.top < b0.top + head || r0.bottom > b0.top + sc.clientHeight) sc.scrollTop += r0.top - b0.top - head - 4;
		const b = sc.getBoundingClientRect();
		const left = Math.max(b.left + sc.clientLeft, 0), top = Math.max(b.top + sc.clientTop, 0);
		const right = Math.min(left + sc.clientWidth, document.documentElement.clientWidth);
		const bottom = Math.min(top + sc.clientHeight, innerHeight);
		const sticky = th.getBoundingClientRect().right;
		const cells = [...th.parentElement.querySelectorAll("td.val")];
		let visible = 0;
		const texts = [];
		for (const td of cells) {
			const r = td.getBoundingClientRect();
			const inside = r.left >= Math.max(left, sticky) - 0.5 && r.right <= right + 0.5 && r.top >= top - 0.5 && r.bottom <= bottom + 0.5;
			if (inside && td.scrollWidth <= td.clientWidth + 1) {
				visible++;
				texts.push(td.textContent);
			}
		}
		return {visible, cells: cells.length, bits: Number(cells[0]?.dataset.bits ?? 0), paneWidth: sc.clientWidth, scrollLeft: sc.scrollLeft, texts};
	})()`, reg)
}

// TestLayoutPresenter checks presenter mode at 1024×768 (a projector):
// the z key and the header button toggle it, it is remembered, and at
// least 8 lanes of a 64-bit register fit in the register pane without
// scrolling it sideways, shown as buffer+offset, with readable contrast
// in both themes.
func TestLayoutPresenter(t *testing.T) {
	tb := steppedVectorAdd(t)
	tb.viewport(1024, 768)
	tb.expectNoOverflow("1024×768")
	tb.screenshot("1024x768-normal")

	tb.blurFocus()
	tb.key("z")
	tb.waitJS("presenter mode", `document.documentElement.classList.contains("presenter")`)
	var st struct {
		Stored  string `json:"stored"`
		Pressed string `json:"pressed"`
	}
	tb.eval(`({stored: localStorage.getItem("ptxplay.presenter"), pressed: document.querySelector('[data-action="presenter"]').getAttribute("aria-pressed")})`, &st)
	if st.Stored != "1" || st.Pressed != "true" {
		t.Errorf("after z: localStorage ptxplay.presenter = %q, the button's aria-pressed = %q; want 1 and true", st.Stored, st.Pressed)
	}

	// %rd5 = a + 4 × the lane's element: a 64-bit register.
	var got struct {
		Visible    int      `json:"visible"`
		Cells      int      `json:"cells"`
		Bits       int      `json:"bits"`
		PaneWidth  float64  `json:"paneWidth"`
		ScrollLeft float64  `json:"scrollLeft"`
		Texts      []string `json:"texts"`
		Error      string   `json:"error"`
	}
	tb.eval(visibleLanesJS("%rd5"), &got)
	if got.Error != "" {
		t.Fatal(got.Error)
	}
	t.Logf("1024×768 presenter: %d of %d lanes of %%rd5 (%d-bit) visible in a %.0fpx pane: %v", got.Visible, got.Cells, got.Bits, got.PaneWidth, got.Texts)
	if got.Bits != 64 || got.Cells != 32 {
		t.Fatalf("%%rd5 has %d cells of %d bits, want 32 of 64", got.Cells, got.Bits)
	}
	if got.Visible < 8 {
		t.Errorf("only %d lanes of a 64-bit register are visible at 1024×768 in presenter mode, want at least 8", got.Visible)
	}
	for l, text := range got.Texts {
		if want := fmt.Sprintf("a+%d", 4*l); text != want {
			t.Errorf("%%rd5 lane %d shows %q, want %q", l, text, want)
		}
	}
	tb.screenshot("1024x768-presenter")

	// The page fits; every control is on screen and not covered.
	tb.expectNoOverflow("1024×768 presenter")
	tb.expectControlsVisible("1024×768 presenter")

	// Contrast of values and of secondary text, in the light and the dark
	// theme.
	for _, theme := range []string{"light", "dark"} {
		tb.eval(fmt.Sprintf(`(document.documentElement.dataset.theme = %q, true)`, theme), nil)
		tb.settle()
		var c struct{ Value, Lane, Muted, Faint float64 }
		tb.eval(contrastJS, &c)
		t.Logf("%s presenter contrast: values %.1f, lane numbers %.1f, muted text %.1f, faint text %.1f", theme, c.Value, c.Lane, c.Muted, c.Faint)
		if c.Value < 7 || c.Muted < 7 || c.Lane < 4.5 || c.Faint < 4.5 {
			t.Errorf("%s theme in presenter mode: contrast values %.1f, muted %.1f (want ≥ 7), lane numbers %.1f, faint %.1f (want ≥ 4.5)", theme, c.Value, c.Muted, c.Lane, c.Faint)
		}
		tb.screenshot("1024x768-presenter-" + theme)
	}

	// Remembered across a reload; the button turns it off.
	tb.navigate("/?example=vector-add")
	tb.waitRestored()
	tb.waitJS("presenter mode after a reload", `document.documentElement.classList.contains("presenter") && document.querySelector('[data-action="presenter"]').getAttribute("aria-pressed") === "true"`)
	tb.click(`[data-action="presenter"]`)
	tb.waitJS("presenter mode off", `!document.documentElement.classList.contains("presenter") && localStorage.getItem("ptxplay.presenter") === "0"`)
}

// contrastJS measures WCAG contrast ratios in the register pane: a value
// cell's text, its lane number, and the muted and faint text colours,
// each against the background it is drawn on.
const contrastJS = `(() => {
	const rgba = (s) => { const m = s.match(/[\d.]+/g).map(Number); return [m[0], m[1], m[2], m.length > 3 ? m[3] : 1]; };
	const bg = (el) => {
		for (; el; el = el.parentElement) {
			const c = rgba(getComputedStyle(el).backgroundColor);
			if (c[3] > 0.5) return c;
		}
		return [255, 255, 255, 1];
	};
	const blend = (fg, back, alpha) => fg.slice(0, 3).map((v, i) => v * alpha + back[i] * (1 - alpha));
	const lum = (c) => { const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; }; return 0.2126 * f(c[0]) + 0.7152 * f(c[1]) + 0.0722 * f(c[2]); };
	const ratio = (a, b) => { const x = lum(a), y = lum(b); return (Math.max(x, y) + 0.05) / (Math.min(x, y) + 0.05); };
	const td = document.querySelector('#pg-tab-regs td.val[data-reg="%r1"][data-lane="3"]');
	const back = bg(td);
	const value = rgba(getComputedStyle(td).color);
	const before = getComputedStyle(td, "::before");
	const lane = blend(rgba(before.color), back, Number(before.opacity) * rgba(before.color)[3]);
	const muted = document.querySelector("#pg-tab-regs .pane-sub");
	const faint = document.querySelector("#pg-tab-regs th.reg-corner");
	return {
		Value: ratio(blend(value, back, value[3]), back),
		Lane: ratio(lane, back),
		Muted: ratio(blend(rgba(getComputedStyle(muted).color), bg(muted), 1), bg(muted)),
		Faint: ratio(blend(rgba(getComputedStyle(faint).color), bg(faint), 1), bg(faint)),
	};
})()`

// layoutJS reports the page's width and height against the viewport.
const layoutJS = `({
	innerW: innerWidth, innerH: innerHeight,
	clientW: document.documentElement.clientWidth,
	scrollW: document.documentElement.scrollWidth,
	scrollH: document.documentElement.scrollHeight,
})`

type pageSize struct {
	InnerW  int `json:"innerW"`
	InnerH  int `json:"innerH"`
	ClientW int `json:"clientW"`
	ScrollW int `json:"scrollW"`
	ScrollH int `json:"scrollH"`
}

// expectNoOverflow fails when the page scrolls sideways, or when a control
// or a pane pokes out of the viewport at the right.
func (tb *tab) expectNoOverflow(what string) pageSize {
	tb.t.Helper()
	var p pageSize
	tb.eval(layoutJS, &p)
	tb.t.Logf("%s: viewport %dx%d, page %d wide (client %d), %d tall", what, p.InnerW, p.InnerH, p.ScrollW, p.ClientW, p.ScrollH)
	if p.ScrollW > p.InnerW || p.ScrollW > p.ClientW {
		tb.t.Errorf("%s: the page is %dpx wide in a %dpx viewport (%dpx without the scrollbar): it scrolls sideways", what, p.ScrollW, p.InnerW, p.ClientW)
	}
	var out []string
	tb.eval(`(() => {
		const out = [];
		const w = document.documentElement.clientWidth;
		for (const el of document.querySelectorAll("#pg-top > *, .site-header > *, #pg-controls *, .pane-head > *, .tabbar > .tab, .pane, .tabpanel:not([hidden]) > .toolbar > *, .pg-left, .pg-editor")) {
			const r = el.getBoundingClientRect();
			if (r.width === 0 || getComputedStyle(el).visibility === "hidden") continue;
			if (r.left < -0.5 || r.right > w + 0.5) out.push((el.id || el.className || el.tagName) + " " + Math.round(r.left) + ".." + Math.round(r.right));
		}
		return out;
	})()`, &out)
	if len(out) > 0 {
		tb.t.Errorf("%s: outside the viewport sideways: %s", what, strings.Join(out, ", "))
	}
	return p
}

// expectControlsVisible fails when a control, the tabs or the register
// toolbar is off screen or covered by something else.
func (tb *tab) expectControlsVisible(what string) {
	tb.t.Helper()
	var hidden []string
	tb.eval(`(() => {
		const hidden = [];
		for (const b of document.querySelectorAll("#pg-controls [data-action], #pg-top [data-action], #pg-count, #pg-timeline, .tabbar [data-tab], #pg-tab-regs .toolbar select, #pg-tab-regs .toolbar input, #pg-tab-regs .seg-btn")) {
			if (b.closest("[hidden]")) continue; // deliberately hidden (Fork off a share link)
			const r = b.getBoundingClientRect();
			const x = (r.left + r.right) / 2, y = (r.top + r.bottom) / 2;
			const top = document.elementFromPoint(x, y);
			if (r.width === 0 || r.left < 0 || r.right > innerWidth || r.bottom > innerHeight || !top || !(b === top || b.contains(top) || top.contains(b) && top.tagName === "LABEL")) hidden.push(b.dataset.action || b.dataset.tab || b.dataset.orient || b.id || b.getAttribute("aria-label"));
		}
		return hidden;
	})()`, &hidden)
	if len(hidden) > 0 {
		tb.t.Errorf("%s: controls off screen or covered: %v", what, hidden)
	}
}

// TestLayoutPhone checks 390×844: the panes stack, the page never scrolls
// sideways (the tables scroll inside their panes), and the editor, the
// controls and the register table are each reachable by scrolling down.
func TestLayoutPhone(t *testing.T) {
	tb := steppedVectorAdd(t)
	tb.viewport(390, 844)
	tb.eval(`(scrollTo(0, 0), true)`, nil)
	p := tb.expectNoOverflow("390×844")
	if p.ScrollH <= p.InnerH {
		t.Errorf("390×844: the page is %dpx tall: the panes should stack and the page scroll", p.ScrollH)
	}
	tb.screenshot("390x844-top")

	for _, part := range []struct{ name, sel string }{
		{"controls", "#pg-controls"},
		{"editor", "#pg-editor"},
		{"warps", "#pg-warps .warp-row"},
		{"register table", `#pg-tab-regs th.reg-name[data-name="%rd5"]`},
	} {
		var r struct {
			Top, Left, Right, Bottom, ScrollY float64
			Hit                               bool
			Scroller                          string
		}
		tb.eval(fmt.Sprintf(`(() => {
			const el = document.querySelector(%q);
			el.scrollIntoView({block: "center", inline: "nearest"});
			const r = el.getBoundingClientRect();
			const x = Math.min(r.left + 10, innerWidth - 1), y = (r.top + r.bottom) / 2;
			const top = document.elementFromPoint(x, y);
			return {Top: r.top, Left: r.left, Right: r.right, Bottom: r.bottom, ScrollY: scrollY, Hit: !!top && (el === top || el.contains(top) || top.contains(el))};
		})()`, part.sel), &r)
		t.Logf("390×844: %s at y %.0f..%.0f, x %.0f..%.0f after scrolling the page to %.0f", part.name, r.Top, r.Bottom, r.Left, r.Right, r.ScrollY)
		if r.Top < 0 || r.Bottom > float64(p.InnerH) || r.Left < 0 || r.Left >= float64(p.ClientW) || !r.Hit {
			t.Errorf("390×844: the %s is not reachable by scrolling down: at y %.0f..%.0f, x %.0f..%.0f, on top: %v", part.name, r.Top, r.Bottom, r.Left, r.Right, r.Hit)
		}
		if part.name == "register table" {
			tb.screenshot("390x844-registers")
		}
	}
	// The register table scrolls inside its pane, not the page.
	var wide struct{ Scroll, Client int }
	tb.eval(`(() => { const sc = document.querySelector("#pg-tab-regs .regs-scroll"); return {Scroll: sc.scrollWidth, Client: sc.clientWidth}; })()`, &wide)
	if wide.Scroll <= wide.Client {
		t.Errorf("390×844: the register table (%d px) should scroll inside its %dpx pane", wide.Scroll, wide.Client)
	}
	tb.expectNoOverflow("390×844 scrolled")

	// The same in presenter mode.
	tb.click(`[data-action="presenter"]`)
	tb.waitJS("presenter mode", `document.documentElement.classList.contains("presenter")`)
	tb.settle()
	tb.eval(`(scrollTo(0, 0), true)`, nil)
	tb.expectNoOverflow("390×844 presenter")
	tb.screenshot("390x844-presenter-top")
}

// TestLayoutWide checks 1440×900 in normal mode: side by side, nothing
// overflows, nothing covered, the page itself does not scroll.
func TestLayoutWide(t *testing.T) {
	tb := steppedVectorAdd(t)
	tb.viewport(1440, 900)
	p := tb.expectNoOverflow("1440×900")
	if p.ScrollH > p.InnerH {
		t.Errorf("1440×900: the page is %dpx tall in a %dpx viewport: the panes should fit", p.ScrollH, p.InnerH)
	}
	tb.expectControlsVisible("1440×900")
	var side bool
	tb.eval(`(() => { const l = document.querySelector(".pg-left").getBoundingClientRect(), t = document.querySelector(".pg-tabs").getBoundingClientRect(); return l.right <= t.left + 1; })()`, &side)
	if !side {
		t.Errorf("1440×900: the editor and the inspectors should sit side by side")
	}
	var got struct {
		Visible int `json:"visible"`
	}
	tb.eval(visibleLanesJS("%rd5"), &got)
	t.Logf("1440×900: %d lanes of %%rd5 visible", got.Visible)
	tb.screenshot("1440x900")
}

// TestLayoutOrientation checks the register table: one table per register
// width, the format menu (hex, decimal, auto), and the switch between a
// row per register and a row per lane, which is remembered.
func TestLayoutOrientation(t *testing.T) {
	tb := steppedVectorAdd(t)
	tb.viewport(1280, 800)
	type shape struct {
		Orient    string   `json:"orient"`
		Tables    int      `json:"tables"`
		Rows      int      `json:"rows"`
		FirstHead string   `json:"firstHead"`
		Lanes     []string `json:"lanes"`
		Regs      []string `json:"regs"`
		Pressed   string   `json:"pressed"`
		Stored    string   `json:"stored"`
	}
	const shapeJS = `(() => {
		const tables = [...document.querySelectorAll("#pg-tab-regs table.regs")];
		const first = tables[0].tBodies[0].rows[0];
		const cells = [...first.querySelectorAll("td.val")];
		return {
			orient: tables[0].dataset.orient, tables: tables.length,
			rows: tables.reduce((n, t) => n + t.tBodies[0].rows.length, 0),
			firstHead: first.cells[0].textContent,
			lanes: [...new Set(cells.map((c) => c.dataset.lane))],
			regs: [...new Set(cells.map((c) => c.dataset.reg))],
			pressed: document.querySelector('#pg-tab-regs .seg-btn[aria-pressed="true"]').dataset.orient,
			stored: localStorage.getItem("ptxplay.regorient"),
		};
	})()`
	var s shape
	tb.eval(shapeJS, &s)
	t.Logf("register-major: %+v", s)
	if s.Orient != "registers" || s.Pressed != "registers" || len(s.Lanes) != 32 || len(s.Regs) != 1 || s.FirstHead != "%p0" {
		t.Errorf("by default the table should have a row per register (32 lane columns): %+v", s)
	}
	if s.Tables != 3 {
		t.Errorf("register-major: %d tables, want 3 (predicates, 32-bit, 64-bit)", s.Tables)
	}
	// Each width has its own table: a 32-bit register never gets the
	// column width of a 64-bit one.
	var misplaced []string
	tb.eval(`[...document.querySelectorAll("#pg-tab-regs td.val")].filter((td) => {
		const g = td.closest("table").dataset.group, b = Number(td.dataset.bits);
		return g !== (b === 1 ? "pred" : b > 32 ? "64" : "32");
	}).map((td) => td.dataset.reg + "/" + td.dataset.lane)`, &misplaced)
	if len(misplaced) > 0 {
		t.Errorf("cells in the table of another width: %v", misplaced)
	}
	tb.screenshot("registers-by-register")

	// The format menu: hex, decimal, and back to auto (by type), remembered.
	var rd5 string
	tb.eval(`document.querySelector('#pg-tab-regs td.val[data-reg="%rd5"][data-lane="1"]').dataset.hex`, &rd5)
	addr, err := strconv.ParseUint(rd5, 16, 64)
	if err != nil {
		t.Fatalf("%%rd5 lane 1 holds %q", rd5)
	}
	for _, f := range []struct{ choice, rd5, r3, f1 string }{
		{"hex", fmt.Sprintf("0x%016x", addr), "0x00000001", "0x00000000"},
		{"decimal", strconv.FormatUint(addr, 10), "1", "0"},
		{"auto", "a+4", "1", "0"},
	} {
		tb.eval(fmt.Sprintf(`(() => { const s = document.querySelector('#pg-tab-regs select[aria-label="Format of all registers"]'); s.value = %q; s.dispatchEvent(new Event("change", {bubbles: true})); return true; })()`, f.choice), nil)
		tb.waitFor("the "+f.choice+" format", func() string {
			var got struct {
				Rd5, R3, F1, Stored string
			}
			if err := tb.tryEval(`(() => {
				const v = (r) => document.querySelector('#pg-tab-regs td.val[data-reg="' + r + '"][data-lane="1"]').textContent;
				return {Rd5: v("%rd5"), R3: v("%r3"), F1: v("%f1"), Stored: JSON.parse(localStorage.getItem("ptxplay.regfmt")).global};
			})()`, &got); err != nil {
				return err.Error()
			}
			if got.Rd5 != f.rd5 || got.R3 != f.r3 || got.F1 != f.f1 || got.Stored != f.choice {
				return fmt.Sprintf("lane 1 shows %%rd5 %q, %%r3 %q, %%f1 %q (stored %q); want %q, %q, %q", got.Rd5, got.R3, got.F1, got.Stored, f.rd5, f.r3, f.f1)
			}
			return ""
		})
	}

	tb.click(`#pg-tab-regs .seg-btn[data-orient="lanes"]`)
	tb.waitJS("the lane-major table", `document.querySelector("#pg-tab-regs table.regs").dataset.orient === "lanes"`)
	tb.eval(shapeJS, &s)
	t.Logf("lane-major: %+v", s)
	if s.Tables != 1 || s.Rows != 32 || s.FirstHead != "0" || len(s.Lanes) != 1 || s.Lanes[0] != "0" || len(s.Regs) != 20 || s.Pressed != "lanes" || s.Stored != "lanes" {
		t.Errorf("lane-major: want one table of 32 rows (one per lane), each with a cell for each of the 20 registers: %+v", s)
	}
	// The values are the same cells: %rd5 of lane 3 is a+12.
	var v string
	tb.eval(`document.querySelector('#pg-tab-regs table.regs tbody tr:nth-child(4) td.val[data-reg="%rd5"]').textContent`, &v)
	if v != "a+12" {
		t.Errorf("lane-major: lane 3 of %%rd5 shows %q, want a+12", v)
	}
	tb.screenshot("registers-by-lane")

	// Remembered across a reload.
	tb.navigate("/?example=vector-add")
	tb.waitRestored()
	tb.showTab("regs")
	tb.waitJS("the lane-major table after a reload", `document.querySelector("#pg-tab-regs table.regs")?.dataset.orient === "lanes"`)
	tb.click(`#pg-tab-regs .seg-btn[data-orient="registers"]`)
	tb.waitJS("the register-major table", `document.querySelector("#pg-tab-regs table.regs").dataset.orient === "registers" && localStorage.getItem("ptxplay.regorient") === "registers"`)
}

// TestLayoutLaneNumbers checks that every register cell shows its lane
// number and every lane strip has numbers above it, and that hovering a
// cell or a strip names the thread (x, y, z) and the CTA.
func TestLayoutLaneNumbers(t *testing.T) {
	tb := steppedVectorAdd(t)
	tb.viewport(1280, 800)
	// Select warp 1 of CTA 1: its lane 5 is thread 32+5 = 37 of block 1,
	// element i = 64 + 37 = 101.
	tb.click(`#pg-warps .warp-row[data-cta="1"][data-warp="1"]`)
	tb.waitJS("warp 1 of CTA 1 in the registers view", `document.querySelector("#pg-tab-regs .pane-sub").textContent === "CTA 1 · warp 1"`)
	tb.waitJS("its registers", `document.querySelector('td.val[data-reg="%rd5"][data-lane="5"]').textContent === "a+404"`)

	var nums struct {
		Cells, Numbered int
		Sample          string
		Ruler           []string
		Strips, Titled  int
	}
	tb.eval(`(() => {
		const cells = [...document.querySelectorAll("#pg-tab-regs td.val")];
		const numbered = cells.filter((td) => getComputedStyle(td, "::before").content === '"' + td.dataset.lane + '"');
		const strips = [...document.querySelectorAll("#pg-warps .warp-row .ln")];
		return {
			Cells: cells.length, Numbered: numbered.length,
			Sample: getComputedStyle(document.querySelector('td.val[data-reg="%r1"][data-lane="7"]'), "::before").content,
			Ruler: [...document.querySelectorAll("#pg-warps .lane-ruler .ln-no")].map((n) => n.textContent),
			Strips: strips.length,
			Titled: strips.filter((s) => /^lane \d+ · thread \(\d+, \d+, \d+\) · CTA \(\d+, \d+, \d+\)/.test(s.title)).length,
		};
	})()`, &nums)
	t.Logf("%d of %d register cells numbered (lane 7: %s); ruler %v; %d of %d strip cells titled", nums.Numbered, nums.Cells, nums.Sample, nums.Ruler, nums.Titled, nums.Strips)
	if nums.Cells == 0 || nums.Numbered != nums.Cells {
		t.Errorf("%d of %d register cells show their lane number", nums.Numbered, nums.Cells)
	}
	if len(nums.Ruler) != 32 || nums.Ruler[0] != "0" || nums.Ruler[31] != "31" {
		t.Errorf("the lane ruler above the strips reads %v, want 0…31", nums.Ruler)
	}
	if nums.Strips == 0 || nums.Titled != nums.Strips {
		t.Errorf("%d of %d lane strip cells have a thread title", nums.Titled, nums.Strips)
	}

	var strip string
	tb.eval(`document.querySelector('#pg-warps .warp-row[data-cta="1"][data-warp="1"] .ln[data-lane="5"]').title`, &strip)
	if want := "lane 5 · thread (37, 0, 0) · CTA (1, 0, 0)"; !strings.HasPrefix(strip, want) {
		t.Errorf("lane 5 of warp 1 of CTA 1: strip title %q, want %q", strip, want)
	}

	// Hovering a value cell names its thread and CTA, then the value's
	// readings (a+404 is &a[101]).
	cell := `#pg-tab-regs td.val[data-reg="%rd5"][data-lane="5"]`
	tb.hover(cell)
	var title string
	tb.waitFor("the hover title of %rd5 lane 5", func() string {
		if err := tb.tryEval(fmt.Sprintf(`document.querySelector(%q).title`, cell), &title); err != nil {
			return err.Error()
		}
		if !strings.HasPrefix(title, "%rd5 · lane 5 · thread (37, 0, 0) · CTA (1, 0, 0)") || !strings.Contains(title, "&a[101]") {
			return fmt.Sprintf("title %q", title)
		}
		return ""
	})
	t.Logf("hover title:\n%s", title)
	var head string
	tb.eval(`document.querySelector('#pg-tab-regs table.regs[data-group="64"] th.lane-h[data-lane="5"]').title`, &head)
	if !strings.HasPrefix(head, "lane 5 · thread (37, 0, 0) · CTA (1, 0, 0)") {
		t.Errorf("the lane 5 column head's title is %q", head)
	}
	tb.screenshot("lane-numbers")
}
