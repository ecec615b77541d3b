package launch

import (
	"strings"
	"testing"

	"github.com/ptxplayground/ptxplay/engine/analysis"
	"github.com/ptxplayground/ptxplay/engine/isa"
)

// A warning about a register (the wgmma register rules) names the
// register in the result, not a shared-memory offset.
func TestWarningJSONRegister(t *testing.T) {
	r := &Result{Checked: true, Warnings: []analysis.Warning{{Kind: analysis.WarnWgmmaFence, Space: isa.Reg, Line: 9, PrevPC: 2, PrevLine: 8, Register: "%d0", Count: 4, Step: 65}}}
	out := string(r.AppendJSON(nil, false))
	if !strings.Contains(out, `"kind":"wgmma-missing-fence","space":"reg"`) || !strings.Contains(out, `"register":"%d0"`) || strings.Contains(out, `"offset"`) {
		t.Fatalf("warnings JSON %s", out)
	}
}
