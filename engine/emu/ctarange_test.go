package emu

import (
	"bytes"
	"context"
	"encoding/binary"
	"testing"

	"github.com/ptxplayground/ptxplay/engine/isa"
	"github.com/ptxplayground/ptxplay/engine/ptx"
)

// ctaRangeSrc: every CTA of 96 threads (3 warps, the last partly idle
// under a 70-thread guard) stages in[cta*96+tid] in shared memory and,
// after a barrier, writes its neighbour's value (tid+1 mod 96), doubled
// once per warp index, to out; warp 1 of odd CTAs loops longer, so the
// CTAs of a wave do not finish together.
const ctaRangeSrc = `.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 in, .param .u64 out) {
	.shared .align 4 .u32 s[96];
	.reg .u32 %r<12>; .reg .u64 %rd<8>; .reg .pred %p<3>;
	ld.param.u64 %rd1, [in];
	ld.param.u64 %rd2, [out];
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, %ctaid.x;
	mad.lo.u32 %r3, %r2, 96, %r1;
	mul.wide.u32 %rd3, %r3, 4;
	add.u64 %rd4, %rd1, %rd3;
	ld.global.u32 %r4, [%rd4];
	shl.b32 %r5, %r1, 2;
	mov.u32 %r6, s;
	add.u32 %r7, %r6, %r5;
	st.shared.u32 [%r7], %r4;
	bar.sync 0;
	add.u32 %r8, %r1, 1;
	rem.u32 %r8, %r8, 96;
	shl.b32 %r8, %r8, 2;
	add.u32 %r8, %r6, %r8;
	ld.shared.u32 %r9, [%r8];
	shr.u32 %r10, %r1, 5;
	and.b32 %r11, %r2, 1;
	mad.lo.u32 %r10, %r11, 7, %r10;
LOOP:
	setp.eq.u32 %p1, %r10, 0;
	@%p1 bra DONE;
	add.u32 %r9, %r9, %r9;
	sub.u32 %r10, %r10, 1;
	bra LOOP;
DONE:
	setp.ge.u32 %p2, %r1, 70;
	@%p2 bra END;
	add.u64 %rd5, %rd2, %rd3;
	st.global.u32 [%rd5], %r9;
END:
	ret;
}`

// ctaRangeMachine prepares the kernel over ctas CTAs with in[i] = i*3+1.
func ctaRangeMachine(t *testing.T, prog *Program, ctas int) (*Machine, *Alloc) {
	t.Helper()
	return ctaRangeMachineSched(t, prog, ctas, SchedDefault)
}

func ctaRangeMachineSched(t *testing.T, prog *Program, ctas int, sched Scheduling) (*Machine, *Alloc) {
	t.Helper()
	m, err := NewMachine(prog, "k", Config{Grid: [3]int{ctas, 1, 1}, Block: [3]int{96, 1, 1}, Scheduling: sched})
	if err != nil {
		t.Fatal(err)
	}
	in := m.Global.Alloc("in", 4*96*ctas, 256)
	out := m.Global.Alloc("out", 4*96*ctas, 256)
	for i := range 96 * ctas {
		binary.LittleEndian.PutUint32(in.Data[4*i:], uint32(i*3+1))
	}
	p := m.Params()
	binary.LittleEndian.PutUint64(p, in.Base)
	binary.LittleEndian.PutUint64(p[8:], out.Base)
	return m, out
}

