package web

import (
	"go/build"
	"path/filepath"
	"strings"
	"testing"
)

const modulePath = "github.com/ptxplayground/ptxplay"

// moduleImports walks the non-test imports of the module's package in dir
// (relative to the module root), transitively within the module, and
// returns for each package reached the chain of imports that reached it.
func moduleImports(t *testing.T, root, dir string) map[string][]string {
	t.Helper()
	start := modulePath + "/" + filepath.ToSlash(dir)
	chains := map[string][]string{start: {start}}
	queue := []string{start}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		rel := strings.TrimPrefix(strings.TrimPrefix(p, modulePath), "/")
		pkg, err := build.ImportDir(filepath.Join(root, filepath.FromSlash(rel)), 0)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		for _, imp := range pkg.Imports {
			if imp != modulePath && !strings.HasPrefix(imp, modulePath+"/") {
				continue // the standard library and other modules import nothing of ours
			}
			if _, seen := chains[imp]; seen {
				continue
			}
			chains[imp] = append(append([]string(nil), chains[p]...), imp)
			queue = append(queue, imp)
		}
	}
	return chains
}

// TestWebDoesNotImportEmu: the web layer reads the ISA tables (opcodes,
// special registers) from engine/isa and launch specs from
// engine/launchspec, declares the Session it consumes, and is wired to the
// sessions manager in cmd/ptxplay; no package it imports, directly or
// transitively, is the emulator (what `go list -deps ./web` lists).
func TestWebDoesNotImportEmu(t *testing.T) {
	deps := moduleImports(t, "..", "web")
	// The walk itself: it reaches what web is known to use.
	for _, want := range []string{"engine/isa", "engine/launchspec", "sessions/share", "static"} {
		if _, ok := deps[modulePath+"/"+want]; !ok {
			t.Errorf("the walk of web's imports does not reach %s", want)
		}
	}
	for _, banned := range []string{"engine/emu", "engine/launch", "engine/analysis", "sessions"} {
		if chain, ok := deps[modulePath+"/"+banned]; ok {
			t.Errorf("web reaches %s: %s", banned, strings.Join(chain, " -> "))
		}
	}
}
