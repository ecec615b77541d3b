package emu

import (
	"github.com/ptxplayground/ptxplay/engine/isa"
	"github.com/ptxplayground/ptxplay/engine/ptx"
)

// maxParamBytes bounds a single kernel or function parameter list.
const maxParamBytes = 32 << 10

// lookup resolves a name in the current scopes. A register it finds is
// marked used (all components of a vector register): instructions reach
// registers only through lookup, so registers never looked up take no
// storage in a machine.
func (c *compiler) lookup(name string) *sym {
	for i := len(c.scopes) - 1; i >= 0; i-- {
		if s, ok := c.scopes[i][name]; ok {
			c.use(s)
			return s
		}
	}
	return c.global[name]
}

func (c *compiler) use(s *sym) {
	info := c.prog.Regs
	switch s.kind {
	case symReg:
	case symPred:
		info = c.prog.Preds
	default:
		return
	}
	for k := int32(0); k < int32(max(s.size, 1)); k++ {
		if r := s.reg + k; r >= 0 && int(r) < len(info) {
			info[r].Used = true
		}
	}
}

func (c *compiler) lowerFunc(f *ptx.Func) {
	s := c.global[f.Name]
	if s == nil || s.kind != symFunc {
		return // its name was taken by a variable (reported)
	}
	if s.fdecl != f && s.fdecl.Body != nil {
		return
	}
	fn := s.fn
	if fn.HasBody {
		return
	}
	fn.HasBody = true
	c.fn = fn
	c.fnIdx = fn.index
	c.lscopes, c.lscope = nil, -1
	c.blockScope = map[*ptx.Block]int{}
	c.collectLabels(f.Body, -1)
	c.lostFn = c.lostIn[f]
	c.fixups = nil
	c.tables = map[*ptx.Label]branchTable{}
	c.protos = map[string]*ptx.CallProto{}
	c.scopes = []map[string]*sym{{}}
	fn.RegBase, fn.PredBase = int32(len(c.prog.Regs)), int32(len(c.prog.Preds))
	fn.LocalBase = c.localOff
	c.declareParams(f, fn)
	for _, d := range f.Directives {
		var dst *[3]int
		switch d.Name {
		case "reqntid":
			dst = &fn.ReqNTID
		case "maxntid":
			dst = &fn.MaxNTID
		case "reqnctapercluster":
			dst = &fn.ReqCluster
		case "explicitcluster":
			fn.ExplicitCluster = true
		case "maxclusterrank":
			if len(d.Args) == 1 {
				if v, err := ptx.Eval(d.Args[0], nil); err == nil && v.Int > 0 && v.Int <= 1<<20 {
					fn.MaxClusterRank = int(v.Int)
				}
			}
		}
		if dst != nil {
			for i, a := range d.Args {
				if i < 3 {
					if v, err := ptx.Eval(a, nil); err == nil {
						dst[i] = int(v.Int)
					}
				}
			}
		}
	}
	fn.Entry = len(c.prog.Ops)
	c.branchTargets(f.Body)
	c.lowerBlock(f.Body, false)
	// Falling off the end of a function returns: unless its last
	// instruction ends every path that reaches it (an unguarded branch,
	// return, exit or trap), a ret follows it. (A barrier or another
	// instruction that manages the pc itself goes on to the next one.)
	if n := len(c.prog.Ops); n == fn.Entry || !endsEveryPath(&c.prog.Ops[n-1]) {
		end := f.Body.Span
		end.Start = end.End - 1
		c.emit(Op{Code: isa.OpRet, Ctrl: true, Exec: execRet, Guard: -1, D: -1, D2: -1, A: -1, B: -1, C: -1, E: -1, Mask: -1, Eff: EffReturn | EffCtrl}, end)
	}
	fn.End = len(c.prog.Ops)
	for _, fx := range c.fixups {
		def := c.findLabel(fx.scope, fx.label)
		pc, ok := int32(0), def != nil && def.pc >= 0
		if ok {
			pc = def.pc
		}
		if !ok {
			switch other := c.hiddenLabel(fx.label); {
			case def != nil:
				// lowering stopped before the label (too many errors)
			case other != nil:
				p := c.mod.Src.Position(other.stmt.Span.Start)
				c.errorNotes(fx.span, ptx.DiagLabelNotVisible, []ptx.Note{{Span: other.stmt.Span, Message: "label " + fx.label + " is defined here, in a block that does not enclose the branch"}},
					"label %s is not visible here: it is defined at line %d inside a { } block that does not enclose this one", fx.label, p.Line)
			case !c.maybeLost(fx.label):
				c.errorf(fx.span, ptx.DiagUndefinedLabel, "undefined label %s", fx.label)
			}
			continue
		}
		if fx.table >= 0 {
			c.prog.Tables[fx.table][fx.elem] = pc
		} else {
			c.prog.Ops[fx.pc].Target = pc
		}
	}
	fn.RegCount = int32(len(c.prog.Regs)) - fn.RegBase
	fn.PredCount = int32(len(c.prog.Preds)) - fn.PredBase
	fn.LocalLen = c.localOff - fn.LocalBase
	computeReconvergence(c.prog, fn)
	c.scopes = nil
	c.lscopes, c.blockScope = nil, nil
	c.fn = nil
}

