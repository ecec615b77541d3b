package isa

import (
	"fmt"
	"strings"
)

// wgmma matrix descriptors (PTX §9.7.15.5.1.2, "Shared Memory Matrix
// Layout" and "Matrix Descriptor Format"): the 64-bit value through which
// wgmma.mma_async reads an A or B operand from shared memory, and the
// canonical layouts it describes. This file is the one table the executor,
// the fragment explorer and the lessons read.
//
// Bit layout:
//
//	 0–13  start address >> 4         (matrix-descriptor-encode(x) = (x & 0x3FFFF) >> 4)
//	16–29  leading dimension byte offset >> 4 (LBO)
//	32–45  stride dimension byte offset >> 4  (SBO)
//	49–51  matrix base offset (swizzled modes only)
//	62–63  swizzle: 0 none, 1 128B, 2 64B, 3 32B
//	14–15, 30–31, 46–48, 52–61 reserved (zero)
//
// Layout rule. An operand is Rows (M or N) × K elements, K always 32 bytes
// (one wgmma K step). The ISA builds it from core matrices of 8 rows × 16
// bytes; with swizzle W bytes (16 for none, 32, 64, 128) a "row" of the
// swizzle atom is W bytes long. With T = 16 bytes / element size, the byte
// offset of element (r, k) from the start address is
//
//	K-major, none:     (r%8)*16  + (r/8)*SBO + (kb/16)*LBO + kb%16          kb = k*size
//	K-major, swizzled: (r%8)*W   + (r/8)*SBO + kb                           (LBO unused)
//	MN-major, none:    (r/T)*SBO + (k%8)*16  + (k/8)*LBO  + (r%T)*size
//	MN-major, swizzled:(c%w)*16  + (c/w)*LBO + (k%8)*W + (k/8)*SBO + (r%T)*size
//	                   c = r/T, w = W/16
//
// and the byte the hardware reads is the swizzle of the absolute address
// a = start + offset: phys = a ^ (((a >> 7) & mask) << 4), mask 0 (none), 1
// (32B), 3 (64B), 7 (128B) — isa.Swizzle's TMA 32B/64B/128B modes, the
// pattern TMA writes. Because the swizzle reads the absolute address, a
// descriptor advanced along K by adding to its start address (CUTLASS's
// descriptor iterator; compiled kernels step +32 bytes inside a 128-byte
// swizzled row with base offset 0) reads exactly the TMA-written tile.

// WgmmaSwizzle is a descriptor's swizzle field (bits 62–63).
type WgmmaSwizzle uint8

const (
	WgmmaSwizzleNone WgmmaSwizzle = 0
	WgmmaSwizzle128B WgmmaSwizzle = 1
	WgmmaSwizzle64B  WgmmaSwizzle = 2
	WgmmaSwizzle32B  WgmmaSwizzle = 3
)

// WgmmaSwizzles lists the four modes, no swizzle first, then by width.
var WgmmaSwizzles = []WgmmaSwizzle{WgmmaSwizzleNone, WgmmaSwizzle32B, WgmmaSwizzle64B, WgmmaSwizzle128B}

// Bytes is the width of a swizzle-atom row: 16 (a core-matrix row) with no
// swizzle, else 32, 64 or 128.
func (s WgmmaSwizzle) Bytes() int {
	switch s {
	case WgmmaSwizzle32B:
		return 32
	case WgmmaSwizzle64B:
		return 64
	case WgmmaSwizzle128B:
		return 128
	}
	return 16
}

// Pattern is the shared-memory swizzle the mode applies to absolute
// addresses (the TMA mode of the same width).
func (s WgmmaSwizzle) Pattern() Swizzle {
	switch s {
	case WgmmaSwizzle32B:
		return Swizzle{Mode: SwizzleTMA32B}
	case WgmmaSwizzle64B:
		return Swizzle{Mode: SwizzleTMA64B}
	case WgmmaSwizzle128B:
		return Swizzle{Mode: SwizzleTMA128B}
	}
	return Swizzle{Mode: SwizzleNone}
}

// PatternBytes is where the mode's repeating pattern starts (base offset
// 0): 1024, 512 or 256 bytes; 0 with no swizzle.
func (s WgmmaSwizzle) PatternBytes() int {
	if s == WgmmaSwizzleNone {
		return 0
	}
	return s.Pattern().PatternBytes()
}

