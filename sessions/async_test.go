package sessions

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
)

func exampleNamed(t *testing.T, name string) example {
	t.Helper()
	for _, e := range galleryExamples(t) {
		if e.name == name {
			return e
		}
	}
	t.Fatalf("no gallery example %q", name)
	return example{}
}

// lineOf is the 1-based line of src holding text.
func firstLineOf(t *testing.T, src, text string) int {
	t.Helper()
	for i, l := range strings.Split(src, "\n") {
		if strings.Contains(l, text) {
			return i + 1
		}
	}
	t.Fatalf("no line holds %q", text)
	return 0
}

// stepToLine steps warp by warp until the last instruction is on line
// (n times), returning that state.
func stepToLine(t *testing.T, c *client, line, n int) stateMsg {
	t.Helper()
	for i := 0; i < 5000; i++ {
		st := c.step("warp", 1)
		if st.Last != nil && st.Last.Line == line {
			if n--; n == 0 {
				return st
			}
		}
		if st.Status != "paused" {
			t.Fatalf("the launch ended (%s) before line %d", st.Status, line)
		}
	}
	t.Fatalf("line %d never executed", line)
	return stateMsg{}
}

// TestPendingCopiesInState: in the cp-async example, right after the
// prologue's commit every warp reports one committed group of 32 copies
// (512 bytes, 16 per lane, tile 0 into buffer 0) issued by line 57; after
// the first wait_group 1 only the prefetch of tile 1 is in flight; a
// delta clears the report once everything landed; stepping back brings
// the copies back exactly.
func TestPendingCopiesInState(t *testing.T) {
	ex := exampleNamed(t, "cp-async")
	c := newClient(t, newManager(t, Limits{}))
	c.load(ex.src, ex.spec)
	cpLine := firstLineOf(t, ex.src, "cp.async.cg.shared.global [%r6]")
	commitLine := cpLine + 1
	prefetchLine := firstLineOf(t, ex.src, "@%p1 cp.async.cg.shared.global")
	waitLine := firstLineOf(t, ex.src, "cp.async.wait_group 1;")

	// Warp 0 commits first; warp 1 has issued nothing yet.
	st := stepToLine(t, c, commitLine, 1)
	if st.Last.Warp != 0 || len(st.CTAs) != 1 {
		t.Fatalf("after the commit: %+v", st.CTAs)
	}
	var w0 *warpDelta
	for i := range st.CTAs[0].Warps {
		if st.CTAs[0].Warps[i].Warp == 0 {
			w0 = &st.CTAs[0].Warps[i]
		}
	}
	if w0 == nil || w0.Async == nil {
		t.Fatalf("warp 0 reports no copies in flight: %+v", st.CTAs[0].Warps)
	}
	a := w0.Async
	if a.Copies != 32 || a.Bytes != 512 || a.Committed != 1 || a.Open != 0 || len(a.Groups) != 1 || len(a.Items) != 32 || a.More != 0 {
		t.Fatalf("warp 0 in flight: %+v", a)
	}
	g := a.Groups[0]
	if g.Group != 0 || !g.Committed || g.Copies != 32 || g.Bytes != 512 || g.Lanes != "ffffffff" || fmt.Sprint(g.Lines) != fmt.Sprint([]int{cpLine}) {
		t.Fatalf("group %+v", g)
	}
	var inAddr uint64
	c.do(func() {
		for _, al := range c.s.m.Global.Allocs() {
			if al.Name == "in" {
				inAddr = al.Base
			}
		}
	})
	sharedBase := -1
	for _, sym := range mustLoaded(t, c).Symbols {
		if sym.Name == "buf" {
			sharedBase = int(sym.Offset)
		}
	}
	for l, it := range a.Items {
		if it.Lane != l || it.Line != cpLine || it.Size != 16 || it.Group != 0 || !it.Committed ||
			it.Dst != uint64(sharedBase+16*l) || it.Src != hex64(inAddr+uint64(16*l)) {
			t.Fatalf("copy %d: %+v (in at %#x, buf at %d)", l, it, inAddr, sharedBase)
		}
	}
	before := string(encode(a))

	// Warp 1 catches up: warp 0's report does not change, so the delta
	// leaves it out.
	st = c.step("warp", 1)
	for _, cj := range st.CTAs {
		for _, w := range cj.Warps {
			if w.Warp == 0 && w.Async != nil {
				t.Fatalf("unchanged copies sent again: %+v", w.Async)
			}
		}
	}

	// Warp 0 waits: tile 0 lands, tile 1's prefetch (group 1) stays.
	st = stepToLine(t, c, waitLine, 1)
	if st.Last.Warp != 0 {
		t.Fatalf("warp %d waited first", st.Last.Warp)
	}
	w := warpIn(st, 0)
	if w == nil || w.Async == nil || w.Async.Copies != 32 || len(w.Async.Groups) != 1 || w.Async.Groups[0].Group != 1 ||
		!w.Async.Groups[0].Committed || w.Async.Groups[0].Lines[0] != prefetchLine {
		t.Fatalf("after wait_group 1: %+v", w)
	}
	// At the end nothing is in flight: the last trips' waits landed it all.
	c.send(map[string]any{"type": "run"})
	end, _ := c.state()
	c.expect("done")
	_ = end
	c.send(map[string]any{"type": "seek", "step": 0})
	c.state()
	// Back at the commit: the same report as the first time.
	back := stepToLine(t, c, commitLine, 1)
	if w := warpIn(back, 0); w == nil || string(encode(w.Async)) != before {
		t.Fatalf("after seeking and stepping again: %+v, want %s", w, before)
	}
	c.send(map[string]any{"type": "back", "count": 1})
	st, _ = c.state()
	c.send(map[string]any{"type": "step", "granularity": "warp", "count": 1})
	st, _ = c.state()
	if w := warpIn(st, 0); st.Full && (w == nil || string(encode(w.Async)) != before) {
		t.Fatalf("after back and step: %+v", w)
	}
}

