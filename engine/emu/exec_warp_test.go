package emu

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"math/rand"
	"reflect"
	"strings"
	"testing"

	"github.com/ptxplayground/ptxplay/engine/ptx"
)

// warpStoreTail stores %r9 (and %p9 as 0/1 in the next word) of each thread
// at out[(tid + 64*%r8) * 2]; it expects %rd1 = out and %r1 = tid.
const warpStoreTail = `
	mad.lo.u32 %r7, %r8, 64, %r1;
	mul.wide.u32 %rd2, %r7, 8;
	add.u64 %rd3, %rd1, %rd2;
	selp.u32 %r6, 1, 0, %p9;
	st.global.v2.u32 [%rd3], {%r9, %r6};
`

// warpCudaShfl gives the source lane and predicate of __shfl_*_sync(width) in
// CUDA terms, independently of the PTX formula.
func warpCudaShfl(mode string, lane, delta, width int) (int, bool) {
	base := lane / width * width
	switch mode {
	case "up":
		if lane-base >= delta {
			return lane - delta, true
		}
	case "down":
		if lane-base+delta < width {
			return lane + delta, true
		}
	case "bfly":
		if j := lane ^ delta; j < base+width {
			return j, true
		}
	case "idx":
		return base + delta%width, true
	}
	return lane, false
}

func TestWarpShflModes(t *testing.T) {
	type combo struct {
		mode         string
		delta, width int
	}
	var combos []combo
	for _, mode := range []string{"up", "down", "bfly", "idx"} {
		for _, width := range []int{32, 16, 8, 4, 2} {
			for _, delta := range []int{0, 1, 3, 5, 16} {
				combos = append(combos, combo{mode, delta, width})
			}
		}
	}
	var body strings.Builder
	for i, c := range combos {
		cval := (32 - c.width) << 8
		if c.mode != "up" {
			cval |= 31
		}
		fmt.Fprintf(&body, "\tshfl.sync.%s.b32 %%r9|%%p9, %%r2, %d, %d, 0xffffffff;\n\tmov.u32 %%r8, %d;\n%s", c.mode, c.delta, cval, i, warpStoreTail)
	}
	// Per-lane (register) delta and c for idx: delta = tid*5 % 32, width 8.
	fmt.Fprintf(&body, "\tmul.lo.u32 %%r3, %%r1, 5;\n\tand.b32 %%r3, %%r3, 31;\n\tmov.u32 %%r4, %d;\n", (32-8)<<8|31)
	fmt.Fprintf(&body, "\tshfl.sync.idx.b32 %%r9|%%p9, %%r2, %%r3, %%r4, -1;\n\tmov.u32 %%r8, %d;\n%s", len(combos), warpStoreTail)
	// Unusual clamp values: down clamp 5, up clamp 3, idx clamp 3 (b = 2 and 5).
	extra := []string{"down.b32 %r9|%p9, %r2, 1, 5", "up.b32 %r9|%p9, %r2, 1, 3", "idx.b32 %r9|%p9, %r2, 2, 3", "idx.b32 %r9|%p9, %r2, 5, 3"}
	for i, e := range extra {
		fmt.Fprintf(&body, "\tshfl.sync.%s, -1;\n\tmov.u32 %%r8, %d;\n%s", e, len(combos)+1+i, warpStoreTail)
	}
	// Legacy shfl without .sync, without the predicate output.
	fmt.Fprintf(&body, "\tshfl.bfly.b32 %%r9, %%r2, 1, 31;\n\tsetp.eq.u32 %%p9, %%r1, %%r1;\n\tmov.u32 %%r8, %d;\n%s", len(combos)+5, warpStoreTail)
	n := len(combos) + 6
	src := memHdr + `
.visible .entry k(.param .u64 pout) {
	.reg .u32 %r<10>; .reg .u64 %rd<4>; .reg .pred %p9;
	ld.param.u64 %rd1, [pout];
	mov.u32 %r1, %tid.x;
	mad.lo.u32 %r2, %r1, 3, 1;
` + body.String() + `
	ret;
}`
	out := memRun(t, src, 64, make([]byte, n*64*8))[0]
	val := func(tid int) uint32 { return uint32(tid*3 + 1) }
	check := func(i, tid int, wantLane int, wantP bool, what string) {
		t.Helper()
		got, gotP := memU32(out, 2*(i*64+tid)), memU32(out, 2*(i*64+tid)+1) != 0
		want := val(tid&^31 + wantLane)
		if got != want || gotP != wantP {
			t.Errorf("%s, lane %d (tid %d): got %d,%v want %d,%v", what, tid%32, tid, got, gotP, want, wantP)
		}
	}
	for i, c := range combos {
		for tid := 0; tid < 64; tid++ {
			j, p := warpCudaShfl(c.mode, tid%32, c.delta, c.width)
			check(i, tid, j, p, fmt.Sprintf("shfl.%s delta %d width %d", c.mode, c.delta, c.width))
		}
	}
	for tid := 0; tid < 64; tid++ {
		l := tid % 32
		j, _ := warpCudaShfl("idx", l, l*5%32, 8)
		check(len(combos), tid, j, true, "shfl.idx with per-lane delta")
		if l < 5 {
			check(len(combos)+1, tid, l+1, true, "shfl.down clamp 5")
		} else {
			check(len(combos)+1, tid, l, false, "shfl.down clamp 5")
		}
		if l >= 4 {
			check(len(combos)+2, tid, l-1, true, "shfl.up clamp 3")
		} else {
			check(len(combos)+2, tid, l, false, "shfl.up clamp 3")
		}
		check(len(combos)+3, tid, 2, true, "shfl.idx b 2 clamp 3")
		check(len(combos)+4, tid, l, false, "shfl.idx b 5 clamp 3")
		check(len(combos)+5, tid, l^1, true, "legacy shfl.bfly")
	}
}

