package emu

import (
	"context"
	"encoding/binary"
	"fmt"
	"math/bits"
	"strings"
	"testing"

	"github.com/ptxplayground/ptxplay/engine/ptx"
)

// clusterLaunch is a kernel k(.param .u64 out) launched with clusters.
type clusterLaunch struct {
	src     string
	grid    [3]int
	block   int
	cluster [3]int
	words   int
}

func (l clusterLaunch) machine(t testing.TB, sched Scheduling) *Machine {
	t.Helper()
	s := ptx.NewSource("k.ptx", []byte(l.src))
	prog, diags := CompileSource(s)
	if prog == nil {
		t.Fatalf("compile:\n%s\n%s", ptx.FormatAll(s, diags), ixNumbered(l.src))
	}
	m, err := NewMachine(prog, "k", Config{Grid: l.grid, Block: [3]int{l.block, 1, 1}, Cluster: l.cluster, Scheduling: sched})
	if err != nil {
		t.Fatal(err)
	}
	a := m.Global.Alloc("out", 4*max(l.words, 1), 256)
	binary.LittleEndian.PutUint64(m.Params(), a.Base)
	return m
}

func outWords(m *Machine, n int) []uint32 {
	a := m.Global.Allocs()[1]
	w := make([]uint32, n)
	for i := range w {
		w[i] = binary.LittleEndian.Uint32(a.Data[4*i:])
	}
	return w
}

var bothScheds = []Scheduling{SchedIndependent, SchedSIMTStack}

// run runs l in both scheduling models, batched, unbatched and one
// warp-instruction at a time, checks that all end in the same state, and
// returns the stop reason, the output and the machine of the batched
// independent run.
func (l clusterLaunch) run(t *testing.T) (StopReason, []uint32, *Machine) {
	t.Helper()
	var first []uint32
	var fr StopReason
	var fm *Machine
	for _, sched := range bothScheds {
		a, b, c := l.machine(t, sched), l.machine(t, sched), l.machine(t, sched)
		b.SetBatchedDispatch(false)
		ra, rb := a.Run(context.Background()), b.Run(context.Background())
		rc := StopStepped
		for n := 0; rc == StopStepped && n < 1e6; n++ {
			rc = c.Step(StepWarpInstruction)
		}
		if ra != rb || ra != rc {
			t.Fatalf("%s: batched run stopped with %v, unbatched with %v, stepped with %v (%v)", sched, ra, rb, rc, b.Fault())
		}
		if d := a.DiffState(b); d != "" {
			t.Fatalf("%s: batched and unbatched runs differ: %s", sched, d)
		}
		if d := a.DiffState(c); d != "" {
			t.Fatalf("%s: run and one-at-a-time stepping differ: %s", sched, d)
		}
		out := outWords(a, l.words)
		if first == nil {
			first, fr, fm = out, ra, a
		} else if fmt.Sprint(out) != fmt.Sprint(first) || ra != fr {
			t.Fatalf("the scheduling models disagree: %v %v vs %v %v", fr, first, ra, out)
		}
	}
	return fr, first, fm
}

const clusterHead = `.version 8.0
.target sm_90
.address_size 64
`

