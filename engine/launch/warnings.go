package launch

import "github.com/ptxplayground/ptxplay/engine/analysis"

// Which global memory counts as initialised (for the checker's
// uninitialised-global-read warnings):
//
//   - a buffer with "init" (any form) is initialised, all of it: the
//     elements a short "values" or "bytes" leaves out are zeros the spec
//     gives explicitly;
//   - a buffer without "init" is an output allocation: the spec
//     zero-fills it so that runs are reproducible, but the launch gave it
//     no data, like memory from cudaMalloc. A plain load of its bytes
//     before the kernel wrote them is flagged. Atomics are not: the zero
//     fill is guaranteed, and accumulating into a zeroed output with
//     atomics (a histogram, a counter) is exactly what it is for (the
//     cudaMemset a host program would do); an atomic counts as a write;
//   - the module's .global variables are initialised (their initialisers,
//     or zeros, are part of the module).
//
// Every other global byte is outside any allocation, where an access
// faults.

// Uninitialised returns the global ranges the launch leaves
// uninitialised: the buffers without "init".
func (l *Launch) Uninitialised() []analysis.Region {
	var out []analysis.Region
	for i, b := range l.spec.Buffers {
		if b.Init == nil && len(l.bufs[i].Data) > 0 {
			out = append(out, analysis.Region{Base: l.bufs[i].Base, Size: uint64(len(l.bufs[i].Data))})
		}
	}
	return out
}

// NewChecker returns a race and memory checker for the launch (install it
// with Machine().AddObserver).
func (l *Launch) NewChecker() *analysis.Checker {
	return analysis.NewChecker(l.prog, analysis.CheckerConfig{Block: l.m.Config().Block, Grid: l.m.Config().Grid, Cluster: l.m.ClusterShape(), Uninitialised: l.Uninitialised()})
}
