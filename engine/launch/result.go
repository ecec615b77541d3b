package launch

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"strconv"
	"unicode/utf8"

	"github.com/ptxplayground/ptxplay/engine/analysis"
	"github.com/ptxplayground/ptxplay/engine/emu"
	"github.com/ptxplayground/ptxplay/engine/isa"
)

// MarshalJSON writes the result in its compact JSON form (see AppendJSON).
func (r *Result) MarshalJSON() ([]byte, error) { return r.AppendJSON(nil, false), nil }

// WriteJSON writes the result as JSON followed by a newline: indented (one
// buffer per line) or compact; the bytes are AppendJSON's. It writes as it
// goes, in pieces of about spillBytes, so that a large result takes no
// memory of its size; after a failed write it writes nothing more and
// returns that error.
func (r *Result) WriteJSON(w io.Writer, indent bool) error {
	j := jsonWriter{b: make([]byte, 0, 3*spillBytes), indent: indent, w: w}
	r.appendJSON(&j)
	j.b = append(j.b, '\n')
	j.spillAll()
	return j.err
}

// AppendJSON appends the result JSON to b. Buffers appear in spec order.
// With indent, the top-level members are on their own lines and each
// buffer, the fault and the stats on one line each.
func (r *Result) AppendJSON(b []byte, indent bool) []byte {
	j := jsonWriter{b: b, indent: indent}
	r.appendJSON(&j)
	return j.b
}

func (r *Result) appendJSON(j *jsonWriter) {
	j.open('{')
	j.key("status")
	j.str(string(r.Status))
	if r.Message != "" {
		j.key("message")
		j.str(r.Message)
	}
	if r.Fault != nil {
		j.key("fault")
		r.Fault.appendJSON(j)
	}
	j.key("buffers")
	j.open('{')
	for i := range r.Buffers {
		r.Buffers[i].appendJSON(j)
	}
	j.close('}')
	j.key("stats")
	j.inline('{')
	j.key("warpInstructions")
	j.b = strconv.AppendInt(j.b, r.Stats.WarpInstructions, 10)
	j.key("threadInstructions")
	j.b = strconv.AppendInt(j.b, r.Stats.ThreadInstructions, 10)
	j.endInline('}')
	if r.Memory != nil {
		j.key("memory")
		appendMemoryJSON(j, r.Memory)
	}
	if len(r.Printf) > 0 || r.PrintfDropped > 0 {
		j.key("printf")
		appendPrintfJSON(j, r.Printf)
		if r.PrintfDropped > 0 {
			j.key("printfDropped")
			j.b = strconv.AppendInt(j.b, r.PrintfDropped, 10)
			j.key("printfNote")
			j.str(PrintfNote(r.PrintfDropped, r.PrintfLimit))
		}
	}
	if r.Checked {
		j.key("warnings")
		appendWarningsJSON(j, r.Warnings)
		if r.WarningsDropped > 0 {
			j.key("warningsDropped")
			j.b = strconv.AppendInt(j.b, r.WarningsDropped, 10)
		}
	}
	j.close('}')
}

// element starts the i-th object of the open array, on its own line when
// indenting (the object itself is written inline).
func (j *jsonWriter) element(i int) {
	if i > 0 {
		j.b = append(j.b, ',')
	}
	j.first[len(j.first)-1] = false
	if j.indent {
		j.newline()
	}
	j.inline('{')
}

// appendMemoryJSON writes the per-line memory analysis: an array with one
// object per line (on its own line when indenting). Shared-memory members
// appear for lines that accessed shared memory, global-memory members for
// lines that accessed global memory.
func appendMemoryJSON(j *jsonWriter, rows []analysis.LineStats) {
	j.open('[')
	for i := range rows {
		r := &rows[i]
		j.element(i)
		j.key("line")
		j.int(r.Line)
		j.key("instruction")
		j.str(r.Instruction)
		j.key("space")
		j.str(r.Space())
		j.key("executions")
		j.b = strconv.AppendInt(j.b, r.Executions, 10)
		if r.Shared {
			j.key("wavefronts")
			j.b = strconv.AppendInt(j.b, r.Wavefronts, 10)
			j.key("idealWavefronts")
			j.b = strconv.AppendInt(j.b, r.IdealWavefronts, 10)
			j.key("conflictDegree")
			j.b = appendFloat(j.b, math.Round(r.ConflictDegree()*1e4)/1e4, 64)
		}
		if r.Global {
			j.key("sectors")
			j.b = strconv.AppendInt(j.b, r.Sectors, 10)
			j.key("lines")
			j.b = strconv.AppendInt(j.b, r.Lines, 10)
			j.key("bytesRequested")
			j.b = strconv.AppendInt(j.b, r.BytesRequested, 10)
			j.key("efficiency")
			j.b = appendFloat(j.b, math.Round(r.Efficiency()*1e4)/1e4, 64)
		}
		j.endInline('}')
	}
	j.close(']')
}

