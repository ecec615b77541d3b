package analysis

import (
	"math/bits"

	"github.com/ptxplayground/ptxplay/engine/emu"
)

// The warp-access path of the shared-memory check.
//
// Most shared accesses are loads and stores of 4, 8 or 16 bytes a lane,
// each lane one, two or four whole, aligned words, of words whose state
// decides every lane's outcome alike and reports nothing: the word was
// written (for a load), no copy is in flight to it, and its last write and
// (for a store) its reads happen before the access without asking which
// lane makes it (another warp's record the clock orders, or the warp's own
// from this instruction or from lanes that all run it). sharedWarp checks
// such an access a word at a time: the lanes that access one word are one
// lane vector, and the word gets, in one update, the state the
// lane-by-lane path (shared) leaves after all of them. It decides first,
// without changing anything, whether every word of the access is such a
// word; if one is not (it would report, or its outcome depends on the
// lane, or it is split into bytes), the whole access goes lane by lane.
// The words of one access are distinct shadow units, so the order in which
// they are updated does not matter. The lanes are grouped by word
// (groupWords), or, for a full warp's 4-byte access whose half-warps are
// each on one word or on consecutive words (a broadcast, a row or a column
// of a tile), by the pattern without a lookup per lane (groupRegular).
// TestCheckerWarpPathRandom compares the two paths' shadows after every
// access.

// wordSlot maps a word to its group in the current access (acc:
// ctaState.acc of the access that filled it).
type wordSlot struct {
	acc uint32
	g   uint8
	k   uint64
}

// wordGroup is a word of the current access and the lanes that access it;
// act is what a load does with the word's reads.
type wordGroup struct {
	k     uint64
	lanes uint32
	act   uint8
}

const (
	readAdd     = iota // add a record to the reads since the last release
	readReplace        // replace the reads ordered before it
)

// ordered reports whether record r happens before the current access of
// cluster warp w (state ws) for every lane of w, so that the lane-by-lane
// check (unordered) answers -1 without depending on the lane.
func (cs *ctaState) ordered(r *rec, w int, ws *warpState) bool {
	if int(r.warp) != w {
		return ws.vc[r.warp] >= r.epoch
	}
	return r.step == ws.step || r.lanes&^ws.mask == 0
}

// laneFree reports whether unordered's answer for record r does not depend
// on the lane of warp w (another warp's record, or an ordered one of w).
func (cs *ctaState) laneFree(r *rec, w int, ws *warpState) bool {
	return int(r.warp) != w || r.step == ws.step || r.lanes&^ws.mask == 0
}

