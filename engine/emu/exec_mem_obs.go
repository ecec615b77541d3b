package emu

import (
	"encoding/binary"
	"math/bits"

	"github.com/ptxplayground/ptxplay/engine/isa"
)

// Observed fast paths of 32/64-bit ld/st of .global, .shared and generic
// (global) addresses: with an observer that asks for accesses, the warp's
// addresses are computed and checked first (in bounds, aligned, in the
// allocation or shared memory the fast path serves) and, when every lane
// passes, the whole warp is recorded in one Access and served from the
// backing bytes; otherwise the instruction takes the checked path lane by
// lane, which reports faults and records each lane. The report is the same
// either way: lanes in ascending order, each store's old bytes read just
// before that lane writes (so lanes storing to one word see their
// predecessors' values).

// memWarpAddrs computes the address of every lane in mask into addrs.
func memWarpAddrs(w *Warp, op *Op, mask uint32, addrs *[32]uint64) {
	off := uint64(op.Off)
	if op.A < 0 {
		for m := mask; m != 0; m &= m - 1 {
			addrs[bits.TrailingZeros32(m)] = off
		}
		return
	}
	base, am := w.r(op.A), op.Imm
	for m := mask; m != 0; m &= m - 1 {
		l := bits.TrailingZeros32(m)
		addrs[l] = off + base[l]&am
	}
}

// memSharedAddrs computes the address of every lane in mask into addrs
// and reports whether every lane's size-byte access is aligned and inside
// shared memory of n bytes.
func memSharedAddrs(w *Warp, op *Op, mask uint32, addrs *[32]uint64, size, n uint64) bool {
	if n < size {
		return false
	}
	off, am, limit := uint64(op.Off), op.Imm, n-size
	base := &ixZero
	if op.A >= 0 {
		base = w.r(op.A)
	}
	bad := false
	for m := mask; m != 0; m &= m - 1 {
		l := bits.TrailingZeros32(m)
		a := off + base[l]&am
		addrs[l] = a
		bad = bad || a&(size-1) != 0 || a > limit
	}
	return !bad
}

// memGlobalAlloc returns the allocation that holds every lane's aligned
// size-byte access, or nil (then the checked path serves the
// instruction). For a generic instruction an address in a state-space
// window disqualifies the warp.
func memGlobalAlloc(w *Warp, addrs *[32]uint64, mask uint32, size uint64, space isa.Space) *Alloc {
	g := &w.m.Global
	a := g.last
	first := addrs[bits.TrailingZeros32(mask)]
	if a == nil || first < a.Base || first-a.Base >= uint64(len(a.Data)) {
		if space != isa.Global && memInWindows(first) {
			return nil
		}
		if a = g.Find(first, int(size)); a == nil {
			return nil
		}
	}
	n := uint64(len(a.Data))
	for m := mask; m != 0; m &= m - 1 {
		addr := addrs[bits.TrailingZeros32(m)]
		if addr&(size-1) != 0 || (space != isa.Global && memInWindows(addr)) {
			return nil
		}
		o := addr - a.Base
		if addr < a.Base || o >= n || o+size > n {
			return nil
		}
	}
	return a
}

// memLdObserved loads size bytes (4 or 8) for every lane from mem at
// offsets addrs[l]-base, recording the addresses in acc.
func memLdObserved(d *[32]uint64, acc *Access, mem []byte, addrs *[32]uint64, mask uint32, size int, base uint64) {
	acc.Lanes |= mask
	for m := mask; m != 0; m &= m - 1 {
		l := bits.TrailingZeros32(m)
		a := addrs[l]
		acc.Addr[l] = a
		o := a - base
		if size == 4 {
			d[l] = uint64(binary.LittleEndian.Uint32(mem[o:]))
		} else {
			d[l] = binary.LittleEndian.Uint64(mem[o:])
		}
	}
}

// memStObserved stores size bytes (4 or 8) of every lane's src to mem at
// offsets addrs[l]-base, recording them in acc (with the old bytes when
// old is set).
func memStObserved(src *[32]uint64, acc *Access, mem []byte, addrs *[32]uint64, mask uint32, size int, base uint64, old bool) {
	acc.Lanes |= mask
	for m := mask; m != 0; m &= m - 1 {
		l := bits.TrailingZeros32(m)
		a := addrs[l]
		acc.Addr[l] = a
		o := a - base
		if size == 4 {
			if old {
				copy(acc.Old[l][:4], mem[o:o+4])
			}
			binary.LittleEndian.PutUint32(mem[o:], uint32(src[l]))
		} else {
			if old {
				copy(acc.Old[l][:8], mem[o:o+8])
			}
			binary.LittleEndian.PutUint64(mem[o:], src[l])
		}
	}
}

func memLdSharedObserved(w *Warp, op *Op, mask uint32, size int) *Fault {
	var addrs [32]uint64
	sh := w.cta.shared
	if !memSharedAddrs(w, op, mask, &addrs, uint64(size), uint64(len(sh))) {
		return memLdSlow(w, op, mask, isa.Shared, size)
	}
	acc := w.m.warpAccess(w, AccessLoad, isa.Shared, size, false, mask)
	if acc == nil {
		return memLdSlow(w, op, mask, isa.Shared, size)
	}
	memLdObserved(w.r(op.D), acc, sh, &addrs, mask, size, 0)
	return nil
}

func memStSharedObserved(w *Warp, op *Op, mask uint32, size int) *Fault {
	var addrs [32]uint64
	sh := w.cta.shared
	if !memSharedAddrs(w, op, mask, &addrs, uint64(size), uint64(len(sh))) {
		return memStSlow(w, op, mask, isa.Shared, size)
	}
	acc := w.m.warpAccess(w, AccessStore, isa.Shared, size, false, mask)
	if acc == nil {
		return memStSlow(w, op, mask, isa.Shared, size)
	}
	memStObserved(w.r(op.B), acc, sh, &addrs, mask, size, 0, w.m.obsOld)
	return nil
}

func memLdGlobalObserved(w *Warp, op *Op, mask uint32, space isa.Space, size int) *Fault {
	var addrs [32]uint64
	memWarpAddrs(w, op, mask, &addrs)
	a := memGlobalAlloc(w, &addrs, mask, uint64(size), space)
	if a == nil {
		return memLdSlow(w, op, mask, space, size)
	}
	acc := w.m.warpAccess(w, AccessLoad, isa.Global, size, space == isa.SpaceNone, mask)
	if acc == nil {
		return memLdSlow(w, op, mask, space, size)
	}
	memLdObserved(w.r(op.D), acc, a.Data, &addrs, mask, size, a.Base)
	return nil
}

func memStGlobalObserved(w *Warp, op *Op, mask uint32, space isa.Space, size int) *Fault {
	var addrs [32]uint64
	memWarpAddrs(w, op, mask, &addrs)
	a := memGlobalAlloc(w, &addrs, mask, uint64(size), space)
	if a == nil {
		return memStSlow(w, op, mask, space, size)
	}
	acc := w.m.warpAccess(w, AccessStore, isa.Global, size, space == isa.SpaceNone, mask)
	if acc == nil {
		return memStSlow(w, op, mask, space, size)
	}
	memStObserved(w.r(op.B), acc, a.Data, &addrs, mask, size, a.Base, w.m.obsOld)
	return nil
}
