package sessions

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ptxplayground/ptxplay/engine/analysis"
	"github.com/ptxplayground/ptxplay/engine/emu"
	"github.com/ptxplayground/ptxplay/engine/isa"
	"github.com/ptxplayground/ptxplay/engine/launch"
	"github.com/ptxplayground/ptxplay/engine/ptx"
)

// MaxStepCount is the largest `count` of a step command.
const MaxStepCount = 10000

// Session is one client's debugging session. One goroutine owns its
// program, launch, machine and history and processes the client's
// commands in order; Submit, Ready, Take, Next, Done and Close may be
// called from any goroutine.
type Session struct {
	id  uint64
	mgr *Manager
	lim Limits
	in  chan command
	// inMu guards sending on in against the end of the session, which
	// releases what waits there (inClosed: nothing more is queued).
	inMu     sync.Mutex
	inClosed bool
	out      *outbox
	quit     chan struct{} // closed to stop the goroutine
	done     chan struct{} // closed when it has stopped

	lastActive atomic.Int64 // unix nanoseconds of the last client message
	client     string       // the client's address (NewClientSession)
	leaving    bool         // reclaimed: its place is given away (guarded by mgr.mu)
	// quietFor is how long the session had received no client message
	// when it was reclaimed.
	quietFor  atomic.Int64
	started   int64       // unix nanoseconds of the start
	loaded    atomic.Bool // a program was loaded (NoProgramTimeout no longer applies)
	closeOnce sync.Once
	endWhy    atomic.Int32 // an endReason: why the session ends, if not asked to
	// ch is the session's account with the manager's accountant; acctAt
	// when its state was last measured (unix nanoseconds).
	ch     *charge
	acctAt int64

	// Owned by the session goroutine.
	prog      *compiled
	spec      *launch.Spec
	specKey   string // the load's spec, canonical JSON
	l         *launch.Launch
	m         *emu.Machine
	rec       *recorder
	h         *history
	view      clientView
	bpLines   map[int]bool
	userRegs  []int32
	userPreds []int32
	sel       struct{ cta, warp int }
	job       *job
	sliceN    int
	// cpu is the session's CPU use (time holding a scheduler token) over
	// the CPUWindow.
	cpu cpuMeter
	// cmd is the type of the command being handled, for panic reports
	// ("step" or "run" while a job's slice runs).
	cmd string
	// divOn: the client asked for the divergence data; trace holds it.
	divOn bool
	trace *trace
	// mem is the per-line memory analysis (bank conflicts, coalescing).
	mem *memStats
	// accBuf: scratch for the accesses of the last instruction.
	accBuf  []analysis.WarpAccess
	accCTAs []int // the CTA of each access of accBuf (stepAccesses)
	// cmp is the compare-scheduling under way; cmpLast the last reply.
	cmp     *compareJob
	cmpLast *cmpCache
	// noticeAt is when the client was last told its history was shrunk.
	noticeAt time.Time
	// resync: a state was lost (stateLost); the next one is whole.
	resync bool
	// regFrom is the first register (an index of userRegs) of the page of
	// the selected warp's registers that states carry (see regPage).
	regFrom int
	// walk is the history command in progress (walk.go); pending a client
	// message that arrived during it, handled next.
	walk    *walk
	pending *command
	// holding: the session holds a CPU token, since tokenAt.
	holding bool
	tokenAt time.Time
	// cu: the loaded program was compiled from CUDA (cuda.go); bpCUDA
	// the CUDA lines with a breakpoint. ccCancel cancels the compile in
	// flight; cuLoad is a load waiting for its compile.
	cu       *cudaInfo
	bpCUDA   map[int]bool
	ccCancel context.CancelFunc
	cuLoad   *cudaLoad
}

// endReason says why a session ended on its own.
type endReason int32

const (
	endNone endReason = iota
	endIdle
	endNoProgram
	endNotReading
	endReclaimed
)

type command struct {
	msg   *clientMsg
	reply []byte // an error found by Submit
	fn    func() // runs on the session goroutine (tests)
	bytes int64  // the client message's bytes, charged (chargeInbound) until it is handled
	raw   []byte // the client message, to parse (then msg or reply)
}

func newSession(m *Manager, id uint64) *Session {
	s := &Session{id: id, mgr: m, lim: m.lim, in: make(chan command, inboundQueue), out: newOutbox(m.lim.MaxOutboundBytes),
		quit: make(chan struct{}), done: make(chan struct{}), bpLines: map[int]bool{}, bpCUDA: map[int]bool{}, sliceN: 1024,
		cpu: newCPUMeter(m.lim.CPUWindow), ch: m.acct.newCharge()}
	s.out.ch = s.ch
	s.touch()
	s.started = s.lastActive.Load()
	return s
}

// ID returns the session's number (unique within its manager).
func (s *Session) ID() uint64 { return s.id }

func (s *Session) touch() { s.lastActive.Store(s.mgr.now().UnixNano()) }

// Ready returns a channel that receives when outbound messages may be
// waiting (or the session ended): call Take after each receive.
func (s *Session) Ready() <-chan struct{} { return s.out.signal }

// Take returns the queued outbound messages, in order, each one JSON
// object to send as one websocket text message. more is false once the
// session has ended and everything was taken: close the connection then.
func (s *Session) Take() (msgs [][]byte, more bool) { return s.out.take() }

// Next returns the next outbound message, waiting for one; io.EOF once
// the session has ended and everything was taken. (Use either Next or
// Ready/Take, not both.)
func (s *Session) Next(ctx context.Context) ([]byte, error) { return s.out.next(ctx) }

// Done is closed when the session has ended (Close, expiry, a client that
// does not read, or the manager's Close); its last messages remain to be
// taken.
func (s *Session) Done() <-chan struct{} { return s.done }

// Close ends the session and waits for its goroutine. It is idempotent.
func (s *Session) Close() {
	s.closeOnce.Do(func() { close(s.quit) })
	<-s.done
}

// expire ends an idle session, or one that loaded no program in time;
// the client gets error "expired".
func (s *Session) expire(why endReason) {
	s.endWhy.CompareAndSwap(int32(endNone), int32(why))
	s.closeOnce.Do(func() { close(s.quit) })
}

// reclaim ends the session to give its place to a new client; the
// client gets error "reclaimed". Like expire, it only signals the session
// goroutine, which ends the session itself.
func (s *Session) reclaim() {
	s.quietFor.Store(s.mgr.now().UnixNano() - s.lastActive.Load())
	s.expire(endReclaimed)
}

// CloseReason says why the session ended on its own, as a short text for
// a websocket close frame ("" when it was closed by its client or the
// server, or has not ended).
func (s *Session) CloseReason() string {
	switch endReason(s.endWhy.Load()) {
	case endIdle:
		return "idle timeout"
	case endNoProgram:
		return "no program loaded in time"
	case endNotReading:
		return "client does not read its replies"
	case endReclaimed:
		return "session reclaimed for a new client"
	}
	return ""
}

