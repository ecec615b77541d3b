package isa

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"
)

// The expected addresses here come from CUTLASS's own description of the
// GMMA shared-memory layouts (cute/atom/mma_traits_sm90_gmma.hpp), written
// as CuTe layouts and evaluated by a small layout evaluator below: the
// canonical forms make_gmma_desc accepts, and the Layout_{K,MN}_*_Atom
// atoms tiled to a whole tile (tile_to_shape), composed with
// Swizzle<B,4,3> on the absolute byte address (CuTe's smem swizzle
// pointer). Nothing here calls the code under test's offset or swizzle.

// cuteMode is one hierarchical mode of a CuTe layout: a flat coordinate
// splits colexicographically over shape, each part times its stride.
type cuteMode struct{ shape, stride []int }

func (m cuteMode) eval(i int) int {
	off := 0
	for j, s := range m.shape {
		if j == len(m.shape)-1 {
			off += i * m.stride[j] // the last part takes the rest
			break
		}
		off += i % s * m.stride[j]
		i /= s
	}
	return off
}

func mode(shapeStride ...int) cuteMode {
	var m cuteMode
	for i := 0; i < len(shapeStride); i += 2 {
		m.shape = append(m.shape, shapeStride[i])
		m.stride = append(m.stride, shapeStride[i+1])
	}
	return m
}

// cuteSwizzle is Swizzle<B,M,S> on a byte address.
func cuteSwizzle(b, m, s int, a uint64) uint64 {
	mask := uint64(1)<<b - 1
	return a ^ (a>>s)&(mask<<m)
}

// swizzleBits is B of the mode's Swizzle<B,4,3> (LayoutType in CUTLASS).
func swizzleBits(s WgmmaSwizzle) int {
	return map[WgmmaSwizzle]int{WgmmaSwizzleNone: 0, WgmmaSwizzle32B: 1, WgmmaSwizzle64B: 2, WgmmaSwizzle128B: 3}[s]
}

// canonical is make_gmma_desc's canonical form for the descriptor, in
// elements (strides in bits divided by the element size; CUTLASS writes
// them in elements, T = 128 / bits elements per 16 bytes):
//
//	MN INTERLEAVE: ((T,1,m),(8,k)):((1,T,SBO),(1T,LBO))
//	MN B32/64/128: ((T,w,m),(8,k)):((1,T,LBO),(wT,SBO))   w = 2, 4, 8
//	K  INTERLEAVE: ((8,m),(T,2)):((1T,SBO),(1,LBO))
//	K  B32/64/128: ((8,m),(T,2)):((wT,SBO),(1,T))
func canonical(d WgmmaDescriptor, o WgmmaOperand) (rows, cols cuteMode) {
	t := 128 / o.ElemBits
	lbo, sbo := int(d.LBO)*8/o.ElemBits, int(d.SBO)*8/o.ElemBits
	w := d.Swizzle.Bytes() / 16
	if o.Major == WgmmaMNMajor {
		if d.Swizzle == WgmmaSwizzleNone {
			return mode(t, 1, 1, t, 1<<20, sbo), mode(8, t, 1<<20, lbo)
		}
		return mode(t, 1, w, t, 1<<20, lbo), mode(8, w*t, 1<<20, sbo)
	}
	if d.Swizzle == WgmmaSwizzleNone {
		return mode(8, t, 1<<20, sbo), mode(t, 1, 2, lbo)
	}
	return mode(8, w*t, 1<<20, sbo), mode(t, 1, 2, t)
}

// expectedAddr is the byte CUTLASS's form puts element (r, k) at.
func expectedAddr(d WgmmaDescriptor, o WgmmaOperand, r, k int) uint64 {
	rows, cols := canonical(d, o)
	bit := (rows.eval(r) + cols.eval(k)) * o.ElemBits
	return cuteSwizzle(swizzleBits(d.Swizzle), 4, 3, uint64(d.Start)+uint64(bit/8))
}

