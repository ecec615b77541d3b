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

// SlowBarriers turns off c's deferred barrier joins (barrier.go): every
// CTA barrier joins clocks per warp at each arrival and release, the
// reference the fast barriers must agree with.
func SlowBarriers(c *Checker) { c.slowBarriers = true }

// barClock returns barrier b's pending clock as the general rule keeps
// it: a lazy barrier's deferred joins made on a copy.
func (cs *ctaState) barClock(b *barState) []uint32 {
	if !b.lazy {
		return b.vc
	}
	x := *b
	x.vc = slices.Clone(b.vc)
	cs.flushBar(&x)
	return x.vc
}

// nonzero reports whether vc has a non-zero component (a nil clock and
// one of zeros are the same).
func nonzero(vc []uint32) bool { return slices.ContainsFunc(vc, func(v uint32) bool { return v != 0 }) }

// ClockDiff describes the first difference between the happens-before
// state of two checkers of the same launch (every warp's clock, every
// CTA barrier's pending clock and whether it has arrivals, each
// cluster's generation), or returns "".
func ClockDiff(a, b *Checker) string {
	if len(a.clusters) != len(b.clusters) {
		return fmt.Sprintf("%d clusters tracked, %d", len(a.clusters), len(b.clusters))
	}
	for k, x := range a.clusters {
		y := b.clusters[k]
		if y == nil {
			return fmt.Sprintf("cluster %d tracked by one only", k)
		}
		if x.gen != y.gen {
			return fmt.Sprintf("cluster %d: generation %d, %d", k, x.gen, y.gen)
		}
		for w := range x.warps {
			if !slices.Equal(x.warps[w].vc, y.warps[w].vc) {
				return fmt.Sprintf("cluster %d warp %d: clock %v, %v", k, w, x.warps[w].vc, y.warps[w].vc)
			}
		}
	}
	for lin, ca := range a.ctas {
		cb := b.ctas[lin]
		if cb == nil {
			return fmt.Sprintf("CTA %d tracked by one only", lin)
		}
		for i := range ca.bars {
			p, q := &ca.bars[i], &cb.bars[i]
			if p.used != q.used {
				return fmt.Sprintf("CTA %d barrier %d: used %v, %v", lin, i, p.used, q.used)
			}
			pc, qc := ca.barClock(p), cb.barClock(q)
			if (nonzero(pc) || nonzero(qc)) && !slices.Equal(pc, qc) {
				return fmt.Sprintf("CTA %d barrier %d: pending clock %v, %v", lin, i, pc, qc)
			}
		}
	}
	return ""
}

// FastBarriers returns how many CTA barrier releases c made by copying
// the synchronised clock (barrier.go) and how many along the general rule.
func FastBarriers(c *Checker) (fast, general int64) { return c.fastRel, c.slowRel }
