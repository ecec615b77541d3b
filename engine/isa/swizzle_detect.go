package isa

// Detecting a swizzle in a warp's shared-memory addresses.
//
// A kernel that swizzles its shared-memory tile computes, for lane l, a
// logical offset that is regular in l (a row: base + 4l; a column:
// base + 128l; a 16-byte vector per lane: base + 16l) and stores or loads
// at the swizzled offset. DetectSwizzle looks for that: the raw offsets are
// not affine in the lane, but un-swizzling them with one of the explorer's
// patterns (Apply is an involution) gives offsets that are. Plain row and
// column accesses and broadcasts are affine already and are never
// reported; irregular accesses (gathers, histograms) that no pattern makes
// affine are not either.
//
// One case is both: the column of a swizzled tile whose XOR key equals the
// row (column 0 of Swizzle<5,2,5>: lane l at word 33l) is affine with a
// stride that is no power of two, exactly as the column of a tile padded
// to 33-word rows. The addresses cannot tell the two apart, so the fit is
// reported with Affine set and the raw stride: the swizzle's rows are a
// power of two bytes, the padded rows are not. (Strides such as 2^k + 2^M
// and 2^k - 2^M have such a twin: a column of Swizzle<B,M,S> with
// 2^(M+S) = 2^k, whose XOR key runs with the row.)
//
// Several patterns can explain one access: a tile row whose XOR key is 1
// is explained by every Swizzle<B,2,5> with B >= 1. The detector reports
// the plainest (swizzleCand.better): the one that reads the fewest of the
// address bits in use, whose rows fit the lanes' stride, with 128-byte
// rows, a TMA mode before the equal Swizzle<B,M,S>. Only increasing
// logical offsets count (lane l+1 after lane l): XORing the low bits of a
// row also reverses it, which would explain too much.

// SwizzleFit is a swizzle that explains a warp's shared-memory access:
// un-swizzled, lane l's offset is Base + Stride*l.
type SwizzleFit struct {
	Swizzle Swizzle
	Base    int64
	Stride  int64
	// Affine: the raw offsets are affine too, lane l at RawBase +
	// RawStride*l, as a column of a tile padded to RawStride-byte rows.
	Affine    bool
	RawBase   int64
	RawStride int64
}

// Logical is the un-swizzled offset of a physical one.
func (f SwizzleFit) Logical(off uint64) uint64 { return f.Swizzle.Apply(off) }

// SwizzleDetectMinLanes is the fewest lanes an access needs for a swizzle
// to be reported: with fewer, a pattern could straighten the offsets by
// chance.
const SwizzleDetectMinLanes = 8

// swizzleCand is a pattern DetectSwizzle tries: src masks the address
// bits it reads (XORs into lower bits), rowBytes is the row they index.
type swizzleCand struct {
	s        Swizzle
	src      uint64
	rowBytes int64
	tma      bool
}

var swizzleCandidates = func() []swizzleCand {
	out := []swizzleCand{
		{Swizzle{Mode: SwizzleTMA32B}, 0x80, 128, true},
		{Swizzle{Mode: SwizzleTMA64B}, 0x180, 128, true},
		{Swizzle{Mode: SwizzleTMA128B}, 0x380, 128, true},
		{Swizzle{Mode: SwizzleTMA128B, Atom: Atom32B}, 0x180, 128, true},
		{Swizzle{Mode: SwizzleTMA128B, Atom: Atom32BFlip8B}, 0x180, 128, true},
		{Swizzle{Mode: SwizzleTMA128B, Atom: Atom64B}, 0x80, 128, true},
	}
	for b := 1; b <= SwizzleMaxB; b++ {
		for m := SwizzleMaxM; m >= 0; m-- {
			for s := b; s <= SwizzleMaxS; s++ {
				out = append(out, swizzleCand{XORSwizzle(b, m, s), (1<<uint(b) - 1) << uint(m+s), 1 << uint(m+s), false})
			}
		}
	}
	return out
}()

