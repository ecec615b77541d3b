package web

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/go-chi/chi/v5"

	"github.com/ptxplayground/ptxplay/sessions/share"
)

// Share links: POST /api/share stores a snapshot (kernel, launch, view and
// optionally a position), GET /api/share/{id} returns it as JSON, /s/{id}
// opens the playground on it and /embed/{id} the read-only player.

// ShareStore keeps share links; *share.Store is one.
type ShareStore interface {
	Put(ctx context.Context, s *share.Snapshot) (id string, created bool, err error)
	Get(ctx context.Context, id string) (*share.Snapshot, error)
	ReadOnly() bool
}

// ShareOptions configure share links.
type ShareOptions struct {
	// Store keeps the links (nil: no server-side links; the UI offers
	// link-only sharing, with the kernel in the URL).
	Store ShareStore
	// Limits bound a snapshot (zero: share.DefaultLimits).
	Limits share.Limits
	// PerMinute and Burst rate-limit POST /api/share per client address
	// (zero: 20 per minute, bursts of 10).
	PerMinute, Burst int
}

// sharePayload is a snapshot as the API and the page return it.
type sharePayload struct {
	ID string `json:"id"`
	*share.Snapshot
	// Lesson is the gallery lesson the snapshot still holds (pages only).
	Lesson *Lesson `json:"lesson,omitempty"`
}

// shareResponse answers POST /api/share.
type shareResponse struct {
	ID      string `json:"id"`
	URL     string `json:"url"`
	Embed   string `json:"embed"`
	Created bool   `json:"created"`
}

func (s *Server) handleShareCreate(w http.ResponseWriter, r *http.Request) {
	st := s.share.Store
	if st == nil {
		writeJSONError(w, http.StatusServiceUnavailable, "This server keeps no share links; use a link-only share (the kernel travels in the URL).")
		return
	}
	if st.ReadOnly() {
		writeJSONError(w, http.StatusServiceUnavailable, "This server's share links are read-only just now; use a link-only share (the kernel travels in the URL).")
		return
	}
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		writeJSONError(w, http.StatusUnsupportedMediaType, "send the snapshot as application/json")
		return
	}
	if wait, ok := s.shareLimiter.allow(s.clientKey(r), time.Now()); !ok {
		w.Header().Set("Retry-After", strconv.Itoa(int(wait.Seconds())+1))
		writeJSONError(w, http.StatusTooManyRequests, fmt.Sprintf("Too many share links from your address; try again in %d seconds.", int(wait.Seconds())+1))
		return
	}
	limit := s.share.Limits.MaxEncodedBytes()
	if r.ContentLength > limit {
		writeJSONError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("The snapshot is %d bytes; a share link holds at most %d (the PTX and the CUDA source at most %d each).", r.ContentLength, limit, s.share.Limits.MaxSourceBytes))
		return
	}
	snap, err := share.Decode(http.MaxBytesReader(w, r.Body, limit), s.share.Limits)
	if err != nil {
		var mb *http.MaxBytesError
		switch {
		case errors.As(err, &mb):
			writeJSONError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("The snapshot is larger than %d bytes, the most a share link holds (the PTX and the CUDA source at most %d each).", limit, s.share.Limits.MaxSourceBytes))
		case share.IsInvalid(err):
			writeJSONError(w, http.StatusBadRequest, err.Error())
		default:
			writeJSONError(w, http.StatusBadRequest, "could not read the snapshot: "+err.Error())
		}
		return
	}
	id, created, err := st.Put(r.Context(), snap)
	if err != nil {
		s.log.ErrorContext(r.Context(), "share: put failed", "err", err)
		if errors.Is(err, share.ErrReadOnly) {
			writeJSONError(w, http.StatusServiceUnavailable, "This server's share links are read-only just now.")
			return
		}
		writeJSONError(w, http.StatusServiceUnavailable, "The link could not be saved just now; try again.")
		return
	}
	s.metrics.shareCreated(created)
	status := http.StatusOK
	if created {
		status = http.StatusCreated
	}
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("Location", "/s/"+id)
	w.WriteHeader(status)
	b, _ := json.Marshal(shareResponse{ID: id, URL: "/s/" + id, Embed: "/embed/" + id, Created: created})
	w.Write(append(b, '\n'))
}

