package sessions

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// aluPTX: every thread counts to n in registers (three instructions an
// iteration, no memory access), then stores once: a long history that
// costs little memory.
const aluPTX = hdr + `
.visible .entry alu(.param .u64 out, .param .u32 n) {
	.reg .u32 %r<6>; .reg .u64 %rd<4>; .reg .pred %p;
	ld.param.u64 %rd1, [out];
	ld.param.u32 %r1, [n];
	mov.u32 %r2, %tid.x;
	mul.wide.u32 %rd2, %r2, 4;
	add.u64 %rd3, %rd1, %rd2;
	mov.u32 %r3, 0;
LOOP:
	add.u32 %r3, %r3, 1;
	setp.lt.u32 %p, %r3, %r1;
	@%p bra LOOP;
	st.global.u32 [%rd3], %r3;
	ret;
}
`

func aluSpec(threads, n int) string {
	return fmt.Sprintf(`{"grid":[1],"block":[%d],"buffers":[{"name":"out","type":"u32","count":%d}],"params":[{"buffer":"out"},{"u32":%d}]}`, threads, threads, n)
}

// runTo runs c's launch until its history reaches at least wis steps
// (about that many).
func runTo(t *testing.T, c *client, wis int64) stateMsg {
	t.Helper()
	for {
		c.send(map[string]any{"type": "run", "maxWarpInstructions": wis})
		st, _ := c.state()
		if st.Step >= wis || st.Status != "paused" {
			return st
		}
	}
}

// stepper makes single warp steps in its own session until stopped,
// recording each step's latency (from the command to its state).
type stepper struct {
	c    *client
	mu   sync.Mutex
	lat  []time.Duration
	stop chan struct{}
	done chan struct{}
}

func startStepper(t *testing.T, m *Manager) *stepper {
	c := newClient(t, m)
	c.load(aluPTX, aluSpec(32, 1<<30))
	sp := &stepper{c: c, stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(sp.done)
		for {
			select {
			case <-sp.stop:
				return
			default:
			}
			t0 := time.Now()
			c.send(map[string]any{"type": "step"})
			b, err := c.s.Next(t.Context())
			if err != nil {
				return
			}
			el := time.Since(t0)
			sp.mu.Lock()
			sp.lat = append(sp.lat, el)
			sp.mu.Unlock()
			_ = b
			time.Sleep(2 * time.Millisecond)
		}
	}()
	return sp
}

// take returns the latencies recorded since the last call.
func (sp *stepper) take() []time.Duration {
	sp.mu.Lock()
	defer sp.mu.Unlock()
	l := sp.lat
	sp.lat = nil
	return l
}

