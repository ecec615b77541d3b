// Package analysis models how a warp's memory accesses are served: the
// shared-memory banks and wavefronts of each access (bank conflicts) and
// the global-memory sectors and lines it touches (coalescing), and
// aggregates both per source line of a running program.
//
// The models work on WarpAccess, one instruction's access across a warp
// with the exact offset of every lane. FromStep converts the emulator's
// observer report (emu.StepInfo) into WarpAccess values; it is the only
// code that depends on the shape of that report.
package analysis

import (
	"github.com/ptxplayground/ptxplay/engine/emu"
	"github.com/ptxplayground/ptxplay/engine/isa"
)

// WarpAccess is one memory access of a warp-instruction: for every lane in
// Lanes, Size bytes at Offset[lane] in Space (for shared memory the offset
// within the executing CTA's shared memory, for global memory the
// address).
type WarpAccess struct {
	Kind   emu.AccessKind
	Space  isa.Space // isa.Shared or isa.Global
	Size   int       // bytes per lane
	Lanes  uint32
	Offset [32]uint64
}

// ActiveLanes returns the number of lanes that took part.
func (a *WarpAccess) ActiveLanes() int {
	n := 0
	for m := a.Lanes; m != 0; m &= m - 1 {
		n++
	}
	return n
}

// FromStep appends to dst the shared- and global-memory accesses of the
// executed instruction in, as WarpAccess values, and returns the extended
// slice. Accesses of other state spaces (local, const, param) are left
// out. Lanes of one instruction that access the same space with the same
// kind and size are merged into one WarpAccess (a lane that accesses twice,
// as wmma's fragment loads do, starts another). The report is exact: each
// access has its resolved space, the offset within it and its size.
func FromStep(in *emu.StepInfo, dst []WarpAccess) []WarpAccess {
	if len(in.Accesses) == 0 {
		return dst
	}
	start := len(dst)
	for i := range in.Accesses {
		a := &in.Accesses[i]
		space := a.Space
		switch space {
		case isa.Global:
		case isa.Shared, isa.SharedCluster:
			space = isa.Shared
		default:
			continue
		}
		size := a.Size
		if size == 0 {
			continue
		}
		w := mergeTarget(dst[start:], a.Kind, space, size, a.Lanes)
		if w == nil {
			dst = append(dst, WarpAccess{Kind: a.Kind, Space: space, Size: size})
			w = &dst[len(dst)-1]
		}
		w.Lanes |= a.Lanes
		for m := a.Lanes; m != 0; m &= m - 1 {
			l := trailing(m)
			w.Offset[l] = a.Addr[l]
		}
	}
	return dst
}

// mergeTarget returns the access among ws that lanes can join, or nil.
func mergeTarget(ws []WarpAccess, kind emu.AccessKind, space isa.Space, size int, lanes uint32) *WarpAccess {
	for i := len(ws) - 1; i >= 0; i-- {
		w := &ws[i]
		if w.Kind == kind && w.Space == space && w.Size == size && w.Lanes&lanes == 0 {
			return w
		}
	}
	return nil
}
