package emu

import (
	"math/bits"

	"github.com/ptxplayground/ptxplay/engine/fpx"
	"github.com/ptxplayground/ptxplay/engine/isa"
	"github.com/ptxplayground/ptxplay/engine/ptx"
)

// The warp-level family: shfl, vote, match, activemask, redux and elect.
//
// Membermask. The .sync forms name the lanes they synchronise with in
// membermask. On sm_70 and later an executing lane waits until every
// non-exited lane of its membermask has executed the same instruction, and
// the result is computed over those lanes. The emulator executes a warp's
// active lanes together, so:
//   - the result is computed over the lanes of membermask that execute the
//     instruction now (active, guard true);
//   - lanes of membermask that exited (or do not exist in a partial warp)
//     are left out, as the ISA says for exited threads;
//   - lanes of membermask that are alive but not executing are left out too
//     when they can no longer execute a warp-synchronous instruction that
//     involves the executing lanes before they exit: from where they wait,
//     no path reaches shfl.sync, vote.sync, match, redux, elect or
//     bar.warp.sync (unless its membermask is a constant without any of the
//     executing lanes), a tensor-core instruction, or a call (so on hardware
//     they would exit and release the waiting lanes);
//   - otherwise the lanes would have to wait for each other. Under
//     independent scheduling the scheduler makes a group wait for member
//     lanes in other groups and executes the instruction once for all the
//     groups at it (syncJoin in sched.go), so what is left here are lanes
//     that can never arrive (every group waits) and lanes of the executing
//     group whose guard is false; under the SIMT stack, which cannot wait,
//     any such lanes. The launch stops with a FaultInvalidMember fault
//     naming those lanes. (On hardware the outcome depends on scheduling,
//     or the behaviour is undefined.)
//   - under independent scheduling, bar.warp.sync faults when a lane of its
//     membermask exited: a check stricter than the CUDA guide (which only
//     requires the non-exited lanes of the mask), to flag a mask naming
//     lanes that already left (docs/emulator.md).
//   - an executing lane that is not in its own membermask is undefined
//     behaviour in PTX and faults with FaultInvalidMember as well.
// The legacy forms without .sync (shfl, vote) operate on the executing
// lanes and never fault.
//
// shfl: a source lane that is not executing (inactive, guard false or
// exited) gives the value its register a holds at that moment; the ISA
// calls that value unpredictable. elect.sync elects the lowest executing
// lane of membermask. activemask gives the executing lanes.

func init() {
	binders[isa.OpShfl] = bindShfl
	binders[isa.OpVote] = bindVote
	binders[isa.OpMatch] = bindMatch
	binders[isa.OpActivemask] = bindActivemask
	binders[isa.OpRedux] = bindRedux
	binders[isa.OpElect] = bindElect
}

// warpPairDst resolves destination operand i, which may be "d|p": it returns
// the value slot for d (type t) and the predicate slot for p (-1 if absent).
func warpPairDst(b *binder, i int, t isa.Type) (int32, int32) {
	o := b.opd(i)
	if o == nil {
		return -1, -1
	}
	if o.Kind != ptx.OpdPair {
		return b.Dst(i, t), -1
	}
	saved := b.ins.Operands
	b.ins.Operands = o.Elems
	d := b.Dst(0, t)
	p := b.Dst(1, isa.Pred)
	b.ins.Operands = saved
	return d, p
}

// warpBindMembermask resolves the membermask operand i of a .sync form (or
// notes its absence for legacy forms) into op.E and marks the op.
func warpBindMembermask(b *binder, i int, sync bool) {
	if !sync {
		b.op.E = -1
		return
	}
	b.op.E = b.Src(i, isa.B32)
	b.op.Flags = b.op.Flags.With(isa.FSync)
}

// ---- membership ----

// warpMembers computes, for each executing lane l, grp[l]: the lanes of
// its membermask that execute the instruction (see the family comment),
// or faults. Legacy forms (op.E < 0) group the executing lanes. With grp
// nil it only checks the membermasks.
func warpMembers(w *Warp, op *Op, mask uint32, grp *[32]uint32) *Fault {
	if op.E < 0 {
		if grp != nil {
			for l := range grp {
				grp[l] = mask
			}
		}
		return nil
	}
	return warpMembersOf(w, op, op.E, mask, grp)
}