// TestHistoryWalksSliced: on a history of 20 million warp-instructions
// (5 million under the race detector),
// the commands that replay or walk it (turning the divergence view on,
// back by 10,000 rounds, back by 10,000 barriers through a kernel that has
// none, seeks across the whole history) each end within the command time
// limit, and meanwhile another session's single steps stay fast: the
// walks replay in slices and give the CPU token back between them.
func TestHistoryWalksSliced(t *testing.T) {
	const limit = time.Second
	// A history budget that keeps it all (the race detector's smaller
	// slices take more snapshots).
	m := newManager(t, Limits{MaxRunningJobs: 1, MaxCommandTime: limit, MaxHistoryBytes: 256 << 20})
	c := newClient(t, m)
	c.load(aluPTX, aluSpec(1024, 1<<30))
	size := int64(20_000_000)
	if raceOn {
		size = 5_000_000
	}
	head := int64(0)
	for head < size {
		c.send(map[string]any{"type": "run"})
		st, _ := c.state()
		head = st.Step
	}
	c.do(func() {
		h := c.s.h
		t.Logf("history: steps %d..%d, %d snapshots, %d stops, %d bytes", h.first, h.head, len(h.snaps), len(h.stops), h.bytes())
	})
	sp := startStepper(t, m)
	defer func() {
		close(sp.stop)
		<-sp.done
	}()
	time.Sleep(100 * time.Millisecond)
	sp.take()
	cmds := []struct {
		name string
		msg  map[string]any
	}{
		{"back 10000 barriers", map[string]any{"type": "back", "granularity": "barrier", "count": 10000}},
		{"back 10000 barriers (goes on)", map[string]any{"type": "back", "granularity": "barrier", "count": 10000}},
		{"seek head", map[string]any{"type": "seek", "step": head}},
		{"divergence on", map[string]any{"type": "divergence", "on": true}},
		{"back 10000 rounds", map[string]any{"type": "back", "granularity": "round", "count": 10000}},
		{"seek 0", map[string]any{"type": "seek", "step": 0}},
		{"seek head", map[string]any{"type": "seek", "step": head}},
		{"divergence off", map[string]any{"type": "divergence", "on": false}},
		{"seek middle", map[string]any{"type": "seek", "step": head / 2}},
		{"divergence on (middle)", map[string]any{"type": "divergence", "on": true}},
		{"back 10000 rounds again", map[string]any{"type": "back", "granularity": "round", "count": 10000}},
	}
	var all []time.Duration
	prev := head
	for i, cmd := range cmds {
		cmd.msg["id"] = 100 + i
		t0 := time.Now()
		c.send(cmd.msg)
		st, _ := c.state()
		el := time.Since(t0)
		lat := sp.take()
		slices.Sort(lat)
		var worst time.Duration
		if len(lat) > 0 {
			worst = lat[len(lat)-1]
		}
		t.Logf("%s: %v, step %d (%s), other session: %d steps, worst %v", cmd.name, el.Round(time.Millisecond), st.Step, st.Reason, len(lat), worst)
		if st.ID == nil || *st.ID != int64(100+i) || st.Step < 0 || st.Step > head {
			t.Fatalf("%s: state %+v", cmd.name, st)
		}
		if el > limit+500*time.Millisecond {
			t.Errorf("%s took %v with a command time limit of %v", cmd.name, el, limit)
		}
		walkStopped := st.Reason == "interrupted" && strings.HasPrefix(st.Message, "stopped at step")
		if walkStopped && el < limit {
			t.Errorf("%s interrupted after %v, before the limit of %v", cmd.name, el, limit)
		}
		if strings.HasPrefix(cmd.name, "back 10000 barriers") {
			// The kernel has no barrier: the walk goes back through the
			// whole history, which takes longer than the limit. It stops at
			// an exact position, and the next back goes on from there.
			interrupted := walkStopped && strings.Contains(st.Message, "back again")
			if st.Step >= prev || !interrupted && (strings.HasSuffix(cmd.name, "barriers") || st.Step != 0) {
				t.Errorf("%s: from step %d to %d, reason %s (%s)", cmd.name, prev, st.Step, st.Reason, st.Message)
			}
			if d := diffDumps(c.dump(), c.fresh(st.Step)); d != "" {
				t.Fatalf("%s: at step %d: %s", cmd.name, st.Step, d)
			}
			sp.take() // the check above holds the session
		}
		prev = st.Step
		all = append(all, lat...)
	}
	slices.Sort(all)
	if len(all) < 20 {
		t.Fatalf("the other session made %d steps", len(all))
	}
	p50, p95, worst := all[len(all)/2], all[len(all)*95/100], all[len(all)-1]
	t.Logf("other session: %d steps, p50 %v, p95 %v, max %v", len(all), p50, p95, worst)
	// A step waits for at most the slice in progress (about 4ms); the
	// bounds leave room for a busy machine (a walk in one piece held the
	// token for seconds).
	if worst > 500*time.Millisecond || p95 > 60*time.Millisecond {
		t.Errorf("another session's steps took up to %v (p95 %v) during the history commands", worst, p95)
	}
}

