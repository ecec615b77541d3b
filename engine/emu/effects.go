package emu

import (
	"github.com/ptxplayground/ptxplay/engine/isa"
)

// Effects is what a lowered instruction may do besides computing its
// destinations from its sources: which state beyond the lane's own
// registers it reads or writes, whether it waits or makes others wait,
// and how it moves the pc. Lowering computes it once for every Op (from
// the opcode, the operands the binder resolved and their state spaces);
// every classifier (batched dispatch, the quiet-shared-memory rule, the
// warp-synchronous scheduler, fault lanes, control-flow graphs, the launch
// analyses) reads it instead of re-deriving it from the opcode.
type Effects uint64

const (
	// EffRegs: reads and writes only the lane's own registers and never
	// faults (arithmetic, logic, comparison, moves, conversions, cvta,
	// isspacep). Never set with EffCtrl or EffDynamic.
	EffRegs Effects = 1 << iota
	// EffWarp: reads or writes other lanes of its own warp, or the warp's
	// lane masks (shfl, vote, match, redux, elect, activemask,
	// bar.warp.sync, the tensor-core instructions).
	EffWarp
	EffReadShared  // reads the CTA's shared memory
	EffWriteShared // writes the CTA's shared memory
	// EffWriteRemoteShared: may write a peer CTA's shared memory (through
	// a .shared::cluster or generic address).
	EffWriteRemoteShared
	EffReadGlobal  // reads global memory
	EffWriteGlobal // writes global memory
	EffReadLocal   // reads thread-private memory (.local, device-function .param)
	EffWriteLocal  // writes thread-private memory
	EffReadConst   // reads a read-only bank (.const, kernel .param)
	// EffAtomic: an indivisible read-modify-write (atom, red).
	EffAtomic
	// EffAccess: each lane accesses Type.Size()×max(Vec,1) bytes at its
	// address A+Off (ld, ldu, st, atom, red), so the lanes whose access
	// faults can be told in advance (Warp.memFaultLanes).
	EffAccess
	// EffHint: no effect the program can observe (prefetch, discard,
	// applypriority, createpolicy, nanosleep, pmevent).
	EffHint
	EffAsync     // starts, commits or waits for asynchronous work
	EffBlocks    // may make the warp wait for other warps or for asynchronous work
	EffCrossWarp // depends on or changes the state of other warps
	EffSync      // synchronises or orders memory (barriers, fences)
	// EffWarpSync: under independent scheduling the lanes wait for the
	// lanes of their membermask (in slot Op.Mask).
	EffWarpSync
	// EffAligned: a .sync.aligned warp collective: every thread of the
	// warp executes it together.
	EffAligned
	// EffFullBarrier: waits for every thread of the CTA (bar.sync or
	// barrier.sync without a thread count).
	EffFullBarrier
	// EffBarrier: a named barrier of the CTA (bar, barrier: arrive, sync
	// or red); with EffBlocks unless it only arrives.
	EffBarrier
	EffBranch   // goes to Op.Target (bra) or to a table entry (brx.idx, with EffIndirect)
	EffIndirect // the destination is a run-time value (brx.idx, indirect call)
	EffCall     // calls a function
	EffReturn   // ret
	EffExit     // exit
	EffCtrl     // Exec manages the pc itself (Op.Ctrl)
	EffDynamic  // reads a time-dependent special register (Op.Dyn)
	EffTrap     // trap: faults every lane that executes it
	EffBreak    // brkpt: stops a run
	// EffFault: not executed by the emulator; faults when reached.
	EffFault
	// EffCluster: reads the shape of the CTA's cluster and faults for a
	// rank outside it (mapa, getctarank).
	EffCluster
	// EffClusterBarrier: the cluster barrier (barrier.cluster.arrive or
	// .wait); with EffBlocks for a wait.
	EffClusterBarrier
)

// Has reports whether e includes every effect of f.
func (e Effects) Has(f Effects) bool { return e&f == f }

// Any reports whether e includes any effect of f.
func (e Effects) Any(f Effects) bool { return e&f != 0 }

