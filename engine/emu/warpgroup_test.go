package emu

import (
	"math"
	"testing"
)

// Warpgroups are 4 consecutive warps of a CTA: every warp is in the
// warpgroup its index says, at its rank, and a last warpgroup may be
// partial.
func TestWarpgroups(t *testing.T) {
	for _, tc := range []struct {
		threads int
		groups  []int // warps per warpgroup
	}{
		{32, []int{1}},
		{128, []int{4}},
		{160, []int{4, 1}},
		{200, []int{4, 3}},
		{256, []int{4, 4}},
		{1024, []int{4, 4, 4, 4, 4, 4, 4, 4}},
	} {
		m, _ := ctlKernel(t, waitPTX, [3]int{tc.threads, 1, 1}, [3]int{1, 1, 1}, 1)
		m.Step(StepWarpInstruction)
		c := m.CTAs()[0]
		if c.Warpgroups() != len(tc.groups) {
			t.Fatalf("%d threads: %d warpgroups, want %d", tc.threads, c.Warpgroups(), len(tc.groups))
		}
		for i, n := range tc.groups {
			g := c.Warpgroup(i)
			if len(g) != n || cap(g) != n {
				t.Fatalf("%d threads: warpgroup %d has %d warps (cap %d), want %d", tc.threads, i, len(g), cap(g), n)
			}
			for r, w := range g {
				if w.ID != 4*i+r || w.Warpgroup() != i || w.WarpgroupRank() != r || w.CTA() != c {
					t.Fatalf("%d threads: warpgroup %d rank %d is warp %d (warpgroup %d rank %d)", tc.threads, i, r, w.ID, w.Warpgroup(), w.WarpgroupRank())
				}
			}
		}
		for _, i := range []int{-1, len(tc.groups), math.MaxInt, math.MinInt} {
			if g := c.Warpgroup(i); g != nil {
				t.Fatalf("%d threads: warpgroup %d: %d warps, want none", tc.threads, i, len(g))
			}
		}
		// Every warp is in exactly the warpgroup it names.
		for _, w := range c.Warps {
			found := 0
			for _, v := range c.Warpgroup(w.Warpgroup()) {
				if v == w {
					found++
				}
			}
			if found != 1 {
				t.Fatalf("%d threads: warp %d found %d times in warpgroup %d", tc.threads, w.ID, found, w.Warpgroup())
			}
		}
	}
}
