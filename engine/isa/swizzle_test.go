package isa

import "testing"

// The tables of PTX ISA §5.5.7 (Swizzling Modes), transcribed: row r is a
// 128-byte shared-memory line of a pattern starting on its boundary, and
// entry p is the 16-byte chunk drawn at position p ("0 1 | 2 3" cells of
// the 32-byte atomicity table are two chunks each).
var ptxSwizzleTables = []struct {
	name string
	s    Swizzle
	rows [][8]int
}{
	{"no swizzle", Swizzle{}, [][8]int{
		{0, 1, 2, 3, 4, 5, 6, 7},
	}},
	{"32B", Swizzle{Mode: SwizzleTMA32B}, [][8]int{
		{0, 1, 2, 3, 4, 5, 6, 7},
		{1, 0, 3, 2, 5, 4, 7, 6},
	}},
	{"64B", Swizzle{Mode: SwizzleTMA64B}, [][8]int{
		{0, 1, 2, 3, 4, 5, 6, 7},
		{1, 0, 3, 2, 5, 4, 7, 6},
		{2, 3, 0, 1, 6, 7, 4, 5},
		{3, 2, 1, 0, 7, 6, 5, 4},
	}},
	{"96B", Swizzle{Mode: SwizzleTMA96B}, [][8]int{
		{0, 1, 2, 3, 4, 5, 6, 7},
		{1, 0, 3, 2, 5, 4, 7, 6},
	}},
	{"128B 16B atomicity", Swizzle{Mode: SwizzleTMA128B}, [][8]int{
		{0, 1, 2, 3, 4, 5, 6, 7},
		{1, 0, 3, 2, 5, 4, 7, 6},
		{2, 3, 0, 1, 6, 7, 4, 5},
		{3, 2, 1, 0, 7, 6, 5, 4},
		{4, 5, 6, 7, 0, 1, 2, 3},
		{5, 4, 7, 6, 1, 0, 3, 2},
		{6, 7, 4, 5, 2, 3, 0, 1},
		{7, 6, 5, 4, 3, 2, 1, 0},
	}},
	{"128B 32B atomicity", Swizzle{Mode: SwizzleTMA128B, Atom: Atom32B}, [][8]int{
		{0, 1, 2, 3, 4, 5, 6, 7},
		{2, 3, 0, 1, 6, 7, 4, 5},
		{4, 5, 6, 7, 0, 1, 2, 3},
		{6, 7, 4, 5, 2, 3, 0, 1},
	}},
	// "similar to the 32-byte atomicity sub-mode": the same chunk table.
	{"128B 32B atomicity, 8B flip", Swizzle{Mode: SwizzleTMA128B, Atom: Atom32BFlip8B}, [][8]int{
		{0, 1, 2, 3, 4, 5, 6, 7},
		{2, 3, 0, 1, 6, 7, 4, 5},
		{4, 5, 6, 7, 0, 1, 2, 3},
		{6, 7, 4, 5, 2, 3, 0, 1},
	}},
	{"128B 64B atomicity", Swizzle{Mode: SwizzleTMA128B, Atom: Atom64B}, [][8]int{
		{0, 1, 2, 3, 4, 5, 6, 7},
		{4, 5, 6, 7, 0, 1, 2, 3},
	}},
}

// Every entry of every table, and "… Pattern repeats …": the lines after
// the table (up to 4 KiB) repeat it.
func TestSwizzlePTXTables(t *testing.T) {
	for _, tc := range ptxSwizzleTables {
		if err := tc.s.Validate(); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		got := tc.s.Table()
		if len(got) != len(tc.rows) {
			t.Fatalf("%s: %d table rows, want %d", tc.name, len(got), len(tc.rows))
		}
		for r, row := range tc.rows {
			if got[r] != row {
				t.Errorf("%s row %d: %v, want %v", tc.name, r, got[r], row)
			}
		}
		for line := 0; line < 32; line++ {
			want := tc.rows[line%len(tc.rows)]
			for p, c := range want {
				phys := tc.s.Apply(uint64(line*128 + c*16))
				if int(phys>>4)&7 != p || phys>>7 != uint64(line) {
					t.Errorf("%s line %d: chunk %d lands at %#x, want position %d of the same line", tc.name, line, c, phys, p)
				}
			}
		}
	}
}

