package web

import (
	"context"
	"strings"
	"testing"

	"github.com/ptxplayground/ptxplay/engine/analysis"
	"github.com/ptxplayground/ptxplay/engine/launch"
)

// runExampleSource runs an example's launch on src (its source, possibly
// edited) under the scheduling model sched, bounded to limit warp
// instructions.
func runExampleSource(t *testing.T, e *Example, src, sched string, limit int64) *launch.Result {
	t.Helper()
	res, _ := checkExampleSource(t, e, src, sched, limit)
	return res
}

// checkExampleSource is runExampleSource with the race and memory checker
// watching; it returns the checker's warnings too.
func checkExampleSource(t *testing.T, e *Example, src, sched string, limit int64) (*launch.Result, []analysis.Warning) {
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
	chk := l.NewChecker()
	l.Machine().AddObserver(chk)
	res, err := l.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return res, chk.Warnings()
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

// The missing-fence lesson's hint is the fix: the kernel as given draws
// one missing-proxy-fence warning naming its st.shared and its TMA store;
// with fence.proxy.async.shared::cta on its own line where the hint says
// (just before the line it points at) the checker is quiet, and the
// output is the lesson's either way, in both scheduling models.
func TestLessonTMAMissingFenceHint(t *testing.T) {
	e := BuiltinExamples().Get("tma-missing-fence")
	if e == nil || e.Lesson == nil {
		t.Fatal("no tma-missing-fence lesson")
	}
	const fence = "fence.proxy.async.shared::cta;"
	at := 0
	for _, h := range e.Lesson.Hints {
		if strings.Contains(h.Text, fence) {
			at = h.Line
		}
	}
	if at == 0 {
		t.Fatalf("no hint says where %s belongs", fence)
	}
	lines := strings.Split(e.Source, "\n")
	find := func(s string) int {
		for i, l := range lines {
			if strings.Contains(l, s) {
				return i + 1
			}
		}
		t.Fatalf("no line with %q", s)
		return 0
	}
	st, cp := find("st.shared.v4.f32"), find("cp.async.bulk.tensor.2d.global")
	if at <= st || at > cp {
		t.Fatalf("the hint puts the fence before line %d, not between the store (line %d) and the copy (line %d)", at, st, cp)
	}
	fixed := strings.Join(append(append(append([]string{}, lines[:at-1]...), "\t"+fence), lines[at-1:]...), "\n")
	for _, sched := range []string{"independent", "simt-stack"} {
		res, ws := checkExampleSource(t, e, e.Source, sched, 100000)
		if !lessonHolds(t, e, res) {
			t.Errorf("%s: the lesson's kernel: %s %+v", sched, res.Status, res.Fault)
		}
		if len(ws) != 1 || ws[0].Kind != analysis.WarnProxyFence || ws[0].Line != cp || !ws[0].HasPrev() || ws[0].PrevLine != st {
			t.Errorf("%s: warnings %+v, want one %s naming lines %d and %d", sched, ws, analysis.WarnProxyFence, st, cp)
		}
		res, ws = checkExampleSource(t, e, fixed, sched, 100000)
		if !lessonHolds(t, e, res) {
			t.Errorf("%s: with the fence: %s %+v", sched, res.Status, res.Fault)
		}
		if len(ws) != 0 {
			t.Errorf("%s: with the fence before line %d: warnings %+v", sched, at, ws)
		}
	}
}
