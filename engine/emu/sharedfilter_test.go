package emu

import (
	"context"
	"fmt"
	"reflect"
	"testing"

	"github.com/ptxplayground/ptxplay/engine/ptx"
)

// filterSrc is the kernel of filterCTA: shared memory, its loads, stores,
// atomics and a barrier.
const filterSrc = `.version 8.0
.target sm_80
.address_size 64
.visible .entry k() {
	.shared .align 4 .b8 s[256];
	.reg .b32 %r<4>;
	mov.u32 %r1, s;
	ld.shared.u32 %r2, [%r1];
	st.shared.u32 [%r1], %r2;
	atom.shared.add.u32 %r3, [%r1], 1;
	bar.sync 0;
	ret;
}`

// filterCTA returns a machine with the shared-memory phase filter on and
// its first CTA (two warps, 256 bytes of shared memory).
func filterCTA(t *testing.T) (*Machine, *CTA) {
	t.Helper()
	m := filterMachine(t, filterSrc, oneCTA, true)
	return m, m.newCTA(0)
}

// writtenCTA is filterCTA with the bytes of its shared memory written in
// the CTA: none (written 0), all (1), or all but the top byte of word 3 (2).
func writtenCTA(t *testing.T, written int) (*Machine, *CTA) {
	m, c := filterCTA(t)
	if written > 0 {
		for i := range c.sfWr {
			c.sfWr[i] = 0xf
		}
		if written == 2 {
			c.sfWr[3] = 0x7
		}
	}
	return m, c
}

// filterWords is the size of filterSrc's shared memory in words.
const filterWords = 64

// oneCTA is the launch of filterMachine's kernels: one CTA of 64 threads.
var oneCTA = Config{Grid: [3]int{1, 1, 1}, Block: [3]int{64, 1, 1}}

// filterMachine compiles src and returns a launch of its kernel k with
// cfg, with the phase filter on when filter.
func filterMachine(t *testing.T, src string, cfg Config, filter bool) *Machine {
	t.Helper()
	p, diags := CompileSource(ptx.NewSource("k.ptx", []byte(src)))
	if p == nil {
		t.Fatal(diags)
	}
	m, err := NewMachine(p, "k", cfg)
	if err != nil {
		t.Fatal(err)
	}
	if filter && !m.EnableSharedFilter() {
		t.Fatal("the filter is off")
	}
	return m
}

