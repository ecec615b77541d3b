//go:build !amd64 || purego

package emu

import "unsafe"

// mmaFMA: no vector path on this platform; mmaFloatN8 runs the portable
// loop.
var mmaFMA = false

func fmaRows8(a, b, c *float64, rows, k, ldb, ldc int) {
	panic("emu: fmaRows8 without the vector path")
}

func cvtH2D(src unsafe.Pointer, dst *float64, n int) { panic("emu: cvtH2D without the vector path") }
func cvtS2D(src *uint32, dst *float64, n int, mask uint32) {
	panic("emu: cvtS2D without the vector path")
}
func cvtD2S(src *float64, dst *uint32, n int) { panic("emu: cvtD2S without the vector path") }

func placeWordsVec(dst *uint32, vals *uint64, pos *uint16)  { panic("emu: no vector path") }
func placeHalvesVec(dst *uint16, vals *uint64, pos *uint16) { panic("emu: no vector path") }
func takeWordsVec(out *uint64, src *uint32, pos *uint16)    { panic("emu: no vector path") }
