// Package web is PTX Playground's HTTP side: the pages (playground,
// examples gallery, embed, 404) rendered with templ, the JSON API
// (/api/examples, /api/isa, /api/fragments, /api/swizzle), the websocket at /ws that connects a browser
// to its session (docs/protocol.md), the embedded static files, /healthz
// and Prometheus metrics at /metrics.
package web

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"runtime/debug"
	"sync"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"
	"github.com/gorilla/websocket"

	"github.com/ptxplayground/ptxplay/engine/isa"
	"github.com/ptxplayground/ptxplay/sessions/share"
	"github.com/ptxplayground/ptxplay/static"
)

// Options configure a Server. Only Sessions is required.
type Options struct {
	// Sessions starts the session behind each websocket.
	Sessions SessionStarter
	// Examples is the gallery (nil: the embedded BuiltinExamples).
	Examples *Examples
	// Metrics records the server's metrics (nil: a fresh NewMetrics()).
	Metrics *Metrics
	// Logger receives request and websocket logs (nil: slog.Default()).
	Logger *slog.Logger
	// WebSocket tunes the websocket connections (zero fields: defaults).
	WebSocket WSOptions
	// Share configures share links (zero: none kept on the server).
	Share ShareOptions
	// SeparateMetrics leaves /metrics out of the main handler; serve
	// MetricsHandler on another address instead.
	SeparateMetrics bool
}

// Server is the playground's HTTP handler.
type Server struct {
	handler  http.Handler
	log      *slog.Logger
	examples *Examples
	metrics  *Metrics
	sessions SessionStarter
	ws       WSOptions
	share    ShareOptions
	// separateMetrics: /metrics only on MetricsHandler.
	separateMetrics bool

	shareLimiter *rateLimiter
	wsLimiter    *rateLimiter // websocket handshakes per client address
	inLimiter    *rateLimiter // bytes of client messages per client address

	// infos is the gallery list, with the lessons' share links.
	infos []ExampleInfo

	// Precomputed JSON responses (the data is fixed for the binary).
	exampleList *jsonDoc
	exampleDocs map[string]*jsonDoc
	isaDoc      *jsonDoc
	fragDoc     *jsonDoc
	wgmmaDocs   *wgmmaDocs

	mu       sync.Mutex
	conns    map[*wsConn]struct{}
	perIP    map[string]int // open websockets per client address
	closing  bool
	connDone sync.WaitGroup
}

// New builds the server and its routes.
func New(o Options) (*Server, error) {
	if o.Sessions == nil {
		return nil, fmt.Errorf("web: no session starter")
	}
	s := &Server{
		log:             o.Logger,
		examples:        o.Examples,
		metrics:         o.Metrics,
		sessions:        o.Sessions,
		ws:              o.WebSocket.withDefaults(),
		share:           o.Share,
		conns:           map[*wsConn]struct{}{},
		separateMetrics: o.SeparateMetrics,
		perIP:           map[string]int{},
	}
	if s.log == nil {
		s.log = slog.Default()
	}
	if s.examples == nil {
		s.examples = BuiltinExamples()
	}
	if s.metrics == nil {
		s.metrics = NewMetrics()
	}
	if s.share.Limits == (share.Limits{}) {
		s.share.Limits = share.DefaultLimits
	}
	s.shareLimiter = newRateLimiter(s.share.PerMinute, s.share.Burst)
	s.wsLimiter = newRateLimiter(s.ws.HandshakesPerMinute, s.ws.HandshakeBurst)
	s.inLimiter = &rateLimiter{rate: float64(s.ws.InboundBytesPerSecond), burst: float64(s.ws.InboundBurstBytes), buckets: map[string]*bucket{}}
	s.infos = s.examples.Infos()
	links := s.seedLessons()
	for i := range s.infos {
		s.infos[i].Link = links[s.infos[i].Name]
	}
	var err error
	if s.exampleList, err = newJSONDoc(s.infos); err != nil {
		return nil, err
	}
	s.exampleDocs = map[string]*jsonDoc{}
	for _, e := range s.examples.List() {
		if s.exampleDocs[e.Name], err = newJSONDoc(e); err != nil {
			return nil, err
		}
	}
	s.wgmmaDocs = newWgmmaDocs()
	if s.fragDoc, err = newJSONDoc(fragmentDoc{Instructions: isa.FragmentTable(), Wgmma: isa.WgmmaFormKeys()}); err != nil {
		return nil, err
	}
	if s.isaDoc, err = newJSONDoc(isaTable()); err != nil {
		return nil, err
	}
	s.handler = s.routes()
	return s, nil
}

// Metrics returns the server's metrics (for wiring the sessions to them).
func (s *Server) Metrics() *Metrics { return s.metrics }

// MetricsHandler serves GET /metrics alone (every other path is 404), for
// a separate metrics address (Options.SeparateMetrics).
func (s *Server) MetricsHandler() http.Handler {
	r := chi.NewRouter()
	r.Use(middleware.RequestID, s.logRequests, s.recoverPanics, middleware.GetHead)
	r.Get("/metrics", s.handleMetrics)
	return r
}

// ServeHTTP serves a request.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.handler.ServeHTTP(w, r) }

// compressible are the content types the gzip middleware compresses.
var compressible = []string{
	"text/html", "text/css", "text/plain", "text/javascript", "application/javascript",
	"application/json", "image/svg+xml",
}

