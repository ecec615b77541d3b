package emu

import (
	"encoding/binary"
	"math/bits"

	"github.com/ptxplayground/ptxplay/engine/isa"
	"github.com/ptxplayground/ptxplay/engine/ptx"
)

// The memory family: ld, ldu, st, prefetch, prefetchu, discard,
// applypriority, createpolicy, isspacep, cvta and cp.async.
//
// Memory operands. A memory operand "[base+off]" or "[var+off]" is lowered
// to op.A (the base register slot, -1 for a symbol or absolute address),
// op.Off (the constant offset; for a symbol, its address plus the offset)
// and op.Imm (a mask applied to the base register: 32-bit address registers
// are zero-extended). The effective state space is the instruction's space,
// except that
//   - a generic instruction whose address is a variable uses the variable's
//     space (ld.u32 r, [smem] reads shared memory);
//   - .param names a device function's parameters, which live in the
//     thread's local memory: a .param access to such a symbol, or through a
//     register inside a device function, is a local access; inside a kernel
//     a register-based ld.param reads the kernel parameter buffer (whose
//     variables' addresses are offsets in it).
//
// Choices documented here (the emulator's behaviour where the ISA leaves
// freedom):
//   - cp.async reads its source when it is issued and writes its
//     destination when the thread waits for it (cp.async.wait_group,
//     wait_all) or exits: see async.go for the rule.
//   - createpolicy writes the opaque value CachePolicyValue; cache policies
//     have no effect in the emulator.
//   - prefetch, prefetchu, discard and applypriority check their operands
//     when the program is compiled and have no effect when executed (the
//     emulator has no caches, and discard's "undefined contents" are kept
//     as they were).
//   - Every access is bounds-checked and must be naturally aligned to its
//     whole size (a vector to the size of the whole vector); violations
//     fault rather than being undefined.

// CachePolicyValue is the opaque 64-bit cache-eviction policy that
// createpolicy writes in the emulator.
const CachePolicyValue uint64 = 0x00C0_FFEE_0000_0000

const memFullMask = ^uint32(0)

func init() {
	binders[isa.OpLd] = bindLd
	binders[isa.OpLdu] = bindLd
	binders[isa.OpSt] = bindSt
	binders[isa.OpPrefetch] = bindPrefetch
	binders[isa.OpPrefetchu] = bindPrefetch
	binders[isa.OpDiscard] = bindPrefetch
	binders[isa.OpApplypriority] = bindPrefetch
	binders[isa.OpCreatepolicy] = bindCreatepolicy
	binders[isa.OpIsspacep] = bindIsspacep
	binders[isa.OpCvta] = bindCvta
	binders[isa.OpCpAsync] = bindCpAsync
	binders[isa.OpCpAsyncCommitGroup] = bindCpAsyncGroup
	binders[isa.OpCpAsyncWaitGroup] = bindCpAsyncGroup
	binders[isa.OpCpAsyncWaitAll] = bindCpAsyncGroup
}

// ---- binding helpers ----

// memHasMod reports whether the instruction spells modifier name (hints are
// not recorded by the binder, so optional operands that depend on them are
// found this way).
func memHasMod(b *binder, name string) bool {
	for _, m := range b.ins.Mods {
		if m.Name == name {
			return true
		}
	}
	return false
}

// memRef is a resolved memory operand.
type memRef struct {
	base  int32
	off   int64
	space isa.Space
	amask uint64
}

// memInDeviceFunc reports whether the instruction being bound is in a .func.
func memInDeviceFunc(b *binder) bool {
	return b.c.fn != nil && b.c.fn.Kind != ptx.KindEntry
}

// bindMemRef resolves memory operand i of an instruction whose state-space
// modifier is space (SpaceNone: generic) and works out the effective space.
func bindMemRef(b *binder, i int, space isa.Space) (memRef, bool) {
	switch space {
	case isa.SpaceNone, isa.Global, isa.Shared, isa.SharedCluster, isa.Local, isa.Const, isa.Param:
	default:
		b.errorf("cannot access the .%s state space", space)
		return memRef{}, false
	}
	base, off, symSp, ok := b.Addr(i)
	if !ok || b.failed {
		return memRef{}, false
	}
	sp := space
	if symSp == isa.SpaceNone {
		if space == isa.Param && memInDeviceFunc(b) {
			sp = isa.Local
		}
	} else {
		switch {
		case space == isa.SpaceNone || space == symSp:
			sp = symSp
		case space == isa.Param && symSp == isa.Local:
			sp = isa.Local
		case (space == isa.Shared || space == isa.SharedCluster) && (symSp == isa.Shared || symSp == isa.SharedCluster):
			sp = isa.Shared
		default:
			b.operr(i, "%s is a .%s variable; it cannot be accessed as .%s", b.ins.Operands[i].Name, symSp, space)
			return memRef{}, false
		}
	}
	if sp == isa.SharedCluster && symSp != isa.SpaceNone {
		// A shared variable's address is the CTA's own.
		sp = isa.Shared
	}
	b.memOps = append(b.memOps, MemOperand{Operand: uint8(min(i, 255)), Base: base, Space: sp, Off: off})
	r := memRef{base: base, off: off, space: sp, amask: ^uint64(0)}
	if base >= 0 && b.c.prog.Regs[base].Type.Bits() == 32 {
		r.amask = 0xffffffff
	}
	return r, true
}

// memSpan records how many bytes one lane's access through the memory
// operand bound last spans (MemOperand.Bytes).
func (b *binder) memSpan(n int64) {
	if k := len(b.memOps); k > 0 {
		b.memOps[k-1].Bytes = n
	}
}

func (r memRef) set(op *Op) {
	op.A, op.Off, op.Space, op.Imm = r.base, r.off, r.space, r.amask
}

// memAddr is the address of a memory operand for lane l (see memRef).
func memAddr(w *Warp, op *Op, l int) uint64 {
	return memAt(memBase(w, op), op, l)
}

// memBase returns the lanes of the base register of a memory operand
// (zeros for an absolute address), for memAt; loops over lanes fetch it
// once.
func memBase(w *Warp, op *Op) *[32]uint64 {
	if op.A < 0 {
		return &ixZero
	}
	return w.r(op.A)
}

// memAt is the address of a memory operand for lane l, given its base.
func memAt(base *[32]uint64, op *Op, l int) uint64 {
	return base[l]&op.Imm + uint64(op.Off)
}

// maxVecRegs bounds the registers of a vector memory operand (.v8).
const maxVecRegs = 8

