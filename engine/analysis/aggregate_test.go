package analysis

import (
	"context"
	"encoding/binary"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ptxplayground/ptxplay/engine/emu"
	"github.com/ptxplayground/ptxplay/engine/ptx"
)

// run compiles src, launches kernel k on one CTA of block threads with one
// global buffer of n bytes as its only parameter, with an Aggregator.
func run(t testing.TB, src string, block, n int) *Aggregator {
	t.Helper()
	s := ptx.NewSource("t.ptx", []byte(src))
	prog, diags := emu.CompileSource(s)
	if prog == nil {
		t.Fatalf("compile:\n%s", ptx.FormatAll(s, diags))
	}
	m, err := emu.NewMachine(prog, "k", emu.Config{Grid: [3]int{1, 1, 1}, Block: [3]int{block, 1, 1}})
	if err != nil {
		t.Fatal(err)
	}
	a := m.Global.Alloc("buf", n, 256)
	binary.LittleEndian.PutUint64(m.Params(), a.Base)
	g := NewAggregator(prog)
	m.SetObserver(g)
	if r := m.Run(context.Background()); r != emu.StopDone {
		t.Fatalf("stop %v: %v", r, m.Fault())
	}
	return g
}

// aggregatorKernel is TestAggregatorKernel's kernel.
const aggregatorKernel = `.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 p) {
	.shared .align 16 .b8 sm[8192];
	.reg .u32 %r<12>; .reg .u64 %rd<12>; .reg .f32 %f<8>;
	ld.param.u64 %rd1, [p];
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, sm;
	mul.lo.u32 %r3, %r1, 128;
	add.u32 %r4, %r2, %r3;
	st.shared.f32 [%r4], %f1;
	mul.lo.u32 %r5, %r1, 132;
	add.u32 %r6, %r2, %r5;
	ld.shared.f32 %f2, [%r6];
	cvta.shared.u64 %rd2, sm;
	mul.wide.u32 %rd3, %r1, 128;
	add.u64 %rd4, %rd2, %rd3;
	ld.f32 %f3, [%rd4];
	mul.lo.u32 %r7, %r1, 16;
	add.u32 %r8, %r2, %r7;
	ld.shared.v4.f32 {%f4, %f5, %f6, %f7}, [%r8];
	atom.shared.add.u32 %r9, [%r2], 1;
	mul.wide.u32 %rd5, %r1, 4;
	add.u64 %rd6, %rd1, %rd5;
	ld.global.f32 %f1, [%rd6];
	mul.wide.u32 %rd7, %r1, 32;
	add.u64 %rd8, %rd1, %rd7;
	ld.global.f32 %f1, [%rd8];
	mul.wide.u32 %rd9, %r1, 16;
	add.u64 %rd10, %rd1, %rd9;
	add.u32 %r10, %r2, %r7;
	cp.async.ca.shared.global [%r10], [%rd10], 16;
	cp.async.wait_all;
	ret;
}`

// line returns the table row whose instruction starts with prefix.
func line(t *testing.T, rows []LineStats, prefix string) LineStats {
	t.Helper()
	for _, r := range rows {
		if strings.HasPrefix(r.Instruction, prefix) {
			return r
		}
	}
	t.Fatalf("no line %q in %+v", prefix, rows)
	return LineStats{}
}

