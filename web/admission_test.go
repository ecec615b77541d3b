package web

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/ptxplayground/ptxplay/sessions"
)

// exampleLoad is the load message of a gallery example.
func exampleLoad(t *testing.T, ts *httptest.Server, name string) map[string]any {
	t.Helper()
	_, body := get(t, ts.URL+"/api/examples/"+name)
	var ex struct {
		Source string          `json:"source"`
		Spec   json.RawMessage `json:"spec"`
	}
	if err := json.Unmarshal([]byte(body), &ex); err != nil {
		t.Fatal(err)
	}
	return map[string]any{"type": "load", "id": 1, "source": ex.Source, "spec": ex.Spec}
}

// loadAndStep loads msg on c (after its hello) and steps once.
func loadAndStep(t *testing.T, c *websocket.Conn, msg map[string]any) {
	t.Helper()
	wsUntil(t, c, "hello")
	wsSend(t, c, msg)
	wsUntil(t, c, "loaded")
	wsUntil(t, c, "state")
	wsSend(t, c, map[string]any{"type": "step", "granularity": "warp", "count": 1, "id": 2})
	if st, _ := wsUntil(t, c, "state"); st["step"] != 1.0 {
		t.Fatalf("step: %v", st["step"])
	}
}

// A class of 60 browsers behind one NAT address, with the default
// limits: every one connects at once, loads and steps.
func TestAdmissionClassBehindOneAddress(t *testing.T) {
	_, ts, mgr := newLimitServer(t, sessions.Limits{}, WSOptions{})
	load := exampleLoad(t, ts, "vector-add")
	conns := make([]*websocket.Conn, 60)
	for i := range conns {
		conns[i] = wsDial(t, ts)
	}
	var wg sync.WaitGroup
	errs := make(chan string, len(conns))
	for i, c := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			m := readJSON(c)
			if m["type"] != "hello" {
				errs <- fmt.Sprintf("tab %d: %v", i, m)
				return
			}
			b, _ := json.Marshal(load)
			c.WriteMessage(websocket.TextMessage, b)
			c.WriteMessage(websocket.TextMessage, []byte(`{"type":"step","granularity":"warp","count":1,"id":2}`))
			for {
				m := readJSON(c)
				if m == nil || m["type"] == "error" {
					errs <- fmt.Sprintf("tab %d: %v", i, m)
					return
				}
				if m["type"] == "state" && m["step"] == 1.0 {
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	if n := mgr.Len(); n != 60 {
		t.Fatalf("%d sessions live, want 60", n)
	}
}

// readJSON reads one message of c (nil when the connection ends or 20 s
// pass).
func readJSON(c *websocket.Conn) map[string]any {
	c.SetReadDeadline(time.Now().Add(20 * time.Second))
	_, b, err := c.ReadMessage()
	if err != nil {
		return nil
	}
	var m map[string]any
	if json.Unmarshal(b, &m) != nil {
		return nil
	}
	return m
}

// Eight addresses hold every place of a full server and keep stepping; a
// newcomer from a ninth address still gets a session: one of a hoarder's
// sessions, quiet for ReclaimQuiet, is reclaimed, and its client is told
// why before the close.
func TestAdmissionNewcomerGetsAPlace(t *testing.T) {
	_, ts, mgr := newLimitServer(t, sessions.Limits{MaxSessions: 64, ReclaimQuiet: 300 * time.Millisecond},
		WSOptions{MaxSessionsPerIP: 8, TrustedProxyHeader: "X-Forwarded-For"})
	load := exampleLoad(t, ts, "vector-add")
	var hoarders []*websocket.Conn
	for a := range 8 {
		for range 8 {
			c := dialHeader(t, ts, http.Header{"X-Forwarded-For": {fmt.Sprintf("198.51.100.%d", a+1)}})
			loadAndStep(t, c, load)
			hoarders = append(hoarders, c)
		}
	}
	if n := mgr.Len(); n != 64 {
		t.Fatalf("%d sessions", n)
	}
	time.Sleep(400 * time.Millisecond)
	// All but one of the hoarders step again: the one left is quiet the
	// longest.
	quiet := hoarders[13]
	for _, c := range hoarders {
		if c != quiet {
			wsSend(t, c, map[string]any{"type": "step", "granularity": "warp", "count": 1, "id": 3})
			wsUntil(t, c, "state")
		}
	}
	nc := dialHeader(t, ts, http.Header{"X-Forwarded-For": {"203.0.113.50"}})
	loadAndStep(t, nc, load)
	m := wsRead(t, quiet)
	if m["type"] != "error" || m["code"] != "reclaimed" || !strings.Contains(m["message"].(string), "reconnect") {
		t.Fatalf("the quiet hoarder got %v, want error reclaimed", m)
	}
	quiet.SetReadDeadline(time.Now().Add(5 * time.Second))
	_, _, err := quiet.ReadMessage()
	var ce *websocket.CloseError
	if !errors.As(err, &ce) || ce.Code != websocket.ClosePolicyViolation || ce.Text != "session reclaimed for a new client" {
		t.Fatalf("close: %v", err)
	}
	_, body := get(t, ts.URL+"/metrics")
	if !strings.Contains(body, "ptxplay_sessions_reclaimed_total 1") {
		t.Errorf("metrics: no reclaim counted")
	}
}

// IPv6 clients count by their /64, for the sessions per address as for
// every per-address limit: 20 sockets from one /64 get 8 sessions.
func TestAdmissionIPv6CountsBySlash64(t *testing.T) {
	_, ts, mgr := newLimitServer(t, sessions.Limits{}, WSOptions{MaxSessionsPerIP: 8, TrustedProxyHeader: "X-Forwarded-For"})
	open, refused := 0, 0
	for i := range 20 {
		c := dialHeader(t, ts, http.Header{"X-Forwarded-For": {fmt.Sprintf("2001:db8:1:2:%x::%x", i+1, i*7+1)}})
		if m := wsRead(t, c); m["type"] == "hello" {
			open++
		} else if m["code"] == "limit" {
			refused++
		} else {
			t.Fatalf("socket %d: %v", i, m)
		}
	}
	if open != 8 || refused != 12 {
		t.Fatalf("one /64: %d open, %d refused; want 8 and 12", open, refused)
	}
	// Another /64 has its own allowance.
	c := dialHeader(t, ts, http.Header{"X-Forwarded-For": {"2001:db8:1:3::1"}})
	wsUntil(t, c, "hello")
	if n := mgr.Len(); n != 9 {
		t.Fatalf("%d sessions", n)
	}
}

func TestClientKey(t *testing.T) {
	for _, c := range []struct{ trusted, remote, header, want string }{
		{"", "192.0.2.1:5000", "", "192.0.2.1"},
		{"", "[2001:db8:1:2:3:4:5:6]:443", "", "2001:db8:1:2::/64"},
		{"", "[::ffff:192.0.2.7]:443", "", "192.0.2.7"},
		// The header counts only when trusted, and only an address in it.
		{"", "192.0.2.1:5000", "198.51.100.1", "192.0.2.1"},
		{"X-Forwarded-For", "192.0.2.1:5000", "198.51.100.1, 2001:db8:9:9:1::1", "2001:db8:9:9::/64"},
		{"X-Forwarded-For", "192.0.2.1:5000", "not-an-address", "192.0.2.1"},
		{"X-Real-IP", "192.0.2.1:5000", "", "192.0.2.1"},
	} {
		s := &Server{ws: WSOptions{TrustedProxyHeader: c.trusted}}
		r := httptest.NewRequest("GET", "/", nil)
		r.RemoteAddr = c.remote
		if c.header != "" {
			h := c.trusted
			if h == "" {
				h = "X-Forwarded-For"
			}
			r.Header.Set(h, c.header)
		}
		if got := s.clientKey(r); got != c.want {
			t.Errorf("%+v: key %q, want %q", c, got, c.want)
		}
	}
}
