package launchspec

import (
	"errors"
	"fmt"

	"github.com/ptxplayground/ptxplay/engine/isa"
)

// TensorMapSpec is a tensor-map parameter: the arguments of
// cuTensorMapEncodeTiled (mode "tile", the default) or
// cuTensorMapEncodeIm2col (mode "im2col"), dimensions innermost first. The
// map describes
// Buffer (from Offset bytes); it is passed by value to a
// `.param .align 64 .b8 NAME[128]` parameter, or placed in global memory
// (a hidden 128-byte allocation) and its address passed to a `.u64` one.
type TensorMapSpec struct {
	Buffer   string `json:"buffer"`
	Offset   int64  `json:"offset,omitempty"`
	DataType string `json:"dataType"`
	// GlobalDim is the tensor's size in elements in each dimension.
	GlobalDim []uint64 `json:"globalDim"`
	// GlobalStrides are the byte strides of dimensions 1..rank-1.
	GlobalStrides []uint64 `json:"globalStrides,omitempty"`
	BoxDim        []uint32 `json:"boxDim"`
	// ElementStrides default to 1.
	ElementStrides []uint32 `json:"elementStrides,omitempty"`
	// Interleave: none (default), 16B or 32B.
	Interleave string `json:"interleave,omitempty"`
	// Swizzle: none (default), 32B, 64B or 128B.
	Swizzle string `json:"swizzle,omitempty"`
	// SwizzleAtomicity of the 128B swizzle: 16B (default), 32B,
	// 32B-flip8B or 64B.
	SwizzleAtomicity string `json:"swizzleAtomicity,omitempty"`
	// OOBFill: zero (default) or nan (floating-point types only).
	OOBFill string `json:"oobFill,omitempty"`
	// Mode: tile (default) or im2col. An im2col map has no BoxDim; its
	// box is PixelsPerColumn pixels of ChannelsPerPixel elements, and the
	// corners (rank-2 entries, W first) bound the filter base positions.
	Mode                string  `json:"mode,omitempty"`
	PixelBoxLowerCorner []int32 `json:"pixelBoxLowerCorner,omitempty"`
	PixelBoxUpperCorner []int32 `json:"pixelBoxUpperCorner,omitempty"`
	ChannelsPerPixel    uint32  `json:"channelsPerPixel,omitempty"`
	PixelsPerColumn     uint32  `json:"pixelsPerColumn,omitempty"`
}

// TensorMapParam is a tensor-map parameter.
func TensorMapParam(t TensorMapSpec) Param { return Param{TensorMap: &t} }

// tensorDataTypes are the spec's dataType names.
var tensorDataTypes = map[string]isa.TensorElemType{
	"u8": isa.TensorU8, "u16": isa.TensorU16, "u32": isa.TensorU32, "s32": isa.TensorS32,
	"u64": isa.TensorU64, "s64": isa.TensorS64, "f16": isa.TensorF16, "bf16": isa.TensorBF16,
	"f32": isa.TensorF32, "f64": isa.TensorF64, "tf32": isa.TensorTF32,
}

// Map is the tensor map for a buffer at base (the buffer's address plus
// Offset must be the tensor's start), checked against the driver's rules;
// an error names the field.
func (t *TensorMapSpec) Map(base uint64) (isa.TensorMap, error) {
	bad := func(field, format string, a ...any) (isa.TensorMap, error) {
		return isa.TensorMap{}, fmt.Errorf("tensorMap.%s: %s", field, fmt.Sprintf(format, a...))
	}
	var m isa.TensorMap
	if t.Buffer == "" {
		return bad("buffer", "names no buffer")
	}
	if t.Offset < 0 {
		return bad("offset", "%d is negative", t.Offset)
	}
	et, ok := tensorDataTypes[t.DataType]
	if !ok {
		return bad("dataType", "%q is not one of u8 u16 u32 s32 u64 s64 f16 bf16 f32 f64 tf32", t.DataType)
	}
	m.ElemType = et
	r := len(t.GlobalDim)
	if r < 1 || r > isa.TensorMaxRank {
		return bad("globalDim", "the rank (its length) must be 1..%d, got %d", isa.TensorMaxRank, r)
	}
	m.Rank = r
	switch t.Mode {
	case "", "tile":
		if len(t.BoxDim) != r {
			return bad("boxDim", "needs %d entries (the rank), got %d", r, len(t.BoxDim))
		}
		for _, f := range []struct {
			name string
			set  bool
		}{{"pixelBoxLowerCorner", t.PixelBoxLowerCorner != nil}, {"pixelBoxUpperCorner", t.PixelBoxUpperCorner != nil},
			{"channelsPerPixel", t.ChannelsPerPixel != 0}, {"pixelsPerColumn", t.PixelsPerColumn != 0}} {
			if f.set {
				return bad(f.name, "is a field of an im2col map (\"mode\": \"im2col\")")
			}
		}
		copy(m.BoxDim[:], t.BoxDim)
	case "im2col":
		if err := t.im2col(&m); err != nil {
			return isa.TensorMap{}, err
		}
	default:
		return bad("mode", "%q is not tile or im2col", t.Mode)
	}
	if len(t.GlobalStrides) != r-1 {
		return bad("globalStrides", "needs %d entries (rank - 1: the strides of dimensions 1..%d), got %d", r-1, r-1, len(t.GlobalStrides))
	}
	if t.ElementStrides != nil && len(t.ElementStrides) != r {
		return bad("elementStrides", "needs %d entries (the rank), got %d", r, len(t.ElementStrides))
	}
	copy(m.GlobalDim[:], t.GlobalDim)
	copy(m.GlobalStrides[:], t.GlobalStrides)
	for d := 0; d < r; d++ {
		m.ElementStrides[d] = 1
		if t.ElementStrides != nil {
			m.ElementStrides[d] = t.ElementStrides[d]
		}
	}
	if t.Interleave != "" {
		if m.Interleave, ok = isa.ParseTensorInterleave(t.Interleave); !ok {
			return bad("interleave", "%q is not none, 16B or 32B", t.Interleave)
		}
	}
	switch t.Swizzle {
	case "", "none":
	case "32B":
		m.SwizzleMode = isa.TMSwizzle32B
	case "64B":
		m.SwizzleMode = isa.TMSwizzle64B
	case "128B":
		m.SwizzleMode = isa.TMSwizzle128B
	default:
		return bad("swizzle", "%q is not none, 32B, 64B or 128B", t.Swizzle)
	}
	if t.SwizzleAtomicity != "" {
		if m.SwizzleAtom, ok = isa.ParseSwizzleAtom(t.SwizzleAtomicity); !ok {
			return bad("swizzleAtomicity", "%q is not 16B, 32B, 32B-flip8B or 64B", t.SwizzleAtomicity)
		}
	}
	switch t.OOBFill {
	case "", "zero":
	case "nan":
		m.FillNaN = true
	default:
		return bad("oobFill", "%q is not zero or nan", t.OOBFill)
	}
	m.GlobalAddress = base + uint64(t.Offset)
	if err := m.Validate(); err != nil {
		var te *isa.TensorMapError
		if errors.As(err, &te) {
			if te.Field == "globalAddress" {
				return bad("offset", "the tensor's start (buffer %q + %d bytes) %s", t.Buffer, t.Offset, te.Msg)
			}
			return bad(te.Field, "%s", te.Msg)
		}
		return isa.TensorMap{}, err
	}
	return m, nil
}

