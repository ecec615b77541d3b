package emu

import (
	"math"

	"github.com/ptxplayground/ptxplay/engine/isa"
	"github.com/ptxplayground/ptxplay/engine/ptx"
)

// binder is what an instruction family's bindFn works with: the decoded
// modifiers, the operands, and the Op to fill in. Accessors that find a
// problem report it (with the operand's span) and mark the binder failed;
// bindFns may simply return when b.failed is set.
//
// Every modifier must be consumed by the bindFn through the accessors
// (Type, Types, Space, Rnd, Cmp, Sub, Flag, Vec); whatever is left is
// reported as "modifier .x is not valid for ...". Hints (cache operators,
// memory-order and scope qualifiers) are always accepted.
type binder struct {
	c      *compiler
	ins    *ptx.Instr
	op     *Op
	name   string
	m      Mods
	failed bool
	used   struct {
		types, space, rnd, cmp, vec, tensor bool
		subs                                int
		flags                               isa.Flags
	}
	fixups []fixup
	// memOps holds the memory operands bound so far (PC is filled in when
	// the instruction is emitted).
	memOps []MemOperand
	// roles holds the register operands resolved so far (Program.Operands).
	roles []Operand
	// notYet: the bound form is recognised but not executed (its Exec
	// faults; its effects are EffFault).
	notYet bool
}

func (b *binder) decodeMods(mods []ptx.Mod) {
	for _, m := range mods {
		d, ok := isa.LookupMod(m.Name)
		if !ok {
			b.c.errorf(m.Span, ptx.DiagUnknownModifier, "%s: unknown modifier .%s", b.name, m.Name)
			b.failed = true
			continue
		}
		switch d.Kind {
		case isa.ModType:
			b.m.Types = append(b.m.Types, isa.Type(d.Value))
		case isa.ModSpace:
			b.m.Space, b.m.HasSp = isa.Space(d.Value), true
		case isa.ModRnd:
			b.m.Rnd = isa.Rnd(d.Value)
		case isa.ModCmp:
			b.m.Cmp = isa.Cmp(d.Value)
		case isa.ModSub:
			b.m.Subs = append(b.m.Subs, isa.SubOp(d.Value))
		case isa.ModFlag:
			b.m.Flags = b.m.Flags.With(isa.Flag(d.Value))
		case isa.ModVec:
			b.m.Vec = int(d.Value)
		case isa.ModShape, isa.ModLayout, isa.ModNum, isa.ModElem, isa.ModTensor, isa.ModWgmmaShape:
			b.m.Tensor = append(b.m.Tensor, d)
			b.m.TensorNames = append(b.m.TensorNames, m.Name)
		case isa.ModHint:
			b.m.Hints = append(b.m.Hints, m.Name)
		}
	}
}

func (b *binder) checkUnused() {
	bad := func(what string) {
		b.c.errorf(b.ins.OpSpan, ptx.DiagInvalidModifier, "%s: %s is not valid for this instruction", b.name, what)
		b.failed = true
	}
	if len(b.m.Types) > 0 && !b.used.types {
		bad("type modifier ." + b.m.Types[0].String())
	}
	if b.m.HasSp && !b.used.space {
		bad("state space ." + b.m.Space.String())
	}
	if b.m.Rnd != isa.RndNone && !b.used.rnd {
		bad("rounding modifier ." + b.m.Rnd.String())
	}
	if b.m.Cmp != isa.CmpNone && !b.used.cmp {
		bad("comparison ." + b.m.Cmp.String())
	}
	if len(b.m.Subs) > b.used.subs {
		bad("modifier ." + b.m.Subs[b.used.subs].String())
	}
	if b.m.Vec != 0 && !b.used.vec {
		bad("vector modifier .v" + itoa(b.m.Vec))
	}
	if len(b.m.Tensor) > 0 && !b.used.tensor {
		bad("modifier ." + b.m.TensorNames[0])
	}
	if rest := b.m.Flags &^ b.used.flags; rest != 0 {
		for f := isa.Flag(0); f < isa.NumFlags; f++ {
			if rest.Has(f) {
				bad("modifier ." + f.String())
				break
			}
		}
	}
}

