package emu

import (
	"math/bits"
	"slices"
	"strings"

	"github.com/ptxplayground/ptxplay/engine/isa"
	"github.com/ptxplayground/ptxplay/engine/ptx"
)

func init() {
	binders[isa.OpBra] = bindBra
	binders[isa.OpBrx] = bindBrx
	binders[isa.OpCall] = bindCall
	binders[isa.OpRet] = bindRetExit
	binders[isa.OpExit] = bindRetExit
	binders[isa.OpBar] = bindBar
	binders[isa.OpBarrier] = bindBar
	binders[isa.OpBarWarpSync] = bindBarWarpSync
	binders[isa.OpMembar] = bindFence
	binders[isa.OpFence] = bindFence
	binders[isa.OpNanosleep] = bindNanosleep
	binders[isa.OpTrap] = bindTrap
	binders[isa.OpBrkpt] = bindTrap
	binders[isa.OpPmevent] = bindPmevent
}

// advance moves the top entry past the current instruction.
func (w *Warp) advance() {
	top := &w.stack[len(w.stack)-1]
	top.PC++
	if top.PC == top.RPC {
		w.unwind()
	}
}

// ---- branches ----

func bindBra(b *binder) {
	b.Flag(isa.FUni)
	if !b.Want(1, 1) {
		return
	}
	b.Label(0)
	b.op.Ctrl = true
	b.op.Exec = execBra
}

func execBra(w *Warp, op *Op, emask uint32) *Fault {
	i := len(w.stack) - 1
	top := &w.stack[i]
	not := top.Mask &^ emask
	switch {
	case emask == 0:
		top.PC++
	case not == 0:
		top.PC = op.Target
	default:
		w.diverge(op.Reconv, []int32{top.PC + 1, op.Target}, []uint32{not, emask})
		return nil
	}
	if top.PC == top.RPC {
		w.unwind()
	}
	return nil
}

// diverge splits the top entry: it waits at rpc while each group of lanes
// runs from its pc (the last group first).
func (w *Warp) diverge(rpc int32, pcs []int32, masks []uint32) {
	i := len(w.stack) - 1
	if w.m.obsEvents && len(masks) >= 2 {
		// The lanes that run first, and all the others (brx.idx may
		// split a warp more than two ways).
		other := uint32(0)
		for _, m := range masks[:len(masks)-1] {
			other |= m
		}
		w.m.event(Event{Kind: EvDiverge, PC: w.m.curPC, Reconv: int(rpc), Mask: masks[len(masks)-1], Other: other})
	}
	if top := &w.stack[i]; i > 0 && rpc >= 0 && top.RPC == rpc {
		// The current entry already reconverges at rpc, where its parent
		// waits: split it in place instead of nesting another level (keeps
		// the stack flat in loops whose lanes leave one by one).
		top.PC, top.Mask = pcs[0], masks[0]
		for k := 1; k < len(pcs); k++ {
			w.stack = append(w.stack, StackEntry{PC: pcs[k], RPC: rpc, Mask: masks[k], level: top.level})
		}
		w.unwind()
		return
	}
	w.stack[i].PC = rpc
	w.stack[i].parent = true
	w.stack[i].waiting = 0
	lv := w.stack[i].level + 1
	for k := range pcs {
		w.stack = append(w.stack, StackEntry{PC: pcs[k], RPC: rpc, Mask: masks[k], level: lv})
	}
	w.unwind()
}

func bindBrx(b *binder) {
	b.Flag(isa.FUni)
	if !b.Want(2, 2) {
		return
	}
	b.op.A = b.Src(0, isa.U32)
	o := b.opd(1)
	if o == nil || o.Kind != ptx.OpdName {
		b.operr(1, "brx.idx needs the name of a .branchtargets list")
		return
	}
	var t branchTable
	ok := false
	if d := b.c.findLabel(b.c.lscope, o.Name); d != nil {
		t, ok = b.c.tables[d.stmt]
	}
	if !ok {
		b.operr(1, "%s is not a .branchtargets list of this function (\"%s: .branchtargets L1, L2;\")", o.Name, o.Name)
		return
	}
	if t.at > b.ins.Span.Start {
		b.operr(1, "the .branchtargets list %s must be declared before brx.idx uses it", o.Name)
		return
	}
	b.op.Aux = t.index
	b.op.Ctrl = true
	b.op.Exec = execBrx
}

