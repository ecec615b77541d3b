package emu

import (
	"math"
	"math/bits"

	"github.com/ptxplayground/ptxplay/engine/fpx"
	"github.com/ptxplayground/ptxplay/engine/isa"
	"github.com/ptxplayground/ptxplay/engine/ptx"
)

// Comparison and selection instructions: setp, set, selp, slct.
//
// A comparison is evaluated into a bitmask, which is then combined with
// the optional predicate c and merged into the destinations under the
// execution mask (bits of inactive lanes are left unspecified). Integer,
// f32 and f64 comparisons have one kernel per operator and type
// (exec_cmp_gen.go, written by gen_cmp.go), which compares all 32 lanes in
// a straight loop when every lane is active and only the active lanes
// otherwise. Half-precision comparisons use the table-driven generic
// kernels: each lane's comparison has one of four outcomes (a < b, a == b,
// a > b, unordered); ixCmpTable gives, for every comparison operator, the
// outcomes for which it holds. The generic kernels exist for every type and
// are the reference the specialised ones are tested against.

//go:generate go run gen_cmp.go

func init() {
	binders[isa.OpSetp] = bindSetp
	binders[isa.OpSet] = bindSet
	binders[isa.OpSelp] = bindSelp
	binders[isa.OpSlct] = bindSlct
}

// Outcome bits of a comparison.
const (
	ixLT  = 1 << 0
	ixEQ  = 1 << 1
	ixGT  = 1 << 2
	ixUN  = 1 << 3 // unordered: a NaN operand
	ixOrd = ixLT | ixEQ | ixGT
)

var ixCmpTable = [isa.NumCmp]uint32{
	isa.EQ:  ixEQ,
	isa.NE:  ixLT | ixGT,
	isa.LT:  ixLT,
	isa.LE:  ixLT | ixEQ,
	isa.GT:  ixGT,
	isa.GE:  ixGT | ixEQ,
	isa.LO:  ixLT,
	isa.LS:  ixLT | ixEQ,
	isa.HI:  ixGT,
	isa.HS:  ixGT | ixEQ,
	isa.EQU: ixEQ | ixUN,
	isa.NEU: ixLT | ixGT | ixUN,
	isa.LTU: ixLT | ixUN,
	isa.LEU: ixLT | ixEQ | ixUN,
	isa.GTU: ixGT | ixUN,
	isa.GEU: ixGT | ixEQ | ixUN,
	isa.NUM: ixOrd,
	isa.NAN: ixUN,
}

// ixCmpKernel evaluates a comparison of op.A and op.B for (at least) the
// lanes in mask: bit l of lo is lane l's result (of the low halves for
// packed pairs), bit l of hi the result of the high halves of packed pairs.
type ixCmpKernel func(w *Warp, op *Op, mask uint32) (lo, hi uint32)

// ixMaskedCmp is a specialised comparison of the lanes in mask of a and b;
// the bits of other lanes are unspecified.
type ixMaskedCmp func(a, b *[32]uint64, mask uint32) uint32

// ixB converts a comparison result to a bit.
func ixB(b bool) uint32 {
	if b {
		return 1
	}
	return 0
}

// ixFtzCmp wraps the f32 kernel k so that it compares with subnormal
// operands flushed to (sign-preserving) zero.
func ixFtzCmp(k ixMaskedCmp) ixMaskedCmp {
	return func(a, b *[32]uint64, mask uint32) uint32 {
		var x, y [32]uint64
		for l := range x {
			x[l] = uint64(fpx.FlushF32(uint32(a[l])))
			y[l] = uint64(fpx.FlushF32(uint32(b[l])))
		}
		return k(&x, &y, mask)
	}
}

// ixNewMaskedCmp returns the specialised kernel of c on type t (flushing
// f32 subnormals when ftz), or nil for the half types.
func ixNewMaskedCmp(t isa.Type, c isa.Cmp, ftz bool) ixMaskedCmp {
	k := ixCmpSpecial(t, c)
	if k != nil && ftz && t == isa.F32 {
		k = ixFtzCmp(k)
	}
	return k
}

