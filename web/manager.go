package web

import (
	"context"

	"github.com/ptxplayground/ptxplay/sessions"
)

// ManagerSessions adapts a sessions.Manager to SessionStarter: each
// websocket gets a new session of the manager, counted under its client's
// address (which the manager's reclaiming of places weighs).
func ManagerSessions(m *sessions.Manager) SessionStarter { return managerStarter{m} }

type managerStarter struct{ m *sessions.Manager }

func (a managerStarter) StartSession(_ context.Context, client string) (Session, error) {
	s, err := a.m.NewClientSession(client)
	if err != nil {
		return nil, err
	}
	return s, nil
}
