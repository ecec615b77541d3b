package browser

import (
	"encoding/binary"
	"fmt"
	"strconv"
	"testing"

	"github.com/ptxplayground/ptxplay/engine/emu"
)

// memCellsJS reads the value cells of the memory view's table: the bits
// (hex, most significant first; null while unknown) and the text.
const memCellsJS = `[...document.querySelectorAll("#pg-tab-memory table.mem td.val:not(.pad)")].map((td) => ({hex: td.dataset.hex ?? null, text: td.textContent}))`

type memCell struct {
	Hex  *string `json:"hex"`
	Text string  `json:"text"`
}

// expectShared waits until the memory view shows the shared memory of the
// reference's first resident CTA as f32 elements (zeros before the first
// CTA is resident), and returns the cells.
func (tb *tab) expectShared(r *ref, what string) []memCell {
	tb.t.Helper()
	sh := make([]byte, r.prog.SharedStatic)
	if ctas := r.m.CTAs(); len(ctas) > 0 {
		sh = ctas[0].Shared()
	}
	var cells []memCell
	tb.waitFor("the shared memory "+what, func() string {
		cells = nil
		if err := tb.tryEval(memCellsJS, &cells); err != nil {
			return err.Error()
		}
		if len(cells) != len(sh)/4 {
			return fmt.Sprintf("%d cells, want %d", len(cells), len(sh)/4)
		}
		for i, c := range cells {
			want := binary.LittleEndian.Uint32(sh[4*i:])
			if c.Hex == nil {
				return fmt.Sprintf("sdata[%d] not known yet (%q)", i, c.Text)
			}
			got, err := strconv.ParseUint(*c.Hex, 16, 32)
			if err != nil || uint32(got) != want {
				return fmt.Sprintf("sdata[%d] = %s (%q), the emulator has %08x", i, *c.Hex, c.Text, want)
			}
		}
		return ""
	})
	return cells
}

// TestMemoryInPlace steps the shared-memory reduction with its shared
// memory on show and checks that the memory view updates its table in
// place: the table and its cells stay the same DOM nodes (tagged with a
// property before the steps) while the values they show change.
func TestMemoryInPlace(t *testing.T) {
	s := need(t)
	tb := s.newTab(t, "/?example=shared-reduction")
	tb.waitLoaded("shared-reduction.ptx")
	r := exampleRef(t, "shared-reduction")
	tb.showTab("memory")
	tb.click(`#pg-tab-memory .mem-tab[data-key="shared"]`)
	tb.waitJS("the shared memory tab", `document.querySelector('#pg-tab-memory .mem-tab[data-key="shared"]').getAttribute("aria-selected") === "true"`)
	before := tb.expectShared(r, "after the load")

	// Tag the table and a cell: a rebuilt table would lose them.
	tb.eval(`(() => {
		const t = document.querySelector("#pg-tab-memory table.mem");
		t.ptxTag = "kept";
		t.querySelector("td.val:not(.pad)").ptxTag = "kept";
		return true;
	})()`, nil)
	const keptJS = `(() => {
		const t = document.querySelector("#pg-tab-memory table.mem");
		return !!t && t.ptxTag === "kept" && t.querySelector("td.val:not(.pad)").ptxTag === "kept";
	})()`

	// Barrier by barrier (the CTAs release theirs in turn) until CTA 0's
	// shared memory has changed twice: its elements loaded, then the first
	// round's sums.
	changes := 0
	for i := 1; changes < 2; i++ {
		if i > 12 {
			t.Fatalf("CTA 0's shared memory changed %d times in %d barriers, want 2", changes, i-1)
		}
		tb.button("step-barrier")
		r.step(emu.StepToBarrier, 1)
		tb.waitAt(r)
		what := fmt.Sprintf("after %d barriers", i)
		after := tb.expectShared(r, what)
		changed := 0
		for k := range after {
			if *after[k].Hex != *before[k].Hex {
				changed++
			}
		}
		if changed > 0 {
			changes++
		}
		var kept bool
		tb.eval(keptJS, &kept)
		if !kept {
			t.Fatalf("the memory table was rebuilt %s (%d values changed); it should be updated in place", what, changed)
		}
		before = after
	}
	tb.screenshot("reduction-shared-memory")
}