// loadShare fetches the link named in the URL; it answers the request
// itself (404 or 503) and returns nil when there is nothing to show.
func (s *Server) loadShare(w http.ResponseWriter, r *http.Request, id string, page bool) *sharePayload {
	fail := func(status int, msg string) {
		if page {
			if status == http.StatusNotFound {
				s.render(w, r, status, ShareNotFoundPage(id, isEmbedPath(r.URL.Path)))
				return
			}
			http.Error(w, msg, status)
			return
		}
		writeJSONError(w, status, msg)
	}
	if s.share.Store == nil {
		fail(http.StatusNotFound, "This server keeps no share links.")
		return nil
	}
	if !share.ValidID(id) {
		fail(http.StatusNotFound, fmt.Sprintf("There is no share link %q.", id))
		return nil
	}
	snap, err := s.share.Store.Get(r.Context(), id)
	if errors.Is(err, share.ErrNotFound) {
		fail(http.StatusNotFound, fmt.Sprintf("There is no share link %q.", id))
		return nil
	}
	if err != nil {
		s.log.ErrorContext(r.Context(), "share: get failed", "id", id, "err", err)
		fail(http.StatusServiceUnavailable, "The link could not be read just now; try again.")
		return nil
	}
	s.metrics.shareOpened()
	return &sharePayload{ID: id, Snapshot: snap}
}

func (s *Server) handleShareGet(w http.ResponseWriter, r *http.Request) {
	p := s.loadShare(w, r, chi.URLParam(r, "id"), false)
	if p == nil {
		return
	}
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	// A link never changes.
	h.Set("Cache-Control", "public, max-age=31536000, immutable")
	b, _ := json.Marshal(p)
	w.Write(append(b, '\n'))
}

// handleSharePage serves /s/{id}: the playground opened on the link.
func (s *Server) handleSharePage(w http.ResponseWriter, r *http.Request) {
	s.serveShare(w, r, chi.URLParam(r, "id"), false)
}

func (s *Server) serveShare(w http.ResponseWriter, r *http.Request, id string, compact bool) {
	p := s.loadShare(w, r, id, true)
	if p == nil {
		return
	}
	d, _ := s.playgroundData("", compact)
	d.Example = nil
	p.Lesson = s.lessonFor(p.Snapshot)
	d.Share = p
	d.Page.Title = shareTitle(p.Snapshot)
	d.Page.Description = shareDescription(p.Snapshot)
	d.Page.OG = &OpenGraph{URL: absoluteURL(r, "/s/"+id), Type: "website"}
	s.render(w, r, http.StatusOK, playgroundView(d))
}

// shareTitle is a link's title: its own, else the kernel's name.
// Labels are shown without bidirectional formatting characters, which
// could make a preview read differently (links stored before they were
// refused may hold them).
func shareTitle(sn *share.Snapshot) string {
	if t := strings.TrimSpace(share.StripBidi(sn.Title)); t != "" {
		return t
	}
	if e := specEntry(sn); e != "" {
		return shareLang(sn) + " kernel " + e
	}
	return "Shared " + shareLang(sn) + " kernel"
}

