package launchspec

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const exampleSpec = `{"ptx": "kernel.ptx", "entry": "name", "grid": [1,1,1], "block": [32,1,1],
 "dynamicSharedBytes": 0, "maxWarpInstructions": 0,
 "buffers": [{"name": "a", "type": "f32", "count": 4, "init": {"values": [1, 2.5, "NaN", "0x7f800000"]}},
             {"name": "b", "type": "u32", "count": 64, "init": {"iota": {"start": 0, "step": 1}}},
             {"name": "c", "type": "f16", "count": 64, "init": {"fill": 0}},
             {"name": "d", "type": "u8", "count": 8, "init": {"bytes": "0001020304050607"}},
             {"name": "e", "type": "f32", "count": 64}],
 "params": [{"buffer": "a"}, {"u32": 64}, {"s32": -1}, {"u64": 0}, {"f32": 1.5}]}`

func TestParseSpecExample(t *testing.T) {
	s, err := ParseSpec([]byte(exampleSpec))
	if err != nil {
		t.Fatal(err)
	}
	if s.PTX != "kernel.ptx" || s.Entry != "name" || s.Grid != [3]int{1, 1, 1} || s.Block != [3]int{32, 1, 1} {
		t.Errorf("header: %+v", s)
	}
	if len(s.Buffers) != 5 || s.Buffers[4].Name != "e" || s.Buffers[4].Init != nil || s.Buffers[1].Count != 64 {
		t.Errorf("buffers: %+v", s.Buffers)
	}
	if got := s.Buffers[0].Init.Values; len(got) != 4 || got[2] != "NaN" || got[1] != "2.5" {
		t.Errorf("values: %q", got)
	}
	if len(s.Params) != 5 || s.Params[0].Buffer != "a" || s.Params[2].Type != "s32" || s.Params[2].Values[0] != "-1" {
		t.Errorf("params: %+v", s.Params)
	}
	// A spec marshals back to an equivalent spec.
	out, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	s2, err := ParseSpec(out)
	if err != nil {
		t.Fatalf("re-parsing %s: %v", out, err)
	}
	out2, _ := json.Marshal(s2)
	if string(out) != string(out2) {
		t.Errorf("round trip:\n%s\n%s", out, out2)
	}
	for _, frag := range []string{`"values":[1,2.5,"NaN","0x7f800000"]`, `{"buffer":"a"}`, `{"f32":1.5}`, `"block":[32,1,1]`} {
		if !strings.Contains(string(out), frag) {
			t.Errorf("marshalled spec lacks %s:\n%s", frag, out)
		}
	}
}

