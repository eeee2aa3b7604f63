package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	hubstore "github.com/askcore/askcore/hub/store"
	"github.com/askcore/askcore/internal/testing/pgtest"
)

// inboxPatience bounds every wait of an inbox test; only a failing test
// waits that long.
const inboxPatience = 60 * time.Second

// inboxEnv is a test's hub: served over real HTTP on 127.0.0.1, on a real
// store, with people and agents made as the CLI makes them.
type inboxEnv struct {
	t      *testing.T
	base   *url.URL // http://127.0.0.1:PORT
	client *http.Client
	hooks  inboxEnvHooks
	srv    *Server
	store  hubstore.Store
	// stop stops the hub as a replica stops (its streams end, its
	// listener closes); the test's end stops it too.
	stop func()
}

// inboxEnvHooks are what the CLI does, done on the test's store.
type inboxEnvHooks struct {
	// link makes a sign-in link for the person (made when missing) that
	// expires after ttl, as askcore-hub login does, and returns its token.
	link func(person string, ttl time.Duration) string
	// agent adds an agent of the person and returns its token, as
	// askcore-hub agent add does.
	agent func(person, agent string) string
	// session reports whether the store holds a web session of this hash.
	session func(hash string) bool
}

func (e *inboxEnv) origin() string { return e.base.Scheme + "://" + e.base.Host }

// raw sends one request with no cookie, Origin or Sec-Fetch-Site, after
// tweak.
func (e *inboxEnv) raw(method, path string, body []byte, tweak func(*http.Request)) *http.Response {
	e.t.Helper()
	var r io.Reader
	if body != nil {
		r = bytes.NewReader(body)
	}
	req, err := http.NewRequest(method, e.origin()+path, r)
	require.NoError(e.t, err)
	if tweak != nil {
		tweak(req)
	}
	res, err := e.client.Do(req)
	require.NoError(e.t, err)
	e.t.Cleanup(func() { res.Body.Close() })
	return res
}

func readBody(t *testing.T, res *http.Response) string {
	t.Helper()
	b, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	return string(b)
}

// signinForm posts a sign-in link's token as the sign-in page does.
func (e *inboxEnv) signinForm(token string, tweak func(*http.Request)) *http.Response {
	e.t.Helper()
	body := []byte(url.Values{"token": {token}}.Encode())
	return e.raw(http.MethodPost, "/signin", body, func(req *http.Request) {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Origin", e.origin())
		req.Header.Set("Sec-Fetch-Site", "same-origin")
		if tweak != nil {
			tweak(req)
		}
	})
}

var csrfMeta = regexp.MustCompile(`<meta name="askcore-csrf" content="([A-Za-z0-9_-]+)">`)

// browser is one signed-in browser: its session cookie and the CSRF token
// of its page.
type browser struct {
	e      *inboxEnv
	cookie *http.Cookie
	csrf   string
}

// signin signs person in with a fresh link, as a browser does: the link's
// page, its button, the inbox.
func (e *inboxEnv) signin(person string) *browser {
	e.t.Helper()
	token := e.hooks.link(person, 10*time.Minute)
	res := e.raw(http.MethodGet, "/signin?token="+token, nil, nil)
	require.Equal(e.t, http.StatusOK, res.StatusCode)
	res = e.signinForm(token, nil)
	require.Equal(e.t, http.StatusSeeOther, res.StatusCode, readBody(e.t, res))
	require.Equal(e.t, "/", res.Header.Get("Location"))
	var cookie *http.Cookie
	for _, c := range res.Cookies() {
		if c.Name == inboxCookie || c.Name == inboxSecureCookie {
			cookie = c
		}
	}
	require.NotNil(e.t, cookie, "no session cookie")
	b := &browser{e: e, cookie: cookie}
	res = b.get("/")
	require.Equal(e.t, http.StatusOK, res.StatusCode)
	m := csrfMeta.FindStringSubmatch(readBody(e.t, res))
	require.NotNil(e.t, m, "no CSRF token on the page")
	b.csrf = m[1]
	return b
}

// do sends a request as the inbox page does (its cookie, Origin,
// Sec-Fetch-Site and CSRF header), then applies tweak.
func (b *browser) do(method, path string, body []byte, tweak func(*http.Request)) *http.Response {
	b.e.t.Helper()
	return b.e.raw(method, path, body, func(req *http.Request) {
		req.AddCookie(&http.Cookie{Name: b.cookie.Name, Value: b.cookie.Value})
		req.Header.Set("Sec-Fetch-Site", "same-origin")
		if method != http.MethodGet && method != http.MethodHead {
			req.Header.Set("Origin", b.e.origin())
			req.Header.Set(inboxCSRFHeader, b.csrf)
			req.Header.Set("Content-Type", "application/json")
		}
		if tweak != nil {
			tweak(req)
		}
	})
}

