// Package sessions runs the playground's debugging sessions: one goroutine
// per live session owns a compiled program, a prepared launch, its machine
// and the history that lets the client step back. The web layer feeds a
// session the client's websocket messages (Submit) and drains its replies
// (Ready/Take or Next); the message formats are docs/protocol.md.
package sessions

import (
	"runtime"
	"time"
)

// Limits bounds what sessions may use. Zero fields take the defaults of
// DefaultLimits.
type Limits struct {
	// MaxSessions is the number of concurrent sessions. When they are all
	// live, a new client gets the place of a reclaimable session (see
	// ReclaimIdle and ReclaimQuiet); NewSession answers ErrBusy when none
	// is.
	MaxSessions int
	// ReclaimIdle: when the server is full, a session that received no
	// client message for this long is ended (error "reclaimed") to make
	// room for a new client: among those, the one whose address holds the
	// most sessions first, then the one idle the longest.
	ReclaimIdle time.Duration
	// ReclaimQuiet: when the server is full and no session is idle for
	// ReclaimIdle, an address that holds at least two sessions more than
	// the new client's address yields its session quiet the longest, if
	// that one received no client message for ReclaimQuiet. So a few
	// addresses cannot keep everyone else out by stepping now and then.
	ReclaimQuiet time.Duration
	// IdleTimeout closes a session (error "expired") that received no
	// message for this long.
	IdleTimeout time.Duration
	// MaxSourceBytes bounds the PTX text of a load.
	MaxSourceBytes int
	// MaxMessageBytes bounds one client message (default: MaxSourceBytes
	// plus 1 MiB for the spec).
	MaxMessageBytes int
	// MaxBufferBytes bounds the global buffers of a launch, together.
	MaxBufferBytes int64
	// MaxStateBytes bounds the machine state of the resident CTAs
	// (registers, shared and local memory) together with the state that
	// grows as the launch runs (call frames, with the registers and .local
	// memory recursion saves, and cp.async copies in flight): a launch
	// whose fixed state is larger is refused, and a call or cp.async that
	// would take the whole past it faults with "memory-limit".
	MaxStateBytes int64
	// MaxPrintfBytes bounds a launch's printf output (each line's text
	// plus emu.PrintfLineOverhead): later lines are dropped, counted and
	// noted in the Console. It is part of the machine's charge.
	MaxPrintfBytes int64
	// MaxWarpInstructions caps the warp-instructions one command (a run, a
	// step) may execute; a run may ask for less.
	MaxWarpInstructions int64
	// MaxHistoryBytes is the memory a session's history (snapshots and the
	// global-memory undo log) may use before its oldest steps are dropped.
	MaxHistoryBytes int64
	// MaxOutboundBytes bounds the replies queued for a client that does not
	// read them; beyond it the session is closed. MaxReplyBytes is at
	// most this.
	MaxOutboundBytes int
	// MaxInboundBytes bounds the client messages a session holds: those
	// waiting to be handled and one being read (default: twice
	// MaxMessageBytes; at least MaxMessageBytes). A message beyond it is
	// refused with error "limit".
	MaxInboundBytes int64
	// FrameInterval is the minimum time between two state frames of a run.
	FrameInterval time.Duration
	// ProgramCache is the number of compiled programs kept, by source hash.
	ProgramCache int
	// ProgramCacheBytes bounds the estimated size of the cached programs
	// together (a program larger than it is not cached).
	ProgramCacheBytes int64
	// MaxAccountedBytes bounds the accounted memory of the manager: every
	// session's global memory, machine state and history, and the program
	// cache. Beyond it new sessions and loads are refused with "busy".
	MaxAccountedBytes int64
	// MaxReplyBytes bounds one outbound message; a larger one is replaced
	// by an error "limit" (register files are paged to stay below it).
	MaxReplyBytes int
	// NoProgramTimeout closes a session (error "expired") that has not
	// loaded a program this long after it started.
	NoProgramTimeout time.Duration
	// MaxCommandTime is the wall-clock time one command (a run, a step)
	// may take; a command that reaches it stops with reason "interrupted"
	// (status paused: the next run continues from there).
	MaxCommandTime time.Duration
	// MaxRunningJobs is the number of sessions that may use the CPU at
	// once: the tokens of the CPU scheduler. Client commands get a token
	// before the slices of the runs in progress. The default is one per
	// core but one (GOMAXPROCS-1, at least 1): the core left serves the
	// network, the HTTP handlers and the replies, so that they never wait
	// in the Go scheduler's queues behind emulation.
	MaxRunningJobs int
	// CPUAllowance is the CPU time a session may use within CPUWindow (a
	// sliding window); a session that used it waits (its run frames say
	// reason "throttled") until its use within the window drops below.
	CPUAllowance time.Duration
	CPUWindow    time.Duration
}

