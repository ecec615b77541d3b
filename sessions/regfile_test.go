package sessions

import (
	"encoding/json"
	"os"
	"testing"
)

// bigRegsPTX declares 8192 registers and uses a few of them.
const bigRegsPTX = hdr + `
.visible .entry big(.param .u64 out) {
	.reg .b32 %r<8192>; .reg .b64 %rd<4>;
	mov.u32 %r1, %tid.x;
	add.u32 %r8191, %r1, 7;
	ld.param.u64 %rd1, [out];
	mul.wide.u32 %rd2, %r1, 4;
	add.u64 %rd3, %rd1, %rd2;
	st.global.u32 [%rd3], %r8191;
	ret;
}`

// Kernels with many declared registers load under the default limits: a
// 1024-thread block declaring 8192 registers, and a Triton matmul (mma,
// ldmatrix) at 128 threads per CTA. Only the registers the kernel uses
// count against the state budget.
func TestLargeRegisterFilesLoad(t *testing.T) {
	c := newClient(t, newManager(t, Limits{}))
	c.load(bigRegsPTX, `{"grid":[4],"block":[1024],"buffers":[{"name":"out","type":"u32","count":4096}],"params":[{"buffer":"out"}]}`)
	if got, lim := stateBytes(c.s.m), DefaultLimits.MaxStateBytes; got > lim/8 {
		t.Fatalf("state %d bytes, limit %d", got, lim)
	} else {
		t.Logf("8192 registers, 4 CTAs of 1024 threads: state %d bytes", got)
	}
	if n := len(c.s.userRegs); n != 8192+4 {
		t.Fatalf("%d user registers listed", n)
	}
	st := c.step("warp", 40)
	if st.Status == "fault" {
		t.Fatalf("state %+v", st)
	}

	src, err := os.ReadFile("../../shared/corpus/ptx-ir/matmul.ptx")
	if err != nil {
		t.Skip("corpus not available:", err)
	}
	spec := `{"entry":"matmul_kernel","grid":[4],"block":[128],"dynamicSharedBytes":49152,
	"buffers":[{"name":"a","type":"f16","count":4096},{"name":"b","type":"f16","count":4096},{"name":"c","type":"f16","count":4096},{"name":"s","type":"u8","count":256}],
	"params":[{"buffer":"a"},{"buffer":"b"},{"buffer":"c"},{"u32":64},{"u32":64},{"u32":64},{"u32":64},{"u32":64},{"u32":64},{"buffer":"s"}]}`
	c2 := newClient(t, newManager(t, Limits{}))
	c2.send(map[string]any{"type": "load", "id": 1, "source": string(src), "spec": json.RawMessage(spec)})
	c2.expect("diagnostics")
	c2.expect("loaded")
	c2.state()
	if c2.s.m.Kernel().Name != "matmul_kernel" || c2.s.m.Config().Block[0] != 128 {
		t.Fatalf("loaded %s %v", c2.s.m.Kernel().Name, c2.s.m.Config())
	}
	if got, lim := stateBytes(c2.s.m), DefaultLimits.MaxStateBytes; got > lim {
		t.Fatalf("state %d bytes, limit %d", got, lim)
	} else {
		t.Logf("matmul, 4 CTAs of 128 threads: state %d bytes", got)
	}
	// It runs until it reaches a tensor-core instruction (or completes).
	c2.send(map[string]any{"type": "run"})
	if st, _ := c2.state(); st.Status != "fault" && st.Status != "done" {
		t.Fatalf("run: %+v", st)
	}
}
