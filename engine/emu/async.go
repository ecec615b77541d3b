package emu

import (
	"fmt"
	"math/bits"
	"slices"
	"unsafe"

	"github.com/ptxplayground/ptxplay/engine/isa"
)

// Asynchronous work.
//
// Asynchronous work belongs to the CTA, not to the warp that issued it: a
// CTA's asyncUnit holds every operation in flight, each with its issuing
// thread (warp, lane), its data and its completion target, the thing that
// says when it completes (the unit keeps a queue per target owner, in
// issue order):
//   - targetThreadGroup: a commit group of the issuing thread (cp.async).
//     It completes when that thread waits for the group or exits;
//   - targetMbarrierTx (reserved): the transaction count of an mbarrier in
//     the CTA's shared memory (a TMA copy, cp.async.bulk): it completes as
//     transaction bytes on the mbarrier, which warps other than the
//     issuing one wait on;
//   - targetWarpgroupGroup: a wgmma-group of the issuing warpgroup
//     (wgmma.commit_group and wait_group; exec_wgmma.go).
//
// Which operations a wait waits for, and which a completion lands, is one
// predicate over that data (asyncUnit.due, given an asyncSel: a target
// kind and what selects among its targets, and asyncUnit.queue, the queue
// it looks in), so a new kind of asynchronous work is a new target kind
// with its queue and selector, and the instructions that issue and
// complete it. Snapshots clone the unit with the CTA, DiffState
// compares it and the dynamic state counts its operations.
//
// cp.async, the rule, deterministic: cp.async checks both addresses and
// reads its source when it is issued (a bad address faults there, naming
// the cp.async, its line, CTA, thread and address), but its destination
// in shared memory is written only when the issuing thread waits for it:
//   - cp.async.commit_group closes the thread's open group (the copies it
//     issued since its previous commit; a group may be empty);
//   - cp.async.wait_group N lands every copy of the thread's committed
//     groups except the newest N (copies not yet committed stay pending);
//   - cp.async.wait_all commits the open group and lands every copy;
//   - a thread that exits lands its remaining copies.
//
// Copies land in the order they were issued, reported to observers as
// stores of the instruction that landed them (with the bytes they
// replaced). So a missing wait, or a read of the destination before it, is
// seen as stale data, exactly and reproducibly. Warp.PendingCopies shows a
// warp's copies in flight.

// AsyncCopy is one lane's cp.async in flight.
type AsyncCopy struct {
	PC   int    // the cp.async that issued it
	Lane int    // the issuing lane
	Src  uint64 // the global address it read
	Dst  uint64 // the shared-memory offset it writes (in its CTA's shared memory)
	Size int    // bytes it writes (cp-size; beyond src-size they are zeros)
	// Group is the lane's commit group the copy belongs to (counted from 0
	// per lane); Committed reports whether that group was closed by a
	// cp.async.commit_group (only committed groups are waited for by
	// cp.async.wait_group).
	Group     uint32
	Committed bool
	Data      [16]byte // the bytes it will write
}

// asyncTargetKind is what an asynchronous operation completes on.
type asyncTargetKind uint8

const (
	// targetThreadGroup: commit group asyncTarget.group of the issuing
	// thread (cp.async).
	targetThreadGroup asyncTargetKind = iota
	// targetMbarrierTx (reserved: what the mbarrier and TMA issue adds):
	// the transaction count of the mbarrier at asyncTarget.addr in the
	// CTA's shared memory; the operation's bytes count against it when it
	// completes, and any warp waiting on the mbarrier's phase sees them.
	targetMbarrierTx
	// targetWarpgroupGroup: a wgmma-group of the issuing warp's
	// warpgroup, committed and waited for by its 4 warps together; each
	// warp's part of a wgmma.mma_async (its accumulator rows) waits in
	// asyncUnit.wgmma until its warp's covering wgmma.wait_group
	// (exec_wgmma.go).
	targetWarpgroupGroup
)

// asyncTarget is an operation's completion target.
type asyncTarget struct {
	kind asyncTargetKind
	// group: the commit group (targetThreadGroup: of the issuing thread,
	// counted from 0 per thread; targetWarpgroupGroup: of its warpgroup).
	group uint32
	// addr: targetMbarrierTx, the mbarrier's offset in shared memory.
	addr uint64
}

