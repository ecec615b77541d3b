package emu

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/ptxplayground/ptxplay/engine/ptx"
)

// tilePTX: each round, every thread stores a word into a shared tile,
// the CTA synchronises, and every thread reads 16 words of the tile
// (the quiet stretch whose loads leads run), then synchronises again.
// DIVERGE makes the inner loop's trip count differ between lanes.
const tilePTX = `.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 buf) {
	.shared .align 4 .u32 tile[128];
	.reg .u32 %r<20>; .reg .u64 %rd<8>; .reg .pred %p<4>;
	ld.param.u64 %rd1, [buf];
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, %ntid.x;
	mov.u32 %r3, %ctaid.x;
	mad.lo.u32 %r4, %r3, %r2, %r1;
	mov.u32 %r5, tile;
	and.b32 %r6, %r1, 127;
	shl.b32 %r6, %r6, 2;
	add.u32 %r6, %r5, %r6;
	mov.u32 %r7, 0;
	mov.u32 %r8, 0;
	mov.u32 %r15, 16;
	DIVERGE
ROUND:
	add.u32 %r9, %r4, %r8;
	and.b32 %r9, %r9, 255;
	mul.wide.u32 %rd2, %r9, 4;
	add.u64 %rd3, %rd1, %rd2;
	ld.global.u32 %r10, [%rd3];
	xor.b32 %r10, %r10, %r8;
	st.shared.u32 [%r6], %r10;
	bar.sync 0;
	mov.u32 %r11, 0;
INNER:
	mad.lo.u32 %r12, %r1, 7, %r11;
	and.b32 %r12, %r12, 127;
	shl.b32 %r12, %r12, 2;
	add.u32 %r12, %r5, %r12;
	ld.shared.u32 %r13, [%r12];
	add.u32 %r7, %r7, %r13;
	xor.b32 %r7, %r7, %r11;
	add.u32 %r11, %r11, 1;
	setp.lt.u32 %p1, %r11, %r15;
	@%p1 bra INNER;
	WRITER
	bar.sync 0;
	add.u32 %r8, %r8, 1;
	setp.lt.u32 %p2, %r8, 4;
	@%p2 bra ROUND;
	mul.wide.u32 %rd4, %r4, 4;
	add.u64 %rd5, %rd1, %rd4;
	st.global.u32 [%rd5+1024], %r7;
	ret;
}`

func tileKernel(diverge, writer string) string {
	return strings.NewReplacer("DIVERGE", diverge, "WRITER", writer).Replace(tilePTX)
}

// compileQuiet compiles src and returns Program.quiet by source line.
func quietLines(t *testing.T, src string) map[int]bool {
	t.Helper()
	s := ptx.NewSource("q.ptx", []byte(src))
	prog, diags := CompileSource(s)
	if prog == nil {
		t.Fatalf("compile:\n%s", ptx.FormatAll(s, diags))
	}
	out := map[int]bool{}
	for pc, q := range prog.quiet {
		line := s.Position(prog.Spans[pc].Start).Line
		out[line] = q
	}
	return out
}

// quietOf returns, for every line of src holding text, whether its
// instruction is quiet.
func quietOf(t *testing.T, src string, texts ...string) []bool {
	t.Helper()
	q := quietLines(t, src)
	lines := strings.Split(src, "\n")
	var out []bool
	for _, text := range texts {
		found := false
		for i, l := range lines {
			if strings.Contains(l, text) {
				v, ok := q[i+1]
				if !ok {
					t.Fatalf("line %d (%q) has no instruction", i+1, l)
				}
				out = append(out, v)
				found = true
				break
			}
		}
		if !found {
			t.Fatalf("no line holds %q", text)
		}
	}
	return out
}

