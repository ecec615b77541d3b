// Package cuda compiles CUDA C++ device code to PTX with clang, without the
// CUDA toolkit, for the emulator to run: an embedded prelude stands in for
// the toolkit's headers and libdevice (prelude/), untrusted source is
// screened and compiled in a sandbox with limits (Compiler), and the PTX's
// .loc directives map PTX lines and emulator pcs back to CUDA lines
// (SourceMap). It imports only other engine packages.
package cuda

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/ptxplayground/ptxplay/engine/launchspec"
)

// KernelFile is the name the user's source has in diagnostics and in the
// PTX's .file directive (SourceDir/KernelFile).
const KernelFile = "kernel.cu"

// SourceDir is the directory the compile runs in as the PTX names it.
const SourceDir = "/ptxplay"

// Arches are the targets Options.Arch accepts.
var Arches = launchspec.CUDAArches

// DefaultArch is the target when Options.Arch is empty.
const DefaultArch = launchspec.CUDADefaultArch

// Options are what a compile depends on besides the source.
type Options struct {
	Arch     string // one of Arches; "" means DefaultArch
	Opt      int    // optimisation level 0..3 (-O0..-O3)
	FastMath bool   // -ffast-math: approximate transcendentals, flush denormals
}

// Normalize fills defaults and checks the options.
func (o Options) Normalize() (Options, error) {
	if o.Arch == "" {
		o.Arch = DefaultArch
	}
	return o, launchspec.CheckCUDAOptions(o.Arch, o.Opt)
}

// ptxVersion is the PTX ISA version asked of clang for a target (clang-19
// knows up to PTX 8.4; sm_90a needs 8.0).
func ptxVersion(string) string {
	return "+ptx80"
}

// Severity of a diagnostic.
type Severity string

const (
	SevError   Severity = "error"
	SevWarning Severity = "warning"
	SevNote    Severity = "note"
)

// Diagnostic is one message about the user's source. Line and Col are
// 1-based on the user's file (Col counts bytes); both are 0 for a message
// about no particular place. InPrelude marks messages clang reported inside
// the prelude (their Line/Col are the prelude's and not the user's).
type Diagnostic struct {
	Severity  Severity `json:"severity"`
	Line      int      `json:"line"`
	Col       int      `json:"col"`
	Message   string   `json:"message"`
	InPrelude bool     `json:"inPrelude,omitempty"`
}

func (d Diagnostic) String() string {
	where := KernelFile
	if d.InPrelude {
		where = PreludeName
	}
	if d.Line > 0 {
		where += fmt.Sprintf(":%d:%d", d.Line, d.Col)
	}
	return fmt.Sprintf("%s: %s: %s", where, d.Severity, d.Message)
}

// Result is the outcome of a compile that ran (or was refused before
// running). PTX is empty when the source has errors.
type Result struct {
	PTX         string        `json:"ptx"`
	Diagnostics []Diagnostic  `json:"diagnostics"`
	Options     Options       `json:"options"`
	Map         *SourceMap    `json:"-"`
	Cached      bool          `json:"cached"`
	Refused     bool          `json:"refused,omitempty"` // clang did not run (screening refused the source)
	Duration    time.Duration `json:"durationNs"`        // clang's wall time (0 when cached or refused)
}

// OK reports whether the compile produced PTX without errors.
func (r *Result) OK() bool {
	if r.PTX == "" {
		return false
	}
	for _, d := range r.Diagnostics {
		if d.Severity == SevError {
			return false
		}
	}
	return true
}

