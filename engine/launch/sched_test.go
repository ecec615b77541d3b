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

// schedDependent lists the gallery examples whose result depends on the
// scheduling model by design, with what each model gives: the status and
// the u32 buffers named (their every element).
var schedDependent = map[string][2]modelOutcome{
	// Every lane of one warp takes a global lock: the winner waits at the
	// loop exit for lanes that spin on the lock it holds.
	"spin-lock.json": {
		{StatusOK, map[string]func(i int) uint32{"lock": fill(0), "counter": fill(32)}},
		{StatusLimit, map[string]func(i int) uint32{"lock": fill(1), "counter": fill(0)}},
	},
	// The consumers (the branch target, run first by the SIMT stack) spin
	// on a flag that the producer below them on the stack never sets.
	"producer-consumer.json": {
		{StatusOK, map[string]func(i int) uint32{"box": values(528, 1), "out": func(i int) uint32 { return 528 + uint32(i) }}},
		{StatusLimit, map[string]func(i int) uint32{"box": fill(0), "out": fill(0)}},
	},
	// bar.warp.sync does not wait under the SIMT stack: the upper half
	// (the branch target) reads the lower half's values before they are
	// written.
	"syncwarp.json": {
		{StatusOK, map[string]func(i int) uint32{"out": syncwarpOut}},
		{StatusOK, map[string]func(i int) uint32{"out": func(i int) uint32 {
			if i < 16 {
				return syncwarpOut(i)
			}
			return 0
		}}},
	},
}

// syncwarpOut is the syncwarp example's result (in[i] = i+1): each half
// reads what the other half wrote.
func syncwarpOut(i int) uint32 {
	if i < 16 {
		return 3 * uint32(i+17)
	}
	return 2 * uint32(i-15)
}

// modelOutcome is what a launch gives under one scheduling model.
type modelOutcome struct {
	status  Status
	buffers map[string]func(i int) uint32
}

func fill(v uint32) func(int) uint32 { return func(int) uint32 { return v } }

func values(v ...uint32) func(int) uint32 { return func(i int) uint32 { return v[i] } }

// checkOutcome compares r with the expected outcome.
func checkOutcome(t *testing.T, what string, r *Result, want modelOutcome) {
	t.Helper()
	if r.Status != want.status {
		msg := r.Message
		if r.Fault != nil {
			msg = r.Fault.Kind + ": " + r.Fault.Message
		}
		t.Errorf("%s: status %s (%s), want %s", what, r.Status, msg, want.status)
	}
	for name, f := range want.buffers {
		b := r.Buffer(name)
		if b == nil {
			t.Errorf("%s: no buffer %s", what, name)
			continue
		}
		for i := 0; i < b.Len(); i++ {
			if got := uint32(b.Bits(i)); got != f(i) {
				t.Errorf("%s: %s[%d] = %d, want %d", what, name, i, got, f(i))
				break
			}
		}
	}
}

// TestSchedulingModelsGallery: every gallery example gives the same result
// under independent scheduling and under the SIMT stack, except the
// examples that show the difference (schedDependent), which give exactly
// the outcome listed for each model.
func TestSchedulingModelsGallery(t *testing.T) {
	dir := filepath.Join("..", "..", "web", "examples")
	specs, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	seen := map[string]bool{}
	for _, path := range specs {
		base := filepath.Base(path)
		if base == "index.json" {
			continue
		}
		n++
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		spec := parseSpecT(t, string(data))
		text, _ := gallerySource(t, dir, spec)
		p := compileLaunchTest(t, string(text))
		if want, ok := schedDependent[base]; ok {
			seen[base] = true
			if (want[0].status == StatusLimit || want[1].status == StatusLimit) && spec.MaxWarpInstructions == 0 {
				t.Errorf("%s: livelocks under one model, but the spec sets no budget", base)
				continue
			}
			for i, sched := range []string{"independent", "simt-stack"} {
				c := *spec
				c.Scheduling = sched
				ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
				r, err := Run(ctx, p, &c)
				cancel()
				if err != nil {
					t.Fatalf("%s: %s: %v", base, sched, err)
				}
				checkOutcome(t, base+" "+sched, r, want[i])
				if r.Status == StatusLimit && r.Stats.WarpInstructions != spec.MaxWarpInstructions {
					t.Errorf("%s %s: stopped after %d warp-instructions, want the budget %d", base, sched, r.Stats.WarpInstructions, spec.MaxWarpInstructions)
				}
			}
			if diff, err := runBoth(p, spec); err != nil || diff == "" {
				t.Errorf("%s: runBoth sees no difference (%v)", base, err)
			}
			continue
		}
		diff, err := runBoth(p, spec)
		if err != nil {
			t.Errorf("%s: %v", base, err)
		} else if diff != "" {
			t.Errorf("%s: %s", base, diff)
		}
	}
	if n == 0 {
		t.Fatal("no gallery examples")
	}
	for name := range schedDependent {
		if !seen[name] {
			t.Errorf("no gallery example %s", name)
		}
	}
}

// The producer/consumer example livelocks under the SIMT stack because the
// stack runs the branch target (the consumers) first. With the branch
// turned round, the producer at the target, the same code completes under
// the SIMT stack too, with the same result as under independent
// scheduling.
func TestProducerConsumerBranchOrder(t *testing.T) {
	dir := filepath.Join("..", "..", "web", "examples")
	data, err := os.ReadFile(filepath.Join(dir, "producer-consumer.json"))
	if err != nil {
		t.Fatal(err)
	}
	spec := parseSpecT(t, string(data))
	text, _ := gallerySource(t, dir, spec)
	const branch = "@%p1 bra CONSUMER;"
	if bytes.Count(text, []byte(branch)) != 1 || !bytes.Contains(text, []byte("\tbra.uni JOIN;\n\nCONSUMER:")) {
		t.Fatalf("the example no longer has the branch %q before the producer's code", branch)
	}
	// Lane 0 (the producer) takes the branch; the consumers fall through
	// to a uniform jump to their loop.
	swapped := bytes.Replace(text, []byte(branch), []byte("@!%p1 bra PRODUCER;\n\tbra.uni CONSUMER;\nPRODUCER:"), 1)
	p := compileLaunchTest(t, string(swapped))
	want := schedDependent["producer-consumer.json"][0]
	for _, sched := range []string{"independent", "simt-stack"} {
		c := *spec
		c.Scheduling = sched
		r, err := Run(context.Background(), p, &c)
		if err != nil {
			t.Fatal(err)
		}
		checkOutcome(t, "producer first, "+sched, r, want)
	}
}

// TestSchedulingModelsCorpus: every kernel of the corpus, launched with its
// inferred spec, gives the same result in both models.
func TestSchedulingModelsCorpus(t *testing.T) {
	kernels, modules := corpusKernels(t, func(path string, p *emu.Program, entry string, s *Spec) {
		diff, err := runBoth(p, s)
		if err != nil {
			t.Errorf("%s: kernel %s: %v", path, entry, err)
		} else if diff != "" {
			t.Errorf("%s: kernel %s: %s", path, entry, diff)
		}
	})
	t.Logf("%d kernels of %d modules", kernels, modules)
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