// labelScope holds the labels defined directly in one "{ }" block of the
// function being lowered. Labels are scoped like .reg declarations: a
// branch sees the labels of its own block and of every enclosing block,
// the innermost first, and never those of a sibling block. So inlined
// copies of the same assembly ("waitLoop: ... @!p bra waitLoop;" inside
// "{ }" twice) each branch to their own copy.
type labelScope struct {
	parent int // index in compiler.lscopes; -1 for the function body
	labels map[string]*labelDef
}

// labelDef is one label: the statement that defines it and, once that is
// lowered, the pc it names (-1 before).
type labelDef struct {
	stmt *ptx.Label
	pc   int32
}

// collectLabels gives block b and each block within it a label scope and
// records the labels each defines, before the body is lowered (branches
// may go forward). A label defined twice in the same block is an error.
func (c *compiler) collectLabels(b *ptx.Block, parent int) {
	idx := len(c.lscopes)
	c.lscopes = append(c.lscopes, labelScope{parent: parent, labels: map[string]*labelDef{}})
	c.blockScope[b] = idx
	for _, st := range b.Stmts {
		switch st := st.(type) {
		case *ptx.Label:
			if first, dup := c.lscopes[idx].labels[st.Name]; dup {
				c.errorNotes(st.Span, ptx.DiagDuplicateLabel, []ptx.Note{{Span: first.stmt.Span, Message: "label " + st.Name + " is first defined here"}},
					"label %s defined twice in the same block", st.Name)
				continue
			}
			c.lscopes[idx].labels[st.Name] = &labelDef{stmt: st, pc: -1}
		case *ptx.Block:
			c.collectLabels(st, idx)
		}
	}
}

// findLabel resolves a label name as seen from label scope scope: the
// innermost enclosing block that defines it wins. nil if none does.
func (c *compiler) findLabel(scope int, name string) *labelDef {
	for i := scope; i >= 0 && i < len(c.lscopes); i = c.lscopes[i].parent {
		if d, ok := c.lscopes[i].labels[name]; ok {
			return d
		}
	}
	return nil
}

// hiddenLabel returns a label of the function named name from any block,
// for saying why a reference to it does not resolve.
func (c *compiler) hiddenLabel(name string) *labelDef {
	for _, sc := range c.lscopes {
		if d, ok := sc.labels[name]; ok {
			return d
		}
	}
	return nil
}

// labelVisible reports whether name is a label visible where the body is
// being lowered.
func (c *compiler) labelVisible(name string) bool {
	return c.findLabel(c.lscope, name) != nil
}

