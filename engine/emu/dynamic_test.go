package emu

import (
	"context"
	"encoding/binary"
	"fmt"
	"math/rand"
	"reflect"
	"strings"
	"testing"

	"github.com/ptxplayground/ptxplay/engine/ptx"
)

// dynSrc grows both kinds of dynamic state: every thread recurses
// (tid+ctaid)%8 levels into f, which keeps a .local buffer across its
// recursive call (saved and restored with its registers), four times, and
// issues a cp.async and a commit before each call, waiting for all but the
// newest group only in the third iteration: threads exit with copies in
// flight (landed by exit). out[512+gtid] is 4 * (1 + depth*(depth+1)/2)
// plus the 16 copied bytes' first word.
const dynSrc = ctlHeader + `
.func (.param .u32 r) f(.param .u32 n) {
	.local .align 4 .b8 buf[64];
	.reg .u32 %r<6>; .reg .pred %p;
	ld.param.u32 %r1, [n];
	st.local.u32 [buf+8], %r1;
	setp.eq.u32 %p, %r1, 0;
	@%p bra BASE;
	sub.u32 %r2, %r1, 1;
	{
	.param .u32 a;
	.param .u32 c;
	st.param.u32 [a], %r2;
	call (c), f, (a);
	ld.param.u32 %r3, [c];
	}
	ld.local.u32 %r4, [buf+8];
	add.u32 %r3, %r3, %r4;
	st.param.u32 [r], %r3;
	ret;
BASE:
	mov.u32 %r5, 1;
	st.param.u32 [r], %r5;
	ret;
}
.visible .entry k(.param .u64 out) {
	.reg .u32 %r<12>; .reg .u64 %rd<6>; .reg .pred %p;
	.shared .align 16 .b8 sh[1024];
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, %tid.x;
	mov.u32 %r6, %ctaid.x;
	mov.u32 %r11, %ntid.x;
	add.u32 %r2, %r1, %r6;
	and.b32 %r2, %r2, 7;
	mov.u32 %r7, 0;
	mov.u32 %r10, 0;
	mov.u32 %r9, sh;
	shl.b32 %r8, %r1, 4;
	add.u32 %r8, %r8, %r9;
	mul.wide.u32 %rd2, %r1, 16;
	add.u64 %rd3, %rd1, %rd2;
LOOP:
	cp.async.cg.shared.global [%r8], [%rd3], 16;
	cp.async.commit_group;
	setp.eq.u32 %p, %r7, 2;
	@%p cp.async.wait_group 1;
	{
	.param .u32 a;
	.param .u32 c;
	st.param.u32 [a], %r2;
	call (c), f, (a);
	ld.param.u32 %r3, [c];
	}
	add.u32 %r10, %r10, %r3;
	add.u32 %r7, %r7, 1;
	setp.lt.u32 %p, %r7, 4;
	@%p bra LOOP;
	ld.shared.u32 %r4, [%r8];
	add.u32 %r10, %r10, %r4;
	mad.lo.u32 %r5, %r6, %r11, %r1;
	mul.wide.u32 %rd4, %r5, 4;
	add.u64 %rd5, %rd1, %rd4;
	st.global.u32 [%rd5+2048], %r10;
	ret;
}`

func dynMachine(t testing.TB, src string, grid, block, resident int, sched Scheduling, limit int64) (*Machine, *Alloc) {
	t.Helper()
	prog, diags := CompileSource(ptx.NewSource("t.ptx", []byte(src)))
	if prog == nil {
		t.Fatalf("compile:\n%s", ptx.FormatAll(ptx.NewSource("t.ptx", []byte(src)), diags))
	}
	m, err := NewMachine(prog, "k", Config{Grid: [3]int{grid, 1, 1}, Block: [3]int{block, 1, 1}, ResidentCTAs: resident, Scheduling: sched, MaxDynamicBytes: limit})
	if err != nil {
		t.Fatal(err)
	}
	out := m.Global.Alloc("out", 4096, 256)
	for i := range 256 {
		binary.LittleEndian.PutUint32(out.Data[4*i:], uint32(i)*2654435761)
	}
	binary.LittleEndian.PutUint64(m.Params(), out.Base)
	return m, out
}