// TestSharedFilterRules applies accesses to the filter directly, one rule
// at a time, each both ways: what is suspect and what is not.
func TestSharedFilterRules(t *testing.T) {
	type acc struct {
		warp, lane int
		kind       AccessKind
		off        uint64
		size       int
		warpPath   bool // through sfWarp (the fast ld/st paths), else sfLane
		release    bool // a barrier release instead of an access
		exit       bool // the warp's lanes exit instead
		full       bool // the whole warp, lane l at off + 4l (the fast paths' loops)
		copy, land bool // a cp.async's issue, or its landing
	}
	ld := func(w, l int, off uint64) acc {
		return acc{warp: w, lane: l, kind: AccessLoad, off: off, size: 4, warpPath: true}
	}
	st := func(w, l int, off uint64) acc {
		return acc{warp: w, lane: l, kind: AccessStore, off: off, size: 4, warpPath: true}
	}
	at := func(w, l int, off uint64) acc { return acc{warp: w, lane: l, kind: AccessAtomic, off: off, size: 4} }
	rel := acc{release: true}
	cp := func(w, l int, off uint64) acc { return acc{warp: w, lane: l, off: off, size: 16, copy: true} }
	land := func(w, l int, off uint64) acc { return acc{warp: w, lane: l, off: off, size: 16, land: true} }
	// 4-byte copies: one word of four in flight.
	cp4 := func(w, l int, off uint64) acc { return acc{warp: w, lane: l, off: off, size: 4, copy: true} }
	land4 := func(w, l int, off uint64) acc { return acc{warp: w, lane: l, off: off, size: 4, land: true} }
	ldAll := func(w int, off uint64) acc { return acc{warp: w, kind: AccessLoad, off: off, size: 4, full: true} }
	stAll := func(w int, off uint64) acc { return acc{warp: w, kind: AccessStore, off: off, size: 4, full: true} }
	for _, c := range []struct {
		name    string
		accs    []acc
		suspect bool
	}{
		{"read of a word never written", []acc{ld(0, 0, 0)}, true},
		{"read of a word written in an earlier phase", []acc{st(0, 0, 0), rel, ld(1, 3, 0)}, false},
		{"read of another thread's write in the phase", []acc{st(0, 0, 0), rel, st(1, 3, 0), ld(0, 0, 0)}, true},
		{"read of another lane's write in the phase", []acc{st(0, 0, 0), rel, st(0, 1, 0), ld(0, 0, 0)}, true},
		{"read of the thread's own write", []acc{st(0, 0, 0), ld(0, 0, 0), ld(0, 0, 0)}, false},
		{"reads by many threads", []acc{st(0, 0, 0), rel, ld(0, 0, 0), ld(0, 1, 0), ld(1, 0, 0), ld(1, 7, 0)}, false},
		{"write after another thread's read", []acc{st(0, 0, 0), rel, ld(1, 0, 0), st(0, 0, 0)}, true},
		{"write after reads by several threads", []acc{st(0, 0, 0), rel, ld(0, 0, 0), ld(1, 0, 0), st(0, 0, 0)}, true},
		{"write after the thread's own read", []acc{st(0, 0, 0), rel, ld(0, 5, 0), st(0, 5, 0)}, false},
		{"write after another thread's write", []acc{st(0, 0, 0), st(1, 0, 0)}, true},
		{"writes in two phases", []acc{st(0, 0, 0), rel, st(1, 0, 0), rel, ld(0, 2, 0)}, false},
		{"a byte written, the word read", []acc{{warp: 0, lane: 0, kind: AccessStore, off: 1, size: 1}, ld(0, 0, 0)}, true},
		{"the word's four bytes written one by one", []acc{
			{warp: 0, lane: 0, kind: AccessStore, off: 0, size: 1}, {warp: 0, lane: 0, kind: AccessStore, off: 1, size: 1},
			{warp: 0, lane: 0, kind: AccessStore, off: 2, size: 2}, rel, ld(1, 0, 0), ld(1, 1, 0)}, false},
		{"a read of part after another thread's read", []acc{st(0, 0, 0), rel, {warp: 1, lane: 0, kind: AccessLoad, off: 2, size: 2}, ld(0, 0, 0), ld(1, 1, 0)}, false},
		{"an 8-byte write over another thread's read", []acc{st(0, 0, 0), st(0, 0, 4), rel, ld(1, 0, 4), {warp: 0, lane: 0, kind: AccessStore, off: 0, size: 8, warpPath: true}}, true},
		{"atomics of several threads", []acc{st(0, 0, 0), rel, at(0, 0, 0), at(1, 0, 0), at(0, 9, 0)}, false},
		{"a read after other threads' atomics", []acc{st(0, 0, 0), rel, at(0, 0, 0), at(1, 0, 0), ld(0, 0, 0)}, true},
		{"a read after the thread's own atomic", []acc{st(0, 0, 0), rel, at(0, 0, 0), ld(0, 0, 0)}, false},
		{"a read after another thread's atomic", []acc{st(0, 0, 0), rel, at(0, 0, 0), ld(0, 1, 0)}, true},
		{"an atomic after another thread's read", []acc{st(0, 0, 0), rel, ld(1, 0, 0), at(0, 0, 0)}, true},
		{"an atomic after another thread's write", []acc{st(0, 0, 0), at(1, 0, 0)}, true},
		{"a write after other threads' atomics", []acc{st(0, 0, 0), rel, at(0, 0, 0), at(1, 0, 0), st(1, 0, 0)}, true},
		{"an atomic on a word never written", []acc{at(0, 0, 0)}, true},
		{"a warp exits after an access, the others go on past a barrier", []acc{st(0, 0, 0), {warp: 1, exit: true}, st(1, 0, 4), {warp: 1, exit: true}, rel}, true},
		{"a warp exits after no access in the phase", []acc{st(1, 0, 4), rel, {warp: 1, exit: true}, rel, ld(0, 0, 4)}, false},
		{"a warp exits in the last phase", []acc{st(1, 0, 4), st(0, 0, 0), {warp: 1, exit: true}, ld(0, 0, 0)}, false},
		{"a read of a copy in flight, by its thread", []acc{cp(0, 0, 0), ld(0, 0, 4)}, true},
		{"a read of a copy that landed, by its thread", []acc{cp(0, 0, 0), land(0, 0, 0), ld(0, 0, 4)}, false},
		{"a read of a copy that landed, after a release", []acc{cp(0, 0, 0), land(0, 0, 0), rel, ld(1, 3, 12)}, false},
		{"a read of a copy that landed, in its phase", []acc{cp(0, 0, 0), rel, land(0, 0, 0), ld(1, 3, 12)}, true},
		{"a read of a copy in flight, after a release", []acc{cp(0, 0, 0), rel, ld(1, 3, 8)}, true},
		{"a store over a copy in flight, after a release", []acc{cp(0, 0, 0), rel, st(1, 3, 8)}, true},
		{"a warp's store over a copy in flight", []acc{cp(1, 0, 16), rel, stAll(0, 0)}, true},
		{"a warp's store over a copy that landed", []acc{cp(1, 0, 16), land(1, 0, 16), rel, stAll(0, 0)}, false},
		{"a warp's reads of written words, one with a copy in flight", []acc{stAll(0, 0), rel, cp4(1, 0, 20), rel, ldAll(0, 0)}, true},
		{"a warp's reads of written words, the copy landed", []acc{stAll(0, 0), rel, cp4(1, 0, 20), land4(1, 0, 20), rel, ldAll(0, 0)}, false},
		{"an atomic on a copy in flight, by its thread", []acc{st(0, 0, 0), rel, cp(0, 0, 0), at(0, 0, 0)}, true},
		{"a copy over another thread's read", []acc{st(0, 0, 0), rel, ld(1, 0, 0), cp(0, 0, 0)}, true},
		{"two copies to one word", []acc{cp(0, 0, 0), cp(1, 0, 0)}, true},
	} {
		m, cta := filterCTA(t)
		for _, a := range c.accs {
			switch {
			case a.release:
				m.sfRelease(cta)
			case a.exit:
				cta.Warps[a.warp].sfExit()
			case a.copy:
				cta.Warps[a.warp].sfIssue(a.lane, a.off, a.size)
			case a.land:
				// As completeAsync lands it.
				cta.Warps[a.warp].sfLand(a.off, a.size)
				cta.Warps[a.warp].sfLane(AccessStore, a.lane, a.off, a.size)
			case a.full:
				var base [32]uint64
				for l := range base {
					base[l] = a.off + uint64(4*l)
				}
				cta.Warps[a.warp].sfWarp(a.kind == AccessStore, ixAll, &base, 0xffffffff, 0, a.size)
			case a.warpPath:
				var base [32]uint64
				base[a.lane] = a.off
				cta.Warps[a.warp].sfWarp(a.kind == AccessStore, 1<<a.lane, &base, ^uint64(0), 0, a.size)
			default:
				cta.Warps[a.warp].sfLane(a.kind, a.lane, a.off, a.size)
			}
		}
		if got, why := m.SharedFilterSuspect(); got != c.suspect {
			t.Errorf("%s: suspect %v, want %v (%s)", c.name, got, c.suspect, why)
		}
	}
}

