package emu

import (
	"encoding/binary"
	"sort"
	"strings"
	"testing"
)

// An atomic histogram: 2 CTAs of 64 threads (two warps each) count values
// into shared bins with atom.shared.add, publish them with red.global.add,
// and also count into global bins directly and take tickets from a global
// counter.
func TestAtomHistogram(t *testing.T) {
	src := memHdr + `
.shared .align 4 .u32 hist[8];
.visible .entry k(.param .u64 pin, .param .u64 pout, .param .u64 ptick) {
	.reg .u32 %r<16>; .reg .u64 %rd<16>; .reg .pred %p;
	ld.param.u64 %rd1, [pin];
	ld.param.u64 %rd2, [pout];
	ld.param.u64 %rd3, [ptick];
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, %ctaid.x;
	mad.lo.u32 %r3, %r2, 64, %r1;
	setp.lt.u32 %p, %r1, 8;
	shl.b32 %r4, %r1, 2;
	add.u32 %r5, %r4, hist;
	@%p st.shared.u32 [%r5], 0;
	bar.sync 0;
	mul.wide.u32 %rd4, %r3, 4;
	add.u64 %rd5, %rd1, %rd4;
	ld.global.u32 %r6, [%rd5];
	and.b32 %r7, %r6, 7;
	shl.b32 %r8, %r7, 2;
	add.u32 %r9, %r8, hist;
	atom.shared.add.u32 %r10, [%r9], 1;
	cvt.u64.u32 %rd6, %r8;
	add.u64 %rd7, %rd2, %rd6;
	red.global.add.u32 [%rd7+32], 1;
	atom.global.add.u32 %r11, [%rd2+64], 1;
	add.u64 %rd8, %rd3, %rd4;
	st.global.u32 [%rd8], %r11;
	bar.sync 0;
	@%p ld.shared.u32 %r12, [%r5];
	cvt.u64.u32 %rd9, %r4;
	add.u64 %rd10, %rd2, %rd9;
	@%p red.global.add.u32 [%rd10], %r12;
	ret;
}`
	const n = 128
	in := make([]byte, 4*n)
	want := make([]uint32, 8)
	for i := 0; i < n; i++ {
		v := uint32(i*i*7+3*i) % 23
		binary.LittleEndian.PutUint32(in[4*i:], v)
		want[v&7]++
	}
	m, a, r := memLaunch(t, src, [3]int{64, 1, 1}, [3]int{2, 1, 1}, in, make([]byte, 68), make([]byte, 4*n))
	if r != StopDone {
		t.Fatalf("%v: %v", r, m.Fault())
	}
	for b := 0; b < 8; b++ {
		if got := memU32(a[1], b); got != want[b] {
			t.Errorf("shared histogram bin %d: got %d want %d", b, got, want[b])
		}
		if got := memU32(a[1], 8+b); got != want[b] {
			t.Errorf("global histogram bin %d: got %d want %d", b, got, want[b])
		}
	}
	if got := memU32(a[1], 16); got != n {
		t.Errorf("counter %d want %d", got, n)
	}
	tickets := make([]int, n)
	for i := range tickets {
		tickets[i] = int(memU32(a[2], i))
	}
	// Lanes of a warp are serialised in ascending order.
	for w := 0; w < n/32; w++ {
		for l := 1; l < 32; l++ {
			if tickets[32*w+l] != tickets[32*w]+l {
				t.Fatalf("warp %d: tickets %v are not in lane order", w, tickets[32*w:32*w+32])
			}
		}
	}
	sort.Ints(tickets)
	for i, v := range tickets {
		if v != i {
			t.Fatalf("tickets are not a permutation: %v", tickets)
		}
	}
}

