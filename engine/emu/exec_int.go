package emu

import (
	"math"
	"math/bits"

	"github.com/ptxplayground/ptxplay/engine/isa"
)

// Integer and extended-precision integer instructions: add, sub, mul, mad,
// mul24, mad24, sad, div, rem, abs, neg, min, max, popc, clz, bfind, fns,
// brev, bfe, bfi, bmsk, szext, dp4a, dp2a, addc, subc, madc and the video
// instruction vshr.
//
// The opcodes shared with the floating-point family (add, sub, mul, mad,
// div, abs, neg, min, max) hand their floating-point forms to
// bindFloatArith.
//
// Integer division by zero never faults and never panics: div and rem
// return all ones (0xffff, 0xffffffff or 0xffffffffffffffff, i.e. -1 for
// signed types) for every integer type, which is what the division
// sequences ptxas emits produce on NVIDIA GPUs (the quotient or remainder
// is replaced by ~b when b == 0). The most negative value divided by -1
// wraps to itself, and its remainder is 0.

func init() {
	binders[isa.OpAdd] = bindAdd
	binders[isa.OpSub] = bindSub
	binders[isa.OpMul] = bindMul
	binders[isa.OpMad] = bindMad
	binders[isa.OpMul24] = bindMul24
	binders[isa.OpMad24] = bindMad24
	binders[isa.OpSad] = bindSad
	binders[isa.OpDiv] = bindDiv
	binders[isa.OpRem] = bindRem
	binders[isa.OpAbs] = bindAbsNeg
	binders[isa.OpNeg] = bindAbsNeg
	binders[isa.OpMin] = bindMinMax
	binders[isa.OpMax] = bindMinMax
	binders[isa.OpPopc] = bindPopcClz
	binders[isa.OpClz] = bindPopcClz
	binders[isa.OpBfind] = bindBfind
	binders[isa.OpFns] = bindFns
	binders[isa.OpBrev] = bindBrev
	binders[isa.OpBfe] = bindBfe
	binders[isa.OpBfi] = bindBfi
	binders[isa.OpBmsk] = bindBmsk
	binders[isa.OpSzext] = bindSzext
	binders[isa.OpDp4a] = bindDp4a
	binders[isa.OpDp2a] = bindDp2a
	binders[isa.OpAddc] = bindAddcSubc
	binders[isa.OpSubc] = bindAddcSubc
	binders[isa.OpMadc] = bindMadc
	binders[isa.OpVshr] = bindVshr
}

// ixAll is the mask of a warp whose 32 lanes all execute.
const ixAll = ^uint32(0)

// Type sets.
var (
	ixInts    = []isa.Type{isa.U16, isa.U32, isa.U64, isa.S16, isa.S32, isa.S64}
	ixCCTypes = []isa.Type{isa.U32, isa.S32, isa.U64, isa.S64}
	ixSigned  = []isa.Type{isa.S16, isa.S32, isa.S64}
	ixBits    = []isa.Type{isa.B16, isa.B32, isa.B64}
	ix32or64  = []isa.Type{isa.U32, isa.U64, isa.S32, isa.S64}
	ixB32B64  = []isa.Type{isa.B32, isa.B64}
	ixU32S32  = []isa.Type{isa.U32, isa.S32}
)

// ixZero is a read-only slot of zeros for operations without a third source.
var ixZero [32]uint64

// ixMask returns the mask of the low n bits (n >= 64: all ones).
func ixMask(n uint) uint64 {
	if n >= 64 {
		return ^uint64(0)
	}
	return 1<<n - 1
}

// ixSext sign-extends the low n bits of v (1 <= n <= 64).
func ixSext(v uint64, n uint) int64 {
	s := 64 - n
	return int64(v<<s) >> s
}

// ixWidth returns the width of t in bits.
func ixWidth(t isa.Type) uint { return uint(t.Bits()) }

// ixFloatForm reports whether the instruction's single type modifier is a
// floating-point type (its binder is then bindFloatArith). It only peeks at
// the modifiers; it consumes nothing.
func ixFloatForm(b *binder) bool {
	return len(b.m.Types) == 1 && b.m.Types[0].IsFloat()
}

// ixCheck reports whether t is one of allowed, reporting an error if not.
func ixCheck(b *binder, t isa.Type, allowed ...isa.Type) bool {
	if b.failed {
		return false
	}
	for _, a := range allowed {
		if t == a {
			return true
		}
	}
	names := ""
	for i, a := range allowed {
		if i > 0 {
			names += ", "
		}
		names += "." + a.String()
	}
	b.errorf("type .%s is not valid for this instruction (expects %s)", t, names)
	return false
}

// ixOps resolves operand 0 as a destination of type td and the following
// operands as sources of the types srcs, into A, B, C and E in order.
func ixOps(b *binder, td isa.Type, srcs ...isa.Type) bool {
	n := 1 + len(srcs)
	if b.failed || !b.Want(n, n) {
		return false
	}
	b.op.D = b.Dst(0, td)
	for i, t := range srcs {
		r := b.Src(i+1, t)
		switch i {
		case 0:
			b.op.A = r
		case 1:
			b.op.B = r
		case 2:
			b.op.C = r
		case 3:
			b.op.E = r
		}
	}
	return !b.failed
}

// ixMode returns which one of two mutually exclusive flags is present:
// 0 for neither, 1 for f1, 2 for f2; both is reported as an error.
func ixMode(b *binder, f1, f2 isa.Flag) int {
	x, y := b.Flag(f1), b.Flag(f2)
	switch {
	case x && y:
		b.errorf(".%s and .%s cannot be combined", f1, f2)
		return 0
	case x:
		return 1
	case y:
		return 2
	}
	return 0
}

// ---- generic per-lane executors (for the less frequent operations) ----

