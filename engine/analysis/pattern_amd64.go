//go:build amd64 && !purego

package analysis

import "golang.org/x/sys/cpu"

// patternDiffVec is patternDiffGo in AVX2.
//
//go:noescape
func patternDiffVec(base *[32]uint64, am, x0, x16 uint64, ramp *[16]uint64) uint64

var patternVec = cpu.X86.HasAVX2

// patternDiff is the OR over the lanes of (base[l] & am) ^ (x + ramp[l%16]),
// x being x0 for lanes 0-15 and x16 for the others: zero exactly when each
// half-warp's offsets follow the ramp from its first.
func patternDiff(base *[32]uint64, am, x0, x16 uint64, ramp *[16]uint64) uint64 {
	if patternVec {
		return patternDiffVec(base, am, x0, x16, ramp)
	}
	return patternDiffGo(base, am, x0, x16, ramp)
}