// sharedWarp checks and records the 4-, 8- or 16-byte load or store a of cluster warp
// w at pc, a word at a time, and reports true; it reports false, having
// changed no shadow state, when the access must go lane by lane (see
// above); the shadow grows to cover the access. regular: the lanes were
// grouped by groupRegular.
func (cs *ctaState) sharedWarp(w, pc int, a *emu.Access) (ok, regular bool) {
	ws := &cs.warps[w]
	n, g := cs.groupRegular(a)
	switch g {
	case groupLanes:
		return false, false
	case groupIrregular:
		if n = cs.groupWords(a); n < 0 {
			return false, false
		}
	}
	regular = g == groupDone
	load := a.Kind == emu.AccessLoad
	gen := cs.cl.gen
	// Decide every word before changing any.
	for i := range n {
		g := &cs.wgrp[i]
		o := g.k << 2
		if cs.pend != nil && cs.pend[o].pc1 != 0 {
			return false, false
		}
		sh := &cs.words[g.k]
		if sh.w.step != 0 && !cs.ordered(&sh.w, w, ws) {
			return false, false
		}
		if !load {
			if sh.r.step != 0 {
				if !cs.ordered(&sh.r, w, ws) {
					return false, false
				}
				for j := range sh.rs {
					if !cs.ordered(&sh.rs[j], w, ws) {
						return false, false
					}
				}
			}
			continue
		}
		if cs.written[o>>6]>>(o&63)&1 == 0 {
			return false, false
		}
		r := &sh.r
		switch {
		case r.step != 0 && int(r.warp) == w && r.step == ws.step:
			// Another access of this instruction read the word (the
			// lane-by-lane path joins its record).
			return false, false
		case r.step != 0 && sh.rgen == gen && sh.rwarps>>(w&63)&1 == 0:
			g.act = readAdd
		case r.step == 0 || cs.ordered(r, w, ws):
			for j := range sh.rs {
				if !cs.laneFree(&sh.rs[j], w, ws) {
					return false, false
				}
			}
			g.act = readReplace
		default:
			return false, false
		}
	}
	me := rec{pc: int32(pc), epoch: ws.vc[w], step: ws.step, warp: uint16(w)}
	bit := uint64(1) << (w & 63)
	for i := range n {
		g := &cs.wgrp[i]
		sh := &cs.words[g.k]
		me.lanes = g.lanes
		if !load {
			if r := &sh.w; r.warp == me.warp && r.step == me.step && r.step != 0 {
				r.lanes |= g.lanes
			} else {
				*r = me
			}
			sh.r = rec{}
			sh.rs = sh.rs[:0]
			o := g.k << 2
			cs.written[o>>6] |= 1 << (o & 63)
			continue
		}
		switch g.act {
		case readAdd:
			sh.rs = append(sh.rs, me)
			sh.rwarps |= bit
		case readReplace:
			sh.r = me
			if len(sh.rs) == 0 {
				sh.rgen, sh.rwarps = gen, bit
				continue
			}
			sh.rwarps |= bit
			keep := sh.rs[:0]
			for _, x := range sh.rs {
				// Kept: the reads not ordered before this one (another
				// warp's; the warp's own are ordered: laneFree).
				if int(x.warp) != w && ws.vc[x.warp] < x.epoch {
					keep = append(keep, x)
				}
			}
			sh.rs = keep
		}
	}
	return true, regular
}

// groupWords groups the lanes of access a by word into cs.wgrp (a run of
// lanes on the same words is gathered before it joins their groups) and
// returns the number of words, or -1 when the access must go lane by lane
// (a lane's bytes not whole aligned words, a word split into bytes, two
// words of the access on one slot of cs.wtab). A lane of a 4-, 8- or
// 16-byte access covers one, two or four words. The shadow grows to cover
// the words it met.
func (cs *ctaState) groupWords(a *emu.Access) int {
	grp, tab, acc := &cs.wgrp, &cs.wtab, cs.acc
	size := uint64(a.Size)
	nw := int(size >> 2)
	n := 0
	var cur [4]int // the groups of the run's words
	curOff := ^uint64(0)
	var lanes uint32
	for m := a.Lanes; m != 0; m &= m - 1 {
		l := bits.TrailingZeros32(m)
		off := a.Addr[l&31]
		if off == curOff {
			lanes |= 1 << l
			continue
		}
		if off&(size-1) != 0 || off > MaxSharedShadow-size {
			return -1
		}
		if lanes != 0 {
			for j := range nw {
				grp[cur[j]].lanes |= lanes
			}
		}
		if k := off>>2 + uint64(nw); k > uint64(len(cs.words)) {
			cs.grow(int(k << 2))
		}
		for j := range nw {
			k := off>>2 + uint64(j)
			s := &tab[k%uint64(len(tab))]
			switch {
			case s.acc != acc:
				if cs.uni[k>>6]>>(k&63)&1 == 0 {
					return -1 // split into bytes
				}
				s.acc, s.k, s.g = acc, k, uint8(n)
				grp[n%len(grp)] = wordGroup{k: k}
				cur[j] = n % len(grp)
				n++
			case s.k == k:
				cur[j] = int(s.g) % len(grp)
			default:
				return -1 // two words of the access share a slot
			}
		}
		curOff, lanes = off, 1<<l
	}
	if lanes != 0 {
		for j := range nw {
			grp[cur[j]].lanes |= lanes
		}
	}
	return n
}

// What groupRegular found.
const (
	groupIrregular = iota // not a regular pattern: groupWords decides
	groupDone             // grouped into cs.wgrp
	groupLanes            // the access goes lane by lane (a word split into bytes)
)

// Half-warp patterns (groupRegular).
const (
	halfOther = iota
	halfOne   // every lane on one word
	halfRun   // lane i of the half on word k+i
)

