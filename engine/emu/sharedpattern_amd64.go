//go:build amd64 && !purego

package emu

// The whole-warp shared-memory routines in AVX2 (sharedpattern_amd64.s),
// used when the processor has AVX2 (ixVec): each does what its Go loop in
// sharedpattern.go does (TestSharedPatternVec compares them).

//go:noescape
func loadRunsVec(d *[32]uint64, lo, hi *byte)

//go:noescape
func fillHalvesVec(d *[32]uint64, v0, v16 uint64)

//go:noescape
func storeRowVec(dst *byte, src *[32]uint64)

//go:noescape
func allManyVec(acc *uint32) bool

//go:noescape
func ownReadsVec(acc *uint32, wr *uint8, me0 uint32) bool

//go:noescape
func ownWritesVec(acc *uint32, wr *uint8, me0 uint32) bool
