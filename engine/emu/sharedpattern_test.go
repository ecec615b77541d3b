package emu

import (
	"context"
	"encoding/binary"
	"fmt"
	"math/rand"
	"reflect"
	"testing"
)

// TestSharedPatternVec compares the AVX2 routines of the pattern paths
// with their Go loops (on processors without AVX2 both are the Go loop).
func TestSharedPatternVec(t *testing.T) {
	if !ixVec {
		t.Log("no AVX2: the vector names are the Go loops")
	}
	rng := rand.New(rand.NewSource(7))
	// Loads: offsets of each pattern, some near or past the end of the
	// window, some broken in one lane; into other registers and into the
	// address registers themselves.
	seen := map[WarpPattern]int{}
	for i := range 4000 {
		sh := make([]byte, []int{0, 2, 3, 4, 60, 64, 256, 1024}[rng.Intn(8)])
		rng.Read(sh)
		am := []uint64{0xffffffff, ^uint64(0)}[rng.Intn(2)]
		off := []uint64{0, 4, 64}[rng.Intn(3)]
		n := uint64(len(sh))
		o0 := uint64(4*rng.Intn(int(n)/4+2)) - off
		o16 := []uint64{o0, o0 + 64, uint64(4*rng.Intn(int(n)/4+2)) - off}[rng.Intn(3)]
		step := uint64(4 * rng.Intn(2))
		var base [32]uint64
		for l := range base {
			o := o0
			if l >= 16 {
				o = o16
			}
			base[l] = (o+step*uint64(l%16))&am | rng.Uint64()&^am
		}
		if rng.Intn(8) == 0 {
			base[rng.Intn(32)] += 4
		}
		var d0, d1 [32]uint64
		for l := range d0 {
			d0[l] = rng.Uint64()
		}
		d1 = d0
		var vp, gp WarpPattern
		var v0, v16, g0, g16 uint64
		b0, b1 := base, base
		if rng.Intn(2) == 0 {
			vp, v0, v16 = loadShared4(&d0, &base, am, off, sh)
			gp, g0, g16 = loadSharedGo(&d1, &base, am, off, sh)
		} else { // into the address registers
			vp, v0, v16 = loadShared4(&b0, &b0, am, off, sh)
			gp, g0, g16 = loadSharedGo(&b1, &b1, am, off, sh)
			d0, d1 = b0, b1
		}
		if vp != gp || v0 != g0 || v16 != g16 || d0 != d1 {
			t.Fatalf("load %d (window %d): vec %v %#x %#x %x\nGo %v %#x %#x %x", i, n, vp, v0, v16, d0, gp, g0, g16, d1)
		}
		if gp != PatternNone {
			for l := range 32 {
				if a := off + base[l]&am; d1[l] != uint64(binary.LittleEndian.Uint32(sh[a:])) {
					t.Fatalf("load %d lane %d: %#x, want the word at %#x", i, l, d1[l], a)
				}
			}
		}
		seen[gp]++
	}
	if seen[PatternBroadcastHalves] < 200 || seen[PatternRunHalves] < 200 || seen[PatternNone] < 200 {
		t.Errorf("loads of each kind: %v", seen)
	}
	for range 200 {
		var d0 [32]uint64
		for l := range d0 {
			d0[l] = rng.Uint64()
		}
		var s0, s1 [160]byte
		rng.Read(s0[:])
		s1 = s0
		o := rng.Intn(32)
		storeRowVec(&s0[o], &d0)
		storeRowGo(s1[o:], &d0)
		if s0 != s1 {
			t.Fatalf("storeRow %d: vec %x, Go %x", o, s0, s1)
		}
		var acc [16]uint32
		for i := range acc {
			acc[i] = sfMany
		}
		if rng.Intn(2) == 0 {
			acc[rng.Intn(16)] = []uint32{0, 1, sfMany | 1<<16, 0x7ff, 0xffe}[rng.Intn(5)]
		}
		if v, g := allManyVec(&acc[0]), allManyGo(acc[:]); v != g {
			t.Fatalf("allMany %x: vec %v, Go %v", acc, v, g)
		}
	}
	// The own-word routines, on words whose accesses are drawn from the
	// cases their rules tell apart.
	for i := range 20000 {
		me0 := uint32(1 + 32*rng.Intn(32))
		var acc [32]uint32
		var wr [32]uint8
		bad := rng.Intn(3) // 0: every word drawn, else one word drawn
		for l := range acc {
			me := me0 + uint32(l)
			cases := []uint32{0, me, me << 16, me<<16 | me, sfMany, me<<16 | sfMany, sfPart, sfPart | me, me<<16 | sfAtom, me<<16 | sfPart | me,
				me + 1, (me + 1) << 16, (me+1)<<16 | me, sfAtomics << 16, sfAtomics<<16 | sfAtom, me<<16 | (me + 1)}
			wrs := []uint8{0xf, 0xf, 0xf, 0, 0x7, 0x1f, 0x10}
			if bad == 0 || l == 31*(bad-1) || rng.Intn(8) == 0 {
				acc[l], wr[l] = cases[rng.Intn(len(cases))], wrs[rng.Intn(len(wrs))]
			} else {
				acc[l], wr[l] = cases[rng.Intn(4)], 0xf
			}
		}
		for _, write := range []bool{false, true} {
			a0, w0, a1, w1 := acc, wr, acc, wr
			var v, g bool
			if write {
				v, g = ownWritesVec(&a0[0], &w0[0], me0), ownWritesGo(a1[:], w1[:], me0)
			} else {
				v, g = ownReadsVec(&a0[0], &w0[0], me0), ownReadsGo(a1[:], w1[:], me0)
			}
			name := fmt.Sprintf("case %d write %v me0 %d acc %x wr %x", i, write, me0, acc, wr)
			if v != g {
				t.Fatalf("%s: vec %v, Go %v", name, v, g)
			}
			if v {
				if a0 != a1 || w0 != w1 {
					t.Fatalf("%s: vec %x %x, Go %x %x", name, a0, w0, a1, w1)
				}
				continue
			}
			// Both stopped, at the first suspect word (each word's rule
			// is its own): the Go loop applied the words before it, the
			// vector routine the blocks of eight words before its block
			// (where the vector name is the Go loop, the words).
			stop := 0
			for ; stop < 32; stop++ {
				b, bw := acc, wr
				var ok bool
				if write {
					ok = ownWritesGo(b[stop:stop+1], bw[stop:stop+1], me0+uint32(stop))
				} else {
					ok = ownReadsGo(b[stop:stop+1], bw[stop:stop+1], me0+uint32(stop))
				}
				if !ok {
					break
				}
			}
			if stop == 32 {
				t.Fatalf("%s: no word is suspect alone", name)
			}
			for l := range 32 {
				if l >= stop && (a1[l] != acc[l] || w1[l] != wr[l]) {
					t.Fatalf("%s: suspect word %d; the Go loop changed word %d", name, stop, l)
				}
				want, wantW := acc[l], wr[l]
				if l < stop&^7 || !ixVec && l < stop {
					want, wantW = a1[l], w1[l]
				}
				if a0[l] != want || w0[l] != wantW {
					t.Fatalf("%s: suspect word %d; vec word %d %x %x, want %x %x", name, stop, l, a0[l], w0[l], want, wantW)
				}
			}
		}
	}
}

