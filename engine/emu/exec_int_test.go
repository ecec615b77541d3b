package emu

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"math/big"
	"math/rand"
	"strings"
	"testing"

	"github.com/ptxplayground/ptxplay/engine/isa"
	"github.com/ptxplayground/ptxplay/engine/ptx"
)

const ixHdr = ".version 8.5\n.target sm_90\n.address_size 64\n"

// runIntKernel compiles src (a module whose kernel "k" takes the
// parameters .u64 in, .u64 out), runs it with a block of threads threads,
// input bytes in and outBytes of zeroed output, and returns the output.
func runIntKernel(t testing.TB, src string, threads int, in []byte, outBytes int) []byte {
	t.Helper()
	s := ptx.NewSource("t.ptx", []byte(src))
	prog, diags := CompileSource(s)
	if prog == nil {
		t.Fatalf("compile:\n%s\n%s", ptx.FormatAll(s, diags), ixNumbered(src))
	}
	m, err := NewMachine(prog, "k", Config{Grid: [3]int{1, 1, 1}, Block: [3]int{threads, 1, 1}})
	if err != nil {
		t.Fatal(err)
	}
	ia := m.Global.Alloc("in", max(len(in), 8), 256)
	copy(ia.Data, in)
	oa := m.Global.Alloc("out", max(outBytes, 8), 256)
	binary.LittleEndian.PutUint64(m.Params()[m.Kernel().Params[0].Offset:], ia.Base)
	binary.LittleEndian.PutUint64(m.Params()[m.Kernel().Params[1].Offset:], oa.Base)
	if r := m.Run(context.Background()); r != StopDone {
		t.Fatalf("stop %v, fault %v\n%s", r, m.Fault(), ixNumbered(src))
	}
	return oa.Data[:outBytes]
}

func ixNumbered(src string) string {
	var b strings.Builder
	for i, l := range strings.Split(src, "\n") {
		fmt.Fprintf(&b, "%3d  %s\n", i+1, l)
	}
	return b.String()
}

// ixCompileErr checks that src fails to compile with a message containing want.
func ixCompileErr(t *testing.T, src, want string) {
	t.Helper()
	s := ptx.NewSource("t.ptx", []byte(src))
	prog, diags := CompileSource(s)
	msgs := ptx.FormatAll(s, diags)
	if prog != nil {
		t.Fatalf("compiled, want an error containing %q\n%s", want, ixNumbered(src))
	}
	if !strings.Contains(msgs, want) {
		t.Fatalf("errors %q do not mention %q", msgs, want)
	}
}

// ixKernelErr checks that one instruction (with the registers of ixRun's
// kernel: %d, %a, %b, %c, %e of types tys) is rejected with want.
func ixKernelErr(t *testing.T, instr string, tys [5]string, want string) {
	t.Helper()
	ixCompileErr(t, ixKernel(instr, tys, false, false), want)
}

var ixRegNames = [5]string{"%d", "%a", "%b", "%c", "%e"}

const ixSentinel = 0x5a5a5a5a5a5a5a5a

func ixTyBits(ty string) int {
	if ty == "pred" {
		return 1
	}
	return isa.TypeByName[ty].Bits()
}

// ixKernel builds the kernel ixRun runs: each thread loads its sources from
// in + 40*tid (8 bytes per source; "pred" sources are u32 values != 0),
// runs instr (guarded by "tid is even" if guard) and stores %d and %q (as
// 0/1) at out + 16*tid. %d is preset to a sentinel (predicates: true),
// %q to true.
func ixKernel(instr string, tys [5]string, guard, hasQ bool) string {
	var sb strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&sb, "\t"+format+"\n", args...) }
	sb.WriteString(ixHdr + ".visible .entry k(.param .u64 in, .param .u64 out)\n{\n")
	w(".reg .u64 %%ip, %%op, %%off;")
	w(".reg .u32 %%tid, %%tmp, %%r1, %%r2;")
	w(".reg .pred %%g, %%q;")
	for i, ty := range tys {
		if ty != "" {
			w(".reg .%s %s;", ty, ixRegNames[i])
		}
	}
	w("ld.param.u64 %%ip, [in];")
	w("ld.param.u64 %%op, [out];")
	w("mov.u32 %%tid, %%tid.x;")
	w("mul.wide.u32 %%off, %%tid, 40;")
	w("add.u64 %%ip, %%ip, %%off;")
	w("mul.wide.u32 %%off, %%tid, 16;")
	w("add.u64 %%op, %%op, %%off;")
	slot := 0
	for i := 1; i < 5; i++ {
		ty := tys[i]
		if ty == "" {
			continue
		}
		if ty == "pred" {
			w("ld.global.u32 %%tmp, [%%ip+%d];", 8*slot)
			w("setp.ne.u32 %s, %%tmp, 0;", ixRegNames[i])
		} else {
			w("ld.global.b%d %s, [%%ip+%d];", ixTyBits(ty), ixRegNames[i], 8*slot)
		}
		slot++
	}
	w("and.b32 %%tmp, %%tid, 1;")
	w("setp.eq.u32 %%g, %%tmp, 0;")
	if tys[0] == "pred" {
		w("mov.pred %%d, 1;")
	} else {
		bits := ixTyBits(tys[0])
		w("mov.b%d %%d, %d;", bits, uint64(ixSentinel)&ixMask(uint(bits)))
	}
	w("mov.pred %%q, 1;")
	for _, in := range strings.Split(instr, ";") {
		if in = strings.TrimSpace(in); in == "" {
			continue
		}
		if guard {
			in = "@%g " + in
		}
		w("%s;", in)
	}
	if tys[0] == "pred" {
		w("selp.u32 %%r1, 1, 0, %%d;")
		w("st.global.u32 [%%op], %%r1;")
	} else {
		w("st.global.b%d [%%op], %%d;", ixTyBits(tys[0]))
	}
	if hasQ {
		w("selp.u32 %%r2, 1, 0, %%q;")
		w("st.global.u32 [%%op+8], %%r2;")
	}
	w("ret;")
	sb.WriteString("}\n")
	return sb.String()
}

