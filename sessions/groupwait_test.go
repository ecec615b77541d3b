package sessions

import (
	"strings"
	"testing"
)

// groupWaitPTX: a producer and its consumers inside one warp. Lane 0
// (elect.sync) writes 4 values, each after waiting on the "empty"
// mbarrier that lanes 1-31 arrive on once they consumed the one before;
// lanes 1-31 wait on "full" for each value and sum them (0+100+200+300).
const groupWaitPTX = `.version 8.0
.target sm_90
.address_size 64
.visible .entry ring(.param .u64 out) {
	.reg .u32 %r<24>; .reg .u64 %rd<8>; .reg .pred %p<8>;
	.shared .align 8 .b64 full;
	.shared .align 8 .b64 empty;
	.shared .align 4 .u32 buf;
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, %tid.x;
	setp.ne.u32 %p1, %r1, 0;
	@%p1 bra INITED;
	mbarrier.init.shared.b64 [full], 1;
	mbarrier.init.shared.b64 [empty], 31;
INITED:
	bar.sync 0;
	mov.u32 %r5, 0;
	mov.u32 %r20, 0;
	elect.sync _|%p3, 0xffffffff;
	@!%p3 bra CONSUMER;
PLOOP:
	and.b32 %r7, %r5, 1;
	xor.b32 %r7, %r7, 1;
WE:
	mbarrier.try_wait.parity.shared.b64 %p5, [empty], %r7;
	@!%p5 bra WE;
	mul.lo.u32 %r13, %r5, 100;
	st.shared.u32 [buf], %r13;
	mbarrier.arrive.release.cta.shared.b64 %rd2, [full];
	add.u32 %r5, %r5, 1;
	setp.lt.u32 %p4, %r5, 4;
	@%p4 bra PLOOP;
	bra DONE;
CONSUMER:
	and.b32 %r7, %r5, 1;
WF:
	mbarrier.try_wait.parity.acquire.cta.shared.b64 %p5, [full], %r7;
	@!%p5 bra WF;
	ld.shared.u32 %r13, [buf];
	add.u32 %r20, %r20, %r13;
	mbarrier.arrive.shared.b64 %rd2, [empty];
	add.u32 %r5, %r5, 1;
	setp.lt.u32 %p4, %r5, 4;
	@%p4 bra CONSUMER;
DONE:
	mul.wide.u32 %rd3, %r1, 4;
	add.u64 %rd3, %rd1, %rd3;
	st.global.u32 [%rd3], %r20;
	ret;
}`

// A thread group that waits while the warp's other group runs is on the
// wire as the warp's groupWaits (the warp itself stays ready), with the
// group's lanes and words that name the mbarrier; the field is cleared
// when the group's wait ends, and the ring completes.
func TestGroupWaitsOnTheWire(t *testing.T) {
	c := newClient(t, newManager(t, Limits{}))
	st := c.load(groupWaitPTX, `{"grid":[1],"block":[32],"buffers":[{"name":"out","type":"u32","count":32}],"params":[{"buffer":"out"}]}`)
	var seen, cleared bool
	var had bool
	state := map[int]string{} // a delta carries the state when it changed
	for i := range 2000 {
		if i > 0 {
			st = c.step("warp", 1)
		}
		for _, ct := range st.CTAs {
			for _, w := range ct.Warps {
				if w.State != "" {
					state[w.Warp] = w.State
				}
				if len(w.GroupWaits) > 0 {
					g := w.GroupWaits[0]
					if state[w.Warp] == "ready" && g.Kind == "mbarrier" && strings.Contains(g.Text, "mbarrier") && g.Lanes != "" && g.Line > 0 {
						seen = true
					}
					had = true
				} else if had && w.Cleared("groupWaits") {
					cleared = true
				}
			}
		}
		if st.Status == "done" {
			break
		}
	}
	if st.Status != "done" {
		t.Fatalf("the ring did not complete: status %s", st.Status)
	}
	if !seen {
		t.Error("no state showed a ready warp with a thread group waiting on an mbarrier (groupWaits)")
	}
	if !cleared {
		t.Error("no delta cleared groupWaits when the group's wait ended")
	}
}
