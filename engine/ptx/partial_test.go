package ptx

import (
	"slices"
	"strings"
	"testing"
)

// The module records what a syntax error cost: the dropped statements (with
// the names written in them) and where errors start.
func TestLostStatements(t *testing.T) {
	text := ".version 8.0\n.target sm_80\n" +
		".global .u32 g[;\n" + // dropped declaration
		".visible .entry k()\n{\n" +
		"\t.reg .b32 %r<4\n" + // dropped: swallows the next line up to its ';'
		"\tmov.u32 %x, 1;\n" +
		"\tmov.u32 %r1, 0x;\n" + // kept, with an error inside
		"\tret\n" + // kept: only the ';' is missing
		"}\n"
	m, diags := Parse(NewSource("t.ptx", []byte(text)))
	if m.SyntaxErrors() != 4 || len(diags) != 4 {
		t.Fatalf("%d syntax errors: %v", m.SyntaxErrors(), diags)
	}
	var lost []string
	for _, s := range m.Lost {
		lost = append(lost, strings.Join(m.Names(s), " "))
	}
	if want := []string{"g", "%r mov %x"}; !slices.Equal(lost, want) {
		t.Fatalf("lost names %q, want %q", lost, want)
	}
	body := m.Decls[0].(*Func).Body
	if len(body.Stmts) != 2 {
		t.Fatalf("statements: %d", len(body.Stmts))
	}
	mov, ret := body.Stmts[0].(*Instr), body.Stmts[1].(*Instr)
	if !m.HasSyntaxError(mov.Span) || m.HasSyntaxError(ret.Span) {
		t.Fatalf("errors inside: mov %v, ret %v", m.HasSyntaxError(mov.Span), m.HasSyntaxError(ret.Span))
	}
	if m, _ := Parse(NewSource("ok.ptx", []byte(".entry k() { ret; }"))); m.SyntaxErrors() != 0 || len(m.Lost) != 0 {
		t.Fatalf("clean module: %d errors, lost %v", m.SyntaxErrors(), m.Lost)
	}
}

func TestMerge(t *testing.T) {
	e := func(at int32, msg string) Diagnostic {
		return Diagnostic{Severity: SevError, Span: Span{at, at + 1}, Message: msg}
	}
	w := Diagnostic{Severity: SevWarning, Span: Span{5, 6}, Message: "w"}
	got := Merge([]Diagnostic{e(10, "b"), e(3, "a")}, []Diagnostic{w, e(3, "a"), e(3, "c"), e(1, "z")})
	want := []Diagnostic{e(1, "z"), e(3, "a"), e(3, "c"), w, e(10, "b")}
	if !slices.EqualFunc(got, want, Diagnostic.Equal) {
		t.Fatalf("merge:\n%v\nwant\n%v", got, want)
	}

	// The cap keeps the first errors by position and ends with the note.
	var a, b DiagList
	for i := range 40 {
		a.Errorf(Span{int32(2 * i), int32(2*i + 1)}, DiagSyntax, "parse %d", i)
		b.Errorf(Span{int32(2*i + 1), int32(2*i + 2)}, DiagSyntax, "check %d", i)
	}
	b.Warnf(Span{500, 501}, DiagSyntax, "late warning")
	got = Merge(a.Diags, b.Diags)
	if n := len(got); n != MaxErrors+2 || !Capped(got) || got[n-1].Severity != SevNote || got[n-2].Message != "late warning" {
		t.Fatalf("capped merge: %d diagnostics, last %v", n, got[n-1])
	}
	if got[MaxErrors-1].Span.Start != MaxErrors-1 {
		t.Fatalf("the %dth error is at %d", MaxErrors, got[MaxErrors-1].Span.Start)
	}
	if Capped(a.Diags) || Capped(Merge(a.Diags)) {
		t.Fatal("40 errors are not capped")
	}
}
