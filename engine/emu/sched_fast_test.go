package emu

import (
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"testing"
)

// schedView is everything the scheduler decided for w, as the debugger
// sees it.
func schedView(w *Warp) string {
	pc, mask, why := w.LastIssue()
	ppc, pmask, after := w.PrevIssue()
	return fmt.Sprintf("last %d %x %v prev %d %x %d stack %+v groups %+v waits %+v", pc, mask, why, ppc, pmask, after, w.stack, w.Groups(), w.LaneWaits())
}

// The one-pass pick of the common case (scheduleFast) decides exactly what
// the general settle-and-pick does: stepping kernels with divergence,
// nested regions, lanes that go on after ReconvergeWait, spin locks,
// barriers and calls one warp-instruction at a time gives the same
// scheduler state after every step, and the same final state. The fast
// path must be taken for most picks.
func TestScheduleFastMatchesGeneral(t *testing.T) {
	defer func() { schedGeneralOnly = false }()
	rng := rand.New(rand.NewSource(12))
	type kernel struct {
		name         string
		l            batchLaunch
		steps        int
		wantFastPick bool
	}
	kernels := []kernel{
		{"collatz", batchLaunch{src: collatzPTX, grid: 1, block: 256, words: 256}, 40000, true},
		{"spinlock", batchLaunch{src: spinLockSrc, grid: 1, block: 32, words: 2}, 40000, true},
		{"racy", batchLaunch{src: racyPTX, grid: 2, block: 48, words: 600}, 6000, true},
		{"recurse", batchLaunch{src: recurseSrc, grid: 1, block: 32, words: 64}, 6000, false},
		{"afterlock", batchLaunch{src: afterLockSrc, grid: 1, block: 32, words: 64}, 20000, false},
		{"syncwarp", batchLaunch{src: syncKernel(syncIfElse + `
	bar.warp.sync 0xffffffff;
	ld.global.u32 %r5, [%rd5];
	st.global.u32 [%rd4], %r5;`), grid: 1, block: 32, words: 64}, 6000, false},
	}
	nRandom := 30
	if testing.Short() {
		nRandom = 8
	}
	for k := 0; k < nRandom; k++ {
		kernels = append(kernels, kernel{fmt.Sprint("random", k), batchLaunch{src: randomKernel(rng, 96), grid: 2, block: 48, words: 600}, 8000, false})
	}
	randFast, randPicks := 0, 0
	for _, k := range kernels {
		k.l.sched = SchedIndependent
		a, b := k.l.machine(t, false), k.l.machine(t, false)
		fast, picks, line := 0, 0, 0
		for i := 0; i < k.steps && !a.Stopped(); i++ {
			wa, wb := a.NextWarp(), b.NextWarp()
			if wa != nil && len(wa.stack) > 1 {
				// Would a quick path decide this pick? (On a copy.)
				c := *wa
				c.stack = slices.Clone(wa.stack)
				picks++
				if c.lineLen != 0 && c.onLine() {
					line++
				}
				if len(c.frames) == 0 && (c.scheduleLine() || c.scheduleFast()) {
					fast++
				}
			}
			schedGeneralOnly = false
			ra := a.Step(StepWarpInstruction)
			schedGeneralOnly = true
			rb := b.Step(StepWarpInstruction)
			if ra != rb {
				t.Fatalf("%s step %d: %v with the fast pick, %v without", k.name, i, ra, rb)
			}
			if wa == nil || wb == nil {
				continue
			}
			if d := wa.diff(wb); d != "" {
				t.Fatalf("%s step %d: %s", k.name, i, d)
			}
			if va, vb := schedView(wa), schedView(wb); va != vb {
				t.Fatalf("%s step %d:\nfast:    %s\ngeneral: %s", k.name, i, va, vb)
			}
		}
		if d := a.DiffState(b); d != "" {
			t.Fatalf("%s: %s", k.name, d)
		}
		if strings.HasPrefix(k.name, "random") {
			randFast += fast
			randPicks += picks
			continue
		}
		t.Logf("%s: %d of %d picks in a quick path, %d as the one before", k.name, fast, picks, line)
		if picks == 0 || k.wantFastPick && (fast*2 < picks || line == 0) {
			t.Errorf("%s: the quick paths decided %d of %d picks, %d as the one before", k.name, fast, picks, line)
		}
	}
	t.Logf("random kernels: %d of %d picks in the fast path", randFast, randPicks)
	if randFast == 0 || randFast == randPicks {
		t.Errorf("random kernels: the fast path decided %d of %d picks", randFast, randPicks)
	}
}