// asyncOp is one operation in flight: its issuing thread, its completion
// target and its data. Its size is at most copyBytes, the dynamic state
// an operation is counted as (TestAsyncOpSize).
type asyncOp struct {
	target asyncTarget
	warp   int32 // the issuing thread: its warp in the CTA and its lane
	lane   int32
	pc     int32    // the instruction that issued it
	size   int32    // bytes it writes (cp.async: cp-size)
	src    uint64   // the global address it read
	dst    uint64   // the shared-memory offset it writes
	data   [16]byte // the bytes it writes (a TMA copy will hold a slice)
}

// warpAsync is what a CTA's asynchronous work keeps per warp: the queue
// of its threads' commit-group operations and their commit groups.
type warpAsync struct {
	ops       []asyncOp  // targetThreadGroup operations of the warp's threads in flight, in issue order
	committed [32]uint32 // cp.async commit groups closed, per lane
	// bulkCommitted: bulk async-groups closed (cp.async.bulk.commit_group),
	// per lane; the copies of asyncUnit.stores belong to them.
	bulkCommitted [32]uint32
	// The warp's wgmma state (exec_wgmma.go): its wgmma-groups closed
	// (wgmma.commit_group), the wgmma instructions it executed (the
	// .aligned check) and whether it executed a wgmma.fence.
	wgCommitted uint32
	wgCount     uint32
	wgFenced    bool
}

// asyncUnit is a CTA's asynchronous work in flight (CTA.async). Its
// operations sit in queues by completion target, each in issue order, so
// that a completion scans only the operations it may complete: a
// thread-group operation in its warp's queue (a wait or an exit lands
// only its own threads' copies). A new kind of target brings its queue
// (targetMbarrierTx: one per mbarrier; targetWarpgroupGroup: one per
// warpgroup), found by asyncUnit.queue.
type asyncUnit struct {
	warps []warpAsync // by warp ID; grown to a warp on its first operation or commit
	n     int         // operations in flight, in every queue
	// bulk: copies into the CTA's shared memory that complete on an
	// mbarrier (targetMbarrierTx: cp.async.bulk{.tensor} with
	// .mbarrier::complete_tx::bytes), in issue order (exec_tma_bulk.go).
	bulk []bulkOp
	// stores: copies to global memory in flight (.bulk_group: bulk and
	// tensor stores and reductions), each in a bulk async-group of its
	// issuing thread, in issue order (exec_tma_bulk.go).
	stores []bulkStore
	// lastTMA is the last tensor copy a thread of the CTA issued (hasTMA:
	// there was one since the CTA started); the TMA view shows it
	// (tma_view.go).
	lastTMA TMACopy
	hasTMA  bool
	// wgmma: the warps' parts of wgmma.mma_async in flight
	// (targetWarpgroupGroup), in issue order; wgSeqs: each warpgroup's
	// log of the wgmma instructions its leading warp executed ahead of
	// the others (exec_wgmma.go).
	wgmma  []wgmmaOp
	wgSeqs []wgSeq
}

// warp returns the state of warp id, growing the unit to hold it.
func (u *asyncUnit) warp(id int) *warpAsync {
	if id >= len(u.warps) {
		u.warps = append(u.warps, make([]warpAsync, id+1-len(u.warps))...)
	}
	return &u.warps[id]
}

// queue returns the queue of the operations s selects from (nil: none in
// flight).
func (u *asyncUnit) queue(s *asyncSel) *[]asyncOp {
	switch s.kind {
	case targetThreadGroup:
		if int(s.warp) < len(u.warps) {
			return &u.warps[s.warp].ops
		}
	}
	return nil
}

// push queues op (its issuing warp's state exists: warp was called).
func (u *asyncUnit) push(op asyncOp) *asyncOp {
	var q *[]asyncOp
	switch op.target.kind {
	case targetThreadGroup:
		q = &u.warps[op.warp].ops
	default:
		panic("emu: an asynchronous operation with a target kind that has no queue")
	}
	*q = append(*q, op)
	u.n++
	return &(*q)[len(*q)-1]
}

// inFlight returns the number of operations in flight issued by warp id.
func (u *asyncUnit) inFlight(id int) int {
	if id < len(u.warps) {
		return len(u.warps[id].ops)
	}
	return 0
}

// committed returns the commit groups closed by lane of warp id.
func (u *asyncUnit) committed(id int, lane int32) uint32 {
	if id < len(u.warps) {
		return u.warps[id].committed[lane]
	}
	return 0
}

// bulkCommitted returns the bulk async-groups closed by lane of warp id.
func (u *asyncUnit) bulkCommitted(id int, lane int32) uint32 {
	if id < len(u.warps) {
		return u.warps[id].bulkCommitted[lane]
	}
	return 0
}

