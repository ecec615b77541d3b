package emu

import (
	"context"
	"fmt"
	"math"
	"math/big"
	"math/rand"
	"strings"
	"testing"

	"github.com/ptxplayground/ptxplay/engine/isa"
)

// wmmaMat is a matrix of raw element bits.
type wmmaMat [][]uint64

// wmmaPlace is where a matrix lies in memory: byte offset, layout, stride
// in elements (0: the default, the leading dimension).
type wmmaPlace struct {
	off    int
	col    bool
	stride int
}

func (p wmmaPlace) ld(rows, cols int) int {
	if p.stride != 0 {
		return p.stride
	}
	if p.col {
		return rows
	}
	return cols
}

// bitOff is the bit offset of element (i, j) from the matrix start.
func (p wmmaPlace) bitOff(i, j, rows, cols, bits int) int {
	if p.col {
		i, j = j, i
	}
	return (i*p.ld(rows, cols) + j) * bits
}

func (p wmmaPlace) bytes(rows, cols, bits int) int {
	lead := rows
	if p.col {
		lead = cols
	}
	return (lead*p.ld(rows, cols)*bits + 7) / 8
}

func putBits(buf []byte, bitOff, n int, x uint64) {
	for i := 0; i < n; i++ {
		b := bitOff + i
		buf[b/8] = buf[b/8]&^(1<<(b%8)) | byte(x>>i&1)<<(b%8)
	}
}

func getBits(buf []byte, bitOff, n int) uint64 {
	var x uint64
	for i := 0; i < n; i++ {
		b := bitOff + i
		x |= uint64(buf[b/8]>>(b%8)&1) << i
	}
	return x
}

func (m wmmaMat) store(buf []byte, p wmmaPlace, bits int) {
	for i := range m {
		for j := range m[i] {
			putBits(buf, 8*p.off+p.bitOff(i, j, len(m), len(m[i]), bits), bits, m[i][j])
		}
	}
}

func randMat(rng *rand.Rand, rows, cols int, t string, small bool) wmmaMat {
	m := make(wmmaMat, rows)
	for i := range m {
		m[i] = make([]uint64, cols)
		for j := range m[i] {
			m[i][j] = randomElem(rng, t, small) & (1<<isa.FragTypeBits(t) - 1 | uint64(isa.FragTypeBits(t)/64)*^uint64(0))
		}
	}
	return m
}

// wmmaRef is the plain matrix product: D = A·B + C (integers exact,
// wrapping or clamped; floats: the inputs are small integers, so exact).
func wmmaRef(fi *isa.FragInstr, mods string, A, B, C wmmaMat) wmmaMat {
	ta, tb, tc, td := fi.Operand("a").Type, fi.Operand("b").Type, fi.Operand("c").Type, fi.Operand("d").Type
	M, N, K := len(A), len(B[0]), len(B)
	D := make(wmmaMat, M)
	for i := range D {
		D[i] = make([]uint64, N)
		for j := range D[i] {
			switch ta {
			case "s8", "u8", "s4", "u4", "b1":
				s := toInt(tc, C[i][j])
				for k := 0; k < K; k++ {
					x, y := toInt(ta, A[i][k]), toInt(tb, B[k][j])
					switch {
					case strings.Contains(mods, ".and"):
						s += x & y
					case strings.Contains(mods, ".xor"):
						s += x ^ y
					default:
						s += x * y
					}
				}
				if strings.Contains(mods, ".satfinite") {
					s = min(max(s, math.MinInt32), math.MaxInt32)
				}
				D[i][j] = uint64(uint32(s))
			default:
				s := toFloat(tc, C[i][j])
				for k := 0; k < K; k++ {
					s += toFloat(ta, A[i][k]) * toFloat(tb, B[k][j])
				}
				D[i][j] = fromFloat(td, s)
			}
		}
	}
	return D
}

type wmmaCase struct {
	fi             *isa.FragInstr
	al, bl, cl, dl bool // .col
	stride         bool // non-default strides (16 bytes of padding per row)
	shared         bool
	mods           string
}