// execBrx branches each lane of emask to the entry of the op's target list
// its index selects; lanes that select different targets diverge, and
// lanes whose guard is false go on to the next instruction. Under the
// SIMT stack the targets run in the order of their lowest lanes, and the
// lanes whose guard is false last (as bra's taken lanes run first). An index past the
// end of the list is undefined in PTX: it faults, naming the lanes.
func execBrx(w *Warp, op *Op, emask uint32) *Fault {
	i := len(w.stack) - 1
	top := &w.stack[i]
	if emask == 0 {
		top.PC++
		if top.PC == top.RPC {
			w.unwind()
		}
		return nil
	}
	tab := w.m.prog.Tables[op.Aux]
	idx := w.r(op.A)
	var bad uint32
	for m := emask; m != 0; m &= m - 1 {
		if l := bits.TrailingZeros32(m); uint32(idx[l]) >= uint32(len(tab)) {
			bad |= 1 << l
		}
	}
	if bad != 0 {
		l := bits.TrailingZeros32(bad)
		return w.faultAll(FaultIllegal, bad, "brx.idx: lane %d's index %d is past the end of the list's %d labels", l, uint32(idx[l]), len(tab))
	}
	// Slot 0: the lanes that do not branch; then the targets in the
	// order of their lowest lane.
	var pcs [33]int32
	var masks [33]uint32
	n := 1
	for m := emask; m != 0; m &= m - 1 {
		l := bits.TrailingZeros32(m)
		t := tab[uint32(idx[l])]
		k := 1
		for k < n && pcs[k] != t {
			k++
		}
		if k == n {
			pcs[k], masks[k] = t, 0
			n++
		}
		masks[k] |= 1 << l
	}
	not := top.Mask &^ emask
	if not == 0 && n == 2 {
		top.PC = pcs[1]
		if top.PC == top.RPC {
			w.unwind()
		}
		return nil
	}
	// diverge runs the last group first: the targets from the highest
	// lowest lane down, after the lanes that do not branch (if any).
	pcs[0], masks[0] = top.PC+1, not
	first := 0
	if not == 0 {
		first = 1
	}
	slices.Reverse(pcs[1:n])
	slices.Reverse(masks[1:n])
	w.diverge(op.Reconv, pcs[first:n], masks[first:n])
	return nil
}

// ---- calls ----

