package sessions

import (
	"cmp"
	"container/list"
	"crypto/sha256"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/ptxplayground/ptxplay/engine/cuda"
	"github.com/ptxplayground/ptxplay/engine/emu"
	"github.com/ptxplayground/ptxplay/engine/launch"
	"github.com/ptxplayground/ptxplay/engine/ptx"
)

// Manager creates sessions and enforces the limits shared by all of them:
// the number of sessions and idle expiry (a janitor goroutine). It also
// caches compiled programs by source hash: Programs are immutable, so
// sessions loading the same source share one.
type Manager struct {
	lim   Limits
	met   Metrics
	log   atomic.Pointer[slog.Logger]
	cache *progCache
	sched *cpuSched
	now   func() time.Time
	cc    atomic.Pointer[cuda.Compiler] // CUDA compiles (cuda.go)
	// maxAccounted is lim.MaxAccountedBytes, read by every session's
	// goroutine (admission and history trimming); atomic so that it can
	// be changed while they run.
	maxAccounted atomic.Int64

	mu       sync.Mutex
	sessions map[*Session]struct{}
	// leaving counts the sessions of the map that were reclaimed and are
	// ending: their places are already given to new clients.
	leaving int
	nextID  uint64
	closed  bool

	// acct is the ledger of the sessions' memory (accountant.go).
	acct accountant
	// trimming: live histories are being shrunk (historyShare).
	trimming atomic.Bool

	quit chan struct{}
	wg   sync.WaitGroup
}

// NewManager returns a manager with lim (zero fields take DefaultLimits)
// reporting to met (nil: nowhere). Close it to stop its janitor and end
// every session.
func NewManager(lim Limits, met Metrics) *Manager { return newManagerClock(lim, met, time.Now) }

// newManagerClock is NewManager with the clock of idleness (lastActive,
// expiry and reclaim); tests give it a fake one.
func newManagerClock(lim Limits, met Metrics, now func() time.Time) *Manager {
	if met == nil {
		met = noMetrics{}
	}
	m := &Manager{lim: lim.withDefaults(), met: met, now: now,
		sessions: map[*Session]struct{}{}, quit: make(chan struct{})}
	m.maxAccounted.Store(m.lim.MaxAccountedBytes)
	m.cache = newProgCache(m.lim.ProgramCache, m.lim.ProgramCacheBytes)
	m.sched = newCPUSched(m.lim.MaxRunningJobs)
	m.wg.Add(1)
	go m.janitor()
	return m
}

// SetLogger sets the logger that receives the sessions' internal errors
// (nil: slog.Default()).
func (m *Manager) SetLogger(l *slog.Logger) { m.log.Store(l) }

func (m *Manager) logger() *slog.Logger {
	if l := m.log.Load(); l != nil {
		return l
	}
	return slog.Default()
}

// sessionPanicked logs a panic of session s's goroutine, while it handled
// a command of type cmd, with its stack, and counts it.
func (m *Manager) sessionPanicked(s *Session, cmd string, p any, stack []byte) {
	m.met.AddPanic()
	m.logger().Error("session panicked", "session", s.id, "command", cmd,
		"panic", fmt.Sprint(p), "stack", string(stack))
}

// Limits returns the limits in force (defaults filled in).
func (m *Manager) Limits() Limits { return m.lim }

// Len returns the number of live sessions (not counting reclaimed ones
// that are still ending).
func (m *Manager) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.sessions) - m.leaving
}

// AccountedBytes is the memory the manager accounts for: every session's
// charge (global memory, machine state and history, comparisons, queued
// client messages and replies) and the program cache.
func (m *Manager) AccountedBytes() int64 { return m.acct.total.Load() + m.cache.size() }