// vecRows returns the lanes of the vector operand slots regs (at most
// maxVecRegs), for loops over lanes.
func vecRows(w *Warp, regs []int32) (rows [maxVecRegs]*[32]uint64) {
	for k, r := range regs[:min(len(regs), maxVecRegs)] {
		rows[k] = w.r(r)
	}
	return rows
}

// memRegWidth returns the width in bits of value slot r as declared (64 for
// constants and unknown widths).
func memRegWidth(b *binder, r int32) int {
	if r < 0 || int(r) >= len(b.c.prog.Regs) {
		return 64
	}
	n := b.c.prog.Regs[r].Type.Bits()
	if n <= 0 || n > 64 {
		return 64
	}
	return n
}

// memCheckDataReg checks a data register of a memory instruction of type t:
// ld/st allow registers wider than t (9.4.1) but not narrower ones, and
// floating-point types need a register of the same size unless the
// register has a bit-size type.
func memCheckDataReg(b *binder, i int, r int32, t isa.Type) bool {
	if r < 0 || int(r) >= len(b.c.prog.Regs) {
		return !b.failed
	}
	ri := &b.c.prog.Regs[r]
	if ri.Kind != RegUser {
		return true
	}
	rt := ri.Type
	if rt.Bits() < t.Bits() {
		b.operr(i, "register %s (.%s) is narrower than .%s", ri.Name, rt, t)
		return false
	}
	if rt.IsFloat() && t.IsFloat() && rt.Bits() != t.Bits() {
		b.operr(i, "register %s has type .%s, incompatible with .%s", ri.Name, rt, t)
		return false
	}
	return true
}

// memCheckType checks the type of a load or store.
func memCheckType(b *binder, t isa.Type) bool {
	switch t.Kind() {
	case isa.KindBits, isa.KindUnsigned, isa.KindSigned:
		if t == isa.U16x2 || t == isa.S16x2 {
			break
		}
		if t == isa.B128 {
			b.errorf(".b128 needs a 128-bit register, which the emulator does not have; use .v2.b64")
			return false
		}
		return true
	case isa.KindFloat:
		switch t {
		case isa.F16, isa.BF16, isa.F16x2, isa.BF16x2, isa.F32, isa.F64:
			return true
		}
	case isa.KindNone:
		return false // Type() already reported it
	}
	b.errorf("type .%s is not valid for %s", t, b.op.Code)
	return false
}

// memCachePolicyOperand checks the optional cache-policy operand that
// .L2::cache_hint adds at index i; it reports how many operands there are.
func memCachePolicyOperand(b *binder, n int) int {
	if memHasMod(b, "L2::cache_hint") {
		if b.N() == n+1 {
			b.Src(n, isa.B64)
		}
		return n + 1
	}
	return n
}

// ---- ld / ldu ----

func bindLd(b *binder) {
	b.Flag(isa.FVolatile)
	b.Flag(isa.FNC)
	space := b.Space()
	vec := b.Vec()
	t := b.Type()
	if b.failed || !memCheckType(b, t) {
		return
	}
	if b.op.Code == isa.OpLdu && space != isa.SpaceNone && space != isa.Global {
		b.errorf("ldu reads .global memory only")
		return
	}
	if vec > 1 && t.Size()*vec > 32 {
		b.errorf(".v%d.%s is %d bytes; vector accesses are at most 32 bytes", vec, t, t.Size()*vec)
		return
	}
	n := memCachePolicyOperand(b, 2)
	if !b.Want(2, n) {
		return
	}
	ref, ok := bindMemRef(b, 1, space)
	if !ok {
		return
	}
	b.memSpan(int64(t.Size() * max(vec, 1)))
	op := b.op
	ref.set(op)
	op.Type = t
	size := t.Size()
	if vec <= 1 {
		d := b.DstRelaxed(0, t)
		if b.failed || !memCheckDataReg(b, 0, d, t) {
			return
		}
		op.D = d
		dw := memRegWidth(b, d)
		op.Type2 = b.c.prog.Regs[d].Type
		shift, dmask := memExtension(t, dw)
		if ref.base < 0 && ref.space != isa.Local && ref.space != isa.SpaceNone {
			// A symbol or absolute address outside local memory: every
			// lane reads the same location (kernel parameters, constants).
			op.Exec = memMakeLdUniform(ref.space, size, shift, dmask)
			return
		}
		if shift == 0 && (size == 4 || size == 8) {
			switch ref.space {
			case isa.Global:
				op.Exec = execLdGlobal
				if size == 4 {
					op.Exec = execLdGlobal4
				}
				return
			case isa.Shared:
				op.Exec = execLdShared4
				op.PlainShared = true
				if size == 8 {
					op.Exec = execLdShared8
				} else if op.A >= 0 && op.Off == 0 && op.Imm == 0xffffffff {
					op.Exec = execLdShared4R32
				}
				return
			case isa.SpaceNone:
				op.Exec = execLdGeneric
				return
			}
		}
		op.Exec = memMakeLdScalar(ref.space, size, shift, dmask)
		return
	}
	op.Vec = uint8(vec)
	regs := b.VecRegs(0, vec, t, true)
	if b.failed {
		return
	}
	shifts := make([]uint, vec)
	dmasks := make([]uint64, vec)
	for k, r := range regs {
		if !memCheckDataReg(b, 0, r, t) {
			return
		}
		shifts[k], dmasks[k] = memExtension(t, memRegWidth(b, r))
	}
	op.Regs = regs
	op.Exec = memMakeLdVec(ref.space, size, vec, shifts, dmasks)
}

// memExtension returns how a loaded value of type t is extended into a
// register of dw bits: the shift pair that sign-extends it (0: zero
// memExtension) and the mask of the register width.
func memExtension(t isa.Type, dw int) (uint, uint64) {
	dmask := ^uint64(0)
	if dw < 64 {
		dmask = 1<<dw - 1
	}
	if t.IsSigned() && t.Bits() < dw {
		return uint(64 - t.Bits()), dmask
	}
	return 0, dmask
}

func memMakeLdScalar(space isa.Space, size int, shift uint, dmask uint64) execFn {
	return func(w *Warp, op *Op, mask uint32) *Fault {
		d := w.r(op.D)
		base := memBase(w, op)
		for m := mask; m != 0; m &= m - 1 {
			l := bits.TrailingZeros32(m)
			v, f := w.load(space, l, memAt(base, op, l), size)
			if f != nil {
				return f
			}
			if shift != 0 {
				v = uint64(int64(v<<shift) >> shift)
			}
			d[l] = v & dmask
		}
		return nil
	}
}

