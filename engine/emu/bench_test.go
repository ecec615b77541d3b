package emu

import (
	"context"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/ptxplayground/ptxplay/engine/internal/cputime"
	"github.com/ptxplayground/ptxplay/engine/ptx"
)

// benchLaunch compiles src once and, per iteration, launches kernel "k"
// with the given buffers (bytes each) passed as u64 parameters followed by
// the extra u32 parameters; it reports thread-instructions per second.
func benchLaunch(b *testing.B, src string, grid, block [3]int, bufs []int, init func(i int, data []byte), extra ...uint32) {
	prog, diags := CompileSource(ptx.NewSource("bench.ptx", []byte(src)))
	if prog == nil {
		b.Fatalf("compile:\n%s", ptx.FormatAll(ptx.NewSource("bench.ptx", []byte(src)), diags))
	}
	var threadInstr, warpInstr int64
	cpu0 := cputime.Seconds()
	b.ResetTimer()
	for b.Loop() {
		m, err := NewMachine(prog, "k", Config{Grid: grid, Block: block, DynamicSharedBytes: 0, Scheduling: Scheduling(os.Getenv("PTXPLAY_SCHEDULING"))})
		if err != nil {
			b.Fatal(err)
		}
		p := m.Params()
		off := 0
		for i, n := range bufs {
			a := m.Global.Alloc("buf", n, 256)
			if init != nil {
				init(i, a.Data)
			}
			binary.LittleEndian.PutUint64(p[off:], a.Base)
			off += 8
		}
		for _, v := range extra {
			binary.LittleEndian.PutUint32(p[off:], v)
			off += 4
		}
		if r := m.Run(context.Background()); r != StopDone {
			b.Fatalf("stop %v: %v", r, m.Fault())
		}
		threadInstr += m.Stats().ThreadInstructions
		warpInstr += m.Stats().WarpInstructions
	}
	sec := b.Elapsed().Seconds()
	cpu := cputime.Seconds() - cpu0
	b.ReportMetric(float64(threadInstr)/sec, "thread-inst/s")
	b.ReportMetric(float64(warpInstr)/sec, "warp-inst/s")
	if cpu > 0 {
		// Per second of the process's CPU time (user and system): on a
		// shared machine, less sensitive than the wall clock to the time
		// the process waits for a core.
		b.ReportMetric(float64(threadInstr)/cpu, "thread-inst/cpu-s")
	}
}

// An integer ALU loop: 256 threads, 2000 iterations of 8 instructions
// (testdata/aluloop.ptx).
func BenchmarkALULoop(b *testing.B) {
	benchLaunch(b, readTestdata(b, "aluloop.ptx"), [3]int{1, 1, 1}, [3]int{256, 1, 1}, []int{1024}, nil)
}

// saxpy over 1<<18 elements in 1024 CTAs of 256 threads.
func BenchmarkSaxpy(b *testing.B) {
	src := `.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 x, .param .u64 y, .param .u32 n, .param .f32 a) {
	.reg .u32 %r<6>; .reg .u64 %rd<8>; .reg .f32 %f<5>; .reg .pred %p;
	ld.param.u64 %rd1, [x];
	ld.param.u64 %rd2, [y];
	ld.param.u32 %r1, [n];
	ld.param.f32 %f1, [a];
	mov.u32 %r2, %ctaid.x;
	mov.u32 %r3, %ntid.x;
	mov.u32 %r4, %tid.x;
	mad.lo.u32 %r5, %r2, %r3, %r4;
	setp.ge.u32 %p, %r5, %r1;
	@%p bra DONE;
	cvta.to.global.u64 %rd3, %rd1;
	cvta.to.global.u64 %rd4, %rd2;
	mul.wide.u32 %rd5, %r5, 4;
	add.u64 %rd6, %rd3, %rd5;
	add.u64 %rd7, %rd4, %rd5;
	ld.global.f32 %f2, [%rd6];
	ld.global.f32 %f3, [%rd7];
	fma.rn.f32 %f4, %f1, %f2, %f3;
	st.global.f32 [%rd7], %f4;
DONE:
	ret;
}`
	const n = 1 << 18
	benchLaunch(b, src, [3]int{n / 256, 1, 1}, [3]int{256, 1, 1}, []int{4 * n, 4 * n}, func(i int, d []byte) {
		for k := 0; k < n; k++ {
			binary.LittleEndian.PutUint32(d[4*k:], math.Float32bits(float32(k%97)*0.5))
		}
	}, n, math.Float32bits(2.5))
}

