package web

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"

	"github.com/ptxplayground/ptxplay/engine/isa"
)

// /api/swizzle serves the swizzle explorer: the engine's swizzle functions
// (isa.Swizzle) evaluated on one small tile. The explorer asks the server
// rather than repeating the formulas in TypeScript, so there is one
// implementation, the tested one. Parameters (all optional):
//
//	mode=none|32B|64B|96B|128B|xor  atom=16B|32B|32B-flip8B|64B (128B only)
//	b, m, s (xor)  rowBytes (16..512, multiple of 16)  rows (1..64)
//	base (multiple of 128)  row, col, chunk (the access checks' selectors)
//	unit=4|8|16 (the cell: a 4-byte bank word, 8 bytes or a 16-byte chunk)
//
// Anything else, or out of range, is a 400 naming the parameter.

// swizzleDoc is the /api/swizzle answer.
type swizzleDoc struct {
	Name    string `json:"name"`
	Formula string `json:"formula"`
	// Equivalent names the Swizzle<B,M,S> equal to a TMA mode.
	Equivalent   string `json:"equivalent,omitempty"`
	PatternBytes int    `json:"patternBytes"`
	BaseOffset   int    `json:"baseOffset"`
	// Table is the §5.5.7 table of the pattern (TMA modes and none).
	Table    [][8]int `json:"table,omitempty"`
	Base     uint64   `json:"base"`
	RowBytes int      `json:"rowBytes"`
	Rows     int      `json:"rows"`
	// Unit is the cell width in bytes: 4 (one bank word), 8 or 16.
	Unit int `json:"unit"`
	// Cells[r][c] are the physical byte addresses of the unit/4 words of
	// logical cell c (unit bytes) of row r.
	Cells  [][][]uint64        `json:"cells"`
	Access []isa.SwizzleAccess `json:"access"`
}

type paramError struct{ name, msg string }

func (e paramError) Error() string { return e.name + ": " + e.msg }

// intParam reads an optional integer parameter in [lo, hi].
func intParam(q url.Values, name string, def, lo, hi int) (int, error) {
	v := q.Get(name)
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < lo || n > hi {
		return 0, paramError{name, fmt.Sprintf("want an integer from %d to %d", lo, hi)}
	}
	return n, nil
}

var swizzleParams = map[string]bool{"mode": true, "atom": true, "b": true, "m": true, "s": true, "rowBytes": true, "rows": true, "base": true, "row": true, "col": true, "chunk": true, "unit": true}

// swizzleSel is the explorer's selection: the access checks' row, column
// and chunk, and the cell width.
type swizzleSel struct {
	row, col, chunk, unit int
}

