package sessions

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/ptxplayground/ptxplay/engine/cuda"
	"github.com/ptxplayground/ptxplay/engine/emu"
)

// CUDA in a session (docs/protocol.md, "CUDA"): `compile` compiles CUDA
// C++ to PTX with the manager's cuda.Compiler and answers `compiled`;
// `load` with "cuda" compiles, then loads the PTX and keeps its line map,
// so that states, breakpoints and the "source-line" granularity name CUDA
// lines. Compiles never run on the session goroutine: they wait in the
// Compiler's bounded queue on a goroutine of their own, holding no CPU
// token, so the steps of every session go on while clang runs.

// SetCompiler sets the CUDA compiler the sessions share (nil: none, and
// `compile` answers that CUDA is not available here). Call it before the
// first session starts.
func (m *Manager) SetCompiler(c *cuda.Compiler) { m.cc.Store(c) }

// Compiler returns the CUDA compiler of the sessions (nil: none).
func (m *Manager) Compiler() *cuda.Compiler { return m.cc.Load() }

// helloCUDA tells the client whether CUDA compiles here.
func (m *Manager) helloCUDA() helloCUDA {
	h := helloCUDA{Arches: cuda.Arches, DefaultArch: cuda.DefaultArch}
	cc := m.Compiler()
	switch {
	case cc == nil:
		h.Message = "this server does not compile CUDA; PTX works"
	default:
		if err := cc.Available(); err != nil {
			h.Message = err.Error()
		} else {
			h.Available = true
		}
	}
	return h
}

// cudaJSON is the CUDA source of a compile or load and its options. Opt
// is the optimisation level (0..3, default 2), Arch the target (default
// sm_80).
type cudaJSON struct {
	Source   string `json:"source"`
	Arch     string `json:"arch,omitempty"`
	Opt      *int   `json:"opt,omitempty"`
	FastMath bool   `json:"fastMath,omitempty"`
}

func (c *cudaJSON) options() cuda.Options {
	o := cuda.Options{Arch: c.Arch, Opt: 2, FastMath: c.FastMath}
	if c.Opt != nil {
		o.Opt = *c.Opt
	}
	return o
}

// cudaOptionsJSON are the options a compile ran with (normalised).
type cudaOptionsJSON struct {
	Arch     string `json:"arch"`
	Opt      int    `json:"opt"`
	FastMath bool   `json:"fastMath"`
}

func optionsJSON(o cuda.Options) cudaOptionsJSON {
	return cudaOptionsJSON{Arch: o.Arch, Opt: o.Opt, FastMath: o.FastMath}
}

// compiledMsg answers `compile` (and comes first in the reply to a load
// with "cuda"). ok: PTX came out without errors. ptx: the PTX ("" when
// the source has errors). diagnostics: clang's messages with line:col on
// the CUDA source. ptxToCuda[i]: the CUDA line of PTX line i+1 (0: none),
// the CUDA↔PTX line map. error: the compile did not run or finish (then
// nothing else is set but options when they were valid).
type compiledMsg struct {
	Type        string            `json:"type"`
	ID          *int64            `json:"id,omitempty"`
	OK          bool              `json:"ok"`
	PTX         string            `json:"ptx"`
	Diagnostics []cuda.Diagnostic `json:"diagnostics"`
	Options     cudaOptionsJSON   `json:"options"`
	PTXToCUDA   []int             `json:"ptxToCuda"`
	Cached      bool              `json:"cached"`
	// Refused: the source was refused before clang ran (an #include of
	// anything but the prelude and clang's CUDA headers).
	Refused    bool              `json:"refused,omitempty"`
	DurationMs float64           `json:"durationMs"`
	Error      *compileErrorJSON `json:"error,omitempty"`
}

// compileErrorJSON says why a compile gave no result: code
// "not-installed" (clang is missing; message says how to install it),
// "busy" (the compile queue is full), "limit" (limit says which: "cpu",
// "memory", "output", "wall", "source", "log", "ptx"), "cancelled" (a
// newer compile of the session replaced it), "bad-request" (bad options).
type compileErrorJSON struct {
	Code    compileErrorCode `json:"code"`
	Limit   string           `json:"limit,omitempty"`
	Message string           `json:"message"`
}

// compileErrorCode names a compile error; compileErrorCodes lists them
// (the generated TypeScript union CompileErrorCode).
type compileErrorCode string

const (
	compileNotInstalled compileErrorCode = "not-installed"
	compileBusy         compileErrorCode = "busy"
	compileLimit        compileErrorCode = "limit"
	compileCancelled    compileErrorCode = "cancelled"
	compileBadRequest   compileErrorCode = "bad-request"
)

var compileErrorCodes = []compileErrorCode{compileNotInstalled, compileBusy, compileLimit, compileCancelled, compileBadRequest}

// compileOutcome is a finished compile.
type compileOutcome struct {
	msg compiledMsg
	res *cuda.Result // nil unless OK
	req *cudaJSON
}

