package emu

import (
	"fmt"

	"github.com/ptxplayground/ptxplay/engine/isa"
)

// The placement of a tile-mode bulk tensor copy (PTX §5.5.3, §5.5.6,
// §5.5.7): which global element lands where in shared memory. It is a pure
// function of the decoded tensor map, the tensor coordinates and the
// shared-memory destination address, so the copy instructions, the TMA
// view and the tests all use the same one.
//
// The box is traversed dimension 0 fastest. In dimension d it visits
// BoxElems(d) = ceil(boxDim[d] / elementStrides[d]) elements, the i-th at
// tensor coordinate coords[d] + i*elementStrides[d] (dimension 0's element
// stride is ignored without interleave, as the driver documents). The
// elements are packed densely into shared memory in traversal order (the
// ISA treats shared memory as linear), and every element's logical
// address dst + offset then goes through the map's swizzle, which is a
// function of the absolute shared-memory address (§5.5.7; a destination
// off the pattern's repeat boundary starts at that row of the pattern).
// An element with any coordinate outside [0, globalDim) is out of bounds:
// it reads nothing and its shared-memory bytes are the map's fill value.
// The transaction byte count is the whole box, out-of-bounds elements
// included.

// TMAMaxBoxBytes bounds the bytes one placement may describe (the largest
// shared memory of a CTA is far below it).
const TMAMaxBoxBytes = 1 << 20

// TMASharedAlign is the alignment cp.async.bulk.tensor requires of its
// shared-memory address.
const TMASharedAlign = 128

// TMAElement is one element of the box.
type TMAElement struct {
	// Coord is the element's tensor coordinate in each dimension.
	Coord [isa.TensorMaxRank]int64
	// OOB: some coordinate is outside the tensor; Global is then 0.
	OOB bool
	// Global is the byte address of the element in global memory.
	Global uint64
	// Shared is the byte offset from the destination address at which
	// the element lands, after the swizzle.
	Shared uint64
}

// TMAPlacement is where every element of one tile-mode copy goes.
type TMAPlacement struct {
	Rank      int
	ElemBytes int
	// Box is the number of elements in each dimension (BoxElems).
	Box [isa.TensorMaxRank]int
	// Elements in traversal order (dimension 0 fastest).
	Elements []TMAElement
	// TxBytes is the transaction byte count: every element of the box.
	TxBytes int64
	// Fill is the bytes an out-of-bounds element reads as.
	Fill []byte
	// Swizzle is the pattern applied.
	Swizzle isa.Swizzle
}

// TMAPlaceTile places a tile-mode copy of the box at coords (one per
// dimension of the map) to shared-memory address dst. The map must be
// valid (m.Validate); dst must be 128-byte aligned.
func TMAPlaceTile(m isa.TensorMap, coords []int32, dst uint64) (TMAPlacement, error) {
	if err := m.Validate(); err != nil {
		return TMAPlacement{}, fmt.Errorf("invalid tensor map: %w", err)
	}
	if len(coords) != m.Rank {
		return TMAPlacement{}, fmt.Errorf("the tensor map has rank %d but the copy gives %d coordinates", m.Rank, len(coords))
	}
	if dst%TMASharedAlign != 0 {
		return TMAPlacement{}, fmt.Errorf("the shared-memory address %#x of a tensor copy must be %d-byte aligned", dst, TMASharedAlign)
	}
	total := m.BoxBytes()
	if total > TMAMaxBoxBytes {
		return TMAPlacement{}, fmt.Errorf("the box is %d bytes, more than the %d a copy may move", total, TMAMaxBoxBytes)
	}
	p := TMAPlacement{
		Rank:      m.Rank,
		ElemBytes: m.ElemType.Bytes(),
		TxBytes:   total,
		Fill:      m.OOBFill(),
		Swizzle:   m.Swizzle(),
	}
	n := 1
	for d := 0; d < m.Rank; d++ {
		p.Box[d] = m.BoxElems(d)
		n *= p.Box[d]
	}
	p.Elements = make([]TMAElement, 0, n)
	var idx [isa.TensorMaxRank]int
	es := uint64(p.ElemBytes)
	for k := 0; k < n; k++ {
		var e TMAElement
		var addr uint64
		for d := 0; d < m.Rank; d++ {
			step := int64(m.ElementStrides[d])
			if d == 0 && m.Interleave == isa.InterleaveNone {
				step = 1
			}
			c := int64(coords[d]) + int64(idx[d])*step
			e.Coord[d] = c
			if c < 0 || uint64(c) >= m.GlobalDim[d] {
				e.OOB = true
				continue
			}
			if d == 0 {
				addr += uint64(c) * es
			} else {
				addr += uint64(c) * m.GlobalStrides[d-1]
			}
		}
		if !e.OOB {
			e.Global = m.GlobalAddress + addr
		}
		logical := dst + uint64(k)*es
		e.Shared = p.Swizzle.Apply(logical) - dst
		p.Elements = append(p.Elements, e)
		for d := 0; d < m.Rank; d++ {
			idx[d]++
			if idx[d] < p.Box[d] {
				break
			}
			idx[d] = 0
		}
	}
	return p, nil
}
