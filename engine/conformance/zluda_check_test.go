package conformance

import (
	"context"
	"fmt"
	"github.com/ptxplayground/ptxplay/engine/emu"
	"testing"
)

// TestZludaCheckerBatched runs every case with the race and memory
// checker attached, with batched dispatch (the default: the checker asks
// for no call per instruction) and one instruction at a time, under both
// scheduling models: the checker's verdicts (warnings, their steps,
// threads and counts) and the final states must be identical.
func TestZludaCheckerBatched(t *testing.T) {
	dir, man := zludaSuite(t)
	n := 0
	for _, c := range man.Tests {
		for _, sched := range []string{"independent", "simt-stack"} {
			var verdict [2]string
			ok := true
			for i, on := range []bool{true, false} {
				l, _ := zludaPrepare(dir, c, sched)
				if l == nil {
					ok = false
					break
				}
				l.Machine().SetBatchedDispatch(on)
				chk := l.NewChecker()
				l.Machine().AddObserver(chk)
				ctx, cancel := context.WithTimeout(context.Background(), zludaTimeout)
				stop := l.Machine().Run(ctx)
				cancel()
				verdict[i] = fmt.Sprintf("stop %v %+v dropped %d steps %d stats %+v", stop, chk.Warnings(), chk.Dropped(), chk.Steps(), l.Machine().Stats())
			}
			if !ok {
				continue
			}
			n++
			if verdict[0] != verdict[1] {
				t.Errorf("%s (%s): the checker's verdicts differ\nbatched: %s\nplain:   %s", c.Name, sched, verdict[0], verdict[1])
			}
		}
	}
	if n == 0 {
		t.Fatal("no case ran")
	}
	t.Logf("%d runs of %d cases", n, len(man.Tests))
}

// TestZludaSharedFilter: on every ZLUDA case, under both scheduling
// models, a run the shared-memory phase filter calls clean has the
// checker's verdict and final state (see emu.Machine.EnableSharedFilter).
func TestZludaSharedFilter(t *testing.T) {
	dir, man := zludaSuite(t)
	clean, runs := 0, 0
	for _, c := range man.Tests {
		for _, sched := range []string{"independent", "simt-stack"} {
			var verdict [2]string
			var machines [2]*emu.Machine
			ok := true
			for i, filter := range []bool{false, true} {
				l, _ := zludaPrepare(dir, c, sched)
				if l == nil {
					ok = false
					break
				}
				m := l.Machine()
				chk := l.NewChecker()
				if filter {
					if !m.EnableSharedFilter() {
						ok = false
						break
					}
					chk.LeaveShared()
				}
				m.AddObserver(chk)
				ctx, cancel := context.WithTimeout(context.Background(), zludaTimeout)
				stop := m.Run(ctx)
				cancel()
				if sus, _ := m.SharedFilterSuspect(); filter && (sus || m.Fault() != nil) {
					ok = false
					break
				}
				verdict[i] = fmt.Sprintf("stop %v %+v dropped %d stats %+v", stop, chk.Warnings(), chk.Dropped(), m.Stats())
				machines[i] = m
			}
			runs++
			if !ok {
				continue
			}
			clean++
			if verdict[0] != verdict[1] {
				t.Errorf("%s (%s): the filter called the run clean, but the checker finds otherwise\nfilter:  %s\nchecker: %s", c.Name, sched, verdict[1], verdict[0])
			} else if d := machines[1].DiffState(machines[0]); d != "" {
				t.Errorf("%s (%s): %s", c.Name, sched, d)
			}
		}
	}
	t.Logf("%d runs of %d cases, %d clean", runs, len(man.Tests), clean)
	if clean < runs/2 {
		t.Errorf("only %d of %d runs were clean", clean, runs)
	}
}
