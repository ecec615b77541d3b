package sessions

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// block stops c's session goroutine until the returned function is called.
func (c *client) block() (unblock func()) {
	started, release := make(chan struct{}), make(chan struct{})
	c.s.in <- command{fn: func() { close(started); <-release }}
	<-started
	return func() { close(release) }
}

// bigCheck is a `check` message of about n bytes (a comment-padded source).
func bigCheck(n int) []byte {
	src := hdr + "// " + strings.Repeat("x", n) + "\n.visible .entry k() { ret; }\n"
	b, _ := json.Marshal(map[string]any{"type": "check", "id": 9, "source": src})
	return b
}

// Client messages waiting for a busy session are charged to it and
// bounded by MaxInboundBytes: beyond it they are refused with "limit";
// once handled their charge is released.
func TestInboundQueueAccounted(t *testing.T) {
	m := newManager(t, Limits{})
	c := newClient(t, m)
	base := m.AccountedBytes()
	unblock := c.block()
	msg := bigCheck(1000 << 10) // about 1 MiB
	for range 16 {
		c.s.Submit(msg)
	}
	lim := m.Limits().MaxInboundBytes
	held := m.AccountedBytes() - base
	if held < int64(len(msg)) || held > lim {
		t.Fatalf("%d bytes of messages waiting accounted as %d (inbound limit %d)", 16*len(msg), held, lim)
	}
	queued := int(lim) / len(msg)
	refused := 0
	for range 16 - queued {
		if h := c.expectError("limit"); h.ID == nil || *h.ID != 9 || !strings.Contains(h.Message, "dropped") {
			t.Fatalf("refusal %+v", h)
		}
		refused++
	}
	unblock()
	for range queued {
		c.expect("diagnostics")
	}
	c.do(func() {})
	if got := m.AccountedBytes() - m.cache.size(); got != base {
		t.Fatalf("after the messages were handled %d bytes accounted besides the cache, %d before", got, base)
	}
	if refused == 0 {
		t.Fatal("nothing refused")
	}
}

// A reservation made while a message is read counts against the same
// bound, and a session that ends releases what waits.
func TestInboundReserve(t *testing.T) {
	m := newManager(t, Limits{})
	c := newClient(t, m)
	base := m.AccountedBytes()
	lim := m.Limits().MaxInboundBytes
	if !c.s.ReserveInbound(lim - 10) {
		t.Fatal("reservation within the limit refused")
	}
	if c.s.ReserveInbound(11) {
		t.Fatal("reservation over the limit accepted")
	}
	if got := m.AccountedBytes() - base; got != lim-10 {
		t.Fatalf("reserved %d, accounted %d", lim-10, got)
	}
	c.s.ReleaseInbound(lim - 10)
	unblock := c.block()
	c.s.Submit(bigCheck(100 << 10))
	if m.AccountedBytes() == base {
		t.Fatal("a waiting message is not accounted")
	}
	go func() { time.Sleep(10 * time.Millisecond); unblock() }()
	c.s.Close()
	if got := m.AccountedBytes(); got != m.cache.size() {
		t.Fatalf("after the end %d bytes accounted, the cache holds %d", got, m.cache.size())
	}
}

// Replies waiting in the outbox are charged until taken; one larger than
// the outbox's bound is refused even when the box is empty.
func TestOutboxAccounted(t *testing.T) {
	m := newManager(t, Limits{})
	c := newClient(t, m)
	base := m.AccountedBytes()
	unblock := c.block()
	c.s.out.push(make([]byte, 3000), false)
	c.s.out.push(make([]byte, 5000), false)
	if got := m.AccountedBytes() - base; got != 8000 {
		t.Fatalf("8000 bytes queued, %d accounted", got)
	}
	c.s.out.pop()
	if got := m.AccountedBytes() - base; got != 5000 {
		t.Fatalf("5000 bytes queued, %d accounted", got)
	}
	c.s.Take()
	if got := m.AccountedBytes(); got != base {
		t.Fatalf("after take %d accounted, %d before", got, base)
	}
	unblock()
	o := newOutbox(1000)
	if o.push(make([]byte, 1001), false) {
		t.Fatal("an empty outbox took a message over its bound")
	}
}

// A comparison's two machines are charged to the session while it runs;
// when the accounted memory goes over the limit it stops with "busy"
// instead of holding them, and its charge is released.
func TestCompareCharged(t *testing.T) {
	m := newManager(t, Limits{})
	c := newClient(t, m)
	c.load(spinPTX, spinSpec(256, 1<<30))
	c.send(map[string]any{"type": "compare-scheduling", "id": 5})
	var cmpBytes, state int64
	c.do(func() { cmpBytes, state = c.s.ch.get(chargeCompare), c.s.ch.get(chargeState) })
	if cmpBytes < 2*state*9/10 {
		t.Fatalf("a comparison of two machines charged %d bytes; the session's own machine and history %d", cmpBytes, state)
	}
	m.maxAccounted.Store(m.AccountedBytes() - 1) // only the manager's copy is read
	h := c.expectError("busy")
	if h.ID == nil || *h.ID != 5 || !strings.Contains(h.Message, "comparison") {
		t.Fatalf("stopped comparison: %+v", h)
	}
	c.do(func() { cmpBytes = c.s.ch.get(chargeCompare) })
	if cmpBytes != 0 {
		t.Fatalf("%d bytes still charged for a stopped comparison", cmpBytes)
	}
}

// A comparison's machines have the session's state budget: a cp.async
// loop that never waits stops with a memory-limit fault under both models
// instead of growing its copies in flight without bound.
func TestCompareStateBudget(t *testing.T) {
	m := newManager(t, Limits{MaxStateBytes: 4 << 20, MaxWarpInstructions: 2_000_000, MaxCommandTime: time.Minute})
	c := newClient(t, m)
	c.load(cpAsyncLoopPTX, cpAsyncLoopSpec)
	c.send(map[string]any{"type": "compare-scheduling", "id": 5, "maxWarpInstructions": 2_000_000})
	var r compareMsg
	for {
		typ, b := c.next()
		if typ == "scheduling-compare" {
			if err := json.Unmarshal(b, &r); err != nil {
				t.Fatal(err)
			}
			break
		}
	}
	if len(r.Runs) != 2 {
		t.Fatalf("compare: %+v", r)
	}
	for _, run := range r.Runs {
		if run.Outcome != "fault" || run.Fault == nil || run.Fault.Kind != "memory-limit" {
			t.Errorf("%s: outcome %s, fault %+v; want a memory-limit fault", run.Scheduling, run.Outcome, run.Fault)
		}
	}
}