func TestQuietPCs(t *testing.T) {
	src := tileKernel("", "")
	got := quietOf(t, src, "ld.param", "st.shared", "mov.u32 %r11, 0", "ld.shared", "@%p1 bra INNER", "add.u32 %r8, %r8, 1", "@%p2 bra ROUND", "st.global", "ret")
	want := []bool{false, false, true, true, true, false, false, true, true}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("tile kernel: quiet %v, want %v", got, want)
	}
	// Anything that may write shared memory before the next CTA-wide
	// barrier makes the inner loop not quiet: a shared or generic store,
	// an atomic, a barrier with a thread count (some warps go on past
	// it), bar.arrive, cp.async.
	for _, w := range []string{
		"@%p1 st.shared.u32 [%r6], %r7;",
		"st.u32 [%rd3], %r7;",
		"atom.global.add.u32 %r14, [%rd3], 1;",
		"red.shared.add.u32 [%r6], 1;",
		"bar.sync 1, 64;",
		"bar.arrive 1, 64;",
		"cp.async.ca.shared.global [%r6], [%rd3], 4;",
	} {
		got := quietOf(t, tileKernel("", w), "mov.u32 %r11, 0", "ld.shared", "ret")
		if got[0] || got[1] || !got[2] {
			t.Errorf("%s: inner loop quiet %v %v, ret %v", w, got[0], got[1], got[2])
		}
	}
	// Lanes whose guard is false go past an exit or a barrier.
	for _, w := range []string{"@%p1 exit;\n\tst.shared.u32 [%r6], %r7;", "@%p1 bar.sync 0;\n\tst.shared.u32 [%r6], %r7;", "@%p1 bar.sync 0, 64;"} {
		got := quietOf(t, tileKernel("", w), "ld.shared")
		if got[0] {
			t.Errorf("%s: inner loop quiet", w)
		}
	}
	// Stores to global memory and a full barrier keep it quiet.
	got = quietOf(t, tileKernel("", "st.global.u32 [%rd3+1024], %r7;\n\tbar.sync 0;\n\tst.shared.u32 [%r6], %r7;"), "ld.shared", "st.global.u32 [%rd3+1024]")
	if !got[0] || !got[1] {
		t.Fatalf("a global store before a full barrier: quiet %v", got)
	}
	// A call may do anything; so may a ret that returns into a caller.
	callSrc := `.version 8.0
.target sm_80
.address_size 64
.func f() {
	ld.shared.u32 %r1, [4]; // in f
	ret;
}
.visible .entry k(.param .u64 buf) {
	.reg .u32 %r<4>;
	ld.shared.u32 %r1, [0];
	call f;
	ret;
}`
	callSrc = strings.Replace(callSrc, ".func f() {", ".func f() {\n\t.reg .u32 %r<2>;", 1)
	got = quietOf(t, callSrc, "// in f", "call f")
	if got[0] || got[1] {
		t.Fatalf("call and ret of a function: quiet %v", got)
	}
}

// A tiled kernel's shared-memory loads between its barriers run in leads,
// and the launch ends exactly as the one-instruction-at-a-time run does,
// in both models, with lanes whose inner loops diverge or not, and with
// vector loads.
func TestSharedLoadsInLeads(t *testing.T) {
	for _, s := range []Scheduling{SchedIndependent, SchedSIMTStack} {
		vector := strings.Replace(tileKernel("", ""), "\tld.shared.u32 %r13, [%r12];", "\tand.b32 %r12, %r12, -8;\n\tld.shared.v2.u32 {%r13, %r14}, [%r12];\n\tadd.u32 %r13, %r13, %r14;", 1)
		for vi, src := range []string{tileKernel("", ""), tileKernel("and.b32 %r15, %r1, 7;\n\tadd.u32 %r15, %r15, 9;", ""), vector} {
			for _, shape := range [][2]int{{1, 128}, {3, 96}, {2, 80}} {
				l := batchLaunch{src: src, grid: shape[0], block: shape[1], words: 256 + shape[0]*shape[1], sched: s}
				name := fmt.Sprintf("%s %s %v", s, []string{"converged", "diverging", "vector"}[vi], shape)
				if r := runBothWays(t, name, l); r != StopDone {
					t.Fatalf("%s: %v", name, r)
				}
				m := l.machine(t, true)
				m.Run(context.Background())
				if m.fast.sharedLeads == 0 {
					t.Fatalf("%s: no shared-memory load ran in a lead", name)
				}
			}
		}
	}
}

