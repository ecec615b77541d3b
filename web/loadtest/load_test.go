package loadtest

import (
	"errors"
	"fmt"
	"math/rand"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ptxplayground/ptxplay/sessions"
	"github.com/ptxplayground/ptxplay/web"
)

// Load test settings, from the environment.
const (
	envSeconds  = "PTXPLAY_LOAD_SECONDS"  // how long the sessions step (default 3)
	envSessions = "PTXPLAY_LOAD_SESSIONS" // concurrent sessions (default 200)
	envThink    = "PTXPLAY_LOAD_THINK"    // mean pause between a reply and the next request (default 0: back to back)
)

// Hard bounds of the load test.
const (
	maxLoadSeconds     = 600
	maxLoadSessions    = 1000
	maxRequestsPerConn = 100_000          // about 16 times what a 60 s back-to-back run makes
	readTimeout        = 30 * time.Second // a reply later than this fails the test
	setupTimeout       = 2 * time.Minute  // connecting and loading every session
	teardownGrace      = 2 * time.Minute  // the watchdog fires this long after the end
)

// The operations the load test mixes, per 100 requests.
const (
	opWarp  = iota // 70: step one warp-instruction
	opRound        // 20: step one round
	opBack         // 7: back 1 to 16 warp-instructions
	opSeek         // 3: seek a random position of the history
	numOps
)

var opNames = [numOps]string{"step warp", "step round", "back", "seek"}

func pickOp(r *rand.Rand) int {
	switch x := r.Intn(100); {
	case x < 70:
		return opWarp
	case x < 90:
		return opRound
	case x < 97:
		return opBack
	}
	return opSeek
}

// loadSession is one client of the load test and what it saw.
type loadSession struct {
	n   int
	c   *client
	rnd *rand.Rand
	// The client's model of its history, checked against every reply.
	step, steps, first int

	lat   [numOps][]time.Duration
	byWin [][]time.Duration // round trips by window of the run (by completion time)
	t0    time.Time
	win   time.Duration
	bytes int64
	reqs  int
	err   error
}

func envInt(t *testing.T, name string, def, lo, hi int) int {
	v := strings.TrimSpace(os.Getenv(name))
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < lo || n > hi {
		t.Fatalf("%s=%q: want an integer from %d to %d", name, v, lo, hi)
	}
	return n
}