// ixRun checks instr on each row: a row holds the source values (in the
// order of the non-empty tys[1:]), then the expected %d (masked to its
// width) and, if instr mentions %q, the expected %q (0 or 1). Every row
// runs in its own thread, in three launches: 32 threads (full warp), as
// many threads as rows (a partial warp), and 32 threads with the odd lanes
// guarded off (which must keep %d and %q unchanged).
func ixRun(t *testing.T, instr string, tys [5]string, rows ...[]uint64) {
	t.Helper()
	hasQ := strings.Contains(instr, "%q")
	nsrc := 0
	for _, ty := range tys[1:] {
		if ty != "" {
			nsrc++
		}
	}
	want := nsrc + 1
	if hasQ {
		want++
	}
	for i, r := range rows {
		if len(r) != want {
			t.Fatalf("%s: row %d has %d values, want %d", instr, i, len(r), want)
		}
	}
	dmask := ixMask(uint(ixTyBits(tys[0])))
	for start := 0; start < len(rows); start += 32 {
		chunk := rows[start:min(start+32, len(rows))]
		type launch struct {
			threads int
			guard   bool
		}
		launches := []launch{{32, false}, {32, true}}
		if len(chunk) < 32 {
			launches = append(launches, launch{len(chunk), false})
		}
		for _, ln := range launches {
			src := ixKernel(instr, tys, ln.guard, hasQ)
			in := make([]byte, 40*ln.threads)
			for th := 0; th < ln.threads; th++ {
				r := chunk[th%len(chunk)]
				for k := 0; k < nsrc; k++ {
					binary.LittleEndian.PutUint64(in[40*th+8*k:], r[k])
				}
			}
			out := runIntKernel(t, src, ln.threads, in, 16*ln.threads)
			for th := 0; th < ln.threads; th++ {
				r := chunk[th%len(chunk)]
				gotD := binary.LittleEndian.Uint64(out[16*th:]) & dmask
				gotQ := binary.LittleEndian.Uint64(out[16*th+8:])
				wantD, wantQ := r[nsrc]&dmask, uint64(0)
				if hasQ {
					wantQ = r[nsrc+1]
				}
				if ln.guard && th%2 == 1 {
					wantD, wantQ = uint64(ixSentinel)&dmask, 1
					if tys[0] == "pred" {
						wantD = 1
					}
				}
				if gotD != wantD || hasQ && gotQ != wantQ {
					what := fmt.Sprintf("d = %#x, want %#x", gotD, wantD)
					if hasQ {
						what += fmt.Sprintf("; q = %d, want %d", gotQ, wantQ)
					}
					t.Errorf("%s (%d threads, guard %v) lane %d, sources %#x: %s", instr, ln.threads, ln.guard, th, r[:nsrc], what)
				}
			}
		}
	}
}

func ixT(d string, srcs ...string) [5]string {
	var t [5]string
	t[0] = d
	copy(t[1:], srcs)
	return t
}

func ixU(v int64) uint64 { return uint64(v) }

// ---- conformance: the zluda cases of the integer, logic, comparison and
// move families ----

func TestIntAddSub(t *testing.T) {
	ixRun(t, "add.u32 %d, %a, %b;", ixT("u32", "u32", "u32"),
		[]uint64{0xffffffff, 1, 0}, []uint64{0x7fffffff, 1, 0x80000000}, []uint64{5, 7, 12})
	ixRun(t, "add.s16 %d, %a, %b;", ixT("s16", "s16", "s16"),
		[]uint64{0x7fff, 1, 0x8000}, []uint64{0xffff, 0xffff, 0xfffe})
	ixRun(t, "add.u64 %d, %a, %b;", ixT("u64", "u64", "u64"),
		[]uint64{math.MaxUint64, 1, 0}, []uint64{1 << 63, 1 << 63, 0}, []uint64{3, 4, 7})
	ixRun(t, "add.s32 %d, %a, -1;", ixT("s32", "s32"), []uint64{0, 0xffffffff}, []uint64{5, 4})
	ixRun(t, "add.sat.s32 %d, %a, %b;", ixT("s32", "s32", "s32"),
		[]uint64{0x7fffffff, 1, 0x7fffffff}, []uint64{0x80000000, 0xffffffff, 0x80000000},
		[]uint64{5, ixU(-3), 2}, []uint64{0x80000000, 0x80000000, 0x80000000}, []uint64{0x7fffffff, 0x7fffffff, 0x7fffffff})
	ixRun(t, "add.u16x2 %d, %a, %b;", ixT("b32", "b32", "b32"),
		[]uint64{0xffff0001, 0x00010001, 0x00000002}, []uint64{0x12345678, 0x11111111, 0x23456789})
	ixRun(t, "add.s16x2 %d, %a, %b;", ixT("b32", "b32", "b32"), []uint64{0x7fff8000, 0x0001ffff, 0x80007fff})
	ixRun(t, "sub.u32 %d, %a, %b;", ixT("u32", "u32", "u32"), []uint64{0, 1, 0xffffffff}, []uint64{10, 3, 7})
	ixRun(t, "sub.s64 %d, %a, %b;", ixT("s64", "s64", "s64"), []uint64{0, 1, math.MaxUint64})
	ixRun(t, "sub.u16 %d, %a, %b;", ixT("u16", "u16", "u16"), []uint64{0, 1, 0xffff})
	ixRun(t, "sub.sat.s32 %d, %a, %b;", ixT("s32", "s32", "s32"),
		[]uint64{0x80000000, 1, 0x80000000}, []uint64{0x7fffffff, 0xffffffff, 0x7fffffff}, []uint64{1, 3, ixU(-2)})
	ixKernelErr(t, "add.sat.u32 %d, %a, %b;", ixT("u32", "u32", "u32"), ".sat applies only to .s32")
	ixKernelErr(t, "add.b32 %d, %a, %b;", ixT("u32", "u32", "u32"), "type .b32 is not valid")
	ixKernelErr(t, "sub.u16x2 %d, %a, %b;", ixT("u32", "u32", "u32"), "type .u16x2 is not valid")
	ixKernelErr(t, "add.u32 %d, %a, %b;", ixT("u32", "u64", "u32"), "incompatible with .u32")
	ixKernelErr(t, "add.cc.u16 %d, %a, %b;", ixT("u16", "u16", "u16"), ".cc requires")
}

