package cuda_test

import (
	"context"
	"errors"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ptxplayground/ptxplay/engine/cuda"
)

// An #include of any file but the allowed headers is refused before clang
// runs, at its line:col, and nothing of the file appears anywhere in the
// result, however the include is spelled.
func TestIncludeRefused(t *testing.T) {
	needClang(t)
	secret, err := os.CreateTemp("", "secret-*.h")
	if err != nil {
		t.Fatal(err)
	}
	defer os.Remove(secret.Name())
	const content = "TOPSECRET_CONTENT_42 root:x:0:0"
	secret.WriteString(content + "\n#error TOPSECRET_CONTENT_42\n")
	secret.Close()
	p := secret.Name()
	cases := map[string]string{
		"plain":        "#include \"" + p + "\"\n",
		"angle":        "#include <" + p + ">\n",
		"passwd":       "#include \"/etc/passwd\"\n",
		"spaced":       "  #  include \"" + p + "\"\n",
		"comment":      "# /* x */ include \"" + p + "\"\n",
		"spliced":      "#inc\\\nlude \"" + p + "\"\n",
		"digraph":      "%:include \"" + p + "\"\n",
		"macro":        "#define F \"" + p + "\"\n#include F\n",
		"next":         "#include_next \"" + p + "\"\n",
		"import":       "#import \"" + p + "\"\n",
		"embed":        "const char s[] = {\n#embed \"" + p + "\"\n};\n",
		"has_include":  "#if __has_include(\"" + p + "\")\n#endif\n",
		"pragma_dep":   "#pragma GCC dependency \"" + p + "\"\n",
		"_Pragma":      "_Pragma(\"GCC dependency \\\"" + p + "\\\"\")\n",
		"after_raw":    "const char *r = R\"x(\n/*)x\";\n#include \"" + p + "\"\n// */\n",
		"after_string": "const char *q = \"/*\";\n#include \"" + p + "\"\n// */\n",
		"line":         "#line 1 \"" + p + "\"\n",
	}
	for name, src := range cases {
		src = "__global__ void k() {}\n" + src
		r, err := cuda.NewCompiler(cuda.Config{}).Compile(context.Background(), src, cuda.Options{})
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if !r.Refused || r.OK() || len(r.Diagnostics) == 0 {
			t.Errorf("%s: not refused: %+v", name, r.Diagnostics)
		}
		for _, d := range r.Diagnostics {
			if strings.Contains(d.Message, "TOPSECRET") || strings.Contains(d.Message, "root:x") {
				t.Errorf("%s: leaked: %s", name, d.Message)
			}
			if d.Line < 2 {
				t.Errorf("%s: diagnostic at line %d, want the include's line", name, d.Line)
			}
		}
		if strings.Contains(r.PTX, "TOPSECRET") {
			t.Errorf("%s: leaked into PTX", name)
		}
	}
	// What looks like an include but is not one still compiles.
	ok := "#include <cuda_runtime.h>\n#include <cstdio>\n// #include \"/etc/passwd\"\nconst char *s = \"#include </etc/passwd>\";\n/*\n#include \"/etc/passwd\"\n*/\n__global__ void k(int *p) { *p = 1'000; }\n"
	r, err := cuda.Compile(context.Background(), ok, cuda.Options{})
	if err != nil || !r.OK() {
		t.Fatalf("harmless source refused: %v %+v", err, r)
	}
}

// A template instantiation bomb is stopped by the CPU limit and a kernel
// whose PTX outgrows the output limit by the file-size limit, each with a
// message that names the limit.
func TestCompileBombs(t *testing.T) {
	needClang(t)
	for _, sb := range []cuda.Sandbox{cuda.SandboxAuto, cuda.SandboxLimits} {
		t.Run(string(sb), func(t *testing.T) { testBombs(t, sb) })
	}
}

func testBombs(t *testing.T, sb cuda.Sandbox) {
	c := cuda.NewCompiler(cuda.Config{Sandbox: sb, Limits: cuda.Limits{CPUTime: 2 * time.Second, Wall: 20 * time.Second, Output: 64 << 10}})
	bomb := `
template <class T, class U> struct P {};
template <int N, class T> struct B {
  static constexpr long long v = B<N - 1, P<T, int>>::v + B<N - 1, P<T, char>>::v;
};
template <class T> struct B<0, T> { static constexpr long long v = 1; };
__global__ void k(long long *p) { *p = B<40, int>::v; }
`
	start := time.Now()
	_, err := c.Compile(context.Background(), bomb, cuda.Options{})
	var le *cuda.LimitError
	if !errors.As(err, &le) || !(le.Limit == "cpu" && strings.Contains(le.Error(), "CPU time") || le.Limit == "memory" && strings.Contains(le.Error(), "memory")) {
		t.Fatalf("template bomb: err = %v (after %v)", err, time.Since(start))
	}
	t.Logf("template bomb: %v after %v", err, time.Since(start))

	big := `
template <int N> __device__ __noinline__ void f(volatile float *p) { p[N] = p[N + 1] * 3.0f + N; }
template <int N> struct R { __device__ static void run(volatile float *p) { f<N>(p); R<N - 1>::run(p); } };
template <> struct R<0> { __device__ static void run(volatile float *p) {} };
__global__ void k(volatile float *p) { R<200>::run(p); }
`
	_, err = c.Compile(context.Background(), big, cuda.Options{Opt: 2})
	if !errors.As(err, &le) || le.Limit != "output" || !strings.Contains(le.Error(), "PTX output") {
		t.Fatalf("output bomb: err = %v", err)
	}
	t.Logf("output bomb: %v", err)
	// The same kernel within a larger limit compiles.
	r, err := cuda.NewCompiler(cuda.Config{Sandbox: sb}).Compile(context.Background(), big, cuda.Options{Opt: 2})
	if err != nil || !r.OK() || len(r.PTX) <= 64<<10 {
		t.Fatalf("big kernel with default limits: %v, %d bytes", err, len(r.PTX))
	}
}

