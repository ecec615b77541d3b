package analysis_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ptxplayground/ptxplay/engine/analysis"
	"github.com/ptxplayground/ptxplay/engine/emu"
	"github.com/ptxplayground/ptxplay/engine/isa"
	"github.com/ptxplayground/ptxplay/engine/launch"
)

// mbarHead wraps body in k(.param .u64 out) with registers, an mbarrier
// bar in shared memory and decls; %rd1 holds out, %r1 the thread index.
func mbarSrc(decls, body string) string {
	return `.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 out) {
	.reg .u32 %r<40>; .reg .u64 %rd<40>; .reg .pred %p<16>;
	.shared .align 8 .b64 bar;
` + decls + `
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, %tid.x;
` + body + `
}`
}

func mbarSpec(sched string, block int) string {
	return fmt.Sprintf(`{"grid": [1], "block": [%d], "scheduling": %q, "buffers": [{"name": "out", "type": "u32", "count": 64}], "params": [{"buffer": "out"}]}`, block, sched)
}

var scheds = []string{"independent", "simt-stack"}

// ringBody: the 2-stage producer/consumer ring of engine/emu's mbarrier
// tests. Warp 0 produces 6 tiles of 64 words into stage i%2 after waiting
// for the stage's empty barrier; warps 1 and 2 wait for the stage's full
// barrier, read word k (thread 32+k) and arrive on its empty barrier.
// WAITFULL and WAITEMPTY are the waits; STORE2 the producer's second
// store (before its arrive on the full barrier, or after it: AFTER).
const ringDecls = `
	.shared .align 8 .b64 full[2];
	.shared .align 8 .b64 empty[2];
	.shared .align 4 .u32 buf[128];`

const ringBody = `
	setp.ne.u32 %p1, %r1, 0;
	@%p1 bra INITED;
	mov.u32 %r2, full;
	mbarrier.init.shared.b64 [%r2], 32;
	mbarrier.init.shared.b64 [%r2+8], 32;
	mov.u32 %r2, empty;
	mbarrier.init.shared.b64 [%r2], 64;
	mbarrier.init.shared.b64 [%r2+8], 64;
INITED:
	bar.sync 0;
	mov.u32 %r5, 0;
	mov.u32 %r20, 0;
	setp.ge.u32 %p3, %r1, 32;
	@%p3 bra CONSUMER;
PLOOP:
	and.b32 %r6, %r5, 1;
	shr.u32 %r7, %r5, 1;
	and.b32 %r7, %r7, 1;
	xor.b32 %r7, %r7, 1;
	shl.b32 %r8, %r6, 3;
	mov.u32 %r9, empty;
	add.u32 %r9, %r9, %r8;
WAITEMPTY
	mov.u32 %r10, buf;
	shl.b32 %r11, %r6, 8;
	add.u32 %r10, %r10, %r11;
	shl.b32 %r12, %r1, 2;
	add.u32 %r10, %r10, %r12;
	mul.lo.u32 %r13, %r5, 1000;
	add.u32 %r13, %r13, %r1;
	st.shared.u32 [%r10], %r13;          // STORE1
	add.u32 %r13, %r13, 32;
BEFORE
	mov.u32 %r9, full;
	add.u32 %r9, %r9, %r8;
	mbarrier.arrive.release.cta.shared.b64 %rd2, [%r9];
AFTER
	add.u32 %r5, %r5, 1;
	setp.lt.u32 %p4, %r5, 6;
	@%p4 bra PLOOP;
	ret;
CONSUMER:
	sub.u32 %r14, %r1, 32;
CLOOP:
	and.b32 %r6, %r5, 1;
	shr.u32 %r7, %r5, 1;
	and.b32 %r7, %r7, 1;
	shl.b32 %r8, %r6, 3;
	mov.u32 %r9, full;
	add.u32 %r9, %r9, %r8;
WAITFULL
	mov.u32 %r10, buf;
	shl.b32 %r11, %r6, 8;
	add.u32 %r10, %r10, %r11;
	shl.b32 %r12, %r14, 2;
	add.u32 %r10, %r10, %r12;
	ld.shared.u32 %r13, [%r10];          // LOAD
	add.u32 %r20, %r20, %r13;
	mov.u32 %r9, empty;
	add.u32 %r9, %r9, %r8;
	mbarrier.arrive.shared.b64 %rd2, [%r9];
	add.u32 %r5, %r5, 1;
	setp.lt.u32 %p4, %r5, 6;
	@%p4 bra CLOOP;
	mul.wide.u32 %rd3, %r14, 4;
	add.u64 %rd3, %rd1, %rd3;
	st.global.u32 [%rd3], %r20;
	ret;`

