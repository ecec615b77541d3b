package launch

import (
	"strings"
	"testing"
)

// A parallel run uses at most parallelMaxSegments workers and segments,
// however many are asked for, and says so: 1024 workers made 1024
// segments (and machines).
func TestParallelWorkersCapped(t *testing.T) {
	prog, spec := parallelSpec(t, scaleSrc, `"grid": [4096], "block": [32],
		"buffers": [{"name": "in", "type": "u32", "count": 131072, "init": {"iota": {}}}, {"name": "out", "type": "u32", "count": 131072}],
		"params": [{"buffer": "in"}, {"buffer": "out"}, {"u32": 131072}]`)
	l, err := Prepare(prog, spec)
	if err != nil {
		t.Fatal(err)
	}
	segs, workers, reason := l.planSegments(1024)
	if reason != "" || workers > parallelMaxSegments || len(segs) > parallelMaxSegments || workers < 2 {
		t.Fatalf("plan for 1024 workers: %d segments on %d workers (%q); at most %d", len(segs), workers, reason, parallelMaxSegments)
	}
	reps := sameParallel(t, prog, spec, RunOptions{}, 1024)
	rep := reps[0]
	wantParallel(t, rep, "")
	if rep.Workers > parallelMaxSegments || rep.Segments > parallelMaxSegments || !strings.Contains(rep.Note, "at most 64") {
		t.Fatalf("report %s, note %q", rep, rep.Note)
	}
	// Within the cap, no note.
	if reps := sameParallel(t, prog, spec, RunOptions{}, 3); reps[0].Note != "" {
		t.Fatalf("note %q for 3 workers", reps[0].Note)
	}
}

// The workers' machines count against the parallel run's memory budget,
// not only their copies of global memory: a kernel whose resident CTAs
// hold 64 MiB of .local memory gets as many workers as fit 2 GiB together.
func TestParallelWorkersMemoryBudget(t *testing.T) {
	src := header + `.visible .entry k(.param .u64 out) {
	.local .align 4 .b8 buf[16384];
	.reg .u32 %r<3>; .reg .u64 %rd<4>;
	mov.u32 %r1, %tid.x;
	st.local.u32 [buf], %r1;
	ld.local.u32 %r2, [buf];
	ld.param.u64 %rd1, [out];
	mul.wide.u32 %rd2, %r1, 4;
	add.u64 %rd3, %rd1, %rd2;
	st.global.u32 [%rd3], %r2;
	ret;
}`
	prog, spec := parallelSpec(t, src, `"grid": [1024], "block": [1024],
		"buffers": [{"name": "out", "type": "u32", "count": 1024}], "params": [{"buffer": "out"}]`)
	l, err := Prepare(prog, spec)
	if err != nil {
		t.Fatal(err)
	}
	per := l.workerBytes()
	if state := l.m.FixedStateBytes(); state < 64<<20 || per < state+GlobalBytes(prog, spec) {
		t.Fatalf("worker: %d bytes, machine state %d", per, state)
	}
	segs, workers, reason := l.planSegments(64)
	if reason != "" || workers < 2 || int64(workers)*per > parallelMemoryBudget {
		t.Fatalf("plan for 64 workers: %d segments on %d workers of %d bytes each (%q); budget %d", len(segs), workers, per, reason, parallelMemoryBudget)
	}
	if note := l.workersNote(64); !strings.Contains(note, "memory budget") {
		t.Fatalf("note %q", note)
	}
	// Workers that do not fit twice run sequentially, and the report says why.
	prog, spec = parallelSpec(t, strings.Replace(src, "buf[16384]", "buf[400000]", 1), `"grid": [64], "block": [1024],
		"buffers": [{"name": "out", "type": "u32", "count": 1024}], "params": [{"buffer": "out"}]`)
	if l, err = Prepare(prog, spec); err != nil {
		t.Fatal(err)
	}
	if _, _, reason := l.planSegments(8); !strings.Contains(reason, "memory budget") {
		t.Fatalf("reason %q", reason)
	}
}
