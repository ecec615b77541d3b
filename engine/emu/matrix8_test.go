package emu

import (
	"encoding/binary"
	"fmt"
	"math/rand"
	"strings"
	"testing"
)

// matrix8Kernel: every thread copies 16 bytes of pin into the shared array
// sm (512 bytes), points its address at row perm(lane) = lane*7%32 of sm,
// and runs %[1]s on the vector {%x0..%x3}. ld: the registers are then
// stored at pout[16*lane+4*j]; st: they are first loaded from
// pin[512+16*lane+4*j], and sm is copied to pout after the store.
const matrix8Kernel = `
.visible .entry k(.param .u64 pin, .param .u64 pout) {
	.reg .b32 %%x<4>; .reg .u32 %%t, %%s, %%v; .reg .u64 %%rd<8>;
	.shared .align 16 .b8 sm[512];
	ld.param.u64 %%rd1, [pin];
	ld.param.u64 %%rd2, [pout];
	mov.u32 %%t, %%tid.x;
	mul.wide.u32 %%rd3, %%t, 16;
	add.u64 %%rd4, %%rd1, %%rd3;
	ld.global.v4.u32 {%%x0, %%x1, %%x2, %%x3}, [%%rd4];
	mov.u32 %%s, sm;
	mad.lo.u32 %%v, %%t, 16, %%s;
	st.shared.v4.u32 [%%v], {%%x0, %%x1, %%x2, %%x3};
	ld.global.v4.u32 {%%x0, %%x1, %%x2, %%x3}, [%%rd4+512];
	bar.sync 0;
	mul.lo.u32 %%v, %%t, 7;
	rem.u32 %%v, %%v, 32;
	mad.lo.u32 %%v, %%v, 16, %%s;
	%[1]s
	bar.sync 0;
	add.u64 %%rd5, %%rd2, %%rd3;
	%[2]s
	st.global.v4.u32 [%%rd5], {%%x0, %%x1, %%x2, %%x3};
	ret;
}
`

// runMatrix8 runs instr (its address operand [%v], its vector {%x0..})
// and returns pout (512 bytes).
func runMatrix8(t *testing.T, instr string, in []byte, store bool) []byte {
	t.Helper()
	after := ""
	if store {
		after = "mad.lo.u32 %v, %t, 16, %s;\n\tld.shared.v4.u32 {%x0, %x1, %x2, %x3}, [%v];"
	}
	src := memHdr + fmt.Sprintf(matrix8Kernel, instr, after)
	src = strings.Replace(src, ".target sm_90", ".target sm_100a", 1)
	a := memRun(t, src, 32, in, make([]byte, 512))
	return a[1].Data
}

func vecRegs(n int) string {
	return "{" + strings.Join([]string{"%x0", "%x1", "%x2", "%x3"}[:n], ", ") + "}"
}

// unpackRef returns element k (0..15) of a packed 16-byte row: bits
// consecutive bits from bit k*bits of the row read as a little-endian
// number (8: byte k).
func unpackRef(row []byte, bits, k int) byte {
	v := 0
	for b := 0; b < bits; b++ {
		p := k*bits + b
		v |= int(row[p/8]>>(p%8)&1) << b
	}
	return byte(v)
}

// TestLdmatrix8 checks every 8-bit and packed ldmatrix form against the
// layout the PTX ISA describes, computed here from it: the rows are at the
// addresses of consecutive lanes (16 per .m16n16 matrix, 8 per .m8n16
// matrix); .m16n16 is transposed and gives lane 4g+q four consecutive
// columns (4q..4q+3) of rows g and g+8 of the transposed matrix, two
// columns per register; .m8n16 gives row g, columns 4q..4q+3.
func TestLdmatrix8(t *testing.T) {
	rng := rand.New(rand.NewSource(8))
	in := make([]byte, 1024)
	rng.Read(in)
	memRow := func(l int) []byte { v := l * 7 % 32; return in[16*v : 16*v+16] } // the row lane l points at
	type form struct {
		shape, src string
		nums       []int
	}
	n := 0
	for _, f := range []form{
		{"m16n16", "b8", []int{1, 2}},
		{"m16n16", "b8x16.b6x16_p32", []int{1, 2}},
		{"m16n16", "b8x16.b4x16_p64", []int{1, 2}},
		{"m8n16", "b8x16.b6x16_p32", []int{1, 2, 4}},
		{"m8n16", "b8x16.b4x16_p64", []int{1, 2, 4}},
	} {
		bits := map[string]int{"b8": 8, "b8x16.b6x16_p32": 6, "b8x16.b4x16_p64": 4}[f.src]
		for _, num := range f.nums {
			regs, trans, rowsPer := num, "", 8
			if f.shape == "m16n16" {
				regs, trans, rowsPer = 2*num, ".trans", 16
			}
			for _, ss := range []string{".shared", ".shared::cta"} {
				instr := fmt.Sprintf("ldmatrix.sync.aligned.%s.x%d%s%s.%s %s, [%%v];", f.shape, num, trans, ss, f.src, vecRegs(regs))
				out := runMatrix8(t, instr, in, false)
				for l := 0; l < 32; l++ {
					g, q := l/4, l%4
					for r := 0; r < regs; r++ {
						for i := 0; i < 4; i++ {
							var j, mr, mc int // matrix, and row/column of its rows in memory
							if f.shape == "m16n16" {
								j = r / 2
								col := 4*q + 2*(r%2) + i%2 // of the transposed matrix
								mr, mc = col, g+8*(i/2)
							} else {
								j, mr, mc = r, g, 4*q+i
							}
							want := unpackRef(memRow(rowsPer*j+mr), bits, mc)
							if got := out[16*l+4*r+i]; got != want {
								t.Fatalf("%s: lane %d reg %d byte %d = %02x, want %02x (matrix %d row %d col %d)", instr, l, r, i, got, want, j, mr, mc)
							}
						}
					}
					for r := regs; r < 4; r++ { // untouched registers keep pin[512+...]
						if got, want := binary.LittleEndian.Uint32(out[16*l+4*r:]), binary.LittleEndian.Uint32(in[512+16*l+4*r:]); got != want {
							t.Fatalf("%s: lane %d register %d changed", instr, l, r)
						}
					}
				}
				n++
			}
		}
	}
	if n != 24 {
		t.Errorf("%d forms run", n)
	}
}

