package web

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"net/http"
	"regexp"
	"strings"

	"github.com/a-h/templ"
)

// The Content-Security-Policy. Scripts come only from this origin (the
// embedded bundle; JSON data blocks are not scripts). Style sheets come
// from this origin, and <style> elements need the request's nonce:
// CodeMirror 6 injects its styles at run time (adopted style sheets where
// the browser has them, else a <style> element that carries the nonce given
// to EditorView.cspNonce, which the page publishes in <meta
// name="csp-nonce">). 'unsafe-inline' is allowed only for style
// attributes (style-src-attr): CodeMirror sets a few with setAttribute
// (e.g. tab-size on its content element); attribute styles cannot add
// selectors or load anything beyond img-src/font-src. The websocket is
// same-origin: 'self' covers it in current browsers, and the explicit
// ws:/wss: source of the request's host covers older ones.
const cspTemplate = "default-src 'self'; " +
	"script-src 'self'; " +
	"style-src 'self' 'nonce-NONCE'; " +
	"style-src-attr 'unsafe-inline'; " +
	"img-src 'self' data:; " +
	"font-src 'self'; " +
	"connect-src 'self'WS; " +
	"object-src 'none'; " +
	"base-uri 'none'; " +
	"form-action 'self'"

// safeHost matches Host headers that may appear in the CSP verbatim.
var safeHost = regexp.MustCompile(`^[A-Za-z0-9.-]+(:[0-9]{1,5})?$|^\[[0-9A-Fa-f:.]+\](:[0-9]{1,5})?$`)

// isEmbedPath reports whether a path belongs to the embed route, the only
// one that may be framed.
func isEmbedPath(p string) bool {
	return p == "/embed" || strings.HasPrefix(p, "/embed/")
}

// newNonce returns a fresh random nonce (128 bits, base64).
func newNonce() string {
	var b [16]byte
	rand.Read(b[:])
	return base64.RawStdEncoding.EncodeToString(b[:])
}

type nonceKey struct{}

// Nonce returns the CSP nonce of the request (for style elements); templ
// components can also use templ.GetNonce(ctx).
func Nonce(ctx context.Context) string {
	s, _ := ctx.Value(nonceKey{}).(string)
	return s
}

// CSP returns the Content-Security-Policy for a response: nonce for style
// elements, host (the request's Host) for the websocket source, and whether
// the page may be framed (only the embed route).
func CSP(nonce, host string, frameable bool) string {
	ws := ""
	if host != "" && safeHost.MatchString(host) {
		ws = " ws://" + host + " wss://" + host
	}
	// Fill the websocket sources first: a random nonce may contain "WS".
	csp := strings.Replace(strings.Replace(cspTemplate, "WS", ws, 1), "NONCE", nonce, 1)
	if !frameable {
		csp += "; frame-ancestors 'none'"
	}
	return csp
}

// securityHeaders sets the CSP (with a fresh nonce, also put in the
// request's context), the frame rules and the other protective headers.
func securityHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		nonce := newNonce()
		frameable := isEmbedPath(r.URL.Path)
		h := w.Header()
		h.Set("Content-Security-Policy", CSP(nonce, r.Host, frameable))
		if !frameable {
			h.Set("X-Frame-Options", "DENY")
		}
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "strict-origin-when-cross-origin")
		h.Set("Cross-Origin-Opener-Policy", "same-origin")
		ctx := context.WithValue(r.Context(), nonceKey{}, nonce)
		ctx = templ.WithNonce(ctx, nonce)
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}