func (c *compiler) declareParams(f *ptx.Func, fn *Function) {
	scope := c.scopes[0]
	if f.Kind == ptx.KindEntry {
		off := 0
		for _, d := range f.Params {
			for _, n := range d.Names {
				al := d.Align
				if al == 0 {
					al = max(d.Type.Size(), 1)
				}
				size := varSize(d, n)
				if size < 0 {
					c.errorf(n.Span, ptx.DiagMissingSize, "kernel parameter %s needs a size", n.Name)
					size = 0
				}
				off = align(off, al)
				if c.redeclared(scope, n.Name, n.Span) {
					continue
				}
				scope[n.Name] = &sym{kind: symVar, name: n.Name, typ: d.Type, space: isa.Param, addr: uint64(off), size: size, align: al, span: n.Span}
				fn.Params = append(fn.Params, Param{Name: n.Name, Type: d.Type, Size: size, Align: al, Offset: off, Reg: -1, PtrSpace: d.PtrSpace})
				off += size
			}
		}
		fn.ParamSize = off
		if off > maxParamBytes {
			c.errorf(f.NameSpan, ptx.DiagEmulatorLimit, "kernel parameters take %d bytes (the limit is %d)", off, maxParamBytes)
		}
		return
	}
	decl := func(list []*ptx.VarDecl, out *[]Param) {
		for _, d := range list {
			for _, n := range d.Names {
				if d.Space == isa.Reg {
					c.declareReg(d, n, scope)
					if s := scope[n.Name]; s != nil {
						*out = append(*out, Param{Name: n.Name, Type: d.Type, Size: max(d.Type.Size(), 1), Reg: s.reg, Count: max(s.size, 1), Pred: s.kind == symPred})
					}
					continue
				}
				c.declareVar(&ptx.VarDecl{Span: d.Span, Space: isa.Param, Align: d.Align, Vec: d.Vec, Type: d.Type}, n, scope, false)
				if s := scope[n.Name]; s != nil && s.kind == symVar {
					*out = append(*out, Param{Name: n.Name, Type: d.Type, Size: max(s.size, 0), Align: s.align, Offset: int(s.addr), Reg: -1})
				}
			}
		}
	}
	decl(f.Rets, &fn.Rets)
	decl(f.Params, &fn.Params)
}

func (c *compiler) lowerBlock(b *ptx.Block, push bool) {
	if push {
		c.scopes = append(c.scopes, map[string]*sym{})
		defer func() { c.scopes = c.scopes[:len(c.scopes)-1] }()
	}
	outer := c.lscope
	c.lscope = c.blockScope[b]
	defer func() { c.lscope = outer }()
	scope := c.scopes[len(c.scopes)-1]
	for _, st := range b.Stmts {
		if c.diags.Full() {
			return
		}
		switch st := st.(type) {
		case *ptx.VarDecl:
			c.declareVars(st, scope, false)
		case *ptx.Label:
			if d := c.lscopes[c.lscope].labels[st.Name]; d != nil && d.stmt == st {
				d.pc = int32(len(c.prog.Ops))
			} // else defined twice in this block (reported by collectLabels)
		case *ptx.Block:
			c.lowerBlock(st, true)
		case *ptx.Instr:
			if c.lostGlobal == nil {
				c.lowerInstr(st)
				continue
			}
			// A module with syntax errors (see partial.go).
			if c.mod.HasSyntaxError(st.Span) {
				continue
			}
			nd, ne := len(c.diags.Diags), c.diags.Errors
			c.lowerInstr(st)
			if c.diags.Errors > ne {
				c.dropLostErrors(st, nd, ne)
			}
		case *ptx.CallProto:
			c.protos[st.Name] = st
			scope[st.Name] = &sym{kind: symProto, name: st.Name, proto: st, span: st.Span}
		case *ptx.Directive:
			// .pragma and friends inside bodies carry no semantics here.
		}
	}
}

