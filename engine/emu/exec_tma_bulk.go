package emu

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"unsafe"

	"github.com/ptxplayground/ptxplay/engine/fpx"
	"github.com/ptxplayground/ptxplay/engine/isa"
	"github.com/ptxplayground/ptxplay/engine/ptx"
)

// Bulk and tensor (TMA) copies: cp.async.bulk{.tensor},
// cp.reduce.async.bulk{.tensor}, cp.async.bulk.prefetch, prefetch.tensor,
// cp.async.bulk.commit_group and wait_group.
//
// Completion, deterministic:
//   - A copy into shared memory that completes on an mbarrier
//     (.mbarrier::complete_tx::bytes) reads its source when it is issued
//     (a bad source faults there) and is queued on the destination CTA's
//     asynchronous unit (one copy per CTA of a .multicast::cluster mask).
//     It lands (its bytes are written, then its transaction bytes complete
//     on the mbarrier) when a thread of the destination CTA tests that
//     mbarrier (mbarrier.test_wait or try_wait), or at once when it is
//     issued while a warp of that CTA already waits on the mbarrier.
//     Copies land in issue order. So a consumer that reads the
//     destination without waiting on the mbarrier reads the bytes that
//     were there before (stale data), every run, in both scheduling
//     models; one that waits reads the copy.
//   - A copy whose completion is a bulk async-group (.bulk_group: to
//     global memory, tensor stores and reductions) checks its addresses
//     when it is issued (a bad source, destination or map faults there)
//     and is queued in its issuing thread's open bulk async-group
//     (asyncUnit.stores). cp.async.bulk.commit_group closes the thread's
//     open group. The copy is performed — its shared-memory source read,
//     through the asynchronous proxy, and its global bytes written or
//     reduced, reported as accesses of the instruction that performs it —
//     when that thread executes a cp.async.bulk.wait_group{.read} N that
//     requires its group complete (every committed group but the newest
//     N), or when the thread exits (every copy, committed or not), so a
//     kernel that never waits still produces its output. Copies are
//     performed in issue order. So a kernel that overwrites a store's
//     shared source before its wait_group.read sees the overwrite land in
//     global memory, and a read of the destination before the wait reads
//     the bytes that were there before: every run, in both scheduling
//     models. (.read and the full wait are the same point: the source is
//     read and the destination written together.)
//
// Tensor copies place the box with TMAPlaceTile or, in im2col mode
// (.im2col loads and prefetches, .im2col_no_offs stores and reductions),
// TMAPlaceIm2col (tma.go); the map's mode must be the instruction's. The
// transaction byte count is the whole box, out-of-bounds elements
// included, and a store or reduction does not write its out-of-bounds
// elements.

func init() {
	binders[isa.OpCpAsyncBulkTensor] = bindBulkTensor
	binders[isa.OpCpReduceAsyncBulk] = bindBulkReduce
	binders[isa.OpCpAsyncBulk] = bindBulk
	binders[isa.OpCpAsyncBulkCommitGroup] = bindBulkGroup
	binders[isa.OpCpAsyncBulkWaitGroup] = bindBulkGroup
	prev := binders[isa.OpPrefetch]
	binders[isa.OpPrefetch] = func(b *binder) {
		if memHasMod(b, "tensor") {
			bindPrefetchTensor(b)
			return
		}
		prev(b)
	}
}

// bulkOp is a copy into a CTA's shared memory in flight, completing on the
// mbarrier at offset mbar of that CTA (asyncUnit.bulk).
type bulkOp struct {
	warp, lane, pc int32
	mbar           uint64
	dst            uint64    // offset in the CTA's shared memory
	runs           []bulkRun // where the bytes of data go, in order (nil: data is one piece at dst)
	data           []byte    // the bytes, in order (shared between the CTAs of a multicast; never changed)
	tx             int64     // transaction bytes it completes
	red            isa.SubOp
	rtype          isa.Type
}

// bulkRun is n bytes of a copy's data landing at offset off from its
// destination.
type bulkRun struct{ off, n uint32 }

func (op *bulkOp) bytes() int64 {
	return int64(unsafe.Sizeof(bulkOp{})) + int64(len(op.data)) + int64(unsafe.Sizeof(bulkRun{}))*int64(len(op.runs))
}

func (op *bulkOp) same(o *bulkOp) bool {
	return op.warp == o.warp && op.lane == o.lane && op.pc == o.pc && op.mbar == o.mbar && op.dst == o.dst &&
		op.tx == o.tx && op.red == o.red && op.rtype == o.rtype && slices.Equal(op.runs, o.runs) &&
		string(op.data) == string(o.data)
}

// bulkStore is a copy to global memory in flight (.bulk_group: a bulk or
// tensor store or reduction), queued in bulk async-group group of its
// issuing thread (asyncUnit.stores). Each piece is n bytes from shared
// offset sh (in the issuing CTA) to global address g (a run of a tensor
// store's elements, or a whole bulk copy); the addresses were checked at
// issue. elem is the bytes of one element: observers see one access per
// element (a bulk copy is one element).
type bulkStore struct {
	warp, lane, pc int32
	group          uint32
	elem           int32
	red            isa.SubOp
	rtype          isa.Type
	pieces         []bulkPiece
}

type bulkPiece struct{ sh, g, n uint64 }

func (op *bulkStore) bytes() int64 {
	return int64(unsafe.Sizeof(bulkStore{})) + int64(len(op.pieces))*int64(unsafe.Sizeof(bulkPiece{}))
}

func (op *bulkStore) same(o *bulkStore) bool {
	return op.warp == o.warp && op.lane == o.lane && op.pc == o.pc && op.group == o.group && op.elem == o.elem &&
		op.red == o.red && op.rtype == o.rtype && slices.Equal(op.pieces, o.pieces)
}

// queueStore queues lane's copy to global memory in the lane's open bulk
// async-group.
func (w *Warp) queueStore(name string, lane int, op bulkStore) *Fault {
	u := &w.cta.async
	op.warp, op.lane, op.pc = int32(w.ID), int32(lane), int32(w.m.curPC)
	op.group = u.warp(w.ID).bulkCommitted[lane]
	if n := op.bytes(); w.m.overDynamic(n) {
		return w.dynamicFault(n, 1<<lane, name+" (copies to global memory in flight until their bulk async-group is waited for)")
	}
	u.stores = append(u.stores, op)
	w.m.dyn += op.bytes()
	return nil
}

