package sessions

import (
	"encoding/json"
	"fmt"
	"testing"
)

// A CTA that becomes resident arrives with its whole shared memory in the
// state: the client may hold bytes of that CTA's shared memory from a
// later position (seen before a seek back), which must not survive.
func TestArrivingCTASharedMemory(t *testing.T) {
	for _, n := range []int{5, 16, 40, 115} {
		t.Run(fmt.Sprint(n), func(t *testing.T) { arrivingCTAs(t, n) })
	}
}

// arrivingCTAs steps the mix kernel to its end n warp-instructions at a
// time (the client sees every CTA's shared memory), seeks back to step 1
// and steps again, checking the client's model after every state.
func arrivingCTAs(t *testing.T, n int) {
	c := newClient(t, newManager(t, Limits{}))
	mc := &modelClient{client: c, model: newClientModel()}
	do := func(what string, msg map[string]any) {
		t.Helper()
		c.send(msg)
		if _, err := mc.apply(true); err != nil {
			t.Fatal(err)
		}
		var s *Session
		c.do(func() { s = c.s })
		fm := c.freshMachine(mc.model.step)
		var err error
		c.do(func() { err = mc.model.check(s, fm, mc.sel) })
		if err != nil {
			t.Fatalf("%s (step %d): %v", what, mc.model.step, err)
		}
	}
	do("load", map[string]any{"type": "load", "id": 1, "source": mixPTX, "spec": json.RawMessage(mixSpec)})
	step := map[string]any{"type": "step", "granularity": "warp", "count": n}
	for mc.model.status == "paused" {
		do("first pass", step)
	}
	do("seek 1", map[string]any{"type": "seek", "step": 1})
	seen := map[int]bool{}
	for _, cm := range mc.model.ctas {
		seen[cm.Linear] = true
	}
	arrivals := 0
	for mc.model.status == "paused" {
		do("second pass", step)
		for _, cm := range mc.model.ctas {
			if !seen[cm.Linear] {
				seen[cm.Linear] = true
				arrivals++
			}
		}
	}
	if arrivals == 0 {
		t.Fatal("no CTA became resident")
	}
}