func ixExec1(f func(a uint64) uint64) execFn {
	return func(w *Warp, op *Op, mask uint32) *Fault {
		d, a := w.r(op.D), w.r(op.A)
		for l := range d {
			if mask>>l&1 != 0 {
				d[l] = f(a[l])
			}
		}
		return nil
	}
}

func ixExec2(f func(a, b uint64) uint64) execFn {
	return func(w *Warp, op *Op, mask uint32) *Fault {
		d, a, b := w.r(op.D), w.r(op.A), w.r(op.B)
		for l := range d {
			if mask>>l&1 != 0 {
				d[l] = f(a[l], b[l])
			}
		}
		return nil
	}
}

func ixExec3(f func(a, b, c uint64) uint64) execFn {
	return func(w *Warp, op *Op, mask uint32) *Fault {
		d, a, b, c := w.r(op.D), w.r(op.A), w.r(op.B), w.r(op.C)
		for l := range d {
			if mask>>l&1 != 0 {
				d[l] = f(a[l], b[l], c[l])
			}
		}
		return nil
	}
}

func ixExec4(f func(a, b, c, e uint64) uint64) execFn {
	return func(w *Warp, op *Op, mask uint32) *Fault {
		d, a, b, c, e := w.r(op.D), w.r(op.A), w.r(op.B), w.r(op.C), w.r(op.E)
		for l := range d {
			if mask>>l&1 != 0 {
				d[l] = f(a[l], b[l], c[l], e[l])
			}
		}
		return nil
	}
}

// ixExecCarry runs f(a, b, c, carry-in) -> (d, carry-out) per lane. c is
// zero when the instruction has no third source. With useIn the carry-in is
// the lane's CC.CF bit, otherwise 0; with setOut the carry-out is written to
// CC.CF.
func ixExecCarry(f func(a, b, c, cin uint64) (uint64, uint64), useIn, setOut bool) execFn {
	return func(w *Warp, op *Op, mask uint32) *Fault {
		d, a, b := w.r(op.D), w.r(op.A), w.r(op.B)
		c := &ixZero
		if op.C >= 0 {
			c = w.r(op.C)
		}
		cf := w.carry
		if !useIn {
			cf = 0
		}
		var out uint32
		for l := range d {
			if mask>>l&1 == 0 {
				continue
			}
			v, co := f(a[l], b[l], c[l], uint64(cf>>l&1))
			d[l] = v
			out |= uint32(co&1) << l
		}
		if setOut {
			w.carry = w.carry&^mask | out&mask
		}
		return nil
	}
}

// ---- hot paths: add, sub, mul.lo, mad.lo (any width: op.Imm is the
// width mask), mul.wide and mad.wide of 32-bit operands ----

func execIxAdd(w *Warp, op *Op, mask uint32) *Fault {
	d, a, b := w.r(op.D), w.r(op.A), w.r(op.B)
	m := op.Imm
	if mask == ixAll {
		if ixVec {
			vecAddM(d, a, b, m)
		} else {
			addAllGo(d, a, b, m)
		}
		return nil
	}
	for lanes := mask; lanes != 0; lanes &= lanes - 1 {
		l := bits.TrailingZeros32(lanes) & 31
		d[l] = (a[l] + b[l]) & m
	}
	return nil
}

func execIxSub(w *Warp, op *Op, mask uint32) *Fault {
	d, a, b := w.r(op.D), w.r(op.A), w.r(op.B)
	m := op.Imm
	if mask == ixAll {
		if ixVec {
			vecSubM(d, a, b, m)
		} else {
			subAllGo(d, a, b, m)
		}
		return nil
	}
	for lanes := mask; lanes != 0; lanes &= lanes - 1 {
		l := bits.TrailingZeros32(lanes) & 31
		d[l] = (a[l] - b[l]) & m
	}
	return nil
}

func execIxMulLo(w *Warp, op *Op, mask uint32) *Fault {
	d, a, b := w.r(op.D), w.r(op.A), w.r(op.B)
	m := op.Imm
	if mask == ixAll {
		for l := 0; l < 32; l += 4 { // unrolled: no bounds checks, a quarter of the loop overhead
			d[l] = a[l] * b[l] & m
			d[l+1] = a[l+1] * b[l+1] & m
			d[l+2] = a[l+2] * b[l+2] & m
			d[l+3] = a[l+3] * b[l+3] & m
		}
		return nil
	}
	for lanes := mask; lanes != 0; lanes &= lanes - 1 {
		l := bits.TrailingZeros32(lanes) & 31
		d[l] = a[l] * b[l] & m
	}
	return nil
}

func execIxMadLo(w *Warp, op *Op, mask uint32) *Fault {
	d, a, b, c := w.r(op.D), w.r(op.A), w.r(op.B), w.r(op.C)
	m := op.Imm
	if mask == ixAll {
		if ixVec && m <= 0xffffffff {
			vecMadLoM(d, a, b, c, m)
		} else {
			madLoAllGo(d, a, b, c, m)
		}
		return nil
	}
	for lanes := mask; lanes != 0; lanes &= lanes - 1 {
		l := bits.TrailingZeros32(lanes) & 31
		d[l] = (a[l]*b[l] + c[l]) & m
	}
	return nil
}

func execIxMulWideU32(w *Warp, op *Op, mask uint32) *Fault {
	d, a, b := w.r(op.D), w.r(op.A), w.r(op.B)
	if mask == ixAll {
		for l := 0; l < 32; l += 4 { // unrolled: no bounds checks, a quarter of the loop overhead
			d[l] = uint64(uint32(a[l])) * uint64(uint32(b[l]))
			d[l+1] = uint64(uint32(a[l+1])) * uint64(uint32(b[l+1]))
			d[l+2] = uint64(uint32(a[l+2])) * uint64(uint32(b[l+2]))
			d[l+3] = uint64(uint32(a[l+3])) * uint64(uint32(b[l+3]))
		}
		return nil
	}
	for lanes := mask; lanes != 0; lanes &= lanes - 1 {
		l := bits.TrailingZeros32(lanes) & 31
		d[l] = uint64(uint32(a[l])) * uint64(uint32(b[l]))
	}
	return nil
}

