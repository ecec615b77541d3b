package emu

import (
	"fmt"
	"math"
	"math/rand"
	"strings"
	"testing"

	"github.com/ptxplayground/ptxplay/engine/fpx"
	"github.com/ptxplayground/ptxplay/engine/isa"
)

// The floating-point mma executor (execMmaFloat: gathers, the vector
// products of mma_fma_amd64.s or the portable loop, the rounding scatters)
// against the definition computed element by element from the fragment
// table: D[i][j] = C[i][j] plus the K products in ascending k, each exact,
// accumulated in f64 and rounded once to nearest even (a NaN is the
// canonical NaN). Inputs include NaN, infinities, subnormals, negative
// zero and raw random encodings; results are compared bit for bit, with
// the vector path on and off.

// mmaSpecial holds special encodings of each input type.
var mmaSpecial = map[string][]uint64{
	"f16":  {0x0000, 0x8000, 0x7c00, 0xfc00, 0x7e00, 0x7d01, 0xfe00, 0x0001, 0x8001, 0x03ff, 0x83ff, 0x0400, 0x7bff, 0xfbff, 0x3c00, 0xbc00},
	"bf16": {0x0000, 0x8000, 0x7f80, 0xff80, 0x7fc0, 0x7f81, 0x0001, 0x8001, 0x007f, 0x807f, 0x0080, 0x7f7f, 0xff7f, 0x3f80, 0xbf80},
	"f32": {0x00000000, 0x80000000, 0x7f800000, 0xff800000, 0x7fc00000, 0x7f800001, 0x00000001, 0x80000001,
		0x007fffff, 0x807fffff, 0x00800000, 0x7f7fffff, 0xff7fffff, 0x3f800000, 0x33800000, 0x4b800000},
	"e4m3": {0x00, 0x80, 0x7f, 0xff, 0x01, 0x81, 0x07, 0x08, 0x7e, 0xfe, 0x38},
	"e5m2": {0x00, 0x80, 0x7c, 0xfc, 0x7e, 0x7d, 0x01, 0x81, 0x03, 0x7b, 0xfb, 0x3c},
}

// mmaTestElem draws an element of type t: mode 0 moderate values, mode 1
// those with some special encodings, mode 2 mostly raw random encodings
// and special ones (NaN and infinities then propagate, sums overflow),
// mode 3 finite values of any exponent (f32: of 2^-40 to 2^24), so that
// the f64 sums round and the order of the additions shows.
func mmaTestElem(rng *rand.Rand, t string, mode int) uint64 {
	bits := isa.FragTypeBits(t)
	if t == "tf32" {
		bits = 32
	}
	if mode == 3 {
		switch t {
		case "f32", "tf32":
			f := (1 + rng.Float64()) * math.Ldexp(1, rng.Intn(65)-40)
			if rng.Intn(2) == 0 {
				f = -f
			}
			return uint64(math.Float32bits(float32(f))) | uint64(rng.Intn(1<<13))
		}
		for {
			x := rng.Uint64() & (1<<bits - 1)
			if !math.IsNaN(toFloat(t, x)) && !math.IsInf(toFloat(t, x), 0) {
				return x
			}
		}
	}
	sp := mmaSpecial[t]
	if t == "tf32" {
		sp = mmaSpecial["f32"]
	}
	switch {
	case mode >= 1 && rng.Intn(20) < 2*mode:
		x := sp[rng.Intn(len(sp))]
		if t == "tf32" {
			x |= uint64(rng.Intn(1 << 13)) // the ignored bits
		}
		return x
	case mode == 2 && rng.Intn(2) == 0:
		return rng.Uint64() & (1<<bits - 1)
	}
	return randomElem(rng, t, false)
}

// mmaFastKernel returns a kernel holding one instruction of form fi with
// its operands in registers (mma or wmma.mma).
func mmaFastKernel(fi *isa.FragInstr) string {
	if fi.Op == "mma" {
		src, _, _ := mmaKernel(fi, "")
		return src
	}
	od, oa, ob, oc := fi.Operand("d"), fi.Operand("a"), fi.Operand("b"), fi.Operand("c")
	vec := func(p string, n int) string {
		var s []string
		for i := 0; i < n; i++ {
			s = append(s, fmt.Sprintf("%%%s%d", p, i))
		}
		return "{" + strings.Join(s, ", ") + "}"
	}
	types := od.Type + "." + oa.Type + "." + ob.Type + "." + oc.Type
	if oa.Type == "f16" {
		types = od.Type + "." + oc.Type
	}
	return fmt.Sprintf("%s.visible .entry k(.param .u64 pout) {\n\t.reg .b32 %%a<%d>, %%b<%d>, %%c<%d>, %%d<%d>;\n\twmma.mma.sync.aligned.row.col.%s.%s %s, %s, %s, %s;\n\tret;\n}\n",
		memHdr, oa.Regs, ob.Regs, oc.Regs, od.Regs, fi.Shape, types, vec("d", od.Regs), vec("a", oa.Regs), vec("b", ob.Regs), vec("c", oc.Regs))
}