// A 16x16-tiled SGEMM (C = A*B, 128x128) with shared memory and bar.sync.
func BenchmarkTiledSGEMM(b *testing.B) {
	src := readTestdata(b, "sgemm.ptx")
	const n = 128
	benchLaunch(b, src, [3]int{n / 16, n / 16, 1}, [3]int{16, 16, 1}, []int{4 * n * n, 4 * n * n, 4 * n * n}, func(i int, d []byte) {
		for k := 0; k < n*n; k++ {
			binary.LittleEndian.PutUint32(d[4*k:], math.Float32bits(float32((k*7+i)%13)*0.25))
		}
	}, n)
}

// Collatz step counts: a divergent, data-dependent loop (4096 threads).
func BenchmarkCollatz(b *testing.B) {
	benchLaunch(b, collatzPTX, [3]int{16, 1, 1}, [3]int{256, 1, 1}, []int{4 * 4096}, nil)
}

// A warp-shuffle sum reduction: each warp reduces 32 values 64 times.
func BenchmarkShflReduce(b *testing.B) {
	src := `.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 out) {
	.reg .u32 %r<10>; .reg .u64 %rd<4>; .reg .pred %p;
	mov.u32 %r1, %tid.x;
	mov.u32 %r9, 0;
	mov.u32 %r8, 0;
REP:
	add.u32 %r2, %r1, %r9;
	shfl.sync.bfly.b32 %r3, %r2, 16, 31, -1;
	add.u32 %r2, %r2, %r3;
	shfl.sync.bfly.b32 %r3, %r2, 8, 31, -1;
	add.u32 %r2, %r2, %r3;
	shfl.sync.bfly.b32 %r3, %r2, 4, 31, -1;
	add.u32 %r2, %r2, %r3;
	shfl.sync.bfly.b32 %r3, %r2, 2, 31, -1;
	add.u32 %r2, %r2, %r3;
	shfl.sync.bfly.b32 %r3, %r2, 1, 31, -1;
	add.u32 %r2, %r2, %r3;
	add.u32 %r8, %r8, %r2;
	add.u32 %r9, %r9, 1;
	setp.lt.u32 %p, %r9, 64;
	@%p bra REP;
	ld.param.u64 %rd1, [out];
	mul.wide.u32 %rd2, %r1, 4;
	add.u64 %rd3, %rd1, %rd2;
	st.global.u32 [%rd3], %r8;
	ret;
}`
	benchLaunch(b, src, [3]int{4, 1, 1}, [3]int{256, 1, 1}, []int{4 * 256}, nil)
}

// readTestdata reads a benchmark kernel from testdata.
func readTestdata(b *testing.B, name string) string {
	src, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		b.Fatal(err)
	}
	return string(src)
}

// A shared-memory tree reduction: 64 CTAs of 256 threads each sum 256
// values 16 times (halving strides, bar.sync between steps).
func BenchmarkSharedReduce(b *testing.B) {
	src := readTestdata(b, "reduce.ptx")
	const ctas = 64
	benchLaunch(b, src, [3]int{ctas, 1, 1}, [3]int{256, 1, 1}, []int{4 * 256 * ctas, 4 * ctas}, func(i int, d []byte) {
		if i == 0 {
			for k := 0; k < 256*ctas; k++ {
				binary.LittleEndian.PutUint32(d[4*k:], uint32(k%1000))
			}
		}
	})
}

// collatzPTX counts the Collatz steps of ctaid.x*256 + tid.x + 1 into
// out[ctaid.x*256 + tid.x]: a divergent, data-dependent loop.
const collatzPTX = `.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 out) {
	.reg .u32 %r<8>; .reg .u64 %rd<4>; .reg .pred %p<3>;
	mov.u32 %r1, %tid.x;
	mov.u32 %r6, %ctaid.x;
	mad.lo.u32 %r1, %r6, 256, %r1;
	add.u32 %r2, %r1, 1;
	mov.u32 %r3, 0;
LOOP:
	setp.le.u32 %p1, %r2, 1;
	@%p1 bra DONE;
	and.b32 %r4, %r2, 1;
	setp.eq.u32 %p2, %r4, 0;
	@%p2 bra HALF;
	mad.lo.u32 %r2, %r2, 3, 1;
	bra.uni NEXT;
HALF:
	shr.u32 %r2, %r2, 1;
NEXT:
	add.u32 %r3, %r3, 1;
	bra.uni LOOP;
DONE:
	ld.param.u64 %rd1, [out];
	mul.wide.u32 %rd2, %r1, 4;
	add.u64 %rd3, %rd1, %rd2;
	st.global.u32 [%rd3], %r3;
	ret;
}`
