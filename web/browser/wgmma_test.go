package browser

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ptxplayground/ptxplay/engine/emu"
)

// wgmmaSrc: 128 threads write A (64x16 f16, K-major, no swizzle: LBO 128,
// SBO 256) and B (8x16) to shared memory, halfword i holding the value i,
// then one wgmma.mma_async m64n8k16 (sessions/wgmma_view_test.go's kernel).
const wgmmaSrc = `.version 8.0
.target sm_90a
.address_size 64

.visible .entry wgtile(.param .u64 out) {
	.shared .align 1024 .b8 smem[2304];
	.reg .b32 %r<8>;
	.reg .f32 %f<8>;
	.reg .b16 %h<2>;
	.reg .b64 %rd<6>;
	.reg .pred %p<3>;
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, smem;
	mov.u32 %r3, %r1;
FILL:
	cvt.rn.f32.u32 %f5, %r3;
	cvt.rn.f16.f32 %h1, %f5;
	shl.b32 %r4, %r3, 1;
	add.u32 %r4, %r4, %r2;
	st.shared.b16 [%r4], %h1;
	add.u32 %r3, %r3, 128;
	setp.lt.u32 %p1, %r3, 1152;
	@%p1 bra FILL;
	fence.proxy.async.shared::cta;
	bar.sync 0;
	mov.b64 %rd1, 0x0000001000080000;
	mov.b64 %rd2, 0x0000001000080080;
	mov.f32 %f0, 0f00000000;
	mov.f32 %f1, 0f00000000;
	mov.f32 %f2, 0f00000000;
	mov.f32 %f3, 0f00000000;
	setp.ne.u32 %p2, %r1, 1000;
	wgmma.fence.sync.aligned;
	wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%f0, %f1, %f2, %f3}, %rd1, %rd2, %p2, 1, 1, 0, 0;
	wgmma.commit_group.sync.aligned;
	wgmma.wait_group.sync.aligned 0;
	ld.param.u64 %rd3, [out];
	mul.wide.u32 %rd4, %r1, 16;
	add.u64 %rd3, %rd3, %rd4;
	st.global.v4.f32 [%rd3], {%f0, %f1, %f2, %f3};
	ret;
}
`

const wgmmaSpecJSON = `{"grid":[1],"block":[128],"buffers":[{"name":"out","type":"f32","count":512}],"params":[{"buffer":"out"}]}`

// openWgmma opens the page on src and steps it (and a reference) until
// every warp of the warpgroup has issued and committed the mma_async and
// none has reached the wgmma.wait_group that lands it.
func openWgmma(t *testing.T, s *suite, src string) (*tab, *ref) {
	var spec map[string]any
	if err := json.Unmarshal([]byte(wgmmaSpecJSON), &spec); err != nil {
		t.Fatal(err)
	}
	data, err := json.Marshal(map[string]any{"title": "wgmma tile", "source": src, "spec": spec, "id": "AAAAAAAAAAAA"})
	if err != nil {
		t.Fatal(err)
	}
	r := newRef(t, "wgtile.ptx", src, []byte(wgmmaSpecJSON))
	n := 0
	for all := false; !all; {
		if n > 5000 || r.m.Stopped() {
			t.Fatalf("the mma_async is not committed in every warp after %d steps", n)
		}
		r.step(emu.StepWarpInstruction, 1)
		n++
		all = true
		for w := range 4 {
			g := r.warp(0, w).PendingWgmma()
			all = all && len(g) == 1 && g[0].Committed
		}
	}
	tb := s.newTab(t, "/"+linkFragment(t, data))
	tb.wake()
	tb.waitLoaded("wgtile.ptx")
	tb.viewport(1440, 900)
	tb.setCount(n)
	tb.button("step-warp")
	tb.waitAt(r)
	return tb, r
}

