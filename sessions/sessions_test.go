package sessions

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ptxplayground/ptxplay/engine/emu"
	"github.com/ptxplayground/ptxplay/engine/launch"
)

const hdr = ".version 8.0\n.target sm_80\n.address_size 64\n"

// Each thread of a 64-thread block takes one of two paths, then stores.
const divergentPTX = hdr + `
.visible .entry div(.param .u64 out) {
	.reg .u32 %r<4>; .reg .u64 %rd<4>; .reg .pred %p;
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, %tid.x;
	and.b32 %r2, %r1, 1;
	setp.eq.u32 %p, %r2, 0;
	@%p bra EVEN;
	mov.u32 %r3, 1;
	bra.uni JOIN;
EVEN:
	mov.u32 %r3, 2;
JOIN:
	add.u32 %r3, %r3, 100;
	mul.wide.u32 %rd2, %r1, 4;
	add.u64 %rd3, %rd1, %rd2;
	st.global.u32 [%rd3], %r3;
	ret;
}
`

const divergentSpec = `{"grid":[2],"block":[64],"buffers":[{"name":"out","type":"u32","count":128}],"params":[{"buffer":"out"}]}`

// A shared-memory tree reduction with bar.sync; partial sums are also
// written back to global memory so that history has global writes to undo.
const reducePTX = hdr + `
.visible .entry reduce(.param .u64 in, .param .u64 out) {
	.reg .u32 %r<10>; .reg .u64 %rd<8>; .reg .pred %p<3>;
	.shared .align 4 .u32 sdata[256];
	ld.param.u64 %rd1, [in];
	ld.param.u64 %rd2, [out];
	mov.u32 %r1, %tid.x;
	mul.wide.u32 %rd3, %r1, 4;
	add.u64 %rd4, %rd1, %rd3;
	ld.global.u32 %r2, [%rd4];
	mov.u32 %r3, sdata;
	shl.b32 %r4, %r1, 2;
	add.u32 %r5, %r3, %r4;
	st.shared.u32 [%r5], %r2;
	bar.sync 0;
	mov.u32 %r6, 128;
LOOP:
	setp.ge.u32 %p1, %r1, %r6;
	@%p1 bra SKIP;
	shl.b32 %r7, %r6, 2;
	add.u32 %r8, %r5, %r7;
	ld.shared.u32 %r9, [%r8];
	ld.shared.u32 %r2, [%r5];
	add.u32 %r2, %r2, %r9;
	st.shared.u32 [%r5], %r2;
	st.global.u32 [%rd4], %r2;
SKIP:
	bar.sync 0;
	shr.u32 %r6, %r6, 1;
	setp.ne.u32 %p2, %r6, 0;
	@%p2 bra LOOP;
	setp.ne.u32 %p1, %r1, 0;
	@%p1 bra END;
	ld.shared.u32 %r2, [sdata];
	st.global.u32 [%rd2], %r2;
END:
	ret;
}
`

const reduceSpec = `{"grid":[1],"block":[256],"buffers":[{"name":"in","type":"u32","count":256,"init":{"iota":{"start":1,"step":1}}},{"name":"out","type":"u32","count":1}],"params":[{"buffer":"in"},{"buffer":"out"}]}`

// Every thread counts to n, storing each value (a long-running kernel).
const spinPTX = hdr + `
.visible .entry spin(.param .u64 out, .param .u32 n) {
	.reg .u32 %r<6>; .reg .u64 %rd<4>; .reg .pred %p;
	ld.param.u64 %rd1, [out];
	ld.param.u32 %r1, [n];
	mov.u32 %r2, %tid.x;
	mul.wide.u32 %rd2, %r2, 4;
	add.u64 %rd3, %rd1, %rd2;
	mov.u32 %r3, 0;
LOOP:
	add.u32 %r3, %r3, 1;
	st.global.u32 [%rd3], %r3;
	setp.lt.u32 %p, %r3, %r1;
	@%p bra LOOP;
	ret;
}
`

func spinSpec(threads, n int) string {
	return fmt.Sprintf(`{"grid":[1],"block":[%d],"buffers":[{"name":"out","type":"u32","count":%d}],"params":[{"buffer":"out"},{"u32":%d}]}`, threads, threads, n)
}

// Threads 8 and up store out of bounds (line 12 is the store).
const faultPTX = hdr + `
.visible .entry oob(.param .u64 out) {
	.reg .u32 %r<3>; .reg .u64 %rd<4>;
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, %tid.x;
	mul.wide.u32 %rd2, %r1, 4;
	add.u64 %rd3, %rd1, %rd2;
	st.global.u32 [%rd3], %r1;
	ret;
}
`

const faultSpec = `{"grid":[1],"block":[32],"buffers":[{"name":"out","type":"u32","count":8}],"params":[{"buffer":"out"}]}`

// ---- test client ----

type client struct {
	t testing.TB
	s *Session
}

func newManager(t testing.TB, lim Limits) *Manager {
	m := NewManager(lim, nil)
	t.Cleanup(m.Close)
	return m
}

func newClient(t testing.TB, m *Manager) *client {
	t.Helper()
	s, err := m.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	c := &client{t: t, s: s}
	if typ, _ := c.next(); typ != "hello" {
		t.Fatalf("first message %q", typ)
	}
	return c
}

func (c *client) send(v any) {
	switch x := v.(type) {
	case string:
		c.s.Submit([]byte(x))
	case []byte:
		c.s.Submit(x)
	default:
		b, err := json.Marshal(v)
		if err != nil {
			c.t.Fatal(err)
		}
		c.s.Submit(b)
	}
}

type msgHead struct {
	Type    string `json:"type"`
	ID      *int64 `json:"id"`
	Code    string `json:"code"`
	Message string `json:"message"`
}

func (c *client) next() (string, []byte) {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	b, err := c.s.Next(ctx)
	if err == io.EOF {
		return "EOF", nil
	}
	if err != nil {
		c.t.Fatalf("no message: %v", err)
	}
	var h msgHead
	if err := json.Unmarshal(b, &h); err != nil {
		c.t.Fatalf("bad message %s: %v", b, err)
	}
	return h.Type, b
}

func (c *client) expect(typ string) []byte {
	c.t.Helper()
	got, b := c.next()
	if got != typ {
		c.t.Fatalf("got %s %s, want %s", got, trunc(b), typ)
	}
	return b
}

func trunc(b []byte) string {
	if len(b) > 400 {
		return string(b[:400]) + "…"
	}
	return string(b)
}

func (c *client) expectError(code string) msgHead {
	c.t.Helper()
	b := c.expect("error")
	var h msgHead
	json.Unmarshal(b, &h)
	if h.Code != code {
		c.t.Fatalf("error %s, want code %s", b, code)
	}
	return h
}

// state reads states until one is not a running frame; it returns it and
// the number of frames seen.
func (c *client) state() (stateMsg, int) {
	c.t.Helper()
	frames := 0
	for {
		b := c.expect("state")
		var st stateMsg
		if err := json.Unmarshal(b, &st); err != nil {
			c.t.Fatal(err)
		}
		if !st.Running {
			return st, frames
		}
		frames++
	}
}

