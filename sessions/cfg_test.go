package sessions

import (
	"testing"

	"github.com/ptxplayground/ptxplay/engine/emu"
	"github.com/ptxplayground/ptxplay/engine/isa"
)

// cfgBranchPTX has a block ending in a conditional bra, one in brx.idx,
// one falling through to a label, and blocks ending in ret.
const cfgBranchPTX = `
.version 7.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 out)
{
	.reg .u32 %r<4>;
	.reg .u64 %rd<3>;
	.reg .pred %p;
	mov.u32 %r1, %tid.x;
	setp.lt.u32 %p, %r1, 16;
	@%p bra LOW;
	and.b32 %r2, %r1, 1;
ts:	.branchtargets A, B;
	brx.idx %r2, ts;
A:
	add.u32 %r3, %r1, 1;
B:
	ret;
LOW:
	ret;
}
`

// TestCFGBranchBlocks: the control-flow graph marks the blocks that end in
// a branch (bra or brx.idx: the effect EffBranch) with their branch pc and
// reconvergence point, and no other block.
func TestCFGBranchBlocks(t *testing.T) {
	c := newClient(t, newManager(t, Limits{}))
	c.load(cfgBranchPTX, `{"grid":[1,1,1],"block":[32,1,1],"buffers":[{"name":"o","type":"u32","count":32}],"params":[{"buffer":"o"}]}`)
	l := mustLoaded(t, c)
	if l.CFG == nil || len(l.CFG.Blocks) == 0 {
		t.Fatal("no control-flow graph")
	}
	var ops []emu.Op
	c.do(func() { ops = c.s.prog.prog.Ops })
	branches := 0
	for _, b := range l.CFG.Blocks {
		last := ops[b.Last]
		isBranch := last.Code == isa.OpBra || last.Code == isa.OpBrx
		switch {
		case isBranch && (b.Branch == nil || *b.Branch != b.Last || b.Reconv == nil):
			t.Errorf("block %d..%d ends in %s but has branch %v reconv %v", b.First, b.Last, last.Code, b.Branch, b.Reconv)
		case !isBranch && (b.Branch != nil || b.Reconv != nil || b.Divergent):
			t.Errorf("block %d..%d ends in %s but is marked as a branch", b.First, b.Last, last.Code)
		}
		if isBranch {
			branches++
		}
	}
	if branches != 2 {
		t.Errorf("%d branch blocks, want 2 (bra and brx.idx): %+v", branches, l.CFG.Blocks)
	}
}
