package web

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ptxplayground/ptxplay/engine/isa"
)

// The committed ui/api_gen.ts matches the Go types and tables.
func TestAPITypeScriptUpToDate(t *testing.T) {
	want, err := TypeScript()
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join("..", "ui", "api_gen.ts"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("ui/api_gen.ts is stale: run go generate ./ui")
	}
}

// The highlighter's types are engine/isa's: every Type's name, the packed
// integer types among them.
func TestHighlighterTypesFromISA(t *testing.T) {
	b, err := TypeScript()
	if err != nil {
		t.Fatal(err)
	}
	_, list, _ := strings.Cut(string(b), "export const ptxTypes")
	list, _, _ = strings.Cut(list, "];")
	for _, n := range append(isa.TypeNames(), "u16x2", "s16x2") {
		if !strings.Contains(list, `"`+n+`"`) {
			t.Errorf("ptxTypes lacks %q", n)
		}
	}
	if slices.Contains(isa.AlternateTypes, "s2f6x2") || strings.Contains(list, "s2f6x2") {
		t.Error("s2f6x2 is no type of the PTX ISA notes")
	}
}
