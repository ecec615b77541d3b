package ptx

import (
	"strconv"
	"unsafe"

	"github.com/ptxplayground/ptxplay/engine/isa"
)

// maxNesting bounds the nesting of blocks, braces, parentheses and unary
// operators so that hostile input cannot exhaust the stack.
const maxNesting = 1000

// parser is a tolerant recursive-descent parser. Every parse function that
// meets an error reports it once and returns nil (or false); the statement
// level then resynchronizes at the next ';' or '}' (like go/parser).
type parser struct {
	src   *Source
	text  []byte
	lx    *lexer
	diags DiagList

	tok     Token   // current token
	la      []Token // lookahead tokens after tok
	laBuf   [4]Token
	prevEnd int32 // end offset of the previously consumed token
	ntok    int   // tokens consumed, to check progress
	// versionStmt is the index of the top-level statement .version is.
	versionStmt int

	strs      map[string]string // interned identifiers and modifiers
	depth     int
	deepError bool // the nesting error was reported for this statement

	// Slabs: AST nodes are carved out of chunks to keep allocation cheap.
	instrSlab []Instr
	opSlab    []Operand
	exprSlab  []Expr
	opPtrSlab []*Operand
	modSlab   []Mod
	slabBytes int64 // the bytes of every chunk allocated (Module.SlabBytes)
	// Stacks collecting operands and modifiers before they get their
	// exact-size slices (shared by nested lists).
	opStack  []*Operand
	modStack []Mod
	// lostSpans are the source ranges of dropped statements (Module.Lost).
	lostSpans []Span
}

// lost records that the statement or declaration that began at start was
// dropped after a syntax error (it ends where parsing stopped).
func (p *parser) lost(start int32) {
	if p.prevEnd > start {
		p.lostSpans = append(p.lostSpans, Span{start, p.prevEnd})
	}
}

const slabSize = 512

// slabNew returns a pointer to a fresh zero T carved from *slab.
func slabNew[T any](slab *[]T, bytes *int64) *T {
	if len(*slab) == 0 {
		*slab = make([]T, slabSize)
		*bytes += slabSize * int64(unsafe.Sizeof((*slab)[0]))
	}
	x := &(*slab)[0]
	*slab = (*slab)[1:]
	return x
}

// slabCopy returns a copy of src in a slice carved from *slab (with
// capacity equal to its length, so appends by users reallocate).
func slabCopy[T any](bytes *int64, slab *[]T, src []T) []T {
	n := len(src)
	if n == 0 {
		return nil
	}
	if n > slabSize/8 {
		*bytes += int64(n) * int64(unsafe.Sizeof(src[0]))
		return append([]T(nil), src...)
	}
	if len(*slab) < n {
		*slab = make([]T, slabSize)
		*bytes += slabSize * int64(unsafe.Sizeof(src[0]))
	}
	r := (*slab)[:n:n]
	*slab = (*slab)[n:]
	copy(r, src)
	return r
}

func (p *parser) newOperand(o Operand) *Operand {
	x := slabNew(&p.opSlab, &p.slabBytes)
	*x = o
	return x
}

func (p *parser) newExpr(e Expr) *Expr {
	x := slabNew(&p.exprSlab, &p.slabBytes)
	*x = e
	return x
}

// dropOperands discards the operands pushed on opStack since base.
func (p *parser) dropOperands(base int) {
	clear(p.opStack[base:])
	p.opStack = p.opStack[:base]
}

// popOperands returns the operands pushed on opStack since base.
func (p *parser) popOperands(base int) []*Operand {
	ops := slabCopy(&p.slabBytes, &p.opPtrSlab, p.opStack[base:])
	clear(p.opStack[base:])
	p.opStack = p.opStack[:base]
	return ops
}

// Parse parses a whole PTX module. It never panics; syntax errors are
// returned as diagnostics (at most MaxErrors errors, sorted by position)
// together with the part of the module that could be parsed.
func Parse(src *Source) (*Module, []Diagnostic) {
	p := &parser{src: src, text: src.Text, strs: make(map[string]string, 256)}
	p.lx = newLexer(src.Text, &p.diags)
	p.la = p.laBuf[:0]
	p.next()
	m := &Module{Src: src, AddressSize: 64}
	p.parseModule(m)
	m.Lost = p.lostSpans
	m.SlabBytes = p.slabBytes
	p.diags.Sort()
	for _, d := range p.diags.Diags {
		if d.Severity == SevError {
			m.errStarts = append(m.errStarts, d.Span.Start)
		}
	}
	// Keep the "too many errors" note last.
	if p.diags.Full() {
		ds := p.diags.Diags
		for i, d := range ds {
			if d.Severity == SevNote {
				copy(ds[i:], ds[i+1:])
				ds[len(ds)-1] = d
				break
			}
		}
	}
	return m, p.diags.Diags
}

// ---- token handling ----

func (p *parser) next() {
	p.prevEnd = p.tok.Span.End
	p.ntok++
	if len(p.la) > 0 {
		p.tok = p.la[0]
		copy(p.la, p.la[1:])
		p.la = p.la[:len(p.la)-1]
		return
	}
	p.tok = p.lx.next()
}

// peek returns the i-th token after the current one (i >= 1).
func (p *parser) peek(i int) Token {
	for len(p.la) < i {
		if p.tok.Kind == TokEOF || (len(p.la) > 0 && p.la[len(p.la)-1].Kind == TokEOF) {
			return Token{Kind: TokEOF, Span: Span{int32(len(p.text)), int32(len(p.text))}}
		}
		p.la = append(p.la, p.lx.next())
	}
	return p.la[i-1]
}

func (p *parser) tokText(t Token) []byte { return p.text[t.Span.Start:t.Span.End] }

// dirName returns the current directive's name without the dot.
func (p *parser) dirName() string {
	b := p.tokText(p.tok)
	return p.intern(b[1:])
}

// isDir reports whether the current token is the directive name (with dot).
func (p *parser) isDir(name string) bool {
	return p.tok.Kind == TokDirective && string(p.tokText(p.tok)) == name
}

// intern returns b as a string, sharing one copy per distinct name
// (registers, modifiers and opcodes repeat a lot).
func (p *parser) intern(b []byte) string {
	if s, ok := p.strs[string(b)]; ok {
		return s
	}
	s := string(b)
	p.strs[s] = s
	return s
}

func (p *parser) errorf(span Span, id DiagID, format string, args ...any) {
	p.diags.Errorf(span, id, format, args...)
}

