package emu

import (
	"math/bits"
	"slices"
	"unsafe"

	"github.com/ptxplayground/ptxplay/engine/isa"
)

// Asynchronous copies (cp.async).
//
// The rule, deterministic: cp.async checks both addresses and reads its
// source when it is issued (a bad address faults there, naming the
// cp.async, its line, CTA, thread and address), but its destination in
// shared memory is written only when the issuing thread waits for it:
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
// seen as stale data, exactly and reproducibly. Pending copies are part of
// the warp's state: snapshots keep them (history stays exact) and
// Warp.PendingCopies shows them.
//
// The state is per warp (asyncState), created on the first cp.async; other
// kinds of asynchronous work (mbarrier transactions, TMA, wgmma) can be
// added beside it the same way, with their own completion points.

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

// asyncState is a warp's asynchronous work in flight.
type asyncState struct {
	copies    []AsyncCopy // pending, in issue order
	committed [32]uint32  // commit groups closed per lane
}

func (a *asyncState) clone() *asyncState {
	if a == nil {
		return nil
	}
	c := *a
	c.copies = slices.Clone(a.copies)
	return &c
}

// size returns the bytes of the state's fixed part (for snapshots; its
// copies count in the dynamic state: see dynamic.go).
func (a *asyncState) size() int {
	if a == nil {
		return 0
	}
	return int(unsafe.Sizeof(asyncState{}))
}

// PendingCopies returns the warp's cp.async copies that have not landed
// yet, in issue order (a copy: the warp keeps its own).
func (w *Warp) PendingCopies() []AsyncCopy {
	if w.async == nil {
		return nil
	}
	out := slices.Clone(w.async.copies)
	for i := range out {
		out[i].Committed = out[i].Group < w.async.committed[out[i].Lane]
	}
	return out
}

// issueCopy queues lane's copy of data (size bytes) to shared offset dst.
func (w *Warp) issueCopy(pc, lane int, src, dst uint64, size int, data *[16]byte) {
	if w.async == nil {
		w.async = &asyncState{}
	}
	a := w.async
	w.m.dyn += copyBytes
	a.copies = append(a.copies, AsyncCopy{PC: pc, Lane: lane, Src: src, Dst: dst, Size: size, Group: a.committed[lane], Data: *data})
	if w.m.obsAcc {
		w.m.openStep()
		w.m.info.Issued = append(w.m.info.Issued, a.copies[len(a.copies)-1])
	}
}

// commitCopies closes the open group of every lane in mask.
func (w *Warp) commitCopies(mask uint32) {
	if w.async == nil {
		if mask == 0 {
			return
		}
		w.async = &asyncState{}
	}
	for m := mask; m != 0; m &= m - 1 {
		w.async.committed[bits.TrailingZeros32(m)]++
	}
}

// landCopies writes the pending copies of the lanes in mask whose group
// is older than the lane's newest keep committed groups (keep < 0: every
// copy, committed or not) and drops them from the queue.
func (w *Warp) landCopies(mask uint32, keep int64) {
	a := w.async
	if a == nil || len(a.copies) == 0 || mask == 0 {
		return
	}
	sh := w.cta.shared
	out := a.copies[:0]
	for _, c := range a.copies {
		land := mask>>c.Lane&1 != 0
		if land && keep >= 0 {
			// Committed groups are 0..committed-1; the newest keep of them
			// stay in flight, and so does the open group.
			land = int64(c.Group)+keep < int64(a.committed[c.Lane])
		}
		if !land {
			out = append(out, c)
			continue
		}
		// The destination was checked when the copy was issued and shared
		// memory does not change size.
		b := sh[c.Dst : c.Dst+uint64(c.Size)]
		w.noteAccess(AccessStore, isa.Shared, isa.Shared, c.Lane, c.Dst, b)
		copy(b, c.Data[:c.Size])
	}
	w.m.dyn -= copyBytes * int64(len(a.copies)-len(out))
	clear(a.copies[len(out):])
	a.copies = out
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
