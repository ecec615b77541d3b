package emu

import (
	"strings"
	"testing"
)

// A kernel whose last instruction is a barrier (or another instruction
// that moves the pc itself without ending the path) returns when its lanes
// go on past it, in both scheduling models, batched, unbatched and stepped.
func TestFallOffAfterBarrier(t *testing.T) {
	for _, last := range []string{"barrier.cluster.arrive;\n\tbarrier.cluster.wait;", "bar.sync 0;", "barrier.cluster.arrive;", "cp.async.wait_all;", "bar.warp.sync -1;"} {
		src := clusterHead + ".visible .entry k(.param .u64 out) {\n\t" + last + "\n}"
		l := clusterLaunch{src: src, grid: [3]int{2, 1, 1}, block: 64, cluster: [3]int{2, 1, 1}, words: 1}
		r, _, m := l.run(t)
		if r != StopDone {
			t.Errorf("%q: stop %v fault %v", strings.ReplaceAll(last, "\n\t", " "), r, m.Fault())
		}
	}
}
