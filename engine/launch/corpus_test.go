package launch

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime/debug"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/ptxplayground/ptxplay/engine/emu"
)

// sharedDir is the shared test data (the PTX corpus and the conformance
// suites), next to the repository.
const sharedDir = "../../../shared"

// skipOrFail skips a test whose shared data is missing, except in CI (CI
// set), where the data must be there and a skip would hide a broken setup.
func skipOrFail(t *testing.T, format string, args ...any) {
	t.Helper()
	if os.Getenv("CI") != "" {
		t.Fatalf(format, args...)
	}
	t.Skipf(format, args...)
}

// TestInferGallery: every gallery example's own spec fits its kernel, and
// Infer without a spec gives one that Prepare accepts and that runs to
// completion.
// tileExamples are the gallery kernels that read a fixed tile per thread
// rather than one element per thread: inference cannot size (or type)
// their buffers, and the inferred spec's run ends in the fault given.
var tileExamples = map[string]struct {
	why   string
	fault string // the inferred spec's fault kind
	// untyped: the kernel moves its data with cp.async and bit-size
	// vectors only, so inference cannot tell the buffers' element types.
	untyped bool
}{
	"mma-tile-cuda.json": {why: "the CUDA twin of mma-tile: clang copies each lane's halves as pairs of ld.global.u64 (a uint4), so inference types the tiles u64, one element per thread", fault: "out-of-bounds", untyped: true},
	"mma-tile.json":      {why: "one warp reads a 16x16 and a 16x8 tile of halves, 8 and 4 per lane", fault: "out-of-bounds"},
	"mma-int8.json":      {why: "one warp loads 16x32 and 32x8 tiles of bytes, four k per 32-bit fragment register", fault: "out-of-bounds", untyped: true},
	"mma-tf32.json":      {why: "one warp loads a 16x8 and an 8x8 tile of f32, 4 and 2 elements per lane", fault: "out-of-bounds"},
	"fastcu-tma-wgmma.json": {why: "fast.cu's TMA + wgmma GEMM: each CTA computes a 64x64 tile of C from M, N and K, which inference cannot guess (it takes 0 and 1), and stores bf16 with st.global.b16",
		fault: "out-of-bounds", untyped: true},
	"fastcu-cpasync-wgmma.json": {why: "fast.cu's GEMM with cp.async loads: each CTA copies 64x64 tiles with 16-byte cp.async and computes a 64x64 tile of C from M, N and K, and stores bf16 with st.global.b16",
		fault: "out-of-bounds", untyped: true},
	"triton-matmul.json": {why: "a Triton GEMM: each CTA copies 128x32 and 32x64 tiles with 16-byte cp.async (the strides must keep rows 16-byte aligned) and stores packed halves with st.global.v4.b32",
		fault: "misaligned", untyped: true},
	"coalescing.json":            {why: "each of the 64 threads doubles 8 floats (n = 512 is a constant of the kernel)", fault: "out-of-bounds"},
	"cp-async.json":              {why: "each CTA streams tiles of floats into shared memory with 16-byte cp.async", fault: "out-of-bounds", untyped: true},
	"cp-async-missing-wait.json": {why: "the CTA copies a 256-float tile with 16-byte cp.async, 4 floats per thread", fault: "out-of-bounds", untyped: true},
	"mini-gemm.json":             {why: "four warps load 32x32 tiles of halves as packed 32-bit words (ld.global.v2.b32)", fault: "out-of-bounds", untyped: true},
	"tma-swizzle.json":           {why: "the four copies share one expect_tx of 11,264 bytes, so each tensor map gets a quarter of it (boxDim [32 22], 2,816 bytes, where the kernel copies 4, 1, 2 and 4 KiB boxes), and the last copy, at its fixed offset 10,240, runs past the tiles", fault: "out-of-bounds"},
	"tma-missing-fence.json":     {why: "each of the 64 threads reads 4 floats with ld.global.v4.f32", fault: "out-of-bounds"},
	"tma-dot.json": {why: "Triton's TMA GEMM: each stage's mbarrier expects 8,192 bytes for three copies of two different maps (two 2 KiB boxes of A, issued by two warps, and one 4 KiB box of B), so no per-copy box follows from the count; the default boxes bring 6,144 bytes and the first wait never completes. The f16 tiles are read with ldmatrix .b16 and C is staged with st.shared.v2.b32, so the types are guessed (u32)",
		fault: "barrier-deadlock", untyped: true},
	"wgmma-layouts.json": {why: "eight 8 KiB TMA copies of one tile and B fill 66,568 bytes of dynamic shared memory, more than the 48 KiB an inferred launch gives, so thread 0's mbarrier.init at offset 66,560 is out of bounds",
		fault: "out-of-bounds"},
}

