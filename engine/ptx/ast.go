package ptx

import (
	"sort"

	"github.com/ptxplayground/ptxplay/engine/isa"
)

// Module is a parsed PTX file.
type Module struct {
	Src         *Source
	Version     string   // ".version 8.5" -> "8.5" ("" if absent)
	Target      []string // ".target sm_90a, texmode_independent"
	AddressSize int      // 32 or 64 (64 if absent)
	// Header records where the .version and .target directives are, for
	// the check that a module begins with them (see emu.Compile).
	Header ModuleHeader
	Decls  []Decl // *VarDecl and *Func in source order
	// Directives holds module-level directives kept as data (".pragma",
	// ".alias") in source order. They are not Decls.
	Directives []*Directive
	// Lost holds, in source order, the source ranges of statements and
	// declarations that Parse dropped because of syntax errors. What they
	// declared (registers, variables, labels, functions) is missing from
	// the tree; see Names.
	Lost []Span
	// SlabBytes is the memory of the chunks the parser carved the tree's
	// instructions, operands, expressions and modifiers from (allocated
	// whole, and kept as long as any node in them): most of the tree's
	// memory, known exactly.
	SlabBytes int64
	// errStarts holds the start offset of every syntax error, sorted.
	errStarts []int32
}

// ModuleHeader is where a module's .version and .target directives are.
type ModuleHeader struct {
	Version, Target Span // zero (Start == End) if absent
	// VersionFirst: .version is the module's first statement. TargetNext:
	// .target is the statement right after .version.
	VersionFirst, TargetNext bool
	// First is the first statement of the module (zero if it has none).
	First Span
}

// SyntaxErrors returns the number of syntax errors Parse reported.
func (m *Module) SyntaxErrors() int { return len(m.errStarts) }

// HasSyntaxError reports whether a syntax error starts within s (from
// s.Start up to, not including, s.End: a missing ';' reported at the end of
// a statement does not count). A statement that holds one was recovered
// from broken text and is best not checked further.
func (m *Module) HasSyntaxError(s Span) bool {
	i := sort.Search(len(m.errStarts), func(i int) bool { return m.errStarts[i] >= s.Start })
	return i < len(m.errStarts) && m.errStarts[i] < s.End
}

// Names returns the identifiers written in the source range s (registers,
// variables, labels, functions; "%r" for "%r<8>"), in order, for instance
// the names a lost statement may have declared.
func (m *Module) Names(s Span) []string {
	text := m.Src.Text
	if s.Start < 0 || s.End > int32(len(text)) || s.Start >= s.End {
		return nil
	}
	var diags DiagList
	lx := newLexer(text[s.Start:s.End], &diags)
	var names []string
	for {
		t := lx.next()
		switch t.Kind {
		case TokEOF:
			return names
		case TokIdent:
			names = append(names, string(text[s.Start+t.Span.Start:s.Start+t.Span.End]))
		}
	}
}

// Decl is a module-level declaration: *VarDecl or *Func.
type Decl interface{ declNode() }

// Linkage of a module-level symbol.
type Linkage uint8

const (
	LinkNone Linkage = iota
	LinkVisible
	LinkExtern
	LinkWeak
	LinkCommon
)

// VarDecl declares one or more variables of the same space and type:
// ".reg .b32 %r<10>;", ".shared .align 16 .b8 smem[1024];",
// ".global .u32 a = 1, b[2] = {1, 2};", and parameters.
type VarDecl struct {
	Span    Span
	Linkage Linkage
	Space   isa.Space
	Align   int      // from .align N, 0 if absent
	Vec     int      // 0 (scalar), 2, 4 or 8 from .v2/.v4/.v8
	Type    isa.Type // element type
	// TypeName is the type directive without the dot when it is not an
	// isa.Type (Type is then TNone): "texref", "samplerref", "surfref".
	TypeName string
	// Parameter attributes (".param .u64 .ptr .global .align 16 p").
	PtrSpace isa.Space // SpaceNone if no .ptr attribute (or .ptr without a space)
	PtrAlign int
	IsPtr    bool
	Names    []*VarName
}

func (*VarDecl) declNode() {}
func (*VarDecl) stmtNode() {}

// VarName is one declared name within a VarDecl.
type VarName struct {
	Span  Span   // the name's span
	Name  string // "%r", "smem", "a"
	Range int    // N for "%r<N>" (declares %r0..%r<N-1>), 0 otherwise
	// Dims holds array dimensions, outermost first; -1 for "[]" (size from the
	// initializer, or an unsized .extern array). Empty for scalars.
	Dims []int
	Init *Init // nil if no initializer
}

// Init is a variable initializer: a scalar expression or a brace list.
type Init struct {
	Span  Span
	Expr  *Expr   // scalar initializer (nil for a list)
	Elems []*Init // "{...}" list; nested for multidimensional arrays
}

// FuncKind distinguishes kernels from device functions.
type FuncKind uint8

const (
	KindEntry FuncKind = iota
	KindFunc
)

