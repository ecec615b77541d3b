package sessions

import (
	"context"
	"encoding/json"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// benchSteps is the number of history steps BenchmarkStepBack builds.
const benchSteps = 10000

// BenchmarkStepBack: a 256-thread kernel stepped one warp-instruction at a
// time for 10,000 history steps, then random seeks within them, timed from
// Submit to the state reply; p50/p99 are reported in milliseconds.
func BenchmarkStepBack(b *testing.B) {
	m := NewManager(Limits{}, nil)
	defer m.Close()
	c := newClient(b, m)
	c.load(spinPTX, spinSpec(256, 100000))
	step := []byte(`{"type":"step","granularity":"warp","count":1}`)
	for i := 0; i < benchSteps; i++ {
		c.s.Submit(step)
		c.drain()
	}
	rnd := rand.New(rand.NewSource(1))
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		k := benchSteps - rnd.Intn(benchSteps)
		msg, _ := json.Marshal(map[string]any{"type": "seek", "step": k})
		t0 := time.Now()
		c.s.Submit(msg)
		c.drain()
		lat = append(lat, time.Since(t0))
	}
	b.StopTimer()
	slices.Sort(lat)
	ms := func(q float64) float64 {
		return float64(lat[min(len(lat)-1, int(q*float64(len(lat))))]) / float64(time.Millisecond)
	}
	b.ReportMetric(ms(0.5), "p50-ms")
	b.ReportMetric(ms(0.99), "p99-ms")
	var hb int64
	c.do(func() { hb = c.s.h.bytes() })
	b.ReportMetric(float64(hb)/(1<<20), "history-MiB")
}

// drain waits for one reply and returns its size.
func (c *client) drain() int {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	msg, err := c.s.Next(ctx)
	if err != nil {
		c.t.Fatal(err)
	}
	return len(msg)
}

// BenchmarkStepDelta: the size of the state delta after each one-warp-
// instruction step of a 256-thread shared-memory reduction (warp 0's
// registers selected).
func BenchmarkStepDelta(b *testing.B) {
	m := NewManager(Limits{}, nil)
	defer m.Close()
	c := newClient(b, m)
	step := []byte(`{"type":"step","granularity":"warp","count":1}`)
	var sizes []int
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		if i%400 == 0 {
			c.load(reducePTX, reduceSpec)
		}
		b.StartTimer()
		c.s.Submit(step)
		sizes = append(sizes, c.drain())
	}
	b.StopTimer()
	total := 0
	for _, s := range sizes {
		total += s
	}
	slices.Sort(sizes)
	b.ReportMetric(float64(total)/float64(len(sizes)), "bytes/delta")
	b.ReportMetric(float64(sizes[len(sizes)/2]), "p50-bytes")
	b.ReportMetric(float64(sizes[min(len(sizes)-1, len(sizes)*99/100)]), "p99-bytes")
}

// BenchmarkRun: run throughput with history recording (the observer, the
// undo log, snapshots), in warp-instructions per second.
func BenchmarkRun(b *testing.B) {
	m := NewManager(Limits{MaxWarpInstructions: 2_000_000}, nil)
	defer m.Close()
	c := newClient(b, m)
	var wis int64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		c.load(spinPTX, spinSpec(256, 1<<30))
		b.StartTimer()
		c.send(map[string]any{"type": "run"})
		st, _ := c.state()
		wis += st.Stats.WarpInstructions
	}
	b.ReportMetric(float64(wis)/b.Elapsed().Seconds(), "warp-instr/s")
}

// BenchmarkRunHistoryALU: `run` of the ALU-loop kernel (engine/emu's
// testdata/aluloop.ptx, the kernel of emu.BenchmarkALULoop: 16 CTAs of 256
// threads × 2,000 iterations, 6.8 × 10⁷ thread-instructions) through a session, from the command to the final
// state: every observer a session installs (history with its undo log and
// snapshots, the memory analysis, the checker, the last-instruction
// record), frames included. Reports thread- and warp-instructions per
// second, and thread-instructions per CPU second of the whole test process
// (the session's goroutines and the client decoding its messages).
func BenchmarkRunHistoryALU(b *testing.B) {
	src, err := os.ReadFile(filepath.Join("..", "engine", "emu", "testdata", "aluloop.ptx"))
	if err != nil {
		b.Fatal(err)
	}
	m := NewManager(Limits{}, nil)
	defer m.Close()
	c := newClient(b, m)
	const spec = `{"grid":[16],"block":[256],"buffers":[{"name":"out","type":"u32","count":4096}],"params":[{"buffer":"out"}]}`
	var wis, tis int64
	var run time.Duration
	var cpu float64
	for b.Loop() {
		c.load(string(src), spec)
		t0, c0 := time.Now(), cpuSeconds()
		c.send(map[string]any{"type": "run"})
		st, _ := c.state()
		run += time.Since(t0)
		cpu += cpuSeconds() - c0
		if st.Status != "done" {
			b.Fatalf("run ended %q: %s", st.Status, st.Message)
		}
		c.expect("done")
		wis += st.Stats.WarpInstructions
		tis += st.Stats.ThreadInstructions
	}
	b.ReportMetric(float64(tis)/run.Seconds(), "thread-inst/s")
	b.ReportMetric(float64(wis)/run.Seconds(), "warp-inst/s")
	if cpu > 0 {
		b.ReportMetric(float64(tis)/cpu, "thread-inst/cpu-s")
	}
}
