package isa

import "strconv"

// Special is a special register (%tid.x, %laneid, %clock64, ...).
type Special uint8

const (
	SRNone Special = iota
	SRTidX
	SRTidY
	SRTidZ
	SRNtidX
	SRNtidY
	SRNtidZ
	SRLaneid
	SRWarpid
	SRNwarpid
	SRCtaidX
	SRCtaidY
	SRCtaidZ
	SRNctaidX
	SRNctaidY
	SRNctaidZ
	SRSmid
	SRNsmid
	SRGridid
	SRLanemaskEq
	SRLanemaskLe
	SRLanemaskLt
	SRLanemaskGe
	SRLanemaskGt
	SRDynamicSmemSize
	SRTotalSmemSize
	SRAggrSmemSize
	SRReservedSmemOffsetBegin
	SRReservedSmemOffsetEnd
	SRReservedSmemOffsetCap
	SRReservedSmemOffset2
	SRClusteridX
	SRClusteridY
	SRClusteridZ
	SRNclusteridX
	SRNclusteridY
	SRNclusteridZ
	SRClusterCtaidX
	SRClusterCtaidY
	SRClusterCtaidZ
	SRClusterNctaidX
	SRClusterNctaidY
	SRClusterNctaidZ
	SRClusterCtarank
	SRClusterNctarank
	SRIsExplicitCluster
	SRCurrentGraphExec
	SREnvreg0                  // %envreg0 .. %envreg31 follow
	SRPm0     = SREnvreg0 + 32 // %pm0 .. %pm7 follow
	// Dynamic registers: refreshed before each instruction that reads them.
	SRClock         = SRPm0 + 8
	SRClockHi       = SRClock + 1
	SRClock64       = SRClock + 2
	SRGlobaltimer   = SRClock + 3
	SRGlobaltimerLo = SRClock + 4
	SRGlobaltimerHi = SRClock + 5
	SRPm0_64        = SRClock + 6 // %pm0_64 .. %pm7_64 follow
	NumSpecials     = SRPm0_64 + 8
)

// SpecialInfo documents a special register for hover text and inspection.
type SpecialInfo struct {
	Name    string
	Bits    int
	Dynamic bool
	Doc     string
}