// parseSwizzle reads the explorer's query.
func parseSwizzle(q url.Values) (isa.Swizzle, isa.SwizzleTile, swizzleSel, error) {
	var sz isa.Swizzle
	var tile isa.SwizzleTile
	sel := swizzleSel{unit: 16}
	for k := range q {
		if !swizzleParams[k] {
			return sz, tile, sel, paramError{k, "unknown parameter"}
		}
	}
	if v := q.Get("mode"); v != "" {
		m, ok := isa.ParseSwizzleMode(v)
		if !ok {
			return sz, tile, sel, paramError{"mode", "want none, 32B, 64B, 96B, 128B or xor"}
		}
		sz.Mode = m
	}
	if v := q.Get("atom"); v != "" {
		a, ok := isa.ParseSwizzleAtom(v)
		if !ok {
			return sz, tile, sel, paramError{"atom", "want 16B, 32B, 32B-flip8B or 64B"}
		}
		sz.Atom = a
	}
	var err error
	ints := []struct {
		dst         *int
		name        string
		def, lo, hi int
	}{
		{&sz.B, "b", 3, 0, isa.SwizzleMaxB}, {&sz.M, "m", 4, 0, isa.SwizzleMaxM}, {&sz.S, "s", 3, 0, isa.SwizzleMaxS},
		{&tile.RowBytes, "rowBytes", 128, 16, isa.SwizzleMaxRowBytes}, {&tile.Rows, "rows", 8, 1, isa.SwizzleMaxRows},
		{&sel.row, "row", 0, 0, isa.SwizzleMaxRows - 1}, {&sel.col, "col", 0, 0, isa.SwizzleMaxRowBytes/4 - 1}, {&sel.chunk, "chunk", 0, 0, isa.SwizzleMaxRowBytes/16 - 1},
		{&sel.unit, "unit", 16, 4, 16},
	}
	for _, p := range ints {
		if *p.dst, err = intParam(q, p.name, p.def, p.lo, p.hi); err != nil {
			return sz, tile, sel, err
		}
	}
	if sel.unit != 4 && sel.unit != 8 && sel.unit != 16 {
		return sz, tile, sel, paramError{"unit", "want 4, 8 or 16"}
	}
	base, err := intParam(q, "base", 0, 0, isa.SwizzleMaxBase-1)
	if err != nil {
		return sz, tile, sel, err
	}
	tile.Base = uint64(base)
	if sz.Mode != isa.SwizzleXOR {
		sz.B, sz.M, sz.S = 0, 0, 0
	}
	if err := sz.Validate(); err != nil {
		return sz, tile, sel, paramError{"mode", err.Error()}
	}
	if err := tile.Validate(); err != nil {
		return sz, tile, sel, paramError{"tile", err.Error()}
	}
	return sz, tile, sel, nil
}

// swizzleView evaluates the swizzle on the tile.
func swizzleView(sz isa.Swizzle, tile isa.SwizzleTile, sel swizzleSel) swizzleDoc {
	d := swizzleDoc{
		Name: sz.Name(), Formula: sz.Formula(), PatternBytes: sz.PatternBytes(), BaseOffset: sz.BaseOffset(tile.Base),
		Base: tile.Base, RowBytes: tile.RowBytes, Rows: tile.Rows, Unit: sel.unit,
	}
	if sz.Mode != isa.SwizzleXOR {
		d.Table = sz.Table()
	}
	if sz.Atom == isa.Atom16B {
		switch sz.Mode {
		case isa.SwizzleTMA32B:
			d.Equivalent = "Swizzle<1,4,3>"
		case isa.SwizzleTMA64B:
			d.Equivalent = "Swizzle<2,4,3>"
		case isa.SwizzleTMA128B:
			d.Equivalent = "Swizzle<3,4,3>"
		}
	}
	cells, words := tile.RowBytes/sel.unit, sel.unit/4
	d.Cells = make([][][]uint64, tile.Rows)
	for r := range d.Cells {
		d.Cells[r] = make([][]uint64, cells)
		for c := range d.Cells[r] {
			w := sz.ChunkWords(tile, r, c*sel.unit/16)
			off := c * sel.unit % 16 / 4
			d.Cells[r][c] = w[off : off+words : off+words]
		}
	}
	d.Access = []isa.SwizzleAccess{
		sz.CheckAccess(tile, isa.AccessRows, sel.row),
		sz.CheckAccess(tile, isa.AccessColumn, sel.col),
		sz.CheckAccess(tile, isa.AccessLdmatrix, sel.chunk),
	}
	return d
}

// handleSwizzle answers /api/swizzle.
func (s *Server) handleSwizzle(w http.ResponseWriter, r *http.Request) {
	sz, tile, sel, err := parseSwizzle(r.URL.Query())
	if err != nil {
		writeJSONError(w, http.StatusBadRequest, err.Error())
		return
	}
	b, err := json.Marshal(swizzleView(sz, tile, sel))
	if err != nil {
		writeJSONError(w, http.StatusInternalServerError, "encoding failed")
		return
	}
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("Cache-Control", "public, max-age=3600")
	w.Write(append(b, '\n'))
}