// Odd lanes shuffle from even lanes that are not executing: the value is
// what the source lane's register holds.
func TestWarpShflInactiveSource(t *testing.T) {
	src := memHdr + `
.visible .entry k(.param .u64 pout) {
	.reg .u32 %r<10>; .reg .u64 %rd<4>; .reg .pred %p<10>;
	ld.param.u64 %rd1, [pout];
	mov.u32 %r1, %tid.x;
	mul.lo.u32 %r2, %r1, 10;
	and.b32 %r3, %r1, 1;
	setp.eq.u32 %p1, %r3, 0;
	mov.u32 %r9, 0;
	@%p1 bra DONE;
	sub.u32 %r4, %r1, 1;
	shfl.sync.idx.b32 %r9|%p9, %r2, %r4, 31, 0xaaaaaaaa;
DONE:
	mov.u32 %r8, 0;
	setp.ne.u32 %p9, %r9, 0;
` + warpStoreTail + `
	ret;
}`
	out := memRun(t, src, 32, make([]byte, 64*8))[0]
	for l := 0; l < 32; l++ {
		want := uint32(0)
		if l%2 == 1 {
			want = uint32(10 * (l - 1))
		}
		if got := memU32(out, 2*l); got != want {
			t.Errorf("lane %d: got %d want %d", l, got, want)
		}
	}
}

