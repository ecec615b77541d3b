package emu

import (
	"fmt"
	"math"
	"strings"

	"github.com/ptxplayground/ptxplay/engine/isa"
	"github.com/ptxplayground/ptxplay/engine/ptx"
)

// Compile checks a parsed module and lowers it to a Program. It returns the
// program (nil if there are errors) and every diagnostic: errors for what
// cannot run, warnings for instructions the emulator recognises but does
// not execute yet (they fault if reached). A module with syntax errors is
// checked as far as it parsed (see partial.go) and gives no program.
func Compile(mod *ptx.Module) (*Program, []ptx.Diagnostic) {
	c := &compiler{
		mod:      mod,
		prog:     &Program{Src: mod.Src, Module: mod, funcByName: map[string]*Function{}},
		global:   map[string]*sym{},
		consts:   map[uint64]int32{},
		constVal: map[int32]uint64{},
		specials: map[isa.Special]int32{},
	}
	c.predConst[0], c.predConst[1] = -1, -1
	c.lostNames()
	c.run()
	c.diags.Sort()
	if c.diags.Errors > 0 || mod.SyntaxErrors() > 0 {
		return nil, c.diags.Diags
	}
	return c.prog, c.diags.Diags
}

// CompileSource parses and compiles src in one go. The diagnostics of both
// are merged (sorted by position, without duplicates, capped at
// ptx.MaxErrors errors): a syntax error does not hide the semantic errors
// of the statements that parsed.
func CompileSource(src *ptx.Source) (*Program, []ptx.Diagnostic) {
	mod, diags := ptx.Parse(src)
	if ptx.Capped(diags) {
		return nil, diags
	}
	prog, more := Compile(mod)
	return prog, ptx.Merge(diags, more)
}

type symKind uint8

const (
	symReg symKind = iota
	symPred
	symVar
	symFunc
	symOpaque // textures, samplers, surfaces
	symProto
)

type sym struct {
	kind  symKind
	name  string
	typ   isa.Type
	reg   int32
	space isa.Space
	addr  uint64
	size  int
	align int
	span  ptx.Span
	fn    *Function
	fdecl *ptx.Func
	proto *ptx.CallProto
	// funcParam marks a device-function parameter or call argument held in
	// per-thread local memory (its .param accesses become local accesses).
	funcParam bool
}

type branchTable struct {
	index int32
	at    int32 // byte offset of the directive
}

type fixup struct {
	pc    int
	label string
	span  ptx.Span
	table int // >= 0: index into prog.Tables entry
	elem  int
	scope int // the label scope the reference is in (see labelScope)
}

type compiler struct {
	mod    *ptx.Module
	prog   *Program
	diags  ptx.DiagList
	global map[string]*sym
	scopes []map[string]*sym
	fn     *Function
	fnIdx  int32
	// lscopes holds the label scope of every block of the function being
	// lowered (see labelScope), blockScope the index of each block's, and
	// lscope the one of the block being lowered.
	lscopes    []labelScope
	blockScope map[*ptx.Block]int
	lscope     int
	fixups     []fixup
	// tables maps the labels of the function's .branchtargets lists to
	// their index in Program.Tables and where they are declared.
	tables map[*ptx.Label]branchTable
	consts map[uint64]int32
	// constVal maps the slot of each immediate (consts) to its value.
	constVal     map[int32]uint64
	specials     map[isa.Special]int32
	specialPreds map[isa.Special]int32 // predicate special registers (specialPred)
	// predConst holds the predicate slots of the constants false and true.
	predConst [2]int32
	globalOff int
	constOff  int
	sharedOff int
	localOff  int
	dynShared []*sym
	maxDynAl  int
	inits     []pendingInit
	protos    map[string]*ptx.CallProto
	// presetShared holds the symbols of function-scope shared variables,
	// laid out before bodies are lowered.
	presetShared map[*ptx.VarName]*sym
	scanFunc     string // the function whose shared variables scanShared lays out
	// Names written in text the parser lost (nil without syntax errors):
	// module-level, per function, and the current function's.
	lostGlobal map[string]bool
	lostIn     map[*ptx.Func]map[string]bool
	lostFn     map[string]bool
}

