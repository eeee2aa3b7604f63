package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/askcore/askcore/hub/notify"
	"github.com/askcore/askcore/hub/server"
	"github.com/askcore/askcore/hub/store"
	"github.com/askcore/askcore/internal/testing/hubtest"
	"github.com/askcore/askcore/internal/testing/pgtest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(pgtest.Run{M: m}) }

// waitLong bounds every wait: long enough for a loaded 2-core machine
// under -race, short enough to fail rather than hang.
const waitLong = 30 * time.Second

// question is a model's arguments text.
const question = `{"question":"Which database?","options":[{"label":"SQLite"},{"label":"PostgreSQL","recommended":true}]}`

// db is one database several hub replicas share.
type db struct {
	name string
	dsn  string
}

// eachDB runs f on a fresh SQLite file and a fresh PostgreSQL database.
func eachDB(t *testing.T, f func(t *testing.T, d db)) {
	t.Run("sqlite", func(t *testing.T) { f(t, db{"sqlite", filepath.Join(t.TempDir(), "hub.db")}) })
	t.Run("postgres", func(t *testing.T) { f(t, db{"postgres", pgtest.NewDB(t)}) })
}

// replica is one hub on d, served by server.Run on loopback.
type replica struct {
	t     *testing.T
	store store.Store
	srv   *server.Server
	url   string
}

func newReplica(t *testing.T, d db, opts server.Options) *replica {
	t.Helper()
	return newReplicaConfig(t, d, server.Config{Options: opts})
}

// newNotifyingReplica is newReplica whose notifier reads the outbox every
// 10 ms, for the tests of what it sends.
func newNotifyingReplica(t *testing.T, d db) *replica {
	t.Helper()
	return newReplicaConfig(t, d, server.Config{Notify: notify.Options{Poll: 10 * time.Millisecond, Timeout: 10 * time.Second}})
}

// newReplicaConfig is newReplica with the rest of a hub's Config.
func newReplicaConfig(t *testing.T, d db, cfg server.Config) *replica {
	t.Helper()
	s, err := store.Open(context.Background(), d.dsn)
	require.NoError(t, err)
	t.Cleanup(func() { s.Close() }) // after the hub stopped
	cfg.Store = s
	if cfg.ExpireEvery == 0 {
		cfg.ExpireEvery = 20 * time.Millisecond
	}
	srv, url := hubtest.Serve(t, cfg)
	return &replica{t: t, store: s, srv: srv, url: url}
}

// agent is an agent's name, token and person.
type agent struct {
	name, token string
	id          int64
	person      int64
}

func addAgent(t *testing.T, s store.Store, person, name string, deadline time.Duration) agent {
	t.Helper()
	ctx := context.Background()
	p, err := s.PersonByName(ctx, person)
	if err != nil {
		p, err = s.AddPerson(ctx, person)
		require.NoError(t, err)
	}
	token, hash := server.NewToken(server.AgentTokenPrefix)
	a, err := s.AddAgent(ctx, store.NewAgent{PersonID: p.ID, Name: name, TokenHash: hash, Deadline: deadline})
	require.NoError(t, err)
	return agent{name: name, token: token, id: a.ID, person: p.ID}
}

// response is an HTTP answer, read whole.
type response struct {
	status int
	header http.Header
	body   []byte
}

func (r response) json(t *testing.T) map[string]any {
	t.Helper()
	var m map[string]any
	require.NoError(t, json.Unmarshal(r.body, &m), "body %s", r.body)
	return m
}

// do sends a request to the replica; header pairs follow the body.
func (r *replica) do(method, path, token, body string, header ...string) response {
	r.t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, r.url+path, rd)
	require.NoError(r.t, err)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for i := 0; i+1 < len(header); i += 2 {
		if strings.EqualFold(header[i], "Host") {
			req.Host = header[i+1]
			continue
		}
		req.Header.Set(header[i], header[i+1])
	}
	client := &http.Client{Timeout: 2 * waitLong}
	resp, err := client.Do(req)
	require.NoError(r.t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(r.t, err)
	return response{resp.StatusCode, resp.Header, b}
}

func createBody(args, toolCallID, sessionID string) string {
	b, _ := json.Marshal(map[string]string{"arguments": args, "toolCallId": toolCallID, "sessionId": sessionID})
	return string(b)
}

// create posts an ask and returns its id.
func (r *replica) create(a agent, toolCallID string) string {
	r.t.Helper()
	resp := r.do("POST", "/v1/asks", a.token, createBody(question, toolCallID, "s1"))
	require.Contains(r.t, []int{200, 201}, resp.status, "%s", resp.body)
	return resp.json(r.t)["id"].(string)
}

// oneAsk is a replica with the default options, its agent ada/ci
// without a deadline, and that agent's pending ask for tool call c1.
func oneAsk(t *testing.T, d db) (*replica, agent, string) {
	t.Helper()
	r := newReplica(t, d, server.Options{})
	a := addAgent(t, r.store, "ada", "ci", 0)
	return r, a, r.create(a, "c1")
}

// waitingPoll starts a's long poll of ask id (wait seconds) and returns
// once it waits on the replica; its response arrives on the channel.
func (r *replica) waitingPoll(a agent, id string, wait int) <-chan response {
	r.t.Helper()
	got := make(chan response, 1)
	go func() { got <- r.do("GET", fmt.Sprintf("/v1/asks/%s?wait=%d", id, wait), a.token, "") }()
	r.waitPolls(1)
	return got
}

// waitPolls waits until n long polls wait on the replica (its metrics),
// so that a test acts while an agent waits, not before.
func (r *replica) waitPolls(n int) {
	r.t.Helper()
	want := fmt.Sprintf("askcore_hub_long_polls %d\n", n)
	deadline := time.Now().Add(waitLong)
	for time.Now().Before(deadline) {
		if strings.Contains(string(r.do("GET", "/metrics", "", "").body), want) {
			return
		}
		time.Sleep(5 * time.Millisecond) // polling a condition, not a guess
	}
	r.t.Fatalf("no %d long polls waiting", n)
}
