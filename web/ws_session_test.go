package web

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/ptxplayground/ptxplay/sessions"
)

// newSessionServer serves the web package with real sessions.
func newSessionServer(t *testing.T, lim sessions.Limits) (*Server, *httptest.Server, *sessions.Manager) {
	t.Helper()
	met := NewMetrics()
	mgr := sessions.NewManager(lim, met)
	s, err := New(Options{Sessions: SessionsFrom(mgr.NewClientSession), Metrics: met,
		Logger:    slog.New(slog.NewTextHandler(io.Discard, nil)),
		WebSocket: WSOptions{MaxMessageBytes: int64(mgr.Limits().MaxMessageBytes)}})
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

// wsUntil reads messages until one of type typ arrives (failing on an
// unexpected error message) and returns it with the types seen before.
func wsUntil(t *testing.T, c *websocket.Conn, typ string) (map[string]any, []string) {
	t.Helper()
	var seen []string
	for i := 0; i < 200; i++ {
		m := wsRead(t, c)
		mt, _ := m["type"].(string)
		if mt == typ {
			return m, seen
		}
		if mt == "error" {
			t.Fatalf("waiting for %s: error %v", typ, m)
		}
		seen = append(seen, mt)
	}
	t.Fatalf("no %s message", typ)
	return nil, nil
}

func wsSend(t *testing.T, c *websocket.Conn, v any) {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.WriteMessage(websocket.TextMessage, b); err != nil {
		t.Fatal(err)
	}
}

func TestWebsocketSessionRoundTrip(t *testing.T) {
	_, ts, mgr := newSessionServer(t, sessions.Limits{MaxSessions: 4, MaxSourceBytes: 64 << 10})
	c := wsDial(t, ts)

	hello := wsRead(t, c)
	if hello["type"] != "hello" || hello["v"] != float64(sessions.ProtocolVersion) {
		t.Fatalf("hello: %v", hello)
	}
	if lim, _ := hello["limits"].(map[string]any); lim == nil || lim["maxSourceBytes"] != float64(64<<10) {
		t.Errorf("hello limits: %v", hello["limits"])
	}

	// Load the vector-add example as the playground does: its source and
	// the spec from /api/examples/{name}.
	_, body := get(t, ts.URL+"/api/examples/vector-add")
	var ex struct {
		Source string          `json:"source"`
		Spec   json.RawMessage `json:"spec"`
	}
	if err := json.Unmarshal([]byte(body), &ex); err != nil {
		t.Fatal(err)
	}
	wsSend(t, c, map[string]any{"type": "load", "id": 1, "source": ex.Source, "spec": ex.Spec})
	diags, _ := wsUntil(t, c, "diagnostics")
	if items, _ := diags["items"].([]any); len(items) != 0 || diags["id"] != 1.0 {
		t.Fatalf("diagnostics: %v", diags)
	}
	loaded, _ := wsUntil(t, c, "loaded")
	if loaded["entry"] != "vector_add" || loaded["totalCTAs"] != 4.0 {
		t.Errorf("loaded: %v", loaded)
	}
	st, _ := wsUntil(t, c, "state")
	if st["step"] != 0.0 || st["full"] != true {
		t.Errorf("initial state: step %v full %v", st["step"], st["full"])
	}

	// Step one warp-instruction, then a malformed message and an unknown
	// command: errors, and the session carries on.
	wsSend(t, c, map[string]any{"type": "step", "id": 2, "granularity": "warp"})
	st, _ = wsUntil(t, c, "state")
	if st["step"] != 1.0 || st["id"] != 2.0 {
		t.Errorf("after step: step %v id %v", st["step"], st["id"])
	}
	c.WriteMessage(websocket.TextMessage, []byte(`{"type":"step","id":3,`))
	if m := wsRead(t, c); m["type"] != "error" || m["code"] != "bad-request" {
		t.Fatalf("malformed: %v", m)
	}
	wsSend(t, c, map[string]any{"type": "step", "id": 4, "granularity": "sideways"})
	if m := wsRead(t, c); m["type"] != "error" || m["code"] != "bad-request" || m["id"] != 4.0 {
		t.Fatalf("bad granularity: %v", m)
	}
	// Too large for the session: answered without reading it into memory.
	big := `{"type":"load","source":"` + strings.Repeat(" ", mgr.Limits().MaxMessageBytes) + `","id":5}`
	c.WriteMessage(websocket.TextMessage, []byte(big))
	if m := wsRead(t, c); m["type"] != "error" || m["code"] != "too-large" || m["id"] != 5.0 {
		t.Fatalf("too large: %v", m)
	}
	wsSend(t, c, map[string]any{"type": "step", "id": 6, "granularity": "round", "count": 3})
	st, _ = wsUntil(t, c, "state")
	// Positions count warp-instructions: three rounds of the resident warps.
	if stats, _ := st["stats"].(map[string]any); st["id"] != 6.0 || st["step"] != stats["warpInstructions"] || st["step"].(float64) <= 1 {
		t.Errorf("step after errors: step %v id %v", st["step"], st["id"])
	}
	// Run to the end.
	wsSend(t, c, map[string]any{"type": "run", "id": 7})
	for i := 0; ; i++ {
		st, _ = wsUntil(t, c, "state")
		if st["running"] == false && st["id"] == 7.0 {
			break
		}
		if i > 1000 {
			t.Fatal("the run does not end")
		}
	}
	if st["status"] != "done" {
		t.Errorf("after run: status %v", st["status"])
	}

	// The metrics saw it all.
	_, text := get(t, ts.URL+"/metrics")
	metric := func(name string) float64 {
		m := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(name) + ` ([0-9.e+]+)$`).FindStringSubmatch(text)
		if m == nil {
			t.Errorf("metric %s missing from\n%s", name, text)
			return 0
		}
		v, _ := strconv.ParseFloat(m[1], 64)
		return v
	}
	if v := metric("ptxplay_sessions_active"); v != 1 {
		t.Errorf("sessions_active %v", v)
	}
	if v := metric("ptxplay_sessions_total"); v != 1 {
		t.Errorf("sessions_total %v", v)
	}
	if v := metric("ptxplay_steps_total"); v < 3 {
		t.Errorf("steps_total %v", v)
	}
	if v := metric("ptxplay_step_duration_seconds_count"); v < 2 {
		t.Errorf("step_duration_seconds_count %v", v)
	}
	if v := metric(`ptxplay_ws_messages_total{direction="in"}`); v < 7 {
		t.Errorf("messages in %v", v)
	}
	if v := metric(`ptxplay_ws_messages_total{direction="out"}`); v < 8 {
		t.Errorf("messages out %v", v)
	}
	if v := metric(`ptxplay_ws_errors_total{code="too-large"}`); v != 1 {
		t.Errorf("too-large errors %v", v)
	}
	if v := metric("ptxplay_ws_connections_active"); v != 1 {
		t.Errorf("ws_connections_active %v", v)
	}
	if !strings.Contains(text, "go_goroutines") {
		t.Error("no process metrics")
	}
}