// errorf reports an invalid form of the instruction, at the instruction.
func (b *binder) errorf(format string, args ...any) {
	b.errorID(ptx.DiagInvalidForm, format, args...)
}

// errorID reports an error of kind id at the instruction.
func (b *binder) errorID(id ptx.DiagID, format string, args ...any) {
	b.c.errorf(b.ins.Span, id, b.name+": "+format, args...)
	b.failed = true
}

// warnNonISA warns of a harmless modifier the ISA does not define for the
// form (it is accepted and ignored).
func (b *binder) warnNonISA(format string, args ...any) {
	b.c.diags.Warnf(b.ins.OpSpan, ptx.DiagNonISAModifier, b.name+": "+format, args...)
}

// operr reports an invalid operand i.
func (b *binder) operr(i int, format string, args ...any) {
	b.operrID(i, ptx.DiagInvalidOperand, format, args...)
}

// operrID reports an error of kind id at operand i.
func (b *binder) operrID(i int, id ptx.DiagID, format string, args ...any) {
	span := b.ins.Span
	if i >= 0 && i < len(b.ins.Operands) {
		span = b.ins.Operands[i].Span
	}
	b.c.errorf(span, id, b.name+": "+format, args...)
	b.failed = true
}

// N returns the number of operands.
func (b *binder) N() int { return len(b.ins.Operands) }

// Want checks the operand count is between lo and hi.
func (b *binder) Want(lo, hi int) bool {
	n := b.N()
	if n < lo || n > hi {
		if lo == hi {
			b.errorID(ptx.DiagOperandCount, "expects %d operands, got %d", lo, n)
		} else {
			b.errorID(ptx.DiagOperandCount, "expects %d to %d operands, got %d", lo, hi, n)
		}
		return false
	}
	return true
}

// Type returns the single type modifier (an error if there is not exactly one).
func (b *binder) Type() isa.Type {
	b.used.types = true
	if len(b.m.Types) != 1 {
		if len(b.m.Types) == 0 {
			b.errorID(ptx.DiagTypeModifiers, "missing type modifier")
		} else {
			b.errorID(ptx.DiagTypeModifiers, "expects one type modifier, got %d", len(b.m.Types))
		}
		return isa.TNone
	}
	return b.m.Types[0]
}

// Types returns the type modifiers in order, requiring exactly n of them.
func (b *binder) Types(n int) []isa.Type {
	b.used.types = true
	if len(b.m.Types) != n {
		b.errorID(ptx.DiagTypeModifiers, "expects %d type modifiers, got %d", n, len(b.m.Types))
		return make([]isa.Type, n)
	}
	return b.m.Types
}

// AllTypes returns the type modifiers in order, however many.
func (b *binder) AllTypes() []isa.Type {
	b.used.types = true
	return b.m.Types
}

// Space returns the state-space modifier (SpaceNone: generic).
func (b *binder) Space() isa.Space {
	b.used.space = true
	return b.m.Space
}

// Rnd returns the rounding modifier (RndNone if absent).
func (b *binder) Rnd() isa.Rnd {
	b.used.rnd = true
	return b.m.Rnd
}

// Cmp returns the comparison modifier (CmpNone if absent).
func (b *binder) Cmp() isa.Cmp {
	b.used.cmp = true
	return b.m.Cmp
}

// Sub returns the next sub-operation modifier in order (SubNone if none left).
func (b *binder) Sub() isa.SubOp {
	if b.used.subs >= len(b.m.Subs) {
		return isa.SubNone
	}
	s := b.m.Subs[b.used.subs]
	b.used.subs++
	return s
}

// Flag reports whether flag f is present and marks it valid.
func (b *binder) Flag(f isa.Flag) bool {
	b.used.flags = b.used.flags.With(f)
	return b.m.Flags.Has(f)
}

