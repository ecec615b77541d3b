package emu

import (
	"context"
	"strings"
	"testing"

	"github.com/ptxplayground/ptxplay/engine/ptx"
)

func slotOf(t *testing.T, p *Program, name string, fn int32) int {
	t.Helper()
	for i, r := range p.Regs {
		if r.Name == name && r.Func == fn && r.Kind == RegUser {
			return i
		}
	}
	t.Fatalf("no register %s in function %d", name, fn)
	return -1
}

// A kernel that declares 8192 registers and uses a few stores only those:
// a 1024-thread block takes a few KiB of registers, not 64 MiB.
func TestRegFileStoresUsedRegisters(t *testing.T) {
	src := ctlHeader + `
.visible .entry k(.param .u64 out) {
	.reg .b32 %r<8192>; .reg .b64 %rd<4>;
	mov.u32 %r1, %tid.x;
	add.u32 %r2, %r1, 7;
	mov.u32 %r8191, %r2;
	ld.param.u64 %rd1, [out];
	mul.wide.u32 %rd2, %r1, 4;
	add.u64 %rd3, %rd1, %rd2;
	st.global.u32 [%rd3], %r8191;
	ret;
}`
	m, out := ctlKernel(t, src, [3]int{1024, 1, 1}, [3]int{1, 1, 1}, 1024)
	p := m.Program()
	// One spare row, %tid.x, %r1, %r2, %r8191, %rd1-%rd3; the constants
	// 7 and 4 have none.
	if got := m.RegisterRows(); got != 8 {
		t.Fatalf("RegisterRows = %d, want 8", got)
	}
	if got, want := m.WarpRegisterBytes(), int64(8*32*8+4*len(p.Preds)); got != want {
		t.Fatalf("WarpRegisterBytes = %d, want %d", got, want)
	}
	if r := m.Run(context.Background()); r != StopDone {
		t.Fatalf("stop %v: %v", r, m.Fault())
	}
	for i, v := range u32s(out) {
		if v != uint32(i+7) {
			t.Fatalf("out[%d] = %d", i, v)
		}
	}
	w := m.Warps()[5]
	if got := int64(8*len(w.rows) + 4*len(w.preds)); got != m.WarpRegisterBytes() {
		t.Fatalf("a warp holds %d bytes of registers, WarpRegisterBytes says %d", got, m.WarpRegisterBytes())
	}
	r8191, r5 := w.Reg(slotOf(t, p, "%r8191", 0)), w.Reg(slotOf(t, p, "%r5", 0))
	for l := range 32 {
		if r8191[l] != uint64(5*32+l+7) || r5[l] != 0 {
			t.Fatalf("lane %d: %%r8191 = %d, %%r5 = %d", l, r8191[l], r5[l])
		}
	}
	for _, k := range p.Consts {
		if v := w.Reg(int(k.Reg)); v[0] != k.Val || v[31] != k.Val {
			t.Fatalf("constant slot %d reads %d, want %d", k.Reg, v[0], k.Val)
		}
	}
}

// A machine stores the registers of the functions its kernel can reach:
// direct callees and, for indirect calls, the functions whose address is
// taken.
func TestRegFilePerKernel(t *testing.T) {
	src := ctlHeader + `
.func (.reg .b32 r) twice(.reg .b32 x) { add.u32 r, x, x; ret; }
.func (.reg .b32 r) thrice(.reg .b32 x) { .reg .b32 %t; add.u32 %t, x, x; add.u32 r, %t, x; ret; }
.func (.reg .b32 r) big(.reg .b32 x) {
	.reg .b32 %b<4096>;
	mov.u32 %b4095, x;
	add.u32 %b1, %b4095, 1; add.u32 %b2, %b1, 1; add.u32 %b3, %b2, 1; add.u32 %b4, %b3, 1;
	add.u32 %b5, %b4, 1; add.u32 %b6, %b5, 1; add.u32 %b7, %b6, 1; add.u32 %b8, %b7, 1;
	mov.u32 r, %b8;
	ret;
}
.visible .entry k(.param .u64 out) {
	.reg .b32 %r<4>; .reg .b64 %rd<5>;
	mov.u32 %r1, %tid.x;
	call (%r2), twice, (%r1);
	mov.u64 %rd4, thrice;
	proto: .callprototype (.reg .b32 r) _ (.reg .b32 x);
	call (%r3), %rd4, (%r2), proto;
	ld.param.u64 %rd1, [out];
	mul.wide.u32 %rd2, %r1, 4;
	add.u64 %rd3, %rd1, %rd2;
	st.global.u32 [%rd3], %r3;
	ret;
}
.visible .entry other(.param .u64 out) {
	.reg .b32 %r<3>; .reg .b64 %rd<2>;
	mov.u32 %r1, %tid.x;
	call (%r2), big, (%r1);
	ld.param.u64 %rd1, [out];
	st.global.u32 [%rd1], %r2;
	ret;
}`
	m, out := ctlKernel(t, src, [3]int{32, 1, 1}, [3]int{1, 1, 1}, 32)
	p := m.Program()
	for name, want := range map[string]bool{"k": true, "twice": true, "thrice": true, "big": false, "other": false} {
		if got := m.Reachable(p.Function(name)); got != want {
			t.Errorf("Reachable(%s) = %v, want %v", name, got, want)
		}
	}
	if m.RegisterRows() > 32 {
		t.Errorf("kernel k stores %d rows; big's registers are not reachable", m.RegisterRows())
	}
	if r := m.Run(context.Background()); r != StopDone {
		t.Fatalf("stop %v: %v", r, m.Fault())
	}
	for i, v := range u32s(out) {
		if v != uint32(6*i) {
			t.Fatalf("out[%d] = %d, want %d", i, v, 6*i)
		}
	}
	// big has no storage in k's machine: its registers read zero.
	if v := m.Warps()[0].Reg(slotOf(t, p, "%b1", int32(p.Function("big").index))); v != ([32]uint64{}) {
		t.Fatalf("unreachable register reads %v", v)
	}
	m2, err := NewMachine(p, "other", Config{Grid: [3]int{1, 1, 1}, Block: [3]int{32, 1, 1}})
	if err != nil {
		t.Fatal(err)
	}
	if !m2.Reachable(p.Function("big")) || m2.Reachable(p.Function("twice")) || m2.RegisterRows() < 11 {
		t.Fatalf("other: rows %d", m2.RegisterRows())
	}
}