func (u *asyncUnit) clone() asyncUnit {
	c := asyncUnit{warps: slices.Clone(u.warps), n: u.n, bulk: slices.Clone(u.bulk), stores: slices.Clone(u.stores), lastTMA: u.lastTMA, hasTMA: u.hasTMA,
		wgmma: slices.Clone(u.wgmma), wgSeqs: slices.Clone(u.wgSeqs)}
	for i := range c.warps {
		c.warps[i].ops = slices.Clone(c.warps[i].ops)
	}
	// An operation's values are never changed once issued; a log is.
	for i := range c.wgSeqs {
		c.wgSeqs[i].pcs = slices.Clone(c.wgSeqs[i].pcs)
		c.wgSeqs[i].descs = slices.Clone(c.wgSeqs[i].descs)
	}
	return c
}

// reset empties the unit (a CTA whose memory is reused), keeping its
// storage.
func (u *asyncUnit) reset() {
	for i := range u.warps {
		ops := u.warps[i].ops
		clear(ops)
		u.warps[i] = warpAsync{ops: ops[:0]}
	}
	u.n = 0
	clear(u.bulk)
	u.bulk = u.bulk[:0]
	clear(u.stores)
	u.stores = u.stores[:0]
	u.lastTMA, u.hasTMA = TMACopy{}, false
	clear(u.wgmma)
	u.wgmma = u.wgmma[:0]
	u.wgSeqs = u.wgSeqs[:0]
}

// size returns the bytes of the unit's fixed part (for snapshots; its
// operations count in the dynamic state: see dynamic.go).
func (u *asyncUnit) size() int {
	if len(u.warps) == 0 {
		return 0
	}
	return int(unsafe.Sizeof(asyncUnit{})) + len(u.warps)*int(unsafe.Sizeof(warpAsync{}))
}

// bytes returns the dynamic state the unit's operations hold.
func (u *asyncUnit) bytes() int64 {
	n := copyBytes * int64(u.n)
	for i := range u.bulk {
		n += u.bulk[i].bytes()
	}
	for i := range u.stores {
		n += u.stores[i].bytes()
	}
	for i := range u.wgmma {
		n += u.wgmma[i].bytes()
	}
	return n
}

// diff describes the first difference between u and v ("" when they hold
// the same work: the same operations in the same queues in the same
// order, the same commit groups).
func (u *asyncUnit) diff(v *asyncUnit) string {
	if u.n != v.n {
		return fmt.Sprintf("%d vs %d asynchronous operations in flight", u.n, v.n)
	}
	if u.hasTMA != v.hasTMA || u.lastTMA != v.lastTMA {
		return fmt.Sprintf("the last tensor copy differs (pc %d vs %d)", u.lastTMA.PC, v.lastTMA.PC)
	}
	if len(u.bulk) != len(v.bulk) {
		return fmt.Sprintf("%d vs %d bulk copies in flight", len(u.bulk), len(v.bulk))
	}
	for i := range u.bulk {
		if !u.bulk[i].same(&v.bulk[i]) {
			return fmt.Sprintf("bulk copy %d in flight differs (pc %d vs %d)", i, u.bulk[i].pc, v.bulk[i].pc)
		}
	}
	if len(u.stores) != len(v.stores) {
		return fmt.Sprintf("%d vs %d bulk copies to global memory in flight", len(u.stores), len(v.stores))
	}
	for i := range u.stores {
		if !u.stores[i].same(&v.stores[i]) {
			return fmt.Sprintf("bulk copy to global memory %d in flight differs (warp %d lane %d pc %d group %d vs warp %d lane %d pc %d group %d)", i,
				u.stores[i].warp, u.stores[i].lane, u.stores[i].pc, u.stores[i].group, v.stores[i].warp, v.stores[i].lane, v.stores[i].pc, v.stores[i].group)
		}
	}
	if len(u.wgmma) != len(v.wgmma) {
		return fmt.Sprintf("%d vs %d wgmma.mma_async results in flight", len(u.wgmma), len(v.wgmma))
	}
	for i := range u.wgmma {
		if !u.wgmma[i].same(&v.wgmma[i]) {
			return fmt.Sprintf("wgmma.mma_async result %d in flight differs: %s vs %s", i, &u.wgmma[i], &v.wgmma[i])
		}
	}
	for g := range max(len(u.wgSeqs), len(v.wgSeqs)) {
		var a, b wgSeq
		if g < len(u.wgSeqs) {
			a = u.wgSeqs[g]
		}
		if g < len(v.wgSeqs) {
			b = v.wgSeqs[g]
		}
		if a.base != b.base && (len(a.pcs) > 0 || len(b.pcs) > 0) || !slices.Equal(a.pcs, b.pcs) {
			return fmt.Sprintf("warpgroup %d: wgmma instructions %d+%v vs %d+%v logged", g, a.base, a.pcs, b.base, b.pcs)
		}
		if !slices.Equal(a.descs, b.descs) {
			return fmt.Sprintf("warpgroup %d: wgmma descriptors %v vs %v logged", g, a.descs, b.descs)
		}
	}
	for id := range max(len(u.warps), len(v.warps)) {
		var a, b []asyncOp
		if id < len(u.warps) {
			a = u.warps[id].ops
		}
		if id < len(v.warps) {
			b = v.warps[id].ops
		}
		if len(a) != len(b) {
			return fmt.Sprintf("warp %d: %d vs %d asynchronous operations in flight", id, len(a), len(b))
		}
		for i := range a {
			if a[i] != b[i] {
				return fmt.Sprintf("warp %d: asynchronous operation %d in flight: %s vs %s", id, i, &a[i], &b[i])
			}
		}
		for l := range int32(32) {
			if a, b := u.committed(id, l), v.committed(id, l); a != b {
				return fmt.Sprintf("warp %d lane %d: %d vs %d cp.async groups committed", id, l, a, b)
			}
			if a, b := u.bulkCommitted(id, l), v.bulkCommitted(id, l); a != b {
				return fmt.Sprintf("warp %d lane %d: %d vs %d bulk async-groups committed", id, l, a, b)
			}
		}
		var x, y warpAsync
		if id < len(u.warps) {
			x = u.warps[id]
		}
		if id < len(v.warps) {
			y = v.warps[id]
		}
		if x.wgCommitted != y.wgCommitted || x.wgCount != y.wgCount || x.wgFenced != y.wgFenced {
			return fmt.Sprintf("warp %d: wgmma state (%d groups committed, %d instructions, fenced %v) vs (%d, %d, %v)", id, x.wgCommitted, x.wgCount, x.wgFenced, y.wgCommitted, y.wgCount, y.wgFenced)
		}
	}
	return ""
}

