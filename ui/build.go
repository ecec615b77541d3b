// Package ui holds the TypeScript sources of the playground page (main.ts
// and its modules) and the build that bundles them, with the npm packages
// pinned in package.json and package-lock.json, into static/app.js and
// static/app.css. The bundle is committed; regenerate it with
//
//	npm ci            # once, at the repository root
//	go generate ./ui  # runs cmd/uibuild
//
// bundle_test.go fails when the committed bundle is stale and, where node
// is installed, type-checks the sources with tsc.
package ui

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/evanw/esbuild/pkg/api"
)

// Outputs are the files Build produces, named relative to static/.
var Outputs = []string{"app.js", "app.css"}

// ErrNoNodeModules reports that the npm packages are not installed.
var ErrNoNodeModules = errors.New("node_modules is missing: run `npm ci` at the repository root first")

// FindRoot returns the repository root: the nearest folder at or above dir
// that holds go.mod.
func FindRoot(dir string) (string, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d, nil
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("no go.mod at or above %s", dir)
		}
	}
}

// CheckNodeModules reports whether the npm packages that package-lock.json
// pins are installed at those versions under root/node_modules.
func CheckNodeModules(root string) error {
	nm := filepath.Join(root, "node_modules")
	if _, err := os.Stat(nm); err != nil {
		return ErrNoNodeModules
	}
	want, err := lockedVersions(filepath.Join(root, "package-lock.json"))
	if err != nil {
		return err
	}
	for _, p := range sortedKeys(want) {
		v := want[p]
		if v.optional {
			continue
		}
		data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(p), "package.json"))
		if err != nil {
			return fmt.Errorf("%s is not installed: run `npm ci` at the repository root", strings.TrimPrefix(p, "node_modules/"))
		}
		var pkg struct{ Version string }
		if err := json.Unmarshal(data, &pkg); err != nil || pkg.Version != v.version {
			return fmt.Errorf("%s is %s in node_modules but package-lock.json pins %s: run `npm ci` at the repository root",
				strings.TrimPrefix(p, "node_modules/"), pkg.Version, v.version)
		}
	}
	return nil
}

type locked struct {
	version  string
	optional bool
}

