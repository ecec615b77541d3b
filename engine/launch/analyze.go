package launch

import (
	"sort"

	"github.com/ptxplayground/ptxplay/engine/emu"
	"github.com/ptxplayground/ptxplay/engine/isa"
	"github.com/ptxplayground/ptxplay/engine/launchspec"
	"github.com/ptxplayground/ptxplay/engine/ptx"
)

// The analysis behind Infer, Check and Kernels: a forward dataflow over
// the register slots of a kernel (and of the device functions it calls
// directly), flow-sensitive over the basic blocks of each function, that
// finds, for each kernel parameter, whether its value becomes the base of
// a global memory address (a pointer), the type of the loads and stores
// made through it, and how integer parameters are used (compared with a
// thread index, added to an address). Device-function parameters passed
// in .param memory are followed through local memory at constant
// addresses (flow-insensitively). It is a heuristic: it never fails, and
// the same program always gives the same facts.

// pset is a set of kernel parameter indices.
type pset []uint64

func (s pset) has(i int) bool { return i>>6 < len(s) && s[i>>6]>>(i&63)&1 != 0 }

func (s pset) empty() bool {
	for _, w := range s {
		if w != 0 {
			return false
		}
	}
	return true
}

// members returns the indices in s, in increasing order.
func (s pset) members() []int {
	var out []int
	for wi, w := range s {
		for b := 0; b < 64; b++ {
			if w>>b&1 != 0 {
				out = append(out, wi*64+b)
			}
		}
	}
	return out
}

// or adds src to *dst and reports whether *dst grew.
func (s *pset) or(src pset) bool {
	changed := false
	for i, w := range src {
		if w&^(*s)[i] != 0 {
			(*s)[i] |= w
			changed = true
		}
	}
	return changed
}

// Thread-index bits of a flow: which special registers a value derives
// from. The x, y, z bits of %tid; the x, y, z bits of %ctaid, %ntid and
// %nctaid (grid-wide positions); and one bit for the other per-thread
// indices (%laneid, %warpid, cluster positions).
const (
	idxTid   = 0x07
	idxOther = 0x08
	idxGrid  = 0x70
)

func specialIdx(sr isa.Special) uint8 {
	switch sr {
	case isa.SRTidX, isa.SRTidY, isa.SRTidZ:
		return 1 << (sr - isa.SRTidX)
	case isa.SRCtaidX, isa.SRCtaidY, isa.SRCtaidZ:
		return 0x10 << (sr - isa.SRCtaidX)
	case isa.SRClusteridX, isa.SRClusteridY, isa.SRClusteridZ:
		// A grid position, as %ctaid.
		return 0x10 << (sr - isa.SRClusteridX)
	case isa.SRNclusteridX, isa.SRNclusteridY, isa.SRNclusteridZ:
		return 0x10 << (sr - isa.SRNclusteridX)
	case isa.SRNtidX, isa.SRNtidY, isa.SRNtidZ:
		return 0x10 << (sr - isa.SRNtidX)
	case isa.SRNctaidX, isa.SRNctaidY, isa.SRNctaidZ:
		return 0x10 << (sr - isa.SRNctaidX)
	case isa.SRLaneid, isa.SRWarpid, isa.SRNwarpid,
		isa.SRClusterCtaidX, isa.SRClusterCtaidY, isa.SRClusterCtaidZ, isa.SRClusterCtarank:
		return idxOther
	}
	return 0
}

// flow is what a register slot (or a local-memory cell) may hold.
type flow struct {
	ptr pset  // parameters whose full value (a possible address) it holds
	val pset  // parameters whose value it derives from as an integer
	add pset  // the part of val that is only added (or scaled by a constant)
	idx uint8 // thread-index bits
}

// paramFacts is what the analysis found about one kernel parameter.
type paramFacts struct {
	loaded   bool // an ld.param reads it
	consumed bool // an instruction other than a copy uses its value
	pointer  bool // it is the base of a global (or generic) address
	cvta     bool // it goes through cvta (to/from) .global
	reads    int  // loads (and atomics) through it
	writes   int  // stores (and atomics) through it
	votes    [isa.NumTypes]int
	cmp      [4]uint64 // the idx masks of the thread indices it is compared with
	compared bool
	offset   bool // added to a global address
	scaled   bool // multiplied into a global address
	float    bool // read by a floating-point instruction
	// reach is the most bytes past its value that one access is known to
	// span (offset plus the bytes of the access: a wmma fragment with an
	// immediate stride spans its rows at that stride), a lower bound on
	// the size of the buffer it points to.
	reach int64
	// tmap lists the instructions that use the parameter as a tensor map
	// (its address, or its value for a .u64, reaches their tensor-map
	// operand); see infer_tensormap.go.
	tmap []tmapUse
}

