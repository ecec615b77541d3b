package emu

// WarpPattern classifies a whole warp's aligned 4-byte offsets
// off + base[l]&am (a fast ld/st path's addressing): the regular patterns
// that the shared-memory phase filter and the bank model decide without
// looking at each lane.
type WarpPattern uint8

const (
	// PatternNone: neither of the others, or an offset not aligned.
	PatternNone WarpPattern = iota
	// PatternBroadcastHalves: lanes 0-15 one offset (o0), lanes 16-31 one
	// offset (o16): a broadcast, or a tile's row read by two rows of
	// threads.
	PatternBroadcastHalves
	// PatternRunHalves: lane l (and l+16) at o0 + 4l (o16 + 4l), with o16
	// equal to o0 (a tile's column read twice) or o0 + 64 (a row of 32
	// words).
	PatternRunHalves
)

// ClassifyWarp returns the pattern of a full warp's offsets
// off + base[l]&am, and the offsets of lanes 0 and 16.
func ClassifyWarp(base *[32]uint64, am, off uint64) (p WarpPattern, o0, o16 uint64) {
	if ixVec {
		return classifyWarpVec(base, am, off)
	}
	return classifyWarpGo(base, am, off)
}

// classifyWarpGo is ClassifyWarp in Go (TestClassifyWarp compares it with
// the vector routine).
func classifyWarpGo(base *[32]uint64, am, off uint64) (p WarpPattern, o0, o16 uint64) {
	x0, x16 := base[0]&am, base[16]&am
	o0, o16 = off+x0, off+x16
	if (o0|o16)&3 != 0 {
		return PatternNone, o0, o16
	}
	// Lane l's offset equals another's exactly when their base&am do, and
	// exceeds it by d when base&am does (the sums are taken modulo 2^64
	// alike), so each pattern is one pass of differences (patternDiffGo).
	switch base[1] & am {
	case x0:
		if patternDiffGo(base, am, x0, x16, &rampBroadcast) == 0 {
			return PatternBroadcastHalves, o0, o16
		}
	case x0 + 4:
		if (o16 == o0 || o16 == o0+64) && patternDiffGo(base, am, x0, x16, &rampWords) == 0 {
			return PatternRunHalves, o0, o16
		}
	}
	return PatternNone, o0, o16
}

// Offsets sets dst to the offsets of the lanes of a full warp whose
// offsets follow pattern p (not PatternNone) from o0 (lanes 0-15) and o16
// (lanes 16-31).
func (p WarpPattern) Offsets(o0, o16 uint64, dst *[32]uint64) {
	ramp := &rampWords
	if p == PatternBroadcastHalves {
		ramp = &rampBroadcast
	}
	for l := range 16 {
		dst[l], dst[l+16] = o0+ramp[l], o16+ramp[l]
	}
}

// The half-warp patterns of ClassifyWarp: one word, or consecutive words.
var rampBroadcast, rampWords = [16]uint64{}, [16]uint64{0, 4, 8, 12, 16, 20, 24, 28, 32, 36, 40, 44, 48, 52, 56, 60}

// patternDiffGo is the OR over the lanes of (base[l] & am) ^ (x + ramp[l%16]),
// x being x0 for lanes 0-15 and x16 for the others: zero exactly when each
// half-warp's offsets follow the ramp from its first.
func patternDiffGo(base *[32]uint64, am, x0, x16 uint64, ramp *[16]uint64) uint64 {
	var d uint64
	for l := 0; l < 16; l++ {
		d |= (base[l]&am ^ (x0 + ramp[l])) | (base[l+16]&am ^ (x16 + ramp[l]))
	}
	return d
}
