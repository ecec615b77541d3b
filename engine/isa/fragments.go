package isa

import (
	"encoding/json"
	"fmt"
	"sort"
	"sync"
)

// Fragment layouts of the warp-level matrix instructions (mma, ldmatrix,
// stmatrix, movmatrix), as data: for every operand, which lane holds which
// element of the matrix, in which register and in which part of it. The
// emulator executes these instructions from this table, the tests check it
// against independent formulas, and the web layer serves it as JSON.

// FragElem places one element of an operand: the lane that holds it, the
// register index within the lane's fragment, the part within the register
// (16-bit types: 0 low half, 1 high half; 8-bit types: byte 0..3; 32- and
// 64-bit types: 0), and its row and column in the operand's matrix.
// For ldmatrix, stmatrix and movmatrix, Reg is the register's position in
// the instruction's vector operand (matrix j is register j).
// JSON: [lane,reg,part,row,col].
type FragElem struct{ Lane, Reg, Part, Row, Col uint8 }

// MarshalJSON writes e as [lane,reg,part,row,col].
func (e FragElem) MarshalJSON() ([]byte, error) {
	return []byte(fmt.Sprintf("[%d,%d,%d,%d,%d]", e.Lane, e.Reg, e.Part, e.Row, e.Col)), nil
}

// UnmarshalJSON reads [lane,reg,part,row,col].
func (e *FragElem) UnmarshalJSON(b []byte) error {
	var a [5]uint8
	if err := json.Unmarshal(b, &a); err != nil {
		return err
	}
	*e = FragElem{a[0], a[1], a[2], a[3], a[4]}
	return nil
}

// FragOperand is one operand of a fragment instruction.
type FragOperand struct {
	Name  string     `json:"name"` // "a","b","c","d" for mma; "m0".."m3" for the 8x8 matrices of ldmatrix/stmatrix
	Rows  int        `json:"rows"`
	Cols  int        `json:"cols"`
	Type  string     `json:"type"` // element type: "f16","bf16","tf32","e4m3","e5m2","f32","f64","s8","u8","s4","u4","b1","s32","b16"
	Regs  int        `json:"regs"` // 32-bit (64-bit for f64) registers per lane
	Elems []FragElem `json:"elems"`
	// AddrLanes (ldmatrix/stmatrix): row r of this matrix is at the
	// address held by lane AddrLanes[r].
	AddrLanes []uint8 `json:"addrLanes,omitempty"`
	// Copies (wmma .f16 A and B, whose fragments are larger than the
	// matrix): the registers hold this many copies of the matrix, register
	// r+k*Regs/Copies holding what register r holds. Elems place the first
	// copy (registers 0 to Regs/Copies-1). 0 or 1: no copies.
	Copies int `json:"copies,omitempty"`
}

// Primary returns the number of registers of the first copy (Regs when
// the operand has no copies).
func (o *FragOperand) Primary() int { return o.Regs / max(o.Copies, 1) }

// MarshalJSON writes AddrLanes as a list of numbers (not base64).
func (o FragOperand) MarshalJSON() ([]byte, error) {
	type plain FragOperand
	var lanes []int
	for _, l := range o.AddrLanes {
		lanes = append(lanes, int(l))
	}
	return json.Marshal(struct {
		plain
		AddrLanes []int `json:"addrLanes,omitempty"`
	}{plain(o), lanes})
}