// The process memory limit (ptxplay serve --memory-limit) is shared out
// as: the Go runtime's soft limit (GOMEMLIMIT) at RuntimeMemoryLimit of
// it, which leaves headroom for what the runtime does not hold to it
// (goroutine stacks in use, memory it returns to the system lazily), so
// the process stays under the limit itself; and the sessions' accounted
// memory (MaxAccountedBytes) at AccountedLimit of it, which leaves the
// collector room for garbage.

// RuntimeMemoryLimit returns the Go runtime's soft memory limit for a
// process memory limit: 7/8 of it.
func RuntimeMemoryLimit(limit int64) int64 { return limit / 8 * 7 }

// AccountedLimit returns MaxAccountedBytes for a process memory limit:
// 3/4 of it.
func AccountedLimit(limit int64) int64 { return limit / 4 * 3 }

// DefaultLimits are the limits used for zero fields.
var DefaultLimits = Limits{
	MaxSessions:         256,
	ReclaimIdle:         2 * time.Minute,
	ReclaimQuiet:        15 * time.Second,
	IdleTimeout:         30 * time.Minute,
	MaxSourceBytes:      1 << 20,
	MaxBufferBytes:      16 << 20,
	MaxStateBytes:       32 << 20,
	MaxPrintfBytes:      256 << 10,
	MaxWarpInstructions: 10_000_000,
	MaxHistoryBytes:     64 << 20,
	MaxOutboundBytes:    16 << 20,
	FrameInterval:       time.Second / 30,
	ProgramCache:        32,
	ProgramCacheBytes:   128 << 20,
	MaxAccountedBytes:   1536 << 20,
	MaxReplyBytes:       4 << 20,
	NoProgramTimeout:    60 * time.Second,
	MaxCommandTime:      10 * time.Second,
	CPUAllowance:        20 * time.Second,
	CPUWindow:           60 * time.Second,
}

