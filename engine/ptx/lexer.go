package ptx

import (
	"fmt"
	"math"
	"strconv"
	"unicode/utf8"
)

// TokKind classifies a token.
type TokKind uint8

const (
	TokEOF       TokKind = iota
	TokIdent             // "%r1", "$L__BB0_2", "ld", "_"
	TokDirective         // ".reg", ".shared::cta", ".L2::cache_hint", ".x" (text includes the dot)
	TokInt               // "42", "0x1F", "017", "0b101", "42U"
	TokFloat             // "1.5", "1e-3", "0f3F800000", "0d3FF0000000000000"
	TokString            // "\"name\"" (text includes the quotes)

	TokComma    // ,
	TokSemi     // ;
	TokColon    // :
	TokLParen   // (
	TokRParen   // )
	TokLBrack   // [
	TokRBrack   // ]
	TokLBrace   // {
	TokRBrace   // }
	TokLt       // <
	TokGt       // >
	TokPlus     // +
	TokMinus    // -
	TokStar     // *
	TokSlash    // /
	TokPercent  // %
	TokBang     // !
	TokTilde    // ~
	TokAmp      // &
	TokPipe     // |
	TokCaret    // ^
	TokQuestion // ?
	TokAssign   // =
	TokAt       // @
	TokAndAnd   // &&
	TokOrOr     // ||
	TokEq       // ==
	TokNe       // !=
	TokLe       // <=
	TokGe       // >=
	TokShl      // <<
	TokShr      // >>

	numTokKinds
)

var tokNames = [numTokKinds]string{
	TokEOF: "end of file", TokIdent: "identifier", TokDirective: "directive", TokInt: "integer literal",
	TokFloat: "floating-point literal", TokString: "string literal",
	TokComma: "','", TokSemi: "';'", TokColon: "':'", TokLParen: "'('", TokRParen: "')'",
	TokLBrack: "'['", TokRBrack: "']'", TokLBrace: "'{'", TokRBrace: "'}'", TokLt: "'<'", TokGt: "'>'",
	TokPlus: "'+'", TokMinus: "'-'", TokStar: "'*'", TokSlash: "'/'", TokPercent: "'%'", TokBang: "'!'",
	TokTilde: "'~'", TokAmp: "'&'", TokPipe: "'|'", TokCaret: "'^'", TokQuestion: "'?'", TokAssign: "'='",
	TokAt: "'@'", TokAndAnd: "'&&'", TokOrOr: "'||'", TokEq: "'=='", TokNe: "'!='", TokLe: "'<='",
	TokGe: "'>='", TokShl: "'<<'", TokShr: "'>>'",
}

func (k TokKind) String() string {
	if k < numTokKinds {
		return tokNames[k]
	}
	return "token(" + strconv.Itoa(int(k)) + ")"
}

// Token is one lexical token. Its text is Source.Text[Span.Start:Span.End].
type Token struct {
	Kind TokKind
	// NL reports whether a line break (possibly inside a comment) separates
	// the token from the previous one; the first token of a file has NL set.
	// The parser uses it for .loc/.file lines, which have no ';'.
	NL   bool
	Span Span
}

// Character classes for the lexer.
const (
	cLetter = 1 << iota // a-z A-Z
	cDigit              // 0-9
	cIdent              // letters, digits, '_' and '$'
	cSpace              // ' ' \t \r \v \f (not \n)
	cHex                // 0-9 a-f A-F
)

var charClass = func() (t [256]uint8) {
	for c := 'a'; c <= 'z'; c++ {
		t[c] |= cLetter | cIdent
	}
	for c := 'A'; c <= 'Z'; c++ {
		t[c] |= cLetter | cIdent
	}
	for c := '0'; c <= '9'; c++ {
		t[c] |= cDigit | cIdent | cHex
	}
	for _, c := range "abcdefABCDEF" {
		t[c] |= cHex
	}
	t['_'] |= cIdent
	t['$'] |= cIdent
	for _, c := range " \t\r\v\f" {
		t[c] |= cSpace
	}
	return
}()

func isIdentChar(c byte) bool { return charClass[c]&cIdent != 0 }

