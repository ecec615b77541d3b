package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"

	"github.com/ptxplayground/ptxplay/engine/analysis"
	"github.com/ptxplayground/ptxplay/engine/cuda"
	"github.com/ptxplayground/ptxplay/engine/isa"
	"github.com/ptxplayground/ptxplay/engine/launch"
	"github.com/ptxplayground/ptxplay/engine/ptx"
)

// version is set at link time (-ldflags "-X main.version=v1.2.3"); when
// empty the module version or VCS revision from the build info is used.
var version = ""

// Exit codes.
const (
	exitOK      = 0 // success
	exitFail    = 1 // check: a file has errors; run: fault or limit
	exitInvalid = 2 // usage error; run: invalid spec or PTX
)

const usageText = `ptxplay - PTX Playground: PTX on an emulated NVIDIA GPU

Usage:
  ptxplay [serve] [flags]
        Start the web playground (the default command); ptxplay serve -h
        lists its flags.
  ptxplay check [--json] FILE.ptx...
        Parse and compile PTX files and print their diagnostics as
        file:line:col: severity[id]: message, each followed by its notes
        (related places) as file:line:col: note: message (--json: one
        JSON array of {severity, id, file, line, col, endLine, endCol,
        message, notes}). The IDs are listed in docs/diagnostics.md.
        Exit 0 if no file has errors (warnings are allowed), 1 if one has.
  ptxplay run [--json-compact] [--analyze] [--no-check] [--parallel[=N]]
              [--parallel-report] [--max-buffer-bytes N] SPEC.json
        Run the launch described by SPEC.json ("-": standard input; its
        "ptx" path is relative to the spec file) and print the result JSON.
        Exit 0 if every thread finished, 1 on a fault or when
        maxWarpInstructions is spent, 2 if the spec or the PTX is invalid
        (diagnostics on standard error). --analyze adds "memory": per
        source line, shared-memory wavefronts against the ideal (bank
        conflicts) and global-memory sectors (coalescing).
        The race and memory checker runs by default: "warnings" lists
        shared-memory races between barriers, reads of cp.async data
        before its wait, and reads of uninitialised shared or global
        memory (also printed on standard error as file:line: warning:
        ...); --no-check turns it off (and the member with it).
        --parallel runs independent CTAs on all cores (--parallel=N: on
        N; at most 64 workers, and only as many as fit 2 GiB together,
        each with its machine and copy of global memory: fewer are used,
        with a note on standard error) with the same output as the
        sequential run: a launch whose
        result could depend on the order of its CTAs (global atomics,
        clock reads, a CTA reading what another wrote, a fault,
        warnings)
        runs sequentially instead; --parallel-report says which on
        standard error.
  ptxplay init [--entry NAME] KERNEL.ptx
        Print a launch spec for a kernel of KERNEL.ptx ("-": standard
        input, then inlined as "source"), inferred from its code: a buffer
        for each pointer parameter, defaults for the scalars (what was
        inferred is noted on standard error). "ptx" is the path as given,
        so keep the spec in the current folder:
        ptxplay init k.ptx > k.json && ptxplay run k.json
  ptxplay cc [-arch sm_80] [-O 2] [--fast-math] KERNEL.cu
        Compile CUDA C++ device code to PTX on standard output with
        clang-19 and the playground's prelude (no CUDA toolkit needed;
        docs/cuda.md). Diagnostics go to standard error as
        file:line:col: severity: message. Exit 0 on success, 1 if the
        source has errors or a compile limit stopped it, 2 if clang-19 is
        not installed or on a usage error. A launch spec may name
        "cuda": "KERNEL.cu" instead of "ptx"; ptxplay run compiles it.
  ptxplay share export [--data DIR] [--store DSN] [FILE]
  ptxplay share import [--data DIR] [--store DSN] [FILE]
        Back up the server's share links as JSON lines (export, oldest
        first), or add the links of such a file that are not there yet
        (import); FILE defaults to standard output / input.
  ptxplay version
        Print the version.
  ptxplay help
        Print this text.

Exit status 2 means a usage error. The launch spec and result formats are
documented in docs/launch-spec.md.
`

// run is the whole command line: it returns the exit status.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return runContext(context.Background(), args, stdin, stdout, stderr)
}

