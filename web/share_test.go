package web

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ptxplayground/ptxplay/sessions/share"
)

func newShareServer(t *testing.T, o ShareOptions) *httptest.Server {
	t.Helper()
	s, err := New(Options{Sessions: &echoStarter{}, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Share: o})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s)
	t.Cleanup(ts.Close)
	return ts
}

func openTestStore(t *testing.T, ro bool) (*share.Store, string) {
	t.Helper()
	dsn := "sqlite:" + filepath.Join(t.TempDir(), "shares.db")
	if ro {
		w, err := share.Open(context.Background(), dsn, share.Options{})
		if err != nil {
			t.Fatal(err)
		}
		w.Close()
	}
	st, err := share.Open(context.Background(), dsn, share.Options{ReadOnly: ro})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st, dsn
}

func postShare(t *testing.T, url, ctype, body string) (*http.Response, map[string]any) {
	t.Helper()
	resp, err := http.Post(url+"/api/share", ctype, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var v map[string]any
	b, _ := io.ReadAll(resp.Body)
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("POST /api/share %d: not JSON: %s", resp.StatusCode, b)
	}
	return resp, v
}

func shareBody(title string, step int) string {
	src := ".version 7.0\n.target sm_80\n.address_size 64\n.visible .entry scale(.param .u64 out) { ret; }\n"
	return fmt.Sprintf(`{"title":%q,"source":%q,"spec":{"entry":"scale","grid":[2],"block":[64]},"step":%d,"view":{"tab":"memory"}}`, title, src, step)
}

func TestShareRoutes(t *testing.T) {
	st, _ := openTestStore(t, false)
	ts := newShareServer(t, ShareOptions{Store: st, Burst: 100, PerMinute: 100})

	resp, v := postShare(t, ts.URL, "application/json", shareBody("Scale <kernel>", 7))
	if resp.StatusCode != http.StatusCreated || v["created"] != true {
		t.Fatalf("create: %d %v", resp.StatusCode, v)
	}
	id := v["id"].(string)
	if !share.ValidID(id) || v["url"] != "/s/"+id || v["embed"] != "/embed/"+id || resp.Header.Get("Location") != "/s/"+id {
		t.Fatalf("create response %v, Location %q", v, resp.Header.Get("Location"))
	}
	// The same content is the same link.
	resp, v = postShare(t, ts.URL, "application/json; charset=utf-8", shareBody("Scale <kernel>", 7))
	if resp.StatusCode != http.StatusOK || v["id"] != id || v["created"] != false {
		t.Fatalf("again: %d %v", resp.StatusCode, v)
	}
	// Another step is another link.
	if _, v2 := postShare(t, ts.URL, "application/json", shareBody("Scale <kernel>", 8)); v2["id"] == id {
		t.Fatal("a different step gave the same link")
	}

	r, body := get(t, ts.URL+"/api/share/"+id)
	var got map[string]any
	if err := json.Unmarshal([]byte(body), &got); err != nil || r.StatusCode != 200 {
		t.Fatalf("GET /api/share: %d %s", r.StatusCode, body)
	}
	if got["id"] != id || got["title"] != "Scale <kernel>" || got["step"] != float64(7) || !strings.Contains(r.Header.Get("Cache-Control"), "immutable") {
		t.Fatalf("GET /api/share: %v", got)
	}

	r, body = get(t, ts.URL+"/s/"+id)
	if r.StatusCode != 200 {
		t.Fatalf("/s/: %d", r.StatusCode)
	}
	for _, want := range []string{
		`<meta property="og:title" content="Scale &lt;kernel&gt; · PTX Playground">`,
		`<meta property="og:url" content="` + ts.URL + `/s/` + id + `">`,
		`<meta name="twitter:card" content="summary">`,
		`grid 2 · block 64, opened at warp-instruction 7`,
		`id="initial-share"`,
		`scale.ptx`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("/s/%s lacks %s", id, want)
		}
	}
	if strings.Contains(body, `id="initial-example"`) {
		t.Error("/s/ page also carries an example")
	}
	if r.Header.Get("X-Frame-Options") != "DENY" {
		t.Error("/s/ may be framed")
	}
	r, body = get(t, ts.URL+"/embed/"+id)
	if r.StatusCode != 200 || !strings.Contains(body, `id="initial-share"`) || strings.Contains(r.Header.Get("Content-Security-Policy"), "frame-ancestors 'none'") || r.Header.Get("X-Frame-Options") != "" {
		t.Fatalf("/embed/%s: %d, CSP %q", id, r.StatusCode, r.Header.Get("Content-Security-Policy"))
	}
	// Examples keep their embed names.
	if r, body = get(t, ts.URL+"/embed/vector-add"); r.StatusCode != 200 || !strings.Contains(body, `id="initial-example"`) {
		t.Fatalf("/embed/vector-add: %d", r.StatusCode)
	}

	for _, path := range []string{"/s/AAAAAAAAAAAA", "/s/nope", "/embed/AAAAAAAAAAAA"} {
		r, body = get(t, ts.URL+path)
		if r.StatusCode != 404 || !strings.Contains(body, "This share link does not exist") {
			t.Errorf("%s: %d", path, r.StatusCode)
		}
	}
	r, body = get(t, ts.URL+"/api/share/AAAAAAAAAAAA")
	if r.StatusCode != 404 || !strings.Contains(body, `"error"`) {
		t.Errorf("/api/share unknown: %d %s", r.StatusCode, body)
	}
}

