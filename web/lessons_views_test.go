package web

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/ptxplayground/ptxplay/sessions"
)

// bankLesson reports a lesson about shared-memory banks or swizzles: a
// "Bank conflicts" title, a hint on the Swizzle tab or one that states
// what the views show.
func bankLesson(e *Example) bool {
	if e.Lesson == nil {
		return false
	}
	if strings.HasPrefix(e.Title, "Bank conflicts") {
		return true
	}
	for _, h := range e.Lesson.Hints {
		if h.Panel == "swizzle" || h.Shows != nil {
			return true
		}
	}
	return false
}

// hintStop is what the Banks and Swizzle views get when a breakpoint on a
// hint's line stops a run: the last instruction's first shared access
// (its bank verdict) and the Swizzle tab's live report.
type hintStop struct {
	Reason string `json:"reason"`
	Last   *struct {
		Line     int `json:"line"`
		Linear   int `json:"linear"`
		Warp     int `json:"warp"`
		Accesses []struct {
			Space  string `json:"space"`
			Shared *struct {
				Wavefronts int `json:"wavefronts"`
				Ideal      int `json:"ideal"`
			} `json:"shared"`
		} `json:"accesses"`
		Swizzle *struct {
			Name       string `json:"name"`
			Mode       string `json:"mode"`
			Wavefronts int    `json:"wavefronts"`
			Ideal      int    `json:"ideal"`
			Unit       int    `json:"unit"`
			Size       int    `json:"size"`
			Affine     *struct {
				Stride int `json:"stride"`
			} `json:"affine"`
		} `json:"swizzle"`
	} `json:"last"`
}

// TestLessonHintsShowWhatViewsShow: every bank or swizzle lesson, run to a
// breakpoint on each hint's line (it stops on CTA 0's warp 0) and stepped
// once (the warp runs the line), gives the
// Banks view (last.accesses) and the Swizzle tab (last.swizzle) the same
// bank verdict, in cells of the access's own size; a hint that talks about
// banks or swizzles on a shared-memory line states what they show
// (shows), and they show it: the swizzle lesson's column read is
// Swizzle<5,2,5> with one wavefront on warp 0 as on every other.
func TestLessonHintsShowWhatViewsShow(t *testing.T) {
	_, ts, _ := newSessionServer(t, sessions.Limits{MaxSessions: 4})
	n := 0
	for _, e := range BuiltinExamples().List() {
		if !bankLesson(e) {
			continue
		}
		n++
		_, body := get(t, ts.URL+"/api/examples/"+e.Name)
		var ex struct {
			Source string          `json:"source"`
			Spec   json.RawMessage `json:"spec"`
		}
		if err := json.Unmarshal([]byte(body), &ex); err != nil {
			t.Fatal(err)
		}
		for i, h := range e.Lesson.Hints {
			c := wsDial(t, ts)
			wsUntil(t, c, "hello")
			wsSend(t, c, map[string]any{"type": "load", "id": 1, "source": ex.Source, "spec": ex.Spec})
			wsUntil(t, c, "state")
			where := fmt.Sprintf("%s hint %d (line %d)", e.Name, i, h.Line)
			wsSend(t, c, map[string]any{"type": "breakpoint", "id": 2, "line": h.Line, "on": true})
			if m := wsRead(t, c); m["type"] != "breakpoints" {
				// A declaration: no instruction to stop on, nothing to show.
				if h.Shows != nil || m["type"] != "error" {
					t.Errorf("%s: %v", where, m)
				}
				c.Close()
				continue
			}
			wsSend(t, c, map[string]any{"type": "run", "id": 3})
			for {
				m, _ := wsUntil(t, c, "state")
				if m["running"] == false && m["id"] == 3.0 {
					if m["reason"] != "breakpoint" {
						t.Fatalf("%s: the run stopped for %v", where, m["reason"])
					}
					break
				}
			}
			// The run stops before the line; one warp step runs it.
			wsSend(t, c, map[string]any{"type": "step", "id": 4, "granularity": "warp"})
			var st hintStop
			m, _ := wsUntil(t, c, "state")
			b, _ := json.Marshal(m)
			json.Unmarshal(b, &st)
			c.Close()
			if st.Last == nil || st.Last.Line != h.Line || st.Last.Linear != 0 || st.Last.Warp != 0 {
				t.Errorf("%s: the step ran %+v, want the line on CTA 0 warp 0", where, st.Last)
				continue
			}
			var bank *struct{ Wavefronts, Ideal int }
			for _, a := range st.Last.Accesses {
				if a.Space == "shared" && a.Shared != nil {
					bank = &struct{ Wavefronts, Ideal int }{a.Shared.Wavefronts, a.Shared.Ideal}
					break
				}
			}
			sw := st.Last.Swizzle
			if (bank == nil) != (sw == nil) {
				t.Errorf("%s: the Banks view has %v, the Swizzle tab %v", where, bank, sw)
				continue
			}
			talks := strings.Contains(strings.ToLower(h.Text), "bank") || strings.Contains(strings.ToLower(h.Text), "swizzle")
			if bank == nil {
				if h.Shows != nil {
					t.Errorf("%s: line %d has no shared access, but the hint states what the views show", where, h.Line)
				}
				continue
			}
			if sw.Wavefronts != bank.Wavefronts || sw.Ideal != bank.Ideal {
				t.Errorf("%s: Banks says %d wavefronts (ideal %d), the Swizzle tab %d (ideal %d)", where, bank.Wavefronts, bank.Ideal, sw.Wavefronts, sw.Ideal)
			}
			if want := max(4, min(16, sw.Size)); sw.Unit != want && !(sw.Size > 4 && sw.Size <= 8 && sw.Unit == 8) {
				t.Errorf("%s: the Swizzle tab draws %d-byte cells for a %d-byte access", where, sw.Unit, sw.Size)
			}
			if talks && h.Shows == nil {
				t.Errorf("%s: the hint talks about banks or swizzles on a shared access but does not state what the views show (shows)", where)
			}
			if s := h.Shows; s != nil {
				if bank.Wavefronts != s.Wavefronts || bank.Ideal != s.IdealOrOne() {
					t.Errorf("%s: the Banks view says %d wavefronts (ideal %d), the hint %d (ideal %d) (%q)", where, bank.Wavefronts, bank.Ideal, s.Wavefronts, s.IdealOrOne(), h.Text)
				}
				if (s.Swizzle == "none") != (sw.Mode == "none") || s.Swizzle != "none" && sw.Name != s.Swizzle {
					t.Errorf("%s: the Swizzle tab says %s (%s), the hint %s (%q)", where, sw.Name, sw.Mode, s.Swizzle, h.Text)
				}
			}
		}
	}
	if n < 3 {
		t.Fatalf("%d bank or swizzle lessons, want the three transposes at least", n)
	}
}
