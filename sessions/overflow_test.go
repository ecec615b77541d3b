package sessions

import (
	"encoding/json"
	"strings"
	"testing"
)

// Sizes whose products wrap in 64 bits never reach the allocator: buffer
// counts are errors that name the buffer, grid and block dimensions are
// launch mismatches that name the dimension (fixed by the inferred
// launch), and the session goes on.
func TestOverflowingSpecs(t *testing.T) {
	c := newClient(t, newManager(t, Limits{}))
	buf := `"buffers":[{"name":"out","type":"u32","count":128}],"params":[{"buffer":"out"}]`
	errorsCases := []struct{ spec, want string }{
		{`{"grid":[1],"block":[32],"buffers":[{"name":"a","type":"u16","count":9223372036854775807}],"params":[{"buffer":"a"}]}`,
			`buffers[0] ("a"): count 9223372036854775807 of u16 (2-byte elements) exceeds the limit`},
		{`{"grid":[1],"block":[32],"buffers":[{"name":"a","type":"f64","count":2305843009213693952,"init":{"iota":{}}}],"params":[{"buffer":"a"}]}`,
			`buffers[0] ("a"): count 2305843009213693952 of f64 (8-byte elements) exceeds the limit`},
	}
	for _, k := range errorsCases {
		c.send(map[string]any{"type": "load", "id": 1, "source": divergentPTX, "spec": json.RawMessage(k.spec)})
		c.expect("diagnostics")
		if h := c.expectError("bad-request"); !strings.Contains(h.Message, k.want) {
			t.Errorf("%s: %q, want %q", k.spec, h.Message, k.want)
		}
	}
	fixCases := []struct{ spec, field, want string }{
		{`{"grid":[2],"block":[4611686018427387904,2,1],` + buf + `}`, "block", "block[0] is 4611686018427387904; at most 1024"},
		{`{"grid":[2],"block":[4294967296,4294967296,1],` + buf + `}`, "block", "block[0] is 4294967296; at most 1024"},
		{`{"grid":[2],"block":[224,7905747460161236407,1],` + buf + `}`, "block", "block[1] is 7905747460161236407; at most 1024"},
		{`{"grid":[4611686018427387904,2,1],"block":[64],` + buf + `}`, "grid", "grid[0] is 4611686018427387904; at most 2147483648"},
	}
	for _, k := range fixCases {
		c.send(map[string]any{"type": "load", "id": 2, "source": divergentPTX, "spec": json.RawMessage(k.spec)})
		c.expect("diagnostics")
		var l loadedMsg
		json.Unmarshal(c.expect("loaded"), &l)
		if l.Launch == nil || !l.Launch.Applied || len(l.Launch.Mismatches) == 0 {
			t.Fatalf("%s: launch %+v", k.spec, l.Launch)
		}
		if m := l.Launch.Mismatches[0]; m.Field != k.field || !strings.Contains(m.Message, k.want) {
			t.Errorf("%s: mismatch %+v, want %s: %q", k.spec, m, k.field, k.want)
		}
		threads := l.Block[0] * l.Block[1] * l.Block[2]
		if threads < 1 || threads > 1024 || l.TotalCTAs < 1 || l.WarpsPerCTA != (threads+31)/32 {
			t.Errorf("%s: loaded grid %v block %v, %d CTAs, %d warps per CTA", k.spec, l.Grid, l.Block, l.TotalCTAs, l.WarpsPerCTA)
		}
		if st, _ := c.state(); st.Status != "paused" {
			t.Errorf("%s: state %+v", k.spec, st)
		}
	}
	// The session still works.
	c.load(divergentPTX, divergentSpec)
	if st := c.step("warp", 1); st.Status != "paused" {
		t.Fatalf("step after the bad specs: %+v", st)
	}
}
