package emu

import (
	"fmt"
	"math/bits"

	"github.com/ptxplayground/ptxplay/engine/isa"
)

// Thread-block clusters (PTX ISA §2.2.2): the CTAs of a launch are grouped
// into clusters of Config.Cluster CTAs (default the kernel's
// .reqnctapercluster, else one CTA). A cluster is made resident as a
// whole and retires as a whole, so a CTA whose threads have all exited
// keeps its shared memory while its peers run (an access to it faults:
// the exited CTA's memory is gone on a GPU). The CTAs of a cluster are
// launched one cluster after another (clusters in linear order of
// %clusterid, CTAs by %cluster_ctarank within each); with 1x1x1 clusters
// that is the grid's linear order.
//
// Distributed shared memory: a .shared::cluster address is a CTA's shared
// address (its own shared memory, as every .shared::cta address is), or
// (rank+1)<<ClusterRankShift | offset for offset in the shared memory of
// the CTA of that rank (what mapa returns). The generic shared window
// holds both: generic = GenericShared + cluster address.
//
// The cluster barrier (barrier.cluster.arrive / wait) is per thread: each
// non-exited thread of the cluster arrives once per phase; a thread's
// wait ends once the phase it arrived in has completed. A warp waits as a
// whole (Wait kind WaitClusterBarrier, wait.go) for the lanes that
// executed the wait.

func init() {
	binders[isa.OpBarrierCluster] = bindBarrierCluster
	binders[isa.OpMapa] = bindMapa
	binders[isa.OpGetctarank] = bindGetctarank
}

// ClusterRankShift places the CTA rank in a .shared::cluster address.
const ClusterRankShift = 24

// clusterStride is the size of one CTA's part of the .shared::cluster
// window: more than any CTA's shared memory.
const clusterStride = 1 << ClusterRankShift

// Cluster is a resident cluster: its CTAs by rank and its barrier.
type Cluster struct {
	Idx    [3]int // %clusterid
	Linear int    // linear index of Idx in the grid of clusters
	CTAs   []*CTA // by %cluster_ctarank
	// The cluster barrier: threads arrived in the current phase (a count,
	// so that exits know whether to check it) and the phases completed.
	arrived int
	Phase   uint32
}

// Cluster returns the CTA's cluster (nil only for a CTA that was never
// resident).
func (c *CTA) Cluster() *Cluster { return c.cluster }

// ClusterDims returns the cluster shape a launch of fn with cfg uses (the
// launch's cluster, else the kernel's .reqnctapercluster, else 1x1x1,
// zero dimensions counting as 1) and whether it is explicit (given by the
// launch or the kernel: %is_explicit_cluster).
func ClusterDims(fn *Function, cfg *Config) ([3]int, bool) {
	d, explicit := cfg.Cluster, cfg.Cluster != [3]int{}
	if !explicit && fn.ReqCluster[0] > 0 {
		d, explicit = fn.ReqCluster, true
	}
	for i := range d {
		if d[i] <= 0 {
			d[i] = 1
		}
	}
	return d, explicit
}