func TestWarpVote(t *testing.T) {
	src := memHdr + `
.visible .entry k(.param .u64 pout) {
	.reg .u32 %r<12>; .reg .u64 %rd<4>; .reg .pred %p<12>;
	ld.param.u64 %rd1, [pout];
	mov.u32 %r1, %tid.x;
	rem.u32 %r2, %r1, 3;
	setp.eq.u32 %p1, %r2, 0;
	vote.sync.ballot.b32 %r9, %p1, 0xffffffff;
	setp.eq.u32 %p9, %r1, %r1;
	mov.u32 %r8, 0;
` + warpStoreTail + `
	vote.sync.ballot.b32 %r9, !%p1, -1;
	mov.u32 %r8, 1;
` + warpStoreTail + `
	vote.sync.any.pred %p9, %p1, -1;
	mov.u32 %r9, 0;
	mov.u32 %r8, 2;
` + warpStoreTail + `
	setp.lt.u32 %p2, %r1, 100;
	vote.sync.all.pred %p9, %p2, -1;
	mov.u32 %r8, 3;
` + warpStoreTail + `
	vote.sync.uni.pred %p9, %p1, -1;
	mov.u32 %r8, 4;
` + warpStoreTail + `
	setp.ge.u32 %p3, %r1, 32;
	vote.sync.uni.pred %p9, !%p3, -1;
	mov.u32 %r8, 5;
` + warpStoreTail + `
	// Divergence: even lanes vote among themselves.
	and.b32 %r3, %r1, 1;
	setp.ne.u32 %p4, %r3, 0;
	mov.u32 %r9, 7;
	setp.eq.u32 %p9, %r1, 1000;
	@%p4 bra SKIP;
	vote.sync.ballot.b32 %r9, %p1, 0x55555555;
	vote.sync.all.pred %p9, %p1, 0x55555555;
	vote.ballot.b32 %r10, %p1;
	add.u32 %r9, %r9, %r10;
SKIP:
	mov.u32 %r8, 6;
` + warpStoreTail + `
	// Guarded: only lanes with %p1 execute.
	mov.u32 %r9, 0;
	setp.eq.u32 %p9, %r1, 1000;
	@%p1 vote.ballot.b32 %r9, %p1;
	@%p1 vote.any.pred %p9, %p3;
	mov.u32 %r8, 7;
` + warpStoreTail + `
	ret;
}`
	out := memRun(t, src, 64, make([]byte, 8*64*8))[0]
	get := func(i, tid int) (uint32, bool) {
		return memU32(out, 2*(i*64+tid)), memU32(out, 2*(i*64+tid)+1) != 0
	}
	for tid := 0; tid < 64; tid++ {
		w := tid / 32
		var ballot, even uint32
		for l := 0; l < 32; l++ {
			if (32*w+l)%3 == 0 {
				ballot |= 1 << l
			}
		}
		even = ballot & 0x55555555
		want := []struct {
			v uint32
			p bool
		}{
			{ballot, true}, {^ballot, true}, {0, true}, {0, true}, {0, false}, {0, true},
		}
		for i, x := range want {
			v, p := get(i, tid)
			if v != x.v || p != x.p {
				t.Errorf("vote %d tid %d: got %#x,%v want %#x,%v", i, tid, v, p, x.v, x.p)
			}
		}
		v, p := get(6, tid)
		if tid%2 == 1 {
			if v != 7 || p {
				t.Errorf("divergent vote, odd tid %d: got %d,%v", tid, v, p)
			}
		} else if v != 2*even || p != (even == 0x55555555) {
			t.Errorf("divergent vote, tid %d: got %#x,%v want %#x,%v", tid, v, p, 2*even, even == 0x55555555)
		}
		v, p = get(7, tid)
		if tid%3 == 0 {
			if v != ballot || p != (w == 1) {
				t.Errorf("guarded vote tid %d: got %#x,%v want %#x,%v", tid, v, p, ballot, w == 1)
			}
		} else if v != 0 || p {
			t.Errorf("guarded vote, non-executing tid %d: got %#x,%v", tid, v, p)
		}
	}
}

func TestWarpMatch(t *testing.T) {
	src := memHdr + `
.visible .entry k(.param .u64 pout) {
	.reg .u32 %r<12>; .reg .u64 %rd<8>; .reg .pred %p<12>; .reg .b64 %x<4>;
	ld.param.u64 %rd1, [pout];
	mov.u32 %r1, %tid.x;
	and.b32 %r4, %r1, 31;
	shr.u32 %r2, %r1, 2;
	match.any.sync.b32 %r9, %r2, 0xffffffff;
	setp.eq.u32 %p9, %r1, %r1;
	mov.u32 %r8, 0;
` + warpStoreTail + `
	rem.u32 %r3, %r1, 3;
	cvt.u64.u32 %x1, %r3;
	shl.b64 %x1, %x1, 40;
	match.any.sync.b64 %r9, %x1, -1;
	mov.u32 %r8, 1;
` + warpStoreTail + `
	mov.u32 %r9, 5;
	setp.eq.u32 %p9, %r1, 1000;
	setp.lt.u32 %p5, %r4, 4;
	@%p5 match.all.sync.b32 %r9|%p9, %r2, 0x0000000f;
	mov.u32 %r8, 2;
	@%p5 bra STORE2;
	setp.lt.u32 %p7, %r4, 8;
	@%p7 match.all.sync.b32 %r9|%p9, %r1, 0x000000ff;
STORE2:
` + warpStoreTail + `
	setp.lt.u32 %p6, %r4, 4;
	mov.u32 %r9, 5;
	setp.eq.u32 %p9, %r1, 1000;
	@%p6 match.all.sync.b64 %r9|%p9, %x1, 0xf;
	mov.u32 %r8, 3;
` + warpStoreTail + `
	ret;
}`
	out := memRun(t, src, 64, make([]byte, 4*64*8))[0]
	get := func(i, tid int) (uint32, bool) {
		return memU32(out, 2*(i*64+tid)), memU32(out, 2*(i*64+tid)+1) != 0
	}
	for tid := 0; tid < 64; tid++ {
		l := tid % 32
		if v, _ := get(0, tid); v != 0xf<<(l&^3) {
			t.Errorf("match.any.b32 tid %d: %#x", tid, v)
		}
		var same uint32
		for k := 0; k < 32; k++ {
			if (tid&^31+k)%3 == tid%3 {
				same |= 1 << k
			}
		}
		if v, _ := get(1, tid); v != same {
			t.Errorf("match.any.b64 tid %d: %#x want %#x", tid, v, same)
		}
		v, p := get(2, tid)
		switch {
		case l < 4:
			if v != 0xf || !p {
				t.Errorf("match.all (equal) tid %d: %#x,%v", tid, v, p)
			}
		case l < 8:
			if v != 0 || p {
				t.Errorf("match.all (different) tid %d: %#x,%v", tid, v, p)
			}
		default:
			if v != 5 || p {
				t.Errorf("match.all, non-executing tid %d: %#x,%v", tid, v, p)
			}
		}
		v, p = get(3, tid)
		switch {
		case l < 4:
			// the values (tid%3)<<40 differ within lanes 0-3
			if v != 0 || p {
				t.Errorf("guarded match.all.b64 tid %d: %#x,%v", tid, v, p)
			}
		default:
			if v != 5 || p {
				t.Errorf("non-executing tid %d: %#x,%v", tid, v, p)
			}
		}
	}
}

