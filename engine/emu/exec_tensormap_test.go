package emu

import (
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/ptxplayground/ptxplay/engine/isa"
	"github.com/ptxplayground/ptxplay/engine/ptx"
)

const tmHead = `.version 8.3
.target sm_90a
.address_size 64
`

// tmRun runs kernel k (parameter out: an allocation of n bytes whose
// first bytes are init) with one CTA of threads threads in both
// scheduling models, batched, unbatched and stepped, checks that they
// agree, and returns the stop reason, the fault and the bytes of out.
func tmRun(t *testing.T, src string, threads, n int, init []byte) (StopReason, *Fault, []byte) {
	t.Helper()
	var first []byte
	var fr StopReason
	var ff *Fault
	for _, sched := range bothScheds {
		mk := func() (*Machine, *Alloc) {
			s := ptx.NewSource("k.ptx", []byte(src))
			prog, diags := CompileSource(s)
			if prog == nil {
				t.Fatalf("compile:\n%s\n%s", ptx.FormatAll(s, diags), ixNumbered(src))
			}
			m, err := NewMachine(prog, "k", Config{Block: [3]int{threads, 1, 1}, Scheduling: sched})
			if err != nil {
				t.Fatal(err)
			}
			a := m.Global.Alloc("out", n, 256)
			copy(a.Data, init)
			binary.LittleEndian.PutUint64(m.Params(), a.Base)
			return m, a
		}
		a, outA := mk()
		b, _ := mk()
		c, _ := mk()
		b.SetBatchedDispatch(false)
		ra, rb := a.Run(context.Background()), b.Run(context.Background())
		rc := StopStepped
		for k := 0; rc == StopStepped && k < 1e6; k++ {
			rc = c.Step(StepWarpInstruction)
		}
		if ra != rb || ra != rc {
			t.Fatalf("%s: batched run stopped with %v, unbatched with %v, stepped with %v (%v)", sched, ra, rb, rc, b.Fault())
		}
		if d := a.DiffState(b); d != "" {
			t.Fatalf("%s: batched and unbatched runs differ: %s", sched, d)
		}
		if d := a.DiffState(c); d != "" {
			t.Fatalf("%s: run and stepping differ: %s", sched, d)
		}
		out := append([]byte(nil), outA.Data...)
		if first == nil {
			first, fr, ff = out, ra, a.Fault()
		} else if string(out) != string(first) || ra != fr || fmt.Sprint(a.Fault()) != fmt.Sprint(ff) {
			t.Fatalf("the scheduling models disagree: %v %v vs %v %v", fr, ff, ra, a.Fault())
		}
	}
	return fr, ff, first
}

