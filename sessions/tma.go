package sessions

import (
	"strconv"

	"github.com/ptxplayground/ptxplay/engine/emu"
	"github.com/ptxplayground/ptxplay/engine/isa"
)

// The TMA view (the inspector's TMA tab): for the selected CTA, the
// selected warp's next instruction when it is a tensor copy
// (emu.Warp.NextTMA), else the last tensor copy the CTA issued
// (emu.CTA.LastTMA, part of the machine state, so exact after back and
// seek): its operands, the tensor map's fields, the box in the global
// tensor row by row with its out-of-bounds elements, and the tile of
// shared memory it fills, as the swizzle explorer's parameters
// (/api/swizzle draws it from the same isa.Swizzle the copy uses).

// maxTMARows bounds the box rows a TMA view lists (a box has up to 256^5
// elements); the rest are counted in rowsOmitted.
const maxTMARows = 64

// tmaJSON is the TMA view. Source is "next" (the selected warp's next
// instruction), "last" (the last tensor copy the selected CTA issued) or
// "none" (neither: every other field is absent).
type tmaJSON struct {
	Source string `json:"source"`
	// CTA (resident slot) and linear index of the CTA; the warp, lane,
	// pc and line of the instruction; op its opcode with modifiers.
	CTA    int `json:"cta"`
	Linear int `json:"linear"`
	Warp   int `json:"warp"`
	Lane   int `json:"lane"`
	PC     int `json:"pc"`
	Line   int `json:"line"`
	// CUDALine: the CUDA line of pc (CUDA programs; absent: none).
	CUDALine int    `json:"cudaLine,omitempty"`
	Op       string `json:"op,omitempty"`
	// Direction: "load" (global to shared), "store" (shared to global),
	// "reduce" (shared reduced into global; reduction names the
	// operation) or "prefetch" (no shared memory).
	Direction string `json:"direction,omitempty"`
	Reduction string `json:"reduction,omitempty"`
	// Multicast: a load's .multicast::cluster ctaMask (hex); absent
	// without one.
	Multicast string `json:"multicast,omitempty"`
	// Coords are the box's tensor coordinates, innermost first.
	Coords []int32 `json:"coords"`
	// MapAddr is the tensor map's address (hex); Map its fields (absent
	// when the bytes cannot be read or do not decode: Error says why).
	MapAddr string         `json:"mapAddr,omitempty"`
	Map     *tensorMapJSON `json:"map,omitempty"`
	// Shared is the shared-memory operand (hex), SharedRank the cluster
	// rank of the CTA it names and SharedOffset the offset there.
	Shared       string `json:"shared,omitempty"`
	SharedRank   int    `json:"sharedRank"`
	SharedOffset int64  `json:"sharedOffset"`
	// Mbarrier: a load's mbarrier operand (hex).
	Mbarrier string `json:"mbarrier,omitempty"`
	// Error: why the instruction faults (or would) with these operands;
	// the box and the tile are absent then.
	Error string   `json:"error,omitempty"`
	Box   *tmaBox  `json:"box,omitempty"`
	Tile  *tmaTile `json:"tile,omitempty"`
}

// tensorMapJSON is a tensor map's fields in the launch spec's spelling
// (dims innermost first; globalStrides in bytes for dimensions 1..rank-1);
// buffer names the launch buffer holding globalAddress (hex), if one does.
type tensorMapJSON struct {
	GlobalAddress  string   `json:"globalAddress"`
	Buffer         string   `json:"buffer,omitempty"`
	BufferOffset   int64    `json:"bufferOffset"`
	DataType       string   `json:"dataType"`
	Rank           int      `json:"rank"`
	GlobalDim      []uint64 `json:"globalDim"`
	GlobalStrides  []uint64 `json:"globalStrides"`
	BoxDim         []uint32 `json:"boxDim"`
	ElementStrides []uint32 `json:"elementStrides"`
	Interleave     string   `json:"interleave"`
	Swizzle        string   `json:"swizzle"`
	// SwizzleAtom: the 128B swizzle's atomicity (absent otherwise).
	SwizzleAtom string `json:"swizzleAtom,omitempty"`
	OOBFill     string `json:"oobFill"`
}

// tmaBox is the box in the global tensor: elems the elements it visits
// in each dimension, elemBytes, bytes the transaction byte count (the
// whole box, out-of-bounds elements included), elements and oob (how
// many are out of bounds), and its rows (dimension 0 across, one row per
// combination of the higher coordinates, in traversal order; the first
// maxTMARows, rowsOmitted counting the rest).
type tmaBox struct {
	Elems       []int        `json:"elems"`
	ElemBytes   int          `json:"elemBytes"`
	Bytes       int64        `json:"bytes"`
	Elements    int          `json:"elements"`
	OOB         int          `json:"oob"`
	X           []int64      `json:"x"`
	Rows        []tmaRowJSON `json:"rows"`
	RowsOmitted int          `json:"rowsOmitted"`
}

