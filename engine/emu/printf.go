package emu

import (
	"strings"

	"github.com/ptxplayground/ptxplay/engine/isa"
	"github.com/ptxplayground/ptxplay/engine/ptx"
)

// Device-side library functions. nvcc compiles CUDA's printf to a call of
// the extern vprintf(format, args) and assert to a call of the extern
// __assertfail(message, file, line, function, charSize); neither has a
// body in the module. The emulator provides both; a call to any other
// function without a body faults (and check warns about it).

// Builtin names a library function the emulator provides.
type Builtin uint8

const (
	BuiltinNone       Builtin = iota
	BuiltinVprintf            // int vprintf(const char *format, void *args)
	BuiltinAssertfail         // void __assertfail(const char *msg, const char *file, unsigned line, const char *func, size_t charSize)
)

// Limits of printf.
const (
	// MaxPrintfLine bounds the text of one thread's printf call; longer
	// output is cut there (PrintfLine.Cut).
	MaxPrintfLine = 4096
	// DefaultPrintfBytes is the printf output a launch keeps when
	// Config.MaxPrintfBytes is 0 (CUDA's default printf buffer is 1 MiB).
	DefaultPrintfBytes = 1 << 20
	// PrintfLineOverhead is what each kept line counts toward the limit
	// besides its text: its fields (PrintfLine takes 104 bytes on 64-bit
	// hosts) and the slice's spare capacity.
	PrintfLineOverhead = 128
	// maxPrintfArgs: CUDA's printf takes at most 32 arguments besides the
	// format; later conversions are printed as written.
	maxPrintfArgs = 32
	// maxAssertText bounds each string an assertion failure reads.
	maxAssertText = 1024
)

// PrintfLine is the output of one thread's printf call.
type PrintfLine struct {
	// Step is the launch's warp-instruction count after the call (the
	// call counts): a debugger at that position has just printed it.
	Step   int64
	PC     int
	CTA    [3]int
	Thread [3]int
	Text   string
	// Cut: the call's output was longer than MaxPrintfLine bytes.
	Cut bool
	// Note says what of the format CUDA's printf does not support (that
	// conversion is printed as written), or "".
	Note string
}

// printfLog is a launch's printf output in execution order: calls in the
// order the scheduler issues them, the lanes of one warp-instruction in
// ascending order. It is part of the machine's state: snapshots share the
// lines (the slice is only appended to, and a restored log is capped so
// that the next append copies), and Restore truncates the log to theirs.
type printfLog struct {
	lines   []PrintfLine
	bytes   int64 // counted toward the limit: text plus PrintfLineOverhead per line
	dropped int64 // lines dropped after the limit
}

// Printf returns the launch's printf output so far (callers must not
// modify it) and how many lines were dropped at the limit.
func (m *Machine) Printf() (lines []PrintfLine, dropped int64) {
	return m.printf.lines, m.printf.dropped
}

// PrintfLimit is the launch's bound on printf output (Config.MaxPrintfBytes).
func (m *Machine) PrintfLimit() int64 {
	if m.cfg.MaxPrintfBytes > 0 {
		return m.cfg.MaxPrintfBytes
	}
	return DefaultPrintfBytes
}

func (m *Machine) addPrintf(l PrintfLine) {
	n := int64(len(l.Text)) + PrintfLineOverhead
	if m.printf.dropped > 0 || m.printf.bytes+n > m.PrintfLimit() {
		m.printf.dropped++
		return
	}
	m.printf.bytes += n
	m.printf.lines = append(m.printf.lines, l)
}

// markBuiltins recognises the library functions the module calls without
// defining them, and warns about the other functions without a body that
// a call names.
func (c *compiler) markBuiltins() {
	seen := map[*Function]bool{}
	for pc := range c.prog.Ops {
		op := &c.prog.Ops[pc]
		if op.Code != isa.OpCall || op.Aux < 0 || int(op.Aux) >= len(c.prog.Calls) {
			continue
		}
		fn := c.prog.Calls[op.Aux].Callee
		if fn == nil || fn.HasBody || seen[fn] {
			continue
		}
		seen[fn] = true
		s := c.global[fn.Name]
		if s == nil || s.fdecl == nil {
			continue
		}
		b, why := builtinOf(s.fdecl)
		fn.Builtin = b
		if b == BuiltinNone {
			c.diags.Warnf(c.prog.Spans[pc], ptx.DiagNoFunctionBody, "%s has no body in this module%s: a thread that calls it faults", fn.Name, why)
		}
	}
}