// checkCluster checks the launch's cluster shape against the grid, the
// emulator's bound and the kernel's cluster directives.
func checkCluster(fn *Function, cfg *Config) error {
	bad := func(format string, args ...any) error {
		return &ConfigError{Field: "cluster", Msg: fmt.Sprintf(format, args...)}
	}
	for _, v := range cfg.Cluster {
		if v < 0 || v > MaxClusterCTAs {
			return bad("cluster dimensions must be between 1 and %d", MaxClusterCTAs)
		}
	}
	if fn.ReqCluster[0] > 0 && fn.MaxClusterRank > 0 {
		return bad("kernel %s has both .reqnctapercluster and .maxclusterrank, which cannot be combined", fn.Name)
	}
	r := fn.ReqCluster
	for i := range r {
		if r[i] <= 0 && (i > 0 || r[0] > 0) {
			r[i] = 1
		}
	}
	if r[0] > 0 && cfg.Cluster != [3]int{} {
		d, _ := ClusterDims(fn, cfg)
		if d != r {
			return bad("kernel %s requires clusters of %dx%dx%d CTAs (.reqnctapercluster); the launch gives %dx%dx%d", fn.Name, r[0], r[1], r[2], d[0], d[1], d[2])
		}
	}
	d, explicit := ClusterDims(fn, cfg)
	if fn.ExplicitCluster && !explicit {
		return bad("kernel %s must be launched with cluster dimensions (.explicitcluster): set the launch's cluster", fn.Name)
	}
	n := d[0] * d[1] * d[2]
	if n > MaxClusterCTAs {
		return bad("cluster %dx%dx%d has %d CTAs; the limit is %d", d[0], d[1], d[2], n, MaxClusterCTAs)
	}
	if fn.MaxClusterRank > 0 && n > fn.MaxClusterRank {
		return bad("cluster %dx%dx%d has %d CTAs; kernel %s allows at most %d (.maxclusterrank)", d[0], d[1], d[2], n, fn.Name, fn.MaxClusterRank)
	}
	for i, c := range "xyz" {
		if cfg.Grid[i]%d[i] != 0 {
			return bad("the grid's %c dimension (%d) is not a multiple of the cluster's (%d)", c, cfg.Grid[i], d[i])
		}
	}
	return nil
}

// ClusterShape returns the launch's cluster dimensions.
func (m *Machine) ClusterShape() [3]int { return m.cdim }

// ClusterCTAs returns the number of CTAs per cluster.
func (m *Machine) ClusterCTAs() int { return m.csize }

// clusterGrid is the number of clusters in each dimension.
func (m *Machine) clusterGrid() [3]int {
	g := m.cfg.Grid
	return [3]int{g[0] / m.cdim[0], g[1] / m.cdim[1], g[2] / m.cdim[2]}
}

// rankIndex is %cluster_ctaid of the CTA of rank r.
func (m *Machine) rankIndex(r int) [3]int {
	d := m.cdim
	return [3]int{r % d[0], r / d[0] % d[1], r / (d[0] * d[1])}
}

// ctaLinear returns the linear grid index of the CTA launched n-th: the
// CTAs of cluster n/csize, by rank.
func (m *Machine) ctaLinear(n int) int {
	if m.csize == 1 {
		return n
	}
	cg := m.clusterGrid()
	k, r := n/m.csize, n%m.csize
	ci := [3]int{k % cg[0], k / cg[0] % cg[1], k / (cg[0] * cg[1])}
	ri := m.rankIndex(r)
	g := m.cfg.Grid
	x := ci[0]*m.cdim[0] + ri[0]
	y := ci[1]*m.cdim[1] + ri[1]
	z := ci[2]*m.cdim[2] + ri[2]
	return x + y*g[0] + z*g[0]*g[1]
}

// LaunchOrder returns the linear grid index of the CTA launched n-th
// (RestrictCTAs ranges are in this order).
func (m *Machine) LaunchOrder(n int) int { return m.ctaLinear(n) }

// newCluster returns cluster k of the launch order, made in old (a
// retired cluster's storage) when it is not nil.
func (m *Machine) newCluster(k int, old *Cluster) *Cluster {
	cg := m.clusterGrid()
	cl := old
	if cl == nil {
		cl = &Cluster{CTAs: make([]*CTA, 0, m.csize)}
	}
	*cl = Cluster{Linear: k, Idx: [3]int{k % cg[0], k / cg[0] % cg[1], k / (cg[0] * cg[1])}, CTAs: cl.CTAs[:0]}
	return cl
}

// relinkClusters gives the CTAs of ctas (whole clusters in rank order,
// copied from those of another machine or snapshot) clusters of their
// own, with the barrier state of from's.
func relinkClusters(ctas []*CTA, from []*CTA) {
	var cur, src *Cluster
	for i, c := range ctas {
		o := from[i].cluster
		if o == nil {
			continue
		}
		if o != src {
			src = o
			cur = &Cluster{Idx: o.Idx, Linear: o.Linear, arrived: o.arrived, Phase: o.Phase, CTAs: make([]*CTA, 0, len(o.CTAs))}
		}
		c.cluster = cur
		cur.CTAs = append(cur.CTAs, c)
	}
}