// Live histories are shrunk (Session.relieve) while the accounted memory
// goes above trimAt of MaxAccountedBytes, the largest first, until it is
// back at trimGoal (trimming: between the two); their budgets return to MaxHistoryBytes once it is below
// relaxAt. (Eighths of MaxAccountedBytes.)
const (
	trimAt   = 6
	trimGoal = 5
	relaxAt  = 4
)

// historyShare says how many bytes session s should shed from its history
// now: while the accounted memory is above trimAt, the excess over
// trimGoal is taken from the sessions holding the most (each brought down
// to a common level, water-filling their chargeState). relax: the memory
// is low again and budgets may return to normal.
func (m *Manager) historyShare(s *Session) (shed int64, relax bool) {
	total, limit := m.AccountedBytes(), m.maxAccounted.Load()
	switch {
	case total > limit/8*trimAt:
		m.trimming.Store(true)
	case total <= limit/8*trimGoal:
		m.trimming.Store(false)
	}
	if !m.trimming.Load() {
		return 0, total < limit/8*relaxAt
	}
	excess := total - limit/8*trimGoal
	m.mu.Lock()
	xs := make([]int64, 0, len(m.sessions))
	for x := range m.sessions {
		xs = append(xs, x.ch.get(chargeState))
	}
	m.mu.Unlock()
	slices.SortFunc(xs, func(a, b int64) int { return cmp.Compare(b, a) })
	level := int64(0)
	var sum int64
	for k, x := range xs {
		sum += x
		next := int64(0)
		if k+1 < len(xs) {
			next = xs[k+1]
		}
		if l := (sum - excess) / int64(k+1); l >= next {
			level = max(l, 0)
			break
		}
	}
	return max(0, s.ch.get(chargeState)-level), false
}

// relieveAll asks the sessions to shrink their histories while the
// accounted memory is high (the janitor's tick; sessions that run do it
// themselves after each slice).
func (m *Manager) relieveAll() {
	if m.AccountedBytes() <= m.maxAccounted.Load()/8*trimGoal {
		m.trimming.Store(false)
		return
	}
	m.mu.Lock()
	all := make([]*Session, 0, len(m.sessions))
	for s := range m.sessions {
		all = append(all, s)
	}
	m.mu.Unlock()
	for _, s := range all {
		if shed, _ := m.historyShare(s); shed > 0 {
			s.post(func() { s.account(true) })
		}
	}
}

// memoryHigh reports whether AccountedBytes plus extra is above
// MaxAccountedBytes.
func (m *Manager) memoryHigh(extra int64) bool {
	return m.AccountedBytes()+extra > m.maxAccounted.Load()
}

// NewSession starts a session for a client without an address (tests,
// tools): NewClientSession("").
func (m *Manager) NewSession() (*Session, error) { return m.NewClientSession("") }

// NewClientSession starts a session for one client connection from
// address client (the web layer's key: an IPv4 address, an IPv6 /64). Its
// first outbound message is `hello`. When MaxSessions are live it reclaims
// the place of an idle session (reclaimVictim) for the newcomer; it
// returns ErrBusy when none can be reclaimed, ErrMemoryBusy when the
// accounted memory is above MaxAccountedBytes (render them for the client
// with Frame()).
func (m *Manager) NewClientSession(client string) (*Session, error) {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return nil, ErrClosed
	}
	var victim *Session
	if len(m.sessions)-m.leaving >= m.lim.MaxSessions {
		victim = m.reclaimVictim(client, m.now())
		if victim == nil {
			m.mu.Unlock()
			return nil, ErrBusy
		}
	}
	if m.memoryHigh(0) {
		m.mu.Unlock()
		return nil, ErrMemoryBusy
	}
	if victim != nil {
		victim.leaving = true
		m.leaving++
	}
	m.nextID++
	s := newSession(m, m.nextID)
	s.client = client
	m.sessions[s] = struct{}{}
	n := len(m.sessions) - m.leaving
	m.mu.Unlock()
	if victim != nil {
		victim.reclaim()
		if rm, ok := m.met.(ReclaimMetrics); ok {
			rm.AddReclaimed()
		}
	}
	m.met.SetSessions(n)
	go s.loop()
	return s, nil
}

