package launch

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/ptxplayground/ptxplay/engine/analysis"
	"github.com/ptxplayground/ptxplay/engine/emu"
	"github.com/ptxplayground/ptxplay/engine/isa"
	"github.com/ptxplayground/ptxplay/engine/ptx"
)

// Compile parses and lowers one PTX file: exactly what `ptxplay check`
// does. prog is nil when there are errors; diags holds every diagnostic
// (errors and warnings) in source order.
func Compile(name string, text []byte) (prog *emu.Program, src *ptx.Source, diags []ptx.Diagnostic) {
	src = ptx.NewSource(name, text)
	prog, diags = emu.CompileSource(src)
	return prog, src, diags
}

// Launch is a prepared launch: a machine with its buffers allocated and
// initialised and its parameters set, ready to Run or to be stepped.
type Launch struct {
	spec  *Spec
	prog  *emu.Program
	m     *emu.Machine
	bufs  []*emu.Alloc
	types []isa.Type
}

// Prepare builds the machine for s on prog: it picks the kernel, allocates
// the buffers in spec order (each 256-byte aligned, zero-filled, then
// initialised) and packs the parameters, checking their number and sizes
// against the kernel's parameters.
func Prepare(prog *emu.Program, s *Spec) (*Launch, error) {
	lim := DefaultLimits
	if l, ok := s.CheckedLimits(); ok {
		lim = l
	}
	if err := s.Validate(lim); err != nil {
		return nil, err
	}
	fn, err := resolveEntry(prog, s.Entry)
	if err != nil {
		return nil, err
	}
	if err := CheckGlobalMemory(prog, s, lim); err != nil {
		return nil, err
	}
	m, err := emu.NewMachine(prog, fn.Name, emu.Config{
		Grid:                s.Grid,
		Block:               s.Block,
		Cluster:             s.Cluster,
		DynamicSharedBytes:  s.DynamicSharedBytes,
		MaxWarpInstructions: s.MaxWarpInstructions,
		AllocSlack:          s.AllocSlack(),
		Scheduling:          emu.Scheduling(s.Scheduling),
	})
	if err != nil {
		return nil, err
	}
	l := &Launch{spec: s, prog: prog, m: m}
	for i := range s.Buffers {
		b := &s.Buffers[i]
		t, _ := lookupType(b.Type)
		a := m.Global.Alloc(b.Name, b.Count*t.Size(), 256)
		if err := fillBuffer(b, t, a.Data); err != nil {
			return nil, fmt.Errorf("%s: init: %v", bufWhere(i, b.Name), err)
		}
		l.bufs = append(l.bufs, a)
		l.types = append(l.types, t)
	}
	if err := l.packParams(); err != nil {
		return nil, err
	}
	return l, nil
}

// LimitError is a launch that asks for more than its limits allow (as
// opposed to an invalid one).
type LimitError struct{ Msg string }

func (e *LimitError) Error() string { return e.Msg }

// GlobalBytes is the global memory a launch of prog with s allocates: the
// module's .global variables and the spec's buffers.
func GlobalBytes(prog *emu.Program, s *Spec) int64 {
	n := int64(max(prog.GlobalSize, len(prog.GlobalImg)))
	for _, b := range s.Buffers {
		if t, err := lookupType(b.Type); err == nil && b.Count > 0 {
			n += int64(b.Count) * int64(t.Size())
		}
	}
	for _, p := range s.Params {
		if p.TensorMap != nil {
			n += isa.TensorMapBytes // a .u64 tensor-map parameter's map
		}
	}
	return n
}

// CheckGlobalMemory checks that the module's .global variables and the
// spec's buffers fit lim.MaxBufferBytes together (a *LimitError if not),
// before anything is allocated.
func CheckGlobalMemory(prog *emu.Program, s *Spec, lim Limits) error {
	globals := int64(max(prog.GlobalSize, len(prog.GlobalImg)))
	total := GlobalBytes(prog, s)
	if total <= lim.MaxBufferBytes {
		return nil
	}
	return &LimitError{Msg: fmt.Sprintf("the module's .global variables (%d bytes) and the buffers (%d bytes) need %d bytes of global memory; the limit is %d bytes",
		globals, total-globals, total, lim.MaxBufferBytes)}
}

