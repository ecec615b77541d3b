package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ptxplayground/ptxplay/sessions/share"
)

// ptxplay share export/import: a backup of one data folder restores into
// another, link for link; bad input is refused with its line.
func TestShareExportImport(t *testing.T) {
	src := t.TempDir()
	st, err := share.Open(context.Background(), "sqlite:"+filepath.Join(src, "shares.db"), share.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for i := range 25 {
		sn, err := share.Decode(strings.NewReader(fmt.Sprintf(`{"title":"k%d","source":"// k\n","spec":{"grid":[1],"block":[32]},"step":%d}`, i, i)), share.DefaultLimits)
		if err != nil {
			t.Fatal(err)
		}
		id, _, err := st.Put(context.Background(), sn)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	st.Close()

	backup := filepath.Join(t.TempDir(), "links.jsonl")
	code, _, stderr := cli(t, "", "share", "export", "--data", src, backup)
	if code != 0 || !strings.Contains(stderr, "exported 25 links") {
		t.Fatalf("export: %d %s", code, stderr)
	}
	code, stdout, _ := cli(t, "", "share", "export", "--data", src)
	if code != 0 || strings.Count(stdout, "\n") != 25 {
		t.Fatalf("export to stdout: %d, %d lines", code, strings.Count(stdout, "\n"))
	}

	dst := t.TempDir()
	code, _, stderr = cli(t, "", "share", "import", "--data", dst, backup)
	if code != 0 || !strings.Contains(stderr, "imported 25 new links") {
		t.Fatalf("import: %d %s", code, stderr)
	}
	code, _, stderr = cli(t, stdout, "share", "import", "--store", "sqlite:"+filepath.Join(dst, "shares.db"), "-")
	if code != 0 || !strings.Contains(stderr, "imported 0 new links") || !strings.Contains(stderr, "25 were already there") {
		t.Fatalf("import again from stdin: %d %s", code, stderr)
	}
	back, err := share.Open(context.Background(), "sqlite:"+filepath.Join(dst, "shares.db"), share.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer back.Close()
	for _, id := range ids {
		if _, err := back.Get(context.Background(), id); err != nil {
			t.Errorf("%s after import: %v", id, err)
		}
	}

	code, _, stderr = cli(t, "{\"id\":\"x\"}\n", "share", "import", "--data", t.TempDir(), "-")
	if code == 0 || !strings.Contains(stderr, "line 1") {
		t.Errorf("bad import: %d %s", code, stderr)
	}
	code, _, stderr = cli(t, "", "share", "export", "--data", filepath.Join(t.TempDir(), "none"))
	if code == 0 || !strings.Contains(stderr, "no such file") {
		t.Errorf("export of an empty data folder: %d %s", code, stderr)
	}
	if code, _, _ = cli(t, "", "share", "frobnicate"); code != 2 {
		t.Errorf("unknown verb: exit %d", code)
	}
	if _, err := os.Stat(filepath.Join(src, "shares.db")); err != nil {
		t.Fatal(err)
	}
}