// warpMembersOf is warpMembers with the membermask in slot mslot.
func warpMembersOf(w *Warp, op *Op, mslot int32, mask uint32, grp *[32]uint32) *Fault {
	mm := w.r(mslot)
	var need, outside uint32
	for m := mask; m != 0; m &= m - 1 {
		l := bits.TrailingZeros32(m)
		v := uint32(mm[l])
		if v>>l&1 == 0 {
			outside |= 1 << l
		}
		need |= v
		if grp != nil {
			grp[l] = v & mask
		}
	}
	if outside != 0 {
		l := firstLane(outside)
		f := w.fault(FaultInvalidMember, l, "%s.sync: lane %d executes it with membermask 0x%08x, which does not contain the lane (undefined behaviour)", op.Code, l, uint32(mm[l]))
		f.Lanes = outside
		return f
	}
	if w.m.indep && op.Code == isa.OpBarWarpSync {
		// A lane of membermask that exited never executes it: flagged
		// (stricter than required; see the family comment).
		if gone := need & w.valid & w.exited; gone != 0 {
			return w.faultAll(FaultInvalidMember, gone, "bar.warp.sync: membermask names lane(s) %s, which exited: they can never execute it (the executing lanes would wait forever)", warpLaneList(gone))
		}
	}
	missing := need &^ mask & w.valid &^ w.exited
	if missing == 0 {
		return nil
	}
	top := len(w.stack) - 1
	group := w.m.syncGroup
	if top >= 0 {
		group |= w.stack[top].Mask
	}
	bad := w.lanesMaySync(missing, mask, group, top)
	if bad == 0 {
		return nil
	}
	if away := bad &^ group; w.m.indep && away != 0 {
		// Independent scheduling issued a group that waits here because
		// no group of the warp can run: the member lanes elsewhere can
		// never arrive.
		return w.faultAll(FaultInvalidMember, away, "%s: membermask names lane(s) %s, which wait elsewhere (%s) and can never arrive here: every thread group of the warp is waiting", op.Code, warpLaneList(away), w.laneWhere(away))
	}
	// The executing lanes fault: they would wait for the lanes named.
	return w.faultAll(FaultInvalidMember, mask, "%s.sync: membermask names lane(s) %s, which are alive but not executing this instruction; they would have to synchronise with the executing lanes (independent thread scheduling), which the emulator does not model", op.Code, warpLaneList(bad))
}

// lanesMaySync returns the lanes of missing that might still execute a
// warp-synchronous instruction involving the lanes of mask: the lanes of
// group (those issuing the instruction of stack entry top, with the groups
// joined to it; outside mask when their guard is false) continue after
// it; other lanes wait at the pc of the topmost stack entry holding them.
// Inside calls, a return continues at the caller's pc.
func (w *Warp) lanesMaySync(missing, mask, group uint32, top int) uint32 {
	if len(w.stack) == 0 || top < 0 {
		return 0
	}
	sc := newWarpSyncScan(w.m.prog, w.m.fn, mask)
	var bad uint32
	for m := missing; m != 0; m &= m - 1 {
		l := bits.TrailingZeros32(m)
		at, pc := -1, -1
		if group>>l&1 != 0 {
			at, pc = top, int(w.stack[top].PC)+1
		} else {
			for i := len(w.stack) - 1; i >= 0; i-- {
				if w.stack[i].Mask>>l&1 != 0 {
					at, pc = i, int(w.stack[i].PC)
					break
				}
			}
		}
		if pc < 0 {
			continue // returning from the kernel: it only exits
		}
		// Return addresses of the calls the lane is inside, innermost first.
		if sc.from(pc, w.returnPCs(at)) {
			bad |= 1 << l
		}
	}
	return bad
}

// warpSyncScan searches the code a lane may still execute for warp-synchronous
// instructions that involve a set of lanes.
type warpSyncScan struct {
	p      *Program
	kernel *Function
	lanes  uint32
	consts map[int32]uint64
	funcs  map[*Function]bool // memo: may a call of the function sync?
}

