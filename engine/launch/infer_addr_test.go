package launch

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A pointer that reaches memory only through the address operand of an
// instruction other than ld/st/atom (wmma.load, wmma.store, prefetch, a
// generic-space wmma) is a pointer, typed by the instruction where it has
// an element type: every memory operand is recorded where it is bound
// (emu.Program.MemOperands), whatever the instruction.
func TestInferAddressOperands(t *testing.T) {
	src := launchHeader + `
.visible .entry k(.param .u64 a, .param .u64 c, .param .u64 d, .param .u64 pf) {
	.reg .b32 %r<8>; .reg .f32 %f<8>; .reg .u64 %rd<5>;
	ld.param.u64 %rd1, [a];
	ld.param.u64 %rd2, [c];
	ld.param.u64 %rd3, [d];
	ld.param.u64 %rd4, [pf];
	prefetch.global.L2 [%rd4];
	wmma.load.a.sync.aligned.row.m16n16k16.global.f16 {%r0,%r1,%r2,%r3,%r4,%r5,%r6,%r7}, [%rd1], 16;
	wmma.load.c.sync.aligned.row.m16n16k16.f32 {%f0,%f1,%f2,%f3,%f4,%f5,%f6,%f7}, [%rd2], 16;
	wmma.mma.sync.aligned.row.col.m16n16k16.f32.f32 {%f0,%f1,%f2,%f3,%f4,%f5,%f6,%f7}, {%r0,%r1,%r2,%r3,%r4,%r5,%r6,%r7}, {%r0,%r1,%r2,%r3,%r4,%r5,%r6,%r7}, {%f0,%f1,%f2,%f3,%f4,%f5,%f6,%f7};
	wmma.store.d.sync.aligned.row.m16n16k16.global.f32 [%rd3], {%f0,%f1,%f2,%f3,%f4,%f5,%f6,%f7}, 16;
	ret;
}
`
	p := compileLaunchTest(t, src)
	want := `{"name":"k","params":[` +
		`{"name":"a","type":"u64","size":8,"role":"pointer","elemType":"f16","access":"read"},` +
		`{"name":"c","type":"u64","size":8,"role":"pointer","elemType":"f32","access":"read"},` +
		`{"name":"d","type":"u64","size":8,"role":"pointer","elemType":"f32","access":"write"},` +
		`{"name":"pf","type":"u64","size":8,"role":"pointer"}]}`
	if got := kernelJSON(t, p, "k"); got != want {
		t.Errorf("Kernels:\n got %s\nwant %s", got, want)
	}
	s, notes, err := Infer(p, nil, "")
	if err != nil {
		t.Fatal(err)
	}
	for i, name := range []string{"a", "c", "d", "pf"} {
		if s.Params[i].Buffer != name {
			t.Errorf("param %d: %s, want buffer %q\n%s", i, describeSpecParam(s.Params[i]), name, notesText(notes))
		}
	}
}

// The Triton sm_80 GEMM of the shared corpus reaches its inputs only
// through cp.async: they are pointers (read), the output a pointer
// (written), and its extern .shared array gets 48 KiB of dynamic shared
// memory (its accesses reach 24 KiB: two stages of a 32x32 and a 64x32
// f32 tile).
func TestInferTritonGEMM(t *testing.T) {
	path := filepath.Join("..", "..", "..", "shared", "corpus", "ptx-ir", "linear.ptx")
	text, err := os.ReadFile(path)
	if err != nil {
		t.Skipf("shared corpus absent: %v", err)
	}
	p := compileLaunchTest(t, string(text))
	s, notes, err := Infer(p, nil, "")
	if err != nil {
		t.Fatal(err)
	}
	all := notesText(notes)
	if s.DynamicSharedBytes != 49152 {
		t.Errorf("dynamicSharedBytes %d\n%s", s.DynamicSharedBytes, all)
	}
	for i, want := range []string{"in0", "in1", "out"} {
		if s.Params[i].Buffer != want {
			t.Errorf("param %d: %s, want buffer %q\n%s", i, describeSpecParam(s.Params[i]), want, all)
		}
	}
	if !strings.Contains(all, `param 0 "linear_kernel_param_0": pointer (the kernel loads through it`) {
		t.Errorf("notes:\n%s", all)
	}
}

// A kernel that reaches its buffers only through wmma.load and
// wmma.store: init gives each buffer the 16x16 fragment the access spans
// at its immediate stride (256 elements, more than the 64 threads), and
// the inferred launch runs.
func TestInferWmmaRuns(t *testing.T) {
	src := launchHeader + `
.visible .entry k(.param .u64 a, .param .u64 c) {
	.reg .b32 %r<8>; .reg .f32 %f<8>; .reg .u64 %rd<3>;
	ld.param.u64 %rd1, [a];
	ld.param.u64 %rd2, [c];
	wmma.load.a.sync.aligned.row.m16n16k16.global.f16 {%r0,%r1,%r2,%r3,%r4,%r5,%r6,%r7}, [%rd1], 16;
	wmma.load.c.sync.aligned.col.m16n16k16.global.f32 {%f0,%f1,%f2,%f3,%f4,%f5,%f6,%f7}, [%rd2];
	wmma.mma.sync.aligned.row.col.m16n16k16.f32.f32 {%f0,%f1,%f2,%f3,%f4,%f5,%f6,%f7}, {%r0,%r1,%r2,%r3,%r4,%r5,%r6,%r7}, {%r0,%r1,%r2,%r3,%r4,%r5,%r6,%r7}, {%f0,%f1,%f2,%f3,%f4,%f5,%f6,%f7};
	wmma.store.d.sync.aligned.row.m16n16k16.global.f32 [%rd2], {%f0,%f1,%f2,%f3,%f4,%f5,%f6,%f7}, 16;
	ret;
}
`
	p := compileLaunchTest(t, src)
	s, notes, res := inferAndRun(t, p, nil, "")
	want := `{"version":1,"entry":"k","grid":[1,1,1],"block":[64,1,1],"buffers":[` +
		`{"name":"a","type":"f16","count":256,"init":{"iota":{"start":0,"step":1}}},` +
		`{"name":"c","type":"f32","count":256}],"params":[{"buffer":"a"},{"buffer":"c"}]}`
	if got := specJSON(t, s); got != want {
		t.Errorf("spec:\n got %s\nwant %s\n%s", got, want, notesText(notes))
	}
	if res.Status != StatusOK {
		t.Errorf("status %s %+v", res.Status, res.Fault)
	}
}
