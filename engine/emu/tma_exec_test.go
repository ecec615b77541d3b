package emu

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/ptxplayground/ptxplay/engine/isa"
	"github.com/ptxplayground/ptxplay/engine/ptx"
)

// tmaLaunch is a kernel k(.param .u64 out, .param .u64 tmap) whose tensor
// map (built with isa.TensorMap.Encode) is in global memory over a tensor
// of the given bytes.
type tmaLaunch struct {
	src     string
	block   int
	grid    int
	cluster int
	words   int
	tensor  []byte
	tmap    isa.TensorMap
}

func (l tmaLaunch) machine(t testing.TB, sched Scheduling) *Machine {
	t.Helper()
	s := ptx.NewSource("k.ptx", []byte(l.src))
	prog, diags := CompileSource(s)
	if prog == nil {
		t.Fatalf("compile:\n%s", ptx.FormatAll(s, diags))
	}
	cfg := Config{Grid: [3]int{max(l.grid, 1), 1, 1}, Block: [3]int{l.block, 1, 1}, Scheduling: sched}
	if l.cluster > 0 {
		cfg.Cluster = [3]int{l.cluster, 1, 1}
	}
	m, err := NewMachine(prog, "k", cfg)
	if err != nil {
		t.Fatal(err)
	}
	out := m.Global.Alloc("out", 4*l.words, 256)
	ten := m.Global.Alloc("tensor", len(l.tensor), 256)
	copy(ten.Data, l.tensor)
	tm := l.tmap
	tm.GlobalAddress = ten.Base
	enc := tm.Encode()
	mp := m.Global.Alloc("tmap", 128, 256)
	copy(mp.Data, enc[:])
	binary.LittleEndian.PutUint64(m.Params(), out.Base)
	binary.LittleEndian.PutUint64(m.Params()[8:], mp.Base)
	return m
}

// run runs l in both scheduling models, batched and stepped, checks they
// agree, and returns the stop reason, out and the tensor.
func (l tmaLaunch) run(t *testing.T) (StopReason, []uint32, []byte, *Machine) {
	t.Helper()
	var first string
	var fr StopReason
	var fo []uint32
	var ft []byte
	var fm *Machine
	for _, sched := range bothScheds {
		a, c := l.machine(t, sched), l.machine(t, sched)
		ra := a.Run(context.Background())
		rc := StopStepped
		for n := 0; rc == StopStepped && n < 1e6; n++ {
			rc = c.Step(StepWarpInstruction)
		}
		if ra != rc {
			t.Fatalf("%s: run stopped with %v, stepped with %v (%v)", sched, ra, rc, a.Fault())
		}
		if d := a.DiffState(c); d != "" {
			t.Fatalf("%s: run and stepping differ: %s", sched, d)
		}
		byName := map[string][]byte{}
		for _, x := range a.Global.Allocs() {
			byName[x.Name] = x.Data
		}
		out := make([]uint32, l.words)
		for i := range out {
			out[i] = binary.LittleEndian.Uint32(byName["out"][4*i:])
		}
		ten := append([]byte(nil), byName["tensor"]...)
		key := fmt.Sprint(ra, out, ten)
		if first == "" {
			first, fr, fo, ft, fm = key, ra, out, ten, a
		} else if key != first {
			t.Fatalf("the scheduling models disagree")
		}
	}
	return fr, fo, ft, fm
}

func tmaKernel(body string) string {
	return clusterHead + `.visible .entry k(.param .u64 out, .param .u64 tmap) {
	.reg .u32 %r<40>; .reg .u64 %rd<40>; .reg .pred %p<16>; .reg .b16 %rs<4>;
	.shared .align 1024 .b8 buf[2048];
	.shared .align 8 .b64 bar;
	ld.param.u64 %rd1, [out];
	ld.param.u64 %rd2, [tmap];
	mov.u32 %r1, %tid.x;
` + body + `
	ret;
}`
}

