package analysis

import (
	"os"
	"regexp"
	"testing"

	"github.com/ptxplayground/ptxplay/engine/ptx"
)

// Every warning kind of the checker is a diagnostic ID of the one table
// (ptx.IDs), so the kinds are documented and never renamed.
func TestWarningKindsAreDiagIDs(t *testing.T) {
	b, err := os.ReadFile("check.go")
	if err != nil {
		t.Fatal(err)
	}
	ms := regexp.MustCompile(`(?m)^\s+Warn\w+\s+WarningKind = "([^"]+)"`).FindAllStringSubmatch(string(b), -1)
	if len(ms) < 6 {
		t.Fatalf("found %d warning kinds", len(ms))
	}
	for _, m := range ms {
		if !ptx.KnownID(ptx.DiagID(m[1])) {
			t.Errorf("warning kind %q is not in ptx.IDs", m[1])
		}
	}
}