// Submit hands the session one client message. Malformed, invalid or
// oversized messages are answered with an `error` reply; the session
// carries on. It does not block: when the session has more than
// inboundQueue messages waiting, or the messages waiting (with any being
// read) would hold more than MaxInboundBytes, the message is refused with
// error "limit". Its bytes are charged to the session until it has been
// handled.
func (s *Session) Submit(raw []byte) {
	if !s.ReserveInbound(int64(len(raw))) {
		s.touch()
		s.refuseInbound(raw, fmt.Sprintf("the messages waiting for this session hold %d bytes, the most they may (%d); this one was dropped", s.ch.get(chargeInbound), s.lim.MaxInboundBytes))
		return
	}
	s.SubmitReserved(raw)
}

// ReserveInbound charges n bytes of a client message being read (the web
// layer calls it as the bytes arrive, before SubmitReserved); false, with
// nothing charged, when the session's inbound messages would then hold
// more than MaxInboundBytes.
func (s *Session) ReserveInbound(n int64) bool {
	return n <= 0 || s.ch.tryAdd(chargeInbound, n, s.lim.MaxInboundBytes)
}

// ReleaseInbound releases n bytes reserved for a message that is not
// submitted after all.
func (s *Session) ReleaseInbound(n int64) { s.ch.add(chargeInbound, -n) }

// SubmitReserved is Submit for a message whose len(raw) bytes were
// reserved with ReserveInbound: the charge passes to the queued message.
func (s *Session) SubmitReserved(raw []byte) {
	s.touch()
	n := int64(len(raw))
	// Parsed on the session goroutine, holding a CPU token: decoding
	// megabytes of JSON is work the scheduler and the CPU allowance count.
	cmd := command{raw: raw, bytes: n}
	s.inMu.Lock()
	defer s.inMu.Unlock()
	if s.inClosed {
		s.ReleaseInbound(n)
		return
	}
	select {
	case s.in <- cmd:
	default:
		s.ReleaseInbound(n)
		s.refuseInbound(raw, "too many messages are waiting; this one was dropped")
	}
}

// refuseInbound answers a message refused before it was parsed.
func (s *Session) refuseInbound(raw []byte, why string) {
	var idOnly struct {
		ID *int64 `json:"id"`
	}
	_ = json.Unmarshal(raw, &idOnly)
	s.out.push(s.capped(errReply(idOnly.ID, errf("limit", why)), false), false)
}

// dropInbound releases the messages still waiting when the session ends;
// later ones are released as they come.
func (s *Session) dropInbound() {
	s.inMu.Lock()
	defer s.inMu.Unlock()
	s.inClosed = true
	for {
		select {
		case c := <-s.in:
			s.ReleaseInbound(c.bytes)
		default:
			return
		}
	}
}

// inboundQueue is the number of client messages a session queues.
const inboundQueue = 256

func errReply(id *int64, e *Error) []byte {
	return encode(errorMsg{Type: "error", ID: id, Code: e.Code, Message: e.Message})
}

// parse decodes and validates a client message.
func (s *Session) parse(raw []byte) command {
	if len(raw) > s.lim.MaxMessageBytes {
		return command{reply: errReply(nil, errf("too-large", fmt.Sprintf("message of %d bytes exceeds the limit of %d", len(raw), s.lim.MaxMessageBytes)))}
	}
	var msg clientMsg
	dec := json.NewDecoder(bytes.NewReader(raw))
	if err := dec.Decode(&msg); err != nil {
		var idOnly struct {
			ID *int64 `json:"id"`
		}
		_ = json.Unmarshal(raw, &idOnly)
		return command{reply: errReply(idOnly.ID, errf("bad-request", "malformed message: "+err.Error()))}
	}
	if dec.More() {
		return command{reply: errReply(msg.ID, errf("bad-request", "malformed message: data after the JSON object"))}
	}
	if e := s.validate(&msg); e != nil {
		return command{reply: errReply(msg.ID, e)}
	}
	return command{msg: &msg}
}

func (s *Session) validate(c *clientMsg) *Error {
	bad := func(format string, args ...any) *Error { return errf("bad-request", fmt.Sprintf(format, args...)) }
	switch c.Type {
	case "compile":
		if c.CUDA == nil {
			return bad("compile needs \"cuda\": {\"source\", \"arch\", \"opt\", \"fastMath\"}")
		}
		if len(c.CUDA.Source) > s.lim.MaxSourceBytes {
			return errf("too-large", fmt.Sprintf("CUDA source of %d bytes exceeds the limit of %d", len(c.CUDA.Source), s.lim.MaxSourceBytes))
		}
	case "load", "check":
		if c.Type == "load" && c.CUDA != nil {
			if c.Source != nil {
				return bad("load takes \"source\" (PTX) or \"cuda\", not both")
			}
			if len(c.CUDA.Source) > s.lim.MaxSourceBytes {
				return errf("too-large", fmt.Sprintf("CUDA source of %d bytes exceeds the limit of %d", len(c.CUDA.Source), s.lim.MaxSourceBytes))
			}
			break
		}
		if c.Source == nil {
			return bad("%s needs \"source\" (the PTX text)", c.Type)
		}
		if len(*c.Source) > s.lim.MaxSourceBytes {
			return errf("too-large", fmt.Sprintf("source of %d bytes exceeds the limit of %d", len(*c.Source), s.lim.MaxSourceBytes))
		}
	case "step", "back":
		switch c.Granularity {
		case "", "warp", "round", "barrier", "source-line":
		default:
			return bad("unknown granularity %q (want \"warp\", \"round\", \"barrier\" or \"source-line\")", c.Granularity)
		}
		if c.Count != nil && (*c.Count < 1 || *c.Count > MaxStepCount) {
			return bad("count must be between 1 and %d", MaxStepCount)
		}
	case "seek":
		if c.Step == nil || *c.Step < 0 {
			return bad("seek needs \"step\" (a step number >= 0)")
		}
	case "run":
		if c.MaxWarpInstructions != nil && *c.MaxWarpInstructions < 0 {
			return bad("maxWarpInstructions must be >= 0")
		}
	case "pause", "reset":
	case "compare-scheduling":
		if c.MaxWarpInstructions != nil && *c.MaxWarpInstructions < 0 {
			return bad("maxWarpInstructions must be >= 0")
		}
	case "divergence":
		if c.On == nil {
			return bad("divergence needs \"on\" (true or false)")
		}
	case "breakpoint":
		if (c.Line == nil) == (c.CUDALine == nil) || c.Line != nil && *c.Line < 1 || c.CUDALine != nil && *c.CUDALine < 1 {
			return bad("breakpoint needs \"line\" (a PTX line >= 1) or \"cudaLine\" (a CUDA line >= 1)")
		}
	case "inspect":
		if (c.CTA != nil && *c.CTA < 0) || (c.Warp != nil && *c.Warp < 0) {
			return bad("cta and warp must be >= 0")
		}
		if c.RegPage != nil && *c.RegPage < 0 {
			return bad("regPage must be >= 0")
		}
		if c.WgmmaPC != nil && *c.WgmmaPC < 0 {
			return bad("wgmmaPC must be >= 0")
		}
		if mr := c.Memory; mr != nil {
			switch mr.Space {
			case "global":
				if mr.Buffer == "" {
					return bad("memory: a global range needs \"buffer\"")
				}
			case "shared":
			default:
				return bad("memory: space must be \"global\" or \"shared\"")
			}
			if mr.Offset < 0 || mr.Bytes < 0 || mr.Bytes > maxInspectBytes {
				return bad("memory: offset must be >= 0 and bytes between 0 and %d", maxInspectBytes)
			}
		}
	case "read":
		mr := c.Memory
		if mr == nil || mr.Space != "global" || mr.Buffer == "" {
			return bad("read needs \"memory\": {\"space\": \"global\", \"buffer\", \"offset\", \"bytes\"}")
		}
		if mr.Offset < 0 || mr.Bytes < 0 || mr.Bytes > maxInspectBytes {
			return bad("memory: offset must be >= 0 and bytes between 0 and %d", maxInspectBytes)
		}
	case "":
		return bad("missing \"type\"")
	default:
		return bad("unknown message type %q", c.Type)
	}
	return nil
}

