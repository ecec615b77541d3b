package emu

import (
	"encoding/binary"
	"sort"

	"github.com/ptxplayground/ptxplay/engine/isa"
)

// Alloc is a global-memory allocation.
type Alloc struct {
	Name string
	Base uint64
	Data []byte
	// quiet: no installed observer needs the accesses to it (every
	// observer of accesses is a GlobalWatcher that does not watch it), so
	// the plain global loads and stores that touch it alone report
	// nothing (Machine.setObservers sets it).
	quiet bool
}

// GlobalMem is the device's global memory: a sorted list of allocations
// with unmapped gaps between them, so that out-of-bounds accesses fault.
type GlobalMem struct {
	allocs []*Alloc
	last   *Alloc
	next   uint64
	slack  int // mapped bytes after each allocation (Config.AllocSlack)
}

// allocGap is the unmapped distance kept between allocations.
const allocGap = 256

// Alloc allocates size zeroed bytes aligned to align (at least 256) and
// returns the allocation.
func (g *GlobalMem) Alloc(name string, size, align int) *Alloc {
	if align < 256 {
		align = 256
	}
	if g.next == 0 {
		g.next = GlobalBase
	}
	base := (g.next + uint64(align) - 1) &^ (uint64(align) - 1)
	// Data's capacity includes the slack: the mapped end of the allocation.
	a := &Alloc{Name: name, Base: base, Data: make([]byte, size+g.slack)[:size]}
	g.allocs = append(g.allocs, a)
	n := uint64(size + g.slack)
	if n == 0 {
		n = 1
	}
	g.next = base + n + allocGap
	return a
}

// Allocs returns the allocations in address order.
func (g *GlobalMem) Allocs() []*Alloc { return g.allocs }

// Find returns the allocation holding [addr, addr+size), or nil.
func (g *GlobalMem) Find(addr uint64, size int) *Alloc {
	if a := g.last; a != nil && addr >= a.Base && addr+uint64(size) <= a.Base+uint64(cap(a.Data)) && addr+uint64(size) >= addr {
		return a
	}
	i := sort.Search(len(g.allocs), func(i int) bool { return g.allocs[i].Base > addr }) - 1
	if i < 0 {
		return nil
	}
	a := g.allocs[i]
	end := addr + uint64(size)
	if end < addr || end > a.Base+uint64(cap(a.Data)) {
		return nil
	}
	g.last = a
	return a
}

// Slice returns the bytes [addr, addr+size) of global memory, or nil.
func (g *GlobalMem) Slice(addr uint64, size int) []byte {
	a := g.Find(addr, size)
	if a == nil {
		return nil
	}
	o := addr - a.Base
	return a.Data[o : o+uint64(size) : o+uint64(size)]
}

