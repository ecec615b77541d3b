package loadtest

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/ptxplayground/ptxplay/sessions"
	"github.com/ptxplayground/ptxplay/web"
)

var (
	abuseDuration = flag.Duration("abuse.duration", 0, "run TestAbuse for this long (0: skip it); the documented run is 60s")
	abuseMemLimit = flag.Int64("abuse.memlimit", 2<<30, "TestAbuse: the process memory limit (GOMEMLIMIT) in bytes; the sessions refuse new work above 3/4 of it")
)

// heavyPTX is the runners' kernel: every thread loops an fma.rm.f32 chain,
// 64 CTAs of 256 threads; with n large a run never ends by itself (it stops
// at the per-command warp-instruction or wall-clock limit).
const heavyPTX = `.version 8.0
.target sm_80
.address_size 64

.visible .entry heavy(.param .u64 out, .param .u32 n)
{
	.reg .pred %p<2>;
	.reg .f32 %f<4>;
	.reg .b32 %r<5>;
	.reg .b64 %rd<4>;

	ld.param.u64 %rd1, [out];
	ld.param.u32 %r1, [n];
	mov.u32 %r2, %tid.x;
	cvt.rn.f32.u32 %f1, %r2;
	mov.f32 %f2, 0f3F800000;
	mov.u32 %r3, 0;
LOOP:
	fma.rm.f32 %f2, %f2, %f1, 0f3F000000;
	add.u32 %r3, %r3, 1;
	setp.lt.u32 %p1, %r3, %r1;
	@%p1 bra LOOP;
	mov.u32 %r4, %ctaid.x;
	mad.lo.u32 %r4, %r4, 256, %r2;
	mul.wide.u32 %rd2, %r4, 4;
	add.u64 %rd3, %rd1, %rd2;
	st.global.f32 [%rd3], %f2;
	ret;
}
`

// cpAsyncLoopPTX commits a cp.async group per iteration, forever.
const cpAsyncLoopPTX = `.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 src) {
	.shared .align 16 .b8 buf[16];
	.reg .b64 %rd<2>;
	.reg .b32 %r<2>;
	ld.param.u64 %rd1, [src];
	mov.u32 %r1, buf;
L:
	cp.async.cg.shared.global [%r1], [%rd1], 16;
	cp.async.commit_group;
	bra L;
}
`

const cpAsyncLoopSpec = `{"grid":[8],"block":[1024],"buffers":[{"name":"src","type":"u8","count":16}],"params":[{"buffer":"src"}]}`

var heavySpec = json.RawMessage(`{"grid":[64],"block":[256],"buffers":[{"name":"out","type":"f32","count":16384}],"params":[{"buffer":"out"},{"u32":1073741824}]}`)

// abuseConfig says what runFairness puts on the server.
type abuseConfig struct {
	runners  int           // sessions looping run on heavyPTX
	steps    int           // the benign client's single steps (0: until the deadline)
	duration time.Duration // with steps == 0
	attack   bool          // also huge globals, cache pinning and silent sockets
	memLimit int64
}

// abuseResult is what the benign client and the prober saw.
type abuseResult struct {
	step, healthz       []time.Duration // sorted
	runs                atomic.Int64    // runs the runners finished
	runReasons          sync.Map        // reason -> *atomic.Int64
	hugeRefused, hugeOK atomic.Int64
	pinLoads, pinBusy   atomic.Int64
	reconnects          atomic.Int64 // attackers closed for loading no program, connected again
	silentOpen          atomic.Int64 // silent sockets accepted
	silentRefused       atomic.Int64 // refused at the handshake or closed at once (per-address limit)
	floodSent           atomic.Int64 // 2 MiB checks the flooders wrote
	floodLimited        atomic.Int64 // ... refused with "limit"
	asyncRuns           atomic.Int64 // runs of the cp.async loop finished
	asyncMaxFrame       atomic.Int64 // its largest message
	compares, cmpBusy   atomic.Int64 // compare-scheduling replies, and busy errors
	maxRSS              int64
	accountedMax        int64
	errs                []error
}

