package sessions

import (
	"encoding/binary"
	"strings"
	"testing"
)

// mbringPTX: a 2-stage mbarrier ring with transaction bytes (full[s]:
// one arrival and 128 bytes per phase; empty[s]: 32 arrivals).
var mbringPTX = testKernel("mbring.ptx")

const mbringSpec = `{"grid":[1],"block":[64],"buffers":[{"name":"out","type":"u32","count":32}],"params":[{"buffer":"out"}]}`

// The state carries each resident CTA's live mbarriers: the ring's four,
// named, with their phase, counts, transaction bytes and the warps waiting
// on them, as they change step by step; the ring ends with its result.
func TestMbarriersOnTheWire(t *testing.T) {
	for _, sched := range []string{"independent", "simt-stack"} {
		t.Run(sched, func(t *testing.T) {
			c := newClient(t, newManager(t, Limits{}))
			c.load(mbringPTX, strings.Replace(mbringSpec, "{", `{"scheduling":"`+sched+`",`, 1))
			var held []mbarrierJSON
			sawTx, sawWait, sawPhase := false, false, false
			for range 2000 {
				st := c.step("warp", 1)
				for _, ct := range st.CTAs {
					if ct.Mbarriers == nil {
						t.Fatalf("a CTA came without its mbarriers: %+v", ct)
					}
					held = ct.Mbarriers
				}
				for _, b := range held {
					sawTx = sawTx || b.Tx == 128 && b.Missing == "1 arrival and 128 transaction bytes" || b.Tx == 128 && b.Pending == 0
					sawPhase = sawPhase || b.Phase == 1
					for _, w := range b.Waiting {
						sawWait = true
						if w.Lanes != "ffffffff" || w.Line == 0 {
							t.Fatalf("waiter %+v of %+v", w, b)
						}
					}
				}
				if st.Status == "done" {
					break
				}
			}
			var names []string
			for _, b := range held {
				names = append(names, b.Name+"@"+b.Offset)
			}
			if got := strings.Join(names, " "); got != "full[0]@0 full[1]@8 empty[0]@10 empty[1]@18" {
				t.Fatalf("mbarriers at the end: %q", got)
			}
			if !sawTx || !sawWait || !sawPhase {
				t.Fatalf("transaction bytes seen %v, a waiting warp %v, phase 1 %v", sawTx, sawWait, sawPhase)
			}
			out := c.bufferWords("out", 32)
			for k, v := range out {
				if v != uint32(600+4*k) {
					t.Fatalf("lane %d summed %d, want %d", k, v, 600+4*k)
				}
			}
		})
	}
}

// bufferWords reads the first n words of the session's buffer name.
func (c *client) bufferWords(name string, n int) []uint32 {
	c.t.Helper()
	var out []uint32
	c.do(func() {
		for _, a := range c.s.m.Global.Allocs() {
			if a.Name == name {
				for i := range n {
					out = append(out, binary.LittleEndian.Uint32(a.Data[4*i:]))
				}
			}
		}
	})
	if len(out) != n {
		c.t.Fatalf("no buffer %q of %d words", name, n)
	}
	return out
}

// TestMbarriersBounded: a CTA that initialises an mbarrier at every 8
// bytes of 1,600 bytes of shared memory lists the first 64 by address and
// counts the other 136 (a state stays bounded however many it has).
func TestMbarriersBounded(t *testing.T) {
	src := `.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 out) {
	.reg .u32 %r<8>; .reg .pred %p<2>;
	.shared .align 8 .b64 bars[200];
	mov.u32 %r1, %tid.x;
	setp.ne.u32 %p1, %r1, 0;
	@%p1 bra DONE;
	mov.u32 %r2, bars;
	mov.u32 %r3, 0;
LOOP:
	mbarrier.init.shared.b64 [%r2], 1;
	add.u32 %r2, %r2, 8;
	add.u32 %r3, %r3, 1;
	setp.lt.u32 %p1, %r3, 200;
	@%p1 bra LOOP;
	bar.sync 0;
	ret;
DONE:
	bar.sync 0;
	ret;
}`
	c := newClient(t, newManager(t, Limits{}))
	c.load(src, `{"grid":[1],"block":[64],"buffers":[{"name":"out","type":"u32","count":1}],"params":[{"buffer":"out"}]}`)
	c.send(map[string]any{"type": "step", "granularity": "barrier", "count": 1})
	st, _ := c.state()
	var got *ctaJSON
	for i := range st.CTAs {
		got = &st.CTAs[i]
	}
	if got == nil || len(got.Mbarriers) != 64 || got.MbarriersOmitted != 136 {
		t.Fatalf("step %d: CTA %+v", st.Step, got)
	}
	if got.Mbarriers[0].Name != "bars[0]" || got.Mbarriers[63].Name != "bars[63]" {
		t.Errorf("listed %q .. %q, want bars[0] .. bars[63]", got.Mbarriers[0].Name, got.Mbarriers[63].Name)
	}
}