// Hint reports whether the hint modifier .name is present.
func (b *binder) Hint(name string) bool {
	for _, h := range b.m.Hints {
		if h == name {
			return true
		}
	}
	return false
}

// Vec returns the vector width (0 if scalar).
func (b *binder) Vec() int {
	b.used.vec = true
	return b.m.Vec
}

// Tensor returns the tensor-instruction modifiers (shape, layouts, matrix
// count, sub-byte element types, tensor-copy words) in order, decoded.
func (b *binder) Tensor() []isa.Mod {
	b.used.tensor = true
	return b.m.Tensor
}

func (b *binder) opd(i int) *ptx.Operand {
	if i < 0 || i >= len(b.ins.Operands) {
		b.errorID(ptx.DiagOperandCount, "missing operand %d", i+1)
		return nil
	}
	return b.ins.Operands[i]
}

// IsImm reports whether operand i is a constant expression.
func (b *binder) IsImm(i int) bool {
	o := b.opd(i)
	return o != nil && o.Kind == ptx.OpdImm
}

// IsSink reports whether operand i is "_".
func (b *binder) IsSink(i int) bool {
	o := b.opd(i)
	return o != nil && o.Kind == ptx.OpdSink
}

// Imm evaluates operand i as a constant expression.
func (b *binder) Imm(i int) (ptx.Value, bool) {
	o := b.opd(i)
	if o == nil {
		return ptx.Value{}, false
	}
	if o.Kind != ptx.OpdImm {
		b.operr(i, "operand %d must be a constant", i+1)
		return ptx.Value{}, false
	}
	v, err := ptx.Eval(o.Expr, nil)
	if err != nil {
		b.c.evalError(o.Expr, err)
		b.failed = true
		return ptx.Value{}, false
	}
	return v, true
}

// compatible implements PTX operand type checking: a register of type rt may
// be used where the instruction expects t when both have the same size and
// neither is a float of another kind (bit-size types match anything of
// their size). Wider registers are allowed where relaxed (memory and
// conversion instructions).
func compatible(rt, t isa.Type, relaxed bool) bool {
	if rt == t || t == isa.TNone || rt == isa.TNone {
		return true
	}
	if rt == isa.Pred || t == isa.Pred {
		return false
	}
	rs, ts := rt.Bits(), t.Bits()
	if relaxed {
		return rs >= ts || rt.Kind() == isa.KindBits || t.Kind() == isa.KindBits
	}
	if rs != ts {
		return false
	}
	rk, tk := rt.Kind(), t.Kind()
	if rk == isa.KindBits || tk == isa.KindBits {
		return true
	}
	if rk == isa.KindFloat || tk == isa.KindFloat {
		// f16x2/bf16x2 packed halves live in 32-bit registers declared as
		// .b32 (handled above) or .f32 in older code.
		return rk == tk
	}
	return true
}

// Dst resolves operand i as a destination value register for type t
// (t == Pred: a predicate register; returns its predicate slot). A sink
// "_" returns a scratch slot.
func (b *binder) Dst(i int, t isa.Type) int32 { return b.reg(i, t, true, false) }

// DstRelaxed is Dst allowing a register wider than t (ld, cvt).
func (b *binder) DstRelaxed(i int, t isa.Type) int32 { return b.reg(i, t, true, true) }

// Src resolves operand i as a source of type t: a register, an immediate
// (materialised as a constant slot holding its bits for t), a special
// register, or the address of a variable. For t == Pred it returns a
// predicate slot; a negated "!p" sets the negation bit for field (0 for A,
// 1 for B, 2 for C, 3 for E) only through SrcPred.
func (b *binder) Src(i int, t isa.Type) int32 { return b.reg(i, t, false, false) }

// SrcRelaxed is Src allowing a register wider than t.
func (b *binder) SrcRelaxed(i int, t isa.Type) int32 { return b.reg(i, t, false, true) }