// ---- the session goroutine ----

func (s *Session) loop() {
	defer func() {
		if p := recover(); p != nil {
			s.mgr.sessionPanicked(s, s.cmd, p, debug.Stack())
			s.out.replaceAll(s.capped(errReply(nil, errf("internal", fmt.Sprintf("the session failed: %v", p))), false))
		}
		s.stopCompile()
		s.drop()
		s.account(true)
		s.dropInbound()
		s.out.close()
		s.mgr.remove(s)
		close(s.done)
	}()
	s.send(encode(helloMsg{Type: "hello", V: ProtocolVersion, Limits: helloLimits{
		MaxWarpInstructions: s.lim.MaxWarpInstructions, MaxSourceBytes: s.lim.MaxSourceBytes,
		MaxBufferBytes: s.lim.MaxBufferBytes, IdleSeconds: int64(s.lim.IdleTimeout / time.Second),
		MaxMessageBytes: s.lim.MaxMessageBytes, MaxStepCount: MaxStepCount, MaxInspectBytes: maxInspectBytes},
		CUDA: s.mgr.helloCUDA()}))
	for {
		if s.out.overflowed() {
			s.endWhy.CompareAndSwap(int32(endNone), int32(endNotReading))
			s.out.replaceAll(errReply(nil, errf("limit", "the client does not read its replies; session closed")))
			return
		}
		if c := s.pending; c != nil {
			s.pending = nil
			if !s.handleScheduled(*c) {
				s.ended()
				return
			}
			s.account(true)
			continue
		}
		if cl := s.cuLoad; cl != nil {
			// A load waits for its compile (which holds no CPU token):
			// the messages after it wait in the inbound queue.
			select {
			case <-s.quit:
				s.ended()
				return
			case o := <-cl.done:
				s.cuLoad = nil
				if !s.handleScheduled(command{fn: func() { s.finishCUDALoad(cl, o) }}) {
					s.ended()
					return
				}
				s.account(true)
			}
			continue
		}
		if s.job != nil || s.cmp != nil {
			if !s.jobTurn() {
				s.ended()
				return
			}
			// A launch that grows its machine is measured after every
			// slice: the next slice of any session waits on the total
			// (jobTurn).
			s.account(s.prog != nil && s.prog.grows)
			continue
		}
		select {
		case <-s.quit:
			s.ended()
			return
		case c := <-s.in:
			if !s.handleScheduled(c) {
				s.ended()
				return
			}
			s.account(true)
		}
	}
}

// handleScheduled handles c holding a CPU token, asked for with high
// priority unless the session has used its CPU allowance. False when the
// session was closed while it waited.
func (s *Session) handleScheduled(c command) bool {
	defer s.ReleaseInbound(c.bytes)
	p := prioHigh
	if s.cpu.total(time.Now()) >= s.lim.CPUAllowance {
		p = prioLow
	}
	if !s.mgr.sched.acquire(p, s.quit) {
		return false
	}
	s.holdCPU()
	defer s.releaseCPU()
	if c.raw != nil {
		n := c.bytes
		c = s.parse(c.raw)
		c.bytes = n
	}
	s.handle(c)
	return true
}

// holdCPU notes that the session got a token.
func (s *Session) holdCPU() {
	s.holding, s.tokenAt = true, time.Now()
}

// releaseCPU returns the token held, if any, and counts the time held.
func (s *Session) releaseCPU() {
	if !s.holding {
		return
	}
	s.holding = false
	now := time.Now()
	s.cpu.add(now, now.Sub(s.tokenAt))
	s.mgr.sched.release()
}

// jobTurn waits for the job's next turn on the CPU, for a client message,
// or, when the session has used its CPU allowance, for the allowance to
// come back; then it runs one slice, handles the message, or waits again.
// False when the session was closed.
func (s *Session) jobTurn() bool {
	j := s.job
	var wake <-chan time.Time
	now := time.Now()
	var t0 time.Time
	if j != nil {
		t0 = j.t0
	} else {
		t0 = s.cmp.t0
	}
	left := s.lim.MaxCommandTime - now.Sub(t0)
	wait := time.Duration(0)
	if left > 0 {
		wait = min(s.cpu.until(now, s.lim.CPUAllowance), left)
	}
	// A launch whose machine grows as it runs (calls, cp.async) waits
	// while the accounted memory is over the limit, so that the limit is
	// a cap: what the server holds passes it by at most what the slices
	// under way add (one per CPU token, each within the session's state
	// budget). Trimming histories, ended sessions and reclaimed places
	// bring it back under.
	memWait := j != nil && left > 0 && wait == 0 && s.prog != nil && s.prog.grows && s.mgr.memoryHigh(0)
	if memWait {
		wait = min(memoryWaitPoll, left)
	}
	if wait > 0 {
		if j != nil && !j.throttled {
			j.throttled = true
			if j.kind == jobRun {
				msg := fmt.Sprintf("this session used its CPU allowance (%v in %v); the run goes on in %v", s.lim.CPUAllowance, s.lim.CPUWindow, wait.Round(time.Millisecond))
				if memWait {
					msg = "the server is low on memory: this run waits until memory is freed"
				}
				s.pushFrame(s.buildState(stateOpts{id: j.id, running: true, reason: "throttled", message: msg}))
			}
		}
		tm := time.NewTimer(wait)
		defer tm.Stop()
		wake = tm.C
	} else {
		t := s.mgr.sched.request(prioLow)
		select {
		case <-s.quit:
			s.mgr.sched.cancel(t)
			return false
		case c := <-s.in:
			s.mgr.sched.cancel(t)
			return s.handleScheduled(c)
		case <-t.ready:
			s.holdCPU()
			defer s.releaseCPU()
			if j == nil {
				s.cmd = "compare-scheduling"
				s.compareSlice()
				return true
			}
			if s.prog != nil && s.prog.grows && s.mgr.memoryHigh(0) && time.Since(j.t0) < s.lim.MaxCommandTime {
				// Others' slices took the memory while this one waited
				// for the token: wait again (above).
				return true
			}
			j.throttled = false
			if time.Since(j.t0) >= s.lim.MaxCommandTime {
				s.finishJob(nil, "interrupted", noTail, fmt.Sprintf("stopped after %v, the longest one command may take; run again to go on", s.lim.MaxCommandTime))
				return true
			}
			s.cmd = [...]string{jobStep: "step", jobRun: "run"}[j.kind]
			s.slice()
			return true
		}
	}
	select {
	case <-s.quit:
		return false
	case c := <-s.in:
		return s.handleScheduled(c)
	case <-wake:
		return true
	}
}