// startCompile cancels the session's compile in flight, if any (it is
// answered "cancelled"), and compiles req on a goroutine of its own; done
// gets the outcome there (the compiled message is built but not sent).
func (s *Session) startCompile(id *int64, req *cudaJSON, done func(*compileOutcome)) {
	s.stopCompile()
	ctx, cancel := context.WithCancel(context.Background())
	s.ccCancel = cancel
	cc := s.mgr.Compiler()
	maxPTX := s.lim.MaxSourceBytes
	go func() {
		defer cancel()
		done(compileOnce(ctx, cc, id, req, maxPTX))
	}()
}

// stopCompile cancels the compile in flight, if any.
func (s *Session) stopCompile() {
	if s.ccCancel != nil {
		s.ccCancel()
		s.ccCancel = nil
	}
}

// compileOnce runs one compile and builds its reply.
func compileOnce(ctx context.Context, cc *cuda.Compiler, id *int64, req *cudaJSON, maxPTX int) *compileOutcome {
	out := &compileOutcome{req: req, msg: compiledMsg{Type: "compiled", ID: id, Diagnostics: []cuda.Diagnostic{}, PTXToCUDA: []int{}}}
	fail := func(code compileErrorCode, limit, msg string) *compileOutcome {
		out.msg.Error = &compileErrorJSON{Code: code, Limit: limit, Message: msg}
		return out
	}
	opt, err := req.options().Normalize()
	if err != nil {
		return fail(compileBadRequest, "", err.Error())
	}
	out.msg.Options = optionsJSON(opt)
	if cc == nil {
		return fail(compileNotInstalled, "", cuda.ErrNotInstalled.Error())
	}
	t0 := time.Now()
	res, err := cc.Compile(ctx, req.Source, opt)
	if errors.Is(err, context.Canceled) && ctx.Err() == nil {
		// Another session's identical compile, which this one shared,
		// was cancelled: compile again.
		res, err = cc.Compile(ctx, req.Source, opt)
	}
	out.msg.DurationMs = float64(time.Since(t0).Microseconds()) / 1000
	var le *cuda.LimitError
	switch {
	case err == nil:
	case ctx.Err() != nil:
		return fail(compileCancelled, "", "a newer compile replaced this one")
	case errors.Is(err, cuda.ErrNotInstalled):
		return fail(compileNotInstalled, "", err.Error())
	case errors.Is(err, cuda.ErrBusy):
		return fail(compileBusy, "", err.Error())
	case errors.As(err, &le):
		return fail(compileLimit, le.Limit, err.Error())
	default:
		return fail(compileBadRequest, "", err.Error())
	}
	if res.Diagnostics != nil {
		out.msg.Diagnostics = res.Diagnostics
	}
	out.msg.Cached, out.msg.Refused = res.Cached, res.Refused
	if !res.OK() {
		return out
	}
	if len(res.PTX) > maxPTX {
		return fail(compileLimit, "ptx", fmt.Sprintf("the PTX is %d bytes; the most a session loads is %d", len(res.PTX), maxPTX))
	}
	out.msg.OK, out.msg.PTX = true, res.PTX
	lines := res.Map.Lines()
	out.msg.PTXToCUDA = make([]int, len(lines))
	for i, l := range lines {
		out.msg.PTXToCUDA[i] = l.Line
	}
	out.res = res
	return out
}

// doCompile answers `compile`: the reply is sent from the compile's own
// goroutine (the session goes on meanwhile).
func (s *Session) doCompile(msg *clientMsg) {
	s.startCompile(msg.ID, msg.CUDA, func(o *compileOutcome) {
		s.emit(encode(o.msg), false)
	})
}

// cudaLoad is a load with "cuda" waiting for its compile: the session
// handles no other message until it has finished (loop).
type cudaLoad struct {
	msg  *clientMsg
	done chan *compileOutcome
}

// startCUDALoad compiles the load's CUDA; the load goes on in finishCUDALoad.
func (s *Session) startCUDALoad(msg *clientMsg) {
	cl := &cudaLoad{msg: msg, done: make(chan *compileOutcome, 1)}
	s.cuLoad = cl
	s.startCompile(msg.ID, msg.CUDA, func(o *compileOutcome) { cl.done <- o })
}

// finishCUDALoad sends the compile's outcome and, when it gave PTX, loads it.
func (s *Session) finishCUDALoad(cl *cudaLoad, o *compileOutcome) {
	s.ccCancel = nil
	s.send(encode(o.msg))
	if o.res == nil {
		if o.msg.Error == nil {
			// The source has errors: the loaded program stays.
			return
		}
		s.sendErr(cl.msg.ID, string(o.msg.Error.Code), o.msg.Error.Message)
		return
	}
	ptxText := o.res.PTX
	cl.msg.Source = &ptxText
	s.doLoadCUDA(cl.msg, &cudaInfo{req: *o.req, opt: o.res.Options, sm: o.res.Map})
}

// cudaInfo is the CUDA a session's program was compiled from.
type cudaInfo struct {
	req cudaJSON
	opt cuda.Options
	sm  *cuda.SourceMap
	// pcLine[pc]: the CUDA line of the instruction (0: none); linePCs:
	// the pcs of each CUDA line.
	pcLine  []int32
	linePCs map[int][]int
}

