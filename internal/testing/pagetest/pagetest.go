// Package pagetest drives an answer page (package answerpage) over HTTP
// as its own script does (answerpage/static/page.js), for the tests of
// answerpage and of the front doors that serve it: the page itself, its
// event stream of pending questions, and the POST of what the person gave.
package pagetest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/askcore/askcore"
)

// Patience bounds every wait; only a failing test waits that long.
const Patience = 60 * time.Second

// LogPrefix begins the line a page writes for each start, followed by its
// URL: answerpage.LogPrefix (answerpage's tests hold the two equal).
const LogPrefix = "askcore: answer at "

// FindURL returns the URL of the last "askcore: answer at URL" line in
// log, or "" when there is none (yet).
func FindURL(log string) string {
	found := ""
	for line := range strings.Lines(log) {
		if rest, ok := strings.CutPrefix(line, LogPrefix); ok && strings.HasSuffix(rest, "/\n") {
			found = strings.TrimSuffix(rest, "\n")
		}
	}
	return found
}

// WaitURL waits for an "askcore: answer at URL" line in log() and returns
// the URL; it fails the test when exited is closed first (the program
// ended) or after Patience.
func WaitURL(t testing.TB, log func() string, exited <-chan struct{}) string {
	t.Helper()
	deadline := time.Now().Add(Patience)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		if u := FindURL(log()); u != "" {
			return u
		}
		select {
		case <-exited:
			if u := FindURL(log()); u != "" {
				return u
			}
			t.Fatalf("the program ended before naming its answer page; its log:\n%s", log())
		case <-tick.C:
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %q line within %s; the log:\n%s", LogPrefix, Patience, log())
		}
	}
}

// Page is a test's browser on one answer page.
type Page struct {
	t      testing.TB
	url    *url.URL
	client *http.Client
}

// Open returns a browser on the page at rawURL (the URL of the
// "askcore: answer at URL" line).
func Open(t testing.TB, rawURL string) *Page {
	t.Helper()
	u, err := url.Parse(rawURL)
	require.NoError(t, err)
	tr := &http.Transport{DisableCompression: true}
	t.Cleanup(tr.CloseIdleConnections)
	return &Page{t: t, url: u, client: &http.Client{Transport: tr, Timeout: Patience}}
}

// URL is the page's URL, its token the first path segment.
func (p *Page) URL() *url.URL { return p.url }

// Origin is the page's origin, as the browser sends it.
func (p *Page) Origin() string { return p.url.Scheme + "://" + p.url.Host }

// Path is a path below the token ("": the page itself).
func (p *Page) Path(name string) string { return p.url.Path + name }

