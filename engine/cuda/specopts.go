package cuda

import (
	"context"

	"github.com/ptxplayground/ptxplay/engine/launchspec"
)

// SpecOptions returns the compile options a launch spec's cudaOptions
// names (nil, or no opt: -O2).
func SpecOptions(o *launchspec.CUDAOptions) Options {
	if o == nil {
		return Options{Opt: 2}
	}
	return Options{Arch: o.Arch, Opt: o.Level(), FastMath: o.FastMath}
}

// CompileSpec compiles the CUDA file a launch spec names (resolved against
// baseDir as its PTX would be) with the spec's options. path is the CUDA
// file's name, for diagnostics; the PTX is res.PTX when res.OK().
func (c *Compiler) CompileSpec(ctx context.Context, spec *launchspec.Spec, baseDir string) (res *Result, path string, err error) {
	src, path, err := spec.LoadCUDA(baseDir)
	if err != nil {
		return nil, path, err
	}
	res, err = c.Compile(ctx, string(src), SpecOptions(spec.CUDAOptions))
	return res, path, err
}