// Each thread adds tid+1 to a counter with a compare-and-swap loop; lanes
// that lose the race retry.
func TestAtomCasLoop(t *testing.T) {
	src := memHdr + `
.visible .entry k(.param .u64 pout) {
	.reg .u32 %r<8>; .reg .u64 %rd<4>; .reg .b64 %x<4>; .reg .pred %p;
	ld.param.u64 %rd1, [pout];
	mov.u32 %r1, %tid.x;
	add.u32 %r2, %r1, 1;
	mov.u32 %r6, 0;
LOOP:
	ld.volatile.global.u32 %r3, [%rd1];
	add.u32 %r4, %r3, %r2;
	atom.global.cas.b32 %r5, [%rd1], %r3, %r4;
	add.u32 %r6, %r6, 1;
	setp.ne.u32 %p, %r5, %r3;
	@%p bra LOOP;
	atom.global.max.u32 %r7, [%rd1+4], %r6;
	cvt.u64.u32 %x1, %r2;
LOOP64:
	ld.volatile.global.u64 %x2, [%rd1+8];
	add.u64 %x3, %x2, %x1;
	atom.global.cas.b64 %x0, [%rd1+8], %x2, %x3;
	setp.ne.u64 %p, %x0, %x2;
	@%p bra LOOP64;
	ret;
}`
	a := memRun(t, src, 64, make([]byte, 16))[0]
	if got := memU32(a, 0); got != 64*65/2 {
		t.Errorf("sum %d want %d", got, 64*65/2)
	}
	if got := memU32(a, 1); got < 32 {
		t.Errorf("most retries %d, want at least 32 (one lane of a warp wins per cas)", got)
	}
	if got := memU64(a, 1); got != 64*65/2 {
		t.Errorf("64-bit sum %d", got)
	}
}

func TestAtomIntegerOps(t *testing.T) {
	src := memHdr + `
.visible .entry k(.param .u64 pm, .param .u64 pold) {
	.reg .u32 %r<40>; .reg .u64 %rd<8>; .reg .b64 %x<8>; .reg .b16 %h<4>;
	ld.param.u64 %rd1, [pm];
	ld.param.u64 %rd2, [pold];
	atom.global.inc.u32 %r1, [%rd1], 2;
	atom.global.inc.u32 %r2, [%rd1], 2;
	atom.global.inc.u32 %r3, [%rd1], 2;
	atom.global.inc.u32 %r4, [%rd1], 2;
	atom.global.dec.u32 %r5, [%rd1+4], 5;
	atom.global.dec.u32 %r6, [%rd1+8], 5;
	atom.global.dec.u32 %r7, [%rd1+12], 5;
	atom.global.min.s32 %r8, [%rd1+16], 3;
	atom.global.max.s32 %r9, [%rd1+20], 3;
	atom.global.min.u32 %r10, [%rd1+24], 3;
	atom.global.max.u32 %r11, [%rd1+28], 3;
	atom.global.and.b32 %r12, [%rd1+32], 0xff00ff00;
	atom.global.or.b32 %r13, [%rd1+36], 0x0f;
	atom.global.xor.b32 %r14, [%rd1+40], 0xffff;
	atom.global.exch.b32 %r15, [%rd1+44], 77;
	atom.global.cas.b32 %r16, [%rd1+48], 5, 6;
	atom.global.cas.b32 %r17, [%rd1+52], 4, 6;
	atom.global.add.u32 %r18, [%rd1+56], -1;
	atom.global.cas.b16 %h1, [%rd1+62], 0x1234, 0xbeef;
	atom.global.min.s64 %x1, [%rd1+64], -7;
	atom.global.max.u64 %x2, [%rd1+72], 5;
	atom.global.add.u64 %x3, [%rd1+80], 0xffffffff;
	atom.global.exch.b64 %x4, [%rd1+88], 0x123456789;
	atom.add.s32 %r19, [%rd1+96], -3;
	red.global.xor.b64 [%rd1+104], 0xff;
	red.global.min.u32 [%rd1+112], 9;
	red.global.dec.u32 [%rd1+116], 9;
	st.global.v4.u32 [%rd2], {%r1, %r2, %r3, %r4};
	st.global.v4.u32 [%rd2+16], {%r5, %r6, %r7, %r8};
	st.global.v4.u32 [%rd2+32], {%r9, %r10, %r11, %r12};
	st.global.v4.u32 [%rd2+48], {%r13, %r14, %r15, %r16};
	st.global.v2.u32 [%rd2+64], {%r17, %r18};
	st.global.u16 [%rd2+72], %h1;
	st.global.v2.u64 [%rd2+80], {%x1, %x2};
	st.global.v2.u64 [%rd2+96], {%x3, %x4};
	st.global.u32 [%rd2+112], %r19;
	ret;
}`
	mem := make([]byte, 120)
	put32 := func(off int, v uint32) { binary.LittleEndian.PutUint32(mem[off:], v) }
	put64 := func(off int, v uint64) { binary.LittleEndian.PutUint64(mem[off:], v) }
	put32(0, 0)
	put32(4, 0)  // dec: 0 -> b
	put32(8, 7)  // dec: > b -> b
	put32(12, 3) // dec: 3 -> 2
	put32(16, uint32(0xfffffffb))
	put32(20, uint32(0xfffffffb))
	put32(24, uint32(0xfffffffb))
	put32(28, uint32(0xfffffffb))
	put32(32, 0x12345678)
	put32(36, 0x10)
	put32(40, 0x0ff0)
	put32(44, 1)
	put32(48, 5)
	put32(52, 5)
	put32(56, 10)
	binary.LittleEndian.PutUint16(mem[60:], 0x1234)
	binary.LittleEndian.PutUint16(mem[62:], 0x1234)
	put64(64, 3)
	put64(72, 1<<63)
	put64(80, 1)
	put64(88, 1)
	put32(96, 1)
	put64(104, 0xf0f0)
	put32(112, 20)
	put32(116, 4)
	a := memRun(t, src, 1, mem, make([]byte, 120))
	m, old := a[0], a[1]
	wantOld := []uint32{0, 1, 2, 0, 0, 7, 3, 0xfffffffb, 0xfffffffb, 0xfffffffb, 0xfffffffb, 0x12345678, 0x10, 0x0ff0, 1, 5, 5, 10}
	for i, w := range wantOld {
		if got := memU32(old, i); got != w {
			t.Errorf("old value %d: got %#x want %#x", i, got, w)
		}
	}
	wantMem := map[int]uint32{0: 1, 4: 5, 8: 5, 12: 2, 16: 0xfffffffb, 20: 3, 24: 3, 28: 0xfffffffb,
		32: 0x12005600, 36: 0x1f, 40: 0xf00f, 44: 77, 48: 6, 52: 5, 56: 9, 96: 0xfffffffe, 112: 9, 116: 3}
	for off, w := range wantMem {
		if got := binary.LittleEndian.Uint32(m.Data[off:]); got != w {
			t.Errorf("memory at %d: got %#x want %#x", off, got, w)
		}
	}
	if got := binary.LittleEndian.Uint16(m.Data[62:]); got != 0xbeef {
		t.Errorf("cas.b16: memory %#x", got)
	}
	if got := binary.LittleEndian.Uint16(m.Data[60:]); got != 0x1234 {
		t.Errorf("cas.b16 touched the neighbouring half: %#x", got)
	}
	if got := binary.LittleEndian.Uint16(old.Data[72:]); got != 0x1234 {
		t.Errorf("cas.b16 old %#x", got)
	}
	want64 := map[int]uint64{64: uint64(1<<64 - 7), 72: 1 << 63, 80: 0x100000000, 88: 0x123456789, 104: 0xf00f}
	for off, w := range want64 {
		if got := binary.LittleEndian.Uint64(m.Data[off:]); got != w {
			t.Errorf("memory at %d: got %#x want %#x", off, got, w)
		}
	}
	if memU64(old, 10) != 3 || memU64(old, 11) != 1<<63 || memU64(old, 12) != 1 || memU64(old, 13) != 1 || memU32(old, 28) != 1 {
		t.Errorf("64-bit old values % x", old.Data[80:116])
	}
}

