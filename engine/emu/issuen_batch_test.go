package emu

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"
)

// TestIssueNBatched: IssueN with batched dispatch (the sessions' run and
// multi-instruction steps) leaves the machine after every call exactly
// where as many one-at-a-time Issue calls do: the stop, the count before
// the stopping call, the statistics, every register, pc, stack and byte of
// memory (DiffState), the last instruction (LastIssued), and the whole
// stream of reports each kind of observer was shown, faults included (a
// fault while warps are ahead replays from the call's start).
func TestIssueNBatched(t *testing.T) {
	rng := rand.New(rand.NewSource(27))
	type kernel struct {
		name string
		l    batchLaunch
	}
	ks := []kernel{
		{"racy", batchLaunch{src: racyPTX, grid: 3, block: 96, words: 32 + 96*3}},
		{"racy short buffer", batchLaunch{src: racyPTX, grid: 2, block: 96, words: 32 + 96*2 - 5}},
		{"fault between stretches", batchLaunch{src: faultPTX, grid: 2, block: 128, words: 256}},
		{"fused loops", batchLaunch{src: fusedPTX, grid: 2, block: 64, words: 1024}},
		{"budget", batchLaunch{src: fusedPTX, grid: 2, block: 64, words: 1024, limit: 3000}},
	}
	for i := 0; i < 6; i++ {
		ks = append(ks, kernel{fmt.Sprintf("random %d", i), batchLaunch{src: randomKernel(rng, 96), grid: 2, block: 48, words: 600}})
	}
	flagSets := []ObserveFlags{
		0, // no observer
		ObserveAccesses | ObserveOldBytes | ObserveEvents | ObserveDetails,                      // the sessions' recorder
		ObserveAccesses | ObserveOldBytes | ObserveEvents | ObserveDetails | ObserveMaskChanges, // with the checker
	}
	batches, replays := 0, 0
	for _, sched := range []Scheduling{SchedIndependent, SchedSIMTStack} {
		for _, k := range ks {
			for _, f := range flagSets {
				l := k.l
				l.sched = sched
				a, b := l.machine(t, true), l.machine(t, false)
				sa, sb := &streamObserver{flags: f}, &streamObserver{flags: f}
				if f != 0 {
					a.SetObserver(sa)
					b.SetObserver(sb)
				}
				name := fmt.Sprintf("%s (%s, flags %b)", k.name, sched, f)
				for call := 0; ; call++ {
					n := 1 + rng.Intn(40)
					if rng.Intn(2) == 0 {
						n = 1 + rng.Intn(20000)
					}
					ba := a.issueNBatchable(n)
					ra, beforeA := a.IssueN(true, n)
					rb, beforeB := b.IssueN(true, n)
					if ba {
						batches++
					}
					if ra != rb || beforeA != beforeB || a.Stats() != b.Stats() {
						t.Fatalf("%s call %d (n %d, batched %v): %v from %d %+v; one at a time %v from %d %+v", name, call, n, ba, ra, beforeA, a.Stats(), rb, beforeB, b.Stats())
					}
					if d := a.DiffState(b); d != "" {
						t.Fatalf("%s call %d (n %d): %s", name, call, n, d)
					}
					la, oka := a.LastIssued()
					lb, okb := b.LastIssued()
					if f != 0 && (oka != okb || fmt.Sprint(la) != fmt.Sprint(lb)) {
						t.Fatalf("%s call %d (n %d): last issued %v %+v, want %v %+v", name, call, n, oka, la, okb, lb)
					}
					if ra != StopStepped {
						break
					}
					if call > 100000 {
						t.Fatal("no end")
					}
				}
				replays += a.fast.replays
				if strings.Join(sa.lines, "\n") != strings.Join(sb.lines, "\n") {
					for i := range min(len(sa.lines), len(sb.lines)) {
						if sa.lines[i] != sb.lines[i] {
							t.Fatalf("%s: report %d differs\nbatched:   %s\nunbatched: %s", name, i, sa.lines[i], sb.lines[i])
						}
					}
					t.Fatalf("%s: %d reports batched, %d not", name, len(sa.lines), len(sb.lines))
				}
			}
		}
	}
	if batches == 0 || replays == 0 {
		t.Fatalf("%d IssueN calls batched, %d replayed to a fault: both must be tested", batches, replays)
	}
}