// Every cluster special register of every thread 0, in clusters of 1, 2
// and 4 CTAs (and a 2x2 cluster), against values computed by hand.
func TestClusterSpecialRegisters(t *testing.T) {
	src := clusterHead + `.visible .entry k(.param .u64 out) {
	.reg .u32 %r<20>; .reg .u64 %rd<4>; .reg .pred %p<2>;
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, %tid.x;
	setp.ne.u32 %p1, %r1, 0;
	@%p1 exit;
	mov.u32 %r2, %ctaid.x;
	mov.u32 %r3, %ctaid.y;
	mov.u32 %r4, %nctaid.x;
	mad.lo.u32 %r5, %r3, %r4, %r2;
	mul.lo.u32 %r5, %r5, 40;
	cvt.u64.u32 %rd2, %r5;
	add.u64 %rd1, %rd1, %rd2;
	mov.u32 %r6, %clusterid.x;       st.global.u32 [%rd1], %r6;
	mov.u32 %r6, %clusterid.y;       st.global.u32 [%rd1+4], %r6;
	mov.u32 %r6, %nclusterid.x;      st.global.u32 [%rd1+8], %r6;
	mov.u32 %r6, %nclusterid.y;      st.global.u32 [%rd1+12], %r6;
	mov.u32 %r6, %cluster_ctaid.x;   st.global.u32 [%rd1+16], %r6;
	mov.u32 %r6, %cluster_ctaid.y;   st.global.u32 [%rd1+20], %r6;
	mov.u32 %r6, %cluster_nctaid.x;  st.global.u32 [%rd1+24], %r6;
	mov.u32 %r6, %cluster_ctarank;   st.global.u32 [%rd1+28], %r6;
	mov.u32 %r6, %cluster_nctarank;  st.global.u32 [%rd1+32], %r6;
	mov.pred %p1, %is_explicit_cluster;
	selp.u32 %r6, 1, 0, %p1;         st.global.u32 [%rd1+36], %r6;
	ret;
}`
	for _, tc := range []struct {
		grid, cluster [3]int
	}{
		{[3]int{4, 2, 1}, [3]int{}},
		{[3]int{4, 2, 1}, [3]int{1, 1, 1}},
		{[3]int{4, 2, 1}, [3]int{2, 1, 1}},
		{[3]int{4, 2, 1}, [3]int{4, 1, 1}},
		{[3]int{4, 2, 1}, [3]int{2, 2, 1}},
	} {
		t.Run(fmt.Sprint(tc.cluster), func(t *testing.T) {
			l := clusterLaunch{src: src, grid: tc.grid, block: 64, cluster: tc.cluster, words: 8 * 10}
			r, out, _ := l.run(t)
			if r != StopDone {
				t.Fatalf("stop %v", r)
			}
			c := tc.cluster
			explicit := uint32(1)
			if c == [3]int{} {
				c, explicit = [3]int{1, 1, 1}, 0
			}
			for y := 0; y < 2; y++ {
				for x := 0; x < 4; x++ {
					got := out[(y*4+x)*10:][:10]
					cx, cy := x%c[0], y%c[1]
					want := []uint32{uint32(x / c[0]), uint32(y / c[1]), uint32(4 / c[0]), uint32(2 / c[1]),
						uint32(cx), uint32(cy), uint32(c[0]), uint32(cx + cy*c[0]), uint32(c[0] * c[1]), explicit}
					if fmt.Sprint(got) != fmt.Sprint(want) {
						t.Errorf("CTA (%d,%d): got %v, want %v", x, y, got, want)
					}
				}
			}
		})
	}
}

// mapa of every rank and getctarank of the result, in both address forms.
func TestClusterMapaEveryRank(t *testing.T) {
	src := clusterHead + `.visible .entry k(.param .u64 out) {
	.reg .u32 %r<20>; .reg .u64 %rd<8>; .reg .pred %p<2>;
	.shared .align 4 .b8 buf[64];
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, %tid.x;          // the target rank
	mov.u32 %r9, %cluster_nctarank;
	setp.ge.u32 %p1, %r1, %r9;
	@%p1 exit;
	mov.u32 %r2, %ctaid.x;
	mad.lo.u32 %r3, %r2, 4, %r1;  // word group of (CTA, rank)
	mul.lo.u32 %r3, %r3, 16;
	cvt.u64.u32 %rd2, %r3;
	add.u64 %rd1, %rd1, %rd2;
	mov.u32 %r4, buf;
	add.u32 %r4, %r4, 8;
	mapa.shared::cluster.u32 %r5, %r4, %r1;
	st.global.u32 [%rd1], %r5;
	getctarank.shared::cluster.u32 %r6, %r5;
	st.global.u32 [%rd1+4], %r6;
	cvta.shared.u64 %rd3, buf;
	mapa.u64 %rd4, %rd3, %r1;
	cvta.to.shared::cluster.u64 %rd5, %rd4;
	cvt.u32.u64 %r7, %rd5;
	st.global.u32 [%rd1+8], %r7;
	getctarank.u64 %r8, %rd4;
	st.global.u32 [%rd1+12], %r8;
	ret;
}`
	for _, n := range []int{1, 2, 4} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			l := clusterLaunch{src: src, grid: [3]int{4, 1, 1}, block: 32, cluster: [3]int{n, 1, 1}, words: 4 * 4 * 4}
			r, out, _ := l.run(t)
			if r != StopDone {
				t.Fatalf("stop %v", r)
			}
			for cta := 0; cta < 4; cta++ {
				for rank := 0; rank < n; rank++ {
					got := out[(cta*4+rank)*4:][:4]
					want := []uint32{uint32(rank+1)<<24 | 8, uint32(rank), uint32(rank+1) << 24, uint32(rank)}
					if fmt.Sprint(got) != fmt.Sprint(want) {
						t.Errorf("CTA %d rank %d: got %x, want %x", cta, rank, got, want)
					}
				}
			}
		})
	}
}