// Func is an .entry or .func definition or declaration (prototype).
type Func struct {
	Span       Span
	Kind       FuncKind
	Linkage    Linkage
	NoReturn   bool // .noreturn attribute
	Name       string
	NameSpan   Span
	Rets       []*VarDecl // return parameters of a .func ("(.param .b32 r) name")
	Params     []*VarDecl
	Directives []*Directive // performance-tuning and other directives between the signature and body (.maxntid 256, 1, 1; .reqntid; .pragma ...)
	Body       *Block       // nil for a declaration without a body
}

func (*Func) declNode() {}

// Directive is a directive kept only as data (".maxntid 256, 1, 1", ".pragma "nounroll"",
// ".reqnctapercluster 2,1,1", ...). Values are integer or string literals.
type Directive struct {
	Span Span
	Name string // without the dot: "maxntid"
	Args []*Expr
}

func (*Directive) stmtNode() {}

// Stmt is a statement in a function body: *VarDecl, *Label, *Instr, *Block,
// *Directive (.pragma, .loc etc. inside bodies), or *CallProto.
type Stmt interface{ stmtNode() }

// Block is a "{ ... }" scope.
type Block struct {
	Span  Span
	Stmts []Stmt
}

func (*Block) stmtNode() {}

// Label is "name:" in a function body.
type Label struct {
	Span Span
	Name string
}

func (*Label) stmtNode() {}

// CallProto is a ".callprototype" declaration used by indirect calls:
// "proto: .callprototype (.param .b32 _) _ (.param .b32 _);".
type CallProto struct {
	Span   Span
	Name   string // the label naming the prototype
	Rets   []*VarDecl
	Params []*VarDecl
}

func (*CallProto) stmtNode() {}

// Guard is a predicate guard "@p" or "@!p".
type Guard struct {
	Span Span
	Neg  bool
	Pred string
}

// Instr is one instruction: "@!p ld.global.v4.f32 {a,b,c,d}, [x+16];".
type Instr struct {
	Span     Span
	Guard    *Guard // nil if unguarded
	Opcode   string // "ld"
	OpSpan   Span   // span of the opcode with its modifiers
	Mods     []Mod  // ".global", ".v4", ".f32" in order, without the dots
	Operands []*Operand
}

func (*Instr) stmtNode() {}

// Mod is one modifier of an instruction, without its dot: "global", "v4",
// "shared::cta", "L2::128B", "m16n8k16".
type Mod struct {
	Span Span
	Name string
}

// OperandKind classifies an operand.
type OperandKind uint8

const (
	OpdName OperandKind = iota // a register, variable, label, function or special register: "%r1", "%tid.x", "smem", "$L__BB0_1"
	OpdImm                     // a constant expression: "1", "-4", "0f3F800000", "(N*4)"
	OpdAddr                    // "[base]", "[base+imm]", "[imm]", "var[imm]" (normalized to Base="var", Offset=imm)
	OpdVec                     // "{a, b, c, d}" (elements may be names, immediates or "_")
	OpdList                    // "(a, b)" parenthesized argument list of call
	OpdSink                    // "_"
	OpdPair                    // "p|q" (setp, vote destinations): Elems holds the two names
)

// Operand is one instruction operand.
type Operand struct {
	Kind OperandKind
	Span Span
	// OpdName: the identifier, with a component suffix kept in the name for
	// special registers ("%tid.x"). Neg is set for a negated predicate "!p".
	// For OpdAddr: the base name ("" for an absolute "[imm]").
	Name string
	Neg  bool
	// OpdImm: the expression. OpdAddr: the offset expression (nil if none).
	Expr *Expr
	// OpdVec, OpdList, OpdPair: the elements. OpdAddr: the operands after
	// the first one of a texture/surface address "[tex, sampler, {x, y}]"
	// (nil for ordinary addresses).
	Elems []*Operand
}

// ExprKind classifies a constant expression node.
type ExprKind uint8

const (
	ExprInt    ExprKind = iota // integer literal (Int, Unsigned)
	ExprFloat                  // floating-point literal (Float; F32 for 0f... literals)
	ExprName                   // identifier (symbol address in initializers, WARP_SZ)
	ExprUnary                  // Op X: + - ! ~, and the casts "(.s64)" and "(.u64)"
	ExprBinary                 // X Op Y: * / % + - << >> < > <= >= == != & ^ | && ||
	ExprCond                   // X ? Y : Z
	ExprCall                   // Name(Args): generic(var), or a mask "0xff(var)" (Name holds the mask text)
	ExprString                 // string literal (directives only)
)

// Expr is a constant expression (PTX ISA §4.5: C rules, 64-bit).
type Expr struct {
	Kind     ExprKind
	Span     Span
	Op       string // operator for unary/binary
	Int      uint64
	Unsigned bool // literal had a U suffix
	Float    float64
	F32      bool // 0fXXXXXXXX literal: value is exactly a float32
	// RawBits marks a 0f/0d literal: Int holds its exact bit pattern (so
	// NaN payloads and signalling NaNs survive).
	RawBits bool
	Name    string
	Str     string
	X, Y, Z *Expr
	Args    []*Expr
}
