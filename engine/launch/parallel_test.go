package launch

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ptxplayground/ptxplay/engine/emu"
)

// parallelOutput runs spec on prog with opt (sequentially, or in parallel
// on workers machines) and returns the result JSON, indented as ptxplay run
// prints it, and the report.
func parallelOutput(t *testing.T, prog *emu.Program, spec *Spec, opt RunOptions, workers int) (string, *ParallelReport) {
	t.Helper()
	l, err := Prepare(prog, spec)
	if err != nil {
		t.Fatalf("Prepare: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	opt.Parallel, opt.Workers = workers > 0, workers
	res, rep, err := l.RunWith(ctx, opt)
	if err != nil {
		t.Fatalf("RunWith(%+v): %v", opt, err)
	}
	if (rep != nil) != (workers > 0) {
		t.Fatalf("report %v for %d workers", rep, workers)
	}
	return string(res.AppendJSON(nil, true)), rep
}

// sameParallel checks that the parallel run (on each of workers) prints
// exactly what the sequential run prints; it returns the reports.
func sameParallel(t *testing.T, prog *emu.Program, spec *Spec, opt RunOptions, workers ...int) []*ParallelReport {
	t.Helper()
	want, _ := parallelOutput(t, prog, spec, opt, 0)
	var reps []*ParallelReport
	for _, w := range workers {
		got, rep := parallelOutput(t, prog, spec, opt, w)
		if got != want {
			t.Errorf("%d workers (%s): the output differs from the sequential run's\nsequential:\n%s\nparallel:\n%s", w, rep, clip(want), clip(got))
		}
		reps = append(reps, rep)
	}
	return reps
}

func clip(s string) string {
	if len(s) > 3000 {
		return s[:3000] + "..."
	}
	return s
}

// parallelSpec builds a spec for src (inline) from a JSON fragment with
// the grid, block, buffers and params.
func parallelSpec(t *testing.T, src, rest string) (*emu.Program, *Spec) {
	t.Helper()
	prog := compileLaunchTest(t, src)
	s, err := ParseSpec([]byte(`{"source": "-", ` + rest + `}`))
	if err != nil {
		t.Fatalf("spec: %v", err)
	}
	return prog, s
}

// wantParallel checks that a report says the launch ran in parallel (or,
// with reason != "", that it ran sequentially because of reason).
func wantParallel(t *testing.T, rep *ParallelReport, reason string) {
	t.Helper()
	switch {
	case reason == "" && !rep.Parallel:
		t.Errorf("did not run in parallel: %s", rep)
	case reason != "" && (rep.Parallel || !strings.Contains(rep.Reason, reason)):
		t.Errorf("report %q, want a sequential run because %q", rep, reason)
	}
}

const header = ".version 8.0\n.target sm_80\n.address_size 64\n"

// scaleSrc: out[i] = in[i] * 3 + %ctaid.x for one element per thread.
const scaleSrc = header + `.visible .entry k(.param .u64 in, .param .u64 out, .param .u32 n) {
	.reg .u32 %r<8>; .reg .u64 %rd<6>; .reg .pred %p;
	ld.param.u64 %rd1, [in];
	ld.param.u64 %rd2, [out];
	ld.param.u32 %r1, [n];
	mov.u32 %r2, %ctaid.x;
	mov.u32 %r3, %ntid.x;
	mov.u32 %r4, %tid.x;
	mad.lo.u32 %r5, %r2, %r3, %r4;
	setp.ge.u32 %p, %r5, %r1;
	@%p bra END;
	mul.wide.u32 %rd3, %r5, 4;
	add.u64 %rd4, %rd1, %rd3;
	ld.global.u32 %r6, [%rd4];
	mad.lo.u32 %r7, %r6, 3, %r2;
	add.u64 %rd5, %rd2, %rd3;
	st.global.u32 [%rd5], %r7;
END:
	ret;
}`

// TestParallelDisjoint: CTAs that write disjoint data run in parallel, on
// wave boundaries or splitting waves, with or without the checker and the
// memory analysis, and the output is the sequential run's.
func TestParallelDisjoint(t *testing.T) {
	prog, spec := parallelSpec(t, scaleSrc, `"grid": [37], "block": [64],
		"buffers": [{"name": "in", "type": "u32", "count": 2350, "init": {"iota": {"start": 5, "step": 7}}},
			{"name": "out", "type": "u32", "count": 2350}],
		"params": [{"buffer": "in"}, {"buffer": "out"}, {"u32": 2350}]`)
	for _, opt := range []RunOptions{{}, {Check: true}, {Analyze: true}, {Check: true, Analyze: true}} {
		for _, rep := range sameParallel(t, prog, spec, opt, 2, 3, 8, 37, 64) {
			wantParallel(t, rep, "")
		}
	}
	// Four CTAs (one wave) split into up to four segments.
	prog, spec = parallelSpec(t, scaleSrc, `"grid": [4], "block": [64],
		"buffers": [{"name": "in", "type": "u32", "count": 256, "init": {"iota": {}}}, {"name": "out", "type": "u32", "count": 256}],
		"params": [{"buffer": "in"}, {"buffer": "out"}, {"u32": 256}]`)
	for _, rep := range sameParallel(t, prog, spec, RunOptions{Check: true}, 2, 4) {
		wantParallel(t, rep, "")
	}
	if rep := sameParallel(t, prog, spec, RunOptions{}, 1); len(rep) == 1 {
		wantParallel(t, rep[0], "one worker")
	}
}

// chainSrc: CTA c copies out[c-1] (+1) into out[c] after a delay loop, so
// every CTA but the first reads what the one before it wrote; the launch
// still finishes sequentially (the earlier CTA's write comes first within
// a wave only by the schedule's luck: CTA c-1 stores before CTA c reads
// since CTA c's loop is longer).
const chainSrc = header + `.visible .entry k(.param .u64 out) {
	.reg .u32 %r<8>; .reg .u64 %rd<6>; .reg .pred %p;
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, %ctaid.x;
	mov.u32 %r2, %tid.x;
	setp.ne.u32 %p, %r2, 0;
	@%p bra END;
	mul.lo.u32 %r3, %r1, 4;
LOOP:
	setp.eq.u32 %p, %r3, 0;
	@%p bra READ;
	sub.u32 %r3, %r3, 1;
	bra LOOP;
READ:
	mov.u32 %r4, 0;
	setp.eq.u32 %p, %r1, 0;
	@%p bra WRITE;
	sub.u32 %r5, %r1, 1;
	mul.wide.u32 %rd2, %r5, 4;
	add.u64 %rd3, %rd1, %rd2;
	ld.global.u32 %r4, [%rd3];
WRITE:
	add.u32 %r4, %r4, 1;
	mul.wide.u32 %rd4, %r1, 4;
	add.u64 %rd5, %rd1, %rd4;
	st.global.u32 [%rd5], %r4;
END:
	ret;
}`

// TestParallelCrossCTARead: a CTA that reads what another CTA wrote makes
// the launch run sequentially, with the sequential output.
func TestParallelCrossCTARead(t *testing.T) {
	prog, spec := parallelSpec(t, chainSrc, `"grid": [16], "block": [32],
		"buffers": [{"name": "out", "type": "u32", "count": 16}], "params": [{"buffer": "out"}]`)
	for _, rep := range sameParallel(t, prog, spec, RunOptions{}, 2, 4, 16) {
		wantParallel(t, rep, "read global memory that")
	}
	// Within one wave, split between segments.
	prog, spec = parallelSpec(t, chainSrc, `"grid": [4], "block": [32],
		"buffers": [{"name": "out", "type": "u32", "count": 4}], "params": [{"buffer": "out"}]`)
	for _, rep := range sameParallel(t, prog, spec, RunOptions{}, 2, 4) {
		wantParallel(t, rep, "read global memory that")
	}
}

// laterWriteSrc: CTA c reads in[c+8] and writes in[c] (and out[c]): the
// CTA that writes in[c+8] runs in a later wave, after the read, so every
// read sees the initial data and the launch may run in parallel.
// Writes of the same bytes by CTAs of different waves (out[c%4]) are
// allowed too: the last wave's value wins in both runs.
const laterWriteSrc = header + `.visible .entry k(.param .u64 in, .param .u64 out, .param .u64 last) {
	.reg .u32 %r<8>; .reg .u64 %rd<12>; .reg .pred %p;
	ld.param.u64 %rd1, [in];
	ld.param.u64 %rd2, [out];
	ld.param.u64 %rd9, [last];
	mov.u32 %r1, %ctaid.x;
	mov.u32 %r2, %tid.x;
	setp.ne.u32 %p, %r2, 0;
	@%p bra END;
	add.u32 %r3, %r1, 8;
	mul.wide.u32 %rd3, %r3, 4;
	add.u64 %rd4, %rd1, %rd3;
	ld.global.u32 %r4, [%rd4];
	mul.wide.u32 %rd5, %r1, 4;
	add.u64 %rd6, %rd1, %rd5;
	st.global.u32 [%rd6], %r1;
	add.u64 %rd7, %rd2, %rd5;
	st.global.u32 [%rd7], %r4;
	and.b32 %r5, %r1, 3;
	mul.wide.u32 %rd10, %r5, 4;
	add.u64 %rd11, %rd9, %rd10;
	st.global.u32 [%rd11], %r1;
END:
	ret;
}`

func TestParallelWriteAfterRead(t *testing.T) {
	prog, spec := parallelSpec(t, laterWriteSrc, `"grid": [16], "block": [32],
		"buffers": [{"name": "in", "type": "u32", "count": 24, "init": {"iota": {"start": 100}}},
			{"name": "out", "type": "u32", "count": 16}, {"name": "last", "type": "u32", "count": 4}],
		"params": [{"buffer": "in"}, {"buffer": "out"}, {"buffer": "last"}]`)
	for _, rep := range sameParallel(t, prog, spec, RunOptions{Check: true}, 2, 4) {
		wantParallel(t, rep, "")
	}
	// One CTA per segment: the CTAs of a wave are in different segments,
	// but none reads or writes what another of its wave accesses.
	for _, rep := range sameParallel(t, prog, spec, RunOptions{}, 16) {
		wantParallel(t, rep, "")
	}
	// Every CTA writes the same word: allowed between waves (the last
	// wave's segment runs its CTAs in the sequential order), not between
	// segments that split a wave.
	src := header + `.visible .entry k(.param .u64 out) {
	.reg .u32 %r<2>; .reg .u64 %rd<2>;
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, %ctaid.x;
	st.global.u32 [%rd1], %r1;
	ret;
}`
	prog, spec = parallelSpec(t, src, `"grid": [16], "block": [32],
		"buffers": [{"name": "out", "type": "u32", "count": 1}], "params": [{"buffer": "out"}]`)
	for _, rep := range sameParallel(t, prog, spec, RunOptions{}, 2, 4) {
		wantParallel(t, rep, "")
	}
	for _, rep := range sameParallel(t, prog, spec, RunOptions{}, 8, 16) {
		wantParallel(t, rep, "wrote the same global memory in the same wave")
	}
}

// TestParallelAtomics: global atomics make the launch run sequentially
// without trying (the gallery's histogram is checked in
// TestParallelGallery).
func TestParallelAtomics(t *testing.T) {
	src := header + `.visible .entry k(.param .u64 out) {
	.reg .u32 %r<4>; .reg .u64 %rd<3>;
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, %ctaid.x;
	and.b32 %r1, %r1, 1;
	mul.wide.u32 %rd2, %r1, 4;
	add.u64 %rd1, %rd1, %rd2;
	atom.global.add.u32 %r2, [%rd1], 1;
	ret;
}`
	prog, spec := parallelSpec(t, src, `"grid": [40], "block": [32],
		"buffers": [{"name": "out", "type": "u32", "count": 2}], "params": [{"buffer": "out"}]`)
	for _, rep := range sameParallel(t, prog, spec, RunOptions{Check: true}, 2) {
		wantParallel(t, rep, "global atomics (atom) (line 11)")
		if rep.Workers != 0 {
			t.Errorf("the parallel run was tried: %s", rep)
		}
	}
	clock := header + `.visible .entry k(.param .u64 out) {
	.reg .u64 %rd<3>;
	ld.param.u64 %rd1, [out];
	mov.u64 %rd2, %clock64;
	st.global.u64 [%rd1], %rd2;
	ret;
}`
	prog, spec = parallelSpec(t, clock, `"grid": [8], "block": [32],
		"buffers": [{"name": "out", "type": "u64", "count": 1}], "params": [{"buffer": "out"}]`)
	for _, rep := range sameParallel(t, prog, spec, RunOptions{}, 2) {
		wantParallel(t, rep, "%clock")
	}
}

// TestParallelFault: a fault in a late CTA (and one in several CTAs of
// different segments) is reported as the sequential run reports it, with
// the memory the sequential run leaves.
func TestParallelFault(t *testing.T) {
	// n is larger than the buffers: the CTAs past them fault, the first
	// of them in the sequential schedule being reported.
	for _, n := range []int{2300, 1000, 64} {
		prog, spec := parallelSpec(t, scaleSrc, fmt.Sprintf(`"grid": [37], "block": [64],
			"buffers": [{"name": "in", "type": "u32", "count": %d, "init": {"iota": {}}}, {"name": "out", "type": "u32", "count": 2350}],
			"params": [{"buffer": "in"}, {"buffer": "out"}, {"u32": 2350}]`, n))
		// (Other segments' loads past the buffer may land in the next
		// one, out, and stop the parallel run first for another reason.)
		for _, rep := range sameParallel(t, prog, spec, RunOptions{Check: true}, 2, 5) {
			if rep.Parallel {
				t.Errorf("in[%d]: ran in parallel", n)
			}
		}
		for _, rep := range sameParallel(t, prog, spec, RunOptions{}, 2) {
			wantParallel(t, rep, "faulted")
		}
	}
}

// TestParallelBudget: maxWarpInstructions below the launch's work stops
// it where the sequential run stops; at or above it, the launch runs in
// parallel.
func TestParallelBudget(t *testing.T) {
	prog, spec := parallelSpec(t, scaleSrc, `"grid": [37], "block": [64],
		"buffers": [{"name": "in", "type": "u32", "count": 2350, "init": {"iota": {}}}, {"name": "out", "type": "u32", "count": 2350}],
		"params": [{"buffer": "in"}, {"buffer": "out"}, {"u32": 2350}]`)
	l, err := Prepare(prog, spec)
	if err != nil {
		t.Fatal(err)
	}
	res, _ := l.Run(context.Background())
	total := res.Stats.WarpInstructions
	for _, budget := range []int64{1, 100, total - 1, total, total + 1} {
		spec.MaxWarpInstructions = budget
		reps := sameParallel(t, prog, spec, RunOptions{}, 2, 4)
		for _, rep := range reps {
			if budget < total {
				wantParallel(t, rep, "maxWarpInstructions")
			} else {
				wantParallel(t, rep, "")
			}
		}
	}
}

// TestParallelSpinWait: a CTA that waits for a flag an earlier CTA sets
// finishes sequentially (the flag is set in an earlier wave); the parallel
// run must notice the cross-CTA read instead of spinning forever.
func TestParallelSpinWait(t *testing.T) {
	src := header + `.visible .entry k(.param .u64 flag) {
	.reg .u32 %r<4>; .reg .u64 %rd<3>; .reg .pred %p;
	ld.param.u64 %rd1, [flag];
	mov.u32 %r1, %ctaid.x;
	setp.ne.u32 %p, %r1, 0;
	@%p bra WAIT;
	st.global.u32 [%rd1], 1;
	ret;
WAIT:
	ld.volatile.global.u32 %r2, [%rd1];
	setp.eq.u32 %p, %r2, 0;
	@%p bra WAIT;
	ret;
}`
	prog, spec := parallelSpec(t, src, `"grid": [12], "block": [32],
		"buffers": [{"name": "flag", "type": "u32", "count": 1}], "params": [{"buffer": "flag"}]`)
	for _, rep := range sameParallel(t, prog, spec, RunOptions{}, 2, 3) {
		wantParallel(t, rep, "read global memory that CTA")
	}
}

// TestParallelSchedule: warps of a CTA that race on shared memory (the
// result depends on their order) and CTAs of uneven length give the same
// result in parallel: a CTA's schedule does not depend on the CTAs beside
// it. (The checker, off here, would send the launch to the sequential run.)
func TestParallelSchedule(t *testing.T) {
	src := header + `.visible .entry k(.param .u64 out) {
	.shared .u32 s;
	.reg .u32 %r<8>; .reg .u64 %rd<4>; .reg .pred %p;
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, %ctaid.x;
	mov.u32 %r2, %tid.x;
	shr.u32 %r3, %r2, 5;
	mul.lo.u32 %r4, %r1, %r3;
	rem.u32 %r4, %r4, 5;
LOOP:
	setp.eq.u32 %p, %r4, 0;
	@%p bra DONE;
	sub.u32 %r4, %r4, 1;
	bra LOOP;
DONE:
	ld.shared.u32 %r5, [s];
	mad.lo.u32 %r5, %r5, 3, %r3;
	st.shared.u32 [s], %r5;
	ld.shared.u32 %r6, [s];
	mul.wide.u32 %rd2, %r1, 4;
	add.u64 %rd3, %rd1, %rd2;
	setp.ne.u32 %p, %r2, 0;
	@%p bra END;
	bar.sync 0;
	ld.shared.u32 %r6, [s];
	st.global.u32 [%rd3], %r6;
	ret;
END:
	bar.sync 0;
	ret;
}`
	prog, spec := parallelSpec(t, src, `"grid": [23], "block": [160],
		"buffers": [{"name": "out", "type": "u32", "count": 23}], "params": [{"buffer": "out"}]`)
	for _, sched := range []string{"independent", "simt-stack"} {
		spec.Scheduling = sched
		for _, rep := range sameParallel(t, prog, spec, RunOptions{}, 2, 3, 23) {
			wantParallel(t, rep, "")
		}
		for _, rep := range sameParallel(t, prog, spec, RunOptions{Check: true}, 2) {
			wantParallel(t, rep, "checker has warnings")
		}
	}
}

// TestParallelInterrupted: a cancelled parallel run stops and says so.
func TestParallelInterrupted(t *testing.T) {
	spec, text := sgemmSpec(t, 64)
	prog, _, _ := Compile("sgemm.ptx", text)
	l, err := Prepare(prog, spec)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, rep, err := l.RunWith(ctx, RunOptions{Parallel: true, Workers: 2})
	if err == nil || res.Status != StatusInterrupted || rep.Parallel {
		t.Errorf("cancelled: %v %s %s", err, res.Status, rep)
	}
}

// TestParallelSGEMM: the SGEMM launch of BenchmarkParallelSGEMM runs in
// parallel with the sequential output, checker on.
func TestParallelSGEMM(t *testing.T) {
	spec, text := sgemmSpec(t, 64)
	prog, _, _ := Compile("sgemm.ptx", text)
	for _, rep := range sameParallel(t, prog, spec, RunOptions{Check: true, Analyze: true}, 2, 3) {
		wantParallel(t, rep, "")
	}
}

// TestParallelGallery: every gallery example prints the same in parallel
// as sequentially (checker on, as ptxplay run runs them, and off with the
// memory analysis).
func TestParallelGallery(t *testing.T) {
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
			text, _ := gallerySource(t, dir, spec)
			prog := compileLaunchTest(t, string(text))
			for _, opt := range []RunOptions{{Check: true}, {Analyze: true}} {
				for _, rep := range sameParallel(t, prog, spec, opt, 2, 4) {
					t.Logf("%+v: %s", opt, rep)
				}
			}
		})
	}
	if n < 5 {
		t.Fatalf("only %d gallery specs found in %s", n, dir)
	}
}