// Each CTA stores into the next rank's shared memory through
// st.shared::cluster, then reads its own after the cluster barrier: it
// holds what the previous rank stored.
const dsmemRingPTX = clusterHead + `.visible .entry k(.param .u64 out) {
	.reg .u32 %r<20>; .reg .u64 %rd<8>; .reg .pred %p<2>;
	.shared .align 4 .b32 buf[64];
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, %cluster_ctarank;
	mov.u32 %r3, %cluster_nctarank;
	add.u32 %r4, %r2, 1;
	rem.u32 %r4, %r4, %r3;        // the next rank
	mov.u32 %r5, buf;
	shl.b32 %r6, %r1, 2;
	add.u32 %r5, %r5, %r6;
	mapa.shared::cluster.u32 %r7, %r5, %r4;
	mad.lo.u32 %r8, %r2, 100, %r1;
	st.shared::cluster.u32 [%r7], %r8;
	BARRIER
	ld.shared.u32 %r9, [%r5];
	mov.u32 %r10, %ctaid.x;
	mad.lo.u32 %r11, %r10, 64, %r1;
	mul.wide.u32 %rd2, %r11, 4;
	add.u64 %rd3, %rd1, %rd2;
	st.global.u32 [%rd3], %r9;
	ret;
}`

func TestClusterRemoteStoreAfterBarrier(t *testing.T) {
	src := strings.Replace(dsmemRingPTX, "BARRIER", "barrier.cluster.arrive.aligned;\n\tbarrier.cluster.wait.aligned;", 1)
	for _, n := range []int{1, 2, 4} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			l := clusterLaunch{src: src, grid: [3]int{4, 1, 1}, block: 64, cluster: [3]int{n, 1, 1}, words: 4 * 64}
			r, out, m := l.run(t)
			if r != StopDone {
				t.Fatalf("stop %v (%v)", r, m.Fault())
			}
			for cta := 0; cta < 4; cta++ {
				rank := cta % n
				prev := (rank + n - 1) % n
				for tid := 0; tid < 64; tid++ {
					if got, want := out[cta*64+tid], uint32(prev*100+tid); got != want {
						t.Fatalf("CTA %d thread %d read %d, want %d", cta, tid, got, want)
					}
				}
			}
		})
	}
}

// The cluster barrier is per thread: .relaxed arrive and a plain wait in
// divergent code, arrivals split across the warp's paths.
func TestClusterBarrierDivergentArrivals(t *testing.T) {
	src := strings.Replace(dsmemRingPTX, "BARRIER", `setp.lt.u32 %p1, %r1, 16;
	@%p1 bra LO;
	barrier.cluster.arrive.relaxed;
	bra.uni J;
LO:
	barrier.cluster.arrive;
J:
	fence.acq_rel.cluster;
	barrier.cluster.wait.acquire;`, 1)
	l := clusterLaunch{src: src, grid: [3]int{4, 1, 1}, block: 64, cluster: [3]int{2, 1, 1}, words: 4 * 64}
	r, out, m := l.run(t)
	if r != StopDone {
		t.Fatalf("stop %v (%v)", r, m.Fault())
	}
	for cta := 0; cta < 4; cta++ {
		prev := (cta%2 + 1) % 2
		if got, want := out[cta*64+5], uint32(prev*100+5); got != want {
			t.Fatalf("CTA %d read %d, want %d", cta, got, want)
		}
	}
}

