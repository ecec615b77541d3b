package conformance

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/ptxplayground/ptxplay/engine/emu"
	"github.com/ptxplayground/ptxplay/engine/launch"
	"github.com/ptxplayground/ptxplay/engine/ptx"
)

// zludaCase is one test of the ZLUDA manifest.
type zludaCase struct {
	Name               string      `json:"name"`
	File               string      `json:"file"`
	Entry              string      `json:"entry"`
	Grid               []int       `json:"grid"`
	Block              []int       `json:"block"`
	DynamicSharedBytes int         `json:"dynamicSharedBytes"`
	Params             []string    `json:"params"`
	Input              *zludaInput `json:"input"`
	Output             zludaOutput `json:"output"`
}

type zludaInput struct {
	Type  string `json:"type"`
	Count int    `json:"count"`
	Bytes string `json:"bytes"`
}

type zludaOutput struct {
	Type  string   `json:"type"`
	Count int      `json:"count"`
	Bits  []string `json:"bits"`
}

type zludaManifest struct {
	Tests []zludaCase `json:"tests"`
}

// Limits of one case: the ZLUDA kernels are tiny, so these only catch
// runaway loops and hangs.
const (
	zludaMaxWarpInstructions = 10_000_000
	zludaTimeout             = 60 * time.Second
)

// zludaAllocSlack is how many bytes past each global allocation are mapped
// (zero-filled) in the ZLUDA cases. ZLUDA's runner allocates every buffer
// with cuMemAlloc of exactly the recorded output's size and launches its
// "warp" cases with 64 threads and 1024 bytes of dynamic shared memory.
// Two kernels written for one warp let their second warp run past the
// ends: ldmatrix reads values_g[64..95] (128 bytes past the module's
// 256-byte global array, stored to shared bytes 256..383 that no ldmatrix
// reads) and writes output bytes 256..511; mma_..._2x writes output bytes
// 1024..2047. None of it reaches the recorded output, which the runner
// copies back at its exact size (64 and 256 elements: warp 0's results).
// On the GPU those bytes lie in the pages the driver mapped for the
// allocation, so nothing faults; the emulator models that here only.
// Everywhere else an access past an allocation faults.
const zludaAllocSlack = 4096

// zludaDir finds the suite: the shared folder, or a copy in testdata.
func zludaDir() string {
	for _, dir := range []string{
		filepath.Join(sharedDir, "conformance", "zluda"),
		filepath.Join("testdata", "zluda"),
	} {
		if _, err := os.Stat(filepath.Join(dir, "manifest.json")); err == nil {
			return dir
		}
	}
	return ""
}

// zludaSuite returns the suite's folder and manifest, skipping the test
// (failing it in CI) when the suite is not there.
func zludaSuite(t *testing.T) (string, zludaManifest) {
	t.Helper()
	dir := zludaDir()
	if dir == "" {
		skipOrFail(t, "ZLUDA conformance suite not found (looked for %s and testdata/zluda)", filepath.Join(sharedDir, "conformance", "zluda"))
	}
	data, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	var man zludaManifest
	if err := json.Unmarshal(data, &man); err != nil {
		t.Fatalf("manifest.json: %v", err)
	}
	if len(man.Tests) == 0 {
		t.Fatal("manifest.json has no tests")
	}
	return dir, man
}

// TestZluda runs every case of the ZLUDA conformance suite through
// engine/launch and compares the output buffer bit for bit.
func TestZluda(t *testing.T) {
	dir, man := zludaSuite(t)
	exp := loadExpectations(t, filepath.Join("testdata", "zluda_expected_failures.txt"))
	for _, c := range man.Tests {
		t.Run(c.Name, func(t *testing.T) {
			exp.record(t, c.Name, runZludaCase(dir, c, ""))
		})
	}
	exp.finish(t, "zluda")
}