// kernelFacts is the analysis of one kernel.
type kernelFacts struct {
	fn       *emu.Function
	params   []paramFacts
	addrSize int   // 4 or 8: the module's address size in bytes
	idxUsed  uint8 // thread-index bits of the special registers the kernel reads
	// The kernel's asynchronous copies that complete on an mbarrier, and
	// its constant expect_tx byte counts (infer_tensormap.go).
	txCopies []txCopy
	expectTx []txExpect
	// sharedTypes counts the element types of the kernel's typed
	// shared-memory loads and stores.
	sharedTypes [isa.NumTypes]int
}

// Bounds of the fixpoint iteration: passes over every block of the kernel
// and its callees, and slot visits in all (states copied and compared).
// Real kernels settle in a few passes; the bounds keep pathological
// programs cheap (the facts are then incomplete, never wrong in kind, and
// still deterministic).
const (
	maxAnalysisPasses = 64
	maxAnalysisWork   = 20_000_000
)

// flowSensitiveLimit bounds the size of the flow-sensitive analysis (one
// state per basic block): blocks times register slots, summed over the
// functions. Larger programs are analysed flow-insensitively, with one
// state for the whole program in which every assignment is a join:
// cheaper, and less precise where registers are reused.
const flowSensitiveLimit = 1 << 16

// state maps value slots to their flows at a point of the program. Flows
// in a state are never modified (they are shared between states); absent
// slots hold nothing of interest.
type state map[int32]*flow

// cfgBlock is a basic block of a function: pcs [start, end).
type cfgBlock struct {
	start, end int
	preds      []int
	out        state // the state at the end; nil until visited
}

// funcFlow is a function being analysed.
type funcFlow struct {
	fn     *emu.Function
	blocks []*cfgBlock
	entry  state // flows of register parameters, from the call sites
	exit   state // flows of register return values, at ret
}

type analyzer struct {
	p       *emu.Program
	fn      *emu.Function
	words   int
	addrSz  int
	special map[int32]*flow // seed flows of special-register slots
	cells   map[uint64]*flow
	funcs   []*funcFlow
	byFn    map[*emu.Function]*funcFlow
	changed bool
	work    int
	// global is the one state of the flow-insensitive analysis (nil when
	// the analysis is flow-sensitive).
	global state
	kf     *kernelFacts // set while collecting facts
	// instrs finds the source instruction of a pc by its span's start;
	// paramAddr maps the pc of a mov that takes the address of an array
	// kernel parameter ("mov.b64 %rd, tmap;") to the parameter.
	instrs    map[int32]*ptx.Instr
	paramAddr map[int]int
}

// analyzeKernel runs the analysis on kernel fn of p. It never panics on a
// program that emu.Compile produced.
func analyzeKernel(p *emu.Program, fn *emu.Function) *kernelFacts {
	kf := &kernelFacts{fn: fn, params: make([]paramFacts, len(fn.Params)), addrSize: 8}
	if p.Module != nil && p.Module.AddressSize == 32 {
		kf.addrSize = 4
	}
	a := &analyzer{
		p: p, fn: fn, words: (len(fn.Params) + 63) / 64, addrSz: kf.addrSize,
		special: map[int32]*flow{}, cells: map[uint64]*flow{}, byFn: map[*emu.Function]*funcFlow{},
	}
	for _, s := range p.Specials {
		if bits := specialIdx(s.SR); bits != 0 {
			f := a.newFlow()
			f.idx = bits
			a.special[s.Reg] = f
		}
	}
	a.collectFuncs()
	a.sourceInstrs()
	size := 0
	for _, ff := range a.funcs {
		size += len(ff.blocks) * max(int(ff.fn.RegCount), 1)
	}
	if size > flowSensitiveLimit {
		a.global = state{}
	}
	for pass := 0; pass < maxAnalysisPasses && a.work < maxAnalysisWork; pass++ {
		a.changed = false
		for _, ff := range a.funcs {
			for bi, b := range ff.blocks {
				st := a.blockEntry(ff, bi)
				a.runBlock(ff, b, st, nil)
				if a.global == nil && !a.sameState(st, b.out) {
					b.out = st
					a.changed = true
				}
			}
		}
		if !a.changed {
			break
		}
	}
	a.kf = kf
	a.walk(a.facts)
	a.walk(a.accesses)
	a.walk(a.asyncCopies)
	for i := range kf.params {
		pf := &kf.params[i]
		pf.compared = pf.cmp != [4]uint64{}
		if fn.Params[i].PtrSpace == isa.Global && a.candidate(i) {
			pf.pointer = true
		}
	}
	return kf
}

