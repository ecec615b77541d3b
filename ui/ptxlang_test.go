package ui

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/evanw/esbuild/pkg/api"
)

// The editor's PTX tokenizer, run under node: every type engine/isa knows
// is a type (the packed integers .u16x2/.s16x2 among them), and the words
// of the special-register table are special registers.
func TestHighlighterWords(t *testing.T) {
	root := repoRoot(t)
	if _, err := os.Stat(filepath.Join(root, "node_modules")); err != nil {
		t.Skip("node_modules is absent: skipping (run `npm ci` to enable it)")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed")
	}
	r := api.Build(api.BuildOptions{
		EntryPoints:   []string{filepath.Join(root, "ui", "test", "ptx_tokens.ts")},
		Bundle:        true,
		Format:        api.FormatIIFE,
		Target:        api.ES2022,
		NodePaths:     []string{filepath.Join(root, "node_modules")},
		AbsWorkingDir: root,
		LogLevel:      api.LogLevelSilent,
	})
	if len(r.Errors) > 0 {
		t.Fatalf("bundling: %+v", r.Errors)
	}
	lines := []string{
		"\tadd.u16x2 %r1, %r2, %r3;",
		"\tmin.s16x2 %r1, %r2, %r3;",
		"\tcvt.rn.f16x2.f32 %r1, %f1, %f2;",
		"\tld.shared::cta.v4.b32 {%r1, %r2, %r3, %r4}, [%rd1];",
		"\tmov.u32 %r1, %cluster_ctarank;",
		"\tmov.u32 %r1, %tid.x;",
		"\tmov.u32 %r1, %tidy;",
	}
	in, _ := json.Marshal(lines)
	f := filepath.Join(t.TempDir(), "tokens.js")
	src := append(append([]byte("globalThis.ptxLines = "), in...), ";\n"...)
	if err := os.WriteFile(f, append(src, r.OutputFiles[0].Contents...), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(node, f).CombinedOutput()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, out)
	}
	var toks [][][2]*string
	if err := json.Unmarshal(out, &toks); err != nil {
		t.Fatalf("%s: %v", out, err)
	}
	style := func(line int, text string) string {
		for _, tk := range toks[line] {
			if tk[0] != nil && *tk[0] == text {
				if tk[1] == nil {
					return ""
				}
				return *tk[1]
			}
		}
		t.Fatalf("line %d has no token %q: %s", line, text, out)
		return ""
	}
	for _, c := range []struct {
		line       int
		text, want string
	}{
		{0, ".u16x2", "type"}, {1, ".s16x2", "type"}, {2, ".f16x2", "type"}, {2, ".rn", "modifier"},
		{3, ".shared::cta", "space"}, {3, ".v4", "type"}, {3, ".b32", "type"},
		{4, "%cluster_ctarank", "special"}, {5, "%tid.x", "special"}, {6, "%tidy", "register"},
	} {
		if got := style(c.line, c.text); got != c.want {
			t.Errorf("%q in %q: %q, want %q", c.text, lines[c.line], got, c.want)
		}
	}
}
