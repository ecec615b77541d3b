package web

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"sync"
	"time"

	"github.com/go-chi/chi/v5/middleware"
	"github.com/gorilla/websocket"
)

// SessionStarter starts the session behind a websocket connection (the
// sessions manager, wired in cmd/ptxplay through SessionsFrom).
type SessionStarter interface {
	// StartSession creates the session of a new connection from the
	// client address client (Server.clientKey: an IPv6 client by its
	// /64). An error refuses it: the client gets an `error` message (the
	// error's Frame() if it has one, else code "busy") and the socket is
	// closed.
	StartSession(ctx context.Context, client string) (Session, error)
}

// Session is one connection's session as the websocket drives it
// (*sessions.Session).
type Session interface {
	// Submit hands over one client message (a whole websocket message). It
	// does not block; replies, including `error` replies to malformed
	// messages, come out of Take.
	Submit(raw []byte)
	// Ready is signalled when Take has something: messages, or the end.
	Ready() <-chan struct{}
	// Take removes and returns the queued messages in order; more is false
	// once the session has ended and everything was taken.
	Take() (msgs [][]byte, more bool)
	// Close ends the session.
	Close()
}

// inboundCharger is implemented by sessions that charge the bytes of a
// client message from the moment they are read (sessions.Session): the
// read pump reserves them as they arrive and hands the message over with
// SubmitReserved, or releases them; a message whose bytes the session
// will not hold is skipped and answered with error "limit".
type inboundCharger interface {
	ReserveInbound(n int64) bool
	ReleaseInbound(n int64)
	SubmitReserved(raw []byte)
}

// chargedBuffer is a message's buffer whose growth is reserved with the
// session first; a refused reservation stops the copy (errInboundFull).
// (Not an embedded bytes.Buffer: io.Copy would use its ReadFrom and
// bypass Write.)
type chargedBuffer struct {
	b        bytes.Buffer
	ch       inboundCharger
	reserved int64
}

var errInboundFull = errors.New("inbound bytes over the session's limit")

func (b *chargedBuffer) Write(p []byte) (int, error) {
	if b.ch != nil {
		if !b.ch.ReserveInbound(int64(len(p))) {
			return 0, errInboundFull
		}
		b.reserved += int64(len(p))
	}
	return b.b.Write(p)
}

func (b *chargedBuffer) Bytes() []byte { return b.b.Bytes() }
func (b *chargedBuffer) Len() int      { return b.b.Len() }

// release gives back what was reserved (the message is not submitted).
func (b *chargedBuffer) release() {
	if b.ch != nil && b.reserved > 0 {
		b.ch.ReleaseInbound(b.reserved)
	}
	b.reserved = 0
}

// framer is implemented by StartSession errors that render themselves as
// a protocol `error` message (sessions.Error).
type framer interface{ Frame() []byte }

// WSOptions tune the websocket connections.
type WSOptions struct {
	// MaxMessageBytes bounds a client message. A larger one is skipped
	// (not buffered) and answered with a "too-large" error; the connection
	// stays. Default 4 MiB.
	MaxMessageBytes int64
	// PongWait is how long the server waits for any frame (pongs answer
	// its pings) before it drops the connection. Default 60s.
	PongWait time.Duration
	// PingPeriod is the interval of pings; default 9/10 of PongWait.
	PingPeriod time.Duration
	// WriteWait bounds each write to the client. Default 10s.
	WriteWait time.Duration
	// MaxSessionsPerIP bounds the open websockets of one client address
	// (an IPv6 client by its /64); beyond it a connection is closed with
	// code 1008 ("too many sessions from your address"). Default 128: a
	// class of 60 behind one NAT address, each with a tab or two, and
	// half of the default sessions.MaxSessions.
	MaxSessionsPerIP int
	// HandshakesPerMinute and HandshakeBurst rate-limit websocket
	// handshakes per client address (token bucket); a handshake over the
	// rate is closed with code 1008. Defaults 120 per minute, bursts of
	// 60 (a class connecting at once).
	HandshakesPerMinute, HandshakeBurst int
	// InboundBytesPerSecond and InboundBurstBytes bound the rate at which
	// the server reads client messages from one client address, all its
	// websockets together (a token bucket of bytes): past it the server
	// stops reading from those sockets until the bucket refills, so TCP
	// holds the sender back and a client that writes without end costs
	// neither memory nor CPU. Defaults 4 MiB/s in bursts of 16 MiB (sixteen
	// of the largest loads at once; a class behind one address loads
	// kernels of kilobytes).
	InboundBytesPerSecond, InboundBurstBytes int64
	// TrustedProxyHeader names a header set by a trusted reverse proxy
	// that carries the client address (e.g. "X-Forwarded-For": its last
	// address is used; "X-Real-IP"). Empty (the default): the connection's
	// peer address; never set it when clients reach the server directly.
	TrustedProxyHeader string
}

