package emu

import (
	"fmt"
	"math"
	"math/rand"
	"strings"
	"testing"

	"github.com/ptxplayground/ptxplay/engine/isa"
)

// The sparse storage rules of PTX ISA 9.7.14.6.1, written out for the
// tests independently of the fragment table: per A type, the chunk width of
// a logical row, the elements it keeps and how many elements one 2-bit index
// places (.tf32: one element per 4-bit index 0b0100 / 0b1110); per form, how
// many threads of each group of four supply metadata (m16n8k16 .f16 and
// m16n8k8 .tf32: one, selector 0..3; m16n8k32 .f16, m16n8k16 .tf32,
// m16n8k32 .s8 and m16n8k64 .s4: a pair, selector 0 or 1; m16n8k64 .s8/.e4m3
// and m16n8k128 .s4: all four, selector 0).
type spRule struct {
	chunk, keep, unit int // logical elements per chunk, kept, elements per index
	threads           int
}

func sparseRule(shape, a string) spRule {
	r := spRule{chunk: 4, keep: 2, unit: 1}
	switch a {
	case "tf32":
		r = spRule{chunk: 2, keep: 1, unit: 1}
	case "s4", "u4":
		r = spRule{chunk: 8, keep: 4, unit: 2}
	}
	switch shape + "." + a {
	case "m16n8k16.f16", "m16n8k16.bf16", "m16n8k8.tf32":
		r.threads = 1
	case "m16n8k32.f16", "m16n8k32.bf16", "m16n8k16.tf32", "m16n8k32.s8", "m16n8k32.u8", "m16n8k64.s4", "m16n8k64.u4":
		r.threads = 2
	default:
		r.threads = 4
	}
	return r
}

// sparseMetaLane returns where the metadata of chunk j of row r lives with
// selector sel: the lane and the bit offset of its nibble. The metadata of a
// row is a run of 16-bit words, four chunks each (chunk 4h+c at bits 4c of
// word h); word h of row r is held by lane 4*(r mod 8) + sel*threads + h,
// rows 0-7 in the low half of the register and rows 8-15 in the high half.
func sparseMetaLane(r, j, sel, threads int) (lane, bit int) {
	h, c := j/4, j%4
	lane = 4*(r%8) + sel*threads + h
	bit = 4 * c
	if r >= 8 {
		bit += 16
	}
	return
}

// sparseKernel is mmaKernel for mma.sp: each lane loads A, B, C and then its
// metadata word e.
func sparseKernel(fi *isa.FragInstr, variant, mods string, sel int) (src string, inWords, outWords int) {
	d, a, b, c := fi.Operand("d"), fi.Operand("a"), fi.Operand("b"), fi.Operand("c")
	inWords, outWords = a.Regs+b.Regs+c.Regs+1, d.Regs
	var sb strings.Builder
	fmt.Fprintf(&sb, "%s.visible .entry k(.param .u64 pin, .param .u64 pout) {\n", memHdr)
	fmt.Fprintf(&sb, "\t.reg .b32 %%a<%d>, %%b<%d>, %%c<%d>, %%d<%d>, %%e;\n\t.reg .u64 %%rd<4>; .reg .u32 %%t;\n", a.Regs, b.Regs, c.Regs, d.Regs)
	fmt.Fprintf(&sb, "\tld.param.u64 %%rd1, [pin];\n\tld.param.u64 %%rd2, [pout];\n\tmov.u32 %%t, %%tid.x;\n")
	fmt.Fprintf(&sb, "\tmul.wide.u32 %%rd3, %%t, %d;\n\tadd.u64 %%rd1, %%rd1, %%rd3;\n", inWords*4)
	off := 0
	list := func(p string, n int, load bool) string {
		var names []string
		for i := 0; i < n; i++ {
			names = append(names, fmt.Sprintf("%%%s%d", p, i))
			if load {
				fmt.Fprintf(&sb, "\tld.global.b32 %%%s%d, [%%rd1+%d];\n", p, i, off)
				off += 4
			}
		}
		return "{" + strings.Join(names, ", ") + "}"
	}
	la, lb, lc := list("a", a.Regs, true), list("b", b.Regs, true), list("c", c.Regs, true)
	fmt.Fprintf(&sb, "\tld.global.b32 %%e, [%%rd1+%d];\n", off)
	ld := list("d", d.Regs, false)
	fmt.Fprintf(&sb, "\tmma.%s.sync.aligned.%s%s %s, %s, %s, %s, %%e, %d;\n", variant, strings.TrimPrefix(fi.Key, "mma.sp."), mods, ld, la, lb, lc, sel)
	fmt.Fprintf(&sb, "\tmul.wide.u32 %%rd3, %%t, %d;\n\tadd.u64 %%rd2, %%rd2, %%rd3;\n", d.Regs*4)
	for i := 0; i < d.Regs; i++ {
		fmt.Fprintf(&sb, "\tst.global.b32 [%%rd2+%d], %%d%d;\n", i*4, i)
	}
	sb.WriteString("\tret;\n}\n")
	return sb.String(), inWords, outWords
}