func (op *asyncOp) String() string {
	t := ""
	switch op.target.kind {
	case targetThreadGroup:
		t = fmt.Sprintf("thread group %d", op.target.group)
	case targetMbarrierTx:
		t = fmt.Sprintf("mbarrier at %#x", op.target.addr)
	case targetWarpgroupGroup:
		t = fmt.Sprintf("warpgroup group %d", op.target.group)
	}
	return fmt.Sprintf("(warp %d lane %d pc %d, %d bytes %#x -> %#x %x, completes on %s)", op.warp, op.lane, op.pc, op.size, op.src, op.dst, op.data[:min(max(op.size, 0), 16)], t)
}

// asyncSel selects operations in flight by their completion target: the
// ones a wait waits for, or a completion lands.
type asyncSel struct {
	kind asyncTargetKind
	// targetThreadGroup: the threads (lanes of warp) and how many of each
	// thread's newest committed groups stay in flight (keep; < 0: none, and
	// the open group completes too).
	warp  int32
	lanes uint32
	keep  int64
}

// threadGroups selects the cp.async groups of w's lanes in mask but the
// newest keep committed ones (keep < 0: every copy, committed or not).
func (w *Warp) threadGroups(mask uint32, keep int64) asyncSel {
	return asyncSel{kind: targetThreadGroup, warp: int32(w.ID), lanes: mask, keep: keep}
}

// due reports whether s selects op, an operation of its queue: the one
// predicate of waits and completions.
func (u *asyncUnit) due(op *asyncOp, s *asyncSel) bool {
	if op.target.kind != s.kind {
		return false
	}
	switch s.kind {
	case targetThreadGroup:
		if op.warp != s.warp || s.lanes>>op.lane&1 == 0 {
			return false
		}
		// Committed groups are 0..committed-1; the newest keep of them
		// stay in flight, and so does the open group.
		return s.keep < 0 || int64(op.target.group)+s.keep < int64(u.warps[op.warp].committed[op.lane])
	}
	return false
}

// pending reports whether an operation s selects is in flight.
func (u *asyncUnit) pending(s *asyncSel) bool {
	q := u.queue(s)
	if q == nil || s.kind == targetThreadGroup && s.lanes == 0 {
		return false
	}
	for i := range *q {
		if u.due(&(*q)[i], s) {
			return true
		}
	}
	return false
}