// Arrivals returns how many live threads of the cluster have arrived at
// its barrier in the current phase, and how many live threads it has.
func (cl *Cluster) Arrivals() (arrived, live int) {
	for _, c := range cl.CTAs {
		for _, w := range c.Warps {
			l := w.valid &^ w.exited
			arrived += bits.OnesCount32(w.cbPending & l)
			live += bits.OnesCount32(l)
		}
	}
	return arrived, live
}

func bindBarrierCluster(b *binder) {
	aligned := b.Flag(isa.FAligned)
	form := b.Sub()
	op := b.op
	switch form {
	case isa.SubArrive:
		if b.Hint("acquire") {
			b.errorf("barrier.cluster.arrive takes .release or .relaxed, not .acquire")
			return
		}
	case isa.SubWait:
		if b.Hint("relaxed") || b.Hint("release") {
			b.errorf("barrier.cluster.wait takes .acquire only")
			return
		}
	default:
		b.errorf("expects .arrive or .wait")
		return
	}
	if !b.Want(0, 0) {
		return
	}
	op.Ctrl = true
	op.Sub = form
	if form == isa.SubArrive && b.Hint("relaxed") {
		op.Imm = 1 // no release semantics (EvClusterArrive.Relaxed)
	}
	if aligned {
		op.Flags = op.Flags.With(isa.FAligned)
	}
	op.Exec = execBarrierCluster
}

func execBarrierCluster(w *Warp, op *Op, emask uint32) *Fault {
	if emask == 0 {
		w.advance()
		return nil
	}
	cl := w.cta.cluster
	if live := w.valid &^ w.exited; op.Flags.Has(isa.FAligned) && emask != live {
		return w.faultAll(FaultDivergentAligned, emask, "barrier.cluster.%s.aligned is executed by lanes %08x of the warp's live lanes %08x: .aligned needs every thread of the warp to execute it together", op.Sub, emask, live)
	}
	if op.Sub == isa.SubArrive {
		if again := emask & w.cbPending; again != 0 {
			return w.faultAll(FaultIllegal, again, "barrier.cluster.arrive: lanes %08x arrive again in a phase of the cluster barrier they already arrived in (each thread arrives once per phase; wait with barrier.cluster.wait first)", again)
		}
		// A thread that arrives again after its phase completed without
		// waiting for it gives that completion up.
		w.cbDone &^= emask
		w.cbPending |= emask
		cl.arrived += bits.OnesCount32(emask)
		// A .relaxed arrive releases nothing, unless every arriving
		// thread executed a fence of cluster scope or wider since its
		// last arrive (fence.acq_rel.cluster; barrier.cluster.arrive.relaxed).
		relaxed := op.Imm == 1 && emask&^w.fenced != 0
		w.fenced &^= emask
		w.advance()
		if w.m.obsEvents {
			_, live := cl.Arrivals()
			w.m.event(Event{Kind: EvClusterArrive, PC: w.m.curPC, ID: int(cl.Phase), Count: cl.arrived, Expected: live, Mask: emask, Relaxed: relaxed})
		}
		w.m.checkClusterBarrier(cl)
		return nil
	}
	if never := emask &^ (w.cbPending | w.cbDone); never != 0 {
		return w.faultAll(FaultIllegal, never, "barrier.cluster.wait: lanes %08x wait without having arrived at the cluster barrier (barrier.cluster.arrive comes first)", never)
	}
	w.advance()
	if emask&^w.cbDone == 0 {
		w.cbDone &^= emask
		if w.m.obsEvents {
			w.m.event(Event{Kind: EvClusterWait, PC: w.m.curPC, ID: int(cl.Phase) - 1, Mask: emask})
		}
		return nil
	}
	w.await(Wait{Kind: WaitClusterBarrier, Lanes: emask, op: op}, w.m.curPC)
	return nil
}

