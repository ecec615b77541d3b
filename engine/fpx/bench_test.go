package fpx

import "testing"

var sink32 uint32
var sink64 uint64
var sink16 uint16

// The per-lane functions must not allocate, including the soft-float paths.
func TestNoAllocs(t *testing.T) {
	a, b, c := uint32(0x3F8CCCCD), uint32(0x40490FDB), uint32(0xBF000001)
	checks := map[string]func(){
		"AddF32 rn":      func() { sink32 = AddF32(a, b, RN, false) },
		"AddF32 rz ftz":  func() { sink32 = AddF32(a, b, RZ, true) },
		"FmaF32 rn":      func() { sink32 = FmaF32(a, b, c, RN, false) },
		"FmaF32 rp":      func() { sink32 = FmaF32(a, b, c, RP, false) },
		"DivF32 rm":      func() { sink32 = DivF32(a, b, RM, false) },
		"SqrtF32 rp":     func() { sink32 = SqrtF32(b, RP, false) },
		"FmaF64 rz":      func() { sink64 = FmaF64(F32ToF64(a, false), F32ToF64(b, false), F32ToF64(c, false), RZ) },
		"SqrtF64 rm":     func() { sink64 = SqrtF64(0x4000000000000000, RM) },
		"F32ToF16":       func() { sink16 = F32ToF16(a, RZ, Relu|SatFinite) },
		"FmaF16":         func() { sink16 = FmaF16(0x3C01, 0x3C01, 0xBC02, Relu) },
		"F32ToE4M3":      func() { sink16 = uint16(F32ToE4M3(b, true, false)) },
		"IntToF32":       func() { sink32 = IntToF32(0xFFFFFFFFFFFF, 64, false, RZ) },
		"F32ToInt":       func() { sink64 = F32ToInt(b, 32, true, RN, false, false) },
		"Ex2ApproxBF16":  func() { sink16 = Ex2ApproxBF16(0x4040) },
		"MinXorSignAbs":  func() { sink32 = MinXorSignAbsF32(a, b, true, true) },
		"SinApproxF32":   func() { sink32 = SinApproxF32(b, true) },
		"F32x2ToBF16x2":  func() { sink32 = F32x2ToBF16x2(a, b, RZ, SatFinite) },
		"E5M2x2ToF16x2":  func() { sink32 = E5M2x2ToF16x2(0x3CC0, true) },
		"RoundToIntF16":  func() { sink16 = RoundToIntF16(0x3E00, RN) },
		"F16ToBF16 rp":   func() { sink16 = F16ToBF16(0x3C01, RP, 0) },
		"DivApproxF32":   func() { sink32 = DivApproxF32(a, b, false) },
		"RsqrtApproxF64": func() { sink64 = RsqrtApproxF64(0x3FD0000000000000) },
	}
	for name, f := range checks {
		if n := testing.AllocsPerRun(100, f); n != 0 {
			t.Errorf("%s allocates %v times", name, n)
		}
	}
}

func benchInputs32() [4]uint32 {
	return [4]uint32{0x3F8CCCCD, 0x40490FDB, 0xBF000001, 0x3A83126F}
}

func BenchmarkAddF32RN(b *testing.B) {
	in := benchInputs32()
	var s uint32
	for i := 0; i < b.N; i++ {
		s ^= AddF32(in[i&3], in[(i+1)&3], RN, false)
	}
	sink32 = s
}

func BenchmarkAddF32RNFtz(b *testing.B) {
	in := benchInputs32()
	var s uint32
	for i := 0; i < b.N; i++ {
		s ^= AddF32(in[i&3], in[(i+1)&3], RN, true)
	}
	sink32 = s
}

func BenchmarkMulF32RN(b *testing.B) {
	in := benchInputs32()
	var s uint32
	for i := 0; i < b.N; i++ {
		s ^= MulF32(in[i&3], in[(i+1)&3], RN, false)
	}
	sink32 = s
}

func BenchmarkFmaF32RN(b *testing.B) {
	in := benchInputs32()
	var s uint32
	for i := 0; i < b.N; i++ {
		s ^= FmaF32(in[i&3], in[(i+1)&3], in[(i+2)&3], RN, false)
	}
	sink32 = s
}

func BenchmarkFmaF32RZ(b *testing.B) {
	in := benchInputs32()
	var s uint32
	for i := 0; i < b.N; i++ {
		s ^= FmaF32(in[i&3], in[(i+1)&3], in[(i+2)&3], RZ, false)
	}
	sink32 = s
}

func BenchmarkAddF32RZ(b *testing.B) {
	in := benchInputs32()
	var s uint32
	for i := 0; i < b.N; i++ {
		s ^= AddF32(in[i&3], in[(i+1)&3], RZ, false)
	}
	sink32 = s
}

func BenchmarkFmaF64RN(b *testing.B) {
	in := [4]uint64{0x3FF199999999999A, 0x400921FB54442D18, 0xBFE0000000000001, 0x3F50624DD2F1A9FC}
	var s uint64
	for i := 0; i < b.N; i++ {
		s ^= FmaF64(in[i&3], in[(i+1)&3], in[(i+2)&3], RN)
	}
	sink64 = s
}

func BenchmarkFmaF64RP(b *testing.B) {
	in := [4]uint64{0x3FF199999999999A, 0x400921FB54442D18, 0xBFE0000000000001, 0x3F50624DD2F1A9FC}
	var s uint64
	for i := 0; i < b.N; i++ {
		s ^= FmaF64(in[i&3], in[(i+1)&3], in[(i+2)&3], RP)
	}
	sink64 = s
}

func BenchmarkF32ToF16(b *testing.B) {
	in := benchInputs32()
	var s uint16
	for i := 0; i < b.N; i++ {
		s ^= F32ToF16(in[i&3], RN, 0)
	}
	sink16 = s
}

func BenchmarkFmaF16(b *testing.B) {
	in := [4]uint16{0x3C66, 0x4248, 0xB801, 0x1419}
	var s uint16
	for i := 0; i < b.N; i++ {
		s ^= FmaF16(in[i&3], in[(i+1)&3], in[(i+2)&3], 0)
	}
	sink16 = s
}
