package emu

import (
	"fmt"
	"math/bits"

	"github.com/ptxplayground/ptxplay/engine/isa"
)

// mbarrier objects (PTX ISA §9.7.13.15).
//
// An mbarrier is 8 bytes of shared memory, 8-byte aligned. Its whole state
// lives in those bytes (so snapshots, history and the memory view see it),
// as a little-endian 64-bit word:
//
//	bits  0-19  pending arrivals of the current phase (0 .. 2^20-1)
//	bits 20-39  expected arrivals per phase (0 .. 2^20-1; init sets 1 .. 2^20-1)
//	bits 40-60  transaction count, 21-bit two's complement (-(2^20-1) .. 2^20-1)
//	bit  61     the current phase's parity
//	bit  62     0
//	bit  63     1: initialised (init sets it, inval clears the word)
//
// A phase completes when its pending arrivals and its transaction count
// are both zero: the phase parity flips and the pending count is reset to
// the expected count. Every limit of the ISA is checked, and going past
// one is a fault naming the mbarrier: an init count outside 1 .. 2^20-1,
// an arrive count or transaction count outside its range, more arrivals
// than are pending, a transaction count leaving its range, and an
// .noComplete arrive that would complete the phase. Any mbarrier
// instruction but init on an object that is not initialised (or was
// invalidated) faults too (the ISA leaves it undefined), and so does an
// address that is not 8-byte aligned or not in shared memory.
//
// The state an arrive returns (opaque in the ISA) has the object's layout
// with bit 63 set, bit 61 the parity of the phase the arrive happened in
// and bits 0-19 the pending arrivals it left (what pending_count reads);
// the other bits are zero. test_wait and try_wait with a state test
// whether that phase has completed (its parity is no longer the
// object's); with .parity they test the phase of that parity, which is
// the current phase (not completed) or the immediately preceding one
// (completed).
//
// try_wait blocks: the lanes whose phase has not completed wait (a Wait of
// kind WaitMbarrier with the mbarrier's offset in the CTA's shared memory
// and the parity) until the arrive or complete_tx that completes it wakes
// them; the suspend-time hint is accepted and has no effect (the emulator
// has no time limit: try_wait returns true, after the phase completes).
// Its destination is written false for the waiting lanes and set when
// they wake. test_wait never blocks.
//
// cp.async.mbarrier.arrive(.noinc): the arrive is triggered when the
// thread's prior cp.async copies have completed. Deterministically, the
// instruction lands every cp.async copy the thread issued before it (in
// issue order, reported as stores of this instruction, committed or not),
// then arrives. Without .noinc the pending count is incremented before
// that arrive, so it has no net effect on the count; with .noinc it counts
// as one of the expected arrivals.
//
// The semantics (.release, .relaxed, .acquire) and scopes (.cta, .cluster)
// are accepted and checked against the forms the ISA allows; the emulator
// is sequentially consistent, so they order nothing further.

func init() {
	binders[isa.OpMbarrierInit] = bindMbarrier
	binders[isa.OpMbarrierInval] = bindMbarrier
	binders[isa.OpMbarrierArrive] = bindMbarrier
	binders[isa.OpMbarrierArriveDrop] = bindMbarrier
	binders[isa.OpMbarrierExpectTx] = bindMbarrier
	binders[isa.OpMbarrierCompleteTx] = bindMbarrier
	binders[isa.OpMbarrierTestWait] = bindMbarrier
	binders[isa.OpMbarrierTryWait] = bindMbarrier
	binders[isa.OpMbarrierPendingCount] = bindMbarrierPendingCount
	binders[isa.OpCpAsyncMbarrierArrive] = bindCpAsyncMbarrierArrive
}

// MbarrierMax is the ISA's bound of an mbarrier's counts: arrival counts
// are at most it, and transaction counts within ±it.
const MbarrierMax = 1<<20 - 1

const (
	mbarPendingShift  = 0
	mbarExpectedShift = 20
	mbarTxShift       = 40
	mbarPhaseBit      = 61
	mbarValidBit      = 63
	mbarCountMask     = 1<<20 - 1
	mbarTxMask        = 1<<21 - 1
)