// ReclaimMetrics is implemented by a Metrics that counts the sessions
// reclaimed for new clients.
type ReclaimMetrics interface{ AddReclaimed() }

// reclaimVictim picks the session whose place a new client from address
// client gets when the server is full (nil: none). First the sessions that
// received no client message for ReclaimIdle: from the address holding
// the most sessions, the one idle the longest. Else, from an address that
// holds at least two sessions more than client's, the session quiet the
// longest if quiet for ReclaimQuiet: the newcomer's address then holds no
// more than that one, so places move towards an even share and never back
// and forth. Called with m.mu held.
func (m *Manager) reclaimVictim(client string, now time.Time) *Session {
	held := map[string]int{}
	for s := range m.sessions {
		if !s.leaving {
			held[s.client]++
		}
	}
	better := func(a, b *Session) bool { // a goes before b
		if b == nil {
			return true
		}
		if ha, hb := held[a.client], held[b.client]; ha != hb {
			return ha > hb
		}
		if la, lb := a.lastActive.Load(), b.lastActive.Load(); la != lb {
			return la < lb
		}
		return a.id < b.id
	}
	pick := func(ok func(*Session) bool) *Session {
		var best *Session
		for s := range m.sessions {
			if !s.leaving && ok(s) && better(s, best) {
				best = s
			}
		}
		return best
	}
	idle := now.Add(-m.lim.ReclaimIdle).UnixNano()
	if v := pick(func(s *Session) bool { return s.lastActive.Load() <= idle }); v != nil {
		return v
	}
	quiet := now.Add(-m.lim.ReclaimQuiet).UnixNano()
	mine := held[client]
	return pick(func(s *Session) bool { return held[s.client] >= mine+2 && s.lastActive.Load() <= quiet })
}

// Close ends every session and stops the janitor; it waits for them.
func (m *Manager) Close() {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return
	}
	m.closed = true
	all := make([]*Session, 0, len(m.sessions))
	for s := range m.sessions {
		all = append(all, s)
	}
	m.mu.Unlock()
	close(m.quit)
	for _, s := range all {
		s.Close()
	}
	m.wg.Wait()
}

func (m *Manager) remove(s *Session) {
	m.mu.Lock()
	if _, ok := m.sessions[s]; ok && s.leaving {
		m.leaving--
	}
	delete(m.sessions, s)
	n := len(m.sessions) - m.leaving
	m.mu.Unlock()
	m.met.SetSessions(n)
}

// janitor expires idle sessions.
func (m *Manager) janitor() {
	defer m.wg.Done()
	every := min(max(m.lim.IdleTimeout/4, time.Millisecond), time.Second)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-m.quit:
			return
		case <-t.C:
			m.sweep(m.now())
			m.relieveAll()
		}
	}
}

// sweep expires the sessions idle since before now - IdleTimeout, and
// those that started before now - NoProgramTimeout and have not loaded a
// program.
func (m *Manager) sweep(now time.Time) {
	limit := now.Add(-m.lim.IdleTimeout).UnixNano()
	noProg := now.Add(-m.lim.NoProgramTimeout).UnixNano()
	m.mu.Lock()
	var idle, empty []*Session
	for s := range m.sessions {
		switch {
		case s.lastActive.Load() < limit:
			idle = append(idle, s)
		case !s.loaded.Load() && s.started < noProg:
			empty = append(empty, s)
		}
	}
	m.mu.Unlock()
	for _, s := range idle {
		s.expire(endIdle)
	}
	for _, s := range empty {
		s.expire(endNoProgram)
	}
}

// ---- compiled programs ----

