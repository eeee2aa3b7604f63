package mcpserver

// webpage_test.go drives the answer page over HTTP as its own script does
// (answerpage/static/page.js): the page, its event stream of pending
// questions, and the POST of what the person gave.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/askcore/askcore"
)

// answerLine is the line the page writes to stderr for each start.
var answerLine = regexp.MustCompile(`askcore: answer at (http://127\.0\.0\.1:[0-9]+/[A-Za-z0-9_-]{43}/)\n`)

// webPage is a test's browser on one answer page.
type webPage struct {
	t      *testing.T
	url    *url.URL
	client *http.Client
}

func openPage(t *testing.T, raw string) *webPage {
	t.Helper()
	u, err := url.Parse(raw)
	require.NoError(t, err)
	tr := &http.Transport{DisableCompression: true}
	t.Cleanup(tr.CloseIdleConnections)
	return &webPage{t: t, url: u, client: &http.Client{Transport: tr, Timeout: waitLong}}
}

func (w *webPage) origin() string { return w.url.Scheme + "://" + w.url.Host }

// request sends one request below the token, as the page's script does.
func (w *webPage) request(ctx context.Context, method, name string, body []byte) *http.Response {
	w.t.Helper()
	var r io.Reader
	if body != nil {
		r = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, w.origin()+w.url.Path+name, r)
	require.NoError(w.t, err)
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	if method == http.MethodPost {
		req.Header.Set("Origin", w.origin())
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := w.client.Do(req)
	require.NoError(w.t, err)
	return res
}

// load fetches the page itself, as a browser opening the URL does.
func (w *webPage) load() {
	w.t.Helper()
	res := w.request(context.Background(), http.MethodGet, "", nil)
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	require.NoError(w.t, err)
	require.Equal(w.t, http.StatusOK, res.StatusCode, "%s", body)
	require.Equal(w.t, "text/html; charset=utf-8", res.Header.Get("Content-Type"))
	require.Contains(w.t, res.Header.Get("Content-Security-Policy"), "script-src 'self' 'wasm-unsafe-eval'")
	require.Contains(w.t, string(body), `<script type="module" src="page.js"></script>`)
}

// pageAnswer is the server's verdict on a POST.
type pageAnswer struct {
	State   string `json:"state"`
	Message string `json:"message"`
}

// answer posts the person's reply ({"picks":[...]} or {"decline":true})
// to question id, as page.js submit does.
func (w *webPage) answer(id string, reply any) (int, pageAnswer) {
	w.t.Helper()
	body, err := json.Marshal(map[string]any{"id": id, "reply": reply})
	require.NoError(w.t, err)
	res := w.request(context.Background(), http.MethodPost, "answer", body)
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	require.NoError(w.t, err)
	var a pageAnswer
	require.NoError(w.t, json.Unmarshal(b, &a), "%d %s", res.StatusCode, b)
	return res.StatusCode, a
}

// pageEvent is one server-sent event.
type pageEvent struct{ name, data string }

// pageQuestion is a question as the page receives it.
type pageQuestion struct {
	ID   string          `json:"id"`
	Call json.RawMessage `json:"call"`
	From struct {
		AgentID string `json:"agentId"`
	} `json:"from"`
}

// pageEnd is how a question ended, as the page hears it.
type pageEnd struct {
	ID, State, Message string
}

// pageStream is the page's open event stream.
type pageStream struct {
	t      *testing.T
	events chan pageEvent
}

// stream opens the event stream (page.js: new EventSource("events")) and
// reads its first event, the snapshot of what is pending.
func (w *webPage) stream() *pageStream {
	w.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	res := w.request(ctx, http.MethodGet, "events", nil)
	require.Equal(w.t, http.StatusOK, res.StatusCode)
	require.Equal(w.t, "text/event-stream; charset=utf-8", res.Header.Get("Content-Type"))
	s := &pageStream{t: w.t, events: make(chan pageEvent, 64)}
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer close(s.events)
		defer res.Body.Close()
		sc := bufio.NewScanner(res.Body)
		sc.Buffer(make([]byte, 1<<20), 1<<22)
		var ev pageEvent
		for sc.Scan() {
			switch line := sc.Text(); {
			case line == "":
				if ev.name != "" {
					s.events <- ev
				}
				ev = pageEvent{}
			case strings.HasPrefix(line, "event: "):
				ev.name = line[len("event: "):]
			case strings.HasPrefix(line, "data: "):
				ev.data = line[len("data: "):]
			}
		}
	}()
	w.t.Cleanup(func() {
		cancel()
		<-done
	})
	return s
}

// next returns the next event named one of names, skipping others.
func (s *pageStream) next(names ...string) pageEvent {
	s.t.Helper()
	deadline := time.After(waitLong)
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
			s.t.Fatalf("no %v event within %s", names, waitLong)
		}
	}
}

// question waits for a question on the page: the newest of the snapshot,
// else the next one added.
func (s *pageStream) question() pageQuestion {
	s.t.Helper()
	for {
		ev := s.next("pending", "add")
		if ev.name == "add" {
			var q pageQuestion
			require.NoError(s.t, json.Unmarshal([]byte(ev.data), &q))
			return q
		}
		var snap struct{ Items []pageQuestion }
		require.NoError(s.t, json.Unmarshal([]byte(ev.data), &snap))
		if len(snap.Items) > 0 {
			return snap.Items[len(snap.Items)-1]
		}
	}
}

// ended waits for the next question to end.
func (s *pageStream) ended() pageEnd {
	s.t.Helper()
	var e pageEnd
	require.NoError(s.t, json.Unmarshal([]byte(s.next("end").data), &e))
	return e
}

// normalized is the core's normalized call for args, the bytes the page
// receives.
func normalized(t *testing.T, args string) string {
	t.Helper()
	call, err := nativeCore.Normalize(context.Background(), args)
	require.NoError(t, err)
	return string(call.JSON())
}

// wantReply is the core's answer (or error) for args and reply, as the
// seam resolves what the page gave.
func wantReply(t *testing.T, args string, reply askcore.Reply) string {
	t.Helper()
	ctx := context.Background()
	call, err := nativeCore.Normalize(ctx, args)
	require.NoError(t, err)
	a, err := call.Resolve(ctx, reply)
	if err != nil {
		return string(askcore.ErrorJSON(err))
	}
	return string(a.JSON())
}

// picksReply is a reply of picks as page.js posts it.
func picksReply(picks ...askcore.Pick) map[string]any {
	return map[string]any{"picks": picks}
}
