package emu

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/ptxplayground/ptxplay/engine/ptx"
)

// The live mbarriers of a CTA after a deadlock: the one initialised
// object, named after its variable, with its state and the two warps
// waiting on it (hand-computed: 2 expected, 1 arrived, 4,096 bytes
// expected), and the waits' text names it.
func TestMbarriersListDeadlock(t *testing.T) {
	body := `	setp.eq.u32 %p1, %r1, 0;
	@%p1 mbarrier.init.shared.b64 [bar2], 2;
	bar.sync 0;
	@%p1 mbarrier.arrive.expect_tx.shared.b64 %rd2, [bar2], 4096;
W:
	mbarrier.try_wait.parity.shared.b64 %p2, [bar2], 0, 1000;
	@!%p2 bra W;
	ret;`
	l := clusterLaunch{src: mbarKernel("", body), grid: [3]int{1, 1, 1}, block: 64, words: 1}
	for _, sched := range bothScheds {
		m := l.machine(t, sched)
		m.Run(context.Background())
		if f := m.Fault(); f == nil || f.Kind != FaultDeadlock {
			t.Fatalf("%s: fault %v", sched, f)
		}
		got := m.CTAs()[0].Mbarriers()
		pc := m.CTAs()[0].Warps[0].wait.PC
		want := []MbarrierInfo{{Off: 8, Name: "bar2",
			State:   Mbarrier{Valid: true, Phase: 0, Pending: 1, Expected: 2, Tx: 4096},
			Waiting: []MbarrierWaiter{{Warp: 0, Lanes: ^uint32(0), Parity: 0, PC: pc}, {Warp: 1, Lanes: ^uint32(0), Parity: 0, PC: pc}}}}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: live mbarriers %+v\nwant %+v", sched, got, want)
		}
		if s := m.CTAs()[0].Warps[1].WaitText(); s != "mbarrier bar2 @0x8, phase 0: 1 arrival and 4,096 transaction bytes missing" {
			t.Errorf("%s: wait text %q", sched, s)
		}
	}
}

// init adds an object, inval removes it, init again brings it back; an
// object of an array is named with its index.
func TestMbarriersListInitInval(t *testing.T) {
	decls := "\t.shared .align 8 .b64 ring[4];\n\t.shared .align 4 .b8 raw[16];"
	body := `	mov.u32 %r2, ring;
	mbarrier.init.shared.b64 [bar], 1;
	mbarrier.init.shared.b64 [%r2+24], 3;
	mov.u32 %r3, raw;
	mbarrier.init.shared.b64 [%r3+8], 5;
	mbarrier.inval.shared.b64 [bar];
	mbarrier.init.shared.b64 [bar], 7;
	ret;`
	l := clusterLaunch{src: mbarKernel(decls, body), grid: [3]int{1, 1, 1}, block: 1, words: 1}
	for _, sched := range bothScheds {
		m := l.machine(t, sched)
		var seen []string
		for m.Step(StepWarpInstruction) == StopStepped {
			var names []string
			for _, b := range m.CTAs()[0].Mbarriers() {
				names = append(names, b.Label())
			}
			seen = append(seen, strings.Join(names, " "))
		}
		if m.Fault() != nil {
			t.Fatalf("%s: %v", sched, m.Fault())
		}
		// ring is at 0x10 (after bar and bar2), raw at 0x30.
		// (after ld.param, mov %tid and mov ring)
		want := []string{"", "", "", "bar @0x0", "bar @0x0 ring[3] @0x28", "bar @0x0 ring[3] @0x28", "bar @0x0 ring[3] @0x28 raw+0x8 @0x38",
			"ring[3] @0x28 raw+0x8 @0x38", "bar @0x0 ring[3] @0x28 raw+0x8 @0x38", "bar @0x0 ring[3] @0x28 raw+0x8 @0x38"}
		if !reflect.DeepEqual(seen, want) {
			t.Errorf("%s: live mbarriers step by step %q\nwant %q", sched, seen, want)
		}
	}
}

