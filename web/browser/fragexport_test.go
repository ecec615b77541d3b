package browser

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ptxplayground/ptxplay/engine/emu"
	"github.com/ptxplayground/ptxplay/engine/isa"
)

// TestFragmentExportCaption: the Fragments tab's SVG and PNG exports,
// taken after stepping over mma-tile's ldmatrix, carry a caption with the
// kernel, the instruction's line, the step, the CTA and warp whose values
// are drawn and the form; the PNG is a real image drawn from the same
// picture. Screenshots at 1440×900, 1024×768 presenter and 390×844.
func TestFragmentExportCaption(t *testing.T) {
	s := need(t)
	e := example(t, "mma-tile")
	r := exampleRef(t, "mma-tile")
	ldPC := -1
	for pc := range r.prog.Ops {
		if r.prog.Ops[pc].Code == isa.OpLdmatrix {
			ldPC = pc
			break
		}
	}
	var obs tensorObs
	r.m.SetObserver(&obs)
	n := 0
	for obs.pc != ldPC {
		r.step(emu.StepWarpInstruction, 1)
		n++
	}
	line := 0
	for i, l := range strings.Split(e.Source, "\n") {
		if strings.Contains(l, "ldmatrix") && !strings.HasPrefix(strings.TrimSpace(l), "//") {
			line = i + 1
			break
		}
	}
	tb := s.newTab(t, "/?example=mma-tile")
	tb.waitLoaded("mma-tile.ptx")
	tb.viewport(1440, 900)
	tb.setCount(n)
	tb.button("step-warp")
	tb.waitAt(r)
	tb.showTab("fragments")
	tb.waitJS("the live ldmatrix", `document.querySelectorAll("#pg-tab-fragments .frag-rowaddr").length === 32`)
	// Catch the downloads: the blob each link offers, and its file name.
	tb.eval(`(() => { window.__dl = []; const made = URL.createObjectURL.bind(URL); let last = null;
		URL.createObjectURL = (b) => { last = b; return made(b); };
		HTMLAnchorElement.prototype.click = function () {
			const b = last, name = this.download;
			(b.type.includes("svg") ? b.text() : Promise.resolve("")).then((text) => window.__dl.push({name, type: b.type, size: b.size, text}));
		}; return true; })()`, nil)
	tb.click(`#pg-tab-fragments [data-export="svg"]`)
	tb.click(`#pg-tab-fragments [data-export="png"]`)
	tb.waitJS("two downloads", `window.__dl.length === 2`)
	var dl []struct {
		Name, Type, Text string
		Size             int
	}
	tb.eval(`window.__dl`, &dl)
	want := fmt.Sprintf("kernel %s · line %d · step %d · CTA #0 warp 0 · form ", e.Entry, line, n)
	for _, d := range dl {
		switch {
		case strings.HasSuffix(d.Name, ".svg"):
			if !strings.Contains(d.Text, want) || !strings.Contains(d.Text, "data-caption") {
				t.Errorf("the SVG %s has no caption %q: %.300s", d.Name, want, d.Text)
			}
		case strings.HasSuffix(d.Name, ".png"):
			if d.Type != "image/png" || d.Size < 1000 {
				t.Errorf("the PNG %s: %s, %d bytes", d.Name, d.Type, d.Size)
			}
		default:
			t.Errorf("download %q", d.Name)
		}
	}
	tb.atEverySize("fragments with export buttons", "frag-export")
}
