package ptx

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The IDs are unique kebab-case names, each described in one line, and none
// published is ever renamed or dropped: testdata/diag_ids.golden lists every
// ID in published order and the table must begin with exactly that list (a
// new ID is appended to both).
func TestDiagIDsTable(t *testing.T) {
	kebab := regexp.MustCompile(`^[a-z][a-z0-9]*(-[a-z0-9]+)*$`)
	seen := map[DiagID]bool{}
	for _, d := range IDs {
		if !kebab.MatchString(string(d.ID)) {
			t.Errorf("ID %q is not kebab-case", d.ID)
		}
		if seen[d.ID] {
			t.Errorf("ID %q listed twice", d.ID)
		}
		seen[d.ID] = true
		if d.Desc == "" || strings.Contains(d.Desc, "\n") {
			t.Errorf("ID %q: want a one-line description, got %q", d.ID, d.Desc)
		}
		if !KnownID(d.ID) || Describe(d.ID) != d.Desc {
			t.Errorf("ID %q: lookup broken", d.ID)
		}
	}
	if KnownID("") || KnownID("no-such-id") {
		t.Error("an ID outside the table is known")
	}
	b, err := os.ReadFile(filepath.Join("testdata", "diag_ids.golden"))
	if err != nil {
		t.Fatal(err)
	}
	golden := strings.Fields(string(b))
	if len(golden) > len(IDs) {
		t.Fatalf("the table has %d IDs, the published list %d: an ID was removed", len(IDs), len(golden))
	}
	for i, g := range golden {
		if string(IDs[i].ID) != g {
			t.Errorf("ID %d: published as %q, the table has %q (IDs are never renamed, removed or reordered)", i, g, IDs[i].ID)
		}
	}
	if len(IDs) > len(golden) {
		var more []string
		for _, d := range IDs[len(golden):] {
			more = append(more, string(d.ID))
		}
		t.Errorf("IDs not in testdata/diag_ids.golden (append them): %s", strings.Join(more, " "))
	}
}

// Every DiagID constant declared in the package is in the table (a
// constant that is not could be emitted without a description).
func TestDiagIDConstantsInTable(t *testing.T) {
	b, err := os.ReadFile("diagids.go")
	if err != nil {
		t.Fatal(err)
	}
	decl := regexp.MustCompile(`(?m)^\s+Diag\w+\s+DiagID = "([^"]+)"`)
	ms := decl.FindAllStringSubmatch(string(b), -1)
	if len(ms) == 0 {
		t.Fatal("no DiagID constants found")
	}
	for _, m := range ms {
		if !KnownID(DiagID(m[1])) {
			t.Errorf("constant %q is not in the table", m[1])
		}
	}
	if len(ms) != len(IDs) {
		t.Errorf("%d constants, %d table entries", len(ms), len(IDs))
	}
}

// docs/diagnostics.md lists every ID with its description.
func TestDiagIDsDocumented(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "diagnostics.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	for _, d := range IDs {
		if row := "| `" + string(d.ID) + "` | " + d.Desc + " |"; !strings.Contains(doc, row) {
			t.Errorf("docs/diagnostics.md lacks the row %s", row)
		}
	}
}

// Format writes the ID after the severity and one line per note; the
// JSON shape carries both.
func TestDiagnosticFormatNotes(t *testing.T) {
	src := NewSource("n.ptx", []byte("a\nbb\nccc\n"))
	d := Diagnostic{Severity: SevError, ID: DiagDuplicateLabel, Span: Span{5, 8}, Message: "twice",
		Notes: []Note{{Span: Span{0, 1}, Message: "first"}, {Span: Span{2, 4}, Message: "second"}}}
	want := "n.ptx:3:1: error[duplicate-label]: twice\nn.ptx:1:1: note: first\nn.ptx:2:1: note: second"
	if got := d.Format(src); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	m := d.ToMessage(src)
	if m.ID != "duplicate-label" || len(m.Notes) != 2 || m.Notes[1] != (NoteMessage{File: "n.ptx", Line: 2, Col: 1, EndLine: 2, EndCol: 3, Message: "second"}) {
		t.Errorf("message %+v", m)
	}
	// Notes take part in equality (Merge drops only true duplicates).
	e := d
	e.Notes = e.Notes[:1]
	if d.Equal(e) || !d.Equal(d) {
		t.Error("Equal ignores notes")
	}
	if got := Merge([]Diagnostic{d}, []Diagnostic{e, d}); len(got) != 2 {
		t.Errorf("merge: %d diagnostics, want 2", len(got))
	}
}

// Every diagnostic of the error files has an ID of the table (the parser's
// side; engine/emu's fuzz and annotation tests cover the compiler's).
func TestErrorFilesHaveIDs(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("testdata", "errors", "*.ptx"))
	n := 0
	for _, path := range files {
		text, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		src := NewSource(filepath.Base(path), text)
		_, diags := Parse(src)
		for _, d := range diags {
			n++
			if !KnownID(d.ID) {
				t.Errorf("no known ID: %s", d.Format(src))
			}
		}
	}
	if n == 0 {
		t.Fatal("no diagnostics")
	}
}
