package main

import (
	"bytes"
	"context"
	"github.com/ptxplayground/ptxplay/engine/cuda"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

// syncBuffer is a bytes.Buffer safe for the server's concurrent logging.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestServeLifecycle(t *testing.T) {
	data := filepath.Join(t.TempDir(), "nested", "data")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stdout, stderr syncBuffer
	addrc := make(chan string, 1)
	done := make(chan int, 1)
	go func() {
		done <- serve(ctx, []string{"--addr", "127.0.0.1:0", "--data", data, "--max-sessions", "2", "--log-format", "json"},
			&stdout, &stderr, func(a string) { addrc <- a })
	}()
	var addr string
	select {
	case addr = <-addrc:
	case code := <-done:
		t.Fatalf("serve exited with %d: %s", code, stderr.String())
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not start")
	}
	if fi, err := os.Stat(data); err != nil || !fi.IsDir() {
		t.Fatalf("data directory not created: %v", err)
	}
	resp, err := http.Get("http://" + addr + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || string(b) != "ok\n" {
		t.Fatalf("/healthz: %d %q", resp.StatusCode, b)
	}
	resp, err = http.Get("http://" + addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	b, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(b), "# TYPE ptxplay_sessions_active gauge") {
		t.Errorf("/metrics lacks metadata:\n%.500s", b)
	}

	// An open websocket with its session; the shutdown closes it.
	c, _, err := websocket.DefaultDialer.Dial("ws://"+addr+"/ws", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, msg, err := c.ReadMessage(); err != nil || !strings.Contains(string(msg), `"hello"`) {
		t.Fatalf("hello: %q %v", msg, err)
	}
	cancel()
	for {
		if _, _, err := c.ReadMessage(); err != nil {
			if !websocket.IsCloseError(err, websocket.CloseGoingAway) {
				t.Errorf("websocket at shutdown: %v", err)
			}
			break
		}
	}
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("exit status %d; log:\n%s", code, stderr.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not stop")
	}
	if !strings.Contains(stdout.String(), "http://"+addr+"/") {
		t.Errorf("stdout: %q", stdout.String())
	}
	for _, want := range []string{`"msg":"ptxplay serving"`, `"msg":"websocket closed"`, `"msg":"stopped"`} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("log lacks %s:\n%s", want, stderr.String())
		}
	}
}

func TestServeFlags(t *testing.T) {
	t.Setenv("PTXPLAY_ADDR", "127.0.0.1:9999")
	t.Setenv("PTXPLAY_DATA", "/tmp/x")
	t.Setenv("PTXPLAY_MAX_SESSIONS", "7")
	t.Setenv("PTXPLAY_IDLE_TIMEOUT", "90s")
	var stderr bytes.Buffer
	cfg, _, ok := parseServeFlags([]string{"--max-sessions", "3", "--max-warp-instructions", "1000"}, &stderr)
	if !ok {
		t.Fatalf("parse: %s", stderr.String())
	}
	if cfg.addr != "127.0.0.1:9999" || cfg.dataDir != "/tmp/x" {
		t.Errorf("env not used: %+v", cfg)
	}
	if cfg.limits.MaxSessions != 3 || cfg.limits.IdleTimeout != 90*time.Second || cfg.limits.MaxWarpInstructions != 1000 {
		t.Errorf("limits: %+v", cfg.limits)
	}

	t.Setenv("PTXPLAY_IDLE_TIMEOUT", "soon")
	stderr.Reset()
	if _, code, ok := parseServeFlags(nil, &stderr); ok || code != exitInvalid || !strings.Contains(stderr.String(), "PTXPLAY_IDLE_TIMEOUT") {
		t.Errorf("bad env: ok %v code %d %q", ok, code, stderr.String())
	}
	t.Setenv("PTXPLAY_IDLE_TIMEOUT", "")
	stderr.Reset()
	if _, code, ok := parseServeFlags([]string{"--max-sessions", "0"}, &stderr); ok || code != exitInvalid {
		t.Errorf("--max-sessions 0: ok %v code %d", ok, code)
	}
	stderr.Reset()
	if _, code, ok := parseServeFlags([]string{"-h"}, &stderr); ok || code != exitOK || !strings.Contains(stderr.String(), "usage: ptxplay serve") {
		t.Errorf("-h: ok %v code %d %q", ok, code, stderr.String())
	}
	stderr.Reset()
	if _, code, ok := parseServeFlags([]string{"extra"}, &stderr); ok || code != exitInvalid {
		t.Errorf("positional argument accepted: %d", code)
	}
}

