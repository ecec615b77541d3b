package sessions

import "testing"

// TestEventsCarryTheirStep: every event names the step right after the
// instruction that caused it: stepping one warp-instruction at a time it
// is the state's step; in one long command the events keep their own
// (increasing, at most the state's) steps, and a seek to one lands where
// the last instruction is the event's warp at the event's pc.
func TestEventsCarryTheirStep(t *testing.T) {
	ex := exampleNamed(t, "shared-reduction")
	c := newClient(t, newManager(t, Limits{}))
	c.load(ex.src, ex.spec)
	n := 0
	for i := 0; i < 400 && n < 5; i++ {
		st := c.step("warp", 1)
		for _, e := range st.Events {
			n++
			if e.Step != st.Step {
				t.Fatalf("step %d: %s event at step %d", st.Step, e.Kind, e.Step)
			}
		}
	}
	if n == 0 {
		t.Fatal("no events in 400 steps")
	}
	c.load(ex.src, ex.spec)
	st := c.step("warp", 300)
	if len(st.Events) < 10 {
		t.Fatalf("%d events in 300 steps", len(st.Events))
	}
	prev := int64(0)
	distinct := map[int64]bool{}
	for _, e := range st.Events {
		if e.Step < prev || e.Step < 1 || e.Step > st.Step {
			t.Fatalf("%s event at step %d after one at %d (state at %d)", e.Kind, e.Step, prev, st.Step)
		}
		prev = e.Step
		distinct[e.Step] = true
	}
	if len(distinct) < 2 {
		t.Fatalf("the events of 300 steps share %d step(s)", len(distinct))
	}
	for _, e := range []eventJSON{st.Events[0], st.Events[len(st.Events)/2]} {
		c.send(map[string]any{"type": "seek", "step": e.Step})
		at, _ := c.state()
		if at.Step != e.Step || at.Last == nil || at.Last.Linear != e.CTA || at.Last.Warp != e.Warp || at.Last.PC != e.PC {
			t.Fatalf("seek to %s event's step %d (CTA %d warp %d pc %d): at %d, last %+v", e.Kind, e.Step, e.CTA, e.Warp, e.PC, at.Step, at.Last)
		}
	}
}
