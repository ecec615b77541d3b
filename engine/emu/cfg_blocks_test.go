package emu

import (
	"fmt"
	"testing"
)

// TestBlocks: an if/else diamond and a loop split into the expected basic
// blocks and edges; the divergent branch's reconvergence pc is the join
// block's first pc, and bra.uni cannot diverge.
func TestBlocks(t *testing.T) {
	src := ctlHeader + `
.visible .entry k(.param .u64 out) {
	.reg .u32 %r<4>; .reg .pred %p<2>;
	mov.u32 %r1, %tid.x;
	and.b32 %r2, %r1, 1;
	setp.eq.u32 %p0, %r2, 0;
	@%p0 bra EVEN;
	mov.u32 %r3, 1;
	bra.uni JOIN;
EVEN:
	mov.u32 %r3, 2;
JOIN:
	sub.u32 %r1, %r1, 1;
	setp.ne.u32 %p1, %r1, 0;
	@%p1 bra JOIN;
	ret;
}`
	m, _ := ctlKernel(t, src, [3]int{32, 1, 1}, [3]int{1, 1, 1}, 32)
	p, fn := m.Program(), m.Kernel()
	bs := Blocks(p, fn)
	var got []string
	for _, b := range bs {
		got = append(got, fmt.Sprintf("%d-%d%v", b.Start-fn.Entry, b.End-fn.Entry, b.Succ))
	}
	// 0: mov, and, setp, @p bra | 1: mov, bra.uni | 2: EVEN | 3: JOIN loop | 4: ret
	want := []string{"0-4[2 1]", "4-6[3]", "6-7[3]", "7-10[3 4]", "10-11[-1]"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("blocks %v, want %v", got, want)
	}
	split := &p.Ops[bs[0].End-1]
	if !MayDiverge(split) || int(split.Reconv) != bs[3].Start {
		t.Errorf("the if's branch: may diverge %v, reconverges at %d, want true and %d", MayDiverge(split), split.Reconv, bs[3].Start)
	}
	if uni := &p.Ops[bs[1].End-1]; MayDiverge(uni) {
		t.Errorf("bra.uni may diverge")
	}
	if loop := &p.Ops[bs[3].End-1]; !MayDiverge(loop) || int(loop.Reconv) != bs[4].Start {
		t.Errorf("the loop's branch: may diverge %v, reconverges at %d, want true and %d", MayDiverge(loop), loop.Reconv, bs[4].Start)
	}
}