// UnmarshalJSON reads what MarshalJSON writes.
func (o *FragOperand) UnmarshalJSON(b []byte) error {
	type plain FragOperand
	var v struct {
		plain
		AddrLanes []int `json:"addrLanes,omitempty"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*o = FragOperand(v.plain)
	o.AddrLanes = nil
	for _, l := range v.AddrLanes {
		o.AddrLanes = append(o.AddrLanes, uint8(l))
	}
	return nil
}

// FragInstr is one form of a fragment instruction.
type FragInstr struct {
	Key      string        `json:"key"`   // e.g. "mma.m16n8k16.row.col.f32.f16.f16.f32", "ldmatrix.m8n8.x4.b16", "ldmatrix.m8n8.x4.trans.b16", "wmma.m16n16k16.f32.f16.f16.f32", "wmma.load.a.m16n16k16.f16"
	Op       string        `json:"op"`    // "mma" | "ldmatrix" | "stmatrix" | "movmatrix" | "wmma.mma" | "wmma.load" | "wmma.store"
	Shape    string        `json:"shape"` // "m16n8k16", "m8n8", ...
	Operands []FragOperand `json:"operands"`
	Notes    string        `json:"notes,omitempty"`
	// Groups (mma.m8n8k4 with .f16: 4, one per quad pair; otherwise 0)
	// is the number of independent products the warp computes. Each
	// operand stacks the groups' matrices by rows: rows p*Rows/Groups to
	// (p+1)*Rows/Groups-1 are group p's matrix.
	Groups int `json:"groups,omitempty"`
	// Sparse is set on the mma.sp forms (keys "mma.sp.<shape>.row.col.<types>",
	// one entry for both mma.sp and mma.sp::ordered_metadata). Their operand
	// "a" is the compressed M x K/2 matrix as the registers hold it; operand
	// "e" places the metadata's index fields (see SparseInfo); "b", "c",
	// "d" are as in the dense forms, B with the logical K rows.
	Sparse *SparseInfo `json:"sparse,omitempty"`
}

// SparseInfo describes the structured-sparse A of an mma.sp form (PTX ISA
// 9.7.14.6.1, "Sparse matrix storage"). Each row of the logical M x K matrix
// A is cut into chunks of Chunk consecutive elements; a chunk keeps Chunk/2
// of them, stored one after another in the compressed A, and the metadata
// register e gives their positions in the chunk: one index field per Span
// stored elements (.f16, .bf16, .s8, .u8, .e4m3, .e5m2: 2:4, a 2-bit index
// per element; .tf32: 1:2, a 4-bit field per element whose meaningful values
// are Values; .s4/.u4: 4:8 in pairs, a 2-bit index per pair of elements).
//
// The metadata of row r is a string of 4-bit nibbles, one per chunk: chunk
// j of row r is bits 4*(j%4)+16*(r/8) of the e register of lane
// 4*(r%8) + s*Threads + j/4, where s is the sparsity selector (0 to
// Selectors-1); within a nibble the first index field (the lower bits)
// belongs to the chunk's first stored element(s). Operand "e" of the form
// places every index field for selector 0 as an element of an M x
// (K/2/Span) matrix: element (r, f) is the field of compressed elements
// (r, f*Span) to (r, f*Span+Span-1); its Part is its bit offset divided by
// IndexBits. With selector s the same fields are in lane + s*Threads.
type SparseInfo struct {
	K         int   `json:"k"`                // columns of the logical (uncompressed) A; rows of B
	Chunk     int   `json:"chunk"`            // logical elements per chunk: 4; .tf32 2; .s4/.u4 8
	Span      int   `json:"span"`             // stored elements one index field places: 1; .s4/.u4 2
	IndexBits int   `json:"indexBits"`        // bits of an index field: 2; .tf32 4
	Values    []int `json:"values,omitempty"` // .tf32: the meaningful field values, index i written as Values[i]
	Threads   int   `json:"threads"`          // lanes of each group of four that supply metadata: 1, 2 or 4
	Selectors int   `json:"selectors"`        // legal sparsity selectors: 0..Selectors-1
	// KCols[c][i] is the logical column (k) that compressed column c of A
	// takes, in every row, when its index is i (the field's value; .tf32:
	// the position of its value in Values).
	KCols [][]int `json:"kcols"`
}

// Operand returns the operand named name, or nil.
func (f *FragInstr) Operand(name string) *FragOperand {
	for i := range f.Operands {
		if f.Operands[i].Name == name {
			return &f.Operands[i]
		}
	}
	return nil
}

var fragOnce struct {
	sync.Once
	table []FragInstr
	byKey map[string]int
}

func fragInit() {
	fragOnce.Do(func() {
		fragOnce.table = buildFragments()
		fragOnce.byKey = make(map[string]int, len(fragOnce.table))
		for i, f := range fragOnce.table {
			fragOnce.byKey[f.Key] = i
		}
	})
}

// FragmentTable returns every supported form, in a deterministic order
// (mma by shape and types, then ldmatrix, stmatrix, movmatrix, then the
// wmma forms: wmma.mma, wmma.load, wmma.store). The slice
// is shared: do not modify it.
func FragmentTable() []FragInstr {
	fragInit()
	return fragOnce.table
}

// LookupFragments returns the form with the given key, or nil.
func LookupFragments(key string) *FragInstr {
	fragInit()
	if i, ok := fragOnce.byKey[key]; ok {
		return &fragOnce.table[i]
	}
	return nil
}

// FragmentIndex returns the position of key in FragmentTable, or -1.
func FragmentIndex(key string) int {
	fragInit()
	if i, ok := fragOnce.byKey[key]; ok {
		return i
	}
	return -1
}

// fragPos maps (lane g/q decomposition, value index v) to (row, col).
type fragPos func(g, q, v int) (row, col int)

// fragOp builds an operand: each lane holds n values of elemBits bits,
// packed into registers of regBits bits (value v is in register
// v/(regBits/elemBits), part v%(regBits/elemBits)).
func fragOp(name, typ string, rows, cols, n, elemBits, regBits int, pos fragPos) FragOperand {
	per := max(regBits/elemBits, 1)
	o := FragOperand{Name: name, Rows: rows, Cols: cols, Type: typ, Regs: (n + per - 1) / per}
	for lane := 0; lane < 32; lane++ {
		g, q := lane>>2, lane&3
		for v := 0; v < n; v++ {
			r, c := pos(g, q, v)
			o.Elems = append(o.Elems, FragElem{uint8(lane), uint8(v / per), uint8(v % per), uint8(r), uint8(c)})
		}
	}
	sortElems(o.Elems)
	return o
}

func sortElems(es []FragElem) {
	sort.Slice(es, func(i, j int) bool {
		a, b := es[i], es[j]
		if a.Lane != b.Lane {
			return a.Lane < b.Lane
		}
		if a.Reg != b.Reg {
			return a.Reg < b.Reg
		}
		return a.Part < b.Part
	})
}

// The accumulator layout shared by the m16n8 shapes: c0..c3 at rows g and
// g+8, columns 2q and 2q+1.
func accM16N8(g, q, v int) (int, int) { return g + 8*(v>>1), 2*q + v&1 }

// FragTypeBits is the width in bits of a fragment element type ("f16",
// "s4", "b1", …; "b2" and "b4" are the index fields of mma.sp metadata).
func FragTypeBits(t string) int {
	switch t {
	case "b1":
		return 1
	case "b2":
		return 2
	case "s4", "u4", "b4":
		return 4
	case "s8", "u8", "b8", "e4m3", "e5m2":
		return 8
	case "f16", "bf16", "b16":
		return 16
	case "f64":
		return 64
	}
	return 32
}

// quadPairForms returns the .m8n8k4 forms with .f16 inputs (PTX ISA
// 9.7.15.4.1, "Matrix Fragments for mma.m8n8k4 with .f16 floating point
// type"): the warp computes four independent 8x8x4 products, product p by
// quad pair p, lanes 4p..4p+3 (the low group) and 16+4p..16+4p+3 (the high
// group). Every operand stacks the four matrices by rows (A and C/D: rows
// 8p..8p+7, B: rows 4p..4p+3). A and B may each be .row or .col; C and D
// are .f16 or .f32, independently.
func quadPairForms(notes string) []FragInstr {
	// lane = 4g+q: quad pair p = g&3, hi = 1 in the high group (lane >= 16).
	stack := func(rows int, pos fragPos) fragPos {
		return func(g, q, v int) (int, int) {
			r, c := pos(g>>2, q, v)
			return rows*(g&3) + r, c
		}
	}
	// In these positions g is hi (0 or 1).
	aPos := map[string]fragPos{
		"row": func(hi, q, v int) (int, int) { return q + 4*hi, v },
		"col": func(hi, q, v int) (int, int) { return v + 4*hi, q },
	}
	bPos := map[string]fragPos{
		"row": func(hi, q, v int) (int, int) { return q, v + 4*hi },
		"col": func(hi, q, v int) (int, int) { return v, q + 4*hi },
	}
	accPos := map[string]fragPos{
		"f16": func(hi, q, v int) (int, int) { return q + 4*hi, v },
		"f32": func(hi, q, v int) (int, int) { return q&1 + v&2 + 4*hi, v&4 + q&2 + v&1 },
	}
	acc := func(name, t string) FragOperand {
		return fragOp(name, t, 32, 8, 8, FragTypeBits(t), 32, stack(8, accPos[t]))
	}
	var out []FragInstr
	for _, al := range []string{"row", "col"} {
		for _, bl := range []string{"row", "col"} {
			for _, dc := range [][2]string{{"f32", "f32"}, {"f16", "f16"}, {"f16", "f32"}, {"f32", "f16"}} {
				out = append(out, FragInstr{
					Key:   "mma.m8n8k4." + al + "." + bl + "." + dc[0] + ".f16.f16." + dc[1],
					Op:    "mma",
					Shape: "m8n8k4",
					Operands: []FragOperand{acc("d", dc[0]),
						fragOp("a", "f16", 32, 4, 4, 16, 32, stack(8, aPos[al])),
						fragOp("b", "f16", 16, 8, 4, 16, 32, stack(4, bPos[bl])),
						acc("c", dc[1])},
					Notes:  "Four independent products, one per quad pair: quad pair p (lanes 4p..4p+3 and 16+4p..16+4p+3) computes rows 8p..8p+7 of D from rows 8p..8p+7 of A and C and rows 4p..4p+3 of B. " + notes,
					Groups: 4,
				})
			}
		}
	}
	return out
}

// mmaForm adds one mma form for each combination of the listed types.
type mmaShape struct {
	shape   string
	m, n, k int
	a, b    fragPos // positions of A (row m, col k) and B (row k, col n)
}

func buildFragments() []FragInstr {
	var out []FragInstr
	add := func(sh mmaShape, d, a, b, c string, notes string) {
		ab := FragTypeBits(a)
		regBits := 32
		if a == "f64" {
			regBits = 64
		}
		na := sh.m * sh.k / 32
		nb := sh.k * sh.n / 32
		nc := sh.m * sh.n / 32
		acc := func(t string) FragOperand {
			rb := 32
			if t == "f64" {
				rb = 64
			}
			pos := accM16N8
			if sh.m == 8 {
				pos = func(g, q, v int) (int, int) { return g, 2*q + v }
			}
			return fragOp("", t, sh.m, sh.n, nc, FragTypeBits(t), rb, pos)
		}
		fa := fragOp("a", a, sh.m, sh.k, na, ab, regBits, sh.a)
		fb := fragOp("b", b, sh.k, sh.n, nb, FragTypeBits(b), regBits, sh.b)
		fc, fd := acc(c), acc(d)
		fc.Name, fd.Name = "c", "d"
		out = append(out, FragInstr{
			Key:      "mma." + sh.shape + ".row.col." + d + "." + a + "." + b + "." + c,
			Op:       "mma",
			Shape:    sh.shape,
			Operands: []FragOperand{fd, fa, fb, fc},
			Notes:    notes,
		})
	}
	m16n8k16h := mmaShape{"m16n8k16", 16, 8, 16,
		func(g, q, v int) (int, int) { return g + 8*((v>>1)&1), 2*q + v&1 + 8*(v>>2) },
		func(g, q, v int) (int, int) { return 2*q + v&1 + 8*(v>>1), g }}
	m16n8k8h := mmaShape{"m16n8k8", 16, 8, 8,
		func(g, q, v int) (int, int) { return g + 8*(v>>1), 2*q + v&1 },
		func(g, q, v int) (int, int) { return 2*q + v, g }}
	m16n8k8t := mmaShape{"m16n8k8", 16, 8, 8,
		func(g, q, v int) (int, int) { return g + 8*(v&1), q + 4*(v>>1) },
		func(g, q, v int) (int, int) { return q + 4*v, g }}
	m16n8k4t := mmaShape{"m16n8k4", 16, 8, 4,
		func(g, q, v int) (int, int) { return g + 8*v, q },
		func(g, q, v int) (int, int) { return q, g }}
	m16n8k32i := mmaShape{"m16n8k32", 16, 8, 32,
		func(g, q, v int) (int, int) { return g + 8*((v>>2)&1), 4*q + v&3 + 16*(v>>3) },
		func(g, q, v int) (int, int) { return 4*q + v&3 + 16*(v>>2), g }}
	m16n8k16i := mmaShape{"m16n8k16", 16, 8, 16,
		func(g, q, v int) (int, int) { return g + 8*(v>>2), 4*q + v&3 },
		func(g, q, v int) (int, int) { return 4*q + v, g }}
	m8n8k16i := mmaShape{"m8n8k16", 8, 8, 16,
		func(g, q, v int) (int, int) { return g, 4*q + v },
		func(g, q, v int) (int, int) { return 4*q + v, g }}
	// .s4/.u4: eight elements per register (PTX ISA 9.7.15.5, the
	// fragments of m8n8k32, m16n8k32 and m16n8k64 with .u4/.s4).
	m8n8k32i := mmaShape{"m8n8k32", 8, 8, 32,
		func(g, q, v int) (int, int) { return g, 8*q + v },
		func(g, q, v int) (int, int) { return 8*q + v, g }}
	m16n8k32i4 := mmaShape{"m16n8k32", 16, 8, 32,
		func(g, q, v int) (int, int) { return g + 8*(v>>3), 8*q + v&7 },
		func(g, q, v int) (int, int) { return 8*q + v, g }}
	m16n8k64i := mmaShape{"m16n8k64", 16, 8, 64,
		func(g, q, v int) (int, int) { return g + 8*((v>>3)&1), 8*q + v&7 + 32*(v>>4) },
		func(g, q, v int) (int, int) { return 8*q + v&7 + 32*(v>>3), g }}
	m8n8k4d := mmaShape{"m8n8k4", 8, 8, 4,
		func(g, q, v int) (int, int) { return g, q },
		func(g, q, v int) (int, int) { return q, g }}

	const fnote = "D = A*B + C. Products are exact; each element of D is the sum of C and the K products, accumulated in f64 in ascending k and rounded once (round to nearest even) to the accumulator type."
	for _, sh := range []mmaShape{m16n8k16h, m16n8k8h} {
		for _, dc := range [][2]string{{"f32", "f32"}, {"f16", "f16"}, {"f16", "f32"}, {"f32", "f16"}} {
			add(sh, dc[0], "f16", "f16", dc[1], fnote)
		}
		add(sh, "f32", "bf16", "bf16", "f32", fnote)
	}
	const tnote = fnote + " A and B hold tf32 values in 32-bit registers; the low 13 bits of the mantissa are ignored."
	add(m16n8k8t, "f32", "tf32", "tf32", "f32", tnote)
	add(m16n8k4t, "f32", "tf32", "tf32", "f32", tnote)
	const inote = "D = A*B + C in 32-bit integers: exact, wrapping modulo 2^32, or with .satfinite clamped to the s32 range."
	for _, sh := range []mmaShape{m16n8k32i, m16n8k16i, m8n8k16i} {
		for _, a := range []string{"s8", "u8"} {
			for _, b := range []string{"s8", "u8"} {
				add(sh, "s32", a, b, "s32", inote)
			}
		}
	}
	// .e4m3/.e5m2: the layouts of the 8-bit integer forms of the same shape
	// (PTX ISA 9.7.15.5, mma.m16n8k16 and mma.m16n8k32 fragments).
	for _, sh := range []mmaShape{m16n8k16i, m16n8k32i} {
		for _, a := range []string{"e4m3", "e5m2"} {
			for _, b := range []string{"e4m3", "e5m2"} {
				for _, dc := range [][2]string{{"f32", "f32"}, {"f16", "f16"}, {"f16", "f32"}, {"f32", "f16"}} {
					add(sh, dc[0], a, b, dc[1], fnote)
				}
			}
		}
	}
	// .b1 (PTX ISA 9.7.15.5, mma.m8n8k128, .m16n8k128, .m16n8k256
	// fragments): 32 elements per register, element i at bit i.
	m8n8k128b := mmaShape{"m8n8k128", 8, 8, 128,
		func(g, q, v int) (int, int) { return g, 32*q + v },
		func(g, q, v int) (int, int) { return 32*q + v, g }}
	m16n8k128b := mmaShape{"m16n8k128", 16, 8, 128,
		func(g, q, v int) (int, int) { return g + 8*(v>>5), 32*q + v&31 },
		func(g, q, v int) (int, int) { return 32*q + v, g }}
	m16n8k256b := mmaShape{"m16n8k256", 16, 8, 256,
		func(g, q, v int) (int, int) { return g + 8*((v>>5)&1), 32*q + v&31 + 128*(v>>6) },
		func(g, q, v int) (int, int) { return 32*q + v&31 + 128*(v>>5), g }}
	const bnote = "D = C + popc(A row AND B column) with .and.popc, or popc(A row XOR B column) with .xor.popc, per element, in 32-bit integers wrapping modulo 2^32."
	for _, sh := range []mmaShape{m8n8k128b, m16n8k128b, m16n8k256b} {
		add(sh, "s32", "b1", "b1", "s32", bnote)
	}
	for _, sh := range []mmaShape{m8n8k32i, m16n8k32i4, m16n8k64i} {
		for _, a := range []string{"s4", "u4"} {
			for _, b := range []string{"s4", "u4"} {
				add(sh, "s32", a, b, "s32", inote)
			}
		}
	}
	const dnote = "D = A*B + C in f64: each element is a chain of fused multiply-adds starting from C, in ascending k (one rounding per k step)."
	add(m8n8k4d, "f64", "f64", "f64", "f64", dnote)
	// .f64 m16n8 shapes (sm_90; PTX ISA 9.7.15.5, mma.m16n8k4/k8/k16 with
	// .f64): the .tf32 layouts extended along k, one element per register.
	for _, sh := range []mmaShape{
		{"m16n8k4", 16, 8, 4, m16n8k4t.a, m16n8k4t.b},
		{"m16n8k8", 16, 8, 8, m16n8k8t.a, m16n8k8t.b},
		{"m16n8k16", 16, 8, 16,
			func(g, q, v int) (int, int) { return g + 8*(v&1), q + 4*(v>>1) },
			func(g, q, v int) (int, int) { return q + 4*v, g }},
	} {
		add(sh, "f64", "f64", "f64", "f64", dnote)
	}
	out = append(out, quadPairForms(fnote)...)
	out = append(out, sparseForms()...)

	// ldmatrix / stmatrix / movmatrix .m8n8 .b16
	mat := func(j int, trans bool) FragOperand {
		o := FragOperand{Name: "m" + string(rune('0'+j)), Rows: 8, Cols: 8, Type: "b16", Regs: 1}
		for lane := 0; lane < 32; lane++ {
			for p := 0; p < 2; p++ {
				r, c := lane/4, 2*(lane%4)+p
				if trans {
					r, c = c, r
				}
				o.Elems = append(o.Elems, FragElem{uint8(lane), uint8(j), uint8(p), uint8(r), uint8(c)})
			}
		}
		for r := 0; r < 8; r++ {
			o.AddrLanes = append(o.AddrLanes, uint8(8*j+r))
		}
		return o
	}
	for _, op := range []string{"ldmatrix", "stmatrix"} {
		for _, n := range []int{1, 2, 4} {
			for _, trans := range []bool{false, true} {
				key := op + ".m8n8.x" + string(rune('0'+n))
				notes := "Matrix j is register j of each lane; row r of matrix j (16 bytes) is at the address in lane 8j+r."
				if trans {
					key += ".trans"
					notes += " With .trans each matrix is transposed on the way."
				}
				fi := FragInstr{Key: key + ".b16", Op: op, Shape: "m8n8", Notes: notes}
				for j := 0; j < n; j++ {
					fi.Operands = append(fi.Operands, mat(j, trans))
				}
				out = append(out, fi)
			}
		}
	}
	out = append(out, matrix8Forms()...)
	a, d := mat(0, false), mat(0, true)
	a.Name, d.Name, a.AddrLanes, d.AddrLanes = "a", "d", nil, nil
	out = append(out, FragInstr{Key: "movmatrix.m8n8.trans.b16", Op: "movmatrix", Shape: "m8n8",
		Operands: []FragOperand{d, a},
		Notes:    "d receives the transpose of the 8x8 matrix held in a; both operands give rows and columns of the source matrix."})
	out = append(out, wmmaForms(fnote, tnote, inote, bnote, dnote)...)
	return out
}

// matrix8Forms returns the 8-bit ldmatrix and stmatrix forms (PTX ISA
// 9.7.14.5.15-16; sm_100a and later): ldmatrix .m16n16 (.trans mandatory)
// with .b8 or the packed .b8x16.b6x16_p32 / .b8x16.b4x16_p64 sources,
// ldmatrix .m8n16 with the packed sources, stmatrix .m16n8 .trans .b8.
//
// As for .m8n8, Row and Col of an element are its position in memory: Row
// is the 16-byte row whose address lane AddrLanes[Row] supplies, Col the
// byte in that row (for the packed sources, the element in that row, each
// unpacked to the low bits of its own byte). The matrices of the .trans
// forms are these rows transposed.
//
// ldmatrix .m16n16: matrix j is registers 2j and 2j+1; its 16 rows come
// from lanes 16j..16j+15. Lane 4g+q receives in register 2j+r, byte i, the
// element of row 4q+2r+(i&1), column g+8*(i>>1): each thread holds four
// consecutive columns (rows in memory) of two rows (g and g+8) of the
// transposed matrix.
//
// ldmatrix .m8n16: matrix j is register j; its 8 rows come from lanes
// 8j..8j+7; lane 4g+q receives row g, columns 4q..4q+3 (byte i: 4q+i).
//
// stmatrix .m16n8: matrix j is register j; the 16x8 matrix is stored
// column-major, its 8 columns as 16-byte rows at the addresses of lanes
// 8j..8j+7. Lane 4g+q supplies in byte i the element of matrix row
// g+8*(i>>1), column 2q+(i&1) (the m16n8 accumulator layout), stored at
// byte g+8*(i>>1) of memory row 2q+(i&1).
func matrix8Forms() []FragInstr {
	var out []FragInstr
	digit := func(n int) string { return string(rune('0' + n)) }
	type form struct {
		op, shape string
		nums      []int
		trans     bool
		rows      int // memory rows per matrix
		regs      int // registers per matrix
		srcs      []string
		pos       func(g, q, r, i int) (row, col int)
		notes     string
	}
	const packed = " .b6x16_p32: each 16-byte row holds 16 unsigned 6-bit elements in its first 12 bytes (element k in bits 6k..6k+5, little-endian) and 32 bits of padding; .b4x16_p64: 16 unsigned 4-bit elements in its first 8 bytes (element k in bits 4k..4k+3) and 64 bits of padding. Each element is unpacked to the low bits of its own byte, the high bits zero."
	forms := []form{
		{"ldmatrix", "m16n16", []int{1, 2}, true, 16, 2, []string{"b8", "b8x16.b6x16_p32", "b8x16.b4x16_p64"},
			func(g, q, r, i int) (int, int) { return 4*q + 2*r + (i & 1), g + 8*(i>>1) },
			"Matrix j is registers 2j, 2j+1 of each lane; row r of matrix j (16 elements) is at the address in lane 16j+r. The matrix is transposed on the way: lane 4g+q receives, in register 2j+k byte i, element (4q+2k+(i&1), g+8*(i>>1)) of the rows in memory."},
		{"ldmatrix", "m8n16", []int{1, 2, 4}, false, 8, 1, []string{"b8x16.b6x16_p32", "b8x16.b4x16_p64"},
			func(g, q, r, i int) (int, int) { return g, 4*q + i },
			"Matrix j is register j of each lane; row r of matrix j (16 packed elements) is at the address in lane 8j+r; lane 4g+q receives row g, columns 4q..4q+3, one element per byte."},
		{"stmatrix", "m16n8", []int{1, 2, 4}, true, 8, 1, []string{"b8"},
			func(g, q, r, i int) (int, int) { return 2*q + (i & 1), g + 8*(i>>1) },
			"Matrix j (16x8) is register j of each lane, lane 4g+q holding elements (g, 2q), (g, 2q+1), (g+8, 2q), (g+8, 2q+1) in bytes 0..3; it is stored column-major: column c (16 bytes) at the address in lane 8j+c."},
	}
	for _, f := range forms {
		for _, src := range f.srcs {
			for _, n := range f.nums {
				key := f.op + "." + f.shape + ".x" + digit(n)
				if f.trans {
					key += ".trans"
				}
				notes := f.notes
				if src != "b8" {
					notes += packed
				}
				fi := FragInstr{Key: key + "." + src, Op: f.op, Shape: f.shape, Notes: notes}
				for j := 0; j < n; j++ {
					o := FragOperand{Name: "m" + digit(j), Rows: f.rows, Cols: 16, Type: "b8", Regs: f.regs}
					for r := 0; r < f.regs; r++ {
						for lane := 0; lane < 32; lane++ {
							for i := 0; i < 4; i++ {
								row, col := f.pos(lane/4, lane%4, r, i)
								o.Elems = append(o.Elems, FragElem{uint8(lane), uint8(f.regs*j + r), uint8(i), uint8(row), uint8(col)})
							}
						}
					}
					for r := 0; r < f.rows; r++ {
						o.AddrLanes = append(o.AddrLanes, uint8(f.rows*j+r))
					}
					fi.Operands = append(fi.Operands, o)
				}
				out = append(out, fi)
			}
		}
	}
	return out
}

// sparseForms returns the mma.sp forms up to sm_90 (PTX ISA 9.7.14.6). The
// compressed A of each is laid out as the A of the dense form of the same
// type with half the K (9.7.14.6.2: "row = groupID ... for ai", "firstcol =
// threadID_in_group * ..." describe the columns of the stored elements); B
// extends the dense B pattern of the type to the logical K; C and D are the
// m16n8 accumulators.
func sparseForms() []FragInstr {
	var out []FragInstr
	// a and b: positions in the compressed A (16 x k/2) and in B (k x 8).
	add := func(shape string, k int, a, b fragPos, dt, at, bt, ct string, notes string) {
		ab := FragTypeBits(at)
		chunk, span, ibits := 4, 1, 2
		var values []int
		switch at {
		case "tf32":
			chunk, ibits, values = 2, 4, []int{0b0100, 0b1110}
		case "s4", "u4":
			chunk, span = 8, 2
		}
		kept := chunk / 2
		nch := k / chunk // chunks per row
		threads := nch / 4
		sp := &SparseInfo{K: k, Chunk: chunk, Span: span, IndexBits: ibits, Values: values, Threads: threads, Selectors: 4 / threads}
		for c := 0; c < k/2; c++ {
			var cols []int
			for i := 0; i < chunk/span; i++ {
				cols = append(cols, c/kept*chunk+i*span+c%span)
			}
			sp.KCols = append(sp.KCols, cols)
		}
		fields := 4 / ibits // index fields per chunk
		e := FragOperand{Name: "e", Rows: 16, Cols: k / 2 / span, Type: "b" + string(rune('0'+ibits)), Regs: 1}
		for r := 0; r < 16; r++ {
			for j := 0; j < nch; j++ {
				for f := 0; f < fields; f++ {
					bit := 4*(j%4) + 16*(r/8) + f*ibits
					e.Elems = append(e.Elems, FragElem{uint8(4*(r%8) + j/4), 0, uint8(bit / ibits), uint8(r), uint8(j*fields + f)})
				}
			}
		}
		sortElems(e.Elems)
		fd := fragOp("d", dt, 16, 8, 4, FragTypeBits(dt), 32, accM16N8)
		fc := fragOp("c", ct, 16, 8, 4, FragTypeBits(ct), 32, accM16N8)
		out = append(out, FragInstr{
			Key:   "mma.sp." + shape + ".row.col." + dt + "." + at + "." + bt + "." + ct,
			Op:    "mma",
			Shape: shape,
			Operands: []FragOperand{fd,
				fragOp("a", at, 16, k/2, 16*k/64, ab, 32, a),
				fragOp("b", bt, k, 8, k*8/32, FragTypeBits(bt), 32, b),
				fc, e},
			Notes:  notes,
			Sparse: sp,
		})
	}
	const spnote = " A is structured-sparse: operand a holds the compressed 16 x K/2 matrix, and the metadata e (for selector 0; selector s moves it to lane + s*threads in each group of four) says for each stored element which column of the logical A it is in (sparse.kcols); the logical A is zero elsewhere."
	const fnote = "D = A*B + C. Products are exact; each element of D is C plus the products of the stored elements of its row of A with the rows of B their metadata selects, in stored order, accumulated in f64 and rounded once (round to nearest even) to the accumulator type." + spnote
	const inote = "D = A*B + C in 32-bit integers: exact, wrapping modulo 2^32, or with .satfinite clamped to the s32 range." + spnote
	// Compressed A layouts: the dense A of half the K.
	a16x8h := func(g, q, v int) (int, int) { return g + 8*(v>>1), 2*q + v&1 }                   // f16 m16n8k8
	a16x16h := func(g, q, v int) (int, int) { return g + 8*((v>>1)&1), 2*q + v&1 + 8*(v>>2) }   // f16 m16n8k16
	a16x4t := func(g, q, v int) (int, int) { return g + 8*v, q }                                // tf32 m16n8k4
	a16x8t := func(g, q, v int) (int, int) { return g + 8*(v&1), q + 4*(v>>1) }                 // tf32 m16n8k8
	a16x16i := func(g, q, v int) (int, int) { return g + 8*(v>>2), 4*q + v&3 }                  // s8 m16n8k16
	a16x32i := func(g, q, v int) (int, int) { return g + 8*((v>>2)&1), 4*q + v&3 + 16*(v>>3) }  // s8 m16n8k32
	a16x32i4 := func(g, q, v int) (int, int) { return g + 8*(v>>3), 8*q + v&7 }                 // s4 m16n8k32
	a16x64i4 := func(g, q, v int) (int, int) { return g + 8*((v>>3)&1), 8*q + v&7 + 32*(v>>4) } // s4 m16n8k64
	bh := func(g, q, v int) (int, int) { return 2*q + v&1 + 8*(v>>1), g }                       // f16: k16 and k32
	bt := func(g, q, v int) (int, int) { return q + 4*v, g }                                    // tf32: k8 and k16
	bi := func(g, q, v int) (int, int) { return 4*q + v&3 + 16*(v>>2), g }                      // 8-bit: k32 and k64
	bi4 := func(g, q, v int) (int, int) { return 8*q + v&7 + 32*(v>>3), g }                     // 4-bit: k64 and k128
	for _, sh := range []struct {
		shape string
		k     int
		a     fragPos
	}{{"m16n8k16", 16, a16x8h}, {"m16n8k32", 32, a16x16h}} {
		add(sh.shape, sh.k, sh.a, bh, "f16", "f16", "f16", "f16", fnote)
		add(sh.shape, sh.k, sh.a, bh, "f32", "f16", "f16", "f32", fnote)
		add(sh.shape, sh.k, sh.a, bh, "f32", "bf16", "bf16", "f32", fnote)
	}
	const tnote = fnote + " A and B hold tf32 values in 32-bit registers; the low 13 bits of the mantissa are ignored."
	add("m16n8k8", 8, a16x4t, bt, "f32", "tf32", "tf32", "f32", tnote)
	add("m16n8k16", 16, a16x8t, bt, "f32", "tf32", "tf32", "f32", tnote)
	for _, x := range []string{"e4m3", "e5m2"} {
		for _, y := range []string{"e4m3", "e5m2"} {
			add("m16n8k64", 64, a16x32i, bi, "f32", x, y, "f32", fnote)
		}
	}
	for _, sh := range []struct {
		shape string
		k     int
		a     fragPos
		b     fragPos
		types []string
	}{{"m16n8k32", 32, a16x16i, bi, []string{"s8", "u8"}}, {"m16n8k64", 64, a16x32i, bi, []string{"s8", "u8"}},
		{"m16n8k64", 64, a16x32i4, bi4, []string{"s4", "u4"}}, {"m16n8k128", 128, a16x64i4, bi4, []string{"s4", "u4"}}} {
		for _, x := range sh.types {
			for _, y := range sh.types {
				add(sh.shape, sh.k, sh.a, sh.b, "s32", x, y, "s32", inote)
			}
		}
	}
	return out
}
