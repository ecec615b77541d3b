package analysis

import (
	"context"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/ptxplayground/ptxplay/engine/emu"
	"github.com/ptxplayground/ptxplay/engine/ptx"
)

// The analysis-cost benchmarks run an engine/emu benchmark kernel
// (engine/emu/testdata) plain and observed, interleaved in every
// iteration (the order alternating), and report the median time per launch
// of each and the median slowdown (observed over plain) as custom metrics.
// On a shared, noisy machine the ratio within one iteration is the robust
// figure.

// benchKernel is a benchmark launch: a compiled kernel "k", its grid and
// block, how to set up its memory and parameters, and the number of
// source lines the Aggregator must report for it.
type benchKernel struct {
	prog        *emu.Program
	grid, block [3]int
	setup       func(m *emu.Machine)
	lines       int
}

// loadKernel compiles engine/emu/testdata/name.
func loadKernel(b *testing.B, name string) *emu.Program {
	src, err := os.ReadFile(filepath.Join("..", "emu", "testdata", name))
	if err != nil {
		b.Fatal(err)
	}
	s := ptx.NewSource(name, src)
	prog, diags := emu.CompileSource(s)
	if prog == nil {
		b.Fatalf("compile:\n%s", ptx.FormatAll(s, diags))
	}
	return prog
}

// nopObserver observes everything and does nothing with it: what the
// emulator's full report (every step, old bytes, events) costs by itself.
type nopObserver struct{}

func (nopObserver) Step(*emu.StepInfo) {}

// launch runs k once: plain (obs nil), with an Aggregator (analyze) or
// with obs, and returns the time the run took.
func (k *benchKernel) launch(b *testing.B, analyze bool, obs emu.Observer) time.Duration {
	m, err := emu.NewMachine(k.prog, "k", emu.Config{Grid: k.grid, Block: k.block})
	if err != nil {
		b.Fatal(err)
	}
	k.setup(m)
	var g *Aggregator
	if analyze {
		g = NewAggregator(k.prog)
		m.SetObserver(g)
	} else if obs != nil {
		m.SetObserver(obs)
	}
	start := time.Now()
	if r := m.Run(context.Background()); r != emu.StopDone {
		b.Fatalf("stop %v: %v", r, m.Fault())
	}
	d := time.Since(start)
	if g != nil {
		if n := len(g.Lines()); n != k.lines {
			b.Fatalf("%d analysed lines, want %d", n, k.lines)
		}
	}
	return d
}

// benchAnalysis runs k plain, with the Aggregator and (withNop) with a
// no-op observer of everything, interleaved (plain and analysed in
// alternating order), and reports the median time per launch of each and
// the median over iterations of each iteration's slowdown (observed time
// over that iteration's plain time): a burst of load from elsewhere spoils
// one iteration's ratio, not the figure.
func benchAnalysis(b *testing.B, k *benchKernel, withNop bool) {
	var plain, analysed, observed, slow, nopSlow []float64
	i := 0
	for b.Loop() {
		var p, a time.Duration
		if i%2 == 0 {
			p = k.launch(b, false, nil)
			a = k.launch(b, true, nil)
		} else {
			a = k.launch(b, true, nil)
			p = k.launch(b, false, nil)
		}
		plain = append(plain, p.Seconds()*1000)
		analysed = append(analysed, a.Seconds()*1000)
		slow = append(slow, float64(a)/float64(p))
		if withNop {
			o := k.launch(b, false, nopObserver{})
			observed = append(observed, o.Seconds()*1000)
			nopSlow = append(nopSlow, float64(o)/float64(p))
		}
		i++
	}
	b.ReportMetric(median(plain), "ms-plain/op")
	b.ReportMetric(median(analysed), "ms-analysed/op")
	b.ReportMetric(median(slow), "slowdown")
	if withNop {
		b.ReportMetric(median(observed), "ms-nop-observer/op")
		b.ReportMetric(median(nopSlow), "nop-slowdown")
	}
}

// median returns the median of xs (0 for none); it sorts xs.
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	slices.Sort(xs)
	n := len(xs)
	if n%2 == 1 {
		return xs[n/2]
	}
	return (xs[n/2-1] + xs[n/2]) / 2
}

// BenchmarkALULoopAnalysis: the BenchmarkALULoop kernel (256 threads,
// 2,000 iterations of 8 integer instructions, one global store each at
// the end) plain and with the Aggregator.
func BenchmarkALULoopAnalysis(b *testing.B) {
	k := &benchKernel{
		prog: loadKernel(b, "aluloop.ptx"), grid: [3]int{1, 1, 1}, block: [3]int{256, 1, 1},
		setup: func(m *emu.Machine) {
			a := m.Global.Alloc("out", 1024, 256)
			binary.LittleEndian.PutUint64(m.Params(), a.Base)
		},
		lines: 1, // the store
	}
	benchAnalysis(b, k, false)
}

// BenchmarkTiledSGEMMAnalysis: the BenchmarkTiledSGEMM kernel (128×128×128
// SGEMM with 16×16 shared tiles) plain, with the Aggregator and with a
// no-op observer of everything (what the full report that history records
// costs).
func BenchmarkTiledSGEMMAnalysis(b *testing.B) {
	benchAnalysis(b, sgemmKernel(b), true)
}

// sgemmKernel is the BenchmarkTiledSGEMM launch: 128×128×128 with 16×16
// shared tiles.
func sgemmKernel(b *testing.B) *benchKernel {
	const n = 128
	return &benchKernel{
		prog: loadKernel(b, "sgemm.ptx"), grid: [3]int{n / 16, n / 16, 1}, block: [3]int{16, 16, 1},
		setup: func(m *emu.Machine) {
			p := m.Params()
			for i := 0; i < 3; i++ {
				a := m.Global.Alloc("buf", 4*n*n, 256)
				for k := 0; k < n*n; k++ {
					binary.LittleEndian.PutUint32(a.Data[4*k:], math.Float32bits(float32((k*7+i)%13)*0.25))
				}
				binary.LittleEndian.PutUint64(p[8*i:], a.Base)
			}
			binary.LittleEndian.PutUint32(p[24:], n)
		},
		lines: 7,
	}
}

// BenchmarkTiledSGEMMChecker runs the tiled SGEMM without an observer and
// with the race and memory checker, and reports the slowdown.
func BenchmarkTiledSGEMMChecker(b *testing.B) {
	k := sgemmKernel(b)
	var plain, checked, slow []float64
	i := 0
	for b.Loop() {
		c := NewChecker(k.prog, CheckerConfig{Block: k.block})
		var p, x time.Duration
		if i%2 == 0 {
			p = k.launch(b, false, nil)
			x = k.launch(b, false, c)
		} else {
			x = k.launch(b, false, c)
			p = k.launch(b, false, nil)
		}
		i++
		if len(c.Warnings()) != 0 {
			b.Fatalf("warnings in the tiled SGEMM: %+v", c.Warnings()[0])
		}
		plain = append(plain, p.Seconds()*1000)
		checked = append(checked, x.Seconds()*1000)
		slow = append(slow, float64(x)/float64(p))
	}
	b.ReportMetric(median(plain), "ms-plain/op")
	b.ReportMetric(median(checked), "ms-checked/op")
	b.ReportMetric(median(slow), "slowdown")
}