func execIxMulWideS32(w *Warp, op *Op, mask uint32) *Fault {
	d, a, b := w.r(op.D), w.r(op.A), w.r(op.B)
	if mask == ixAll {
		for l := 0; l < 32; l += 4 { // unrolled: no bounds checks, a quarter of the loop overhead
			d[l] = uint64(int64(int32(a[l])) * int64(int32(b[l])))
			d[l+1] = uint64(int64(int32(a[l+1])) * int64(int32(b[l+1])))
			d[l+2] = uint64(int64(int32(a[l+2])) * int64(int32(b[l+2])))
			d[l+3] = uint64(int64(int32(a[l+3])) * int64(int32(b[l+3])))
		}
		return nil
	}
	for lanes := mask; lanes != 0; lanes &= lanes - 1 {
		l := bits.TrailingZeros32(lanes) & 31
		d[l] = uint64(int64(int32(a[l])) * int64(int32(b[l])))
	}
	return nil
}

func execIxMadWideU32(w *Warp, op *Op, mask uint32) *Fault {
	d, a, b, c := w.r(op.D), w.r(op.A), w.r(op.B), w.r(op.C)
	if mask == ixAll {
		for l := 0; l < 32; l += 4 { // unrolled: no bounds checks, a quarter of the loop overhead
			d[l] = uint64(uint32(a[l]))*uint64(uint32(b[l])) + c[l]
			d[l+1] = uint64(uint32(a[l+1]))*uint64(uint32(b[l+1])) + c[l+1]
			d[l+2] = uint64(uint32(a[l+2]))*uint64(uint32(b[l+2])) + c[l+2]
			d[l+3] = uint64(uint32(a[l+3]))*uint64(uint32(b[l+3])) + c[l+3]
		}
		return nil
	}
	for lanes := mask; lanes != 0; lanes &= lanes - 1 {
		l := bits.TrailingZeros32(lanes) & 31
		d[l] = uint64(uint32(a[l]))*uint64(uint32(b[l])) + c[l]
	}
	return nil
}

func execIxMadWideS32(w *Warp, op *Op, mask uint32) *Fault {
	d, a, b, c := w.r(op.D), w.r(op.A), w.r(op.B), w.r(op.C)
	if mask == ixAll {
		for l := 0; l < 32; l += 4 { // unrolled: no bounds checks, a quarter of the loop overhead
			d[l] = uint64(int64(int32(a[l]))*int64(int32(b[l]))) + c[l]
			d[l+1] = uint64(int64(int32(a[l+1]))*int64(int32(b[l+1]))) + c[l+1]
			d[l+2] = uint64(int64(int32(a[l+2]))*int64(int32(b[l+2]))) + c[l+2]
			d[l+3] = uint64(int64(int32(a[l+3]))*int64(int32(b[l+3]))) + c[l+3]
		}
		return nil
	}
	for lanes := mask; lanes != 0; lanes &= lanes - 1 {
		l := bits.TrailingZeros32(lanes) & 31
		d[l] = uint64(int64(int32(a[l]))*int64(int32(b[l]))) + c[l]
	}
	return nil
}

// ---- add / sub ----

func bindAdd(b *binder) { ixBindAddSub(b, false) }
func bindSub(b *binder) { ixBindAddSub(b, true) }

func ixBindAddSub(b *binder, sub bool) {
	if ixFloatForm(b) {
		bindFloatArith(b)
		return
	}
	t := b.Type()
	sat := b.Flag(isa.FSat)
	cc := b.Flag(isa.FCC)
	allowed := ixInts
	if !sub {
		allowed = append(append([]isa.Type(nil), ixInts...), isa.U16x2, isa.S16x2)
	}
	if !ixCheck(b, t, allowed...) {
		return
	}
	switch {
	case sat && cc:
		b.errorf(".sat and .cc cannot be combined")
		return
	case sat && t != isa.S32:
		b.errorf(".sat applies only to .s32")
		return
	case cc && !ixIn(t, ixCCTypes):
		b.errorf(".cc requires .u32, .s32, .u64 or .s64")
		return
	}
	if !ixOps(b, t, t, t) {
		return
	}
	w := ixWidth(t)
	b.op.Type = t
	switch {
	case cc:
		b.op.Flags = b.op.Flags.With(isa.FCC)
		b.op.Exec = ixExecCarry(ixAddSubCarry(sub, false, w), false, true)
	case sat:
		b.op.Flags = b.op.Flags.With(isa.FSat)
		if sub {
			b.op.Exec = ixExec2(func(a, b uint64) uint64 { return ixSatS32(int64(int32(a)) - int64(int32(b))) })
		} else {
			b.op.Exec = ixExec2(func(a, b uint64) uint64 { return ixSatS32(int64(int32(a)) + int64(int32(b))) })
		}
	case t == isa.U16x2 || t == isa.S16x2:
		b.op.Exec = ixExec2(func(a, b uint64) uint64 {
			lo := (a + b) & 0xffff
			hi := (a>>16 + b>>16) & 0xffff
			return hi<<16 | lo
		})
	case !sub && ixImmediateB(b, w, execIxAddImm32, execIxAddImm64):
	default:
		b.op.Imm = ixMask(w)
		b.op.Exec = execIxAdd
		if sub {
			b.op.Exec = execIxSub
		}
	}
}

func ixIn(t isa.Type, set []isa.Type) bool {
	for _, s := range set {
		if s == t {
			return true
		}
	}
	return false
}

// ixSatS32 clamps v to the s32 range and returns its 32-bit pattern.
func ixSatS32(v int64) uint64 {
	if v > math.MaxInt32 {
		v = math.MaxInt32
	} else if v < math.MinInt32 {
		v = math.MinInt32
	}
	return uint64(uint32(v))
}