// withDefaults fills zero fields.
func (l Limits) withDefaults() Limits {
	d := DefaultLimits
	if l.MaxSessions <= 0 {
		l.MaxSessions = d.MaxSessions
	}
	if l.IdleTimeout <= 0 {
		l.IdleTimeout = d.IdleTimeout
	}
	if l.ReclaimIdle <= 0 {
		l.ReclaimIdle = d.ReclaimIdle
	}
	if l.ReclaimQuiet <= 0 {
		l.ReclaimQuiet = d.ReclaimQuiet
	}
	if l.MaxSourceBytes <= 0 {
		l.MaxSourceBytes = d.MaxSourceBytes
	}
	if l.MaxMessageBytes <= 0 {
		l.MaxMessageBytes = l.MaxSourceBytes + 1<<20
	}
	if l.MaxBufferBytes <= 0 {
		l.MaxBufferBytes = d.MaxBufferBytes
	}
	if l.MaxStateBytes <= 0 {
		l.MaxStateBytes = d.MaxStateBytes
	}
	if l.MaxPrintfBytes <= 0 {
		l.MaxPrintfBytes = d.MaxPrintfBytes
	}
	if l.MaxWarpInstructions <= 0 {
		l.MaxWarpInstructions = d.MaxWarpInstructions
	}
	if l.MaxHistoryBytes <= 0 {
		l.MaxHistoryBytes = d.MaxHistoryBytes
	}
	if l.MaxOutboundBytes <= 0 {
		l.MaxOutboundBytes = d.MaxOutboundBytes
	}
	if l.FrameInterval <= 0 {
		l.FrameInterval = d.FrameInterval
	}
	if l.ProgramCache <= 0 {
		l.ProgramCache = d.ProgramCache
	}
	if l.ProgramCacheBytes <= 0 {
		l.ProgramCacheBytes = d.ProgramCacheBytes
	}
	if l.MaxAccountedBytes <= 0 {
		l.MaxAccountedBytes = d.MaxAccountedBytes
	}
	if l.MaxReplyBytes <= 0 {
		l.MaxReplyBytes = d.MaxReplyBytes
	}
	l.MaxReplyBytes = min(l.MaxReplyBytes, l.MaxOutboundBytes)
	if l.MaxInboundBytes <= 0 {
		l.MaxInboundBytes = 2 * int64(l.MaxMessageBytes)
	}
	l.MaxInboundBytes = max(l.MaxInboundBytes, int64(l.MaxMessageBytes))
	if l.NoProgramTimeout <= 0 {
		l.NoProgramTimeout = d.NoProgramTimeout
	}
	if l.MaxCommandTime <= 0 {
		l.MaxCommandTime = d.MaxCommandTime
	}
	if l.MaxRunningJobs <= 0 {
		l.MaxRunningJobs = max(1, runtime.GOMAXPROCS(0)-1)
	}
	if l.CPUWindow <= 0 {
		l.CPUWindow = d.CPUWindow
	}
	if l.CPUAllowance <= 0 {
		l.CPUAllowance = d.CPUAllowance
	}
	return l
}

// Metrics receives the sessions' measurements; the web layer implements
// it (a nil Metrics records nothing). Methods are called from session
// goroutines and must be safe for concurrent use.
type Metrics interface {
	// SetSessions reports the number of live sessions.
	SetSessions(n int)
	// AddSteps counts history steps: commands that moved a machine.
	AddSteps(n int)
	// ObserveStepLatency reports how long a step, back or seek command took
	// (from its dequeue to its reply).
	ObserveStepLatency(d time.Duration)
	// AddFault counts a launch that stopped with a fault of kind.
	AddFault(kind string)
	// AddPanic counts a session that ended because its goroutine panicked
	// (a bug: the client gets an `internal` error, the manager's logger
	// the panic and its stack).
	AddPanic()
}

type noMetrics struct{}

func (noMetrics) SetSessions(int)                  {}
func (noMetrics) AddSteps(int)                     {}
func (noMetrics) ObserveStepLatency(time.Duration) {}
func (noMetrics) AddFault(string)                  {}
func (noMetrics) AddPanic()                        {}

// Error is a protocol error: its Code is one of the codes of the `error`
// message (bad-request, too-large, no-program, limit, expired, reclaimed,
// busy, internal).
type Error struct {
	Code    string
	Message string
}

func (e *Error) Error() string { return e.Code + ": " + e.Message }

// Frame renders e as an `error` message for the client.
func (e *Error) Frame() []byte {
	return encode(errorMsg{Type: "error", Code: e.Code, Message: e.Message})
}

// Errors NewSession returns.
var (
	ErrBusy   = &Error{Code: "busy", Message: "the server runs as many sessions as it allows; try again later"}
	ErrClosed = &Error{Code: "internal", Message: "the session manager is shut down"}
	// ErrMemoryBusy: the accounted memory is above MaxAccountedBytes.
	ErrMemoryBusy = &Error{Code: "busy", Message: "the server is low on memory; try again later"}
)

func errf(code, msg string) *Error { return &Error{Code: code, Message: msg} }