// TestInterruptedWalksExact: the random command sequences of
// TestLongRunsHistoryExact with a command time limit of a fraction of a
// millisecond and snapshots far apart, so that back, seek and turning the
// divergence view on stop part-way through their replays (as runs and
// long steps stop part-way): after every command, wherever it stopped,
// the client's model (machine state, last instruction, divergence data,
// memory analysis, warnings) equals a fresh machine's at the position
// shown, and the commands after it go on from there.
func TestInterruptedWalksExact(t *testing.T) {
	exs := []example{
		{"mix", mixPTX, mixSpec},
		{"reduce", reducePTX, reduceSpec},
		{"divergent", divergentPTX, divergentSpec},
	}
	for _, ex := range galleryExamples(t) {
		if ex.name == "race" {
			exs = append(exs, ex)
		}
	}
	stops := make([]int, len(exs)*2)
	t.Run("seq", func(t *testing.T) {
		for i, ex := range exs {
			for j, sched := range []string{"independent", "simt-stack"} {
				ex := example{ex.name, ex.src, withScheduling(ex.spec, sched)}
				n := &stops[2*i+j]
				t.Run(ex.name+"/"+sched, func(t *testing.T) {
					t.Parallel()
					runModelSequenceOpts(t, ex, int64(71+i), 60,
						Limits{MaxWarpInstructions: 40000, MaxCommandTime: 300 * time.Microsecond},
						modelOpts{longRuns: true, intervals: [2]int64{512, 4096}, walkStops: n})
				})
			}
		}
	})
	total := 0
	for _, n := range stops {
		total += n
	}
	t.Logf("%d history commands stopped part-way (%v)", total, stops)
	if total < 5 {
		t.Errorf("only %d history commands stopped part-way", total)
	}
}

// A history command stops at once, at an exact position, when the client
// sends a command that would pause a run (reason "paused"; that command is
// answered next), answers inspect meanwhile after it ends, and a session
// closed during one ends promptly.
func TestWalkPauseAndClose(t *testing.T) {
	m := newManager(t, Limits{MaxCommandTime: time.Minute, MaxHistoryBytes: 256 << 20})
	c := newClient(t, m)
	c.load(aluPTX, aluSpec(1024, 1<<30))
	size := int64(10_000_000)
	if raceOn {
		size = 1_500_000
	}
	head := runTo(t, c, size).Step
	back := map[string]any{"type": "back", "id": 7, "granularity": "barrier", "count": 10000}
	c.send(back)
	time.Sleep(100 * time.Millisecond)
	t0 := time.Now()
	c.send(map[string]any{"type": "pause", "id": 8})
	st, _ := c.state()
	el := time.Since(t0)
	if st.ID == nil || *st.ID != 7 || st.Reason != "paused" || st.Step <= 0 || st.Step >= head {
		t.Fatalf("back, paused after 100ms: %+v", st)
	}
	if el > 500*time.Millisecond {
		t.Errorf("pause took %v to stop the back", el)
	}
	ps, _ := c.state()
	if ps.ID == nil || *ps.ID != 8 || ps.Step != st.Step {
		t.Fatalf("pause reply %+v after the back stopped at %d", ps, st.Step)
	}
	if d := diffDumps(c.dump(), c.fresh(st.Step)); d != "" {
		t.Fatalf("at step %d: %s", st.Step, d)
	}
	// An inspect does not stop it; it is answered when the back ends.
	c.send(map[string]any{"type": "back", "id": 9, "granularity": "round", "count": 10000})
	c.send(map[string]any{"type": "inspect", "id": 10, "cta": 0, "warp": 1})
	st, _ = c.state()
	if st.ID == nil || *st.ID != 9 || st.Reason == "paused" {
		t.Fatalf("back with an inspect behind it: %+v", st)
	}
	c.expect("inspect")
	// Closing the session in the middle of a walk.
	c.send(back)
	time.Sleep(100 * time.Millisecond)
	t0 = time.Now()
	c.s.Close()
	if el := time.Since(t0); el > time.Second {
		t.Errorf("closing the session during a back took %v", el)
	}
}
