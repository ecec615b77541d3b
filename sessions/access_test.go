package sessions

import (
	"encoding/json"
	"fmt"
	"testing"
)

// stepToOp steps warp-instructions until the last instruction is op
// (with accesses), at most limit steps.
func stepToOp(t *testing.T, c *client, op string, limit int) stateMsg {
	t.Helper()
	for i := 0; i < limit; i++ {
		st := c.step("warp", 1)
		if st.Last != nil && st.Last.Op == op && len(st.Last.Accesses) > 0 {
			return st
		}
		if st.Status != "paused" {
			t.Fatalf("stopped (%s) before a %s", st.Status, op)
		}
	}
	t.Fatalf("no %s in %d steps", op, limit)
	return stateMsg{}
}

// TestTransposeBanks: the state after the transpose's column read
// (ld.shared.f32 of tile[tx][ty+j]) carries the exact offset of every
// lane and the bank model's verdict: in the 32x32 tile all 32 lanes read
// bank j (stride 32 words), one lane per wavefront, a 32-way conflict; in
// the padded tile (stride 33) and the XOR-swizzled one every lane has its
// own bank, one wavefront.
// The row-wise store before it and the global loads are checked too.
func TestTransposeBanks(t *testing.T) {
	exs := map[string]example{}
	for _, ex := range galleryExamples(t) {
		exs[ex.name] = ex
	}
	for _, tc := range []struct {
		name string
		word func(l, w uint64) uint64 // the word lane l of warp w reads
		wave int
	}{
		{"transpose", func(l, w uint64) uint64 { return 32*l + w }, 32},
		{"transpose-padded", func(l, w uint64) uint64 { return 1024 + 33*l + w }, 1},
		{"transpose-swizzled", func(l, w uint64) uint64 { return 32*l + (w ^ l) }, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ex, ok := exs[tc.name]
			if !ok {
				t.Fatalf("no gallery example %q", tc.name)
			}
			c := newClient(t, newManager(t, Limits{}))
			c.load(ex.src, ex.spec)

			// The first global load of a warp w: in[w*32 + tx], 128
			// contiguous bytes, 4 sectors in one line.
			st := stepToOp(t, c, "ld.global.f32", 400)
			g := st.Last.Accesses[0]
			if g.Space != "global" || g.Buffer != "in" || g.Kind != "load" || g.Global == nil ||
				g.Global.Sectors != 4 || g.Global.Lines != 1 || g.Global.Requested != 128 || g.Global.Moved != 128 || g.Global.Efficiency != 1 {
				t.Fatalf("global load %s", js(g))
			}
			for l := range 32 {
				if g.Offsets[l] == nil || *g.Offsets[l] != uint64(4*(32*st.Last.Warp+l)) {
					t.Fatalf("global load lane %d offset %v", l, g.Offsets[l])
				}
			}

			// The row store: lane tx writes word row*stride' + tx, 32
			// banks once each.
			st = stepToOp(t, c, "st.shared.f32", 400)
			s := st.Last.Accesses[0]
			if s.Kind != "store" || s.Space != "shared" || s.CTA == nil || *s.CTA != 0 || s.Shared == nil ||
				s.Shared.Wavefronts != 1 || s.Shared.Ideal != 1 || s.Shared.Conflict != "0" {
				t.Fatalf("row store %s", js(s))
			}

			// The column read (after the barrier, the first warp to run).
			st = stepToOp(t, c, "ld.shared.f32", 2000)
			if len(st.Last.Accesses) != 1 || st.Last.AccessesOmitted != 0 {
				t.Fatalf("column read: %d accesses (%d omitted)", len(st.Last.Accesses), st.Last.AccessesOmitted)
			}
			a := st.Last.Accesses[0]
			v := a.Shared
			if a.Kind != "load" || a.Size != 4 || a.Lanes != "ffffffff" || v == nil || v.Wavefronts != tc.wave || v.Ideal != 1 {
				t.Fatalf("column read %s", js(a))
			}
			// Warp w's lanes read column ty+j = w (j = 0): word
			// tx*32 + w, tx*33 + w in the padded tile (at byte 4096),
			// tx*32 + (w ^ tx) swizzled.
			w := uint64(st.Last.Warp)
			banks := map[int]bool{}
			for l := range 32 {
				want := 4 * tc.word(uint64(l), w)
				if a.Offsets[l] == nil || *a.Offsets[l] != want {
					t.Fatalf("lane %d offset %v, want %d", l, a.Offsets[l], want)
				}
				if v.Banks[l] != int(want/4%32) {
					t.Fatalf("lane %d bank %d, want %d", l, v.Banks[l], want/4%32)
				}
				banks[v.Banks[l]] = true
				wantWave := 0
				if tc.wave == 32 {
					wantWave = l
				}
				if v.Waves[l] != wantWave {
					t.Fatalf("lane %d wavefront %d, want %d", l, v.Waves[l], wantWave)
				}
			}
			switch tc.wave {
			case 32:
				if len(banks) != 1 || v.Conflict != "ffffffff" {
					t.Fatalf("stride 32: banks %v, conflict %s", banks, v.Conflict)
				}
			case 1:
				if len(banks) != 32 || v.Conflict != "0" {
					t.Fatalf("stride 33: %d banks, conflict %s", len(banks), v.Conflict)
				}
			}

			// Back and forth: the step back shows the instruction before,
			// the step forward the column read again, exactly.
			c.send(map[string]any{"type": "back", "granularity": "warp", "count": 1})
			back, _ := c.state()
			if back.Last == nil || back.Last.Op == "ld.shared.f32" {
				t.Fatalf("after back: last %s", js(back.Last))
			}
			c.send(map[string]any{"type": "seek", "step": st.Step})
			again, _ := c.state()
			if js(again.Last) != js(st.Last) {
				t.Fatalf("after seek: last %s, want %s", js(again.Last), js(st.Last))
			}
		})
	}
}

