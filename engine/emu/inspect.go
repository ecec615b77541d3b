package emu

import "github.com/ptxplayground/ptxplay/engine/isa"

// Read-only views of machine state for debuggers and the web UI. Slices
// returned here alias machine memory: do not modify them, and copy what you
// keep across steps.

// PC returns the pc the warp executes next (-1 if it exited). While the
// warp waits (State WarpWaiting, also after a deadlock), it is the pc of
// the instruction it waits at.
func (w *Warp) PC() int {
	if w.State == WarpWaiting {
		return w.headWait().PC
	}
	return w.pc()
}

// Active returns the lanes that execute the next instruction; while the
// warp waits, the lanes that wait (those that executed the instruction).
func (w *Warp) Active() uint32 {
	if w.State == WarpWaiting {
		return w.headWait().Lanes
	}
	return w.activeMask()
}

// Valid returns the lanes that exist (a partial last warp has fewer).
func (w *Warp) Valid() uint32 { return w.valid }

// Exited returns the lanes that exited.
func (w *Warp) Exited() uint32 { return w.exited }

// CTA returns the warp's CTA.
func (w *Warp) CTA() *CTA { return w.cta }

// Stack returns a copy of the reconvergence stack, bottom first. A warp
// waiting at a barrier has already moved past it: its top entry is where
// it continues once released.
func (w *Warp) Stack() []StackEntry { return append([]StackEntry(nil), w.stack...) }

// Barrier returns the barrier the warp waits at (-1 when it waits at
// none).
func (w *Warp) Barrier() int {
	if w.State == WarpWaiting && w.wait.Kind == WaitBarrier {
		return w.wait.Barrier
	}
	return -1
}

// CallDepth returns the number of active calls holding the warp's current
// group (under independent scheduling other groups may be in other calls).
func (w *Warp) CallDepth() int {
	if len(w.stack) == 0 {
		return len(w.frames)
	}
	return w.depth(len(w.stack) - 1)
}

// Reg returns the 32 lanes of value slot i.
func (w *Warp) Reg(i int) [32]uint64 { return *w.r(int32(i)) }

// Pred returns the lane bitmask of predicate slot i.
func (w *Warp) Pred(i int) uint32 { return w.preds[i] }

// Thread returns the thread index of lane.
func (w *Warp) Thread(lane int) [3]int { return w.tid(lane) }

// Shared returns the CTA's shared memory.
func (c *CTA) Shared() []byte { return c.shared }

// Local returns the local memory of the thread with linear index t.
func (c *CTA) Local(t int, size int) []byte {
	if size == 0 || (t+1)*size > len(c.local) {
		return nil
	}
	return c.local[t*size : (t+1)*size]
}

// Done reports whether every warp of the CTA exited.
func (c *CTA) Done() bool { return c.done }

// BarrierState describes a CTA barrier that has arrivals.
type BarrierState struct {
	ID       int
	Arrived  int
	Expected int // 0: every live thread of the CTA
	Waiting  []int
}

// Barriers returns the barriers with arrivals.
func (c *CTA) Barriers() []BarrierState {
	var out []BarrierState
	for id := range c.bars {
		b := &c.bars[id]
		if b.arrived == 0 && len(b.waiting) == 0 {
			continue
		}
		s := BarrierState{ID: id, Arrived: b.arrived, Expected: b.expected}
		for _, w := range b.waiting {
			s.Waiting = append(s.Waiting, w.ID)
		}
		out = append(out, s)
	}
	return out
}

// LiveThreads returns the number of threads of the CTA that have not exited.
func (c *CTA) LiveThreads() int { return c.liveThreads() }

// Cursor returns the index (in Warps) of the warp the scheduler looks at first.
func (m *Machine) Cursor() int { return m.cursor }

// NextWarp returns the warp the next StepWarpInstruction issues, or nil.
func (m *Machine) NextWarp() *Warp {
	m.fill()
	n := len(m.warps)
	for k := 0; k < n; k++ {
		w := m.warps[(m.cursor+k)%n]
		if w.State == WarpReady {
			return w
		}
	}
	return nil
}

// ReadMemory copies n bytes of space at addr into a new slice; for shared
// memory cta selects the resident CTA (by position in CTAs()). It returns
// nil if the range is not mapped.
func (m *Machine) ReadMemory(space isa.Space, cta int, addr uint64, n int) []byte {
	var mem []byte
	switch space {
	case isa.Global:
		b := m.Global.Slice(addr, n)
		if b == nil {
			return nil
		}
		return append([]byte(nil), b...)
	case isa.Shared:
		if cta < 0 || cta >= len(m.ctas) {
			return nil
		}
		mem = m.ctas[cta].shared
	case isa.Const:
		mem = m.constMem
	case isa.Param:
		mem = m.params
	default:
		return nil
	}
	if addr+uint64(n) > uint64(len(mem)) || addr+uint64(n) < addr {
		return nil
	}
	return append([]byte(nil), mem[addr:addr+uint64(n)]...)
}
