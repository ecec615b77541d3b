package emu

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// warpLocalPTX: a loop of warp-level instructions (shuffles, a ballot, a
// match, a reduction, activemask, elect, bar.warp.sync, an integer mma, a
// movmatrix) between register-only ones, then DIVERGED.
const warpLocalPTX = `.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 buf) {
	.reg .u32 %r<20>; .reg .u64 %rd<8>; .reg .pred %p<6>;
	ld.param.u64 %rd1, [buf];
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, %ctaid.x;
	mov.u32 %r3, %ntid.x;
	mad.lo.u32 %r4, %r2, %r3, %r1;
	mul.lo.u32 %r5, %r4, 2654435761;
	mov.u32 %r6, 0;
	mov.u32 %r16, 0;
	mov.u32 %r17, 0;
LOOP:
	shfl.sync.bfly.b32 %r7, %r5, 1, 31, -1;
	add.u32 %r5, %r5, %r7;
	shfl.sync.idx.b32 %r7, %r5, %r6, 31, -1;
	xor.b32 %r5, %r5, %r7;
	setp.lt.u32 %p1, %r5, 0x80000000;
	vote.sync.ballot.b32 %r8, %p1, -1;
	add.u32 %r5, %r5, %r8;
	and.b32 %r9, %r5, 3;
	match.any.sync.b32 %r9, %r9, -1;
	redux.sync.add.u32 %r10, %r5, -1;
	activemask.b32 %r11;
	xor.b32 %r5, %r5, %r10;
	add.u32 %r5, %r5, %r11;
	add.u32 %r5, %r5, %r9;
	elect.sync %r12|%p2, -1;
	add.u32 %r5, %r5, %r12;
	bar.warp.sync -1;
	mma.sync.aligned.m8n8k16.row.col.s32.s8.s8.s32 {%r16, %r17}, {%r5}, {%r7}, {%r16, %r17};
	add.u32 %r5, %r5, %r16;
	xor.b32 %r5, %r5, %r17;
	movmatrix.sync.aligned.m8n8.trans.b16 %r18, %r5;
	add.u32 %r5, %r5, %r18;
	add.u32 %r6, %r6, 1;
	setp.lt.u32 %p3, %r6, 20;
	@%p3 bra LOOP;
	DIVERGED
	mul.wide.u32 %rd2, %r4, 4;
	add.u64 %rd3, %rd1, %rd2;
	st.global.u32 [%rd3], %r5;
	ret;
}`

// Diverged halves shuffle among themselves.
const warpLocalHalves = `and.b32 %r13, %r1, 1;
	setp.eq.u32 %p4, %r13, 0;
	@%p4 bra EVEN;
	shfl.sync.bfly.b32 %r14, %r5, 2, 31, 0xaaaaaaaa;
	add.u32 %r5, %r5, %r14;
	vote.sync.ballot.b32 %r15, %p1, 0xaaaaaaaa;
	add.u32 %r5, %r5, %r15;
	bra.uni JOIN;
EVEN:
	shfl.sync.bfly.b32 %r14, %r5, 2, 31, 0x55555555;
	xor.b32 %r5, %r5, %r14;
JOIN:`

// A diverged half names the whole warp, whose other half waits at another
// shfl: a fault in both models.
const warpLocalWhole = `and.b32 %r13, %r1, 1;
	setp.eq.u32 %p4, %r13, 0;
	@%p4 bra EVEN;
	shfl.sync.bfly.b32 %r14, %r5, 2, 31, -1;
	add.u32 %r5, %r5, %r14;
	bra.uni JOIN;
EVEN:
	shfl.sync.bfly.b32 %r14, %r5, 2, 31, -1;
	xor.b32 %r5, %r5, %r14;
JOIN:`

// Warp-level instructions run in leads, with the results, stops and
// faults of the one-instruction-at-a-time run.
func TestWarpLocalInLeads(t *testing.T) {
	for _, s := range []Scheduling{SchedIndependent, SchedSIMTStack} {
		for name, div := range map[string]string{"converged": "", "halves": warpLocalHalves, "whole warp": warpLocalWhole} {
			for _, shape := range [][2]int{{1, 64}, {3, 96}} {
				src := strings.Replace(warpLocalPTX, "DIVERGED", div, 1)
				l := batchLaunch{src: src, grid: shape[0], block: shape[1], words: shape[0] * shape[1], sched: s}
				label := fmt.Sprintf("%s %s %v", s, name, shape)
				r := runBothWays(t, label, l)
				want := StopDone
				if name == "whole warp" {
					want = StopFault
				}
				if r != want {
					t.Fatalf("%s: stop %v, want %v", label, r, want)
				}
				full := l.machine(t, true)
				full.Run(context.Background())
				if full.fast.localLeads == 0 {
					t.Fatalf("%s: no warp-level instruction ran in a lead", label)
				}
				if shape[0] > 1 {
					continue
				}
				// Every 7th budget, then stepping on and finishing.
				total := full.Stats().WarpInstructions
				for budget := int64(1); budget <= total; budget += 7 {
					l.limit = budget
					a, b := l.machine(t, true), l.machine(t, false)
					ra, rb := a.Run(context.Background()), b.Run(context.Background())
					if ra != rb {
						t.Fatalf("%s budget %d: %v vs %v", label, budget, ra, rb)
					}
					if d := a.DiffState(b); d != "" {
						t.Fatalf("%s budget %d: %s", label, budget, d)
					}
					a.SetMaxWarpInstructions(0)
					b.SetMaxWarpInstructions(0)
					if sa, sb := stepStates(a, 4), stepStates(b, 4); strings.Join(sa, "\n") != strings.Join(sb, "\n") {
						t.Fatalf("%s budget %d: stepping on differs", label, budget)
					}
					a.Run(context.Background())
					b.Run(context.Background())
					if d := a.DiffState(b); d != "" {
						t.Fatalf("%s budget %d at the end: %s", label, budget, d)
					}
				}
				l.limit = 0
			}
		}
	}
}