func (s WgmmaSwizzle) String() string {
	switch s {
	case WgmmaSwizzleNone:
		return "none"
	case WgmmaSwizzle32B:
		return "32B"
	case WgmmaSwizzle64B:
		return "64B"
	case WgmmaSwizzle128B:
		return "128B"
	}
	return fmt.Sprintf("swizzle(%d)", uint8(s))
}

// ParseWgmmaSwizzle reads a mode name (String's spelling).
func ParseWgmmaSwizzle(name string) (WgmmaSwizzle, bool) {
	for _, s := range WgmmaSwizzles {
		if strings.EqualFold(s.String(), name) {
			return s, true
		}
	}
	return 0, false
}

// Descriptor field positions and limits.
const (
	wgdStartShift = 0
	wgdLBOShift   = 16
	wgdSBOShift   = 32
	wgdBaseShift  = 49
	wgdSwzShift   = 62
	wgdField14    = 1<<14 - 1
	wgdFieldMask  = wgdField14<<wgdStartShift | wgdField14<<wgdLBOShift |
		wgdField14<<wgdSBOShift | 7<<wgdBaseShift | 3<<wgdSwzShift

	// WgmmaDescWindow is the shared-memory window a descriptor addresses:
	// 14 bits of 16-byte units, 256 KiB.
	WgmmaDescWindow = 1 << 18
	// WgmmaDescReserved is the mask of the reserved bits.
	WgmmaDescReserved = ^uint64(wgdFieldMask)
)

// WgmmaDescriptor is a decoded matrix descriptor. Addresses and offsets are
// in bytes (the fields hold them >> 4).
type WgmmaDescriptor struct {
	// Start is the shared-memory byte address of the operand.
	Start uint32 `json:"start"`
	// LBO and SBO are the leading and stride dimension byte offsets.
	LBO uint32 `json:"lbo"`
	SBO uint32 `json:"sbo"`
	// BaseOffset is the matrix base offset (bits 49–51).
	BaseOffset uint8        `json:"baseOffset"`
	Swizzle    WgmmaSwizzle `json:"swizzle"`
	// Reserved holds the reserved bits of the raw value, in place.
	Reserved uint64 `json:"reserved,omitempty"`
}

// DecodeWgmmaDescriptor decodes a 64-bit descriptor. Every value decodes;
// Validate says whether it is a legal one.
func DecodeWgmmaDescriptor(v uint64) WgmmaDescriptor {
	field := func(shift uint) uint32 { return uint32(v>>shift&wgdField14) << 4 }
	return WgmmaDescriptor{
		Start:      field(wgdStartShift),
		LBO:        field(wgdLBOShift),
		SBO:        field(wgdSBOShift),
		BaseOffset: uint8(v >> wgdBaseShift & 7),
		Swizzle:    WgmmaSwizzle(v >> wgdSwzShift & 3),
		Reserved:   v & WgmmaDescReserved,
	}
}

// Encode packs the descriptor. A field that does not fit (an address or
// offset not a multiple of 16 or at or beyond 256 KiB, a base offset above
// 7, an unknown swizzle, reserved bits outside the reserved mask) is an
// error rather than a silently truncated value.
func (d WgmmaDescriptor) Encode() (uint64, error) {
	for _, f := range []struct {
		name string
		v    uint32
	}{{"start address", d.Start}, {"leading byte offset", d.LBO}, {"stride byte offset", d.SBO}} {
		if f.v%16 != 0 {
			return 0, fmt.Errorf("the %s %#x is not a multiple of 16 bytes", f.name, f.v)
		}
		if f.v >= WgmmaDescWindow {
			return 0, fmt.Errorf("the %s %#x is beyond the 256 KiB a descriptor can address", f.name, f.v)
		}
	}
	switch {
	case d.BaseOffset > 7:
		return 0, fmt.Errorf("the base offset %d does not fit its 3 bits", d.BaseOffset)
	case d.Swizzle > WgmmaSwizzle32B:
		return 0, fmt.Errorf("unknown swizzle mode %d", d.Swizzle)
	case d.Reserved&^WgmmaDescReserved != 0:
		return 0, fmt.Errorf("reserved bits %#x overlap the descriptor's fields", d.Reserved&^WgmmaDescReserved)
	}
	return uint64(d.Start>>4)<<wgdStartShift | uint64(d.LBO>>4)<<wgdLBOShift |
		uint64(d.SBO>>4)<<wgdSBOShift | uint64(d.BaseOffset)<<wgdBaseShift |
		uint64(d.Swizzle)<<wgdSwzShift | d.Reserved, nil
}