// Errors returns the error diagnostics joined, one per line.
func (r *Result) Errors() string {
	var b strings.Builder
	for _, d := range r.Diagnostics {
		if d.Severity == SevError {
			b.WriteString(d.String())
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// ErrNotInstalled is returned (wrapped) when clang is not on this machine.
var ErrNotInstalled = errors.New("clang-19 is not installed: CUDA needs Debian's clang (apt-get install clang-19); PTX works without it")

// ErrBusy is returned when the compile queue is full.
var ErrBusy = errors.New("the CUDA compiler is busy: too many compiles are waiting; try again shortly")

// LimitError says which limit stopped a compile.
type LimitError struct {
	Limit string // "cpu", "memory", "output", "wall", "source", "log"
	Msg   string
}

func (e *LimitError) Error() string { return e.Msg }

// Limits bound one compile. Zero fields take the defaults.
type Limits struct {
	CPUTime time.Duration // CPU time of clang (RLIMIT_CPU); default 10s
	Wall    time.Duration // wall-clock; default 20s
	Memory  int64         // address space (RLIMIT_AS); default 2 GiB
	Output  int64         // largest file clang may write (RLIMIT_FSIZE), so the PTX; default 8 MiB
	Source  int           // longest source accepted; default 256 KiB
	Log     int           // clang's stderr kept; default 64 KiB
}

// DefaultLimits are the limits when a field is zero.
var DefaultLimits = Limits{CPUTime: 10 * time.Second, Wall: 20 * time.Second, Memory: 2 << 30, Output: 8 << 20, Source: 256 << 10, Log: 64 << 10}

func (l Limits) withDefaults() Limits {
	d := DefaultLimits
	if l.CPUTime <= 0 {
		l.CPUTime = d.CPUTime
	}
	if l.Wall <= 0 {
		l.Wall = d.Wall
	}
	if l.Memory <= 0 {
		l.Memory = d.Memory
	}
	if l.Output <= 0 {
		l.Output = d.Output
	}
	if l.Source <= 0 {
		l.Source = d.Source
	}
	if l.Log <= 0 {
		l.Log = d.Log
	}
	return l
}

// Sandbox says how clang is confined.
type Sandbox string

const (
	SandboxAuto   Sandbox = ""            // bwrap when it works here, else limits only
	SandboxBwrap  Sandbox = "bwrap"       // bubblewrap: only /usr (read-only) and the compile directory exist
	SandboxLimits Sandbox = "limits-only" // resource limits, empty directory, small environment
)

// Config configures a Compiler. Zero fields take defaults.
type Config struct {
	Clang       string  // clang binary; default: clang-19 on PATH, then /usr/bin/clang-19, /usr/lib/llvm-19/bin/clang
	Limits      Limits  // per compile
	Concurrency int     // compiles running at once; default 2
	MaxQueue    int     // compiles waiting; more are refused with ErrBusy; default 64
	CacheBytes  int64   // results kept (PTX and diagnostics bytes); default 64 MiB
	Sandbox     Sandbox // default SandboxAuto
}

// Compiler compiles CUDA to PTX with bounded concurrency, a bounded queue
// and an LRU cache keyed by source and options. Identical compiles that
// overlap share one clang run. Safe for concurrent use.
type Compiler struct {
	cfg     Config
	sem     chan struct{}
	cache   *lru
	prelude map[string][]byte
	key     [32]byte // prelude hash

	mu       sync.Mutex
	waiting  int
	running  int
	peak     int
	runs     int64
	inflight map[[32]byte]*call

	once     sync.Once
	clang    string
	clangErr error
	resource string
	sandbox  Sandbox
}

type call struct {
	done chan struct{}
	res  *Result
	err  error
}

// NewCompiler returns a Compiler.
func NewCompiler(cfg Config) *Compiler {
	cfg.Limits = cfg.Limits.withDefaults()
	if cfg.Concurrency <= 0 {
		cfg.Concurrency = 2
	}
	if cfg.MaxQueue <= 0 {
		cfg.MaxQueue = 64
	}
	if cfg.CacheBytes <= 0 {
		cfg.CacheBytes = 64 << 20
	}
	files, sum := preludeFiles()
	return &Compiler{cfg: cfg, sem: make(chan struct{}, cfg.Concurrency), cache: newLRU(cfg.CacheBytes), prelude: files, key: sum, inflight: map[[32]byte]*call{}}
}

var (
	defaultOnce     sync.Once
	defaultCompiler *Compiler
)

// Default is the process-wide Compiler with the default configuration.
func Default() *Compiler {
	defaultOnce.Do(func() { defaultCompiler = NewCompiler(Config{}) })
	return defaultCompiler
}

// Compile compiles with the Default compiler.
func Compile(ctx context.Context, src string, opt Options) (*Result, error) {
	return Default().Compile(ctx, src, opt)
}

// Stats are counters of a Compiler.
type Stats struct {
	Waiting, Running, PeakRunning int
	Runs                          int64 // clang processes started
	CacheEntries                  int
	CacheBytes                    int64
	Sandbox                       Sandbox
}

// Stats returns the compiler's counters.
func (c *Compiler) Stats() Stats {
	c.mu.Lock()
	defer c.mu.Unlock()
	n, b := c.cache.size()
	return Stats{Waiting: c.waiting, Running: c.running, PeakRunning: c.peak, Runs: c.runs, CacheEntries: n, CacheBytes: b, Sandbox: c.sandbox}
}

// Available reports whether clang can be used (nil) or why not
// (wrapping ErrNotInstalled).
func (c *Compiler) Available() error {
	c.setup()
	return c.clangErr
}

// Sandbox returns the confinement in use (after Available or a compile).
func (c *Compiler) Sandbox() Sandbox {
	c.setup()
	return c.sandbox
}

func (c *Compiler) setup() {
	c.once.Do(func() {
		c.clang, c.clangErr = findClang(c.cfg.Clang)
		if c.clangErr != nil {
			return
		}
		out, err := exec.Command(c.clang, "-print-resource-dir").Output()
		if err != nil {
			c.clangErr = fmt.Errorf("%w (%s -print-resource-dir failed: %v)", ErrNotInstalled, c.clang, err)
			return
		}
		c.resource = strings.TrimSpace(string(out))
		c.sandbox = c.cfg.Sandbox
		if c.sandbox == SandboxAuto {
			c.sandbox = SandboxLimits
			if bwrapWorks() {
				c.sandbox = SandboxBwrap
			}
		}
	})
}

func findClang(name string) (string, error) {
	cands := []string{name}
	if name == "" {
		cands = []string{"clang-19", "/usr/bin/clang-19", "/usr/lib/llvm-19/bin/clang"}
	}
	for _, n := range cands {
		if p, err := exec.LookPath(n); err == nil {
			return p, nil
		}
	}
	return "", ErrNotInstalled
}

// bwrapArgs are bubblewrap's arguments around a command: a new root with
// /usr read-only, the compile directory at SourceDir, no network, no other
// process visible, no environment but what is set.
func bwrapArgs(dir string) []string {
	args := []string{"--ro-bind", "/usr", "/usr", "--symlink", "usr/lib", "/lib", "--symlink", "usr/bin", "/bin"}
	if _, err := os.Stat("/lib64"); err == nil {
		args = append(args, "--symlink", "usr/lib64", "/lib64")
	}
	args = append(args, "--bind", dir, SourceDir, "--chdir", SourceDir, "--dev", "/dev", "--proc", "/proc",
		"--unshare-all", "--die-with-parent", "--new-session", "--clearenv",
		"--setenv", "PATH", "/usr/bin", "--setenv", "TMPDIR", SourceDir, "--setenv", "LC_ALL", "C")
	return args
}

func bwrapWorks() bool {
	p, err := exec.LookPath("bwrap")
	if err != nil {
		return false
	}
	dir, err := os.MkdirTemp("", "ptxplay-bwrap-probe-")
	if err != nil {
		return false
	}
	defer os.RemoveAll(dir)
	cmd := exec.Command(p, append(bwrapArgs(dir), "/usr/bin/true")...)
	cmd.Env = []string{"PATH=/usr/bin"}
	return cmd.Run() == nil
}

// Compile screens and compiles src. A source with errors is not an error:
// its Result has the diagnostics. The error is ErrNotInstalled, ErrBusy, a
// *LimitError, bad options or the context's error.
func (c *Compiler) Compile(ctx context.Context, src string, opt Options) (*Result, error) {
	opt, err := opt.Normalize()
	if err != nil {
		return nil, err
	}
	lim := c.cfg.Limits
	if len(src) > lim.Source {
		return nil, &LimitError{Limit: "source", Msg: fmt.Sprintf("the CUDA source is %d bytes; the limit is %d", len(src), lim.Source)}
	}
	text, refused := screen(src)
	if len(refused) > 0 {
		return &Result{Diagnostics: refused, Options: opt, Refused: true}, nil
	}
	key := c.cacheKey(src, opt)
	if r := c.cache.get(key); r != nil {
		cp := *r
		cp.Cached = true
		return &cp, nil
	}
	if err := c.Available(); err != nil {
		return nil, err
	}
	// Share a compile already running for the same key.
	c.mu.Lock()
	if cl := c.inflight[key]; cl != nil {
		c.mu.Unlock()
		select {
		case <-cl.done:
			if cl.res == nil {
				return nil, cl.err
			}
			cp := *cl.res
			cp.Cached = true
			return &cp, cl.err
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	if c.waiting >= c.cfg.MaxQueue {
		c.mu.Unlock()
		return nil, ErrBusy
	}
	cl := &call{done: make(chan struct{})}
	c.inflight[key] = cl
	c.waiting++
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		delete(c.inflight, key)
		c.mu.Unlock()
		close(cl.done)
	}()

	select {
	case c.sem <- struct{}{}:
	case <-ctx.Done():
		c.mu.Lock()
		c.waiting--
		c.mu.Unlock()
		cl.err = ctx.Err()
		return nil, cl.err
	}
	c.mu.Lock()
	c.waiting--
	c.running++
	c.runs++
	if c.running > c.peak {
		c.peak = c.running
	}
	c.mu.Unlock()
	res, err := c.run(ctx, text, opt)
	c.mu.Lock()
	c.running--
	c.mu.Unlock()
	<-c.sem
	cl.res, cl.err = res, err
	if err == nil {
		c.cache.put(key, res)
	}
	return res, err
}

func (c *Compiler) cacheKey(src string, opt Options) [32]byte {
	h := sha256.New()
	h.Write(c.key[:])
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], uint64(len(src)))
	h.Write(b[:])
	h.Write([]byte(src))
	fmt.Fprintf(h, "\x00%s\x00%d\x00%t", opt.Arch, opt.Opt, opt.FastMath)
	var k [32]byte
	copy(k[:], h.Sum(nil))
	return k
}

// clangArgs are the arguments for compiling KernelFile in the current
// directory to kernel.ptx.
func (c *Compiler) clangArgs(opt Options, dir string) []string {
	args := []string{"-x", "cuda", "--cuda-device-only", "-nocudainc", "-nocudalib",
		"-nostdinc", "-isystem", filepath.Join(c.resource, "include"), "-Iinclude", "-include", PreludeName,
		"--cuda-gpu-arch=" + opt.Arch, "-Xclang", "-target-feature", "-Xclang", ptxVersion(opt.Arch),
		"-O" + strconv.Itoa(opt.Opt), "-g", "-S", "-o", "kernel.ptx",
		"-fno-crash-diagnostics", "-fno-color-diagnostics", "-fno-caret-diagnostics", "-fdiagnostics-absolute-paths",
		"-ferror-limit=50", "-ftemplate-depth=256", "-fconstexpr-depth=256", "-fconstexpr-steps=1000000",
		"-Wno-unknown-cuda-version",
	}
	if dir != SourceDir {
		args = append(args, "-ffile-prefix-map="+dir+"="+SourceDir)
	}
	if opt.FastMath {
		args = append(args, "-ffast-math", "-fcuda-flush-denormals-to-zero")
	}
	return append(args, KernelFile)
}

func (c *Compiler) run(ctx context.Context, text string, opt Options) (*Result, error) {
	lim := c.cfg.Limits
	dir, err := os.MkdirTemp("", "ptxplay-cc-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	if err := os.Mkdir(filepath.Join(dir, "include"), 0o755); err != nil {
		return nil, err
	}
	for name, b := range c.prelude {
		p := filepath.Join(dir, "include", name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			return nil, err
		}
	}
	if err := os.WriteFile(filepath.Join(dir, KernelFile), []byte(text), 0o644); err != nil {
		return nil, err
	}

	wctx, cancel := context.WithTimeout(ctx, lim.Wall)
	defer cancel()
	// Limits are set by the shell (ulimit) and then clang is exec'd in its
	// place: CPU seconds, address space (KiB), file size (512-byte blocks).
	ulimit := fmt.Sprintf("ulimit -t %d && ulimit -v %d && ulimit -f %d && ulimit -c 0 && exec \"$@\"",
		int64((lim.CPUTime+time.Second-1)/time.Second), lim.Memory/1024, (lim.Output+511)/512)
	var cmd *exec.Cmd
	workDir := dir
	if c.sandbox == SandboxBwrap {
		workDir = SourceDir
		args := append(bwrapArgs(dir), "/bin/sh", "-c", ulimit, "sh", c.clang)
		args = append(args, c.clangArgs(opt, workDir)...)
		cmd = exec.CommandContext(wctx, "bwrap", args...)
	} else {
		args := append([]string{"-c", ulimit, "sh", c.clang}, c.clangArgs(opt, workDir)...)
		cmd = exec.CommandContext(wctx, "/bin/sh", args...)
		cmd.Dir = dir
	}
	cmd.Env = []string{"PATH=/usr/bin:/bin", "TMPDIR=" + workDir, "LC_ALL=C", "HOME=" + workDir}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	stderr := &capped{max: lim.Log}
	cmd.Stderr = stderr
	cmd.Stdout = stderr
	start := time.Now()
	runErr := cmd.Run()
	elapsed := time.Since(start)
	log := stderr.String()

	if runErr != nil {
		if wctx.Err() != nil && ctx.Err() == nil {
			return nil, &LimitError{Limit: "wall", Msg: fmt.Sprintf("the compile took longer than %v and was stopped", lim.Wall)}
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		var ee *exec.ExitError
		if errors.As(runErr, &ee) {
			// The signal that ended clang: directly, or as bwrap reports
			// it (exit status 128+signal).
			sig := syscall.Signal(0)
			if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
				sig = ws.Signal()
			} else if code := ee.ExitCode(); code > 128 && code < 128+65 {
				sig = syscall.Signal(code - 128)
			}
			switch sig {
			case syscall.SIGXCPU, syscall.SIGKILL:
				return nil, &LimitError{Limit: "cpu", Msg: fmt.Sprintf("the compile used more than %v of CPU time and was stopped (a template or constexpr bomb?)", lim.CPUTime)}
			case syscall.SIGXFSZ:
				return nil, &LimitError{Limit: "output", Msg: fmt.Sprintf("the PTX output grew past %d bytes and the compile was stopped", lim.Output)}
			}
		}
		if strings.Contains(log, "out of memory") || strings.Contains(log, "bad_alloc") || strings.Contains(log, "Cannot allocate memory") {
			return nil, &LimitError{Limit: "memory", Msg: fmt.Sprintf("the compile needed more than %d MiB of memory and was stopped", lim.Memory>>20)}
		}
		if strings.Contains(log, "File size limit") || strings.Contains(log, "file too large") || strings.Contains(log, "File too large") {
			return nil, &LimitError{Limit: "output", Msg: fmt.Sprintf("the PTX output grew past %d bytes and the compile was stopped", lim.Output)}
		}
	}
	res := &Result{Options: opt, Duration: elapsed}
	res.Diagnostics = parseDiagnostics(log, dir)
	if runErr == nil {
		b, err := os.ReadFile(filepath.Join(dir, "kernel.ptx"))
		if err != nil {
			return nil, fmt.Errorf("clang produced no PTX: %v", err)
		}
		res.PTX = string(b)
		res.Map = MapPTXSource(res.PTX, KernelFile, text)
		res.Diagnostics = append(res.Diagnostics, unresolved(res.PTX, res.Map)...)
	} else if !hasError(res.Diagnostics) {
		// clang failed without a parsable diagnostic (a crash): say so
		// without its output, which may name our internals.
		res.Diagnostics = append(res.Diagnostics, Diagnostic{Severity: SevError, Message: "clang failed: " + firstLine(runErr.Error())})
	}
	return res, nil
}

func hasError(ds []Diagnostic) bool {
	for _, d := range ds {
		if d.Severity == SevError {
			return true
		}
	}
	return false
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// capped keeps the first max bytes written to it.
type capped struct {
	buf       bytes.Buffer
	max       int
	truncated bool
}

func (c *capped) Write(p []byte) (int, error) {
	if room := c.max - c.buf.Len(); room > 0 {
		if len(p) > room {
			c.buf.Write(p[:room])
			c.truncated = true
		} else {
			c.buf.Write(p)
		}
	} else if len(p) > 0 {
		c.truncated = true
	}
	return len(p), nil
}

func (c *capped) String() string { return c.buf.String() }

var diagRE = regexp.MustCompile(`^(.*?):(\d+):(\d+): (error|warning|note|fatal error): (.*)$`)

// parseDiagnostics reads clang's "file:line:col: severity: message" lines.
// Messages about the user's file keep its line:col; messages inside the
// prelude are marked InPrelude; messages about clang's own headers are
// attributed to the prelude too. Other lines are dropped.
func parseDiagnostics(log, dir string) []Diagnostic {
	var ds []Diagnostic
	for _, ln := range strings.Split(log, "\n") {
		m := diagRE.FindStringSubmatch(ln)
		if m == nil {
			continue
		}
		file := m[1]
		line, _ := strconv.Atoi(m[2])
		col, _ := strconv.Atoi(m[3])
		sev := Severity(m[4])
		if sev == "fatal error" {
			sev = SevError
		}
		d := Diagnostic{Severity: sev, Line: line, Col: col, Message: strings.ReplaceAll(m[5], dir, SourceDir)}
		if filepath.Base(file) != KernelFile || (file != KernelFile && !strings.HasSuffix(file, "/"+KernelFile)) {
			d.InPrelude = true
		}
		ds = append(ds, d)
	}
	return ds
}

var externNV = regexp.MustCompile(`(?m)^\s*\.extern\s+\.func\s*(?:\([^)]*\)\s*)?(__nv_\w+)`)

// unresolved reports each libdevice function the PTX calls that the
// prelude does not define, at the CUDA line of its first call.
func unresolved(ptxText string, m *SourceMap) []Diagnostic {
	var ds []Diagnostic
	lines := strings.Split(ptxText, "\n")
	for _, mm := range externNV.FindAllStringSubmatch(ptxText, -1) {
		name := mm[1]
		d := Diagnostic{Severity: SevError, Message: fmt.Sprintf("%s (%s) is not in the playground's math library; see docs/cuda.md for the functions it provides", strings.TrimPrefix(name, "__nv_"), name)}
		for i, l := range lines {
			if strings.Contains(l, "call") && strings.Contains(l, name) || strings.HasPrefix(strings.TrimSpace(l), name+",") {
				if loc, ok := m.CUDA(i + 1); ok {
					d.Line, d.Col = loc.Line, loc.Col
					break
				}
			}
		}
		ds = append(ds, d)
	}
	return ds
}
