package emu

import (
	"context"
	"testing"
)

// elect.sync in divergent code elects, for each executing lane, the lowest
// lane of its membermask among the lanes that execute it (predicated-off
// lanes and lanes on another path do not), in both scheduling models.
func TestElectSyncDivergent(t *testing.T) {
	for _, tc := range []struct {
		name string
		body string
		want func(lane int) uint32 // out[lane]: leader*2 + (1 if elected), or 999
	}{
		{
			// A branch sends lanes 0-4 away; the others elect among
			// their active mask.
			name: "after a branch, activemask",
			body: `
	mov.u32 %r9, 999;
	and.b32 %r2, %r1, 31;
	setp.lt.u32 %p1, %r2, 5;
	@%p1 bra DONE;
	activemask.b32 %r5;
	elect.sync %r6|%p2, %r5;
	selp.u32 %r7, 1, 0, %p2;
	mad.lo.u32 %r9, %r6, 2, %r7;
DONE:`,
			want: func(l int) uint32 {
				if l < 5 {
					return 999
				}
				if l == 5 {
					return 11
				}
				return 10
			},
		},
		{
			// A guarded elect: lanes whose guard is false do not execute
			// it, and the membermask names the lanes that do.
			name: "@p elect.sync",
			body: `
	mov.u32 %r9, 999;
	and.b32 %r2, %r1, 31;
	setp.ge.u32 %p1, %r2, 3;
	mov.u32 %r6, 77;
	@%p1 elect.sync %r6|%p2, 0xfffffff8;
	@%p1 selp.u32 %r7, 1, 0, %p2;
	@%p1 mad.lo.u32 %r9, %r6, 2, %r7;`,
			want: func(l int) uint32 {
				if l < 3 {
					return 999
				}
				if l == 3 {
					return 7
				}
				return 6
			},
		},
		{
			// The ISA elects a predicated active thread: with the whole
			// warp in membermask, lanes whose guard is false are not
			// candidates (and do not hold the others up).
			name: "@p elect.sync, full membermask",
			body: `
	mov.u32 %r9, 999;
	and.b32 %r2, %r1, 31;
	setp.ge.u32 %p1, %r2, 3;
	@%p1 elect.sync _|%p2, 0xffffffff;
	@%p1 selp.u32 %r9, 1, 0, %p2;`,
			want: func(l int) uint32 {
				if l < 3 {
					return 999
				}
				if l == 3 {
					return 1
				}
				return 0
			},
		},
		{
			// Two producers: each path of a branch elects its own leader
			// (membermask: the path's lanes).
			name: "each path elects",
			body: `
	and.b32 %r2, %r1, 31;
	setp.lt.u32 %p1, %r2, 16;
	@%p1 bra LOW;
	elect.sync %r6|%p2, 0xffff0000;
	bra.uni JOIN;
LOW:
	elect.sync %r6|%p2, 0x0000ffff;
JOIN:
	selp.u32 %r7, 1, 0, %p2;
	mad.lo.u32 %r9, %r6, 2, %r7;`,
			want: func(l int) uint32 {
				switch l {
				case 0:
					return 1
				case 16:
					return 33
				}
				if l < 16 {
					return 0
				}
				return 32
			},
		},
		{
			// A branch inside a warp-specialised producer: only lanes 8-11
			// of warp 1 go on, and they elect lane 8.
			name: "producer lanes of one warp",
			body: `
	mov.u32 %r9, 999;
	shr.u32 %r3, %r1, 5;
	and.b32 %r2, %r1, 31;
	setp.ne.u32 %p1, %r3, 1;
	@%p1 bra DONE;
	setp.lt.u32 %p3, %r2, 8;
	@%p3 bra DONE;
	setp.ge.u32 %p3, %r2, 12;
	@%p3 bra DONE;
	elect.sync %r6|%p2, 0x00000f00;
	selp.u32 %r7, 1, 0, %p2;
	mad.lo.u32 %r9, %r6, 2, %r7;
DONE:`,
			want: func(l int) uint32 {
				switch {
				case l < 40 || l >= 44:
					return 999
				case l == 40:
					return 17
				}
				return 16
			},
		},
	} {
		src := hopperKernel(tc.body + `
	mul.wide.u32 %rd2, %r1, 4;
	add.u64 %rd3, %rd1, %rd2;
	st.u32 [%rd3], %r9;`)
		for _, sched := range []Scheduling{SchedSIMTStack, SchedIndependent} {
			l := batchLaunch{src: src, grid: 1, block: 64, words: 64, sched: sched}
			m := l.machine(t, false)
			if r := m.Run(context.Background()); r != StopDone {
				t.Errorf("%s (%s): stopped with %v (%v)", tc.name, sched, r, m.Fault())
				continue
			}
			for i, v := range u32s(m.Global.allocs[0]) {
				lane := i
				if tc.name != "producer lanes of one warp" {
					lane = i % 32
				}
				if want := tc.want(lane); v != want {
					t.Errorf("%s (%s): thread %d = %d, want %d", tc.name, sched, i, v, want)
					break
				}
			}
		}
	}
}
