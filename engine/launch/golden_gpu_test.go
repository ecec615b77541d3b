package launch

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/ptxplayground/ptxplay/engine/ptx"
)

// gpuGoldenDir holds the outputs of the scheduling examples recorded on a
// real GPU by web/examples/gpu/record.py.
var gpuGoldenDir = filepath.Join("..", "..", "web", "examples", "gpu")

// gpuGoldenExamples are the gallery examples record.py runs.
var gpuGoldenExamples = []string{"spin-lock", "producer-consumer", "syncwarp"}

// gpuGolden is a golden file as record.py writes it.
type gpuGolden struct {
	Example           string `json:"example"`
	Spec              string `json:"spec"`
	Device            string `json:"device"`
	ComputeCapability string `json:"computeCapability"`
	Buffers           map[string]struct {
		Type   string            `json:"type"`
		Values []json.RawMessage `json:"values"`
	} `json:"buffers"`
}

// compareGPUGolden runs example name of examples (its spec name.json)
// under independent scheduling and compares every buffer of the golden
// file with the result, element by element (their JSON values, as
// `ptxplay run` prints them). It returns the differences.
func compareGPUGolden(examples, goldenPath, name string) ([]string, error) {
	data, err := os.ReadFile(goldenPath)
	if err != nil {
		return nil, err
	}
	var g gpuGolden
	dec := json.NewDecoder(strings.NewReader(string(data)))
	if err := dec.Decode(&g); err != nil {
		return nil, fmt.Errorf("%s: %v", goldenPath, err)
	}
	if g.Example != name || g.Spec != name+".json" || len(g.Buffers) == 0 {
		return nil, fmt.Errorf("%s: example %q, spec %q, %d buffers: not a golden file of %s", goldenPath, g.Example, g.Spec, len(g.Buffers), name)
	}
	specData, err := os.ReadFile(filepath.Join(examples, name+".json"))
	if err != nil {
		return nil, err
	}
	spec, err := ParseSpec(specData)
	if err != nil {
		return nil, err
	}
	text, _, err := spec.Load(examples)
	if err != nil {
		return nil, err
	}
	p, src, diags := Compile(spec.PTX, text)
	if p == nil {
		return nil, fmt.Errorf("%s:\n%s", name, ptx.FormatAll(src, diags))
	}
	spec.Scheduling = "independent"
	r, err := Run(context.Background(), p, spec)
	if err != nil {
		return nil, err
	}
	var diffs []string
	if r.Status != StatusOK {
		diffs = append(diffs, fmt.Sprintf("the emulator's status is %s (%s), the GPU completed", r.Status, r.Message))
	}
	names := make([]string, 0, len(g.Buffers))
	for n := range g.Buffers {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		gb := g.Buffers[n]
		b := r.Buffer(n)
		switch {
		case b == nil:
			diffs = append(diffs, fmt.Sprintf("buffer %s: not in the emulator's result", n))
			continue
		case gb.Type != b.Type:
			diffs = append(diffs, fmt.Sprintf("buffer %s: type %s on the GPU, %s in the spec", n, gb.Type, b.Type))
			continue
		case len(gb.Values) != b.Len():
			diffs = append(diffs, fmt.Sprintf("buffer %s: %d elements on the GPU, %d in the emulator", n, len(gb.Values), b.Len()))
			continue
		}
		bad := 0
		for i, v := range gb.Values {
			if got := b.ValueJSON(i); !sameJSONNumber(got, string(v)) {
				if bad++; bad <= 5 {
					diffs = append(diffs, fmt.Sprintf("buffer %s[%d]: GPU %s, emulator %s", n, i, v, got))
				}
			}
		}
		if bad > 5 {
			diffs = append(diffs, fmt.Sprintf("buffer %s: %d elements differ", n, bad))
		}
	}
	return diffs, nil
}

// sameJSONNumber compares two JSON values: equal text, or equal numbers
// (1 and 1.0).
func sameJSONNumber(a, b string) bool {
	if a == b {
		return true
	}
	var x, y float64
	return json.Unmarshal([]byte(a), &x) == nil && json.Unmarshal([]byte(b), &y) == nil && x == y
}

// TestGPUGoldenFiles: for every golden file recorded on a GPU (sm_70+),
// the emulator's independent-scheduling result is the GPU's.
func TestGPUGoldenFiles(t *testing.T) {
	examples := filepath.Join("..", "..", "web", "examples")
	for _, name := range gpuGoldenExamples {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(gpuGoldenDir, name+".golden.json")
			if _, err := os.Stat(path); os.IsNotExist(err) {
				t.Skipf("no GPU golden file %s: record it with web/examples/gpu/record.py on an sm_70+ GPU (see web/examples/gpu/README.md)", filepath.ToSlash(filepath.Join("web", "examples", "gpu", name+".golden.json")))
			}
			diffs, err := compareGPUGolden(examples, path, name)
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range diffs {
				t.Error(d)
			}
		})
	}
}

// The comparison itself: a golden file with the emulator's own result
// matches, one with a changed element, a missing buffer or another
// example's name does not.
func TestGPUGoldenCompare(t *testing.T) {
	examples := filepath.Join("..", "..", "web", "examples")
	dir := t.TempDir()
	write := func(body string) string {
		p := filepath.Join(dir, "spin-lock.golden.json")
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	golden := func(counter, extra string) string {
		return `{"example": "spin-lock", "spec": "spin-lock.json", "device": "test", "computeCapability": "9.0",
			"buffers": {"lock": {"type": "u32", "values": [0]}, "counter": {"type": "u32", "values": [` + counter + `]}` + extra + `}}`
	}
	if d, err := compareGPUGolden(examples, write(golden("32", "")), "spin-lock"); err != nil || len(d) != 0 {
		t.Fatalf("the emulator's own result: %v %v", d, err)
	}
	if d, err := compareGPUGolden(examples, write(golden("32.0", "")), "spin-lock"); err != nil || len(d) != 0 {
		t.Fatalf("32.0: %v %v", d, err)
	}
	if d, err := compareGPUGolden(examples, write(golden("31", "")), "spin-lock"); err != nil || len(d) != 1 || !strings.Contains(d[0], "counter[0]: GPU 31, emulator 32") {
		t.Fatalf("a changed element: %v %v", d, err)
	}
	if d, err := compareGPUGolden(examples, write(golden("32", `, "ticket": {"type": "u32", "values": [1]}`)), "spin-lock"); err != nil || len(d) != 1 || !strings.Contains(d[0], "ticket") {
		t.Fatalf("a buffer the spec lacks: %v %v", d, err)
	}
	if d, err := compareGPUGolden(examples, write(golden("32, 0", "")), "spin-lock"); err != nil || len(d) != 1 || !strings.Contains(d[0], "2 elements on the GPU, 1") {
		t.Fatalf("a longer buffer: %v %v", d, err)
	}
	if _, err := compareGPUGolden(examples, write(golden("32", "")), "syncwarp"); err == nil {
		t.Fatal("a golden file of another example accepted")
	}
}
