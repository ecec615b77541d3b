package sessions

import (
	"encoding/json"
	"fmt"
	"reflect"
	"testing"
)

const spinLockSpec = `{"grid":[1],"block":[32],"buffers":[{"name":"out","type":"u32","count":2}],"params":[{"buffer":"out"}]}`

// The odd lanes do three adds before a bar.warp.sync; the even lanes go to
// their own bar.warp.sync at once and wait there for the odd ones.
const warpSyncPTX = hdr + `
.visible .entry ws(.param .u64 out) {
	.reg .u32 %r<4>; .reg .u64 %rd<4>; .reg .pred %p;
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, %tid.x;
	and.b32 %r2, %r1, 1;
	setp.eq.u32 %p, %r2, 0;
	@%p bra EVEN;
	add.u32 %r3, %r1, 1;
	add.u32 %r3, %r3, 1;
	add.u32 %r3, %r3, 1;
	bar.warp.sync 0xffffffff;
	bra.uni JOIN;
EVEN:
	mov.u32 %r3, 7;
	bar.warp.sync 0xffffffff;
JOIN:
	mul.wide.u32 %rd2, %r1, 4;
	add.u64 %rd3, %rd1, %rd2;
	st.global.u32 [%rd3], %r3;
	ret;
}
`

// Both paths of the branch are two instructions long: they take turns.
const interleavePTX = hdr + `
.visible .entry il(.param .u64 out) {
	.reg .u32 %r<5>; .reg .u64 %rd<4>; .reg .pred %p;
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, %tid.x;
	and.b32 %r2, %r1, 1;
	setp.eq.u32 %p, %r2, 0;
	@%p bra EVEN;
	mov.u32 %r3, 1;
	add.u32 %r3, %r3, 10;
	bra.uni JOIN;
EVEN:
	mov.u32 %r3, 2;
	add.u32 %r3, %r3, 20;
JOIN:
	add.u32 %r3, %r3, 100;
	mul.wide.u32 %rd2, %r1, 4;
	add.u64 %rd3, %rd1, %rd2;
	st.global.u32 [%rd3], %r3;
	ret;
}
`

const warpSyncSpec = `{"grid":[1],"block":[32],"buffers":[{"name":"out","type":"u32","count":32}],"params":[{"buffer":"out"}]}`

// schedView is what the client knows of the scheduling at a step: the
// model, every warp's groups and the selected warp's threads.
type schedView struct {
	Scheduling string
	Groups     map[string]json.RawMessage
	Threads    json.RawMessage
}

// merge applies a state (full or delta) to the view.
func (v *schedView) merge(t *testing.T, st *stateMsg) {
	t.Helper()
	if st.Full {
		v.Groups = map[string]json.RawMessage{}
	}
	v.Scheduling = st.Scheduling
	for _, c := range st.CTAs {
		for _, w := range c.Warps {
			if w.Groups != nil {
				b, _ := json.Marshal(w.Groups)
				v.Groups[fmt.Sprintf("%d/%d", c.Linear, w.Warp)] = b
			}
		}
	}
	if st.Threads != nil {
		v.Threads, _ = json.Marshal(st.Threads)
	} else if st.Full {
		v.Threads = nil
	}
}

func (v *schedView) clone() schedView {
	g := map[string]json.RawMessage{}
	for k, x := range v.Groups {
		g[k] = x
	}
	return schedView{Scheduling: v.Scheduling, Groups: g, Threads: v.Threads}
}

