package ui

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// maxModuleLines is the size a hand-written ui/*.ts module is kept under:
// a module holds one concern, and one that grows past this is split.
const maxModuleLines = 400

// TestModuleSize checks that no hand-written ui/*.ts module (generated
// *_gen.ts files and declarations aside) is over maxModuleLines lines.
func TestModuleSize(t *testing.T) {
	files, err := filepath.Glob("*.ts")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 20 {
		t.Fatalf("found only %d ui/*.ts modules; the glob is out of date", len(files))
	}
	for _, f := range files {
		if strings.HasSuffix(f, "_gen.ts") || strings.HasSuffix(f, ".d.ts") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		n := bytes.Count(src, []byte("\n"))
		if len(src) > 0 && src[len(src)-1] != '\n' {
			n++
		}
		if n > maxModuleLines {
			t.Errorf("ui/%s has %d lines, over %d: split it by concern", f, n, maxModuleLines)
		}
	}
}
