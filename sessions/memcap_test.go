package sessions

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"runtime"
	"sync"
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
		limit     = 96 << 20
		memSlack  = 48 << 20 // the test's own garbage, clients' decoded replies, runtime
		memFactor = 3
	)
	live := func() int64 {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return int64(ms.HeapAlloc)
	}
	base := live()
	m := newManager(t, Limits{MaxAccountedBytes: limit, MaxWarpInstructions: 300_000, MaxCommandTime: 2 * time.Second,
		ProgramCacheBytes: 16 << 20})
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
		// (cpAsyncLoopPTX joins the mix once the machine's copies in
		// flight count in machineBytes: today they grow unaccounted.)
	}
	const sessions = 5
	var mu sync.Mutex
	maxLive, maxAcct := int64(0), int64(0)
	sample := func() {
		mu.Lock()
		defer mu.Unlock()
		l, a := live()-base, m.AccountedBytes()
		maxLive, maxAcct = max(maxLive, l), max(maxAcct, a)
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
