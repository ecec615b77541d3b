package analysis_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/ptxplayground/ptxplay/engine/analysis"
	"github.com/ptxplayground/ptxplay/engine/cuda"
	"github.com/ptxplayground/ptxplay/engine/emu"
	"github.com/ptxplayground/ptxplay/engine/launch"
)

// check runs spec (JSON, with "source" the kernel) with a checker.
func check(t *testing.T, src, spec string) []analysis.Warning {
	t.Helper()
	s, err := launch.ParseSpec([]byte(`{"source": "(below)", ` + spec[1:]))
	if err != nil {
		t.Fatal(err)
	}
	prog, _, _ := launch.Compile("k.ptx", []byte(src))
	if prog == nil {
		t.Fatal("compile failed")
	}
	l, err := launch.Prepare(prog, s)
	if err != nil {
		t.Fatal(err)
	}
	chk := l.NewChecker()
	l.Machine().AddObserver(chk)
	res, err := l.Run(context.Background())
	if err != nil || res.Status != launch.StatusOK {
		t.Fatalf("run: %v %v %+v", res.Status, err, res.Fault)
	}
	return chk.Warnings()
}

// lineOf returns the 1-based line of the first line of src containing s.
func lineOf(t *testing.T, src, s string) int {
	t.Helper()
	for i, l := range strings.Split(src, "\n") {
		if strings.Contains(l, s) {
			return i + 1
		}
	}
	t.Fatalf("no line with %q", s)
	return 0
}

