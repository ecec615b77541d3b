package emu

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"math/big"
	"math/bits"
	"math/rand"
	"slices"
	"strings"
	"testing"

	"github.com/ptxplayground/ptxplay/engine/fpx"
	"github.com/ptxplayground/ptxplay/engine/isa"
	"github.com/ptxplayground/ptxplay/engine/ptx"
)

// mmaKernel builds a kernel that loads each lane's A, B and C registers from
// in (A, then B, then C; word-sized per register), executes the form and
// stores D to out.
func mmaKernel(fi *isa.FragInstr, mods string) (src string, inWords, outWords int) {
	d, a, b, c := fi.Operand("d"), fi.Operand("a"), fi.Operand("b"), fi.Operand("c")
	word, rt := 4, "b32"
	if a.Type == "f64" {
		word, rt = 8, "b64"
	}
	inWords, outWords = a.Regs+b.Regs+c.Regs, d.Regs
	var sb strings.Builder
	fmt.Fprintf(&sb, "%s.visible .entry k(.param .u64 pin, .param .u64 pout) {\n", memHdr)
	fmt.Fprintf(&sb, "\t.reg .%s %%a<%d>, %%b<%d>, %%c<%d>, %%d<%d>;\n\t.reg .u64 %%rd<4>; .reg .u32 %%t;\n", rt, a.Regs, b.Regs, c.Regs, d.Regs)
	fmt.Fprintf(&sb, "\tld.param.u64 %%rd1, [pin];\n\tld.param.u64 %%rd2, [pout];\n\tmov.u32 %%t, %%tid.x;\n")
	fmt.Fprintf(&sb, "\tmul.wide.u32 %%rd3, %%t, %d;\n\tadd.u64 %%rd1, %%rd1, %%rd3;\n", inWords*word)
	off := 0
	list := func(p string, n int, load bool) string {
		var names []string
		for i := 0; i < n; i++ {
			names = append(names, fmt.Sprintf("%%%s%d", p, i))
			if load {
				fmt.Fprintf(&sb, "\tld.global.%s %%%s%d, [%%rd1+%d];\n", rt, p, i, off)
				off += word
			}
		}
		return "{" + strings.Join(names, ", ") + "}"
	}
	la, lb, lc := list("a", a.Regs, true), list("b", b.Regs, true), list("c", c.Regs, true)
	ld := list("d", d.Regs, false)
	fmt.Fprintf(&sb, "\tmma.sync.aligned.%s%s %s, %s, %s, %s;\n", strings.TrimPrefix(fi.Key, "mma."), mods, ld, la, lb, lc)
	fmt.Fprintf(&sb, "\tmul.wide.u32 %%rd3, %%t, %d;\n\tadd.u64 %%rd2, %%rd2, %%rd3;\n", d.Regs*word)
	for i := 0; i < d.Regs; i++ {
		fmt.Fprintf(&sb, "\tst.global.%s [%%rd2+%d], %%d%d;\n", rt, i*word, i)
	}
	sb.WriteString("\tret;\n}\n")
	return sb.String(), inWords, outWords
}

// elemOf reads element e of operand o from a lane's registers regs.
func elemOf(o *isa.FragOperand, e isa.FragElem, regs []uint64) uint64 {
	bits := 32
	switch o.Type {
	case "f16", "bf16", "b16":
		bits = 16
	case "s8", "u8", "e4m3", "e5m2":
		bits = 8
	case "s4", "u4":
		bits = 4
	case "b1":
		bits = 1
	case "f64":
		bits = 64
	}
	x := regs[e.Reg] >> (uint(e.Part) * uint(bits))
	if bits < 64 {
		x &= 1<<bits - 1
	}
	return x
}

// mmaOperands decodes A, B, C of one random input into matrices of raw
// element bits, using the fragment table (itself checked against the
// reference formulas in engine/isa).
func mmaMatrix(o *isa.FragOperand, lanes [][]uint64) [][]uint64 {
	m := make([][]uint64, o.Rows)
	for i := range m {
		m[i] = make([]uint64, o.Cols)
	}
	for _, e := range o.Elems {
		m[e.Row][e.Col] = elemOf(o, e, lanes[e.Lane])
	}
	return m
}

func toFloat(t string, x uint64) float64 {
	switch t {
	case "f16":
		return float64(math.Float32frombits(fpx.F16ToF32(uint16(x))))
	case "bf16":
		return float64(math.Float32frombits(uint32(x) << 16))
	case "e4m3":
		return float64(math.Float32frombits(fpx.F16ToF32(fpx.E4M3ToF16(uint8(x)))))
	case "e5m2":
		return float64(math.Float32frombits(fpx.F16ToF32(fpx.E5M2ToF16(uint8(x)))))
	case "tf32":
		return float64(math.Float32frombits(uint32(x) &^ 0x1fff))
	case "f32":
		return float64(math.Float32frombits(uint32(x)))
	case "f64":
		return math.Float64frombits(x)
	}
	panic(t)
}

func toInt(t string, x uint64) int64 {
	switch t {
	case "s8":
		return int64(int8(x))
	case "u8":
		return int64(uint8(x))
	case "s4":
		return int64(int8(x<<4) >> 4)
	case "u4", "b1":
		return int64(x)
	}
	return int64(int32(x))
}

func fromFloat(t string, v float64) uint64 {
	switch t {
	case "f16":
		return uint64(fpx.F64ToF16(math.Float64bits(v), fpx.RN, 0))
	case "f32":
		return uint64(math.Float32bits(float32(v)))
	}
	return math.Float64bits(v)
}

// mmaRun runs the form on input words (per lane: A, B, C registers) and
// returns D's registers per lane.
func mmaRun(t *testing.T, fi *isa.FragInstr, mods string, in [][]uint64) [][]uint64 {
	t.Helper()
	src, nin, nout := mmaKernel(fi, mods)
	word := 4
	if fi.Operand("a").Type == "f64" {
		word = 8
	}
	buf := make([]byte, 32*nin*word)
	for l := 0; l < 32; l++ {
		for i, x := range in[l] {
			putLE(buf[(l*nin+i)*word:(l*nin+i+1)*word], x)
		}
	}
	m, a, r := memLaunch(t, src, [3]int{32, 1, 1}, [3]int{1, 1, 1}, buf, make([]byte, 32*nout*word))
	if r != StopDone {
		t.Fatalf("%s: %v: %v\n%s", fi.Key, r, m.Fault(), src)
	}
	out := make([][]uint64, 32)
	for l := range out {
		for i := 0; i < nout; i++ {
			out[l] = append(out[l], getLE(a[1].Data[(l*nout+i)*word:(l*nout+i+1)*word]))
		}
	}
	return out
}

