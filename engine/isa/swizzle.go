package isa

import (
	"fmt"
	"strings"
)

// Shared-memory swizzles as data: the TMA swizzling modes of PTX §5.5.7
// (32B, 64B, 96B and 128B with the 128B mode's 16B, 32B, 32B+8B-flip and
// 64B atomicity sub-modes) and CuTe's general XOR swizzle
//
//	Swizzle<B,M,S>(o) = o ^ ((o & (((1<<B)-1) << (M+S))) >> S)
//
// Every swizzle is a function of the absolute shared-memory byte address,
// which is how the base-offset rules of §5.5.7 come out: a destination
// that does not start on the pattern's repeat boundary starts at row
// BaseOffset of the pattern. The explorer (web /api/swizzle) lays a tile of
// rows × rowBytes densely from a base address, swizzles every 4-byte word
// and checks three warp access patterns for bank conflicts.

// SwizzleMode is a swizzling mode.
type SwizzleMode uint8

const (
	SwizzleNone SwizzleMode = iota
	SwizzleTMA32B
	SwizzleTMA64B
	SwizzleTMA96B
	SwizzleTMA128B
	// SwizzleXOR is the general Swizzle<B,M,S>.
	SwizzleXOR
)

// SwizzleAtom is the swizzle atomicity of the TMA 128B mode: how many bytes
// move together.
type SwizzleAtom uint8

const (
	Atom16B SwizzleAtom = iota
	Atom32B
	// Atom32BFlip8B is Atom32B with the two 8-byte halves of every 16 bytes
	// swapped on every odd 128-byte shared-memory line.
	Atom32BFlip8B
	Atom64B
)

// Limits of the general swizzle's parameters (bits of a 24-bit offset).
const (
	SwizzleMaxB = 6
	SwizzleMaxM = 8
	SwizzleMaxS = 10
)

// Swizzle is one swizzle pattern.
type Swizzle struct {
	Mode SwizzleMode
	// Atom is the atomicity of SwizzleTMA128B (Atom16B for every other mode).
	Atom SwizzleAtom
	// B, M, S are the parameters of SwizzleXOR: B bits of the row index
	// taken from bit M+S upwards are XORed into the B bits from bit M.
	B, M, S int
}

// XORSwizzle returns Swizzle<b,m,s>.
func XORSwizzle(b, m, s int) Swizzle { return Swizzle{Mode: SwizzleXOR, B: b, M: m, S: s} }

// Validate reports a swizzle that does not exist: an atomicity sub-mode on
// a mode other than 128B (Table 14 of §5.5.7), or Swizzle<B,M,S> parameters
// out of range or overlapping (S < B would not be a permutation).
func (s Swizzle) Validate() error {
	switch s.Mode {
	case SwizzleNone, SwizzleTMA32B, SwizzleTMA64B, SwizzleTMA96B:
		if s.Atom != Atom16B {
			return fmt.Errorf("the %s mode has only 16-byte atomicity", s.Mode)
		}
	case SwizzleTMA128B:
		if s.Atom > Atom64B {
			return fmt.Errorf("unknown swizzle atomicity %d", s.Atom)
		}
	case SwizzleXOR:
		switch {
		case s.B < 0 || s.B > SwizzleMaxB:
			return fmt.Errorf("swizzle parameter B must be 0..%d", SwizzleMaxB)
		case s.M < 0 || s.M > SwizzleMaxM:
			return fmt.Errorf("swizzle parameter M must be 0..%d", SwizzleMaxM)
		case s.S < 0 || s.S > SwizzleMaxS:
			return fmt.Errorf("swizzle parameter S must be 0..%d", SwizzleMaxS)
		case s.S < s.B:
			return fmt.Errorf("in Swizzle<%d,%d,%d> S must be at least B, or the XORed bits overlap the bits they are read from", s.B, s.M, s.S)
		}
	default:
		return fmt.Errorf("unknown swizzle mode %d", s.Mode)
	}
	return nil
}

