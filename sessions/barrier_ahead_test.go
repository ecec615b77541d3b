package sessions

import (
	"strings"
	"testing"
)

// TestBarrierStepNoBarrierAhead: a barrier step on a kernel without a
// barrier (vector-add) runs nothing and says "no barrier ahead" (reason
// no-barrier); on the transpose it stops where bar.sync releases, and
// once every warp is past the only barrier, the next barrier step says
// none is ahead instead of running to the end. Stepped back before the
// barrier, it is ahead again.
func TestBarrierStepNoBarrierAhead(t *testing.T) {
	c := newClient(t, newManager(t, Limits{}))
	va := exampleNamed(t, "vector-add")
	c.load(va.src, va.spec)
	c.step("warp", 3)
	st := c.step("barrier", 1)
	if st.Reason != "no-barrier" || st.Step != 3 || st.Status != "paused" || !strings.Contains(st.Message, "no barrier ahead") {
		t.Fatalf("vector-add: barrier step: reason %q step %d status %q: %q", st.Reason, st.Step, st.Status, st.Message)
	}

	tr := exampleNamed(t, "transpose")
	c.load(tr.src, tr.spec)
	st = c.step("barrier", 1)
	if st.Reason != "stepped" || st.Step == 0 {
		t.Fatalf("transpose: first barrier step: reason %q step %d", st.Reason, st.Step)
	}
	released := st.Step
	// Past the barrier: every warp reads its columns, no barrier follows.
	read := firstLineOf(t, tr.src, "ld.shared.f32 %f1, [%r12];")
	for w := 0; w < 8; w++ {
		stepToLine(t, c, read, 1)
	}
	at := c.step("warp", 1).Step
	st = c.step("barrier", 1)
	if st.Reason != "no-barrier" || st.Step != at || st.Status != "paused" {
		t.Fatalf("transpose past its barrier: reason %q step %d (was %d) status %q", st.Reason, st.Step, at, st.Status)
	}
	c.send(map[string]any{"type": "seek", "step": 1})
	c.state()
	if st = c.step("barrier", 1); st.Reason != "stepped" || st.Step != released {
		t.Fatalf("transpose from step 1: reason %q step %d, want the release at %d", st.Reason, st.Step, released)
	}
}