// memMakeLdUniform loads a location that is the same for every lane once and
// broadcasts it (with an observer, every lane's access is reported).
func memMakeLdUniform(space isa.Space, size int, shift uint, dmask uint64) execFn {
	slow := memMakeLdScalar(space, size, shift, dmask)
	global := space == isa.Global
	shared := space == isa.Shared || space == isa.SharedCluster
	return func(w *Warp, op *Op, mask uint32) *Fault {
		if w.m.obsAcc && (global || w.m.obsShared) || w.m.sf.on && shared {
			// Observed (obsShared: every space, not only global memory),
			// or every lane's shared access for the phase filter.
			return slow(w, op, mask)
		}
		v, f := w.load(space, bits.TrailingZeros32(mask), uint64(op.Off), size)
		if f != nil {
			return f
		}
		if shift != 0 {
			v = uint64(int64(v<<shift) >> shift)
		}
		v &= dmask
		d := w.r(op.D)
		if mask == memFullMask {
			for l := range d {
				d[l] = v
			}
			return nil
		}
		for m := mask; m != 0; m &= m - 1 {
			d[bits.TrailingZeros32(m)] = v
		}
		return nil
	}
}

// memBytes returns the bytes of a size-byte access (aligned to its whole
// size) for lane l, reporting it to the observer.
func memBytes(w *Warp, kind AccessKind, space isa.Space, l int, addr uint64, size int) ([]byte, *Fault) {
	return w.access(kind, space, l, addr, size, size)
}

func memMakeLdVec(space isa.Space, es, n int, shifts []uint, dmasks []uint64) execFn {
	total := es * n
	return func(w *Warp, op *Op, mask uint32) *Fault {
		base, rows := memBase(w, op), vecRows(w, op.Regs)
		for m := mask; m != 0; m &= m - 1 {
			l := bits.TrailingZeros32(m)
			buf, f := memBytes(w, AccessLoad, space, l, memAt(base, op, l), total)
			if f != nil {
				return f
			}
			for k := 0; k < n; k++ {
				v := getLE(buf[k*es : (k+1)*es])
				if s := shifts[k]; s != 0 {
					v = uint64(int64(v<<s) >> s)
				}
				rows[k][l] = v & dmasks[k]
			}
		}
		return nil
	}
}

// ---- fast paths: 32/64-bit ld/st of .global, .shared and generic ----
//
// They read and write the backing bytes directly when the access is in
// bounds and aligned, and fall back to w.load / w.store (which report the
// fault) otherwise. With an observer that asks for accesses the warp is
// checked and recorded as a whole (exec_mem_obs.go).

// memInWindows reports whether a generic address falls in the range of the
// shared, local, const and param windows (everything else is global).
func memInWindows(a uint64) bool { return a >= GenericShared && a < GenericParam+WindowSize }

func execLdGlobal(w *Warp, op *Op, mask uint32) *Fault {
	return memLdFastGlobal(w, op, mask, isa.Global)
}

// execLdGlobal4 is execLdGlobal of 4 bytes. On a full warp whose
// addresses all fall in the allocation of lane 0's, it checks every lane
// first (aligned, inside the allocation) without a call in the loop, then
// copies; anything else takes execLdGlobal's lane-by-lane path, which gives
// the same values and faults.
func execLdGlobal4(w *Warp, op *Op, mask uint32) *Fault {
	if mask != ixAll || op.A < 0 || op.A == op.D || w.m.obsAcc && !w.m.obsQuiet {
		return memLdFastGlobal(w, op, mask, isa.Global)
	}
	base, am, off := w.r(op.A), op.Imm, uint64(op.Off)
	a := w.m.Global.Find(off+base[0]&am, 4)
	if a == nil || len(a.Data) < 4 || w.m.obsAcc && !a.quiet {
		return memLdFastGlobal(w, op, mask, isa.Global)
	}
	data := a.Data
	lo, lim := a.Base, uint64(len(data)-4)
	// An address below the allocation wraps its offset o to a negative
	// int64; one past lim makes lim - o negative.
	low, neg := uint64(0), uint64(0)
	for l := range base {
		addr := off + base[l]&am
		o := addr - lo
		low |= addr
		neg |= o | (lim - o)
	}
	if low&3 != 0 || int64(neg) < 0 {
		return memLdFastGlobal(w, op, mask, isa.Global)
	}
	d, n := w.r(op.D), len(data)
	for l := range d {
		if o := int(off + base[l]&am - lo); o >= 0 && o <= n-4 {
			d[l] = uint64(binary.LittleEndian.Uint32(data[o:]))
		}
	}
	return nil
}

// quietGlobal reports whether every lane of mask accesses size aligned
// bytes of a quiet global allocation (Alloc.quiet), so that the access
// needs no report: the plain paths then serve it as without observers.
// Anything else (a lane outside every allocation, misaligned, in a watched
// one) goes to the observed paths, which report it or its fault.
func (w *Warp) quietGlobal(op *Op, mask uint32, size int) bool {
	if !w.m.obsQuiet {
		return false
	}
	g := &w.m.Global
	am, off, us := op.Imm, uint64(op.Off), uint64(size)
	base := &ixZero
	if op.A >= 0 {
		base = w.r(op.A)
	}
	var a *Alloc
	for m := mask; m != 0; m &= m - 1 {
		addr := off + base[bits.TrailingZeros32(m)]&am
		if a == nil || addr < a.Base || addr-a.Base > uint64(len(a.Data)) || addr-a.Base+us > uint64(len(a.Data)) {
			if a = g.Find(addr, size); a == nil || addr-a.Base+us > uint64(len(a.Data)) {
				return false
			}
		}
		if !a.quiet || addr&(us-1) != 0 {
			return false
		}
	}
	return true
}

func execLdGeneric(w *Warp, op *Op, mask uint32) *Fault {
	return memLdFastGlobal(w, op, mask, isa.SpaceNone)
}

func memLdFastGlobal(w *Warp, op *Op, mask uint32, space isa.Space) *Fault {
	size := op.Type.Size()
	if w.m.obsAcc && !(space == isa.Global && w.quietGlobal(op, mask, size)) {
		if w.m.fast.noObservedFast {
			return memLdSlow(w, op, mask, space, size)
		}
		return memLdGlobalObserved(w, op, mask, space, size)
	}
	d := w.r(op.D)
	g := &w.m.Global
	am, off := op.Imm, uint64(op.Off)
	var base *[32]uint64
	if op.A >= 0 {
		base = w.r(op.A)
	}
	us := uint64(size)
	for m := mask; m != 0; m &= m - 1 {
		l := bits.TrailingZeros32(m)
		addr := off
		if base != nil {
			addr += base[l] & am
		}
		a := g.last
		if a != nil && addr&(us-1) == 0 && (space == isa.Global || !memInWindows(addr)) {
			o := addr - a.Base
			if addr >= a.Base && o < uint64(len(a.Data)) && o+us <= uint64(len(a.Data)) {
				if size == 4 {
					d[l] = uint64(binary.LittleEndian.Uint32(a.Data[o:]))
				} else {
					d[l] = binary.LittleEndian.Uint64(a.Data[o:])
				}
				continue
			}
		}
		v, f := w.load(space, l, addr, size)
		if f != nil {
			return f
		}
		d[l] = v
	}
	return nil
}