// wmmaSrc builds the kernel: load A, B, C (from global, or from a shared
// copy), wmma.mma, store D (to global, or to shared through a generic
// address and copied out).
func wmmaSrc(c wmmaCase, pa, pb, pc, pd wmmaPlace, inBytes, outBytes int) string {
	fi := c.fi
	od, oa, ob, oc := fi.Operand("d"), fi.Operand("a"), fi.Operand("b"), fi.Operand("c")
	shape := fi.Shape
	lay := func(col bool) string {
		if col {
			return "col"
		}
		return "row"
	}
	vec := func(p string, n int) string {
		var s []string
		for i := 0; i < n; i++ {
			s = append(s, fmt.Sprintf("%%%s%d", p, i))
		}
		return "{" + strings.Join(s, ", ") + "}"
	}
	strideOp := func(p wmmaPlace) string {
		if p.stride == 0 {
			return ""
		}
		return fmt.Sprintf(", %d", p.stride)
	}
	rt := "b32"
	if oa.Type == "f64" {
		rt = "b64"
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "%s.visible .entry k(.param .u64 pin, .param .u64 pout) {\n", memHdr)
	fmt.Fprintf(&sb, "\t.reg .%s %%a<%d>, %%b<%d>, %%c<%d>, %%d<%d>;\n", rt, oa.Regs, ob.Regs, oc.Regs, od.Regs)
	sb.WriteString("\t.reg .u64 %rd<10>; .reg .u32 %t, %i, %s, %w; .reg .pred %p;\n")
	sb.WriteString("\tld.param.u64 %rd1, [pin];\n\tld.param.u64 %rd2, [pout];\n\tmov.u32 %t, %tid.x;\n")
	space, addr := ".global", func(p wmmaPlace) string { return fmt.Sprintf("[%%rd1+%d]", p.off) }
	if c.shared {
		fmt.Fprintf(&sb, "\t.shared .align 256 .b8 sm[%d];\n", inBytes+outBytes)
		fmt.Fprintf(&sb, "\tmul.lo.u32 %%i, %%t, 4;\nCP:\n\tsetp.ge.u32 %%p, %%i, %d;\n\t@%%p bra CPD;\n", inBytes)
		sb.WriteString("\tcvt.u64.u32 %rd6, %i;\n\tadd.u64 %rd7, %rd1, %rd6;\n\tld.global.u32 %w, [%rd7];\n\tmov.u32 %s, sm;\n\tadd.u32 %s, %s, %i;\n\tst.shared.u32 [%s], %w;\n\tadd.u32 %i, %i, 128;\n\tbra CP;\nCPD:\n")
		// The output's initial bytes too, so that what D does not cover
		// comes back unchanged.
		fmt.Fprintf(&sb, "\tmul.lo.u32 %%i, %%t, 4;\nCQ:\n\tsetp.ge.u32 %%p, %%i, %d;\n\t@%%p bra CQD;\n", outBytes)
		fmt.Fprintf(&sb, "\tcvt.u64.u32 %%rd6, %%i;\n\tadd.u64 %%rd7, %%rd2, %%rd6;\n\tld.global.u32 %%w, [%%rd7];\n\tmov.u32 %%s, sm;\n\tadd.u32 %%s, %%s, %%i;\n\tst.shared.u32 [%%s+%d], %%w;\n\tadd.u32 %%i, %%i, 128;\n\tbra CQ;\nCQD:\n\tbar.sync 0;\n", inBytes)
		space, addr = ".shared", func(p wmmaPlace) string { return fmt.Sprintf("[sm+%d]", p.off) }
	}
	ld := func(frag, t string, col bool, n string, regs int, p wmmaPlace) {
		fmt.Fprintf(&sb, "\twmma.load.%s.sync.aligned.%s.%s%s.%s %s, %s%s;\n", frag, lay(col), shape, space, t, vec(n, regs), addr(p), strideOp(p))
	}
	ld("a", oa.Type, c.al, "a", oa.Regs, pa)
	ld("b", ob.Type, c.bl, "b", ob.Regs, pb)
	ld("c", oc.Type, c.cl, "c", oc.Regs, pc)
	var types string
	switch {
	case oa.Type == "f16":
		types = od.Type + "." + oc.Type
	default:
		types = od.Type + "." + oa.Type + "." + ob.Type + "." + oc.Type
	}
	name, rest := "wmma.mma", c.mods
	if strings.Contains(c.mods, "popc") {
		name, rest = "wmma.mma"+c.mods, ""
	}
	rnd := ""
	if strings.HasPrefix(rest, ".r") {
		rnd, rest = rest, ""
	}
	fmt.Fprintf(&sb, "\t%s.sync.aligned.%s.%s.%s%s.%s%s %s, %s, %s, %s;\n", name, lay(c.al), lay(c.bl), shape, rnd, types, rest,
		vec("d", od.Regs), vec("a", oa.Regs), vec("b", ob.Regs), vec("c", oc.Regs))
	if !c.shared {
		fmt.Fprintf(&sb, "\twmma.store.d.sync.aligned.%s.%s.global.%s [%%rd2+%d], %s%s;\n\tret;\n}\n", lay(c.dl), shape, od.Type, pd.off, vec("d", od.Regs), strideOp(pd))
		return sb.String()
	}
	// D through a generic address of shared memory, then copied out.
	fmt.Fprintf(&sb, "\tmov.u64 %%rd8, sm;\n\tcvta.shared.u64 %%rd8, %%rd8;\n\twmma.store.d.sync.aligned.%s.%s.%s [%%rd8+%d], %s%s;\n\tbar.sync 0;\n",
		lay(c.dl), shape, od.Type, inBytes+pd.off, vec("d", od.Regs), strideOp(pd))
	fmt.Fprintf(&sb, "\tmul.lo.u32 %%i, %%t, 4;\nCO:\n\tsetp.ge.u32 %%p, %%i, %d;\n\t@%%p bra COD;\n", outBytes)
	fmt.Fprintf(&sb, "\tmov.u32 %%s, sm;\n\tadd.u32 %%s, %%s, %%i;\n\tld.shared.u32 %%w, [%%s+%d];\n\tcvt.u64.u32 %%rd6, %%i;\n\tadd.u64 %%rd7, %%rd2, %%rd6;\n\tst.global.u32 [%%rd7], %%w;\n\tadd.u32 %%i, %%i, 128;\n\tbra CO;\nCOD:\n\tret;\n}\n", inBytes)
	return sb.String()
}

