package browser

import (
	"testing"
)

// TestBarrierStepNothingAhead: on vector-add, which has no barrier, the
// Barrier button runs nothing: the step stays, the status says "no
// barrier ahead" and the notice why. "× N" used for warp steps does not
// carry over to the barrier unit (it resets to 1); a count typed just
// before choosing a unit applies to it; choosing another lesson resets it.
// Screenshots at 1440×900, 1024×768 presenter and 390×844.
func TestBarrierStepNothingAhead(t *testing.T) {
	s := need(t)
	tb := s.newTab(t, "/?example=vector-add")
	tb.waitLoaded("vector-add.ptx")
	tb.viewport(1440, 900)
	tb.setCount(5)
	tb.button("step-warp")
	tb.waitStep(5, 5)
	tb.button("step-barrier")
	tb.waitJS("no barrier ahead", `document.getElementById("pg-status").textContent === "paused · no barrier ahead" && /^No barrier ahead: .*nothing was run\.$/.test(document.getElementById("pg-notice").textContent) && !document.getElementById("pg-notice").hidden`)
	tb.waitStep(5, 5)
	var count string
	tb.eval(`document.getElementById("pg-count").value`, &count)
	if count != "1" {
		t.Errorf("× N after switching from warp steps to barriers: %q, want 1", count)
	}
	tb.atEverySize("no barrier ahead", "no-barrier")

	// A count typed for the new unit is kept.
	tb.setCount(3)
	tb.button("step-round")
	tb.waitJS("three rounds", `document.getElementById("pg-count").value === "3" && document.querySelector('[data-action="step-round"]').getAttribute("aria-pressed") === "true"`)
	// Another lesson: back to one.
	tb.eval(`(() => { const s = document.getElementById("pg-example-select"); s.value = "transpose"; s.dispatchEvent(new Event("change", {bubbles: true})); return true; })()`, nil)
	tb.waitLoaded("transpose.ptx")
	tb.eval(`document.getElementById("pg-count").value`, &count)
	if count != "1" {
		t.Errorf("× N after opening another lesson: %q, want 1", count)
	}
	// The transpose has a barrier: the step stops where it releases.
	tb.button("step-barrier")
	tb.waitJS("a barrier step", `document.getElementById("pg-status").textContent === "paused" && !/step 0\//.test(document.getElementById("pg-step").textContent)`)
}