// rss returns the resident set of this process (Linux), or 0.
func rss() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmRSS:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb << 10
		}
	}
	return 0
}

// readUntil reads the replies to id until its last one: an error, a
// state that is not a running frame, or diagnostics with an error (the
// source did not compile). It returns that message's type, its reason (a
// state) or code (an error).
func readUntil(c *client, id int64) (typ, why string, err error) {
	for {
		c.c.SetReadDeadline(time.Now().Add(c.timeout))
		_, b, err := c.c.ReadMessage()
		if err != nil {
			return "", "", err
		}
		var r struct {
			Type    string `json:"type"`
			ID      *int64 `json:"id"`
			Running bool   `json:"running"`
			Reason  string `json:"reason"`
			Status  string `json:"status"`
			Code    string `json:"code"`
		}
		// Running frames can be large; their head is enough.
		if err := json.Unmarshal(b, &r); err != nil {
			return "", "", fmt.Errorf("invalid JSON: %v", err)
		}
		if r.ID == nil || *r.ID != id {
			if r.Type == "error" {
				return r.Type, r.Code, nil
			}
			continue
		}
		switch {
		case r.Type == "error":
			return r.Type, r.Code, nil
		case r.Type == "state" && !r.Running:
			return r.Type, r.Status + "/" + r.Reason, nil
		case r.Type == "diagnostics" && strings.Contains(string(b), `"severity":"error"`):
			return r.Type, "", nil
		}
	}
}

func loadSource(c *client, src string, spec json.RawMessage) (string, string, error) {
	s, _ := json.Marshal(src)
	id, err := c.write(`{"type":"load","source":` + string(s) + `,"spec":` + string(spec))
	if err != nil {
		return "", "", err
	}
	return readUntil(c, id)
}