// ended tells the client why the session ends, if it did not ask.
func (s *Session) ended() {
	switch endReason(s.endWhy.Load()) {
	case endIdle:
		s.send(errReply(nil, errf("expired", fmt.Sprintf("the session was idle for more than %v", s.lim.IdleTimeout))))
	case endNoProgram:
		s.send(errReply(nil, errf("expired", fmt.Sprintf("no program was loaded within %v of the session's start", s.lim.NoProgramTimeout))))
	case endReclaimed:
		quiet := time.Duration(s.quietFor.Load()).Round(time.Second)
		s.send(errReply(nil, errf("reclaimed", fmt.Sprintf("the server was full and gave this session's place to a new client after %v without a command from you; your kernel and position are kept in your browser: reconnect to go on", quiet))))
	}
}

// account measures the memory of the session's machines (its global
// memory, machine state and history, and a comparison's machines) and
// charges it. Unless now, at most every 50ms (a run calls it after each
// slice).
func (s *Session) account(now bool) {
	t := time.Now().UnixNano()
	if !now && t-s.acctAt < int64(50*time.Millisecond) {
		return
	}
	s.acctAt = t
	s.ch.set(chargeState, s.heldBytes())
	s.ch.set(chargeCompare, s.compareBytes())
	s.relieve()
}

// relieve shrinks the session's history when the manager asks it to
// (Manager.historyShare: the accounted memory is high and this history is
// among the largest) and tells the client (`notice`).
func (s *Session) relieve() {
	h := s.h
	if h == nil || (s.job != nil && s.job.inHist) {
		return
	}
	shed, relax := s.mgr.historyShare(s)
	if relax && h.pressured {
		h.budget, h.pressured = s.lim.MaxHistoryBytes, false
	}
	if shed <= 0 {
		return
	}
	target := max(h.bytes()-shed, minHistoryBytes)
	thinned, dropped := h.shrink(target, s.job != nil)
	s.ch.set(chargeState, s.heldBytes())
	if thinned == 0 && !dropped {
		return
	}
	now := time.Now()
	if !dropped && now.Sub(s.noticeAt) < noticeEvery {
		return
	}
	s.noticeAt = now
	msg := "The server is low on memory: this session's history keeps fewer snapshots; going back may take a little longer."
	if dropped {
		msg = fmt.Sprintf("The server is low on memory: this session's history was shortened; it now starts at step %d.", h.first)
	}
	s.send(encode(noticeMsg{Type: "notice", Code: noticeHistoryTrimmed, Message: msg, FirstStep: h.first}))
}

// memoryWaitPoll is how often a launch waiting for memory (jobTurn) looks
// again.
const memoryWaitPoll = 20 * time.Millisecond

// minHistoryBytes is the least a history is shrunk to; noticeEvery the
// least time between two notices that only say it was thinned.
const (
	minHistoryBytes = 1 << 20
	noticeEvery     = 10 * time.Second
)

// post runs fn on the session goroutine (unless the inbound queue is full
// or the session ended: then it does not).
func (s *Session) post(fn func()) {
	s.inMu.Lock()
	defer s.inMu.Unlock()
	if s.inClosed {
		return
	}
	select {
	case s.in <- command{fn: fn}:
	default:
	}
}

// heldBytes estimates the memory of the loaded launch: global memory
// (module variables and buffers), the resident CTAs' state (fixed, and
// the call frames and cp.async copies in flight the machine counts as it
// runs) and the history.
func (s *Session) heldBytes() int64 {
	if s.m == nil || s.prog == nil || s.spec == nil {
		return 0
	}
	n := launch.GlobalBytes(s.prog.prog, s.spec) + machineBytes(s.m) + s.trace.bytes()
	if s.h != nil {
		n += s.h.bytes()
	}
	return n
}

// emit is the one way a message leaves the session: it is capped (see
// capped) and queued in the outbox, which charges its bytes to the
// session until the write pump takes it. frame: a run's state frame.
func (s *Session) emit(msg []byte, frame bool) {
	if msg = s.capped(msg, frame); msg != nil {
		s.out.push(msg, frame)
	}
}

// send queues replies (see emit): a state and the line-memory messages
// that complete it, or any one message.
func (s *Session) send(msgs ...[]byte) {
	for _, m := range msgs {
		s.emit(m, false)
	}
}

// pushFrame queues a run frame: the state and the line-memory messages
// that complete it.
func (s *Session) pushFrame(msgs [][]byte) {
	for i, m := range msgs {
		s.emit(m, i == 0)
	}
}

// capped returns msg if it is within MaxReplyBytes. A larger reply is
// replaced by an error "limit" (with the reply's id, if it has one); a
// larger run frame is dropped (nil): the next frame or the run's final
// state, capped the same way, follows.
func (s *Session) capped(msg []byte, frame bool) []byte {
	if len(msg) <= s.lim.MaxReplyBytes {
		return msg
	}
	if frame {
		s.stateLost()
		return nil
	}
	var head struct {
		Type string `json:"type"`
		ID   *int64 `json:"id"`
	}
	_ = json.Unmarshal(msg, &head)
	if head.Type == "state" {
		s.stateLost()
	}
	return errReply(head.ID, errf("limit", fmt.Sprintf("the %s reply of %d bytes exceeds the limit of %d bytes for one message", head.Type, len(msg), s.lim.MaxReplyBytes)))
}

// stateLost notes that a state the client was to get was not sent (over
// the reply cap): it held deltas against the client's view, so the next
// state is whole (every field, every resident CTA's shared memory and the
// whole line-memory table).
func (s *Session) stateLost() {
	s.view.valid = false
	s.resync = true
	if s.mem != nil {
		s.mem.sent = nil
	}
}

func (s *Session) sendErr(id *int64, code, msg string) { s.send(errReply(id, errf(code, msg))) }

