package isa

import (
	"encoding/binary"
	"fmt"
	"strings"
)

// Tensor maps (PTX §5.5.8): the 128-byte object that describes a tensor in
// global memory and how a bulk tensor copy traverses it. On hardware the
// encoding is opaque; the playground uses its own documented layout
// (docs/emulator.md, "Tensor maps"), chosen so that the values
// tensormap.replace writes are stored as the instruction gives them and a
// map built on the device from zeroed bytes (as Triton does) decodes to
// exactly the fields that were replaced.
//
// Byte layout (little-endian):
//
//	  0  u64     global_address
//	  8  u64[5]  global_dim (elements, innermost first)
//	 48  u64[4]  global_stride (bytes; [i] is the stride of dimension i+1)
//	 80  u32[5]  box_dim (elements)
//	100  u8[5]   element_stride
//	105  u8      rank - 1 (the value tensormap.replace.rank writes)
//	106  u8      elemtype (tensormap.replace encoding)
//	107  u8      interleave_layout (0 none, 1 16B, 2 32B)
//	108  u8      swizzle_mode (0 none, 1 32B, 2 64B, 3 128B, 4 96B)
//	109  u8      swizzle_atomicity (0 16B, 1 32B, 2 32B + 8B flip, 3 64B)
//	110  u8      fill_mode (0 zero, 1 OOB-NaN)
//	111  u8      mode (0 tile, 1 im2col; zero in a map built by
//	             tensormap.replace, which sets tile-mode fields only)
//	112  s16[3]  pixel_box_lower_corner (im2col: W, H, D)
//	118  s16[3]  pixel_box_upper_corner (im2col: W, H, D)
//	124  u16     channels_per_pixel (im2col)
//	126  u16     pixels_per_column (im2col)
//
// An im2col map (cuTensorMapEncodeIm2col) does not use box_dim: its box
// is pixels_per_column pixels of channels_per_pixel elements each.

// TensorMapBytes is the size of a tensor map.
const TensorMapBytes = 128

// TensorMaxRank is the largest tensor rank (§5.5.1).
const TensorMaxRank = 5

// Byte offsets of the tensor-map fields.
const (
	tmAddr      = 0
	tmGlobalDim = 8
	tmStride    = 48
	tmBoxDim    = 80
	tmElemStr   = 100
	tmRank      = 105
	tmElemType  = 106
	tmInterl    = 107
	tmSwizzle   = 108
	tmAtom      = 109
	tmFill      = 110
	tmMode      = 111
	tmLower     = 112
	tmUpper     = 118
	tmChannels  = 124
	tmPixels    = 126
)

// TensorMapMode is how a copy traverses the tensor (§5.5.2).
type TensorMapMode uint8

const (
	TensorModeTile TensorMapMode = iota
	TensorModeIm2col
)

func (m TensorMapMode) String() string {
	switch m {
	case TensorModeTile:
		return "tile"
	case TensorModeIm2col:
		return "im2col"
	}
	return fmt.Sprintf("mode(%d)", uint8(m))
}

// TensorIm2colMaxChannels and TensorIm2colMaxPixels are the driver's
// limits on channelsPerPixel and pixelsPerColumn.
const (
	TensorIm2colMaxChannels = 256
	TensorIm2colMaxPixels   = 1024
)

// Im2colCornerRange is the range of the bounding-box corners of a rank-r
// im2col map (§5.5.4.1: [-2^15, 2^15-1] for 3D, [-2^7, 2^7-1] for 4D,
// [-2^4, 2^4-1] for 5D).
func Im2colCornerRange(rank int) (lo, hi int) {
	b := 0
	switch rank {
	case 3:
		b = 15
	case 4:
		b = 7
	case 5:
		b = 4
	}
	return -(1 << b), 1<<b - 1
}

