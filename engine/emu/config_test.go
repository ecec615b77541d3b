package emu

import (
	"errors"
	"strings"
	"testing"

	"github.com/ptxplayground/ptxplay/engine/ptx"
)

// TestCheckConfig: each rejected configuration names its field.
func TestCheckConfig(t *testing.T) {
	src := ptx.NewSource("k.ptx", []byte(ctlHeader+".visible .entry k() .maxntid 256 { ret; }\n.visible .entry r() .reqntid 32, 2 { ret; }\n"))
	p, diags := CompileSource(src)
	if p == nil {
		t.Fatal(diags)
	}
	cases := []struct {
		entry       string
		grid, block [3]int
		shared      int
		field, want string
	}{
		{"k", [3]int{4}, [3]int{128}, 0, "", ""},
		{"k", [3]int{1}, [3]int{512}, 0, "block", "kernel k allows at most 256 threads per block (.maxntid)"},
		{"k", [3]int{1}, [3]int{1 << 40, 1 << 40, 1 << 40}, 0, "block", "exceeds the limit of 1024 threads"},
		{"k", [3]int{1}, [3]int{8, 8, 65}, 0, "block", "exceeds the limit of 1024 (and z <= 64)"},
		{"k", [3]int{1}, [3]int{-1}, 0, "block", "must be positive"},
		{"r", [3]int{1}, [3]int{32, 1}, 0, "block", "kernel r requires a block of 32x2x1 threads (.reqntid)"},
		{"r", [3]int{1}, [3]int{32, 2}, 0, "", ""},
		{"k", [3]int{1, 1 << 20}, [3]int{32}, 0, "grid", "grid too large"},
		{"k", [3]int{1 << 40, 1 << 40, 1 << 40}, [3]int{32}, 0, "grid", "grid too large"},
		{"k", [3]int{1}, [3]int{32}, 1 << 20, "dynamicSharedBytes", "shared memory of 1048576 bytes exceeds"},
	}
	for _, c := range cases {
		cfg := Config{Grid: c.grid, Block: c.block, DynamicSharedBytes: c.shared}
		err := CheckConfig(p, p.Function(c.entry), &cfg)
		var ce *ConfigError
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%+v: %v", c, err)
		case c.want == "":
			if cfg.Grid[1] != 1 || cfg.Block[2] != 1 {
				t.Errorf("%+v: not normalised: %+v", c, cfg)
			}
		case !errors.As(err, &ce) || ce.Field != c.field || !strings.Contains(err.Error(), c.want):
			t.Errorf("%+v: got %v (%+v)", c, err, ce)
		}
		if _, merr := NewMachine(p, c.entry, Config{Grid: c.grid, Block: c.block, DynamicSharedBytes: c.shared}); (merr == nil) != (err == nil) {
			t.Errorf("%+v: NewMachine says %v, CheckConfig %v", c, merr, err)
		}
	}
}