func runContext(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 || isServeFlag(args[0]) {
		return serveCmd(args, stdout, stderr)
	}
	cmd, rest := args[0], args[1:]
	switch cmd {
	case "serve":
		return serveCmd(rest, stdout, stderr)
	case "check":
		return cmdCheck(rest, stdin, stdout, stderr)
	case "run":
		return cmdRun(ctx, rest, stdin, stdout, stderr)
	case "init":
		return cmdInit(rest, stdin, stdout, stderr)
	case "cc":
		return cmdCC(ctx, rest, stdin, stdout, stderr)
	case "share":
		return cmdShare(ctx, rest, stdin, stdout, stderr)
	case "version":
		if len(rest) > 0 {
			fmt.Fprintln(stderr, "ptxplay version: takes no arguments")
			return exitInvalid
		}
		fmt.Fprintf(stdout, "ptxplay %s (%s, %s/%s)\n", versionString(), runtime.Version(), runtime.GOOS, runtime.GOARCH)
		return exitOK
	case "help", "-h", "-help", "--help":
		fmt.Fprint(stdout, usageText)
		return exitOK
	}
	fmt.Fprintf(stderr, "ptxplay: unknown command %q\n\n%s", cmd, usageText)
	return exitInvalid
}

func versionString() string {
	if version != "" {
		return version
	}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "devel"
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	rev, dirty := "", false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev == "" {
		return "devel"
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if dirty {
		rev += "-dirty"
	}
	return "devel " + rev
}

// newFlags returns a flag set for a subcommand whose usage prints synopsis.
func newFlags(name, synopsis string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("ptxplay "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: ptxplay %s %s\n", name, synopsis)
		fs.PrintDefaults()
	}
	return fs
}

// parseArgs parses flags anywhere on the command line (before "--");
// it returns the positional arguments.
func parseArgs(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if n := len(args) - len(rest); n > 0 && args[n-1] == "--" {
			return append(pos, rest...), nil
		}
		if len(rest) == 0 {
			return pos, nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// flagExit converts a flag parsing error to an exit status (-h is success).
func flagExit(err error) int {
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	return exitInvalid
}

func cmdCheck(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlags("check", "[--json] FILE.ptx...", stderr)
	asJSON := fs.Bool("json", false, "print the diagnostics as one JSON array")
	files, err := parseArgs(fs, args)
	if err != nil {
		return flagExit(err)
	}
	if len(files) == 0 {
		fmt.Fprintln(stderr, "ptxplay check: no PTX files given")
		fs.Usage()
		return exitInvalid
	}
	msgs := []ptx.Message{}
	failed := false
	for _, file := range files {
		text, name, err := readInput(file, stdin)
		if err != nil {
			failed = true
			if *asJSON {
				msgs = append(msgs, ptx.Message{Severity: "error", ID: string(ptx.DiagCannotRead), File: name, Message: err.Error()})
			} else {
				fmt.Fprintf(stdout, "%s: error[%s]: %v\n", name, ptx.DiagCannotRead, err)
			}
			continue
		}
		_, src, diags := launch.Compile(name, text)
		if ptx.HasErrors(diags) {
			failed = true
		}
		if *asJSON {
			for _, d := range diags {
				msgs = append(msgs, d.ToMessage(src))
			}
		} else {
			fmt.Fprint(stdout, ptx.FormatAll(src, diags))
		}
	}
	if *asJSON {
		b, _ := json.MarshalIndent(msgs, "", "  ")
		fmt.Fprintf(stdout, "%s\n", b)
	}
	if failed {
		return exitFail
	}
	return exitOK
}

// readInput reads a file, or standard input for "-".
func readInput(file string, stdin io.Reader) ([]byte, string, error) {
	if file == "-" {
		b, err := io.ReadAll(stdin)
		return b, "<stdin>", err
	}
	b, err := os.ReadFile(file)
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, file, fmt.Errorf("cannot read: %v", err)
	}
	return b, file, nil
}

func cmdRun(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlags("run", "[--json-compact] [--analyze] [--no-check] [--parallel[=N]] [--parallel-report] [--max-buffer-bytes N] SPEC.json|-", stderr)
	compact := fs.Bool("json-compact", false, "print the result JSON on one line")
	analyze := fs.Bool("analyze", false, "add the per-line memory analysis (bank conflicts, coalescing) to the result")
	noCheck := fs.Bool("no-check", false, "do not run the race and memory checker (no \"warnings\" in the result)")
	maxBytes := fs.Int64("max-buffer-bytes", launch.DefaultLimits.MaxBufferBytes, "limit on the total size of the spec's buffers")
	var par parallelFlag
	fs.Var(&par, "parallel", "run independent CTAs on several cores (--parallel=N: on N, at most 64 and as many as fit 2 GiB of worker memory; default GOMAXPROCS) when the result cannot depend on it; the output is the same")
	parStats := fs.Bool("parallel-report", false, "with --parallel, say on standard error whether the launch ran in parallel, and if not why")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return flagExit(err)
	}
	if len(pos) != 1 {
		fmt.Fprintln(stderr, "ptxplay run: want exactly one launch spec (a file, or - for standard input)")
		fs.Usage()
		return exitInvalid
	}
	specText, specName, err := readInput(pos[0], stdin)
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", specName, err)
		return exitInvalid
	}
	spec, err := launch.ParseSpecLimits(specText, launch.Limits{MaxBufferBytes: *maxBytes})
	if err != nil {
		fmt.Fprintf(stderr, "%s: invalid spec: %v\n", specName, err)
		return exitInvalid
	}
	baseDir := "."
	if pos[0] != "-" {
		baseDir = filepath.Dir(pos[0])
	}
	var text []byte
	var name string
	if spec.CUDA != "" {
		text, name, err = compileSpecCUDA(ctx, spec, baseDir, stderr)
	} else {
		text, name, err = spec.Load(baseDir)
	}
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", specName, err)
		return exitInvalid
	}
	prog, src, diags := launch.Compile(name, text)
	fmt.Fprint(stderr, ptx.FormatAll(src, diags))
	if prog == nil {
		return exitInvalid
	}
	l, err := launch.Prepare(prog, spec)
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", specName, err)
		return exitInvalid
	}
	res, rep, err := l.RunWith(ctx, launch.RunOptions{Check: !*noCheck, Analyze: *analyze, Parallel: par.on, Workers: par.workers})
	if rep != nil && rep.Note != "" {
		fmt.Fprintf(stderr, "%s: --parallel=%d: %s\n", specName, par.workers, rep.Note)
	}
	if rep != nil && *parStats {
		fmt.Fprintf(stderr, "%s: %s\n", specName, rep)
	}
	if res.Checked {
		printWarnings(stderr, name, res.Warnings, res.WarningsDropped)
	}
	if werr := res.WriteJSON(stdout, !*compact); werr != nil {
		fmt.Fprintf(stderr, "ptxplay: %v\n", werr)
		return exitFail
	}
	if err != nil {
		fmt.Fprintf(stderr, "ptxplay: run interrupted: %v\n", err)
	}
	if res.Status != launch.StatusOK {
		return exitFail
	}
	return exitOK
}

