package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"time"

	vm "github.com/VictoriaMetrics/metrics"

	"github.com/ptxplayground/ptxplay/engine/cuda"
	"github.com/ptxplayground/ptxplay/sessions"
	"github.com/ptxplayground/ptxplay/sessions/share"
	"github.com/ptxplayground/ptxplay/web"
)

const serveSynopsis = "[--addr HOST:PORT] [--data DIR] [--store DSN] [limits...]"

// serveConfig is the serve command's configuration: flags, each with an
// environment variable as its default.
type serveConfig struct {
	addr            string
	metricsAddr     string
	dataDir         string
	logLevel        string
	logFormat       string
	shutdownTimeout time.Duration
	maxMessageBytes int64
	limits          sessions.Limits
	store           string
	storeReadOnly   bool
	shareRate       int
	memoryLimit     int64
	ws              web.WSOptions
	cuda            cuda.Config
}

// defaultCUDAConcurrency leaves most cores to the sessions' steps: clang
// runs on half of them, at least one.
func defaultCUDAConcurrency() int { return max(1, runtime.GOMAXPROCS(0)/2) }

// defaultMemoryLimit is the process memory limit when neither the flag nor
// GOMEMLIMIT sets one.
const defaultMemoryLimit = 2 << 30

// serveCmd runs the web playground until SIGINT or SIGTERM, then shuts it
// down gracefully. It returns the exit status.
func serveCmd(args []string, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return serve(ctx, args, stdout, stderr, nil)
}

