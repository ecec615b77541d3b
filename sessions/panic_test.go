package sessions

import (
	"bytes"
	"log/slog"
	"strings"
	"sync"
	"testing"
)

// syncBuffer is a bytes.Buffer safe for a logger and a test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// A panic of a session's goroutine ends the session with an `internal`
// error, is logged with its stack and the command it handled, and is
// counted; the other sessions go on.
func TestSessionPanicLoggedAndCounted(t *testing.T) {
	fm := &fakeMetrics{faults: map[string]int{}}
	m := NewManager(Limits{}, fm)
	t.Cleanup(m.Close)
	var logs syncBuffer
	m.SetLogger(slog.New(slog.NewTextHandler(&logs, nil)))
	other := newClient(t, m)
	other.load(divergentPTX, divergentSpec)
	c := newClient(t, m)
	c.load(divergentPTX, divergentSpec)
	c.s.in <- command{fn: func() { panicInSession() }}
	if h := c.expectError("internal"); !strings.Contains(h.Message, "the session failed: boom in the session") {
		t.Fatalf("error %+v", h)
	}
	if typ, _ := c.next(); typ != "EOF" {
		t.Fatalf("after the panic: %s", typ)
	}
	fm.mu.Lock()
	panics := fm.panics
	fm.mu.Unlock()
	if panics != 1 {
		t.Errorf("%d panics counted, want 1", panics)
	}
	text := logs.String()
	for _, want := range []string{"level=ERROR", `msg="session panicked"`, "session=2", "command=internal", `panic="boom in the session"`, "sessions.panicInSession", "panic_test.go"} {
		if !strings.Contains(text, want) {
			t.Errorf("log lacks %q:\n%s", want, text)
		}
	}
	if st := other.step("warp", 1); st.Status != "paused" {
		t.Errorf("the other session: %+v", st)
	}
	if m.Len() != 1 {
		t.Errorf("%d sessions left, want 1", m.Len())
	}
}

func panicInSession() { panic("boom in the session") }
