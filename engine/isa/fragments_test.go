package isa

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// Independent reference formulas (CUTLASS CuTe layouts, checked on
// hardware): g = lane>>2, q = lane&3, v the value index within the lane.
type refLayout func(g, q, v int) (row, col int)

func refMma(shape, a string) (ra, rb, rc refLayout) {
	c16 := func(g, q, v int) (int, int) { return g + 8*(v>>1), 2*q + (v & 1) }
	c8 := func(g, q, v int) (int, int) { return g, 2*q + v }
	switch {
	case shape == "m16n8k16" && (a == "f16" || a == "bf16"):
		return func(g, q, v int) (int, int) { return g + 8*((v>>1)&1), 2*q + (v & 1) + 8*(v>>2) },
			func(g, q, v int) (int, int) { return 2*q + (v & 1) + 8*(v>>1), g }, c16
	case shape == "m16n8k8" && (a == "f16" || a == "bf16"):
		return func(g, q, v int) (int, int) { return g + 8*(v>>1), 2*q + (v & 1) },
			func(g, q, v int) (int, int) { return 2*q + v, g }, c16
	case shape == "m16n8k8" && a == "tf32":
		return func(g, q, v int) (int, int) { return g + 8*(v&1), q + 4*(v>>1) },
			func(g, q, v int) (int, int) { return q + 4*v, g }, c16
	case shape == "m16n8k4" && a == "tf32":
		return func(g, q, v int) (int, int) { return g + 8*v, q },
			func(g, q, v int) (int, int) { return q, g }, c16
	case shape == "m16n8k32" && (a == "s8" || a == "u8" || a == "e4m3" || a == "e5m2"):
		return func(g, q, v int) (int, int) { return g + 8*((v>>2)&1), 4*q + (v & 3) + 16*(v>>3) },
			func(g, q, v int) (int, int) { return 4*q + (v & 3) + 16*(v>>2), g }, c16
	case shape == "m16n8k16" && (a == "s8" || a == "u8" || a == "e4m3" || a == "e5m2"):
		return func(g, q, v int) (int, int) { return g + 8*(v>>2), 4*q + (v & 3) },
			func(g, q, v int) (int, int) { return 4*q + v, g }, c16
	case shape == "m8n8k16" && (a == "s8" || a == "u8"):
		return func(g, q, v int) (int, int) { return g, 4*q + v },
			func(g, q, v int) (int, int) { return 4*q + v, g }, c8
	// .s4/.u4 (PTX ISA 9.7.15.5: mma.m8n8k32, .m16n8k32, .m16n8k64 fragments):
	// groupID = g, threadID_in_group = q, element i = v.
	case shape == "m8n8k32" && (a == "s4" || a == "u4"):
		return func(g, q, v int) (int, int) { return g, q*8 + v },
			func(g, q, v int) (int, int) { return q*8 + v, g }, c8
	case shape == "m16n8k32" && (a == "s4" || a == "u4"):
		return func(g, q, v int) (int, int) {
				if v < 8 {
					return g, q*8 + (v & 7)
				}
				return g + 8, q*8 + (v & 7)
			},
			func(g, q, v int) (int, int) { return q*8 + v, g }, c16
	case shape == "m16n8k64" && (a == "s4" || a == "u4"):
		return func(g, q, v int) (int, int) {
				row := g
				if (v >= 8 && v < 16) || v >= 24 {
					row = g + 8
				}
				if v < 16 {
					return row, q*8 + (v & 7)
				}
				return row, q*8 + (v & 7) + 32
			},
			func(g, q, v int) (int, int) {
				if v < 8 {
					return q*8 + (v & 7), g
				}
				return q*8 + (v & 7) + 32, g
			}, c16
	// .b1 (PTX ISA 9.7.15.5: mma.m8n8k128, .m16n8k128, .m16n8k256 fragments).
	case shape == "m8n8k128" && a == "b1":
		return func(g, q, v int) (int, int) { return g, q*32 + v },
			func(g, q, v int) (int, int) { return q*32 + v, g }, c8
	case shape == "m16n8k128" && a == "b1":
		return func(g, q, v int) (int, int) {
				if v < 32 {
					return g, q*32 + (v & 0x1f)
				}
				return g + 8, q*32 + (v & 0x1f)
			},
			func(g, q, v int) (int, int) { return q*32 + v, g }, c16
	case shape == "m16n8k256" && a == "b1":
		return func(g, q, v int) (int, int) {
				row := g
				if (v >= 32 && v < 64) || v >= 96 {
					row = g + 8
				}
				if v < 64 {
					return row, q*32 + (v & 0x1f)
				}
				return row, q*32 + (v & 0x1f) + 128
			},
			func(g, q, v int) (int, int) {
				if v < 32 {
					return q*32 + (v & 0x1f), g
				}
				return q*32 + (v & 0x1f) + 128, g
			}, c16
	// .f64 (PTX ISA 9.7.15.5: mma.m16n8k4, .m16n8k8, .m16n8k16 with .f64):
	// row = groupID for even i, groupID+8 for odd i; col = threadID_in_group
	// + 4*(i/2); B row = threadID_in_group + 4*i, col = groupID.
	case (shape == "m16n8k4" || shape == "m16n8k8" || shape == "m16n8k16") && a == "f64":
		return func(g, q, v int) (int, int) { return g + 8*(v%2), q + 4*(v/2) },
			func(g, q, v int) (int, int) { return q + 4*v, g }, c16
	case shape == "m8n8k4" && a == "f64":
		return func(g, q, v int) (int, int) { return g, q },
			func(g, q, v int) (int, int) { return q, g }, c8
	}
	return nil, nil, nil
}

