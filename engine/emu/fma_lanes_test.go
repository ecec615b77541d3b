package emu

import (
	"math"
	"math/rand"
	"testing"
)

// TestFmaF32Warp: the vector fma.rn.f32 of a whole warp writes the lanes
// the Go loop writes, with the same bits, and leaves the same lanes for
// the slow path untouched, on random operands and on the edges: zeros of
// both signs, subnormals, the smallest and largest normals, infinities,
// NaNs with payloads, results that overflow, underflow or land on a tie
// for f32, and operands whose high halves are not zero; with D one of the
// sources too.
func TestFmaF32Warp(t *testing.T) {
	if !fmaVec {
		t.Skip("no vector fma.rn.f32 on this processor")
	}
	rng := rand.New(rand.NewSource(5))
	edges := []uint32{0, 0x80000000, 1, 0x80000001, 0x007fffff, 0x00800000, 0x80800000, 0x7f7fffff, 0xff7fffff,
		0x7f800000, 0xff800000, 0x7fc00000, 0x7fa00001, 0xffc12345, 0x3f800000, 0xbf800000, 0x33800000, 0x4b800000,
		0x3f800001, 0x34000000, 0x5f800000, 0x1f800000, 0x0c000000}
	val := func() uint64 {
		var v uint32
		switch rng.Intn(4) {
		case 0:
			v = edges[rng.Intn(len(edges))]
		case 1:
			v = rng.Uint32()
		default:
			// Ordinary values, often of nearby exponents (sums that cancel).
			v = math.Float32bits(float32(rng.NormFloat64() * math.Pow(2, float64(rng.Intn(20)-10))))
		}
		return uint64(rng.Uint32())<<32 | uint64(v)
	}
	ties := 0
	for iter := 0; iter < 20000; iter++ {
		var a, b, c [32]uint64
		for l := range a {
			a[l], b[l], c[l] = val(), val(), val()
			if rng.Intn(8) == 0 {
				// a·b + c a tie for f32: c = -a·b + half an f32 ulp.
				x := float32(1 + float32(rng.Intn(1<<20))/(1<<20))
				a[l], b[l] = uint64(math.Float32bits(x)), uint64(math.Float32bits(1+1.0/(1<<23)))
				c[l] = uint64(math.Float32bits(-x))
			}
		}
		for alias := range 4 {
			want, got := [4][32]uint64{a, b, c, a}, [4][32]uint64{a, b, c, a}
			dw, dg := &want[3], &got[3]
			if alias < 3 {
				dw, dg = &want[alias], &got[alias]
			}
			sw := fmaF32WarpGo(dw, &want[0], &want[1], &want[2])
			sg := fmaF32Warp(dg, &got[0], &got[1], &got[2])
			if sw != sg || want != got {
				for l := range 32 {
					if dw[l] != dg[l] || sw>>l&1 != sg>>l&1 {
						t.Fatalf("alias %d lane %d: fma(%#x, %#x, %#x): vector %#x (slow %v), Go %#x (slow %v)", alias, l, a[l], b[l], c[l], dg[l], sg>>l&1 != 0, dw[l], sw>>l&1 != 0)
					}
				}
				t.Fatalf("alias %d: the sources differ afterwards", alias)
			}
			if alias == 0 {
				for l := range 32 {
					if sw>>l&1 != 0 {
						ties++
					}
				}
			}
		}
	}
	if ties < 1000 {
		t.Errorf("only %d lanes went to the slow path", ties)
	}
}