// landStores performs the copies to global memory in flight of w's lanes
// in mask whose bulk async-group is older than the lane's newest keep
// committed groups (keep < 0: every copy, committed or not), in issue
// order, as accesses of w's instruction.
func (w *Warp) landStores(mask uint32, keep int64) *Fault {
	u := &w.cta.async
	if len(u.stores) == 0 || mask == 0 {
		return nil
	}
	var due []bulkStore
	out := u.stores[:0]
	for _, op := range u.stores {
		if int(op.warp) == w.ID && mask>>op.lane&1 != 0 &&
			(keep < 0 || int64(op.group)+keep < int64(u.warps[op.warp].bulkCommitted[op.lane])) {
			due = append(due, op)
			continue
		}
		out = append(out, op)
	}
	clear(u.stores[len(out):])
	u.stores = out
	sh := w.cta.shared
	for i := range due {
		op := &due[i]
		w.m.dyn -= op.bytes()
		l := int(op.lane)
		kind := AccessStore
		if op.red != isa.SubNone {
			kind = AccessAtomic
		}
		for _, p := range op.pieces {
			n := p.n
			src := sh[p.sh : p.sh+n]
			g, _, f := w.spaceBytes(isa.Global, l, p.g, int(n), 1)
			if f != nil {
				return f
			}
			if w.m.obsAcc {
				// Element by element: the copy reads its source through the
				// asynchronous proxy and writes its destination.
				es := uint64(op.elem)
				for at := uint64(0); at < n; at += es {
					done := w.m.asyncAccesses(int(op.pc))
					w.noteAccess(AccessLoad, isa.Shared, isa.Shared, l, p.sh+at, src[at:at+es])
					done()
					w.noteAccess(kind, isa.Global, isa.Global, l, p.g+at, g[at:at+es])
				}
			}
			if op.red == isa.SubNone {
				copy(g, src)
				continue
			}
			es := op.rtype.Size()
			for k := 0; k+es <= len(g); k += es {
				bulkReduce(op.red, op.rtype, g[k:k+es], src[k:k+es])
			}
		}
	}
	return nil
}

// bulkSpan returns the first and one past the last byte offset (from
// dst) op writes.
func (op *bulkOp) span() (lo, hi uint64) {
	if op.runs == nil {
		return 0, uint64(len(op.data))
	}
	lo = math.MaxUint64
	for _, r := range op.runs {
		lo = min(lo, uint64(r.off))
		hi = max(hi, uint64(r.off)+uint64(r.n))
	}
	return lo, hi
}

// landBulk lands the copies in flight into c's shared memory that
// complete on the mbarrier at offset mbar, in issue order, for w's
// instruction (which tests the mbarrier, or issued the last of them).
func (w *Warp) landBulk(c *CTA, mbar uint64) *Fault {
	u := &c.async
	if len(u.bulk) == 0 {
		return nil
	}
	var due []bulkOp
	out := u.bulk[:0]
	for _, op := range u.bulk {
		if op.mbar == mbar {
			due = append(due, op)
			continue
		}
		out = append(out, op)
	}
	clear(u.bulk[len(out):])
	u.bulk = out
	for i := range due {
		op := &due[i]
		w.m.dyn -= op.bytes()
		lo, hi := op.span()
		if lo < hi {
			b := c.shared[op.dst+lo : op.dst+hi]
			addr, sp := op.dst+lo, isa.Shared
			if c != w.cta {
				addr, sp = uint64(c.Rank+1)<<ClusterRankShift|addr, isa.SharedCluster
			}
			// The copy's write is the asynchronous proxy's (Access.Async).
			done := w.m.asyncAccesses(int(op.pc))
			w.noteAccess(AccessStore, sp, sp, int(op.lane), addr, b)
			done()
		}
		if op.runs == nil {
			d := c.shared[op.dst : op.dst+uint64(len(op.data))]
			if op.red != isa.SubNone {
				es := op.rtype.Size()
				for k := 0; k+es <= len(d); k += es {
					bulkReduce(op.red, op.rtype, d[k:k+es], op.data[k:k+es])
				}
			} else {
				copy(d, op.data)
			}
		} else {
			var at uint64
			for _, r := range op.runs {
				d := op.dst + uint64(r.off)
				at += uint64(copy(c.shared[d:d+uint64(r.n)], op.data[at:at+uint64(r.n)]))
			}
		}
		if f := w.mbarrierCompleteTx(&w.m.prog.Ops[op.pc], int(op.lane), c, op.mbar, op.tx); f != nil {
			return f
		}
	}
	return nil
}

// queueBulk queues op on c's asynchronous unit; it lands at once when a
// warp of c waits on its mbarrier.
func (w *Warp) queueBulk(c *CTA, op bulkOp) *Fault {
	c.async.bulk = append(c.async.bulk, op)
	w.m.dyn += op.bytes()
	for _, x := range c.Warps {
		waits := false
		x.eachWait(func(t *Wait) { waits = waits || t.Kind == WaitMbarrier && t.Addr == op.mbar })
		if waits {
			return w.landBulk(c, op.mbar)
		}
	}
	if w.m.obsAcc {
		// In flight: the race checker flags generic accesses of its bytes
		// until it lands.
		lo, hi := op.span()
		if lo < hi {
			w.m.openStep()
			w.m.info.BulkIssued = append(w.m.info.BulkIssued, BulkCopy{PC: int(op.pc), Lane: int(op.lane), CTA: c.Linear,
				Dst: op.dst + lo, Size: hi - lo, Mbar: op.mbar})
		}
	}
	return nil
}