const store2 = "st.shared.u32 [%r10+128], %r13;    // STORE2"

func ringKernel(waitEmpty, waitFull, storeAfter bool) string {
	body := ringBody
	we, wf := "", ""
	if waitEmpty {
		we = "WE:\n\tmbarrier.try_wait.parity.acquire.cta.shared.b64 %p5, [%r9], %r7;\n\t@!%p5 bra WE;"
	}
	if waitFull {
		wf = "WF:\n\tmbarrier.try_wait.parity.shared::cta.b64 %p5, [%r9], %r7;\n\t@!%p5 bra WF;"
	}
	body = strings.Replace(body, "WAITEMPTY", we, 1)
	body = strings.Replace(body, "WAITFULL", wf, 1)
	if storeAfter {
		body = strings.Replace(strings.Replace(body, "BEFORE", "", 1), "AFTER", store2, 1)
	} else {
		body = strings.Replace(strings.Replace(body, "BEFORE", store2, 1), "AFTER", "", 1)
	}
	return mbarSrc(ringDecls, body)
}

func checkMbar(t *testing.T, src, spec string) []analysis.Warning {
	t.Helper()
	s, err := launch.ParseSpec([]byte(`{"source": "(below)", ` + spec[1:]))
	if err != nil {
		t.Fatal(err)
	}
	fast, exact, df, de := runBoth(t, "k.ptx", []byte(src), s, true)
	sameWarnings(t, "k.ptx", fast, exact, df, de, src)
	return fast
}

// TestCheckerMbarrierRing: an mbarrier's release arrive and the wait
// that observes the phase's completion order the producer's stores before
// the consumers' loads: the ring has no warning; without the consumers'
// wait, or with the producer's data written after its arrive, the load
// races with the store, named by both lines.
func TestCheckerMbarrierRing(t *testing.T) {
	for _, sched := range scheds {
		spec := mbarSpec(sched, 96)
		t.Run(sched+"/ring", func(t *testing.T) {
			if ws := checkMbar(t, ringKernel(true, true, false), spec); len(ws) != 0 {
				t.Errorf("%d warnings, want none: %+v", len(ws), ws)
			}
		})
		for _, c := range []struct {
			name        string
			wait, after bool
			store       string
		}{
			{"no full wait", false, false, "// STORE1"},
			{"store after the arrive", true, true, "// STORE2"},
		} {
			t.Run(sched+"/"+c.name, func(t *testing.T) {
				src := ringKernel(true, c.wait, c.after)
				ws := checkMbar(t, src, spec)
				store, load := lineOf(t, src, c.store), lineOf(t, src, "// LOAD")
				found := false
				for _, w := range ws {
					if w.Kind.Race() && ([2]int{w.PrevLine, w.Line} == [2]int{store, load} || [2]int{w.PrevLine, w.Line} == [2]int{load, store}) {
						found = true
					}
				}
				if !found {
					t.Errorf("no race between lines %d and %d: %+v", store, load, ws)
				}
			})
		}
	}
}

