package emu

import (
	"fmt"
	"math/bits"

	"github.com/ptxplayground/ptxplay/engine/isa"
)

// The shared-memory phase filter.
//
// A run of the race and memory checker (engine/analysis) costs an
// observer's report for every shared-memory access, a step report for
// every barrier and every change of a warp's active lanes, and the
// checker's happens-before work on each. For a kernel whose only
// synchronisation is the CTA-wide barrier (bar.sync, barrier.sync or
// bar.red without a thread count), most of that decides nothing: between
// two releases of such a barrier (a phase) the threads of the CTA are
// unordered, and everything before a release happens before everything
// after it for every warp it released. The filter decides, far more
// cheaply and without looking at the order of the accesses, that the
// checker would find nothing in shared memory:
//
//   - per 4-byte word of the CTA's shared memory it keeps the one thread
//     that wrote it in the current phase (if any, or "atomics of several
//     threads"), the one thread that read it (or "several"), and which of
//     its bytes were ever written in the CTA;
//   - within a phase, a word accessed by two different threads, one of
//     them writing, is suspect (the checker would call it a race unless
//     the two threads are lanes of one warp that ran together since:
//     the filter does not follow lanes, so it is stricter; atomics do not
//     race with each other), and so is a read of bytes never written (the
//     checker's uninitialised read);
//   - a release ends the phase; a warp that exited after accessing shared
//     memory in the phase did not wait at that release, so its accesses
//     are not ordered before the next phase's: suspect too.
//
// The filter is order-independent: the accesses of one phase can be seen
// in any order consistent with each thread's program order, so leads run
// shared loads and the checker's observer need not see them. "Clean" (no
// suspect access in the whole run) means the checker, run as the only
// judge, reports nothing for shared memory; anything suspect means the
// caller runs the launch again with the checker proper
// (launch.RunWith), which then decides exactly. Instructions whose
// effects the filter does not follow (bulk and tensor copies, mbarriers,
// clusters, barriers with thread counts or arrive-only, shared-memory
// instructions other than ld/st/atom/red, ldmatrix/stmatrix and the
// cp.async of a thread's groups) keep the program off it
// (SharedFilterable).
//
// A cp.async copy may land at any time until its thread waits for it (or
// exits): at its issue it is a write of its thread in that phase, and
// its words are in flight (sfPend) until it lands, which is a write of
// its thread in the phase of the wait. Any access of a word in flight,
// its own thread's included, is suspect (the checker's read before the
// wait, or a write the copy may overwrite).
//
// The state, per 4-byte word: sfAcc, the word's accesses in the current
// phase (bits 0-11 the reader: 0 none, thread index + 1, or sfMany; bit
// 12, sfPart, an access of part of the word; bit 13, sfAtom, the writer
// wrote by atomics only; bits 16-31 the writer: 0, thread index + 1, or
// sfAtomics), cleared at every release; and
// sfWr, the bytes of the word ever written in the CTA (a mask of 4), and
// sfPend while a cp.async copy to it is in flight.

const (
	sfMany       = 0xfff
	sfReaderMask = 0xfff
	sfPart       = 0x1000
	// sfAtom: the writer's writes in the phase were all atomics.
	sfAtom = 0x2000
	// sfAtomics: the writer of a word that atomics of several threads
	// (and nothing else) wrote in the phase.
	sfAtomics = 0xffff
	// sfPend, in sfWr: a cp.async copy to the word is in flight.
	sfPend = 0x10
)

// sharedFilter is the machine's phase filter state (the per-CTA words
// are CTA.sfAcc and CTA.sfWr).
type sharedFilter struct {
	on      bool
	flagged bool
	why     string
}