// TestRestrictCTAs: machines that each run a range of the grid's CTAs
// write together exactly what the whole launch writes, with the same
// work, and nothing outside their range.
func TestRestrictCTAs(t *testing.T) {
	prog, diags := CompileSource(ptx.NewSource("r.ptx", []byte(ctaRangeSrc)))
	if prog == nil {
		t.Fatal(diags)
	}
	const ctas = 11
	whole, wantOut := ctaRangeMachine(t, prog, ctas)
	if r := whole.Run(context.Background()); r != StopDone {
		t.Fatalf("whole launch: %v %v", r, whole.Fault())
	}
	got := make([]byte, len(wantOut.Data))
	var stats Stats
	for _, rg := range [][2]int{{0, 4}, {4, 5}, {5, 5}, {5, 11}} {
		m, out := ctaRangeMachine(t, prog, ctas)
		if err := m.RestrictCTAs(rg[0], rg[1]); err != nil {
			t.Fatal(err)
		}
		if m.NumCTAs() != rg[1] {
			t.Errorf("NumCTAs %d, want %d", m.NumCTAs(), rg[1])
		}
		if r := m.Run(context.Background()); r != StopDone {
			t.Fatalf("CTAs %v: %v %v", rg, r, m.Fault())
		}
		lo, hi := rg[0]*96*4, rg[1]*96*4
		if !bytes.Equal(out.Data[:lo], make([]byte, lo)) || !bytes.Equal(out.Data[hi:], make([]byte, len(out.Data)-hi)) {
			t.Errorf("CTAs %v wrote outside their range", rg)
		}
		copy(got[lo:hi], out.Data[lo:hi])
		stats.WarpInstructions += m.Stats().WarpInstructions
		stats.ThreadInstructions += m.Stats().ThreadInstructions
		if err := m.RestrictCTAs(0, 1); err == nil {
			t.Error("RestrictCTAs after the run: no error")
		}
	}
	if !bytes.Equal(got, wantOut.Data) {
		t.Error("the ranges' output differs from the whole launch's")
	}
	if stats != whole.Stats() {
		t.Errorf("the ranges' work %+v, the whole launch's %+v", stats, whole.Stats())
	}
	m, _ := ctaRangeMachine(t, prog, ctas)
	for _, rg := range [][2]int{{-1, 2}, {3, 2}, {0, 12}} {
		if err := m.RestrictCTAs(rg[0], rg[1]); err == nil {
			t.Errorf("RestrictCTAs(%d, %d): no error", rg[0], rg[1])
		}
	}
}

// globalCounter counts the accesses reported to it, per space.
type globalCounter struct {
	flags ObserveFlags
	n     map[isa.Space]int
}

func (g *globalCounter) Observes() ObserveFlags { return g.flags }
func (g *globalCounter) Step(in *StepInfo) {
	for _, a := range in.Accesses {
		g.n[a.Space]++
	}
}

// TestObserveGlobalOnly: an observer that asks only for global accesses
// gets every one of them and lets ld/st.shared and ld.param run
// unreported, unless another observer asks for all accesses.
func TestObserveGlobalOnly(t *testing.T) {
	prog, diags := CompileSource(ptx.NewSource("r.ptx", []byte(ctaRangeSrc)))
	if prog == nil {
		t.Fatal(diags)
	}
	run := func(obs ...*globalCounter) {
		m, _ := ctaRangeMachine(t, prog, 3)
		for _, o := range obs {
			o.n = map[isa.Space]int{}
			m.AddObserver(o)
		}
		if r := m.Run(context.Background()); r != StopDone {
			t.Fatalf("%v %v", r, m.Fault())
		}
	}
	// 3 CTAs of 3 warps: 18 parameter loads, 9 global loads, 9 shared
	// stores and loads, and 9 global stores (the third warp's lanes 64-69
	// store).
	only := &globalCounter{flags: ObserveAccesses | ObserveGlobalOnly}
	run(only)
	if only.n[isa.Global] != 18 || only.n[isa.Shared] != 0 || only.n[isa.Param] != 0 {
		t.Errorf("global-only alone: %v", only.n)
	}
	all := &globalCounter{flags: ObserveAccesses}
	run(only, all)
	if only.n[isa.Global] != 18 || all.n[isa.Global] != 18 || all.n[isa.Shared] != 18 || all.n[isa.Param] != 18 {
		t.Errorf("global-only %v beside all accesses %v", only.n, all.n)
	}
}