// lexer turns source bytes into tokens on demand. Lexical errors are
// reported to diags and lexing continues after the offending text.
type lexer struct {
	src   []byte
	pos   int
	diags *DiagList
	prev  Token // the previous token (Kind TokEOF before the first)
	first bool
}

func newLexer(src []byte, diags *DiagList) *lexer {
	// Some toolchains save a module with NUL padding after its text; the
	// trailing NUL bytes are not part of the module and are ignored (a NUL
	// anywhere else is still an invalid byte).
	for len(src) > 0 && src[len(src)-1] == 0 {
		src = src[:len(src)-1]
	}
	lx := &lexer{src: src, diags: diags, first: true}
	if len(src) >= 3 && src[0] == 0xEF && src[1] == 0xBB && src[2] == 0xBF {
		lx.pos = 3 // skip a UTF-8 byte order mark
	}
	return lx
}

func (lx *lexer) errorf(start, end int, id DiagID, format string, args ...any) {
	lx.diags.Errorf(Span{int32(start), int32(end)}, id, format, args...)
}

// Tokenize lexes all of src, for tools such as syntax highlighters. The
// final token is TokEOF.
func Tokenize(src []byte) ([]Token, []Diagnostic) {
	var diags DiagList
	lx := newLexer(src, &diags)
	toks := make([]Token, 0, len(src)/4+1)
	for {
		t := lx.next()
		toks = append(toks, t)
		if t.Kind == TokEOF {
			return toks, diags.Diags
		}
	}
}

// skipSpace skips white space and comments and reports whether it crossed a
// line break.
func (lx *lexer) skipSpace() bool {
	nl := false
	src := lx.src
	for lx.pos < len(src) {
		c := src[lx.pos]
		switch {
		case charClass[c]&cSpace != 0:
			lx.pos++
		case c == '\n':
			nl = true
			lx.pos++
		case c == '/' && lx.pos+1 < len(src) && src[lx.pos+1] == '/':
			lx.skipLine()
		case c == '/' && lx.pos+1 < len(src) && src[lx.pos+1] == '*':
			start := lx.pos
			lx.pos += 2
			closed := false
			for lx.pos < len(src) {
				if src[lx.pos] == '*' && lx.pos+1 < len(src) && src[lx.pos+1] == '/' {
					lx.pos += 2
					closed = true
					break
				}
				if src[lx.pos] == '\n' {
					nl = true
				}
				lx.pos++
			}
			if !closed {
				lx.errorf(start, start+2, DiagUnterminatedComment, "comment not terminated")
			}
		case c == '@' && lx.pos+6 < len(src) && src[lx.pos+1] == '@' && string(src[lx.pos+2:lx.pos+7]) == "DWARF":
			// "@@DWARF ..." debug lines of old nvcc output: skip the line.
			lx.skipLine()
		default:
			return nl
		}
	}
	return nl
}

// skipLine advances to the next '\n' (not consumed).
func (lx *lexer) skipLine() {
	for lx.pos < len(lx.src) && lx.src[lx.pos] != '\n' {
		lx.pos++
	}
}

// next returns the next token.
func (lx *lexer) next() Token {
	nl := lx.first
	lx.first = false
	for {
		if lx.skipSpace() {
			nl = true
		}
		start := lx.pos
		kind := lx.scan()
		if kind == tokSkip {
			continue // an invalid character was reported and skipped
		}
		t := Token{Kind: kind, NL: nl, Span: Span{int32(start), int32(lx.pos)}}
		lx.prev = t
		return t
	}
}

// tokSkip is returned by scan after it reported and skipped invalid input.
const tokSkip = numTokKinds