// packOperand places the elements of matrix m (raw bits) into each lane's
// registers by the operand's layout.
func packOperand(o *isa.FragOperand, m [][]uint64) [][]uint64 {
	bits := isa.FragTypeBits(o.Type)
	regs := make([][]uint64, 32)
	for l := range regs {
		regs[l] = make([]uint64, o.Regs)
	}
	for _, e := range o.Elems {
		regs[e.Lane][e.Reg] |= (m[e.Row][e.Col] & (1<<bits - 1)) << (uint(e.Part) * uint(bits))
	}
	return regs
}

func matrixOf(rows, cols int, f func(i, j int) uint64) [][]uint64 {
	m := make([][]uint64, rows)
	for i := range m {
		m[i] = make([]uint64, cols)
		for j := range m[i] {
			m[i][j] = f(i, j)
		}
	}
	return m
}

// sparseCase is one random input of a sparse form: the logical A (zeros
// where the metadata does not point), its compressed form, and the metadata
// word of every lane.
type sparseCase struct {
	logical, packed [][]uint64
	e               []uint64
}

// randomSparse draws a sparse A: in every chunk of every row, keep/unit
// distinct index positions (increasing when ordered, else in random order),
// nonzero values of type t there, and the metadata for selector sel; lanes
// that supply no metadata get random words (the instruction must ignore
// them).
func randomSparse(rng *rand.Rand, t string, k int, rule spRule, sel int, ordered, small bool) sparseCase {
	sc := sparseCase{logical: matrixOf(16, k, func(int, int) uint64 { return 0 }), packed: matrixOf(16, k/2, func(int, int) uint64 { return 0 })}
	sc.e = make([]uint64, 32)
	for l := range sc.e {
		sc.e[l] = uint64(rng.Uint32())
	}
	for l := 0; l < 32; l++ {
		if q := l % 4; q >= sel*rule.threads && q < (sel+1)*rule.threads {
			sc.e[l] = 0
		}
	}
	nonzero := func() uint64 {
		for {
			if x := randomElem(rng, t, small); x != 0 && x != 0x80 && !(t == "f16" && x == 0x8000) && !(t == "bf16" && x == 0x8000) && !(t == "tf32" && x&^0x1fff == 0) {
				return x
			}
		}
	}
	slots := rule.chunk / rule.unit // index positions per chunk
	nidx := rule.keep / rule.unit   // indices per chunk
	for r := 0; r < 16; r++ {
		for j := 0; j < k/rule.chunk; j++ {
			pick := rng.Perm(slots)[:nidx]
			if ordered && nidx == 2 && pick[0] > pick[1] {
				pick[0], pick[1] = pick[1], pick[0]
			}
			var nib uint64
			for n, p := range pick {
				if t == "tf32" {
					nib = []uint64{0b0100, 0b1110}[p]
				} else {
					nib |= uint64(p) << (2 * n)
				}
				for u := 0; u < rule.unit; u++ {
					x := nonzero()
					sc.logical[r][j*rule.chunk+p*rule.unit+u] = x
					sc.packed[r][j*rule.keep+n*rule.unit+u] = x
				}
			}
			lane, bit := sparseMetaLane(r, j, sel, rule.threads)
			sc.e[lane] |= nib << bit
		}
	}
	return sc
}