// refQuadPair returns the layouts of mma.m8n8k4 with .f16 inputs, written
// as in PTX ISA 9.7.15.4.1 (Figures 22-27) in terms of %laneid and the
// value index i, then stacked by quad pair (rows 8p.. of A, C, D; rows 4p..
// of B, p = (%laneid>>2)&3); acc gives an accumulator type's layout.
func refQuadPair(alay, blay string) (ra, rb refLayout, acc func(typ string) refLayout) {
	lane := func(g, q int) int { return 4*g + q }
	stack := func(rows int, f func(laneid, i int) (int, int)) refLayout {
		return func(g, q, v int) (int, int) {
			l := lane(g, q)
			r, c := f(l, v)
			return rows*((l>>2)&3) + r, c
		}
	}
	hi4 := func(laneid int) int {
		if laneid < 16 {
			return 0
		}
		return 4
	}
	if alay == "row" {
		ra = stack(8, func(laneid, i int) (int, int) { return laneid%4 + hi4(laneid), i })
	} else {
		ra = stack(8, func(laneid, i int) (int, int) { return i%4 + hi4(laneid), laneid % 4 })
	}
	if blay == "row" {
		rb = stack(4, func(laneid, i int) (int, int) { return laneid % 4, i + hi4(laneid) })
	} else {
		rb = stack(4, func(laneid, i int) (int, int) { return i, laneid%4 + hi4(laneid) })
	}
	acc = func(typ string) refLayout {
		if typ == "f16" {
			return stack(8, func(laneid, i int) (int, int) { return laneid%4 + hi4(laneid), i })
		}
		// .f32: row = X (+4 in the high group), X = (%laneid & 0b1) + (i & 0b10);
		// col = (i & 0b100) + (%laneid & 0b10) + (i & 0b1).
		return stack(8, func(laneid, i int) (int, int) {
			return (laneid & 1) + (i & 2) + hi4(laneid), (i & 4) + (laneid & 2) + (i & 1)
		})
	}
	return
}

// refPlace returns (reg, part) of value v for an element type.
func refPlace(typ string, v int) (int, int) {
	switch typ {
	case "f16", "bf16", "b16":
		return v / 2, v % 2
	case "s8", "u8", "e4m3", "e5m2":
		return v / 4, v % 4
	case "s4", "u4":
		return v / 8, v % 8
	case "b1":
		return v / 32, v % 32
	}
	return v, 0
}

func checkAgainst(t *testing.T, key string, o *FragOperand, ref refLayout) {
	t.Helper()
	perLane := o.Rows * o.Cols / 32
	want := map[[3]int][2]int{}
	for lane := 0; lane < 32; lane++ {
		for v := 0; v < perLane; v++ {
			reg, part := refPlace(o.Type, v)
			r, c := ref(lane>>2, lane&3, v)
			want[[3]int{lane, reg, part}] = [2]int{r, c}
		}
	}
	if len(o.Elems) != len(want) {
		t.Errorf("%s %s: %d elements, want %d", key, o.Name, len(o.Elems), len(want))
	}
	for _, e := range o.Elems {
		w, ok := want[[3]int{int(e.Lane), int(e.Reg), int(e.Part)}]
		if !ok || w != [2]int{int(e.Row), int(e.Col)} {
			t.Errorf("%s %s: lane %d reg %d part %d at (%d,%d), want %v", key, o.Name, e.Lane, e.Reg, e.Part, e.Row, e.Col, w)
			return
		}
	}
}