func (c *client) load(src, spec string) stateMsg {
	c.t.Helper()
	c.send(map[string]any{"type": "load", "id": 1, "source": src, "spec": json.RawMessage(spec)})
	var d diagnosticsMsg
	json.Unmarshal(c.expect("diagnostics"), &d)
	for _, it := range d.Items {
		if it.Severity == "error" {
			c.t.Fatalf("diagnostic: %+v", it)
		}
	}
	c.expect("loaded")
	st, _ := c.state()
	return st
}

func (c *client) step(gran string, count int) stateMsg {
	c.t.Helper()
	c.send(map[string]any{"type": "step", "granularity": gran, "count": count})
	st, _ := c.state()
	return st
}

// do runs fn on the session goroutine and waits for it.
func (c *client) do(fn func()) {
	ch := make(chan struct{})
	select {
	case c.s.in <- command{fn: func() { fn(); close(ch) }}:
	case <-c.s.done:
		c.t.Fatal("session ended")
	}
	<-ch
}

// ---- machine dumps ----

type warpDump struct {
	ID, PC      int
	State       emu.WarpState
	Active      uint32
	Exited      uint32
	Stack       []emu.StackEntry
	Regs        [][32]uint64
	Preds       []uint32
	CallDepth   int
	BarrierWait int
	Pending     []emu.AsyncCopy // cp.async copies in flight
}

type ctaDump struct {
	Linear int
	Shared []byte
	Bars   []emu.BarrierState
	Warps  []warpDump
}

type machineDump struct {
	Stats    emu.Stats
	Finished int
	Done     bool
	Fault    string
	Next     [2]int
	CTAs     []ctaDump
	Global   [][]byte
}

func dumpMachine(m *emu.Machine) machineDump {
	d := machineDump{Stats: m.Stats(), Finished: m.CTAsFinished(), Done: m.Done(), Next: [2]int{-1, -1}}
	if w := m.NextWarp(); w != nil {
		d.Next = [2]int{w.CTA().Linear, w.ID}
	}
	if f := m.Fault(); f != nil {
		d.Fault = f.Error()
	}
	p := m.Program()
	for _, c := range m.CTAs() {
		cd := ctaDump{Linear: c.Linear, Shared: append([]byte(nil), c.Shared()...), Bars: c.Barriers()}
		for _, w := range c.Warps {
			wd := warpDump{ID: w.ID, PC: w.PC(), State: w.State, Active: w.Active(), Exited: w.Exited(),
				Stack: w.Stack(), CallDepth: w.CallDepth(), BarrierWait: -1, Pending: w.PendingCopies()}
			if w.State == emu.WarpWaiting {
				wd.BarrierWait = w.Barrier()
			}
			for i := range p.Regs {
				wd.Regs = append(wd.Regs, w.Reg(i))
			}
			for i := range p.Preds {
				wd.Preds = append(wd.Preds, w.Pred(i))
			}
			cd.Warps = append(cd.Warps, wd)
		}
		d.CTAs = append(d.CTAs, cd)
	}
	for _, a := range m.Global.Allocs() {
		d.Global = append(d.Global, append([]byte(nil), a.Data...))
	}
	return d
}

func (c *client) dump() machineDump {
	var d machineDump
	c.do(func() { d = dumpMachine(c.s.m) })
	return d
}

// fresh prepares a new launch of the session's program and spec and steps
// it, with no history, to position k of the session.
func (c *client) fresh(k int64) machineDump {
	c.t.Helper()
	return dumpMachine(c.freshMachine(k))
}

// freshMachine is fresh's machine.
func (c *client) freshMachine(k int64) *emu.Machine {
	c.t.Helper()
	return c.freshMachineObserved(k, nil)
}

// freshMachineObserved is freshMachine with an observer installed.
func (c *client) freshMachineObserved(k int64, obs emu.Observer) *emu.Machine {
	c.t.Helper()
	var prog *emu.Program
	var spec *launch.Spec
	var printfLimit int64
	e := stop{wi: k, tail: noTail}
	c.do(func() {
		prog, spec, printfLimit = c.s.prog.prog, c.s.spec, c.s.lim.MaxPrintfBytes
		if st := c.s.h.stopAt(k); st != nil {
			e = *st
		}
	})
	l, err := launch.Prepare(prog, spec)
	if err != nil {
		c.t.Fatal(err)
	}
	m := l.Machine()
	m.SetMaxPrintfBytes(printfLimit)
	if obs != nil {
		m.SetObserver(obs)
	}
	for m.Stats().WarpInstructions < e.wi {
		if r := m.Step(emu.StepWarpInstruction); r != emu.StopStepped {
			c.t.Fatalf("fresh machine stopped: %v at %d of %d", r, m.Stats().WarpInstructions, e.wi)
		}
	}
	h := &history{m: m}
	if err := h.applyTail(e.tail); err != nil {
		c.t.Fatal(err)
	}
	return m
}

func diffDumps(a, b machineDump) string {
	if reflect.DeepEqual(a, b) {
		return ""
	}
	if a.Stats != b.Stats {
		return fmt.Sprintf("stats %+v vs %+v", a.Stats, b.Stats)
	}
	if !reflect.DeepEqual(a.Global, b.Global) {
		return "global memory differs"
	}
	if len(a.CTAs) != len(b.CTAs) {
		return fmt.Sprintf("%d vs %d CTAs", len(a.CTAs), len(b.CTAs))
	}
	for i := range a.CTAs {
		x, y := a.CTAs[i], b.CTAs[i]
		if !reflect.DeepEqual(x.Shared, y.Shared) {
			return fmt.Sprintf("CTA %d shared memory differs", i)
		}
		for j := range x.Warps {
			if !reflect.DeepEqual(x.Warps[j], y.Warps[j]) {
				return fmt.Sprintf("CTA %d warp %d differs: pc %d vs %d", i, j, x.Warps[j].PC, y.Warps[j].PC)
			}
		}
	}
	return fmt.Sprintf("%+v\nvs\n%+v", a, b)
}