func TestAggregatorKernel(t *testing.T) {
	// One warp: shared accesses direct and through generic addresses,
	// vectors, an atomic, a cp.async and global loads.
	src := aggregatorKernel
	g := run(t, src, 32, 2048)
	rows := g.Lines()
	check := func(prefix string, space string, execs, wave, ideal, sectors, bytes int64) {
		t.Helper()
		r := line(t, rows, prefix)
		if r.Space() != space || r.Executions != execs || r.Wavefronts != wave || r.IdealWavefronts != ideal ||
			r.Sectors != sectors || r.BytesRequested != bytes {
			t.Errorf("%s: %+v (space %s), want space %s, %d executions, %d/%d wavefronts, %d sectors, %d bytes",
				prefix, r, r.Space(), space, execs, wave, ideal, sectors, bytes)
		}
	}
	// Stride 32 words: 32-way.
	check("st.shared.f32", "shared", 1, 32, 1, 0, 0)
	// Stride 33 words: conflict-free.
	check("ld.shared.f32", "shared", 1, 1, 1, 0, 0)
	// Generic load at stride 32 words of shared memory: resolved to
	// shared offsets, 32-way.
	check("ld.f32", "shared", 1, 32, 1, 0, 0)
	// 128-bit consecutive (size read from the instruction): 4 = ideal.
	check("ld.shared.v4.f32", "shared", 1, 4, 4, 0, 0)
	// 32 atomics on one word: 32.
	check("atom.shared", "shared", 1, 32, 1, 0, 0)
	// Coalesced 4-byte load: 4 sectors; strided: 32.
	r := line(t, rows, "ld.global.f32 %f1, [%rd6]")
	if r.Sectors != 4 || r.BytesRequested != 128 || r.Efficiency() != 1 || r.Space() != "global" {
		t.Errorf("coalesced: %+v", r)
	}
	r = line(t, rows, "ld.global.f32 %f1, [%rd8]")
	if r.Sectors != 32 || r.Efficiency() != 0.125 {
		t.Errorf("strided: %+v", r)
	}
	// cp.async reads 16 bytes per lane from global when it is issued (512
	// bytes, 16 sectors); the copies land in consecutive shared chunks
	// when the warp waits (4 quarter-warps, conflict-free), so the wait
	// carries the shared-memory side.
	check("cp.async.ca", "global", 1, 0, 0, 16, 512)
	check("cp.async.wait_all", "shared", 1, 4, 4, 0, 0)
	if len(rows) != 9 {
		t.Errorf("%d rows, want 9: %+v", len(rows), rows)
	}
	for i := 1; i < len(rows); i++ {
		if rows[i-1].Line >= rows[i].Line {
			t.Errorf("rows not sorted: %d then %d", rows[i-1].Line, rows[i].Line)
		}
	}
	if s := g.PC(-1); s.Executions != 0 {
		t.Error("PC(-1)")
	}
}

// ldmatrix through the emulator: rows of a 128-byte-wide tile, unswizzled
// ldmatrixKernel is TestAggregatorLdmatrix's kernel.
const ldmatrixKernel = `.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 p) {
	.shared .align 16 .b8 sm[1024];
	.reg .u32 %r<12>; .reg .b32 %a<4>;
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, sm;
	and.b32 %r3, %r1, 7;          // row r
	shr.u32 %r4, %r1, 3;          // matrix j (its chunk)
	shl.b32 %r5, %r3, 7;          // r * 128
	shl.b32 %r6, %r4, 4;          // j * 16
	add.u32 %r7, %r5, %r6;
	add.u32 %r7, %r7, %r2;
	ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%a0, %a1, %a2, %a3}, [%r7];
	xor.b32 %r8, %r4, %r3;        // chunk j ^ r
	shl.b32 %r8, %r8, 4;
	add.u32 %r9, %r5, %r8;
	add.u32 %r9, %r9, %r2;
	ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%a0, %a1, %a2, %a3}, [%r9];
	ret;
}`

// (8-way per matrix) and swizzled (conflict-free).
func TestAggregatorLdmatrix(t *testing.T) {
	src := ldmatrixKernel
	g := run(t, src, 32, 16)
	rows := g.Lines()
	plain := line(t, rows, "ldmatrix.sync.aligned.m8n8.x4.shared")
	if plain.Wavefronts != 32 || plain.IdealWavefronts != 4 || plain.ConflictDegree() != 8 {
		t.Errorf("unswizzled: %+v, want 32 wavefronts of ideal 4", plain)
	}
	sw := line(t, rows, "ldmatrix.sync.aligned.m8n8.x4.trans")
	if sw.Wavefronts != 4 || sw.IdealWavefronts != 4 || sw.ConflictDegree() != 1 {
		t.Errorf("swizzled: %+v, want 4 wavefronts of ideal 4", sw)
	}
}

// fullObserver hides the Aggregator's Observes: the machine reports
// everything to it.
type fullObserver struct{ g *Aggregator }

func (f fullObserver) Step(in *emu.StepInfo) { f.g.Step(in) }

// mergedOnly aggregates every step through FromStep.
type mergedOnly struct{ g *Aggregator }

func (o mergedOnly) Step(in *emu.StepInfo) {
	if len(in.Accesses) > 0 && in.PC >= 0 && in.PC < len(o.g.pcs) {
		o.g.stepMerged(in)
	}
}