// better reports whether candidate a explains the offsets (whose OR is
// bits, lane stride stride) more plainly than b: it XORs fewer of the
// address bits that are set; its rows are the stride (a column of a tile)
// or the stride steps whole rows or stays within one; its rows are 128
// bytes (the banks' width, as every TMA mode); it is a TMA mode; it
// names fewer bits.
func (a *swizzleCand) better(b *swizzleCand, bits uint64, stride int64) bool {
	ea, eb := bitCount(a.src&bits), bitCount(b.src&bits)
	if ea != eb {
		return ea < eb
	}
	fit := func(c *swizzleCand) int {
		switch {
		case c.rowBytes == stride:
			return 0
		case stride%c.rowBytes == 0 || stride < c.rowBytes:
			return 1
		}
		return 2
	}
	if fa, fb := fit(a), fit(b); fa != fb {
		return fa < fb
	}
	if ra, rb := a.rowBytes == 128, b.rowBytes == 128; ra != rb {
		return ra
	}
	if a.tma != b.tma {
		return a.tma
	}
	return bitCount(a.src) < bitCount(b.src)
}

func bitCount(x uint64) int {
	n := 0
	for ; x != 0; x &= x - 1 {
		n++
	}
	return n
}

// affine reports whether offs[i] = base + stride*lanes[i] for all i, and
// the base and stride. lanes are distinct and ascending.
func affine(lanes []int, offs []uint64) (base, stride int64, ok bool) {
	if len(lanes) < 2 {
		return 0, 0, false
	}
	d := int64(offs[1]) - int64(offs[0])
	dl := int64(lanes[1] - lanes[0])
	if d%dl != 0 {
		return 0, 0, false
	}
	stride = d / dl
	base = int64(offs[0]) - stride*int64(lanes[0])
	for i := range lanes {
		if int64(offs[i]) != base+stride*int64(lanes[i]) {
			return 0, 0, false
		}
	}
	return base, stride, true
}

// DetectSwizzle finds the swizzle that explains a warp's shared-memory
// offsets: lanes (distinct, ascending, 0-31) accessed offs (same length).
// It reports false when there are fewer than SwizzleDetectMinLanes lanes,
// when no pattern makes the offsets affine with a positive stride, and when
// the raw offsets are affine already, unless their stride is no power of
// two and a pattern reads them as a column of its rows (the padded/swizzled
// coincidence above: the fit comes with Affine set).
func DetectSwizzle(lanes []int, offs []uint64) (SwizzleFit, bool) {
	if len(lanes) != len(offs) || len(lanes) < SwizzleDetectMinLanes {
		return SwizzleFit{}, false
	}
	for i := 1; i < len(lanes); i++ {
		if lanes[i] <= lanes[i-1] {
			return SwizzleFit{}, false
		}
	}
	rawBase, rawStride, rawAffine := affine(lanes, offs)
	if rawAffine && (rawStride <= 0 || isPow2(rawStride)) {
		return SwizzleFit{}, false
	}
	var bits uint64
	for _, o := range offs {
		bits |= o
	}
	logical := make([]uint64, len(offs))
	var best *swizzleCand
	var fit SwizzleFit
	for i := range swizzleCandidates {
		c := &swizzleCandidates[i]
		if c.src&bits == 0 {
			continue // it would change nothing
		}
		for i, o := range offs {
			logical[i] = c.s.Apply(o)
		}
		base, stride, ok := affine(lanes, logical)
		if !ok || stride <= 0 || rawAffine && stride != c.rowBytes {
			continue
		}
		if best == nil || c.better(best, bits, stride) {
			best, fit = c, SwizzleFit{Swizzle: c.s, Base: base, Stride: stride}
		}
	}
	if best != nil {
		if rawAffine {
			fit.Affine, fit.RawBase, fit.RawStride = true, rawBase, rawStride
		}
		return fit, true
	}
	return SwizzleFit{}, false
}

func isPow2(x int64) bool { return x > 0 && x&(x-1) == 0 }
