package sessions

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// The committed ui/proto_gen.ts matches the Go types.
func TestTypeScriptUpToDate(t *testing.T) {
	want, err := TypeScript()
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join("..", "ui", "proto_gen.ts"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("ui/proto_gen.ts is stale: run go generate ./ui")
	}
}