// randomElem returns random element bits of type t: small integers when
// small is set, otherwise values of random sign, mantissa and a moderate
// exponent range (floats) or the full range (integers).
func randomElem(rng *rand.Rand, t string, small bool) uint64 {
	if small {
		v := rng.Intn(17) - 8
		switch t {
		case "s8", "s32":
			return uint64(int64(v))
		case "u8":
			return uint64(v + 8)
		case "s4":
			return uint64(int64(min(v, 7))) & 15
		case "u4":
			return uint64(v+8) & 15
		case "b1":
			return uint64(v & 1)
		case "f16":
			return fromFloat("f16", float64(v))
		case "bf16":
			return uint64(math.Float32bits(float32(v)) >> 16)
		case "tf32", "f32":
			return uint64(math.Float32bits(float32(v)))
		case "e4m3":
			return uint64(fpx.F32ToE4M3(math.Float32bits(float32(v)), true, false))
		case "e5m2":
			return uint64(fpx.F32ToE5M2(math.Float32bits(float32(v)), true, false)) // integer-valued (7 rounds to 8)
		}
		return math.Float64bits(float64(v))
	}
	switch t {
	case "s8", "u8":
		return uint64(rng.Intn(256))
	case "s4", "u4":
		return uint64(rng.Intn(16))
	case "b1":
		return uint64(rng.Intn(2))
	case "s32":
		return uint64(rng.Uint32())
	}
	f := (rng.Float64()*2 - 1) * math.Ldexp(1, rng.Intn(12)-6)
	switch t {
	case "f16":
		return uint64(fpx.F64ToF16(math.Float64bits(f), fpx.RN, 0))
	case "bf16":
		return uint64(math.Float32bits(float32(f)) >> 16)
	case "e4m3":
		return uint64(fpx.F32ToE4M3(math.Float32bits(float32(f)), true, false))
	case "e5m2":
		return uint64(fpx.F32ToE5M2(math.Float32bits(float32(f)), true, false))
	case "tf32", "f32":
		return uint64(math.Float32bits(float32(f))) | uint64(rng.Intn(1<<13)) // tf32: low bits must be ignored
	}
	return math.Float64bits(f)
}

// mmaInputs builds random per-lane registers for A, B and C.
func mmaInputs(rng *rand.Rand, fi *isa.FragInstr, small bool) [][]uint64 {
	in := make([][]uint64, 32)
	for _, name := range []string{"a", "b", "c"} {
		o := fi.Operand(name)
		regs := make([][]uint64, 32)
		for l := range regs {
			regs[l] = make([]uint64, o.Regs)
		}
		for _, e := range o.Elems {
			x := randomElem(rng, o.Type, small)
			bits := 64 / max(1, len(o.Elems)/(32*o.Regs))
			if o.Type != "f64" {
				bits = 32 / max(1, len(o.Elems)/(32*o.Regs))
			}
			if bits < 64 {
				x &= 1<<bits - 1
			}
			regs[e.Lane][e.Reg] |= x << (uint(e.Part) * uint(bits))
		}
		for l := range in {
			in[l] = append(in[l], regs[l]...)
		}
	}
	return in
}

// split returns lane l's registers of A, B, C from the inputs.
func split(fi *isa.FragInstr, in [][]uint64) (a, b, c [][]uint64) {
	na, nb := fi.Operand("a").Regs, fi.Operand("b").Regs
	for _, l := range in {
		a, b, c = append(a, l[:na]), append(b, l[na:na+nb]), append(c, l[na+nb:])
	}
	return
}

func TestMmaAgainstMatrixProduct(t *testing.T) {
	// The 8-bit float decodings the reference uses: 1.0 and the largest
	// finite values.
	for _, c := range []struct {
		t    string
		x    uint64
		want float64
	}{{"e4m3", 0x38, 1}, {"e4m3", 0x7e, 448}, {"e4m3", 0xfe, -448}, {"e5m2", 0x3c, 1}, {"e5m2", 0x7b, 57344}, {"e4m3", 0x01, 0x1p-9}} {
		if g := toFloat(c.t, c.x); g != c.want {
			t.Fatalf("%s %#x = %v, want %v", c.t, c.x, g, c.want)
		}
	}
	rng := rand.New(rand.NewSource(1))
	for _, fi := range isa.FragmentTable() {
		if fi.Op != "mma" || fi.Sparse != nil {
			continue // mma.sp: TestMmaSparseAgainstMatrixProduct
		}
		fi := fi
		t.Run(fi.Key, func(t *testing.T) {
			d, oa, ob, oc := fi.Operand("d"), fi.Operand("a"), fi.Operand("b"), fi.Operand("c")
			isInt := oa.Type == "s8" || oa.Type == "u8" || oa.Type == "s4" || oa.Type == "u4" || oa.Type == "b1"
			modsList := []string{""}
			if oa.Type == "b1" {
				modsList = []string{".and.popc", ".xor.popc"}
			} else if isInt {
				modsList = append(modsList, ".satfinite")
			}
			for _, mods := range modsList {
				for trial := 0; trial < 6; trial++ {
					small := trial < 3
					in := mmaInputs(rng, &fi, small)
					if isInt && !small && trial == 5 {
						// Large accumulators make sums overflow s32.
						for l := range in {
							for i := oa.Regs + ob.Regs; i < len(in[l]); i++ {
								in[l][i] = uint64(uint32(math.MaxInt32 - rng.Intn(1000)))
								if rng.Intn(2) == 0 {
									in[l][i] = uint64(uint32(math.MinInt32 + rng.Intn(1000)))
								}
							}
						}
					}
					la, lb, lc := split(&fi, in)
					A, B, C := mmaMatrix(oa, la), mmaMatrix(ob, lb), mmaMatrix(oc, lc)
					got := mmaMatrix(d, mmaRun(t, &fi, mods, in))
					// Row of B for row i of A and column k: the forms with groups
					// stack independent products by rows.
					groups := max(fi.Groups, 1)
					kb := func(i, k int) int { return i/(oa.Rows/groups)*oa.Cols + k }
					for i := 0; i < d.Rows; i++ {
						for j := 0; j < d.Cols; j++ {
							if isInt {
								s := toInt(oc.Type, C[i][j])
								for k := 0; k < oa.Cols; k++ {
									x, y := toInt(oa.Type, A[i][k]), toInt(ob.Type, B[kb(i, k)][j])
									switch mods {
									case ".and.popc":
										s += x & y
									case ".xor.popc":
										s += x ^ y
									default:
										s += x * y
									}
								}
								if mods == ".satfinite" {
									s = min(max(s, math.MinInt32), math.MaxInt32)
								}
								if want := uint64(uint32(s)); got[i][j] != want {
									t.Fatalf("%s%s trial %d: D[%d][%d] = %d, want %d", fi.Key, mods, trial, i, j, int32(got[i][j]), int32(want))
								}
								continue
							}
							// Exact sum with big floats, and the sum of magnitudes.
							exact := new(big.Float).SetPrec(2000).SetFloat64(toFloat(oc.Type, C[i][j]))
							mag := math.Abs(toFloat(oc.Type, C[i][j]))
							for k := 0; k < oa.Cols; k++ {
								x, y := toFloat(oa.Type, A[i][k]), toFloat(ob.Type, B[kb(i, k)][j])
								p := new(big.Float).SetPrec(2000).Mul(big.NewFloat(x).SetPrec(2000), big.NewFloat(y).SetPrec(2000))
								exact.Add(exact, p)
								mag += math.Abs(x * y)
							}
							ef, _ := exact.Float64()
							g := toFloat(d.Type, got[i][j])
							if small {
								// Integer-valued: the result is exact.
								if want := fromFloat(d.Type, ef); got[i][j] != want {
									t.Fatalf("%s trial %d: D[%d][%d] = %v, want %v", fi.Key, trial, i, j, g, ef)
								}
								continue
							}
							// Random inputs: within one ulp of the accumulator type of
							// the exact result, plus 2^-45 of the sum of magnitudes
							// (f64 summation; f64 forms: the K fused steps).
							ulp := math.Abs(float64(math.Nextafter32(float32(ef), float32(math.Inf(1)))) - float64(float32(ef)))
							switch d.Type {
							case "f16":
								ulp = math.Ldexp(1, max(int(math.Floor(math.Log2(math.Abs(ef))))-10, -24))
							case "f64":
								ulp = math.Abs(math.Nextafter(ef, math.Inf(1))-ef) * float64(oa.Cols)
							}
							if diff := math.Abs(g - ef); diff > ulp+mag*0x1p-45 {
								t.Fatalf("%s trial %d: D[%d][%d] = %v, exact %v (diff %g > %g)", fi.Key, trial, i, j, g, ef, diff, ulp+mag*0x1p-45)
							}
						}
					}
				}
			}
		})
	}
}