// errorExpected reports "expected X, found Y" at the current token, or at
// the end of the previous line when the current token starts a new line
// (the line is what is incomplete).
func (p *parser) errorExpected(what string) {
	if p.tok.NL && p.ntok > 1 {
		p.errorf(Span{p.prevEnd, p.prevEnd}, DiagSyntax, "expected %s, found newline", what)
		return
	}
	p.errorf(p.tok.Span, DiagSyntax, "expected %s, found %s", what, describeTok(p.text, p.tok))
}

// errorAtTok reports a syntax error at the current token.
func (p *parser) errorAtTok(format string, args ...any) {
	p.errorf(p.tok.Span, DiagSyntax, format, args...)
}

func (p *parser) got(k TokKind) bool {
	if p.tok.Kind == k {
		p.next()
		return true
	}
	return false
}

// expect consumes a token of kind k or reports an error and returns false.
func (p *parser) expect(k TokKind) bool {
	if p.tok.Kind == k {
		p.next()
		return true
	}
	p.errorExpected(k.String())
	return false
}

// enter increments the nesting depth; it reports an error (once per
// statement) and returns false when the input nests too deeply.
func (p *parser) enter() bool {
	p.depth++
	if p.depth > maxNesting {
		if !p.deepError {
			p.deepError = true
			p.errorf(p.tok.Span, DiagNestingTooDeep, "nesting too deep (more than %d levels)", maxNesting)
		}
		return false
	}
	return true
}

func (p *parser) leave() { p.depth-- }

// ---- recovery ----

// syncStmt skips to the end of a broken statement: past the next ';', or
// up to (not past) a '}' closing the enclosing block, or up to a directive
// at the start of a line that can only appear at module level.
func (p *parser) syncStmt() {
	p.deepError = false
	depth := 0
	for {
		switch p.tok.Kind {
		case TokEOF:
			return
		case TokSemi:
			if depth == 0 {
				p.next()
				return
			}
		case TokLBrace:
			depth++
		case TokRBrace:
			if depth == 0 {
				return
			}
			depth--
		case TokDirective:
			if p.tok.NL && p.moduleOnlyDirective() {
				return
			}
		}
		p.next()
	}
}

// syncTop skips a broken module-level statement that began at start: past
// the next ';' or a balanced "{...}", or up to a later directive at a line
// start that begins a module-level statement.
func (p *parser) syncTop(start int32) {
	p.deepError = false
	for {
		switch p.tok.Kind {
		case TokEOF:
			return
		case TokSemi:
			p.next()
			return
		case TokLBrace:
			p.skipBalanced()
			return
		case TokRBrace:
			p.next()
			return
		case TokDirective:
			if p.tok.Span.Start > start && p.tok.NL && p.topLevelDirective() {
				return
			}
		}
		p.next()
	}
}

// skipBalanced skips a "{...}" group starting at the current '{' (which
// must be the current token), nesting included.
func (p *parser) skipBalanced() {
	depth := 0
	for {
		switch p.tok.Kind {
		case TokEOF:
			return
		case TokLBrace:
			depth++
		case TokRBrace:
			depth--
			if depth <= 0 {
				p.next()
				return
			}
		}
		p.next()
	}
}

// skipLine skips the current token and the rest of its line (.loc and
// .file have no ';'), stopping early after a ';' or before a brace.
func (p *parser) skipLine() {
	p.next()
	for p.tok.Kind != TokEOF && !p.tok.NL {
		switch p.tok.Kind {
		case TokSemi:
			p.next()
			return
		case TokLBrace, TokRBrace:
			return
		}
		p.next()
	}
}

// ---- directive classes ----

func (p *parser) moduleOnlyDirective() bool {
	switch string(p.tokText(p.tok)) {
	case ".entry", ".func", ".visible", ".weak", ".common", ".version", ".target", ".address_size", ".section":
		return true
	}
	return false
}

func (p *parser) topLevelDirective() bool {
	if p.moduleOnlyDirective() {
		return true
	}
	switch string(p.tokText(p.tok)) {
	case ".extern", ".file", ".loc", ".pragma", ".alias":
		return true
	}
	return p.declStart()
}

// declStart reports whether the current directive begins a variable
// declaration.
func (p *parser) declStart() bool {
	b := p.tokText(p.tok)
	if len(b) < 2 {
		return false
	}
	name := b[1:]
	if _, ok := isa.SpaceByName[string(name)]; ok {
		return true
	}
	switch string(name) {
	case "align", "texref", "samplerref", "surfref":
		return true
	}
	return false
}

func linkageOf(name []byte) (Linkage, bool) {
	switch string(name) {
	case ".visible":
		return LinkVisible, true
	case ".extern":
		return LinkExtern, true
	case ".weak":
		return LinkWeak, true
	case ".common":
		return LinkCommon, true
	}
	return LinkNone, false
}

// perfDirective reports whether name (with dot) is a directive that may sit
// between a function's signature and its body.
func perfDirective(name []byte) bool {
	switch string(name) {
	case ".maxntid", ".reqntid", ".minnctapersm", ".maxnctapersm", ".maxnreg", ".reqnctapercluster",
		".explicitcluster", ".maxclusterrank", ".blocksareclusters", ".pragma", ".abi_preserve",
		".abi_preserve_control":
		return true
	}
	return false
}

// ---- module level ----

func (p *parser) parseModule(m *Module) {
	stmt := 0 // index of the top-level statement being parsed
	for p.tok.Kind != TokEOF && !p.diags.Full() {
		n := p.ntok
		start, errs, decls := p.tok.Span.Start, p.diags.Errors, len(m.Decls)
		if p.tok.Kind != TokSemi {
			p.header(m, stmt)
			stmt++
		}
		p.parseTop(m)
		if p.diags.Errors > errs && len(m.Decls) == decls {
			p.lost(start)
		}
		if p.ntok == n && p.tok.Kind != TokEOF {
			p.next() // always make progress
		}
	}
}

// header records in m.Header where the module's .version and .target
// directives are, given the index of the top-level statement at p.tok.
func (p *parser) header(m *Module, stmt int) {
	h := &m.Header
	if stmt == 0 {
		h.First = p.tok.Span
	}
	if p.tok.Kind != TokDirective {
		return
	}
	switch string(p.tokText(p.tok)) {
	case ".version":
		if h.Version.End == 0 {
			h.Version, h.VersionFirst = p.tok.Span, stmt == 0
			p.versionStmt = stmt
		}
	case ".target":
		if h.Target.End == 0 {
			h.Target = p.tok.Span
			h.TargetNext = h.Version.End != 0 && stmt == p.versionStmt+1
		}
	}
}