// TestParallelCorpus: every corpus kernel that launches (with its inferred
// spec, as TestInferCorpus runs it) prints the same in parallel.
func TestParallelCorpus(t *testing.T) {
	kernels, parallel := 0, 0
	reasons := map[string]int{}
	corpusKernels(t, func(path string, p *emu.Program, entry string, s *Spec) {
		if _, err := Prepare(p, s); err != nil {
			return
		}
		kernels++
		// The inferred grid (one CTA), and eight times the grid and the
		// buffers (inference gives one element per thread).
		wide := *s
		wide.Grid[0] *= 8
		wide.Buffers = append([]Buffer(nil), s.Buffers...)
		for i := range wide.Buffers {
			wide.Buffers[i].Count *= 8
		}
		t.Run(filepath.Base(path)+"/"+entry, func(t *testing.T) {
			for _, spec := range []*Spec{s, &wide} {
				for _, rep := range sameParallel(t, p, spec, RunOptions{Check: true}, 2, 4) {
					if rep.Parallel {
						parallel++
					}
					reasons[rep.Reason]++
				}
			}
		})
	})
	t.Logf("%d kernels; %d of their parallel runs ran in parallel; the others ran sequentially because: %v", kernels, parallel, reasons)
	if kernels == 0 {
		t.Error("no corpus kernel launches")
	}
}