// SharedFilterable reports why the program cannot use the shared-memory
// phase filter ("" when it can): see the rules above. A generic access
// that lands in another CTA's shared memory (or names its own through
// .shared::cluster) is suspect when it happens.
func SharedFilterable(p *Program) string {
	for pc := range p.Ops {
		op := &p.Ops[pc]
		e := op.Eff
		why := ""
		switch {
		case op.Space == isa.SharedCluster:
			why = "a .shared::cluster access"
		case sfFollows[op.Code]:
			// cp.async of a thread's groups, its commit and waits (a
			// wait lands the copies at once and ends), and the rows of
			// ldmatrix/stmatrix (accesses of the lanes that give them).
		case e.Any(EffAsync | EffCluster | EffClusterBarrier):
			why = "asynchronous work or a cluster instruction"
		case e.Has(EffBarrier) && !e.Has(EffFullBarrier|EffBlocks):
			why = "a barrier with a thread count, or one that only arrives"
		case e.Has(EffBlocks) && !e.Has(EffBarrier):
			why = "a wait other than a CTA barrier"
		case e.Any(EffReadShared|EffWriteShared) && !e.Has(EffAccess):
			why = "a shared-memory instruction other than ld, st, atom or red"
		}
		if why != "" {
			return fmt.Sprintf("instruction %d (%s): %s", pc, op.Code, why)
		}
	}
	return ""
}

// sfFollows holds the instructions outside the general rules whose
// effects on shared memory the filter follows.
var sfFollows = map[isa.Opcode]bool{
	isa.OpCpAsync: true, isa.OpCpAsyncCommitGroup: true, isa.OpCpAsyncWaitGroup: true, isa.OpCpAsyncWaitAll: true,
	isa.OpLdmatrix: true, isa.OpStmatrix: true,
}

// EnableSharedFilter turns the shared-memory phase filter on for a launch
// that has not started, and reports whether it did: the program must pass
// SharedFilterable and the launch's clusters must be single CTAs.
// SharedFilterSuspect then says whether the run was clean. The filter
// interrupts the run (StopInterrupted) at the first suspect access.
func (m *Machine) EnableSharedFilter() bool {
	if m.stats.WarpInstructions > 0 || len(m.ctas) > 0 || m.csize > 1 || SharedFilterable(m.prog) != "" {
		return false
	}
	m.sf = sharedFilter{on: true}
	return true
}

// SharedFilterSuspect reports whether the phase filter found a suspect
// access (and what it was); false while the run is clean so far or the
// filter is off.
func (m *Machine) SharedFilterSuspect() (bool, string) { return m.sf.flagged, m.sf.why }

// sfSuspect records the first suspect access and stops the run.
func (m *Machine) sfSuspect(w *Warp, lane int, off uint64, what string) {
	if m.sf.flagged {
		return
	}
	m.sf.flagged = true
	m.sf.why = fmt.Sprintf("%s: CTA (%d,%d,%d) thread %d, shared offset 0x%x, instruction %d", what, w.cta.Idx[0], w.cta.Idx[1], w.cta.Idx[2], w.linearTid(lane), off, m.curPC)
	m.Interrupt()
}

// sfInit gives a new CTA its filter words.
func (m *Machine) sfInit(c *CTA) {
	n := (len(c.shared) + 3) / 4
	if cap(c.sfAcc) >= n {
		c.sfAcc, c.sfWr = c.sfAcc[:n], c.sfWr[:n]
		clear(c.sfAcc)
		clear(c.sfWr)
	} else {
		c.sfAcc, c.sfWr = make([]uint32, n), make([]uint8, n)
	}
	c.sfPhase, c.sfExited = 1, false
}

// sfRelease ends c's phase at a release of a CTA barrier: every access
// before it happens before every access after it by the warps it
// released, which are all the CTA's live warps (no barrier counts
// threads: SharedFilterable).
func (m *Machine) sfRelease(c *CTA) {
	if c.sfExited && !m.sf.flagged {
		m.sf.flagged = true
		m.sf.why = fmt.Sprintf("CTA (%d,%d,%d): a warp exited after accessing shared memory, and the others went on past a barrier (instruction %d)", c.Idx[0], c.Idx[1], c.Idx[2], m.curPC)
		m.Interrupt()
	}
	if c.sfExited || c.sfDirty {
		clear(c.sfAcc)
	}
	c.sfExited, c.sfDirty = false, false
	c.sfPhase++
}