func TestWarpRedux(t *testing.T) {
	src := memHdr + `
.visible .entry k(.param .u64 pout) {
	.reg .u32 %r<12>; .reg .s32 %s<4>; .reg .u64 %rd<8>; .reg .pred %p<12>; .reg .f32 %f<4>; .reg .b32 %b<4>;
	ld.param.u64 %rd1, [pout];
	mov.u32 %r1, %tid.x;
	setp.eq.u32 %p9, %r1, %r1;
	mul.lo.u32 %r2, %r1, 7;
	xor.b32 %r2, %r2, 0x5a;
	sub.s32 %s1, 10, %r1;
	redux.sync.add.u32 %r9, %r2, -1;
	mov.u32 %r8, 0;
` + warpStoreTail + `
	redux.sync.min.u32 %r9, %r2, -1;
	mov.u32 %r8, 1;
` + warpStoreTail + `
	redux.sync.max.u32 %r9, %r2, -1;
	mov.u32 %r8, 2;
` + warpStoreTail + `
	redux.sync.min.s32 %r9, %s1, -1;
	mov.u32 %r8, 3;
` + warpStoreTail + `
	redux.sync.max.s32 %r9, %s1, -1;
	mov.u32 %r8, 4;
` + warpStoreTail + `
	redux.sync.and.b32 %r9, %r2, -1;
	mov.u32 %r8, 5;
` + warpStoreTail + `
	redux.sync.or.b32 %r9, %r2, -1;
	mov.u32 %r8, 6;
` + warpStoreTail + `
	redux.sync.xor.b32 %r9, %r2, -1;
	mov.u32 %r8, 7;
` + warpStoreTail + `
	// Per-lane membermasks: two 16-lane halves.
	and.b32 %r3, %r1, 16;
	mov.u32 %r4, 0xffff;
	shl.b32 %r4, %r4, %r3;
	redux.sync.add.u32 %r9, %r1, %r4;
	mov.u32 %r8, 8;
` + warpStoreTail + `
	// f32 min/max with .abs and .NaN: value = (tid-8)*0.5, lane 5 NaN.
	cvt.rn.f32.s32 %f1, %s1;
	mul.f32 %f1, %f1, 0fBF000000;
	and.b32 %r5, %r1, 31;
	setp.eq.u32 %p1, %r5, 5;
	@%p1 mov.b32 %f1, 0x7fc00000;
	redux.sync.min.f32 %b1, %f1, -1;
	mov.b32 %r9, %b1;
	mov.u32 %r8, 9;
` + warpStoreTail + `
	redux.sync.max.abs.f32 %b1, %f1, -1;
	mov.b32 %r9, %b1;
	mov.u32 %r8, 10;
` + warpStoreTail + `
	redux.sync.min.NaN.f32 %b1, %f1, -1;
	mov.b32 %r9, %b1;
	mov.u32 %r8, 11;
` + warpStoreTail + `
	ret;
}`
	out := memRun(t, src, 64, make([]byte, 12*64*8))[0]
	for tid := 0; tid < 64; tid++ {
		w := tid / 32
		var add, and, or, xor uint32 = 0, ^uint32(0), 0, 0
		minU, maxU := ^uint32(0), uint32(0)
		minS, maxS := int32(1<<31-1), int32(-1<<31)
		var half uint32
		for l := 0; l < 32; l++ {
			t2 := 32*w + l
			v := uint32(t2*7) ^ 0x5a
			s := int32(10 - t2)
			add += v
			and &= v
			or |= v
			xor ^= v
			minU, maxU = min(minU, v), max(maxU, v)
			minS, maxS = min(minS, s), max(maxS, s)
			if l&16 == tid&16 {
				half += uint32(t2)
			}
		}
		want := []uint32{add, minU, maxU, uint32(minS), uint32(maxS), and, or, xor, half}
		for i, x := range want {
			if got := memU32(out, 2*(i*64+tid)); got != x {
				t.Errorf("redux %d tid %d: got %#x want %#x", i, tid, got, x)
			}
		}
		// (10-t)*-0.5 over t in the warp, lane 5 NaN: min is (10-t)*-0.5 at the smallest t
		// except t=5 (NaN is ignored); max |x| at the largest |10-t|.
		var lo, mx float32 = 1e30, 0
		for l := 0; l < 32; l++ {
			if l == 5 {
				continue
			}
			x := float32(10-(32*w+l)) * -0.5
			lo = min(lo, x)
			mx = max(mx, max(x, -x))
		}
		if got := memU32(out, 2*(9*64+tid)); got != warpF32Bits(lo) {
			t.Errorf("redux.min.f32 tid %d: got %#x want %#x", tid, got, warpF32Bits(lo))
		}
		if got := memU32(out, 2*(10*64+tid)); got != warpF32Bits(mx) {
			t.Errorf("redux.max.abs.f32 tid %d: got %#x want %#x", tid, got, warpF32Bits(mx))
		}
		if got := memU32(out, 2*(11*64+tid)); got != 0x7fffffff {
			t.Errorf("redux.min.NaN.f32 tid %d: got %#x want the canonical NaN", tid, got)
		}
	}
}

