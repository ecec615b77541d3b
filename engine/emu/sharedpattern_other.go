//go:build !amd64 || purego

package emu

import "unsafe"

// No vector routines on this platform: the names below are the Go loops
// of sharedpattern.go, so that the tests run everywhere.

func loadRunsVec(d *[32]uint64, lo, hi *byte) {
	loadRunsGo(d, unsafe.Slice(lo, 64), unsafe.Slice(hi, 64))
}

func fillHalvesVec(d *[32]uint64, v0, v16 uint64) { fillHalvesGo(d, v0, v16) }

func storeRowVec(dst *byte, src *[32]uint64) { storeRowGo(unsafe.Slice(dst, 128), src) }

func allManyVec(acc *uint32) bool { return allManyGo(unsafe.Slice(acc, 16)) }

func ownReadsVec(acc *uint32, wr *uint8, me0 uint32) bool {
	return ownReadsGo(unsafe.Slice(acc, 32), unsafe.Slice(wr, 32), me0)
}

func ownWritesVec(acc *uint32, wr *uint8, me0 uint32) bool {
	return ownWritesGo(unsafe.Slice(acc, 32), unsafe.Slice(wr, 32), me0)
}
