package analysis

import (
	"math/bits"

	"github.com/ptxplayground/ptxplay/engine/emu"
)

// The warp-access path of the shared-memory check.
//
// Most shared accesses are 4-byte loads and stores, each lane a whole,
// aligned word, of words whose state decides every lane's outcome alike
// and reports nothing: the word was written (for a load), no copy is in
// flight to it, and its last write and (for a store) its reads happen
// before the access without asking which lane makes it (another warp's
// record the clock orders, or the warp's own from this instruction or
// from lanes that all run it). sharedWarp checks such an access a word at
// a time: the lanes that access one word are one lane vector, and the word
// gets, in one update, the state the lane-by-lane path (shared) leaves
// after all of them. It decides first, without changing anything, whether
// every word of the access is such a word; if one is not (it would
// report, or its outcome depends on the lane, or it is split into bytes),
// the whole access goes lane by lane. The words of one access are
// distinct shadow units, so the order in which they are updated does not
// matter. TestCheckerWarpPathRandom compares the two paths' shadows after
// every access.

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

// sharedWarp checks and records the 4-byte load or store a of cluster warp
// w at pc, a word at a time, and reports true; it reports false, having
// changed no shadow state, when the access must go lane by lane (see
// above); the shadow grows to cover the access.
func (cs *ctaState) sharedWarp(w, pc int, a *emu.Access) bool {
	ws := &cs.warps[w]
	grp, tab, acc := &cs.wgrp, &cs.wtab, cs.acc
	// Group the lanes by word: a run of lanes on one word is gathered in
	// lanes before it joins its group.
	n, cur := 0, 0
	curK := ^uint64(0)
	var lanes uint32
	for m := a.Lanes; m != 0; m &= m - 1 {
		l := bits.TrailingZeros32(m)
		off := a.Addr[l&31]
		if off&3 != 0 || off > MaxSharedShadow-4 {
			return false
		}
		k := off >> 2
		if k == curK {
			lanes |= 1 << l
			continue
		}
		if lanes != 0 {
			grp[cur].lanes |= lanes
		}
		if k >= uint64(len(cs.words)) {
			cs.grow(int(off + 4))
		}
		s := &tab[k&63]
		switch {
		case s.acc != acc:
			if cs.uni[k>>6]>>(k&63)&1 == 0 {
				return false // split into bytes
			}
			s.acc, s.k, s.g = acc, k, uint8(n)
			grp[n&31] = wordGroup{k: k}
			cur = n & 31
			n++
		case s.k == k:
			cur = int(s.g & 31)
		default:
			return false // two words of the access share a slot
		}
		curK, lanes = k, 1<<l
	}
	if lanes != 0 {
		grp[cur].lanes |= lanes
	}
	load := a.Kind == emu.AccessLoad
	gen := cs.cl.gen
	// Decide every word before changing any.
	for i := range n {
		g := &cs.wgrp[i]
		o := g.k << 2
		if cs.pend != nil && cs.pend[o].pc1 != 0 {
			return false
		}
		sh := &cs.words[g.k]
		if sh.w.step != 0 && !cs.ordered(&sh.w, w, ws) {
			return false
		}
		if !load {
			if sh.r.step != 0 {
				if !cs.ordered(&sh.r, w, ws) {
					return false
				}
				for j := range sh.rs {
					if !cs.ordered(&sh.rs[j], w, ws) {
						return false
					}
				}
			}
			continue
		}
		if cs.written[o>>6]>>(o&63)&1 == 0 {
			return false
		}
		r := &sh.r
		switch {
		case r.step != 0 && int(r.warp) == w && r.step == ws.step:
			// Another access of this instruction read the word (the
			// lane-by-lane path joins its record).
			return false
		case r.step != 0 && sh.rgen == gen && sh.rwarps>>(w&63)&1 == 0:
			g.act = readAdd
		case r.step == 0 || cs.ordered(r, w, ws):
			for j := range sh.rs {
				if !cs.laneFree(&sh.rs[j], w, ws) {
					return false
				}
			}
			g.act = readReplace
		default:
			return false
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
	return true
}