func TestLoadDiagnostics(t *testing.T) {
	c := newClient(t, newManager(t, Limits{}))
	bad := hdr + ".visible .entry k() {\n\tmov.u32 %r1, 1;\n\tret;\n}\n"
	c.send(map[string]any{"type": "load", "id": 7, "source": bad, "spec": json.RawMessage(`{"block":[32]}`)})
	var d diagnosticsMsg
	json.Unmarshal(c.expect("diagnostics"), &d)
	if d.ID == nil || *d.ID != 7 || len(d.Items) == 0 || d.Items[0].Severity != "error" || d.Items[0].Line != 5 {
		t.Fatalf("diagnostics %+v", d)
	}
	// No program: commands are refused, the session carries on.
	c.send(`{"type":"step","id":8}`)
	if h := c.expectError("no-program"); h.ID == nil || *h.ID != 8 {
		t.Fatalf("error id %v", h.ID)
	}
	st := c.load(divergentPTX, divergentSpec)
	if !st.Full || st.Step != 0 || st.Steps != 1 || st.Status != "paused" || st.Reason != "loaded" || len(st.CTAs) != 2 {
		t.Fatalf("initial state %+v", st)
	}
	if st.Regs == nil || len(st.Regs.Values) == 0 {
		t.Fatal("full state without registers")
	}
	// A spec that does not fit the kernel runs the launch inferred from it.
	c.send(map[string]any{"type": "load", "id": 9, "source": divergentPTX, "spec": json.RawMessage(`{"block":[32]}`)})
	c.expect("diagnostics")
	var l loadedMsg
	json.Unmarshal(c.expect("loaded"), &l)
	if l.Launch == nil || !l.Launch.Applied {
		t.Fatalf("launch %+v", l.Launch)
	}
	c.state()
	// A spec that is not a launch spec is an error.
	c.send(map[string]any{"type": "load", "id": 10, "source": divergentPTX, "spec": json.RawMessage(`{"grid":"x"}`)})
	c.expect("diagnostics")
	c.expectError("bad-request")
}

func TestLoadedMessage(t *testing.T) {
	c := newClient(t, newManager(t, Limits{}))
	c.send(map[string]any{"type": "load", "id": 1, "source": reducePTX, "spec": json.RawMessage(reduceSpec)})
	c.expect("diagnostics")
	var l loadedMsg
	json.Unmarshal(c.expect("loaded"), &l)
	if l.Entry != "reduce" || l.WarpsPerCTA != 8 || l.TotalCTAs != 1 || l.SharedBytes != 1024 || len(l.Buffers) != 2 || l.Buffers[0].Name != "in" {
		t.Fatalf("loaded %+v", l)
	}
	names := map[string]bool{}
	for _, r := range l.Regs {
		names[r.Name] = true
	}
	if !names["%r1"] || !names["%rd4"] || len(l.Preds) != 3 {
		t.Fatalf("regs %+v preds %+v", l.Regs, l.Preds)
	}
	if len(l.Lines) == 0 || l.Lines[0].Line != 8 {
		t.Fatalf("lines %+v", l.Lines)
	}
}

func TestStepGranularities(t *testing.T) {
	c := newClient(t, newManager(t, Limits{}))
	c.load(divergentPTX, divergentSpec)
	st := c.step("warp", 1)
	if st.Step != 1 || st.Steps != 2 || st.Stats.WarpInstructions != 1 || st.Last == nil || st.Last.Warp != 0 || st.Last.Line != 7 {
		t.Fatalf("warp step %+v", st)
	}
	if st.Full || len(st.CTAs) != 1 || len(st.CTAs[0].Warps) != 1 {
		t.Fatalf("delta should carry one warp: %+v", st.CTAs)
	}
	// A round runs until the scheduler wraps around the 4 resident
	// warps: after warp 0's step, warps 1 to 3.
	st = c.step("round", 1)
	if st.Stats.WarpInstructions != 4 || st.Step != 4 {
		t.Fatalf("round %+v", st.Stats)
	}
	// Divergence shows as an event (warp 0's fifth instruction).
	st = c.step("warp", 13)
	found := false
	for _, e := range st.Events {
		if e.Kind == "diverge" {
			found = true
		}
	}
	if !found {
		t.Fatalf("no diverge event in %+v", st.Events)
	}
	// Barrier granularity on the reduction: the first release.
	c.load(reducePTX, reduceSpec)
	st = c.step("barrier", 1)
	rel := false
	for _, e := range st.Events {
		if e.Kind == "barrier-release" {
			rel = true
		}
	}
	if !rel || st.Reason != "stepped" {
		t.Fatalf("barrier step: events %+v reason %s", st.Events, st.Reason)
	}
	// Shared memory written by the step is in the delta.
	if len(st.Memory) == 0 {
		t.Fatalf("no memory in the barrier step")
	}
	sh := false
	for _, m := range st.Memory {
		if m.Space == "shared" && m.Offset == 0 && len(m.Hex) == 2048 && m.Hex[:8] == "01000000" {
			sh = true
		}
	}
	if !sh {
		t.Fatalf("memory %+v", st.Memory)
	}
	// Step to the end.
	st = c.step("barrier", 100)
	if st.Status != "done" || st.Reason != "done" {
		t.Fatalf("end %+v", st)
	}
	var d doneMsg
	json.Unmarshal(c.expect("done"), &d)
	var res struct {
		Status  string
		Buffers map[string]struct{ Values []uint32 }
	}
	if err := json.Unmarshal(d.Result, &res); err != nil {
		t.Fatal(err)
	}
	if res.Status != "ok" || res.Buffers["out"].Values[0] != 256*257/2 {
		t.Fatalf("result %s", d.Result)
	}
	// Stepping a finished launch changes nothing.
	st = c.step("warp", 1)
	if st.Status != "done" {
		t.Fatalf("after done %+v", st)
	}
}

// step back and seek reproduce exactly the states they return to.
func TestBackSeekExact(t *testing.T) {
	cases := []struct{ name, src, spec string }{
		{"reduce", reducePTX, reduceSpec},
		{"divergent", divergentPTX, divergentSpec},
	}
	// cp.async copies in flight are part of the state (warpDump.Pending).
	for _, name := range []string{"cp-async", "cp-async-missing-wait"} {
		ex := exampleNamed(t, name)
		cases = append(cases, struct{ name, src, spec string }{name, ex.src, ex.spec})
	}
	for _, tc := range cases {
		for _, sched := range []string{"independent", "simt-stack"} {
			t.Run(tc.name+"/"+sched, func(t *testing.T) { backSeekExact(t, tc.name, tc.src, withScheduling(tc.spec, sched)) })
		}
	}
	// Long-lived thread groups, and lanes that stop waiting at their
	// reconvergence point (it only completes with independent scheduling).
	t.Run("spin-lock/independent", func(t *testing.T) {
		backSeekExact(t, "spin-lock", spinLockPTX, `{"scheduling":"independent","block":[32],"buffers":[{"name":"out","type":"u32","count":2}],"params":[{"buffer":"out"}]}`)
	})
}

// Every lane of the warp takes a lock in a loop, increments a counter and
// releases the lock.
const spinLockPTX = hdr + `
.visible .entry k(.param .u64 out) {
	.reg .u32 %r<4>; .reg .u64 %rd<4>; .reg .pred %p;
	ld.param.u64 %rd1, [out];
	add.u64 %rd2, %rd1, 4;
LOCK:
	atom.global.cas.b32 %r1, [%rd1], 0, 1;
	setp.ne.u32 %p, %r1, 0;
	@%p bra LOCK;
	ld.volatile.global.u32 %r2, [%rd2];
	add.u32 %r2, %r2, 1;
	st.volatile.global.u32 [%rd2], %r2;
	atom.global.exch.b32 %r3, [%rd1], 0;
	ret;
}
`

// withScheduling adds "scheduling" to a launch spec's JSON.
func withScheduling(spec, sched string) string {
	return `{"scheduling":"` + sched + `",` + strings.TrimPrefix(strings.TrimSpace(spec), "{")
}

