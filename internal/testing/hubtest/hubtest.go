// Package hubtest serves a real hub (the hub server on a SQLite store) on
// loopback for the tests of the front doors that ask through it.
package hubtest

import (
	"context"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/askcore/askcore/hub/server"
	"github.com/askcore/askcore/hub/store"
)

// Hub is a hub served on loopback with one person and one agent.
type Hub struct {
	Store  store.Store
	Server *server.Server
	URL    string
	// Token is the agent's bearer token.
	Token  string
	Person int64
}

// Start serves a hub until the test ends.
func Start(t *testing.T) *Hub {
	t.Helper()
	ctx := context.Background()
	s, err := store.Open(ctx, filepath.Join(t.TempDir(), "hub.db"))
	require.NoError(t, err)
	srv, err := server.New(server.Options{Store: s})
	require.NoError(t, err)
	p, err := s.AddPerson(ctx, "ada")
	require.NoError(t, err)
	token, hash := server.NewToken(server.AgentTokenPrefix)
	_, err = s.AddAgent(ctx, store.NewAgent{PersonID: p.ID, Name: "laptop", TokenHash: hash})
	require.NoError(t, err)
	hs := httptest.NewServer(srv.Handler())
	runCtx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { srv.Run(runCtx); close(done) }()
	t.Cleanup(func() { srv.Close(); hs.Close(); cancel(); <-done; s.Close() })
	return &Hub{Store: s, Server: srv, URL: hs.URL, Token: token, Person: p.ID}
}

// Env is a getenv giving the hub's URL and token.
func (h *Hub) Env(k string) string {
	return map[string]string{"ASKCORE_HUB_URL": h.URL, "ASKCORE_HUB_TOKEN": h.Token}[k]
}

// Ask waits for the one ask of the hub's person in state, polling the
// store.
func (h *Hub) Ask(t *testing.T, state store.State) store.Ask {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		asks, err := h.Store.Asks(context.Background(), store.AskFilter{PersonID: h.Person, State: state})
		require.NoError(t, err)
		if len(asks) == 1 {
			return asks[0]
		}
		time.Sleep(5 * time.Millisecond) // polling a condition
	}
	t.Fatalf("no %s ask", state)
	return store.Ask{}
}