func bindCall(b *binder) {
	b.Flag(isa.FUni)
	ops := b.ins.Operands
	i := 0
	ci := CallInfo{Indirect: -1}
	var retOps, argOps []*ptx.Operand
	if i < len(ops) && ops[i].Kind == ptx.OpdList {
		retOps = ops[i].Elems
		i++
	}
	if i >= len(ops) || ops[i].Kind != ptx.OpdName {
		b.errorf("expects a function name or address")
		return
	}
	target := ops[i]
	i++
	if i < len(ops) && ops[i].Kind == ptx.OpdList {
		argOps = ops[i].Elems
		i++
	}
	if i < len(ops) {
		if ops[i].Kind != ptx.OpdName {
			b.operr(i, "expects a .callprototype label or a function table")
			return
		}
		i++
	}
	if i != len(ops) {
		b.errorf("too many operands")
		return
	}
	s := b.c.lookup(target.Name)
	switch {
	case s != nil && s.kind == symFunc:
		ci.Callee = s.fn
		if s.fn.Kind == ptx.KindEntry {
			b.c.errorf(target.Span, ptx.DiagInvalidCall, "%s: cannot call kernel %s", b.name, target.Name)
			b.failed = true
			return
		}
		fd := s.fdecl
		// A broken signature may have lost parameters: its counts say nothing.
		broken := b.c.brokenHeader(fd)
		if np := countNames(fd.Params); np != len(argOps) && !broken {
			b.c.errorf(target.Span, ptx.DiagInvalidCall, "%s: %s takes %d arguments, %d given", b.name, target.Name, np, len(argOps))
			b.failed = true
			return
		}
		if nr := countNames(fd.Rets); nr != len(retOps) && !broken {
			b.c.errorf(target.Span, ptx.DiagInvalidCall, "%s: %s returns %d values, %d destinations given", b.name, target.Name, nr, len(retOps))
			b.failed = true
			return
		}
	case s != nil && s.kind == symReg:
		ci.Indirect = s.reg
	default:
		b.c.errorf(target.Span, ptx.DiagUndefinedFunction, "%s: undefined function %s", b.name, target.Name)
		b.failed = true
		return
	}
	conv := func(o *ptx.Operand, write bool) (CallArg, bool) {
		switch o.Kind {
		case ptx.OpdSink:
			if write {
				// "call (_), f, ..." discards the result.
				return CallArg{Reg: b.scratch(isa.B64), Size: 8}, true
			}
			b.c.errorf(o.Span, ptx.DiagInvalidCall, "%s: _ cannot be an argument", b.name)
		case ptx.OpdName:
			if s := b.c.lookup(o.Name); s != nil {
				switch s.kind {
				case symVar:
					if s.space != isa.Local {
						break
					}
					return CallArg{Reg: -1, Addr: s.addr, Size: max(s.size, 0)}, true
				case symReg:
					return CallArg{Reg: s.reg, Count: max(s.size, 1), Size: max(s.typ.Size(), 1)}, true
				case symPred:
					return CallArg{Reg: s.reg, Pred: true, Size: 1}, true
				}
			}
			b.c.errorf(o.Span, ptx.DiagInvalidCall, "%s: %s is not a parameter variable or register", b.name, o.Name)
		case ptx.OpdImm:
			if !write {
				v, err := ptx.Eval(o.Expr, nil)
				if err == nil {
					return CallArg{Reg: b.c.constant(v.Int), Size: 8}, true
				}
			}
			b.c.errorf(o.Span, ptx.DiagInvalidCall, "%s: bad call operand", b.name)
		default:
			b.c.errorf(o.Span, ptx.DiagInvalidCall, "%s: bad call operand", b.name)
		}
		b.failed = true
		return CallArg{}, false
	}
	for _, o := range argOps {
		a, ok := conv(o, false)
		if !ok {
			return
		}
		ci.Args = append(ci.Args, a)
	}
	for _, o := range retOps {
		a, ok := conv(o, true)
		if !ok {
			return
		}
		ci.Rets = append(ci.Rets, a)
	}
	b.c.prog.Calls = append(b.c.prog.Calls, ci)
	b.op.Aux = int32(len(b.c.prog.Calls) - 1)
	b.op.Ctrl = true
	b.op.Exec = execCall
}

func countNames(ds []*ptx.VarDecl) int {
	n := 0
	for _, d := range ds {
		n += len(d.Names)
	}
	return n
}

