package web

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/ptxplayground/ptxplay/engine/isa"
)

// /api/fragments lists every wgmma form the emulator executes, and each
// one's layout is served on its own: D over the warpgroup's 128 threads.
func TestWgmmaFragmentsAPI(t *testing.T) {
	_, ts := newTestServer(t, nil, WSOptions{})
	resp, body := get(t, ts.URL+"/api/fragments")
	var doc fragmentDoc
	if resp.StatusCode != 200 || json.Unmarshal([]byte(body), &doc) != nil {
		t.Fatalf("status %d", resp.StatusCode)
	}
	if want := isa.WgmmaFormKeys(); len(doc.Wgmma) != len(want) || len(want) == 0 {
		t.Fatalf("%d wgmma forms listed, want %d", len(doc.Wgmma), len(want))
	}
	for _, k := range []string{"wgmma.m64n8k16.f32.f16.f16", "wgmma.m64n256k16.f16.f16.f16", "wgmma.m64n64k8.f32.tf32.tf32", "wgmma.m64n128k16.f32.bf16.bf16"} {
		resp, body := get(t, ts.URL+"/api/fragments/wgmma/"+k)
		var fi isa.FragInstr
		if resp.StatusCode != 200 || json.Unmarshal([]byte(body), &fi) != nil || fi.Key != k {
			t.Fatalf("%s: status %d %.200s", k, resp.StatusCode, body)
		}
		d := fi.Operand("d")
		lanes := map[uint8]bool{}
		for _, e := range d.Elems {
			lanes[e.Lane] = true
		}
		if d.Rows != 64 || len(d.Elems) != 64*d.Cols || len(lanes) != 128 {
			t.Errorf("%s: D %dx%d, %d elements over %d lanes", k, d.Rows, d.Cols, len(d.Elems), len(lanes))
		}
	}
	for _, bad := range []string{"wgmma.m64n12k16.f32.f16.f16", "mma.m16n8k16.row.col.f32.f16.f16.f32", strings.Repeat("x", 500)} {
		resp, body := get(t, ts.URL+"/api/fragments/wgmma/"+bad)
		if resp.StatusCode != 404 || !strings.Contains(body, "no wgmma form named") || len(body) > 400 {
			t.Errorf("%.40s: status %d %s", bad, resp.StatusCode, body)
		}
	}
}