func TestParseSpecDefaults(t *testing.T) {
	s, err := ParseSpec([]byte(`{"source": ".version 8.0", "grid": [4], "block": [8, 2],
		"buffers": [{"name": "v", "type": "u16", "init": {"values": [1, 2, 3]}},
		            {"name": "w", "type": "u32", "init": {"bytes": "0x0100000002000000"}}],
		"params": [{"f32": [1, 2]}, {"buffer": "v", "offset": 2}, {"bytes": "00ff"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if s.Grid != [3]int{4, 1, 1} || s.Block != [3]int{8, 2, 1} {
		t.Errorf("dims %v %v", s.Grid, s.Block)
	}
	if s.Buffers[0].Count != 3 || s.Buffers[1].Count != 2 {
		t.Errorf("implied counts %d %d", s.Buffers[0].Count, s.Buffers[1].Count)
	}
	if p := s.Params[0]; p.Type != "f32" || len(p.Values) != 2 {
		t.Errorf("array param %+v", p)
	}
	if p := s.Params[1]; p.Buffer != "v" || p.Offset != 2 {
		t.Errorf("offset param %+v", p)
	}
	if p := s.Params[2]; p.Bytes == nil || *p.Bytes != "00ff" {
		t.Errorf("bytes param %+v", p)
	}
	out, _ := json.Marshal(s.Params)
	if string(out) != `[{"f32":[1,2]},{"buffer":"v","offset":2},{"bytes":"00ff"}]` {
		t.Errorf("params marshal to %s", out)
	}
}

func TestParseSpecErrors(t *testing.T) {
	cases := []struct{ spec, want string }{
		{``, "empty spec"},
		{`[]`, "a spec is a JSON object, not a JSON array"},
		{`{"ptx": "k.ptx"`, "unexpected EOF"},
		{`{"ptx": "k.ptx"} {}`, "unexpected data after the spec"},
		{`{"ptx": "k.ptx", "grdi": [1]}`, `unknown field "grdi"`},
		{`{"entry": "k"}`, `missing "ptx"`},
		{`{"ptx": "k.ptx", "source": "x"}`, "not both"},
		{`{"ptx": "k.ptx", "version": 2}`, "unsupported spec version 2"},
		{`{"ptx": "k.ptx", "grid": [1, 1, 1, 1]}`, "grid has 4 dimensions"},
		{`{"ptx": "k.ptx", "block": [0]}`, "block[0] is 0"},
		{`{"ptx": "k.ptx", "grid": "x"}`, "grid: expected an array"},
		{`{"ptx": "k.ptx", "dynamicSharedBytes": -1}`, "dynamicSharedBytes is -1"},
		{`{"ptx": "k.ptx", "maxWarpInstructions": -5}`, "maxWarpInstructions is -5"},
		{`{"ptx": "k.ptx", "buffers": [{"type": "u32", "count": 1}]}`, `buffers[0]: missing "name"`},
		{`{"ptx": "k.ptx", "buffers": [{"name": "a", "count": 1}]}`, `buffers[0] ("a"): missing "type"`},
		{`{"ptx": "k.ptx", "buffers": [{"name": "a", "type": "i32", "count": 1}]}`, `unknown type "i32"`},
		{`{"ptx": "k.ptx", "buffers": [{"name": "a", "type": "u32"}]}`, `"count" is required`},
		{`{"ptx": "k.ptx", "buffers": [{"name": "a", "type": "u32", "count": -1}]}`, "count is -1"},
		{`{"ptx": "k.ptx", "buffers": [{"name": "a", "type": "u32", "count": 1, "colour": 1}]}`, `unknown field "colour"`},
		{`{"ptx": "k.ptx", "buffers": [{"name": "a", "type": "u32", "count": 1}, {"name": "a", "type": "u8", "count": 1}]}`, `buffers[1] ("a"): name "a" is already used by buffers[0]`},
		{`{"ptx": "k.ptx", "buffers": [{"name": "a", "type": "f64", "count": 200000000}]}`, `buffers[0] ("a"): count 200000000 of f64 (8-byte elements) exceeds the limit of 1073741824 bytes`},
		// Sizes that wrap in 64 bits.
		{`{"ptx": "k.ptx", "buffers": [{"name": "a", "type": "u16", "count": 9223372036854775807}]}`, `buffers[0] ("a"): count 9223372036854775807 of u16 (2-byte elements) exceeds the limit`},
		{`{"ptx": "k.ptx", "buffers": [{"name": "a", "type": "f64", "count": 2305843009213693952, "init": {"iota": {}}}]}`, `buffers[0] ("a"): count 2305843009213693952 of f64`},
		{`{"ptx": "k.ptx", "buffers": [{"name": "a", "type": "u8", "count": 1073741000}, {"name": "b", "type": "u64", "count": 2305843009213693952}]}`, `buffers[1] ("b"): count 2305843009213693952 of u64 (8-byte elements) exceeds the limit of 1073741824 bytes for all buffers together (824 bytes left)`},
		{`{"ptx": "k.ptx", "buffers": [{"name": "a", "type": "u8", "count": 9223372036854775808}]}`, `buffers.count: expected an integer, got JSON number 9223372036854775808`},
		{`{"ptx": "k.ptx", "buffers": [{"name": "a", "type": "u32", "count": 2, "init": {"values": [1, 2, 3]}}]}`, "3 values for a buffer of 2 elements"},
		{`{"ptx": "k.ptx", "buffers": [{"name": "a", "type": "u8", "count": 2, "init": {"values": [1, 256]}}]}`, `buffers[0] ("a"): init: values[1]: 256 is out of range for u8`},
		{`{"ptx": "k.ptx", "buffers": [{"name": "a", "type": "u8", "count": 2, "init": {"values": [1, true]}}]}`, `values[1]: "true" is not a number`},
		{`{"ptx": "k.ptx", "buffers": [{"name": "a", "type": "f32", "count": 2, "init": {"values": ["Nan?"]}}]}`, `values[0]: "Nan?" is not a number`},
		{`{"ptx": "k.ptx", "buffers": [{"name": "a", "type": "u8", "count": 2, "init": {}}]}`, "needs exactly one of"},
		{`{"ptx": "k.ptx", "buffers": [{"name": "a", "type": "u8", "count": 2, "init": {"fill": 1, "values": [1]}}]}`, "(got 2)"},
		{`{"ptx": "k.ptx", "buffers": [{"name": "a", "type": "u8", "count": 2, "init": {"bytes": "010203"}}]}`, "bytes: 3 bytes for a buffer of 2 bytes"},
		{`{"ptx": "k.ptx", "buffers": [{"name": "a", "type": "u8", "count": 2, "init": {"bytes": "0g"}}]}`, `invalid hex digit 'g'`},
		{`{"ptx": "k.ptx", "buffers": [{"name": "a", "type": "u8", "count": 2, "init": {"bytes": "012"}}]}`, "odd number of hex digits"},
		{`{"ptx": "k.ptx", "buffers": [{"name": "a", "type": "u8", "count": 2, "init": {"iota": {"start": -1}}}]}`, "iota: start: -1 is out of range for u8"},
		{`{"ptx": "k.ptx", "buffers": [{"name": "a", "type": "f32", "count": 2, "init": {"iota": {"step": "x"}}}]}`, "iota: step:"},
		{`{"ptx": "k.ptx", "buffers": [{"name": "a", "type": "f32", "count": 2, "init": {"random": {"seed": 1, "min": 1, "max": 0}}}]}`, "random: min 1 is greater than max 0"},
		{`{"ptx": "k.ptx", "buffers": [{"name": "a", "type": "u8", "count": 2, "init": {"random": {"seed": 1, "min": 3, "max": 2}}}]}`, "random: min 3 is greater than max 2"},
		{`{"ptx": "k.ptx", "buffers": [{"name": "a", "type": "f32", "count": 2, "init": {"random": {"seed": 1, "max": "Inf"}}}]}`, "must be finite"},
		{`{"ptx": "k.ptx", "buffers": [{"name": "a", "type": "f32", "count": 2, "init": {"random": {"sed": 1}}}]}`, `unknown field "sed"`},
		{`{"ptx": "k.ptx", "params": [{"buffer": "nope"}]}`, `params[0]: no buffer named "nope"`},
		{`{"ptx": "k.ptx", "params": [{"u32": 1, "s32": 2}]}`, "params[0]: a parameter needs exactly one key"},
		{`{"ptx": "k.ptx", "params": [{}]}`, "params[0]: a parameter needs exactly one key"},
		{`{"ptx": "k.ptx", "params": [{"int": 1}]}`, `params[0]: unknown parameter key "int"`},
		{`{"ptx": "k.ptx", "params": [{"u8": 256}]}`, "params[0]: u8: 256 is out of range"},
		{`{"ptx": "k.ptx", "params": [{"f32": [1, "x"]}]}`, `params[0]: f32[1]: "x" is not a number`},
		{`{"ptx": "k.ptx", "params": [{"f32": []}]}`, "empty array"},
		{`{"ptx": "k.ptx", "params": [{"bytes": "zz"}]}`, "params[0]: bytes: invalid hex digit"},
		{`{"ptx": "k.ptx", "params": [{"offset": 4}]}`, `"offset" needs "buffer"`},
		{`{"ptx": "k.ptx", "buffers": [{"name": "a", "type": "u8", "count": 1}], "params": [{"buffer": "a", "size": 4}]}`, `unknown key "size" next to "buffer"`},
		{`{"ptx": "k.ptx", "params": [3]}`, "params[0]: a parameter must be an object"},
	}
	for _, c := range cases {
		_, err := ParseSpec([]byte(c.spec))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s:\n  error %v\n  want one containing %q", c.spec, err, c.want)
		}
	}
}

func TestLimitsConfigurable(t *testing.T) {
	spec := []byte(`{"ptx": "k.ptx", "buffers": [{"name": "a", "type": "u32", "count": 100}, {"name": "b", "type": "u32", "count": 100}]}`)
	if _, err := ParseSpecLimits(spec, Limits{MaxBufferBytes: 800}); err != nil {
		t.Errorf("800 bytes within a limit of 800: %v", err)
	}
	_, err := ParseSpecLimits(spec, Limits{MaxBufferBytes: 799})
	if err == nil || !strings.Contains(err.Error(), `buffers[1] ("b")`) {
		t.Errorf("800 bytes over a limit of 799: %v", err)
	}
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "k.ptx"), []byte("// k"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := &Spec{PTX: "k.ptx"}
	text, name, err := s.Load(dir)
	if err != nil || string(text) != "// k" || name != filepath.Join(dir, "k.ptx") {
		t.Errorf("Load = %q, %q, %v", text, name, err)
	}
	s = &Spec{PTX: "missing.ptx"}
	if _, _, err := s.Load(dir); err == nil || !strings.Contains(err.Error(), "cannot read the PTX file") {
		t.Errorf("missing file: %v", err)
	}
	s = &Spec{Source: "// inline"}
	if text, name, err := s.Load(dir); err != nil || string(text) != "// inline" || name != "<source>" {
		t.Errorf("inline: %q %q %v", text, name, err)
	}
}