func execCall(w *Warp, op *Op, emask uint32) *Fault {
	top := &w.stack[len(w.stack)-1]
	if emask == 0 {
		w.advance()
		return nil
	}
	m := w.m
	ci := &m.prog.Calls[op.Aux]
	fn := ci.Callee
	if fn == nil {
		lane := firstLane(emask)
		a := w.r(ci.Indirect)[lane]
		var other uint32 // lanes calling another target than the first lane
		for l := 0; l < 32; l++ {
			if emask>>l&1 != 0 && w.r(ci.Indirect)[l] != a {
				other |= 1 << l
			}
		}
		if other != 0 {
			l := firstLane(other)
			f := w.fault(FaultIllegal, l, "indirect call with different targets across lanes (0x%x and 0x%x) is not supported", a, w.r(ci.Indirect)[l])
			f.Lanes = other
			return f
		}
		idx := (a - FuncAddrBase) / 16
		if a < FuncAddrBase || (a-FuncAddrBase)%16 != 0 || idx >= uint64(len(m.prog.Funcs)) || !m.prog.Funcs[idx].HasBody || m.prog.Funcs[idx].Kind == ptx.KindEntry {
			f := w.faultAll(FaultIllegal, emask, "indirect call to 0x%x, which is not a function", a)
			f.Addr, f.HasAddr = a, true
			return f
		}
		fn = m.prog.Funcs[idx]
		if !m.rf.reach[idx] {
			f := w.faultAll(FaultIllegal, emask, "indirect call to %s, whose address the module never takes", fn.Name)
			f.Addr, f.HasAddr = a, true
			return f
		}
		if len(fn.Params) != len(ci.Args) || len(fn.Rets) != len(ci.Rets) {
			return w.faultAll(FaultIllegal, emask, "indirect call to %s with %d arguments and %d results; it takes %d and returns %d", fn.Name, len(ci.Args), len(ci.Rets), len(fn.Params), len(fn.Rets))
		}
	}
	if !fn.HasBody {
		if fn.Builtin != BuiltinNone {
			return w.execBuiltin(fn, ci, emask)
		}
		return w.faultAll(FaultIllegal, emask, "call to %s, which has no body in this module", fn.Name)
	}
	if w.depth(len(w.stack)-1) >= MaxCallDepth {
		return w.faultAll(FaultStack, emask, "call depth exceeds %d (unbounded recursion?)", MaxCallDepth)
	}
	fr := frame{fn: fn, call: ci, lanes: emask}
	// A function already active on this warp's call stack is being
	// re-entered: save its registers and local memory for the return.
	reenter := false
	for k := range w.frames {
		if w.frames[k].fn == fn {
			reenter = true
			break
		}
	}
	if n := w.frameCost(fn, reenter); m.overDynamic(n) {
		what := "call to " + fn.Name
		if reenter {
			what += " (recursive: it saves the registers and .local memory of the active " + fn.Name + ")"
		}
		return w.dynamicFault(n, emask, what)
	}
	if reenter {
		rr := m.rf.frame[fn.index]
		fr.saved = append([]uint64(nil), w.rows[int(rr.lo)*32:int(rr.hi)*32]...)
		fr.savedP = append([]uint32(nil), w.preds[fn.PredBase:fn.PredBase+fn.PredCount]...)
		fr.savedLoc = w.saveLocal(fn)
	}
	// Arguments.
	var buf [8]byte
	for l := 0; l < 32; l++ {
		if emask>>l&1 == 0 {
			continue
		}
		for i, a := range ci.Args {
			p := &fn.Params[i]
			if f := w.copyParam(l, a, p, buf[:]); f != nil {
				return f
			}
		}
	}
	top.PC++
	if w.m.indep && emask != top.Mask {
		// Independent scheduling: the lanes that do not call go on; they
		// wait for the callers at the next instruction, where the two
		// paths reconverge as after a branch.
		if top.RPC != top.PC {
			top.parent, top.waiting = true, 0
			w.stack = append(w.stack, StackEntry{PC: top.PC, RPC: top.PC, Mask: emask, level: top.level + 1})
		} else {
			top.Mask = emask // the others already wait there, in its parent
		}
		top = &w.stack[len(w.stack)-1]
	}
	// The entry's waiting lanes now mean lanes that returned from this
	// call (execRet, settle): lanes left over from a region that
	// reconverged into it must not be taken for returned ones.
	top.call, top.waiting = true, 0
	fr.base = len(w.stack)
	m.dyn += fr.bytes()
	w.frames = append(w.frames, fr)
	w.stack = append(w.stack, StackEntry{PC: int32(fn.Entry), RPC: -1, Mask: emask, frame: int32(len(w.frames)), level: top.level + 1})
	if m.obsEvents {
		m.event(Event{Kind: EvCall, PC: m.curPC, Target: fn.Entry, Mask: emask})
	}
	return nil
}