// The defaults of WSOptions' per-address limits.
const (
	DefaultMaxSessionsPerIP      = 128
	DefaultHandshakesPerMinute   = 120
	DefaultHandshakeBurst        = 60
	DefaultInboundBytesPerSecond = 4 << 20
	DefaultInboundBurstBytes     = 16 << 20
)

func (o WSOptions) withDefaults() WSOptions {
	if o.InboundBytesPerSecond <= 0 {
		o.InboundBytesPerSecond = DefaultInboundBytesPerSecond
	}
	if o.InboundBurstBytes <= 0 {
		o.InboundBurstBytes = DefaultInboundBurstBytes
	}
	if o.MaxMessageBytes <= 0 {
		o.MaxMessageBytes = 4 << 20
	}
	if o.PongWait <= 0 {
		o.PongWait = 60 * time.Second
	}
	if o.PingPeriod <= 0 || o.PingPeriod >= o.PongWait {
		o.PingPeriod = o.PongWait * 9 / 10
	}
	if o.WriteWait <= 0 {
		o.WriteWait = 10 * time.Second
	}
	if o.MaxSessionsPerIP <= 0 {
		o.MaxSessionsPerIP = DefaultMaxSessionsPerIP
	}
	if o.HandshakesPerMinute <= 0 {
		o.HandshakesPerMinute = DefaultHandshakesPerMinute
	}
	if o.HandshakeBurst <= 0 {
		o.HandshakeBurst = DefaultHandshakeBurst
	}
	return o
}

// hardReadLimit is gorilla's read limit: far above MaxMessageBytes (which
// the read pump enforces itself by skipping), it only guards against a
// single endless frame.
const hardReadLimit = 1 << 30

var upgrader = websocket.Upgrader{
	ReadBufferSize:  4096,
	WriteBufferSize: 16384,
	// The default origin check: the Origin header, when present, must be
	// this host (the playground and the embed page are same-origin).
}

// wsConn is one websocket connection and its session.
type wsConn struct {
	s        *Server
	c        *websocket.Conn
	sess     Session
	local    chan []byte   // replies of the server itself (too-large, ...)
	shutdown chan struct{} // closed by Server.CloseWebsockets
	readDone chan struct{} // closed when the read pump ends
	reqID    string
	key      string // the client's address key (Server.clientKey)
	in, out  int64
}

// pacedReader reads a client message at the rate its address may send
// (WSOptions.InboundBytesPerSecond): after each chunk it waits until the
// address's bucket has paid for it, not reading meanwhile.
type pacedReader struct {
	r  io.Reader
	wc *wsConn
}

func (p pacedReader) Read(b []byte) (int, error) {
	n, err := p.r.Read(b)
	if n > 0 {
		p.wc.pace(n)
	}
	return n, err
}