func (c *compiler) scanShared(b *ptx.Block) {
	for _, st := range b.Stmts {
		switch st := st.(type) {
		case *ptx.Block:
			c.scanShared(st)
		case *ptx.VarDecl:
			if st.Space != isa.Shared && st.Space != isa.SharedCluster {
				continue
			}
			for _, n := range st.Names {
				scope := map[string]*sym{}
				c.declareVar(st, n, scope, false)
				if s := scope[n.Name]; s != nil {
					c.presetShared[n] = s
				}
			}
		}
	}
}

type pendingInit struct {
	s    *sym
	name *ptx.VarName
	decl *ptx.VarDecl
}

func (c *compiler) errorf(span ptx.Span, id ptx.DiagID, format string, args ...any) {
	c.diags.Errorf(span, id, format, args...)
}

// errorNotes reports an error with notes (its related locations).
func (c *compiler) errorNotes(span ptx.Span, id ptx.DiagID, notes []ptx.Note, format string, args ...any) {
	c.diags.Add(ptx.Diagnostic{Severity: ptx.SevError, ID: id, Span: span, Message: fmt.Sprintf(format, args...), Notes: notes})
}

// checkHeader requires the module header the PTX ISA requires: every
// module begins with a .version directive, immediately followed by a
// .target directive ("Each PTX module must begin with a .version
// directive, immediately followed by a .target directive"). ptxas
// rejects a module without them, so it is an error here too.
func (c *compiler) checkHeader() {
	h := c.mod.Header
	const example = "\".version 8.0\" then \".target sm_80\""
	switch {
	case h.Version.End == 0:
		c.errorf(h.First, ptx.DiagMissingVersion, "missing .version: a PTX module begins with a .version directive, then .target (for example %s)", example)
		return
	case !h.VersionFirst:
		c.errorf(h.Version, ptx.DiagVersionNotFirst, ".version must be the first statement of the module (only comments may precede it)")
	}
	switch {
	case h.Target.End == 0:
		c.errorf(h.Version, ptx.DiagMissingTarget, "missing .target: .version must be followed by a .target directive (for example \".target sm_80\")")
	case !h.TargetNext:
		c.errorf(h.Target, ptx.DiagTargetNotNext, ".target must come right after .version")
	}
}

func (c *compiler) run() {
	m := c.mod
	c.checkHeader()
	if m.AddressSize == 32 {
		c.diags.Warnf(ptx.Span{}, ptx.DiagAddressSize32, ".address_size 32: the emulator uses 64-bit generic addresses; 32-bit pointers are truncated")
	}
	// Pass 1: module-scope variables and function signatures.
	for _, d := range m.Decls {
		switch d := d.(type) {
		case *ptx.VarDecl:
			c.declareVars(d, c.global, true)
		case *ptx.Func:
			c.declareFunc(d)
		}
	}
	// Shared variables declared inside functions are laid out now too, so
	// that dynamic shared memory can start after all static shared memory
	// before any body is lowered.
	c.presetShared = map[*ptx.VarName]*sym{}
	for _, d := range m.Decls {
		if f, ok := d.(*ptx.Func); ok && f.Body != nil {
			c.scanFunc = f.Name
			c.scanShared(f.Body)
			c.scanFunc = ""
		}
	}
	c.finishShared()
	for _, p := range c.inits {
		c.initVar(p)
	}
	// Pass 2: function bodies.
	for _, d := range m.Decls {
		if f, ok := d.(*ptx.Func); ok && f.Body != nil {
			c.lowerFunc(f)
		}
		if c.diags.Full() {
			return
		}
	}
	c.markBuiltins()
	c.prog.LocalSize = align(c.localOff, 16)
	c.prog.constRows = make([][32]uint64, len(c.prog.Consts))
	for i, k := range c.prog.Consts {
		for l := range c.prog.constRows[i] {
			c.prog.constRows[i][l] = k.Val
		}
	}
	c.prog.lead = leadKinds(c.prog.Ops)
	c.prog.quiet = quietPCs(c.prog)
	for i := range c.prog.Ops {
		c.prog.remoteShared = c.prog.remoteShared || c.prog.Ops[i].Eff.Has(EffWriteRemoteShared)
	}
	c.prog.sharedLd = sharedLoads(c.prog.Ops, c.prog.quiet)
	c.prog.pure = pureRuns(c.prog.Ops, c.prog.lead)
	c.prog.silent = silentOps(c.prog.Ops)
	c.prog.runKind = runKinds(c.prog.Ops, c.prog.lead, c.prog.sharedLd, c.prog.pure)
	c.prog.straight = straightRuns(c.prog.Ops, c.prog.lead)
}

