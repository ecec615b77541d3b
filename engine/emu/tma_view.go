package emu

import (
	"math/bits"

	"github.com/ptxplayground/ptxplay/engine/isa"
)

// The TMA view's data: a tensor copy's operands as one lane gives them
// (TMACopy), for the instruction a warp executes next (Warp.NextTMA) and
// for the last tensor copy a CTA executed (CTA.LastTMA). Each tensor copy
// instruction's operands are bound once into a tmaForm (Program.tma,
// op.Aux is its index + 1; 0 on every other op); the instruction's Exec and the view evaluate
// the same form with tmaCopy, so what the view shows is what the copy
// does. The last copy is part of the CTA's asynchronous unit, so
// snapshots, history, back and seek restore it with the rest of the state.

// TMAKind is what a tensor copy does.
type TMAKind uint8

const (
	TMALoad     TMAKind = iota + 1 // global -> shared::cluster, completes on an mbarrier
	TMAStore                       // shared::cta -> global, bulk async-group
	TMAReduce                      // cp.reduce.async.bulk.tensor: shared::cta reduced into global
	TMAPrefetch                    // prefetch.tensor: reads the map only
)

func (k TMAKind) String() string {
	switch k {
	case TMALoad:
		return "load"
	case TMAStore:
		return "store"
	case TMAReduce:
		return "reduce"
	case TMAPrefetch:
		return "prefetch"
	}
	return "none"
}

// tmaForm is a tensor copy instruction's bound operands.
type tmaForm struct {
	kind TMAKind
	red  isa.SubOp  // TMAReduce: the reduction
	rank int        // the .Nd dimension
	ta   tensorArgs // the tensor map's address, the coordinate registers (rank of them), im2col offsets and the mode
	sref memRef     // the shared-memory operand (load: destination; store, reduce: source); unused for prefetch
	bref memRef     // load: the mbarrier
	mask int32      // load .multicast::cluster: the ctaMask slot; -1: none
}

// addTMAForm records f for the op being bound (op.Aux) and returns it
// (for the op's Exec to keep).
func addTMAForm(b *binder, f tmaForm) *tmaForm {
	b.c.prog.tma = append(b.c.prog.tma, f)
	b.op.Aux = int32(len(b.c.prog.tma))
	return &f
}

// TMACopy is a tensor copy instruction's operands as one lane gives them.
type TMACopy struct {
	Kind TMAKind
	Red  isa.SubOp // TMAReduce: the reduction
	PC   int
	Warp int
	Lane int
	Rank int
	// Coords are the box's tensor coordinates (Rank of them).
	Coords [isa.TensorMaxRank]int32
	// Mode is the copy's load mode (tile or im2col); Offsets are an
	// im2col load's NOffsets offsets.
	Mode     isa.TensorMapMode
	Offsets  [isa.TensorMaxRank]uint16
	NOffsets int
	// MapAddr is the tensor map's address operand; Map its 128 bytes as
	// read (MapOK false: they could not be read; MapErr says why).
	MapAddr uint64
	Map     [isa.TensorMapBytes]byte
	MapOK   bool
	MapErr  string
	// Shared is the shared-memory address operand (not for a prefetch);
	// SharedRank the cluster rank of the CTA whose memory it names and
	// SharedOff its offset there (SharedErr: it names no shared memory).
	Shared     uint64
	SharedRank int
	SharedOff  uint64
	SharedErr  string
	// Mbar is a load's mbarrier address operand.
	Mbar uint64
	// Multicast: a load's .multicast::cluster; CTAMask its mask.
	Multicast bool
	CTAMask   uint16
}

