package sessions

import (
	"strings"
	"testing"
)

// galleryExample returns the gallery example called name.
func galleryExample(t *testing.T, name string) example {
	t.Helper()
	for _, ex := range galleryExamples(t) {
		if ex.name == name {
			return ex
		}
	}
	t.Fatalf("no gallery example %q", name)
	return example{}
}

// lineOf returns the 1-based line of src holding text (which must be
// unique).
func lineOf(t *testing.T, src, text string) int {
	t.Helper()
	if strings.Count(src, text) != 1 {
		t.Fatalf("%q occurs %d times", text, strings.Count(src, text))
	}
	return strings.Count(src[:strings.Index(src, text)], "\n") + 1
}

func lineMemAt(t *testing.T, st stateMsg, line int) lineMemJSON {
	t.Helper()
	if st.LineMemory == nil {
		t.Fatalf("state at step %d has no lineMemory", st.Step)
	}
	for _, l := range *st.LineMemory {
		if l.Line == line {
			return l
		}
	}
	t.Fatalf("no lineMemory entry for line %d in %+v", line, *st.LineMemory)
	return lineMemJSON{}
}

// TestLineMemoryTranspose: after the whole transpose, the column read of
// the 32x32 tile is a 32-way bank conflict; with the padded and the
// swizzled tile it is conflict-free. The row stores are conflict-free in
// all three, and the global loads and stores fully coalesced.
func TestLineMemoryTranspose(t *testing.T) {
	for _, tc := range []struct {
		example, column string
		degree          int64
	}{
		{"transpose", "ld.shared.f32 %f1, [%r12];          // 32-way bank conflict", 32},
		{"transpose-padded", "ld.shared.f32 %f1, [%r12];          // 32 different banks: no conflict", 1},
		{"transpose-swizzled", "ld.shared.f32 %f1, [%r12];          // bank col ^ tx: 32 different banks, no conflict", 1},
	} {
		t.Run(tc.example, func(t *testing.T) {
			ex := galleryExample(t, tc.example)
			c := newClient(t, newManager(t, Limits{}))
			c.load(ex.src, ex.spec)
			c.send(map[string]any{"type": "run"})
			st, _ := c.state()
			if st.Status != "done" {
				t.Fatalf("status %s", st.Status)
			}
			// One 32x32 tile, 8 warps, 4 iterations each: 32 executions.
			col := lineMemAt(t, st, lineOf(t, ex.src, tc.column))
			if !col.Shared || col.Global || col.Executions != 32 || col.IdealWavefronts != 32 || col.Wavefronts != 32*tc.degree {
				t.Errorf("column read: %+v, want 32 executions, %d wavefronts for an ideal 32", col, 32*tc.degree)
			}
			for _, l := range *st.LineMemory {
				switch {
				case l.Line == col.Line:
				case l.Shared:
					if l.Executions != 32 || l.Wavefronts != 32 || l.IdealWavefronts != 32 {
						t.Errorf("shared line %d: %+v, want conflict-free", l.Line, l)
					}
				case l.Global:
					// 32 lanes × 4 bytes, 4 sectors of one line per access.
					if l.Executions != 32 || l.Sectors != 4*32 || l.Lines != 32 || l.BytesRequested != 128*32 {
						t.Errorf("global line %d: %+v, want coalesced", l.Line, l)
					}
				}
			}
		})
	}
}

