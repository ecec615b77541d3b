package launch

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ptxplayground/ptxplay/engine/emu"
	"github.com/ptxplayground/ptxplay/engine/isa"
)

// effectPrograms compiles the corpora, the ZLUDA suite and the gallery.
func effectPrograms(t *testing.T) map[string]*emu.Program {
	t.Helper()
	files := corpusModules(t)
	for _, dir := range []string{filepath.Join(sharedDir, "corpus", "gpuocelot"), "../../web/examples", "../emu/testdata", "../../cmd/ptxplay/testdata"} {
		_ = filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(path, ".ptx") {
				files = append(files, path)
			}
			return nil
		})
	}
	out := map[string]*emu.Program{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil || len(b) > 4<<20 {
			continue
		}
		if p, _, _ := Compile(f, b); p != nil && len(p.Ops) > 0 {
			out[f] = p
		}
	}
	if len(out) == 0 {
		skipOrFail(t, "no PTX found")
	}
	return out
}

// TestAnalysisEffectsAsBefore: the parameter analysis reads the effects
// and register operands computed at lowering, and classifies every
// instruction of the corpora as the opcode tables it replaced did (kept
// here, as they were, for the comparison): the same memory directions and
// control flow, and every value destination and source the tables knew.
// (Over these corpora Kernels and Infer give the same results with both.)
func TestAnalysisEffectsAsBefore(t *testing.T) {
	n := 0
	diffs := map[string]int{}
	for name, p := range effectPrograms(t) {
		a := &analyzer{p: p}
		for pc := range p.Ops {
			op := &p.Ops[pc]
			n++
			if isa.Info[op.Code].Family == isa.FamHopper {
				// The tables predate the Hopper instructions: they knew
				// nothing of them (TestAnalysisReadsOperandRoles covers
				// what the effects say).
				continue
			}
			where := name + ": " + isa.Info[op.Code].Name + " " + op.Eff.String()
			r1, w1, t1 := memDirection(op)
			r2, w2, t2 := oldMemDirection(op.Code)
			if globalOperand(p, pc) && (r1 != r2 || w1 != w2 || t1 != t2) {
				t.Errorf("%s: memDirection %v %v %v, was %v %v %v", where, r1, w1, t1, r2, w2, t2)
			}
			if a, b := flowOf(op), oldFlowOf(op); a != b {
				t.Errorf("%s: control flow %d, was %d", where, a, b)
			}
			if a, b := op.Eff.Has(emu.EffCall), op.Code == isa.OpCall; a != b {
				t.Errorf("%s: call %v, was %v", where, a, b)
			}
			if op.Type == isa.Pred {
				continue // the analysis skips them
			}
			// Every destination and source the tables knew is still one;
			// the operands add those of the instructions they did not
			// list (vote.ballot's D, bar's thread count, mma's fragments,
			// ...: TestAnalysisReadsOperandRoles).
			if op.D >= 0 {
				switch a, b := a.writesValue(pc, op.D), oldValueDst[op.Code]; {
				case b && !a:
					t.Errorf("%s: D is no longer a value destination", where)
				case a && !b:
					diffs[isa.Info[op.Code].Name+" dst"]++
				}
			}
			if old := oldValueSrcs(op); old != nil {
				now := a.valueSrcs(pc)
				for _, r := range old {
					if !slices.Contains(now, r) {
						t.Errorf("%s: source %d no longer read (%v, was %v)", where, r, now, old)
					}
				}
				for _, r := range now {
					if !slices.Contains(old, r) {
						diffs[isa.Info[op.Code].Name+" src"]++
					}
				}
			} else if now := a.valueSrcs(pc); len(now) > 0 {
				diffs[isa.Info[op.Code].Name+" new src"]++
			}
		}
	}
	t.Logf("%d instructions compared; operands the tables did not know: %v", n, diffs)
}

// globalOperand reports whether the instruction at pc has a global or
// generic memory operand (those accesses reads memDirection for).
func globalOperand(p *emu.Program, pc int) bool {
	for _, m := range p.MemOperands {
		if int(m.PC) == pc && (m.Space == isa.Global || m.Space == isa.SpaceNone) {
			return true
		}
	}
	return false
}

// flowOf is how blocks links the block op ends: 1 a jump, 2 a table,
// 3 no fall-through, 0 on to the next.
func flowOf(op *emu.Op) int {
	switch e := op.Eff; {
	case e.Has(emu.EffBranch | emu.EffIndirect):
		return 2
	case e.Has(emu.EffBranch):
		return 1
	case e.Any(emu.EffReturn | emu.EffExit):
		return 3
	}
	return 0
}

// The tables as they were, switching on opcodes.

func oldFlowOf(op *emu.Op) int {
	switch op.Code {
	case isa.OpBra:
		return 1
	case isa.OpBrx:
		return 2
	case isa.OpRet, isa.OpExit:
		return 3
	}
	return 0
}