// walk visits every instruction of the analysed functions with the state
// before it.
func (a *analyzer) walk(visit func(pc int, op *emu.Op, st state, ff *funcFlow)) {
	for _, ff := range a.funcs {
		for bi, b := range ff.blocks {
			a.runBlock(ff, b, a.blockEntry(ff, bi), visit)
		}
	}
}

// collectFuncs lists fn and the functions it calls directly,
// transitively, and builds their control-flow graphs.
func (a *analyzer) collectFuncs() {
	add := func(fn *emu.Function) {
		ff := &funcFlow{fn: fn, entry: state{}, exit: state{}}
		ff.blocks = a.blocks(fn)
		a.funcs = append(a.funcs, ff)
		a.byFn[fn] = ff
	}
	add(a.fn)
	for i := 0; i < len(a.funcs); i++ {
		f := a.funcs[i].fn
		for pc := f.Entry; pc < f.End; pc++ {
			op := &a.p.Ops[pc]
			if !op.Eff.Has(emu.EffCall) || op.Aux < 0 || int(op.Aux) >= len(a.p.Calls) {
				continue
			}
			if c := a.p.Calls[op.Aux].Callee; c != nil && c.HasBody && a.byFn[c] == nil {
				add(c)
			}
		}
	}
}

// blocks splits fn into basic blocks and links them.
func (a *analyzer) blocks(fn *emu.Function) []*cfgBlock {
	lo, hi := fn.Entry, fn.End
	if lo < 0 || hi > len(a.p.Ops) || lo >= hi {
		return nil
	}
	n := hi - lo
	inFn := func(pc int) bool { return pc >= 0 && pc < n }
	leader := emu.BlockLeaders(a.p, fn)
	blockOf := make([]int, n)
	var bs []*cfgBlock
	for i := 0; i < n; i++ {
		if leader[i] {
			bs = append(bs, &cfgBlock{start: lo + i})
		}
		blockOf[i] = len(bs) - 1
	}
	for k, b := range bs {
		b.end = hi
		if k+1 < len(bs) {
			b.end = bs[k+1].start
		}
	}
	for k, b := range bs {
		last := &a.p.Ops[b.end-1]
		link := func(pc int) {
			if pc -= lo; inFn(pc) {
				s := bs[blockOf[pc]]
				s.preds = append(s.preds, k)
			}
		}
		fall := last.Guard >= 0
		switch e := last.Eff; {
		case e.Has(emu.EffBranch | emu.EffIndirect): // brx.idx: to its table's entries
			if last.Aux >= 0 && int(last.Aux) < len(a.p.Tables) {
				for _, t := range a.p.Tables[last.Aux] {
					link(int(t))
				}
			}
		case e.Has(emu.EffBranch):
			link(int(last.Target))
		case e.Any(emu.EffReturn | emu.EffExit):
		default:
			fall = true
		}
		if fall {
			link(b.end)
		}
	}
	return bs
}

// blockEntry is the state at the start of block bi: the join of its
// predecessors' exit states (and of the function's entry state).
func (a *analyzer) blockEntry(ff *funcFlow, bi int) state {
	if a.global != nil {
		if bi == 0 {
			a.joinInto(a.global, ff.entry)
		}
		return a.global
	}
	st := state{}
	if bi == 0 {
		a.joinInto(st, ff.entry)
	}
	for _, p := range ff.blocks[bi].preds {
		a.joinInto(st, ff.blocks[p].out)
	}
	return st
}

func (a *analyzer) joinInto(dst, src state) {
	a.work += len(src)
	for r, f := range src {
		dst[r] = a.union(dst[r], f)
	}
}

func (a *analyzer) sameState(x, y state) bool {
	if y == nil || len(x) != len(y) {
		return false
	}
	a.work += len(x)
	for r, f := range x {
		if g, ok := y[r]; !ok || !f.equal(g) {
			return false
		}
	}
	return true
}

// runBlock applies the instructions of block b to st, calling visit (if
// not nil) before each.
func (a *analyzer) runBlock(ff *funcFlow, b *cfgBlock, st state, visit func(int, *emu.Op, state, *funcFlow)) {
	for pc := b.start; pc < b.end; pc++ {
		op := &a.p.Ops[pc]
		if visit != nil {
			visit(pc, op, st, ff)
		}
		a.transfer(pc, op, st, ff)
	}
}

func (a *analyzer) newFlow() *flow {
	return &flow{ptr: make(pset, a.words), val: make(pset, a.words), add: make(pset, a.words)}
}

func (f *flow) isEmpty() bool {
	return f == nil || f.idx == 0 && f.ptr.empty() && f.val.empty() && f.add.empty()
}