// Validate reports a descriptor the ISA does not allow, whatever the
// operand: reserved bits set, or a base offset with no swizzle (the field
// is valid for the swizzled modes only).
func (d WgmmaDescriptor) Validate() error {
	if d.Reserved != 0 {
		return fmt.Errorf("reserved descriptor bits are set (%#016x): bits 14–15, 30–31, 46–48 and 52–61 must be 0", d.Reserved)
	}
	if d.Swizzle == WgmmaSwizzleNone && d.BaseOffset != 0 {
		return fmt.Errorf("base offset %d with no swizzle: the matrix base offset is valid only for the 32B, 64B and 128B swizzles", d.BaseOffset)
	}
	return nil
}

// Advance is the descriptor with its start address moved by delta bytes,
// as a kernel steps along K by adding to the start-address field. The
// result must stay a multiple of 16 inside the 256 KiB window.
func (d WgmmaDescriptor) Advance(delta int64) (WgmmaDescriptor, error) {
	s := int64(d.Start) + delta
	if delta%16 != 0 {
		return d, fmt.Errorf("a start address moves in 16-byte units, not by %d bytes", delta)
	}
	if s < 0 || s >= WgmmaDescWindow {
		return d, fmt.Errorf("start address %#x%+d leaves the 256 KiB descriptor window", d.Start, delta)
	}
	d.Start = uint32(s)
	return d, nil
}

// String is the descriptor as the debugger shows it.
func (d WgmmaDescriptor) String() string {
	s := fmt.Sprintf("start %#x, LBO %d, SBO %d, swizzle %s", d.Start, d.LBO, d.SBO, d.Swizzle)
	if d.BaseOffset != 0 {
		s += fmt.Sprintf(", base offset %d", d.BaseOffset)
	}
	if d.Reserved != 0 {
		s += fmt.Sprintf(", reserved bits %#x", d.Reserved)
	}
	return s
}

// WgmmaMajor is an operand's major-ness: K-major (imm-trans 0) or MN-major
// (imm-trans 1, M-major A or N-major B).
type WgmmaMajor uint8

const (
	WgmmaKMajor WgmmaMajor = iota
	WgmmaMNMajor
)

func (m WgmmaMajor) String() string {
	if m == WgmmaMNMajor {
		return "MN-major"
	}
	return "K-major"
}

// WgmmaOperand is the shape of a shared-memory operand of one wgmma: Rows
// (M for A, N for B) × K elements of ElemBits bits each.
type WgmmaOperand struct {
	Major WgmmaMajor `json:"major"`
	// ElemBits is 8, 16 or 32 (e4m3/e5m2/s8/u8, f16/bf16, tf32), or 1 (b1,
	// K-major only).
	ElemBits int `json:"elemBits"`
	Rows     int `json:"rows"`
	K        int `json:"k"`
}

// Limits of an operand shape (wgmma's N reaches 256).
const (
	WgmmaMaxRows = 256
	// WgmmaKBytes is the K extent of one wgmma in bytes, for every type;
	// B of a sparse wgmma (wgmma.mma_async.sp) has twice it.
	WgmmaKBytes = 32
)

// Validate reports a shape that is not one wgmma reads.
func (o WgmmaOperand) Validate() error {
	switch o.ElemBits {
	case 8, 16, 32:
	case 1:
		if o.Major != WgmmaKMajor {
			return fmt.Errorf("b1 operands are K-major only")
		}
	default:
		return fmt.Errorf("element size %d bits: wgmma operands are 1, 8, 16 or 32 bits", o.ElemBits)
	}
	switch {
	case o.Major > WgmmaMNMajor:
		return fmt.Errorf("unknown major-ness %d", o.Major)
	case o.Rows < 8 || o.Rows > WgmmaMaxRows || o.Rows%8 != 0:
		return fmt.Errorf("%d rows: an operand has a multiple of 8 rows from 8 to %d", o.Rows, WgmmaMaxRows)
	case o.K*o.ElemBits != WgmmaKBytes*8 && (o.K*o.ElemBits != 2*WgmmaKBytes*8 || o.ElemBits == 1):
		return fmt.Errorf("a K extent of %d elements: one wgmma reads %d bytes of K, %d elements of %d bits (B of wgmma.mma_async.sp twice that)", o.K, WgmmaKBytes, WgmmaKBytes*8/o.ElemBits, o.ElemBits)
	}
	return nil
}

