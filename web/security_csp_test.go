package web

import (
	"strings"
	"testing"
)

// A nonce that happens to contain the websocket placeholder's letters must
// not be rewritten.
func TestCSPNonceWithPlaceholderText(t *testing.T) {
	const nonce = "akWSKjQ8d1rAI6ez/1GZYA"
	csp := CSP(nonce, "127.0.0.1:8080", false)
	for _, want := range []string{"'nonce-" + nonce + "'", "connect-src 'self' ws://127.0.0.1:8080 wss://127.0.0.1:8080;"} {
		if !strings.Contains(csp, want) {
			t.Errorf("CSP lacks %q:\n%s", want, csp)
		}
	}
}