func (f *flow) equal(g *flow) bool {
	if f == g {
		return true
	}
	if f == nil || g == nil || f.idx != g.idx {
		return false
	}
	for i := range f.ptr {
		if f.ptr[i] != g.ptr[i] || f.val[i] != g.val[i] || f.add[i] != g.add[i] {
			return false
		}
	}
	return true
}

// covers reports whether f holds everything g holds.
func (f *flow) covers(g *flow) bool {
	if g.isEmpty() {
		return true
	}
	if f == nil || g.idx&^f.idx != 0 {
		return false
	}
	for i := range f.ptr {
		if g.ptr[i]&^f.ptr[i] != 0 || g.val[i]&^f.val[i] != 0 || g.add[i]&^f.add[i] != 0 {
			return false
		}
	}
	return true
}

// union returns the join of two immutable flows (one of them when it
// covers the other).
func (a *analyzer) union(f, g *flow) *flow {
	switch {
	case f.covers(g):
		return f
	case g.covers(f):
		return g
	}
	u := a.newFlow()
	a.merge(u, f, flowAll)
	a.merge(u, g, flowAll)
	return u
}

// get returns the flow of value slot r in st (nil: nothing of interest).
func (a *analyzer) get(st state, r int32) *flow {
	if r < 0 {
		return nil
	}
	if f, ok := st[r]; ok {
		return f
	}
	return a.special[r]
}

// assign sets slot r to the new flow f (built for this instruction):
// replacing what it held, or joined with it under a guard.
func (a *analyzer) assign(st state, op *emu.Op, r int32, f *flow) {
	if r < 0 || int(r) >= len(a.p.Regs) || a.p.Regs[r].Kind != emu.RegUser {
		return
	}
	if op.Guard >= 0 || a.global != nil {
		f = a.union(st[r], f)
		if a.global != nil && f != st[r] {
			a.changed = true
		}
	}
	if f.isEmpty() {
		delete(st, r)
		return
	}
	if old := st[r]; old != nil && old.equal(f) {
		return
	}
	st[r] = f
}

// cellJoin adds f to the flow of local-memory cell addr (device-function
// parameters and locals at constant addresses: flow-insensitive).
func (a *analyzer) cellJoin(addr uint64, f *flow) {
	if f.isEmpty() {
		return
	}
	old := a.cells[addr]
	if u := a.union(old, f); u != old {
		a.cells[addr] = u
		a.changed = true
	}
}

func (a *analyzer) isConst(r int32) bool {
	return r >= 0 && int(r) < len(a.p.Regs) && a.p.Regs[r].Kind == emu.RegConst
}

// Ways a source flows into a destination.
type flowMode uint8

const (
	flowAll    flowMode = iota // the value itself (mov, add, cvta, selp)
	flowInt                    // an integer derived from it (shr, div, ...)
	flowNarrow                 // truncated below the address size (cvt)
	flowScaled                 // scaled by a constant (mul, shl): still additive
	flowMask                   // and/or/xor: pointers stay pointers (alignment)
)

// merge makes src flow into dst, a flow under construction.
func (a *analyzer) merge(dst, src *flow, mode flowMode) {
	if dst == nil || src == nil || dst == src {
		return
	}
	switch mode {
	case flowAll:
		dst.ptr.or(src.ptr)
		dst.val.or(src.val)
		dst.add.or(src.add)
	case flowInt:
		dst.val.or(src.ptr)
		dst.val.or(src.val)
	case flowNarrow, flowScaled:
		dst.val.or(src.ptr)
		dst.val.or(src.val)
		dst.add.or(src.add)
	case flowMask:
		dst.ptr.or(src.ptr)
		dst.val.or(src.val)
	}
	dst.idx |= src.idx
}

// paramAt returns the kernel parameter holding byte off of the parameter
// buffer, or -1.
func (a *analyzer) paramAt(off int64) int {
	for i, p := range a.fn.Params {
		if off >= int64(p.Offset) && off < int64(p.Offset+p.Size) {
			return i
		}
	}
	return -1
}

// candidate reports whether parameter i can hold an address: an integer
// or bit-size scalar of 8 bytes or of the module's address size.
func (a *analyzer) candidate(i int) bool {
	p := a.fn.Params[i]
	if p.Type.IsFloat() || p.Type.Kind() == isa.KindPred || p.Size != p.Type.Size() {
		return false
	}
	return p.Size == 8 || p.Size == a.addrSz
}

// seedParam is the flow of a load of kernel parameter i: the parameter
// itself when the load reads all of a possible address, an integer
// otherwise.
func (a *analyzer) seedParam(i int, off int64, size int) *flow {
	f := a.newFlow()
	w, b := i>>6, uint(i&63)
	if a.candidate(i) && off == int64(a.fn.Params[i].Offset) && size == a.fn.Params[i].Size {
		f.ptr[w] |= 1 << b
	} else {
		f.val[w] |= 1 << b
		f.add[w] |= 1 << b
	}
	return f
}

