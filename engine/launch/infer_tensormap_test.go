package launch

import (
	"context"
	"encoding/json"
	"math"
	"strings"
	"testing"
)

const tmaHeader = `.version 8.0
.target sm_90a
.address_size 64
`

// inferTMATile loads one 16x16 f32 tile through a tensor map passed by
// value (its address taken as nvcc does: mov + cvta.param) and stores it
// out, one element per thread.
const inferTMATile = tmaHeader + `
.visible .entry tile(.param .align 64 .b8 tile_param_0[128], .param .u64 tile_param_1) .reqntid 256
{
	.reg .pred %p<3>;
	.reg .b32 %r<10>;
	.reg .f32 %f<2>;
	.reg .b64 %rd<10>;
	.shared .align 128 .b8 buf[1024];
	.shared .align 8 .b64 bar;
	mov.b64 %rd1, tile_param_0;
	cvta.param.u64 %rd2, %rd1;
	ld.param.u64 %rd3, [tile_param_1];
	cvta.to.global.u64 %rd4, %rd3;
	mov.u32 %r1, %tid.x;
	setp.ne.u32 %p1, %r1, 0;
	@%p1 bra SYNC;
	mbarrier.init.shared.b64 [bar], 1;
	fence.mbarrier_init.release.cluster;
	mov.u32 %r2, 0;
	mbarrier.arrive.expect_tx.shared.b64 %rd5, [bar], 1024;
	cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [buf], [%rd2, {%r2, %r2}], [bar];
SYNC:
	bar.sync 0;
WAIT:
	mbarrier.try_wait.parity.shared.b64 %p2, [bar], 0;
	@!%p2 bra WAIT;
	mov.u32 %r3, buf;
	shl.b32 %r4, %r1, 2;
	add.s32 %r5, %r3, %r4;
	ld.shared.f32 %f1, [%r5];
	mul.wide.u32 %rd6, %r1, 4;
	add.s64 %rd7, %rd4, %rd6;
	st.global.f32 [%rd7], %f1;
	ret;
}
`

// inferTMATriton is shaped as Triton writes it: the map's address in a
// .u64 parameter, the tile in dynamic shared memory, the mbarrier's
// address computed again for the copy (so the expect_tx's operand is not
// the copy's), 32-bit bit-size accesses.
const inferTMATriton = tmaHeader + `
.extern .shared .align 16 .b8 global_smem[];
.visible .entry triton_(.param .u64 .ptr .global .align 1 triton__param_0, .param .u64 .ptr .global .align 1 triton__param_1) .reqntid 128
{
	.reg .pred %p<4>;
	.reg .b32 %r<20>;
	.reg .b64 %rd<10>;
	ld.param.u64 %rd1, [triton__param_0];
	ld.param.u64 %rd2, [triton__param_1];
	mov.u32 %r1, %tid.x;
	mov.u32 %r10, global_smem;
	add.s32 %r11, %r10, 4096;
	setp.eq.s32 %p1, %r1, 0;
	@%p1 mbarrier.init.shared::cta.b64 [%r11], 1;
	bar.sync 0;
	mov.u32 %r3, 0;
	@%p1 mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r11], 4096;
	add.s32 %r12, %r10, 4096;
	@%p1 cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%r10], [%rd1, {%r3, %r3}], [%r12];
WAIT:
	mbarrier.try_wait.parity.shared::cta.b64 %p2, [%r11], 0;
	@!%p2 bra WAIT;
	shl.b32 %r4, %r1, 2;
	add.s32 %r5, %r10, %r4;
	ld.shared.b32 %r6, [%r5];
	mul.wide.s32 %rd3, %r1, 4;
	add.s64 %rd4, %rd2, %rd3;
	st.global.b32 [%rd4], %r6;
	ret;
}
`