// serve is serveCmd with the context that ends the server and a callback
// told the listening address (for tests).
func serve(ctx context.Context, args []string, stdout, stderr io.Writer, ready func(addr string)) int {
	cfg, code, ok := parseServeFlags(args, stderr)
	if !ok {
		return code
	}
	log, err := newLogger(stderr, cfg.logLevel, cfg.logFormat)
	if err != nil {
		fmt.Fprintf(stderr, "ptxplay serve: %v\n", err)
		return exitInvalid
	}
	if err := os.MkdirAll(cfg.dataDir, 0o750); err != nil {
		fmt.Fprintf(stderr, "ptxplay serve: data directory: %v\n", err)
		return exitFail
	}

	vm.ExposeMetadata(true) // # HELP/# TYPE lines on /metrics
	// The runtime's soft memory limit sits below the process's limit; the
	// sessions refuse new work ("busy") when their accounted memory passes
	// 3/4 of it (sessions.RuntimeMemoryLimit, sessions.AccountedLimit).
	debug.SetMemoryLimit(sessions.RuntimeMemoryLimit(cfg.memoryLimit))
	if cfg.limits.MaxAccountedBytes <= 0 {
		cfg.limits.MaxAccountedBytes = sessions.AccountedLimit(cfg.memoryLimit)
	}
	metrics := web.NewMetrics()
	mgr := sessions.NewManager(cfg.limits, metrics)
	defer mgr.Close()
	metrics.SetAccountedMemory(mgr.AccountedBytes)
	log.Info("memory", "limit", cfg.memoryLimit, "accounted_limit", mgr.Limits().MaxAccountedBytes)
	mgr.SetLogger(log)
	// One CUDA compiler for every session: its concurrency and queue bound
	// the clang processes whatever the number of sessions.
	cc := cuda.NewCompiler(cfg.cuda)
	mgr.SetCompiler(cc)
	if err := cc.Available(); err != nil {
		log.Info("CUDA: off", "why", err.Error())
	} else {
		log.Info("CUDA: on", "sandbox", string(cc.Sandbox()), "concurrency", cfg.cuda.Concurrency, "queue", cfg.cuda.MaxQueue)
	}
	lim := mgr.Limits()
	if cfg.maxMessageBytes <= 0 {
		cfg.maxMessageBytes = int64(lim.MaxMessageBytes)
	}
	shareOpts := web.ShareOptions{Limits: shareLimits(lim), PerMinute: cfg.shareRate}
	if dsn := storeDSN(cfg.store, cfg.dataDir); dsn != "" {
		st, err := share.Open(ctx, dsn, share.Options{ReadOnly: cfg.storeReadOnly})
		if err != nil {
			fmt.Fprintf(stderr, "ptxplay serve: share store: %v\n", err)
			return exitFail
		}
		defer st.Close()
		shareOpts.Store = st
		log.Info("share links", "store", st.Name(), "read_only", st.ReadOnly())
	} else {
		log.Info("share links: no store (link-only sharing)")
	}
	srv, err := web.New(web.Options{
		Sessions:  web.SessionsFrom(mgr.NewClientSession),
		Metrics:   metrics,
		Logger:    log,
		WebSocket: withMessageBytes(cfg.ws, cfg.maxMessageBytes),
		Share:     shareOpts,

		SeparateMetrics: cfg.metricsAddr != "",
	})
	if err != nil {
		fmt.Fprintf(stderr, "ptxplay serve: %v\n", err)
		return exitFail
	}

	ln, err := net.Listen("tcp", cfg.addr)
	if err != nil {
		fmt.Fprintf(stderr, "ptxplay serve: %v\n", err)
		return exitFail
	}
	// With --metrics-addr, /metrics is served there only (for example on
	// an internal interface) and not on the public address.
	var mln net.Listener
	var ms *http.Server
	if cfg.metricsAddr != "" {
		if mln, err = net.Listen("tcp", cfg.metricsAddr); err != nil {
			ln.Close()
			fmt.Fprintf(stderr, "ptxplay serve: metrics address: %v\n", err)
			return exitFail
		}
		ms = &http.Server{
			Handler:           srv.MetricsHandler(),
			ReadHeaderTimeout: 10 * time.Second,
			ReadTimeout:       30 * time.Second,
			WriteTimeout:      30 * time.Second,
			IdleTimeout:       2 * time.Minute,
			MaxHeaderBytes:    16 << 10,
			ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
			BaseContext:       func(net.Listener) context.Context { return ctx },
		}
	}
	hs := &http.Server{
		Handler:           srv,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       time.Minute,
		WriteTimeout:      time.Minute,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
		BaseContext:       func(net.Listener) context.Context { return ctx },
	}
	// Shutdown does not track hijacked connections: close the websockets
	// (and their sessions) alongside it.
	wsClosed := make(chan struct{})
	hs.RegisterOnShutdown(func() {
		defer close(wsClosed)
		sctx, cancel := context.WithTimeout(context.Background(), cfg.shutdownTimeout)
		defer cancel()
		if err := srv.CloseWebsockets(sctx); err != nil {
			log.Warn("websockets did not close in time", "err", err)
		}
	})

	addr := ln.Addr().String()
	log.Info("ptxplay serving", "addr", addr, "url", "http://"+addr+"/", "version", versionString(),
		"data", cfg.dataDir, "max_sessions", lim.MaxSessions, "idle_timeout", lim.IdleTimeout,
		"max_warp_instructions", lim.MaxWarpInstructions, "max_source_bytes", lim.MaxSourceBytes)
	fmt.Fprintf(stdout, "PTX Playground on http://%s/\n", addr)
	if mln != nil {
		maddr := mln.Addr().String()
		log.Info("metrics serving", "addr", maddr, "url", "http://"+maddr+"/metrics")
		fmt.Fprintf(stdout, "Metrics on http://%s/metrics\n", maddr)
	}
	if ready != nil {
		ready(addr)
	}

	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	merrc := make(chan error, 1)
	if ms != nil {
		go func() { merrc <- ms.Serve(mln) }()
	}
	select {
	case err := <-errc:
		log.Error("server failed", "err", err)
		if ms != nil {
			ms.Close()
		}
		return exitFail
	case err := <-merrc:
		log.Error("metrics server failed", "err", err)
		hs.Close()
		<-errc
		return exitFail
	case <-ctx.Done():
	}

	log.Info("shutting down", "timeout", cfg.shutdownTimeout)
	sctx, cancel := context.WithTimeout(context.Background(), cfg.shutdownTimeout)
	defer cancel()
	status := exitOK
	if err := hs.Shutdown(sctx); err != nil {
		log.Warn("shutdown incomplete", "err", err)
		hs.Close()
		status = exitFail
	}
	<-wsClosed
	if ms != nil {
		if err := ms.Shutdown(sctx); err != nil {
			ms.Close()
		}
		if err := <-merrc; err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("metrics server failed", "err", err)
			status = exitFail
		}
	}
	mgr.Close()
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		log.Error("server failed", "err", err)
		status = exitFail
	}
	log.Info("stopped")
	return status
}