// ---- ldmatrix / stmatrix / movmatrix ----

const matrixKernel = memHdr + `
.visible .entry k(.param .u64 pin, .param .u64 pout) {
	.reg .b32 %%x<4>; .reg .u32 %%t, %%s, %%v; .reg .u64 %%rd<6>; .reg .pred %%p;
	.shared .align 16 .b8 sm[1024];
	ld.param.u64 %%rd1, [pin];
	ld.param.u64 %%rd2, [pout];
	mov.u32 %%t, %%tid.x;
	// copy 1024 bytes of input into shared memory (32 bytes per lane)
	mul.wide.u32 %%rd3, %%t, 32;
	add.u64 %%rd4, %%rd1, %%rd3;
	mov.u32 %%s, sm;
	mad.lo.u32 %%s, %%t, 32, %%s;
	ld.global.v4.u32 {%%x0, %%x1, %%x2, %%x3}, [%%rd4];
	st.shared.v4.u32 [%%s], {%%x0, %%x1, %%x2, %%x3};
	ld.global.v4.u32 {%%x0, %%x1, %%x2, %%x3}, [%%rd4+16];
	st.shared.v4.u32 [%%s+16], {%%x0, %%x1, %%x2, %%x3};
	bar.sync 0;
	// lane l's row address: a permutation of 16-byte rows
	mul.lo.u32 %%v, %%t, 7;
	and.b32 %%v, %%v, 31;
	mov.u32 %%s, sm;
	mad.lo.u32 %%s, %%v, 16, %%s;
	%s
	mul.wide.u32 %%rd3, %%t, 16;
	add.u64 %%rd5, %%rd2, %%rd3;
	st.global.v4.u32 [%%rd5], {%%x0, %%x1, %%x2, %%x3};
	%s
	ret;
}
`

func TestLdStMatrix(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	in := make([]byte, 1024)
	rng.Read(in)
	row := func(l int) []byte { v := l * 7 % 32; return in[16*v : 16*v+16] } // the row lane l points at
	h := func(b []byte, c int) uint64 { return uint64(binary.LittleEndian.Uint16(b[2*c:])) }
	for _, n := range []int{1, 2, 4} {
		for _, trans := range []string{"", ".trans"} {
			regs := []string{"%x0", "%x1", "%x2", "%x3"}[:n]
			vec := "{" + strings.Join(regs, ", ") + "}"
			// ldmatrix through a shared address, then stmatrix of the loaded
			// registers back (same form) through a generic address to the
			// same rows: memory must come back unchanged.
			ld := fmt.Sprintf("ldmatrix.sync.aligned.m8n8.x%d%s.shared.b16 %s, [%%s];", n, trans, vec)
			st := fmt.Sprintf("cvta.shared.u64 %%rd4, %%rd4;\n\tcvt.u64.u32 %%rd4, %%s;\n\tcvta.shared.u64 %%rd4, %%rd4;\n\tstmatrix.sync.aligned.m8n8.x%d%s.b16 [%%rd4], %s;\n", n, trans, vec)
			st += "\tmov.u32 %s, sm;\n\tmad.lo.u32 %s, %t, 32, %s;\n\tld.shared.v4.u32 {%x0, %x1, %x2, %x3}, [%s];\n\tmul.wide.u32 %rd3, %t, 32;\n\tadd.u64 %rd5, %rd2, %rd3;\n\tst.global.v4.u32 [%rd5+512], {%x0, %x1, %x2, %x3};\n\tld.shared.v4.u32 {%x0, %x1, %x2, %x3}, [%s+16];\n\tst.global.v4.u32 [%rd5+528], {%x0, %x1, %x2, %x3};"
			src := fmt.Sprintf(matrixKernel, strings.Replace(ld, "%s]", "%s]", 1), st)
			src = strings.ReplaceAll(src, "%%", "%")
			a := memRun(t, src, 32, in, make([]byte, 512+1024))
			out := a[1].Data
			for l := 0; l < 32; l++ {
				for j := 0; j < n; j++ {
					got := uint64(binary.LittleEndian.Uint32(out[16*l+4*j:]))
					var want uint64
					if trans == "" {
						r := row(8*j + l/4)
						want = h(r, 2*(l%4)) | h(r, 2*(l%4)+1)<<16
					} else {
						want = h(row(8*j+2*(l%4)), l/4) | h(row(8*j+2*(l%4)+1), l/4)<<16
					}
					if got != want {
						t.Fatalf("x%d%s: lane %d reg %d = %08x, want %08x", n, trans, l, j, got, want)
					}
				}
			}
			if string(out[512:]) != string(in) {
				t.Errorf("x%d%s: stmatrix of the loaded fragments did not restore shared memory", n, trans)
			}
		}
	}
}

func TestMovmatrix(t *testing.T) {
	src := memHdr + `
.visible .entry k(.param .u64 pin, .param .u64 pout) {
	.reg .b32 %a, %d; .reg .u32 %t; .reg .u64 %rd<4>;
	ld.param.u64 %rd1, [pin];
	ld.param.u64 %rd2, [pout];
	mov.u32 %t, %tid.x;
	mul.wide.u32 %rd3, %t, 4;
	add.u64 %rd1, %rd1, %rd3;
	add.u64 %rd2, %rd2, %rd3;
	ld.global.b32 %a, [%rd1];
	movmatrix.sync.aligned.m8n8.trans.b16 %a, %a;
	st.global.b32 [%rd2], %a;
	ret;
}
`
	in := make([]byte, 128)
	rand.New(rand.NewSource(3)).Read(in)
	a := memRun(t, src, 32, in, make([]byte, 128))
	el := func(b []byte, r, c int) uint16 { return binary.LittleEndian.Uint16(b[4*(4*r+c/2)+2*(c%2):]) } // fragment element (r, c)
	for r := 0; r < 8; r++ {
		for c := 0; c < 8; c++ {
			if g, w := el(a[1].Data, r, c), el(in, c, r); g != w {
				t.Fatalf("D(%d,%d) = %04x, want A(%d,%d) = %04x", r, c, g, c, r, w)
			}
		}
	}
}

