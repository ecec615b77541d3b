package emu

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/ptxplayground/ptxplay/engine/isa"
)

// The im2col test tensor: NHWC with C=8, W=4, H=4, N=2 (innermost first),
// u32 elements whose value spells their coordinate: n*1000 + h*100 +
// w*10 + c.
func im2colTensor() []byte {
	b := make([]byte, 2*4*4*8*4)
	for n := 0; n < 2; n++ {
		for h := 0; h < 4; h++ {
			for w := 0; w < 4; w++ {
				for c := 0; c < 8; c++ {
					i := ((n*4+h)*4+w)*8 + c
					binary.LittleEndian.PutUint32(b[4*i:], uint32(n*1000+h*100+w*10+c))
				}
			}
		}
	}
	return b
}

// im2colMap is a 4-D map over im2colTensor for a 3x3 filter with padding
// 1: the bounding box is W, H in -1..2 (lower corner -1, upper corner -1
// from the far edge), 4 channels per pixel, pixels pixels per column.
func im2colMap(pixels uint16) isa.TensorMap {
	return isa.TensorMap{
		Mode: isa.TensorModeIm2col, GlobalAddress: 0x1000, Rank: 4, ElemType: isa.TensorU32,
		GlobalDim: [5]uint64{8, 4, 4, 2}, GlobalStrides: [4]uint64{32, 128, 512},
		ElementStrides: [5]uint32{1, 1, 1, 1, 1},
		PixelBoxLower:  [3]int16{-1, -1}, PixelBoxUpper: [3]int16{-1, -1},
		ChannelsPerPixel: 4, PixelsPerColumn: pixels,
	}
}

// im2colCases are hand-computed from §5.5.4: the pixels walk the filter
// base positions W fastest within the bounding box (-1..2 in W and H),
// wrapping to the lower corner and then to the next image; each pixel
// reads base + offsets; -1 marks a pixel out of bounds (padding, or past
// the last image). want[k] is pixel k's first channel's value.
var im2colCases = []struct {
	name    string
	strideW uint32
	coords  []int32 // c, w, h, n
	offs    []uint16
	want    []int
}{
	// base (1,2) (2,2), then (-1,-1) of image 1 ...; offsets (1,1).
	{"offsets", 1, []int32{4, 1, 2, 0}, []uint16{1, 1},
		[]int{324, 334, 1004, 1014, 1024, 1034, 1104, 1114}},
	// The same walk without offsets: the padding pixels are out of bounds.
	{"padding", 1, []int32{4, 1, 2, 0}, []uint16{0, 0},
		[]int{214, 224, -1, -1, -1, -1, -1, 1004}},
	// From image 1: the column runs past the last image.
	{"past last image", 1, []int32{0, 1, 2, 1}, []uint16{0, 0},
		[]int{1210, 1220, -1, -1, -1, -1, -1, -1}},
	// Traversal stride 2 in W: bases -1, 1, then the next row.
	{"stride", 2, []int32{0, -1, 0, 0}, []uint16{1, 1},
		[]int{100, 120, 200, 220, 300, 320, 1000, 1020}},
	// Channels 6..9: 8 and 9 are outside C; bases (0,0) (1,0) (2,0)
	// (-1,1) (0,1) (1,1) (2,1) (-1,2), W = -1 being padding.
	{"channels", 1, []int32{6, 0, 0, 0}, []uint16{0, 0},
		[]int{6, 16, 26, -1, 106, 116, 126, -1}},
}

func TestTMAPlaceIm2col(t *testing.T) {
	ten := im2colTensor()
	for _, c := range im2colCases {
		m := im2colMap(8)
		m.ElementStrides[1] = c.strideW
		p, err := TMAPlaceIm2col(m, c.coords, c.offs, 0)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if p.TxBytes != 8*4*4 || len(p.Elements) != 32 || p.Box[0] != 4 || p.Box[1] != 8 || p.Mode != isa.TensorModeIm2col {
			t.Fatalf("%s: tx %d, %d elements, box %v", c.name, p.TxBytes, len(p.Elements), p.Box)
		}
		for k, first := range c.want {
			for j := 0; j < 4; j++ {
				e := p.Elements[4*k+j]
				if e.Shared != uint64(4*(4*k+j)) {
					t.Fatalf("%s: pixel %d channel %d lands at %d", c.name, k, j, e.Shared)
				}
				want := first + j
				if first < 0 || int(c.coords[0])+j >= 8 {
					want = -1
				}
				got := -1
				if !e.OOB {
					got = int(binary.LittleEndian.Uint32(ten[e.Global-m.GlobalAddress:]))
				}
				if got != want {
					t.Fatalf("%s: pixel %d channel %d (coord %v) reads %d, want %d", c.name, k, j, e.Coord[:4], got, want)
				}
			}
		}
	}
}