// ixAddC adds a + b + cin in w bits (32 or 64) and returns the sum and the
// carry out.
func ixAddC(a, b, cin uint64, w uint) (uint64, uint64) {
	if w == 64 {
		return bits.Add64(a, b, cin)
	}
	s := uint64(uint32(a)) + uint64(uint32(b)) + cin
	return uint64(uint32(s)), s >> 32
}

// ixAddSubCarry returns the carry function of add/sub/addc/subc of width w.
// Subtraction is a + ~b + 1 (sub.cc) or a + ~b + CF (subc): CC.CF holds the
// carry out, i.e. 1 when no borrow occurred, as on the hardware.
func ixAddSubCarry(sub, withIn bool, w uint) func(a, b, c, cin uint64) (uint64, uint64) {
	switch {
	case sub && withIn:
		return func(a, b, _, cin uint64) (uint64, uint64) { return ixAddC(a, ^b, cin, w) }
	case sub:
		return func(a, b, _, _ uint64) (uint64, uint64) { return ixAddC(a, ^b, 1, w) }
	default:
		return func(a, b, _, cin uint64) (uint64, uint64) { return ixAddC(a, b, cin, w) }
	}
}

func bindAddcSubc(b *binder) {
	sub := b.op.Code == isa.OpSubc
	t := b.Type()
	cc := b.Flag(isa.FCC)
	if !ixCheck(b, t, ixCCTypes...) || !ixOps(b, t, t, t) {
		return
	}
	b.op.Type = t
	if cc {
		b.op.Flags = b.op.Flags.With(isa.FCC)
	}
	b.op.Exec = ixExecCarry(ixAddSubCarry(sub, true, ixWidth(t)), true, cc)
}

// ---- mul / mad ----

// ixWideType returns the double-width type of a 16- or 32-bit integer type.
func ixWideType(t isa.Type) isa.Type {
	switch t {
	case isa.U16:
		return isa.U32
	case isa.S16:
		return isa.S32
	case isa.U32:
		return isa.U64
	case isa.S32:
		return isa.S64
	}
	return isa.TNone
}

// ixMulMode reads .hi/.lo/.wide: 1 hi, 2 lo, 3 wide; 0 after an error.
func ixMulMode(b *binder, wideOK bool) int {
	hi, lo := b.Flag(isa.FHi), b.Flag(isa.FLo)
	wide := false
	if wideOK {
		wide = b.Flag(isa.FWide)
	}
	n := 0
	for _, f := range []bool{hi, lo, wide} {
		if f {
			n++
		}
	}
	if n != 1 {
		if b.failed {
			return 0
		}
		if wideOK {
			b.errorf("needs exactly one of .hi, .lo, .wide")
		} else {
			b.errorf("needs exactly one of .hi, .lo")
		}
		return 0
	}
	switch {
	case hi:
		return 1
	case lo:
		return 2
	}
	return 3
}

// ixMulHi returns the high w bits of the 2w-bit product of a and b.
func ixMulHi(a, b uint64, w uint, signed bool) uint64 {
	if w == 64 {
		hi, _ := bits.Mul64(a, b)
		if signed {
			if int64(a) < 0 {
				hi -= b
			}
			if int64(b) < 0 {
				hi -= a
			}
		}
		return hi
	}
	m := ixMask(w)
	if signed {
		return uint64(ixSext(a, w)*ixSext(b, w)>>w) & m
	}
	return (a & m) * (b & m) >> w & m
}

// ixMulWide returns the 2w-bit product of a and b (w is 16 or 32).
func ixMulWide(a, b uint64, w uint, signed bool) uint64 {
	if signed {
		return uint64(ixSext(a, w)*ixSext(b, w)) & ixMask(2*w)
	}
	m := ixMask(w)
	return (a & m) * (b & m)
}

func bindMul(b *binder) {
	if ixFloatForm(b) {
		bindFloatArith(b)
		return
	}
	t := b.Type()
	if !ixCheck(b, t, ixInts...) {
		return
	}
	mode := ixMulMode(b, true)
	if mode == 0 {
		return
	}
	w, signed := ixWidth(t), t.IsSigned()
	b.op.Type = t
	switch mode {
	case 1: // hi
		if !ixOps(b, t, t, t) {
			return
		}
		b.op.Flags = b.op.Flags.With(isa.FHi)
		if w == 32 && !signed {
			b.op.Exec = ixExec2(func(a, b uint64) uint64 { return uint64(uint32(a)) * uint64(uint32(b)) >> 32 })
			return
		}
		b.op.Exec = ixExec2(func(a, b uint64) uint64 { return ixMulHi(a, b, w, signed) })
	case 2: // lo
		if !ixOps(b, t, t, t) {
			return
		}
		b.op.Flags = b.op.Flags.With(isa.FLo)
		b.op.Imm = ixMask(w)
		b.op.Exec = execIxMulLo
	case 3: // wide
		if w == 64 {
			b.errorf(".wide applies only to 16- and 32-bit types")
			return
		}
		if !ixOps(b, ixWideType(t), t, t) {
			return
		}
		b.op.Flags = b.op.Flags.With(isa.FWide)
		switch {
		case w == 32 && signed:
			b.op.Exec = execIxMulWideS32
		case w == 32:
			b.op.Exec = execIxMulWideU32
		default:
			b.op.Exec = ixExec2(func(a, b uint64) uint64 { return ixMulWide(a, b, w, signed) })
		}
	}
}