// The two tables of base offsets: on the repeat boundary the offset is 0,
// otherwise (dstMem/128) % rows; and a destination at dstMem starts its
// first line at row BaseOffset(dstMem) of the pattern.
func TestSwizzleBaseOffset(t *testing.T) {
	cases := []struct {
		s        Swizzle
		boundary int
		modulo   int
	}{
		{Swizzle{Mode: SwizzleTMA128B}, 1024, 8},
		{Swizzle{Mode: SwizzleTMA96B}, 256, 2},
		{Swizzle{Mode: SwizzleTMA64B}, 512, 4},
		{Swizzle{Mode: SwizzleTMA32B}, 256, 2},
	}
	for _, tc := range cases {
		if got := tc.s.PatternBytes(); got != tc.boundary {
			t.Errorf("%s: pattern repeats every %d bytes, want %d", tc.s.Name(), got, tc.boundary)
		}
		for dst := uint64(0); dst < 8192; dst += 128 {
			off := tc.s.BaseOffset(dst)
			if want := int(dst/128) % tc.modulo; off != want {
				t.Errorf("%s: BaseOffset(%d) = %d, want %d", tc.s.Name(), dst, off, want)
			}
			if dst%uint64(tc.boundary) == 0 && off != 0 {
				t.Errorf("%s: BaseOffset(%d) = %d on the boundary", tc.s.Name(), dst, off)
			}
			table := tc.s.Table()
			for r := 0; r < 4; r++ {
				want := table[(off+r)%len(table)]
				for p, c := range want {
					if phys := tc.s.Apply(dst + uint64(r*128+c*16)); int(phys>>4)&7 != p {
						t.Errorf("%s dst %d row %d: chunk %d at position %d, want %d", tc.s.Name(), dst, r, c, (phys>>4)&7, p)
					}
				}
			}
		}
	}
	// The 128B sub-modes follow the 128B rule and their own tables.
	for _, atom := range []SwizzleAtom{Atom32B, Atom32BFlip8B, Atom64B} {
		s := Swizzle{Mode: SwizzleTMA128B, Atom: atom}
		if s.BaseOffset(3*128) != 3 || s.BaseOffset(1024) != 0 {
			t.Errorf("%s: base offsets %d, %d", s.Name(), s.BaseOffset(3*128), s.BaseOffset(1024))
		}
	}
}

// TMA 32B/64B/128B equal Swizzle<1,4,3>, <2,4,3>, <3,4,3> on byte
// addresses, and a ^ ((a>>3) & 0x10/0x30/0x70).
func TestSwizzleTMAEqualsXOR(t *testing.T) {
	cases := []struct {
		tma  SwizzleMode
		b    int
		mask uint64
	}{{SwizzleTMA32B, 1, 0x10}, {SwizzleTMA64B, 2, 0x30}, {SwizzleTMA128B, 3, 0x70}}
	for _, tc := range cases {
		tma, x := Swizzle{Mode: tc.tma}, XORSwizzle(tc.b, 4, 3)
		if err := x.Validate(); err != nil {
			t.Fatal(err)
		}
		for a := uint64(0); a < 1<<16; a++ {
			want := a ^ ((a >> 3) & tc.mask)
			if got, gx := tma.Apply(a), x.Apply(a); got != want || gx != want {
				t.Fatalf("%s(%#x) = %#x, %s = %#x, want %#x", tma.Name(), a, got, x.Name(), gx, want)
			}
		}
	}
}

// Every pattern is an involution (so a permutation) within its pattern.
func TestSwizzleInvolution(t *testing.T) {
	all := []Swizzle{{}, XORSwizzle(2, 3, 3), XORSwizzle(3, 2, 4), XORSwizzle(0, 0, 0)}
	for _, tc := range ptxSwizzleTables {
		all = append(all, tc.s)
	}
	for _, s := range all {
		for a := uint64(0); a < 1<<14; a++ {
			if b := s.Apply(a); s.Apply(b) != a || b/uint64(s.PatternBytes()) != a/uint64(s.PatternBytes()) {
				t.Fatalf("%s: %#x -> %#x -> %#x", s.Name(), a, b, s.Apply(b))
			}
		}
	}
}