// A 128-bit addition and subtraction with carry chains across two 64-bit
// registers and four 32-bit registers.
func TestIntCarryChains(t *testing.T) {
	src := ixHdr + `.visible .entry k(.param .u64 in, .param .u64 out)
{
	.reg .u64 %ip, %op, %a<2>, %b<2>, %s<2>, %t<2>;
	.reg .u32 %x<4>, %y<4>, %r<4>, %cf;
	ld.param.u64 %ip, [in];
	ld.param.u64 %op, [out];
	ld.global.u64 %a0, [%ip];
	ld.global.u64 %a1, [%ip+8];
	ld.global.u64 %b0, [%ip+16];
	ld.global.u64 %b1, [%ip+24];
	add.cc.u64 %s0, %a0, %b0;
	addc.u64 %s1, %a1, %b1;
	sub.cc.u64 %t0, %a0, %b0;
	subc.u64 %t1, %a1, %b1;
	st.global.u64 [%op], %s0;
	st.global.u64 [%op+8], %s1;
	st.global.u64 [%op+16], %t0;
	st.global.u64 [%op+24], %t1;
	ld.global.v4.u32 {%x0, %x1, %x2, %x3}, [%ip];
	ld.global.v4.u32 {%y0, %y1, %y2, %y3}, [%ip+16];
	add.cc.u32 %r0, %x0, %y0;
	addc.cc.u32 %r1, %x1, %y1;
	addc.cc.u32 %r2, %x2, %y2;
	addc.cc.u32 %r3, %x3, %y3;
	addc.u32 %cf, 0, 0;
	st.global.v4.u32 [%op+32], {%r0, %r1, %r2, %r3};
	st.global.u32 [%op+48], %cf;
	sub.cc.u32 %r0, %x0, %y0;
	subc.cc.u32 %r1, %x1, %y1;
	subc.cc.u32 %r2, %x2, %y2;
	subc.cc.u32 %r3, %x3, %y3;
	addc.u32 %cf, 0, 0;
	st.global.v4.u32 [%op+64], {%r0, %r1, %r2, %r3};
	st.global.u32 [%op+80], %cf;
	ret;
}
`
	rng := rand.New(rand.NewSource(1))
	mod := new(big.Int).Lsh(big.NewInt(1), 128)
	cases := [][4]uint64{
		{math.MaxUint64, 0, 1, 0},              // carry out of the low word
		{0, 1, 1, 0},                           // borrow into the high word
		{math.MaxUint64, math.MaxUint64, 1, 0}, // 128-bit overflow
		{0, 0, 1, 0},                           // 128-bit underflow
		{rng.Uint64(), rng.Uint64(), rng.Uint64(), rng.Uint64()}, // random
		{rng.Uint64(), rng.Uint64(), rng.Uint64(), rng.Uint64()},
	}
	for _, c := range cases {
		in := make([]byte, 32)
		for i, v := range c {
			binary.LittleEndian.PutUint64(in[8*i:], v)
		}
		out := runIntKernel(t, src, 1, in, 96)
		a := new(big.Int).Or(new(big.Int).Lsh(new(big.Int).SetUint64(c[1]), 64), new(big.Int).SetUint64(c[0]))
		b := new(big.Int).Or(new(big.Int).Lsh(new(big.Int).SetUint64(c[3]), 64), new(big.Int).SetUint64(c[2]))
		sum := new(big.Int).Add(a, b)
		carry := uint32(0)
		if sum.Cmp(mod) >= 0 {
			carry = 1
		}
		sum.Mod(sum, mod)
		diff := new(big.Int).Sub(a, b)
		noBorrow := uint32(1)
		if diff.Sign() < 0 {
			noBorrow = 0
		}
		diff.Mod(diff, mod)
		get := func(off int) *big.Int {
			v := make([]byte, 16)
			for i := 0; i < 16; i++ {
				v[15-i] = out[off+i]
			}
			return new(big.Int).SetBytes(v)
		}
		if got := get(0); got.Cmp(sum) != 0 {
			t.Errorf("%x: 64-bit chain sum %x, want %x", c, got, sum)
		}
		if got := get(16); got.Cmp(diff) != 0 {
			t.Errorf("%x: 64-bit chain difference %x, want %x", c, got, diff)
		}
		if got := get(32); got.Cmp(sum) != 0 {
			t.Errorf("%x: 32-bit chain sum %x, want %x", c, got, sum)
		}
		if got := binary.LittleEndian.Uint32(out[48:]); got != carry {
			t.Errorf("%x: carry out %d, want %d", c, got, carry)
		}
		if got := get(64); got.Cmp(diff) != 0 {
			t.Errorf("%x: 32-bit chain difference %x, want %x", c, got, diff)
		}
		if got := binary.LittleEndian.Uint32(out[80:]); got != noBorrow {
			t.Errorf("%x: CC.CF after subtraction %d, want %d", c, got, noBorrow)
		}
	}
}

// The extended-precision multiply of the PTX ISA's madc example:
// [r3,r2,r1,r0] = [r5,r4] * [r7,r6].
func TestIntMadcMultiply(t *testing.T) {
	src := ixHdr + `.visible .entry k(.param .u64 in, .param .u64 out)
{
	.reg .u64 %ip, %op;
	.reg .u32 r<8>;
	ld.param.u64 %ip, [in];
	ld.param.u64 %op, [out];
	ld.global.v4.u32 {r4, r5, r6, r7}, [%ip];
	mul.lo.u32     r0,r4,r6;
	mul.hi.u32     r1,r4,r6;
	mad.lo.cc.u32  r1,r5,r6,r1;
	madc.hi.u32    r2,r5,r6,0;
	mad.lo.cc.u32  r1,r4,r7,r1;
	madc.hi.cc.u32 r2,r4,r7,r2;
	addc.u32       r3,0,0;
	mad.lo.cc.u32  r2,r5,r7,r2;
	madc.hi.u32    r3,r5,r7,r3;
	st.global.v4.u32 [%op], {r0, r1, r2, r3};
	ret;
}
`
	rng := rand.New(rand.NewSource(2))
	for i := 0; i < 20; i++ {
		x, y := rng.Uint64(), rng.Uint64()
		if i == 0 {
			x, y = math.MaxUint64, math.MaxUint64
		}
		in := make([]byte, 16)
		binary.LittleEndian.PutUint64(in, x)
		binary.LittleEndian.PutUint64(in[8:], y)
		out := runIntKernel(t, src, 1, in, 16)
		hi, lo := binary.LittleEndian.Uint64(out[8:]), binary.LittleEndian.Uint64(out)
		want := new(big.Int).Mul(new(big.Int).SetUint64(x), new(big.Int).SetUint64(y))
		got := new(big.Int).Or(new(big.Int).Lsh(new(big.Int).SetUint64(hi), 64), new(big.Int).SetUint64(lo))
		if got.Cmp(want) != 0 {
			t.Fatalf("%#x * %#x = %#x, want %#x", x, y, got, want)
		}
	}
}