func TestServeAddressInUse(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	addrc := make(chan string, 1)
	done := make(chan int, 1)
	var errs syncBuffer
	go func() {
		done <- serve(ctx, []string{"--addr", "127.0.0.1:0", "--data", t.TempDir()}, io.Discard, &errs, func(a string) { addrc <- a })
	}()
	var addr string
	select {
	case addr = <-addrc:
	case code := <-done:
		t.Fatalf("serve exited with %d: %s", code, errs.String())
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not start")
	}
	var stderr bytes.Buffer
	if code := serve(context.Background(), []string{"--addr", addr, "--data", t.TempDir()}, io.Discard, &stderr, nil); code != exitFail {
		t.Errorf("second server on %s: exit %d", addr, code)
	}
	cancel()
	if code := <-done; code != 0 {
		t.Errorf("exit %d: %s", code, errs.String())
	}
}

func TestServeMemoryAndClientFlags(t *testing.T) {
	var stderr bytes.Buffer
	t.Setenv("GOMEMLIMIT", "")
	cfg, _, ok := parseServeFlags(nil, &stderr)
	if !ok || cfg.memoryLimit != defaultMemoryLimit || cfg.ws.MaxSessionsPerIP != 128 || cfg.ws.HandshakesPerMinute != 120 ||
		cfg.ws.HandshakeBurst != 60 || cfg.ws.TrustedProxyHeader != "" || cfg.limits.NoProgramTimeout != time.Minute ||
		cfg.limits.ReclaimIdle != 2*time.Minute || cfg.limits.ReclaimQuiet != 15*time.Second {
		t.Fatalf("defaults: %+v %s", cfg, stderr.String())
	}
	cfg, _, ok = parseServeFlags([]string{"--memory-limit", "1073741824", "--max-sessions-per-ip", "2", "--ws-rate", "5",
		"--ws-burst", "7", "--reclaim-idle", "5m", "--reclaim-quiet", "1m",
		"--trusted-proxy-header", "X-Real-IP", "--no-program-timeout", "10s"}, &stderr)
	if !ok || cfg.memoryLimit != 1<<30 || cfg.ws.MaxSessionsPerIP != 2 || cfg.ws.HandshakesPerMinute != 5 ||
		cfg.ws.HandshakeBurst != 7 || cfg.limits.ReclaimIdle != 5*time.Minute || cfg.limits.ReclaimQuiet != time.Minute ||
		cfg.ws.TrustedProxyHeader != "X-Real-IP" || cfg.limits.NoProgramTimeout != 10*time.Second {
		t.Fatalf("flags: %+v %s", cfg, stderr.String())
	}
	if _, code, ok := parseServeFlags([]string{"--memory-limit", "0"}, &stderr); ok || code != exitInvalid {
		t.Fatal("a zero memory limit was accepted")
	}
}

