package launch

import (
	"context"
	"testing"

	"github.com/ptxplayground/ptxplay/engine/cuda"
)

// gallerySource returns the PTX of gallery spec s in dir and its file
// name: the spec's PTX file, or for a CUDA lesson its CUDA file compiled
// (the test skips when clang is missing).
func gallerySource(t *testing.T, dir string, s *Spec) ([]byte, string) {
	t.Helper()
	if s.CUDA == "" {
		text, name, err := s.Load(dir)
		if err != nil {
			t.Fatal(err)
		}
		return text, name
	}
	c := cuda.Default()
	if err := c.Available(); err != nil {
		t.Skipf("%s: %v", dir, err)
	}
	res, path, err := c.CompileSpec(context.Background(), s, dir)
	if err != nil || !res.OK() {
		t.Fatalf("%s: %v %+v", path, err, res)
	}
	return []byte(res.PTX), path + ".ptx"
}