func warpF32Bits(f float32) uint32 { return uint32(f32bits(f)) }

func TestWarpElectActivemask(t *testing.T) {
	src := memHdr + `
.visible .entry k(.param .u64 pout) {
	.reg .u32 %r<12>; .reg .u64 %rd<8>; .reg .pred %p<12>;
	ld.param.u64 %rd1, [pout];
	mov.u32 %r1, %tid.x;
	elect.sync %r9|%p9, 0xffffffff;
	mov.u32 %r8, 0;
` + warpStoreTail + `
	activemask.b32 %r9;
	mov.u32 %r8, 1;
` + warpStoreTail + `
	setp.lt.u32 %p1, %r1, 5;
	mov.u32 %r9, 99;
	setp.eq.u32 %p9, %r1, 1000;
	@%p1 bra SKIP;
	activemask.b32 %r10;
	elect.sync %r9|%p9, %r10;
	elect.sync _|%p2, %r10;
	@!%p2 mov.u32 %r9, 77;
SKIP:
	mov.u32 %r8, 2;
` + warpStoreTail + `
	@%p1 activemask.b32 %r9;
	mov.u32 %r8, 3;
` + warpStoreTail + `
	ret;
}`
	out := memRun(t, src, 40, make([]byte, 4*64*8))[0]
	for tid := 0; tid < 40; tid++ {
		l, w := tid%32, tid/32
		get := func(i int) (uint32, bool) { return memU32(out, 2*(i*64+tid)), memU32(out, 2*(i*64+tid)+1) != 0 }
		valid := uint32(0xffffffff)
		if w == 1 {
			valid = 0xff
		}
		if v, p := get(0); v != 0 || p != (l == 0) {
			t.Errorf("elect tid %d: %d,%v", tid, v, p)
		}
		if v, _ := get(1); v != valid {
			t.Errorf("activemask tid %d: %#x want %#x", tid, v, valid)
		}
		v, p := get(2)
		switch {
		case tid < 5:
			if v != 99 || p {
				t.Errorf("skipped tid %d: %d,%v", tid, v, p)
			}
		case w == 0 && l == 5, w == 1 && l == 0:
			if v != uint32(l) || !p {
				t.Errorf("leader tid %d: %d,%v", tid, v, p)
			}
		default:
			if v != 77 || p {
				t.Errorf("follower tid %d: %d,%v", tid, v, p)
			}
		}
		if v, _ := get(3); tid < 5 && v != 0x1f {
			t.Errorf("guarded activemask tid %d: %#x", tid, v)
		}
	}
}

