package web

import (
	"go/build"
	"strings"
	"testing"
)

// TestWebDoesNotImportEmu: the web layer reads the ISA tables (opcodes,
// special registers) from engine/isa and reaches the machine only
// through sessions; it imports no emulator package itself.
func TestWebDoesNotImportEmu(t *testing.T) {
	pkg, err := build.ImportDir(".", 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, imp := range pkg.Imports {
		if strings.HasSuffix(imp, "/engine/emu") {
			t.Errorf("web imports %s", imp)
		}
	}
}
