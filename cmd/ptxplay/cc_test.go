package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ptxplayground/ptxplay/engine/cuda"
)

const ccKernel = `#include <cuda_runtime.h>
__global__ void scale(float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = x[i] * 2.0f + 1.0f;
}
`

// ptxplay cc prints PTX (with the user's .loc lines); a spec naming
// "cuda" is compiled and run; diagnostics name the CUDA file's line:col.
func TestCC(t *testing.T) {
	if err := cuda.Default().Available(); err != nil {
		t.Skipf("skipping: %v", err)
	}
	dir := t.TempDir()
	cu := filepath.Join(dir, "k.cu")
	os.WriteFile(cu, []byte(ccKernel), 0o644)
	var out, errb bytes.Buffer
	if rc := run([]string{"cc", "-arch", "sm_86", "-O", "1", cu}, nil, &out, &errb); rc != 0 {
		t.Fatalf("cc: rc %d: %s", rc, errb.String())
	}
	if !strings.Contains(out.String(), ".target sm_86") || !strings.Contains(out.String(), ".loc\t1 4") {
		t.Fatalf("cc output:\n%s", out.String())
	}
	spec := filepath.Join(dir, "k.json")
	os.WriteFile(spec, []byte(`{"version": 1, "cuda": "k.cu", "cudaOptions": {"opt": 3}, "block": [8,1,1],
 "buffers": [{"name": "x", "type": "f32", "count": 8, "init": {"iota": {"start": 0, "step": 1}}}],
 "params": [{"buffer": "x"}, {"u32": 6}]}`), 0o644)
	out.Reset()
	errb.Reset()
	if rc := run([]string{"run", spec}, nil, &out, &errb); rc != 0 {
		t.Fatalf("run: rc %d: %s", rc, errb.String())
	}
	var res struct {
		Buffers map[string]struct{ Values []float64 }
	}
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		t.Fatal(err)
	}
	want := []float64{1, 3, 5, 7, 9, 11, 6, 7}
	for i, v := range res.Buffers["x"].Values {
		if v != want[i] {
			t.Fatalf("x = %v, want %v", res.Buffers["x"].Values, want)
		}
	}
	out.Reset()
	errb.Reset()
	if rc := run([]string{"cc", "-"}, strings.NewReader("__global__ void k() {\n  int x = nope;\n}\n"), &out, &errb); rc != 1 || !strings.Contains(errb.String(), "<stdin>:2:11: error: use of undeclared identifier 'nope'") || out.Len() != 0 {
		t.Fatalf("bad source: rc %d, stderr %q", rc, errb.String())
	}
	if rc := run([]string{"cc", "-arch", "sm_1", cu}, nil, &out, &errb); rc != 2 {
		t.Fatalf("bad arch: rc %d", rc)
	}
}