// SrcPred resolves operand i as a predicate source, possibly negated ("!p"),
// setting bit field of op.Neg for negation. Immediates 0 and 1 are allowed.
func (b *binder) SrcPred(i int, field uint8) int32 {
	o := b.opd(i)
	if o == nil {
		return -1
	}
	r := b.reg(i, isa.Pred, false, false)
	if o.Neg {
		b.op.Neg |= 1 << field
	}
	return r
}

func (b *binder) scratch(t isa.Type) int32 {
	r := b.c.newReg("_", t, RegConst)
	b.c.prog.Regs[r].Used = true
	return r
}

// reg resolves operand i (see Dst and Src) and records it among the
// instruction's register operands.
func (b *binder) reg(i int, t isa.Type, write, relaxed bool) int32 {
	r := b.resolve(i, t, write, relaxed)
	b.record(r, t, write)
	return r
}

func (b *binder) resolve(i int, t isa.Type, write, relaxed bool) int32 {
	o := b.opd(i)
	if o == nil {
		return -1
	}
	if o.Kind == ptx.OpdVec && len(o.Elems) == 1 {
		// "{ %r1 }": a one-element vector (Triton writes these) is its element.
		saved := b.ins.Operands
		b.ins.Operands = o.Elems
		r := b.reg(0, t, write, relaxed)
		b.ins.Operands = saved
		return r
	}
	switch o.Kind {
	case ptx.OpdSink:
		if !write {
			b.operr(i, "_ can only be a destination")
			return -1
		}
		return b.scratch(t)
	case ptx.OpdImm:
		if write {
			b.operr(i, "destination operand %d must be a register", i+1)
			return -1
		}
		v, err := ptx.Eval(o.Expr, nil)
		if err != nil {
			b.c.evalError(o.Expr, err)
			b.failed = true
			return -1
		}
		if t == isa.Pred {
			return b.c.predConstant(v.Int != 0 || v.Float != 0)
		}
		if e := o.Expr; e.Kind == ptx.ExprFloat && e.RawBits {
			// A 0f/0d literal used at its own width is its exact bits.
			if e.F32 && t.Bits() == 32 || !e.F32 && t.Bits() == 64 {
				return b.c.constant(e.Int)
			}
		}
		return b.c.constant(encodeImm(v, t))
	case ptx.OpdName:
		if o.Neg && t != isa.Pred {
			b.operr(i, "! applies only to predicates")
			return -1
		}
		s := b.c.lookup(o.Name)
		if s == nil {
			if sr, ok := isa.LookupSpecial(o.Name); ok {
				if write {
					b.operr(i, "special register %s is read-only", o.Name)
					return -1
				}
				if isa.Specials[sr].Dynamic {
					b.op.Dyn = true
				}
				if t == isa.Pred {
					if isa.Specials[sr].Bits != 1 {
						b.operr(i, "special register %s is not a predicate", o.Name)
						return -1
					}
					return b.c.specialPred(sr)
				}
				return b.c.special(sr)
			}
			if b.c.labelVisible(o.Name) {
				b.operr(i, "label %s used as a value", o.Name)
				return -1
			}
			b.operrID(i, ptx.DiagUndefinedName, "undefined name %s", o.Name)
			return -1
		}
		switch s.kind {
		case symPred:
			if t != isa.Pred {
				b.operr(i, "predicate %s used where a .%s value is expected", o.Name, t)
				return -1
			}
			return s.reg
		case symReg:
			if t == isa.Pred {
				b.operr(i, "%s is not a predicate register", o.Name)
				return -1
			}
			if s.size > 1 {
				b.operr(i, "vector register %s needs a component (.x, .y, ...)", o.Name)
				return -1
			}
			if !compatible(s.typ, t, relaxed) {
				b.operr(i, "operand %s has type .%s, incompatible with .%s", o.Name, s.typ, t)
				return -1
			}
			return s.reg
		case symVar:
			if write {
				b.operr(i, "variable %s cannot be a destination (use st)", o.Name)
				return -1
			}
			// A variable used as a value is its address in its state space.
			return b.c.constant(s.addr)
		case symFunc:
			if write {
				b.operr(i, "function %s cannot be a destination", o.Name)
				return -1
			}
			return b.c.constant(funcAddr(s.fn, b.c.prog))
		default:
			b.operr(i, "%s cannot be used as a value", o.Name)
			return -1
		}
	default:
		b.operr(i, "operand %d must be a register or a constant", i+1)
		return -1
	}
}