// branchTargets declares the function's .branchtargets lists ("L:
// .branchtargets A, B;"): a table of Program.Tables each, its entries
// resolved with the other labels when the body is lowered. (brx.idx
// checks that its list comes first, as PTX requires.)
func (c *compiler) branchTargets(b *ptx.Block) {
	scope := c.blockScope[b]
	var label *ptx.Label
	for _, st := range b.Stmts {
		switch st := st.(type) {
		case *ptx.Label:
			label = st
			continue
		case *ptx.Block:
			c.branchTargets(st)
		case *ptx.Directive:
			if st.Name != "branchtargets" {
				break
			}
			if label == nil {
				c.errorf(st.Span, ptx.DiagInvalidBranchTarget, ".branchtargets needs a label: \"L: .branchtargets L1, L2;\"")
				break
			}
			if d := c.lscopes[scope].labels[label.Name]; d == nil || d.stmt != label {
				break // the label is defined twice in this block (reported)
			}
			if len(st.Args) == 0 {
				c.errorf(st.Span, ptx.DiagInvalidBranchTarget, ".branchtargets %s lists no label", label.Name)
				break
			}
			t := int32(len(c.prog.Tables))
			c.prog.Tables = append(c.prog.Tables, make([]int32, len(st.Args)))
			c.tables[label] = branchTable{index: t, at: st.Span.Start}
			for i, a := range st.Args {
				if a.Kind != ptx.ExprName {
					c.errorf(a.Span, ptx.DiagInvalidBranchTarget, ".branchtargets %s: entry %d is not a label", label.Name, i+1)
					continue
				}
				c.fixups = append(c.fixups, fixup{label: a.Name, span: a.Span, table: int(t), elem: i, scope: scope})
			}
		}
		label = nil
	}
}

func (c *compiler) emit(op Op, span ptx.Span) int {
	return c.emitRoles(op, span, nil)
}

// emitRoles emits op with its register operands (Program.Operands).
func (c *compiler) emitRoles(op Op, span ptx.Span, roles []Operand) int {
	c.prog.Ops = append(c.prog.Ops, op)
	c.prog.Spans = append(c.prog.Spans, span)
	c.prog.Operands = append(c.prog.Operands, roles)
	return len(c.prog.Ops) - 1
}

// Mods holds an instruction's modifiers decoded by kind.
type Mods struct {
	Types []isa.Type
	Space isa.Space
	HasSp bool
	Rnd   isa.Rnd
	Cmp   isa.Cmp
	Subs  []isa.SubOp
	Vec   int
	Flags isa.Flags
	// Tensor holds the tensor-instruction modifiers (kinds ModShape,
	// ModLayout, ModNum, ModElem, ModTensor) in order, with their words.
	Tensor      []isa.Mod
	TensorNames []string
	// Hints holds the words of the hint modifiers (kind ModHint), which
	// have no effect on results but select operand forms (fence.proxy.
	// tensormap::generic.acquire takes an address and a size).
	Hints []string
}

// bindFn checks an instruction's modifiers and operands and fills in op.
type bindFn func(b *binder)

// binders holds the binder of every supported opcode; instruction families
// register theirs in init functions.
var binders [isa.NumOpcodes]bindFn