// scan lexes one token starting at lx.pos (not white space). It consumes
// input unless at end of file.
func (lx *lexer) scan() TokKind {
	src := lx.src
	if lx.pos >= len(src) {
		return TokEOF
	}
	start := lx.pos
	c := src[start]
	cls := charClass[c]
	switch {
	case cls&cLetter != 0:
		lx.pos++
		lx.identRest()
		return TokIdent
	case cls&cDigit != 0:
		return lx.number()
	}
	switch c {
	case '_', '$':
		lx.pos++
		if lx.pos < len(src) && isIdentChar(src[lx.pos]) {
			lx.identRest()
			return TokIdent
		}
		if c == '_' {
			return TokIdent // the sink "_"
		}
		lx.errorf(start, lx.pos, DiagInvalidCharacter, "invalid identifier '$'")
		return tokSkip
	case '%':
		lx.pos++
		if lx.pos < len(src) && isIdentChar(src[lx.pos]) && !lx.percentIsOperator(start) {
			lx.identRest()
			return TokIdent
		}
		return TokPercent
	case '.':
		return lx.dot()
	case '"':
		return lx.str()
	case ',':
		lx.pos++
		return TokComma
	case ';':
		lx.pos++
		return TokSemi
	case ':':
		lx.pos++
		return TokColon
	case '(':
		lx.pos++
		return TokLParen
	case ')':
		lx.pos++
		return TokRParen
	case '[':
		lx.pos++
		return TokLBrack
	case ']':
		lx.pos++
		return TokRBrack
	case '{':
		lx.pos++
		return TokLBrace
	case '}':
		lx.pos++
		return TokRBrace
	case '+':
		lx.pos++
		return TokPlus
	case '-':
		lx.pos++
		return TokMinus
	case '*':
		lx.pos++
		return TokStar
	case '/':
		lx.pos++
		return TokSlash
	case '~':
		lx.pos++
		return TokTilde
	case '^':
		lx.pos++
		return TokCaret
	case '?':
		lx.pos++
		return TokQuestion
	case '@':
		lx.pos++
		return TokAt
	case '<':
		return lx.two('<', TokShl, '=', TokLe, TokLt)
	case '>':
		return lx.two('>', TokShr, '=', TokGe, TokGt)
	case '&':
		return lx.two('&', TokAndAnd, 0, 0, TokAmp)
	case '|':
		return lx.two('|', TokOrOr, 0, 0, TokPipe)
	case '=':
		return lx.two('=', TokEq, 0, 0, TokAssign)
	case '!':
		return lx.two('=', TokNe, 0, 0, TokBang)
	}
	// Invalid character: report it and skip it (a whole UTF-8 sequence).
	r, n := utf8.DecodeRune(src[start:])
	lx.pos += n
	if r == utf8.RuneError && n <= 1 {
		lx.errorf(start, lx.pos, DiagInvalidCharacter, "invalid byte 0x%02x", c)
	} else {
		lx.errorf(start, lx.pos, DiagInvalidCharacter, "invalid character %q", r)
	}
	return tokSkip
}

// two lexes a one- or two-character operator starting at lx.pos.
func (lx *lexer) two(c1 byte, k1 TokKind, c2 byte, k2 TokKind, k0 TokKind) TokKind {
	lx.pos++
	if lx.pos < len(lx.src) {
		switch c := lx.src[lx.pos]; {
		case c == c1:
			lx.pos++
			return k1
		case c2 != 0 && c == c2:
			lx.pos++
			return k2
		}
	}
	return k0
}

// percentIsOperator reports whether the '%' at off (followed by an
// identifier character) is the remainder operator rather than the start of a
// "%name" identifier: it is after an operand-ending token ("16%5", "(a)%b",
// "a%b" without spaces).
func (lx *lexer) percentIsOperator(off int) bool {
	switch lx.prev.Kind {
	case TokInt, TokFloat, TokRParen:
		return true
	case TokIdent:
		return int(lx.prev.Span.End) == off
	}
	return false
}

func (lx *lexer) identRest() {
	src := lx.src
	for lx.pos < len(src) && charClass[src[lx.pos]]&cIdent != 0 {
		lx.pos++
	}
}

// dot lexes a directive or modifier (".reg", ".shared::cta", ".L2::128B",
// ".1d") or a float literal starting with a dot (".5").
func (lx *lexer) dot() TokKind {
	src := lx.src
	start := lx.pos
	lx.pos++
	if lx.pos >= len(src) || !isIdentChar(src[lx.pos]) {
		lx.errorf(start, lx.pos, DiagInvalidCharacter, "invalid character '.'")
		return tokSkip
	}
	if charClass[src[lx.pos]]&cDigit != 0 {
		// ".5" or ".5e3" is a float; ".1d" is a modifier.
		p := lx.pos
		for p < len(src) && charClass[src[p]]&cDigit != 0 {
			p++
		}
		if e := lx.exponent(p); e > p {
			p = e
		}
		if p >= len(src) || !isIdentChar(src[p]) {
			lx.pos = p
			return TokFloat
		}
	}
	lx.identRest()
	for lx.pos+2 < len(src) && src[lx.pos] == ':' && src[lx.pos+1] == ':' && isIdentChar(src[lx.pos+2]) {
		lx.pos += 2
		lx.identRest()
	}
	return TokDirective
}