// queueBulkCopy resolves lane l's mbarrier operand bref and the CTAs a
// copy into shared memory goes to — c0, the destination's CTA, which must
// hold the mbarrier, or with a .multicast::cluster mask register (mask >=
// 0) every CTA the lane's mask names — and queues op on each, as lane l's
// copy of the current instruction completing on that mbarrier.
func (w *Warp) queueBulkCopy(name string, l int, c0 *CTA, bref memRef, mask int32, op bulkOp) *Fault {
	baddr := refAddr(w, bref, l)
	mc, moff, f := w.bulkShared(name, "mbarrier", l, bref.space, baddr, 8, 8)
	if f != nil {
		return f
	}
	targets := []*CTA{c0}
	if mask >= 0 {
		targets = targets[:0]
		cm := uint16(w.r(mask)[l])
		for r := 0; r < 16; r++ {
			if cm>>r&1 == 0 {
				continue
			}
			c, f := w.clusterPeer(name, l, r)
			if f != nil {
				return f
			}
			targets = append(targets, c)
		}
	} else if mc != c0 {
		return w.faultAddr(FaultIllegal, l, baddr, "%s: the mbarrier is in another CTA's shared memory than the destination", name)
	}
	op.warp, op.lane, op.pc, op.mbar = int32(w.ID), int32(l), int32(w.m.curPC), moff
	for _, c := range targets {
		if n := op.bytes(); w.m.overDynamic(n) {
			return w.dynamicFault(n, 1<<l, name+" (copies in flight until a thread waits on their mbarrier)")
		}
		if f := w.queueBulk(c, op); f != nil {
			return f
		}
	}
	return nil
}

// bulkShared resolves lane's shared-memory address addr (named in space)
// of a region of size bytes whose offset is aligned to align: the CTA
// holding it and the offset in its shared memory.
func (w *Warp) bulkShared(name, what string, lane int, space isa.Space, addr uint64, size int64, align uint64) (*CTA, uint64, *Fault) {
	sp, a := space, addr
	if sp == isa.SpaceNone {
		sp, a = w.m.genericToSpace(addr)
	}
	c, off := w.cta, a
	switch sp {
	case isa.Shared:
	case isa.SharedCluster:
		var f *Fault
		c, off, f = w.clusterShared(lane, a, int(min(size, 1<<30)))
		if f != nil {
			return nil, 0, f
		}
	default:
		return nil, 0, w.faultAddr(FaultIllegal, lane, addr, "%s: the %s address 0x%x is in %s memory, not shared memory", name, what, addr, sp)
	}
	if align > 1 && off%align != 0 {
		return nil, 0, w.faultAddr(FaultMisaligned, lane, addr, "%s: the %s address 0x%x (offset 0x%x in shared memory) is not %d-byte aligned", name, what, addr, off, align)
	}
	if size < 0 || off+uint64(size) > uint64(len(c.shared)) || off+uint64(size) < off {
		return nil, 0, w.faultAddr(FaultOutOfBounds, lane, addr, "%s: the %s (%d bytes at offset 0x%x) is outside the %d bytes of shared memory of CTA (%d,%d,%d)", name, what, size, off, len(c.shared), c.Idx[0], c.Idx[1], c.Idx[2])
	}
	return c, off, nil
}

// clusterPeer returns the CTA of rank r of w's cluster (for a multicast).
func (w *Warp) clusterPeer(name string, lane int, r int) (*CTA, *Fault) {
	cl := w.cta.cluster
	if cl == nil || r >= len(cl.CTAs) {
		n := 1
		if cl != nil {
			n = len(cl.CTAs)
		}
		return nil, w.fault(FaultIllegal, lane, "%s: the ctaMask names CTA rank %d, outside the cluster of %d CTA%s", name, r, n, plural(n))
	}
	c := cl.CTAs[r]
	if c != w.cta && c.liveThreads() == 0 {
		return nil, w.fault(FaultIllegal, lane, "%s: the ctaMask names CTA rank %d, whose threads have all exited (its shared memory is gone)", name, r)
	}
	return c, nil
}

// tensorMapAt reads and validates the tensor map at lane's address addr
// (named in space: .param, .const, .global or generic).
func (w *Warp) tensorMapAt(name string, lane int, space isa.Space, addr uint64) (isa.TensorMap, *Fault) {
	b, sp, f := w.spaceBytes(space, lane, addr, isa.TensorMapBytes, 64)
	if f != nil {
		return isa.TensorMap{}, f
	}
	switch sp {
	case isa.Param, isa.Const, isa.Global:
	default:
		return isa.TensorMap{}, w.faultAddr(FaultIllegal, lane, addr, "%s: the tensor map at 0x%x is in %s memory; it must be in .param, .const or .global memory", name, addr, sp)
	}
	w.noteAccess(AccessLoad, space, sp, lane, addr, b)
	m, err := isa.DecodeTensorMap(b)
	if err == nil {
		err = m.Validate()
	}
	if err != nil {
		return m, w.faultAddr(FaultIllegal, lane, addr, "%s: the tensor map at 0x%x is not valid: %v", name, addr, err)
	}
	return m, nil
}

// bulkModNames returns the modifier words of the instruction after its
// opcode's (in order).
func bulkModNames(b *binder) []string {
	var out []string
	for _, m := range b.ins.Mods {
		out = append(out, m.Name)
	}
	return out
}

func hasWord(ws []string, w string) bool {
	for _, x := range ws {
		if x == w {
			return true
		}
	}
	return false
}

// bulkDir returns the destination and source state spaces the modifier
// words name, in order (".shared::cluster.global": shared::cluster, global).
func bulkDir(ws []string) (dst, src string) {
	var sp []string
	for _, w := range ws {
		switch w {
		case "shared", "shared::cta", "shared::cluster", "global":
			sp = append(sp, w)
		}
	}
	if len(sp) > 0 {
		dst = sp[0]
	}
	if len(sp) > 1 {
		src = sp[1]
	}
	if dst == "shared" {
		dst = "shared::cta"
	}
	if src == "shared" {
		src = "shared::cta"
	}
	return
}

// bulkDims returns the N of an .Nd word (0: none).
func bulkDims(ws []string) int {
	for _, w := range ws {
		if len(w) == 2 && w[1] == 'd' && w[0] >= '1' && w[0] <= '5' {
			return int(w[0] - '0')
		}
	}
	return 0
}

// tensorArgs is the tensor operand of a bulk tensor instruction,
// "[tensorMap, {c0, ..., cN-1}]", and its load mode: the map's address,
// the coordinate registers and, for an .im2col load or prefetch, the
// registers of the im2col offsets operand "{o0, ...}" (one .b16 per
// spatial dimension; an .im2col_no_offs store has none and places with
// zero offsets).
type tensorArgs struct {
	mref   memRef
	coords []int32
	offs   []int32
	mode   isa.TensorMapMode
}

