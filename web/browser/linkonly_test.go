package browser

import (
	"bytes"
	"compress/flate"
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// linkFragment is the #k= fragment of a link-only URL holding data, as
// encodeLinkOnly writes it (raw deflate, base64url without padding).
func linkFragment(t *testing.T, data []byte) string {
	t.Helper()
	var b bytes.Buffer
	w, err := flate.NewWriter(&b, flate.BestCompression)
	if err != nil {
		t.Fatal(err)
	}
	w.Write(data)
	w.Close()
	return "#k=" + base64.RawURLEncoding.EncodeToString(b.Bytes())
}

// TestLinkOnlyBomb: a link-only URL whose kernel inflates to 160 MB (a
// fragment of about 200 KB) is refused quickly, with a clear notice, and
// without inflating more than the 2 MiB a link may hold.
func TestLinkOnlyBomb(t *testing.T) {
	s := need(t)
	// A JSON string that never ends: only its size matters.
	payload := append([]byte(`{"source":"`), bytes.Repeat([]byte{' '}, 160<<20)...)
	frag := linkFragment(t, payload)
	t.Logf("fragment of %d bytes for %d bytes", len(frag), len(payload))
	t0 := time.Now()
	tb := s.newTab(t, "/"+frag)
	tb.waitJS("the refused-link notice", `document.getElementById("pg-toast").textContent.includes("This link was not opened: the link's kernel is larger than 2 MiB")`)
	if el := time.Since(t0); el > 5*time.Second {
		t.Errorf("the notice took %v", el)
	}
	var heap float64
	tb.eval(`performance.memory ? performance.memory.usedJSHeapSize : 0`, &heap)
	t.Logf("refused after %v; JS heap %.1f MB", time.Since(t0), heap/1e6)
	if heap > 100e6 {
		t.Errorf("the JS heap holds %.0f MB after refusing the link", heap/1e6)
	}
	// The playground still opens its default kernel.
	tb.waitJS("the editor", `!!document.querySelector(".cm-content")`)
	tb.atEverySize("refused link", "refused")
}

// TestLinkOnlyCarriesOnlyItsFields: a crafted link-only URL with a lesson
// shows no lesson strip (lessons come from the server), and its title
// loses its bidirectional control characters.
func TestLinkOnlyCarriesOnlyItsFields(t *testing.T) {
	s := need(t)
	src := ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry crafted(.param .u64 out) {\n\tret;\n}\n"
	snap := map[string]any{
		"title":  "Notes\u202etxt.exe\u2066!\u2069\u200f",
		"source": src,
		"spec":   map[string]any{"grid": []int{1}, "block": []int{32}, "buffers": []any{map[string]any{"name": "out", "type": "u32", "count": 32}}, "params": []any{map[string]any{"buffer": "out"}}},
		"id":     "AAAAAAAAAAAA",
		"lesson": map[string]any{
			"explanation": "Your session expired. Sign in again at https://evil.example/login",
			"hints":       []any{map[string]any{"line": 1, "panel": "editor", "text": "Sign in"}},
		},
	}
	data, err := json.Marshal(snap)
	if err != nil {
		t.Fatal(err)
	}
	tb := s.newTab(t, "/"+linkFragment(t, data))
	tb.wake() // a link-only page holds no session until asked
	tb.waitLoaded("crafted.ptx")
	var lesson struct {
		Hidden bool
		Text   string
	}
	tb.eval(`(() => { const l = document.getElementById("pg-lesson"); return { hidden: l.hidden || l.getBoundingClientRect().height === 0, text: l.textContent }; })()`, &lesson)
	if !lesson.Hidden || strings.Contains(lesson.Text, "Sign in") {
		t.Errorf("the link shows a lesson strip: hidden %v, %q", lesson.Hidden, lesson.Text)
	}
	tb.click(`[data-action="share"]`)
	tb.waitJS("the share dialog", `!document.getElementById("pg-share").hidden`)
	var title string
	tb.eval(`document.getElementById("pg-share-title").value`, &title)
	if title != "Notestxt.exe!" {
		t.Errorf("the link's title is %q, want %q", title, "Notestxt.exe!")
	}
}