// ixBigS interprets v as a w-bit signed integer.
func ixBigS(v uint64, w uint) *big.Int { return big.NewInt(ixSext(v, w)) }

// ixBigLow returns the low w bits of x (two's complement).
func ixBigLow(x *big.Int, w uint) uint64 {
	m := new(big.Int).Lsh(big.NewInt(1), w)
	r := new(big.Int).Mod(x, m)
	return r.Uint64()
}

func TestIntMul(t *testing.T) {
	ixRun(t, "mul.lo.u32 %d, %a, %b;", ixT("u32", "u32", "u32"), []uint64{0xffffffff, 0xffffffff, 1}, []uint64{6, 7, 42})
	ixRun(t, "mul.lo.s16 %d, %a, %b;", ixT("s16", "s16", "s16"), []uint64{0x8000, 0xffff, 0x8000}, []uint64{0xfffe, 3, 0xfffa})
	ixRun(t, "mul.lo.u64 %d, %a, 2;", ixT("u64", "u64"), []uint64{1 << 63, 0}, []uint64{3, 6})
	ixRun(t, "mul.hi.u32 %d, %a, %b;", ixT("u32", "u32", "u32"), []uint64{0xffffffff, 0xffffffff, 0xfffffffe})
	ixRun(t, "mul.hi.s32 %d, %a, %b;", ixT("s32", "s32", "s32"),
		[]uint64{0x80000000, 0x80000000, 0x40000000}, []uint64{0xffffffff, 1, 0xffffffff}, []uint64{2, 3, 0})
	ixRun(t, "mul.hi.u16 %d, %a, %b;", ixT("u16", "u16", "u16"), []uint64{0xffff, 0xffff, 0xfffe})
	ixRun(t, "mul.hi.s16 %d, %a, %b;", ixT("s16", "s16", "s16"), []uint64{0x8000, 0x8000, 0x4000}, []uint64{0xffff, 2, 0xffff})
	ixRun(t, "mul.wide.s16 %d, %a, %b;", ixT("s32", "s16", "s16"), []uint64{0x8000, 0x8000, 0x40000000}, []uint64{0xffff, 2, 0xfffffffe})
	ixRun(t, "mul.wide.u16 %d, %a, %b;", ixT("u32", "u16", "u16"), []uint64{0xffff, 0xffff, 0xfffe0001})
	ixRun(t, "mul.wide.s32 %d, %a, %b;", ixT("s64", "s32", "s32"),
		[]uint64{0x80000000, 0x80000000, 0x4000000000000000}, []uint64{0xffffffff, 5, ixU(-5)})
	ixRun(t, "mul.wide.u32 %d, %a, %b;", ixT("u64", "u32", "u32"), []uint64{0xffffffff, 0xffffffff, 0xfffffffe00000001})

	// 64-bit high halves against math/big.
	rng := rand.New(rand.NewSource(3))
	var urows, srows [][]uint64
	edge := []uint64{0, 1, 2, math.MaxUint64, 1 << 63, 1<<63 - 1, 0xffffffff, 1 << 32}
	for _, a := range edge {
		for _, b := range edge {
			urows = append(urows, []uint64{a, b, new(big.Int).Rsh(new(big.Int).Mul(new(big.Int).SetUint64(a), new(big.Int).SetUint64(b)), 64).Uint64()})
			srows = append(srows, []uint64{a, b, ixBigLow(new(big.Int).Rsh(new(big.Int).Mul(ixBigS(a, 64), ixBigS(b, 64)), 64), 64)})
		}
	}
	for i := 0; i < 32; i++ {
		a, b := rng.Uint64(), rng.Uint64()
		urows = append(urows, []uint64{a, b, new(big.Int).Rsh(new(big.Int).Mul(new(big.Int).SetUint64(a), new(big.Int).SetUint64(b)), 64).Uint64()})
		srows = append(srows, []uint64{a, b, ixBigLow(new(big.Int).Rsh(new(big.Int).Mul(ixBigS(a, 64), ixBigS(b, 64)), 64), 64)})
	}
	ixRun(t, "mul.hi.u64 %d, %a, %b;", ixT("u64", "u64", "u64"), urows...)
	ixRun(t, "mul.hi.s64 %d, %a, %b;", ixT("s64", "s64", "s64"), srows...)

	ixKernelErr(t, "mul.u32 %d, %a, %b;", ixT("u32", "u32", "u32"), "needs exactly one of .hi, .lo, .wide")
	ixKernelErr(t, "mul.wide.u64 %d, %a, %b;", ixT("u64", "u64", "u64"), ".wide applies only to 16- and 32-bit types")
	ixKernelErr(t, "mul.wide.s32 %d, %a, %b;", ixT("s32", "s32", "s32"), "incompatible with .s64")
}

