package emu

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ptxplayground/ptxplay/engine/ptx"
)

// A module with a syntax error gives no program even when everything that
// parsed checks out.
func TestSyntaxErrorGivesNoProgram(t *testing.T) {
	src := ptx.NewSource("t.ptx", []byte(ctlHeader+".visible .entry k()\n{\n\t.reg .u32 %r1;\n\tmov.u32 %r1, 1\n\tret;\n}\n"))
	prog, diags := CompileSource(src)
	if prog != nil || len(diags) != 1 || !strings.Contains(diags[0].Message, "missing ';'") {
		t.Fatalf("program %v, diagnostics %v", prog != nil, diags)
	}
	mod, _ := ptx.Parse(src)
	if prog, diags := Compile(mod); prog != nil || len(diags) != 0 {
		t.Fatalf("Compile: program %v, diagnostics %v", prog != nil, diags)
	}
}

// Syntax and semantic errors are merged in source order and capped
// together.
func TestPartialDiagnosticsCapped(t *testing.T) {
	var b strings.Builder
	b.WriteString(ctlHeader + ".visible .entry k()\n{\n\t.reg .u32 %r<2>;\n")
	for i := range 30 {
		fmt.Fprintf(&b, "\tmov.u32 %%r1 %d;\n", i)       // syntax error
		fmt.Fprintf(&b, "\tmov.u32 %%r1, %%bad%d;\n", i) // undefined name
	}
	b.WriteString("\tret;\n}\n")
	src := ptx.NewSource("t.ptx", []byte(b.String()))
	prog, diags := CompileSource(src)
	if prog != nil || len(diags) != ptx.MaxErrors+1 || !ptx.Capped(diags) {
		t.Fatalf("%d diagnostics", len(diags))
	}
	for i, d := range diags[:ptx.MaxErrors] {
		line := src.Position(d.Span.Start).Line
		if want := 7 + i; line != want {
			t.Fatalf("diagnostic %d at line %d, want %d: %s", i, line, want, d.Format(src))
		}
		syntax := strings.Contains(d.Message, "expected")
		if syntax != (i%2 == 0) {
			t.Fatalf("diagnostic %d: %s", i, d.Format(src))
		}
	}
}
