package sessions

import (
	"encoding/json"
	"math/rand"
	"reflect"
	"strings"
	"testing"

	"github.com/ptxplayground/ptxplay/engine/emu"
	"github.com/ptxplayground/ptxplay/engine/isa"
)

// tmaViewPTX: thread 0 loads three 64x8 boxes of a 64x64 f16 tensor with
// the 128-byte swizzle (at x = 32: half of each row out of bounds; the
// last at y = 60: half of its rows too) into buf, one at a time on one
// mbarrier; the warp waits for each.
const tmaViewPTX = `.version 8.0
.target sm_90
.address_size 64
.visible .entry tmaview(.param .u64 tmptr, .param .u64 out) {
	.reg .u32 %r<16>; .reg .u64 %rd<8>; .reg .pred %p<4>;
	.shared .align 1024 .b8 buf[1024];
	.shared .align 8 .b64 bar;
	ld.param.u64 %rd2, [tmptr];
	mov.u32 %r1, %tid.x;
	setp.ne.u32 %p1, %r1, 0;
	@%p1 bra INITED;
	mbarrier.init.shared.b64 [bar], 1;
INITED:
	bar.sync 0;
	mov.u32 %r5, 0;
	mov.u32 %r2, 32;
LOOP:
	mul.lo.u32 %r3, %r5, 30;
	@!%p1 mbarrier.arrive.expect_tx.shared.b64 %rd3, [bar], 1024;
	@!%p1 cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [buf], [%rd2, {%r2, %r3}], [bar];
	and.b32 %r6, %r5, 1;
WAIT:
	mbarrier.try_wait.parity.shared.b64 %p2, [bar], %r6;
	@!%p2 bra WAIT;
	bar.sync 0;
	add.u32 %r5, %r5, 1;
	setp.lt.u32 %p3, %r5, 3;
	@%p3 bra LOOP;
	ret;
}`

const tmaViewSpec = `{"grid":[1],"block":[64],"buffers":[{"name":"a","type":"f16","count":4096,"init":{"iota":{}}},{"name":"out","type":"u32","count":1}],
"params":[{"tensorMap":{"buffer":"a","dataType":"f16","globalDim":[64,64],"globalStrides":[128],"boxDim":[64,8],"elementStrides":[1,1],"interleave":"none","swizzle":"128B","oobFill":"zero"}},{"buffer":"out"}]}`

// The TMA view on the wire: before the first copy there is none; at the
// copy it is the selected warp's next instruction with its operands, the
// map's fields, the box (half of each row out of bounds) and the tile in
// shared memory; after it, the CTA's last copy; the third copy's box has
// its last four rows wholly out of bounds.
func TestTMAViewOnTheWire(t *testing.T) {
	c := newClient(t, newManager(t, Limits{}))
	st := c.load(tmaViewPTX, tmaViewSpec)
	if st.TMA == nil || st.TMA.Source != "none" {
		t.Fatalf("the first state's TMA view: %+v", st.TMA)
	}
	var held tmaJSON
	var seen []tmaJSON
	for range 400 {
		st = c.step("warp", 1)
		if st.TMA != nil {
			held = *st.TMA
			seen = append(seen, held)
		}
		if st.Status == "done" {
			break
		}
	}
	var next, last, third *tmaJSON
	for i := range seen {
		v := &seen[i]
		switch {
		case v.Source == "next" && next == nil:
			next = v
		case v.Source == "last" && last == nil:
			last = v
		}
		if len(v.Coords) == 2 && v.Coords[1] == 60 {
			third = v
		}
	}
	if next == nil || last == nil || third == nil {
		t.Fatalf("views seen: %+v", seen)
	}
	if next.Direction != "load" || next.Line != 20 || next.Op != "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes" || next.Warp != 0 || next.Lane != 0 ||
		!reflect.DeepEqual(next.Coords, []int32{32, 0}) || next.Mbarrier == "" || next.Multicast != "" || next.Error != "" {
		t.Fatalf("next: %+v", next)
	}
	mp := next.Map
	if mp == nil || mp.DataType != "f16" || mp.Buffer != "a" || mp.BufferOffset != 0 || !reflect.DeepEqual(mp.GlobalDim, []uint64{64, 64}) ||
		!reflect.DeepEqual(mp.GlobalStrides, []uint64{128}) || !reflect.DeepEqual(mp.BoxDim, []uint32{64, 8}) || mp.Swizzle != "128B" ||
		mp.SwizzleAtom != "16B" || mp.Interleave != "none" || mp.OOBFill != "zero" {
		t.Fatalf("map: %+v", mp)
	}
	b := next.Box
	if b == nil || b.Bytes != 1024 || b.Elements != 512 || b.OOB != 256 || len(b.Rows) != 8 || b.X[0] != 32 || b.X[63] != 95 ||
		b.Rows[3].InLo != 0 || b.Rows[3].InHi != 32 || b.Rows[3].Coords[0] != 3 {
		t.Fatalf("box: %+v", b)
	}
	tl := next.Tile
	if tl == nil || tl.Mode != "128B" || tl.Atom != "16B" || tl.RowBytes != 128 || tl.Rows != 8 || tl.Base != next.SharedOffset || tl.Bytes != 1024 {
		t.Fatalf("tile: %+v", tl)
	}
	if third.Box.OOB != 512-4*32 || third.Box.Rows[4].InHi != 0 || third.Box.Rows[3].InHi != 32 || third.Box.Rows[7].Coords[0] != 67 {
		t.Fatalf("third box: %+v", third.Box)
	}
}