func TestShareRefusals(t *testing.T) {
	st, _ := openTestStore(t, false)
	ts := newShareServer(t, ShareOptions{Store: st, Burst: 100, PerMinute: 100})
	cases := []struct {
		name, ctype, body string
		status            int
		want              string
	}{
		{"not json", "text/plain", shareBody("x", 0), 415, "application/json"},
		{"malformed", "application/json", `{"source":`, 400, "malformed"},
		{"bad spec", "application/json", `{"source":"x","spec":{"grid":[0],"block":[1]}}`, 400, "launch spec"},
		{"no source", "application/json", `{"spec":{"grid":[1],"block":[1]}}`, 400, "no PTX source"},
		{"bidi title", "application/json", shareBody("Scale \u202etxt.exe", 0), 400, "bidirectional control character U+202E"},
		{"oversize", "application/json", `{"source":"` + strings.Repeat("a", int(share.DefaultLimits.MaxEncodedBytes())) + `"}`, 413, "at most"},
	}
	for _, c := range cases {
		resp, v := postShare(t, ts.URL, c.ctype, c.body)
		msg, _ := v["error"].(string)
		if resp.StatusCode != c.status || !strings.Contains(msg, c.want) {
			t.Errorf("%s: %d %q, want %d with %q", c.name, resp.StatusCode, msg, c.status, c.want)
		}
	}
	// Chunked (no Content-Length) oversize bodies are cut off too.
	pr, pw := io.Pipe()
	go func() {
		pw.Write([]byte(`{"source":"`))
		chunk := []byte(strings.Repeat("a", 1<<16))
		for range int(share.DefaultLimits.MaxEncodedBytes()>>16) + 2 {
			if _, err := pw.Write(chunk); err != nil {
				return
			}
		}
		pw.Close()
	}()
	resp, err := http.Post(ts.URL+"/api/share", "application/json", pr)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 413 {
		t.Errorf("chunked oversize: %d", resp.StatusCode)
	}
}

func TestShareRateLimitAndModes(t *testing.T) {
	st, _ := openTestStore(t, false)
	ts := newShareServer(t, ShareOptions{Store: st, Burst: 3, PerMinute: 1})
	for i := range 3 {
		if resp, v := postShare(t, ts.URL, "application/json", shareBody(fmt.Sprint(i), 0)); resp.StatusCode != 201 {
			t.Fatalf("share %d: %d %v", i, resp.StatusCode, v)
		}
	}
	resp, v := postShare(t, ts.URL, "application/json", shareBody("more", 0))
	if resp.StatusCode != 429 || resp.Header.Get("Retry-After") == "" || !strings.Contains(v["error"].(string), "try again") {
		t.Fatalf("rate limit: %d %v", resp.StatusCode, v)
	}

	off := newShareServer(t, ShareOptions{})
	resp, v = postShare(t, off.URL, "application/json", shareBody("x", 0))
	if resp.StatusCode != 503 || !strings.Contains(v["error"].(string), "link-only") {
		t.Fatalf("no store: %d %v", resp.StatusCode, v)
	}
	if r, _ := get(t, off.URL+"/s/AAAAAAAAAAAA"); r.StatusCode != 404 {
		t.Fatalf("no store /s/: %d", r.StatusCode)
	}
	ro, _ := openTestStore(t, true)
	rots := newShareServer(t, ShareOptions{Store: ro})
	resp, v = postShare(t, rots.URL, "application/json", shareBody("x", 0))
	if resp.StatusCode != 503 || !strings.Contains(v["error"].(string), "read-only") {
		t.Fatalf("read-only: %d %v", resp.StatusCode, v)
	}
	if r, body := get(t, rots.URL+"/readyz"); r.StatusCode != 200 || body != "ok\n" {
		t.Fatalf("/readyz: %d %q", r.StatusCode, body)
	}
}