// sfExit notes lanes of w exiting.
func (w *Warp) sfExit() {
	if w.sfPhase == w.cta.sfPhase {
		w.cta.sfExited = true
	}
}

// sfWord applies one thread's (me: its index + 1) access of the bytes bm
// (a mask of the word's 4) of word i; it reports false when the access is
// suspect.
func (c *CTA) sfWord(i uint64, me uint32, bm uint8, write bool) bool {
	if c.sfWr[i]&sfPend != 0 {
		return false // a copy to it is in flight
	}
	x := c.sfAcc[i]
	if bm != 0xf {
		x |= sfPart
	}
	wr, rd := x>>16, x&sfReaderMask
	if wr != 0 && wr != me {
		return false
	}
	if write {
		if rd != 0 && rd != me {
			return false
		}
		c.sfAcc[i] = me<<16 | x&sfPart | rd
		c.sfWr[i] |= bm
		return true
	}
	if c.sfWr[i]&bm != bm {
		return false // bytes never written
	}
	if rd == 0 {
		x |= me
	} else if rd != me {
		x |= sfMany
	}
	c.sfAcc[i] = x
	return true
}

// sfAtomic applies thread me's atomic on the bytes bm of word i: it reads
// and writes them, but two atomics never race with each other, so a word
// only atomics wrote in the phase (writer sfAtomics) takes more of them
// from any thread; a plain read or write of it by another thread, or an
// atomic on a word another thread accessed plainly, is suspect.
func (c *CTA) sfAtomic(i uint64, me uint32, bm uint8) bool {
	x := c.sfAcc[i]
	if bm != 0xf {
		x |= sfPart
	}
	wr, rd := x>>16, x&sfReaderMask
	if rd != 0 && rd != me || c.sfWr[i]&(bm|sfPend) != bm {
		return false // a plain read by another thread, bytes never written, or a copy in flight
	}
	switch {
	case wr == 0:
		x |= me<<16 | sfAtom
	case wr == me || wr == sfAtomics:
	case x&sfAtom != 0:
		x = x&^(0xffff<<16) | sfAtomics<<16
	default:
		return false // a plain write by another thread
	}
	c.sfAcc[i] = x
	return true
}

// sfBegin notes that w accesses shared memory in its CTA's phase and
// returns the CTA, or nil once the run is suspect (nothing more to apply).
func (w *Warp) sfBegin() *CTA {
	if w.m.sf.flagged {
		return nil
	}
	c := w.cta
	w.sfPhase = c.sfPhase
	c.sfDirty = true
	return c
}

// sfWarp applies an aligned access of size (4 or 8) bytes by the lanes of
// mask at off + base[lane]&am, in bounds (the fast ld/st paths).
func (w *Warp) sfWarp(write bool, mask uint32, base *[32]uint64, am, off uint64, size int) {
	c := w.sfBegin()
	if c == nil {
		return
	}
	m := w.m
	me0 := uint32(w.ID)*32 + 1
	if size == 4 {
		var l int
		if write {
			l = sfWrites(c.sfAcc, c.sfWr, mask, base, am, off, me0)
		} else {
			l = sfReads(c.sfAcc, c.sfWr, mask, base, am, off, me0)
		}
		if l >= 0 {
			m.sfSuspect(w, l, off+base[l]&am, sfWhat(write))
		}
		return
	}
	for mm := mask; mm != 0; mm &= mm - 1 {
		l := bits.TrailingZeros32(mm)
		a := off + base[l]&am
		for k := uint64(0); k < uint64(size>>2); k++ {
			if i := a>>2 + k; i >= uint64(len(c.sfAcc)) || !c.sfWord(i, me0+uint32(l), 0xf, write) {
				m.sfSuspect(w, l, a, sfWhat(write))
				return
			}
		}
	}
}

