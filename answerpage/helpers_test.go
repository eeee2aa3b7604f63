package answerpage

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/askcore/askcore"
	"github.com/askcore/askcore/internal/testing/leaktest"
	"github.com/askcore/askcore/internal/testing/pagetest"
	"github.com/askcore/askcore/internal/testing/syncbuf"
)

func TestMain(m *testing.M) { leaktest.VerifyTestMain(m) }

// patience bounds every wait of a test; only a failing test waits that long.
const patience = 60 * time.Second

// page is a test's view of one answer page: the server, the seam asking
// through it, and a browser on it (pagetest) that speaks as the page does.
type page struct {
	t   *testing.T
	srv *Server
	svc *askcore.Service
	log *syncbuf.Buffer
}

func newPage(t *testing.T, opts ...Option) *page {
	t.Helper()
	log := &syncbuf.Buffer{}
	core := askcore.NewCore(nil)
	srv := New(core, append([]Option{WithLog(log), WithEnv(func(string) string { return "" })}, opts...)...)
	svc := askcore.NewService(core)
	dispose, err := svc.Register(srv.Provider())
	require.NoError(t, err)
	p := &page{t: t, srv: srv, svc: svc, log: log}
	t.Cleanup(func() {
		dispose()
		srv.Close()
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

// browser is a browser on the page at its current URL.
func (p *page) browser() *pagetest.Page {
	p.t.Helper()
	raw := p.srv.URL()
	require.NotEmpty(p.t, raw, "the server does not listen")
	return pagetest.Open(p.t, raw)
}

// base is the page's URL, once the server listens.
func (p *page) base() *url.URL { return p.browser().URL() }

// origin is the page's origin, as the browser sends it.
func (p *page) origin() string { return p.browser().Origin() }

// request sends one request to the server as the page does (its Host,
// Origin, Sec-Fetch-Site), then applies tweak.
func (p *page) request(method, path string, body []byte, tweak func(*http.Request)) *http.Response {
	p.t.Helper()
	return p.browser().Request(context.Background(), method, path, body, tweak)
}

// path is a path below the token.
func (p *page) path(name string) string { return p.browser().Path(name) }

// answer posts a reply to question id; it returns the status and body.
func (p *page) answer(id string, reply any, tweak func(*http.Request)) (int, answerResponse) {
	p.t.Helper()
	status, b := p.browser().Post(id, reply, tweak)
	var r answerResponse
	if json.Valid(b) {
		require.NoError(p.t, json.Unmarshal(b, &r), string(b))
	} else {
		r.Message = strings.TrimSpace(string(b))
	}
	return status, r
}

// stream is an open event stream of the page.
type stream struct {
	*pagetest.Stream
	t *testing.T
}

// events opens the page's event stream.
func (p *page) events() *stream {
	p.t.Helper()
	return &stream{p.browser().Events(), p.t}
}

// next returns the next event with one of names, skipping others.
func (s *stream) next(names ...string) pagetest.Event {
	s.t.Helper()
	return s.Next(names...)
}

// added waits for the next question on the page and returns it.
func (s *stream) added() pageCall {
	s.t.Helper()
	q := s.Question()
	c := pageCall{ID: q.ID, Call: q.Call}
	if f := pageFrom(q.From); f != (pageFrom{}) {
		c.From = &f
	}
	return c
}

// ended waits for the next question to end and returns how.
func (s *stream) ended() endInfo {
	s.t.Helper()
	return endInfo(s.Ended())
}

// startAsk asks arguments and returns the question as the page sees it.
func (p *page) startAsk(ctx context.Context, arguments string, opts askcore.AskOptions) (pageCall, *stream, <-chan result) {
	p.t.Helper()
	_, err := p.srv.Start()
	require.NoError(p.t, err)
	s := p.events()
	require.Equal(p.t, "pending", s.next("pending").Name)
	ch := p.ask(ctx, arguments, opts)
	return s.added(), s, ch
}

func pick(options ...int) askcore.Pick { return askcore.Pick{Options: options} }

const dbArgs = `{"header":"Database","question":"Which database?","options":[{"label":"PostgreSQL","value":"postgres","recommended":true},{"label":"SQLite"},{"label":"MySQL"}],"allowCustom":true}`