// copyParam copies a caller argument to a callee parameter for lane.
func (w *Warp) copyParam(l int, a CallArg, p *Param, scratch []byte) *Fault {
	size := p.Size
	if a.Reg >= 0 && !a.Pred && p.Reg >= 0 && !p.Pred && (a.Count > 1 || p.Count > 1) {
		for k := 0; k < min(max(a.Count, 1), max(p.Count, 1)); k++ {
			w.r(p.Reg + int32(k))[l] = w.r(a.Reg + int32(k))[l]
		}
		return nil
	}
	if a.Reg >= 0 {
		var v uint64
		if a.Pred {
			v = uint64(w.preds[a.Reg] >> l & 1)
		} else {
			v = w.r(a.Reg)[l]
		}
		return w.writeParam(l, p, v, nil)
	}
	src, f := w.localBytes(l, a.Addr, min(size, a.Size))
	if f != nil {
		return f
	}
	if p.Reg >= 0 {
		return w.writeParam(l, p, getLE(src), nil)
	}
	return w.writeParam(l, p, 0, src)
}

func (w *Warp) writeParam(l int, p *Param, v uint64, src []byte) *Fault {
	if p.Reg >= 0 {
		if p.Pred {
			if v&1 != 0 {
				w.preds[p.Reg] |= 1 << l
			} else {
				w.preds[p.Reg] &^= 1 << l
			}
		} else {
			w.r(p.Reg)[l] = v
		}
		return nil
	}
	dst, f := w.localBytes(l, uint64(p.Offset), p.Size)
	if f != nil {
		return f
	}
	if src != nil {
		clear(dst)
		copy(dst, src)
	} else {
		var b [8]byte
		putLE(b[:], v)
		clear(dst)
		copy(dst, b[:min(8, len(dst))])
	}
	return nil
}

func (w *Warp) localBytes(l int, addr uint64, size int) ([]byte, *Fault) {
	b, _, f := w.spaceBytes(isa.Local, l, addr, size, 0)
	return b, f
}

// frameCost returns the bytes of the frame a call of fn pushes: with
// reenter, the registers, predicates and local memory saveLocal saves.
func (w *Warp) frameCost(fn *Function, reenter bool) int64 {
	if !reenter {
		return frameBytes
	}
	rr := w.m.rf.frame[fn.index]
	n := frameBytes + 8*32*int64(rr.hi-rr.lo) + 4*int64(fn.PredCount)
	ls := w.m.prog.LocalSize
	for l := 0; l < 32 && w.linearTid(l)*ls < len(w.cta.local); l++ {
		n += int64(fn.LocalLen)
	}
	return n
}

func (w *Warp) saveLocal(fn *Function) []byte {
	ls := w.m.prog.LocalSize
	out := make([]byte, 0, 32*fn.LocalLen)
	for l := 0; l < 32; l++ {
		t := w.linearTid(l)
		if t*ls >= len(w.cta.local) {
			break
		}
		out = append(out, w.cta.local[t*ls+fn.LocalBase:t*ls+fn.LocalBase+fn.LocalLen]...)
	}
	return out
}

func (w *Warp) restoreLocal(fn *Function, saved []byte, mask uint32) {
	ls := w.m.prog.LocalSize
	for l := 0; l < 32 && len(saved) >= fn.LocalLen; l++ {
		t := w.linearTid(l)
		if t*ls >= len(w.cta.local) {
			break
		}
		if mask>>l&1 == 0 {
			saved = saved[fn.LocalLen:]
			continue
		}
		copy(w.cta.local[t*ls+fn.LocalBase:t*ls+fn.LocalBase+fn.LocalLen], saved[:fn.LocalLen])
		saved = saved[fn.LocalLen:]
	}
}

// finishCall completes call k (an index in w.frames) once all its lanes
// returned or exited; the callee's first entry was just popped, so its
// caller's entry is the top of the stack.
func (w *Warp) finishCall(k int) {
	fr := w.frames[k]
	w.m.dyn -= fr.bytes()
	w.frames = append(w.frames[:k], w.frames[k+1:]...)
	if k < len(w.frames) {
		// (Independent scheduling: calls of other groups may be active.)
		for i := range w.stack {
			if f := w.stack[i].frame; int(f) > k+1 {
				w.stack[i].frame--
			}
		}
	}
	if n := len(w.stack); n > 0 {
		c := &w.stack[n-1]
		c.call, c.waiting = false, 0
	}
	w.returnLanes(&fr, fr.retMask, fr.lanes)
}

