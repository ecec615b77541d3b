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

// TMAPlacement is where every element of one copy goes.
type TMAPlacement struct {
	// Mode is the map's: tile or im2col.
	Mode      isa.TensorMapMode
	Rank      int
	ElemBytes int
	// Box is the number of elements in each dimension (BoxElems); in
	// im2col mode, the column the copy writes: Box[0] = channelsPerPixel
	// elements of each of Box[1] = pixelsPerColumn pixels.
	Box [isa.TensorMaxRank]int
	// Elements in traversal order (dimension 0 fastest; im2col: a pixel's
	// channels, then the next pixel).
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
	s := tmaSink{keep: true}
	p, err := tmaWalkTile(m, coords, dst, &s)
	p.Elements = s.elems
	return p, err
}

// TMARun is a run of consecutive elements of a placement (in traversal
// order) that one access moves: their global addresses are contiguous,
// their shared-memory offsets after the swizzle are contiguous, and they
// are all in bounds or all out of bounds. Under a swizzle a run is at most
// one 16-byte chunk; without one, a whole row of the box.
type TMARun struct {
	// First is the index of the run's first element in the placement's
	// Elements; N the number of elements.
	First, N int
	// OOB: the elements are out of bounds; Global is then 0.
	OOB bool
	// Global is the byte address of the first element in global memory,
	// Shared the byte offset from the destination at which it lands.
	Global, Shared uint64
}

// TMARunsTile is TMAPlaceTile as runs: the placement (without Elements)
// and its elements merged into maximal runs, appended to runs. It walks
// the box exactly as TMAPlaceTile does (the same walk, tmaWalkTile) and
// allocates nothing per element.
func TMARunsTile(m isa.TensorMap, coords []int32, dst uint64, runs []TMARun) (TMAPlacement, []TMARun, error) {
	s := tmaSink{runs: runs}
	p, err := tmaWalkTile(m, coords, dst, &s)
	return p, s.runs, err
}

// tmaSink receives the elements of a placement walk in traversal order:
// it keeps them (keep) or merges them into runs.
type tmaSink struct {
	keep  bool
	elems []TMAElement
	runs  []TMARun
	es    uint64
}

// start is called once the placement's element size and count are known.
func (s *tmaSink) start(es uint64, n int) {
	s.es = es
	if s.keep {
		s.elems = make([]TMAElement, 0, n)
	}
}

// add takes element k: appended, or merged into the last run when it
// continues it (the same out-of-bounds status, the next global address,
// the next shared offset).
func (s *tmaSink) add(k int, e *TMAElement) {
	if s.keep {
		s.elems = append(s.elems, *e)
		return
	}
	if n := len(s.runs); n > 0 {
		r := &s.runs[n-1]
		if r.First+r.N == k && r.OOB == e.OOB {
			next := uint64(r.N) * s.es
			if (e.OOB || r.Global+next == e.Global) && r.Shared+next == e.Shared {
				r.N++
				return
			}
		}
	}
	s.runs = append(s.runs, TMARun{First: k, N: 1, OOB: e.OOB, Global: e.Global, Shared: e.Shared})
}

