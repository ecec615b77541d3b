package emu

import (
	"errors"
	"strings"
	"testing"

	"github.com/ptxplayground/ptxplay/engine/ptx"
)

// TestCheckConfig: each rejected configuration names its field.
func TestCheckConfig(t *testing.T) {
	src := ptx.NewSource("k.ptx", []byte(ctlHeader+".visible .entry k() .maxntid 256 { ret; }\n.visible .entry r() .reqntid 32, 2 { ret; }\n.visible .entry h() .maxntid 4294967296, 4294967296, 1 { ret; }\n.visible .entry z() .maxntid 4294967296, 4294967296, 16 { ret; }\n"))
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
		{"k", [3]int{1}, [3]int{1 << 40, 1 << 40, 1 << 40}, 0, "block", "block[0] is 1099511627776; at most 1024 (a block is at most 1024 x 1024 x 64)"},
		{"k", [3]int{1}, [3]int{8, 8, 65}, 0, "block", "block[2] is 65; at most 64"},
		{"k", [3]int{1}, [3]int{64, 32}, 0, "block", "block 64x32x1 has 2048 threads; the limit is 1024"},
		{"k", [3]int{1}, [3]int{-1}, 0, "block", "must be positive"},
		{"r", [3]int{1}, [3]int{32, 1}, 0, "block", "kernel r requires a block of 32x2x1 threads (.reqntid)"},
		{"r", [3]int{1}, [3]int{32, 2}, 0, "", ""},
		{"k", [3]int{1, 1 << 20}, [3]int{32}, 0, "grid", "grid[1] is 1048576; at most 65535 (a grid is at most 2147483648 x 65535 x 65535)"},
		{"k", [3]int{1 << 40, 1 << 40, 1 << 40}, [3]int{32}, 0, "grid", "grid[0] is 1099511627776; at most 2147483648"},
		{"k", [3]int{1}, [3]int{32}, 1 << 20, "dynamicSharedBytes", "shared memory of 0 + 1048576 bytes (static + dynamic) exceeds"},
		// Products that would wrap in 64 bits.
		{"k", [3]int{4611686018427387904, 2, 1}, [3]int{32}, 0, "grid", "grid[0] is 4611686018427387904; at most 2147483648"},
		{"k", [3]int{1 << 31, 65535, 65535}, [3]int{32}, 0, "grid", "has 9223090564025548800 CTAs; the limit is 2147483648"},
		{"k", [3]int{65536, 65535, 2}, [3]int{32}, 0, "grid", "CTAs; the limit is 2147483648"},
		{"k", [3]int{1}, [3]int{4611686018427387904, 2, 1}, 0, "block", "block[0] is 4611686018427387904; at most 1024"},
		{"k", [3]int{1}, [3]int{4294967296, 4294967296, 1}, 0, "block", "block[0] is 4294967296; at most 1024"},
		{"k", [3]int{1}, [3]int{224, 7905747460161236407, 1}, 0, "block", "block[1] is 7905747460161236407; at most 1024"},
		{"k", [3]int{1}, [3]int{32}, 1<<63 - 1, "dynamicSharedBytes", "exceeds the limit"},
		// .maxntid products that wrap to 0 (h) or to a large value (z)
		// do not limit the block.
		{"h", [3]int{1}, [3]int{1024}, 0, "", ""},
		{"z", [3]int{1}, [3]int{1024}, 0, "", ""},
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
