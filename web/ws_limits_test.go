package web

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/ptxplayground/ptxplay/sessions"
)

func newLimitServer(t *testing.T, lim sessions.Limits, o WSOptions) (*Server, *httptest.Server, *sessions.Manager) {
	t.Helper()
	met := NewMetrics()
	mgr := sessions.NewManager(lim, met)
	met.SetAccountedMemory(mgr.AccountedBytes)
	s, err := New(Options{Sessions: SessionsFrom(mgr.NewClientSession), Metrics: met,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), WebSocket: o})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		s.CloseWebsockets(ctx)
		ts.Close()
		mgr.Close()
	})
	return s, ts, mgr
}

func dialHeader(t *testing.T, ts *httptest.Server, h http.Header) *websocket.Conn {
	t.Helper()
	c, resp, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(ts.URL, "http")+"/ws", h)
	if err != nil {
		t.Fatalf("dial: %v (%v)", err, resp)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// expectRefused reads the error message of a refused websocket and its
// close frame.
func expectRefused(t *testing.T, c *websocket.Conn, code string, closeCode int, reason string) {
	t.Helper()
	m := wsRead(t, c)
	if m["type"] != "error" || m["code"] != code {
		t.Fatalf("want error %s, got %v", code, m)
	}
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	_, _, err := c.ReadMessage()
	var ce *websocket.CloseError
	if !errors.As(err, &ce) || ce.Code != closeCode || ce.Text != reason {
		t.Fatalf("want close %d %q, got %v", closeCode, reason, err)
	}
}

func TestWebsocketSessionsPerIP(t *testing.T) {
	s, ts, mgr := newLimitServer(t, sessions.Limits{}, WSOptions{MaxSessionsPerIP: 2, TrustedProxyHeader: "X-Forwarded-For"})
	a := wsDial(t, ts)
	wsUntil(t, a, "hello")
	b := wsDial(t, ts)
	wsUntil(t, b, "hello")
	c := wsDial(t, ts)
	expectRefused(t, c, "limit", websocket.ClosePolicyViolation, "too many sessions from your address")
	if mgr.Len() != 2 {
		t.Fatalf("%d sessions", mgr.Len())
	}
	// Another client behind the trusted proxy has its own allowance; the
	// proxy's address is the last of the list.
	other := dialHeader(t, ts, http.Header{"X-Forwarded-For": {"198.51.100.7, 203.0.113.9"}})
	wsUntil(t, other, "hello")
	// The count is released when a connection closes.
	a.Close()
	deadline := time.Now().Add(5 * time.Second)
	for {
		s.mu.Lock()
		n := s.perIP["127.0.0.1"]
		s.mu.Unlock()
		if n == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("per-address count %d after a close", n)
		}
		time.Sleep(10 * time.Millisecond)
	}
	d := wsDial(t, ts)
	wsUntil(t, d, "hello")
	_, body := get(t, ts.URL+"/metrics")
	if !strings.Contains(body, `ptxplay_ws_refused_total{reason="sessions-per-ip"} 1`) {
		t.Errorf("metrics: no refusal counted")
	}
}

func TestWebsocketProxyHeaderUntrusted(t *testing.T) {
	// Without TrustedProxyHeader the header is ignored: every connection
	// counts for the peer address.
	_, ts, _ := newLimitServer(t, sessions.Limits{}, WSOptions{MaxSessionsPerIP: 1})
	a := dialHeader(t, ts, http.Header{"X-Forwarded-For": {"198.51.100.1"}})
	wsUntil(t, a, "hello")
	b := dialHeader(t, ts, http.Header{"X-Forwarded-For": {"198.51.100.2"}})
	expectRefused(t, b, "limit", websocket.ClosePolicyViolation, "too many sessions from your address")
}

func TestWebsocketHandshakeRate(t *testing.T) {
	_, ts, _ := newLimitServer(t, sessions.Limits{}, WSOptions{HandshakesPerMinute: 1, HandshakeBurst: 2})
	for range 2 {
		c := wsDial(t, ts)
		wsUntil(t, c, "hello")
		c.Close()
	}
	c := wsDial(t, ts)
	expectRefused(t, c, "limit", websocket.ClosePolicyViolation, "too many connections from your address")
}

func TestWebsocketNoProgramTimeout(t *testing.T) {
	_, ts, mgr := newLimitServer(t, sessions.Limits{NoProgramTimeout: 300 * time.Millisecond, IdleTimeout: time.Hour}, WSOptions{})
	c := wsDial(t, ts)
	wsUntil(t, c, "hello")
	start := time.Now()
	m := wsRead(t, c)
	if m["type"] != "error" || m["code"] != "expired" || !strings.Contains(m["message"].(string), "no program was loaded") {
		t.Fatalf("want expired, got %v", m)
	}
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	_, _, err := c.ReadMessage()
	var ce *websocket.CloseError
	if !errors.As(err, &ce) || ce.Code != websocket.ClosePolicyViolation || ce.Text != "no program loaded in time" {
		t.Fatalf("close: %v", err)
	}
	if time.Since(start) > 3*time.Second {
		t.Fatalf("closed after %v", time.Since(start))
	}
	// A session that loads stays, and its memory shows in the gauge.
	d := wsDial(t, ts)
	wsUntil(t, d, "hello")
	wsSend(t, d, map[string]any{"type": "load", "id": 1, "source": ".version 8.0\n.target sm_80\n.address_size 64\n.global .b8 g[4096];\n.visible .entry k() { ret; }\n", "spec": map[string]any{"grid": []int{1}, "block": []int{32}}})
	wsUntil(t, d, "loaded")
	time.Sleep(600 * time.Millisecond)
	if mgr.Len() != 1 {
		t.Fatalf("%d sessions; the loaded one was closed", mgr.Len())
	}
	_, metrics := get(t, ts.URL+"/metrics")
	if !strings.Contains(metrics, "ptxplay_accounted_memory_bytes ") || strings.Contains(metrics, "ptxplay_accounted_memory_bytes 0\n") {
		t.Errorf("accounted memory gauge missing or zero")
	}
}