func (c *compiler) lowerInstr(ins *ptx.Instr) {
	words := make([]string, len(ins.Mods))
	for i, m := range ins.Mods {
		words[i] = m.Name
	}
	code, used := isa.Lookup(ins.Opcode, words)
	if code == isa.OpInvalid {
		if isa.Known(ins.Opcode) {
			c.errorf(ins.OpSpan, ptx.DiagUnknownInstruction, "unknown form of instruction %s", fullName(ins))
		} else {
			c.errorf(ins.OpSpan, ptx.DiagUnknownInstruction, "unknown instruction %s", ins.Opcode)
		}
		return
	}
	info := &isa.Info[code]
	op := Op{Code: code, Guard: -1, D: -1, D2: -1, A: -1, B: -1, C: -1, E: -1, Reconv: -1, Mask: -1}
	if ins.Guard != nil {
		s := c.lookup(ins.Guard.Pred)
		switch {
		case s == nil:
			c.errorf(ins.Guard.Span, ptx.DiagUndefinedName, "undefined predicate %s", ins.Guard.Pred)
			return
		case s.kind != symPred:
			c.errorf(ins.Guard.Span, ptx.DiagNotPredicate, "guard %s is not a predicate register", ins.Guard.Pred)
			return
		}
		op.Guard, op.GuardNeg = s.reg, ins.Guard.Neg
	}
	if info.Status != isa.Supported || binders[code] == nil {
		what := "is not supported by the emulator"
		switch {
		case info.Status == isa.Planned && info.Family == isa.FamTensor:
			what = "is not supported yet (tensor-core instructions are planned)"
		case info.Status == isa.Planned && info.Family == isa.FamBlackwell:
			what = "is not supported yet (Blackwell tcgen05 instructions are planned)"
		case info.Status == isa.Planned:
			what = "is not supported yet (Hopper instructions are planned)"
		}
		if !c.plannedNamesDeclared(ins) {
			return
		}
		c.diags.Warnf(ins.OpSpan, ptx.DiagUnsupportedInstruction, "%s %s; the launch faults if a thread reaches it", info.Name, what)
		msg := info.Name + " " + what
		op.Exec = func(w *Warp, op *Op, mask uint32) *Fault {
			return w.faultAll(FaultIllegal, mask, "%s", msg)
		}
		op.Eff = EffFault
		var roles []Operand
		if op.Guard >= 0 {
			roles = []Operand{{Slot: op.Guard, Bits: 1, Pred: true}}
		}
		c.emitRoles(op, ins.Span, roles)
		return
	}
	b := &binder{c: c, ins: ins, op: &op, name: fullName(ins)}
	b.decodeMods(ins.Mods[used:])
	binders[code](b)
	if b.failed {
		return
	}
	b.checkUnused()
	if b.failed {
		return
	}
	if op.Exec == nil {
		c.errorf(ins.OpSpan, ptx.DiagUnsupportedForm, "%s: this form is not supported by the emulator", b.name)
		return
	}
	op.Eff = EffFault
	if !b.notYet {
		op.Eff = effectsOf(&op, b.memOps)
	}
	pc := c.emitRoles(op, ins.Span, b.operandsOf(c.prog))
	for _, m := range b.memOps {
		m.PC = int32(pc)
		c.prog.MemOperands = append(c.prog.MemOperands, m)
	}
	for _, fx := range b.fixups {
		fx.pc = pc
		c.fixups = append(c.fixups, fx)
	}
}

// plannedNamesDeclared checks the names an instruction the emulator does
// not execute uses (its operands are otherwise not bound): each must be a
// register, variable, function, label or special register in scope, so a
// typo is an error there as anywhere else. It reports whether all are.
func (c *compiler) plannedNamesDeclared(ins *ptx.Instr) bool {
	ok := true
	check := func(name string, span ptx.Span) {
		if !ok || name == "" || c.lookup(name) != nil || c.labelVisible(name) {
			return
		}
		if _, special := isa.LookupSpecial(name); special || c.maybeLost(name) {
			return
		}
		c.errorf(span, ptx.DiagUndefinedName, "undefined name %s", name)
		ok = false
	}
	var expr func(e *ptx.Expr)
	expr = func(e *ptx.Expr) {
		if e == nil {
			return
		}
		if e.Kind == ptx.ExprName {
			check(e.Name, e.Span)
		}
		expr(e.X)
		expr(e.Y)
		expr(e.Z)
		for _, a := range e.Args {
			expr(a)
		}
	}
	var opd func(o *ptx.Operand)
	opd = func(o *ptx.Operand) {
		if o == nil {
			return
		}
		if o.Kind == ptx.OpdName || o.Kind == ptx.OpdAddr {
			check(o.Name, o.Span)
		}
		expr(o.Expr)
		for _, e := range o.Elems {
			opd(e)
		}
	}
	for _, o := range ins.Operands {
		opd(o)
	}
	return ok
}

func fullName(ins *ptx.Instr) string {
	n := ins.Opcode
	for _, m := range ins.Mods {
		n += "." + m.Name
	}
	return n
}

func firstLane(mask uint32) int {
	for i := 0; i < 32; i++ {
		if mask>>i&1 != 0 {
			return i
		}
	}
	return 0
}

// endsEveryPath reports whether no lane that executes op goes on to the
// next instruction: an unguarded branch, return, exit or trap.
func endsEveryPath(op *Op) bool {
	return op.Guard < 0 && op.Eff.Any(EffBranch|EffReturn|EffExit|EffTrap) && !op.Eff.Has(EffCall)
}
