package emu

import (
	"strings"

	"github.com/ptxplayground/ptxplay/engine/isa"
	"github.com/ptxplayground/ptxplay/engine/ptx"
)

// Checking a module with syntax errors. The parser drops the statements it
// cannot parse (Module.Lost) and keeps the rest, so the checker still
// checks every statement that parsed cleanly: one bad line must not hide
// the errors of the others. What it skips, and why:
//   - an instruction holding a syntax error (recovered from broken text);
//   - errors of an instruction that uses a name that is not declared but
//     is written in lost text (or in a broken function header): the lost
//     statement may have declared it, and the instruction cannot be
//     checked without it;
//   - undefined labels and functions written in lost text;
//   - the argument counts of calls to a function whose header is broken.
// Such a module is never lowered to a runnable Program.

// lostNames collects the names written in lost text: module-level ones
// (lost declarations outside function bodies) and, per function, those
// lost inside its body or its broken header.
func (c *compiler) lostNames() {
	m := c.mod
	if m.SyntaxErrors() == 0 {
		return
	}
	c.lostGlobal = map[string]bool{}
	c.lostIn = map[*ptx.Func]map[string]bool{}
	add := func(set map[string]bool, s ptx.Span) {
		for _, n := range m.Names(s) {
			set[n] = true
		}
	}
	var funcs []*ptx.Func
	for _, d := range m.Decls {
		if f, ok := d.(*ptx.Func); ok {
			funcs = append(funcs, f)
			if c.brokenHeader(f) {
				c.funcLost(f)
				add(c.lostIn[f], headerSpan(f))
			}
		}
	}
	for _, s := range m.Lost {
		set := c.lostGlobal
		for _, f := range funcs {
			if f.Body != nil && f.Body.Span.Start <= s.Start && s.End <= f.Body.Span.End {
				set = c.funcLost(f)
				break
			}
		}
		add(set, s)
	}
}

func (c *compiler) funcLost(f *ptx.Func) map[string]bool {
	set := c.lostIn[f]
	if set == nil {
		set = map[string]bool{}
		c.lostIn[f] = set
	}
	return set
}

// headerSpan is a function's signature: everything before its body.
func headerSpan(f *ptx.Func) ptx.Span {
	if f.Body == nil {
		return f.Span
	}
	return ptx.Span{Start: f.Span.Start, End: f.Body.Span.Start}
}

// brokenHeader reports whether f's signature holds a syntax error (its
// parameter lists may be incomplete).
func (c *compiler) brokenHeader(f *ptx.Func) bool {
	return c.mod.SyntaxErrors() > 0 && c.mod.HasSyntaxError(headerSpan(f))
}

// maybeLost reports whether name is written in lost text in scope (the
// current function's, or the module's): as itself, as the base of a
// register range ("%r" for "%r7") or of a vector component ("%v" for
// "%v.x").
func (c *compiler) maybeLost(name string) bool {
	if c.lostGlobal == nil {
		return false
	}
	in := func(n string) bool { return c.lostGlobal[n] || c.lostFn[n] }
	if in(name) {
		return true
	}
	if i := strings.IndexByte(name, '.'); i > 0 && in(name[:i]) {
		return true
	}
	t := strings.TrimRight(name, "0123456789")
	return t != name && t != "" && in(t)
}

// dropLostErrors removes, from the diagnostics ins produced (those from
// index nd on; ne errors were counted before it), the ones that a lost
// declaration may explain: those located in an operand (or the guard)
// that uses a name which is not declared but is written in lost text.
// The instruction's other diagnostics (an unknown opcode or modifier, an
// operand count, a bad immediate) do not depend on the lost text and are
// kept, so a broken declaration does not hide them.
func (c *compiler) dropLostErrors(ins *ptx.Instr, nd, ne int) {
	lost := c.lostSpans(ins)
	if len(lost) == 0 {
		return
	}
	keep := c.diags.Diags[:nd]
	errs := ne
	for _, d := range c.diags.Diags[nd:] {
		drop := false
		for _, s := range lost {
			if d.Span.Start < s.End && s.Start < d.Span.End || d.Span == s {
				drop = true
				break
			}
		}
		// An error reported at the whole instruction may come from an
		// operand the binder could not resolve; it is dropped too.
		if d.Span == ins.Span {
			drop = true
		}
		if drop {
			continue
		}
		keep = append(keep, d)
		if d.Severity == ptx.SevError {
			errs++
		}
	}
	c.diags.Diags, c.diags.Errors = keep, errs
}

// lostSpans returns the spans of the guard and the operands of ins that
// use a name which is not declared (so far) but may have been declared by
// lost text.
func (c *compiler) lostSpans(ins *ptx.Instr) []ptx.Span {
	if c.lostGlobal == nil {
		return nil
	}
	var spans []ptx.Span
	if ins.Guard != nil && c.unresolvedLost(ins.Guard.Pred) {
		spans = append(spans, ins.Guard.Span)
	}
	for _, o := range ins.Operands {
		if c.operandLost(o) {
			spans = append(spans, o.Span)
		}
	}
	return spans
}

// unresolvedLost reports whether name is not declared (so far) but may
// have been declared by lost text.
func (c *compiler) unresolvedLost(name string) bool {
	if name == "" || c.lookup(name) != nil {
		return false
	}
	if _, ok := isa.LookupSpecial(name); ok {
		return false
	}
	return !c.labelVisible(name) && c.maybeLost(name)
}

// operandLost reports whether operand o uses a name that lost text may
// have declared.
func (c *compiler) operandLost(o *ptx.Operand) bool {
	unresolved := c.unresolvedLost
	var expr func(e *ptx.Expr) bool
	expr = func(e *ptx.Expr) bool {
		if e == nil {
			return false
		}
		if e.Kind == ptx.ExprName && unresolved(e.Name) {
			return true
		}
		if expr(e.X) || expr(e.Y) || expr(e.Z) {
			return true
		}
		for _, a := range e.Args {
			if expr(a) {
				return true
			}
		}
		return false
	}
	var opd func(o *ptx.Operand) bool
	opd = func(o *ptx.Operand) bool {
		if o == nil {
			return false
		}
		if (o.Kind == ptx.OpdName || o.Kind == ptx.OpdAddr) && unresolved(o.Name) {
			return true
		}
		if expr(o.Expr) {
			return true
		}
		for _, e := range o.Elems {
			if opd(e) {
				return true
			}
		}
		return false
	}
	return opd(o)
}
