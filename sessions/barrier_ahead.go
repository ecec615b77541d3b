package sessions

import (
	"sort"

	"github.com/ptxplayground/ptxplay/engine/emu"
)

// noBarrierMessage is what a step to the next barrier says when there is
// none ahead (reason "no-barrier"); it does not run.
const noBarrierMessage = "no barrier ahead: no warp can reach a bar.sync, barrier, barrier.cluster or mbarrier arrive from here, so a barrier step would run to the end; nothing was run"

// barrierAhead reports whether a CTA barrier (bar, barrier) or the
// cluster barrier can still release: a warp waits at one, or a barrier instruction is reachable in
// the kernel's control-flow graph from a pc some lane is at (a warp's next
// pc, the pcs and reconvergence points of its stack; the kernel's entry
// while CTAs are still to start). It errs towards true: a barrier in a
// function the kernel can call, or a warp inside a call, counts as ahead.
func barrierAhead(m *emu.Machine) bool {
	p, k := m.Program(), m.Kernel()
	// A CTA barrier instruction, or one that may complete the phase of
	// the cluster barrier or of an mbarrier (an arrive, complete_tx, a
	// copy counted on an mbarrier: synchronising, acting on other warps,
	// without waiting itself; a wait releases nothing).
	isBar := func(pc int) bool {
		e := p.Ops[pc].Eff
		return e.Has(emu.EffBarrier) || e.Has(emu.EffSync|emu.EffCrossWarp) && !e.Has(emu.EffBlocks)
	}
	inKernel := false
	for _, f := range p.Funcs {
		if !f.HasBody || f != k && !m.Reachable(f) {
			continue
		}
		for pc := f.Entry; pc < f.End; pc++ {
			if isBar(pc) {
				if f != k {
					return true
				}
				inKernel = true
				break
			}
		}
	}
	if !inKernel {
		return false
	}
	var starts []int
	resident := 0
	for _, c := range m.CTAs() {
		resident++
		for _, w := range c.Warps {
			if t, ok := w.Waiting(); ok && (t.Kind == emu.WaitBarrier || t.Kind == emu.WaitClusterBarrier || t.Kind == emu.WaitMbarrier) {
				return true
			}
			if w.Readiness() == emu.Finished {
				continue
			}
			starts = append(starts, w.PC())
			for _, e := range w.Stack() {
				starts = append(starts, int(e.PC), int(e.RPC))
			}
		}
	}
	if m.NumCTAs()-m.CTAsFinished() > resident {
		starts = append(starts, k.Entry)
	}
	bs := emu.Blocks(p, k)
	seen := make([]bool, len(bs))
	var queue []int
	for _, pc := range starts {
		if pc < 0 {
			continue
		}
		if pc < k.Entry || pc >= k.End {
			return true // inside a call: it returns somewhere in the kernel
		}
		b := sort.Search(len(bs), func(i int) bool { return bs[i].End > pc })
		for q := pc; q < bs[b].End; q++ {
			if isBar(q) {
				return true
			}
		}
		for _, x := range bs[b].Succ {
			if x >= 0 && !seen[x] {
				seen[x] = true
				queue = append(queue, x)
			}
		}
	}
	for len(queue) > 0 {
		b := queue[0]
		queue = queue[1:]
		for q := bs[b].Start; q < bs[b].End; q++ {
			if isBar(q) {
				return true
			}
		}
		for _, x := range bs[b].Succ {
			if x >= 0 && !seen[x] {
				seen[x] = true
				queue = append(queue, x)
			}
		}
	}
	return false
}
