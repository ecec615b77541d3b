package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ptxplayground/ptxplay/engine/ptx"
)

// cli runs the command line in-process and returns the exit status and
// what it wrote.
func cli(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb strings.Builder
	code = run(args, strings.NewReader(stdin), &out, &errb)
	return code, out.String(), errb.String()
}

// resultOf decodes a result printed by `ptxplay run`.
func resultOf(t *testing.T, stdout string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(stdout), &m); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, stdout)
	}
	return m
}

// values returns the values of a result buffer as JSON text.
func values(t *testing.T, m map[string]any, name string) string {
	t.Helper()
	b, ok := m["buffers"].(map[string]any)[name].(map[string]any)
	if !ok {
		t.Fatalf("no buffer %s in %v", name, m)
	}
	v, _ := json.Marshal(b["values"])
	return string(v)
}

func TestUsage(t *testing.T) {
	// (No arguments starts the web server: see serve_test.go.)
	for _, h := range []string{"-h", "--help", "help"} {
		code, out, _ := cli(t, "", h)
		if code != 0 || !strings.Contains(out, "ptxplay check [--json] FILE.ptx...") || !strings.Contains(out, "ptxplay run [--json-compact]") ||
			!strings.Contains(out, "ptxplay init [--entry NAME] KERNEL.ptx") {
			t.Errorf("%s: %d %q", h, code, out)
		}
	}
	code, _, errs := cli(t, "", "frobnicate")
	if code != 2 || !strings.Contains(errs, `unknown command "frobnicate"`) {
		t.Errorf("unknown command: %d %q", code, errs)
	}
	code, out, _ := cli(t, "", "version")
	if code != 0 || !strings.HasPrefix(out, "ptxplay ") {
		t.Errorf("version: %d %q", code, out)
	}
	if code, _, _ = cli(t, "", "version", "x"); code != 2 {
		t.Errorf("version x: %d", code)
	}
	code, _, errs = cli(t, "", "check", "-h")
	if code != 0 || !strings.Contains(errs, "usage: ptxplay check") {
		t.Errorf("check -h: %d %q", code, errs)
	}
	code, _, errs = cli(t, "", "run", "--nope", "x.json")
	if code != 2 || !strings.Contains(errs, "flag provided but not defined: -nope") {
		t.Errorf("run --nope: %d %q", code, errs)
	}
}

func TestCheck(t *testing.T) {
	all := filepath.Join("testdata", "all.ptx")
	bad := filepath.Join("testdata", "bad.ptx")
	warn := filepath.Join("testdata", "warn.ptx")

	code, out, errs := cli(t, "", "check", all)
	if code != 0 || out != "" || errs != "" {
		t.Errorf("check all.ptx: %d %q %q", code, out, errs)
	}
	code, out, _ = cli(t, "", "check", bad)
	if code != 1 || !strings.HasPrefix(out, bad+":8:") || !strings.Contains(out, ": error[undefined-name]: ") || !strings.Contains(out, "%nope") {
		t.Errorf("check bad.ptx: %d %q", code, out)
	}
	code, out, _ = cli(t, "", "check", warn)
	if code != 0 || !strings.HasPrefix(out, warn+":5:") || !strings.Contains(out, ": warning[extern-without-definition]: ") {
		t.Errorf("check warn.ptx: %d %q", code, out)
	}
	// Several files: one with errors makes the status 1.
	code, out, _ = cli(t, "", "check", warn, bad, all)
	if code != 1 || !strings.Contains(out, "warning") || !strings.Contains(out, "error") {
		t.Errorf("check three files: %d %q", code, out)
	}
	code, out, _ = cli(t, "", "check", filepath.Join("testdata", "missing.ptx"))
	if code != 1 || !strings.Contains(out, "missing.ptx: error[cannot-read]: cannot read") {
		t.Errorf("check missing.ptx: %d %q", code, out)
	}
	code, _, errs = cli(t, "", "check")
	if code != 2 || !strings.Contains(errs, "no PTX files") {
		t.Errorf("check without files: %d %q", code, errs)
	}
	// Standard input.
	text, _ := os.ReadFile(bad)
	code, out, _ = cli(t, string(text), "check", "-")
	if code != 1 || !strings.HasPrefix(out, "<stdin>:8:") {
		t.Errorf("check -: %d %q", code, out)
	}
}