// checkClusterBarrier completes the cluster barrier's phase once every
// live thread of the cluster has arrived: their arrivals are done, and
// the warps waiting for them go on.
func (m *Machine) checkClusterBarrier(cl *Cluster) {
	if cl == nil || cl.arrived == 0 {
		return
	}
	for _, c := range cl.CTAs {
		for _, w := range c.Warps {
			if (w.valid&^w.exited)&^w.cbPending != 0 {
				return
			}
		}
	}
	for _, c := range cl.CTAs {
		c.quiet = quietUnknown // warps go on past the barrier
		for _, w := range c.Warps {
			w.cbDone |= w.cbPending &^ w.exited
			w.cbPending = 0
		}
	}
	var ev Event
	if m.obsEvents {
		ev = Event{Kind: EvClusterRelease, PC: m.curPC, ID: int(cl.Phase), Count: cl.arrived}
		_, ev.Expected = cl.Arrivals()
		ev.Expected = max(ev.Expected, ev.Count)
	}
	cl.arrived = 0
	cl.Phase++
	for _, c := range cl.CTAs {
		for _, w := range c.Warps {
			if m.obsEvents {
				w.eachWait(func(t *Wait) {
					if t.Kind == WaitClusterBarrier && w.over(t) {
						ev.Warps = append(ev.Warps, BarrierWarp{CTA: c.Idx, Warp: w.ID, Barrier: -1, PC: t.PC, Lanes: t.Lanes})
						if w == m.cur {
							ev.Mask |= t.Lanes
						}
					}
				})
			}
			w.wakeOver(WaitClusterBarrier)
		}
	}
	m.released = true
	if m.obsEvents {
		m.event(ev)
	}
}

