package emu

import (
	"context"
	"encoding/binary"
	"slices"
	"testing"

	"github.com/ptxplayground/ptxplay/engine/isa"
	"github.com/ptxplayground/ptxplay/engine/ptx"
)

// obsStep is a copy of one reported step.
type obsStep struct {
	code    isa.Opcode
	pc      int
	acc     []Access
	shuffle *ShuffleStep
}

// stepCopier keeps a copy of every step that accessed memory or shuffled.
type stepCopier struct {
	prog  *Program
	steps []obsStep
	all   int
}

func (c *stepCopier) Step(in *StepInfo) {
	c.all++
	if len(in.Accesses) == 0 && in.Shuffle == nil {
		return
	}
	s := obsStep{code: c.prog.Ops[in.PC].Code, pc: in.PC, acc: slices.Clone(in.Accesses)}
	if in.Shuffle != nil {
		sh := *in.Shuffle
		s.shuffle = &sh
	}
	c.steps = append(c.steps, s)
}

// of returns the copied steps of opcode code, in execution order.
func (c *stepCopier) of(code isa.Opcode) []obsStep {
	var out []obsStep
	for _, s := range c.steps {
		if s.code == code {
			out = append(out, s)
		}
	}
	return out
}

// obsLaunch runs kernel k of src with one warp (threads lanes), global
// buffers bufs as its .u64 parameters and the observers given; it fails
// the test unless the launch completes.
func obsLaunch(t *testing.T, src string, threads int, obs []Observer, bufs ...[]byte) (*Machine, []*Alloc, *stepCopier) {
	t.Helper()
	s := ptx.NewSource("t.ptx", []byte(src))
	prog, diags := CompileSource(s)
	if prog == nil {
		t.Fatalf("compile:\n%s", ptx.FormatAll(s, diags))
	}
	m, err := NewMachine(prog, "k", Config{Block: [3]int{threads, 1, 1}})
	if err != nil {
		t.Fatal(err)
	}
	var allocs []*Alloc
	for i, b := range bufs {
		a := m.Global.Alloc("buf", len(b), 256)
		copy(a.Data, b)
		binary.LittleEndian.PutUint64(m.Params()[8*i:], a.Base)
		allocs = append(allocs, a)
	}
	c := &stepCopier{prog: prog}
	m.SetObserver(c)
	for _, o := range obs {
		m.AddObserver(o)
	}
	if r := m.Run(context.Background()); r != StopDone {
		t.Fatalf("launch stopped: %v %v", r, m.Fault())
	}
	return m, allocs, c
}

// wantAccess checks one reported access: kind, space, size, generic, lanes,
// and lane l's offset off(l).
func wantAccess(t *testing.T, what string, a *Access, kind AccessKind, space isa.Space, size int, generic bool, lanes uint32, off func(l int) uint64) {
	t.Helper()
	if a.Kind != kind || a.Space != space || a.Size != size || a.Generic != generic || a.Lanes != lanes || a.CTA != 0 {
		t.Errorf("%s: kind %d space %s size %d generic %v lanes %#x CTA %d; want kind %d space %s size %d generic %v lanes %#x CTA 0",
			what, a.Kind, a.Space, a.Size, a.Generic, a.Lanes, a.CTA, kind, space, size, generic, lanes)
		return
	}
	base, _ := window(space)
	for l := 0; l < 32; l++ {
		if lanes>>l&1 == 0 {
			continue
		}
		want := off(l)
		ga := want
		if generic {
			ga += base
		}
		if a.Addr[l] != want || a.GenericAddr(l) != ga {
			t.Errorf("%s: lane %d offset %#x (generic %#x), want %#x (%#x)", what, l, a.Addr[l], a.GenericAddr(l), want, ga)
		}
	}
}