// The TMA view is exact at every position: after random steps, backs and
// seeks it is what a fresh run stepped to the same position shows.
func TestTMAViewBackSeekExact(t *testing.T) {
	for _, sched := range []string{"independent", "simt-stack"} {
		t.Run(sched, func(t *testing.T) {
			spec := strings.Replace(tmaViewSpec, "{", `{"scheduling":"`+sched+`",`, 1)
			// The fresh run: every position's view.
			f := newClient(t, newManager(t, Limits{}))
			st := f.load(tmaViewPTX, spec)
			want := map[int64][]byte{}
			held := st.TMA
			want[st.Step], _ = json.Marshal(held)
			for range 2000 {
				st = f.step("warp", 1)
				if st.TMA != nil {
					held = st.TMA
				}
				want[st.Step], _ = json.Marshal(held)
				if st.Status == "done" {
					break
				}
			}
			c := newClient(t, newManager(t, Limits{}))
			st = c.load(tmaViewPTX, spec)
			c.do(func() { c.s.h.interval, c.s.h.jobInterval = 8, 32 })
			held = st.TMA
			rnd := rand.New(rand.NewSource(3))
			kinds := map[string]int{}
			for i := 0; i < 300; i++ {
				switch k := rnd.Intn(5); {
				case k < 2:
					c.send(map[string]any{"type": "step", "granularity": "warp", "count": 1 + rnd.Intn(12)})
					kinds["step"]++
				case k < 4 && st.Step > 0:
					c.send(map[string]any{"type": "back", "granularity": "warp", "count": 1 + rnd.Intn(10)})
					kinds["back"]++
				default:
					c.send(map[string]any{"type": "seek", "step": st.FirstStep + rnd.Int63n(st.Steps-st.FirstStep)})
					kinds["seek"]++
				}
				st = c.stateSkipDone()
				if st.TMA != nil {
					held = st.TMA
				}
				got, _ := json.Marshal(held)
				w, ok := want[st.Step]
				if !ok {
					t.Fatalf("step %d is not a position of the fresh run", st.Step)
				}
				if string(got) != string(w) {
					t.Fatalf("at step %d (after %v): the view is\n%s\nwant\n%s", st.Step, kinds, got, w)
				}
			}
			if kinds["back"] == 0 || kinds["seek"] == 0 {
				t.Fatalf("ran %v", kinds)
			}
		})
	}
}

// The box the view lists is the one emu.TMAPlaceTile places: the same
// out-of-bounds count and, row by row, the same in-bounds elements, for
// random maps (ranks 1-5, element strides, interleave) and coordinates.
func TestTMABoxMatchesPlacement(t *testing.T) {
	rnd := rand.New(rand.NewSource(5))
	checked := 0
	for n := 0; n < 3000 && checked < 400; n++ {
		m := isa.TensorMap{Rank: 1 + rnd.Intn(5), ElemType: isa.TensorF16}
		if rnd.Intn(3) == 0 {
			m.ElemType = isa.TensorF32
			m.Interleave = isa.Interleave32B
		}
		stride := uint64(0)
		for d := 0; d < m.Rank; d++ {
			m.GlobalDim[d] = uint64(1 + rnd.Intn(20))
			m.BoxDim[d] = uint32(1 + rnd.Intn(12))
			m.ElementStrides[d] = uint32(1 + rnd.Intn(3))
			if d == 0 {
				m.BoxDim[0] = 8 * uint32(1+rnd.Intn(4))
				stride = m.GlobalDim[0] * uint64(m.ElemType.Bytes())
				stride = (stride + 15) &^ 15
			} else {
				m.GlobalStrides[d-1] = stride
				stride *= m.GlobalDim[d]
			}
		}
		if m.Validate() != nil {
			continue
		}
		coords := make([]int32, m.Rank)
		for d := range coords {
			coords[d] = int32(rnd.Intn(30) - 10)
		}
		p, err := emu.TMAPlaceTile(m, coords, 0)
		if err != nil {
			continue
		}
		checked++
		b := tmaBoxJSON(m, coords)
		oob := 0
		for _, e := range p.Elements {
			if e.OOB {
				oob++
			}
		}
		if b.OOB != oob || b.Elements != len(p.Elements) || b.Bytes != p.TxBytes {
			t.Fatalf("map %+v at %v: box %+v, placement %d elements %d OOB %d bytes", m, coords, b, len(p.Elements), oob, p.TxBytes)
		}
		n0 := p.Box[0]
		for r, row := range b.Rows {
			for i := 0; i < n0; i++ {
				e := p.Elements[r*n0+i]
				in := i >= row.InLo && i < row.InHi
				if in == e.OOB || e.Coord[0] != b.X[i] {
					t.Fatalf("map %+v at %v: row %d element %d: listed in bounds %v at x %d, placed %+v", m, coords, r, i, in, b.X[i], e)
				}
				for d := 1; d < m.Rank; d++ {
					if e.Coord[d] != row.Coords[d-1] {
						t.Fatalf("map %+v at %v: row %d coordinates %v, placed %v", m, coords, r, row.Coords, e.Coord)
					}
				}
			}
		}
	}
	if checked < 100 {
		t.Fatalf("only %d maps checked", checked)
	}
}

// stateSkipDone reads the next settled state, skipping "done" messages.
func (c *client) stateSkipDone() stateMsg {
	c.t.Helper()
	for {
		typ, b := c.next()
		if typ == "done" {
			continue
		}
		if typ != "state" {
			c.t.Fatalf("got %s %s, want state", typ, trunc(b))
		}
		var st stateMsg
		if err := json.Unmarshal(b, &st); err != nil {
			c.t.Fatal(err)
		}
		if !st.Running {
			return st
		}
	}
}