// packParams writes the spec's parameters into the kernel parameter buffer,
// after the checks of paramBlocking (shared with Check).
func (l *Launch) packParams() error {
	k := l.m.Kernel()
	ps := l.spec.Params
	if len(ps) != len(k.Params) {
		return errors.New(paramCountMessage(k, len(ps)))
	}
	bufBytes := func(name string) (int64, bool) {
		if j := l.bufferIndex(name); j >= 0 {
			return int64(len(l.bufs[j].Data)), true
		}
		return 0, false
	}
	buf := l.m.Params()
	for i, p := range ps {
		if msg := paramBlocking(k, i, p, bufBytes); msg != "" {
			return errors.New(msg)
		}
		kp := k.Params[i]
		dst := buf[kp.Offset : kp.Offset+kp.Size]
		switch {
		case p.TensorMap != nil:
			a := l.bufs[l.bufferIndex(p.TensorMap.Buffer)]
			tm, err := p.TensorMap.Map(a.Base)
			if err != nil {
				return fmt.Errorf("%s: %v", paramWhere(k, i), err)
			}
			enc := tm.Encode()
			if kp.Size == isa.TensorMapBytes {
				copy(dst, enc[:])
				break
			}
			// A .u64 parameter: the map lives in global memory.
			h := l.m.Global.Alloc("tensormap "+kp.Name, isa.TensorMapBytes, 128)
			copy(h.Data, enc[:])
			putElem(dst, 0, 8, h.Base)
		case p.Buffer != "":
			a := l.bufs[l.bufferIndex(p.Buffer)]
			putElem(dst, 0, 8, a.Base+uint64(p.Offset))
		case p.Bytes != nil:
			raw, _ := decodeHex(*p.Bytes)
			copy(dst, raw)
		default:
			t, _ := lookupType(p.Type)
			for j, v := range p.Values {
				x, _ := encodeValue(v, t)
				putElem(dst, j, t.Size(), x)
			}
		}
	}
	return nil
}

// describeParam renders a kernel parameter as ".u64 %name" style text.
func describeParam(p emu.Param) string {
	if p.Type.Size() > 0 && p.Size != p.Type.Size() {
		return fmt.Sprintf(".%s %s[%d] (%d bytes)", p.Type, p.Name, p.Size/p.Type.Size(), p.Size)
	}
	return fmt.Sprintf(".%s %s", p.Type, p.Name)
}

func (l *Launch) bufferIndex(name string) int {
	for i, b := range l.spec.Buffers {
		if b.Name == name {
			return i
		}
	}
	return -1
}

// Machine returns the prepared machine (run it, or step it).
func (l *Launch) Machine() *emu.Machine { return l.m }

// Spec returns the launch's spec.
func (l *Launch) Spec() *Spec { return l.spec }

// Program returns the program being launched.
func (l *Launch) Program() *emu.Program { return l.prog }

// Buffer returns the allocation of the named buffer, or nil.
func (l *Launch) Buffer(name string) *emu.Alloc {
	if i := l.bufferIndex(name); i >= 0 {
		return l.bufs[i]
	}
	return nil
}

// Run runs the machine until the launch completes, faults, spends its
// budget or ctx ends (brkpt instructions and breakpoints do not stop it),
// and returns the result. The error is ctx's when the run was cut short.
func (l *Launch) Run(ctx context.Context) (*Result, error) {
	for {
		r := l.m.Run(ctx)
		if r == emu.StopBreakpoint {
			if suspect, _ := l.m.SharedFilterSuspect(); !suspect {
				continue
			}
			// The shared-memory phase filter stopped the run at a
			// suspect access (see RunWith): it goes no further.
			return l.Result(), errors.New("interrupted")
		}
		if r == emu.StopInterrupted {
			if err := ctx.Err(); err != nil {
				return l.Result(), err
			}
			return l.Result(), errors.New("interrupted")
		}
		return l.Result(), nil
	}
}

// Run prepares s on prog (see Prepare) and runs it to the end.
func Run(ctx context.Context, prog *emu.Program, s *Spec) (*Result, error) {
	l, err := Prepare(prog, s)
	if err != nil {
		return nil, err
	}
	return l.Run(ctx)
}

// Status of a result.
type Status string

const (
	StatusOK          Status = "ok"          // every thread exited
	StatusFault       Status = "fault"       // a fault stopped the launch
	StatusLimit       Status = "limit"       // maxWarpInstructions was spent
	StatusInterrupted Status = "interrupted" // stopped from outside (not finished)
)

// Result is the outcome of a launch: its status, the fault if any, the
// contents of the buffers (in spec order) and the work done.
type Result struct {
	Status Status
	// Message explains a "limit" or "interrupted" status.
	Message string
	Fault   *FaultInfo
	Buffers []BufferData
	Stats   emu.Stats
	// Memory is the per-line memory analysis (bank conflicts and
	// coalescing), when one was run: see analysis.Aggregator. Nil leaves
	// it out of the JSON.
	Memory []analysis.LineStats
	// Warnings are the race and memory checker's findings, when it ran
	// (Checked); WarningsDropped counts the occurrences of warnings beyond
	// analysis.MaxWarnings. See analysis.Checker.
	Checked         bool
	Warnings        []analysis.Warning
	WarningsDropped int64
	// Printf is the launch's printf output, one entry per thread's call
	// in execution order (emu.Machine.Printf), and PrintfDropped the
	// lines dropped past the launch's limit (PrintfLimit bytes).
	Printf        []PrintfLine
	PrintfDropped int64
	PrintfLimit   int64
}

