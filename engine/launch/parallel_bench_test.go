package launch

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/ptxplayground/ptxplay/engine/internal/cputime"
)

// sgemmSpec is the launch of engine/emu/testdata/sgemm.ptx (16x16 tiles)
// for n x n matrices: (n/16)^2 CTAs of 256 threads.
func sgemmSpec(tb testing.TB, n int) (*Spec, []byte) {
	tb.Helper()
	text, err := os.ReadFile(filepath.Join("..", "emu", "testdata", "sgemm.ptx"))
	if err != nil {
		tb.Fatal(err)
	}
	spec := fmt.Sprintf(`{"source": "-", "grid": [%d, %d], "block": [16, 16],
	"buffers": [
		{"name": "a", "type": "f32", "count": %d, "init": {"random": {"seed": 1, "min": -1, "max": 1}}},
		{"name": "b", "type": "f32", "count": %d, "init": {"random": {"seed": 2, "min": -1, "max": 1}}},
		{"name": "c", "type": "f32", "count": %d}
	],
	"params": [{"buffer": "a"}, {"buffer": "b"}, {"buffer": "c"}, {"u32": %d}]}`, n/16, n/16, n*n, n*n, n*n, n)
	s, err := ParseSpec([]byte(spec))
	if err != nil {
		tb.Fatal(err)
	}
	return s, text
}

// BenchmarkParallelSGEMM runs the SGEMM launch (n = 256: 256 CTAs, 1.6e8
// thread-instructions; PTXPLAY_SGEMM_N changes n) sequentially and with
// RunWith's parallel mode on GOMAXPROCS workers, alternately, and reports
// both times per launch and the speed-up (sequential / parallel). The
// outputs are compared byte for byte. The checker is off (its cost is the
// same in both modes and would dominate). With GOMAXPROCS 2 it also runs
// two sequential launches at once and reports pair-speedup, 2 × sequential
// / that time: the most two workers can gain on the machine.
func BenchmarkParallelSGEMM(b *testing.B) {
	n := 256
	if v, err := strconv.Atoi(os.Getenv("PTXPLAY_SGEMM_N")); err == nil && v >= 16 && v%16 == 0 {
		n = v
	}
	spec, text := sgemmSpec(b, n)
	prog, _, _ := Compile("sgemm.ptx", text)
	if prog == nil {
		b.Fatal("sgemm.ptx does not compile")
	}
	var cpuSeq, cpuPar, cpuPair float64 // CPU seconds of the sequential, parallel and pair runs
	run := func(par bool) (time.Duration, []byte, int64) {
		l, err := Prepare(prog, spec)
		if err != nil {
			b.Fatal(err)
		}
		// The previous round's garbage (its result JSON) is collected
		// first, so that no collection competes with the timed run.
		runtime.GC()
		start, cpu0 := time.Now(), cputime.Seconds()
		res, rep, err := l.RunWith(context.Background(), RunOptions{Parallel: par})
		d := time.Since(start)
		if par {
			cpuPar += cputime.Seconds() - cpu0
		} else {
			cpuSeq += cputime.Seconds() - cpu0
		}
		if err != nil || res.Status != StatusOK {
			b.Fatalf("parallel %v: %v %s", par, err, res.Status)
		}
		if par && !rep.Parallel {
			b.Fatalf("did not run in parallel: %s", rep)
		}
		return d, res.AppendJSON(nil, false), res.Stats.ThreadInstructions
	}
	// pair runs two sequential launches at once, one per goroutine: what
	// the machine gives two independent single-core jobs, the ceiling of
	// a two-worker speed-up on it (cores slow down when both run, on
	// shared or power-limited hosts).
	pair := func() time.Duration {
		var ls [2]*Launch
		for i := range ls {
			l, err := Prepare(prog, spec)
			if err != nil {
				b.Fatal(err)
			}
			ls[i] = l
		}
		runtime.GC()
		start, cpu0 := time.Now(), cputime.Seconds()
		defer func() { cpuPair += cputime.Seconds() - cpu0 }()
		var wg sync.WaitGroup
		for _, l := range ls {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if res, err := l.Run(context.Background()); err != nil || res.Status != StatusOK {
					b.Errorf("pair: %v %s", err, res.Status)
				}
			}()
		}
		wg.Wait()
		return time.Since(start)
	}
	var seq, par, two time.Duration
	var inst int64
	for b.Loop() {
		ds, outS, ti := run(false)
		dp, outP, _ := run(true)
		if !bytes.Equal(outS, outP) {
			b.Fatal("the parallel run's result differs from the sequential run's")
		}
		seq += ds
		par += dp
		inst += ti
		if runtime.GOMAXPROCS(0) == 2 {
			two += pair()
		}
	}
	b.ReportMetric(float64(seq.Nanoseconds())/float64(b.N), "seq-ns/launch")
	b.ReportMetric(float64(par.Nanoseconds())/float64(b.N), "par-ns/launch")
	b.ReportMetric(seq.Seconds()/par.Seconds(), "speedup")
	if two > 0 {
		b.ReportMetric(2*seq.Seconds()/two.Seconds(), "pair-speedup")
	}
	b.ReportMetric(float64(inst)/par.Seconds(), "par-thread-inst/s")
	if cpuSeq > 0 {
		// The parallel run's own costs (planning, private copies, the
		// access tracker, merging, the runtime's work for two workers):
		// its CPU time over the sequential run's.
		b.ReportMetric(cpuPar/cpuSeq, "par-cpu/seq-cpu")
		if cpuPair > 0 {
			// The same for two sequential launches at once: what running
			// two workers costs on this machine by itself.
			b.ReportMetric(cpuPair/(2*cpuSeq), "pair-cpu/seq-cpu")
		}
	}
	b.ReportMetric(float64(runtime.GOMAXPROCS(0)), "workers")
}
