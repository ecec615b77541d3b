package emu

import (
	"fmt"
	"slices"

	"github.com/ptxplayground/ptxplay/engine/isa"
)

// Live mbarriers. An mbarrier's state is its 8 bytes of shared memory
// (mbarrier.go), but those bytes alone cannot say which offsets hold
// mbarriers: ordinary data can have any bit pattern. So each CTA records
// the offsets that mbarrier.init initialised and no mbarrier.inval has
// invalidated since (CTA.mbars, sorted). The record is part of the CTA's
// state: snapshots copy it, DiffState compares it, and a reused CTA
// starts without one. Mbarriers lists them with their decoded state, a
// name from the kernel's shared variables and the warps waiting on each.

// mbarLive records that the object at offset off is initialised.
func (c *CTA) mbarLive(off uint64) {
	i, found := slices.BinarySearch(c.mbars, off)
	if !found {
		c.mbars = slices.Insert(c.mbars, i, off)
	}
}

// mbarDead records that the object at offset off was invalidated.
func (c *CTA) mbarDead(off uint64) {
	if i, found := slices.BinarySearch(c.mbars, off); found {
		c.mbars = slices.Delete(c.mbars, i, i+1)
	}
}

// MbarrierWaiter is a warp's lanes waiting on an mbarrier's phase.
type MbarrierWaiter struct {
	Warp   int
	Lanes  uint32
	Parity uint32 // the parity of the phase they wait for
	PC     int    // the instruction they wait at
}

// MbarrierInfo is a live mbarrier of a CTA: its offset in the CTA's
// shared memory, its name (the shared variable holding it, with an index
// into an array of 8-byte elements: "full[1]"; "" when no variable of the
// kernel holds it), its decoded state and the warps waiting on it, in
// warp order. State.Valid is false when an ordinary store has since
// overwritten the object's bytes with something that is not an
// initialised mbarrier (the object is still listed: it was not
// invalidated).
type MbarrierInfo struct {
	Off     uint64
	Name    string
	State   Mbarrier
	Waiting []MbarrierWaiter
}

// Label names the mbarrier for a message: "full[1] @0x8", or "@0x8"
// without a name.
func (i MbarrierInfo) Label() string {
	if i.Name == "" {
		return fmt.Sprintf("@%#x", i.Off)
	}
	return fmt.Sprintf("%s @%#x", i.Name, i.Off)
}

// Mbarriers returns the CTA's live mbarriers in offset order (nil when
// there are none).
func (c *CTA) Mbarriers() []MbarrierInfo {
	out, _ := c.MbarriersUpTo(len(c.mbars))
	return out
}

// MbarriersUpTo returns the first limit of the CTA's live mbarriers in
// offset order (nil when there are none) and how many it has: a CTA may
// initialise one at every 8 bytes of its shared memory, and a view shows
// a bounded number.
func (c *CTA) MbarriersUpTo(limit int) ([]MbarrierInfo, int) {
	n := min(max(limit, 0), len(c.mbars))
	if n == 0 {
		return nil, len(c.mbars)
	}
	var m *Machine
	if len(c.Warps) > 0 {
		m = c.Warps[0].m
	}
	out := make([]MbarrierInfo, 0, n)
	for _, off := range c.mbars[:n] {
		in := MbarrierInfo{Off: off, Name: m.sharedName(off)}
		if off+8 <= uint64(len(c.shared)) {
			in.State = DecodeMbarrier(getLE(c.shared[off : off+8]))
		}
		out = append(out, in)
	}
	// The waiters, in one pass over the warps (in warp order for each).
	for _, w := range c.Warps {
		w.eachWait(func(t *Wait) {
			if t.Kind != WaitMbarrier {
				return
			}
			if i, ok := slices.BinarySearch(c.mbars[:n], t.Addr); ok {
				out[i].Waiting = append(out[i].Waiting, MbarrierWaiter{Warp: w.ID, Lanes: t.Lanes, Parity: t.Parity, PC: t.PC})
			}
		})
	}
	return out, len(c.mbars)
}

// sharedName names offset off of a CTA's shared memory after the
// kernel's shared variable holding it (module scope or the kernel's
// body): "bar", "full[1]" for element 1 of an array of 8-byte elements,
// "buf+0x10" otherwise; "" when no variable holds it (or m is nil). An
// extern array of dynamic shared memory holds everything from its start.
func (m *Machine) sharedName(off uint64) string {
	if m == nil || m.prog == nil {
		return ""
	}
	fn := ""
	if m.fn != nil {
		fn = m.fn.Name
	}
	for i := range m.prog.Globals {
		g := &m.prog.Globals[i]
		if g.Space != isa.Shared || (g.Func != "" && g.Func != fn) || off < g.Addr {
			continue
		}
		rel := off - g.Addr
		if g.Size > 0 && rel >= uint64(g.Size) {
			continue
		}
		switch {
		case g.Size == 8 && rel == 0:
			return g.Name
		case g.Type.Size() == 8 && rel%8 == 0:
			return fmt.Sprintf("%s[%d]", g.Name, rel/8)
		case rel == 0:
			return g.Name
		}
		return fmt.Sprintf("%s+%#x", g.Name, rel)
	}
	return ""
}

// mbarLabel names the mbarrier at offset off of c for a wait's text:
// "full[1] @0x8", or "@0x8" when no shared variable holds it.
func (m *Machine) mbarLabel(off uint64) string {
	return MbarrierInfo{Off: off, Name: m.sharedName(off)}.Label()
}