// Apply maps a logical shared-memory byte address to its physical address.
// Every pattern here is an involution: Apply(Apply(a)) == a.
func (s Swizzle) Apply(a uint64) uint64 {
	switch s.Mode {
	case SwizzleTMA32B, SwizzleTMA96B:
		// Bit 7 (the 128-byte line's parity) into bit 4; the 96B table of
		// §5.5.7 is the same two-row pattern.
		return a ^ (a>>3)&0x10
	case SwizzleTMA64B:
		return a ^ (a>>3)&0x30 // bits 7-8 into 4-5
	case SwizzleTMA128B:
		switch s.Atom {
		case Atom32B:
			return a ^ (a>>2)&0x60 // bits 7-8 into 5-6: 32-byte units
		case Atom32BFlip8B:
			return a ^ (a>>2)&0x60 ^ (a>>4)&0x08 // and bit 7 into bit 3: the 8-byte flip
		case Atom64B:
			return a ^ (a>>1)&0x40 // bit 7 into bit 6: 64-byte halves
		}
		return a ^ (a>>3)&0x70 // bits 7-9 into 4-6
	case SwizzleXOR:
		mask := uint64(1)<<uint(s.B) - 1
		return a ^ (a&(mask<<uint(s.M+s.S)))>>uint(s.S)
	}
	return a
}

// PatternBytes is the size of the repeating pattern (the alignment at which
// the base offset is 0): the table of §5.5.7 for the TMA modes, 2^(M+S+B)
// for Swizzle<B,M,S>, 128 with no swizzle.
func (s Swizzle) PatternBytes() int {
	switch s.Mode {
	case SwizzleTMA32B, SwizzleTMA96B:
		return 256
	case SwizzleTMA64B:
		return 512
	case SwizzleTMA128B:
		return 1024
	case SwizzleXOR:
		return 1 << uint(s.M+s.S+s.B)
	}
	return 128
}

// BaseOffset is the swizzle base offset of a destination address (§5.5.7):
// the row of the pattern, in 128-byte lines, at which dstMem starts; 0 on a
// PatternBytes boundary. Swizzle<B,M,S> has none (0).
func (s Swizzle) BaseOffset(dstMem uint64) int {
	switch s.Mode {
	case SwizzleTMA32B, SwizzleTMA96B:
		return int(dstMem/128) % 2
	case SwizzleTMA64B:
		return int(dstMem/128) % 4
	case SwizzleTMA128B:
		return int(dstMem/128) % 8
	}
	return 0
}

// TableRows is the number of 128-byte lines before the TMA mode's chunk
// permutation repeats (the rows of its §5.5.7 table).
func (s Swizzle) TableRows() int {
	switch s.Mode {
	case SwizzleTMA32B, SwizzleTMA96B:
		return 2
	case SwizzleTMA64B:
		return 4
	case SwizzleTMA128B:
		switch s.Atom {
		case Atom32B, Atom32BFlip8B:
			return 4
		case Atom64B:
			return 2
		}
		return 8
	}
	return 1
}

// Table is the pattern as §5.5.7 draws it: row r (a 128-byte line of a
// pattern that starts on its boundary), position p holds the 16-byte
// chunk that lands there. The 8-byte flip does not move chunks.
func (s Swizzle) Table() [][8]int {
	t := make([][8]int, s.TableRows())
	for r := range t {
		for c := 0; c < 8; c++ {
			p := s.Apply(uint64(r*128 + c*16))
			t[r][(p>>4)&7] = c
		}
	}
	return t
}

func (m SwizzleMode) String() string {
	switch m {
	case SwizzleNone:
		return "none"
	case SwizzleTMA32B:
		return "32B"
	case SwizzleTMA64B:
		return "64B"
	case SwizzleTMA96B:
		return "96B"
	case SwizzleTMA128B:
		return "128B"
	case SwizzleXOR:
		return "xor"
	}
	return fmt.Sprintf("mode(%d)", uint8(m))
}

func (a SwizzleAtom) String() string {
	switch a {
	case Atom16B:
		return "16B"
	case Atom32B:
		return "32B"
	case Atom32BFlip8B:
		return "32B-flip8B"
	case Atom64B:
		return "64B"
	}
	return fmt.Sprintf("atom(%d)", uint8(a))
}

// ParseSwizzleMode reads a mode name (String's spelling).
func ParseSwizzleMode(name string) (SwizzleMode, bool) {
	for m := SwizzleNone; m <= SwizzleXOR; m++ {
		if strings.EqualFold(m.String(), name) {
			return m, true
		}
	}
	return 0, false
}