// Generic loads and stores report the space they resolved to, the offset
// in it (never the generic address), their size (loads too) and, for
// stores, the bytes they replaced.
func TestObserverGenericAddressing(t *testing.T) {
	src := memHdr + `
.visible .entry k(.param .u64 pg) {
	.shared .align 4 .u32 sm[64];
	.local .align 4 .u32 loc[4];
	.reg .u32 %r<6>; .reg .u64 %rd<10>;
	ld.param.u64 %rd1, [pg];
	cvta.to.global.u64 %rd1, %rd1;
	mov.u32 %r1, %tid.x;
	mul.wide.u32 %rd2, %r1, 4;
	// generic global: word tid
	add.u64 %rd3, %rd1, %rd2;
	ld.u32 %r2, [%rd3];
	add.u32 %r3, %r2, 100;
	st.u32 [%rd3], %r3;
	// generic shared: word 2*tid (sm starts at 0 in this module)
	mov.u64 %rd4, sm;
	cvta.shared.u64 %rd4, %rd4;
	mul.wide.u32 %rd5, %r1, 8;
	add.u64 %rd6, %rd4, %rd5;
	st.u32 [%rd6+4], %r1;
	ld.u16 %r4, [%rd6+4];
	// generic local: word 1 of every thread's loc
	mov.u64 %rd7, loc;
	cvta.local.u64 %rd7, %rd7;
	st.u32 [%rd7+4], %r3;
	ld.u8 %r5, [%rd7+5];
	ret;
}`
	g := make([]byte, 4*32)
	for i := range 32 {
		binary.LittleEndian.PutUint32(g[4*i:], uint32(7*i))
	}
	_, a, c := obsLaunch(t, src, 32, nil, g)
	full := uint32(0xffffffff)
	lds, sts := c.of(isa.OpLd), c.of(isa.OpSt)
	// ld.param is the first load: a parameter-space, non-generic load.
	if len(lds) != 4 || len(sts) != 3 {
		t.Fatalf("%d loads, %d stores reported", len(lds), len(sts))
	}
	for _, s := range append(lds, sts...) {
		if len(s.acc) != 1 {
			t.Fatalf("pc %d: %d accesses, want 1: %+v", s.pc, len(s.acc), s.acc)
		}
	}
	wantAccess(t, "ld.param", &lds[0].acc[0], AccessLoad, isa.Param, 8, false, full, func(int) uint64 { return 0 })
	gb := a[0].Base
	wantAccess(t, "generic ld global", &lds[1].acc[0], AccessLoad, isa.Global, 4, true, full, func(l int) uint64 { return gb + 4*uint64(l) })
	wantAccess(t, "generic st global", &sts[0].acc[0], AccessStore, isa.Global, 4, true, full, func(l int) uint64 { return gb + 4*uint64(l) })
	wantAccess(t, "generic st shared", &sts[1].acc[0], AccessStore, isa.Shared, 4, true, full, func(l int) uint64 { return 8*uint64(l) + 4 })
	wantAccess(t, "generic ld shared", &lds[2].acc[0], AccessLoad, isa.Shared, 2, true, full, func(l int) uint64 { return 8*uint64(l) + 4 })
	wantAccess(t, "generic st local", &sts[2].acc[0], AccessStore, isa.Local, 4, true, full, func(int) uint64 { return 4 })
	wantAccess(t, "generic ld local", &lds[3].acc[0], AccessLoad, isa.Local, 1, true, full, func(int) uint64 { return 5 })
	for l := 0; l < 32; l++ {
		// The global store replaced 7l; shared and local were zero.
		if got := binary.LittleEndian.Uint32(sts[0].acc[0].Old[l][:]); got != uint32(7*l) {
			t.Errorf("global store lane %d: old %d, want %d", l, got, 7*l)
		}
		if got := binary.LittleEndian.Uint32(sts[1].acc[0].Old[l][:]); got != 0 {
			t.Errorf("shared store lane %d: old %d, want 0", l, got)
		}
	}
}

