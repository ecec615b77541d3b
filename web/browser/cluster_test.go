package browser

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ptxplayground/ptxplay/engine/emu"
)

// ctaLastObserver keeps the machine's last executed instruction and the
// CTA that executed it.
type ctaLastObserver struct {
	pc, warp, cta int
}

func (o *ctaLastObserver) Step(in *emu.StepInfo) { o.pc, o.warp, o.cta = in.PC, in.Warp, in.CTALin }

// TestClusterWarpsAndPeerMemory: the dsmem-exchange lesson (2 CTAs of one
// cluster, 32 threads each) stepped until CTA 0's warp waits at the
// cluster barrier (CTA 1 is still in its work loop): the Warps pane
// groups the 2 CTAs under one cluster heading that says 32 of the
// cluster's 64 threads arrived, and the warp's row reads "at cluster
// barrier". The Memory tab lists the cluster's CTAs beside shared memory;
// picking CTA 1 (the peer) shows the half CTA 0 stored there (1..32).
// Stepped on to CTA 1's st.shared::cluster, CTA 1's warp selected, its
// view of the peer (CTA 0) marks the 32 words that store wrote (33..64).
func TestClusterWarpsAndPeerMemory(t *testing.T) {
	s := need(t)
	e := example(t, "dsmem-exchange")
	r := exampleRef(t, "dsmem-exchange")
	var o ctaLastObserver
	r.m.SetObserver(&o)
	wi := 0
	for ; wi < 1000; wi++ {
		if cs := r.m.CTAs(); len(cs) == 2 && cs[0].Warps[0].State == emu.WarpWaiting {
			break
		}
		if r.m.Step(emu.StepWarpInstruction) != emu.StopStepped {
			t.Fatal("the reference stopped before CTA 0 waited at the cluster barrier")
		}
	}
	if w, ok := r.m.CTAs()[0].Warps[0].Waiting(); !ok || w.Kind != emu.WaitClusterBarrier {
		t.Fatalf("CTA 0 warp 0 waits for %v, want the cluster barrier", w)
	}
	waitLine := lineOf(t, e.Source, "barrier.cluster.wait;")

	tb := s.newTab(t, "/?example=dsmem-exchange")
	tb.waitLoaded("dsmem-exchange.ptx")
	tb.viewport(1440, 900)
	tb.setCount(wi)
	tb.button("step-warp")
	tb.waitStep(wi, wi)
	tb.waitJS("CTA 0's warp at the cluster barrier", `(document.querySelector('#pg-warps .warp-row[data-cta="0"][data-warp="0"] .warp-state') || {}).textContent === "at cluster barrier · 32/64"`)
	var pane struct {
		Groups   int      `json:"groups"`
		Title    string   `json:"title"`
		Bar      string   `json:"bar"`
		CTAs     []string `json:"ctas"`
		Rows     int      `json:"rows"`
		Kind     string   `json:"kind"`
		RowTitle string   `json:"rowTitle"`
	}
	tb.eval(`(() => { const g = document.querySelectorAll("#pg-warps .cluster-group"); const row = document.querySelector('#pg-warps .warp-row[data-cta="0"][data-warp="0"]');
		return {groups: g.length, title: g[0]?.querySelector(".cluster-title")?.textContent, bar: g[0]?.querySelector(".cluster-bar")?.textContent,
			ctas: [...(g[0]?.querySelectorAll(".cta-title") ?? [])].map((x) => x.textContent), rows: g[0]?.querySelectorAll(".warp-row").length ?? 0,
			kind: row.className, rowTitle: row.title}; })()`, &pane)
	if pane.Groups != 1 || pane.Title != "cluster (0) · 2 CTAs" || pane.Rows != 2 || fmt.Sprint(pane.CTAs) != "[CTA (0) · #0 · rank 0 CTA (1) · #1 · rank 1]" {
		t.Errorf("the warps pane's clusters: %+v", pane)
	}
	if pane.Bar != "cluster barrier: 32 of 64 threads arrived · waiting: rank 0 w0" {
		t.Errorf("the cluster heading's barrier: %q", pane.Bar)
	}
	if !strings.Contains(pane.Kind, "wk-barrier") || !strings.Contains(pane.RowTitle, "waiting for the cluster barrier (32 of 64 threads of the cluster arrived)") || !strings.Contains(pane.RowTitle, fmt.Sprintf("line %d", waitLine)) {
		t.Errorf("the waiting warp's row: class %q, title %q", pane.Kind, pane.RowTitle)
	}
	// The selected warp's thread group stands at the wait, not past it.
	var group string
	tb.eval(`[...document.querySelectorAll("#pg-warps .tg-row")].map((tr) => tr.dataset.state + " " + tr.querySelector(".tg-state").textContent + " " + tr.children[1].textContent).join("; ")`, &group)
	if want := fmt.Sprintf("at-wait waiting at the cluster barrier line %d", waitLine); group != want {
		t.Errorf("the waiting warp's thread groups: %q, want %q", group, want)
	}
	tb.atEverySize("cluster warps", "cluster-warps")
	tb.phoneAt("#pg-warps", "cluster-warps-390-scrolled")

	// The peer's shared memory: CTA 0 has stored its half (in[0..31] =
	// 1..32) in CTA 1's tile; CTA 1 has not stored its own yet.
	tb.showTab("memory")
	tb.waitJS("the shared-memory tab", `!!document.querySelector('#pg-tab-memory [data-key="shared"]')`)
	tb.click(`#pg-tab-memory [data-key="shared"]`)
	tb.waitJS("the cluster's CTAs", `document.querySelectorAll("#pg-tab-memory select.mem-cta option").length === 2`)
	var opts []string
	tb.eval(`[...document.querySelectorAll("#pg-tab-memory select.mem-cta option")].map((o) => o.textContent)`, &opts)
	if fmt.Sprint(opts) != "[rank 0 · CTA #0 (own) rank 1 · CTA #1 (peer)]" {
		t.Errorf("the shared-memory CTA list: %q", opts)
	}
	pick := func(lin int) {
		tb.eval(fmt.Sprintf(`(() => { const s = document.querySelector("#pg-tab-memory select.mem-cta"); s.value = "%d"; s.dispatchEvent(new Event("change")); return true; })()`, lin), nil)
	}
	cells := `[...document.querySelectorAll("#pg-tab-memory td.val:not(.pad)")].slice(0, 64).map((td) => td.textContent).join(",")`
	var want []string
	for i := range 64 {
		if i < 32 {
			want = append(want, fmt.Sprint(i+1))
		} else {
			want = append(want, "0")
		}
	}
	pick(1)
	tb.waitJS("CTA 1's tile", fmt.Sprintf(`%s === %q`, cells, strings.Join(want, ",")))
	tb.atEverySize("peer shared memory", "cluster-peer-memory")
	tb.phoneAt("#pg-tab-memory", "cluster-peer-memory-390-scrolled")

	// CTA 1's remote store: the page steps on to it, selects CTA 1's warp
	// and shows its peer, CTA 0, whose words 32..63 the step wrote.
	storeLine := lineOf(t, e.Source, "st.shared::cluster.u32 [%r11], %r6;")
	wi2 := wi
	for ; wi2 < 2000; wi2++ {
		if o.cta == 1 && r.line(o.pc) == storeLine {
			break
		}
		if r.m.Step(emu.StepWarpInstruction) != emu.StopStepped {
			t.Fatal("the reference stopped before CTA 1's remote store")
		}
	}
	tb.setCount(wi2 - wi)
	tb.button("step-warp")
	tb.waitStep(wi2, wi2)
	tb.click(`#pg-warps .warp-row[data-cta="1"][data-warp="0"]`)
	tb.waitJS("CTA 1's list", `(document.querySelector("#pg-tab-memory select.mem-cta") || {}).value === "1" && [...document.querySelectorAll("#pg-tab-memory select.mem-cta option")].some((o) => o.textContent === "rank 0 · CTA #0 (peer) ●")`)
	pick(0)
	tb.waitJS("the peer's stored words", `(() => { const c = [...document.querySelectorAll("#pg-tab-memory td.val.t-store")]; return c.length === 32 && c.every((td, i) => td.textContent === String(33 + i) && td.dataset.where.startsWith("shared[" + (32 + i) + "]")); })()`)
	tb.atEverySize("peer store marked", "cluster-peer-store")
	tb.phoneAt("#pg-tab-memory", "cluster-peer-store-390-scrolled")

	// The Launch tab shows the launch's cluster shape.
	tb.showTab("launch")
	var cluster []string
	tb.eval(`["x", "y", "z"].map((a) => document.querySelector('#pg-tab-launch input[aria-label="cluster ' + a + '"]')?.value)`, &cluster)
	if fmt.Sprint(cluster) != "[2 1 1]" {
		t.Errorf("the launch form's cluster: %v, want [2 1 1]", cluster)
	}
	tb.atEverySize("the launch's cluster", "cluster-launch")
	tb.phoneAt("#pg-tab-launch", "cluster-launch-390-scrolled")
}

