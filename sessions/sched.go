package sessions

import (
	"sync"
	"time"
)

// The CPU scheduler. Every piece of a session's work that uses the CPU for
// long (handling a command, one slice of a run or of a long step) holds one
// of the manager's tokens; there are MaxRunningJobs of them (default
// GOMAXPROCS-1, at least 1), so at most one session works per core and,
// with two cores or more, one core is always free for the network and the
// HTTP handlers. (A token passed from one session to the next wakes the
// next one on the same core ahead of every other goroutine: with every
// core holding a token, /healthz and the websocket I/O waited up to the Go
// scheduler's 10ms preemption tick behind the emulation.) A client command
// waits for a token with high priority, the next slice of a job already
// running with low priority: a single step, an inspect or a seek waits at
// most for the slices in progress (a few milliseconds each), never for the
// runs queued before it. Within a priority the order is first come, first
// served, so the runs share the cores in turn.

type prio int

const (
	prioHigh prio = iota // a client command
	prioLow              // the next slice of a job
)

// ticket is a place in the scheduler's queue; ready receives when the
// token is granted.
type ticket struct {
	ready chan struct{}
	prio  prio
}

type cpuSched struct {
	mu     sync.Mutex
	free   int
	queues [2][]*ticket
}

func newCPUSched(tokens int) *cpuSched {
	return &cpuSched{free: max(tokens, 1)}
}

// request queues for a token; the caller waits on t.ready, then calls
// release, or gives its place up with cancel.
func (c *cpuSched) request(p prio) *ticket {
	t := &ticket{ready: make(chan struct{}, 1), prio: p}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.free > 0 && len(c.queues[prioHigh]) == 0 && (p == prioHigh || len(c.queues[prioLow]) == 0) {
		c.free--
		t.ready <- struct{}{}
		return t
	}
	c.queues[p] = append(c.queues[p], t)
	return t
}

// acquire waits for a token; false (and no token) when quit closed first.
func (c *cpuSched) acquire(p prio, quit <-chan struct{}) bool {
	t := c.request(p)
	select {
	case <-t.ready:
		return true
	case <-quit:
		c.cancel(t)
		return false
	}
}

// cancel gives t's place up; a token already granted to it goes to the
// next in line.
func (c *cpuSched) cancel(t *ticket) {
	c.mu.Lock()
	q := c.queues[t.prio]
	for i, x := range q {
		if x == t {
			copy(q[i:], q[i+1:])
			q[len(q)-1] = nil
			c.queues[t.prio] = q[:len(q)-1]
			c.mu.Unlock()
			return
		}
	}
	c.mu.Unlock()
	// Not queued: the token was granted (t.ready holds it).
	<-t.ready
	c.release()
}

// release returns a token: to the first high-priority waiter, else the
// first low-priority one.
func (c *cpuSched) release() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for p := range c.queues {
		if q := c.queues[p]; len(q) > 0 {
			t := q[0]
			q[0] = nil
			c.queues[p] = q[1:]
			t.ready <- struct{}{}
			return
		}
	}
	c.free++
}

// waiting returns the number of queued tickets (tests).
func (c *cpuSched) waiting() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.queues[prioHigh]) + len(c.queues[prioLow])
}

// cpuMeter is a session's CPU use (the time it held a token) over a
// sliding window, kept in cpuBuckets buckets.
type cpuMeter struct {
	span time.Duration // of one bucket
	at   [cpuBuckets]int64
	used [cpuBuckets]time.Duration
}

const cpuBuckets = 16

func newCPUMeter(window time.Duration) cpuMeter {
	m := cpuMeter{span: max(window/cpuBuckets, time.Millisecond)}
	for i := range m.at {
		m.at[i] = -1
	}
	return m
}

// add counts d used at now.
func (m *cpuMeter) add(now time.Time, d time.Duration) {
	k := now.UnixNano() / int64(m.span)
	i := k % cpuBuckets
	if m.at[i] != k {
		m.at[i], m.used[i] = k, 0
	}
	m.used[i] += d
}

// total returns the use within the window that ends at now.
func (m *cpuMeter) total(now time.Time) time.Duration {
	k := now.UnixNano() / int64(m.span)
	var sum time.Duration
	for i := range m.at {
		if m.at[i] > k-cpuBuckets && m.at[i] <= k {
			sum += m.used[i]
		}
	}
	return sum
}

// until returns how long from now until the use within the window drops
// below allowance (0: it is below).
func (m *cpuMeter) until(now time.Time, allowance time.Duration) time.Duration {
	sum := m.total(now)
	if sum < allowance {
		return 0
	}
	k := now.UnixNano() / int64(m.span)
	// Buckets leave the window oldest first.
	for j := k - cpuBuckets + 1; j <= k; j++ {
		i := j % cpuBuckets
		if m.at[i] == j {
			sum -= m.used[i]
		}
		if sum < allowance {
			return time.Unix(0, (j+cpuBuckets)*int64(m.span)).Sub(now)
		}
	}
	return time.Duration(cpuBuckets) * m.span
}