// compiled is a program with the tables sessions derive from it, computed
// once (Source's lazy line index is built here, before sharing, so that
// concurrent sessions only read it).
type compiled struct {
	prog   *emu.Program // nil when the source has errors
	diags  []ptx.Message
	pcLine []int32
	pcCol  []int32
	pcOp   []string // the opcode with its modifiers, as written
	// grows: the program has calls or cp.async copies, whose launches
	// grow their machine's state as they run (emu's dynamic state).
	grows   bool
	lines   []lineJSON
	linePCs map[int][]int

	kernelsOnce sync.Once
	kernelList  []launch.Kernel

	size int64 // estimated bytes (sizeOf)
}

// sizeOf estimates the memory a compiled program holds: its source and
// syntax tree, the lowered code and tables, the images of its .global and
// .const segments and the session tables.
func (c *compiled) sizeOf(source string) int64 {
	n := int64(len(source))*2 + int64(len(c.diags))*128
	for _, d := range c.diags {
		n += int64(len(d.Message))
	}
	p := c.prog
	if p == nil {
		return n
	}
	// The syntax tree: the parser's chunks (exact), and its declarations,
	// names and lists (a multiple of the source).
	n += p.Module.SlabBytes + int64(len(source))*4
	n += int64(len(p.Ops))*int64(unsafe.Sizeof(emu.Op{})) + int64(len(p.Spans))*int64(unsafe.Sizeof(ptx.Span{}))
	n += int64(len(p.Regs)+len(p.Preds))*int64(unsafe.Sizeof(emu.RegInfo{})+16) + int64(len(p.Consts))*(int64(unsafe.Sizeof(emu.ConstReg{}))+256)
	n += int64(len(p.Funcs))*256 + int64(len(p.Globals))*int64(unsafe.Sizeof(emu.Symbol{})+16)
	for _, t := range p.Tables {
		n += int64(len(t)) * 4
	}
	n += int64(cap(p.MemOperands)) * int64(unsafe.Sizeof(emu.MemOperand{}))
	n += int64(cap(p.Operands)) * 24
	for _, o := range p.Operands {
		n += int64(cap(o)) * int64(unsafe.Sizeof(emu.Operand{}))
	}
	n += int64(len(p.GlobalImg) + len(p.ConstImg))
	// pcLine, pcCol, pcOp (and its strings), lines and linePCs.
	n += int64(len(c.pcLine)) * (4 + 4 + 16 + 16 + 8 + 8)
	n += int64(len(c.lines)) * 64
	// What the terms above miss (allocator size classes, map buckets,
	// the Program's smaller tables): measured within 10% on the shapes of
	// TestProgramSizeEstimate, so a quarter more keeps the estimate above
	// the retained heap and below twice it.
	return n + n/4
}

// kernels lists the program's kernels and their parameters (computed once,
// shared by the sessions of the program).
func (c *compiled) kernels() []launch.Kernel {
	c.kernelsOnce.Do(func() {
		c.kernelList = launch.Kernels(c.prog)
		if c.kernelList == nil {
			c.kernelList = []launch.Kernel{}
		}
	})
	return c.kernelList
}

func compile(source string) *compiled {
	src := ptx.NewSource("", []byte(source))
	prog, diags := emu.CompileSource(src)
	c := &compiled{prog: prog, diags: make([]ptx.Message, 0, len(diags))}
	defer func() { c.size = c.sizeOf(source) }()
	for _, d := range diags {
		c.diags = append(c.diags, d.ToMessage(src))
	}
	src.Position(0)
	if prog == nil {
		return c
	}
	c.pcLine = make([]int32, len(prog.Spans))
	c.pcCol = make([]int32, len(prog.Spans))
	c.pcOp = make([]string, len(prog.Spans))
	c.linePCs = map[int][]int{}
	for pc, sp := range prog.Spans {
		p := src.Position(sp.Start)
		c.pcLine[pc], c.pcCol[pc] = int32(p.Line), int32(p.Col)
		c.pcOp[pc] = opcodeAt(source, int(sp.Start), int(sp.End))
		c.grows = c.grows || strings.HasPrefix(c.pcOp[pc], "call") || strings.HasPrefix(c.pcOp[pc], "cp.async")
		c.linePCs[p.Line] = append(c.linePCs[p.Line], pc)
	}
	for pc := range prog.Spans {
		l := int(c.pcLine[pc])
		if pcs := c.linePCs[l]; pcs[0] == pc {
			c.lines = append(c.lines, lineJSON{Line: l, PCs: pcs})
		}
	}
	sortLines(c.lines)
	return c
}

