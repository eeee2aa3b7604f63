package answerpage

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/askcore/askcore"
	"github.com/askcore/askcore/hostgo"
	"github.com/askcore/askcore/internal/testing/coretest"
	"github.com/askcore/askcore/internal/testing/pagetest"
	"github.com/askcore/askcore/internal/testing/syncbuf"
	"github.com/askcore/askcore/wasm"
)

func TestSecurityHeaders(t *testing.T) {
	p := newPage(t)
	_, err := p.srv.Start()
	require.NoError(t, err)
	check := func(res *http.Response, what string) {
		t.Helper()
		h := res.Header
		assert.Equal(t, ContentSecurityPolicy, h.Get("Content-Security-Policy"), what)
		assert.Equal(t, "no-referrer", h.Get("Referrer-Policy"), what)
		assert.Equal(t, "no-store", h.Get("Cache-Control"), what)
		assert.Equal(t, "nosniff", h.Get("X-Content-Type-Options"), what)
		assert.Equal(t, "DENY", h.Get("X-Frame-Options"), what)
		assertNoCORS(t, res)
	}
	for _, name := range []string{"", "page.js", "page.css", "favicon.svg", "host/browser.js", "host/dom.js", "host/dom.css", "host/lib/core.js", "host/askcore.wasm", "nothing-here"} {
		check(p.request(http.MethodGet, p.path(name), nil, nil), name)
	}
	check(p.request(http.MethodGet, "/", nil, nil), "no token")
	check(p.request(http.MethodGet, p.path(""), nil, func(r *http.Request) { r.Host = "evil.example:1" }), "wrong Host")
	status := p.request(http.MethodPost, p.path("answer"), []byte(`{}`), func(r *http.Request) { r.Header.Set("Origin", "http://evil.example") })
	check(status, "foreign Origin")
	// The policy: only the server's own scripts, the wasm compile, no
	// inline anything, no frames, Trusted Types.
	for _, want := range []string{"default-src 'none'", "script-src 'self' 'wasm-unsafe-eval'", "style-src 'self'", "connect-src 'self'",
		"frame-ancestors 'none'", "base-uri 'none'", "form-action 'none'", "require-trusted-types-for 'script'"} {
		assert.Contains(t, ContentSecurityPolicy, want)
	}
	assert.NotContains(t, ContentSecurityPolicy, "unsafe-inline")
	assert.NotContains(t, ContentSecurityPolicy, "'unsafe-eval'")
}

func TestStaticFiles(t *testing.T) {
	p := newPage(t)
	_, err := p.srv.Start()
	require.NoError(t, err)
	types := map[string]string{
		"":                  "text/html; charset=utf-8",
		"page.js":           "text/javascript; charset=utf-8",
		"host/browser.js":   "text/javascript; charset=utf-8",
		"host/dom.css":      "text/css; charset=utf-8",
		"favicon.svg":       "image/svg+xml",
		"host/askcore.wasm": "application/wasm",
	}
	var total, totalGz int
	for name, want := range types {
		plain := p.request(http.MethodGet, p.path(name), nil, nil)
		require.Equal(t, http.StatusOK, plain.StatusCode, name)
		assert.Equal(t, want, plain.Header.Get("Content-Type"), name)
		assert.Empty(t, plain.Header.Get("Content-Encoding"), name)
		body, err := io.ReadAll(plain.Body)
		require.NoError(t, err)
		gz := p.request(http.MethodGet, p.path(name), nil, func(r *http.Request) { r.Header.Set("Accept-Encoding", "gzip, deflate, br") })
		require.Equal(t, http.StatusOK, gz.StatusCode)
		assert.Equal(t, "gzip", gz.Header.Get("Content-Encoding"), name)
		assert.Equal(t, "Accept-Encoding", gz.Header.Get("Vary"))
		zipped, err := io.ReadAll(gz.Body)
		require.NoError(t, err)
		zr, err := gzip.NewReader(bytes.NewReader(zipped))
		require.NoError(t, err)
		unzipped, err := io.ReadAll(zr)
		require.NoError(t, err)
		assert.Equal(t, body, unzipped, name)
		total += len(body)
		totalGz += len(zipped)
	}
	// The module is the very bytes every Go host runs, and hostjs ships.
	res := p.request(http.MethodGet, p.path("host/askcore.wasm"), nil, nil)
	b, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	assert.True(t, bytes.Equal(wasm.Binary(), b), "the served askcore.wasm is wasm.Binary()")
	if js, err := os.ReadFile("../hostjs/askcore.wasm"); err == nil {
		assert.True(t, bytes.Equal(js, b), "the served askcore.wasm is hostjs/askcore.wasm")
	}
	// q=0 refuses gzip.
	res = p.request(http.MethodGet, p.path("page.js"), nil, func(r *http.Request) { r.Header.Set("Accept-Encoding", "gzip;q=0") })
	assert.Empty(t, res.Header.Get("Content-Encoding"))
	// HEAD: the headers, no body.
	res = p.request(http.MethodHead, p.path("host/askcore.wasm"), nil, nil)
	assert.Equal(t, http.StatusOK, res.StatusCode)
	assert.Equal(t, "application/wasm", res.Header.Get("Content-Type"))
	t.Logf("the files above: %d bytes, %d gzipped", total, totalGz)
}