// drop releases the program and machine.
func (s *Session) drop() {
	s.job, s.cmp = nil, nil
	s.prog, s.spec, s.l, s.m, s.rec, s.h, s.mem = nil, nil, nil, nil, nil, nil, nil
	s.view = clientView{}
}

func (s *Session) handle(c command) {
	s.cmd = "internal"
	if c.msg != nil {
		s.cmd = c.msg.Type
	}
	if c.reply != nil {
		s.send(c.reply)
		return
	}
	if c.fn != nil {
		c.fn()
		return
	}
	msg := c.msg
	switch msg.Type {
	case "pause":
		if s.job != nil {
			s.finishJob(msg.ID, "paused", noTail, "")
			return
		}
	case "breakpoint":
		s.doBreakpoint(msg)
		return
	case "inspect":
		s.doInspect(msg)
		return
	case "read":
		s.doRead(msg)
		return
	case "check":
		s.doCheck(msg)
		return
	case "compile":
		s.doCompile(msg)
		return
	case "compare-scheduling":
		if s.m == nil {
			s.sendErr(msg.ID, "no-program", "load a program first")
			return
		}
		s.startCompare(msg)
		return
	}
	if s.job != nil {
		s.finishJob(nil, "paused", noTail, "")
	}
	if msg.Type == "load" {
		if msg.CUDA != nil {
			s.startCUDALoad(msg)
			return
		}
		s.doLoadCUDA(msg, nil)
		return
	}
	if msg.Type == "divergence" && s.m == nil {
		s.divOn = *msg.On
		return
	}
	if s.m == nil {
		s.sendErr(msg.ID, "no-program", "load a program first")
		return
	}
	switch msg.Type {
	case "pause":
		reason, message := s.h.reason()
		s.send(s.buildState(stateOpts{id: msg.ID, reason: reason, message: message})...)
	case "reset":
		s.doReset(msg.ID)
	case "divergence":
		on := *msg.On
		s.walkCmd(msg.ID, false, "the divergence data covers the steps up to here and follows the machine from here on", func() error { return s.setDivergence(on) })
	case "step":
		s.startJob(&job{kind: jobStep, id: msg.ID, gran: granularity(msg.Granularity), count: count(msg), cap: s.lim.MaxWarpInstructions})
	case "run":
		cap := s.lim.MaxWarpInstructions
		if msg.MaxWarpInstructions != nil && *msg.MaxWarpInstructions > 0 {
			cap = min(cap, *msg.MaxWarpInstructions)
		}
		s.startJob(&job{kind: jobRun, id: msg.ID, cap: cap})
	case "back":
		g, n := granularity(msg.Granularity), count(msg)
		s.walkCmd(msg.ID, true, "back again to go on", func() error { return s.back(g, n) })
	case "seek":
		k := *msg.Step
		if k < s.h.first || k > s.h.head {
			s.sendErr(msg.ID, "bad-request", fmt.Sprintf("step %d is not in the history (steps %d to %d are)", k, s.h.first, s.h.head))
			return
		}
		s.walkCmd(msg.ID, true, "seek again to go on", func() error { return s.h.goTo(k) })
	}
}

func granularity(g string) emu.Granularity {
	switch g {
	case "source-line":
		return stepSourceLine
	case "round":
		return emu.StepRound
	case "barrier":
		return emu.StepToBarrier
	}
	return emu.StepWarpInstruction
}

func count(msg *clientMsg) int {
	if msg.Count != nil {
		return *msg.Count
	}
	return 1
}

// ---- load and reset ----

// doLoadCUDA loads a PTX source; cu (nil for PTX) is the CUDA it was
// compiled from.
func (s *Session) doLoadCUDA(msg *clientMsg, cu *cudaInfo) {
	c := s.mgr.cache.get(*msg.Source)
	if s.m != nil && c.prog != nil && s.prog != c && sameTokens(s.prog.prog.Src.Text, c.prog.Src.Text) {
		if spec, err := s.parseSpec(msg.Spec); err == nil && specKey(spec) == s.specKey {
			s.remap(msg.ID, c, cu)
			return
		}
	}
	s.cancelCompare()
	s.drop()
	s.account(true)
	s.bpLines = map[int]bool{}
	s.bpCUDA = map[int]bool{}
	if cu != nil && c.prog != nil {
		cu.bind(c)
	} else {
		cu = nil
	}
	s.cu = cu
	s.send(encode(diagnosticsMsg{Type: "diagnostics", ID: msg.ID, Items: c.diags}))
	if c.prog == nil {
		return
	}
	spec, err := s.parseSpec(msg.Spec)
	if err != nil {
		s.sendErr(msg.ID, "bad-request", "spec: "+err.Error())
		return
	}
	if s.mgr.memoryHigh(0) {
		s.send(errReply(msg.ID, ErrMemoryBusy))
		return
	}
	var fix *launchFixJSON
	infer := msg.InferLaunch != nil && *msg.InferLaunch
	if infer || msg.Kernel != nil && *msg.Kernel != kernelSig(specKernel(c.prog, spec.Entry)) {
		// The spec was made for another kernel (or inference was asked
		// for): the kernel's own launch, nothing of the spec's.
		fix = inferLaunch(c.prog, spec.Entry)
	}
	if fix == nil {
		fix = fitLaunch(c.prog, spec)
	}
	if fix != nil && fix.Applied {
		if applied, err := s.parseSpec(fix.Spec); err == nil {
			spec = applied
		}
	}
	s.prog, s.spec, s.specKey = c, spec, specKey(spec)
	if msg.Divergence != nil {
		s.divOn = *msg.Divergence
	}
	if e := s.prepare("loaded"); e != nil {
		s.drop()
		s.send(errReply(msg.ID, e))
		return
	}
	if held := s.heldBytes(); s.mgr.memoryHigh(held) {
		s.drop()
		s.send(errReply(msg.ID, ErrMemoryBusy))
		return
	}
	s.loaded.Store(true)
	s.account(true)
	s.send(s.loadedMsg(msg.ID, false, fix))
	s.send(s.buildState(stateOpts{id: msg.ID, full: true, reason: "loaded", stale: true})...)
	if msg.At != nil && *msg.At > 0 && (fix == nil || !fix.Inferred) {
		// Replay to the position the client was at (after an edit or a
		// reconnect): a warp step of that many instructions. Another
		// kernel, with a launch of its own, starts at step 0.
		s.startJob(&job{kind: jobStep, id: msg.ID, gran: emu.StepWarpInstruction, count: int(min(*msg.At, s.lim.MaxWarpInstructions)), cap: s.lim.MaxWarpInstructions})
	}
}

// doCheck compiles a source for its diagnostics only; the loaded program
// and its run stay. sameProgram tells whether the source differs from the
// loaded one only in comments and white space (a load would keep the run).
func (s *Session) doCheck(msg *clientMsg) {
	c := s.mgr.cache.get(*msg.Source)
	same := s.m != nil && c.prog != nil && sameTokens(s.prog.prog.Src.Text, c.prog.Src.Text)
	other := s.m != nil && c.prog != nil && kernelSig(specKernel(c.prog, s.spec.Entry)) != kernelSig(s.m.Kernel())
	s.send(encode(diagnosticsMsg{Type: "diagnostics", ID: msg.ID, Items: c.diags, Check: true, SameProgram: same, OtherKernel: other}))
}