// Shared-memory ld and st of 4 and 8 bytes, with the access size bound at
// lowering. Without an observer, a load reads lane by lane in a loop
// without calls and, at the first lane whose address is misaligned or
// outside the CTA's shared memory, leaves the whole instruction to the
// checked path, which serves the lanes in ascending order and faults at the
// first bad one (loads have no side effects, so reading the served lanes
// again is harmless). A store, and a load whose destination is its address
// register (its writes would change later lanes' addresses), checks every
// active lane first and then copies; the copy loop repeats the bounds test
// in the form the compiler uses to drop its own checks.

// memSharedOK reports whether the address of every lane in mask is aligned
// to size and inside the n bytes of shared memory.
func memSharedOK(w *Warp, op *Op, mask uint32, size, n int) bool {
	base, am, off, lim := &ixZero, op.Imm, uint64(op.Off), n-size
	if op.A >= 0 {
		base = w.r(op.A)
	}
	if mask == ixAll {
		bad := false
		for l := range base {
			a := int(off + base[l]&am)
			bad = bad || a&(size-1) != 0 || a < 0 || a > lim
		}
		return !bad
	}
	for m := mask; m != 0; m &= m - 1 {
		a := int(off + base[bits.TrailingZeros32(m)&31]&am)
		if a&(size-1) != 0 || a < 0 || a > lim {
			return false
		}
	}
	return true
}

func execLdShared4(w *Warp, op *Op, mask uint32) *Fault {
	if w.m.obsShared && !w.m.plainSink {
		return memLdSharedObs(w, op, mask, 4)
	}
	sh := w.cta.shared
	n := len(sh)
	base, am, off := &ixZero, op.Imm, uint64(op.Off)
	if op.A >= 0 {
		base = w.r(op.A)
	}
	d := w.r(op.D)
	if mask == ixAll {
		// A regular pattern in bounds: its words by the pattern.
		if p, o0, o16 := loadShared4(d, base, am, off, sh); p != PatternNone {
			if w.m.sf.on {
				w.patternRead(p, o0, o16)
			}
			return nil
		}
	}
	if op.A == op.D && !memSharedOK(w, op, mask, 4, n) {
		return memLdSlow(w, op, mask, isa.Shared, 4)
	}
	if w.m.sf.on && op.A == op.D {
		// The filter reads the addresses after the loads: take them first.
		w.m.addrCopy = *base
		base = &w.m.addrCopy
	}
	if mask == ixAll {
		for l := range d {
			a := int(off + base[l]&am)
			if a&3 != 0 || a < 0 || a > n-4 {
				return memLdSlow(w, op, mask, isa.Shared, 4)
			}
			d[l] = uint64(binary.LittleEndian.Uint32(sh[a:]))
		}
	} else {
		for m := mask; m != 0; m &= m - 1 {
			l := bits.TrailingZeros32(m) & 31
			a := int(off + base[l]&am)
			if a&3 != 0 || a < 0 || a > n-4 {
				return memLdSlow(w, op, mask, isa.Shared, 4)
			}
			d[l] = uint64(binary.LittleEndian.Uint32(sh[a:]))
		}
	}
	if w.m.sf.on {
		w.plainDone(false, mask, base, am, off, 4)
	}
	return nil
}

// execLdShared4R32 is execLdShared4 where the address is a 32-bit register
// alone (no offset): an address is then never negative, so each lane
// needs one comparison with the end and one alignment test.
func execLdShared4R32(w *Warp, op *Op, mask uint32) *Fault {
	if w.m.obsShared && !w.m.plainSink {
		return memLdSharedObs(w, op, mask, 4)
	}
	sh := w.cta.shared
	lim := len(sh) - 4
	base, d := w.r(op.A), w.r(op.D)
	if mask == ixAll {
		if p, o0, o16 := loadShared4(d, base, 0xffffffff, 0, sh); p != PatternNone {
			if w.m.sf.on {
				w.patternRead(p, o0, o16)
			}
			return nil
		}
	}
	if op.A == op.D && !memSharedOK(w, op, mask, 4, len(sh)) {
		return memLdSlow(w, op, mask, isa.Shared, 4)
	}
	if w.m.sf.on && op.A == op.D {
		// The filter reads the addresses after the loads: take them first.
		w.m.addrCopy = *base
		base = &w.m.addrCopy
	}
	if mask == ixAll {
		for l := 0; l < 32; l += 4 { // unrolled: one alignment test per four lanes
			a0, a1, a2, a3 := int(uint32(base[l])), int(uint32(base[l+1])), int(uint32(base[l+2])), int(uint32(base[l+3]))
			if (a0|a1|a2|a3)&3 != 0 || a0 > lim || a1 > lim || a2 > lim || a3 > lim {
				return memLdSlow(w, op, mask, isa.Shared, 4)
			}
			d[l] = uint64(binary.LittleEndian.Uint32(sh[a0:]))
			d[l+1] = uint64(binary.LittleEndian.Uint32(sh[a1:]))
			d[l+2] = uint64(binary.LittleEndian.Uint32(sh[a2:]))
			d[l+3] = uint64(binary.LittleEndian.Uint32(sh[a3:]))
		}
		if w.m.sf.on {
			w.plainDone(false, mask, base, 0xffffffff, 0, 4)
		}
		return nil
	}
	for m := mask; m != 0; m &= m - 1 {
		l := bits.TrailingZeros32(m) & 31
		a := int(uint32(base[l]))
		if a&3 != 0 || a > lim {
			return memLdSlow(w, op, mask, isa.Shared, 4)
		}
		d[l] = uint64(binary.LittleEndian.Uint32(sh[a:]))
	}
	if w.m.sf.on {
		w.plainDone(false, mask, base, 0xffffffff, 0, 4)
	}
	return nil
}