// Infer gives a parameter used as a tensor map a map of a new buffer of
// one box, with the rank of the copy, the box from the expect_tx bytes and
// notes for the guesses; the spec runs and the tile comes out.
func TestInferTensorMap(t *testing.T) {
	cases := []struct {
		name, src  string
		buf, dt    string
		dims, box  string
		strides    string
		notes      []string
		outElems   int
		outBuffer  string
		paramBytes int
	}{
		{name: "by value", src: inferTMATile, buf: "tensor", dt: "f32", dims: "[16,16]", box: "[16,16]", strides: "[64]",
			notes: []string{"cp.async.bulk.tensor at line", "passed by value", "dataType f32 guessed from the kernel's shared-memory accesses",
				"box [16 16]: 1024 bytes from the expect_tx of 1024 bytes at line", "the shape is a guess"},
			outElems: 256, outBuffer: "out"},
		{name: "triton .u64", src: inferTMATriton, buf: "tensor", dt: "u32", dims: "[32,32]", box: "[32,32]", strides: "[128]",
			notes: []string{"its address passed", "dataType u32 guessed", "box [32 32]: 4096 bytes from the kernel's expect_tx of 4096 bytes",
				"could not be matched"},
			outElems: 128, outBuffer: "out"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			prog := compileLaunchTest(t, c.src)
			s, notes, err := Infer(prog, nil, "")
			if err != nil {
				t.Fatal(err)
			}
			all := strings.Join(noteTexts(notes), "\n")
			tm := s.Params[0].TensorMap
			if tm == nil {
				t.Fatalf("param 0 is not a tensor map: %+v\nnotes:\n%s", s.Params[0], all)
			}
			js, _ := json.Marshal(tm)
			for _, want := range []string{`"buffer":"` + c.buf + `"`, `"dataType":"` + c.dt + `"`, `"globalDim":` + c.dims, `"boxDim":` + c.box, `"globalStrides":` + c.strides} {
				if !strings.Contains(string(js), want) {
					t.Errorf("tensor map %s lacks %s", js, want)
				}
			}
			for _, want := range c.notes {
				if !strings.Contains(all, want) {
					t.Errorf("notes lack %q:\n%s", want, all)
				}
			}
			if s.Params[1].Buffer != c.outBuffer {
				t.Errorf("param 1: %+v, want buffer %q", s.Params[1], c.outBuffer)
			}
			if ms := Check(prog, s); len(ms) != 0 {
				t.Fatalf("the inferred spec does not fit: %v", ms)
			}
			if again, n, _ := Infer(prog, s, ""); again != s || len(n) != 0 {
				t.Errorf("a second Infer changed the spec: %v", n)
			}
			l, err := Prepare(prog, s)
			if err != nil {
				t.Fatalf("prepare: %v", err)
			}
			r, err := l.Run(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if r.Status != StatusOK {
				t.Fatalf("status %s: %s %+v", r.Status, r.Message, r.Fault)
			}
			out := r.Buffer(c.outBuffer)
			if out == nil || out.Len() < c.outElems {
				t.Fatalf("no output buffer %q", c.outBuffer)
			}
			for i := 0; i < c.outElems; i++ {
				got := out.Bits(i)
				want := uint64(i)
				if c.dt == "f32" {
					want = uint64(math.Float32bits(float32(i)))
				}
				if got != want {
					t.Fatalf("out[%d] = %#x, want %#x (the tile's element %d)", i, got, want, i)
				}
			}
		})
	}
}

// A kernel that only stores through its map (no expect_tx) gets the
// default box and type, each with a note; one whose map is named in the
// operand directly is found too.
func TestInferTensorMapDefaults(t *testing.T) {
	src := tmaHeader + `
.visible .entry st(.param .align 64 .b8 m[128])
{
	.reg .b32 %r<4>;
	.shared .align 128 .b8 buf[1024];
	mov.u32 %r1, 0;
	fence.proxy.async.shared::cta;
	cp.async.bulk.tensor.3d.global.shared::cta.tile.bulk_group [m, {%r1, %r1, %r1}], [buf];
	cp.async.bulk.commit_group;
	cp.async.bulk.wait_group 0;
	ret;
}
`
	prog := compileLaunchTest(t, src)
	s, notes, err := Infer(prog, nil, "")
	if err != nil {
		t.Fatal(err)
	}
	all := strings.Join(noteTexts(notes), "\n")
	tm := s.Params[0].TensorMap
	if tm == nil || tm.DataType != TensorMapDefaultType || len(tm.BoxDim) != 3 || tm.BoxDim[0] != 64 || tm.BoxDim[1] != 8 || tm.BoxDim[2] != 1 {
		t.Fatalf("param 0: %+v\n%s", s.Params[0], all)
	}
	for _, want := range []string{"dataType f16 is a default", "box [64 8 1] is a default", "m"} {
		if !strings.Contains(all, want) {
			t.Errorf("notes lack %q:\n%s", want, all)
		}
	}
	if s.Buffers[0].Init != nil || s.Buffers[0].Name != "m" || s.Buffers[0].Count != 64*8 {
		t.Errorf("buffer %+v: a stored tensor of one box starts zeroed", s.Buffers[0])
	}
	l, err := Prepare(prog, s)
	if err != nil {
		t.Fatal(err)
	}
	if r, err := l.Run(context.Background()); err != nil || r.Status != StatusOK {
		t.Fatalf("run: %v %+v", err, r)
	}
}

func noteTexts(ns []Note) []string {
	out := make([]string, len(ns))
	for i, n := range ns {
		out[i] = n.Text
	}
	return out
}