// A 2-D f16 tile (64x8 box of a 64x64 tensor at rows 8..15) loaded with
// the 128-byte swizzle: shared memory matches TMAPlaceTile and the §5.5.7
// pattern (16-byte chunk c of row r lands at chunk c ^ (r % 8)).
func TestTMATileLoadSwizzle128(t *testing.T) {
	ten := make([]byte, 64*64*2)
	for y := 0; y < 64; y++ {
		for x := 0; x < 64; x++ {
			binary.LittleEndian.PutUint16(ten[2*(y*64+x):], uint16(y*64+x))
		}
	}
	tm := isa.TensorMap{Rank: 2, GlobalDim: [5]uint64{64, 64}, GlobalStrides: [4]uint64{128}, BoxDim: [5]uint32{64, 8},
		ElementStrides: [5]uint32{1, 1, 1, 1, 1}, ElemType: isa.TensorF16, SwizzleMode: isa.TMSwizzle128B}
	body := `	setp.ne.u32 %p1, %r1, 0;
	@%p1 bra WAIT;
	mbarrier.init.shared.b64 [bar], 1;
	mov.u32 %r2, 0;
	mov.u32 %r3, 8;
	mbarrier.arrive.expect_tx.shared.b64 %rd3, [bar], 1024;
	cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [buf], [%rd2, {%r2, %r3}], [bar];
WAIT:
	bar.sync 0;
LOOP:
	mbarrier.try_wait.parity.shared.b64 %p2, [bar], 0;
	@!%p2 bra LOOP;
	mov.u32 %r4, 0;
COPY:
	shl.b32 %r5, %r4, 5;
	add.u32 %r5, %r5, %r1;
	shl.b32 %r6, %r5, 2;
	mov.u32 %r7, buf;
	add.u32 %r7, %r7, %r6;
	ld.shared.u32 %r8, [%r7];
	cvt.u64.u32 %rd4, %r6;
	add.u64 %rd5, %rd1, %rd4;
	st.global.u32 [%rd5], %r8;
	add.u32 %r4, %r4, 1;
	setp.lt.u32 %p3, %r4, 8;
	@%p3 bra COPY;
`
	r, out, _, m := tmaLaunch{src: tmaKernel(body), block: 32, words: 256, tensor: ten, tmap: tm}.run(t)
	if r != StopDone {
		t.Fatalf("stopped with %v: %v", r, m.Fault())
	}
	sh := make([]byte, 1024)
	for i, w := range out {
		binary.LittleEndian.PutUint32(sh[4*i:], w)
	}
	tm.GlobalAddress = 0
	p, err := TMAPlaceTile(tm, []int32{0, 8}, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range p.Elements {
		want := uint16(e.Coord[1]*64 + e.Coord[0])
		if got := binary.LittleEndian.Uint16(sh[e.Shared:]); got != want {
			t.Fatalf("element %v at shared +%#x: %d, want %d", e.Coord[:2], e.Shared, got, want)
		}
	}
	for r := 0; r < 8; r++ {
		for x := 0; x < 64; x++ {
			chunk := (x * 2) / 16
			phys := r*128 + (chunk^(r%8))*16 + (x*2)%16
			if got, want := binary.LittleEndian.Uint16(sh[phys:]), uint16((8+r)*64+x); got != want {
				t.Fatalf("row %d x %d at %#x: %d, want %d (§5.5.7 128B pattern)", r, x, phys, got, want)
			}
		}
	}
}

// oobKernel loads a 16x8 f32 box at rows 60..67 of a 16x64 tensor (rows
// 64..67 out of bounds) expecting the full 512-byte box on the mbarrier;
// thread 0 stores the 128 words.
const oobBody = `	setp.ne.u32 %p1, %r1, 0;
	@%p1 ret;
	mbarrier.init.shared.b64 [bar], 1;
	mov.u32 %r2, 0;
	mov.u32 %r3, 60;
	mbarrier.arrive.expect_tx.shared.b64 %rd3, [bar], 512;
	cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [buf], [%rd2, {%r2, %r3}], [bar];
LOOP:
	mbarrier.try_wait.parity.shared.b64 %p2, [bar], 0;
	@!%p2 bra LOOP;
	mov.u32 %r4, 0;
COPY:
	shl.b32 %r6, %r4, 2;
	mov.u32 %r7, buf;
	add.u32 %r7, %r7, %r6;
	ld.shared.u32 %r8, [%r7];
	cvt.u64.u32 %rd4, %r6;
	add.u64 %rd5, %rd1, %rd4;
	st.global.u32 [%rd5], %r8;
	add.u32 %r4, %r4, 1;
	setp.lt.u32 %p3, %r4, 128;
	@%p3 bra COPY;
`

// Out-of-bounds elements read as zero or as the NaN fill, and the phase
// completes on the full box's 512 transaction bytes.
func TestTMAOOBFillFullBoxTx(t *testing.T) {
	ten := make([]byte, 16*64*4)
	for i := 0; i < 16*64; i++ {
		binary.LittleEndian.PutUint32(ten[4*i:], math.Float32bits(float32(i)))
	}
	for _, nan := range []bool{false, true} {
		tm := isa.TensorMap{Rank: 2, GlobalDim: [5]uint64{16, 64}, GlobalStrides: [4]uint64{64}, BoxDim: [5]uint32{16, 8},
			ElementStrides: [5]uint32{1, 1, 1, 1, 1}, ElemType: isa.TensorF32, FillNaN: nan}
		r, out, _, m := tmaLaunch{src: tmaKernel(oobBody), block: 32, words: 128, tensor: ten, tmap: tm}.run(t)
		if r != StopDone {
			t.Fatalf("nan=%v: stopped with %v: %v", nan, r, m.Fault())
		}
		for i, w := range out {
			y := 60 + i/16
			if y < 64 {
				if want := math.Float32bits(float32(y*16 + i%16)); w != want {
					t.Fatalf("nan=%v word %d: %#x, want %#x", nan, i, w, want)
				}
				continue
			}
			f := math.Float32frombits(w)
			if nan && !math.IsNaN(float64(f)) || !nan && w != 0 {
				t.Fatalf("nan=%v: out-of-bounds word %d is %#x", nan, i, w)
			}
		}
	}
}

// A consumer warp that reads the destination without waiting on the
// mbarrier reads the stale (zero) bytes, every run; one that waits reads
// the copy.
func TestTMAMissingWaitReadsStale(t *testing.T) {
	ten := make([]byte, 64*4)
	for i := 0; i < 64; i++ {
		binary.LittleEndian.PutUint32(ten[4*i:], uint32(100+i))
	}
	tm := isa.TensorMap{Rank: 1, GlobalDim: [5]uint64{64}, BoxDim: [5]uint32{32}, ElementStrides: [5]uint32{1, 1, 1, 1, 1}, ElemType: isa.TensorU32}
	for _, wait := range []bool{false, true} {
		w := ""
		if wait {
			w = `LOOP:
	mbarrier.try_wait.parity.shared.b64 %p2, [bar], 0;
	@!%p2 bra LOOP;`
		}
		body := `	setp.ne.u32 %p1, %r1, 0;
	@%p1 bra SYNC;
	mbarrier.init.shared.b64 [bar], 1;
	mov.u32 %r2, 0;
	mbarrier.arrive.expect_tx.shared.b64 %rd3, [bar], 128;
	cp.async.bulk.tensor.1d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [buf], [%rd2, {%r2}], [bar];
SYNC:
	bar.sync 0;
	setp.lt.u32 %p1, %r1, 32;
	@%p1 ret;
` + w + `
	sub.u32 %r4, %r1, 32;
	shl.b32 %r6, %r4, 2;
	mov.u32 %r7, buf;
	add.u32 %r7, %r7, %r6;
	ld.shared.u32 %r8, [%r7];
	cvt.u64.u32 %rd4, %r6;
	add.u64 %rd5, %rd1, %rd4;
	st.global.u32 [%rd5], %r8;
`
		r, out, _, m := tmaLaunch{src: tmaKernel(body), block: 64, words: 32, tensor: ten, tmap: tm}.run(t)
		if r != StopDone {
			t.Fatalf("wait=%v: stopped with %v: %v", wait, r, m.Fault())
		}
		for i, v := range out {
			want := uint32(0)
			if wait {
				want = uint32(100 + i)
			}
			if v != want {
				t.Fatalf("wait=%v: word %d is %d, want %d", wait, i, v, want)
			}
		}
	}
}

// A multicast load reaches every CTA of a 2- and a 4-CTA cluster, each
// completing on its own mbarrier.
func TestTMAMulticastCluster(t *testing.T) {
	ten := make([]byte, 64*4)
	for i := 0; i < 64; i++ {
		binary.LittleEndian.PutUint32(ten[4*i:], uint32(7*i+1))
	}
	tm := isa.TensorMap{Rank: 1, GlobalDim: [5]uint64{64}, BoxDim: [5]uint32{32}, ElementStrides: [5]uint32{1, 1, 1, 1, 1}, ElemType: isa.TensorU32}
	for _, n := range []int{2, 4} {
		body := fmt.Sprintf(`	mov.u32 %%r9, %%cluster_ctarank;
	setp.ne.u32 %%p1, %%r1, 0;
	@%%p1 bra SYNC;
	mbarrier.init.shared.b64 [bar], 1;
	mbarrier.arrive.expect_tx.shared.b64 %%rd3, [bar], 128;
SYNC:
	barrier.cluster.arrive;
	barrier.cluster.wait;
	or.pred %%p4, %%p1, %%p1;
	setp.ne.u32 %%p5, %%r9, 0;
	or.pred %%p4, %%p4, %%p5;
	@%%p4 bra WAIT;
	mov.u32 %%r2, 16;
	mov.b16 %%rs1, %d;
	cp.async.bulk.tensor.1d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster [buf], [%%rd2, {%%r2}], [bar], %%rs1;
WAIT:
LOOP:
	mbarrier.try_wait.parity.shared.b64 %%p2, [bar], 0;
	@!%%p2 bra LOOP;
	shl.b32 %%r6, %%r1, 2;
	mov.u32 %%r7, buf;
	add.u32 %%r7, %%r7, %%r6;
	ld.shared.u32 %%r8, [%%r7];
	shl.b32 %%r10, %%r9, 7;
	add.u32 %%r10, %%r10, %%r6;
	cvt.u64.u32 %%rd4, %%r10;
	add.u64 %%rd5, %%rd1, %%rd4;
	st.global.u32 [%%rd5], %%r8;
	barrier.cluster.arrive;
	barrier.cluster.wait;
`, 1<<n-1)
		r, out, _, m := tmaLaunch{src: tmaKernel(body), block: 32, grid: n, cluster: n, words: 32 * n, tensor: ten, tmap: tm}.run(t)
		if r != StopDone {
			t.Fatalf("%d CTAs: stopped with %v: %v", n, r, m.Fault())
		}
		for i, v := range out {
			if want := uint32(7*(16+i%32) + 1); v != want {
				t.Fatalf("%d CTAs: CTA %d word %d is %d, want %d", n, i/32, i%32, v, want)
			}
		}
	}
}

// A tile store (out-of-bounds elements not written) and a reduction
// (.add) to global memory, checked by hand.
func TestTMATileStoreAndReduceAdd(t *testing.T) {
	ten := make([]byte, 48*4)
	for i := 0; i < 48; i++ {
		binary.LittleEndian.PutUint32(ten[4*i:], uint32(1000+i))
	}
	tm := isa.TensorMap{Rank: 1, GlobalDim: [5]uint64{40}, BoxDim: [5]uint32{32}, ElementStrides: [5]uint32{1, 1, 1, 1, 1}, ElemType: isa.TensorU32}
	body := `	add.u32 %r2, %r1, 1;
	shl.b32 %r6, %r1, 2;
	mov.u32 %r7, buf;
	add.u32 %r7, %r7, %r6;
	st.shared.u32 [%r7], %r2;
	fence.proxy.async.shared::cta;
	bar.sync 0;
	setp.ne.u32 %p1, %r1, 0;
	@%p1 ret;
	mov.u32 %r3, 16;
	mov.u32 %r4, 0;
	cp.async.bulk.tensor.1d.global.shared::cta.tile.bulk_group [%rd2, {%r3}], [buf];
	cp.reduce.async.bulk.tensor.1d.global.shared::cta.add.tile.bulk_group [%rd2, {%r4}], [buf];
	cp.async.bulk.commit_group;
	cp.async.bulk.wait_group.read 0;
`
	r, _, got, m := tmaLaunch{src: tmaKernel(body), block: 32, words: 1, tensor: ten, tmap: tm}.run(t)
	if r != StopDone {
		t.Fatalf("stopped with %v: %v", r, m.Fault())
	}
	for i := 0; i < 48; i++ {
		want := uint32(1000 + i)
		if i >= 16 && i < 40 {
			want = uint32(i - 16 + 1)
		}
		if i < 32 {
			want += uint32(i + 1)
		}
		if v := binary.LittleEndian.Uint32(got[4*i:]); v != want {
			t.Fatalf("element %d: %d, want %d", i, v, want)
		}
	}
}

// Non-tensor bulk copies: global -> shared on an mbarrier, shared ->
// global in a bulk group (with commit and wait_group), a bulk reduction
// (.add.u32) and a prefetch.
func TestBulkCopiesAndGroups(t *testing.T) {
	ten := make([]byte, 64*4)
	for i := 0; i < 64; i++ {
		binary.LittleEndian.PutUint32(ten[4*i:], uint32(i*3))
	}
	tm := isa.TensorMap{Rank: 1, GlobalDim: [5]uint64{64}, BoxDim: [5]uint32{32}, ElementStrides: [5]uint32{1, 1, 1, 1, 1}, ElemType: isa.TensorU32}
	body := `	setp.ne.u32 %p1, %r1, 0;
	@%p1 ret;
	ld.global.u64 %rd6, [%rd2];
	mbarrier.init.shared.b64 [bar], 1;
	mbarrier.arrive.expect_tx.shared.b64 %rd3, [bar], 256;
	cp.async.bulk.prefetch.L2.global [%rd6], 256;
	cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [buf], [%rd6], 256, [bar];
LOOP:
	mbarrier.try_wait.parity.shared.b64 %p2, [bar], 0;
	@!%p2 bra LOOP;
	cp.async.bulk.global.shared::cta.bulk_group [%rd1], [buf], 256;
	cp.reduce.async.bulk.global.shared::cta.bulk_group.add.u32 [%rd1], [buf], 128;
	cp.async.bulk.commit_group;
	cp.async.bulk.wait_group 0;
`
	r, out, _, m := tmaLaunch{src: tmaKernel(body), block: 32, words: 64, tensor: ten, tmap: tm}.run(t)
	if r != StopDone {
		t.Fatalf("stopped with %v: %v", r, m.Fault())
	}
	for i, v := range out {
		want := uint32(i * 3)
		if i < 32 {
			want *= 2
		}
		if v != want {
			t.Fatalf("word %d: %d, want %d", i, v, want)
		}
	}
}

// Faults: a misaligned tensor destination, an invalid map (the field
// named), a bulk size not a multiple of 16, a source outside global memory.
func TestTMABulkFaults(t *testing.T) {
	good := isa.TensorMap{Rank: 1, GlobalDim: [5]uint64{64}, BoxDim: [5]uint32{32}, ElementStrides: [5]uint32{1, 1, 1, 1, 1}, ElemType: isa.TensorU32}
	bad := good
	bad.BoxDim[0] = 300
	load := func(dst string) string {
		return `	setp.ne.u32 %p1, %r1, 0;
	@%p1 ret;
	mbarrier.init.shared.b64 [bar], 1;
	mov.u32 %r2, 0;
	cp.async.bulk.tensor.1d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [` + dst + `], [%rd2, {%r2}], [bar];
`
	}
	for _, c := range []struct {
		name, body string
		tm         isa.TensorMap
		want       string
	}{
		{"misaligned", load("buf+16"), good, "not 128-byte aligned"},
		{"bad map", load("buf"), bad, "boxDim"},
		{"size", `	mbarrier.init.shared.b64 [bar], 1;
	cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [buf], [%rd1], 20, [bar];
`, good, "not a multiple of 16"},
		{"source", `	mbarrier.init.shared.b64 [bar], 1;
	add.u64 %rd7, %rd1, 4096;
	cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [buf], [%rd7], 32, [bar];
`, good, "outside every allocation"},
	} {
		for _, sched := range bothScheds {
			m := tmaLaunch{src: tmaKernel(c.body), block: 32, words: 4, tensor: make([]byte, 256), tmap: c.tm}.machine(t, sched)
			if r := m.Run(context.Background()); r != StopFault || !strings.Contains(m.Fault().Message, c.want) {
				t.Fatalf("%s (%s): %v %v, want a fault containing %q", c.name, sched, r, m.Fault(), c.want)
			}
		}
	}
}

// Every form of the bulk and tensor copies compiles with no
// "not supported" diagnostic.
func TestBulkFormsSupported(t *testing.T) {
	src := tmaKernel(`	mov.u32 %r2, 0;
	mov.b64 %rd9, 0;
	cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [buf], [%rd2, {%r2, %r2}], [bar];
	cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster.L2::cache_hint [buf], [%rd2, {%r2, %r2, %r2}], [bar], %rs1, %rd9;
	cp.async.bulk.tensor.5d.global.shared::cta.tile.bulk_group [%rd2, {%r2, %r2, %r2, %r2, %r2}], [buf];
	cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.tile.bulk_group [%rd2, {%r2, %r2}], [buf];
	cp.reduce.async.bulk.tensor.1d.global.shared::cta.xor.tile.bulk_group [%rd2, {%r2}], [buf];
	cp.async.bulk.commit_group;
	cp.async.bulk.wait_group.read 0;
	cp.async.bulk.wait_group 1;
	prefetch.tensor.2d.L2.global.tile [%rd2, {%r2, %r2}];
	cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [buf], [%rd2], 256, [bar];
	cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes [buf], [buf], 256, [bar];
	cp.async.bulk.global.shared::cta.bulk_group [%rd2], [buf], 256;
	cp.reduce.async.bulk.global.shared::cta.bulk_group.min.s32 [%rd2], [buf], 256;
	cp.reduce.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes.inc.u32 [buf], [buf], 256, [bar];
	cp.async.bulk.prefetch.L2.global [%rd2], 256;
`)
	s := ptx.NewSource("k.ptx", []byte(src))
	prog, diags := CompileSource(s)
	if prog == nil {
		t.Fatalf("compile:\n%s", ptx.FormatAll(s, diags))
	}
	if txt := ptx.FormatAll(s, diags); strings.Contains(txt, "not supported") {
		t.Fatalf("diagnostics:\n%s", txt)
	}
	for pc := range prog.Ops {
		if prog.Ops[pc].Eff == EffFault {
			t.Fatalf("pc %d is not executed", pc)
		}
	}
}