// TestModuleServed: the module goes out as embedded (wasm.Gzip, byte for
// byte) to a browser that takes gzip, inflated to one that does not, under
// the page's locks either way, with the length of what is sent; it is
// hostjs/askcore.wasm, the module the JS host loads.
func TestModuleServed(t *testing.T) {
	p := newPage(t)
	_, err := p.srv.Start()
	require.NoError(t, err)
	js, err := os.ReadFile("../hostjs/askcore.wasm")
	require.NoError(t, err)
	require.True(t, bytes.Equal(js, wasm.Binary()), "hostjs/askcore.wasm is wasm.Binary(), byte for byte")
	for _, c := range pagetest.ModuleRequests {
		t.Run(c.Name, func(t *testing.T) {
			res := p.request(c.Method, p.path("host/askcore.wasm"), nil, func(r *http.Request) {
				if c.Accept != "" {
					r.Header.Set("Accept-Encoding", c.Accept)
				}
			})
			h := res.Header
			assert.Equal(t, ContentSecurityPolicy, h.Get("Content-Security-Policy"))
			assert.Equal(t, "no-store", h.Get("Cache-Control"))
			assert.Equal(t, "nosniff", h.Get("X-Content-Type-Options"))
			assert.Equal(t, "DENY", h.Get("X-Frame-Options"))
			assert.Equal(t, "no-referrer", h.Get("Referrer-Policy"))
			assertNoCORS(t, res)
			pagetest.AssertModuleSent(t, c, res)
		})
	}
}

// TestTransferSize measures what a browser loads for the page (gzip
// accepted): every file the page fetches.
func TestTransferSize(t *testing.T) {
	p := newPage(t)
	_, err := p.srv.Start()
	require.NoError(t, err)
	var plain, zipped int
	var names []string
	for name := range Files() {
		if name == "favicon.svg" {
			continue
		}
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		served := name
		if name == "index.html" {
			served = ""
		}
		res := p.request(http.MethodGet, p.path(served), nil, func(r *http.Request) { r.Header.Set("Accept-Encoding", "gzip") })
		require.Equal(t, http.StatusOK, res.StatusCode, name)
		b, err := io.ReadAll(res.Body)
		require.NoError(t, err)
		zipped += len(b)
		plain += len(Files()[name])
	}
	t.Logf("the page's transfer: %d files, %d bytes gzipped (%d bytes uncompressed; askcore.wasm %d)", len(names), zipped, plain, len(wasm.Binary()))
	assert.Less(t, zipped, plain/2, "gzip at least halves the page")
}