// The bytes of a client message count against the session's inbound
// limit while they are read: one larger than the session may hold is
// skipped as it arrives and answered with error "limit" (its id kept),
// and the connection stays.
func TestInboundChargedWhileRead(t *testing.T) {
	_, ts, mgr := newLimitServer(t, sessions.Limits{MaxSourceBytes: 64 << 10, MaxInboundBytes: 256 << 10},
		WSOptions{MaxMessageBytes: 8 << 20})
	c := dialHeader(t, ts, nil)
	if m := wsRead(t, c); m["type"] != "hello" {
		t.Fatalf("first message %v", m)
	}
	// The first part of the message, then a pause: what arrived is
	// charged already.
	w, err := c.NextWriter(websocket.TextMessage)
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(w, `{"type":"check","source":"`+strings.Repeat("x", 200<<10))
	deadline := time.Now().Add(5 * time.Second)
	for mgr.AccountedBytes() < 150<<10 {
		if time.Now().After(deadline) {
			t.Fatalf("%d bytes accounted while a message of more than 200 KiB is read", mgr.AccountedBytes())
		}
		time.Sleep(10 * time.Millisecond)
	}
	io.WriteString(w, strings.Repeat("x", 2<<20)+`","id":41}`)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	m := wsRead(t, c)
	if m["type"] != "error" || m["code"] != "limit" || m["id"] != float64(41) {
		t.Fatalf("want error limit for id 41, got %v", m)
	}
	if err := c.WriteMessage(websocket.TextMessage, []byte(`{"type":"pause","id":42}`)); err != nil {
		t.Fatal(err)
	}
	if m := wsRead(t, c); m["code"] != "no-program" || m["id"] != float64(42) {
		t.Fatalf("after the refusal: %v", m)
	}
	if got := mgr.AccountedBytes(); got != 0 {
		t.Fatalf("%d bytes still accounted", got)
	}
}

// TestInboundPacedPerAddress: the server reads client messages from one
// address at most at its byte rate, all its sockets together (it stops
// reading, so TCP holds the sender back), while another address is
// answered at once.
func TestInboundPacedPerAddress(t *testing.T) {
	const (
		rate  = 256 << 10
		burst = 1 << 20
		msg   = 64 << 10
		span  = 1500 * time.Millisecond
	)
	s, ts, _ := newLimitServer(t, sessions.Limits{}, WSOptions{TrustedProxyHeader: "X-Forwarded-For",
		InboundBytesPerSecond: rate, InboundBurstBytes: burst})
	from := func(ip string) http.Header { return http.Header{"X-Forwarded-For": {ip}} }
	body := []byte(`{"type":"check","source":"` + strings.Repeat("x", msg-40) + `"}`)
	var replies atomic.Int64
	stop := time.Now().Add(span)
	var wg sync.WaitGroup
	for range 2 {
		c := dialHeader(t, ts, from("192.0.2.7"))
		wsRead(t, c) // hello
		wg.Add(2)
		go func() { // the flood
			defer wg.Done()
			for time.Now().Before(stop) {
				c.SetWriteDeadline(stop)
				if c.WriteMessage(websocket.TextMessage, body) != nil {
					return
				}
			}
		}()
		go func() {
			defer wg.Done()
			c.SetReadDeadline(stop.Add(200 * time.Millisecond))
			for {
				if _, _, err := c.ReadMessage(); err != nil {
					return
				}
				replies.Add(1)
			}
		}()
	}
	time.Sleep(span / 2)
	other := dialHeader(t, ts, from("198.51.100.9"))
	wsRead(t, other)
	t0 := time.Now()
	if err := other.WriteMessage(websocket.TextMessage, []byte(`{"type":"pause","id":5}`)); err != nil {
		t.Fatal(err)
	}
	if m := wsRead(t, other); m["id"] != float64(5) {
		t.Fatalf("the other address: %v", m)
	}
	if d := time.Since(t0); d > 500*time.Millisecond {
		t.Errorf("another address waited %v for its answer", d)
	}
	wg.Wait()
	most := (burst + rate*int64(span/time.Millisecond)/1000 + 2*msg) / msg
	t.Logf("%d messages of %d KiB answered in %v (the rate allows %d)", replies.Load(), msg>>10, span, most)
	if replies.Load() > most {
		t.Errorf("%d messages of %d KiB read from one address in %v; its rate allows %d", replies.Load(), msg>>10, span, most)
	}
	if paced := s.metrics.inPaced.Get(); paced <= 0 {
		t.Errorf("no pacing counted")
	}
}