// Memory effects, grouped.
const (
	EffReadMem  = EffReadShared | EffReadGlobal | EffReadLocal | EffReadConst
	EffWriteMem = EffWriteShared | EffWriteRemoteShared | EffWriteGlobal | EffWriteLocal
	EffMem      = EffReadMem | EffWriteMem
	// EffEndsPath: the lanes that execute it do not go on to the next
	// instruction by themselves.
	EffEndsPath = EffBranch | EffIndirect | EffCall | EffReturn | EffExit
)

var effectNames = [...]string{"regs", "warp", "read-shared", "write-shared", "write-remote-shared",
	"read-global", "write-global", "read-local", "write-local", "read-const", "atomic", "access", "hint",
	"async", "blocks", "cross-warp", "sync", "warp-sync", "aligned", "full-barrier", "branch", "indirect",
	"call", "return", "exit", "ctrl", "dynamic", "trap", "break", "fault", "cluster", "cluster-barrier"}

// String lists the effects by name, separated by "|".
func (e Effects) String() string {
	s := ""
	for i, n := range effectNames {
		if e&(1<<i) != 0 {
			if s != "" {
				s += "|"
			}
			s += n
		}
	}
	if s == "" {
		return "none"
	}
	return s
}

// memDir is how an instruction uses its memory (address) operands.
type memDir uint8

const (
	memNone  memDir = iota // no memory operand, or one that is only named (fence.proxy)
	memRead                // every memory operand is read
	memWrite               // every memory operand is written
	memRMW                 // read and written (atom, red)
	memCopy                // operand 0 written, the others read (cp.async)
	memHint                // named, not accessed (prefetch, discard, applypriority)
)

// opEffect is the part of an instruction's effects that its opcode
// decides; lowering adds what its form decides (effectsOf).
type opEffect struct {
	eff Effects
	mem memDir
}