func TestIntMad(t *testing.T) {
	ixRun(t, "mad.lo.s32 %d, %a, %b, %c;", ixT("s32", "s32", "s32", "s32"), []uint64{2, 3, 0xffffffff, 5}, []uint64{0x10000, 0x10000, 7, 7})
	ixRun(t, "mad.lo.u16 %d, %a, %b, %c;", ixT("u16", "u16", "u16", "u16"), []uint64{0x100, 0x100, 5, 5})
	ixRun(t, "mad.hi.u32 %d, %a, %b, %c;", ixT("u32", "u32", "u32", "u32"), []uint64{0xffffffff, 0xffffffff, 2, 0}, []uint64{0x80000000, 4, 1, 3})
	ixRun(t, "mad.hi.s32 %d, %a, %b, %c;", ixT("s32", "s32", "s32", "s32"), []uint64{0xffffffff, 1, 1, 0})
	ixRun(t, "mad.hi.sat.s32 %d, %a, %b, %c;", ixT("s32", "s32", "s32", "s32"),
		[]uint64{0x7fffffff, 0x7fffffff, 0x7fffffff, 0x7fffffff},
		[]uint64{0x80000000, 0x7fffffff, 0x80000000, 0x80000000},
		[]uint64{0x10000, 0x10000, 5, 6})
	ixRun(t, "mad.wide.s32 %d, %a, %b, %c;", ixT("s64", "s32", "s32", "s64"), []uint64{0xffffffff, 3, 5, 2}, []uint64{0x80000000, 2, 0, 0xffffffff00000000})
	ixRun(t, "mad.wide.u32 %d, %a, %b, %c;", ixT("u64", "u32", "u32", "u64"), []uint64{0xffffffff, 0xffffffff, math.MaxUint64, 0xfffffffe00000000})
	ixRun(t, "mad.wide.u16 %d, %a, %b, %c;", ixT("u32", "u16", "u16", "u32"), []uint64{0xffff, 0xffff, 1, 0xfffe0002})
	ixRun(t, "mad.wide.s16 %d, %a, %b, %c;", ixT("s32", "s16", "s16", "s32"), []uint64{0xffff, 2, 0, 0xfffffffe})
	rng := rand.New(rand.NewSource(4))
	var rows [][]uint64
	for i := 0; i < 40; i++ {
		a, b, c := rng.Uint64(), rng.Uint64(), rng.Uint64()
		hi := new(big.Int).Rsh(new(big.Int).Mul(ixBigS(a, 64), ixBigS(b, 64)), 64)
		rows = append(rows, []uint64{a, b, c, ixBigLow(hi, 64) + c})
	}
	ixRun(t, "mad.hi.s64 %d, %a, %b, %c;", ixT("s64", "s64", "s64", "s64"), rows...)
	ixKernelErr(t, "mad.lo.sat.s32 %d, %a, %b, %c;", ixT("s32", "s32", "s32", "s32"), ".sat applies only to mad.hi.s32")
	ixKernelErr(t, "mad.wide.cc.u32 %d, %a, %b, %c;", ixT("u64", "u32", "u32", "u64"), ".cc requires")
}

// mad.cc and madc through ixRun: the carry-in of a fresh warp is 0.
func TestIntMadCarry(t *testing.T) {
	ixRun(t, "mad.lo.cc.u32 %d, %a, %b, %c; addc.u32 %d, %d, 0;", ixT("u32", "u32", "u32", "u32"),
		[]uint64{0xffffffff, 2, 1, 0xffffffff}, []uint64{0xffffffff, 2, 2, 1})
	ixRun(t, "mad.hi.cc.u64 %d, %a, %b, %c; addc.u64 %d, 0, 0;", ixT("u64", "u64", "u64", "u64"),
		[]uint64{math.MaxUint64, math.MaxUint64, 1, 0}, []uint64{math.MaxUint64, math.MaxUint64, 2, 1})
	ixRun(t, "mad.lo.cc.u32 %d, 1, 1, 0xffffffff; madc.lo.cc.u32 %d, %a, %b, %c; addc.u32 %d, 0, 0;", ixT("u32", "u32", "u32", "u32"),
		[]uint64{1, 1, 0xfffffffe, 1}, []uint64{1, 1, 0xfffffffd, 0})
}

func TestIntMul24Mad24(t *testing.T) {
	ixRun(t, "mul24.lo.u32 %d, %a, %b;", ixT("u32", "u32", "u32"), []uint64{0x755555, 0x755555, 0x1c238e39}, []uint64{0xff000002, 3, 6})
	ixRun(t, "mul24.hi.u32 %d, %a, %b;", ixT("u32", "u32", "u32"), []uint64{0x755555, 0x755555, 0x35c71c23}, []uint64{0xffffff, 0xffffff, 0xfffffe00})
	ixRun(t, "mul24.lo.s32 %d, %a, %b;", ixT("s32", "s32", "s32"), []uint64{0x00800000, 2, 0xff000000}, []uint64{0xff8aaaab, 0x755555, 0xe3dc71c7})
	ixRun(t, "mul24.hi.s32 %d, %a, %b;", ixT("s32", "s32", "s32"), []uint64{0x00800000, 2, 0xffffff00}, []uint64{0xff8aaaab, 0x755555, 0xca38e3dc})
	ixRun(t, "mad24.lo.u32 %d, %a, %b, %c;", ixT("u32", "u32", "u32", "u32"), []uint64{2, 3, 4, 10}, []uint64{0x1000000, 5, 7, 7})
	ixRun(t, "mad24.hi.u32 %d, %a, %b, %c;", ixT("u32", "u32", "u32", "u32"), []uint64{0xffffff, 0xffffff, 0x200, 0})
	ixRun(t, "mad24.hi.sat.s32 %d, %a, %b, %c;", ixT("s32", "s32", "s32", "s32"),
		[]uint64{0x7fffff, 0x7fffff, 0x7fffffff, 0x7fffffff}, []uint64{0x800000, 0x7fffff, 0x80000000, 0x80000000}, []uint64{0x100, 0x100, 1, 2})
	ixKernelErr(t, "mul24.wide.u32 %d, %a, %b;", ixT("u32", "u32", "u32"), "needs exactly one of .hi, .lo")
	ixKernelErr(t, "mul24.lo.u64 %d, %a, %b;", ixT("u64", "u64", "u64"), "type .u64 is not valid")
}

