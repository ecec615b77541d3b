package emu

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/ptxplayground/ptxplay/engine/ptx"
)

// The same mma_async in the 4 warps of a warpgroup passes the same
// descriptors: one warp's A or B descriptor differing (the first warp to
// execute it, a middle one or the last) is a fault naming the warpgroup,
// the operand and the warp, in both scheduling models; the same kernel
// with the same descriptors everywhere runs, a K loop of several
// mma_async included.
func TestWgmmaDescriptorDiffersBetweenWarps(t *testing.T) {
	// A: the two K halves 1024 bytes apart and the 8-row groups 128
	// (LBO and SBO swapped round); B: a start address 16 bytes on (both
	// still legal and inside shared memory).
	differ := func(warp int, reg string) string {
		set := map[string]string{"%rd1": "mov.b64 %rd1, 0x0000000800400000", "%rd2": "add.s64 %rd2, %rd2, 1"}[reg]
		return fmt.Sprintf("\tshr.u32 %%r2, %%r1, 5;\n\tsetp.eq.u32 %%p1, %%r2, %d;\n\t@%%p1 %s;\n", warp, set)
	}
	seq := "\twgmma.fence.sync.aligned;\n" + wgMma + wgMma + "\twgmma.commit_group.sync.aligned;\n\twgmma.wait_group.sync.aligned 0;\n"
	run := func(body string, s Scheduling) (StopReason, *Fault) {
		src := wgHdr + body + "\tret;\n}\n"
		prog, diags := CompileSource(ptx.NewSource("t.ptx", []byte(src)))
		if prog == nil {
			t.Fatal(ptx.FormatAll(ptx.NewSource("t.ptx", []byte(src)), diags))
		}
		m, err := NewMachine(prog, "k", Config{Grid: [3]int{1, 1, 1}, Block: [3]int{128, 1, 1}, Scheduling: s})
		if err != nil {
			t.Fatal(err)
		}
		return m.Run(context.Background()), m.Fault()
	}
	for _, s := range []Scheduling{SchedSIMTStack, SchedIndependent} {
		for _, c := range []struct {
			warp  int
			reg   string
			which string
		}{{0, "%rd1", "A"}, {1, "%rd2", "B"}, {3, "%rd1", "A"}, {3, "%rd2", "B"}} {
			r, f := run(differ(c.warp, c.reg)+seq, s)
			want := fmt.Sprintf("the %s descriptor differs between the warps of warpgroup 0", c.which)
			if r != StopFault || !strings.Contains(f.Message, want) {
				t.Errorf("%s: warp %d's %s differs: %v %v, want a fault saying %q", s, c.warp, c.which, r, f, want)
			}
		}
		if r, f := run(seq, s); r != StopDone {
			t.Errorf("%s: the same descriptors: %v %v", s, r, f)
		}
	}
}
