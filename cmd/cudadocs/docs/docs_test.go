package docs

import (
	"os"
	"testing"
)

// The generated table is what docs/cuda.md says now, and names what a
// student hovers first.
func TestGeneratedTableIsCurrent(t *testing.T) {
	md, err := os.ReadFile("../../../docs/cuda.md")
	if err != nil {
		t.Fatal(err)
	}
	want, err := TS(string(md))
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("../../../ui/cudadocs_gen.ts")
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Fatal("ui/cudadocs_gen.ts is stale: run go generate ./ui")
	}
	es, _ := Parse(string(md))
	have := map[string]Entry{}
	for _, e := range es {
		have[e.Name] = e
	}
	for _, n := range []string{"__syncthreads", "__shfl_down_sync", "atomicAdd", "threadIdx", "__global__", "expf", "__popc", "__syncthreads_or", "__reduce_add_sync", "__float2half_rn", "__match_any_sync"} {
		if _, ok := have[n]; !ok {
			t.Errorf("no hover doc for %s", n)
		}
	}
	if e := have["expf"]; e.Group != "math library" {
		t.Errorf("expf: %+v", e)
	}
}