// pace waits as long as the address's inbound byte bucket says for n
// more bytes (not past the server's shutdown), then pushes the read
// deadline on by the pong wait: a client held back is not a dead one.
func (wc *wsConn) pace(n int) {
	d := wc.s.inLimiter.take(wc.key, n, time.Now())
	if d <= 0 {
		return
	}
	wc.s.metrics.inboundPaced(d)
	t := time.NewTimer(d)
	select {
	case <-t.C:
	case <-wc.shutdown:
		t.Stop()
	}
	wc.c.SetReadDeadline(time.Now().Add(wc.s.ws.PongWait))
}

// handleWS upgrades /ws and runs the read and write pumps of the
// connection's session.
func (s *Server) handleWS(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	closing := s.closing
	if !closing {
		s.connDone.Add(1)
	}
	s.mu.Unlock()
	if closing {
		http.Error(w, "server shutting down", http.StatusServiceUnavailable)
		return
	}
	defer s.connDone.Done()

	c, err := upgrader.Upgrade(w, r, nil)
	if err != nil {
		// Upgrade has answered the request.
		s.log.InfoContext(r.Context(), "websocket upgrade failed", "err", err, "request_id", middleware.GetReqID(r.Context()))
		return
	}
	s.metrics.wsOpened()
	defer s.metrics.wsClosed()
	start := time.Now()
	reqID := middleware.GetReqID(r.Context())

	// Per-client limits, checked after the upgrade so that the client
	// gets the reason (a browser cannot read a refused handshake's status).
	ip := s.clientKey(r)
	if wait, ok := s.wsLimiter.allow(ip, time.Now()); !ok {
		msg := fmt.Sprintf("too many connections from your address; try again in %v", wait.Round(time.Second)+time.Second)
		s.refuse(r, c, "handshake-rate", errorMessage("limit", msg, -1), websocket.ClosePolicyViolation, "too many connections from your address", ip)
		return
	}
	if !s.addIP(ip) {
		msg := fmt.Sprintf("your address has %d sessions open, the most one address may; close one first", s.ws.MaxSessionsPerIP)
		s.refuse(r, c, "sessions-per-ip", errorMessage("limit", msg, -1), websocket.ClosePolicyViolation, "too many sessions from your address", ip)
		return
	}
	defer s.removeIP(ip)

	// The session outlives the request's context only as long as the
	// connection: use a detached context that we cancel ourselves.
	ctx, cancel := context.WithCancel(context.WithoutCancel(r.Context()))
	defer cancel()
	sess, err := s.sessions.StartSession(ctx, ip)
	if err != nil {
		frame := errorMessage("busy", err.Error(), -1)
		var f framer
		if errors.As(err, &f) {
			frame = f.Frame()
		}
		s.metrics.sessionRejected()
		s.refuse(r, c, "", frame, websocket.CloseTryAgainLater, err.Error(), ip)
		return
	}
	wc := &wsConn{s: s, c: c, sess: sess, local: make(chan []byte, 8), shutdown: make(chan struct{}),
		readDone: make(chan struct{}), reqID: reqID, key: ip}
	s.metrics.sessionStarted()
	if !s.track(wc) {
		close(wc.shutdown)
	}
	s.log.InfoContext(r.Context(), "websocket open", "remote", r.RemoteAddr, "request_id", reqID)

	go wc.readPump()
	why := wc.writePump()
	sess.Close()
	c.Close()
	<-wc.readDone
	s.untrack(wc)
	s.log.InfoContext(r.Context(), "websocket closed", "reason", why, "duration", time.Since(start),
		"messages_in", wc.in, "messages_out", wc.out, "request_id", reqID)
}

// refuse sends a refused websocket its error message and a close frame
// with code and reason, and closes it; limit names the per-client limit
// (metrics) if one refused it.
func (s *Server) refuse(r *http.Request, c *websocket.Conn, limit string, frame []byte, code int, reason, ip string) {
	if limit != "" {
		s.metrics.wsRefused(limit)
		s.metrics.errorReply("limit")
	}
	c.SetWriteDeadline(time.Now().Add(s.ws.WriteWait))
	c.WriteMessage(websocket.TextMessage, frame)
	c.WriteMessage(websocket.CloseMessage, websocket.FormatCloseMessage(code, truncate(reason, 120)))
	c.Close()
	s.log.InfoContext(r.Context(), "websocket refused", "reason", reason, "remote", ip, "request_id", middleware.GetReqID(r.Context()))
}

