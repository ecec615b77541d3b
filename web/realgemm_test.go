package web

import (
	"context"
	"encoding/binary"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/ptxplayground/ptxplay/engine/cuda"
)

// The two real wgmma GEMMs of the gallery (fast.cu's matmulKernel2, with
// TMA + mbarrier loads and with cp.async loads), compiled for sm_90a.
var realWgmmaGemms = []string{"fastcu-tma-wgmma", "fastcu-cpasync-wgmma"}

func exBF16(t *testing.T, data []byte) []float32 {
	t.Helper()
	out := make([]float32, len(data)/2)
	for i := range out {
		out[i] = math.Float32frombits(uint32(binary.LittleEndian.Uint16(data[2*i:])) << 16)
	}
	return out
}

// Each runs to the exact product in both scheduling models with the
// checker quiet: c (column-major, M x N) = a (M x K, row-major) times B,
// which b holds n-major (N rows of K), as fast.cu lays them out.
func TestExampleRealWgmmaGemms(t *testing.T) {
	for _, name := range realWgmmaGemms {
		e := BuiltinExamples().Get(name)
		if e == nil {
			t.Fatalf("no example %s", name)
		}
		if !strings.Contains(e.Source, ".target sm_90a") || strings.Count(e.Source, "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16") < 4 {
			t.Fatalf("%s: not an sm_90a module with wgmma.m64n64k16", name)
		}
		for _, sched := range []string{"independent", "simt-stack"} {
			res, ws := checkExampleSource(t, e, e.Source, sched, 0)
			if res.Status != "ok" {
				t.Fatalf("%s (%s): status %s: %s %+v", name, sched, res.Status, res.Message, res.Fault)
			}
			if len(ws) != 0 {
				t.Errorf("%s (%s): checker warnings: %+v", name, sched, ws)
			}
			a, b, c := exBF16(t, res.Buffer("a").Data), exBF16(t, res.Buffer("b").Data), exBF16(t, res.Buffer("c").Data)
			const m, n, k = 128, 128, 128
			if len(a) != m*k || len(b) != n*k || len(c) != m*n {
				t.Fatalf("%s: buffer sizes %d %d %d", name, len(a), len(b), len(c))
			}
			nonzero := 0
			for i := 0; i < m; i++ {
				for j := 0; j < n; j++ {
					want := 0
					for l := 0; l < k; l++ {
						x, y := a[i*k+l], b[j*k+l]
						if x != float32(int(x)) || y != float32(int(y)) {
							t.Fatalf("%s: inputs a[%d][%d] = %v, b[%d][%d] = %v: want integers", name, i, l, x, j, l, y)
						}
						want += int(x) * int(y)
					}
					if got := c[j*m+i]; got != float32(want) {
						t.Fatalf("%s (%s): C[%d][%d] = %v, want %d", name, sched, i, j, got, want)
					}
					if want != 0 {
						nonzero++
					}
				}
			}
			if nonzero < m*n/2 {
				t.Errorf("%s: only %d nonzero elements of C", name, nonzero)
			}
		}
	}
}

// The cp.async kernel's lesson says what its proxy fence is for: without it
// the checker warns at the wgmma that reads the copied tiles.
func TestExampleCpAsyncWgmmaNeedsFence(t *testing.T) {
	e := BuiltinExamples().Get("fastcu-cpasync-wgmma")
	const fence = "\tfence.proxy.async.shared::cta;\n"
	if strings.Count(e.Source, fence) != 1 {
		t.Fatalf("want one %q in the kernel", fence)
	}
	_, ws := checkExampleSource(t, e, strings.Replace(e.Source, fence, "\n", 1), "independent", 0)
	if len(ws) == 0 {
		t.Fatal("no warning without the fence")
	}
	lines := strings.Split(e.Source, "\n")
	for _, w := range ws {
		if w.Line < 1 || w.Line > len(lines) || !strings.Contains(lines[w.Line-1], "wgmma.mma_async") {
			t.Errorf("warning at line %d (%s), want a wgmma.mma_async: %+v", w.Line, w.Instruction, w)
		}
	}
}

// The committed PTX is the committed CUDA source compiled as its header
// says (ptxplay cc -arch sm_90a -O 2), after that header.
func TestRealWgmmaGemmsAreTheirSources(t *testing.T) {
	needClang(t)
	for _, name := range realWgmmaGemms {
		cu, err := os.ReadFile("examples/" + name + ".cu")
		if err != nil {
			t.Fatal(err)
		}
		ptxText, err := os.ReadFile("examples/" + name + ".ptx")
		if err != nil {
			t.Fatal(err)
		}
		cmd := "ptxplay cc -arch sm_90a -O 2 " + name + ".cu"
		if !strings.Contains(string(cu), cmd) || !strings.Contains(string(ptxText), cmd) {
			t.Errorf("%s: the .cu and the .ptx do not both give the command %q", name, cmd)
		}
		const mark = "// Unchanged below this header.\n"
		_, body, ok := strings.Cut(string(ptxText), mark)
		if !ok {
			t.Fatalf("%s.ptx: no %q", name, mark)
		}
		r, err := cuda.Compile(context.Background(), string(cu), cuda.Options{Arch: "sm_90a", Opt: 2})
		if err != nil {
			t.Fatal(err)
		}
		if !r.OK() {
			t.Fatalf("%s.cu: %s", name, r.Errors())
		}
		if r.PTX != body {
			t.Errorf("%s.ptx is not the compile of %s.cu (regenerate it: header, then `%s`)", name, name, cmd)
		}
	}
}