func newWarpSyncScan(p *Program, kernel *Function, lanes uint32) *warpSyncScan {
	s := &warpSyncScan{p: p, kernel: kernel, lanes: lanes, consts: make(map[int32]uint64, len(p.Consts)), funcs: map[*Function]bool{}}
	for _, c := range p.Consts {
		s.consts[c.Reg] = c.Val
	}
	return s
}

// syncs reports whether op makes a lane wait for other lanes, some of
// which may be in s.lanes: a warp-synchronous instruction whose membermask
// is not a constant, or a constant that intersects s.lanes.
func (s *warpSyncScan) syncs(op *Op) bool {
	switch {
	case op.Eff.Has(EffAligned):
		return true
	case !op.Eff.Has(EffWarpSync):
		return false
	}
	if v, ok := s.consts[op.Mask]; ok {
		return uint32(v)&s.lanes != 0
	}
	return true
}

// callSyncs reports whether a call to fn may execute such an instruction.
func (s *warpSyncScan) callSyncs(fn *Function) bool {
	if v, ok := s.funcs[fn]; ok {
		return v
	}
	s.funcs[fn] = true // recursion: assume it may while scanning
	v := false
	for pc := fn.Entry; pc < fn.End && !v; pc++ {
		op := &s.p.Ops[pc]
		switch {
		case s.syncs(op), op.Code == isa.OpBrx:
			v = true
		case op.Code == isa.OpCall:
			callee := s.p.Calls[op.Aux].Callee
			v = callee == nil || s.callSyncs(callee)
		}
	}
	s.funcs[fn] = v
	return v
}

// from reports whether a lane continuing at start may execute such an
// instruction before it exits; rets are the return addresses of the calls
// it is inside, innermost first. Indirect branches and calls, and returns
// with no known continuation, are assumed to.
func (s *warpSyncScan) from(start int, rets []int) bool {
	p := s.p
	seen := make(map[int]bool)
	work := []int{start}
	retDone := false
	for len(work) > 0 {
		pc := work[len(work)-1]
		work = work[:len(work)-1]
	walk:
		for ; pc >= 0 && pc < len(p.Ops); pc++ {
			if seen[pc] {
				break
			}
			seen[pc] = true
			op := &p.Ops[pc]
			if s.syncs(op) {
				return true
			}
			switch op.Code {
			case isa.OpBra:
				work = append(work, int(op.Target))
				if op.Guard < 0 {
					break walk
				}
			case isa.OpBrx:
				return true
			case isa.OpCall:
				if callee := p.Calls[op.Aux].Callee; callee == nil || s.callSyncs(callee) {
					return true
				}
			case isa.OpRet:
				if pc < s.kernel.Entry || pc >= s.kernel.End {
					// Returning to the caller.
					if len(rets) == 0 {
						return true
					}
					if !retDone {
						retDone = true
						if s.from(rets[0], rets[1:]) {
							return true
						}
					}
				}
				if op.Guard < 0 {
					break walk
				}
			case isa.OpExit, isa.OpTrap:
				if op.Guard < 0 {
					break walk
				}
			}
		}
	}
	return false
}

// warpLaneList formats a lane mask as "0, 3-5, 9".
func warpLaneList(m uint32) string {
	s := ""
	for l := 0; l < 32; {
		if m>>l&1 == 0 {
			l++
			continue
		}
		e := l
		for e+1 < 32 && m>>(e+1)&1 != 0 {
			e++
		}
		if s != "" {
			s += ", "
		}
		s += itoa(l)
		if e > l {
			s += "-" + itoa(e)
		}
		l = e + 1
	}
	return s
}

// ---- shfl ----