// WgmmaLayout is where every element of an operand lives in shared memory.
type WgmmaLayout struct {
	Desc    WgmmaDescriptor `json:"desc"`
	Operand WgmmaOperand    `json:"operand"`
	// Addr[r*K+k] is the physical byte address of element (r, k) (for b1,
	// the byte holding it; its bit is k%8), Logical[r*K+k] the address
	// before the swizzle.
	Addr    []uint64 `json:"addr"`
	Logical []uint64 `json:"logical"`
	// Notes are remarks that do not stop the layout (a start address
	// inside a swizzle pattern, strides off the pattern boundary).
	Notes []string `json:"notes,omitempty"`
}

// At is the physical byte address of element (r, k).
func (l *WgmmaLayout) At(r, k int) uint64 { return l.Addr[r*l.Operand.K+k] }

// CoreMatrix is the core matrix (8 rows × 16 bytes) element (r, k) belongs
// to: its index along the 8-row (strided) direction and along the 16-byte
// (contiguous) direction. K-major: (r/8, kbyte/16); MN-major: (k/8,
// mnbyte/16).
func (o WgmmaOperand) CoreMatrix(r, k int) (strided, contiguous int) {
	if o.Major == WgmmaMNMajor {
		return k / 8, r * o.ElemBits / 128
	}
	return r / 8, k * o.ElemBits / 128
}

// piece is the 16-byte piece of the operand element (r, k) is in: its
// line (row r K-major, K row k MN-major) and 16-byte chunk along the line.
func (o WgmmaOperand) piece(r, k int) [2]int {
	if o.Major == WgmmaMNMajor {
		return [2]int{k, r * o.ElemBits / 128}
	}
	return [2]int{r, k * o.ElemBits / 128}
}

// wgmmaOffset is the canonical byte offset (from the start address) of element
// (r, k), bits within the byte dropped.
func wgmmaOffset(d WgmmaDescriptor, o WgmmaOperand, r, k int) uint64 {
	w := uint64(d.Swizzle.Bytes())
	lbo, sbo := uint64(d.LBO), uint64(d.SBO)
	if o.Major == WgmmaKMajor {
		kb := uint64(k * o.ElemBits / 8)
		row := uint64(r%8)*w + uint64(r/8)*sbo
		if d.Swizzle == WgmmaSwizzleNone {
			return row + kb/16*lbo + kb%16
		}
		// The K of one swizzle row (w bytes); only the 64 bytes of K of
		// a sparse B under the 32-byte swizzle go past it, to a second
		// group of rows LBO on (docs/emulator.md).
		return row + kb/w*lbo + kb%w
	}
	mb := uint64(r * o.ElemBits / 8) // byte along MN
	c, in := mb/16, mb%16
	if d.Swizzle == WgmmaSwizzleNone {
		return c*sbo + uint64(k%8)*16 + uint64(k/8)*lbo + in
	}
	per := w / 16 // chunks per swizzle row
	return c%per*16 + c/per*lbo + uint64(k%8)*w + uint64(k/8)*sbo + in
}

