package answerpage

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/askcore/askcore"
	"github.com/askcore/askcore/internal/pagehttp"
	"github.com/askcore/askcore/internal/testing/coretest"
)

// Every lock refuses, and nothing is lost: the question refused an answer
// stays pending and is answered afterwards by the page, once.

// answeredAfter answers q properly and checks the ask returns that answer:
// the refusals before took nothing.
func (p *page) answeredAfter(q pageCall, ch <-chan result) {
	p.t.Helper()
	status, r := p.answer(q.ID, map[string]any{"picks": []askcore.Pick{pick(1)}}, nil)
	require.Equal(p.t, http.StatusOK, status, r.Message)
	got := p.wait(ch)
	require.NoError(p.t, got.err)
	assert.Equal(p.t, coretest.Answer(p.t, dbArgs, askcore.Picks(pick(1))), string(got.answer.JSON()))
}

func TestLogLineAndToken(t *testing.T) {
	p := newPage(t)
	u, err := p.srv.Start()
	require.NoError(t, err)
	line := regexp.MustCompile(`^askcore: answer at (http://127\.0\.0\.1:(\d+)/([A-Za-z0-9_-]+)/)\n$`).FindStringSubmatch(p.log.String())
	require.NotNil(t, line, "the log: %q", p.log.String())
	assert.Equal(t, u, line[1])
	assert.Equal(t, strconv.Itoa(p.srv.portOf()), line[2])
	// 256 random bits, base64url without padding.
	assert.Len(t, line[3], 43)
	other := New(nil, WithLog(io.Discard))
	assert.NotEqual(t, p.srv.token, other.token, "each server has its own token")
	// Start again: the same start, no second line.
	u2, err := p.srv.Start()
	require.NoError(t, err)
	assert.Equal(t, u, u2)
	assert.Equal(t, 1, strings.Count(p.log.String(), LogPrefix))
}

func TestNoToken(t *testing.T) {
	p := newPage(t)
	q, _, ch := p.startAsk(context.Background(), dbArgs, askcore.AskOptions{})
	for _, path := range []string{"/", "/index.html", "/events", "/answer", "/host/askcore.wasm", "/page.js", "/favicon.ico"} {
		res := p.request(http.MethodGet, path, nil, nil)
		assert.Equal(t, http.StatusNotFound, res.StatusCode, path)
	}
	// The path without its trailing slash is no token either.
	res := p.request(http.MethodGet, strings.TrimSuffix(p.base().Path, "/"), nil, nil)
	assert.Equal(t, http.StatusNotFound, res.StatusCode)
	status, _ := p.answerAt("/answer", q.ID)
	assert.Equal(t, http.StatusNotFound, status)
	p.answeredAfter(q, ch)
}

// answerAt posts a valid answer to path instead of the page's.
func (p *page) answerAt(path, id string) (int, string) {
	p.t.Helper()
	res := p.request(http.MethodPost, path, []byte(`{"id":"`+id+`","reply":{"picks":[{"options":[0],"text":""}]}}`), nil)
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}

func TestWrongToken(t *testing.T) {
	p := newPage(t)
	q, _, ch := p.startAsk(context.Background(), dbArgs, askcore.AskOptions{})
	tok := p.srv.token
	wrong := []string{
		flip(tok, 0), flip(tok, len(tok)-1), tok[:len(tok)-1], tok + "A", strings.ToUpper(tok), strings.Repeat("A", len(tok)),
	}
	for _, w := range wrong {
		require.NotEqual(t, tok, w)
		for _, name := range []string{"", "events", "page.js", "host/askcore.wasm"} {
			res := p.request(http.MethodGet, "/"+w+"/"+name, nil, nil)
			assert.Equal(t, http.StatusNotFound, res.StatusCode, "/%s/%s", w, name)
		}
		status, _ := p.answerAt("/"+w+"/answer", q.ID)
		assert.Equal(t, http.StatusNotFound, status)
	}
	// The token is a path segment: below another prefix it is nothing.
	res := p.request(http.MethodGet, "/x/"+tok+"/", nil, nil)
	assert.Equal(t, http.StatusNotFound, res.StatusCode)
	p.answeredAfter(q, ch)
}

