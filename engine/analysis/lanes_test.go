package analysis

import (
	"fmt"
	"math/bits"
	"math/rand"
	"testing"

	"github.com/ptxplayground/ptxplay/engine/emu"
	"github.com/ptxplayground/ptxplay/engine/isa"
)

// checkLanes checks the per-lane verdict r of a against SharedWavefronts:
// the same cost; every active lane has a wavefront and the others none;
// the wavefronts of each phase's lanes are base..base+worst-1 (so that the
// largest plus one is the access's count); a conflict-free phase (one
// wavefront per 128 bytes) has no lane in Conflict.
func checkLanes(a *WarpAccess, r SharedLanes) error {
	c := SharedWavefronts(a)
	if r.SharedCost != c {
		return fmt.Errorf("lanes cost %+v, SharedWavefronts %+v", r.SharedCost, c)
	}
	top := -1
	for l := 0; l < 32; l++ {
		on := a.Lanes&(1<<l) != 0
		if on != (r.Wave[l] >= 0) {
			return fmt.Errorf("lane %d (active %v): wavefront %d", l, on, r.Wave[l])
		}
		top = max(top, r.Wave[l])
	}
	if top+1 != c.Wavefronts {
		return fmt.Errorf("largest lane wavefront %d, the access takes %d", top, c.Wavefronts)
	}
	if (r.Conflict|r.Broadcast)&^a.Lanes != 0 {
		return fmt.Errorf("conflict %08x broadcast %08x outside the lanes %08x", r.Conflict, r.Broadcast, a.Lanes)
	}
	// Per phase: the lanes' wavefronts are contiguous from the phase's
	// first, and a phase with no conflicting lane takes one wavefront.
	pl := phaseLanes(a.Size)
	for p := 0; p < 32; p += pl {
		m := a.Lanes & phaseMask(p, pl)
		if m == 0 {
			continue
		}
		lo, hi := 1<<30, -1
		seen := map[int]bool{}
		for x := m; x != 0; x &= x - 1 {
			l := bits.TrailingZeros32(x)
			lo, hi = min(lo, r.Wave[l]), max(hi, r.Wave[l])
			seen[r.Wave[l]] = true
		}
		if r.Conflict&m == 0 && hi != lo {
			return fmt.Errorf("phase at lane %d: no conflicting lane but wavefronts %d..%d", p, lo, hi)
		}
		if r.Conflict&m != 0 && hi == lo && a.Size <= BankBytes {
			return fmt.Errorf("phase at lane %d: conflicting lanes %08x in one wavefront", p, r.Conflict&m)
		}
	}
	return nil
}

// TestSharedLaneWavefronts pins the per-lane verdict on the transpose's
// patterns: a column of a 32x32 float tile (stride 32 words) puts every
// lane in bank 0, one lane per wavefront; the padded tile (stride 33)
// spreads them over 32 banks in one wavefront; a broadcast read marks
// every lane.
func TestSharedLaneWavefronts(t *testing.T) {
	ld := emu.AccessLoad
	col := warp(ld, isa.Shared, 4, all, func(l int) uint64 { return 8 + 128*uint64(l) })
	r := SharedLaneWavefronts(col)
	if r.Wavefronts != 32 || r.Ideal != 1 || r.Conflict != all || r.Broadcast != 0 {
		t.Fatalf("column: %+v", r)
	}
	for l := 0; l < 32; l++ {
		if r.Wave[l] != l {
			t.Fatalf("column: lane %d in wavefront %d, want %d", l, r.Wave[l], l)
		}
	}
	pad := warp(ld, isa.Shared, 4, all, func(l int) uint64 { return 8 + 132*uint64(l) })
	r = SharedLaneWavefronts(pad)
	if r.Wavefronts != 1 || r.Conflict != 0 || r.Wave != [32]int{} {
		t.Fatalf("padded column: %+v", r)
	}
	bc := warp(ld, isa.Shared, 4, all, func(int) uint64 { return 20 })
	r = SharedLaneWavefronts(bc)
	if r.Wavefronts != 1 || r.Conflict != 0 || r.Broadcast != all {
		t.Fatalf("broadcast: %+v", r)
	}
	// Lanes 0 and 16 read words 0 and 32 (bank 0), the others distinct
	// banks: lanes 0 and 16 conflict, lane 16 waits for the second
	// wavefront.
	two := warp(ld, isa.Shared, 4, all, func(l int) uint64 {
		if l == 16 {
			return 128
		}
		return 4 * uint64(l%16+l/16*16)
	})
	r = SharedLaneWavefronts(two)
	if r.Wavefronts != 2 || r.Conflict != 1|1<<16 || r.Wave[16] != 1 || r.Wave[0] != 0 || r.Wave[1] != 0 {
		t.Fatalf("two-way: %+v", r)
	}
	// Atomics to one word: serialised, one lane per wavefront.
	at := warp(emu.AccessAtomic, isa.Shared, 4, 0xf0, func(int) uint64 { return 64 })
	r = SharedLaneWavefronts(at)
	if r.Wavefronts != 4 || r.Conflict != 0xf0 || r.Broadcast != 0 || r.Wave[4] != 0 || r.Wave[7] != 3 || r.Wave[0] != -1 {
		t.Fatalf("atomics: %+v", r)
	}
	// 128-bit, stride 128 bytes: each quarter-warp is 8-way; the second
	// quarter's lanes take wavefronts 8..15.
	v4 := warp(ld, isa.Shared, 16, all, func(l int) uint64 { return 128 * uint64(l) })
	r = SharedLaneWavefronts(v4)
	if r.Wavefronts != 32 || r.Wave[8] != 8 || r.Wave[15] != 15 || r.Wave[31] != 31 {
		t.Fatalf("v4 stride 128: %+v", r)
	}
}

// TestSharedLaneWavefrontsRandom: on random accesses (kinds, sizes, masks,
// offsets from narrow and wide ranges so that words repeat and banks
// collide) the per-lane verdict agrees with SharedWavefronts.
func TestSharedLaneWavefrontsRandom(t *testing.T) {
	rnd := rand.New(rand.NewSource(9))
	kinds := []emu.AccessKind{emu.AccessLoad, emu.AccessStore, emu.AccessAtomic}
	sizes := []int{1, 2, 4, 8, 16}
	for i := 0; i < 20000; i++ {
		size := sizes[rnd.Intn(len(sizes))]
		mask := rnd.Uint32()
		switch rnd.Intn(4) {
		case 0:
			mask = all
		case 1:
			mask &= rnd.Uint32()
		}
		span := []uint64{64, 512, 4096, 1 << 16}[rnd.Intn(4)]
		stride := uint64(rnd.Intn(40)) * uint64(size)
		a := warp(kinds[rnd.Intn(3)], isa.Shared, size, mask, func(l int) uint64 {
			if rnd.Intn(3) == 0 {
				return uint64(l) * stride % span / uint64(size) * uint64(size)
			}
			return uint64(rnd.Int63n(int64(span))) / uint64(size) * uint64(size)
		})
		if err := checkLanes(a, SharedLaneWavefronts(a)); err != nil {
			t.Fatalf("access %d (kind %d, size %d, lanes %08x, offsets %v): %v", i, a.Kind, size, mask, a.Offset, err)
		}
	}
}