// Mbarrier is the decoded state of an mbarrier object.
type Mbarrier struct {
	Valid    bool   // initialised (and not invalidated)
	Phase    uint32 // the current phase's parity
	Pending  int64  // arrivals still pending in the current phase
	Expected int64  // arrivals expected per phase
	Tx       int64  // transaction count (bytes expected but not completed; negative: completed before expected)
}

// DecodeMbarrier decodes an mbarrier object's 8 bytes (as a little-endian
// word).
func DecodeMbarrier(v uint64) Mbarrier {
	tx := int64(v>>mbarTxShift&mbarTxMask) << 43 >> 43
	return Mbarrier{
		Valid:    v>>mbarValidBit&1 != 0,
		Phase:    uint32(v >> mbarPhaseBit & 1),
		Pending:  int64(v >> mbarPendingShift & mbarCountMask),
		Expected: int64(v >> mbarExpectedShift & mbarCountMask),
		Tx:       tx,
	}
}

// Encode returns the object's 8 bytes as a little-endian word.
func (s Mbarrier) Encode() uint64 {
	if !s.Valid {
		return 0
	}
	return 1<<mbarValidBit | uint64(s.Phase&1)<<mbarPhaseBit |
		uint64(s.Tx)&mbarTxMask<<mbarTxShift |
		uint64(s.Expected)&mbarCountMask<<mbarExpectedShift |
		uint64(s.Pending)&mbarCountMask<<mbarPendingShift
}

// Missing says what the current phase still needs, in words ("1 arrival
// and 4,096 transaction bytes").
func (s Mbarrier) Missing() string {
	if !s.Valid {
		return "it is not initialised"
	}
	var parts []string
	if s.Pending > 0 {
		parts = append(parts, fmt.Sprintf("%s arrival%s", commas(s.Pending), plural(int(s.Pending))))
	}
	switch {
	case s.Tx > 0:
		parts = append(parts, fmt.Sprintf("%s transaction byte%s", commas(s.Tx), plural(int(s.Tx))))
	case s.Tx < 0:
		parts = append(parts, fmt.Sprintf("an expect_tx of %s transaction byte%s (completed before they were expected)", commas(-s.Tx), plural(int(-s.Tx))))
	}
	switch len(parts) {
	case 0:
		return "nothing"
	case 1:
		return parts[0]
	}
	return parts[0] + " and " + parts[1]
}

// commas formats n with thousands separators.
func commas(n int64) string {
	s := fmt.Sprint(n)
	neg := s[0] == '-'
	if neg {
		s = s[1:]
	}
	out := ""
	for len(s) > 3 {
		out = "," + s[len(s)-3:] + out
		s = s[:len(s)-3]
	}
	out = s + out
	if neg {
		out = "-" + out
	}
	return out
}

// mbarrier form bits (Op.Aux).
const (
	mbarParity     = 1 << iota // test_wait/try_wait.parity
	mbarExpectTx               // arrive{_drop}.expect_tx
	mbarNoComplete             // arrive{_drop}.noComplete
	mbarNoinc                  // cp.async.mbarrier.arrive.noinc
	mbarHasCount               // arrive{_drop} with a count operand
	mbarRelaxed                // .relaxed (reported to observers)
)

// mbarrierSem checks the memory-order and scope qualifiers of an mbarrier
// instruction: sems are the semantics the form allows.
func mbarrierSem(b *binder, sems ...string) {
	for _, s := range []string{"release", "relaxed", "acquire", "acq_rel", "sc", "weak", "mmio"} {
		if !b.Hint(s) {
			continue
		}
		ok := false
		for _, x := range sems {
			ok = ok || x == s
		}
		if !ok {
			b.errorf(".%s is not valid here (the form takes %s)", s, semList(sems))
			return
		}
	}
	for _, s := range []string{"gpu", "sys"} {
		if b.Hint(s) {
			b.errorf("the scope .%s is not valid for mbarrier (.cta or .cluster)", s)
			return
		}
	}
}

