package analysis

import (
	"math/bits"
	"math/rand/v2"
	"testing"

	"github.com/ptxplayground/ptxplay/engine/emu"
	"github.com/ptxplayground/ptxplay/engine/isa"
)

const all = ^uint32(0)

// warp builds an access of size bytes for the lanes in mask, lane l at
// off(l).
func warp(kind emu.AccessKind, space isa.Space, size int, mask uint32, off func(l int) uint64) *WarpAccess {
	a := &WarpAccess{Kind: kind, Space: space, Size: size, Lanes: mask}
	for l := 0; l < 32; l++ {
		if mask&(1<<l) != 0 {
			a.Offset[l] = off(l)
		}
	}
	return a
}

func TestSharedWavefronts(t *testing.T) {
	ld, st, atom := emu.AccessLoad, emu.AccessStore, emu.AccessAtomic
	tests := []struct {
		name        string
		a           *WarpAccess
		wave, ideal int
	}{
		// Stride 1 word: lane l in bank l, 32 banks once each: 1
		// wavefront; 128 bytes need 1 at best.
		{"stride1", warp(ld, isa.Shared, 4, all, func(l int) uint64 { return 4 * uint64(l) }), 1, 1},
		// Stride 2 words: lane l in bank 2l % 32, so banks 0, 2, ..., 30
		// each serve 2 distinct words (lanes l and l+16): 2-way.
		{"stride2", warp(ld, isa.Shared, 4, all, func(l int) uint64 { return 8 * uint64(l) }), 2, 1},
		// Stride 32 words: every lane in bank 0, 32 distinct words: 32-way.
		{"stride32", warp(ld, isa.Shared, 4, all, func(l int) uint64 { return 128 * uint64(l) }), 32, 1},
		// Stride 33 words: lane l in bank 33l % 32 = l: conflict-free.
		{"stride33", warp(ld, isa.Shared, 4, all, func(l int) uint64 { return 132 * uint64(l) }), 1, 1},
		// The same with a base offset of 12 bytes: the banks rotate by 3,
		// still all distinct.
		{"stride33-offset", warp(ld, isa.Shared, 4, all, func(l int) uint64 { return 12 + 132*uint64(l) }), 1, 1},
		// Broadcast: all 32 lanes read word 5: one word, 1 wavefront.
		{"broadcast", warp(ld, isa.Shared, 4, all, func(int) uint64 { return 20 }), 1, 1},
		// Stores to one word: one write wins, no conflict.
		{"store-same-word", warp(st, isa.Shared, 4, all, func(int) uint64 { return 20 }), 1, 1},
		// Atomics to one word: each of the 32 updates is applied: 32.
		{"atomic-same-word", warp(atom, isa.Shared, 4, all, func(int) uint64 { return 20 }), 32, 1},
		// Atomics to distinct words in distinct banks: 1.
		{"atomic-stride1", warp(atom, isa.Shared, 4, all, func(l int) uint64 { return 4 * uint64(l) }), 1, 1},
		// Half the lanes read bank 0 words 0, 32, 64, ... and the other
		// half read word 0 too: lanes 0..15 at 128l (16 distinct words in
		// bank 0), lanes 16..31 broadcast word 0 (already counted): 16-way.
		{"half-broadcast", warp(ld, isa.Shared, 4, all, func(l int) uint64 {
			if l < 16 {
				return 128 * uint64(l)
			}
			return 0
		}), 16, 1},
		// Partial mask: only the even lanes of a stride-32 pattern: 16
		// lanes, 16 distinct words in bank 0: 16-way; 64 bytes: ideal 1.
		{"partial-even-stride32", warp(ld, isa.Shared, 4, 0x55555555, func(l int) uint64 { return 128 * uint64(l) }), 16, 1},
		// Partial mask: 4 lanes at stride 32 words: 4-way.
		{"partial-4-stride32", warp(ld, isa.Shared, 4, 0xf, func(l int) uint64 { return 128 * uint64(l) }), 4, 1},
		// One lane: 1 wavefront.
		{"one-lane", warp(ld, isa.Shared, 4, 1<<7, func(l int) uint64 { return 1000 }), 1, 1},
		// Bytes: lane l reads byte l. Lanes 4k..4k+3 share word k (the
		// same word: broadcast), words 0..7 are in banks 0..7: 1.
		{"bytes-same-word", warp(ld, isa.Shared, 1, all, func(l int) uint64 { return uint64(l) }), 1, 1},
		// Bytes 128 apart: byte l*128 is word 32l, bank 0 for every lane:
		// 32 distinct words in one bank: 32-way; 32 bytes requested: ideal 1.
		{"bytes-stride128", warp(ld, isa.Shared, 1, all, func(l int) uint64 { return 128 * uint64(l) }), 32, 1},
		// 16-bit: lane l reads halfword l; lanes 2k, 2k+1 share word k,
		// words 0..15 in banks 0..15: 1.
		{"half-consecutive", warp(ld, isa.Shared, 2, all, func(l int) uint64 { return 2 * uint64(l) }), 1, 1},
		// 64-bit consecutive: 256 bytes in two half-warps; each half-warp
		// covers words 0..31 (or 32..63) once: 1 wavefront each, 2 in
		// all; 256 bytes need 2 at best.
		{"v2-consecutive", warp(ld, isa.Shared, 8, all, func(l int) uint64 { return 8 * uint64(l) }), 2, 2},
		// 64-bit at stride 16 bytes (every other 8-byte slot): lanes
		// 0..15 cover words 4l, 4l+1 for l < 16, i.e. words 0..61 of
		// which banks 4l%32, 4l+1%32 are hit by lanes l and l+8: 2
		// distinct words per bank: 2 per half-warp, 4 in all; ideal 2.
		{"v2-stride16", warp(ld, isa.Shared, 8, all, func(l int) uint64 { return 16 * uint64(l) }), 4, 2},
		// 64-bit at stride 128 bytes: every lane in banks 0 and 1, 16
		// distinct words per bank per half-warp: 16 + 16 = 32; ideal 2.
		{"v2-stride128", warp(ld, isa.Shared, 8, all, func(l int) uint64 { return 128 * uint64(l) }), 32, 2},
		// 64-bit, only lanes 0..15: one half-warp, conflict-free: 1 = ideal.
		{"v2-half-mask", warp(ld, isa.Shared, 8, 0xffff, func(l int) uint64 { return 8 * uint64(l) }), 1, 1},
		// 128-bit consecutive: 512 bytes in four quarter-warps of 8 lanes,
		// each covering all 32 banks once: 4 = ideal 4.
		{"v4-consecutive", warp(ld, isa.Shared, 16, all, func(l int) uint64 { return 16 * uint64(l) }), 4, 4},
		// 128-bit at stride 32 bytes: a quarter-warp covers words 8l..8l+3
		// for l = 0..7, 64 words; banks 0..3, 8..11, 16..19, 24..27 hit by
		// lanes l and l+4: 2-way per quarter: 8; ideal 4.
		{"v4-stride32", warp(ld, isa.Shared, 16, all, func(l int) uint64 { return 32 * uint64(l) }), 8, 4},
		// 128-bit at stride 128 bytes: a quarter-warp's 8 lanes all hit
		// banks 0..3 with 8 distinct words each: 8 per quarter, 32 in all.
		{"v4-stride128", warp(ld, isa.Shared, 16, all, func(l int) uint64 { return 128 * uint64(l) }), 32, 4},
		// 128-bit broadcast: every lane reads bytes 0..15: each quarter
		// needs words 0..3 once: 1 per quarter, 4 in all; 512 bytes
		// requested: ideal 4.
		{"v4-broadcast", warp(ld, isa.Shared, 16, all, func(int) uint64 { return 0 }), 4, 4},
		// Empty: nothing.
		{"empty", warp(ld, isa.Shared, 4, 0, nil), 0, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := SharedWavefronts(tc.a)
			if c.Wavefronts != tc.wave || c.Ideal != tc.ideal {
				t.Errorf("wavefronts %d ideal %d, want %d and %d", c.Wavefronts, c.Ideal, tc.wave, tc.ideal)
			}
			if err := checkLanes(tc.a, SharedLaneWavefronts(tc.a)); err != nil {
				t.Error(err)
			}
		})
	}
}

