package browser

import (
	"context"
	"encoding/json"
	"fmt"
	"math/bits"
	"strings"
	"testing"
	"time"

	"github.com/ptxplayground/ptxplay/engine/emu"
	"github.com/ptxplayground/ptxplay/engine/launch"
	"github.com/ptxplayground/ptxplay/engine/ptx"
	"github.com/ptxplayground/ptxplay/web"
)

// ref is the same launch as the page's, run in-process on its own
// machine: the tests step it as they step the page and compare what the
// page shows with what the emulator says.
type ref struct {
	t    *testing.T
	prog *emu.Program
	src  *ptx.Source
	m    *emu.Machine
	l    *launch.Launch
}

// example returns a built-in example (the gallery the server serves).
func example(t *testing.T, name string) *web.Example {
	t.Helper()
	e := web.BuiltinExamples().Get(name)
	if e == nil {
		t.Fatalf("no built-in example %q", name)
	}
	return e
}

// newRef compiles source and prepares the launch of spec (a launch spec
// without "ptx"/"source", as the page sends it).
func newRef(t *testing.T, file, source string, spec []byte) *ref {
	t.Helper()
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(spec, &fields); err != nil {
		t.Fatalf("reference spec: %v", err)
	}
	delete(fields, "ptx")
	fields["source"], _ = json.Marshal(source)
	full, _ := json.Marshal(fields)
	sp, err := launch.ParseSpec(full)
	if err != nil {
		t.Fatalf("reference spec: %v", err)
	}
	prog, src, diags := launch.Compile(file, []byte(source))
	if prog == nil {
		t.Fatalf("reference compile:\n%s", ptx.FormatAll(src, diags))
	}
	l, err := launch.Prepare(prog, sp)
	if err != nil {
		t.Fatalf("reference launch: %v", err)
	}
	return &ref{t: t, prog: prog, src: src, m: l.Machine(), l: l}
}

func exampleRef(t *testing.T, name string) *ref {
	t.Helper()
	e := example(t, name)
	return newRef(t, e.Name+".ptx", e.Source, e.Spec)
}

// line returns the source line of pc.
func (r *ref) line(pc int) int {
	if pc < 0 || pc >= len(r.prog.Spans) {
		return 0
	}
	return r.src.Position(r.prog.Spans[pc].Start).Line
}

// pcsOf returns the pcs of the instructions on a line.
func (r *ref) pcsOf(line int) []int {
	var out []int
	for pc := range r.prog.Ops {
		if r.line(pc) == line {
			out = append(out, pc)
		}
	}
	return out
}

// lineOf returns the (first) line whose text, trimmed, starts with prefix.
func lineOf(t *testing.T, source, prefix string) int {
	t.Helper()
	for i, l := range strings.Split(source, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), prefix) {
			return i + 1
		}
	}
	t.Fatalf("no line starts with %q", prefix)
	return 0
}

// step advances the reference as the session's step command does.
func (r *ref) step(g emu.Granularity, n int) {
	r.t.Helper()
	for range n {
		if got := r.m.Step(g); got != emu.StopStepped {
			r.settle()
			return
		}
	}
	r.settle()
}

// settle ends the launch when no warp is left to issue (the session does
// this after a command, so that "done" shows at once).
func (r *ref) settle() {
	if !r.m.Stopped() && r.m.NextWarp() == nil {
		r.m.Step(emu.StepWarpInstruction)
	}
}

// runToBreakpoint runs as the session's `run` does: the first
// instruction passes any breakpoint, then the machine runs to one of
// lines' instructions (or the end).
func (r *ref) runToBreakpoint(lines ...int) emu.StopReason {
	r.t.Helper()
	if res := r.m.Step(emu.StepWarpInstruction); res != emu.StopStepped {
		return res
	}
	for _, l := range lines {
		for _, pc := range r.pcsOf(l) {
			r.m.SetBreakpoint(pc, true)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res := r.m.Run(ctx)
	r.m.ClearBreakpoints()
	return res
}

// warp returns warp w of the resident CTA at index cta (the page's
// data-cta), or nil.
func (r *ref) warp(cta, w int) *emu.Warp {
	r.m.NextWarp() // makes the first CTAs resident, as the session's first state does
	cs := r.m.CTAs()
	if cta < 0 || cta >= len(cs) || w < 0 || w >= len(cs[cta].Warps) {
		return nil
	}
	return cs[cta].Warps[w]
}

// slot returns the value slot of a user register of the kernel.
func (r *ref) slot(name string) int {
	r.t.Helper()
	for i, ri := range r.prog.Regs {
		if ri.Name == name && ri.Kind == emu.RegUser {
			return i
		}
	}
	r.t.Fatalf("no register %s", name)
	return -1
}

// warpView is what the warps view should show for a warp.
type warpView struct {
	Where  string // "line L · pc P", or "" once exited
	Label  string // "N/M active", "at barrier B" or the state
	Active int    // lanes coloured active
	Idle   int    // lanes coloured inactive (parked by divergence)
	Bar    int    // lanes coloured at barrier
	Exited int    // lanes coloured exited
}

// view computes the warps view's row of a warp, from the emulator (the
// rules of ui/warps.ts, laneState).
func (r *ref) view(w *emu.Warp) warpView {
	valid, exited, active := w.Valid(), w.Exited(), w.Active()
	live := active &^ exited & valid
	v := warpView{Exited: bits.OnesCount32(exited & valid)}
	switch w.State {
	case emu.WarpReady:
		v.Active = bits.OnesCount32(live)
		v.Label = fmt.Sprintf("%d/%d active", bits.OnesCount32(live), bits.OnesCount32(valid))
	case emu.WarpWaiting:
		v.Bar = bits.OnesCount32(live)
		v.Label = fmt.Sprintf("at barrier %d", w.Barrier())
	default:
		v.Label = w.State.String()
	}
	v.Idle = bits.OnesCount32(valid &^ exited &^ active)
	if pc := w.PC(); pc >= 0 && w.State != emu.WarpExited {
		v.Where = fmt.Sprintf("line %d · pc %d", r.line(pc), pc)
	}
	return v
}