func TestRateLimiterBounded(t *testing.T) {
	l := newRateLimiter(60, 2)
	now := timeZero()
	for i := range maxClients * 3 {
		l.allow(fmt.Sprintf("10.0.%d.%d", i>>8, i&255), now.Add(timeMillis(i)))
		if len(l.buckets) > maxClients {
			t.Fatalf("%d buckets", len(l.buckets))
		}
	}
	if _, ok := l.allow("a", now); !ok {
		t.Fatal("first request refused")
	}
	l.allow("a", now)
	if wait, ok := l.allow("a", now); ok || wait <= 0 || wait > 2e9 {
		t.Fatalf("third request: %v %v", wait, ok)
	}
}

func timeZero() time.Time            { return time.Unix(1_700_000_000, 0) }
func timeMillis(i int) time.Duration { return time.Duration(i) * time.Millisecond }

// TestShareTitleBidiStripped: a link stored with bidirectional control
// characters in its title and description (before they were refused)
// shows them in neither the page title nor the link-preview tags.
func TestShareTitleBidiStripped(t *testing.T) {
	st, _ := openTestStore(t, false)
	ts := newShareServer(t, ShareOptions{Store: st, Burst: 100, PerMinute: 100})
	snap := &share.Snapshot{Title: "Report\u202eFDP.exe", Description: "see \u2066this\u2069 \u200fnow",
		Source: ".version 7.0\n.target sm_80\n.address_size 64\n.visible .entry k() { ret; }\n", Spec: json.RawMessage(`{"grid":[1],"block":[1]}`)}
	id, _, err := st.Put(context.Background(), snap)
	if err != nil {
		t.Fatal(err)
	}
	r, body := get(t, ts.URL+"/s/"+id)
	if r.StatusCode != 200 {
		t.Fatalf("GET /s/%s: %d", id, r.StatusCode)
	}
	head := body[:strings.Index(body, "</head>")]
	for _, c := range []rune{0x202e, 0x2066, 0x2069, 0x200f} {
		if strings.ContainsRune(head, c) {
			t.Errorf("the page head holds U+%04X", c)
		}
	}
	for _, want := range []string{"<title>ReportFDP.exe · PTX Playground</title>", `content="see this now"`} {
		if !strings.Contains(head, want) {
			t.Errorf("the page head lacks %s", want)
		}
	}
}