// sfReads applies a 4-byte load of the lanes of mask (see sfWarp) to a
// CTA's words acc and wr, the lanes being threads me0-1 + lane; it returns
// the first lane whose read is suspect, or -1. A word read by several
// threads and nothing else in the phase (sfMany: each of them found it
// written) needs nothing more.
func sfReads(acc []uint32, wr []uint8, mask uint32, base *[32]uint64, am, off uint64, me0 uint32) int {
	if len(wr) != len(acc) {
		return 0
	}
	if mask == ixAll {
		// Each half-warp reading one word, or the two half-warps the same
		// run of 16 words: every word read by several threads (sfMany),
		// decided a word at a time.
		switch p, o0, o16 := ClassifyWarp(base, am, off); {
		case p == PatternBroadcastHalves:
			if sfManyWords(acc, wr, o0>>2, 1) && sfManyWords(acc, wr, o16>>2, 1) {
				return -1
			}
		case p == PatternRunHalves && o16 == o0:
			if sfManyWords(acc, wr, o0>>2, 16) {
				return -1
			}
		}
		if am == 0xffffffff && off == 0 {
			// A 32-bit address register alone: four lanes at a time, the
			// words of the whole CTA's reads (sfMany) passed over.
			n := uint(len(acc))
			for l := 0; l < 32; l += 4 {
				i0, i1, i2, i3 := uint(uint32(base[l]))>>2, uint(uint32(base[l+1]))>>2, uint(uint32(base[l+2]))>>2, uint(uint32(base[l+3]))>>2
				if i0 >= n || i1 >= n || i2 >= n || i3 >= n {
					return sfReadsLanes(acc, wr, 0xf<<l, base, am, off, me0)
				}
				if (acc[i0]^sfMany)|(acc[i1]^sfMany)|(acc[i2]^sfMany)|(acc[i3]^sfMany) != 0 {
					if i0 == i1 && i0 == i2 && i0 == i3 && acc[i0] == 0 && wr[i0] == 0xf {
						// Four threads are the first to read a written word.
						acc[i0] = sfMany
						continue
					}
					if i1 == i0+1 && i2 == i0+2 && i3 == i0+3 && acc[i0]|acc[i1]|acc[i2]|acc[i3] == 0 && wr[i0]&wr[i1]&wr[i2]&wr[i3] == 0xf && (wr[i0]|wr[i1]|wr[i2]|wr[i3])&sfPend == 0 {
						// Each of four threads is the first to read its own
						// written word.
						me := me0 + uint32(l)
						acc[i0], acc[i1], acc[i2], acc[i3] = me, me+1, me+2, me+3
						continue
					}
					if k := sfReadsLanes(acc, wr, 0xf<<l, base, am, off, me0); k >= 0 {
						return k
					}
				}
			}
			return -1
		}
	}
	return sfReadsLanes(acc, wr, mask, base, am, off, me0)
}

// sfManyWords applies reads by several threads (each reads all of every
// word, and at least two read each) to the n words from i, and reports
// whether none was suspect; at a word that may be (out of range, bytes
// never written or a copy in flight, a writer in the phase) it stops and
// reports false, the words before it applied, for the lane-by-lane path
// to decide from there (applying reads again changes nothing).
func sfManyWords(acc []uint32, wr []uint8, i uint64, n int) bool {
	if i+uint64(n) > uint64(len(acc)) || len(wr) != len(acc) {
		return false
	}
	for j := i; j < i+uint64(n); j++ {
		x := acc[j]
		if x == sfMany {
			continue
		}
		if wr[j] != 0xf || x>>16 != 0 {
			return false
		}
		acc[j] = x | sfMany
	}
	return true
}

