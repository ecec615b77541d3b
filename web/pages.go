package web

//go:generate go run github.com/a-h/templ/cmd/templ@v0.3.977 generate

import (
	"bytes"
	"fmt"
	"net/http"
	"strings"

	"github.com/a-h/templ"

	"github.com/ptxplayground/ptxplay/sessions/share"
)

// PlaygroundData is what the playground page renders: the page is
// server-rendered with the example already in place, so the UI has no
// empty state to flash.
type PlaygroundData struct {
	// Page is for @Layout(d.Page); App is set, Compact in embed mode.
	Page Page
	// Example is the example the playground opens with (never nil).
	Example *Example
	// Examples lists the gallery, for an example picker.
	Examples []ExampleInfo
	// Compact is the embed mode (/embed/...): editor and state only.
	Compact bool
	// WSPath is the websocket's path ("/ws").
	WSPath string
	// Share is the share link the page opens (Example is then nil).
	Share *sharePayload
}

// playgroundView renders the playground page. web/playground.templ (the
// UI's markup) replaces it from an init function:
//
//	func init() { playgroundView = Playground }
//
// where Playground is `templ Playground(d PlaygroundData)` rendering inside
// @Layout(d.Page). Until then a placeholder shows the example's source.
var playgroundView func(PlaygroundData) templ.Component = placeholderPlayground

// render writes a component as a complete HTML response: it is rendered
// into a buffer first, so a failure gives a clean 500.
func (s *Server) render(w http.ResponseWriter, r *http.Request, status int, c templ.Component) {
	var buf bytes.Buffer
	if err := c.Render(r.Context(), &buf); err != nil {
		s.log.ErrorContext(r.Context(), "render failed", "path", r.URL.Path, "err", err)
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-cache")
	w.WriteHeader(status)
	if r.Method != http.MethodHead {
		w.Write(buf.Bytes())
	}
}

// playgroundData picks the example named by ?example= (or the default).
func (s *Server) playgroundData(name string, compact bool) (PlaygroundData, bool) {
	e := s.examples.Default()
	if name != "" {
		if e = s.examples.Get(name); e == nil {
			return PlaygroundData{}, false
		}
	}
	title := ""
	if e != nil && name != "" {
		title = e.Title
	}
	return PlaygroundData{
		Page:     Page{Title: title, Description: "Write PTX, run it on an emulated NVIDIA GPU and step through it warp by warp.", Current: "playground", App: true, Compact: compact},
		Example:  e,
		Examples: s.infos,
		Compact:  compact,
		WSPath:   "/ws",
	}, true
}

// handlePlayground serves "/" (?example=name picks the example).
func (s *Server) handlePlayground(w http.ResponseWriter, r *http.Request) {
	name := r.URL.Query().Get("example")
	d, ok := s.playgroundData(name, false)
	if !ok {
		s.notFound(w, r, fmt.Sprintf("There is no example named %q.", name))
		return
	}
	s.render(w, r, http.StatusOK, playgroundView(d))
}

// handleEmbed serves "/embed/{name}": the playground in compact mode, the
// one page that other sites may frame. "/embed" and "/embed/" open the
// default example; ?example= works as on "/".
func (s *Server) handleEmbed(w http.ResponseWriter, r *http.Request) {
	name := strings.Trim(strings.TrimPrefix(r.URL.Path, "/embed"), "/")
	if name == "" {
		name = r.URL.Query().Get("example")
	}
	if s.examples.Get(name) == nil && share.ValidID(name) {
		s.serveShare(w, r, name, true)
		return
	}
	d, ok := s.playgroundData(name, true)
	if !ok {
		s.notFound(w, r, fmt.Sprintf("There is no example named %q.", name))
		return
	}
	s.render(w, r, http.StatusOK, playgroundView(d))
}

// handleGallery serves "/gallery".
func (s *Server) handleGallery(w http.ResponseWriter, r *http.Request) {
	s.render(w, r, http.StatusOK, GalleryPage(s.infos))
}

// notFound renders the friendly 404 (message: a specific explanation, or
// "" for an unknown path).
func (s *Server) notFound(w http.ResponseWriter, r *http.Request, message string) {
	s.render(w, r, http.StatusNotFound, NotFoundPage(r.URL.Path, message, isEmbedPath(r.URL.Path)))
}