// bind computes the per-pc tables for the loaded program.
func (ci *cudaInfo) bind(c *compiled) {
	ci.pcLine = make([]int32, len(c.pcLine))
	ci.linePCs = map[int][]int{}
	for pc, pl := range c.pcLine {
		if loc, ok := ci.sm.CUDA(int(pl)); ok {
			ci.pcLine[pc] = int32(loc.Line)
			ci.linePCs[loc.Line] = append(ci.linePCs[loc.Line], pc)
		}
	}
}

// cline is the CUDA line of pc (0 without CUDA or where it has none).
func (s *Session) cline(pc int) int {
	if s.cu == nil || pc < 0 || pc >= len(s.cu.pcLine) {
		return 0
	}
	return int(s.cu.pcLine[pc])
}

// cudaLinesJSON lists the CUDA lines with their pcs, ascending.
func (s *Session) cudaLinesJSON() []lineJSON {
	out := make([]lineJSON, 0, len(s.cu.linePCs))
	for l, pcs := range s.cu.linePCs {
		out = append(out, lineJSON{Line: l, PCs: pcs})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Line < out[j].Line })
	return out
}

// cudaLoadedJSON (loaded.cuda): the program came from CUDA compiled with
// options; lines are the CUDA lines that have instructions, with their pcs.
type cudaLoadedJSON struct {
	Options cudaOptionsJSON `json:"options"`
	Lines   []lineJSON      `json:"lines"`
}

// ---- the "source-line" granularity ----

// stepSourceLine is the granularity "source-line": the selected warp
// advances until its CUDA line changes (positions where it is at an
// instruction without a CUDA line do not count as a change).
const stepSourceLine = 0xff

// selLine is the CUDA line of the selected warp at the machine's position:
// 0 when its pc has none, -1 when the warp has exited or there is none.
func (s *Session) selLine() int {
	s.m.NextWarp() // makes the first CTAs resident at the launch's start, as any view does
	w := s.selected()
	if w == nil || w.PC() < 0 {
		return -1
	}
	return s.cline(w.PC())
}

// selLines returns the selected warp's CUDA line (selLine) at each
// position lo..hi of the history (out[k-lo]), replaying from lo; the
// machine is left at hi.
func (s *Session) selLines(lo, hi int64) ([]int, error) {
	h := s.h
	if err := h.goTo(lo); err != nil {
		return nil, err
	}
	out := make([]int, 1, hi-lo+1)
	out[0] = s.selLine()
	trace := h.rec.trace
	h.rec.setHooks(func(*emu.StepInfo) { out = append(out, s.selLine()) }, trace)
	h.rec.replay = true
	err := h.replay(hi)
	h.rec.replay = false
	h.rec.setHooks(nil, trace)
	if err != nil {
		return nil, err
	}
	h.cur = hi
	if lr, ok := h.rec.last(h.lastOf); ok {
		h.last = lr
	}
	if st := h.stopAt(hi); st != nil {
		h.last = st.last
		if err := h.applyTail(st.tail); err != nil {
			return nil, err
		}
	}
	if int64(len(out)) != hi-lo+1 {
		return nil, errReplay
	}
	return out, nil
}

// backSourceLine goes back n source lines: each time to the latest
// position before the current one where the selected warp entered a CUDA
// line (sourceLineStart), so that backs retrace "source-line" steps.
// Lines are read from replays of growing windows before the position.
func (s *Session) backSourceLine(n int) error {
	h := s.h
	for ; n > 0 && h.cur > h.first; n-- {
		p := h.cur
		target := int64(-1)
		for w := sourceLineWindow; target < 0; w *= 2 {
			lo := max(h.first, p-w)
			v, err := s.selLines(lo, p)
			if err != nil {
				return err
			}
			target = sourceLineStart(v, lo, lo == h.first)
		}
		if err := h.goTo(target); err != nil {
			return err
		}
	}
	return nil
}

// sourceLineWindow is the first window backSourceLine replays.
var sourceLineWindow = int64(1024)

// sourceLineStart finds in v (the selected warp's line at positions lo..
// lo+len(v)-1, the last being the current one) the latest position before
// the current one where a source line starts: where the line becomes one
// other than the last non-zero line before it (0s, instructions without a
// line, do not count), or the first position of the history. A
// "source-line" step from a start stops at the next start. -1 when v does
// not reach back far enough to tell (atFirst: lo is the history's first
// position).
func sourceLineStart(v []int, lo int64, atFirst bool) int64 {
	for k := len(v) - 2; k >= 0; k-- {
		if k == 0 && atFirst {
			return lo
		}
		if v[k] == 0 {
			continue
		}
		j := k - 1
		for j >= 0 && v[j] == 0 {
			j--
		}
		if j < 0 {
			if atFirst {
				return lo + int64(k)
			}
			return -1
		}
		if v[j] != v[k] {
			return lo + int64(k)
		}
	}
	return -1
}