// Im2colOffsetMax is the largest im2col offset of a rank-r copy
// (§5.5.4.1: 2^16-1 for 3D, 2^8-1 for 4D, 2^5-1 for 5D).
func Im2colOffsetMax(rank int) int {
	switch rank {
	case 3:
		return 1<<16 - 1
	case 4:
		return 1<<8 - 1
	case 5:
		return 1<<5 - 1
	}
	return 0
}

// Im2colBox is the bounding box of an im2col map in spatial dimension d
// (1..Rank-2): the filter base positions lower..upper inclusive, where
// lower is pixelBoxLowerCorner and upper is globalDim - 1 +
// pixelBoxUpperCorner (the upper corner is relative to the tensor's far
// edge: -1 is the last position but one).
func (m TensorMap) Im2colBox(d int) (lo, hi int64) {
	return int64(m.PixelBoxLower[d-1]), int64(m.GlobalDim[d]) - 1 + int64(m.PixelBoxUpper[d-1])
}

// TensorElemType is a tensor element type in tensormap.replace's .elemtype
// encoding.
type TensorElemType uint8

const (
	TensorU8 TensorElemType = iota
	TensorU16
	TensorU32
	TensorS32
	TensorU64
	TensorS64
	TensorF16
	TensorF32
	TensorF32FTZ
	TensorF64
	TensorBF16
	TensorTF32
	TensorTF32FTZ
	tensorElemTypes
)

var tensorElemNames = [...]string{"u8", "u16", "u32", "s32", "u64", "s64", "f16", "f32", "f32.ftz", "f64", "bf16", "tf32", "tf32.ftz"}

func (t TensorElemType) String() string {
	if t < tensorElemTypes {
		return tensorElemNames[t]
	}
	return fmt.Sprintf("elemtype(%d)", uint8(t))
}

// ParseTensorElemType reads an element type name (String's spelling).
func ParseTensorElemType(name string) (TensorElemType, bool) {
	for i, n := range tensorElemNames {
		if n == name {
			return TensorElemType(i), true
		}
	}
	return 0, false
}

// Bytes is the element size (0 for an unknown type).
func (t TensorElemType) Bytes() int {
	switch t {
	case TensorU8:
		return 1
	case TensorU16, TensorF16, TensorBF16:
		return 2
	case TensorU32, TensorS32, TensorF32, TensorF32FTZ, TensorTF32, TensorTF32FTZ:
		return 4
	case TensorU64, TensorS64, TensorF64:
		return 8
	}
	return 0
}

// Float reports a floating-point element type (the only ones that may be
// filled with OOB-NaN).
func (t TensorElemType) Float() bool {
	switch t {
	case TensorF16, TensorF32, TensorF32FTZ, TensorF64, TensorBF16, TensorTF32, TensorTF32FTZ:
		return true
	}
	return false
}

// TensorInterleave is the interleave layout (§5.5.6).
type TensorInterleave uint8

const (
	InterleaveNone TensorInterleave = iota
	Interleave16B
	Interleave32B
)

func (i TensorInterleave) String() string {
	switch i {
	case InterleaveNone:
		return "none"
	case Interleave16B:
		return "16B"
	case Interleave32B:
		return "32B"
	}
	return fmt.Sprintf("interleave(%d)", uint8(i))
}

// ParseTensorInterleave reads an interleave name (String's spelling).
func ParseTensorInterleave(name string) (TensorInterleave, bool) {
	for i := InterleaveNone; i <= Interleave32B; i++ {
		if strings.EqualFold(i.String(), name) {
			return i, true
		}
	}
	return 0, false
}

// The swizzle_mode encoding of tensormap.replace.
const (
	TMSwizzleNone = 0
	TMSwizzle32B  = 1
	TMSwizzle64B  = 2
	TMSwizzle128B = 3
	TMSwizzle96B  = 4
)

