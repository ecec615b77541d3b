package ptx

import (
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// sharedDir is the shared folder relative to this package (engine/ptx).
const sharedDir = "../../../shared"

// corpusDirs are the folders whose .ptx files must all parse without errors.
var corpusDirs = []string{
	filepath.Join(sharedDir, "corpus"),
	filepath.Join(sharedDir, "conformance", "zluda"),
}

// corpusFiles lists the .ptx files under dir (sorted), or nil if dir is absent.
func corpusFiles(t testing.TB, dir string) []string {
	t.Helper()
	if _, err := os.Stat(dir); err != nil {
		return nil
	}
	var files []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(path, ".ptx") {
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(files)
	return files
}

// TestCorpus parses every module of the shared corpus and the zluda
// conformance tests. All of them must parse without errors; zluda's
// malformed_label.ptx is syntactically valid (its "malformation" is an
// unreachable block without a label, a semantic matter).
func TestCorpus(t *testing.T) {
	total := 0
	for _, dir := range corpusDirs {
		files := corpusFiles(t, dir)
		if files == nil {
			t.Logf("%s: absent, skipped", dir)
			continue
		}
		for _, path := range files {
			text, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			total++
			src := NewSource(path, text)
			m, diags := Parse(src)
			if len(diags) > 0 {
				out := FormatAll(src, diags)
				if len(out) > 2000 {
					out = out[:2000] + "..."
				}
				t.Errorf("%s: %d diagnostics:\n%s", path, len(diags), out)
				continue
			}
			if m.Version == "" {
				t.Errorf("%s: no .version", path)
			}
		}
	}
	if total == 0 {
		skipOrFail(t, "no corpus found under "+sharedDir)
	}
	t.Logf("parsed %d corpus files", total)
}

// skipOrFail skips a test whose shared data is missing, except in CI (CI
// set), where the data must be there and a skip would hide a broken setup.
func skipOrFail(t *testing.T, format string, args ...any) {
	t.Helper()
	if os.Getenv("CI") != "" {
		t.Fatalf(format, args...)
	}
	t.Skipf(format, args...)
}