// A cluster deadlock: a warp of rank 1 waits at a CTA barrier for a warp
// that waits at the cluster barrier for it.
func TestClusterBarrierDeadlock(t *testing.T) {
	src := clusterHead + `.visible .entry k(.param .u64 out) {
	.reg .u32 %r<8>; .reg .pred %p<2>;
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, %cluster_ctarank;
	setp.eq.u32 %p1, %r2, 1;
	setp.ge.and.u32 %p1, %r1, 32, %p1;
	@%p1 bra OTHER;
	barrier.cluster.arrive;
	barrier.cluster.wait;
	bar.sync 1, 64;
	ret;
OTHER:
	bar.sync 1, 64;
	barrier.cluster.arrive;
	barrier.cluster.wait;
	ret;
}`
	l := clusterLaunch{src: src, grid: [3]int{2, 1, 1}, block: 64, cluster: [3]int{2, 1, 1}, words: 1}
	r, _, m := l.run(t)
	f := m.Fault()
	if r != StopFault || f == nil || f.Kind != FaultDeadlock {
		t.Fatalf("stop %v, fault %v", r, f)
	}
	for _, want := range []string{"cluster barrier deadlock", "CTA (0,0,0): warp 0 waits for the cluster barrier (96 of 128 threads of the cluster arrived)", "CTA (1,0,0): barrier 1 has 32 of 64 threads (warps 1 waiting)"} {
		if !strings.Contains(f.Message, want) {
			t.Errorf("fault %q\nlacks %q", f.Message, want)
		}
	}
	if len(f.Waiting) != 4 {
		t.Errorf("waiting %+v, want the 4 warps", f.Waiting)
	}
}

// A remote access to a peer whose threads have exited, and to a rank
// outside the cluster, fault naming the CTA and the rank.
func TestClusterBadPeerFaults(t *testing.T) {
	for _, tc := range []struct{ name, body, want string }{
		{"exited", `setp.eq.u32 %p1, %r2, 1;
	@%p1 exit;
	barrier.cluster.arrive;
	barrier.cluster.wait;
	mapa.shared::cluster.u32 %r7, %r5, 1;
	st.shared::cluster.u32 [%r7], %r1;`, "in the shared memory of CTA (1,0,0) (rank 1), whose threads have all exited"},
		{"mapa-rank", `mapa.shared::cluster.u32 %r7, %r5, 2;`, "mapa: CTA rank 2 is outside the cluster of 2 CTAs (ranks 0-1)"},
		{"load-rank", `add.u32 %r7, %r5, 0x3000000;
	ld.shared::cluster.u32 %r8, [%r7];`, "names CTA rank 2, outside the cluster of 2 CTAs (ranks 0-1)"},
		{"generic-rank", `cvt.u64.u32 %rd1, %r5;
	cvta.shared::cluster.u64 %rd2, %rd1;
	add.u64 %rd2, %rd2, 0x5000000;
	ld.u32 %r8, [%rd2];`, "names CTA rank 4, outside the cluster of 2 CTAs"},
		{"cta-space", `mapa.shared::cluster.u32 %r7, %r5, 1;
	ld.shared.u32 %r8, [%r7];`, "that is the .shared::cluster address of offset 0x0 in the CTA of rank 1"},
		{"wait-first", `barrier.cluster.wait;`, "wait without having arrived"},
		{"arrive-twice", `setp.eq.u32 %p1, %r2, 1;
	@%p1 bra LATE;
	barrier.cluster.arrive;
	barrier.cluster.arrive;
	ret;
LATE:
	add.u32 %r3, %r1, 1;
	add.u32 %r3, %r3, 1;
	add.u32 %r3, %r3, 1;
	add.u32 %r3, %r3, 1;
	barrier.cluster.arrive;
	barrier.cluster.wait;`, "arrive again in a phase"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := clusterHead + `.visible .entry k(.param .u64 out) {
	.reg .u32 %r<20>; .reg .u64 %rd<4>; .reg .pred %p<2>;
	.shared .align 4 .b32 buf[64];
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, %cluster_ctarank;
	mov.u32 %r5, buf;
	` + tc.body + `
	ret;
}`
			l := clusterLaunch{src: src, grid: [3]int{2, 1, 1}, block: 32, cluster: [3]int{2, 1, 1}, words: 1}
			r, _, m := l.run(t)
			if f := m.Fault(); r != StopFault || f == nil || !strings.Contains(f.Message, tc.want) {
				t.Fatalf("stop %v, fault %v; want %q", r, f, tc.want)
			}
			if f := m.Fault(); f.PC < 0 {
				t.Errorf("fault names no instruction: %+v", f)
			}
		})
	}
}

