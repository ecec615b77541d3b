package launch

import (
	"fmt"
	"strings"
	"testing"
)

// clusterExchangeSrc: each thread stores a value into its slot of the
// next CTA of its cluster's shared buffer (distributed shared memory),
// SYNC, then each thread reads its own slot and writes it to out at its
// CTA's linear index. Without the cluster barrier the value read depends
// on how the cluster's CTAs interleave.
const clusterExchangeSrc = `.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 out) {
	.reg .u32 %r<20>; .reg .u64 %rd<8>;
	.shared .align 4 .b32 buf[64];
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, %cluster_ctarank;
	mov.u32 %r3, %cluster_nctarank;
	add.u32 %r4, %r2, 1;
	rem.u32 %r4, %r4, %r3;
	mov.u32 %r5, buf;
	shl.b32 %r6, %r1, 2;
	add.u32 %r5, %r5, %r6;
	mov.u32 %r12, %ctaid.x;
	mov.u32 %r13, %ctaid.y;
	mov.u32 %r14, %nctaid.x;
	mad.lo.u32 %r10, %r13, %r14, %r12;   // the CTA's linear index
	mad.lo.u32 %r8, %r10, 1000, %r1;
	add.u32 %r8, %r8, 7;
	mapa.shared::cluster.u32 %r7, %r5, %r4;
	st.shared::cluster.u32 [%r7], %r8;
	SYNC
	ld.shared.u32 %r9, [%r5];
	mad.lo.u32 %r11, %r10, 64, %r1;
	mul.wide.u32 %rd2, %r11, 4;
	add.u64 %rd3, %rd1, %rd2;
	st.global.u32 [%rd3], %r9;
	ret;
}`

// TestParallelClusters: a kernel whose CTAs communicate only within their
// cluster (distributed shared memory, the cluster barrier) runs in
// parallel, whole clusters at a time, with exactly the sequential run's
// output; a 2-D grid of 2x2 clusters (launch order differs from linear
// order) as well; the same exchange without the cluster barrier (a race
// inside each cluster) still matches, since a cluster runs as it does
// sequentially.
func TestParallelClusters(t *testing.T) {
	sync := "barrier.cluster.arrive;\n\tbarrier.cluster.wait;"
	for _, c := range []struct {
		grid, cluster string
		size          int
		sync          string
		opts          []RunOptions
	}{
		{"[16]", "[2]", 2, sync, []RunOptions{{}, {Check: true}, {Analyze: true}}},
		{"[16]", "[4]", 4, sync, []RunOptions{{}, {Check: true}}},
		{"[4, 4]", "[2, 2]", 4, sync, []RunOptions{{}, {Check: true}}},
		{"[8, 2]", "[1, 2]", 2, sync, []RunOptions{{}}},
		{"[16]", "[4]", 4, "", []RunOptions{{}}},
	} {
		src := strings.Replace(clusterExchangeSrc, "SYNC", c.sync, 1)
		prog, spec := parallelSpec(t, src, fmt.Sprintf(`"grid": %s, "block": [64], "cluster": %s,
			"buffers": [{"name": "out", "type": "u32", "count": 1024}], "params": [{"buffer": "out"}]`, c.grid, c.cluster))
		for _, opt := range c.opts {
			for _, rep := range sameParallel(t, prog, spec, opt, 2, 3, 4, 8) {
				wantParallel(t, rep, "")
				if rep.Cluster != c.size || !strings.Contains(rep.String(), fmt.Sprintf("whole %d-CTA clusters", c.size)) {
					t.Errorf("grid %s cluster %s: report %q (cluster %d), want segments of whole %d-CTA clusters", c.grid, c.cluster, rep, rep.Cluster, c.size)
				}
				if rep.Segments > 16/c.size {
					t.Errorf("grid %s cluster %s: %d segments of %d clusters", c.grid, c.cluster, rep.Segments, 16/c.size)
				}
			}
		}
	}
	// Other hazards still make a cluster kernel run sequentially, and so
	// does a grid of one cluster.
	src := strings.Replace(clusterExchangeSrc, "SYNC", sync+"\n\tatom.global.add.u32 %r15, [%rd1], 1;", 1)
	prog, spec := parallelSpec(t, src, `"grid": [16], "block": [64], "cluster": [2],
		"buffers": [{"name": "out", "type": "u32", "count": 1024}], "params": [{"buffer": "out"}]`)
	wantParallel(t, sameParallel(t, prog, spec, RunOptions{}, 4)[0], "global atomics")
	prog, spec = parallelSpec(t, strings.Replace(clusterExchangeSrc, "SYNC", sync, 1), `"grid": [4], "block": [64], "cluster": [4],
		"buffers": [{"name": "out", "type": "u32", "count": 1024}], "params": [{"buffer": "out"}]`)
	wantParallel(t, sameParallel(t, prog, spec, RunOptions{}, 4)[0], "one cluster")
}