// mmaWant computes D of form fi from matrices A, B, C of raw element bits.
func mmaWant(fi *isa.FragInstr, A, B, C [][]uint64) [][]uint64 {
	d, oa, ob, oc := fi.Operand("d"), fi.Operand("a"), fi.Operand("b"), fi.Operand("c")
	groups := max(fi.Groups, 1)
	out := make([][]uint64, d.Rows)
	for i := range out {
		out[i] = make([]uint64, d.Cols)
		for j := range out[i] {
			s := toFloat(oc.Type, C[i][j])
			for k := 0; k < oa.Cols; k++ {
				// Group g's B: rows g*K to g*K+K-1.
				s += toFloat(oa.Type, A[i][k]) * toFloat(ob.Type, B[i/(oa.Rows/groups)*oa.Cols+k][j])
			}
			switch {
			case s != s && d.Type == "f32":
				out[i][j] = uint64(fpx.NaN32)
			case s != s:
				out[i][j] = uint64(fpx.NaN16)
			case d.Type == "f32":
				out[i][j] = uint64(math.Float32bits(float32(s)))
			default:
				out[i][j] = uint64(fpx.F64ToF16(math.Float64bits(s), fpx.RN, 0))
			}
		}
	}
	return out
}

func TestMmaFloatFastPathExact(t *testing.T) {
	if !mmaFMA && !mmaVecPortable {
		t.Log("no vector path on this processor: checking the portable loop only")
	}
	saved := mmaFMA
	defer func() { mmaFMA = saved }()
	rng := rand.New(rand.NewSource(26))
	forms := 0
	for fx := range isa.FragmentTable() {
		fi := &isa.FragmentTable()[fx]
		if (fi.Op != "mma" && fi.Op != "wmma.mma") || fi.Sparse != nil || tensorFormAt(int32(fx)).kind != tkFloat {
			continue
		}
		forms++
		t.Run(fi.Key, func(t *testing.T) {
			m, _ := ctlKernel(t, mmaFastKernel(fi), [3]int{32, 1, 1}, [3]int{1, 1, 1}, 1)
			var op *Op
			for i := range m.prog.Ops {
				if c := m.prog.Ops[i].Code; c == isa.OpMma || c == isa.OpWmmaMma {
					op = &m.prog.Ops[i]
				}
			}
			if op == nil || op.Aux != int32(fx) {
				t.Fatalf("the kernel's instruction is not form %s", fi.Key)
			}
			m.Step(StepWarpInstruction) // make the CTA resident
			w := m.warps[0]
			names := []string{"d", "a", "b", "c"}
			for trial := 0; trial < 60; trial++ {
				mode := min(trial%6, 4)
				mats := map[string][][]uint64{}
				for oi, name := range names[1:] {
					o := fi.Operand(name)
					emode := mode
					if mode == 4 {
						emode = 3
					}
					mat := make([][]uint64, o.Rows)
					for i := range mat {
						mat[i] = make([]uint64, o.Cols)
						for j := range mat[i] {
							mat[i][j] = mmaTestElem(rng, o.Type, emode)
						}
					}
					mats[name] = mat
					// Every register of the operand (copies included) from
					// the matrix, through the table's elements.
					slots := tensorOperand(op, oi+1)
					bits := isa.FragTypeBits(o.Type)
					for _, s := range slots {
						clear(w.r(s)[:])
					}
					for _, e := range o.Elems {
						w.r(slots[e.Reg])[e.Lane] |= mat[e.Row][e.Col] << (uint(e.Part) * uint(bits))
					}
				}
				if mode == 4 {
					// Cancellation: C[i][j] is minus one of its products, so
					// that what the f64 sum rounds away before it shows.
					oa, oc := fi.Operand("a"), fi.Operand("c")
					groups := max(fi.Groups, 1)
					C := mats["c"]
					for i := range C {
						for j := range C[i] {
							k := rng.Intn(oa.Cols)
							p := toFloat(oa.Type, mats["a"][i][k]) * toFloat(fi.Operand("b").Type, mats["b"][i/(oa.Rows/groups)*oa.Cols+k][j])
							C[i][j] = fromFloat(oc.Type, -p)
						}
					}
					o, slots := fi.Operand("c"), tensorOperand(op, 3)
					for _, s := range slots {
						clear(w.r(s)[:])
					}
					for _, e := range o.Elems {
						w.r(slots[e.Reg])[e.Lane] |= C[e.Row][e.Col] << (uint(e.Part) * uint(isa.FragTypeBits(o.Type)))
					}
				}
				want := mmaWant(fi, mats["a"], mats["b"], mats["c"])
				od := fi.Operand("d")
				dslots := tensorOperand(op, 0)
				for _, fast := range []bool{true, false} {
					if fast && !saved && !mmaVecPortable {
						continue
					}
					mmaFMA = fast
					for _, s := range dslots {
						for l := range w.r(s) {
							w.r(s)[l] = 0xdead
						}
					}
					if f := op.Exec(w, op, ^uint32(0)); f != nil {
						t.Fatal(f)
					}
					lanes := make([][]uint64, 32)
					for l := range lanes {
						for _, s := range dslots {
							lanes[l] = append(lanes[l], w.r(s)[l])
						}
					}
					got := mmaMatrix(od, lanes)
					for i := range want {
						for j := range want[i] {
							if got[i][j] != want[i][j] {
								t.Fatalf("trial %d (mode %d), vector path %v: D[%d][%d] = %#x, want %#x", trial, mode, fast, i, j, got[i][j], want[i][j])
							}
						}
					}
				}
			}
		})
	}
	if forms < 40 {
		t.Fatalf("%d float mma forms checked, want every one (at least 40)", forms)
	}
}