func align(n, a int) int {
	if a <= 1 {
		return n
	}
	return (n + a - 1) / a * a
}

// ---- declarations ----

func (c *compiler) declareVars(d *ptx.VarDecl, scope map[string]*sym, module bool) {
	for _, n := range d.Names {
		c.declareVar(d, n, scope, module)
	}
}

func elemSize(d *ptx.VarDecl) int {
	sz := d.Type.Size()
	if d.Vec > 1 {
		sz *= d.Vec
	}
	if sz == 0 {
		sz = 8 // opaque handles
	}
	return sz
}

// varSize returns the byte size of a declared variable; -1 for an unsized array.
func varSize(d *ptx.VarDecl, n *ptx.VarName) int {
	sz := elemSize(d)
	for i, dim := range n.Dims {
		if dim < 0 {
			if i == 0 && n.Init != nil && n.Init.Expr == nil {
				dim = len(n.Init.Elems)
			} else {
				return -1
			}
		}
		sz *= dim
	}
	return sz
}

func (c *compiler) redeclared(scope map[string]*sym, name string, span ptx.Span) bool {
	if old, ok := scope[name]; ok {
		p := c.prog.Src.Position(old.span.Start)
		c.errorNotes(span, ptx.DiagRedeclared, []ptx.Note{{Span: old.span, Message: name + " is first declared here"}},
			"%s redeclared in this scope (previous declaration at line %d)", name, p.Line)
		return true
	}
	return false
}