func backSeekExact(t *testing.T, name, src, spec string) {
	tc := struct{ name, src, spec string }{name, src, spec}
	{
		{
			c := newClient(t, newManager(t, Limits{}))
			c.load(tc.src, tc.spec)
			c.do(func() { c.s.h.interval, c.s.h.jobInterval = 8, 32 })
			dumps := map[int64]machineDump{0: c.dump()}
			rnd := rand.New(rand.NewSource(1))
			grans := []string{"warp", "warp", "warp", "round", "barrier"}
			for i := 0; ; i++ {
				g := grans[rnd.Intn(len(grans))]
				n := 1 + rnd.Intn(4)
				if g == "warp" && rnd.Intn(3) == 0 {
					n = 1 + rnd.Intn(40)
				}
				if tc.name == "spin-lock" {
					n *= 8
				}
				st := c.step(g, n)
				if st.Full {
					// CTAs retired: fine, but the step number must advance.
				}
				dumps[st.Step] = c.dump()
				if st.Status == "done" {
					c.expect("done")
					break
				}
				if i > 2000 {
					t.Fatal("kernel did not finish")
				}
			}
			if tc.name == "cp-async" {
				inFlight := 0
				for _, d := range dumps {
					for _, cd := range d.CTAs {
						for _, wd := range cd.Warps {
							if len(wd.Pending) > 0 {
								inFlight++
							}
						}
					}
				}
				if inFlight == 0 {
					t.Fatal("no recorded state had copies in flight")
				}
			}
			var head int64
			c.do(func() { head = c.s.h.head })
			for i := 0; i < 60; i++ {
				k := rnd.Int63n(head + 1)
				if i%5 == 0 {
					c.send(map[string]any{"type": "back", "count": 1 + rnd.Intn(5), "granularity": grans[rnd.Intn(len(grans))]})
				} else {
					c.send(map[string]any{"type": "seek", "step": k})
				}
				st, _ := c.state()
				if !st.Full {
					t.Fatal("seek reply is not full")
				}
				got := c.dump()
				if want, ok := dumps[st.Step]; ok {
					if d := diffDumps(got, want); d != "" {
						t.Fatalf("seek %d: state differs from the recorded one: %s", st.Step, d)
					}
				}
				if i%7 == 0 || dumps[st.Step].CTAs == nil {
					if d := diffDumps(got, c.fresh(st.Step)); d != "" {
						t.Fatalf("seek %d: state differs from a fresh machine: %s", st.Step, d)
					}
				}
			}
			// A step in the past moves along the recorded trajectory and
			// keeps the future.
			c.send(map[string]any{"type": "seek", "step": head / 2})
			c.state()
			st := c.step("warp", 3)
			if st.Step != head/2+3 || st.Steps != head+1 {
				t.Fatalf("step in the past: step %d of %d (head %d)", st.Step, st.Steps, head)
			}
			if d := diffDumps(c.dump(), c.fresh(st.Step)); d != "" {
				t.Fatalf("after stepping in the past: %s", d)
			}
			c.send(map[string]any{"type": "seek", "step": st.Steps})
			c.expectError("bad-request")
			c.send(map[string]any{"type": "back", "count": 2})
			st, _ = c.state()
			if st.Step != head/2+1 {
				t.Fatalf("back 2 from %d gave %d", head/2+3, st.Step)
			}
			if d := diffDumps(c.dump(), c.fresh(st.Step)); d != "" {
				t.Fatalf("back after stepping: %s", d)
			}
		}
	}
}

// With a small history budget old steps are dropped (firstStep rises) and
// the remaining ones stay exact.
func TestHistoryBudget(t *testing.T) {
	c := newClient(t, newManager(t, Limits{MaxHistoryBytes: 48 << 10}))
	c.load(spinPTX, spinSpec(64, 1000))
	c.do(func() { c.s.h.interval, c.s.h.jobInterval = 16, 64 })
	var st stateMsg
	for i := 0; i < 300; i++ {
		st = c.step("warp", 1+i%7)
	}
	if st.FirstStep == 0 {
		t.Fatal("history was not trimmed")
	}
	var bytes int64
	c.do(func() { bytes = c.s.h.bytes() })
	if bytes > 48<<10 {
		t.Fatalf("history uses %d bytes", bytes)
	}
	for _, k := range []int64{st.FirstStep, st.FirstStep + 1, (st.FirstStep + st.Step) / 2, st.Step - 1, st.FirstStep + 3, st.Step} {
		c.send(map[string]any{"type": "seek", "step": k})
		got, _ := c.state()
		if got.Step != k {
			t.Fatalf("seek %d gave %d", k, got.Step)
		}
		if d := diffDumps(c.dump(), c.fresh(k)); d != "" {
			t.Fatalf("step %d: %s", k, d)
		}
	}
	c.send(map[string]any{"type": "seek", "step": st.FirstStep - 1})
	c.expectError("bad-request")
	// A long run with a small budget: the run's step stays reachable.
	c.send(map[string]any{"type": "run"})
	st, _ = c.state()
	if st.Status != "done" {
		t.Fatalf("run %+v", st)
	}
	c.expect("done")
	c.do(func() { bytes = c.s.h.bytes() })
	if bytes > 64<<10 {
		t.Fatalf("history uses %d bytes after the run", bytes)
	}
	c.send(map[string]any{"type": "back"})
	back, _ := c.state()
	if back.Step < back.FirstStep {
		t.Fatalf("back to %d, first %d", back.Step, back.FirstStep)
	}
	if d := diffDumps(c.dump(), c.fresh(back.Step)); d != "" {
		t.Fatalf("back after the run: %s", d)
	}
}

func TestRunPauseAndDone(t *testing.T) {
	c := newClient(t, newManager(t, Limits{FrameInterval: time.Millisecond}))
	c.load(spinPTX, spinSpec(256, 1<<30))
	c.send(map[string]any{"type": "run", "id": 3})
	// Wait for a frame, then pause.
	var fr stateMsg
	json.Unmarshal(c.expect("state"), &fr)
	if !fr.Running || fr.Reason != "running" {
		t.Fatalf("frame %+v", fr)
	}
	c.send(map[string]any{"type": "pause", "id": 4})
	st, _ := c.state()
	if st.Running || st.Reason != "paused" || st.Status != "paused" || st.ID == nil || *st.ID != 4 || st.Stats.WarpInstructions == 0 {
		t.Fatalf("after pause %+v", st)
	}
	if d := diffDumps(c.dump(), c.fresh(st.Step)); d != "" {
		t.Fatalf("paused state: %s", d)
	}
	// Run to completion.
	c.load(spinPTX, spinSpec(64, 200))
	c.send(map[string]any{"type": "run", "id": 5})
	st, _ = c.state()
	if st.Status != "done" || st.Reason != "done" || st.Step != st.Stats.WarpInstructions {
		t.Fatalf("run %+v", st)
	}
	end := st.Step
	var d doneMsg
	json.Unmarshal(c.expect("done"), &d)
	if !strings.Contains(string(d.Result), `"status":"ok"`) || !strings.Contains(string(d.Result), `"values":[200,200`) {
		t.Fatalf("done %s", trunc(d.Result))
	}
	// Back one warp-instruction, to the start, and forward again.
	c.send(map[string]any{"type": "back"})
	st, _ = c.state()
	if st.Step != end-1 || st.Stats.WarpInstructions != end-1 || st.Status != "paused" {
		t.Fatalf("back %+v", st)
	}
	if d := diffDumps(c.dump(), c.fresh(end-1)); d != "" {
		t.Fatal(d)
	}
	c.send(map[string]any{"type": "seek", "step": 0})
	st, _ = c.state()
	if st.Step != 0 || st.Stats.WarpInstructions != 0 || st.Status != "paused" {
		t.Fatalf("seek 0 %+v", st)
	}
	c.send(map[string]any{"type": "seek", "step": end})
	st, _ = c.state()
	if st.Status != "done" {
		t.Fatalf("seek to the end %+v", st)
	}
	if d := diffDumps(c.dump(), c.fresh(end)); d != "" {
		t.Fatal(d)
	}
}