// remap swaps in a program that differs from the running one only in
// comments and white space: the machine, its history and the breakpoints'
// instructions stay; lines are renumbered. The client gets the new
// diagnostics, a `loaded` with remapped set, and a full state.
func (s *Session) remap(id *int64, c *compiled, cu *cudaInfo) {
	if s.job != nil {
		s.finishJob(nil, "paused", noTail, "")
	}
	old := s.prog
	s.prog = c
	if cu != nil {
		cu.bind(c)
	} else {
		s.bpCUDA = map[int]bool{}
	}
	s.cu = cu
	bps := map[int]bool{}
	for line := range s.bpLines {
		for _, pc := range old.linePCs[line] {
			if l := c.line(pc); l > 0 {
				bps[l] = true
			}
		}
	}
	s.bpLines = bps
	s.send(encode(diagnosticsMsg{Type: "diagnostics", ID: id, Items: c.diags}))
	s.send(s.loadedMsg(id, true, nil))
	reason, message := s.h.reason()
	s.send(s.buildState(stateOpts{id: id, full: true, reason: reason, message: message, sharedAll: true})...)
}

// sameTokens reports whether two sources have the same tokens (they differ
// only in comments and white space).
func sameTokens(a, b []byte) bool {
	ta, _ := ptx.Tokenize(a)
	tb, _ := ptx.Tokenize(b)
	if len(ta) != len(tb) {
		return false
	}
	for i := range ta {
		x, y := ta[i], tb[i]
		if x.Kind != y.Kind || !bytes.Equal(a[x.Span.Start:x.Span.End], b[y.Span.Start:y.Span.End]) {
			return false
		}
	}
	return true
}

// specKey renders a parsed spec for comparison (dimensions filled in, keys
// in order).
func specKey(s *launch.Spec) string {
	b, err := json.Marshal(s)
	if err != nil {
		return ""
	}
	return string(b)
}

// fitLaunch checks a spec against the program's kernel. Nil when it fits;
// else the mismatches and the launch inferred from the kernel (keeping what
// still fits), which replaces the spec when a mismatch would stop the
// launch: a launch that does not fit its kernel is a warning with a fix,
// never an error.
func fitLaunch(p *emu.Program, spec *launch.Spec) *launchFixJSON {
	mm := launch.Check(p, spec)
	if len(mm) == 0 {
		return nil
	}
	fix := &launchFixJSON{Mismatches: mm, Notes: []launch.Note{}}
	inferred, notes, err := launch.Infer(p, spec, "")
	if err != nil {
		return fix // no kernel: Prepare says so
	}
	raw, err := inferred.MarshalIndent()
	if err != nil {
		return fix
	}
	var buf bytes.Buffer
	if json.Compact(&buf, raw) != nil {
		return fix
	}
	fix.Spec, fix.Notes = buf.Bytes(), append(fix.Notes, notes...)
	for _, m := range mm {
		fix.Applied = fix.Applied || m.Blocking
	}
	return fix
}

// parseSpec reads a launch spec given without ptx/source.
func (s *Session) parseSpec(raw json.RawMessage) (*launch.Spec, error) {
	fields := map[string]json.RawMessage{}
	if len(bytes.TrimSpace(raw)) > 0 && string(bytes.TrimSpace(raw)) != "null" {
		if err := json.Unmarshal(raw, &fields); err != nil {
			return nil, fmt.Errorf("must be a JSON object: %v", err)
		}
	}
	if _, ok := fields["ptx"]; ok {
		return nil, fmt.Errorf("\"ptx\" is not allowed here (the source comes with the load message)")
	}
	delete(fields, "source")
	fields["source"] = json.RawMessage(`"-"`)
	b, err := json.Marshal(fields)
	if err != nil {
		return nil, err
	}
	spec, err := launch.ParseSpecLimits(b, launch.Limits{MaxBufferBytes: s.lim.MaxBufferBytes})
	if err != nil {
		return nil, err
	}
	spec.Source = ""
	return spec, nil
}

// newLaunch prepares a launch of the loaded program with spec, within the
// session's state budget: the session's own launch and a comparison's
// alike go through it.
func (s *Session) newLaunch(spec *launch.Spec) (*launch.Launch, *Error) {
	l, err := launch.Prepare(s.prog.prog, spec)
	if err != nil {
		var le *launch.LimitError
		if errors.As(err, &le) {
			return nil, errf("limit", err.Error())
		}
		return nil, errf("bad-request", err.Error())
	}
	m := l.Machine()
	state := stateBytes(m)
	if state > s.lim.MaxStateBytes {
		return nil, errf("limit", fmt.Sprintf("the launch needs %d bytes of registers, shared and local memory for its resident CTAs; the limit is %d", state, s.lim.MaxStateBytes))
	}
	// What the fixed state leaves of the budget bounds the state that
	// grows as the launch runs (call frames, recursion's saved registers
	// and .local memory, cp.async copies in flight): a call or cp.async
	// past it stops the launch with a memory-limit fault.
	m.SetMaxDynamicBytes(max(s.lim.MaxStateBytes-state, 1))
	m.SetMaxPrintfBytes(s.lim.MaxPrintfBytes)
	return l, nil
}

// prepare builds the launch of the loaded program and spec, with a fresh
// history.
func (s *Session) prepare(reason string) *Error {
	l, e := s.newLaunch(s.spec)
	if e != nil {
		return e
	}
	m := l.Machine()
	state := stateBytes(m)
	s.l, s.m = l, m
	s.rec = &recorder{m: m, chk: l.NewChecker()}
	s.mem = newMemStats(s.prog.prog)
	m.AddObserver(s.mem)
	s.trace = nil
	if s.divOn {
		s.trace = newTrace(0, len(s.prog.prog.Ops))
	}
	s.rec.setHooks(nil, s.trace)
	interval := int64(1024) * max(1, state/(256<<10))
	s.h = newHistory(m, s.rec, s.lastOf, interval, s.lim.MaxHistoryBytes, reason)
	s.h.mem = s.mem
	s.h.lowMemory = func() bool { return s.mgr.memoryHigh(0) }
	s.h.pace, s.h.mustPass = s.pace, s.traceEnd
	s.rec.h = s.h
	s.view = clientView{selLin: -1, selW: -1}
	s.sel.cta, s.sel.warp = 0, 0
	s.regFrom = 0
	s.userRegs, s.userPreds = userSlots(m)
	for line := range s.bpLines {
		if len(s.prog.linePCs[line]) == 0 {
			delete(s.bpLines, line)
		}
	}
	for line := range s.bpCUDA {
		if s.cu == nil || len(s.cu.linePCs[line]) == 0 {
			delete(s.bpCUDA, line)
		}
	}
	return nil
}