// dataRegs returns the data registers of a load or store: the vector
// registers, or the single one.
func dataRegs(op *emu.Op, single int32) []int32 {
	if op.Vec > 1 && len(op.Regs) > 0 {
		return op.Regs
	}
	return []int32{single}
}

// transfer applies the instruction at pc to st.
func (a *analyzer) transfer(pc int, op *emu.Op, st state, ff *funcFlow) {
	if op.Type == isa.Pred {
		return
	}
	// from builds the flow of a destination from sources.
	from := func(mode flowMode, srcs ...int32) *flow {
		f := a.newFlow()
		for _, r := range srcs {
			a.merge(f, a.get(st, r), mode)
		}
		return f
	}
	switch op.Code {
	case isa.OpLd, isa.OpLdu:
		size := op.Type.Size()
		for k, r := range dataRegs(op, op.D) {
			off := op.Off + int64(k*size)
			f := a.newFlow() // a value loaded through a register is data
			switch {
			case op.A >= 0:
			case op.Space == isa.Param && ff.fn == a.fn:
				if i := a.paramAt(off); i >= 0 {
					f = a.seedParam(i, off, size)
				}
			case op.Space == isa.Local:
				a.merge(f, a.cells[uint64(off)], flowAll)
			}
			a.assign(st, op, r, f)
		}
		return
	case isa.OpSt:
		if op.A >= 0 || op.Space != isa.Local {
			return
		}
		size := op.Type.Size()
		for k, r := range dataRegs(op, op.B) {
			a.cellJoin(uint64(op.Off+int64(k*size)), a.get(st, r))
		}
		return
	}
	switch e := op.Eff; {
	case e.Has(emu.EffCall):
		a.call(op, st)
		return
	case e.Any(emu.EffReturn | emu.EffExit):
		if ff.fn != a.fn {
			for _, r := range ff.fn.Rets {
				if r.Reg >= 0 && !r.Pred {
					if f := a.get(st, r.Reg); !f.isEmpty() {
						if u := a.union(ff.exit[r.Reg], f); u != ff.exit[r.Reg] {
							ff.exit[r.Reg] = u
							a.changed = true
						}
					}
				}
			}
		}
		return
	}
	switch op.Code {
	case isa.OpCvta:
		a.assign(st, op, op.D, from(flowAll, op.A))
		return
	case isa.OpMov:
		switch {
		case len(op.Regs) == 0 && a.isConst(op.A) && ff.fn == a.fn:
			f := a.newFlow()
			if i, ok := a.paramAddr[pc]; ok {
				f.ptr[i>>6] |= 1 << uint(i&63) // the address of an array parameter
			}
			a.assign(st, op, op.D, f)
		case len(op.Regs) == 0:
			a.assign(st, op, op.D, from(flowAll, op.A))
		case op.D >= 0: // pack
			a.assign(st, op, op.D, from(flowInt, op.Regs...))
		default: // unpack
			f := from(flowInt, op.A)
			for _, r := range op.Regs {
				a.assign(st, op, r, f)
			}
		}
		return
	case isa.OpCvt:
		mode := flowAll
		switch {
		case op.Type.IsFloat() || op.Type2.IsFloat():
			a.assign(st, op, op.D, a.newFlow())
			return
		case op.Type.Size() < a.addrSz:
			mode = flowNarrow
		}
		a.assign(st, op, op.D, from(mode, op.A))
		return
	}
	if op.D < 0 || !a.writesValue(pc, op.D) {
		return // no value destination (D is a predicate slot, or not written)
	}
	var f *flow
	switch {
	case op.Type.IsFloat():
		f = a.newFlow()
	case op.Code == isa.OpAdd, op.Code == isa.OpSub, op.Code == isa.OpAddc, op.Code == isa.OpSubc,
		op.Code == isa.OpSelp, op.Code == isa.OpMin, op.Code == isa.OpMax:
		f = from(flowAll, op.A, op.B)
	case op.Code == isa.OpSlct:
		f = a.newFlow()
		if !op.Type2.IsFloat() {
			f = from(flowAll, op.A, op.B)
		}
	case op.Code == isa.OpMad, op.Code == isa.OpMad24, op.Code == isa.OpMadc,
		op.Code == isa.OpMul, op.Code == isa.OpMul24, op.Code == isa.OpShl:
		// A product x*y: an operand multiplied by a constant stays
		// additive; otherwise both become plain integers. mad adds C
		// (-1 for mul and shl).
		f = a.newFlow()
		switch {
		case a.isConst(op.B):
			a.merge(f, a.get(st, op.A), flowScaled)
		case a.isConst(op.A):
			a.merge(f, a.get(st, op.B), flowScaled)
		default:
			a.merge(f, a.get(st, op.A), flowInt)
			a.merge(f, a.get(st, op.B), flowInt)
		}
		a.merge(f, a.get(st, op.C), flowAll)
	case op.Code == isa.OpAnd, op.Code == isa.OpOr, op.Code == isa.OpXor:
		f = from(flowMask, op.A, op.B)
	case intOps[op.Code]:
		f = from(flowInt, op.A, op.B, op.C)
	default:
		// Atomics, set, loads through registers, ...: data unrelated to the
		// parameters.
		f = a.newFlow()
	}
	a.assign(st, op, op.D, f)
}