// Vector accesses report the whole vector per lane; the fast paths of
// 32/64-bit ld and st (full warp, uniform address) report every lane.
func TestObserverVectorsAndFastPaths(t *testing.T) {
	src := memHdr + `
.visible .entry k(.param .u64 pg) {
	.shared .align 16 .u32 sm[256];
	.reg .u32 %r<10>; .reg .u64 %rd<10>;
	ld.param.u64 %rd1, [pg];
	mov.u32 %r1, %tid.x;
	mul.wide.u32 %rd2, %r1, 16;
	add.u64 %rd3, %rd1, %rd2;
	ld.global.v4.u32 {%r2, %r3, %r4, %r5}, [%rd3];
	mul.lo.u32 %r6, %r1, 16;
	st.shared.v2.u32 [%r6+8], {%r2, %r3};
	st.shared.v2.u32 [%r6+8], {%r4, %r5};
	ld.shared.u32 %r7, [%r6+8];
	ld.shared.u32 %r8, [sm+12];
	mul.wide.u32 %rd4, %r1, 8;
	add.u64 %rd5, %rd1, %rd4;
	ld.global.u64 %rd6, [%rd5];
	st.global.u64 [%rd5], %rd6;
	st.shared.u32 [%r6], %r7;
	ret;
}`
	g := make([]byte, 16*32)
	for i := range g {
		g[i] = byte(i)
	}
	_, a, c := obsLaunch(t, src, 32, nil, g)
	full := uint32(0xffffffff)
	gb := a[0].Base
	lds, sts := c.of(isa.OpLd), c.of(isa.OpSt)
	if len(lds) != 5 || len(sts) != 4 {
		t.Fatalf("%d loads, %d stores reported", len(lds), len(sts))
	}
	wantAccess(t, "ld.global.v4", &lds[1].acc[0], AccessLoad, isa.Global, 16, false, full, func(l int) uint64 { return gb + 16*uint64(l) })
	wantAccess(t, "st.shared.v2", &sts[0].acc[0], AccessStore, isa.Shared, 8, false, full, func(l int) uint64 { return 16*uint64(l) + 8 })
	wantAccess(t, "st.shared.v2 again", &sts[1].acc[0], AccessStore, isa.Shared, 8, false, full, func(l int) uint64 { return 16*uint64(l) + 8 })
	for l := 0; l < 32; l++ {
		// The second vector store replaced the first one's words 0 and 1
		// of lane l's 16 bytes.
		want := g[16*l : 16*l+8]
		if got := sts[1].acc[0].Old[l][:8]; !slices.Equal(got, want) {
			t.Errorf("st.shared.v2 lane %d: old % x, want % x", l, got, want)
		}
	}
	wantAccess(t, "ld.shared fast path", &lds[2].acc[0], AccessLoad, isa.Shared, 4, false, full, func(l int) uint64 { return 16*uint64(l) + 8 })
	wantAccess(t, "ld.shared uniform", &lds[3].acc[0], AccessLoad, isa.Shared, 4, false, full, func(int) uint64 { return 12 })
	wantAccess(t, "ld.global fast path", &lds[4].acc[0], AccessLoad, isa.Global, 8, false, full, func(l int) uint64 { return gb + 8*uint64(l) })
	wantAccess(t, "st.global fast path", &sts[2].acc[0], AccessStore, isa.Global, 8, false, full, func(l int) uint64 { return gb + 8*uint64(l) })
	wantAccess(t, "st.shared fast path", &sts[3].acc[0], AccessStore, isa.Shared, 4, false, full, func(l int) uint64 { return 16 * uint64(l) })
	for l := 0; l < 32; l++ {
		if got, want := sts[2].acc[0].Old[l][:8], g[8*l:8*l+8]; !slices.Equal(got, want) {
			t.Errorf("st.global lane %d: old % x, want % x", l, got, want)
		}
	}

	// With part of the warp: only its lanes.
	_, _, c = obsLaunch(t, src, 20, nil, g)
	if ld := c.of(isa.OpLd); len(ld) != 5 || ld[4].acc[0].Lanes != 1<<20-1 || ld[3].acc[0].Lanes != 1<<20-1 {
		t.Errorf("partial warp: %+v", ld)
	}
}

