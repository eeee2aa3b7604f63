package hub_test

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/askcore/askcore"
	"github.com/askcore/askcore/hub"
	"github.com/askcore/askcore/hub/server"
	"github.com/askcore/askcore/hub/store"
	"github.com/askcore/askcore/internal/testing/hubtest"
	"github.com/askcore/askcore/internal/testing/pgtest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(pgtest.Run{M: m}) }

const waitLong = 30 * time.Second

const question = `{"question":"Which database?","options":[{"label":"SQLite"},{"label":"PostgreSQL","recommended":true}]}`

// testHub is a hub served on loopback, with one agent.
type testHub struct {
	store  store.Store
	srv    *server.Server
	url    string
	token  string
	person int64
}

func startHub(t *testing.T, dsn string, deadline time.Duration, ln net.Listener) *testHub {
	t.Helper()
	ctx := context.Background()
	s, err := store.Open(ctx, dsn)
	require.NoError(t, err)
	t.Cleanup(func() { s.Close() }) // after the hub stopped
	p, err := s.PersonByName(ctx, "ada")
	if err != nil {
		p, err = s.AddPerson(ctx, "ada")
		require.NoError(t, err)
	}
	token, hash := server.NewToken(server.AgentTokenPrefix)
	_, err = s.AddAgent(ctx, store.NewAgent{PersonID: p.ID, Name: "ci-" + hash[:8], TokenHash: hash, Deadline: deadline})
	require.NoError(t, err)
	srv, url := hubtest.Serve(t, server.Config{Options: server.Options{Store: s, ExpireEvery: 20 * time.Millisecond}, Listener: ln})
	return &testHub{store: s, srv: srv, url: url, token: token, person: p.ID}
}

func eachDB(t *testing.T, f func(t *testing.T, dsn string)) {
	t.Run("sqlite", func(t *testing.T) { f(t, filepath.Join(t.TempDir(), "hub.db")) })
	t.Run("postgres", func(t *testing.T) { f(t, pgtest.NewDB(t)) })
}

type result struct {
	answer askcore.Answer
	err    error
}

// ask asks through p in the background.
func ask(ctx context.Context, t *testing.T, p askcore.Provider, from askcore.Identity) <-chan result {
	svc := askcore.NewService(nil)
	dispose, err := svc.Register(p)
	require.NoError(t, err)
	out := make(chan result, 1)
	go func() {
		defer dispose()
		a, err := svc.Ask(ctx, question, askcore.AskOptions{From: from})
		out <- result{a, err}
	}()
	return out
}

// pendingAsk waits for the one pending ask of the hub's person.
func (h *testHub) pendingAsk(t *testing.T) store.Ask {
	t.Helper()
	deadline := time.Now().Add(waitLong)
	for time.Now().Before(deadline) {
		asks, err := h.store.Asks(context.Background(), store.AskFilter{PersonID: h.person, State: store.StatePending})
		require.NoError(t, err)
		if len(asks) == 1 {
			return asks[0]
		}
		time.Sleep(5 * time.Millisecond) // polling a condition
	}
	t.Fatal("no pending ask")
	return store.Ask{}
}

func wait(t *testing.T, c <-chan result) result {
	t.Helper()
	select {
	case r := <-c:
		return r
	case <-time.After(waitLong):
		t.Fatal("the ask did not end")
		return result{}
	}
}

// localAnswer is what the agent's core makes of reply asked locally.
func localAnswer(t *testing.T, reply askcore.Reply) askcore.Answer {
	svc := askcore.NewService(nil)
	dispose, err := svc.Register(askcore.ProviderFunc(func(context.Context, *askcore.Call) (askcore.Reply, error) { return reply, nil }))
	require.NoError(t, err)
	defer dispose()
	a, err := svc.Ask(context.Background(), question, askcore.AskOptions{})
	require.NoError(t, err)
	return a
}

// TestAnswer: the person's reply in the inbox becomes, through the
// agent's own core, the answer a local reply would give.
func TestAnswer(t *testing.T) {
	eachDB(t, func(t *testing.T, dsn string) {
		h := startHub(t, dsn, 0, nil)
		res := ask(context.Background(), t, hub.New(h.url, h.token), askcore.Identity{SessionID: "s1", ToolCallID: "call_1"})
		a := h.pendingAsk(t)
		assert.Equal(t, question, a.Arguments, "the model's text as written")
		assert.Equal(t, "call_1", a.ToolCallID)
		assert.Equal(t, "s1", a.SessionID)
		for _, reply := range []struct {
			wire  string
			local askcore.Reply
		}{{`{"lines":["1"]}`, askcore.Lines("1")}} {
			_, err := h.srv.Reply(context.Background(), h.person, a.ID, json.RawMessage(reply.wire), "test")
			require.NoError(t, err)
			r := wait(t, res)
			require.NoError(t, r.err)
			assert.Equal(t, string(localAnswer(t, reply.local).JSON()), string(r.answer.JSON()))
		}
	})
}