func semList(sems []string) string {
	if len(sems) == 0 {
		return "no memory-order qualifier"
	}
	s := ""
	for i, x := range sems {
		if i > 0 {
			s += " or "
		}
		s += "." + x
	}
	return s
}

// bindMbarrier binds every mbarrier instruction with an address operand.
func bindMbarrier(b *binder) {
	code := b.op.Code
	space := b.Space()
	t := b.Type()
	if b.failed {
		return
	}
	if t != isa.B64 {
		b.errorf("needs .b64")
		return
	}
	switch space {
	case isa.SpaceNone, isa.Shared:
	case isa.SharedCluster:
		switch code {
		case isa.OpMbarrierArrive, isa.OpMbarrierArriveDrop, isa.OpMbarrierExpectTx, isa.OpMbarrierCompleteTx:
		default:
			b.errorf("takes .shared{::cta} or a generic address, not .%s", space)
			return
		}
	default:
		b.errorf("an mbarrier object is in shared memory: use a .shared state space or a generic address")
		return
	}
	op := b.op
	var aux int32
	addrAt := 0
	switch code {
	case isa.OpMbarrierInit:
		mbarrierSem(b)
		if !b.Want(2, 2) {
			return
		}
		op.B = b.Src(1, isa.U32)
	case isa.OpMbarrierInval:
		mbarrierSem(b)
		if !b.Want(1, 1) {
			return
		}
	case isa.OpMbarrierArrive, isa.OpMbarrierArriveDrop:
		mbarrierSem(b, "release", "relaxed")
		if b.Hint("expect_tx") {
			aux |= mbarExpectTx
		}
		if b.Hint("noComplete") {
			aux |= mbarNoComplete
		}
		if !b.Want(2, 3) {
			return
		}
		if aux&(mbarExpectTx|mbarNoComplete) != 0 && b.N() != 3 {
			b.errorf("the .expect_tx and .noComplete forms need a third operand (the transaction count or the arrival count)")
			return
		}
		if space == isa.SharedCluster && !b.IsSink(0) {
			b.operr(0, "an arrive on a .shared::cluster mbarrier returns no state: use the sink _")
			return
		}
		op.D = b.Dst(0, isa.B64)
		addrAt = 1
		if b.N() == 3 {
			op.B = b.Src(2, isa.U32)
			if aux&mbarExpectTx == 0 {
				aux |= mbarHasCount
			}
		}
	case isa.OpMbarrierExpectTx, isa.OpMbarrierCompleteTx:
		mbarrierSem(b, "relaxed", "release")
		if !b.Want(2, 2) {
			return
		}
		op.B = b.Src(1, isa.U32)
	case isa.OpMbarrierTestWait, isa.OpMbarrierTryWait:
		mbarrierSem(b, "acquire", "relaxed")
		if b.Hint("parity") {
			aux |= mbarParity
		}
		hi := 3
		if code == isa.OpMbarrierTryWait {
			hi = 4
		}
		if !b.Want(3, hi) {
			return
		}
		op.D = b.Dst(0, isa.Pred)
		addrAt = 1
		if aux&mbarParity != 0 {
			op.B = b.Src(2, isa.U32)
		} else {
			op.B = b.Src(2, isa.B64)
		}
		if b.N() == 4 {
			op.C = b.Src(3, isa.U32) // the suspend-time hint (no effect)
		}
		if code == isa.OpMbarrierTryWait {
			op.Ctrl = true
		}
	}
	if b.failed {
		return
	}
	if b.Hint("relaxed") {
		aux |= mbarRelaxed
	}
	ref, ok := bindMemRef(b, addrAt, space)
	if !ok {
		return
	}
	b.memSpan(8)
	ref.set(op)
	op.Type = t
	op.Aux = aux
	switch code {
	case isa.OpMbarrierInit:
		op.Exec = execMbarrierInit
	case isa.OpMbarrierInval:
		op.Exec = execMbarrierInval
	case isa.OpMbarrierArrive, isa.OpMbarrierArriveDrop:
		op.Exec = execMbarrierArrive
	case isa.OpMbarrierExpectTx, isa.OpMbarrierCompleteTx:
		op.Exec = execMbarrierTx
	case isa.OpMbarrierTestWait:
		op.Exec = execMbarrierTestWait
	case isa.OpMbarrierTryWait:
		op.Exec = execMbarrierTryWait
	}
}