// TestHostFilesCurrent: the JS host the page serves is hostjs/'s, byte for
// byte (package hostjs embeds the npm package's own files).
func TestHostFilesCurrent(t *testing.T) {
	if _, err := os.Stat("../hostjs/browser.js"); err != nil {
		t.Skip("SKIP: no ../hostjs to compare with")
	}
	files := Files()
	want := map[string]bool{"host/browser.js": true, "host/dom.js": true, "host/dom.css": true}
	libs, err := filepath.Glob("../hostjs/lib/*.js")
	require.NoError(t, err)
	for _, l := range libs {
		want["host/lib/"+filepath.Base(l)] = true
	}
	for name := range want {
		js, err := os.ReadFile(filepath.Join("../hostjs", strings.TrimPrefix(name, "host/")))
		require.NoError(t, err)
		assert.True(t, bytes.Equal(js, files[name]), "%s differs from hostjs/", name)
	}
	for name := range files {
		if strings.HasPrefix(name, "host/") && name != wasmName {
			assert.True(t, want[name], "%s is not a file of hostjs/", name)
		}
	}
	// The page has no inline script or style and loads nothing from
	// elsewhere.
	html := string(files["index.html"])
	assert.NotContains(t, html, "<script>")
	assert.NotContains(t, html, "style=")
	assert.NotContains(t, html, "<style")
	assert.NotContains(t, html, "//")
	for name, b := range files {
		if strings.HasSuffix(name, ".js") {
			assert.NotContains(t, string(b), "innerHTML", name)
			assert.NotContains(t, string(b), "insertAdjacentHTML", name)
			assert.NotContains(t, string(b), "document.write", name)
		}
	}
}

func TestAnswered(t *testing.T) {
	p := newPage(t)
	q, s, ch := p.startAsk(context.Background(), dbArgs, askcore.AskOptions{From: askcore.Identity{AgentID: "agent-7", SessionID: "s1"}})
	ctx := context.Background()
	call, err := askcore.NewCore(nil).Normalize(ctx, dbArgs)
	require.NoError(t, err)
	// The page gets the call as the core normalized it, and who asks.
	assert.JSONEq(t, string(call.JSON()), string(q.Call))
	assert.Equal(t, &pageFrom{AgentID: "agent-7", SessionID: "s1"}, q.From)
	assert.Len(t, q.ID, 16)
	status, r := p.answer(q.ID, map[string]any{"picks": []askcore.Pick{{Text: "CockroachDB", Notes: "we run it already"}}}, nil)
	require.Equal(t, http.StatusOK, status, r.Message)
	assert.Equal(t, "→ CockroachDB (notes: we run it already)", r.Message)
	assert.Equal(t, endInfo{ID: q.ID, State: "answered", Message: r.Message}, s.ended())
	got := p.wait(ch)
	require.NoError(t, got.err)
	assert.Equal(t, `{"answer":"CockroachDB","notes":"we run it already"}`, string(got.answer.JSON()))
	assert.Equal(t, 0, p.srv.Pending())
}

func TestDeclined(t *testing.T) {
	p := newPage(t)
	q, s, ch := p.startAsk(context.Background(), dbArgs, askcore.AskOptions{})
	status, r := p.answer(q.ID, map[string]any{"decline": true}, nil)
	require.Equal(t, http.StatusOK, status)
	assert.Equal(t, endInfo{ID: q.ID, State: "declined", Message: "✗ declined"}, s.ended())
	assert.Equal(t, "declined", r.State)
	got := p.wait(ch)
	assert.Equal(t, coretest.Failure(askcore.Failure{Situation: askcore.SituationDeclined}), string(askcore.ErrorJSON(got.err)))
}

func TestWithdrawnWhileOpen(t *testing.T) {
	p := newPage(t)
	ctx, cancel := context.WithCancelCause(context.Background())
	q, s, ch := p.startAsk(ctx, dbArgs, askcore.AskOptions{})
	cancel(errors.New("the session was cancelled"))
	want := askcore.NewCore(nil).Fail(context.Background(), askcore.Failure{Situation: askcore.SituationAborted, Detail: "the session was cancelled"})
	assert.Equal(t, endInfo{ID: q.ID, State: "aborted", Message: want.Message}, s.ended())
	got := p.wait(ch)
	assert.Equal(t, string(want.JSON()), string(askcore.ErrorJSON(got.err)))
	// A late answer is refused, saying why.
	status, r := p.answer(q.ID, map[string]any{"picks": []askcore.Pick{pick(0)}}, nil)
	assert.Equal(t, http.StatusConflict, status)
	assert.Equal(t, "aborted", r.State)
	assert.Equal(t, want.Message, r.Message)
	assert.Equal(t, 0, p.srv.Pending())
}

