package ptx

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// The files in testdata/errors are broken PTX annotated like Go's test
// directory: a line that must get a diagnostic carries a comment
//
//	// ERROR "regexp" ["regexp" ...]
//
// (or /* ERROR "regexp" */ placed before the broken text, for lines whose
// broken text would swallow a trailing comment). Every regexp must match a
// diagnostic reported on that line, and every diagnostic must be on an
// annotated line and match one of its regexps.

var errorAnnot = regexp.MustCompile(`(?://|/\*)\s*ERROR\s+(.*)`)

// expectedErrors returns the regexps annotated on each line (1-based).
func expectedErrors(t *testing.T, text string) map[int][]*regexp.Regexp {
	t.Helper()
	want := map[int][]*regexp.Regexp{}
	for i, line := range strings.Split(text, "\n") {
		m := errorAnnot.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		rest := strings.TrimSpace(m[1])
		for rest != "" && rest[0] != '*' {
			q, err := strconv.QuotedPrefix(rest)
			if err != nil {
				t.Fatalf("line %d: bad ERROR annotation %q", i+1, m[1])
			}
			pat, _ := strconv.Unquote(q)
			re, err := regexp.Compile(pat)
			if err != nil {
				t.Fatalf("line %d: %v", i+1, err)
			}
			want[i+1] = append(want[i+1], re)
			rest = strings.TrimSpace(rest[len(q):])
		}
		if len(want[i+1]) == 0 {
			t.Fatalf("line %d: ERROR annotation without a regexp", i+1)
		}
	}
	return want
}

func TestErrorFiles(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "errors", "*.ptx"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no testdata/errors files")
	}
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			text, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			want := expectedErrors(t, string(text))
			src := NewSource(filepath.Base(path), text)
			_, diags := Parse(src)
			got := map[int][]Diagnostic{}
			for _, d := range diags {
				line := src.Position(d.Span.Start).Line
				got[line] = append(got[line], d)
			}
			for line, ds := range got {
				res := want[line]
				for _, d := range ds {
					ok := false
					for _, re := range res {
						if re.MatchString(d.Message) {
							ok = true
						}
					}
					if !ok {
						t.Errorf("unexpected diagnostic: %s", d.Format(src))
					}
				}
			}
			for line, res := range want {
				for _, re := range res {
					ok := false
					for _, d := range got[line] {
						if re.MatchString(d.Message) {
							ok = true
						}
					}
					if !ok {
						t.Errorf("%s:%d: no diagnostic matching %q (got %s)", src.Name, line, re, dbgMessages(got[line]))
					}
				}
			}
		})
	}
}

func dbgMessages(ds []Diagnostic) string {
	var parts []string
	for _, d := range ds {
		parts = append(parts, strconv.Quote(d.Message))
	}
	if len(parts) == 0 {
		return "none"
	}
	return fmt.Sprint(strings.Join(parts, ", "))
}

// After errors, the rest of the module is still parsed.
func TestErrorRecovery(t *testing.T) {
	text, err := os.ReadFile(filepath.Join("testdata", "errors", "two_functions.ptx"))
	if err != nil {
		t.Fatal(err)
	}
	m, diags := Parse(NewSource("two_functions.ptx", text))
	if len(diags) != 2 || len(m.Decls) != 2 {
		t.Fatalf("got %d diagnostics, %d decls", len(diags), len(m.Decls))
	}
	want := []string{
		".entry a(.param .u64 p)\n{\n\t.reg .b32 %r<3>;\n\tadd.u32 %r2, %r1, 1;\n\tret;\n}\n",
		".entry b(.param .u64 p)\n{\n\t.reg .b32 %r<3>;\n\tbra.uni done;\ndone:\n\tret;\n}\n",
	}
	for i, d := range m.Decls {
		if got := dbgFunc(d.(*Func)); got != want[i] {
			t.Errorf("func %d:\n%s\nwant\n%s", i, got, want[i])
		}
	}

	text, err = os.ReadFile(filepath.Join("testdata", "errors", "unbalanced_braces.ptx"))
	if err != nil {
		t.Fatal(err)
	}
	m, _ = Parse(NewSource("unbalanced_braces.ptx", text))
	var names []string
	for _, d := range m.Decls {
		f := d.(*Func)
		names = append(names, fmt.Sprintf("%s:%d", f.Name, len(f.Body.Stmts)))
	}
	if got := strings.Join(names, " "); got != "a:2 b:1 c:1" {
		t.Errorf("functions: %s", got)
	}
}
