package emu

import (
	"math"

	"github.com/ptxplayground/ptxplay/engine/fpx"
	"github.com/ptxplayground/ptxplay/engine/isa"
)

// mma.sp and mma.sp::ordered_metadata: structured-sparse A (PTX ISA
// 9.7.14.6). The form's fragment table entry places the compressed A (16 x
// K/2) like a dense operand and describes the metadata (isa.SparseInfo);
// the op holds the metadata register in E and the sparsity selector in Imm
// (bit 8: ::ordered_metadata).
//
// Execution: every index field of the metadata, read from the lanes the
// selector names, gives the logical column k of the stored element(s) it
// governs; each stored element then multiplies row k of B. Element (i, j) of
// D is C(i, j) plus these products of row i, in the order the elements are
// stored (ascending k when the indices of each chunk increase), with the
// numerics of the dense forms: float products exact, accumulated in f64 and
// rounded once to the accumulator type; integers exact, wrapped or
// saturated. Zeros of the logical A are not multiplied (an infinite B
// element they would meet gives no NaN).
//
// Metadata the ISA leaves undefined:
//   - mma.sp with a repeated index in a chunk (0b0000, 0b0101, 0b1010,
//     0b1111): both stored elements multiply the same row of B (their sum
//     takes that column); nothing faults.
//   - .tf32 fields other than 0b0100 and 0b1110: bit 1 of the field selects
//     the column (0b0100 has it clear, 0b1110 set).
//   - mma.sp::ordered_metadata requires the indices of each chunk to
//     increase from the low bits (and .tf32 fields to be 0b0100 or 0b1110):
//     otherwise the instruction faults (illegal-instruction) naming the
//     lane, the bits of e and the row and columns of A they describe.

// mmaOrdered marks ::ordered_metadata in Op.Imm.
const mmaOrdered = 1 << 8

// sparseMeta is a form's metadata layout, flattened: one entry per index
// field, in row-major order of the form's "e" operand (row, field column).
type sparseMeta struct {
	fields   []spField
	threads  int  // metadata lanes per group of four (the selector's stride)
	ibits    uint // bits of a field
	span     int  // stored elements per field
	tf32     bool // 4-bit fields, values 0b0100 and 0b1110
	perChunk int  // fields per chunk (2; .tf32 1)
}

type spField struct {
	lane, bit uint8  // for selector 0
	row       uint8  // row of A
	col       uint16 // first compressed column it governs
	base      uint16 // logical column of its chunk's first element
}

func newSparseMeta(fi *isa.FragInstr) *sparseMeta {
	sp := fi.Sparse
	e := fi.Operand("e")
	s := &sparseMeta{threads: sp.Threads, ibits: uint(sp.IndexBits), span: sp.Span, tf32: len(sp.Values) > 0,
		perChunk: 4 / sp.IndexBits}
	s.fields = make([]spField, e.Rows*e.Cols)
	kept := sp.Chunk / 2
	for _, el := range e.Elems {
		c := int(el.Col) * sp.Span
		s.fields[int(el.Row)*e.Cols+int(el.Col)] = spField{lane: el.Lane, bit: el.Part * uint8(sp.IndexBits), row: el.Row,
			col: uint16(c), base: uint16(c / kept * sp.Chunk)}
	}
	return s
}

// selectorRule says which selectors a form takes.
func selectorRule(sp *isa.SparseInfo) string {
	switch sp.Threads {
	case 1:
		return "0..3, the thread of each group of four that supplies the metadata"
	case 2:
		return "0 (threads T0, T1 of each group of four supply the metadata) or 1 (T2, T3)"
	}
	return "0 (all four threads of each group supply the metadata)"
}

// sparseColumns decodes the metadata into kcol: for each element of the
// compressed A (row-major, k2 columns), its logical column.
func sparseColumns(w *Warp, op *Op, f *tensorForm, kcol []uint16) *Fault {
	return decodeSparseMeta(w, f.sp, f.k2, w.r(op.E), int(op.Imm&3), op.Imm&mmaOrdered != 0, kcol)
}

