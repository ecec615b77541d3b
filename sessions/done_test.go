package sessions

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"testing"
)

const bufsPTX = hdr + `
.visible .entry bufs(.param .u64 big, .param .u64 small) {
	ret;
}
`

// TestDoneFitsReplyLimit: a launch whose u8 output would render to more
// JSON than one reply may hold ends with a `done` under the limit, not a
// `limit` error: the buffers that fit come in it, the others are listed
// in omittedBuffers and `read` returns their bytes page by page.
func TestDoneFitsReplyLimit(t *testing.T) {
	for _, tc := range []struct {
		typ   string
		count int
	}{{"u8", 466 << 10}, {"s8", 466 << 10}, {"u8", 520_000}, {"s8", 600_000}, {"u8", 1 << 20}} {
		t.Run(fmt.Sprintf("%s×%d", tc.typ, tc.count), func(t *testing.T) {
			lim := Limits{}
			c := newClient(t, newManager(t, lim))
			spec := fmt.Sprintf(`{"grid":[1],"block":[1],"buffers":[{"name":"big","type":%q,"count":%d,"init":{"iota":{"start":0,"step":7}}},{"name":"small","type":"u32","count":4,"init":{"values":[1,2,3,4]}}],"params":[{"buffer":"big"},{"buffer":"small"}]}`, tc.typ, tc.count)
			c.load(bufsPTX, spec)
			c.send(map[string]any{"type": "run", "id": 2})
			if st, _ := c.state(); st.Status != "done" {
				t.Fatalf("status %s", st.Status)
			}
			typ, b := c.next()
			if typ != "done" {
				t.Fatalf("got %s, want done", trunc(b))
			}
			if max := c.s.lim.MaxReplyBytes; len(b) > max {
				t.Fatalf("done of %d bytes, over the reply limit %d", len(b), max)
			}
			var d struct {
				doneMsg
				Result struct {
					Status  string `json:"status"`
					Buffers map[string]struct {
						Values []any `json:"values"`
					} `json:"buffers"`
				} `json:"result"`
			}
			if err := json.Unmarshal(b, &d); err != nil {
				t.Fatal(err)
			}
			if sm, ok := d.Result.Buffers["small"]; !ok || fmt.Sprint(sm.Values) != "[1 2 3 4]" {
				t.Errorf("the small buffer: %+v (present %v)", sm, ok)
			}
			if big, ok := d.Result.Buffers["big"]; ok {
				// It fits: it is whole, and not listed as omitted.
				if d.BuffersOmitted || len(d.OmittedBuffers) != 0 || len(big.Values) != tc.count {
					t.Fatalf("big has %d values; buffersOmitted %v, omittedBuffers %+v", len(big.Values), d.BuffersOmitted, d.OmittedBuffers)
				}
				t.Logf("big fits: done of %d bytes", len(b))
			} else if !d.BuffersOmitted || len(d.OmittedBuffers) != 1 || d.OmittedBuffers[0] != (omittedBufferJSON{Name: "big", Type: tc.typ, Bytes: tc.count}) {
				t.Fatalf("buffersOmitted %v, omittedBuffers %+v; want big alone", d.BuffersOmitted, d.OmittedBuffers)
			}
			// Read the omitted buffer back, page by page.
			var got []byte
			for off := 0; off < tc.count; off += maxInspectBytes {
				n := min(maxInspectBytes, tc.count-off)
				c.send(map[string]any{"type": "read", "id": 3, "memory": map[string]any{"space": "global", "buffer": "big", "offset": off, "bytes": n}})
				var r readMsg
				if err := json.Unmarshal(c.expect("read"), &r); err != nil {
					t.Fatal(err)
				}
				if r.Size != tc.count || r.Memory.Offset != uint64(off) || r.Memory.Buffer != "big" {
					t.Fatalf("read at %d: %+v", off, r.Memory)
				}
				p, err := hex.DecodeString(r.Memory.Hex)
				if err != nil || len(p) != n {
					t.Fatalf("read at %d: %d bytes (%v), want %d", off, len(p), err, n)
				}
				got = append(got, p...)
			}
			for i, x := range got {
				if x != byte(7*i) {
					t.Fatalf("byte %d of big is %d, want %d", i, x, byte(7*i))
				}
			}
			// Out of range: an error, no crash.
			c.send(map[string]any{"type": "read", "id": 4, "memory": map[string]any{"space": "global", "buffer": "big", "offset": tc.count, "bytes": 1}})
			c.expectError("bad-request")
			c.send(map[string]any{"type": "read", "id": 5, "memory": map[string]any{"space": "global", "buffer": "big", "offset": 0, "bytes": maxInspectBytes + 1}})
			c.expectError("bad-request")
			c.send(map[string]any{"type": "read", "id": 6, "memory": map[string]any{"space": "global", "buffer": "nope", "offset": 0, "bytes": 1}})
			c.expectError("bad-request")
		})
	}
}

// TestDoneKeepsBuffersThatFit: a result well under the limit keeps every
// buffer, and none is listed as omitted.
func TestDoneKeepsBuffersThatFit(t *testing.T) {
	c := newClient(t, newManager(t, Limits{}))
	c.load(bufsPTX, `{"grid":[1],"block":[1],"buffers":[{"name":"big","type":"u8","count":100000},{"name":"small","type":"u32","count":4}],"params":[{"buffer":"big"},{"buffer":"small"}]}`)
	c.send(map[string]any{"type": "run", "id": 2})
	c.state()
	var d struct {
		doneMsg
		Result struct {
			Buffers map[string]json.RawMessage `json:"buffers"`
		} `json:"result"`
	}
	if err := json.Unmarshal(c.expect("done"), &d); err != nil {
		t.Fatal(err)
	}
	if d.BuffersOmitted || d.OmittedBuffers != nil || len(d.Result.Buffers) != 2 {
		t.Errorf("buffersOmitted %v, omitted %+v, %d buffers; want both buffers", d.BuffersOmitted, d.OmittedBuffers, len(d.Result.Buffers))
	}
}

// A state that is not sent (over the reply cap: replaced by an error
// limit) held deltas against the client's view; the next state is whole,
// with the whole line-memory table, so the client catches up exactly.
func TestLostStateResyncs(t *testing.T) {
	c := newClient(t, newManager(t, Limits{}))
	c.load(reducePTX, reduceSpec)
	c.send(map[string]any{"type": "step", "id": 2, "granularity": "warp", "count": 40})
	if st, _ := c.state(); st.Full && st.LineMemory != nil {
		t.Fatalf("an ordinary step's state is whole: full %v, lineMemory %v", st.Full, st.LineMemory != nil)
	}
	var keep int
	c.do(func() { keep = c.s.lim.MaxReplyBytes; c.s.lim.MaxReplyBytes = 64 })
	c.send(map[string]any{"type": "step", "id": 3, "granularity": "warp", "count": 40})
	if e := c.expectError("limit"); e.ID == nil || *e.ID != 3 {
		t.Fatalf("the over-size state: %+v", e)
	}
	c.do(func() { c.s.lim.MaxReplyBytes = keep })
	c.send(map[string]any{"type": "step", "id": 4, "granularity": "warp", "count": 1})
	st, _ := c.state()
	if !st.Full || st.LineMemory == nil {
		t.Fatalf("the state after a lost one: full %v, whole line-memory table %v; want both", st.Full, st.LineMemory != nil)
	}
}
