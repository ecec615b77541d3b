package analysis_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ptxplayground/ptxplay/engine/analysis"
	"github.com/ptxplayground/ptxplay/engine/launch"
)

// dsmemExchange: each thread stores its tid into its slot of the next
// CTA's buf (distributed shared memory, through mapa), SYNC orders the
// cluster, and each thread reads its own slot of its own buf (written by
// the previous CTA's thread of the same tid).
const dsmemExchange = `.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 p) {
	.reg .pred %p<4>;
	.reg .b32 %r<20>;
	.reg .b64 %rd<8>;
	.shared .align 4 .b32 buf[64];
	ld.param.u64 %rd1, [p];
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, %cluster_ctarank;
	mov.u32 %r3, %cluster_nctarank;
	add.u32 %r4, %r2, 1;
	rem.u32 %r4, %r4, %r3;
	mov.u32 %r5, buf;
	shl.b32 %r6, %r1, 2;
	add.u32 %r5, %r5, %r6;
	mapa.shared::cluster.u32 %r7, %r5, %r4;
	st.shared::cluster.u32 [%r7], %r1;   // STORE
	SYNC
	ld.shared.u32 %r9, [%r5];            // LOAD
	mov.u32 %r10, %ctaid.x;
	mad.lo.u32 %r11, %r10, 64, %r1;
	mul.wide.u32 %rd2, %r11, 4;
	add.u64 %rd3, %rd1, %rd2;
	st.global.u32 [%rd3], %r9;
	ret;
}
`

func clusterSpec(sched string, grid, cluster int) string {
	return fmt.Sprintf(`{"grid": [%d], "block": [64], "cluster": [%d], "scheduling": %q, "buffers": [{"name": "p", "type": "u32", "count": %d}], "params": [{"buffer": "p"}]}`, grid, cluster, sched, 64*grid)
}

// checkCluster runs src with spec under a fast and a byte-exact checker,
// requires them to agree, and returns the warnings.
func checkCluster(t *testing.T, src, spec string) []analysis.Warning {
	t.Helper()
	s, err := launch.ParseSpec([]byte(`{"source": "(below)", ` + spec[1:]))
	if err != nil {
		t.Fatal(err)
	}
	fast, exact, df, de := runBoth(t, "k.ptx", []byte(src), s, true)
	sameWarnings(t, "k.ptx", fast, exact, df, de, src)
	return fast
}

// TestCheckerClusterDSMEM: accesses to a CTA's shared memory by the
// threads of every CTA of its cluster are checked against each other, and
// only the cluster barrier orders threads of different CTAs, in both
// scheduling models and in clusters of 2 and 4 CTAs.
func TestCheckerClusterDSMEM(t *testing.T) {
	for _, sched := range []string{"independent", "simt-stack"} {
		for _, n := range []int{2, 4} {
			spec := clusterSpec(sched, 8, n)
			name := fmt.Sprintf("%s/%d", sched, n)
			t.Run(name+"/cluster barrier", func(t *testing.T) {
				for _, sync := range []string{
					"barrier.cluster.arrive;\n\tbarrier.cluster.wait;",
					"barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;",
					// The CTA barrier as well does not hurt.
					"bar.sync 0;\n\tbarrier.cluster.arrive;\n\tbarrier.cluster.wait;",
					// A cluster-scope fence before a .relaxed arrive releases.
					"fence.acq_rel.cluster;\n\tbarrier.cluster.arrive.relaxed;\n\tbarrier.cluster.wait;",
				} {
					src := strings.Replace(dsmemExchange, "SYNC", sync, 1)
					if ws := checkCluster(t, src, spec); len(ws) != 0 {
						t.Errorf("%s: %d warnings, want none: %+v", sync, len(ws), ws)
					}
				}
			})
			for _, sync := range []string{
				"",            // no barrier at all
				"bar.sync 0;", // a CTA barrier orders only its own CTA
				// A .relaxed arrive publishes nothing.
				"barrier.cluster.arrive.relaxed;\n\tbarrier.cluster.wait;",
				// Nor does one after a CTA-scope fence.
				"fence.acq_rel.cta;\n\tbarrier.cluster.arrive.relaxed;\n\tbarrier.cluster.wait;",
				// The store after the arrive is not published by it.
				"barrier.cluster.arrive;\n\tst.shared::cluster.u32 [%r7], %r1;   // AGAIN\n\tbarrier.cluster.wait;",
			} {
				t.Run(name+"/"+strings.ReplaceAll(sync, "\n\t", " "), func(t *testing.T) {
					src := strings.Replace(dsmemExchange, "SYNC", sync, 1)
					ws := checkCluster(t, src, spec)
					store := lineOf(t, src, "// STORE")
					if strings.Contains(sync, "AGAIN") {
						store = lineOf(t, src, "// AGAIN")
					}
					load := lineOf(t, src, "// LOAD")
					races := 0
					for _, w := range ws {
						if !w.Kind.Race() {
							continue
						}
						races++
						// The race is between a thread's load of its own slot
						// and the store of the thread of the same tid of the
						// previous CTA of the cluster, at that slot.
						lines := [2]int{w.PrevLine, w.Line}
						if lines != [2]int{store, load} && lines != [2]int{load, store} {
							t.Errorf("race %s between lines %d and %d, want %d and %d", w.Kind, w.PrevLine, w.Line, store, load)
						}
						if w.Thread.CTA == w.PrevThread.CTA || w.Thread.Tid != w.PrevThread.Tid || w.Offset != uint64(4*w.Thread.Tid[0]) {
							t.Errorf("race %s: threads %+v and %+v at offset %d, want threads of the same tid in two CTAs at its slot", w.Kind, w.Thread, w.PrevThread, w.Offset)
						}
						load, store := w.Thread, w.PrevThread
						if w.Line != lineOf(t, src, "// LOAD") {
							load, store = store, load
						}
						if want := (load.CTA[0]/n)*n + (load.CTA[0]%n+n-1)%n; store.CTA[0] != want {
							t.Errorf("race: the load of CTA %d races with a store of CTA %d, want CTA %d (the previous rank)", load.CTA[0], store.CTA[0], want)
						}
					}
					if races == 0 {
						t.Errorf("no race reported: %+v", ws)
					}
				})
			}
		}
	}
}

// With clusters of one CTA nothing changes: a .shared::cluster store to
// the CTA's own memory is an ordinary shared store.
func TestCheckerClusterOfOne(t *testing.T) {
	for _, sched := range []string{"independent", "simt-stack"} {
		src := strings.Replace(dsmemExchange, "SYNC", "barrier.cluster.arrive;\n\tbarrier.cluster.wait;", 1)
		if ws := checkCluster(t, src, clusterSpec(sched, 4, 1)); len(ws) != 0 {
			t.Errorf("%s: %d warnings, want none: %+v", sched, len(ws), ws)
		}
		src = strings.Replace(dsmemExchange, "SYNC", "", 1)
		if ws := checkCluster(t, src, clusterSpec(sched, 4, 1)); len(ws) != 0 {
			t.Errorf("%s without a barrier: %d warnings, want none (each thread stores and loads its own slot): %+v", sched, len(ws), ws)
		}
	}
}
