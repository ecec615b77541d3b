package sessions

import (
	"fmt"
	"math/rand"
	"reflect"
	"testing"

	"github.com/ptxplayground/ptxplay/engine/analysis"
	"github.com/ptxplayground/ptxplay/engine/emu"
	"github.com/ptxplayground/ptxplay/engine/launch"
)

// freshWarnings runs a fresh launch of the session's program and spec with
// only a checker to warp-instruction k and returns what it found, in the
// form the state message carries.
func (c *client) freshWarnings(k int64) []warningJSON {
	c.t.Helper()
	var prog = c.s.prog
	var spec *launch.Spec
	c.do(func() { prog, spec = c.s.prog, c.s.spec })
	l, err := launch.Prepare(prog.prog, spec)
	if err != nil {
		c.t.Fatal(err)
	}
	chk := l.NewChecker()
	m := l.Machine()
	m.AddObserver(chk)
	for m.Stats().WarpInstructions < k {
		m.Step(emu.StepWarpInstruction)
		if m.Done() || m.Fault() != nil {
			break
		}
	}
	out := []warningJSON{}
	for _, w := range chk.Warnings() {
		wj := warningJSON{Kind: string(w.Kind), Space: w.Space.String(), PC: w.PC, Line: w.Line,
			CTA: w.Thread.CTA, Thread: w.Thread.Tid, PrevPC: w.PrevPC, Offset: w.Offset,
			Count: min(w.Count, analysis.MaxOccurrenceSteps), Capped: w.Count >= analysis.MaxOccurrenceSteps, Step: w.Step, Text: w.Message()}
		if w.HasPrev() {
			wj.PrevLine, wj.PrevCTA, wj.PrevThread = w.PrevLine, w.PrevThread.CTA, w.PrevThread.Tid
		}
		out = append(out, wj)
	}
	return out
}

// TestWarningsFollowHistory: after random steps, backs and seeks, the
// warnings a client holds (merged from the state messages, which send
// them when they change) are exactly those a fresh run to the position
// finds.
func TestWarningsFollowHistory(t *testing.T) {
	exs := map[string]example{}
	for _, ex := range galleryExamples(t) {
		exs[ex.name] = ex
	}
	for _, name := range []string{"race", "cp-async-missing-wait"} {
		ex, ok := exs[name]
		if !ok {
			t.Fatalf("no example %s", name)
		}
		t.Run(name, func(t *testing.T) {
			c := newClient(t, newManager(t, Limits{}))
			st := c.load(ex.src, ex.spec)
			c.do(func() { c.s.h.interval, c.s.h.jobInterval = 4, 16 })
			var have []warningJSON
			apply := func(st stateMsg) {
				if st.Warnings != nil {
					have = st.Warnings.List
				}
			}
			apply(st)
			rnd := rand.New(rand.NewSource(int64(len(name))))
			sawSome, sawNone, terminal := false, false, false
			for i := 0; i < 150; i++ {
				var st stateMsg
				switch x := rnd.Intn(10); {
				case x < 5:
					st = c.step([]string{"warp", "round", "barrier"}[rnd.Intn(3)], 1+rnd.Intn(12))
					if !terminal && st.Status != "paused" {
						c.expect("done")
					}
				case x < 7:
					c.send(map[string]any{"type": "back", "count": 1 + rnd.Intn(10), "granularity": []string{"warp", "round", "barrier"}[rnd.Intn(3)]})
					st, _ = c.state()
				default:
					var first, head int64
					c.do(func() { first, head = c.s.h.first, c.s.h.head })
					c.send(map[string]any{"type": "seek", "step": first + rnd.Int63n(head-first+1)})
					st, _ = c.state()
				}
				terminal = st.Status != "paused"
				apply(st)
				want := c.freshWarnings(st.Step)
				got := have
				if got == nil {
					got = []warningJSON{}
				}
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("command %d (step %d):\n got %+v\nwant %+v", i, st.Step, got, want)
				}
				if len(want) > 0 {
					sawSome = true
				} else {
					sawNone = true
				}
			}
			if !sawSome || !sawNone {
				t.Errorf("positions with warnings seen: %v, without: %v", sawSome, sawNone)
			}
			t.Log(fmt.Sprint(len(have), " warnings at the end"))
		})
	}
}

// TestWarningText: the state message says what each warning found in the
// words of its kind: the gallery's missing fence.proxy.async is a TMA
// store reading generic-proxy writes, naming both lines.
func TestWarningText(t *testing.T) {
	for _, ex := range galleryExamples(t) {
		if ex.name != "tma-missing-fence" {
			continue
		}
		c := newClient(t, newManager(t, Limits{}))
		st := c.load(ex.src, ex.spec)
		var have []warningJSON
		for i := 0; i < 200 && st.Status == "paused"; i++ {
			if st.Warnings != nil {
				have = st.Warnings.List
			}
			st = c.step("warp", 8)
		}
		if st.Warnings != nil {
			have = st.Warnings.List
		}
		for _, w := range have {
			if w.Kind == string(analysis.WarnProxyFence) {
				want := fmt.Sprintf("the TMA store at line %d (thread 0 of CTA 0) reads shared memory that thread 0 of CTA 0 wrote at line %d through the generic proxy, with no fence.proxy.async between them", w.Line, w.PrevLine)
				if w.Text != want {
					t.Errorf("text %q, want %q", w.Text, want)
				}
				return
			}
		}
		t.Fatalf("no %s warning: %+v", analysis.WarnProxyFence, have)
	}
	t.Fatal("no example tma-missing-fence")
}