// im2col sets the im2col fields of m (whose Rank is set) from the spec;
// the range checks here only guard the conversion to the encoding's
// widths, the driver's rules are Validate's.
func (t *TensorMapSpec) im2col(m *isa.TensorMap) error {
	r := m.Rank
	bad := func(field, format string, a ...any) error {
		return fmt.Errorf("tensorMap.%s: %s", field, fmt.Sprintf(format, a...))
	}
	if r < 3 {
		return bad("globalDim", "an im2col map has rank 3, 4 or 5 (NWC, NHWC, NDHWC), got %d", r)
	}
	if t.BoxDim != nil {
		return bad("boxDim", "an im2col map has no boxDim (its box is pixelsPerColumn pixels of channelsPerPixel elements)")
	}
	lo, hi := isa.Im2colCornerRange(r)
	for _, c := range []struct {
		name string
		v    []int32
		dst  *[isa.TensorMaxRank - 2]int16
	}{{"pixelBoxLowerCorner", t.PixelBoxLowerCorner, &m.PixelBoxLower}, {"pixelBoxUpperCorner", t.PixelBoxUpperCorner, &m.PixelBoxUpper}} {
		if len(c.v) != r-2 {
			return bad(c.name, "needs %d entries (rank - 2: %s), got %d", r-2, []string{"W", "W, H", "W, H, D"}[r-3], len(c.v))
		}
		for i, v := range c.v {
			if int(v) < lo || int(v) > hi {
				return bad(fmt.Sprintf("%s[%d]", c.name, i), "a rank-%d corner must be %d..%d, got %d", r, lo, hi, v)
			}
			c.dst[i] = int16(v)
		}
	}
	if c := t.ChannelsPerPixel; c == 0 || c > isa.TensorIm2colMaxChannels {
		return bad("channelsPerPixel", "must be 1..%d, got %d", isa.TensorIm2colMaxChannels, c)
	}
	if p := t.PixelsPerColumn; p == 0 || p > isa.TensorIm2colMaxPixels {
		return bad("pixelsPerColumn", "must be 1..%d, got %d", isa.TensorIm2colMaxPixels, p)
	}
	m.Mode = isa.TensorModeIm2col
	m.ChannelsPerPixel, m.PixelsPerColumn = uint16(t.ChannelsPerPixel), uint16(t.PixelsPerColumn)
	return nil
}

// TensorMapBufferAlign is the alignment of every buffer (and so of the
// base the spec's checks assume).
const TensorMapBufferAlign = 256

// checkTensorMap validates a tensor-map parameter without addresses
// (buffers are TensorMapBufferAlign-aligned).
func checkTensorMap(t *TensorMapSpec, buffers map[string]int) error {
	if _, err := t.Map(TensorMapBufferAlign); err != nil {
		return err
	}
	if _, ok := buffers[t.Buffer]; !ok {
		return fmt.Errorf("tensorMap.buffer: no buffer named %q", t.Buffer)
	}
	return nil
}

// TensorMapFits reports why the tensor of m, from offset bytes into a
// buffer of size bytes, does not fit in it ("" if it does).
func TensorMapFits(m isa.TensorMap, offset, size int64) string {
	ext, ok := m.Extent()
	if !ok || offset > size || ext > uint64(size-offset) {
		return fmt.Sprintf("tensorMap: the tensor (globalDim and globalStrides) spans %d bytes from offset %d, more than buffer's %d bytes", ext, offset, size)
	}
	return ""
}