type accessRecorder struct{ acc []Access }

func (r *accessRecorder) Step(in *StepInfo) {
	for _, a := range in.Accesses {
		if a.Space == isa.Shared {
			r.acc = append(r.acc, a)
		}
	}
}

func TestMatrixObserverAndFaults(t *testing.T) {
	kernel := func(body string) string {
		return memHdr + `
.visible .entry k(.param .u64 pout) {
	.reg .b32 %x<4>; .reg .u32 %t, %s; .reg .pred %p;
	.shared .align 16 .b8 sm[512];
	mov.u32 %t, %tid.x;
	mov.u32 %s, sm;
	mad.lo.u32 %s, %t, 16, %s;
	` + body + `
	ret;
}
`
	}
	// The observer sees one 16-byte row per addressing lane.
	m, _, r := memLaunchObserved(t, kernel("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%x0, %x1}, [%s];"), &accessRecorder{})
	if r != StopDone {
		t.Fatalf("%v: %v", r, m.Fault())
	}
	rec := m.obs.(*accessRecorder)
	if len(rec.acc) != 1 || rec.acc[0].Lanes != 0xffff || rec.acc[0].Kind != AccessLoad || rec.acc[0].Addr[15] != 15*16 {
		t.Errorf("ldmatrix accesses: %+v", rec.acc)
	}
	m, _, _ = memLaunchObserved(t, kernel("stmatrix.sync.aligned.m8n8.x1.shared.b16 [%s], %x0;"), &accessRecorder{})
	rec = m.obs.(*accessRecorder)
	if len(rec.acc) != 1 || rec.acc[0].Lanes != 0xff || rec.acc[0].Kind != AccessStore || rec.acc[0].Size != 16 {
		t.Errorf("stmatrix accesses: %+v", rec.acc)
	}
	cases := []struct{ body, kind, msg string }{
		{"add.u32 %s, %s, 8;\n\tldmatrix.sync.aligned.m8n8.x4.shared.b16 {%x0, %x1, %x2, %x3}, [%s];", "misaligned", "misaligned 16-byte access"},
		{"add.u32 %s, %s, 256;\n\tldmatrix.sync.aligned.m8n8.x4.shared.b16 {%x0, %x1, %x2, %x3}, [%s];", "out-of-bounds", "outside its"},
		{"setp.lt.u32 %p, %t, 30;\n\t@%p ldmatrix.sync.aligned.m8n8.x1.shared.b16 %x0, [%s];", "invalid-membermask", "lane(s) 30-31 do not"},
		{"setp.lt.u32 %p, %t, 16;\n\t@%p bra L;\n\tmma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%x0, %x1, %x2, %x3}, {%x0, %x1}, {%x2}, {%x0, %x1, %x2, %x3};\nL:", "divergent-aligned", "lane(s) 0-15 are elsewhere (lane(s) 0-15 at pc"},
		{"movmatrix.sync.aligned.m8n8.trans.b16 %x0, %x1;\n\texit;", "", ""},
	}
	for _, c := range cases {
		m, _, r := memLaunchObserved(t, kernel(c.body), nil)
		if c.kind == "" {
			if r != StopDone {
				t.Errorf("%s: %v %v", c.body, r, m.Fault())
			}
			continue
		}
		f := m.Fault()
		if r != StopFault || f == nil || string(f.Kind) != c.kind || !strings.Contains(f.Message, c.msg) {
			t.Errorf("%s: stop %v fault %v, want %s %q", c.body, r, f, c.kind, c.msg)
		}
	}
	// An out-of-bounds row names the lowest faulting lane and all of them.
	m, _, _ = memLaunchObserved(t, kernel("add.u32 %s, %s, 384;\n\tldmatrix.sync.aligned.m8n8.x4.shared.b16 {%x0, %x1, %x2, %x3}, [%s];"), nil)
	if f := m.Fault(); f == nil || f.Lane != 8 || f.Lanes != 0xffffff00 {
		t.Errorf("fault %+v, want lane 8, lanes 8-31", f)
	}

	// The tensor report: row r of matrix j from the address in lane 8j+r
	// (lanes 0-7 for .x1, 0-15 for .x2), each matrix in its register of
	// the vector operand. The lanes hold permuted rows (lane l: row 5l
	// mod 32), so a lane and its row differ.
	perm := "mul.lo.u32 %t, %t, 5;\n\trem.u32 %t, %t, 32;\n\tmov.u32 %s, sm;\n\tmad.lo.u32 %s, %t, 16, %s;\n\t"
	for _, c := range []struct {
		ins     string
		n       int
		store   bool
		generic bool
	}{
		{"ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%x2}, [%s];", 1, false, false},
		{"ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%x3, %x1}, [%s];", 2, false, false},
		{"ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%x0, %x1, %x2, %x3}, [%s+16];", 4, false, false},
		{"cvta.shared.u64 %g, %g;\n\tldmatrix.sync.aligned.m8n8.x4.b16 {%x3, %x2, %x1, %x0}, [%g];", 4, false, true},
		{"stmatrix.sync.aligned.m8n8.x2.shared.b16 [%s], {%x1, %x0};", 2, true, false},
		{"stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [%s], {%x0, %x1, %x2, %x3};", 4, true, false},
	} {
		body := perm + "cvt.u64.u32 %g, %s;\n\t" + c.ins
		tr := &tensorRecorder{}
		m, _, r := memLaunchObserved(t, tensorKernel(body), tr)
		if r != StopDone {
			t.Errorf("%s: %v %v", c.ins, r, m.Fault())
			continue
		}
		checkMatrixReport(t, m, tr, c.ins, c.n, c.store, c.generic)
	}
	// A faulting row still reports every row, with where it fell.
	tr := &tensorRecorder{}
	m, _, _ = memLaunchObserved(t, tensorKernel("add.u32 %s, %s, 768;\n\tldmatrix.sync.aligned.m8n8.x4.shared.b16 {%x0, %x1, %x2, %x3}, [%s];"), tr)
	if m.Fault() == nil || m.Fault().Lanes != 0xffff0000 || len(tr.steps) != 1 || len(tr.steps[0].Matrices) != 4 || tr.steps[0].Matrices[3].Rows[7].Offset != 768+31*16 || tr.steps[0].Matrices[3].Rows[7].Lane != 31 {
		t.Errorf("faulting ldmatrix: fault %v, report %+v", m.Fault(), tr.steps)
	}
	// Convergence faults report nothing: the instruction did not run.
	tr = &tensorRecorder{}
	memLaunchObserved(t, tensorKernel("setp.lt.u32 %p, %t, 30;\n\t@%p ldmatrix.sync.aligned.m8n8.x1.shared.b16 %x0, [%s];"), tr)
	if len(tr.steps) != 0 {
		t.Errorf("a non-converged ldmatrix reported %+v", tr.steps)
	}

	// mma and movmatrix: the registers of each operand, D written.
	for _, c := range []struct {
		ins  string
		want []string // per operand d, a, b, c: its registers
	}{
		{"mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%f0, %f1, %f2, %f3}, {%x0, %x1}, {%x2}, {%f3, %f2, %f1, %f0};",
			[]string{"d w %f0 %f1 %f2 %f3", "a r %x0 %x1", "b r %x2", "c r %f3 %f2 %f1 %f0"}},
		{"mma.sync.aligned.m8n8k4.row.col.f16.f16.f16.f16 {%x0, %x1, %x2, %x3}, {%x1, %x2}, {%x3, %x0}, {%x2, %x3, %x0, %x1};",
			[]string{"d w %x0 %x1 %x2 %x3", "a r %x1 %x2", "b r %x3 %x0", "c r %x2 %x3 %x0 %x1"}},
		{"mma.sync.aligned.m16n8k256.row.col.s32.b1.b1.s32.xor.popc {%x0, %x1, %x2, %x3}, {%x3, %x2, %x1, %x0}, {%x1, %x2}, {%x0, %x1, %x2, %x3};",
			[]string{"d w %x0 %x1 %x2 %x3", "a r %x3 %x2 %x1 %x0", "b r %x1 %x2", "c r %x0 %x1 %x2 %x3"}},
		{"mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%d0, %d1}, {%d2}, {%d3}, {%d1, %d0};",
			[]string{"d w %d0 %d1", "a r %d2", "b r %d3", "c r %d1 %d0"}},
		{"movmatrix.sync.aligned.m8n8.trans.b16 %x3, %x1;", []string{"d w %x3", "a r %x1"}},
	} {
		tr := &tensorRecorder{}
		m, _, r := memLaunchObserved(t, tensorKernel(c.ins), tr)
		if r != StopDone || len(tr.steps) != 1 {
			t.Errorf("%s: %v %v, %d reports", c.ins, r, m.Fault(), len(tr.steps))
			continue
		}
		ts := tr.steps[0]
		var got []string
		for _, o := range ts.Operands {
			s := o.Name + " r"
			if o.Write {
				s = o.Name + " w"
			}
			for _, slot := range o.Regs {
				s += " " + m.prog.Regs[slot].Name
			}
			got = append(got, s)
		}
		if strings.Join(got, "; ") != strings.Join(c.want, "; ") || len(ts.Matrices) != 0 || !strings.HasPrefix(ts.Key, strings.Fields(c.ins)[0][:3]) {
			t.Errorf("%s: report %s %q, want %q", c.ins, ts.Key, got, c.want)
		}
		if isa.LookupFragments(ts.Key) == nil {
			t.Errorf("%s: key %q is not a layout", c.ins, ts.Key)
		}
	}
}