// stateBytes estimates the fixed machine state of the resident CTAs: per
// warp its register storage (only the registers the kernel can use;
// immediates take none) and a fixed overhead, per CTA its shared and local
// memory (emu.Machine.FixedStateBytes).
func stateBytes(m *emu.Machine) int64 { return m.FixedStateBytes() }

// machineBytes is what a machine holds beyond global memory: the state
// of its resident CTAs (its dynamic state and its printf output, which
// grow as it runs, are added here too), for the session's machine and a comparison's alike.
func machineBytes(m *emu.Machine) int64 {
	return stateBytes(m) + m.DynamicStateBytes() + m.PrintfBytes()
}

// userSlots lists the user registers of the kernel and of the functions
// it can call (as the machine lays them out: see Machine.Reachable).
func userSlots(m *emu.Machine) (regs, preds []int32) {
	p := m.Program()
	reach := make([]bool, len(p.Funcs))
	for i, f := range p.Funcs {
		reach[i] = m.Reachable(f)
	}
	in := func(f int32) bool { return f < 0 || int(f) < len(reach) && reach[f] }
	for i, r := range p.Regs {
		if r.Kind == emu.RegUser && in(r.Func) {
			regs = append(regs, int32(i))
		}
	}
	for i, r := range p.Preds {
		if r.Kind == emu.RegUser && in(r.Func) {
			preds = append(preds, int32(i))
		}
	}
	return regs, preds
}

func (s *Session) loadedMsg(id *int64, remapped bool, fix *launchFixJSON) []byte {
	m, p := s.m, s.prog.prog
	cfg := m.Config()
	threads := cfg.Block[0] * cfg.Block[1] * cfg.Block[2]
	msg := loadedMsg{Type: "loaded", ID: id, Entry: m.Kernel().Name, Grid: cfg.Grid, Block: cfg.Block, Cluster: m.ClusterShape(),
		WarpsPerCTA: (threads + 31) / 32, ResidentCTAs: min(cfg.ResidentCTAs, m.NumCTAs()), TotalCTAs: m.NumCTAs(),
		SharedBytes: p.DynSharedBase + cfg.DynamicSharedBytes, Lines: s.prog.lines,
		Regs: []regJSON{}, Preds: []predJSON{}, Buffers: []bufferJSON{}, Remapped: remapped,
		KernelSig: kernelSig(m.Kernel()), Kernels: s.prog.kernels(), Launch: fix, Scheduling: string(m.Scheduling()), DefaultScheduling: string(p.DefaultScheduling()),
		TargetSM: p.TargetSM()}
	if msg.Lines == nil {
		msg.Lines = []lineJSON{}
	}
	regs, preds := s.pageSlots(0)
	msg.RegCount, msg.PredCount, msg.RegPages = len(s.userRegs), len(s.userPreds), s.regPages()
	for _, r := range regs {
		msg.Regs = append(msg.Regs, regJSON{Slot: int(r), Name: p.Regs[r].Name, Type: p.Regs[r].Type.String()})
	}
	for _, r := range preds {
		msg.Preds = append(msg.Preds, predJSON{Slot: int(r), Name: p.Preds[r].Name})
	}
	for _, b := range s.spec.Buffers {
		if a := s.l.Buffer(b.Name); a != nil {
			msg.Buffers = append(msg.Buffers, bufferJSON{Name: b.Name, Type: b.Type, Count: b.Count, Addr: hex64(a.Base)})
		}
	}
	msg.Symbols = symbolsJSON(s.prog)
	msg.TensorOps = s.tensorOps()
	msg.CFG = s.cfgOf()
	if s.cu != nil {
		msg.CUDA = &cudaLoadedJSON{Options: optionsJSON(s.cu.opt), Lines: s.cudaLinesJSON()}
	}
	return encode(&msg)
}

// tensorOps describes the tensor-core instructions the kernel can reach, for
// the fragment explorer's live values: per operand of the layout, the
// register slots that its elements' Reg indices select.
func (s *Session) tensorOps() []tensorOpJSON {
	out := []tensorOpJSON{}
	p := s.prog.prog
	for _, f := range p.Funcs {
		if !s.m.Reachable(f) {
			continue
		}
		for pc := f.Entry; pc < f.End && pc < len(p.Ops); pc++ {
			op := &p.Ops[pc]
			fi := op.TensorForm()
			if fi == nil {
				continue
			}
			j := tensorOpJSON{PC: pc, Line: s.prog.line(pc), CUDALine: s.cline(pc), Key: fi.Key, Regs: map[string][]int{}}
			for name, rs := range op.TensorSlots() {
				j.Regs[name] = make([]int, len(rs))
				for k, r := range rs {
					j.Regs[name][k] = int(r)
				}
			}
			out = append(out, j)
		}
	}
	return out
}

// symbolsJSON lists the program's variables in .global, .const and .shared.
func symbolsJSON(c *compiled) []symbolJSON {
	out := []symbolJSON{}
	src := c.prog.Src
	for _, g := range c.prog.Globals {
		j := symbolJSON{Name: g.Name, Func: g.Func, Space: g.Space.String(), Type: g.Type.String(), Size: g.Size,
			Line: src.Position(g.Span.Start).Line}
		if g.Space == isa.Global {
			j.Addr = hex64(g.Addr)
		} else {
			j.Offset = g.Addr
		}
		out = append(out, j)
	}
	return out
}

func (s *Session) doReset(id *int64) {
	if e := s.prepare("reset"); e != nil {
		s.drop()
		s.send(errReply(id, e))
		return
	}
	s.send(s.buildState(stateOpts{id: id, full: true, reason: "reset", stale: true})...)
}

// ---- breakpoints and inspection ----

func (s *Session) doBreakpoint(msg *clientMsg) {
	if s.m == nil {
		s.sendErr(msg.ID, "no-program", "load a program first")
		return
	}
	on := msg.On == nil || *msg.On
	var pcs []int
	if msg.CUDALine != nil {
		// A CUDA line's breakpoint is one on each of its instructions.
		line := *msg.CUDALine
		if s.cu == nil {
			s.sendErr(msg.ID, "bad-request", "the program was not compiled from CUDA")
			return
		}
		if pcs = s.cu.linePCs[line]; len(pcs) == 0 {
			s.sendErr(msg.ID, "bad-request", fmt.Sprintf("CUDA line %d has no instruction", line))
			return
		}
		if on {
			s.bpCUDA[line] = true
		} else {
			delete(s.bpCUDA, line)
		}
	} else {
		line := *msg.Line
		if pcs = s.prog.linePCs[line]; len(pcs) == 0 {
			s.sendErr(msg.ID, "bad-request", fmt.Sprintf("line %d has no instruction", line))
			return
		}
		if on {
			s.bpLines[line] = true
		} else {
			delete(s.bpLines, line)
		}
	}
	if !on {
		// An instruction another breakpoint covers keeps its breakpoint.
		set := s.breakpointPCs()
		pcs = slices.DeleteFunc(slices.Clone(pcs), func(pc int) bool { return set[pc] })
	}
	if s.job != nil && s.job.kind == jobRun && s.job.bpsSet {
		for _, pc := range pcs {
			s.m.SetBreakpoint(pc, on)
		}
	}
	s.send(encode(breakpointsMsg{Type: "breakpoints", ID: msg.ID, Lines: sortedKeys(s.bpLines), CUDALines: sortedKeys(s.bpCUDA)}))
}