// A delta says "nothing in flight any more" with "async": null.
func TestPendingCopiesCleared(t *testing.T) {
	ex := exampleNamed(t, "cp-async-missing-wait")
	c := newClient(t, newManager(t, Limits{}))
	c.load(ex.src, ex.spec)
	commit := firstLineOf(t, ex.src, "\tcp.async.commit_group;")
	st := stepToLine(t, c, commit, 1)
	if w := warpIn(st, st.Last.Warp); w == nil || w.Async == nil || w.Async.Copies == 0 {
		t.Fatalf("after the commit: %+v", w)
	}
	warp := st.Last.Warp
	// The copies land when the thread exits.
	for i := 0; i < 2000; i++ {
		st = c.step("warp", 1)
		if w := warpIn(st, warp); w != nil && w.Async != nil {
			t.Fatalf("copies changed before landing: %+v", w.Async)
		} else if w != nil && w.Cleared("async") {
			return
		}
		if st.Status != "paused" {
			break
		}
	}
	t.Fatal("no delta cleared the copies in flight")
}

func warpIn(st stateMsg, warp int) *warpDelta {
	for _, cj := range st.CTAs {
		for i := range cj.Warps {
			if cj.Warps[i].Warp == warp {
				return &cj.Warps[i]
			}
		}
	}
	return nil
}

func mustLoaded(t *testing.T, c *client) *loadedMsg {
	t.Helper()
	var l loadedMsg
	c.do(func() {
		if err := json.Unmarshal(c.s.loadedMsg(nil, false, nil), &l); err != nil {
			t.Error(err)
		}
	})
	return &l
}