// flip changes the token's character at i.
func flip(s string, i int) string {
	b := []byte(s)
	if b[i] == 'A' {
		b[i] = 'B'
	} else {
		b[i] = 'A'
	}
	return string(b)
}

func TestWrongHost(t *testing.T) {
	p := newPage(t)
	q, _, ch := p.startAsk(context.Background(), dbArgs, askcore.AskOptions{})
	port := strconv.Itoa(p.srv.portOf())
	other := strconv.Itoa(p.srv.portOf() + 1)
	for _, host := range []string{
		"evil.example:" + port,     // DNS rebinding: a name that resolves here
		"127.0.0.1.nip.io:" + port, // a name made of the address
		"localhost.evil.example:" + port,
		"127.0.0.1:" + other, // another port
		"127.0.0.1",          // no port
		"localhost",          //
		"[::1]:" + port,      // not the address listened on
		"127.0.0.2:" + port,  //
		"10.0.0.1:" + port,   //
	} {
		for _, name := range []string{"", "events", "host/askcore.wasm"} {
			res := p.request(http.MethodGet, p.path(name), nil, func(r *http.Request) { r.Host = host })
			assert.Equal(t, http.StatusForbidden, res.StatusCode, "Host %q, %s", host, name)
		}
		status, r := p.answer(q.ID, map[string]any{"picks": []askcore.Pick{pick(0)}}, func(r *http.Request) {
			r.Host = host
			r.Header.Set("Origin", "http://"+host)
		})
		assert.Equal(t, http.StatusForbidden, status, "Host %q: %s", host, r.Message)
	}
	// What Go's client will not send: no Host, an empty one, a zone.
	for _, hostLine := range []string{"", "Host: \r\n", "Host: [fe80::1%eth0]:" + port + "\r\n", "Host: evil.example:" + port + "\r\n"} {
		status := p.raw("GET " + p.path("") + " HTTP/1.1\r\n" + hostLine + "Connection: close\r\n\r\n")
		assert.Regexp(t, `^HTTP/1.1 (403 Forbidden|400 Bad Request)`, status, "%q", hostLine)
	}
	assert.Equal(t, "HTTP/1.1 200 OK", p.raw("GET "+p.path("")+" HTTP/1.1\r\nHost: 127.0.0.1:"+port+"\r\nConnection: close\r\n\r\n"))
	for _, host := range []string{"127.0.0.1:" + port, "localhost:" + port, "LOCALHOST:" + port} {
		res := p.request(http.MethodGet, p.path(""), nil, func(r *http.Request) { r.Host = host })
		assert.Equal(t, http.StatusOK, res.StatusCode, "Host %q", host)
	}
	p.answeredAfter(q, ch)
}

// raw sends request on a connection of its own and returns the status line.
func (p *page) raw(request string) string {
	p.t.Helper()
	conn, err := net.DialTimeout("tcp", p.base().Host, patience)
	require.NoError(p.t, err)
	defer conn.Close()
	_, err = io.WriteString(conn, request)
	require.NoError(p.t, err)
	line, err := bufio.NewReader(conn).ReadString('\n')
	require.NoError(p.t, err)
	return strings.TrimRight(line, "\r\n")
}

