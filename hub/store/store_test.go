package store_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/askcore/askcore/hub/store"
	"github.com/askcore/askcore/internal/testing/pgtest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(pgtest.Run{M: m}) }

// backend opens stores on one database: open may be called several
// times, as several hub processes would.
type backend struct {
	name string
	dsn  func(t *testing.T) string
}

var backends = []backend{
	{"sqlite", func(t *testing.T) string { return filepath.Join(t.TempDir(), "hub.db") }},
	{"postgres", func(t *testing.T) string { return pgtest.NewDB(t) }},
}

// eachStore runs f on both stores; open opens another Store on the same
// database.
func eachStore(t *testing.T, f func(t *testing.T, open func() store.Store)) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			dsn := b.dsn(t)
			open := func() store.Store {
				s, err := store.Open(context.Background(), dsn)
				require.NoError(t, err)
				t.Cleanup(func() { s.Close() })
				return s
			}
			f(t, open)
		})
	}
}

type fixture struct {
	person store.Person
	agent  store.Agent
}

func setup(t *testing.T, s store.Store, deadline time.Duration) fixture {
	ctx := context.Background()
	p, err := s.AddPerson(ctx, "ada")
	require.NoError(t, err)
	a, err := s.AddAgent(ctx, store.NewAgent{PersonID: p.ID, Name: "ci", TokenHash: "h1", Deadline: deadline})
	require.NoError(t, err)
	return fixture{p, a}
}

func newAsk(f fixture, call, args string) store.NewAsk {
	return store.NewAsk{AgentID: f.agent.ID, SessionID: "s1", ToolCallID: call, Arguments: args,
		Call: json.RawMessage(`{"question":"Q?"}`), Who: f.agent.Name, At: time.Now()}
}

func TestPeopleAndAgents(t *testing.T) {
	eachStore(t, func(t *testing.T, open func() store.Store) {
		ctx := context.Background()
		s := open()
		f := setup(t, s, 90*time.Second)
		_, err := s.AddPerson(ctx, "ada")
		assert.ErrorIs(t, err, store.ErrExists)
		_, err = s.AddAgent(ctx, store.NewAgent{PersonID: f.person.ID, Name: "ci", TokenHash: "h2"})
		assert.ErrorIs(t, err, store.ErrExists, "same name")
		_, err = s.AddAgent(ctx, store.NewAgent{PersonID: f.person.ID, Name: "other", TokenHash: "h1"})
		assert.ErrorIs(t, err, store.ErrExists, "same token hash")

		a, err := s.AgentByTokenHash(ctx, "h1")
		require.NoError(t, err)
		assert.Equal(t, "ci", a.Name)
		assert.Equal(t, 90*time.Second, a.Deadline)
		assert.False(t, a.Revoked())
		_, err = s.AgentByTokenHash(ctx, "nope")
		assert.ErrorIs(t, err, store.ErrNotFound)

		r, err := s.RevokeAgent(ctx, "ci", time.Now())
		require.NoError(t, err)
		assert.True(t, r.Revoked())
		a, err = s.AgentByTokenHash(ctx, "h1")
		require.NoError(t, err)
		assert.True(t, a.Revoked(), "a revoked agent is found, and says so")

		p, err := s.PersonByName(ctx, "ada")
		require.NoError(t, err)
		assert.Equal(t, f.person.ID, p.ID)
		all, err := s.People(ctx)
		require.NoError(t, err)
		assert.Len(t, all, 1)
		agents, err := s.Agents(ctx)
		require.NoError(t, err)
		assert.Len(t, agents, 1)
	})
}

func TestCreateAskIsIdempotent(t *testing.T) {
	eachStore(t, func(t *testing.T, open func() store.Store) {
		ctx := context.Background()
		s := open()
		f := setup(t, s, 0)
		a, created, err := s.CreateAsk(ctx, newAsk(f, "c1", `{"question":"Q?"}`))
		require.NoError(t, err)
		assert.True(t, created)
		assert.Equal(t, store.StatePending, a.State)
		assert.Equal(t, "ci", a.AgentName)
		assert.Equal(t, f.person.ID, a.PersonID)
		assert.True(t, a.ExpiresAt.IsZero())

		// Another process replays the same call: the same ask.
		b, created, err := open().CreateAsk(ctx, newAsk(f, "c1", `{"question":"Q?"}`))
		require.NoError(t, err)
		assert.False(t, created)
		assert.Equal(t, a.ID, b.ID)

		_, _, err = s.CreateAsk(ctx, newAsk(f, "c1", `{"question":"Other?"}`))
		assert.ErrorIs(t, err, store.ErrConflict)

		n := newAsk(f, "c1", `{"question":"Q?"}`)
		n.SessionID = "s2"
		c, created, err := s.CreateAsk(ctx, n)
		require.NoError(t, err)
		assert.True(t, created, "another session is another ask")
		assert.NotEqual(t, a.ID, c.ID)

		pending, err := s.Asks(ctx, store.AskFilter{PersonID: f.person.ID, State: store.StatePending})
		require.NoError(t, err)
		assert.Len(t, pending, 2)
		evs, err := s.Events(ctx, store.EventFilter{AskID: a.ID})
		require.NoError(t, err)
		require.Len(t, evs, 1, "one asked event: the replay asked nothing")
		assert.Equal(t, store.EventAsked, evs[0].Kind)
	})
}

