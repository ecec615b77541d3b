package emu

import (
	"encoding/binary"
	"fmt"
	"math/rand"
	"testing"

	"github.com/ptxplayground/ptxplay/engine/ptx"
)

// A data-dependent divergent loop (Collatz step counts) over 2 CTAs of 64
// threads, with shared-memory traffic and a barrier.
const maskKernel = `.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 out) {
	.reg .u32 %r<10>; .reg .u64 %rd<4>; .reg .pred %p<3>;
	.shared .u32 sm[64];
	mov.u32 %r1, %tid.x;
	mov.u32 %r6, %ctaid.x;
	mad.lo.u32 %r1, %r6, 64, %r1;
	add.u32 %r2, %r1, 1;
	mov.u32 %r3, 0;
LOOP:
	setp.le.u32 %p1, %r2, 1;
	@%p1 bra DONE;
	and.b32 %r4, %r2, 1;
	setp.eq.u32 %p2, %r4, 0;
	@%p2 bra HALF;
	mad.lo.u32 %r2, %r2, 3, 1;
	bra.uni NEXT;
HALF:
	shr.u32 %r2, %r2, 1;
NEXT:
	add.u32 %r3, %r3, 1;
	bra.uni LOOP;
DONE:
	mov.u32 %r7, %tid.x;
	shl.b32 %r8, %r7, 2;
	mov.u32 %r9, sm;
	add.u32 %r9, %r9, %r8;
	st.shared.u32 [%r9], %r3;
	bar.sync 0;
	ld.shared.u32 %r3, [%r9];
	ld.param.u64 %rd1, [out];
	mul.wide.u32 %rd2, %r1, 4;
	add.u64 %rd3, %rd1, %rd2;
	st.global.u32 [%rd3], %r3;
	ret;
}`

func maskMachine(t *testing.T, sched Scheduling) *Machine {
	t.Helper()
	s := ptx.NewSource("t.ptx", []byte(maskKernel))
	prog, diags := CompileSource(s)
	if prog == nil {
		t.Fatalf("compile:\n%s", ptx.FormatAll(s, diags))
	}
	m, err := NewMachine(prog, "k", Config{Grid: [3]int{2, 1, 1}, Block: [3]int{64, 1, 1}, Scheduling: sched})
	if err != nil {
		t.Fatal(err)
	}
	a := m.Global.Alloc("out", 4*128, 256)
	binary.LittleEndian.PutUint64(m.Params(), a.Base)
	return m
}

type stepRec struct {
	lin, warp, pc   int
	mask, emask     uint32
	step, warpStep  int64
	changed, access bool
}

// recordSteps keeps what every call saw.
type recordSteps struct {
	flags ObserveFlags
	steps []stepRec
}

func (r *recordSteps) Observes() ObserveFlags { return r.flags }
func (r *recordSteps) Step(in *StepInfo) {
	r.steps = append(r.steps, stepRec{in.CTALin, in.Warp, in.PC, in.Mask, in.ExecMask, in.Step, in.WarpStep, in.MaskChanged, len(in.Accesses) > 0})
}

// An observer asking for mask changes is called exactly for the
// instructions whose active lanes differ from the warp's previous
// instruction's; every report numbers the instruction in the launch and
// in its warp; LastIssued names the instruction just executed.
func TestObserveMaskChanges(t *testing.T) {
	for _, sched := range []Scheduling{SchedSIMTStack, SchedIndependent} {
		t.Run(string(sched), func(t *testing.T) {
			m := maskMachine(t, sched)
			all := &recordSteps{flags: ObserveEveryStep}
			sel := &recordSteps{flags: ObserveMaskChanges}
			acc := &recordSteps{flags: ObserveAccesses}
			m.SetObserver(all)
			m.AddObserver(sel)
			m.AddObserver(acc)
			if _, ok := m.LastIssued(); ok {
				t.Fatal("LastIssued before the first instruction")
			}
			for !m.Stopped() {
				before := m.Stats().WarpInstructions
				if r := m.Issue(true); r != StopStepped && r != StopDone {
					t.Fatalf("stop %v: %v", r, m.Fault())
				}
				if m.Stats().WarpInstructions == before {
					continue
				}
				li, ok := m.LastIssued()
				x := all.steps[len(all.steps)-1]
				if !ok || li.Step != m.Stats().WarpInstructions || li.CTALin != x.lin || li.Warp != x.warp || li.PC != x.pc ||
					li.Mask != x.mask || li.ExecMask != x.emask || li.CTA != m.ctaIndex(x.lin) {
					t.Fatalf("LastIssued %+v (ok %v), the step was %+v", li, ok, x)
				}
			}
			if !m.Done() {
				t.Fatalf("not done: %v", m.Fault())
			}
			type wk struct{ lin, warp int }
			prev := map[wk]uint32{}
			count := map[wk]int64{}
			var want, wantAcc []stepRec
			changes := 0
			for i, s := range all.steps {
				k := wk{s.lin, s.warp}
				count[k]++
				if s.step != int64(i+1) || s.warpStep != count[k] {
					t.Fatalf("step %d: numbered %d, warp step %d (want %d)", i+1, s.step, s.warpStep, count[k])
				}
				p, seen := prev[k]
				if s.changed != (!seen || p != s.mask) {
					t.Fatalf("step %d: MaskChanged %v, mask %#x after %#x", i+1, s.changed, s.mask, p)
				}
				prev[k] = s.mask
				if s.changed {
					want = append(want, s)
					if seen {
						changes++
					}
				}
				if s.access {
					wantAcc = append(wantAcc, s)
				}
			}
			if changes < 10 {
				t.Fatalf("only %d mask changes: the kernel does not diverge", changes)
			}
			if fmt.Sprint(sel.steps) != fmt.Sprint(want) {
				t.Fatalf("mask-change observer saw %d steps, want %d", len(sel.steps), len(want))
			}
			if len(wantAcc) == 0 || fmt.Sprint(acc.steps) != fmt.Sprint(wantAcc) {
				t.Fatalf("access observer saw %d steps, want %d", len(acc.steps), len(wantAcc))
			}
			// A restore forgets the last instruction.
			s := m.Snapshot(true)
			m.Restore(s)
			if _, ok := m.LastIssued(); ok {
				t.Fatal("LastIssued after Restore")
			}
		})
	}
}