// TestShareFileAndExample: the page of a link names the file as the UI
// does (the imported file's name from the view, else the gallery example
// it came from, else its entry kernel) and selects that example in the
// menu, before the UI starts.
func TestShareFileAndExample(t *testing.T) {
	st, _ := openTestStore(t, false)
	ts := newShareServer(t, ShareOptions{Store: st, Burst: 100, PerMinute: 100})
	ex := BuiltinExamples().Get("transpose-swizzled")
	if ex == nil {
		t.Fatal("no transpose-swizzled example")
	}
	put := func(example, view string) string {
		t.Helper()
		snap := &share.Snapshot{Source: ex.Source, Spec: json.RawMessage(`{"entry":"transpose_swizzled","grid":[1,1],"block":[32,8]}`), Example: example, View: json.RawMessage(view)}
		if err := snap.Normalize(share.DefaultLimits); err != nil {
			t.Fatal(err)
		}
		id, _, err := st.Put(context.Background(), snap)
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	for _, c := range []struct {
		example, view, file, selected string
	}{
		{"transpose-swizzled", `{"tab":"memory"}`, "transpose-swizzled.ptx", "transpose-swizzled"},
		{"no-such-example", `{"tab":"memory"}`, "transpose_swizzled.ptx", ""},
		{"", `{}`, "transpose_swizzled.ptx", ""},
		{"transpose-swizzled", `{"file":"../my\u202etile.cu.ptx"}`, "..mytile.cu.ptx", "transpose-swizzled"},
	} {
		id := put(c.example, c.view)
		r, body := get(t, ts.URL+"/s/"+id)
		if r.StatusCode != 200 {
			t.Fatalf("GET /s/%s: %d", id, r.StatusCode)
		}
		if want := `id="pg-file">` + c.file + `<`; !strings.Contains(body, want) {
			i := strings.Index(body, `id="pg-file"`)
			t.Errorf("%s %s: the file shows as %.60q, want %s", c.example, c.view, body[max(i, 0):], c.file)
		}
		sel := regexp.MustCompile(`<option value="([^"]*)" selected`).FindStringSubmatch(body)
		got := ""
		if sel != nil {
			got = sel[1]
		}
		if got != c.selected {
			t.Errorf("%s %s: the menu selects %q, want %q", c.example, c.view, got, c.selected)
		}
	}
}

// A share link carries the CUDA source and its options: the API returns
// them, the page names the file .cu; a PTX link is as it was.
func TestShareCUDARoundTrip(t *testing.T) {
	st, _ := openTestStore(t, false)
	ts := newShareServer(t, ShareOptions{Store: st, Burst: 100, PerMinute: 100})
	ptxSrc := ".version 7.0\n.target sm_80\n.address_size 64\n.visible .entry scale(.param .u64 out) { ret; }\n"
	cu := "extern \"C\" __global__ void scale(float *out) {\n  out[threadIdx.x] *= 2;\n}\n"
	body := fmt.Sprintf(`{"source":%q,"spec":{"entry":"scale","grid":[2],"block":[64]},"cuda":{"source":%q,"arch":"sm_90","opt":3,"fastMath":true}}`, ptxSrc, cu)
	resp, v := postShare(t, ts.URL, "application/json", body)
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("create: %d %v", resp.StatusCode, v)
	}
	id := v["id"].(string)
	r, got := get(t, ts.URL+"/api/share/"+id)
	var snap struct {
		Source string `json:"source"`
		CUDA   struct {
			Source   string `json:"source"`
			Arch     string `json:"arch"`
			Opt      int    `json:"opt"`
			FastMath bool   `json:"fastMath"`
		} `json:"cuda"`
	}
	if err := json.Unmarshal([]byte(got), &snap); err != nil || r.StatusCode != 200 {
		t.Fatalf("GET /api/share: %d %s", r.StatusCode, got)
	}
	if snap.Source != ptxSrc || snap.CUDA.Source != cu || snap.CUDA.Arch != "sm_90" || snap.CUDA.Opt != 3 || !snap.CUDA.FastMath {
		t.Fatalf("round trip: %+v", snap)
	}
	r, page := get(t, ts.URL+"/s/"+id)
	if r.StatusCode != 200 || !strings.Contains(page, `id="pg-file">scale.cu<`) || !strings.Contains(page, "CUDA kernel scale") {
		i := strings.Index(page, `id="pg-file"`)
		t.Fatalf("page: %d, file %.40q", r.StatusCode, page[max(i, 0):])
	}
	// Breakpoints on kernel.cu lines come back as sent (sorted); one past
	// the source's last line is refused with the reason.
	withBps := strings.Replace(body, `"cuda":`, `"view":{"breakpoints":[4],"cudaBreakpoints":[3,2]},"cuda":`, 1)
	resp, v = postShare(t, ts.URL, "application/json", withBps)
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("create with breakpoints: %d %v", resp.StatusCode, v)
	}
	if r, got := get(t, ts.URL+"/api/share/"+v["id"].(string)); r.StatusCode != 200 || !strings.Contains(got, `"view":{"breakpoints":[4],"cudaBreakpoints":[2,3]}`) {
		t.Fatalf("GET with breakpoints: %d %s", r.StatusCode, got)
	}
	pastEnd := strings.Replace(withBps, `[3,2]`, `[3,9]`, 1)
	if resp, v := postShare(t, ts.URL, "application/json", pastEnd); resp.StatusCode != http.StatusBadRequest || !strings.Contains(fmt.Sprint(v), "cudaBreakpoints: line 9 is not a line of kernel.cu (1 to 4)") {
		t.Fatalf("a breakpoint past kernel.cu: %d %v", resp.StatusCode, v)
	}
	// Bad options are refused with the reason.
	bad := strings.Replace(body, `"opt":3`, `"opt":9`, 1)
	if resp, v := postShare(t, ts.URL, "application/json", bad); resp.StatusCode != http.StatusBadRequest || !strings.Contains(fmt.Sprint(v), "optimisation level 9") {
		t.Fatalf("bad options: %d %v", resp.StatusCode, v)
	}
	// A PTX link stays a PTX link.
	resp, v = postShare(t, ts.URL, "application/json", shareBody("Scale", 0))
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("PTX share: %d %v", resp.StatusCode, v)
	}
	r, page = get(t, ts.URL+"/s/"+v["id"].(string))
	if !strings.Contains(page, `id="pg-file">scale.ptx<`) {
		t.Fatalf("PTX link file: %d", r.StatusCode)
	}
}
