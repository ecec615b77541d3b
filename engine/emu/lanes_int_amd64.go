//go:build amd64 && !purego

package emu

// The whole-warp integer routines in AVX2 (lanes_int_amd64.s), used by the
// executors when every lane executes and the processor has AVX2 (ixVec):
// each computes, for all 32 lanes, what its Go loop in lanes_int.go does
// (TestIntLanesVec compares them).

//go:noescape
func vecAndM(d, a, b *[32]uint64, m uint64)

//go:noescape
func vecOrM(d, a, b *[32]uint64, m uint64)

//go:noescape
func vecXorM(d, a, b *[32]uint64, m uint64)

//go:noescape
func vecAddM(d, a, b *[32]uint64, m uint64)

//go:noescape
func vecSubM(d, a, b *[32]uint64, m uint64)

// vecMadLoM requires m < 2^32.
//
//go:noescape
func vecMadLoM(d, a, b, c *[32]uint64, m uint64)

//go:noescape
func vecAddImm32(d, a *[32]uint64, k uint64)

// vecShlImm32 and vecShrImm32 require s < 32.
//
//go:noescape
func vecShlImm32(d, a *[32]uint64, s uint64)

//go:noescape
func vecShrImm32(d, a *[32]uint64, s uint64)

// The compares of up to 32 bits: bit l of the result is set where the
// relation holds of x = (a[l] & w) ^ bias (bias 0, or the sign bit of
// the width for signed compares) and y (b[l] read the same way, or an
// immediate already read so). The other orders are these with the
// operands swapped or the result complemented (gen_cmp.go).

// vecCmpLT: x < (b[l] & w) ^ bias.
//
//go:noescape
func vecCmpLT(a, b *[32]uint64, w, bias uint64) uint32

// vecCmpLTK: x < y (y at most 2^32).
//
//go:noescape
func vecCmpLTK(a *[32]uint64, y, w, bias uint64) uint32

// vecCmpEq: a[l] & w == b[l] & w.
//
//go:noescape
func vecCmpEq(a, b *[32]uint64, w uint64) uint32

// vecCmpEqK: a[l] & w == y.
//
//go:noescape
func vecCmpEqK(a *[32]uint64, y, w uint64) uint32

// classifyWarpVec is ClassifyWarp for AVX2 (warppattern_amd64.s).
//
//go:noescape
func classifyWarpVec(base *[32]uint64, am, off uint64) (p WarpPattern, o0, o16 uint64)

// ixVec: the routines above run on this processor.
var ixVec = fmaVec
