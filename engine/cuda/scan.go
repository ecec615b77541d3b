package cuda

import (
	"fmt"
	"sort"
	"strings"
)

// AllowedIncludes are the headers a kernel may #include. The prelude
// already provides what they declare, so the line is blanked before clang
// sees it; every other #include (and every other way to make clang open a
// file) is refused before clang runs.
var AllowedIncludes = map[string]bool{
	"cuda_runtime.h": true, "cuda_runtime_api.h": true, "cuda.h": true,
	"device_launch_parameters.h": true, "device_functions.h": true,
	"cuda_fp16.h": true, "cuda_bf16.h": true, "vector_types.h": true,
	"math.h": true, "cmath": true, "math_constants.h": true,
	"stdio.h": true, "cstdio": true, "stdint.h": true, "cstdint": true,
	"stddef.h": true, "cstddef": true, "limits.h": true, "climits": true,
	"float.h": true, "cfloat": true, "assert.h": true, "cassert": true,
	"sm_60_atomic_functions.h": true, "sm_61_intrinsics.h": true,
}

// refusedIdents are identifiers that make the preprocessor look at files
// (or at the compiler's internals) wherever they appear.
var refusedIdents = map[string]string{
	"__has_include":      "__has_include is not available: kernels cannot look at files",
	"__has_include_next": "__has_include_next is not available: kernels cannot look at files",
	"__has_embed":        "__has_embed is not available: kernels cannot look at files",
	"_Pragma":            "_Pragma is not available here; write #pragma",
	"__pragma":           "__pragma is not available here; write #pragma",
}

// refusedPragmaWords are identifiers refused inside a #pragma line.
var refusedPragmaWords = map[string]bool{
	"dependency": true, "__debug": true, "module": true, "include_alias": true,
	"include": true, "embed": true, "system_header": true,
}

// screen checks the user's source before clang sees it. It returns the
// text to compile (allowed #include lines blanked, keeping every line and
// column where it was) and the diagnostics for what it refused. It errs on
// the side of refusing: the lexer splices lines, skips comments and string,
// character and raw string literals as C++ does, and treats "%:" and "??="
// as '#'.
func screen(src string) (string, []Diagnostic) {
	s := &scanner{src: src, atLineStart: true}
	out := []byte(src)
	var diags []Diagnostic
	refuse := func(off int, format string, args ...any) {
		line, col := s.pos(off)
		diags = append(diags, Diagnostic{Severity: SevError, Line: line, Col: col, Message: fmt.Sprintf(format, args...)})
	}
	for !s.eof() {
		start := s.i
		if s.atLineStart && s.directiveStart() {
			s.skipHash()
			name, nameOff := s.ident()
			end := s.lineEnd()
			switch name {
			case "include", "include_next", "import", "embed":
				header, ok := s.headerName(nameOff+len(name), end)
				if name == "include" && ok && AllowedIncludes[header] {
					for k := start; k < end; k++ {
						if out[k] != '\n' && out[k] != '\r' {
							out[k] = ' '
						}
					}
				} else if name == "include" {
					refuse(start, "#include is limited to headers the prelude provides (%s); everything else in them is already declared", allowedList())
				} else {
					refuse(start, "#%s is not available: kernels cannot read files", name)
				}
			case "line":
				refuse(start, "#line is not available (it would break the CUDA/PTX line mapping)")
			case "pragma":
				for _, w := range s.idents(nameOff+len(name), end) {
					if refusedPragmaWords[w.text] {
						refuse(w.off, "#pragma %s is not available here", w.text)
						break
					}
				}
			}
			// The rest of the directive may hold identifiers such as
			// __has_include (in #if): scan it like code.
			s.i = nameOff + len(name)
			if nameOff < 0 {
				s.i = start + 1
			}
			s.atLineStart = false
			continue
		}
		s.token(func(id string, off int) {
			if msg, bad := refusedIdents[id]; bad {
				refuse(off, "%s", msg)
			}
		})
	}
	sort.SliceStable(diags, func(i, j int) bool {
		if diags[i].Line != diags[j].Line {
			return diags[i].Line < diags[j].Line
		}
		return diags[i].Col < diags[j].Col
	})
	return string(out), diags
}

