package loadtest

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net"
	"net/http"
	"os"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gorilla/websocket"

	"github.com/ptxplayground/ptxplay/sessions"
	"github.com/ptxplayground/ptxplay/web"
)

// kernelPTX is the kernel every benchmark and the load test run: 256
// threads (8 warps) iterate an LCG; each iteration diverges on one bit of
// the value (two paths, then reconvergence), publishes the value in shared
// memory, reads the neighbour's after a barrier and stores the sum to
// global memory, so that steps change registers, predicates, the
// reconvergence stack, barriers, shared and global memory. With n large it
// never finishes within a benchmark.
const kernelPTX = `.version 8.0
.target sm_80
.address_size 64

.visible .entry churn(.param .u64 out, .param .u32 n)
{
	.reg .pred %p<3>;
	.reg .b32 %r<13>;
	.reg .b64 %rd<4>;
	.shared .align 4 .u32 sbuf[256];

	ld.param.u64 %rd1, [out];
	ld.param.u32 %r1, [n];
	mov.u32 %r2, %tid.x;
	mul.wide.u32 %rd2, %r2, 4;
	add.u64 %rd3, %rd1, %rd2;           // &out[tid]
	mov.u32 %r3, sbuf;
	shl.b32 %r4, %r2, 2;
	add.u32 %r5, %r3, %r4;              // &sbuf[tid]
	add.u32 %r6, %r2, 1;
	and.b32 %r6, %r6, 255;
	shl.b32 %r6, %r6, 2;
	add.u32 %r6, %r3, %r6;              // &sbuf[(tid+1) % 256]
	mad.lo.u32 %r7, %r2, 0x9E3779B1, 1; // x
	mov.u32 %r8, 0;                     // i
LOOP:
	mad.lo.u32 %r7, %r7, 1664525, 1013904223;
	and.b32 %r9, %r7, 65536;
	setp.eq.u32 %p1, %r9, 0;
	@%p1 bra EVEN;                      // diverges
	shr.u32 %r10, %r7, 7;
	xor.b32 %r7, %r7, %r10;
	bra.uni JOIN;
EVEN:
	add.u32 %r7, %r7, %r8;
JOIN:
	st.shared.u32 [%r5], %r7;
	bar.sync 0;
	ld.shared.u32 %r11, [%r6];
	add.u32 %r12, %r11, %r7;
	st.global.u32 [%rd3], %r12;
	bar.sync 0;
	add.u32 %r8, %r8, 1;
	setp.lt.u32 %p2, %r8, %r1;
	@%p2 bra LOOP;
	ret;
}
`

// kernelThreads is the block size of the kernel's launch.
const kernelThreads = 256

// kernelSpec is the kernel's launch spec (without the source): one CTA of
// 256 threads looping n times.
func kernelSpec(n uint32) json.RawMessage {
	return json.RawMessage(fmt.Sprintf(`{"grid":[1],"block":[%d],"buffers":[{"name":"out","type":"u32","count":%d}],"params":[{"buffer":"out"},{"u32":%d}]}`,
		kernelThreads, kernelThreads, n))
}

// longSpec runs (for these purposes) forever: 2^31 iterations.
var longSpec = kernelSpec(1 << 31)

// ---- the server ----

// server is the playground server on a loopback listener, built as
// cmd/ptxplay's serve builds it.
type server struct {
	wsURL   string // ws://127.0.0.1:PORT/ws
	httpURL string
	mgr     *sessions.Manager
	srv     *web.Server
	hs      *http.Server
	errc    chan error
	closed  chan struct{} // closed when the websockets have been closed
}

// startServer starts the server with lim on 127.0.0.1 (a free port). Every
// client comes from 127.0.0.1, so the per-address limits are raised out of
// the way.
func startServer(lim sessions.Limits) (*server, error) {
	return startServerWS(lim, web.WSOptions{MaxSessionsPerIP: 1 << 20, HandshakesPerMinute: 1 << 20, HandshakeBurst: 1 << 20})
}

