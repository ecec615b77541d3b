package web

import (
	"compress/gzip"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/ptxplayground/ptxplay/engine/isa"
	"github.com/ptxplayground/ptxplay/static"
)

// echoStarter starts echoSessions: a hello on start, then every message
// echoed back inside {"type":"echo","raw":…}; invalid JSON gets an error;
// {"type":"quit"} ends the session.
type echoStarter struct {
	mu     sync.Mutex
	n      int
	max    int // refuse sessions beyond max (0: no limit)
	closed int
}

type frameErr struct{ code, msg string }

func (e frameErr) Error() string { return e.msg }
func (e frameErr) Frame() []byte { return errorMessage(e.code, e.msg, -1) }

func (st *echoStarter) StartSession(ctx context.Context, _ string) (Session, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.max > 0 && st.n >= st.max {
		return nil, frameErr{"busy", "too many sessions"}
	}
	st.n++
	s := &echoSession{ready: make(chan struct{}, 1), st: st}
	s.push([]byte(`{"type":"hello","v":1}`))
	return s, nil
}

type echoSession struct {
	st     *echoStarter
	ready  chan struct{}
	mu     sync.Mutex
	q      [][]byte
	closed bool
}

func (s *echoSession) push(msg []byte) {
	s.q = append(s.q, msg)
	s.notify()
}

func (s *echoSession) notify() {
	select {
	case s.ready <- struct{}{}:
	default:
	}
}

func (s *echoSession) Submit(raw []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return
	}
	var v map[string]any
	if err := json.Unmarshal(raw, &v); err != nil {
		s.push(errorMessage("bad-request", "invalid JSON", -1))
		return
	}
	if v["type"] == "quit" {
		s.closeLocked()
		return
	}
	b, _ := json.Marshal(map[string]any{"type": "echo", "raw": v})
	s.push(b)
}

func (s *echoSession) Ready() <-chan struct{} { return s.ready }

func (s *echoSession) Take() ([][]byte, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	q := s.q
	s.q = nil
	if s.closed && len(q) > 0 {
		s.notify() // come back for the end
	}
	return q, !(s.closed && len(q) == 0)
}

func (s *echoSession) Close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closeLocked()
}

func (s *echoSession) closeLocked() {
	if s.closed {
		return
	}
	s.closed = true
	s.notify()
	s.st.mu.Lock()
	s.st.n--
	s.st.closed++
	s.st.mu.Unlock()
}

func newTestServer(t *testing.T, st SessionStarter, ws WSOptions) (*Server, *httptest.Server) {
	t.Helper()
	if st == nil {
		st = &echoStarter{}
	}
	s, err := New(Options{Sessions: st, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), WebSocket: ws})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		s.CloseWebsockets(ctx)
		ts.Close()
	})
	return s, ts
}