func alignUp(x, a int) int { return (x + a - 1) / a * a }

// runWmma runs one case and checks D against the plain product, and that
// the bytes around D are untouched.
func runWmma(t *testing.T, rng *rand.Rand, c wmmaCase) {
	t.Helper()
	fi := c.fi
	od, oa, ob, oc := fi.Operand("d"), fi.Operand("a"), fi.Operand("b"), fi.Operand("c")
	ta := oa.Type
	isInt := ta == "s8" || ta == "u8" || ta == "s4" || ta == "u4" || ta == "b1"
	A := randMat(rng, oa.Rows, oa.Cols, ta, !isInt)
	B := randMat(rng, ob.Rows, ob.Cols, ob.Type, !isInt)
	C := randMat(rng, oc.Rows, oc.Cols, oc.Type, !isInt)
	if isInt && rng.Intn(2) == 0 {
		for i := range C { // sums that overflow s32
			for j := range C[i] {
				C[i][j] = uint64(uint32(math.MaxInt32 - rng.Intn(1000)))
				if rng.Intn(2) == 0 {
					C[i][j] = uint64(uint32(math.MinInt32 + rng.Intn(1000)))
				}
			}
		}
	}
	pad := func(o *isa.FragOperand, col bool) int {
		if !c.stride {
			return 0
		}
		lead := o.Cols
		if col {
			lead = o.Rows
		}
		return lead + 128/isa.FragTypeBits(o.Type) // 16 more bytes per row
	}
	pa := wmmaPlace{0, c.al, pad(oa, c.al)}
	pb := wmmaPlace{alignUp(pa.bytes(oa.Rows, oa.Cols, isa.FragTypeBits(ta)), 256), c.bl, pad(ob, c.bl)}
	pc := wmmaPlace{alignUp(pb.off+pb.bytes(ob.Rows, ob.Cols, isa.FragTypeBits(ob.Type)), 256), c.cl, pad(oc, c.cl)}
	inBytes := alignUp(pc.off+pc.bytes(oc.Rows, oc.Cols, isa.FragTypeBits(oc.Type)), 256)
	pd := wmmaPlace{0, c.dl, pad(od, c.dl)}
	outBytes := alignUp(pd.bytes(od.Rows, od.Cols, isa.FragTypeBits(od.Type)), 256)
	in := make([]byte, inBytes)
	rng.Read(in) // padding holds garbage the loads must skip
	A.store(in, pa, isa.FragTypeBits(ta))
	B.store(in, pb, isa.FragTypeBits(ob.Type))
	C.store(in, pc, isa.FragTypeBits(oc.Type))
	out := make([]byte, outBytes)
	for i := range out {
		out[i] = 0xab
	}
	src := wmmaSrc(c, pa, pb, pc, pd, inBytes, outBytes)
	m, allocs, r := memLaunch(t, src, [3]int{32, 1, 1}, [3]int{1, 1, 1}, in, out)
	if r != StopDone {
		t.Fatalf("%s: %v: %v\n%s", fi.Key, r, m.Fault(), src)
	}
	got := allocs[1].Data
	want := wmmaRef(fi, c.mods, A, B, C)
	db := isa.FragTypeBits(od.Type)
	touched := make([]bool, 8*outBytes)
	for i := range want {
		for j := range want[i] {
			off := pd.bitOff(i, j, od.Rows, od.Cols, db)
			for b := 0; b < db; b++ {
				touched[off+b] = true
			}
			if g := getBits(got, off, db); g != want[i][j] {
				t.Fatalf("%s %+v: D[%d][%d] = %#x, want %#x\n%s", fi.Key, c, i, j, g, want[i][j], src)
			}
		}
	}
	for b, tb := range touched {
		if !tb && got[b/8]>>(b%8)&1 != 0xab>>(b%8)&1 {
			t.Fatalf("%s %+v: byte %d outside D changed to %#x", fi.Key, c, b/8, got[b/8])
		}
	}
}