// Kernels in which another warp may write shared memory while a warp
// reads it: a racing writer in the read loop, writes after a barrier with
// a thread count, and cp.async copies that land when their warp exits.
// The results depend on the exact interleaving; they match the
// one-at-a-time run. Claiming every pc quiet makes the batched run
// differ, so these launches do catch a wrong claim.
func TestSharedLoadsRacing(t *testing.T) {
	racers := map[string]string{
		"writer in the loop": strings.Replace(tileKernel("", ""), "\tld.shared.u32 %r13, [%r12];", "\tld.shared.u32 %r13, [%r12];\n\tsetp.lt.u32 %p3, %r1, 32;\n\t@!%p3 bra NOW;\n\tst.shared.u32 [%r12], %r7;\nNOW:", 1),
		"partial barrier":    tileKernel("setp.lt.u32 %p3, %r1, 64;\n\tselp.u32 %r15, 2, 16, %p3;", "setp.lt.u32 %p3, %r1, 64;\n\t@!%p3 bra NOPART;\n\tbar.sync 1, 64;\n\tst.shared.u32 [%r6], %r11;\nNOPART:"),
		"cp.async at exit":   asyncExitPTX,
	}
	for name, src := range racers {
		for _, s := range []Scheduling{SchedIndependent, SchedSIMTStack} {
			l := batchLaunch{src: src, grid: 2, block: 128, words: 256 + 2*128, sched: s}
			runBothWays(t, name, l)
			m := l.machine(t, true)
			m.Run(context.Background())
			if name != "cp.async at exit" && m.fast.sharedLeads != 0 {
				t.Fatalf("%s: %d shared-memory loads ran in leads", name, m.fast.sharedLeads)
			}
			// The same launch with every pc claimed quiet.
			a, b := l.machine(t, true), l.machine(t, false)
			saved, savedLd, savedKind := append([]bool(nil), a.prog.quiet...), a.prog.sharedLd, a.prog.runKind
			for i := range a.prog.quiet {
				a.prog.quiet[i] = true
			}
			a.prog.sharedLd = sharedLoads(a.prog.Ops, a.prog.quiet)
			a.prog.runKind = runKinds(a.prog.Ops, a.prog.lead, a.prog.sharedLd, a.prog.pure)
			a.Run(context.Background())
			b.Run(context.Background())
			copy(a.prog.quiet, saved)
			a.prog.sharedLd, a.prog.runKind = savedLd, savedKind
			if a.DiffState(b) == "" {
				t.Fatalf("%s (%s): the kernel does not show a wrong quiet claim", name, s)
			}
		}
	}
}

// asyncExitPTX: warp 0 starts cp.async copies into the tile and exits
// without waiting, so they land at its exit, while the other warps read
// the tile in a long loop.
const asyncExitPTX = `.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 buf) {
	.shared .align 4 .u32 tile[128];
	.reg .u32 %r<20>; .reg .u64 %rd<8>; .reg .pred %p<4>;
	ld.param.u64 %rd1, [buf];
	mov.u32 %r1, %tid.x;
	mov.u32 %r3, %ctaid.x;
	mad.lo.u32 %r4, %r3, 128, %r1;
	mov.u32 %r5, tile;
	and.b32 %r6, %r1, 127;
	shl.b32 %r6, %r6, 2;
	add.u32 %r6, %r5, %r6;
	st.shared.u32 [%r6], %r4;
	bar.sync 0;
	setp.lt.u32 %p1, %r1, 32;
	@!%p1 bra READ;
	mul.wide.u32 %rd2, %r1, 4;
	add.u64 %rd3, %rd1, %rd2;
	cp.async.ca.shared.global [%r6+256], [%rd3], 4;
	mov.u32 %r7, 0;
SPIN:
	add.u32 %r7, %r7, 1;
	setp.lt.u32 %p2, %r7, 30;
	@%p2 bra SPIN;
	exit;
READ:
	mov.u32 %r7, 0;
	mov.u32 %r11, 0;
LOOP:
	and.b32 %r12, %r11, 31;
	add.u32 %r12, %r12, 64;
	shl.b32 %r12, %r12, 2;
	add.u32 %r12, %r5, %r12;
	ld.shared.u32 %r13, [%r12];
	mad.lo.u32 %r7, %r7, 31, %r13;
	add.u32 %r11, %r11, 1;
	setp.lt.u32 %p2, %r11, 200;
	@%p2 bra LOOP;
	mul.wide.u32 %rd4, %r4, 4;
	add.u64 %rd5, %rd1, %rd4;
	st.global.u32 [%rd5+1024], %r7;
	ret;
}`