func operandsFor(major WgmmaMajor) []WgmmaOperand {
	var ops []WgmmaOperand
	bits := []int{8, 16, 32}
	if major == WgmmaKMajor {
		bits = append(bits, 1)
	}
	for _, b := range bits {
		for _, rows := range []int{8, 64, 256} {
			ops = append(ops, WgmmaOperand{Major: major, ElemBits: b, Rows: rows, K: 256 / b})
		}
	}
	return ops
}

// strideChoices are LBO/SBO pairs that lay the core matrices out densely
// (two orders) or with a gap, for the operand and swizzle.
func strideChoices(o WgmmaOperand, s WgmmaSwizzle) [][2]uint32 {
	w := uint32(s.Bytes())
	mnChunks := uint32(max(1, o.Rows*o.ElemBits/128)) // 16-byte pieces along MN
	kGroups := uint32(max(1, o.K/8))                  // 8-row groups along K (MN-major)
	rowGroups := uint32(o.Rows / 8)
	if o.Major == WgmmaKMajor {
		if s == WgmmaSwizzleNone {
			// LBO: the two K halves; SBO: the 8-row groups.
			return [][2]uint32{{128, 256}, {128 * rowGroups, 128}, {256, 1024}}
		}
		return [][2]uint32{{16, 8 * w}, {0, 16 * w}, {16, 8 * w * 4}}
	}
	if s == WgmmaSwizzleNone {
		// SBO: the MN pieces; LBO: the 8-K-row groups.
		return [][2]uint32{{128 * mnChunks, 128}, {128, 128 * kGroups}, {2048 * mnChunks, 256}}
	}
	blocks := max(1, mnChunks/(w/16)) // w-byte blocks along MN
	// LBO: the MN blocks; SBO: the 8-K-row groups.
	return [][2]uint32{{8 * w * kGroups, 8 * w}, {8 * w, 8 * w * blocks}, {8 * w * kGroups * 2, 8 * w}}
}

func TestWgmmaCanonicalLayouts(t *testing.T) {
	n := 0
	for _, major := range []WgmmaMajor{WgmmaKMajor, WgmmaMNMajor} {
		for _, s := range WgmmaSwizzles {
			for _, o := range operandsFor(major) {
				for _, st := range strideChoices(o, s) {
					for _, start := range []uint32{0, 0x2000, 0x8400, 0x8460} {
						d := WgmmaDescriptor{Start: start, LBO: st[0], SBO: st[1], Swizzle: s}
						l, err := WgmmaOperandLayout(d, o)
						if err != nil {
							t.Fatalf("%s %s %+v %v: %v", major, s, o, d, err)
						}
						for r := 0; r < o.Rows; r++ {
							for k := 0; k < o.K; k++ {
								if got, want := l.At(r, k), expectedAddr(d, o, r, k); got != want {
									t.Fatalf("%s, %s, %d-bit, %d rows, %v: element (%d, %d) at %#x, CUTLASS's layout says %#x", major, s, o.ElemBits, o.Rows, d, r, k, got, want)
								}
							}
						}
						n++
					}
				}
			}
		}
	}
	if n < 200 {
		t.Fatalf("only %d layouts checked", n)
	}
}

// atomTile is the tile CUTLASS builds with tile_to_shape(Layout_<major>_
// <swz>_Atom<T>, Shape<rows, kTile>): the atom, (8 rows × W bytes) K-major
// or (W bytes × 8 K rows) MN-major, repeated column-major (along rows
// first, then K). The atoms are (in bits) Layout<Shape<_8,_W*8>,
// Stride<_W*8,_1>> K-major and Layout<Shape<_W*8,_8>,Stride<_1,_W*8>>
// MN-major, W = 16 (INTER), 32, 64, 128.
func atomTile(major WgmmaMajor, s WgmmaSwizzle, bits, rows, kTile int) (rm, cm cuteMode) {
	we := s.Bytes() * 8 / bits // atom width in elements
	atom := 8 * we
	if major == WgmmaKMajor {
		return mode(8, we, rows/8, atom), mode(we, 1, kTile/we, atom*rows/8)
	}
	return mode(we, 1, rows/we, atom), mode(8, we, kTile/8, atom*rows/we)
}