func execLdShared8(w *Warp, op *Op, mask uint32) *Fault {
	if w.m.obsShared && !w.m.plainSink {
		return memLdSharedObs(w, op, mask, 8)
	}
	sh := w.cta.shared
	n := len(sh)
	if op.A == op.D && !memSharedOK(w, op, mask, 8, n) {
		return memLdSlow(w, op, mask, isa.Shared, 8)
	}
	base, am, off := &ixZero, op.Imm, uint64(op.Off)
	if op.A >= 0 {
		base = w.r(op.A)
	}
	d := w.r(op.D)
	if w.m.sf.on && op.A == op.D {
		w.m.addrCopy = *base
		base = &w.m.addrCopy
	}
	for m := mask; m != 0; m &= m - 1 {
		l := bits.TrailingZeros32(m) & 31
		a := int(off + base[l]&am)
		if a&7 != 0 || a < 0 || a > n-8 {
			return memLdSlow(w, op, mask, isa.Shared, 8)
		}
		d[l] = binary.LittleEndian.Uint64(sh[a:])
	}
	if w.m.sf.on {
		w.plainDone(false, mask, base, am, off, 8)
	}
	return nil
}

// memLdSharedObs is a shared load with an observer that asks for accesses.
func memLdSharedObs(w *Warp, op *Op, mask uint32, size int) *Fault {
	if w.m.fast.noObservedFast {
		return memLdSlow(w, op, mask, isa.Shared, size)
	}
	return memLdSharedObserved(w, op, mask, size)
}

func memLdSlow(w *Warp, op *Op, mask uint32, space isa.Space, size int) *Fault {
	d := w.r(op.D)
	base := memBase(w, op)
	for m := mask; m != 0; m &= m - 1 {
		l := bits.TrailingZeros32(m)
		v, f := w.load(space, l, memAt(base, op, l), size)
		if f != nil {
			return f
		}
		d[l] = v
	}
	return nil
}

func execStGlobal(w *Warp, op *Op, mask uint32) *Fault {
	return memStFastGlobal(w, op, mask, isa.Global)
}

func execStGeneric(w *Warp, op *Op, mask uint32) *Fault {
	return memStFastGlobal(w, op, mask, isa.SpaceNone)
}

func memStFastGlobal(w *Warp, op *Op, mask uint32, space isa.Space) *Fault {
	size := op.Type.Size()
	if w.m.obsAcc && !(space == isa.Global && w.quietGlobal(op, mask, size)) {
		if w.m.fast.noObservedFast {
			return memStSlow(w, op, mask, space, size)
		}
		return memStGlobalObserved(w, op, mask, space, size)
	}
	src := w.r(op.B)
	g := &w.m.Global
	am, off := op.Imm, uint64(op.Off)
	var base *[32]uint64
	if op.A >= 0 {
		base = w.r(op.A)
	}
	us := uint64(size)
	for m := mask; m != 0; m &= m - 1 {
		l := bits.TrailingZeros32(m)
		addr := off
		if base != nil {
			addr += base[l] & am
		}
		a := g.last
		if a != nil && addr&(us-1) == 0 && (space == isa.Global || !memInWindows(addr)) {
			o := addr - a.Base
			if addr >= a.Base && o < uint64(len(a.Data)) && o+us <= uint64(len(a.Data)) {
				if size == 4 {
					binary.LittleEndian.PutUint32(a.Data[o:], uint32(src[l]))
				} else {
					binary.LittleEndian.PutUint64(a.Data[o:], src[l])
				}
				continue
			}
		}
		if f := w.store(space, l, addr, size, src[l]); f != nil {
			return f
		}
	}
	return nil
}

func execStShared4(w *Warp, op *Op, mask uint32) *Fault {
	if w.m.obsShared && !w.m.plainSink {
		return memStSharedObs(w, op, mask, 4)
	}
	sh := w.cta.shared
	n := len(sh)
	if mask == ixAll && n >= 4 {
		return memStShared4All(w, op, sh)
	}
	if !memSharedOK(w, op, mask, 4, n) {
		return memStSlow(w, op, mask, isa.Shared, 4)
	}
	base, am, off := &ixZero, op.Imm, uint64(op.Off)
	if op.A >= 0 {
		base = w.r(op.A)
	}
	src := w.r(op.B)
	for m := mask; m != 0; m &= m - 1 {
		l := bits.TrailingZeros32(m) & 31
		if a := int(off + base[l]&am); a >= 0 && a <= n-4 {
			binary.LittleEndian.PutUint32(sh[a:], uint32(src[l]))
		}
	}
	if w.m.sf.on {
		w.plainDone(true, mask, base, am, off, 4)
	}
	return nil
}

// memStShared4All is execStShared4 on a full warp (len(sh) >= 4): every
// address is checked first without a branch per lane (a negative address
// or one past the end makes neg negative, a misaligned one sets low's low
// bits), then the values are copied in a plain loop.
func memStShared4All(w *Warp, op *Op, sh []byte) *Fault {
	base, am, off := &ixZero, op.Imm, uint64(op.Off)
	if op.A >= 0 {
		base = w.r(op.A)
	}
	lim := len(sh) - 4
	neg, low := 0, 0
	for l := range base {
		a := int(off + base[l]&am)
		neg |= a | (lim - a)
		low |= a
	}
	if neg < 0 || low&3 != 0 {
		return memStSlow(w, op, ixAll, isa.Shared, 4)
	}
	src := w.r(op.B)
	for l := range src {
		if a := int(off + base[l]&am); a >= 0 && a <= lim {
			binary.LittleEndian.PutUint32(sh[a:], uint32(src[l]))
		}
	}
	if w.m.sf.on {
		w.plainDone(true, ixAll, base, am, off, 4)
	}
	return nil
}

// execStShared4R32 is execStShared4 where the address is a 32-bit register
// alone (never negative): on a full warp only the end and the alignment
// are checked, without a branch per lane, before the copy.
func execStShared4R32(w *Warp, op *Op, mask uint32) *Fault {
	if w.m.obsShared && !w.m.plainSink || mask != ixAll {
		return execStShared4(w, op, mask)
	}
	sh := w.cta.shared
	base, lim := w.r(op.A), len(sh)-4
	if p, o0, o16 := ClassifyWarp(base, 0xffffffff, 0); p == PatternRunHalves && o16 == o0+64 && patternIn(p, o0, o16, len(sh)) {
		// A row of 32 words.
		if w.m.sf.on {
			w.patternWrite(base, 0xffffffff, 0, p, o0, o16)
		}
		storeRow4(sh, o0, w.r(op.B))
		return nil
	}
	over, low := 0, 0
	for l := range base {
		a := int(uint32(base[l]))
		over |= lim - a
		low |= a
	}
	if over < 0 || low&3 != 0 {
		return memStSlow(w, op, ixAll, isa.Shared, 4)
	}
	src := w.r(op.B)
	for l := range src {
		if a := int(uint32(base[l])); a <= lim {
			binary.LittleEndian.PutUint32(sh[a:], uint32(src[l]))
		}
	}
	if w.m.sf.on {
		w.plainDone(true, ixAll, base, 0xffffffff, 0, 4)
	}
	return nil
}