// ldmatrix: lane 8j+r gives row r of matrix j, 16 bytes each, one matrix
// per phase (the 128-bit rule). The tile has rows of 128 bytes (8 chunks
// of 16 bytes); every matrix reads chunk c of rows 0..7.
func TestLdmatrixSwizzle(t *testing.T) {
	const rowBytes = 128
	plain := func(l int) uint64 {
		j, r := l/8, l%8 // matrix j reads chunk j of row r
		return uint64(r*rowBytes + j*16)
	}
	swizzled := func(l int) uint64 {
		j, r := l/8, l%8 // chunk j stored at chunk j ^ r
		return uint64(r*rowBytes + (j^r)*16)
	}
	// .x1 unswizzled: lanes 0..7 read chunk 0 of rows 0..7, all in banks
	// 0..3, 8 distinct words per bank: 8 wavefronts, ideal 1 (8-way).
	c := SharedWavefronts(warp(emu.AccessLoad, isa.Shared, 16, 0xff, plain))
	if c.Wavefronts != 8 || c.Ideal != 1 || c.Degree() != 8 {
		t.Errorf("x1 unswizzled: %+v, want 8 wavefronts, ideal 1", c)
	}
	// .x4 unswizzled: each of the 4 matrices is 8-way: 32, ideal 4.
	c = SharedWavefronts(warp(emu.AccessLoad, isa.Shared, 16, all, plain))
	if c.Wavefronts != 32 || c.Ideal != 4 {
		t.Errorf("x4 unswizzled: %+v, want 32 wavefronts, ideal 4", c)
	}
	// Swizzled: row r's chunk is j^r, distinct for r = 0..7, so the 8 rows
	// of a matrix cover 8 distinct chunks = all 32 banks once: 1 per
	// matrix, 4 for .x4 = ideal.
	c = SharedWavefronts(warp(emu.AccessLoad, isa.Shared, 16, all, swizzled))
	if c.Wavefronts != 4 || c.Ideal != 4 || c.Degree() != 1 {
		t.Errorf("x4 swizzled: %+v, want 4 wavefronts, ideal 4", c)
	}
	// stmatrix follows the same rule.
	c = SharedWavefronts(warp(emu.AccessStore, isa.Shared, 16, 0xff, swizzled))
	if c.Wavefronts != 1 {
		t.Errorf("x1 swizzled store: %+v, want 1 wavefront", c)
	}
}