func lockedVersions(lockFile string) (map[string]locked, error) {
	data, err := os.ReadFile(lockFile)
	if err != nil {
		return nil, fmt.Errorf("reading the npm lock file: %v", err)
	}
	var lock struct {
		Packages map[string]struct {
			Version  string `json:"version"`
			Optional bool   `json:"optional"`
			Dev      bool   `json:"dev"`
		} `json:"packages"`
	}
	if err := json.Unmarshal(data, &lock); err != nil {
		return nil, fmt.Errorf("%s: %v", lockFile, err)
	}
	out := map[string]locked{}
	for p, v := range lock.Packages {
		if p == "" || !strings.HasPrefix(p, "node_modules/") {
			continue
		}
		out[p] = locked{v.Version, v.Optional}
	}
	return out, nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// Build bundles root/ui/main.ts into the contents of static/app.js and
// static/app.css (minified, deterministic), keyed by the names in Outputs.
func Build(root string) (map[string][]byte, error) {
	if err := CheckNodeModules(root); err != nil {
		return nil, err
	}
	opts := api.BuildOptions{
		AbsWorkingDir:     root,
		EntryPoints:       []string{filepath.Join(root, "ui", "main.ts")},
		Tsconfig:          filepath.Join(root, "ui", "tsconfig.json"),
		Bundle:            true,
		Write:             false,
		Outdir:            filepath.Join(root, "static"),
		EntryNames:        "app",
		Format:            api.FormatIIFE,
		Platform:          api.PlatformBrowser,
		Target:            api.ES2022,
		Engines:           []api.Engine{{Name: api.EngineChrome, Version: "111"}, {Name: api.EngineFirefox, Version: "115"}, {Name: api.EngineSafari, Version: "16.4"}},
		MinifyWhitespace:  true,
		MinifyIdentifiers: true,
		MinifySyntax:      true,
		Charset:           api.CharsetUTF8,
		LegalComments:     api.LegalCommentsNone,
		Sourcemap:         api.SourceMapNone,
		Metafile:          true,
		LogLevel:          api.LogLevelSilent,
		Loader:            map[string]api.Loader{".css": api.LoaderCSS},
	}
	res := api.Build(opts)
	if len(res.Errors) > 0 {
		msgs := api.FormatMessages(res.Errors, api.FormatMessagesOptions{Kind: api.ErrorMessage})
		return nil, fmt.Errorf("bundling ui/main.ts failed:\n%s", strings.Join(msgs, ""))
	}
	if len(res.Warnings) > 0 {
		msgs := api.FormatMessages(res.Warnings, api.FormatMessagesOptions{Kind: api.WarningMessage})
		return nil, fmt.Errorf("bundling ui/main.ts gave warnings (the build must be clean):\n%s", strings.Join(msgs, ""))
	}
	notice, err := licenseNotice(root, res.Metafile)
	if err != nil {
		return nil, err
	}
	out := map[string][]byte{}
	for _, f := range res.OutputFiles {
		name := filepath.Base(f.Path)
		switch name {
		case "app.js":
			out[name] = append([]byte(notice), f.Contents...)
		case "app.css":
			out[name] = f.Contents
		default:
			return nil, fmt.Errorf("unexpected bundle output %s", name)
		}
	}
	for _, n := range Outputs {
		if _, ok := out[n]; !ok {
			return nil, fmt.Errorf("the bundle has no %s", n)
		}
	}
	return out, nil
}

// licenseNotice is the comment that opens app.js: the name, version and
// license of every npm package bundled, with each distinct license text
// once (the MIT license asks for its notice in every copy).
func licenseNotice(root, metafile string) (string, error) {
	var meta struct {
		Inputs map[string]json.RawMessage `json:"inputs"`
	}
	if err := json.Unmarshal([]byte(metafile), &meta); err != nil {
		return "", fmt.Errorf("reading the bundle's metafile: %v", err)
	}
	pkgs := map[string]bool{}
	for in := range meta.Inputs {
		in = filepath.ToSlash(in)
		i := strings.LastIndex(in, "node_modules/")
		if i < 0 {
			continue
		}
		rest := strings.Split(in[i+len("node_modules/"):], "/")
		name := rest[0]
		if strings.HasPrefix(name, "@") && len(rest) > 1 {
			name += "/" + rest[1]
		}
		pkgs[path.Join(in[:i], "node_modules", name)] = true
	}
	type entry struct{ names []string }
	byText := map[string]*entry{}
	var texts []string
	for _, dir := range sortedKeys(pkgs) {
		data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(dir), "package.json"))
		if err != nil {
			return "", err
		}
		var pkg struct{ Name, Version, License string }
		if err := json.Unmarshal(data, &pkg); err != nil {
			return "", fmt.Errorf("%s/package.json: %v", dir, err)
		}
		text := ""
		for _, f := range []string{"LICENSE", "LICENSE.md", "LICENSE.txt", "license"} {
			if b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(dir), f)); err == nil {
				text = strings.TrimSpace(strings.ReplaceAll(string(b), "\r\n", "\n"))
				break
			}
		}
		if text == "" {
			return "", fmt.Errorf("%s has no LICENSE file to include in the bundle", pkg.Name)
		}
		e := byText[text]
		if e == nil {
			e = &entry{}
			byText[text] = e
			texts = append(texts, text)
		}
		e.names = append(e.names, fmt.Sprintf("%s@%s (%s)", pkg.Name, pkg.Version, pkg.License))
	}
	var b strings.Builder
	b.WriteString("/*! PTX Playground UI. Generated by `go generate ./ui` from ui/*.ts; do not edit.\n")
	b.WriteString(" * It bundles these npm packages:\n")
	for _, t := range texts {
		b.WriteString(" *\n")
		for _, n := range byText[t].names {
			b.WriteString(" * - " + n + "\n")
		}
		b.WriteString(" *\n")
		for _, line := range strings.Split(strings.ReplaceAll(t, "*/", "* /"), "\n") {
			b.WriteString(strings.TrimRight(" * "+line, " ") + "\n")
		}
	}
	b.WriteString(" */\n")
	return b.String(), nil
}

// Write builds the bundle and writes it into dir (normally root/static).
func Write(root, dir string) error {
	files, err := Build(root)
	if err != nil {
		return err
	}
	for _, n := range Outputs {
		if err := os.WriteFile(filepath.Join(dir, n), files[n], 0o644); err != nil {
			return err
		}
	}
	return nil
}
