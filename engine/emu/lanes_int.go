package emu

// The whole-warp integer loops of the executors (every lane executes):
// the Go versions of the vector routines of lanes_int_amd64.s, which the
// executors use instead where the processor has AVX2 (ixVec). Unrolled
// four lanes at a time: no bounds checks, a quarter of the loop overhead.

func andAllGo(d, a, b *[32]uint64, m uint64) {
	for l := 0; l < 32; l += 4 {
		d[l] = a[l] & b[l] & m
		d[l+1] = a[l+1] & b[l+1] & m
		d[l+2] = a[l+2] & b[l+2] & m
		d[l+3] = a[l+3] & b[l+3] & m
	}
}

func orAllGo(d, a, b *[32]uint64, m uint64) {
	for l := 0; l < 32; l += 4 {
		d[l] = (a[l] | b[l]) & m
		d[l+1] = (a[l+1] | b[l+1]) & m
		d[l+2] = (a[l+2] | b[l+2]) & m
		d[l+3] = (a[l+3] | b[l+3]) & m
	}
}

func xorAllGo(d, a, b *[32]uint64, m uint64) {
	for l := 0; l < 32; l += 4 {
		d[l] = (a[l] ^ b[l]) & m
		d[l+1] = (a[l+1] ^ b[l+1]) & m
		d[l+2] = (a[l+2] ^ b[l+2]) & m
		d[l+3] = (a[l+3] ^ b[l+3]) & m
	}
}

func addAllGo(d, a, b *[32]uint64, m uint64) {
	for l := 0; l < 32; l += 4 {
		d[l] = (a[l] + b[l]) & m
		d[l+1] = (a[l+1] + b[l+1]) & m
		d[l+2] = (a[l+2] + b[l+2]) & m
		d[l+3] = (a[l+3] + b[l+3]) & m
	}
}

func subAllGo(d, a, b *[32]uint64, m uint64) {
	for l := 0; l < 32; l += 4 {
		d[l] = (a[l] - b[l]) & m
		d[l+1] = (a[l+1] - b[l+1]) & m
		d[l+2] = (a[l+2] - b[l+2]) & m
		d[l+3] = (a[l+3] - b[l+3]) & m
	}
}

func madLoAllGo(d, a, b, c *[32]uint64, m uint64) {
	for l := 0; l < 32; l += 4 {
		d[l] = (a[l]*b[l] + c[l]) & m
		d[l+1] = (a[l+1]*b[l+1] + c[l+1]) & m
		d[l+2] = (a[l+2]*b[l+2] + c[l+2]) & m
		d[l+3] = (a[l+3]*b[l+3] + c[l+3]) & m
	}
}

func addImm32AllGo(d, a *[32]uint64, k uint64) {
	kk := uint32(k)
	for l := 0; l < 32; l += 4 {
		d[l] = uint64(uint32(a[l]) + kk)
		d[l+1] = uint64(uint32(a[l+1]) + kk)
		d[l+2] = uint64(uint32(a[l+2]) + kk)
		d[l+3] = uint64(uint32(a[l+3]) + kk)
	}
}

func shlImm32AllGo(d, a *[32]uint64, s uint64) {
	s &= 31 // in range (callers check): lets the shifts skip Go's test for large amounts
	for l := 0; l < 32; l += 4 {
		d[l] = uint64(uint32(a[l]) << s)
		d[l+1] = uint64(uint32(a[l+1]) << s)
		d[l+2] = uint64(uint32(a[l+2]) << s)
		d[l+3] = uint64(uint32(a[l+3]) << s)
	}
}

func shrImm32AllGo(d, a *[32]uint64, s uint64) {
	s &= 31
	for l := 0; l < 32; l += 4 {
		d[l] = uint64(uint32(a[l]) >> s)
		d[l+1] = uint64(uint32(a[l+1]) >> s)
		d[l+2] = uint64(uint32(a[l+2]) >> s)
		d[l+3] = uint64(uint32(a[l+3]) >> s)
	}
}