// TestOneReplyWins: 50 replies at once through two stores on one
// database (two hub processes): exactly one wins, every other one reads
// its outcome, and the log holds one replied event.
func TestOneReplyWins(t *testing.T) {
	eachStore(t, func(t *testing.T, open func() store.Store) {
		ctx := context.Background()
		stores := []store.Store{open(), open()}
		f := setup(t, stores[0], 0)
		a, _, err := stores[0].CreateAsk(ctx, newAsk(f, "c1", `{"question":"Q?"}`))
		require.NoError(t, err)

		const n = 50
		var wg sync.WaitGroup
		results := make([]store.Ask, n)
		won := make([]bool, n)
		errs := make([]error, n)
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				reply, _ := json.Marshal(map[string]any{"lines": []string{string(rune('a' + i%26))}})
				results[i], won[i], errs[i] = stores[i%2].Reply(ctx, store.Transition{AskID: a.ID, Who: "ada", Where: "device", At: time.Now(), Reply: reply})
			}()
		}
		wg.Wait()
		winners := 0
		var winner store.Ask
		for i := range n {
			require.NoError(t, errs[i])
			if won[i] {
				winners++
				winner = results[i]
			}
		}
		require.Equal(t, 1, winners)
		for i := range n {
			assert.Equal(t, store.StateReplied, results[i].State)
			assert.JSONEq(t, string(winner.Reply), string(results[i].Reply), "every loser reads the winner's reply")
		}
		evs, err := stores[1].Events(ctx, store.EventFilter{AskID: a.ID})
		require.NoError(t, err)
		require.Len(t, evs, 2)
		assert.Equal(t, store.EventReplied, evs[1].Kind)
		assert.JSONEq(t, string(winner.Reply), string(evs[1].Detail))
	})
}

// TestExpiryRacesReply: a reply and the deadline at the same moment end
// the ask once, either way, with one event.
func TestExpiryRacesReply(t *testing.T) {
	eachStore(t, func(t *testing.T, open func() store.Store) {
		ctx := context.Background()
		s1, s2 := open(), open()
		f := setup(t, s1, time.Second)
		for i := range 10 {
			n := newAsk(f, "race"+string(rune('0'+i)), `{"question":"Q?"}`)
			n.ExpiresAt = n.At
			a, _, err := s1.CreateAsk(ctx, n)
			require.NoError(t, err)
			var wg sync.WaitGroup
			var replied store.Ask
			var won bool
			var rerr, eerr error
			var expired []store.Ask
			wg.Add(2)
			go func() {
				defer wg.Done()
				replied, won, rerr = s1.Reply(ctx, store.Transition{AskID: a.ID, Who: "ada", At: time.Now(), Reply: json.RawMessage(`{"decline":true}`)})
			}()
			go func() { defer wg.Done(); expired, eerr = s2.ExpireDue(ctx, time.Now()) }()
			wg.Wait()
			require.NoError(t, rerr)
			require.NoError(t, eerr)
			assert.NotEqual(t, won, len(expired) == 1, "exactly one of reply and expiry wins")
			if won {
				assert.Equal(t, store.StateReplied, replied.State)
			} else {
				assert.Equal(t, store.StateExpired, replied.State)
			}
			evs, err := s1.Events(ctx, store.EventFilter{AskID: a.ID})
			require.NoError(t, err)
			assert.Len(t, evs, 2)
		}
	})
}