// TestCheckerMbarrierPlainAccess: an ordinary load or store of an
// initialised mbarrier's bytes is a warning naming the access and the
// init; after mbarrier.inval the bytes are ordinary memory again.
func TestCheckerMbarrierPlainAccess(t *testing.T) {
	body := `
	mov.u32 %r2, bar;
	setp.ne.u32 %p1, %r1, 0;
	@%p1 bra DONE;
	mbarrier.init.shared.b64 [%r2], 1;   // INIT
	ACCESS
	mbarrier.inval.shared.b64 [%r2];
	st.shared.u32 [%r2], %r1;            // AFTERINVAL
	ld.shared.u32 %r3, [%r2];
DONE:
	ret;`
	for _, sched := range scheds {
		for _, acc := range []string{"ld.shared.u64 %rd5, [%r2];", "st.shared.u32 [%r2+4], %r1;", "atom.shared.add.u32 %r4, [%r2], 1;"} {
			t.Run(sched+"/"+acc, func(t *testing.T) {
				src := mbarSrc("", strings.Replace(body, "ACCESS", acc+"  // ACCESS", 1))
				ws := checkMbar(t, src, mbarSpec(sched, 32))
				if len(ws) != 1 || ws[0].Kind != analysis.WarnMbarrierPlain || ws[0].Line != lineOf(t, src, "// ACCESS") || ws[0].PrevLine != lineOf(t, src, "// INIT") {
					t.Errorf("warnings %+v, want one %s at line %d naming the init at line %d", ws, analysis.WarnMbarrierPlain, lineOf(t, src, "// ACCESS"), lineOf(t, src, "// INIT"))
				}
				if want := fmt.Sprintf("at line %d is an ordinary access to the mbarrier that thread 0 of CTA 0 initialised at line %d", lineOf(t, src, "// ACCESS"), lineOf(t, src, "// INIT")); len(ws) == 1 && !strings.Contains(ws[0].Message(), want) {
					t.Errorf("message %q, want it to say %q", ws[0].Message(), want)
				}
			})
		}
	}
}

// TestCheckerMbarrierInitWhileWaiting: mbarrier.init of an mbarrier a
// warp waits on is a warning naming the init and the waiting try_wait.
func TestCheckerMbarrierInitWhileWaiting(t *testing.T) {
	body := `
	mov.u32 %r2, bar;
	setp.ne.u32 %p1, %r1, 0;
	@%p1 bra NOINIT;
	mbarrier.init.shared.b64 [%r2], 1;
NOINIT:
	bar.sync 0;
	setp.lt.u32 %p2, %r1, 32;
	@%p2 bra W0;
	mov.u32 %r5, 0;
WT:
	mbarrier.try_wait.parity.shared.b64 %p3, [%r2], %r5;   // WAIT
	@!%p3 bra WT;
	ret;
W0:
	setp.ne.u32 %p1, %r1, 0;
	@%p1 bra DONE;
	mov.u32 %r6, 0;
SLOW:
	add.u32 %r6, %r6, 1;
	setp.lt.u32 %p4, %r6, 100;
	@%p4 bra SLOW;
	REINIT
	mbarrier.arrive.shared.b64 %rd2, [%r2];
DONE:
	ret;`
	for _, sched := range scheds {
		for _, re := range []bool{false, true} {
			t.Run(fmt.Sprint(sched, "/reinit=", re), func(t *testing.T) {
				r := ""
				if re {
					r = "mbarrier.init.shared.b64 [%r2], 1;   // REINIT"
				}
				src := mbarSrc("", strings.Replace(body, "REINIT", r, 1))
				ws := checkMbar(t, src, mbarSpec(sched, 64))
				if !re {
					if len(ws) != 0 {
						t.Errorf("warnings %+v, want none", ws)
					}
					return
				}
				// The init also races with the waiting warp's try_wait
				// (nothing orders them): that race may be reported too.
				found := 0
				for _, w := range ws {
					lines := [2]int{w.PrevLine, w.Line}
					switch {
					case w.Kind == analysis.WarnMbarrierInitWaiting && lines == [2]int{lineOf(t, src, "// WAIT"), lineOf(t, src, "// REINIT")} && w.PrevThread.Warp == 1:
						found++
						if want := fmt.Sprintf("mbarrier.init at line %d re-initialises an mbarrier that thread %s is waiting on at line %d", lineOf(t, src, "// REINIT"), analysis.ThreadName(w.PrevThread), lineOf(t, src, "// WAIT")); !strings.Contains(w.Message(), want) {
							t.Errorf("message %q, want it to say %q", w.Message(), want)
						}
					case w.Kind.Race() && lines == [2]int{lineOf(t, src, "// WAIT"), lineOf(t, src, "// REINIT")}:
					default:
						found = -100
					}
				}
				if found != 1 {
					t.Errorf("warnings %+v, want one %s at line %d naming warp 1's try_wait at line %d", ws, analysis.WarnMbarrierInitWaiting, lineOf(t, src, "// REINIT"), lineOf(t, src, "// WAIT"))
				}
			})
		}
	}
}

