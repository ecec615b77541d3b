//go:build !amd64 || purego

package emu

import "unsafe"

// No vector routines on this platform: the names below are the Go loops
// of sharedpattern.go, so that the tests run everywhere.

func loadSharedVec(d, base *[32]uint64, am, off uint64, sh *byte, n uint64) (WarpPattern, uint64, uint64) {
	return loadSharedGo(d, base, am, off, unsafe.Slice(sh, n))
}

func storeRowVec(dst *byte, src *[32]uint64) { storeRowGo(unsafe.Slice(dst, 128), src) }

func allManyVec(acc *uint32) bool { return allManyGo(unsafe.Slice(acc, 16)) }

func ownReadsVec(acc *uint32, wr *uint8, me0 uint32) bool {
	return ownReadsGo(unsafe.Slice(acc, 32), unsafe.Slice(wr, 32), me0)
}

func ownWritesVec(acc *uint32, wr *uint8, me0 uint32) bool {
	return ownWritesGo(unsafe.Slice(acc, 32), unsafe.Slice(wr, 32), me0)
}