// TestWmmaAgainstMatrixProduct: for every wmma.mma form, every layout of
// A and B (C and D take the layouts of A and B), the default and a padded
// stride, load A, B, C from global memory, multiply, store D, and compare
// with the plain product; once more through shared memory (and a generic
// address for the store). The fragment layouts do not show: only memory
// in and memory out.
func TestWmmaAgainstMatrixProduct(t *testing.T) {
	rng := rand.New(rand.NewSource(11))
	n := 0
	for i := range isa.FragmentTable() {
		fi := &isa.FragmentTable()[i]
		if fi.Op != "wmma.mma" {
			continue
		}
		n++
		ta := fi.Operand("a").Type
		modsList := []string{""}
		switch ta {
		case "b1":
			modsList = []string{".xor.popc", ".and.popc"}
		case "s8", "u8", "s4", "u4":
			modsList = []string{"", ".satfinite"}
		}
		layouts := []bool{false, true}
		sub := ta == "s4" || ta == "u4" || ta == "b1"
		t.Run(fi.Key, func(t *testing.T) {
			for _, mods := range modsList {
				for _, al := range layouts {
					for _, bl := range layouts {
						if sub && (al || !bl) {
							continue
						}
						for _, stride := range []bool{false, true} {
							runWmma(t, rng, wmmaCase{fi: fi, al: al, bl: bl, cl: al, dl: bl, stride: stride, mods: mods})
						}
						if sub {
							// C and D of the sub-byte forms in both layouts.
							runWmma(t, rng, wmmaCase{fi: fi, al: al, bl: bl, cl: true, dl: false, stride: true, mods: mods})
						}
					}
				}
				runWmma(t, rng, wmmaCase{fi: fi, al: false, bl: true, cl: true, dl: false, shared: true, mods: mods})
				runWmma(t, rng, wmmaCase{fi: fi, al: false, bl: true, cl: false, dl: true, shared: true, stride: true, mods: mods})
			}
		})
	}
	if n != 26 {
		t.Errorf("%d wmma.mma forms, want 26", n)
	}
}