// bindMbarrierPendingCount: mbarrier.pending_count.b64 count, state.
func bindMbarrierPendingCount(b *binder) {
	if t := b.Type(); !b.failed && t != isa.B64 {
		b.errorf("needs .b64")
	}
	if b.failed || !b.Want(2, 2) {
		return
	}
	op := b.op
	op.D = b.Dst(0, isa.U32)
	op.A = b.Src(1, isa.B64)
	op.Type = isa.B64
	op.Exec = execMbarrierPendingCount
}

// bindCpAsyncMbarrierArrive: cp.async.mbarrier.arrive{.noinc}{.shared{::cta}}.b64 [addr].
func bindCpAsyncMbarrierArrive(b *binder) {
	space := b.Space()
	t := b.Type()
	if b.failed {
		return
	}
	if t != isa.B64 {
		b.errorf("needs .b64")
		return
	}
	if space != isa.SpaceNone && space != isa.Shared {
		b.errorf("takes .shared{::cta} or a generic address")
		return
	}
	if !b.Want(1, 1) {
		return
	}
	ref, ok := bindMemRef(b, 0, space)
	if !ok {
		return
	}
	b.memSpan(8)
	op := b.op
	ref.set(op)
	op.Type = t
	if b.Hint("noinc") {
		op.Aux = mbarNoinc
	}
	op.Exec = execCpAsyncMbarrierArrive
}

// mbarRef is a resolved mbarrier object: the CTA whose shared memory
// holds it, its offset there and its bytes.
type mbarRef struct {
	c   *CTA
	off uint64
	b   []byte
}

// mbarAt resolves lane's mbarrier address addr (in space, as the
// instruction named it), checking alignment and that it is in shared
// memory, and reports the access to observers as kind. own: the object
// must be in the executing CTA's shared memory.
func (w *Warp) mbarAt(op *Op, kind AccessKind, lane int, addr uint64, own bool) (mbarRef, *Fault) {
	name := isa.Info[op.Code].Name
	if addr&7 != 0 {
		return mbarRef{}, w.faultAddr(FaultMisaligned, lane, addr, "%s: the mbarrier address 0x%x is not 8-byte aligned", name, addr)
	}
	space := op.Space
	buf, sp, f := w.spaceBytes(space, lane, addr, 8, 8)
	if f != nil {
		return mbarRef{}, f
	}
	a := addr
	if space == isa.SpaceNone {
		a -= GenericShared
	}
	r := mbarRef{c: w.cta, off: a, b: buf}
	switch sp {
	case isa.Shared:
	case isa.SharedCluster:
		c, off, f := w.clusterShared(lane, a, 8)
		if f != nil {
			return mbarRef{}, f
		}
		r.c, r.off = c, off
		if own && c != w.cta {
			return mbarRef{}, w.faultAddr(FaultIllegal, lane, addr, "%s: the mbarrier at 0x%x is in the shared memory of CTA (%d,%d,%d), not the executing CTA's: this form works on the CTA's own mbarriers (.shared::cta)", name, addr, c.Idx[0], c.Idx[1], c.Idx[2])
		}
	default:
		return mbarRef{}, w.faultAddr(FaultIllegal, lane, addr, "%s: the address 0x%x is in %s memory; an mbarrier object is in shared memory", name, addr, sp)
	}
	w.noteAccess(kind, space, sp, lane, addr, buf)
	return r, nil
}

// mbarWhere names an mbarrier for a message.
func (r mbarRef) where(w *Warp) string {
	if r.c == w.cta {
		return fmt.Sprintf("mbarrier @%#x", r.off)
	}
	return fmt.Sprintf("mbarrier @%#x of CTA (%d,%d,%d)", r.off, r.c.Idx[0], r.c.Idx[1], r.c.Idx[2])
}