func (b *browser) get(path string) *http.Response { return b.do(http.MethodGet, path, nil, nil) }

// reply posts a reply to ask id; it returns the status and the verdict.
func (b *browser) reply(id string, reply any, tweak func(*http.Request)) (int, inboxVerdict) {
	b.e.t.Helper()
	body, err := json.Marshal(map[string]any{"id": id, "reply": reply})
	require.NoError(b.e.t, err)
	res := b.do(http.MethodPost, "/inbox/reply", body, tweak)
	raw := readBody(b.e.t, res)
	var v inboxVerdict
	if strings.HasPrefix(res.Header.Get("Content-Type"), "application/json") {
		require.NoError(b.e.t, json.Unmarshal([]byte(raw), &v), raw)
	} else {
		v.Message = strings.TrimSpace(raw)
	}
	return res.StatusCode, v
}

// sse is one open event stream of the inbox.
type sse struct {
	t    *testing.T
	sc   *bufio.Scanner
	stop context.CancelFunc
	// keepAlives counts the keep-alive comments read so far (the events'
	// readers skip them).
	keepAlives int
}

type sseEvent struct {
	name string
	data json.RawMessage
}

// events opens the browser's event stream.
func (b *browser) events() *sse {
	b.e.t.Helper()
	return b.eventsAt("/inbox/events")
}

// eventsAt opens the event stream at path (with its query).
func (b *browser) eventsAt(path string) *sse {
	b.e.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, b.e.origin()+path, nil)
	require.NoError(b.e.t, err)
	req.AddCookie(&http.Cookie{Name: b.cookie.Name, Value: b.cookie.Value})
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	res, err := b.e.client.Do(req)
	require.NoError(b.e.t, err)
	require.Equal(b.e.t, http.StatusOK, res.StatusCode)
	b.e.t.Cleanup(func() {
		cancel()
		res.Body.Close()
	})
	sc := bufio.NewScanner(res.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<22)
	return &sse{t: b.e.t, sc: sc, stop: cancel}
}

// next is the stream's next event other than "waiting": a program's poll
// renews its waiting time and may land between any two events a test
// expects, so tests about asks skip it; nextAny is for the tests about it.
func (s *sse) next() sseEvent {
	s.t.Helper()
	for {
		if ev := s.nextAny(); ev.name != "waiting" {
			return ev
		}
	}
}

// ends reads the stream to its end (events included) and fails if it does
// not end.
func (s *sse) ends() {
	s.t.Helper()
	var late atomic.Bool
	timer := time.AfterFunc(inboxPatience, func() {
		late.Store(true)
		s.stop()
	})
	defer timer.Stop()
	for s.sc.Scan() {
	}
	require.False(s.t, late.Load(), "the event stream did not end")
}

// nextAny is the stream's next event, whatever its name.
func (s *sse) nextAny() sseEvent {
	s.t.Helper()
	timer := time.AfterFunc(inboxPatience, s.stop)
	defer timer.Stop()
	var ev sseEvent
	for s.sc.Scan() {
		line := s.sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			ev.name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			ev.data = json.RawMessage(strings.TrimPrefix(line, "data: "))
		case line == ": keep-alive":
			s.keepAlives++
		case line == "" && ev.name != "":
			return ev
		}
	}
	s.t.Fatalf("the event stream ended: %v", s.sc.Err())
	return ev
}

// agentClient is one agent on the agent API.
type agentClient struct {
	e     *inboxEnv
	token string
}

func (e *inboxEnv) agent(person, name string) *agentClient {
	return &agentClient{e: e, token: e.hooks.agent(person, name)}
}

func (a *agentClient) do(method, path string, body any) (int, map[string]any) {
	a.e.t.Helper()
	var raw []byte
	if body != nil {
		var err error
		raw, err = json.Marshal(body)
		require.NoError(a.e.t, err)
	}
	res := a.e.raw(method, path, raw, func(req *http.Request) {
		req.Header.Set("Authorization", "Bearer "+a.token)
		if body != nil {
			req.Header.Set("Content-Type", "application/json")
		}
	})
	text := readBody(a.e.t, res)
	var v map[string]any
	_ = json.Unmarshal([]byte(text), &v)
	return res.StatusCode, v
}

// ask creates an ask through the agent API and returns its id.
func (a *agentClient) ask(arguments any, toolCallID, sessionID string) string {
	a.e.t.Helper()
	args, err := json.Marshal(arguments)
	require.NoError(a.e.t, err)
	status, v := a.do(http.MethodPost, "/v1/asks", map[string]any{"arguments": string(args), "toolCallId": toolCallID, "sessionId": sessionID})
	require.Contains(a.e.t, []int{http.StatusOK, http.StatusCreated}, status, "%v", v)
	id, _ := v["id"].(string)
	require.NotEmpty(a.e.t, id)
	return id
}