// bindShfl: shfl.sync.mode.b32 d{|p}, a, b, c, membermask and the legacy
// shfl.mode.b32 d{|p}, a, b, c.
func bindShfl(b *binder) {
	sync := b.Flag(isa.FSync)
	mode := b.Sub()
	t := b.Type()
	if b.failed {
		return
	}
	switch mode {
	case isa.SubUp, isa.SubDown, isa.SubBfly, isa.SubIdx:
	default:
		b.errorf("needs a mode (.up .down .bfly .idx)")
		return
	}
	if t != isa.B32 {
		b.errorf("needs .b32")
		return
	}
	n := 4
	if sync {
		n = 5
	}
	if !b.Want(n, n) {
		return
	}
	op := b.op
	op.Sub, op.Type = mode, t
	op.D, op.D2 = warpPairDst(b, 0, isa.B32)
	op.A = b.Src(1, isa.B32)
	op.B = b.Src(2, isa.B32)
	op.C = b.Src(3, isa.B32)
	warpBindMembermask(b, 4, sync)
	op.Exec = execShfl
	bv, okB := warpConstOperand(b, 2, op.B)
	cv, okC := warpConstOperand(b, 3, op.C)
	if okB && okC && !b.failed {
		ev, okE := uint64(0), !sync
		if sync {
			ev, okE = warpConstOperand(b, 4, op.E)
			okE = okE && uint32(ev) == ixAll
		}
		op.Exec = warpShflConst(mode, uint32(bv), uint32(cv), okE)
	}
}

// warpConstOperand returns the value of operand i, bound to slot r, when it
// is an integer immediate.
func warpConstOperand(b *binder, i int, r int32) (uint64, bool) {
	if b.failed || !b.IsImm(i) {
		return 0, false
	}
	v, ok := b.Imm(i)
	if !ok || v.Kind == ptx.ValFloat {
		return 0, false
	}
	x := uint64(uint32(v.Int))
	if s, ok := b.c.consts[x]; !ok || s != r {
		return 0, false
	}
	return x, true
}

// warpShflPerm computes, for lane offset b and clamp/segment mask c, each
// lane's source lane (its own where out of range) and the lanes whose
// source is in range.
func warpShflPerm(mode isa.SubOp, b, c uint32) (src [32]int8, valid uint32) {
	bval := int(b & 31)
	seg := int(c >> 8 & 31)
	for l := range src {
		maxLane := l&seg | int(c&31)&^seg
		var j int
		var ok bool
		switch mode {
		case isa.SubUp:
			j = l - bval
			ok = j >= maxLane
		case isa.SubDown:
			j = l + bval
			ok = j <= maxLane
		case isa.SubBfly:
			j = l ^ bval
			ok = j <= maxLane
		default:
			j = l&seg | bval&^seg
			ok = j <= maxLane
		}
		if ok {
			valid |= 1 << l
		} else {
			j = l
		}
		src[l] = int8(j)
	}
	return src, valid
}

// warpShflConst is shfl with immediate lane and clamp operands: the source
// lanes are computed at lowering. allMembers says that the membermask is
// absent or the immediate 0xffffffff, which a full warp always satisfies.
func warpShflConst(mode isa.SubOp, b, c uint32, allMembers bool) execFn {
	perm, valid := warpShflPerm(mode, b, c)
	return func(w *Warp, op *Op, mask uint32) *Fault {
		if !allMembers || mask != ixAll {
			if f := warpMembers(w, op, mask, nil); f != nil {
				return f
			}
		}
		a := w.r(op.A)
		var out [32]uint64
		for l := 0; l < 32; l += 4 {
			out[l] = a[perm[l]&31] & 0xffffffff
			out[l+1] = a[perm[l+1]&31] & 0xffffffff
			out[l+2] = a[perm[l+2]&31] & 0xffffffff
			out[l+3] = a[perm[l+3]&31] & 0xffffffff
		}
		if w.m.obsDetails {
			sh := w.m.shuffleStep()
			sh.Lanes, sh.Valid, sh.Src = mask, valid&mask, perm
			if mask != ixAll {
				sh.Src = [32]int8{}
				for m := mask; m != 0; m &= m - 1 {
					l := bits.TrailingZeros32(m) & 31
					sh.Src[l] = perm[l]
				}
			}
		}
		d := w.r(op.D)
		if mask == ixAll {
			*d = out
		} else {
			for m := mask; m != 0; m &= m - 1 {
				l := bits.TrailingZeros32(m) & 31
				d[l] = out[l]
			}
		}
		if op.D2 >= 0 {
			w.preds[op.D2] = w.preds[op.D2]&^mask | valid&mask
		}
		return nil
	}
}

