package sessions

import "testing"

// A waiting warp's summary says what it waits for as a typed wait: state
// "waiting" with a wait of kind "barrier" naming the barrier, the lanes
// and the bar.sync's line; once released its state is "ready" without a
// wait.
func TestWarpWaitOnTheWire(t *testing.T) {
	c := newClient(t, newManager(t, Limits{}))
	c.load(reducePTX, reduceSpec)
	waited := false
	for range 200 {
		st := c.step("warp", 1)
		for _, ct := range st.CTAs {
			for _, w := range ct.Warps {
				if w.Warp != 0 || w.State == "" {
					continue
				}
				switch w.State {
				case "waiting":
					t0 := w.Wait
					if t0 == nil || t0.Kind != "barrier" || t0.Barrier == nil || *t0.Barrier != 0 || t0.Count == nil || *t0.Count != 0 ||
						t0.Lanes != "ffffffff" || t0.Line != 18 || t0.Text != "barrier 0" || w.Barrier == nil || *w.Barrier != 0 {
						t.Fatalf("waiting warp 0: %+v wait %+v", w, t0)
					}
					waited = true
				case "ready":
					if w.Wait != nil || w.Barrier != nil {
						t.Fatalf("ready warp 0 still waits: %+v", w)
					}
					if waited {
						return
					}
				default:
					t.Fatalf("warp 0 state %q", w.State)
				}
			}
		}
	}
	t.Fatalf("warp 0 never waited and went on (waited %v)", waited)
}

// A warp's wait is a field of the keyed warp: the delta in which a warp
// stops waiting clears it with "wait":null (the one merge rule deletes it).
func TestWarpWaitClearedByDelta(t *testing.T) {
	c := newClient(t, newManager(t, Limits{}))
	c.load(reducePTX, reduceSpec)
	waited := false
	for range 200 {
		st := c.step("warp", 1)
		for _, ct := range st.CTAs {
			for _, w := range ct.Warps {
				if w.Warp != 0 {
					continue
				}
				switch {
				case w.State == "waiting":
					waited = true
				case waited && w.State == "ready":
					if !w.Cleared("wait") || !w.Cleared("barrier") {
						t.Fatalf("the delta that ends warp 0's wait does not clear wait and barrier: %+v", w)
					}
					return
				}
			}
		}
	}
	t.Fatalf("warp 0 never waited and went on (waited %v)", waited)
}