func TestWebsocketSessionFaultMetric(t *testing.T) {
	_, ts, _ := newSessionServer(t, sessions.Limits{})
	c := wsDial(t, ts)
	wsUntil(t, c, "hello")
	src := `.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 p) {
	.reg .b64 %rd<2>;
	mov.u64 %rd1, 0;
	st.global.u32 [%rd1], 1;
	ret;
}`
	spec := map[string]any{"grid": []int{1}, "block": []int{32}, "params": []any{map[string]any{"u64": 0}}}
	wsSend(t, c, map[string]any{"type": "load", "id": 1, "source": src, "spec": spec})
	wsUntil(t, c, "loaded")
	wsUntil(t, c, "state")
	wsSend(t, c, map[string]any{"type": "run", "id": 2})
	var st map[string]any
	for {
		st, _ = wsUntil(t, c, "state")
		if st["running"] == false && st["id"] == 2.0 {
			break
		}
	}
	if st["status"] != "fault" {
		b, _ := json.Marshal(st)
		t.Fatalf("status %v: %s", st["status"], b)
	}
	_, text := get(t, ts.URL+"/metrics")
	if !regexp.MustCompile(`(?m)^ptxplay_faults_total\{kind="[a-z-]+"\} 1$`).MatchString(text) {
		t.Errorf("no fault counted:\n%s", text)
	}
}

func TestWebsocketSessionBusy(t *testing.T) {
	_, ts, _ := newSessionServer(t, sessions.Limits{MaxSessions: 1})
	c1 := wsDial(t, ts)
	wsUntil(t, c1, "hello")
	c2 := wsDial(t, ts)
	if m := wsRead(t, c2); m["type"] != "error" || m["code"] != "busy" {
		t.Fatalf("second session: %v", m)
	}
	_, text := get(t, ts.URL+"/metrics")
	if !strings.Contains(text, "ptxplay_sessions_rejected_total 1") {
		t.Error("rejection not counted")
	}
}

func TestGracefulShutdownWithSession(t *testing.T) {
	s, ts, mgr := newSessionServer(t, sessions.Limits{})
	c := wsDial(t, ts)
	wsUntil(t, c, "hello")
	if mgr.Len() != 1 {
		t.Fatalf("%d sessions", mgr.Len())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	errc := make(chan error, 1)
	go func() { errc <- s.CloseWebsockets(ctx) }()
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	for {
		if _, _, err := c.ReadMessage(); err != nil {
			if !websocket.IsCloseError(err, websocket.CloseGoingAway) {
				t.Fatalf("at shutdown: %v", err)
			}
			break
		}
	}
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	if mgr.Len() != 0 {
		t.Errorf("%d sessions left after shutdown", mgr.Len())
	}
}

// Session panics are exposed on /metrics.
func TestSessionPanicMetric(t *testing.T) {
	m := NewMetrics()
	var b strings.Builder
	m.WritePrometheus(&b)
	if !strings.Contains(b.String(), "ptxplay_session_panics_total 0\n") {
		t.Fatalf("no panic counter:\n%.2000s", b.String())
	}
	m.AddPanic()
	b.Reset()
	m.WritePrometheus(&b)
	if !strings.Contains(b.String(), "ptxplay_session_panics_total 1\n") {
		t.Fatalf("panic not counted:\n%.2000s", b.String())
	}
}