// tensorMode reads the load mode word of a tensor instruction: .tile (or
// none) or im2col (the word a load or prefetch spells .im2col and a store
// .im2col_no_offs).
func tensorMode(b *binder, ws []string, store bool) (isa.TensorMapMode, bool) {
	im2col, other := "im2col", "im2col_no_offs"
	if store {
		im2col, other = other, im2col
	}
	switch {
	case hasWord(ws, "im2col::w") || hasWord(ws, "im2col::w::128"):
		b.errorf("the .im2col::w and .im2col::w::128 load modes are not supported by the emulator yet (.tile and .im2col are)")
	case hasWord(ws, other):
		b.errorf("the mode of this form is .tile or .%s, not .%s", im2col, other)
	case hasWord(ws, im2col):
		if n := bulkDims(ws); n < 3 {
			b.errorf("the .%s mode is for .3d, .4d and .5d tensors", im2col)
			return 0, false
		}
		return isa.TensorModeIm2col, true
	default:
		return isa.TensorModeTile, true
	}
	return 0, false
}

// bindTensorOperand binds operand i "[tensorMap, {c0, ..., cN-1}]": the
// map's address and the coordinate registers.
func bindTensorOperand(b *binder, i, n int, mode isa.TensorMapMode) (tensorArgs, bool) {
	o := b.opd(i)
	if o == nil || o.Kind != ptx.OpdAddr || len(o.Elems) != 1 {
		b.operr(i, "operand %d must be [tensorMap, {coordinates}]", i+1)
		return tensorArgs{}, false
	}
	ref, ok := bindMemRef(b, i, isa.SpaceNone)
	if !ok {
		return tensorArgs{}, false
	}
	b.memSpan(isa.TensorMapBytes)
	saved := b.ins.Operands
	b.ins.Operands = o.Elems
	regs := b.VecRegs(0, n, isa.B32, false)
	b.ins.Operands = saved
	if b.failed || regs == nil {
		return tensorArgs{}, false
	}
	return tensorArgs{mref: ref, coords: regs, mode: mode}, true
}

// bindOffsets binds operand i as the im2col offsets "{o0, ...}" (n-2
// .b16 registers for a rank-n copy).
func (a *tensorArgs) bindOffsets(b *binder, i int) bool {
	a.offs = b.VecRegs(i, len(a.coords)-2, isa.B16, false)
	return !b.failed && a.offs != nil
}

// mapAt reads and validates lane l's tensor map.
func (a *tensorArgs) mapAt(w *Warp, name string, l int) (isa.TensorMap, *Fault) {
	return w.tensorMapAt(name, l, a.mref.space, refAddr(w, a.mref, l))
}

// place places lane l's copy of the map tm to shared-memory offset dst
// (the destination of a load, the source of a store) as runs, appended to
// runs (TMARunsTile, TMARunsIm2col); with elements (runs == nil and
// elements), as every element (TMAPlaceTile, TMAPlaceIm2col). An error (a
// map of the wrong mode, coordinates outside the bounding box) faults at
// addr.
func (a *tensorArgs) place(w *Warp, name string, l int, tm isa.TensorMap, dst, addr uint64, runs []TMARun, elements bool) (TMAPlacement, []TMARun, *Fault) {
	var cb [isa.TensorMaxRank]int32
	coords := cb[:len(a.coords)]
	for d, r := range a.coords {
		coords[d] = int32(w.r(r)[l])
	}
	var p TMAPlacement
	var err error
	if a.mode == isa.TensorModeIm2col {
		var ob [isa.TensorMaxRank]uint16
		offs := ob[:len(coords)-2]
		for i, r := range a.offs {
			offs[i] = uint16(w.r(r)[l])
		}
		if elements {
			p, err = TMAPlaceIm2col(tm, coords, offs, dst)
		} else {
			p, runs, err = TMARunsIm2col(tm, coords, offs, dst, runs)
		}
	} else if elements {
		p, err = TMAPlaceTile(tm, coords, dst)
	} else {
		p, runs, err = TMARunsTile(tm, coords, dst, runs)
	}
	if err != nil {
		return p, runs, w.faultAddr(FaultIllegal, l, addr, "%s: %v", name, err)
	}
	return p, runs, nil
}

// elementsOf returns the elements of run r of lane l's copy (placed as
// place does): the slow path that a run which faults takes, so that the
// fault is the one its first bad element raises.
func (a *tensorArgs) elementsOf(w *Warp, name string, l int, tm isa.TensorMap, dst, addr uint64, r TMARun) ([]TMAElement, int, *Fault) {
	p, _, f := a.place(w, name, l, tm, dst, addr, nil, true)
	if f != nil {
		return nil, 0, f
	}
	return p.Elements[r.First : r.First+r.N], p.ElemBytes, nil
}

// bulkOperands is the operand list of a bulk instruction: fixed operands,
// then the optional ones present, in order, then the cache policy when
// .L2::cache_hint is given.
type bulkOperands struct {
	b    *binder
	n    int
	hint bool
}

// wantBulkOperands checks the operand count for fixed operands plus each
// optional one present (and the cache policy).
func wantBulkOperands(b *binder, ws []string, fixed int, optional ...bool) (bulkOperands, bool) {
	o := bulkOperands{b: b, n: fixed, hint: hasWord(ws, "L2::cache_hint")}
	for _, p := range optional {
		if p {
			o.n++
		}
	}
	if o.hint {
		o.n++
	}
	return o, b.Want(o.n, o.n)
}

// policy binds the cache-policy operand (accepted and ignored) and
// reports whether the binding succeeded.
func (o bulkOperands) policy() bool {
	if o.hint {
		o.b.Src(o.n-1, isa.B64)
	}
	return !o.b.failed
}

// consumeMods marks the decoded modifiers used (the words are checked by
// the binder from the raw names).
func consumeMods(b *binder) {
	b.Space()
	b.Tensor()
	b.used.types = true
	b.used.subs = len(b.m.Subs)
	b.used.flags = b.m.Flags
}

func refAddr(w *Warp, r memRef, l int) uint64 {
	a := uint64(r.off)
	if r.base >= 0 {
		a += w.r(r.base)[l] & r.amask
	}
	return a
}

// ---- cp.async.bulk.tensor ----

