package conformance

import (
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/ptxplayground/ptxplay/engine/launch"
)

// corpusMinGPUOcelot is how many gpuocelot modules must compile.
const corpusMinGPUOcelot = 140

// corpusFiles lists the .ptx files under dir, sorted, as paths relative
// to root (slash-separated); nil if dir is absent.
func corpusFiles(t *testing.T, root, dir string) []string {
	t.Helper()
	if _, err := os.Stat(filepath.Join(root, dir)); err != nil {
		return nil
	}
	var files []string
	err := filepath.WalkDir(filepath.Join(root, dir), func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(path, ".ptx") {
			rel, err := filepath.Rel(root, path)
			if err != nil {
				return err
			}
			files = append(files, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(files)
	return files
}

// TestCorpus compiles every module of the shared corpus exactly as
// `ptxplay check` does (launch.Compile): warnings are allowed (tensor-core
// instructions, for one), errors are not. Every ptx-ir module must
// compile, and at least corpusMinGPUOcelot of the gpuocelot modules.
func TestCorpus(t *testing.T) {
	root := filepath.Join(sharedDir, "corpus")
	exp := loadExpectations(t, filepath.Join("testdata", "corpus_expected_failures.txt"))
	total := 0
	for _, set := range []string{"ptx-ir", "gpuocelot"} {
		files := corpusFiles(t, root, set)
		if files == nil {
			t.Logf("%s: absent, skipped", filepath.Join(root, set))
			continue
		}
		ok := 0
		for _, name := range files {
			total++
			failure := compileFailure(t, filepath.Join(root, name), name)
			if failure == "" {
				ok++
			}
			t.Run(name, func(t *testing.T) {
				exp.record(t, name, failure)
			})
		}
		t.Logf("%s: %d of %d modules compile", set, ok, len(files))
		if set == "gpuocelot" && ok < corpusMinGPUOcelot {
			t.Errorf("gpuocelot: only %d of %d modules compile; at least %d must", ok, len(files), corpusMinGPUOcelot)
		}
	}
	if total == 0 {
		skipOrFail(t, "no corpus found under %s", root)
	}
	exp.finish(t, "corpus")
}

// compileFailure compiles one module: "" if it has no errors, else its
// first error.
func compileFailure(t *testing.T, path, name string) (failure string) {
	text, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if r := recover(); r != nil {
			failure = "panic while compiling: " + oneLine(strings.TrimSpace(toString(r)), 200)
		}
	}()
	prog, src, diags := launch.Compile(name, text)
	if prog != nil {
		return ""
	}
	return firstError(src, diags)
}

func toString(v any) string {
	if s, ok := v.(interface{ Error() string }); ok {
		return s.Error()
	}
	if s, ok := v.(string); ok {
		return s
	}
	return "non-string panic"
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