// IssueN leaves the machine exactly where as many Issue calls do, after
// every batch, breakpoints included.
func TestIssueN(t *testing.T) {
	for _, sched := range []Scheduling{SchedSIMTStack, SchedIndependent} {
		t.Run(string(sched), func(t *testing.T) {
			a, b := maskMachine(t, sched), maskMachine(t, sched)
			oa, ob := &recordSteps{flags: ObserveAccesses}, &recordSteps{flags: ObserveAccesses}
			a.SetObserver(oa)
			b.SetObserver(ob)
			for _, m := range []*Machine{a, b} {
				m.SetBreakpoint(20, true) // the shared store after the loop
			}
			rnd := rand.New(rand.NewSource(3))
			bps := 0
			for round := 0; !a.Stopped(); round++ {
				n := 1 + rnd.Intn(50)
				var ra StopReason
				var beforeA int64
				for i := 0; i < n; i++ {
					beforeA = a.Stats().WarpInstructions
					if ra = a.Issue(true); ra != StopStepped {
						break
					}
				}
				rb, beforeB := b.IssueN(true, n)
				if ra != rb || beforeA != beforeB || a.Stats() != b.Stats() {
					t.Fatalf("round %d (n %d): Issue gave %v from %d, %+v; IssueN %v from %d, %+v", round, n, ra, beforeA, a.Stats(), rb, beforeB, b.Stats())
				}
				if rb == StopBreakpoint {
					bps++
				}
				if d := snapDiff(a, b); d != "" {
					t.Fatalf("round %d: %s", round, d)
				}
				if round > 100000 {
					t.Fatal("no end")
				}
			}
			if bps == 0 {
				t.Fatal("no breakpoint stop")
			}
			if fmt.Sprint(oa.steps) != fmt.Sprint(ob.steps) {
				t.Fatal("the observers saw different steps")
			}
			if r, _ := b.IssueN(true, 5); r != StopDone {
				t.Fatalf("IssueN after the end: %v", r)
			}
		})
	}
}

// snapDiff compares two machines' states: registers, predicates, pcs,
// masks and warp states of every resident warp, shared and global memory.
func snapDiff(a, b *Machine) string {
	if len(a.ctas) != len(b.ctas) || a.cursor != b.cursor || a.done != b.done {
		return fmt.Sprintf("schedulers differ: %d/%d CTAs, cursor %d/%d", len(a.ctas), len(b.ctas), a.cursor, b.cursor)
	}
	for i := range a.ctas {
		ca, cb := a.ctas[i], b.ctas[i]
		if ca.Linear != cb.Linear || string(ca.shared) != string(cb.shared) {
			return fmt.Sprintf("CTA %d differs", i)
		}
		for j, wa := range ca.Warps {
			wb := cb.Warps[j]
			if wa.State != wb.State || wa.PC() != wb.PC() || wa.Active() != wb.Active() || fmt.Sprint(wa.Stack()) != fmt.Sprint(wb.Stack()) {
				return fmt.Sprintf("CTA %d warp %d: state/pc/stack differ", i, j)
			}
			for r := range a.prog.Regs {
				if wa.Reg(r) != wb.Reg(r) {
					return fmt.Sprintf("CTA %d warp %d register %d differs", i, j, r)
				}
			}
		}
	}
	for i, x := range a.Global.allocs {
		if string(x.Data) != string(b.Global.allocs[i].Data) {
			return "global memory differs"
		}
	}
	return ""
}