func get(t *testing.T, url string, hdr ...string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	tr := &http.Transport{DisableCompression: true}
	resp, err := (&http.Client{Transport: tr, CheckRedirect: func(*http.Request, []*http.Request) error {
		return http.ErrUseLastResponse
	}}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var r io.Reader = resp.Body
	if resp.Header.Get("Content-Encoding") == "gzip" {
		zr, err := gzip.NewReader(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		r = zr
	}
	b, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return resp, string(b)
}

func TestRoutes(t *testing.T) {
	_, ts := newTestServer(t, nil, WSOptions{})
	cases := []struct {
		path, ctype string
		status      int
		body        string // a substring
	}{
		{"/", "text/html; charset=utf-8", 200, "<title>PTX Playground</title>"},
		{"/?example=histogram", "text/html; charset=utf-8", 200, "Atomic histogram"},
		{"/?example=nope", "text/html; charset=utf-8", 404, "There is no example named &#34;nope&#34;"},
		{"/gallery", "text/html; charset=utf-8", 200, `href="/?example=warp-shuffle"`},
		{"/embed/divergence", "text/html; charset=utf-8", 200, "Branch divergence"},
		{"/embed", "text/html; charset=utf-8", 200, "Vector addition"},
		{"/embed/nope", "text/html; charset=utf-8", 404, "nope"},
		{"/api/examples", "application/json; charset=utf-8", 200, `"name":"vector-add"`},
		{"/api/examples/transpose", "application/json; charset=utf-8", 200, `"entry":"transpose_conflicts"`},
		{"/api/examples/nope", "application/json; charset=utf-8", 404, `"error"`},
		{"/api/isa", "application/json; charset=utf-8", 200, `"name":"shfl"`},
		{"/api/fragments", "application/json; charset=utf-8", 200, `"key":"mma.m16n8k16.row.col.f32.f16.f16.f32"`},
		{"/healthz", "text/plain; charset=utf-8", 200, "ok"},
		{"/metrics", "text/plain; version=0.0.4; charset=utf-8", 200, "ptxplay_sessions_active"},
		{"/no/such/page", "text/html; charset=utf-8", 404, "This page does not exist"},
		{"/static/site.css", "text/css; charset=utf-8", 200, ".gallery"},
		{"/static/nope.js", "text/html; charset=utf-8", 404, "This page does not exist"},
	}
	for _, c := range cases {
		resp, body := get(t, ts.URL+c.path)
		if resp.StatusCode != c.status {
			t.Errorf("%s: status %d, want %d", c.path, resp.StatusCode, c.status)
		}
		if ct := resp.Header.Get("Content-Type"); ct != c.ctype {
			t.Errorf("%s: Content-Type %q, want %q", c.path, ct, c.ctype)
		}
		if !strings.Contains(body, c.body) {
			t.Errorf("%s: body lacks %q:\n%.600s", c.path, c.body, body)
		}
		if resp.Header.Get("X-Request-Id") == "" {
			t.Errorf("%s: no X-Request-Id", c.path)
		}
	}
	// HEAD works wherever GET does; other methods do not.
	resp, err := http.Head(ts.URL + "/gallery")
	if err != nil || resp.StatusCode != 200 {
		t.Errorf("HEAD /gallery: %v %v", resp.StatusCode, err)
	}
	resp, err = http.Post(ts.URL+"/api/isa", "application/json", strings.NewReader("{}"))
	if err != nil || resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST /api/isa: %v %v", resp.StatusCode, err)
	}
}

func TestSecurityHeaders(t *testing.T) {
	_, ts := newTestServer(t, nil, WSOptions{})
	host := strings.TrimPrefix(ts.URL, "http://")
	for _, path := range []string{"/", "/gallery", "/api/isa", "/nope", "/static/site.css", "/embed/vector-add", "/embed/nope"} {
		resp, body := get(t, ts.URL+path)
		h := resp.Header
		csp := h.Get("Content-Security-Policy")
		for _, want := range []string{"default-src 'self'", "script-src 'self';", "img-src 'self' data:",
			"connect-src 'self' ws://" + host + " wss://" + host, "object-src 'none'", "base-uri 'none'"} {
			if !strings.Contains(csp, want) {
				t.Errorf("%s: CSP %q lacks %q", path, csp, want)
			}
		}
		m := regexp.MustCompile(`style-src 'self' 'nonce-([A-Za-z0-9+/]{22})'`).FindStringSubmatch(csp)
		if m == nil {
			t.Errorf("%s: CSP %q has no style nonce", path, csp)
		} else if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") && !strings.Contains(body, `<meta name="csp-nonce" content="`+m[1]+`">`) {
			t.Errorf("%s: the page does not publish the nonce %s", path, m[1])
		}
		if strings.Contains(csp, "script-src 'self' 'unsafe") || strings.Contains(csp, "style-src 'self' 'unsafe") {
			t.Errorf("%s: CSP allows unsafe inline scripts or style elements: %s", path, csp)
		}
		embed := strings.HasPrefix(path, "/embed")
		if got := strings.Contains(csp, "frame-ancestors 'none'"); got == embed {
			t.Errorf("%s: frame-ancestors 'none' = %v, want %v", path, got, !embed)
		}
		if got := h.Get("X-Frame-Options"); (got == "DENY") == embed {
			t.Errorf("%s: X-Frame-Options %q", path, got)
		}
		if h.Get("X-Content-Type-Options") != "nosniff" || h.Get("Referrer-Policy") == "" {
			t.Errorf("%s: missing nosniff or Referrer-Policy", path)
		}
	}
	// Two requests get different nonces.
	r1, _ := get(t, ts.URL+"/")
	r2, _ := get(t, ts.URL+"/")
	if r1.Header.Get("Content-Security-Policy") == r2.Header.Get("Content-Security-Policy") {
		t.Error("the nonce does not change between requests")
	}
}

