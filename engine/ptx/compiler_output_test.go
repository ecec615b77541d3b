package ptx

import (
	"strings"
	"testing"
)

// Forms found in compiler-emitted modules that the parser accepts.

// TestHiddenKernelParam: nvcc 13.x marks TMA descriptor parameters
// .hidden (PTX 9.x).
func TestHiddenKernelParam(t *testing.T) {
	m := parseOK(t, ".version 9.0\n.target sm_90a\n.address_size 64\n"+
		".visible .entry k(.hidden .param .align 64 .b8 p[128], .param .u64 q)\n{\n\tret;\n}\n")
	f := m.Decls[0].(*Func)
	if len(f.Params) != 2 {
		t.Fatalf("got %d params", len(f.Params))
	}
	p := f.Params[0]
	if p.Names[0].Name != "p" || p.Align != 64 || p.Type.String() != "b8" || p.Space.String() != "param" {
		t.Errorf("param 0: %+v %+v", p, p.Names[0])
	}
	// .hidden is only skipped in front of a parameter, not accepted
	// anywhere in a declaration.
	s := NewSource("t.ptx", []byte(".version 9.0\n.target sm_90\n.entry k(.param .hidden .u64 q)\n{\n\tret;\n}\n"))
	if _, diags := Parse(s); len(diags) == 0 || !strings.Contains(diags[0].Message, `unexpected ".hidden"`) {
		t.Errorf("misplaced .hidden: %v", diags)
	}
}

// TestTrailingNULs: some toolchains save modules padded with NUL bytes;
// trailing NULs are ignored, a NUL inside the text is still an error.
func TestTrailingNULs(t *testing.T) {
	const mod = ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\n\tret;\n}\n"
	for _, pad := range []string{"\x00", "\x00\x00\x00\x00", "\n\x00\x00"} {
		m := parseOK(t, mod+pad)
		if len(m.Decls) != 1 {
			t.Errorf("pad %q: got %d decls", pad, len(m.Decls))
		}
	}
	s := NewSource("t.ptx", []byte(".version 8.0\n.target sm_80\n\x00.visible .entry k()\n{\n\tret;\n}\n\x00"))
	_, diags := Parse(s)
	if len(diags) != 1 || !strings.Contains(diags[0].Message, "0x00") && !strings.Contains(diags[0].Message, `\x00`) {
		t.Fatalf("NUL inside the module: %v", diags)
	}
	if p := s.Position(diags[0].Span.Start); p.Line != 3 || p.Col != 1 {
		t.Errorf("NUL reported at %d:%d, want 3:1", p.Line, p.Col)
	}
}