// returnLanes completes the call of fr for the lanes of ret that returned:
// it writes their results to the caller's destinations and, when the
// callee re-entered a function already active, restores its registers
// and local memory for the lanes of restore (every lane under the SIMT
// stack; under independent scheduling only the call's lanes, since other
// groups may be in the same function).
func (w *Warp) returnLanes(fr *frame, ret, restore uint32) {
	fn := fr.fn
	// Read the results before restoring a re-entered callee's state.
	type val struct {
		v   uint64
		vs  []uint64 // vector register results
		mem []byte
	}
	var rets [][]val
	if len(fr.call.Rets) > 0 && ret != 0 {
		rets = make([][]val, 32)
		for l := 0; l < 32; l++ {
			if ret>>l&1 == 0 {
				continue
			}
			for i := range fr.call.Rets {
				p := &fn.Rets[i]
				var x val
				switch {
				case p.Reg >= 0 && p.Pred:
					x.v = uint64(w.preds[p.Reg] >> l & 1)
				case p.Reg >= 0 && p.Count > 1:
					for k := 0; k < p.Count; k++ {
						x.vs = append(x.vs, w.r(p.Reg + int32(k))[l])
					}
				case p.Reg >= 0:
					x.v = w.r(p.Reg)[l]
				default:
					b, f := w.localBytes(l, uint64(p.Offset), p.Size)
					if f == nil {
						x.mem = append([]byte(nil), b...)
					}
				}
				rets[l] = append(rets[l], x)
			}
		}
	}
	if fr.saved != nil {
		w.restoreFrame(fr, restore)
	}
	for l := range rets {
		for i, x := range rets[l] {
			a := fr.call.Rets[i]
			switch {
			case a.Reg >= 0 && a.Pred:
				v := x.v
				if x.mem != nil {
					v = getLE(x.mem[:min(8, len(x.mem))])
				}
				if v&1 != 0 {
					w.preds[a.Reg] |= 1 << l
				} else {
					w.preds[a.Reg] &^= 1 << l
				}
			case a.Reg >= 0 && x.vs != nil:
				for k := 0; k < min(len(x.vs), max(a.Count, 1)); k++ {
					w.r(a.Reg + int32(k))[l] = x.vs[k]
				}
			case a.Reg >= 0:
				v := x.v
				if x.mem != nil {
					v = getLE(x.mem[:min(8, len(x.mem))])
				}
				w.r(a.Reg)[l] = v
			default:
				dst, f := w.localBytes(l, a.Addr, a.Size)
				if f != nil {
					continue
				}
				if x.mem != nil {
					copy(dst, x.mem)
				} else {
					var b [8]byte
					putLE(b[:], x.v)
					copy(dst, b[:])
				}
			}
		}
	}
	if w.m.obsEvents && ret != 0 {
		// (A call whose lanes all exited inside the callee returns nothing.)
		w.m.event(Event{Kind: EvReturn, PC: w.m.curPC, Mask: ret})
	}
}

// restoreFrame puts back the registers, predicates and local memory of a
// re-entered function saved by the call of fr: for every lane under the
// SIMT stack, for the lanes of mask under independent scheduling.
func (w *Warp) restoreFrame(fr *frame, mask uint32) {
	fn := fr.fn
	lo := int(w.m.rf.frame[fn.index].lo) * 32
	if !w.m.indep {
		copy(w.rows[lo:], fr.saved)
		copy(w.preds[fn.PredBase:], fr.savedP)
		w.restoreLocal(fn, fr.savedLoc, ^uint32(0))
		return
	}
	for r := 0; r+32 <= len(fr.saved); r += 32 {
		for m := mask; m != 0; m &= m - 1 {
			l := bits.TrailingZeros32(m)
			w.rows[lo+r+l] = fr.saved[r+l]
		}
	}
	for j, p := range fr.savedP {
		q := &w.preds[int(fn.PredBase)+j]
		*q = *q&^mask | p&mask
	}
	w.restoreLocal(fn, fr.savedLoc, mask)
}

func bindRetExit(b *binder) {
	b.Flag(isa.FUni)
	if !b.Want(0, 0) {
		return
	}
	b.op.Ctrl = true
	if b.op.Code == isa.OpExit {
		b.op.Exec = execExit
	} else {
		b.op.Exec = execRet
	}
}

