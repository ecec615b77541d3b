package launch

import (
	"math/bits"

	"github.com/ptxplayground/ptxplay/engine/emu"
	"github.com/ptxplayground/ptxplay/engine/isa"
)

// tracker is an emu.Observer that records the global bytes a machine's
// instructions read and wrote, per allocation (atomics do both).
type tracker struct {
	allocs []allocBits
	last   int
	// outside: an access fell outside every allocation (it would have
	// faulted; recorded so that it is never missed).
	outside bool
}

// allocBits is the read and write bitmaps of one allocation, covering its
// mapped bytes (its slack included).
type allocBits struct {
	base, size  uint64
	read, write bitset
}

func newTracker(allocs []*emu.Alloc) *tracker {
	t := &tracker{allocs: make([]allocBits, len(allocs))}
	for i, a := range allocs {
		n := uint64(cap(a.Data))
		t.allocs[i] = allocBits{base: a.Base, size: n, read: newBitset(n), write: newBitset(n)}
	}
	return t
}

// Observes implements emu.SelectiveObserver: global-memory accesses only,
// as sets (so a segment keeps batched dispatch).
func (t *tracker) Observes() emu.ObserveFlags {
	return emu.ObserveAccesses | emu.ObserveGlobalOnly | emu.ObserveUnordered
}

// Step implements emu.Observer.
func (t *tracker) Step(in *emu.StepInfo) {
	for i := range in.Accesses {
		a := &in.Accesses[i]
		if a.Space != isa.Global || a.Size <= 0 {
			continue
		}
		// Lanes that access consecutive bytes (a coalesced access) are
		// marked as one range.
		n := uint64(a.Size)
		var lo, hi uint64
		for m := a.Lanes; m != 0; m &= m - 1 {
			addr := a.Addr[bits.TrailingZeros32(m)]
			if addr == hi && hi != lo {
				hi += n
				continue
			}
			if hi != lo {
				t.mark(a.Kind, lo, hi-lo)
			}
			lo, hi = addr, addr+n
		}
		if hi != lo {
			t.mark(a.Kind, lo, hi-lo)
		}
	}
}

// mark records an access of n bytes at addr.
func (t *tracker) mark(kind emu.AccessKind, addr, n uint64) {
	if len(t.allocs) == 0 {
		t.outside = true
		return
	}
	ab := &t.allocs[t.last]
	if addr < ab.base || addr-ab.base >= ab.size {
		found := false
		for i := range t.allocs {
			if b := &t.allocs[i]; addr >= b.base && addr-b.base < b.size {
				t.last, ab, found = i, b, true
				break
			}
		}
		if !found {
			t.outside = true
			return
		}
	}
	off := addr - ab.base
	if n > ab.size-off {
		t.outside = true
		n = ab.size - off
	}
	if kind != emu.AccessStore {
		ab.read.set(off, n)
	}
	if kind != emu.AccessLoad {
		ab.write.set(off, n)
	}
}

// bitset is one bit per byte of an allocation, in 4 KiB pages allocated
// when first set.
type bitset struct {
	pages []*bitPage
}

const (
	pageShift = 12
	pageBytes = 1 << pageShift
	pageWords = pageBytes / 64
)

type bitPage [pageWords]uint64

func newBitset(n uint64) bitset {
	return bitset{pages: make([]*bitPage, (n+pageBytes-1)/pageBytes)}
}

// set sets the bits of bytes [off, off+n) (within the allocation).
func (b *bitset) set(off, n uint64) {
	for n > 0 {
		p := b.pages[off>>pageShift]
		if p == nil {
			p = new(bitPage)
			b.pages[off>>pageShift] = p
		}
		bit := off & 63
		k := min(n, 64-bit)
		mask := ^uint64(0)
		if k < 64 {
			mask = (uint64(1)<<k - 1) << bit
		}
		p[off&(pageBytes-1)>>6] |= mask
		off += k
		n -= k
	}
}

// intersect returns the first byte set in both b and c.
func (b *bitset) intersect(c *bitset) (uint64, bool) {
	for i := range min(len(b.pages), len(c.pages)) {
		p, q := b.pages[i], c.pages[i]
		if p == nil || q == nil {
			continue
		}
		for w := range p {
			if x := p[w] & q[w]; x != 0 {
				return uint64(i)*pageBytes + uint64(w)*64 + uint64(bits.TrailingZeros64(x)), true
			}
		}
	}
	return 0, false
}

// copyMarked copies the bytes whose bits are set from the saved pages of
// the same allocation (src[i]: page i, nil where no bit is set) to dst.
func (b *bitset) copyMarked(dst []byte, src []*[pageBytes]byte) {
	for i, p := range b.pages {
		if p == nil || i >= len(src) || src[i] == nil {
			continue
		}
		page := src[i]
		for w, x := range p {
			if x == 0 {
				continue
			}
			o := i*pageBytes + w*64
			if x == ^uint64(0) && o+64 <= len(dst) {
				copy(dst[o:o+64], page[w*64:w*64+64])
				continue
			}
			for ; x != 0; x &= x - 1 {
				j := bits.TrailingZeros64(x)
				if o+j < len(dst) {
					dst[o+j] = page[w*64+j]
				}
			}
		}
	}
}
