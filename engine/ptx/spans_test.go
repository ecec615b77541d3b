package ptx

import (
	"fmt"
	"os"
	"testing"
)

// dbgSpanChecker verifies that every span of an AST lies within its
// parent's span and within the source, and that Start <= End.
type dbgSpanChecker struct {
	n   int32
	err error
}

// root checks a root expression and evaluates it (which must not panic).
func (c *dbgSpanChecker) root(e *Expr, parent Span) {
	c.expr(e, parent)
	if v, err := Eval(e, nil); err != nil {
		if ee, ok := err.(*EvalError); !ok {
			c.err = fmt.Errorf("Eval returned %T", err)
		} else {
			c.in("eval error", ee.Span, e.Span)
		}
	} else if v.Kind > ValFloat {
		c.err = fmt.Errorf("Eval returned kind %d", v.Kind)
	}
}

func (c *dbgSpanChecker) in(what string, s, parent Span) {
	if c.err != nil {
		return
	}
	if s.Start < 0 || s.End > c.n || s.Start > s.End {
		c.err = fmt.Errorf("%s span %v out of bounds (len %d)", what, s, c.n)
	} else if s.Start < parent.Start || s.End > parent.End {
		c.err = fmt.Errorf("%s span %v not within %v", what, s, parent)
	}
}

func dbgCheckSpans(m *Module) error {
	n := int32(len(m.Src.Text))
	c := &dbgSpanChecker{n: n}
	all := Span{0, n}
	for _, d := range m.Directives {
		c.directive(d, all)
	}
	for _, d := range m.Decls {
		switch d := d.(type) {
		case *VarDecl:
			c.varDecl(d, all)
		case *Func:
			c.in("func", d.Span, all)
			c.in("func name", d.NameSpan, d.Span)
			for _, p := range d.Rets {
				c.varDecl(p, d.Span)
			}
			for _, p := range d.Params {
				c.varDecl(p, d.Span)
			}
			for _, dir := range d.Directives {
				c.directive(dir, d.Span)
			}
			if d.Body != nil {
				c.block(d.Body, d.Span)
			}
		}
	}
	return c.err
}

func (c *dbgSpanChecker) directive(d *Directive, parent Span) {
	c.in("directive", d.Span, parent)
	for _, a := range d.Args {
		c.root(a, d.Span)
	}
}

func (c *dbgSpanChecker) varDecl(d *VarDecl, parent Span) {
	c.in("var decl", d.Span, parent)
	for _, vn := range d.Names {
		c.in("var name", vn.Span, d.Span)
		if vn.Init != nil {
			c.init(vn.Init, d.Span)
		}
	}
}

func (c *dbgSpanChecker) init(in *Init, parent Span) {
	c.in("init", in.Span, parent)
	if in.Expr != nil {
		c.root(in.Expr, in.Span)
	}
	for _, e := range in.Elems {
		c.init(e, in.Span)
	}
}

func (c *dbgSpanChecker) block(b *Block, parent Span) {
	c.in("block", b.Span, parent)
	for _, s := range b.Stmts {
		switch s := s.(type) {
		case *Block:
			c.block(s, b.Span)
		case *Label:
			c.in("label", s.Span, b.Span)
		case *VarDecl:
			c.varDecl(s, b.Span)
		case *Directive:
			c.directive(s, b.Span)
		case *CallProto:
			c.in("callprototype", s.Span, b.Span)
			for _, p := range s.Rets {
				c.varDecl(p, s.Span)
			}
			for _, p := range s.Params {
				c.varDecl(p, s.Span)
			}
		case *Instr:
			c.in("instr", s.Span, b.Span)
			if s.Guard != nil {
				c.in("guard", s.Guard.Span, s.Span)
			}
			c.in("opcode", s.OpSpan, s.Span)
			for _, m := range s.Mods {
				c.in("modifier", m.Span, s.OpSpan)
			}
			for _, op := range s.Operands {
				c.operand(op, s.Span)
			}
		default:
			c.err = fmt.Errorf("unknown statement %T", s)
		}
	}
}

func (c *dbgSpanChecker) operand(op *Operand, parent Span) {
	c.in("operand", op.Span, parent)
	if op.Expr != nil {
		c.root(op.Expr, op.Span)
	}
	for _, e := range op.Elems {
		c.operand(e, op.Span)
	}
}

func (c *dbgSpanChecker) expr(e *Expr, parent Span) {
	c.in("expr", e.Span, parent)
	for _, x := range []*Expr{e.X, e.Y, e.Z} {
		if x != nil {
			c.expr(x, e.Span)
		}
	}
	for _, a := range e.Args {
		c.expr(a, e.Span)
	}
}

func TestCorpusSpans(t *testing.T) {
	n := 0
	for _, dir := range append(corpusDirs, "testdata/errors") {
		for _, path := range corpusFiles(t, dir) {
			text, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			m, _ := Parse(NewSource(path, text))
			if err := dbgCheckSpans(m); err != nil {
				t.Errorf("%s: %v", path, err)
			}
			n++
		}
	}
	t.Logf("checked %d files", n)
}