// exponent returns the end of an exponent "e[+-]digits" starting at p, or p.
func (lx *lexer) exponent(p int) int {
	src := lx.src
	if p >= len(src) || (src[p] != 'e' && src[p] != 'E') {
		return p
	}
	q := p + 1
	if q < len(src) && (src[q] == '+' || src[q] == '-') {
		q++
	}
	if q >= len(src) || charClass[src[q]]&cDigit == 0 {
		return p
	}
	for q < len(src) && charClass[src[q]]&cDigit != 0 {
		q++
	}
	return q
}

// number lexes an integer or floating-point literal.
func (lx *lexer) number() TokKind {
	src := lx.src
	start := lx.pos
	if src[start] == '0' && start+1 < len(src) {
		switch src[start+1] {
		case 'f', 'F', 'd', 'D':
			lx.pos = start + 2
			lx.identRest()
			if _, _, ok := decodeHexFloat(src[start:lx.pos]); !ok {
				n := 8
				if src[start+1] == 'd' || src[start+1] == 'D' {
					n = 16
				}
				lx.errorf(start, lx.pos, DiagMalformedNumber, "malformed floating-point literal %q (want %d hex digits after %q)",
					src[start:lx.pos], n, src[start:start+2])
			}
			return TokFloat
		case 'x', 'X', 'b', 'B':
			lx.pos = start + 2
			lx.identRest()
			if _, _, ok := decodeInt(src[start:lx.pos]); !ok {
				lx.reportBadInt(start)
			}
			return TokInt
		}
	}
	p := start
	for p < len(src) && charClass[src[p]]&cDigit != 0 {
		p++
	}
	isFloat := false
	if p < len(src) && src[p] == '.' && (p+1 >= len(src) || !isIdentChar(src[p+1]) || charClass[src[p+1]]&cDigit != 0) {
		// "1.5", "1." (but not "1.x")
		isFloat = true
		p++
		for p < len(src) && charClass[src[p]]&cDigit != 0 {
			p++
		}
	}
	if e := lx.exponent(p); e > p {
		isFloat = true
		p = e
	}
	lx.pos = p
	lx.identRest() // a bad suffix stays part of the literal
	text := src[start:lx.pos]
	if isFloat {
		if _, ok := decodeDecimalFloat(text); !ok {
			lx.errorf(start, lx.pos, DiagMalformedNumber, "malformed floating-point literal %q", text)
		}
		return TokFloat
	}
	if _, _, ok := decodeInt(text); !ok {
		lx.reportBadInt(start)
	}
	return TokInt
}

func (lx *lexer) reportBadInt(start int) {
	text := lx.src[start:lx.pos]
	if _, _, overflow := decodeIntOverflow(text); overflow {
		lx.errorf(start, lx.pos, DiagMalformedNumber, "integer literal %s overflows 64 bits", text)
		return
	}
	lx.errorf(start, lx.pos, DiagMalformedNumber, "malformed integer literal %q", text)
}

// str lexes a string literal. An unterminated string ends at the line end.
func (lx *lexer) str() TokKind {
	src := lx.src
	start := lx.pos
	lx.pos++
	for lx.pos < len(src) {
		switch src[lx.pos] {
		case '"':
			lx.pos++
			return TokString
		case '\\':
			lx.pos++
			if lx.pos < len(src) && src[lx.pos] != '\n' {
				lx.pos++
			}
		case '\n':
			lx.errorf(start, lx.pos, DiagUnterminatedString, "string literal not terminated")
			return TokString
		default:
			lx.pos++
		}
	}
	lx.errorf(start, lx.pos, DiagUnterminatedString, "string literal not terminated")
	return TokString
}

// decodeInt decodes an integer literal (decimal, 0x hex, 0 octal, 0b binary,
// optional U suffix). ok is false for malformed or overflowing literals.
func decodeInt(text []byte) (v uint64, unsigned bool, ok bool) {
	v, unsigned, overflow := decodeIntOverflow(text)
	if overflow {
		return 0, unsigned, false
	}
	return v, unsigned, validInt(text)
}

