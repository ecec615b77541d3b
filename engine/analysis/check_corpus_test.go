package analysis_test

import (
	"context"
	"encoding/binary"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/ptxplayground/ptxplay/engine/analysis"
	"github.com/ptxplayground/ptxplay/engine/emu"
	"github.com/ptxplayground/ptxplay/engine/ptx"
)

// corpusEntries is how many kernels of the shared corpus
// TestCheckerBatchedCorpus runs.
const corpusEntries = 200

// checkCorpusKernel launches entry of p (2 CTAs of 64 threads, every
// pointer parameter at a zeroed 64 KiB buffer, every other parameter 16,
// a budget of 20,000 warp-instructions) with the checker, batched or one
// instruction at a time, and returns the run's verdict and final machine
// (nil when the kernel cannot be launched so).
func checkCorpusKernel(p *emu.Program, entry string, batched bool) (string, *emu.Machine) {
	cfg := emu.Config{Grid: [3]int{2, 1, 1}, Block: [3]int{64, 1, 1}, DynamicSharedBytes: 1024, MaxWarpInstructions: 20000}
	m, err := emu.NewMachine(p, entry, cfg)
	if err != nil {
		return "", nil
	}
	buf := m.Global.Alloc("buf", 64<<10, 256)
	params := m.Params()
	for _, pr := range p.Function(entry).Params {
		if pr.Offset < 0 || pr.Offset+pr.Size > len(params) {
			return "", nil
		}
		switch pr.Size {
		case 8:
			binary.LittleEndian.PutUint64(params[pr.Offset:], buf.Base)
		case 4:
			binary.LittleEndian.PutUint32(params[pr.Offset:], 16)
		}
	}
	m.SetBatchedDispatch(batched)
	chk := analysis.NewChecker(p, analysis.CheckerConfig{Grid: cfg.Grid, Block: cfg.Block})
	m.AddObserver(chk)
	ctx, cancel := context.WithTimeout(context.Background(), 20e9)
	defer cancel()
	stop := m.Run(ctx)
	return fmt.Sprintf("stop %v %+v dropped %d steps %d stats %+v", stop, chk.Warnings(), chk.Dropped(), chk.Steps(), m.Stats()), m
}

// forCorpusKernels calls f on the first corpusEntries kernels of the shared
// corpus (gpuocelot's and ptx-ir's) that f reports it could launch.
func forCorpusKernels(t *testing.T, f func(file string, p *emu.Program, entry string) bool) {
	t.Helper()
	root := filepath.Join("..", "..", "..", "shared", "corpus")
	var files []string
	_ = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".ptx") {
			files = append(files, path)
		}
		return nil
	})
	if len(files) == 0 {
		if os.Getenv("CI") != "" {
			t.Fatalf("no corpus under %s", root)
		}
		t.Skipf("no corpus under %s", root)
	}
	sort.Strings(files)
	n := 0
	for _, file := range files {
		if n >= corpusEntries {
			break
		}
		b, err := os.ReadFile(file)
		if err != nil || len(b) > 4<<20 {
			continue
		}
		p, _ := emu.CompileSource(ptx.NewSource(file, b))
		if p == nil {
			continue
		}
		for _, e := range p.Entries() {
			if n >= corpusEntries {
				break
			}
			if f(file, p, e.Name) {
				n++
			}
		}
	}
	if n < corpusEntries {
		t.Errorf("only %d corpus kernels ran", n)
	}
}

// The checker's verdicts are the same with batched dispatch as one
// instruction at a time on 200 kernels of the shared corpus (gpuocelot's
// and ptx-ir's), and so are the final states.
func TestCheckerBatchedCorpus(t *testing.T) {
	n, warned := 0, 0
	forCorpusKernels(t, func(f string, p *emu.Program, entry string) bool {
		vb, mb := checkCorpusKernel(p, entry, true)
		if mb == nil {
			return false
		}
		vp, mp := checkCorpusKernel(p, entry, false)
		n++
		if strings.Contains(vb, "Kind:") {
			warned++
		}
		if vb != vp {
			t.Errorf("%s %s: the checker's verdicts differ\nbatched: %s\nplain:   %s", f, entry, vb, vp)
		} else if d := mb.DiffState(mp); d != "" {
			t.Errorf("%s %s: %s", f, entry, d)
		}
		return true
	})
	t.Logf("%d corpus kernels, %d with warnings", n, warned)
}