// TestSharedPatternFilter applies full-warp accesses of each pattern to
// the phase filter by the pattern path and lane by lane, from words in
// every state the rules tell apart, and compares the verdicts and the
// words.
func TestSharedPatternFilter(t *testing.T) {
	suspect, applied := 0, 0
	for pattern := range 5 {
		for _, write := range []bool{false, true} {
			for written := range 3 { // none, all, all but word 3
				for before := range 17 {
					for _, offset := range []uint64{0, 8, 4*filterWords - 128, 4*filterWords - 64} {
						var base [32]uint64
						for l := range base {
							switch pattern {
							case 0: // a row of 32 words
								base[l] = uint64(4 * l)
							case 1: // a column read twice
								base[l] = uint64(4 * (l % 16))
							case 2: // a broadcast
							case 3: // a word per half-warp
								base[l] = uint64(4 * (l / 16) * 5)
							case 4: // neither
								base[l] = uint64(4 * (l / 4))
							}
						}
						am := uint64(0xffffffff)
						if offset != 0 {
							am = ^uint64(0)
						}
						p, o0, o16 := ClassifyWarp(&base, am, offset)
						if !patternIn(p, o0, o16, 4*filterWords) {
							continue
						}
						var ms [2]*Machine
						var cs [2]*CTA
						for k := range 2 {
							ms[k], cs[k] = writtenCTA(t, written)
							c := cs[k]
							w0, w1 := c.Warps[0], c.Warps[1]
							// At lane 5's word, or lane 21's.
							bl := 5 + 16*(before/9)
							at := offset + base[bl]&am
							switch before % 9 {
							case 1, 2: // reads by one or two other threads
								for r := range before {
									w1.sfLane(AccessLoad, r, at, 4)
								}
							case 3: // a write by another thread
								w1.sfLane(AccessStore, 0, at, 4)
							case 4: // a read of part of it by another thread
								w1.sfLane(AccessLoad, 0, at, 2)
							case 5: // its own thread's read
								w0.sfLane(AccessLoad, bl, at, 4)
							case 6: // its own thread's write of part of it
								w0.sfLane(AccessStore, bl, at, 2)
							case 7: // its own thread's atomic
								w0.sfLane(AccessAtomic, bl, at, 4)
							case 8: // a copy in flight
								c.sfWr[at>>2] |= sfPend
							}
						}
						if write {
							cs[0].Warps[0].patternWrite(&base, am, offset, p, o0, o16)
						} else {
							cs[0].Warps[0].patternRead(p, o0, o16)
						}
						for l := range 32 {
							k := AccessLoad
							if write {
								k = AccessStore
							}
							cs[1].Warps[0].sfLane(k, l, offset+base[l]&am, 4)
						}
						s0, why0 := ms[0].SharedFilterSuspect()
						s1, why1 := ms[1].SharedFilterSuspect()
						name := fmt.Sprintf("pattern %d write %v written %d before %d offset %d", pattern, write, written, before, offset)
						if s0 != s1 {
							t.Errorf("%s: pattern path suspect %v (%s), lanes %v (%s)", name, s0, why0, s1, why1)
						} else if !s0 && (!reflect.DeepEqual(cs[0].sfAcc, cs[1].sfAcc) || !reflect.DeepEqual(cs[0].sfWr, cs[1].sfWr)) {
							t.Errorf("%s: the words differ\npattern path: %x %x\nlanes:        %x %x", name, cs[0].sfAcc, cs[0].sfWr, cs[1].sfAcc, cs[1].sfWr)
						}
						if s0 {
							suspect++
						} else {
							applied++
						}
					}
				}
			}
		}
	}
	if suspect == 0 || applied == 0 {
		t.Errorf("%d suspect, %d applied: both kinds must occur", suspect, applied)
	}
}