// Specials documents every special register, indexed by Special.
var Specials = func() [NumSpecials]SpecialInfo {
	var s [NumSpecials]SpecialInfo
	set := func(r Special, name string, bits int, doc string) { s[r] = SpecialInfo{name, bits, false, doc} }
	xyz := func(r Special, base string, bits int, doc string) {
		for i, c := range []string{"x", "y", "z"} {
			set(r+Special(i), base+"."+c, bits, doc+" ("+c+")")
		}
	}
	xyz(SRTidX, "%tid", 32, "Thread index within the CTA")
	xyz(SRNtidX, "%ntid", 32, "CTA dimensions (threads per block)")
	set(SRLaneid, "%laneid", 32, "Lane index within the warp (0-31)")
	set(SRWarpid, "%warpid", 32, "Warp index within the CTA (the emulator keeps warps in place, so this equals the linear thread index / 32)")
	set(SRNwarpid, "%nwarpid", 32, "Number of warp ids: 64 in the emulator (the per-SM maximum of recent GPUs)")
	xyz(SRCtaidX, "%ctaid", 32, "CTA index within the grid")
	xyz(SRNctaidX, "%nctaid", 32, "Grid dimensions (CTAs per grid)")
	set(SRSmid, "%smid", 32, "SM index: the emulator runs each CTA on SM (linear CTA index mod %nsmid)")
	set(SRNsmid, "%nsmid", 32, "Number of SMs: 132 in the emulator (as an H100 SXM)")
	set(SRGridid, "%gridid", 64, "Grid identifier: 1 for the launch in the emulator")
	set(SRLanemaskEq, "%lanemask_eq", 32, "Bit set at the lane's own position")
	set(SRLanemaskLe, "%lanemask_le", 32, "Bits set at positions <= the lane's")
	set(SRLanemaskLt, "%lanemask_lt", 32, "Bits set at positions < the lane's")
	set(SRLanemaskGe, "%lanemask_ge", 32, "Bits set at positions >= the lane's")
	set(SRLanemaskGt, "%lanemask_gt", 32, "Bits set at positions > the lane's")
	set(SRDynamicSmemSize, "%dynamic_smem_size", 32, "Dynamic shared memory of the launch in bytes")
	set(SRTotalSmemSize, "%total_smem_size", 32, "Static plus dynamic shared memory of the CTA in bytes")
	set(SRAggrSmemSize, "%aggr_smem_size", 32, "Shared memory of the CTA including reserved memory: equal to %total_smem_size in the emulator")
	set(SRReservedSmemOffsetBegin, "%reserved_smem_offset_begin", 32, "Start of reserved shared memory: 0 in the emulator")
	set(SRReservedSmemOffsetEnd, "%reserved_smem_offset_end", 32, "End of reserved shared memory: 0 in the emulator")
	set(SRReservedSmemOffsetCap, "%reserved_smem_offset_cap", 32, "Capacity of reserved shared memory: 0 in the emulator")
	set(SRReservedSmemOffset2, "%reserved_smem_offset_2", 32, "Reserved shared memory offset: 0 in the emulator")
	xyz(SRClusteridX, "%clusterid", 32, "Cluster index within the grid")
	xyz(SRNclusteridX, "%nclusterid", 32, "Number of clusters in the grid")
	xyz(SRClusterCtaidX, "%cluster_ctaid", 32, "CTA index within its cluster")
	xyz(SRClusterNctaidX, "%cluster_nctaid", 32, "Cluster dimensions (CTAs per cluster)")
	set(SRClusterCtarank, "%cluster_ctarank", 32, "Linear rank of the CTA within its cluster, [0, %cluster_nctarank)")
	set(SRClusterNctarank, "%cluster_nctarank", 32, "CTAs per cluster")
	set(SRIsExplicitCluster, "%is_explicit_cluster", 1, "Whether the launch gives cluster dimensions (the launch spec's cluster or the kernel's .reqnctapercluster)")
	set(SRCurrentGraphExec, "%current_graph_exec", 64, "Handle of the executing CUDA graph: 0 (none)")
	for i := 0; i < 32; i++ {
		set(SREnvreg0+Special(i), "%envreg"+strconv.Itoa(i), 32, "Driver-defined environment register: 0 in the emulator")
	}
	for i := 0; i < 8; i++ {
		set(SRPm0+Special(i), "%pm"+strconv.Itoa(i), 32, "Performance-monitor counter: 0 in the emulator")
		s[SRPm0_64+Special(i)] = SpecialInfo{"%pm" + strconv.Itoa(i) + "_64", 64, false, "Performance-monitor counter: 0 in the emulator"}
	}
	dyn := func(r Special, name string, bits int, doc string) { s[r] = SpecialInfo{name, bits, true, doc} }
	dyn(SRClock, "%clock", 32, "Cycle counter (low 32 bits of %clock64)")
	dyn(SRClockHi, "%clock_hi", 32, "High 32 bits of %clock64")
	dyn(SRClock64, "%clock64", 64, "Cycle counter: in the emulator, the number of warp-instructions the machine issued before this one")
	dyn(SRGlobaltimer, "%globaltimer", 64, "Nanosecond timer: in the emulator, 1 ns per issued warp-instruction plus time slept with nanosleep")
	dyn(SRGlobaltimerLo, "%globaltimer_lo", 32, "Low 32 bits of %globaltimer")
	dyn(SRGlobaltimerHi, "%globaltimer_hi", 32, "High 32 bits of %globaltimer")
	return s
}()

var specialByName = func() map[string]Special {
	m := map[string]Special{}
	for i := Special(1); i < NumSpecials; i++ {
		if Specials[i].Name != "" {
			m[Specials[i].Name] = i
		}
	}
	return m
}()

// LookupSpecial finds a special register by name (PTX names are
// case-sensitive; vector registers need their component: "%tid.x").
func LookupSpecial(name string) (Special, bool) {
	s, ok := specialByName[name]
	return s, ok
}

// MaxClusterCTAs bounds the CTAs of a thread-block cluster (Hopper's
// non-portable cluster size; %cluster_nctarank is at most this).
const MaxClusterCTAs = 16