// TestGuidedBounds: the plan covers every wave once, in at least one
// segment per worker and at most the most asked for, that never grow (but
// for equal ones, when few are allowed), and ends with single waves where
// the count allows.
func TestGuidedBounds(t *testing.T) {
	for _, c := range []struct {
		waves, workers, most int
		want                 string
	}{
		{64, 2, 64, "[0 16 28 37 44 49 53 56 58 60 61 62 63 64]"},
		{64, 2, 5, "[0 16 28 40 52 64]"},
		{5, 4, 4, "[0 1 2 3 5]"},
		{2, 2, 2, "[0 1 2]"},
		{3, 2, 64, "[0 1 2 3]"},
		{9, 8, 9, "[0 1 2 3 4 5 6 7 8 9]"},
		{100, 7, 7, "[0 15 30 45 60 75 90 100]"},
		{1000, 16, 64, ""},
		{1 << 20, 3, 64, ""},
		{1 << 30, 64, 64, ""},
	} {
		b := guidedBounds(c.waves, c.workers, c.most)
		if c.want != "" && fmt.Sprint(b) != c.want {
			t.Errorf("%d waves, %d workers, at most %d segments: %v, want %s", c.waves, c.workers, c.most, b, c.want)
		}
		n := len(b) - 1
		if b[0] != 0 || b[n] != c.waves || n > c.most || n < c.workers {
			t.Errorf("%d waves, %d workers, at most %d: %d segments %v", c.waves, c.workers, c.most, n, b)
			continue
		}
		even := n == c.workers
		for k := 1; k <= n; k++ {
			if b[k] <= b[k-1] || !even && k > 1 && b[k]-b[k-1] > b[k-1]-b[k-2] {
				t.Errorf("%d waves, %d workers: segment %d of %v is empty or longer than the one before", c.waves, c.workers, k-1, b)
			}
		}
	}
}