func execShfl(w *Warp, op *Op, mask uint32) *Fault {
	var grp [32]uint32
	if f := warpMembers(w, op, mask, &grp); f != nil {
		return f
	}
	a, bb, cc := w.r(op.A), w.r(op.B), w.r(op.C)
	var out [32]uint64
	var src [32]int8
	var pv uint32
	for m := mask; m != 0; m &= m - 1 {
		l := bits.TrailingZeros32(m)
		bval := int(bb[l] & 31)
		c := cc[l]
		seg := int(c >> 8 & 31)
		maxLane := l&seg | int(c&31)&^seg
		var j int
		var ok bool
		switch op.Sub {
		case isa.SubUp:
			j = l - bval
			ok = j >= maxLane
		case isa.SubDown:
			j = l + bval
			ok = j <= maxLane
		case isa.SubBfly:
			j = l ^ bval
			ok = j <= maxLane
		default:
			j = l&seg | bval&^seg
			ok = j <= maxLane
		}
		if ok {
			pv |= 1 << l
		} else {
			j = l
		}
		src[l] = int8(j)
		out[l] = a[j] & 0xffffffff
	}
	if w.m.obsDetails {
		sh := w.m.shuffleStep()
		sh.Lanes, sh.Valid, sh.Src = mask, pv, src
	}
	d := w.r(op.D)
	for m := mask; m != 0; m &= m - 1 {
		l := bits.TrailingZeros32(m)
		d[l] = out[l]
	}
	if op.D2 >= 0 {
		w.preds[op.D2] = w.preds[op.D2]&^mask | pv&mask
	}
	return nil
}

// ---- vote ----

// bindVote: vote.sync.{all,any,uni}.pred d, {!}a, membermask;
// vote.sync.ballot.b32 d, {!}a, membermask; and the legacy forms without
// .sync and membermask.
func bindVote(b *binder) {
	sync := b.Flag(isa.FSync)
	uni := b.Flag(isa.FUni)
	sub := b.Sub()
	t := b.Type()
	if b.failed {
		return
	}
	modes := 0
	if b.Sub() != isa.SubNone {
		modes++
	}
	mode := sub
	if uni {
		modes++
		mode = isa.SubNone
	}
	switch sub {
	case isa.SubAll, isa.SubAny, isa.SubBallot:
		modes++
	case isa.SubNone:
	default:
		b.errorf("unknown mode .%s", sub)
		return
	}
	if modes != 1 {
		b.errorf("needs one mode (.all .any .uni .ballot)")
		return
	}
	if mode == isa.SubBallot {
		if t != isa.B32 {
			b.errorf("vote.ballot needs .b32")
			return
		}
	} else if t != isa.Pred {
		b.errorf("needs .pred")
		return
	}
	n := 2
	if sync {
		n = 3
	}
	if !b.Want(n, n) {
		return
	}
	op := b.op
	op.Sub, op.Type = mode, t
	op.D = b.Dst(0, t)
	op.A = b.SrcPred(1, 0)
	warpBindMembermask(b, 2, sync)
	op.Exec = execVote
}

func execVote(w *Warp, op *Op, mask uint32) *Fault {
	var grp [32]uint32
	if f := warpMembers(w, op, mask, &grp); f != nil {
		return f
	}
	p := w.preds[op.A]
	if op.Neg&1 != 0 {
		p = ^p
	}
	if op.Sub == isa.SubBallot {
		d := w.r(op.D)
		for m := mask; m != 0; m &= m - 1 {
			l := bits.TrailingZeros32(m)
			d[l] = uint64(p & grp[l])
		}
		return nil
	}
	var res uint32
	for m := mask; m != 0; m &= m - 1 {
		l := bits.TrailingZeros32(m)
		g := grp[l]
		var v bool
		switch op.Sub {
		case isa.SubAll:
			v = p&g == g
		case isa.SubAny:
			v = p&g != 0
		default: // .uni
			v = p&g == 0 || p&g == g
		}
		if v {
			res |= 1 << l
		}
	}
	w.preds[op.D] = w.preds[op.D]&^mask | res
	return nil
}

// ---- match ----

