package launch

import (
	"errors"
	"fmt"
	"math/rand"
	"testing"

	"github.com/ptxplayground/ptxplay/engine/emu"
	"github.com/ptxplayground/ptxplay/engine/isa"
)

// TestBufferJSONSize: a buffer's JSONSize is exactly the bytes its member
// takes in the result JSON, for every element type and length, and it
// stops (ok false) as soon as a limit below that is passed.
func TestBufferJSONSize(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for _, tc := range []struct {
		typ  string
		elem isa.Type
	}{{"u8", isa.U8}, {"s8", isa.S8}, {"f32", isa.F32}, {"f64", isa.F64}} {
		for _, n := range []int{0, 1, 4095, 4096, 4097, 20000} {
			data := make([]byte, n*tc.elem.Size())
			rng.Read(data)
			d := BufferData{Name: "buf", Type: tc.typ, Data: data, elem: tc.elem}
			empty := (&Result{Status: "ok"}).AppendJSON(nil, false)
			full := (&Result{Status: "ok", Buffers: []BufferData{d}}).AppendJSON(nil, false)
			want := len(full) - len(empty)
			got, ok := d.JSONSize(want)
			if !ok || got != want {
				t.Errorf("%s × %d: JSONSize(%d) = %d, %v; want %d, true", tc.typ, n, want, got, ok, want)
			}
			if _, ok := d.JSONSize(want - 1); ok {
				t.Errorf("%s × %d: JSONSize(%d) fits a member of %d bytes", tc.typ, n, want-1, want)
			}
		}
	}
}

// TestWriteJSONStreams: WriteJSON's bytes are AppendJSON's and a newline,
// indented and compact, for results of several buffers that it writes in
// many pieces (none much larger than spillBytes past the 4,096 elements
// between spills); after a failed write it writes nothing more and returns
// that error.
func TestWriteJSONStreams(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	var bufs []BufferData
	for i, tc := range []struct {
		typ  string
		elem isa.Type
		n    int
	}{{"f64", isa.F64, 70000}, {"u8", isa.U8, 3}, {"f32", isa.F32, 50001}, {"s64", isa.S64, 0}, {"u32", isa.U32, 9000}} {
		data := make([]byte, tc.n*tc.elem.Size())
		rng.Read(data)
		bufs = append(bufs, BufferData{Name: string(rune('a' + i)), Type: tc.typ, Data: data, elem: tc.elem})
	}
	r := &Result{Status: "ok", Buffers: bufs, Checked: true, Stats: emu.Stats{WarpInstructions: 7, ThreadInstructions: 224}}
	for _, indent := range []bool{false, true} {
		want := append(r.AppendJSON(nil, indent), '\n')
		var w pieces
		if err := r.WriteJSON(&w, indent); err != nil {
			t.Fatal(err)
		}
		if got := w.all(); string(got) != string(want) {
			t.Fatalf("indent %v: WriteJSON wrote %d bytes unlike AppendJSON's %d", indent, len(got), len(want))
		}
		if len(w.sizes) < 10 {
			t.Errorf("indent %v: %d bytes in %d writes; want them spilled as they are made", indent, len(want), len(w.sizes))
		}
		for _, n := range w.sizes {
			if n > spillBytes+4096*26 {
				t.Errorf("indent %v: a write of %d bytes", indent, n)
			}
		}
		f := pieces{failAt: 3}
		if err := r.WriteJSON(&f, indent); err != errPieces {
			t.Errorf("indent %v: WriteJSON to a failing writer returned %v", indent, err)
		}
		if len(f.sizes) != 3 {
			t.Errorf("indent %v: %d writes; want none after the failed third", indent, len(f.sizes))
		}
	}
}

var errPieces = errors.New("pieces: failed")

// pieces records each write; the failAt-th write (from 1) fails.
type pieces struct {
	data   [][]byte
	sizes  []int
	failAt int
}

func (p *pieces) Write(b []byte) (int, error) {
	p.sizes = append(p.sizes, len(b))
	if len(p.sizes) == p.failAt {
		return 0, errPieces
	}
	p.data = append(p.data, append([]byte(nil), b...))
	return len(b), nil
}

func (p *pieces) all() []byte {
	var b []byte
	for _, d := range p.data {
		b = append(b, d...)
	}
	return b
}

// TestBufferJSONElements: every element type's buffer prints each
// element as appendValueJSON and appendBitsHex print it (the 32-bit
// elements take a direct path), the awkward values included.
func TestBufferJSONElements(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	types := []isa.Type{isa.U8, isa.S8, isa.B8, isa.U16, isa.S16, isa.B16, isa.F16, isa.BF16,
		isa.U32, isa.S32, isa.B32, isa.F32, isa.TF32, isa.F16x2, isa.BF16x2, isa.U16x2, isa.S16x2,
		isa.U64, isa.S64, isa.B64, isa.F64}
	for _, ty := range types {
		size := ty.Size()
		data := make([]byte, 64*size)
		rng.Read(data)
		for i, x := range []uint64{0, 1, ^uint64(0), 0x7f800000, 0xff800000, 0x7fc00001, 0x80000000, 0x7fffffff} {
			putElem(data, i, size, x)
		}
		d := BufferData{Name: "x", Type: ty.String(), Data: data, elem: ty}
		var j jsonWriter
		j.first = []bool{true}
		d.writeJSON(&j, nil)
		var want []byte
		want = fmt.Appendf(want, `"x":{"type":%q,"values":[`, ty.String())
		for i := range d.Len() {
			if i > 0 {
				want = append(want, ',')
			}
			want = appendValueJSON(want, d.Bits(i), ty)
		}
		want = append(want, `],"bits":[`...)
		for i := range d.Len() {
			if i > 0 {
				want = append(want, ',')
			}
			want = append(appendBitsHex(append(want, '"'), d.Bits(i), ty), '"')
		}
		want = append(want, "]}"...)
		if string(j.b) != string(want) {
			t.Errorf("%s:\n%s\nwant\n%s", ty, j.b, want)
		}
	}
}