func TestIntSadAbsNegMinMax(t *testing.T) {
	ixRun(t, "sad.u32 %d, %a, %b, %c;", ixT("u32", "u32", "u32", "u32"), []uint64{1, 3, 10, 12}, []uint64{3, 1, 10, 12}, []uint64{0, 0xffffffff, 1, 0})
	ixRun(t, "sad.s32 %d, %a, %b, %c;", ixT("s32", "s32", "s32", "s32"), []uint64{0xffffffff, 1, 0, 2}, []uint64{0x80000000, 0x7fffffff, 1, 0})
	ixRun(t, "sad.s16 %d, %a, %b, %c;", ixT("s16", "s16", "s16", "s16"), []uint64{0x8000, 0x7fff, 0, 0xffff})
	ixRun(t, "sad.u64 %d, %a, %b, %c;", ixT("u64", "u64", "u64", "u64"), []uint64{0, math.MaxUint64, 1, 0})
	ixRun(t, "abs.s32 %d, %a;", ixT("s32", "s32"), []uint64{0x80000000, 0x80000000}, []uint64{ixU(-5) & 0xffffffff, 5}, []uint64{7, 7})
	ixRun(t, "abs.s16 %d, %a;", ixT("s16", "s16"), []uint64{0x8000, 0x8000}, []uint64{0xfffb, 5})
	ixRun(t, "abs.s64 %d, %a;", ixT("s64", "s64"), []uint64{1 << 63, 1 << 63}, []uint64{ixU(-9), 9})
	ixRun(t, "neg.s32 %d, %a;", ixT("s32", "s32"), []uint64{0x80000000, 0x80000000}, []uint64{5, 0xfffffffb}, []uint64{0, 0})
	ixRun(t, "neg.s16 %d, %a;", ixT("s16", "s16"), []uint64{1, 0xffff})
	ixRun(t, "neg.s64 %d, %a;", ixT("s64", "s64"), []uint64{1, math.MaxUint64})
	ixRun(t, "min.s32 %d, %a, %b;", ixT("s32", "s32", "s32"), []uint64{0xffffffff, 1, 0xffffffff}, []uint64{0x80000000, 0x7fffffff, 0x80000000})
	ixRun(t, "min.u32 %d, %a, %b;", ixT("u32", "u32", "u32"), []uint64{0xffffffff, 1, 1})
	ixRun(t, "max.u16 %d, %a, %b;", ixT("u16", "u16", "u16"), []uint64{0xffff, 1, 0xffff})
	ixRun(t, "max.s16 %d, %a, %b;", ixT("s16", "s16", "s16"), []uint64{0xffff, 1, 1})
	ixRun(t, "max.s64 %d, %a, %b;", ixT("s64", "s64", "s64"), []uint64{math.MaxUint64, 0, 0})
	ixRun(t, "min.u64 %d, %a, %b;", ixT("u64", "u64", "u64"), []uint64{math.MaxUint64, 0, 0})
	ixRun(t, "min.relu.s32 %d, %a, %b;", ixT("s32", "s32", "s32"), []uint64{ixU(-5), ixU(-3), 0}, []uint64{5, 3, 3})
	ixRun(t, "max.relu.s32 %d, %a, %b;", ixT("s32", "s32", "s32"), []uint64{ixU(-5), ixU(-3), 0}, []uint64{5, 3, 5})
	ixRun(t, "min.u16x2 %d, %a, %b;", ixT("b32", "b32", "b32"), []uint64{0x0001ffff, 0xffff0001, 0x00010001})
	ixRun(t, "min.s16x2 %d, %a, %b;", ixT("b32", "b32", "b32"), []uint64{0x0001ffff, 0xffff0001, 0xffffffff})
	ixRun(t, "max.s16x2 %d, %a, %b;", ixT("b32", "b32", "b32"), []uint64{0x0001ffff, 0xffff0001, 0x00010001})
	ixRun(t, "max.relu.s16x2 %d, %a, %b;", ixT("b32", "b32", "b32"), []uint64{0xfff0fffe, 0x8000ffff, 0}, []uint64{0x0005fff0, 0x0003ffff, 0x00050000})
	ixRun(t, "min.relu.s16x2 %d, %a, %b;", ixT("b32", "b32", "b32"), []uint64{0x0005fff0, 0x0003ffff, 0x00030000})
	ixKernelErr(t, "min.relu.u32 %d, %a, %b;", ixT("u32", "u32", "u32"), ".relu applies only to .s32 and .s16x2")
	ixKernelErr(t, "abs.u32 %d, %a;", ixT("u32", "u32"), "type .u32 is not valid")
}

func TestIntDivRem(t *testing.T) {
	ixRun(t, "div.u32 %d, %a, %b;", ixT("u32", "u32", "u32"), []uint64{7, 2, 3}, []uint64{7, 0, 0xffffffff}, []uint64{0, 0, 0xffffffff})
	ixRun(t, "div.s32 %d, %a, %b;", ixT("s32", "s32", "s32"),
		[]uint64{ixU(-7), 2, ixU(-3)}, []uint64{0x80000000, 0xffffffff, 0x80000000},
		[]uint64{5, 0, 0xffffffff}, []uint64{ixU(-5), 0, 0xffffffff}, []uint64{7, ixU(-2), ixU(-3)})
	ixRun(t, "div.u64 %d, %a, %b;", ixT("u64", "u64", "u64"), []uint64{12345, 0, math.MaxUint64}, []uint64{math.MaxUint64, 2, 1<<63 - 1})
	ixRun(t, "div.s64 %d, %a, %b;", ixT("s64", "s64", "s64"), []uint64{1 << 63, math.MaxUint64, 1 << 63}, []uint64{ixU(-9), 0, math.MaxUint64}, []uint64{ixU(-9), 2, ixU(-4)})
	ixRun(t, "div.s16 %d, %a, %b;", ixT("s16", "s16", "s16"), []uint64{0x8000, 0xffff, 0x8000}, []uint64{0xfff9, 2, 0xfffd}, []uint64{1, 0, 0xffff})
	ixRun(t, "div.u16 %d, %a, %b;", ixT("u16", "u16", "u16"), []uint64{1, 0, 0xffff}, []uint64{0xffff, 0x100, 0xff})
	ixRun(t, "rem.s32 %d, %a, %b;", ixT("s32", "s32", "s32"),
		[]uint64{ixU(-7), 2, 0xffffffff}, []uint64{7, ixU(-2), 1}, []uint64{0x80000000, 0xffffffff, 0},
		[]uint64{5, 0, 0xffffffff}, []uint64{0x54bc, 0xd, 8})
	ixRun(t, "rem.u32 %d, %a, %b;", ixT("u32", "u32", "u32"), []uint64{7, 0, 0xffffffff}, []uint64{0xffffffff, 10, 5})
	ixRun(t, "rem.s64 %d, %a, %b;", ixT("s64", "s64", "s64"), []uint64{1 << 63, math.MaxUint64, 0}, []uint64{ixU(-10), 3, ixU(-1)}, []uint64{3, 0, math.MaxUint64})
	ixRun(t, "rem.u64 %d, %a, %b;", ixT("u64", "u64", "u64"), []uint64{10, 3, 1}, []uint64{10, 0, math.MaxUint64})
	ixRun(t, "rem.u16 %d, %a, %b;", ixT("u16", "u16", "u16"), []uint64{10, 0, 0xffff})
}