func bindBulkTensor(b *binder) {
	ws := bulkModNames(b)
	consumeMods(b)
	n := bulkDims(ws)
	if n == 0 {
		b.errorf("needs the dimension .1d .. .5d")
		return
	}
	dst, src := bulkDir(ws)
	switch {
	case (dst == "shared::cluster" || dst == "shared::cta") && src == "global":
		if !hasWord(ws, "mbarrier::complete_tx::bytes") {
			b.errorf("a load needs the completion mechanism .mbarrier::complete_tx::bytes")
			return
		}
		mode, ok := tensorMode(b, ws, false)
		if ok {
			bindTensorLoad(b, ws, n, mode)
		}
	case dst == "global" && src == "shared::cta":
		if !hasWord(ws, "bulk_group") {
			b.errorf("a store needs the completion mechanism .bulk_group")
			return
		}
		if mode, ok := tensorMode(b, ws, true); ok {
			bindTensorStore(b, ws, n, mode, isa.SubNone)
		}
	default:
		b.errorf("the direction must be .shared::cluster.global (load) or .global.shared::cta (store)")
	}
}

func bindTensorLoad(b *binder, ws []string, n int, mode isa.TensorMapMode) {
	multicast := hasWord(ws, "multicast::cluster")
	im2col := mode == isa.TensorModeIm2col
	opds, ok := wantBulkOperands(b, ws, 3, im2col, multicast)
	if !ok {
		return
	}
	dref, ok := bindMemRef(b, 0, isa.SharedCluster)
	if !ok {
		return
	}
	ta, ok := bindTensorOperand(b, 1, n, mode)
	if !ok {
		return
	}
	bref, ok := bindMemRef(b, 2, isa.SharedCluster)
	if !ok {
		return
	}
	b.memSpan(8)
	next := 3
	if im2col {
		if !ta.bindOffsets(b, next) {
			return
		}
		next++
	}
	mask := int32(-1)
	if multicast {
		mask = b.Src(next, isa.B16)
	}
	if !opds.policy() {
		return
	}
	op := b.op
	dref.set(op)
	name := "cp.async.bulk.tensor"
	form := addTMAForm(b, tmaForm{kind: TMALoad, rank: n, ta: ta, sref: dref, bref: bref, mask: mask})
	op.Exec = func(w *Warp, op *Op, emask uint32) *Fault {
		w.noteTMA(form, emask)
		for mm := emask; mm != 0; mm &= mm - 1 {
			l := bits.TrailingZeros32(mm)
			tm, f := ta.mapAt(w, name, l)
			if f != nil {
				return f
			}
			daddr := refAddr(w, dref, l)
			c0, off, f := w.bulkShared(name, "destination", l, dref.space, daddr, tm.BoxBytes(), TMASharedAlign)
			if f != nil {
				return f
			}
			var rb [16]TMARun
			p, runs, f := ta.place(w, name, l, tm, off, daddr, rb[:0], false)
			if f != nil {
				return f
			}
			// Every element lands inside the destination CTA's shared
			// memory. A run moves its elements with one access; a run that
			// faults is done element by element, so the fault names the
			// element that raises it.
			es := uint64(p.ElemBytes)
			var total uint64
			for _, r := range runs {
				total += uint64(r.N)
			}
			data := make([]byte, total*es)
			bruns := make([]bulkRun, 0, len(runs))
			var at uint64
			for _, r := range runs {
				size := uint64(r.N) * es
				piece := data[at : at+size]
				at += size
				if n := len(bruns); n > 0 && uint64(bruns[n-1].off)+uint64(bruns[n-1].n) == r.Shared {
					bruns[n-1].n += uint32(size)
				} else {
					bruns = append(bruns, bulkRun{off: uint32(r.Shared), n: uint32(size)})
				}
				if off+r.Shared+size <= uint64(len(c0.shared)) {
					if r.OOB {
						for k := uint64(0); k < size; k += es {
							copy(piece[k:k+es], p.Fill)
						}
						continue
					}
					if g, _, f := w.spaceBytes(isa.Global, l, r.Global, int(size), 1); f == nil {
						// Observers see one access per element.
						if w.m.obsAcc {
							for at := uint64(0); at < size; at += es {
								w.noteAccess(AccessLoad, isa.Global, isa.Global, l, r.Global+at, g[at:at+es])
							}
						}
						copy(piece, g)
						continue
					}
				}
				els, _, f := ta.elementsOf(w, name, l, tm, off, daddr, r)
				if f != nil {
					return f
				}
				for i, e := range els {
					if off+e.Shared+es > uint64(len(c0.shared)) {
						return w.faultAddr(FaultOutOfBounds, l, daddr, "%s: element %d of the box lands at offset 0x%x, outside the %d bytes of shared memory", name, r.First+i, off+e.Shared, len(c0.shared))
					}
					piece := piece[uint64(i)*es : uint64(i+1)*es]
					if e.OOB {
						copy(piece, p.Fill)
						continue
					}
					g, f := w.access(AccessLoad, isa.Global, l, e.Global, p.ElemBytes, 1)
					if f != nil {
						f.Message = fmt.Sprintf("%s: element at tensor coordinate %v of the box: %s", name, e.Coord[:p.Rank], f.Message)
						return f
					}
					copy(piece, g)
				}
			}
			bo := bulkOp{dst: off, runs: bruns, data: data, tx: p.TxBytes}
			if f := w.queueBulkCopy(name, l, c0, bref, mask, bo); f != nil {
				return f
			}
		}
		return nil
	}
}

