package emu

import (
	"context"
	"math"
	"math/rand"
	"testing"

	"github.com/ptxplayground/ptxplay/engine/isa"
)

// injectFault makes the first register-only op of code c in m's program
// fault when the warp (CTA linear index lin, warp wid) executes it for the
// n-th time; it returns the op's pc.
func injectFault(t *testing.T, m *Machine, c isa.Opcode, lin, wid, n int) int {
	t.Helper()
	for pc := range m.prog.Ops {
		op := &m.prog.Ops[pc]
		if op.Code != c || m.prog.lead[pc] == leadStop {
			continue
		}
		exec := op.Exec
		count := map[*Warp]int{}
		op.Exec = func(w *Warp, op *Op, emask uint32) *Fault {
			if w.cta.Linear == lin && w.ID == wid {
				if count[w]++; count[w] == n {
					return w.fault(FaultTrap, firstLane(emask), "injected fault")
				}
			}
			return exec(w, op, emask)
		}
		return pc
	}
	t.Fatalf("no lead op %v", c)
	return -1
}

// TestFastPathFaultIsRecorded: a fault returned by an instruction that a
// lead runs ahead (here one injected into the racy kernel's register-only
// loop body) is recorded like one at a time, not dropped: the batched run
// replays to it and stops where the unbatched run stops.
func TestFastPathFaultIsRecorded(t *testing.T) {
	for _, s := range []Scheduling{SchedIndependent, SchedSIMTStack} {
		for _, c := range []isa.Opcode{isa.OpXor, isa.OpShl} {
			l := batchLaunch{src: racyPTX, grid: 3, block: 96, words: 32 + 96*3, sched: s}
			a, b := l.machine(t, true), l.machine(t, false)
			pa := injectFault(t, a, c, 1, 2, 7)
			pb := injectFault(t, b, c, 1, 2, 7)
			ra, rb := a.Run(context.Background()), b.Run(context.Background())
			if ra != StopFault || rb != StopFault {
				t.Fatalf("%s %v: batched stop %v, unbatched %v; want faults", s, c, ra, rb)
			}
			fa, fb := a.Fault(), b.Fault()
			if fa.PC != pa || fb.PC != pb || fa.Kind != FaultTrap || fa.Lanes != fb.Lanes || fa.Lanes == 0 {
				t.Fatalf("%s %v: batched fault %+v, unbatched %+v", s, c, fa, fb)
			}
			if d := a.DiffState(b); d != "" {
				t.Fatalf("%s %v: batched and unbatched runs differ: %s", s, c, d)
			}
			if a.fast.replays != 1 {
				t.Fatalf("%s %v: the batched run was not replayed (%d)", s, c, a.fast.replays)
			}
			// Without the replay, the lead itself records the fault, at
			// the instruction that raised it.
			n := l.machine(t, true)
			n.SetFaultReplay(false)
			pn := injectFault(t, n, c, 1, 2, 7)
			if r := n.Run(context.Background()); r != StopFault {
				t.Fatalf("%s %v: batched run without replay stopped %v; want a fault", s, c, r)
			}
			if fn := n.Fault(); fn.PC != pn || fn.Kind != FaultTrap || fn.Lanes == 0 || n.fast.replays != 0 {
				t.Fatalf("%s %v: batched fault without replay %+v (replays %d); want at pc %d", s, c, fn, n.fast.replays, pn)
			}
			// The faulting warp issued what it did one at a time, the
			// faulting instruction included.
			issued := func(m *Machine) int64 {
				for _, w := range m.Warps() {
					if w.cta.Linear == 1 && w.ID == 2 {
						return w.issued
					}
				}
				return -1
			}
			if in, ib := issued(n), issued(b); in != ib || in <= 0 {
				t.Fatalf("%s %v: the faulting warp issued %d batched without replay, %d one at a time", s, c, in, ib)
			}
		}
	}
}

// TestLeadOpsNeverFault: every instruction of the corpora that the lead
// classifier admits (register-only ops and direct branches, which leads
// run ahead on the promise that they cannot fault) returns no fault for
// any operand values: each runs on a warp of its kernel whose registers
// and predicates hold random bits and the awkward values of every type
// (zero, all ones, the smallest negative, NaN, infinities), for all lanes.
func TestLeadOpsNeverFault(t *testing.T) {
	odd := []uint64{0, 1, math.MaxUint64, 1 << 63, 1 << 31, 0x7fffffff, 0x80000000, 0xffffffff,
		math.Float64bits(math.NaN()), math.Float64bits(math.Inf(1)), math.Float64bits(math.Inf(-1)),
		uint64(math.Float32bits(float32(math.NaN()))), uint64(math.Float32bits(float32(math.Inf(-1)))), 0x7c00, 0xfc01}
	rng := rand.New(rand.NewSource(1))
	checked := 0
	for name, p := range corpusPrograms(t) {
		for _, e := range p.Entries() {
			m, err := NewMachine(p, e.Name, Config{Grid: [3]int{1, 1, 1}, Block: [3]int{32, 1, 1}, DynamicSharedBytes: 256})
			if err != nil {
				continue
			}
			m.fill()
			if len(m.warps) == 0 {
				continue
			}
			w := m.warps[0]
			m.cur = w
			stack := append([]StackEntry(nil), w.stack...)
			for round := 0; round < 4; round++ {
				// Every value row (registers and predicates) holds the
				// awkward values, then random bits; the ops run over them
				// in turn.
				for i := range w.rows {
					if round == 0 {
						w.rows[i] = odd[i%len(odd)]
					} else {
						w.rows[i] = rng.Uint64()
					}
				}
				for i := range w.preds {
					w.preds[i] = rng.Uint32()
				}
				for pc := range p.Ops {
					op := &p.Ops[pc]
					if !isPure(op) {
						continue
					}
					w.stack = append(w.stack[:0], stack...)
					w.stack[len(w.stack)-1].PC = int32(pc)
					if f := op.Exec(w, op, ^uint32(0)); f != nil {
						t.Fatalf("%s: %s (pc %d), admitted to leads, faulted: %s", name, isa.Info[op.Code].Name, pc, f.Message)
					}
					checked++
				}
			}
		}
	}
	if checked == 0 {
		t.Fatal("no lead op checked")
	}
	t.Logf("%d executions of lead ops checked", checked)
}
