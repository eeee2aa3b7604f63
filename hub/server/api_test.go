package server_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/askcore/askcore"
	"github.com/askcore/askcore/hub/server"
	"github.com/askcore/askcore/hub/store"
	"github.com/askcore/askcore/internal/testing/chantest"
)

func assertHubError(t *testing.T, r response, status int, code string) {
	t.Helper()
	assert.Equal(t, status, r.status, "%s", r.body)
	var e struct{ Name, Code, Message string }
	require.NoError(t, json.Unmarshal(r.body, &e), "%s", r.body)
	assert.Equal(t, code, e.Code)
	assert.NotEmpty(t, e.Name)
	assert.NotEmpty(t, e.Message)
}

// TestTokens: a missing, wrong, malformed or revoked token is 401 with
// the same message; a request from a web page (Origin) is 403.
func TestTokens(t *testing.T) {
	eachDB(t, func(t *testing.T, d db) {
		r, a, id := oneAsk(t, d)
		var messages []string
		for name, token := range map[string]string{
			"missing": "", "wrong": server.AgentTokenPrefix + "AAAA", "not ours": "ghp_123",
			"long": server.AgentTokenPrefix + strings.Repeat("x", 5000),
		} {
			for _, req := range [][2]string{{"POST", "/v1/asks"}, {"GET", "/v1/asks/" + id}, {"DELETE", "/v1/asks/" + id}} {
				resp := r.do(req[0], req[1], token, createBody(question, "c2", ""))
				assertHubError(t, resp, http.StatusUnauthorized, "UNAUTHORIZED")
				assert.Equal(t, `Bearer realm="askcore-hub"`, resp.header.Get("WWW-Authenticate"), name)
				messages = append(messages, resp.json(t)["message"].(string))
			}
		}
		_, err := r.store.RevokeAgent(context.Background(), "ci", time.Now())
		require.NoError(t, err)
		resp := r.do("GET", "/v1/asks/"+id, a.token, "")
		assertHubError(t, resp, http.StatusUnauthorized, "UNAUTHORIZED")
		assert.Equal(t, messages[0], resp.json(t)["message"], "revoked says what wrong says")
		for _, m := range messages {
			assert.Equal(t, messages[0], m)
		}

		b := addAgent(t, r.store, "ada", "other", 0)
		resp = r.do("POST", "/v1/asks", b.token, createBody(question, "c1", ""), "Origin", "https://evil.example")
		assertHubError(t, resp, http.StatusForbidden, "FORBIDDEN")
		assert.Empty(t, resp.header.Get("Access-Control-Allow-Origin"), "no CORS")
	})
}

// TestFailedAuthIsRateLimited: past the burst of failures, an address is
// refused (429) even with a good token, until its bucket refills.
func TestFailedAuthIsRateLimited(t *testing.T) {
	eachDB(t, func(t *testing.T, d db) {
		r := newReplica(t, d, server.Options{AuthFailRate: 0.001, AuthFailBurst: 3})
		a := addAgent(t, r.store, "ada", "ci", 0)
		for range 3 {
			assertHubError(t, r.do("GET", "/v1/asks/x", "bad", ""), http.StatusUnauthorized, "UNAUTHORIZED")
		}
		assertHubError(t, r.do("GET", "/v1/asks/x", "bad", ""), http.StatusTooManyRequests, "RATE_LIMITED")
		assertHubError(t, r.do("GET", "/v1/asks/x", a.token, ""), http.StatusTooManyRequests, "RATE_LIMITED")
	})
}

func TestAgentRateLimit(t *testing.T) {
	eachDB(t, func(t *testing.T, d db) {
		r := newReplica(t, d, server.Options{AgentRate: 0.001, AgentBurst: 2})
		a := addAgent(t, r.store, "ada", "ci", 0)
		id := r.create(a, "c1")
		assert.Equal(t, 200, r.do("GET", "/v1/asks/"+id, a.token, "").status)
		assertHubError(t, r.do("GET", "/v1/asks/"+id, a.token, ""), http.StatusTooManyRequests, "RATE_LIMITED")
	})
}