// addIP counts an open websocket of ip; false if ip has MaxSessionsPerIP.
func (s *Server) addIP(ip string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.perIP[ip] >= s.ws.MaxSessionsPerIP {
		return false
	}
	s.perIP[ip]++
	return true
}

func (s *Server) removeIP(ip string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.perIP[ip]--; s.perIP[ip] <= 0 {
		delete(s.perIP, ip)
	}
}

// closeReasoner is implemented by sessions that end on their own with a
// reason (sessions.Session: idle, no program loaded, a client that does
// not read).
type closeReasoner interface{ CloseReason() string }

func (s *Server) track(wc *wsConn) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing {
		return false
	}
	s.conns[wc] = struct{}{}
	return true
}

func (s *Server) untrack(wc *wsConn) {
	s.mu.Lock()
	delete(s.conns, wc)
	s.mu.Unlock()
}

// CloseWebsockets refuses new websockets, sends every open one a close
// frame ("going away"), ends their sessions and waits until their handlers
// have returned or ctx ends. Call it when the HTTP server shuts down
// (http.Server.Shutdown does not wait for hijacked connections).
func (s *Server) CloseWebsockets(ctx context.Context) error {
	s.mu.Lock()
	if !s.closing {
		s.closing = true
		for wc := range s.conns {
			close(wc.shutdown)
		}
	}
	s.mu.Unlock()
	done := make(chan struct{})
	go func() {
		s.connDone.Wait()
		close(done)
	}()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		// Force the stragglers (a client that does not answer).
		s.mu.Lock()
		for wc := range s.conns {
			wc.c.Close()
		}
		s.mu.Unlock()
		return ctx.Err()
	}
}

// readPump reads client messages and hands them to the session.
func (wc *wsConn) readPump() {
	defer close(wc.readDone)
	c := wc.c
	pongWait := wc.s.ws.PongWait
	c.SetReadLimit(hardReadLimit)
	c.SetReadDeadline(time.Now().Add(pongWait))
	c.SetPongHandler(func(string) error { return c.SetReadDeadline(time.Now().Add(pongWait)) })
	limit := wc.s.ws.MaxMessageBytes
	charger, _ := wc.sess.(inboundCharger)
	for {
		mt, r, err := c.NextReader()
		if err != nil {
			return
		}
		c.SetReadDeadline(time.Now().Add(pongWait))
		r = pacedReader{r: r, wc: wc}
		buf := &chargedBuffer{ch: charger}
		n, err := io.Copy(buf, io.LimitReader(r, limit+1))
		full := errors.Is(err, errInboundFull)
		if err != nil && !full {
			buf.release()
			return
		}
		wc.in++
		wc.s.metrics.messageIn()
		if n > limit || full {
			// Skip the rest without keeping it, but remember its end:
			// the client's id is usually the last member.
			tail := &tailBuffer{keep: 64}
			tail.Write(buf.Bytes()[max(0, buf.Len()-64):])
			buf.release()
			if _, err := io.Copy(tail, r); err != nil {
				return
			}
			if full {
				wc.reply("limit", "too many bytes of messages are waiting for this session; this one was dropped", trailingID(tail.b))
			} else {
				wc.reply("too-large", fmt.Sprintf("message too large: more than %d bytes", limit), trailingID(tail.b))
			}
			continue
		}
		if mt != websocket.TextMessage {
			buf.release()
			wc.reply("bad-request", "messages must be JSON text frames, not binary", -1)
			continue
		}
		if charger != nil {
			charger.SubmitReserved(buf.Bytes())
		} else {
			wc.sess.Submit(buf.Bytes())
		}
	}
}

