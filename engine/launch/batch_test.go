package launch

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ptxplayground/ptxplay/engine/emu"
)

// runBatchedBoth runs s on p with and without batched dispatch and
// describes the first difference between the final states ("" when
// there is none): stop, statistics, fault, memory, registers.
func runBatchedBoth(t *testing.T, p *emu.Program, s *Spec) string {
	t.Helper()
	var ls [2]*Launch
	var stops [2]emu.StopReason
	for i, on := range []bool{true, false} {
		l, err := Prepare(p, s)
		if err != nil {
			t.Fatal(err)
		}
		l.Machine().SetBatchedDispatch(on)
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		stops[i] = l.Machine().Run(ctx)
		cancel()
		if stops[i] == emu.StopInterrupted {
			t.Fatalf("timed out")
		}
		ls[i] = l
	}
	if stops[0] != stops[1] {
		return "stop " + stops[0].String() + " (batched) vs " + stops[1].String()
	}
	return ls[0].Machine().DiffState(ls[1].Machine())
}

// TestBatchedDispatchGallery: every gallery example ends in the same state
// with and without batched dispatch, under both scheduling models.
func TestBatchedDispatchGallery(t *testing.T) {
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
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		spec := parseSpecT(t, string(data))
		text, _ := gallerySource(t, dir, spec)
		p := compileLaunchTest(t, string(text))
		for _, sched := range []string{"independent", "simt-stack"} {
			c := *spec
			c.Scheduling = sched
			n++
			if d := runBatchedBoth(t, p, &c); d != "" {
				t.Errorf("%s (%s): %s", filepath.Base(path), sched, d)
			}
		}
	}
	if n == 0 {
		t.Fatal("no gallery examples")
	}
}

// TestBatchedDispatchCorpus: every kernel of the corpus, launched with its
// inferred spec (and a budget), ends in the same state with and without
// batched dispatch, under both scheduling models.
func TestBatchedDispatchCorpus(t *testing.T) {
	kernels, modules := corpusKernels(t, func(path string, p *emu.Program, entry string, s *Spec) {
		for _, sched := range []string{"independent", "simt-stack"} {
			c := *s
			c.Scheduling = sched
			if d := runBatchedBoth(t, p, &c); d != "" {
				t.Errorf("%s: kernel %s (%s): %s", path, entry, sched, d)
			}
		}
	})
	t.Logf("%d kernels of %d modules", kernels, modules)
}