// opEffects holds the opcode-decided effects of every opcode the emulator
// executes (TestEveryOpHasEffects checks none is missing).
var opEffects = func() (t [isa.NumOpcodes]opEffect) {
	set := func(e opEffect, codes ...isa.Opcode) {
		for _, c := range codes {
			t[c] = e
		}
	}
	set(opEffect{eff: EffRegs},
		// integer and extended-precision integer
		isa.OpAdd, isa.OpSub, isa.OpMul, isa.OpMad, isa.OpMul24, isa.OpMad24, isa.OpSad, isa.OpDiv,
		isa.OpRem, isa.OpAbs, isa.OpNeg, isa.OpMin, isa.OpMax, isa.OpPopc, isa.OpClz, isa.OpBfind,
		isa.OpFns, isa.OpBrev, isa.OpBfe, isa.OpBfi, isa.OpBmsk, isa.OpSzext, isa.OpDp4a, isa.OpDp2a,
		isa.OpVshr, isa.OpAddc, isa.OpSubc, isa.OpMadc,
		// floating point
		isa.OpTestp, isa.OpCopysign, isa.OpFma, isa.OpRcp, isa.OpSqrt, isa.OpRsqrt, isa.OpSin,
		isa.OpCos, isa.OpLg2, isa.OpEx2, isa.OpTanh,
		// comparison, selection, logic and shifts
		isa.OpSet, isa.OpSetp, isa.OpSelp, isa.OpSlct, isa.OpAnd, isa.OpOr, isa.OpXor, isa.OpNot,
		isa.OpCnot, isa.OpLop3, isa.OpShf, isa.OpShl, isa.OpShr,
		// moves and conversions (cvta and isspacep only compute addresses)
		isa.OpMov, isa.OpPrmt, isa.OpCvt, isa.OpCvta, isa.OpIsspacep)
	set(opEffect{eff: EffAccess, mem: memRead}, isa.OpLd, isa.OpLdu)
	set(opEffect{eff: EffAccess, mem: memWrite}, isa.OpSt)
	set(opEffect{eff: EffAccess | EffAtomic, mem: memRMW}, isa.OpAtom, isa.OpRed)
	set(opEffect{eff: EffHint, mem: memHint}, isa.OpPrefetch, isa.OpPrefetchu, isa.OpApplypriority, isa.OpDiscard)
	set(opEffect{eff: EffHint}, isa.OpCreatepolicy, isa.OpNanosleep, isa.OpPmevent)
	// setmaxnreg: a register-count hint, checked across the warpgroup (its
	// .aligned rule is checked when it executes: a divergent warp faults);
	// griddepcontrol: a no-op for a single launch.
	set(opEffect{eff: EffWarp | EffCrossWarp}, isa.OpSetmaxnreg)
	set(opEffect{eff: EffHint}, isa.OpGriddepcontrol)
	set(opEffect{eff: EffAsync, mem: memCopy}, isa.OpCpAsync)
	set(opEffect{eff: EffAsync}, isa.OpCpAsyncCommitGroup)
	set(opEffect{eff: EffAsync | EffBlocks}, isa.OpCpAsyncWaitGroup, isa.OpCpAsyncWaitAll)
	set(opEffect{eff: EffWarp}, isa.OpActivemask, isa.OpShfl, isa.OpVote, isa.OpMatch, isa.OpRedux, isa.OpElect)
	set(opEffect{eff: EffWarp | EffWarpSync}, isa.OpBarWarpSync)
	set(opEffect{eff: EffWarp | EffAligned}, isa.OpMma, isa.OpWmmaMma, isa.OpMovmatrix)
	// wgmma: warpgroup collectives (.aligned over the 4 warps, checked as
	// they execute); mma_async reads shared memory through descriptors and
	// queues its result, wait_group lands results (a wait that is over at
	// once).
	set(opEffect{eff: EffWarp | EffAligned | EffCrossWarp | EffAsync}, isa.OpWgmmaFence, isa.OpWgmmaCommitGroup)
	set(opEffect{eff: EffWarp | EffAligned | EffCrossWarp | EffAsync | EffBlocks}, isa.OpWgmmaWaitGroup)
	set(opEffect{eff: EffWarp | EffAligned | EffCrossWarp | EffAsync | EffReadShared}, isa.OpWgmmaMmaAsync)
	set(opEffect{eff: EffWarp | EffAligned, mem: memRead}, isa.OpLdmatrix, isa.OpWmmaLoad)
	set(opEffect{eff: EffWarp | EffAligned, mem: memWrite}, isa.OpStmatrix, isa.OpWmmaStore)
	// tensormap.replace: its memory effects only (a 128-byte read-modify-write
	// of the map); tensormap.cp_fenceproxy: a warp-collective copy and fence.
	set(opEffect{mem: memRMW}, isa.OpTensormapReplace)
	set(opEffect{eff: EffWarp | EffAligned | EffSync, mem: memCopy}, isa.OpTensormapCpFenceproxy)
	set(opEffect{eff: EffSync | EffCrossWarp | EffBlocks | EffBarrier}, isa.OpBar, isa.OpBarrier)
	set(opEffect{eff: EffSync}, isa.OpMembar, isa.OpFence)
	set(opEffect{eff: EffSync | EffCrossWarp | EffBlocks | EffClusterBarrier}, isa.OpBarrierCluster)
	set(opEffect{eff: EffCluster}, isa.OpMapa, isa.OpGetctarank)
	// mbarrier objects: indivisible updates of 8 bytes of shared memory
	// that may complete a phase and wake the warps waiting on it.
	set(opEffect{eff: EffSync | EffCrossWarp, mem: memWrite}, isa.OpMbarrierInit, isa.OpMbarrierInval)
	set(opEffect{eff: EffAtomic | EffSync | EffCrossWarp, mem: memRMW},
		isa.OpMbarrierArrive, isa.OpMbarrierArriveDrop, isa.OpMbarrierExpectTx, isa.OpMbarrierCompleteTx)
	set(opEffect{eff: EffAtomic | EffSync, mem: memRead}, isa.OpMbarrierTestWait)
	set(opEffect{eff: EffAtomic | EffSync | EffCrossWarp | EffBlocks, mem: memRead}, isa.OpMbarrierTryWait)
	set(opEffect{eff: EffRegs}, isa.OpMbarrierPendingCount)
	set(opEffect{eff: EffAsync | EffAtomic | EffSync | EffCrossWarp, mem: memRMW}, isa.OpCpAsyncMbarrierArrive)
	// Bulk and tensor copies (exec_tma_bulk.go): a copy into shared memory
	// reads its source at issue and lands, completing transaction bytes on
	// an mbarrier another warp waits on, later; a copy to global memory is
	// performed at the issuing thread's wait_group (or exit), which never
	// blocks: it performs the copies it waits for.
	set(opEffect{eff: EffAsync | EffSync | EffCrossWarp, mem: memCopy}, isa.OpCpAsyncBulk, isa.OpCpAsyncBulkTensor)
	set(opEffect{eff: EffAsync | EffSync | EffCrossWarp | EffAtomic, mem: memCopy}, isa.OpCpReduceAsyncBulk)
	set(opEffect{eff: EffAsync}, isa.OpCpAsyncBulkCommitGroup, isa.OpCpAsyncBulkWaitGroup)
	set(opEffect{eff: EffBranch}, isa.OpBra)
	set(opEffect{eff: EffBranch | EffIndirect}, isa.OpBrx)
	set(opEffect{eff: EffCall}, isa.OpCall)
	set(opEffect{eff: EffReturn}, isa.OpRet)
	set(opEffect{eff: EffExit}, isa.OpExit)
	set(opEffect{eff: EffTrap}, isa.OpTrap)
	set(opEffect{eff: EffBreak}, isa.OpBrkpt)
	return t
}()