// TensorMap is a decoded tensor map.
type TensorMap struct {
	// Mode is tile or im2col.
	Mode          TensorMapMode
	GlobalAddress uint64
	// Rank is 1..5; the slices below hold Rank meaningful entries.
	Rank           int
	GlobalDim      [TensorMaxRank]uint64
	GlobalStrides  [TensorMaxRank - 1]uint64 // bytes, dimensions 1..Rank-1
	BoxDim         [TensorMaxRank]uint32
	ElementStrides [TensorMaxRank]uint32
	ElemType       TensorElemType
	Interleave     TensorInterleave
	// SwizzleMode is the swizzle_mode encoding (TMSwizzle*); SwizzleAtom
	// the swizzle_atomicity (an isa.SwizzleAtom).
	SwizzleMode uint8
	SwizzleAtom SwizzleAtom
	// FillNaN: out-of-bounds elements read as OOB-NaN instead of zero.
	FillNaN bool
	// The im2col parameters (Mode im2col; §5.5.4): the bounding box's
	// corners in the spatial dimensions 1..Rank-2 (W, H, D: [0] is W), the
	// elements loaded per pixel and the pixels loaded per copy.
	PixelBoxLower    [TensorMaxRank - 2]int16
	PixelBoxUpper    [TensorMaxRank - 2]int16
	ChannelsPerPixel uint16
	PixelsPerColumn  uint16
}

// Encode writes the map in the playground's 128-byte layout.
func (m TensorMap) Encode() [TensorMapBytes]byte {
	var b [TensorMapBytes]byte
	le := binary.LittleEndian
	le.PutUint64(b[tmAddr:], m.GlobalAddress)
	for i := 0; i < TensorMaxRank; i++ {
		le.PutUint64(b[tmGlobalDim+8*i:], m.GlobalDim[i])
		le.PutUint32(b[tmBoxDim+4*i:], m.BoxDim[i])
		b[tmElemStr+i] = uint8(m.ElementStrides[i])
	}
	for i := 0; i < TensorMaxRank-1; i++ {
		le.PutUint64(b[tmStride+8*i:], m.GlobalStrides[i])
	}
	if m.Rank > 0 {
		b[tmRank] = uint8(m.Rank - 1)
	}
	b[tmElemType] = uint8(m.ElemType)
	b[tmInterl] = uint8(m.Interleave)
	b[tmSwizzle] = m.SwizzleMode
	b[tmAtom] = uint8(m.SwizzleAtom)
	if m.FillNaN {
		b[tmFill] = 1
	}
	b[tmMode] = uint8(m.Mode)
	for i := 0; i < TensorMaxRank-2; i++ {
		le.PutUint16(b[tmLower+2*i:], uint16(m.PixelBoxLower[i]))
		le.PutUint16(b[tmUpper+2*i:], uint16(m.PixelBoxUpper[i]))
	}
	le.PutUint16(b[tmChannels:], m.ChannelsPerPixel)
	le.PutUint16(b[tmPixels:], m.PixelsPerColumn)
	return b
}

// DecodeTensorMap reads the playground's 128-byte layout. It does not
// validate; call Validate before using the map.
func DecodeTensorMap(b []byte) (TensorMap, error) {
	if len(b) < TensorMapBytes {
		return TensorMap{}, fmt.Errorf("a tensor map is %d bytes, got %d", TensorMapBytes, len(b))
	}
	le := binary.LittleEndian
	m := TensorMap{
		GlobalAddress:    le.Uint64(b[tmAddr:]),
		Rank:             int(b[tmRank]) + 1,
		ElemType:         TensorElemType(b[tmElemType]),
		Interleave:       TensorInterleave(b[tmInterl]),
		SwizzleMode:      b[tmSwizzle],
		SwizzleAtom:      SwizzleAtom(b[tmAtom]),
		FillNaN:          b[tmFill] != 0,
		Mode:             TensorMapMode(b[tmMode]),
		ChannelsPerPixel: le.Uint16(b[tmChannels:]),
		PixelsPerColumn:  le.Uint16(b[tmPixels:]),
	}
	for i := 0; i < TensorMaxRank-2; i++ {
		m.PixelBoxLower[i] = int16(le.Uint16(b[tmLower+2*i:]))
		m.PixelBoxUpper[i] = int16(le.Uint16(b[tmUpper+2*i:]))
	}
	for i := 0; i < TensorMaxRank; i++ {
		m.GlobalDim[i] = le.Uint64(b[tmGlobalDim+8*i:])
		m.BoxDim[i] = le.Uint32(b[tmBoxDim+4*i:])
		m.ElementStrides[i] = uint32(b[tmElemStr+i])
	}
	for i := 0; i < TensorMaxRank-1; i++ {
		m.GlobalStrides[i] = le.Uint64(b[tmStride+8*i:])
	}
	if b[tmFill] > 1 {
		return m, fmt.Errorf("fill_mode %d is not 0 (zero) or 1 (OOB-NaN)", b[tmFill])
	}
	return m, nil
}