// appendWarningsJSON writes the checker's warnings: an array with one
// object per warning (on its own line when indenting).
func appendWarningsJSON(j *jsonWriter, ws []analysis.Warning) {
	j.open('[')
	for i := range ws {
		w := &ws[i]
		j.element(i)
		j.key("kind")
		j.str(string(w.Kind))
		j.key("space")
		j.str(w.Space.String())
		j.key("line")
		j.int(w.Line)
		j.key("instruction")
		j.str(w.Instruction)
		appendThreadJSON(j, "", w.Thread)
		if w.HasPrev() {
			j.key("prevLine")
			j.int(w.PrevLine)
			j.key("prevInstruction")
			j.str(w.PrevInstruction)
			appendThreadJSON(j, "prev", w.PrevThread)
		}
		switch w.Space {
		case isa.Global:
			j.key("address")
			j.str("0x" + strconv.FormatUint(w.Offset, 16))
		case isa.Reg:
			j.key("register")
			j.str(w.Register)
		default:
			j.key("offset")
			j.b = strconv.AppendUint(j.b, w.Offset, 10)
		}
		j.key("count")
		j.b = strconv.AppendInt(j.b, w.Count, 10)
		j.key("warpInstruction")
		j.b = strconv.AppendInt(j.b, w.Step, 10)
		j.endInline('}')
	}
	j.close(']')
}

// PrintfNote says that printf output stopped at the limit.
func PrintfNote(dropped, limit int64) string {
	return fmt.Sprintf("printf output stopped at the launch's limit of %d bytes (each line counts its text and %d bytes); %d later lines were dropped", limit, emu.PrintfLineOverhead, dropped)
}

// appendPrintfJSON writes the printf output: an array with one object per
// line (on its own line when indenting): step, source line, CTA, thread,
// text, and cut or note when the line has them.
func appendPrintfJSON(j *jsonWriter, lines []PrintfLine) {
	j.open('[')
	for i := range lines {
		p := &lines[i]
		j.element(i)
		j.key("step")
		j.b = strconv.AppendInt(j.b, p.Step, 10)
		j.key("line")
		j.int(p.Line)
		j.key("cta")
		j.dims(p.CTA)
		j.key("thread")
		j.dims(p.Thread)
		j.key("text")
		j.str(p.Text)
		if p.Cut {
			j.key("cut")
			j.b = append(j.b, "true"...)
		}
		if p.Note != "" {
			j.key("note")
			j.str(p.Note)
		}
		j.endInline('}')
	}
	j.close(']')
}

// appendThreadJSON writes a thread as cta and thread members (prefixed:
// prevCta, prevThread).
func appendThreadJSON(j *jsonWriter, prefix string, t analysis.Thread) {
	cta, thread := "cta", "thread"
	if prefix != "" {
		cta, thread = prefix+"Cta", prefix+"Thread"
	}
	j.key(cta)
	j.dims(t.CTA)
	j.key(thread)
	j.dims(t.Tid)
}

func (f *FaultInfo) appendJSON(j *jsonWriter) {
	j.inline('{')
	j.key("kind")
	j.str(f.Kind)
	j.key("message")
	j.str(f.Message)
	if f.PC >= 0 {
		j.key("pc")
		j.int(f.PC)
		if f.Line > 0 {
			j.key("line")
			j.int(f.Line)
			j.key("col")
			j.int(f.Col)
			j.key("instruction")
			j.str(f.Instruction)
		}
	}
	if f.HasAddress {
		j.key("address")
		j.str("0x" + strconv.FormatUint(f.Address, 16))
	}
	j.key("cta")
	j.dims(f.CTA)
	j.key("thread")
	j.dims(f.Thread)
	j.key("warp")
	j.int(f.Warp)
	j.key("lane")
	j.int(f.Lane)
	j.endInline('}')
}

func (d *BufferData) appendJSON(j *jsonWriter) {
	if j.w == nil {
		d.writeJSON(j, nil)
		return
	}
	d.writeJSON(j, func() bool { j.spill(); return true })
}

// JSONSize returns the bytes the buffer's member takes in the compact
// result JSON (`"name":{"type":…,"values":[…],"bits":[…]}`, without the
// comma before it), counting no further than about limit bytes: ok is
// false when it takes more. Its memory is bounded whatever the buffer's
// size, and its time by limit.
func (d *BufferData) JSONSize(limit int) (n int, ok bool) {
	j := jsonWriter{first: []bool{true}}
	ok = d.writeJSON(&j, func() bool {
		n += len(j.b)
		j.b = j.b[:0]
		return n <= limit
	})
	n += len(j.b)
	return n, ok && n <= limit
}

