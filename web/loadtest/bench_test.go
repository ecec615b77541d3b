package loadtest

import (
	"fmt"
	"math/rand"
	"os"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/ptxplayground/ptxplay/sessions"
)

func TestMain(m *testing.M) {
	code := m.Run()
	if err := closeBackFixture(); err != nil {
		fmt.Fprintln(os.Stderr, "loadtest:", err)
		if code == 0 {
			code = 1
		}
	}
	os.Exit(code)
}

// warmupSteps are the warp-instructions executed before the step
// benchmarks start timing: the 8 warps are then in the kernel's loop.
const warmupSteps = 512

// BenchmarkWebsocketStep: one warp-instruction per `step` (granularity
// "warp") of the 256-thread kernel, timed from the write of the step to the
// arrival of its `state` reply. Reports the round trip's p50/p99/max and
// the size of the state replies (deltas).
func BenchmarkWebsocketStep(b *testing.B) { benchStep(b, "warp") }

// BenchmarkWebsocketStepRound: as BenchmarkWebsocketStep with granularity
// "round" (one instruction of each of the 8 warps per step).
func BenchmarkWebsocketStepRound(b *testing.B) { benchStep(b, "round") }

func benchStep(b *testing.B, gran string) {
	s, err := startServer(sessions.Limits{})
	if err != nil {
		b.Fatal(err)
	}
	defer func() {
		if err := s.close(); err != nil {
			b.Error(err)
		}
	}()
	c, err := dial(s.wsURL)
	if err != nil {
		b.Fatal(err)
	}
	defer c.close()
	if err := c.load(longSpec); err != nil {
		b.Fatal(err)
	}
	// Past the prologue: every warp in its loop.
	base, err := buildHistory(c, warmupSteps)
	if err != nil {
		b.Fatal(err)
	}
	body := `{"type":"step","granularity":"` + gran + `"`
	lat := make([]time.Duration, 0, b.N)
	sizes := make([]int, 0, b.N)
	b.ResetTimer()
	prev := base
	for i := 0; i < b.N; i++ {
		r, n, d, err := c.request(body)
		if err != nil {
			b.Fatal(err)
		}
		// A warp step moves one position; a round, one per ready warp.
		if (gran == "warp" && r.Step != prev+1) || r.Step <= prev || r.Status != "paused" || r.Full {
			b.Fatalf("step after %d: %s", prev, r.String())
		}
		prev = r.Step
		lat = append(lat, d)
		sizes = append(sizes, n)
	}
	b.StopTimer()
	reportLatency(b, lat)
	reportSizes(b, sizes)
}

func reportLatency(b *testing.B, lat []time.Duration) {
	slices.Sort(lat)
	b.ReportMetric(ms(pct(lat, 0.5)), "p50-ms")
	b.ReportMetric(ms(pct(lat, 0.99)), "p99-ms")
	b.ReportMetric(ms(lat[len(lat)-1]), "max-ms")
}

func reportSizes(b *testing.B, sizes []int) {
	total := 0
	for _, n := range sizes {
		total += n
	}
	slices.Sort(sizes)
	b.ReportMetric(float64(total)/float64(len(sizes)), "bytes/msg")
	b.ReportMetric(float64(sizes[len(sizes)/2]), "p50-bytes/msg")
	b.ReportMetric(float64(sizes[len(sizes)-1]), "max-bytes/msg")
}

// historySteps is the history BenchmarkWebsocketStepBack builds.
const historySteps = 10000

// backFixture is a session with historySteps steps of history, shared by
// the runs of BenchmarkWebsocketStepBack (the framework calls it several
// times with growing b.N; building the history takes seconds).
var backFix struct {
	once sync.Once
	s    *server
	c    *client
	head int // the last step
	err  error
}

func backFixture() (*client, int, error) {
	backFix.once.Do(func() {
		s, err := startServer(sessions.Limits{})
		if err != nil {
			backFix.err = err
			return
		}
		backFix.s = s
		c, err := dial(s.wsURL)
		if err != nil {
			backFix.err = err
			return
		}
		backFix.c = c
		if err := c.load(longSpec); err != nil {
			backFix.err = err
			return
		}
		backFix.head, backFix.err = buildHistory(c, historySteps)
	})
	return backFix.c, backFix.head, backFix.err
}

func closeBackFixture() error {
	if backFix.c != nil {
		backFix.c.close()
	}
	if backFix.s != nil {
		return backFix.s.close()
	}
	return nil
}

// buildHistory makes n one-warp-instruction steps, pipelined (up to
// pipeline commands in flight: a session queues a bounded number of
// messages and refuses more), and checks that the history holds them all.
// It returns the last step.
func buildHistory(c *client, n int) (int, error) {
	const pipeline = 64
	first := c.id + 1
	sent := 0
	var last reply
	for i := 0; i < n; i++ {
		for sent < n && sent-i < pipeline {
			if _, err := c.write(`{"type":"step","granularity":"warp"`); err != nil {
				return 0, err
			}
			sent++
		}
		r, _, _, err := c.await(first + int64(i))
		if err != nil {
			return 0, err
		}
		if r.Step != i+1 || r.Status != "paused" {
			return 0, fmt.Errorf("history step %d: %s", i+1, r.String())
		}
		last = r
	}
	if last.Steps-last.FirstStep < n+1 || last.FirstStep != 0 {
		return 0, fmt.Errorf("the history holds steps %d to %d, not the %d built", last.FirstStep, last.Steps-1, n)
	}
	return last.Step, nil
}

// BenchmarkWebsocketStepBack: with 10,000 steps of history (one
// warp-instruction each) built first, each iteration seeks to a random step
// within the last 10,000 and waits for the full `state` reply. Reports the
// round trip's p50/p99/max and the size of the replies.
func BenchmarkWebsocketStepBack(b *testing.B) {
	c, head, err := backFixture()
	if err != nil {
		b.Fatal(err)
	}
	rnd := rand.New(rand.NewSource(int64(b.N)))
	lat := make([]time.Duration, 0, b.N)
	sizes := make([]int, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		k := head - rnd.Intn(historySteps)
		r, n, d, err := c.request(`{"type":"seek","step":` + fmt.Sprint(k))
		if err != nil {
			b.Fatal(err)
		}
		if r.Step != k || !r.Full || r.Steps != head+1 || r.FirstStep > head-historySteps+1 {
			b.Fatalf("seek %d: %s", k, r.String())
		}
		lat = append(lat, d)
		sizes = append(sizes, n)
	}
	b.StopTimer()
	reportLatency(b, lat)
	reportSizes(b, sizes)
}
