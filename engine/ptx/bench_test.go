package ptx

import (
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkParse parses the largest corpus module.
func BenchmarkParse(b *testing.B) {
	var best string
	var size int64
	for _, dir := range corpusDirs {
		for _, path := range corpusFiles(b, dir) {
			if fi, err := os.Stat(path); err == nil && fi.Size() > size {
				best, size = path, fi.Size()
			}
		}
	}
	if best == "" {
		b.Skip("no corpus")
	}
	text, err := os.ReadFile(best)
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("%s: %d bytes", filepath.Base(best), len(text))
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		if _, diags := Parse(NewSource(best, text)); len(diags) > 0 {
			b.Fatal(diags[0].Message)
		}
	}
}

// BenchmarkLex lexes the largest corpus module.
func BenchmarkLex(b *testing.B) {
	var best string
	var size int64
	for _, dir := range corpusDirs {
		for _, path := range corpusFiles(b, dir) {
			if fi, err := os.Stat(path); err == nil && fi.Size() > size {
				best, size = path, fi.Size()
			}
		}
	}
	if best == "" {
		b.Skip("no corpus")
	}
	text, err := os.ReadFile(best)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		var diags DiagList
		lx := newLexer(text, &diags)
		for lx.next().Kind != TokEOF {
		}
	}
}