func TestForeignOrigin(t *testing.T) {
	p := newPage(t)
	q, _, ch := p.startAsk(context.Background(), dbArgs, askcore.AskOptions{})
	port := p.srv.portOf()
	for _, origin := range []string{
		"", "null", "http://evil.example", "http://127.0.0.1:" + strconv.Itoa(port+1), "http://localhost:" + strconv.Itoa(port),
		"https://127.0.0.1:" + strconv.Itoa(port), "http://127.0.0.1:" + strconv.Itoa(port) + "/", "http://127.0.0.1",
	} {
		status, r := p.answer(q.ID, map[string]any{"picks": []askcore.Pick{pick(0)}}, func(r *http.Request) {
			if origin == "" {
				r.Header.Del("Origin")
			} else {
				r.Header.Set("Origin", origin)
			}
		})
		assert.Equal(t, http.StatusForbidden, status, "Origin %q: %s", origin, r.Message)
	}
	// A form post (no preflight) is not JSON.
	for _, ct := range []string{"text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", ""} {
		status, _ := p.answer(q.ID, map[string]any{"picks": []askcore.Pick{pick(0)}}, func(r *http.Request) { r.Header.Set("Content-Type", ct) })
		assert.Equal(t, http.StatusUnsupportedMediaType, status, "Content-Type %q", ct)
	}
	p.answeredAfter(q, ch)
}

// A page on another local port (or another site) can make the browser send
// the token, with the person's credentials: the browser says where the
// request comes from, and the server refuses it. Nothing it gets back
// would be readable anyway: no response carries a CORS header.
func TestCrossOriginFromAnotherPort(t *testing.T) {
	p := newPage(t)
	q, _, ch := p.startAsk(context.Background(), dbArgs, askcore.AskOptions{})
	evil := "http://127.0.0.1:" + strconv.Itoa(p.srv.portOf()+1)
	for _, site := range []string{"same-site", "cross-site"} {
		status, _ := p.answer(q.ID, map[string]any{"picks": []askcore.Pick{pick(0)}}, func(r *http.Request) {
			r.Header.Set("Sec-Fetch-Site", site)
			r.Header.Set("Sec-Fetch-Mode", "cors")
			r.Header.Set("Origin", evil)
			r.Header.Set("Cookie", "session=whatever")
		})
		assert.Equal(t, http.StatusForbidden, status, site)
		// Even with the page's own Origin forged (not a browser): the
		// browser's Sec-Fetch-Site is refused.
		status, _ = p.answer(q.ID, map[string]any{"picks": []askcore.Pick{pick(0)}}, func(r *http.Request) { r.Header.Set("Sec-Fetch-Site", site) })
		assert.Equal(t, http.StatusForbidden, status, site)
		for _, name := range []string{"events", "page.js", "host/askcore.wasm", "host/browser.js"} {
			res := p.request(http.MethodGet, p.path(name), nil, func(r *http.Request) {
				r.Header.Set("Sec-Fetch-Site", site)
				r.Header.Set("Origin", evil)
			})
			assert.Equal(t, http.StatusForbidden, res.StatusCode, "%s %s", site, name)
			assertNoCORS(t, res)
		}
	}
	// A preflight gets no CORS answer: the browser never sends the post.
	res := p.request(http.MethodOptions, p.path("answer"), nil, func(r *http.Request) {
		r.Header.Set("Origin", evil)
		r.Header.Set("Access-Control-Request-Method", "POST")
		r.Header.Set("Access-Control-Request-Headers", "content-type")
		r.Header.Set("Sec-Fetch-Site", "same-site")
	})
	assert.NotEqual(t, http.StatusOK, res.StatusCode)
	assertNoCORS(t, res)
	// The page itself may be opened from anywhere (a link in a chat): it
	// is read only by whoever opened it.
	res = p.request(http.MethodGet, p.path(""), nil, func(r *http.Request) { r.Header.Set("Sec-Fetch-Site", "cross-site") })
	assert.Equal(t, http.StatusOK, res.StatusCode)
	assertNoCORS(t, res)
	p.answeredAfter(q, ch)
}

func assertNoCORS(t *testing.T, res *http.Response) {
	t.Helper()
	for k := range res.Header {
		assert.False(t, strings.HasPrefix(strings.ToLower(k), "access-control-"), "CORS header %s", k)
	}
}