// Atomics report the bytes each lane found, in lane order: lanes adding to
// one word see the sums of the lanes before them.
func TestObserverAtomics(t *testing.T) {
	src := memHdr + `
.visible .entry k(.param .u64 pg) {
	.shared .align 8 .u32 sm[8];
	.reg .u32 %r<6>; .reg .u64 %rd<6>;
	ld.param.u64 %rd1, [pg];
	mov.u32 %r1, %tid.x;
	atom.global.add.u32 %r2, [%rd1], %r1;
	mov.u64 %rd2, sm;
	cvta.shared.u64 %rd2, %rd2;
	and.b32 %r3, %r1, 1;
	mul.wide.u32 %rd3, %r3, 4;
	add.u64 %rd4, %rd2, %rd3;
	atom.exch.b32 %r4, [%rd4+8], %r1;
	red.global.add.u64 [%rd1+8], 1;
	ret;
}`
	g := make([]byte, 16)
	binary.LittleEndian.PutUint32(g, 1000)
	_, a, c := obsLaunch(t, src, 32, nil, g)
	at := c.of(isa.OpAtom)
	if len(at) != 2 {
		t.Fatalf("%d atom steps", len(at))
	}
	full := uint32(0xffffffff)
	gb := a[0].Base
	wantAccess(t, "atom.global.add", &at[0].acc[0], AccessAtomic, isa.Global, 4, false, full, func(int) uint64 { return gb })
	sum := uint32(1000)
	for l := 0; l < 32; l++ {
		if got := binary.LittleEndian.Uint32(at[0].acc[0].Old[l][:]); got != sum {
			t.Errorf("atom.add lane %d: old %d, want %d", l, got, sum)
		}
		sum += uint32(l)
	}
	wantAccess(t, "generic atom.exch", &at[1].acc[0], AccessAtomic, isa.Shared, 4, true, full, func(l int) uint64 { return 8 + 4*uint64(l&1) })
	for l := 0; l < 32; l++ {
		// Lane l found the value of the previous lane of its parity.
		want := uint32(0)
		if l >= 2 {
			want = uint32(l - 2)
		}
		if got := binary.LittleEndian.Uint32(at[1].acc[0].Old[l][:]); got != want {
			t.Errorf("atom.exch lane %d: old %d, want %d", l, got, want)
		}
	}
	red := c.of(isa.OpRed)
	if len(red) != 1 {
		t.Fatalf("%d red steps", len(red))
	}
	wantAccess(t, "red.global.add.u64", &red[0].acc[0], AccessAtomic, isa.Global, 8, false, full, func(int) uint64 { return gb + 8 })
	if got := binary.LittleEndian.Uint64(red[0].acc[0].Old[31][:]); got != 31 {
		t.Errorf("red lane 31: old %d, want 31", got)
	}
}

// wmma.load reports every unit each lane loads: one Access per unit, in
// unit order, each with all 32 lanes.
func TestObserverWmmaUnits(t *testing.T) {
	fi := isa.LookupFragments("wmma.load.a.m16n16k16.f16")
	if fi == nil {
		t.Skip("no fragment table for wmma.load.a.m16n16k16.f16")
	}
	src := memHdr + `
.visible .entry k(.param .u64 pg) {
	.reg .b32 %x<8>; .reg .u64 %rd<3>;
	ld.param.u64 %rd1, [pg];
	wmma.load.a.sync.aligned.row.m16n16k16.global.f16 {%x0, %x1, %x2, %x3, %x4, %x5, %x6, %x7}, [%rd1];
	ret;
}`
	_, a, c := obsLaunch(t, src, 32, nil, make([]byte, 16*16*2))
	w := c.of(isa.OpWmmaLoad)
	if len(w) != 1 || len(w[0].acc) == 0 {
		t.Fatalf("wmma.load steps %+v", w)
	}
	// Access u holds unit u of every lane: the element (row, col) of the
	// fragment layout, 2 bytes at (16 row + col) * 2 (row major).
	wm := newWmmaMem(fi)
	if len(w[0].acc) != len(wm.units[0]) {
		t.Fatalf("%d accesses, want %d units", len(w[0].acc), len(wm.units[0]))
	}
	seen := map[uint64]bool{}
	for u := range w[0].acc {
		wantAccess(t, "wmma.load unit", &w[0].acc[u], AccessLoad, isa.Global, 2, false, 0xffffffff, func(l int) uint64 {
			un := wm.units[l][u]
			return a[0].Base + uint64(16*un.row+un.col)*2
		})
		for l := 0; l < 32; l++ {
			seen[w[0].acc[u].Addr[l]] = true
		}
	}
	if len(seen) != 256 {
		t.Errorf("wmma.load read %d distinct elements, want all 256", len(seen))
	}
}