func execStShared8(w *Warp, op *Op, mask uint32) *Fault {
	if w.m.obsShared && !w.m.plainSink {
		return memStSharedObs(w, op, mask, 8)
	}
	sh := w.cta.shared
	n := len(sh)
	if !memSharedOK(w, op, mask, 8, n) {
		return memStSlow(w, op, mask, isa.Shared, 8)
	}
	base, am, off := &ixZero, op.Imm, uint64(op.Off)
	if op.A >= 0 {
		base = w.r(op.A)
	}
	src := w.r(op.B)
	for m := mask; m != 0; m &= m - 1 {
		l := bits.TrailingZeros32(m) & 31
		if a := int(off + base[l]&am); a >= 0 && a <= n-8 {
			binary.LittleEndian.PutUint64(sh[a:], src[l])
		}
	}
	if w.m.sf.on {
		w.plainDone(true, mask, base, am, off, 8)
	}
	return nil
}

// memStSharedObs is a shared store with an observer that asks for accesses.
func memStSharedObs(w *Warp, op *Op, mask uint32, size int) *Fault {
	if w.m.fast.noObservedFast {
		return memStSlow(w, op, mask, isa.Shared, size)
	}
	return memStSharedObserved(w, op, mask, size)
}

func memStSlow(w *Warp, op *Op, mask uint32, space isa.Space, size int) *Fault {
	src := w.r(op.B)
	base := memBase(w, op)
	for m := mask; m != 0; m &= m - 1 {
		l := bits.TrailingZeros32(m)
		if f := w.store(space, l, memAt(base, op, l), size, src[l]); f != nil {
			return f
		}
	}
	return nil
}

// ---- st ----

func bindSt(b *binder) {
	b.Flag(isa.FVolatile)
	space := b.Space()
	vec := b.Vec()
	t := b.Type()
	if b.failed || !memCheckType(b, t) {
		return
	}
	if vec > 1 && t.Size()*vec > 32 {
		b.errorf(".v%d.%s is %d bytes; vector accesses are at most 32 bytes", vec, t, t.Size()*vec)
		return
	}
	n := memCachePolicyOperand(b, 2)
	if !b.Want(2, n) {
		return
	}
	ref, ok := bindMemRef(b, 0, space)
	if !ok {
		return
	}
	b.memSpan(int64(t.Size() * max(vec, 1)))
	op := b.op
	ref.set(op)
	op.Type = t
	size := t.Size()
	if vec <= 1 {
		src, add, ok := memStSource(b, 1, t)
		if !ok {
			return
		}
		op.B = src
		if add == 0 && (size == 4 || size == 8) {
			switch ref.space {
			case isa.Global:
				op.Exec = execStGlobal
				return
			case isa.Shared:
				op.Exec = execStShared4
				op.PlainShared = true
				if size == 8 {
					op.Exec = execStShared8
				} else if op.A >= 0 && op.Off == 0 && op.Imm == 0xffffffff {
					op.Exec = execStShared4R32
				}
				return
			case isa.SpaceNone:
				op.Exec = execStGeneric
				return
			}
		}
		space := ref.space
		op.Exec = func(w *Warp, op *Op, mask uint32) *Fault {
			src := w.r(op.B)
			base := memBase(w, op)
			for m := mask; m != 0; m &= m - 1 {
				l := bits.TrailingZeros32(m)
				if f := w.store(space, l, memAt(base, op, l), size, src[l]+add); f != nil {
					return f
				}
			}
			return nil
		}
		return
	}
	op.Vec = uint8(vec)
	regs := b.VecRegs(1, vec, t, false)
	if b.failed {
		return
	}
	for _, r := range regs {
		if !memCheckDataReg(b, 1, r, t) {
			return
		}
	}
	op.Regs = regs
	op.Exec = memMakeStVec(ref.space, size, vec)
}

// memStSource resolves the value operand of st: a register or constant, or
// "reg+imm" / "reg-imm" (a register plus a constant, which ptxas accepts as
// a store operand); it returns the slot and the constant to add.
func memStSource(b *binder, i int, t isa.Type) (int32, uint64, bool) {
	o := b.opd(i)
	if o == nil {
		return -1, 0, false
	}
	if o.Kind == ptx.OpdImm && o.Expr != nil && o.Expr.Kind == ptx.ExprBinary && (o.Expr.Op == "+" || o.Expr.Op == "-") &&
		o.Expr.X != nil && o.Expr.X.Kind == ptx.ExprName {
		if s := b.c.lookup(o.Expr.X.Name); s != nil && s.kind == symReg && s.size <= 1 {
			v, err := ptx.Eval(o.Expr.Y, nil)
			if err != nil {
				b.c.evalError(o.Expr.Y, err)
				b.failed = true
				return -1, 0, false
			}
			if !compatible(s.typ, t, true) {
				b.operr(i, "operand %s has type .%s, incompatible with .%s", s.name, s.typ, t)
				return -1, 0, false
			}
			add := v.Int
			if o.Expr.Op == "-" {
				add = -add
			}
			if !memCheckDataReg(b, i, s.reg, t) {
				return -1, 0, false
			}
			b.record(s.reg, t, false)
			return s.reg, add, true
		}
	}
	r := b.SrcRelaxed(i, t)
	if b.failed || !memCheckDataReg(b, i, r, t) {
		return -1, 0, false
	}
	return r, 0, true
}

func memMakeStVec(space isa.Space, es, n int) execFn {
	total := es * n
	return func(w *Warp, op *Op, mask uint32) *Fault {
		base, rows := memBase(w, op), vecRows(w, op.Regs)
		for m := mask; m != 0; m &= m - 1 {
			l := bits.TrailingZeros32(m)
			buf, f := memBytes(w, AccessStore, space, l, memAt(base, op, l), total)
			if f != nil {
				return f
			}
			for k := 0; k < n; k++ {
				putLE(buf[k*es:(k+1)*es], rows[k][l])
			}
		}
		return nil
	}
}

// ---- prefetch, prefetchu, discard, applypriority, createpolicy ----

