//go:build amd64 && !purego

package emu

// The whole-warp shared-memory routines in AVX2 (sharedpattern_amd64.s),
// used when the processor has AVX2 (ixVec): each does what its Go loop in
// sharedpattern.go does (TestSharedPatternVec compares them).

// loadSharedVec is loadShared4 (sharedpattern.go) for the n bytes at sh
// (warppattern_amd64.s).
//
//go:noescape
func loadSharedVec(d, base *[32]uint64, am, off uint64, sh *byte, n uint64) (p WarpPattern, o0, o16 uint64)

//go:noescape
func storeRowVec(dst *byte, src *[32]uint64)

//go:noescape
func allManyVec(acc *uint32) bool

//go:noescape
func ownReadsVec(acc *uint32, wr *uint8, me0 uint32) bool

//go:noescape
func ownWritesVec(acc *uint32, wr *uint8, me0 uint32) bool