// A 1-CTA cluster's barrier waits for every thread of the CTA, and a
// thread that exits without arriving does not hold it up.
func TestClusterBarrierOneCTA(t *testing.T) {
	src := strings.Replace(dsmemRingPTX, "BARRIER", "barrier.cluster.arrive;\n\tbarrier.cluster.wait;", 1)
	src = strings.Replace(src, "mov.u32 %r1, %tid.x;", "mov.u32 %r1, %tid.x;\n\tsetp.ge.u32 %p1, %r1, 48;\n\t@%p1 exit;", 1)
	l := clusterLaunch{src: src, grid: [3]int{2, 1, 1}, block: 64, cluster: [3]int{}, words: 2 * 64}
	r, out, m := l.run(t)
	if r != StopDone {
		t.Fatalf("stop %v (%v)", r, m.Fault())
	}
	if out[64+7] != 7 || out[47] != 47 || out[48] != 0 {
		t.Fatalf("got %v", out)
	}
}

// isspacep.shared::cluster and .shared tell a peer's generic address from
// the CTA's own.
func TestClusterIsspacep(t *testing.T) {
	src := clusterHead + `.visible .entry k(.param .u64 out) {
	.reg .u32 %r<20>; .reg .u64 %rd<8>; .reg .pred %p<4>;
	.shared .align 4 .b32 buf[64];
	ld.param.u64 %rd1, [out];
	mov.u32 %r2, %cluster_ctarank;
	mov.u32 %r1, %tid.x;
	setp.ne.u32 %p1, %r1, 0;
	@%p1 exit;
	cvta.shared.u64 %rd2, buf;
	mapa.u64 %rd3, %rd2, 1;
	isspacep.shared %p1, %rd2;  selp.u32 %r3, 1, 0, %p1;
	isspacep.shared %p1, %rd3;  selp.u32 %r4, 1, 0, %p1;
	isspacep.shared::cluster %p1, %rd3;  selp.u32 %r5, 1, 0, %p1;
	isspacep.global %p1, %rd3;  selp.u32 %r6, 1, 0, %p1;
	mul.wide.u32 %rd4, %r2, 16;
	add.u64 %rd1, %rd1, %rd4;
	st.global.v4.u32 [%rd1], {%r3, %r4, %r5, %r6};
	ret;
}`
	l := clusterLaunch{src: src, grid: [3]int{2, 1, 1}, block: 32, cluster: [3]int{2, 1, 1}, words: 8}
	r, out, m := l.run(t)
	if r != StopDone {
		t.Fatalf("stop %v (%v)", r, m.Fault())
	}
	if want := "[1 0 1 0 1 1 1 0]"; fmt.Sprint(out) != want {
		t.Fatalf("got %v, want %s", out, want)
	}
}

// Launch checks of the cluster shape and the kernel's cluster directives.
func TestClusterConfigErrors(t *testing.T) {
	for _, tc := range []struct {
		dirs          string
		grid, cluster [3]int
		want          string
	}{
		{"", [3]int{3, 1, 1}, [3]int{2, 1, 1}, "the grid's x dimension (3) is not a multiple of the cluster's (2)"},
		{"", [3]int{32, 1, 1}, [3]int{32, 1, 1}, "cluster dimensions must be between 1 and 16"},
		{"", [3]int{8, 4, 1}, [3]int{8, 4, 1}, "has 32 CTAs; the limit is 16"},
		{".reqnctapercluster 2", [3]int{4, 1, 1}, [3]int{4, 1, 1}, "requires clusters of 2x1x1 CTAs (.reqnctapercluster); the launch gives 4x1x1"},
		{".explicitcluster", [3]int{4, 1, 1}, [3]int{}, "must be launched with cluster dimensions (.explicitcluster)"},
		{".maxclusterrank 2", [3]int{4, 1, 1}, [3]int{4, 1, 1}, "allows at most 2 (.maxclusterrank)"},
		{".reqnctapercluster 2 .maxclusterrank 2", [3]int{4, 1, 1}, [3]int{}, "cannot be combined"},
		{".reqnctapercluster 4", [3]int{6, 1, 1}, [3]int{}, "not a multiple of the cluster's (4)"},
	} {
		src := clusterHead + ".visible .entry k(.param .u64 out) " + tc.dirs + " { ret; }"
		prog, diags := CompileSource(ptx.NewSource("k.ptx", []byte(src)))
		if prog == nil {
			t.Fatalf("%s: %v", tc.dirs, diags)
		}
		_, err := NewMachine(prog, "k", Config{Grid: tc.grid, Block: [3]int{32, 1, 1}, Cluster: tc.cluster})
		ce, ok := err.(*ConfigError)
		if !ok || ce.Field != "cluster" || !strings.Contains(ce.Msg, tc.want) {
			t.Errorf("%s %v %v: error %v, want the cluster field and %q", tc.dirs, tc.grid, tc.cluster, err, tc.want)
		}
	}
	// The kernel's .reqnctapercluster is the default, and explicit.
	src := clusterHead + ".visible .entry k(.param .u64 out) .reqnctapercluster 2, 1, 1 { ret; }"
	prog, _ := CompileSource(ptx.NewSource("k.ptx", []byte(src)))
	m, err := NewMachine(prog, "k", Config{Grid: [3]int{4, 1, 1}, Block: [3]int{32, 1, 1}})
	if err != nil || m.ClusterShape() != [3]int{2, 1, 1} || !m.explicit {
		t.Fatalf("err %v, shape %v explicit %v", err, m.ClusterShape(), m.explicit)
	}
}

