package web

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/ptxplayground/ptxplay/engine/isa"
)

func TestAPISwizzle(t *testing.T) {
	_, ts := newTestServer(t, nil, WSOptions{})
	resp, body := get(t, ts.URL+"/api/swizzle?mode=128B&rowBytes=128&rows=32&col=0&chunk=0")
	if resp.StatusCode != 200 {
		t.Fatalf("status %d: %s", resp.StatusCode, body)
	}
	var d swizzleDoc
	if err := json.Unmarshal([]byte(body), &d); err != nil {
		t.Fatal(err)
	}
	sz := isa.Swizzle{Mode: isa.SwizzleTMA128B}
	if d.Name != "TMA 128B" || d.Equivalent != "Swizzle<3,4,3>" || d.PatternBytes != 1024 || len(d.Table) != 8 {
		t.Errorf("header: %+v", d)
	}
	if len(d.Cells) != 32 || len(d.Cells[0]) != 8 {
		t.Fatalf("cells: %d×%d", len(d.Cells), len(d.Cells[0]))
	}
	for r := range d.Cells {
		for c := range d.Cells[r] {
			if want := sz.Apply(uint64(r*128 + c*16)); d.Cells[r][c][0] != want {
				t.Errorf("cell %d,%d: %#x, want %#x", r, c, d.Cells[r][c][0], want)
			}
		}
	}
	// Hand-computed: column access 4 wavefronts, ldmatrix 1, row 1.
	if len(d.Access) != 3 || d.Access[0].Wavefronts != 1 || d.Access[1].Wavefronts != 4 || d.Access[2].Wavefronts != 1 {
		t.Errorf("access: %+v", d.Access)
	}

	// Swizzle<B,M,S> by its parameters, the base offset, and the sub-modes.
	_, body = get(t, ts.URL+"/api/swizzle?mode=xor&b=2&m=4&s=3&base=384")
	d = swizzleDoc{}
	if err := json.Unmarshal([]byte(body), &d); err != nil {
		t.Fatal(err)
	}
	if d.Name != "Swizzle<2,4,3>" || d.Table != nil || d.Equivalent != "" || d.Formula != "a ^ ((a & 0x180) >> 3)" {
		t.Errorf("xor: %+v", d)
	}
	// Base 384 is line 3 of the pattern: chunk 0 of row 0 lands in chunk 3.
	if d.Cells[0][0][0] != 384+48 || d.Access[1].Wavefronts != 8 {
		t.Errorf("xor: %+v", d)
	}
	_, body = get(t, ts.URL+"/api/swizzle?mode=64B&base=384")
	d = swizzleDoc{}
	json.Unmarshal([]byte(body), &d)
	if d.BaseOffset != 3 {
		t.Errorf("64B at 384: base offset %d, want 3", d.BaseOffset)
	}
	_, body = get(t, ts.URL+"/api/swizzle?mode=128B&atom=32B-flip8B")
	d = swizzleDoc{}
	json.Unmarshal([]byte(body), &d)
	if fmt.Sprint(d.Cells[1][0]) != fmt.Sprint([]uint64{128 + 32 + 8, 128 + 32 + 12, 128 + 32, 128 + 32 + 4}) {
		t.Errorf("flip: row 1 chunk 0 words %v", d.Cells[1][0])
	}

	for _, q := range []string{
		"mode=256B", "atom=8B", "mode=64B&atom=32B", "mode=xor&b=3&s=2", "mode=xor&b=9",
		"rowBytes=24", "rowBytes=4096", "rows=0", "rows=65", "base=64", "base=-128", "col=x", "frob=1", "unit=2", "unit=12", "unit=32",
	} {
		resp, body := get(t, ts.URL+"/api/swizzle?"+q)
		if resp.StatusCode != 400 || !strings.Contains(body, `"error"`) {
			t.Errorf("%s: status %d %s", q, resp.StatusCode, body)
		}
	}
}

// TestAPISwizzleUnit: with unit=4 every cell is one 4-byte word, drawn
// where the swizzle puts it (Swizzle<5,2,5>, the transpose lesson's: word
// c of row r lands at word c ^ r), 32 to a 128-byte row; unit=8 halves
// of chunks.
func TestAPISwizzleUnit(t *testing.T) {
	_, ts := newTestServer(t, nil, WSOptions{})
	for _, unit := range []int{4, 8, 16} {
		resp, body := get(t, ts.URL+fmt.Sprintf("/api/swizzle?mode=xor&b=5&m=2&s=5&rows=32&unit=%d", unit))
		if resp.StatusCode != 200 {
			t.Fatalf("unit %d: status %d: %s", unit, resp.StatusCode, body)
		}
		var d swizzleDoc
		if err := json.Unmarshal([]byte(body), &d); err != nil {
			t.Fatal(err)
		}
		if d.Unit != unit || len(d.Cells) != 32 || len(d.Cells[0]) != 128/unit {
			t.Fatalf("unit %d: %d, %d×%d cells", unit, d.Unit, len(d.Cells), len(d.Cells[0]))
		}
		for r := range d.Cells {
			for c, ws := range d.Cells[r] {
				if len(ws) != unit/4 {
					t.Fatalf("unit %d cell %d,%d: %d words", unit, r, c, len(ws))
				}
				for i, w := range ws {
					word := c*unit/4 + i
					if want := uint64(r*128 + 4*(word^r)); w != want {
						t.Fatalf("unit %d cell %d,%d word %d: %d, want %d", unit, r, c, i, w, want)
					}
				}
			}
		}
	}
}
