package isa

import (
	"errors"
	"strings"
	"testing"
)

func validMap() TensorMap {
	return TensorMap{
		GlobalAddress: 0x10000, Rank: 2, ElemType: TensorF16,
		GlobalDim: [5]uint64{64, 64}, GlobalStrides: [4]uint64{128},
		BoxDim: [5]uint32{64, 8}, ElementStrides: [5]uint32{1, 1},
		SwizzleMode: TMSwizzle128B,
	}
}

func TestTensorMapEncodeDecode(t *testing.T) {
	m := validMap()
	m.Rank = 5
	m.GlobalDim = [5]uint64{64, 3, 4, 5, 1 << 32}
	m.GlobalStrides = [4]uint64{128, 384, 1536, 7680}
	m.BoxDim = [5]uint32{64, 2, 3, 4, 256}
	m.ElementStrides = [5]uint32{1, 2, 3, 4, 8}
	m.SwizzleAtom = Atom32BFlip8B
	m.FillNaN = true
	b := m.Encode()
	got, err := DecodeTensorMap(b[:])
	if err != nil || got != m {
		t.Fatalf("round trip: %+v, %v; want %+v", got, err, m)
	}
}

// A map built on the device as Triton builds it: 128 zero bytes, then
// every field replaced, decodes to the map the driver would have encoded.
func TestTensorMapReplaceEveryField(t *testing.T) {
	want := validMap()
	want.GlobalAddress = 0xdead0000
	want.SwizzleAtom = Atom64B
	want.FillNaN = true
	var b [TensorMapBytes]byte
	steps := []struct {
		f   TensorMapField
		ord int
		v   uint64
	}{
		{FieldGlobalAddress, 0, 0xdead0000},
		{FieldRank, 0, 1}, // rank - 1
		{FieldBoxDim, 0, 64}, {FieldBoxDim, 1, 8},
		{FieldGlobalDim, 0, 64}, {FieldGlobalDim, 1, 64},
		{FieldGlobalStride, 0, 128},
		{FieldElementStride, 0, 1}, {FieldElementStride, 1, 1},
		{FieldElemType, 0, 6}, // .f16
		{FieldInterleaveLayout, 0, 0},
		{FieldSwizzleMode, 0, 3}, // 128B
		{FieldSwizzleAtomicity, 0, 3},
		{FieldFillMode, 0, 1},
	}
	seen := map[TensorMapField]bool{}
	for _, s := range steps {
		if err := ReplaceTensorMapField(b[:], s.f, s.ord, s.v); err != nil {
			t.Fatal(err)
		}
		seen[s.f] = true
	}
	if len(seen) != int(tensorMapFields) {
		t.Fatalf("%d of %d fields replaced", len(seen), tensorMapFields)
	}
	got, err := DecodeTensorMap(b[:])
	if err != nil || got != want {
		t.Fatalf("device-built map %+v, %v; want %+v", got, err, want)
	}
	if err := got.Validate(); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []struct {
		f      TensorMapField
		ord    int
		v      uint64
		substr string
	}{
		{FieldRank, 0, 5, "out of range"},
		{FieldBoxDim, 5, 1, "ordinal 5"},
		{FieldGlobalStride, 4, 16, "ordinal 4"},
		{FieldElemType, 0, 13, "out of range"},
		{FieldSwizzleMode, 0, 5, "out of range"},
		{FieldSwizzleAtomicity, 0, 4, "out of range"},
		{FieldInterleaveLayout, 0, 3, "out of range"},
		{FieldFillMode, 0, 2, "out of range"},
	} {
		if err := ReplaceTensorMapField(b[:], bad.f, bad.ord, bad.v); err == nil || !strings.Contains(err.Error(), bad.substr) {
			t.Errorf("%s ord %d value %d: %v", bad.f, bad.ord, bad.v, err)
		}
	}
}

// The rules of cuTensorMapEncodeTiled, each naming its field.
func TestTensorMapValidateRules(t *testing.T) {
	if err := validMap().Validate(); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		field string
		edit  func(*TensorMap)
	}{
		{"rank", func(m *TensorMap) { m.Rank = 6 }},
		{"rank", func(m *TensorMap) { m.Rank = 0 }},
		{"dataType", func(m *TensorMap) { m.ElemType = 13 }},
		{"globalAddress", func(m *TensorMap) { m.GlobalAddress = 0x10008 }},
		{"globalDim[1]", func(m *TensorMap) { m.GlobalDim[1] = 0 }},
		{"globalDim[0]", func(m *TensorMap) { m.GlobalDim[0] = 1<<32 + 1 }},
		{"globalStrides[0]", func(m *TensorMap) { m.GlobalStrides[0] = 120 }},
		{"globalStrides[0]", func(m *TensorMap) { m.GlobalStrides[0] = 1 << 40 }},
		{"boxDim[1]", func(m *TensorMap) { m.BoxDim[1] = 257 }},
		{"boxDim[1]", func(m *TensorMap) { m.BoxDim[1] = 0 }},
		{"boxDim[0]", func(m *TensorMap) { m.BoxDim[0] = 4; m.SwizzleMode = 0 }},  // 8 bytes: not a multiple of 16
		{"boxDim[0]", func(m *TensorMap) { m.BoxDim[0] = 32; m.SwizzleMode = 2 }}, // 64 bytes with the 32B... 64B swizzle ok
		{"elementStrides[1]", func(m *TensorMap) { m.ElementStrides[1] = 9 }},
		{"elementStrides[0]", func(m *TensorMap) { m.ElementStrides[0] = 0 }},
		{"interleave", func(m *TensorMap) { m.Interleave = Interleave16B }},
		{"swizzleAtomicity", func(m *TensorMap) { m.SwizzleMode = TMSwizzle64B; m.SwizzleAtom = Atom32B; m.BoxDim[0] = 32 }},
		{"oobFill", func(m *TensorMap) { m.ElemType = TensorU16; m.FillNaN = true }},
		{"swizzle", func(m *TensorMap) {
			m.Rank, m.Interleave, m.SwizzleMode = 3, Interleave32B, TMSwizzle64B
			m.GlobalDim[2], m.BoxDim[2], m.ElementStrides[2], m.GlobalStrides[1] = 1, 1, 1, 8192
		}},
	}
	for i, c := range cases {
		m := validMap()
		c.edit(&m)
		err := m.Validate()
		if i == 11 { // boxDim 64 bytes under the 64B swizzle is fine
			if err != nil {
				t.Errorf("case %d: %v", i, err)
			}
			m.BoxDim[0] = 64 // 128 bytes > 64
			err = m.Validate()
		}
		var te *TensorMapError
		if !errors.As(err, &te) || te.Field != c.field {
			t.Errorf("case %d: want an error naming %s, got %v", i, c.field, err)
		}
	}
}

func TestTensorMapExtent(t *testing.T) {
	m := validMap()
	if e, ok := m.Extent(); !ok || e != 63*128+128 {
		t.Fatalf("extent %d %v", e, ok)
	}
	m.GlobalDim[1] = 1 << 32
	m.GlobalStrides[0] = 1<<40 - 16
	if _, ok := m.Extent(); ok {
		t.Fatal("an extent past 2^64 accepted")
	}
}