// oneWarp is the launch of the pattern tests' kernels: one CTA of one warp.
var oneWarp = Config{Grid: [3]int{1, 1, 1}, Block: [3]int{32, 1, 1}}

// TestSharedPatternAccesses runs a warp's ld.shared.u32 and st.shared.u32
// at addresses of every pattern, at the ends of shared memory and past
// them, and compares what it read, wrote and faulted with the per-lane
// definition.
func TestSharedPatternAccesses(t *testing.T) {
	const words = 64
	// Each thread fills two words of sm with their index * 3 + 1, then
	// loads the word at its address (into another register and into the
	// address register) and its second word by an offset, stores
	// tid + 1000 at its second address, and copies sm out.
	src := ixHdr + `
.visible .entry k(.param .u64 in, .param .u64 out) {
	.shared .align 16 .u32 sm[64];
	.reg .u32 %r<14>; .reg .u64 %rd<8>;
	ld.param.u64 %rd1, [in];
	ld.param.u64 %rd2, [out];
	mov.u32 %r1, %tid.x;
	mov.u32 %r9, sm;
	shl.b32 %r2, %r1, 3;
	add.u32 %r3, %r9, %r2;
	shl.b32 %r4, %r1, 1;
	mad.lo.u32 %r5, %r4, 3, 1;
	st.shared.u32 [%r3], %r5;
	add.u32 %r5, %r5, 3;
	st.shared.u32 [%r3+4], %r5;
	bar.sync 0;
	mul.wide.u32 %rd3, %r1, 4;
	add.u64 %rd4, %rd1, %rd3;
	ld.global.u32 %r6, [%rd4];
	ld.global.u32 %r7, [%rd4+128];
	add.u32 %r6, %r6, %r9;
	add.u32 %r7, %r7, %r9;
	ld.shared.u32 %r12, [%r6];
	ld.shared.u32 %r6, [%r6];
	ld.shared.u32 %r13, [%r3+4];
	add.u64 %rd5, %rd2, %rd3;
	st.global.u32 [%rd5], %r6;
	st.global.u32 [%rd5+384], %r12;
	st.global.u32 [%rd5+512], %r13;
	bar.sync 0;
	add.u32 %r8, %r1, 1000;
	st.shared.u32 [%r7], %r8;
	bar.sync 0;
	ld.shared.u32 %r10, [%r3];
	ld.shared.u32 %r11, [%r3+4];
	st.global.u32 [%rd5+128], %r10;
	st.global.u32 [%rd5+256], %r11;
	ret;
}`
	row := func(o int) (a [32]uint32) {
		for l := range a {
			a[l] = uint32(o + 4*l)
		}
		return
	}
	halves := func(o0, o16 int, run bool) (a [32]uint32) {
		for l := range a {
			o, k := o0, l
			if l >= 16 {
				o, k = o16, l-16
			}
			a[l] = uint32(o)
			if run {
				a[l] += uint32(4 * k)
			}
		}
		return
	}
	end := 4 * words
	cases := []struct {
		name       string
		load, stor [32]uint32
	}{
		{"rows", row(0), row(0)},
		{"rows at the end", row(end - 128), row(end - 128)},
		{"rows past the end", row(end - 124), row(end - 124)},
		{"rows misaligned", row(2), row(6)},
		{"column twice", halves(8, 8, true), halves(0, 64, true)},
		{"column at the end", halves(end-64, end-64, true), row(64)},
		{"column past the end", halves(end-60, end-60, true), row(0)},
		{"broadcast", halves(12, 12, false), row(0)},
		{"word per half", halves(0, end-4, false), halves(end-128, end-64, true)},
		{"broadcast past the end", halves(end, 0, false), row(0)},
		{"halves apart", halves(0, 128, true), halves(4, 68, true)},
		{"store broadcast", row(0), halves(16, 16, false)},
		{"store column twice", row(0), halves(32, 32, true)},
		{"store past the end", row(0), row(end - 64)},
		{"huge", halves(0, 0xfffffffc, false), row(0)},
	}
	for _, c := range cases {
		for _, filter := range []bool{false, true} {
			name := fmt.Sprintf("%s filter %v", c.name, filter)
			m := filterMachine(t, src, oneWarp, filter)
			in := m.Global.Alloc("in", 256, 256)
			for l := range 32 {
				binary.LittleEndian.PutUint32(in.Data[4*l:], c.load[l])
				binary.LittleEndian.PutUint32(in.Data[128+4*l:], c.stor[l])
			}
			out := m.Global.Alloc("out", 640, 256)
			binary.LittleEndian.PutUint64(m.Params()[m.Kernel().Params[0].Offset:], in.Base)
			binary.LittleEndian.PutUint64(m.Params()[m.Kernel().Params[1].Offset:], out.Base)
			r := m.Run(context.Background())
			// The definition: each lane's word, a fault at the first lane
			// out of bounds or misaligned.
			var sm [words]uint32
			for w := range sm {
				sm[w] = uint32(3*w + 1)
			}
			bad := func(a [32]uint32) bool {
				for _, x := range a {
					if x%4 != 0 || int(x) > end-4 {
						return true
					}
				}
				return false
			}
			if bad(c.load) || bad(c.stor) {
				if f := m.Fault(); r != StopFault || f == nil || f.Kind == FaultInternal {
					t.Errorf("%s: stop %v, fault %v; want an access fault", name, r, f)
				}
				continue
			}
			if r != StopDone {
				t.Errorf("%s: stop %v, fault %v", name, r, m.Fault())
				continue
			}
			for l := range 32 {
				for k, at := range []int{0, 384} {
					if got, want := binary.LittleEndian.Uint32(out.Data[at+4*l:]), sm[c.load[l]/4]; got != want {
						t.Errorf("%s: lane %d loaded %d (load %d), want %d", name, l, got, k, want)
					}
				}
				if got, want := binary.LittleEndian.Uint32(out.Data[512+4*l:]), sm[2*l+1]; got != want {
					t.Errorf("%s: lane %d loaded %d by an offset, want %d", name, l, got, want)
				}
			}
			for l := range 32 { // lanes in order: the last one's store stays
				sm[c.stor[l]/4] = uint32(l + 1000)
			}
			for w := range sm { // thread t copied words 2t and 2t+1
				if got := binary.LittleEndian.Uint32(out.Data[128+128*(w%2)+4*(w/2):]); got != sm[w] {
					t.Errorf("%s: word %d is %d, want %d", name, w, got, sm[w])
				}
			}
		}
	}
}

// TestSharedPatternSmallWindow: a pattern's run cannot fit a shared
// window smaller than itself; the access faults as out of bounds.
func TestSharedPatternSmallWindow(t *testing.T) {
	for _, k := range []struct{ words, div int }{{8, 16}, {12, 16}, {1, 1}} {
		src := ixHdr + fmt.Sprintf(`
.visible .entry k(.param .u64 in, .param .u64 out) {
	.shared .align 4 .u32 sm[%d];
	.reg .u32 %%r<4>;
	mov.u32 %%r1, %%tid.x;
	rem.u32 %%r1, %%r1, %d;
	shl.b32 %%r1, %%r1, 2;
	ld.shared.u32 %%r2, [%%r1];
	ret;
}`, k.words, k.div)
		m := filterMachine(t, src, oneWarp, false)
		r := m.Run(context.Background())
		f := m.Fault()
		if want := k.div > k.words; want != (r == StopFault) || f != nil && f.Kind != FaultOutOfBounds {
			t.Errorf("%d words, lanes %% %d: stop %v, fault %v", k.words, k.div, r, f)
		}
	}
}