// TestServeMetricsAddr: with --metrics-addr, /metrics answers on that
// address only; the main address answers 404 for it and keeps serving
// everything else, and the metrics address serves nothing but /metrics.
func TestServeMetricsAddr(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stdout, stderr syncBuffer
	addrc := make(chan string, 1)
	done := make(chan int, 1)
	go func() {
		done <- serve(ctx, []string{"--addr", "127.0.0.1:0", "--metrics-addr", "127.0.0.1:0", "--data", t.TempDir(), "--store", "off"},
			&stdout, &stderr, func(a string) { addrc <- a })
	}()
	var addr string
	select {
	case addr = <-addrc:
	case code := <-done:
		t.Fatalf("serve exited with %d: %s", code, stderr.String())
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not start")
	}
	_, rest, ok := strings.Cut(stdout.String(), "Metrics on http://")
	maddr, _, _ := strings.Cut(rest, "/metrics")
	if !ok || maddr == "" || maddr == addr {
		t.Fatalf("no separate metrics address in stdout: %q", stdout.String())
	}
	get := func(url string) (int, string) {
		t.Helper()
		resp, err := http.Get(url)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, body := get("http://" + maddr + "/metrics"); code != 200 || !strings.Contains(body, "# TYPE ptxplay_sessions_active gauge") {
		t.Errorf("metrics address /metrics: %d %.300q", code, body)
	}
	if code, _ := get("http://" + addr + "/metrics"); code != http.StatusNotFound {
		t.Errorf("main address /metrics: %d, want 404", code)
	}
	if code, body := get("http://" + addr + "/healthz"); code != 200 || body != "ok\n" {
		t.Errorf("main address /healthz: %d %q", code, body)
	}
	for _, p := range []string{"/", "/healthz", "/api/examples"} {
		if code, _ := get("http://" + maddr + p); code != http.StatusNotFound {
			t.Errorf("metrics address %s: %d, want 404", p, code)
		}
	}
	cancel()
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("exit status %d; log:\n%s", code, stderr.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not stop")
	}
	if _, err := http.Get("http://" + maddr + "/metrics"); err == nil {
		t.Error("metrics address still serving after shutdown")
	}

	// A metrics address that cannot be bound is an error at startup.
	var errs bytes.Buffer
	if code := serve(context.Background(), []string{"--addr", "127.0.0.1:0", "--metrics-addr", "256.0.0.1:1", "--data", t.TempDir(), "--store", "off"}, io.Discard, &errs, nil); code != exitFail || !strings.Contains(errs.String(), "metrics address") {
		t.Errorf("bad --metrics-addr: exit %d, %q", code, errs.String())
	}
}

func TestServeCPUFlags(t *testing.T) {
	var stderr bytes.Buffer
	cfg, _, ok := parseServeFlags(nil, &stderr)
	if !ok || cfg.limits.MaxCommandTime != 10*time.Second || cfg.limits.CPUAllowance != 20*time.Second ||
		cfg.limits.CPUWindow != time.Minute || cfg.limits.MaxRunningJobs != 0 {
		t.Fatalf("defaults: %+v %s", cfg.limits, stderr.String())
	}
	cfg, _, ok = parseServeFlags([]string{"--max-command-time", "3s", "--cpu-allowance", "5s", "--cpu-window", "30s",
		"--max-running-jobs", "4"}, &stderr)
	if !ok || cfg.limits.MaxCommandTime != 3*time.Second || cfg.limits.CPUAllowance != 5*time.Second ||
		cfg.limits.CPUWindow != 30*time.Second || cfg.limits.MaxRunningJobs != 4 {
		t.Fatalf("flags: %+v %s", cfg.limits, stderr.String())
	}
	for _, bad := range [][]string{{"--max-command-time", "0s"}, {"--cpu-allowance", "-1s"}, {"--max-running-jobs", "-1"}} {
		if _, code, ok := parseServeFlags(bad, &stderr); ok || code != exitInvalid {
			t.Fatalf("%v was accepted", bad)
		}
	}
}

// --max-printf-bytes sets the session's printf bound (sessions.Limits.MaxPrintfBytes).
func TestServePrintfFlag(t *testing.T) {
	var stderr bytes.Buffer
	cfg, _, ok := parseServeFlags(nil, &stderr)
	if !ok || cfg.limits.MaxPrintfBytes != 256<<10 {
		t.Fatalf("default: %d %s", cfg.limits.MaxPrintfBytes, stderr.String())
	}
	t.Setenv("PTXPLAY_MAX_PRINTF_BYTES", "4096")
	if cfg, _, ok = parseServeFlags(nil, &stderr); !ok || cfg.limits.MaxPrintfBytes != 4096 {
		t.Fatalf("env: %d %s", cfg.limits.MaxPrintfBytes, stderr.String())
	}
	if cfg, _, ok = parseServeFlags([]string{"--max-printf-bytes", "1048576"}, &stderr); !ok || cfg.limits.MaxPrintfBytes != 1<<20 {
		t.Fatalf("flag: %d %s", cfg.limits.MaxPrintfBytes, stderr.String())
	}
	if _, code, ok := parseServeFlags([]string{"--max-printf-bytes", "0"}, &stderr); ok || code != exitInvalid {
		t.Fatalf("--max-printf-bytes 0 was accepted")
	}
}

// The --cuda-* flags and --clang configure the compiler the sessions share.
func TestServeCUDAFlags(t *testing.T) {
	var stderr bytes.Buffer
	cfg, _, ok := parseServeFlags(nil, &stderr)
	if !ok || cfg.cuda.Concurrency < 1 || cfg.cuda.MaxQueue != 64 || cfg.cuda.Limits.CPUTime != 10*time.Second || cfg.cuda.Sandbox != cuda.SandboxAuto {
		t.Fatalf("defaults: %+v %s", cfg.cuda, stderr.String())
	}
	t.Setenv("PTXPLAY_CUDA_QUEUE", "5")
	cfg, _, ok = parseServeFlags([]string{"--clang", "/opt/clang", "--cuda-concurrency", "3", "--cuda-cpu", "2s", "--cuda-wall", "4s",
		"--cuda-memory", "1000000000", "--cuda-output", "1048576", "--cuda-cache-bytes", "4096", "--cuda-sandbox", "limits-only"}, &stderr)
	want := cuda.Config{Clang: "/opt/clang", Concurrency: 3, MaxQueue: 5, CacheBytes: 4096, Sandbox: cuda.SandboxLimits,
		Limits: cuda.Limits{CPUTime: 2 * time.Second, Wall: 4 * time.Second, Memory: 1e9, Output: 1 << 20}}
	if !ok || cfg.cuda != want {
		t.Fatalf("flags: %+v %s", cfg.cuda, stderr.String())
	}
	for _, bad := range [][]string{{"--cuda-concurrency", "0"}, {"--cuda-queue", "-1"}, {"--cuda-wall", "0s"}, {"--cuda-sandbox", "docker"}} {
		if _, code, ok := parseServeFlags(bad, &stderr); ok || code != exitInvalid {
			t.Fatalf("%v was accepted", bad)
		}
	}
}
