package server_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/askcore/askcore/hub/notify"
	"github.com/askcore/askcore/hub/server"
	"github.com/askcore/askcore/hub/store"
)

// snapshot is everything a request could change, read from the store.
type snapshot struct {
	Asks    []store.Ask
	Events  []store.Event
	Agents  []store.Agent
	People  []store.Person
	Link    store.SigninLink
	Session store.WebSession
	Outbox  []store.OutboxItem
	Pending int
}

func takeSnapshot(t *testing.T, s store.Store, person int64) snapshot {
	t.Helper()
	ctx := context.Background()
	var snap snapshot
	var err error
	snap.Asks, err = s.Asks(ctx, store.AskFilter{PersonID: person})
	require.NoError(t, err)
	for i := range snap.Asks {
		// An agent's long poll records that its program waits (what the
		// inbox's "not waiting now" reads): bookkeeping of the poll, not a
		// change of the ask.
		snap.Asks[i].WaitingUntil = time.Time{}
	}
	snap.Events, err = s.Events(ctx, store.EventFilter{})
	require.NoError(t, err)
	snap.Agents, err = s.Agents(ctx)
	require.NoError(t, err)
	snap.People, err = s.People(ctx)
	require.NoError(t, err)
	snap.Link, err = s.SigninLink(ctx, "link")
	require.NoError(t, err)
	snap.Session, err = s.WebSession(ctx, "session", time.Now())
	require.NoError(t, err)
	snap.Outbox, err = s.DueOutbox(ctx, time.Now().Add(time.Hour), 100)
	require.NoError(t, err)
	snap.Pending, err = s.CountAsks(ctx, store.StatePending)
	require.NoError(t, err)
	return snap
}

// TestNoGetChangesState: every GET route, with every token and none,
// leaves the store as it was: asks, events, tokens, sign-in links,
// sessions, outbox; the inbox's routes too (the inbox's own tests do the
// same signed in: TestInboxNoGETChangesState).
func TestNoGetChangesState(t *testing.T) {
	eachDB(t, func(t *testing.T, d db) {
		ctx := context.Background()
		// The hub's notifier would deliver the outbox row the snapshots
		// hold: what changes state here must be a GET, not the notifier.
		r := newReplicaConfig(t, d, server.Config{Notify: notify.Options{Poll: time.Hour}})
		a := addAgent(t, r.store, "ada", "ci", 0)
		b := addAgent(t, r.store, "ada", "other", 0)
		pending := r.create(a, "c1")
		replied := r.create(a, "c2")
		_, err := r.srv.Reply(ctx, a.person, replied, json.RawMessage(`{"lines":["1"]}`), "phone")
		require.NoError(t, err)
		require.NoError(t, r.store.CreateSigninLink(ctx, store.SigninLink{TokenHash: "link", PersonID: a.person, ExpiresAt: time.Now().Add(time.Hour)}))
		require.NoError(t, r.store.CreateWebSession(ctx, store.WebSession{TokenHash: "session", PersonID: a.person, CSRFToken: "c", CreatedAt: time.Now(), ExpiresAt: time.Now().Add(time.Hour)}))
		_, err = r.store.EnqueueOutbox(ctx, "webhook", json.RawMessage(`{}`), time.Now())
		require.NoError(t, err)

		before := takeSnapshot(t, r.store, a.person)
		paths := []string{
			"/v1/asks/" + pending, "/v1/asks/" + pending + "?wait=0.05", "/v1/asks/" + replied,
			"/v1/asks/" + replied + "?wait=1", "/v1/asks", "/v1/asks/ask_none", "/metrics", "/v1/", "/v1/unknown",
			"/signin?token=link", "/", "/signout", "/inbox/reply", "/inbox/events", "/inbox/inbox.js",
		}
		for _, p := range paths {
			for _, tok := range []string{"", a.token, b.token, "wrong"} {
				r.do("GET", p, tok, "")
				r.do("HEAD", p, tok, "")
			}
		}
		after := takeSnapshot(t, r.store, a.person)
		assert.Equal(t, before, after)
	})
}