// TestParallelHopperHints: griddepcontrol (a no-op for a single launch),
// setmaxnreg and fences do not make a launch run sequentially.
func TestParallelHopperHints(t *testing.T) {
	src := ".version 8.0\n.target sm_90a\n.address_size 64\n" + `.visible .entry k(.param .u64 out) {
	.reg .u32 %r<4>; .reg .u64 %rd<4>;
	griddepcontrol.wait;
	setmaxnreg.dec.sync.aligned.u32 40;
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, %ctaid.x;
	mov.u32 %r2, %tid.x;
	mad.lo.u32 %r3, %r1, 128, %r2;
	mul.wide.u32 %rd2, %r3, 4;
	add.u64 %rd3, %rd1, %rd2;
	fence.proxy.async.global;
	st.global.u32 [%rd3], %r3;
	fence.acq_rel.gpu;
	griddepcontrol.launch_dependents;
	ret;
}`
	prog, spec := parallelSpec(t, src, `"grid": [16], "block": [128],
		"buffers": [{"name": "out", "type": "u32", "count": 2048}], "params": [{"buffer": "out"}]`)
	for _, rep := range sameParallel(t, prog, spec, RunOptions{Check: true}, 2, 4) {
		wantParallel(t, rep, "")
	}
}

// exchangeSrc: each thread stores its value in shared memory and, after
// bar.warp.sync, reads the one at its word's offset xor the parameter x:
// x = 4, its neighbour lane's (a warp-synchronous exchange the checker
// proper accepts and the phase filter suspects); x = 128, a lane's of the
// other warp (a race). Only CTA %ctaid.x == suspectCTA exchanges when
// suspectCTA >= 0; the others store their own value.
const exchangeSrc = header + `.visible .entry k(.param .u64 out, .param .u32 suspectCTA, .param .u32 x) {
	.shared .align 4 .u32 sm[64];
	.reg .u32 %r<12>; .reg .u64 %rd<4>; .reg .pred %p<3>;
	ld.param.u64 %rd1, [out];
	ld.param.u32 %r9, [suspectCTA];
	ld.param.u32 %r10, [x];
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, %ctaid.x;
	mad.lo.u32 %r3, %r2, 64, %r1;
	mov.u32 %r4, sm;
	shl.b32 %r5, %r1, 2;
	mul.lo.u32 %r6, %r3, 7;
	add.u32 %r11, %r4, %r5;
	st.shared.u32 [%r11], %r6;
	setp.lt.s32 %p1, %r9, 0;
	setp.eq.u32 %p2, %r2, %r9;
	or.pred %p1, %p1, %p2;
	@!%p1 bra STORE;
	bar.warp.sync 0xffffffff;
	xor.b32 %r7, %r5, %r10;
	add.u32 %r7, %r4, %r7;
	ld.shared.u32 %r6, [%r7];
	bar.warp.sync 0xffffffff;
STORE:
	mul.wide.u32 %rd2, %r3, 4;
	add.u64 %rd3, %rd1, %rd2;
	st.global.u32 [%rd3], %r6;
	ret;
}`