func TestBanks(t *testing.T) {
	a := warp(emu.AccessLoad, isa.Shared, 4, 0x80000003, func(l int) uint64 { return 132 * uint64(l) })
	b := LaneBanks(a)
	// Lane l at word 33l: bank 33l % 32 = l.
	if b[0] != 0 || b[1] != 1 || b[31] != 31 || b[2] != -1 {
		t.Errorf("banks %v", b)
	}
	if Bank(4*33) != 1 || Bank(127) != 31 || Bank(128) != 0 {
		t.Error("Bank")
	}
}

func TestGlobalSectors(t *testing.T) {
	ld := emu.AccessLoad
	const base = 0x10000 // 128-byte aligned
	tests := []struct {
		name                  string
		a                     *WarpAccess
		sectors, lines, bytes int
		eff                   float64
	}{
		// Coalesced 4-byte: 128 contiguous aligned bytes = 4 sectors in 1
		// line; 128 requested / 128 moved = 100%.
		{"coalesced", warp(ld, isa.Global, 4, all, func(l int) uint64 { return base + 4*uint64(l) }), 4, 1, 128, 1},
		// Stride 8 floats (32 bytes): every lane in its own sector, 4 per
		// line: 32 sectors, 8 lines; 128 / 1024 = 12.5%.
		{"stride8", warp(ld, isa.Global, 4, all, func(l int) uint64 { return base + 32*uint64(l) }), 32, 8, 128, 0.125},
		// Misaligned start: 128 bytes from base+4 cover bytes 4..131,
		// sectors 0..4 (5) in lines 0 and 1; 128 / 160 = 80%.
		{"misaligned", warp(ld, isa.Global, 4, all, func(l int) uint64 { return base + 4 + 4*uint64(l) }), 5, 2, 128, 0.8},
		// 16-byte vectors, consecutive: 512 bytes = 16 sectors, 4 lines,
		// 100%.
		{"v4-consecutive", warp(ld, isa.Global, 16, all, func(l int) uint64 { return base + 16*uint64(l) }), 16, 4, 512, 1},
		// 16-byte vectors at stride 64 bytes: each lane its own sector
		// (half of every other sector pair unused): 32 sectors in 16
		// lines; 512 / 1024 = 50%.
		{"v4-stride64", warp(ld, isa.Global, 16, all, func(l int) uint64 { return base + 64*uint64(l) }), 32, 16, 512, 0.5},
		// Broadcast: all lanes read one float: 1 sector, 1 line; 128
		// requested over 32 moved is capped at 100%.
		{"broadcast", warp(ld, isa.Global, 4, all, func(int) uint64 { return base }), 1, 1, 128, 1},
		// 8 lanes, coalesced: 32 bytes = 1 sector, 100%.
		{"partial", warp(ld, isa.Global, 4, 0xff, func(l int) uint64 { return base + 4*uint64(l) }), 1, 1, 32, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := GlobalSectors(tc.a)
			if c.Sectors != tc.sectors || c.Lines != tc.lines || c.Requested != tc.bytes || c.Efficiency() != tc.eff {
				t.Errorf("got %+v (efficiency %v), want %d sectors, %d lines, %d bytes, efficiency %v",
					c, c.Efficiency(), tc.sectors, tc.lines, tc.bytes, tc.eff)
			}
		})
	}
}

