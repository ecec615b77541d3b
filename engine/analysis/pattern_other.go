//go:build !amd64 || purego

package analysis

// patternDiff: patternDiffGo (no vector version on this platform).
func patternDiff(base *[32]uint64, am, x0, x16 uint64, ramp *[16]uint64) uint64 {
	return patternDiffGo(base, am, x0, x16, ramp)
}