func (p *parser) parseTop(m *Module) {
	switch p.tok.Kind {
	case TokSemi:
		p.next()
		return
	case TokRBrace:
		p.errorf(p.tok.Span, DiagSyntax, "unexpected '}' at module level")
		p.next()
		return
	case TokDirective:
	default:
		p.errorAtTok("expected directive, found %s", describeTok(p.text, p.tok))
		p.syncTop(p.tok.Span.Start)
		return
	}
	start := p.tok.Span.Start
	name := p.tokText(p.tok)
	switch string(name) {
	case ".version":
		p.next()
		if p.tok.Kind == TokFloat || p.tok.Kind == TokInt {
			m.Version = string(p.tokText(p.tok))
			p.next()
		} else {
			p.errorExpected("version number")
			p.syncTop(start)
		}
	case ".target":
		p.next()
		for {
			if p.tok.Kind != TokIdent {
				p.errorExpected("target name")
				p.syncTop(start)
				return
			}
			m.Target = append(m.Target, p.intern(p.tokText(p.tok)))
			p.next()
			if !p.got(TokComma) {
				break
			}
		}
	case ".address_size":
		p.next()
		if p.tok.Kind == TokInt {
			v, _, ok := decodeInt(p.tokText(p.tok))
			if ok && (v == 32 || v == 64) {
				m.AddressSize = int(v)
			} else {
				p.errorf(p.tok.Span, DiagInvalidAddressSize, "address size must be 32 or 64")
			}
			p.next()
		} else {
			p.errorExpected("address size")
			p.syncTop(start)
		}
	case ".file", ".loc":
		p.skipLine()
	case ".section":
		p.skipSection()
	case ".pragma", ".alias":
		if d := p.parseDirective(); d != nil {
			m.Directives = append(m.Directives, d)
		} else {
			p.syncTop(start)
		}
	case ".entry", ".func":
		if f := p.parseFunc(LinkNone, start); f.Name != "" {
			m.Decls = append(m.Decls, f)
		}
	default:
		link, isLink := linkageOf(name)
		if isLink {
			p.next()
			if p.tok.Kind == TokDirective {
				switch string(p.tokText(p.tok)) {
				case ".entry", ".func":
					if f := p.parseFunc(link, start); f.Name != "" {
						m.Decls = append(m.Decls, f)
					}
					return
				}
			}
		}
		if p.tok.Kind == TokDirective && p.declStart() {
			if d := p.parseVarDecl(link, start); d != nil {
				m.Decls = append(m.Decls, d)
			}
			return
		}
		if isLink {
			p.errorExpected(".entry, .func or a variable declaration")
		} else {
			p.errorf(p.tok.Span, DiagUnknownDirective, "unknown directive %s", describeTok(p.text, p.tok))
		}
		p.syncTop(start)
	}
}

// skipSection skips ".section name { ... }" (DWARF data).
func (p *parser) skipSection() {
	sec := p.tok.Span
	p.next()
	for p.tok.Kind != TokLBrace {
		if p.tok.Kind == TokEOF || p.tok.Kind == TokSemi ||
			(p.tok.NL && p.tok.Kind == TokDirective && p.topLevelDirective()) {
			p.errorf(sec, DiagSyntax, "expected '{' after .section")
			p.got(TokSemi)
			return
		}
		p.next()
	}
	p.skipBalanced()
}

// parseDirective parses ".name arg, arg ... [;]" where the arguments are
// constant expressions or strings on the same line.
func (p *parser) parseDirective() *Directive {
	d := &Directive{Span: p.tok.Span, Name: p.dirName()}
	p.next()
	if !p.tok.NL && p.exprStart() {
		for {
			var e *Expr
			if p.tok.Kind == TokString {
				e = p.stringExpr()
				p.next()
			} else if e = p.parseExpr(); e == nil {
				return nil
			}
			d.Args = append(d.Args, e)
			if !p.got(TokComma) {
				break
			}
		}
	}
	d.Span.End = p.prevEnd
	if p.tok.Kind == TokSemi {
		d.Span.End = p.tok.Span.End
		p.next()
	}
	return d
}

func (p *parser) exprStart() bool {
	switch p.tok.Kind {
	case TokInt, TokFloat, TokIdent, TokString, TokLParen, TokMinus, TokPlus, TokBang, TokTilde:
		return true
	}
	return false
}

func (p *parser) stringExpr() *Expr {
	raw := p.tokText(p.tok)
	s, err := strconv.Unquote(string(raw))
	if err != nil {
		// Unterminated (already reported) or a PTX-only escape: keep the text.
		s = string(raw[1:])
		if n := len(s); n > 0 && s[n-1] == '"' {
			s = s[:n-1]
		}
	}
	return p.newExpr(Expr{Kind: ExprString, Span: p.tok.Span, Str: s})
}

// ---- functions ----

// parseFunc parses an .entry or .func starting at the current directive.
// After an error in the header the function is still returned (with the
// body, if one follows), except that its Name is empty if it had none; the
// caller drops such functions.
func (p *parser) parseFunc(link Linkage, start int32) *Func {
	f := &Func{Linkage: link, Kind: KindEntry}
	if p.isDir(".func") {
		f.Kind = KindFunc
	}
	p.next()
	p.funcAttrs(f)
	if f.Kind == KindFunc && p.tok.Kind == TokLParen {
		rets, ok := p.parseParamList(false)
		if !ok {
			p.recoverFunc(f)
			return p.finishFunc(f, start)
		}
		f.Rets = rets
	}
	if p.tok.Kind != TokIdent {
		p.errorExpected("function name")
		p.recoverFunc(f)
		return p.finishFunc(f, start)
	}
	f.Name = p.intern(p.tokText(p.tok))
	f.NameSpan = p.tok.Span
	p.next()
	if p.tok.Kind == TokLParen {
		params, ok := p.parseParamList(false)
		if !ok {
			p.recoverFunc(f)
			return p.finishFunc(f, start)
		}
		f.Params = params
	}
	for {
		switch p.tok.Kind {
		case TokLBrace:
			f.Body = p.parseBlock()
			return p.finishFunc(f, start)
		case TokSemi:
			p.next()
			return p.finishFunc(f, start)
		case TokEOF:
			return p.finishFunc(f, start) // legacy declaration without ';'
		case TokDirective:
			name := p.tokText(p.tok)
			switch {
			case string(name) == ".noreturn":
				f.NoReturn = true
				p.next()
				continue
			case string(name) == ".attribute":
				p.next()
				p.skipParens()
				continue
			case perfDirective(name):
				if d := p.parseDirective(); d != nil {
					f.Directives = append(f.Directives, d)
					continue
				}
				p.recoverFunc(f)
				return p.finishFunc(f, start)
			}
			if p.tok.NL && p.topLevelDirective() {
				// Old nvcc emitted prototypes without a ';'.
				return p.finishFunc(f, start)
			}
		}
		if p.tok.NL && p.tok.Kind != TokDirective {
			return p.finishFunc(f, start) // legacy declaration without ';'
		}
		p.errorf(p.tok.Span, DiagSyntax, "expected '{' or ';' after the signature of %s, found %s", f.Name, describeTok(p.text, p.tok))
		p.recoverFunc(f)
		return p.finishFunc(f, start)
	}
}