func execExit(w *Warp, op *Op, emask uint32) *Fault {
	if emask == 0 {
		w.advance()
		return nil
	}
	if f := w.setmaxnregExit(emask); f != nil {
		return f
	}
	if f := w.wgmmaExit(emask); f != nil {
		return f
	}
	// Exiting threads land their asynchronous copies still in flight
	// (cp.async, then bulk copies to global memory).
	w.landCopies(emask, -1)
	if f := w.landStores(emask, -1); f != nil {
		return f
	}
	w.exited |= emask
	w.cta.liveOK = false
	if w.m.sf.on {
		w.sfExit()
	}
	if cl := w.cta.cluster; cl != nil && cl.arrived > 0 {
		// The cluster barrier waits for live threads only.
		w.m.checkClusterBarrier(cl)
	}
	w.removeLanes(emask, 0)
	if w.m.obsEvents {
		w.m.event(Event{Kind: EvExit, PC: w.m.curPC, Mask: emask})
	}
	top := &w.stack[len(w.stack)-1]
	if top.Mask != 0 {
		top.PC++
	}
	w.unwind()
	return nil
}

func execRet(w *Warp, op *Op, emask uint32) *Fault {
	k := w.frameOf(len(w.stack) - 1)
	if k < 0 {
		return execExit(w, op, emask)
	}
	if emask == 0 {
		w.advance()
		return nil
	}
	fr := &w.frames[k]
	fr.retMask |= emask
	w.removeLanes(emask, fr.base)
	if w.m.indep {
		// The lanes wait in the caller for the rest of the call's lanes
		// (at most ReconvergeWait instructions; see settle).
		c := &w.stack[fr.base-1]
		if emask&^c.waiting != 0 {
			c.since = w.issued
		}
		c.waiting |= emask
	}
	top := &w.stack[len(w.stack)-1]
	if top.Mask != 0 {
		top.PC++
	}
	w.unwind()
	return nil
}

func execNop(w *Warp, op *Op, mask uint32) *Fault { return nil }

// fenceForm is one form of fence or membar: whether it takes the
// tensor map operands ([a], 128) and whether it is a fence of cluster
// scope or wider in the generic proxy (which gives a later
// barrier.cluster.arrive.relaxed release semantics).
type fenceForm struct {
	operands bool
	wide     bool
}

// fenceForms maps the modifiers of every fence and membar form the PTX ISA
// defines (joined with dots, after the opcode) to what it is. The emulator
// is sequentially consistent: every form is an ordering point, none
// changes memory.
var fenceForms = func() map[string]fenceForm {
	t := map[string]fenceForm{}
	scopes := []string{"cta", "cluster", "gpu", "sys"}
	for _, sc := range scopes {
		wide := sc != "cta"
		// fence{.sem}.scope (.acq_rel when .sem is left out).
		t["fence."+sc] = fenceForm{wide: wide}
		for _, sem := range []string{"sc", "acq_rel", "acquire", "release"} {
			t["fence."+sem+"."+sc] = fenceForm{wide: wide}
		}
		// The uni-directional tensor-map proxy fences.
		t["fence.proxy.tensormap::generic.release."+sc] = fenceForm{}
		t["fence.proxy.tensormap::generic.acquire."+sc] = fenceForm{operands: true}
	}
	// membar.level: fence.sc at .cta, .gpu (.gl) or .sys.
	t["membar.cta"] = fenceForm{}
	t["membar.gl"] = fenceForm{wide: true}
	t["membar.sys"] = fenceForm{wide: true}
	// The bi-directional proxy fences (membar.proxy is a synonym).
	for _, kind := range []string{"alias", "async", "async.global", "async.shared::cta", "async.shared::cluster"} {
		t["fence.proxy."+kind] = fenceForm{}
		t["membar.proxy."+kind] = fenceForm{}
	}
	// The operation- and synchronisation-restricted fences.
	t["fence.mbarrier_init.release.cluster"] = fenceForm{}
	t["fence.acquire.sync_restrict::shared::cluster.cluster"] = fenceForm{wide: true}
	t["fence.release.sync_restrict::shared::cta.cluster"] = fenceForm{wide: true}
	t["fence.proxy.async::generic.acquire.sync_restrict::shared::cluster.cluster"] = fenceForm{}
	t["fence.proxy.async::generic.release.sync_restrict::shared::cta.cluster"] = fenceForm{}
	return t
}()

