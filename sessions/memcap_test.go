package sessions

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand"
	"os"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// The accounted limit is a cap: random mixes of commands (loads of
// programs with large buffers, runs, steps, back, seek, comparisons,
// divergence toggles, big messages) over several sessions never leave
// the Go heap's live bytes more than memSlack above MaxAccountedBytes,
// and the accounted bytes stay within a factor of memFactor of the live
// heap the sessions add.
func TestMemoryCapProperty(t *testing.T) {
	if testing.Short() {
		t.Skip("about 20s")
	}
	const (
		limit = 96 << 20
		state = 16 << 20 // MaxStateBytes
		jobs  = 1        // MaxRunningJobs
		// What the server may hold past the limit: the slices under way
		// (one per CPU token) each add at most a machine's state budget
		// and a history snapshot of it before the next slice waits
		// (jobTurn); plus the test's own garbage, the clients' decoded
		// replies and the runtime.
		memSlack  = jobs*2*state + 48<<20
		memFactor = 3
	)
	// The heap after a collection, with the sessions still running: what
	// they allocate between the collection and the reading counts too,
	// so the least of three readings is taken (each is at least what was
	// live at its collection).
	live := func() int64 {
		least := int64(math.MaxInt64)
		for range 3 {
			runtime.GC()
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			least = min(least, int64(ms.HeapAlloc))
		}
		return least
	}
	base := live()
	m := newManager(t, Limits{MaxAccountedBytes: limit, MaxStateBytes: state, MaxRunningJobs: jobs,
		MaxWarpInstructions: 300_000, MaxCommandTime: 2 * time.Second, ProgramCacheBytes: 16 << 20})
	// Spin with a large buffer: 4 MiB of global memory and a history that
	// grows with every store.
	bigSpin := func(i int) string {
		return fmt.Sprintf(`{"grid":[4],"block":[256],"buffers":[{"name":"out","type":"u32","count":%d}],"params":[{"buffer":"out"},{"u32":1073741824}]}`, 1<<20+i)
	}
	progs := []struct{ src, spec string }{
		{spinPTX, bigSpin(0)},
		{spinPTX, bigSpin(1)},
		{mixPTX, mixSpec},
		{regLoopPTX, `{"grid":[2],"block":[1024]}`},
		{reducePTX, reduceSpec},
		// State that grows as the launch runs: copies in flight and
		// recursion frames (each saves 4 KiB of .local per lane).
		{cpAsyncLoopPTX, cpAsyncLoopSpec},
		{recurseLocalPTX(4096), `{"grid":[2],"block":[1024]}`},
	}
	const sessions = 5
	var mu sync.Mutex
	maxLive, maxAcct := int64(0), int64(0)
	sample := func() {
		mu.Lock()
		defer mu.Unlock()
		l, a := live()-base, m.AccountedBytes()
		maxLive, maxAcct = max(maxLive, l), max(maxAcct, a)
		if os.Getenv("MEMDIAG") != "" {
			m.mu.Lock()
			for ss := range m.sessions {
				t.Logf("  s%d state %d compare %d in %d out %d", ss.id, ss.ch.get(chargeState)>>20, ss.ch.get(chargeCompare)>>20, ss.ch.get(chargeInbound)>>20, ss.ch.get(chargeOutbound)>>20)
			}
			m.mu.Unlock()
			t.Logf("live %d acct %d cache %d", l>>20, a>>20, m.cache.size()>>20)
		}
		if l > limit+memSlack {
			t.Errorf("live heap %d MiB above the start, limit %d MiB + slack %d MiB (accounted %d MiB)", l>>20, limit>>20, memSlack>>20, a>>20)
		}
		if l > memFactor*a+memSlack {
			t.Errorf("live heap %d MiB above the start, accounted %d MiB: more than %dx", l>>20, a>>20, memFactor)
		}
	}
	var wg sync.WaitGroup
	deadline := time.Now().Add(15 * time.Second)
	for i := range sessions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rnd := rand.New(rand.NewSource(int64(i)))
			s, err := m.NewSession()
			if err != nil {
				t.Error(err)
				return
			}
			defer s.Close()
			id := int64(0)
			send := func(v map[string]any) {
				id++
				v["id"] = id
				b, _ := json.Marshal(v)
				s.Submit(b)
			}
			// A reader that keeps the outbox drained, like the web layer.
			stop := make(chan struct{})
			done := make(chan struct{})
			go func() {
				defer close(done)
				for {
					select {
					case <-s.Ready():
						if _, more := s.Take(); !more {
							return
						}
					case <-stop:
						return
					}
				}
			}()
			defer func() { close(stop); <-done }()
			for n := 0; time.Now().Before(deadline); n++ {
				switch x := rnd.Intn(20); {
				case x < 2 || n == 0:
					p := progs[rnd.Intn(len(progs))]
					send(map[string]any{"type": "load", "source": p.src, "spec": json.RawMessage(p.spec)})
				case x < 6:
					send(map[string]any{"type": "run"})
				case x < 9:
					send(map[string]any{"type": "step", "granularity": []string{"warp", "round", "barrier"}[rnd.Intn(3)], "count": 1 + rnd.Intn(MaxStepCount)})
				case x < 11:
					send(map[string]any{"type": "back", "count": 1 + rnd.Intn(20)})
				case x < 13:
					send(map[string]any{"type": "seek", "step": rnd.Intn(200_000)})
				case x < 14:
					send(map[string]any{"type": "compare-scheduling", "maxWarpInstructions": 1 + rnd.Intn(300_000)})
				case x < 16:
					send(map[string]any{"type": "divergence", "on": rnd.Intn(2) == 0})
				case x < 18:
					// A burst of big messages.
					for range 4 {
						s.Submit(bigCheck(900 << 10))
					}
				default:
					send(map[string]any{"type": "pause"})
				}
				time.Sleep(time.Duration(rnd.Intn(60)) * time.Millisecond)
			}
		}()
	}
	tick := time.NewTicker(500 * time.Millisecond)
	defer tick.Stop()
	for time.Now().Before(deadline) {
		<-tick.C
		sample()
	}
	wg.Wait()
	sample()
	t.Logf("max live heap above the start %d MiB, max accounted %d MiB (limit %d MiB)", maxLive>>20, maxAcct>>20, limit>>20)
}