func bindMad(b *binder) {
	if ixFloatForm(b) {
		bindFloatArith(b)
		return
	}
	t := b.Type()
	sat := b.Flag(isa.FSat)
	cc := b.Flag(isa.FCC)
	if !ixCheck(b, t, ixInts...) {
		return
	}
	mode := ixMulMode(b, true)
	if mode == 0 {
		return
	}
	switch {
	case sat && (mode != 1 || t != isa.S32):
		b.errorf(".sat applies only to mad.hi.s32")
		return
	case sat && cc:
		b.errorf(".sat and .cc cannot be combined")
		return
	case cc && (mode == 3 || !ixIn(t, ixCCTypes)):
		b.errorf(".cc requires .hi or .lo and .u32, .s32, .u64 or .s64")
		return
	case mode == 3 && ixWidth(t) == 64:
		b.errorf(".wide applies only to 16- and 32-bit types")
		return
	}
	w, signed := ixWidth(t), t.IsSigned()
	b.op.Type = t
	if mode == 3 {
		wt := ixWideType(t)
		if !ixOps(b, wt, t, t, wt) {
			return
		}
		b.op.Flags = b.op.Flags.With(isa.FWide)
		switch {
		case w == 32 && signed:
			b.op.Exec = execIxMadWideS32
		case w == 32:
			b.op.Exec = execIxMadWideU32
		default:
			m := ixMask(2 * w)
			b.op.Exec = ixExec3(func(a, b, c uint64) uint64 { return (ixMulWide(a, b, w, signed) + c) & m })
		}
		return
	}
	if !ixOps(b, t, t, t, t) {
		return
	}
	hi := mode == 1
	if hi {
		b.op.Flags = b.op.Flags.With(isa.FHi)
	} else {
		b.op.Flags = b.op.Flags.With(isa.FLo)
	}
	switch {
	case cc:
		b.op.Flags = b.op.Flags.With(isa.FCC)
		b.op.Exec = ixExecCarry(ixMadCarry(hi, w, signed), false, true)
	case sat:
		b.op.Flags = b.op.Flags.With(isa.FSat)
		b.op.Exec = ixExec3(func(a, b, c uint64) uint64 {
			return ixSatS32(int64(int32(ixMulHi(a, b, 32, true))) + int64(int32(c)))
		})
	case hi:
		m := ixMask(w)
		b.op.Exec = ixExec3(func(a, b, c uint64) uint64 { return (ixMulHi(a, b, w, signed) + c) & m })
	default:
		b.op.Imm = ixMask(w)
		b.op.Exec = execIxMadLo
	}
}

// ixMadCarry is the carry function of mad.cc / madc: the .hi or .lo half of
// a*b plus c plus the carry-in, with the carry out of that addition.
func ixMadCarry(hi bool, w uint, signed bool) func(a, b, c, cin uint64) (uint64, uint64) {
	if hi {
		return func(a, b, c, cin uint64) (uint64, uint64) { return ixAddC(ixMulHi(a, b, w, signed), c, cin, w) }
	}
	return func(a, b, c, cin uint64) (uint64, uint64) { return ixAddC(a*b, c, cin, w) }
}

func bindMadc(b *binder) {
	t := b.Type()
	cc := b.Flag(isa.FCC)
	if !ixCheck(b, t, ixCCTypes...) {
		return
	}
	mode := ixMulMode(b, false)
	if mode == 0 || !ixOps(b, t, t, t, t) {
		return
	}
	b.op.Type = t
	hi := mode == 1
	if hi {
		b.op.Flags = b.op.Flags.With(isa.FHi)
	} else {
		b.op.Flags = b.op.Flags.With(isa.FLo)
	}
	if cc {
		b.op.Flags = b.op.Flags.With(isa.FCC)
	}
	b.op.Exec = ixExecCarry(ixMadCarry(hi, ixWidth(t), t.IsSigned()), true, cc)
}

// ---- mul24 / mad24 ----

// ixMul24 returns the 48-bit product of the low 24 bits of a and b
// (sign-extended from bit 23 when signed), as a 64-bit two's-complement
// value.
func ixMul24(a, b uint64, signed bool) uint64 {
	if signed {
		return uint64(ixSext(a, 24) * ixSext(b, 24))
	}
	return (a & 0xffffff) * (b & 0xffffff)
}

func bindMul24(b *binder) {
	t := b.Type()
	if !ixCheck(b, t, ixU32S32...) {
		return
	}
	mode := ixMulMode(b, false)
	if mode == 0 || !ixOps(b, t, t, t) {
		return
	}
	signed := t.IsSigned()
	b.op.Type = t
	if mode == 1 {
		b.op.Flags = b.op.Flags.With(isa.FHi)
		b.op.Exec = ixExec2(func(a, b uint64) uint64 { return ixMul24(a, b, signed) >> 16 & 0xffffffff })
		return
	}
	b.op.Flags = b.op.Flags.With(isa.FLo)
	b.op.Exec = ixExec2(func(a, b uint64) uint64 { return ixMul24(a, b, signed) & 0xffffffff })
}

func bindMad24(b *binder) {
	t := b.Type()
	sat := b.Flag(isa.FSat)
	if !ixCheck(b, t, ixU32S32...) {
		return
	}
	mode := ixMulMode(b, false)
	if mode == 0 {
		return
	}
	if sat && (mode != 1 || t != isa.S32) {
		b.errorf(".sat applies only to mad24.hi.s32")
		return
	}
	if !ixOps(b, t, t, t, t) {
		return
	}
	signed := t.IsSigned()
	b.op.Type = t
	switch {
	case sat:
		b.op.Flags = b.op.Flags.With(isa.FHi).With(isa.FSat)
		b.op.Exec = ixExec3(func(a, b, c uint64) uint64 {
			return ixSatS32(int64(int32(uint32(ixMul24(a, b, true)>>16))) + int64(int32(c)))
		})
	case mode == 1:
		b.op.Flags = b.op.Flags.With(isa.FHi)
		b.op.Exec = ixExec3(func(a, b, c uint64) uint64 { return (ixMul24(a, b, signed)>>16 + c) & 0xffffffff })
	default:
		b.op.Flags = b.op.Flags.With(isa.FLo)
		b.op.Exec = ixExec3(func(a, b, c uint64) uint64 { return (ixMul24(a, b, signed) + c) & 0xffffffff })
	}
}

