// Package emu lowers a parsed PTX module to an immutable Program of flat,
// decoded operations and runs it on a pausable, warp-wide SIMT machine.
package emu

import (
	"github.com/ptxplayground/ptxplay/engine/isa"
	"github.com/ptxplayground/ptxplay/engine/ptx"
)

// Program is the immutable result of lowering a module. It is safe to share
// between machines and goroutines.
type Program struct {
	Src      *ptx.Source
	Module   *ptx.Module
	Ops      []Op       // the whole module's code; functions are ranges of it
	Spans    []ptx.Span // Spans[pc] is the source span of Ops[pc]
	Funcs    []*Function
	Regs     []RegInfo // one per value-register slot
	Preds    []RegInfo // one per predicate-register slot
	Consts   []ConstReg
	Specials []SpecialReg // value slots holding special registers
	Calls    []CallInfo   // call sites (Op.Aux of OpCall)
	Tables   [][]int32    // branch target lists (Op.Aux of brx.idx)
	// tma holds the bound operands of the tensor copy instructions
	// (tma_view.go; Op.Aux is the index + 1).
	tma []tmaForm
	// MemOperands lists every memory (address) operand of every
	// instruction, in pc order: whatever the instruction (ld, st, atom,
	// cp.async, wmma.load, ldmatrix, prefetch, ...), its "[addr]"
	// operands are bound by one function, which records them here.
	MemOperands []MemOperand
	// Operands[pc] lists the register operands of Ops[pc]: every slot it
	// reads (its guard included) or writes, with its register file and
	// width, as the binder resolved them (effects.go).
	Operands  [][]Operand
	Globals   []Symbol // variables with an address in .global, .const or .shared (module and body scope), in declaration order
	GlobalImg []byte   // initial image of the start of the module's .global segment (at GlobalBase), up to its last initialized byte
	// GlobalSize is the size of the module's .global segment: the machine
	// zero-fills it past GlobalImg.
	GlobalSize int
	ConstImg   []byte // initial image of the .const bank
	// GlobalOver is, for a module whose .global variables do not fit the
	// emulator's segment (MaxGlobalSegment), the bytes they need; 0
	// otherwise. Such a module is valid PTX (a warning at check time) but
	// cannot be launched: CheckConfig rejects every launch of it.
	GlobalOver int64
	// SharedStatic is the size of statically declared shared memory;
	// dynamic shared memory (.extern .shared arrays) starts at DynSharedBase.
	SharedStatic  int
	DynSharedBase int
	LocalSize     int // per-thread local memory (every function's .local and call parameters)
	funcByName    map[string]*Function
	// constRows holds each constant of Consts broadcast to 32 lanes, in
	// the order of Consts: one read-only row per constant, shared by every
	// warp of every machine running the program.
	constRows [][32]uint64
	// lead[pc] classifies Ops[pc] for batched dispatch (batch.go):
	// whether it only reads and writes the warp's own registers.
	lead []leadKind
	// quiet[pc]: no shared-memory write is reachable from Ops[pc] before a
	// CTA-wide barrier; sharedLd[pc]: Ops[pc] is a shared-memory
	// load at a quiet pc, which a lead may run in a quiet CTA (quiet.go).
	quiet    []bool
	sharedLd []bool
	// remoteShared: an instruction may write a peer CTA's shared memory
	// (EffWriteRemoteShared).
	remoteShared bool
	// runKind is lead with those loads marked leadShared, for leadRun.
	runKind []leadKind
	// straight[pc] is the number of register-only instructions that are
	// not control flow from pc on (diamond.go).
	straight []uint8
	// silent[pc]: Ops[pc] reports nothing to observers that take neither
	// shared-memory accesses, details, events nor every step (a plain
	// 4- or 8-byte ld or st of shared memory, or an instruction without
	// memory effects, such as a barrier): execOne need not note its issue.
	silent []bool
	// pure[pc] is the number of leadPure instructions that are not
	// control flow from pc on (at most 255), which leadRun runs without
	// looking at each one's kind (batch.go).
	pure []uint8
}

