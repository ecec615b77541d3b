package sessions

import (
	"encoding/json"
	"math/rand"
	"strings"
	"testing"
	"time"
)

// Thinning a history's snapshots (and, past that, dropping its oldest
// steps) keeps every remaining position exact: random commands with
// shrinks between them, each position compared with a fresh machine.
func TestRandomHistoryThinned(t *testing.T) {
	c := newClient(t, newManager(t, Limits{}))
	c.load(mixPTX, mixSpec)
	c.do(func() { c.s.h.interval, c.s.h.jobInterval = 4, 16 })
	rnd := rand.New(rand.NewSource(11))
	thinned, dropped := 0, false
	for i := 0; i < 300; i++ {
		var st stateMsg
		switch x := rnd.Intn(10); {
		case x < 4:
			st = c.step([]string{"warp", "round", "barrier"}[rnd.Intn(3)], 1+rnd.Intn(6))
		case x < 5:
			c.send(map[string]any{"type": "run", "maxWarpInstructions": 1 + rnd.Intn(60)})
			st, _ = c.state()
		case x < 6:
			c.send(map[string]any{"type": "back", "count": 1 + rnd.Intn(8), "granularity": []string{"warp", "round", "barrier"}[rnd.Intn(3)]})
			st, _ = c.state()
		case x < 8:
			var first, head int64
			c.do(func() { first, head = c.s.h.first, c.s.h.head })
			c.send(map[string]any{"type": "seek", "step": first + rnd.Int63n(head-first+1)})
			st, _ = c.state()
		default:
			// Shrink to a fraction of the history, then show a random
			// position of what remains.
			var first, head int64
			c.do(func() {
				h := c.s.h
				n, d := h.shrink(h.bytes()*int64(2+rnd.Intn(7))/10, false)
				thinned += n
				dropped = dropped || d
				first, head = h.first, h.head
			})
			c.send(map[string]any{"type": "seek", "step": first + rnd.Int63n(head-first+1)})
			st, _ = c.state()
		}
		if st.Status == "done" {
			c.discard()
		}
		if d := diffDumps(c.dump(), c.fresh(st.Step)); d != "" {
			t.Fatalf("command %d (step %d): %s", i, st.Step, d)
		}
		if st.Status != "paused" {
			c.send(map[string]any{"type": "reset"})
			c.state()
		}
	}
	if thinned == 0 {
		t.Error("no snapshot was thinned")
	}
	t.Logf("%d snapshots thinned, steps dropped: %v", thinned, dropped)
}

// discard drops the messages already queued.
func (c *client) discard() {
	c.do(func() {})
	c.s.Take()
}

// regLoopPTX loops on registers alone: its history is snapshots.
const regLoopPTX = hdr + `.visible .entry k() {
	.reg .u32 %r<8>;
	mov.u32 %r1, %tid.x;
LOOP:
	add.u32 %r2, %r2, %r1;
	xor.b32 %r3, %r3, %r2;
	bra LOOP;
}
`

// When the accounted memory is high, the largest live histories shrink
// (their owners get a notice) and the accounted total comes down; the
// history stays exact.
func TestHistoriesTrimmedUnderPressure(t *testing.T) {
	m := newManager(t, Limits{})
	var cs []*client
	for i := 0; i < 2; i++ {
		c := newClient(t, m)
		c.load(regLoopPTX, `{"grid":[1],"block":[1024]}`)
		c.do(func() { c.s.h.interval, c.s.h.jobInterval = 64, 256 })
		for j := 0; j < 40; j++ {
			c.step("warp", 2000)
		}
		cs = append(cs, c)
	}
	small := newClient(t, m)
	small.load(spinPTX, spinSpec(32, 1<<30))
	var big, before int64
	cs[0].do(func() { big = cs[0].s.h.bytes() })
	before = m.AccountedBytes()
	if big < 1<<20 {
		t.Fatalf("history of %d bytes: too small for the test", big)
	}
	// The limit such that the total is just above trimAt eighths of it.
	m.maxAccounted.Store(before * 8 / trimAt * 95 / 100)
	deadline := time.Now().Add(10 * time.Second)
	for m.AccountedBytes() > m.maxAccounted.Load()/8*trimGoal {
		if time.Now().After(deadline) {
			t.Fatalf("accounted %d bytes, over %d eighths of %d", m.AccountedBytes(), trimGoal, m.maxAccounted.Load())
		}
		time.Sleep(20 * time.Millisecond)
	}
	notices := 0
	for _, c := range cs {
		c.do(func() {})
		msgs, _ := c.s.Take()
		for _, b := range msgs {
			var n noticeMsg
			if err := json.Unmarshal(b, &n); err != nil || n.Type != "notice" {
				continue
			}
			if n.Code != "history-trimmed" || !strings.Contains(n.Message, "memory") {
				t.Fatalf("notice %s", b)
			}
			notices++
		}
		var first, head int64
		c.do(func() { first, head = c.s.h.first, c.s.h.head })
		for _, k := range []int64{first, first + 1, (first + head) / 2, head - 7, head} {
			c.send(map[string]any{"type": "seek", "step": k})
			st, _ := c.state()
			if d := diffDumps(c.dump(), c.fresh(st.Step)); d != "" || st.Step != k {
				t.Fatalf("seek %d (got %d): %s", k, st.Step, d)
			}
		}
	}
	if notices == 0 {
		t.Fatal("no owner was told")
	}
	// The smallest session was left alone.
	small.do(func() {})
	if msgs, _ := small.s.Take(); len(msgs) != 0 {
		t.Fatalf("the smallest session got %d messages: %s", len(msgs), msgs[0])
	}
}