func TestTMAPlaceIm2colRejects(t *testing.T) {
	m := im2colMap(8)
	for _, c := range []struct {
		coords []int32
		offs   []uint16
		want   string
	}{
		{[]int32{0, 3, 0, 0}, []uint16{0, 0}, "outside the bounding box -1..2"},
		{[]int32{0, 0, -2, 0}, []uint16{0, 0}, "dimension 2 is outside the bounding box"},
		{[]int32{0, 0, 0, 0}, []uint16{0}, "takes 2 im2col offsets"},
		{[]int32{0, 0, 0, 0}, []uint16{256, 0}, "outside the rank-4 range 0..255"},
	} {
		if _, err := TMAPlaceIm2col(m, c.coords, c.offs, 0); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Fatalf("%v %v: %v, want %q", c.coords, c.offs, err, c.want)
		}
	}
	if _, err := TMAPlaceTile(m, []int32{0, 0, 0, 0}, 0); err == nil || !strings.Contains(err.Error(), "im2col mode but the copy is in tile mode") {
		t.Fatalf("tile placement of an im2col map: %v", err)
	}
	if _, err := TMAPlaceIm2col(f32Map2D(64, 4), []int32{0, 0}, nil, 0); err == nil || !strings.Contains(err.Error(), "tile mode but the copy is in im2col mode") {
		t.Fatalf("im2col placement of a tile map: %v", err)
	}
}

// The driver's rules on the im2col parameters, each naming its field; the
// 128-byte encoding round-trips them.
func TestTensorMapIm2colValidate(t *testing.T) {
	good := im2colMap(8)
	if err := good.Validate(); err != nil {
		t.Fatal(err)
	}
	enc := good.Encode()
	if back, err := isa.DecodeTensorMap(enc[:]); err != nil || back != good {
		t.Fatalf("round trip: %+v %v", back, err)
	}
	for _, c := range []struct {
		edit  func(*isa.TensorMap)
		field string
	}{
		{func(m *isa.TensorMap) { m.Rank = 2 }, "rank"},
		{func(m *isa.TensorMap) { m.PixelBoxLower[1] = -129 }, "pixelBoxLowerCorner[1]"},
		{func(m *isa.TensorMap) { m.PixelBoxUpper[0] = 128 }, "pixelBoxUpperCorner[0]"},
		{func(m *isa.TensorMap) { m.PixelBoxLower[0] = 2; m.PixelBoxUpper[0] = -2 }, "pixelBoxUpperCorner[0]"},
		{func(m *isa.TensorMap) { m.ChannelsPerPixel = 0 }, "channelsPerPixel"},
		{func(m *isa.TensorMap) { m.ChannelsPerPixel = 6 }, "channelsPerPixel"},
		{func(m *isa.TensorMap) { m.ChannelsPerPixel = 260 }, "channelsPerPixel"},
		{func(m *isa.TensorMap) { m.PixelsPerColumn = 1025 }, "pixelsPerColumn"},
		{func(m *isa.TensorMap) { m.SwizzleMode = isa.TMSwizzle32B; m.ChannelsPerPixel = 16 }, "channelsPerPixel"},
		{func(m *isa.TensorMap) { m.Mode = 2 }, "mode"},
		{func(m *isa.TensorMap) {
			m.Rank = 5
			m.GlobalDim[4] = 1
			m.GlobalStrides[3] = 1024
			m.PixelBoxLower[2] = -17
		}, "pixelBoxLowerCorner[2]"},
	} {
		m := good
		c.edit(&m)
		var te *isa.TensorMapError
		if err := m.Validate(); !errors.As(err, &te) || te.Field != c.field {
			t.Fatalf("want an error on %s, got %v", c.field, err)
		}
	}
}