func TestWithdraw(t *testing.T) {
	eachStore(t, func(t *testing.T, open func() store.Store) {
		ctx := context.Background()
		s := open()
		f := setup(t, s, 0)
		a, _, err := s.CreateAsk(ctx, newAsk(f, "c1", `{}`))
		require.NoError(t, err)
		w, won, err := s.Withdraw(ctx, store.Transition{AskID: a.ID, Who: "ci", Where: "agent", At: time.Now()})
		require.NoError(t, err)
		assert.True(t, won)
		assert.Equal(t, store.StateWithdrawn, w.State)
		r, won, err := s.Reply(ctx, store.Transition{AskID: a.ID, Who: "ada", At: time.Now(), Reply: json.RawMessage(`{"decline":true}`)})
		require.NoError(t, err)
		assert.False(t, won, "a withdrawn ask takes no reply")
		assert.Equal(t, store.StateWithdrawn, r.State)
		assert.Nil(t, r.Reply)
		_, _, err = s.Reply(ctx, store.Transition{AskID: "ask_none", At: time.Now(), Reply: json.RawMessage(`{}`)})
		assert.ErrorIs(t, err, store.ErrNotFound)
	})
}

// TestWatchWakesAcrossStores: a reply committed by one process wakes a
// watcher of another (NOTIFY on PostgreSQL, the event-log tail on
// SQLite), and the watcher of the same process at once.
func TestWatchWakesAcrossStores(t *testing.T) {
	eachStore(t, func(t *testing.T, open func() store.Store) {
		ctx := context.Background()
		s1, s2 := open(), open()
		f := setup(t, s1, 0)
		a, _, err := s1.CreateAsk(ctx, newAsk(f, "c1", `{}`))
		require.NoError(t, err)
		local, stopLocal := s1.Watch(store.AskKey(a.ID))
		defer stopLocal()
		remote, stopRemote := s2.Watch(store.AskKey(a.ID))
		defer stopRemote()
		person, stopPerson := s2.Watch(store.PersonKey(f.person.ID))
		defer stopPerson()
		_, _, err = s1.Reply(ctx, store.Transition{AskID: a.ID, Who: "ada", At: time.Now(), Reply: json.RawMessage(`{"decline":true}`)})
		require.NoError(t, err)
		for name, c := range map[string]<-chan struct{}{"local": local, "remote": remote, "person": person} {
			select {
			case <-c:
			case <-time.After(10 * time.Second):
				t.Fatalf("%s watcher not woken", name)
			}
		}
	})
}

func TestSigninLinkIsSingleUse(t *testing.T) {
	eachStore(t, func(t *testing.T, open func() store.Store) {
		ctx := context.Background()
		s := open()
		f := setup(t, s, 0)
		now := time.Now()
		require.NoError(t, s.CreateSigninLink(ctx, store.SigninLink{TokenHash: "L", PersonID: f.person.ID, ExpiresAt: now.Add(time.Minute)}))
		require.NoError(t, s.CreateSigninLink(ctx, store.SigninLink{TokenHash: "old", PersonID: f.person.ID, ExpiresAt: now.Add(-time.Second)}))
		l, err := s.SigninLink(ctx, "L")
		require.NoError(t, err)
		assert.True(t, l.UsedAt.IsZero(), "reading a link does not use it")

		var wg sync.WaitGroup
		var ok sync.Map
		for i := range 10 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if p, err := s.ConsumeSigninLink(ctx, "L", now); err == nil {
					ok.Store(i, p)
				} else if !errors.Is(err, store.ErrNotFound) {
					t.Error(err)
				}
			}()
		}
		wg.Wait()
		n := 0
		ok.Range(func(_, p any) bool { n++; assert.Equal(t, f.person.ID, p); return true })
		assert.Equal(t, 1, n, "one use of ten")
		_, err = s.ConsumeSigninLink(ctx, "old", now)
		assert.ErrorIs(t, err, store.ErrNotFound, "expired")
		_, err = s.ConsumeSigninLink(ctx, "nope", now)
		assert.ErrorIs(t, err, store.ErrNotFound)
	})
}

func TestWebSessions(t *testing.T) {
	eachStore(t, func(t *testing.T, open func() store.Store) {
		ctx := context.Background()
		s := open()
		f := setup(t, s, 0)
		now := time.Now()
		require.NoError(t, s.CreateWebSession(ctx, store.WebSession{TokenHash: "W", PersonID: f.person.ID, CSRFToken: "c", CreatedAt: now, ExpiresAt: now.Add(time.Hour)}))
		w, err := s.WebSession(ctx, "W", now)
		require.NoError(t, err)
		assert.Equal(t, "c", w.CSRFToken)
		_, err = s.WebSession(ctx, "W", now.Add(2*time.Hour))
		assert.ErrorIs(t, err, store.ErrNotFound, "expired")
		require.NoError(t, s.DeleteWebSession(ctx, "W"))
		_, err = s.WebSession(ctx, "W", now)
		assert.ErrorIs(t, err, store.ErrNotFound, "deleted")
	})
}