// TestSharedFilterWarpPath: a full warp's 4-byte accesses through the
// fast paths' loops decide, and leave the words, as the lanes one at a
// time do: each lane its own word, half-warps on the same words, all
// lanes one word, or four lanes a word; on words written, never written,
// or all written but one; read before by another warp or by several;
// through a 32-bit register alone or with an offset.
func TestSharedFilterWarpPath(t *testing.T) {
	n := 0
	for pattern := range 4 {
		for _, write := range []bool{false, true} {
			for written := range 3 { // none, all, all but word 3
				for before := range 5 {
					for _, offset := range []uint64{0, 8, 4*filterWords - 32, 4*filterWords - 60} {
						var base [32]uint64
						for l := range base {
							switch pattern {
							case 0:
								base[l] = uint64(4 * l)
							case 1:
								base[l] = uint64(4 * (l % 16))
							case 3:
								base[l] = uint64(4 * (l / 4))
							}
						}
						am := uint64(0xffffffff)
						if offset != 0 {
							am = ^uint64(0)
						}
						var ms [2]*Machine
						var cs [2]*CTA
						for k := range 2 {
							ms[k], cs[k] = writtenCTA(t, written)
							c := cs[k]
							// Before: reads by another warp's lane or by two,
							// a write of lane 0's word by another warp, or a
							// read of part of it.
							switch {
							case before < 3:
								for r := range before {
									c.Warps[1].sfLane(AccessLoad, r, offset+base[0], 4)
								}
							case before == 3:
								c.Warps[1].sfLane(AccessStore, 0, offset+base[0], 4)
							default:
								c.Warps[1].sfLane(AccessLoad, 0, offset+base[0], 2)
							}
						}
						cs[0].Warps[0].sfWarp(write, ixAll, &base, am, offset, 4)
						for l := range 32 {
							k := AccessLoad
							if write {
								k = AccessStore
							}
							cs[1].Warps[0].sfLane(k, l, offset+base[l], 4)
						}
						s0, w0 := ms[0].SharedFilterSuspect()
						s1, w1 := ms[1].SharedFilterSuspect()
						name := fmt.Sprintf("pattern %d write %v written %d before %d offset %d", pattern, write, written, before, offset)
						if s0 != s1 {
							t.Errorf("%s: warp path suspect %v (%s), lanes %v (%s)", name, s0, w0, s1, w1)
						} else if !s0 && (!reflect.DeepEqual(cs[0].sfAcc, cs[1].sfAcc) || !reflect.DeepEqual(cs[0].sfWr, cs[1].sfWr)) {
							t.Errorf("%s: the words differ\nwarp path: %x %x\nlanes:     %x %x", name, cs[0].sfAcc, cs[0].sfWr, cs[1].sfAcc, cs[1].sfWr)
						}
						if s0 {
							n++
						}
					}
				}
			}
		}
	}
	if n == 0 {
		t.Error("no access was suspect")
	}
}

