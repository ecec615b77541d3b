//go:build !amd64 || purego

package emu

// mmaFMA: no vector path on this platform; mmaFloatN8 runs the portable
// loop.
var mmaFMA = false

func fmaRows8(a, b, c *float64, rows, k, ldb, ldc int) {
	panic("emu: fmaRows8 without the vector path")
}