// bindMatch: match.any.sync.type d, a, membermask and
// match.all.sync.type d{|p}, a, membermask (.b32 .b64).
func bindMatch(b *binder) {
	sync := b.Flag(isa.FSync)
	sub := b.Sub()
	t := b.Type()
	if b.failed {
		return
	}
	all := sub == isa.SubAll
	if all {
		sub = isa.SubNone
	}
	if all == (sub == isa.SubAny) || (sub != isa.SubNone && sub != isa.SubAny) {
		b.errorf("needs one mode (.any .all)")
		return
	}
	if !sync {
		b.errorf("needs .sync")
		return
	}
	if t != isa.B32 && t != isa.B64 {
		b.errorf("needs .b32 or .b64")
		return
	}
	if !b.Want(3, 3) {
		return
	}
	op := b.op
	op.Type = t
	if all {
		op.Sub = isa.SubAll
		op.D, op.D2 = warpPairDst(b, 0, isa.B32)
	} else {
		op.Sub = isa.SubAny
		op.D = b.Dst(0, isa.B32)
	}
	op.A = b.Src(1, t)
	warpBindMembermask(b, 2, true)
	op.Exec = execMatch
}

func execMatch(w *Warp, op *Op, mask uint32) *Fault {
	var grp [32]uint32
	if f := warpMembers(w, op, mask, &grp); f != nil {
		return f
	}
	a := w.r(op.A)
	vm := ^uint64(0)
	if op.Type == isa.B32 {
		vm = 0xffffffff
	}
	var out [32]uint64
	var pv uint32
	for m := mask; m != 0; m &= m - 1 {
		l := bits.TrailingZeros32(m)
		v := a[l] & vm
		var same uint32
		for g := grp[l]; g != 0; g &= g - 1 {
			k := bits.TrailingZeros32(g)
			if a[k]&vm == v {
				same |= 1 << k
			}
		}
		if op.Sub == isa.SubAny {
			out[l] = uint64(same)
			continue
		}
		if same == grp[l] {
			out[l] = uint64(same)
			pv |= 1 << l
		}
	}
	d := w.r(op.D)
	for m := mask; m != 0; m &= m - 1 {
		l := bits.TrailingZeros32(m)
		d[l] = out[l]
	}
	if op.D2 >= 0 {
		w.preds[op.D2] = w.preds[op.D2]&^mask | pv
	}
	return nil
}

// ---- activemask ----

func bindActivemask(b *binder) {
	if t := b.Type(); t != isa.B32 && !b.failed {
		b.errorf("needs .b32")
		return
	}
	if !b.Want(1, 1) {
		return
	}
	b.op.D = b.Dst(0, isa.B32)
	b.op.Exec = func(w *Warp, op *Op, mask uint32) *Fault {
		d := w.r(op.D)
		for m := mask; m != 0; m &= m - 1 {
			d[bits.TrailingZeros32(m)] = uint64(mask)
		}
		return nil
	}
}

// ---- redux ----