// TestWgmmaExplorer: stepped to a wgmma.mma_async in flight, the warps
// pane lists the warp's wgmma-group in flight; the
// Fragments tab draws the form's 64x8 accumulator over the 128 threads
// (cells where the ISA's layout puts them, warp 0's values live), the
// descriptor view decodes A's and B's descriptors and draws every element
// at the shared byte the layout gives with its value; after the wait the
// accumulator holds the product. The export carries the descriptor view.
// Screenshots at 1440×900, 1024×768 presenter and 390×844.
func TestWgmmaExplorer(t *testing.T) {
	s := need(t)
	tb, r := openWgmma(t, s, wgmmaSrc)
	// The warps pane: each warp's group in flight.
	var flight []string
	tb.eval(`[...document.querySelectorAll(".warp-row .warp-async")].map((f) => f.hidden ? "" : f.textContent)`, &flight)
	if len(flight) != 4 || flight[0] != "wgmma: 1 group in flight (1 mma_async)" || flight[3] != flight[0] {
		t.Errorf("the warps' in-flight summaries %q", flight)
	}
	tb.waitJS("the wgmma detail", `!!document.querySelector(".warp-wgmma-detail tr[data-group='0'][data-committed='1']")`)
	tb.screenshot("wgmma-warps-1440")
	// The Fragments tab on the kernel's mma_async.
	tb.showTab("fragments")
	tb.waitJS("the kernel's wgmma", `[...document.querySelectorAll("#pg-tab-fragments select[aria-label='Instruction of the kernel'] option")].some((o) => o.textContent.includes("wgmma.m64n8k16.f32.f16.f16"))`)
	tb.eval(`(() => { const s = document.querySelector("#pg-tab-fragments select[aria-label='Instruction of the kernel']");
		s.value = [...s.options].find((o) => o.textContent.includes("wgmma"))?.value; s.dispatchEvent(new Event("change")); return true; })()`, nil)
	tb.waitJS("the accumulator and the descriptor view", `document.querySelectorAll("#pg-tab-fragments .frag-op[data-operand='d'] .frag-cell").length === 512 &&
		document.querySelectorAll("#pg-tab-fragments .wg-desc").length === 2`)
	// D: thread t = 32w + 4g + q, element i: row 16w + g + 8(i/2 % 2), column 8(i/4) + 2q + i%2.
	for _, c := range []struct{ t, i int }{{0, 0}, {37, 3}, {127, 2}, {70, 1}} {
		w, g, q := c.t/32, c.t%32/4, c.t%4
		row, col := 16*w+g+8*(c.i/2%2), 8*(c.i/4)+2*q+c.i%2
		var got string
		tb.eval(fmt.Sprintf(`(() => { const e = document.querySelector("#pg-tab-fragments .frag-op[data-operand='d'] .frag-cell[data-lane='%d'][data-reg='%d']"); return e ? e.dataset.row + "," + e.dataset.col : ""; })()`, c.t, c.i), &got)
		if want := fmt.Sprintf("%d,%d", row, col); got != want {
			t.Errorf("D thread %d register %d at %q, want %s", c.t, c.i, got, want)
		}
	}
	var facts struct {
		Values, ACells, BCells, RegA int
		Text                         string
	}
	tb.eval(`(() => { const p = document.getElementById("pg-tab-fragments");
		return {Values: p.querySelectorAll(".frag-op[data-operand='d'] .frag-cell[data-value]").length, RegA: p.querySelectorAll(".frag-op[data-operand='a']:not(.wg-desc)").length,
			ACells: p.querySelectorAll(".wg-desc[data-operand='a'] .wg-cell").length, BCells: p.querySelectorAll(".wg-desc[data-operand='b'] .wg-cell").length, Text: p.textContent}; })()`, &facts)
	if facts.Values != 128 || facts.RegA != 0 || facts.ACells != 1024 || facts.BCells != 128 {
		t.Errorf("live D values %d (want warp 0's 128), register-A grids %d (want 0: A comes from shared memory), A cells %d (1024), B cells %d (128)", facts.Values, facts.RegA, facts.ACells, facts.BCells)
	}
	for _, want := range []string{"%rd1 = 0x0000001000080000", "%rd2 = 0x0000001000080080", "0x800 (2048)", "K-major · f16 (16-bit)", "threads 0–31 of its warpgroup", "D keeps its old values until the wgmma.wait_group"} {
		if !strings.Contains(facts.Text, want) {
			t.Errorf("the Fragments tab does not say %q", want)
		}
	}
	// A[m][k] at (m%8)*16 + (m/8)*SBO + (k/8)*LBO + (k%8)*2 holding byte/2;
	// B[k][n] at 2048 + (n%8)*16 + (k/8)*128 + (k%8)*2.
	cell := func(op string, r, k int) string {
		var s string
		tb.eval(fmt.Sprintf(`(() => { const e = document.querySelector("#pg-tab-fragments .wg-desc[data-operand='%s'] .wg-cell[data-r='%d'][data-k='%d']"); return e ? e.dataset.addr + "=" + e.dataset.value : ""; })()`, op, r, k), &s)
		return s
	}
	for _, c := range [][2]int{{0, 0}, {9, 3}, {37, 12}, {63, 15}} {
		m, k := c[0], c[1]
		b := m%8*16 + m/8*256 + k/8*128 + k%8*2
		if got, want := cell("a", m, k), fmt.Sprintf("%d=%d", b, b/2); got != want {
			t.Errorf("A[%d][%d]: %q, want %s", m, k, got, want)
		}
	}
	for _, c := range [][2]int{{0, 0}, {5, 9}, {7, 15}} {
		n, k := c[0], c[1]
		b := 2048 + n%8*16 + k/8*128 + k%8*2
		if got, want := cell("b", n, k), fmt.Sprintf("%d=%d", b, b/2); got != want {
			t.Errorf("B[%d][%d]: %q, want %s", k, n, got, want)
		}
	}
	// The export: the descriptor view comes with the picture.
	tb.eval(`(() => { window.__dl = []; const made = URL.createObjectURL.bind(URL); let last = null;
		URL.createObjectURL = (b) => { last = b; return made(b); };
		HTMLAnchorElement.prototype.click = function () {
			const b = last, name = this.download;
			(b.type.includes("svg") ? b.text() : Promise.resolve("")).then((text) => window.__dl.push({name, type: b.type, size: b.size, text}));
		}; return true; })()`, nil)
	tb.click(`#pg-tab-fragments [data-export="svg"]`)
	tb.click(`#pg-tab-fragments [data-export="png"]`)
	tb.waitJS("two downloads", `window.__dl.length === 2`)
	var dl []struct {
		Name, Type, Text string
		Size             int
	}
	tb.eval(`window.__dl`, &dl)
	for _, d := range dl {
		switch {
		case strings.HasSuffix(d.Name, ".svg"):
			for _, want := range []string{"kernel wgtile · line ", "CTA #0 warp 0 · form wgmma.m64n8k16.f32.f16.f16", "start 0x0 · LBO 128 · SBO 256 · base offset 0 · swizzle none", "B (16×8; drawn by n"} {
				if !strings.Contains(d.Text, want) {
					t.Errorf("the SVG %s does not say %q", d.Name, want)
				}
			}
			if n := strings.Count(d.Text, `class="wg-cell"`); n != 1024+128 {
				t.Errorf("the SVG has %d descriptor cells, want 1152", n)
			}
		case strings.HasSuffix(d.Name, ".png"):
			if d.Type != "image/png" || d.Size < 1000 {
				t.Errorf("the PNG %s: %s, %d bytes", d.Name, d.Type, d.Size)
			}
		default:
			t.Errorf("download %q", d.Name)
		}
	}
	tb.atEverySize("the wgmma explorer", "wgmma")
	tb.phoneAt("#pg-tab-fragments .frag-op[data-operand='d']", "wgmma-d-390-scrolled")
	tb.viewport(390, 844)
	tb.eval(`(document.querySelector("#pg-tab-fragments .wg-desc[data-operand='b']").scrollIntoView({block: "start"}), true)`, nil)
	tb.expectNoOverflow("the descriptor view 390x844")
	tb.screenshot("wgmma-desc-390-scrolled")
	tb.viewport(1440, 900)
	// Past the wait: D[0][0] = sum over k of A[0][k] B[k][0] = 618264.
	for len(r.warp(0, 0).PendingWgmma()) > 0 {
		r.step(emu.StepWarpInstruction, 1)
	}
	cur, _ := tb.stepOf()
	tb.setCount(int(r.m.Stats().WarpInstructions) - cur)
	tb.button("step-warp")
	tb.waitAt(r)
	tb.waitJS("D[0][0] landed", `document.querySelector("#pg-tab-fragments .frag-op[data-operand='d'] .frag-cell[data-lane='0'][data-reg='0']")?.dataset.value === "618264"`)
}

