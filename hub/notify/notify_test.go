package notify_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/askcore/askcore/hub/notify"
	"github.com/askcore/askcore/hub/store"
	"github.com/askcore/askcore/internal/testing/pgtest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(pgtest.Run{M: m}) }

var backends = []struct {
	name string
	dsn  func(t *testing.T) string
}{
	{"sqlite", func(t *testing.T) string { return filepath.Join(t.TempDir(), "hub.db") }},
	{"postgres", func(t *testing.T) string { return pgtest.NewDB(t) }},
}

// eachStore runs f on both stores; open opens another Store on the same
// database, as another hub process would.
func eachStore(t *testing.T, f func(t *testing.T, open func() store.Store)) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			dsn := b.dsn(t)
			f(t, func() store.Store {
				s, err := store.Open(context.Background(), dsn)
				require.NoError(t, err)
				t.Cleanup(func() { s.Close() })
				return s
			})
		})
	}
}

type delivery struct {
	header http.Header
	body   []byte
}

// receiver is a real HTTP server on 127.0.0.1: respond decides each
// request's fate (a status, or hang until the request is abandoned).
type receiver struct {
	srv *httptest.Server
	mu  sync.Mutex
	all []delivery
	ok  []delivery
}

const hang = -1

func newReceiver(t *testing.T, respond func(n int) int) *receiver {
	r := &receiver{}
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		n := len(r.all)
		r.all = append(r.all, delivery{req.Header.Clone(), body})
		code := respond(n)
		if code == http.StatusOK {
			r.ok = append(r.ok, delivery{req.Header.Clone(), body})
		}
		r.mu.Unlock()
		if code == hang {
			<-req.Context().Done()
			return
		}
		w.WriteHeader(code)
	}))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *receiver) counts() (all, ok int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.all), len(r.ok)
}

type fixture struct {
	agent  store.Agent
	target store.NotifyTarget
}

func setup(t *testing.T, s store.Store, kind, url, secret string) fixture {
	ctx := context.Background()
	p, err := s.AddPerson(ctx, "ada")
	require.NoError(t, err)
	a, err := s.AddAgent(ctx, store.NewAgent{PersonID: p.ID, Name: "ci-runner", TokenHash: "h1"})
	require.NoError(t, err)
	tg, err := s.AddNotifyTarget(ctx, store.NotifyTarget{PersonID: p.ID, Kind: kind, URL: url, Secret: secret})
	require.NoError(t, err)
	return fixture{a, tg}
}

const call = `{"header":"Database","question":"Which database?","options":[{"label":"SQLite","value":"SQLite"}],"allowCustom":false}`

func ask(t *testing.T, s store.Store, f fixture, id string) store.Ask {
	a, created, err := s.CreateAsk(context.Background(), store.NewAsk{AgentID: f.agent.ID, SessionID: "s1", ToolCallID: id,
		Arguments: call, Call: json.RawMessage(call), Who: f.agent.Name, At: time.Now()})
	require.NoError(t, err)
	require.True(t, created)
	return a
}

// notifier's timeout is what a hanging receiver costs a test, and the
// time an answering one has to answer: a delivery answered after it is a
// failed attempt, sent again (at least once is the contract), and with
// 300 ms a loaded CI machine had the receiver's 200 arrive late and the
// webhook delivered twice.
func notifier(s store.Store) *notify.Notifier {
	return notifierTimeout(s, 3*time.Second)
}

func notifierTimeout(s store.Store, timeout time.Duration) *notify.Notifier {
	return notify.New(notify.Options{Store: s, InboxURL: "https://hub.example/", Timeout: timeout,
		Backoff: func(int) time.Duration { return 0 }})
}

// drain runs the notifier until the outbox has nothing due, at most n
// rounds.
func drain(t *testing.T, s store.Store, n *notify.Notifier, rounds int) {
	t.Helper()
	for range rounds {
		n.RunOnce(context.Background())
		due, err := s.DueOutbox(context.Background(), time.Now().Add(time.Hour), 10)
		require.NoError(t, err)
		if len(due) == 0 {
			return
		}
	}
	t.Fatalf("outbox not drained in %d rounds", rounds)
}

