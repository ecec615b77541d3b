package browser

import (
	"os"
	"path/filepath"
)

// sessionsKernel reads a test kernel the sessions tests keep in
// sessions/testdata, so both test the same source.
func sessionsKernel(name string) string {
	b, err := os.ReadFile(filepath.Join("..", "..", "sessions", "testdata", name))
	if err != nil {
		panic(err)
	}
	return string(b)
}
