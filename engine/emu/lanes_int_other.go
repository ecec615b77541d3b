//go:build !amd64 || purego

package emu

// ixVec: no vector integer routines on this platform; the names below are
// their Go loops (lanes_int.go), so that the tests run everywhere.
const ixVec = false

func vecAndM(d, a, b *[32]uint64, m uint64)      { andAllGo(d, a, b, m) }
func vecOrM(d, a, b *[32]uint64, m uint64)       { orAllGo(d, a, b, m) }
func vecXorM(d, a, b *[32]uint64, m uint64)      { xorAllGo(d, a, b, m) }
func vecAddM(d, a, b *[32]uint64, m uint64)      { addAllGo(d, a, b, m) }
func vecSubM(d, a, b *[32]uint64, m uint64)      { subAllGo(d, a, b, m) }
func vecMadLoM(d, a, b, c *[32]uint64, m uint64) { madLoAllGo(d, a, b, c, m) }
func vecAddImm32(d, a *[32]uint64, k uint64)     { addImm32AllGo(d, a, k) }
func vecShlImm32(d, a *[32]uint64, s uint64)     { shlImm32AllGo(d, a, s) }
func vecShrImm32(d, a *[32]uint64, s uint64)     { shrImm32AllGo(d, a, s) }

// The compares of up to 32 bits (lanes_int_amd64.go), lane by lane.

func vecCmpLT(a, b *[32]uint64, w, bias uint64) (r uint32) {
	for l := range a {
		if a[l]&w^bias < b[l]&w^bias {
			r |= 1 << l
		}
	}
	return r
}

func vecCmpLTK(a *[32]uint64, y, w, bias uint64) (r uint32) {
	for l := range a {
		if a[l]&w^bias < y {
			r |= 1 << l
		}
	}
	return r
}

func vecCmpEq(a, b *[32]uint64, w uint64) (r uint32) {
	for l := range a {
		if a[l]&w == b[l]&w {
			r |= 1 << l
		}
	}
	return r
}

func vecCmpEqK(a *[32]uint64, y, w uint64) (r uint32) {
	for l := range a {
		if a[l]&w == y {
			r |= 1 << l
		}
	}
	return r
}

func classifyWarpVec(base *[32]uint64, am, off uint64) (WarpPattern, uint64, uint64) {
	return classifyWarpGo(base, am, off)
}
