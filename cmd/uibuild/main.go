// Command uibuild bundles the playground UI (ui/main.ts and the npm
// packages it imports) into static/app.js and static/app.css with esbuild.
// It runs from `go generate ./ui`; the npm packages must be installed
// first with `npm ci` at the repository root.
//
// Usage:
//
//	uibuild [-out DIR]
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/ptxplayground/ptxplay/ui"
)

func main() {
	out := flag.String("out", "", "write the bundle into this folder (default: static/ at the repository root)")
	flag.Parse()
	if err := run(*out); err != nil {
		fmt.Fprintln(os.Stderr, "uibuild:", err)
		os.Exit(1)
	}
}

func run(out string) error {
	wd, err := os.Getwd()
	if err != nil {
		return err
	}
	root, err := ui.FindRoot(wd)
	if err != nil {
		return err
	}
	if out == "" {
		out = filepath.Join(root, "static")
	}
	if err := ui.Write(root, out); err != nil {
		if errors.Is(err, ui.ErrNoNodeModules) {
			return fmt.Errorf("%v (in %s)", err, root)
		}
		return err
	}
	for _, n := range ui.Outputs {
		st, err := os.Stat(filepath.Join(out, n))
		if err != nil {
			return err
		}
		fmt.Printf("uibuild: wrote %s (%d bytes)\n", filepath.Join(out, n), st.Size())
	}
	return nil
}