// WgmmaOperandLayout lays operand o out through descriptor d: for every
// element the shared-memory byte the wgmma reads. It fails with a message
// for the user when the descriptor is invalid, the operand shape is not a
// wgmma's, the tile leaves the 256 KiB window, two 16-byte pieces of the
// operand land on the same bytes (LBO or SBO too small for the layout), or
// a nonzero base offset disagrees with the start address (the emulator
// swizzles absolute addresses, which is what the ISA's base-offset rule
// describes; any other base offset is not emulated).
func WgmmaOperandLayout(d WgmmaDescriptor, o WgmmaOperand) (*WgmmaLayout, error) {
	if err := d.Validate(); err != nil {
		return nil, err
	}
	if err := o.Validate(); err != nil {
		return nil, err
	}
	l := &WgmmaLayout{Desc: d, Operand: o}
	if d.Swizzle != WgmmaSwizzleNone {
		phase := uint8(d.Start >> 7 & 7)
		pb := d.Swizzle.PatternBytes()
		switch {
		case d.BaseOffset != 0 && d.BaseOffset != phase:
			return nil, fmt.Errorf("base offset %d does not match the start address %#x, whose 128-byte line in the pattern gives %d ((start >> 7) & 7); the emulator swizzles absolute addresses and does not emulate other base offsets", d.BaseOffset, d.Start, phase)
		case d.BaseOffset == 0 && int(d.Start)%pb >= 128:
			l.Notes = append(l.Notes, fmt.Sprintf("the start address %#x is %d bytes into a %d-byte %s swizzle pattern; the ISA asks for base offset %d when the pattern starts there, and the swizzle follows the absolute address either way", d.Start, int(d.Start)%pb, pb, d.Swizzle, phase))
		}
		for _, f := range []struct {
			name string
			v    uint32
			used bool
		}{
			{"stride byte offset", d.SBO, o.Major == WgmmaKMajor && o.Rows > 8 || o.Major == WgmmaMNMajor && o.K > 8},
			{"leading byte offset", d.LBO, o.Major == WgmmaMNMajor && o.Rows*o.ElemBits > d.Swizzle.Bytes()*8 || o.Major == WgmmaKMajor && o.K*o.ElemBits > d.Swizzle.Bytes()*8},
		} {
			if f.used && int(f.v)%pb != 0 {
				l.Notes = append(l.Notes, fmt.Sprintf("the %s %d is not a multiple of the %d-byte pattern, so the blocks it separates are swizzled with different rows of the pattern", f.name, f.v, pb))
			}
		}
	}
	n := o.Rows * o.K
	l.Addr = make([]uint64, n)
	l.Logical = make([]uint64, n)
	pat := d.Swizzle.Pattern()
	owner := map[uint64]int{} // 16-byte chunk -> first element index in it
	for r := 0; r < o.Rows; r++ {
		for k := 0; k < o.K; k++ {
			i := r*o.K + k
			a := uint64(d.Start) + wgmmaOffset(d, o, r, k)
			if a >= WgmmaDescWindow {
				return nil, fmt.Errorf("element (%d, %d) is at byte %#x, beyond the 256 KiB shared-memory window: the offsets are too large for this start address", r, k, a)
			}
			l.Logical[i] = a
			l.Addr[i] = pat.Apply(a)
			// The elements of one 16-byte piece of the operand share a
			// chunk; elements of different pieces must not.
			if j, ok := owner[a/16]; ok {
				rj, kj := j/o.K, j%o.K
				if o.piece(rj, kj) != o.piece(r, k) {
					return nil, fmt.Errorf("elements (%d, %d) and (%d, %d) are both read from the 16 bytes at %#x: %s", rj, kj, r, k, a&^15, overlapHint(d, o))
				}
			} else {
				owner[a/16] = i
			}
		}
	}
	return l, nil
}

// overlapHint names the offsets a colliding layout depends on.
func overlapHint(d WgmmaDescriptor, o WgmmaOperand) string {
	w := d.Swizzle.Bytes()
	if o.Major == WgmmaKMajor {
		if d.Swizzle == WgmmaSwizzleNone {
			return fmt.Sprintf("with no swizzle, K-major, the two 16-byte K halves are LBO (%d) apart and the 8-row groups SBO (%d) apart; each core matrix is 128 bytes, so they must not overlap", d.LBO, d.SBO)
		}
		return fmt.Sprintf("with the %s swizzle, K-major, each 8-row group is %d bytes and the groups are SBO (%d) apart", d.Swizzle, 8*w, d.SBO)
	}
	if d.Swizzle == WgmmaSwizzleNone {
		return fmt.Sprintf("with no swizzle, MN-major, the 16-byte MN pieces are SBO (%d) apart and the 8-K-row groups LBO (%d) apart; each core matrix is 128 bytes", d.SBO, d.LBO)
	}
	return fmt.Sprintf("with the %s swizzle, MN-major, each %d-byte MN block of 8 K rows is %d bytes, the MN blocks are LBO (%d) apart and the 8-K-row groups SBO (%d) apart", d.Swizzle, w, 8*w, d.LBO, d.SBO)
}

// Span is the smallest and one past the largest physical byte address the
// operand reads.
func (l *WgmmaLayout) Span() (lo, hi uint64) {
	lo = ^uint64(0)
	for _, a := range l.Addr {
		lo = min(lo, a)
		hi = max(hi, a+1)
	}
	if l.Operand.ElemBits > 8 {
		hi += uint64(l.Operand.ElemBits/8) - 1
	}
	return lo, hi
}

// CheckShared reports an operand that reads past the CTA's sharedBytes of
// shared memory, naming the first element that does.
func (l *WgmmaLayout) CheckShared(sharedBytes uint64) error {
	size := uint64(max(1, l.Operand.ElemBits/8))
	for i, a := range l.Addr {
		if a+size > sharedBytes {
			return fmt.Errorf("element (%d, %d) is read from shared byte %#x, outside the CTA's %d bytes of shared memory (%s)", i/l.Operand.K, i%l.Operand.K, a, sharedBytes, l.Desc)
		}
	}
	return nil
}
