package browser

import (
	"fmt"
	"math/bits"
	"testing"

	"github.com/ptxplayground/ptxplay/engine/emu"
)

// divTrace records what a reference machine executed: warp (0,0)'s steps
// and active lanes, and per source line the lanes and warp-instructions.
type divTrace struct {
	m      *emu.Machine
	r      *ref
	steps  []int
	active []int
	lanes  map[int]int
	warps  map[int]int
}

func (o *divTrace) Step(in *emu.StepInfo) {
	n := bits.OnesCount32(in.Mask)
	if in.CTALin == 0 && in.Warp == 0 {
		o.steps = append(o.steps, int(o.m.Stats().WarpInstructions))
		o.active = append(o.active, n)
	}
	l := o.r.line(in.PC)
	o.lanes[l] += n
	o.warps[l]++
}

// TestDivergenceView steps the divergence and reconvergence examples, opens
// the Divergence tab and compares the control-flow graph (block count, the
// selected warp's block), the timeline of active lanes (one bar per step of
// warp 0, with its active count) and the editor's lane shading with a
// reference machine; it steps on with the tab open, seeks by clicking a bar
// and takes screenshots at three sizes.
func TestDivergenceView(t *testing.T) {
	s := need(t)
	for _, c := range []struct {
		name  string
		steps int
	}{{"divergence", 20}, {"reconvergence", 24}} {
		t.Run(c.name, func(t *testing.T) {
			tb := s.newTab(t, "/?example="+c.name)
			tb.viewport(1440, 900)
			tb.waitLoaded(c.name + ".ptx")
			for i := 1; i <= c.steps; i++ {
				tb.key("n")
				tb.waitStep(i, i)
			}
			tb.showTab("divergence")
			tb.expectDivergence(c.name, c.steps)
			// Live: two more steps with the tab open.
			tb.key("n")
			tb.waitStep(c.steps+1, c.steps+1)
			tb.key("n")
			tb.waitStep(c.steps+2, c.steps+2)
			tb.expectDivergence(c.name, c.steps+2)
			tb.screenshot("divergence-1440")
			// A click on a bar seeks to its step.
			var target int
			tb.eval(`Number(document.querySelectorAll("#pg-tab-divergence .tl-bar")[2].dataset.step)`, &target)
			tb.click(fmt.Sprintf(`#pg-tab-divergence .tl-bar[data-step="%d"]`, target))
			tb.waitStep(target, c.steps+2)
			tb.expectDivergence(c.name, target)
			for _, size := range [][2]int64{{1024, 768}, {390, 844}} {
				tb.viewport(size[0], size[1])
				tb.expectNoOverflow(fmt.Sprintf("%dx%d with the Divergence tab", size[0], size[1]))
				tb.screenshot(fmt.Sprintf("divergence-%d", size[0]))
			}
		})
	}
}

// expectDivergence waits until the Divergence tab and the editor show the
// reference machine's divergence at step wi.
func (tb *tab) expectDivergence(name string, wi int) {
	tb.t.Helper()
	r := exampleRef(tb.t, name)
	tr := &divTrace{m: r.m, r: r, lanes: map[int]int{}, warps: map[int]int{}}
	r.m.SetObserver(tr)
	r.step(emu.StepWarpInstruction, wi)
	nblocks := 0
	for _, f := range r.prog.Funcs {
		if f == r.m.Kernel() || f.HasBody && r.m.Reachable(f) {
			nblocks += len(emu.Blocks(r.prog, f))
		}
	}
	pc := -1
	if w := r.warp(0, 0); w != nil {
		pc = w.PC()
	}
	tb.waitFor(fmt.Sprintf("the divergence view at step %d", wi), func() string {
		var got struct {
			Blocks  int
			Cur     [][2]int
			Steps   []int
			Active  []int
			Current []int
			Shaded  map[string]string
		}
		err := tb.tryEval(`(() => {
			const p = document.getElementById("pg-tab-divergence");
			const bars = [...p.querySelectorAll(".tl-bar")];
			const shaded = {};
			const lines = `+editorLinesJS(".cm-line.cm-div-line")+`;
			const els = [...document.querySelectorAll(".cm-line.cm-div-line")].filter((e) => e.getBoundingClientRect().height > 0);
			lines.forEach((l, i) => { shaded[l] = els[i] ? els[i].dataset.lanes : ""; });
			return {
				blocks: p.querySelectorAll(".cfg-block").length,
				cur: [...p.querySelectorAll(".cfg-block.cur")].map((g) => [Number(g.dataset.first), Number(g.dataset.last)]),
				steps: bars.map((b) => Number(b.dataset.step)),
				active: bars.map((b) => Number(b.dataset.active)),
				current: [...p.querySelectorAll(".tl-bar.cur")].map((b) => Number(b.dataset.step)),
				shaded,
			};
		})()`, &got)
		if err != nil {
			return err.Error()
		}
		if got.Blocks != nblocks {
			return fmt.Sprintf("%d blocks, the kernel has %d", got.Blocks, nblocks)
		}
		if pc >= 0 && (len(got.Cur) != 1 || pc < got.Cur[0][0] || pc > got.Cur[0][1]) {
			return fmt.Sprintf("current block %v, warp 0 is at pc %d", got.Cur, pc)
		}
		if fmt.Sprint(got.Steps) != fmt.Sprint(tr.steps) || fmt.Sprint(got.Active) != fmt.Sprint(tr.active) {
			return fmt.Sprintf("timeline steps %v active %v, machine %v %v", got.Steps, got.Active, tr.steps, tr.active)
		}
		if n := len(tr.steps); n > 0 && tr.steps[n-1] == wi && fmt.Sprint(got.Current) != fmt.Sprint([]int{wi}) {
			return fmt.Sprintf("current bar %v, want step %d", got.Current, wi)
		}
		if len(got.Shaded) == 0 {
			return "no shaded lines"
		}
		for l, lanes := range got.Shaded {
			var line int
			fmt.Sscan(l, &line)
			if tr.warps[line] == 0 {
				return fmt.Sprintf("line %d shaded, never executed", line)
			}
			if want := fmt.Sprintf("%.2f", float64(tr.lanes[line])/float64(tr.warps[line])); lanes != want {
				return fmt.Sprintf("line %d shaded for %s lanes, machine %s", line, lanes, want)
			}
		}
		return ""
	})
}