// TestLiveSwizzle: in the transpose example's swizzled kernel every
// warp's column read (lane t reads word t*32 + (col ^ t)) is reported as
// Swizzle<5,2,5> with a logical stride of one 128-byte row, drawn in
// 4-byte cells, one wavefront where the unswizzled column would need 32,
// warp 0's column 0 included: its offsets 132t are also affine, the column
// of a 33-word padded tile, and say so. The row store of row 21 is the same
// pattern with stride 4, row 0's store an affine row. Every shared access
// of the conflicting and padded kernels gets a report too: no pattern
// (their affine form), or for the padded column 0 the same twin.
func TestLiveSwizzle(t *testing.T) {
	ex := exampleNamed(t, "transpose-swizzled")
	c := newClient(t, newManager(t, Limits{}))
	c.load(ex.src, ex.spec)
	read := firstLineOf(t, ex.src, "bank col ^ tx: 32 different banks")
	store := firstLineOf(t, ex.src, "st.shared.f32 [%r12], %f1;          // a row: 32 different banks")
	// Warp 0's first store writes row 0: not moved, an affine row.
	st := stepToLine(t, c, store, 1)
	if sw := st.Last.Swizzle; st.Last.Warp != 0 || sw == nil || sw.Mode != "none" || sw.Affine == nil || sw.Affine.Stride != 4 || sw.Affine.Base != 0 || sw.Wavefronts != 1 || sw.Unit != 4 {
		t.Fatalf("warp %d's row 0 store: %+v", st.Last.Warp, sw)
	}
	// Warp 5's third store writes row 5+16 = 21.
	for n := 0; n < 3; {
		st = stepToLine(t, c, store, 1)
		if st.Last.Warp == 5 {
			n++
		}
	}
	sw := st.Last.Swizzle
	if sw == nil || sw.Name != "Swizzle<5,2,5>" || sw.Mode != "xor" || sw.B != 5 || sw.M != 2 || sw.S != 5 || sw.Stride != 4 || sw.Base != 21*128 || sw.Kind != "store" || sw.Affine != nil {
		t.Fatalf("row store: %+v", sw)
	}
	for i, l := range sw.Lanes {
		if sw.Offsets[i] != uint64(21*128+4*(l^21)) || sw.Logical[i] != uint64(21*128+4*l) {
			t.Fatalf("lane %d: offset %d logical %d", l, sw.Offsets[i], sw.Logical[i])
		}
	}
	// Every column read of every warp: warp w reads columns w, w+8, w+16,
	// w+24 (col = ty + j).
	seen := map[int]bool{}
	for i := 0; i < 5000 && len(seen) < 32; i++ {
		st = c.step("warp", 1)
		if st.Status != "paused" {
			break
		}
		if st.Last == nil || st.Last.Line != read {
			continue
		}
		sw := st.Last.Swizzle
		col := st.Last.Warp + 8*countTrue(seen, st.Last.Warp)
		seen[col] = true
		if sw == nil || sw.Name != "Swizzle<5,2,5>" || sw.Stride != 128 || sw.Base != int64(4*col) || len(sw.Lanes) != 32 || sw.Kind != "load" || sw.Unit != 4 ||
			sw.RowBytes != 128 || sw.TileBase != 0 || sw.Rows != 32 || sw.Wavefronts != 1 || sw.Ideal != 1 || sw.LogicalWavefronts != 32 || sw.Size != 4 {
			t.Fatalf("column %d read by warp %d: %+v", col, st.Last.Warp, sw)
		}
		// Column 0 is word 33t (a 33-word padded tile's column), column 31
		// word 31 + 31t (a 31-word tile's): affine as well.
		twin := map[int]liveAffineJSON{0: {0, 132}, 31: {124, 124}}
		if w, ok := twin[col]; (sw.Affine != nil) != ok || ok && *sw.Affine != w {
			t.Fatalf("column %d: affine %+v", col, sw.Affine)
		}
		for i, l := range sw.Lanes {
			if sw.Offsets[i] != uint64(128*l+4*(col^l)) || sw.Logical[i] != uint64(128*l+4*col) {
				t.Fatalf("column %d lane %d: offset %d logical %d", col, l, sw.Offsets[i], sw.Logical[i])
			}
		}
	}
	if len(seen) != 32 {
		t.Fatalf("%d columns read, want 32", len(seen))
	}
	for _, entry := range []string{"transpose_conflicts", "transpose_padded"} {
		spec := strings.Replace(ex.spec, `"transpose_swizzled"`, fmt.Sprintf("%q", entry), 1)
		c.load(ex.src, spec)
		shared := 0
		for i := 0; i < 3000; i++ {
			st := c.step("warp", 1)
			if sw := st.Last.Swizzle; st.Last != nil && sw != nil {
				shared++
				twin := entry == "transpose_padded" && sw.Affine != nil && sw.Affine.Stride == 132 && sw.Affine.Base == sw.Base && sw.Name == "Swizzle<5,2,5>"
				if sw.Affine == nil || sw.Mode != "none" && !twin {
					t.Fatalf("%s line %d: %+v (affine %+v)", entry, st.Last.Line, sw, sw.Affine)
				}
			}
			if st.Status != "paused" {
				c.expect("done")
				break
			}
		}
		if shared != 64 { // 8 warps, 4 stores and 4 loads each
			t.Fatalf("%s: %d shared accesses reported, want 64", entry, shared)
		}
	}
}