// bindTensorStore: cp.async.bulk.tensor.Nd.global.shared::cta.tile.bulk_group
// [tensorMap, {coords}], [srcMem]{, cache-policy} and its reductions
// (red: the reduction; SubNone: a plain store).
func bindTensorStore(b *binder, ws []string, n int, mode isa.TensorMapMode, red isa.SubOp) {
	opds, ok := wantBulkOperands(b, ws, 2)
	if !ok {
		return
	}
	ta, ok := bindTensorOperand(b, 0, n, mode)
	if !ok {
		return
	}
	sref, ok := bindMemRef(b, 1, isa.Shared)
	if !ok || !opds.policy() {
		return
	}
	op := b.op
	sref.set(op)
	name := "cp.async.bulk.tensor"
	kind := TMAStore
	if red != isa.SubNone {
		name, kind = "cp.reduce.async.bulk.tensor", TMAReduce
	}
	form := addTMAForm(b, tmaForm{kind: kind, red: red, rank: n, ta: ta, sref: sref, mask: -1})
	op.Exec = func(w *Warp, op *Op, emask uint32) *Fault {
		w.noteTMA(form, emask)
		for mm := emask; mm != 0; mm &= mm - 1 {
			l := bits.TrailingZeros32(mm)
			tm, f := ta.mapAt(w, name, l)
			if f != nil {
				return f
			}
			rt, ok := tensorRedType(tm.ElemType)
			if red != isa.SubNone && (!ok || !bulkRedValid(red, rt)) {
				return w.fault(FaultIllegal, l, "%s: .%s is not a reduction the ISA defines for the tensor map's element type %s", name, red, tm.ElemType)
			}
			saddr := refAddr(w, sref, l)
			c, off, f := w.bulkShared(name, "source", l, sref.space, saddr, tm.BoxBytes(), TMASharedAlign)
			if f != nil {
				return f
			}
			if c != w.cta {
				return w.faultAddr(FaultIllegal, l, saddr, "%s: the source must be in the executing CTA's shared memory (.shared::cta)", name)
			}
			var rb [16]TMARun
			p, runs, f := ta.place(w, name, l, tm, off, saddr, rb[:0], false)
			if f != nil {
				return f
			}
			// A run is one piece; a run that faults is checked element by
			// element, so the fault names the element that raises it.
			es := uint64(p.ElemBytes)
			st := bulkStore{elem: int32(es), red: red, rtype: rt, pieces: make([]bulkPiece, 0, len(runs))}
			for _, r := range runs {
				size := uint64(r.N) * es
				if off+r.Shared+size <= uint64(len(c.shared)) {
					if r.OOB {
						continue // not written
					}
					if _, _, f := w.spaceBytes(isa.Global, l, r.Global, int(size), 1); f == nil {
						st.pieces = append(st.pieces, bulkPiece{sh: off + r.Shared, g: r.Global, n: size})
						continue
					}
				}
				els, _, f := ta.elementsOf(w, name, l, tm, off, saddr, r)
				if f != nil {
					return f
				}
				for _, e := range els {
					if off+e.Shared+es > uint64(len(c.shared)) {
						return w.faultAddr(FaultOutOfBounds, l, saddr, "%s: an element of the box is at offset 0x%x, outside the %d bytes of shared memory", name, off+e.Shared, len(c.shared))
					}
					if e.OOB {
						continue // not written
					}
					if _, _, f := w.spaceBytes(isa.Global, l, e.Global, p.ElemBytes, 1); f != nil {
						f.Message = fmt.Sprintf("%s: element at tensor coordinate %v of the box: %s", name, e.Coord[:p.Rank], f.Message)
						return f
					}
					st.pieces = append(st.pieces, bulkPiece{sh: off + e.Shared, g: e.Global, n: es})
				}
			}
			if f := w.queueStore(name, l, st); f != nil {
				return f
			}
		}
		return nil
	}
}

// tensorRedType is the type a reduction treats a tensor element as.
func tensorRedType(t isa.TensorElemType) (isa.Type, bool) {
	switch t {
	case isa.TensorU32:
		return isa.U32, true
	case isa.TensorS32:
		return isa.S32, true
	case isa.TensorU64:
		return isa.U64, true
	case isa.TensorS64:
		return isa.S64, true
	case isa.TensorF16:
		return isa.F16, true
	case isa.TensorBF16:
		return isa.BF16, true
	case isa.TensorF32, isa.TensorF32FTZ:
		return isa.F32, true
	case isa.TensorF64:
		return isa.F64, true
	}
	return 0, false
}

// bulkRedValid reports whether the ISA defines reduction red on type t
// for bulk reductions: .add on every integer and float type, .min/.max on
// integers, f16 and bf16 (and f32/f64 elements of tensors, treated alike),
// .inc/.dec on u32, .and/.or/.xor on 32- and 64-bit bit types.
func bulkRedValid(red isa.SubOp, t isa.Type) bool {
	switch red {
	case isa.SubAdd, isa.SubMin, isa.SubMax:
		return true
	case isa.SubInc, isa.SubDec:
		return t == isa.U32
	case isa.SubAnd, isa.SubOr, isa.SubXor:
		switch t {
		case isa.B32, isa.B64, isa.U32, isa.S32, isa.U64, isa.S64:
			return true
		}
	}
	return false
}

// bulkReduce applies d = d red s to one element of type t (little-endian).
func bulkReduce(red isa.SubOp, t isa.Type, d, s []byte) {
	le := binary.LittleEndian
	switch t {
	case isa.F16, isa.BF16:
		a, b := le.Uint16(d), le.Uint16(s)
		conv := fpx.F16ToF32
		if t == isa.BF16 {
			conv = fpx.BF16ToF32
		}
		fa, fb := math.Float32frombits(conv(a)), math.Float32frombits(conv(b))
		var r uint16
		switch red {
		case isa.SubAdd:
			if t == isa.BF16 {
				r = fpx.AddBF16(a, b, 0)
			} else {
				r = fpx.AddF16(a, b, 0)
			}
		case isa.SubMin:
			r = a
			if fb < fa || fa != fa {
				r = b
			}
		case isa.SubMax:
			r = a
			if fb > fa || fa != fa {
				r = b
			}
		}
		le.PutUint16(d, r)
	case isa.F32:
		a, b := math.Float32frombits(le.Uint32(d)), math.Float32frombits(le.Uint32(s))
		var r float32
		switch red {
		case isa.SubAdd:
			r = a + b
		case isa.SubMin:
			r = float32(math.Min(float64(a), float64(b)))
		case isa.SubMax:
			r = float32(math.Max(float64(a), float64(b)))
		}
		le.PutUint32(d, math.Float32bits(r))
	case isa.F64:
		a, b := math.Float64frombits(le.Uint64(d)), math.Float64frombits(le.Uint64(s))
		var r float64
		switch red {
		case isa.SubAdd:
			r = a + b
		case isa.SubMin:
			r = math.Min(a, b)
		case isa.SubMax:
			r = math.Max(a, b)
		}
		le.PutUint64(d, math.Float64bits(r))
	default:
		n := t.Size()
		a, b := getLE(d[:n]), getLE(s[:n])
		signed := t == isa.S32 || t == isa.S64
		sx := func(v uint64) int64 {
			if n == 4 {
				return int64(int32(v))
			}
			return int64(v)
		}
		var r uint64
		switch red {
		case isa.SubAdd:
			r = a + b
		case isa.SubMin, isa.SubMax:
			less := a < b
			if signed {
				less = sx(a) < sx(b)
			}
			if (red == isa.SubMin) == less {
				r = a
			} else {
				r = b
			}
		case isa.SubInc:
			if uint32(a) >= uint32(b) {
				r = 0
			} else {
				r = a + 1
			}
		case isa.SubDec:
			if uint32(a) == 0 || uint32(a) > uint32(b) {
				r = b
			} else {
				r = a - 1
			}
		case isa.SubAnd:
			r = a & b
		case isa.SubOr:
			r = a | b
		case isa.SubXor:
			r = a ^ b
		}
		putLE(d[:n], r)
	}
}

