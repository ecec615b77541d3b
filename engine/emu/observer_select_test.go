package emu

import (
	"context"
	"encoding/binary"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/ptxplayground/ptxplay/engine/ptx"
)

// reportText keeps a recording observer kept of one step, as text: the
// header, every access with the offsets (and, when old is set, the old
// bytes) of the lanes in it, the events, the shuffle sources and the
// fault.
type reportText struct {
	flags ObserveFlags // what it asks for (ObserveAll: the plain Observer)
	old   bool         // record Access.Old
	steps []string
}

func (r *reportText) Step(in *StepInfo) {
	var b strings.Builder
	fmt.Fprintf(&b, "cta %v warp %d pc %d mask %#x exec %#x next %d", in.CTA, in.Warp, in.PC, in.Mask, in.ExecMask, in.NextPC)
	if r.flags&ObserveAccesses != 0 {
		for _, a := range in.Accesses {
			fmt.Fprintf(&b, "\n  access kind %d space %s size %d generic %v cta %d lanes %#x:", a.Kind, a.Space, a.Size, a.Generic, a.CTA, a.Lanes)
			for l := range 32 {
				if a.Lanes>>l&1 == 0 {
					continue
				}
				fmt.Fprintf(&b, " %d@%#x", l, a.Addr[l])
				if r.old && a.Kind != AccessLoad {
					fmt.Fprintf(&b, "=%x", a.Old[l][:min(a.Size, 32)])
				}
			}
		}
	}
	if r.flags&ObserveEvents != 0 {
		for _, e := range in.Events {
			fmt.Fprintf(&b, "\n  event %v pc %d mask %#x other %#x reconv %d id %d count %d/%d warps %v", e.Kind, e.PC, e.Mask, e.Other, e.Reconv, e.ID, e.Count, e.Expected, e.Warps)
		}
	}
	if r.flags&ObserveDetails != 0 && in.Shuffle != nil {
		fmt.Fprintf(&b, "\n  shuffle %#x %#x %v", in.Shuffle.Lanes, in.Shuffle.Valid, in.Shuffle.Src)
	}
	if in.Fault != nil {
		fmt.Fprintf(&b, "\n  fault %s", in.Fault.Error())
	}
	r.steps = append(r.steps, b.String())
}

// selective is a reportText that declares what it asks for.
type selective struct{ *reportText }

func (s selective) Observes() ObserveFlags { return s.flags }

// observedRun launches kernel k of src on grid×block threads with one
// zeroed global buffer of n bytes as its .u64 parameter and the observers
// given, and returns the final global and shared memory with the stop
// reason and fault text.
func observedRun(t *testing.T, src string, block, n int, checked bool, obs ...Observer) string {
	t.Helper()
	out, _ := observedMachine(t, src, block, n, checked, obs...)
	return out
}

// observedMachine is observedRun that also returns the machine.
func observedMachine(t *testing.T, src string, block, n int, checked bool, obs ...Observer) (string, *Machine) {
	t.Helper()
	s := ptx.NewSource("t.ptx", []byte(src))
	prog, diags := CompileSource(s)
	if prog == nil {
		t.Fatalf("compile:\n%s", ptx.FormatAll(s, diags))
	}
	m, err := NewMachine(prog, "k", Config{Grid: [3]int{2, 1, 1}, Block: [3]int{block, 1, 1}})
	if err != nil {
		t.Fatal(err)
	}
	m.fast.noObservedFast = checked
	a := m.Global.Alloc("buf", n, 256)
	for i := range a.Data {
		a.Data[i] = byte(i * 7)
	}
	binary.LittleEndian.PutUint64(m.Params(), a.Base)
	for _, o := range obs {
		m.AddObserver(o)
	}
	r := m.Run(context.Background())
	out := fmt.Sprintf("stop %v fault %v global %x", r, m.Fault(), a.Data)
	for _, c := range m.ctas {
		out += fmt.Sprintf(" shared %x", c.shared)
	}
	return out, m
}