// asyncProg compiles a kernel whose lines stand for the instructions of
// a synthetic step sequence (the asynchronous copies are reported by
// their instruction with emu.Access.Async) and returns it with the pc of
// each marked line.
func asyncProg(t *testing.T, src string, marks ...string) (*emu.Program, map[string]int) {
	t.Helper()
	p, diags, _ := launch.Compile("k.ptx", []byte(src))
	if p == nil {
		t.Fatalf("compile: %v", diags)
	}
	pcs := map[string]int{}
	for _, m := range marks {
		line := lineOf(t, src, m)
		for pc := range p.Ops {
			if p.Src.Position(p.Spans[pc].Start).Line == line {
				pcs[m] = pc
				break
			}
		}
		if _, ok := pcs[m]; !ok {
			t.Fatalf("no instruction at line %d (%s)", line, m)
		}
	}
	return p, pcs
}

func acc(kind emu.AccessKind, async bool, size int, lane int, off uint64) emu.Access {
	a := emu.Access{Kind: kind, Space: isa.Shared, Size: size, Lanes: 1 << lane, Async: async}
	a.Addr[lane] = off
	return a
}

// asyncAcc is lane 0's 16-byte asynchronous-proxy access at off made by
// the copy instruction at pc (emu.Access.AsyncPC).
func asyncAcc(kind emu.AccessKind, pc int, off uint64) emu.Access {
	a := acc(kind, true, 16, 0, off)
	a.AsyncPC = pc
	return a
}

// The source the synthetic sequences name: a generic store, a proxy
// fence, an instruction standing for an asynchronous copy (its accesses
// are the async proxy's), an mbarrier wait and a generic load.
const asyncSrc = `.version 8.0
.target sm_90
.address_size 64
.visible .entry k() {
	.reg .u32 %r<8>; .reg .pred %p<4>; .reg .b64 %rd<4>;
	.shared .align 8 .b64 bar;
	.shared .align 16 .b8 tile[64];
	mov.u32 %r1, tile;
	st.shared.u32 [%r1], %r2;                             // ST
	fence.proxy.async.shared::cta;                         // FENCE
	mbarrier.complete_tx.shared.b64 [bar], 16;             // COPY
	mbarrier.try_wait.parity.shared.b64 %p1, [bar], 0;     // WAIT
	ld.shared.u32 %r3, [%r1];                              // LD
	ret;
}`