// TestWmmaF64Rounding: wmma.mma .f64 with .rn/.rz/.rm/.rp on random data:
// each element is a chain of fused multiply-adds from C in ascending k,
// each step rounded in the instruction's direction (reference: big.Float).
func TestWmmaF64Rounding(t *testing.T) {
	fi := isa.LookupFragments("wmma.m8n8k4.f64.f64.f64.f64")
	rng := rand.New(rand.NewSource(12))
	rnd := func() uint64 { return math.Float64bits((rng.Float64()*2 - 1) * math.Ldexp(1, rng.Intn(20)-10)) }
	mat := func(r, c int) wmmaMat {
		m := make(wmmaMat, r)
		for i := range m {
			m[i] = make([]uint64, c)
			for j := range m[i] {
				m[i][j] = rnd()
			}
		}
		return m
	}
	for _, mode := range []struct {
		mod string
		m   big.RoundingMode
	}{{".rn", big.ToNearestEven}, {".rz", big.ToZero}, {".rm", big.ToNegativeInf}, {".rp", big.ToPositiveInf}} {
		A, B, C := mat(8, 4), mat(4, 8), mat(8, 8)
		in := make([]byte, 1024)
		pa, pb, pc := wmmaPlace{0, false, 0}, wmmaPlace{256, false, 0}, wmmaPlace{512, false, 0}
		A.store(in, pa, 64)
		B.store(in, pb, 64)
		C.store(in, pc, 64)
		src := wmmaSrc(wmmaCase{fi: fi, mods: mode.mod}, pa, pb, pc, wmmaPlace{}, 1024, 512)
		a := memRun(t, src, 32, in, make([]byte, 512))
		diff := 0
		for i := 0; i < 8; i++ {
			for j := 0; j < 8; j++ {
				chain := func(m big.RoundingMode) float64 {
					s := new(big.Float).SetFloat64(math.Float64frombits(C[i][j]))
					for k := 0; k < 4; k++ {
						p := new(big.Float).SetPrec(300).SetFloat64(math.Float64frombits(A[i][k]))
						p.Mul(p, new(big.Float).SetPrec(300).SetFloat64(math.Float64frombits(B[k][j])))
						p.Add(p, s)
						s = new(big.Float).SetPrec(53).SetMode(m).Set(p)
					}
					f, _ := s.Float64()
					return f
				}
				want := chain(mode.m)
				got := math.Float64frombits(memU64(a[1], i*8+j))
				if got != want {
					t.Fatalf("%s: D[%d][%d] = %v, want %v", mode.mod, i, j, got, want)
				}
				if want != chain(big.ToNearestEven) {
					diff++
				}
			}
		}
		// The data make the directed modes differ from .rn.
		if mode.mod != ".rn" && diff == 0 {
			t.Errorf("%s: every element equals the .rn result", mode.mod)
		}
	}
}

// wmmaMemKernel loads fragment key from in at [in] (layout col, stride) and
// dumps the registers per lane to out, or (a store form) fills the
// registers with codes (lane, register) and stores them.
func wmmaMemKernel(fi *isa.FragInstr, col bool, stride int) string {
	o := &fi.Operands[0]
	word, rt := 4, "b32"
	if o.Type == "f64" {
		word, rt = 8, "b64"
	}
	lay := "row"
	if col {
		lay = "col"
	}
	so := ""
	if stride != 0 {
		so = fmt.Sprintf(", %d", stride)
	}
	var regs []string
	for i := 0; i < o.Regs; i++ {
		regs = append(regs, fmt.Sprintf("%%x%d", i))
	}
	vec := "{" + strings.Join(regs, ", ") + "}"
	w := strings.Split(fi.Key, ".")
	var sb strings.Builder
	fmt.Fprintf(&sb, "%s.visible .entry k(.param .u64 pin, .param .u64 pout) {\n\t.reg .%s %%x<%d>; .reg .u64 %%rd<4>, %%v; .reg .u32 %%t;\n", memHdr, rt, o.Regs)
	sb.WriteString("\tld.param.u64 %rd1, [pin];\n\tld.param.u64 %rd2, [pout];\n\tmov.u32 %t, %laneid;\n")
	if fi.Op == "wmma.load" {
		fmt.Fprintf(&sb, "\twmma.load.%s.sync.aligned.%s.%s.global.%s %s, [%%rd1]%s;\n", w[2], lay, w[3], w[4], vec, so)
		fmt.Fprintf(&sb, "\tmul.wide.u32 %%rd3, %%t, %d;\n\tadd.u64 %%rd2, %%rd2, %%rd3;\n", o.Regs*word)
		for i := 0; i < o.Regs; i++ {
			fmt.Fprintf(&sb, "\tst.global.%s [%%rd2+%d], %%x%d;\n", rt, i*word, i)
		}
	} else {
		// register i of lane l: the word at in[(l*regs+i)]
		fmt.Fprintf(&sb, "\tmul.wide.u32 %%rd3, %%t, %d;\n\tadd.u64 %%rd1, %%rd1, %%rd3;\n", o.Regs*word)
		for i := 0; i < o.Regs; i++ {
			fmt.Fprintf(&sb, "\tld.global.%s %%x%d, [%%rd1+%d];\n", rt, i, i*word)
		}
		fmt.Fprintf(&sb, "\twmma.store.d.sync.aligned.%s.%s.global.%s [%%rd2], %s%s;\n", lay, w[3], w[4], vec, so)
	}
	sb.WriteString("\tret;\n}\n")
	return sb.String()
}