// ---- sad, div, rem, abs, neg, min, max ----

func bindSad(b *binder) {
	t := b.Type()
	if !ixCheck(b, t, ixInts...) || !ixOps(b, t, t, t, t) {
		return
	}
	w, signed := ixWidth(t), t.IsSigned()
	m := ixMask(w)
	b.op.Type = t
	b.op.Exec = ixExec3(func(a, b, c uint64) uint64 {
		var less bool
		if signed {
			less = ixSext(a, w) < ixSext(b, w)
		} else {
			less = a&m < b&m
		}
		if less {
			return (c + b - a) & m
		}
		return (c + a - b) & m
	})
}

func bindDiv(b *binder) {
	if ixFloatForm(b) {
		bindFloatArith(b)
		return
	}
	ixBindDivRem(b, false)
}

func bindRem(b *binder) { ixBindDivRem(b, true) }

func ixBindDivRem(b *binder, rem bool) {
	t := b.Type()
	if !ixCheck(b, t, ixInts...) || !ixOps(b, t, t, t) {
		return
	}
	b.op.Type = t
	b.op.Exec = ixExec2(ixDivRem(ixWidth(t), t.IsSigned(), rem))
}

// ixDivRem returns the division (or remainder) function of width w. A zero
// divisor yields all ones; the most negative value divided by -1 wraps.
func ixDivRem(w uint, signed, rem bool) func(a, b uint64) uint64 {
	m := ixMask(w)
	if signed {
		return func(a, b uint64) uint64 {
			x, y := ixSext(a, w), ixSext(b, w)
			if y == 0 {
				return m
			}
			if y == -1 {
				// Avoid relying on the host for MinInt64 / -1.
				if rem {
					return 0
				}
				return uint64(-x) & m
			}
			if rem {
				return uint64(x%y) & m
			}
			return uint64(x/y) & m
		}
	}
	return func(a, b uint64) uint64 {
		x, y := a&m, b&m
		if y == 0 {
			return m
		}
		if rem {
			return x % y
		}
		return x / y
	}
}

func bindAbsNeg(b *binder) {
	if ixFloatForm(b) {
		bindFloatArith(b)
		return
	}
	t := b.Type()
	if !ixCheck(b, t, ixSigned...) || !ixOps(b, t, t) {
		return
	}
	w := ixWidth(t)
	m := ixMask(w)
	b.op.Type = t
	if b.op.Code == isa.OpNeg {
		b.op.Exec = ixExec1(func(a uint64) uint64 { return -a & m })
		return
	}
	b.op.Exec = ixExec1(func(a uint64) uint64 {
		if ixSext(a, w) < 0 {
			return -a & m
		}
		return a & m
	})
}

func bindMinMax(b *binder) {
	if ixFloatForm(b) {
		bindFloatArith(b)
		return
	}
	t := b.Type()
	relu := b.Flag(isa.FRelu)
	if !ixCheck(b, t, isa.U16, isa.U32, isa.U64, isa.S16, isa.S32, isa.S64, isa.U16x2, isa.S16x2) {
		return
	}
	if relu && t != isa.S32 && t != isa.S16x2 {
		b.errorf(".relu applies only to .s32 and .s16x2")
		return
	}
	if !ixOps(b, t, t, t) {
		return
	}
	isMax := b.op.Code == isa.OpMax
	b.op.Type = t
	if relu {
		b.op.Flags = b.op.Flags.With(isa.FRelu)
	}
	if t == isa.U16x2 || t == isa.S16x2 {
		f := ixMinMax(16, t == isa.S16x2, isMax, relu)
		b.op.Exec = ixExec2(func(a, b uint64) uint64 {
			return f(a>>16, b>>16)<<16 | f(a, b)
		})
		return
	}
	b.op.Exec = ixExec2(ixMinMax(ixWidth(t), t.IsSigned(), isMax, relu))
}

// ixMinMax returns the min or max function of width w (result masked to w
// bits); relu clamps a negative signed result to 0.
func ixMinMax(w uint, signed, isMax, relu bool) func(a, b uint64) uint64 {
	m := ixMask(w)
	if signed {
		return func(a, b uint64) uint64 {
			x, y := ixSext(a, w), ixSext(b, w)
			r := min(x, y)
			if isMax {
				r = max(x, y)
			}
			if relu && r < 0 {
				r = 0
			}
			return uint64(r) & m
		}
	}
	return func(a, b uint64) uint64 {
		x, y := a&m, b&m
		if isMax {
			return max(x, y)
		}
		return min(x, y)
	}
}

// ---- bit manipulation ----

func bindPopcClz(b *binder) {
	t := b.Type()
	if !ixCheck(b, t, ixB32B64...) || !ixOps(b, isa.U32, t) {
		return
	}
	b.op.Type = t
	clz := b.op.Code == isa.OpClz
	switch {
	case clz && t == isa.B32:
		b.op.Exec = ixExec1(func(a uint64) uint64 { return uint64(bits.LeadingZeros32(uint32(a))) })
	case clz:
		b.op.Exec = ixExec1(func(a uint64) uint64 { return uint64(bits.LeadingZeros64(a)) })
	case t == isa.B32:
		b.op.Exec = ixExec1(func(a uint64) uint64 { return uint64(bits.OnesCount32(uint32(a))) })
	default:
		b.op.Exec = ixExec1(func(a uint64) uint64 { return uint64(bits.OnesCount64(a)) })
	}
}