// The kernel computes what it should (the frames are saved and restored)
// and ends with no dynamic state.
func TestDynamicKernelResult(t *testing.T) {
	for _, sched := range []Scheduling{SchedSIMTStack, SchedIndependent} {
		m, out := dynMachine(t, dynSrc, 4, 64, 2, sched, 0)
		if r := m.Run(context.Background()); r != StopDone {
			t.Fatalf("%s: stop %v, fault %v", sched, r, m.Fault())
		}
		for g := range 4 * 64 {
			tid, cta := g%64, g/64
			d := uint32((tid + cta) % 8)
			want := 4*(1+d*(d+1)/2) + uint32(tid*4)*2654435761
			if got := binary.LittleEndian.Uint32(out.Data[2048+4*g:]); got != want {
				t.Fatalf("%s: thread %d: %d, want %d", sched, g, got, want)
			}
		}
		if n := m.DynamicStateBytes(); n != 0 {
			t.Fatalf("%s: %d bytes of dynamic state after the launch", sched, n)
		}
	}
}

// The running count of the dynamic state equals a count from scratch after
// every step of random sequences of steps, runs, snapshots and restores;
// a snapshot's size includes the dynamic state it copies.
func TestDynamicCounterMatchesRecount(t *testing.T) {
	for _, sched := range []Scheduling{SchedSIMTStack, SchedIndependent} {
		for seed := int64(1); seed <= 4; seed++ {
			rng := rand.New(rand.NewSource(seed))
			m, _ := dynMachine(t, dynSrc, 4, 64, 2, sched, 0)
			var snaps []*Snapshot
			maxSeen := int64(0)
			for i := 0; i < 400 && !m.Stopped(); i++ {
				what := ""
				switch k := rng.Intn(10); {
				case k < 4:
					what = "step"
					m.Step(StepWarpInstruction)
				case k < 5:
					what = "round"
					m.Step(StepRound)
				case k < 7:
					what = "run"
					m.SetMaxWarpInstructions(m.Stats().WarpInstructions + int64(1+rng.Intn(300)))
					m.Run(context.Background())
					m.SetMaxWarpInstructions(0)
				case k < 8:
					what = "issueN"
					m.IssueN(false, 1+rng.Intn(50))
				case k < 9:
					what = "snapshot"
					s := m.Snapshot(rng.Intn(2) == 0)
					if min := int(m.DynamicStateBytes()); s.Size() < min {
						t.Fatalf("snapshot of %d bytes holds %d bytes of dynamic state", s.Size(), min)
					}
					snaps = append(snaps, s)
				default:
					if len(snaps) > 0 {
						what = "restore"
						m.Restore(snaps[rng.Intn(len(snaps))])
					}
				}
				if got, want := m.DynamicStateBytes(), m.countDynamic(); got != want {
					t.Fatalf("%s seed %d op %d (%s): running count %d, recount %d", sched, seed, i, what, got, want)
				}
				maxSeen = max(maxSeen, m.DynamicStateBytes())
			}
			if maxSeen < 64*1024 {
				t.Fatalf("%s seed %d: the dynamic state reached only %d bytes", sched, seed, maxSeen)
			}
		}
	}
}

