package web

import (
	"context"
	"strings"
	"testing"

	"github.com/ptxplayground/ptxplay/engine/launch"
)

// runExampleSource runs an example's launch on src (its source, possibly
// edited) under the scheduling model sched, bounded to limit warp
// instructions.
func runExampleSource(t *testing.T, e *Example, src, sched string, limit int64) *launch.Result {
	t.Helper()
	spec, err := e.Launch()
	if err != nil {
		t.Fatal(err)
	}
	spec.Scheduling = sched
	spec.MaxWarpInstructions = limit
	prog, _, diags := launch.Compile(e.File, []byte(src))
	if prog == nil {
		t.Fatalf("compile: %v", diags)
	}
	l, err := launch.Prepare(prog, spec)
	if err != nil {
		t.Fatal(err)
	}
	res, err := l.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// lessonHolds reports whether res is a completed launch with every buffer
// the lesson states.
func lessonHolds(t *testing.T, e *Example, res *launch.Result) bool {
	t.Helper()
	if res.Status != launch.StatusOK {
		return false
	}
	for _, x := range e.Lesson.Expect.Buffers {
		if len(expectDiffs(t, res, x)) > 0 {
			return false
		}
	}
	return true
}

// The TMA pipeline's result depends on every mbarrier wait: with any one
// try_wait loop deleted from the source (the wait and the branch that
// repeats it), the launch no longer produces the lesson's result — it
// faults, deadlocks or sums the wrong data — in both scheduling models.
func TestLessonTMAPipelineNeedsEveryWait(t *testing.T) {
	e := BuiltinExamples().Get("tma-pipeline")
	if e == nil || e.Lesson == nil {
		t.Fatal("no tma-pipeline lesson")
	}
	lines := strings.Split(e.Source, "\n")
	var waits []int
	for i, l := range lines {
		if strings.Contains(l, "mbarrier.try_wait") {
			waits = append(waits, i)
		}
	}
	if len(waits) != 2 {
		t.Fatalf("%d try_wait lines, want the producer's and the consumer's", len(waits))
	}
	for _, sched := range []string{"independent", "simt-stack"} {
		if res := runExampleSource(t, e, e.Source, sched, 100000); !lessonHolds(t, e, res) {
			t.Fatalf("%s: the lesson's own kernel: %s %+v", sched, res.Status, res.Fault)
		}
		for _, w := range waits {
			if !strings.HasPrefix(strings.TrimSpace(lines[w+1]), "@!%p4 bra WAIT_") {
				t.Fatalf("line %d: the wait is not followed by its retry branch: %q", w+2, lines[w+1])
			}
			edited := strings.Join(append(append([]string{}, lines[:w]...), lines[w+2:]...), "\n")
			res := runExampleSource(t, e, edited, sched, 100000)
			if lessonHolds(t, e, res) {
				t.Errorf("%s: without the wait on line %d (%s) the pipeline still gives the lesson's result", sched, w+1, strings.TrimSpace(lines[w]))
			}
			msg := res.Message
			if res.Fault != nil {
				msg = res.Fault.Kind + ": " + res.Fault.Message
			}
			t.Logf("%s, line %d deleted: %s %s", sched, w+1, res.Status, msg)
		}
	}
}