// builtinOf recognises a declaration as a builtin by name and signature;
// for a builtin's name with another signature it says why not.
func builtinOf(f *ptx.Func) (Builtin, string) {
	sizes := func(ds []*ptx.VarDecl) []int {
		var out []int
		for _, d := range ds {
			for _, n := range d.Names {
				out = append(out, varSize(d, n))
			}
		}
		return out
	}
	same := func(a []int, b ...int) bool {
		if len(a) != len(b) {
			return false
		}
		for i := range a {
			if a[i] != b[i] {
				return false
			}
		}
		return true
	}
	ps, rs := sizes(f.Params), sizes(f.Rets)
	switch f.Name {
	case "vprintf":
		if same(ps, 8, 8) && (same(rs) || same(rs, 4)) {
			return BuiltinVprintf, ""
		}
		return BuiltinNone, " (vprintf is CUDA's printf only as (.param .b32 r) vprintf(.param .b64 format, .param .b64 args))"
	case "__assertfail":
		if same(ps, 8, 8, 4, 8, 8) && same(rs) {
			return BuiltinAssertfail, ""
		}
		return BuiltinNone, " (__assertfail is CUDA's assert only as __assertfail(.param .b64 message, .param .b64 file, .param .b32 line, .param .b64 function, .param .b64 charSize))"
	}
	return BuiltinNone, ""
}

// execBuiltin executes a call of a builtin for the lanes of emask, in
// ascending order; the lanes below a faulting lane have executed.
func (w *Warp) execBuiltin(fn *Function, ci *CallInfo, emask uint32) *Fault {
	for l := 0; l < 32; l++ {
		if emask>>l&1 == 0 {
			continue
		}
		var args [5]uint64
		for i := range ci.Args[:min(len(ci.Args), len(args))] {
			v, f := w.callArg(l, ci.Args[i])
			if f != nil {
				return f
			}
			args[i] = v
		}
		switch fn.Builtin {
		case BuiltinVprintf:
			ret, f := w.vprintf(l, args[0], args[1])
			if f != nil {
				return f
			}
			if len(ci.Rets) > 0 {
				if f := w.setCallRet(l, ci.Rets[0], uint64(uint32(ret))); f != nil {
					return f
				}
			}
		case BuiltinAssertfail:
			return w.assertfail(l, emask, args)
		}
	}
	w.advance()
	return nil
}

// callArg reads a caller-side argument of lane l.
func (w *Warp) callArg(l int, a CallArg) (uint64, *Fault) {
	if a.Reg >= 0 {
		if a.Pred {
			return uint64(w.preds[a.Reg] >> l & 1), nil
		}
		return w.r(a.Reg)[l], nil
	}
	b, f := w.localBytes(l, a.Addr, min(max(a.Size, 1), 8))
	if f != nil {
		return 0, f
	}
	return getLE(b), nil
}

// setCallRet writes a 32-bit result to a caller-side return destination.
func (w *Warp) setCallRet(l int, a CallArg, v uint64) *Fault {
	if a.Reg >= 0 {
		if !a.Pred {
			w.r(a.Reg)[l] = v
		}
		return nil
	}
	b, f := w.localBytes(l, a.Addr, min(max(a.Size, 1), 4))
	if f != nil {
		return f
	}
	var buf [8]byte
	putLE(buf[:], v)
	copy(b, buf[:])
	return nil
}

// readString reads a NUL-terminated string at the generic address a for
// lane l, at most limit bytes (cut reports that it stopped there).
func (w *Warp) readString(l int, a uint64, limit int) (s string, cut bool, f *Fault) {
	var sb strings.Builder
	for i := 0; ; i++ {
		if i >= limit {
			return sb.String(), true, nil
		}
		b, _, f := w.spaceBytes(isa.SpaceNone, l, a+uint64(i), 1, 0)
		if f != nil {
			return "", false, f
		}
		if b[0] == 0 {
			return sb.String(), false, nil
		}
		sb.WriteByte(b[0])
	}
}

