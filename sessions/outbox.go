package sessions

import (
	"context"
	"io"
	"sync"
)

// outbox is a session's outbound side. The session goroutine pushes
// encoded messages and never blocks: ordinary replies go to a FIFO bounded
// by bytes (a client that lets it overflow is disconnected), and run frames
// are produced only while no earlier frame waits in the queue, so a slow
// client gets fewer, later frames (each a delta against the previous frame,
// which it has by then received) instead of a growing backlog. The web
// write pump drains it with Ready/Take (or Next).
type outbox struct {
	mu      sync.Mutex
	q       [][]byte
	frame   []bool // frame[i]: q[i] is a run frame
	frames  int    // run frames in q
	bytes   int
	max     int
	closed  bool
	overrun bool
	signal  chan struct{} // capacity 1: something was pushed or the box closed
	// ch is charged the queued bytes (chargeOutbound) until the box
	// closes: what remains then is the session's last words, freed with
	// it.
	ch *charge
}

func newOutbox(max int) *outbox { return &outbox{max: max, signal: make(chan struct{}, 1)} }

func (o *outbox) notify() {
	select {
	case o.signal <- struct{}{}:
	default:
	}
}

// setBytes makes the queued bytes n, charging the difference.
func (o *outbox) setBytes(n int) {
	if o.ch != nil && !o.closed {
		o.ch.add(chargeOutbound, int64(n-o.bytes))
	}
	o.bytes = n
}

// push appends msg; it reports false (and drops msg) when the queue would
// exceed its bound (a message larger than the bound never fits, even in
// an empty queue) or the box is closed.
func (o *outbox) push(msg []byte, frame bool) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.closed || o.overrun {
		return false
	}
	if len(msg) > o.max-o.bytes {
		o.overrun = true
		return false
	}
	o.q = append(o.q, msg)
	o.frame = append(o.frame, frame)
	o.setBytes(o.bytes + len(msg))
	if frame {
		o.frames++
	}
	o.notify()
	return true
}

// framePending reports whether a run frame waits to be taken.
func (o *outbox) framePending() bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.frames > 0
}

// overflowed reports whether a push was refused for lack of room.
func (o *outbox) overflowed() bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.overrun
}

// replaceAll drops everything queued and queues msg (used to tell a client
// that does not read why it is disconnected).
func (o *outbox) replaceAll(msg []byte) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.closed {
		return
	}
	o.q, o.frame, o.frames = [][]byte{msg}, []bool{false}, 0
	o.setBytes(len(msg))
	o.overrun = false
	o.notify()
}

// close marks the end: what is queued can still be taken.
func (o *outbox) close() {
	o.mu.Lock()
	if o.ch != nil && !o.closed {
		o.ch.add(chargeOutbound, -int64(o.bytes))
	}
	o.closed = true
	o.mu.Unlock()
	o.notify()
}

// take removes and returns every queued message in order; more is false
// once the box is closed and empty.
func (o *outbox) take() (msgs [][]byte, more bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	msgs = o.q
	o.q, o.frame, o.frames = nil, nil, 0
	o.setBytes(0)
	more = !(o.closed && len(msgs) == 0)
	if o.closed && len(msgs) > 0 {
		// Let the caller come back for the end.
		o.notify()
	}
	return msgs, more
}

// pop removes the first message; ok is false when none is queued, more is
// false once the box is closed and empty.
func (o *outbox) pop() (msg []byte, ok, more bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if len(o.q) == 0 {
		return nil, false, !o.closed
	}
	msg = o.q[0]
	if o.frame[0] {
		o.frames--
	}
	o.setBytes(o.bytes - len(msg))
	o.q[0] = nil
	o.q, o.frame = o.q[1:], o.frame[1:]
	if len(o.q) > 0 || o.closed {
		o.notify()
	}
	return msg, true, true
}

// next blocks until a message is available, the box is closed and empty
// (io.EOF), or ctx ends.
func (o *outbox) next(ctx context.Context) ([]byte, error) {
	for {
		msg, ok, more := o.pop()
		if ok {
			return msg, nil
		}
		if !more {
			return nil, io.EOF
		}
		select {
		case <-o.signal:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}