// TestAnotherAgentsAsk: an ask of another agent, even of the same person,
// does not exist for this one: 404 to read, to wait on and to withdraw,
// and nothing changes.
func TestAnotherAgentsAsk(t *testing.T) {
	eachDB(t, func(t *testing.T, d db) {
		r := newReplica(t, d, server.Options{})
		a := addAgent(t, r.store, "ada", "ci", 0)
		b := addAgent(t, r.store, "ada", "laptop", 0)
		id := r.create(a, "c1")
		assertHubError(t, r.do("GET", "/v1/asks/"+id+"?wait=1", b.token, ""), http.StatusNotFound, "NOT_FOUND")
		assertHubError(t, r.do("DELETE", "/v1/asks/"+id, b.token, ""), http.StatusNotFound, "NOT_FOUND")
		assertHubError(t, r.do("GET", "/v1/asks/ask_none", a.token, ""), http.StatusNotFound, "NOT_FOUND")
		got, err := r.store.Ask(context.Background(), id)
		require.NoError(t, err)
		assert.Equal(t, store.StatePending, got.State)
		// The same ids from another agent are another ask.
		assert.NotEqual(t, id, r.create(b, "c1"))
	})
}

// TestCreateAsk: normalized by the hub's core; the same ids and arguments
// attach (200, no second question); other arguments are 409; arguments
// the rules refuse are 400 with the core's own error bytes.
func TestCreateAsk(t *testing.T) {
	eachDB(t, func(t *testing.T, d db) {
		ctx := context.Background()
		r := newReplica(t, d, server.Options{})
		a := addAgent(t, r.store, "ada", "ci", 0)
		first := r.do("POST", "/v1/asks", a.token, createBody(question, "c1", "s1"))
		require.Equal(t, http.StatusCreated, first.status, "%s", first.body)
		call, err := askcore.NewCore(nil).Normalize(ctx, question)
		require.NoError(t, err)
		m := first.json(t)
		assert.Equal(t, "pending", m["state"])
		got, _ := json.Marshal(m["call"])
		assert.JSONEq(t, string(call.JSON()), string(got))

		again := r.do("POST", "/v1/asks", a.token, createBody(question, "c1", "s1"))
		assert.Equal(t, http.StatusOK, again.status)
		assert.Equal(t, m["id"], again.json(t)["id"])
		evs, err := r.store.Events(ctx, store.EventFilter{AskID: m["id"].(string)})
		require.NoError(t, err)
		assert.Len(t, evs, 1, "one question asked")

		assertHubError(t, r.do("POST", "/v1/asks", a.token, createBody(`{"question":"Other?"}`, "c1", "s1")), http.StatusConflict, "CONFLICT")

		bad := `{"question":"Pick","options":[{"label":"A"},{"label":"A"}]}`
		_, coreErr := askcore.NewCore(nil).Normalize(ctx, bad)
		var e *askcore.Error
		require.True(t, errors.As(coreErr, &e))
		resp := r.do("POST", "/v1/asks", a.token, createBody(bad, "c9", ""))
		assert.Equal(t, http.StatusBadRequest, resp.status)
		assert.Equal(t, string(e.JSON())+"\n", string(resp.body), "the core's error, byte for byte")

		for name, body := range map[string]string{
			"not json":      `{"arguments":`,
			"unknown field": `{"arguments":"{}","toolCallId":"x","extra":1}`,
			"no call id":    `{"arguments":"{}"}`,
			"long call id":  createBody(question, strings.Repeat("x", server.MaxIDBytes+1), ""),
			"two objects":   `{"arguments":"{}","toolCallId":"x"}{}`,
		} {
			assertHubError(t, r.do("POST", "/v1/asks", a.token, body), http.StatusBadRequest, "BAD_REQUEST")
			_ = name
		}
		huge := `{"arguments":"` + strings.Repeat(`\u0000`, 300<<10) + `","toolCallId":"x"}`
		assertHubError(t, r.do("POST", "/v1/asks", a.token, huge), http.StatusRequestEntityTooLarge, "TOO_LARGE")
	})
}

func TestWaitParameter(t *testing.T) {
	eachDB(t, func(t *testing.T, d db) {
		r, a, id := oneAsk(t, d)
		for _, w := range []string{"61", "-1", "x", "NaN", "1e9"} {
			assertHubError(t, r.do("GET", "/v1/asks/"+id+"?wait="+w, a.token, ""), http.StatusBadRequest, "BAD_REQUEST")
		}
		start := time.Now()
		resp := r.do("GET", "/v1/asks/"+id+"?wait=0.2", a.token, "")
		assert.Equal(t, 200, resp.status)
		assert.Equal(t, "pending", resp.json(t)["state"])
		assert.GreaterOrEqual(t, time.Since(start), 200*time.Millisecond, "a long poll waits")
	})
}

