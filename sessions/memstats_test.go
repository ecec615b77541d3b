package sessions

import (
	"encoding/json"
	"slices"
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

func lineMemAt(t *testing.T, table []lineMemJSON, line int) lineMemJSON {
	t.Helper()
	for _, l := range table {
		if l.Line == line {
			return l
		}
	}
	t.Fatalf("no lineMemory entry for line %d in %+v", line, table)
	return lineMemJSON{}
}

// loadRun loads a program and runs it to its end, returning the final
// state and the per-line table the client holds.
func (c *client) loadRun(src, spec string) (stateMsg, []lineMemJSON) {
	c.t.Helper()
	c.send(map[string]any{"type": "load", "id": 1, "source": src, "spec": json.RawMessage(spec)})
	c.expect("diagnostics")
	c.expect("loaded")
	var held []lineMemJSON
	c.readLineMem(&held)
	c.send(map[string]any{"type": "run"})
	st, _ := c.readLineMem(&held)
	return st, held
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
			st, table := c.loadRun(ex.src, ex.spec)
			if st.Status != "done" {
				t.Fatalf("status %s", st.Status)
			}
			// One 32x32 tile, 8 warps, 4 iterations each: 32 executions.
			col := lineMemAt(t, table, lineOf(t, ex.src, tc.column))
			if !col.Shared || col.Global || col.Executions != 32 || col.IdealWavefronts != 32 || col.Wavefronts != 32*tc.degree {
				t.Errorf("column read: %+v, want 32 executions, %d wavefronts for an ideal 32", col, 32*tc.degree)
			}
			for _, l := range table {
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
	st, table := c.loadRun(ex.src, ex.spec)
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
		l := lineMemAt(t, table, lineOf(t, ex.src, tc.text))
		if !l.Global || l.Shared || l.Executions != 16 || l.Sectors != 16*tc.sectors || l.Lines != 16*tc.lines || l.BytesRequested != 16*128 {
			t.Errorf("%s: %+v, want 16 executions of %d sectors, %d lines, 128 bytes", tc.text, l, tc.sectors, tc.lines)
		}
		if got := 100 * l.BytesRequested / (l.Sectors * 32); got != tc.percent {
			t.Errorf("%s: %d%% efficient, want %d%%", tc.text, got, tc.percent)
		}
	}
	if n := len(table); n != 4 {
		t.Errorf("%d lines with memory accesses, want 4: %+v", n, table)
	}
}

// TestLineMemoryDeltas: the first state of a launch carries the whole
// table (empty); later states carry only the lines that changed (none
// when nothing did), back and seek bring the earlier table back through
// deltas (lines that go back to zero removed), and a reset sends a whole
// table again.
func TestLineMemoryDeltas(t *testing.T) {
	ex := galleryExample(t, "coalescing")
	c := newClient(t, newManager(t, Limits{}))
	st := c.load(ex.src, ex.spec)
	if st.LineMemory == nil || len(*st.LineMemory) != 0 || st.LineMemoryDelta != nil {
		t.Fatalf("loaded state: lineMemory %v, delta %v, want [] and none", st.LineMemory, st.LineMemoryDelta)
	}
	held := []lineMemJSON{}
	// The four ld.param/mov of warp 0 and warp 1, then the first loads.
	var withMem, without int
	var tables [][]lineMemJSON
	for i := 0; i < 30; i++ {
		st = c.step("warp", 1)
		if st.LineMemory != nil {
			t.Fatalf("step %d: a whole table after the first state", st.Step)
		}
		if st.LineMemoryDelta != nil {
			withMem++
			if len(st.LineMemoryDelta) != 1 {
				t.Errorf("step %d: one warp-instruction changed %d lines: %+v", st.Step, len(st.LineMemoryDelta), st.LineMemoryDelta)
			}
			held = applyLineMem(held, st.LineMemoryDelta)
			tables = append(tables, held)
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
	if !st.Full || st.LineMemory != nil || len(st.LineMemoryDelta) != len(last) {
		t.Fatalf("seek 0: lineMemory %v, delta %+v, want %d removals", st.LineMemory, st.LineMemoryDelta, len(last))
	}
	for _, e := range st.LineMemoryDelta {
		if e != (lineMemJSON{Line: e.Line}) {
			t.Errorf("seek 0: %+v is not a removal", e)
		}
	}
	held = applyLineMem(held, st.LineMemoryDelta)
	if len(held) != 0 {
		t.Fatalf("seek 0: table %+v after the delta", held)
	}
	c.send(map[string]any{"type": "seek", "step": 30})
	st, _ = c.state()
	held = applyLineMem(held, st.LineMemoryDelta)
	if !equalLineMem(held, last) {
		t.Fatalf("seek 30: table %v, want %v", held, last)
	}
	c.send(map[string]any{"type": "seek", "step": 30})
	if st, _ = c.state(); st.LineMemory != nil || st.LineMemoryDelta != nil {
		t.Fatalf("seek to the same step: lineMemory %v, delta %v, want none", st.LineMemory, st.LineMemoryDelta)
	}
	c.send(map[string]any{"type": "reset"})
	st, _ = c.state()
	if st.LineMemory == nil || len(*st.LineMemory) != 0 {
		t.Fatalf("reset: lineMemory %v", st.LineMemory)
	}
}

// applyLineMem applies an update to a table as ui/model.ts does: each
// entry replaces its line's, one with no executions removes the line.
func applyLineMem(t, upd []lineMemJSON) []lineMemJSON {
	byLine := make(map[int]lineMemJSON, len(t)+len(upd))
	for _, e := range t {
		byLine[e.Line] = e
	}
	for _, e := range upd {
		if e.Executions == 0 {
			delete(byLine, e.Line)
		} else {
			byLine[e.Line] = e
		}
	}
	out := make([]lineMemJSON, 0, len(byLine))
	for _, e := range byLine {
		out = append(out, e)
	}
	slices.SortFunc(out, func(x, y lineMemJSON) int { return x.Line - y.Line })
	return out
}

// manyLinesPTX is a kernel of n lines that each load from global memory,
// one thread: after n steps the per-line table has n entries.
func manyLinesPTX(n int) string {
	var b strings.Builder
	b.WriteString(hdr + ".visible .entry many(.param .u64 in) {\n\t.reg .u32 %r<2>; .reg .u64 %rd<2>;\n\tld.param.u64 %rd1, [in];\n")
	for range n {
		b.WriteString("\tld.global.u32 %r1, [%rd1];\n")
	}
	b.WriteString("\tret;\n}\n")
	return b.String()
}

const manyLinesSpec = `{"grid":[1],"block":[1],"buffers":[{"name":"in","type":"u32","count":1}],"params":[{"buffer":"in"}]}`

// TestLineMemoryStepReplySmall: on a kernel whose table has 20,000 lines,
// a one-instruction step replies with the one line it changed, not the
// table; moving far back and forth sends the changed lines in messages
// of bounded size, and the table the client rebuilds is the fresh one.
func TestLineMemoryStepReplySmall(t *testing.T) {
	const n = 20000
	c := newClient(t, newManager(t, Limits{}))
	c.load(manyLinesPTX(n), manyLinesSpec)
	held := []lineMemJSON{}
	readUpdate := func() (stateMsg, int) { return c.readLineMem(&held) }
	// ld.param, then the n loads.
	for _, k := range []int{10000, n - 10000, 1} {
		c.send(map[string]any{"type": "step", "granularity": "warp", "count": k})
		if _, largest := readUpdate(); largest > 2<<20 {
			t.Errorf("a %d-instruction step sent a message of %d bytes", k, largest)
		}
	}
	if len(held) != n {
		t.Fatalf("after %d steps the client holds %d lines, want %d", n+1, len(held), n)
	}
	c.send(map[string]any{"type": "seek", "step": n - 10})
	readUpdate()
	c.send(map[string]any{"type": "step", "granularity": "warp", "count": 1})
	st, size := readUpdate()
	if size > 8<<10 {
		t.Errorf("a one-instruction step on a %d-line table replied %d bytes (lineMemory %d lines, delta %d)", n, size, lenOr(st.LineMemory), len(st.LineMemoryDelta))
	}
	if len(st.LineMemoryDelta) != 1 {
		t.Errorf("the step's delta has %d lines, want 1", len(st.LineMemoryDelta))
	}
	// Back to the start and forward to the end: every line changes.
	for _, k := range []int{1, n + 1, 3} {
		c.send(map[string]any{"type": "seek", "step": k})
		st, largest := readUpdate()
		if largest > 2<<20 {
			t.Errorf("seek %d: a message of %d bytes", k, largest)
		}
		var fresh []lineMemJSON
		c.do(func() { fresh = c.s.lineMemory() })
		if st.Step != int64(k) || !equalLineMem(held, fresh) {
			t.Fatalf("seek %d (at %d): the client holds %d lines, the machine has %d", k, st.Step, len(held), len(fresh))
		}
	}
}

// readLineMem reads the reply of a command, up to its final state and
// the line-memory messages that complete it, merging the per-line memory
// updates into held as a client does. It returns the final state and the
// size of the largest message.
func (c *client) readLineMem(held *[]lineMemJSON) (stateMsg, int) {
	c.t.Helper()
	var st stateMsg
	largest, final := 0, false
	for {
		typ, b := c.next()
		largest = max(largest, len(b))
		switch typ {
		case "state":
			st = stateMsg{}
			if err := json.Unmarshal(b, &st); err != nil {
				c.t.Fatal(err)
			}
			if st.LineMemory != nil {
				*held = *st.LineMemory
			}
			*held = applyLineMem(*held, st.LineMemoryDelta)
		case "line-memory":
			var lm lineMemoryMsg
			if err := json.Unmarshal(b, &lm); err != nil {
				c.t.Fatal(err)
			}
			*held = applyLineMem(*held, lm.Delta)
		case "done":
		default:
			c.t.Fatalf("unexpected %s", trunc(b))
		}
		final = final || (typ == "state" && !st.Running)
		if !final {
			continue
		}
		// The messages that complete the state are queued with it.
		c.do(func() {})
		c.s.out.mu.Lock()
		more := len(c.s.out.q) > 0
		c.s.out.mu.Unlock()
		if !more {
			return st, largest
		}
	}
}

func lenOr(p *[]lineMemJSON) int {
	if p == nil {
		return 0
	}
	return len(*p)
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
