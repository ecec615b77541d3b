package ptx

import (
	"fmt"
	"sort"
	"strings"
)

// Span is a half-open byte range [Start, End) in a source file. Line and
// column are computed only when a diagnostic is reported (see Source.Position).
type Span struct {
	Start, End int32
}

// Join returns the smallest span covering s and t.
func (s Span) Join(t Span) Span {
	if t.Start < s.Start {
		s.Start = t.Start
	}
	if t.End > s.End {
		s.End = t.End
	}
	return s
}

// Severity of a diagnostic.
type Severity uint8

const (
	SevError Severity = iota
	SevWarning
	SevNote
)

func (s Severity) String() string {
	switch s {
	case SevWarning:
		return "warning"
	case SevNote:
		return "note"
	}
	return "error"
}

// Diagnostic is one message about a span of a source file. It is data: it is
// rendered as text for the CLI (file:line:col: error[id]: message, then one
// line per note) and as JSON (Message) for the editor, from the same value.
// ID names the kind of diagnostic (one of the IDs table, diagids.go); Notes
// point at related places (where a label was first defined, where a
// register was declared), any number of them.
type Diagnostic struct {
	Severity Severity
	ID       DiagID
	Span     Span
	Message  string
	Notes    []Note
}

// Note is a secondary location of a diagnostic: a span and what it is.
type Note struct {
	Span    Span
	Message string
}

// Equal reports whether d and e are the same diagnostic (notes included).
func (d Diagnostic) Equal(e Diagnostic) bool {
	if d.Severity != e.Severity || d.ID != e.ID || d.Span != e.Span || d.Message != e.Message || len(d.Notes) != len(e.Notes) {
		return false
	}
	for i := range d.Notes {
		if d.Notes[i] != e.Notes[i] {
			return false
		}
	}
	return true
}

// Source is a named PTX text with a lazily built line index.
type Source struct {
	Name  string
	Text  []byte
	lines []int32 // byte offset of the start of each line
}

// NewSource returns a Source for text.
func NewSource(name string, text []byte) *Source {
	return &Source{Name: name, Text: text}
}

// Pos is a 1-based line and column (columns count bytes, as in go/token).
type Pos struct {
	Line, Col int
}

// Position converts a byte offset to a 1-based line and column.
func (s *Source) Position(off int32) Pos {
	if s.lines == nil {
		s.lines = append(s.lines, 0)
		for i, c := range s.Text {
			if c == '\n' {
				s.lines = append(s.lines, int32(i+1))
			}
		}
	}
	if off < 0 {
		off = 0
	}
	if int(off) > len(s.Text) {
		off = int32(len(s.Text))
	}
	i := sort.Search(len(s.lines), func(i int) bool { return s.lines[i] > off }) - 1
	return Pos{Line: i + 1, Col: int(off-s.lines[i]) + 1}
}

// Message is the JSON shape of a diagnostic shared by the CLI (--json), the
// web editor and the websocket protocol.
type Message struct {
	Severity string `json:"severity"`
	// ID is the diagnostic's stable identifier (see the IDs table).
	ID      string `json:"id"`
	File    string `json:"file,omitempty"`
	Line    int    `json:"line"`
	Col     int    `json:"col"`
	EndLine int    `json:"endLine"`
	EndCol  int    `json:"endCol"`
	Message string `json:"message"`
	// Notes are the related locations, in order (omitted when none).
	Notes []NoteMessage `json:"notes,omitempty"`
}

// NoteMessage is the JSON shape of a note: a secondary location.
type NoteMessage struct {
	File    string `json:"file,omitempty"`
	Line    int    `json:"line"`
	Col     int    `json:"col"`
	EndLine int    `json:"endLine"`
	EndCol  int    `json:"endCol"`
	Message string `json:"message"`
}

// ToMessage converts d to its JSON shape using src for positions.
func (d Diagnostic) ToMessage(src *Source) Message {
	p, e := src.Position(d.Span.Start), src.Position(d.Span.End)
	m := Message{Severity: d.Severity.String(), ID: string(d.ID), File: src.Name, Line: p.Line, Col: p.Col,
		EndLine: e.Line, EndCol: e.Col, Message: d.Message}
	for _, n := range d.Notes {
		p, e := src.Position(n.Span.Start), src.Position(n.Span.End)
		m.Notes = append(m.Notes, NoteMessage{File: src.Name, Line: p.Line, Col: p.Col, EndLine: e.Line, EndCol: e.Col, Message: n.Message})
	}
	return m
}

