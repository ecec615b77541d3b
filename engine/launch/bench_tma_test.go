package launch

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"math/bits"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/ptxplayground/ptxplay/engine/analysis"
	"github.com/ptxplayground/ptxplay/engine/emu"
	"github.com/ptxplayground/ptxplay/engine/internal/cputime"
	"github.com/ptxplayground/ptxplay/engine/isa"
)

// The TMA pipeline benchmarks run the gallery lesson
// web/examples/tma-pipeline.ptx with its spec (one CTA: a producer warp
// whose elected lane loads 1 KiB tiles with cp.async.bulk.tensor into two
// stages, a consumer warp that sums them, full/empty mbarriers between).
// The lesson loads 8 tiles, too few to time the engine rather than the
// launch's setup, so BenchmarkTMAPipeline runs a bigger instance of the
// same kernel: the tile count (the immediate of the kernel's two
// `setp.lt.u32 %p5, %r7, 8`) and the tensor's rows (the spec's globalDim
// and the buffer's count) scaled to pipelineTiles tiles. The lesson itself
// is BenchmarkTMAPipelineLesson. PTXPLAY_SCHEDULING picks the model
// (independent, the default for this sm_90a kernel, or simt-stack).

// pipelineTiles is the bigger instance's tile count.
const pipelineTiles = 512

// pipelineLaunch is a compiled instance of the lesson with its spec.
type pipelineLaunch struct {
	prog  *emu.Program
	spec  *Spec
	tiles int
}

// loadPipeline reads the lesson and its spec from web/examples and, for
// tiles other than the lesson's 8, scales the kernel's tile count and the
// tensor to tiles tiles of 8 rows.
func loadPipeline(b *testing.B, tiles int) *pipelineLaunch {
	dir := filepath.Join("..", "..", "web", "examples")
	data, err := os.ReadFile(filepath.Join(dir, "tma-pipeline.json"))
	if err != nil {
		b.Fatal(err)
	}
	spec, err := ParseSpec(data)
	if err != nil {
		b.Fatal(err)
	}
	text, name, err := spec.Load(dir)
	if err != nil {
		b.Fatal(err)
	}
	if tiles != 8 {
		const loop = "setp.lt.u32 %p5, %r7, 8;"
		if n := bytes.Count(text, []byte(loop)); n != 2 {
			b.Fatalf("the lesson has %d tile-count compares %q, want 2: update loadPipeline", n, loop)
		}
		text = bytes.ReplaceAll(text, []byte(loop), fmt.Appendf(nil, "setp.lt.u32 %%p5, %%r7, %d;", tiles))
		var raw map[string]any
		if err := json.Unmarshal(data, &raw); err != nil {
			b.Fatal(err)
		}
		raw["buffers"].([]any)[0].(map[string]any)["count"] = 32 * 8 * tiles
		raw["params"].([]any)[0].(map[string]any)["tensorMap"].(map[string]any)["globalDim"] = []int{32, 8 * tiles}
		data, err = json.Marshal(raw)
		if err != nil {
			b.Fatal(err)
		}
		if spec, err = ParseSpec(data); err != nil {
			b.Fatal(err)
		}
	}
	if s := os.Getenv("PTXPLAY_SCHEDULING"); s != "" {
		spec.Scheduling = s
	}
	prog, src, diags := Compile(name, text)
	if prog == nil {
		b.Fatalf("compile: %v (%s)", diags, src.Name)
	}
	return &pipelineLaunch{prog: prog, spec: spec, tiles: tiles}
}

// tmaBytes counts the bytes the asynchronous proxy wrote into shared
// memory (the destination writes of the TMA copies, reported when they
// land): the bytes the copies moved.
type tmaBytes struct{ n int64 }

func (t *tmaBytes) Observes() emu.ObserveFlags { return emu.ObserveAccesses | emu.ObserveUnordered }

func (t *tmaBytes) Step(in *emu.StepInfo) {
	for i := range in.Accesses {
		a := &in.Accesses[i]
		if a.Async && a.Kind == emu.AccessStore && a.Space == isa.Shared {
			t.n += int64(a.Size) * int64(bits.OnesCount32(a.Lanes))
		}
	}
}

// run prepares and runs one launch (with obs installed, if not nil),
// checks its output and returns the time Prepare and Run took and the
// thread-instructions it executed.
func (p *pipelineLaunch) run(b *testing.B, obs ...emu.Observer) (time.Duration, int64) {
	start := time.Now()
	l, err := Prepare(p.prog, p.spec)
	if err != nil {
		b.Fatal(err)
	}
	for _, o := range obs {
		l.Machine().AddObserver(o)
	}
	r, err := l.Run(context.Background())
	d := time.Since(start)
	if err != nil || r.Status != StatusOK {
		b.Fatalf("run: %v, status %v", err, r.Status)
	}
	p.check(b, l)
	return d, l.Machine().Stats().ThreadInstructions
}

// check compares out with the consumer's sums: lane l adds in[32r + l] =
// 32r + l over the rows r in order, in f32.
func (p *pipelineLaunch) check(b *testing.B, l *Launch) {
	out := l.Buffer("out").Data
	for lane := 0; lane < 32; lane++ {
		var want float32
		for r := 0; r < 8*p.tiles; r++ {
			want += float32(32*r + lane)
		}
		if got := math.Float32frombits(binary.LittleEndian.Uint32(out[4*lane:])); got != want {
			b.Fatalf("out[%d] = %v, want %v", lane, got, want)
		}
	}
}

