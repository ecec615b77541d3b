// Command ptxplay is PTX Playground: it serves the web playground, checks
// PTX files, writes launch specs for kernels, and runs launch specs on the
// emulated GPU printing the results.
//
// Usage:
//
//	ptxplay [serve] [flags]
//	ptxplay check [--json] FILE.ptx...
//	ptxplay run [--json-compact] [--analyze] [--no-check] [--parallel[=N]] [--parallel-report] [--max-buffer-bytes N] SPEC.json | -
//	ptxplay init [--entry NAME] KERNEL.ptx | -
//	ptxplay share export|import [--data DIR] [--store DSN] [FILE]
//	ptxplay version
package main

import (
	"context"
	"os"
	"os/signal"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := runContext(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