// vprintf formats for lane l and logs the line; it returns what CUDA's
// printf returns: the number of arguments parsed, -1 for a NULL format.
func (w *Warp) vprintf(l int, format, args uint64) (int32, *Fault) {
	if format == 0 {
		return -1, nil
	}
	// The format string itself is read up to the line's bound: the
	// output of a longer one is cut anyway.
	fs, fcut, f := w.readString(l, format, MaxPrintfLine)
	if f != nil {
		f.Message = "printf format string: " + f.Message
		return 0, f
	}
	var out strings.Builder
	var note string
	cut := fcut
	off, n := uint64(0), 0
	arg := func(size int) (uint64, *Fault) {
		off = (off + uint64(size) - 1) &^ (uint64(size) - 1)
		b, _, f := w.spaceBytes(isa.SpaceNone, l, args+off, size, 0)
		if f != nil {
			f.Message = "printf argument " + itoa(n+1) + ": " + f.Message
			return 0, f
		}
		off += uint64(size)
		n++
		return getLE(b), nil
	}
	for i := 0; i < len(fs); {
		if out.Len() > MaxPrintfLine {
			cut = true
			break
		}
		if fs[i] != '%' {
			j := strings.IndexByte(fs[i:], '%')
			if j < 0 {
				j = len(fs) - i
			}
			out.WriteString(fs[i : i+j])
			i += j
			continue
		}
		c, end, bad := parsePrintfConv(fs, i)
		if bad != "" || c.conv != '%' && n+btoi(c.starWidth)+btoi(c.argSize() > 0) > maxPrintfArgs {
			if bad == "" {
				bad = "CUDA's printf takes at most 32 arguments"
			}
			if note == "" {
				note = fs[i:end] + " printed as written: " + bad
			}
			out.WriteString(fs[i:end])
			i = end
			continue
		}
		i = end
		if c.conv == '%' {
			out.WriteByte('%')
			continue
		}
		if c.starWidth {
			v, f := arg(4)
			if f != nil {
				return 0, f
			}
			wd := int64(int32(v))
			if wd < 0 {
				c.minus, wd = true, -wd
			}
			c.width = int(min(wd, printfMaxField))
		}
		v, f := arg(c.argSize())
		if f != nil {
			return 0, f
		}
		switch c.conv {
		case 'd', 'i', 'o', 'u', 'x', 'X':
			out.WriteString(c.formatInt(v))
		case 'c':
			out.WriteString(c.formatChar(v))
		case 'p':
			out.WriteString(c.formatPointer(v))
		case 's':
			if v == 0 {
				s := "(null)"
				if c.hasPrec && c.prec < len(s) {
					s = "" // glibc prints nothing rather than part of "(null)"
				}
				out.WriteString(c.formatString(s))
				continue
			}
			limit := MaxPrintfLine + 1 - out.Len()
			if c.hasPrec {
				limit = min(limit, c.prec)
			}
			s, _, f := w.readString(l, v, max(limit, 0))
			if f != nil {
				f.Message = "printf argument " + itoa(n) + " (%s): " + f.Message
				return 0, f
			}
			out.WriteString(c.formatString(s))
		default:
			out.WriteString(c.formatFloat(v))
		}
	}
	text := out.String()
	if len(text) > MaxPrintfLine {
		text, cut = text[:MaxPrintfLine], true
	}
	m := w.m
	m.addPrintf(PrintfLine{Step: m.stats.WarpInstructions - m.ahead, PC: m.curPC, CTA: w.cta.Idx, Thread: w.tid(l), Text: text, Cut: cut, Note: note})
	return int32(n), nil
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// assertfail raises the fault of a failed assert for lane l (the first
// executing lane: every lane of emask fails).
func (w *Warp) assertfail(l int, emask uint32, args [5]uint64) *Fault {
	str := func(a uint64) (string, *Fault) {
		if a == 0 {
			return "?", nil
		}
		s, cut, f := w.readString(l, a, maxAssertText)
		if cut {
			s += "…"
		}
		return s, f
	}
	msg, f := str(args[0])
	if f != nil {
		f.Message = "assertion message: " + f.Message
		return f
	}
	file, f := str(args[1])
	if f != nil {
		f.Message = "assertion file name: " + f.Message
		return f
	}
	fn, f := str(args[3])
	if f != nil {
		f.Message = "assertion function name: " + f.Message
		return f
	}
	fa := w.faultAll(FaultAssert, emask&(^uint32(0)<<l), "assertion failed: %s at %s:%d in %s", msg, file, uint32(args[2]), fn)
	return fa
}

// SetMaxPrintfBytes sets Config.MaxPrintfBytes (0: the default).
func (m *Machine) SetMaxPrintfBytes(n int64) { m.cfg.MaxPrintfBytes = max(n, 0) }

// PrintfBytes is what the launch's printf output counts toward its limit.
func (m *Machine) PrintfBytes() int64 { return m.printf.bytes }