// ---- cp.reduce.async.bulk{.tensor} ----

func bulkRedOp(ws []string) isa.SubOp {
	for _, w := range ws {
		switch w {
		case "add":
			return isa.SubAdd
		case "min":
			return isa.SubMin
		case "max":
			return isa.SubMax
		case "inc":
			return isa.SubInc
		case "dec":
			return isa.SubDec
		case "and":
			return isa.SubAnd
		case "or":
			return isa.SubOr
		case "xor":
			return isa.SubXor
		}
	}
	return isa.SubNone
}

func bindBulkReduce(b *binder) {
	ws := bulkModNames(b)
	consumeMods(b)
	red := bulkRedOp(ws)
	if red == isa.SubNone {
		b.errorf("needs a reduction .add .min .max .inc .dec .and .or or .xor")
		return
	}
	dst, src := bulkDir(ws)
	if hasWord(ws, "tensor") {
		n := bulkDims(ws)
		if n == 0 {
			b.errorf("needs the dimension .1d .. .5d")
			return
		}
		if dst != "global" || src != "shared::cta" || !hasWord(ws, "bulk_group") {
			b.errorf("the form is .global.shared::cta with .bulk_group")
			return
		}
		if mode, ok := tensorMode(b, ws, true); ok {
			bindTensorStore(b, ws, n, mode, red)
		}
		return
	}
	var t isa.Type
	if len(b.m.Types) == 1 {
		t = b.m.Types[0]
	}
	if t == 0 {
		b.errorf("needs one type (.b32 .u32 .s32 .b64 .u64 .s64 .f32 .f64 .f16 .bf16)")
		return
	}
	if !bulkRedValid(red, t) {
		b.errorf(".%s is not defined for .%s", red, t)
		return
	}
	switch {
	case dst == "shared::cluster" && src == "shared::cta" && hasWord(ws, "mbarrier::complete_tx::bytes"):
		bindBulkCopy(b, ws, "shared", red, t)
	case dst == "global" && src == "shared::cta" && hasWord(ws, "bulk_group"):
		bindBulkCopy(b, ws, "global", red, t)
	default:
		b.errorf("the forms are .shared::cluster.shared::cta.mbarrier::complete_tx::bytes and .global.shared::cta.bulk_group")
	}
}

// ---- cp.async.bulk ----

func bindBulk(b *binder) {
	ws := bulkModNames(b)
	consumeMods(b)
	if len(b.m.Types) > 0 {
		b.errorf("takes no type")
		return
	}
	if hasWord(ws, "prefetch") {
		bindBulkPrefetch(b, ws)
		return
	}
	dst, src := bulkDir(ws)
	switch {
	case (dst == "shared::cluster" || dst == "shared::cta") && (src == "global" || src == "shared::cta") && hasWord(ws, "mbarrier::complete_tx::bytes"):
		if src == "shared::cta" && dst != "shared::cluster" {
			b.errorf("a shared-to-shared copy is .shared::cluster.shared::cta")
			return
		}
		bindBulkCopy(b, ws, "shared", isa.SubNone, 0)
	case dst == "global" && src == "shared::cta" && hasWord(ws, "bulk_group"):
		bindBulkCopy(b, ws, "global", isa.SubNone, 0)
	default:
		b.errorf("the forms are .shared::cluster.global.mbarrier::complete_tx::bytes, .shared::cluster.shared::cta.mbarrier::complete_tx::bytes and .global.shared::cta.bulk_group")
	}
}