// Request sends one request for path (from the host's root) as the page's
// script does (Sec-Fetch-Site same-origin; for a POST its Origin and
// application/json), then applies tweak (nil: none). The body is closed
// when the test ends.
func (p *Page) Request(ctx context.Context, method, path string, body []byte, tweak func(*http.Request)) *http.Response {
	p.t.Helper()
	var r io.Reader
	if body != nil {
		r = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, p.Origin()+path, r)
	require.NoError(p.t, err)
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	if method == http.MethodPost {
		req.Header.Set("Origin", p.Origin())
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

// Load fetches the page itself, as a browser opening the URL does, and
// checks that it is the page: HTML, its CSP, its script.
func (p *Page) Load() {
	p.t.Helper()
	res := p.Request(context.Background(), http.MethodGet, p.Path(""), nil, nil)
	body, err := io.ReadAll(res.Body)
	require.NoError(p.t, err)
	require.Equal(p.t, http.StatusOK, res.StatusCode, "%s", body)
	require.Equal(p.t, "text/html; charset=utf-8", res.Header.Get("Content-Type"))
	require.Contains(p.t, res.Header.Get("Content-Security-Policy"), "script-src 'self' 'wasm-unsafe-eval'")
	require.Contains(p.t, string(body), `<script type="module" src="page.js"></script>`)
}

// Post sends what the person gave for question id ({"picks":[...]} or
// {"decline":true}: Picks, Decline) as page.js submit does, then applies
// tweak (nil: none); it returns the status and the body.
func (p *Page) Post(id string, reply any, tweak func(*http.Request)) (int, []byte) {
	p.t.Helper()
	body, err := json.Marshal(map[string]any{"id": id, "reply": reply})
	require.NoError(p.t, err)
	res := p.Request(context.Background(), http.MethodPost, p.Path("answer"), body, tweak)
	b, err := io.ReadAll(res.Body)
	require.NoError(p.t, err)
	return res.StatusCode, b
}

// Verdict is the server's word on a POST.
type Verdict struct {
	State   string `json:"state"`
	Message string `json:"message"`
}

// Answer posts reply to question id and returns the status and the
// server's verdict, which must be JSON.
func (p *Page) Answer(id string, reply any) (int, Verdict) {
	p.t.Helper()
	status, b := p.Post(id, reply, nil)
	var v Verdict
	require.NoError(p.t, json.Unmarshal(b, &v), "%d %s", status, b)
	return status, v
}

// Picks is a reply of picks as page.js posts it.
func Picks(picks ...askcore.Pick) map[string]any { return map[string]any{"picks": picks} }

// Decline is a decline as page.js posts it.
func Decline() map[string]any { return map[string]any{"decline": true} }

// Event is one server-sent event.
type Event struct{ Name, Data string }

// Question is a question as the page receives it ("add", and each item of
// "pending").
type Question struct {
	ID   string          `json:"id"`
	Call json.RawMessage `json:"call"`
	From struct {
		AgentID    string `json:"agentId"`
		SessionID  string `json:"sessionId"`
		ToolCallID string `json:"toolCallId"`
	} `json:"from"`
}

// End is how a question ended, as the page hears it ("end").
type End struct {
	ID      string `json:"id"`
	State   string `json:"state"`
	Message string `json:"message"`
}

// Stream is the page's open event stream.
type Stream struct {
	t      testing.TB
	events chan Event
}

// Events opens the event stream (page.js: new EventSource("events")); it
// is closed when the test ends. Its first event is "pending", the
// snapshot of what is pending.
func (p *Page) Events() *Stream {
	p.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	res := p.Request(ctx, http.MethodGet, p.Path("events"), nil, nil)
	require.Equal(p.t, http.StatusOK, res.StatusCode)
	require.Equal(p.t, "text/event-stream; charset=utf-8", res.Header.Get("Content-Type"))
	s := &Stream{t: p.t, events: make(chan Event, 64)}
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer close(s.events)
		sc := bufio.NewScanner(res.Body)
		sc.Buffer(make([]byte, 1<<20), 1<<22)
		var ev Event
		for sc.Scan() {
			switch line := sc.Text(); {
			case line == "":
				if ev.Name != "" {
					s.events <- ev
				}
				ev = Event{}
			case strings.HasPrefix(line, "event: "):
				ev.Name = line[len("event: "):]
			case strings.HasPrefix(line, "data: "):
				ev.Data = line[len("data: "):]
			}
		}
	}()
	p.t.Cleanup(func() {
		cancel()
		for range s.events { // unblock the reader
		}
		<-done
	})
	return s
}

// Next returns the next event named one of names, skipping others.
func (s *Stream) Next(names ...string) Event {
	s.t.Helper()
	deadline := time.NewTimer(Patience)
	defer deadline.Stop()
	for {
		select {
		case ev, ok := <-s.events:
			if !ok {
				s.t.Fatalf("the event stream ended while waiting for %v", names)
			}
			for _, n := range names {
				if ev.Name == n {
					return ev
				}
			}
		case <-deadline.C:
			s.t.Fatalf("no %v event within %s", names, Patience)
		}
	}
}

// Question waits for a question on the page: the newest of a snapshot
// that holds any, else the next one added.
func (s *Stream) Question() Question {
	s.t.Helper()
	for {
		if qs, _ := s.questions(); len(qs) > 0 {
			return qs[len(qs)-1]
		}
	}
}

// Sole is Question for a page with at most one question pending: a
// snapshot holding more fails the test.
func (s *Stream) Sole() Question {
	s.t.Helper()
	for {
		qs, snapshot := s.questions()
		require.LessOrEqual(s.t, len(qs), 1, "questions pending: %s", snapshot)
		if len(qs) == 1 {
			return qs[0]
		}
	}
}

// questions waits for the next event that lists questions: the one added,
// or a snapshot's (its data too, "" for an added one).
func (s *Stream) questions() (qs []Question, snapshot string) {
	s.t.Helper()
	ev := s.Next("pending", "add")
	if ev.Name == "add" {
		return []Question{decode[Question](s.t, ev)}, ""
	}
	var snap struct{ Items []Question }
	require.NoError(s.t, json.Unmarshal([]byte(ev.Data), &snap))
	return snap.Items, ev.Data
}

// Added waits for the next question added to the page ("add").
func (s *Stream) Added() Question {
	s.t.Helper()
	return decode[Question](s.t, s.Next("add"))
}

// Ended waits for the next question to end ("end").
func (s *Stream) Ended() End {
	s.t.Helper()
	return decode[End](s.t, s.Next("end"))
}

// decode reads an event's data.
func decode[T any](t testing.TB, ev Event) T {
	t.Helper()
	var v T
	require.NoError(t, json.Unmarshal([]byte(ev.Data), &v), "%s event: %s", ev.Name, ev.Data)
	return v
}