// startServerWS is startServer with the websocket options ws
// (MaxMessageBytes is the sessions' limit).
func startServerWS(lim sessions.Limits, ws web.WSOptions) (*server, error) {
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	metrics := web.NewMetrics()
	mgr := sessions.NewManager(lim, metrics)
	ws.MaxMessageBytes = int64(mgr.Limits().MaxMessageBytes)
	srv, err := web.New(web.Options{
		Sessions:  web.SessionsFrom(mgr.NewClientSession),
		Metrics:   metrics,
		Logger:    log,
		WebSocket: ws,
	})
	if err != nil {
		mgr.Close()
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		mgr.Close()
		return nil, err
	}
	s := &server{mgr: mgr, srv: srv, errc: make(chan error, 1), closed: make(chan struct{})}
	s.hs = &http.Server{
		Handler:           srv,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       time.Minute,
		WriteTimeout:      time.Minute,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	s.hs.RegisterOnShutdown(func() {
		defer close(s.closed)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		srv.CloseWebsockets(ctx)
	})
	addr := ln.Addr().String()
	s.wsURL = "ws://" + addr + "/ws"
	s.httpURL = "http://" + addr
	go func() { s.errc <- s.hs.Serve(ln) }()
	return s, nil
}

// close shuts the server down gracefully, as serve does on SIGTERM: the
// HTTP server, the websockets and their sessions, then the manager.
func (s *server) close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	var errs []error
	if err := s.hs.Shutdown(ctx); err != nil {
		errs = append(errs, fmt.Errorf("shutdown: %w", err))
		s.hs.Close()
	}
	<-s.closed
	s.mgr.Close()
	if err := <-s.errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		errs = append(errs, err)
	}
	if n := s.mgr.Len(); n != 0 {
		errs = append(errs, fmt.Errorf("%d sessions left after shutdown", n))
	}
	return errors.Join(errs...)
}

// stepQuantiles returns the server's own step/back/seek latency summary
// (ptxplay_step_duration_seconds, from dequeue to reply) from /metrics.
func (s *server) stepQuantiles() (map[string]time.Duration, error) {
	hc := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := hc.Get(s.httpURL + "/metrics")
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	re := regexp.MustCompile(`^ptxplay_step_duration_seconds\{quantile="([0-9.]+)"\} ([0-9.e+-]+)$`)
	out := map[string]time.Duration{}
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if m := re.FindStringSubmatch(sc.Text()); m != nil {
			v, _ := strconv.ParseFloat(m[2], 64)
			out["p"+strings.TrimPrefix(strings.TrimPrefix(m[1], "0."), "0")] = time.Duration(v * float64(time.Second))
		}
	}
	return out, sc.Err()
}

// ---- the client ----

// reply is what the clients read of the server's messages.
type reply struct {
	Type      string            `json:"type"`
	ID        *int64            `json:"id"`
	Step      int               `json:"step"`
	Steps     int               `json:"steps"`
	FirstStep int               `json:"firstStep"`
	Running   bool              `json:"running"`
	Status    string            `json:"status"`
	Reason    string            `json:"reason"`
	Full      bool              `json:"full"`
	Code      string            `json:"code"`
	Message   string            `json:"message"`
	Items     []json.RawMessage `json:"items"`
}

func (r *reply) String() string {
	b, _ := json.Marshal(r)
	return string(b)
}

// client is one websocket connection (one session).
type client struct {
	c       *websocket.Conn
	id      int64
	timeout time.Duration // for each read and write
	buf     []byte
}

// dialer dials without proxies and with generous buffers.
var dialer = websocket.Dialer{HandshakeTimeout: 30 * time.Second, ReadBufferSize: 16 << 10, WriteBufferSize: 4 << 10}

// dial connects to the server and reads its hello.
func dial(url string) (*client, error) { return dialFrom(url, "") }

