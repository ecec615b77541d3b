package emu

import (
	"math/rand"
	"testing"
)

// TestPatternDiff: the pattern check gives the lane-by-lane differences'
// OR (in vectors where the processor has them), on offsets that follow
// either ramp, or all but one lane, with any mask and bits above it.
func TestPatternDiff(t *testing.T) {
	rng := rand.New(rand.NewSource(4))
	zero := 0
	for iter := 0; iter < 20000; iter++ {
		ramp := &rampBroadcast
		if rng.Intn(2) == 0 {
			ramp = &rampWords
		}
		am := []uint64{0xffffffff, ^uint64(0), 0xffff}[rng.Intn(3)]
		x0, x16 := rng.Uint64()&am, rng.Uint64()&am
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
		got, want := patternDiff(&base, am, x0, x16, ramp), patternDiffGo(&base, am, x0, x16, ramp)
		if got != want {
			t.Fatalf("am %#x x0 %#x x16 %#x: %#x, lane by lane %#x\nbase %x", am, x0, x16, got, want, base)
		}
		if got == 0 {
			zero++
		}
	}
	if zero < 5000 {
		t.Errorf("only %d patterns matched", zero)
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
		seen[p]++
	}
	if seen[PatternBroadcastHalves] < 1000 || seen[PatternRunHalves] < 1000 || seen[PatternNone] < 1000 {
		t.Errorf("patterns seen: %v", seen)
	}
}