// TestRelaunch: one machine relaunched over consecutive ranges (in both
// scheduling models, with one range faulting and one observed) does what
// a fresh restricted machine does for each: the same output bytes, the
// same work, and a zeroed start (shared memory and registers of the
// reused CTAs do not leak into the new ones).
func TestRelaunch(t *testing.T) {
	prog, diags := CompileSource(ptx.NewSource("r.ptx", []byte(ctaRangeSrc)))
	if prog == nil {
		t.Fatal(diags)
	}
	const ctas = 11
	for _, sched := range []Scheduling{SchedSIMTStack, SchedIndependent} {
		fresh := func(first, end int) (Stats, []byte) {
			m, out := ctaRangeMachineSched(t, prog, ctas, sched)
			if err := m.RestrictCTAs(first, end); err != nil {
				t.Fatal(err)
			}
			if r := m.Run(context.Background()); r != StopDone {
				t.Fatalf("CTAs [%d, %d): %v %v", first, end, r, m.Fault())
			}
			return m.Stats(), append([]byte(nil), out.Data...)
		}
		m, out := ctaRangeMachineSched(t, prog, ctas, sched)
		if err := m.Relaunch(0, 2); err == nil {
			t.Error("Relaunch before the launch ran: no error")
		}
		if err := m.RestrictCTAs(0, 3); err != nil {
			t.Fatal(err)
		}
		ranges := [][2]int{{0, 3}, {3, 4}, {4, 4}, {4, 11}, {1, 9}, {10, 11}}
		for i, rg := range ranges {
			if i > 0 {
				clear(out.Data)
				if err := m.Relaunch(rg[0], rg[1]); err != nil {
					t.Fatal(err)
				}
			}
			var cnt *globalCounter
			remove := func() {}
			if i == 3 {
				// An observer that follows every step keeps the CTAs.
				cnt = &globalCounter{flags: ObserveAccesses | ObserveEveryStep, n: map[isa.Space]int{}}
				remove = m.AddObserver(cnt)
			}
			// Step the first instructions one at a time, then run.
			for range 5 {
				m.Step(StepWarpInstruction)
			}
			if r := m.Run(context.Background()); r != StopDone {
				t.Fatalf("%v: relaunched CTAs %v: %v %v", sched, rg, r, m.Fault())
			}
			remove()
			wantStats, wantOut := fresh(rg[0], rg[1])
			if m.Stats() != wantStats {
				t.Errorf("%v: CTAs %v: work %+v, a fresh machine's %+v", sched, rg, m.Stats(), wantStats)
			}
			if !bytes.Equal(out.Data, wantOut) {
				t.Errorf("%v: CTAs %v: output differs from a fresh machine's", sched, rg)
			}
			if m.NumCTAs() != rg[1] || !m.Done() {
				t.Errorf("%v: CTAs %v: NumCTAs %d, done %v", sched, rg, m.NumCTAs(), m.Done())
			}
			if cnt != nil && cnt.n[isa.Global] == 0 {
				t.Errorf("%v: the observer saw no global access", sched)
			}
		}
		for _, rg := range [][2]int{{-1, 2}, {3, 2}, {0, 12}} {
			if err := m.Relaunch(rg[0], rg[1]); err == nil {
				t.Errorf("Relaunch(%d, %d): no error", rg[0], rg[1])
			}
		}
		// A faulted launch cannot be relaunched: its input pointer is
		// made invalid, so the first load faults.
		binary.LittleEndian.PutUint64(m.Params(), 8)
		if err := m.Relaunch(0, 2); err != nil {
			t.Fatal(err)
		}
		if r := m.Run(context.Background()); r != StopFault {
			t.Fatalf("%v: a bad pointer: %v", sched, r)
		}
		if err := m.Relaunch(0, 2); err == nil {
			t.Errorf("%v: Relaunch after a fault: no error", sched)
		}
	}
}
