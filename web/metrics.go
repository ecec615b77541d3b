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
//	ptxplay_sessions_active                 gauge: live sessions
//	ptxplay_sessions_total                  sessions started
//	ptxplay_sessions_rejected_total         connections refused a session (limit)
//	ptxplay_steps_total                     history steps: commands that moved a machine
//	ptxplay_step_duration_seconds           summary of step/back/seek latency (quantiles 0.5, 0.9, 0.99 over 5 minutes)
//	ptxplay_faults_total{kind}              launches stopped by a fault, by kind
//	ptxplay_session_panics_total            sessions ended by a panic (a bug; logged with its stack)
//	ptxplay_sessions_reclaimed_total        sessions ended to give their place to a new client (server full)
//	ptxplay_ws_connections_active           gauge: open websockets
//	ptxplay_ws_messages_total{direction}    websocket messages received ("in") and sent ("out")
//	ptxplay_ws_errors_total{code}           error replies of the websocket layer (too-large, ...), by code
//	ptxplay_ws_refused_total{reason}        websockets refused or closed by a per-client limit (sessions-per-ip, handshake-rate)
//	ptxplay_ws_inbound_paced_seconds_total  time the server stopped reading clients that sent over their address's byte rate
//	ptxplay_accounted_memory_bytes          gauge: memory the sessions account for (SetAccountedMemory)
//
// plus the go_* and process_* metrics of the process. *Metrics implements
// sessions.Metrics.
type Metrics struct {
	set *vm.Set

	sessionsActive atomic.Int64
	wsActive       atomic.Int64
	accounted      atomic.Pointer[func() int64]

	sessionsTotal    *vm.Counter
	sessionsRejected *vm.Counter
	steps            *vm.Counter
	stepSeconds      *vm.Summary
	sessionPanics    *vm.Counter
	sessionsReclaim  *vm.Counter
	wsIn, wsOut      *vm.Counter
	inPaced          *vm.FloatCounter
	sharesCreated    *vm.Counter
	sharesExisting   *vm.Counter
	sharesOpened     *vm.Counter
}

// stepQuantiles are the quantiles of the step latency summary.
var stepQuantiles = []float64{0.5, 0.9, 0.99}

// NewMetrics creates the metrics in a fresh set.
func NewMetrics() *Metrics {
	m := &Metrics{set: vm.NewSet()}
	s := m.set
	s.NewGauge("ptxplay_sessions_active", func() float64 { return float64(m.sessionsActive.Load()) })
	s.NewGauge("ptxplay_ws_connections_active", func() float64 { return float64(m.wsActive.Load()) })
	s.NewGauge("ptxplay_accounted_memory_bytes", func() float64 {
		if f := m.accounted.Load(); f != nil {
			return float64((*f)())
		}
		return 0
	})
	m.sessionsTotal = s.NewCounter("ptxplay_sessions_total")
	m.sessionsRejected = s.NewCounter("ptxplay_sessions_rejected_total")
	m.steps = s.NewCounter("ptxplay_steps_total")
	m.sessionPanics = s.NewCounter("ptxplay_session_panics_total")
	m.sessionsReclaim = s.NewCounter("ptxplay_sessions_reclaimed_total")
	m.stepSeconds = s.NewSummaryExt("ptxplay_step_duration_seconds", 5*time.Minute, stepQuantiles)
	m.wsIn = s.NewCounter(`ptxplay_ws_messages_total{direction="in"}`)
	m.inPaced = s.NewFloatCounter("ptxplay_ws_inbound_paced_seconds_total")
	m.wsOut = s.NewCounter(`ptxplay_ws_messages_total{direction="out"}`)
	m.sharesCreated = s.NewCounter(`ptxplay_shares_total{result="created"}`)
	m.sharesExisting = s.NewCounter(`ptxplay_shares_total{result="existing"}`)
	m.sharesOpened = s.NewCounter("ptxplay_shares_opened_total")
	return m
}

// WritePrometheus writes every metric in the Prometheus text format.
func (m *Metrics) WritePrometheus(w io.Writer) {
	m.set.WritePrometheus(w)
	vm.WriteProcessMetrics(w)
}

// SetSessions reports the number of live sessions.
func (m *Metrics) SetSessions(n int) { m.sessionsActive.Store(int64(n)) }

// AddSteps counts history steps.
func (m *Metrics) AddSteps(n int) {
	if n > 0 {
		m.steps.Add(n)
	}
}

// ObserveStepLatency records how long a step, back or seek command took.
func (m *Metrics) ObserveStepLatency(d time.Duration) { m.stepSeconds.Update(d.Seconds()) }

// AddFault counts a launch stopped by a fault of the given kind.
func (m *Metrics) AddFault(kind string) {
	m.set.GetOrCreateCounter(fmt.Sprintf("ptxplay_faults_total{kind=%q}", labelValue(kind))).Inc()
}

// AddPanic counts a session ended by a panic of its goroutine.
func (m *Metrics) AddPanic() { m.sessionPanics.Inc() }

// AddReclaimed counts a session ended to give its place to a new client
// (sessions.ReclaimMetrics).
func (m *Metrics) AddReclaimed() { m.sessionsReclaim.Inc() }

func (m *Metrics) sessionStarted() { m.sessionsTotal.Inc() }
func (m *Metrics) shareOpened()    { m.sharesOpened.Inc() }

func (m *Metrics) shareCreated(created bool) {
	if created {
		m.sharesCreated.Inc()
	} else {
		m.sharesExisting.Inc()
	}
}

func (m *Metrics) sessionRejected() { m.sessionsRejected.Inc() }

// SetAccountedMemory makes f the source of ptxplay_accounted_memory_bytes
// (sessions.Manager.AccountedBytes).
func (m *Metrics) SetAccountedMemory(f func() int64) { m.accounted.Store(&f) }

// wsRefused counts a websocket refused by a per-client limit.
func (m *Metrics) wsRefused(reason string) {
	m.set.GetOrCreateCounter(fmt.Sprintf(`ptxplay_ws_refused_total{reason=%q}`, reason)).Inc()
}
func (m *Metrics) messageIn() { m.wsIn.Inc() }

// inboundPaced counts a wait of the inbound byte rate.
func (m *Metrics) inboundPaced(d time.Duration) { m.inPaced.Add(d.Seconds()) }

func (m *Metrics) messageOut() { m.wsOut.Inc() }
func (m *Metrics) wsOpened()   { m.wsActive.Add(1) }
func (m *Metrics) wsClosed()   { m.wsActive.Add(-1) }

// errorReply counts an error message of the websocket layer itself.
func (m *Metrics) errorReply(code string) {
	m.set.GetOrCreateCounter(fmt.Sprintf("ptxplay_ws_errors_total{code=%q}", labelValue(code))).Inc()
}

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
