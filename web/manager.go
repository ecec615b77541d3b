package web

import (
	"context"

	"github.com/ptxplayground/ptxplay/sessions"
)

// ManagerSessions adapts a sessions.Manager to SessionStarter: each
// websocket gets a new session of the manager.
func ManagerSessions(m *sessions.Manager) SessionStarter { return managerStarter{m} }

type managerStarter struct{ m *sessions.Manager }

func (a managerStarter) StartSession(context.Context) (Session, error) {
	s, err := a.m.NewSession()
	if err != nil {
		return nil, err
	}
	return s, nil
}