// ixCmpMod reads the comparison operator. ".lo" and ".hi" decode as flags
// (they double as mul modes), so they are accepted here as LO and HI.
func ixCmpMod(b *binder) isa.Cmp {
	c := b.Cmp()
	lo, hi := b.Flag(isa.FLo), b.Flag(isa.FHi)
	n := 0
	for _, x := range []bool{c != isa.CmpNone, lo, hi} {
		if x {
			n++
		}
	}
	if n != 1 {
		if !b.failed {
			b.errorf("needs exactly one comparison operator")
		}
		return isa.CmpNone
	}
	switch {
	case lo:
		return isa.LO
	case hi:
		return isa.HI
	}
	return c
}

// ixCmpValid checks that comparison c applies to operand type t.
func ixCmpValid(b *binder, c isa.Cmp, t isa.Type) bool {
	if b.failed {
		return false
	}
	ok, what := ixCmpAllowed(c, t)
	if !ok {
		b.errorf("comparison .%s is not valid for .%s (%s)", c, t, what)
	}
	return ok
}

// ixCmpAllowed reports whether comparison c applies to operand type t and,
// if not, which comparisons do.
func ixCmpAllowed(c isa.Cmp, t isa.Type) (bool, string) {
	switch t.Kind() {
	case isa.KindBits:
		return c == isa.EQ || c == isa.NE, "bit-size types allow .eq and .ne"
	case isa.KindSigned:
		return c >= isa.EQ && c <= isa.GE, "signed types allow .eq, .ne, .lt, .le, .gt, .ge"
	case isa.KindUnsigned:
		return c >= isa.EQ && c <= isa.HS, "unsigned types allow .eq, .ne, .lt, .le, .gt, .ge, .lo, .ls, .hi, .hs"
	case isa.KindFloat:
		return c >= isa.EQ && c <= isa.GE || c >= isa.EQU && c <= isa.NAN, "floating-point types do not allow .lo, .ls, .hi, .hs"
	}
	return false, ""
}

// ixCmpTypes are the operand types setp and set compare.
var ixCmpTypes = []isa.Type{isa.B16, isa.B32, isa.B64, isa.U16, isa.U32, isa.U64, isa.S16, isa.S32, isa.S64,
	isa.F32, isa.F64, isa.F16, isa.F16x2, isa.BF16, isa.BF16x2}

// ixNewCmpKernel returns the comparison kernel of c on operands of type t:
// the specialised one where there is one.
func ixNewCmpKernel(t isa.Type, c isa.Cmp, ftz bool) ixCmpKernel {
	if k := ixNewMaskedCmp(t, c, ftz); k != nil {
		return func(w *Warp, op *Op, mask uint32) (uint32, uint32) { return k(w.r(op.A), w.r(op.B), mask), 0 }
	}
	return ixGenericCmpKernel(t, c, ftz)
}

// ixGenericCmpKernel returns the table-driven kernel of c on type t, which
// compares all 32 lanes.
func ixGenericCmpKernel(t isa.Type, c isa.Cmp, ftz bool) ixCmpKernel {
	tbl := ixCmpTable[c]
	switch t {
	case isa.F32:
		return func(w *Warp, op *Op, _ uint32) (uint32, uint32) { return ixCmpF32(w.r(op.A), w.r(op.B), tbl, ftz), 0 }
	case isa.F64:
		return func(w *Warp, op *Op, _ uint32) (uint32, uint32) { return ixCmpF64(w.r(op.A), w.r(op.B), tbl), 0 }
	case isa.F16, isa.BF16, isa.F16x2, isa.BF16x2:
		bf := t == isa.BF16 || t == isa.BF16x2
		x2 := t == isa.F16x2 || t == isa.BF16x2
		return func(w *Warp, op *Op, _ uint32) (uint32, uint32) {
			return ixCmpHalf(w.r(op.A), w.r(op.B), tbl, bf, x2, ftz)
		}
	}
	w := ixWidth(t)
	m := ixMask(w)
	var s uint64
	if t.IsSigned() {
		s = 1 << (w - 1)
	}
	return func(w *Warp, op *Op, _ uint32) (uint32, uint32) { return ixCmpInt(w.r(op.A), w.r(op.B), m, s, tbl), 0 }
}

