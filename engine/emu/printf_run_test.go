package emu

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/ptxplayground/ptxplay/engine/ptx"
)

// nvccKernel prepares a launch of a kernel of testdata/printf_nvcc.ptx
// (nvcc's output for a printf and an assert) over n floats x[i] = f(i).
func nvccKernel(t testing.TB, entry string, grid, block, n int, f func(int) float32) (*Machine, *Program) {
	t.Helper()
	src, err := os.ReadFile("testdata/printf_nvcc.ptx")
	if err != nil {
		t.Fatal(err)
	}
	s := ptx.NewSource("printf_nvcc.ptx", src)
	prog, diags := CompileSource(s)
	if prog == nil {
		t.Fatalf("compile:\n%s", ptx.FormatAll(s, diags))
	}
	for _, d := range diags {
		t.Errorf("unexpected diagnostic: %s", d.Message)
	}
	m, err := NewMachine(prog, entry, Config{Grid: [3]int{grid, 1, 1}, Block: [3]int{block, 1, 1}})
	if err != nil {
		t.Fatal(err)
	}
	x := m.Global.Alloc("x", 4*n, 256)
	for i := range n {
		binary.LittleEndian.PutUint32(x.Data[4*i:], math.Float32bits(f(i)))
	}
	p := m.Params()
	binary.LittleEndian.PutUint64(p, x.Base)
	binary.LittleEndian.PutUint32(p[8:], uint32(n))
	return m, prog
}

func printfText(m *Machine) string {
	lines, dropped := m.Printf()
	var sb strings.Builder
	for _, l := range lines {
		fmt.Fprintf(&sb, "%d %v %v %s", l.Step, l.CTA, l.Thread, l.Text)
	}
	fmt.Fprintf(&sb, "dropped %d\n", dropped)
	return sb.String()
}

// nvcc's printf: the format in a .global string, the arguments packed in
// the local depot (ints, a float promoted to double, a string pointer),
// one line per thread in execution order, each with its step, CTA and
// thread.
func TestPrintfNvccModule(t *testing.T) {
	m, prog := nvccKernel(t, "_Z5helloPKfi", 2, 40, 70, func(i int) float32 { return float32(i) / 4 })
	if r := m.Run(context.Background()); r != StopDone {
		t.Fatalf("run: %v %+v", r, m.Fault())
	}
	lines, dropped := m.Printf()
	if len(lines) != 70 || dropped != 0 {
		t.Fatalf("%d lines, %d dropped", len(lines), dropped)
	}
	// Execution order: CTA 0's warps 0 and 1, then CTA 1's (both resident:
	// round-robin reaches the call of every warp in turn); lanes ascending.
	seen := map[string]bool{}
	for k, l := range lines {
		i := l.CTA[0]*40 + l.Thread[0]
		parity := "even"
		if i%2 == 1 {
			parity = "odd"
		}
		want := fmt.Sprintf("block %d thread %d: x[%d] = %.2f (%s)\n", l.CTA[0], l.Thread[0], i, float64(float32(i)/4), parity)
		if l.Text != want {
			t.Errorf("line %d: %q, want %q", k, l.Text, want)
		}
		if seen[want] {
			t.Errorf("line %d printed twice", k)
		}
		seen[want] = true
		if line := prog.Src.Position(prog.Spans[l.PC].Start).Line; !strings.Contains(string(prog.Src.Text[prog.Spans[l.PC].Start:prog.Spans[l.PC].End]), "call.uni") {
			t.Errorf("line %d: pc %d (source line %d) is not the call", k, l.PC, line)
		}
		if k > 0 {
			p := lines[k-1]
			if l.Step < p.Step || l.Step == p.Step && (l.CTA != p.CTA || l.Thread[0] < p.Thread[0] || l.Thread[0]/32 != p.Thread[0]/32) {
				t.Errorf("line %d (step %d, CTA %v thread %v) after step %d CTA %v thread %v", k, l.Step, l.CTA, l.Thread, p.Step, p.CTA, p.Thread)
			}
		}
	}
	// The same launch stepped one warp-instruction at a time, and run
	// without batched dispatch, prints the same lines at the same steps.
	want := printfText(m)
	m2, _ := nvccKernel(t, "_Z5helloPKfi", 2, 40, 70, func(i int) float32 { return float32(i) / 4 })
	for m2.Step(StepWarpInstruction) == StopStepped {
	}
	if got := printfText(m2); got != want {
		t.Errorf("stepped:\n%s\nrun:\n%s", got, want)
	}
	m3, _ := nvccKernel(t, "_Z5helloPKfi", 2, 40, 70, func(i int) float32 { return float32(i) / 4 })
	m3.SetBatchedDispatch(false)
	m3.Run(context.Background())
	if got := printfText(m3); got != want {
		t.Errorf("without batching:\n%s\nrun:\n%s", got, want)
	}
	// Each line's step is the position right after its call: stepping to
	// it shows every line up to that step, and none after it.
	m4, _ := nvccKernel(t, "_Z5helloPKfi", 2, 40, 70, func(i int) float32 { return float32(i) / 4 })
	for _, l := range lines {
		for m4.Stats().WarpInstructions < l.Step {
			m4.Step(StepWarpInstruction)
		}
		n := 0
		for n < len(lines) && lines[n].Step <= l.Step {
			n++
		}
		if got, _ := m4.Printf(); !reflect.DeepEqual(got, lines[:n]) {
			t.Fatalf("at step %d: %d lines, want %d", l.Step, len(got), n)
		}
	}
}

