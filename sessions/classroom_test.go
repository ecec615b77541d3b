package sessions

import (
	"encoding/json"
	"strings"
	"testing"
)

// Back and forward by rounds and barriers are inverse moves: stepping
// forward one unit from a unit's start and back one unit returns there.
func TestBackByUnits(t *testing.T) {
	c := newClient(t, newManager(t, Limits{}))
	c.load(reducePTX, reduceSpec)
	c.do(func() { c.s.h.interval, c.s.h.jobInterval = 8, 32 })
	for _, g := range []string{"round", "barrier"} {
		c.send(map[string]any{"type": "seek", "step": 0})
		c.state()
		var marks []int64
		st := c.step(g, 1)
		for i := 0; i < 6 && st.Status == "paused"; i++ {
			marks = append(marks, st.Step)
			st = c.step(g, 1)
		}
		if st.Status != "paused" {
			c.expect("done")
		}
		if len(marks) < 3 {
			t.Fatalf("%s: only %d units", g, len(marks))
		}
		// From the last mark, back one unit at a time visits every mark.
		c.send(map[string]any{"type": "seek", "step": marks[len(marks)-1]})
		c.state()
		for i := len(marks) - 2; i >= 0; i-- {
			c.send(map[string]any{"type": "back", "granularity": g})
			got, _ := c.state()
			if got.Step != marks[i] {
				t.Fatalf("%s: back from %d gave %d, want %d (marks %v)", g, marks[i+1], got.Step, marks[i], marks)
			}
			if d := diffDumps(c.dump(), c.fresh(got.Step)); d != "" {
				t.Fatalf("%s: back to %d: %s", g, got.Step, d)
			}
		}
		// From inside a unit, back goes to the unit's start.
		c.send(map[string]any{"type": "seek", "step": marks[1] + 1})
		c.state()
		c.send(map[string]any{"type": "back", "granularity": g})
		if got, _ := c.state(); got.Step != marks[1] {
			t.Fatalf("%s: back from inside a unit gave %d, want %d", g, got.Step, marks[1])
		}
		// Forward in the past follows the recorded units and keeps the head.
		c.send(map[string]any{"type": "seek", "step": marks[0]})
		head, _ := c.state()
		fw := c.step(g, 2)
		if fw.Step != marks[2] || fw.Steps != head.Steps {
			t.Fatalf("%s: forward 2 from %d gave %d of %d, want %d of %d", g, marks[0], fw.Step, fw.Steps, marks[2], head.Steps)
		}
		c.send(map[string]any{"type": "back", "granularity": g, "count": 5})
		if got, _ := c.state(); got.Step != 0 {
			t.Fatalf("%s: back past the start gave %d", g, got.Step)
		}
	}
}

// A source that differs only in comments and white space keeps the run:
// the check reply says so, and loading it remaps lines.
func TestRemapKeepsTheRun(t *testing.T) {
	c := newClient(t, newManager(t, Limits{}))
	c.load(divergentPTX, divergentSpec)
	c.send(map[string]any{"type": "breakpoint", "line": 19})
	c.expect("breakpoints")
	st := c.step("warp", 9)
	edited := strings.Replace(divergentPTX, "\tld.param.u64 %rd1, [out];", "\t// the output\n\n\tld.param.u64 %rd1, [out]; // pointer", 1)
	c.send(map[string]any{"type": "check", "id": 5, "source": edited})
	var d diagnosticsMsg
	json.Unmarshal(c.expect("diagnostics"), &d)
	if !d.Check || !d.SameProgram || len(d.Items) != 0 {
		t.Fatalf("check %+v", d)
	}
	c.send(map[string]any{"type": "check", "id": 6, "source": strings.Replace(divergentPTX, "100", "101", 1)})
	d = diagnosticsMsg{}
	json.Unmarshal(c.expect("diagnostics"), &d)
	if d.SameProgram {
		t.Fatal("a changed constant is the same program")
	}
	c.send(map[string]any{"type": "load", "id": 7, "source": edited, "spec": json.RawMessage(divergentSpec)})
	c.expect("diagnostics")
	var l loadedMsg
	json.Unmarshal(c.expect("loaded"), &l)
	if !l.Remapped {
		t.Fatal("not remapped")
	}
	got, _ := c.state()
	if !got.Full || got.Step != st.Step || got.Stats != st.Stats {
		t.Fatalf("remap moved the machine: %+v", got)
	}
	// Lines moved down by two; the breakpoint moved with its instruction.
	if st.Last.Line+2 != got.Last.Line {
		t.Fatalf("last line %d, was %d", got.Last.Line, st.Last.Line)
	}
	c.send(map[string]any{"type": "breakpoint", "line": 21, "on": false})
	var bp breakpointsMsg
	json.Unmarshal(c.expect("breakpoints"), &bp)
	if len(bp.Lines) != 0 {
		t.Fatalf("breakpoints after remap %+v", bp.Lines)
	}
	// The history is intact.
	c.send(map[string]any{"type": "back", "count": 4})
	b, _ := c.state()
	if d := diffDumps(c.dump(), c.fresh(b.Step)); d != "" || b.Step != st.Step-4 {
		t.Fatalf("back after remap to %d: %s", b.Step, d)
	}
}