func (c *compiler) declareVar(d *ptx.VarDecl, n *ptx.VarName, scope map[string]*sym, module bool) {
	if d.Space == isa.Reg {
		c.declareReg(d, n, scope)
		return
	}
	if d.Type == isa.TNone && d.Space != isa.Tex {
		// .texref/.samplerref/.surfref and friends.
		if old := scope[n.Name]; old == nil || old.kind != symFunc || !c.redeclared(scope, n.Name, n.Span) {
			scope[n.Name] = &sym{kind: symOpaque, name: n.Name, span: n.Span}
		}
		return
	}
	if c.redeclared(scope, n.Name, n.Span) {
		return
	}
	if s, ok := c.presetShared[n]; ok {
		scope[n.Name] = s
		return
	}
	al := d.Align
	if al == 0 {
		al = d.Type.Size()
		if d.Vec > 1 {
			al *= d.Vec
		}
		if al == 0 {
			al = 8
		}
	}
	size := varSize(d, n)
	s := &sym{kind: symVar, name: n.Name, typ: d.Type, space: d.Space, size: size, align: al, span: n.Span}
	scope[n.Name] = s
	switch d.Space {
	case isa.Global:
		if size < 0 {
			c.errorf(n.Span, ptx.DiagMissingSize, "global array %s needs a size or an initializer", n.Name)
			size = 0
		}
		if d.Linkage == ptx.LinkExtern {
			c.diags.Warnf(n.Span, ptx.DiagExternWithoutDef, "extern global %s has no definition in this module; the emulator gives it zeroed storage", n.Name)
		}
		c.globalOff = align(c.globalOff, al)
		s.addr = GlobalBase + uint64(c.globalOff)
		if end := int64(c.globalOff) + int64(size); end > MaxGlobalSegment {
			// Valid PTX that the emulator cannot hold: a warning here, a
			// launch-limit error when it is run (see CheckConfig). The
			// variable gets no storage.
			c.diags.Warnf(n.Span, ptx.DiagEmulatorLimit, "%s takes the global variables past %d bytes (the emulator's limit is %d): the module checks but cannot be launched", n.Name, end, MaxGlobalSegment)
			c.prog.GlobalOver = max(c.prog.GlobalOver, end)
			size = 0
		}
		c.globalOff += size
		c.prog.GlobalSize = c.globalOff
	case isa.Const:
		if size < 0 {
			c.errorf(n.Span, ptx.DiagMissingSize, "constant array %s needs a size or an initializer", n.Name)
			size = 0
		}
		c.constOff = align(c.constOff, al)
		s.addr = uint64(c.constOff)
		if !c.checkSize(n.Span, n.Name, "constant bank", c.constOff+size, MaxConstBank) {
			size = 0
		}
		c.constOff += size
		c.growImg(&c.prog.ConstImg, c.constOff)
	case isa.Shared, isa.SharedCluster:
		if size < 0 || d.Linkage == ptx.LinkExtern && size == 0 {
			c.dynShared = append(c.dynShared, s)
			c.maxDynAl = max(c.maxDynAl, al)
			s.size = 0
		} else {
			c.sharedOff = align(c.sharedOff, al)
			s.addr = uint64(c.sharedOff)
			if !c.checkSize(n.Span, n.Name, "static shared memory", c.sharedOff+size, MaxSharedBytes) {
				size = 0
			}
			c.sharedOff += size
		}
	case isa.Local, isa.Param:
		if size < 0 {
			c.errorf(n.Span, ptx.DiagMissingSize, "%s array %s needs a size", d.Space, n.Name)
			size = 0
		}
		if d.Space == isa.Param && module {
			c.errorf(n.Span, ptx.DiagInvalidStateSpace, ".param variables are allowed only in functions")
		}
		c.localOff = align(c.localOff, al)
		s.addr = uint64(c.localOff)
		s.space = isa.Local
		s.funcParam = d.Space == isa.Param
		if !c.checkSize(n.Span, n.Name, "per-thread local memory", c.localOff+size, MaxLocalPerThread) {
			size = 0
		}
		c.localOff += size
	case isa.Tex:
		s.kind = symOpaque
	default:
		c.errorf(n.Span, ptx.DiagInvalidStateSpace, "variables cannot be declared in the %s state space", d.Space)
	}
	if n.Init != nil && !c.mod.HasSyntaxError(n.Init.Span) {
		switch d.Space {
		case isa.Global, isa.Const:
			if c.fn != nil {
				// Inside a body every module symbol is already known.
				c.initVar(pendingInit{s, n, d})
			} else {
				c.inits = append(c.inits, pendingInit{s, n, d})
			}
		default:
			c.errorf(n.Init.Span, ptx.DiagInvalidStateSpace, "only .global and .const variables can have initializers")
		}
	}
	if d.Space == isa.Global || d.Space == isa.Const || d.Space == isa.Shared {
		sym := Symbol{Name: n.Name, Space: s.space, Type: d.Type, Addr: s.addr, Size: max(s.size, 0), Align: al, Span: n.Span}
		switch {
		case module:
		case c.fn != nil:
			sym.Func = c.fn.Name
		default:
			sym.Func = c.scanFunc
		}
		c.prog.Globals = append(c.prog.Globals, sym)
	}
}