// writePump writes the session's messages and the server's own replies,
// and pings the client. It returns why the connection ended.
func (wc *wsConn) writePump() string {
	c := wc.c
	ww := wc.s.ws.WriteWait
	ticker := time.NewTicker(wc.s.ws.PingPeriod)
	defer ticker.Stop()
	write := func(msg []byte) bool {
		c.SetWriteDeadline(time.Now().Add(ww))
		if err := c.WriteMessage(websocket.TextMessage, msg); err != nil {
			return false
		}
		wc.out++
		wc.s.metrics.messageOut()
		return true
	}
	// drain writes what the session has queued; false: stop (the session
	// ended or a write failed; why says which).
	var why string
	drain := func() bool {
		msgs, more := wc.sess.Take()
		for _, msg := range msgs {
			if !write(msg) {
				why = "write failed"
				return false
			}
		}
		if !more {
			why = "session ended"
			return false
		}
		return true
	}
	closeWith := func(code int, text string) {
		c.SetWriteDeadline(time.Now().Add(ww))
		if c.WriteMessage(websocket.CloseMessage, websocket.FormatCloseMessage(code, text)) == nil {
			// Give the client a moment to answer the close frame.
			select {
			case <-wc.readDone:
			case <-time.After(time.Second):
			}
		}
	}
	for {
		select {
		case <-wc.sess.Ready():
			if !drain() {
				if why == "session ended" {
					code, text := websocket.CloseNormalClosure, "session ended"
					if cr, ok := wc.sess.(closeReasoner); ok {
						if r := cr.CloseReason(); r != "" {
							code, text = websocket.ClosePolicyViolation, r
							why = "session ended: " + r
						}
					}
					closeWith(code, text)
				}
				return why
			}
		case msg := <-wc.local:
			if !write(msg) {
				return "write failed"
			}
		case <-ticker.C:
			c.SetWriteDeadline(time.Now().Add(ww))
			if err := c.WriteMessage(websocket.PingMessage, nil); err != nil {
				return "ping failed"
			}
		case <-wc.shutdown:
			// Flush what the session already queued, then say goodbye.
			if drain() || why == "session ended" {
				closeWith(websocket.CloseGoingAway, "server shutting down")
			}
			return "server shutdown"
		case <-wc.readDone:
			return "client closed"
		}
	}
}

// reply queues an error message of the server itself (never blocks: when
// the small queue is full the reply is dropped).
func (wc *wsConn) reply(code, message string, id int64) {
	wc.s.metrics.errorReply(code)
	select {
	case wc.local <- errorMessage(code, message, id):
	default:
	}
}

// errorMessage is a protocol `error` message (id < 0: none).
func errorMessage(code, message string, id int64) []byte {
	m := struct {
		Type    string `json:"type"`
		ID      *int64 `json:"id,omitempty"`
		Code    string `json:"code"`
		Message string `json:"message"`
	}{Type: "error", Code: code, Message: message}
	if id >= 0 {
		m.ID = &id
	}
	b, _ := json.Marshal(m)
	return b
}

// idAtEnd is compiled on first use: the command-line tools link this
// package and would otherwise pay for it at every start.
var idAtEnd = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`"id"\s*:\s*([0-9]{1,15})\s*}\s*$`)
})

// trailingID finds a message's id when it is the last member of the JSON
// object (as the UI sends it); -1 if not.
func trailingID(tail []byte) int64 {
	m := idAtEnd().FindSubmatch(tail)
	if m == nil {
		return -1
	}
	id, err := strconv.ParseInt(string(m[1]), 10, 64)
	if err != nil {
		return -1
	}
	return id
}

// tailBuffer keeps the last keep bytes written to it.
type tailBuffer struct {
	b    []byte
	keep int
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	n := len(p)
	if len(p) >= t.keep {
		t.b = append(t.b[:0], p[len(p)-t.keep:]...)
		return n, nil
	}
	t.b = append(t.b, p...)
	if len(t.b) > t.keep {
		t.b = append(t.b[:0], t.b[len(t.b)-t.keep:]...)
	}
	return n, nil
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n]
}