// A diagnostic with a related place prints it as a note line right after
// it, and --json carries the ID and the notes.
func TestCheckNotes(t *testing.T) {
	dup := filepath.Join("testdata", "duplabel.ptx")
	code, out, _ := cli(t, "", "check", dup)
	want := dup + ":9:1: error[duplicate-label]: label L defined twice in the same block\n" +
		dup + ":7:1: note: label L is first defined here\n"
	if code != 1 || out != want {
		t.Errorf("check duplabel.ptx: %d\n%s\nwant\n%s", code, out, want)
	}
	code, out, _ = cli(t, "", "check", "--json", dup)
	var msgs []ptx.Message
	if err := json.Unmarshal([]byte(out), &msgs); err != nil || code != 1 || len(msgs) != 1 {
		t.Fatalf("%d %v\n%s", code, err, out)
	}
	m := msgs[0]
	if m.ID != "duplicate-label" || m.Line != 9 || len(m.Notes) != 1 {
		t.Fatalf("message %+v", m)
	}
	if n := m.Notes[0]; n.File != dup || n.Line != 7 || n.Col != 1 || n.EndLine != 7 || n.EndCol != 3 || n.Message != "label L is first defined here" {
		t.Errorf("note %+v", n)
	}
	if !strings.Contains(out, `"id": "duplicate-label"`) || !strings.Contains(out, `"notes": [`) {
		t.Errorf("JSON keys: %s", out)
	}
}

func TestCheckJSON(t *testing.T) {
	bad := filepath.Join("testdata", "bad.ptx")
	warn := filepath.Join("testdata", "warn.ptx")
	// The flag may follow the files.
	code, out, _ := cli(t, "", "check", warn, bad, "--json")
	if code != 1 {
		t.Errorf("status %d", code)
	}
	var msgs []map[string]any
	if err := json.Unmarshal([]byte(out), &msgs); err != nil {
		t.Fatalf("not a JSON array: %v\n%s", err, out)
	}
	if len(msgs) < 2 {
		t.Fatalf("messages: %v", msgs)
	}
	if msgs[0]["severity"] != "warning" || msgs[0]["file"] != warn || msgs[0]["line"] != 5.0 {
		t.Errorf("first message %v", msgs[0])
	}
	last := msgs[len(msgs)-1]
	for _, k := range []string{"severity", "id", "file", "line", "col", "endLine", "endCol", "message"} {
		if _, ok := last[k]; !ok {
			t.Errorf("message lacks %q: %v", k, last)
		}
	}
	if last["severity"] != "error" || last["file"] != bad || last["id"] != "undefined-name" {
		t.Errorf("last message %v", last)
	}
	code, out, _ = cli(t, "", "check", "--json", filepath.Join("testdata", "all.ptx"))
	if code != 0 || strings.TrimSpace(out) != "[]" {
		t.Errorf("clean file: %d %q", code, out)
	}
}

// TestRunAll runs a spec with every init kind and every parameter kind.
func TestRunAll(t *testing.T) {
	code, out, errs := cli(t, "", "run", filepath.Join("testdata", "all.json"))
	if code != 0 {
		t.Fatalf("status %d\n%s%s", code, out, errs)
	}
	m := resultOf(t, out)
	if m["status"] != "ok" {
		t.Fatalf("result %v", m)
	}
	want := map[string]string{
		"a":   `[1,2.5,-1,2]`,
		"b":   `[100,110,120,130]`,
		"c":   `[1.5,1.5,1.5,1.5]`,
		"d":   `[0,1,2,3]`,
		"r":   `[4,0,-3,-4]`, // SplitMix64 seeded with 42, in [-5, 5]
		"out": `[226,237,248,259]`,
		"e":   `[2.5,5.5,-1.5,4.5]`,
		"g":   `[15872,15872,15872,15872]`,
		"h":   `[4,0,-3,-4]`,
	}
	for name, w := range want {
		if got := values(t, m, name); got != w {
			t.Errorf("%s = %s, want %s", name, got, w)
		}
	}
	// Buffers appear in spec order.
	order := []string{`"a":`, `"b":`, `"c":`, `"d":`, `"r":`, `"out":`, `"e":`, `"g":`, `"h":`}
	last := -1
	for _, k := range order {
		i := strings.Index(out, k)
		if i < last {
			t.Errorf("buffer %s out of order", k)
		}
		last = i
	}
	if strings.Count(out, "\n") < 5 {
		t.Errorf("default output is not indented:\n%s", out)
	}
	st := m["stats"].(map[string]any)
	if st["warpInstructions"].(float64) <= 0 || st["threadInstructions"].(float64) != 4*st["warpInstructions"].(float64) {
		t.Errorf("stats %v", st)
	}

	// --json-compact (after the spec) prints one line.
	code, out, _ = cli(t, "", "run", filepath.Join("testdata", "all.json"), "--json-compact")
	if code != 0 || strings.Count(out, "\n") != 1 || !strings.HasPrefix(out, `{"status":"ok","buffers":{"a":{"type":"f32","values":[1,2.5,-1,2],`) {
		t.Errorf("compact: %d %q", code, out)
	}
}