func tensorKernel(body string) string {
	return memHdr + `
.visible .entry k(.param .u64 pout) {
	.reg .b32 %x<4>; .reg .f32 %f<4>; .reg .f64 %d<4>; .reg .u32 %t, %s; .reg .u64 %g; .reg .pred %p;
	.shared .align 16 .b8 sm[1024];
	mov.u32 %t, %tid.x;
	mov.u32 %s, sm;
	mad.lo.u32 %s, %t, 16, %s;
	` + body + `
	ret;
}
`
}

// tensorRecorder keeps a copy of every tensor report, and the shared
// accesses of the same instructions.
type tensorRecorder struct {
	steps []TensorStep
	acc   [][]Access
}

func (r *tensorRecorder) Step(in *StepInfo) {
	if in.Tensor == nil {
		return
	}
	t := *in.Tensor
	t.Matrices = slices.Clone(t.Matrices)
	for i := range t.Matrices {
		t.Matrices[i].Rows = slices.Clone(t.Matrices[i].Rows)
	}
	t.Operands = slices.Clone(t.Operands)
	for i := range t.Operands {
		t.Operands[i].Regs = slices.Clone(t.Operands[i].Regs)
	}
	r.steps = append(r.steps, t)
	r.acc = append(r.acc, slices.Clone(in.Accesses))
}

// checkMatrixReport checks an ldmatrix/stmatrix report of n matrices
// against the ISA rule and the instruction's operands.
func checkMatrixReport(t *testing.T, m *Machine, tr *tensorRecorder, ins string, n int, store, generic bool) {
	t.Helper()
	if len(tr.steps) != 1 {
		t.Errorf("%s: %d tensor reports", ins, len(tr.steps))
		return
	}
	ts, acc := tr.steps[0], tr.acc[0]
	if len(ts.Operands) != 0 || len(ts.Matrices) != n || isa.LookupFragments(ts.Key) == nil {
		t.Errorf("%s: report %+v", ins, ts)
		return
	}
	// The destination (source) registers, in the vector's order.
	names := strings.FieldsFunc(ins[strings.Index(ins, "{")+1:strings.Index(ins, "}")], func(r rune) bool { return r == ',' || r == ' ' })
	if len(acc) != 1 || bits.OnesCount32(acc[0].Lanes) != 8*n {
		t.Errorf("%s: accesses %+v", ins, acc)
		return
	}
	off := uint64(0)
	if strings.Contains(ins, "+16]") {
		off = 16
	}
	// The access reports offsets in shared memory, and the generic
	// addresses through GenericAddr.
	base := acc[0].Addr[0] - off // lane 0 addresses row 0
	kind := AccessLoad
	if store {
		kind = AccessStore
	}
	if a := &acc[0]; a.Generic != generic || a.Space != isa.Shared || a.Size != 16 || a.Kind != kind || a.CTA != 0 {
		t.Errorf("%s: access generic %v space %s size %d kind %d CTA %d, want generic %v shared 16 bytes kind %d CTA 0", ins, a.Generic, a.Space, a.Size, a.Kind, a.CTA, generic, kind)
	}
	for j, mt := range ts.Matrices {
		if mt.Index != j || m.prog.Regs[mt.Reg].Name != names[j] || mt.Write == store || mt.RowBytes != 16 || len(mt.Rows) != 8 {
			t.Errorf("%s: matrix %d: index %d reg %s write %v, %d rows of %d bytes; want register %s", ins, j, mt.Index, m.prog.Regs[mt.Reg].Name, mt.Write, len(mt.Rows), mt.RowBytes, names[j])
			continue
		}
		for r, row := range mt.Rows {
			l := 8*j + r
			want := base + uint64(5*l%32)*16 + off
			addr := want
			if generic {
				addr += GenericShared
			}
			if row.Lane != l || row.Space != isa.Shared || row.Offset != want || row.Addr != addr || acc[0].Addr[l] != want || acc[0].GenericAddr(l) != addr {
				t.Errorf("%s: matrix %d row %d: lane %d addr %#x (%s offset %#x), want lane %d addr %#x offset %#x (accessed %#x, %#x)", ins, j, r, row.Lane, row.Addr, row.Space, row.Offset, l, addr, want, acc[0].Addr[l], acc[0].GenericAddr(l))
			}
		}
	}
}

func memLaunchObserved(t *testing.T, src string, obs Observer) (*Machine, *Alloc, StopReason) {
	t.Helper()
	m, out := ctlKernel(t, src, [3]int{32, 1, 1}, [3]int{1, 1, 1}, 64)
	if obs != nil {
		m.SetObserver(obs)
	}
	return m, out, m.Run(context.Background())
}