// funcAddr is the value of a function's address (for indirect calls): an
// address in a reserved range that encodes the function index.
// Taking the address marks the function a possible indirect-call target.
func funcAddr(fn *Function, p *Program) uint64 {
	for i, f := range p.Funcs {
		if f == fn {
			fn.AddrTaken = true
			return FuncAddrBase + uint64(i)*16
		}
	}
	return 0
}

// FuncAddrBase is where function addresses live (not dereferenceable).
const FuncAddrBase uint64 = 0x0000_5000_0000_0000

// Addr resolves a memory operand "[base+off]" / "var[off]": it returns the
// base value slot (-1 for an absolute or symbol address), the constant
// offset, and the state space of a symbol base (SpaceNone when the base is a
// register). Device-function parameters resolve to local memory.
func (b *binder) Addr(i int) (base int32, off int64, space isa.Space, ok bool) {
	o := b.opd(i)
	if o == nil {
		return -1, 0, 0, false
	}
	if o.Kind != ptx.OpdAddr {
		b.operr(i, "operand %d must be an address [...]", i+1)
		return -1, 0, 0, false
	}
	if o.Expr != nil {
		v, err := ptx.Eval(o.Expr, nil)
		if err != nil {
			b.c.evalError(o.Expr, err)
			b.failed = true
			return -1, 0, 0, false
		}
		off = int64(v.Int)
		if v.Kind == ptx.ValFloat {
			b.operr(i, "address offset must be an integer")
			return -1, 0, 0, false
		}
	}
	if o.Name == "" {
		return -1, off, isa.SpaceNone, true
	}
	s := b.c.lookup(o.Name)
	if s == nil {
		b.operrID(i, ptx.DiagUndefinedName, "undefined name %s", o.Name)
		return -1, 0, 0, false
	}
	switch s.kind {
	case symReg:
		if s.typ.Bits() != 64 && s.typ.Bits() != 32 {
			b.operr(i, "address register %s must be 32 or 64 bits wide", o.Name)
			return -1, 0, 0, false
		}
		b.record(s.reg, s.typ, false)
		return s.reg, off, isa.SpaceNone, true
	case symVar:
		return -1, int64(s.addr) + off, s.space, true
	case symOpaque:
		b.operr(i, "%s is a texture/surface handle; texture and surface instructions are not supported by the emulator", o.Name)
		return -1, 0, 0, false
	}
	b.operr(i, "%s cannot be used as an address", o.Name)
	return -1, 0, 0, false
}

// VecRegs resolves operand i as a vector "{a, b, ...}" of n elements of
// type t (sinks "_" allowed for destinations); immediates allowed for
// sources. A plain register is accepted when n == 1.
func (b *binder) VecRegs(i, n int, t isa.Type, write bool) []int32 {
	o := b.opd(i)
	if o == nil {
		return nil
	}
	if o.Kind != ptx.OpdVec {
		if n == 1 {
			return []int32{b.reg(i, t, write, true)}
		}
		if o.Kind == ptx.OpdName {
			if s := b.c.lookup(o.Name); s != nil && s.kind == symReg && s.size == n {
				out := make([]int32, n)
				for k := range out {
					out[k] = s.reg + int32(k)
					b.record(out[k], t, write)
				}
				return out
			}
		}
		b.operr(i, "operand %d must be a vector of %d elements {...}", i+1, n)
		return nil
	}
	if len(o.Elems) != n {
		b.operr(i, "vector operand has %d elements, expected %d", len(o.Elems), n)
		return nil
	}
	// Resolve elements through a temporary binder view of the element operands.
	saved := b.ins.Operands
	b.ins.Operands = o.Elems
	out := make([]int32, n)
	for k := range o.Elems {
		out[k] = b.reg(k, t, write, true)
	}
	b.ins.Operands = saved
	return out
}

