package web

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/ptxplayground/ptxplay/engine/cuda"
	"github.com/ptxplayground/ptxplay/sessions"
)

// wsCUDA is a kernel whose warps take different CUDA lines (4-7) before a
// store on line 8.
const wsCUDA = `extern "C" __global__ void k(int *out) {
  int i = threadIdx.x;
  int v;
  if (i & 1) {
    v = i * 3;
  } else {
    v = i + 7;
  }
  out[i] = v;
}
`

const wsCUDASpec = `{"entry":"k","grid":[1],"block":[64],"buffers":[{"name":"out","type":"s32","count":64}],"params":[{"buffer":"out"}]}`

// The browser's CUDA mode over the websocket: compile as the user types
// (a newer compile cancels the one queued), diagnostics with line:col, an
// include refused, then load, step by source line and back.
func TestWebsocketCUDA(t *testing.T) {
	needClang(t)
	_, ts, mgr := newSessionServer(t, sessions.Limits{MaxSessions: 4})
	mgr.SetCompiler(cuda.NewCompiler(cuda.Config{Concurrency: 1}))
	c := wsDial(t, ts)
	wsUntil(t, c, "hello")

	// Two keystrokes' compiles back to back: the first may be cancelled,
	// the second compiles.
	half := strings.Replace(wsCUDA, "v = i * 3;", "v = i * ;", 1)
	wsSend(t, c, map[string]any{"type": "compile", "id": 1, "cuda": map[string]any{"source": half, "opt": 2}})
	wsSend(t, c, map[string]any{"type": "compile", "id": 2, "cuda": map[string]any{"source": wsCUDA, "opt": 2}})
	var last map[string]any
	for last == nil {
		m, _ := wsUntil(t, c, "compiled")
		switch m["id"] {
		case 1.0:
			if e, _ := m["error"].(map[string]any); e != nil && e["code"] != "cancelled" {
				t.Fatalf("first compile: %v", m)
			}
		case 2.0:
			last = m
		}
	}
	if last["ok"] != true || !strings.Contains(last["ptx"].(string), ".entry k") || len(last["ptxToCuda"].([]any)) == 0 {
		t.Fatalf("compiled: %v", last)
	}

	// A syntax error: line:col on the CUDA source.
	wsSend(t, c, map[string]any{"type": "compile", "id": 3, "cuda": map[string]any{"source": half}})
	m, _ := wsUntil(t, c, "compiled")
	ds, _ := m["diagnostics"].([]any)
	if m["ok"] != false || len(ds) == 0 {
		t.Fatalf("compiled: %v", m)
	}
	if d := ds[0].(map[string]any); d["severity"] != "error" || d["line"] != 5.0 || d["col"] != 13.0 {
		t.Fatalf("diagnostic %v", d)
	}

	// An include is refused, its content never echoed.
	wsSend(t, c, map[string]any{"type": "compile", "id": 4, "cuda": map[string]any{"source": "#include </etc/passwd>\n" + wsCUDA}})
	m, _ = wsUntil(t, c, "compiled")
	if m["ok"] != false || m["refused"] != true || strings.Contains(m["diagnostics"].([]any)[0].(map[string]any)["message"].(string), "root:") {
		t.Fatalf("include: %v", m)
	}

	// Load: compiled, diagnostics, loaded (with the CUDA lines), state.
	wsSend(t, c, map[string]any{"type": "load", "id": 5, "cuda": map[string]any{"source": wsCUDA, "opt": 0}, "spec": json.RawMessage(wsCUDASpec)})
	if m, _ := wsUntil(t, c, "compiled"); m["ok"] != true || m["id"] != 5.0 {
		t.Fatalf("load's compile: %v", m)
	}
	loaded, _ := wsUntil(t, c, "loaded")
	cu, _ := loaded["cuda"].(map[string]any)
	if cu == nil || len(cu["lines"].([]any)) == 0 {
		t.Fatalf("loaded.cuda: %v", loaded["cuda"])
	}
	st, _ := wsUntil(t, c, "state")
	line0 := warp0CUDALine(t, st)

	// Step by source line: each stop is on another CUDA line of warp 0.
	var stepsAt []float64
	prev := line0
	for i := 0; i < 3; i++ {
		wsSend(t, c, map[string]any{"type": "step", "id": 10 + i, "granularity": "source-line"})
		st, _ := wsUntil(t, c, "state")
		l := warp0CUDALine(t, st)
		if l == prev || l == 0 {
			t.Fatalf("source-line step %d: CUDA line %v after %v", i, l, prev)
		}
		prev = l
		stepsAt = append(stepsAt, st["step"].(float64))
	}
	// Back by source line: to the previous stop.
	wsSend(t, c, map[string]any{"type": "back", "id": 20, "granularity": "source-line"})
	st, _ = wsUntil(t, c, "state")
	if st["step"] != stepsAt[1] {
		t.Fatalf("back reached step %v, want %v", st["step"], stepsAt[1])
	}
	// A breakpoint on the store's CUDA line stops a run there.
	wsSend(t, c, map[string]any{"type": "breakpoint", "id": 21, "cudaLine": 9})
	if bp, _ := wsUntil(t, c, "breakpoints"); len(bp["cudaLines"].([]any)) != 1 {
		t.Fatalf("breakpoints %v", bp)
	}
	wsSend(t, c, map[string]any{"type": "run", "id": 22})
	for {
		st, _ = wsUntil(t, c, "state")
		if st["running"] != true {
			break
		}
	}
	if st["reason"] != "breakpoint" {
		t.Fatalf("run: %v", st["reason"])
	}
}

// warp0CUDALine is warp 0's CUDA line in a full state.
func warp0CUDALine(t *testing.T, st map[string]any) float64 {
	t.Helper()
	ctas, _ := st["ctas"].([]any)
	for _, ct := range ctas {
		for _, w := range ct.(map[string]any)["warps"].([]any) {
			w := w.(map[string]any)
			if w["warp"] == 0.0 {
				l, _ := w["cudaLine"].(float64)
				return l
			}
		}
	}
	t.Fatalf("no warp 0 in %v", st["ctas"])
	return 0
}