// shfl reports the lane each lane read from, and which sources were in
// range.
func TestObserverShuffleSources(t *testing.T) {
	src := memHdr + `
.visible .entry k(.param .u64 pg) {
	.reg .u32 %r<4>; .reg .pred %p;
	mov.u32 %r1, %tid.x;
	shfl.sync.bfly.b32 %r2, %r1, 5, 31, 0xffffffff;
	shfl.sync.up.b32 %r2|%p, %r1, 3, 0, 0xffffffff;
	shfl.sync.down.b32 %r2|%p, %r1, 2, 0x1f, 0xffffffff;
	shfl.sync.idx.b32 %r2, %r1, 4, 0x181f, 0xffffffff;
	setp.lt.u32 %p, %r1, 16;
	@%p shfl.sync.idx.b32 %r2, %r1, 1, 0x1f, 0xffff;
	ret;
}`
	_, _, c := obsLaunch(t, src, 32, nil)
	sh := c.of(isa.OpShfl)
	if len(sh) != 5 {
		t.Fatalf("%d shfl steps", len(sh))
	}
	type rule struct {
		name  string
		lanes uint32
		src   func(l int) (int, bool)
	}
	rules := []rule{
		{"bfly 5", 0xffffffff, func(l int) (int, bool) { return l ^ 5, true }},
		{"up 3", 0xffffffff, func(l int) (int, bool) {
			if l < 3 {
				return l, false
			}
			return l - 3, true
		}},
		{"down 2", 0xffffffff, func(l int) (int, bool) {
			if l+2 > 31 {
				return l, false
			}
			return l + 2, true
		}},
		// segments of 8 lanes (c = 0x181f: segmask 0x18): lane 4 of each.
		{"idx 4 in 8-lane segments", 0xffffffff, func(l int) (int, bool) { return l&^7 | 4, true }},
		{"idx 1, half warp", 0xffff, func(l int) (int, bool) { return 1, true }},
	}
	for i, r := range rules {
		s := sh[i].shuffle
		if s == nil || s.Lanes != r.lanes || len(sh[i].acc) != 0 {
			t.Errorf("%s: report %+v", r.name, s)
			continue
		}
		for l := 0; l < 32; l++ {
			if r.lanes>>l&1 == 0 {
				continue
			}
			j, ok := r.src(l)
			if int(s.Src[l]) != j || (s.Valid>>l&1 != 0) != ok {
				t.Errorf("%s: lane %d: source %d valid %v, want %d %v", r.name, l, s.Src[l], s.Valid>>l&1 != 0, j, ok)
			}
		}
	}
}

// counter counts the steps it sees.
type counter struct{ n int }

func (c *counter) Step(*StepInfo) { c.n++ }

// Several observers see every step; a removed one no longer does, and
// SetObserver's slot is independent of the added ones.
func TestObserverSeveral(t *testing.T) {
	src := memHdr + `
.visible .entry k(.param .u64 pg) {
	.reg .u32 %r<4>;
	mov.u32 %r1, %tid.x;
	add.u32 %r1, %r1, 1;
	add.u32 %r1, %r1, 1;
	ret;
}`
	var a, b counter
	_, _, c := obsLaunch(t, src, 32, []Observer{&a, &b})
	if c.all != 4 || a.n != 4 || b.n != 4 {
		t.Fatalf("steps seen: %d %d %d, want 4 each", c.all, a.n, b.n)
	}

	prog, diags := CompileSource(ptx.NewSource("t.ptx", []byte(src)))
	if prog == nil {
		t.Fatal(diags)
	}
	m, err := NewMachine(prog, "k", Config{Block: [3]int{32, 1, 1}})
	if err != nil {
		t.Fatal(err)
	}
	var x, y, z counter
	rmX := m.AddObserver(&x)
	rmY := m.AddObserver(&y)
	m.SetObserver(&z)
	m.AddObserver(nil)()
	if r := m.Step(StepWarpInstruction); r != StopStepped {
		t.Fatal(r)
	}
	rmX()
	rmX() // harmless twice
	m.Step(StepWarpInstruction)
	m.SetObserver(nil)
	m.Step(StepWarpInstruction)
	rmY()
	if m.obs != nil {
		t.Errorf("observers left installed: %T", m.obs)
	}
	m.Step(StepWarpInstruction)
	if x.n != 1 || y.n != 3 || z.n != 2 {
		t.Errorf("steps seen %d %d %d, want 1 3 2", x.n, y.n, z.n)
	}
}