// TestParallelSharedFilter: with the checker, the segments of a kernel the
// shared-memory phase filter can follow run with it, and a segment it
// suspects runs again with the checker proper (whose warnings, for a
// race, send the launch to the sequential run); the output is the
// sequential run's, with and without the filter, and the memory analysis
// is the same.
func TestParallelSharedFilter(t *testing.T) {
	spec, text := sgemmSpec(t, 64)
	sgemm, _, _ := Compile("sgemm.ptx", text)
	type tcase struct {
		name      string
		prog      *emu.Program
		spec      *Spec
		rechecked func(segments int) int // -1: the launch runs sequentially
	}
	cases := []tcase{{"sgemm", sgemm, spec, func(int) int { return 0 }}}
	for _, c := range []struct{ sus, x, rechecked int }{{-1, 4, 4}, {5, 4, 1}, {5, 128, -1}} {
		prog, spec := parallelSpec(t, exchangeSrc, fmt.Sprintf(`"grid": [16], "block": [64],
			"buffers": [{"name": "out", "type": "u32", "count": 1024}],
			"params": [{"buffer": "out"}, {"u32": %d}, {"u32": %d}]`, uint32(c.sus), c.x))
		rechecked := func(segments int) int { return min(c.rechecked, segments) }
		cases = append(cases, tcase{fmt.Sprintf("exchange CTA %d xor %d", c.sus, c.x), prog, spec, rechecked})
	}
	for _, tc := range cases {
		for _, opt := range []RunOptions{{Check: true}, {Check: true, Analyze: true}} {
			plain := opt
			plain.NoFilter = true
			want, _ := parallelOutput(t, tc.prog, tc.spec, plain, 0)
			for _, w := range []int{2, 4} {
				for _, o := range []RunOptions{opt, plain} {
					got, rep := parallelOutput(t, tc.prog, tc.spec, o, w)
					if got != want {
						t.Errorf("%s, %+v, %d workers (%s): the output differs from the sequential run's without the filter\nsequential:\n%s\nparallel:\n%s", tc.name, o, w, rep, clip(want), clip(got))
					}
					filtered, rechecked := rep.Segments, tc.rechecked(rep.Segments)
					if rechecked < 0 {
						wantParallel(t, rep, "the race and memory checker has warnings")
						continue
					}
					wantParallel(t, rep, "")
					if o.NoFilter {
						filtered, rechecked = 0, 0
					}
					if rep.Filtered != filtered || rep.Rechecked != rechecked {
						t.Errorf("%s, %+v, %d workers: %s; want %d segments filtered, %d checked again", tc.name, o, w, rep, filtered, rechecked)
					}
				}
			}
		}
	}
}