// completeAsync completes the operations in flight of w's CTA that s
// selects, in issue order, and drops them: each writes its bytes to
// shared memory, reported to observers as a store of w's instruction (the
// one that completes them) by the operation's lane.
func (w *Warp) completeAsync(s *asyncSel) {
	u := &w.cta.async
	q := u.queue(s)
	if q == nil || len(*q) == 0 || s.kind == targetThreadGroup && s.lanes == 0 {
		return
	}
	sh := w.cta.shared
	ops := *q
	out := ops[:0]
	for _, op := range ops {
		if !u.due(&op, s) {
			out = append(out, op)
			continue
		}
		// The destination was checked when the operation was issued and
		// shared memory does not change size.
		b := sh[op.dst : op.dst+uint64(op.size)]
		if w.m.sf.on {
			w.sfLand(op.dst, int(op.size))
		}
		w.noteAccess(AccessStore, isa.Shared, isa.Shared, int(op.lane), op.dst, b)
		copy(b, op.data[:op.size])
	}
	n := len(ops) - len(out)
	u.n -= n
	w.m.dyn -= copyBytes * int64(n)
	clear(ops[len(out):])
	*q = out
}

// copy returns op as a cp.async copy in flight.
func (op *asyncOp) copy(u *asyncUnit) AsyncCopy {
	return AsyncCopy{PC: int(op.pc), Lane: int(op.lane), Src: op.src, Dst: op.dst, Size: int(op.size), Group: op.target.group,
		Committed: op.target.group < u.committed(int(op.warp), op.lane), Data: op.data}
}

// PendingCopies returns the cp.async copies of the warp's threads that
// have not landed yet, in issue order (a copy: the CTA keeps its own).
func (w *Warp) PendingCopies() []AsyncCopy {
	u := &w.cta.async
	if u.inFlight(w.ID) == 0 {
		return nil
	}
	ops := u.warps[w.ID].ops
	out := make([]AsyncCopy, len(ops))
	for i := range ops {
		out[i] = ops[i].copy(u)
	}
	return out
}

// issueCopy queues lane's copy of data (size bytes) to shared offset dst,
// in the lane's open commit group.
func (w *Warp) issueCopy(pc, lane int, src, dst uint64, size int, data *[16]byte) {
	u := &w.cta.async
	t := u.warp(w.ID)
	w.m.dyn += copyBytes
	op := u.push(asyncOp{target: asyncTarget{kind: targetThreadGroup, group: t.committed[lane]},
		warp: int32(w.ID), lane: int32(lane), pc: int32(pc), size: int32(size), src: src, dst: dst, data: *data})
	if w.m.sf.on {
		w.sfIssue(lane, dst, size)
	}
	if w.m.obsAcc {
		w.m.openStep()
		w.m.info.Issued = append(w.m.info.Issued, op.copy(u))
	}
}

// commitCopies closes the open group of every lane in mask.
func (w *Warp) commitCopies(mask uint32) {
	if mask == 0 {
		return
	}
	t := w.cta.async.warp(w.ID)
	for m := mask; m != 0; m &= m - 1 {
		t.committed[bits.TrailingZeros32(m)]++
	}
}

// landCopies lands the pending copies of the lanes in mask whose group is
// older than the lane's newest keep committed groups (keep < 0: every
// copy, committed or not).
func (w *Warp) landCopies(mask uint32, keep int64) {
	s := w.threadGroups(mask, keep)
	w.completeAsync(&s)
}

// copiesPending reports whether a lane of mask has a copy in flight that
// a wait for all but its newest keep committed groups (keep < 0: every
// copy) waits for.
func (w *Warp) copiesPending(mask uint32, keep int64) bool {
	s := w.threadGroups(mask, keep)
	return w.cta.async.pending(&s)
}

func execCpAsyncCommit(w *Warp, op *Op, mask uint32) *Fault {
	w.commitCopies(mask)
	return nil
}

// cp.async.wait_group and wait_all are waits (wait.go): the lanes wait
// for their groups, and the groups complete when they are waited for (the
// copies land now), so the wait ends at once.

func execCpAsyncWaitGroup(w *Warp, op *Op, mask uint32) *Fault {
	w.landCopies(mask, int64(op.Imm))
	w.await(Wait{Kind: WaitAsyncGroup, Lanes: mask, Groups: int(op.Imm), op: op}, w.pc())
	return nil
}

func execCpAsyncWaitAll(w *Warp, op *Op, mask uint32) *Fault {
	w.commitCopies(mask)
	w.landCopies(mask, -1)
	w.await(Wait{Kind: WaitAsyncGroup, Lanes: mask, Groups: -1, op: op}, w.pc())
	return nil
}