func js(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// TestAccessesSplitByBuffer: a warp access whose lanes fall in two global
// buffers comes as one entry per buffer, each with its lanes' offsets and
// its own sectors.
func TestAccessesSplitByBuffer(t *testing.T) {
	const src = hdr + `
.visible .entry two(.param .u64 a, .param .u64 b) {
	.reg .u32 %r<4>; .reg .u64 %rd<6>; .reg .pred %p;
	ld.param.u64 %rd1, [a];
	ld.param.u64 %rd2, [b];
	mov.u32 %r1, %tid.x;
	and.b32 %r2, %r1, 1;
	setp.eq.u32 %p, %r2, 1;
	selp.b64 %rd3, %rd2, %rd1, %p;
	mul.wide.u32 %rd4, %r1, 4;
	add.u64 %rd5, %rd3, %rd4;
	ld.global.u32 %r3, [%rd5];
	ret;
}
`
	c := newClient(t, newManager(t, Limits{}))
	c.load(src, `{"block":[32],"buffers":[{"name":"a","type":"u32","count":32},{"name":"b","type":"u32","count":32}],"params":[{"buffer":"a"},{"buffer":"b"}]}`)
	st := stepToOp(t, c, "ld.global.u32", 20)
	if len(st.Last.Accesses) != 2 {
		t.Fatalf("accesses %s", js(st.Last.Accesses))
	}
	for i, want := range []struct {
		buf   string
		lanes string
	}{{"a", "55555555"}, {"b", "aaaaaaaa"}} {
		a := st.Last.Accesses[i]
		if a.Buffer != want.buf || a.Lanes != want.lanes || a.Global == nil || a.Global.Sectors != 4 || a.Global.Requested != 64 {
			t.Fatalf("access %d: %s", i, js(a))
		}
		for l := range 32 {
			in := (l%2 == 1) == (want.buf == "b")
			if in != (a.Offsets[l] != nil) || (in && *a.Offsets[l] != uint64(4*l)) {
				t.Fatalf("access %d lane %d: offset %v", i, l, a.Offsets[l])
			}
		}
	}
}

// TestPeerSharedAccess: a store through distributed shared memory
// (st.shared::cluster to the peer CTA's tile, in the dsmem-exchange
// lesson) is reported in the peer's shared memory: the last access names
// the peer CTA (linear), the state carries the bytes it wrote there, and
// the CTAs carry their cluster and rank.
func TestPeerSharedAccess(t *testing.T) {
	ex := exampleNamed(t, "dsmem-exchange")
	c := newClient(t, newManager(t, Limits{}))
	c.load(ex.src, ex.spec)
	st := stepToOp(t, c, "st.shared::cluster.u32", 400)
	exec := st.Last.Linear
	a := st.Last.Accesses[0]
	if a.Space != "shared" || a.Kind != "store" || a.CTA == nil || *a.CTA != 1-exec {
		t.Fatalf("CTA %d's remote store: %s, want CTA %d's shared memory", exec, js(a), 1-exec)
	}
	// Rank r stores in[32r+t] = 32r+t+1 at word 32r+t of the peer's tile.
	found := false
	for _, m := range st.Memory {
		if m.Space == "shared" && m.CTA != nil && *m.CTA == 1-exec && m.Offset == uint64(4*32*exec) {
			found = true
			if want := fmt.Sprintf("%02x000000", 32*exec+1); m.Hex[:8] != want {
				t.Errorf("peer's tile word %d: %s, want %s", 32*exec, m.Hex[:8], want)
			}
		}
	}
	if !found {
		t.Errorf("the state carries no update of CTA %d's tile: %s", 1-exec, js(st.Memory))
	}
	for _, cj := range st.CTAs {
		if cj.Rank != cj.Linear || cj.ClusterLinear != 0 || cj.ClusterIdx != [3]int{} {
			t.Errorf("CTA %d: cluster %v #%d rank %d, want cluster 0 rank %d", cj.Linear, cj.ClusterIdx, cj.ClusterLinear, cj.Rank, cj.Linear)
		}
	}
}
