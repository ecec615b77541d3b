package launch

import (
	"strconv"
	"strings"
	"testing"

	"github.com/ptxplayground/ptxplay/engine/emu"
	"github.com/ptxplayground/ptxplay/engine/ptx"
)

const clusterKernel = `.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 out) {
	.reg .u32 %r<4>; .reg .u64 %rd<4>;
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, %cluster_nctarank;
	mov.u32 %r2, %clusterid.x;
	mul.wide.u32 %rd2, %r2, 4;
	add.u64 %rd1, %rd1, %rd2;
	st.global.u32 [%rd1], %r1;
	ret;
}`

// The spec's cluster field: parsed, written back, checked against the
// grid with an error naming the field, and given to the launch.
func TestSpecCluster(t *testing.T) {
	spec := `{"source": ` + strconv.Quote(clusterKernel) + `, "grid": [8], "block": [32], "cluster": [4],
		"buffers": [{"name": "out", "type": "u32", "count": 2, "output": true}], "params": [{"buffer": "out"}]}`
	s, err := ParseSpec([]byte(spec))
	if err != nil {
		t.Fatal(err)
	}
	if s.Cluster != [3]int{4, 1, 1} {
		t.Fatalf("cluster %v", s.Cluster)
	}
	out, err := s.MarshalIndent()
	if err != nil || !strings.Contains(string(out), `"cluster": [`) {
		t.Fatalf("marshalled without the cluster: %s %v", out, err)
	}
	prog, diags := emu.CompileSource(ptx.NewSource("k.ptx", []byte(clusterKernel)))
	if prog == nil {
		t.Fatal(diags)
	}
	l, err := Prepare(prog, s)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.Run(t.Context()); err != nil {
		t.Fatal(err)
	}
	if v := l.Machine().Global.Allocs()[1].Data[:8]; v[0] != 4 || v[4] != 4 {
		t.Fatalf("each cluster's %%cluster_nctarank: % x, want 4 and 4", v)
	}
	// A grid that is not a multiple of the cluster: Check names the field.
	s.Grid = [3]int{6, 1, 1}
	ms := Check(prog, s)
	found := false
	for _, m := range ms {
		if m.Field == "cluster" && m.Blocking && strings.Contains(m.Message, "not a multiple of the cluster's (4)") {
			found = true
		}
	}
	if !found {
		t.Fatalf("mismatches %+v lack the cluster field", ms)
	}
	for _, bad := range []string{`[0]`, `[17]`, `[1,1,1,1]`} {
		if _, err := ParseSpec([]byte(strings.Replace(spec, `"cluster": [4]`, `"cluster": `+bad, 1))); err == nil || !strings.Contains(err.Error(), "cluster") {
			t.Errorf("cluster %s: error %v", bad, err)
		}
	}
}

// Infer gives a kernel with .reqnctapercluster a grid of one cluster (the
// default grid of one CTA is not a multiple of it), and one with
// .explicitcluster alone an explicit 1x1x1 cluster; both launches run.
func TestInferClusterKernels(t *testing.T) {
	for _, tc := range []struct {
		dirs          string
		grid, cluster [3]int
	}{
		{".reqnctapercluster 4", [3]int{4, 1, 1}, [3]int{}},
		{".reqnctapercluster 2, 2", [3]int{2, 2, 1}, [3]int{}},
		{".explicitcluster", [3]int{1, 1, 1}, [3]int{1, 1, 1}},
	} {
		src := strings.Replace(clusterKernel, ".visible .entry k(.param .u64 out) {", ".visible .entry k(.param .u64 out) "+tc.dirs+" {", 1)
		prog, diags := emu.CompileSource(ptx.NewSource("k.ptx", []byte(src)))
		if prog == nil {
			t.Fatal(diags)
		}
		s, _, err := Infer(prog, nil, "")
		if err != nil {
			t.Fatalf("%s: %v", tc.dirs, err)
		}
		if s.Grid != tc.grid || s.Cluster != tc.cluster {
			t.Errorf("%s: grid %v cluster %v, want %v %v", tc.dirs, s.Grid, s.Cluster, tc.grid, tc.cluster)
		}
		if ms := Check(prog, s); len(ms) > 0 {
			t.Errorf("%s: the inferred spec does not fit: %+v", tc.dirs, ms)
		}
		l, err := Prepare(prog, s)
		if err != nil {
			t.Fatalf("%s: %v", tc.dirs, err)
		}
		if _, err := l.Run(t.Context()); err != nil {
			t.Fatalf("%s: %v", tc.dirs, err)
		}
	}
}