// parallelFlag is --parallel (GOMAXPROCS workers) or --parallel=N.
type parallelFlag struct {
	on      bool
	workers int
}

func (p *parallelFlag) IsBoolFlag() bool { return true }

func (p *parallelFlag) String() string {
	if p == nil || !p.on {
		return "false"
	}
	if p.workers == 0 {
		return "true"
	}
	return strconv.Itoa(p.workers)
}

func (p *parallelFlag) Set(s string) error {
	switch s {
	case "true":
		p.on, p.workers = true, 0
		return nil
	case "false":
		p.on, p.workers = false, 0
		return nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > 1024 {
		return errors.New("want a number of workers from 1 to 1024")
	}
	p.on, p.workers = true, n
	return nil
}

func cmdInit(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlags("init", "[--entry NAME] KERNEL.ptx|-", stderr)
	entry := fs.String("entry", "", "the kernel to launch (default: the module's first)")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return flagExit(err)
	}
	if len(pos) != 1 {
		fmt.Fprintln(stderr, "ptxplay init: want exactly one PTX file (or - for standard input)")
		fs.Usage()
		return exitInvalid
	}
	text, name, err := readInput(pos[0], stdin)
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", name, err)
		return exitInvalid
	}
	prog, src, diags := launch.Compile(name, text)
	fmt.Fprint(stderr, ptx.FormatAll(src, diags))
	if prog == nil {
		return exitInvalid
	}
	spec, notes, err := launch.Infer(prog, nil, *entry)
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", name, err)
		return exitInvalid
	}
	if pos[0] == "-" {
		spec.Source = string(text)
	} else {
		spec.PTX = pos[0]
	}
	for _, n := range notes {
		fmt.Fprintf(stderr, "note: %s\n", n.Text)
	}
	out, err := spec.MarshalIndent()
	if err != nil {
		fmt.Fprintf(stderr, "ptxplay: %v\n", err)
		return exitFail
	}
	if _, err := stdout.Write(out); err != nil {
		fmt.Fprintf(stderr, "ptxplay: %v\n", err)
		return exitFail
	}
	return exitOK
}