// The 8-byte flip swaps the halves of every 16 bytes on odd lines only.
func TestSwizzleFlip8B(t *testing.T) {
	flip := Swizzle{Mode: SwizzleTMA128B, Atom: Atom32BFlip8B}
	plain := Swizzle{Mode: SwizzleTMA128B, Atom: Atom32B}
	for a := uint64(0); a < 2048; a++ {
		want := plain.Apply(a)
		if (a>>7)&1 == 1 {
			want ^= 8
		}
		if got := flip.Apply(a); got != want {
			t.Fatalf("flip(%#x) = %#x, want %#x", a, got, want)
		}
	}
}

func TestSwizzleValidate(t *testing.T) {
	bad := []Swizzle{
		{Mode: SwizzleTMA64B, Atom: Atom32B}, // Table 14: 16B only
		{Mode: SwizzleTMA128B, Atom: 9},
		{Mode: 17},
		XORSwizzle(3, 4, 2), // S < B
		XORSwizzle(-1, 4, 3),
		XORSwizzle(3, 9, 3),
		XORSwizzle(7, 4, 7),
	}
	for _, s := range bad {
		if s.Validate() == nil {
			t.Errorf("%+v: no error", s)
		}
	}
	for _, tl := range []SwizzleTile{{RowBytes: 8, Rows: 8}, {RowBytes: 24, Rows: 8}, {RowBytes: 128, Rows: 0}, {RowBytes: 128, Rows: 8, Base: 64}, {RowBytes: 1024, Rows: 8}} {
		if tl.Validate() == nil {
			t.Errorf("%+v: no error", tl)
		}
	}
	for _, name := range []string{"none", "32B", "64b", "96B", "128B", "xor"} {
		if _, ok := ParseSwizzleMode(name); !ok {
			t.Errorf("mode %q not parsed", name)
		}
	}
	if _, ok := ParseSwizzleAtom("32B-flip8B"); !ok {
		t.Error("32B-flip8B not parsed")
	}
}

func TestWavefronts(t *testing.T) {
	same := make([]uint64, 32)
	for i := range same {
		same[i] = 0x40 // one word: broadcast
	}
	if w := Wavefronts(same); w != 1 {
		t.Errorf("broadcast: %d wavefronts, want 1", w)
	}
	// Two words of bank 0 (0 and 128), each read by 16 lanes: 2.
	two := make([]uint64, 32)
	for i := range two {
		two[i] = uint64(i%2) * 128
	}
	if w := Wavefronts(two); w != 2 {
		t.Errorf("two words of one bank: %d wavefronts, want 2", w)
	}
	if Wavefronts(nil) != 0 {
		t.Error("no addresses: want 0")
	}
}