// funcAttrs parses attributes between .func and the name.
func (p *parser) funcAttrs(f *Func) {
	for p.tok.Kind == TokDirective {
		switch string(p.tokText(p.tok)) {
		case ".noreturn":
			f.NoReturn = true
			p.next()
		case ".attribute":
			p.next()
			p.skipParens()
		default:
			return
		}
	}
}

// skipParens skips a balanced "(...)" group if present.
func (p *parser) skipParens() {
	if p.tok.Kind != TokLParen {
		return
	}
	depth := 0
	for p.tok.Kind != TokEOF {
		switch p.tok.Kind {
		case TokLParen:
			depth++
		case TokRParen:
			depth--
			if depth == 0 {
				p.next()
				return
			}
		case TokLBrace, TokSemi:
			return
		}
		p.next()
	}
}

// recoverFunc skips a broken function header: a body is still parsed (so
// its statements are checked), or the header ends at ';' or at a
// module-level directive on a new line.
func (p *parser) recoverFunc(f *Func) {
	for {
		switch p.tok.Kind {
		case TokEOF:
			return
		case TokSemi:
			p.next()
			return
		case TokLBrace:
			f.Body = p.parseBlock()
			return
		case TokDirective:
			if p.tok.NL && p.topLevelDirective() {
				return
			}
		}
		p.next()
	}
}

func (p *parser) finishFunc(f *Func, start int32) *Func {
	f.Span = Span{start, p.prevEnd}
	return f
}

// parseParamList parses "(param, param, ...)" for .entry/.func parameters,
// return parameters and .callprototype. proto allows parameters without a
// name ("(.reg .f64)").
func (p *parser) parseParamList(proto bool) ([]*VarDecl, bool) {
	p.next() // '('
	var params []*VarDecl
	if p.got(TokRParen) {
		return params, true
	}
	for {
		d := p.parseParam(proto)
		if d == nil {
			// Skip to the next ',' or ')' of this list.
			for p.tok.Kind != TokComma && p.tok.Kind != TokRParen {
				if p.tok.Kind == TokEOF || p.tok.Kind == TokLBrace || p.tok.Kind == TokSemi ||
					(p.tok.NL && p.tok.Kind == TokDirective && p.moduleOnlyDirective()) {
					return params, false
				}
				p.next()
			}
		} else {
			params = append(params, d)
		}
		if p.got(TokComma) {
			continue
		}
		if p.got(TokRParen) {
			return params, true
		}
		p.errorExpected("',' or ')' in parameter list")
		return params, false
	}
}

// parseParam parses one parameter declaration.
func (p *parser) parseParam(proto bool) *VarDecl {
	d := &VarDecl{Span: p.tok.Span}
	if p.tok.Kind != TokDirective {
		p.errorExpected("parameter declaration")
		return nil
	}
	if string(p.tokText(p.tok)) == ".hidden" {
		// ".entry k(.hidden .param .align 64 .b8 tmap[128])": nvcc 13.x
		// marks TMA descriptor parameters .hidden (PTX 9.x); the
		// visibility has no meaning for a parameter here and is skipped.
		p.next()
	}
	if !p.parseDeclSpec(d) {
		return nil
	}
	if proto && (p.tok.Kind == TokComma || p.tok.Kind == TokRParen) {
		d.Span.End = p.prevEnd
		return d
	}
	vn := p.parseVarName(false)
	if vn == nil {
		return nil
	}
	d.Names = []*VarName{vn}
	d.Span.End = p.prevEnd
	return d
}

// parseDeclSpec parses the directives of a declaration: state space,
// .align N, .vN, .ptr (with its space and alignment) and the type. It
// reports whether the specification was well formed.
func (p *parser) parseDeclSpec(d *VarDecl) bool {
	start := p.tok.Span
	for p.tok.Kind == TokDirective {
		full := p.tokText(p.tok)
		name := full[1:]
		switch string(name) {
		case "attribute":
			// ".global .attribute(.managed) .s32 g;": skipped.
			p.next()
			if p.tok.Kind != TokLParen {
				p.errorExpected("'(' after .attribute")
				return false
			}
			p.skipParens()
			continue
		case "align":
			p.next()
			n, ok := p.parseSmallInt("alignment", false)
			if !ok {
				return false
			}
			if d.IsPtr {
				d.PtrAlign = n
			} else {
				d.Align = n
			}
			continue
		case "ptr":
			d.IsPtr = true
		case "v2":
			d.Vec = 2
		case "v4":
			d.Vec = 4
		case "v8":
			d.Vec = 8
		case "texref", "samplerref", "surfref":
			if d.Type != isa.TNone || d.TypeName != "" {
				p.errorf(p.tok.Span, DiagInvalidDeclaration, "more than one type in declaration")
				return false
			}
			d.TypeName = p.intern(name)
		default:
			if sp, ok := isa.SpaceByName[string(name)]; ok {
				switch {
				case d.IsPtr:
					d.PtrSpace = sp
				case d.Space == isa.SpaceNone:
					d.Space = sp
				default:
					p.errorf(p.tok.Span, DiagInvalidDeclaration, "more than one state space in declaration")
					return false
				}
				break
			}
			if t, ok := isa.TypeByName[string(name)]; ok {
				if d.Type != isa.TNone || d.TypeName != "" {
					p.errorf(p.tok.Span, DiagInvalidDeclaration, "more than one type in declaration")
					return false
				}
				d.Type = t
				break
			}
			p.errorf(p.tok.Span, DiagInvalidDeclaration, "unexpected %s in declaration", describeTok(p.text, p.tok))
			return false
		}
		p.next()
	}
	if d.Type == isa.TNone && d.TypeName == "" {
		p.errorf(start.Join(Span{p.prevEnd, p.prevEnd}), DiagInvalidDeclaration, "missing type in declaration")
		return false
	}
	return true
}

// parseVarDecl parses a variable declaration statement starting at its
// first specification directive and ending with ';'.
func (p *parser) parseVarDecl(link Linkage, start int32) *VarDecl {
	d := &VarDecl{Linkage: link}
	if !p.parseDeclSpec(d) {
		p.syncStmt()
		return nil
	}
	for {
		vn := p.parseVarName(true)
		if vn == nil {
			p.syncStmt()
			return nil
		}
		d.Names = append(d.Names, vn)
		if !p.got(TokComma) {
			break
		}
	}
	if !p.expectSemi() {
		return nil
	}
	d.Span = Span{start, p.prevEnd} // with the ';' (if present)
	return d
}

