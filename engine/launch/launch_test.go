package launch

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/ptxplayground/ptxplay/engine/emu"
	"github.com/ptxplayground/ptxplay/engine/ptx"
)

const launchHeader = `.version 8.0
.target sm_80
.address_size 64
`

// compileLaunchTest compiles src or fails the test.
func compileLaunchTest(t *testing.T, src string) *emu.Program {
	t.Helper()
	prog, s, diags := Compile("t.ptx", []byte(src))
	if prog == nil {
		t.Fatalf("compile:\n%s", ptx.FormatAll(s, diags))
	}
	return prog
}

// runLaunchTest parses spec (with src inline), runs it and returns the result.
func runLaunchTest(t *testing.T, src, spec string) *Result {
	t.Helper()
	s, err := ParseSpec([]byte(spec))
	if err != nil {
		t.Fatalf("spec: %v", err)
	}
	res, err := Run(context.Background(), compileLaunchTest(t, src), s)
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	return res
}

// decodeResult parses result JSON generically.
func decodeResult(t *testing.T, b []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("result is not JSON: %v\n%s", err, b)
	}
	return m
}

const retKernel = launchHeader + `
.visible .entry k(.param .u64 a)
{
	ret;
}
`

func TestResultOK(t *testing.T) {
	res := runLaunchTest(t, retKernel, `{"source": "-", "block": [64],
		"buffers": [{"name": "z", "type": "u8", "count": 2},
		            {"name": "e", "type": "f32", "count": 2, "init": {"values": [1, 2]}},
		            {"name": "hidden", "type": "u32", "count": 1, "output": false},
		            {"name": "a", "type": "f16", "count": 3, "init": {"values": ["NaN", "-Inf", 0.5]}}],
		"params": [{"buffer": "z"}]}`)
	if res.Status != StatusOK || res.Fault != nil {
		t.Fatalf("status %s fault %+v", res.Status, res.Fault)
	}
	if res.Stats.WarpInstructions != 2 || res.Stats.ThreadInstructions != 64 {
		t.Errorf("stats %+v", res.Stats)
	}
	got := string(res.AppendJSON(nil, false))
	want := `{"status":"ok","buffers":{"z":{"type":"u8","values":[0,0],"bits":["00","00"]},` +
		`"e":{"type":"f32","values":[1,2],"bits":["3f800000","40000000"]},` +
		`"a":{"type":"f16","values":["NaN","-Inf",0.5],"bits":["7e00","fc00","3800"]}},` +
		`"stats":{"warpInstructions":2,"threadInstructions":64}}`
	if got != want {
		t.Errorf("compact JSON:\n got %s\nwant %s", got, want)
	}
	var b strings.Builder
	if err := res.WriteJSON(&b, true); err != nil {
		t.Fatal(err)
	}
	wantIndent := `{
  "status": "ok",
  "buffers": {
    "z": {"type": "u8", "values": [0, 0], "bits": ["00", "00"]},
    "e": {"type": "f32", "values": [1, 2], "bits": ["3f800000", "40000000"]},
    "a": {"type": "f16", "values": ["NaN", "-Inf", 0.5], "bits": ["7e00", "fc00", "3800"]}
  },
  "stats": {"warpInstructions": 2, "threadInstructions": 64}
}
`
	if b.String() != wantIndent {
		t.Errorf("indented JSON:\n%s\nwant\n%s", b.String(), wantIndent)
	}
	decodeResult(t, []byte(b.String()))
	if m, err := json.Marshal(res); err != nil || string(m) != want {
		t.Errorf("MarshalJSON = %s, %v", m, err)
	}
}

