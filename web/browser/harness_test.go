package browser

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/ptxplayground/ptxplay/engine/cuda"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/input"
	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/ptxplayground/ptxplay/sessions"
	"github.com/ptxplayground/ptxplay/sessions/share"
	"github.com/ptxplayground/ptxplay/web"
)

// The harness: one real server and one headless Chromium for the whole
// package, one fresh tab per test.

const (
	viewW, viewH = 1280, 800
	// waitTimeout bounds every wait for the page to reach a state.
	waitTimeout = 15 * time.Second
)

// suite is the server and the browser the tests share.
type suite struct {
	base      string          // http://127.0.0.1:port
	browser   context.Context // the chromedp context of the browser
	artifacts string          // where screenshots go
	srvLog    *logRecorder

	closeFns []func()
}

var (
	setupOnce sync.Once
	shared    *suite
	setupErr  error  // the setup failed: tests fail
	skipWhy   string // no browser here: tests skip (outside CI)
)

func TestMain(m *testing.M) {
	code := m.Run()
	if shared != nil {
		shared.close()
	}
	os.Exit(code)
}

// need returns the shared suite, starting it on first use. Without a
// Chromium the test skips, or fails when CI=true.
func need(t *testing.T) *suite {
	t.Helper()
	setupOnce.Do(func() { shared, setupErr = setup() })
	if skipWhy != "" {
		if inCI() {
			t.Fatalf("CI=true and the browser tests cannot run: %s", skipWhy)
		}
		t.Skipf("skipping the browser tests: %s", skipWhy)
	}
	if setupErr != nil {
		t.Fatalf("browser test setup: %v", setupErr)
	}
	return shared
}

// keepScreenshots reports whether the tests save their screenshots: on a
// developer's machine, to be looked at (artifacts/browser), and in CI only
// with PTXPLAY_SCREENSHOTS=1 (capturing and encoding them is a tenth of the
// package's time there, and nobody looks); a failed test's last screen is
// always saved.
func keepScreenshots() bool {
	if v := os.Getenv("PTXPLAY_SCREENSHOTS"); v != "" {
		return v != "0"
	}
	return !inCI()
}

func inCI() bool {
	v := strings.ToLower(strings.TrimSpace(os.Getenv("CI")))
	return v != "" && v != "0" && v != "false"
}

// findChromium returns the Chromium to drive: $PTXPLAY_CHROMIUM, else
// Debian's chromium (or another Chrome) on the PATH.
func findChromium() (string, error) {
	if p := os.Getenv("PTXPLAY_CHROMIUM"); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("PTXPLAY_CHROMIUM=%s: %v", p, err)
		}
		return p, nil
	}
	if st, err := os.Stat("/usr/bin/chromium"); err == nil && !st.IsDir() {
		return "/usr/bin/chromium", nil
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome-stable", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", errors.New("no Chromium found (install Debian's chromium: apt-get install -y chromium; or set PTXPLAY_CHROMIUM to a Chrome binary)")
}

func setup() (*suite, error) {
	path, err := findChromium()
	if err != nil {
		skipWhy = err.Error()
		return nil, nil
	}
	s := &suite{srvLog: &logRecorder{}}
	root, err := repoRoot()
	if err != nil {
		return nil, err
	}
	s.artifacts = filepath.Join(root, "artifacts", "browser")
	if err := os.MkdirAll(s.artifacts, 0o755); err != nil {
		return nil, err
	}
	if err := s.startServer(); err != nil {
		s.close()
		return nil, err
	}
	if err := s.startBrowser(path); err != nil {
		s.close()
		return nil, err
	}
	return s, nil
}

func (s *suite) close() {
	for i := len(s.closeFns) - 1; i >= 0; i-- {
		s.closeFns[i]()
	}
	s.closeFns = nil
}

// repoRoot is the nearest folder at or above the test's directory that
// holds go.mod.
func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d, nil
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("no go.mod at or above %s", dir)
		}
	}
}

// startServer serves the playground on a loopback port, wired as
// cmd/ptxplay/serve.go wires it (default limits).
func (s *suite) startServer() error {
	base, stop, err := s.serve("127.0.0.1:0", sessions.Limits{})
	if err != nil {
		return err
	}
	s.base = base
	s.closeFns = append(s.closeFns, stop)
	return nil
}

