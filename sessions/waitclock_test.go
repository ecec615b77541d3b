package sessions

import "testing"

// TestClientModelWaitClockAfterTail: a step within the recorded past to a
// position whose stop has a breakpoint tail reaches the machine without
// the tail's scheduling, whose reconvergence clock the scheduler updates
// only at the warp's next issue; the groups' waitLeft must be what the
// scheduler will count either way (this sequence stepped back to such a
// position and once reported 250 instructions left instead of 256).
func TestClientModelWaitClockAfterTail(t *testing.T) {
	runModelSequence(t, example{"divergent", divergentPTX, divergentSpec}, 26, 120)
}
