package static

import (
	"io/fs"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestHashedName(t *testing.T) {
	for in, want := range map[string]string{
		"app.js":       "app.abcd1234.js",
		"app.js.map":   "app.js.abcd1234.map",
		"css/site.css": "css/site.abcd1234.css",
		"LICENSE":      "LICENSE.abcd1234",
		".hidden":      ".hidden.abcd1234",
	} {
		if got := hashedName(in, "abcd1234"); got != want {
			t.Errorf("hashedName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestFSHidesGoFiles(t *testing.T) {
	if _, err := fs.Stat(FS, "embed.go"); err == nil {
		t.Error("embed.go is visible in FS")
	}
	if !Has("site.css") || Has("embed.go") {
		t.Errorf("Has: site.css %v, embed.go %v", Has("site.css"), Has("embed.go"))
	}
	err := fs.WalkDir(FS, ".", func(p string, d fs.DirEntry, err error) error {
		if strings.HasSuffix(p, ".go") {
			t.Errorf("FS lists %s", p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestHandler(t *testing.T) {
	h := Handler(nil)
	p := strings.TrimPrefix(Path("site.css"), "/static")
	rr := httptest.NewRecorder()
	h.ServeHTTP(rr, httptest.NewRequest("GET", p, nil))
	if rr.Code != 200 || rr.Header().Get("Cache-Control") != ImmutableCache || rr.Header().Get("Content-Type") != "text/css; charset=utf-8" {
		t.Errorf("%s: %d %v", p, rr.Code, rr.Header())
	}
	rr = httptest.NewRecorder()
	h.ServeHTTP(rr, httptest.NewRequest("POST", p, nil))
	if rr.Code != http.StatusMethodNotAllowed {
		t.Errorf("POST: %d", rr.Code)
	}
	if got := Path("missing.js"); got != "/static/missing.js" {
		t.Errorf("Path(missing.js) = %q", got)
	}
}