// ixCmpInt compares integers: each operand is masked with m and its sign
// bit flipped (s) for signed types, so that an unsigned comparison orders
// them. Branch-free: the outcome index is 1 - lt + gt.
func ixCmpInt(a, b *[32]uint64, m, s uint64, tbl uint32) uint32 {
	var r uint32
	for l := range a {
		x, y := a[l]&m^s, b[l]&m^s
		_, lt := bits.Sub64(x, y, 0)
		_, gt := bits.Sub64(y, x, 0)
		r |= (tbl >> (1 - lt + gt) & 1) << l
	}
	return r
}

// ixOutcome classifies x against y: 0 less, 1 equal, 2 greater, 3 unordered.
func ixOutcome(x, y float64) uint32 {
	switch {
	case x < y:
		return 0
	case x == y:
		return 1
	case x > y:
		return 2
	}
	return 3
}

func ixOutcome32(x, y float32) uint32 {
	switch {
	case x < y:
		return 0
	case x == y:
		return 1
	case x > y:
		return 2
	}
	return 3
}

func ixCmpF32(a, b *[32]uint64, tbl uint32, ftz bool) uint32 {
	var r uint32
	for l := range a {
		x, y := uint32(a[l]), uint32(b[l])
		if ftz {
			x, y = fpx.FlushF32(x), fpx.FlushF32(y)
		}
		r |= (tbl >> ixOutcome32(math.Float32frombits(x), math.Float32frombits(y)) & 1) << l
	}
	return r
}

func ixCmpF64(a, b *[32]uint64, tbl uint32) uint32 {
	var r uint32
	for l := range a {
		r |= (tbl >> ixOutcome(math.Float64frombits(a[l]), math.Float64frombits(b[l])) & 1) << l
	}
	return r
}

// ixHalf widens an f16 or bf16 (exactly) to float32, flushing a subnormal
// f16 first when ftz.
func ixHalf(h uint16, bf, ftz bool) float32 {
	if bf {
		return math.Float32frombits(uint32(h) << 16)
	}
	if ftz {
		h = fpx.FlushF16(h)
	}
	return math.Float32frombits(fpx.F16ToF32(h))
}

func ixCmpHalf(a, b *[32]uint64, tbl uint32, bf, x2, ftz bool) (uint32, uint32) {
	var lo, hi uint32
	for l := range a {
		x, y := a[l], b[l]
		lo |= (tbl >> ixOutcome32(ixHalf(uint16(x), bf, ftz), ixHalf(uint16(y), bf, ftz)) & 1) << l
		if x2 {
			hi |= (tbl >> ixOutcome32(ixHalf(uint16(x>>16), bf, ftz), ixHalf(uint16(y>>16), bf, ftz)) & 1) << l
		}
	}
	return lo, hi
}

// ixBoolOp combines comparison results t with predicate c.
func ixBoolOp(op isa.SubOp, t, c uint32) uint32 {
	switch op {
	case isa.SubAnd:
		return t & c
	case isa.SubOr:
		return t | c
	case isa.SubXor:
		return t ^ c
	}
	return t
}

// ixCmpCommon reads the modifiers and operands a, b and {!}c shared by setp
// and set (the destinations are the caller's): it returns the comparison,
// whether .ftz was given and the number of operands.
func ixCmpCommon(b *binder, t isa.Type, ftzOK bool) (isa.Cmp, bool, bool) {
	c := ixCmpMod(b)
	ftz := b.Flag(isa.FFtz)
	boolOp := b.Sub()
	if !ixCheck(b, t, ixCmpTypes...) || !ixCmpValid(b, c, t) {
		return 0, false, false
	}
	if ftz && !ftzOK {
		b.errorf(".ftz applies only to .f32, .f16 and .f16x2 comparisons")
		return 0, false, false
	}
	switch boolOp {
	case isa.SubNone:
		if !b.Want(3, 3) {
			return 0, false, false
		}
	case isa.SubAnd, isa.SubOr, isa.SubXor:
		if !b.Want(4, 4) {
			return 0, false, false
		}
		b.op.C = b.SrcPred(3, 2)
	default:
		b.errorf("boolean operation .%s is not valid (expects .and, .or or .xor)", boolOp)
		return 0, false, false
	}
	b.op.A = b.Src(1, t)
	b.op.B = b.Src(2, t)
	b.op.Cmp, b.op.Sub2 = c, boolOp
	if ftz {
		b.op.Flags = b.op.Flags.With(isa.FFtz)
	}
	return c, ftz, !b.failed
}