func bindBfind(b *binder) {
	t := b.Type()
	shiftamt := b.Flag(isa.FShiftAmt)
	if !ixCheck(b, t, ix32or64...) || !ixOps(b, isa.U32, t) {
		return
	}
	w, signed := ixWidth(t), t.IsSigned()
	m := ixMask(w)
	b.op.Type = t
	if shiftamt {
		b.op.Flags = b.op.Flags.With(isa.FShiftAmt)
	}
	b.op.Exec = ixExec1(func(a uint64) uint64 {
		a &= m
		if signed && a>>(w-1)&1 != 0 {
			a = ^a & m
		}
		if a == 0 {
			return 0xffffffff
		}
		pos := uint64(63 - bits.LeadingZeros64(a))
		if shiftamt {
			return uint64(w-1) - pos
		}
		return pos
	})
}

func bindFns(b *binder) {
	t := b.Type()
	if !ixCheck(b, t, isa.B32) || !ixOps(b, isa.B32, isa.B32, isa.U32, isa.S32) {
		return
	}
	b.op.Type = t
	b.op.Exec = ixExec3(ixFns)
}

// ixFns finds the |offset|-th set bit of mask counting from base (upward
// for a positive offset, downward for a negative one); 0xffffffff if none.
func ixFns(mask, base, offset uint64) uint64 {
	mk := uint32(mask)
	pos := int64(int32(base))
	off := int64(int32(offset))
	if off == 0 {
		if pos >= 0 && pos < 32 && mk>>pos&1 != 0 {
			return uint64(pos)
		}
		return 0xffffffff
	}
	count, inc := off-1, int64(1)
	if off < 0 {
		count, inc = -off-1, -1
	}
	for ; pos >= 0 && pos < 32; pos += inc {
		if mk>>pos&1 != 0 {
			if count == 0 {
				return uint64(pos)
			}
			count--
		}
	}
	return 0xffffffff
}

func bindBrev(b *binder) {
	t := b.Type()
	if !ixCheck(b, t, ixB32B64...) || !ixOps(b, t, t) {
		return
	}
	b.op.Type = t
	if t == isa.B32 {
		b.op.Exec = ixExec1(func(a uint64) uint64 { return uint64(bits.Reverse32(uint32(a))) })
		return
	}
	b.op.Exec = ixExec1(bits.Reverse64)
}

func bindBfe(b *binder) {
	t := b.Type()
	if !ixCheck(b, t, ix32or64...) || !ixOps(b, t, t, isa.U32, isa.U32) {
		return
	}
	w, signed := ixWidth(t), t.IsSigned()
	b.op.Type = t
	b.op.Exec = ixExec3(func(a, pos, ln uint64) uint64 { return ixBfe(a, pos&0xff, ln&0xff, w, signed) })
}

// ixBfe extracts ln bits of a starting at pos (w-bit operation); bits past
// the field (and past bit w-1) are zero, or copies of the field's top bit
// (clamped to bit w-1) when signed.
func ixBfe(a, pos, ln uint64, w uint, signed bool) uint64 {
	m := ixMask(w)
	a &= m
	msb := uint64(w - 1)
	var sbit uint64
	if signed && ln != 0 {
		sbit = a >> min(pos+ln-1, msb) & 1
	}
	var n uint64 // bits taken from a
	if pos <= msb {
		n = min(ln, uint64(w)-pos)
	}
	var d uint64
	if n > 0 {
		d = a >> pos & ixMask(uint(n))
	}
	if sbit != 0 {
		d |= m &^ ixMask(uint(n))
	}
	return d
}

func bindBfi(b *binder) {
	t := b.Type()
	if !ixCheck(b, t, ixB32B64...) || !ixOps(b, t, t, t, isa.U32, isa.U32) {
		return
	}
	w := ixWidth(t)
	b.op.Type = t
	b.op.Exec = ixExec4(func(a, base, pos, ln uint64) uint64 { return ixBfi(a, base, pos&0xff, ln&0xff, w) })
}

// ixBfi inserts the low ln bits of a into base at pos (w-bit operation).
func ixBfi(a, base, pos, ln uint64, w uint) uint64 {
	base &= ixMask(w)
	if pos >= uint64(w) || ln == 0 {
		return base
	}
	n := min(ln, uint64(w)-pos)
	fm := ixMask(uint(n)) << pos
	return base&^fm | a<<pos&fm
}

func bindBmsk(b *binder) {
	t := b.Type()
	mode := ixMode(b, isa.FClamp, isa.FWrap)
	if !ixCheck(b, t, isa.B32) {
		return
	}
	if mode == 0 {
		if !b.failed {
			b.errorf("needs .clamp or .wrap")
		}
		return
	}
	if !ixOps(b, t, isa.U32, isa.U32) {
		return
	}
	clamp := mode == 1
	b.op.Type = t
	b.op.Flags = b.op.Flags.With([]isa.Flag{0, isa.FClamp, isa.FWrap}[mode])
	b.op.Exec = ixExec2(func(a, b uint64) uint64 { return ixBmsk(uint32(a), uint32(b), clamp) })
}

// ixBmsk is the bmsk operation as the PTX ISA specifies it.
func ixBmsk(a, b uint32, clamp bool) uint64 {
	a1, b1 := a&0x1f, b&0x1f
	sum := a1 + b1
	mask0 := ^uint32(0) << a1
	mask1 := ^uint32(0) << sum
	overflow := sum >= 32
	if clamp {
		if a >= 32 {
			overflow = true
			mask0 = 0
		}
		if b >= 32 {
			overflow = true
		}
	}
	if overflow {
		mask1 = 0
	} else if b1 == 0 {
		mask1 = ^uint32(0)
	}
	return uint64(mask0 &^ mask1)
}