// TestWgmmaKLoopOverAtomTile steps K through a tile built from CUTLASS's
// atoms the way CUTLASS's descriptor iterator does: one descriptor per
// wgmma K step, its start address the tile's (unswizzled) offset of the
// step's first element added to the base, LBO and SBO read off the tile's
// strides. Inside a 128-byte swizzled row that is +32 bytes a step with
// base offset 0, the case compiled kernels rely on.
func TestWgmmaKLoopOverAtomTile(t *testing.T) {
	for _, major := range []WgmmaMajor{WgmmaKMajor, WgmmaMNMajor} {
		for _, s := range WgmmaSwizzles {
			for _, bits := range []int{8, 16, 32} {
				for _, base := range []uint32{0x400, 0x6000} {
					rows := 64
					kStep := 256 / bits
					kTile := 4 * kStep
					if major == WgmmaMNMajor && rows*bits/8 < s.Bytes() {
						continue
					}
					rm, cm := atomTile(major, s, bits, rows, kTile)
					toBytes := func(e int) uint32 { return uint32(e * bits / 8) }
					var d WgmmaDescriptor
					d.Swizzle = s
					if major == WgmmaKMajor {
						d.SBO = toBytes(rm.stride[1])
						if s == WgmmaSwizzleNone {
							d.LBO = toBytes(cm.stride[1])
						} else {
							d.LBO = 16
						}
					} else {
						if s == WgmmaSwizzleNone {
							d.SBO, d.LBO = toBytes(rm.stride[1]), toBytes(cm.stride[1])
						} else {
							d.LBO, d.SBO = toBytes(rm.stride[1]), toBytes(cm.stride[1])
						}
					}
					var starts []uint32
					for step := 0; step < kTile/kStep; step++ {
						d.Start = base + toBytes(cm.eval(step*kStep))
						starts = append(starts, d.Start)
						l, err := WgmmaOperandLayout(d, WgmmaOperand{Major: major, ElemBits: bits, Rows: rows, K: kStep})
						if err != nil {
							t.Fatalf("%s %s %d-bit step %d %v: %v", major, s, bits, step, d, err)
						}
						if len(l.Notes) != 0 {
							t.Errorf("%s %s step %d: unexpected notes %q", major, s, step, l.Notes)
						}
						for r := 0; r < rows; r++ {
							for k := 0; k < kStep; k++ {
								want := cuteSwizzle(swizzleBits(s), 4, 3, uint64(base)+uint64(toBytes(rm.eval(r)+cm.eval(step*kStep+k))))
								if got := l.At(r, k); got != want {
									t.Fatalf("%s, %s, %d-bit, K step %d (%v): element (%d, %d) at %#x, the atom tile has it at %#x", major, s, bits, step, d, r, step*kStep+k, got, want)
								}
							}
						}
					}
					if major == WgmmaKMajor && s == WgmmaSwizzle128B {
						for i, st := range starts {
							if st != base+uint32(32*i) {
								t.Errorf("128B K-major step %d starts at %#x, want base+%d", i, st, 32*i)
							}
						}
					}
				}
			}
		}
	}
}

// A K step inside a 128-byte swizzled row reads chunk (2j+c) ^ row: the
// worked case, spelled out for f16 (k16 = 32 bytes = two chunks).
func TestWgmmaKStepInsideSwizzledRow(t *testing.T) {
	for j := 0; j < 4; j++ {
		d := WgmmaDescriptor{Start: 0x1000 + uint32(32*j), LBO: 16, SBO: 1024, Swizzle: WgmmaSwizzle128B}
		l, err := WgmmaOperandLayout(d, WgmmaOperand{Major: WgmmaKMajor, ElemBits: 16, Rows: 64, K: 16})
		if err != nil {
			t.Fatal(err)
		}
		for r := 0; r < 64; r++ {
			for c := 0; c < 2; c++ {
				want := 0x1000 + uint64(r/8*1024+r%8*128) + uint64((2*j+c)^(r%8))*16
				if got := l.At(r, 8*c); got != want {
					t.Fatalf("step %d row %d chunk %d: %#x, want %#x", j, r, c, got, want)
				}
			}
		}
	}
}

func TestWgmmaDescriptorRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewSource(24))
	for i := 0; i < 20000; i++ {
		v := rng.Uint64()
		if got, err := DecodeWgmmaDescriptor(v).Encode(); err != nil || got != v {
			t.Fatalf("Encode(Decode(%#x)) = %#x, %v", v, got, err)
		}
		d := WgmmaDescriptor{
			Start: uint32(rng.Intn(1<<14)) << 4, LBO: uint32(rng.Intn(1<<14)) << 4, SBO: uint32(rng.Intn(1<<14)) << 4,
			BaseOffset: uint8(rng.Intn(8)), Swizzle: WgmmaSwizzle(rng.Intn(4)),
		}
		e, err := d.Encode()
		if err != nil || DecodeWgmmaDescriptor(e) != d {
			t.Fatalf("Decode(Encode(%+v)) = %+v, %v", d, DecodeWgmmaDescriptor(e), err)
		}
	}
	// The fields sit where CUTLASS's GmmaDescriptor bitfield puts them.
	v := uint64(0x1230>>4) | uint64(16>>4)<<16 | uint64(1024>>4)<<32 | uint64(3)<<49 | uint64(1)<<62
	want := WgmmaDescriptor{Start: 0x1230, LBO: 16, SBO: 1024, BaseOffset: 3, Swizzle: WgmmaSwizzle128B}
	if got := DecodeWgmmaDescriptor(v); got != want {
		t.Fatalf("decode %#x = %+v, want %+v", v, got, want)
	}
	if s := want.String(); s != "start 0x1230, LBO 16, SBO 1024, swizzle 128B, base offset 3" {
		t.Errorf("String() = %q", s)
	}
	for sw, name := range map[WgmmaSwizzle]string{0: "none", 1: "128B", 2: "64B", 3: "32B"} {
		if got := DecodeWgmmaDescriptor(uint64(sw) << 62).Swizzle; got != sw || got.String() != name {
			t.Errorf("swizzle field %d decodes as %v", sw, got)
		}
		if p, ok := ParseWgmmaSwizzle(name); !ok || p != sw {
			t.Errorf("ParseWgmmaSwizzle(%q) = %v, %v", name, p, ok)
		}
	}
}

