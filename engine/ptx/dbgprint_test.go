package ptx

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/ptxplayground/ptxplay/engine/isa"
)

// This file prints ASTs back as PTX text for tests: parser unit tests
// compare compact printed forms, and the corpus round-trip test checks that
// printing a parsed module and lexing the result gives the tokens of the
// original (modulo ignored directives, parentheses and normalizations).

func dbgModule(m *Module) string {
	var b strings.Builder
	if m.Version != "" {
		fmt.Fprintf(&b, ".version %s\n", m.Version)
	}
	if len(m.Target) > 0 {
		fmt.Fprintf(&b, ".target %s\n", strings.Join(m.Target, ", "))
	}
	for _, d := range m.Directives {
		b.WriteString(dbgDirective(d))
		b.WriteString("\n")
	}
	for _, d := range m.Decls {
		switch d := d.(type) {
		case *VarDecl:
			b.WriteString(dbgVarDecl(d))
			b.WriteString(";\n")
		case *Func:
			b.WriteString(dbgFunc(d))
		}
	}
	return b.String()
}

var dbgLinkage = [...]string{"", ".visible ", ".extern ", ".weak ", ".common "}

func dbgFunc(f *Func) string {
	var b strings.Builder
	b.WriteString(dbgLinkage[f.Linkage])
	if f.Kind == KindEntry {
		b.WriteString(".entry ")
	} else {
		b.WriteString(".func ")
	}
	if f.Rets != nil {
		b.WriteString(dbgParams(f.Rets))
		b.WriteString(" ")
	}
	b.WriteString(f.Name)
	if f.Params != nil {
		b.WriteString(dbgParams(f.Params))
	}
	if f.NoReturn {
		b.WriteString(" .noreturn")
	}
	for _, d := range f.Directives {
		b.WriteString(" ")
		b.WriteString(dbgDirective(d))
	}
	if f.Body == nil {
		b.WriteString(";\n")
		return b.String()
	}
	b.WriteString("\n")
	dbgBlock(&b, f.Body, "")
	b.WriteString("\n")
	return b.String()
}