func TestBreakpoints(t *testing.T) {
	c := newClient(t, newManager(t, Limits{}))
	c.load(divergentPTX, divergentSpec)
	c.send(map[string]any{"type": "breakpoint", "id": 2, "line": 19, "on": true}) // the st.global
	var bp breakpointsMsg
	json.Unmarshal(c.expect("breakpoints"), &bp)
	if len(bp.Lines) != 1 || bp.Lines[0] != 19 {
		t.Fatalf("breakpoints %+v", bp)
	}
	c.send(map[string]any{"type": "breakpoint", "line": 2, "on": true})
	c.expectError("bad-request")
	var stops []stateMsg
	for i := 0; i < 4; i++ {
		c.send(map[string]any{"type": "run"})
		st, _ := c.state()
		if st.Reason != "breakpoint" || st.Next == nil {
			t.Fatalf("run %d: %+v", i, st)
		}
		var pc int
		c.do(func() { pc = c.s.m.NextWarp().PC() })
		var line int
		c.do(func() { line = c.s.prog.line(pc) })
		if line != 19 {
			t.Fatalf("stopped at line %d", line)
		}
		stops = append(stops, st)
	}
	// Every resident warp stopped once; nothing was stored yet.
	if stops[0].Next.Warp == stops[1].Next.Warp && stops[0].Next.CTA == stops[1].Next.CTA {
		t.Fatal("the same warp stopped twice")
	}
	// Breakpoint steps are exact too.
	c.send(map[string]any{"type": "seek", "step": 2})
	c.state()
	if d := diffDumps(c.dump(), c.fresh(2)); d != "" {
		t.Fatal(d)
	}
	c.send(map[string]any{"type": "breakpoint", "line": 19, "on": false})
	json.Unmarshal(c.expect("breakpoints"), &bp)
	if len(bp.Lines) != 0 {
		t.Fatalf("breakpoints %+v", bp)
	}
	c.send(map[string]any{"type": "run"})
	st, _ := c.state()
	if st.Status != "done" {
		t.Fatalf("run %+v", st)
	}
	c.expect("done")
}

func TestFault(t *testing.T) {
	c := newClient(t, newManager(t, Limits{}))
	c.load(faultPTX, faultSpec)
	c.send(map[string]any{"type": "run"})
	st, _ := c.state()
	if st.Status != "fault" || st.Fault == nil || st.Fault.Line != 11 || st.Fault.Kind != "out-of-bounds" || st.Fault.Thread[0] != 8 {
		t.Fatalf("fault %+v %+v", st, st.Fault)
	}
	var d doneMsg
	json.Unmarshal(c.expect("done"), &d)
	if !strings.Contains(string(d.Result), `"status":"fault"`) {
		t.Fatalf("done %s", d.Result)
	}
	c.send(map[string]any{"type": "back"})
	st, _ = c.state()
	if st.Fault != nil || st.Status != "paused" {
		t.Fatalf("back %+v", st)
	}
	c.send(map[string]any{"type": "step", "count": 100})
	st, _ = c.state()
	if st.Status != "fault" {
		t.Fatalf("step %+v", st)
	}
	c.expect("done")
}

func TestMalformed(t *testing.T) {
	c := newClient(t, newManager(t, Limits{MaxSourceBytes: 1000, MaxMessageBytes: 4000}))
	c.send("{not json")
	c.expectError("bad-request")
	c.send(`{"type":"fly","id":3}`)
	if h := c.expectError("bad-request"); h.ID == nil || *h.ID != 3 {
		t.Fatal("id not echoed")
	}
	c.send(`{"type":"step","granularity":"year"}`)
	c.expectError("bad-request")
	c.send(`{"type":"step","count":100000}`)
	c.expectError("bad-request")
	c.send(`{"type":"seek"}`)
	c.expectError("bad-request")
	c.send(`{"type":"inspect","memory":{"space":"local","bytes":4}}`)
	c.expectError("bad-request")
	c.send(map[string]any{"type": "load", "source": strings.Repeat(" ", 2000)})
	c.expectError("too-large")
	c.send(strings.Repeat(" ", 5000))
	c.expectError("too-large")
	// The session still works.
	c.load(divergentPTX, divergentSpec)
	st := c.step("warp", 1)
	if st.Stats.WarpInstructions != 1 {
		t.Fatal(st.Stats)
	}
	c.send(map[string]any{"type": "load", "source": divergentPTX, "spec": json.RawMessage(`{"ptx":"x.ptx"}`)})
	c.expect("diagnostics")
	c.expectError("bad-request")
}

func TestInspect(t *testing.T) {
	c := newClient(t, newManager(t, Limits{}))
	c.load(reducePTX, reduceSpec)
	c.step("barrier", 1)
	c.send(map[string]any{"type": "inspect", "id": 4, "cta": 0, "warp": 3,
		"memory": map[string]any{"space": "global", "buffer": "in", "offset": 0, "bytes": 16}})
	var in inspectMsg
	json.Unmarshal(c.expect("inspect"), &in)
	if in.Warp != 3 || in.Regs == nil || in.Memory == nil || in.Memory.Hex != "01000000020000000300000004000000" {
		t.Fatalf("inspect %+v %+v", in, in.Memory)
	}
	// %r1 is the thread index: lanes 96.. for warp 3.
	var slot int
	c.do(func() {
		for i, r := range c.s.prog.prog.Regs {
			if r.Name == "%r1" {
				slot = i
			}
		}
	})
	if v := in.Regs.Values[fmt.Sprint(slot)]; len(v) != 32 || v[0] != "60" || v[31] != "7f" {
		t.Fatalf("%%r1 = %v", v)
	}
	// The next states carry warp 3's registers.
	st := c.step("warp", 8)
	if st.Regs != nil && st.Regs.Warp != 3 {
		t.Fatalf("regs of warp %d", st.Regs.Warp)
	}
	c.send(map[string]any{"type": "inspect", "cta": 0, "warp": 0, "memory": map[string]any{"space": "shared", "offset": 1020, "bytes": 8}})
	c.expectError("bad-request")
	c.send(map[string]any{"type": "inspect", "cta": 5, "warp": 0})
	c.expectError("bad-request")
}