// validInt reports whether text is a well-formed integer literal.
func validInt(text []byte) bool {
	if n := len(text); n > 0 && (text[n-1] == 'U' || text[n-1] == 'u') {
		text = text[:n-1]
	}
	if len(text) == 0 {
		return false
	}
	base, digits := intBase(text)
	if len(digits) == 0 {
		return base == 8 // "0"
	}
	for _, c := range digits {
		if digitVal(c) >= base {
			return false
		}
	}
	return true
}

func intBase(text []byte) (uint64, []byte) {
	if len(text) >= 2 && text[0] == '0' {
		switch text[1] {
		case 'x', 'X':
			return 16, text[2:]
		case 'b', 'B':
			return 2, text[2:]
		}
		return 8, text[1:]
	}
	if len(text) == 1 && text[0] == '0' {
		return 8, text[1:]
	}
	return 10, text
}

func digitVal(c byte) uint64 {
	switch {
	case c >= '0' && c <= '9':
		return uint64(c - '0')
	case c >= 'a' && c <= 'f':
		return uint64(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return uint64(c-'A') + 10
	}
	return 99
}

// decodeIntOverflow decodes the digits of an integer literal, ignoring
// malformed digits, and reports overflow of 64 bits.
func decodeIntOverflow(text []byte) (v uint64, unsigned bool, overflow bool) {
	if n := len(text); n > 0 && (text[n-1] == 'U' || text[n-1] == 'u') {
		text = text[:n-1]
		unsigned = true
	}
	base, digits := intBase(text)
	for _, c := range digits {
		d := digitVal(c)
		if d >= base {
			return v, unsigned, false
		}
		hi, lo := mulAdd(v, base, d)
		if hi {
			return 0, unsigned, true
		}
		v = lo
	}
	return v, unsigned, false
}

// mulAdd returns v*base+d and whether it overflowed 64 bits.
func mulAdd(v, base, d uint64) (bool, uint64) {
	if v > (math.MaxUint64-d)/base {
		return true, 0
	}
	return false, v*base + d
}

// decodeHexFloat decodes "0fXXXXXXXX" (f32 bits) and "0dXXXXXXXXXXXXXXXX"
// (f64 bits).
func decodeHexFloat(text []byte) (v float64, f32 bool, ok bool) {
	if len(text) < 2 {
		return 0, false, false
	}
	n := 8
	f32 = text[1] == 'f' || text[1] == 'F'
	if !f32 {
		n = 16
	}
	digits := text[2:]
	if len(digits) != n {
		return 0, f32, false
	}
	var bits uint64
	for _, c := range digits {
		d := digitVal(c)
		if d >= 16 {
			return 0, f32, false
		}
		bits = bits<<4 | d
	}
	if f32 {
		return float64(math.Float32frombits(uint32(bits))), true, true
	}
	return math.Float64frombits(bits), false, true
}

// decodeDecimalFloat decodes "1.5", "1.", ".5", "1e-3".
func decodeDecimalFloat(text []byte) (float64, bool) {
	for _, c := range text {
		if !(charClass[c]&cDigit != 0 || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-') {
			return 0, false
		}
	}
	v, err := strconv.ParseFloat(string(text), 64)
	if err != nil {
		// Out-of-range values parse to ±Inf with a range error; accept them.
		if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
			return v, true
		}
		return 0, false
	}
	return v, true
}

// describe returns a short description of a token for error messages.
func describeTok(src []byte, t Token) string {
	switch t.Kind {
	case TokEOF:
		return "end of file"
	case TokIdent, TokDirective, TokInt, TokFloat:
		text := src[t.Span.Start:t.Span.End]
		if len(text) > 40 {
			return fmt.Sprintf("%q...", text[:40])
		}
		return fmt.Sprintf("%q", text)
	case TokString:
		return "string literal"
	}
	return t.Kind.String()
}

// hexFloatBits returns the bit pattern written by a 0f/0d literal.
func hexFloatBits(text []byte) uint64 {
	var bits uint64
	for _, c := range text[2:] {
		if d := digitVal(c); d < 16 {
			bits = bits<<4 | d
		}
	}
	return bits
}
