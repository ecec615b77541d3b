package launch

import (
	"strings"
	"testing"
)

// dynSharedKernel: each thread stores its index into word tid of the
// extern .shared array after 64 bytes of static shared memory, then reads
// it back into out[tid].
const dynSharedKernel = launchHeader + `
.extern .shared .align 16 .b8 dyn[];
.visible .entry k(.param .u64 out) {
	.shared .align 16 .b8 fixed[64];
	.reg .u32 %r<4>; .reg .u64 %rd<4>;
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, dyn;
	shl.b32 %r3, %r1, 2;
	add.u32 %r2, %r2, %r3;
	st.shared.u32 [%r2], %r1;
	ld.shared.u32 %r3, [%r2];
	mul.wide.u32 %rd2, %r1, 4;
	add.u64 %rd3, %rd1, %rd2;
	st.global.u32 [%rd3], %r3;
	st.shared.u32 [fixed], %r1;
	ret;
}
`

// A kernel that uses dynamic shared memory, launched with too little: the
// fault says so, names the launch field (dynamicSharedBytes), how many
// bytes the access needs and what an inferred launch gives; with enough,
// the kernel runs.
func TestDynamicSharedTooSmallFault(t *testing.T) {
	res := runLaunchTest(t, dynSharedKernel, `{"source": "-", "block": [8], "dynamicSharedBytes": 16,
		"buffers": [{"name": "out", "type": "u32", "count": 8}], "params": [{"buffer": "out"}]}`)
	if res.Status != StatusFault {
		t.Fatalf("status %s", res.Status)
	}
	f := res.Fault
	want := "4-byte access to shared address 0x50 is past the 16 bytes of dynamic shared memory the launch gives: the extern .shared array dyn needs at least 20 bytes for this access; set the launch's dynamicSharedBytes (an inferred launch gives 49152 bytes)"
	if f.Kind != "out-of-bounds" || f.Message != want || f.Line != 14 {
		t.Errorf("fault %+v\nwant message %q", f, want)
	}
	res = runLaunchTest(t, dynSharedKernel, `{"source": "-", "block": [8], "dynamicSharedBytes": 32,
		"buffers": [{"name": "out", "type": "u32", "count": 8}], "params": [{"buffer": "out"}]}`)
	if res.Status != StatusOK {
		t.Fatalf("with 32 bytes: status %s %+v", res.Status, res.Fault)
	}
	// A kernel without an extern .shared array keeps the plain message.
	noDyn := strings.Replace(strings.Replace(dynSharedKernel, ".extern .shared .align 16 .b8 dyn[];\n", "", 1),
		"mov.u32 %r2, dyn;", "mov.u32 %r2, fixed;\n\tadd.u32 %r2, %r2, 60;", 1)
	res = runLaunchTest(t, noDyn, `{"source": "-", "block": [8],
		"buffers": [{"name": "out", "type": "u32", "count": 8}], "params": [{"buffer": "out"}]}`)
	if res.Status != StatusFault || res.Fault.Message != "4-byte access to shared address 0x40 is outside its 64 bytes" {
		t.Errorf("status %s %+v", res.Status, res.Fault)
	}
}