func TestFragmentsMatchReference(t *testing.T) {
	n := 0
	for i := range FragmentTable() {
		f := &FragmentTable()[i]
		switch {
		case f.Sparse != nil:
			checkSparse(t, f)
			n++
		case f.Op == "mma":
			w := strings.Split(f.Key, ".")
			types := w[4:]
			ra, rb, rc := refMma(f.Shape, types[1])
			rd := rc
			if f.Shape == "m8n8k4" && types[1] == "f16" {
				var acc func(string) refLayout
				ra, rb, acc = refQuadPair(w[2], w[3])
				rd, rc = acc(types[0]), acc(types[3])
				if f.Groups != 4 {
					t.Errorf("%s: %d groups, want 4", f.Key, f.Groups)
				}
			} else if w[2] != "row" || w[3] != "col" || f.Groups != 0 {
				t.Errorf("%s: layouts %s.%s, %d groups", f.Key, w[2], w[3], f.Groups)
			}
			if ra == nil {
				t.Errorf("%s: no reference layout", f.Key)
				continue
			}
			checkAgainst(t, f.Key, f.Operand("a"), ra)
			checkAgainst(t, f.Key, f.Operand("b"), rb)
			checkAgainst(t, f.Key, f.Operand("c"), rc)
			checkAgainst(t, f.Key, f.Operand("d"), rd)
			n++
		case (f.Op == "ldmatrix" || f.Op == "stmatrix") && f.Shape != "m8n8":
			checkMatrix8(t, f)
			n++
		case f.Op == "ldmatrix" || f.Op == "stmatrix":
			trans := strings.Contains(f.Key, ".trans")
			for j, o := range f.Operands {
				for r := 0; r < 8; r++ {
					if int(o.AddrLanes[r]) != 8*j+r {
						t.Errorf("%s m%d: row %d from lane %d", f.Key, j, r, o.AddrLanes[r])
					}
				}
				for _, e := range o.Elems {
					l := int(e.Lane)
					r, c := l/4, 2*(l%4)+int(e.Part)
					if trans {
						r, c = c, r
					}
					if int(e.Reg) != j || int(e.Row) != r || int(e.Col) != c {
						t.Errorf("%s m%d: %+v", f.Key, j, e)
						break
					}
				}
			}
			n++
		}
	}
	if n < 20 {
		t.Errorf("only %d forms checked", n)
	}
	for _, k := range []string{"mma.m16n8k16.row.col.f32.f16.f16.f32", "ldmatrix.m8n8.x4.b16", "ldmatrix.m8n8.x4.trans.b16",
		"mma.m16n8k32.row.col.s32.s8.s8.s32", "mma.m8n8k4.row.col.f64.f64.f64.f64", "mma.m8n8k4.col.row.f32.f16.f16.f16", "movmatrix.m8n8.trans.b16", "stmatrix.m8n8.x2.trans.b16"} {
		if LookupFragments(k) == nil {
			t.Errorf("LookupFragments(%q) = nil", k)
		}
	}
	if LookupFragments("mma.nope") != nil {
		t.Error("unknown key found")
	}
}

func TestFragmentsBijective(t *testing.T) {
	keys := map[string]bool{}
	for _, f := range FragmentTable() {
		if keys[f.Key] {
			t.Errorf("key %s twice", f.Key)
		}
		keys[f.Key] = true
		for _, o := range f.Operands {
			if len(o.Elems) != o.Rows*o.Cols {
				t.Errorf("%s %s: %d elements for %dx%d", f.Key, o.Name, len(o.Elems), o.Rows, o.Cols)
			}
			cells := map[[2]uint8]bool{}
			slots := map[[3]uint8]bool{}
			for _, e := range o.Elems {
				if int(e.Row) >= o.Rows || int(e.Col) >= o.Cols || e.Lane >= 32 {
					t.Errorf("%s %s: element %+v outside the matrix", f.Key, o.Name, e)
				}
				c, s := [2]uint8{e.Row, e.Col}, [3]uint8{e.Lane, e.Reg, e.Part}
				if cells[c] || slots[s] {
					t.Errorf("%s %s: element %+v placed twice", f.Key, o.Name, e)
				}
				cells[c], slots[s] = true, true
			}
		}
	}
}

