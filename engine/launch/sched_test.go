package launch

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ptxplayground/ptxplay/engine/emu"
)

// runBoth runs s on p under both scheduling models and describes the first
// difference between the results ("" when they agree). A run that spent
// its budget in both models is compared by status only: where it stopped
// depends on the order of divergent paths.
func runBoth(p *emu.Program, s *Spec) (string, error) {
	var res [2]*Result
	for i, sched := range []string{"independent", "simt-stack"} {
		c := *s
		c.Scheduling = sched
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		r, err := Run(ctx, p, &c)
		cancel()
		if err != nil {
			return "", fmt.Errorf("%s: %v", sched, err)
		}
		res[i] = r
	}
	a, b := res[0], res[1]
	if a.Status != b.Status {
		return fmt.Sprintf("status %s (independent) vs %s (simt-stack)", a.Status, b.Status), nil
	}
	if a.Status == StatusLimit {
		return "", nil
	}
	if (a.Fault == nil) != (b.Fault == nil) || a.Fault != nil && (a.Fault.Kind != b.Fault.Kind || a.Fault.PC != b.Fault.PC) {
		return fmt.Sprintf("fault %+v (independent) vs %+v (simt-stack)", a.Fault, b.Fault), nil
	}
	for i := range a.Buffers {
		if !bytes.Equal(a.Buffers[i].Data, b.Buffers[i].Data) {
			return fmt.Sprintf("buffer %s differs", a.Buffers[i].Name), nil
		}
	}
	return "", nil
}

// TestSchedulingModelsGallery: every gallery example gives the same result
// under independent scheduling and under the SIMT stack.
func TestSchedulingModelsGallery(t *testing.T) {
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
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		spec := parseSpecT(t, string(data))
		text, _, err := spec.Load(dir)
		if err != nil {
			t.Fatal(err)
		}
		p := compileLaunchTest(t, string(text))
		diff, err := runBoth(p, spec)
		if err != nil {
			t.Errorf("%s: %v", filepath.Base(path), err)
		} else if diff != "" {
			t.Errorf("%s: %s", filepath.Base(path), diff)
		}
	}
	if n == 0 {
		t.Fatal("no gallery examples")
	}
}

// TestSchedulingModelsCorpus: every kernel of the corpus, launched with its
// inferred spec, gives the same result in both models.
func TestSchedulingModelsCorpus(t *testing.T) {
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
			s, _, err := Infer(p, nil, k.Name)
			if err != nil {
				continue
			}
			s.MaxWarpInstructions = 20000
			kernels++
			diff, err := runBoth(p, s)
			if err != nil {
				t.Errorf("%s: kernel %s: %v", path, k.Name, err)
			} else if diff != "" {
				t.Errorf("%s: kernel %s: %s", path, k.Name, diff)
			}
		}
	}
	t.Logf("%d kernels of %d modules", kernels, len(files))
}

// The spec's "scheduling" selects the model; the intra-warp spin lock
// completes under independent scheduling and livelocks under the SIMT
// stack, which runBoth reports as a difference.
func TestSpecScheduling(t *testing.T) {
	const src = `.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 out) {
	.reg .u32 %r<4>; .reg .u64 %rd<4>; .reg .pred %p;
	ld.param.u64 %rd1, [out];
	add.u64 %rd2, %rd1, 4;
LOCK:
	atom.global.cas.b32 %r1, [%rd1], 0, 1;
	setp.ne.u32 %p, %r1, 0;
	@%p bra LOCK;
	ld.volatile.global.u32 %r2, [%rd2];
	add.u32 %r2, %r2, 1;
	st.volatile.global.u32 [%rd2], %r2;
	atom.global.exch.b32 %r3, [%rd1], 0;
	ret;
}`
	spec := parseSpecT(t, `{"ptx":"k.ptx","grid":[1],"block":[32],"maxWarpInstructions":100000,"scheduling":"simt-stack",
		"buffers":[{"name":"out","type":"u32","count":2}],"params":[{"buffer":"out"}]}`)
	p := compileLaunchTest(t, src)
	l, err := Prepare(p, spec)
	if err != nil {
		t.Fatal(err)
	}
	if l.Machine().Scheduling() != emu.SchedSIMTStack {
		t.Fatalf("scheduling %s", l.Machine().Scheduling())
	}
	if out, err := spec.MarshalIndent(); err != nil || !bytes.Contains(out, []byte(`"scheduling": "simt-stack"`)) {
		t.Fatalf("marshalled spec lacks the model: %s %v", out, err)
	}
	diff, err := runBoth(p, spec)
	if err != nil || diff != "status ok (independent) vs limit (simt-stack)" {
		t.Fatalf("runBoth: %q %v", diff, err)
	}
	if _, err := ParseSpec([]byte(`{"ptx":"k.ptx","grid":[1],"block":[32],"scheduling":"fair"}`)); err == nil {
		t.Fatal("unknown model accepted")
	}
}