// TestReplayAttaches: an agent that replays a tool call (after a restart)
// attaches to the ask its first run made: no second question.
func TestReplayAttaches(t *testing.T) {
	eachDB(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		h := startHub(t, dsn, 0, nil)
		// The first run posted and died.
		body, _ := json.Marshal(map[string]string{"arguments": question, "toolCallId": "call_1", "sessionId": "s1"})
		req, _ := http.NewRequest("POST", h.url+"/v1/asks", strings.NewReader(string(body)))
		req.Header.Set("Authorization", "Bearer "+h.token)
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		resp.Body.Close()
		require.Equal(t, http.StatusCreated, resp.StatusCode)
		first := h.pendingAsk(t)

		res := ask(ctx, t, hub.New(h.url, h.token), askcore.Identity{SessionID: "s1", ToolCallID: "call_1"})
		_, err = h.srv.Reply(ctx, h.person, first.ID, json.RawMessage(`{"decline":true}`), "test")
		require.NoError(t, err)
		r := wait(t, res)
		assert.Equal(t, askcore.CodeAskDeclined, askcore.AsError(r.err).Code)
		evs, err := h.store.Events(ctx, store.EventFilter{PersonID: h.person, AfterID: 0})
		require.NoError(t, err)
		asked := 0
		for _, e := range evs {
			if e.Kind == store.EventAsked {
				asked++
			}
		}
		assert.Equal(t, 1, asked, "one question")
	})
}

// TestCancelWithdraws: an ask the agent gives up is withdrawn on the hub.
func TestCancelWithdraws(t *testing.T) {
	eachDB(t, func(t *testing.T, dsn string) {
		h := startHub(t, dsn, 0, nil)
		ctx, cancel := context.WithCancel(context.Background())
		res := ask(ctx, t, hub.New(h.url, h.token), askcore.Identity{ToolCallID: "call_1"})
		a := h.pendingAsk(t)
		cancel()
		r := wait(t, res)
		assert.Equal(t, askcore.CodeAskAborted, askcore.AsError(r.err).Code)
		deadline := time.Now().Add(waitLong)
		for {
			got, err := h.store.Ask(context.Background(), a.ID)
			require.NoError(t, err)
			if got.State == store.StateWithdrawn {
				break
			}
			require.True(t, time.Now().Before(deadline), "not withdrawn")
			time.Sleep(5 * time.Millisecond) // polling a condition
		}
	})
}

// TestExpiredIsTimeout: the agent's deadline passes: ASK_TIMEOUT in the
// core's words, with the deadline.
func TestExpiredIsTimeout(t *testing.T) {
	eachDB(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		h := startHub(t, dsn, time.Second, nil)
		r := wait(t, ask(ctx, t, hub.New(h.url, h.token), askcore.Identity{ToolCallID: "call_1"}))
		want := askcore.NewCore(nil).Fail(ctx, askcore.Failure{Situation: askcore.SituationTimeout, Millis: 1000})
		e := askcore.AsError(r.err)
		require.NotNil(t, e)
		assert.Equal(t, string(want.JSON()), string(e.JSON()))
	})
}

// TestReconnects: a hub that is not there yet is retried with a backoff;
// once it listens, the ask goes through.
func TestReconnects(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	ln.Close()
	ctx := context.Background()
	res := ask(ctx, t, hub.New("http://"+addr, "unused-until-up", hub.WithMaxBackoff(50*time.Millisecond)), askcore.Identity{ToolCallID: "c"})
	select {
	case r := <-res:
		t.Fatalf("ended without a hub: %v", r.err)
	case <-time.After(300 * time.Millisecond): // several attempts fail meanwhile
	}
	ln, err = net.Listen("tcp", addr)
	require.NoError(t, err)
	h := startHub(t, filepath.Join(t.TempDir(), "hub.db"), 0, ln)
	// The token was made after the provider: refused, not retried forever.
	r := wait(t, res)
	e := askcore.AsError(r.err)
	require.NotNil(t, e)
	assert.Equal(t, askcore.CodeAskFailed, e.Code)
	assert.Contains(t, e.Message, "UNAUTHORIZED")

	res = ask(ctx, t, hub.New(h.url, h.token), askcore.Identity{ToolCallID: "c"})
	a := h.pendingAsk(t)
	_, err = h.srv.Reply(ctx, h.person, a.ID, json.RawMessage(`{"lines":[""]}`), "test")
	require.NoError(t, err)
	require.NoError(t, wait(t, res).err)
}
