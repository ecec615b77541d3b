package sessions

import (
	"github.com/ptxplayground/ptxplay/engine/emu"
	"github.com/ptxplayground/ptxplay/engine/isa"
)

// liveSwizzle describes a warp's shared-memory access for the Swizzle tab:
// the swizzle pattern its lanes' offsets follow (isa.DetectSwizzle), or
// none, with the affine form of the raw offsets when they have one (a row,
// a column, a broadcast, a padded tile's column), a tile of the explorer
// that holds the lanes, the cell width the access uses and the bank check.
// Every shared access with a lane gets one, so the tab always says what the
// paused warp did; nil for other accesses.
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
	j := &liveSwizzleJSON{Kind: accessKinds[a.Kind], Size: max(a.Size, 1), Unit: swizzleUnit(a.Size),
		Lanes: lanes, Offsets: offs, Logical: make([]uint64, len(offs))}
	fit, ok := isa.DetectSwizzle(lanes, offs)
	sz := fit.Swizzle
	switch {
	case ok:
		j.Base, j.Stride = fit.Base, fit.Stride
		if fit.Affine {
			j.Affine = &liveAffineJSON{Base: fit.RawBase, Stride: fit.RawStride}
		}
	default:
		sz = isa.Swizzle{}
		if base, stride, aff := rawAffine(lanes, offs); aff {
			j.Base, j.Stride = base, stride
			j.Affine = &liveAffineJSON{Base: base, Stride: stride}
		}
	}
	j.Name, j.Mode = sz.Name(), sz.Mode.String()
	if sz.Mode == isa.SwizzleTMA128B && sz.Atom != isa.Atom16B {
		j.Atom = sz.Atom.String()
	}
	if sz.Mode == isa.SwizzleXOR {
		j.B, j.M, j.S = sz.B, sz.M, sz.S
	}
	lo, hi := ^uint64(0), uint64(0)
	var phys, logi []uint64
	for i, o := range offs {
		l := o
		if ok {
			l = fit.Logical(o)
		}
		j.Logical[i] = l
		lo, hi = min(lo, l), max(hi, l+uint64(j.Size))
		for w := 0; w < (j.Size+3)/4; w++ {
			phys = append(phys, o+uint64(4*w))
			logi = append(logi, l+uint64(4*w))
		}
	}
	// The explorer's tile: rows of the pattern's row width (128 bytes for
	// no swizzle and the TMA modes, 2^(M+S) for Swizzle<B,M,S>, within the
	// explorer's limits), from a 128-byte aligned base at or below the
	// lowest lane.
	j.RowBytes = 128
	if sz.Mode == isa.SwizzleXOR {
		j.RowBytes = min(max(1<<uint(sz.M+sz.S), 16), isa.SwizzleMaxRowBytes)
	}
	align := uint64(max(128, j.RowBytes))
	j.TileBase = min(lo/align*align, (isa.SwizzleMaxBase-1)/align*align)
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

// swizzleUnit is the explorer's cell for an access of size bytes a lane:
// one 4-byte bank word for 1-, 2- and 4-byte accesses, 8 bytes for 8, a
// 16-byte chunk for vectors of 16 bytes (and wider ones, which the
// explorer draws chunk by chunk).
func swizzleUnit(size int) int {
	switch {
	case size <= 4:
		return 4
	case size <= 8:
		return 8
	}
	return 16
}

// rawAffine reports whether lane l's offset is base + stride*l for every
// lane (one lane: stride 0).
func rawAffine(lanes []int, offs []uint64) (base, stride int64, ok bool) {
	if len(lanes) == 1 {
		return int64(offs[0]), 0, true
	}
	d, dl := int64(offs[1])-int64(offs[0]), int64(lanes[1]-lanes[0])
	if d%dl != 0 {
		return 0, 0, false
	}
	stride = d / dl
	base = int64(offs[0]) - stride*int64(lanes[0])
	for i, l := range lanes {
		if int64(offs[i]) != base+stride*int64(l) {
			return 0, 0, false
		}
	}
	return base, stride, true
}