func TestLimits(t *testing.T) {
	// A full manager answers busy.
	m := newManager(t, Limits{MaxSessions: 1})
	c := newClient(t, m)
	if _, err := m.NewSession(); err != ErrBusy {
		t.Fatalf("second session: %v", err)
	}
	if !strings.Contains(string(ErrBusy.Frame()), `"code":"busy"`) {
		t.Fatal(string(ErrBusy.Frame()))
	}
	c.s.Close()
	if _, err := m.NewSession(); err != nil {
		t.Fatalf("after close: %v", err)
	}

	// A run over the per-command budget pauses (reason budget) and can
	// continue.
	c = newClient(t, newManager(t, Limits{MaxWarpInstructions: 1000}))
	c.load(spinPTX, spinSpec(64, 1<<30))
	c.send(map[string]any{"type": "run"})
	st, _ := c.state()
	if st.Status != "paused" || st.Reason != "budget" || st.Stats.WarpInstructions != 1000 || st.Message == "" {
		t.Fatalf("limit %+v", st)
	}
	c.send(map[string]any{"type": "run", "maxWarpInstructions": 10})
	st, _ = c.state()
	if st.Stats.WarpInstructions != 1010 {
		t.Fatalf("second run %+v", st.Stats)
	}
	st = c.step("warp", 10000)
	if st.Status != "paused" || st.Reason != "budget" || st.Stats.WarpInstructions != 2010 {
		t.Fatalf("step %+v", st)
	}
	// A launch over the state budget is refused.
	c2 := newClient(t, newManager(t, Limits{MaxStateBytes: 4096}))
	c2.send(map[string]any{"type": "load", "source": spinPTX, "spec": json.RawMessage(spinSpec(1024, 1))})
	c2.expect("diagnostics")
	c2.expectError("limit")
	// Buffers over the budget are refused.
	c3 := newClient(t, newManager(t, Limits{MaxBufferBytes: 1024}))
	c3.send(map[string]any{"type": "load", "source": spinPTX, "spec": json.RawMessage(spinSpec(1024, 1))})
	c3.expect("diagnostics")
	c3.expectError("bad-request")
}

func TestIdleExpiry(t *testing.T) {
	m := newManager(t, Limits{IdleTimeout: time.Hour})
	c := newClient(t, m)
	c.load(divergentPTX, divergentSpec)
	m.sweep(time.Now().Add(30 * time.Minute))
	if m.Len() != 1 {
		t.Fatal("expired early")
	}
	m.sweep(time.Now().Add(2 * time.Hour))
	c.expectError("expired")
	if typ, _ := c.next(); typ != "EOF" {
		t.Fatalf("after expiry: %s", typ)
	}
	<-c.s.Done()
	if m.Len() != 0 {
		t.Fatal("session not removed")
	}
	// The janitor does it by itself with a short timeout.
	m2 := newManager(t, Limits{IdleTimeout: 50 * time.Millisecond})
	c2 := newClient(t, m2)
	c2.expectError("expired")
	select {
	case <-c2.s.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("not closed")
	}
}

func TestSlowClient(t *testing.T) {
	c := newClient(t, newManager(t, Limits{MaxOutboundBytes: 64 << 10, FrameInterval: time.Millisecond}))
	c.load(spinPTX, spinSpec(256, 1<<30))
	// Frames are not queued behind each other: with nobody reading, a run
	// leaves at most one frame waiting.
	c.send(map[string]any{"type": "run"})
	time.Sleep(100 * time.Millisecond)
	c.do(func() {})
	var frames int
	c.s.out.mu.Lock()
	frames = c.s.out.frames
	c.s.out.mu.Unlock()
	if frames > 1 {
		t.Fatalf("%d frames queued", frames)
	}
	c.send(map[string]any{"type": "pause"})
	st, _ := c.state()
	if st.Running {
		t.Fatal("still running")
	}
	// A client that never reads is disconnected, not waited for.
	for i := 0; i < 200; i++ {
		c.send(map[string]any{"type": "inspect", "memory": map[string]any{"space": "global", "buffer": "out", "offset": 0, "bytes": 1024}})
	}
	select {
	case <-c.s.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("session kept a client that does not read")
	}
	msgs, _ := c.s.Take()
	if len(msgs) != 1 || !strings.Contains(string(msgs[0]), `"code":"limit"`) {
		t.Fatalf("last messages %d", len(msgs))
	}
}

func TestProgramCache(t *testing.T) {
	m := newManager(t, Limits{ProgramCache: 2})
	a, b := m.cache.get(divergentPTX), m.cache.get(divergentPTX)
	if a != b || a.prog == nil {
		t.Fatal("not cached")
	}
	m.cache.get(reducePTX)
	m.cache.get(spinPTX)
	if m.cache.get(divergentPTX) == a {
		t.Fatal("not evicted")
	}
}

func TestNoGoroutineLeak(t *testing.T) {
	before := runtime.NumGoroutine()
	m := NewManager(Limits{}, nil)
	var cs []*client
	for i := 0; i < 4; i++ {
		c := newClient(t, m)
		c.load(spinPTX, spinSpec(64, 1<<30))
		cs = append(cs, c)
	}
	cs[0].send(map[string]any{"type": "run"})
	cs[1].send(map[string]any{"type": "step", "count": 50})
	cs[2].s.Close()
	m.Close()
	for _, c := range cs {
		<-c.s.Done()
	}
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<16)
			t.Fatalf("%d goroutines before, %d after:\n%s", before, runtime.NumGoroutine(), buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(10 * time.Millisecond)
	}
	if _, err := m.NewSession(); err != ErrClosed {
		t.Fatalf("closed manager: %v", err)
	}
}

// Atomics and plain stores from many lanes to the same addresses, shared
// memory and barriers, over more CTAs than are resident at once.
const mixPTX = hdr + `
.visible .entry mix(.param .u64 out, .param .u64 cnt) {
	.reg .u32 %r<10>; .reg .u64 %rd<6>; .reg .pred %p<2>;
	.shared .align 4 .u32 sm[64];
	ld.param.u64 %rd1, [out];
	ld.param.u64 %rd2, [cnt];
	mov.u32 %r1, %tid.x;
	and.b32 %r3, %r1, 7;
	mul.wide.u32 %rd3, %r3, 4;
	add.u64 %rd4, %rd1, %rd3;
	mov.u32 %r7, sm;
	shl.b32 %r6, %r1, 2;
	add.u32 %r8, %r7, %r6;
	mov.u32 %r4, 0;
	mov.u32 %r2, %ctaid.x;
	rem.u32 %r9, %r2, 3;
	add.u32 %r9, %r9, 6;
LOOP:
	atom.global.add.u32 %r5, [%rd2], 1;
	st.global.u32 [%rd4], %r5;
	st.shared.u32 [%r8], %r5;
	bar.sync 0;
	ld.shared.u32 %r5, [%r7];
	add.u32 %r4, %r4, 1;
	setp.lt.u32 %p1, %r4, %r9;
	@%p1 bra LOOP;
	ret;
}
`