// printWarnings prints the checker's warnings, one per line, as
// file:line: warning: ....
func printWarnings(w io.Writer, file string, ws []analysis.Warning, dropped int64) {
	for i := range ws {
		x := &ws[i]
		fmt.Fprintf(w, "%s:%d: warning: %s", file, x.Line, x.Kind)
		where := fmt.Sprintf("%s offset %d", x.Space, x.Offset)
		switch x.Space {
		case isa.Global:
			where = fmt.Sprintf("global address 0x%x", x.Offset)
		case isa.Reg:
			where = "register " + x.Register
		}
		switch {
		case x.Kind.Race():
			fmt.Fprintf(w, " at %s: thread %s (line %d) and thread %s (line %d)", where, threadName(x.PrevThread), x.PrevLine, threadName(x.Thread), x.Line)
		case x.HasPrev():
			fmt.Fprintf(w, " at %s: %s", where, x.Message())
		default:
			fmt.Fprintf(w, " at %s by thread %s", where, threadName(x.Thread))
		}
		if x.Count > 1 {
			fmt.Fprintf(w, " (%d times)", x.Count)
		}
		fmt.Fprintln(w)
	}
	if dropped > 0 {
		fmt.Fprintf(w, "%s: %d more warning occurrences not listed (at most %d distinct warnings)\n", file, dropped, analysis.MaxWarnings)
	}
}

// threadName writes a thread as "32 of CTA 0".
func threadName(t analysis.Thread) string { return analysis.ThreadName(t) }

// compileSpecCUDA compiles the spec's CUDA file and returns its PTX, named
// after the CUDA file; diagnostics go to stderr.
func compileSpecCUDA(ctx context.Context, spec *launch.Spec, baseDir string, stderr io.Writer) ([]byte, string, error) {
	res, path, err := cuda.Default().CompileSpec(ctx, spec, baseDir)
	if err != nil {
		return nil, path, err
	}
	printCUDADiagnostics(stderr, path, res.Diagnostics)
	if !res.OK() {
		return nil, path, fmt.Errorf("%s does not compile", path)
	}
	return []byte(res.PTX), path + ".ptx", nil
}

func printCUDADiagnostics(w io.Writer, path string, ds []cuda.Diagnostic) {
	for _, d := range ds {
		where := path
		if d.InPrelude {
			where = cuda.PreludeName
		}
		if d.Line > 0 {
			where += fmt.Sprintf(":%d:%d", d.Line, d.Col)
		}
		fmt.Fprintf(w, "%s: %s: %s\n", where, d.Severity, d.Message)
	}
}

func cmdCC(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlags("cc", "[-arch sm_80] [-O 2] [--fast-math] KERNEL.cu|-", stderr)
	arch := fs.String("arch", cuda.DefaultArch, "target: "+strings.Join(cuda.Arches, ", "))
	opt := fs.Int("O", 2, "optimisation level 0..3")
	fast := fs.Bool("fast-math", false, "approximate transcendentals and flush denormals (-ffast-math)")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return flagExit(err)
	}
	if len(pos) != 1 {
		fmt.Fprintln(stderr, "ptxplay cc: want exactly one CUDA file (or - for standard input)")
		fs.Usage()
		return exitInvalid
	}
	src, name, err := readInput(pos[0], stdin)
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", name, err)
		return exitInvalid
	}
	o, err := cuda.Options{Arch: *arch, Opt: *opt, FastMath: *fast}.Normalize()
	if err != nil {
		fmt.Fprintf(stderr, "ptxplay cc: %v\n", err)
		return exitInvalid
	}
	res, err := cuda.Default().Compile(ctx, string(src), o)
	if err != nil {
		fmt.Fprintf(stderr, "ptxplay cc: %v\n", err)
		if errors.Is(err, cuda.ErrNotInstalled) {
			return exitInvalid
		}
		return exitFail
	}
	printCUDADiagnostics(stderr, name, res.Diagnostics)
	if !res.OK() {
		return exitFail
	}
	fmt.Fprint(stdout, res.PTX)
	return exitOK
}