// writesValue reports whether the instruction at pc writes slot r as a
// value register (its register operands, recorded at lowering: D may be a
// predicate slot, or a source).
func (a *analyzer) writesValue(pc int, r int32) bool {
	if pc < 0 || pc >= len(a.p.Operands) {
		return false
	}
	for _, o := range a.p.Operands[pc] {
		if o.Def && !o.Pred && o.Slot == r {
			return true
		}
	}
	return false
}

// intOps derive an integer from all their value operands A, B and C.
var intOps = opSet(isa.OpShr, isa.OpDiv, isa.OpRem, isa.OpNeg, isa.OpAbs, isa.OpNot, isa.OpCnot,
	isa.OpBfe, isa.OpBfi, isa.OpPrmt, isa.OpShf, isa.OpLop3, isa.OpPopc, isa.OpClz, isa.OpBrev,
	isa.OpBfind, isa.OpFns, isa.OpBmsk, isa.OpSzext, isa.OpSad, isa.OpDp4a, isa.OpDp2a, isa.OpShfl,
	isa.OpVshr)

func opSet(ops ...isa.Opcode) (s [isa.NumOpcodes]bool) {
	for _, o := range ops {
		s[o] = true
	}
	return s
}

// valueSrcs returns the value registers the instruction at pc reads
// (its register operands recorded at lowering; immediates and special
// registers are read-only value slots among them).
func (a *analyzer) valueSrcs(pc int) []int32 {
	if pc < 0 || pc >= len(a.p.Operands) {
		return nil
	}
	var out []int32
	for _, o := range a.p.Operands[pc] {
		if !o.Def && !o.Pred {
			out = append(out, o.Slot)
		}
	}
	return out
}

// call passes arguments to a direct callee's parameters and its return
// values back.
func (a *analyzer) call(op *emu.Op, st state) {
	if op.Aux < 0 || int(op.Aux) >= len(a.p.Calls) {
		return
	}
	ci := &a.p.Calls[op.Aux]
	c := a.byFn[ci.Callee]
	for _, ret := range ci.Rets {
		if ret.Reg >= 0 && !ret.Pred {
			a.assign(st, op, ret.Reg, a.newFlow())
		}
	}
	if c == nil {
		return
	}
	for k, arg := range ci.Args {
		if k >= len(c.fn.Params) || arg.Pred || c.fn.Params[k].Pred {
			continue
		}
		to := c.fn.Params[k]
		var src *flow
		if arg.Reg >= 0 {
			src = a.get(st, arg.Reg)
		} else {
			src = a.cells[arg.Addr]
		}
		if src.isEmpty() {
			continue
		}
		if to.Reg >= 0 {
			if u := a.union(c.entry[to.Reg], src); u != c.entry[to.Reg] {
				c.entry[to.Reg] = u
				a.changed = true
			}
		} else {
			a.cellJoin(uint64(to.Offset), src)
		}
	}
	for k, ret := range ci.Rets {
		if k >= len(c.fn.Rets) || ret.Pred || c.fn.Rets[k].Pred {
			continue
		}
		r := c.fn.Rets[k]
		var src *flow
		if r.Reg >= 0 {
			src = c.exit[r.Reg]
		} else {
			src = a.cells[uint64(r.Offset)]
		}
		if ret.Reg >= 0 {
			f := a.newFlow()
			a.merge(f, src, flowAll)
			a.assign(st, op, ret.Reg, f)
		} else {
			a.cellJoin(ret.Addr, src)
		}
	}
}

