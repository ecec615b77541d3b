package sessions

import (
	"reflect"
	"strings"
	"testing"

	"github.com/ptxplayground/ptxplay/engine/cuda"
)

// Every place the protocol names by pc and PTX line also names its CUDA
// line: a wire type with "pc" and "line" has "cudaLine", and one with a
// pc-like field "x" (or "xPc") and "xLine" has "xCudaLine". A type added
// without its CUDA line fails here, so no panel can be left naming only
// PTX lines for a CUDA program. ptxOnly lists the types that do not yet
// carry their CUDA line (their panels name PTX lines); the list may only
// shrink.
func TestEveryPlaceNamesItsCUDALine(t *testing.T) {
	ptxOnly := map[string]string{
		"TensorOp":     "the Fragments tab's instruction list",
		"CfgBlock":     "the Divergence tab's control-flow graph (PTX basic blocks)",
		"MbarrierWait": "the mbarrier panel",
		"AsyncCopy":    "the cp.async panel",
		"WgmmaView":    "the wgmma descriptor view",
		"TmaView":      "the TMA view",
		"BarrierWarp":  "the barrier panel",
	}
	for _, d := range tsTypes {
		typ := reflect.TypeOf(d.V)
		if typ.Kind() != reflect.Struct {
			continue
		}
		fields := jsonFields(typ)
		if _, ok := ptxOnly[d.Name]; ok {
			continue
		}
		for f := range fields {
			if !strings.HasSuffix(f, "Line") || f == "cudaLine" {
				continue
			}
			var pc, want string
			if f == "line" {
				pc, want = "pc", "cudaLine"
			} else {
				p := strings.TrimSuffix(f, "Line")
				if strings.HasSuffix(p, "Cuda") {
					continue
				}
				pc, want = p, p+"CudaLine"
				if !fields[pc] {
					pc = p + "Pc"
				}
			}
			if fields[pc] && !fields[want] {
				t.Errorf("%s has %q and %q but no %q", d.Name, pc, f, want)
			}
		}
	}
}

// jsonFields are the JSON names of a struct's fields (embedded structs
// flattened, as encoding/json does).
func jsonFields(typ reflect.Type) map[string]bool {
	out := map[string]bool{}
	for i := 0; i < typ.NumField(); i++ {
		f := typ.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct {
			for k := range jsonFields(f.Type) {
				out[k] = true
			}
			continue
		}
		if name == "-" || !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out[name] = true
	}
	return out
}

// TestCUDAThreadGroupLines: with a CUDA program loaded, the thread-group
// view (the last issue, the issue before it, each lane's wait, the groups'
// reconvergence points) and a warp's wait name the CUDA line of their pc,
// as the warp rows do.
func TestCUDAThreadGroupLines(t *testing.T) {
	needClang(t)
	c := newClient(t, cudaManager(t, Limits{}, cuda.Config{}))
	_, st := c.loadCUDA(divergentCU, divergentCUSpec, 0)
	var pcLine []int32
	c.do(func() { pcLine = c.s.cu.pcLine })
	cl := func(pc int) int {
		if pc < 0 || pc >= len(pcLine) {
			return 0
		}
		return int(pcLine[pc])
	}
	seen := map[string]int{}
	check := func(what string, pc, got int) {
		t.Helper()
		if want := cl(pc); got != want {
			t.Fatalf("%s: pc %d has cudaLine %d, want %d", what, pc, got, want)
		}
		if got > 0 {
			seen[what]++
		}
	}
	for i := 0; i < 400 && st.Status != "done"; i++ {
		if i > 0 {
			st = c.step("warp", 1)
		}
		if th := st.Threads; th != nil {
			if th.Last != nil {
				check("last", th.Last.PC, th.Last.CUDALine)
				if th.Last.Prev != nil {
					check("prev", th.Last.Prev.PC, th.Last.Prev.CUDALine)
				}
			}
			for _, lw := range th.Lanes {
				check("lane "+lw.Reason, lw.PC, lw.CUDALine)
				if lw.Reconv != nil {
					check("lane reconv", *lw.Reconv, lw.ReconvCUDALine)
				}
			}
			for _, g := range th.Groups {
				check("group", g.PC, g.CUDALine)
				check("group reconv", g.Reconv, g.ReconvCUDALine)
			}
		}
		for _, ct := range st.CTAs {
			for _, w := range ct.Warps {
				if w.Wait != nil {
					check("wait "+w.Wait.Kind, w.Wait.PC, w.Wait.CUDALine)
				}
				for _, g := range w.GroupWaits {
					check("group wait", g.PC, g.CUDALine)
				}
			}
		}
	}
	for _, what := range []string{"last", "prev", "lane running", "lane turn", "group", "group reconv", "wait barrier"} {
		if seen[what] == 0 {
			t.Errorf("no %s named a CUDA line (seen: %v)", what, seen)
		}
	}
}
