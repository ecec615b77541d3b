package emu

// Warpgroups. A warpgroup is 4 consecutive warps of a CTA: warps 4i to
// 4i+3 form warpgroup i (PTX ISA, "warpgroup"), the unit that wgmma
// instructions execute on and whose commit groups (wgmma.commit_group,
// wait_group) complete its asynchronous work (async.go,
// targetWarpgroupGroup). A CTA whose warp count is not a multiple of 4 has
// a last warpgroup of fewer warps.

// WarpgroupSize is the number of warps in a warpgroup.
const WarpgroupSize = 4

// Warpgroup returns the index of the warp's warpgroup in its CTA.
func (w *Warp) Warpgroup() int { return w.ID / WarpgroupSize }

// WarpgroupRank returns the warp's rank in its warpgroup (0-3).
func (w *Warp) WarpgroupRank() int { return w.ID % WarpgroupSize }

// Warpgroups returns the number of warpgroups of the CTA.
func (c *CTA) Warpgroups() int { return (len(c.Warps) + WarpgroupSize - 1) / WarpgroupSize }

// Warpgroup returns the warps of the CTA's warpgroup i, in warp order: 4,
// or fewer for a last warpgroup that is not full; nil when the CTA has no
// warpgroup i. The slice is the CTA's own (its capacity ends with the
// warpgroup).
func (c *CTA) Warpgroup(i int) []*Warp {
	if i < 0 || i >= c.Warpgroups() {
		return nil
	}
	lo := i * WarpgroupSize
	hi := min(lo+WarpgroupSize, len(c.Warps))
	return c.Warps[lo:hi:hi]
}