// The Aggregator's sums do not depend on how it is installed: asking for
// accesses only (the emulator then takes its observed fast paths and
// reports nothing else), as an observer of everything, or aggregating
// every step through FromStep; the kernels cover fast-path loads and
// stores, generic, vector, atomic, cp.async and ldmatrix accesses, a
// divergent loop and a barrier.
func TestAggregatorInstalledAnyWay(t *testing.T) {
	tiled, err := os.ReadFile(filepath.Join("..", "emu", "testdata", "sgemm.ptx"))
	if err != nil {
		t.Fatal(err)
	}
	kernels := []struct {
		src         string
		grid, block [3]int
		n           int
	}{
		{aggregatorKernel, [3]int{1, 1, 1}, [3]int{32, 1, 1}, 2048},
		{ldmatrixKernel, [3]int{1, 1, 1}, [3]int{32, 1, 1}, 16},
		{string(tiled), [3]int{2, 2, 1}, [3]int{16, 16, 1}, 3 * 4 * 32 * 32},
	}
	for i, k := range kernels {
		s := ptx.NewSource("t.ptx", []byte(k.src))
		prog, diags := emu.CompileSource(s)
		if prog == nil {
			t.Fatalf("compile:\n%s", ptx.FormatAll(s, diags))
		}
		var sums [3][]PCStats
		for way := range sums {
			m, err := emu.NewMachine(prog, "k", emu.Config{Grid: k.grid, Block: k.block})
			if err != nil {
				t.Fatal(err)
			}
			a := m.Global.Alloc("buf", k.n, 256)
			p := m.Params()
			if i == 2 {
				// The tiled SGEMM: three 32×32 matrices and n = 32.
				for j := 0; j < 3; j++ {
					binary.LittleEndian.PutUint64(p[8*j:], a.Base+uint64(j*4*32*32))
				}
				binary.LittleEndian.PutUint32(p[24:], 32)
			} else {
				binary.LittleEndian.PutUint64(p, a.Base)
			}
			g := NewAggregator(prog)
			switch way {
			case 0:
				m.SetObserver(g)
			case 1:
				m.SetObserver(fullObserver{g})
			case 2:
				m.SetObserver(mergedOnly{g})
			}
			if r := m.Run(context.Background()); r != emu.StopDone {
				t.Fatalf("kernel %d: stop %v: %v", i, r, m.Fault())
			}
			sums[way] = g.pcs
		}
		if !slices.Equal(sums[0], sums[1]) || !slices.Equal(sums[0], sums[2]) {
			t.Errorf("kernel %d: sums differ:\nselective %+v\nfull      %+v\nmerged    %+v", i, sums[0], sums[1], sums[2])
		}
		executed := 0
		for _, s := range sums[0] {
			if s.Executions > 0 {
				executed++
			}
		}
		if executed < 2 {
			t.Errorf("kernel %d: %d instructions aggregated", i, executed)
		}
	}
}

// An mbarrier's update, named by every lane of the warp, is no data access
// the bank model applies to (it once read as a 16-way conflict); an
// ordinary shared store beside it still counts.
func TestAggregatorSkipsMbarriers(t *testing.T) {
	src := `.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 buf) {
	.reg .u32 %r<8>; .reg .u64 %rd<4>; .reg .pred %p<2>;
	.shared .align 8 .b64 bar;
	.shared .align 4 .b32 data[32];
	mov.u32 %r1, %tid.x;
	setp.eq.u32 %p1, %r1, 0;
	@%p1 mbarrier.init.shared.b64 [bar], 32;
	bar.sync 0;
	shl.b32 %r2, %r1, 2;
	mov.u32 %r3, data;
	add.u32 %r3, %r3, %r2;
	st.shared.u32 [%r3], %r1;
	mbarrier.arrive.shared.b64 %rd1, [bar];
	ret;
}`
	g := run(t, src, 32, 16)
	rows := g.Lines()
	for _, r := range rows {
		if strings.Contains(r.Instruction, "mbarrier") && (r.Shared || r.Wavefronts != 0) {
			t.Errorf("mbarrier line counted as a shared access: %+v", r)
		}
	}
	if st := line(t, rows, "st.shared.u32"); st.Wavefronts != 1 || st.IdealWavefronts != 1 {
		t.Errorf("the store: %+v, want 1 wavefront", st)
	}
}

