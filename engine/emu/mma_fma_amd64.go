//go:build amd64 && !purego

package emu

import "unsafe"

// The floating-point mma products on amd64 with AVX, FMA3 and F16C
// (mmaFMA): fmaRows8 runs
// mmaFloatN8's arithmetic four rows of D at a time, eight columns in two
// 256-bit vectors, one fused multiply-add per k in ascending order. Each
// product of the float forms' inputs (f16, bf16, tf32, e4m3, e5m2) is exact
// in f64, so the fused step rounds exactly as the product-then-add of the
// portable loop does: the results are bit-identical (mma_fma_test.go).

// fmaRows8 replaces rows x 8 elements of c (row stride ldc) by c + a·b:
// a is rows x k, row-major and contiguous; b is k rows of 8 (row stride
// ldb). Each element is its c plus the products in ascending k. rows is a
// positive multiple of 4 and k positive; the caller checks the bounds.
//
//go:noescape
func fmaRows8(a, b, c *float64, rows, k, ldb, ldc int)

// The conversions of the gathers and scatters (exact, or rounded to
// nearest even as Go's float32 conversion does; n a positive multiple of 8
// for cvtH2D, of 4 for the others).

// cvtH2D sets dst[i] to the f16 src[i] (src: n halfwords).
//
//go:noescape
func cvtH2D(src unsafe.Pointer, dst *float64, n int)

// cvtS2D sets dst[i] to the f32 src[i] & mask.
//
//go:noescape
func cvtS2D(src *uint32, dst *float64, n int, mask uint32)

// cvtD2S sets dst[i] to src[i] rounded to f32, a NaN as fpx.NaN32.
//
//go:noescape
func cvtD2S(src *float64, dst *uint32, n int)

// The placements by a fragment plan (placeWords, placeHalves, takeWords
// of exec_tensor.go, one register at a time; the plans' positions are
// below tensorFloatElems).
//
//go:noescape
func placeWordsVec(dst *uint32, vals *uint64, pos *uint16)

//go:noescape
func placeHalvesVec(dst *uint16, vals *uint64, pos *uint16)

//go:noescape
func takeWordsVec(out *uint64, src *uint32, pos *uint16)

// cpuHasAVXFMA reports whether the processor and the operating system
// support AVX (the YMM state), FMA3 and F16C.
func cpuHasAVXFMA() bool

var mmaFMA = cpuHasAVXFMA()

// mmaVecPortable: the routines above need AVX, FMA3 and F16C (mmaFMA).
const mmaVecPortable = false