// mbarLoad returns the object's state, faulting unless it is initialised.
func (w *Warp) mbarLoad(op *Op, lane int, addr uint64, r mbarRef) (Mbarrier, *Fault) {
	s := DecodeMbarrier(getLE(r.b))
	if !s.Valid {
		return s, w.faultAddr(FaultIllegal, lane, addr, "%s on %s, which is not initialised (mbarrier.init first; after mbarrier.inval it must be initialised again)", isa.Info[op.Code].Name, r.where(w))
	}
	return s, nil
}

// mbarStore writes the object's new state, completing its phase when no
// arrival and no transaction byte is pending: the phase flips, the
// pending count is reset and the lanes waiting on it wake.
func (w *Warp) mbarStore(r mbarRef, s Mbarrier) bool {
	done := s.Valid && s.Pending == 0 && s.Tx == 0 && s.Expected > 0
	if done {
		w.mbarCompleteEvent(r, s.Phase)
		s.Phase ^= 1
		s.Pending = s.Expected
	}
	putLE(r.b, s.Encode())
	if done {
		w.m.mbarrierWake(r.c, r.off)
	}
	return done
}

// mbarrierWake wakes the warps of c waiting on the mbarrier at offset off
// whose phase has completed.
func (m *Machine) mbarrierWake(c *CTA, off uint64) {
	woke := false
	for _, x := range c.Warps {
		if x.wakeOver(WaitMbarrier) {
			woke = true
		}
	}
	if woke {
		m.forgetQuiet(c)
		m.released = true
	}
}

// mbarrierCompleteTx completes bytes transaction bytes on the mbarrier at
// offset off of c's shared memory for lane of w (whose instruction, an
// asynchronous copy or complete_tx, completes them): the completion of
// asynchronous work that counts on an mbarrier (targetMbarrierTx). It
// faults for an object that is not initialised and for a transaction
// count leaving the ISA's range; a completed phase wakes its waiters.
func (w *Warp) mbarrierCompleteTx(op *Op, lane int, c *CTA, off uint64, bytes int64) *Fault {
	if off&7 != 0 || off+8 > uint64(len(c.shared)) {
		return w.fault(FaultIllegal, lane, "%s: the mbarrier at offset 0x%x of the shared memory of CTA (%d,%d,%d) is not an 8-byte aligned object in its %d bytes", isa.Info[op.Code].Name, off, c.Idx[0], c.Idx[1], c.Idx[2], len(c.shared))
	}
	r := mbarRef{c: c, off: off, b: c.shared[off : off+8 : off+8]}
	s, f := w.mbarLoad(op, lane, off, r)
	if f != nil {
		return f
	}
	if bytes >= 0 && bytes <= MbarrierMax {
		w.mbarEventAsync(EvMbarrierCompleteTx, r, lane, mbarRelaxedOp(op), op.Code != isa.OpMbarrierCompleteTx)
	}
	return w.mbarTx(op, lane, off, r, s, -bytes)
}

// mbarTx adds delta to the object's transaction count (expect_tx: +,
// complete_tx: -), checking the count and the result against the ISA's
// range, and stores it.
func (w *Warp) mbarTx(op *Op, lane int, addr uint64, r mbarRef, s Mbarrier, delta int64) *Fault {
	name := isa.Info[op.Code].Name
	if delta > MbarrierMax || delta < -MbarrierMax {
		return w.faultAddr(FaultIllegal, lane, addr, "%s: a transaction count of %s bytes on %s is outside the ISA's range (at most %s)", name, commas(abs64(delta)), r.where(w), commas(MbarrierMax))
	}
	n := s.Tx + delta
	if n > MbarrierMax || n < -MbarrierMax {
		return w.faultAddr(FaultIllegal, lane, addr, "%s: the transaction count of %s would become %s bytes, outside the ISA's range -%s .. %s", name, r.where(w), commas(n), commas(MbarrierMax), commas(MbarrierMax))
	}
	s.Tx = n
	w.mbarStore(r, s)
	return nil
}

func abs64(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}

