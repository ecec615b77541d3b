package emu

import (
	"unsafe"
)

// Dynamic state.
//
// A launch's fixed state (registers, predicates, shared and local memory
// of the resident CTAs) is known when the machine is made. Two parts of
// the state grow while it runs, with nothing in the launch's shape to
// bound them:
//   - call frames: every active call, and for a call that re-enters a
//     function already active on the warp (recursion), the function's
//     registers, predicates and .local memory of all 32 lanes, saved for
//     the return (up to MaxCallDepth calls per warp);
//   - asynchronous work in flight: every lane's cp.async copy waits in
//     its CTA's queue (async.go) until the thread waits for it, so a loop
//     that never waits queues copies without end.
//
// The machine keeps their size in one running counter (Machine.dyn), which
// every change updates where it happens: pushing a frame (execCall) and
// completing its call (finishCall), queuing a copy (issueCopy) and landing
// it (completeAsync), a CTA leaving the resident set (leaveCTA); snapshots
// carry the counter and Restore puts it back. Config.MaxDynamicBytes
// bounds it: a call or cp.async first checks (checkDynamic) the most it
// can add, and faults (FaultMemoryLimit) as a whole, changing nothing,
// when that would pass the bound.
//
// Only calls, exits and cp.async instructions change the dynamic state,
// and batched dispatch (batch.go) executes them only at the turn where the
// one-at-a-time scheduler does, so the counter passes through the same
// values, and the same instruction faults, whether a launch is run or
// stepped, batched or not.

// Bytes the dynamic state counts per item: a frame (the frame and the two
// reconvergence-stack entries a call adds at most) and a queued copy.
const (
	frameBytes = int64(unsafe.Sizeof(frame{})) + 2*int64(unsafe.Sizeof(StackEntry{}))
	copyBytes  = int64(unsafe.Sizeof(AsyncCopy{}))
)

// bytes returns the dynamic state the frame holds.
func (fr *frame) bytes() int64 {
	return frameBytes + 8*int64(len(fr.saved)) + 4*int64(len(fr.savedP)) + int64(len(fr.savedLoc))
}

// dynamicBytes returns the dynamic state the warp holds, counted from
// scratch.
func (w *Warp) dynamicBytes() int64 {
	var n int64
	for k := range w.frames {
		n += w.frames[k].bytes()
	}
	return n
}

// dynamicBytes returns the dynamic state the CTA holds (its warps' and its
// asynchronous work's), counted from scratch.
func (c *CTA) dynamicBytes() int64 {
	n := c.async.bytes()
	for _, w := range c.Warps {
		n += w.dynamicBytes()
	}
	return n
}

// DynamicStateBytes returns the bytes of the machine's dynamic state: the
// call frames of every resident warp, with the registers and .local memory
// saved for recursive calls, and the cp.async copies in flight. It is a
// running count (constant time), not a scan.
func (m *Machine) DynamicStateBytes() int64 { return m.dyn }

// SetMaxDynamicBytes changes the bound of the dynamic state
// (Config.MaxDynamicBytes; 0: no bound) of a live machine. A bound below
// the state already held makes the next call or cp.async that adds to it
// fault.
func (m *Machine) SetMaxDynamicBytes(n int64) { m.cfg.MaxDynamicBytes = max(n, 0) }

// countDynamic returns the dynamic state of the resident CTAs, counted
// from scratch (tests compare it with the running count).
func (m *Machine) countDynamic() int64 {
	var n int64
	for _, c := range m.ctas {
		n += c.dynamicBytes()
	}
	return n
}

// overDynamic reports whether adding n bytes to the dynamic state would
// pass its bound (the instruction then returns dynamicFault).
func (m *Machine) overDynamic(n int64) bool {
	return m.cfg.MaxDynamicBytes > 0 && m.dyn+n > m.cfg.MaxDynamicBytes
}

// dynamicFault returns the FaultMemoryLimit of the warp's current
// instruction, executing for mask, which needs n more bytes of dynamic
// state; what names what it adds.
func (w *Warp) dynamicFault(n int64, mask uint32, what string) *Fault {
	return w.faultAll(FaultMemoryLimit, mask,
		"%s needs %d more bytes of emulator memory: the launch's call frames and cp.async copies in flight already hold %d bytes, and its limit is %d",
		what, n, w.m.dyn, w.m.cfg.MaxDynamicBytes)
}

// leaveCTA removes a CTA that leaves the resident set from the dynamic
// state (a retired CTA holds none: its threads exited, completing their
// calls and landing their copies).
func (m *Machine) leaveCTA(c *CTA) {
	m.dyn -= c.dynamicBytes()
	// Its threads' commit groups start again from 0 if its memory is
	// reused.
	c.async.reset()
}