// Limits on statically declared memory, checked at compile time.
const (
	MaxGlobalSegment  = 256 << 20 // module .global variables
	MaxConstBank      = 64 << 10  // the constant bank, as on NVIDIA GPUs
	MaxLocalPerThread = 512 << 10 // per-thread local memory, as CUDA allows
	MaxRegisterRange  = 1 << 16   // registers one "%r<N>" declaration may declare
	MaxRegisterSlots  = 1 << 18   // register slots of a module (every function's)
)

// growImg extends an initial-contents image to n bytes (within the limits
// checked by the callers).
func (c *compiler) growImg(img *[]byte, n int) {
	if n > MaxGlobalSegment || n <= len(*img) {
		return
	}
	*img = append(*img, make([]byte, n-len(*img))...)
}

// checkSize reports a variable that pushes its segment past limit.
func (c *compiler) checkSize(span ptx.Span, name, what string, end, limit int) bool {
	if end <= limit {
		return true
	}
	c.errorf(span, ptx.DiagEmulatorLimit, "%s takes the %s past %d bytes (the emulator's limit is %d)", name, what, end, limit)
	return false
}

func (c *compiler) finishShared() {
	al := max(c.maxDynAl, 16)
	base := align(c.sharedOff, al)
	c.prog.SharedStatic = c.sharedOff
	c.prog.DynSharedBase = base
	for _, s := range c.dynShared {
		s.addr = uint64(base)
	}
	for i := range c.prog.Globals {
		g := &c.prog.Globals[i]
		if g.Space == isa.Shared && g.Size == 0 {
			g.Addr = uint64(base)
		}
	}
}

func (c *compiler) newReg(name string, t isa.Type, kind RegKind) int32 {
	if t == isa.Pred {
		c.prog.Preds = append(c.prog.Preds, RegInfo{Name: name, Type: t, Kind: kind, Func: c.fnIdx})
		return int32(len(c.prog.Preds) - 1)
	}
	c.prog.Regs = append(c.prog.Regs, RegInfo{Name: name, Type: t, Kind: kind, Func: c.fnIdx})
	return int32(len(c.prog.Regs) - 1)
}

func (c *compiler) declareReg(d *ptx.VarDecl, n *ptx.VarName, scope map[string]*sym) {
	if len(n.Dims) > 0 {
		c.errorf(n.Span, ptx.DiagInvalidDeclaration, "register arrays are not supported (%s)", n.Name)
		return
	}
	if n.Init != nil {
		c.errorf(n.Init.Span, ptx.DiagInvalidStateSpace, "registers cannot have initializers")
	}
	kind := symReg
	if d.Type == isa.Pred {
		kind = symPred
	}
	add := func(name string) {
		if c.redeclared(scope, name, n.Span) {
			return
		}
		if d.Vec > 1 {
			comps := []string{"x", "y", "z", "w"}
			first := int32(-1)
			for i := 0; i < d.Vec && i < 4; i++ {
				r := c.newReg(name+"."+comps[i], d.Type, RegUser)
				if first < 0 {
					first = r
				}
				scope[name+"."+comps[i]] = &sym{kind: kind, name: name + "." + comps[i], typ: d.Type, reg: r, span: n.Span}
			}
			scope[name] = &sym{kind: kind, name: name, typ: d.Type, reg: first, size: d.Vec, span: n.Span}
			return
		}
		scope[name] = &sym{kind: kind, name: name, typ: d.Type, reg: c.newReg(name, d.Type, RegUser), span: n.Span}
	}
	if len(c.prog.Regs)+max(n.Range, 1) > MaxRegisterSlots {
		c.errorf(n.Span, ptx.DiagEmulatorLimit, "%s: the module declares more than %d registers (the emulator's limit)", n.Name, MaxRegisterSlots)
		return
	}
	if n.Range > 0 {
		if n.Range > MaxRegisterRange {
			c.errorf(n.Span, ptx.DiagEmulatorLimit, "%s<%d>: a register range may declare at most %d registers", n.Name, n.Range, MaxRegisterRange)
			return
		}
		for i := 0; i < n.Range; i++ {
			add(n.Name + itoa(i))
		}
		return
	}
	add(n.Name)
}