func TestOutbox(t *testing.T) {
	eachStore(t, func(t *testing.T, open func() store.Store) {
		ctx := context.Background()
		s := open()
		now := time.Now()
		id, err := s.EnqueueOutbox(ctx, "webhook", json.RawMessage(`{"ask":"x"}`), now)
		require.NoError(t, err)
		due, err := s.DueOutbox(ctx, now, 10)
		require.NoError(t, err)
		require.Len(t, due, 1)
		require.NoError(t, s.MarkOutbox(ctx, id, false, now.Add(time.Minute)))
		due, err = s.DueOutbox(ctx, now, 10)
		require.NoError(t, err)
		assert.Empty(t, due, "retried later")
		require.NoError(t, s.MarkOutbox(ctx, id, true, now))
		due, err = s.DueOutbox(ctx, now.Add(time.Hour), 10)
		require.NoError(t, err)
		assert.Empty(t, due, "delivered")
	})
}

func TestSQLiteFileModes(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data", "askcore")
	s, err := store.OpenSQLite(context.Background(), filepath.Join(dir, "hub.db"))
	require.NoError(t, err)
	defer s.Close()
	st, err := os.Stat(dir)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o700), st.Mode().Perm())
	st, err = os.Stat(filepath.Join(dir, "hub.db"))
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), st.Mode().Perm())
}

func TestNotifyTargetsAndClaim(t *testing.T) {
	eachStore(t, func(t *testing.T, open func() store.Store) {
		ctx := context.Background()
		s := open()
		f := setup(t, s, 0)
		tg, err := s.AddNotifyTarget(ctx, store.NotifyTarget{PersonID: f.person.ID, Kind: store.NotifyWebhook, URL: "https://x/", Secret: "whsec_1"})
		require.NoError(t, err)
		got, err := s.NotifyTarget(ctx, tg.ID)
		require.NoError(t, err)
		assert.Equal(t, "whsec_1", got.Secret)
		all, err := s.NotifyTargets(ctx, 0)
		require.NoError(t, err)
		assert.Len(t, all, 1)

		a, _, err := s.CreateAsk(ctx, newAsk(f, "c1", "args"))
		require.NoError(t, err)
		now := time.Now().Add(time.Second)
		claimed, err := s.ClaimOutbox(ctx, now, time.Minute, 10)
		require.NoError(t, err)
		require.Len(t, claimed, 1, "one row per target, written with the ask")
		var p store.AskedPayload
		require.NoError(t, json.Unmarshal(claimed[0].Payload, &p))
		assert.Equal(t, store.AskedPayload{TargetID: tg.ID, AskID: a.ID}, p)
		again, err := s.ClaimOutbox(ctx, now, time.Minute, 10)
		require.NoError(t, err)
		assert.Empty(t, again, "leased")
		again, err = s.ClaimOutbox(ctx, now.Add(2*time.Minute), time.Minute, 10)
		require.NoError(t, err)
		assert.Len(t, again, 1, "due again once the lease ends")

		require.NoError(t, s.RemoveNotifyTarget(ctx, tg.ID))
		assert.ErrorIs(t, s.RemoveNotifyTarget(ctx, tg.ID), store.ErrNotFound)
		_, err = s.NotifyTarget(ctx, tg.ID)
		assert.ErrorIs(t, err, store.ErrNotFound)
	})
}

// TestPostgresSetupHint: the errors a newcomer meets first on PostgreSQL
// (the role does not exist, the database does not exist) say what to run.
func TestPostgresSetupHint(t *testing.T) {
	base, err := url.Parse(pgtest.NewDB(t))
	require.NoError(t, err)
	for _, tc := range []struct {
		name, user, db string
		want           []string
	}{
		{"no role", "hub_nobody", "askcore", []string{`role "hub_nobody" does not exist`, "createuser --pwprompt hub_nobody", "createdb --owner hub_nobody askcore"}},
		{"no database", base.User.Username(), "askcore_missing", []string{`database "askcore_missing" does not exist`, "createdb --owner " + base.User.Username() + " askcore_missing"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			u := *base
			if p, ok := base.User.Password(); ok && tc.user == base.User.Username() {
				u.User = url.UserPassword(tc.user, p)
			} else {
				u.User = url.User(tc.user)
			}
			u.Path = "/" + tc.db
			_, err := store.Open(context.Background(), u.String())
			require.Error(t, err)
			for _, w := range tc.want {
				assert.Contains(t, err.Error(), w)
			}
		})
	}
}
