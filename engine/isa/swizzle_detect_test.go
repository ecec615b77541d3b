package isa

import (
	"math/rand"
	"testing"
)

func lanesUpTo(n int) []int {
	l := make([]int, n)
	for i := range l {
		l[i] = i
	}
	return l
}

// offsetsOf maps every lane through f.
func offsetsOf(lanes []int, f func(l int) uint64) []uint64 {
	o := make([]uint64, len(lanes))
	for i, l := range lanes {
		o[i] = f(l)
	}
	return o
}

func TestDetectSwizzlePositive(t *testing.T) {
	all := lanesUpTo(32)
	even := []int{}
	for l := 0; l < 32; l += 2 {
		even = append(even, l)
	}
	tma := func(m SwizzleMode, a SwizzleAtom) Swizzle { return Swizzle{Mode: m, Atom: a} }
	for _, tc := range []struct {
		name   string
		lanes  []int
		off    func(l int) uint64
		want   Swizzle
		base   int64
		stride int64
	}{
		// The transpose_swizzled example: element (row, col) at word
		// row*32 + (col ^ row). Column c read: lane t reads row t.
		{"xor column read", all, func(l int) uint64 { return uint64(l*128 + ((3^l)&31)*4) }, XORSwizzle(5, 2, 5), 12, 128},
		// Its row store: row 21 (10101b), lane t writes column t.
		{"xor row store", all, func(l int) uint64 { return uint64(21*128 + ((l^21)&31)*4) }, XORSwizzle(5, 2, 5), 21 * 128, 4},
		// Row 1's store: one XORed bit explains it.
		{"xor row 1", all, func(l int) uint64 { return uint64(128 + ((l^1)&31)*4) }, XORSwizzle(1, 2, 5), 128, 4},
		// TMA 128B: lanes 0-7 read 16-byte chunk 5 of rows 0-7, lanes 8-15 of rows 8-15 ...
		{"TMA 128B vectors", all, func(l int) uint64 { return tma(SwizzleTMA128B, Atom16B).Apply(uint64(l*128 + 5*16)) }, tma(SwizzleTMA128B, Atom16B), 80, 128},
		{"TMA 64B column", all, func(l int) uint64 { return tma(SwizzleTMA64B, Atom16B).Apply(uint64(l*128 + 4)) }, tma(SwizzleTMA64B, Atom16B), 4, 128},
		{"TMA 32B column", all, func(l int) uint64 { return tma(SwizzleTMA32B, Atom16B).Apply(uint64(1024 + l*128 + 8)) }, tma(SwizzleTMA32B, Atom16B), 1032, 128},
		{"TMA 128B 32B atom", all, func(l int) uint64 { return tma(SwizzleTMA128B, Atom32B).Apply(uint64(l * 128)) }, tma(SwizzleTMA128B, Atom32B), 0, 128},
		{"TMA 128B 64B atom", all, func(l int) uint64 { return tma(SwizzleTMA128B, Atom64B).Apply(uint64(l*128 + 16)) }, tma(SwizzleTMA128B, Atom64B), 16, 128},
		{"TMA 128B 32B atom + 8B flip", all, func(l int) uint64 { return tma(SwizzleTMA128B, Atom32BFlip8B).Apply(uint64(l * 128)) }, tma(SwizzleTMA128B, Atom32BFlip8B), 0, 128},
		// Swizzle<3,4,3> is TMA 128B: the named pattern is reported.
		{"Swizzle<3,4,3> is TMA 128B", all, func(l int) uint64 { return XORSwizzle(3, 4, 3).Apply(uint64(l * 128)) }, tma(SwizzleTMA128B, Atom16B), 0, 128},
		{"Swizzle<2,3,4>", all, func(l int) uint64 { return XORSwizzle(2, 3, 4).Apply(uint64(l*128 + 4)) }, XORSwizzle(2, 3, 4), 4, 128},
		// 256-byte rows: Swizzle<3,4,4>, lane l reads row l's first chunk.
		{"Swizzle<3,4,4> 256-byte rows", all, func(l int) uint64 { return XORSwizzle(3, 4, 4).Apply(uint64(l * 256)) }, XORSwizzle(3, 4, 4), 0, 256},
		// Column 0 of the same tile: lane t reads word 33t, which is also
		// the column of a tile padded to 33-word rows (Affine, below).
		{"xor column 0 (affine too)", all, func(l int) uint64 { return uint64(l * 132) }, XORSwizzle(5, 2, 5), 0, 128},
		{"xor column 0 at 4096 (affine too)", all, func(l int) uint64 { return uint64(4096 + l*132) }, XORSwizzle(5, 2, 5), 4096, 128},
		// Its column 31: word 31 + 31t, the column of a 31-word tile too.
		{"xor column 31 (affine too)", all, func(l int) uint64 { return uint64(l*128 + (31^l)*4) }, XORSwizzle(5, 2, 5), 124, 128},
		{"half the lanes", even, func(l int) uint64 { return uint64(l*128 + ((7^l)&31)*4) }, XORSwizzle(5, 2, 5), 28, 128},
	} {
		t.Run(tc.name, func(t *testing.T) {
			offs := offsetsOf(tc.lanes, tc.off)
			f, ok := DetectSwizzle(tc.lanes, offs)
			if !ok {
				t.Fatalf("no swizzle detected in %v", offs)
			}
			if f.Swizzle != tc.want || f.Base != tc.base || f.Stride != tc.stride {
				t.Fatalf("detected %s base %d stride %d, want %s base %d stride %d", f.Swizzle.Name(), f.Base, f.Stride, tc.want.Name(), tc.base, tc.stride)
			}
			rb, rs, affine := affine(tc.lanes, offs)
			if f.Affine != affine || affine && (f.RawBase != rb || f.RawStride != rs) {
				t.Fatalf("affine %v (base %d stride %d), want %v (base %d stride %d)", f.Affine, f.RawBase, f.RawStride, affine, rb, rs)
			}
			for i, l := range tc.lanes {
				if got := int64(f.Logical(offs[i])); got != f.Base+f.Stride*int64(l) {
					t.Fatalf("lane %d: logical %d, want %d", l, got, f.Base+f.Stride*int64(l))
				}
			}
		})
	}
}