// ParseSwizzleAtom reads an atomicity name (String's spelling).
func ParseSwizzleAtom(name string) (SwizzleAtom, bool) {
	for a := Atom16B; a <= Atom64B; a++ {
		if strings.EqualFold(a.String(), name) {
			return a, true
		}
	}
	return 0, false
}

// Formula is the address function in C notation.
func (s Swizzle) Formula() string {
	switch s.Mode {
	case SwizzleTMA32B, SwizzleTMA96B:
		return "a ^ ((a >> 3) & 0x10)"
	case SwizzleTMA64B:
		return "a ^ ((a >> 3) & 0x30)"
	case SwizzleTMA128B:
		switch s.Atom {
		case Atom32B:
			return "a ^ ((a >> 2) & 0x60)"
		case Atom32BFlip8B:
			return "a ^ ((a >> 2) & 0x60) ^ ((a >> 4) & 0x08)"
		case Atom64B:
			return "a ^ ((a >> 1) & 0x40)"
		}
		return "a ^ ((a >> 3) & 0x70)"
	case SwizzleXOR:
		mask := (uint64(1)<<uint(s.B) - 1) << uint(s.M+s.S)
		return fmt.Sprintf("a ^ ((a & %#x) >> %d)", mask, s.S)
	}
	return "a"
}

// Name is the pattern's display name.
func (s Swizzle) Name() string {
	switch s.Mode {
	case SwizzleNone:
		return "no swizzle"
	case SwizzleTMA128B:
		if s.Atom != Atom16B {
			return "TMA 128B, " + s.Atom.String() + " atomicity"
		}
		return "TMA 128B"
	case SwizzleXOR:
		return fmt.Sprintf("Swizzle<%d,%d,%d>", s.B, s.M, s.S)
	}
	return "TMA " + s.Mode.String()
}

// SharedBanks is the number of shared-memory banks, each 4 bytes wide.
const SharedBanks = 32

// Bank is the bank of the 4-byte word holding byte address a.
func Bank(a uint64) int { return int(a/4) % SharedBanks }

// Wavefronts is the number of shared-memory wavefronts one request for
// these byte addresses (each naming its 4-byte word) needs: the largest
// number of distinct words any one bank must serve. Lanes reading the same
// word share it (broadcast). No addresses: 0.
func Wavefronts(addrs []uint64) int {
	var perBank [SharedBanks]map[uint64]struct{}
	most := 0
	for _, a := range addrs {
		b := Bank(a)
		if perBank[b] == nil {
			perBank[b] = map[uint64]struct{}{}
		}
		perBank[b][a/4] = struct{}{}
		most = max(most, len(perBank[b]))
	}
	return most
}

// SwizzleTile is a tile of Rows rows of RowBytes bytes laid densely from
// byte address Base.
type SwizzleTile struct {
	Base     uint64
	RowBytes int
	Rows     int
}

// Limits of a tile the explorer draws.
const (
	SwizzleMaxRowBytes = 512
	SwizzleMaxRows     = 64
	SwizzleMaxBase     = 1 << 20
)

// Validate reports a tile the explorer cannot draw.
func (t SwizzleTile) Validate() error {
	switch {
	case t.RowBytes < 16 || t.RowBytes > SwizzleMaxRowBytes || t.RowBytes%16 != 0:
		return fmt.Errorf("row width must be a multiple of 16 bytes from 16 to %d", SwizzleMaxRowBytes)
	case t.Rows < 1 || t.Rows > SwizzleMaxRows:
		return fmt.Errorf("rows must be 1..%d", SwizzleMaxRows)
	case t.Base%128 != 0 || t.Base >= SwizzleMaxBase:
		return fmt.Errorf("the base address must be a multiple of 128 below %d", SwizzleMaxBase)
	}
	return nil
}

// Logical is the logical byte address of byte off of row r.
func (t SwizzleTile) Logical(r, off int) uint64 {
	return t.Base + uint64(r)*uint64(t.RowBytes) + uint64(off)
}