// shareDescription is the one line a link preview shows.
func shareDescription(sn *share.Snapshot) string {
	if d := strings.TrimSpace(share.StripBidi(sn.Description)); d != "" {
		return firstLine(d, 200)
	}
	var sp struct {
		Entry string `json:"entry"`
		Grid  []int  `json:"grid"`
		Block []int  `json:"block"`
	}
	_ = json.Unmarshal(sn.Spec, &sp)
	dims := func(v []int) string {
		var parts []string
		for _, x := range v {
			parts = append(parts, strconv.Itoa(x))
		}
		if len(parts) == 0 {
			return "1"
		}
		return strings.Join(parts, "×")
	}
	text := sn.Source
	if sn.CUDA != nil {
		text = sn.CUDA.Source
	}
	lines := strings.Count(text, "\n") + 1
	d := fmt.Sprintf("A %s kernel (%d lines) launched on grid %s · block %s", shareLang(sn), lines, dims(sp.Grid), dims(sp.Block))
	if sn.Step > 0 {
		d += fmt.Sprintf(", opened at warp-instruction %d", sn.Step)
	}
	return d + ": step through it warp by warp in PTX Playground."
}

// shareLang names the language a shared kernel is written in.
func shareLang(sn *share.Snapshot) string {
	if sn.CUDA != nil {
		return "CUDA"
	}
	return "PTX"
}

// shareFile is the name of the file a shared kernel shows under, as the
// UI names it (ui/app.ts baseName): the file it was imported as (the
// view's "file"), else the gallery example it came from when this gallery
// has it, else its entry kernel; ".cu" for a CUDA kernel, else ".ptx".
func shareFile(sn *share.Snapshot, examples []ExampleInfo) string {
	ext := ".ptx"
	if sn.CUDA != nil {
		ext = ".cu"
	}
	var v struct {
		File string `json:"file"`
	}
	_ = json.Unmarshal(sn.View, &v)
	if f := cleanFileName(v.File); f != "" {
		return fileExt.ReplaceAllString(f, "") + ext
	}
	if e := shareExample(sn, examples); e != "" {
		return e + ext
	}
	if e := specEntry(sn); e != "" {
		return e + ext
	}
	return "shared" + ext
}

// shareExample is the gallery example a shared kernel came from, when this
// gallery has it (the example menu shows it).
func shareExample(sn *share.Snapshot, examples []ExampleInfo) string {
	for _, e := range examples {
		if sn.Example != "" && e.Name == sn.Example {
			return e.Name
		}
	}
	return ""
}

// fileExt is a file name's extension, as the UI drops it.
var fileExt = regexp.MustCompile(`\.\w+$`)

// cleanFileName is a file name from a link without control and
// bidirectional formatting characters and path separators (as
// ui/viewstate.ts parseFileName), or "" when none is left or it is longer
// than 200 characters.
func cleanFileName(f string) string {
	f = strings.TrimSpace(strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || r == '/' || r == '\\' || share.IsBidiControl(r) {
			return -1
		}
		return r
	}, f))
	if utf8.RuneCountInString(f) > 200 {
		return ""
	}
	return f
}

func specEntry(sn *share.Snapshot) string {
	var sp struct {
		Entry string `json:"entry"`
	}
	_ = json.Unmarshal(sn.Spec, &sp)
	return sp.Entry
}

func firstLine(s string, max int) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if r := []rune(s); len(r) > max {
		s = string(r[:max-1]) + "…"
	}
	return s
}

// absoluteURL makes path absolute for link previews, from the request's
// host (and X-Forwarded-Proto behind a TLS-terminating proxy).
func absoluteURL(r *http.Request, path string) string {
	scheme := "http"
	if r.TLS != nil || r.Header.Get("X-Forwarded-Proto") == "https" {
		scheme = "https"
	}
	host := r.Host
	if !safeHost.MatchString(host) {
		return path
	}
	return scheme + "://" + host + path
}

// clientKey is the address a client is counted under, by every
// per-address limit (share links, websocket handshakes, open sessions and
// the sessions manager's share of places): the client's IP address
// (clientIP), an IPv6 address by its /64 (one subscriber's network: a
// client that can pick any address of its /64 counts once).
func (s *Server) clientKey(r *http.Request) string { return addrKey(s.clientIP(r)) }