// groupRegular groups a full warp's access into cs.wgrp without looking
// up each lane's word when each half-warp's lanes are all on one word or
// on consecutive words in lane order (a row or a column of a tile, a
// broadcast) and the two halves are on the same words or on words apart:
// it returns the words and groupDone, the same groups groupWords makes (in
// another order, which does not matter: the words are distinct shadow
// units). It returns groupLanes when a word is split into bytes (as
// groupWords would) and groupIrregular for anything else, which
// groupWords then groups.
func (cs *ctaState) groupRegular(a *emu.Access) (int, int) {
	if a.Lanes != ^uint32(0) || a.Size != 4 {
		return 0, groupIrregular
	}
	var kind [2]int
	var k0 [2]uint64
	for h := range 2 {
		ad := (*[16]uint64)(a.Addr[h*16 : h*16+16])
		b := ad[0]
		if b&3 != 0 || b > MaxSharedShadow-64 {
			return 0, groupIrregular
		}
		// Every lane's address the one before it plus the first step, a
		// step of 0 or 4.
		step := ad[1] - b
		var bad uint64
		for i := 2; i < 16; i++ {
			bad |= ad[i] - ad[i-1] ^ step
		}
		switch {
		case bad != 0:
			return 0, groupIrregular
		case step == 0:
			kind[h] = halfOne
		case step == 4:
			kind[h] = halfRun
		default:
			return 0, groupIrregular
		}
		k0[h] = b >> 2
	}
	var hi uint64 // the words the access covers: up to hi
	for h := range 2 {
		e := k0[h] + 1
		if kind[h] == halfRun {
			e += 15
		}
		hi = max(hi, e)
	}
	if hi > uint64(len(cs.words)) {
		cs.grow(int(hi * 4))
	}
	// A word split into bytes: lane by lane (as groupWords).
	for h := range 2 {
		if kind[h] == halfOne && !cs.uniform(k0[h], 1) || kind[h] == halfRun && !cs.uniform(k0[h], 16) {
			return 0, groupLanes
		}
	}
	grp := &cs.wgrp
	n := 0
	add := func(k uint64, lanes uint32) {
		grp[n&31] = wordGroup{k: k, lanes: lanes}
		n++
	}
	// inRun reports whether word k is one of the 16 from r.
	inRun := func(k, r uint64) bool { return k-r < 16 }
	switch {
	case kind[0] == halfOne && kind[1] == halfOne:
		if k0[0] == k0[1] {
			add(k0[0], ^uint32(0))
		} else {
			add(k0[0], 0xffff)
			add(k0[1], 0xffff0000)
		}
	case kind[0] == halfRun && kind[1] == halfRun:
		switch {
		case k0[0] == k0[1]:
			for i := range uint64(16) {
				add(k0[0]+i, 1<<i|1<<(16+i))
			}
		case inRun(k0[1], k0[0]) || inRun(k0[0], k0[1]):
			return 0, groupIrregular
		default:
			for h := range 2 {
				for i := range uint64(16) {
					add(k0[h]+i, 1<<(uint64(16*h)+i))
				}
			}
		}
	default:
		// One half on one word, the other on a run.
		o, r := 0, 1
		if kind[0] == halfRun {
			o, r = 1, 0
		}
		if inRun(k0[o], k0[r]) {
			return 0, groupIrregular
		}
		add(k0[o], 0xffff<<(16*o))
		for i := range uint64(16) {
			add(k0[r]+i, 1<<(uint64(16*r)+i))
		}
	}
	return n, groupDone
}

// uniform reports whether words k .. k+n-1 (n at most 64, inside the
// shadow) are all uniform (not split into bytes).
func (cs *ctaState) uniform(k, n uint64) bool {
	m := uint64(1)<<n - 1
	if n == 64 {
		m = ^uint64(0)
	}
	i, sh := k>>6, k&63
	if m1 := m & (^uint64(0) >> sh); cs.uni[i]>>sh&m1 != m1 {
		return false
	}
	if sh+n > 64 {
		// The rest in the next uint64.
		r := sh + n - 64
		return cs.uni[i+1]&(1<<r-1) == 1<<r-1
	}
	return true
}