func TestWebhookFailsThenRecoversDeliveredOnceSigned(t *testing.T) {
	eachStore(t, func(t *testing.T, open func() store.Store) {
		s := open()
		// 500, then a hang past the timeout, then 200.
		r := newReceiver(t, func(n int) int {
			switch n {
			case 0:
				return http.StatusInternalServerError
			case 1:
				return hang
			}
			return http.StatusOK
		})
		secret := notify.NewSecret()
		f := setup(t, s, store.NotifyWebhook, r.srv.URL+"/hook", secret)
		a := ask(t, s, f, "c1")
		n := notifier(s)
		drain(t, s, n, 10)
		n.RunOnce(context.Background()) // nothing more is due
		all, ok := r.counts()
		assert.Equal(t, 3, all, "two failed attempts and one delivery")
		require.Equal(t, 1, ok, "delivered exactly once")

		d := r.ok[0]
		require.NoError(t, notify.Verify(secret, d.header.Get(notify.SignatureHeader), d.body, time.Now(), 5*time.Minute))
		assert.Error(t, notify.Verify("whsec_other", d.header.Get(notify.SignatureHeader), d.body, time.Now(), 5*time.Minute))
		assert.Error(t, notify.Verify(secret, d.header.Get(notify.SignatureHeader), append(d.body, ' '), time.Now(), 5*time.Minute))
		assert.Error(t, notify.Verify(secret, d.header.Get(notify.SignatureHeader), d.body, time.Now().Add(time.Hour), 5*time.Minute), "replayed an hour later")
		for _, x := range r.all {
			assert.Equal(t, fmt.Sprintf("%s.%d", a.ID, f.target.ID), x.header.Get(notify.DeliveryHeader), "one delivery id on every attempt")
		}
		var w notify.Webhook
		require.NoError(t, json.Unmarshal(d.body, &w))
		assert.Equal(t, "ask.created", w.Type)
		assert.Equal(t, a.ID, w.Ask.ID)
		assert.Equal(t, "ci-runner", w.Ask.Agent)
		assert.Equal(t, "s1", w.Ask.Session)
		assert.JSONEq(t, call, string(w.Ask.Call))
		assert.Equal(t, "https://hub.example/", w.InboxURL)
		assert.WithinDuration(t, a.CreatedAt, w.Ask.CreatedAt, time.Millisecond)
		assert.Equal(t, "application/json", d.header.Get("Content-Type"))
	})
}

func TestOutboxSurvivesRestart(t *testing.T) {
	eachStore(t, func(t *testing.T, open func() store.Store) {
		r := newReceiver(t, func(int) int { return http.StatusOK })
		before := open()
		f := setup(t, before, store.NotifyWebhook, r.srv.URL, notify.NewSecret())
		a := ask(t, before, f, "c1")
		require.NoError(t, before.Close()) // the hub stops before delivering
		all, _ := r.counts()
		require.Zero(t, all)

		after := open()
		drain(t, after, notifier(after), 5)
		_, ok := r.counts()
		require.Equal(t, 1, ok)
		assert.Contains(t, string(r.ok[0].body), a.ID)
	})
}