func TestWarpMembermask(t *testing.T) {
	run := func(body string, threads int) (*Machine, *Alloc, StopReason) {
		src := memHdr + `
.visible .entry k(.param .u64 pout) {
	.reg .u32 %r<12>; .reg .u64 %rd<8>; .reg .pred %p<12>;
	ld.param.u64 %rd1, [pout];
	mov.u32 %r1, %tid.x;
	mul.lo.u32 %r2, %r1, 10;
	mov.u32 %r8, 0;
` + body + `
	ret;
}`
		m, a, r := memLaunch(t, src, [3]int{threads, 1, 1}, [3]int{1, 1, 1}, make([]byte, 64*8))
		return m, a[0], r
	}
	// An executing lane outside its membermask.
	m, _, r := run("shfl.sync.idx.b32 %r9, %r2, 0, 31, 0xfffffffe;", 32)
	if r != StopFault || m.Fault().Kind != FaultInvalidMember || m.Fault().Lane != 0 {
		t.Errorf("lane outside membermask: %v %v", r, m.Fault())
	}
	// Diverged lanes that still have a shfl.sync with the full mask ahead.
	m, _, r = run(`
	setp.lt.u32 %p1, %r1, 16;
	@%p1 bra LOW;
	shfl.sync.bfly.b32 %r9, %r2, 1, 31, 0xffffffff;
	bra.uni JOIN;
LOW:
	shfl.sync.bfly.b32 %r9, %r2, 1, 31, 0xffffffff;
JOIN:`, 32)
	if r != StopFault || m.Fault().Kind != FaultInvalidMember || !strings.Contains(m.Fault().Message, "16-31") {
		t.Errorf("diverged members: %v %v", r, m.Fault())
	}
	// The same with the membermask of each side: fine.
	_, out, r := run(`
	setp.lt.u32 %p1, %r1, 16;
	@%p1 bra LOW;
	shfl.sync.bfly.b32 %r9, %r2, 1, 31, 0xffff0000;
	bra.uni JOIN;
LOW:
	shfl.sync.bfly.b32 %r9, %r2, 1, 31, 0x0000ffff;
JOIN:
	setp.eq.u32 %p9, %r1, %r1;`+warpStoreTail, 32)
	if r != StopDone {
		t.Fatalf("split membermasks: %v", r)
	}
	for l := 0; l < 32; l++ {
		if got := memU32(out, 2*l); got != uint32(10*(l^1)) {
			t.Errorf("split membermasks lane %d: %d", l, got)
		}
	}
	// Exited lanes are not waited for; lanes that only go on to exit are
	// not either (zluda vote_all_sub); a partial warp has no lanes 20-31.
	m, out, r = run(`
	setp.ge.u32 %p1, %r1, 12;
	@%p1 exit;
	setp.eq.u32 %p2, %r1, 0;
	@%p2 bra OUT;
	vote.sync.all.pred %p9, 1, 0xffffffff;
	shfl.sync.down.b32 %r9, %r2, 4, 31, 0xffffffff;
OUT:`+warpStoreTail, 20)
	if r != StopDone {
		t.Fatalf("exited lanes: %v %v", r, m.Fault())
	}
	for l := 1; l < 12; l++ {
		want := uint32(10 * (l + 4)) // lanes 12-15 exited: their registers still hold 10*lane
		if got, p := memU32(out, 2*l), memU32(out, 2*l+1); got != want || p != 1 {
			t.Errorf("lane %d: got %d,%d want %d,1", l, got, p, want)
		}
	}
	// A lane waiting at a reconvergence point with a shfl.sync after it.
	m, _, r = run(`
	setp.eq.u32 %p2, %r1, 0;
	@%p2 bra OUT;
	vote.sync.all.pred %p9, 1, 0xffffffff;
OUT:
	shfl.sync.down.b32 %r9, %r2, 4, 31, 0xffffffff;`, 32)
	if r != StopFault || m.Fault().Kind != FaultInvalidMember || !strings.Contains(m.Fault().Message, "lane(s) 0, which") {
		t.Errorf("waiting lane with a later shfl.sync: %v %v", r, m.Fault())
	}
	if f := m.Fault(); f != nil {
		if got, want := memLine(m, f.PC), memLineOf(string(m.Program().Src.Text), "vote.sync.all.pred"); got != want {
			t.Errorf("fault at line %d want %d", got, want)
		}
	}
}

