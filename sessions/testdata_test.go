package sessions

import (
	"os"
	"path/filepath"
)

// testKernel reads a test kernel from testdata (kernels the web's browser
// tests load too).
func testKernel(name string) string {
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		panic(err)
	}
	return string(b)
}
