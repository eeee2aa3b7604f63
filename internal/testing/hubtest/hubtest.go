// Package hubtest serves a real hub on loopback, through server.Run as
// askcore-hub serve does, for the tests that ask through one.
package hubtest

import (
	"context"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/askcore/askcore/hub/server"
	"github.com/askcore/askcore/hub/store"
	"github.com/askcore/askcore/internal/testing/pgtest"
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

// Start serves a hub on a SQLite store until the test ends.
func Start(t *testing.T) *Hub {
	t.Helper()
	return StartOn(t, filepath.Join(t.TempDir(), "hub.db"))
}

// EachStore runs f as two subtests, "sqlite" and "postgres", each with a
// hub of its own on a fresh store: a SQLite file, a PostgreSQL database
// (pgtest.NewDB: the package's TestMain runs pgtest.Main, one cluster for
// the test binary; without PostgreSQL that subtest is skipped).
func EachStore(t *testing.T, f func(t *testing.T, h *Hub)) {
	t.Run("sqlite", func(t *testing.T) { f(t, Start(t)) })
	t.Run("postgres", func(t *testing.T) { f(t, StartOn(t, pgtest.NewDB(t))) })
}

// StartOn serves a hub on the store dsn names (store.Open) until the
// test ends.
func StartOn(t *testing.T, dsn string) *Hub {
	t.Helper()
	ctx := context.Background()
	s, err := store.Open(ctx, dsn)
	require.NoError(t, err)
	t.Cleanup(func() { s.Close() }) // after the hub stopped (cleanups run last first)
	p, err := s.AddPerson(ctx, "ada")
	require.NoError(t, err)
	token, hash := server.NewToken(server.AgentTokenPrefix)
	_, err = s.AddAgent(ctx, store.NewAgent{PersonID: p.ID, Name: "laptop", TokenHash: hash})
	require.NoError(t, err)
	srv, url := Serve(t, server.Config{Options: server.Options{Store: s}})
	return &Hub{Store: s, Server: srv, URL: url, Token: token, Person: p.ID}
}

// Serve runs server.Run(cfg) until the test ends, on a free loopback port
// unless cfg names an address or a listener, and returns the server and
// the URL it listens at. At the end it stops the hub as a signal stops
// askcore-hub serve, and asserts that the stop was clean; the store is
// the caller's to close (register its Close before calling Serve).
func Serve(t testing.TB, cfg server.Config) (*server.Server, string) {
	t.Helper()
	if cfg.Addr == "" && cfg.Listener == nil {
		cfg.Addr = "127.0.0.1:0"
	}
	type started struct {
		srv *server.Server
		url string
	}
	ready := make(chan started, 1)
	cfg.Ready = func(srv *server.Server, url string) { ready <- started{srv, url} }
	ctx, cancel := context.WithCancel(context.Background())
	ran := make(chan error, 1)
	go func() { ran <- server.Run(ctx, cfg) }()
	select {
	case s := <-ready:
		t.Cleanup(func() {
			cancel()
			assert.NoError(t, <-ran, "the hub stopped cleanly")
		})
		return s.srv, s.url
	case err := <-ran:
		cancel()
		t.Fatalf("the hub did not start: %v", err)
		return nil, ""
	}
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

// Reply answers ask a as the hub's person with reply, the JSON the inbox
// sends ({"lines": [...]} or {"picks": [...]}); from is where the person
// answered, as the hub records it.
func (h *Hub) Reply(t *testing.T, a store.Ask, reply, from string) {
	t.Helper()
	_, err := h.Server.Reply(context.Background(), h.Person, a.ID, json.RawMessage(reply), from)
	require.NoError(t, err)
}

// CheckHubFlagsRefused checks what every protocol front door does with
// --hub and no token, or a token file that holds none: a usage error (exit
// 2) that names the missing token, before anything is served. run runs the
// front door on args and returns its exit code and stderr.
func CheckHubFlagsRefused(t *testing.T, run func(t *testing.T, args []string) (code int, stderr string)) {
	empty := filepath.Join(t.TempDir(), "token")
	require.NoError(t, os.WriteFile(empty, nil, 0o600))
	for _, tc := range []struct {
		name string
		args []string
		says string
	}{
		{"no token", nil, "ASKCORE_HUB_TOKEN"},
		{"an empty token file", []string{"--hub-token-file", empty}, "--hub-token-file: the file " + empty + " is empty"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stderr := run(t, append([]string{"--hub", "http://127.0.0.1:1"}, tc.args...))
			assert.Equal(t, 2, code)
			assert.Contains(t, stderr, tc.says)
		})
	}
}

// NoHub is a hub that holds no question: Start gives its URL and the
// environment a front door reads (ASKCORE_HUB_URL, ASKCORE_HUB_TOKEN);
// Says is what a surface that still asks is told of it, in
// frontdoor.Hub's words.
type NoHub struct {
	Name  string
	Start func(t *testing.T) (url string, env func(string) string)
	Says  func(url string) []string
}

// NoHubs are the two hubs that are no answer: one that refuses the
// agent's token, one that cannot be reached (a loopback port nothing
// listens on).
var NoHubs = []NoHub{
	{"a wrong token", func(t *testing.T) (string, func(string) string) {
		h := Start(t)
		return h.URL, func(k string) string {
			if k == "ASKCORE_HUB_TOKEN" {
				return "askcore_wrong"
			}
			return h.Env(k)
		}
	}, func(string) []string {
		return []string{"The hub's inbox does not have this question: ", "the hub refused the ask: UNAUTHORIZED", "Answer it here."}
	}},
	{"an unreachable hub", func(t *testing.T) (string, func(string) string) {
		url := ClosedPort(t)
		return url, func(k string) string {
			return map[string]string{"ASKCORE_HUB_URL": url, "ASKCORE_HUB_TOKEN": "askcore_any"}[k]
		}
	}, func(url string) []string {
		return []string{"The hub at " + url + " cannot be reached (", "still trying. Meanwhile the question is asked here."}
	}},
}

// ClosedPort is the URL of a loopback port nothing listens on.
func ClosedPort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	url := "http://" + l.Addr().String()
	require.NoError(t, l.Close())
	return url
}