func bindSzext(b *binder) {
	t := b.Type()
	mode := ixMode(b, isa.FClamp, isa.FWrap)
	if !ixCheck(b, t, ixU32S32...) {
		return
	}
	if mode == 0 {
		if !b.failed {
			b.errorf("needs .clamp or .wrap")
		}
		return
	}
	if !ixOps(b, t, t, isa.U32) {
		return
	}
	clamp, signed := mode == 1, t == isa.S32
	b.op.Type = t
	b.op.Flags = b.op.Flags.With([]isa.Flag{0, isa.FClamp, isa.FWrap}[mode])
	b.op.Exec = ixExec2(func(a, b uint64) uint64 {
		x, n := uint32(a), uint32(b)
		b1 := n & 0x1f
		tooLarge := n >= 32 && clamp
		var mask uint32
		if !tooLarge {
			mask = ^uint32(0) << b1
		}
		sign := false
		if b1 != 0 && !tooLarge && signed {
			sign = x>>((b1-1)&0x1f)&1 != 0
		}
		d := x &^ mask
		if sign {
			d |= mask
		}
		return uint64(d)
	})
}

// ---- dot products ----

func bindDp4a(b *binder) {
	ts := b.Types(2)
	if b.failed || !ixCheck(b, ts[0], ixU32S32...) || !ixCheck(b, ts[1], ixU32S32...) {
		return
	}
	ct := isa.S32
	if ts[0] == isa.U32 && ts[1] == isa.U32 {
		ct = isa.U32
	}
	if !ixOps(b, ct, ts[0], ts[1], ct) {
		return
	}
	as, bs := ts[0] == isa.S32, ts[1] == isa.S32
	b.op.Type, b.op.Type2 = ts[0], ts[1]
	b.op.Exec = ixExec3(func(a, b, c uint64) uint64 {
		acc := uint32(c)
		for i := 0; i < 32; i += 8 {
			acc += uint32(ixPart(a, i, 8, as) * ixPart(b, i, 8, bs))
		}
		return uint64(acc)
	})
}

// ixPart extracts n bits of v at bit position pos, sign- or zero-extended.
func ixPart(v uint64, pos, n int, signed bool) int64 {
	x := v >> uint(pos) & ixMask(uint(n))
	if signed {
		return ixSext(x, uint(n))
	}
	return int64(x)
}

func bindDp2a(b *binder) {
	ts := b.Types(2)
	mode := ixMulMode(b, false)
	if b.failed || mode == 0 || !ixCheck(b, ts[0], ixU32S32...) || !ixCheck(b, ts[1], ixU32S32...) {
		return
	}
	ct := isa.S32
	if ts[0] == isa.U32 && ts[1] == isa.U32 {
		ct = isa.U32
	}
	if !ixOps(b, ct, ts[0], ts[1], ct) {
		return
	}
	as, bs := ts[0] == isa.S32, ts[1] == isa.S32
	sel := 0
	if mode == 1 {
		sel = 16
		b.op.Flags = b.op.Flags.With(isa.FHi)
	} else {
		b.op.Flags = b.op.Flags.With(isa.FLo)
	}
	b.op.Type, b.op.Type2 = ts[0], ts[1]
	b.op.Exec = ixExec3(func(a, b, c uint64) uint64 {
		acc := uint32(c)
		acc += uint32(ixPart(a, 0, 16, as) * ixPart(b, sel, 8, bs))
		acc += uint32(ixPart(a, 16, 16, as) * ixPart(b, sel+8, 8, bs))
		return uint64(acc)
	})
}

// ---- vshr (the scalar video shift) ----

// bindVshr supports vshr.dtype.atype.u32{.sat}.mode d, a, b and the
// secondary-operation form vshr.dtype.atype.u32{.sat}.mode.op2 d, a, b, c
// (op2: .add, .min, .max). Byte/half-word selectors and the data-merge form
// are not supported.
func bindVshr(b *binder) {
	ts := b.Types(3)
	sat := b.Flag(isa.FSat)
	mode := ixMode(b, isa.FClamp, isa.FWrap)
	op2 := b.Sub()
	if b.failed || !ixCheck(b, ts[0], ixU32S32...) || !ixCheck(b, ts[1], ixU32S32...) || !ixCheck(b, ts[2], isa.U32) {
		return
	}
	if mode == 0 {
		b.errorf("needs .clamp or .wrap")
		return
	}
	switch op2 {
	case isa.SubNone:
		if b.N() == 4 {
			b.errorf("the data-merge form (d.dsel) is not supported by the emulator")
			return
		}
		if !ixOps(b, ts[0], ts[1], isa.U32) {
			return
		}
	case isa.SubAdd, isa.SubMin, isa.SubMax:
		if !ixOps(b, ts[0], ts[1], isa.U32, ts[0]) {
			return
		}
	default:
		b.errorf("secondary operation .%s is not valid (expects .add, .min or .max)", op2)
		return
	}
	dsig, asig, clamp := ts[0] == isa.S32, ts[1] == isa.S32, mode == 1
	b.op.Type, b.op.Type2, b.op.Sub = ts[0], ts[1], op2
	f := func(a, b, c uint64) uint64 {
		ta := int64(uint32(a))
		if asig {
			ta = int64(int32(a))
		}
		tb := uint64(uint32(b))
		if clamp {
			tb = min(tb, 32)
		} else {
			tb &= 0x1f
		}
		t := ta >> tb
		if sat {
			if dsig {
				t = max(min(t, math.MaxInt32), math.MinInt32)
			} else {
				t = max(min(t, math.MaxUint32), 0)
			}
		}
		tc := int64(uint32(c))
		if dsig {
			tc = int64(int32(c))
		}
		switch op2 {
		case isa.SubAdd:
			t += tc
		case isa.SubMin:
			t = min(t, tc)
		case isa.SubMax:
			t = max(t, tc)
		}
		return uint64(uint32(t))
	}
	if op2 == isa.SubNone {
		b.op.Exec = ixExec2(func(a, b uint64) uint64 { return f(a, b, 0) })
		return
	}
	b.op.Exec = ixExec3(f)
}