// runSparse executes the form on the case with B and C and returns D.
func runSparse(t *testing.T, fi *isa.FragInstr, variant, mods string, sel int, sc sparseCase, B, C [][]uint64) [][]uint64 {
	t.Helper()
	src, nin, nout := sparseKernel(fi, variant, mods, sel)
	pa, pb, pc := packOperand(fi.Operand("a"), sc.packed), packOperand(fi.Operand("b"), B), packOperand(fi.Operand("c"), C)
	buf := make([]byte, 32*nin*4)
	for l := 0; l < 32; l++ {
		words := append(append(append(append([]uint64{}, pa[l]...), pb[l]...), pc[l]...), sc.e[l])
		for i, x := range words {
			putLE(buf[(l*nin+i)*4:(l*nin+i+1)*4], x)
		}
	}
	m, a, r := memLaunch(t, src, [3]int{32, 1, 1}, [3]int{1, 1, 1}, buf, make([]byte, 32*nout*4))
	if r != StopDone {
		t.Fatalf("%s: %v: %v\n%s", fi.Key, r, m.Fault(), src)
	}
	out := make([][]uint64, 32)
	for l := range out {
		for i := 0; i < nout; i++ {
			out[l] = append(out[l], getLE(a[1].Data[(l*nout+i)*4:(l*nout+i+1)*4]))
		}
	}
	return mmaMatrix(fi.Operand("d"), out)
}

// denseProduct is C + A·B of the logical A, element by element (ints
// exact; floats in f64, exact for the small integer-valued inputs used).
func denseProduct(at, bt, ct, dt string, A, B, C [][]uint64, sat bool) [][]uint64 {
	isInt := at == "s8" || at == "u8" || at == "s4" || at == "u4"
	return matrixOf(16, 8, func(i, j int) uint64 {
		if isInt {
			s := toInt(ct, C[i][j])
			for k := range A[i] {
				s += toInt(at, A[i][k]) * toInt(bt, B[k][j])
			}
			if sat {
				s = min(max(s, math.MinInt32), math.MaxInt32)
			}
			return uint64(uint32(s))
		}
		s := toFloat(ct, C[i][j])
		for k := range A[i] {
			s += toFloat(at, A[i][k]) * toFloat(bt, B[k][j])
		}
		return fromFloat(dt, s)
	})
}

func TestMmaSparseAgainstMatrixProduct(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	n := 0
	for i := range isa.FragmentTable() {
		fi := &isa.FragmentTable()[i]
		if fi.Sparse == nil {
			continue
		}
		n++
		w := strings.Split(fi.Key, ".")
		shape, dt, at, bt, ct := w[2], w[5], w[6], w[7], w[8]
		rule := sparseRule(shape, at)
		k := fi.Operand("b").Rows
		isInt := at == "s8" || at == "u8" || at == "s4" || at == "u4"
		modsList := []string{""}
		if isInt {
			modsList = append(modsList, ".satfinite")
		}
		t.Run(fi.Key, func(t *testing.T) {
			if fi.Sparse.Selectors != 4/rule.threads || fi.Sparse.K != k || fi.Operand("a").Cols != k/2 {
				t.Fatalf("table: %d selectors, K %d, A %d columns; want %d, %d, %d", fi.Sparse.Selectors, fi.Sparse.K, fi.Operand("a").Cols, 4/rule.threads, k, k/2)
			}
			for sel := 0; sel < 4/rule.threads; sel++ {
				for _, variant := range []string{"sp", "sp::ordered_metadata"} {
					for _, mods := range modsList {
						for trial := 0; trial < 3; trial++ {
							small := !isInt || trial == 0
							sc := randomSparse(rng, at, k, rule, sel, variant != "sp", small)
							B := matrixOf(k, 8, func(int, int) uint64 { return randomElem(rng, bt, small) })
							C := matrixOf(16, 8, func(int, int) uint64 { return randomElem(rng, ct, small) })
							if isInt && trial == 2 {
								// Accumulators near the s32 limits: the sums overflow.
								C = matrixOf(16, 8, func(int, int) uint64 {
									if rng.Intn(2) == 0 {
										return uint64(uint32(math.MaxInt32 - rng.Intn(1000)))
									}
									return uint64(uint32(math.MinInt32 + rng.Intn(1000)))
								})
							}
							got := runSparse(t, fi, variant, mods, sel, sc, B, C)
							want := denseProduct(at, bt, ct, dt, sc.logical, B, C, mods == ".satfinite")
							for r := range want {
								for c := range want[r] {
									if got[r][c] != want[r][c] {
										t.Fatalf("mma.%s %s sel %d trial %d: D[%d][%d] = %#x, want %#x", variant, mods, sel, trial, r, c, got[r][c], want[r][c])
									}
								}
							}
						}
					}
				}
			}
		})
	}
	if n != 28 {
		t.Errorf("%d sparse forms, want 28", n)
	}
}