// dialFrom is dial with the client address ip in X-Forwarded-For (for a
// server that trusts that header), unless ip is "".
func dialFrom(url, ip string) (*client, error) {
	var h http.Header
	if ip != "" {
		h = http.Header{"X-Forwarded-For": {ip}}
	}
	c, resp, err := dialer.Dial(url, h)
	if err != nil {
		if resp != nil {
			return nil, fmt.Errorf("dial: %v (HTTP %s)", err, resp.Status)
		}
		return nil, fmt.Errorf("dial: %v", err)
	}
	cl := &client{c: c, timeout: 30 * time.Second}
	r, _, err := cl.read()
	if err != nil {
		c.Close()
		return nil, err
	}
	if r.Type != "hello" {
		c.Close()
		return nil, fmt.Errorf("first message is %s, not hello", r.String())
	}
	return cl, nil
}

// close says goodbye with a close frame and closes the connection.
func (c *client) close() {
	c.c.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseNormalClosure, ""),
		time.Now().Add(time.Second))
	c.c.Close()
}

// read reads one message and decodes what reply holds of it; n is its
// size, at when its bytes arrived.
func (c *client) read() (r reply, n int, err error) {
	c.c.SetReadDeadline(time.Now().Add(c.timeout))
	_, b, err := c.c.ReadMessage()
	if err != nil {
		return r, 0, fmt.Errorf("read: %w", err)
	}
	if err := json.Unmarshal(b, &r); err != nil {
		return r, len(b), fmt.Errorf("invalid JSON from the server (%v): %.200q", err, b)
	}
	return r, len(b), nil
}

// write sends body, a JSON object without its closing brace, with a fresh
// id appended; it returns the id.
func (c *client) write(body string) (int64, error) {
	c.id++
	c.buf = append(append(append(c.buf[:0], body...), `,"id":`...), strconv.FormatInt(c.id, 10)...)
	c.buf = append(c.buf, '}')
	c.c.SetWriteDeadline(time.Now().Add(c.timeout))
	if err := c.c.WriteMessage(websocket.TextMessage, c.buf); err != nil {
		return 0, fmt.Errorf("write: %w", err)
	}
	return c.id, nil
}

// await reads until the `state` reply to id and returns it with its size
// and arrival time. Any other message (an error, a done, a reply to
// something else) is an error.
func (c *client) await(id int64) (reply, int, time.Time, error) {
	r, n, err := c.read()
	at := time.Now()
	if err != nil {
		return r, n, at, err
	}
	if r.Type != "state" || r.ID == nil || *r.ID != id {
		return r, n, at, fmt.Errorf("waiting for the state reply to id %d, got %s", id, r.String())
	}
	return r, n, at, nil
}

// request sends body and waits for its state reply: the reply, its size
// and the round trip (from before the write to the arrival of the reply).
func (c *client) request(body string) (reply, int, time.Duration, error) {
	t0 := time.Now()
	id, err := c.write(body)
	if err != nil {
		return reply{}, 0, 0, err
	}
	r, n, at, err := c.await(id)
	return r, n, at.Sub(t0), err
}

// load loads the kernel with spec and checks the replies: diagnostics
// (none), loaded, and the full state of step 0.
func (c *client) load(spec json.RawMessage) error {
	src, _ := json.Marshal(kernelPTX)
	id, err := c.write(`{"type":"load","source":` + string(src) + `,"spec":` + string(spec))
	if err != nil {
		return err
	}
	for _, want := range []string{"diagnostics", "loaded", "state"} {
		r, _, err := c.read()
		if err != nil {
			return fmt.Errorf("load: %w", err)
		}
		if r.Type != want || r.ID == nil || *r.ID != id {
			return fmt.Errorf("load: want %s, got %s", want, r.String())
		}
		switch {
		case want == "diagnostics" && len(r.Items) != 0:
			return fmt.Errorf("load: the kernel has diagnostics: %s", r.Items[0])
		case want == "state" && (r.Step != 0 || r.Steps != 1 || !r.Full || r.Status != "paused"):
			return fmt.Errorf("load: initial state %s", r.String())
		}
	}
	return nil
}

