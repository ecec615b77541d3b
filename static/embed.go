// Package static holds the web playground's static files (the UI bundle,
// stylesheets, icons), embedded into the binary, and serves them under
// content-hashed names so that browsers may cache them forever.
//
// A file "app.js" whose contents hash to 3f2a1b9c is served as
// /static/app.3f2a1b9c.js with "Cache-Control: public, max-age=31536000,
// immutable"; Path("app.js") returns that URL for templates. The plain name
// /static/app.js is served too, revalidated on every use (for source maps
// and hand-typed URLs).
package static

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"sort"
	"strings"
	"sync"
	"time"
)

// The pattern "*" takes every entry of this folder (directories
// recursively); Go files and dot files are filtered out below.
//
//go:embed *
var files embed.FS

// FS holds the static files: every file of this folder and its
// subfolders except Go source files and names starting with "." or "_".
var FS fs.FS = filtered{files}

// hashLen is the number of hex digits of the content hash in a name.
const hashLen = 8

// ImmutableCache is the Cache-Control of content-hashed names.
const ImmutableCache = "public, max-age=31536000, immutable"

// asset is one static file.
type asset struct {
	name   string // path relative to the folder, e.g. "app.js"
	hashed string // the content-hashed name, e.g. "app.3f2a1b9c.js"
	etag   string
	ctype  string
	data   []byte
}

var (
	byName   map[string]*asset
	byHashed map[string]*asset
	names    []string
	loadOnce sync.Once
)

// load hashes the files, once, on first use (not at start-up: the
// command-line tools that never serve them do not pay for it).
func load() { loadOnce.Do(loadAssets) }

func loadAssets() {
	byName, byHashed = map[string]*asset{}, map[string]*asset{}
	err := fs.WalkDir(FS, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(FS, p)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(data)
		h := hex.EncodeToString(sum[:])
		a := &asset{name: p, hashed: hashedName(p, h[:hashLen]), etag: `"` + h[:16] + `"`, ctype: contentType(p), data: data}
		byName[p] = a
		byHashed[a.hashed] = a
		names = append(names, p)
		return nil
	})
	if err != nil {
		panic("static: " + err.Error())
	}
	sort.Strings(names)
}

// hashedName inserts the hash before the name's extension:
// "css/site.css" -> "css/site.<hash>.css", "LICENSE" -> "LICENSE.<hash>".
func hashedName(name, hash string) string {
	dir, file := path.Split(name)
	if i := strings.LastIndexByte(file, '.'); i > 0 {
		return dir + file[:i] + "." + hash + file[i:]
	}
	return dir + file + "." + hash
}

// extraTypes covers extensions that Go's built-in table may lack.
var extraTypes = map[string]string{
	".js":    "text/javascript; charset=utf-8",
	".mjs":   "text/javascript; charset=utf-8",
	".css":   "text/css; charset=utf-8",
	".map":   "application/json; charset=utf-8",
	".json":  "application/json; charset=utf-8",
	".svg":   "image/svg+xml",
	".woff2": "font/woff2",
	".woff":  "font/woff",
	".ttf":   "font/ttf",
	".txt":   "text/plain; charset=utf-8",
	".wasm":  "application/wasm",
	".ico":   "image/x-icon",
}

func contentType(name string) string {
	ext := strings.ToLower(path.Ext(name))
	if t, ok := extraTypes[ext]; ok {
		return t
	}
	if t := mime.TypeByExtension(ext); t != "" {
		return t
	}
	return "application/octet-stream"
}

// Path returns the URL of a static file under its content-hashed name,
// e.g. Path("app.js") = "/static/app.3f2a1b9c.js". A name that is not
// embedded gets its plain URL ("/static/name"), which answers 404.
func Path(name string) string {
	load()
	name = strings.TrimPrefix(name, "/")
	if a, ok := byName[name]; ok {
		return "/static/" + a.hashed
	}
	return "/static/" + name
}

// Has reports whether the named file is embedded.
func Has(name string) bool {
	load()
	_, ok := byName[strings.TrimPrefix(name, "/")]
	return ok
}

// Names lists the embedded files, sorted.
func Names() []string {
	load()
	return append([]string(nil), names...)
}

// Handler serves the static files; mount it with the "/static/" prefix
// stripped. Hashed names are cached for a year as immutable; plain names
// must be revalidated (ETag). Anything else goes to notFound (nil: a plain
// 404).
func Handler(notFound http.Handler) http.Handler {
	load()
	if notFound == nil {
		notFound = http.NotFoundHandler()
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		name := strings.TrimPrefix(r.URL.Path, "/")
		a, ok := byHashed[name]
		cache := ImmutableCache
		if !ok {
			if a, ok = byName[name]; !ok {
				notFound.ServeHTTP(w, r)
				return
			}
			cache = "no-cache"
		}
		h := w.Header()
		h.Set("Content-Type", a.ctype)
		h.Set("Cache-Control", cache)
		h.Set("ETag", a.etag)
		http.ServeContent(w, r, a.name, time.Time{}, bytes.NewReader(a.data))
	})
}

// filtered hides Go files and dot/underscore names of an embed.FS.
type filtered struct{ fsys embed.FS }

func hidden(name string) bool {
	if strings.HasSuffix(name, ".go") {
		return true
	}
	for _, part := range strings.Split(name, "/") {
		if strings.HasPrefix(part, ".") || strings.HasPrefix(part, "_") {
			return true
		}
	}
	return false
}

func (f filtered) Open(name string) (fs.File, error) {
	if name != "." && hidden(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	return f.fsys.Open(name)
}

func (f filtered) ReadDir(name string) ([]fs.DirEntry, error) {
	ents, err := f.fsys.ReadDir(name)
	if err != nil {
		return nil, err
	}
	out := ents[:0:0]
	for _, e := range ents {
		if !hidden(e.Name()) {
			out = append(out, e)
		}
	}
	return out, nil
}

func (f filtered) ReadFile(name string) ([]byte, error) {
	if hidden(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	return f.fsys.ReadFile(name)
}
