package emu

import (
	"context"
	"strings"
	"testing"

	"github.com/ptxplayground/ptxplay/engine/ptx"
)

// Labels are scoped to their { } block, as .reg declarations are: two
// inlined copies of the same wait loop (Triton's mbarrier-wait and
// CUTLASS's LAB_WAIT:/DONE: inline assembly repeat their labels in every
// copy) compile, and each copy's branches go to its own loop. Each copy
// counts a different number of rounds into out[tid]; a branch that went to
// the other copy's label would add the wrong number or never finish.
func TestLabelsScopedToBlocks(t *testing.T) {
	src := ctlHeader + `
.visible .entry k(.param .u64 out) {
	.reg .u32 %r<4>; .reg .u64 %rd<4>;
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, %tid.x;
	mul.wide.u32 %rd2, %r1, 4;
	add.u64 %rd3, %rd1, %rd2;
	mov.u32 %r3, 0;
	{
	.reg .pred P1; .reg .u32 %n;
	mov.u32 %n, 3;
	waitLoop:
	add.u32 %r3, %r3, 1;
	sub.u32 %n, %n, 1;
	setp.eq.u32 P1, %n, 0;
	@!P1 bra waitLoop;
	bra.uni DONE;
	DONE:
	}
	{
	.reg .pred P1; .reg .u32 %n;
	add.u32 %n, %r1, 1;
	waitLoop:
	add.u32 %r3, %r3, 100;
	sub.u32 %n, %n, 1;
	setp.eq.u32 P1, %n, 0;
	@!P1 bra waitLoop;
	bra.uni DONE;
	DONE:
	}
	st.global.u32 [%rd3], %r3;
	ret;
}`
	m, out := ctlKernel(t, src, [3]int{8, 1, 1}, [3]int{1, 1, 1}, 8)
	if r := m.Run(context.Background()); r != StopDone {
		t.Fatalf("stop %v fault %v", r, m.Fault())
	}
	for i, v := range u32s(out) {
		if want := uint32(3 + 100*(i+1)); v != want {
			t.Fatalf("thread %d: got %d, want %d", i, v, want)
		}
	}
}

// A branch resolves to the innermost visible label: one defined in the
// branch's own block hides one of the same name in an enclosing block, and
// a label of an enclosing block is visible from inside.
func TestLabelInnermostWins(t *testing.T) {
	src := ctlHeader + `
.visible .entry k(.param .u64 out) {
	.reg .u32 %r<4>; .reg .u64 %rd<2>;
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, 0;
	{
		bra.uni L;
		mov.u32 %r1, 1;
	L:
		add.u32 %r1, %r1, 10;
		bra.uni OUT;
	}
L:
	add.u32 %r1, %r1, 1000;
OUT:
	st.global.u32 [%rd1], %r1;
	ret;
}`
	m, out := ctlKernel(t, src, [3]int{1, 1, 1}, [3]int{1, 1, 1}, 1)
	if r := m.Run(context.Background()); r != StopDone {
		t.Fatalf("stop %v fault %v", r, m.Fault())
	}
	if got := u32s(out)[0]; got != 10 {
		t.Fatalf("got %d, want 10 (the inner L, then the outer OUT)", got)
	}
}

// .branchtargets lists are labels too: each block's brx.idx uses its own
// list, and the list's entries resolve in the list's block.
func TestBranchTargetsScopedToBlocks(t *testing.T) {
	block := func(add int) string {
		return `{
	ts: .branchtargets A, B;
	brx.idx %r2, ts;
	A: add.u32 %r1, %r1, ` + itoa(add) + `;
	bra.uni E;
	B: add.u32 %r1, %r1, ` + itoa(2*add) + `;
	E:
	}
`
	}
	src := ctlHeader + `
.visible .entry k(.param .u64 out) {
	.reg .u32 %r<4>; .reg .u64 %rd<2>;
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, 0; mov.u32 %r2, 1;
	` + block(1) + block(100) + `
	st.global.u32 [%rd1], %r1;
	ret;
}`
	m, out := ctlKernel(t, src, [3]int{1, 1, 1}, [3]int{1, 1, 1}, 1)
	if r := m.Run(context.Background()); r != StopDone {
		t.Fatalf("stop %v fault %v", r, m.Fault())
	}
	if got := u32s(out)[0]; got != 202 {
		t.Fatalf("got %d, want 202", got)
	}
}

// Labels of the same name in one block are still an error, and a branch
// into a sibling block does not resolve.
func TestLabelScopeErrors(t *testing.T) {
	src := ctlHeader + `
.visible .entry k() {
	{ X: ret; }
	{ bra.uni X; }
Y:
Y:
	ret;
}`
	s := ptx.NewSource("t.ptx", []byte(src))
	prog, diags := CompileSource(s)
	out := ptx.FormatAll(s, diags)
	if prog != nil || !strings.Contains(out, "t.ptx:7:12: error[label-not-visible]: label X is not visible here") || !strings.Contains(out, "t.ptx:9:1: error[duplicate-label]: label Y defined twice in the same block") {
		t.Fatalf("diagnostics:\n%s", out)
	}
	// Each carries a note at the label's (first) definition, printed after it.
	if !strings.Contains(out, "enclose this one\nt.ptx:6:4: note: label X is defined here, in a block that does not enclose the branch\n") ||
		!strings.Contains(out, "in the same block\nt.ptx:8:1: note: label Y is first defined here\n") {
		t.Fatalf("diagnostics:\n%s", out)
	}
}

// A module without .version and .target is not a valid module: an error
// at the first statement (line:col), not silence; the same text with the
// header compiles.
func TestModuleHeaderRequired(t *testing.T) {
	body := "\n\n.visible .entry k() { ret; }\n"
	s := ptx.NewSource("t.ptx", []byte(body))
	prog, diags := CompileSource(s)
	if got := ptx.FormatAll(s, diags); prog != nil || !strings.HasPrefix(got, "t.ptx:3:1: error[missing-version]: missing .version") {
		t.Errorf("without a header: %s", got)
	}
	for _, text := range []string{"", "// nothing\n"} {
		s := ptx.NewSource("t.ptx", []byte(text))
		if prog, diags := CompileSource(s); prog != nil || !strings.Contains(ptx.FormatAll(s, diags), "t.ptx:1:1: error[missing-version]: missing .version") {
			t.Errorf("%q: %s", text, ptx.FormatAll(s, diags))
		}
	}
	s = ptx.NewSource("t.ptx", []byte("// a comment first is fine\n"+ctlHeader+body))
	if prog, diags := CompileSource(s); prog == nil || len(diags) != 0 {
		t.Errorf("with the header: %s", ptx.FormatAll(s, diags))
	}
}