// eachMbarrier runs fn, lane by lane in ascending order, for every lane of
// mask with the mbarrier its address operand names (mbarAt: checked, and
// reported to observers as kind; own: it must be the CTA's own); the
// first fault stops it.
func (w *Warp) eachMbarrier(op *Op, mask uint32, kind AccessKind, own bool, fn func(l int, addr uint64, r mbarRef) *Fault) *Fault {
	base := memBase(w, op)
	for m := mask; m != 0; m &= m - 1 {
		l := bits.TrailingZeros32(m)
		addr := memAt(base, op, l)
		r, f := w.mbarAt(op, kind, l, addr, own)
		if f != nil {
			return f
		}
		if f := fn(l, addr, r); f != nil {
			return f
		}
	}
	return nil
}

func execMbarrierInit(w *Warp, op *Op, mask uint32) *Fault {
	cnt := w.r(op.B)
	return w.eachMbarrier(op, mask, AccessStore, true, func(l int, addr uint64, r mbarRef) *Fault {
		n := int64(uint32(cnt[l]))
		if n < 1 || n > MbarrierMax {
			return w.faultAddr(FaultIllegal, l, addr, "mbarrier.init: the expected arrival count %d of %s is outside the ISA's range 1 .. %s", n, r.where(w), commas(MbarrierMax))
		}
		w.mbarInitEvent(r, l)
		putLE(r.b, Mbarrier{Valid: true, Pending: n, Expected: n}.Encode())
		r.c.mbarLive(r.off)
		return nil
	})
}

func execMbarrierInval(w *Warp, op *Op, mask uint32) *Fault {
	return w.eachMbarrier(op, mask, AccessStore, true, func(l int, addr uint64, r mbarRef) *Fault {
		if _, f := w.mbarLoad(op, l, addr, r); f != nil {
			return f
		}
		w.mbarEvent(EvMbarrierInval, r, l, false)
		putLE(r.b, 0)
		r.c.mbarDead(r.off)
		return nil
	})
}

// mbarArrive performs one arrive-on operation of count arrivals (drop:
// arrive_drop, which also lowers the expected count) with tx expected
// transaction bytes first, and returns the state to hand back.
func (w *Warp) mbarArrive(op *Op, lane int, addr uint64, r mbarRef, count, tx int64, drop, noComplete bool) (uint64, *Fault) {
	name := isa.Info[op.Code].Name
	if count < 1 || count > MbarrierMax {
		return 0, w.faultAddr(FaultIllegal, lane, addr, "%s: the arrival count %d on %s is outside the ISA's range 1 .. %s", name, count, r.where(w), commas(MbarrierMax))
	}
	s, f := w.mbarLoad(op, lane, addr, r)
	if f != nil {
		return 0, f
	}
	if tx != 0 {
		if tx > MbarrierMax {
			return 0, w.faultAddr(FaultIllegal, lane, addr, "%s: a transaction count of %s bytes on %s is outside the ISA's range (at most %s)", name, commas(tx), r.where(w), commas(MbarrierMax))
		}
		if n := s.Tx + tx; n > MbarrierMax {
			return 0, w.faultAddr(FaultIllegal, lane, addr, "%s: the transaction count of %s would become %s bytes, outside the ISA's range -%s .. %s", name, r.where(w), commas(n), commas(MbarrierMax), commas(MbarrierMax))
		}
		s.Tx += tx
	}
	if count > s.Pending {
		return 0, w.faultAddr(FaultIllegal, lane, addr, "%s: %d arrival%s on %s, which has %d pending in phase %d: more arrivals than the phase expects", name, count, plural(int(count)), r.where(w), s.Pending, s.Phase)
	}
	if drop {
		if count > s.Expected {
			return 0, w.faultAddr(FaultIllegal, lane, addr, "%s: dropping %d arrival%s from %s, which expects %d per phase", name, count, plural(int(count)), r.where(w), s.Expected)
		}
		s.Expected -= count
	}
	s.Pending -= count
	if noComplete && s.Pending == 0 && s.Tx == 0 {
		return 0, w.faultAddr(FaultIllegal, lane, addr, "%s.noComplete: the arrival completes phase %d of %s (undefined for .noComplete)", name, s.Phase, r.where(w))
	}
	state := Mbarrier{Valid: true, Phase: s.Phase, Pending: s.Pending}.Encode()
	w.mbarEvent(EvMbarrierArrive, r, lane, mbarRelaxedOp(op))
	w.mbarStore(r, s)
	return state, nil
}