// Lanes missing from a membermask inside and around calls: a callee
// without warp-synchronous instructions is harmless, one with them is not,
// and a lane inside a call continues in its caller after returning.
func TestWarpMembermaskCalls(t *testing.T) {
	for _, c := range []struct {
		name, funcs, kernel string
		fault               bool
	}{
		{"callee-without-sync", `
.func f(.reg .u32 a) { add.u32 a, a, 1; ret; }`, `
	@%p2 bra OUT;
	vote.sync.all.pred %p9, 1, 0xffffffff;
OUT:
	call f, (%r2);`, false},
		{"callee-with-sync", `
.func g(.reg .u32 a) { shfl.sync.bfly.b32 a, a, 1, 31, -1; ret; }`, `
	@%p2 bra OUT;
	vote.sync.all.pred %p9, 1, 0xffffffff;
OUT:
	call g, (%r2);`, true},
		{"return-then-sync", `
.func h(.reg .u32 a) {
	.reg .pred %q;
	setp.eq.u32 %q, a, 0;
	@%q bra DONE;
	vote.sync.all.pred %q, 1, 0xffffffff;
DONE:
	ret;
}`, `
	call h, (%r2);
	shfl.sync.bfly.b32 %r3, %r2, 1, 31, -1;`, true},
		{"return-then-exit", `
.func h(.reg .u32 a) {
	.reg .pred %q;
	setp.eq.u32 %q, a, 0;
	@%q bra DONE;
	vote.sync.all.pred %q, 1, 0xffffffff;
DONE:
	ret;
}`, `
	call h, (%r2);
	add.u32 %r3, %r2, 1;`, false},
	} {
		src := memHdr + c.funcs + `
.visible .entry k(.param .u64 pout) {
	.reg .u32 %r<12>; .reg .u64 %rd<8>; .reg .pred %p<12>;
	ld.param.u64 %rd1, [pout];
	mov.u32 %r1, %tid.x;
	mul.lo.u32 %r2, %r1, 10;
	setp.eq.u32 %p2, %r1, 0;
` + c.kernel + `
	ret;
}`
		m, _, r := memLaunch(t, src, [3]int{32, 1, 1}, [3]int{1, 1, 1}, make([]byte, 8))
		if c.fault {
			if r != StopFault || m.Fault().Kind != FaultInvalidMember || !strings.Contains(m.Fault().Message, "lane(s) 0,") {
				t.Errorf("%s: want a membermask fault naming lane 0, got %v %v", c.name, r, m.Fault())
			}
		} else if r != StopDone {
			t.Errorf("%s: %v %v", c.name, r, m.Fault())
		}
	}
}

func TestWarpCompileErrors(t *testing.T) {
	for _, c := range []struct{ body, want string }{
		{"shfl.sync.up.b64 %rd1, %rd1, 1, 0, -1;", "needs .b32"},
		{"shfl.sync.b32 %r1, %r1, 1, 0, -1;", "needs a mode"},
		{"shfl.sync.up.b32 %r1, %r1, 1, 0;", "expects 5"},
		{"vote.sync.all.b32 %r1, %p1, -1;", "needs .pred"},
		{"vote.sync.ballot.pred %p1, %p1, -1;", ".b32"},
		{"vote.sync.any.all.pred %p1, %p1, -1;", "one mode"},
		{"match.any.b32 %r1, %r1, -1;", "needs .sync"},
		{"match.any.sync.u16 %r1, %r1, -1;", ".b32 or .b64"},
		{"redux.sync.add.b32 %r1, %r1, -1;", "not a valid type"},
		{"redux.sync.min.abs.u32 %r1, %r1, -1;", ".abs and .NaN"},
		{"elect.sync %r1, -1;", "d|p"},
		{"activemask.b64 %rd1;", "needs .b32"},
	} {
		src := memHdr + `
.visible .entry k(.param .u64 pout) {
	.reg .u32 %r<3>; .reg .u64 %rd<3>; .reg .pred %p<3>;
	` + c.body + `
	ret;
}`
		if msg := memCompileErr(t, src); !strings.Contains(msg, c.want) {
			t.Errorf("%s: diagnostics do not mention %q:\n%s", c.body, c.want, msg)
		}
	}
}

