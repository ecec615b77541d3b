package share

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/ptxplayground/ptxplay/engine/isa"
)

// The view's "swizzle" part is the swizzle explorer's settings (ui/swizzle.ts
// SwizzleViewState): a pattern and tile that /api/swizzle accepts, the
// selectors of its three access checks, the check marked on the grid and
// whether it follows the paused kernel. Normalize checks it as the
// explorer would and writes it canonically (parameters a pattern does not
// use dropped, selectors reduced into the tile), so that equal views share
// one ID and a link never reopens an explorer the server refuses.

// SwizzleView is the explorer's part of a view.
type SwizzleView struct {
	Mode     string `json:"mode"`
	Atom     string `json:"atom,omitempty"`
	B        *int   `json:"b,omitempty"`
	M        *int   `json:"m,omitempty"`
	S        *int   `json:"s,omitempty"`
	RowBytes int    `json:"rowBytes"`
	Rows     int    `json:"rows"`
	Base     int    `json:"base"`
	Row      int    `json:"row"`
	Col      int    `json:"col"`
	Chunk    int    `json:"chunk"`
	// Unit is the cell width: 4, 8 or 16 bytes (0: 16, the default).
	Unit  int    `json:"unit,omitempty"`
	Focus string `json:"focus,omitempty"` // row, column or ldmatrix
	Live  *bool  `json:"live,omitempty"`
}

// Swizzle is the pattern the view names.
func (v *SwizzleView) Swizzle() (isa.Swizzle, error) {
	var sz isa.Swizzle
	m, ok := isa.ParseSwizzleMode(v.Mode)
	if !ok {
		return sz, fmt.Errorf("mode %q: want none, 32B, 64B, 96B, 128B or xor", v.Mode)
	}
	sz.Mode = m
	if v.Atom != "" {
		a, ok := isa.ParseSwizzleAtom(v.Atom)
		if !ok {
			return sz, fmt.Errorf("atom %q: want 16B, 32B, 32B-flip8B or 64B", v.Atom)
		}
		sz.Atom = a
	}
	if m == isa.SwizzleXOR {
		if v.B == nil || v.M == nil || v.S == nil {
			return sz, fmt.Errorf("Swizzle<B,M,S> needs b, m and s")
		}
		sz.B, sz.M, sz.S = *v.B, *v.M, *v.S
	}
	return sz, sz.Validate()
}

// normalizeSwizzleView checks and canonicalises a view's "swizzle" part.
func normalizeSwizzleView(raw json.RawMessage) (json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	var v SwizzleView
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	sz, err := v.Swizzle()
	if err != nil {
		return nil, err
	}
	tile := isa.SwizzleTile{Base: uint64(max(v.Base, 0)), RowBytes: v.RowBytes, Rows: v.Rows}
	if v.Base < 0 {
		return nil, fmt.Errorf("base %d is negative", v.Base)
	}
	if err := tile.Validate(); err != nil {
		return nil, err
	}
	for _, s := range []struct {
		name string
		v    int
	}{{"row", v.Row}, {"col", v.Col}, {"chunk", v.Chunk}} {
		if s.v < 0 {
			return nil, fmt.Errorf("%s %d is negative", s.name, s.v)
		}
	}
	switch v.Unit {
	case 0, 4, 8, 16:
	default:
		return nil, fmt.Errorf("unit %d: want 4, 8 or 16", v.Unit)
	}
	switch v.Focus {
	case "", "row", "column", "ldmatrix":
	default:
		return nil, fmt.Errorf("focus %q: want row, column or ldmatrix", v.Focus)
	}
	// Canonical: the mode and atom as isa spells them, b/m/s only for
	// Swizzle<B,M,S>, the default atom and focus left out, the selectors
	// reduced as the explorer reduces them.
	out := v
	out.Mode = sz.Mode.String()
	out.Atom = ""
	if sz.Mode == isa.SwizzleTMA128B && sz.Atom != isa.Atom16B {
		out.Atom = sz.Atom.String()
	}
	if sz.Mode != isa.SwizzleXOR {
		out.B, out.M, out.S = nil, nil, nil
	}
	out.Row %= tile.Rows
	out.Col %= tile.RowBytes / 4
	out.Chunk %= tile.RowBytes / 16
	if out.Focus == "column" {
		out.Focus = "" // the explorer's default
	}
	if out.Unit == 16 {
		out.Unit = 0 // the default: 16-byte chunks
	}
	if out.Live != nil && *out.Live {
		out.Live = nil // the default: follow the kernel
	}
	b, err := json.Marshal(out)
	return b, err
}

// MaxBreakpoints is the most breakpoints a view keeps per editor (the
// PTX's "breakpoints", kernel.cu's "cudaBreakpoints"; ui/draft.ts
// MAX_BREAKPOINTS).
const MaxBreakpoints = 1000

// normalizeCUDABreakpoints checks a view's "cudaBreakpoints": the
// kernel.cu lines with a breakpoint, each a line of cudaSource, at most
// MaxBreakpoints. Written ascending without repeats, so that equal views
// share one ID.
func normalizeCUDABreakpoints(raw json.RawMessage, cudaSource string) (json.RawMessage, error) {
	if len(raw) > MaxBreakpoints*16 {
		return nil, fmt.Errorf("more than %d breakpoints", MaxBreakpoints)
	}
	var lines []int64
	if err := json.Unmarshal(raw, &lines); err != nil {
		return nil, fmt.Errorf("want a list of kernel.cu line numbers")
	}
	if len(lines) > MaxBreakpoints {
		return nil, fmt.Errorf("%d breakpoints; the limit is %d", len(lines), MaxBreakpoints)
	}
	n := int64(strings.Count(cudaSource, "\n") + 1)
	for _, l := range lines {
		if l < 1 || l > n {
			return nil, fmt.Errorf("line %d is not a line of kernel.cu (1 to %d)", l, n)
		}
	}
	slices.Sort(lines)
	return json.Marshal(slices.Compact(lines))
}

// normalizeView canonicalises the parts of a view the server knows (the
// swizzle explorer's, the breakpoints on kernel.cu lines, which need
// cuda: the snapshot's CUDA, nil for a PTX kernel); the rest is kept as it
// is.
func normalizeView(view json.RawMessage, cuda *CUDA) (json.RawMessage, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(view, &fields); err != nil {
		return nil, err
	}
	_, hasSwizzle := fields["swizzle"]
	bps, hasBps := fields["cudaBreakpoints"]
	if !hasSwizzle && !hasBps {
		return view, nil
	}
	if hasBps {
		switch {
		case string(bps) == "null":
			delete(fields, "cudaBreakpoints")
		case cuda == nil:
			return nil, fmt.Errorf("cudaBreakpoints: the snapshot has no CUDA source")
		default:
			n, err := normalizeCUDABreakpoints(bps, cuda.Source)
			if err != nil {
				return nil, fmt.Errorf("cudaBreakpoints: %v", err)
			}
			if string(n) == "[]" {
				delete(fields, "cudaBreakpoints")
			} else {
				fields["cudaBreakpoints"] = n
			}
		}
	}
	if sw := fields["swizzle"]; hasSwizzle && string(sw) == "null" {
		delete(fields, "swizzle")
	} else if hasSwizzle {
		n, err := normalizeSwizzleView(sw)
		if err != nil {
			return nil, fmt.Errorf("swizzle: %v", err)
		}
		fields["swizzle"] = n
	}
	b, err := json.Marshal(fields)
	if err != nil {
		return nil, err
	}
	return canonicalObject(b)
}