func TestTensorCheckErrors(t *testing.T) {
	for _, c := range []struct{ ins, msg string }{
		{"mma.m16n8k8.row.col.f32.f16.f16.f32 {%f0,%f1,%f2,%f3}, {%r1,%r2}, {%r3}, {%f0,%f1,%f2,%f3};", "needs .sync.aligned"},
		{"mma.sync.aligned.m16n8k8.row.col.satfinite.f32.f16.f16.f32 {%f0,%f1,%f2,%f3}, {%r1,%r2}, {%r3}, {%f0,%f1,%f2,%f3};", ".satfinite applies to integer forms only"},
		{"mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%f0,%f1,%f2}, {%r1,%r2}, {%r3}, {%f0,%f1,%f2,%f3};", "vector operand has 3 elements, expected 4"},
		{"mma.sync.aligned.m16n8k8.col.col.f32.f16.f16.f32 {%f0,%f1,%f2,%f3}, {%r1,%r2}, {%r3}, {%f0,%f1,%f2,%f3};", "takes .row.col layouts only"},
		{"mma.sync.aligned.m8n8k4.col.col.f32.f16.f16.f32 {%f0,%f1,%f2,%f3}, {%r1,%r2}, {%r3,%r0}, {%f0,%f1,%f2,%f3};", "vector operand has 4 elements, expected 8"},
		{"mma.sync.aligned.m8n8k128.row.col.s32.b1.b1.s32 {%r0,%r1}, {%r1}, {%r2}, {%r0,%r1};", ".b1 forms need .and.popc or .xor.popc"},
		{"mma.sync.aligned.m8n8k128.row.col.s32.b1.b1.s32.or.popc {%r0,%r1}, {%r1}, {%r2}, {%r0,%r1};", ".b1 forms need .and.popc or .xor.popc"},
		{"mma.sync.aligned.m8n8k128.row.col.satfinite.s32.b1.b1.s32.and.popc {%r0,%r1}, {%r1}, {%r2}, {%r0,%r1};", ".satfinite is not valid for .b1 forms"},
		{"mma.sync.aligned.m8n8k16.row.col.s32.s8.s8.s32.and.popc {%r0,%r1}, {%r1}, {%r2}, {%r0,%r1};", ".and.popc / .xor.popc apply to .b1 forms only"},
		{"mma.sync.aligned.m16n8k16.row.col.f32.tf32.tf32.f32 {%f0,%f1,%f2,%f3}, {%r1,%r2}, {%r3,%r0}, {%f0,%f1,%f2,%f3};", "not a form of mma: no .m16n8k16 form with types .f32.tf32.tf32.f32"},
		{"mma.sync.aligned.m16n8k16.row.f32.f16.f16.f32 {%f0,%f1,%f2,%f3}, {%r1,%r2}, {%r3,%r0}, {%f0,%f1,%f2,%f3};", "not a form of mma: it needs .alayout.blayout"},
		{"ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%r1}, [%rd1];", "vector operand has 1 elements, expected 2"},
		{"ldmatrix.sync.aligned.m8n8.x2.global.b16 {%r1, %r2}, [%rd1];", "accesses .shared memory only"},
		{"movmatrix.sync.aligned.m8n8.b16 %r1, %r2;", "the only form is movmatrix.sync.aligned.m8n8.trans.b16"},
		// mma.sp
		{"mma.sp.sync.aligned.m16n8k32.row.col.f32.f16.f16.f32 {%f0,%f1,%f2,%f3}, {%r0,%r1,%r2,%r3}, {%r0,%r1,%r2,%r3}, {%f0,%f1,%f2,%f3}, %r1, 2;", "t.ptx:5:136: error[invalid-operand]: mma.sp.sync.aligned.m16n8k32.row.col.f32.f16.f16.f32: sparsity selector 2 is out of range for this form: 0 (threads T0, T1 of each group of four supply the metadata) or 1 (T2, T3)"},
		{"mma.sp.sync.aligned.m16n8k64.row.col.s32.s8.s8.s32 {%r0,%r1,%r2,%r3}, {%r0,%r1,%r2,%r3}, {%r0,%r1,%r2,%r3}, {%r0,%r1,%r2,%r3}, %r1, 1;", "sparsity selector 1 is out of range for this form: 0 (all four threads"},
		{"mma.sp.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f0,%f1,%f2,%f3}, {%r1,%r2}, {%r3,%r0}, {%f0,%f1,%f2,%f3}, %r1, 4;", "sparsity selector 4 is out of range for this form: 0..3"},
		{"mma.sp.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f0,%f1,%f2,%f3}, {%r1,%r2}, {%r3,%r0}, {%f0,%f1,%f2,%f3}, %r1, -1;", "sparsity selector -1 is out of range"},
		{"mma.sp.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f0,%f1,%f2,%f3}, {%r1,%r2}, {%r3,%r0}, {%f0,%f1,%f2,%f3}, %r1, %r2;", "the sparsity selector (operand 6) must be a constant 0..3"},
		{"mma.sp.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f0,%f1,%f2,%f3}, {%r1,%r2}, {%r3,%r0}, {%f0,%f1,%f2,%f3}, %r1, 1.0;", "must be an integer constant"},
		{"mma.sp.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f0,%f1,%f2,%f3}, {%r1,%r2}, {%r3,%r0}, {%f0,%f1,%f2,%f3}, %r1;", "expects 6 operands, got 5"},
		{"mma.sp.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f0,%f1,%f2,%f3}, {%r1,%r2}, {%r3,%r0}, {%f0,%f1,%f2,%f3};", "expects 6 operands, got 4"},
		{"mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f0,%f1,%f2,%f3}, {%r1,%r2,%r3,%r0}, {%r3,%r0}, {%f0,%f1,%f2,%f3}, %r1, 0;", "expects 4 operands, got 6"},
		{"mma.sp.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f0,%f1,%f2,%f3}, {%r1,%r2,%r3,%r0}, {%r3,%r0}, {%f0,%f1,%f2,%f3}, %r1, 0;", "vector operand has 4 elements, expected 2"},
		{"mma.sp.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f0,%f1,%f2,%f3}, {%r1,%r2}, {%r3,%r0}, {%f0,%f1,%f2,%f3}, %rd1, 0;", "%rd1"},
		{"mma.sp.sync.aligned.m16n8k16.row.col.f16.f16.f16.f32 {%r0,%r1}, {%r1,%r2}, {%r3,%r0}, {%f0,%f1,%f2,%f3}, %r1, 0;", "not a form of mma.sp: no .m16n8k16 form with types .f16.f16.f16.f32"},
		{"mma.sp.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%f0,%f1,%f2,%f3}, {%r1}, {%r3}, {%f0,%f1,%f2,%f3}, %r1, 0;", "not a form of mma.sp: no .m16n8k8 form"},
		{"mma.sp.sync.aligned.m16n8k64.row.col.f16.e4m3.e4m3.f16 {%r0,%r1}, {%r0,%r1,%r2,%r3}, {%r0,%r1,%r2,%r3}, {%r0,%r1}, %r1, 0;", "not a form of mma.sp"},
		{"mma.sp.sync.aligned.m8n8k128.row.col.s32.b1.b1.s32.and.popc {%r0,%r1}, {%r1}, {%r2}, {%r0,%r1}, %r1, 0;", "not a form of mma.sp"},
		{"mma.sp.sync.aligned.m16n8k16.col.col.f32.f16.f16.f32 {%f0,%f1,%f2,%f3}, {%r1,%r2}, {%r3,%r0}, {%f0,%f1,%f2,%f3}, %r1, 0;", "this form of mma.sp takes .row.col layouts only"},
		{"mma.sp.sync.aligned.m16n8k16.row.col.satfinite.f32.f16.f16.f32 {%f0,%f1,%f2,%f3}, {%r1,%r2}, {%r3,%r0}, {%f0,%f1,%f2,%f3}, %r1, 0;", ".satfinite applies to integer forms only"},
		{"mma.sp.sp::ordered_metadata.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f0,%f1,%f2,%f3}, {%r1,%r2}, {%r3,%r0}, {%f0,%f1,%f2,%f3}, %r1, 0;", "takes one of .sp and .sp::ordered_metadata"},
		{"mma.sp.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f0,%f1,%f2,%f3}, {%r1,%r2}, {%r3,%r0}, {%f0,%f1,%f2,%f3}, %r1, 0;", "needs .sync.aligned"},
		// wmma
		{"wmma.load.a.row.m16n16k16.f16 {%r0,%r1,%r2,%r3,%r0,%r1,%r2,%r3}, [%rd1];", "needs .sync.aligned"},
		{"wmma.load.a.sync.aligned.row.m16n16k16.f16 {%r0,%r1,%r2,%r3}, [%rd1];", "vector operand has 4 elements, expected 8"},
		{"wmma.load.sync.aligned.row.m16n16k16.f16 {%r0,%r1,%r2,%r3,%r0,%r1,%r2,%r3}, [%rd1];", "needs the fragment .a, .b or .c"},
		{"wmma.load.d.sync.aligned.row.m16n16k16.f32 {%f0,%f1,%f2,%f3,%f0,%f1,%f2,%f3}, [%rd1];", "needs the fragment .a, .b or .c"},
		{"wmma.load.a.sync.aligned.m16n16k16.f16 {%r0,%r1,%r2,%r3,%r0,%r1,%r2,%r3}, [%rd1];", "needs one layout, .row or .col"},
		{"wmma.load.a.sync.aligned.row.m16n8k16.f16 {%r0,%r1,%r2,%r3,%r0,%r1,%r2,%r3}, [%rd1];", "not a wmma shape: .m16n8k16"},
		{"wmma.load.a.sync.aligned.row.m16n16k16.f32 {%f0,%f1,%f2,%f3,%f0,%f1,%f2,%f3}, [%rd1];", "no wmma.load.a form for .m16n16k16 with type .f32"},
		{"wmma.load.a.sync.aligned.col.m8n8k32.s4 {%r0}, [%rd1];", "the .s4 A fragment must be loaded .row"},
		{"wmma.load.b.sync.aligned.row.m8n8k128.b1 {%r0}, [%rd1];", "the .b1 B fragment must be loaded .col"},
		{"wmma.load.c.sync.aligned.row.m16n16k16.local.f32 {%f0,%f1,%f2,%f3,%f0,%f1,%f2,%f3}, [%rd1];", "accesses .global or .shared memory"},
		{"wmma.load.c.sync.aligned.row.m16n16k16.f32 {%f0,%f1,%f2,%f3,%f0,%f1,%f2,%f3}, [%rd1], 16, 3;", "expects 2 to 3 operands, got 4"},
		{"wmma.load.c.sync.aligned.row.m16n16k16.f32 {%f0,%f1,%f2,%f3,%f0,%f1,%f2,%f3}, %rd1;", "must be an address"},
		{"wmma.store.a.sync.aligned.row.m16n16k16.f32 [%rd1], {%f0,%f1,%f2,%f3,%f0,%f1,%f2,%f3};", "needs the fragment .d"},
		{"wmma.store.d.sync.aligned.row.m16n16k16.bf16 [%rd1], {%r0,%r1,%r2,%r3};", "no wmma.store.d form for .m16n16k16 with type .bf16"},
		{"wmma.mma.sync.aligned.row.m16n16k16.f32.f32 {%f0,%f1,%f2,%f3,%f0,%f1,%f2,%f3}, {%r0,%r1,%r2,%r3,%r0,%r1,%r2,%r3}, {%r0,%r1,%r2,%r3,%r0,%r1,%r2,%r3}, {%f0,%f1,%f2,%f3,%f0,%f1,%f2,%f3};", "needs the layouts of A and B"},
		{"wmma.mma.sync.aligned.row.col.m16n16k16.f32.f32 {%f0,%f1,%f2,%f3,%f0,%f1,%f2,%f3}, {%r0,%r1,%r2,%r3}, {%r0,%r1,%r2,%r3,%r0,%r1,%r2,%r3}, {%f0,%f1,%f2,%f3,%f0,%f1,%f2,%f3};", "vector operand has 4 elements, expected 8"},
		{"wmma.mma.sync.aligned.row.col.m16n16k16.f32.f32 {%f0,%f1,%f2,%f3,%f0,%f1,%f2,%f3}, {%r0,%r1,%r2,%r3,%r0,%r1,%r2,%r3}, {%r0,%r1,%r2,%r3,%r0,%r1,%r2,%r3};", "expects 4 operands, got 3"},
		{"wmma.mma.sync.aligned.row.col.m16n16k16.f32.f16.f16.f32 {%f0,%f1,%f2,%f3,%f0,%f1,%f2,%f3}, {%r0,%r1,%r2,%r3,%r0,%r1,%r2,%r3}, {%r0,%r1,%r2,%r3,%r0,%r1,%r2,%r3}, {%f0,%f1,%f2,%f3,%f0,%f1,%f2,%f3};", "the .f16 form names only .dtype.ctype"},
		{"wmma.mma.sync.aligned.row.col.m16n16k16.s32.s8.u8.s32 {%r0,%r1,%r2,%r3,%r0,%r1,%r2,%r3}, {%r0,%r1}, {%r0,%r1}, {%r0,%r1,%r2,%r3,%r0,%r1,%r2,%r3};", "not a form of wmma.mma: no .m16n16k16 form with types .s32.s8.u8.s32"},
		{"wmma.mma.sync.aligned.row.col.m16n16k8.f32.bf16.bf16.f32 {%f0,%f1,%f2,%f3,%f0,%f1,%f2,%f3}, {%r0,%r1,%r2,%r3}, {%r0,%r1,%r2,%r3}, {%f0,%f1,%f2,%f3,%f0,%f1,%f2,%f3};", "no .m16n16k8 form with types .f32.bf16.bf16.f32"},
		{"wmma.mma.sync.aligned.col.col.m8n8k32.s32.s4.s4.s32 {%r0,%r1}, {%r0}, {%r1}, {%r0,%r1};", "the .s4 form takes .row.col layouts only"},
		{"wmma.mma.sync.aligned.row.col.m8n8k128.s32.b1.b1.s32 {%r0,%r1}, {%r0}, {%r1}, {%r0,%r1};", ".b1 forms need .and.popc or .xor.popc"},
		{"wmma.mma.sync.aligned.row.col.m16n16k16.f32.f32.satfinite {%f0,%f1,%f2,%f3,%f0,%f1,%f2,%f3}, {%r0,%r1,%r2,%r3,%r0,%r1,%r2,%r3}, {%r0,%r1,%r2,%r3,%r0,%r1,%r2,%r3}, {%f0,%f1,%f2,%f3,%f0,%f1,%f2,%f3};", ".satfinite applies to the integer forms only"},
		{"wmma.mma.sync.aligned.row.col.m16n16k8.rz.f32.tf32.tf32.f32 {%f0,%f1,%f2,%f3,%f0,%f1,%f2,%f3}, {%r0,%r1,%r2,%r3}, {%r0,%r1,%r2,%r3}, {%f0,%f1,%f2,%f3,%f0,%f1,%f2,%f3};", "rounding modifier .rz is valid for the .f64 form only"},
		{"wmma.mma.sync.aligned.row.col.m16n16k16.f32.f32 {%r0,%r1,%r2,%r3,%r0,%r1,%r2,%q1}, {%r0,%r1,%r2,%r3,%r0,%r1,%r2,%r3}, {%r0,%r1,%r2,%r3,%r0,%r1,%r2,%r3}, {%f0,%f1,%f2,%f3,%f0,%f1,%f2,%f3};", "undefined name %q1"},
	} {
		msg := memCompileErr(t, memHdr+`.visible .entry k() { .reg .b32 %r<4>; .reg .f32 %f<4>; .reg .u64 %rd1;
	`+c.ins+`
}`)
		if !strings.Contains(msg, c.msg) {
			t.Errorf("%s: got %s, want %q", c.ins, msg, c.msg)
		}
	}
}

