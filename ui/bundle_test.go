package ui

import (
	"bytes"
	"context"
	"errors"
	"html"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ptxplayground/ptxplay/web"
)

func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := FindRoot(".")
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// TestBundleUpToDate rebuilds the UI bundle and compares it with the
// committed static/app.js and static/app.css. It needs the npm packages
// (`npm ci` at the repository root); without node_modules it is skipped.
func TestBundleUpToDate(t *testing.T) {
	root := repoRoot(t)
	if _, err := os.Stat(filepath.Join(root, "node_modules")); err != nil {
		t.Skip("node_modules is absent: skipping the UI bundle staleness check (run `npm ci` to enable it)")
	}
	files, err := Build(root)
	if err != nil {
		t.Fatal(err)
	}
	// The rebuilt bundle, in a temporary folder for inspection with -v.
	dir := t.TempDir()
	for _, n := range Outputs {
		if err := os.WriteFile(filepath.Join(dir, n), files[n], 0o644); err != nil {
			t.Fatal(err)
		}
		committed, err := os.ReadFile(filepath.Join(root, "static", n))
		if err != nil {
			t.Errorf("static/%s: %v: run go generate ./ui", n, err)
			continue
		}
		if !bytes.Equal(committed, files[n]) {
			t.Errorf("UI bundle is stale: static/%s differs from a fresh build of ui/ (%d bytes committed, %d built): run go generate ./ui", n, len(committed), len(files[n]))
		}
	}
}

// TestBuildDeterministic checks that two builds give the same bytes (the
// staleness check depends on it).
func TestBuildDeterministic(t *testing.T) {
	root := repoRoot(t)
	if _, err := os.Stat(filepath.Join(root, "node_modules")); err != nil {
		t.Skip("node_modules is absent: skipping (run `npm ci` to enable it)")
	}
	a, err := Build(root)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Build(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range Outputs {
		if !bytes.Equal(a[n], b[n]) {
			t.Errorf("two builds of %s differ", n)
		}
	}
}

// TestBuildWithoutNodeModules checks the message that tells what to run.
func TestBuildWithoutNodeModules(t *testing.T) {
	dir := t.TempDir()
	_, err := Build(dir)
	if !errors.Is(err, ErrNoNodeModules) {
		t.Fatalf("Build without node_modules: got %v, want ErrNoNodeModules", err)
	}
	if want := "npm ci"; !bytes.Contains([]byte(err.Error()), []byte(want)) {
		t.Errorf("error %q does not say to run %q", err, want)
	}
}

// TestTypecheck runs the TypeScript compiler over ui/ (tsc --noEmit) when
// the npm packages and node are installed.
func TestTypecheck(t *testing.T) {
	root := repoRoot(t)
	tsc := filepath.Join(root, "node_modules", "typescript", "bin", "tsc")
	if _, err := os.Stat(tsc); err != nil {
		t.Skip("node_modules/typescript is absent: skipping the type check (run `npm ci` to enable it)")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed: skipping the type check")
	}
	cmd := exec.Command(node, tsc, "--noEmit", "-p", filepath.Join("ui", "tsconfig.json"))
	cmd.Dir = root
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("tsc --noEmit -p ui/tsconfig.json: %v\n%s", err, out)
	}
}

// TestPageHasElements renders the playground page and checks that every
// element the UI looks up by id (byId("…") and getElementById("…") in
// ui/*.ts) is in the server-rendered shell, and that the page has no
// inline script other than JSON data (the CSP allows none).
func TestPageHasElements(t *testing.T) {
	ex := web.BuiltinExamples()
	d := web.PlaygroundData{Page: web.Page{App: true}, Example: ex.Default(), Examples: ex.Infos(), WSPath: "/ws"}
	var buf bytes.Buffer
	if err := web.Playground(d).Render(context.Background(), &buf); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	ids := map[string]bool{}
	for _, m := range regexp.MustCompile(`\sid="([^"]+)"`).FindAllStringSubmatch(page, -1) {
		ids[m[1]] = true
	}
	files, err := filepath.Glob("*.ts")
	if err != nil {
		t.Fatal(err)
	}
	lookup := regexp.MustCompile(`(?:byId(?:<[^>]*>)?|getElementById)\("([^"]+)"\)`)
	n := 0
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range lookup.FindAllStringSubmatch(string(src), -1) {
			n++
			if !ids[m[1]] {
				t.Errorf("%s looks up #%s, which web/playground.templ does not render", f, m[1])
			}
		}
	}
	if n < 10 {
		t.Errorf("found only %d element lookups in ui/*.ts; the pattern is out of date", n)
	}
	for _, m := range regexp.MustCompile(`<script([^>]*)>`).FindAllStringSubmatch(page, -1) {
		attrs := m[1]
		if strings.Contains(attrs, "src=") || strings.Contains(attrs, `type="application/json"`) {
			continue
		}
		t.Errorf("inline script <script%s> in the playground page", attrs)
	}
	first, _, _ := strings.Cut(d.Example.Source, "\n")
	if !strings.Contains(page, `id="pg-source"`) || !strings.Contains(page, html.EscapeString(first)) {
		t.Error("the page does not pre-render the example's source")
	}
}