// TestThreadsExactAtEveryPosition steps kernels one warp-instruction at a
// time under both models, keeping the thread groups and the selected
// warp's scheduling the states report, then seeks to every position (in a
// scrambled order) and to some with back: each full state must say the same
// as the states reached by stepping.
func TestThreadsExactAtEveryPosition(t *testing.T) {
	for _, c := range []struct {
		name, src, spec string
		steps           int
	}{
		{"divergent", divergentPTX, divergentSpec, 60},
		{"interleave", interleavePTX, warpSyncSpec, 40},
		{"spin-lock", spinLockPTX, spinLockSpec, 700},
		{"warp-sync", warpSyncPTX, warpSyncSpec, 40},
	} {
		for _, sched := range []string{"independent", "simt-stack"} {
			t.Run(c.name+"/"+sched, func(t *testing.T) {
				mgr := newManager(t, Limits{})
				cl := newClient(t, mgr)
				st := cl.load(c.src, withScheduling(c.spec, sched))
				var v schedView
				v.merge(t, &st)
				if v.Scheduling != sched {
					t.Fatalf("state says scheduling %q", v.Scheduling)
				}
				seen := []schedView{v.clone()}
				for i := 1; i <= c.steps; i++ {
					st := cl.step("warp", 1)
					v.merge(t, &st)
					seen = append(seen, v.clone())
					if st.Status != "paused" {
						cl.expect("done")
						break
					}
				}
				n := len(seen)
				sawGroups := 0
				for _, s := range seen {
					if s.Threads == nil {
						t.Fatal("a state without the selected warp's threads")
					}
					var th threadsJSON
					json.Unmarshal(s.Threads, &th)
					if len(th.Groups) > 1 {
						sawGroups++
					}
					if sched == "simt-stack" && len(s.Groups) > 0 {
						t.Fatal("warp summaries carry groups under the SIMT stack")
					}
				}
				if sawGroups == 0 {
					t.Fatal("the warp never had more than one group")
				}
				for i := 0; i < n; i++ {
					k := (i*37 + 11) % n
					cl.send(map[string]any{"type": "seek", "step": k})
					st, _ := cl.state()
					var got schedView
					got.merge(t, &st)
					if !reflect.DeepEqual(got, seen[k]) {
						t.Fatalf("step %d reached by seek:\n%+v\nby stepping:\n%+v", k, got, seen[k])
					}
				}
				cl.send(map[string]any{"type": "seek", "step": n - 1})
				cl.state()
				for k := n - 2; k >= max(0, n-6); k-- {
					cl.send(map[string]any{"type": "back"})
					st, _ := cl.state()
					var got schedView
					got.merge(t, &st)
					if !reflect.DeepEqual(got, seen[k]) {
						t.Fatalf("step %d reached by back:\n%+v\nby stepping:\n%+v", k, got, seen[k])
					}
				}
			})
		}
	}
}

// TestThreadsReportWaits: under independent scheduling the divergent
// kernel shows two runnable groups that take turns (round-robin) and lanes
// waiting to reconverge; the even lanes of the warp-sync kernel wait at
// bar.warp.sync for the odd lanes; the spin lock's lanes wait at the loop
// exit with the instructions left before they go on alone.
func TestThreadsReportWaits(t *testing.T) {
	find := func(src, spec string, steps int, pred func(th *threadsJSON) bool) *threadsJSON {
		t.Helper()
		mgr := newManager(t, Limits{})
		cl := newClient(t, mgr)
		st := cl.load(src, withScheduling(spec, "independent"))
		th := st.Threads
		for i := 0; i < steps; i++ {
			if th != nil && pred(th) {
				return th
			}
			st := cl.step("warp", 1)
			if st.Threads != nil {
				th = st.Threads
			}
		}
		t.Fatal("the expected scheduling never showed")
		return nil
	}
	th := find(interleavePTX, warpSyncSpec, 40, func(th *threadsJSON) bool {
		return th.Last != nil && th.Last.Reason == "round-robin" && len(th.Groups) == 2 &&
			th.Groups[0].State == "runnable" && th.Groups[1].State == "runnable"
	})
	turn, running := 0, 0
	for _, l := range th.Lanes {
		switch l.Reason {
		case "turn":
			turn++
		case "running":
			running++
		}
		if l.Group < 0 || l.Group >= len(th.Groups) {
			t.Fatalf("lane %d in group %d of %d", l.Lane, l.Group, len(th.Groups))
		}
	}
	if turn != 16 || running != 16 {
		t.Fatalf("%d lanes running and %d waiting for their turn, want 16 and 16: %+v", running, turn, th.Lanes)
	}

	th = find(warpSyncPTX, warpSyncSpec, 40, func(th *threadsJSON) bool {
		return len(th.Lanes) == 32 && th.Lanes[0].Reason == "sync"
	})
	if th.Lanes[0].Awaits != "aaaaaaaa" {
		t.Fatalf("lane 0 waits at bar.warp.sync for %q, want the odd lanes (aaaaaaaa)", th.Lanes[0].Awaits)
	}
	if th.Lanes[1].Reason == "sync" {
		t.Fatalf("odd lane 1 waits at the sync too: %+v", th.Lanes[1])
	}

	th = find(spinLockPTX, spinLockSpec, 400, func(th *threadsJSON) bool {
		for _, g := range th.Groups {
			if g.State == "waiting" && g.WaitLeft > 0 && g.WaitLeft < 256 {
				return true
			}
		}
		return false
	})
	for _, l := range th.Lanes {
		if l.Reason == "reconvergence" && (l.WaitLeft <= 0 || l.Line == 0) {
			t.Fatalf("lane %d waits to reconverge with %d instructions left at line %d", l.Lane, l.WaitLeft, l.Line)
		}
	}
}