// facts records, for each parameter, the loads of it, cvta, comparisons
// with thread indices and floating-point uses.
func (a *analyzer) facts(pc int, op *emu.Op, st state, ff *funcFlow) {
	kf := a.kf
	if op.Type == isa.Pred {
		return
	}
	for _, r := range a.valueSrcs(pc) {
		f := a.get(st, r)
		if f == nil {
			continue
		}
		// The thread-index dimensions the kernel reads (for the block
		// shape), and the parameters whose values it uses.
		if sf := a.special[r]; sf != nil {
			kf.idxUsed |= sf.idx
		}
		// (Copies pass the value on; a conversion to or from a float ends
		// the flow, so it counts as a use.)
		copyOp := op.Code == isa.OpMov || op.Code == isa.OpCvta || op.Code == isa.OpCvt && !op.Type.IsFloat() && !op.Type2.IsFloat()
		if !copyOp {
			for _, s := range []pset{f.ptr, f.val} {
				for _, i := range s.members() {
					kf.params[i].consumed = true
				}
			}
		}
	}
	switch op.Code {
	case isa.OpLd, isa.OpLdu:
		if op.A < 0 && op.Space == isa.Param && ff.fn == a.fn {
			size := op.Type.Size()
			for k := range dataRegs(op, op.D) {
				if i := a.paramAt(op.Off + int64(k*size)); i >= 0 {
					kf.params[i].loaded = true
				}
			}
		}
		return
	case isa.OpCvta:
		if op.Space == isa.Global {
			if f := a.get(st, op.A); f != nil {
				for _, i := range f.ptr.members() {
					kf.params[i].cvta = true
				}
			}
		}
		return
	case isa.OpSetp, isa.OpSet:
		t := op.Type
		if op.Code == isa.OpSet {
			t = op.Type2
		}
		if t.IsFloat() {
			return
		}
		x, y := a.get(st, op.A), a.get(st, op.B)
		a.compare(x, y)
		a.compare(y, x)
		return
	case isa.OpCall:
		if op.Aux >= 0 && int(op.Aux) < len(a.p.Calls) {
			for _, arg := range a.p.Calls[op.Aux].Args {
				if f := a.get(st, arg.Reg); f != nil && !arg.Pred {
					for _, s := range []pset{f.ptr, f.val} {
						for _, i := range s.members() {
							kf.params[i].consumed = true
						}
					}
				}
			}
		}
		return
	case isa.OpSt, isa.OpAtom, isa.OpRed, isa.OpCvt, isa.OpCpAsync:
		return
	}
	if !op.Type.IsFloat() {
		return
	}
	for _, r := range []int32{op.A, op.B, op.C} {
		if f := a.get(st, r); f != nil {
			for _, i := range f.val.members() {
				kf.params[i].float = true
			}
		}
	}
}

// compare records that the parameters in y are compared with the thread
// index x.
func (a *analyzer) compare(x, y *flow) {
	if x == nil || y == nil || x.idx == 0 {
		return
	}
	for _, s := range []pset{y.val, y.ptr} {
		for _, i := range s.members() {
			if x.val.has(i) || x.ptr.has(i) {
				continue
			}
			a.kf.params[i].cmp[x.idx>>6] |= 1 << (x.idx & 63)
		}
	}
}

// accesses records the global loads, stores and atomics made through each
// parameter.
func (a *analyzer) accesses(at int, op *emu.Op, st state, _ *funcFlow) {
	kf := a.kf
	pc := int32(at)
	mops := a.p.MemOperands
	i := sort.Search(len(mops), func(i int) bool { return mops[i].PC >= pc })
	for ; i < len(mops) && mops[i].PC == pc; i++ {
		m := mops[i]
		if m.Base < 0 || m.Space != isa.Global && m.Space != isa.SpaceNone || a.tensorMapOperand(at, m) {
			continue
		}
		f := a.get(st, m.Base)
		if f == nil {
			continue
		}
		read, write, typed := memDirection(op)
		for _, i := range a.pointersOf(f) {
			pf := &kf.params[i]
			pf.pointer = true
			if m.Bytes > 0 && m.Off >= 0 && m.Off <= 1<<40 {
				pf.reach = max(pf.reach, m.Off+m.Bytes)
			}
			if read {
				pf.reads++
			}
			if write {
				pf.writes++
			}
			if !typed {
				continue
			}
			if t := a.accessType(op); t != isa.TNone {
				pf.votes[t]++
			}
		}
		for _, i := range f.val.members() {
			if f.add.has(i) {
				kf.params[i].offset = true
			} else {
				kf.params[i].scaled = true
			}
		}
	}
}

// memDirection tells what an instruction does through its global or
// generic memory operands, for the parameters they are based on (its
// effects, computed at lowering): whether it reads or writes global
// memory, and whether the instruction's type is the type of the elements
// it accesses (a per-lane access or a warp's matrix load or store; not an
// asynchronous copy, whose size is in bytes). Every memory operand makes
// its parameter a pointer (Program.MemOperands lists them all, whatever
// the instruction); a prefetch or a cache hint neither reads nor writes.
func memDirection(op *emu.Op) (read, write, typed bool) {
	e := op.Eff
	read, write = e.Has(emu.EffReadGlobal), e.Has(emu.EffWriteGlobal)
	typed = (read || write) && e.Any(emu.EffAccess|emu.EffAligned)
	return read, write, typed
}

