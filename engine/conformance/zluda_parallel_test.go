package conformance

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/ptxplayground/ptxplay/engine/launch"
)

// TestZludaParallel runs every case of the ZLUDA conformance suite
// sequentially and with launch.RunOptions.Parallel (two and four workers,
// the checker on as ptxplay run runs it) and compares the whole result
// JSON byte for byte.
func TestZludaParallel(t *testing.T) {
	dir, man := zludaSuite(t)
	reasons := map[string]int{}
	for _, c := range man.Tests {
		text, err := os.ReadFile(filepath.Join(dir, c.File))
		if err != nil {
			t.Fatal(err)
		}
		prog, _, _ := launch.Compile(c.File, text)
		if prog == nil {
			continue
		}
		spec, err := zludaSpec(c, "")
		if err != nil {
			t.Errorf("%s: %v", c.Name, err)
			continue
		}
		run := func(workers int) (string, *launch.ParallelReport, bool) {
			l, err := launch.Prepare(prog, spec)
			if err != nil {
				return "", nil, false
			}
			ctx, cancel := context.WithTimeout(context.Background(), zludaTimeout)
			defer cancel()
			res, rep, err := l.RunWith(ctx, launch.RunOptions{Check: true, Parallel: workers > 0, Workers: workers})
			if err != nil {
				t.Errorf("%s: %v", c.Name, err)
			}
			return string(res.AppendJSON(nil, true)), rep, true
		}
		want, _, ok := run(0)
		if !ok {
			continue
		}
		for _, w := range []int{2, 4} {
			got, rep, _ := run(w)
			reasons[rep.Reason]++
			if got != want {
				t.Errorf("%s, %d workers (%s): the result differs from the sequential run's\nsequential: %s\nparallel: %s", c.Name, w, rep, want, got)
			}
		}
	}
	t.Logf("%d cases; how their parallel runs ran (\"\": in parallel): %v", len(man.Tests), reasons)
}