// fenceFormsText lists the forms for the error of one that is not among them.
const fenceFormsText = "fence{.sc,.acq_rel,.acquire,.release}.scope, fence.proxy.alias, fence.proxy.async{.global,.shared::cta,.shared::cluster}, " +
	"fence.proxy.tensormap::generic.release.scope, fence.proxy.tensormap::generic.acquire.scope [a], 128, fence.mbarrier_init.release.cluster, " +
	"fence.acquire.sync_restrict::shared::cluster.cluster, fence.release.sync_restrict::shared::cta.cluster, " +
	"membar.{cta,gl,sys} (scope: .cta, .cluster, .gpu or .sys)"

func bindFence(b *binder) {
	// Every form is looked up whole in fenceForms: the modifiers in the
	// order written, so that each is valid where it stands.
	names := make([]string, 0, 1+len(b.ins.Mods))
	names = append(names, b.ins.Opcode)
	for _, m := range b.ins.Mods {
		names = append(names, m.Name)
	}
	form := strings.Join(names, ".")
	f, ok := fenceForms[form]
	// The modifiers are all accounted for by the lookup.
	b.AllTypes()
	b.Space()
	for b.Sub() != isa.SubNone {
	}
	b.Flag(isa.FAsync)
	if b.failed {
		return // an unknown modifier, reported
	}
	if !ok {
		b.errorf("not a form of %s that the PTX ISA defines; the forms are %s", b.ins.Opcode, fenceFormsText)
		return
	}
	if f.operands {
		// fence.proxy.tensormap::generic.acquire.scope [a], 128 names the
		// tensor map it orders; the address is checked like a load's.
		if !b.Want(2, 2) {
			return
		}
		if v, ok := b.Imm(1); ok && v.Int != 128 {
			b.operr(1, "size must be 128")
			return
		}
		if _, ok := bindMemRef(b, 0, isa.SpaceNone); !ok {
			return
		}
	} else if !b.Want(0, 0) {
		return
	}
	b.op.Exec = execNop
	// A fence of cluster scope or wider (fence{.sc,.acq_rel}.{cluster,gpu,sys},
	// membar.{gl,sys}) gives a later barrier.cluster.arrive.relaxed release
	// semantics; the emulator is sequentially consistent, so it only
	// records that (for the race checker's ordering).
	if f.wide {
		b.op.Exec = execScopeFence
	}
	if isProxyAsyncFence(form) {
		// Reported to observers (EvProxyFence): the race checker's
		// async-proxy rule.
		b.op.Exec = execProxyAsyncFence
	}
}

func execScopeFence(w *Warp, op *Op, mask uint32) *Fault {
	w.fenced |= mask
	return nil
}

func bindNanosleep(b *binder) {
	if t := b.Type(); t != isa.U32 {
		b.errorf("needs .u32")
		return
	}
	if !b.Want(1, 1) {
		return
	}
	b.op.A = b.Src(0, isa.U32)
	b.op.Exec = func(w *Warp, op *Op, mask uint32) *Fault {
		t := w.r(op.A)[firstLane(mask)] & 0xffffffff
		w.m.sleptNS += int64(min(t, 1000000))
		return nil
	}
}

func bindTrap(b *binder) {
	if !b.Want(0, 0) {
		return
	}
	if b.op.Code == isa.OpTrap {
		b.op.Exec = func(w *Warp, op *Op, mask uint32) *Fault {
			return w.faultAll(FaultTrap, mask, "trap executed")
		}
		return
	}
	b.op.Exec = func(w *Warp, op *Op, mask uint32) *Fault {
		w.m.brkpt = true
		return nil
	}
}

func bindPmevent(b *binder) {
	b.AllTypes()
	if !b.Want(1, 1) {
		return
	}
	if _, ok := b.Imm(0); !ok {
		return
	}
	b.op.Exec = execNop
}
