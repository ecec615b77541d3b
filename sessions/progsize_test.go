package sessions

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"
)

// progShape is a source whose compiled program's retained heap is
// measured.
type progShape struct {
	name, src string
}

// progShapes: small and large kernels, many globals, many registers and
// functions, and the largest modules of the shared PTX corpus when it is
// there.
func progShapes(t testing.TB) []progShape {
	var arith strings.Builder
	arith.WriteString(hdr + ".visible .entry k(.param .u64 p) {\n\t.reg .u32 %r<64>; .reg .pred %p<4>;\n")
	for i := range 20000 {
		fmt.Fprintf(&arith, "\tadd.u32 %%r%d, %%r%d, %d;\n", i%60+1, (i*7)%60+1, i)
		if i%50 == 0 {
			fmt.Fprintf(&arith, "\tsetp.lt.u32 %%p1, %%r%d, %d;\n\t@%%p1 bra L%d;\nL%d:\n", i%60+1, i, i, i)
		}
	}
	arith.WriteString("\tret;\n}\n")
	var globals strings.Builder
	globals.WriteString(hdr)
	for i := range 3000 {
		fmt.Fprintf(&globals, ".global .align 4 .u32 g%d[4] = {%d, 2, 3, 4};\n", i, i)
	}
	globals.WriteString(".visible .entry k(.param .u64 p) {\n\t.reg .u64 %rd<4>;\n")
	for i := range 3000 {
		fmt.Fprintf(&globals, "\tmov.u64 %%rd1, g%d;\n", i)
	}
	globals.WriteString("\tret;\n}\n")
	var funcs strings.Builder
	funcs.WriteString(hdr)
	for i := range 400 {
		fmt.Fprintf(&funcs, ".func (.reg .u32 r) f%d(.reg .u32 a) {\n\t.reg .u32 %%t<40>;\n", i)
		for j := range 30 {
			fmt.Fprintf(&funcs, "\tmad.lo.u32 %%t%d, a, %d, %%t%d;\n", j+1, j+i, j)
		}
		funcs.WriteString("\tmov.u32 r, %t30;\n\tret;\n}\n")
	}
	funcs.WriteString(".visible .entry k(.param .u64 p) {\n\t.reg .u32 %r<4>;\n")
	for i := range 400 {
		fmt.Fprintf(&funcs, "\tcall (%%r1), f%d, (%%r2);\n", i)
	}
	funcs.WriteString("\tret;\n}\n")
	shapes := []progShape{
		{"small", divergentPTX},
		{"reduce", reducePTX},
		{"arith-20k", arith.String()},
		{"globals-3k", globals.String()},
		{"funcs-400", funcs.String()},
		{"zero-global-12M", hdr + ".global .b8 g[12582912];\n.visible .entry k() { .reg .b32 %r<2000>; mov.b32 %r1, 7; ret; }\n"},
	}
	files, _ := filepath.Glob(filepath.Join("..", "..", "shared", "corpus", "*", "*", "*.ptx"))
	more, _ := filepath.Glob(filepath.Join("..", "..", "shared", "corpus", "*", "*.ptx"))
	files = append(files, more...)
	type sized struct {
		path string
		n    int64
	}
	var fs []sized
	for _, f := range files {
		if st, err := os.Stat(f); err == nil {
			fs = append(fs, sized{f, st.Size()})
		}
	}
	sort.Slice(fs, func(i, j int) bool { return fs[i].n > fs[j].n })
	for _, f := range fs[:min(len(fs), 6)] {
		b, err := os.ReadFile(f.path)
		if err != nil {
			t.Fatal(err)
		}
		shapes = append(shapes, progShape{"corpus/" + filepath.Base(f.path), string(b)})
	}
	return shapes
}

// retainedHeap returns the heap that n compilations of src hold, per
// compilation (live heap after a GC with them kept, less before), and the
// estimate of one.
func retainedHeap(src string, n int) (measured, estimate int64, ok bool) {
	keep := make([]*compiled, n)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for i := range keep {
		keep[i] = compile(src)
		keep[i].kernels() // computed once and kept by the first session
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	ok = keep[0].prog != nil
	estimate = keep[0].size
	runtime.KeepAlive(keep)
	return (int64(after.HeapAlloc) - int64(before.HeapAlloc)) / int64(n), estimate, ok
}

// The program cache's estimate of a compiled program is at least the heap
// it really retains, and at most twice it, for programs of every shape.
func TestProgramSizeEstimate(t *testing.T) {
	for _, sh := range progShapes(t) {
		n := max(2, min(40, (48<<20)/(len(sh.src)*40+1)))
		measured, est, ok := retainedHeap(sh.src, n)
		if !ok {
			t.Logf("%s: does not compile; skipped", sh.name)
			continue
		}
		t.Logf("%-40s source %9d  measured %10d  estimate %10d  (%.2fx)", sh.name, len(sh.src), measured, est, float64(est)/float64(measured))
		if est < measured || est > 2*measured {
			t.Errorf("%s: estimate %d bytes, retained heap %d", sh.name, est, measured)
		}
	}
}