func TestIntBitOps(t *testing.T) {
	ixRun(t, "popc.b32 %d, %a;", ixT("u32", "b32"), []uint64{0, 0}, []uint64{0xffffffff, 32}, []uint64{0xbc92498a, 14})
	ixRun(t, "popc.b64 %d, %a;", ixT("u32", "b64"), []uint64{math.MaxUint64, 64}, []uint64{0x99427d688bcb5258, 30})
	ixRun(t, "clz.b32 %d, %a;", ixT("u32", "b32"), []uint64{0, 32}, []uint64{1, 31}, []uint64{0x80000000, 0})
	ixRun(t, "clz.b64 %d, %a;", ixT("u32", "b64"), []uint64{0, 64}, []uint64{1, 63}, []uint64{1 << 63, 0})
	ixRun(t, "bfind.u32 %d, %a;", ixT("u32", "u32"), []uint64{0, 0xffffffff}, []uint64{1, 0}, []uint64{0x80000000, 31})
	ixRun(t, "bfind.s32 %d, %a;", ixT("u32", "s32"),
		[]uint64{0xffffffff, 0xffffffff}, []uint64{0x80000000, 30}, []uint64{0x7fffffff, 30}, []uint64{0xfffffffe, 0}, []uint64{0, 0xffffffff})
	ixRun(t, "bfind.shiftamt.u32 %d, %a;", ixT("u32", "u32"), []uint64{1, 31}, []uint64{0, 0xffffffff}, []uint64{0x2cd1a4c1, 2})
	ixRun(t, "bfind.u64 %d, %a;", ixT("u32", "u64"), []uint64{1 << 40, 40}, []uint64{0, 0xffffffff})
	ixRun(t, "bfind.shiftamt.s64 %d, %a;", ixT("u32", "s64"), []uint64{1, 63}, []uint64{math.MaxUint64, 0xffffffff}, []uint64{ixU(-2), 63})
	ixRun(t, "brev.b32 %d, %a;", ixT("b32", "b32"), []uint64{1, 0x80000000}, []uint64{0xc75caefb, 0xdf753ae3})
	ixRun(t, "brev.b64 %d, %a;", ixT("b64", "b64"), []uint64{1, 1 << 63})
	ixRun(t, "fns.b32 %d, %a, %b, %c;", ixT("b32", "b32", "u32", "s32"),
		[]uint64{0xaaaaaaaa, 3, 1, 3}, []uint64{0xaaaaaaaa, 3, ixU(-1), 3}, []uint64{0xaaaaaaaa, 2, 1, 3},
		[]uint64{0xaaaaaaaa, 2, ixU(-1), 1}, []uint64{0xaaaaaaaa, 2, 0, 0xffffffff}, []uint64{0xaaaaaaaa, 3, 0, 3},
		[]uint64{1, 0, 2, 0xffffffff}, []uint64{0xffffffff, 0, 32, 31}, []uint64{0xffffffff, 0, 33, 0xffffffff},
		[]uint64{0x80000001, 31, ixU(-2), 0}, []uint64{0x80000001, 31, ixU(-3), 0xffffffff})
	ixKernelErr(t, "popc.u32 %d, %a;", ixT("u32", "u32"), "type .u32 is not valid")
}

