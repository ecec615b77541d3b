package browser

import (
	"fmt"
	"testing"
)

// TestEventSeek: after 300 warp-instructions in one command, the Events
// tab gives each event its own step (not the command's last); clicking
// one's step seeks there: the timeline stands at that step and its row is
// marked as the current one. Screenshots at 1440×900, 1024×768 presenter
// and 390×844.
func TestEventSeek(t *testing.T) {
	s := need(t)
	tb := s.newTab(t, "/?example=shared-reduction")
	tb.waitLoaded("shared-reduction.ptx")
	tb.viewport(1440, 900)
	tb.setCount(300)
	tb.button("step-warp")
	tb.waitStep(300, 300)
	tb.showTab("events")
	tb.waitJS("the events with their steps", `document.querySelectorAll("#pg-tab-events li.ev button.ev-step").length > 5`)
	var steps []int
	tb.eval(`[...document.querySelectorAll("#pg-tab-events li.ev")].map((li) => +li.dataset.step)`, &steps)
	distinct := map[int]bool{}
	for _, k := range steps {
		if k < 1 || k > 300 {
			t.Fatalf("an event at step %d after 300 steps", k)
		}
		distinct[k] = true
	}
	if len(distinct) < 2 {
		t.Fatalf("the events show %d distinct steps: %v", len(distinct), steps)
	}
	k := steps[len(steps)/2]
	tb.click(fmt.Sprintf(`#pg-tab-events li.ev[data-step="%d"] button.ev-step`, k))
	tb.waitStep(k, 300)
	tb.waitJS("the event marked current", fmt.Sprintf(`!!document.querySelector('#pg-tab-events li.ev.ev-at[data-step="%d"]')`, k))
	tb.atEverySize("events with steps", "events")
}
