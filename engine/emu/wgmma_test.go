package emu

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand"
	"slices"
	"strings"
	"testing"

	"github.com/ptxplayground/ptxplay/engine/fpx"
	"github.com/ptxplayground/ptxplay/engine/isa"
	"github.com/ptxplayground/ptxplay/engine/ptx"
)

// wgCase is one wgmma.mma_async test: the form, where A comes from, the
// majors and swizzles of the shared operands, the scales and scale-d.
type wgCase struct {
	n          int
	d, ab      string // accumulator and A types
	bt         string // B's type ("": A's)
	sat        bool   // .satfinite (integer forms)
	regA       bool
	transA     bool
	transB     bool
	swA, swB   isa.WgmmaSwizzle
	negA, negB bool
	scaleD     bool
	// chain: two mma_async on the accumulator in group 0, a third in
	// group 1; wait_group 1 lands the first two, wait_group 0 the third.
	chain bool
	// sp: wgmma.mma_async.sp with sparsity selector sel: A (registers or
	// shared memory) is the compressed 64 x k() matrix of a logical
	// 64 x 2k() A, B has 2k() rows.
	sp  bool
	sel int
}

func (c wgCase) k() int {
	switch c.ab {
	case "tf32":
		return 8
	case "f16", "bf16":
		return 16
	case "b1":
		return 256
	}
	return 32
}

// kb is the K of the product (B's rows): k(), twice it for a sparse form.
func (c wgCase) kb() int {
	if c.sp {
		return 2 * c.k()
	}
	return c.k()
}

func (c wgCase) b() string {
	if c.bt == "" {
		return c.ab
	}
	return c.bt
}

// wgVal is the value of element bits x of type t.
func wgVal(t string, x uint64) float64 {
	switch t {
	case "s8", "u8", "b1":
		return float64(toInt(t, x))
	case "s32":
		return float64(int32(x))
	}
	return toFloat(t, x)
}

func (c wgCase) String() string {
	sp := ""
	if c.sp {
		sp = fmt.Sprintf("sp(sel %d).", c.sel)
	}
	return fmt.Sprintf("%sm64n%dk%d.%s.%s.%s sat=%v regA=%v transA=%v transB=%v swA=%s swB=%s neg=%v/%v scaleD=%v", sp, c.n, c.kb(), c.d, c.ab, c.b(), c.sat, c.regA, c.transA, c.transB, c.swA, c.swB, c.negA, c.negB, c.scaleD)
}

// wgPlace is the canonical byte offset of element (r, k) of an operand
// (rows x K, size bytes per element) from its start address, written from
// the ISA's canonical layouts (independently of engine/isa): core matrices
// of 8 rows x 16 bytes; a swizzled mode makes rows of W bytes.
func wgPlace(mn bool, sw isa.WgmmaSwizzle, r, k, size int, lbo, sbo int) int {
	W := map[isa.WgmmaSwizzle]int{isa.WgmmaSwizzleNone: 16, isa.WgmmaSwizzle32B: 32, isa.WgmmaSwizzle64B: 64, isa.WgmmaSwizzle128B: 128}[sw]
	if !mn {
		kb := k * size
		if sw == isa.WgmmaSwizzleNone {
			return (r%8)*16 + (r/8)*sbo + (kb/16)*lbo + kb%16
		}
		return (r%8)*W + (r/8)*sbo + (kb/W)*lbo + kb%W // K past a swizzle row: LBO on (sparse B)
	}
	per := 16 / size // elements of a row in 16 bytes
	c, in := r/per, (r%per)*size
	if sw == isa.WgmmaSwizzleNone {
		return c*sbo + (k%8)*16 + (k/8)*lbo + in
	}
	w := W / 16
	return (c%w)*16 + (c/w)*lbo + (k%8)*W + (k/8)*sbo + in
}

// wgSwz applies the shared-memory swizzle of mode sw to absolute address a.
func wgSwz(sw isa.WgmmaSwizzle, a int) int {
	mask := map[isa.WgmmaSwizzle]int{isa.WgmmaSwizzleNone: 0, isa.WgmmaSwizzle32B: 1, isa.WgmmaSwizzle64B: 3, isa.WgmmaSwizzle128B: 7}[sw]
	return a ^ ((a>>7)&mask)<<4
}

// wgOffsets picks LBO and SBO for an operand of rows x K (kb bytes: one
// wgmma's 32, B of a sparse one 64) in mode sw.
func wgOffsets(mn bool, sw isa.WgmmaSwizzle, rows, size, kb int) (lbo, sbo, bytes int) {
	W := map[isa.WgmmaSwizzle]int{isa.WgmmaSwizzleNone: 16, isa.WgmmaSwizzle32B: 32, isa.WgmmaSwizzle64B: 64, isa.WgmmaSwizzle128B: 128}[sw]
	if !mn {
		if sw == isa.WgmmaSwizzleNone {
			// 8-row groups of (kb/16) core matrices, LBO apart.
			return 128, 128 * kb / 16, rows / 8 * 128 * kb / 16
		}
		if kb > W {
			// K past one swizzle row: the second K group of rows
			// LBO on, after all the 8-row groups of the first.
			g := rows / 8 * 8 * W
			return g, 8 * W, 2 * g
		}
		return 0, 8 * W, rows / 8 * 8 * W
	}
	k := kb / size
	blocks := rows * size / 16 // 16-byte pieces along MN
	if sw == isa.WgmmaSwizzleNone {
		// a core matrix: 8 K rows x 16 bytes; K halves LBO apart, MN pieces SBO apart.
		return 128, 128 * (k / 8), blocks * 128 * (k / 8)
	}
	w := W / 16
	nb := (blocks + w - 1) / w // W-wide MN blocks
	// 8 K rows of W bytes per block; K groups of 8 SBO apart, MN blocks LBO apart.
	sbo = 8 * W
	lbo = sbo * (k / 8)
	return lbo, sbo, nb * lbo
}