func (s *Server) routes() http.Handler {
	r := chi.NewRouter()
	r.Use(middleware.RequestID, s.logRequests, s.recoverPanics, securityHeaders, middleware.GetHead)
	r.NotFound(func(w http.ResponseWriter, r *http.Request) { s.notFound(w, r, "") })
	r.MethodNotAllowed(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
	})

	// Not compressed: the websocket (hijacked), probes and metrics.
	r.Get("/ws", s.handleWS)
	r.Get("/healthz", s.handleHealth)
	r.Get("/readyz", s.handleReady)
	if !s.separateMetrics {
		r.Get("/metrics", s.handleMetrics)
	}

	r.Group(func(r chi.Router) {
		r.Use(middleware.Compress(5, compressible...))
		r.Get("/", s.handlePlayground)
		r.Get("/gallery", s.handleGallery)
		r.Get("/embed", s.handleEmbed)
		r.Get("/embed/*", s.handleEmbed)
		r.Get("/s/{id}", s.handleSharePage)
		r.Post("/api/share", s.handleShareCreate)
		r.Get("/api/share/{id}", s.handleShareGet)
		r.Get("/api/examples", s.serveDoc(func(*http.Request) *jsonDoc { return s.exampleList }))
		r.Get("/api/examples/{name}", s.serveDoc(func(r *http.Request) *jsonDoc { return s.exampleDocs[chi.URLParam(r, "name")] }))
		r.Get("/api/isa", s.serveDoc(func(*http.Request) *jsonDoc { return s.isaDoc }))
		r.Get("/api/fragments", s.serveDoc(func(*http.Request) *jsonDoc { return s.fragDoc }))
		r.Get("/api/fragments/wgmma/{key}", s.wgmmaDocs.serve(s))
		r.Get("/api/swizzle", s.handleSwizzle)
		r.Handle("/static/*", http.StripPrefix("/static", static.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			s.notFound(w, r, "")
		}))))
		r.Get("/favicon.ico", func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, static.Path("favicon.svg"), http.StatusMovedPermanently)
		})
	})
	return r
}

// handleHealth answers the liveness probe.
func (s *Server) handleHealth(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Type", "text/plain; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	io.WriteString(w, "ok\n")
}

// handleReady answers the readiness probe: the share store (when there is
// one that can be pinged) must answer within two seconds.
func (s *Server) handleReady(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Type", "text/plain; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	if p, ok := s.share.Store.(interface{ Ping(context.Context) error }); ok {
		ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
		defer cancel()
		if err := p.Ping(ctx); err != nil {
			s.log.WarnContext(r.Context(), "readiness: share store", "err", err)
			w.WriteHeader(http.StatusServiceUnavailable)
			io.WriteString(w, "share store unavailable\n")
			return
		}
	}
	io.WriteString(w, "ok\n")
}

// handleMetrics writes the metrics in the Prometheus text format.
func (s *Server) handleMetrics(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	s.metrics.WritePrometheus(w)
}

// jsonDoc is a fixed JSON response with its ETag.
type jsonDoc struct {
	body []byte
	etag string
}

func newJSONDoc(v any) (*jsonDoc, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	b = append(b, '\n')
	sum := sha256.Sum256(b)
	return &jsonDoc{body: b, etag: `"` + hex.EncodeToString(sum[:8]) + `"`}, nil
}

// serveDoc serves the document pick returns (nil: a JSON 404), revalidated
// with its ETag.
func (s *Server) serveDoc(pick func(*http.Request) *jsonDoc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		d := pick(r)
		h := w.Header()
		if d == nil {
			writeJSONError(w, http.StatusNotFound, fmt.Sprintf("no example named %q", chi.URLParam(r, "name")))
			return
		}
		h.Set("Content-Type", "application/json; charset=utf-8")
		h.Set("Cache-Control", "no-cache")
		h.Set("ETag", d.etag)
		if match := r.Header.Get("If-None-Match"); match != "" && match == d.etag {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		if r.Method == http.MethodHead {
			return
		}
		w.Write(d.body)
	}
}

// apiError is every REST error's answer.
type apiError struct {
	Error string `json:"error"`
}

func writeJSONError(w http.ResponseWriter, status int, msg string) {
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	b, _ := json.Marshal(apiError{Error: msg})
	w.Write(append(b, '\n'))
}

// logRequests logs every request (probes and metrics at debug level) with
// its request ID, which it also returns in X-Request-Id.
func (s *Server) logRequests(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		id := middleware.GetReqID(r.Context())
		if id != "" {
			w.Header().Set("X-Request-Id", id)
		}
		ww := middleware.NewWrapResponseWriter(w, r.ProtoMajor)
		next.ServeHTTP(ww, r)
		status := ww.Status()
		switch {
		case status == 0 && websocket.IsWebSocketUpgrade(r):
			status = http.StatusSwitchingProtocols // hijacked: the handshake bypasses ww
		case status == 0:
			status = http.StatusOK // nothing written
		}
		level := slog.LevelInfo
		switch {
		case status >= 500:
			level = slog.LevelError
		case r.URL.Path == "/healthz" || r.URL.Path == "/metrics":
			level = slog.LevelDebug
		}
		s.log.LogAttrs(r.Context(), level, "request",
			slog.String("method", r.Method), slog.String("path", r.URL.Path),
			slog.Int("status", status), slog.Int("bytes", ww.BytesWritten()),
			slog.Duration("duration", time.Since(start)),
			slog.String("remote", r.RemoteAddr), slog.String("request_id", id))
	})
}

// recoverPanics turns a handler's panic into a logged 500.
func (s *Server) recoverPanics(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			rec := recover()
			if rec == nil {
				return
			}
			if rec == http.ErrAbortHandler {
				panic(rec)
			}
			s.log.ErrorContext(r.Context(), "panic", "path", r.URL.Path, "panic", fmt.Sprint(rec),
				"request_id", middleware.GetReqID(r.Context()), "stack", string(debug.Stack()))
			if r.Header.Get("Connection") != "Upgrade" {
				http.Error(w, "internal error", http.StatusInternalServerError)
			}
		}()
		next.ServeHTTP(w, r)
	})
}