// spaceBytes resolves an address in space for lane to the backing bytes,
// checking bounds and natural alignment (align bytes; 0 skips the check).
// Generic addresses are resolved through the windows; the resolved space is
// returned.
func (w *Warp) spaceBytes(space isa.Space, lane int, addr uint64, size, align int) ([]byte, isa.Space, *Fault) {
	if align > 1 && addr&uint64(align-1) != 0 {
		return nil, space, w.faultAddr(FaultMisaligned, lane, addr, "misaligned %d-byte access to %s address 0x%x (needs %d-byte alignment)", size, space, addr, align)
	}
	if space == isa.SpaceNone {
		space, addr = w.m.genericToSpace(addr)
	}
	var mem []byte
	switch space {
	case isa.Global:
		if b := w.m.Global.Slice(addr, size); b != nil {
			return b, space, nil
		}
		return nil, space, w.faultAddr(FaultOutOfBounds, lane, addr, "%d-byte access to global address 0x%x is outside every allocation%s", size, addr, w.m.nearestAlloc(addr))
	case isa.Shared:
		mem = w.cta.shared
		if addr >= clusterStride && addr < clusterStride*(MaxClusterCTAs+1) {
			rank, off := splitClusterAddr(w.cta.Rank, addr)
			return nil, space, w.faultAddr(FaultOutOfBounds, lane, addr, "%d-byte .shared access to 0x%x: that is the .shared::cluster address of offset 0x%x in the CTA of rank %d; access it with ld/st.shared::cluster or a generic address", size, addr, off, rank)
		}
	case isa.SharedCluster:
		c, off, f := w.clusterShared(lane, addr, size)
		if f != nil {
			return nil, space, f
		}
		mem, addr = c.shared, off
		if addr+uint64(size) > uint64(len(mem)) || addr+uint64(size) < addr {
			return nil, space, w.faultAddr(FaultOutOfBounds, lane, addr, "%d-byte access to offset 0x%x of the shared memory of CTA rank %d is outside its %d bytes", size, addr, c.Rank, len(mem))
		}
		return mem[addr : addr+uint64(size) : addr+uint64(size)], space, nil
	case isa.Local:
		ls := uint64(w.m.prog.LocalSize)
		if addr+uint64(size) > ls || addr+uint64(size) < addr {
			return nil, space, w.faultAddr(FaultOutOfBounds, lane, addr, "%d-byte access to local address 0x%x is outside the thread's %d bytes of local memory", size, addr, ls)
		}
		t := uint64(w.linearTid(lane))
		return w.cta.local[t*ls+addr : t*ls+addr+uint64(size) : t*ls+addr+uint64(size)], space, nil
	case isa.Const:
		mem = w.m.constMem
	case isa.Param:
		mem = w.m.params
	default:
		return nil, space, w.faultAddr(FaultIllegal, lane, addr, "access to the %s state space is not supported", space)
	}
	if addr+uint64(size) > uint64(len(mem)) || addr+uint64(size) < addr {
		if space == isa.Shared {
			if f := w.dynamicSharedFault(lane, addr, size); f != nil {
				return nil, space, f
			}
		}
		return nil, space, w.faultAddr(FaultOutOfBounds, lane, addr, "%d-byte access to %s address 0x%x is outside its %d bytes", size, space, addr, len(mem))
	}
	return mem[addr : addr+uint64(size) : addr+uint64(size)], space, nil
}

// dynamicSharedFault is the fault of a shared access past the end of the
// CTA's shared memory that lands in the dynamic shared memory of the
// module's extern .shared array: it says how many bytes of dynamic shared
// memory the access needs, names the launch field that gives them and
// the size an inferred launch gives. nil when the module has no extern
// .shared array or the access is not past its start.
func (w *Warp) dynamicSharedFault(lane int, addr uint64, size int) *Fault {
	p := w.m.prog
	arr := p.DynamicSharedArray()
	base := uint64(p.DynSharedBase)
	end := addr + uint64(size)
	if arr == nil || end < addr || end <= base || end-base > MaxSharedBytes {
		return nil
	}
	return w.faultAddr(FaultOutOfBounds, lane, addr,
		"%d-byte access to shared address 0x%x is past the %d bytes of dynamic shared memory the launch gives: the extern .shared array %s needs at least %d bytes for this access; set the launch's dynamicSharedBytes (an inferred launch gives %d bytes)",
		size, addr, w.m.cfg.DynamicSharedBytes, arr.Name, end-base, p.DefaultDynamicShared())
}

// load reads size (1, 2, 4 or 8) bytes little-endian for lane, zero-extended.
func (w *Warp) load(space isa.Space, lane int, addr uint64, size int) (uint64, *Fault) {
	b, sp, f := w.spaceBytes(space, lane, addr, size, size)
	if f != nil {
		return 0, f
	}
	w.noteAccess(AccessLoad, space, sp, lane, addr, b)
	return getLE(b), nil
}

// store writes the low size bytes of v for lane. Stores to the constant
// bank and to kernel parameters fault.
func (w *Warp) store(space isa.Space, lane int, addr uint64, size int, v uint64) *Fault {
	b, sp, f := w.spaceBytes(space, lane, addr, size, size)
	if f != nil {
		return f
	}
	if sp == isa.Const || sp == isa.Param {
		return w.faultAddr(FaultReadOnly, lane, addr, "store to read-only %s memory at 0x%x", sp, addr)
	}
	w.noteAccess(AccessStore, space, sp, lane, addr, b)
	putLE(b, v)
	return nil
}