func TestInferGallery(t *testing.T) {
	dir := filepath.Join("..", "..", "web", "examples")
	specs, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, path := range specs {
		if filepath.Base(path) == "index.json" {
			continue
		}
		n++
		t.Run(filepath.Base(path), func(t *testing.T) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			spec := parseSpecT(t, string(data))
			text, name := gallerySource(t, dir, spec)
			p := compileLaunchTest(t, string(text))
			if ms := Check(p, spec); len(ms) != 0 {
				t.Errorf("%s: Check: %+v", name, ms)
			}
			if s, notes, err := Infer(p, spec, ""); s != spec || notes != nil || err != nil {
				t.Errorf("Infer changed the example's spec: %v %v", notes, err)
			}
			s, notes, res := inferAndRun(t, p, nil, spec.Entry)
			tile, isTile := tileExamples[filepath.Base(path)]
			if isTile {
				// Inference gives one element per thread; a kernel that reads a
				// fixed tile per thread reads past such buffers, or with
				// strides that break its alignment (a known limit).
				if res.Status != StatusFault || res.Fault == nil || res.Fault.Kind != tile.fault {
					t.Errorf("inferred spec of a tile kernel (%s): status %s %+v, want a %s fault", tile.why, res.Status, res.Fault, tile.fault)
				}
			} else if res.Status != StatusOK {
				t.Errorf("inferred spec: status %s %+v\nspec %s\nnotes:\n%s", res.Status, res.Fault, specJSON(t, s), notesText(notes))
			}
			// The inferred pointers are the example's buffers, with their
			// types.
			for i, prm := range spec.Params {
				got := s.Params[i]
				if prm.Buffer == "" {
					if got.Buffer != "" {
						t.Errorf("params[%d]: a buffer for a scalar", i)
					}
					continue
				}
				if got.Buffer == "" {
					t.Errorf("params[%d]: no buffer", i)
					continue
				}
				if want, have := specBuffers(spec)[prm.Buffer].Type, specBuffers(s)[got.Buffer].Type; want != have && !tile.untyped {
					t.Errorf("params[%d]: buffer of %s, want %s", i, have, want)
				}
			}
		})
	}
	if n < 5 {
		t.Fatalf("only %d gallery specs found in %s", n, dir)
	}
}