// obsKernel exercises the observed ld/st paths: 32- and 64-bit .shared,
// .global and generic (global and shared) accesses, partial masks, lanes
// storing to one word (each store's old bytes are its predecessor's
// value), a load whose destination is its address register, a generic
// load and store whose lanes address global and shared memory, divergence,
// barriers and a shuffle. With bad set, lane 5 of the last global store
// writes past the buffer.
func obsKernel(bad bool) string {
	off := "0"
	if bad {
		off = "4096"
	}
	return `.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 p) {
	.shared .align 8 .b8 sm[512];
	.reg .u32 %r<12>; .reg .u64 %rd<12>; .reg .pred %q<3>;
	ld.param.u64 %rd1, [p];
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, sm;
	shl.b32 %r3, %r1, 2;
	add.u32 %r4, %r2, %r3;
	st.shared.u32 [%r4], %r1;
	shr.u32 %r5, %r1, 2;
	shl.b32 %r5, %r5, 2;
	add.u32 %r5, %r2, %r5;
	st.shared.u32 [%r5+256], %r1;        // four lanes per word
	bar.sync 0;
	ld.shared.u32 %r6, [%r5+256];
	setp.lt.u32 %q1, %r1, 13;
	shr.u32 %r11, %r1, 2;
	shl.b32 %r11, %r11, 3;
	add.u32 %r11, %r2, %r11;
	@%q1 st.shared.u64 [%r11+320], %rd1;  // partial mask, shared words
	cvt.u64.u32 %rd2, %r3;
	add.u64 %rd3, %rd1, %rd2;
	ld.global.u32 %r7, [%rd3];
	st.global.u32 [%rd3+128], %r7;
	mul.wide.u32 %rd7, %r1, 8;
	add.u64 %rd7, %rd1, %rd7;
	ld.u64 %rd4, [%rd7];                  // generic global
	st.u64 [%rd7+1024], %rd4;
	cvta.shared.u64 %rd5, sm;
	cvt.u64.u32 %rd6, %r3;
	add.u64 %rd6, %rd5, %rd6;
	ld.u32 %r8, [%rd6];                   // generic shared
	st.u32 [%rd6+128], %r8;
	setp.lt.u32 %q2, %r1, 20;
	selp.b64 %rd8, %rd3, %rd6, %q2;
	ld.u32 %r8, [%rd8];                   // generic: lanes 0-19 global, the rest shared
	st.u32 [%rd8+64], %r8;
	mov.u32 %r9, %r4;
	ld.shared.u32 %r9, [%r9];             // destination = address
	shfl.sync.bfly.b32 %r10, %r9, 1, 31, -1;
	@%q1 bra SKIP;
	st.global.u32 [%rd1+16], %r10;        // every lane on one word
	st.global.u64 [%rd7+1536], %rd4;
SKIP:
	bar.sync 0;
	setp.eq.u32 %q2, %r1, 5;
	@%q2 add.u64 %rd3, %rd3, ` + off + `;
	st.global.u32 [%rd3+640], %r10;
	ret;
}`
}

// The observed fast paths report exactly what the checked per-lane path
// reports, step by step, and leave the same memory, with and without a
// fault.
func TestObservedFastPathsMatchCheckedPath(t *testing.T) {
	for _, bad := range []bool{false, true} {
		src := obsKernel(bad)
		var reports [2][]string
		var mems [2]string
		for i, checked := range []bool{false, true} {
			r := &reportText{flags: ObserveAll, old: true}
			mems[i] = observedRun(t, src, 64, 2048, checked, r)
			reports[i] = r.steps
		}
		if mems[0] != mems[1] {
			t.Errorf("bad=%v: final state differs:\nfast:    %s\nchecked: %s", bad, mems[0], mems[1])
		}
		if !slices.Equal(reports[0], reports[1]) {
			for i := range min(len(reports[0]), len(reports[1])) {
				if reports[0][i] != reports[1][i] {
					t.Fatalf("bad=%v: step %d differs:\nfast:\n%s\nchecked:\n%s", bad, i, reports[0][i], reports[1][i])
				}
			}
			t.Fatalf("bad=%v: %d steps reported on the fast path, %d on the checked one", bad, len(reports[0]), len(reports[1]))
		}
		if bad != strings.Contains(mems[0], "stop fault") || bad && !strings.Contains(mems[0], "out-of-bounds") {
			t.Errorf("bad=%v: %.100s", bad, mems[0])
		}
		// Sanity: the shared word of four lanes reports its predecessors'
		// values as old bytes.
		if !bad && !strings.Contains(strings.Join(reports[0], "\n"), " 1@0x100=00000000 2@0x100=01000000 3@0x100=02000000") {
			t.Errorf("old bytes of lanes storing to one word not reported in order")
		}
	}
}