func allowedList() string {
	var names []string
	for n := range AllowedIncludes {
		names = append(names, "<"+n+">")
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

type scanner struct {
	src         string
	i           int
	atLineStart bool
}

func (s *scanner) eof() bool { return s.i >= len(s.src) }

// pos is the 1-based line and column (bytes) of an offset.
func (s *scanner) pos(off int) (int, int) {
	line, col := 1, 1
	for k := 0; k < off && k < len(s.src); k++ {
		if s.src[k] == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return line, col
}

// splice skips backslash-newlines at i and returns the next offset of a
// real character.
func (s *scanner) splice(i int) int {
	for i < len(s.src) && s.src[i] == '\\' {
		if i+1 < len(s.src) && s.src[i+1] == '\n' {
			i += 2
		} else if i+2 < len(s.src) && s.src[i+1] == '\r' && s.src[i+2] == '\n' {
			i += 3
		} else {
			break
		}
	}
	return i
}

// at returns the character at the logical position i (after splicing)
// and the offset after it.
func (s *scanner) at(i int) (byte, int) {
	i = s.splice(i)
	if i >= len(s.src) {
		return 0, i
	}
	return s.src[i], i + 1
}

// skipSpace skips blanks and comments within a line (not newlines).
func (s *scanner) skipSpace(i int) int {
	for {
		c, n := s.at(i)
		switch {
		case c == ' ' || c == '\t' || c == '\f' || c == '\v' || c == '\r':
			i = n
		case c == '/':
			c2, n2 := s.at(n)
			if c2 == '*' {
				i = s.blockComment(n2)
			} else if c2 == '/' {
				return s.lineEndFrom(i)
			} else {
				return s.splice(i)
			}
		default:
			return s.splice(i)
		}
	}
}

// blockComment skips a comment body; an unterminated one ends (for this
// scan) at the end of its line, so that what follows is still checked.
func (s *scanner) blockComment(i int) int {
	start := i
	for {
		c, n := s.at(i)
		if c == 0 && n >= len(s.src) {
			return s.lineEndFrom(start)
		}
		if c == '*' {
			if c2, n2 := s.at(n); c2 == '/' {
				return n2
			}
		}
		i = n
	}
}

// lineEndFrom returns the offset of the newline ending the logical line
// that contains i (skipping spliced newlines).
func (s *scanner) lineEndFrom(i int) int {
	for {
		c, n := s.at(i)
		if n >= len(s.src) && c == 0 {
			return len(s.src)
		}
		if c == '\n' {
			return n - 1
		}
		i = n
	}
}

// directiveStart reports whether the current line starts (after blanks and
// comments) with '#', "%:" or "??=", and moves to it.
func (s *scanner) directiveStart() bool {
	j := s.skipSpace(s.i)
	c, n := s.at(j)
	ok := c == '#'
	if c == '%' {
		c2, _ := s.at(n)
		ok = c2 == ':'
	}
	if c == '?' && strings.HasPrefix(s.src[j:], "??=") {
		ok = true
	}
	if ok {
		s.i = j
	}
	return ok
}

func (s *scanner) skipHash() {
	c, n := s.at(s.i)
	switch c {
	case '#':
		s.i = n
	case '%':
		_, n2 := s.at(n)
		s.i = n2
	default:
		s.i += 3
	}
}

func isIdentStart(c byte) bool {
	return c == '_' || c == '$' || (c|0x20) >= 'a' && (c|0x20) <= 'z' || c >= 0x80
}
func isIdentChar(c byte) bool { return isIdentStart(c) || c >= '0' && c <= '9' }

// ident reads the identifier after blanks; it returns its text (spliced)
// and its offset (-1 if there is none).
func (s *scanner) ident() (string, int) {
	j := s.skipSpace(s.i)
	c, _ := s.at(j)
	if !isIdentStart(c) {
		return "", -1
	}
	var b []byte
	k := j
	for {
		c, n := s.at(k)
		if !isIdentChar(c) || n > len(s.src) {
			break
		}
		b = append(b, c)
		k = n
		if n >= len(s.src) {
			break
		}
	}
	// nameOff+len(name) must land after the identifier even when it was
	// spliced: return an offset such that off+len(b) == k.
	return string(b), k - len(b)
}

func (s *scanner) lineEnd() int { return s.lineEndFrom(s.i) }

// headerName parses <name> or "name" between from and end.
func (s *scanner) headerName(from, end int) (string, bool) {
	if from < 0 {
		return "", false
	}
	j := s.skipSpace(from)
	c, n := s.at(j)
	var close byte
	switch c {
	case '<':
		close = '>'
	case '"':
		close = '"'
	default:
		return "", false
	}
	var b []byte
	for k := n; k < end; {
		c, m := s.at(k)
		if c == close {
			rest := s.skipSpace(m)
			return string(b), rest >= end
		}
		b = append(b, c)
		k = m
	}
	return "", false
}

type word struct {
	text string
	off  int
}

// idents lists the identifiers between from and end.
func (s *scanner) idents(from, end int) []word {
	var ws []word
	if from < 0 {
		return nil
	}
	save := s.i
	s.i = from
	for s.i < end {
		s.token(func(id string, off int) { ws = append(ws, word{id, off}) })
	}
	s.i = save
	return ws
}

// token consumes one token (or blank, comment, literal) at s.i, calling
// onIdent for identifiers, and maintains atLineStart.
func (s *scanner) token(onIdent func(string, int)) {
	i := s.splice(s.i)
	if i >= len(s.src) {
		s.i = i
		return
	}
	c := s.src[i]
	switch {
	case c == '\n':
		s.i = i + 1
		s.atLineStart = true
		return
	case c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v':
		s.i = i + 1
		return
	case c == '/':
		c2, n2 := s.at(i + 1)
		if c2 == '*' {
			s.i = s.blockComment(n2)
			return
		}
		if c2 == '/' {
			s.i = s.lineEndFrom(i)
			return
		}
	case c >= '0' && c <= '9' || c == '.' && i+1 < len(s.src) && s.src[i+1] >= '0' && s.src[i+1] <= '9':
		// A pp-number, with digit separators (1'000) and exponent signs.
		k := i + 1
		for {
			c, n := s.at(k)
			if c == '+' || c == '-' {
				if p := s.src[k-1] | 0x20; p == 'e' || p == 'p' {
					k = n
					continue
				}
			}
			if !(isIdentChar(c) || c == '.' || c == '\'') || k >= len(s.src) {
				break
			}
			k = n
		}
		s.i = k
		s.atLineStart = false
		return
	case c == '"' || c == '\'':
		s.i = s.quoted(i+1, c)
		s.atLineStart = false
		return
	case isIdentStart(c):
		var b []byte
		k := i
		for {
			c, n := s.at(k)
			if !isIdentChar(c) || k >= len(s.src) {
				break
			}
			b = append(b, c)
			k = n
		}
		id := string(b)
		// String literal prefixes: R"delim( ... )delim" and u8/u/U/L.
		if q, n := s.at(k); q == '"' {
			switch id {
			case "R", "LR", "uR", "UR", "u8R":
				s.i = s.raw(n)
				s.atLineStart = false
				return
			case "L", "u", "U", "u8":
				s.i = s.quoted(n, '"')
				s.atLineStart = false
				return
			}
		}
		if q, n := s.at(k); q == '\'' && (id == "L" || id == "u" || id == "U" || id == "u8") {
			s.i = s.quoted(n, '\'')
			s.atLineStart = false
			return
		}
		onIdent(id, i)
		s.i = k
		s.atLineStart = false
		return
	}
	s.i = i + 1
	s.atLineStart = false
}

// quoted skips a string or character literal body up to its closing quote
// or the end of the line (an unterminated literal ends there, as in C++).
func (s *scanner) quoted(i int, q byte) int {
	for {
		c, n := s.at(i)
		if n >= len(s.src) && c == 0 {
			return len(s.src)
		}
		switch c {
		case q:
			return n
		case '\n':
			return n - 1
		case '\\':
			_, n2 := s.at(n)
			i = n2
			continue
		}
		i = n
	}
}

// raw skips a raw string literal after R": delimiter, '(' ... ')' delimiter
// '"'. No splicing happens inside (C++ reverts it), so it reads bytes.
func (s *scanner) raw(i int) int {
	p := strings.IndexByte(s.src[i:], '(')
	if p < 0 || p > 16 || strings.ContainsAny(s.src[i:i+p], " ()\\\t\n\"") {
		// Not a valid raw string: clang reports an error; treat the rest of
		// the line as the literal (refusal checks still see later lines).
		return s.lineEndFrom(i)
	}
	delim := ")" + s.src[i:i+p] + "\""
	e := strings.Index(s.src[i+p+1:], delim)
	if e < 0 {
		return s.lineEndFrom(i)
	}
	return i + p + 1 + e + len(delim)
}
