package isa

import "strings"

// Opcode identifies an instruction (without its modifiers). Compound
// instructions whose name spans several dot-separated words ("cp.async",
// "mbarrier.arrive", "bar.warp.sync") have their own opcode.
type Opcode uint16

// Family groups opcodes as the PTX ISA chapters do.
type Family uint8

const (
	FamInt Family = iota
	FamExtInt
	FamFloat
	FamHalf
	FamCompare
	FamLogic
	FamMove
	FamConvert
	FamMemory
	FamControl
	FamAtomic
	FamWarp
	FamSync
	FamTensor
	FamHopper
	FamBlackwell
	FamTexture
	FamMisc
)

var familyNames = []string{"integer", "extended-precision integer", "floating-point", "half-precision",
	"comparison and selection", "logic and shift", "data movement", "conversion", "memory", "control flow",
	"atomic and reduction", "warp-level", "synchronization", "tensor core", "Hopper", "Blackwell", "texture and surface", "miscellaneous"}

func (f Family) String() string { return familyNames[f] }

// Status tells whether the emulator executes an opcode.
type Status uint8

const (
	Supported   Status = iota
	Planned            // recognised; execution arrives with a later feature (tensor cores, Hopper)
	Unsupported        // recognised; not emulated (textures, surfaces, ...)
)

// OpInfo describes an opcode.
type OpInfo struct {
	Name   string
	Family Family
	Status Status
	Syntax string // the form(s) as the PTX ISA writes them
	Doc    string // one-line description for hover documentation
}

// The opcodes.
const (
	OpInvalid Opcode = iota
	OpAdd
	OpSub
	OpMul
	OpMad
	OpMul24
	OpMad24
	OpSad
	OpDiv
	OpRem
	OpAbs
	OpNeg
	OpMin
	OpMax
	OpPopc
	OpClz
	OpBfind
	OpFns
	OpBrev
	OpBfe
	OpBfi
	OpBmsk
	OpSzext
	OpDp4a
	OpDp2a
	OpAddc
	OpSubc
	OpMadc
	OpTestp
	OpCopysign
	OpFma
	OpRcp
	OpSqrt
	OpRsqrt
	OpSin
	OpCos
	OpLg2
	OpEx2
	OpTanh
	OpSet
	OpSetp
	OpSelp
	OpSlct
	OpAnd
	OpOr
	OpXor
	OpNot
	OpCnot
	OpLop3
	OpShf
	OpShl
	OpShr
	OpMov
	OpShfl
	OpPrmt
	OpLd
	OpLdu
	OpSt
	OpPrefetch
	OpPrefetchu
	OpIsspacep
	OpCvta
	OpCvt
	OpMapa
	OpGetctarank
	OpCpAsync
	OpCpAsyncCommitGroup
	OpCpAsyncWaitGroup
	OpCpAsyncWaitAll
	OpCpAsyncBulk
	OpCpAsyncBulkTensor
	OpCpAsyncBulkCommitGroup
	OpCpAsyncBulkWaitGroup
	OpCpAsyncMbarrierArrive
	OpCpReduceAsyncBulk
	OpStAsync
	OpRedAsync
	OpDiscard
	OpApplypriority
	OpCreatepolicy
	OpBra
	OpBrx
	OpCall
	OpRet
	OpExit
	OpBar
	OpBarrier
	OpBarWarpSync
	OpBarrierCluster
	OpMembar
	OpFence
	OpAtom
	OpRed
	OpVote
	OpMatch
	OpActivemask
	OpRedux
	OpElect
	OpMbarrierInit
	OpMbarrierInval
	OpMbarrierArrive
	OpMbarrierArriveDrop
	OpMbarrierExpectTx
	OpMbarrierCompleteTx
	OpMbarrierTestWait
	OpMbarrierTryWait
	OpMbarrierPendingCount
	OpMma
	OpWmmaLoad
	OpWmmaStore
	OpWmmaMma
	OpLdmatrix
	OpStmatrix
	OpMovmatrix
	OpWgmmaFence
	OpWgmmaCommitGroup
	OpWgmmaWaitGroup
	OpWgmmaMmaAsync
	OpTensormapReplace
	OpTensormapCpFenceproxy
	OpSetmaxnreg
	OpGriddepcontrol
	OpTcgen05Alloc
	OpTcgen05Dealloc
	OpTcgen05RelinquishAllocPermit
	OpTcgen05Mma
	OpTcgen05MmaWs
	OpTcgen05MmaSp
	OpTcgen05MmaWsSp
	OpTcgen05Ld
	OpTcgen05St
	OpTcgen05Cp
	OpTcgen05Shift
	OpTcgen05Commit
	OpTcgen05WaitLd
	OpTcgen05WaitSt
	OpTcgen05FenceBefore
	OpTcgen05FenceAfter
	OpTex
	OpTld4
	OpTxq
	OpSuld
	OpSust
	OpSured
	OpSuq
	OpIstypep
	OpNanosleep
	OpTrap
	OpBrkpt
	OpPmevent
	OpAlloca
	OpStacksave
	OpStackrestore
	OpVadd
	OpVsub
	OpVabsdiff
	OpVmin
	OpVmax
	OpVshl
	OpVshr
	OpVmad
	OpVset
	NumOpcodes
)