func (c *client) compare(id int64, budget int64) compareMsg {
	c.t.Helper()
	msg := map[string]any{"type": "compare-scheduling", "id": id}
	if budget > 0 {
		msg["maxWarpInstructions"] = budget
	}
	c.send(msg)
	var r compareMsg
	if err := json.Unmarshal(c.expect("scheduling-compare"), &r); err != nil {
		c.t.Fatal(err)
	}
	if r.ID == nil || *r.ID != id {
		c.t.Fatalf("reply id %v, want %d", r.ID, id)
	}
	return r
}

// TestCompareScheduling: the spin lock completes with its counter at 32
// under independent scheduling and spends the budget under the SIMT stack;
// an ordinary kernel gives the same results. The session's own machine
// stays where it was, a repeated request is answered from the last
// comparison, and a load cancels one under way.
func TestCompareScheduling(t *testing.T) {
	mgr := newManager(t, Limits{})
	cl := newClient(t, mgr)
	cl.load(spinLockPTX, spinLockSpec)
	before := cl.step("warp", 5)
	r := cl.compare(7, 100_000)
	if r.Budget != 100_000 || len(r.Runs) != 2 {
		t.Fatalf("reply %+v", r)
	}
	ind, simt := r.Runs[0], r.Runs[1]
	if ind.Scheduling != "independent" || ind.Outcome != "done" || !ind.Current {
		t.Fatalf("independent run %+v", ind)
	}
	if simt.Scheduling != "simt-stack" || simt.Outcome != "budget" || simt.WarpInstructions != 100_000 || simt.Current {
		t.Fatalf("simt-stack run %+v", simt)
	}
	if r.Same || !reflect.DeepEqual(r.Differences, []string{"outcome", "buffers"}) {
		t.Fatalf("same %v, differences %v", r.Same, r.Differences)
	}
	want := []bufferDiffJSON{{Name: "out", Elements: 2, Samples: []elemDiffJSON{{0, [2]string{"0", "1"}}, {1, [2]string{"32", "0"}}}}}
	if !reflect.DeepEqual(r.Buffers, want) {
		t.Fatalf("buffers %+v, want %+v", r.Buffers, want)
	}
	// The session's machine did not move.
	cl.send(map[string]any{"type": "pause"})
	if st, _ := cl.state(); st.Step != before.Step || st.Stats != before.Stats {
		t.Fatalf("the session moved from step %d to %d", before.Step, st.Step)
	}
	// Asked again: the same reply at once, with the new id.
	again := cl.compare(8, 100_000)
	again.ID = r.ID
	if !reflect.DeepEqual(again, r) {
		t.Fatalf("second reply %+v, first %+v", again, r)
	}
	// Under the other model: the same runs, the other one current.
	cl.load(spinLockPTX, withScheduling(spinLockSpec, "simt-stack"))
	third := cl.compare(9, 100_000)
	if third.Runs[0].Current || !third.Runs[1].Current || third.Runs[1].Outcome != "budget" {
		t.Fatalf("after the re-run under the SIMT stack: %+v", third.Runs)
	}

	// An ordinary kernel: identical under both models.
	cl.load(divergentPTX, withScheduling(divergentSpec, "simt-stack"))
	r = cl.compare(9, 0)
	if !r.Same || len(r.Differences) != 0 || len(r.Buffers) != 0 || r.Runs[0].Outcome != "done" || r.Runs[1].Outcome != "done" || !r.Runs[1].Current || r.Runs[0].Current {
		t.Fatalf("ordinary kernel: %+v", r)
	}
	if r.Budget != mgr.lim.MaxWarpInstructions {
		t.Fatalf("budget %d, want the server's %d", r.Budget, mgr.lim.MaxWarpInstructions)
	}

	// A load while a comparison runs cancels it.
	cl.load(spinLockPTX, spinLockSpec)
	cl.send(map[string]any{"type": "compare-scheduling", "id": 10})
	cl.send(map[string]any{"type": "load", "id": 11, "source": divergentPTX, "spec": json.RawMessage(divergentSpec)})
	var c compareMsg
	json.Unmarshal(cl.expect("scheduling-compare"), &c)
	if !c.Cancelled || *c.ID != 10 {
		t.Fatalf("reply to a comparison a load replaced: %+v", c)
	}
	cl.expect("diagnostics")
	cl.expect("loaded")
	cl.state()

	// Without a program.
	cl2 := newClient(t, mgr)
	cl2.send(map[string]any{"type": "compare-scheduling", "id": 1})
	cl2.expectError("no-program")
	cl2.send(map[string]any{"type": "compare-scheduling", "id": 2, "maxWarpInstructions": -1})
	cl2.expectError("bad-request")
}

