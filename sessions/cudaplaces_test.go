package sessions

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/ptxplayground/ptxplay/engine/cuda"
)

// Every place the protocol names by pc and PTX line also names its CUDA
// line: a wire type with "pc" and "line" has "cudaLine", and one with a
// pc-like field "x" (or "xPc") and "xLine" has "xCudaLine". A type added
// without its CUDA line fails here, so no panel can be left naming only
// PTX lines for a CUDA program.
func TestEveryPlaceNamesItsCUDALine(t *testing.T) {
	for _, d := range tsTypes {
		typ := reflect.TypeOf(d.V)
		if typ.Kind() != reflect.Struct {
			continue
		}
		fields := jsonFields(typ)
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

// placesCU reaches, from CUDA, every place below that names a line: the
// CFG's blocks and the mma.sync (line 22) and wgmma (line 26) tensor
// ops (loaded), a
// __syncthreads release (line 7), a cp.async in flight (line 9), warp 0
// waiting on an mbarrier (line 18) and warp 0 at a TMA copy (line 28).
const placesCU = `extern "C" __global__ void places(const float *in, float *out, const unsigned long long *map) {
  __shared__ __align__(128) float buf[128];
  __shared__ __align__(8) unsigned long long bar;
  unsigned t = threadIdx.x;
  unsigned sb = (unsigned)__cvta_generic_to_shared(&bar);
  if (t == 0) asm volatile("mbarrier.init.shared.b64 [%0], 32;" :: "r"(sb) : "memory");
  __syncthreads();
  unsigned d = (unsigned)__cvta_generic_to_shared(&buf[t]);
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" :: "r"(d), "l"(in + t) : "memory");
  asm volatile("cp.async.commit_group;" ::: "memory");
  asm volatile("cp.async.wait_all;" ::: "memory");
  if (t >= 32 && t < 64) {
    unsigned long long st; for (int k = 0; k < 16; k++) asm volatile("membar.cta;" ::: "memory");
    asm volatile("mbarrier.arrive.shared.b64 %0, [%1];" : "=l"(st) : "r"(sb) : "memory");
  } else if (t < 32) {
    unsigned ok = 0;
    while (!ok)
      asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared.b64 p, [%1], 0; selp.u32 %0, 1, 0, p; }" : "=r"(ok) : "r"(sb) : "memory");
  }
  unsigned a0 = __float_as_uint(buf[t]), b0 = a0;
  float c[4] = {0.f, 0.f, 0.f, 0.f};
  asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5}, {%6}, {%0, %1, %2, %3};"
               : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3]) : "r"(a0), "r"(a0), "r"(b0));
  out[t] = c[0] + c[1] + c[2] + c[3];
  if (in[0] == 12345.f)
    asm volatile("wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%0, %1, %2, %3}, %4, %5, 1, 1, 1, 0, 0;"
                 : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3]) : "l"(0ull), "l"(0ull) : "memory");
  if (t == 0) asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %2}], [%3];" :: "r"(d), "l"(map), "r"(0), "r"(sb) : "memory");
}
`

const placesCUSpec = `{"entry":"places","grid":[1],"block":[128],"buffers":[{"name":"in","type":"f32","count":128},{"name":"out","type":"f32","count":128},{"name":"map","type":"u64","count":16}],"params":[{"buffer":"in"},{"buffer":"out"},{"buffer":"map"}]}`

// TestCUDAPlacesNameTheirLines: with a CUDA program loaded, the places
// that named only their PTX line (the tensor ops, the CFG's blocks, a
// barrier release's warps, the copies in flight and their groups, the
// mbarrier's waiting warps, the wgmma and TMA views) name the CUDA line of
// their pc, as the session's line map has it.
func TestCUDAPlacesNameTheirLines(t *testing.T) {
	needClang(t)
	c := newClient(t, cudaManager(t, Limits{}, cuda.Config{}))
	c.send(map[string]any{"type": "load", "id": 1, "cuda": map[string]any{"source": placesCU, "opt": 2, "arch": "sm_90a"}, "spec": json.RawMessage(placesCUSpec)})
	if cm := c.compiled(); !cm.OK {
		t.Fatalf("compile: %+v", cm)
	}
	var d diagnosticsMsg
	json.Unmarshal(c.expect("diagnostics"), &d)
	for _, it := range d.Items {
		if it.Severity == "error" {
			t.Fatalf("diagnostic: %+v", it)
		}
	}
	var l loadedMsg
	if err := json.Unmarshal(c.expect("loaded"), &l); err != nil {
		t.Fatal(err)
	}
	st, _ := c.state()
	var pcLine []int32
	c.do(func() { pcLine = c.s.cu.pcLine })
	seen := map[string]int{}
	// check: pc's place names pc's CUDA line; wantLine, when not 0, is the
	// kernel.cu line it must be.
	check := func(what string, pc, got, wantLine int) {
		t.Helper()
		want := 0
		if pc >= 0 && pc < len(pcLine) {
			want = int(pcLine[pc])
		}
		if got != want {
			t.Fatalf("%s: pc %d has cudaLine %d, want %d", what, pc, got, want)
		}
		if wantLine != 0 && got != wantLine {
			t.Fatalf("%s: pc %d is on kernel.cu:%d, want line %d", what, pc, got, wantLine)
		}
		if got > 0 {
			seen[what]++
		}
	}
	wgmmaPC := -1
	for _, op := range l.TensorOps {
		line := 22
		if strings.HasPrefix(op.Key, "wgmma") {
			line, wgmmaPC = 26, op.PC
		}
		check("tensor op "+op.Key, op.PC, op.CUDALine, line)
	}
	for _, b := range l.CFG.Blocks {
		check("block first", b.First, b.FirstCUDALine, 0)
		check("block last", b.Last, b.LastCUDALine, 0)
	}
	if wgmmaPC < 0 {
		t.Fatalf("no wgmma among the tensor ops %+v", l.TensorOps)
	}
	c.send(map[string]any{"type": "inspect", "id": 7, "cta": 0, "warp": 0, "wgmmaPC": wgmmaPC})
	var in inspectMsg
	if err := json.Unmarshal(c.expect("inspect"), &in); err != nil {
		t.Fatal(err)
	}
	check("wgmma view", in.Wgmma.PC, in.Wgmma.CUDALine, 26)

	for i := 0; i < 3000 && st.Status != "done" && st.Fault == nil; i++ {
		if i > 0 {
			c.send(map[string]any{"type": "step", "granularity": "warp", "count": 1})
			st = c.stateSkipDone()
		}
		for _, e := range st.Events {
			for _, w := range e.Warps {
				if e.Kind == "barrier-release" {
					check("released warp", w.PC, w.CUDALine, 7)
				} else {
					check("released warp "+e.Kind, w.PC, w.CUDALine, 0)
				}
			}
		}
		for _, ct := range st.CTAs {
			for _, b := range ct.Mbarriers {
				for _, w := range b.Waiting {
					check("mbarrier wait", w.PC, w.CUDALine, 18)
				}
			}
			for _, w := range ct.Warps {
				if a := w.Async; a != nil {
					for _, it := range a.Items {
						check("copy in flight", it.PC, it.CUDALine, 9)
					}
					for _, g := range a.Groups {
						if len(g.CUDALines) != len(g.Lines) {
							t.Fatalf("group lines %v, CUDA lines %v", g.Lines, g.CUDALines)
						}
						for _, cl := range g.CUDALines {
							if cl != 9 {
								t.Fatalf("group's CUDA lines %v, want line 9", g.CUDALines)
							}
							seen["copy group"]++
						}
					}
				}
			}
		}
		if st.TMA != nil && st.TMA.Source == "next" {
			check("tma view", st.TMA.PC, st.TMA.CUDALine, 28)
		}
	}
	for _, what := range []string{"tensor op mma.m16n8k8.row.col.f32.f16.f16.f32", "tensor op wgmma.m64n8k16.f32.f16.f16", "block first", "block last", "wgmma view",
		"released warp", "mbarrier wait", "copy in flight", "copy group", "tma view"} {
		if seen[what] == 0 {
			t.Errorf("no %s named a CUDA line (seen: %v)", what, seen)
		}
	}
}