// TestLineMemoryCoalescing: the coalescing example's two loops load and
// store the same floats; the coalesced loop needs 4 sectors per warp
// access (100%), the strided one 32 (12.5%).
func TestLineMemoryCoalescing(t *testing.T) {
	ex := galleryExample(t, "coalescing")
	c := newClient(t, newManager(t, Limits{}))
	c.load(ex.src, ex.spec)
	c.send(map[string]any{"type": "run"})
	st, _ := c.state()
	if st.Status != "done" {
		t.Fatalf("status %s", st.Status)
	}
	// 64 threads, 2 warps, 8 iterations: 16 warp accesses per line.
	for _, tc := range []struct {
		text                    string
		sectors, lines, percent int64
	}{
		{"ld.global.f32 %f1, [%rd5];", 4, 1, 100},
		{"st.global.f32 [%rd6], %f2;", 4, 1, 100},
		{"ld.global.f32 %f1, [%rd8];", 32, 8, 12},
		{"st.global.f32 [%rd9], %f2;", 32, 8, 12},
	} {
		l := lineMemAt(t, st, lineOf(t, ex.src, tc.text))
		if !l.Global || l.Shared || l.Executions != 16 || l.Sectors != 16*tc.sectors || l.Lines != 16*tc.lines || l.BytesRequested != 16*128 {
			t.Errorf("%s: %+v, want 16 executions of %d sectors, %d lines, 128 bytes", tc.text, l, tc.sectors, tc.lines)
		}
		if got := 100 * l.BytesRequested / (l.Sectors * 32); got != tc.percent {
			t.Errorf("%s: %d%% efficient, want %d%%", tc.text, got, tc.percent)
		}
	}
	if n := len(*st.LineMemory); n != 4 {
		t.Errorf("%d lines with memory accesses, want 4: %+v", n, *st.LineMemory)
	}
}

// TestLineMemoryDeltas: a delta carries lineMemory only when it changed;
// back and seek bring the earlier table back; a reset clears it.
func TestLineMemoryDeltas(t *testing.T) {
	ex := galleryExample(t, "coalescing")
	c := newClient(t, newManager(t, Limits{}))
	st := c.load(ex.src, ex.spec)
	if st.LineMemory == nil || len(*st.LineMemory) != 0 {
		t.Fatalf("loaded state: lineMemory %v, want []", st.LineMemory)
	}
	// The four ld.param/mov of warp 0 and warp 1, then the first loads.
	var withMem, without int
	var tables [][]lineMemJSON
	for i := 0; i < 30; i++ {
		st = c.step("warp", 1)
		if st.LineMemory != nil {
			withMem++
			tables = append(tables, *st.LineMemory)
		} else {
			without++
		}
	}
	if withMem == 0 || without == 0 {
		t.Fatalf("%d deltas with lineMemory, %d without", withMem, without)
	}
	for i := 1; i < len(tables); i++ {
		if equalLineMem(tables[i], tables[i-1]) {
			t.Errorf("delta %d repeats an unchanged table", i)
		}
	}
	last := tables[len(tables)-1]
	c.send(map[string]any{"type": "seek", "step": 0})
	st, _ = c.state()
	if !st.Full || st.LineMemory == nil || len(*st.LineMemory) != 0 {
		t.Fatalf("seek 0: lineMemory %v", st.LineMemory)
	}
	c.send(map[string]any{"type": "seek", "step": 30})
	st, _ = c.state()
	if st.LineMemory == nil || !equalLineMem(*st.LineMemory, last) {
		t.Fatalf("seek 30: lineMemory %v, want %v", st.LineMemory, last)
	}
	c.send(map[string]any{"type": "reset"})
	st, _ = c.state()
	if st.LineMemory == nil || len(*st.LineMemory) != 0 {
		t.Fatalf("reset: lineMemory %v", st.LineMemory)
	}
}

func equalLineMem(a, b []lineMemJSON) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestLineMemoryExact: over random steps, runs, back and seek, with a
// history budget small enough that it drops its start, every state's
// per-line memory analysis (merged as the client merges it) equals what
// an aggregator computes over a fresh run to the same step.
func TestLineMemoryExact(t *testing.T) {
	dropped := false
	for i, name := range []string{"transpose", "coalescing", "histogram", "cp-async", "mini-gemm"} {
		t.Run(name, func(t *testing.T) {
			ex := galleryExample(t, name)
			first := runModelSequenceLimits(t, ex, int64(100+i), 150, Limits{MaxWarpInstructions: 5000, MaxHistoryBytes: 96 << 10})
			t.Logf("firstStep reached %d", first)
			dropped = dropped || first > 0
		})
	}
	if !dropped {
		t.Errorf("the history never dropped its start: the budget does not test restoring the sums past it")
	}
}