// Launches whose machines grow as they run (cp.async copies in flight,
// recursion) wait while the accounted memory is over the limit, saying
// so in their run frames, so that together they pass the limit by at
// most what the slices under way add; a run that waits until the command
// time limit stops as interrupted.
func TestGrowingLaunchesWaitForMemory(t *testing.T) {
	const (
		limit = 24 << 20
		state = 8 << 20
		jobs  = 1
		n     = 6
	)
	m := newManager(t, Limits{MaxAccountedBytes: limit, MaxStateBytes: state, MaxRunningJobs: jobs,
		MaxHistoryBytes: 4 << 20, MaxWarpInstructions: 1 << 30, MaxCommandTime: 1500 * time.Millisecond, FrameInterval: 10 * time.Millisecond})
	var cs []*client
	for range n {
		c := newClient(t, m)
		c.load(cpAsyncLoopPTX, cpAsyncLoopSpec)
		cs = append(cs, c)
	}
	stop := make(chan struct{})
	var peak atomic.Int64
	go func() {
		for {
			select {
			case <-stop:
				return
			case <-time.After(2 * time.Millisecond):
				// The machines, histories and the rest, less the
				// replies waiting for these slow test clients (bounded
				// by MaxOutboundBytes per session, not by waiting).
				a := m.AccountedBytes()
				m.mu.Lock()
				for ss := range m.sessions {
					a -= ss.ch.get(chargeOutbound)
				}
				m.mu.Unlock()
				if a > peak.Load() {
					peak.Store(a)
				}
			}
		}
	}()
	for i, c := range cs {
		c.send(map[string]any{"type": "run", "id": 10 + i})
	}
	waited, ends := 0, map[string]int{}
	for _, c := range cs {
		for {
			typ, b := c.next()
			if typ != "state" {
				continue
			}
			var st stateMsg
			if err := json.Unmarshal(b, &st); err != nil {
				t.Fatal(err)
			}
			if st.Running {
				if st.Reason == "throttled" && strings.Contains(st.Message, "low on memory") {
					waited++
				}
				continue
			}
			end := st.Reason
			if st.Fault != nil {
				end = st.Fault.Kind
			}
			ends[end]++
			break
		}
	}
	close(stop)
	t.Logf("peak accounted (replies aside) %d MiB (limit %d MiB), %d runs said they waited for memory, ends %v", peak.Load()>>20, limit>>20, waited, ends)
	if max := int64(limit + jobs*2*state); peak.Load() > max {
		t.Errorf("accounted memory peaked at %d MiB; the limit is %d MiB and the slices under way add at most %d MiB", peak.Load()>>20, limit>>20, (max-limit)>>20)
	}
	if waited == 0 || ends["interrupted"] == 0 {
		t.Errorf("no run waited for memory (%d) or stopped waiting at the time limit (%v)", waited, ends)
	}
}