// TestCheckerAsyncProxy: the async-proxy rules on synthetic step
// sequences (the asynchronous copies are reported as the emulator reports
// them: emu.Access.Async accesses of the copy's instruction, and
// EvMbarrierCompleteTx with Async for the transaction bytes it
// completes). A generic write that an asynchronous-proxy read reads with
// no fence.proxy.async in the writing thread since the write is a
// warning naming both lines, and not with the fence; a generic read of an
// asynchronous write is a warning unless a wait on the phase the copy
// completed orders it, for the issuing thread too. The sequences do not
// depend on the scheduling model.
func TestCheckerAsyncProxy(t *testing.T) {
	p, pc := asyncProg(t, asyncSrc, "// ST", "// FENCE", "// COPY", "// WAIT", "// LD")
	const tile = 16 // offset of tile (after bar, 8 bytes, aligned to 16)
	cfg := analysis.CheckerConfig{Block: [3]int{64, 1, 1}}
	type step struct {
		warp   int
		pc     string
		acc    []emu.Access
		events []emu.Event
	}
	run := func(steps []step) []analysis.Warning {
		c := analysis.NewChecker(p, cfg)
		ws := [2]int64{}
		for i, s := range steps {
			ws[s.warp]++
			c.Step(&emu.StepInfo{Warp: s.warp, PC: pc[s.pc], Mask: 1, ExecMask: 1, Step: int64(i + 1), WarpStep: ws[s.warp], MaskChanged: ws[s.warp] == 1,
				Accesses: s.acc, Events: s.events})
		}
		return c.Warnings()
	}
	store := step{0, "// ST", []emu.Access{acc(emu.AccessStore, false, 16, 0, tile)}, nil}
	fence := step{0, "// FENCE", nil, []emu.Event{{Kind: emu.EvProxyFence, Mask: 1, PC: pc["// FENCE"]}}}
	// A copy reading the tile (a bulk or TMA store's source).
	copyRead := step{0, "// COPY", []emu.Access{asyncAcc(emu.AccessLoad, pc["// COPY"], tile)}, nil}
	// A copy writing the tile and completing 16 bytes on bar (offset 0).
	copyWrite := step{0, "// COPY", []emu.Access{asyncAcc(emu.AccessStore, pc["// COPY"], tile)}, []emu.Event{
		{Kind: emu.EvMbarrierCompleteTx, Mask: 1, Async: true, CTA: 0, Addr: 0, PC: pc["// COPY"]},
		{Kind: emu.EvMbarrierComplete, ID: 0, CTA: 0, Addr: 0, PC: pc["// COPY"]},
	}}
	wait := func(w int) step {
		return step{w, "// WAIT", nil, []emu.Event{{Kind: emu.EvMbarrierWait, Mask: 1, CTA: 0, Addr: 0, PC: pc["// WAIT"]}}}
	}
	load := func(w int) step { return step{w, "// LD", []emu.Access{acc(emu.AccessLoad, false, 4, 0, tile)}, nil} }
	line := func(m string) int { return lineOf(t, asyncSrc, m) }

	want := func(name string, ws []analysis.Warning, kind analysis.WarningKind, prev, at string) {
		t.Helper()
		if len(ws) != 1 || ws[0].Kind != kind || ws[0].PrevLine != line(prev) || ws[0].Line != line(at) {
			t.Errorf("%s: warnings %+v, want one %s naming lines %d and %d", name, ws, kind, line(prev), line(at))
		}
	}
	want("write, copy reads", run([]step{store, copyRead}), analysis.WarnProxyFence, "// ST", "// COPY")
	if ws := run([]step{store, fence, copyRead}); len(ws) != 0 {
		t.Errorf("write, fence, copy reads: warnings %+v, want none", ws)
	}
	// A fence before the write does not count.
	want("fence, write, copy reads", run([]step{fence, store, copyRead}), analysis.WarnProxyFence, "// ST", "// COPY")

	// The copy's bytes read by another warp or the issuing one without a
	// wait; with the wait neither warns.
	want("copy writes, other warp reads", run([]step{copyWrite, load(1)}), analysis.WarnAsyncWriteRead, "// COPY", "// LD")
	want("copy writes, issuer reads", run([]step{copyWrite, load(0)}), analysis.WarnAsyncWriteRead, "// COPY", "// LD")
	if ws := run([]step{copyWrite, wait(1), load(1), wait(0), load(0)}); len(ws) != 0 {
		t.Errorf("copy writes, waits, reads: warnings %+v, want none", ws)
	}
	// The completion releases the copy's writes, not the issuer's generic
	// ones: a generic store of the issuer's before the copy is not
	// ordered before the waiting warp's read.
	store2 := step{0, "// ST", []emu.Access{acc(emu.AccessStore, false, 4, 0, tile+32)}, nil}
	load2 := step{1, "// LD", []emu.Access{acc(emu.AccessLoad, false, 4, 0, tile+32)}, nil}
	if ws := run([]step{store2, copyWrite, wait(1), load2}); len(ws) != 1 || ws[0].Kind != analysis.WarnReadAfterWrite {
		t.Errorf("generic store, copy, wait, read: warnings %+v, want one %s", ws, analysis.WarnReadAfterWrite)
	}
}

