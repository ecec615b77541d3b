package sessions

import (
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

func granted(t *ticket) bool {
	select {
	case <-t.ready:
		t.ready <- struct{}{} // put it back
		return true
	default:
		return false
	}
}

// At most the number of tokens are granted; a released token goes to the
// first high-priority waiter before any low-priority one, and within a
// priority in order of request.
func TestCPUSchedOrder(t *testing.T) {
	c := newCPUSched(2)
	a, b := c.request(prioLow), c.request(prioLow)
	if !granted(a) || !granted(b) {
		t.Fatal("two tokens: the first two requests are granted")
	}
	l1, l2 := c.request(prioLow), c.request(prioLow)
	h1, h2 := c.request(prioHigh), c.request(prioHigh)
	for _, x := range []*ticket{l1, l2, h1, h2} {
		if granted(x) {
			t.Fatal("a third token was granted")
		}
	}
	if c.waiting() != 4 {
		t.Fatalf("waiting %d, want 4", c.waiting())
	}
	<-a.ready
	c.release()
	if !granted(h1) || granted(h2) || granted(l1) {
		t.Fatal("the first release goes to the first high-priority waiter")
	}
	// A granted ticket given up passes its token on.
	c.cancel(h1)
	if !granted(h2) || granted(l1) {
		t.Fatal("a cancelled grant goes to the next high-priority waiter")
	}
	// A queued ticket given up leaves the queue.
	c.cancel(l1)
	<-h2.ready
	c.release()
	if !granted(l2) {
		t.Fatal("then the low-priority waiters, in order")
	}
	<-b.ready
	c.release()
	<-l2.ready
	c.release()
	if c.waiting() != 0 || c.free != 2 {
		t.Fatalf("free %d, waiting %d after everything was released", c.free, c.waiting())
	}
	// A high-priority request passes queued low-priority ones.
	x, y := c.request(prioLow), c.request(prioLow)
	hi := c.request(prioHigh)
	lo := c.request(prioLow)
	<-x.ready
	c.release()
	if !granted(hi) || granted(lo) {
		t.Fatal("high priority first")
	}
	for _, tk := range []*ticket{y, hi} {
		<-tk.ready
		c.release()
	}
	<-lo.ready
	c.release()
}

// Concurrent users never hold more tokens than there are.
func TestCPUSchedBound(t *testing.T) {
	c := newCPUSched(3)
	var mu sync.Mutex
	held, most := 0, 0
	var wg sync.WaitGroup
	quit := make(chan struct{})
	for i := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 200 {
				p := prio(i % 2)
				if !c.acquire(p, quit) {
					t.Error("acquire failed")
					return
				}
				mu.Lock()
				held++
				most = max(most, held)
				mu.Unlock()
				time.Sleep(time.Microsecond)
				mu.Lock()
				held--
				mu.Unlock()
				c.release()
			}
		}()
	}
	wg.Wait()
	if most > 3 || most < 2 {
		t.Fatalf("at most %d tokens held at once, want 3", most)
	}
	if c.free != 3 {
		t.Fatalf("%d tokens free at the end", c.free)
	}
}

func TestCPUMeter(t *testing.T) {
	m := newCPUMeter(1600 * time.Millisecond) // buckets of 100ms
	t0 := time.Unix(1000, 0)
	m.add(t0, 30*time.Millisecond)
	m.add(t0.Add(450*time.Millisecond), 50*time.Millisecond)
	if got := m.total(t0.Add(500 * time.Millisecond)); got != 80*time.Millisecond {
		t.Fatalf("total %v, want 80ms", got)
	}
	if got := m.until(t0.Add(500*time.Millisecond), 100*time.Millisecond); got != 0 {
		t.Fatalf("under the allowance: until %v", got)
	}
	// Over 60ms: the first bucket (t0..t0+100ms) leaves at t0+1.6s.
	if got := m.until(t0.Add(500*time.Millisecond), 60*time.Millisecond); got != 1100*time.Millisecond {
		t.Fatalf("until %v, want 1.1s", got)
	}
	// Under 30ms both must leave: the second (t0+400ms) at t0+2s.
	if got := m.until(t0.Add(500*time.Millisecond), 30*time.Millisecond); got != 1500*time.Millisecond {
		t.Fatalf("until %v, want 1.5s", got)
	}
	if got := m.total(t0.Add(1700 * time.Millisecond)); got != 50*time.Millisecond {
		t.Fatalf("total after the first bucket left: %v", got)
	}
	if got := m.total(t0.Add(3 * time.Second)); got != 0 {
		t.Fatalf("total after the window: %v", got)
	}
	// A reused bucket starts from zero.
	m.add(t0.Add(1650*time.Millisecond), 5*time.Millisecond)
	if got := m.total(t0.Add(1650 * time.Millisecond)); got != 55*time.Millisecond {
		t.Fatalf("total %v, want 55ms", got)
	}
}

