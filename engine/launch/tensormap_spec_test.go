package launch

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/ptxplayground/ptxplay/engine/isa"
	"github.com/ptxplayground/ptxplay/engine/launchspec"
)

const tensorMapKernel = `
.version 8.0
.target sm_90a
.address_size 64
.visible .entry k(.param .align 64 .b8 tmap[128], .param .u64 tmptr, .param .u32 n)
{
	ret;
}
`

func tensorMapSpec(t *testing.T, tm string) *Spec {
	t.Helper()
	js := `{"source":"k","grid":[1],"block":[32],"buffers":[{"name":"a","type":"f16","count":4096}],
	"params":[{"tensorMap":` + tm + `},{"tensorMap":` + tm + `},{"u32":1}]}`
	s, err := ParseSpec([]byte(js))
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	return s
}

// A tensor map binds by value to a 128-byte parameter and, for a .u64
// parameter, is placed in global memory and its address passed; both
// decode to the map the spec describes, at buffer a's address.
func TestTensorMapParamBinds(t *testing.T) {
	prog := compileLaunchTest(t, tensorMapKernel)
	tm := `{"buffer":"a","dataType":"f16","globalDim":[64,64],"globalStrides":[128],"boxDim":[64,8],"elementStrides":[1,1],"interleave":"none","swizzle":"128B","oobFill":"zero"}`
	l, err := Prepare(prog, tensorMapSpec(t, tm))
	if err != nil {
		t.Fatal(err)
	}
	m := l.Machine()
	k := m.Kernel()
	params := m.Params()
	byVal, err := isa.DecodeTensorMap(params[k.Params[0].Offset:])
	if err != nil {
		t.Fatal(err)
	}
	a := l.bufs[0]
	want := isa.TensorMap{GlobalAddress: a.Base, Rank: 2, ElemType: isa.TensorF16,
		GlobalDim: [5]uint64{64, 64}, GlobalStrides: [4]uint64{128}, BoxDim: [5]uint32{64, 8},
		ElementStrides: [5]uint32{1, 1}, SwizzleMode: isa.TMSwizzle128B}
	if byVal != want {
		t.Fatalf("by value: %+v, want %+v", byVal, want)
	}
	addr := getElem(params[k.Params[1].Offset:], 0, 8)
	raw := m.Global.Slice(addr, isa.TensorMapBytes)
	if raw == nil || addr%128 != 0 {
		t.Fatalf("the .u64 parameter holds %#x, not a 128-byte-aligned map in global memory", addr)
	}
	if inGlobal, _ := isa.DecodeTensorMap(raw); inGlobal != want {
		t.Fatalf("in global memory: %+v", inGlobal)
	}
	// The spec survives a JSON round trip.
	b, _ := json.Marshal(tensorMapSpec(t, tm).Params[0])
	if !strings.Contains(string(b), `"tensorMap"`) || !strings.Contains(string(b), `"swizzle":"128B"`) {
		t.Fatalf("marshalled %s", b)
	}
}

// The driver's rules are spec errors naming the field.
func TestTensorMapParamErrors(t *testing.T) {
	prog := compileLaunchTest(t, tensorMapKernel)
	base := `"buffer":"a","dataType":"f16","globalDim":[64,64],"boxDim":[64,8]`
	cases := []struct{ tm, want string }{
		{`{` + base + `,"globalStrides":[120]}`, "tensorMap.globalStrides[0]"},
		{`{` + base + `,"globalStrides":[128],"swizzle":"32B"}`, "tensorMap.boxDim[0]"},
		{`{` + base + `,"globalStrides":[128],"dataType":"f8"}`, "tensorMap.dataType"},
		{`{"buffer":"a","dataType":"f16","globalDim":[64,64],"globalStrides":[128],"boxDim":[64,300]}`, "tensorMap.boxDim[1]"},
		{`{` + base + `,"globalStrides":[128],"elementStrides":[1,9]}`, "tensorMap.elementStrides[1]"},
		{`{` + base + `}`, "tensorMap.globalStrides"},
		{`{` + base + `,"globalStrides":[128],"oobFill":"nan","dataType":"u16"}`, "tensorMap.oobFill"},
		{`{` + base + `,"globalStrides":[128],"offset":8}`, "tensorMap.offset"},
		{`{` + base + `,"globalStrides":[128],"interleave":"16B"}`, "tensorMap.interleave"},
		{`{` + base + `,"globalStrides":[128],"bogus":1}`, "bogus"},
	}
	for _, c := range cases {
		js := `{"source":"k","grid":[1],"block":[32],"buffers":[{"name":"a","type":"f16","count":4096}],"params":[{"tensorMap":` + c.tm + `},{"u64":0},{"u32":1}]}`
		_, err := ParseSpec([]byte(js))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an error naming %s", c.tm, err, c.want)
		}
	}
	// A tensor that does not fit its buffer, and a parameter of the wrong size.
	tm := launchspec.TensorMapSpec{Buffer: "a", DataType: "f16", GlobalDim: []uint64{64, 65}, GlobalStrides: []uint64{128}, BoxDim: []uint32{64, 8}}
	s := tensorMapSpec(t, `{"buffer":"a","dataType":"f16","globalDim":[64,64],"globalStrides":[128],"boxDim":[64,8]}`)
	s.Params[0] = launchspec.TensorMapParam(tm)
	s.Buffers[0].Count = 64 * 64
	if _, err := Prepare(prog, s); err == nil || !strings.Contains(err.Error(), "spans") {
		t.Errorf("a tensor past its buffer: %v", err)
	}
	s = tensorMapSpec(t, `{"buffer":"a","dataType":"f16","globalDim":[64,64],"globalStrides":[128],"boxDim":[64,8]}`)
	s.Params[2] = s.Params[0]
	if _, err := Prepare(prog, s); err == nil || !strings.Contains(err.Error(), "this parameter is 4 bytes") {
		t.Errorf("a tensor map on a .u32: %v", err)
	}
	if ms := Check(prog, s); len(ms) == 0 || !ms[0].Blocking {
		t.Errorf("check: %v", ms)
	}
}