// ---- setp ----

func bindSetp(b *binder) {
	t := b.Type()
	c, ftz, ok := ixCmpCommon(b, t, t == isa.F32 || t == isa.F16 || t == isa.F16x2)
	if !ok {
		return
	}
	x2 := t == isa.F16x2 || t == isa.BF16x2
	o := b.opd(0)
	if o == nil {
		return
	}
	if o.Kind == ptx.OpdPair {
		saved := b.ins.Operands
		b.ins.Operands = o.Elems
		b.op.D = b.Dst(0, isa.Pred)
		b.op.D2 = b.Dst(1, isa.Pred)
		b.ins.Operands = saved
	} else {
		if x2 {
			b.operr(0, "setp.%s needs two destination predicates p|q", t)
			return
		}
		b.op.D = b.Dst(0, isa.Pred)
	}
	if b.failed {
		return
	}
	b.op.Type = t
	if b.op.Sub2 == isa.SubNone && !x2 && !(ftz && t == isa.F32) {
		// Without a combiner: a handler that calls its comparison
		// directly, with the immediate bound where B is one.
		k, imm := b.immediate(b.op.B)
		if e := ixSetpSpecial(t, c, imm); e != nil {
			if imm {
				b.op.Imm = k
			}
			b.op.Exec = e
			return
		}
	}
	if k := ixNewMaskedCmp(t, c, ftz); k != nil {
		b.op.Exec = ixSetpFast(k)
		return
	}
	b.op.Exec = ixSetpExec(ixGenericCmpKernel(t, c, ftz), x2)
}

// ixSetpFast is setp with a specialised comparison (not packed).
func ixSetpFast(k ixMaskedCmp) execFn {
	return func(w *Warp, op *Op, mask uint32) *Fault {
		p := k(w.r(op.A), w.r(op.B), mask)
		q := ^p
		if op.Sub2 != isa.SubNone {
			c := ixPredSrc(w, op, op.C, 2)
			p, q = ixBoolOp(op.Sub2, p, c), ixBoolOp(op.Sub2, q, c)
		}
		ixSetPred(w, op.D, p, mask)
		ixSetPred(w, op.D2, q, mask)
		return nil
	}
}

func ixSetpExec(k ixCmpKernel, x2 bool) execFn {
	return func(w *Warp, op *Op, mask uint32) *Fault {
		p, q := k(w, op, mask)
		if !x2 {
			q = ^p
		}
		if op.Sub2 != isa.SubNone {
			c := ixPredSrc(w, op, op.C, 2)
			p, q = ixBoolOp(op.Sub2, p, c), ixBoolOp(op.Sub2, q, c)
		}
		ixSetPred(w, op.D, p, mask)
		ixSetPred(w, op.D2, q, mask)
		return nil
	}
}

// ---- set ----

