package emu

import (
	"encoding/binary"
	"math/bits"

	"github.com/ptxplayground/ptxplay/engine/isa"
)

// Observed fast paths of 32/64-bit ld/st of .global, .shared and generic
// (global) addresses: with an observer that asks for accesses, the whole
// warp is recorded in one Access and served from the backing bytes when
// every lane's access is aligned and inside shared memory or one global
// allocation; otherwise the instruction takes the checked path lane by
// lane, which reports faults and records each lane. The report is the same
// either way: lanes in ascending order, each store's old bytes read just
// before that lane writes (so lanes storing to one word see their
// predecessors' values).
//
// A load checks and reads lane by lane and, at the first lane it cannot
// serve, gives the Access back and leaves the warp to the checked path,
// which reads every lane again (the lanes read so far got the values the
// checked path gives them). When the destination is the address register
// that would change the addresses, so such a load checks every lane first.
// A store always checks every lane before it writes any.

// memObservedAddrs computes the address of every lane in mask into
// acc.Addr and reports whether each is served by the fast path: aligned
// for size bytes and inside [lo, lo+n) (shared memory, an allocation), and
// for a generic instruction outside the state-space windows.
func memObservedAddrs(w *Warp, op *Op, mask uint32, acc *Access, size, lo, n uint64, generic bool) bool {
	if n < size {
		return false
	}
	off, am, limit := uint64(op.Off), op.Imm, n-size
	base := &ixZero
	if op.A >= 0 {
		base = w.r(op.A)
	}
	for m := mask; m != 0; m &= m - 1 {
		l := bits.TrailingZeros32(m)
		a := off + base[l]&am
		acc.Addr[l] = a
		if a&(size-1) != 0 || a-lo > limit || a < lo || generic && memInWindows(a) {
			return false
		}
	}
	return true
}

// memObservedLoad loads size bytes (4 or 8) for every lane in mask from
// mem at offset address-lo into op.D, recording the addresses in acc; it
// reports false (acc to be given back) at the first lane outside
// [lo, lo+len(mem)) or misaligned.
func memObservedLoad(w *Warp, op *Op, mask uint32, acc *Access, mem []byte, lo uint64, size int, generic bool) bool {
	us := uint64(size)
	if op.A >= 0 && op.A == op.D {
		if !memObservedAddrs(w, op, mask, acc, us, lo, uint64(len(mem)), generic) {
			return false
		}
		d := w.r(op.D)
		for m := mask; m != 0; m &= m - 1 {
			l := bits.TrailingZeros32(m)
			o := acc.Addr[l] - lo
			if size == 4 {
				d[l] = uint64(binary.LittleEndian.Uint32(mem[o:]))
			} else {
				d[l] = binary.LittleEndian.Uint64(mem[o:])
			}
		}
		acc.Lanes |= mask
		return true
	}
	n := uint64(len(mem))
	if n < us {
		return false
	}
	off, am, limit := uint64(op.Off), op.Imm, n-us
	base := &ixZero
	if op.A >= 0 {
		base = w.r(op.A)
	}
	d := w.r(op.D)
	for m := mask; m != 0; m &= m - 1 {
		l := bits.TrailingZeros32(m)
		a := off + base[l]&am
		o := a - lo
		if a&(us-1) != 0 || o > limit || a < lo || generic && memInWindows(a) {
			return false
		}
		acc.Addr[l] = a
		if size == 4 {
			d[l] = uint64(binary.LittleEndian.Uint32(mem[o:]))
		} else {
			d[l] = binary.LittleEndian.Uint64(mem[o:])
		}
	}
	acc.Lanes |= mask
	return true
}

