package answerpage

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/askcore/askcore"
	"github.com/askcore/askcore/internal/leaktest"
)

func TestMain(m *testing.M) { leaktest.VerifyTestMain(m) }

// patience bounds every wait of a test; only a failing test waits that long.
const patience = 60 * time.Second

// syncBuffer is a log the server writes while the test reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// page is a test's view of one answer page: the server, the seam asking
// through it, and an HTTP client that speaks as the page does.
type page struct {
	t      *testing.T
	srv    *Server
	svc    *askcore.Service
	log    *syncBuffer
	client *http.Client
}

func newPage(t *testing.T, opts ...Option) *page {
	t.Helper()
	log := &syncBuffer{}
	core := askcore.NewCore(nil)
	srv := New(core, append([]Option{WithLog(log), WithEnv(func(string) string { return "" })}, opts...)...)
	svc := askcore.NewService(core)
	dispose, err := svc.Register(srv.Provider())
	require.NoError(t, err)
	tr := &http.Transport{DisableCompression: true}
	p := &page{t: t, srv: srv, svc: svc, log: log, client: &http.Client{Transport: tr, Timeout: patience}}
	t.Cleanup(func() {
		dispose()
		srv.Close()
		tr.CloseIdleConnections()
	})
	return p
}

// result is what one Service.Ask returned.
type result struct {
	answer askcore.Answer
	err    error
}

// ask asks arguments through the page in the background.
func (p *page) ask(ctx context.Context, arguments string, opts askcore.AskOptions) <-chan result {
	ch := make(chan result, 1)
	go func() {
		a, err := p.svc.Ask(ctx, arguments, opts)
		ch <- result{a, err}
	}()
	return ch
}

func (p *page) wait(ch <-chan result) result {
	p.t.Helper()
	select {
	case r := <-ch:
		return r
	case <-time.After(patience):
		p.t.Fatal("the ask did not return")
		return result{}
	}
}

// base is the page's URL, once the server listens.
func (p *page) base() *url.URL {
	p.t.Helper()
	raw := p.srv.URL()
	require.NotEmpty(p.t, raw, "the server does not listen")
	u, err := url.Parse(raw)
	require.NoError(p.t, err)
	return u
}

// origin is the page's origin, as the browser sends it.
func (p *page) origin() string {
	u := p.base()
	return u.Scheme + "://" + u.Host
}

// request sends one request to the server as the page does (its Host,
// Origin, Sec-Fetch-Site), then applies tweak.
func (p *page) request(method, path string, body []byte, tweak func(*http.Request)) *http.Response {
	p.t.Helper()
	u := p.base()
	target := u.Scheme + "://" + u.Host + path
	var r io.Reader
	if body != nil {
		r = bytes.NewReader(body)
	}
	req, err := http.NewRequest(method, target, r)
	require.NoError(p.t, err)
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	if method == http.MethodPost {
		req.Header.Set("Origin", p.origin())
		req.Header.Set("Content-Type", "application/json")
	}
	if tweak != nil {
		tweak(req)
	}
	res, err := p.client.Do(req)
	require.NoError(p.t, err)
	p.t.Cleanup(func() { res.Body.Close() })
	return res
}

// path is a path below the token.
func (p *page) path(name string) string { return p.base().Path + name }

// answer posts a reply to question id; it returns the status and body.
func (p *page) answer(id string, reply any, tweak func(*http.Request)) (int, answerResponse) {
	p.t.Helper()
	body, err := json.Marshal(map[string]any{"id": id, "reply": reply})
	require.NoError(p.t, err)
	res := p.request(http.MethodPost, p.path("answer"), body, tweak)
	b, err := io.ReadAll(res.Body)
	require.NoError(p.t, err)
	var r answerResponse
	if strings.HasPrefix(res.Header.Get("Content-Type"), "application/json") {
		require.NoError(p.t, json.Unmarshal(b, &r), string(b))
	} else {
		r.Message = strings.TrimSpace(string(b))
	}
	return res.StatusCode, r
}