func execMbarrierArrive(w *Warp, op *Op, mask uint32) *Fault {
	var src *[32]uint64
	if op.B >= 0 {
		src = w.r(op.B)
	}
	d := w.r(op.D)
	drop := op.Code == isa.OpMbarrierArriveDrop
	return w.eachMbarrier(op, mask, AccessAtomic, false, func(l int, addr uint64, r mbarRef) *Fault {
		count, tx := int64(1), int64(0)
		switch {
		case op.Aux&mbarExpectTx != 0:
			tx = int64(uint32(src[l]))
		case op.Aux&mbarHasCount != 0:
			count = int64(uint32(src[l]))
		}
		st, f := w.mbarArrive(op, l, addr, r, count, tx, drop, op.Aux&mbarNoComplete != 0)
		if f != nil {
			return f
		}
		d[l] = st
		return nil
	})
}

func execMbarrierTx(w *Warp, op *Op, mask uint32) *Fault {
	src := w.r(op.B)
	return w.eachMbarrier(op, mask, AccessAtomic, false, func(l int, addr uint64, r mbarRef) *Fault {
		n := int64(uint32(src[l]))
		if op.Code == isa.OpMbarrierCompleteTx {
			// The one way transaction bytes complete (asynchronous
			// copies complete through it too).
			return w.mbarrierCompleteTx(op, l, r.c, r.off, n)
		}
		s, f := w.mbarLoad(op, l, addr, r)
		if f != nil {
			return f
		}
		return w.mbarTx(op, l, addr, r, s, n)
	})
}

// mbarWaitParity returns the parity of the phase lane's test_wait or
// try_wait tests (the .parity operand, or the phase of the state).
func mbarWaitParity(op *Op, v uint64) uint32 {
	if op.Aux&mbarParity != 0 {
		return uint32(v & 1)
	}
	return uint32(v >> mbarPhaseBit & 1)
}

// mbarTest tests lane's phase: whether it has completed, the object's
// offset in the CTA's shared memory and the parity tested.
func (w *Warp) mbarTest(op *Op, l int, base, src *[32]uint64) (bool, uint64, uint32, *Fault) {
	addr := memAt(base, op, l)
	r, f := w.mbarAt(op, AccessAtomic, l, addr, true)
	if f != nil {
		return false, 0, 0, f
	}
	// Testing the phase lands the bulk copies that complete on it
	// (exec_tma_bulk.go).
	if f := w.landBulk(r.c, r.off); f != nil {
		return false, 0, 0, f
	}
	s, f := w.mbarLoad(op, l, addr, r)
	if f != nil {
		return false, 0, 0, f
	}
	v := src[l]
	if op.Aux&mbarParity != 0 && v > 1 {
		return false, 0, 0, w.faultAddr(FaultIllegal, l, addr, "%s.parity: the phase parity %d is not 0 or 1", isa.Info[op.Code].Name, v)
	}
	if op.Aux&mbarParity == 0 && v>>mbarValidBit&1 == 0 {
		return false, 0, 0, w.faultAddr(FaultIllegal, l, addr, "%s: the state operand 0x%x is not a state an mbarrier.arrive returned", isa.Info[op.Code].Name, v)
	}
	p := mbarWaitParity(op, v)
	if s.Phase != p {
		w.mbarEvent(EvMbarrierWait, r, l, mbarRelaxedOp(op))
	}
	return s.Phase != p, r.off, p, nil
}