// serve starts a playground server on addr with the given session limits;
// stop shuts it down as the binary does (websockets closed with 1001).
func (s *suite) serve(addr string, limits sessions.Limits) (base string, stop func(), err error) {
	metrics := web.NewMetrics()
	mgr := sessions.NewManager(limits, metrics)
	// CUDA compiles where clang-19 is installed (hello.cuda says so where not).
	mgr.SetCompiler(cuda.NewCompiler(cuda.Config{Concurrency: 2}))
	lim := mgr.Limits()
	log := slog.New(s.srvLog)
	dir, err := os.MkdirTemp("", "ptxplay-shares-")
	if err != nil {
		mgr.Close()
		return "", nil, err
	}
	store, err := share.Open(context.Background(), "sqlite:"+filepath.Join(dir, "shares.db"), share.Options{})
	if err != nil {
		mgr.Close()
		os.RemoveAll(dir)
		return "", nil, err
	}
	srv, err := web.New(web.Options{
		Sessions:  web.SessionsFrom(mgr.NewClientSession),
		Metrics:   metrics,
		Logger:    log,
		WebSocket: web.WSOptions{MaxMessageBytes: int64(lim.MaxMessageBytes)},
		Share:     web.ShareOptions{Store: store, PerMinute: 600, Burst: 100},
	})
	if err != nil {
		mgr.Close()
		store.Close()
		os.RemoveAll(dir)
		return "", nil, err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		mgr.Close()
		return "", nil, err
	}
	hs := &http.Server{
		Handler:           srv,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       time.Minute,
		WriteTimeout:      time.Minute,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	go hs.Serve(ln)
	stop = func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.CloseWebsockets(ctx)
		hs.Shutdown(ctx)
		mgr.Close()
		store.Close()
		os.RemoveAll(dir)
	}
	return "http://" + ln.Addr().String(), stop, nil
}

// startBrowser starts headless Chromium with a fresh profile.
func (s *suite) startBrowser(path string) error {
	profile, err := os.MkdirTemp("", "ptxplay-chromium-")
	if err != nil {
		return err
	}
	s.closeFns = append(s.closeFns, func() { os.RemoveAll(profile) })
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(path),
		chromedp.Flag("headless", "new"),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true),
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("mute-audio", true),
		chromedp.UserDataDir(profile),
		chromedp.WindowSize(viewW, viewH),
	}
	actx, acancel := chromedp.NewExecAllocator(context.Background(), opts...)
	bctx, bcancel := chromedp.NewContext(actx)
	s.closeFns = append(s.closeFns, acancel, bcancel)
	// Start the browser (its first tab stays open, blank). The first Do
	// must get the context itself: the browser lives as long as it.
	timer := time.AfterFunc(30*time.Second, bcancel)
	err = chromedp.Do(bctx)
	if !timer.Stop() {
		err = fmt.Errorf("the browser did not start in 30s (%v)", err)
	}
	if err != nil {
		return fmt.Errorf("starting %s: %w", path, err)
	}
	s.browser = bctx
	return nil
}

// logRecorder is the server's slog handler: it keeps warnings and errors.
type logRecorder struct {
	mu   sync.Mutex
	recs []string
}

func (h *logRecorder) Enabled(_ context.Context, l slog.Level) bool { return l >= slog.LevelWarn }
func (h *logRecorder) Handle(_ context.Context, r slog.Record) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s", r.Level, r.Message)
	r.Attrs(func(a slog.Attr) bool {
		fmt.Fprintf(&b, " %s=%v", a.Key, a.Value)
		return true
	})
	h.mu.Lock()
	h.recs = append(h.recs, b.String())
	h.mu.Unlock()
	return nil
}
func (h *logRecorder) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h *logRecorder) WithGroup(string) slog.Handler      { return h }

func (h *logRecorder) since(n int) []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.recs[n:]...)
}

func (h *logRecorder) len() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.recs)
}

// ---- a tab ----

// tab is one browser tab of a test. It records the page's console errors
// and warnings, uncaught exceptions and browser log entries; the test fails
// at its end if there were any.
type tab struct {
	t    *testing.T
	s    *suite
	base string // the server the tab talks to
	ctx  context.Context
	mu   sync.Mutex
	errs []string
	shot int
	// expected are console messages the scenario causes on purpose.
	expected []string
}