// poll long-polls the ask for up to wait seconds.
func (a *agentClient) poll(id string, wait int) map[string]any {
	a.e.t.Helper()
	status, v := a.do(http.MethodGet, "/v1/asks/"+id+"?wait="+strconv.Itoa(wait), nil)
	require.Equal(a.e.t, http.StatusOK, status, "%v", v)
	return v
}

// dbRequest is a typical single question.
var dbRequest = map[string]any{
	"header":   "Database",
	"question": "Which database should the service use?",
	"options": []map[string]any{
		{"label": "PostgreSQL", "description": "Relational, robust", "recommended": true},
		{"label": "SQLite", "description": "Embedded, zero setup"},
	},
}

// inboxEachStore runs f on a hub over each store: SQLite in a temporary
// directory, and PostgreSQL (package pgtest; skipped with the reason where
// there is none).
func inboxEachStore(t *testing.T, f func(t *testing.T, e *inboxEnv)) {
	inboxEachStoreWith(t, Options{}, f)
}

func inboxEachStoreWith(t *testing.T, opts Options, f func(t *testing.T, e *inboxEnv)) {
	inboxEachStoreServed(t, opts, 0, f)
}

// inboxStores are the stores the inbox tests run on, each by how a test
// gets a fresh one's DSN.
var inboxStores = []struct {
	name string
	dsn  func(t *testing.T) string
}{
	{"sqlite", func(t *testing.T) string { return filepath.Join(t.TempDir(), "hub.db") }},
	{"postgres", func(t *testing.T) string { return pgtest.NewDB(t) }},
}

// inboxEachStoreServed is inboxEachStoreWith on an http.Server whose read
// and write timeouts are timeout (0: none), as askcore-hub serve sets them.
func inboxEachStoreServed(t *testing.T, opts Options, timeout time.Duration, f func(t *testing.T, e *inboxEnv)) {
	for _, b := range inboxStores {
		t.Run(b.name, func(t *testing.T) {
			store, err := hubstore.Open(context.Background(), b.dsn(t))
			require.NoError(t, err)
			t.Cleanup(func() { store.Close() })
			f(t, serveInboxEnv(t, store, opts, timeout))
		})
	}
}

// newInboxEnv serves the hub (the agent API and the inbox) on store over
// real HTTP on 127.0.0.1.
func newInboxEnv(t *testing.T, store hubstore.Store, opts Options) *inboxEnv {
	return serveInboxEnv(t, store, opts, 0)
}

// serveInboxEnv is newInboxEnv with the server's read and write timeouts
// set to timeout (0: none).
func serveInboxEnv(t *testing.T, store hubstore.Store, opts Options, timeout time.Duration) *inboxEnv {
	ctx := context.Background()
	opts.Store = store
	srv, err := New(opts)
	require.NoError(t, err)
	hs := httptest.NewUnstartedServer(srv.Handler())
	hs.Config.ReadTimeout, hs.Config.WriteTimeout = timeout, timeout
	hs.Start()
	runCtx, stop := context.WithCancel(ctx)
	ran := make(chan struct{})
	go func() {
		defer close(ran)
		srv.Expire(runCtx)
	}()
	var once sync.Once
	stopHub := func() {
		once.Do(func() {
			stop()
			<-ran
			srv.Close()
			hs.Close()
		})
	}
	t.Cleanup(stopHub)
	base, err := url.Parse(hs.URL)
	require.NoError(t, err)
	personOf := func(name string) hubstore.Person {
		p, err := store.PersonByName(ctx, name)
		if errors.Is(err, hubstore.ErrNotFound) {
			p, err = store.AddPerson(ctx, name)
		}
		require.NoError(t, err)
		return p
	}
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	client := &http.Client{
		Transport:     tr,
		Timeout:       inboxPatience,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	return &inboxEnv{t: t, base: base, client: client, srv: srv, store: store, stop: stopHub, hooks: inboxEnvHooks{
		link: func(person string, ttl time.Duration) string {
			token, hash := NewToken("")
			require.NoError(t, store.CreateSigninLink(ctx, hubstore.SigninLink{TokenHash: hash, PersonID: personOf(person).ID, ExpiresAt: time.Now().Add(ttl)}))
			return token
		},
		agent: func(person, name string) string {
			token, hash := NewToken(AgentTokenPrefix)
			_, err := store.AddAgent(ctx, hubstore.NewAgent{PersonID: personOf(person).ID, Name: name, TokenHash: hash})
			require.NoError(t, err)
			return token
		},
		session: func(hash string) bool {
			_, err := store.WebSession(ctx, hash, time.Now())
			return err == nil
		},
	}}
}