// TestStmatrix8 checks stmatrix .m16n8 .trans .b8: lane 4g+q holds, in
// register j, elements (g, 2q), (g, 2q+1), (g+8, 2q), (g+8, 2q+1) of the
// 16x8 matrix j, which is stored column-major: column c as 16 bytes at the
// address of lane 8j+c. Then ldmatrix .m16n16 .trans .b8 of those rows
// must give back a consistent layout, and a round trip through
// ldmatrix.m8n16 .b8x16.b4x16_p64 checks the packed unpacking of stored
// nibbles.
func TestStmatrix8(t *testing.T) {
	rng := rand.New(rand.NewSource(9))
	in := make([]byte, 1024)
	rng.Read(in)
	for _, num := range []int{1, 2, 4} {
		instr := fmt.Sprintf("stmatrix.sync.aligned.m16n8.x%d.trans.shared.b8 [%%v], %s;", num, vecRegs(num))
		out := runMatrix8(t, instr, in, true)
		written := map[int]bool{}
		for l := 0; l < 32; l++ {
			g, q := l/4, l%4
			for j := 0; j < num; j++ {
				for i := 0; i < 4; i++ {
					row, col := g+8*(i/2), 2*q+i%2 // of matrix j
					v := (8*j + col) * 7 % 32      // the row of sm that lane 8j+col points at
					want := in[512+16*l+4*j+i]
					if got := out[16*v+row]; got != want {
						t.Fatalf("%s: matrix %d (%d,%d) = %02x at sm row %d byte %d, want %02x", instr, j, row, col, got, v, row, want)
					}
					written[16*v+row] = true
				}
			}
		}
		for b := 0; b < 512; b++ { // the other rows keep what pin put there
			if !written[b] && out[b] != in[b] {
				t.Fatalf("%s: byte %d of sm changed", instr, b)
			}
		}
	}
	// Round trip: stmatrix .m16n8.x4 then ldmatrix .m16n16.x2 of the same
	// rows (lanes 0..31 point at the same rows in both) transposes back:
	// the register bytes of the load are a permutation of the stored ones
	// given by the two layouts.
	both := "stmatrix.sync.aligned.m16n8.x4.trans.shared.b8 [%v], {%x0, %x1, %x2, %x3};\n\tbar.sync 0;\n\tldmatrix.sync.aligned.m16n16.x2.trans.shared.b8 {%x0, %x1, %x2, %x3}, [%v];"
	out := runMatrix8(t, both, in, false)
	// element at (memory row R of lane R, byte c): stored by stmatrix
	// matrix R/8, column R%8, matrix row c: lane 4*(c%8)+(R%8)/2, register
	// R/8, byte (R%8)%2 + 2*(c/8).
	stored := func(R, c int) byte {
		return in[512+16*(4*(c%8)+(R%8)/2)+4*(R/8)+(R%8)%2+2*(c/8)]
	}
	for l := 0; l < 32; l++ {
		g, q := l/4, l%4
		for r := 0; r < 4; r++ {
			for i := 0; i < 4; i++ {
				R := 16*(r/2) + 4*q + 2*(r%2) + i%2
				c := g + 8*(i/2)
				if got, want := out[16*l+4*r+i], stored(R, c); got != want {
					t.Fatalf("round trip: lane %d reg %d byte %d = %02x, want %02x", l, r, i, got, want)
				}
			}
		}
	}
}