// newTab opens a tab and navigates it to path (relative to the server).
func (s *suite) newTab(t *testing.T, path string) *tab {
	t.Helper()
	return s.newTabAt(t, s.base, path)
}

// newTabAt is newTab on the server at base (a test's own server).
func (s *suite) newTabAt(t *testing.T, base, path string) *tab {
	t.Helper()
	tb := &tab{t: t, s: s, base: base}
	// A browser context of its own: no storage (the UI keeps the open tab,
	// formats, the theme in localStorage) is shared between tests.
	ctx, cancel := chromedp.NewContext(s.browser, chromedp.WithNewBrowserContext(), chromedp.WithListener(tb.onEvent))
	tb.ctx = ctx
	logStart := s.srvLog.len()
	t.Cleanup(func() {
		if t.Failed() {
			tb.screenshot("FAILED")
		}
		tb.settle()
		cancel()
		for _, e := range tb.problems() {
			t.Errorf("page console: %s", e)
		}
		for _, r := range s.srvLog.since(logStart) {
			t.Errorf("server log: %s", r)
		}
	})
	// Open the tab, then turn on the browser log (CSP violations, failed
	// requests, ...). Runtime events are on from the start.
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("opening a tab: %v", err)
	}
	if err := chromedp.Do(ctx, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, cdplog.Enable, cdp.Empty{})
		return err
	})); err != nil {
		t.Fatalf("log.enable: %v", err)
	}
	tb.navigate(path)
	return tb
}

// onEvent runs in the tab's event loop: it must return fast.
func (tb *tab) onEvent(ev any) {
	var msg string
	switch ev := ev.(type) {
	case *runtime.EventConsoleAPICalled:
		if ev.Type != runtime.ConsoleAPICalledTypeError && ev.Type != runtime.ConsoleAPICalledTypeWarning && ev.Type != runtime.ConsoleAPICalledTypeAssert {
			return
		}
		var parts []string
		for _, a := range ev.Args {
			switch {
			case a.Description != "":
				parts = append(parts, a.Description)
			case len(a.Value) > 0:
				parts = append(parts, string(a.Value))
			default:
				parts = append(parts, string(a.Type))
			}
		}
		msg = fmt.Sprintf("console.%s: %s", ev.Type, strings.Join(parts, " "))
	case *runtime.EventExceptionThrown:
		d := ev.ExceptionDetails
		text := d.Text
		if d.Exception != nil && d.Exception.Description != "" {
			text += " " + d.Exception.Description
		}
		msg = fmt.Sprintf("uncaught exception at %s:%d: %s", d.URL, d.LineNumber+1, text)
	case *cdplog.EventEntryAdded:
		e := ev.Entry
		if e.Level != cdplog.EntryLevelError && e.Level != cdplog.EntryLevelWarning {
			return
		}
		msg = fmt.Sprintf("log %s (%s): %s %s", e.Level, e.Source, e.Text, e.URL)
	case *page.EventJavascriptDialogOpening:
		msg = fmt.Sprintf("unexpected %s dialog: %q", ev.Type, ev.Message)
		// Answer it, or the page stays blocked (a command may not run here).
		go chromedp.Call(tb.ctx, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: true})
	default:
		return
	}
	tb.mu.Lock()
	defer tb.mu.Unlock()
	for _, x := range tb.expected {
		if strings.Contains(msg, x) {
			return
		}
	}
	tb.errs = append(tb.errs, msg)
}

// expectConsole declares browser log messages (containing text) that the
// scenario causes on purpose, e.g. a refused websocket while the server
// restarts: they do not fail the test.
func (tb *tab) expectConsole(text string) {
	tb.mu.Lock()
	tb.expected = append(tb.expected, text)
	tb.mu.Unlock()
}

// settle lets the page's pending timers and callbacks run (their
// exceptions and console messages reach the listener before the reply).
func (tb *tab) settle() {
	ctx, cancel := context.WithTimeout(tb.ctx, 5*time.Second)
	defer cancel()
	chromedp.Run(ctx, chromedp.Evaluate[bool](`new Promise((ok) => setTimeout(() => requestAnimationFrame(() => ok(true)), 50))`, chromedp.EvalAwaitPromise))
}

func (tb *tab) problems() []string {
	tb.mu.Lock()
	defer tb.mu.Unlock()
	return append([]string(nil), tb.errs...)
}