// ---- figures ----

// pct returns the q-quantile (0 < q <= 1) of sorted durations (nearest
// rank).
func pct(sorted []time.Duration, q float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(math.Ceil(q*float64(len(sorted)))) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// latencySummary renders the percentiles of lat (sorted in place).
func latencySummary(lat []time.Duration) string {
	slices.Sort(lat)
	if len(lat) == 0 {
		return "no samples"
	}
	return fmt.Sprintf("n=%d p50=%.2fms p90=%.2fms p99=%.2fms p99.9=%.2fms max=%.2fms", len(lat),
		ms(pct(lat, 0.5)), ms(pct(lat, 0.9)), ms(pct(lat, 0.99)), ms(pct(lat, 0.999)), ms(lat[len(lat)-1]))
}

// loadAvg returns the machine's load averages (Linux), or "".
func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return ""
	}
	return strings.Join(f[:3], " ")
}

// ---- CPU use ----

// cpuWindow is the CPU use during one window: cores busy on the whole
// machine and in this process.
type cpuWindow struct{ machine, self float64 }

// cpuSampler samples /proc/stat and /proc/self/stat (Linux) at the end of
// each window.
type cpuSampler struct {
	quit chan struct{}
	done chan struct{}
	out  []cpuWindow
}

// cpuTicks returns the machine's busy and total jiffies (all CPUs) and this
// process's user+system ticks; ok is false where /proc is missing.
func cpuTicks() (busy, total, self uint64, ok bool) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, 0, 0, false
	}
	line, _, _ := strings.Cut(string(b), "\n")
	f := strings.Fields(line)
	if len(f) < 5 || f[0] != "cpu" {
		return 0, 0, 0, false
	}
	for i, x := range f[1:] {
		v, _ := strconv.ParseUint(x, 10, 64)
		if i >= 8 { // guest and guest_nice are included in user and nice
			break
		}
		total += v
		if i != 3 && i != 4 { // idle, iowait
			busy += v
		}
	}
	ps, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		return 0, 0, 0, false
	}
	i := strings.LastIndexByte(string(ps), ')')
	if i < 0 {
		return 0, 0, 0, false
	}
	pf := strings.Fields(string(ps[i+1:]))
	if len(pf) < 13 {
		return 0, 0, 0, false
	}
	ut, _ := strconv.ParseUint(pf[11], 10, 64)
	st, _ := strconv.ParseUint(pf[12], 10, 64)
	return busy, total, ut + st, true
}

// userHZ is the clock tick of /proc/self/stat (100 on Linux).
const userHZ = 100

// sampleCPU samples from t0 at the end of each of n windows of length win.
func sampleCPU(t0 time.Time, win time.Duration, n int) *cpuSampler {
	s := &cpuSampler{quit: make(chan struct{}), done: make(chan struct{})}
	busy0, total0, self0, ok := cpuTicks()
	if !ok {
		close(s.done)
		return s
	}
	go func() {
		defer close(s.done)
		last := t0
		for w := 1; w <= n; w++ {
			select {
			case <-s.quit:
				return
			case <-time.After(time.Until(t0.Add(time.Duration(w) * win))):
			}
			busy, total, self, ok := cpuTicks()
			now := time.Now()
			if !ok || total == total0 {
				return
			}
			s.out = append(s.out, cpuWindow{
				machine: float64(busy-busy0) / float64(total-total0) * float64(runtime.NumCPU()),
				self:    float64(self-self0) / userHZ / now.Sub(last).Seconds(),
			})
			busy0, total0, self0, last = busy, total, self, now
		}
	}()
	return s
}

// stop ends the sampling and returns the windows sampled.
func (s *cpuSampler) stop() []cpuWindow {
	close(s.quit)
	<-s.done
	return s.out
}