// Snapshots taken at every step of a cluster launch restore to the same
// state, and a run from a restored snapshot ends as a fresh run does.
func TestClusterSnapshotsRestore(t *testing.T) {
	src := strings.Replace(dsmemRingPTX, "BARRIER", "barrier.cluster.arrive;\n\tbarrier.cluster.wait;", 1)
	l := clusterLaunch{src: src, grid: [3]int{4, 1, 1}, block: 64, cluster: [3]int{2, 1, 1}, words: 4 * 64}
	for _, sched := range bothScheds {
		ref := l.machine(t, sched)
		ref.Run(context.Background())
		m := l.machine(t, sched)
		var snaps []*Snapshot
		for m.Step(StepWarpInstruction) == StopStepped {
			snaps = append(snaps, m.Snapshot(true))
		}
		for i := 0; i < len(snaps); i += 7 {
			x := l.machine(t, sched)
			x.Restore(snaps[i])
			y := l.machine(t, sched)
			y.Restore(snaps[i])
			if d := x.DiffState(y); d != "" {
				t.Fatalf("%s: snapshot %d restores differently: %s", sched, i, d)
			}
			x.Run(context.Background())
			if d := x.DiffState(ref); d != "" {
				t.Fatalf("%s: run from snapshot %d differs from a fresh run: %s", sched, i, d)
			}
		}
	}
}

// Accesses to a peer's shared memory are reported with the peer's CTA
// and the offset in its shared memory.
func TestClusterAccessNamesPeer(t *testing.T) {
	src := strings.Replace(dsmemRingPTX, "BARRIER", "barrier.cluster.arrive;\n\tbarrier.cluster.wait;", 1)
	l := clusterLaunch{src: src, grid: [3]int{2, 1, 1}, block: 64, cluster: [3]int{2, 1, 1}, words: 2 * 64}
	m := l.machine(t, SchedIndependent)
	rec := &peerStoreRecorder{}
	m.AddObserver(rec)
	if r := m.Run(context.Background()); r != StopDone {
		t.Fatalf("stop %v", r)
	}
	found := 0
	for _, a := range rec.stores {
		if a.Space.String() == "shared" && a.CTA != a.from {
			found++
			// buf's offset in shared memory is where the own load of lane
			// 0 of the CTA's warp 0 read.
			// Warp w's lanes store at buf + 4*(32w + lane).
			if d := a.Addr[0] - rec.ownLoad[a.CTA]; a.Addr[3] != a.Addr[0]+12 || d != 0 && d != 128 || a.CTA != 1-a.from {
				t.Errorf("remote store of CTA %d: CTA %d, lanes 0 and 3 at offsets %#x %#x (buf at %#x)", a.from, a.CTA, a.Addr[0], a.Addr[3], rec.ownLoad[a.CTA])
			}
		}
	}
	if found != 4 {
		t.Fatalf("%d remote store accesses, want 4 (2 warps in each of 2 CTAs)", found)
	}
}

type recordedAccess struct {
	Access
	from int // the executing CTA
}

// peerStoreRecorder keeps every store access with the CTA that executed it.
type peerStoreRecorder struct {
	stores  []recordedAccess
	ownLoad map[int]uint64 // the offset lane 0 of each CTA's first shared load read
}

func (r *peerStoreRecorder) Observes() ObserveFlags { return ObserveAccesses }

func (r *peerStoreRecorder) Step(in *StepInfo) {
	for _, a := range in.Accesses {
		if a.Kind == AccessLoad && a.Space.String() == "shared" && a.Lanes&1 != 0 {
			if r.ownLoad == nil {
				r.ownLoad = map[int]uint64{}
			}
			if _, ok := r.ownLoad[a.CTA]; !ok {
				r.ownLoad[a.CTA] = a.Addr[0]
			}
		}
		if a.Kind == AccessStore {
			r.stores = append(r.stores, recordedAccess{a, in.CTALin})
		}
	}
}