// TestZludaSchedulingModels runs every case under both scheduling models:
// none of them depends on the order of divergent paths, so each must end
// the same way (passing, or with the same failure) in both.
func TestZludaSchedulingModels(t *testing.T) {
	dir, man := zludaSuite(t)
	for _, c := range man.Tests {
		ind := runZludaCase(dir, c, "independent")
		stk := runZludaCase(dir, c, "simt-stack")
		if ind != stk {
			t.Errorf("%s: independent: %q; simt-stack: %q", c.Name, ind, stk)
		}
	}
	t.Logf("%d cases", len(man.Tests))
}

// runZludaCase runs one case under the scheduling model sched ("": the
// module's default) and returns "" if it passed, or why it failed (panics
// and hangs of the engine included).
func runZludaCase(dir string, c zludaCase, sched string) string {
	done := make(chan string, 1)
	ctx, cancel := context.WithTimeout(context.Background(), zludaTimeout)
	defer cancel()
	go func() {
		defer func() {
			if r := recover(); r != nil {
				stack := string(debug.Stack())
				done <- fmt.Sprintf("panic: %v [%s]", r, panicSite(stack))
			}
		}()
		done <- zludaCaseFailure(ctx, dir, c, sched)
	}()
	select {
	case msg := <-done:
		return msg
	case <-time.After(zludaTimeout + 5*time.Second):
		return fmt.Sprintf("timeout: no result after %v", zludaTimeout)
	}
}

// panicSite returns the first frame of a panic's stack inside the engine.
func panicSite(stack string) string {
	lines := strings.Split(stack, "\n")
	for i, l := range lines {
		if strings.Contains(l, "/engine/") && !strings.Contains(l, "/engine/conformance/") && strings.HasPrefix(l, "\t") {
			return strings.TrimSpace(lines[i])
		}
	}
	return "no engine frame"
}

// zludaType maps the manifest's element types (i32, ...) to spec types.
func zludaType(s string) string {
	if strings.HasPrefix(s, "i") {
		return "s" + s[1:]
	}
	return s
}

func zludaSpec(c zludaCase, sched string) (*launch.Spec, error) {
	spec := &launch.Spec{
		Entry:               c.Entry,
		DynamicSharedBytes:  c.DynamicSharedBytes,
		MaxWarpInstructions: zludaMaxWarpInstructions,
		Scheduling:          sched,
	}
	if spec.DynamicSharedBytes == 0 {
		spec.DynamicSharedBytes = 1024
	}
	spec.SetAllocSlack(zludaAllocSlack)
	for i := range 3 {
		spec.Grid[i], spec.Block[i] = 1, 1
		if i < len(c.Grid) {
			spec.Grid[i] = c.Grid[i]
		}
		if i < len(c.Block) {
			spec.Block[i] = c.Block[i]
		}
	}
	if c.Input != nil && c.Input.Type != "" {
		b := c.Input.Bytes
		spec.Buffers = append(spec.Buffers, launch.Buffer{Name: "input", Type: zludaType(c.Input.Type), Count: c.Input.Count,
			Init: &launch.Init{Bytes: &b}})
	}
	spec.Buffers = append(spec.Buffers, launch.Buffer{Name: "output", Type: zludaType(c.Output.Type), Count: c.Output.Count})
	for _, p := range c.Params {
		switch p {
		case "input", "output":
			spec.Params = append(spec.Params, launch.BufferParam(p))
		default:
			return nil, fmt.Errorf("manifest: unknown parameter %q", p)
		}
	}
	return spec, nil
}

// zludaCaseFailure compiles, runs and compares one case.
func zludaCaseFailure(ctx context.Context, dir string, c zludaCase, sched string) string {
	l, failure := zludaPrepare(dir, c, sched)
	if l == nil {
		return failure
	}
	return zludaRunFailure(ctx, c, l)
}