// Back and seek restore a snapshot and replay: random sequences of steps,
// restores and replays give exactly the output of a fresh run to the same
// position.
func TestPrintfExactAcrossSnapshots(t *testing.T) {
	fresh := func() *Machine {
		m, _ := nvccKernel(t, "_Z5helloPKfi", 3, 48, 130, func(i int) float32 { return float32(i) })
		return m
	}
	m := fresh()
	rng := rand.New(rand.NewSource(1))
	snaps := []*Snapshot{m.Snapshot(false)}
	printed := 0
	for it := 0; it < 400; it++ {
		op := rng.Intn(5)
		if m.Done() {
			op = 1
		}
		switch op {
		case 0:
			snaps = append(snaps, m.Snapshot(false))
		case 1:
			if len(snaps) > 0 {
				m.Restore(snaps[rng.Intn(len(snaps))])
			}
		case 2:
			m.IssueN(false, 1+rng.Intn(60))
		default:
			for range 1 + rng.Intn(20) {
				m.Step(StepWarpInstruction)
			}
		}
		// A fresh run to the same position.
		o := fresh()
		if at := m.Stats().WarpInstructions; at > 0 {
			o.IssueN(false, int(at))
		}
		if got, want := printfText(m), printfText(o); got != want {
			t.Fatalf("iteration %d at step %d:\n%s\nfresh run:\n%s", it, m.Stats().WarpInstructions, got, want)
		}
		if d := m.DiffState(o); d != "" && !m.Done() {
			t.Fatalf("iteration %d: %s", it, d)
		}
		lines, _ := m.Printf()
		printed = max(printed, len(lines))
	}
	if printed != 130 {
		t.Fatalf("the sequences printed at most %d lines, not all 130", printed)
	}
}

// The output a launch keeps is bounded: lines past the limit are dropped
// and counted.
func TestPrintfLimit(t *testing.T) {
	m, _ := nvccKernel(t, "_Z5helloPKfi", 1, 64, 64, func(i int) float32 { return 1 })
	m.cfg.MaxPrintfBytes = 10 * (PrintfLineOverhead + 40)
	m.Run(context.Background())
	lines, dropped := m.Printf()
	if len(lines) != 10 || dropped != 54 {
		t.Fatalf("%d lines kept, %d dropped; want 10 and 54", len(lines), dropped)
	}
}

// assert: __assertfail is a fault naming the assertion, file, line and
// function, for the threads that fail it.
func TestAssertfail(t *testing.T) {
	m, prog := nvccKernel(t, "_Z14check_positivePKfi", 1, 64, 64, func(i int) float32 {
		if i == 37 || i == 40 {
			return -1
		}
		return 1
	})
	if r := m.Run(context.Background()); r != StopFault {
		t.Fatalf("run: %v", r)
	}
	f := m.Fault()
	want := "assertion failed: x[i] >= 0 at hello.cu:4 in void check_positive(const float *, int)"
	if f.Kind != FaultAssert || f.Message != want {
		t.Fatalf("fault %s %q, want %q", f.Kind, f.Message, want)
	}
	if f.Thread != [3]int{37, 0, 0} || f.Warp != 1 || f.Lanes != 1<<5|1<<8 {
		t.Errorf("fault thread %v warp %d lanes %x", f.Thread, f.Warp, f.Lanes)
	}
	if src := string(prog.Src.Text[prog.Spans[f.PC].Start:prog.Spans[f.PC].End]); !strings.HasPrefix(src, "call.uni") {
		t.Errorf("fault at %q", src)
	}
}

