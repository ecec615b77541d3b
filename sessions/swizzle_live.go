package sessions

import (
	"github.com/ptxplayground/ptxplay/engine/emu"
	"github.com/ptxplayground/ptxplay/engine/isa"
)

// liveSwizzle reports a shared-memory access whose lanes' offsets follow a
// swizzle pattern (isa.DetectSwizzle), with a tile of the swizzle explorer
// that holds them; nil when they follow none.
func liveSwizzle(a *emu.Access) *liveSwizzleJSON {
	if a.Space != isa.Shared || a.Lanes == 0 {
		return nil
	}
	var lanes []int
	var offs []uint64
	for m := a.Lanes; m != 0; m &= m - 1 {
		l := trailingZeros(m)
		lanes = append(lanes, l)
		offs = append(offs, a.Addr[l])
	}
	fit, ok := isa.DetectSwizzle(lanes, offs)
	if !ok {
		return nil
	}
	sz := fit.Swizzle
	j := &liveSwizzleJSON{Kind: accessKinds[a.Kind], Name: sz.Name(), Mode: sz.Mode.String(), Base: fit.Base, Stride: fit.Stride,
		Size: max(a.Size, 1), Lanes: lanes, Offsets: offs, Logical: make([]uint64, len(offs))}
	if sz.Mode == isa.SwizzleTMA128B && sz.Atom != isa.Atom16B {
		j.Atom = sz.Atom.String()
	}
	if sz.Mode == isa.SwizzleXOR {
		j.B, j.M, j.S = sz.B, sz.M, sz.S
	}
	lo, hi := ^uint64(0), uint64(0)
	var phys, logi []uint64
	for i, o := range offs {
		l := fit.Logical(o)
		j.Logical[i] = l
		lo, hi = min(lo, l), max(hi, l+uint64(j.Size))
		for w := 0; w < (j.Size+3)/4; w++ {
			phys = append(phys, o+uint64(4*w))
			logi = append(logi, l+uint64(4*w))
		}
	}
	// The explorer's tile: rows of the pattern's row width (128 bytes for
	// the TMA modes, 2^(M+S) for Swizzle<B,M,S>, within the explorer's
	// limits), from a 128-byte aligned base at or below the lowest lane.
	j.RowBytes = 128
	if sz.Mode == isa.SwizzleXOR {
		j.RowBytes = min(max(1<<uint(sz.M+sz.S), 16), isa.SwizzleMaxRowBytes)
	}
	align := uint64(max(128, j.RowBytes))
	j.TileBase = lo / align * align
	j.Rows = min(max(int((hi-j.TileBase+uint64(j.RowBytes)-1)/uint64(j.RowBytes)), 1), isa.SwizzleMaxRows)
	j.Wavefronts = isa.Wavefronts(phys)
	j.LogicalWavefronts = isa.Wavefronts(logi)
	distinct := map[uint64]struct{}{}
	for _, p := range phys {
		distinct[p/4] = struct{}{}
	}
	j.Ideal = (len(distinct) + isa.SharedBanks - 1) / isa.SharedBanks
	return j
}
