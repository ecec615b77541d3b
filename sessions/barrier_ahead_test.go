package sessions

import (
	"strings"
	"testing"
)

// TestBarrierStepNoBarrierAhead: a barrier step on a kernel without a
// barrier (vector-add) runs nothing and says "no barrier ahead" (reason
// no-barrier); on the transpose it stops where bar.sync releases, and
// once every warp is past the only barrier, the next barrier step says
// none is ahead instead of running to the end. Stepped back before the
// barrier, it is ahead again.
func TestBarrierStepNoBarrierAhead(t *testing.T) {
	c := newClient(t, newManager(t, Limits{}))
	va := exampleNamed(t, "vector-add")
	c.load(va.src, va.spec)
	c.step("warp", 3)
	st := c.step("barrier", 1)
	if st.Reason != "no-barrier" || st.Step != 3 || st.Status != "paused" || !strings.Contains(st.Message, "no barrier ahead") {
		t.Fatalf("vector-add: barrier step: reason %q step %d status %q: %q", st.Reason, st.Step, st.Status, st.Message)
	}

	tr := exampleNamed(t, "transpose")
	c.load(tr.src, tr.spec)
	st = c.step("barrier", 1)
	if st.Reason != "stepped" || st.Step == 0 {
		t.Fatalf("transpose: first barrier step: reason %q step %d", st.Reason, st.Step)
	}
	released := st.Step
	// Past the barrier: every warp reads its columns, no barrier follows.
	read := firstLineOf(t, tr.src, "ld.shared.f32 %f1, [%r12];")
	for w := 0; w < 8; w++ {
		stepToLine(t, c, read, 1)
	}
	at := c.step("warp", 1).Step
	st = c.step("barrier", 1)
	if st.Reason != "no-barrier" || st.Step != at || st.Status != "paused" {
		t.Fatalf("transpose past its barrier: reason %q step %d (was %d) status %q", st.Reason, st.Step, at, st.Status)
	}
	c.send(map[string]any{"type": "seek", "step": 1})
	c.state()
	if st = c.step("barrier", 1); st.Reason != "stepped" || st.Step != released {
		t.Fatalf("transpose from step 1: reason %q step %d, want the release at %d", st.Reason, st.Step, released)
	}
}

// TestBarrierStepClusterBarrier: a kernel whose only barrier is the
// cluster barrier has a barrier ahead; a barrier step stops where the
// cluster barrier's phase completes, the next says none is ahead, and a
// step back by one barrier returns to before that release.
func TestBarrierStepClusterBarrier(t *testing.T) {
	src := `.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 out) {
	.reg .u32 %r<12>; .reg .u64 %rd<4>;
	.shared .align 4 .b32 buf[64];
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, %cluster_ctarank;
	xor.b32 %r4, %r2, 1;
	mov.u32 %r5, buf;
	shl.b32 %r6, %r1, 2;
	add.u32 %r5, %r5, %r6;
	mapa.shared::cluster.u32 %r7, %r5, %r4;
	st.shared::cluster.u32 [%r7], %r1;
	barrier.cluster.arrive;
	barrier.cluster.wait;
	ld.shared.u32 %r9, [%r5];
	mov.u32 %r10, %ctaid.x;
	mad.lo.u32 %r11, %r10, 64, %r1;
	mul.wide.u32 %rd2, %r11, 4;
	add.u64 %rd3, %rd1, %rd2;
	st.global.u32 [%rd3], %r9;
	ret;
}`
	spec := `{"grid": [2], "block": [64], "cluster": [2], "buffers": [{"name": "out", "type": "u32", "count": 128, "output": true}], "params": [{"buffer": "out"}]}`
	c := newClient(t, newManager(t, Limits{}))
	c.load(src, spec)
	st := c.step("barrier", 1)
	if st.Reason != "stepped" || st.Step == 0 || st.Status != "paused" {
		t.Fatalf("first barrier step: reason %q step %d status %q: %q", st.Reason, st.Step, st.Status, st.Message)
	}
	released := st.Step
	st = c.step("barrier", 1)
	if st.Reason != "no-barrier" || st.Step != released {
		t.Fatalf("second barrier step: reason %q step %d (released at %d): %q", st.Reason, st.Step, released, st.Message)
	}
	c.send(map[string]any{"type": "back", "granularity": "barrier", "count": 1})
	if st, _ = c.state(); st.Step >= released {
		t.Fatalf("back one barrier from %d: at step %d", released, st.Step)
	}
	if st = c.step("barrier", 1); st.Step != released {
		t.Fatalf("barrier step again: step %d, want %d", st.Step, released)
	}
}

// TestBarrierStepMbarrier: in a kernel whose only synchronisation is
// mbarriers, a barrier step stops where an mbarrier phase's completion
// lets a waiting warp go (not "no barrier ahead"), and back one barrier
// returns to before it.
func TestBarrierStepMbarrier(t *testing.T) {
	for _, sched := range []string{"independent", "simt-stack"} {
		c := newClient(t, newManager(t, Limits{}))
		c.load(mbringPTX, strings.Replace(mbringSpec, "{", `{"scheduling":"`+sched+`",`, 1))
		st := c.step("barrier", 1)
		if st.Reason != "stepped" || st.Step == 0 || st.Status != "paused" {
			t.Fatalf("%s: first barrier step: reason %q step %d status %q: %q", sched, st.Reason, st.Step, st.Status, st.Message)
		}
		first := st.Step
		st = c.step("barrier", 1)
		if st.Reason != "stepped" || st.Step <= first {
			t.Fatalf("%s: second barrier step: reason %q step %d (first at %d): %q", sched, st.Reason, st.Step, first, st.Message)
		}
		c.send(map[string]any{"type": "back", "granularity": "barrier", "count": 1})
		if st, _ = c.state(); st.Step > first {
			t.Fatalf("%s: back one barrier from the second release: at step %d, want the first release's step %d or before", sched, st.Step, first)
		}
	}
}
