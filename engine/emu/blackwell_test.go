package emu

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/ptxplayground/ptxplay/engine/ptx"
)

// A Blackwell (sm_100a) module with every tcgen05 form, written as CUTLASS
// and CCCL's cuda::ptx emit them (and Hopper's tensormap.cp_fenceproxy,
// which is executed): it compiles, with a "not supported yet" warning at
// the line of each tcgen05 instruction and at no other line.
func TestBlackwellModuleRecognised(t *testing.T) {
	text, err := os.ReadFile("testdata/blackwell.ptx")
	if err != nil {
		t.Fatal(err)
	}
	s := ptx.NewSource("blackwell.ptx", text)
	prog, diags := CompileSource(s)
	if prog == nil {
		t.Fatalf("does not compile:\n%s", ptx.FormatAll(s, diags))
	}
	warned := map[int]string{}
	for _, d := range diags {
		if d.Severity != ptx.SevWarning {
			t.Errorf("unexpected: %s", d.Format(s))
			continue
		}
		warned[s.Position(d.Span.Start).Line] = d.Message
	}
	for i, line := range strings.Split(string(text), "\n") {
		code := strings.TrimSpace(line)
		want := strings.HasPrefix(code, "tcgen05.")
		msg, got := warned[i+1]
		switch {
		case want && !got:
			t.Errorf("line %d (%s): no warning", i+1, code)
		case !want && got:
			t.Errorf("line %d (%s): unexpected warning %q", i+1, code, msg)
		case want && !strings.Contains(msg, "is not supported yet") || want && !strings.Contains(msg, "the launch faults if a thread reaches it"):
			t.Errorf("line %d: warning %q", i+1, msg)
		case strings.HasPrefix(code, "tcgen05.") && !strings.Contains(msg, "Blackwell"):
			t.Errorf("line %d: warning %q does not say Blackwell", i+1, msg)
		}
	}
}

// A thread that reaches a tcgen05 instruction faults with the same "not supported yet" message, at that line.
func TestBlackwellFaultsWhenReached(t *testing.T) {
	for _, c := range []struct{ ins, name string }{
		{"tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%r1], 32;", "tcgen05.alloc"},
		{"tcgen05.fence::before_thread_sync;", "tcgen05.fence::before_thread_sync"},
		{"tcgen05.wait::ld.sync.aligned;", "tcgen05.wait::ld"},
		{"tcgen05.ld.sync.aligned.32x32b.x2.b32 {%r2, %r3}, [%r1];", "tcgen05.ld"},
		{"tcgen05.mma.cta_group::1.kind::f16 [%r1], %rd1, %rd1, %r2, %p1;", "tcgen05.mma"},
	} {
		src := ctlHeader + `.visible .entry k(.param .u64 out) {
	.reg .b32 %r<4>; .reg .b64 %rd<2>; .reg .pred %p<2>;
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, 0;
	setp.eq.u32 %p1, %r1, 0;
	` + c.ins + `
	ret;
}`
		m, _ := ctlKernel(t, src, [3]int{32, 1, 1}, [3]int{1, 1, 1}, 1)
		r := m.Run(context.Background())
		f := m.Fault()
		if r != StopFault || f == nil || f.Kind != FaultIllegal || !strings.Contains(f.Error(), c.name+" is not supported yet") {
			t.Errorf("%s: stop %v fault %v", c.name, r, f)
			continue
		}
		if line := m.prog.Src.Position(m.prog.Spans[f.PC].Start).Line; line != 9 {
			t.Errorf("%s: fault at line %d, want 9", c.name, line)
		}
	}
}