func dbgParams(ps []*VarDecl) string {
	var parts []string
	for _, p := range ps {
		parts = append(parts, dbgVarDecl(p))
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

func dbgDirective(d *Directive) string {
	var args []string
	for _, a := range d.Args {
		args = append(args, dbgExpr(a))
	}
	s := "." + d.Name
	if len(args) > 0 {
		s += " " + strings.Join(args, ", ")
	}
	return s
}

func dbgVarDecl(d *VarDecl) string {
	var parts []string
	if d.Linkage != LinkNone {
		parts = append(parts, strings.TrimSpace(dbgLinkage[d.Linkage]))
	}
	if d.Space != isa.SpaceNone {
		parts = append(parts, "."+d.Space.String())
	}
	if d.Align != 0 {
		parts = append(parts, ".align "+strconv.Itoa(d.Align))
	}
	if d.Vec != 0 {
		parts = append(parts, ".v"+strconv.Itoa(d.Vec))
	}
	if d.Type != isa.TNone {
		parts = append(parts, "."+d.Type.String())
	} else if d.TypeName != "" {
		parts = append(parts, "."+d.TypeName)
	}
	if d.IsPtr {
		parts = append(parts, ".ptr")
		if d.PtrSpace != isa.SpaceNone {
			parts = append(parts, "."+d.PtrSpace.String())
		}
		if d.PtrAlign != 0 {
			parts = append(parts, ".align "+strconv.Itoa(d.PtrAlign))
		}
	}
	s := strings.Join(parts, " ")
	var names []string
	for _, n := range d.Names {
		names = append(names, dbgVarName(n))
	}
	if len(names) > 0 {
		s += " " + strings.Join(names, ", ")
	}
	return s
}

func dbgVarName(n *VarName) string {
	s := n.Name
	if n.Range != 0 {
		s += "<" + strconv.Itoa(n.Range) + ">"
	}
	for _, d := range n.Dims {
		if d < 0 {
			s += "[]"
		} else {
			s += "[" + strconv.Itoa(d) + "]"
		}
	}
	if n.Init != nil {
		s += " = " + dbgInit(n.Init)
	}
	return s
}

func dbgInit(in *Init) string {
	if in.Expr != nil {
		return dbgExpr(in.Expr)
	}
	var parts []string
	for _, e := range in.Elems {
		parts = append(parts, dbgInit(e))
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

func dbgBlock(b *strings.Builder, blk *Block, indent string) {
	b.WriteString(indent + "{\n")
	for _, s := range blk.Stmts {
		dbgStmt(b, s, indent+"\t")
	}
	b.WriteString(indent + "}")
}

func dbgStmt(b *strings.Builder, s Stmt, indent string) {
	switch s := s.(type) {
	case *Block:
		dbgBlock(b, s, indent)
		b.WriteString("\n")
	case *Label:
		b.WriteString(s.Name + ":\n")
	case *VarDecl:
		b.WriteString(indent + dbgVarDecl(s) + ";\n")
	case *Directive:
		b.WriteString(indent + dbgDirective(s) + ";\n")
	case *CallProto:
		b.WriteString(s.Name + ": .callprototype ")
		if s.Rets != nil {
			b.WriteString(dbgParams(s.Rets) + " ")
		}
		b.WriteString("_")
		if s.Params != nil {
			b.WriteString(" " + dbgParams(s.Params))
		}
		b.WriteString(";\n")
	case *Instr:
		b.WriteString(indent + dbgInstr(s) + ";\n")
	default:
		fmt.Fprintf(b, "%s<unknown stmt %T>\n", indent, s)
	}
}

func dbgInstr(in *Instr) string {
	var b strings.Builder
	if in.Guard != nil {
		b.WriteString("@")
		if in.Guard.Neg {
			b.WriteString("!")
		}
		b.WriteString(in.Guard.Pred + " ")
	}
	b.WriteString(in.Opcode)
	for _, m := range in.Mods {
		b.WriteString("." + m.Name)
	}
	for i, op := range in.Operands {
		if i == 0 {
			b.WriteString(" ")
		} else {
			b.WriteString(", ")
		}
		b.WriteString(dbgOperand(op))
	}
	return b.String()
}

func dbgOperand(op *Operand) string {
	switch op.Kind {
	case OpdName:
		if op.Neg {
			return "!" + op.Name
		}
		return op.Name
	case OpdImm:
		return dbgExpr(op.Expr)
	case OpdAddr:
		s := op.Name
		if op.Expr != nil {
			if s != "" {
				s += "+"
			}
			s += dbgExpr(op.Expr)
		}
		for _, e := range op.Elems {
			s += ", " + dbgOperand(e)
		}
		return "[" + s + "]"
	case OpdVec, OpdList:
		var parts []string
		for _, e := range op.Elems {
			parts = append(parts, dbgOperand(e))
		}
		if op.Kind == OpdVec {
			return "{" + strings.Join(parts, ", ") + "}"
		}
		return "(" + strings.Join(parts, ", ") + ")"
	case OpdSink:
		return "_"
	case OpdPair:
		return dbgOperand(op.Elems[0]) + "|" + dbgOperand(op.Elems[1])
	}
	return fmt.Sprintf("<operand kind %d>", op.Kind)
}

// dbgExpr prints e with every compound subexpression parenthesized.
func dbgExpr(e *Expr) string {
	if e == nil {
		return "<nil>"
	}
	switch e.Kind {
	case ExprInt:
		s := strconv.FormatUint(e.Int, 10)
		if e.Unsigned {
			s += "U"
		}
		return s
	case ExprFloat:
		if e.F32 {
			return fmt.Sprintf("0f%08X", fmtF32Bits(e.Float))
		}
		return fmt.Sprintf("0d%016X", fmtF64Bits(e.Float))
	case ExprName:
		return e.Name
	case ExprString:
		return strconv.Quote(e.Str)
	case ExprUnary:
		return e.Op + dbgSub(e.X)
	case ExprBinary:
		return dbgSub(e.X) + " " + e.Op + " " + dbgSub(e.Y)
	case ExprCond:
		return dbgSub(e.X) + " ? " + dbgSub(e.Y) + " : " + dbgSub(e.Z)
	case ExprCall:
		var args []string
		for _, a := range e.Args {
			args = append(args, dbgExpr(a))
		}
		return e.Name + "(" + strings.Join(args, ", ") + ")"
	}
	return "<expr>"
}

func dbgSub(e *Expr) string {
	if e != nil && (e.Kind == ExprBinary || e.Kind == ExprCond) {
		return "(" + dbgExpr(e) + ")"
	}
	return dbgExpr(e)
}

func fmtF32Bits(f float64) uint32 { return math.Float32bits(float32(f)) }
func fmtF64Bits(f float64) uint64 { return math.Float64bits(f) }