var oldValueDst = opSet(isa.OpAdd, isa.OpSub, isa.OpMul, isa.OpMad, isa.OpMul24, isa.OpMad24, isa.OpSad,
	isa.OpDiv, isa.OpRem, isa.OpAbs, isa.OpNeg, isa.OpMin, isa.OpMax, isa.OpPopc, isa.OpClz, isa.OpBfind,
	isa.OpFns, isa.OpBrev, isa.OpBfe, isa.OpBfi, isa.OpBmsk, isa.OpSzext, isa.OpDp4a, isa.OpDp2a,
	isa.OpAddc, isa.OpSubc, isa.OpMadc, isa.OpCopysign, isa.OpFma, isa.OpRcp, isa.OpSqrt, isa.OpRsqrt,
	isa.OpSin, isa.OpCos, isa.OpLg2, isa.OpEx2, isa.OpTanh, isa.OpSet, isa.OpSelp, isa.OpSlct,
	isa.OpAnd, isa.OpOr, isa.OpXor, isa.OpNot, isa.OpCnot, isa.OpLop3, isa.OpShf, isa.OpShl, isa.OpShr,
	isa.OpMov, isa.OpShfl, isa.OpPrmt, isa.OpLd, isa.OpLdu, isa.OpCvta, isa.OpCvt, isa.OpAtom,
	isa.OpActivemask, isa.OpRedux, isa.OpVshr)

func oldValueSrcs(op *emu.Op) []int32 {
	var out []int32
	add := func(rs ...int32) {
		for _, r := range rs {
			if r >= 0 {
				out = append(out, r)
			}
		}
	}
	switch {
	case op.Type == isa.Pred:
	case op.Code == isa.OpLd, op.Code == isa.OpLdu, op.Code == isa.OpCvta, op.Code == isa.OpCvt:
		add(op.A)
	case op.Code == isa.OpMov:
		add(op.A)
		if op.D >= 0 {
			add(op.Regs...)
		}
	case op.Code == isa.OpSt:
		add(op.A, op.B)
		add(op.Regs...)
	case op.Code == isa.OpAtom, op.Code == isa.OpRed:
		add(op.A, op.B, op.C)
		if op.D < 0 || op.Vec > 1 {
			add(op.Regs...)
		}
	case op.Code == isa.OpSetp, op.Code == isa.OpSet, op.Code == isa.OpSelp:
		add(op.A, op.B)
	case op.Code == isa.OpCpAsync:
		add(op.A, op.E)
	case oldValueDst[op.Code] && op.Code != isa.OpActivemask:
		add(op.A, op.B, op.C)
	}
	return out
}

func oldMemDirection(code isa.Opcode) (read, write, typed bool) {
	switch code {
	case isa.OpLd, isa.OpLdu, isa.OpWmmaLoad, isa.OpLdmatrix:
		return true, false, true
	case isa.OpSt, isa.OpWmmaStore, isa.OpStmatrix:
		return false, true, true
	case isa.OpAtom, isa.OpRed:
		return true, true, true
	case isa.OpCpAsync:
		return true, false, false // its size is in bytes, not elements
	}
	return false, false, false
}

// operandRolesPTX: n's register is overwritten by vote.ballot before it
// reaches an address, and cnt is used only as bar.sync's thread count.
const operandRolesPTX = `
.version 7.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 out, .param .u32 n, .param .u32 cnt)
{
	.reg .u64 %rd<4>;
	.reg .u32 %r<4>;
	.reg .pred %p;
	ld.param.u64 %rd1, [out];
	ld.param.u32 %r1, [n];
	ld.param.u32 %r2, [cnt];
	bar.sync 0, %r2;
	mov.u32 %r3, %tid.x;
	setp.eq.u32 %p, %r3, 0;
	vote.sync.ballot.b32 %r1, %p, 0xffffffff;
	cvt.u64.u32 %rd2, %r1;
	add.u64 %rd3, %rd1, %rd2;
	st.global.u32 [%rd3], %r3;
	ret;
}
`

// TestAnalysisReadsOperandRoles: the parameter analysis takes what an
// instruction reads and writes from the register operands recorded at
// lowering, so an instruction outside the arithmetic it models still
// writes its destination (vote.ballot: n's value no longer flows into the
// address) and reads its sources (bar.sync's thread count uses cnt).
func TestAnalysisReadsOperandRoles(t *testing.T) {
	p := compileLaunchTest(t, operandRolesPTX)
	ks := Kernels(p)
	if len(ks) != 1 || len(ks[0].Params) != 3 {
		t.Fatalf("kernels %+v", ks)
	}
	got := map[string]KernelParam{}
	for _, kp := range ks[0].Params {
		got[kp.Name] = kp
	}
	if kp := got["out"]; kp.Role != RolePointer || kp.Access != "write" || kp.ElemType != "u32" {
		t.Errorf("out: %+v, want a u32 pointer written", kp)
	}
	if kp := got["n"]; kp.Role != RoleUnused || kp.Use != "" {
		t.Errorf("n: %+v, want unused (vote.ballot overwrites its register before the address is formed)", kp)
	}
	if kp := got["cnt"]; kp.Role != RoleScalar {
		t.Errorf("cnt: %+v, want a scalar (bar.sync reads it)", kp)
	}
}