// TestWmmaLoadStoreLayouts pins the fragment layouts of the table: a
// wmma.load puts element (row, col) where the table says (every copy), a
// wmma.store writes what the table says.
func TestWmmaLoadStoreLayouts(t *testing.T) {
	rng := rand.New(rand.NewSource(13))
	n := 0
	for i := range isa.FragmentTable() {
		fi := &isa.FragmentTable()[i]
		if fi.Op != "wmma.load" && fi.Op != "wmma.store" {
			continue
		}
		n++
		o := &fi.Operands[0]
		bits := isa.FragTypeBits(o.Type)
		word := 4
		if bits == 64 {
			word = 8
		}
		for _, col := range []bool{false, true} {
			sub := bits < 8
			if sub && (o.Name == "a" && col || o.Name == "b" && !col) {
				continue
			}
			lead := o.Cols
			if col {
				lead = o.Rows
			}
			p := wmmaPlace{0, col, lead + 256/bits}
			size := alignUp(p.bytes(o.Rows, o.Cols, bits), 256)
			src := wmmaMemKernel(fi, col, p.stride)
			if fi.Op == "wmma.load" {
				in := make([]byte, size)
				rng.Read(in)
				a := memRun(t, src, 32, in, make([]byte, 32*o.Regs*word))
				regs := func(l int) []uint64 {
					var r []uint64
					for i := 0; i < o.Regs; i++ {
						r = append(r, getLE(a[1].Data[(l*o.Regs+i)*word:(l*o.Regs+i+1)*word]))
					}
					return r
				}
				for _, e := range o.Elems {
					want := getBits(in, p.bitOff(int(e.Row), int(e.Col), o.Rows, o.Cols, bits), bits)
					r := regs(int(e.Lane))
					for c := 0; c < max(o.Copies, 1); c++ {
						e2 := e
						e2.Reg += uint8(c * o.Primary())
						if g := elemOf(o, e2, r); g != want {
							t.Fatalf("%s %v: lane %d reg %d part %d = %#x, want element (%d,%d) = %#x", fi.Key, col, e.Lane, e2.Reg, e.Part, g, e.Row, e.Col, want)
						}
					}
				}
				continue
			}
			in := make([]byte, 32*o.Regs*word)
			rng.Read(in)
			out := make([]byte, size)
			for i := range out {
				out[i] = 0x5a
			}
			a := memRun(t, src, 32, in, out)
			for _, e := range o.Elems {
				r := make([]uint64, o.Regs)
				for i := range r {
					r[i] = getLE(in[(int(e.Lane)*o.Regs+i)*word : (int(e.Lane)*o.Regs+i+1)*word])
				}
				if g, want := getBits(a[1].Data, p.bitOff(int(e.Row), int(e.Col), o.Rows, o.Cols, bits), bits), elemOf(o, e, r); g != want {
					t.Fatalf("%s %v: element (%d,%d) = %#x, want lane %d reg %d part %d = %#x", fi.Key, col, e.Row, e.Col, g, e.Lane, e.Reg, e.Part, want)
				}
			}
		}
	}
	if n < 40 {
		t.Errorf("only %d wmma.load/wmma.store forms", n)
	}
}