// A wgmma.mma_async reads its operands through descriptors, as the
// asynchronous proxy: its line has no bank or coalescing verdict (it
// showed a "1.7-way conflict" from the reads noted per 16-byte piece),
// while the threads' own st.shared keeps its verdict.
func TestAggregatorSkipsWgmmaOperands(t *testing.T) {
	src := `.version 8.0
.target sm_90a
.address_size 64
.visible .entry k(.param .u64 buf) {
	.shared .align 1024 .b8 smem[2560];
	.reg .b32 %d<8>, %r<16>;
	.reg .b64 %rd<8>;
	.reg .pred %p<4>;
	mov.u32 %r1, %tid.x;
	mov.b64 %rd1, 0x0000001000080000;
	mov.b64 %rd2, 0x0000001000080080;
	setp.ne.u32 %p2, %r1, 1000;
	mov.b32 %d0, 0;
	mov.b32 %d1, 0;
	mov.b32 %d2, 0;
	mov.b32 %d3, 0;
	mov.u32 %r2, smem;
	shl.b32 %r3, %r1, 2;
	add.u32 %r2, %r2, %r3;
	mov.b32 %r4, 0x3c003c00;
	st.shared.b32 [%r2], %r4;
	st.shared.b32 [%r2+512], %r4;
	st.shared.b32 [%r2+1024], %r4;
	st.shared.b32 [%r2+1536], %r4;
	st.shared.b32 [%r2+2048], %r4;
	fence.proxy.async.shared::cta;
	bar.sync 0;
	wgmma.fence.sync.aligned;
	wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%d0, %d1, %d2, %d3}, %rd1, %rd2, %p2, 1, 1, 0, 0;
	wgmma.commit_group.sync.aligned;
	wgmma.wait_group.sync.aligned 0;
	ret;
}`
	g := run(t, src, 128, 16)
	rows := g.Lines()
	for _, r := range rows {
		if strings.Contains(r.Instruction, "wgmma") && (r.Shared || r.Wavefronts != 0) {
			t.Errorf("wgmma line counted as a warp's shared access: %+v", r)
		}
	}
	if st := line(t, rows, "st.shared.b32 [%r2], %r4;"); st.Wavefronts != 4 || st.IdealWavefronts != 4 {
		t.Errorf("the store: %+v, want 4 wavefronts (one per warp)", st)
	}
}

// TestAggregatorPlainSharedPattern: a full warp's 4-byte access given by
// its pattern counts as the same access given by its addresses, for every
// pattern: broadcasts of words in different banks, in one bank (a
// conflict) and of one word, rows, a column read twice, and a store.
func TestAggregatorPlainSharedPattern(t *testing.T) {
	s := ptx.NewSource("t.ptx", []byte(aggregatorKernel))
	prog, diags := emu.CompileSource(s)
	if prog == nil {
		t.Fatalf("compile:\n%s", ptx.FormatAll(s, diags))
	}
	pc := -1
	for i := range prog.Ops {
		if prog.Ops[i].Code.String() == "ld" {
			pc = i
			break
		}
	}
	if pc < 0 {
		t.Fatal("no ld")
	}
	cases := []struct {
		p       emu.WarpPattern
		o0, o16 uint64
	}{
		{emu.PatternBroadcastHalves, 0, 4},
		{emu.PatternBroadcastHalves, 0, 128},
		{emu.PatternBroadcastHalves, 64, 64},
		{emu.PatternBroadcastHalves, 8, 8 + 4*32*3},
		{emu.PatternRunHalves, 0, 64},
		{emu.PatternRunHalves, 132, 132},
		{emu.PatternRunHalves, 256, 256 + 64},
	}
	conflicts := 0
	for _, c := range cases {
		for _, kind := range []emu.AccessKind{emu.AccessLoad, emu.AccessStore} {
			a, b := NewAggregator(prog), NewAggregator(prog)
			var base [32]uint64
			c.p.Offsets(c.o0, c.o16, &base)
			for l := range 16 {
				if want := c.o0 + 4*uint64(l)*uint64(c.p-1); base[l] != want {
					t.Fatalf("%+v: lane %d at %d, want %d", c, l, base[l], want)
				}
			}
			a.PlainSharedPattern(pc, kind, c.p, c.o0, c.o16)
			b.PlainShared(pc, kind, 4, ^uint32(0), &base, 0xffffffff, 0)
			if ga, gb := a.PC(pc), b.PC(pc); ga != gb || ga.Executions != 1 {
				t.Errorf("%+v %v: by the pattern %+v, by the addresses %+v", c, kind, ga, gb)
			} else if ga.Wavefronts > ga.IdealWavefronts {
				conflicts++
			}
		}
	}
	if conflicts == 0 {
		t.Error("no case has a bank conflict")
	}
}