// A run that reaches MaxCommandTime stops with reason "interrupted" and
// status paused, at an exact step; the next run goes on from there.
func TestCommandTimeLimit(t *testing.T) {
	c := newClient(t, newManager(t, Limits{MaxCommandTime: 150 * time.Millisecond}))
	c.load(spinPTX, spinSpec(256, 1<<30))
	var prev int64
	for i := range 2 {
		t0 := time.Now()
		c.send(map[string]any{"type": "run", "id": 10 + i})
		st, _ := c.state()
		el := time.Since(t0)
		if st.Reason != "interrupted" || st.Status != "paused" || !strings.Contains(st.Message, "run again") || st.Step <= prev {
			t.Fatalf("run %d: %+v", i, st)
		}
		if el < 150*time.Millisecond || el > 5*time.Second {
			t.Fatalf("run %d took %v with a limit of 150ms", i, el)
		}
		if d := diffDumps(c.dump(), c.fresh(st.Step)); d != "" {
			t.Fatalf("run %d: %s", i, d)
		}
		prev = st.Step
	}
	// The stop is in the history: seek back to it.
	c.send(map[string]any{"type": "back"})
	c.state()
	c.send(map[string]any{"type": "seek", "step": prev})
	st, _ := c.state()
	if st.Step != prev || st.Reason != "interrupted" {
		t.Fatalf("seek to the stop: %+v", st)
	}
}

// A session that used its CPU allowance waits (a run frame says
// "throttled") and stays responsive: pause answers at once.
func TestCPUAllowance(t *testing.T) {
	lim := Limits{CPUAllowance: 40 * time.Millisecond, CPUWindow: 1600 * time.Millisecond,
		FrameInterval: time.Millisecond, MaxCommandTime: time.Minute}
	c := newClient(t, newManager(t, lim))
	c.load(spinPTX, spinSpec(256, 1<<30))
	c.send(map[string]any{"type": "run", "id": 3})
	deadline := time.Now().Add(10 * time.Second)
	var fr stateMsg
	for fr.Reason != "throttled" {
		if time.Now().After(deadline) {
			t.Fatal("no throttled frame")
		}
		if err := json.Unmarshal(c.expect("state"), &fr); err != nil {
			t.Fatal(err)
		}
		if !fr.Running {
			t.Fatalf("the run stopped: %+v", fr)
		}
	}
	if !strings.Contains(fr.Message, "CPU allowance") {
		t.Fatalf("throttled frame %+v", fr)
	}
	var used time.Duration
	c.do(func() { used = c.s.cpu.total(time.Now()) })
	// Within a slice of the allowance: a few ms, but a token's hold is
	// wall time, and on a loaded 2-core machine (go test runs packages side
	// by side) one slice has measured up to ~300 ms.
	if used < lim.CPUAllowance || used > lim.CPUAllowance+400*time.Millisecond {
		t.Fatalf("used %v of an allowance of %v", used, lim.CPUAllowance)
	}
	time.Sleep(200 * time.Millisecond)
	t0 := time.Now()
	c.send(map[string]any{"type": "pause", "id": 4})
	st, _ := c.state()
	if el := time.Since(t0); el > time.Second {
		t.Fatalf("pause took %v while throttled", el)
	}
	if st.Reason != "paused" || st.ID == nil || *st.ID != 4 {
		t.Fatalf("after pause %+v", st)
	}
	if d := diffDumps(c.dump(), c.fresh(st.Step)); d != "" {
		t.Fatal(d)
	}
}

// With one token and runs in progress in other sessions, a session's
// single steps go first: each waits for at most the slice in progress.
// Every stepping session's machine stays exact.
func TestStepsBeforeRuns(t *testing.T) {
	m := newManager(t, Limits{MaxRunningJobs: 1, FrameInterval: 50 * time.Millisecond, MaxCommandTime: time.Minute})
	var runners []*client
	for i := range 12 {
		c := newClient(t, m)
		c.load(spinPTX, spinSpec(256, 1<<30))
		c.send(map[string]any{"type": "run", "id": 100 + i})
		runners = append(runners, c)
	}
	// Drain the runners' frames so their outboxes do not fill.
	var wg sync.WaitGroup
	for _, r := range runners {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				b, err := r.s.Next(t.Context())
				if err != nil || strings.Contains(string(b), `"running":false`) {
					return
				}
			}
		}()
	}
	c := newClient(t, m)
	c.load(spinPTX, spinSpec(64, 1000))
	var lat []time.Duration
	for i := range 40 {
		t0 := time.Now()
		st := c.step("warp", 1)
		lat = append(lat, time.Since(t0))
		if st.Step != int64(i+1) || st.Reason != "stepped" {
			t.Fatalf("step %d: %+v", i+1, st)
		}
	}
	if d := diffDumps(c.dump(), c.fresh(40)); d != "" {
		t.Fatal(d)
	}
	for _, r := range runners {
		r.send(map[string]any{"type": "pause"})
	}
	wg.Wait()
	slices.Sort(lat)
	// Twelve runs queued before each step would make it wait for twelve
	// slices (about 50ms); the median must not.
	if p50 := lat[len(lat)/2]; p50 > 30*time.Millisecond {
		t.Fatalf("step p50 %v behind 12 runs on one token (all: %v)", p50, lat)
	}
}