func bindPrefetch(b *binder) {
	space := b.Space()
	b.AllTypes()
	switch {
	case b.op.Code == isa.OpPrefetch && b.Hint("tensormap"):
		// prefetch{.const,.param}.tensormap [a] (PTX 8.0, sm_90).
		if space != isa.SpaceNone && space != isa.Const && space != isa.Param {
			b.errorf("prefetch.tensormap cannot operate on the .%s state space", space)
			return
		}
	case space == isa.SpaceNone, space == isa.Global, space == isa.Local:
	default:
		b.errorf("cannot operate on the .%s state space", space)
		return
	}
	switch b.op.Code {
	case isa.OpDiscard, isa.OpApplypriority:
		// discard.global.L2 [a], 128; applypriority.global.L2::evict_normal [a], 128;
		if !b.Want(2, 2) {
			return
		}
		if v, ok := b.Imm(1); ok && v.Int != 128 {
			b.operr(1, "size must be 128")
			return
		}
	default:
		if !b.Want(1, 1) {
			return
		}
	}
	if _, ok := bindMemRef(b, 0, space); !ok {
		return
	}
	b.op.Exec = execNop
}

func bindCreatepolicy(b *binder) {
	if t := b.Type(); t != isa.B64 && !b.failed {
		b.errorf("needs .b64")
		return
	}
	if !b.Want(1, 4) {
		return
	}
	b.op.D = b.Dst(0, isa.B64)
	for i := 1; i < b.N(); i++ {
		o := b.opd(i)
		switch {
		case o == nil:
			return
		case o.Kind == ptx.OpdAddr:
			bindMemRef(b, i, isa.Global)
		case o.Kind == ptx.OpdImm:
			b.Imm(i)
		default:
			b.SrcRelaxed(i, isa.TNone)
		}
	}
	b.op.Exec = func(w *Warp, op *Op, mask uint32) *Fault {
		d := w.r(op.D)
		for m := mask; m != 0; m &= m - 1 {
			d[bits.TrailingZeros32(m)] = CachePolicyValue
		}
		return nil
	}
}

// ---- isspacep, cvta ----

// memAddrSrc resolves an address-valued source operand of isspacep/cvta of
// type t: a register, a constant, or a variable name (its address in its
// own space), possibly with a constant offset ("arr+8").
func memAddrSrc(b *binder, i int, t isa.Type) (int32, *sym) {
	o := b.opd(i)
	if o == nil {
		return -1, nil
	}
	switch o.Kind {
	case ptx.OpdName:
		if s := b.c.lookup(o.Name); s != nil && s.kind == symVar {
			return b.constSrc(s.addr, t), s
		}
	case ptx.OpdImm:
		var vs *sym
		v, err := ptx.Eval(o.Expr, func(name string) (ptx.Value, bool) {
			if s := b.c.lookup(name); s != nil && s.kind == symVar {
				vs = s
				return ptx.Value{Kind: ptx.ValUint, Int: s.addr}, true
			}
			return ptx.Value{}, false
		})
		if err != nil {
			b.c.evalError(o.Expr, err)
			b.failed = true
			return -1, nil
		}
		return b.constSrc(v.Int, t), vs
	}
	return b.SrcRelaxed(i, t), nil
}

func bindIsspacep(b *binder) {
	space := b.Space()
	switch space {
	case isa.Global, isa.Shared, isa.SharedCluster, isa.Local, isa.Const, isa.Param:
	default:
		b.errorf("needs a state space (.global .shared .local .const .param)")
		return
	}
	if !b.Want(2, 2) {
		return
	}
	op := b.op
	op.Space = space
	op.D = b.Dst(0, isa.Pred)
	op.A, _ = memAddrSrc(b, 1, isa.U32)
	if b.failed {
		return
	}
	var lo, hi uint64
	switch space {
	case isa.Shared, isa.SharedCluster:
		lo = GenericShared
	case isa.Local:
		lo = GenericLocal
	case isa.Const:
		lo = GenericConst
	case isa.Param:
		lo = GenericParam
	}
	hi = lo + WindowSize
	if space == isa.Global {
		op.Exec = func(w *Warp, op *Op, mask uint32) *Fault {
			a := w.r(op.A)
			p := w.preds[op.D] &^ mask
			for m := mask; m != 0; m &= m - 1 {
				l := bits.TrailingZeros32(m)
				if sp, _ := w.m.genericToSpace(a[l]); sp == isa.Global || sp == isa.Param {
					p |= 1 << l
				}
			}
			w.preds[op.D] = p
			return nil
		}
		return
	}
	if space == isa.Shared || space == isa.SharedCluster {
		// .shared (::cta): the CTA's own shared memory; .shared::cluster:
		// that of any CTA of the cluster.
		op.Exec = func(w *Warp, op *Op, mask uint32) *Fault {
			a := w.r(op.A)
			p := w.preds[op.D] &^ mask
			n := uint64(len(w.cta.cluster.CTAs))
			for m := mask; m != 0; m &= m - 1 {
				l := bits.TrailingZeros32(m)
				if a[l] < GenericShared || a[l] >= GenericShared+WindowSize {
					continue
				}
				rank, _ := splitClusterAddr(w.cta.Rank, a[l]-GenericShared)
				if op.Space == isa.SharedCluster && rank < n || rank == uint64(w.cta.Rank) {
					p |= 1 << l
				}
			}
			w.preds[op.D] = p
			return nil
		}
		return
	}
	op.Exec = func(w *Warp, op *Op, mask uint32) *Fault {
		a := w.r(op.A)
		p := w.preds[op.D] &^ mask
		for m := mask; m != 0; m &= m - 1 {
			l := bits.TrailingZeros32(m)
			if a[l] >= lo && a[l] < hi {
				p |= 1 << l
			}
		}
		w.preds[op.D] = p
		return nil
	}
}

// bindCvta: cvta.space.size d, a (state-space address to generic: add the
// space's window base) and cvta.to.space.size d, a (generic to state
// space: subtract it). Global addresses are generic addresses. With .u32
// the result is truncated to 32 bits (generic addresses are 64-bit in the
// emulator, so cvta.space.u32 only makes sense for .global).
func bindCvta(b *binder) {
	to := b.Flag(isa.FTo)
	space := b.Space()
	t := b.Type()
	if b.failed {
		return
	}
	if t != isa.U32 && t != isa.U64 && t != isa.B32 && t != isa.B64 {
		b.errorf("needs .u32 or .u64")
		return
	}
	if !b.Want(2, 2) {
		return
	}
	op := b.op
	op.Type = t
	op.D = b.Dst(0, t)
	var s *sym
	op.A, s = memAddrSrc(b, 1, t)
	if b.failed {
		return
	}
	sp := space
	if s != nil && s.space == isa.Local && space == isa.Param {
		sp = isa.Local // a device function's parameter lives in local memory
	}
	win, ok := window(sp)
	if !ok || space == isa.SpaceNone {
		b.errorf("needs a state space (.global .shared .local .const .param)")
		return
	}
	op.Space = sp
	tmask := ^uint64(0)
	if t.Bits() == 32 {
		tmask = 0xffffffff
	}
	if to {
		win = -win
	}
	op.Exec = func(w *Warp, op *Op, mask uint32) *Fault {
		a, d := w.r(op.A), w.r(op.D)
		for m := mask; m != 0; m &= m - 1 {
			l := bits.TrailingZeros32(m)
			d[l] = (a[l] + win) & tmask
		}
		return nil
	}
}