func execMbarrierTestWait(w *Warp, op *Op, mask uint32) *Fault {
	base, src := memBase(w, op), w.r(op.B)
	var done uint32
	for m := mask; m != 0; m &= m - 1 {
		l := bits.TrailingZeros32(m)
		ok, _, _, f := w.mbarTest(op, l, base, src)
		if f != nil {
			return f
		}
		if ok {
			done |= 1 << l
		}
	}
	w.preds[op.D] = w.preds[op.D]&^mask | done
	return nil
}

// execMbarrierTryWait: the lanes whose phase has completed go on with
// true; the others wait for it (their destination is set when they wake).
// Lanes waiting on different mbarrier phases wait as one group wait on
// each (wait.go), in lane order of their first lane.
func execMbarrierTryWait(w *Warp, op *Op, emask uint32) *Fault {
	if emask == 0 {
		w.advance()
		return nil
	}
	base, src := memBase(w, op), w.r(op.B)
	var done uint32
	var waits []Wait // at most one per phase waited on
	for m := emask; m != 0; m &= m - 1 {
		l := bits.TrailingZeros32(m)
		ok, off, p, f := w.mbarTest(op, l, base, src)
		if f != nil {
			return f
		}
		if ok {
			done |= 1 << l
			continue
		}
		k := 0
		for k < len(waits) && (waits[k].Addr != off || waits[k].Parity != p) {
			k++
		}
		if k == len(waits) {
			waits = append(waits, Wait{Kind: WaitMbarrier, Addr: off, Parity: p, op: op})
		}
		waits[k].Lanes |= 1 << l
	}
	w.preds[op.D] = w.preds[op.D]&^emask | done
	w.advance()
	switch len(waits) {
	case 0:
	case 1:
		w.await(waits[0], w.m.curPC)
	default:
		for _, t := range waits {
			t.PC = w.m.curPC
			w.hold(t)
		}
	}
	return nil
}

func execMbarrierPendingCount(w *Warp, op *Op, mask uint32) *Fault {
	s, d := w.r(op.A), w.r(op.D)
	for m := mask; m != 0; m &= m - 1 {
		l := bits.TrailingZeros32(m)
		d[l] = s[l] >> mbarPendingShift & mbarCountMask
	}
	return nil
}

func execCpAsyncMbarrierArrive(w *Warp, op *Op, mask uint32) *Fault {
	// Each thread's prior copies complete, then its arrive is triggered.
	w.landCopies(mask, -1)
	return w.eachMbarrier(op, mask, AccessAtomic, true, func(l int, addr uint64, r mbarRef) *Fault {
		if op.Aux&mbarNoinc != 0 {
			_, f := w.mbarArrive(op, l, addr, r, 1, 0, false, false)
			return f
		}
		// The pending count is incremented, then the arrive lowers it:
		// no net change (but the object must be initialised).
		if _, f := w.mbarLoad(op, l, addr, r); f != nil {
			return f
		}
		w.mbarEvent(EvMbarrierArrive, r, l, false)
		return nil
	})
}

// mbarrierWaitText says what a warp waiting on an mbarrier (t) waits for,
// with what its phase still needs.
func (w *Warp) mbarrierWaitText(t Wait) string {
	c := w.cta
	if c == nil || t.Addr+8 > uint64(len(c.shared)) {
		return t.String()
	}
	s := DecodeMbarrier(getLE(c.shared[t.Addr : t.Addr+8]))
	if !s.Valid {
		return fmt.Sprintf("mbarrier %s, phase %d (the object is not initialised)", w.m.mbarLabel(t.Addr), t.Parity)
	}
	return fmt.Sprintf("mbarrier %s, phase %d: %s missing", w.m.mbarLabel(t.Addr), s.Phase, s.Missing())
}

// mbarrierWaitOver reports whether the phase of parity t.Parity of the
// mbarrier at t.Addr in w's CTA has completed.
func (w *Warp) mbarrierWaitOver(t *Wait) bool {
	c := w.cta
	if t.Addr+8 > uint64(len(c.shared)) || t.Addr+8 < t.Addr {
		return false
	}
	s := DecodeMbarrier(getLE(c.shared[t.Addr : t.Addr+8]))
	return s.Valid && s.Phase != t.Parity
}