func TestResultFault(t *testing.T) {
	src := launchHeader + `
.visible .entry k()
{
	.reg .pred %p;
	bra.uni L;
L:
	  trap;   // stop
}
`
	res := runLaunchTest(t, src, `{"source": "-", "grid": [2, 3], "block": [40],
		"buffers": [{"name": "o", "type": "s32", "count": 1, "init": {"fill": -7}}]}`)
	if res.Status != StatusFault || res.Fault == nil {
		t.Fatalf("status %s", res.Status)
	}
	f := res.Fault
	if f.Kind != "trap" || f.Line != 10 || f.Col != 4 || f.Instruction != "trap;   // stop" || f.CTA != [3]int{0, 0, 0} || f.HasAddress {
		t.Errorf("fault %+v", f)
	}
	m := decodeResult(t, res.AppendJSON(nil, true))
	fault := m["fault"].(map[string]any)
	for _, k := range []string{"kind", "message", "line", "col", "instruction", "cta", "thread", "warp", "lane"} {
		if _, ok := fault[k]; !ok {
			t.Errorf("fault JSON lacks %q: %v", k, fault)
		}
	}
	if _, ok := fault["address"]; ok {
		t.Errorf("fault JSON has an address: %v", fault)
	}
	vals := m["buffers"].(map[string]any)["o"].(map[string]any)["values"].([]any)
	if vals[0].(float64) != -7 {
		t.Errorf("o = %v", vals)
	}
}

func TestResultLimit(t *testing.T) {
	src := launchHeader + `
.visible .entry k()
{
L:
	bra.uni L;
}
`
	res := runLaunchTest(t, src, `{"source": "-", "block": [32], "maxWarpInstructions": 100}`)
	if res.Status != StatusLimit || res.Stats.WarpInstructions != 100 || !strings.Contains(res.Message, "100 warp-instructions") {
		t.Errorf("status %s stats %+v message %q", res.Status, res.Stats, res.Message)
	}
	m := decodeResult(t, res.AppendJSON(nil, false))
	if m["status"] != "limit" || m["fault"] != nil {
		t.Errorf("limit JSON %v", m)
	}
}

func TestRunInterrupted(t *testing.T) {
	src := launchHeader + `
.visible .entry k()
{
L:
	bra.uni L;
}
`
	s, err := ParseSpec([]byte(`{"source": "-"}`))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, err := Run(ctx, compileLaunchTest(t, src), s)
	if err == nil || res == nil || res.Status != StatusInterrupted {
		t.Errorf("cancelled run: %v, %+v", err, res)
	}
}

const twoKernels = launchHeader + `
.visible .entry k1(.param .u64 a) { ret; }
.visible .entry k2(.param .u32 n, .param .f64 x, .param .align 4 .b8 blob[12]) { ret; }
.func f() { ret; }
`