// ---- cp.async ----

// bindCpAsync: cp.async.{ca,cg}.shared{::cta}.global [dst], [src], cp-size
// {, src-size | ignore-src}{, cache-policy}. The copy completes when it is
// issued (see the family comment): cp-size bytes are written to shared
// memory, the first src-size of them read from global memory and the rest
// zero-filled (all of them zero when the predicate ignore-src is true).
func bindCpAsync(b *binder) {
	b.Space()
	var dstOK, srcOK bool
	for _, m := range b.ins.Mods {
		switch m.Name {
		case "shared", "shared::cta":
			dstOK = true
		case "global":
			srcOK = dstOK
		}
	}
	if !dstOK || !srcOK {
		b.errorf("only the .shared{::cta}.global form is supported")
		return
	}
	cg := memHasMod(b, "cg")
	hint := memHasMod(b, "L2::cache_hint")
	if !b.Want(3, 5) {
		return
	}
	dst, ok := bindMemRef(b, 0, isa.Shared)
	if !ok {
		return
	}
	src, ok := bindMemRef(b, 1, isa.Global)
	if !ok {
		return
	}
	v, ok := b.Imm(2)
	if !ok {
		return
	}
	cp := int(v.Int)
	if cp != 4 && cp != 8 && cp != 16 {
		b.operr(2, "cp-size must be 4, 8 or 16")
		return
	}
	if cg && cp != 16 {
		b.operr(2, "cp.async.cg needs cp-size 16")
		return
	}
	op := b.op
	dst.set(op)
	sizeSlot, ignore := int32(-1), int32(-1)
	extra := b.N() - 3
	if hint {
		if extra == 0 {
			b.errorf(".L2::cache_hint needs a cache-policy operand")
			return
		}
		b.Src(b.N()-1, isa.B64)
		extra--
	}
	if extra > 1 {
		b.errorf("too many operands")
		return
	}
	if extra == 1 {
		if memIsPredOperand(b, 3) {
			ignore = b.SrcPred(3, 2)
		} else {
			sizeSlot = b.Src(3, isa.U32)
		}
	}
	if b.failed {
		return
	}
	op.B, op.C = sizeSlot, ignore
	op.E = src.base // not read when executing: recorded for analyses of the program
	srcBase, srcOff, srcMask := src.base, uint64(src.off), src.amask
	// lane copies for lane l; with check it only reports whether the copy
	// faults, changing nothing.
	lane := func(w *Warp, op *Op, l int, check bool) *Fault {
		n := cp
		if op.B >= 0 {
			s := w.r(op.B)[l] & 0xffffffff
			if s > uint64(cp) {
				return w.fault(FaultIllegal, l, "cp.async src-size %d exceeds cp-size %d", s, cp)
			}
			n = int(s)
		}
		if op.C >= 0 && (w.preds[op.C]>>l&1 != 0) != (op.Neg&4 != 0) {
			n = 0
		}
		sa := srcOff
		if srcBase >= 0 {
			sa += w.r(srcBase)[l] & srcMask
		}
		da := memAddr(w, op, l)
		if check {
			if n > 0 {
				if _, _, f := w.spaceBytes(isa.Global, l, sa, n, cp); f != nil {
					return f
				}
			} else if sa&uint64(cp-1) != 0 {
				return w.faultAddr(FaultMisaligned, l, sa, "cp.async source address 0x%x is not aligned to cp-size %d", sa, cp)
			}
			_, _, f := w.spaceBytes(isa.Shared, l, da, cp, cp)
			return f
		}
		var tmp [16]byte
		if n > 0 {
			sb, f := w.access(AccessLoad, isa.Global, l, sa, n, cp)
			if f != nil {
				return f
			}
			copy(tmp[:], sb)
		} else if sa&uint64(cp-1) != 0 {
			return w.faultAddr(FaultMisaligned, l, sa, "cp.async source address 0x%x is not aligned to cp-size %d", sa, cp)
		}
		// The destination is written when the thread waits (async.go).
		if _, _, f := w.spaceBytes(isa.Shared, l, da, cp, cp); f != nil {
			return f
		}
		w.issueCopy(w.pc(), l, sa, da, cp, &tmp)
		return nil
	}
	op.Exec = func(w *Warp, op *Op, mask uint32) *Fault {
		if n := copyBytes * int64(bits.OnesCount32(mask)); w.m.overDynamic(n) {
			return w.dynamicFault(n, mask, "cp.async (copies in flight until cp.async.wait_group or wait_all)")
		}
		for m := mask; m != 0; m &= m - 1 {
			l := bits.TrailingZeros32(m)
			if f := lane(w, op, l, false); f != nil {
				// Every lane above l whose copy would fault faults too.
				f.Lanes = 1 << l
				for r := m & (m - 1); r != 0; r &= r - 1 {
					if k := bits.TrailingZeros32(r); lane(w, op, k, true) != nil {
						f.Lanes |= 1 << k
					}
				}
				return f
			}
		}
		return nil
	}
}

// memIsPredOperand reports whether operand i names a predicate register.
func memIsPredOperand(b *binder, i int) bool {
	o := b.opd(i)
	if o == nil || o.Kind != ptx.OpdName {
		return false
	}
	if o.Neg {
		return true
	}
	s := b.c.lookup(o.Name)
	return s != nil && s.kind == symPred
}

func bindCpAsyncGroup(b *binder) {
	switch b.op.Code {
	case isa.OpCpAsyncWaitGroup:
		if !b.Want(1, 1) {
			return
		}
		v, ok := b.Imm(0)
		if !ok {
			b.failed = true
			return
		}
		if int64(v.Int) < 0 {
			b.operr(0, "N must not be negative")
			return
		}
		b.op.Imm = uint64(min(v.Int, 1<<31))
		b.op.Exec = execCpAsyncWaitGroup
	case isa.OpCpAsyncWaitAll:
		if !b.Want(0, 0) {
			return
		}
		b.op.Exec = execCpAsyncWaitAll
	default:
		if !b.Want(0, 0) {
			return
		}
		b.op.Exec = execCpAsyncCommit
	}
}
