package isa

import (
	"encoding/json"
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
		switch f.Op {
		case "mma":
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
		case "ldmatrix", "stmatrix":
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
	if b, _ := json.Marshal(m); strings.Contains(string(b), "addrLanes") {
		t.Error("mma operands have addrLanes")
	}
}
