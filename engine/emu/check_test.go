package emu

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ptxplayground/ptxplay/engine/ptx"
)

var annotRE = regexp.MustCompile(`// (ERROR|WARNING) "((?:[^"\\]|\\.)*)"`)

// TestCheckAnnotations compiles testdata/errors/*.ptx and requires every
// line annotated `// ERROR "re"` (or WARNING) to get a diagnostic of that
// severity matching re at that line, and no unannotated line to get one.
func TestCheckAnnotations(t *testing.T) {
	files, _ := filepath.Glob("testdata/errors/*.ptx")
	if len(files) == 0 {
		t.Fatal("no test files")
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			text, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			src := ptx.NewSource(filepath.Base(file), text)
			_, diags := CompileSource(src)
			type want struct {
				sev string
				re  *regexp.Regexp
				hit bool
			}
			wants := map[int]*want{}
			for i, line := range strings.Split(string(text), "\n") {
				if m := annotRE.FindStringSubmatch(line); m != nil {
					wants[i+1] = &want{sev: strings.ToLower(m[1]), re: regexp.MustCompile(m[2])}
				}
			}
			for _, d := range diags {
				if d.Severity == ptx.SevNote {
					continue
				}
				p := src.Position(d.Span.Start)
				w := wants[p.Line]
				switch {
				case w == nil:
					t.Errorf("unexpected diagnostic: %s", d.Format(src))
				case w.sev != d.Severity.String() || !w.re.MatchString(d.Message):
					t.Errorf("line %d: got %s, want %s matching %q", p.Line, d.Format(src), w.sev, w.re)
				default:
					w.hit = true
				}
			}
			for line, w := range wants {
				if !w.hit {
					t.Errorf("line %d: no %s matching %q", line, w.sev, w.re)
				}
			}
		})
	}
}

// Diagnostics carry exact columns: the span starts at the operand.
func TestCheckColumns(t *testing.T) {
	src := ptx.NewSource("c.ptx", []byte(".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\n\t.reg .u32 %r1;\n\tmov.u32 %r1, %nope;\n}\n"))
	_, diags := CompileSource(src)
	if len(diags) != 1 {
		t.Fatalf("diags: %v", diags)
	}
	if got, want := diags[0].Format(src), "c.ptx:7:15: error[undefined-name]: mov.u32: undefined name %nope"; got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
}