// tmaCopy evaluates form f of w's instruction at pc for lane l. It has no
// effect on the machine (no access is noted, nothing faults).
func (w *Warp) tmaCopy(f *tmaForm, pc, l int) TMACopy {
	t := TMACopy{Kind: f.kind, Red: f.red, PC: pc, Warp: w.ID, Lane: l, Rank: f.rank, MapAddr: refAddr(w, f.ta.mref, l), Mode: f.ta.mode}
	for d, r := range f.ta.coords {
		t.Coords[d] = int32(w.r(r)[l])
	}
	for i, r := range f.ta.offs {
		t.Offsets[i] = uint16(w.r(r)[l])
		t.NOffsets = i + 1
	}
	if b, _, flt := w.spaceBytes(f.ta.mref.space, l, t.MapAddr, isa.TensorMapBytes, 64); flt != nil {
		t.MapErr = flt.Message
	} else {
		copy(t.Map[:], b)
		t.MapOK = true
	}
	if f.kind == TMAPrefetch {
		return t
	}
	t.Shared = refAddr(w, f.sref, l)
	sp, a := f.sref.space, t.Shared
	if sp == isa.SpaceNone {
		sp, a = w.m.genericToSpace(a)
	}
	switch sp {
	case isa.Shared:
		t.SharedRank, t.SharedOff = w.cta.Rank, a
	case isa.SharedCluster:
		if c, off, flt := w.clusterShared(l, a, 1); flt != nil {
			t.SharedErr = flt.Message
		} else {
			t.SharedRank, t.SharedOff = c.Rank, off
		}
	default:
		t.SharedErr = "the shared-memory address 0x" + hexU(t.Shared) + " is in " + sp.String() + " memory"
	}
	if f.kind == TMALoad {
		t.Mbar = refAddr(w, f.bref, l)
		if f.mask >= 0 {
			t.Multicast, t.CTAMask = true, uint16(w.r(f.mask)[l])
		}
	}
	return t
}

func hexU(v uint64) string {
	const digits = "0123456789abcdef"
	if v == 0 {
		return "0"
	}
	var b [16]byte
	i := len(b)
	for v != 0 {
		i--
		b[i] = digits[v&15]
		v >>= 4
	}
	return string(b[i:])
}

// noteTMA records the tensor copy w issues with lanes emask as its CTA's
// last (the first lane's operands).
func (w *Warp) noteTMA(f *tmaForm, emask uint32) {
	if emask == 0 {
		return
	}
	t := w.tmaCopy(f, w.m.curPC, bits.TrailingZeros32(emask))
	w.cta.async.lastTMA, w.cta.async.hasTMA = t, true
}

// NextTMA returns the operands of w's next instruction when it is a
// tensor copy (cp.async.bulk.tensor, cp.reduce.async.bulk.tensor,
// prefetch.tensor), for its first active lane whose guard holds (the
// first active lane when none does).
func (w *Warp) NextTMA() (TMACopy, bool) {
	if w.State != WarpReady {
		return TMACopy{}, false
	}
	pc := w.pc()
	p := w.m.prog
	if pc < 0 || pc >= len(p.Ops) {
		return TMACopy{}, false
	}
	op := &p.Ops[pc]
	f := p.tmaFormOf(op)
	if f == nil {
		return TMACopy{}, false
	}
	act := w.activeMask()
	if act == 0 {
		return TMACopy{}, false
	}
	lanes := act
	if op.Guard >= 0 {
		g := w.preds[op.Guard]
		if op.GuardNeg {
			g = ^g
		}
		if act&g != 0 {
			lanes = act & g
		}
	}
	return w.tmaCopy(f, pc, bits.TrailingZeros32(lanes)), true
}

// tmaFormOf returns the bound operands of a tensor copy op (nil: op is not
// one).
func (p *Program) tmaFormOf(op *Op) *tmaForm {
	switch op.Code {
	case isa.OpCpAsyncBulkTensor, isa.OpCpReduceAsyncBulk, isa.OpPrefetch:
	default:
		return nil
	}
	if op.Aux <= 0 || int(op.Aux) > len(p.tma) {
		return nil
	}
	return &p.tma[op.Aux-1]
}

// LastTMA returns the last tensor copy a thread of c issued (false: none
// since the CTA started).
func (c *CTA) LastTMA() (TMACopy, bool) {
	return c.async.lastTMA, c.async.hasTMA
}