// decodeSparseMeta decodes metadata e (a warp's register) read with selector sel
// into kcol, for a compressed A of k2 columns (the rows s describes):
// sparseColumns, and a warp's part of wgmma.mma_async.sp.
func decodeSparseMeta(w *Warp, s *sparseMeta, k2 int, e *[32]uint64, sel int, ordered bool, kcol []uint16) *Fault {
	mask := uint64(1)<<s.ibits - 1
	prev := 0
	for i, fd := range s.fields {
		lane := int(fd.lane) + sel*s.threads
		v := int(e[lane%32] >> fd.bit & mask)
		idx := v
		if s.tf32 {
			idx = v >> 1 & 1
			if ordered && v != 0b0100 && v != 0b1110 {
				return w.fault(FaultIllegal, lane, "mma.sp::ordered_metadata: bits %d-%d of the metadata of lane %d (e = 0x%08x) are 0b%04b, the index of row %d, column %d of A; .tf32 takes 0b0100 or 0b1110 (other values are undefined in PTX)",
					fd.bit, int(fd.bit)+3, lane, uint32(e[lane%32]), v, fd.row, fd.col)
			}
		} else if ordered && i%s.perChunk == 1 && idx <= prev {
			return w.fault(FaultIllegal, lane, "mma.sp::ordered_metadata: bits %d-%d of the metadata of lane %d (e = 0x%08x) give indices %d, %d for row %d, columns %d-%d of A; they must increase (undefined in PTX otherwise)",
				int(fd.bit)-int(s.ibits), int(fd.bit)+int(s.ibits)-1, lane, uint32(e[lane%32]), prev, idx, fd.row, int(fd.col)-s.span, int(fd.col)+s.span-1)
		}
		prev = idx
		at := int(fd.row)*k2 + int(fd.col)
		for j := 0; j < s.span; j++ {
			kcol[at+j] = fd.base + uint16(idx*s.span+j)
		}
	}
	return nil
}

// Largest sparse operands: compressed A of m16n8k128 .s4 (16x64), B of it
// (128x8).
const sparseMaxElems = 1024

func execMmaSparseFloat(w *Warp, op *Op, mask uint32) *Fault {
	if f := tensorConverged(w, op, mask); f != nil {
		return f
	}
	f := tensorFormAt(op.Aux)
	var kcol [sparseMaxElems]uint16
	if fl := sparseColumns(w, op, f, kcol[:]); fl != nil {
		return fl
	}
	sc := w.mmaScratch()
	gatherFloat(w, &f.ops[1], tensorOperand(op, 1), &sc.a)
	gatherFloat(w, &f.ops[2], tensorOperand(op, 2), &sc.b)
	gatherFloat(w, &f.ops[3], tensorOperand(op, 3), &sc.c)
	M, K2 := f.m, f.k2
	// B (K x 8) is row-major; C (M x 8) becomes D.
	for i := 0; i < M; i++ {
		ar := sc.a[i*K2 : i*K2+K2]
		kr := kcol[i*K2 : i*K2+K2]
		cr := (*[8]float64)(sc.c[i*8 : i*8+8])
		s0, s1, s2, s3, s4, s5, s6, s7 := cr[0], cr[1], cr[2], cr[3], cr[4], cr[5], cr[6], cr[7]
		for t, x := range ar {
			k := int(kr[t]) % (tensorFloatElems / 8)
			br := (*[8]float64)(sc.b[k*8 : k*8+8])
			s0 += x * br[0]
			s1 += x * br[1]
			s2 += x * br[2]
			s3 += x * br[3]
			s4 += x * br[4]
			s5 += x * br[5]
			s6 += x * br[6]
			s7 += x * br[7]
		}
		cr[0], cr[1], cr[2], cr[3], cr[4], cr[5], cr[6], cr[7] = s0, s1, s2, s3, s4, s5, s6, s7
	}
	if f.ops[0].elem == "f32" {
		scatterF32(w, &f.ops[0], tensorOperand(op, 0), &sc.c)
		return nil
	}
	var d [128]uint64
	for i, v := range sc.c[:M*8] {
		d[i] = uint64(fpx.F64ToF16(math.Float64bits(v), fpx.RN, 0))
	}
	scatter(w, &f.ops[0], tensorOperand(op, 0), d[:M*8])
	return nil
}

func execMmaSparseInt(w *Warp, op *Op, mask uint32) *Fault {
	if f := tensorConverged(w, op, mask); f != nil {
		return f
	}
	f := tensorFormAt(op.Aux)
	var kcol [sparseMaxElems]uint16
	if fl := sparseColumns(w, op, f, kcol[:]); fl != nil {
		return fl
	}
	var a, b [sparseMaxElems]int64
	var c [128]int64
	var d [128]uint64
	gatherInt(w, &f.ops[1], tensorOperand(op, 1), a[:])
	gatherInt(w, &f.ops[2], tensorOperand(op, 2), b[:]) // transposed: column j at j*K
	gatherInt(w, &f.ops[3], tensorOperand(op, 3), c[:])
	M, N, K, K2 := f.m, f.n, f.k, f.k2
	sat := op.Flags.Has(isa.FSatfinite)
	for i := 0; i < M; i++ {
		ar := a[i*K2 : i*K2+K2]
		kr := kcol[i*K2 : i*K2+K2]
		for j := 0; j < N; j++ {
			bc := b[j*K : j*K+K]
			s := c[i*N+j]
			for t, x := range ar {
				s += x * bc[int(kr[t])%K]
			}
			if sat {
				s = min(max(s, math.MinInt32), math.MaxInt32)
			}
			d[i*N+j] = uint64(uint32(s))
		}
	}
	scatter(w, &f.ops[0], tensorOperand(op, 0), d[:M*N])
	return nil
}