// parseVarName parses "name", "name<N>", "name[N][M]", "name[]" with an
// optional initializer (if init).
func (p *parser) parseVarName(init bool) *VarName {
	if p.tok.Kind != TokIdent {
		p.errorExpected("name")
		return nil
	}
	vn := &VarName{Span: p.tok.Span, Name: p.intern(p.tokText(p.tok))}
	p.next()
	if p.tok.Kind == TokLt {
		p.next()
		n, ok := p.parseSmallInt("register count", true)
		if !ok {
			return nil
		}
		vn.Range = n
		if !p.expect(TokGt) {
			return nil
		}
	}
	for p.tok.Kind == TokLBrack {
		p.next()
		if p.got(TokRBrack) {
			vn.Dims = append(vn.Dims, -1)
			continue
		}
		n, ok := p.parseSmallInt("array size", false)
		if !ok {
			return nil
		}
		vn.Dims = append(vn.Dims, n)
		if !p.expect(TokRBrack) {
			return nil
		}
	}
	if init && p.tok.Kind == TokAssign {
		p.next()
		in := p.parseInit()
		if in == nil {
			return nil
		}
		vn.Init = in
	}
	return vn
}

// parseSmallInt parses a constant expression (a unary one if unary, as in
// "%r<10>") that must evaluate to a non-negative integer that fits in 31 bits.
func (p *parser) parseSmallInt(what string, unary bool) (int, bool) {
	var e *Expr
	if unary {
		e = p.parseUnary()
	} else {
		e = p.parseExpr()
	}
	if e == nil {
		return 0, false
	}
	v, err := Eval(e, nil)
	if err != nil {
		if ee, ok := err.(*EvalError); ok {
			p.errorf(ee.Span, DiagInvalidConstExpr, "%s: %s", what, ee.Msg)
		} else {
			p.errorf(e.Span, DiagInvalidConstExpr, "%s: %v", what, err)
		}
		return 0, false
	}
	if v.Kind == ValFloat || (v.Kind == ValInt && int64(v.Int) < 0) || v.Int > 1<<31-1 {
		p.errorf(e.Span, DiagInvalidConstExpr, "invalid %s %s", what, v)
		return 0, false
	}
	return int(v.Int), true
}

// parseInit parses an initializer: an expression or a brace list.
func (p *parser) parseInit() *Init {
	if p.tok.Kind != TokLBrace {
		e := p.parseExpr()
		if e == nil {
			return nil
		}
		return &Init{Span: e.Span, Expr: e}
	}
	if !p.enter() {
		p.leave()
		return nil
	}
	defer p.leave()
	in := &Init{Span: p.tok.Span, Elems: []*Init{}}
	p.next()
	for p.tok.Kind != TokRBrace {
		el := p.parseInit()
		if el == nil {
			return nil
		}
		in.Elems = append(in.Elems, el)
		if !p.got(TokComma) {
			break
		}
	}
	in.Span.End = p.tok.Span.End
	if !p.expect(TokRBrace) {
		return nil
	}
	return in
}

// expectSemi consumes the ';' ending a statement. A missing ';' before a
// line break (or '}') is reported at the end of the statement and parsing
// continues with the next line; other tokens are reported and skipped.
func (p *parser) expectSemi() bool {
	if p.tok.Kind == TokSemi {
		p.next()
		return true
	}
	if p.tok.NL || p.tok.Kind == TokRBrace || p.tok.Kind == TokEOF {
		p.errorf(Span{p.prevEnd, p.prevEnd}, DiagMissingSemicolon, "missing ';' at end of statement")
		return true
	}
	p.errorExpected("';'")
	p.syncStmt()
	return false
}

// ---- function bodies ----

// parseBlock parses "{ stmts }" starting at the current '{'.
func (p *parser) parseBlock() *Block {
	b := &Block{Span: p.tok.Span}
	open := p.tok.Span
	if !p.enter() {
		p.leave()
		p.skipBalanced()
		b.Span.End = p.prevEnd
		return b
	}
	defer p.leave()
	p.next()
	for {
		switch p.tok.Kind {
		case TokRBrace:
			b.Span.End = p.tok.Span.End
			p.next()
			return b
		case TokEOF:
			p.errorf(open, DiagUnclosedBrace, "'{' is not closed (reached end of file)")
			b.Span.End = p.prevEnd
			return b
		case TokDirective:
			if p.tok.NL && p.moduleOnlyDirective() {
				p.errorf(open, DiagUnclosedBrace, "'{' is not closed before %s", describeTok(p.text, p.tok))
				b.Span.End = p.prevEnd
				return b
			}
		}
		if p.diags.Full() {
			b.Span.End = p.prevEnd
			return b
		}
		n := p.ntok
		start, errs := p.tok.Span.Start, p.diags.Errors
		if s := p.parseStmt(); s != nil {
			b.Stmts = append(b.Stmts, s)
		} else if p.diags.Errors > errs {
			p.lost(start)
		}
		if p.ntok == n {
			p.next() // always make progress
		}
	}
}

// parseStmt parses one statement; it returns nil for ignored statements
// (.loc, empty) and for statements with errors.
func (p *parser) parseStmt() Stmt {
	switch p.tok.Kind {
	case TokSemi:
		p.next()
		return nil
	case TokLBrace:
		return p.parseBlock()
	case TokAt:
		return p.parseInstr()
	case TokIdent:
		if p.peek(1).Kind == TokColon {
			return p.parseLabel()
		}
		return p.parseInstr()
	case TokDirective:
		start := p.tok.Span.Start
		name := p.tokText(p.tok)
		switch string(name) {
		case ".loc", ".file":
			p.skipLine()
			return nil
		case ".pragma", ".branchtargets", ".calltargets":
			// ".branchtargets" and ".calltargets" follow a label:
			// "$L_brx_0: .branchtargets $L1, $L2;".
			if d := p.parseDirective(); d != nil {
				return d
			}
			p.syncStmt()
			return nil
		}
		link, isLink := linkageOf(name)
		if isLink {
			p.next()
		}
		if p.tok.Kind == TokDirective && p.declStart() {
			if d := p.parseVarDecl(link, start); d != nil {
				return d
			}
			return nil
		}
		if isLink {
			p.errorExpected("variable declaration")
		} else {
			p.errorf(p.tok.Span, DiagSyntax, "unexpected directive %s in function body", describeTok(p.text, p.tok))
		}
		p.syncStmt()
		return nil
	case TokRBrace:
		return nil // handled by the caller
	}
	p.errorAtTok("expected statement, found %s", describeTok(p.text, p.tok))
	p.syncStmt()
	return nil
}