func bindSet(b *binder) {
	ts := b.Types(2)
	if b.failed {
		return
	}
	dt, st := ts[0], ts[1]
	c, ftz, ok := ixCmpCommon(b, st, st == isa.F32 || st == isa.F16 || st == isa.F16x2 || dt == isa.F16)
	if !ok {
		return
	}
	x2 := st == isa.F16x2 || st == isa.BF16x2
	switch {
	case x2:
		ok = ixCheck(b, dt, st, isa.U32, isa.S32)
	case st == isa.F16 || st == isa.BF16:
		ok = ixCheck(b, dt, isa.U16, isa.S16, isa.U32, isa.S32, isa.F16, isa.BF16)
	default:
		ok = ixCheck(b, dt, isa.U32, isa.S32, isa.F32, isa.F16, isa.BF16)
	}
	if !ok {
		return
	}
	b.op.D = b.Dst(0, dt)
	if b.failed {
		return
	}
	// The value written for true (per half for packed results).
	var tv uint64
	switch dt {
	case isa.F32:
		tv = 0x3f800000
	case isa.F16, isa.F16x2:
		tv = 0x3c00
	case isa.BF16, isa.BF16x2:
		tv = 0x3f80
	default:
		tv = ixMask(ixWidth(dt))
		if x2 {
			tv = 0xffff
		}
	}
	b.op.Type, b.op.Type2 = dt, st
	k := ixNewCmpKernel(st, c, ftz)
	b.op.Exec = func(w *Warp, op *Op, mask uint32) *Fault {
		p, q := k(w, op, mask)
		if op.Sub2 != isa.SubNone {
			c := ixPredSrc(w, op, op.C, 2)
			p, q = ixBoolOp(op.Sub2, p, c), ixBoolOp(op.Sub2, q, c)
		}
		d := w.r(op.D)
		for l := range d {
			if mask>>l&1 == 0 {
				continue
			}
			var v uint64
			if p>>l&1 != 0 {
				v = tv
			}
			if x2 && q>>l&1 != 0 {
				v |= tv << 16
			}
			d[l] = v
		}
		return nil
	}
}

// ---- selp / slct ----

// ixSelTypes are the value types of selp and slct.
var ixSelTypes = []isa.Type{isa.B16, isa.B32, isa.B64, isa.U16, isa.U32, isa.U64, isa.S16, isa.S32, isa.S64, isa.F32, isa.F64}

func bindSelp(b *binder) {
	t := b.Type()
	if !ixCheck(b, t, ixSelTypes...) || !b.Want(4, 4) {
		return
	}
	b.op.D = b.Dst(0, t)
	b.op.A = b.Src(1, t)
	b.op.B = b.Src(2, t)
	b.op.C = b.SrcPred(3, 2)
	b.op.Type = t
	b.op.Imm = ixMask(ixWidth(t))
	b.op.Exec = execIxSelp
}

func execIxSelp(w *Warp, op *Op, mask uint32) *Fault {
	d, a, b := w.r(op.D), w.r(op.A), w.r(op.B)
	p := ixPredSrc(w, op, op.C, 2)
	m := op.Imm
	if mask == ixAll {
		for l := range d {
			sel := -uint64(p >> l & 1)
			d[l] = (a[l]&sel | b[l]&^sel) & m
		}
		return nil
	}
	for l := range d {
		if mask>>l&1 != 0 {
			sel := -uint64(p >> l & 1)
			d[l] = (a[l]&sel | b[l]&^sel) & m
		}
	}
	return nil
}

func bindSlct(b *binder) {
	ts := b.Types(2)
	ftz := b.Flag(isa.FFtz)
	if b.failed || !ixCheck(b, ts[0], ixSelTypes...) || !ixCheck(b, ts[1], isa.S32, isa.F32) {
		return
	}
	if ftz && ts[1] != isa.F32 {
		b.errorf(".ftz applies only to slct with an .f32 operand c")
		return
	}
	if !ixOps(b, ts[0], ts[0], ts[0], ts[1]) {
		return
	}
	b.op.Type, b.op.Type2 = ts[0], ts[1]
	if ftz {
		b.op.Flags = b.op.Flags.With(isa.FFtz)
	}
	m := ixMask(ixWidth(ts[0]))
	if ts[1] == isa.S32 {
		b.op.Exec = ixExec3(func(a, b, c uint64) uint64 {
			if int32(c) >= 0 {
				return a & m
			}
			return b & m
		})
		return
	}
	b.op.Exec = ixExec3(func(a, b, c uint64) uint64 {
		x := uint32(c)
		if ftz {
			x = fpx.FlushF32(x)
		}
		if math.Float32frombits(x) >= 0 {
			return a & m
		}
		return b & m
	})
}