func exampleWarnings(t *testing.T, name string) ([]analysis.Warning, string) {
	t.Helper()
	dir := filepath.Join("..", "..", "web", "examples")
	sb, err := os.ReadFile(filepath.Join(dir, name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	s, err := launch.ParseSpec(sb)
	if err != nil {
		t.Fatal(err)
	}
	text, file := exampleSource(t, dir, name, s)
	prog, _, _ := launch.Compile(file, text)
	l, err := launch.Prepare(prog, s)
	if err != nil {
		t.Fatal(err)
	}
	chk := l.NewChecker()
	l.Machine().AddObserver(chk)
	if res, err := l.Run(context.Background()); err != nil || res.Status != launch.StatusOK {
		t.Fatalf("%s: %v %v", name, res.Status, err)
	}
	return chk.Warnings(), string(text)
}

// galleryExample is one example of the gallery (web/examples) with its PTX.
type galleryExample struct {
	name string // the spec's file name without .json
	spec *launch.Spec
	file string // the PTX's file name (a CUDA twin's: its CUDA file's + ".ptx")
	text []byte
}

var gallery struct {
	once     sync.Once
	exs      []galleryExample
	err      error
	noCUDA   error // clang is missing: the CUDA twins are left out
	failures []string
}

// galleryExamples returns every example of the gallery with its PTX, in
// file-name order; the CUDA twins are compiled once per test process and
// left out (with a log line) where clang is missing.
func galleryExamples(t *testing.T) []galleryExample {
	t.Helper()
	gallery.once.Do(func() {
		dir := filepath.Join("..", "..", "web", "examples")
		entries, _ := filepath.Glob(filepath.Join(dir, "*.json"))
		c := cuda.Default()
		gallery.noCUDA = c.Available()
		for _, e := range entries {
			name := strings.TrimSuffix(filepath.Base(e), ".json")
			if name == "index" {
				continue
			}
			sb, err := os.ReadFile(e)
			if err != nil {
				gallery.err = err
				return
			}
			s, err := launch.ParseSpec(sb)
			if err != nil {
				gallery.err = fmt.Errorf("%s: %v", name, err)
				return
			}
			if s.CUDA == "" {
				text, file, err := s.Load(dir)
				if err != nil {
					gallery.err = err
					return
				}
				gallery.exs = append(gallery.exs, galleryExample{name, s, file, text})
				continue
			}
			if gallery.noCUDA != nil {
				continue
			}
			res, path, err := c.CompileSpec(context.Background(), s, dir)
			if err != nil || !res.OK() {
				gallery.failures = append(gallery.failures, fmt.Sprintf("%s: %v %+v", path, err, res))
				continue
			}
			gallery.exs = append(gallery.exs, galleryExample{name, s, path + ".ptx", []byte(res.PTX)})
		}
	})
	if gallery.err != nil {
		t.Fatal(gallery.err)
	}
	if len(gallery.failures) > 0 {
		t.Fatalf("gallery CUDA twins do not compile:\n%s", strings.Join(gallery.failures, "\n"))
	}
	if gallery.noCUDA != nil {
		t.Logf("the gallery's CUDA twins are left out: %v", gallery.noCUDA)
	}
	if len(gallery.exs) < 5 {
		t.Fatalf("only %d gallery examples", len(gallery.exs))
	}
	return gallery.exs
}

// exampleSource returns the PTX of gallery spec s in dir, compiling its
// CUDA file when it names one (skipping the test when clang is missing).
func exampleSource(t *testing.T, dir, name string, s *launch.Spec) ([]byte, string) {
	t.Helper()
	if s.CUDA == "" {
		text, file, err := s.Load(dir)
		if err != nil {
			t.Fatal(err)
		}
		return text, file
	}
	c := cuda.Default()
	if err := c.Available(); err != nil {
		t.Skipf("%s: %v", name, err)
	}
	res, path, err := c.CompileSpec(context.Background(), s, dir)
	if err != nil || !res.OK() {
		t.Fatalf("%s: %v %+v", path, err, res)
	}
	return []byte(res.PTX), path + ".ptx"
}

// TestCheckerGallery: the race and missing-wait examples are flagged at
// their exact lines and threads; every other example is quiet.
func TestCheckerGallery(t *testing.T) {
	ws, src := exampleWarnings(t, "race")
	st, ld := lineOf(t, src, "st.shared.u32 [%r5]"), lineOf(t, src, "ld.shared.u32 %r9")
	type want struct {
		kind       analysis.WarningKind
		line, prev int
		tid, ptid  int
		off        uint64
	}
	exp := []want{
		// Warp 0 reads vals[32] before warp 1 stored it.
		{analysis.WarnUninitShared, ld, 0, 0, 0, 128},
		// Warp 1's store of vals[32] after thread 0's read of it.
		{analysis.WarnWriteAfterRead, st, ld, 32, 0, 128},
		// Thread 32 reads vals[0], stored by thread 0 with no barrier.
		{analysis.WarnReadAfterWrite, ld, st, 32, 0, 0},
	}
	if len(ws) != len(exp) {
		t.Fatalf("race: %d warnings, want %d: %+v", len(ws), len(exp), ws)
	}
	for i, e := range exp {
		w := ws[i]
		prev := 0
		if w.HasPrev() {
			prev = w.PrevLine
		}
		if w.Kind != e.kind || w.Line != e.line || prev != e.prev || w.Thread.Tid[0] != e.tid || w.Offset != e.off || (w.HasPrev() && w.PrevThread.Tid[0] != e.ptid) || w.Count != 32 {
			t.Errorf("race warning %d: %+v, want %+v (32 times)", i, w, e)
		}
	}

	ws, src = exampleWarnings(t, "cp-async-missing-wait")
	if len(ws) != 1 {
		t.Fatalf("cp-async-missing-wait: %+v", ws)
	}
	w := ws[0]
	if w.Kind != analysis.WarnAsyncRead || w.Line != lineOf(t, src, "ld.shared.f32 %f1") || w.PrevLine != lineOf(t, src, "cp.async.cg.shared.global") ||
		w.Thread.Tid[0] != 0 || w.PrevThread.Tid[0] != 0 || w.Offset != 0 || w.Count != 256 {
		t.Errorf("cp-async-missing-wait: %+v", w)
	}

	// The DSMEM lesson without its cluster barrier: CTA 0's loads of the
	// half its peer stores read it before it is written (uninitialised),
	// and each load and the peer's st.shared::cluster of the same word
	// are unordered in both directions.
	ws, src = exampleWarnings(t, "dsmem-exchange-race")
	ldD, stD := lineOf(t, src, "ld.shared.u32 %r14"), lineOf(t, src, "st.shared::cluster.u32 [%r11], %r6")
	type dw struct {
		kind       analysis.WarningKind
		line, prev int
		cta, pcta  int
	}
	dexp := []dw{
		{analysis.WarnUninitShared, ldD, 0, 0, 0},
		{analysis.WarnWriteAfterRead, stD, ldD, 1, 0},
		{analysis.WarnReadAfterWrite, ldD, stD, 1, 0},
	}
	if len(ws) != len(dexp) {
		t.Fatalf("dsmem-exchange-race: %d warnings, want %d: %+v", len(ws), len(dexp), ws)
	}
	for i, e := range dexp {
		w := ws[i]
		if w.Kind != e.kind || w.Line != e.line || w.Thread.CTA[0] != e.cta || w.Count != 32 ||
			w.HasPrev() != (e.prev != 0) || w.HasPrev() && (w.PrevLine != e.prev || w.PrevThread.CTA[0] != e.pcta) {
			t.Errorf("dsmem-exchange-race warning %d: %+v, want %+v (32 times)", i, w, e)
		}
	}

	// The TMA store lesson: the threads' st.shared and thread 0's TMA
	// store of the tile, with no fence.proxy.async between them; every
	// byte of the 1 KiB tile (16 bytes by each of 64 threads) is read.
	ws, src = exampleWarnings(t, "tma-missing-fence")
	if len(ws) != 1 {
		t.Fatalf("tma-missing-fence: %d warnings, want 1: %+v", len(ws), ws)
	}
	w = ws[0]
	if w.Kind != analysis.WarnProxyFence || w.Line != lineOf(t, src, "cp.async.bulk.tensor.2d.global.shared::cta") ||
		!w.HasPrev() || w.PrevLine != lineOf(t, src, "st.shared.v4.f32") || w.Thread.Tid[0] != 0 || w.Offset != 0 || w.Count != 256 {
		t.Errorf("tma-missing-fence: %+v", w)
	}

	// Triton's TMA GEMM (a real compiler-emitted module): with a 16x16
	// tile and 4 warps, warps 2 and 3 compute the same halves of the tile
	// as warps 0 and 1, and the epilogue's two st.shared.v2.b32 of thread
	// t and t+64 write the same bytes with nothing ordering them. The
	// values are identical, so the result is right, but the pair is
	// unordered: one write-after-write per store, at the tile's first byte
	// (offset 0 and 512), aggregated over its occurrences (256).
	ws, src = exampleWarnings(t, "tma-dot")
	if len(ws) != 2 {
		t.Fatalf("tma-dot: %d warnings, want 2: %+v", len(ws), ws)
	}
	for i, code := range []string{"st.shared.v2.b32     [%rd46], {%r107, %r108}", "st.shared.v2.b32     [%rd46+512], {%r109, %r110}"} {
		w := ws[i]
		l := lineOf(t, src, code)
		if w.Kind != analysis.WarnWriteAfterWrite || w.Line != l || !w.HasPrev() || w.PrevLine != l ||
			w.Thread.Tid[0] != 64 || w.PrevThread.Tid[0] != 0 || w.Offset != uint64(512*i) || w.Count != 256 {
			t.Errorf("tma-dot warning %d: %+v, want a write-after-write at line %d by thread 64 after thread 0, offset %d, 256 times", i, w, l, 512*i)
		}
	}

	entries, _ := filepath.Glob(filepath.Join("..", "..", "web", "examples", "*.json"))
	for _, e := range entries {
		name := strings.TrimSuffix(filepath.Base(e), ".json")
		if name == "index" || name == "race" || name == "cp-async-missing-wait" || name == "dsmem-exchange-race" || name == "tma-missing-fence" || name == "tma-dot" {
			continue
		}
		if ws, _ := exampleWarnings(t, name); len(ws) > 0 {
			t.Errorf("%s: %d warnings, first %+v", name, len(ws), ws[0])
		}
	}
}

const hdr = ".version 8.0\n.target sm_80\n.address_size 64\n"

// kernel wraps body in a kernel k(.param .u64 p) with a shared array s of
// 1024 bytes; %r1 = tid.x, %r2 = &s[0], %rd1 = p.
func kernel(body string) string {
	return hdr + `.shared .align 16 .b8 s[1024];
.visible .entry k(.param .u64 p) {
	.reg .pred %p<4>;
	.reg .b32 %r<20>;
	.reg .b64 %rd<8>;
	ld.param.u64 %rd1, [p];
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, s;
` + body + `
	ret;
}
`
}

const spec64 = `{"block": [64], "buffers": [{"name": "p", "type": "u32", "count": 256, "init": {"fill": 1}}], "params": [{"buffer": "p"}]}`

func TestCheckerKernels(t *testing.T) {
	for _, c := range []struct {
		name string
		body string
		spec string
		want []analysis.WarningKind // in order of discovery
	}{
		{"raw across warps", `
	shl.b32 %r3, %r1, 2;
	add.u32 %r4, %r2, %r3;
	st.shared.u32 [%r4], %r1;          // write s[t]
	xor.b32 %r5, %r3, 128;             // (t ^ 32) * 4
	add.u32 %r6, %r2, %r5;
	ld.shared.u32 %r7, [%r6];          // read s[t^32]`, spec64, []analysis.WarningKind{analysis.WarnReadAfterWrite}},
		{"barrier in between", `
	shl.b32 %r3, %r1, 2;
	add.u32 %r4, %r2, %r3;
	st.shared.u32 [%r4], %r1;
	bar.sync 0;
	xor.b32 %r5, %r3, 128;
	add.u32 %r6, %r2, %r5;
	ld.shared.u32 %r7, [%r6];
	bar.sync 0;
	st.shared.u32 [%r6], %r7;          // write s[t^32]: the reads were before the barrier`, spec64, nil},
		{"waw across warps", `
	and.b32 %r3, %r1, 31;
	shl.b32 %r3, %r3, 2;
	add.u32 %r4, %r2, %r3;
	st.shared.u32 [%r4], %r1;          // both warps write s[t%32]`, spec64, []analysis.WarningKind{analysis.WarnWriteAfterWrite}},
		{"same thread", `
	shl.b32 %r3, %r1, 2;
	add.u32 %r4, %r2, %r3;
	st.shared.u32 [%r4], %r1;
	ld.shared.u32 %r5, [%r4];
	st.shared.u32 [%r4], %r5;`, spec64, nil},
		{"adjacent bytes", `
	add.u32 %r4, %r2, %r1;
	st.shared.u8 [%r4], %r1;           // thread t writes byte t only
	xor.b32 %r5, %r1, 32;
	add.u32 %r6, %r2, %r5;
	bar.sync 0;
	ld.shared.u8 %r7, [%r6];
	add.u32 %r8, %r4, 64;
	st.shared.u8 [%r8], %r7;           // byte 64+t: neighbours of other threads' bytes
	st.shared.u8 [%r4], %r7;           // byte t again: read by thread t^32 before, not ordered`, spec64, []analysis.WarningKind{analysis.WarnWriteAfterRead}},
		{"atomics", `
	setp.eq.u32 %p3, %r1, 0;
	@%p3 st.shared.u32 [%r2+512], 0;
	bar.sync 0;
	atom.shared.add.u32 %r3, [%r2+512], 1;   // every thread: atomics do not race
	bar.sync 0;
	ld.shared.u32 %r4, [%r2+512];`, spec64, nil},
		{"atomic and load race", `
	setp.eq.u32 %p3, %r1, 0;
	@%p3 st.shared.u32 [%r2+512], 0;
	bar.sync 0;
	atom.shared.add.u32 %r3, [%r2+512], 1;
	ld.shared.u32 %r4, [%r2+512];            // no barrier after the other warp's atomic`, spec64, []analysis.WarningKind{analysis.WarnReadAfterWrite}},
		{"uninitialised shared", `
	shl.b32 %r3, %r1, 2;
	add.u32 %r4, %r2, %r3;
	ld.shared.u32 %r5, [%r4];`, spec64, []analysis.WarningKind{analysis.WarnUninitShared}},
		{"warp-synchronous tail, converged", `
	setp.ge.u32 %p1, %r1, 32;
	@%p1 bra DONE;
	shl.b32 %r3, %r1, 2;
	add.u32 %r4, %r2, %r3;
	st.shared.u32 [%r4], %r1;
	st.shared.u32 [%r4+128], %r1;
	ld.shared.u32 %r5, [%r4];
	ld.shared.u32 %r6, [%r4+64];        // s[t+16], written by lane t+16
	add.u32 %r5, %r5, %r6;
	st.shared.u32 [%r4], %r5;          // s[t], read by lane t-16 two instructions ago
DONE:`, spec64, nil},
		{"divergent paths race", `
	setp.eq.u32 %p3, %r1, 0;
	@%p3 st.shared.u32 [%r2], 0;
	bar.sync 0;
	setp.ge.u32 %p1, %r1, 32;
	@%p1 bra DONE;
	and.b32 %r3, %r1, 1;
	setp.eq.u32 %p2, %r3, 0;
	@%p2 bra EVEN;
	st.shared.u32 [%r2], %r1;          // odd lanes write s[0]
	bra.uni DONE;
EVEN:
	st.shared.u32 [%r2+4], %r1;
	ld.shared.u32 %r4, [%r2];          // even lanes read s[0] on the other path (the paths take turns: it wrote first)
DONE:`, spec64, []analysis.WarningKind{analysis.WarnReadAfterWrite}},
		{"named barrier between two warps", `
	shl.b32 %r3, %r1, 2;
	add.u32 %r4, %r2, %r3;
	st.shared.u32 [%r4], %r1;
	bar.sync 1, 64;
	xor.b32 %r5, %r3, 128;
	add.u32 %r6, %r2, %r5;
	ld.shared.u32 %r7, [%r6];`, spec64, nil},
		{"bar.arrive publishes, does not acquire", `
	setp.lt.u32 %p1, %r1, 32;
	@%p1 bra PRODUCER;
	bar.sync 1, 64;                    // warp 1 waits for warp 0's data
	ld.shared.u32 %r5, [%r2];
	bra.uni DONE;
PRODUCER:
	st.shared.u32 [%r2], %r1;
	bar.arrive 1, 64;
	st.shared.u32 [%r2+4], %r1;        // after arriving: no order with warp 1
DONE:
	ld.shared.u32 %r6, [%r2+4];`, spec64, []analysis.WarningKind{analysis.WarnReadAfterWrite}},
		{"cp.async read before wait", `
	shl.b32 %r3, %r1, 4;
	add.u32 %r4, %r2, %r3;
	cvt.u64.u32 %rd2, %r3;
	add.u64 %rd3, %rd1, %rd2;
	cp.async.ca.shared.global [%r4], [%rd3], 16;
	cp.async.commit_group;
	ld.shared.u32 %r5, [%r4];          // its own copy, not landed
	cp.async.wait_group 0;
	ld.shared.u32 %r6, [%r4+4];        // landed`, spec64, []analysis.WarningKind{analysis.WarnAsyncRead}},
		{"cp.async with wait", `
	shl.b32 %r3, %r1, 4;
	add.u32 %r4, %r2, %r3;
	cvt.u64.u32 %rd2, %r3;
	add.u64 %rd3, %rd1, %rd2;
	cp.async.ca.shared.global [%r4], [%rd3], 16;
	cp.async.wait_all;
	bar.sync 0;
	xor.b32 %r5, %r3, 512;
	add.u32 %r6, %r2, %r5;
	ld.shared.u32 %r7, [%r6];`, spec64, nil},
		{"uninitialised global", `
	mul.wide.u32 %rd2, %r1, 4;
	add.u64 %rd3, %rd1, %rd2;
	ld.global.u32 %r5, [%rd3];`, `{"block": [64], "buffers": [{"name": "p", "type": "u32", "count": 64}], "params": [{"buffer": "p"}]}`,
			[]analysis.WarningKind{analysis.WarnUninitGlobal}},
		{"zero-filled output: atomics, then loads of written bytes", `
	mul.wide.u32 %rd2, %r1, 4;
	add.u64 %rd3, %rd1, %rd2;
	atom.global.add.u32 %r5, [%rd1], 1;
	st.global.u32 [%rd3+4], %r1;
	ld.global.u32 %r6, [%rd3+4];`, `{"block": [63], "buffers": [{"name": "p", "type": "u32", "count": 64}], "params": [{"buffer": "p"}]}`, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			src := kernel(c.body)
			ws := check(t, src, c.spec)
			var got []analysis.WarningKind
			for _, w := range ws {
				got = append(got, w.Kind)
			}
			if !equalKinds(got, c.want) {
				t.Errorf("warnings %v, want %v\n%+v", got, c.want, ws)
			}
		})
	}
}

func equalKinds(a, b []analysis.WarningKind) bool {
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

// The checker is an observer like any other.
var _ emu.Observer = (*analysis.Checker)(nil)