func withMessageBytes(o web.WSOptions, n int64) web.WSOptions {
	o.MaxMessageBytes = n
	return o
}

// memoryLimitDefault is GOMEMLIMIT's value when the environment sets it,
// else defaultMemoryLimit.
func memoryLimitDefault() int64 {
	if os.Getenv("GOMEMLIMIT") != "" {
		return debug.SetMemoryLimit(-1)
	}
	return defaultMemoryLimit
}

// parseServeFlags reads the flags, with defaults from the environment.
// ok is false when the command should exit with code.
func parseServeFlags(args []string, stderr io.Writer) (cfg serveConfig, code int, ok bool) {
	fs := newFlags("serve", serveSynopsis, stderr)
	env := envDefaults{fs: fs}
	d := sessions.DefaultLimits
	fs.StringVar(&cfg.addr, "addr", env.str("PTXPLAY_ADDR", "127.0.0.1:8080"), "listen address `host:port` (env PTXPLAY_ADDR)")
	fs.StringVar(&cfg.metricsAddr, "metrics-addr", env.str("PTXPLAY_METRICS_ADDR", ""), "serve /metrics on this `host:port` only, not on --addr; empty: /metrics on --addr (env PTXPLAY_METRICS_ADDR)")
	fs.StringVar(&cfg.dataDir, "data", env.str("PTXPLAY_DATA", defaultDataDir()), "data `directory`, created if missing (env PTXPLAY_DATA)")
	fs.StringVar(&cfg.logLevel, "log-level", env.str("PTXPLAY_LOG_LEVEL", "info"), "log level: debug, info, warn, error (env PTXPLAY_LOG_LEVEL)")
	fs.StringVar(&cfg.logFormat, "log-format", env.str("PTXPLAY_LOG_FORMAT", "text"), "log format: text or json (env PTXPLAY_LOG_FORMAT)")
	fs.DurationVar(&cfg.shutdownTimeout, "shutdown-timeout", env.dur("PTXPLAY_SHUTDOWN_TIMEOUT", 10*time.Second), "how long a graceful shutdown may take (env PTXPLAY_SHUTDOWN_TIMEOUT)")
	fs.IntVar(&cfg.limits.MaxSessions, "max-sessions", env.int("PTXPLAY_MAX_SESSIONS", d.MaxSessions), "concurrent sessions (env PTXPLAY_MAX_SESSIONS)")
	fs.DurationVar(&cfg.limits.IdleTimeout, "idle-timeout", env.dur("PTXPLAY_IDLE_TIMEOUT", d.IdleTimeout), "close sessions idle for this long (env PTXPLAY_IDLE_TIMEOUT)")
	fs.Int64Var(&cfg.limits.MaxWarpInstructions, "max-warp-instructions", env.int64("PTXPLAY_MAX_WARP_INSTRUCTIONS", d.MaxWarpInstructions), "warp-instructions one step or run may execute (env PTXPLAY_MAX_WARP_INSTRUCTIONS)")
	fs.IntVar(&cfg.limits.MaxSourceBytes, "max-source-bytes", env.int("PTXPLAY_MAX_SOURCE_BYTES", d.MaxSourceBytes), "size of a PTX source (env PTXPLAY_MAX_SOURCE_BYTES)")
	fs.Int64Var(&cfg.limits.MaxBufferBytes, "max-buffer-bytes", env.int64("PTXPLAY_MAX_BUFFER_BYTES", d.MaxBufferBytes), "global buffers of a launch, together (env PTXPLAY_MAX_BUFFER_BYTES)")
	fs.Int64Var(&cfg.limits.MaxHistoryBytes, "max-history-bytes", env.int64("PTXPLAY_MAX_HISTORY_BYTES", d.MaxHistoryBytes), "memory of a session's step history (env PTXPLAY_MAX_HISTORY_BYTES)")
	fs.Int64Var(&cfg.limits.MaxPrintfBytes, "max-printf-bytes", env.int64("PTXPLAY_MAX_PRINTF_BYTES", d.MaxPrintfBytes), "printf output a session's launch keeps; later lines are dropped, counted and noted in the Console (env PTXPLAY_MAX_PRINTF_BYTES)")
	fs.StringVar(&cfg.store, "store", env.str("PTXPLAY_STORE", ""), "share links: sqlite:PATH, postgres://…, or off (default: sqlite in the data directory) (env PTXPLAY_STORE)")
	fs.BoolVar(&cfg.storeReadOnly, "store-read-only", env.str("PTXPLAY_STORE_READ_ONLY", "") == "1", "serve share links but create none (env PTXPLAY_STORE_READ_ONLY=1)")
	fs.IntVar(&cfg.shareRate, "share-rate", env.int("PTXPLAY_SHARE_RATE", 20), "share links one client address may create per minute (env PTXPLAY_SHARE_RATE)")
	fs.Int64Var(&cfg.memoryLimit, "memory-limit", env.int64("PTXPLAY_MEMORY_LIMIT", memoryLimitDefault()), "memory limit of the process in bytes (default GOMEMLIMIT or 2 GiB): the Go runtime's soft limit is set to 7/8 of it, and new sessions and loads are refused as busy when the sessions account for 3/4 of it (env PTXPLAY_MEMORY_LIMIT)")
	fs.Int64Var(&cfg.limits.MaxAccountedBytes, "max-accounted-bytes", env.int64("PTXPLAY_MAX_ACCOUNTED_BYTES", 0), "memory the sessions and the program cache may account for before new sessions and loads are refused (0: 3/4 of -memory-limit) (env PTXPLAY_MAX_ACCOUNTED_BYTES)")
	fs.DurationVar(&cfg.limits.NoProgramTimeout, "no-program-timeout", env.dur("PTXPLAY_NO_PROGRAM_TIMEOUT", d.NoProgramTimeout), "close sessions that load no program within this time (env PTXPLAY_NO_PROGRAM_TIMEOUT)")
	fs.DurationVar(&cfg.limits.MaxCommandTime, "max-command-time", env.dur("PTXPLAY_MAX_COMMAND_TIME", d.MaxCommandTime), "wall-clock time one run or step may take before it stops as interrupted (env PTXPLAY_MAX_COMMAND_TIME)")
	fs.IntVar(&cfg.limits.MaxRunningJobs, "max-running-jobs", env.int("PTXPLAY_MAX_RUNNING_JOBS", 0), "sessions that may use the CPU at once (0: GOMAXPROCS-1, at least 1: a core is left for serving) (env PTXPLAY_MAX_RUNNING_JOBS)")
	fs.DurationVar(&cfg.limits.CPUAllowance, "cpu-allowance", env.dur("PTXPLAY_CPU_ALLOWANCE", d.CPUAllowance), "CPU time one session may use within --cpu-window before its runs wait (env PTXPLAY_CPU_ALLOWANCE)")
	fs.DurationVar(&cfg.limits.CPUWindow, "cpu-window", env.dur("PTXPLAY_CPU_WINDOW", d.CPUWindow), "the sliding window of --cpu-allowance (env PTXPLAY_CPU_WINDOW)")
	fs.DurationVar(&cfg.limits.ReclaimIdle, "reclaim-idle", env.dur("PTXPLAY_RECLAIM_IDLE", d.ReclaimIdle), "when the server is full, a new client gets the place of a session idle (no command) for this long (env PTXPLAY_RECLAIM_IDLE)")
	fs.DurationVar(&cfg.limits.ReclaimQuiet, "reclaim-quiet", env.dur("PTXPLAY_RECLAIM_QUIET", d.ReclaimQuiet), "when the server is full and no session is idle, an address holding two sessions more than the new client's yields one quiet for this long (env PTXPLAY_RECLAIM_QUIET)")
	fs.IntVar(&cfg.ws.MaxSessionsPerIP, "max-sessions-per-ip", env.int("PTXPLAY_MAX_SESSIONS_PER_IP", web.DefaultMaxSessionsPerIP), "open websockets one client address (an IPv6 client: its /64) may have; size it for the largest class behind one NAT address (env PTXPLAY_MAX_SESSIONS_PER_IP)")
	fs.IntVar(&cfg.ws.HandshakesPerMinute, "ws-rate", env.int("PTXPLAY_WS_RATE", web.DefaultHandshakesPerMinute), "websocket handshakes one client address may make per minute (env PTXPLAY_WS_RATE)")
	fs.IntVar(&cfg.ws.HandshakeBurst, "ws-burst", env.int("PTXPLAY_WS_BURST", web.DefaultHandshakeBurst), "websocket handshakes one client address may make at once (env PTXPLAY_WS_BURST)")
	fs.Int64Var(&cfg.ws.InboundBytesPerSecond, "ws-inbound-rate", env.int64("PTXPLAY_WS_INBOUND_RATE", web.DefaultInboundBytesPerSecond), "bytes per second of client messages the server reads from one client address; past it it stops reading until the rate allows (env PTXPLAY_WS_INBOUND_RATE)")
	fs.Int64Var(&cfg.ws.InboundBurstBytes, "ws-inbound-burst", env.int64("PTXPLAY_WS_INBOUND_BURST", web.DefaultInboundBurstBytes), "bytes of client messages one client address may send at once (env PTXPLAY_WS_INBOUND_BURST)")
	fs.StringVar(&cfg.ws.TrustedProxyHeader, "trusted-proxy-header", env.str("PTXPLAY_TRUSTED_PROXY_HEADER", ""), "header of a trusted reverse proxy with the client address, e.g. X-Forwarded-For (its last address) or X-Real-IP; empty: the peer address (env PTXPLAY_TRUSTED_PROXY_HEADER)")
	fs.StringVar(&cfg.cuda.Clang, "clang", env.str("PTXPLAY_CLANG", ""), "the clang that compiles CUDA (empty: clang-19 on PATH, then /usr/lib/llvm-19/bin/clang); without one, CUDA mode says how to install it and PTX works (env PTXPLAY_CLANG)")
	fs.IntVar(&cfg.cuda.Concurrency, "cuda-concurrency", env.int("PTXPLAY_CUDA_CONCURRENCY", defaultCUDAConcurrency()), "CUDA compiles (clang processes) running at once; the others wait in the queue (env PTXPLAY_CUDA_CONCURRENCY)")
	fs.IntVar(&cfg.cuda.MaxQueue, "cuda-queue", env.int("PTXPLAY_CUDA_QUEUE", 64), "CUDA compiles that may wait; more are answered busy (env PTXPLAY_CUDA_QUEUE)")
	fs.DurationVar(&cfg.cuda.Limits.CPUTime, "cuda-cpu", env.dur("PTXPLAY_CUDA_CPU", cuda.DefaultLimits.CPUTime), "CPU time of one CUDA compile (env PTXPLAY_CUDA_CPU)")
	fs.DurationVar(&cfg.cuda.Limits.Wall, "cuda-wall", env.dur("PTXPLAY_CUDA_WALL", cuda.DefaultLimits.Wall), "wall-clock time of one CUDA compile (env PTXPLAY_CUDA_WALL)")
	fs.Int64Var(&cfg.cuda.Limits.Memory, "cuda-memory", env.int64("PTXPLAY_CUDA_MEMORY", cuda.DefaultLimits.Memory), "address space of one clang process in bytes (env PTXPLAY_CUDA_MEMORY)")
	fs.Int64Var(&cfg.cuda.Limits.Output, "cuda-output", env.int64("PTXPLAY_CUDA_OUTPUT", cuda.DefaultLimits.Output), "largest file (the PTX) one clang process may write, in bytes (env PTXPLAY_CUDA_OUTPUT)")
	fs.Int64Var(&cfg.cuda.CacheBytes, "cuda-cache-bytes", env.int64("PTXPLAY_CUDA_CACHE_BYTES", 64<<20), "compile results kept (PTX and diagnostics), in bytes (env PTXPLAY_CUDA_CACHE_BYTES)")
	cudaSandbox := fs.String("cuda-sandbox", env.str("PTXPLAY_CUDA_SANDBOX", "auto"), "how clang is confined: auto (bwrap where it works, else limits only), bwrap, or limits-only (env PTXPLAY_CUDA_SANDBOX)")
	fs.Int64Var(&cfg.maxMessageBytes, "max-message-bytes", env.int64("PTXPLAY_MAX_MESSAGE_BYTES", 0), "size of a websocket message (0: the source limit plus 1 MiB) (env PTXPLAY_MAX_MESSAGE_BYTES)")
	if env.err != nil {
		fmt.Fprintf(stderr, "ptxplay serve: %v\n", env.err)
		return cfg, exitInvalid, false
	}
	pos, err := parseArgs(fs, args)
	if err != nil {
		return cfg, flagExit(err), false
	}
	if cfg.memoryLimit <= 0 {
		fmt.Fprintf(stderr, "ptxplay serve: -memory-limit must be > 0 (bytes)\n")
		return cfg, exitInvalid, false
	}
	switch *cudaSandbox {
	case "auto":
		cfg.cuda.Sandbox = cuda.SandboxAuto
	case string(cuda.SandboxBwrap), string(cuda.SandboxLimits):
		cfg.cuda.Sandbox = cuda.Sandbox(*cudaSandbox)
	default:
		fmt.Fprintf(stderr, "ptxplay serve: -cuda-sandbox must be auto, bwrap or limits-only\n")
		return cfg, exitInvalid, false
	}
	if cfg.cuda.Concurrency < 1 || cfg.cuda.MaxQueue < 1 || cfg.cuda.Limits.CPUTime <= 0 || cfg.cuda.Limits.Wall <= 0 || cfg.cuda.Limits.Memory <= 0 || cfg.cuda.Limits.Output <= 0 || cfg.cuda.CacheBytes <= 0 {
		fmt.Fprintf(stderr, "ptxplay serve: the -cuda-* limits must be > 0\n")
		return cfg, exitInvalid, false
	}
	if len(pos) > 0 {
		fmt.Fprintf(stderr, "ptxplay serve: unexpected argument %q\n", pos[0])
		fs.Usage()
		return cfg, exitInvalid, false
	}
	switch {
	case cfg.limits.MaxSessions < 1:
		err = errors.New("--max-sessions must be at least 1")
	case cfg.limits.IdleTimeout <= 0:
		err = errors.New("--idle-timeout must be positive")
	case cfg.limits.ReclaimIdle <= 0 || cfg.limits.ReclaimQuiet <= 0:
		err = errors.New("--reclaim-idle and --reclaim-quiet must be positive")
	case cfg.ws.MaxSessionsPerIP < 1 || cfg.ws.HandshakesPerMinute < 1 || cfg.ws.HandshakeBurst < 1:
		err = errors.New("--max-sessions-per-ip, --ws-rate and --ws-burst must be at least 1")
	case cfg.ws.InboundBytesPerSecond < 1<<10 || cfg.ws.InboundBurstBytes < 1<<20:
		err = errors.New("--ws-inbound-rate must be at least 1024 bytes per second, and --ws-inbound-burst at least 1 MiB")
	case cfg.limits.MaxWarpInstructions < 1, cfg.limits.MaxSourceBytes < 1, cfg.limits.MaxBufferBytes < 1, cfg.limits.MaxHistoryBytes < 1, cfg.limits.MaxPrintfBytes < 1:
		err = errors.New("limits must be positive")
	case cfg.limits.MaxCommandTime <= 0, cfg.limits.CPUAllowance <= 0, cfg.limits.CPUWindow <= 0:
		err = errors.New("--max-command-time, --cpu-allowance and --cpu-window must be positive")
	case cfg.limits.MaxRunningJobs < 0:
		err = errors.New("--max-running-jobs must not be negative")
	case cfg.shutdownTimeout <= 0:
		err = errors.New("--shutdown-timeout must be positive")
	case cfg.shareRate < 1:
		err = errors.New("--share-rate must be at least 1")
	case cfg.maxMessageBytes < 0:
		err = errors.New("--max-message-bytes must not be negative")
	case cfg.dataDir == "":
		err = errors.New("no data directory (--data or PTXPLAY_DATA)")
	}
	cfg.limits.MaxMessageBytes = int(cfg.maxMessageBytes)
	if err != nil {
		fmt.Fprintf(stderr, "ptxplay serve: %v\n", err)
		return cfg, exitInvalid, false
	}
	return cfg, exitOK, true
}