// A selective observer is called for exactly the steps that report what it
// asked for (or fault), sees the same parts as an observer of everything,
// and gets the same whether it is alone or beside one.
func TestSelectiveObservers(t *testing.T) {
	for _, bad := range []bool{false, true} {
		src := obsKernel(bad)
		full := &reportText{flags: ObserveAll, old: true}
		observedRun(t, src, 64, 2048, false, full)
		cases := []struct {
			name  string
			flags ObserveFlags
			old   bool
			keep  func(step string) bool
		}{
			{"accesses", ObserveAccesses, false, func(s string) bool { return strings.Contains(s, "\n  access") }},
			{"accesses+old", ObserveAccesses | ObserveOldBytes, true, func(s string) bool { return strings.Contains(s, "\n  access") }},
			{"events", ObserveEvents, false, func(s string) bool { return strings.Contains(s, "\n  event") }},
			{"details", ObserveDetails, false, func(s string) bool { return strings.Contains(s, "\n  shuffle") }},
			{"none", 0, false, func(string) bool { return false }},
		}
		for _, c := range cases {
			// What the full observer saw, restricted to the parts asked for.
			var want []string
			for _, s := range func() []string {
				r := &reportText{flags: c.flags | ObserveEveryStep, old: c.old}
				observedRun(t, src, 64, 2048, false, r)
				return r.steps
			}() {
				if c.keep(s) || strings.Contains(s, "\n  fault") {
					want = append(want, s)
				}
			}
			alone := selective{&reportText{flags: c.flags, old: c.old}}
			memAlone := observedRun(t, src, 64, 2048, false, alone)
			beside := selective{&reportText{flags: c.flags, old: c.old}}
			everything := &reportText{flags: ObserveAll, old: true}
			memBeside := observedRun(t, src, 64, 2048, false, everything, beside)
			if !slices.Equal(alone.steps, want) {
				t.Errorf("bad=%v %s alone: %d steps, want %d:\n%s\nwant:\n%s", bad, c.name, len(alone.steps), len(want), strings.Join(alone.steps, "\n"), strings.Join(want, "\n"))
			}
			if !slices.Equal(beside.steps, want) {
				t.Errorf("bad=%v %s beside a full observer: %d steps, want %d", bad, c.name, len(beside.steps), len(want))
			}
			if !slices.Equal(everything.steps, full.steps) {
				t.Errorf("bad=%v %s: the full observer beside it saw other steps", bad, c.name)
			}
			if memAlone != memBeside {
				t.Errorf("bad=%v %s: final state depends on the observers", bad, c.name)
			}
		}
		if len(full.steps) == 0 || !strings.Contains(strings.Join(full.steps, "\n"), "event diverge") {
			t.Fatalf("bad=%v: the kernel did not diverge", bad)
		}
	}
}