// TensorMapField is a field tensormap.replace can set.
type TensorMapField uint8

const (
	FieldGlobalAddress TensorMapField = iota
	FieldRank
	FieldBoxDim
	FieldGlobalDim
	FieldGlobalStride
	FieldElementStride
	FieldElemType
	FieldInterleaveLayout
	FieldSwizzleMode
	FieldSwizzleAtomicity
	FieldFillMode
	tensorMapFields
)

var tensorMapFieldNames = [...]string{"global_address", "rank", "box_dim", "global_dim", "global_stride", "element_stride", "elemtype", "interleave_layout", "swizzle_mode", "swizzle_atomicity", "fill_mode"}

func (f TensorMapField) String() string {
	if f < tensorMapFields {
		return tensorMapFieldNames[f]
	}
	return fmt.Sprintf("field(%d)", uint8(f))
}

// ParseTensorMapField reads a tensormap.replace field name.
func ParseTensorMapField(name string) (TensorMapField, bool) {
	for i, n := range tensorMapFieldNames {
		if n == name {
			return TensorMapField(i), true
		}
	}
	return 0, false
}

// Ordinal reports a field that takes an ordinal operand (the dimension).
func (f TensorMapField) Ordinal() bool {
	switch f {
	case FieldBoxDim, FieldGlobalDim, FieldGlobalStride, FieldElementStride:
		return true
	}
	return false
}

// ValueBits is the width of the field's new_val operand (.b64 or .b32).
func (f TensorMapField) ValueBits() int {
	if f == FieldGlobalAddress || f == FieldGlobalStride {
		return 64
	}
	return 32
}

// Replace applies tensormap.replace.tile.f [map], ord, v to the 128 bytes
// of a map. It checks the ordinal and that the value fits the field's
// storage; whether the map as a whole is valid is Validate's business, at
// the copy that uses it (a map is built one field at a time).
func ReplaceTensorMapField(b []byte, f TensorMapField, ord int, v uint64) error {
	if len(b) < TensorMapBytes {
		return fmt.Errorf("a tensor map is %d bytes, got %d", TensorMapBytes, len(b))
	}
	le := binary.LittleEndian
	maxOrd := TensorMaxRank
	if f == FieldGlobalStride {
		maxOrd = TensorMaxRank - 1
	}
	if f.Ordinal() && (ord < 0 || ord >= maxOrd) {
		return fmt.Errorf("tensormap.replace.%s: ordinal %d is out of range 0..%d", f, ord, maxOrd-1)
	}
	small := func(limit uint64) error {
		if v > limit {
			return fmt.Errorf("tensormap.replace.%s: value %d is out of range 0..%d", f, v, limit)
		}
		return nil
	}
	switch f {
	case FieldGlobalAddress:
		le.PutUint64(b[tmAddr:], v)
	case FieldRank:
		if err := small(TensorMaxRank - 1); err != nil {
			return err
		}
		b[tmRank] = uint8(v)
	case FieldBoxDim:
		if err := small(1<<32 - 1); err != nil {
			return err
		}
		le.PutUint32(b[tmBoxDim+4*ord:], uint32(v))
	case FieldGlobalDim:
		if err := small(1<<32 - 1); err != nil {
			return err
		}
		le.PutUint64(b[tmGlobalDim+8*ord:], v)
	case FieldGlobalStride:
		le.PutUint64(b[tmStride+8*ord:], v)
	case FieldElementStride:
		if err := small(255); err != nil {
			return err
		}
		b[tmElemStr+ord] = uint8(v)
	case FieldElemType:
		if err := small(uint64(tensorElemTypes) - 1); err != nil {
			return err
		}
		b[tmElemType] = uint8(v)
	case FieldInterleaveLayout:
		if err := small(uint64(Interleave32B)); err != nil {
			return err
		}
		b[tmInterl] = uint8(v)
	case FieldSwizzleMode:
		if err := small(TMSwizzle96B); err != nil {
			return err
		}
		b[tmSwizzle] = uint8(v)
	case FieldSwizzleAtomicity:
		if err := small(uint64(Atom64B)); err != nil {
			return err
		}
		b[tmAtom] = uint8(v)
	case FieldFillMode:
		if err := small(1); err != nil {
			return err
		}
		b[tmFill] = uint8(v)
	default:
		return fmt.Errorf("unknown tensor-map field %d", f)
	}
	return nil
}