// TestWgmmaWideForm: the widest accumulator (64x256, 16,384 cells) picked
// from the forms is drawn 32 columns at a time (a page picker), quickly,
// in its own scrolling box without widening the page.
func TestWgmmaWideForm(t *testing.T) {
	s := need(t)
	tb := s.newTab(t, "/")
	tb.viewport(1440, 900)
	tb.showTab("fragments")
	tb.waitJS("the wgmma forms", `!!document.querySelector("#pg-tab-fragments option[value='wgmma.m64n256k16.f32.f16.f16']")`)
	start := time.Now()
	tb.eval(`(() => { const s = document.querySelector("#pg-tab-fragments select[aria-label='Instruction']"); s.value = "wgmma.m64n256k16.f32.f16.f16"; s.dispatchEvent(new Event("change")); return true; })()`, nil)
	tb.waitJS("the 64x256 accumulator's first 64 columns", `document.querySelectorAll("#pg-tab-fragments .frag-op[data-operand='d'] .frag-cell").length === 64 * 32`)
	t.Logf("64x256 drawn in %v", time.Since(start))
	var ms []float64
	tb.eval(`(() => { const s = document.querySelector("#pg-tab-fragments select[aria-label='Instruction']"); const out = [];
		for (const k of ["wgmma.m64n8k16.f32.f16.f16", "wgmma.m64n256k16.f32.f16.f16"]) { const t0 = performance.now(); s.value = k; s.dispatchEvent(new Event("change")); document.body.getBoundingClientRect(); out.push(performance.now() - t0); }
		return out; })()`, &ms)
	t.Logf("redraw: %v ms", ms)
	// The last page of columns: 224-255.
	tb.eval(`(() => { const s = document.querySelector("#pg-tab-fragments .frag-op[data-operand='d'] select.frag-colpage"); s.value = "7"; s.dispatchEvent(new Event("change")); return true; })()`, nil)
	tb.waitJS("columns 224-255", `document.querySelectorAll("#pg-tab-fragments .frag-op[data-operand='d'] .frag-cell[data-col='255']").length === 64`)
	var thread string
	tb.eval(`document.querySelector("#pg-tab-fragments .frag-op[data-operand='d'] .frag-cell[data-row='63'][data-col='255'] title").textContent`, &thread)
	if ms[1] > 1000 { // a loaded 2-core machine
		t.Errorf("redrawing the 64x256 form took %.0f ms", ms[1])
	}
	// Row 63, column 255: warp 3, g 7, q 3, element 127 (f32: register 127).
	if !strings.Contains(thread, "thread 127 (warp 3 of the warpgroup, lane 31), register d127") {
		t.Errorf("D[63][255]: %q", thread)
	}
	tb.atEverySize("the 64x256 wgmma form", "wgmma-wide")
}