// TestWrongHost: a request naming another host (DNS rebinding) is
// refused before anything else.
func TestWrongHost(t *testing.T) {
	eachDB(t, func(t *testing.T, d db) {
		r := newReplica(t, d, server.Options{})
		a := addAgent(t, r.store, "ada", "ci", 0)
		assertHubError(t, r.do("POST", "/v1/asks", a.token, createBody(question, "c1", ""), "Host", "evil.example:80"), http.StatusMisdirectedRequest, "WRONG_HOST")
		n, err := r.store.CountAsks(context.Background(), store.StatePending)
		require.NoError(t, err)
		assert.Zero(t, n)
		named := newReplica(t, d, server.Options{Hosts: []string{"hub.example.com"}})
		assertHubError(t, named.do("GET", "/v1/asks/x", a.token, ""), http.StatusMisdirectedRequest, "WRONG_HOST")
		assertHubError(t, named.do("GET", "/v1/asks/x", a.token, "", "Host", "hub.example.com"), http.StatusNotFound, "NOT_FOUND")
	})
}

// TestLongPollWakesOnReply: a reply through another replica wakes the
// agent waiting on this one, with the reply.
func TestLongPollWakesOnReply(t *testing.T) {
	eachDB(t, func(t *testing.T, d db) {
		r1 := newReplica(t, d, server.Options{})
		r2 := newReplica(t, d, server.Options{})
		a := addAgent(t, r1.store, "ada", "ci", 0)
		id := r1.create(a, "c1")
		got := r1.waitingPoll(a, id, 30)
		_, err := r2.srv.Reply(context.Background(), a.person, id, json.RawMessage(`{"lines":["2"]}`), "test")
		require.NoError(t, err)
		resp := chantest.Receive(t, got, waitLong, "the waiting agent was not woken")
		require.Equal(t, 200, resp.status)
		m := resp.json(t)
		assert.Equal(t, "replied", m["state"])
		rb, _ := json.Marshal(m["reply"])
		assert.JSONEq(t, `{"lines":["2"]}`, string(rb))
	})
}

// TestReplyIsJudged: the hub's core judges a reply before it is stored.
func TestReplyIsJudged(t *testing.T) {
	eachDB(t, func(t *testing.T, d db) {
		ctx := context.Background()
		r, a, id := oneAsk(t, d)

		_, err := r.srv.Reply(ctx, a.person, id, json.RawMessage(`{"lines":["7"]}`), "test")
		var e *askcore.Error
		require.True(t, errors.As(err, &e), "%v", err)
		assert.Equal(t, askcore.CodeInvalidAnswer, e.Code)
		call, _ := askcore.NewCore(nil).Normalize(ctx, question)
		_, want := call.CheckLine(ctx, 0, "7")
		assert.Equal(t, want.Error(), err.Error(), "the words for the person")

		for _, bad := range []string{`{}`, `{"lines":["1"],"decline":true}`, `{"decline":false}`, `[1]`, `{"form":"x"}`, `{"lines":["1"]} {}`} {
			_, err = r.srv.Reply(ctx, a.person, id, json.RawMessage(bad), "test")
			require.Error(t, err, bad)
			assert.Contains(t, err.Error(), "INVALID_REPLY", bad)
		}
		_, err = r.srv.Reply(ctx, a.person+1000, id, json.RawMessage(`{"lines":["1"]}`), "test")
		assert.ErrorIs(t, err, server.ErrAskNotFound, "another person's ask")

		got, err := r.srv.Reply(ctx, a.person, id, json.RawMessage(`{ "picks": [ {"options":[1]} ] }`), "phone")
		require.NoError(t, err)
		assert.Equal(t, store.StateReplied, got.State)
		assert.Equal(t, "ada", got.RepliedBy)
		assert.Equal(t, "phone", got.RepliedWhere)
		assert.JSONEq(t, `{"picks":[{"options":[1],"text":""}]}`, string(got.Reply))

		_, err = r.srv.Reply(ctx, a.person, id, json.RawMessage(`{"decline":true}`), "laptop")
		var ended *server.EndedError
		require.True(t, errors.As(err, &ended))
		assert.Equal(t, "phone", ended.Ask.RepliedWhere, "the first outcome")
	})
}