// 20 concurrent compiles of different sources run at most Concurrency at a
// time and all finish; the same source again comes from the cache, and
// overlapping identical compiles share one clang run.
func TestCompilerQueueAndCache(t *testing.T) {
	needClang(t)
	c := cuda.NewCompiler(cuda.Config{Concurrency: 2, MaxQueue: 32})
	src := func(i int) string {
		return "__global__ void k(int *p) { p[threadIdx.x] = " + strings.Repeat("1+", i) + "0; }\n"
	}
	var wg sync.WaitGroup
	errs := make([]error, 20)
	for i := 0; i < 20; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			r, err := c.Compile(context.Background(), src(i), cuda.Options{})
			if err == nil && !r.OK() {
				err = errors.New(r.Errors())
			}
			errs[i] = err
		}(i)
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("compile %d: %v", i, err)
		}
	}
	st := c.Stats()
	if st.PeakRunning > 2 || st.PeakRunning < 1 || st.Runs != 20 {
		t.Errorf("stats after 20 compiles: %+v", st)
	}
	r, err := c.Compile(context.Background(), src(3), cuda.Options{})
	if err != nil || !r.Cached || c.Stats().Runs != 20 {
		t.Errorf("repeat: cached=%v err=%v runs=%d", r != nil && r.Cached, err, c.Stats().Runs)
	}
	// Different options are a different entry.
	r, err = c.Compile(context.Background(), src(3), cuda.Options{Opt: 3})
	if err != nil || r.Cached || c.Stats().Runs != 21 {
		t.Errorf("other options: cached=%v err=%v", r != nil && r.Cached, err)
	}
	// Identical overlapping compiles share a run.
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := c.Compile(context.Background(), src(30), cuda.Options{}); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if n := c.Stats().Runs; n != 22 {
		t.Errorf("8 identical compiles made %d runs, want 1", n-21)
	}
	// A full queue answers ErrBusy.
	small := cuda.NewCompiler(cuda.Config{Concurrency: 1, MaxQueue: 1})
	var busy int
	var mu sync.Mutex
	for i := 0; i < 6; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			_, err := small.Compile(context.Background(), src(40+i), cuda.Options{})
			if errors.Is(err, cuda.ErrBusy) {
				mu.Lock()
				busy++
				mu.Unlock()
			}
		}(i)
	}
	wg.Wait()
	if busy == 0 {
		t.Errorf("6 compiles with concurrency 1 and queue 1: none refused busy")
	}
}

// Diagnostics are on the user's lines (the prelude's lines not counted);
// a missing clang is reported with what to install.
func TestDiagnosticsAndMissingClang(t *testing.T) {
	needClang(t)
	r, err := cuda.Compile(context.Background(), "#include <cuda_runtime.h>\n__global__ void k(int *p) {\n  *p = undefined_name;\n}\n", cuda.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r.OK() || len(r.Diagnostics) == 0 || r.Diagnostics[0].Line != 3 || r.Diagnostics[0].Col != 8 || r.Diagnostics[0].InPrelude {
		t.Fatalf("diagnostics: %+v", r.Diagnostics)
	}
	r, err = cuda.Compile(context.Background(), "__global__ void k(float *p) {\n  *p = j0f(*p);\n}\n", cuda.Options{})
	if err != nil || r.OK() || !strings.Contains(r.Errors(), "j0f") || r.Diagnostics[len(r.Diagnostics)-1].Line != 2 {
		t.Fatalf("unprovided math function: %v %+v", err, r.Diagnostics)
	}
	_, err = cuda.NewCompiler(cuda.Config{Clang: "clang-does-not-exist-19"}).Compile(context.Background(), "__global__ void k() {}\n", cuda.Options{})
	if !errors.Is(err, cuda.ErrNotInstalled) || !strings.Contains(err.Error(), "apt-get install clang-19") {
		t.Fatalf("missing clang: %v", err)
	}
	if _, err := cuda.Compile(context.Background(), "", cuda.Options{Arch: "sm_1000"}); err == nil {
		t.Fatal("bad arch accepted")
	}
}