// Plain accesses, irregular ones and too few lanes are never reported.
func TestDetectSwizzleNegative(t *testing.T) {
	all := lanesUpTo(32)
	for _, tc := range []struct {
		name  string
		lanes []int
		off   func(l int) uint64
	}{
		{"row", all, func(l int) uint64 { return uint64(4 * l) }},
		{"row at an offset", all, func(l int) uint64 { return uint64(4096 + 4*l) }},
		{"column of a 32x32 tile", all, func(l int) uint64 { return uint64(128*l + 12) }},
		{"column of a padded 32x33 tile", all, func(l int) uint64 { return uint64(132*l + 12) }},
		{"broadcast", all, func(l int) uint64 { return 64 }},
		{"16-byte vectors", all, func(l int) uint64 { return uint64(16 * l) }},
		{"8-byte stride", all, func(l int) uint64 { return uint64(8 * l) }},
		{"reversed", all, func(l int) uint64 { return uint64(124 - 4*l) }},
		{"squares", all, func(l int) uint64 { return uint64(4 * l * l) }},
		{"two halves", all, func(l int) uint64 { return uint64(4*(l%16) + 1024*(l/16)) }},
		{"too few lanes", lanesUpTo(SwizzleDetectMinLanes - 1), func(l int) uint64 { return uint64(l*128 + ((3^l)&31)*4) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			offs := offsetsOf(tc.lanes, tc.off)
			if f, ok := DetectSwizzle(tc.lanes, offs); ok {
				t.Fatalf("detected %s (base %d stride %d) in %v", f.Swizzle.Name(), f.Base, f.Stride, offs)
			}
		})
	}
	// An affine access is reported only as the column of a pattern's rows
	// (a power of two bytes), with its own stride no power of two.
	for stride := 0; stride <= 1100; stride++ {
		for _, base := range []int{0, 4, 12, 124, 128, 4096} {
			offs := offsetsOf(all, func(l int) uint64 { return uint64(base + stride*l) })
			f, ok := DetectSwizzle(all, offs)
			if !ok {
				continue
			}
			if !f.Affine || f.RawStride != int64(stride) || f.RawBase != int64(base) || !isPow2(f.Stride) || isPow2(int64(stride)) ||
				f.Swizzle.Mode == SwizzleXOR && f.Stride != 1<<uint(f.Swizzle.M+f.Swizzle.S) {
				t.Fatalf("affine stride %d base %d: detected %s (stride %d, affine %v)", stride, base, f.Swizzle.Name(), f.Stride, f.Affine)
			}
		}
	}
	// Gathers (a histogram's bins, random indices): no pattern explains them.
	rnd := rand.New(rand.NewSource(9))
	for trial := 0; trial < 2000; trial++ {
		n := SwizzleDetectMinLanes + rnd.Intn(32-SwizzleDetectMinLanes+1)
		lanes := rnd.Perm(32)[:n]
		sortInts(lanes)
		offs := offsetsOf(lanes, func(int) uint64 { return uint64(4 * rnd.Intn(1024)) })
		if f, ok := DetectSwizzle(lanes, offs); ok {
			t.Fatalf("random gather %v at %v: detected %s", offs, lanes, f.Swizzle.Name())
		}
	}
	// Malformed input: lanes out of order or lengths that differ.
	if _, ok := DetectSwizzle([]int{3, 1, 2, 4, 5, 6, 7, 8}, make([]uint64, 8)); ok {
		t.Fatal("lanes out of order accepted")
	}
	if _, ok := DetectSwizzle(lanesUpTo(8), make([]uint64, 7)); ok {
		t.Fatal("mismatched lengths accepted")
	}
}

func sortInts(a []int) {
	for i := 1; i < len(a); i++ {
		for j := i; j > 0 && a[j] < a[j-1]; j-- {
			a[j], a[j-1] = a[j-1], a[j]
		}
	}
}
