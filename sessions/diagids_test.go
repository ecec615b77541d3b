package sessions

import (
	"encoding/json"
	"strings"
	"testing"
)

// The websocket diagnostics carry each diagnostic's ID and its notes (the
// related places), as ptxplay check --json does: a label defined twice
// points at its first definition.
func TestDiagnosticsCarryIDAndNotes(t *testing.T) {
	c := newClient(t, newManager(t, Limits{}))
	src := hdr + ".visible .entry k() {\nL:\n\tbra.uni L;\nL:\n\tret;\n}\n"
	c.send(map[string]any{"type": "check", "id": 3, "source": src})
	raw := c.expect("diagnostics")
	var d diagnosticsMsg
	if err := json.Unmarshal(raw, &d); err != nil {
		t.Fatal(err)
	}
	if len(d.Items) != 1 {
		t.Fatalf("items %+v", d.Items)
	}
	m := d.Items[0]
	first := strings.Count(hdr, "\n") + 2 // the line of the first "L:"
	if m.ID != "duplicate-label" || m.Severity != "error" || m.Line != first+2 || len(m.Notes) != 1 {
		t.Fatalf("diagnostic %+v", m)
	}
	if n := m.Notes[0]; n.Line != first || n.Col != 1 || n.Message != "label L is first defined here" {
		t.Fatalf("note %+v", n)
	}
	if !strings.Contains(string(raw), `"id":"duplicate-label"`) || !strings.Contains(string(raw), `"notes":[{`) {
		t.Fatalf("wire: %s", raw)
	}
}
