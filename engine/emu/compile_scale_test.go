package emu

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ptxplayground/ptxplay/engine/ptx"
)

// manyFuncs is a module of n device functions, each called by the next,
// and a kernel that calls the last.
func manyFuncs(n int) []byte {
	var b strings.Builder
	b.WriteString(ctlHeader)
	b.WriteString(".func f0() { ret; }\n")
	for i := 1; i < n; i++ {
		fmt.Fprintf(&b, ".func f%d() { call f%d; ret; }\n", i, i-1)
	}
	fmt.Fprintf(&b, ".visible .entry k() { call f%d; ret; }\n", n-1)
	return []byte(b.String())
}

func compileMany(t testing.TB, src []byte) time.Duration {
	t0 := time.Now()
	p, diags := CompileSource(ptx.NewSource("many.ptx", src))
	d := time.Since(t0)
	if p == nil {
		t.Fatalf("compile: %v", diags[0])
	}
	return d
}

// Compile time is linear in the number of functions: eight times the
// functions take about eight times as long (a quadratic compiler takes 64
// times as long; the one with a linear search per function took 3.9 s for
// 50,000 functions), and 50,000 functions compile in well under a second
// on an idle machine. The bounds are loose (24 times, 3 s) because
// machines are shared and a loaded one stretches any one measurement.
func TestCompileManyFunctionsLinear(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles 56,250 functions")
	}
	small, big := manyFuncs(6_250), manyFuncs(50_000)
	// The best of three runs of each, against noise from other work.
	best := func(src []byte) time.Duration {
		d := compileMany(t, src)
		for range 2 {
			d = min(d, compileMany(t, src))
		}
		return d
	}
	ds, db := best(small), best(big)
	t.Logf("6,250 functions: %v; 50,000: %v (%.1fx)", ds, db, float64(db)/float64(ds))
	if db > 3*time.Second {
		t.Errorf("50,000 functions took %v", db)
	}
	if db > 24*ds+100*time.Millisecond {
		t.Errorf("eight times the functions took %v -> %v: not linear", ds, db)
	}
}

func BenchmarkCompileManyFunctions(b *testing.B) {
	src := manyFuncs(50_000)
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		compileMany(b, src)
	}
}