// Label resolves operand i as a branch target label; the target pc is
// filled into op.Target after the function is lowered.
func (b *binder) Label(i int) {
	o := b.opd(i)
	if o == nil {
		return
	}
	if o.Kind != ptx.OpdName {
		b.operr(i, "operand %d must be a label", i+1)
		return
	}
	b.fixups = append(b.fixups, fixup{label: o.Name, span: o.Span, table: -1, scope: b.c.lscope})
}

// ---- constant and special slots ----

func (c *compiler) constant(v uint64) int32 {
	if r, ok := c.consts[v]; ok {
		return r
	}
	save := c.fnIdx
	c.fnIdx = -1
	r := c.newReg("", isa.B64, RegConst)
	c.fnIdx = save
	c.prog.Regs[r].Name = constName(v)
	c.consts[v] = r
	c.constVal[r] = v
	c.prog.Consts = append(c.prog.Consts, ConstReg{Reg: r, Val: v})
	return r
}

// immediate reports the value of slot where it is an immediate operand's
// (a read-only row of Program.constRows holding v in every lane).
func (b *binder) immediate(slot int32) (v uint64, ok bool) {
	v, ok = b.c.constVal[slot]
	return v, ok
}

func constName(v uint64) string {
	if v < 1<<20 {
		return itoa(int(v))
	}
	const hex = "0123456789abcdef"
	s := ""
	for v > 0 {
		s = string(hex[v&15]) + s
		v >>= 4
	}
	return "0x" + s
}

func (c *compiler) predConstant(v bool) int32 {
	i := 0
	if v {
		i = 1
	}
	if c.predConst[i] < 0 {
		save := c.fnIdx
		c.fnIdx = -1
		c.predConst[i] = c.newReg([]string{"false", "true"}[i], isa.Pred, RegConst)
		c.prog.Preds[c.predConst[i]].Used = true
		c.fnIdx = save
	}
	return c.predConst[i]
}

// PredTrueSlot / PredFalseSlot are found via Program.Preds names at machine
// start: constants "true" and "false" are RegConst predicate slots.

func (c *compiler) special(sr isa.Special) int32 {
	if r, ok := c.specials[sr]; ok {
		return r
	}
	save := c.fnIdx
	c.fnIdx = -1
	t := isa.U32
	if isa.Specials[sr].Bits == 64 {
		t = isa.U64
	}
	r := c.newReg(isa.Specials[sr].Name, t, RegSpecial)
	c.prog.Regs[r].Used = true
	c.fnIdx = save
	c.specials[sr] = r
	c.prog.Specials = append(c.prog.Specials, SpecialReg{Reg: r, SR: sr})
	return r
}

// specialPred returns the predicate slot holding the predicate special
// register sr (%is_explicit_cluster), which NewMachine's CTAs fill in.
func (c *compiler) specialPred(sr isa.Special) int32 {
	if r, ok := c.specialPreds[sr]; ok {
		return r
	}
	save := c.fnIdx
	c.fnIdx = -1
	r := c.newReg(isa.Specials[sr].Name, isa.Pred, RegSpecial)
	c.prog.Preds[r].Used = true
	c.fnIdx = save
	if c.specialPreds == nil {
		c.specialPreds = map[isa.Special]int32{}
	}
	c.specialPreds[sr] = r
	return r
}

// f32bits returns the raw bits of f as a register value.
func f32bits(f float32) uint64 { return uint64(math.Float32bits(f)) }