// A call to any other function without a body: check warns (naming it)
// and the thread that calls it faults (naming it).
func TestExternWithoutBody(t *testing.T) {
	src := ctlHeader + `
.extern .func (.param .b32 r) mystery (.param .b32 a);
.extern .func (.param .b32 r) vprintf (.param .b32 a);
.extern .func unused (.param .b32 a);
.visible .entry k(.param .u64 out) {
	.reg .b32 %r<3>; .reg .pred %p;
	mov.u32 %r1, %tid.x;
	setp.eq.u32 %p, %r1, 0;
	@%p bra DONE;
	{ .param .b32 a; st.param.b32 [a], %r1; .param .b32 r;
	call.uni (r), mystery, (a);
	ld.param.b32 %r2, [r]; }
	{ .param .b32 a; st.param.b32 [a], %r1; .param .b32 r;
	call.uni (r), vprintf, (a);
	ld.param.b32 %r2, [r]; }
DONE:
	ret;
}`
	s := ptx.NewSource("t.ptx", []byte(src))
	prog, diags := CompileSource(s)
	if prog == nil {
		t.Fatalf("compile:\n%s", ptx.FormatAll(s, diags))
	}
	var msgs []string
	for _, d := range diags {
		msgs = append(msgs, fmt.Sprintf("%s %d: %s", d.Severity, s.Position(d.Span.Start).Line, d.Message))
	}
	want := []string{
		"warning 14: mystery has no body in this module: a thread that calls it faults",
		"warning 17: vprintf has no body in this module (vprintf is CUDA's printf only as (.param .b32 r) vprintf(.param .b64 format, .param .b64 args)): a thread that calls it faults",
	}
	if !reflect.DeepEqual(msgs, want) {
		t.Fatalf("diagnostics:\n%s\nwant:\n%s", strings.Join(msgs, "\n"), strings.Join(want, "\n"))
	}
	m, err := NewMachine(prog, "k", Config{Grid: [3]int{1, 1, 1}, Block: [3]int{32, 1, 1}})
	if err != nil {
		t.Fatal(err)
	}
	if r := m.Run(context.Background()); r != StopFault {
		t.Fatalf("run: %v", r)
	}
	if f := m.Fault(); f.Kind != FaultIllegal || !strings.Contains(f.Message, "call to mystery") || f.Thread[0] != 1 || f.Lanes != ^uint32(1) {
		t.Fatalf("fault %+v", f)
	}
}

// A bad pointer faults like a load: the call's line, the thread and the
// address.
func TestPrintfBadPointers(t *testing.T) {
	prog := compilePrintf(t, printfKernel)
	run := func(format string, fmtAddr, argAddr func(m *Machine, f, a *Alloc) uint64) *Fault {
		m, err := NewMachine(prog, "k", Config{Grid: [3]int{1, 1, 1}, Block: [3]int{1, 1, 1}})
		if err != nil {
			t.Fatal(err)
		}
		out := m.Global.Alloc("out", 4, 256)
		f := m.Global.Alloc("fmt", len(format)+1, 1)
		copy(f.Data, format)
		a := m.Global.Alloc("args", 8, 8)
		p := m.Params()
		binary.LittleEndian.PutUint64(p[0:], out.Base)
		binary.LittleEndian.PutUint64(p[8:], fmtAddr(m, f, a))
		binary.LittleEndian.PutUint64(p[16:], argAddr(m, f, a))
		if r := m.Run(context.Background()); r != StopFault {
			t.Fatalf("%q: %v", format, r)
		}
		return m.Fault()
	}
	base := func(_ *Machine, f, _ *Alloc) uint64 { return f.Base }
	args := func(_ *Machine, _, a *Alloc) uint64 { return a.Base }
	f := run("%d %d %d\n", base, args)
	if f.Kind != FaultOutOfBounds || !f.HasAddr || !strings.HasPrefix(f.Message, "printf argument 3: 4-byte access to global address") {
		t.Errorf("argument past its buffer: %+v", f)
	}
	f = run("x", func(_ *Machine, f, _ *Alloc) uint64 { return f.Base + 4096 }, args)
	if f.Kind != FaultOutOfBounds || f.Addr == 0 || !strings.HasPrefix(f.Message, "printf format string:") {
		t.Errorf("format outside memory: %+v", f)
	}
	f = run("%s", base, func(m *Machine, _, a *Alloc) uint64 {
		binary.LittleEndian.PutUint64(a.Data, 0x1234)
		return a.Base
	})
	if f.Kind != FaultOutOfBounds || f.Addr != 0x1234 || !strings.Contains(f.Message, "(%s)") {
		t.Errorf("%%s of a bad pointer: %+v", f)
	}
}

// What CUDA's printf does not support is printed as written, with a
// note; a NULL format returns -1 and prints nothing.
func TestPrintfUnsupported(t *testing.T) {
	prog := compilePrintf(t, printfKernel)
	line, ret := runPrintf(t, prog, "%.*f|%n|%d", []printfArg{pi(3)})
	if line.Text != "%.*f|%n|3" || ret != 1 || !strings.Contains(line.Note, "'*' precision is not supported") {
		t.Errorf("got %q ret %d note %q", line.Text, ret, line.Note)
	}
	var many []printfArg
	format := ""
	for i := range 33 {
		many = append(many, pi(int32(i)))
		format += "%d,"
	}
	line, ret = runPrintf(t, prog, format, many)
	if !strings.HasSuffix(line.Text, ",30,31,%d,") || ret != 32 || !strings.Contains(line.Note, "at most 32 arguments") {
		t.Errorf("33 arguments: %q ret %d note %q", line.Text, ret, line.Note)
	}
	line, _ = runPrintf(t, prog, "%5000d|", []printfArg{pi(1)})
	if len(line.Text) != MaxPrintfLine || !line.Cut {
		t.Errorf("a long line: %d bytes, cut %v", len(line.Text), line.Cut)
	}
}
