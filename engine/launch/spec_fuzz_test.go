package launch

import (
	"context"
	"math/bits"
	"os"
	"path/filepath"
	"testing"
)

// fuzzSpecPTX is the module FuzzSpec launches specs on: kernels without
// parameters, with a pointer, with scalars and a byte array.
const fuzzSpecPTX = launchHeader + `
.visible .entry k1(.param .u64 a) { ret; }
.visible .entry k2(.param .u32 n, .param .f64 x, .param .align 4 .b8 blob[12]) { ret; }
.visible .entry store(.param .u64 out) {
	.reg .u32 %r<2>; .reg .u64 %rd<4>;
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, %tid.x;
	mul.wide.u32 %rd2, %r1, 4;
	add.u64 %rd3, %rd1, %rd2;
	st.global.u32 [%rd3], %r1;
	ret;
}
.visible .entry none() { ret; }
`

// fuzzSpecLimits keeps the buffers of fuzzed specs small.
var fuzzSpecLimits = Limits{MaxBufferBytes: 1 << 20}

// FuzzSpec feeds arbitrary JSON to the launch-spec parser and validator.
// Nothing may panic; an accepted spec stays within the buffer limit (its
// sizes computed without wrapping), survives MarshalIndent and parsing
// again, and Check blocks it exactly when Prepare rejects it; what Prepare
// accepts runs within a small budget. The seeds include the sizes whose
// products wrap in 64 bits and the gallery's specs; `make fuzz` runs it
// longer.
func FuzzSpec(f *testing.F) {
	for _, s := range []string{
		`{"source": "-", "entry": "store", "grid": [2], "block": [32], "buffers": [{"name": "o", "type": "u32", "count": 64}], "params": [{"buffer": "o"}]}`,
		`{"source": "-", "entry": "k1", "buffers": [{"name": "a", "type": "u16", "count": 9223372036854775807}], "params": [{"buffer": "a"}]}`,
		`{"source": "-", "entry": "k1", "buffers": [{"name": "a", "type": "f64", "count": 2305843009213693952, "init": {"iota": {}}}], "params": [{"buffer": "a"}]}`,
		`{"source": "-", "entry": "k1", "buffers": [{"name": "a", "type": "u64", "count": 4611686018427387904, "init": {"random": {"seed": 3}}}], "params": [{"buffer": "a"}]}`,
		`{"source": "-", "entry": "k1", "buffers": [{"name": "a", "type": "u8", "count": 1048000}, {"name": "b", "type": "u64", "count": 2305843009213693952}], "params": [{"buffer": "a"}]}`,
		`{"source": "-", "entry": "k1", "block": [4611686018427387904, 2, 1], "params": [{"u64": 0}]}`,
		`{"source": "-", "entry": "k1", "block": [4294967296, 4294967296, 1], "params": [{"u64": 0}]}`,
		`{"source": "-", "entry": "k1", "block": [224, 7905747460161236407, 1], "params": [{"u64": 0}]}`,
		`{"source": "-", "entry": "k1", "grid": [4611686018427387904, 2, 1], "params": [{"u64": 0}]}`,
		`{"source": "-", "entry": "k1", "grid": [2147483648, 65535, 65535], "params": [{"u64": 0}]}`,
		`{"source": "-", "entry": "none", "dynamicSharedBytes": 9223372036854775807}`,
		`{"source": "-", "entry": "k1", "buffers": [{"name": "a", "type": "u8", "count": 4}], "params": [{"buffer": "a", "offset": 9223372036854775807}]}`,
		`{"source": "-", "entry": "k2", "params": [{"u32": 1}, {"f64": "NaN"}, {"bytes": "000102030405060708090a0b"}]}`,
		`{"source": "-", "entry": "k2", "params": [{"u32": 1}, {"f64": 1}, {"u32": [1, 2, 3]}]}`,
		`{"source": "-", "entry": "store", "block": [32], "buffers": [{"name": "o", "type": "f16", "init": {"values": [1, "-Inf", "0x7e00"]}}], "params": [{"buffer": "o"}]}`,
		`{"source": "-", "entry": "store", "block": [32], "buffers": [{"name": "o", "type": "b8", "init": {"bytes": "0x00ff"}}], "params": [{"buffer": "o"}]}`,
		`{"source": "-", "entry": "store", "maxWarpInstructions": -1, "buffers": [{"name": "o", "type": "u32", "count": -1}]}`,
	} {
		f.Add([]byte(s))
	}
	files, _ := filepath.Glob(filepath.Join("../../web/examples", "*.json"))
	for _, file := range files {
		if b, err := os.ReadFile(file); err == nil {
			f.Add(b)
		}
	}
	prog, src, diags := Compile("fuzz.ptx", []byte(fuzzSpecPTX))
	if prog == nil {
		f.Fatalf("compile: %v %v", src, diags)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := ParseSpecLimits(data, fuzzSpecLimits)
		if err != nil {
			if s != nil {
				t.Fatalf("a spec with an error: %v", err)
			}
			return
		}
		var total uint64
		for _, b := range s.Buffers {
			ty, err := lookupType(b.Type)
			if err != nil || b.Count < 0 {
				t.Fatalf("accepted buffer %+v", b)
			}
			hi, n := bits.Mul64(uint64(b.Count), uint64(ty.Size()))
			total += n
			if hi != 0 || total > uint64(fuzzSpecLimits.MaxBufferBytes) {
				t.Fatalf("accepted buffers beyond the limit: %+v", s.Buffers)
			}
		}
		out, err := s.MarshalIndent()
		if err != nil {
			t.Fatalf("MarshalIndent: %v", err)
		}
		again, err := ParseSpecLimits(out, fuzzSpecLimits)
		if err != nil {
			t.Fatalf("the marshalled spec does not parse: %v\n%s", err, out)
		}
		if a, b := marshalled(t, s), marshalled(t, again); a != b {
			t.Fatalf("round trip changed the spec:\n%s\n%s", a, b)
		}
		ms := Check(prog, s)
		blocking := false
		for _, m := range ms {
			blocking = blocking || m.Blocking
		}
		l, err := Prepare(prog, s)
		if (err != nil) != blocking {
			t.Fatalf("Prepare says %v, Check %+v", err, ms)
		}
		if err != nil {
			return
		}
		cfg := l.Machine().Config()
		if n := cfg.Block[0] * cfg.Block[1] * cfg.Block[2]; n < 1 || n > 1024 || l.Machine().NumCTAs() < 1 {
			t.Fatalf("launch of %d threads per CTA, %d CTAs: %+v", n, l.Machine().NumCTAs(), cfg)
		}
		l.Machine().SetMaxWarpInstructions(500)
		if _, err := l.Run(context.Background()); err != nil {
			t.Fatalf("run: %v", err)
		}
	})
}

func marshalled(t *testing.T, s *Spec) string {
	t.Helper()
	b, err := s.MarshalIndent()
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
