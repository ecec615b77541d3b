package emu

import (
	"math/bits"

	"github.com/ptxplayground/ptxplay/engine/isa"
)

// faultAll builds a fault of an instruction that fails as a whole: every
// lane of mask faults, and the lowest one is the fault's lane.
func (w *Warp) faultAll(kind FaultKind, mask uint32, format string, args ...any) *Fault {
	f := w.fault(kind, firstLane(mask), format, args...)
	f.Lanes = mask
	if mask == 0 {
		f.Lanes = 1 << f.Lane
	}
	return f
}

// faultLanes works out Fault.Lanes for a fault that op raised, executing
// for emask, when the instruction named only f.Lane: a memory access adds
// every lane above f.Lane whose access would fault too (lanes below it
// executed without fault).
func (w *Warp) faultLanes(op *Op, emask uint32, f *Fault) uint32 {
	lanes := uint32(1) << f.Lane
	if !f.HasAddr {
		return lanes
	}
	if memAccessKind(op) != accessNone {
		lanes |= w.memFaultLanes(op, emask&(^uint32(0)<<(f.Lane+1)))
	}
	return lanes
}

// memFaultLanes returns the lanes of mask whose access by op (ld, ldu, st,
// atom or red) faults, with the checks the instruction makes: bounds and
// natural alignment of the whole access, stores and atomics to read-only
// memory, atomics outside .global and .shared. It changes nothing.
func (w *Warp) memFaultLanes(op *Op, mask uint32) uint32 {
	size := op.Type.Size() * max(int(op.Vec), 1)
	var out uint32
	for m := mask; m != 0; m &= m - 1 {
		l := bits.TrailingZeros32(m)
		_, sp, f := w.spaceBytes(op.Space, l, memAddr(w, op, l), size, size)
		bad := f != nil
		if !bad {
			switch memAccessKind(op) {
			case accessStore:
				bad = sp == isa.Const || sp == isa.Param
			case accessAtomic:
				bad = sp != isa.Global && (op.Vec > 1 || sp != isa.Shared)
			}
		}
		if bad {
			out |= 1 << l
		}
	}
	return out
}
