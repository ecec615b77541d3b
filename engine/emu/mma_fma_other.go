//go:build !amd64 || purego

package emu

import (
	"math"
	"unsafe"

	"github.com/ptxplayground/ptxplay/engine/fpx"
)

// mmaFMA: no vector instructions on this platform, so mmaFloatN8 runs the
// portable loop by default. The routines of the vector path are written
// here in Go with the contracts of mma_fma_amd64.s, so that the plans'
// placements and conversions run, and are tested (mma_fast_test.go), on
// every platform.
var mmaFMA = false

// mmaVecPortable: the vector path's routines below run on any processor,
// so tests may turn mmaFMA on here.
const mmaVecPortable = true

// fmaRows8: c[r][j] += a[r][kk]·b[kk][j] in ascending kk, one fused
// multiply-add each (every product of these inputs is exact in f64).
func fmaRows8(a, b, c *float64, rows, k, ldb, ldc int) {
	as := unsafe.Slice(a, rows*k)
	bs := unsafe.Slice(b, (k-1)*ldb+8)
	cs := unsafe.Slice(c, (rows-1)*ldc+8)
	for r := 0; r < rows; r++ {
		ar, cr := as[r*k:r*k+k], cs[r*ldc:r*ldc+8]
		for j := range cr {
			v := cr[j]
			for kk, x := range ar {
				v = math.FMA(x, bs[kk*ldb+j], v)
			}
			cr[j] = v
		}
	}
}

// cvtH2D: dst[i] = the f16 src[i], exactly.
func cvtH2D(src unsafe.Pointer, dst *float64, n int) {
	s, d := unsafe.Slice((*uint16)(src), n), unsafe.Slice(dst, n)
	for i, h := range s {
		d[i] = f16ToF64(h)
	}
}

// cvtS2D: dst[i] = the f32 src[i] & mask, exactly.
func cvtS2D(src *uint32, dst *float64, n int, mask uint32) {
	s, d := unsafe.Slice(src, n), unsafe.Slice(dst, n)
	for i, x := range s {
		d[i] = float64(math.Float32frombits(x & mask))
	}
}

// cvtD2S: dst[i] = src[i] rounded to f32 (to nearest even), a NaN as the
// canonical NaN.
func cvtD2S(src *float64, dst *uint32, n int) {
	s, d := unsafe.Slice(src, n), unsafe.Slice(dst, n)
	for i, x := range s {
		if x != x {
			d[i] = fpx.NaN32
			continue
		}
		d[i] = math.Float32bits(float32(x))
	}
}

// placeWordsVec: dst[pos[l]] = uint32(vals[l]) for the 32 lanes.
func placeWordsVec(dst *uint32, vals *uint64, pos *uint16) {
	d := unsafe.Slice(dst, tensorFloatElems)
	v, p := unsafe.Slice(vals, 32), unsafe.Slice(pos, 32)
	for l, x := range v {
		d[p[l]] = uint32(x)
	}
}

// placeHalvesVec: dst[pos[2l]] = the low half of vals[l], dst[pos[2l+1]]
// its high half.
func placeHalvesVec(dst *uint16, vals *uint64, pos *uint16) {
	d := unsafe.Slice(dst, 2*tensorFloatElems)
	v, p := unsafe.Slice(vals, 32), unsafe.Slice(pos, 64)
	for l, x := range v {
		d[p[2*l]] = uint16(x)
		d[p[2*l+1]] = uint16(x >> 16)
	}
}

// takeWordsVec: out[l] = src[pos[l]] for the 32 lanes.
func takeWordsVec(out *uint64, src *uint32, pos *uint16) {
	o, p := unsafe.Slice(out, 32), unsafe.Slice(pos, 32)
	s := unsafe.Slice(src, tensorFloatElems)
	for l := range o {
		o[l] = uint64(s[p[l]])
	}
}