// Runs that stop at every budget end where the one-at-a-time run ends,
// step on through the same states and finish the same, while shared-memory
// loads run in leads.
func TestSharedLoadsEveryBudget(t *testing.T) {
	for _, k := range []struct {
		name string
		l    batchLaunch
		step int64 // every step-th budget (co-prime with the loops' lengths)
	}{
		{"tile", batchLaunch{src: tileKernel("", ""), grid: 1, block: 96, words: 256 + 96}, 3},
		{"tile diverging", batchLaunch{src: tileKernel("and.b32 %r15, %r1, 7;\n\tadd.u32 %r15, %r15, 9;", ""), grid: 1, block: 96, words: 256 + 96}, 3},
		{"cp.async at exit", batchLaunch{src: asyncExitPTX, grid: 1, block: 128, words: 256 + 128}, 7},
	} {
		for _, s := range []Scheduling{SchedIndependent, SchedSIMTStack} {
			l := k.l
			l.sched = s
			full := l.machine(t, true)
			full.Run(context.Background())
			total := full.Stats().WarpInstructions
			step := k.step
			if testing.Short() {
				step *= 5
			}
			var used, n int64
			for budget := int64(1); budget <= total; budget += step {
				n++
				l.limit = budget
				a, b := l.machine(t, true), l.machine(t, false)
				ra, rb := a.Run(context.Background()), b.Run(context.Background())
				if ra != rb {
					t.Fatalf("%s (%s) budget %d: %v vs %v", k.name, s, budget, ra, rb)
				}
				if d := a.DiffState(b); d != "" {
					t.Fatalf("%s (%s) budget %d: %s", k.name, s, budget, d)
				}
				used += a.fast.sharedLeads
				a.SetMaxWarpInstructions(0)
				b.SetMaxWarpInstructions(0)
				sa, sb := stepStates(a, 5), stepStates(b, 5)
				if strings.Join(sa, "\n") != strings.Join(sb, "\n") {
					t.Fatalf("%s (%s) budget %d: stepping on differs", k.name, s, budget)
				}
				a.Run(context.Background())
				b.Run(context.Background())
				if d := a.DiffState(b); d != "" {
					t.Fatalf("%s (%s) budget %d at the end: %s", k.name, s, budget, d)
				}
			}
			if used == 0 {
				t.Fatalf("%s (%s): no shared-memory load ran in a lead before a stop (%d warp-instructions)", k.name, s, total)
			}
			t.Logf("%s (%s): %d budgets of %d, %d shared-memory loads in leads before the stops", k.name, s, n, total, used)
		}
	}
}

// A shared-memory load that a lead runs and that faults (an address past
// the tile) ends the batched run in the one-at-a-time run's state, by
// replaying to the fault.
func TestSharedLoadsFault(t *testing.T) {
	src := strings.Replace(tileKernel("", ""), "and.b32 %r12, %r12, 127;", "and.b32 %r12, %r12, 1023;", 1)
	for _, s := range []Scheduling{SchedIndependent, SchedSIMTStack} {
		l := batchLaunch{src: src, grid: 2, block: 96, words: 256 + 2*96, sched: s}
		if r := runBothWays(t, "fault in a quiet stretch", l); r != StopFault {
			t.Fatalf("%s: stop %v, want a fault", s, r)
		}
		m := l.machine(t, true)
		m.Run(context.Background())
		if m.fast.replays != 1 || m.fast.sharedLeads == 0 {
			t.Fatalf("%s: %d replays, %d shared loads in leads", s, m.fast.replays, m.fast.sharedLeads)
		}
		if f := m.Fault(); f == nil || f.PC < 0 || !m.prog.sharedLd[f.PC] {
			t.Fatalf("%s: fault %v, not at the shared-memory load", s, f)
		}
	}
}