func TestStaticCaching(t *testing.T) {
	_, ts := newTestServer(t, nil, WSOptions{})
	p := static.Path("site.css")
	if !regexp.MustCompile(`^/static/site\.[0-9a-f]{8}\.css$`).MatchString(p) {
		t.Fatalf("static.Path(site.css) = %q", p)
	}
	resp, body := get(t, ts.URL+p)
	if resp.StatusCode != 200 || resp.Header.Get("Cache-Control") != "public, max-age=31536000, immutable" {
		t.Errorf("%s: %d, Cache-Control %q", p, resp.StatusCode, resp.Header.Get("Cache-Control"))
	}
	if !strings.Contains(body, ".gallery") {
		t.Errorf("%s: wrong body", p)
	}
	etag := resp.Header.Get("ETag")
	// The plain name revalidates.
	resp, _ = get(t, ts.URL+"/static/site.css")
	if resp.Header.Get("Cache-Control") != "no-cache" || resp.Header.Get("ETag") != etag {
		t.Errorf("plain name: Cache-Control %q, ETag %q (want %q)", resp.Header.Get("Cache-Control"), resp.Header.Get("ETag"), etag)
	}
	resp, _ = get(t, ts.URL+"/static/site.css", "If-None-Match", etag)
	if resp.StatusCode != http.StatusNotModified {
		t.Errorf("If-None-Match: status %d", resp.StatusCode)
	}
	// A stale hash is not found; Go files are not served.
	for _, bad := range []string{"/static/site.00000000.css", "/static/embed.go", "/static/"} {
		if resp, _ := get(t, ts.URL+bad); resp.StatusCode != 404 {
			t.Errorf("%s: status %d", bad, resp.StatusCode)
		}
	}
	// The page links the hashed names; compression works on text.
	_, page := get(t, ts.URL+"/gallery")
	if !strings.Contains(page, `href="`+p+`"`) {
		t.Errorf("the gallery does not link %s", p)
	}
	resp, body = get(t, ts.URL+p, "Accept-Encoding", "gzip")
	if resp.Header.Get("Content-Encoding") != "gzip" || !strings.Contains(body, ".gallery") {
		t.Errorf("no gzip for css: %q", resp.Header.Get("Content-Encoding"))
	}
	for _, name := range static.Names() {
		if strings.HasSuffix(name, ".go") {
			t.Errorf("static.FS holds %s", name)
		}
	}
}

func TestAPIExamples(t *testing.T) {
	_, ts := newTestServer(t, nil, WSOptions{})
	_, body := get(t, ts.URL+"/api/examples")
	var list []ExampleInfo
	if err := json.Unmarshal([]byte(body), &list); err != nil {
		t.Fatal(err)
	}
	if len(list) < 6 {
		t.Fatalf("%d examples", len(list))
	}
	for _, info := range list {
		resp, body := get(t, ts.URL+"/api/examples/"+info.Name)
		if resp.StatusCode != 200 {
			t.Fatalf("%s: %d", info.Name, resp.StatusCode)
		}
		var e struct {
			Name, Title, Description, Source string
			Spec                             map[string]json.RawMessage
		}
		if err := json.Unmarshal([]byte(body), &e); err != nil {
			t.Fatal(err)
		}
		if e.Name != info.Name || e.Title != info.Title || !strings.Contains(e.Source, ".entry") {
			t.Errorf("%s: %+v", info.Name, e)
		}
		if _, ok := e.Spec["ptx"]; ok {
			t.Errorf("%s: the wire spec keeps \"ptx\"", info.Name)
		}
		if _, ok := e.Spec["buffers"]; !ok {
			t.Errorf("%s: the spec has no buffers", info.Name)
		}
		etag := resp.Header.Get("ETag")
		if r, _ := get(t, ts.URL+"/api/examples/"+info.Name, "If-None-Match", etag); r.StatusCode != 304 {
			t.Errorf("%s: revalidation gave %d", info.Name, r.StatusCode)
		}
	}
}

