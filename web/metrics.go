package web

import (
	"fmt"
	"io"
	"strings"
	"sync/atomic"
	"time"

	vm "github.com/VictoriaMetrics/metrics"
)

// Metrics are the server's Prometheus metrics, kept in their own set (so
// several servers, e.g. in tests, do not share counters):
//
//	ptxplay_sessions_active                 gauge: sessions now open
//	ptxplay_sessions_total                  sessions started
//	ptxplay_sessions_rejected_total         connections refused a session
//	ptxplay_steps_total                     step/run commands the sessions executed
//	ptxplay_step_duration_seconds           summary of their latency (quantiles 0.5, 0.9, 0.99 over 5 minutes)
//	ptxplay_warp_instructions_total         warp-instructions executed by sessions
//	ptxplay_faults_total{kind}              launches stopped by a fault, by kind
//	ptxplay_ws_connections_active           gauge: open websockets
//	ptxplay_ws_messages_total{direction}    websocket messages received ("in") and sent ("out")
//	ptxplay_ws_messages_dropped_total       state updates replaced by a newer one for a slow client
//	ptxplay_ws_errors_total{code}           error replies, by protocol code
//
// plus the go_* and process_* metrics of the process.
type Metrics struct {
	set *vm.Set

	sessionsActive atomic.Int64
	wsActive       atomic.Int64

	sessionsTotal    *vm.Counter
	sessionsRejected *vm.Counter
	steps            *vm.Counter
	stepSeconds      *vm.Summary
	warpInstrs       *vm.Counter
	wsIn, wsOut      *vm.Counter
	wsDropped        *vm.Counter
}

// stepQuantiles are the quantiles of the step latency summary.
var stepQuantiles = []float64{0.5, 0.9, 0.99}

// NewMetrics creates the metrics in a fresh set.
func NewMetrics() *Metrics {
	m := &Metrics{set: vm.NewSet()}
	s := m.set
	s.NewGauge("ptxplay_sessions_active", func() float64 { return float64(m.sessionsActive.Load()) })
	s.NewGauge("ptxplay_ws_connections_active", func() float64 { return float64(m.wsActive.Load()) })
	m.sessionsTotal = s.NewCounter("ptxplay_sessions_total")
	m.sessionsRejected = s.NewCounter("ptxplay_sessions_rejected_total")
	m.steps = s.NewCounter("ptxplay_steps_total")
	m.stepSeconds = s.NewSummaryExt("ptxplay_step_duration_seconds", 5*time.Minute, stepQuantiles)
	m.warpInstrs = s.NewCounter("ptxplay_warp_instructions_total")
	m.wsIn = s.NewCounter(`ptxplay_ws_messages_total{direction="in"}`)
	m.wsOut = s.NewCounter(`ptxplay_ws_messages_total{direction="out"}`)
	m.wsDropped = s.NewCounter("ptxplay_ws_messages_dropped_total")
	return m
}

// WritePrometheus writes every metric in the Prometheus text format.
func (m *Metrics) WritePrometheus(w io.Writer) {
	m.set.WritePrometheus(w)
	vm.WriteProcessMetrics(w)
}

// SessionStarted counts a new session.
func (m *Metrics) SessionStarted() {
	m.sessionsActive.Add(1)
	m.sessionsTotal.Inc()
}

// SessionEnded counts a session's end.
func (m *Metrics) SessionEnded() { m.sessionsActive.Add(-1) }

// SessionRejected counts a connection refused a session (limit reached).
func (m *Metrics) SessionRejected() { m.sessionsRejected.Inc() }

// Step records one step or run command: its duration and the
// warp-instructions it executed.
func (m *Metrics) Step(d time.Duration, warpInstructions int64) {
	m.steps.Inc()
	m.stepSeconds.Update(d.Seconds())
	if warpInstructions > 0 {
		m.warpInstrs.AddInt64(warpInstructions)
	}
}

// Fault counts a launch stopped by a fault of the given kind.
func (m *Metrics) Fault(kind string) {
	m.set.GetOrCreateCounter(fmt.Sprintf("ptxplay_faults_total{kind=%q}", labelValue(kind))).Inc()
}

// Dropped counts outbound state updates superseded before a slow client
// could receive them.
func (m *Metrics) Dropped(n int) {
	if n > 0 {
		m.wsDropped.Add(n)
	}
}

// ErrorReply counts an error message sent to a client.
func (m *Metrics) ErrorReply(code string) {
	m.set.GetOrCreateCounter(fmt.Sprintf("ptxplay_ws_errors_total{code=%q}", labelValue(code))).Inc()
}

func (m *Metrics) messageIn()  { m.wsIn.Inc() }
func (m *Metrics) messageOut() { m.wsOut.Inc() }
func (m *Metrics) wsOpened()   { m.wsActive.Add(1) }
func (m *Metrics) wsClosed()   { m.wsActive.Add(-1) }

// labelValue keeps label values short and plain (the kinds and codes are
// a small fixed set; anything else is folded to "other").
func labelValue(s string) string {
	if s == "" || len(s) > 40 || strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.')
	}) >= 0 {
		return "other"
	}
	return s
}
