//go:build amd64 && !purego

package emu

// fmaF32Warp is the fast path of fma.rn.f32 for a whole warp, four lanes
// at a time (AVX2): for each lane l, s = a·b + c of the f32 values in the
// low halves of a[l], b[l], c[l], the product exact in f64 and the sum
// rounded once; where s's exponent is in f32's normal range and s is not
// a tie for f32 (the cases where rounding s to f32 is the exact fma's
// rounding, as in fxFmaRN32), d[l] is s rounded to f32 (to nearest even),
// zero-extended; the other lanes are left unwritten and their bits set in
// slow. d may be a, b or c (each lane reads only its own).
//
//go:noescape
func fmaF32Warp(d, a, b, c *[32]uint64) (slow uint32)

// cpuHasAVX2 reports whether the processor has AVX2 (with
// cpuHasAVXFMA: the operating system saves the YMM state).
func cpuHasAVX2() bool

// fmaVec: fmaF32Warp runs on this processor.
var fmaVec = cpuHasAVXFMA() && cpuHasAVX2()
