package launch

import (
	"math/rand"
	"testing"

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