// corpusModules lists the .ptx files under the shared corpus and the ZLUDA
// suite, sorted.
func corpusModules(t *testing.T) []string {
	var files []string
	for _, dir := range []string{
		filepath.Join(sharedDir, "corpus", "ptx-ir"),
		filepath.Join(sharedDir, "conformance", "zluda"),
	} {
		if _, err := os.Stat(dir); err != nil {
			continue
		}
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(path, ".ptx") {
				files = append(files, path)
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	sort.Strings(files)
	return files
}

// corpusKernels calls f for every kernel of every corpus module that
// compiles and whose launch spec can be inferred, with that spec (a budget
// of 20,000 warp-instructions added), and returns how many kernels of how
// many modules it visited. With no corpus it skips (or fails under CI).
func corpusKernels(t *testing.T, f func(path string, p *emu.Program, entry string, s *Spec)) (kernels, modules int) {
	t.Helper()
	files := corpusModules(t)
	if len(files) == 0 {
		skipOrFail(t, "no PTX corpus found under %s (corpus/ptx-ir, conformance/zluda)", sharedDir)
	}
	for _, path := range files {
		text, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		p, _, _ := Compile(path, text)
		if p == nil {
			continue
		}
		for _, k := range p.Entries() {
			s, _, err := Infer(p, nil, k.Name)
			if err != nil {
				continue
			}
			s.MaxWarpInstructions = 20000
			kernels++
			f(path, p, k.Name, s)
		}
	}
	return kernels, len(files)
}

// TestInferCorpus infers a spec for every kernel of every corpus module
// that compiles: Infer must not fail or panic, Prepare must accept the
// spec, Check must find it fitting, and a short run must not fail.
func TestInferCorpus(t *testing.T) {
	files := corpusModules(t)
	if len(files) == 0 {
		skipOrFail(t, "no PTX corpus found under %s (corpus/ptx-ir, conformance/zluda)", sharedDir)
	}
	kernels := 0
	for _, path := range files {
		text, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		p, _, _ := Compile(path, text)
		if p == nil {
			continue
		}
		for _, k := range p.Entries() {
			kernels++
			if err := inferCorpusKernel(p, k.Name); err != nil {
				t.Errorf("%s: kernel %s: %v", path, k.Name, err)
			}
		}
	}
	t.Logf("%d kernels of %d modules", kernels, len(files))
}

func inferCorpusKernel(p *emu.Program, entry string) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v\n%s", r, debug.Stack())
		}
	}()
	_ = Kernels(p)
	s, _, err := Infer(p, nil, entry)
	if err != nil {
		return fmt.Errorf("Infer: %v", err)
	}
	if ms := Check(p, s); len(ms) != 0 {
		return fmt.Errorf("Check of the inferred spec: %+v", ms)
	}
	if again, _, _ := Infer(p, s, ""); again != s {
		return fmt.Errorf("Infer changed its own spec")
	}
	s.MaxWarpInstructions = 20000
	l, err := Prepare(p, s)
	if err != nil {
		return fmt.Errorf("Prepare: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := l.Run(ctx); err != nil {
		return fmt.Errorf("Run: %v", err)
	}
	return nil
}

// TestInferZludaTypes compares the inferred element types with the buffer
// types of the ZLUDA manifest (by size: the manifest says u64 where a
// kernel may say b64 or s64).
func TestInferZludaTypes(t *testing.T) {
	dir := filepath.Join(sharedDir, "conformance", "zluda")
	data, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	if err != nil {
		skipOrFail(t, "ZLUDA manifest not found: %v", err)
	}
	var man struct {
		Tests []struct {
			File, Entry   string
			Params        []string
			Input, Output *struct{ Type string }
		}
	}
	if err := json.Unmarshal(data, &man); err != nil {
		t.Fatal(err)
	}
	agree, total := 0, 0
	var misses []string
	for _, c := range man.Tests {
		text, err := os.ReadFile(filepath.Join(dir, c.File))
		if err != nil {
			t.Fatal(err)
		}
		p, _, _ := Compile(c.File, text)
		if p == nil {
			continue
		}
		var k *Kernel
		ks := Kernels(p)
		for i := range ks {
			if ks[i].Name == c.Entry {
				k = &ks[i]
			}
		}
		if k == nil {
			t.Errorf("%s: no kernel %s", c.File, c.Entry)
			continue
		}
		for i, role := range c.Params {
			buf := c.Output
			if role == "input" {
				buf = c.Input
			}
			if i >= len(k.Params) || buf == nil {
				continue
			}
			total++
			kp := k.Params[i]
			want, _ := lookupType(strings.Replace(buf.Type, "i", "s", 1))
			got, _ := lookupType(kp.ElemType)
			if kp.Role == RolePointer && got.Size() == want.Size() {
				agree++
			} else {
				misses = append(misses, fmt.Sprintf("%s %s: %s %s, manifest %s", c.File, kp.Name, kp.Role, kp.ElemType, buf.Type))
			}
		}
	}
	t.Logf("%d of %d manifest buffers agree; the others:\n%s", agree, total, strings.Join(misses, "\n"))
	if total == 0 || agree*100 < total*90 {
		t.Errorf("only %d of %d buffers agree with the manifest", agree, total)
	}
}