// sinkObserver is an observer of every access that is also a SharedSink.
type sinkObserver struct{ calls int }

func (s *sinkObserver) Step(*StepInfo)         {}
func (s *sinkObserver) Observes() ObserveFlags { return ObserveAccesses }
func (s *sinkObserver) PlainShared(int, AccessKind, int, uint32, *[32]uint64, uint64, uint64) {
	s.calls++
}
func (s *sinkObserver) PlainSharedPattern(int, AccessKind, WarpPattern, uint64, uint64) {
	s.calls++
}

type globalObserver struct{}

func (globalObserver) Step(*StepInfo)         {}
func (globalObserver) Observes() ObserveFlags { return ObserveAccesses | ObserveGlobalOnly }

// SetPlainSharedSink takes a sink only for a launch with the filter on,
// not started, that has the sink installed as its only observer of shared
// accesses; an observer of shared accesses added later turns it off.
func TestPlainSharedSinkRules(t *testing.T) {
	fresh := func(filter bool) *Machine { return filterMachine(t, filterSrc, oneCTA, filter) }
	s := &sinkObserver{}
	if m := fresh(true); m.SetPlainSharedSink(s) {
		t.Error("took a sink that is not installed")
	}
	if m := fresh(false); func() bool { m.AddObserver(s); return m.SetPlainSharedSink(s) }() {
		t.Error("took a sink without the filter")
	}
	m := fresh(true)
	m.AddObserver(s)
	m.AddObserver(globalObserver{})
	if !m.SetPlainSharedSink(s) {
		t.Fatal("refused a sink beside an observer of global accesses")
	}
	remove := m.AddObserver(&sinkObserver{})
	if m.plainSink {
		t.Error("the sink stays on beside another observer of shared accesses")
	}
	remove()
	if !m.plainSink {
		t.Error("the sink did not come back when that observer left")
	}
	m.Run(context.Background())
	if s.calls == 0 {
		t.Error("the sink was not called")
	}
	if m.SetPlainSharedSink(s) {
		t.Error("took a sink after the launch started")
	}
}

