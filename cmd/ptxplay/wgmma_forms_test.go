package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ptxplayground/ptxplay/engine/isa"
)

// `ptxplay check` accepts every wgmma.mma_async form of the forms table,
// dense and structured-sparse (wgmma.mma_async.sp), with A from a
// descriptor and from registers: no diagnostic, in particular no "not
// supported".
func TestCheckEveryWgmmaForm(t *testing.T) {
	var sb strings.Builder
	sb.WriteString(".version 8.4\n.target sm_90a\n.address_size 64\n.visible .entry k() {\n\t.reg .b32 %d<128>, %a<4>, %e;\n\t.reg .b64 %rd<3>;\n\t.reg .pred %p;\n")
	sb.WriteString("\tmov.b64 %rd1, 0;\n\tmov.b64 %rd2, 0;\n\tmov.b32 %e, 0;\n\tsetp.eq.u32 %p, %e, 0;\n\tmov.b32 %a0, 0;\n\tmov.b32 %a1, 0;\n\tmov.b32 %a2, 0;\n\tmov.b32 %a3, 0;\n")
	for i := 0; i < 128; i++ {
		fmt.Fprintf(&sb, "\tmov.b32 %%d%d, 0;\n", i)
	}
	sb.WriteString("\twgmma.fence.sync.aligned;\n")
	forms := isa.WgmmaForms()
	sparse := 0
	for _, f := range forms {
		dregs := f.N / 2
		if f.DType == "f16" {
			dregs = f.N / 4
		}
		var d []string
		for i := 0; i < dregs; i++ {
			d = append(d, fmt.Sprintf("%%d%d", i))
		}
		var ar []string // a register A: the fragment table's registers
		for i := 0; i < isa.WgmmaFragments(f).Operand("a").Regs; i++ {
			ar = append(ar, fmt.Sprintf("%%a%d", i))
		}
		sp, spOps, tail := "", "", ""
		if f.Sparse {
			sp, spOps = ".sp", ", %e, 0"
			sparse++
		}
		if f.AType == "b1" {
			tail = ".and.popc"
		}
		types := "." + f.DType + "." + f.AType + "." + f.AType
		if f.AType == "b1" {
			types = ".s32.b1.b1"
		}
		for _, regA := range []bool{false, true} {
			a, imms := "%rd1", ""
			switch {
			case f.DType == "s32":
			case f.AType == "f16" || f.AType == "bf16":
				imms = ", 1, 1, 0, 0"
				if regA {
					imms = ", 1, 1, 0"
				}
			default:
				imms = ", 1, 1"
			}
			if regA {
				a = "{" + strings.Join(ar, ", ") + "}"
			}
			fmt.Fprintf(&sb, "\twgmma.mma_async%s.sync.aligned.m64n%dk%d%s%s {%s}, %s, %%rd2%s, %%p%s;\n", sp, f.N, f.K, types, tail, strings.Join(d, ", "), a, spOps, imms)
		}
	}
	sb.WriteString("\twgmma.commit_group.sync.aligned;\n\twgmma.wait_group.sync.aligned 0;\n\tret;\n}\n")
	if sparse == 0 {
		t.Fatal("the forms table lists no sparse form")
	}
	file := filepath.Join(t.TempDir(), "wgmma_forms.ptx")
	if err := os.WriteFile(file, []byte(sb.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := cli(t, "", "check", file)
	if code != 0 || out != "" || strings.Contains(errs, "not supported") {
		t.Fatalf("check over %d forms (%d sparse): exit %d:\n%.3000s\n%.1000s", len(forms), sparse, code, out, errs)
	}
}