// Triton's way: the warp zeroes a 128-byte map in shared memory, one
// elected lane replaces every field, the warp copies it to global memory
// with tensormap.cp_fenceproxy and acquires it with
// fence.proxy.tensormap::generic. The host decodes exactly the fields
// that were replaced, and the map is valid.
func TestTensormapBuiltInSharedCopiedToGlobal(t *testing.T) {
	src := tmHead + `.visible .entry k(.param .u64 out) {
	.shared .align 128 .b8 smap[128];
	.reg .b32 %r<10>; .reg .b64 %rd<6>; .reg .pred %p<2>;
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, %tid.x;
	shl.b32 %r2, %r1, 2;
	mov.u32 %r3, smap;
	add.u32 %r4, %r3, %r2;
	mov.b32 %r5, 0xdeadbeef;
	st.shared.b32 [%r4], %r5;
	mov.b32 %r5, 0;
	st.shared.b32 [%r4], %r5;
	bar.warp.sync -1;
	elect.sync %r6|%p1, -1;
	add.u64 %rd2, %rd1, 256;
	mov.b32 %r7, 64;
	mov.b32 %r8, 8;
	mov.b64 %rd3, 128;
	@%p1 tensormap.replace.tile.global_address.shared::cta.b1024.b64 [smap], %rd2;
	@%p1 tensormap.replace.tile.rank.shared::cta.b1024.b32 [smap], 1;
	@%p1 tensormap.replace.tile.box_dim.shared::cta.b1024.b32 [smap], 0, %r7;
	@%p1 tensormap.replace.tile.box_dim.shared::cta.b1024.b32 [smap], 1, %r8;
	@%p1 tensormap.replace.tile.global_dim.shared::cta.b1024.b32 [smap], 0, %r7;
	@%p1 tensormap.replace.tile.global_dim.shared::cta.b1024.b32 [smap], 1, 96;
	@%p1 tensormap.replace.tile.global_stride.shared::cta.b1024.b64 [smap], 0, %rd3;
	@%p1 tensormap.replace.tile.element_stride.shared::cta.b1024.b32 [smap], 0, 1;
	@%p1 tensormap.replace.tile.element_stride.shared::cta.b1024.b32 [smap], 1, 2;
	@%p1 tensormap.replace.tile.elemtype.shared::cta.b1024.b32 [smap], 6;
	@%p1 tensormap.replace.tile.interleave_layout.shared::cta.b1024.b32 [smap], 0;
	@%p1 tensormap.replace.tile.swizzle_mode.shared::cta.b1024.b32 [smap], 3;
	@%p1 tensormap.replace.tile.swizzle_atomicity.shared::cta.b1024.b32 [smap], 0;
	@%p1 tensormap.replace.tile.fill_mode.shared::cta.b1024.b32 [smap], 1;
	bar.warp.sync -1;
	tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned [%rd1], [smap], 128;
	fence.proxy.tensormap::generic.acquire.gpu [%rd1], 128;
	ret;
}`
	r, f, out := tmRun(t, src, 32, 512, nil)
	if r != StopDone {
		t.Fatal(r, f)
	}
	got, err := isa.DecodeTensorMap(out[:128])
	if err != nil {
		t.Fatal(err)
	}
	// The out allocation's base is where the map is; the tensor is 256
	// bytes past it.
	want := isa.TensorMap{
		GlobalAddress: got.GlobalAddress, Rank: 2,
		GlobalDim: [5]uint64{64, 96}, GlobalStrides: [4]uint64{128},
		BoxDim: [5]uint32{64, 8}, ElementStrides: [5]uint32{1, 2},
		ElemType: isa.TensorF16, SwizzleMode: isa.TMSwizzle128B, FillNaN: true,
	}
	if got != want {
		t.Fatalf("decoded %+v\nwant    %+v", got, want)
	}
	if got.GlobalAddress%256 != 0 || got.GlobalAddress == 256 || got.GlobalAddress == 0 {
		t.Errorf("global address %#x is not the allocation's base + 256", got.GlobalAddress)
	}
	if err := got.Validate(); err != nil {
		t.Errorf("the built map is invalid: %v", err)
	}
	for i, b := range out[128:] {
		if b != 0 {
			t.Fatalf("byte %d past the map written", 128+i)
		}
	}
}

// A map in global memory replaced in place, field by field (every
// ordinal of every field), by four lanes that each own a map: each map
// decodes to its lane's values, and every field differs from the map the
// host wrote, so each replace is seen.
func TestTensormapReplacedInPlaceInGlobal(t *testing.T) {
	old := isa.TensorMap{GlobalAddress: 0x1000, Rank: 3, GlobalDim: [5]uint64{10, 20, 30},
		GlobalStrides: [4]uint64{16, 32}, BoxDim: [5]uint32{1, 2, 3}, ElementStrides: [5]uint32{1, 1, 1}}
	init := make([]byte, 4*128)
	for i := range 4 {
		e := old.Encode()
		copy(init[128*i:], e[:])
	}
	var body strings.Builder
	w := func(format string, a ...any) { fmt.Fprintf(&body, "\t"+format+"\n", a...) }
	// %r1 = lane, %rd1 = its map (out + 128*lane)
	w("@%%p1 tensormap.replace.tile.global_address.global.b1024.b64 [%%rd1], %%rd2;")
	w("@%%p1 tensormap.replace.tile.rank.global.b1024.b32 [%%rd1], 4;")
	for o := range 5 {
		w("add.u32 %%r3, %%r2, %d;", 1+o)
		w("@%%p1 tensormap.replace.tile.box_dim.global.b1024.b32 [%%rd1], %d, %%r3;", o)
		w("add.u32 %%r3, %%r2, %d;", 100+o)
		w("@%%p1 tensormap.replace.tile.global_dim.global.b1024.b32 [%%rd1], %d, %%r3;", o)
		w("add.u32 %%r3, %%r1, %d;", 2+o)
		w("@%%p1 tensormap.replace.tile.element_stride.global.b1024.b32 [%%rd1], %d, %%r3;", o)
	}
	for o := range 4 {
		w("add.u64 %%rd3, %%rd4, %d;", 4096*(o+1))
		w("@%%p1 tensormap.replace.tile.global_stride.global.b1024.b64 [%%rd1], %d, %%rd3;", o)
	}
	w("@%%p1 tensormap.replace.tile.elemtype.global.b1024.b32 [%%rd1], 12;")
	w("@%%p1 tensormap.replace.tile.interleave_layout.global.b1024.b32 [%%rd1], 2;")
	w("@%%p1 tensormap.replace.tile.swizzle_mode.global.b1024.b32 [%%rd1], 4;")
	w("@%%p1 tensormap.replace.tile.swizzle_atomicity.global.b1024.b32 [%%rd1], 3;")
	w("@%%p1 tensormap.replace.tile.fill_mode.global.b1024.b32 [%%rd1], 1;")
	src := tmHead + `.visible .entry k(.param .u64 out) {
	.reg .b32 %r<6>; .reg .b64 %rd<6>; .reg .pred %p<2>;
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, %tid.x;
	setp.lt.u32 %p1, %r1, 4;
	mul.wide.u32 %rd2, %r1, 128;
	add.u64 %rd1, %rd1, %rd2;
	mul.wide.u32 %rd2, %r1, 0x10000;
	add.u64 %rd2, %rd2, 0x20000;
	mul.lo.u32 %r2, %r1, 10;
	mul.wide.u32 %rd4, %r1, 16;
` + body.String() + `	ret;
}`
	r, f, out := tmRun(t, src, 32, 4*128, init)
	if r != StopDone {
		t.Fatal(r, f)
	}
	for l := range 4 {
		got, err := isa.DecodeTensorMap(out[128*l : 128*l+128])
		if err != nil {
			t.Fatal(err)
		}
		want := isa.TensorMap{GlobalAddress: uint64(0x20000 + 0x10000*l), Rank: 5,
			ElemType: isa.TensorTF32FTZ, Interleave: isa.Interleave32B, SwizzleMode: isa.TMSwizzle96B,
			SwizzleAtom: isa.Atom64B, FillNaN: true}
		for o := range 5 {
			want.BoxDim[o] = uint32(10*l + 1 + o)
			want.GlobalDim[o] = uint64(10*l + 100 + o)
			want.ElementStrides[o] = uint32(l + 2 + o)
		}
		for o := range 4 {
			want.GlobalStrides[o] = uint64(16*l + 4096*(o+1))
		}
		if got != want {
			t.Errorf("lane %d: decoded %+v\nwant %+v", l, got, want)
		}
	}
}