func sortLines(ls []lineJSON) {
	for i := 1; i < len(ls); i++ {
		for j := i; j > 0 && ls[j].Line < ls[j-1].Line; j-- {
			ls[j], ls[j-1] = ls[j-1], ls[j]
		}
	}
}

// opcodeAt returns the opcode of the instruction source[start:end]: its
// first word after a guard ("@%p", "@!%p"), modifiers included.
func opcodeAt(source string, start, end int) string {
	if start < 0 || end > len(source) || start >= end {
		return ""
	}
	words := strings.Fields(source[start:end])
	for len(words) > 0 && strings.HasPrefix(words[0], "@") {
		words = words[1:]
	}
	if len(words) == 0 {
		return ""
	}
	op := strings.TrimSuffix(words[0], ";")
	return op[:min(len(op), maxOpcode)]
}

// maxOpcode bounds an opcode as the wire carries it: long enough for the
// longest PTX spelling (a multicast tensor copy with a cache hint is over
// 100 characters), short enough that a malformed word stays small.
const maxOpcode = 160

// op returns the opcode of pc ("" if none).
func (c *compiled) op(pc int) string {
	if pc < 0 || pc >= len(c.pcOp) {
		return ""
	}
	return c.pcOp[pc]
}

// line returns the source line of pc (0 if none).
func (c *compiled) line(pc int) int {
	if pc < 0 || pc >= len(c.pcLine) {
		return 0
	}
	return int(c.pcLine[pc])
}

type progCache struct {
	mu       sync.Mutex
	max      int
	maxBytes int64
	bytes    int64
	ll       *list.List // of *cacheEntry, most recent first
	m        map[[32]byte]*list.Element
}

type cacheEntry struct {
	key [32]byte
	c   *compiled
}

func newProgCache(max int, maxBytes int64) *progCache {
	return &progCache{max: max, maxBytes: maxBytes, ll: list.New(), m: map[[32]byte]*list.Element{}}
}

// size returns the estimated bytes of the cached programs.
func (pc *progCache) size() int64 {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	return pc.bytes
}

// get returns the compiled form of source, compiling it on a miss. The
// cache keeps at most max programs and maxBytes of them (least recently
// used first out); a program larger than maxBytes is not kept.
func (pc *progCache) get(source string) *compiled {
	key := sha256.Sum256([]byte(source))
	pc.mu.Lock()
	if e, ok := pc.m[key]; ok {
		pc.ll.MoveToFront(e)
		c := e.Value.(*cacheEntry).c
		pc.mu.Unlock()
		return c
	}
	pc.mu.Unlock()
	c := compile(source)
	pc.mu.Lock()
	defer pc.mu.Unlock()
	if e, ok := pc.m[key]; ok { // compiled concurrently
		pc.ll.MoveToFront(e)
		return e.Value.(*cacheEntry).c
	}
	if c.size > pc.maxBytes {
		return c
	}
	pc.m[key] = pc.ll.PushFront(&cacheEntry{key: key, c: c})
	pc.bytes += c.size
	for pc.ll.Len() > pc.max || pc.bytes > pc.maxBytes {
		e := pc.ll.Back()
		pc.ll.Remove(e)
		ce := e.Value.(*cacheEntry)
		pc.bytes -= ce.c.size
		delete(pc.m, ce.key)
	}
	return c
}