// Function is a lowered .entry or .func.
type Function struct {
	Name      string
	Kind      ptx.FuncKind
	Entry     int // first pc
	End       int // one past the last pc
	Params    []Param
	Rets      []Param
	ParamSize int // kernels: size of the .param buffer
	// Register slots owned by this function (saved and restored around
	// recursive calls), and its per-thread local memory region.
	RegBase, RegCount   int32
	PredBase, PredCount int32
	LocalBase, LocalLen int
	ReqNTID, MaxNTID    [3]int
	// Cluster directives of a kernel: .reqnctapercluster (ReqCluster,
	// zero when absent), .maxclusterrank (0: none) and .explicitcluster.
	ReqCluster      [3]int
	MaxClusterRank  int
	ExplicitCluster bool
	HasBody         bool
	// AddrTaken reports that an instruction uses the function's address
	// (a possible target of indirect calls).
	AddrTaken bool
	// Builtin: a function without a body that the emulator provides
	// (vprintf, __assertfail; printf.go).
	Builtin Builtin
	Span    ptx.Span
	index   int32 // index in Program.Funcs
}

// Param is a parameter of a function. For kernels Offset is in the .param
// buffer; for device functions it is a local-memory address or, for
// register parameters, Reg is the slot (>= 0).
type Param struct {
	Name   string
	Type   isa.Type
	Size   int
	Align  int
	Offset int
	Reg    int32 // register parameter slot, or -1
	Count  int   // consecutive register slots (vector register parameters), at least 1
	Pred   bool  // Reg is a predicate slot
	// PtrSpace is the state space of a pointer parameter (.ptr .global), if given.
	PtrSpace isa.Space
}

// Function returns the function named name, or nil.
func (p *Program) Function(name string) *Function { return p.funcByName[name] }

// Entries returns the kernels of the program.
func (p *Program) Entries() []*Function {
	var out []*Function
	for _, f := range p.Funcs {
		if f.Kind == ptx.KindEntry && f.HasBody {
			out = append(out, f)
		}
	}
	return out
}

// RegKind tells what a register slot holds.
type RegKind uint8

const (
	RegUser    RegKind = iota // declared with .reg (or a register parameter)
	RegConst                  // an immediate operand
	RegSpecial                // a special register (%tid.x, ...)
)

// RegInfo describes a register slot for inspection.
type RegInfo struct {
	Name string
	Type isa.Type
	Kind RegKind
	Func int32 // index in Program.Funcs, -1 for module scope
	// Used reports that an instruction or a call reads or writes the slot.
	// A register that no instruction uses is always zero: machines give it
	// no storage.
	Used bool
}

// ConstReg is a value slot that holds an immediate. Machines store it once
// per program (a read-only row shared by every warp), not per lane.
type ConstReg struct {
	Reg int32
	Val uint64
}

// SpecialReg is a value slot holding a special register.
type SpecialReg struct {
	Reg int32
	SR  isa.Special
}

// Symbol is a variable with an address in a state space.
type Symbol struct {
	Name  string
	Func  string // the function whose body declares it; "" at module scope
	Space isa.Space
	Type  isa.Type
	Addr  uint64 // address in Space (global: a global address)
	Size  int
	Align int
	Span  ptx.Span
}

// DynamicSharedArray is the module's first extern .shared array (an
// array of dynamic shared memory: declared without a size), or nil.
func (p *Program) DynamicSharedArray() *Symbol {
	for i := range p.Globals {
		if g := &p.Globals[i]; g.Space == isa.Shared && g.Size == 0 {
			return g
		}
	}
	return nil
}

// DefaultDynamicShared is the dynamic shared memory an inferred launch
// gives a kernel of p (launch.Infer): 48 KiB, what CUDA allows without
// opting in, within MaxSharedBytes with the static shared memory; 0 for a
// module without an extern .shared array. (The size a kernel needs cannot
// be read from its code.)
func (p *Program) DefaultDynamicShared() int {
	if p.DynamicSharedArray() == nil {
		return 0
	}
	return max(min(48<<10, MaxSharedBytes-p.DynSharedBase), 0)
}

// CallInfo describes a call site. Arguments and return values are matched
// with the callee's parameters by position when the call executes, so
// direct and indirect calls work alike.
type CallInfo struct {
	Callee   *Function // nil for an indirect call
	Indirect int32     // value slot holding the callee address (indirect calls), or -1
	Args     []CallArg // caller-side argument values
	Rets     []CallArg // caller-side return destinations
}