// envDefaults reads flag defaults from environment variables, keeping the
// first malformed one as err.
type envDefaults struct {
	fs  *flag.FlagSet
	err error
}

func (e *envDefaults) lookup(name string) (string, bool) {
	v, ok := os.LookupEnv(name)
	return strings.TrimSpace(v), ok && strings.TrimSpace(v) != ""
}

func (e *envDefaults) fail(name, v, want string) {
	if e.err == nil {
		e.err = fmt.Errorf("environment variable %s=%q: want %s", name, v, want)
	}
}

func (e *envDefaults) str(name, def string) string {
	if v, ok := e.lookup(name); ok {
		return v
	}
	return def
}

func (e *envDefaults) int(name string, def int) int {
	if v, ok := e.lookup(name); ok {
		n, err := strconv.Atoi(v)
		if err != nil {
			e.fail(name, v, "an integer")
			return def
		}
		return n
	}
	return def
}

func (e *envDefaults) int64(name string, def int64) int64 {
	if v, ok := e.lookup(name); ok {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			e.fail(name, v, "an integer")
			return def
		}
		return n
	}
	return def
}

func (e *envDefaults) dur(name string, def time.Duration) time.Duration {
	if v, ok := e.lookup(name); ok {
		d, err := time.ParseDuration(v)
		if err != nil {
			e.fail(name, v, "a duration such as 30s or 15m")
			return def
		}
		return d
	}
	return def
}