func (c *compiler) declareFunc(f *ptx.Func) {
	if old, ok := c.global[f.Name]; ok && old.kind != symFunc {
		c.redeclared(c.global, f.Name, f.NameSpan)
		return
	}
	if old, ok := c.global[f.Name]; ok && old.kind == symFunc {
		if f.Body != nil && old.fdecl.Body != nil {
			c.errorNotes(f.NameSpan, ptx.DiagFunctionRedefined, []ptx.Note{{Span: old.fdecl.NameSpan, Message: "function " + f.Name + " is first defined here"}},
				"function %s redefined", f.Name)
			return
		}
		if f.Body != nil {
			old.fdecl = f
		}
		return
	}
	fn := &Function{Name: f.Name, Kind: f.Kind, Span: f.Span, index: int32(len(c.prog.Funcs))}
	c.prog.Funcs = append(c.prog.Funcs, fn)
	c.prog.funcByName[f.Name] = fn
	c.global[f.Name] = &sym{kind: symFunc, name: f.Name, fn: fn, fdecl: f, span: f.NameSpan}
}

// ---- initializers ----

func (c *compiler) initVar(p pendingInit) {
	img := &c.prog.GlobalImg
	base := int(p.s.addr - GlobalBase)
	if p.s.space == isa.Const {
		img = &c.prog.ConstImg
		base = int(p.s.addr)
	}
	esz := elemSize(p.decl)
	t := p.decl.Type
	var flat []*ptx.Init
	var walk func(in *ptx.Init)
	walk = func(in *ptx.Init) {
		if in.Expr != nil {
			flat = append(flat, in)
			return
		}
		for _, e := range in.Elems {
			walk(e)
		}
	}
	walk(p.name.Init)
	if p.decl.Vec > 1 {
		esz = t.Size()
	}
	if p.s.size >= 0 && len(flat)*esz > p.s.size {
		c.errorf(p.name.Init.Span, ptx.DiagInvalidInitializer, "too many initializers for %s (%d bytes, %d given)", p.s.name, p.s.size, len(flat)*esz)
		return
	}
	for i, in := range flat {
		v, ok := c.evalInit(in.Expr, t)
		if !ok {
			continue
		}
		off := base + i*esz
		if p.s.space != isa.Const && off+esz > len(*img) && off+esz <= c.prog.GlobalSize {
			// The .global image holds the initialized prefix of the
			// segment only; the machine zero-fills the rest.
			c.growImg(img, off+esz)
		}
		if off+esz <= len(*img) {
			putLE((*img)[off:off+esz], v)
		}
	}
}

// evalInit evaluates an initializer element of type t to raw bits.
func (c *compiler) evalInit(e *ptx.Expr, t isa.Type) (uint64, bool) {
	switch e.Kind {
	case ptx.ExprName:
		if s, ok := c.global[e.Name]; ok && s.kind == symVar {
			return s.addr, true
		}
	case ptx.ExprCall:
		if len(e.Args) == 1 && e.Args[0].Kind == ptx.ExprName {
			s, ok := c.global[e.Args[0].Name]
			if !ok || s.kind != symVar {
				if !c.maybeLost(e.Args[0].Name) {
					c.errorf(e.Args[0].Span, ptx.DiagUndefinedName, "undefined variable %s in initializer", e.Args[0].Name)
				}
				return 0, false
			}
			if e.Name == "generic" {
				w, _ := window(s.space)
				return s.addr + w, true
			}
			mask, err := parseIntLit(e.Name)
			if err != nil || mask == 0 {
				c.errorf(e.Span, ptx.DiagInvalidInitializer, "unknown initializer operator %s(...)", e.Name)
				return 0, false
			}
			shift := 0
			for mask>>shift&1 == 0 {
				shift++
			}
			return (s.addr & mask) >> shift, true
		}
		c.errorf(e.Span, ptx.DiagInvalidInitializer, "unknown initializer operator %s(...)", e.Name)
		return 0, false
	}
	v, err := ptx.Eval(e, c.lookupConst)
	if err != nil {
		c.evalError(e, err)
		return 0, false
	}
	return encodeImm(v, t), true
}