// Lanes 0-15 wait at a bar.warp.sync for lanes 16-23, which reach their own
// after a few instructions; lanes 24-31 of the membermask only loop and
// exit. The scheduler does not wait for lanes that can only go on to exit,
// and the view says so: the group awaits lanes 16-23, not 16-31.
const awaitsExitPTX = hdr + `
.visible .entry ax(.param .u64 out) {
	.reg .u32 %r<5>; .reg .u64 %rd<4>; .reg .pred %p;
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, %tid.x;
	mov.u32 %r3, 0;
	setp.lt.u32 %p, %r1, 16;
	@%p bra LOW;
	setp.ge.u32 %p, %r1, 24;
	@%p bra GONE;
	add.u32 %r3, %r3, 1;
	add.u32 %r3, %r3, 1;
	add.u32 %r3, %r3, 1;
	bar.warp.sync 0xffffffff;
	bra.uni JOIN;
GONE:
	add.u32 %r3, %r3, 1;
	setp.lt.u32 %p, %r3, 30;
	@%p bra GONE;
	exit;
LOW:
	mov.u32 %r3, 7;
	bar.warp.sync 0xffffffff;
JOIN:
	mul.wide.u32 %rd2, %r1, 4;
	add.u64 %rd3, %rd1, %rd2;
	st.global.u32 [%rd3], %r3;
	ret;
}
`

func TestThreadsExactAwaitsAndTurn(t *testing.T) {
	find := func(src string, steps int, pred func(th *threadsJSON) bool) *threadsJSON {
		t.Helper()
		cl := newClient(t, newManager(t, Limits{}))
		th := cl.load(src, withScheduling(warpSyncSpec, "independent")).Threads
		for i := 0; i < steps; i++ {
			if th != nil && pred(th) {
				return th
			}
			if st := cl.step("warp", 1); st.Threads != nil {
				th = st.Threads
			}
		}
		t.Fatal("the expected scheduling never showed")
		return nil
	}
	th := find(awaitsExitPTX, 60, func(th *threadsJSON) bool {
		// Lanes 0-15 wait, and lanes 24-31 have left lanes 16-23.
		return len(th.Lanes) == 32 && th.Lanes[0].Reason == "sync" && th.Lanes[16].Reason != "sync" && th.Lanes[24].Group != th.Lanes[16].Group
	})
	if th.Lanes[0].Awaits != "ff0000" {
		t.Fatalf("lane 0 waits at bar.warp.sync for %q, want lanes 16-23 (ff0000): lanes 24-31 only go on to exit", th.Lanes[0].Awaits)
	}
	for _, g := range th.Groups {
		if g.State == "sync-wait" && g.Awaits != "ff0000" {
			t.Fatalf("group %+v awaits %q", g, g.Awaits)
		}
	}

	// Round robin: the issue says which lane it followed and what issued
	// before; the issued group's lowest lane is the first runnable one
	// after that lane.
	th = find(interleavePTX, 40, func(th *threadsJSON) bool {
		return th.Last != nil && th.Last.Reason == "round-robin" && th.Last.Prev != nil && th.Last.After != nil
	})
	after, prev := th.Last.After, th.Last.Prev
	if after == nil {
		t.Fatalf("round-robin issue without the lane it followed: %+v", th.Last)
	}
	lo := func(hex string) int {
		var m uint32
		fmt.Sscanf(hex, "%x", &m)
		for l := 0; l < 32; l++ {
			if m>>l&1 != 0 {
				return l
			}
		}
		return -1
	}
	if lo(prev.Lanes) != *after || lo(th.Last.Lanes) == *after || prev.Line == 0 {
		t.Fatalf("last issue %+v (prev %+v, after %d)", th.Last, prev, *after)
	}
}