const mixSpec = `{"grid":[6],"block":[64],"buffers":[{"name":"out","type":"u32","count":8},{"name":"cnt","type":"u32","count":1}],"params":[{"buffer":"out"},{"buffer":"cnt"}]}`

// Random commands, each state compared with a fresh machine.
func TestRandomHistory(t *testing.T) {
	for _, budget := range []int64{0, 300 << 10} {
		for _, sched := range []string{"independent", "simt-stack"} {
			t.Run(fmt.Sprint(budget)+"/"+sched, func(t *testing.T) { randomHistory(t, budget, withScheduling(mixSpec, sched)) })
		}
	}
}

func randomHistory(t *testing.T, budget int64, mixSpec string) {
	{
		{
			c := newClient(t, newManager(t, Limits{MaxHistoryBytes: budget}))
			c.load(mixPTX, mixSpec)
			c.do(func() { c.s.h.interval, c.s.h.jobInterval = 4, 16 })
			rnd := rand.New(rand.NewSource(budget + 7))
			bpLines := []int{22, 24, 25}
			usedRedo, terminal, trimmed := false, false, false
			for i := 0; i < 400; i++ {
				if i == 200 {
					c.load(mixPTX, mixSpec)
					c.do(func() { c.s.h.interval, c.s.h.jobInterval = 4, 16 })
					terminal = false
				}
				var st stateMsg
				moved := false
				switch x := rnd.Intn(12); {
				case x < 5:
					st = c.step([]string{"warp", "round", "barrier"}[rnd.Intn(3)], 1+rnd.Intn(6))
					moved = true
				case x < 7:
					c.send(map[string]any{"type": "breakpoint", "line": bpLines[rnd.Intn(3)], "on": rnd.Intn(3) > 0})
					c.expect("breakpoints")
					c.send(map[string]any{"type": "run"})
					st, _ = c.state()
					moved = true
				case x < 9:
					c.send(map[string]any{"type": "back", "count": 1 + rnd.Intn(8), "granularity": []string{"warp", "round", "barrier"}[rnd.Intn(3)]})
					st, _ = c.state()
				default:
					var first, head int64
					c.do(func() { first, head = c.s.h.first, c.s.h.head })
					c.send(map[string]any{"type": "seek", "step": first + rnd.Int63n(head-first+1)})
					st, _ = c.state()
				}
				if moved && !terminal && st.Status != "paused" {
					c.expect("done")
				}
				terminal = st.Status != "paused"
				c.do(func() {
					usedRedo = usedRedo || c.s.h.redo.len() > 0
					trimmed = trimmed || c.s.h.first > 0
				})
				if d := diffDumps(c.dump(), c.fresh(st.Step)); d != "" {
					t.Fatalf("command %d (step %d): %s", i, st.Step, d)
				}
			}
			if !usedRedo {
				t.Error("the redo log was never used")
			}
			if budget > 0 && !trimmed {
				t.Error("the history was never trimmed")
			}
			c.do(func() {
				h := c.s.h
				t.Logf("steps %d..%d, %d snapshots of %d bytes, %d bytes", h.first, h.head, len(h.snaps), h.snaps[0].s.Size(), h.bytes())
			})
		}
	}
}

// A launch that deadlocks without executing another instruction: the
// step's state (the fault) is reproduced by seeking.
const deadlockPTX = hdr + `
.visible .entry dl() {
	.reg .u32 %r<2>; .reg .pred %p;
	mov.u32 %r1, %tid.x;
	setp.ge.u32 %p, %r1, 32;
	@%p exit;
	bar.sync 0, 64;
	ret;
}
`

func TestDeadlockSettled(t *testing.T) {
	c := newClient(t, newManager(t, Limits{}))
	c.load(deadlockPTX, `{"block":[64]}`)
	st := c.step("warp", 100)
	if st.Status != "fault" || st.Fault == nil || st.Fault.Kind != "barrier-deadlock" || st.Step != 7 {
		t.Fatalf("deadlock %+v", st)
	}
	c.expect("done")
	var e stop
	c.do(func() { e = *c.s.h.stopAt(7) })
	if !e.tail.settled {
		t.Fatal("not a settled step")
	}
	c.send(map[string]any{"type": "back"})
	c.state()
	c.send(map[string]any{"type": "seek", "step": 7})
	st, _ = c.state()
	if st.Status != "fault" || st.Fault == nil {
		t.Fatalf("seek %+v", st)
	}
	if d := diffDumps(c.dump(), c.fresh(7)); d != "" {
		t.Fatal(d)
	}
}

type fakeMetrics struct {
	mu       sync.Mutex
	sessions int
	steps    int
	lat      int
	faults   map[string]int
	panics   int
	// slowFault delays AddFault, to show whether the fault is counted
	// before or after the client is told.
	slowFault time.Duration
}

func (f *fakeMetrics) SetSessions(n int) { f.mu.Lock(); f.sessions = n; f.mu.Unlock() }
func (f *fakeMetrics) AddSteps(n int)    { f.mu.Lock(); f.steps += n; f.mu.Unlock() }
func (f *fakeMetrics) ObserveStepLatency(time.Duration) {
	f.mu.Lock()
	f.lat++
	f.mu.Unlock()
}
func (f *fakeMetrics) AddFault(kind string) {
	time.Sleep(f.slowFault)
	f.mu.Lock()
	f.faults[kind]++
	f.mu.Unlock()
}
func (f *fakeMetrics) AddPanic() { f.mu.Lock(); f.panics++; f.mu.Unlock() }

func TestMetricsAndReset(t *testing.T) {
	fm := &fakeMetrics{faults: map[string]int{}, slowFault: 50 * time.Millisecond}
	m := NewManager(Limits{}, fm)
	t.Cleanup(m.Close)
	c := newClient(t, m)
	c.load(faultPTX, faultSpec)
	c.step("warp", 2)
	c.send(map[string]any{"type": "breakpoint", "line": 11})
	c.expect("breakpoints")
	c.send(map[string]any{"type": "back"})
	c.state()
	c.send(map[string]any{"type": "run"})
	st, _ := c.state()
	if st.Reason != "breakpoint" || st.Step != 4 {
		t.Fatalf("run %+v", st)
	}
	c.send(map[string]any{"type": "run"})
	st, _ = c.state()
	if st.Status != "fault" {
		t.Fatalf("run %+v", st)
	}
	// The fault is counted before the final state is sent.
	fm.mu.Lock()
	if fm.faults["out-of-bounds"] != 1 {
		t.Errorf("fault not counted when the final state arrived: %+v", fm.faults)
	}
	fm.mu.Unlock()
	c.expect("done")
	fm.mu.Lock()
	if fm.sessions != 1 || fm.steps != 3 || fm.lat != 2 || fm.faults["out-of-bounds"] != 1 {
		t.Fatalf("metrics %+v", fm)
	}
	fm.mu.Unlock()
	// Reset: step 0 again, breakpoints kept.
	c.send(map[string]any{"type": "reset", "id": 9})
	st, _ = c.state()
	if !st.Full || st.Step != 0 || st.Steps != 1 || st.Stats.WarpInstructions != 0 || st.Reason != "reset" || st.Status != "paused" {
		t.Fatalf("reset %+v", st)
	}
	c.send(map[string]any{"type": "run"})
	st, _ = c.state()
	if st.Reason != "breakpoint" {
		t.Fatalf("after reset %+v", st)
	}
	c.s.Close()
	fm.mu.Lock()
	defer fm.mu.Unlock()
	if fm.sessions != 0 {
		t.Fatalf("sessions gauge %d", fm.sessions)
	}
}