// load with "at" replays to a position (after an edit or a reconnect).
func TestLoadAt(t *testing.T) {
	c := newClient(t, newManager(t, Limits{}))
	c.send(map[string]any{"type": "load", "id": 1, "source": reducePTX, "spec": json.RawMessage(reduceSpec), "at": 300})
	c.expect("diagnostics")
	var l loadedMsg
	json.Unmarshal(c.expect("loaded"), &l)
	if len(l.Symbols) != 1 || l.Symbols[0].Name != "sdata" || l.Symbols[0].Space != "shared" || l.Symbols[0].Type != "u32" ||
		l.Symbols[0].Size != 1024 || l.Symbols[0].Func != "reduce" {
		t.Fatalf("symbols %+v", l.Symbols)
	}
	first, _ := c.state()
	if first.Step != 0 || first.Reason != "loaded" {
		t.Fatalf("first state %+v", first)
	}
	st, _ := c.state()
	if st.Step != 300 || st.Status != "paused" || st.Steps != 301 {
		t.Fatalf("at 300: %+v", st)
	}
	if d := diffDumps(c.dump(), c.fresh(300)); d != "" {
		t.Fatal(d)
	}
	// Past the end: the replay stops where the launch ends.
	c.send(map[string]any{"type": "load", "id": 2, "source": divergentPTX, "spec": json.RawMessage(divergentSpec), "at": 1 << 40})
	c.expect("diagnostics")
	c.expect("loaded")
	c.state()
	st, _ = c.state()
	if st.Status != "done" {
		t.Fatalf("at past the end: %+v", st)
	}
	c.expect("done")
}

// A spec that does not fit the kernel never stops the load: a mismatch
// that would stop the launch is fixed by the launch inferred from the
// kernel (and said so), a lesser one is reported with the fix.
func TestLaunchFollowsKernel(t *testing.T) {
	c := newClient(t, newManager(t, Limits{}))
	// divergent's spec under the reduction kernel: two pointers, not one.
	c.send(map[string]any{"type": "load", "id": 1, "source": reducePTX, "spec": json.RawMessage(divergentSpec)})
	c.expect("diagnostics")
	var l loadedMsg
	json.Unmarshal(c.expect("loaded"), &l)
	if l.Entry != "reduce" || len(l.Kernels) != 1 || len(l.Kernels[0].Params) != 2 || l.Kernels[0].Params[0].Role != "pointer" {
		t.Fatalf("loaded %+v", l)
	}
	if l.Launch == nil || !l.Launch.Applied || len(l.Launch.Mismatches) == 0 || len(l.Launch.Spec) == 0 {
		t.Fatalf("launch %+v", l.Launch)
	}
	st, _ := c.state()
	if st.Status != "paused" {
		t.Fatalf("state %+v", st)
	}
	c.send(map[string]any{"type": "run"})
	st, _ = c.state()
	if st.Status != "done" {
		t.Fatalf("run %+v", st)
	}
	c.expect("done")
	// The applied spec, sent back, fits: no launch message.
	c.send(map[string]any{"type": "load", "id": 2, "source": reducePTX, "spec": l.Launch.Spec})
	c.expect("diagnostics")
	var l2 loadedMsg
	json.Unmarshal(c.expect("loaded"), &l2)
	if l2.Launch != nil {
		t.Fatalf("the inferred spec does not fit: %+v", l2.Launch)
	}
	c.state()
	// A buffer of the wrong element type runs as given, with the fix.
	spec := strings.Replace(reduceSpec, `"name":"in","type":"u32"`, `"name":"in","type":"f32"`, 1)
	c.send(map[string]any{"type": "load", "id": 3, "source": reducePTX, "spec": json.RawMessage(spec)})
	c.expect("diagnostics")
	var l3 loadedMsg
	json.Unmarshal(c.expect("loaded"), &l3)
	if l3.Launch == nil || l3.Launch.Applied || len(l3.Launch.Mismatches) == 0 {
		t.Fatalf("type mismatch: %+v", l3.Launch)
	}
	c.state()
}

// The launch's own maxWarpInstructions ends it with status limit, a
// message and `done`; the per-command budget only pauses (TestLimits).
func TestLaunchBudget(t *testing.T) {
	c := newClient(t, newManager(t, Limits{}))
	spec := strings.Replace(spinSpec(64, 1<<20), `"grid"`, `"maxWarpInstructions":500,"grid"`, 1)
	c.load(spinPTX, spec)
	c.send(map[string]any{"type": "run", "id": 4})
	st, _ := c.state()
	if st.Status != "limit" || st.Reason != "limit" || st.Message == "" || st.Step != 500 {
		t.Fatalf("run %+v", st)
	}
	var d doneMsg
	json.Unmarshal(c.expect("done"), &d)
	if !strings.Contains(string(d.Result), `"status":"limit"`) {
		t.Fatalf("done %s", d.Result)
	}
	// Back one step: paused again, and stepping forward returns to the limit.
	c.send(map[string]any{"type": "back"})
	if b, _ := c.state(); b.Status != "paused" || b.Step != 499 {
		t.Fatalf("back %+v", b)
	}
	if f := c.step("warp", 1); f.Status != "limit" || f.Step != 500 {
		t.Fatalf("forward %+v", f)
	}
}