// An ordinal or immediate value outside a field's range, a field3 value
// in a register and the wrong .type are compile errors naming the field;
// a register value outside the range, a misaligned map, a map outside
// .global/.shared::cta and a divergent tensormap.cp_fenceproxy fault,
// naming the field, the value or the address, and change no map.
func TestTensormapInvalidForms(t *testing.T) {
	compileErrs := []struct{ ins, want string }{
		{"tensormap.replace.tile.box_dim.shared::cta.b1024.b32 [smap], 5, %r7;", "tensormap.replace.box_dim: ordinal 5 is out of range 0..4"},
		{"tensormap.replace.tile.global_stride.shared::cta.b1024.b64 [smap], 4, %rd3;", "tensormap.replace.global_stride: ordinal 4 is out of range 0..3"},
		{"tensormap.replace.tile.swizzle_mode.shared::cta.b1024.b32 [smap], 5;", "tensormap.replace.swizzle_mode: value 5 is out of range 0..4"},
		{"tensormap.replace.tile.rank.shared::cta.b1024.b32 [smap], 5;", "tensormap.replace.rank: value 5 is out of range 0..4"},
		{"tensormap.replace.tile.fill_mode.global.b1024.b32 [%rd1], 2;", "tensormap.replace.fill_mode: value 2 is out of range 0..1"},
		{"tensormap.replace.tile.elemtype.shared::cta.b1024.b32 [smap], %r7;", "the new value of .elemtype must be an immediate"},
		{"tensormap.replace.tile.global_address.shared::cta.b1024.b32 [smap], %r7;", ".global_address takes .b64, not .b32"},
		{"tensormap.replace.tile.shared::cta.b1024.b32 [smap], %r7;", "needs a field"},
		{"tensormap.replace.tile.rank.shared::cluster.b1024.b32 [smap], 1;", "not .shared::cluster"},
		{"tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu [%rd1], [smap], 128;", "the form is tensormap.cp_fenceproxy"},
		{"tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned [%rd1], [smap], 64;", "size must be 128"},
	}
	head := tmHead + `.visible .entry k(.param .u64 out) {
	.shared .align 128 .b8 smap[256];
	.reg .b32 %r<10>; .reg .b64 %rd<6>; .reg .pred %p<2>;
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, %tid.x;
	mov.b32 %r7, 300;
	mov.b64 %rd3, 128;
	mov.u64 %rd4, smap;
	cvta.shared.u64 %rd4, %rd4;
	mov.u32 %r2, smap;
	setp.eq.u32 %p1, %r1, 0;
`
	for _, c := range compileErrs {
		src := head + "\t" + c.ins + "\n\tret;\n}"
		s := ptx.NewSource("k.ptx", []byte(src))
		prog, diags := CompileSource(s)
		if prog != nil || !strings.Contains(ptx.FormatAll(s, diags), c.want) {
			t.Errorf("%s: compiled %v, diagnostics\n%s\nwant %q", c.ins, prog != nil, ptx.FormatAll(s, diags), c.want)
		}
	}
	faults := []struct {
		ins  string
		kind FaultKind
		want string
	}{
		{"tensormap.replace.tile.element_stride.global.b1024.b32 [%rd1], 2, %r7;", FaultIllegal, "tensormap.replace.element_stride: value 300 is out of range 0..255"},
		{"mov.b32 %r8, 5;\n\ttensormap.replace.tile.rank.shared::cta.b1024.b32 [smap], %r8;", FaultIllegal, "tensormap.replace.rank: value 5 is out of range 0..4"},
		{"tensormap.replace.tile.box_dim.shared::cta.b1024.b32 [smap+64], 0, %r7;", FaultMisaligned, "tensormap.replace.box_dim: the tensor map at shared address 0x40 of lane 0 is not 128-byte aligned"},
		{"tensormap.replace.tile.box_dim.global.b1024.b32 [%rd1+16], 1, %r7;", FaultMisaligned, "tensormap.replace.box_dim: the tensor map at global address"},
		{"tensormap.replace.tile.box_dim.b1024.b32 [%rd4+32], 1, %r7;", FaultMisaligned, "tensormap.replace.box_dim: the tensor map at shared address 0x20"},
		{"mov.u64 %rd5, 0;\n\tcvta.local.u64 %rd5, %rd5;\n\ttensormap.replace.tile.rank.b1024.b32 [%rd5], 1;", FaultIllegal, "tensormap.replace.rank: generic address"},
		{"tensormap.replace.tile.global_dim.global.b1024.b32 [%rd1+4096], 0, %r7;", FaultOutOfBounds, "tensormap.replace.global_dim: 128-byte access to global address"},
		{"tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.sys.sync.aligned [%rd1+64], [smap], 128;", FaultMisaligned, "tensormap.cp_fenceproxy: the tensor map at global address"},
		{"tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.cta.sync.aligned [%rd1], [smap+16], 128;", FaultMisaligned, "tensormap.cp_fenceproxy: the tensor map at shared address 0x10"},
		{"@%p1 tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.cluster.sync.aligned [%rd1], [smap], 128;", "", "every lane of the warp must execute it together"},
	}
	for _, c := range faults {
		// The map's bytes are 0xaa: a fault leaves them as they were.
		init := make([]byte, 1024)
		for i := range init {
			init[i] = 0xaa
		}
		src := head + "\t" + c.ins + "\n\tret;\n}"
		r, f, out := tmRun(t, src, 32, 1024, init)
		if r != StopFault || f == nil || !strings.Contains(f.Message, c.want) || c.kind != "" && f.Kind != c.kind {
			t.Errorf("%s: stop %v fault %v, want %s %q", c.ins, r, f, c.kind, c.want)
			continue
		}
		for i, b := range out {
			if b != 0xaa {
				t.Errorf("%s: byte %d changed to %#x by a faulting instruction", c.ins, i, b)
				break
			}
		}
	}
}