func TestReplayAfterAnswer(t *testing.T) {
	p := newPage(t)
	q, s, ch := p.startAsk(context.Background(), dbArgs, askcore.AskOptions{})
	reply := map[string]any{"picks": []askcore.Pick{pick(2)}}
	status, r := p.answer(q.ID, reply, nil)
	require.Equal(t, http.StatusOK, status)
	assert.Equal(t, "answered", r.State)
	assert.Equal(t, "→ MySQL", r.Message)
	e := s.ended()
	assert.Equal(t, endInfo{ID: q.ID, State: "answered", Message: "→ MySQL"}, e)
	got := p.wait(ch)
	require.NoError(t, got.err)
	assert.Equal(t, coretest.Answer(t, dbArgs, askcore.Picks(pick(2))), string(got.answer.JSON()))
	// The same request again: refused, saying it was answered.
	for range 3 {
		status, r = p.answer(q.ID, reply, nil)
		assert.Equal(t, http.StatusConflict, status)
		assert.Equal(t, "answered", r.State)
	}
	// An id never asked.
	status, r = p.answer("0123456789abcdef", reply, nil)
	assert.Equal(t, http.StatusNotFound, status)
	assert.Equal(t, "unknown", r.State)
}

func TestSecondAnswer(t *testing.T) {
	p := newPage(t)
	q, _, ch := p.startAsk(context.Background(), dbArgs, askcore.AskOptions{})
	// Many pages answer at once, each differently: one wins, the others
	// are refused, and the answer is the winner's.
	const n = 12
	var wg sync.WaitGroup
	statuses := make([]int, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var reply any = map[string]any{"picks": []askcore.Pick{{Text: "answer " + strconv.Itoa(i)}}}
			if i%4 == 3 {
				reply = map[string]any{"decline": true}
			}
			statuses[i], _ = p.answer(q.ID, reply, nil)
		}()
	}
	wg.Wait()
	winner := -1
	for i, st := range statuses {
		if st == http.StatusOK {
			require.Equal(t, -1, winner, "two answers accepted: %v", statuses)
			winner = i
		} else {
			assert.Equal(t, http.StatusConflict, st)
		}
	}
	require.NotEqual(t, -1, winner, "no answer accepted: %v", statuses)
	got := p.wait(ch)
	if winner%4 == 3 {
		assert.Equal(t, coretest.Failure(askcore.Failure{Situation: askcore.SituationDeclined}), string(askcore.ErrorJSON(got.err)))
	} else {
		require.NoError(t, got.err)
		assert.Equal(t, coretest.Answer(t, dbArgs, askcore.Picks(askcore.Pick{Text: "answer " + strconv.Itoa(winner)})), string(got.answer.JSON()))
	}
	status, _ := p.answer(q.ID, map[string]any{"picks": []askcore.Pick{pick(0)}}, nil)
	assert.Equal(t, http.StatusConflict, status)
}

