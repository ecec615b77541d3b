package analysis

import (
	"context"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ptxplayground/ptxplay/engine/emu"
	"github.com/ptxplayground/ptxplay/engine/ptx"
)

// tiledSGEMM is the shared-memory benchmark kernel of engine/emu
// (BenchmarkTiledSGEMM, engine/emu/testdata/sgemm.ptx): a 128×128×128
// SGEMM with 16×16 shared tiles.
func tiledSGEMM(b *testing.B) string {
	src, err := os.ReadFile(filepath.Join("..", "emu", "testdata", "sgemm.ptx"))
	if err != nil {
		b.Fatal(err)
	}
	return string(src)
}

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
	s := ptx.NewSource("bench.ptx", []byte(tiledSGEMM(b)))
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

// BenchmarkTiledSGEMMChecker runs the tiled SGEMM without an observer and
// with the race and memory checker, and reports the slowdown.
func BenchmarkTiledSGEMMChecker(b *testing.B) {
	s := ptx.NewSource("bench.ptx", []byte(tiledSGEMM(b)))
	prog, diags := emu.CompileSource(s)
	if prog == nil {
		b.Fatalf("compile:\n%s", ptx.FormatAll(s, diags))
	}
	var plain, checked time.Duration
	for b.Loop() {
		plain += runSGEMM(b, prog, false)
		c := NewChecker(prog, CheckerConfig{Block: [3]int{16, 16, 1}})
		checked += runSGEMMWith(b, prog, false, c)
		if len(c.Warnings()) != 0 {
			b.Fatalf("warnings in the tiled SGEMM: %+v", c.Warnings()[0])
		}
	}
	ms := func(d time.Duration) float64 { return d.Seconds() * 1000 / float64(b.N) }
	b.ReportMetric(ms(plain), "ms-plain/op")
	b.ReportMetric(ms(checked), "ms-checked/op")
	b.ReportMetric(float64(checked)/float64(plain), "slowdown")
}