// tmaRowJSON is one row of the box: its coordinates in dimensions
// 1..rank-1 and the elements [inLo, inHi) of it that are in bounds (the
// rest are out of bounds; inLo == inHi: all of it).
type tmaRowJSON struct {
	Coords []int64 `json:"coords"`
	InLo   int     `json:"inLo"`
	InHi   int     `json:"inHi"`
}

// tmaTile is the shared-memory tile the box fills, as the swizzle
// explorer's parameters: mode and atom (its pattern), rowBytes (one row of
// the box, or 128 when that is not a multiple of 16 up to 512), rows (the
// rows drawn, at most 64), base (the offset of the tile in shared memory)
// and totalRows (all of the box's rows of rowBytes).
type tmaTile struct {
	Mode      string `json:"mode"`
	Atom      string `json:"atom,omitempty"`
	RowBytes  int    `json:"rowBytes"`
	Rows      int    `json:"rows"`
	TotalRows int    `json:"totalRows"`
	Base      int64  `json:"base"`
	// Bytes is the tile's size in shared memory (the whole box).
	Bytes int64 `json:"bytes"`
}

var tmSwizzleNames = [...]string{"none", "32B", "64B", "128B", "96B"}

func tmSwizzleName(m uint8) string {
	if int(m) < len(tmSwizzleNames) {
		return tmSwizzleNames[m]
	}
	return "mode(" + strconv.Itoa(int(m)) + ")"
}

// tmaView builds the TMA view of resident CTA ci with w its selected warp
// (w nil: none selected).
func (s *Session) tmaView(ci int, w *emu.Warp) *tmaJSON {
	ctas := s.m.CTAs()
	if ci < 0 || ci >= len(ctas) {
		return &tmaJSON{Source: "none"}
	}
	c := ctas[ci]
	src := "next"
	t, ok := emu.TMACopy{}, false
	if w != nil {
		t, ok = w.NextTMA()
	}
	if !ok {
		src = "last"
		t, ok = c.LastTMA()
	}
	if !ok {
		return &tmaJSON{Source: "none"}
	}
	j := &tmaJSON{Source: src, CTA: ci, Linear: c.Linear, Warp: t.Warp, Lane: t.Lane, PC: t.PC, Line: s.prog.line(t.PC), CUDALine: s.cline(t.PC), Op: s.prog.op(t.PC),
		Direction: t.Kind.String(), Coords: append([]int32{}, t.Coords[:t.Rank]...), MapAddr: strconv.FormatUint(t.MapAddr, 16)}
	if t.Kind == emu.TMAReduce {
		j.Reduction = t.Red.String()
	}
	if t.Multicast {
		j.Multicast = strconv.FormatUint(uint64(t.CTAMask), 16)
	}
	if t.Kind != emu.TMAPrefetch {
		j.Shared, j.SharedRank, j.SharedOffset = strconv.FormatUint(t.Shared, 16), t.SharedRank, int64(t.SharedOff)
	}
	if t.Kind == emu.TMALoad {
		j.Mbarrier = strconv.FormatUint(t.Mbar, 16)
	}
	if !t.MapOK {
		j.Error = t.MapErr
		return j
	}
	m, err := isa.DecodeTensorMap(t.Map[:])
	if err == nil {
		err = m.Validate()
	}
	if m.Rank >= 1 && m.Rank <= isa.TensorMaxRank {
		j.Map = s.tensorMapJSON(m)
	}
	if err != nil {
		j.Error = "the tensor map is not valid: " + err.Error()
		return j
	}
	if m.Rank != t.Rank {
		j.Error = "the tensor map has rank " + strconv.Itoa(m.Rank) + " but the copy gives " + strconv.Itoa(t.Rank) + " coordinates"
		return j
	}
	if t.Kind != emu.TMAPrefetch && t.SharedErr != "" {
		j.Error = t.SharedErr
	}
	if m.Mode == isa.TensorModeIm2col || t.Mode == isa.TensorModeIm2col {
		// The view draws tile-mode boxes; an im2col copy gathers a column
		// of pixels (docs/emulator.md), which it does not draw.
		if j.Error == "" {
			j.Error = "an im2col copy: " + strconv.Itoa(int(m.PixelsPerColumn)) + " pixels × " + strconv.Itoa(int(m.ChannelsPerPixel)) +
				" channels (" + strconv.FormatInt(m.BoxBytes(), 10) + " bytes); this view draws the boxes of tile-mode copies only"
		}
		return j
	}
	if n := m.BoxBytes(); n > emu.TMAMaxBoxBytes {
		if j.Error == "" {
			j.Error = "the box is " + strconv.FormatInt(n, 10) + " bytes, more than the " + strconv.Itoa(emu.TMAMaxBoxBytes) + " a copy may move"
		}
		return j
	}
	j.Box = tmaBoxJSON(m, t.Coords[:t.Rank])
	if t.Kind != emu.TMAPrefetch && t.SharedErr == "" {
		j.Tile = tmaTileJSON(m, t.SharedOff)
	}
	return j
}