// countTrue counts the columns of warp w already seen (w, w+8, ...).
func countTrue(seen map[int]bool, w int) int {
	n := 0
	for c := w; seen[c]; c += 8 {
		n++
	}
	return n
}

// cpAsyncLoopPTX commits a cp.async group per iteration, forever: every
// warp's copies in flight grow by one group a round.
const cpAsyncLoopPTX = hdr + `.visible .entry k(.param .u64 src) {
	.shared .align 16 .b8 buf[16];
	.reg .b64 %rd<2>;
	.reg .b32 %r<2>;
	ld.param.u64 %rd1, [src];
	mov.u32 %r1, buf;
L:
	cp.async.cg.shared.global [%r1], [%rd1], 16;
	cp.async.commit_group;
	bra L;
}
`

const cpAsyncLoopSpec = `{"grid":[8],"block":[1024],"buffers":[{"name":"src","type":"u8","count":16}],"params":[{"buffer":"src"}]}`

// Every message a run sends, frames included, stays within
// MaxReplyBytes; a warp's async report lists at most 16 groups and counts
// the rest.
func TestRunFramesCapped(t *testing.T) {
	lim := Limits{FrameInterval: time.Millisecond, MaxReplyBytes: 1 << 20, MaxWarpInstructions: 60_000}
	c := newClient(t, newManager(t, lim))
	c.load(cpAsyncLoopPTX, cpAsyncLoopSpec)
	c.send(map[string]any{"type": "run", "id": 2})
	frames := 0
	for {
		typ, b := c.next()
		if len(b) > lim.MaxReplyBytes {
			t.Fatalf("a %s message of %d bytes (limit %d)", typ, len(b), lim.MaxReplyBytes)
		}
		if typ != "state" {
			t.Fatalf("%s during the run: %.300s", typ, b)
		}
		var st stateMsg
		if err := json.Unmarshal(b, &st); err != nil {
			t.Fatal(err)
		}
		if !st.Running {
			// The budget, or the session's state budget (the copies in
			// flight fill it: a memory-limit fault) ends it.
			if st.Reason != "budget" && (st.Fault == nil || st.Fault.Kind != "memory-limit") {
				t.Fatalf("run ended %s/%s", st.Status, st.Reason)
			}
			more := 0
			for _, cta := range st.CTAs {
				for _, w := range cta.Warps {
					if w.Async != nil {
						if len(w.Async.Groups) > maxAsyncGroups {
							t.Fatalf("a warp lists %d groups", len(w.Async.Groups))
						}
						more += w.Async.GroupsMore
					}
				}
			}
			if more == 0 {
				t.Fatal("no groups left out: the test no longer makes many groups")
			}
			break
		}
		frames++
	}
	if frames == 0 {
		t.Fatal("no running frames")
	}
}