// Format renders d as "file:line:col: error[id]: message", followed by
// one line "file:line:col: note: message" per note.
func (d Diagnostic) Format(src *Source) string {
	p := src.Position(d.Span.Start)
	sev := d.Severity.String()
	if d.ID != "" {
		sev += "[" + string(d.ID) + "]"
	}
	s := fmt.Sprintf("%s:%d:%d: %s: %s", src.Name, p.Line, p.Col, sev, d.Message)
	for _, n := range d.Notes {
		p := src.Position(n.Span.Start)
		s += fmt.Sprintf("\n%s:%d:%d: note: %s", src.Name, p.Line, p.Col, n.Message)
	}
	return s
}

// MaxErrors is the number of errors after which parsing and checking stop
// collecting (the list then ends with a "too many errors" note).
const MaxErrors = 50

// DiagList collects diagnostics, counting errors and stopping at MaxErrors.
type DiagList struct {
	Diags  []Diagnostic
	Errors int
}

// Errorf adds an error of kind id at span. It reports whether the cap has
// been reached.
func (l *DiagList) Errorf(span Span, id DiagID, format string, args ...any) bool {
	return l.Add(Diagnostic{Severity: SevError, ID: id, Span: span, Message: fmt.Sprintf(format, args...)})
}

// Add adds d (an error counts towards the cap; it is dropped once the cap
// is reached). It reports whether the cap has been reached.
func (l *DiagList) Add(d Diagnostic) bool {
	if d.Severity != SevError {
		l.Diags = append(l.Diags, d)
		return l.Full()
	}
	if l.Errors >= MaxErrors {
		return true
	}
	l.Errors++
	l.Diags = append(l.Diags, d)
	if l.Errors == MaxErrors {
		l.Diags = append(l.Diags, tooManyNote(d.Span))
		return true
	}
	return false
}

func tooManyNote(span Span) Diagnostic {
	return Diagnostic{Severity: SevNote, ID: DiagTooManyErrors, Span: span, Message: tooManyErrors}
}

var tooManyErrors = fmt.Sprintf("too many errors (stopped after %d)", MaxErrors)

// Capped reports whether diags ends at the error cap (it holds the "too
// many errors" note): whoever produced them stopped looking.
func Capped(diags []Diagnostic) bool {
	for i := len(diags) - 1; i >= 0; i-- {
		if d := diags[i]; d.Severity == SevNote && d.Message == tooManyErrors {
			return true
		}
	}
	return false
}

// Merge combines lists of diagnostics (the parser's and the checker's) the
// way a DiagList holds them: sorted by position (stable), without
// duplicates, with at most MaxErrors errors — the first ones by position —
// and the "too many errors" note last when errors were cut (or a list had
// already been cut).
func Merge(lists ...[]Diagnostic) []Diagnostic {
	var all []Diagnostic
	capped := false
	for _, l := range lists {
		for _, d := range l {
			if d.Severity == SevNote && d.Message == tooManyErrors {
				capped = true
				continue
			}
			all = append(all, d)
		}
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].Span.Start < all[j].Span.Start })
	out := all[:0]
	errors := 0
	var last Span
next:
	for _, d := range all {
		for k := len(out) - 1; k >= 0 && out[k].Span.Start == d.Span.Start; k-- {
			if out[k].Equal(d) {
				continue next
			}
		}
		if d.Severity == SevError {
			if errors == MaxErrors {
				capped = true
				continue
			}
			errors++
			last = d.Span
		}
		out = append(out, d)
	}
	if capped {
		out = append(out, tooManyNote(last))
	}
	return out
}

// Warnf adds a warning of kind id at span.
func (l *DiagList) Warnf(span Span, id DiagID, format string, args ...any) {
	l.Diags = append(l.Diags, Diagnostic{Severity: SevWarning, ID: id, Span: span, Message: fmt.Sprintf(format, args...)})
}

// Full reports whether the error cap has been reached.
func (l *DiagList) Full() bool { return l.Errors >= MaxErrors }

// Sort orders diagnostics by position (stable, so equal spans keep their order).
func (l *DiagList) Sort() {
	sort.SliceStable(l.Diags, func(i, j int) bool { return l.Diags[i].Span.Start < l.Diags[j].Span.Start })
}

// Format renders every diagnostic, one per line.
func FormatAll(src *Source, diags []Diagnostic) string {
	var b strings.Builder
	for _, d := range diags {
		b.WriteString(d.Format(src))
		b.WriteByte('\n')
	}
	return b.String()
}

// HasErrors reports whether diags holds an error.
func HasErrors(diags []Diagnostic) bool {
	for _, d := range diags {
		if d.Severity == SevError {
			return true
		}
	}
	return false
}