func (s *Session) tensorMapJSON(m isa.TensorMap) *tensorMapJSON {
	r := m.Rank
	j := &tensorMapJSON{GlobalAddress: strconv.FormatUint(m.GlobalAddress, 16), DataType: m.ElemType.String(), Rank: r,
		GlobalDim: append([]uint64{}, m.GlobalDim[:r]...), GlobalStrides: append([]uint64{}, m.GlobalStrides[:r-1]...),
		BoxDim: append([]uint32{}, m.BoxDim[:r]...), ElementStrides: append([]uint32{}, m.ElementStrides[:r]...),
		Interleave: m.Interleave.String(), Swizzle: tmSwizzleName(m.SwizzleMode), OOBFill: "zero"}
	if m.SwizzleMode == isa.TMSwizzle128B {
		j.SwizzleAtom = m.SwizzleAtom.String()
	}
	if m.FillNaN {
		j.OOBFill = "nan"
	}
	if a := s.m.Global.Find(m.GlobalAddress, 1); a != nil {
		j.Buffer, j.BufferOffset = a.Name, int64(m.GlobalAddress-a.Base)
	}
	return j
}

// tmaAxis is the box along one dimension: the elements it visits (n),
// the first one's coordinate and the step between them, and the
// elements [lo, hi) inside the tensor.
type tmaAxis struct {
	n, lo, hi   int
	start, step int64
}

// tmaAxes walks the box as emu.TMAPlaceTile does (dimension 0's element
// stride ignored without interleave) without listing its elements.
func tmaAxes(m isa.TensorMap, coords []int32) []tmaAxis {
	ax := make([]tmaAxis, m.Rank)
	for d := range ax {
		a := tmaAxis{n: m.BoxElems(d), start: int64(coords[d]), step: int64(m.ElementStrides[d])}
		if d == 0 && m.Interleave == isa.InterleaveNone {
			a.step = 1
		}
		a.lo, a.hi = -1, -1
		for i := 0; i < a.n; i++ {
			if c := a.start + int64(i)*a.step; c >= 0 && uint64(c) < m.GlobalDim[d] {
				if a.lo < 0 {
					a.lo = i
				}
				a.hi = i + 1
			}
		}
		if a.lo < 0 {
			a.lo, a.hi = 0, 0
		}
		ax[d] = a
	}
	return ax
}

// tmaBoxJSON renders the box of map m at coords.
func tmaBoxJSON(m isa.TensorMap, coords []int32) *tmaBox {
	ax := tmaAxes(m, coords)
	b := &tmaBox{ElemBytes: m.ElemType.Bytes(), Bytes: m.BoxBytes(), Rows: []tmaRowJSON{}}
	total, in, rows := 1, 1, 1
	for d, a := range ax {
		b.Elems = append(b.Elems, a.n)
		total *= a.n
		in *= a.hi - a.lo
		if d > 0 {
			rows *= a.n
		}
	}
	b.Elements, b.OOB = total, total-in
	for i := 0; i < ax[0].n; i++ {
		b.X = append(b.X, ax[0].start+int64(i)*ax[0].step)
	}
	idx := make([]int, len(ax))
	for r := 0; r < rows; r++ {
		if r >= maxTMARows {
			b.RowsOmitted = rows - maxTMARows
			break
		}
		row := tmaRowJSON{Coords: []int64{}, InLo: ax[0].lo, InHi: ax[0].hi}
		for d := 1; d < len(ax); d++ {
			a := ax[d]
			row.Coords = append(row.Coords, a.start+int64(idx[d])*a.step)
			if idx[d] < a.lo || idx[d] >= a.hi {
				row.InLo, row.InHi = 0, 0
			}
		}
		b.Rows = append(b.Rows, row)
		for d := 1; d < len(ax); d++ {
			idx[d]++
			if idx[d] < ax[d].n {
				break
			}
			idx[d] = 0
		}
	}
	return b
}

// tmaTileJSON renders the shared-memory tile of map m's box at dst.
func tmaTileJSON(m isa.TensorMap, dst uint64) *tmaTile {
	bytes := m.BoxBytes()
	rowBytes := m.BoxElems(0) * m.ElemType.Bytes()
	if rowBytes < 16 || rowBytes > 512 || rowBytes%16 != 0 {
		rowBytes = 128
	}
	total := int((bytes + int64(rowBytes) - 1) / int64(rowBytes))
	t := &tmaTile{Mode: tmSwizzleName(m.SwizzleMode), RowBytes: rowBytes, Rows: min(total, 64), TotalRows: total, Base: int64(dst), Bytes: bytes}
	if m.SwizzleMode == isa.TMSwizzle128B {
		t.Atom = m.SwizzleAtom.String()
	}
	return t
}
