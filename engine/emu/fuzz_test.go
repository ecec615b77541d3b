package emu

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/ptxplayground/ptxplay/engine/ptx"
)

// FuzzCompile feeds arbitrary text through the parser, the checker and the
// lowering, and runs what compiles for a bounded number of instructions:
// nothing may panic, every diagnostic span (and its notes') must lie in the
// source, every diagnostic has an ID of the table, and the
// diagnostics (syntax and semantic errors merged) are sorted, distinct and
// capped.
func FuzzCompile(f *testing.F) {
	for _, dir := range []string{"../../../shared/conformance/zluda", "testdata/errors"} {
		files, _ := filepath.Glob(filepath.Join(dir, "*.ptx"))
		for _, file := range files {
			if b, err := os.ReadFile(file); err == nil && len(b) < 16<<10 {
				f.Add(b)
			}
		}
	}
	f.Add([]byte(ctlHeader + ".visible .entry k(.param .u64 out) { .reg .u32 %r<2>; mov.u32 %r1, %tid.x; ret; }"))
	f.Fuzz(func(t *testing.T, text []byte) {
		src := ptx.NewSource("f.ptx", text)
		prog, diags := CompileSource(src)
		errs := 0
		for i, d := range diags {
			if d.Span.Start < 0 || d.Span.End < d.Span.Start || int(d.Span.End) > len(text) {
				t.Fatalf("bad span %v in %d bytes: %s", d.Span, len(text), d.Message)
			}
			if !ptx.KnownID(d.ID) {
				t.Fatalf("diagnostic without a known ID: %s", d.Format(src))
			}
			for _, n := range d.Notes {
				if n.Span.Start < 0 || n.Span.End < n.Span.Start || int(n.Span.End) > len(text) || n.Message == "" {
					t.Fatalf("bad note %+v of %s", n, d.Format(src))
				}
			}
			if d.Severity == ptx.SevError {
				errs++
			}
			if i == 0 || d.Severity == ptx.SevNote {
				continue
			}
			// Sorted by position, without duplicates (the note ends the list).
			if p := diags[i-1]; p.Span.Start > d.Span.Start || p.Equal(d) {
				t.Fatalf("diagnostics out of order or repeated: %v then %v", p, d)
			}
		}
		if errs > ptx.MaxErrors || (prog != nil) == (errs > 0) {
			t.Fatalf("%d errors, program %v", errs, prog != nil)
		}
		if prog == nil {
			return
		}
		for _, e := range prog.Entries() {
			m, err := NewMachine(prog, e.Name, Config{Grid: [3]int{2, 1, 1}, Block: [3]int{40, 1, 1},
				DynamicSharedBytes: 256, MaxWarpInstructions: 2000})
			if err != nil {
				continue
			}
			for i := range m.Kernel().Params {
				if p := m.Kernel().Params[i]; p.Size == 8 {
					a := m.Global.Alloc(p.Name, 4096, 256)
					putLE(m.Params()[p.Offset:p.Offset+8], a.Base)
				}
			}
			m.Run(context.Background())
			if f := m.Fault(); f != nil && f.Kind == FaultInternal {
				t.Fatalf("internal error: %s", f.Message)
			}
		}
	})
}