// An indirect call to a function whose address the module never takes
// (a forged address) faults instead of running without storage.
func TestRegFileForgedIndirectCall(t *testing.T) {
	src := ctlHeader + `
.func (.reg .b32 r) hidden(.reg .b32 x) { add.u32 r, x, 1; ret; }
.func (.reg .b32 r) known(.reg .b32 x) { add.u32 r, x, 2; ret; }
.visible .entry k(.param .u64 out) {
	.reg .b32 %r<3>; .reg .b64 %rd<2>;
	mov.u64 %rd0, known;
	mov.u64 %rd1, 0x500000000000;
	proto: .callprototype (.reg .b32 r) _ (.reg .b32 x);
	call (%r2), %rd1, (%r1), proto;
	ret;
}`
	m, _ := ctlKernel(t, src, [3]int{32, 1, 1}, [3]int{1, 1, 1}, 1)
	if r := m.Run(context.Background()); r != StopFault || m.Fault().Kind != FaultIllegal || !strings.Contains(m.Fault().Message, "never takes") {
		t.Fatalf("stop %v: %v", r, m.Fault())
	}
}

// Recursion through register parameters saves and restores the callee's
// rows; a snapshot taken inside the recursion replays to the same result.
func TestRegFileRecursionAndSnapshots(t *testing.T) {
	src := ctlHeader + `
.func (.reg .b32 r) sum(.reg .b32 n) {
	.reg .b32 %a<3>; .reg .pred %p;
	setp.eq.u32 %p, n, 0;
	@%p bra BASE;
	sub.u32 %a1, n, 1;
	call (%a2), sum, (%a1);
	add.u32 r, %a2, n;
	ret;
BASE:
	mov.u32 r, 0;
	ret;
}
.visible .entry k(.param .u64 out) {
	.reg .b32 %r<3>; .reg .b64 %rd<4>;
	mov.u32 %r1, %tid.x;
	call (%r2), sum, (%r1);
	ld.param.u64 %rd1, [out];
	mul.wide.u32 %rd2, %r1, 4;
	add.u64 %rd3, %rd1, %rd2;
	st.global.u32 [%rd3], %r2;
	ret;
}`
	m, out := ctlKernel(t, src, [3]int{64, 1, 1}, [3]int{1, 1, 1}, 64)
	var snap *Snapshot
	for i := 0; i < 200; i++ {
		if r := m.Step(StepWarpInstruction); r != StopStepped {
			t.Fatalf("step %d: %v %v", i, r, m.Fault())
		}
		if i == 120 {
			snap = m.Snapshot(true)
		}
	}
	if r := m.Run(context.Background()); r != StopDone {
		t.Fatalf("stop %v: %v", r, m.Fault())
	}
	check := func() {
		t.Helper()
		for i, v := range u32s(out) {
			if v != uint32(i*(i+1)/2) {
				t.Fatalf("out[%d] = %d, want %d", i, v, i*(i+1)/2)
			}
		}
	}
	check()
	clear(out.Data)
	m.Restore(snap)
	if r := m.Run(context.Background()); r != StopDone {
		t.Fatalf("replay: stop %v: %v", r, m.Fault())
	}
	check()
}

// Programs compiled from source mark the registers instructions use.
func TestRegFileUsedMarks(t *testing.T) {
	src := ctlHeader + `
.visible .entry k() {
	.reg .b32 %r<4>; .reg .v2 .b32 %v; .reg .pred %p<3>;
	mov.u32 %r1, 1;
	mov.b64 {%v.x, %v.y}, 0;
	setp.eq.u32 %p1, %r1, 1;
	ret;
}`
	p, diags := CompileSource(ptx.NewSource("t.ptx", []byte(src)))
	if p == nil {
		t.Fatal(diags)
	}
	used := map[string]bool{}
	for _, r := range p.Regs {
		if r.Kind == RegUser {
			used[r.Name] = r.Used
		}
	}
	for _, r := range p.Preds {
		if r.Kind == RegUser {
			used[r.Name] = r.Used
		}
	}
	want := map[string]bool{"%r0": false, "%r1": true, "%r2": false, "%r3": false, "%v.x": true, "%v.y": true, "%p0": false, "%p1": true, "%p2": false}
	for k, v := range want {
		if used[k] != v {
			t.Errorf("%s used = %v, want %v", k, used[k], v)
		}
	}
}