func TestPrepareErrors(t *testing.T) {
	prog := compileLaunchTest(t, twoKernels)
	cases := []struct{ spec, want string }{
		{`{"source": "-"}`, "the module has 2 kernels; choose one with \"entry\": k1, k2"},
		{`{"source": "-", "entry": "nope"}`, `no kernel named "nope" (kernels: k1, k2)`},
		{`{"source": "-", "entry": "f"}`, `no kernel named "f"`},
		{`{"source": "-", "entry": "k1"}`, "kernel k1 takes 1 parameters (.u64 a); the spec gives 0"},
		{`{"source": "-", "entry": "k2", "params": [{"u32": 1}]}`, "kernel k2 takes 3 parameters (.u32 n, .f64 x, .b8 blob[12] (12 bytes)); the spec gives 1"},
		{`{"source": "-", "entry": "k1", "params": [{"u32": 1}]}`, "params[0]: parameter a of kernel k1 (.u64 a): a u32 value gives 4 bytes, the parameter has 8"},
		{`{"source": "-", "entry": "k2", "buffers": [{"name": "b", "type": "u8", "count": 1}], "params": [{"buffer": "b"}, {"f64": 1}, {"bytes": "00"}]}`,
			`params[0]: parameter n of kernel k2 (.u32 n): is not 8 bytes wide, so it cannot hold the address of buffer "b"`},
		{`{"source": "-", "entry": "k2", "params": [{"u32": 1}, {"f32": 1}, {"bytes": "00"}]}`, "params[1]: parameter x of kernel k2 (.f64 x): a f32 value gives 4 bytes, the parameter has 8"},
		{`{"source": "-", "entry": "k2", "params": [{"u32": 1}, {"f64": 1}, {"bytes": "00"}]}`, "params[2]: parameter blob of kernel k2 (.b8 blob[12] (12 bytes)): 1 bytes given, the parameter has 12"},
		{`{"source": "-", "entry": "k2", "params": [{"u32": 1}, {"f64": 1}, {"u32": [1, 2]}]}`, "2 u32 values give 8 bytes, the parameter has 12"},
		{`{"source": "-", "entry": "k1", "buffers": [{"name": "b", "type": "u32", "count": 2}], "params": [{"buffer": "b", "offset": 9}]}`, `offset 9 is past the end of buffer "b" (8 bytes)`},
		{`{"source": "-", "entry": "k1", "block": [2048], "params": [{"u64": 0}]}`, "block[0] is 2048; at most 1024"},
		{`{"source": "-", "entry": "k1", "block": [64, 32], "params": [{"u64": 0}]}`, "block 64x32x1 has 2048 threads; the limit is 1024"},
		{`{"source": "-", "entry": "k1", "block": [4294967296, 4294967296, 1], "params": [{"u64": 0}]}`, "block[0] is 4294967296; at most 1024"},
		{`{"source": "-", "entry": "k1", "block": [224, 7905747460161236407, 1], "params": [{"u64": 0}]}`, "block[1] is 7905747460161236407; at most 1024"},
		{`{"source": "-", "entry": "k1", "grid": [4611686018427387904, 2, 1], "params": [{"u64": 0}]}`, "grid[0] is 4611686018427387904; at most 2147483648"},
		{`{"source": "-", "entry": "k1", "grid": [65536, 65535, 2], "params": [{"u64": 0}]}`, "grid 65536x65535x2 has 8589803520 CTAs; the limit is 2147483648"},
		{`{"source": "-", "entry": "k1", "dynamicSharedBytes": 9223372036854775807, "params": [{"u64": 0}]}`, "exceeds the limit of 233472"},
		{`{"source": "-", "entry": "k1", "dynamicSharedBytes": 1000000, "params": [{"u64": 0}]}`, "shared memory"},
	}
	for _, c := range cases {
		s, err := ParseSpec([]byte(c.spec))
		if err != nil {
			t.Errorf("%s: %v", c.spec, err)
			continue
		}
		_, err = Prepare(prog, s)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s:\n  error %v\n  want one containing %q", c.spec, err, c.want)
		}
	}
}