func TestTimeoutWhileOpen(t *testing.T) {
	p := newPage(t)
	q, s, ch := p.startAsk(context.Background(), dbArgs, askcore.AskOptions{Timeout: 1500 * time.Millisecond})
	want := askcore.NewCore(nil).Fail(context.Background(), askcore.Failure{Situation: askcore.SituationTimeout, Millis: 1500})
	assert.Equal(t, endInfo{ID: q.ID, State: "timeout", Message: want.Message}, s.ended())
	assert.Equal(t, "no answer within 1.5s; nothing was chosen", want.Message)
	got := p.wait(ch)
	assert.Equal(t, string(want.JSON()), string(askcore.ErrorJSON(got.err)))
	status, r := p.answer(q.ID, map[string]any{"picks": []askcore.Pick{pick(0)}}, nil)
	assert.Equal(t, http.StatusConflict, status)
	assert.Equal(t, "timeout", r.State)
}

// Two calls at once: both are on the page, each is answered by its own
// answer, in any order.
func TestTwoPendingQuestions(t *testing.T) {
	p := newPage(t)
	_, err := p.srv.Start()
	require.NoError(t, err)
	s := p.events()
	s.next("pending")
	const colorArgs = `{"question":"Color?","options":["red","green"]}`
	first := p.ask(context.Background(), dbArgs, askcore.AskOptions{From: askcore.Identity{AgentID: "a"}})
	q1 := s.added()
	second := p.ask(context.Background(), colorArgs, askcore.AskOptions{From: askcore.Identity{AgentID: "b"}})
	q2 := s.added()
	assert.NotEqual(t, q1.ID, q2.ID)
	assert.Equal(t, 2, p.srv.Pending())
	// A page opened now sees both, in arrival order.
	late := p.events()
	snap := late.next("pending")
	var items struct{ Items []pageCall }
	require.NoError(t, json.Unmarshal([]byte(snap.Data), &items))
	require.Len(t, items.Items, 2)
	assert.Equal(t, []string{q1.ID, q2.ID}, []string{items.Items[0].ID, items.Items[1].ID})

	status, _ := p.answer(q2.ID, map[string]any{"picks": []askcore.Pick{pick(1)}}, nil)
	require.Equal(t, http.StatusOK, status)
	got2 := p.wait(second)
	require.NoError(t, got2.err)
	assert.Equal(t, coretest.Answer(t, colorArgs, askcore.Picks(pick(1))), string(got2.answer.JSON()))
	assert.Equal(t, q2.ID, late.ended().ID)
	assert.Equal(t, 1, p.srv.Pending())

	status, _ = p.answer(q1.ID, map[string]any{"picks": []askcore.Pick{pick(0)}}, nil)
	require.Equal(t, http.StatusOK, status)
	got1 := p.wait(first)
	require.NoError(t, got1.err)
	assert.Equal(t, coretest.Answer(t, dbArgs, askcore.Picks(pick(0))), string(got1.answer.JSON()))
	assert.Equal(t, q1.ID, late.ended().ID)
}

func TestCloseWithdraws(t *testing.T) {
	p := newPage(t)
	q, s, ch := p.startAsk(context.Background(), dbArgs, askcore.AskOptions{})
	require.NoError(t, p.srv.Close())
	e := s.ended()
	assert.Equal(t, endInfo{ID: q.ID, State: "withdrawn", Message: "the question was withdrawn: the provider was disposed"}, e)
	s.next("bye")
	got := p.wait(ch)
	assert.Equal(t, coretest.Failure(askcore.Failure{Situation: askcore.SituationWithdrawn}), string(askcore.ErrorJSON(got.err)))
	assert.Empty(t, p.srv.URL())
	// Later asks fail at once; Close again is harmless.
	got = p.wait(p.ask(context.Background(), dbArgs, askcore.AskOptions{}))
	assert.Equal(t, coretest.Failure(askcore.Failure{Situation: askcore.SituationWithdrawn}), string(askcore.ErrorJSON(got.err)))
	require.NoError(t, p.srv.Close())
	_, err := p.srv.Start()
	assert.Error(t, err)
}