// event is one server-sent event.
type event struct {
	name string
	data string
}

// stream is an open event stream of the page.
type stream struct {
	t      *testing.T
	events chan event
	cancel context.CancelFunc
}

// events opens the page's event stream.
func (p *page) events() *stream {
	p.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	u := p.base()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.Scheme+"://"+u.Host+p.path("events"), nil)
	require.NoError(p.t, err)
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	res, err := p.client.Do(req)
	require.NoError(p.t, err)
	require.Equal(p.t, http.StatusOK, res.StatusCode)
	require.Equal(p.t, "text/event-stream; charset=utf-8", res.Header.Get("Content-Type"))
	s := &stream{t: p.t, events: make(chan event, 64), cancel: cancel}
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer close(s.events)
		defer res.Body.Close()
		sc := bufio.NewScanner(res.Body)
		sc.Buffer(make([]byte, 1<<20), 1<<22)
		var ev event
		for sc.Scan() {
			line := sc.Text()
			switch {
			case line == "":
				if ev.name != "" {
					s.events <- ev
				}
				ev = event{}
			case strings.HasPrefix(line, "event: "):
				ev.name = line[len("event: "):]
			case strings.HasPrefix(line, "data: "):
				ev.data = line[len("data: "):]
			}
		}
	}()
	p.t.Cleanup(func() {
		cancel()
		<-done
	})
	return s
}

// next returns the next event with one of names, skipping others.
func (s *stream) next(names ...string) event {
	s.t.Helper()
	deadline := time.After(patience)
	for {
		select {
		case ev, ok := <-s.events:
			if !ok {
				s.t.Fatalf("the event stream ended while waiting for %v", names)
			}
			for _, n := range names {
				if ev.name == n {
					return ev
				}
			}
		case <-deadline:
			s.t.Fatalf("no %v event", names)
		}
	}
}

// added waits for the next question on the page and returns it.
func (s *stream) added() pageCall {
	s.t.Helper()
	for {
		ev := s.next("pending", "add")
		if ev.name == "add" {
			var c pageCall
			require.NoError(s.t, json.Unmarshal([]byte(ev.data), &c))
			return c
		}
		var snap struct{ Items []pageCall }
		require.NoError(s.t, json.Unmarshal([]byte(ev.data), &snap))
		if len(snap.Items) > 0 {
			return snap.Items[len(snap.Items)-1]
		}
	}
}

// ended waits for the next question to end and returns how.
func (s *stream) ended() endInfo {
	s.t.Helper()
	ev := s.next("end")
	var e endInfo
	require.NoError(s.t, json.Unmarshal([]byte(ev.data), &e))
	return e
}

// startAsk asks arguments and returns the question as the page sees it.
func (p *page) startAsk(ctx context.Context, arguments string, opts askcore.AskOptions) (pageCall, *stream, <-chan result) {
	p.t.Helper()
	_, err := p.srv.Start()
	require.NoError(p.t, err)
	s := p.events()
	require.Equal(p.t, "pending", s.next("pending").name)
	ch := p.ask(ctx, arguments, opts)
	return s.added(), s, ch
}

// coreAnswer is what the core answers for arguments and a reply.
func coreAnswer(t *testing.T, arguments string, reply askcore.Reply) string {
	t.Helper()
	ctx := context.Background()
	call, err := askcore.NewCore(nil).Normalize(ctx, arguments)
	require.NoError(t, err)
	a, err := call.Resolve(ctx, reply)
	require.NoError(t, err)
	return string(a.JSON())
}

// coreError is the core's error object for a failure.
func coreError(f askcore.Failure) string {
	return string(askcore.NewCore(nil).Fail(context.Background(), f).JSON())
}

func pick(options ...int) askcore.Pick { return askcore.Pick{Options: options} }

const dbArgs = `{"header":"Database","question":"Which database?","options":[{"label":"PostgreSQL","value":"postgres","recommended":true},{"label":"SQLite"},{"label":"MySQL"}],"allowCustom":true}`