// The async-proxy rules on real copies: a bulk store reads shared bytes
// that threads wrote with ordinary stores; without fence.proxy.async in
// the writers between their stores and the bar.sync before the copy the
// checker warns naming the store and the copy, with it not; a bulk load
// into shared memory lands when a thread waits on its mbarrier, so a read
// before the wait reads what was there before (here nothing: an
// uninitialised read), and after the wait it warns of nothing.
func TestCheckerAsyncProxyOnCopies(t *testing.T) {
	store := func(fence string) string {
		return mbarSrc(`
	.shared .align 128 .u32 src[32];`, `
	mov.u32 %r2, src;
	shl.b32 %r3, %r1, 2;
	add.u32 %r4, %r2, %r3;
	st.shared.u32 [%r4], %r1;              // WRITE
	`+fence+`
	bar.sync 0;
	setp.ne.u32 %p1, %r1, 0;
	@%p1 bra DONE;
	cp.async.bulk.global.shared::cta.bulk_group [%rd1], [%r2], 128;   // COPY
	cp.async.bulk.commit_group;
	cp.async.bulk.wait_group 0;
DONE:
	ret;`)
	}
	load := func(wait bool) string {
		w := ""
		if wait {
			w = `WAITL:
	mbarrier.try_wait.parity.shared.b64 %p2, [bar], 0;
	@!%p2 bra WAITL;`
		}
		return mbarSrc(`
	.shared .align 128 .u32 dst[32];`, `
	mov.u32 %r2, dst;
	setp.ne.u32 %p1, %r1, 0;
	@%p1 bra SKIP;
	mbarrier.init.shared.b64 [bar], 1;
	mbarrier.arrive.expect_tx.shared.b64 %rd2, [bar], 128;
	cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r2], [%rd1], 128, [bar];
SKIP:
	bar.sync 0;
	`+w+`
	shl.b32 %r3, %r1, 2;
	add.u32 %r4, %r2, %r3;
	ld.shared.u32 %r5, [%r4];              // READ
	bar.sync 0;
	ret;`)
	}
	for _, sched := range scheds {
		spec := mbarSpec(sched, 32)
		count := func(ws []analysis.Warning, k analysis.WarningKind) int {
			n := 0
			for _, w := range ws {
				if w.Kind == k {
					n++
				}
			}
			return n
		}
		src := store("")
		ws := checkMbar(t, src, spec)
		if count(ws, analysis.WarnProxyFence) == 0 {
			t.Errorf("%s: bulk store without fence.proxy.async: no %s warning: %+v", sched, analysis.WarnProxyFence, ws)
		}
		for _, w := range ws {
			if w.Kind == analysis.WarnProxyFence {
				lines := [2]int{w.PrevLine, w.Line}
				want1, want2 := [2]int{lineOf(t, src, "// WRITE"), lineOf(t, src, "// COPY")}, [2]int{lineOf(t, src, "// COPY"), lineOf(t, src, "// WRITE")}
				if lines != want1 && lines != want2 {
					t.Errorf("%s: %s between lines %v, want the store and the copy", sched, w.Kind, lines)
				}
				if want := fmt.Sprintf("the bulk store at line %d (thread 0 of CTA 0) reads shared memory that thread %s wrote at line %d through the generic proxy, with no fence.proxy.async between them", lineOf(t, src, "// COPY"), analysis.ThreadName(w.PrevThread), lineOf(t, src, "// WRITE")); w.Message() != want {
					t.Errorf("%s: message %q, want %q", sched, w.Message(), want)
				}
			}
		}
		if ws := checkMbar(t, store("fence.proxy.async.shared::cta;"), spec); count(ws, analysis.WarnProxyFence) != 0 {
			t.Errorf("%s: with fence.proxy.async: %+v", sched, ws)
		}
		// The copy lands at the wait (docs/emulator.md), so a read before
		// it reads what was there: the copy is in flight.
		if ws := checkMbar(t, load(false), spec); count(ws, analysis.WarnAsyncWriteRead) == 0 {
			t.Errorf("%s: read before the wait: no %s warning: %+v", sched, analysis.WarnAsyncWriteRead, ws)
		} else if src := load(false); true {
			for _, w := range ws {
				if want := fmt.Sprintf("reads at line %d shared memory that the bulk copy at line %d (thread 0 of CTA 0) has not completed yet: no wait on the mbarrier phase it completes", lineOf(t, src, "// READ"), lineOf(t, src, "cp.async.bulk.shared")); w.Kind == analysis.WarnAsyncWriteRead && !strings.Contains(w.Message(), want) {
					t.Errorf("%s: message %q, want it to say %q", sched, w.Message(), want)
				}
			}
		}
		if ws := checkMbar(t, load(true), spec); count(ws, analysis.WarnAsyncWriteRead) != 0 {
			t.Errorf("%s: read after the wait: %+v", sched, ws)
		}
	}
}

