package sessions

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeClock is the manager's clock of idleness, moved by the test.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func newClockManager(t *testing.T, lim Limits) (*Manager, *fakeClock) {
	clk := &fakeClock{t: time.Unix(1_700_000_000, 0)}
	m := newManagerClock(lim, nil, clk.now)
	t.Cleanup(m.Close)
	return m, clk
}

func newClientFrom(t *testing.T, m *Manager, addr string) *client {
	t.Helper()
	s, err := m.NewClientSession(addr)
	if err != nil {
		t.Fatalf("session for %s: %v", addr, err)
	}
	c := &client{t: t, s: s}
	c.expect("hello")
	return c
}

// expectReclaimed reads the reclaimed error that ends c's session.
func (c *client) expectReclaimed() {
	c.t.Helper()
	h := c.expectError("reclaimed")
	if !strings.Contains(h.Message, "reconnect") || !strings.Contains(h.Message, "kept in your browser") {
		c.t.Fatalf("reclaimed message %q", h.Message)
	}
	if typ, _ := c.next(); typ != "EOF" {
		c.t.Fatalf("after reclaimed: %s", typ)
	}
	if r := c.s.CloseReason(); r != "session reclaimed for a new client" {
		c.t.Fatalf("close reason %q", r)
	}
}

// ended reports whether c's session has ended.
func (c *client) ended() bool {
	select {
	case <-c.s.Done():
		return true
	default:
		return false
	}
}

// Eight addresses open eight sessions each, filling the server, and keep
// them by stepping every 20 s: none is ever idle for ReclaimIdle. A
// newcomer from a ninth address still gets a session (the place of a
// session of the address holding the most, quiet for ReclaimQuiet), and so
// do the next ones, the hoarding addresses yielding evenly, while a
// hoarder's extra connection does not take places back.
func TestAdmissionHoardersYield(t *testing.T) {
	m, clk := newClockManager(t, Limits{MaxSessions: 64})
	var all []*client
	addr := map[*client]string{}
	for range 8 {
		for a := range 8 {
			c := newClientFrom(t, m, fmt.Sprintf("198.51.100.%d", a+1))
			c.load(spinPTX, spinSpec(32, 1<<30))
			all = append(all, c)
			addr[c] = fmt.Sprintf("198.51.100.%d", a+1)
		}
	}
	// Every session steps once every 20 s, the steps spread evenly.
	tick := 20 * time.Second / time.Duration(len(all))
	reclaimed := map[*client]bool{}
	var newcomers []*client
	for round := range 3 {
		for k, c := range all {
			clk.advance(tick)
			if !reclaimed[c] {
				c.step("warp", 1)
			}
			for _, nc := range newcomers {
				if k%16 == 0 {
					nc.step("warp", 1)
				}
			}
			if round < 2 || k%8 != 7 {
				continue
			}
			if k == 7 {
				if _, err := m.NewClientSession("198.51.100.1"); err != ErrBusy {
					t.Fatalf("a hoarding address's 9th session: %v, want busy", err)
				}
			}
			// A newcomer every 2.5 s.
			nc := newClientFrom(t, m, fmt.Sprintf("203.0.113.%d", len(newcomers)+1))
			nc.load(spinPTX, spinSpec(32, 1<<30))
			newcomers = append(newcomers, nc)
			victim := waitEnded(t, all, reclaimed)
			victim.expectReclaimed()
			reclaimed[victim] = true
		}
	}
	if len(newcomers) != 8 {
		t.Fatalf("%d newcomers", len(newcomers))
	}
	if n := m.Len(); n != 64 {
		t.Fatalf("%d sessions live, want 64", n)
	}
	held := map[string]int{}
	for _, c := range all {
		if !reclaimed[c] {
			held[addr[c]]++
		}
	}
	for a, n := range held {
		if n != 7 {
			t.Errorf("%s holds %d sessions, want 7 (each hoarding address yields one): %v", a, n, held)
		}
	}
	// The hoarders hold 7 each and the newcomers 1: a hoarder's new
	// connection takes no place back.
	if _, err := m.NewClientSession("198.51.100.8"); err != ErrBusy {
		t.Fatalf("hoarder after the newcomers: %v, want busy", err)
	}
}

// waitEnded waits for exactly one session of all, not in gone, to end.
func waitEnded(t *testing.T, all []*client, gone map[*client]bool) *client {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		var ended []*client
		for _, c := range all {
			if !gone[c] && c.ended() {
				ended = append(ended, c)
			}
		}
		if len(ended) > 1 {
			t.Fatalf("%d sessions ended for one newcomer", len(ended))
		}
		if len(ended) == 1 {
			return ended[0]
		}
		time.Sleep(time.Millisecond)
	}
	t.Fatal("no session gave its place to the newcomer")
	return nil
}

// When the server is full, sessions idle for ReclaimIdle give their place
// first: of the address holding the most sessions first, then the one
// idle the longest; a session that is not idle keeps its place.
func TestAdmissionIdleReclaimed(t *testing.T) {
	m, clk := newClockManager(t, Limits{MaxSessions: 3, ReclaimIdle: 2 * time.Minute, ReclaimQuiet: time.Hour})
	x := newClientFrom(t, m, "192.0.2.1")
	y1 := newClientFrom(t, m, "192.0.2.2")
	y2 := newClientFrom(t, m, "192.0.2.2")
	for _, c := range []*client{x, y1, y2} {
		c.load(spinPTX, spinSpec(32, 1<<30))
	}
	clk.advance(time.Minute)
	x.step("warp", 1)
	clk.advance(time.Minute)
	y2.step("warp", 1)
	// y1 idle 2 min: x idle 1 min, y2 active.
	if _, err := m.NewClientSession("192.0.2.9"); err != nil {
		t.Fatalf("newcomer: %v", err)
	}
	y1.expectReclaimed()
	// x is idle 1 min, y2 0: nobody gives way yet.
	if _, err := m.NewClientSession("192.0.2.10"); err != ErrBusy {
		t.Fatalf("second newcomer with nobody idle: %v", err)
	}
	clk.advance(90 * time.Second)
	y2.step("warp", 1)
	if _, err := m.NewClientSession("192.0.2.10"); err != nil {
		t.Fatalf("second newcomer: %v", err)
	}
	x.expectReclaimed()
	if y2.ended() {
		t.Fatal("the active session was reclaimed")
	}
}