// spaceEffect is the effect of reading (write false) or writing memory in
// state space sp; a generic address may reach any space.
func spaceEffect(sp isa.Space, write bool) Effects {
	switch sp {
	case isa.Global:
		return pick(write, EffWriteGlobal, EffReadGlobal)
	case isa.Shared:
		return pick(write, EffWriteShared, EffReadShared)
	case isa.SharedCluster:
		// Its own shared memory or a peer CTA's.
		return pick(write, EffWriteShared|EffWriteRemoteShared, EffReadShared)
	case isa.Local:
		return pick(write, EffWriteLocal, EffReadLocal)
	case isa.Const:
		// A store to the read-only bank faults; counted as one that may
		// write anything.
		return pick(write, EffWriteMem, EffReadConst)
	case isa.Param:
		// A kernel's parameters (read-only) or, in a device function,
		// thread-private memory.
		return pick(write, EffWriteLocal, EffReadConst|EffReadLocal)
	}
	return pick(write, EffWriteGlobal|EffWriteShared|EffWriteRemoteShared|EffWriteLocal, EffReadMem)
}

func pick(c bool, x, y Effects) Effects {
	if c {
		return x
	}
	return y
}

// effectsOf computes op's effects at lowering, once the binder has filled
// it in: the opcode's, the memory effects of its memory operands (in the
// state spaces they resolved to), and those its form decides.
func effectsOf(op *Op, mems []MemOperand) Effects {
	if int(op.Code) >= len(opEffects) || isa.Info[op.Code].Status != isa.Supported || binders[op.Code] == nil {
		return EffFault
	}
	t := opEffects[op.Code]
	e := t.eff
	for k, m := range mems {
		switch t.mem {
		case memRead:
			e |= spaceEffect(m.Space, false)
		case memWrite:
			e |= spaceEffect(m.Space, true)
		case memRMW:
			e |= spaceEffect(m.Space, false) | spaceEffect(m.Space, true)
		case memCopy:
			e |= spaceEffect(m.Space, k == 0)
		}
	}
	switch op.Code {
	case isa.OpShfl, isa.OpVote, isa.OpMatch, isa.OpRedux, isa.OpElect:
		if op.Flags.Has(isa.FSync) {
			e |= EffWarpSync
			op.Mask = op.E
		}
	case isa.OpBarWarpSync:
		op.Mask = op.A
	case isa.OpBar, isa.OpBarrier:
		if op.Sub == isa.SubArrive {
			e &^= EffBlocks
		}
		if op.Sub == isa.SubSync && op.B < 0 {
			e |= EffFullBarrier
		}
	case isa.OpCpAsyncBulk, isa.OpCpAsyncBulkTensor, isa.OpCpReduceAsyncBulk:
		// Whatever the operands' spaces, a bulk copy may read and write
		// global and (the cluster's) shared memory.
		e |= EffReadGlobal | EffWriteGlobal | EffReadShared | EffWriteShared | EffWriteRemoteShared
	case isa.OpBarrierCluster:
		if op.Sub == isa.SubArrive {
			e &^= EffBlocks
		}
		if op.Flags.Has(isa.FAligned) {
			e |= EffAligned
		}
	}
	if e.Has(EffWarpSync) && op.Mask < 0 {
		e &^= EffWarpSync
	}
	if op.Ctrl {
		e = e&^EffRegs | EffCtrl
	}
	if op.Dyn {
		e = e&^EffRegs | EffDynamic
	}
	return e
}