// Every form of tensormap.replace, tensormap.cp_fenceproxy and
// fence.proxy.tensormap::generic compiles with no diagnostic (ptxplay
// check reports nothing "not supported") and runs.
func TestTensormapEveryFormChecks(t *testing.T) {
	text, err := os.ReadFile("testdata/tensormap.ptx")
	if err != nil {
		t.Fatal(err)
	}
	s := ptx.NewSource("tensormap.ptx", text)
	prog, diags := CompileSource(s)
	if prog == nil || len(diags) != 0 {
		t.Fatalf("diagnostics:\n%s", ptx.FormatAll(s, diags))
	}
	forms := map[string]int{}
	for _, line := range strings.Split(string(text), "\n") {
		if f := strings.Fields(line); len(f) > 0 && (strings.HasPrefix(f[0], "tensormap.") || strings.HasPrefix(f[0], "fence.proxy.tensormap")) {
			forms[f[0]]++
		}
	}
	if len(forms) != 3*11+4+8 {
		t.Fatalf("%d forms in the file, want %d", len(forms), 3*11+4+8)
	}
	src := strings.Replace(string(text), ".entry tensormaps", ".entry k", 1)
	r, f, out := tmRun(t, src, 32, 512, nil)
	if r != StopDone {
		t.Fatal(r, f)
	}
	// The generic replaces went to smap, copied to out last.
	m, err := isa.DecodeTensorMap(out[:128])
	if err != nil || m.Rank != 2 || m.BoxDim[0] != 64 || m.GlobalDim[1] != 64 || m.GlobalStrides[0] != 128 || m.SwizzleMode != isa.TMSwizzle128B || !m.FillNaN || m.ElemType != isa.TensorF16 {
		t.Errorf("map %+v, %v", m, err)
	}
}
