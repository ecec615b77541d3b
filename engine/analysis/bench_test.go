package analysis

import (
	"context"
	"encoding/binary"
	"math"
	"testing"
	"time"

	"github.com/ptxplayground/ptxplay/engine/emu"
	"github.com/ptxplayground/ptxplay/engine/ptx"
)

// tiledSGEMM is the shared-memory benchmark kernel of engine/emu
// (BenchmarkTiledSGEMM): a 128×128×128 SGEMM with 16×16 shared tiles.
const tiledSGEMM = `.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 pa, .param .u64 pb, .param .u64 pc, .param .u32 n) {
	.shared .align 4 .f32 As[256];
	.shared .align 4 .f32 Bs[256];
	.reg .u32 %r<24>; .reg .u64 %rd<12>; .reg .f32 %f<6>; .reg .pred %p;
	ld.param.u64 %rd1, [pa];
	ld.param.u64 %rd2, [pb];
	ld.param.u64 %rd3, [pc];
	ld.param.u32 %r1, [n];
	mov.u32 %r2, %tid.x;
	mov.u32 %r3, %tid.y;
	mov.u32 %r4, %ctaid.x;
	mov.u32 %r5, %ctaid.y;
	mad.lo.u32 %r6, %r5, 16, %r3;
	mad.lo.u32 %r7, %r4, 16, %r2;
	mov.f32 %f1, 0f00000000;
	mov.u32 %r8, 0;
	mad.lo.u32 %r9, %r3, 16, %r2;
	shl.b32 %r9, %r9, 2;
	mov.u32 %r10, As;
	mov.u32 %r11, Bs;
	add.u32 %r12, %r10, %r9;
	add.u32 %r13, %r11, %r9;
TILE:
	add.u32 %r14, %r8, %r2;
	mad.lo.u32 %r15, %r6, %r1, %r14;
	mul.wide.u32 %rd4, %r15, 4;
	add.u64 %rd5, %rd1, %rd4;
	ld.global.f32 %f2, [%rd5];
	st.shared.f32 [%r12], %f2;
	add.u32 %r16, %r8, %r3;
	mad.lo.u32 %r17, %r16, %r1, %r7;
	mul.wide.u32 %rd6, %r17, 4;
	add.u64 %rd7, %rd2, %rd6;
	ld.global.f32 %f3, [%rd7];
	st.shared.f32 [%r13], %f3;
	bar.sync 0;
	mov.u32 %r18, 0;
	shl.b32 %r19, %r3, 6;
	add.u32 %r19, %r10, %r19;
	shl.b32 %r20, %r2, 2;
	add.u32 %r20, %r11, %r20;
INNER:
	ld.shared.f32 %f4, [%r19];
	ld.shared.f32 %f5, [%r20];
	fma.rn.f32 %f1, %f4, %f5, %f1;
	add.u32 %r19, %r19, 4;
	add.u32 %r20, %r20, 64;
	add.u32 %r18, %r18, 1;
	setp.lt.u32 %p, %r18, 16;
	@%p bra INNER;
	bar.sync 0;
	add.u32 %r8, %r8, 16;
	setp.lt.u32 %p, %r8, %r1;
	@%p bra TILE;
	mad.lo.u32 %r21, %r6, %r1, %r7;
	mul.wide.u32 %rd8, %r21, 4;
	add.u64 %rd9, %rd3, %rd8;
	st.global.f32 [%rd9], %f1;
	ret;
}`

// runSGEMM runs the kernel once, with an Aggregator when analyze is set,
// and returns the time it took.
func runSGEMM(b *testing.B, prog *emu.Program, analyze bool) time.Duration {
	return runSGEMMWith(b, prog, analyze, nil)
}

// nopObserver observes and does nothing: the emulator's own cost of
// reporting every access.
type nopObserver struct{}

func (nopObserver) Step(*emu.StepInfo) {}

func runSGEMMWith(b *testing.B, prog *emu.Program, analyze bool, obs emu.Observer) time.Duration {
	const n = 128
	m, err := emu.NewMachine(prog, "k", emu.Config{Grid: [3]int{n / 16, n / 16, 1}, Block: [3]int{16, 16, 1}})
	if err != nil {
		b.Fatal(err)
	}
	p := m.Params()
	for i := 0; i < 3; i++ {
		a := m.Global.Alloc("buf", 4*n*n, 256)
		for k := 0; k < n*n; k++ {
			binary.LittleEndian.PutUint32(a.Data[4*k:], math.Float32bits(float32((k*7+i)%13)*0.25))
		}
		binary.LittleEndian.PutUint64(p[8*i:], a.Base)
	}
	binary.LittleEndian.PutUint32(p[24:], n)
	var g *Aggregator
	if analyze {
		g = NewAggregator(prog)
		m.SetObserver(g)
	}
	if obs != nil {
		m.SetObserver(obs)
	}
	start := time.Now()
	if r := m.Run(context.Background()); r != emu.StopDone {
		b.Fatalf("stop %v: %v", r, m.Fault())
	}
	d := time.Since(start)
	if g != nil && len(g.Lines()) != 7 {
		b.Fatalf("%d analysed lines, want 7", len(g.Lines()))
	}
	return d
}

// BenchmarkTiledSGEMMAnalysis runs the tiled SGEMM without an observer,
// with an observer that does nothing (what the emulator's access reports
// cost by themselves) and with the Aggregator, and reports the times per
// launch and the slowdown (analysed over plain).
func BenchmarkTiledSGEMMAnalysis(b *testing.B) {
	s := ptx.NewSource("bench.ptx", []byte(tiledSGEMM))
	prog, diags := emu.CompileSource(s)
	if prog == nil {
		b.Fatalf("compile:\n%s", ptx.FormatAll(s, diags))
	}
	var plain, observed, analysed time.Duration
	for b.Loop() {
		plain += runSGEMM(b, prog, false)
		observed += runSGEMMWith(b, prog, false, nopObserver{})
		analysed += runSGEMM(b, prog, true)
	}
	ms := func(d time.Duration) float64 { return d.Seconds() * 1000 / float64(b.N) }
	b.ReportMetric(ms(plain), "ms-plain/op")
	b.ReportMetric(ms(observed), "ms-nop-observer/op")
	b.ReportMetric(ms(analysed), "ms-analysed/op")
	b.ReportMetric(float64(analysed)/float64(plain), "slowdown")
}