// parseLabel parses "name:" or "name: .callprototype ...".
func (p *parser) parseLabel() Stmt {
	nameTok := p.tok
	name := p.intern(p.tokText(nameTok))
	p.next() // name
	colon := p.tok
	p.next() // ':'
	if p.isDir(".callprototype") {
		return p.parseCallProto(name, nameTok.Span.Start)
	}
	return &Label{Span: nameTok.Span.Join(colon.Span), Name: name}
}

// parseCallProto parses the rest of
// "name: .callprototype (.param .b32 _) _ (.param .b32 _);".
func (p *parser) parseCallProto(name string, start int32) Stmt {
	cp := &CallProto{Name: name}
	p.next() // .callprototype
	if p.tok.Kind == TokLParen {
		rets, ok := p.parseParamList(true)
		if !ok {
			p.syncStmt()
			return nil
		}
		cp.Rets = rets
	}
	if p.tok.Kind != TokIdent {
		p.errorExpected("'_' or a name in .callprototype")
		p.syncStmt()
		return nil
	}
	p.next()
	if p.tok.Kind == TokLParen {
		params, ok := p.parseParamList(true)
		if !ok {
			p.syncStmt()
			return nil
		}
		cp.Params = params
	}
	for p.isDir(".noreturn") {
		p.next()
	}
	if !p.expectSemi() {
		return nil
	}
	cp.Span = Span{start, p.prevEnd}
	return cp
}

// componentName reports whether b (without the dot) is a vector component
// suffix: "%tid.x", "%r1.y".
func componentName(b []byte) bool {
	if len(b) != 1 {
		return false
	}
	switch b[0] {
	case 'x', 'y', 'z', 'w', 'r', 'g', 'b', 'a':
		return true
	}
	return false
}

// noOperandOpcode lists opcodes that never take operands, so that a missing
// ';' after them is caught at the line end.
func noOperandOpcode(op string) bool {
	switch op {
	case "ret", "exit", "trap", "brkpt":
		return true
	}
	return false
}

// parseInstr parses "[@[!]p] opcode[.mod...] [operand, ...];".
func (p *parser) parseInstr() Stmt {
	in := slabNew(&p.instrSlab, &p.slabBytes)
	in.Span = p.tok.Span
	if p.tok.Kind == TokAt {
		g := &Guard{Span: p.tok.Span}
		p.next()
		if p.tok.Kind == TokBang {
			g.Neg = true
			p.next()
		}
		if p.tok.Kind != TokIdent {
			p.errorExpected("predicate after '@'")
			p.syncStmt()
			return nil
		}
		g.Pred = p.intern(p.tokText(p.tok))
		g.Span.End = p.tok.Span.End
		p.next()
		in.Guard = g
	}
	if p.tok.Kind != TokIdent {
		p.errorExpected("instruction")
		p.syncStmt()
		return nil
	}
	in.Opcode = p.intern(p.tokText(p.tok))
	in.OpSpan = p.tok.Span
	p.next()
	mods := p.modStack[:0]
	for p.tok.Kind == TokDirective && p.tok.Span.Start == in.OpSpan.End {
		mods = append(mods, Mod{Span: p.tok.Span, Name: p.intern(p.tokText(p.tok)[1:])})
		in.OpSpan.End = p.tok.Span.End
		p.next()
	}
	in.Mods = slabCopy(&p.slabBytes, &p.modSlab, mods)
	p.modStack = mods[:0]
	if p.tok.Kind == TokDirective && !p.tok.NL {
		p.errorf(p.tok.Span, DiagSyntax, "modifier %s must follow the opcode without spaces", describeTok(p.text, p.tok))
		p.syncStmt()
		return nil
	}
	isCall := in.Opcode == "call"
	if p.tok.Kind != TokSemi {
		if noOperandOpcode(in.Opcode) && (p.tok.NL || p.tok.Kind == TokRBrace || p.tok.Kind == TokEOF) {
			p.errorf(Span{p.prevEnd, p.prevEnd}, DiagMissingSemicolon, "missing ';' at end of statement")
			in.Span.End = p.prevEnd
			return in
		}
		base := len(p.opStack)
		for {
			if p.tok.NL && p.stmtStart() {
				if len(p.opStack) == base {
					p.errorf(Span{p.prevEnd, p.prevEnd}, DiagMissingSemicolon, "missing ';' at end of statement")
					in.Span.End = p.prevEnd
					return in
				}
				p.errorf(Span{p.prevEnd, p.prevEnd}, DiagSyntax, "expected operand after ','")
				p.dropOperands(base)
				return nil
			}
			op := p.parseOperand(isCall)
			if op == nil {
				p.dropOperands(base)
				p.syncStmt()
				return nil
			}
			p.opStack = append(p.opStack, op)
			if !p.got(TokComma) {
				break
			}
		}
		in.Operands = p.popOperands(base)
	}
	in.Span.End = p.prevEnd
	if p.tok.Kind == TokSemi {
		in.Span.End = p.tok.Span.End
	}
	if p.tok.Kind != TokSemi && !p.tok.NL && p.tok.Kind != TokRBrace && p.tok.Kind != TokEOF {
		p.errorExpected("',' or ';' after operand")
		p.syncStmt()
		return nil
	}
	p.expectSemi()
	return in
}

// stmtStart reports whether the current token (at a line start, in operand
// position) clearly begins a new statement, i.e. the previous statement
// lacks its ';' or an operand.
func (p *parser) stmtStart() bool {
	switch p.tok.Kind {
	case TokDirective, TokAt, TokRBrace, TokSemi, TokEOF:
		return true
	case TokIdent:
		n := p.peek(1)
		if n.Kind == TokColon {
			return true
		}
		if n.Kind == TokDirective && n.Span.Start == p.tok.Span.End && !componentName(p.tokText(n)[1:]) {
			return true
		}
	}
	return false
}