// TestTensorPlanned: the recognised tensor-core forms the emulator does not
// execute yet compile with a warning naming the variant, and fault when
// reached.
func TestTensorPlanned(t *testing.T) {
	for _, c := range []struct{ ins, msg string }{
		{"mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.kind::f8f6f4.f32.e3m2.e2m3.f32 {%f0,%f1,%f2,%f3}, {%r0,%r1,%r2,%r3}, {%r0,%r1,%r2,%r3}, {%f0,%f1,%f2,%f3}, %r1, 0;", "(mma .kind::f8f6f4 of sm_120a is planned)"},
		{"mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e2m1.e2m1.f32 {%f0,%f1,%f2,%f3}, {%r0,%r1,%r2,%r3}, {%r0,%r1}, {%f0,%f1,%f2,%f3};", "(mma .kind::f8f6f4 of sm_120a is planned)"},
		{"mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e4m3.e3m2.f32 {%f0,%f1,%f2,%f3}, {%r0,%r1,%r2,%r3}, {%r0,%r1}, {%f0,%f1,%f2,%f3};", "(mma .kind::f8f6f4 of sm_120a is planned)"},
		{"mma.sync.aligned.m16n8k64.row.col.kind::mxf4.block_scale.f32.e2m1.e2m1.f32.ue8m0 {%f0,%f1,%f2,%f3}, {%r0,%r1,%r2,%r3}, {%r0,%r1}, {%f0,%f1,%f2,%f3}, %r1, {0, 0}, %r2, {0, 0};", "(mma with block scaling"},
		// wmma is executed now: no longer planned (TestWmma* run it).
	} {
		src := memHdr + `.visible .entry k(.param .u64 pout) { .reg .b32 %r<4>; .reg .f32 %f<4>; .reg .u64 %rd1;
	` + c.ins + `
	ret;
}`
		s := ptx.NewSource("t.ptx", []byte(src))
		prog, diags := CompileSource(s)
		msg := ptx.FormatAll(s, diags)
		if prog == nil || !strings.Contains(msg, "warning[unsupported-instruction]: ") || !strings.Contains(msg, "is not supported yet "+c.msg) {
			t.Errorf("%s: compiled %v, diagnostics %s, want a warning %q", c.ins, prog != nil, msg, c.msg)
			continue
		}
		m, _, r := memLaunchObserved(t, src, nil)
		if f := m.Fault(); r != StopFault || f == nil || f.Kind != FaultIllegal {
			t.Errorf("%s: stop %v fault %v, want illegal-instruction", c.ins, r, f)
		}
	}
	for _, code := range []isa.Opcode{isa.OpWmmaLoad, isa.OpWmmaStore, isa.OpWmmaMma} {
		if isa.Info[code].Status != isa.Supported || binders[code] == nil {
			t.Errorf("%s is not supported", code)
		}
	}
	// A wmma kernel compiles without warnings.
	src := memHdr + `.visible .entry k(.param .u64 p) { .reg .b32 %r<8>; .reg .f32 %f<8>; .reg .u64 %rd1;
	ld.param.u64 %rd1, [p];
	wmma.load.a.sync.aligned.row.m16n16k16.global.f16 {%r0,%r1,%r2,%r3,%r4,%r5,%r6,%r7}, [%rd1], 16;
	wmma.load.c.sync.aligned.col.m16n16k16.f32 {%f0,%f1,%f2,%f3,%f4,%f5,%f6,%f7}, [%rd1];
	wmma.mma.sync.aligned.row.row.m16n16k16.f32.f32 {%f0,%f1,%f2,%f3,%f4,%f5,%f6,%f7}, {%r0,%r1,%r2,%r3,%r4,%r5,%r6,%r7}, {%r0,%r1,%r2,%r3,%r4,%r5,%r6,%r7}, {%f0,%f1,%f2,%f3,%f4,%f5,%f6,%f7};
	wmma.store.d.sync.aligned.row.m16n16k16.shared::cta.f32 [%rd1], {%f0,%f1,%f2,%f3,%f4,%f5,%f6,%f7}, %r1;
	ret;
}`
	s := ptx.NewSource("t.ptx", []byte(src))
	if prog, diags := CompileSource(s); prog == nil || len(diags) != 0 {
		t.Errorf("wmma kernel: %s", ptx.FormatAll(s, diags))
	}
}

// BenchmarkMmaM16n8k16 measures mma.m16n8k16.f32.f16.f16.f32 executed
// directly on a warp (the executor alone).
func BenchmarkMmaM16n8k16(b *testing.B) {
	fi := isa.LookupFragments("mma.m16n8k16.row.col.f32.f16.f16.f32")
	src, _, _ := mmaKernel(fi, "")
	m, _ := ctlKernel(b, src, [3]int{32, 1, 1}, [3]int{1, 1, 1}, 1)
	var op *Op
	for i := range m.prog.Ops {
		if m.prog.Ops[i].Code == isa.OpMma {
			op = &m.prog.Ops[i]
		}
	}
	m.Step(StepWarpInstruction) // make the CTA resident
	w := m.warps[0]
	rng := rand.New(rand.NewSource(4))
	for i := range w.rows {
		w.rows[i] = uint64(fpx.F64ToF16(math.Float64bits(rng.Float64()), fpx.RN, 0)) | uint64(fpx.F64ToF16(math.Float64bits(rng.Float64()), fpx.RN, 0))<<16
	}
	b.ResetTimer()
	for b.Loop() {
		if f := op.Exec(w, op, ^uint32(0)); f != nil {
			b.Fatal(f)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "mma/s")
}