// An im2col load (4-D, with its offsets operand) in both scheduling
// models: shared memory holds the hand-computed column, out-of-bounds
// pixels zero, and the phase completes on the full column's 128 bytes;
// prefetch.tensor.im2col and an .im2col_no_offs store run too.
func TestTMAIm2colLoad(t *testing.T) {
	for _, c := range im2colCases {
		if c.strideW != 1 {
			continue
		}
		body := fmt.Sprintf(`	setp.ne.u32 %%p1, %%r1, 0;
	@%%p1 ret;
	mbarrier.init.shared.b64 [bar], 1;
	mov.u32 %%r2, %d;
	mov.u32 %%r3, %d;
	mov.u32 %%r4, %d;
	mov.u32 %%r5, %d;
	mov.b16 %%rs1, %d;
	mov.b16 %%rs2, %d;
	prefetch.tensor.4d.L2.global.im2col [%%rd2, {%%r2, %%r3, %%r4, %%r5}], {%%rs1, %%rs2};
	mbarrier.arrive.expect_tx.shared.b64 %%rd3, [bar], 128;
	cp.async.bulk.tensor.4d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes [buf], [%%rd2, {%%r2, %%r3, %%r4, %%r5}], [bar], {%%rs1, %%rs2};
LOOP:
	mbarrier.try_wait.parity.shared.b64 %%p2, [bar], 0;
	@!%%p2 bra LOOP;
	mov.u32 %%r4, 0;
COPY:
	shl.b32 %%r6, %%r4, 2;
	mov.u32 %%r7, buf;
	add.u32 %%r7, %%r7, %%r6;
	ld.shared.u32 %%r8, [%%r7];
	cvt.u64.u32 %%rd4, %%r6;
	add.u64 %%rd5, %%rd1, %%rd4;
	st.global.u32 [%%rd5], %%r8;
	add.u32 %%r4, %%r4, 1;
	setp.lt.u32 %%p3, %%r4, 32;
	@%%p3 bra COPY;
`, c.coords[0], c.coords[1], c.coords[2], c.coords[3], c.offs[0], c.offs[1])
		r, out, _, m := tmaLaunch{src: tmaKernel(body), block: 32, words: 32, tensor: im2colTensor(), tmap: im2colMap(8)}.run(t)
		if r != StopDone {
			t.Fatalf("%s: stopped with %v: %v", c.name, r, m.Fault())
		}
		for k, first := range c.want {
			for j := 0; j < 4; j++ {
				want := uint32(first + j)
				if first < 0 || int(c.coords[0])+j >= 8 {
					want = 0
				}
				if got := out[4*k+j]; got != want {
					t.Fatalf("%s: pixel %d channel %d: %d, want %d", c.name, k, j, got, want)
				}
			}
		}
	}
}

// An .im2col_no_offs store writes the column back to the pixels it was
// loaded from (bases only) and skips out-of-bounds ones; a tile-mode copy
// of an im2col map faults naming the modes.
func TestTMAIm2colStoreAndModeMismatch(t *testing.T) {
	body := `	shl.b32 %r6, %r1, 2;
	mov.u32 %r7, buf;
	add.u32 %r7, %r7, %r6;
	st.shared.u32 [%r7], %r1;
	fence.proxy.async.shared::cta;
	bar.sync 0;
	setp.ne.u32 %p1, %r1, 0;
	@%p1 ret;
	mov.u32 %r2, 4;
	mov.u32 %r3, 1;
	mov.u32 %r4, 2;
	mov.u32 %r5, 0;
	cp.async.bulk.tensor.4d.global.shared::cta.im2col_no_offs.bulk_group [%rd2, {%r2, %r3, %r4, %r5}], [buf];
	cp.async.bulk.commit_group;
	cp.async.bulk.wait_group 0;
`
	r, _, got, m := tmaLaunch{src: tmaKernel(body), block: 32, words: 1, tensor: im2colTensor(), tmap: im2colMap(8)}.run(t)
	if r != StopDone {
		t.Fatalf("stopped with %v: %v", r, m.Fault())
	}
	// The "padding" case's pixels: (w1,h2,n0), (w2,h2,n0), five padding
	// pixels, then (w0,h0,n1); channels 4..7 get thread ids 4k+j.
	at := func(n, h, w, c int) uint32 {
		return binary.LittleEndian.Uint32(got[4*(((n*4+h)*4+w)*8+c):])
	}
	for k, px := range map[int][3]int{0: {0, 2, 1}, 1: {0, 2, 2}, 7: {1, 0, 0}} {
		for j := 0; j < 4; j++ {
			if v := at(px[0], px[1], px[2], 4+j); v != uint32(4*k+j) {
				t.Fatalf("pixel %d channel %d: %d, want %d", k, j, v, 4*k+j)
			}
		}
	}
	if v := at(0, 0, 0, 4); v != 4 { // untouched
		t.Fatalf("untouched element is %d", v)
	}
	tile := `	setp.ne.u32 %p1, %r1, 0;
	@%p1 ret;
	mbarrier.init.shared.b64 [bar], 1;
	mov.u32 %r2, 0;
	cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [buf], [%rd2, {%r2, %r2, %r2, %r2}], [bar];
`
	for _, sched := range bothScheds {
		m := tmaLaunch{src: tmaKernel(tile), block: 32, words: 1, tensor: im2colTensor(), tmap: im2colMap(8)}.machine(t, sched)
		if r := m.Run(t.Context()); r != StopFault || !strings.Contains(m.Fault().Message, "im2col mode but the copy is in tile mode") {
			t.Fatalf("%s: %v %v", sched, r, m.Fault())
		}
	}
}