// runFairness runs the configuration: runners looping `run` (each from
// its own address, through the trusted proxy header, so the server keeps
// its default per-address limits), a benign client making single warp
// steps and a prober of /healthz every 10ms; with attack, also huge
// globals, cache pinning and silent sockets.
func runFairness(tb testing.TB, cfg abuseConfig) *abuseResult {
	res := &abuseResult{}
	lim := sessions.Limits{MaxSessions: cfg.runners + 1 + 8 + 4 + 2 + 8 + 2}
	if cfg.attack {
		// As ptxplay serve --memory-limit shares it out.
		debug.SetMemoryLimit(sessions.RuntimeMemoryLimit(cfg.memLimit))
		defer debug.SetMemoryLimit(-1)
		lim.MaxAccountedBytes = sessions.AccountedLimit(cfg.memLimit)
		lim.NoProgramTimeout = 15 * time.Second
	}
	s, err := startServerWS(lim, web.WSOptions{TrustedProxyHeader: "X-Forwarded-For"})
	if err != nil {
		tb.Fatal(err)
	}
	defer func() {
		if err := s.close(); err != nil {
			tb.Error(err)
		}
	}()
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var errMu sync.Mutex
	fail := func(err error) {
		errMu.Lock()
		res.errs = append(res.errs, err)
		errMu.Unlock()
	}
	stopped := func() bool {
		select {
		case <-stop:
			return true
		default:
			return false
		}
	}
	var conns []*websocket.Conn
	var connMu sync.Mutex
	track := func(c *websocket.Conn) {
		connMu.Lock()
		conns = append(conns, c)
		connMu.Unlock()
	}

	// loopCommand is one attacker: from address ip it loads src, then until
	// the end sends command(i) (without its closing brace: the client adds
	// the id) again and again, reading replies until done says the answer
	// came, and calls next (false: stop).
	loopCommand := func(name, ip, src string, spec json.RawMessage, command func(i int) string,
		done func(id int64, b []byte, head string) bool, next func(c *client) bool) {
		c, err := dialFrom(s.wsURL, ip)
		if err != nil {
			fail(fmt.Errorf("%s: %w", name, err))
			return
		}
		track(c.c)
		c.timeout = time.Minute
		if typ, why, err := loadSource(c, src, spec); err != nil || typ != "state" {
			fail(fmt.Errorf("%s: load: %s %s %v", name, typ, why, err))
			return
		}
		for i := 0; !stopped(); i++ {
			id, err := c.write(command(i))
			if err != nil {
				return
			}
			for {
				c.c.SetReadDeadline(time.Now().Add(time.Minute))
				_, b, err := c.c.ReadMessage()
				if err != nil {
					if !stopped() {
						fail(fmt.Errorf("%s: %w", name, err))
					}
					return
				}
				if done(id, b, string(b[:min(len(b), 300)])) {
					break
				}
			}
			if !next(c) {
				return
			}
		}
	}

	// The runners.
	ready := make(chan error, cfg.runners)
	for i := range cfg.runners {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := dialFrom(s.wsURL, fmt.Sprintf("10.1.%d.%d", i/200, i%200+1))
			if err != nil {
				ready <- fmt.Errorf("runner %d: %w", i, err)
				return
			}
			track(c.c)
			c.timeout = time.Minute
			if typ, why, err := loadSource(c, heavyPTX, heavySpec); err != nil || typ != "state" {
				ready <- fmt.Errorf("runner %d: load: %s %s %v", i, typ, why, err)
				return
			}
			ready <- nil
			for !stopped() {
				id, err := c.write(`{"type":"run"`)
				if err != nil {
					fail(fmt.Errorf("runner %d: %w", i, err))
					return
				}
				typ, why, err := readUntil(c, id)
				if err != nil {
					if !stopped() {
						fail(fmt.Errorf("runner %d: %w", i, err))
					}
					return
				}
				res.runs.Add(1)
				v, _ := res.runReasons.LoadOrStore(typ+" "+why, new(atomic.Int64))
				v.(*atomic.Int64).Add(1)
				if typ == "state" && !strings.HasPrefix(why, "paused/") {
					if _, err := c.write(`{"type":"reset"`); err != nil {
						return
					}
				}
			}
		}()
	}
	for range cfg.runners {
		if err := <-ready; err != nil {
			close(stop)
			wg.Wait()
			tb.Fatal(err)
		}
	}
	time.Sleep(500 * time.Millisecond) // every runner under way

	// The attackers.
	if cfg.attack {
		// Huge globals: each load a new 256 MiB .global (new sources: no
		// cache hit), from one address.
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := dialFrom(s.wsURL, "10.8.0.1")
			if err != nil {
				fail(fmt.Errorf("huge globals: %w", err))
				return
			}
			track(c.c)
			c.timeout = time.Minute
			for i := 0; !stopped(); i++ {
				src := fmt.Sprintf(".version 8.0\n.target sm_80\n.address_size 64\n.global .b8 g%d[268435456];\n.visible .entry k(){ret;}\n", i)
				typ, _, err := loadSource(c, src, json.RawMessage(`{"grid":[1],"block":[1]}`))
				if err != nil {
					if stopped() {
						return
					}
					// A session that never got a program loaded is
					// closed (no-program timeout): connect again.
					if !websocket.IsCloseError(errors.Unwrap(err), websocket.ClosePolicyViolation) && !websocket.IsCloseError(err, websocket.ClosePolicyViolation) {
						fail(fmt.Errorf("huge globals: %w", err))
						return
					}
					res.reconnects.Add(1)
					if c, err = dialFrom(s.wsURL, "10.8.0.1"); err != nil {
						fail(fmt.Errorf("huge globals: reconnect: %w", err))
						return
					}
					track(c.c)
					c.timeout = time.Minute
					continue
				}
				if typ == "state" {
					res.hugeOK.Add(1)
				} else {
					res.hugeRefused.Add(1)
				}
			}
		}()
		// Cache pinning: distinct sources with 12 MiB globals, from another.
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := dialFrom(s.wsURL, "10.8.0.2")
			if err != nil {
				fail(fmt.Errorf("cache pinning: %w", err))
				return
			}
			track(c.c)
			c.timeout = time.Minute
			for i := 0; !stopped(); i++ {
				src := fmt.Sprintf("// %d\n.version 8.0\n.target sm_80\n.address_size 64\n.global .b8 g[12582912];\n.visible .entry k(){ret;}\n", i)
				typ, why, err := loadSource(c, src, json.RawMessage(`{"grid":[1],"block":[1]}`))
				if err != nil {
					if stopped() {
						return
					}
					// A session that never got a program loaded is
					// closed (no-program timeout): connect again.
					if !websocket.IsCloseError(errors.Unwrap(err), websocket.ClosePolicyViolation) && !websocket.IsCloseError(err, websocket.ClosePolicyViolation) {
						fail(fmt.Errorf("cache pinning: %w", err))
						return
					}
					res.reconnects.Add(1)
					if c, err = dialFrom(s.wsURL, "10.8.0.2"); err != nil {
						fail(fmt.Errorf("cache pinning: reconnect: %w", err))
						return
					}
					track(c.c)
					c.timeout = time.Minute
					continue
				}
				res.pinLoads.Add(1)
				if typ == "error" && why == "busy" {
					res.pinBusy.Add(1)
				}
			}
		}()
		// Silent sockets: 12 at a time from one address, never read
		// (the server allows 8 per address and ends those that load no
		// program); reopened every 20s.
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stopped() {
				var open []*websocket.Conn
				for range 12 {
					c, _, err := dialer.Dial(s.wsURL, http.Header{"X-Forwarded-For": {"10.9.0.1"}})
					if err != nil {
						res.silentRefused.Add(1)
						continue
					}
					// A refused one is closed at once with 1008.
					c.SetReadDeadline(time.Now().Add(200 * time.Millisecond))
					_, b, err := c.ReadMessage()
					if err != nil || !strings.Contains(string(b), `"hello"`) {
						res.silentRefused.Add(1)
						c.Close()
						continue
					}
					res.silentOpen.Add(1)
					track(c)
					open = append(open, c)
				}
				select {
				case <-stop:
				case <-time.After(20 * time.Second):
				}
				for _, c := range open {
					c.Close()
				}
			}
		}()
	}

	if cfg.attack {
		// Inbound floods: 8 sockets from one address write 2 MiB checks
		// as fast as the server reads them (a reader drains the replies).
		bigCheck := func() string {
			src, _ := json.Marshal(".version 8.0\n.target sm_80\n.address_size 64\n// " + strings.Repeat("x", 1<<20-200) + "\n.visible .entry k(){ret;}\n")
			spec := `"` + strings.Repeat("y", 1<<20-100) + `"`
			return `{"type":"check","source":` + string(src) + `,"pad":` + spec
		}()
		for range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for !stopped() {
					c, err := dialFrom(s.wsURL, "10.8.0.3")
					if err != nil {
						time.Sleep(time.Second)
						continue
					}
					track(c.c)
					go func() {
						for {
							c.c.SetReadDeadline(time.Now().Add(time.Minute))
							_, b, err := c.c.ReadMessage()
							if err != nil {
								return
							}
							if strings.Contains(string(b[:min(len(b), 200)]), `"code":"limit"`) {
								res.floodLimited.Add(1)
							}
						}
					}()
					for !stopped() {
						if _, err := c.write(bigCheck); err != nil {
							break
						}
						res.floodSent.Add(1)
					}
					c.c.Close()
				}
			}()
		}
		// A cp.async loop on grid 8x1024, run again and again: its
		// copies in flight grow every round.
		wg.Add(1)
		go func() {
			defer wg.Done()
			loopCommand("cp.async", "10.8.0.4", cpAsyncLoopPTX, json.RawMessage(cpAsyncLoopSpec),
				func(int) string { return `{"type":"run"` },
				func(id int64, b []byte, head string) bool {
					if n := int64(len(b)); n > res.asyncMaxFrame.Load() {
						res.asyncMaxFrame.Store(n)
					}
					return strings.Contains(head, `"id":`+strconv.FormatInt(id, 10)) && !strings.Contains(head, `"running":true`)
				},
				func(c *client) bool {
					res.asyncRuns.Add(1)
					_, err := c.write(`{"type":"reset"`)
					return err == nil
				})
		}()
		// compare-scheduling again and again on the runners' kernel.
		wg.Add(1)
		go func() {
			defer wg.Done()
			loopCommand("compare", "10.8.0.5", heavyPTX, heavySpec,
				// A different budget each time: no cached answer.
				func(i int) string {
					return `{"type":"compare-scheduling","maxWarpInstructions":` + strconv.Itoa(5_000_000+i)
				},
				func(id int64, _ []byte, head string) bool {
					if !strings.Contains(head, `"id":`+strconv.FormatInt(id, 10)) {
						return false
					}
					if strings.Contains(head, `"code":"busy"`) {
						res.cmpBusy.Add(1)
					}
					return true
				},
				func(*client) bool { res.compares.Add(1); return true })
		}()
	}

	// The prober of /healthz and the RSS sampler.
	var hmu sync.Mutex
	wg.Add(1)
	go func() {
		defer wg.Done()
		hc := &http.Client{Timeout: 10 * time.Second}
		for !stopped() {
			t0 := time.Now()
			resp, err := hc.Get(s.httpURL + "/healthz")
			if err != nil {
				fail(fmt.Errorf("healthz: %w", err))
				return
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			d := time.Since(t0)
			if resp.StatusCode != http.StatusOK {
				fail(fmt.Errorf("healthz: %s", resp.Status))
			}
			hmu.Lock()
			res.healthz = append(res.healthz, d)
			res.maxRSS = max(res.maxRSS, rss())
			res.accountedMax = max(res.accountedMax, s.mgr.AccountedBytes())
			hmu.Unlock()
			time.Sleep(10 * time.Millisecond)
		}
	}()

	// The benign client: single warp steps, 10ms apart.
	c, err := dialFrom(s.wsURL, "10.2.0.1")
	if err == nil {
		track(c.c)
		err = c.load(longSpec)
	}
	if err != nil {
		close(stop)
		wg.Wait()
		tb.Fatal("benign client: ", err)
	}
	deadline := time.Now().Add(cfg.duration)
	prev := 0
	for i := 0; cfg.steps > 0 && i < cfg.steps || cfg.steps == 0 && time.Now().Before(deadline); i++ {
		r, _, d, err := c.request(`{"type":"step","granularity":"warp"`)
		if err != nil {
			fail(fmt.Errorf("benign step %d: %w", i+1, err))
			break
		}
		if r.Step != prev+1 || r.Status != "paused" || r.Reason != "stepped" {
			fail(fmt.Errorf("benign step %d: %s", i+1, r.String()))
			break
		}
		prev = r.Step
		res.step = append(res.step, d)
		time.Sleep(10 * time.Millisecond)
	}
	close(stop)
	connMu.Lock()
	for _, c := range conns {
		c.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseNormalClosure, ""), time.Now().Add(time.Second))
		c.Close()
	}
	connMu.Unlock()
	wg.Wait()
	slices.Sort(res.step)
	slices.Sort(res.healthz)
	return res
}