// clusterShared resolves a .shared::cluster address for lane: the CTA whose
// shared memory it is in and the offset there. It faults for a rank
// outside the cluster and for a peer whose threads have all exited.
func (w *Warp) clusterShared(lane int, addr uint64, size int) (*CTA, uint64, *Fault) {
	if addr < clusterStride {
		return w.cta, addr, nil
	}
	cl := w.cta.cluster
	rank := addr>>ClusterRankShift - 1
	off := addr & (clusterStride - 1)
	n := uint64(len(cl.CTAs))
	if rank >= n {
		return nil, 0, w.faultAddr(FaultOutOfBounds, lane, addr, "%d-byte access to .shared::cluster address 0x%x names CTA rank %d, outside the cluster of %d CTA%s (ranks 0-%d)", size, addr, rank, n, plural(int(n)), n-1)
	}
	c := cl.CTAs[rank]
	if c != w.cta && c.liveThreads() == 0 {
		return nil, 0, w.faultAddr(FaultOutOfBounds, lane, addr, "%d-byte access to .shared::cluster address 0x%x is in the shared memory of CTA (%d,%d,%d) (rank %d), whose threads have all exited: its shared memory is gone; make the cluster wait with barrier.cluster before a CTA exits", size, addr, c.Idx[0], c.Idx[1], c.Idx[2], rank)
	}
	return c, off, nil
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// splitClusterAddr splits a .shared::cluster address into the rank of the
// CTA it names (own: the CTA's own rank) and the offset in that CTA's
// shared memory.
func splitClusterAddr(own int, addr uint64) (uint64, uint64) {
	if addr < clusterStride {
		return uint64(own), addr
	}
	return addr>>ClusterRankShift - 1, addr & (clusterStride - 1)
}

// bindMapa: mapa.shared::cluster.{u32,u64} d, a, rank maps a shared
// address (of the executing CTA, or a .shared::cluster address) to the
// .shared::cluster address of the same offset in the CTA of that rank;
// mapa.u64 d, a, rank does the same with generic addresses.
func bindMapa(b *binder) {
	space := b.Space()
	t := b.Type()
	if b.failed {
		return
	}
	switch {
	case space != isa.SpaceNone && space != isa.SharedCluster:
		b.errorf("takes .shared::cluster or no state space (generic addresses)")
		return
	case t != isa.U32 && t != isa.U64:
		b.errorf("needs .u32 or .u64")
		return
	case space == isa.SpaceNone && t != isa.U64:
		b.errorf("generic addresses are 64-bit: use mapa.u64 (or mapa.shared::cluster.u32)")
		return
	}
	if !b.Want(3, 3) {
		return
	}
	op := b.op
	op.Type, op.Space = t, space
	op.D = b.Dst(0, t)
	op.A = b.Src(1, t)
	op.B = b.Src(2, isa.U32)
	op.Exec = execMapa
}

func execMapa(w *Warp, op *Op, mask uint32) *Fault {
	a, r, d := w.r(op.A), w.r(op.B), w.r(op.D)
	cl := w.cta.cluster
	n := uint64(len(cl.CTAs))
	limit := uint64(len(w.cta.shared))
	var out [32]uint64
	for m := mask; m != 0; m &= m - 1 {
		l := bits.TrailingZeros32(m)
		addr := a[l]
		if op.Type == isa.U32 {
			addr &= 0xffffffff
		}
		ca := addr
		if op.Space == isa.SpaceNone {
			if addr < GenericShared || addr >= GenericShared+WindowSize {
				return w.faultAddr(FaultIllegal, l, addr, "mapa: generic address 0x%x is not in shared memory", addr)
			}
			ca = addr - GenericShared
		}
		rank, off := splitClusterAddr(w.cta.Rank, ca)
		if rank >= n || off > limit {
			return w.faultAddr(FaultIllegal, l, addr, "mapa: 0x%x is not an address in the shared memory of a CTA of the cluster (%d CTA%s of %d bytes)", addr, n, plural(int(n)), limit)
		}
		t := r[l] & 0xffffffff
		if t >= n {
			return w.faultAddr(FaultIllegal, l, addr, "mapa: CTA rank %d is outside the cluster of %d CTA%s (ranks 0-%d)", t, n, plural(int(n)), n-1)
		}
		v := (t+1)<<ClusterRankShift | off
		if op.Space == isa.SpaceNone {
			v += GenericShared
		}
		out[l] = v
	}
	for m := mask; m != 0; m &= m - 1 {
		l := bits.TrailingZeros32(m)
		d[l] = out[l]
	}
	return nil
}

// bindGetctarank: getctarank.shared::cluster.{u32,u64} d, a and
// getctarank.u64 d, a (generic) give the rank of the CTA whose shared
// memory a is in.
func bindGetctarank(b *binder) {
	space := b.Space()
	t := b.Type()
	if b.failed {
		return
	}
	switch {
	case space != isa.SpaceNone && space != isa.SharedCluster:
		b.errorf("takes .shared::cluster or no state space (generic addresses)")
		return
	case t != isa.U32 && t != isa.U64:
		b.errorf("needs .u32 or .u64")
		return
	}
	if !b.Want(2, 2) {
		return
	}
	op := b.op
	op.Type, op.Space = t, space
	op.D = b.Dst(0, isa.U32)
	op.A = b.Src(1, t)
	op.Exec = execGetctarank
}

func execGetctarank(w *Warp, op *Op, mask uint32) *Fault {
	a, d := w.r(op.A), w.r(op.D)
	n := uint64(len(w.cta.cluster.CTAs))
	var out [32]uint64
	for m := mask; m != 0; m &= m - 1 {
		l := bits.TrailingZeros32(m)
		addr := a[l]
		if op.Type == isa.U32 {
			addr &= 0xffffffff
		}
		ca := addr
		if op.Space == isa.SpaceNone {
			if addr < GenericShared || addr >= GenericShared+WindowSize {
				return w.faultAddr(FaultIllegal, l, addr, "getctarank: generic address 0x%x is not in shared memory", addr)
			}
			ca = addr - GenericShared
		}
		rank, _ := splitClusterAddr(w.cta.Rank, ca)
		if rank >= n {
			return w.faultAddr(FaultIllegal, l, addr, "getctarank: 0x%x names CTA rank %d, outside the cluster of %d CTA%s", addr, rank, n, plural(int(n)))
		}
		out[l] = rank
	}
	for m := mask; m != 0; m &= m - 1 {
		l := bits.TrailingZeros32(m)
		d[l] = out[l]
	}
	return nil
}