// bindBulkCopy binds [dst], [src], size{, [mbar]}{, ctaMask}{, policy}:
// into shared memory completing on an mbarrier (to "shared"), or into
// global memory (to "global"); red: a reduction of type t.
func bindBulkCopy(b *binder, ws []string, to string, red isa.SubOp, t isa.Type) {
	_, src := bulkDir(ws)
	multicast := hasWord(ws, "multicast::cluster")
	if multicast && (to != "shared" || src != "global") {
		b.errorf(".multicast::cluster is for copies from global memory into shared memory")
		return
	}
	opds, ok := wantBulkOperands(b, ws, 3, to == "shared", multicast)
	if !ok {
		return
	}
	dsp, ssp := isa.Global, isa.Shared
	if to == "shared" {
		dsp = isa.SharedCluster
		if src == "global" {
			ssp = isa.Global
		}
	}
	dref, ok := bindMemRef(b, 0, dsp)
	if !ok {
		return
	}
	sref, ok := bindMemRef(b, 1, ssp)
	if !ok {
		return
	}
	size := b.Src(2, isa.U32)
	var bref memRef
	if to == "shared" {
		if bref, ok = bindMemRef(b, 3, isa.SharedCluster); !ok {
			return
		}
		b.memSpan(8)
	}
	mask := int32(-1)
	if multicast {
		mask = b.Src(4, isa.B16)
	}
	if !opds.policy() {
		return
	}
	op := b.op
	dref.set(op)
	name := "cp.async.bulk"
	if red != isa.SubNone {
		name = "cp.reduce.async.bulk"
	}
	op.Exec = func(w *Warp, op *Op, emask uint32) *Fault {
		for mm := emask; mm != 0; mm &= mm - 1 {
			l := bits.TrailingZeros32(mm)
			n := int64(uint32(w.r(size)[l]))
			if n%16 != 0 {
				return w.fault(FaultIllegal, l, "%s: the size %d is not a multiple of 16", name, n)
			}
			if red != isa.SubNone && n%int64(t.Size()) != 0 {
				return w.fault(FaultIllegal, l, "%s: the size %d is not a multiple of the .%s element", name, n, t)
			}
			saddr, daddr := refAddr(w, sref, l), refAddr(w, dref, l)
			if to == "global" {
				// The source is the CTA's shared memory (.shared::cta).
				c, off, f := w.bulkShared(name, "source", l, sref.space, saddr, n, 16)
				if f != nil {
					return f
				}
				if c != w.cta {
					return w.faultAddr(FaultIllegal, l, saddr, "%s: the source must be in the executing CTA's shared memory (.shared::cta)", name)
				}
				if _, _, f := w.spaceBytes(isa.Global, l, daddr, int(n), 16); f != nil {
					return f
				}
				st := bulkStore{elem: int32(n), red: red, rtype: t, pieces: []bulkPiece{{sh: off, g: daddr, n: uint64(n)}}}
				if f := w.queueStore(name, l, st); f != nil {
					return f
				}
				continue
			}
			// Read the source.
			var sb []byte
			if src == "global" {
				g, f := w.access(AccessLoad, isa.Global, l, saddr, int(n), 16)
				if f != nil {
					return f
				}
				sb = g
			} else {
				c, off, f := w.bulkShared(name, "source", l, sref.space, saddr, n, 16)
				if f != nil {
					return f
				}
				if c != w.cta {
					return w.faultAddr(FaultIllegal, l, saddr, "%s: the source must be in the executing CTA's shared memory (.shared::cta)", name)
				}
				sb = c.shared[off : off+uint64(n)]
				done := w.m.asyncAccesses(w.m.curPC)
				w.noteAccess(AccessLoad, isa.Shared, isa.Shared, l, off, sb)
				done()
			}
			c0, off, f := w.bulkShared(name, "destination", l, dref.space, daddr, n, 16)
			if f != nil {
				return f
			}
			bo := bulkOp{dst: off, data: append([]byte(nil), sb...), tx: n, red: red, rtype: t}
			if f := w.queueBulkCopy(name, l, c0, bref, mask, bo); f != nil {
				return f
			}
		}
		return nil
	}
}

// bindBulkPrefetch: cp.async.bulk.prefetch.L2.global [a], size{, policy}:
// no effect but its checks (size a multiple of 16, a 16-byte aligned
// global range).
func bindBulkPrefetch(b *binder, ws []string) {
	opds, ok := wantBulkOperands(b, ws, 2)
	if !ok {
		return
	}
	ref, ok := bindMemRef(b, 0, isa.Global)
	if !ok {
		return
	}
	size := b.Src(1, isa.U32)
	if !opds.policy() {
		return
	}
	ref.set(b.op)
	b.op.Exec = func(w *Warp, op *Op, emask uint32) *Fault {
		for mm := emask; mm != 0; mm &= mm - 1 {
			l := bits.TrailingZeros32(mm)
			n := int(uint32(w.r(size)[l]))
			if n%16 != 0 {
				return w.fault(FaultIllegal, l, "cp.async.bulk.prefetch: the size %d is not a multiple of 16", n)
			}
			if _, _, f := w.spaceBytes(isa.Global, l, refAddr(w, ref, l), n, 16); f != nil {
				return f
			}
		}
		return nil
	}
}

// bindPrefetchTensor: prefetch.tensor.Nd.L2.global{.tile|.im2col}
// [tensorMap, {coords}]{, {im2colOffsets}}{, policy}: no effect but
// reading and validating the map and placing the box (which faults on a
// map of the other mode or coordinates outside an im2col bounding box).
func bindPrefetchTensor(b *binder) {
	ws := bulkModNames(b)
	consumeMods(b)
	n := bulkDims(ws)
	if n == 0 {
		b.errorf("needs the dimension .1d .. .5d")
		return
	}
	mode, ok := tensorMode(b, ws, false)
	if !ok {
		return
	}
	opds, ok := wantBulkOperands(b, ws, 1, mode == isa.TensorModeIm2col)
	if !ok {
		return
	}
	ta, ok := bindTensorOperand(b, 0, n, mode)
	if !ok {
		return
	}
	if mode == isa.TensorModeIm2col && !ta.bindOffsets(b, 1) {
		return
	}
	if !opds.policy() {
		return
	}
	ta.mref.set(b.op)
	const name = "prefetch.tensor"
	form := addTMAForm(b, tmaForm{kind: TMAPrefetch, rank: n, ta: ta, mask: -1})
	b.op.Exec = func(w *Warp, op *Op, emask uint32) *Fault {
		w.noteTMA(form, emask)
		for mm := emask; mm != 0; mm &= mm - 1 {
			l := bits.TrailingZeros32(mm)
			tm, f := ta.mapAt(w, name, l)
			if f != nil {
				return f
			}
			// The placement's checks (mode, coordinates, offsets); it
			// moves nothing.
			var rb [16]TMARun
			if _, _, f := ta.place(w, name, l, tm, 0, refAddr(w, ta.mref, l), rb[:0], false); f != nil {
				return f
			}
		}
		return nil
	}
}

// ---- bulk async-groups ----

// cp.async.bulk.commit_group closes each executing thread's open bulk
// async-group; cp.async.bulk.wait_group{.read} N performs the thread's
// copies to global memory in every committed group but the newest N (see
// the top of the file), after which nothing is left to wait for.
func bindBulkGroup(b *binder) {
	b.Space()
	if b.op.Code == isa.OpCpAsyncBulkCommitGroup {
		if !b.Want(0, 0) {
			return
		}
		b.op.Exec = func(w *Warp, op *Op, mask uint32) *Fault {
			if mask != 0 {
				t := w.cta.async.warp(w.ID)
				for m := mask; m != 0; m &= m - 1 {
					t.bulkCommitted[bits.TrailingZeros32(m)]++
				}
			}
			return nil
		}
		return
	}
	if !b.Want(1, 1) {
		return
	}
	v, ok := b.Imm(0)
	if !ok {
		b.failed = true
		return
	}
	if int64(v.Int) < 0 || v.Int > 63 {
		b.operr(0, "N must be an integer constant 0..63")
		return
	}
	keep := int64(v.Int)
	b.op.Exec = func(w *Warp, op *Op, mask uint32) *Fault { return w.landStores(mask, keep) }
}