func TestWgmmaDescriptorErrors(t *testing.T) {
	encodeErr := []struct {
		d    WgmmaDescriptor
		want string
	}{
		{WgmmaDescriptor{Start: 0x40000}, "beyond the 256 KiB"},
		{WgmmaDescriptor{Start: 0x108}, "not a multiple of 16"},
		{WgmmaDescriptor{LBO: 0x40000}, "leading byte offset 0x40000 is beyond"},
		{WgmmaDescriptor{SBO: 24}, "stride byte offset 0x18 is not a multiple"},
		{WgmmaDescriptor{BaseOffset: 8}, "3 bits"},
		{WgmmaDescriptor{Swizzle: 4}, "unknown swizzle"},
		{WgmmaDescriptor{Reserved: 1}, "overlap"},
	}
	for _, c := range encodeErr {
		if _, err := c.d.Encode(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Encode(%+v) = %v, want an error with %q", c.d, err, c.want)
		}
	}
	f16 := WgmmaOperand{Major: WgmmaKMajor, ElemBits: 16, Rows: 64, K: 16}
	layoutErr := []struct {
		d    WgmmaDescriptor
		o    WgmmaOperand
		want string
	}{
		{DecodeWgmmaDescriptor(1<<14 | 1<<62), f16, "reserved descriptor bits"},
		{DecodeWgmmaDescriptor(1 << 55), f16, "reserved descriptor bits"},
		{WgmmaDescriptor{BaseOffset: 1, LBO: 128, SBO: 256}, f16, "base offset 1 with no swizzle"},
		{WgmmaDescriptor{Start: 0x400, BaseOffset: 2, SBO: 1024, Swizzle: WgmmaSwizzle128B}, f16, "base offset 2 does not match"},
		{WgmmaDescriptor{Start: 0x3f000, SBO: 1024, Swizzle: WgmmaSwizzle128B}, f16, "beyond the 256 KiB shared-memory window"},
		{WgmmaDescriptor{SBO: 0, Swizzle: WgmmaSwizzle128B}, f16, "are both read from the 16 bytes at 0x0"},
		{WgmmaDescriptor{SBO: 512, Swizzle: WgmmaSwizzle128B}, f16, "SBO (512)"},
		{WgmmaDescriptor{LBO: 0, SBO: 256}, f16, "LBO (0)"},
		{WgmmaDescriptor{LBO: 128, SBO: 128}, f16, "elements (0, 8) and (8, 0)"},
		{WgmmaDescriptor{LBO: 128, SBO: 256, Swizzle: WgmmaSwizzle32B}, WgmmaOperand{Major: WgmmaMNMajor, ElemBits: 16, Rows: 64, K: 16}, "MN blocks are LBO (128) apart"},
		{WgmmaDescriptor{LBO: 128, SBO: 256}, WgmmaOperand{Major: WgmmaKMajor, ElemBits: 16, Rows: 64, K: 24}, "one wgmma reads 32 bytes of K, 16 elements"},
		{WgmmaDescriptor{LBO: 128, SBO: 256}, WgmmaOperand{Major: WgmmaKMajor, ElemBits: 16, Rows: 64, K: 64}, "(B of wgmma.mma_async.sp twice that)"},
		{WgmmaDescriptor{LBO: 128, SBO: 256}, WgmmaOperand{Major: WgmmaKMajor, ElemBits: 1, Rows: 64, K: 512}, "one wgmma reads 32 bytes of K"},
		{WgmmaDescriptor{LBO: 128, SBO: 256}, WgmmaOperand{Major: WgmmaKMajor, ElemBits: 16, Rows: 60, K: 16}, "multiple of 8 rows"},
		{WgmmaDescriptor{LBO: 128, SBO: 256}, WgmmaOperand{Major: WgmmaKMajor, ElemBits: 16, Rows: 264, K: 16}, "multiple of 8 rows"},
		{WgmmaDescriptor{LBO: 128, SBO: 256}, WgmmaOperand{Major: WgmmaMNMajor, ElemBits: 1, Rows: 64, K: 256}, "K-major only"},
		{WgmmaDescriptor{LBO: 128, SBO: 256}, WgmmaOperand{Major: WgmmaKMajor, ElemBits: 64, Rows: 64, K: 4}, "1, 8, 16 or 32 bits"},
	}
	for _, c := range layoutErr {
		if _, err := WgmmaOperandLayout(c.d, c.o); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("WgmmaOperandLayout(%v, %+v) = %v, want an error with %q", c.d, c.o, err, c.want)
		}
	}
	if _, err := (WgmmaDescriptor{Start: 0x3fff0}).Advance(16); err == nil {
		t.Error("Advance past the window succeeded")
	}
	if _, err := (WgmmaDescriptor{Start: 0x100}).Advance(8); err == nil {
		t.Error("Advance by 8 bytes succeeded")
	}
	if d, err := (WgmmaDescriptor{Start: 0x100}).Advance(-0x20); err != nil || d.Start != 0xe0 {
		t.Errorf("Advance(-0x20) = %v, %v", d, err)
	}
}