// wgRun builds, runs and checks one case in one scheduling model.
func wgRun(t *testing.T, c wgCase, sched Scheduling, rng *rand.Rand) {
	t.Helper()
	N, K, KB := c.n, c.k(), c.kb() // K: A's columns; KB: B's rows
	eb := isa.FragTypeBits(c.ab)
	size := max(eb/8, 1)      // bytes per element (b1: the byte of 8)
	A := make([]uint64, 64*K) // element bits, row-major
	B := make([]uint64, KB*N) // B[k][n]
	for i := range A {
		A[i] = randomElem(rng, c.ab, false)
	}
	for i := range B {
		B[i] = randomElem(rng, c.b(), false)
	}
	// Alog: the logical A (64 x KB) the product uses: A, or for a sparse
	// form A decompressed by random metadata (below).
	Alog := make([]float64, 64*KB)
	meta := make([]uint32, 128) // per thread: its sp-meta register
	if !c.sp {
		for i, x := range A {
			Alog[i] = wgVal(c.ab, x)
		}
	} else {
		// Random 2:4 patterns (tf32: 1:2). Sparse storage (PTX ISA
		// 9.7.15.6.1): a chunk of 4 (tf32 2) logical elements keeps 2
		// (1), stored in order; a 4-bit nibble per chunk holds their
		// 2-bit indices, the first in the low bits (tf32: 0b0100 for
		// index 0, 0b1110 for 1). Warp w's metadata covers rows
		// 16w..16w+15 as mma.sp's (the ISA's sparse wgmma metadata
		// figures are mma.sp.m16n8k32 .f16, m16n8k16 .tf32 and m16n8k64
		// .u8/.s8): chunk j of row r is bits 4(j%4) + 16(r/8) of lane
		// 4(r%8) + sel*threads + j/4, threads = chunks per row / 4.
		// Every other lane holds garbage the selector must skip.
		for i := range meta {
			meta[i] = rng.Uint32()
		}
		chunk := 4
		if c.ab == "tf32" {
			chunk = 2
		}
		kept := chunk / 2
		nch := KB / chunk
		threads := nch / 4
		for r := 0; r < 64; r++ {
			for j := 0; j < nch; j++ {
				var idx []int
				var nib uint32
				if chunk == 2 {
					i := rng.Intn(2)
					idx, nib = []int{i}, []uint32{0b0100, 0b1110}[i]
				} else {
					p := rng.Perm(4)[:2]
					slices.Sort(p)
					idx, nib = p, uint32(p[0]|p[1]<<2)
				}
				for s, i := range idx {
					Alog[r*KB+j*chunk+i] = wgVal(c.ab, A[r*K+j*kept+s])
				}
				th := 32*(r/16) + 4*(r%8) + c.sel*threads + j/4
				bit := 4*(j%4) + 16*(r%16/8)
				meta[th] = meta[th]&^(15<<bit) | nib<<bit
			}
		}
	}
	// Shared image: A at 0, B after it (1024-aligned).
	lboA, sboA, bytesA := wgOffsets(c.transA, c.swA, 64, size, 32)
	lboB, sboB, bytesB := wgOffsets(c.transB, c.swB, N, size, 32*KB/K)
	startA, startB := 0, (bytesA+1023)&^1023
	if c.regA {
		startB, bytesA = 0, 0
	}
	S := (startB + bytesB + 511) &^ 511
	sh := make([]byte, S)
	put := func(a int, x uint64, k int) {
		switch {
		case eb == 1:
			sh[a] |= byte(x&1) << (k % 8)
		case size == 1:
			sh[a] = byte(x)
		case size == 2:
			binary.LittleEndian.PutUint16(sh[a:], uint16(x))
		default:
			binary.LittleEndian.PutUint32(sh[a:], uint32(x))
		}
	}
	if !c.regA {
		for r := 0; r < 64; r++ {
			for k := 0; k < K; k++ {
				put(wgSwz(c.swA, startA+wgPlace(c.transA, c.swA, r, k*eb/(8*size), size, lboA, sboA)), A[r*K+k], k)
			}
		}
	}
	for n := 0; n < N; n++ {
		for k := 0; k < KB; k++ {
			put(wgSwz(c.swB, startB+wgPlace(c.transB, c.swB, n, k*eb/(8*size), size, lboB, sboB)), B[k*N+n], k)
		}
	}
	enc := func(start, lbo, sbo int, sw isa.WgmmaSwizzle) uint64 {
		v, err := isa.WgmmaDescriptor{Start: uint32(start), LBO: uint32(lbo), SBO: uint32(sbo), Swizzle: sw}.Encode()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	descA, descB := enc(startA, lboA, sboA, c.swA), enc(startB, lboB, sboB, c.swB)
	// Per thread: the accumulator (N/2 f32 values; f16 packs two per
	// register) and A's registers. Thread t = 32w + lane, g = lane/4, q =
	// lane%4: D value i is at row 16w + g + 8*((i/2)%2), column 8*(i/4) +
	// 2q + i%2 (CUTLASS CLayout_64xN).
	dRegs := N / 2
	per := 1
	if c.d == "f16" {
		dRegs, per = N/4, 2
	}
	dPos := func(t, i int) (int, int) {
		w, l := t/32, t%32
		g, q := l/4, l%4
		return 16*w + g + 8*((i/2)%2), 8*(i/4) + 2*q + i%2
	}
	// A registers: the m16n8k16 A fragment (f16/bf16: value i at row g +
	// 8*((i/2)%2), column 2q + i%2 + 8*(i/4)); tf32 m16n8k8 (row g +
	// 8*(i%2), column q + 4*(i/2)); rows offset by 16w.
	// 8-bit m16n8k32: value i at row g + 8*((i/4)%2), column 4q + i%4 +
	// 16*(i/8); b1 m16n8k256: bit j of register i at row g + 8*(i%2),
	// column 32q + j + 128*(i/2).
	aVals := 64 * K / 128
	aPer := 32 / eb
	aPos := func(t, i int) (int, int) {
		w, l := t/32, t%32
		g, q := l/4, l%4
		switch c.ab {
		case "tf32":
			return 16*w + g + 8*(i%2), q + 4*(i/2)
		case "b1":
			r, j := i/32, i%32
			return 16*w + g + 8*(r%2), 32*q + j + 128*(r/2)
		case "f16", "bf16":
			return 16*w + g + 8*((i/2)%2), 2*q + i%2 + 8*(i/4)
		}
		return 16*w + g + 8*((i/4)%2), 4*q + i%4 + 16*(i/8)
	}
	C := make([]float64, 64*N)
	cbits := make([][]uint64, 128) // per thread, per register
	for th := 0; th < 128; th++ {
		cbits[th] = make([]uint64, dRegs)
		for i := 0; i < N/2; i++ {
			x := randomElem(rng, c.d, false)
			if c.d == "s32" {
				// Near the ends of the range: sums overflow.
				v := int64(math.MaxInt32) - int64(rng.Intn(1<<22))
				if rng.Intn(2) == 0 {
					v = -v
				}
				x = uint64(uint32(v))
			}
			r, col := dPos(th, i)
			C[r*N+col] = wgVal(c.d, x)
			cbits[th][i/per] |= x << (16 * (i % per))
		}
	}
	aregs := make([][]uint64, 128)
	for th := 0; th < 128 && c.regA; th++ {
		aregs[th] = make([]uint64, aVals/aPer)
		for i := 0; i < aVals; i++ {
			r, col := aPos(th, i)
			aregs[th][i/aPer] |= (A[r*K+col] & (1<<eb - 1)) << (eb * (i % aPer))
		}
	}
	// Expected: D = C (0 without scale-d) + sum over k in ascending order of
	// the exact products, in f64, rounded once.
	sa, sb := 1.0, 1.0
	if c.negA {
		sa = -1
	}
	if c.negB {
		sb = -1
	}
	rnd := func(v float64) float64 {
		switch c.d {
		case "f32":
			return float64(float32(v))
		case "s32":
			if c.sat {
				return float64(min(max(int64(v), math.MinInt32), math.MaxInt32))
			}
			return float64(int32(int64(v)))
		}
		return toFloat("f16", uint64(fpx.F64ToF16(math.Float64bits(v), fpx.RN, 0)))
	}
	step := func(prev []float64, scaleD bool) []float64 {
		next := make([]float64, 64*N)
		for i := 0; i < 64; i++ {
			for j := 0; j < N; j++ {
				v := 0.0
				if scaleD {
					v = prev[i*N+j]
				}
				for k := 0; k < KB; k++ {
					v += sa * Alog[i*KB+k] * sb * wgVal(c.b(), B[k*N+j])
				}
				next[i*N+j] = rnd(v)
			}
		}
		return next
	}
	want := step(C, c.scaleD)
	var mid []float64
	if c.chain {
		mid = step(want, true)
		want = step(mid, true)
	}
	// The kernel: copy the shared image in, load the registers, fence,
	// issue, commit, store the accumulator (still the old values), wait,
	// store it again.
	nA := 0
	if c.regA {
		nA = aVals / aPer
	}
	nE := 0 // the sp-meta register
	if c.sp {
		nE = 1
	}
	words := dRegs + nA + nE
	var sb2 strings.Builder
	fmt.Fprintf(&sb2, ".version 8.0\n.target sm_90a\n.address_size 64\n.visible .entry k(.param .u64 psh, .param .u64 pin, .param .u64 pout) {\n")
	fmt.Fprintf(&sb2, "\t.shared .align 1024 .b8 smem[%d];\n", S)
	fmt.Fprintf(&sb2, "\t.reg .b32 %%d<%d>, %%a<8>, %%r<10>;\n\t.reg .b64 %%rd<10>;\n\t.reg .pred %%p<3>;\n", dRegs)
	fmt.Fprintf(&sb2, "\tld.param.u64 %%rd1, [psh];\n\tld.param.u64 %%rd2, [pin];\n\tld.param.u64 %%rd3, [pout];\n")
	fmt.Fprintf(&sb2, "\tmov.u32 %%r1, %%tid.x;\n\tshl.b32 %%r2, %%r1, 2;\n\tmov.u32 %%r9, smem;\n")
	fmt.Fprintf(&sb2, "COPY:\n\tsetp.ge.u32 %%p1, %%r2, %d;\n\t@%%p1 bra DONE;\n\tcvt.u64.u32 %%rd4, %%r2;\n\tadd.u64 %%rd5, %%rd1, %%rd4;\n\tld.global.u32 %%r3, [%%rd5];\n\tadd.u32 %%r4, %%r9, %%r2;\n\tst.shared.u32 [%%r4], %%r3;\n\tadd.u32 %%r2, %%r2, 512;\n\tbra COPY;\nDONE:\n\tbar.sync 0;\n", S)
	fmt.Fprintf(&sb2, "\tmul.wide.u32 %%rd6, %%r1, %d;\n\tadd.u64 %%rd7, %%rd2, %%rd6;\n", 4*words)
	var dl, al []string
	for i := 0; i < dRegs; i++ {
		fmt.Fprintf(&sb2, "\tld.global.b32 %%d%d, [%%rd7+%d];\n", i, 4*i)
		dl = append(dl, fmt.Sprintf("%%d%d", i))
	}
	for i := 0; i < nA; i++ {
		fmt.Fprintf(&sb2, "\tld.global.b32 %%a%d, [%%rd7+%d];\n", i, 4*(dRegs+i))
		al = append(al, fmt.Sprintf("%%a%d", i))
	}
	if c.sp {
		fmt.Fprintf(&sb2, "\tld.global.b32 %%r8, [%%rd7+%d];\n", 4*(dRegs+nA))
	}
	sd := 0
	if c.scaleD {
		sd = 1
	}
	fmt.Fprintf(&sb2, "\tmov.u32 %%r5, %d;\n\tsetp.ne.u32 %%p2, %%r5, 0;\n\tmov.b64 %%rd8, %d;\n\tmov.b64 %%rd9, %d;\n", sd, descA, descB)
	ia, ib := 1, 1
	if c.negA {
		ia = -1
	}
	if c.negB {
		ib = -1
	}
	b2i := func(b bool) int {
		if b {
			return 1
		}
		return 0
	}
	aop := "%rd8"
	if c.regA {
		aop = "{" + strings.Join(al, ", ") + "}"
	}
	integer := c.d == "s32"
	trans := ""
	if c.ab == "f16" || c.ab == "bf16" {
		if !c.regA {
			trans += fmt.Sprintf(", %d", b2i(c.transA))
		}
		trans += fmt.Sprintf(", %d", b2i(c.transB))
	}
	scales := fmt.Sprintf(", %d, %d%s", ia, ib, trans)
	mods := ""
	if integer {
		scales = ""
	}
	if c.sat {
		mods = ".satfinite"
	}
	tail := ""
	if c.ab == "b1" {
		tail = ".and.popc"
	}
	sp, spOps := "", ""
	if c.sp {
		sp, spOps = ".sp", fmt.Sprintf(", %%r8, %d", c.sel)
	}
	mma := fmt.Sprintf("\twgmma.mma_async%s.sync.aligned.m64n%dk%d%s.%s.%s.%s%s {%s}, %s, %%rd9%s, %%PRED%s;\n",
		sp, N, KB, mods, c.d, c.ab, c.b(), tail, strings.Join(dl, ", "), aop, spOps, scales)
	sb2.WriteString("\twgmma.fence.sync.aligned;\n" + strings.ReplaceAll(mma, "%PRED", "%p2"))
	if c.chain {
		sb2.WriteString("\tsetp.eq.u32 %p2, %r5, %r5;\n" + strings.ReplaceAll(mma, "%PRED", "%p2"))
	}
	sb2.WriteString("\twgmma.commit_group.sync.aligned;\n")
	fmt.Fprintf(&sb2, "\tmul.wide.u32 %%rd6, %%r1, %d;\n\tadd.u64 %%rd7, %%rd3, %%rd6;\n", 12*dRegs)
	store := func(at int) {
		for i := 0; i < dRegs; i++ {
			fmt.Fprintf(&sb2, "\tst.global.b32 [%%rd7+%d], %%d%d;\n", 4*(at*dRegs+i), i)
		}
	}
	store(0)
	if c.chain {
		sb2.WriteString(strings.ReplaceAll(mma, "%PRED", "%p2") + "\twgmma.commit_group.sync.aligned;\n\twgmma.wait_group.sync.aligned 1;\n")
		store(2)
	}
	fmt.Fprintf(&sb2, "\twgmma.wait_group.sync.aligned 0;\n")
	store(1)
	sb2.WriteString("\tret;\n}\n")
	src := sb2.String()
	in := make([]byte, 128*words*4)
	for th := 0; th < 128; th++ {
		for i := 0; i < dRegs; i++ {
			binary.LittleEndian.PutUint32(in[(th*words+i)*4:], uint32(cbits[th][i]))
		}
		for i := 0; i < nA; i++ {
			binary.LittleEndian.PutUint32(in[(th*words+dRegs+i)*4:], uint32(aregs[th][i]))
		}
		if c.sp {
			binary.LittleEndian.PutUint32(in[(th*words+dRegs+nA)*4:], meta[th])
		}
	}
	s := ptx.NewSource("t.ptx", []byte(src))
	prog, diags := CompileSource(s)
	if prog == nil {
		t.Fatalf("%s: compile:\n%s\n%s", c, ptx.FormatAll(s, diags), src)
	}
	m, err := NewMachine(prog, "k", Config{Grid: [3]int{1, 1, 1}, Block: [3]int{128, 1, 1}, Scheduling: sched})
	if err != nil {
		t.Fatal(err)
	}
	var allocs []*Alloc
	for i, b := range [][]byte{sh, in, make([]byte, 128*dRegs*12)} {
		a := m.Global.Alloc(fmt.Sprint("buf", i), len(b), 256)
		copy(a.Data, b)
		binary.LittleEndian.PutUint64(m.Params()[8*i:], a.Base)
		allocs = append(allocs, a)
	}
	if r := m.Run(context.Background()); r != StopDone {
		t.Fatalf("%s (%s): %v: %v", c, sched, r, m.Fault())
	}
	out := allocs[2].Data
	for th := 0; th < 128; th++ {
		for i := 0; i < N/2; i++ {
			reg := i / per
			at := func(stage int) uint64 {
				x := uint64(binary.LittleEndian.Uint32(out[(th*3*dRegs+stage*dRegs+reg)*4:])) >> (16 * (i % per))
				if per == 2 {
					x &= 0xffff
				}
				return x
			}
			before, after := at(0), at(1)
			if old := cbits[th][reg] >> (16 * (i % per)) & (1<<(32/per) - 1); before != old {
				t.Fatalf("%s (%s): thread %d value %d before wait_group is %#x, want the old accumulator %#x", c, sched, th, i, before, old)
			}
			r, col := dPos(th, i)
			enc := func(v float64) uint64 {
				switch c.d {
				case "f32":
					return uint64(math.Float32bits(float32(v)))
				case "s32":
					return uint64(uint32(int64(v)))
				}
				return uint64(fpx.F64ToF16(math.Float64bits(v), fpx.RN, 0))
			}
			if w := enc(want[r*N+col]); after != w {
				t.Fatalf("%s (%s): D[%d][%d] (thread %d value %d) = %#x, want %#x (%g)", c, sched, r, col, th, i, after, w, want[r*N+col])
			}
			if c.chain {
				if w := enc(mid[r*N+col]); at(2) != w {
					t.Fatalf("%s (%s): after wait_group 1, D[%d][%d] = %#x, want the first group's %#x", c, sched, r, col, at(2), w)
				}
			}
		}
	}
}

func TestWgmmaAgainstMatrixProduct(t *testing.T) {
	rng := rand.New(rand.NewSource(24))
	var cases []wgCase
	for _, n := range []int{8, 16, 64, 256} {
		for _, ty := range [][2]string{{"f32", "f16"}, {"f16", "f16"}, {"f32", "bf16"}, {"f32", "tf32"}} {
			for _, sw := range []isa.WgmmaSwizzle{isa.WgmmaSwizzleNone, isa.WgmmaSwizzle128B} {
				for _, tr := range []bool{false, true} {
					if tr && ty[1] == "tf32" {
						continue
					}
					cases = append(cases, wgCase{n: n, d: ty[0], ab: ty[1], transA: tr, transB: tr, swA: sw, swB: sw, scaleD: true})
					cases = append(cases, wgCase{n: n, d: ty[0], ab: ty[1], regA: true, transB: !tr && ty[1] != "tf32", swB: sw, negA: tr, negB: !tr, scaleD: tr})
				}
			}
		}
	}
	// The 8-bit, integer and single-bit forms (K-major only), over a sweep
	// of N that includes each type's smallest, largest and the integer
	// types' steps (24, 48, 240).
	for _, ty := range [][3]string{{"f32", "e4m3", "e4m3"}, {"f16", "e5m2", "e5m2"}, {"f32", "e4m3", "e5m2"}, {"f16", "e5m2", "e4m3"},
		{"s32", "s8", "s8"}, {"s32", "u8", "s8"}, {"s32", "s8", "u8"}, {"s32", "u8", "u8"}, {"s32", "b1", "b1"}} {
		for i, n := range []int{8, 24, 48, 240, 256} {
			sw := []isa.WgmmaSwizzle{isa.WgmmaSwizzleNone, isa.WgmmaSwizzle32B, isa.WgmmaSwizzle64B, isa.WgmmaSwizzle128B}[i%4]
			float := ty[0] != "s32"
			cases = append(cases,
				wgCase{n: n, d: ty[0], ab: ty[1], bt: ty[2], swA: sw, swB: sw, scaleD: true, negA: float && i%2 == 0, negB: float && i%3 == 0, sat: !float && ty[1] != "b1" && i%2 == 1},
				wgCase{n: n, d: ty[0], ab: ty[1], bt: ty[2], regA: true, swB: sw, scaleD: i%2 == 0, negB: float && i%2 == 1, sat: !float && ty[1] != "b1" && i%2 == 0})
		}
	}
	// Mixed swizzles of A and B, the 32B and 64B modes.
	cases = append(cases,
		wgCase{n: 32, d: "f32", ab: "f16", swA: isa.WgmmaSwizzle32B, swB: isa.WgmmaSwizzle64B, transB: true, scaleD: true},
		wgCase{n: 128, d: "f32", ab: "bf16", swA: isa.WgmmaSwizzle64B, swB: isa.WgmmaSwizzle32B, transA: true, scaleD: true},
		wgCase{n: 24, d: "f32", ab: "tf32", swA: isa.WgmmaSwizzle32B, swB: isa.WgmmaSwizzle64B},
		// Chains on one accumulator across two groups.
		wgCase{n: 64, d: "f32", ab: "f16", swA: isa.WgmmaSwizzle128B, swB: isa.WgmmaSwizzle128B, chain: true},
		wgCase{n: 16, d: "f16", ab: "f16", regA: true, swB: isa.WgmmaSwizzleNone, transB: true, scaleD: true, chain: true},
	)
	for _, c := range cases {
		for _, s := range []Scheduling{SchedSIMTStack, SchedIndependent} {
			wgRun(t, c, s, rng)
		}
	}
}

// wgmma.mma_async.sp: every type (f16, bf16, tf32, e4m3/e5m2 mixed, s8/u8
// mixed with and without .satfinite), A from registers and from a
// descriptor, both selectors where two exist, several N, K-major and
// MN-major, the four swizzles, against the dense product of the
// decompressed A in both scheduling models.
func TestWgmmaSparseAgainstMatrixProduct(t *testing.T) {
	rng := rand.New(rand.NewSource(90))
	var cases []wgCase
	sws := []isa.WgmmaSwizzle{isa.WgmmaSwizzleNone, isa.WgmmaSwizzle32B, isa.WgmmaSwizzle64B, isa.WgmmaSwizzle128B}
	for i, ty := range [][3]string{{"f32", "f16", "f16"}, {"f16", "f16", "f16"}, {"f32", "bf16", "bf16"}, {"f32", "tf32", "tf32"},
		{"f32", "e4m3", "e5m2"}, {"f16", "e5m2", "e5m2"}, {"s32", "s8", "u8"}, {"s32", "u8", "u8"}} {
		float := ty[0] != "s32"
		trans := ty[1] == "f16" || ty[1] == "bf16"
		sels := 2
		if isa.FragTypeBits(ty[1]) == 8 {
			sels = 1
		}
		for j, n := range []int{8, 48, 256} {
			sw := sws[(i+j)%4]
			sel := (i + j) % sels
			cases = append(cases,
				wgCase{sp: true, sel: sel, n: n, d: ty[0], ab: ty[1], bt: ty[2], swA: sw, swB: sws[(i+j+1)%4], transA: trans && j%2 == 0, transB: trans && j != 1,
					scaleD: true, negA: float && j == 1, negB: float && j == 2, sat: !float && j%2 == 0},
				wgCase{sp: true, sel: sels - 1 - sel, n: n, d: ty[0], ab: ty[1], bt: ty[2], regA: true, swB: sw, transB: trans && j == 1,
					scaleD: j != 0, negB: float && j == 0, sat: !float && j == 1})
		}
	}
	// A chain of sparse mma_async on one accumulator across two groups.
	cases = append(cases, wgCase{sp: true, sel: 1, n: 16, d: "f32", ab: "f16", swA: isa.WgmmaSwizzle128B, swB: isa.WgmmaSwizzle128B, chain: true})
	for _, c := range cases {
		for _, s := range []Scheduling{SchedSIMTStack, SchedIndependent} {
			wgRun(t, c, s, rng)
		}
	}
}

const wgHdr = ".version 8.0\n.target sm_90a\n.address_size 64\n.visible .entry k(.param .u64 out) {\n\t.shared .align 1024 .b8 smem[2048];\n\t.reg .b32 %d<4>, %r<4>;\n\t.reg .b64 %rd<4>;\n\t.reg .pred %p<3>;\n\tmov.u32 %r1, %tid.x;\n\tmov.b64 %rd1, 0x0000001000080000;\n\tmov.b64 %rd2, 0x0000001000080040;\n\tsetp.ne.u32 %p2, %r1, 1000;\n"

const wgMma = "\twgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%d0, %d1, %d2, %d3}, %rd1, %rd2, %p2, 1, 1, 0, 0;\n"

// The warpgroup rules: every thread of the 4 warps executes the same
// wgmma instructions, an mma_async needs a fence first, descriptors are
// the same in every thread; each broken rule is a fault naming it.
func TestWgmmaCollectiveFaults(t *testing.T) {
	for _, c := range []struct {
		name    string
		threads int
		body    string
		msg     string
	}{
		{"partial warpgroup", 96, "\twgmma.fence.sync.aligned;\n", "warp(s) 3 to 3 are missing"},
		{"different instructions", 128, "\tsetp.lt.u32 %p1, %r1, 32;\n\t@%p1 bra SKIP;\n\twgmma.fence.sync.aligned;\nSKIP:\n\twgmma.commit_group.sync.aligned;\n", "every thread of a warpgroup executes the same wgmma instructions"},
		{"warp exits", 128, "\tsetp.lt.u32 %p1, %r1, 32;\n\t@%p1 bra SKIP;\n\twgmma.fence.sync.aligned;\nSKIP:\n", "without executing"},
		{"divergent lanes", 128, "\tsetp.lt.u32 %p1, %r1, 16;\n\t@%p1 wgmma.fence.sync.aligned;\n", "lane(s) 16-31"},
		{"no fence", 128, wgMma, "without a wgmma.fence"},
		{"descriptor differs", 128, "\tcvt.u64.u32 %rd3, %r1;\n\tand.b64 %rd3, %rd3, 1;\n\tshl.b64 %rd3, %rd3, 4;\n\tadd.u64 %rd1, %rd1, %rd3;\n\twgmma.fence.sync.aligned;\n" + wgMma, "the A descriptor differs between the threads of warp 0"},
		{"outside shared memory", 128, "\tmov.b64 %rd2, 0x0000001000080100;\n\twgmma.fence.sync.aligned;\n" + wgMma, "outside the CTA's 2048 bytes of shared memory"},
	} {
		for _, s := range []Scheduling{SchedSIMTStack, SchedIndependent} {
			src := wgHdr + c.body + "\tret;\n}\n"
			prog, diags := CompileSource(ptx.NewSource("t.ptx", []byte(src)))
			if prog == nil {
				t.Fatalf("%s: %s", c.name, ptx.FormatAll(ptx.NewSource("t.ptx", []byte(src)), diags))
			}
			m, err := NewMachine(prog, "k", Config{Grid: [3]int{1, 1, 1}, Block: [3]int{c.threads, 1, 1}, Scheduling: s})
			if err != nil {
				t.Fatal(err)
			}
			r := m.Run(context.Background())
			if r != StopFault || !strings.Contains(m.Fault().Message, c.msg) {
				t.Fatalf("%s (%s): %v %v, want a fault saying %q", c.name, s, r, m.Fault(), c.msg)
			}
		}
	}
	// The correct kernel runs.
	src := wgHdr + "\twgmma.fence.sync.aligned;\n" + wgMma + "\twgmma.commit_group.sync.aligned;\n\twgmma.wait_group.sync.aligned 0;\n\tret;\n}\n"
	prog, _ := CompileSource(ptx.NewSource("t.ptx", []byte(src)))
	m, _ := NewMachine(prog, "k", Config{Grid: [3]int{1, 1, 1}, Block: [3]int{128, 1, 1}})
	if r := m.Run(context.Background()); r != StopDone {
		t.Fatal(r, m.Fault())
	}
}

// Snapshots hold the results in flight: a restored machine replays to the
// same registers, and DiffState sees a difference in a result in flight.
func TestWgmmaSnapshotInFlight(t *testing.T) {
	src := wgHdr + "\tmov.b32 %d0, 0x3f800000;\n\tmov.u32 %r2, smem;\n\tshl.b32 %r3, %r1, 2;\n\tadd.u32 %r2, %r2, %r3;\n\tmov.b32 %r3, 0x3c003c00;\n\tst.shared.b32 [%r2], %r3;\n\tst.shared.b32 [%r2+1024], %r3;\n\tbar.sync 0;\n\twgmma.fence.sync.aligned;\n" + wgMma + "\twgmma.commit_group.sync.aligned;\n\twgmma.wait_group.sync.aligned 0;\n\tld.param.u64 %rd3, [out];\n\tmul.wide.u32 %rd1, %r1, 4;\n\tadd.u64 %rd3, %rd3, %rd1;\n\tst.global.b32 [%rd3], %d0;\n\tret;\n}\n"
	var out *Alloc
	mk := func() *Machine {
		m, a := ctlKernel(t, src, [3]int{128, 1, 1}, [3]int{1, 1, 1}, 128)
		if out == nil {
			out = a
		}
		return m
	}
	m := mk()
	for i := 0; len(m.Warps()) < 4 || len(m.Warps()[3].PendingWgmma()) == 0; i++ {
		if i > 10000 || m.Step(StepWarpInstruction) != StopStepped {
			t.Fatal("no wgmma in flight")
		}
	}
	snap := m.Snapshot(true)
	g := m.Warps()[3].PendingWgmma()
	if len(g) != 1 || !g[0].Committed && len(g[0].PCs) != 1 {
		t.Fatalf("pending %+v", g)
	}
	o := mk()
	o.Restore(snap)
	if d := m.DiffState(o); d != "" {
		t.Fatalf("restored machine differs: %s", d)
	}
	u := &o.CTAs()[0].async
	if len(u.wgmma) == 0 {
		t.Fatal("the restored machine has no result in flight")
	}
	u.wgmma[0].vals = slices.Clone(u.wgmma[0].vals)
	u.wgmma[0].vals[0] ^= 1
	if d := m.DiffState(o); !strings.Contains(d, "wgmma") {
		t.Fatalf("DiffState %q: want the result in flight named", d)
	}
	o.Restore(snap)
	for _, x := range []*Machine{m, o} {
		if r := x.Run(context.Background()); r != StopDone {
			t.Fatal(r, x.Fault())
		}
	}
	if d := m.DiffState(o); d != "" {
		t.Fatalf("replay differs: %s", d)
	}
	// 1 + the 16 products 1*1 (A and B all ones) = 17.
	if v := math.Float32frombits(u32s(out)[0]); v != 17 {
		t.Fatalf("D[0][0] = %v, want 17", v)
	}
}

// The forms' rules: N per type as the ISA's table of shapes gives it
// (.s8/.u8/.b1: 8, 16, 24, multiples of 16 to 256, n240 and n256
// included), the operands per type, .satfinite and .and.popc.
func TestWgmmaFormRules(t *testing.T) {
	hdr := ".version 8.0\n.target sm_90a\n.address_size 64\n.visible .entry k() {\n\t.reg .b32 %d<130>, %a<4>;\n\t.reg .b64 %rd<3>;\n\t.reg .pred %p<2>;\n"
	regs := func(n int) string {
		var l []string
		for i := 0; i < n; i++ {
			l = append(l, fmt.Sprintf("%%d%d", i))
		}
		return "{" + strings.Join(l, ", ") + "}"
	}
	for _, c := range []struct {
		ins string
		msg string // "" when it compiles
	}{
		{"wgmma.mma_async.sync.aligned.m64n240k32.s32.s8.u8 " + regs(120) + ", %rd1, %rd2, %p1;", ""},
		{"wgmma.mma_async.sync.aligned.m64n256k32.satfinite.s32.u8.u8 " + regs(128) + ", {%a0, %a1, %a2, %a3}, %rd2, %p1;", ""},
		{"wgmma.mma_async.sync.aligned.m64n24k256.s32.b1.b1.and.popc " + regs(12) + ", %rd1, %rd2, %p1;", ""},
		{"wgmma.mma_async.sync.aligned.m64n40k32.f32.e5m2.e4m3 " + regs(20) + ", %rd1, %rd2, %p1, -1, 1;", ""},
		{"wgmma.mma_async.sync.aligned.m64n40k32.s32.s8.s8 " + regs(20) + ", %rd1, %rd2, %p1;", "multiple of 16"},
		{"wgmma.mma_async.sync.aligned.m64n40k256.s32.b1.b1.and.popc " + regs(20) + ", %rd1, %rd2, %p1;", "multiple of 16"},
		{"wgmma.mma_async.sync.aligned.m64n8k32.satfinite.f32.e4m3.e4m3 " + regs(4) + ", %rd1, %rd2, %p1, 1, 1;", ".satfinite is for the integer"},
		{"wgmma.mma_async.sync.aligned.m64n8k32.s32.s8.s8 " + regs(4) + ", %rd1, %rd2, %p1, 1, 1;", "operand"},
		{"wgmma.mma_async.sync.aligned.m64n8k256.s32.b1.b1 " + regs(4) + ", %rd1, %rd2, %p1;", ".and.popc"},
		{"wgmma.mma_async.sync.aligned.m64n8k32.f32.e4m3.s8 " + regs(4) + ", %rd1, %rd2, %p1, 1, 1;", "same type"},
		{"wgmma.mma_async.sync.aligned.m64n8k32.f32.s8.s8 " + regs(4) + ", %rd1, %rd2, %p1;", "accumulate in .s32"},
		{"wgmma.mma_async.sync.aligned.m64n8k16.f32.e4m3.e4m3 " + regs(4) + ", %rd1, %rd2, %p1, 1, 1;", "K = 32"},
		// wgmma.mma_async.sp: sp-meta and sp-sel after b-desc, twice the K.
		{"wgmma.mma_async.sp.sync.aligned.m64n8k32.f32.f16.f16 " + regs(4) + ", %rd1, %rd2, %a0, 1, %p1, 1, -1, 0, 1;", ""},
		{"wgmma.mma_async.sp.sync.aligned.m64n256k32.f32.bf16.bf16 " + regs(128) + ", {%a0, %a1, %a2, %a3}, %rd2, %a0, 0, %p1, 1, 1, 0;", ""},
		{"wgmma.mma_async.sp.sync.aligned.m64n24k16.f32.tf32.tf32 " + regs(12) + ", %rd1, %rd2, %a1, 1, %p1, -1, 1;", ""},
		{"wgmma.mma_async.sp.sync.aligned.m64n56k64.f16.e5m2.e4m3 " + regs(14) + ", {%a0, %a1, %a2, %a3}, %rd2, %a1, 0, %p1, 1, 1;", ""},
		{"wgmma.mma_async.sp.sync.aligned.m64n240k64.satfinite.s32.s8.u8 " + regs(120) + ", %rd1, %rd2, %a1, 0, %p1;", ""},
		{"wgmma.mma_async.sp.sync.aligned.m64n8k16.f32.f16.f16 " + regs(4) + ", %rd1, %rd2, %a0, 0, %p1, 1, 1, 0, 0;", "K = 32 in wgmma.mma_async.sp"},
		{"wgmma.mma_async.sp.sync.aligned.m64n8k32.s32.s8.s8 " + regs(4) + ", %rd1, %rd2, %a0, 0, %p1;", "K = 64 in wgmma.mma_async.sp"},
		{"wgmma.mma_async.sp.sync.aligned.m64n8k64.f32.tf32.tf32 " + regs(4) + ", %rd1, %rd2, %a0, 0, %p1, 1, 1;", "K = 16 in wgmma.mma_async.sp"},
		{"wgmma.mma_async.sync.aligned.m64n8k64.f32.e4m3.e4m3 " + regs(4) + ", %rd1, %rd2, %p1, 1, 1;", "K = 32 (.m64n8k32)"},
		{"wgmma.mma_async.sp.sync.aligned.m64n8k512.s32.b1.b1.and.popc " + regs(4) + ", %rd1, %rd2, %a0, 0, %p1;", "m64n8k512"},
		{"wgmma.mma_async.sp.sync.aligned.m64n8k256.s32.b1.b1.and.popc " + regs(4) + ", %rd1, %rd2, %a0, 0, %p1;", "no .b1 form"},
		{"wgmma.mma_async.sp.sync.aligned.m64n40k64.s32.u8.u8 " + regs(20) + ", %rd1, %rd2, %a0, 0, %p1;", "multiple of 16"},
		{"wgmma.mma_async.sp.sync.aligned.m64n8k64.f32.e4m3.e4m3 " + regs(4) + ", %rd1, %rd2, %a0, 1, %p1, 1, 1;", "out of range for .e4m3: 0 (all four"},
		{"wgmma.mma_async.sp.sync.aligned.m64n8k32.f32.f16.f16 " + regs(4) + ", %rd1, %rd2, %a0, 2, %p1, 1, 1, 0, 0;", "out of range for .f16: 0 (threads T0, T1"},
		{"wgmma.mma_async.sp.sync.aligned.m64n8k32.f32.f16.f16 " + regs(4) + ", %rd1, %rd2, %a0, %a1, %p1, 1, 1, 0, 0;", "sp-sel must be a constant"},
		{"wgmma.mma_async.sp.sync.aligned.m64n8k32.f32.f16.f16 " + regs(4) + ", %rd1, %rd2, %a0, %p1, 1, 1, 0, 0;", "operand"},
		{"wgmma.mma_async.sp.sync.aligned.m64n8k64.satfinite.f32.e4m3.e4m3 " + regs(4) + ", %rd1, %rd2, %a0, 0, %p1, 1, 1;", ".satfinite is for the integer"},
		{"wgmma.mma_async.sp.sync.aligned.m64n8k16.f32.tf32.tf32 " + regs(4) + ", %rd1, %rd2, %a0, 0, %p1, 1, 1, 0, 0;", "operand"},
	} {
		src := ptx.NewSource("t.ptx", []byte(hdr+"\t"+c.ins+"\n\tret;\n}\n"))
		prog, diags := CompileSource(src)
		got := ptx.FormatAll(src, diags)
		if c.msg == "" {
			if prog == nil || strings.Contains(got, "error") || strings.Contains(got, "not supported") {
				t.Errorf("%s: %s", c.ins, got)
			}
			continue
		}
		if prog != nil || !strings.Contains(got, c.msg) {
			t.Errorf("%s: %s, want an error saying %q", c.ins, got, c.msg)
		}
	}
}

// The results landing at wait_group are register writes of the
// wait_group, reported to observers (the debugger's changed registers and
// history rely on it); the mma_async reports what it reads.
func TestWgmmaLandingReported(t *testing.T) {
	src := wgHdr + "\twgmma.fence.sync.aligned;\n" + wgMma + "\twgmma.commit_group.sync.aligned;\n\twgmma.wait_group.sync.aligned 0;\n\tret;\n}\n"
	for _, s := range []Scheduling{SchedSIMTStack, SchedIndependent} {
		prog, diags := CompileSource(ptx.NewSource("t.ptx", []byte(src)))
		if prog == nil {
			t.Fatal(diags)
		}
		m, _ := NewMachine(prog, "k", Config{Grid: [3]int{1, 1, 1}, Block: [3]int{128, 1, 1}, Scheduling: s})
		var mmaOp *Op
		for i := range prog.Ops {
			if prog.Ops[i].Code == isa.OpWgmmaMmaAsync {
				mmaOp = &prog.Ops[i]
			}
		}
		dSlots := tensorOperand(mmaOp, 0)
		landed := map[int]bool{}
		issued := map[int]bool{}
		m.SetObserver(observerFunc(func(in *StepInfo) {
			code := prog.Ops[in.PC].Code
			switch {
			case code == isa.OpWgmmaWaitGroup:
				if in.Tensor == nil || len(in.Tensor.Operands) != 1 || !in.Tensor.Operands[0].Write || !slices.Equal(in.Tensor.Operands[0].Regs, dSlots) {
					t.Fatalf("%s: wait_group of warp %d reports %+v, want the accumulator %v written", s, in.Warp, in.Tensor, dSlots)
				}
				if in.Tensor.Key != "wgmma.m64n8k16.f32.f16.f16" {
					t.Fatalf("key %q", in.Tensor.Key)
				}
				landed[in.Warp] = true
			case code == isa.OpWgmmaMmaAsync:
				if in.Tensor == nil || len(in.Tensor.Operands) != 1 || in.Tensor.Operands[0].Write || !slices.Equal(in.Tensor.Operands[0].Regs, dSlots) {
					t.Fatalf("%s: mma_async reports %+v, want the accumulator read", s, in.Tensor)
				}
				issued[in.Warp] = true
			case in.Tensor != nil:
				t.Fatalf("%s: %s reports a tensor step %+v", s, code, in.Tensor)
			}
		}))
		if r := m.Run(context.Background()); r != StopDone {
			t.Fatal(r, m.Fault())
		}
		if len(landed) != 4 || len(issued) != 4 {
			t.Fatalf("%s: landed %v issued %v, want every warp", s, landed, issued)
		}
	}
}

// The fast paths are what their definitions do: the cached layout is
// the computed one (and the same error), wgmmaSum is wgmmaSumSlow, over
// random descriptors, shapes and values (NaN, infinities, signed zeros).
func TestWgmmaFastPathsAreTheSlowOnes(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	for i := 0; i < 3000; i++ {
		eb := []int{1, 8, 16, 32}[rng.Intn(4)]
		o := isa.WgmmaOperand{Major: isa.WgmmaMajor(rng.Intn(2)), ElemBits: eb, Rows: 8 * (1 + rng.Intn(32)), K: 256 / eb}
		if eb == 1 {
			o.Major = isa.WgmmaKMajor
		}
		desc := rng.Uint64()
		if rng.Intn(2) == 0 {
			desc &^= 0x3fff_c000_c000_c000 // in range more often
		}
		for rep := 0; rep < 2; rep++ { // the second lookup is a cache hit
			fast, slow := wgmmaLayout(desc, o), wgmmaLayoutSlow(desc, o)
			if (fast.err == nil) != (slow.err == nil) || fast.err != nil && fast.err.Error() != slow.err.Error() || fast.end != slow.end {
				t.Fatalf("%#x %+v: cached %v/%d, computed %v/%d", desc, o, fast.err, fast.end, slow.err, slow.end)
			}
			if fast.err == nil && (!slices.Equal(fast.l.Addr, slow.l.Addr) || !slices.Equal(fast.l.Logical, slow.l.Logical)) {
				t.Fatalf("%#x %+v: cached layout differs", desc, o)
			}
		}
	}
	special := []float64{math.NaN(), math.Inf(1), math.Inf(-1), 0, math.Copysign(0, -1), 65504, 1e-7}
	val := func() float64 {
		if rng.Intn(20) == 0 {
			return special[rng.Intn(len(special))]
		}
		return float64(float32(rng.NormFloat64() * math.Ldexp(1, rng.Intn(40)-20)))
	}
	for i := 0; i < 300; i++ {
		n, k := 8*(1+rng.Intn(32)), []int{8, 16, 32, 256}[rng.Intn(4)]
		a, b, c := make([]float64, 16*k), make([]float64, n*k), make([]float64, 16*n)
		for _, s := range [][]float64{a, b, c} {
			for j := range s {
				s[j] = val()
			}
		}
		c2 := slices.Clone(c)
		wgmmaSum(a, b, c, n, k)
		wgmmaSumSlow(a, b, c2, n, k)
		for j := range c {
			if math.Float64bits(c[j]) != math.Float64bits(c2[j]) && !(c[j] != c[j] && c2[j] != c2[j]) {
				t.Fatalf("n=%d k=%d: element %d: %v, want %v", n, k, j, c[j], c2[j])
			}
		}
	}
}