// pointersOf picks the parameters an address is based on. Two possible
// addresses added together (a pointer plus a 64-bit integer parameter)
// are told apart by cvta.to.global, then by a comparison with a thread
// index (which makes a count, not a pointer).
func (a *analyzer) pointersOf(f *flow) []int {
	kf := a.kf
	c := f.ptr.members()
	if len(c) <= 1 {
		return c
	}
	for _, keep := range []func(i int) bool{
		func(i int) bool { return kf.params[i].cvta },
		func(i int) bool { return kf.params[i].cmp == [4]uint64{} },
	} {
		var k []int
		for _, i := range c {
			if keep(i) {
				k = append(k, i)
			}
		}
		if len(k) > 0 && len(k) < len(c) {
			c = k
		}
	}
	return c
}

// accessType is the element type of a global access: vectors count as
// their element, packed pairs as their half, and a bit-size access takes
// the type of its data register when that has the same size.
func (a *analyzer) accessType(op *emu.Op) isa.Type {
	t := op.Type
	switch t {
	case isa.F16x2:
		return isa.F16
	case isa.BF16x2:
		return isa.BF16
	case isa.U16x2:
		return isa.U16
	case isa.S16x2:
		return isa.S16
	case isa.TF32:
		return isa.F32
	case isa.E4M3, isa.E5M2:
		return isa.U8
	case isa.E4M3x2, isa.E5M2x2:
		return isa.U16
	}
	if t.Kind() != isa.KindBits {
		return t
	}
	var r int32 = -1
	switch {
	case op.Vec > 1 && len(op.Regs) > 0:
		r = op.Regs[0]
	case op.Code == isa.OpLd || op.Code == isa.OpLdu:
		r = op.D
	case op.Code == isa.OpSt:
		r = op.B
	}
	if r >= 0 && int(r) < len(a.p.Regs) && a.p.Regs[r].Kind == emu.RegUser {
		if rt := a.p.Regs[r].Type; rt.Size() == t.Size() && rt.Kind() != isa.KindBits {
			switch rt {
			case isa.F16x2:
				return isa.F16 // pairs of halves: the buffer holds halves
			case isa.BF16x2:
				return isa.BF16
			case isa.U16x2, isa.S16x2, isa.TF32:
			default:
				return rt
			}
		}
	}
	return t
}

// elemType picks a pointer's element type from the votes of its accesses:
// the most common size (the wider on a tie), then the most common typed
// (non bit-size) type of that size, a float before a signed before an
// unsigned type on a tie; bit-size types alone give the unsigned type.
// TNone when no access was typed.
func (pf *paramFacts) elemType() isa.Type {
	var bySize [9]int
	for t := isa.Type(1); t < isa.NumTypes; t++ {
		if n := pf.votes[t]; n > 0 && t.Size() <= 8 {
			bySize[t.Size()] += n
		}
	}
	size := 0
	for s := 1; s <= 8; s++ {
		if bySize[s] > 0 && bySize[s] >= bySize[size] {
			size = s
		}
	}
	if size == 0 {
		return isa.TNone
	}
	rank := func(t isa.Type) int {
		switch t.Kind() {
		case isa.KindFloat:
			return 3
		case isa.KindSigned:
			return 2
		case isa.KindUnsigned:
			return 1
		}
		return 0
	}
	best := isa.TNone
	for t := isa.Type(1); t < isa.NumTypes; t++ {
		if pf.votes[t] == 0 || t.Size() != size || t.Kind() == isa.KindBits {
			continue
		}
		if !launchspec.IsBufferType(t) {
			continue
		}
		if best == isa.TNone || pf.votes[t] > pf.votes[best] || pf.votes[t] == pf.votes[best] && rank(t) > rank(best) {
			best = t
		}
	}
	if best != isa.TNone {
		return best
	}
	return unsignedOfSize(size)
}

func unsignedOfSize(size int) isa.Type {
	switch size {
	case 1:
		return isa.U8
	case 2:
		return isa.U16
	case 8:
		return isa.U64
	}
	return isa.U32
}

// cmpMasks returns the thread-index masks parameter pf is compared with.
func (pf *paramFacts) cmpMasks() []uint8 {
	var out []uint8
	for m := 0; m < 256; m++ {
		if pf.cmp[m>>6]>>(m&63)&1 != 0 {
			out = append(out, uint8(m))
		}
	}
	return out
}

// isKernel reports whether fn is a kernel with a body.
func isKernel(fn *emu.Function) bool {
	return fn != nil && fn.Kind == ptx.KindEntry && fn.HasBody
}