// TestLoad holds PTXPLAY_LOAD_SESSIONS (default 200) concurrent websocket
// sessions on a loopback server, each loading the 256-thread kernel and
// then stepping for PTXPLAY_LOAD_SECONDS (default 3; the recorded run is
// 60): 70% warp steps, 20% round steps, 7% back, 3% seek, back to back or,
// with PTXPLAY_LOAD_THINK (a duration), with that mean pause between a
// reply and the next request. Every reply is checked (a state with the
// request's id, the expected step number and history bounds; no error,
// done or disconnect). It reports the round-trip percentiles and the
// throughput, then shuts the server down and checks that no session or
// goroutine is left.
func TestLoad(t *testing.T) {
	seconds := envInt(t, envSeconds, 3, 1, maxLoadSeconds)
	nsess := envInt(t, envSessions, 200, 1, maxLoadSessions)
	var think time.Duration
	if v := strings.TrimSpace(os.Getenv(envThink)); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d < 0 || d > 10*time.Second {
			t.Fatalf("%s=%q: want a duration from 0 to 10s", envThink, v)
		}
		think = d
	}
	// The metrics library starts one process-wide goroutine with the first
	// summary; start it before counting.
	web.NewMetrics()
	goroutines := runtime.NumGoroutine()
	loadStart := loadAvg()
	t.Logf("%d sessions for %ds, think time %v, GOMAXPROCS %d, NumCPU %d, load average %s",
		nsess, seconds, think, runtime.GOMAXPROCS(0), runtime.NumCPU(), loadStart)

	s, err := startServer(sessions.Limits{MaxSessions: nsess})
	if err != nil {
		t.Fatal(err)
	}
	serverClosed := false
	closeServer := func() {
		if serverClosed {
			return
		}
		serverClosed = true
		if err := s.close(); err != nil {
			t.Errorf("server shutdown: %v", err)
		}
	}
	defer closeServer()

	// The watchdog: whatever happens, nothing outlives the bounds.
	var all []*loadSession
	var allMu sync.Mutex
	var tripped atomic.Bool
	watchdog := time.AfterFunc(setupTimeout+time.Duration(seconds)*time.Second+teardownGrace, func() {
		tripped.Store(true)
		allMu.Lock()
		defer allMu.Unlock()
		for _, ls := range all {
			if ls.c != nil {
				ls.c.c.Close()
			}
		}
	})
	defer watchdog.Stop()

	// Connect and load every session, then start them together.
	sessionsList := make([]*loadSession, nsess)
	var ready, done sync.WaitGroup
	start := make(chan struct{})
	var deadline time.Time
	var failed atomic.Int32
	for i := range sessionsList {
		ls := &loadSession{n: i, rnd: rand.New(rand.NewSource(int64(i) + 1))}
		sessionsList[i] = ls
		ready.Add(1)
		done.Add(1)
		go func() {
			defer done.Done()
			err := ls.setup(s.wsURL, &allMu, &all)
			ready.Done()
			if err != nil {
				ls.err = err
				failed.Add(1)
				return
			}
			<-start
			if failed.Load() == 0 {
				ls.err = ls.run(deadline, think)
				if ls.err != nil {
					failed.Add(1)
				}
			}
		}()
	}
	ready.Wait()
	if n := s.mgr.Len(); failed.Load() == 0 && n != nsess {
		t.Errorf("%d sessions live after setup, want %d", n, nsess)
	}
	t0 := time.Now()
	deadline = t0.Add(time.Duration(seconds) * time.Second)
	win := time.Duration(max(1, seconds/6)) * time.Second
	nwin := int((time.Duration(seconds)*time.Second + win - 1) / win)
	for _, ls := range sessionsList {
		ls.t0, ls.win, ls.byWin = t0, win, make([][]time.Duration, nwin)
	}
	cpu := sampleCPU(t0, win, nwin)
	close(start)
	done.Wait()
	elapsed := time.Since(t0)
	loadEnd := loadAvg()
	cpuWin := cpu.stop()

	var mem runtime.MemStats
	runtime.ReadMemStats(&mem)
	quantiles, qerr := s.stepQuantiles()

	// Say goodbye, shut down, and look for leftovers.
	for _, ls := range sessionsList {
		if ls.c != nil {
			ls.c.close()
		}
	}
	closeServer()
	watchdog.Stop()
	if tripped.Load() {
		t.Errorf("the watchdog closed the connections: the test ran past its bounds")
	}

	var errs []error
	var lat, stepLat, backLat []time.Duration
	perOp := [numOps]int{}
	var bytes int64
	reqs := 0
	for _, ls := range sessionsList {
		if ls.err != nil {
			errs = append(errs, fmt.Errorf("session %d: %w", ls.n, ls.err))
		}
		for op := range numOps {
			lat = append(lat, ls.lat[op]...)
			perOp[op] += len(ls.lat[op])
			if op == opWarp || op == opRound {
				stepLat = append(stepLat, ls.lat[op]...)
			} else {
				backLat = append(backLat, ls.lat[op]...)
			}
		}
		bytes += ls.bytes
		reqs += ls.reqs
	}
	for i, err := range errs {
		if i == 10 {
			t.Errorf("... and %d more failed sessions", len(errs)-10)
			break
		}
		t.Error(err)
	}

	t.Logf("%d requests in %.1fs: %.0f requests/s (%s), %.0f bytes per reply",
		reqs, elapsed.Seconds(), float64(reqs)/elapsed.Seconds(), opMix(perOp), float64(bytes)/float64(max(reqs, 1)))
	t.Logf("round trip, all:       %s", latencySummary(lat))
	t.Logf("round trip, steps:     %s", latencySummary(stepLat))
	t.Logf("round trip, back/seek: %s", latencySummary(backLat))
	if qerr == nil {
		t.Logf("server-side step/back/seek latency (summary): p50=%.2fms p90=%.2fms p99=%.2fms",
			ms(quantiles["p5"]), ms(quantiles["p9"]), ms(quantiles["p99"]))
	}
	t.Logf("heap in use at the end %d MiB (%d MiB from the OS); load average before %s, at the end %s",
		mem.HeapInuse>>20, mem.Sys>>20, loadStart, loadEnd)
	// By window: the machine is shared, so say how busy it was and how
	// much of that was this test.
	for w := range nwin {
		var wl []time.Duration
		for _, ls := range sessionsList {
			if w < len(ls.byWin) {
				wl = append(wl, ls.byWin[w]...)
			}
		}
		slices.Sort(wl)
		line := fmt.Sprintf("%3d-%3ds: %6.0f requests/s, p50=%.2fms p99=%.2fms max=%.2fms", w*int(win/time.Second), (w+1)*int(win/time.Second),
			float64(len(wl))/win.Seconds(), ms(pct(wl, 0.5)), ms(pct(wl, 0.99)), ms(pct(wl, 1)))
		if w < len(cpuWin) {
			c := cpuWin[w]
			line += fmt.Sprintf("; CPU cores busy: machine %.2f of %d, this test %.2f, others %.2f", c.machine, runtime.NumCPU(), c.self, max(0, c.machine-c.self))
		}
		t.Log(line)
	}
	if len(errs) == 0 && reqs == 0 {
		t.Error("no requests were made")
	}

	// No goroutine may outlive the server (the clients have none).
	deadlineG := time.Now().Add(10 * time.Second)
	for runtime.NumGoroutine() > goroutines && time.Now().Before(deadlineG) {
		time.Sleep(20 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > goroutines {
		buf := make([]byte, 1<<20)
		buf = buf[:runtime.Stack(buf, true)]
		t.Errorf("%d goroutines left after shutdown (%d before):\n%s", n, goroutines, buf)
	}
}

func opMix(perOp [numOps]int) string {
	var parts []string
	for op, n := range perOp {
		parts = append(parts, fmt.Sprintf("%s %d", opNames[op], n))
	}
	return strings.Join(parts, ", ")
}

// setup connects and loads the kernel.
func (ls *loadSession) setup(url string, mu *sync.Mutex, all *[]*loadSession) error {
	c, err := dial(url)
	if err != nil {
		return err
	}
	c.timeout = readTimeout
	mu.Lock()
	ls.c = c
	*all = append(*all, ls)
	mu.Unlock()
	if err := c.load(longSpec); err != nil {
		return err
	}
	ls.step, ls.steps, ls.first = 0, 1, 0
	return nil
}

// run makes requests until the deadline, checking every reply against the
// session's model of its history.
func (ls *loadSession) run(deadline time.Time, think time.Duration) error {
	if think > 0 {
		time.Sleep(time.Duration(ls.rnd.Int63n(int64(think) + 1))) // staggered start
	}
	for ls.reqs < maxRequestsPerConn && time.Now().Before(deadline) {
		op := pickOp(ls.rnd)
		var body string
		var want int // the step the reply must be at
		switch op {
		case opWarp:
			body, want = `{"type":"step","granularity":"warp"`, ls.step+1
		case opRound:
			body, want = `{"type":"step","granularity":"round"`, -1 // a round's length varies
		case opBack:
			k := 1 + ls.rnd.Intn(16)
			body, want = `{"type":"back","granularity":"warp","count":`+strconv.Itoa(k), max(ls.step-k, ls.first)
		case opSeek:
			k := ls.first + ls.rnd.Intn(ls.steps-ls.first)
			body, want = `{"type":"seek","step":`+strconv.Itoa(k), k
		}
		r, n, d, err := ls.c.request(body)
		if err != nil {
			return fmt.Errorf("request %d (%s): %w", ls.reqs+1, opNames[op], err)
		}
		ls.reqs++
		ls.bytes += int64(n)
		ls.lat[op] = append(ls.lat[op], d)
		if w := int(time.Since(ls.t0) / ls.win); w < len(ls.byWin) {
			ls.byWin[w] = append(ls.byWin[w], d)
		}
		if err := ls.check(op, want, &r); err != nil {
			return fmt.Errorf("request %d (%s): %w", ls.reqs, opNames[op], err)
		}
		if think > 0 {
			// Jittered (0.5 to 1.5 times think) so the sessions do not
			// step in lockstep.
			time.Sleep(think/2 + time.Duration(ls.rnd.Int63n(int64(think)+1)))
		}
	}
	return nil
}

var errModel = errors.New("the reply does not match the history")

// check verifies a state reply against the model and updates it.
func (ls *loadSession) check(op, want int, r *reply) error {
	bad := func(what string) error {
		return fmt.Errorf("%w: %s (model: step %d, steps %d, first %d; want step %d): %s",
			errModel, what, ls.step, ls.steps, ls.first, want, r.String())
	}
	switch {
	case r.Running || r.Status != "paused":
		return bad("not paused")
	case want >= 0 && r.Step != want, want < 0 && r.Step <= ls.step:
		return bad("wrong step")
	case r.FirstStep < ls.first || r.FirstStep > r.Step:
		return bad("firstStep moved back or past the step")
	}
	switch op {
	case opWarp, opRound:
		// A step moves along the recorded trajectory, or past its head.
		if r.Steps != max(ls.steps, r.Step+1) || r.Reason != "stepped" {
			return bad("step")
		}
	case opBack, opSeek:
		if r.Steps != ls.steps || !r.Full {
			return bad("back/seek")
		}
	}
	ls.step, ls.steps, ls.first = r.Step, r.Steps, r.FirstStep
	return nil
}