func TestIdleStop(t *testing.T) {
	p := newPage(t, WithIdleStop(100*time.Millisecond))
	// Asked first, then the page opens: Start alone would arm the stop.
	ch := p.ask(context.Background(), dbArgs, askcore.AskOptions{})
	require.Eventually(t, func() bool { return p.srv.Pending() == 1 }, patience, 5*time.Millisecond)
	s := p.events()
	q := s.added()
	port := p.srv.portOf()
	status, _ := p.answer(q.ID, map[string]any{"picks": []askcore.Pick{pick(0)}}, nil)
	require.Equal(t, http.StatusOK, status)
	require.NoError(t, p.wait(ch).err)
	// Nothing pending: the stream says goodbye as the server stops.
	s.next("bye")
	require.Eventually(t, func() bool { return p.srv.URL() == "" }, patience, 10*time.Millisecond)
	// The next question starts it again, on the same port, and says so.
	ch2 := p.ask(context.Background(), dbArgs, askcore.AskOptions{})
	require.Eventually(t, func() bool { return p.srv.Pending() == 1 }, patience, 5*time.Millisecond)
	q2 := p.events().added()
	assert.Equal(t, port, p.srv.portOf())
	assert.Equal(t, 2, strings.Count(p.log.String(), LogPrefix), p.log.String())
	status, _ = p.answer(q2.ID, map[string]any{"picks": []askcore.Pick{pick(1)}}, nil)
	require.Equal(t, http.StatusOK, status)
	require.NoError(t, p.wait(ch2).err)
}

func TestNoIdleStop(t *testing.T) {
	p := newPage(t, WithIdleStop(0))
	q, _, ch := p.startAsk(context.Background(), dbArgs, askcore.AskOptions{})
	status, _ := p.answer(q.ID, map[string]any{"picks": []askcore.Pick{pick(0)}}, nil)
	require.Equal(t, http.StatusOK, status)
	require.NoError(t, p.wait(ch).err)
	assert.Nil(t, p.srv.idle, "no idle timer is armed")
	assert.NotEmpty(t, p.srv.URL())
}

func TestOtherAddressWarns(t *testing.T) {
	p := newPage(t, WithAddr("0.0.0.0:0"))
	u, err := p.srv.Start()
	require.NoError(t, err)
	assert.Contains(t, p.log.String(), "askcore: warning: the answer page listens on 0.0.0.0:")
	assert.True(t, strings.HasPrefix(u, "http://127.0.0.1:"), u)
	assert.Contains(t, p.log.String(), LogPrefix+u+"\n")
	// Listening everywhere: any address of the machine is a Host.
	assert.True(t, allowedHost("192.168.1.9:"+p.srv.run.port, "0.0.0.0", p.srv.run.port))
	assert.False(t, allowedHost("evil.example:"+p.srv.run.port, "0.0.0.0", p.srv.run.port))

	quiet := newPage(t, WithAddr("127.0.0.1:0"))
	_, err = quiet.srv.Start()
	require.NoError(t, err)
	assert.NotContains(t, quiet.log.String(), "warning")

	bad := newPage(t, WithAddr("256.0.0.1:0"))
	_, err = bad.srv.Start()
	assert.Error(t, err)
	got := bad.wait(bad.ask(context.Background(), dbArgs, askcore.AskOptions{}))
	assert.Equal(t, askcore.CodeAskFailed, askcore.AsError(got.err).Code)
}

func TestOpener(t *testing.T) {
	env := func(kv ...string) func(string) string {
		m := map[string]string{}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return func(k string) string { return m[k] }
	}
	const u = "http://127.0.0.1:1/t/"
	for _, c := range []struct {
		goos string
		env  func(string) string
		want []string
	}{
		{"linux", env(), nil}, // no desktop: a remote shell, a container
		{"linux", env("DISPLAY", ":0"), []string{"xdg-open", u}},
		{"linux", env("WAYLAND_DISPLAY", "wayland-0"), []string{"xdg-open", u}},
		{"freebsd", env("DISPLAY", ":0"), []string{"xdg-open", u}},
		{"linux", env("DISPLAY", ":0", EnvBrowser, "none"), nil},
		{"linux", env("DISPLAY", ":0", EnvBrowser, "NONE"), nil},
		{"darwin", env(), []string{"open", u}},
		{"darwin", env(EnvBrowser, "none"), nil},
		{"windows", env(), []string{"rundll32", "url.dll,FileProtocolHandler", u}},
		{"linux", env(EnvBrowser, "firefox --new-window"), []string{"firefox", "--new-window", u}},
	} {
		assert.Equal(t, c.want, opener(c.goos, c.env, u), "%s", c.goos)
	}
	// BrowserOpens is the same rule, for this system.
	for _, e := range []func(string) string{env(), env("DISPLAY", ":0"), env(EnvBrowser, "none"), env(EnvBrowser, "firefox")} {
		assert.Equal(t, opener(runtime.GOOS, e, u) != nil, BrowserOpens(e))
	}
}