// The ISA's base-offset rule: a pattern that starts 128·j bytes past its
// boundary has base offset j. Either that base offset or 0 gives the
// absolute-address layout; 0 there comes with a note.
func TestWgmmaBaseOffset(t *testing.T) {
	f16 := WgmmaOperand{Major: WgmmaKMajor, ElemBits: 16, Rows: 64, K: 16}
	for _, s := range []WgmmaSwizzle{WgmmaSwizzle32B, WgmmaSwizzle64B, WgmmaSwizzle128B} {
		pb := uint32(s.PatternBytes())
		for j := uint32(1); j < pb/128; j++ {
			start := 4*pb + 128*j
			sbo := 8 * uint32(s.Bytes())
			with, err := WgmmaOperandLayout(WgmmaDescriptor{Start: start, SBO: sbo, BaseOffset: uint8(j), Swizzle: s}, f16)
			if err != nil {
				t.Fatalf("%s base offset %d at %#x: %v", s, j, start, err)
			}
			without, err := WgmmaOperandLayout(WgmmaDescriptor{Start: start, SBO: sbo, Swizzle: s}, f16)
			if err != nil {
				t.Fatal(err)
			}
			if len(with.Notes) != 0 || len(without.Notes) != 1 || !strings.Contains(without.Notes[0], fmt.Sprintf("base offset %d", j)) {
				t.Errorf("%s at %#x: notes %q / %q", s, start, with.Notes, without.Notes)
			}
			for i := range with.Addr {
				if with.Addr[i] != without.Addr[i] {
					t.Fatalf("%s: base offset changed element %d", s, i)
				}
			}
			// The first 16 bytes read sit where TMA's swizzle of the same
			// absolute address puts them.
			if got, want := with.At(0, 0), cuteSwizzle(swizzleBits(s), 4, 3, uint64(start)); got != want {
				t.Errorf("%s at %#x: first chunk at %#x, want %#x", s, start, got, want)
			}
		}
	}
}

// A descriptor as hand-written Hopper kernels build it (128B swizzle,
// LBO field 1, SBO field 64, i.e. 1024 bytes) reads a 64×16 f16 K-major
// tile as 8 rows of 128 bytes per kilobyte.
func TestWgmmaHandWrittenDescriptor(t *testing.T) {
	v := uint64(0x4000>>4) | 1<<16 | 64<<32 | 1<<62
	d := DecodeWgmmaDescriptor(v)
	if d.Validate() != nil || d.LBO != 16 || d.SBO != 1024 || d.Swizzle != WgmmaSwizzle128B {
		t.Fatalf("decoded %v", d)
	}
	l, err := WgmmaOperandLayout(d, WgmmaOperand{Major: WgmmaKMajor, ElemBits: 16, Rows: 64, K: 16})
	if err != nil {
		t.Fatal(err)
	}
	if got := l.At(9, 9); got != 0x4000+1024+128+0*16+2 { // chunk 1 XOR row 1 = chunk 0
		t.Errorf("element (9, 9) at %#x", got)
	}
	if got := l.At(3, 0); got != 0x4000+3*128+3*16 {
		t.Errorf("element (3, 0) at %#x", got)
	}
}

func TestWgmmaLayoutSharedBounds(t *testing.T) {
	d := WgmmaDescriptor{Start: 0x1000, SBO: 1024, Swizzle: WgmmaSwizzle128B}
	l, err := WgmmaOperandLayout(d, WgmmaOperand{Major: WgmmaKMajor, ElemBits: 16, Rows: 64, K: 16})
	if err != nil {
		t.Fatal(err)
	}
	// Rows 0..63 in 8 groups of 1024 bytes; each row reads 32 of its 128
	// bytes, swizzled: the last row (63, row 7 of its group) reads chunks
	// 0^7 and 1^7 = 7 and 6, ending at 0x1000 + 7*1024 + 7*128 + 128 with
	// element (63, 7), the last of chunk 0, at 0x2ffe.
	lo, hi := l.Span()
	if lo != 0x1000 || hi != 0x1000+8*1024 {
		t.Errorf("span %#x..%#x", lo, hi)
	}
	if err := l.CheckShared(0x1000 + 8*1024); err != nil {
		t.Errorf("fits exactly: %v", err)
	}
	err = l.CheckShared(0x1000 + 8*1024 - 1)
	if err == nil || !strings.Contains(err.Error(), "element (63, 7) is read from shared byte 0x2ffe") {
		t.Errorf("one byte short: %v", err)
	}
}