// sfReadsLanes is sfReads lane by lane.
func sfReadsLanes(acc []uint32, wr []uint8, mask uint32, base *[32]uint64, am, off uint64, me0 uint32) int {
	for mm := mask; mm != 0; mm &= mm - 1 {
		l := bits.TrailingZeros32(mm) & 31
		i := (off + base[l]&am) >> 2
		if i >= uint64(len(acc)) {
			return l
		}
		if x := acc[i]; x != sfMany && !sfRead(acc, wr, i, x, me0+uint32(l)) {
			return l
		}
	}
	return -1
}

// sfRead applies thread me's read of all of word i (i in bounds, x its
// accesses) and reports whether it is not suspect.
func sfRead(acc []uint32, wr []uint8, i uint64, x, me uint32) bool {
	if wr[i] != 0xf {
		return false // bytes never written
	}
	if w := x >> 16; w != 0 && w != me {
		return false
	}
	if rd := x & sfReaderMask; rd == 0 {
		acc[i] = x | me
	} else if rd != me {
		acc[i] = x | sfMany
	}
	return true
}

// sfWrites is sfReads for a 4-byte store.
func sfWrites(acc []uint32, wr []uint8, mask uint32, base *[32]uint64, am, off uint64, me0 uint32) int {
	if len(wr) != len(acc) {
		return 0
	}
	if mask == ixAll && am == 0xffffffff && off == 0 {
		// A full warp through a 32-bit address register alone.
		n := uint(len(acc))
		for l := range base {
			i := uint(uint32(base[l])) >> 2
			if i >= n {
				return l
			}
			x, me := acc[i], me0+uint32(l)
			if x != 0 {
				// Only this thread's own read or write before.
				if y := x &^ (sfPart | sfAtom); y != me && y != me<<16 && y != me<<16|me {
					return l
				}
			}
			if wr[i]&sfPend != 0 {
				return l // a copy to it is in flight
			}
			acc[i] = me<<16 | x&(sfReaderMask|sfPart)
			wr[i] = 0xf
		}
		return -1
	}
	for mm := mask; mm != 0; mm &= mm - 1 {
		l := bits.TrailingZeros32(mm) & 31
		i := (off + base[l]&am) >> 2
		if i >= uint64(len(acc)) {
			return l
		}
		x, me := acc[i], me0+uint32(l)
		if w, rd := x>>16, x&sfReaderMask; w != 0 && w != me || rd != 0 && rd != me || wr[i]&sfPend != 0 {
			return l
		}
		acc[i] = me<<16 | x&(sfReaderMask|sfPart)
		wr[i] = 0xf
	}
	return -1
}

// sfLane applies lane's access of size bytes at shared offset off (the
// per-lane paths: vectors, sub-word and generic accesses, atomics).
func (w *Warp) sfLane(kind AccessKind, lane int, off uint64, size int) {
	c := w.sfBegin()
	if c == nil {
		return
	}
	m := w.m
	me := uint32(w.linearTid(lane)) + 1
	end := off + uint64(size)
	for a := off; a < end; a = (a | 3) + 1 {
		lo, hi := a&3, min(end-(a&^3), 4)
		bm := uint8((uint64(1)<<hi - 1) &^ (uint64(1)<<lo - 1))
		i := a >> 2
		ok := i < uint64(len(c.sfAcc))
		switch {
		case !ok:
		case kind == AccessLoad:
			ok = c.sfWord(i, me, bm, false)
		case kind == AccessStore:
			ok = c.sfWord(i, me, bm, true)
		default:
			ok = c.sfAtomic(i, me, bm)
		}
		if !ok {
			m.sfSuspect(w, lane, off, sfWhat(kind != AccessLoad))
			return
		}
	}
}

