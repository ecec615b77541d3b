package cuda

import (
	"crypto/sha256"
	"embed"
	"io/fs"
	"sort"
)

// preludeFS holds the headers that replace the CUDA toolkit's: the prelude
// itself (passed to clang with -include), the __nv_* math library it
// includes, and the one toolkit header clang's intrinsics header includes.
//
//go:embed prelude/ptxplay_prelude.h prelude/ptxplay_libdevice.h prelude/ptxplay_libm.h prelude/crt/sm_70_rt.hpp
var preludeFS embed.FS

// PreludeName is the prelude's file name, as diagnostics in it name it.
const PreludeName = "ptxplay_prelude.h"

// preludeFiles returns the prelude's files (path relative to the include
// directory -> contents) and a hash of all of them (part of the cache key).
func preludeFiles() (map[string][]byte, [32]byte) {
	files := map[string][]byte{}
	var names []string
	_ = fs.WalkDir(preludeFS, "prelude", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := preludeFS.ReadFile(p)
		if err != nil {
			return err
		}
		rel := p[len("prelude/"):]
		files[rel] = b
		names = append(names, rel)
		return nil
	})
	sort.Strings(names)
	h := sha256.New()
	for _, n := range names {
		h.Write([]byte(n))
		h.Write([]byte{0})
		h.Write(files[n])
		h.Write([]byte{0})
	}
	var sum [32]byte
	copy(sum[:], h.Sum(nil))
	return files, sum
}

// Prelude returns the text of the prelude header (for hover docs and for
// users who want to read what their kernel is compiled against).
func Prelude() string {
	b, _ := preludeFS.ReadFile("prelude/" + PreludeName)
	return string(b)
}