// 32 lanes increment one word with atom.inc wrapping at 9: lane order
// makes the old values 0..9, 0..9, 0..9, 0, 1.
func TestAtomIncContention(t *testing.T) {
	src := memHdr + `
.visible .entry k(.param .u64 pm, .param .u64 pold) {
	.reg .u32 %r<4>; .reg .u64 %rd<6>;
	ld.param.u64 %rd1, [pm];
	ld.param.u64 %rd2, [pold];
	mov.u32 %r1, %tid.x;
	atom.inc.u32 %r2, [%rd1], 9;
	mul.wide.u32 %rd3, %r1, 4;
	add.u64 %rd4, %rd2, %rd3;
	st.u32 [%rd4], %r2;
	ret;
}`
	a := memRun(t, src, 32, make([]byte, 4), make([]byte, 128))
	for l := 0; l < 32; l++ {
		if got := memU32(a[1], l); got != uint32(l%10) {
			t.Fatalf("lane %d: old %d want %d", l, got, l%10)
		}
	}
	if got := memU32(a[0], 0); got != 2 {
		t.Fatalf("final %d want 2", got)
	}
}

func TestAtomFloat(t *testing.T) {
	src := memHdr + `
.shared .align 8 .b8 sm[64];
.visible .entry k(.param .u64 pm, .param .u64 pold) {
	.reg .u32 %r<20>; .reg .u64 %rd<8>; .reg .f32 %f<8>; .reg .b16 %h<4>; .reg .b64 %x<4>; .reg .b16 %k<8>; .reg .b32 %q<2>;
	ld.param.u64 %rd1, [pm];
	mov.b16 %k1, 0x0001;
	mov.b16 %k2, 0x3f80;
	mov.b16 %k3, 0x4000;
	mov.b16 %k4, 0x3800;
	mov.b16 %k5, 0xbc00;
	mov.b16 %k6, 0x7e00;
	ld.param.u64 %rd2, [pold];
	atom.global.add.f32 %f1, [%rd1], 0f00000000;
	atom.global.add.f32 %f2, [%rd1+4], 0f00000001;
	st.shared.u32 [sm], 1;
	atom.shared.add.f32 %f3, [sm], 0f00000001;
	ld.shared.u32 %r1, [sm];
	cvta.shared.u64 %rd3, sm;
	st.shared.u32 [sm+4], 1;
	atom.add.f32 %f4, [%rd3+4], 0f00000001;
	ld.shared.u32 %r2, [sm+4];
	atom.global.add.f32 %f5, [%rd1+8], 0f3F800000;
	atom.global.add.f64 %x1, [%rd1+16], 0d0000000000000001;
	atom.global.add.noftz.f16 %h1, [%rd1+24], %k1;
	atom.global.add.noftz.bf16 %h2, [%rd1+26], %k2;
	atom.global.add.noftz.f16x2 %q1, [%rd1+28], 0x3c003c00;
	atom.global.v2.f32.add {%f6, %f7}, [%rd1+32], {0f3F800000, 0f40000000};
	red.global.add.noftz.bf16x2 [%rd1+40], 0x3f803f80;
	atom.global.v4.f16.max.noftz {%h1, %h2, %h3, _}, [%rd1+48], {%k3, %k4, %k5, %k6};
	red.global.v2.f16x2.min.noftz [%rd1+56], {0x00000000, 0x3c003c00};
	st.global.v4.f32 [%rd2], {%f1, %f2, %f3, %f4};
	st.global.v2.u32 [%rd2+16], {%r1, %r2};
	st.global.f32 [%rd2+24], %f5;
	st.global.u64 [%rd2+32], %x1;
	st.global.v2.f32 [%rd2+40], {%f6, %f7};
	st.global.u32 [%rd2+48], %q1;
	st.global.v2.b16 [%rd2+52], {%h1, %h3};
	ret;
}`
	mem := make([]byte, 64)
	binary.LittleEndian.PutUint32(mem[0:], 0x00000001) // subnormal + 0 on global: flushed to +0
	binary.LittleEndian.PutUint32(mem[4:], 0x3f800000) // 1.0 + subnormal: unchanged
	binary.LittleEndian.PutUint32(mem[8:], 0x80000001) // -subnormal + 1.0 = 1.0
	binary.LittleEndian.PutUint64(mem[16:], 1)         // f64 keeps subnormals
	binary.LittleEndian.PutUint16(mem[24:], 0x0001)    // f16 subnormal kept with .noftz
	binary.LittleEndian.PutUint16(mem[26:], 0x3f80)    // bf16 1.0
	binary.LittleEndian.PutUint32(mem[28:], 0x40003c00)
	binary.LittleEndian.PutUint32(mem[32:], 0x3f800000)
	binary.LittleEndian.PutUint32(mem[36:], 0x3f800000)
	binary.LittleEndian.PutUint32(mem[40:], 0x40003f80)
	for i, v := range []uint16{0x3c00, 0x3c00, 0x3c00, 0x3c00} {
		binary.LittleEndian.PutUint16(mem[48+2*i:], v)
	}
	binary.LittleEndian.PutUint32(mem[56:], 0x3c00bc00)
	binary.LittleEndian.PutUint32(mem[60:], 0x40003800)
	a := memRun(t, src, 1, mem, make([]byte, 64))
	m, old := a[0], a[1]
	checks := []struct {
		buf  *Alloc
		off  int
		size int
		want uint64
	}{
		{m, 0, 4, 0}, {m, 4, 4, 0x3f800000}, {m, 8, 4, 0x3f800000}, {m, 16, 8, 2},
		{m, 24, 2, 0x0002}, {m, 26, 2, 0x4000}, {m, 28, 4, 0x42004000},
		{m, 32, 4, 0x40000000}, {m, 36, 4, 0x40400000}, {m, 40, 4, 0x40404000},
		{m, 48, 2, 0x4000}, {m, 50, 2, 0x3c00}, {m, 52, 2, 0x3c00}, {m, 54, 2, 0x3c00},
		{m, 56, 4, 0x0000bc00}, {m, 60, 4, 0x3c003800},
		{old, 0, 4, 0x00000001}, {old, 4, 4, 0x3f800000}, {old, 8, 4, 1}, {old, 12, 4, 1},
		{old, 16, 4, 2}, {old, 20, 4, 2}, {old, 24, 4, 0x80000001}, {old, 32, 8, 1},
		{old, 40, 4, 0x3f800000}, {old, 44, 4, 0x3f800000}, {old, 48, 4, 0x40003c00},
		{old, 52, 2, 0x3c00}, {old, 54, 2, 0x3c00},
	}
	for _, c := range checks {
		name := "memory"
		if c.buf == old {
			name = "old"
		}
		if got := getLE(c.buf.Data[c.off : c.off+c.size]); got != c.want {
			t.Errorf("%s at %d: got %#x want %#x", name, c.off, got, c.want)
		}
	}
}