// The models' shortcuts (the conflict-free check of shared accesses,
// neighbouring lanes in one sector for global ones) agree with the full
// count on random accesses: sizes 1 to 32 bytes, random lanes, offsets
// clustered so that broadcasts, conflicts, shared sectors and straddling
// accesses all occur.
func TestModelShortcutsAgree(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	sizes := []int{1, 2, 4, 8, 16, 32, 12}
	for i := 0; i < 20000; i++ {
		size := sizes[rng.IntN(len(sizes))]
		lanes := rng.Uint32()
		if i%4 == 0 {
			lanes = all
		}
		kind := emu.AccessKind(rng.IntN(3))
		span := uint64(1) << (4 + rng.IntN(10))
		stride := uint64(rng.IntN(5)) * uint64(size)
		var off [32]uint64
		for l := range off {
			o := uint64(l) * stride
			if rng.IntN(3) == 0 {
				o = rng.Uint64N(span)
			}
			if i%2 == 0 {
				o &^= uint64(min(size, 16) - 1) // aligned, as the emulator's accesses are
			}
			off[l] = 4096 + o
		}
		got := sharedCost(kind, size, lanes, &off)
		want := 0
		if lanes != 0 {
			want = sharedCounted(kind == emu.AccessAtomic, size, lanes, &off, phaseLanes(size))
		}
		if got.Wavefronts != want {
			t.Fatalf("shared %d: kind %d size %d lanes %#x offsets %v: %d wavefronts, full count %d", i, kind, size, lanes, off, got.Wavefronts, want)
		}
		// Global: every sector and line of every byte, in a map.
		secs, lns := map[uint64]bool{}, map[uint64]bool{}
		for l := range 32 {
			if lanes>>l&1 == 0 {
				continue
			}
			for b := off[l]; b < off[l]+uint64(size); b++ {
				secs[b/SectorBytes], lns[b/LineBytes] = true, true
			}
		}
		g := globalCost(size, lanes, &off)
		if g.Sectors != len(secs) || g.Lines != len(lns) || g.Requested != bits.OnesCount32(lanes)*size {
			t.Fatalf("global %d: size %d lanes %#x offsets %v: %+v, want %d sectors %d lines", i, size, lanes, off, g, len(secs), len(lns))
		}
	}
}