// movedBytes runs one launch with a tmaBytes observer and returns the
// bytes its copies moved (the same every run: completion is
// deterministic).
func (p *pipelineLaunch) movedBytes(b *testing.B) int64 {
	var t tmaBytes
	p.run(b, &t)
	// Each tile is a full 32x8 f32 box.
	if t.n == 0 || t.n%int64(p.tiles) != 0 {
		b.Fatalf("%d bytes moved by %d tiles", t.n, p.tiles)
	}
	return t.n
}

// benchPipeline times launches of p (Prepare and Run) and reports
// thread-instructions and TMA bytes per second of wall-clock and of CPU
// time.
func benchPipeline(b *testing.B, p *pipelineLaunch) {
	moved := p.movedBytes(b)
	var thread, launches int64
	cpu0 := cputime.Seconds()
	b.ResetTimer()
	for b.Loop() {
		_, n := p.run(b)
		thread += n
		launches++
	}
	sec := b.Elapsed().Seconds()
	cpu := cputime.Seconds() - cpu0
	b.ReportMetric(float64(thread)/sec, "thread-inst/s")
	b.ReportMetric(float64(moved*launches)/sec, "TMA-B/s")
	if cpu > 0 {
		b.ReportMetric(float64(thread)/cpu, "thread-inst/cpu-s")
		b.ReportMetric(float64(moved*launches)/cpu, "TMA-B/cpu-s")
	}
	b.ReportMetric(float64(moved), "TMA-B/launch")
	b.ReportMetric(float64(thread)/float64(launches), "thread-inst/launch")
}

// runTimed prepares a launch of p (with the launch's race and memory
// checker installed when checked), checks its output (and that the
// checker has nothing to say) and returns the time its Run took and the
// thread-instructions it executed.
func (p *pipelineLaunch) runTimed(b *testing.B, checked bool) (time.Duration, int64) {
	l, err := Prepare(p.prog, p.spec)
	if err != nil {
		b.Fatal(err)
	}
	var c interface{ Warnings() []analysis.Warning }
	if checked {
		ch := l.NewChecker()
		l.Machine().AddObserver(ch)
		c = ch
	}
	start := time.Now()
	r, err := l.Run(context.Background())
	d := time.Since(start)
	if err != nil || r.Status != StatusOK {
		b.Fatalf("run: %v, status %v", err, r.Status)
	}
	if c != nil {
		if ws := c.Warnings(); len(ws) != 0 {
			b.Fatalf("warnings in the TMA pipeline: %+v", ws[0])
		}
	}
	p.check(b, l)
	return d, l.Machine().Stats().ThreadInstructions
}

// benchPipelineChecker runs p plain and with the race and memory checker
// in every iteration (the order alternating), as engine/analysis's
// BenchmarkTiledSGEMMChecker does, and reports the median time of each
// Run (Prepare and the checker's construction are not timed), the median
// of the per-iteration slowdowns (checked / plain), and the throughput
// of each over the summed Run times.
func benchPipelineChecker(b *testing.B, p *pipelineLaunch) {
	moved := p.movedBytes(b)
	var plain, checked, slow []float64
	var thread int64
	var plainSum, checkedSum time.Duration
	i := 0
	b.ResetTimer()
	for b.Loop() {
		var pt, xt time.Duration
		var n int64
		if i%2 == 0 {
			pt, n = p.runTimed(b, false)
			xt, _ = p.runTimed(b, true)
		} else {
			xt, n = p.runTimed(b, true)
			pt, _ = p.runTimed(b, false)
		}
		i++
		thread += n
		plainSum += pt
		checkedSum += xt
		plain = append(plain, pt.Seconds()*1000)
		checked = append(checked, xt.Seconds()*1000)
		slow = append(slow, float64(xt)/float64(pt))
	}
	launches := float64(len(slow))
	b.ReportMetric(median(plain), "ms-plain/op")
	b.ReportMetric(median(checked), "ms-checked/op")
	b.ReportMetric(median(slow), "slowdown")
	b.ReportMetric(float64(thread)/plainSum.Seconds(), "plain-thread-inst/s")
	b.ReportMetric(float64(thread)/checkedSum.Seconds(), "checked-thread-inst/s")
	b.ReportMetric(float64(moved)*launches/plainSum.Seconds(), "plain-TMA-B/s")
	b.ReportMetric(float64(moved)*launches/checkedSum.Seconds(), "checked-TMA-B/s")
}

// median returns the median of xs (0 for none); it sorts xs.
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	slices.Sort(xs)
	n := len(xs)
	if n%2 == 1 {
		return xs[n/2]
	}
	return (xs[n/2-1] + xs[n/2]) / 2
}

// BenchmarkTMAPipeline: the lesson's kernel scaled to pipelineTiles
// tiles (4,096 rows of 32 f32, 512 KiB through the TMA unit per launch),
// Prepare and Run timed.
func BenchmarkTMAPipeline(b *testing.B) { benchPipeline(b, loadPipeline(b, pipelineTiles)) }

// BenchmarkTMAPipelineLesson: the lesson as the gallery runs it (8 tiles),
// Prepare and Run timed.
func BenchmarkTMAPipelineLesson(b *testing.B) { benchPipeline(b, loadPipeline(b, 8)) }

// BenchmarkTMAPipelineChecker: the scaled instance plain and with the race
// checker, alternating; the slowdown is the checker's cost.
func BenchmarkTMAPipelineChecker(b *testing.B) {
	benchPipelineChecker(b, loadPipeline(b, pipelineTiles))
}

// BenchmarkTMAPipelineLessonChecker: the lesson plain and with the race
// checker, alternating.
func BenchmarkTMAPipelineLessonChecker(b *testing.B) { benchPipelineChecker(b, loadPipeline(b, 8)) }