// Swizzle is the shared-memory swizzle the map's swizzle_mode and
// swizzle_atomicity select.
func (m TensorMap) Swizzle() Swizzle {
	switch m.SwizzleMode {
	case TMSwizzle32B:
		return Swizzle{Mode: SwizzleTMA32B}
	case TMSwizzle64B:
		return Swizzle{Mode: SwizzleTMA64B}
	case TMSwizzle96B:
		return Swizzle{Mode: SwizzleTMA96B}
	case TMSwizzle128B:
		return Swizzle{Mode: SwizzleTMA128B, Atom: m.SwizzleAtom}
	}
	return Swizzle{}
}

// SwizzleSpan is the bytes of a row the swizzle permutes (0: none).
func (m TensorMap) SwizzleSpan() int {
	switch m.SwizzleMode {
	case TMSwizzle32B:
		return 32
	case TMSwizzle64B:
		return 64
	case TMSwizzle96B:
		return 96
	case TMSwizzle128B:
		return 128
	}
	return 0
}

// TensorMapError is a rule of cuTensorMapEncodeTiled (or of a map's
// encoding) that a map breaks; Field names the argument in the launch
// spec's spelling (e.g. "globalStrides[0]").
type TensorMapError struct {
	Field string
	Msg   string
}

func (e *TensorMapError) Error() string { return e.Field + ": " + e.Msg }

// BoxElems is the number of elements the box traverses in dimension d:
// ceil(boxDim / elementStride), the whole box in dimension 0 when the
// layout is not interleaved (its element stride is ignored).
func (m TensorMap) BoxElems(d int) int {
	es := m.ElementStrides[d]
	if d == 0 && m.Interleave == InterleaveNone || es == 0 {
		es = 1
	}
	return int((m.BoxDim[d] + es - 1) / es)
}

// BoxBytes is the bytes one copy moves into shared memory: the whole box,
// out-of-bounds elements included (im2col: pixelsPerColumn pixels of
// channelsPerPixel elements).
func (m TensorMap) BoxBytes() int64 {
	n := int64(m.ElemType.Bytes())
	if m.Mode == TensorModeIm2col {
		return n * int64(m.ChannelsPerPixel) * int64(m.PixelsPerColumn)
	}
	for d := 0; d < m.Rank && d < TensorMaxRank; d++ {
		n *= int64(m.BoxElems(d))
	}
	return n
}

