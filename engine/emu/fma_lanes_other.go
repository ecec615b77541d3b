//go:build !amd64 || purego

package emu

// fmaVec: no vector fma.rn.f32 on this platform.
var fmaVec = false

// fmaF32Warp is fma_lanes_amd64.s's routine: here the Go loop.
func fmaF32Warp(d, a, b, c *[32]uint64) (slow uint32) { return fmaF32WarpGo(d, a, b, c) }