// parseOperand parses one instruction operand.
func (p *parser) parseOperand(isCall bool) *Operand {
	switch p.tok.Kind {
	case TokIdent:
		text := p.tokText(p.tok)
		if string(text) == "WARP_SZ" {
			break
		}
		if string(text) == "_" {
			op := p.newOperand(Operand{Kind: OpdSink, Span: p.tok.Span})
			p.next()
			if p.tok.Kind == TokPipe {
				return p.parsePair(op)
			}
			return op
		}
		op := p.parseNameOperand()
		if op == nil {
			return nil
		}
		switch p.tok.Kind {
		case TokLBrack:
			// "var[4]": normalize to an address with an offset.
			p.next()
			e := p.parseExpr()
			if e == nil {
				return nil
			}
			op.Kind = OpdAddr
			op.Expr = e
			op.Span.End = p.tok.Span.End
			if !p.expect(TokRBrack) {
				return nil
			}
			return op
		case TokPipe:
			return p.parsePair(op)
		case TokPlus, TokMinus, TokStar, TokSlash, TokPercent, TokShl, TokShr, TokAmp, TokCaret,
			TokAndAnd, TokOrOr, TokEq, TokNe, TokLt, TokGt, TokLe, TokGe, TokQuestion:
			// "a+4": a constant expression over a symbol.
			x := p.newExpr(Expr{Kind: ExprName, Span: op.Span, Name: op.Name})
			e := p.parseTernaryRest(p.parseBinary(x, 1))
			if e == nil {
				return nil
			}
			return p.newOperand(Operand{Kind: OpdImm, Span: e.Span, Expr: e})
		}
		return op
	case TokBang:
		if n := p.peek(1); n.Kind == TokIdent && string(p.tokText(n)) != "WARP_SZ" {
			start := p.tok.Span.Start
			p.next()
			op := p.parseNameOperand()
			if op == nil {
				return nil
			}
			op.Neg = true
			op.Span.Start = start
			return op
		}
	case TokLBrack:
		return p.parseAddress()
	case TokLBrace:
		return p.parseVector()
	case TokLParen:
		if isCall {
			return p.parseList()
		}
	case TokInt, TokFloat, TokMinus, TokPlus, TokTilde:
	default:
		p.errorExpected("operand")
		return nil
	}
	e := p.parseExpr()
	if e == nil {
		return nil
	}
	return p.newOperand(Operand{Kind: OpdImm, Span: e.Span, Expr: e})
}

// parseNameOperand parses an identifier operand with an optional adjacent
// component suffix ("%tid.x").
func (p *parser) parseNameOperand() *Operand {
	t := p.tok
	p.next()
	if p.tok.Kind == TokDirective && p.tok.Span.Start == t.Span.End {
		if !componentName(p.tokText(p.tok)[1:]) {
			p.errorf(p.tok.Span, DiagSyntax, "unexpected %s after operand %s", describeTok(p.text, p.tok), describeTok(p.text, t))
			return nil
		}
		t.Span.End = p.tok.Span.End
		p.next()
	}
	return p.newOperand(Operand{Kind: OpdName, Span: t.Span, Name: p.intern(p.tokText(t))})
}

// parsePair parses the rest of "p|q" after the first operand.
func (p *parser) parsePair(first *Operand) *Operand {
	p.next() // '|'
	var second *Operand
	switch {
	case p.tok.Kind == TokIdent && string(p.tokText(p.tok)) == "_":
		second = p.newOperand(Operand{Kind: OpdSink, Span: p.tok.Span})
		p.next()
	case p.tok.Kind == TokIdent:
		second = p.parseNameOperand()
		if second == nil {
			return nil
		}
	default:
		p.errorExpected("predicate after '|'")
		return nil
	}
	return p.newOperand(Operand{Kind: OpdPair, Span: first.Span.Join(second.Span), Elems: slabCopy(&p.slabBytes, &p.opPtrSlab, []*Operand{first, second})})
}

// parseAddress parses "[base]", "[base+off]", "[base-off]", "[imm]" and
// texture/surface forms "[tex, {coords}]" (the operands after the first
// go in Elems).
func (p *parser) parseAddress() *Operand {
	if !p.enter() {
		p.leave()
		return nil
	}
	defer p.leave()
	op := p.newOperand(Operand{Kind: OpdAddr, Span: p.tok.Span})
	p.next() // '['
	if p.tok.Kind == TokIdent && string(p.tokText(p.tok)) != "WARP_SZ" && p.peek(1).Kind != TokLParen {
		base := p.parseNameOperand()
		if base == nil {
			return nil
		}
		op.Name = base.Name
		var off *Expr
		for p.tok.Kind == TokPlus || p.tok.Kind == TokMinus {
			opTok := p.tok
			p.next()
			u := p.parseUnary()
			if u == nil {
				return nil
			}
			term := p.parseBinary(u, precMul)
			if term == nil {
				return nil
			}
			switch {
			case off == nil && opTok.Kind == TokMinus:
				off = p.newExpr(Expr{Kind: ExprUnary, Span: opTok.Span.Join(term.Span), Op: "-", X: term})
			case off == nil:
				off = term
			default:
				off = p.newExpr(Expr{Kind: ExprBinary, Span: off.Span.Join(term.Span), Op: binOpName(opTok.Kind), X: off, Y: term})
			}
		}
		op.Expr = off
	} else {
		if p.tok.Kind == TokRBrack {
			p.errorf(p.tok.Span, DiagSyntax, "empty address")
			return nil
		}
		e := p.parseExpr()
		if e == nil {
			return nil
		}
		op.Expr = e
	}
	if p.got(TokComma) {
		elems, ok := p.parseOperandSeq()
		if !ok {
			return nil
		}
		op.Elems = elems
	}
	op.Span.End = p.tok.Span.End
	if !p.expect(TokRBrack) {
		return nil
	}
	return op
}

// parseOperandSeq parses "operand {, operand}".
func (p *parser) parseOperandSeq() ([]*Operand, bool) {
	base := len(p.opStack)
	for {
		el := p.parseOperand(false)
		if el == nil {
			p.dropOperands(base)
			return nil, false
		}
		p.opStack = append(p.opStack, el)
		if !p.got(TokComma) {
			break
		}
	}
	return p.popOperands(base), true
}

// parseVector parses "{a, b, c, d}".
func (p *parser) parseVector() *Operand {
	if !p.enter() {
		p.leave()
		return nil
	}
	defer p.leave()
	op := p.newOperand(Operand{Kind: OpdVec, Span: p.tok.Span})
	p.next()
	elems, ok := p.parseOperandSeq()
	if !ok {
		return nil
	}
	op.Elems = elems
	op.Span.End = p.tok.Span.End
	if !p.expect(TokRBrace) {
		return nil
	}
	return op
}

// parseList parses a call argument list "(a, b)" (possibly empty).
func (p *parser) parseList() *Operand {
	if !p.enter() {
		p.leave()
		return nil
	}
	defer p.leave()
	op := p.newOperand(Operand{Kind: OpdList, Span: p.tok.Span})
	p.next()
	if p.tok.Kind != TokRParen {
		elems, ok := p.parseOperandSeq()
		if !ok {
			return nil
		}
		op.Elems = elems
	}
	op.Span.End = p.tok.Span.End
	if !p.expect(TokRParen) {
		return nil
	}
	return op
}

// ---- constant expressions ----

// Binary operator precedences (higher binds tighter), as in C.
const (
	precOrOr = 1 + iota
	precAndAnd
	precOr
	precXor
	precAnd
	precEq
	precRel
	precShift
	precAdd
	precMul
)