func TestAtomFaultsAndErrors(t *testing.T) {
	for _, c := range []struct {
		body string
		kind FaultKind
	}{
		{"cvta.const.u64 %rd2, c;\n\tatom.add.u32 %r1, [%rd2], 1;", FaultReadOnly},
		{"atom.global.add.u32 %r1, [%rd1+2], 1;", FaultMisaligned},
		{"atom.global.add.u32 %r1, [%rd1+4096], 1;", FaultOutOfBounds},
		{"cvta.local.u64 %rd2, loc;\n\tatom.add.u32 %r1, [%rd2], 1;", FaultIllegal},
		{"atom.global.v2.f32.add {%f1, %f2}, [%rd1+4], {%f1, %f2};", FaultMisaligned},
	} {
		src := memHdr + `
.const .u32 c[1] = {1};
.visible .entry k(.param .u64 pout) {
	.local .align 4 .b8 loc[4];
	.reg .u32 %r<3>; .reg .u64 %rd<3>; .reg .f32 %f<3>;
	ld.param.u64 %rd1, [pout];
	` + c.body + `
	ret;
}`
		m, _, r := memLaunch(t, src, [3]int{1, 1, 1}, [3]int{1, 1, 1}, make([]byte, 64))
		if r != StopFault || m.Fault().Kind != c.kind {
			t.Errorf("%s: stop %v fault %v, want %s", c.body, r, m.Fault(), c.kind)
			continue
		}
		lines := strings.Split(c.body, "\n")
		if got, want := memLine(m, m.Fault().PC), memLineOf(src, strings.TrimSpace(lines[len(lines)-1])); got != want {
			t.Errorf("%s: fault at line %d want %d", c.body, got, want)
		}
	}
	for _, c := range []struct{ body, want string }{
		{"atom.global.inc.u64 %rd2, [%rd1], 1;", "not a valid type"},
		{"atom.global.add.f16 %h1, [%rd1], %h1;", "needs .noftz"},
		{"atom.global.and.u32 %r1, [%rd1], 1;", "not a valid type"},
		{"red.global.cas.b32 [%rd1], 1;", "red has no .cas"},
		{"atom.local.add.u32 %r1, [%rd1], 1;", ".local"},
		{"atom.global.v2.u32.add {%r1, %r2}, [%rd1], {%r1, %r2};", "not a valid type"},
		{"atom.global.cas.b32 %r1, [%rd1], 1;", "expects 4"},
		{"atom.global.u32 %r1, [%rd1], 1;", "needs an operation"},
		{"atom.shared.v2.f32.add {%f1, %f2}, [%rd1], {%f1, %f2};", ".global memory only"},
		{"atom.global.add.noftz.f32 %f1, [%rd1], %f1;", ".noftz applies only"},
	} {
		src := memHdr + `
.visible .entry k(.param .u64 pout) {
	.reg .u32 %r<3>; .reg .u64 %rd<3>; .reg .f32 %f<3>; .reg .b16 %h<2>;
	` + c.body + `
	ret;
}`
		if msg := memCompileErr(t, src); !strings.Contains(msg, c.want) {
			t.Errorf("%s: diagnostics do not mention %q:\n%s", c.body, c.want, msg)
		}
	}
}