// bindRedux: redux.sync.op.type d, a, membermask with .add .min .max on
// .u32/.s32, .and .or .xor on .b32, and .min/.max{.abs}{.NaN}.f32.
func bindRedux(b *binder) {
	sync := b.Flag(isa.FSync)
	abs := b.Flag(isa.FAbs)
	nan := b.Flag(isa.FNaN)
	sub := b.Sub()
	t := b.Type()
	if b.failed {
		return
	}
	if !sync {
		b.errorf("needs .sync")
		return
	}
	ok := false
	switch sub {
	case isa.SubAdd:
		ok = t == isa.U32 || t == isa.S32
	case isa.SubMin, isa.SubMax:
		ok = t == isa.U32 || t == isa.S32 || t == isa.F32
	case isa.SubAnd, isa.SubOr, isa.SubXor:
		ok = t == isa.B32
	default:
		b.errorf("needs an operation (.add .min .max .and .or .xor)")
		return
	}
	if !ok {
		b.errorf(".%s is not a valid type for .%s", t, sub)
		return
	}
	if (abs || nan) && t != isa.F32 {
		b.errorf(".abs and .NaN apply only to .f32")
		return
	}
	if !b.Want(3, 3) {
		return
	}
	op := b.op
	op.Sub, op.Type = sub, t
	op.D = b.Dst(0, t)
	op.A = b.Src(1, t)
	warpBindMembermask(b, 2, true)
	var f func(x, y uint32) uint32
	switch sub {
	case isa.SubAdd:
		f = func(x, y uint32) uint32 { return x + y }
	case isa.SubAnd:
		f = func(x, y uint32) uint32 { return x & y }
	case isa.SubOr:
		f = func(x, y uint32) uint32 { return x | y }
	case isa.SubXor:
		f = func(x, y uint32) uint32 { return x ^ y }
	case isa.SubMin, isa.SubMax:
		isMax := sub == isa.SubMax
		switch t {
		case isa.U32:
			f = func(x, y uint32) uint32 {
				if (y < x) != isMax && x != y {
					return y
				}
				return x
			}
		case isa.S32:
			f = func(x, y uint32) uint32 {
				if (int32(y) < int32(x)) != isMax && x != y {
					return y
				}
				return x
			}
		default:
			var m fpx.Mod
			if nan {
				m = fpx.NaN
			}
			f = func(x, y uint32) uint32 {
				if abs {
					x, y = x&0x7fffffff, y&0x7fffffff
				}
				return fpx.MinMaxF32(x, y, isMax, m)
			}
		}
	}
	op.Exec = func(w *Warp, op *Op, mask uint32) *Fault {
		var grp [32]uint32
		if fl := warpMembers(w, op, mask, &grp); fl != nil {
			return fl
		}
		a, d := w.r(op.A), w.r(op.D)
		var lastG uint32
		var lastV uint32
		for m := mask; m != 0; m &= m - 1 {
			l := bits.TrailingZeros32(m)
			g := grp[l]
			if g != lastG || lastG == 0 {
				k := bits.TrailingZeros32(g)
				acc := uint32(a[k])
				if abs {
					acc &= 0x7fffffff
				}
				for r := g & (g - 1); r != 0; r &= r - 1 {
					acc = f(acc, uint32(a[bits.TrailingZeros32(r)]))
				}
				lastG, lastV = g, acc
			}
			d[l] = uint64(lastV)
		}
		return nil
	}
}

// ---- elect ----

// bindElect: elect.sync d|p, membermask. d receives the leader's lane id,
// p is true in the leader only; the leader is the lowest executing lane of
// membermask.
func bindElect(b *binder) {
	sync := b.Flag(isa.FSync)
	b.AllTypes()
	if !sync {
		b.errorf("needs .sync")
		return
	}
	if !b.Want(2, 2) {
		return
	}
	op := b.op
	op.D, op.D2 = warpPairDst(b, 0, isa.U32)
	if !b.failed && op.D2 < 0 {
		b.operr(0, "needs a destination pair d|p")
		return
	}
	warpBindMembermask(b, 1, true)
	op.Exec = func(w *Warp, op *Op, mask uint32) *Fault {
		var grp [32]uint32
		if f := warpMembers(w, op, mask, &grp); f != nil {
			return f
		}
		d := w.r(op.D)
		var pv uint32
		for m := mask; m != 0; m &= m - 1 {
			l := bits.TrailingZeros32(m)
			leader := bits.TrailingZeros32(grp[l])
			d[l] = uint64(leader)
			if leader == l {
				pv |= 1 << l
			}
		}
		w.preds[op.D2] = w.preds[op.D2]&^mask | pv
		return nil
	}
}

// laneWhere says where the lanes wait: "lane 3 at pc 12 (reconvergence)",
// one entry per pc and reason.
func (w *Warp) laneWhere(lanes uint32) string {
	type at struct {
		pc     int
		reason string
	}
	var order []at
	got := map[at]uint32{}
	for _, lw := range w.LaneWaits() {
		if lanes>>lw.Lane&1 == 0 {
			continue
		}
		k := at{lw.PC, lw.Reason}
		if _, ok := got[k]; !ok {
			order = append(order, k)
		}
		got[k] |= 1 << lw.Lane
	}
	s := ""
	for _, k := range order {
		if s != "" {
			s += "; "
		}
		s += "lane(s) " + warpLaneList(got[k]) + " at pc " + itoa(k.pc) + " (" + k.reason + ")"
	}
	return s
}
