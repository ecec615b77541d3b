package emu

import (
	"strings"
	"testing"

	"github.com/ptxplayground/ptxplay/engine/isa"
)

// tmaViewLaunch: one thread of a 32-thread CTA loads the 64x8 box at
// (32, 60) of a 64x64 f16 tensor (half of it out of bounds) with the
// 128-byte swizzle, then stores it back with a tensor store.
func tmaViewLaunch() tmaLaunch {
	tm := isa.TensorMap{Rank: 2, GlobalDim: [5]uint64{64, 64}, GlobalStrides: [4]uint64{128}, BoxDim: [5]uint32{64, 8},
		ElementStrides: [5]uint32{1, 1, 1, 1, 1}, ElemType: isa.TensorF16, SwizzleMode: isa.TMSwizzle128B}
	body := `	setp.ne.u32 %p1, %r1, 0;
	@%p1 bra WAIT;
	mbarrier.init.shared.b64 [bar], 1;
	mov.u32 %r2, 32;
	mov.u32 %r3, 60;
	mbarrier.arrive.expect_tx.shared.b64 %rd3, [bar], 1024;
	cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [buf], [%rd2, {%r2, %r3}], [bar];
WAIT:
	bar.sync 0;
LOOP:
	mbarrier.try_wait.parity.shared.b64 %p2, [bar], 0;
	@!%p2 bra LOOP;
	@%p1 bra DONE;
	mov.u32 %r2, 0;
	cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%rd2, {%r2, %r2}], [buf];
DONE:
`
	return tmaLaunch{src: tmaKernel(body), block: 32, words: 1, tensor: make([]byte, 64*64*2), tmap: tm}
}

// The TMA view's operands: a warp's next tensor copy, evaluated from its
// first active lane's registers without effect, is what the CTA records
// as its last once it runs; the store that follows replaces it; a
// snapshot restores the recorded copy exactly.
func TestTMAViewNextAndLast(t *testing.T) {
	for _, sched := range bothScheds {
		m := tmaViewLaunch().machine(t, sched)
		var next TMACopy
		found := false
		for n := 0; n < 200 && !found; n++ {
			m.NextWarp()
			w := m.CTAs()[0].Warps[0]
			if c, ok := w.NextTMA(); ok {
				next, found = c, true
				break
			}
			if _, ok := m.CTAs()[0].LastTMA(); ok {
				t.Fatalf("%s: a last tensor copy before any ran", sched)
			}
			if r := m.Step(StepWarpInstruction); r != StopStepped {
				t.Fatalf("%s: stopped with %v", sched, r)
			}
		}
		if !found {
			t.Fatalf("%s: the warp never reached the tensor copy", sched)
		}
		if next.Kind != TMALoad || next.Rank != 2 || next.Coords[0] != 32 || next.Coords[1] != 60 || next.Lane != 0 || next.SharedErr != "" || !next.MapOK {
			t.Fatalf("%s: next copy %+v", sched, next)
		}
		tm, err := isa.DecodeTensorMap(next.Map[:])
		if err != nil || tm.GlobalDim[1] != 64 || tm.BoxDim[0] != 64 || tm.SwizzleMode != isa.TMSwizzle128B {
			t.Fatalf("%s: the map read %+v %v", sched, tm, err)
		}
		if next.SharedOff%TMASharedAlign != 0 || next.Mbar == 0 {
			t.Fatalf("%s: shared offset %#x, mbarrier %#x", sched, next.SharedOff, next.Mbar)
		}
		snap := m.Snapshot(true)
		if r := m.Step(StepWarpInstruction); r != StopStepped {
			t.Fatalf("%s: stopped with %v", sched, r)
		}
		last, ok := m.CTAs()[0].LastTMA()
		if !ok || last != next {
			t.Fatalf("%s: last copy %+v (%v), want the next one evaluated before: %+v", sched, last, ok, next)
		}
		after := m.Snapshot(true)
		m.Restore(snap)
		if _, ok := m.CTAs()[0].LastTMA(); ok {
			t.Fatalf("%s: restoring the snapshot before the copy kept a last copy", sched)
		}
		m2 := tmaViewLaunch().machine(t, sched)
		m2.Restore(after)
		if l2, ok := m2.CTAs()[0].LastTMA(); !ok || l2 != next {
			t.Fatalf("%s: restored last copy %+v", sched, l2)
		}
		m.Restore(after)
		if d := m.DiffState(m2); d != "" {
			t.Fatalf("%s: %s", sched, d)
		}
		// The state comparison sees the recorded copy.
		m2.CTAs()[0].async.lastTMA.Coords[1]++
		if d := m.DiffState(m2); !strings.Contains(d, "last tensor copy") {
			t.Fatalf("%s: a different last copy compares as %q", sched, d)
		}
		// Run to the end: the last copy is the store.
		for r := StopStepped; r == StopStepped; r = m.Step(StepWarpInstruction) {
		}
		last, ok = m.CTAs()[0].LastTMA()
		if !ok || last.Kind != TMAStore || last.Coords != [5]int32{} || last.SharedOff != next.SharedOff {
			t.Fatalf("%s: the last copy after the store is %+v", sched, last)
		}
	}
}
