package conformance

import (
	"context"
	"fmt"
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