// The cluster barrier's events: every thread's arrive is reported once
// per phase (EvClusterArrive), each phase's completion once
// (EvClusterRelease, naming the warps it lets go in every CTA of the
// cluster), and every thread's wait ends exactly once, either released
// or at once (EvClusterWait), in both scheduling models.
func TestClusterBarrierEvents(t *testing.T) {
	// Two phases; between the arrive and the wait, warp 1 of each CTA
	// spins long enough that the other warps' waits block, and then
	// waits after the phase completed.
	src := strings.Replace(dsmemRingPTX, "BARRIER", `barrier.cluster.arrive;
	shr.u32 %r12, %r1, 5;
	setp.ne.u32 %p1, %r12, 1;
	@%p1 bra WAIT;
	mov.u32 %r13, 0;
SPIN:
	add.u32 %r13, %r13, 1;
	setp.lt.u32 %p1, %r13, 50;
	@%p1 bra SPIN;
WAIT:
	barrier.cluster.wait;
	barrier.cluster.arrive.relaxed;
	barrier.cluster.wait;`, 1)
	for _, sched := range bothScheds {
		t.Run(fmt.Sprint(sched), func(t *testing.T) {
			l := clusterLaunch{src: src, grid: [3]int{4, 1, 1}, block: 64, cluster: [3]int{2, 1, 1}, words: 4 * 64}
			m := l.machine(t, sched)
			log := &eventLog{}
			m.AddObserver(log)
			if r := m.Run(context.Background()); r != StopDone {
				t.Fatalf("stop %v (%v)", r, m.Fault())
			}
			arrived := map[[2]int]int{} // (phase, relaxed) -> threads
			waited := 0
			releases := map[int]int{}
			for _, e := range log.evs {
				switch e.Kind {
				case EvClusterArrive:
					r := 0
					if e.Relaxed {
						r = 1
					}
					arrived[[2]int{e.ID, r}] += bits.OnesCount32(e.Mask)
					if e.Count > e.Expected || e.Expected != 128 {
						t.Errorf("arrive: count %d of %d, want at most 128 of 128", e.Count, e.Expected)
					}
				case EvClusterWait:
					waited += bits.OnesCount32(e.Mask)
				case EvClusterRelease:
					releases[e.ID]++
					if e.Count != 128 || e.Expected != 128 {
						t.Errorf("release of phase %d: count %d of %d, want 128 of 128", e.ID, e.Count, e.Expected)
					}
					for _, bw := range e.Warps {
						if bw.Barrier != -1 {
							t.Errorf("released warp names barrier %d", bw.Barrier)
						}
						waited += bits.OnesCount32(bw.Lanes)
					}
				}
			}
			// Two clusters of 2 CTAs of 64 threads, two phases each.
			if want := map[[2]int]int{{0, 0}: 256, {1, 1}: 256}; fmt.Sprint(arrived) != fmt.Sprint(want) {
				t.Errorf("arrivals by (phase, relaxed): %v, want %v", arrived, want)
			}
			if fmt.Sprint(releases) != fmt.Sprint(map[int]int{0: 2, 1: 2}) {
				t.Errorf("releases by phase: %v, want two of each phase (one per cluster)", releases)
			}
			if waited != 2*256 {
				t.Errorf("%d thread waits ended, want %d (every thread's wait, once, in each phase)", waited, 2*256)
			}
		})
	}
}