// A full warp's observed 4-byte shared load (memObservedLoadShared4)
// reports and loads exactly what the checked per-lane path does: with an
// offset, with every lane on one word, and with a lane that is misaligned
// or past the end in each group of four (the load then falls back to the
// checked path, which faults there).
func TestObservedShared4MatchesCheckedPath(t *testing.T) {
	for _, c := range []struct {
		name, addr string
		fault      bool
	}{
		{"lane per word", "shl.b32 %r3, %r1, 2;", false},
		{"one word", "mov.u32 %r3, 8;", false},
		{"misaligned lane 2", "shl.b32 %r3, %r1, 2; setp.eq.u32 %q1, %r1, 2; @%q1 add.u32 %r3, %r3, 1;", true},
		{"misaligned lane 29", "shl.b32 %r3, %r1, 2; setp.eq.u32 %q1, %r1, 29; @%q1 add.u32 %r3, %r3, 2;", true},
		{"past the end lane 17", "shl.b32 %r3, %r1, 2; setp.eq.u32 %q1, %r1, 17; @%q1 add.u32 %r3, %r3, 512;", true},
	} {
		src := `.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 p) {
	.shared .align 8 .b8 sm[512];
	.reg .u32 %r<12>; .reg .u64 %rd<12>; .reg .pred %q<3>;
	ld.param.u64 %rd1, [p];
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, sm;
	shl.b32 %r4, %r1, 2;
	add.u32 %r4, %r2, %r4;
	mul.lo.u32 %r5, %r1, 2654435761;
	st.shared.u32 [%r4], %r5;
	bar.sync 0;
	` + c.addr + `
	add.u32 %r3, %r2, %r3;
	ld.shared.u32 %r6, [%r3+128];
	mul.wide.u32 %rd2, %r1, 4;
	add.u64 %rd2, %rd1, %rd2;
	st.global.u32 [%rd2], %r6;
	ret;
}`
		var reports [2][]string
		var mems [2]string
		var fast int64
		for i, checked := range []bool{false, true} {
			r := &reportText{flags: ObserveAll, old: true}
			var m *Machine
			mems[i], m = observedMachine(t, src, 64, 512, checked, r)
			reports[i] = r.steps
			if !checked {
				fast = m.fast.obsShared4
			}
		}
		if fast == 0 {
			t.Errorf("%s: the full-warp path did not run", c.name)
		}
		if mems[0] != mems[1] {
			t.Errorf("%s: final state differs:\nfast:    %s\nchecked: %s", c.name, mems[0], mems[1])
		}
		if !slices.Equal(reports[0], reports[1]) {
			t.Errorf("%s: reports differ:\nfast:\n%s\nchecked:\n%s", c.name, strings.Join(reports[0], "\n"), strings.Join(reports[1], "\n"))
		}
		if c.fault != strings.Contains(mems[0], "stop fault") {
			t.Errorf("%s: %.100s", c.name, mems[0])
		}
	}
}

// An observer of global accesses only (ObserveGlobalOnly) installed beside
// one that observes everything is called for the steps with a global
// access or a fault, not for those whose accesses are all of other spaces.
func TestGlobalOnlyObserverBeside(t *testing.T) {
	for _, bad := range []bool{false, true} {
		src := obsKernel(bad)
		everything := &reportText{flags: ObserveAll, old: true}
		g := selective{&reportText{flags: ObserveAccesses | ObserveGlobalOnly}}
		observedRun(t, src, 64, 2048, false, everything, g)
		var want []int
		shared := false
		for i, s := range everything.steps {
			switch {
			case strings.Contains(s, "space global") || strings.Contains(s, "\n  fault"):
				want = append(want, i)
			case strings.Contains(s, "space shared"):
				shared = true
			}
		}
		if !shared || len(want) == 0 {
			t.Fatalf("bad=%v: the kernel made no shared or no global access", bad)
		}
		if len(g.steps) != len(want) {
			t.Fatalf("bad=%v: the global-only observer was called %d times, want %d", bad, len(g.steps), len(want))
		}
		for k, i := range want {
			if !strings.Contains(g.steps[k], "space global") && !strings.Contains(g.steps[k], "\n  fault") {
				t.Errorf("bad=%v: call %d is not step %d: %s", bad, k, i, g.steps[k])
			}
		}
	}
}