func TestFragmentsJSON(t *testing.T) {
	f := LookupFragments("ldmatrix.m8n8.x2.b16")
	b, err := json.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	for _, want := range []string{`"key":"ldmatrix.m8n8.x2.b16"`, `"elems":[[0,0,0,0,0],[0,0,1,0,1],`, `"addrLanes":[8,9,10,11,12,13,14,15]`, `"regs":1`} {
		if !strings.Contains(s, want) {
			t.Errorf("JSON lacks %s: %.300s", want, s)
		}
	}
	var back FragInstr
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(&back, f) {
		t.Error("JSON round trip changed the form")
	}
	m := LookupFragments("mma.m16n8k16.row.col.f32.f16.f16.f32")
	if b, _ := json.Marshal(m); strings.Contains(string(b), "addrLanes") || strings.Contains(string(b), "sparse") {
		t.Error("dense mma operands have addrLanes or sparse")
	}
	// mma.sp: the sparse description is an optional field, and survives a
	// round trip.
	sp := LookupFragments("mma.sp.m16n8k16.row.col.f32.tf32.tf32.f32")
	b, err = json.Marshal(sp)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"sparse":{"k":16,"chunk":2,"span":1,"indexBits":4,"values":[4,14],"threads":2,"selectors":2,"kcols":[[0,1],[2,3],`, `{"name":"e","rows":16,"cols":8,"type":"b4","regs":1,"elems":[[0,0,0,0,0],[0,0,1,0,1],`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("JSON lacks %s: %.300s", want, b)
		}
	}
	back = FragInstr{}
	if err := json.Unmarshal(b, &back); err != nil || !reflect.DeepEqual(&back, sp) {
		t.Errorf("mma.sp JSON round trip: %v", err)
	}
}

// refSparseA is the layout of the compressed A of an mma.sp form as PTX ISA
// 9.7.14.6.2 writes it: element a_i of a lane is in row row(g, i), among
// the stored elements of logical columns firstcol(q, i) .. firstcol+width-1
// (each register holds the non-zero half of width consecutive elements, in
// order), so its compressed column is firstcol/2 + i mod (width/2).
func refSparseA(shape, a string) (row func(g, i int) int, firstcol func(q, i int) int, width int) {
	switch shape + "." + a {
	case "m16n8k16.f16", "m16n8k16.bf16": // a0,a1: groupID; a2,a3: +8; firstcol = q*4
		return func(g, i int) int { return g + 8*(i/2) }, func(q, i int) int { return q * 4 }, 4
	case "m16n8k32.f16", "m16n8k32.bf16": // a0,a1,a4,a5: groupID; else +8; firstcol = q*4 (+16 for i >= 4)
		return func(g, i int) int { return g + 8*((i/2)%2) }, func(q, i int) int { return q*4 + 16*(i/4) }, 4
	case "m16n8k8.tf32": // a0: groupID, a1: +8; firstcol = q*2
		return func(g, i int) int { return g + 8*i }, func(q, i int) int { return q * 2 }, 2
	case "m16n8k16.tf32": // a0,a2: groupID; a1,a3: +8; firstcol = q*2 (+8 for a2,a3)
		return func(g, i int) int { return g + 8*(i%2) }, func(q, i int) int { return q*2 + 8*(i/2) }, 2
	case "m16n8k32.s8", "m16n8k32.u8": // i < 4: groupID; else +8; firstcol = q*8
		return func(g, i int) int { return g + 8*(i/4) }, func(q, i int) int { return q * 8 }, 8
	case "m16n8k64.s8", "m16n8k64.u8", "m16n8k64.e4m3", "m16n8k64.e5m2": // 0<=i<4 || 8<=i<12: groupID; firstcol = q*8 (+32 for i >= 8)
		return func(g, i int) int { return g + 8*((i/4)%2) }, func(q, i int) int { return q*8 + 32*(i/8) }, 8
	case "m16n8k64.s4", "m16n8k64.u4": // i < 8: groupID; else +8; firstcol = q*16
		return func(g, i int) int { return g + 8*(i/8) }, func(q, i int) int { return q * 16 }, 16
	case "m16n8k128.s4", "m16n8k128.u4": // 0<=i<8 || 16<=i<24: groupID; firstcol = q*16 (+64 for i >= 16)
		return func(g, i int) int { return g + 8*((i/8)%2) }, func(q, i int) int { return q*16 + 64*(i/16) }, 16
	}
	return nil, nil, 0
}

// refSparseB: B of the mma.sp forms, the dense B pattern of the type over
// the logical K (f16 m16n8k32: rows 2q, 2q+1 of each block of 8 in register
// i/2; tf32: row q + 4i; 8-bit: rows 4q..4q+3 of each block of 16; 4-bit:
// rows 8q..8q+7 of each block of 32).
func refSparseB(a string) refLayout {
	switch a {
	case "f16", "bf16":
		return func(g, q, v int) (int, int) { return 2*q + v%2 + 8*(v/2), g }
	case "tf32":
		return func(g, q, v int) (int, int) { return q + 4*v, g }
	case "s4", "u4":
		return func(g, q, v int) (int, int) { return 8*q + v%8 + 32*(v/8), g }
	}
	return func(g, q, v int) (int, int) { return 4*q + v%4 + 16*(v/4), g }
}

// checkSparse checks an mma.sp form against the ISA's storage rules
// (9.7.14.6.1): the chunk granularity per type, the threads that supply
// metadata per shape (one: selector 0..3; a pair: 0 or 1; all four: 0), and
// the metadata layout: the nibble of chunk j of row r is bits
// 4*(j%4) (+16 for rows 8-15) of lane 4*(r%8) + j/4 (with selector 0),
// its first 2-bit index (or the whole 4-bit .tf32 field) describing the
// chunk's first stored element(s).
func checkSparse(t *testing.T, f *FragInstr) {
	t.Helper()
	w := strings.Split(f.Key, ".")
	if w[0] != "mma" || w[1] != "sp" || w[3] != "row" || w[4] != "col" {
		t.Errorf("%s: key", f.Key)
		return
	}
	shape, at := w[2], w[6]
	sp := f.Sparse
	var k int
	if _, err := fmt.Sscanf(shape, "m16n8k%d", &k); err != nil || sp.K != k {
		t.Errorf("%s: K %d", f.Key, sp.K)
		return
	}
	chunk, unit, ibits := 4, 1, 2
	switch at {
	case "tf32":
		chunk, ibits = 2, 4
		if !reflect.DeepEqual(sp.Values, []int{0b0100, 0b1110}) {
			t.Errorf("%s: values %v", f.Key, sp.Values)
		}
	case "s4", "u4":
		chunk, unit = 8, 2
	}
	threads := map[string]int{"m16n8k16.f16": 1, "m16n8k16.bf16": 1, "m16n8k8.tf32": 1,
		"m16n8k32.f16": 2, "m16n8k32.bf16": 2, "m16n8k16.tf32": 2, "m16n8k32.s8": 2, "m16n8k32.u8": 2, "m16n8k64.s4": 2, "m16n8k64.u4": 2,
		"m16n8k64.s8": 4, "m16n8k64.u8": 4, "m16n8k128.s4": 4, "m16n8k128.u4": 4, "m16n8k64.e4m3": 4, "m16n8k64.e5m2": 4}[shape+"."+at]
	if sp.Chunk != chunk || sp.Span != unit || sp.IndexBits != ibits || sp.Threads != threads || sp.Selectors != 4/max(threads, 1) {
		t.Errorf("%s: %+v, want chunk %d span %d index bits %d threads %d", f.Key, *sp, chunk, unit, ibits, threads)
		return
	}
	row, first, width := refSparseA(shape, at)
	if row == nil {
		t.Errorf("%s: no reference layout", f.Key)
		return
	}
	checkAgainst(t, f.Key, f.Operand("a"), func(g, q, i int) (int, int) { return row(g, i), first(q, i)/2 + i%(width/2) })
	checkAgainst(t, f.Key, f.Operand("b"), refSparseB(at))
	acc := func(g, q, v int) (int, int) { return g + 8*(v>>1), 2*q + (v & 1) }
	checkAgainst(t, f.Key, f.Operand("c"), acc)
	checkAgainst(t, f.Key, f.Operand("d"), acc)
	// Metadata: every index field once, where the ISA puts it.
	e := f.Operand("e")
	fields := 4 / ibits
	if e.Rows != 16 || e.Cols != k/2/unit || len(e.Elems) != e.Rows*e.Cols {
		t.Errorf("%s e: %dx%d, %d fields", f.Key, e.Rows, e.Cols, len(e.Elems))
		return
	}
	for _, el := range e.Elems {
		r, c := int(el.Row), int(el.Col)
		j, fld := c/fields, c%fields // chunk, field within its nibble
		lane, bit := 4*(r%8)+j/4, 4*(j%4)+16*(r/8)+fld*ibits
		if int(el.Lane) != lane || int(el.Reg) != 0 || int(el.Part)*ibits != bit {
			t.Errorf("%s e: field of row %d chunk %d at lane %d part %d, want lane %d bits %d", f.Key, r, j, el.Lane, el.Part, lane, bit)
			return
		}
	}
	// KCols: index i of the field of compressed column c selects logical
	// column chunk*j + unit*i + (c mod unit), j the chunk of c.
	if len(sp.KCols) != k/2 {
		t.Errorf("%s: %d kcols", f.Key, len(sp.KCols))
		return
	}
	for c, cols := range sp.KCols {
		j := c / (chunk / 2)
		if len(cols) != chunk/unit {
			t.Errorf("%s: kcols[%d] = %v", f.Key, c, cols)
			return
		}
		for i, col := range cols {
			if col != chunk*j+unit*i+c%unit {
				t.Errorf("%s: kcols[%d][%d] = %d, want %d", f.Key, c, i, col, chunk*j+unit*i+c%unit)
				return
			}
		}
	}
}

// checkMatrix8 checks an 8-bit ldmatrix/stmatrix form against the PTX ISA's
// description: ldmatrix .m16n16 gives each thread four consecutive columns
// of two rows (g and g+8) of the transposed 16x16 matrix, columns 4q..4q+3
// spread over its two registers two bytes at a time; .m8n16 gives row g,
// columns 4q..4q+3 in one register; stmatrix .m16n8 takes the m16n8
// accumulator layout (rows g, g+8; columns 2q, 2q+1) and stores the matrix
// column-major. Rows are 16 bytes; the rows of matrix j come from
// consecutive lanes starting at j times the rows per matrix.
func checkMatrix8(t *testing.T, f *FragInstr) {
	t.Helper()
	var rows, regs int
	switch f.Shape {
	case "m16n16":
		rows, regs = 16, 2
	case "m8n16", "m16n8":
		rows, regs = 8, 1
	default:
		t.Errorf("%s: unexpected shape", f.Key)
		return
	}
	trans := strings.Contains(f.Key, ".trans")
	if trans != (f.Shape != "m8n16") {
		t.Errorf("%s: .trans is mandatory for .m16n16 and .m16n8, absent for .m8n16", f.Key)
	}
	for j, o := range f.Operands {
		if o.Rows != rows || o.Cols != 16 || o.Regs != regs || o.Type != "b8" || len(o.AddrLanes) != rows || len(o.Elems) != 128*regs {
			t.Errorf("%s m%d: %dx%d %s in %d regs, %d rows, %d elems", f.Key, j, o.Rows, o.Cols, o.Type, o.Regs, len(o.AddrLanes), len(o.Elems))
			continue
		}
		for r, l := range o.AddrLanes {
			if int(l) != rows*j+r {
				t.Errorf("%s m%d: row %d from lane %d", f.Key, j, r, l)
			}
		}
		seen := map[[2]int]bool{}
		for _, e := range o.Elems {
			g, q, i := int(e.Lane)/4, int(e.Lane)%4, int(e.Part)
			k := int(e.Reg) - regs*j // register within the matrix
			// (matrix row, matrix column) as the ISA states them, then
			// the position in memory.
			var mr, mc int
			switch f.Shape {
			case "m16n16":
				mr, mc = g+8*(i/2), 4*q+2*k+i%2
			case "m8n16":
				mr, mc = g, 4*q+i
			case "m16n8":
				mr, mc = g+8*(i/2), 2*q+i%2
			}
			memRow, memCol := mr, mc
			if trans {
				memRow, memCol = mc, mr
			}
			if k < 0 || k >= regs || int(e.Row) != memRow || int(e.Col) != memCol {
				t.Errorf("%s m%d: %+v, want register %d row %d col %d", f.Key, j, e, regs*j+k, memRow, memCol)
				break
			}
			seen[[2]int{memRow, memCol}] = true
		}
		if len(seen) != rows*16 {
			t.Errorf("%s m%d: %d distinct elements, want %d", f.Key, j, len(seen), rows*16)
		}
	}
}