// BenchmarkStepUnderRunLoad: 63 sessions loop `run` on heavyPTX (64 CTAs
// of 256 threads in an fma.rm.f32 loop; each run stops at the per-command
// limit) while a 64th makes b.N single warp steps, 10ms apart, and /healthz
// is fetched every 10ms. Reports the step round trip's and /healthz's
// p50/p99 (the targets: step p99 < 100ms, /healthz p99 < 50ms on 2 cores).
//
//	go test ./web/loadtest -run '^$' -bench StepUnderRunLoad -benchtime 300x
func BenchmarkStepUnderRunLoad(b *testing.B) {
	res := runFairness(b, abuseConfig{runners: 63, steps: b.N})
	for _, err := range res.errs {
		b.Error(err)
	}
	if len(res.step) == 0 || len(res.healthz) == 0 {
		b.Fatal("no samples")
	}
	b.ReportMetric(ms(pct(res.step, 0.5)), "step-p50-ms")
	b.ReportMetric(ms(pct(res.step, 0.99)), "step-p99-ms")
	b.ReportMetric(ms(pct(res.healthz, 0.5)), "healthz-p50-ms")
	b.ReportMetric(ms(pct(res.healthz, 0.99)), "healthz-p99-ms")
}

// TestAbuse is the abuse run of docs/deployment.md, skipped unless
// -abuse.duration is set: for that long, 63 sessions loop `run`, one
// client loads a new 256 MiB .global after another, one pins the program
// cache with distinct sources of 12 MiB globals, one address holds 12
// silent sockets, 8 sockets of one address write 2 MiB checks as fast as
// they can, one session loops a cp.async loop on 8x1024 threads, one
// loops compare-scheduling, and a benign client steps while /healthz is
// probed. It
// fails unless the server serves throughout (every step and probe
// answered), RSS stays under -abuse.memlimit, and the benign step p99 is
// under 100ms and /healthz p99 under 50ms.
//
//	go test ./web/loadtest -run Abuse -abuse.duration 60s -v
func TestAbuse(t *testing.T) {
	if *abuseDuration <= 0 {
		t.Skip("set -abuse.duration (e.g. 60s) to run it")
	}
	if *abuseDuration > 10*time.Minute {
		t.Fatal("-abuse.duration: at most 10m")
	}
	t.Logf("GOMAXPROCS %d, NumCPU %d, load average %s, memory limit %d MiB", runtime.GOMAXPROCS(0), runtime.NumCPU(), loadAvg(), *abuseMemLimit>>20)
	res := runFairness(t, abuseConfig{runners: 63, duration: *abuseDuration, attack: true, memLimit: *abuseMemLimit})
	for _, err := range res.errs {
		t.Error(err)
	}
	t.Logf("benign step: %s", latencySummary(res.step))
	t.Logf("/healthz:    %s", latencySummary(res.healthz))
	var reasons []string
	res.runReasons.Range(func(k, v any) bool {
		reasons = append(reasons, fmt.Sprintf("%s: %d", k, v.(*atomic.Int64).Load()))
		return true
	})
	slices.Sort(reasons)
	t.Logf("runs finished: %d (%s)", res.runs.Load(), strings.Join(reasons, ", "))
	t.Logf("huge globals: %d refused, %d loaded; cache pinning: %d loads, %d busy; %d reconnects after a no-program close; silent sockets: %d accepted, %d refused",
		res.hugeRefused.Load(), res.hugeOK.Load(), res.pinLoads.Load(), res.pinBusy.Load(), res.reconnects.Load(), res.silentOpen.Load(), res.silentRefused.Load())
	t.Logf("inbound floods: %d checks of 2 MiB written, %d refused with limit; cp.async loop: %d runs, largest message %d KiB; compare-scheduling: %d replies, %d busy",
		res.floodSent.Load(), res.floodLimited.Load(), res.asyncRuns.Load(), res.asyncMaxFrame.Load()>>10, res.compares.Load(), res.cmpBusy.Load())
	t.Logf("max RSS %d MiB (limit %d MiB), max accounted %d MiB; load average at the end %s",
		res.maxRSS>>20, *abuseMemLimit>>20, res.accountedMax>>20, loadAvg())
	if res.maxRSS > *abuseMemLimit {
		t.Errorf("RSS %d MiB over the limit of %d MiB", res.maxRSS>>20, *abuseMemLimit>>20)
	}
	if p := pct(res.step, 0.99); p > 100*time.Millisecond {
		t.Errorf("benign step p99 %v, target < 100ms", p)
	}
	if p := pct(res.healthz, 0.99); p > 50*time.Millisecond {
		t.Errorf("/healthz p99 %v, target < 50ms", p)
	}
}