// PrintfLine is one thread's printf output with its source line.
type PrintfLine struct {
	emu.PrintfLine
	Line int // source line of the call (0 if unknown)
}

// FaultInfo is a fault mapped back to the source.
type FaultInfo struct {
	Kind    string
	Message string
	// PC is the faulting instruction (-1 if none); Line and Col its
	// position in the source (0 if none) and Instruction the text of its
	// line, trimmed.
	PC          int
	Line, Col   int
	Instruction string
	Address     uint64
	HasAddress  bool
	CTA, Thread [3]int
	Warp, Lane  int
}

// BufferData is a buffer's contents after the launch. Data aliases the
// machine's memory: copy it to keep a snapshot while the machine runs on.
type BufferData struct {
	Name string
	Type string // the element type as named in the spec
	Data []byte
	elem isa.Type
}

// Len returns the number of elements.
func (b *BufferData) Len() int { return len(b.Data) / b.elem.Size() }

// Bits returns the raw bits of element i.
func (b *BufferData) Bits(i int) uint64 { return getElem(b.Data, i, b.elem.Size()) }

// BitsHex returns the raw bits of element i as lowercase hex of the
// element's width.
func (b *BufferData) BitsHex(i int) string { return string(appendBitsHex(nil, b.Bits(i), b.elem)) }

// ValueJSON returns element i as JSON: a number, or "NaN", "Inf", "-Inf"
// (as JSON strings).
func (b *BufferData) ValueJSON(i int) string { return string(appendValueJSON(nil, b.Bits(i), b.elem)) }

// Result reports the launch's current state: call it after running.
func (l *Launch) Result() *Result {
	m := l.m
	r := &Result{Stats: m.Stats()}
	switch {
	case m.Fault() != nil:
		r.Status = StatusFault
		r.Fault = l.faultInfo(m.Fault())
	case m.Done():
		r.Status = StatusOK
	case m.Config().MaxWarpInstructions > 0 && r.Stats.WarpInstructions >= m.Config().MaxWarpInstructions:
		r.Status = StatusLimit
		r.Message = fmt.Sprintf("stopped after %d warp-instructions (maxWarpInstructions)", r.Stats.WarpInstructions)
	default:
		r.Status = StatusInterrupted
		r.Message = fmt.Sprintf("stopped after %d warp-instructions before the launch finished", r.Stats.WarpInstructions)
	}
	r.Buffers = l.resultBuffers()
	l.addPrintf(r)
	return r
}

// addPrintf adds the machine's printf output to r.
func (l *Launch) addPrintf(r *Result) {
	lines, dropped := l.m.Printf()
	r.Printf = make([]PrintfLine, len(lines))
	for i, p := range lines {
		r.Printf[i] = PrintfLine{PrintfLine: p, Line: opLine(l.prog, p.PC)}
	}
	r.PrintfDropped, r.PrintfLimit = dropped, l.m.PrintfLimit()
}

// resultBuffers returns the output buffers, in spec order.
func (l *Launch) resultBuffers() []BufferData {
	var out []BufferData
	for i, b := range l.spec.Buffers {
		if b.Output != nil && !*b.Output {
			continue
		}
		out = append(out, BufferData{Name: b.Name, Type: b.Type, Data: l.bufs[i].Data, elem: l.types[i]})
	}
	return out
}

// Buffer returns the named buffer of the result, or nil.
func (r *Result) Buffer(name string) *BufferData {
	for i := range r.Buffers {
		if r.Buffers[i].Name == name {
			return &r.Buffers[i]
		}
	}
	return nil
}

func (l *Launch) faultInfo(f *emu.Fault) *FaultInfo {
	fi := &FaultInfo{Kind: string(f.Kind), Message: f.Message, PC: f.PC, CTA: f.CTA, Thread: f.Thread,
		Warp: f.Warp, Lane: f.Lane, Address: f.Addr, HasAddress: f.HasAddr}
	if f.PC >= 0 && f.PC < len(l.prog.Spans) && l.prog.Src != nil {
		src := l.prog.Src
		off := l.prog.Spans[f.PC].Start
		p := src.Position(off)
		fi.Line, fi.Col = p.Line, p.Col
		fi.Instruction = lineText(src.Text, int(off))
	} else {
		fi.PC = -1
	}
	return fi
}

// lineText returns the trimmed text of the line holding offset off.
func lineText(text []byte, off int) string {
	if off < 0 || off > len(text) {
		return ""
	}
	start, end := off, off
	for start > 0 && text[start-1] != '\n' {
		start--
	}
	for end < len(text) && text[end] != '\n' {
		end++
	}
	return strings.TrimSpace(string(text[start:end]))
}