func TestPrepareParams(t *testing.T) {
	prog := compileLaunchTest(t, twoKernels)
	s, err := ParseSpec([]byte(`{"source": "-", "entry": "k2",
		"params": [{"s32": -2}, {"f64": "0x3ff0000000000001"}, {"u16": [1, 2, 3, 4, 5, 65535]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	l, err := Prepare(prog, s)
	if err != nil {
		t.Fatal(err)
	}
	k := l.Machine().Kernel()
	p := l.Machine().Params()
	if got := getElem(p[k.Params[0].Offset:], 0, 4); got != 0xfffffffe {
		t.Errorf("n = %#x", got)
	}
	if got := getElem(p[k.Params[1].Offset:], 0, 8); got != 0x3ff0000000000001 {
		t.Errorf("x = %#x", got)
	}
	blob := p[k.Params[2].Offset:]
	for i, w := range []uint64{1, 2, 3, 4, 5, 65535} {
		if got := getElem(blob, i, 2); got != w {
			t.Errorf("blob[%d] = %d, want %d", i, got, w)
		}
	}

	// Buffer addresses (with an offset) and one-kernel entry inference.
	prog = compileLaunchTest(t, retKernel)
	s, err = ParseSpec([]byte(`{"source": "-", "buffers": [{"name": "x", "type": "u8", "count": 3}, {"name": "y", "type": "f64", "count": 4}],
		"params": [{"buffer": "y", "offset": 8}]}`))
	if err != nil {
		t.Fatal(err)
	}
	l, err = Prepare(prog, s)
	if err != nil {
		t.Fatal(err)
	}
	y := l.Buffer("y")
	if y == nil || len(y.Data) != 32 || y.Base%256 != 0 {
		t.Fatalf("buffer y: %+v", y)
	}
	if x := l.Buffer("x"); x == nil || x.Base >= y.Base {
		t.Errorf("buffers are not allocated in spec order")
	}
	if got := getElem(l.Machine().Params(), 0, 8); got != y.Base+8 {
		t.Errorf("param = %#x, want %#x", got, y.Base+8)
	}
	if l.Spec() != s || l.Program() != prog || l.Buffer("none") != nil {
		t.Error("accessors")
	}
}

// A kernel that uses every kind of parameter and reads and writes buffers:
// out[i] = a[i] * scale + n + k, for i = tid.x.
const axpyKernel = launchHeader + `
.visible .entry axpy(.param .u64 a, .param .u32 n, .param .s32 k, .param .u64 out, .param .f32 scale)
{
	.reg .u32 %r<4>;
	.reg .u64 %rd<8>;
	.reg .f32 %f<6>;
	ld.param.u64 %rd1, [a];
	ld.param.u64 %rd2, [out];
	ld.param.u32 %r1, [n];
	ld.param.s32 %r2, [k];
	ld.param.f32 %f1, [scale];
	mov.u32 %r3, %tid.x;
	mul.wide.u32 %rd3, %r3, 4;
	add.u64 %rd4, %rd1, %rd3;
	add.u64 %rd5, %rd2, %rd3;
	ld.global.f32 %f2, [%rd4];
	add.s32 %r1, %r1, %r2;
	cvt.rn.f32.s32 %f3, %r1;
	fma.rn.f32 %f4, %f2, %f1, %f3;
	st.global.f32 [%rd5], %f4;
	ret;
}
`

func TestRunKernel(t *testing.T) {
	res := runLaunchTest(t, axpyKernel, `{"source": "-", "block": [4],
		"buffers": [{"name": "a", "type": "f32", "count": 4, "init": {"values": [1, 2.5, "-Inf", "0x7fc00000"]}},
		            {"name": "out", "type": "f32", "count": 4}],
		"params": [{"buffer": "a"}, {"u32": 10}, {"s32": -3}, {"buffer": "out"}, {"f32": 2}]}`)
	if res.Status != StatusOK {
		t.Fatalf("status %s: %+v", res.Status, res.Fault)
	}
	out := res.Buffer("out")
	var vals []string
	for i := 0; i < out.Len(); i++ {
		vals = append(vals, out.ValueJSON(i))
	}
	if got := strings.Join(vals, ","); got != `9,12,"-Inf","NaN"` {
		t.Errorf("out = %s", got)
	}
}

func TestOutOfBoundsFault(t *testing.T) {
	res := runLaunchTest(t, axpyKernel, `{"source": "-", "block": [8],
		"buffers": [{"name": "a", "type": "f32", "count": 4}, {"name": "out", "type": "f32", "count": 8}],
		"params": [{"buffer": "a"}, {"u32": 0}, {"s32": 0}, {"buffer": "out"}, {"f32": 1}]}`)
	if res.Status != StatusFault {
		t.Fatalf("status %s", res.Status)
	}
	f := res.Fault
	if f.Kind != "out-of-bounds" || !f.HasAddress || f.Line != 19 || f.Instruction != "ld.global.f32 %f2, [%rd4];" || f.Thread[0] < 4 {
		t.Errorf("fault %+v", f)
	}
	m := decodeResult(t, res.AppendJSON(nil, false))
	addr, _ := m["fault"].(map[string]any)["address"].(string)
	if !strings.HasPrefix(addr, "0x7f") {
		t.Errorf("address %q", addr)
	}
}
