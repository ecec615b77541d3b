package emu

import (
	"context"
	"testing"
)

// releaseKeeper keeps every barrier release event it is shown (with its
// Warps slice, which receivers may keep).
type releaseKeeper struct{ evs []Event }

func (k *releaseKeeper) Observes() ObserveFlags { return ObserveEvents }

func (k *releaseKeeper) Step(in *StepInfo) {
	for _, e := range in.Events {
		if e.Kind == EvBarrierRelease {
			k.evs = append(k.evs, e)
		}
	}
}

const barrierLoopPTX = `.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 buf) {
	.reg .u32 %r<4>; .reg .pred %p;
	mov.u32 %r1, 0;
L:
	bar.sync 0;
	add.u32 %r1, %r1, 1;
	setp.lt.u32 %p, %r1, 400;
	@%p bra L;
	ret;
}`

// Barrier releases reported to an observer of events do not allocate a
// slice each (their Warps come from shared blocks), and every event's
// Warps is still its own: kept events keep their warps, and appending to
// one does not change another.
func TestBarrierReleaseWarpsKept(t *testing.T) {
	l := batchLaunch{src: barrierLoopPTX, grid: 2, block: 128, words: 16}
	var k *releaseKeeper
	allocs := testing.AllocsPerRun(1, func() {
		m := l.machine(t, true)
		k = &releaseKeeper{}
		m.SetObserver(k)
		if r := m.Run(context.Background()); r != StopDone {
			t.Fatalf("stop %v", r)
		}
	})
	if len(k.evs) != 800 {
		t.Fatalf("%d releases, want 800", len(k.evs))
	}
	for i, e := range k.evs {
		if len(e.Warps) != 4 || cap(e.Warps) != 4 {
			t.Fatalf("release %d: warps %+v (cap %d)", i, e.Warps, cap(e.Warps))
		}
		for j, bw := range e.Warps {
			if bw.Warp != j || bw.Lanes != ^uint32(0) || bw.Barrier != 0 {
				t.Fatalf("release %d: warps %+v", i, e.Warps)
			}
		}
	}
	first := append(k.evs[0].Warps, BarrierWarp{Warp: 99})
	first[0].Warp = 42
	if k.evs[1].Warps[0].Warp != 0 || k.evs[0].Warps[0].Warp != 0 {
		t.Fatal("events share their Warps")
	}
	// Beyond the launch's own allocations (machine, memory, snapshot:
	// the same launch with an observer that does not ask for events),
	// the events (and the observer's own list) take far fewer than one
	// allocation per release.
	plain := testing.AllocsPerRun(1, func() {
		m := l.machine(t, true)
		m.SetObserver(&accessSet{read: map[uint64]bool{}, written: map[uint64]bool{}})
		m.Run(context.Background())
	})
	if allocs-plain > 100 {
		t.Fatalf("%.0f allocations for 800 barrier releases (%.0f without events)", allocs, plain)
	}
}