func TestReplicasDeliverEachRowOnce(t *testing.T) {
	eachStore(t, func(t *testing.T, open func() store.Store) {
		r := newReceiver(t, func(int) int { return http.StatusOK })
		s1, s2 := open(), open()
		f := setup(t, s1, store.NotifyWebhook, r.srv.URL, notify.NewSecret())
		const asks = 30
		for i := range asks {
			ask(t, s1, f, fmt.Sprint("c", i))
		}
		// A delivery that times out is sent again (the receiver dedupes on
		// the delivery header); a patient timeout keeps this test to what
		// it checks, that two replicas never claim one row at once (with
		// 300 ms, a receiver slowed by load saw a retry).
		n1, n2 := notifierTimeout(s1, time.Minute), notifierTimeout(s2, time.Minute)
		var wg sync.WaitGroup
		for _, n := range []*notify.Notifier{n1, n2} {
			wg.Go(func() {
				for range 10 {
					n.RunOnce(context.Background())
				}
			})
		}
		wg.Wait()
		drain(t, s1, n1, 5)
		r.mu.Lock()
		defer r.mu.Unlock()
		seen := map[string]int{}
		for _, d := range r.all {
			seen[d.header.Get(notify.DeliveryHeader)]++
		}
		assert.Len(t, seen, asks)
		for id, c := range seen {
			assert.Equal(t, 1, c, "delivery %s", id)
		}
	})
}

func TestNtfy(t *testing.T) {
	eachStore(t, func(t *testing.T, open func() store.Store) {
		s := open()
		r := newReceiver(t, func(int) int { return http.StatusOK })
		f := setup(t, s, store.NotifyNtfy, r.srv.URL+"/askcore-ada", "tk_secret")
		ask(t, s, f, "c1")
		drain(t, s, notifier(s), 5)
		_, ok := r.counts()
		require.Equal(t, 1, ok)
		d := r.ok[0]
		assert.Equal(t, "Database: Which database?", string(d.body))
		assert.Equal(t, "ci-runner asks", d.header.Get("Title"))
		assert.Equal(t, "https://hub.example/", d.header.Get("Click"))
		assert.Equal(t, "question", d.header.Get("Tags"))
		assert.Equal(t, "Bearer tk_secret", d.header.Get("Authorization"))
	})
}

func TestAnsweredBeforeDeliveryIsNotSent(t *testing.T) {
	eachStore(t, func(t *testing.T, open func() store.Store) {
		s := open()
		r := newReceiver(t, func(int) int { return http.StatusOK })
		f := setup(t, s, store.NotifyWebhook, r.srv.URL, notify.NewSecret())
		a := ask(t, s, f, "c1")
		_, won, err := s.Withdraw(context.Background(), store.Transition{AskID: a.ID, Who: "ci-runner", At: time.Now()})
		require.NoError(t, err)
		require.True(t, won)
		drain(t, s, notifier(s), 5)
		all, _ := r.counts()
		assert.Zero(t, all)
	})
}

func TestRedirectIsAFailure(t *testing.T) {
	target := newReceiver(t, func(int) int { return http.StatusOK })
	redirect := httptest.NewServer(http.RedirectHandler(target.srv.URL, http.StatusTemporaryRedirect))
	t.Cleanup(redirect.Close)
	s, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "hub.db"))
	require.NoError(t, err)
	defer s.Close()
	f := setup(t, s, store.NotifyWebhook, redirect.URL, notify.NewSecret())
	ask(t, s, f, "c1")
	n := notify.New(notify.Options{Store: s, InboxURL: "x", Backoff: func(int) time.Duration { return time.Hour }})
	n.RunOnce(context.Background())
	all, _ := target.counts()
	assert.Zero(t, all, "the redirect is not followed")
	due, err := s.DueOutbox(context.Background(), time.Now().Add(2*time.Hour), 10)
	require.NoError(t, err)
	require.Len(t, due, 1)
	assert.Equal(t, 1, due[0].Attempts, "counted as a failed attempt, retried later")
}

func TestCheckURL(t *testing.T) {
	for _, u := range []string{"https://ntfy.sh/topic", "http://127.0.0.1:8080/hook"} {
		assert.NoError(t, notify.CheckURL(u), u)
	}
	for _, u := range []string{"file:///etc/passwd", "ftp://x/y", "/relative", "https://user:pw@x/", "javascript:alert(1)"} {
		assert.Error(t, notify.CheckURL(u), u)
	}
}