func TestMalformedAnswers(t *testing.T) {
	p := newPage(t)
	q, _, ch := p.startAsk(context.Background(), dbArgs, askcore.AskOptions{})
	for _, body := range []string{
		``, `null`, `[]`, `{}`, `{"id":"` + q.ID + `"}`,
		`{"id":"` + q.ID + `","reply":{}}`,
		`{"id":"` + q.ID + `","reply":{"decline":false}}`,
		`{"id":"` + q.ID + `","reply":{"decline":true,"picks":[]}}`,
		`{"id":"` + q.ID + `","reply":{"lines":["1"]}}`,
		`{"id":"` + q.ID + `","reply":{"form":{"action":"accept"}}}`,
		`{"id":"` + q.ID + `","reply":{"picks":[]}}`,
		`{"id":"` + q.ID + `","reply":{"picks":[{"options":[0]},{"options":[1]}]}}`,
		`{"id":"` + q.ID + `","reply":{"picks":[{"options":[0],"extra":1}]}}`,
		`{"id":"` + q.ID + `","reply":{"picks":[{"options":[0]}]},"answer":"x"}`,
		`{"id":"` + q.ID + `","reply":{"picks":[{"options":[0]}]}} {}`,
	} {
		res := p.request(http.MethodPost, p.path("answer"), []byte(body), nil)
		assert.Equal(t, http.StatusBadRequest, res.StatusCode, body)
	}
	res := p.request(http.MethodPost, p.path("answer"), []byte(`{"id":"`+q.ID+`","reply":{"picks":[{"text":"`+strings.Repeat("x", pagehttp.MaxPostBytes)+`"}]}}`), nil)
	assert.Equal(t, http.StatusRequestEntityTooLarge, res.StatusCode)
	for _, m := range []string{http.MethodGet, http.MethodPut, http.MethodDelete} {
		res := p.request(m, p.path("answer"), nil, func(r *http.Request) { r.Header.Set("Origin", p.origin()) })
		assert.Equal(t, http.StatusMethodNotAllowed, res.StatusCode, m)
	}
	res = p.request(http.MethodPost, p.path("events"), []byte(`{}`), nil)
	assert.Equal(t, http.StatusMethodNotAllowed, res.StatusCode)
	res = p.request(http.MethodPost, p.path(""), []byte(`{}`), nil)
	assert.Equal(t, http.StatusMethodNotAllowed, res.StatusCode)
	p.answeredAfter(q, ch)
}

// The server's core judges each pick: one the core does not accept is
// refused with the core's words for the person, and the question stays.
func TestInvalidPickJudgedByServer(t *testing.T) {
	p := newPage(t)
	const strict = `{"questions":[{"question":"Color?","options":["red","green"]},{"question":"Sizes?","multiSelect":true,"options":["S","M","L"]}]}`
	q, _, ch := p.startAsk(context.Background(), strict, askcore.AskOptions{})
	ctx := context.Background()
	call, err := askcore.NewCore(nil).Normalize(ctx, strict)
	require.NoError(t, err)
	for _, c := range []struct {
		picks []askcore.Pick
		at    int
	}{
		{[]askcore.Pick{{Text: "blue"}, pick(0)}, 0}, // no free text on this question
		{[]askcore.Pick{pick(), pick(0)}, 0},         // nothing chosen
		{[]askcore.Pick{pick(0, 1), pick(0)}, 0},     // two on a single-select question
		{[]askcore.Pick{pick(7), pick(0)}, 0},        // no such option
		{[]askcore.Pick{pick(1), pick()}, 1},         // nothing toggled
	} {
		status, r := p.answer(q.ID, map[string]any{"picks": c.picks}, nil)
		require.Equal(t, http.StatusUnprocessableEntity, status, "%v", c.picks)
		_, want := call.CheckPick(ctx, c.at, c.picks[c.at])
		require.Error(t, want)
		assert.Equal(t, want.Error(), "INVALID_ANSWER: "+r.Message)
		assert.Equal(t, string(askcore.AsError(want).JSON()), string(r.Error))
		require.NotNil(t, r.Question)
		assert.Equal(t, c.at, *r.Question)
	}
	assert.Equal(t, 1, p.srv.Pending())
	status, r := p.answer(q.ID, map[string]any{"picks": []askcore.Pick{pick(1), {Options: []int{0, 2}, Notes: "for the kids"}}}, nil)
	require.Equal(t, http.StatusOK, status, r.Message)
	assert.Equal(t, "→ green\n→ S, L (notes: for the kids)", r.Message)
	got := p.wait(ch)
	require.NoError(t, got.err)
	assert.Equal(t, coretest.Answer(t, strict, askcore.Picks(pick(1), askcore.Pick{Options: []int{0, 2}, Notes: "for the kids"})), string(got.answer.JSON()))
	assert.Contains(t, string(got.answer.JSON()), `"notes":"for the kids"`)
}
