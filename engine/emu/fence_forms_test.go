package emu

import (
	"context"
	"strings"
	"testing"

	"github.com/ptxplayground/ptxplay/engine/ptx"
)

// hopperKernel wraps body in kernel k(.param .u64 out) for sm_90a, with
// %rd1 the output pointer (generic) and %r1 the thread index.
func hopperKernel(body string) string {
	return `.version 8.0
.target sm_90a
.address_size 64
.visible .entry k(.param .u64 out)
{
	.reg .b32 %r<16>;
	.reg .b64 %rd<16>;
	.reg .pred %p<8>;
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, %tid.x;
` + body + `
	ret;
}
`
}

// Every fence and membar form the PTX ISA defines binds, and a kernel that
// runs them all between a store and a load runs to its end in both
// scheduling models (each is an ordering point of the sequentially
// consistent emulator: the stored value is read back).
func TestFenceFormsRun(t *testing.T) {
	var forms []string
	for _, sc := range []string{"cta", "cluster", "gpu", "sys"} {
		forms = append(forms,
			"fence."+sc, "fence.sc."+sc, "fence.acq_rel."+sc, "fence.acquire."+sc, "fence.release."+sc,
			"fence.proxy.tensormap::generic.release."+sc,
			"fence.proxy.tensormap::generic.acquire."+sc+" [%rd1], 128")
	}
	forms = append(forms,
		"fence.proxy.async", "fence.proxy.async.global", "fence.proxy.async.shared::cta", "fence.proxy.async.shared::cluster",
		"fence.proxy.alias", "membar.proxy.alias", "membar.proxy.async",
		"fence.mbarrier_init.release.cluster",
		"fence.acquire.sync_restrict::shared::cluster.cluster", "fence.release.sync_restrict::shared::cta.cluster",
		"fence.proxy.async::generic.acquire.sync_restrict::shared::cluster.cluster",
		"fence.proxy.async::generic.release.sync_restrict::shared::cta.cluster",
		"membar.cta", "membar.gl", "membar.sys")
	var body strings.Builder
	body.WriteString("\tmul.wide.u32 %rd2, %r1, 4;\n\tadd.u64 %rd3, %rd1, %rd2;\n\tadd.u32 %r2, %r1, 7;\n\tst.u32 [%rd3], %r2;\n")
	for _, f := range forms {
		body.WriteString("\t" + f + ";\n")
		// Each form on its own compiles too.
		src := hopperKernel("\t" + f + ";")
		if prog, diags := CompileSource(ptx.NewSource("t.ptx", []byte(src))); prog == nil || len(diags) != 0 {
			t.Errorf("%s: %s", f, ptx.FormatAll(ptx.NewSource("t.ptx", []byte(src)), diags))
		}
	}
	body.WriteString("\tld.u32 %r3, [%rd3];\n\tadd.u32 %r3, %r3, 1;\n\tst.u32 [%rd3], %r3;\n")
	for _, sched := range []Scheduling{SchedSIMTStack, SchedIndependent} {
		l := batchLaunch{src: hopperKernel(body.String()), grid: 1, block: 64, words: 64, sched: sched}
		m := l.machine(t, false)
		if r := m.Run(context.Background()); r != StopDone {
			t.Fatalf("%s: stopped with %v (%v)", sched, r, m.Fault())
		}
		out := u32s(m.Global.allocs[0])
		for i, v := range out {
			if v != uint32(i)+8 {
				t.Fatalf("%s: word %d = %d, want %d", sched, i, v, i+8)
			}
		}
	}
}

// Fences that are not forms of the PTX ISA are rejected at the fence, with
// an error that says what is wrong.
func TestFenceFormsRejected(t *testing.T) {
	for _, tc := range []struct{ form, want string }{
		{"fence.sc", "not a form of fence"},                            // no scope
		{"fence.acq_rel", "not a form of fence"},                       // no scope
		{"fence.sc.acq_rel.gpu", "not a form of fence"},                // two semantics
		{"fence.gpu.sc", "not a form of fence"},                        // out of order
		{"fence.mbarrier_init.release.cta", "not a form of fence"},     // only .cluster
		{"fence.mbarrier_init.acquire.cluster", "not a form of fence"}, // only .release
		{"fence.proxy.async.local", "not a form of fence"},
		{"fence.proxy.alias.global", "not a form of fence"},
		{"fence.proxy", "not a form of fence"},
		{"fence.proxy.tensormap::generic.gpu", "not a form of fence"},
		{"fence.proxy.tensormap::generic.acq_rel.gpu", "not a form of fence"},
		{"fence.release.sync_restrict::shared::cluster.cluster", "not a form of fence"},
		{"membar.gpu", "not a form of membar"},
		{"membar.cluster", "not a form of membar"},
		{"fence.sc.gpu.u32", "not a form of fence"},
		{"fence.proxy.tensormap::generic.acquire.gpu [%rd1], 64", "size must be 128"},
		{"fence.proxy.tensormap::generic.acquire.gpu", "expects 2 operands"},
		{"fence.proxy.tensormap::generic.release.gpu [%rd1], 128", "expects 0 operands"},
		{"fence.acq_rel.gpu [%rd1]", "expects 0 operands"},
	} {
		src := hopperKernel("\t" + tc.form + ";")
		prog, diags := CompileSource(ptx.NewSource("t.ptx", []byte(src)))
		text := ptx.FormatAll(ptx.NewSource("t.ptx", []byte(src)), diags)
		if prog != nil || !strings.Contains(text, tc.want) || !strings.Contains(text, "t.ptx:11:") {
			t.Errorf("%s: want an error on line 11 containing %q, got:\n%s", tc.form, tc.want, text)
		}
	}
}