func parseIntLit(s string) (uint64, error) {
	var v uint64
	_, err := fmt.Sscan(s, &v)
	if err != nil && strings.HasPrefix(s, "0x") {
		_, err = fmt.Sscanf(s[2:], "%x", &v)
	}
	return v, err
}

// lookupConst resolves names inside constant expressions of initializers
// (variable addresses).
func (c *compiler) lookupConst(name string) (ptx.Value, bool) {
	if s, ok := c.global[name]; ok && s.kind == symVar {
		return ptx.Value{Kind: ptx.ValUint, Int: s.addr}, true
	}
	return ptx.Value{}, false
}

func (c *compiler) evalError(e *ptx.Expr, err error) {
	if ee, ok := err.(*ptx.EvalError); ok {
		c.errorf(ee.Span, ptx.DiagInvalidConstExpr, "%s", ee.Msg)
		return
	}
	c.errorf(e.Span, ptx.DiagInvalidConstExpr, "%v", err)
}

// encodeImm converts a constant to the raw bits of type t: integers are
// truncated (or converted for float types), floats converted (or truncated
// toward zero for integer types).
func encodeImm(v ptx.Value, t isa.Type) uint64 {
	isF := v.Kind == ptx.ValFloat
	switch t {
	case isa.F32:
		if isF {
			return uint64(math.Float32bits(float32(v.Float)))
		}
		return uint64(math.Float32bits(float32(intVal(v))))
	case isa.F64:
		if isF {
			return math.Float64bits(v.Float)
		}
		return math.Float64bits(intVal(v))
	case isa.F16, isa.BF16:
		f := v.Float
		if !isF {
			f = intVal(v)
		}
		if t == isa.F16 {
			return uint64(f32ToF16RN(float32(f)))
		}
		b := math.Float32bits(float32(f))
		return uint64((b + 0x7fff + (b >> 16 & 1)) >> 16)
	}
	bits := t.Bits()
	x := v.Int
	if isF {
		if t.Bits() <= 32 {
			// 0f literal used as a 32-bit pattern for a .b32/.u32 operand.
			x = uint64(math.Float32bits(float32(v.Float)))
		} else {
			x = math.Float64bits(v.Float)
		}
	}
	if bits > 0 && bits < 64 {
		x &= 1<<bits - 1
	}
	return x
}

func intVal(v ptx.Value) float64 {
	if v.Kind == ptx.ValUint {
		return float64(v.Int)
	}
	return float64(int64(v.Int))
}

// f32ToF16RN converts to IEEE half precision with round-to-nearest-even.
func f32ToF16RN(f float32) uint16 {
	b := math.Float32bits(f)
	sign := uint16(b>>16) & 0x8000
	exp := int(b>>23&0xff) - 127 + 15
	man := b & 0x7fffff
	if b&0x7fffffff > 0x7f800000 {
		return sign | 0x7e00
	}
	if exp >= 31 {
		return sign | 0x7c00
	}
	if exp <= 0 {
		if exp < -10 {
			return sign
		}
		man |= 0x800000
		shift := uint(14 - exp)
		h := man >> shift
		rem := man & (1<<shift - 1)
		half := uint32(1) << (shift - 1)
		if rem > half || rem == half && h&1 == 1 {
			h++
		}
		return sign | uint16(h)
	}
	h := uint32(exp)<<10 | man>>13
	rem := man & 0x1fff
	if rem > 0x1000 || rem == 0x1000 && h&1 == 1 {
		h++
	}
	return sign | uint16(h)
}