func TestAPIISA(t *testing.T) {
	_, ts := newTestServer(t, nil, WSOptions{})
	_, body := get(t, ts.URL+"/api/isa")
	var d isaDoc
	if err := json.Unmarshal([]byte(body), &d); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, in := range isa.Info {
		if in.Name != "" {
			n++
		}
	}
	if len(d.Opcodes) != n {
		t.Errorf("%d opcodes, want %d", len(d.Opcodes), n)
	}
	found := map[string]isaOpcode{}
	for _, o := range d.Opcodes {
		found[o.Name] = o
		if o.Family == "" || o.Syntax == "" || o.Doc == "" {
			t.Errorf("opcode %+v is incomplete", o)
		}
	}
	if o := found["add"]; o.Status != "supported" || o.Family != "integer" {
		t.Errorf("add: %+v", o)
	}
	sp := map[string]isaSpecial{}
	for _, s := range d.Specials {
		sp[s.Name] = s
	}
	if s := sp["%tid.x"]; s.Bits != 32 || s.Doc == "" {
		t.Errorf("%%tid.x: %+v", s)
	}
	if !sp["%clock64"].Dynamic {
		t.Error("clock64 is not dynamic")
	}
}

// wsDial connects to the test server's websocket.
func wsDial(t *testing.T, ts *httptest.Server) *websocket.Conn {
	t.Helper()
	c, resp, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(ts.URL, "http")+"/ws", nil)
	if err != nil {
		t.Fatalf("dial: %v (%v)", err, resp)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func wsRead(t *testing.T, c *websocket.Conn) map[string]any {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	_, b, err := c.ReadMessage()
	if err != nil {
		t.Fatalf("read: %v", err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("server sent invalid JSON %q: %v", b, err)
	}
	return m
}

func TestWebsocketTransport(t *testing.T) {
	st := &echoStarter{}
	_, ts := newTestServer(t, st, WSOptions{MaxMessageBytes: 1000})
	c := wsDial(t, ts)
	if m := wsRead(t, c); m["type"] != "hello" {
		t.Fatalf("first message %v", m)
	}
	c.WriteMessage(websocket.TextMessage, []byte(`{"type":"ping","id":1}`))
	if m := wsRead(t, c); m["type"] != "echo" {
		t.Fatalf("echo: %v", m)
	}
	// Too large: an error with the trailing id, and the connection stays.
	big := `{"type":"load","source":"` + strings.Repeat("x", 5000) + `","id":42}`
	c.WriteMessage(websocket.TextMessage, []byte(big))
	if m := wsRead(t, c); m["type"] != "error" || m["code"] != "too-large" || m["id"] != 42.0 {
		t.Fatalf("too large: %v", m)
	}
	c.WriteMessage(websocket.BinaryMessage, []byte{1, 2, 3})
	if m := wsRead(t, c); m["type"] != "error" || m["code"] != "bad-request" {
		t.Fatalf("binary: %v", m)
	}
	c.WriteMessage(websocket.TextMessage, []byte(`{"type":`))
	if m := wsRead(t, c); m["type"] != "error" || m["code"] != "bad-request" {
		t.Fatalf("malformed: %v", m)
	}
	c.WriteMessage(websocket.TextMessage, []byte(`{"type":"ping","id":2}`))
	if m := wsRead(t, c); m["type"] != "echo" {
		t.Fatalf("after errors: %v", m)
	}
	// The session ending closes the socket normally.
	c.WriteMessage(websocket.TextMessage, []byte(`{"type":"quit"}`))
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	_, _, err := c.ReadMessage()
	if !websocket.IsCloseError(err, websocket.CloseNormalClosure) {
		t.Fatalf("after quit: %v", err)
	}
}

func TestWebsocketRefused(t *testing.T) {
	st := &echoStarter{max: 1}
	_, ts := newTestServer(t, st, WSOptions{})
	c1 := wsDial(t, ts)
	wsRead(t, c1)
	c2 := wsDial(t, ts)
	if m := wsRead(t, c2); m["type"] != "error" || m["code"] != "busy" {
		t.Fatalf("second session: %v", m)
	}
	c2.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, _, err := c2.ReadMessage(); !websocket.IsCloseError(err, websocket.CloseTryAgainLater) {
		t.Fatalf("second session: %v", err)
	}
}

func TestWebsocketOrigin(t *testing.T) {
	_, ts := newTestServer(t, nil, WSOptions{})
	h := http.Header{"Origin": {"https://evil.example"}}
	_, resp, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(ts.URL, "http")+"/ws", h)
	if err == nil || resp == nil || resp.StatusCode != http.StatusForbidden {
		t.Fatalf("cross-origin websocket: err %v, resp %v", err, resp)
	}
}

func TestWebsocketPing(t *testing.T) {
	_, ts := newTestServer(t, nil, WSOptions{PongWait: time.Second, PingPeriod: 100 * time.Millisecond})
	c := wsDial(t, ts)
	pings := make(chan struct{}, 10)
	c.SetPingHandler(func(data string) error {
		pings <- struct{}{}
		return c.WriteControl(websocket.PongMessage, []byte(data), time.Now().Add(time.Second))
	})
	go func() {
		for {
			if _, _, err := c.ReadMessage(); err != nil {
				return
			}
		}
	}()
	// Answering pings keeps the connection open past PongWait.
	for i := 0; i < 15; i++ {
		select {
		case <-pings:
		case <-time.After(2 * time.Second):
			t.Fatalf("no ping %d", i)
		}
	}
	if err := c.WriteMessage(websocket.TextMessage, []byte(`{"type":"ping"}`)); err != nil {
		t.Fatalf("connection dropped although pongs were sent: %v", err)
	}
}

func TestGracefulShutdown(t *testing.T) {
	st := &echoStarter{}
	s, err := New(Options{Sessions: st, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewUnstartedServer(s)
	ts.Config.RegisterOnShutdown(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		s.CloseWebsockets(ctx)
	})
	ts.Start()
	defer ts.Close()
	c := wsDial(t, ts)
	wsRead(t, c)

	done := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		done <- ts.Config.Shutdown(ctx)
	}()
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	_, _, err = c.ReadMessage()
	if !websocket.IsCloseError(err, websocket.CloseGoingAway) {
		t.Fatalf("open websocket at shutdown: %v", err)
	}
	if err := <-done; err != nil {
		t.Fatalf("shutdown: %v", err)
	}
	// Wait for the handler to finish: the session is closed.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := s.CloseWebsockets(ctx); err != nil {
		t.Fatal(err)
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.closed != 1 || st.n != 0 {
		t.Errorf("sessions closed %d, open %d", st.closed, st.n)
	}
	// New websockets are refused.
	_, resp, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(ts.URL, "http")+"/ws", nil)
	if err == nil {
		t.Error("a websocket opened after shutdown")
	} else if resp != nil && resp.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("after shutdown: %d", resp.StatusCode)
	}

}

func TestRecoverPanics(t *testing.T) {
	var logs strings.Builder
	s, err := New(Options{Sessions: &echoStarter{}, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	h := s.recoverPanics(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { panic("boom") }))
	rr := httptest.NewRecorder()
	h.ServeHTTP(rr, httptest.NewRequest("GET", "/x", nil))
	if rr.Code != 500 {
		t.Errorf("status %d", rr.Code)
	}
	if !strings.Contains(logs.String(), "panic=boom") || !strings.Contains(logs.String(), "stack=") {
		t.Errorf("log: %s", logs.String())
	}
}

func TestFavicon(t *testing.T) {
	_, ts := newTestServer(t, nil, WSOptions{})
	resp, _ := get(t, ts.URL+"/favicon.ico")
	if resp.StatusCode != http.StatusMovedPermanently || resp.Header.Get("Location") != static.Path("favicon.svg") {
		t.Errorf("favicon: %d %q", resp.StatusCode, resp.Header.Get("Location"))
	}
}