// An im2col map ("mode": "im2col") binds with its parameters; its rules
// are spec errors naming the field.
func TestTensorMapParamIm2col(t *testing.T) {
	prog := compileLaunchTest(t, tensorMapKernel)
	tm := `{"buffer":"a","dataType":"f16","mode":"im2col","globalDim":[16,8,8,2],"globalStrides":[32,256,2048],` +
		`"pixelBoxLowerCorner":[-1,-1],"pixelBoxUpperCorner":[-1,-1],"channelsPerPixel":16,"pixelsPerColumn":64,"swizzle":"32B"}`
	l, err := Prepare(prog, tensorMapSpec(t, tm))
	if err != nil {
		t.Fatal(err)
	}
	m := l.Machine()
	got, err := isa.DecodeTensorMap(m.Params()[m.Kernel().Params[0].Offset:])
	if err != nil {
		t.Fatal(err)
	}
	want := isa.TensorMap{Mode: isa.TensorModeIm2col, GlobalAddress: l.bufs[0].Base, Rank: 4, ElemType: isa.TensorF16,
		GlobalDim: [5]uint64{16, 8, 8, 2}, GlobalStrides: [4]uint64{32, 256, 2048}, ElementStrides: [5]uint32{1, 1, 1, 1},
		SwizzleMode: isa.TMSwizzle32B, PixelBoxLower: [3]int16{-1, -1}, PixelBoxUpper: [3]int16{-1, -1},
		ChannelsPerPixel: 16, PixelsPerColumn: 64}
	if got != want {
		t.Fatalf("im2col map %+v, want %+v", got, want)
	}
	base := `"buffer":"a","dataType":"f16","globalDim":[16,8,8,2],"globalStrides":[32,256,2048]`
	corners := `"pixelBoxLowerCorner":[-1,-1],"pixelBoxUpperCorner":[-1,-1]`
	cases := []struct{ tm, want string }{
		{`{` + base + `,"mode":"conv"}`, "tensorMap.mode"},
		{`{` + base + `,"mode":"im2col",` + corners + `,"channelsPerPixel":16,"pixelsPerColumn":64,"boxDim":[16,8,8,2]}`, "tensorMap.boxDim"},
		{`{` + base + `,"mode":"im2col","pixelBoxLowerCorner":[-1],"pixelBoxUpperCorner":[-1,-1],"channelsPerPixel":16,"pixelsPerColumn":64}`, "tensorMap.pixelBoxLowerCorner"},
		{`{` + base + `,"mode":"im2col","pixelBoxLowerCorner":[-1,-200],"pixelBoxUpperCorner":[-1,-1],"channelsPerPixel":16,"pixelsPerColumn":64}`, "tensorMap.pixelBoxLowerCorner[1]"},
		{`{` + base + `,"mode":"im2col","pixelBoxLowerCorner":[5,-1],"pixelBoxUpperCorner":[-5,-1],"channelsPerPixel":16,"pixelsPerColumn":64}`, "tensorMap.pixelBoxUpperCorner[0]"},
		{`{` + base + `,"mode":"im2col",` + corners + `,"channelsPerPixel":4,"pixelsPerColumn":64}`, "tensorMap.channelsPerPixel"},
		{`{` + base + `,"mode":"im2col",` + corners + `,"channelsPerPixel":16,"pixelsPerColumn":70000}`, "tensorMap.pixelsPerColumn"},
		{`{` + base + `,"mode":"im2col",` + corners + `,"channelsPerPixel":64,"pixelsPerColumn":64,"swizzle":"64B"}`, "tensorMap.channelsPerPixel"},
		{`{"buffer":"a","dataType":"f16","mode":"im2col","globalDim":[16,8],"globalStrides":[32],"channelsPerPixel":16,"pixelsPerColumn":64}`, "tensorMap.globalDim"},
		{`{` + base + `,"boxDim":[16,8,8,2],"channelsPerPixel":16}`, "tensorMap.channelsPerPixel"},
	}
	for _, c := range cases {
		js := `{"source":"k","grid":[1],"block":[32],"buffers":[{"name":"a","type":"f16","count":4096}],"params":[{"tensorMap":` + c.tm + `},{"u64":0},{"u32":1}]}`
		if _, err := ParseSpec([]byte(js)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an error naming %s", c.tm, err, c.want)
		}
	}
}