func sortedKeys(m map[int]bool) []int {
	out := make([]int, 0, len(m))
	for l := range m {
		out = append(out, l)
	}
	sort.Ints(out)
	return out
}

// breakpointPCs is the one place breakpoints become instructions: those
// of the PTX lines and of the CUDA lines with a breakpoint.
func (s *Session) breakpointPCs() map[int]bool {
	set := map[int]bool{}
	for line := range s.bpLines {
		for _, pc := range s.prog.linePCs[line] {
			set[pc] = true
		}
	}
	if s.cu != nil {
		for line := range s.bpCUDA {
			for _, pc := range s.cu.linePCs[line] {
				set[pc] = true
			}
		}
	}
	return set
}

func (s *Session) setMachineBreakpoints() {
	for pc := range s.breakpointPCs() {
		s.m.SetBreakpoint(pc, true)
	}
}

func (s *Session) doInspect(msg *clientMsg) {
	if s.m == nil {
		s.sendErr(msg.ID, "no-program", "load a program first")
		return
	}
	m := s.m
	m.NextWarp() // make the first CTAs resident
	ctas := m.CTAs()
	ci, wi := 0, 0
	if msg.CTA != nil {
		ci = *msg.CTA
	}
	if msg.Warp != nil {
		wi = *msg.Warp
	}
	if ci >= len(ctas) || wi >= len(ctas[ci].Warps) {
		s.sendErr(msg.ID, "bad-request", fmt.Sprintf("no warp %d in resident CTA %d (%d CTAs are resident)", wi, ci, len(ctas)))
		return
	}
	c := ctas[ci]
	w := c.Warps[wi]
	// The descriptor view is checked first: a bad request changes nothing.
	var wv *wgmmaViewJSON
	if msg.WgmmaPC != nil {
		var err error
		if wv, err = s.wgmmaView(*msg.WgmmaPC, c, w); err != nil {
			s.sendErr(msg.ID, "bad-request", err.Error())
			return
		}
	}
	s.sel.cta, s.sel.warp = ci, wi
	if msg.RegPage != nil {
		if *msg.RegPage >= s.regPages() {
			s.sendErr(msg.ID, "bad-request", fmt.Sprintf("regPage %d: the register file has %d pages", *msg.RegPage, s.regPages()))
			return
		}
		s.regFrom = *msg.RegPage
	}
	rj, _, _ := s.regsJSON(w, false, false)
	s.view.selLin, s.view.selW = c.Linear, w.ID
	out := inspectMsg{Type: "inspect", ID: msg.ID, CTA: ci, Linear: c.Linear, Warp: wi, Regs: rj, Divergence: s.divergenceJSON(ci, wi),
		Threads: s.threadsJSON(ci, w), TMA: s.tmaView(ci, w)}
	s.view.threads = encode(out.Threads)
	s.view.tma = encode(out.TMA)
	out.Wgmma = wv
	if mr := msg.Memory; mr != nil {
		var mem []byte
		j := memJSON{Space: mr.Space, Offset: uint64(mr.Offset)}
		switch mr.Space {
		case "global":
			a := s.buffer(msg.ID, mr.Buffer)
			if a == nil {
				return
			}
			mem, j.Buffer = a.Data, a.Name
		case "shared":
			sc := ci
			if mr.CTA != nil {
				sc = *mr.CTA
			}
			if sc < 0 || sc >= len(ctas) {
				s.sendErr(msg.ID, "bad-request", fmt.Sprintf("memory: no resident CTA %d", sc))
				return
			}
			lin := ctas[sc].Linear
			mem, j.CTA = ctas[sc].Shared(), &lin
		}
		if mr.Offset > int64(len(mem)) || mr.Offset+int64(mr.Bytes) > int64(len(mem)) {
			s.sendErr(msg.ID, "bad-request", fmt.Sprintf("memory: range %d+%d is outside the %d bytes of %s", mr.Offset, mr.Bytes, len(mem), mr.Space))
			return
		}
		j.Hex = hexBytes(mem[mr.Offset : mr.Offset+int64(mr.Bytes)])
		out.Memory = &j
	}
	s.send(encode(&out))
}

// buffer returns the global allocation named name, or answers request
// id with an error and returns nil.
func (s *Session) buffer(id *int64, name string) *emu.Alloc {
	for _, x := range s.m.Global.Allocs() {
		if x.Name == name {
			return x
		}
	}
	s.sendErr(id, "bad-request", fmt.Sprintf("memory: no buffer named %q", name))
	return nil
}

// doRead replies with a range of a global buffer at the position shown,
// whatever warps are resident (after the launch ended too: the buffers a
// `done` left out are read this way).
func (s *Session) doRead(msg *clientMsg) {
	if s.m == nil {
		s.sendErr(msg.ID, "no-program", "load a program first")
		return
	}
	mr := msg.Memory
	a := s.buffer(msg.ID, mr.Buffer)
	if a == nil {
		return
	}
	if mr.Offset > int64(len(a.Data)) || mr.Offset+int64(mr.Bytes) > int64(len(a.Data)) {
		s.sendErr(msg.ID, "bad-request", fmt.Sprintf("memory: range %d+%d is outside the %d bytes of %s", mr.Offset, mr.Bytes, len(a.Data), a.Name))
		return
	}
	j := memJSON{Space: "global", Buffer: a.Name, Offset: uint64(mr.Offset), Hex: hexBytes(a.Data[mr.Offset : mr.Offset+int64(mr.Bytes)])}
	s.send(encode(&readMsg{Type: "read", ID: msg.ID, Memory: j, Size: len(a.Data)}))
}

// ---- moving through history ----

// back moves n units of g back from the current position (to firstStep at
// most); it runs as a walk (walkCmd).
func (s *Session) back(g emu.Granularity, n int) error {
	if g == stepSourceLine {
		return s.backSourceLine(n)
	}
	h := s.h
	k := max(h.first, h.cur-int64(n))
	if g != emu.StepWarpInstruction {
		var err error
		if k, err = h.prevBoundary(h.cur, g, n); err != nil {
			return err
		}
	}
	return h.goTo(k)
}

// failHistory ends the program after a history replay failed (a defect:
// the machine is deterministic).
func (s *Session) failHistory(id *int64, err error) {
	s.sendErr(id, "internal", err.Error())
	s.drop()
}