// CallArg is a caller-side call operand: a value slot (Reg >= 0, a
// predicate slot if Pred) or a .param variable in per-thread local memory.
type CallArg struct {
	Reg   int32
	Count int // consecutive value slots of a vector register operand (0 or 1: one)
	Pred  bool
	Addr  uint64
	Size  int
}

// An execFn executes one warp-instruction for the lanes in mask (the
// warp's active lanes whose guard predicate holds). Non-control operations
// do not touch the pc; the machine advances it.
type execFn func(w *Warp, op *Op, mask uint32) *Fault

// MemOperand is one memory operand ("[base+off]") of the instruction at
// PC: the value slot of its base register (-1 for an absolute address or
// a variable's own address), the state space it addresses (SpaceNone:
// generic), the operand's position in the instruction, its offset and,
// where the instruction fixes it, how many bytes from base+Off one lane's
// access spans (ld/st: the access size; wmma.load/store: the fragment's
// rows or columns at the stride when that is an immediate or the default;
// 0 when not known).
type MemOperand struct {
	PC      int32
	Operand uint8
	Base    int32
	Space   isa.Space
	Off     int64
	Bytes   int64
}

// Op is one lowered instruction: a union of every operation's fields, with
// operands resolved to register slots. Immediates and special registers are
// read-only value slots too, so every source operand is a slot index (a
// machine maps it to its warp's storage, or to the program's row of an
// immediate; see Warp.r).
type Op struct {
	Exec  execFn
	Code  isa.Opcode
	Type  isa.Type // the instruction type (cvt: destination type)
	Type2 isa.Type // a second type (cvt: source type; set: source type; dp4a: b type)
	Space isa.Space
	Rnd   isa.Rnd
	Cmp   isa.Cmp
	Sub   isa.SubOp // operation/mode selector
	Sub2  isa.SubOp // setp/set boolean combiner
	Vec   uint8     // vector width of ld/st (0 or 1: scalar); ldmatrix/stmatrix: the number of matrices; wmma.load/wmma.store: 1 for .col (B: the stride register, -1 for the default)
	Shape isa.Shape // matrix shape of tensor-core instructions
	Ctrl  bool      // control operation: Exec manages the pc itself
	Dyn   bool      // reads a dynamic special register (refreshed before Exec)
	// PlainShared: a 4- or 8-byte ld or st of .shared memory on the fast
	// paths (execLdShared*, execStShared*), which a SharedSink can serve.
	PlainShared bool
	// GuardNeg negates the guard (@!p).
	GuardNeg bool
	// Neg holds negation bits for predicate source operands: bit 0 for A,
	// 1 for B, 2 for C, 3 for E.
	Neg   uint8
	Flags isa.Flags
	Guard int32 // predicate slot of the guard, or -1
	// D and D2 are destinations; A, B, C, E sources. Each is a slot index in
	// the value file, or in the predicate file where the operand is a
	// predicate; -1 when absent. Memory operations hold their address base
	// register in A (cp.async: the shared destination in A, the global
	// source in E).
	D, D2, A, B, C, E int32
	// Mask is the slot of the membermask of a warp-synchronous
	// instruction (Eff has EffWarpSync), -1 otherwise.
	Mask   int32
	Off    int64   // address offset (memory operands: address = A + Off, or Off alone when A < 0)
	Imm    uint64  // an immediate that selects behaviour (lop3 table, cp.async size, ...)
	Target int32   // branch target pc
	Reconv int32   // reconvergence pc of a branch (its immediate post-dominator), -1: function exit
	Regs   []int32 // vector operand slots (ld/st .v2/.v4/.v8, cp.async, ...)
	// Parts splits Regs into consecutive vector operands for instructions
	// that have several: Parts[i] is the number of slots of vector operand
	// i, in operand order (mma: D, A, B, C; ldmatrix/stmatrix/movmatrix
	// use Regs whole and leave Parts zero).
	Parts [4]uint8
	// Aux is an index into Program.Calls (call) or Program.Tables (brx.idx);
	// for tensor-core instructions (mma, ldmatrix, stmatrix, movmatrix,
	// wmma) the index of the form in isa.FragmentTable().
	Aux int32
	// Eff is what the instruction may do besides computing its
	// destinations (effects.go), computed at lowering.
	Eff Effects
}
