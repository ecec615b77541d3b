package launch

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/ptxplayground/ptxplay/engine/emu"
	"github.com/ptxplayground/ptxplay/engine/ptx"
)

func printfLaunch(t *testing.T, spec string) *Launch {
	t.Helper()
	src, err := os.ReadFile("../emu/testdata/printf_nvcc.ptx")
	if err != nil {
		t.Fatal(err)
	}
	prog, diags := emu.CompileSource(ptx.NewSource("printf_nvcc.ptx", src))
	if prog == nil {
		t.Fatal(diags)
	}
	s, err := ParseSpec([]byte(spec))
	if err != nil {
		t.Fatal(err)
	}
	l, err := Prepare(prog, s)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

const printfSpec = `{"version": 1, "ptx": "printf_nvcc.ptx", "entry": "_Z5helloPKfi", "grid": [2, 1, 1], "block": [32, 1, 1],
	"buffers": [{"name": "x", "type": "f32", "count": 40, "init": {"iota": {"start": 0, "step": 0.5}}}],
	"params": [{"buffer": "x"}, {"u32": 40}]}`

// The result JSON carries the printf output: one object per thread's call
// with its step, source line, CTA and thread; a parallel run of a kernel
// that prints runs sequentially (the lines keep their order).
func TestResultPrintf(t *testing.T) {
	for _, parallel := range []bool{false, true} {
		l := printfLaunch(t, printfSpec)
		res, rep, err := l.RunWith(context.Background(), RunOptions{Parallel: parallel, Workers: 2})
		if err != nil {
			t.Fatal(err)
		}
		if parallel && (rep.Parallel || !strings.Contains(rep.Reason, "calls printf (line 99)")) {
			t.Errorf("parallel report: %+v", rep)
		}
		var got struct {
			Printf []struct {
				Step   int64
				Line   int
				CTA    [3]int
				Thread [3]int
				Text   string
			}
			PrintfDropped int64
		}
		if err := json.Unmarshal(res.AppendJSON(nil, true), &got); err != nil {
			t.Fatal(err)
		}
		if len(got.Printf) != 40 {
			t.Fatalf("%d lines", len(got.Printf))
		}
		p := got.Printf[33]
		if p.Text != "block 1 thread 1: x[33] = 16.50 (odd)\n" || p.CTA != [3]int{1, 0, 0} || p.Thread != [3]int{1, 0, 0} || p.Line != 99 || p.Step == 0 {
			t.Errorf("line 33: %+v", p)
		}
	}
}

// Past the limit, lines are dropped, counted and explained.
func TestResultPrintfDropped(t *testing.T) {
	l := printfLaunch(t, printfSpec)
	l.m.SetMaxPrintfBytes(5 * (emu.PrintfLineOverhead + 40))
	res, err := l.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	b := string(res.AppendJSON(nil, false))
	if len(res.Printf) != 5 || res.PrintfDropped != 35 || !strings.Contains(b, `"printfDropped":35,"printfNote":"printf output stopped at the launch's limit of 840 bytes`) {
		t.Errorf("%d lines, %d dropped: %s", len(res.Printf), res.PrintfDropped, b)
	}
}
