package analysis

import "math/bits"

// Pending reads: the read records a regular warp access adds to words
// whose reads were all made since the last release that ordered anything.
//
// In a tile loop every warp of the CTA reads the same words between two
// barriers (SGEMM's Bs column: 8 warps × 16 words a k step), and each
// read adds a record to each word's set of concurrent reads (readAdd in
// sharedWarp): none of those reads is ordered before another and none is
// pruned until a write, which, once the barrier has ordered them, clears
// them all. Copying a record into every word is most of the checked
// loop's cost. Instead, such a read is kept once per warp-instruction in a
// log (lazyAcc: the record without its lanes, and the access's pattern,
// from which a word's lanes follow), and the word gets one bit: shadow.pm,
// the warps with a pending read of it. The word's read set is, by
// definition, sh.rs followed by the pending reads in the order they were
// made (the log's order), exactly what appending them would have made
// (pendingRecs builds it). A write that the barrier ordered after every
// pending read clears the bits without building the records (a warp's
// reads are all ordered before w's access when w's clock holds the latest
// epoch in which that warp made a pending read: pendOrdered); everything
// else that looks at a word's reads (the lane-by-lane path, a report, a
// split into bytes, a read that replaces them) first materialises them
// (mat: appends the records to sh.rs and clears pm), so the rest of the
// checker never sees the difference. TestCheckerWarpPathRandom and the
// byte-by-byte comparison compare the logical read sets (pendingRecs)
// after every access.
//
// A word's pending reads were all made in the phase its rgen names (a
// lazy add needs rgen == the cluster's gen; anything that changes rgen
// materialises first), so the log is kept per phase: two slots, the
// current phase's and the one before; starting a third retires the older
// slot, materialising the words still pending in it (its dirty list).
// Pending reads are used only while the cluster has at most 64 warps (pm
// and rwarps then name warps exactly).

// lazyAcc is one warp access's pending reads: its record (lanes per word
// from the pattern) and its half-warp patterns (groupRegular's).
type lazyAcc struct {
	me   rec
	kind [2]uint8
	k0   [2]uint64
}

// lanes returns the lanes of the access that read word k.
func (e *lazyAcc) lanes(k uint64) uint32 {
	var l uint32
	for h := range 2 {
		d := k - e.k0[h]
		switch e.kind[h] {
		case halfOne:
			if d == 0 {
				l |= 0xffff << (16 * h)
			}
		case halfRun:
			if d < 16 {
				l |= 1 << (uint64(16*h) + d)
			}
		}
	}
	return l
}

// lazySlot is one phase's log of pending reads.
type lazySlot struct {
	gen    uint32
	used   bool
	log    []lazyAcc
	byWarp [][]int32 // per cluster warp: its entries in log, in order
	maxEp  []uint32  // per cluster warp: the latest epoch of its entries
	dirty  []uint32  // words that got a pending read in this phase
	// ord caches, per accessing warp w, the warps whose entries are all
	// ordered before w's accesses (its clock holds their maxEp), as of
	// cluster generation ordGen[w]-1 (0: not computed); only for a phase
	// that is over (its maxEp no longer grows).
	ord    []uint64
	ordGen []uint32
}

// slotOf returns the slot of phase gen (nil: none).
func (cs *ctaState) slotOf(gen uint32) *lazySlot {
	for i := range cs.lz {
		if s := &cs.lz[i]; s.used && s.gen == gen {
			return s
		}
	}
	return nil
}

// slotFor returns the slot of phase gen, starting it (and retiring the
// older slot) if there is none.
func (cs *ctaState) slotFor(gen uint32) *lazySlot {
	if s := cs.slotOf(gen); s != nil {
		return s
	}
	s := &cs.lz[0]
	if o := &cs.lz[1]; !o.used || s.used && o.gen < s.gen {
		s = o
	}
	if s.used {
		cs.retire(s)
	}
	n := len(cs.warps)
	if len(s.byWarp) != n {
		s.byWarp = make([][]int32, n)
		s.maxEp = make([]uint32, n)
		s.ord = make([]uint64, n)
		s.ordGen = make([]uint32, n)
	}
	s.gen, s.used = gen, true
	return s
}

// retire materialises the words still pending in slot s and empties it.
func (cs *ctaState) retire(s *lazySlot) {
	for _, k := range s.dirty {
		if sh := &cs.words[k]; sh.pm != 0 && sh.rgen == s.gen {
			cs.mat(uint64(k))
		}
	}
	s.dirty = s.dirty[:0]
	s.log = s.log[:0]
	for i := range s.byWarp {
		s.byWarp[i] = s.byWarp[i][:0]
	}
	clear(s.maxEp)
	clear(s.ordGen)
	s.used = false
}

// lazyAll materialises every pending read (before rgen is rewritten).
func (cs *ctaState) lazyAll() {
	for i := range cs.lz {
		if s := &cs.lz[i]; s.used {
			cs.retire(s)
		}
	}
}

// pendingRecs appends word k's pending reads to dst, in the order they
// were made, and returns it.
func (cs *ctaState) pendingRecs(k uint64, dst []rec) []rec {
	sh := &cs.words[k]
	if sh.pm == 0 {
		return dst
	}
	s := cs.slotOf(sh.rgen)
	var idx [64]int32
	n := 0
	for m := sh.pm; m != 0; m &= m - 1 {
		x := bits.TrailingZeros64(m)
		// The warp's latest entry that covers k (a later access of the
		// warp to k would have materialised the word).
		es := s.byWarp[x]
		for j := len(es) - 1; j >= 0; j-- {
			if s.log[es[j]].lanes(k) != 0 {
				idx[n] = es[j]
				n++
				break
			}
		}
	}
	// In log order (insertion sort: at most 64).
	for i := 1; i < n; i++ {
		for j := i; j > 0 && idx[j] < idx[j-1]; j-- {
			idx[j], idx[j-1] = idx[j-1], idx[j]
		}
	}
	for _, i := range idx[:n] {
		e := &s.log[i]
		r := e.me
		r.lanes = e.lanes(k)
		dst = append(dst, r)
	}
	return dst
}

// mat materialises word k's pending reads into its read set.
func (cs *ctaState) mat(k uint64) {
	sh := &cs.words[k]
	if sh.pm == 0 {
		return
	}
	sh.rs = cs.pendingRecs(k, sh.rs)
	sh.pm = 0
	cs.cnt.mats++
}

// pendOrdered reports whether every pending read of word sh happens before
// the current access of cluster warp w for every lane (as ordered would
// for each record); false may be conservative (the caller then
// materialises and asks ordered).
func (cs *ctaState) pendOrdered(sh *shadow, w int, ws *warpState) bool {
	pm := sh.pm
	if pm>>w&1 != 0 {
		// The warp's own read: ordered when all its lanes run now.
		if ws.mask&ws.init != ws.init {
			return false
		}
		pm &^= 1 << w
	}
	if pm == 0 {
		return true
	}
	gen := cs.cl.gen
	if sh.rgen == gen {
		return false // the phase is not over: no other warp's read is ordered
	}
	s := cs.slotOf(sh.rgen)
	if s.ordGen[w] != gen+1 {
		var ord uint64
		for x, ep := range s.maxEp {
			if len(s.byWarp[x]) > 0 && ws.vc[x] >= ep {
				ord |= 1 << x
			}
		}
		s.ord[w], s.ordGen[w] = ord, gen+1
	}
	return pm&^s.ord[w] == 0
}