func binPrec(k TokKind) int {
	switch k {
	case TokOrOr:
		return precOrOr
	case TokAndAnd:
		return precAndAnd
	case TokPipe:
		return precOr
	case TokCaret:
		return precXor
	case TokAmp:
		return precAnd
	case TokEq, TokNe:
		return precEq
	case TokLt, TokGt, TokLe, TokGe:
		return precRel
	case TokShl, TokShr:
		return precShift
	case TokPlus, TokMinus:
		return precAdd
	case TokStar, TokSlash, TokPercent:
		return precMul
	}
	return 0
}

func binOpName(k TokKind) string {
	switch k {
	case TokOrOr:
		return "||"
	case TokAndAnd:
		return "&&"
	case TokPipe:
		return "|"
	case TokCaret:
		return "^"
	case TokAmp:
		return "&"
	case TokEq:
		return "=="
	case TokNe:
		return "!="
	case TokLt:
		return "<"
	case TokGt:
		return ">"
	case TokLe:
		return "<="
	case TokGe:
		return ">="
	case TokShl:
		return "<<"
	case TokShr:
		return ">>"
	case TokPlus:
		return "+"
	case TokMinus:
		return "-"
	case TokStar:
		return "*"
	case TokSlash:
		return "/"
	case TokPercent:
		return "%"
	}
	return "?"
}

// parseExpr parses a constant expression (PTX ISA §4.5, C precedence).
func (p *parser) parseExpr() *Expr {
	x := p.parseUnary()
	if x == nil {
		return nil
	}
	return p.parseTernaryRest(p.parseBinary(x, 1))
}

// parseTernaryRest parses an optional "? y : z" after x (right associative).
func (p *parser) parseTernaryRest(x *Expr) *Expr {
	if x == nil || p.tok.Kind != TokQuestion {
		return x
	}
	if !p.enter() {
		p.leave()
		return nil
	}
	defer p.leave()
	p.next()
	y := p.parseExpr()
	if y == nil || !p.expect(TokColon) {
		return nil
	}
	z := p.parseExpr()
	if z == nil {
		return nil
	}
	return p.newExpr(Expr{Kind: ExprCond, Span: x.Span.Join(z.Span), X: x, Y: y, Z: z})
}

// parseBinary parses binary operators of precedence >= minPrec after the
// left operand x (precedence climbing).
func (p *parser) parseBinary(x *Expr, minPrec int) *Expr {
	for x != nil {
		prec := binPrec(p.tok.Kind)
		if prec == 0 || prec < minPrec {
			return x
		}
		opTok := p.tok
		p.next()
		y := p.parseUnary()
		for y != nil {
			if q := binPrec(p.tok.Kind); q == 0 || q <= prec {
				break
			}
			y = p.parseBinary(y, prec+1)
		}
		if y == nil {
			return nil
		}
		x = p.newExpr(Expr{Kind: ExprBinary, Span: x.Span.Join(y.Span), Op: binOpName(opTok.Kind), X: x, Y: y})
	}
	return x
}

// parseUnary parses unary operators and casts, then a primary expression.
func (p *parser) parseUnary() *Expr {
	var op string
	start := p.tok.Span.Start
	switch p.tok.Kind {
	case TokMinus:
		op = "-"
	case TokPlus:
		op = "+"
	case TokBang:
		op = "!"
	case TokTilde:
		op = "~"
	case TokLParen:
		// A cast "(.s64) x" or "(.u64) x".
		if n := p.peek(1); n.Kind == TokDirective && p.peek(2).Kind == TokRParen {
			switch string(p.tokText(n)) {
			case ".s64":
				op = "(.s64)"
			case ".u64":
				op = "(.u64)"
			}
			if op != "" {
				p.next()
				p.next()
			}
		}
	}
	if op == "" {
		return p.parsePrimary()
	}
	if !p.enter() {
		p.leave()
		return nil
	}
	defer p.leave()
	p.next()
	x := p.parseUnary()
	if x == nil {
		return nil
	}
	return p.newExpr(Expr{Kind: ExprUnary, Span: Span{start, x.Span.End}, Op: op, X: x})
}

// parsePrimary parses a literal, a name, a call "generic(a)", a mask
// "0xFF(a)" or a parenthesized expression.
func (p *parser) parsePrimary() *Expr {
	t := p.tok
	switch t.Kind {
	case TokInt:
		v, unsigned, _ := decodeInt(p.tokText(t))
		p.next()
		e := p.newExpr(Expr{Kind: ExprInt, Span: t.Span, Int: v, Unsigned: unsigned})
		if p.tok.Kind == TokLParen {
			return p.parseCall(e, p.intern(p.tokText(t)))
		}
		return e
	case TokFloat:
		text := p.tokText(t)
		e := p.newExpr(Expr{Kind: ExprFloat, Span: t.Span})
		if len(text) > 1 && text[0] == '0' && (text[1] == 'f' || text[1] == 'F' || text[1] == 'd' || text[1] == 'D') {
			e.Float, e.F32, _ = decodeHexFloat(text)
			e.Int, e.RawBits = hexFloatBits(text), true
		} else {
			e.Float, _ = decodeDecimalFloat(text)
		}
		p.next()
		return e
	case TokIdent:
		e := p.newExpr(Expr{Kind: ExprName, Span: t.Span, Name: p.intern(p.tokText(t))})
		p.next()
		if p.tok.Kind == TokLParen {
			return p.parseCall(e, e.Name)
		}
		return e
	case TokLParen:
		if !p.enter() {
			p.leave()
			return nil
		}
		defer p.leave()
		p.next()
		e := p.parseExpr()
		if e == nil {
			return nil
		}
		end := p.tok.Span.End
		if !p.expect(TokRParen) {
			return nil
		}
		e.Span = Span{t.Span.Start, end}
		return e
	case TokString:
		p.errorf(t.Span, DiagSyntax, "string literal not allowed in an expression")
		return nil
	}
	p.errorExpected("expression")
	return nil
}

// parseCall parses "(args)" after a name or mask literal f.
func (p *parser) parseCall(f *Expr, name string) *Expr {
	if !p.enter() {
		p.leave()
		return nil
	}
	defer p.leave()
	e := p.newExpr(Expr{Kind: ExprCall, Span: f.Span, Name: name})
	p.next() // '('
	if p.tok.Kind != TokRParen {
		for {
			a := p.parseExpr()
			if a == nil {
				return nil
			}
			e.Args = append(e.Args, a)
			if !p.got(TokComma) {
				break
			}
		}
	}
	e.Span.End = p.tok.Span.End
	if !p.expect(TokRParen) {
		return nil
	}
	return e
}