// Operand is one register operand of a lowered instruction: a slot of the
// value file (Pred false) or of the predicate file, read (Def false) or
// written, of Bits bits (the width the instruction reads or writes; 1 for
// predicates). Immediates and special registers are read-only value slots.
type Operand struct {
	Slot int32
	Bits uint16
	Pred bool
	Def  bool
}

// Uses returns the register operands Ops[pc] reads (its guard included).
func (p *Program) Uses(pc int) []Operand { return p.roles(pc, false) }

// Defs returns the register operands Ops[pc] writes.
func (p *Program) Defs(pc int) []Operand { return p.roles(pc, true) }

func (p *Program) roles(pc int, def bool) []Operand {
	if pc < 0 || pc >= len(p.Operands) {
		return nil
	}
	var out []Operand
	for _, o := range p.Operands[pc] {
		if o.Def == def {
			out = append(out, o)
		}
	}
	return out
}

// record notes a register operand the binder resolved.
func (b *binder) record(slot int32, t isa.Type, def bool) {
	if slot < 0 {
		return
	}
	o := Operand{Slot: slot, Pred: t == isa.Pred, Def: def, Bits: uint16(t.Bits())}
	if o.Pred {
		o.Bits = 1
	}
	for _, x := range b.roles {
		if x == o {
			return
		}
	}
	b.roles = append(b.roles, o)
}

// constSrc returns the slot of an immediate source operand of type t with
// value v, recorded among the instruction's operands.
func (b *binder) constSrc(v uint64, t isa.Type) int32 {
	r := b.c.constant(v)
	b.record(r, t, false)
	return r
}

// operandsOf completes the binder's register operands with those that
// are not bound through it: the guard and a call's arguments, return
// values and indirect callee.
func (b *binder) operandsOf(p *Program) []Operand {
	op := b.op
	if op.Guard >= 0 {
		b.record(op.Guard, isa.Pred, false)
	}
	if op.Code == isa.OpCall && op.Aux >= 0 && int(op.Aux) < len(p.Calls) {
		ci := &p.Calls[op.Aux]
		if ci.Indirect >= 0 {
			b.record(ci.Indirect, p.Regs[ci.Indirect].Type, false)
		}
		arg := func(a CallArg, def bool) {
			if a.Reg < 0 {
				return
			}
			if a.Pred {
				b.record(a.Reg, isa.Pred, def)
				return
			}
			for k := int32(0); k < int32(max(a.Count, 1)); k++ {
				if r := a.Reg + k; int(r) < len(p.Regs) {
					b.record(r, p.Regs[r].Type, def)
				}
			}
		}
		for _, a := range ci.Args {
			arg(a, false)
		}
		for _, r := range ci.Rets {
			arg(r, true)
		}
	}
	return b.roles
}

// How control leaves an instruction, for control-flow graphs (flowKind).
const (
	flowNext  = iota // on to the next instruction
	flowJump         // bra: to Target (and on, where guarded)
	flowTable        // brx.idx: to the entries of its table
	flowEnd          // ret or exit: out of the function
)

// flowKind classifies op's control flow from its effects.
func flowKind(op *Op) int {
	switch e := op.Eff; {
	case e.Has(EffBranch | EffIndirect):
		return flowTable
	case e.Has(EffBranch):
		return flowJump
	case e.Any(EffReturn | EffExit):
		return flowEnd
	}
	return flowNext
}

// The per-lane memory accesses (EffAccess), for fault lanes.
const (
	accessNone = iota
	accessLoad
	accessStore
	accessAtomic
)

// memAccessKind classifies op's per-lane memory access.
func memAccessKind(op *Op) int {
	switch e := op.Eff; {
	case !e.Has(EffAccess):
		return accessNone
	case e.Has(EffAtomic):
		return accessAtomic
	case e.Any(EffWriteMem):
		return accessStore
	}
	return accessLoad
}
