package emu

import (
	"math/rand"
	"testing"
)

// TestClassifyWarpBits: the vector classification is the Go one on
// offsets that follow either pattern from any start, or all but one bit of
// one lane, with any mask and bits above it.
func TestClassifyWarpBits(t *testing.T) {
	rng := rand.New(rand.NewSource(4))
	seen := map[WarpPattern]int{}
	for iter := 0; iter < 20000; iter++ {
		ramp := &rampBroadcast
		if rng.Intn(2) == 0 {
			ramp = &rampWords
		}
		am := []uint64{0xffffffff, ^uint64(0), 0xffff}[rng.Intn(3)]
		off := []uint64{0, 4, 1 << 40}[rng.Intn(3)]
		x0 := rng.Uint64() & am &^ 3
		x16 := []uint64{x0, x0 + 64, rng.Uint64() & am}[rng.Intn(3)]
		var base [32]uint64
		for l := range base {
			x := x0
			if l >= 16 {
				x = x16
			}
			base[l] = (x+ramp[l%16])&am | rng.Uint64()&^am
		}
		if rng.Intn(2) == 0 {
			base[rng.Intn(32)] ^= 1 << rng.Intn(64)
		}
		gp, g0, g16 := classifyWarpGo(&base, am, off)
		vp, v0, v16 := classifyWarpVec(&base, am, off)
		if gp != vp || g0 != v0 || g16 != v16 {
			t.Fatalf("am %#x off %#x base %x: vector %v %#x %#x, Go %v %#x %#x", am, off, base, vp, v0, v16, gp, g0, g16)
		}
		seen[gp]++
	}
	if seen[PatternBroadcastHalves] < 2000 || seen[PatternRunHalves] < 2000 || seen[PatternNone] < 2000 {
		t.Errorf("patterns seen: %v", seen)
	}
}

// TestClassifyWarp: the classification is the one lane by lane: each half
// one offset; or each half consecutive words from its first with the
// second half's first the first's or 64 bytes on; aligned.
func TestClassifyWarp(t *testing.T) {
	rng := rand.New(rand.NewSource(6))
	seen := map[WarpPattern]int{}
	for iter := 0; iter < 30000; iter++ {
		am := []uint64{0xffffffff, ^uint64(0)}[rng.Intn(2)]
		off := []uint64{0, 0, 8, 1024, 2}[rng.Intn(5)]
		o0 := uint64(4 * rng.Intn(64))
		if rng.Intn(10) == 0 {
			o0 += uint64(1 + rng.Intn(3))
		}
		o16 := []uint64{o0, o0 + 64, o0 + 4, uint64(4 * rng.Intn(64))}[rng.Intn(4)]
		step := uint64(4 * rng.Intn(2))
		var want [32]uint64
		for l := range want {
			o := o0
			if l >= 16 {
				o = o16
			}
			want[l] = o + step*uint64(l%16)
		}
		if rng.Intn(4) == 0 {
			want[rng.Intn(32)] += 4 * uint64(1+rng.Intn(4))
		}
		var base [32]uint64
		for l := range base {
			base[l] = (want[l]-off)&am | rng.Uint64()&^am
		}
		// The offsets the paths compute, and the expected pattern.
		var got [32]uint64
		for l := range got {
			got[l] = off + base[l]&am
		}
		exp := PatternNone
		aligned := (got[0]|got[16])&3 == 0
		bcast, run := true, true
		for l := range got {
			h := got[0]
			if l >= 16 {
				h = got[16]
			}
			bcast = bcast && got[l] == h
			run = run && got[l] == h+4*uint64(l%16)
		}
		switch {
		case aligned && bcast:
			exp = PatternBroadcastHalves
		case aligned && run && (got[16] == got[0] || got[16] == got[0]+64):
			exp = PatternRunHalves
		}
		p, g0, g16 := ClassifyWarp(&base, am, off)
		if p != exp || g0 != got[0] || g16 != got[16] {
			t.Fatalf("offsets %x: %v %#x %#x, want %v %#x %#x", got, p, g0, g16, exp, got[0], got[16])
		}
		// The Go function and the vector routine (the same one where
		// there is no AVX2).
		if gp, h0, h16 := classifyWarpGo(&base, am, off); gp != exp || h0 != got[0] || h16 != got[16] {
			t.Fatalf("offsets %x: Go %v %#x %#x, want %v %#x %#x", got, gp, h0, h16, exp, got[0], got[16])
		}
		if vp, v0, v16 := classifyWarpVec(&base, am, off); vp != exp || v0 != got[0] || v16 != got[16] {
			t.Fatalf("offsets %x: vector %v %#x %#x, want %v %#x %#x", got, vp, v0, v16, exp, got[0], got[16])
		}
		seen[p]++
	}
	if seen[PatternBroadcastHalves] < 1000 || seen[PatternRunHalves] < 1000 || seen[PatternNone] < 1000 {
		t.Errorf("patterns seen: %v", seen)
	}
}