// memObservedStore stores size bytes (4 or 8) of every lane's op.B to mem
// at offset address-lo after checking every lane, recording the addresses
// (and, when m.obsOld, the old bytes) in acc; it reports false (nothing
// written, acc to be given back) when a lane is outside [lo, lo+len(mem))
// or misaligned.
func memObservedStore(w *Warp, op *Op, mask uint32, acc *Access, mem []byte, lo uint64, size int, generic bool) bool {
	if !memObservedAddrs(w, op, mask, acc, uint64(size), lo, uint64(len(mem)), generic) {
		return false
	}
	src, old := w.r(op.B), w.m.obsOld
	for m := mask; m != 0; m &= m - 1 {
		l := bits.TrailingZeros32(m)
		o := acc.Addr[l] - lo
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
	acc.Lanes |= mask
	return true
}

// memObservedAlloc returns the allocation the fast path tries for the
// warp: the one holding the first lane's address (nil: none, or a window
// address of a generic instruction).
func memObservedAlloc(w *Warp, op *Op, mask uint32, size int, generic bool) *Alloc {
	l := bits.TrailingZeros32(mask)
	first := uint64(op.Off)
	if op.A >= 0 {
		first += w.r(op.A)[l] & op.Imm
	}
	g := &w.m.Global
	if a := g.last; a != nil && first >= a.Base && first-a.Base < uint64(len(a.Data)) {
		return a
	}
	if generic && memInWindows(first) {
		return nil
	}
	return g.Find(first, size)
}

func memLdSharedObserved(w *Warp, op *Op, mask uint32, size int) *Fault {
	acc := w.m.warpAccess(w, AccessLoad, isa.Shared, size, false, mask)
	if acc != nil {
		if mask == ixAll && size == 4 && op.A >= 0 && op.A != op.D {
			if memObservedLoadShared4(w, op, acc, w.cta.shared) {
				if w.m.sf.on {
					// Shared offsets are below 2^32: the filter's loop
					// for a 32-bit address serves them.
					w.sfWarp(false, mask, &acc.Addr, 0xffffffff, 0, size)
				}
				return nil
			}
		} else if memObservedLoad(w, op, mask, acc, w.cta.shared, 0, size, false) {
			if w.m.sf.on {
				w.sfWarp(false, mask, &acc.Addr, 0xffffffff, 0, size)
			}
			return nil
		}
		w.m.dropAccess(acc)
	}
	return memLdSlow(w, op, mask, isa.Shared, size)
}

// memObservedLoadShared4 is memObservedLoad of a full warp's 4-byte load
// from shared memory (lo 0, not generic) whose destination is not its
// address register: it checks four lanes at a time (aligned, inside mem)
// before it loads and records them, and reports false (acc to be given
// back; the lanes loaded so far hold what the checked path gives them) at
// the first four lanes it cannot serve, as memObservedLoad does at the
// first lane.
func memObservedLoadShared4(w *Warp, op *Op, acc *Access, mem []byte) bool {
	n := uint64(len(mem))
	if n < 4 {
		return false
	}
	w.m.fast.obsShared4++
	off, am, lim := uint64(op.Off), op.Imm, n-4
	base, d, addr := w.r(op.A), w.r(op.D), &acc.Addr
	for l := 0; l < 32; l += 4 {
		a0, a1, a2, a3 := off+base[l]&am, off+base[l+1]&am, off+base[l+2]&am, off+base[l+3]&am
		if (a0|a1|a2|a3)&3 != 0 || a0 > lim || a1 > lim || a2 > lim || a3 > lim {
			return false
		}
		addr[l], addr[l+1], addr[l+2], addr[l+3] = a0, a1, a2, a3
		d[l] = uint64(binary.LittleEndian.Uint32(mem[a0:]))
		d[l+1] = uint64(binary.LittleEndian.Uint32(mem[a1:]))
		d[l+2] = uint64(binary.LittleEndian.Uint32(mem[a2:]))
		d[l+3] = uint64(binary.LittleEndian.Uint32(mem[a3:]))
	}
	acc.Lanes |= ixAll
	return true
}

func memStSharedObserved(w *Warp, op *Op, mask uint32, size int) *Fault {
	acc := w.m.warpAccess(w, AccessStore, isa.Shared, size, false, mask)
	if acc != nil {
		if memObservedStore(w, op, mask, acc, w.cta.shared, 0, size, false) {
			if w.m.sf.on {
				w.sfWarp(true, mask, &acc.Addr, 0xffffffff, 0, size)
			}
			return nil
		}
		w.m.dropAccess(acc)
	}
	return memStSlow(w, op, mask, isa.Shared, size)
}

func memLdGlobalObserved(w *Warp, op *Op, mask uint32, space isa.Space, size int) *Fault {
	generic := space == isa.SpaceNone
	if a := memObservedAlloc(w, op, mask, size, generic); a != nil {
		if acc := w.m.warpAccess(w, AccessLoad, isa.Global, size, generic, mask); acc != nil {
			if memObservedLoad(w, op, mask, acc, a.Data, a.Base, size, generic) {
				return nil
			}
			w.m.dropAccess(acc)
		}
	}
	return memLdSlow(w, op, mask, space, size)
}

func memStGlobalObserved(w *Warp, op *Op, mask uint32, space isa.Space, size int) *Fault {
	generic := space == isa.SpaceNone
	if a := memObservedAlloc(w, op, mask, size, generic); a != nil {
		if acc := w.m.warpAccess(w, AccessStore, isa.Global, size, generic, mask); acc != nil {
			if memObservedStore(w, op, mask, acc, a.Data, a.Base, size, generic) {
				return nil
			}
			w.m.dropAccess(acc)
		}
	}
	return memStSlow(w, op, mask, space, size)
}
