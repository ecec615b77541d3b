package sessions

import (
	"fmt"
	"testing"
)

// TestLongRunsHistoryExact: long runs and warp steps (the machine issues
// them in batches, its observers called only for memory instructions,
// events and changes of active lanes) mixed with back, seek, breakpoints,
// resets and the divergence view. After every command the client's model
// (registers, predicates, stacks, memory, the last instruction with its
// accesses, the per-line memory analysis, the divergence data) equals a
// fresh machine stepped one instruction at a time to the same position,
// and the warnings equal a fresh checker's; under both scheduling models,
// with and without a history budget that drops the start.
func TestLongRunsHistoryExact(t *testing.T) {
	exs := []example{
		{"mix", mixPTX, mixSpec},
		{"reduce", reducePTX, reduceSpec},
		{"divergent", divergentPTX, divergentSpec},
	}
	for _, ex := range galleryExamples(t) {
		switch ex.name {
		case "race", "cp-async-missing-wait", "transpose":
			exs = append(exs, ex)
		}
	}
	if len(exs) != 6 {
		t.Fatalf("%d examples", len(exs))
	}
	for i, ex := range exs {
		for _, sched := range []string{"independent", "simt-stack"} {
			for _, budget := range []int64{0, 96 << 10} {
				ex := example{ex.name, ex.src, withScheduling(ex.spec, sched)}
				t.Run(fmt.Sprintf("%s/%s/%d", ex.name, sched, budget), func(t *testing.T) {
					t.Parallel()
					runModelSequenceOpts(t, ex, int64(31+i), 60, Limits{MaxWarpInstructions: 20000, MaxHistoryBytes: budget}, modelOpts{longRuns: true})
				})
			}
		}
	}
}
