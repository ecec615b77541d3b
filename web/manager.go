package web

import "context"

// SessionsFrom makes a SessionStarter of a function that opens a session
// for a client address: cmd/ptxplay passes the sessions manager's
// NewClientSession (each websocket gets a new session, counted under its
// client's address, which the manager's reclaiming of places weighs). The
// web layer declares the Session it consumes and imports no package that
// runs the emulator.
func SessionsFrom[S Session](open func(client string) (S, error)) SessionStarter {
	return starterFunc[S](open)
}

type starterFunc[S Session] func(client string) (S, error)

func (f starterFunc[S]) StartSession(_ context.Context, client string) (Session, error) {
	s, err := f(client)
	if err != nil {
		return nil, err
	}
	return s, nil
}