// tmaWalkTile is the placement of a tile-mode copy: it checks the copy
// and gives every element of the box to s in traversal order.
func tmaWalkTile(m isa.TensorMap, coords []int32, dst uint64, s *tmaSink) (TMAPlacement, error) {
	p, err := tmaPlaceStart(m, isa.TensorModeTile, coords, dst)
	if err != nil {
		return p, err
	}
	n := 1
	for d := 0; d < m.Rank; d++ {
		p.Box[d] = m.BoxElems(d)
		n *= p.Box[d]
	}
	var idx [isa.TensorMaxRank]int
	es := uint64(p.ElemBytes)
	s.start(es, n)
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
		e.Shared = p.Swizzle.Apply(dst+uint64(k)*es) - dst
		s.add(k, &e)
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

// tmaPlaceStart checks what every placement requires (a valid map of the
// mode, one coordinate per dimension, an aligned destination, a bounded
// box) and fills the placement's common fields.
func tmaPlaceStart(m isa.TensorMap, mode isa.TensorMapMode, coords []int32, dst uint64) (TMAPlacement, error) {
	if err := m.Validate(); err != nil {
		return TMAPlacement{}, fmt.Errorf("invalid tensor map: %w", err)
	}
	if m.Mode != mode {
		return TMAPlacement{}, fmt.Errorf("the tensor map is in %s mode but the copy is in %s mode", m.Mode, mode)
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
	return TMAPlacement{
		Mode:      mode,
		Rank:      m.Rank,
		ElemBytes: m.ElemType.Bytes(),
		TxBytes:   total,
		Fill:      m.OOBFill(),
		Swizzle:   m.Swizzle(),
	}, nil
}

// The placement of an im2col-mode copy (PTX §5.5.4). A rank-r map is a
// batch of images: dimension 0 is C (channels), 1..r-2 the spatial
// dimensions W, H, D, and r-1 is N. The copy loads pixelsPerColumn pixels,
// channelsPerPixel elements each, and packs them densely into shared
// memory (pixel k's channel j at element k*channelsPerPixel + j) before
// the swizzle, exactly as a tile-mode copy packs its box.
//
//   - The coordinates in C and N are where the copy starts, as in tile
//     mode: channel j of every pixel is coords[0] + j.
//   - The coordinates in W, H, D are the filter base, which must lie in
//     the bounding box: in spatial dimension d, lower..upper inclusive with
//     lower = pixelBoxLowerCorner and upper = globalDim - 1 +
//     pixelBoxUpperCorner (isa.TensorMap.Im2colBox).
//   - The pixels are the filter base positions in traversal order, W
//     fastest: from the start, each next pixel is elementStrides[1] further
//     in W; past the box's upper edge W goes back to the lower corner and
//     H advances by its element stride, and so on through D; past the last
//     spatial dimension the position goes back to the lower corner in
//     every spatial dimension and N advances by one (the element strides
//     of C and N are not used).
//   - Each pixel reads the tensor at its base position plus the im2col
//     offsets (one per spatial dimension, W first).
//   - An element whose channel, pixel coordinate or image lies outside the
//     tensor (padding around an image, or a column that runs past the
//     last image) is out of bounds: it reads nothing and its bytes are the
//     fill. The transaction byte count is the whole column.

// TMAPlaceIm2col places an im2col-mode copy with tensor coordinates
// coords (one per dimension: C, the filter base in W[, H[, D]], N) and
// im2col offsets offs (one per spatial dimension, W first) to
// shared-memory address dst. The map must be a valid im2col map; dst must
// be 128-byte aligned. A tensor store's .im2col_no_offs mode passes zero
// offsets.
func TMAPlaceIm2col(m isa.TensorMap, coords []int32, offs []uint16, dst uint64) (TMAPlacement, error) {
	s := tmaSink{keep: true}
	p, err := tmaWalkIm2col(m, coords, offs, dst, &s)
	p.Elements = s.elems
	return p, err
}

// TMARunsIm2col is TMAPlaceIm2col as runs (see TMARunsTile).
func TMARunsIm2col(m isa.TensorMap, coords []int32, offs []uint16, dst uint64, runs []TMARun) (TMAPlacement, []TMARun, error) {
	s := tmaSink{runs: runs}
	p, err := tmaWalkIm2col(m, coords, offs, dst, &s)
	return p, s.runs, err
}

// tmaWalkIm2col is the placement of an im2col-mode copy: it checks the
// copy and gives every element of the column to s in traversal order.
func tmaWalkIm2col(m isa.TensorMap, coords []int32, offs []uint16, dst uint64, s *tmaSink) (TMAPlacement, error) {
	p, err := tmaPlaceStart(m, isa.TensorModeIm2col, coords, dst)
	if err != nil {
		return p, err
	}
	r := m.Rank
	if len(offs) != r-2 {
		return TMAPlacement{}, fmt.Errorf("a rank-%d im2col copy takes %d im2col offsets, got %d", r, r-2, len(offs))
	}
	for i, o := range offs {
		if int(o) > isa.Im2colOffsetMax(r) {
			return TMAPlacement{}, fmt.Errorf("im2col offset %d is %d, outside the rank-%d range 0..%d", i, o, r, isa.Im2colOffsetMax(r))
		}
	}
	var pos [isa.TensorMaxRank]int64
	for d := range r {
		pos[d] = int64(coords[d])
	}
	for d := 1; d < r-1; d++ {
		if lo, hi := m.Im2colBox(d); pos[d] < lo || pos[d] > hi {
			return TMAPlacement{}, fmt.Errorf("the filter base coordinate %d in dimension %d is outside the bounding box %d..%d", pos[d], d, lo, hi)
		}
	}
	cpp, ppc := int(m.ChannelsPerPixel), int(m.PixelsPerColumn)
	p.Box[0], p.Box[1] = cpp, ppc
	es := uint64(p.ElemBytes)
	s.start(es, cpp*ppc)
	for k := range ppc {
		// The pixel: its base position plus the offsets.
		var at TMAElement
		var addr uint64
		for d := 1; d < r; d++ {
			c := pos[d]
			if d < r-1 {
				c += int64(offs[d-1])
			}
			at.Coord[d] = c
			if c < 0 || uint64(c) >= m.GlobalDim[d] {
				at.OOB = true
				continue
			}
			addr += uint64(c) * m.GlobalStrides[d-1]
		}
		for j := range cpp {
			e := at
			c := pos[0] + int64(j)
			e.Coord[0] = c
			if c < 0 || uint64(c) >= m.GlobalDim[0] {
				e.OOB = true
			}
			if !e.OOB {
				e.Global = m.GlobalAddress + addr + uint64(c)*es
			}
			n := uint64(k*cpp + j)
			e.Shared = p.Swizzle.Apply(dst+n*es) - dst
			s.add(int(n), &e)
		}
		// The next pixel's base position.
		for d := 1; d < r; d++ {
			if d == r-1 {
				pos[d]++
				break
			}
			lo, hi := m.Im2colBox(d)
			pos[d] += int64(m.ElementStrides[d])
			if pos[d] <= hi {
				break
			}
			pos[d] = lo
		}
	}
	return p, nil
}
