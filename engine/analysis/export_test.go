package analysis

import (
	"fmt"
	"slices"
)

// ByteExact turns off c's fast paths (word-level shadow, same-bytes replay,
// read-set and convergence shortcuts, reuse of retired CTAs' state): it
// then tracks every byte of every lane access on its own, the reference
// the fast paths must agree with.
func ByteExact(c *Checker) { c.byteExact = true }

// byteState is a shared byte's shadow state, wherever it is kept.
type byteState struct {
	w, r    rec
	rs      []rec
	written bool
	pend    pend
}

func (cs *ctaState) byteState(o int) byteState {
	if o >= 4*len(cs.words) {
		return byteState{}
	}
	if k := o >> 2; cs.uni[k>>6]>>(k&63)&1 != 0 {
		o &^= 3
	}
	x := cs.at(uint64(o))
	s := byteState{w: x.w, r: x.r, written: cs.written[o>>6]>>(o&63)&1 != 0}
	if len(x.rs) > 0 {
		s.rs = x.rs
	}
	if cs.pend != nil {
		s.pend = cs.pend[o]
	}
	return s
}

// ShadowDiff describes the first difference between the first n bytes of
// the shared-memory shadows of two checkers of the same launch (in every
// CTA, with the lanes of every record), or returns "".
func ShadowDiff(a, b *Checker, n int) string {
	if len(a.ctas) != len(b.ctas) {
		return fmt.Sprintf("%d CTAs tracked, %d", len(a.ctas), len(b.ctas))
	}
	for lin, ca := range a.ctas {
		cb := b.ctas[lin]
		if cb == nil {
			return fmt.Sprintf("CTA %d tracked by one only", lin)
		}
		for o := range n {
			x, y := ca.byteState(o), cb.byteState(o)
			if x.w != y.w || x.r != y.r || x.written != y.written || x.pend != y.pend || !slices.Equal(x.rs, y.rs) {
				return fmt.Sprintf("CTA %d byte %d: %+v, %+v", lin, o, x, y)
			}
		}
	}
	return ""
}

// LanePath turns off c's warp-access path (sharedWarp): every shared
// access is checked lane by lane, the reference the warp-access path must
// agree with.
func LanePath(c *Checker) { c.lanePath = true }

// WarpAccesses returns how many shared accesses c checked a word at a
// time (sharedWarp), how many of them groupRegular grouped and how many
// were of 8 or 16 bytes.
func WarpAccesses(c *Checker) (word, regular, wide int64) {
	return c.warpAccesses, c.regularAccesses, c.wideAccesses
}