// Hand-computed conflict counts.
func TestSwizzleConflicts(t *testing.T) {
	rows128 := SwizzleTile{Base: 0, RowBytes: 128, Rows: 32}
	rows64 := SwizzleTile{Base: 0, RowBytes: 64, Rows: 32}
	cases := []struct {
		name       string
		s          Swizzle
		t          SwizzleTile
		p          AccessPattern
		sel        int
		wavefronts int
		conflicts  int // lanes marked conflicting
	}{
		// 128-byte rows, no swizzle: a row is the 32 banks once: 1.
		{"none row", Swizzle{}, rows128, AccessRows, 3, 1, 0},
		// The same word of 32 rows 128 bytes apart: 32 words in one bank.
		{"none column", Swizzle{}, rows128, AccessColumn, 5, 32, 32},
		// 8 rows × chunk 0: banks 0-3 each hold 8 distinct words.
		{"none ldmatrix", Swizzle{}, rows128, AccessLdmatrix, 0, 8, 8},
		// 128B: row l's chunk 0 lands in chunk l%8, so banks 4·(l%8): 32
		// rows over 8 banks, 4 rows each.
		{"128B column", Swizzle{Mode: SwizzleTMA128B}, rows128, AccessColumn, 0, 4, 32},
		// 128B: rows 0-7's chunk c land in 8 different chunks: all 32 banks once.
		{"128B ldmatrix", Swizzle{Mode: SwizzleTMA128B}, rows128, AccessLdmatrix, 3, 1, 0},
		// A swizzle permutes a line's chunks: a full row is still 1.
		{"128B row", Swizzle{Mode: SwizzleTMA128B}, rows128, AccessRows, 6, 1, 0},
		// 64B: chunk 0 of row l lands in chunk l%4: 4 banks, 8 rows each.
		{"64B column", Swizzle{Mode: SwizzleTMA64B}, rows128, AccessColumn, 0, 8, 32},
		// 64B: rows 0-7 reach chunks 0-3 twice: 2.
		{"64B ldmatrix", Swizzle{Mode: SwizzleTMA64B}, rows128, AccessLdmatrix, 0, 2, 8},
		// 32B: chunk 0 of row l in chunk l%2: 2 banks × 16 rows.
		{"32B column", Swizzle{Mode: SwizzleTMA32B}, rows128, AccessColumn, 0, 16, 32},
		{"32B ldmatrix", Swizzle{Mode: SwizzleTMA32B}, rows128, AccessLdmatrix, 0, 4, 8},
		// 64-byte rows, 128B swizzle: row l is half p = l&1 of line u = l>>1,
		// its chunk 0 lands in chunk 4p ^ (u&7); over l = 0..31 each of the
		// 8 chunks gets 4 lanes: 4.
		{"128B 64-byte rows column", Swizzle{Mode: SwizzleTMA128B}, rows64, AccessColumn, 0, 4, 32},
		// 64-byte rows, no swizzle: row l's word 0 is bank 16·(l&1): 16 each.
		{"none 64-byte rows column", Swizzle{}, rows64, AccessColumn, 0, 16, 32},
		// ldmatrix on 64-byte rows, no swizzle: rows 2k and 2k+1 share a
		// line, chunk 0 and 4: banks 0-3 and 16-19, 4 words each.
		{"none 64-byte rows ldmatrix", Swizzle{}, rows64, AccessLdmatrix, 0, 4, 8},
		// Swizzle<2,4,3> equals the 64B mode: same count.
		{"xor<2,4,3> column", XORSwizzle(2, 4, 3), rows128, AccessColumn, 0, 8, 32},
		// 32B atomicity: 32-byte units move by the line index mod 4: chunk 0
		// of row l in chunk 2·(l%4), 4 banks × 8 rows.
		{"128B/32B column", Swizzle{Mode: SwizzleTMA128B, Atom: Atom32B}, rows128, AccessColumn, 0, 8, 32},
		// Base offset: a 128B tile at 384 starts at pattern row 3; column
		// access still spreads over 8 chunks: 4.
		{"128B column at 384", Swizzle{Mode: SwizzleTMA128B}, SwizzleTile{Base: 384, RowBytes: 128, Rows: 32}, AccessColumn, 0, 4, 32},
	}
	for _, tc := range cases {
		got := tc.s.CheckAccess(tc.t, tc.p, tc.sel)
		if got.Wavefronts != tc.wavefronts {
			t.Errorf("%s: %d wavefronts, want %d", tc.name, got.Wavefronts, tc.wavefronts)
		}
		if got.Ideal != 1 {
			t.Errorf("%s: ideal %d, want 1", tc.name, got.Ideal)
		}
		n := 0
		for _, l := range got.Lanes {
			if l.Conflict {
				n++
			}
		}
		if n != tc.conflicts {
			t.Errorf("%s: %d conflicting lanes, want %d", tc.name, n, tc.conflicts)
		}
	}
	// Lanes of the column check read the word they say: row l, byte 4·sel.
	c := Swizzle{Mode: SwizzleTMA128B}.CheckAccess(rows128, AccessColumn, 2)
	for _, l := range c.Lanes {
		if want := (Swizzle{Mode: SwizzleTMA128B}).Apply(uint64(l.Lane*128 + 8)); l.Row != l.Lane || l.Byte != 8 || l.Words[0] != want {
			t.Errorf("lane %d: row %d byte %d word %#x, want %#x", l.Lane, l.Row, l.Byte, l.Words[0], want)
		}
	}
}