// zludaPrepare compiles one case and prepares its launch (nil and why it
// failed if it cannot be).
func zludaPrepare(dir string, c zludaCase, sched string) (*launch.Launch, string) {
	text, err := os.ReadFile(filepath.Join(dir, c.File))
	if err != nil {
		return nil, "manifest: " + err.Error()
	}
	prog, src, diags := launch.Compile(c.File, text)
	if prog == nil {
		return nil, "compile: " + firstError(src, diags)
	}
	spec, err := zludaSpec(c, sched)
	if err != nil {
		return nil, err.Error()
	}
	if fn := prog.Function(c.Entry); fn != nil && len(fn.Params) != len(spec.Params) {
		// The manifest lists the parameters the harness passed; a kernel
		// may declare one it never reads (bar_red_and_pred declares
		// input and output but is run with the output only). Bind by
		// name then, passing a null pointer for the unlisted ones.
		spec.Params = spec.Params[:0]
		for _, p := range fn.Params {
			switch {
			case p.Name == "output" || p.Name == "input" && c.Input != nil && c.Input.Type != "":
				spec.Params = append(spec.Params, launch.BufferParam(p.Name))
			case p.Size == 8:
				spec.Params = append(spec.Params, launch.ScalarParam("u64", "0"))
			default:
				return nil, fmt.Sprintf("manifest: kernel %s takes %d parameters, the manifest lists %d", c.Entry, len(fn.Params), len(c.Params))
			}
		}
	}
	l, err := launch.Prepare(prog, spec)
	if err != nil {
		return nil, "prepare: " + err.Error()
	}
	return l, ""
}

// zludaRunFailure runs a prepared case and compares its output.
func zludaRunFailure(ctx context.Context, c zludaCase, l *launch.Launch) string {
	res, err := l.Run(ctx)
	if err != nil {
		return "run: " + err.Error()
	}
	switch res.Status {
	case launch.StatusOK:
	case launch.StatusFault:
		f := res.Fault
		msg := fmt.Sprintf("fault: %s: %s", f.Kind, f.Message)
		if f.Line > 0 {
			msg += fmt.Sprintf(" (line %d: %s)", f.Line, f.Instruction)
		}
		return msg
	default:
		return fmt.Sprintf("%s: %s", res.Status, res.Message)
	}
	out := res.Buffer("output")
	if out.Len() != len(c.Output.Bits) {
		return fmt.Sprintf("manifest: %d expected elements for an output of %d", len(c.Output.Bits), out.Len())
	}
	bad, first := 0, -1
	for i, want := range c.Output.Bits {
		if out.BitsHex(i) != strings.ToLower(want) {
			bad++
			if first < 0 {
				first = i
			}
		}
	}
	if bad == 0 {
		return ""
	}
	return fmt.Sprintf("mismatch: output[%d] = %s (0x%s), want 0x%s; %d of %d elements differ",
		first, out.ValueJSON(first), out.BitsHex(first), strings.ToLower(c.Output.Bits[first]), bad, out.Len())
}

// firstError renders the first error diagnostic as "line:col: message".
func firstError(src *ptx.Source, diags []ptx.Diagnostic) string {
	for _, d := range diags {
		if d.Severity == ptx.SevError {
			p := src.Position(d.Span.Start)
			return fmt.Sprintf("%d:%d: %s", p.Line, p.Col, d.Message)
		}
	}
	return "no program and no error"
}

// TestZludaBatchedDispatch runs every case with and without batched
// dispatch under both scheduling models: the final states (stop, fault,
// statistics, memory, every register) must be identical.
func TestZludaBatchedDispatch(t *testing.T) {
	dir, man := zludaSuite(t)
	n := 0
	for _, c := range man.Tests {
		for _, sched := range []string{"independent", "simt-stack"} {
			var ls [2]*launch.Launch
			var stops [2]emu.StopReason
			for i, on := range []bool{true, false} {
				l, _ := zludaPrepare(dir, c, sched)
				if l == nil {
					break
				}
				l.Machine().SetBatchedDispatch(on)
				ctx, cancel := context.WithTimeout(context.Background(), zludaTimeout)
				stops[i] = l.Machine().Run(ctx)
				cancel()
				ls[i] = l
			}
			if ls[0] == nil {
				continue
			}
			n++
			if stops[0] != stops[1] {
				t.Errorf("%s (%s): stop %v batched, %v unbatched", c.Name, sched, stops[0], stops[1])
			} else if d := ls[0].Machine().DiffState(ls[1].Machine()); d != "" {
				t.Errorf("%s (%s): %s", c.Name, sched, d)
			}
		}
	}
	t.Logf("%d runs of %d cases", n, len(man.Tests))
}