// A warp waiting at the cluster barrier says how many of the cluster's
// live threads have arrived: CTA rank 0 (64 threads) arrives at once,
// rank 1 only after a loop.
func TestClusterBarrierWaitText(t *testing.T) {
	src := clusterHead + `.visible .entry k(.param .u64 out) {
	.reg .u32 %r<8>; .reg .pred %p<2>;
	mov.u32 %r2, %cluster_ctarank;
	shl.b32 %r3, %r2, 3;
	mov.u32 %r4, 0;
L:
	setp.ge.u32 %p1, %r4, %r3;
	@%p1 bra GO;
	add.u32 %r4, %r4, 1;
	bra L;
GO:
	barrier.cluster.arrive;
	barrier.cluster.wait;
	ret;
}`
	for _, sched := range bothScheds {
		l := clusterLaunch{src: src, grid: [3]int{2, 1, 1}, block: 64, cluster: [3]int{2, 1, 1}, words: 1}
		m := l.machine(t, sched)
		var w0, peer *Warp
		for n := 0; n < 1000; n++ {
			if r := m.Step(StepWarpInstruction); r != StopStepped {
				t.Fatalf("%s: stopped with %v before rank 0 waited", sched, r)
			}
			cs := m.CTAs()
			if len(cs) == 2 && cs[0].Warps[0].State == WarpWaiting && cs[0].Warps[1].State == WarpWaiting {
				w0, peer = cs[0].Warps[0], cs[1].Warps[0]
				break
			}
		}
		if w0 == nil {
			t.Fatalf("%s: rank 0 never waited", sched)
		}
		if got, want := w0.WaitText(), "the cluster barrier (64 of 128 threads of the cluster arrived)"; got != want {
			t.Errorf("%s: wait text %q, want %q", sched, got, want)
		}
		if a, live := w0.CTA().Cluster().Arrivals(); a != 64 || live != 128 {
			t.Errorf("%s: arrivals %d of %d, want 64 of 128", sched, a, live)
		}
		// Its lanes stand at the wait, not runnable past it.
		t0, _ := w0.Waiting()
		for _, g := range w0.Groups() {
			if g.State != GroupAtWait || g.PC != t0.PC || g.Mask != 0xffffffff {
				t.Errorf("%s: a waiting warp's group %+v, want every lane at-wait at pc %d", sched, g, t0.PC)
			}
		}
		if got := peer.WaitText(); got != "" {
			t.Errorf("%s: a running warp's wait text %q, want none", sched, got)
		}
		if r := m.Run(context.Background()); r != StopDone {
			t.Fatalf("%s: %v %v", sched, r, m.Fault())
		}
	}
}

// atom and red on .shared::cluster: every thread of the cluster adds to
// a counter in rank 0's shared memory (atom, keeping what it returned)
// and to one in its next rank's (red); after the cluster barrier each
// CTA's counters hold hand-computed totals.
func TestClusterAtomicsOnPeers(t *testing.T) {
	src := clusterHead + `.visible .entry k(.param .u64 out) {
	.reg .u32 %r<20>; .reg .u64 %rd<8>; .reg .pred %p<2>;
	.shared .align 4 .b32 cnt[2];
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, %cluster_ctarank;
	mov.u32 %r3, %cluster_nctarank;
	add.u32 %r4, %r2, 1;
	rem.u32 %r4, %r4, %r3;
	mov.u32 %r5, cnt;
	mapa.shared::cluster.u32 %r6, %r5, 0;
	atom.shared::cluster.add.u32 %r7, [%r6], 1;
	add.u32 %r8, %r5, 4;
	mapa.shared::cluster.u32 %r9, %r8, %r4;
	add.u32 %r10, %r2, 1;
	red.shared::cluster.add.u32 [%r9], %r10;
	barrier.cluster.arrive;
	barrier.cluster.wait;
	setp.ne.u32 %p1, %r1, 0;
	@%p1 bra DONE;
	ld.shared.u32 %r11, [cnt];
	ld.shared.u32 %r12, [cnt+4];
	mov.u32 %r13, %ctaid.x;
	mul.wide.u32 %rd2, %r13, 8;
	add.u64 %rd3, %rd1, %rd2;
	st.global.v2.u32 [%rd3], {%r11, %r12};
DONE:
	barrier.cluster.arrive;
	barrier.cluster.wait;
	ret;
}`
	for _, n := range []int{1, 2, 4} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			l := clusterLaunch{src: src, grid: [3]int{4, 1, 1}, block: 64, cluster: [3]int{n, 1, 1}, words: 8}
			r, out, m := l.run(t)
			if r != StopDone {
				t.Fatalf("stop %v (%v)", r, m.Fault())
			}
			for cta := 0; cta < 4; cta++ {
				rank := cta % n
				c0 := uint32(0)
				if rank == 0 {
					c0 = uint32(64 * n) // every thread of the cluster
				}
				prev := (rank + n - 1) % n
				c1 := uint32(64 * (prev + 1)) // the previous rank's 64 threads add rank+1 each
				if out[2*cta] != c0 || out[2*cta+1] != c1 {
					t.Errorf("CTA %d (rank %d): counters %d %d, want %d %d", cta, rank, out[2*cta], out[2*cta+1], c0, c1)
				}
			}
		})
	}
}