// A load whose destination is its address register applies the addresses
// it loaded from to the filter, not the values it loaded: every thread
// reads its neighbour's word (clean), and then, in the variant, writes its
// own, which its other neighbour read in the same phase (suspect).
func TestSharedFilterLoadIntoAddress(t *testing.T) {
	for _, race := range []bool{false, true} {
		store := ""
		if race {
			store = "st.shared.u32 [%r3], %r1;"
		}
		src := `.version 8.0
.target sm_80
.address_size 64
.visible .entry k() {
	.shared .align 4 .b32 s[64];
	.reg .b32 %r<8>;
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, s;
	shl.b32 %r3, %r1, 2;
	add.u32 %r3, %r2, %r3;
	mov.u32 %r5, 1000000;
	st.shared.u32 [%r3], %r5;
	bar.sync 0;
	add.u32 %r4, %r1, 1;
	and.b32 %r4, %r4, 63;
	shl.b32 %r4, %r4, 2;
	add.u32 %r4, %r2, %r4;
	mov.u32 %r6, %r4;
	ld.shared.u32 %r6, [%r6];
	` + store + `
	ret;
}`
		m := filterMachine(t, src, oneCTA, true)
		if stop := m.Run(context.Background()); !race && stop != StopDone {
			t.Fatalf("stop %v, fault %v", stop, m.Fault())
		}
		if sus, why := m.SharedFilterSuspect(); sus != race {
			t.Errorf("race %v: suspect %v (%s)", race, sus, why)
		}
	}
}

// A CTA that takes the place of one that retired starts with no accesses
// and no bytes written: with one CTA resident at a time, the second CTA
// reading words only the first wrote is suspect, and the second writing
// words the first's threads last read (as each CTA's own threads write
// and read them) is clean.
func TestSharedFilterCTAReuse(t *testing.T) {
	for _, c := range []struct {
		name    string
		body    string
		suspect bool
	}{
		{"reads of what the retired CTA wrote", `
	mov.u32 %r5, %ctaid.x;
	setp.ne.u32 %p1, %r5, 0;
	@%p1 bra SKIP;
	st.shared.u32 [%r3], %r1;
SKIP:
	bar.sync 0;
	ld.shared.u32 %r6, [%r3];`, true},
		{"writes of what the retired CTA's threads read", `
	st.shared.u32 [%r3], %r1;
	bar.sync 0;
	ld.shared.u32 %r6, [%r4];`, false},
	} {
		src := `.version 8.0
.target sm_80
.address_size 64
.visible .entry k() {
	.shared .align 4 .b32 s[64];
	.reg .b32 %r<8>;
	.reg .pred %p<2>;
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, s;
	shl.b32 %r3, %r1, 2;
	add.u32 %r3, %r2, %r3;
	add.u32 %r4, %r1, 1;
	and.b32 %r4, %r4, 63;
	shl.b32 %r4, %r4, 2;
	add.u32 %r4, %r2, %r4;` + c.body + `
	ret;
}`
		m := filterMachine(t, src, Config{Grid: [3]int{2, 1, 1}, Block: [3]int{64, 1, 1}, ResidentCTAs: 1}, true)
		if stop := m.Run(context.Background()); !c.suspect && stop != StopDone {
			t.Fatalf("%s: stop %v, fault %v", c.name, stop, m.Fault())
		}
		if sus, why := m.SharedFilterSuspect(); sus != c.suspect {
			t.Errorf("%s: suspect %v (%s)", c.name, sus, why)
		}
	}
}