// clientIP is the client's address: from TrustedProxyHeader when set and
// it holds an IP address (the last of a list: the one the proxy added),
// else the connection's peer host.
func (s *Server) clientIP(r *http.Request) string {
	if h := s.ws.TrustedProxyHeader; h != "" {
		if v := r.Header.Values(h); len(v) > 0 {
			parts := strings.Split(v[len(v)-1], ",")
			if a := strings.TrimSpace(parts[len(parts)-1]); net.ParseIP(a) != nil {
				return a
			}
		}
	}
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// addrKey is the key of address a: an IPv4 address (also one written as
// IPv4-mapped IPv6) as itself, an IPv6 address as its /64 ("2001:db8::/64"),
// anything else as it is.
func addrKey(a string) string {
	ip := net.ParseIP(a)
	if ip == nil {
		return a
	}
	if v4 := ip.To4(); v4 != nil {
		return v4.String()
	}
	return ip.Mask(net.CIDRMask(64, 128)).String() + "/64"
}

// rateLimiter is a token bucket per client, bounded in size: when it holds
// maxClients buckets, full ones are dropped (a full bucket is the state a
// new client starts in, so nothing is lost).
type rateLimiter struct {
	mu      sync.Mutex
	rate    float64 // tokens per second
	burst   float64
	buckets map[string]*bucket
}

type bucket struct {
	tokens float64
	last   time.Time
}

const maxClients = 10000

func newRateLimiter(perMinute, burst int) *rateLimiter {
	if perMinute <= 0 {
		perMinute = 20
	}
	if burst <= 0 {
		burst = 10
	}
	return &rateLimiter{rate: float64(perMinute) / 60, burst: float64(burst), buckets: map[string]*bucket{}}
}

// allow takes a token for key, or says how long until one is available.
func (l *rateLimiter) allow(key string, now time.Time) (time.Duration, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	b := l.refill(key, now)
	if b.tokens >= 1 {
		b.tokens--
		return 0, true
	}
	return time.Duration((1 - b.tokens) / l.rate * float64(time.Second)), false
}

// refill returns key's bucket (a new one full), refilled up to now; l.mu
// is held.
func (l *rateLimiter) refill(key string, now time.Time) *bucket {
	b := l.buckets[key]
	if b == nil {
		if len(l.buckets) >= maxClients {
			l.prune(now)
		}
		b = &bucket{tokens: l.burst, last: now}
		l.buckets[key] = b
	}
	b.tokens = min(l.burst, b.tokens+now.Sub(b.last).Seconds()*l.rate)
	b.last = now
	return b
}

// take takes n tokens for key, going into debt if it must, and returns
// how long the caller should wait for the debt to be paid back (0: none).
// (A byte-rate limiter: its tokens are bytes.)
func (l *rateLimiter) take(key string, n int, now time.Time) time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	b := l.refill(key, now)
	b.tokens -= float64(n)
	if b.tokens >= 0 {
		return 0
	}
	return time.Duration(-b.tokens / l.rate * float64(time.Second))
}

// prune drops the buckets that have refilled; if none has, the oldest half.
func (l *rateLimiter) prune(now time.Time) {
	full := time.Duration(l.burst / l.rate * float64(time.Second))
	for k, b := range l.buckets {
		if now.Sub(b.last) >= full {
			delete(l.buckets, k)
		}
	}
	if len(l.buckets) < maxClients {
		return
	}
	var cut time.Time
	n := 0
	for _, b := range l.buckets {
		if n == 0 || b.last.Before(cut) {
			cut = b.last
		}
		n++
	}
	// Drop everything older than the midpoint between the oldest and now.
	mid := cut.Add(now.Sub(cut) / 2)
	for k, b := range l.buckets {
		if b.last.Before(mid) || b.last.Equal(cut) {
			delete(l.buckets, k)
		}
	}
}