// Validate applies the rules cuTensorMapEncodeTiled imposes on its
// arguments (CUDA driver API, "Tensor Map Object Management") and the
// ISA's limits on the fields. The first rule broken is returned as a
// *TensorMapError naming the field.
func (m TensorMap) Validate() error {
	bad := func(field, format string, a ...any) error {
		return &TensorMapError{Field: field, Msg: fmt.Sprintf(format, a...)}
	}
	if m.Rank < 1 || m.Rank > TensorMaxRank {
		return bad("rank", "the rank must be 1..%d, got %d", TensorMaxRank, m.Rank)
	}
	es := m.ElemType.Bytes()
	if es == 0 {
		return bad("dataType", "unknown element type %d", uint8(m.ElemType))
	}
	if m.Interleave > Interleave32B {
		return bad("interleave", "unknown interleave layout %d", uint8(m.Interleave))
	}
	if m.Interleave != InterleaveNone && m.Rank < 3 {
		return bad("interleave", "an interleaved layout needs rank 3, 4 or 5, got %d", m.Rank)
	}
	align := uint64(16)
	if m.Interleave == Interleave32B {
		align = 32
	}
	if m.GlobalAddress%align != 0 {
		return bad("globalAddress", "the global address %#x must be %d-byte aligned", m.GlobalAddress, align)
	}
	for d := 0; d < m.Rank; d++ {
		if g := m.GlobalDim[d]; g == 0 || g > 1<<32 {
			return bad(fmt.Sprintf("globalDim[%d]", d), "must be 1..2^32, got %d", g)
		}
	}
	for i := 0; i < m.Rank-1; i++ {
		s := m.GlobalStrides[i]
		f := fmt.Sprintf("globalStrides[%d]", i)
		switch {
		case s%16 != 0:
			return bad(f, "a stride must be a multiple of 16 bytes, got %d", s)
		case s >= 1<<40:
			return bad(f, "a stride must be less than 2^40 bytes, got %d", s)
		case m.Interleave == Interleave32B && s%32 != 0:
			return bad(f, "with 32B interleave a stride must be a multiple of 32 bytes, got %d", s)
		}
	}
	if m.Mode > TensorModeIm2col {
		return bad("mode", "unknown mode %d (0 tile, 1 im2col)", uint8(m.Mode))
	}
	im2col := m.Mode == TensorModeIm2col
	for d := 0; d < m.Rank; d++ {
		if b := m.BoxDim[d]; !im2col && (b == 0 || b > 256) {
			return bad(fmt.Sprintf("boxDim[%d]", d), "must be 1..256, got %d", b)
		}
		if s := m.ElementStrides[d]; s == 0 || s > 8 {
			return bad(fmt.Sprintf("elementStrides[%d]", d), "must be 1..8, got %d", s)
		}
	}
	var inner int
	if im2col {
		var err error
		if inner, err = m.validateIm2col(bad); err != nil {
			return err
		}
	} else {
		inner = int(m.BoxDim[0]) * es
		if m.Interleave == InterleaveNone && inner%16 != 0 {
			return bad("boxDim[0]", "the box's inner dimension (%d × %d bytes = %d) must be a multiple of 16 bytes", m.BoxDim[0], es, inner)
		}
	}
	if m.SwizzleMode > TMSwizzle96B {
		return bad("swizzle", "unknown swizzle mode %d", m.SwizzleMode)
	}
	if m.SwizzleAtom > Atom64B {
		return bad("swizzleAtomicity", "unknown swizzle atomicity %d", uint8(m.SwizzleAtom))
	}
	if m.SwizzleMode != TMSwizzle128B && m.SwizzleAtom != Atom16B {
		return bad("swizzleAtomicity", "only the 128B swizzle has a %s atomicity (§5.5.7, Table 14)", m.SwizzleAtom)
	}
	if span := m.SwizzleSpan(); span != 0 && m.Interleave == InterleaveNone && inner > span {
		if m.Mode == TensorModeIm2col {
			return bad("channelsPerPixel", "with the %dB swizzle a pixel's channels (%d bytes) must be at most %d bytes", span, inner, span)
		}
		return bad("boxDim[0]", "with the %dB swizzle the box's inner dimension (%d bytes) must be at most %d bytes", span, inner, span)
	}
	if m.Interleave == Interleave32B && m.SwizzleMode != TMSwizzle32B {
		return bad("swizzle", "with 32B interleave the swizzle must be 32B")
	}
	if m.FillNaN && !m.ElemType.Float() {
		return bad("oobFill", "NaN fill needs a floating-point dataType, not %s", m.ElemType)
	}
	return nil
}

