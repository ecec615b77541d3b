package launch

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// FuzzInfer feeds arbitrary text through Compile and, for what compiles,
// Kernels, Infer, Check and Prepare, and a bounded run: nothing may panic,
// and the inferred spec must fit (Check finds nothing) and be accepted.
func FuzzInfer(f *testing.F) {
	for _, src := range []string{inferVecAdd, inferSaxpy, inferHistogram, inferImage, inferTwo, inferNoParams, inferAddr32, inferCall} {
		f.Add([]byte(src))
	}
	for _, dir := range []string{"../../web/examples", filepath.Join(sharedDir, "conformance", "zluda")} {
		files, _ := filepath.Glob(filepath.Join(dir, "*.ptx"))
		for _, file := range files {
			if b, err := os.ReadFile(file); err == nil && len(b) < 16<<10 {
				f.Add(b)
			}
		}
	}
	f.Fuzz(func(t *testing.T, text []byte) {
		p, _, _ := Compile("f.ptx", text)
		if p == nil {
			return
		}
		Kernels(p)
		for _, k := range p.Entries() {
			s, _, err := Infer(p, nil, k.Name)
			if err != nil {
				t.Fatalf("Infer %s: %v", k.Name, err)
			}
			if ms := Check(p, s); len(ms) != 0 {
				t.Fatalf("Check of the inferred spec: %+v", ms)
			}
			s.MaxWarpInstructions = 2000
			l, err := Prepare(p, s)
			if err != nil {
				t.Fatalf("Prepare: %v", err)
			}
			l.Run(context.Background())
		}
	})
}