// TestRunGallery: `ptxplay run` runs every gallery spec of web/examples
// (the Triton GEMM included) to status ok.
func TestRunGallery(t *testing.T) {
	specs, err := filepath.Glob(filepath.Join("..", "..", "web", "examples", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, path := range specs {
		if filepath.Base(path) == "index.json" {
			continue
		}
		n++
		code, out, errs := cli(t, "", "run", "--json-compact", path)
		if code != 0 || !strings.HasPrefix(out, `{"status":"ok",`) {
			t.Errorf("%s: exit %d\n%.300s%s", path, code, out, errs)
		}
	}
	if n < 9 {
		t.Errorf("only %d gallery specs", n)
	}
}

func TestRunFault(t *testing.T) {
	code, out, _ := cli(t, "", "run", filepath.Join("testdata", "fault.json"))
	if code != 1 {
		t.Fatalf("status %d\n%s", code, out)
	}
	m := resultOf(t, out)
	f, _ := m["fault"].(map[string]any)
	if m["status"] != "fault" || f == nil {
		t.Fatalf("result %v", m)
	}
	// Threads 4..7 read b[4..7], past the end of b (4 elements).
	if f["kind"] != "out-of-bounds" || f["line"] != 31.0 || f["instruction"] != "ld.global.u32 %r2, [%rd4];" {
		t.Errorf("fault %v", f)
	}
	if a, _ := f["address"].(string); !strings.HasPrefix(a, "0x") {
		t.Errorf("address %v", f["address"])
	}
	if th := f["thread"].([]any); th[0].(float64) < 4 {
		t.Errorf("thread %v", th)
	}
}

func TestRunStdinAndLimit(t *testing.T) {
	spec := `{"source": ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry spin()\n{\nL: bra.uni L;\n}\n",
		"block": [64], "maxWarpInstructions": 50}`
	code, out, _ := cli(t, spec, "run", "-")
	if code != 1 {
		t.Fatalf("status %d\n%s", code, out)
	}
	m := resultOf(t, out)
	if m["status"] != "limit" || m["stats"].(map[string]any)["warpInstructions"] != 50.0 {
		t.Errorf("result %v", m)
	}
	spec = `{"source": ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\nret;\n}\n"}`
	code, out, _ = cli(t, spec, "run", "--json-compact", "-")
	if code != 0 || out != `{"status":"ok","buffers":{},"stats":{"warpInstructions":1,"threadInstructions":1},"warnings":[]}`+"\n" {
		t.Errorf("ret kernel: %d %q", code, out)
	}
}

// TestRunWarnings: the race example's result lists the checker's
// warnings (also on standard error); --no-check leaves them out.
func TestRunWarnings(t *testing.T) {
	spec := filepath.Join("..", "..", "web", "examples", "race.json")
	code, out, errOut := cli(t, "", "run", spec)
	if code != 0 {
		t.Fatalf("status %d\n%s", code, errOut)
	}
	ws, ok := resultOf(t, out)["warnings"].([]any)
	if !ok || len(ws) != 3 {
		t.Fatalf("warnings %v", resultOf(t, out)["warnings"])
	}
	w := ws[2].(map[string]any)
	if w["kind"] != "read-after-write" || w["line"] != 62.0 || w["prevLine"] != 54.0 || w["thread"].([]any)[0] != 32.0 || w["prevThread"].([]any)[0] != 0.0 || w["count"] != 32.0 {
		t.Errorf("warning %v", w)
	}
	if !strings.Contains(errOut, "race.ptx:62: warning: read-after-write at shared offset 0: thread 0 of CTA 0 (line 54) and thread 32 of CTA 0 (line 62) (32 times)") {
		t.Errorf("standard error:\n%s", errOut)
	}
	_, out, errOut = cli(t, "", "run", "--no-check", spec)
	if _, ok := resultOf(t, out)["warnings"]; ok || strings.Contains(errOut, "warning") {
		t.Errorf("--no-check: %s\n%s", out, errOut)
	}
}

// emptyKernel is a kernel with one pointer parameter that does nothing,
// as JSON string content.
const emptyKernel = `.version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k(.param .u64 p)\n{\nret;\n}\n`

func TestRunInvalid(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	bad, _ := os.ReadFile(filepath.Join("testdata", "bad.ptx"))
	write("bad.ptx", string(bad))
	cases := []struct {
		name, spec, want string
	}{
		{"unknown-field.json", `{"ptx": "bad.ptx", "blocks": [1]}`, `invalid spec: unknown field "blocks"`},
		{"syntax.json", "{\n  \"ptx\": \"bad.ptx\",\n}", "invalid spec: invalid JSON at line 3, column 1"},
		{"no-ptx.json", `{"ptx": "nothere.ptx"}`, "cannot read the PTX file"},
		{"bad-ptx.json", `{"ptx": "bad.ptx", "params": [{"u64": 0}]}`, "bad.ptx:8:"},
		{"params.json", `{"source": ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k(.param .u32 n)\n{\nret;\n}\n", "params": [{"u64": 1}]}`,
			"params[0]: parameter n of kernel k (.u32 n): a u64 value gives 8 bytes, the parameter has 4"},
		{"big.json", `{"ptx": "bad.ptx", "buffers": [{"name": "x", "type": "u8", "count": 2000}]}`, "count 2000 of u8 (1-byte elements) exceeds the limit of 1000 bytes"},
		// Sizes whose products wrap in 64 bits are errors that name their
		// field, not panics.
		{"wrap-u16.json", `{"source": "` + emptyKernel + `", "buffers": [{"name": "a", "type": "u16", "count": 9223372036854775807}], "params": [{"buffer": "a"}]}`,
			`buffers[0] ("a"): count 9223372036854775807 of u16`},
		{"wrap-iota.json", `{"source": "` + emptyKernel + `", "buffers": [{"name": "a", "type": "f64", "count": 2305843009213693952, "init": {"iota": {}}}], "params": [{"buffer": "a"}]}`,
			`buffers[0] ("a"): count 2305843009213693952 of f64`},
		{"wrap-block.json", `{"source": "` + emptyKernel + `", "block": [4611686018427387904, 2, 1], "params": [{"u64": 0}]}`, "block[0] is 4611686018427387904; at most 1024"},
		{"wrap-block0.json", `{"source": "` + emptyKernel + `", "block": [4294967296, 4294967296, 1], "params": [{"u64": 0}]}`, "block[0] is 4294967296; at most 1024"},
		{"wrap-ntid.json", `{"source": "` + emptyKernel + `", "block": [224, 7905747460161236407, 1], "params": [{"u64": 0}]}`, "block[1] is 7905747460161236407; at most 1024"},
		{"wrap-grid.json", `{"source": "` + emptyKernel + `", "grid": [4611686018427387904, 2, 1], "params": [{"u64": 0}]}`, "grid[0] is 4611686018427387904; at most 2147483648"},
	}
	for _, c := range cases {
		path := write(c.name, c.spec)
		code, out, errs := cli(t, "", "run", "--max-buffer-bytes", "1000", path)
		if code != 2 || out != "" || !strings.Contains(errs, c.want) {
			t.Errorf("%s: status %d, stdout %q, stderr %q; want 2 and %q", c.name, code, out, errs, c.want)
		}
	}
	code, _, errs := cli(t, "", "run")
	if code != 2 || !strings.Contains(errs, "want exactly one launch spec") {
		t.Errorf("run without spec: %d %q", code, errs)
	}
	code, _, errs = cli(t, "", "run", filepath.Join(dir, "none.json"))
	if code != 2 || !strings.Contains(errs, "cannot read") {
		t.Errorf("missing spec: %d %q", code, errs)
	}
}

// TestInit writes a spec for a kernel and runs it: ptxplay init k.ptx >
// k.json && ptxplay run k.json.
func TestInit(t *testing.T) {
	kernel, err := os.ReadFile(filepath.Join("..", "..", "web", "examples", "vector-add.ptx"))
	if err != nil {
		t.Fatal(err)
	}
	all, err := os.ReadFile(filepath.Join("testdata", "all.ptx"))
	if err != nil {
		t.Fatal(err)
	}
	bad, err := os.ReadFile(filepath.Join("testdata", "bad.ptx"))
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(t.TempDir())
	for name, text := range map[string][]byte{"k.ptx": kernel, "all.ptx": all, "bad.ptx": bad} {
		if err := os.WriteFile(name, text, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	code, out, errs := cli(t, "", "init", "k.ptx")
	if code != 0 || !strings.Contains(out, `"ptx": "k.ptx",`) || !strings.Contains(out, "\n    {\"buffer\": \"a\"},\n") ||
		!strings.Contains(errs, `note: param 3 "n": scalar u32 = 64 (compared with the thread index)`) {
		t.Fatalf("init: %d\n%s\n%s", code, out, errs)
	}
	if err := os.WriteFile("k.json", []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs = cli(t, "", "run", "k.json")
	if code != 0 {
		t.Fatalf("run: %d\n%s%s", code, out, errs)
	}
	// a = 0, 1, 2, ...; b = 0, 2, 4, ...: c = 3i.
	if got := values(t, resultOf(t, out), "c"); !strings.HasPrefix(got, "[0,3,6,9,") || strings.Count(got, ",") != 63 {
		t.Errorf("c = %s", got)
	}

	// Standard input: the source goes inline.
	code, out, _ = cli(t, string(kernel), "init", "-", "--entry", "vector_add")
	if code != 0 || !strings.Contains(out, `"source": "// Vector addition: c[i] = a[i] + b[i] for i < n.\n`) || strings.Contains(out, `"ptx"`) {
		t.Fatalf("init -: %d\n%s", code, out)
	}
	if code, out, errs = cli(t, out, "run", "-"); code != 0 {
		t.Errorf("run the inline spec: %d\n%s%s", code, out, errs)
	}

	// Every kind of parameter: the spec is valid (the run may fault).
	code, out, errs = cli(t, "", "init", "all.ptx")
	if code != 0 || !strings.Contains(out, `{"bytes": "0000000000000000"}`) {
		t.Fatalf("init all.ptx: %d\n%s%s", code, out, errs)
	}
	if code, _, errs = cli(t, out, "run", "-"); code == 2 {
		t.Errorf("run the spec of all.ptx: %s", errs)
	}

	// A tensor map: a Triton-style kernel that receives the map's address
	// in a .u64 and copies one tile with TMA; init infers the map (rank,
	// box from the expect_tx bytes, a buffer of one box) with notes for
	// what it guessed, and the spec runs.
	code, out, errs = cli(t, tmaInitKernel, "init", "-")
	if code != 0 || !strings.Contains(out, `{"tensorMap": {"buffer": "tma_desc", "dataType": "u32", "globalDim": [32, 32], "globalStrides": [128], "boxDim": [32, 32]}}`) ||
		!strings.Contains(errs, `note: param 0 "tma_desc": tensor map (the kernel uses it in cp.async.bulk.tensor at line 19; its address passed) of buffer "tma_desc"`) ||
		!strings.Contains(errs, "box [32 32]: 4096 bytes from the expect_tx of 4096 bytes at line 18 on the mbarrier of the copy at line 19") {
		t.Fatalf("init of a TMA kernel: %d\n%s\n%s", code, out, errs)
	}
	if code, out, errs = cli(t, out, "run", "-"); code != 0 {
		t.Fatalf("run the inferred TMA spec: %d\n%s%s", code, out, errs)
	}
	if got := values(t, resultOf(t, out), "out"); !strings.HasPrefix(got, "[0,1,2,3,") || !strings.HasSuffix(got, ",127]") {
		t.Errorf("out = %s, want the tile's first 128 elements", got)
	}

	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"init", "--entry", "nope", "k.ptx"}, `k.ptx: no kernel named "nope" (kernels: vector_add)`},
		{[]string{"init", "bad.ptx"}, "bad.ptx:8:"},
		{[]string{"init", "missing.ptx"}, "missing.ptx: cannot read"},
		{[]string{"init"}, "want exactly one PTX file"},
		{[]string{"init", "k.ptx", "all.ptx"}, "want exactly one PTX file"},
	} {
		code, out, errs := cli(t, "", c.args...)
		if code != 2 || out != "" || !strings.Contains(errs, c.want) {
			t.Errorf("%v: %d %q %q; want 2 and %q", c.args, code, out, errs, c.want)
		}
	}
}

// memoryRows runs a gallery spec with --analyze and returns its "memory"
// rows keyed by line.
func memoryRows(t *testing.T, spec string) map[int]map[string]any {
	t.Helper()
	code, out, errs := cli(t, "", "run", "--analyze", filepath.Join("..", "..", "web", "examples", spec))
	if code != 0 {
		t.Fatalf("%s: exit %d\n%s", spec, code, errs)
	}
	rows, ok := resultOf(t, out)["memory"].([]any)
	if !ok {
		t.Fatalf("%s: no memory section:\n%s", spec, out)
	}
	byLine := map[int]map[string]any{}
	for _, r := range rows {
		m := r.(map[string]any)
		byLine[int(m["line"].(float64))] = m
	}
	return byLine
}

// wantRow checks members of the row for line.
func wantRow(t *testing.T, rows map[int]map[string]any, line int, want map[string]any) {
	t.Helper()
	r, ok := rows[line]
	if !ok {
		t.Errorf("no row for line %d in %v", line, rows)
		return
	}
	for k, v := range want {
		if r[k] != v {
			t.Errorf("line %d: %s = %v, want %v (row %v)", line, k, r[k], v, r)
		}
	}
}

func TestRunAnalyzeTranspose(t *testing.T) {
	// transpose.ptx: one 32x32 tile, 8 warps × 4 iterations = 32
	// executions of each line. Lines 68/86 (conflicts), 134/152 (padded),
	// 206/225 (swizzled) are the tile store and the column read.
	rows := memoryRows(t, "transpose.json")
	// Row-wise store: 32 banks once each.
	wantRow(t, rows, 68, map[string]any{"space": "shared", "executions": 32.0, "wavefronts": 32.0, "idealWavefronts": 32.0, "conflictDegree": 1.0})
	// Column read of the unpadded tile: stride 32 words, all lanes in one
	// bank: 32 wavefronts per execution.
	wantRow(t, rows, 86, map[string]any{"space": "shared", "executions": 32.0, "wavefronts": 1024.0, "idealWavefronts": 32.0, "conflictDegree": 32.0})
	// Global reads and writes of rows: 4 sectors of 128 contiguous bytes.
	wantRow(t, rows, 63, map[string]any{"space": "global", "sectors": 128.0, "lines": 32.0, "bytesRequested": 4096.0, "efficiency": 1.0})
	wantRow(t, rows, 91, map[string]any{"space": "global", "sectors": 128.0, "efficiency": 1.0})
	if len(rows) != 4 {
		t.Errorf("%d rows, want 4: %v", len(rows), rows)
	}

	// Padded: stride 33 words, lane t in bank (t + c) % 32: conflict-free.
	rows = memoryRows(t, "transpose-padded.json")
	wantRow(t, rows, 134, map[string]any{"wavefronts": 32.0, "conflictDegree": 1.0})
	wantRow(t, rows, 152, map[string]any{"executions": 32.0, "wavefronts": 32.0, "idealWavefronts": 32.0, "conflictDegree": 1.0})

	// Swizzled: word t*32 + (c ^ t), bank c ^ t: conflict-free too.
	rows = memoryRows(t, "transpose-swizzled.json")
	wantRow(t, rows, 206, map[string]any{"wavefronts": 32.0, "conflictDegree": 1.0})
	wantRow(t, rows, 225, map[string]any{"executions": 32.0, "wavefronts": 32.0, "conflictDegree": 1.0})
}

func TestRunAnalyzeCoalescing(t *testing.T) {
	// 2 warps × 8 iterations = 16 executions of each loop's load and store.
	rows := memoryRows(t, "coalescing.json")
	// Coalesced (lines 45, 48): 128 contiguous bytes per warp, 4 sectors:
	// 64 sectors for 2048 bytes, 100%.
	wantRow(t, rows, 45, map[string]any{"space": "global", "executions": 16.0, "sectors": 64.0, "lines": 16.0, "bytesRequested": 2048.0, "efficiency": 1.0})
	wantRow(t, rows, 48, map[string]any{"sectors": 64.0, "efficiency": 1.0})
	// Strided (lines 60, 63): lanes 32 bytes apart, 32 sectors per warp:
	// 512 sectors, 2048 / 16384 = 12.5%.
	wantRow(t, rows, 60, map[string]any{"space": "global", "executions": 16.0, "sectors": 512.0, "lines": 128.0, "bytesRequested": 2048.0, "efficiency": 0.125})
	wantRow(t, rows, 63, map[string]any{"sectors": 512.0, "efficiency": 0.125})
	// Without --analyze there is no memory section.
	_, out, _ := cli(t, "", "run", filepath.Join("..", "..", "web", "examples", "coalescing.json"))
	if _, ok := resultOf(t, out)["memory"]; ok {
		t.Error("memory section without --analyze")
	}
}

// TestRunParallel: `ptxplay run --parallel` prints exactly what the
// sequential run prints, on standard output and standard error, with the
// same exit status, for every gallery spec and a multi-CTA SGEMM (with
// and without the checker and the memory analysis, indented and compact).
func TestRunParallel(t *testing.T) {
	specs, err := filepath.Glob(filepath.Join("..", "..", "web", "examples", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	sgemm, err := os.ReadFile(filepath.Join("..", "..", "engine", "emu", "testdata", "sgemm.ptx"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "sgemm.ptx"), sgemm, 0o644); err != nil {
		t.Fatal(err)
	}
	spec := `{"ptx": "sgemm.ptx", "grid": [4, 4], "block": [16, 16],
		"buffers": [{"name": "a", "type": "f32", "count": 4096, "init": {"random": {"seed": 1}}},
			{"name": "b", "type": "f32", "count": 4096, "init": {"random": {"seed": 2}}},
			{"name": "c", "type": "f32", "count": 4096}],
		"params": [{"buffer": "a"}, {"buffer": "b"}, {"buffer": "c"}, {"u32": 64}]}`
	if err := os.WriteFile(filepath.Join(dir, "sgemm.json"), []byte(spec), 0o644); err != nil {
		t.Fatal(err)
	}
	specs = append(specs, filepath.Join(dir, "sgemm.json"))
	n := 0
	for _, path := range specs {
		if filepath.Base(path) == "index.json" {
			continue
		}
		n++
		for _, flags := range [][]string{nil, {"--no-check", "--analyze"}, {"--json-compact"}} {
			args := append(append([]string{"run"}, flags...), path)
			code, out, errs := cli(t, "", args...)
			for _, par := range []string{"--parallel", "--parallel=2", "--parallel=3"} {
				pargs := append(append([]string{"run", par}, flags...), path)
				pcode, pout, perrs := cli(t, "", pargs...)
				if pcode != code || pout != out || perrs != errs {
					t.Errorf("%v: exit %d, %d bytes out, stderr %q; sequential: exit %d, %d bytes, %q", pargs, pcode, len(pout), perrs, code, len(out), errs)
				}
			}
		}
	}
	if n < 5 {
		t.Fatalf("only %d specs", n)
	}
	// --parallel-report says how it ran.
	_, _, errs := cli(t, "", "run", "--parallel=2", "--parallel-report", filepath.Join(dir, "sgemm.json"))
	if !strings.Contains(errs, "sgemm.json: ran in parallel: 4 segments on 2 workers") {
		t.Errorf("--parallel-report on sgemm: %q", errs)
	}
	_, _, errs = cli(t, "", "run", "--parallel=2", "--parallel-report", filepath.Join("..", "..", "web", "examples", "histogram.json"))
	if !strings.Contains(errs, "histogram.json: ran sequentially: the kernel uses global atomics (red) (line ") {
		t.Errorf("--parallel-report on histogram: %q", errs)
	}
	_, _, errs = cli(t, "", "run", "--parallel-report", filepath.Join(dir, "sgemm.json"))
	if strings.Contains(errs, "ran") {
		t.Errorf("--parallel-report without --parallel: %q", errs)
	}
	// More workers than a parallel run uses: the same output, and a note.
	code, out, errs := cli(t, "", "run", filepath.Join(dir, "sgemm.json"))
	pcode, pout, perrs := cli(t, "", "run", "--parallel=1024", filepath.Join(dir, "sgemm.json"))
	if pcode != code || pout != out || perrs != errs+filepath.Join(dir, "sgemm.json")+": --parallel=1024: 1024 workers asked for; a parallel run uses at most 64\n" {
		t.Errorf("--parallel=1024: exit %d, stderr %q", pcode, perrs)
	}
	for _, bad := range []string{"--parallel=0", "--parallel=x", "--parallel=-2"} {
		code, _, errs := cli(t, "", "run", bad, filepath.Join(dir, "sgemm.json"))
		if code != 2 || !strings.Contains(errs, "want a number of workers from 1 to 1024") {
			t.Errorf("%s: exit %d, %q", bad, code, errs)
		}
	}
}

// TestRunPrintf: nvcc's printf module prints one line per thread in the
// result's "printf"; its assert faults with the assertion's text; check
// accepts it without a warning.
func TestRunPrintf(t *testing.T) {
	ptxPath, _ := filepath.Abs(filepath.Join("..", "..", "engine", "emu", "testdata", "printf_nvcc.ptx"))
	spec := fmt.Sprintf(`{"ptx": %q, "entry": "_Z5helloPKfi", "block": [4],
		"buffers": [{"name": "x", "type": "f32", "count": 4, "init": {"values": [1.5, -2, 0, 3.25]}}],
		"params": [{"buffer": "x"}, {"u32": 4}]}`, ptxPath)
	code, out, _ := cli(t, spec, "run", "-")
	if code != 0 {
		t.Fatalf("status %d\n%s", code, out)
	}
	m := resultOf(t, out)
	lines, _ := m["printf"].([]any)
	var texts []string
	for _, l := range lines {
		texts = append(texts, l.(map[string]any)["text"].(string))
	}
	want := []string{"block 0 thread 0: x[0] = 1.50 (even)\n", "block 0 thread 1: x[1] = -2.00 (odd)\n", "block 0 thread 2: x[2] = 0.00 (even)\n", "block 0 thread 3: x[3] = 3.25 (odd)\n"}
	if strings.Join(texts, "") != strings.Join(want, "") {
		t.Errorf("printf %q", texts)
	}
	code, out, _ = cli(t, strings.Replace(spec, "_Z5helloPKfi", "_Z14check_positivePKfi", 1), "run", "-")
	f, _ := resultOf(t, out)["fault"].(map[string]any)
	if code != 1 || f["kind"] != "assertion-failed" || f["message"] != "assertion failed: x[i] >= 0 at hello.cu:4 in void check_positive(const float *, int)" || f["thread"].([]any)[0] != 1.0 {
		t.Errorf("assert: %d %v", code, f)
	}
	code, out, errOut := cli(t, "", "check", ptxPath)
	if code != 0 || out != "" || errOut != "" {
		t.Errorf("check: %d %q %q", code, out, errOut)
	}
}

// tmaInitKernel copies a 32x32 u32 tile with TMA through a tensor map
// whose address is a .u64 parameter (as Triton passes it) and stores the
// first 128 elements out, one per thread.
const tmaInitKernel = `.version 8.0
.target sm_90a
.address_size 64
.visible .entry tma_tile(.param .u64 tma_desc, .param .u64 out) .reqntid 128
{
	.reg .pred %p<3>;
	.reg .b32 %r<10>;
	.reg .b64 %rd<6>;
	.shared .align 128 .b8 tile[4096];
	.shared .align 8 .b64 bar;
	ld.param.u64 %rd1, [tma_desc];
	ld.param.u64 %rd2, [out];
	mov.u32 %r1, %tid.x;
	setp.eq.u32 %p1, %r1, 0;
	@%p1 mbarrier.init.shared::cta.b64 [bar], 1;
	bar.sync 0;
	mov.u32 %r2, 0;
	@%p1 mbarrier.arrive.expect_tx.shared::cta.b64 _, [bar], 4096;
	@%p1 cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [tile], [%rd1, {%r2, %r2}], [bar];
WAIT:
	mbarrier.try_wait.parity.shared::cta.b64 %p2, [bar], 0;
	@!%p2 bra WAIT;
	mov.u32 %r3, tile;
	shl.b32 %r4, %r1, 2;
	add.s32 %r5, %r3, %r4;
	ld.shared.u32 %r6, [%r5];
	mul.wide.u32 %rd3, %r1, 4;
	add.s64 %rd4, %rd2, %rd3;
	st.global.u32 [%rd4], %r6;
	ret;
}
`

// TestRunProxyFenceWarning: the missing fence.proxy.async is printed as
// what it is, a TMA store reading generic-proxy writes, naming both lines
// (not in the words of a cp.async read).
func TestRunProxyFenceWarning(t *testing.T) {
	spec := filepath.Join("..", "..", "web", "examples", "tma-missing-fence.json")
	code, _, errOut := cli(t, "", "run", spec)
	if code != 0 {
		t.Fatalf("status %d\n%s", code, errOut)
	}
	want := "tma-missing-fence.ptx:49: warning: missing-proxy-fence at shared offset 0: the TMA store at line 49 (thread 0 of CTA 0) reads shared memory that thread 0 of CTA 0 wrote at line 44 through the generic proxy, with no fence.proxy.async between them"
	if !strings.Contains(errOut, want) || strings.Contains(errOut, "cp.async (line") {
		t.Errorf("standard error:\n%s\nwant %q", errOut, want)
	}
}