// phoneAt screenshots the page at 390x844 scrolled to the element sel
// (a phone shows one panel at a time, one under another).
func (tb *tab) phoneAt(sel, name string) {
	tb.t.Helper()
	tb.viewport(390, 844)
	tb.eval(fmt.Sprintf(`(document.querySelector(%q).scrollIntoView({block: "start"}), true)`, sel), nil)
	tb.screenshot(name)
	tb.viewport(1440, 900)
}

// TestClusterRaceLesson: the dsmem-exchange-race lesson run to the end:
// CTA 0 read its peer's half before CTA 1 stored it, so the Memory tab
// shows out[0..31] = 0 and out[32..63] = 64 - i, what the lesson says.
func TestClusterRaceLesson(t *testing.T) {
	s := need(t)
	tb := s.newTab(t, "/?example=dsmem-exchange-race")
	tb.waitLoaded("dsmem-exchange-race.ptx")
	tb.viewport(1440, 900)
	tb.button("run")
	tb.waitStatus("the launch to finish", func(s status) string {
		if s.Status != "done" {
			return "not done"
		}
		return ""
	})
	tb.showTab("memory")
	tb.click(`#pg-tab-memory .mem-tab[data-key="global:out"]`)
	var want []string
	for i := range 64 {
		if i < 32 {
			want = append(want, "0")
		} else {
			want = append(want, fmt.Sprint(64-i))
		}
	}
	tb.waitJS("out", fmt.Sprintf(`[...document.querySelectorAll("#pg-tab-memory td.val:not(.pad)")].slice(0, 64).map((td) => td.textContent).join(",") === %q`, strings.Join(want, ",")))
	tb.atEverySize("the race's result", "cluster-race-out")
	tb.phoneAt("#pg-tab-memory", "cluster-race-out-390-scrolled")
}