// WithBrowser(true) opens the page once per start, and not while a page
// is open; WithBrowser(false) never.
func TestBrowserOpened(t *testing.T) {
	var mu sync.Mutex
	var opened []string
	open := WithOpener(func(_ context.Context, url string) error {
		mu.Lock()
		defer mu.Unlock()
		opened = append(opened, url)
		return nil
	})
	forced := WithEnv(func(k string) string { return map[string]string{EnvBrowser: "some-browser"}[k] })

	p := newPage(t, open, forced, WithBrowser(true))
	ch1 := p.ask(context.Background(), dbArgs, askcore.AskOptions{})
	require.Eventually(t, func() bool { mu.Lock(); defer mu.Unlock(); return len(opened) == 1 }, patience, 5*time.Millisecond)
	s := p.events()
	q1 := s.added()
	ch2 := p.ask(context.Background(), dbArgs, askcore.AskOptions{})
	q2 := s.added()
	for _, q := range []pageCall{q1, q2} {
		status, _ := p.answer(q.ID, map[string]any{"picks": []askcore.Pick{pick(0)}}, nil)
		require.Equal(t, http.StatusOK, status)
	}
	require.NoError(t, p.wait(ch1).err)
	require.NoError(t, p.wait(ch2).err)
	mu.Lock()
	assert.Equal(t, []string{p.srv.URL()}, opened)
	mu.Unlock()

	for _, o := range [][]Option{
		{open, forced, WithBrowser(false)},
		{open, WithEnv(func(k string) string { return map[string]string{EnvBrowser: "none", "DISPLAY": ":0"}[k] }), WithBrowser(true)},
	} {
		opened = nil
		quiet := newPage(t, o...)
		q, s, ch := quiet.startAsk(context.Background(), dbArgs, askcore.AskOptions{})
		_ = s
		status, _ := quiet.answer(q.ID, map[string]any{"picks": []askcore.Pick{pick(0)}}, nil)
		require.Equal(t, http.StatusOK, status)
		require.NoError(t, quiet.wait(ch).err)
		mu.Lock()
		assert.Empty(t, opened)
		mu.Unlock()
	}
}

// The page works the same on the WebAssembly core: the server judges with
// the call's own core.
func TestWasmCore(t *testing.T) {
	e, err := hostgo.New(context.Background(), hostgo.WithInterpreter())
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, e.Close(context.Background())) })
	core := askcore.NewCore(e)
	log := &syncbuf.Buffer{}
	srv := New(core, WithLog(log))
	t.Cleanup(func() { srv.Close() })
	svc := askcore.NewService(core)
	dispose, err := svc.Register(srv.Provider())
	require.NoError(t, err)
	t.Cleanup(dispose)
	p := &page{t: t, srv: srv, svc: svc, log: log}
	q, _, ch := p.startAsk(context.Background(), dbArgs, askcore.AskOptions{})
	status, r := p.answer(q.ID, map[string]any{"picks": []askcore.Pick{{Text: "x"}, {Text: "y"}}}, nil)
	assert.Equal(t, http.StatusBadRequest, status, r.Message)
	status, r = p.answer(q.ID, map[string]any{"picks": []askcore.Pick{pick(1)}}, nil)
	require.Equal(t, http.StatusOK, status, r.Message)
	got := p.wait(ch)
	require.NoError(t, got.err)
	assert.Equal(t, coretest.Answer(t, dbArgs, askcore.Picks(pick(1))), string(got.answer.JSON()))
}
