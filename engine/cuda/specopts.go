package cuda

import "github.com/ptxplayground/ptxplay/engine/launchspec"

// SpecOptions returns the compile options a launch spec's cudaOptions
// names (nil, or no opt: -O2).
func SpecOptions(o *launchspec.CUDAOptions) Options {
	if o == nil {
		return Options{Opt: 2}
	}
	return Options{Arch: o.Arch, Opt: o.Level(), FastMath: o.FastMath}
}
