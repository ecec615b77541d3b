package emu

import (
	"context"
	"encoding/binary"
	"fmt"
	"testing"

	"github.com/ptxplayground/ptxplay/engine/isa"
)

// watchSrc loads a word of p (all lanes, then odd lanes) and of q, adds
// them, and stores the sum to p and q; a lane beyond n (param 3) loads
// from p past its end when bad is set (param 4).
const watchSrc = `.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 p, .param .u64 q, .param .u32 n, .param .u32 bad) {
	.reg .pred %pr<3>;
	.reg .b32 %r<12>;
	.reg .b64 %rd<8>;
	ld.param.u64 %rd1, [p];
	ld.param.u64 %rd2, [q];
	ld.param.u32 %r9, [n];
	ld.param.u32 %r10, [bad];
	mov.u32 %r1, %tid.x;
	mul.wide.u32 %rd3, %r1, 4;
	add.u64 %rd4, %rd1, %rd3;
	add.u64 %rd5, %rd2, %rd3;
	ld.global.u32 %r2, [%rd4];
	and.b32 %r3, %r1, 1;
	setp.eq.u32 %pr1, %r3, 1;
	@%pr1 ld.global.u32 %r2, [%rd4+4];
	ld.global.u32 %r4, [%rd5];
	add.u32 %r5, %r2, %r4;
	st.global.u32 [%rd4], %r5;
	@%pr1 st.global.u32 [%rd5], %r5;
	setp.ne.u32 %pr2, %r10, 0;
	@%pr2 ld.global.u32 %r6, [%rd4+4096];
	ret;
}`

// watcher records the global allocations it saw accessed; it watches
// those whose base is in watch (all when watch is nil).
type watcher struct {
	watch  map[uint64]bool
	seen   map[uint64]int // accesses per allocation base
	faults int
	allocs []*Alloc
}

func (o *watcher) Observes() ObserveFlags { return ObserveAccesses | ObserveGlobalOnly }
func (o *watcher) WatchGlobal(base, size uint64) bool {
	return o.watch == nil || o.watch[base]
}
func (o *watcher) Step(in *StepInfo) {
	if in.Fault != nil {
		o.faults++
	}
	for _, a := range in.Accesses {
		if a.Space != isa.Global {
			continue
		}
		for _, al := range o.allocs {
			for l := 0; l < 32; l++ {
				if a.Lanes>>l&1 != 0 && a.Addr[l] >= al.Base && a.Addr[l] < al.Base+uint64(len(al.Data)) {
					o.seen[al.Base]++
				}
			}
		}
	}
}

// TestGlobalWatch: an observer that watches one of two allocations is
// told of the accesses to it and of no other, by the whole-warp and the
// per-lane paths, loads and stores; a second observer that watches
// everything is told of all of them; a fault in the quiet allocation is
// reported; memory and registers end as without observers.
func TestGlobalWatch(t *testing.T) {
	run := func(bad uint32, obs ...*watcher) (*Machine, *Alloc, *Alloc) {
		m := filterMachine(t, watchSrc, Config{Grid: [3]int{1, 1, 1}, Block: [3]int{64, 1, 1}}, false)
		p := m.Global.Alloc("p", 4*65, 256)
		q := m.Global.Alloc("q", 4*64, 256)
		for i := range p.Data {
			p.Data[i] = byte(i * 7)
		}
		for i := range q.Data {
			q.Data[i] = byte(i * 3)
		}
		prm := m.Params()
		binary.LittleEndian.PutUint64(prm[0:], p.Base)
		binary.LittleEndian.PutUint64(prm[8:], q.Base)
		binary.LittleEndian.PutUint32(prm[16:], 64)
		binary.LittleEndian.PutUint32(prm[20:], bad)
		for _, o := range obs {
			o.seen, o.allocs = map[uint64]int{}, []*Alloc{p, q}
			if o.watch != nil {
				o.watch = map[uint64]bool{q.Base: true}
			}
			m.AddObserver(o)
		}
		m.Run(context.Background())
		return m, p, q
	}
	plain, pp, pq := run(0)
	one := &watcher{watch: map[uint64]bool{}}
	m, p, q := run(0, one)
	if one.seen[p.Base] != 0 || one.seen[q.Base] != 64+32 {
		t.Errorf("watching q: saw %d lane accesses of p and %d of q, want 0 and 96", one.seen[p.Base], one.seen[q.Base])
	}
	if string(p.Data) != string(pp.Data) || string(q.Data) != string(pq.Data) || fmt.Sprint(m.Stats()) != fmt.Sprint(plain.Stats()) {
		t.Error("memory or statistics differ from the run without observers")
	}
	all := &watcher{}
	one = &watcher{watch: map[uint64]bool{}}
	_, p, q = run(0, one, all)
	if all.seen[p.Base] != 64+32+64 || all.seen[q.Base] != 64+32 {
		t.Errorf("watching everything beside: saw %d lane accesses of p and %d of q, want 160 and 96", all.seen[p.Base], all.seen[q.Base])
	}
	one = &watcher{watch: map[uint64]bool{}}
	m, _, _ = run(1, one)
	if m.Fault() == nil || one.faults != 1 {
		t.Errorf("a load past the quiet allocation: fault %v, %d reported", m.Fault(), one.faults)
	}
}