// Info holds the description of every opcode, indexed by Opcode.
var Info = [NumOpcodes]OpInfo{
	OpAdd:                          {"add", FamInt, Supported, "add{.sat}{.cc}.type d, a, b; add{.rnd}{.ftz}{.sat}.f32 d, a, b;", "Add two values."},
	OpSub:                          {"sub", FamInt, Supported, "sub{.sat}{.cc}.type d, a, b; sub{.rnd}{.ftz}{.sat}.f32 d, a, b;", "Subtract b from a."},
	OpMul:                          {"mul", FamInt, Supported, "mul.mode.type d, a, b; (mode: .hi .lo .wide); mul{.rnd}{.ftz}{.sat}.f32", "Multiply; integers keep the high, low or wide (double-width) half."},
	OpMad:                          {"mad", FamInt, Supported, "mad.mode{.sat}{.cc}.type d, a, b, c; mad.rnd{.ftz}{.sat}.f32", "Multiply and add: d = a*b + c."},
	OpMul24:                        {"mul24", FamInt, Supported, "mul24.mode.type d, a, b; (mode: .hi .lo)", "Multiply the low 24 bits of two 32-bit integers."},
	OpMad24:                        {"mad24", FamInt, Supported, "mad24.mode{.sat}.type d, a, b, c;", "24-bit multiply and add."},
	OpSad:                          {"sad", FamInt, Supported, "sad.type d, a, b, c;", "Sum of absolute difference: d = c + |a - b|."},
	OpDiv:                          {"div", FamInt, Supported, "div.type d, a, b; div.approx{.ftz}.f32; div.full{.ftz}.f32; div.rnd{.ftz}.f32; div.rnd.f64", "Divide a by b."},
	OpRem:                          {"rem", FamInt, Supported, "rem.type d, a, b;", "Remainder of integer division (sign of a)."},
	OpAbs:                          {"abs", FamInt, Supported, "abs.type d, a; abs{.ftz}.f32 d, a;", "Absolute value."},
	OpNeg:                          {"neg", FamInt, Supported, "neg.type d, a; neg{.ftz}.f32 d, a;", "Arithmetic negation."},
	OpMin:                          {"min", FamInt, Supported, "min.type d, a, b; min{.ftz}{.NaN}{.xorsign.abs}.f32 d, a, b;", "Minimum of two values (floats: a NaN input yields the other input)."},
	OpMax:                          {"max", FamInt, Supported, "max.type d, a, b; max{.ftz}{.NaN}{.xorsign.abs}.f32 d, a, b;", "Maximum of two values (floats: a NaN input yields the other input)."},
	OpPopc:                         {"popc", FamInt, Supported, "popc.type d, a; (.b32 .b64; d is .u32)", "Population count: the number of one bits."},
	OpClz:                          {"clz", FamInt, Supported, "clz.type d, a; (.b32 .b64; d is .u32)", "Count leading zeros."},
	OpBfind:                        {"bfind", FamInt, Supported, "bfind{.shiftamt}.type d, a;", "Position of the most significant non-sign bit (0xffffffff if none)."},
	OpFns:                          {"fns", FamInt, Supported, "fns.b32 d, mask, base, offset;", "Find the n-th set bit."},
	OpBrev:                         {"brev", FamInt, Supported, "brev.type d, a;", "Reverse the order of bits."},
	OpBfe:                          {"bfe", FamInt, Supported, "bfe.type d, a, b, c;", "Bit field extract: c bits from position b, sign- or zero-extended."},
	OpBfi:                          {"bfi", FamInt, Supported, "bfi.type f, a, b, c, d;", "Bit field insert: d bits of a into b at position c."},
	OpBmsk:                         {"bmsk", FamInt, Supported, "bmsk.mode.b32 d, a, b; (mode: .clamp .wrap)", "Bit mask of b ones starting at bit a."},
	OpSzext:                        {"szext", FamInt, Supported, "szext.mode.type d, a, b; (mode: .clamp .wrap)", "Sign- or zero-extend the low b bits of a."},
	OpDp4a:                         {"dp4a", FamInt, Supported, "dp4a.atype.btype d, a, b, c;", "Four-way byte dot product accumulated into 32 bits."},
	OpDp2a:                         {"dp2a", FamInt, Supported, "dp2a.mode.atype.btype d, a, b, c;", "Two-way 16x8-bit dot product accumulated into 32 bits."},
	OpAddc:                         {"addc", FamExtInt, Supported, "addc{.cc}.type d, a, b;", "Add with carry-in (from a preceding .cc instruction)."},
	OpSubc:                         {"subc", FamExtInt, Supported, "subc{.cc}.type d, a, b;", "Subtract with borrow-in."},
	OpMadc:                         {"madc", FamExtInt, Supported, "madc{.hi,.lo}{.cc}.type d, a, b, c;", "Multiply and add with carry-in."},
	OpTestp:                        {"testp", FamFloat, Supported, "testp.op.type p, a; (op: .finite .infinite .number .notanumber .normal .subnormal)", "Test a floating-point property."},
	OpCopysign:                     {"copysign", FamFloat, Supported, "copysign.type d, a, b;", "b with the sign of a."},
	OpFma:                          {"fma", FamFloat, Supported, "fma.rnd{.ftz}{.sat}.f32 d, a, b, c; fma.rnd.f64; fma.rnd{.ftz}{.sat|.relu}.f16/.f16x2/.bf16/.bf16x2", "Fused multiply-add with a single rounding."},
	OpRcp:                          {"rcp", FamFloat, Supported, "rcp.approx{.ftz}.f32 d, a; rcp.rnd{.ftz}.f32; rcp.rnd.f64; rcp.approx.ftz.f64", "Reciprocal 1/a."},
	OpSqrt:                         {"sqrt", FamFloat, Supported, "sqrt.approx{.ftz}.f32 d, a; sqrt.rnd{.ftz}.f32; sqrt.rnd.f64", "Square root."},
	OpRsqrt:                        {"rsqrt", FamFloat, Supported, "rsqrt.approx{.ftz}.f32 d, a; rsqrt.approx.f64; rsqrt.approx.ftz.f64", "Reciprocal square root."},
	OpSin:                          {"sin", FamFloat, Supported, "sin.approx{.ftz}.f32 d, a;", "Approximate sine (radians)."},
	OpCos:                          {"cos", FamFloat, Supported, "cos.approx{.ftz}.f32 d, a;", "Approximate cosine (radians)."},
	OpLg2:                          {"lg2", FamFloat, Supported, "lg2.approx{.ftz}.f32 d, a;", "Approximate base-2 logarithm."},
	OpEx2:                          {"ex2", FamFloat, Supported, "ex2.approx{.ftz}.f32 d, a; ex2.approx.atype (f16, f16x2, bf16, bf16x2)", "Approximate base-2 exponential."},
	OpTanh:                         {"tanh", FamFloat, Supported, "tanh.approx.type d, a; (.f32 .f16 .f16x2 .bf16 .bf16x2)", "Approximate hyperbolic tangent."},
	OpSet:                          {"set", FamCompare, Supported, "set.CmpOp{.ftz}.dtype.stype d, a, b{, {!}c};", "Compare and write a number (1.0 or all ones for true, 0 for false)."},
	OpSetp:                         {"setp", FamCompare, Supported, "setp.CmpOp{.ftz}.type p{|q}, a, b{, {!}c};", "Compare and set predicates (with an optional boolean combine)."},
	OpSelp:                         {"selp", FamCompare, Supported, "selp.type d, a, b, c;", "Select a if predicate c is true, else b."},
	OpSlct:                         {"slct", FamCompare, Supported, "slct{.ftz}.dtype.s32/.f32 d, a, b, c;", "Select a if c >= 0, else b."},
	OpAnd:                          {"and", FamLogic, Supported, "and.type d, a, b;", "Bitwise AND (logical for .pred)."},
	OpOr:                           {"or", FamLogic, Supported, "or.type d, a, b;", "Bitwise OR (logical for .pred)."},
	OpXor:                          {"xor", FamLogic, Supported, "xor.type d, a, b;", "Bitwise exclusive OR."},
	OpNot:                          {"not", FamLogic, Supported, "not.type d, a;", "Bitwise complement (logical for .pred)."},
	OpCnot:                         {"cnot", FamLogic, Supported, "cnot.type d, a;", "C logical not: 1 if a is zero, else 0."},
	OpLop3:                         {"lop3", FamLogic, Supported, "lop3.b32 d, a, b, c, immLut;", "Arbitrary three-input logic function given by an 8-bit truth table."},
	OpShf:                          {"shf", FamLogic, Supported, "shf.l.mode.b32 d, a, b, c; shf.r.mode.b32 d, a, b, c; (mode: .clamp .wrap)", "Funnel shift of the 64-bit pair b:a."},
	OpShl:                          {"shl", FamLogic, Supported, "shl.type d, a, b;", "Shift left (amounts past the width give zero)."},
	OpShr:                          {"shr", FamLogic, Supported, "shr.type d, a, b;", "Shift right, arithmetic for signed types."},
	OpMov:                          {"mov", FamMove, Supported, "mov.type d, a; (a: register, immediate, special register, or a variable's address)", "Move a value or an address."},
	OpShfl:                         {"shfl", FamWarp, Supported, "shfl.sync.mode.b32 d{|p}, a, b, c, membermask;", "Exchange registers between the lanes of a warp."},
	OpPrmt:                         {"prmt", FamMove, Supported, "prmt.b32{.mode} d, a, b, c;", "Permute bytes of the pair {b, a}."},
	OpLd:                           {"ld", FamMemory, Supported, "ld{.weak,.volatile,.relaxed.scope,.acquire.scope}{.ss}{.cop}{.vec}.type d, [a];", "Load from memory."},
	OpLdu:                          {"ldu", FamMemory, Supported, "ldu{.ss}{.vec}.type d, [a];", "Load a value uniform across the warp."},
	OpSt:                           {"st", FamMemory, Supported, "st{.weak,.volatile,.relaxed.scope,.release.scope}{.ss}{.cop}{.vec}.type [a], b;", "Store to memory."},
	OpPrefetch:                     {"prefetch", FamMemory, Supported, "prefetch{.space}.level [a]; prefetch{.const,.param}.tensormap [a];", "Prefetch a line into a cache level (no effect in the emulator)."},
	OpPrefetchu:                    {"prefetchu", FamMemory, Supported, "prefetchu.L1 [a];", "Prefetch to the uniform cache (no effect in the emulator)."},
	OpIsspacep:                     {"isspacep", FamMemory, Supported, "isspacep.space p, a;", "Test whether a generic address falls in a state space's window."},
	OpCvta:                         {"cvta", FamMemory, Supported, "cvta.space.size p, a; cvta.to.space.size p, a;", "Convert between state-space and generic addresses."},
	OpCvt:                          {"cvt", FamConvert, Supported, "cvt{.irnd|.frnd}{.ftz}{.sat}.dtype.atype d, a; cvt.frnd{.relu}{.satfinite}.f16x2.f32 d, a, b; cvt.pack.sat...", "Convert between types."},
	OpMapa:                         {"mapa", FamHopper, Supported, "mapa{.space}.type d, a, b;", "Map a shared address to the corresponding address in another CTA of the cluster."},
	OpGetctarank:                   {"getctarank", FamHopper, Supported, "getctarank{.space}.type d, a;", "CTA rank of the CTA that owns a shared::cluster address."},
	OpCpAsync:                      {"cp.async", FamMemory, Supported, "cp.async.ca.shared{::cta}.global [dst], [src], cp-size{, src-size};", "Asynchronous copy from global to shared memory."},
	OpCpAsyncCommitGroup:           {"cp.async.commit_group", FamMemory, Supported, "cp.async.commit_group;", "Commit the pending cp.async operations as a group."},
	OpCpAsyncWaitGroup:             {"cp.async.wait_group", FamMemory, Supported, "cp.async.wait_group N;", "Wait until at most N cp.async groups are pending."},
	OpCpAsyncWaitAll:               {"cp.async.wait_all", FamMemory, Supported, "cp.async.wait_all;", "Wait for every pending cp.async operation."},
	OpCpAsyncBulk:                  {"cp.async.bulk", FamHopper, Supported, "cp.async.bulk.dst.src.completion_mechanism [dstMem], [srcMem], size, [mbar];", "Bulk asynchronous copy (TMA engine)."},
	OpCpAsyncBulkTensor:            {"cp.async.bulk.tensor", FamHopper, Supported, "cp.async.bulk.tensor.dim.dst.src{.load_mode}.completion_mechanism [dstMem], [tensorMap, coords], [mbar];", "Bulk tensor copy with a tensor map (TMA)."},
	OpCpAsyncBulkCommitGroup:       {"cp.async.bulk.commit_group", FamHopper, Supported, "cp.async.bulk.commit_group;", "Commit bulk async operations as a group."},
	OpCpAsyncBulkWaitGroup:         {"cp.async.bulk.wait_group", FamHopper, Supported, "cp.async.bulk.wait_group{.read} N;", "Wait for bulk async groups."},
	OpCpAsyncMbarrierArrive:        {"cp.async.mbarrier.arrive", FamHopper, Supported, "cp.async.mbarrier.arrive{.noinc}{.shared{::cta}}.b64 [addr];", "Arrive on an mbarrier when prior cp.async operations complete."},
	OpCpReduceAsyncBulk:            {"cp.reduce.async.bulk", FamHopper, Supported, "cp.reduce.async.bulk.dst.src.completion_mechanism.redOp.type [dstMem], [srcMem], size;", "Bulk asynchronous reduction."},
	OpStAsync:                      {"st.async", FamHopper, Planned, "st.async{.weak}{.shared::cluster}{.mbarrier::complete_tx::bytes}{.vec}.type [a], b, [mbar];", "Asynchronous store to distributed shared memory."},
	OpRedAsync:                     {"red.async", FamHopper, Planned, "red.async.relaxed.cluster{.ss}{.completion_mechanism}.op.type [a], b, [mbar];", "Asynchronous reduction on distributed shared memory."},
	OpDiscard:                      {"discard", FamMemory, Supported, "discard.global.L2 [a], 128;", "Discard a cache line (no effect in the emulator)."},
	OpApplypriority:                {"applypriority", FamMemory, Supported, "applypriority{.global}.level::eviction_priority [a], size;", "Set an eviction priority (no effect in the emulator)."},
	OpCreatepolicy:                 {"createpolicy", FamMemory, Supported, "createpolicy.fractional.L2::primary{.L2::secondary}.b64 policy{, fraction};", "Create a cache eviction policy (an opaque value in the emulator)."},
	OpBra:                          {"bra", FamControl, Supported, "@p bra{.uni} tgt;", "Branch to a label; lanes whose guard differs diverge."},
	OpBrx:                          {"brx.idx", FamControl, Supported, "@p brx.idx{.uni} index, tlist;", "Indirect branch through a list of labels."},
	OpCall:                         {"call", FamControl, Supported, "call{.uni} (ret-param), func, (param-list);", "Call a function."},
	OpRet:                          {"ret", FamControl, Supported, "ret{.uni};", "Return from a function (in a kernel: exit)."},
	OpExit:                         {"exit", FamControl, Supported, "exit;", "Terminate the thread."},
	OpBar:                          {"bar", FamSync, Supported, "bar{.cta}.sync a{, b}; bar{.cta}.arrive a, b; bar{.cta}.red.op.pred p, a{, b}, {!}c;", "CTA-wide barrier (legacy name of barrier)."},
	OpBarrier:                      {"barrier", FamSync, Supported, "barrier{.cta}{.aligned}.sync a{, b}; barrier{.cta}.arrive a, b; barrier{.cta}.red.op.pred p, a{, b}, {!}c;", "CTA-wide barrier."},
	OpBarWarpSync:                  {"bar.warp.sync", FamSync, Supported, "bar.warp.sync membermask;", "Synchronize the lanes of a warp named by membermask."},
	OpBarrierCluster:               {"barrier.cluster", FamHopper, Supported, "barrier.cluster.arrive{.relaxed}{.aligned}; barrier.cluster.wait{.acquire}{.aligned};", "Cluster-wide barrier."},
	OpMembar:                       {"membar", FamSync, Supported, "membar.level; (.cta .gl .sys)", "Memory barrier (an ordering point; the emulator is sequentially consistent)."},
	OpFence:                        {"fence", FamSync, Supported, "fence{.sem}.scope; fence.mbarrier_init.release.cluster; fence.proxy.proxykind; fence.proxy.tensormap::generic.acquire.scope [a], 128;", "Memory fence (an ordering point; the emulator is sequentially consistent)."},
	OpAtom:                         {"atom", FamAtomic, Supported, "atom{.sem}{.scope}{.space}.op.type d, [a], b{, c};", "Atomic read-modify-write; d receives the old value."},
	OpRed:                          {"red", FamAtomic, Supported, "red{.sem}{.scope}{.space}.op.type [a], b;", "Atomic reduction into memory."},
	OpVote:                         {"vote", FamWarp, Supported, "vote.sync.mode.pred d, {!}a, membermask; vote.sync.ballot.b32 d, {!}a, membermask;", "Vote across the lanes of a warp."},
	OpMatch:                        {"match", FamWarp, Supported, "match.any.sync.type d, a, membermask; match.all.sync.type d{|p}, a, membermask;", "Lanes of the warp holding the same value."},
	OpActivemask:                   {"activemask", FamWarp, Supported, "activemask.b32 d;", "Mask of the currently active lanes of the warp."},
	OpRedux:                        {"redux", FamWarp, Supported, "redux.sync.op.type d, a, membermask;", "Reduce a value across the lanes of a warp."},
	OpElect:                        {"elect", FamWarp, Supported, "elect.sync d|p, membermask;", "Elect one leader lane (the lowest) of membermask."},
	OpMbarrierInit:                 {"mbarrier.init", FamHopper, Supported, "mbarrier.init{.shared{::cta}}.b64 [addr], count;", "Initialize an mbarrier object."},
	OpMbarrierInval:                {"mbarrier.inval", FamHopper, Supported, "mbarrier.inval{.shared{::cta}}.b64 [addr];", "Invalidate an mbarrier object."},
	OpMbarrierArrive:               {"mbarrier.arrive", FamHopper, Supported, "mbarrier.arrive{.sem}{.scope}{.shared{::cta}}.b64 state, [addr]{, count};", "Arrive on an mbarrier object."},
	OpMbarrierArriveDrop:           {"mbarrier.arrive_drop", FamHopper, Supported, "mbarrier.arrive_drop{.sem}{.scope}{.shared{::cta}}.b64 state, [addr]{, count};", "Arrive and drop out of an mbarrier's expected count."},
	OpMbarrierExpectTx:             {"mbarrier.expect_tx", FamHopper, Supported, "mbarrier.expect_tx{.sem}{.scope}{.space}.b64 [addr], txCount;", "Raise an mbarrier's expected transaction count."},
	OpMbarrierCompleteTx:           {"mbarrier.complete_tx", FamHopper, Supported, "mbarrier.complete_tx{.sem}{.scope}{.space}.b64 [addr], txCount;", "Complete transactions on an mbarrier."},
	OpMbarrierTestWait:             {"mbarrier.test_wait", FamHopper, Supported, "mbarrier.test_wait{.parity}{.sem}{.scope}{.shared{::cta}}.b64 waitComplete, [addr], state|phaseParity;", "Test whether an mbarrier phase completed."},
	OpMbarrierTryWait:              {"mbarrier.try_wait", FamHopper, Supported, "mbarrier.try_wait{.parity}{.sem}{.scope}{.shared{::cta}}.b64 waitComplete, [addr], state|phaseParity{, suspendTimeHint};", "Wait (with a time limit) for an mbarrier phase."},
	OpMbarrierPendingCount:         {"mbarrier.pending_count", FamHopper, Supported, "mbarrier.pending_count.b64 count, state;", "Pending arrivals of an mbarrier state."},
	OpMma:                          {"mma", FamTensor, Supported, "mma.sync.aligned.shape.alayout.blayout.dtype.atype.btype.ctype d, a, b, c;", "Warp-level matrix multiply-accumulate on tensor cores."},
	OpWmmaLoad:                     {"wmma.load", FamTensor, Supported, "wmma.load.{a,b,c}.sync.aligned.layout.shape{.ss}.type r, [p]{, stride};", "Load a WMMA matrix fragment."},
	OpWmmaStore:                    {"wmma.store", FamTensor, Supported, "wmma.store.d.sync.aligned.layout.shape{.ss}.type [p], r{, stride};", "Store a WMMA matrix fragment."},
	OpWmmaMma:                      {"wmma.mma", FamTensor, Supported, "wmma.mma.sync.aligned.alayout.blayout.shape.dtype.ctype d, a, b, c;", "WMMA matrix multiply-accumulate."},
	OpLdmatrix:                     {"ldmatrix", FamTensor, Supported, "ldmatrix.sync.aligned.shape.num{.trans}{.ss}.type r, [p];", "Collectively load 8x8 matrices from shared memory into mma fragments."},
	OpStmatrix:                     {"stmatrix", FamTensor, Supported, "stmatrix.sync.aligned.shape.num{.trans}{.ss}.type [p], r;", "Collectively store 8x8 matrices from fragments to shared memory."},
	OpMovmatrix:                    {"movmatrix", FamTensor, Supported, "movmatrix.sync.aligned.m8n8.trans.b16 d, a;", "Transpose an 8x8 matrix held in a warp's registers."},
	OpWgmmaFence:                   {"wgmma.fence", FamHopper, Supported, "wgmma.fence.sync.aligned;", "Order register accesses before wgmma.mma_async."},
	OpWgmmaCommitGroup:             {"wgmma.commit_group", FamHopper, Supported, "wgmma.commit_group.sync.aligned;", "Commit pending wgmma operations as a group."},
	OpWgmmaWaitGroup:               {"wgmma.wait_group", FamHopper, Supported, "wgmma.wait_group.sync.aligned N;", "Wait for wgmma groups."},
	OpWgmmaMmaAsync:                {"wgmma.mma_async", FamHopper, Supported, "wgmma.mma_async.sync.aligned.shape.dtype.atype.btype d, a-desc, b-desc, scale-d, imm-scale-a, imm-scale-b{, imm-trans-a, imm-trans-b};", "Warpgroup-level asynchronous matrix multiply-accumulate."},
	OpTensormapReplace:             {"tensormap.replace", FamHopper, Supported, "tensormap.replace.tile.field{.ss}.b1024.type [addr], {ord,} new_val;", "Modify a field of a tensor map (every field; ord for .box_dim, .global_dim, .global_stride, .element_stride)."},
	OpTensormapCpFenceproxy:        {"tensormap.cp_fenceproxy", FamHopper, Supported, "tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.scope.sync.aligned [dst], [src], 128;", "Copy a tensor map from shared to global memory with a release fence of the tensormap proxy."},
	OpSetmaxnreg:                   {"setmaxnreg", FamHopper, Supported, "setmaxnreg.action.sync.aligned.u32 imm-reg-count;", "Hint to change the number of registers owned by the warp (checked; the emulator's registers are not limited)."},
	OpGriddepcontrol:               {"griddepcontrol", FamHopper, Supported, "griddepcontrol.action; (.launch_dependents .wait)", "Programmatic dependent launch control (a no-op for a single launch)."},
	OpTcgen05Alloc:                 {"tcgen05.alloc", FamBlackwell, Planned, "tcgen05.alloc.cta_group::{1,2}.sync.aligned.shared::cta.b32 [dst], nCols;", "Allocate tensor memory columns; their address is written to shared memory at dst."},
	OpTcgen05Dealloc:               {"tcgen05.dealloc", FamBlackwell, Planned, "tcgen05.dealloc.cta_group::{1,2}.sync.aligned.b32 taddr, nCols;", "Free tensor memory columns."},
	OpTcgen05RelinquishAllocPermit: {"tcgen05.relinquish_alloc_permit", FamBlackwell, Planned, "tcgen05.relinquish_alloc_permit.cta_group::{1,2}.sync.aligned;", "Give up the CTA's right to allocate tensor memory."},
	OpTcgen05Mma:                   {"tcgen05.mma", FamBlackwell, Planned, "tcgen05.mma.cta_group::{1,2}.kind{.block_scale{.scale_vec::NX}} [d-tmem], a-desc|[a-tmem], b-desc, idesc{, [scale-a-tmem], [scale-b-tmem]}{, disable-output-lane}, enable-input-d{, scale-input-d};", "Fifth-generation tensor-core matrix multiply-accumulate into tensor memory."},
	OpTcgen05MmaWs:                 {"tcgen05.mma.ws", FamBlackwell, Planned, "tcgen05.mma.ws.cta_group::1.kind{.collector::b0::usage} [d-tmem], a-desc|[a-tmem], b-desc, idesc, enable-input-d{, zero-column-mask-desc};", "Weight-stationary tcgen05 matrix multiply-accumulate."},
	OpTcgen05MmaSp:                 {"tcgen05.mma.sp", FamBlackwell, Planned, "tcgen05.mma.sp.cta_group::{1,2}.kind{.block_scale} [d-tmem], a-desc|[a-tmem], b-desc, [sp-meta-tmem], idesc, ... enable-input-d{, scale-input-d};", "Sparse tcgen05 matrix multiply-accumulate."},
	OpTcgen05MmaWsSp:               {"tcgen05.mma.ws.sp", FamBlackwell, Planned, "tcgen05.mma.ws.sp.cta_group::1.kind [d-tmem], a-desc|[a-tmem], b-desc, [sp-meta-tmem], idesc, enable-input-d{, zero-column-mask-desc};", "Sparse weight-stationary tcgen05 matrix multiply-accumulate."},
	OpTcgen05Ld:                    {"tcgen05.ld", FamBlackwell, Planned, "tcgen05.ld.sync.aligned.shape.num{.pack::16b}.b32 r, [taddr]{, immHalfSplitoff};", "Load from tensor memory into registers."},
	OpTcgen05St:                    {"tcgen05.st", FamBlackwell, Planned, "tcgen05.st.sync.aligned.shape.num{.unpack::16b}.b32 [taddr]{, immHalfSplitoff}, r;", "Store registers into tensor memory."},
	OpTcgen05Cp:                    {"tcgen05.cp", FamBlackwell, Planned, "tcgen05.cp.cta_group::{1,2}.shape{.multicast}{.dst_fmt.src_fmt} [taddr], s-desc;", "Copy a matrix from shared memory into tensor memory."},
	OpTcgen05Shift:                 {"tcgen05.shift", FamBlackwell, Planned, "tcgen05.shift.cta_group::{1,2}.down [taddr];", "Shift the rows of a tensor-memory matrix down by one."},
	OpTcgen05Commit:                {"tcgen05.commit", FamBlackwell, Planned, "tcgen05.commit.cta_group::{1,2}.mbarrier::arrive::one{.shared::cluster}{.multicast::cluster}.b64 [mbar]{, ctaMask};", "Arrive on an mbarrier when the thread's prior tcgen05 operations complete."},
	OpTcgen05WaitLd:                {"tcgen05.wait::ld", FamBlackwell, Planned, "tcgen05.wait::ld.sync.aligned;", "Wait for the thread's prior tcgen05.ld operations."},
	OpTcgen05WaitSt:                {"tcgen05.wait::st", FamBlackwell, Planned, "tcgen05.wait::st.sync.aligned;", "Wait for the thread's prior tcgen05.st operations."},
	OpTcgen05FenceBefore:           {"tcgen05.fence::before_thread_sync", FamBlackwell, Planned, "tcgen05.fence::before_thread_sync;", "Order prior tcgen05 operations before a following thread synchronisation."},
	OpTcgen05FenceAfter:            {"tcgen05.fence::after_thread_sync", FamBlackwell, Planned, "tcgen05.fence::after_thread_sync;", "Order later tcgen05 operations after a preceding thread synchronisation."},
	OpTex:                          {"tex", FamTexture, Unsupported, "tex.geom.v4.dtype.ctype d, [a, c];", "Texture fetch."},
	OpTld4:                         {"tld4", FamTexture, Unsupported, "tld4.comp.2d.v4.dtype.f32 d, [a, c];", "Texture fetch of a 2x2 footprint."},
	OpTxq:                          {"txq", FamTexture, Unsupported, "txq.tquery.b32 d, [a];", "Query texture attributes."},
	OpSuld:                         {"suld", FamTexture, Unsupported, "suld.b.geom{.cop}.vec.dtype.clamp d, [a, b];", "Surface load."},
	OpSust:                         {"sust", FamTexture, Unsupported, "sust.b.geom{.cop}.vec.ctype.clamp [a, b], c;", "Surface store."},
	OpSured:                        {"sured", FamTexture, Unsupported, "sured.b.op.geom.ctype.clamp [a, b], c;", "Surface reduction."},
	OpSuq:                          {"suq", FamTexture, Unsupported, "suq.query.b32 d, [a];", "Query surface attributes."},
	OpIstypep:                      {"istypep", FamTexture, Unsupported, "istypep.type p, a;", "Test whether an opaque handle is a texture, sampler or surface."},
	OpNanosleep:                    {"nanosleep", FamMisc, Supported, "nanosleep.u32 t;", "Suspend the thread for about t nanoseconds (advances %globaltimer in the emulator)."},
	OpTrap:                         {"trap", FamMisc, Supported, "trap;", "Abort execution with an error (a fault in the emulator)."},
	OpBrkpt:                        {"brkpt", FamMisc, Supported, "brkpt;", "Suspend execution (pauses the emulator like a breakpoint)."},
	OpPmevent:                      {"pmevent", FamMisc, Supported, "pmevent a; pmevent.mask a;", "Trigger a performance-monitor event (no effect in the emulator)."},
	OpAlloca:                       {"alloca", FamMisc, Unsupported, "alloca.type ptr, size{, immAlign};", "Allocate local memory on the stack."},
	OpStacksave:                    {"stacksave", FamMisc, Unsupported, "stacksave.type d;", "Save the stack pointer."},
	OpStackrestore:                 {"stackrestore", FamMisc, Unsupported, "stackrestore.type a;", "Restore the stack pointer."},
	OpVadd:                         {"vadd", FamInt, Unsupported, "vadd.dtype.atype.btype{.sat} d, a{.asel}, b{.bsel};", "Legacy video instruction: add."},
	OpVsub:                         {"vsub", FamInt, Unsupported, "vsub.dtype.atype.btype{.sat} d, a, b;", "Legacy video instruction: subtract."},
	OpVabsdiff:                     {"vabsdiff", FamInt, Unsupported, "vabsdiff.dtype.atype.btype{.sat} d, a, b;", "Legacy video instruction: absolute difference."},
	OpVmin:                         {"vmin", FamInt, Unsupported, "vmin.dtype.atype.btype d, a, b;", "Legacy video instruction: minimum."},
	OpVmax:                         {"vmax", FamInt, Unsupported, "vmax.dtype.atype.btype d, a, b;", "Legacy video instruction: maximum."},
	OpVshl:                         {"vshl", FamInt, Unsupported, "vshl.dtype.atype.u32{.sat}.mode d, a, b;", "Legacy video instruction: shift left."},
	OpVshr:                         {"vshr", FamInt, Supported, "vshr.dtype.atype.u32{.sat}.mode d, a, b; (mode .clamp .wrap)", "Legacy video instruction: shift right."},
	OpVmad:                         {"vmad", FamInt, Unsupported, "vmad.dtype.atype.btype{.sat}{.scale} d, a, b, c;", "Legacy video instruction: multiply-add."},
	OpVset:                         {"vset", FamInt, Unsupported, "vset.atype.btype.cmp d, a, b;", "Legacy video instruction: compare."},
}