// validateIm2col applies cuTensorMapEncodeIm2col's rules on the im2col
// parameters and returns the bytes of a pixel's channels (the box's inner
// dimension).
func (m TensorMap) validateIm2col(bad func(field, format string, a ...any) error) (int, error) {
	if m.Rank < 3 {
		return 0, bad("rank", "an im2col map has rank 3, 4 or 5 (NWC, NHWC, NDHWC), got %d", m.Rank)
	}
	if m.Interleave != InterleaveNone {
		return 0, bad("interleave", "the emulator supports im2col maps without interleave only")
	}
	lo, hi := Im2colCornerRange(m.Rank)
	for i := 0; i < m.Rank-2; i++ {
		if c := int(m.PixelBoxLower[i]); c < lo || c > hi {
			return 0, bad(fmt.Sprintf("pixelBoxLowerCorner[%d]", i), "a rank-%d corner must be %d..%d, got %d", m.Rank, lo, hi, c)
		}
		if c := int(m.PixelBoxUpper[i]); c < lo || c > hi {
			return 0, bad(fmt.Sprintf("pixelBoxUpperCorner[%d]", i), "a rank-%d corner must be %d..%d, got %d", m.Rank, lo, hi, c)
		}
		if bl, bh := m.Im2colBox(i + 1); bl > bh {
			return 0, bad(fmt.Sprintf("pixelBoxUpperCorner[%d]", i), "the bounding box is empty in dimension %d: lower corner %d, upper corner %d + %d - 1 = %d", i+1, bl, m.GlobalDim[i+1], m.PixelBoxUpper[i], bh)
		}
	}
	if c := m.ChannelsPerPixel; c == 0 || c > TensorIm2colMaxChannels {
		return 0, bad("channelsPerPixel", "must be 1..%d, got %d", TensorIm2colMaxChannels, c)
	}
	if p := m.PixelsPerColumn; p == 0 || p > TensorIm2colMaxPixels {
		return 0, bad("pixelsPerColumn", "must be 1..%d, got %d", TensorIm2colMaxPixels, p)
	}
	es := m.ElemType.Bytes()
	inner := int(m.ChannelsPerPixel) * es
	if inner%16 != 0 {
		return 0, bad("channelsPerPixel", "a pixel's channels (%d × %d bytes = %d) must be a multiple of 16 bytes", m.ChannelsPerPixel, es, inner)
	}
	return inner, nil
}

// OOBFill is the bytes of one out-of-bounds element: zero, or the
// OOB-NaN of a floating-point type (the playground uses the type's
// all-ones-mantissa quiet NaN: 0x7fff, 0x7fffffff, 0x7fffffffffffffff).
func (m TensorMap) OOBFill() []byte {
	b := make([]byte, m.ElemType.Bytes())
	if m.FillNaN && m.ElemType.Float() {
		for i := range b {
			b[i] = 0xff
		}
		b[len(b)-1] = 0x7f
	}
	return b
}

// Extent is the bytes from the global address to the end of the tensor's
// last element: the span a buffer must hold.
func (m TensorMap) Extent() (uint64, bool) {
	if m.Rank < 1 || m.Rank > TensorMaxRank {
		return 0, false
	}
	hi, end := mul64(m.GlobalDim[0], uint64(m.ElemType.Bytes()))
	if hi != 0 {
		return 0, false
	}
	for d := 1; d < m.Rank; d++ {
		h, add := mul64(m.GlobalDim[d]-1, m.GlobalStrides[d-1])
		if h != 0 || end+add < end {
			return 0, false
		}
		end += add
	}
	return end, true
}

func mul64(a, b uint64) (hi, lo uint64) {
	if a == 0 || b == 0 {
		return 0, 0
	}
	lo = a * b
	if lo/b != a {
		return 1, lo
	}
	return 0, lo
}