// TestOneReplyWinsAcrossReplicas: 50 replies at once through two
// replicas: one wins; the 49 others get its outcome; the agent gets the
// winner's reply once.
func TestOneReplyWinsAcrossReplicas(t *testing.T) {
	eachDB(t, func(t *testing.T, d db) {
		ctx := context.Background()
		reps := []*replica{newReplica(t, d, server.Options{}), newReplica(t, d, server.Options{})}
		a := addAgent(t, reps[0].store, "ada", "ci", 0)
		id := reps[0].create(a, "c1")
		const n = 50
		var wg sync.WaitGroup
		errs := make([]error, n)
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, errs[i] = reps[i%2].srv.Reply(ctx, a.person, id, json.RawMessage(fmt.Sprintf(`{"lines":["%d"]}`, i%2+1)), fmt.Sprintf("device-%d", i))
			}()
		}
		wg.Wait()
		var winners int
		var where []string
		for _, err := range errs {
			var ended *server.EndedError
			switch {
			case err == nil:
				winners++
			case errors.As(err, &ended):
				where = append(where, ended.Ask.RepliedWhere)
			default:
				t.Fatalf("unexpected: %v", err)
			}
		}
		require.Equal(t, 1, winners)
		final, err := reps[1].store.Ask(ctx, id)
		require.NoError(t, err)
		for _, w := range where {
			assert.Equal(t, final.RepliedWhere, w, "every loser sees the winner")
		}
		resp := reps[1].do("GET", "/v1/asks/"+id, a.token, "")
		rb, _ := json.Marshal(resp.json(t)["reply"])
		assert.JSONEq(t, string(final.Reply), string(rb))
		evs, err := reps[0].store.Events(ctx, store.EventFilter{AskID: id})
		require.NoError(t, err)
		assert.Len(t, evs, 2, "asked, replied once")
	})
}

// TestExpiry: an agent's deadline expires its ask (an event, no answer);
// the waiting agent hears "expired"; a reply after that is refused.
func TestExpiry(t *testing.T) {
	eachDB(t, func(t *testing.T, d db) {
		ctx := context.Background()
		r := newReplica(t, d, server.Options{})
		a := addAgent(t, r.store, "ada", "ci", time.Second)
		id := r.create(a, "c1")
		resp := r.do("GET", "/v1/asks/"+id+"?wait=20", a.token, "")
		require.Equal(t, 200, resp.status)
		m := resp.json(t)
		assert.Equal(t, "expired", m["state"])
		assert.EqualValues(t, 1000, m["deadlineMs"])
		assert.Nil(t, m["reply"], "nothing answers for the person")
		_, err := r.srv.Reply(ctx, a.person, id, json.RawMessage(`{"lines":["1"]}`), "late")
		var ended *server.EndedError
		require.True(t, errors.As(err, &ended))
		assert.Equal(t, store.StateExpired, ended.Ask.State)
		evs, err := r.store.Events(ctx, store.EventFilter{AskID: id})
		require.NoError(t, err)
		require.Len(t, evs, 2)
		assert.Equal(t, store.EventExpired, evs[1].Kind)
	})
}

func TestWithdraw(t *testing.T) {
	eachDB(t, func(t *testing.T, d db) {
		ctx := context.Background()
		r, a, id := oneAsk(t, d)
		resp := r.do("DELETE", "/v1/asks/"+id, a.token, "")
		require.Equal(t, 200, resp.status)
		assert.Equal(t, "withdrawn", resp.json(t)["state"])
		_, err := r.srv.Reply(ctx, a.person, id, json.RawMessage(`{"lines":["1"]}`), "late")
		var ended *server.EndedError
		require.True(t, errors.As(err, &ended))
		// Withdrawing a replied ask tells the agent the reply.
		id2 := r.create(a, "c2")
		_, err = r.srv.Reply(ctx, a.person, id2, json.RawMessage(`{"lines":["1"]}`), "phone")
		require.NoError(t, err)
		resp = r.do("DELETE", "/v1/asks/"+id2, a.token, "")
		assert.Equal(t, "replied", resp.json(t)["state"])
	})
}