// TestWmmaFaults: misaligned and out-of-bounds addresses and strides fault
// naming the lane; wmma is warp-collective; the observer sees every lane's
// accesses.
func TestWmmaFaults(t *testing.T) {
	kernel := func(body string) string {
		return memHdr + `
.visible .entry k(.param .u64 pout) {
	.reg .b32 %x<8>; .reg .f32 %f<8>; .reg .u32 %t, %s, %st; .reg .u64 %rd<4>; .reg .pred %p;
	.shared .align 256 .b8 sm[1024];
	mov.u32 %t, %tid.x;
	mov.u32 %s, sm;
	mov.u32 %st, 16;
	ld.param.u64 %rd1, [pout];
	` + body + `
	ret;
}
`
	}
	const ld = "wmma.load.a.sync.aligned.row.m16n16k16.shared.f16 {%x0, %x1, %x2, %x3, %x4, %x5, %x6, %x7}, [%s], %st;"
	// The observer sees 8 accesses (one per element of the first copy) of
	// every lane.
	m, _, r := memLaunchObserved(t, kernel(ld), &accessRecorder{})
	if r != StopDone {
		t.Fatalf("%v: %v", r, m.Fault())
	}
	rec := m.obs.(*accessRecorder)
	if len(rec.acc) != 8 {
		t.Fatalf("wmma.load accesses: %d records, want 8", len(rec.acc))
	}
	for _, a := range rec.acc {
		if a.Lanes != ^uint32(0) || a.Kind != AccessLoad {
			t.Errorf("access %+v", a)
		}
	}
	// lane 5 (g=1, q=1) reads A(1,2) first: 2*(1*16+2) bytes into sm.
	if a := rec.acc[0]; a.Addr[5] != a.Addr[0]+2*(16+2) {
		t.Errorf("lane 5 at %#x, lane 0 at %#x", a.Addr[5], a.Addr[0])
	}
	m, _, _ = memLaunchObserved(t, kernel("wmma.store.d.sync.aligned.col.m16n16k16.shared.f32 [%s], {%f0, %f1, %f2, %f3, %f4, %f5, %f6, %f7};"), &accessRecorder{})
	rec = m.obs.(*accessRecorder)
	if len(rec.acc) != 8 || rec.acc[0].Kind != AccessStore || rec.acc[0].Size != 4 || rec.acc[0].Lanes != ^uint32(0) {
		t.Errorf("wmma.store accesses: %+v", rec.acc)
	}
	cases := []struct{ body, kind, msg string }{
		{"add.u32 %s, %s, 16;\n\t" + ld, "misaligned", "misaligned matrix address"},
		{"mov.u32 %st, 20;\n\t" + ld, "misaligned", "stride 20 in lane 0"},
		{"add.u32 %s, %s, 768;\n\t" + ld, "out-of-bounds", "outside"},
		{"setp.lt.u32 %p, %t, 31;\n\t@%p " + ld, "invalid-membermask", "lane(s) 31 do not"},
		{"setp.lt.u32 %p, %t, 16;\n\t@%p bra L;\n\twmma.mma.sync.aligned.row.col.m16n16k16.f32.f32 {%f0, %f1, %f2, %f3, %f4, %f5, %f6, %f7}, {%x0, %x1, %x2, %x3, %x4, %x5, %x6, %x7}, {%x0, %x1, %x2, %x3, %x4, %x5, %x6, %x7}, {%f0, %f1, %f2, %f3, %f4, %f5, %f6, %f7};\nL:", "divergent-aligned", "lane(s) 0-15 are elsewhere (lane(s) 0-15 at pc"},
		{"wmma.store.d.sync.aligned.row.m16n16k16.global.f32 [%rd1+4096], {%f0, %f1, %f2, %f3, %f4, %f5, %f6, %f7};", "out-of-bounds", "outside every allocation"},
	}
	for _, c := range cases {
		m, _, r := memLaunchObserved(t, kernel(c.body), nil)
		f := m.Fault()
		if r != StopFault || f == nil || string(f.Kind) != c.kind || !strings.Contains(f.Message, c.msg) {
			t.Errorf("%s: stop %v fault %v, want %s %q", c.body, r, f, c.kind, c.msg)
		}
	}
	// A misaligned address in some lanes names the lowest and carries all.
	m, _, _ = memLaunchObserved(t, kernel("setp.ge.u32 %p, %t, 8;\n\t@%p add.u32 %s, %s, 2;\n\t"+ld), nil)
	if f := m.Fault(); f == nil || f.Lane != 8 || f.Lanes != 0xffffff00 || f.Kind != FaultMisaligned {
		t.Errorf("fault %+v, want lane 8, lanes 8-31", f)
	}
	// A faulting store writes nothing.
	src := kernel("mov.f32 %f0, 0f3F800000;\n\tsetp.eq.u32 %p, %t, 31;\n\t@%p add.u64 %rd1, %rd1, 64;\n\twmma.store.d.sync.aligned.row.m16n16k16.global.f32 [%rd1], {%f0, %f0, %f0, %f0, %f0, %f0, %f0, %f0};")
	m, out := ctlKernel(t, src, [3]int{32, 1, 1}, [3]int{1, 1, 1}, 256)
	if r := m.Run(context.Background()); r != StopFault {
		t.Fatalf("stop %v", r)
	}
	for i, b := range out.Data {
		if b != 0 {
			t.Fatalf("byte %d written by a faulting wmma.store", i)
		}
	}
}
