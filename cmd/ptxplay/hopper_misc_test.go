package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// `ptxplay check` reports nothing for setmaxnreg, griddepcontrol,
// elect.sync, createpolicy, .L2::cache_hint operands, prefetch and every
// fence form (in particular no "not supported"), and the kernel runs.
func TestCheckHopperMisc(t *testing.T) {
	file := filepath.Join("testdata", "hopper_misc.ptx")
	code, out, errs := cli(t, "", "check", "--json", file)
	if code != 0 || strings.TrimSpace(out) != "[]" {
		t.Fatalf("check: exit %d, diagnostics %s %s", code, out, errs)
	}
	code, out, errs = cli(t, "", "check", file)
	if code != 0 || strings.Contains(out, "not supported") || out != "" {
		t.Fatalf("check: exit %d: %s %s", code, out, errs)
	}
	spec := `{"ptx": "` + filepath.ToSlash(file) + `", "grid": [1], "block": [128],
		"buffers": [{"name": "a", "type": "u32", "count": 129, "init": {"fill": 7}}], "params": [{"buffer": "a"}]}`
	code, out, errs = cli(t, spec, "run", "--json-compact", "--no-check", "-")
	if code != 0 {
		t.Fatalf("run: exit %d: %s %s", code, out, errs)
	}
	m := resultOf(t, out)
	if m["status"] != "ok" {
		t.Fatalf("run: %v", m)
	}
	// a[0] was read with a cache hint and stored back; a[1+i] = 7 + i.
	got := values(t, m, "a")
	if !strings.HasPrefix(got, "[7,7,8,9,10,") || !strings.HasSuffix(got, ",133,134]") {
		t.Fatalf("run: a = %s", got)
	}
}