// TestWithdrawAnsweredIn: an agent whose own surface got the answer says
// which; the store keeps it as where the ask ended, the event log too. A
// body that is not a Withdrawal is refused and the ask stays pending.
func TestWithdrawAnsweredIn(t *testing.T) {
	eachDB(t, func(t *testing.T, d db) {
		ctx := context.Background()
		r, a, id := oneAsk(t, d)
		for _, bad := range []string{`{`, `[]`, `{"answeredIn":""}`, `{"answeredIn":"a\nb"}`, `{"answeredIn":"` + strings.Repeat("x", 65) + `"}`} {
			assertHubError(t, r.do("DELETE", "/v1/asks/"+id, a.token, bad), http.StatusBadRequest, "BAD_REQUEST")
		}
		assertHubError(t, r.do("DELETE", "/v1/asks/"+id, a.token, strings.Repeat(" ", 1025)), http.StatusRequestEntityTooLarge, "TOO_LARGE")
		got, err := r.store.Ask(ctx, id)
		require.NoError(t, err)
		require.Equal(t, store.StatePending, got.State, "a refused withdrawal changes nothing")
		resp := r.do("DELETE", "/v1/asks/"+id, a.token, `{"answeredIn":"the terminal"}`)
		require.Equal(t, 200, resp.status)
		assert.Equal(t, "withdrawn", resp.json(t)["state"])
		got, err = r.store.Ask(ctx, id)
		require.NoError(t, err)
		assert.Equal(t, "the terminal", got.RepliedWhere)
		evs, err := r.store.Events(ctx, store.EventFilter{AskID: id})
		require.NoError(t, err)
		require.Len(t, evs, 2)
		assert.Equal(t, "the terminal", evs[1].Where)
	})
}

// TestCloseReleasesWaiters: a stopping hub answers its long polls at once
// with the current state, so that a graceful shutdown does not wait a
// minute.
func TestCloseReleasesWaiters(t *testing.T) {
	eachDB(t, func(t *testing.T, d db) {
		r, a, id := oneAsk(t, d)
		got := r.waitingPoll(a, id, 60)
		r.srv.Close()
		assert.Equal(t, "pending", chantest.Receive(t, got, waitLong, "the long poll was not released").json(t)["state"])
	})
}

// TestMetrics: Prometheus text for loopback connections only; a request a
// proxy forwarded, or without the token when one is set, is refused.
func TestMetrics(t *testing.T) {
	eachDB(t, func(t *testing.T, d db) {
		ctx := context.Background()
		r, a, id := oneAsk(t, d)
		r.create(a, "c2")
		_, err := r.srv.Reply(ctx, a.person, id, json.RawMessage(`{"lines":["1"]}`), "phone")
		require.NoError(t, err)
		resp := r.do("GET", "/metrics", "", "")
		require.Equal(t, 200, resp.status, "%s", resp.body)
		body := string(resp.body)
		assert.Contains(t, body, "askcore_hub_pending_asks 1\n")
		assert.Contains(t, body, "askcore_hub_time_to_reply_seconds_count 1\n")
		assert.Contains(t, body, `askcore_hub_time_to_reply_seconds_bucket{le="+Inf"} 1`)
		assert.Contains(t, body, "# TYPE askcore_hub_time_to_reply_seconds histogram")
		assertHubError(t, r.do("GET", "/metrics", "", "", "X-Forwarded-For", "203.0.113.9"), http.StatusForbidden, "FORBIDDEN")

		tok := newReplica(t, d, server.Options{MetricsToken: "m3tr1cs"})
		assertHubError(t, tok.do("GET", "/metrics", "", ""), http.StatusForbidden, "FORBIDDEN")
		assert.Equal(t, 200, tok.do("GET", "/metrics", "m3tr1cs", "").status)
	})
}

// TestRefusalsAreStructured: methods and paths the API does not serve
// get a JSON error too, never the mux's plain text.
func TestRefusalsAreStructured(t *testing.T) {
	eachDB(t, func(t *testing.T, d db) {
		r := newReplica(t, d, server.Options{})
		a := addAgent(t, r.store, "ada", "ci", 0)
		for _, req := range [][2]string{{"PUT", "/v1/asks"}, {"GET", "/v1/asks"}, {"PATCH", "/v1/asks/x"}, {"POST", "/metrics"}, {"OPTIONS", "/v1/asks"}} {
			assertHubError(t, r.do(req[0], req[1], a.token, ""), http.StatusMethodNotAllowed, "NOT_ALLOWED")
		}
		assertHubError(t, r.do("GET", "/v1/other", a.token, ""), http.StatusNotFound, "NOT_FOUND")
	})
}