// access returns the bytes of an access of size bytes aligned to align for
// lane (vectors, atomics, copies), recording it for the observer with kind.
func (w *Warp) access(kind AccessKind, space isa.Space, lane int, addr uint64, size, align int) ([]byte, *Fault) {
	b, sp, f := w.spaceBytes(space, lane, addr, size, align)
	if f != nil {
		return nil, f
	}
	if kind != AccessLoad && (sp == isa.Const || sp == isa.Param) {
		return nil, w.faultAddr(FaultReadOnly, lane, addr, "write to read-only %s memory at 0x%x", sp, addr)
	}
	w.noteAccess(kind, space, sp, lane, addr, b)
	return b, nil
}

// genericToSpace maps a generic address to its state space and address
// (SharedCluster: a .shared::cluster address naming a CTA's rank).
func (m *Machine) genericToSpace(a uint64) (isa.Space, uint64) {
	switch {
	case a >= GenericShared && a < GenericShared+WindowSize:
		if a-GenericShared >= clusterStride {
			// A peer's shared memory (or the CTA's own, through its
			// .shared::cluster address).
			return isa.SharedCluster, a - GenericShared
		}
		return isa.Shared, a - GenericShared
	case a >= GenericLocal && a < GenericLocal+WindowSize:
		return isa.Local, a - GenericLocal
	case a >= GenericConst && a < GenericConst+WindowSize:
		return isa.Const, a - GenericConst
	case a >= GenericParam && a < GenericParam+WindowSize:
		return isa.Param, a - GenericParam
	}
	return isa.Global, a
}

// window returns the base of space's generic window (0 for global).
func window(space isa.Space) (uint64, bool) {
	switch space {
	case isa.Shared, isa.SharedCluster:
		return GenericShared, true
	case isa.Local:
		return GenericLocal, true
	case isa.Const:
		return GenericConst, true
	case isa.Param:
		return GenericParam, true
	case isa.Global:
		return 0, true
	}
	return 0, false
}

func (m *Machine) nearestAlloc(addr uint64) string {
	var best *Alloc
	for _, a := range m.Global.allocs {
		if a.Base <= addr {
			best = a
		}
	}
	if best == nil || best.Name == "" {
		return ""
	}
	end := best.Base + uint64(len(best.Data))
	switch {
	case addr == end:
		return " (just past the end of " + best.Name + ")"
	case addr > end:
		return " (" + itoa(int(addr-end)) + " bytes past the end of " + best.Name + ")"
	}
	return " (in " + best.Name + ")"
}

func itoa(n int) string {
	var b [20]byte
	i := len(b)
	neg := n < 0
	if neg {
		n = -n
	}
	for {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
		if n == 0 {
			break
		}
	}
	if neg {
		i--
		b[i] = '-'
	}
	return string(b[i:])
}

func getLE(b []byte) uint64 {
	switch len(b) {
	case 1:
		return uint64(b[0])
	case 2:
		return uint64(binary.LittleEndian.Uint16(b))
	case 4:
		return uint64(binary.LittleEndian.Uint32(b))
	case 8:
		return binary.LittleEndian.Uint64(b)
	}
	var v uint64
	for i := len(b) - 1; i >= 0; i-- {
		v = v<<8 | uint64(b[i])
	}
	return v
}

func putLE(b []byte, v uint64) {
	switch len(b) {
	case 1:
		b[0] = byte(v)
	case 2:
		binary.LittleEndian.PutUint16(b, uint16(v))
	case 4:
		binary.LittleEndian.PutUint32(b, uint32(v))
	case 8:
		binary.LittleEndian.PutUint64(b, v)
	default:
		for i := range b {
			b[i] = byte(v >> (8 * i))
		}
	}
}