// sfIssue applies lane's cp.async of size bytes to shared offset off (in
// bounds, size a multiple of 4 aligned to it): a write of the lane's
// thread now, and its words in flight until the copy lands (sfLand).
func (w *Warp) sfIssue(lane int, off uint64, size int) {
	c := w.sfBegin()
	if c == nil {
		return
	}
	me := uint32(w.linearTid(lane)) + 1
	for i := off >> 2; i < (off+uint64(size))>>2; i++ {
		if i >= uint64(len(c.sfAcc)) || !c.sfWord(i, me, 0xf, true) {
			w.m.sfSuspect(w, lane, off, "a cp.async to a word another thread accessed in the same phase, or with a copy in flight")
			return
		}
		c.sfWr[i] |= sfPend
	}
}

// sfLand ends the flight of a cp.async copy of size bytes to shared
// offset off, which lands now; the store that lands it follows
// (noteAccess).
func (w *Warp) sfLand(off uint64, size int) {
	c := w.cta
	for i := off >> 2; i < (off+uint64(size))>>2 && i < uint64(len(c.sfWr)); i++ {
		c.sfWr[i] &^= sfPend
	}
}

func sfWhat(write bool) string {
	if write {
		return "a write of a word another thread accessed in the same phase"
	}
	return "a read of a word another thread wrote in the same phase, or never written"
}

// sfNote applies a per-lane access the machine reports (noteAccess) to the
// filter: space is the space the instruction named, sp the one the
// address resolved to.
func (w *Warp) sfNote(kind AccessKind, space, sp isa.Space, lane int, addr uint64, size int) {
	switch sp {
	case isa.Shared:
		if space == isa.SpaceNone {
			addr -= GenericShared
		}
		w.sfLane(kind, lane, addr, size)
	case isa.SharedCluster:
		w.m.sfSuspect(w, lane, addr, "a .shared::cluster access")
	}
}

// SharedSink receives the plain 4- and 8-byte ld and st of .shared memory
// (Op.PlainShared) of a run with the phase filter on, in place of the
// observer reports of those accesses (SetPlainSharedSink): one call per
// warp-instruction, lane l of lanes at offset off + base[l]&am in the
// CTA's shared memory, kind AccessLoad or AccessStore; pc is the
// instruction. The calls come in no particular order between warps (leads
// run such loads ahead): a sink must only accumulate. base is the
// machine's: read it during the call. A full warp's 4-byte load whose
// offsets follow a pattern of ClassifyWarp comes to PlainSharedPattern
// instead: lanes 0-15 from offset o0, lanes 16-31 from o16
// (WarpPattern.Offsets).
type SharedSink interface {
	PlainShared(pc int, kind AccessKind, size int, lanes uint32, base *[32]uint64, am, off uint64)
	PlainSharedPattern(pc int, kind AccessKind, p WarpPattern, o0, o16 uint64)
}

// SetPlainSharedSink makes s, an installed observer, receive the plain
// shared-memory loads and stores instead of their reports, for a launch
// with the phase filter on (EnableSharedFilter) that has not started; it
// reports whether it did. It holds while s is the only installed observer
// that asks for shared-memory accesses (the others ask for global ones
// only, ObserveGlobalOnly); s's reports of every other access, of every
// space, are unchanged. Leads then run plain shared loads as without an
// observer.
func (m *Machine) SetPlainSharedSink(s SharedSink) bool {
	o, ok := s.(Observer)
	if !ok || !m.sf.on || m.stats.WarpInstructions > 0 || len(m.ctas) > 0 || !m.observers.installed(o) {
		return false
	}
	m.sink = s
	m.setObservers()
	return m.plainSink
}

// plainDone applies a plain shared load or store that the fast path served
// to the phase filter and the sink.
func (w *Warp) plainDone(write bool, mask uint32, base *[32]uint64, am, off uint64, size int) {
	w.sfWarp(write, mask, base, am, off, size)
	if w.m.plainSink {
		kind := AccessLoad
		if write {
			kind = AccessStore
		}
		w.m.sink.PlainShared(w.m.curPC, kind, size, mask, base, am, off)
	}
}