// A bulk copy into shared memory is in flight from its issue until it
// lands (when a thread tests its mbarrier): a generic read of its
// destination before the wait reads the older bytes there (here written
// and fenced by the threads before the copy), and a generic write races
// with the copy. Both warn naming the copy and the access, for any thread
// (the issuer's included), in both scheduling models; the same accesses
// after the try_wait loop warn of nothing.
func TestCheckerBulkCopyInFlight(t *testing.T) {
	src := func(before, after string) string {
		return mbarSrc(`
	.shared .align 128 .u32 dst[32];`, `
	mov.u32 %r2, dst;
	and.b32 %r6, %r1, 31;
	shl.b32 %r3, %r6, 2;
	add.u32 %r4, %r2, %r3;
	setp.lt.u32 %p3, %r1, 32;
	@%p3 st.shared.u32 [%r4], %r1;         // INIT
	fence.proxy.async.shared::cta;
	bar.sync 0;
	setp.ne.u32 %p1, %r1, 0;
	@%p1 bra SKIP;
	mbarrier.init.shared.b64 [bar], 1;
	mbarrier.arrive.expect_tx.shared.b64 %rd2, [bar], 128;
	cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r2], [%rd1], 128, [bar];   // COPY
SKIP:
	bar.sync 0;
	`+before+`
WAITL:
	mbarrier.try_wait.parity.shared.b64 %p2, [bar], 0;
	@!%p2 bra WAITL;
	`+after+`
	bar.sync 0;
	ret;`)
	}
	const read = "ld.shared.u32 %r5, [%r4];              // ACCESS"
	const write = "st.shared.u32 [%r4], %r1;              // ACCESS"
	const issuerRead = "@!%p1 ld.shared.u32 %r5, [%r4];       // ACCESS"
	for _, sched := range scheds {
		spec := mbarSpec(sched, 64)
		for _, c := range []struct {
			name          string
			before, after string
			want          analysis.WarningKind
		}{
			{"read before the wait", read, "", analysis.WarnAsyncWriteRead},
			{"the issuer reads before the wait", issuerRead, "", analysis.WarnAsyncWriteRead},
			{"write before the wait", write, "", analysis.WarnWriteAfterWrite},
			{"read after the wait", "", read, ""},
		} {
			s := src(c.before, c.after)
			var ws []analysis.Warning
			for _, w := range checkMbar(t, s, spec) {
				if w.Kind != analysis.WarnUninitGlobal { // the copy's source, out, starts uninitialised
					ws = append(ws, w)
				}
			}
			if c.want == "" {
				if len(ws) != 0 {
					t.Errorf("%s: %s: %+v, want no warning", sched, c.name, ws)
				}
				continue
			}
			found := false
			for _, w := range ws {
				if w.Kind == c.want && w.Line == lineOf(t, s, "// ACCESS") && w.PrevLine == lineOf(t, s, "// COPY") {
					found = true
				}
			}
			if !found || len(ws) != 1 {
				t.Errorf("%s: %s: %v, want one %s at the access naming the copy", sched, c.name, kinds(ws), c.want)
			}
		}
	}
}

func kinds(ws []analysis.Warning) []string {
	var out []string
	for _, w := range ws {
		out = append(out, fmt.Sprintf("%s %d<-%d", w.Kind, w.Line, w.PrevLine))
	}
	return out
}