// TestWarpShflConstMatchesRegisters runs shfl with immediate lane and clamp
// operands (source lanes computed at lowering) and the same shfl with the
// operands in registers (computed per lane) on random values, random
// modes, offsets and clamps, full and partly active warps, and compares
// the results, the predicate results and what an observer is told.
func TestWarpShflConstMatchesRegisters(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	run := func(src string, in []byte) ([]byte, []ShuffleStep) {
		s := ptx.NewSource("t.ptx", []byte(src))
		prog, diags := CompileSource(s)
		if prog == nil {
			t.Fatalf("compile:\n%s", ptx.FormatAll(s, diags))
		}
		m, err := NewMachine(prog, "k", Config{Grid: [3]int{1, 1, 1}, Block: [3]int{32, 1, 1}})
		if err != nil {
			t.Fatal(err)
		}
		var steps []ShuffleStep
		m.SetObserver(observerFunc(func(s *StepInfo) {
			if s.Shuffle != nil {
				steps = append(steps, *s.Shuffle)
			}
		}))
		a := m.Global.Alloc("in", len(in), 256)
		copy(a.Data, in)
		out := m.Global.Alloc("out", 32*8, 256)
		binary.LittleEndian.PutUint64(m.Params(), a.Base)
		binary.LittleEndian.PutUint64(m.Params()[8:], out.Base)
		if r := m.Run(context.Background()); r != StopDone {
			t.Fatalf("stop %v: %v\n%s", r, m.Fault(), src)
		}
		return append([]byte(nil), out.Data...), steps
	}
	for it := 0; it < 120; it++ {
		mode := []string{"up", "down", "bfly", "idx"}[rng.Intn(4)]
		bv := rng.Intn(40)
		cv := rng.Intn(32) | rng.Intn(32)<<8
		if rng.Intn(3) == 0 {
			cv = rng.Int() & 0xffff
		}
		active := uint32(0xffffffff)
		if rng.Intn(2) == 0 {
			active = rng.Uint32() | 1
		}
		in := make([]byte, 32*8+4)
		for l := 0; l < 32; l++ {
			binary.LittleEndian.PutUint32(in[8*l:], rng.Uint32())
			binary.LittleEndian.PutUint32(in[8*l+4:], active>>l&1)
		}
		binary.LittleEndian.PutUint32(in[32*8:], active)
		member := "-1"
		if active != 0xffffffff {
			member = "%r8"
		}
		kernel := func(b, c string) string {
			return `.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 in, .param .u64 out) {
	.reg .u32 %r<10>; .reg .u64 %rd<8>; .reg .pred %p<3>;
	ld.param.u64 %rd1, [in];
	ld.param.u64 %rd2, [out];
	mov.u32 %r1, %tid.x;
	mul.wide.u32 %rd3, %r1, 8;
	add.u64 %rd4, %rd1, %rd3;
	ld.global.u32 %r2, [%rd4];
	ld.global.u32 %r3, [%rd4+4];
	ld.global.u32 %r8, [%rd1+256];
	mov.u32 %r4, ` + fmt.Sprint(bv) + `;
	mov.u32 %r5, ` + fmt.Sprint(cv) + `;
	setp.ne.u32 %p1, %r3, 0;
	mov.u32 %r6, 0xdead;
	setp.eq.u32 %p2, %r1, 99;
	@%p1 shfl.sync.` + mode + `.b32 %r6|%p2, %r2, ` + b + `, ` + c + `, ` + member + `;
	selp.u32 %r7, 1, 0, %p2;
	add.u64 %rd5, %rd2, %rd3;
	st.global.v2.u32 [%rd5], {%r6, %r7};
	ret;
}`
		}
		got, gotSteps := run(kernel(fmt.Sprint(bv), fmt.Sprint(cv)), in)
		want, wantSteps := run(kernel("%r4", "%r5"), in)
		name := fmt.Sprintf("shfl.%s b=%d c=%#x active=%#x", mode, bv, cv, active)
		if !bytes.Equal(got, want) {
			t.Fatalf("%s: results differ:\n got % x\nwant % x", name, got, want)
		}
		if !reflect.DeepEqual(gotSteps, wantSteps) {
			t.Fatalf("%s: observer saw %+v, want %+v", name, gotSteps, wantSteps)
		}
	}
}