func (o Opcode) String() string {
	if o < NumOpcodes && Info[o].Name != "" {
		return Info[o].Name
	}
	return "?"
}

var byName = func() map[string]Opcode {
	m := make(map[string]Opcode, NumOpcodes)
	for o := Opcode(1); o < NumOpcodes; o++ {
		m[Info[o].Name] = o
	}
	return m
}()

// maxCompound is the most modifiers a compound opcode name consumes.
const maxCompound = 3

// Lookup finds the opcode of an instruction from its base name and modifier
// words: the longest compound name wins ("cp" + ["async","bulk","tensor",...]
// is cp.async.bulk.tensor). It returns the opcode and how many modifiers the
// name consumed, or OpInvalid.
func Lookup(base string, mods []string) (Opcode, int) {
	for n := min(maxCompound, len(mods)); n > 0; n-- {
		name := base + "." + strings.Join(mods[:n], ".")
		if o, ok := byName[name]; ok {
			return o, n
		}
	}
	if o, ok := byName[base]; ok {
		return o, 0
	}
	return OpInvalid, 0
}

// Known reports whether base is the first word of some opcode, so that a
// checker can tell "unknown instruction" from "unknown form of an instruction".
func Known(base string) bool {
	if _, ok := byName[base]; ok {
		return true
	}
	for o := Opcode(1); o < NumOpcodes; o++ {
		if strings.HasPrefix(Info[o].Name, base+".") {
			return true
		}
	}
	return false
}