// ChunkWords is where the four 4-byte words of the 16-byte chunk c of row r
// land: their physical byte addresses in word order.
func (s Swizzle) ChunkWords(t SwizzleTile, r, c int) [4]uint64 {
	var w [4]uint64
	for i := range w {
		w[i] = s.Apply(t.Logical(r, c*16+i*4))
	}
	return w
}

// AccessPattern is a warp's access to a tile.
type AccessPattern uint8

const (
	// AccessRows: 32 lanes read 32 consecutive 4-byte words from the start
	// of a row (continuing into the next rows when a row is shorter).
	AccessRows AccessPattern = iota
	// AccessColumn: lane l reads the same 4-byte word of row l (rows 0-31).
	AccessColumn
	// AccessLdmatrix: one 8×8 ldmatrix phase: lane l (0-7) reads the 16
	// bytes of a 16-byte chunk column of row l.
	AccessLdmatrix
)

func (p AccessPattern) String() string {
	switch p {
	case AccessRows:
		return "row"
	case AccessColumn:
		return "column"
	case AccessLdmatrix:
		return "ldmatrix"
	}
	return fmt.Sprintf("pattern(%d)", uint8(p))
}

// SwizzleLane is one lane of an access: the logical row and byte in the
// row it starts at, and the physical addresses of the words it reads.
type SwizzleLane struct {
	Lane  int      `json:"lane"`
	Row   int      `json:"row"`
	Byte  int      `json:"byte"`
	Words []uint64 `json:"words"`
	Banks []int    `json:"banks"`
	// Conflict: one of its banks must also serve another word.
	Conflict bool `json:"conflict,omitempty"`
}

// SwizzleAccess is the conflict check of one access pattern.
type SwizzleAccess struct {
	Pattern string `json:"pattern"`
	// Sel is the row (row), word column (column) or chunk column (ldmatrix).
	Sel        int           `json:"sel"`
	Lanes      []SwizzleLane `json:"lanes"`
	Wavefronts int           `json:"wavefronts"`
	// Ideal is the wavefronts of the same number of words with no conflict.
	Ideal int `json:"ideal"`
}

// CheckAccess runs access pattern p (at selector sel, reduced into the
// row's range) over the tile swizzled by s.
func (s Swizzle) CheckAccess(t SwizzleTile, p AccessPattern, sel int) SwizzleAccess {
	words := t.RowBytes / 4
	chunks := t.RowBytes / 16
	var lanes []SwizzleLane
	add := func(lane, row, off, n int) {
		l := SwizzleLane{Lane: lane, Row: row, Byte: off}
		for i := 0; i < n; i++ {
			a := s.Apply(t.Logical(row, off+4*i))
			l.Words = append(l.Words, a)
			l.Banks = append(l.Banks, Bank(a))
		}
		lanes = append(lanes, l)
	}
	switch p {
	case AccessRows:
		sel = mod(sel, max(t.Rows, 1))
		for l := 0; l < 32; l++ {
			off := sel*t.RowBytes + 4*l
			add(l, off/t.RowBytes, off%t.RowBytes, 1)
		}
	case AccessColumn:
		sel = mod(sel, words)
		for l := 0; l < 32; l++ {
			add(l, l, sel*4, 1)
		}
	case AccessLdmatrix:
		sel = mod(sel, chunks)
		for l := 0; l < 8; l++ {
			add(l, l, sel*16, 4)
		}
	}
	var all []uint64
	wordsOf := map[int]map[uint64]struct{}{}
	for _, l := range lanes {
		for _, a := range l.Words {
			all = append(all, a)
			b := Bank(a)
			if wordsOf[b] == nil {
				wordsOf[b] = map[uint64]struct{}{}
			}
			wordsOf[b][a/4] = struct{}{}
		}
	}
	distinct := 0
	for i := range lanes {
		for _, b := range lanes[i].Banks {
			if len(wordsOf[b]) > 1 {
				lanes[i].Conflict = true
			}
		}
	}
	for _, ws := range wordsOf {
		distinct += len(ws)
	}
	return SwizzleAccess{
		Pattern: p.String(), Sel: sel, Lanes: lanes,
		Wavefronts: Wavefronts(all),
		Ideal:      (distinct + SharedBanks - 1) / SharedBanks,
	}
}

func mod(a, n int) int {
	a %= n
	if a < 0 {
		a += n
	}
	return a
}
