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
// as wmma's fragment loads do, starts another). prog is the program that
// ran (its Ops give the size of loads, which the report leaves at 0).
//
// Loads whose size the instruction does not determine (wmma fragment
// loads) are left out.
func FromStep(prog *emu.Program, in *emu.StepInfo, dst []WarpAccess) []WarpAccess {
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
			size = loadSize(prog, in)
			if size == 0 {
				continue
			}
		}
		w := mergeTarget(dst[start:], a.Kind, space, size, a.Lanes)
		if w == nil {
			dst = append(dst, WarpAccess{Kind: a.Kind, Space: space, Size: size})
			w = &dst[len(dst)-1]
		}
		w.Lanes |= a.Lanes
		for m := a.Lanes; m != 0; m &= m - 1 {
			l := trailing(m)
			off := a.Addr[l]
			if space == isa.Shared && off >= emu.GenericShared && off < emu.GenericShared+emu.WindowSize {
				off -= emu.GenericShared
			}
			w.Offset[l] = off
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

// loadSize returns the bytes per lane of the load executed by in, from the
// instruction (0 if it cannot tell).
func loadSize(prog *emu.Program, in *emu.StepInfo) int {
	if in.Tensor != nil && len(in.Tensor.Matrices) > 0 {
		return in.Tensor.Matrices[0].RowBytes // ldmatrix: one row per lane
	}
	if prog == nil || in.PC < 0 || in.PC >= len(prog.Ops) {
		return 0
	}
	op := &prog.Ops[in.PC]
	switch op.Code {
	case isa.OpCpAsync:
		// The global read is as wide as the shared write (cp-size); the
		// write reports its size.
		for i := range in.Accesses {
			if a := &in.Accesses[i]; a.Kind == emu.AccessStore && a.Size > 0 {
				return a.Size
			}
		}
		return 0
	case isa.OpWmmaLoad, isa.OpWmmaStore, isa.OpLdmatrix, isa.OpStmatrix:
		return 0
	}
	return op.Type.Size() * max(int(op.Vec), 1)
}