// writeJSON writes the buffer's member. flush, when not nil, is called
// every few thousand elements (and may empty j.b); writing stops, false,
// when it returns false.
func (d *BufferData) writeJSON(j *jsonWriter, flush func() bool) bool {
	const every = 4096
	j.key(d.Name)
	j.inline('{')
	j.key("type")
	j.str(d.Type)
	n := d.Len()
	// 32-bit elements (the common case) read their words directly;
	// unsigned and untyped ones print as appendValueJSON prints them.
	if n >= 1<<16 {
		useHalfTable(d.elem) // f16 and bf16 values from a table
	}
	words := d.elem.Size() == 4 && len(d.Data) >= 4*n
	plain := words && d.elem.Kind() != isa.KindFloat && d.elem.Kind() != isa.KindSigned
	j.key("values")
	j.b = append(j.b, '[')
	for i := 0; i < n; i++ {
		if i > 0 {
			j.sep()
		}
		if plain {
			j.b = strconv.AppendUint(j.b, uint64(binary.LittleEndian.Uint32(d.Data[4*i:])), 10)
		} else {
			j.b = appendValueJSON(j.b, d.Bits(i), d.elem)
		}
		if flush != nil && i%every == every-1 && !flush() {
			return false
		}
	}
	j.b = append(j.b, ']')
	j.key("bits")
	j.b = append(j.b, '[')
	for i := 0; i < n; i++ {
		if i > 0 {
			j.sep()
		}
		j.b = append(j.b, '"')
		if words {
			j.b = appendHex32(j.b, binary.LittleEndian.Uint32(d.Data[4*i:]))
		} else {
			j.b = appendBitsHex(j.b, d.Bits(i), d.elem)
		}
		j.b = append(j.b, '"')
		if flush != nil && i%every == every-1 && !flush() {
			return false
		}
	}
	j.b = append(j.b, ']')
	j.endInline('}')
	return flush == nil || flush()
}

// jsonWriter writes JSON with members in a fixed order. Objects opened
// with open are laid out one member per line when indenting; objects
// opened with inline stay on one line.
type jsonWriter struct {
	b      []byte
	indent bool
	depth  int
	inl    int    // > 0 inside an inline object
	first  []bool // per open object: no member written yet

	w   io.Writer // when not nil, spill writes b out to it
	err error     // the first failed write to w
}

// spillBytes is about how much of the result WriteJSON holds at once.
const spillBytes = 64 << 10

// spill writes what j holds out to j.w when it holds spillBytes or more.
func (j *jsonWriter) spill() {
	if j.w != nil && len(j.b) >= spillBytes {
		j.spillAll()
	}
}

// spillAll writes what j holds out to j.w; after a failed write the rest
// is dropped.
func (j *jsonWriter) spillAll() {
	if j.err == nil {
		_, j.err = j.w.Write(j.b)
	}
	j.b = j.b[:0]
}

func (j *jsonWriter) open(c byte) {
	j.b = append(j.b, c)
	j.depth++
	j.first = append(j.first, true)
}

func (j *jsonWriter) close(c byte) {
	j.depth--
	empty := j.first[len(j.first)-1]
	j.first = j.first[:len(j.first)-1]
	if j.indent && !empty {
		j.newline()
	}
	j.b = append(j.b, c)
}

func (j *jsonWriter) inline(c byte) {
	j.b = append(j.b, c)
	j.inl++
	j.first = append(j.first, true)
}

func (j *jsonWriter) endInline(c byte) {
	j.inl--
	j.first = j.first[:len(j.first)-1]
	j.b = append(j.b, c)
}

func (j *jsonWriter) newline() {
	j.b = append(j.b, '\n')
	for i := 0; i < j.depth; i++ {
		j.b = append(j.b, ' ', ' ')
	}
}

// sep writes the separator between array elements or inline members.
func (j *jsonWriter) sep() {
	j.b = append(j.b, ',')
	if j.indent {
		j.b = append(j.b, ' ')
	}
}

func (j *jsonWriter) key(k string) {
	top := len(j.first) - 1
	if !j.first[top] {
		if j.inl > 0 {
			j.sep()
		} else {
			j.b = append(j.b, ',')
		}
	}
	j.first[top] = false
	if j.indent && j.inl == 0 {
		j.newline()
	}
	j.str(k)
	j.b = append(j.b, ':')
	if j.indent {
		j.b = append(j.b, ' ')
	}
}

func (j *jsonWriter) str(s string) { j.b = appendString(j.b, s) }

// appendString appends s as a JSON string (without HTML escaping; invalid
// UTF-8 becomes U+FFFD).
func appendString(b []byte, s string) []byte {
	const hexDigits = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c == '\n':
				b = append(b, '\\', 'n')
			case c == '\t':
				b = append(b, '\\', 't')
			case c == '\r':
				b = append(b, '\\', 'r')
			case c < 0x20 || c == 0x7f:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&15])
			default:
				b = append(b, c)
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			b = append(b, "\\ufffd"...)
		} else {
			b = append(b, s[i:i+n]...)
		}
		i += n
	}
	return append(b, '"')
}

func (j *jsonWriter) int(n int) { j.b = strconv.AppendInt(j.b, int64(n), 10) }

func (j *jsonWriter) dims(d [3]int) {
	j.b = append(j.b, '[')
	for i, n := range d {
		if i > 0 {
			j.sep()
		}
		j.int(n)
	}
	j.b = append(j.b, ']')
}