// The step that executes the last instruction reports the launch done.
func TestStepToEndSettles(t *testing.T) {
	c := newClient(t, newManager(t, Limits{}))
	c.load(spinPTX, spinSpec(64, 2))
	var st stateMsg
	for i := 0; i < 100; i++ {
		st = c.step("warp", 1)
		if st.Status != "paused" {
			break
		}
		if st.Next == nil {
			t.Fatalf("step %d: paused with no next warp", st.Step)
		}
	}
	if st.Status != "done" || st.Reason != "done" {
		t.Fatalf("end %+v", st)
	}
	c.expect("done")
	var e stop
	c.do(func() { e = *c.s.h.stopAt(st.Step) })
	if !e.tail.settled {
		t.Fatal("last step not settled")
	}
	c.send(map[string]any{"type": "seek", "step": 0})
	c.state()
	c.send(map[string]any{"type": "seek", "step": st.Step})
	got, _ := c.state()
	if got.Status != "done" {
		t.Fatalf("seek to the end %+v", got)
	}
	if d := diffDumps(c.dump(), c.fresh(st.Step)); d != "" {
		t.Fatal(d)
	}
}

const fillPTX = hdr + `
.visible .entry fill(.param .u64 out, .param .u32 n) {
	.reg .u32 %r<6>; .reg .u64 %rd<4>; .reg .pred %p;
	ld.param.u64 %rd1, [out];
	ld.param.u32 %r1, [n];
	mov.u32 %r2, %tid.x;
LOOP:
	mul.wide.u32 %rd2, %r2, 4;
	add.u64 %rd3, %rd1, %rd2;
	st.global.u32 [%rd3], %r2;
	add.u32 %r2, %r2, 32;
	setp.lt.u32 %p, %r2, %r1;
	@%p bra LOOP;
	ret;
}
`

// States carry the global bytes written since the previous state, up to
// 64 KiB; beyond, memoryStale.
func TestMemoryDelta(t *testing.T) {
	// No run frames (each would carry and reset what was written).
	c := newClient(t, newManager(t, Limits{FrameInterval: time.Hour}))
	c.load(fillPTX, `{"block":[32],"buffers":[{"name":"out","type":"u32","count":40000}],"params":[{"buffer":"out"},{"u32":40000}]}`)
	st := c.step("warp", 6) // through the first store
	if len(st.Memory) != 1 || st.Memory[0].Buffer != "out" || st.Memory[0].Offset != 0 || len(st.Memory[0].Hex) != 256 || st.Memory[0].Hex[8:16] != "01000000" {
		t.Fatalf("memory %+v", st.Memory)
	}
	if st.Last == nil || len(st.Last.Accesses) != 1 {
		t.Fatalf("last %+v", st.Last)
	}
	if a := st.Last.Accesses[0]; a.Kind != "store" || a.Buffer != "out" || a.Size != 4 || a.Lanes != "ffffffff" || len(a.Offsets) != 32 ||
		*a.Offsets[0] != 0 || *a.Offsets[31] != 124 || a.Global == nil || a.Global.Sectors != 4 || a.Global.Lines != 1 || a.Global.Efficiency != 1 || st.Last.Op != "st.global.u32" {
		t.Fatalf("access %+v (op %q)", a, st.Last.Op)
	}
	st = c.step("warp", 60) // ten more stores
	if len(st.Memory) != 1 || st.Memory[0].Offset != 128 || len(st.Memory[0].Hex) != 2*1280 {
		t.Fatalf("memory %+v", st.Memory)
	}
	c.send(map[string]any{"type": "run"})
	st, _ = c.state()
	if st.Status != "done" || !st.MemoryStale || st.Memory != nil {
		t.Fatalf("after run: stale %v, %d chunks", st.MemoryStale, len(st.Memory))
	}
	c.expect("done")
	// Undoing the run restores more than 64 KiB: stale. Between steps 1
	// and 2 the bytes that differ are in the state.
	c.send(map[string]any{"type": "seek", "step": 6})
	st, _ = c.state()
	if !st.MemoryStale {
		t.Fatal("not stale after undoing the run")
	}
	c.send(map[string]any{"type": "seek", "step": 66})
	st, _ = c.state()
	if st.MemoryStale || len(st.Memory) != 1 || st.Memory[0].Offset != 128 || len(st.Memory[0].Hex) != 2*1280 {
		t.Fatalf("seek forward: stale %v memory %+v", st.MemoryStale, st.Memory)
	}
	c.send(map[string]any{"type": "back", "count": 60})
	st, _ = c.state()
	// (The replay from the snapshot at step 0 rewrote the first store too.)
	if st.MemoryStale || len(st.Memory) != 1 || st.Memory[0].Offset != 0 || len(st.Memory[0].Hex) != 2*1408 ||
		st.Memory[0].Hex[8:16] != "01000000" || strings.Trim(st.Memory[0].Hex[256:], "0") != "" {
		t.Fatalf("back: stale %v memory %+v", st.MemoryStale, st.Memory)
	}
}

// The fragment explorer's live values of an mma.sp: the metadata register is
// operand "e", beside d, a, b and c.
func TestTensorOpsSparse(t *testing.T) {
	src := hdr + `
.visible .entry sp(.param .u64 out) {
	.reg .b32 %a<2>, %b<2>, %e;
	.reg .f32 %c<4>;
	mov.b32 %e, 0x44444444;
	mma.sp::ordered_metadata.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%c0, %c1, %c2, %c3}, {%a0, %a1}, {%b0, %b1}, {%c0, %c1, %c2, %c3}, %e, 1;
	ret;
}
`
	c := newClient(t, newManager(t, Limits{}))
	c.send(map[string]any{"type": "load", "id": 1, "source": src, "spec": json.RawMessage(faultSpec)})
	c.expect("diagnostics")
	var l loadedMsg
	json.Unmarshal(c.expect("loaded"), &l)
	if len(l.TensorOps) != 1 {
		t.Fatalf("tensorOps %+v", l.TensorOps)
	}
	op := l.TensorOps[0]
	if op.Key != "mma.sp.m16n8k16.row.col.f32.f16.f16.f32" || len(op.Regs["d"]) != 4 || len(op.Regs["a"]) != 2 || len(op.Regs["b"]) != 2 || len(op.Regs["c"]) != 4 || len(op.Regs["e"]) != 1 {
		t.Fatalf("tensorOp %+v", op)
	}
}