// A bound on the dynamic state stops the launch with a memory-limit fault
// at the same instruction, with the same state, whether it runs batched,
// one instruction at a time, or is stepped; the state never passes the
// bound.
func TestDynamicLimitFaultDeterministic(t *testing.T) {
	for _, sched := range []Scheduling{SchedSIMTStack, SchedIndependent} {
		// The peak of the unbounded launch, stepped.
		u, _ := dynMachine(t, dynSrc, 4, 64, 2, sched, 0)
		peak := int64(0)
		for u.Step(StepWarpInstruction) == StopStepped {
			peak = max(peak, u.DynamicStateBytes())
		}
		if !u.Done() || peak < 10_000 {
			t.Fatalf("%s: unbounded launch: done %v, peak %d", sched, u.Done(), peak)
		}
		for _, limit := range []int64{peak / 8, peak / 2, peak - 1} {
			a, _ := dynMachine(t, dynSrc, 4, 64, 2, sched, limit)
			b, _ := dynMachine(t, dynSrc, 4, 64, 2, sched, limit)
			c, _ := dynMachine(t, dynSrc, 4, 64, 2, sched, limit)
			b.SetBatchedDispatch(false)
			if !a.batchable() {
				t.Fatal("batched dispatch not used")
			}
			ra, rb := a.Run(context.Background()), b.Run(context.Background())
			held := int64(0)
			var rc StopReason
			for rc = StopStepped; rc == StopStepped; rc = c.Step(StepWarpInstruction) {
				held = max(held, c.DynamicStateBytes())
			}
			name := fmt.Sprintf("%s limit %d", sched, limit)
			if ra != StopFault || rb != StopFault || rc != StopFault {
				t.Fatalf("%s: stops %v %v %v (faults %v %v %v)", name, ra, rb, rc, a.Fault(), b.Fault(), c.Fault())
			}
			f := a.Fault()
			if f.Kind != FaultMemoryLimit || f.PC < 0 || !strings.Contains(f.Message, fmt.Sprint(limit)) {
				t.Fatalf("%s: fault %+v", name, f)
			}
			if !reflect.DeepEqual(f, b.Fault()) || !reflect.DeepEqual(f, c.Fault()) {
				t.Fatalf("%s: faults differ:\n%+v\n%+v\n%+v", name, f, b.Fault(), c.Fault())
			}
			if d := a.DiffState(b); d != "" {
				t.Fatalf("%s: batched and unbatched runs differ: %s", name, d)
			}
			if d := a.DiffState(c); d != "" {
				t.Fatalf("%s: run and stepped launch differ: %s", name, d)
			}
			if held > limit || a.DynamicStateBytes() > limit {
				t.Fatalf("%s: dynamic state reached %d (%d at the fault)", name, held, a.DynamicStateBytes())
			}
		}
	}
}

// The recursion of the report (a .func with a 4 KiB .local buffer calling
// itself, 2 CTAs of 1024 threads) and the cp.async loop that never waits
// (8 CTAs of 1024 threads) stop with a memory-limit fault at the bound
// instead of holding gigabytes.
func TestDynamicLimitStopsHoarders(t *testing.T) {
	const limit = 24 << 20
	recurse := ctlHeader + `
.func f() {
	.local .align 4 .b8 buf[4096];
	.reg .u32 %r1;
	mov.u32 %r1, %tid.x;
	st.local.u32 [buf], %r1;
	call f;
	ret;
}
.visible .entry k(.param .u64 out) {
	call f;
	ret;
}`
	copies := ctlHeader + `
.visible .entry k(.param .u64 out) {
	.reg .u32 %r<4>; .reg .u64 %rd<4>;
	.shared .align 16 .b8 sh[16384];
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, %tid.x;
	shl.b32 %r2, %r1, 4;
	mov.u32 %r3, sh;
	add.u32 %r2, %r2, %r3;
	and.b32 %r1, %r1, 255;
	mul.wide.u32 %rd2, %r1, 16;
	add.u64 %rd3, %rd1, %rd2;
L:
	cp.async.cg.shared.global [%r2], [%rd3], 16;
	cp.async.commit_group;
	bra L;
}`
	for _, tc := range []struct {
		name, src   string
		grid        int
		line, instr string
	}{
		{"recursion", recurse, 2, "call f;", "call"},
		{"cp.async", copies, 8, "cp.async.cg", "cp.async"},
	} {
		m, _ := dynMachine(t, tc.src, tc.grid, 1024, 0, SchedDefault, limit)
		m.SetMaxWarpInstructions(50_000_000)
		if r := m.Run(context.Background()); r != StopFault {
			t.Fatalf("%s: stop %v", tc.name, r)
		}
		f := m.Fault()
		if f.Kind != FaultMemoryLimit || !strings.HasPrefix(f.Message, tc.instr) {
			t.Fatalf("%s: fault %+v", tc.name, f)
		}
		sp := m.Program().Spans[f.PC]
		if at := string(m.Program().Src.Text[sp.Start:sp.End]); !strings.HasPrefix(at, tc.line) {
			t.Fatalf("%s: fault at %q", tc.name, at)
		}
		if n := m.DynamicStateBytes(); n > limit || n < limit/2 {
			t.Fatalf("%s: %d bytes of dynamic state at the fault (limit %d)", tc.name, n, limit)
		}
		if n, c := m.DynamicStateBytes(), m.countDynamic(); n != c {
			t.Fatalf("%s: running count %d, recount %d", tc.name, n, c)
		}
	}
}