// The metadata the ISA leaves undefined: mma.sp computes with it as the
// indices say (a repeated index uses its row of B twice; a .tf32 field
// other than 0b0100/0b1110 selects by its bit 1); mma.sp::ordered_metadata
// faults.
func TestMmaSparseUndefinedMetadata(t *testing.T) {
	rng := rand.New(rand.NewSource(6))
	for _, c := range []struct {
		key  string
		e    uint64 // every lane's metadata
		cols func(kc int) int
		msg  string
	}{
		// 0b0101 in every nibble: both elements of each chunk at index 1.
		{"mma.sp.m16n8k16.row.col.f32.f16.f16.f32", 0x55555555, func(kc int) int { return kc/2*4 + 1 }, "they must increase"},
		// Descending indices (0b0001: first element at 1, second at 0) are
		// valid for mma.sp.
		{"mma.sp.m16n8k32.row.col.s32.s8.s8.s32", 0x11111111, func(kc int) int { return kc/2*4 + 1 - kc%2 }, "give indices 1, 0"},
		// .tf32 0b0000 and 0b1010: bit 1 of the field selects column 0 and 1.
		{"mma.sp.m16n8k8.row.col.f32.tf32.tf32.f32", 0xa0a0a0a0, func(kc int) int { return 2*kc + kc%2 }, "0b0000"},
	} {
		fi := isa.LookupFragments(c.key)
		w := strings.Split(fi.Key, ".")
		at, bt, ct, dt := w[6], w[7], w[8], w[5]
		k := fi.Sparse.K
		sc := sparseCase{packed: matrixOf(16, k/2, func(int, int) uint64 { return randomElem(rng, at, true) }), e: make([]uint64, 32)}
		for l := range sc.e {
			sc.e[l] = c.e
		}
		// The logical A this metadata describes: each stored element added
		// into its column.
		sc.logical = matrixOf(16, k, func(int, int) uint64 { return 0 })
		acc := make([][]float64, 16)
		for r := range acc {
			acc[r] = make([]float64, k)
			for kc := 0; kc < k/2; kc++ {
				if at == "s8" {
					acc[r][c.cols(kc)] += float64(toInt(at, sc.packed[r][kc]))
				} else {
					acc[r][c.cols(kc)] += toFloat(at, sc.packed[r][kc])
				}
			}
		}
		B := matrixOf(k, 8, func(int, int) uint64 { return randomElem(rng, bt, true) })
		C := matrixOf(16, 8, func(int, int) uint64 { return randomElem(rng, ct, true) })
		got := runSparse(t, fi, "sp", "", 0, sc, B, C)
		for r := 0; r < 16; r++ {
			for j := 0; j < 8; j++ {
				var want uint64
				if at == "s8" {
					s := toInt(ct, C[r][j])
					for kk := 0; kk < k; kk++ {
						s += int64(acc[r][kk]) * toInt(bt, B[kk][j])
					}
					want = uint64(uint32(s))
				} else {
					s := toFloat(ct, C[r][j])
					for kk := 0; kk < k; kk++ {
						s += acc[r][kk] * toFloat(bt, B[kk][j])
					}
					want = fromFloat(dt, s)
				}
				if got[r][j] != want {
					t.Fatalf("%s e=%#x: D[%d][%d] = %#x, want %#x", c.key, c.e, r, j, got[r][j], want)
				}
			}
		}
		// ::ordered_metadata: an illegal-instruction fault naming the lane.
		src, nin, nout := sparseKernel(fi, "sp::ordered_metadata", "", 0)
		buf := make([]byte, 32*nin*4)
		for l := 0; l < 32; l++ {
			putLE(buf[(l*nin+nin-1)*4:(l*nin+nin)*4], c.e)
		}
		m, _, r := memLaunch(t, src, [3]int{32, 1, 1}, [3]int{1, 1, 1}, buf, make([]byte, 32*nout*4))
		f := m.Fault()
		if r != StopFault || f == nil || f.Kind != FaultIllegal || !strings.Contains(f.Message, "mma.sp::ordered_metadata") || !strings.Contains(f.Message, c.msg) || f.Lane != 0 {
			t.Errorf("%s ordered e=%#x: stop %v fault %+v, want illegal-instruction in lane 0 with %q", c.key, c.e, r, f, c.msg)
		}
	}
}