// A CTA that reuses a retired CTA's memory starts with no live mbarrier.
func TestMbarriersListCTAReuse(t *testing.T) {
	body := `	mov.u32 %r3, %ctaid.x;
	setp.eq.u32 %p1, %r3, 0;
	@%p1 mbarrier.init.shared.b64 [bar], 1;
	ret;`
	s := ptx.NewSource("k.ptx", []byte(mbarKernel("", body)))
	prog, diags := CompileSource(s)
	if prog == nil {
		t.Fatal(ptx.FormatAll(s, diags))
	}
	for _, sched := range bothScheds {
		m, err := NewMachine(prog, "k", Config{Grid: [3]int{2, 1, 1}, Block: [3]int{32, 1, 1}, ResidentCTAs: 1, Scheduling: sched})
		if err != nil {
			t.Fatal(err)
		}
		m.Global.Alloc("out", 4, 256)
		had := false
		for m.Step(StepWarpInstruction) == StopStepped {
			c := m.CTAs()[0]
			n := len(c.Mbarriers())
			if c.Linear == 0 && n == 1 {
				had = true
			}
			if c.Linear == 1 && n != 0 {
				t.Fatalf("%s: CTA 1 has %d live mbarriers (%+v); it initialised none", sched, n, c.Mbarriers())
			}
		}
		if !had || m.CTAsFinished() != 2 {
			t.Fatalf("%s: CTA 0 never had its mbarrier (finished %d, fault %v)", sched, m.CTAsFinished(), m.Fault())
		}
	}
}

// Through the producer/consumer ring, at every step: the live mbarriers
// are the four of the ring once initialised (named full[0..1] and
// empty[0..1]), every warp waiting on an mbarrier is listed under it and
// only those; and a machine restored from the snapshot of any step lists
// the same, in both scheduling models.
func TestMbarriersListRingAcrossSnapshots(t *testing.T) {
	l := clusterLaunch{src: ringSrc(true, true), grid: [3]int{1, 1, 1}, block: 96, words: 64}
	for _, sched := range bothScheds {
		m := l.machine(t, sched)
		var snaps []*Snapshot
		var lists [][]MbarrierInfo
		waits := 0
		for m.Step(StepWarpInstruction) == StopStepped {
			c := m.CTAs()[0]
			list := c.Mbarriers()
			if len(list) == 4 {
				var labels []string
				for _, b := range list {
					labels = append(labels, b.Label())
					if !b.State.Valid {
						t.Fatalf("%s: %s not valid", sched, b.Label())
					}
				}
				if got := strings.Join(labels, " "); got != "full[0] @0x10 full[1] @0x18 empty[0] @0x20 empty[1] @0x28" {
					t.Fatalf("%s: labels %q", sched, got)
				}
			}
			listed := map[int]uint64{}
			for _, b := range list {
				for _, w := range b.Waiting {
					listed[w.Warp] = b.Off
				}
			}
			for _, w := range c.Warps {
				tw, ok := w.Waiting()
				on, in := listed[w.ID]
				switch {
				case ok && tw.Kind == WaitMbarrier:
					waits++
					if !in || on != tw.Addr {
						t.Fatalf("%s: warp %d waits on @%#x, listed: %v", sched, w.ID, tw.Addr, listed)
					}
					if !strings.HasPrefix(w.WaitText(), "mbarrier full[") && !strings.HasPrefix(w.WaitText(), "mbarrier empty[") {
						t.Fatalf("%s: wait text %q", sched, w.WaitText())
					}
				case in:
					t.Fatalf("%s: warp %d listed as waiting on @%#x; it does not wait on an mbarrier", sched, w.ID, on)
				}
			}
			snaps = append(snaps, m.Snapshot(true))
			lists = append(lists, list)
		}
		if m.Fault() != nil || waits == 0 {
			t.Fatalf("%s: fault %v, %d waits", sched, m.Fault(), waits)
		}
		for i := 0; i < len(snaps); i += 7 {
			x := l.machine(t, sched)
			x.Restore(snaps[i])
			if got := x.CTAs()[0].Mbarriers(); !reflect.DeepEqual(got, lists[i]) {
				t.Fatalf("%s: restored at step %d: %+v, want %+v", sched, i, got, lists[i])
			}
		}
	}
}

// DiffState sees two machines that differ only in which offsets hold live
// mbarriers.
func TestDiffStateSeesLiveMbarriers(t *testing.T) {
	l := clusterLaunch{src: ringSrc(true, true), grid: [3]int{1, 1, 1}, block: 96, words: 64}
	a, b := l.machine(t, SchedIndependent), l.machine(t, SchedIndependent)
	for range 40 {
		a.Step(StepWarpInstruction)
		b.Step(StepWarpInstruction)
	}
	if d := a.DiffState(b); d != "" {
		t.Fatalf("equal runs differ: %s", d)
	}
	b.CTAs()[0].mbarLive(0x30)
	if d := a.DiffState(b); !strings.Contains(d, "live mbarriers") {
		t.Fatalf("DiffState %q", d)
	}
}