func (tb *tab) do(what string, actions ...chromedp.Action[chromedp.Void]) {
	tb.t.Helper()
	ctx, cancel := context.WithTimeout(tb.ctx, waitTimeout)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		tb.t.Fatalf("%s: %v", what, err)
	}
}

func (tb *tab) navigate(path string) {
	tb.t.Helper()
	tb.do("navigate to "+path, chromedp.Navigate(tb.base+path))
}

// eval evaluates a JavaScript expression and decodes its JSON value into v.
func (tb *tab) eval(expr string, v any) {
	tb.t.Helper()
	if err := tb.tryEval(expr, v); err != nil {
		tb.t.Fatalf("evaluating %s: %v", short(expr), err)
	}
}

func (tb *tab) tryEval(expr string, v any) error {
	ctx, cancel := context.WithTimeout(tb.ctx, waitTimeout)
	defer cancel()
	raw, err := chromedp.Run(ctx, chromedp.Evaluate[[]byte](expr))
	if err != nil {
		return err
	}
	if v == nil {
		return nil
	}
	if len(raw) == 0 {
		raw = []byte("null")
	}
	return json.Unmarshal(raw, v)
}

func short(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 120 {
		s = s[:117] + "..."
	}
	return s
}

// waitFor polls check until it returns "" (the state is reached) and
// fails with the last explanation after waitTimeout.
func (tb *tab) waitFor(what string, check func() string) {
	tb.t.Helper()
	deadline := time.Now().Add(waitTimeout)
	last := ""
	for {
		if last = check(); last == "" {
			return
		}
		if time.Now().After(deadline) {
			tb.t.Fatalf("timed out after %v waiting for %s: %s", waitTimeout, what, last)
		}
		if p := tb.problems(); len(p) > 0 {
			tb.t.Fatalf("waiting for %s: page console problems:\n  %s", what, strings.Join(p, "\n  "))
		}
		time.Sleep(15 * time.Millisecond)
	}
}

// waitJS waits until a JavaScript expression is true.
func (tb *tab) waitJS(what, expr string) {
	tb.t.Helper()
	tb.waitFor(what, func() string {
		var ok bool
		if err := tb.tryEval("!!("+expr+")", &ok); err != nil {
			return err.Error()
		}
		if !ok {
			return "not yet: " + short(expr)
		}
		return ""
	})
}

// click clicks the (first) element a CSS selector matches, with a real
// mouse event at its centre.
func (tb *tab) click(sel string) {
	tb.t.Helper()
	tb.do("click "+sel, chromedp.Click(chromedp.CSS(sel), chromedp.NodeVisible))
}

// clickAt clicks at page coordinates.
func (tb *tab) clickAt(x, y float64) {
	tb.t.Helper()
	tb.do(fmt.Sprintf("click at %.0f,%.0f", x, y), chromedp.MouseClickXY(x, y))
}

// key sends one key press (a character such as "n", or a kb constant).
func (tb *tab) key(k string, mods ...chromedp.Modifier) {
	tb.t.Helper()
	var opts []chromedp.KeyOption
	if len(mods) > 0 {
		opts = append(opts, chromedp.KeyModifiers(mods...))
	}
	tb.do("key "+k, chromedp.KeyEvent(k, opts...))
}

// insertText types text at the focus as an IME commit would (one input
// event).
func (tb *tab) insertText(text string) {
	tb.t.Helper()
	tb.do("insert text", chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, input.InsertText, input.InsertTextParams{Text: text})
		return err
	}))
}

// screenshot saves the viewport as artifacts/browser/<test>-<n>-<name>.png.
func (tb *tab) screenshot(name string) {
	tb.t.Helper()
	if !keepScreenshots() && name != "FAILED" {
		return
	}
	ctx, cancel := context.WithTimeout(tb.ctx, waitTimeout)
	defer cancel()
	buf, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		tb.t.Logf("screenshot %s: %v", name, err)
		return
	}
	tb.shot++
	test := strings.NewReplacer("/", "-", " ", "_").Replace(tb.t.Name())
	file := filepath.Join(tb.s.artifacts, fmt.Sprintf("%s-%02d-%s.png", test, tb.shot, name))
	if err := os.WriteFile(file, buf, 0o644); err != nil {
		tb.t.Logf("screenshot %s: %v", name, err)
	}
}
