package browser

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestRunThroughput measures the browser's Run (history, checker and
// memory analysis on, as every session has them) on the ALU-loop kernel of
// engine/emu's benchmarks, 64 CTAs of 256 threads: the time from the click
// to the "done" status (timed by the page), and the thread-instructions the
// status bar counts.
// It is a measurement, not a check of the product: it runs only with
// PTXPLAY_BROWSER_BENCH=1 (docs/benchmarks.md gives the figures).
func TestRunThroughput(t *testing.T) {
	if os.Getenv("PTXPLAY_BROWSER_BENCH") == "" {
		t.Skip("a measurement: set PTXPLAY_BROWSER_BENCH=1")
	}
	src, err := os.ReadFile(filepath.Join("..", "..", "engine", "emu", "testdata", "aluloop.ptx"))
	if err != nil {
		t.Fatal(err)
	}
	s := need(t)
	tb := s.newTab(t, "/?example=vector-add")
	tb.viewport(1440, 900)
	tb.waitLoaded("vector-add.ptx")
	tb.replaceEditorText(string(src))
	tb.waitLoaded("k.ptx")
	tb.setSpec(`{"version":1,"entry":"k","grid":[64],"block":[256],"buffers":[{"name":"out","type":"u32","count":16384}],"params":[{"buffer":"out"}]}`)
	tb.waitStatus("the 64-CTA launch to load", func(s status) string {
		if !strings.Contains(s.Stats, "/64 CTAs") || s.Status != "paused" {
			return "not loaded"
		}
		return ""
	})
	num := regexp.MustCompile(`([\d,]+) thread-instructions`)
	for round := 0; round < 5; round++ {
		if round > 0 {
			tb.button("reset")
			tb.waitStatus("the reset", func(s status) string {
				if s.Step != "step 0/0" && !strings.HasPrefix(s.Step, "step 0/") {
					return "not reset"
				}
				return ""
			})
		}
		// The page times the run itself, from the click's event to the
		// status bar's "done" (so that the test's polling, which
		// shares the machine's cores, adds no latency to the figure).
		tb.eval(`(() => {
			const rt = window.__runTime = {t0: 0, t1: 0};
			document.querySelector('[data-action="run"]').addEventListener("click", () => { rt.t0 = performance.now(); }, {capture: true, once: true});
			const st = document.getElementById("pg-status");
			const mo = new MutationObserver(() => {
				if (st.dataset.status === "done" && rt.t0 && !rt.t1) { rt.t1 = performance.now(); mo.disconnect(); }
			});
			mo.observe(st, {attributes: true, childList: true, subtree: true, characterData: true});
			return true;
		})()`, nil)
		t0 := time.Now()
		tb.button("run")
		st := tb.waitStatus("the launch to finish", func(s status) string {
			if s.Status != "done" {
				return "not done"
			}
			return ""
		})
		wall := time.Since(t0)
		var rt struct{ T0, T1 float64 }
		tb.eval(`({T0: window.__runTime.t0, T1: window.__runTime.t1})`, &rt)
		if rt.T0 == 0 || rt.T1 <= rt.T0 {
			t.Fatalf("the page did not time the run: %+v", rt)
		}
		el := time.Duration((rt.T1 - rt.T0) * float64(time.Millisecond))
		m := num.FindStringSubmatch(st.Stats)
		if m == nil {
			t.Fatalf("no thread-instruction count in %q", st.Stats)
		}
		n, err := strconv.ParseInt(strings.ReplaceAll(m[1], ",", ""), 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("round %d: %d thread-instructions in %v (the test's wall time %v): %.3g thread-instructions/s", round, n, el, wall, float64(n)/el.Seconds())
	}
}
