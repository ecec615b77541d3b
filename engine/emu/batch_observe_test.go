package emu

import (
	"context"
	"fmt"
	"math/rand"
	"strings"
	"testing"
)

// streamObserver writes down everything it is shown, in order: what an
// observer that asks for flags sees of a run.
type streamObserver struct {
	flags ObserveFlags
	lines []string
}

func (s *streamObserver) Observes() ObserveFlags { return s.flags }

func (s *streamObserver) Step(in *StepInfo) {
	var b strings.Builder
	fmt.Fprintf(&b, "#%d cta %d warp %d step %d pc %d mask %x exec %x changed %v next %d", in.Step, in.CTALin, in.Warp, in.WarpStep, in.PC, in.Mask, in.ExecMask, in.MaskChanged, in.NextPC)
	for _, a := range in.Accesses {
		fmt.Fprintf(&b, " | %v %v size %d cta %d lanes %x", a.Kind, a.Space, a.Size, a.CTA, a.Lanes)
		for l := 0; l < 32; l++ {
			if a.Lanes>>l&1 != 0 {
				fmt.Fprintf(&b, " %d:%x", l, a.Addr[l])
				if s.flags&ObserveOldBytes != 0 && a.Kind != AccessLoad {
					fmt.Fprintf(&b, "=%x", a.Old[l][:a.Size])
				}
			}
		}
	}
	for _, e := range in.Events {
		fmt.Fprintf(&b, " | %v pc %d mask %x other %x id %d count %d/%d warps %v", e.Kind, e.PC, e.Mask, e.Other, e.ID, e.Count, e.Expected, e.Warps)
	}
	if in.Fault != nil {
		fmt.Fprintf(&b, " | fault %v at %d", in.Fault.Kind, in.Fault.PC)
	}
	s.lines = append(s.lines, b.String())
}

// TestBatchedObserverStream: an observer that does not ask for every step
// keeps batched dispatch, and is shown exactly what the one-at-a-time run
// shows it: the same steps, numbered the same (StepInfo.Step counts the
// one-at-a-time run's warp-instructions, WarpStep the warp's), with the
// same accesses, events, changes of active lanes and faults, in the same
// order, and nothing twice when a fault makes the batched run replay.
func TestBatchedObserverStream(t *testing.T) {
	rng := rand.New(rand.NewSource(26))
	type kernel struct {
		name  string
		l     batchLaunch
		fault bool
	}
	var ks []kernel
	for _, grid := range []int{1, 3} {
		ks = append(ks, kernel{fmt.Sprintf("racy grid %d", grid), batchLaunch{src: racyPTX, grid: grid, block: 96, words: 32 + 96*grid}, false})
	}
	ks = append(ks,
		kernel{"racy short buffer", batchLaunch{src: racyPTX, grid: 2, block: 96, words: 32 + 96*2 - 5}, true},
		kernel{"fault between stretches", batchLaunch{src: faultPTX, grid: 2, block: 128, words: 256}, true},
		kernel{"fused loops", batchLaunch{src: fusedPTX, grid: 2, block: 64, words: 1024}, false})
	for i := 0; i < 8; i++ {
		ks = append(ks, kernel{fmt.Sprintf("random %d", i), batchLaunch{src: randomKernel(rng, 96), grid: 2, block: 48, words: 600}, false})
	}
	flagSets := []ObserveFlags{
		ObserveAccesses,
		ObserveAccesses | ObserveOldBytes,
		ObserveAccesses | ObserveEvents | ObserveMaskChanges, // the race checker's
		ObserveEvents,
		ObserveMaskChanges,
		ObserveAccesses | ObserveGlobalOnly,
	}
	for _, sched := range []Scheduling{SchedIndependent, SchedSIMTStack} {
		for _, k := range ks {
			for _, f := range flagSets {
				l := k.l
				l.sched = sched
				a, b := l.machine(t, true), l.machine(t, false)
				sa, sb := &streamObserver{flags: f}, &streamObserver{flags: f}
				a.SetObserver(sa)
				b.SetObserver(sb)
				if !a.batchable() {
					t.Fatalf("%s (%s, flags %b): batched dispatch off", k.name, sched, f)
				}
				ra, rb := a.Run(context.Background()), b.Run(context.Background())
				if ra != rb {
					t.Fatalf("%s (%s, flags %b): stop %v batched, %v not", k.name, sched, f, ra, rb)
				}
				if !strings.HasPrefix(k.name, "random") && k.fault != (ra == StopFault) {
					t.Fatalf("%s (%s): stop %v", k.name, sched, ra)
				}
				if d := a.DiffState(b); d != "" {
					t.Fatalf("%s (%s, flags %b): %s", k.name, sched, f, d)
				}
				for i := range min(len(sa.lines), len(sb.lines)) {
					if sa.lines[i] != sb.lines[i] {
						t.Fatalf("%s (%s, flags %b): report %d differs\nbatched:   %s\nunbatched: %s", k.name, sched, f, i, sa.lines[i], sb.lines[i])
					}
				}
				if len(sa.lines) != len(sb.lines) {
					t.Fatalf("%s (%s, flags %b): %d reports batched, %d not", k.name, sched, f, len(sa.lines), len(sb.lines))
				}
			}
		}
	}
}

// With an observer of accesses, events and active lanes attached (the race
// checker's flags), Run still runs register-only instructions ahead: a
// loop without memory accesses costs no dispatch per instruction.
func TestBatchedObserverLeads(t *testing.T) {
	for _, sched := range []Scheduling{SchedIndependent, SchedSIMTStack} {
		l := batchLaunch{src: faultPTX, grid: 1, block: 128, words: 256, sched: sched}
		m := l.machine(t, true)
		m.SetObserver(&streamObserver{flags: ObserveAccesses | ObserveEvents | ObserveMaskChanges})
		if r := m.Run(context.Background()); r != StopDone {
			t.Fatalf("%s: %v", sched, r)
		}
		if m.fast.pairs == 0 {
			t.Fatalf("%s: no lead ran with the observer attached", sched)
		}
	}
}