// defaultDataDir is the per-user data directory: $XDG_DATA_HOME/ptxplay,
// else ~/.local/share/ptxplay on Unix, the user config directory elsewhere
// (macOS: ~/Library/Application Support/ptxplay; Windows: %AppData%\ptxplay).
func defaultDataDir() string {
	if x := os.Getenv("XDG_DATA_HOME"); x != "" {
		return filepath.Join(x, "ptxplay")
	}
	if runtime.GOOS != "darwin" && runtime.GOOS != "windows" {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, ".local", "share", "ptxplay")
		}
	}
	if dir, err := os.UserConfigDir(); err == nil {
		return filepath.Join(dir, "ptxplay")
	}
	return ""
}

// newLogger builds the structured logger.
func newLogger(w io.Writer, level, format string) (*slog.Logger, error) {
	var lv slog.Level
	if err := lv.UnmarshalText([]byte(level)); err != nil {
		return nil, fmt.Errorf("--log-level %q: want debug, info, warn or error", level)
	}
	opts := &slog.HandlerOptions{Level: lv}
	switch format {
	case "text":
		return slog.New(slog.NewTextHandler(w, opts)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(w, opts)), nil
	}
	return nil, fmt.Errorf("--log-format %q: want text or json", format)
}

// isServeFlag reports whether a first argument is a flag of the default
// command (ptxplay --addr :8080), not a help flag.
func isServeFlag(arg string) bool {
	switch arg {
	case "-h", "-help", "--help", "-", "--":
		return false
	}
	return strings.HasPrefix(arg, "-")
}

// storeDSN resolves --store: "" is SQLite in the data directory, "off"
// none.
func storeDSN(store, dataDir string) string {
	switch store {
	case "off", "none":
		return ""
	case "":
		return "sqlite:" + filepath.Join(dataDir, "shares.db")
	}
	return store
}

// shareLimits bounds share snapshots like the sessions bound a load.
func shareLimits(lim sessions.Limits) share.Limits {
	l := share.DefaultLimits
	l.MaxSourceBytes = lim.MaxSourceBytes
	l.Launch.MaxBufferBytes = lim.MaxBufferBytes
	return l
}