func TestIntBitfield(t *testing.T) {
	ixRun(t, "bfe.u32 %d, %a, %b, %c;", ixT("u32", "u32", "u32", "u32"),
		[]uint64{0xf8c122a0, 16, 8, 0xc1},
		[]uint64{0xf8c122a0, 28, 8, 0xf},         // field runs past bit 31
		[]uint64{0xf8c122a0, 32, 8, 0},           // position past bit 31
		[]uint64{0xf8c122a0, 0, 0, 0},            // empty field
		[]uint64{0xf8c122a0, 0, 32, 0xf8c122a0},  // whole word
		[]uint64{0xf8c122a0, 0, 255, 0xf8c122a0}, // length past the width
		[]uint64{0xf8c122a0, 0x108, 0x104, 2})    // only the low 8 bits of b and c count
	ixRun(t, "bfe.s32 %d, %a, %b, %c;", ixT("s32", "s32", "u32", "u32"),
		[]uint64{0xf8c122a0, 16, 8, 0xffffffc1},
		[]uint64{0xf0, 4, 4, 0xffffffff},
		[]uint64{0x80000000, 28, 8, 0xfffffff8},
		[]uint64{0x7, 0, 0, 0},
		[]uint64{0x80000000, 32, 4, 0xffffffff},
		[]uint64{0x7fffffff, 200, 4, 0})
	ixRun(t, "bfe.u64 %d, %a, %b, %c;", ixT("u64", "u64", "u32", "u32"), []uint64{math.MaxUint64, 60, 8, 0xf}, []uint64{0x123456789abcdef0, 32, 16, 0x5678})
	ixRun(t, "bfe.s64 %d, %a, %b, %c;", ixT("s64", "s64", "u32", "u32"), []uint64{1 << 63, 60, 8, 0xfffffffffffffff8}, []uint64{0x80, 4, 4, 0xfffffffffffffff8})
	ixRun(t, "bfi.b32 %d, %a, %b, %c, %e;", ixT("b32", "b32", "b32", "u32", "u32"),
		[]uint64{2, 5, 0, 2, 6},
		[]uint64{0xffffffff, 0, 28, 8, 0xf0000000},
		[]uint64{0xffffffff, 0x12345678, 32, 4, 0x12345678},
		[]uint64{0xf, 0, 0, 0, 0},
		[]uint64{0xffffffff, 0, 0, 32, 0xffffffff},
		[]uint64{0xab, 0x12345678, 0x108, 8, 0x1234ab78})
	ixRun(t, "bfi.b64 %d, %a, %b, %c, %e;", ixT("b64", "b64", "b64", "u32", "u32"), []uint64{0xff, 0, 60, 8, 0xf000000000000000}, []uint64{0, math.MaxUint64, 0, 64, 0})
	ixRun(t, "bmsk.clamp.b32 %d, %a, %b;", ixT("b32", "u32", "u32"),
		[]uint64{24, 12, 0xff000000}, []uint64{0, 32, 0xffffffff}, []uint64{32, 1, 0}, []uint64{4, 0, 0}, []uint64{1, 2, 6}, []uint64{0, 31, 0x7fffffff})
	ixRun(t, "bmsk.wrap.b32 %d, %a, %b;", ixT("b32", "u32", "u32"),
		[]uint64{1, 2, 6}, []uint64{0, 32, 0}, []uint64{33, 1, 2}, []uint64{24, 12, 0xff000000})
	ixRun(t, "szext.clamp.s32 %d, %a, %b;", ixT("s32", "s32", "u32"),
		[]uint64{0xff, 8, 0xffffffff}, []uint64{0x7f, 8, 0x7f}, []uint64{0x80, 32, 0x80}, []uint64{0x12345678, 0, 0}, []uint64{0x80000080, 100, 0x80000080})
	ixRun(t, "szext.wrap.s32 %d, %a, %b;", ixT("s32", "s32", "u32"), []uint64{0x80, 40, 0xffffff80}, []uint64{0x80, 32, 0})
	ixRun(t, "szext.wrap.u32 %d, %a, %b;", ixT("u32", "u32", "u32"), []uint64{0xffffffff, 0, 0}, []uint64{0xfff, 4, 0xf})
	ixRun(t, "szext.clamp.u32 %d, %a, %b;", ixT("u32", "u32", "u32"), []uint64{0xffffffff, 33, 0xffffffff})
	ixKernelErr(t, "bmsk.b32 %d, %a, %b;", ixT("b32", "u32", "u32"), "needs .clamp or .wrap")
}

func TestIntDot(t *testing.T) {
	ixRun(t, "dp4a.u32.u32 %d, %a, %b, %c;", ixT("u32", "u32", "u32", "u32"), []uint64{0x01020304, 0x01010101, 10, 20}, []uint64{0xffffffff, 0xffffffff, 0, 4 * 255 * 255})
	ixRun(t, "dp4a.s32.s32 %d, %a, %b, %c;", ixT("s32", "s32", "s32", "s32"),
		[]uint64{0xffffffff, 0x01010101, 0, 0xfffffffc}, []uint64{0x8e2da590, 0xedeaee14, 0x248a9f70, 0x248aa1ae})
	ixRun(t, "dp4a.u32.s32 %d, %a, %b, %c;", ixT("s32", "u32", "s32", "s32"), []uint64{0xffffffff, 0xffffffff, 0, 0xfffffc04})
	ixRun(t, "dp4a.s32.u32 %d, %a, %b, %c;", ixT("s32", "s32", "u32", "s32"), []uint64{0xffffffff, 0xffffffff, 4, 0xfffffc08})
	ixRun(t, "dp2a.lo.u32.u32 %d, %a, %b, %c;", ixT("u32", "u32", "u32", "u32"), []uint64{0x00020003, 0x0a0b0c0d, 1, 64})
	ixRun(t, "dp2a.hi.u32.u32 %d, %a, %b, %c;", ixT("u32", "u32", "u32", "u32"), []uint64{0x00020003, 0x0a0b0c0d, 1, 54})
	ixRun(t, "dp2a.lo.s32.s32 %d, %a, %b, %c;", ixT("s32", "s32", "s32", "s32"), []uint64{0xffff0001, 0x000080ff, 0, 127})
	ixRun(t, "dp2a.hi.s32.s32 %d, %a, %b, %c;", ixT("s32", "s32", "s32", "s32"), []uint64{0x8e2da590, 0xedeaee14, 0x248a9f70, 0x249ad7b9})
	ixKernelErr(t, "dp2a.u32.u32 %d, %a, %b, %c;", ixT("u32", "u32", "u32", "u32"), "needs exactly one of .hi, .lo")
}

func TestIntVshr(t *testing.T) {
	ixRun(t, "vshr.u32.u32.u32.clamp.add %d, %a, %b, %c;", ixT("u32", "u32", "u32", "u32"),
		[]uint64{0x8e2da590, 16, 0x248a9f70, 0x248b2d9d}, []uint64{0x8e2da590, 32, 0x248a9f70, 0x248a9f70})
	ixRun(t, "vshr.s32.s32.u32.clamp %d, %a, %b;", ixT("s32", "s32", "u32"), []uint64{0x80000000, 40, 0xffffffff}, []uint64{0x80000000, 4, 0xf8000000})
	ixRun(t, "vshr.s32.s32.u32.wrap %d, %a, %b;", ixT("s32", "s32", "u32"), []uint64{0x80000000, 33, 0xc0000000})
	ixRun(t, "vshr.u32.s32.u32.sat.clamp %d, %a, %b;", ixT("u32", "s32", "u32"), []uint64{0x80000000, 4, 0}, []uint64{0x7fffffff, 4, 0x07ffffff})
	ixRun(t, "vshr.u32.u32.u32.wrap.max %d, %a, %b, %c;", ixT("u32", "u32", "u32", "u32"), []uint64{0x100, 4, 0x20, 0x20})
	ixRun(t, "vshr.u32.u32.u32.wrap.min %d, %a, %b, %c;", ixT("u32", "u32", "u32", "u32"), []uint64{0x100, 4, 0x20, 0x10})
	ixKernelErr(t, "vshr.u32.u32.u32 %d, %a, %b;", ixT("u32", "u32", "u32"), "needs .clamp or .wrap")
}
