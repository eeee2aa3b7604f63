package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/askcore/askcore"
)

// `askcore-stdio ask --web`, the binary end to end without a browser: the
// URL read from stderr, the page's event stream and its answer post, the
// core's answer on stdout. The same in a real browser:
// hostjs/test/page.test.mjs.

var answerLine = regexp.MustCompile(`(?m)^askcore: answer at (http://127\.0\.0\.1:\d+/[A-Za-z0-9_-]{43}/)$`)

// webPage is one `ask --web` process and the page it serves.
type webPage struct {
	t      *testing.T
	p      *proc
	base   *url.URL
	client *http.Client
	events *bufio.Scanner
}

// startWeb runs ask --web with args and waits for its URL on stderr.
func startWeb(t *testing.T, env []string, args ...string) *webPage {
	t.Helper()
	p := start(t, env, false, append([]string{"ask", "--web"}, args...)...)
	deadline := time.Now().Add(patience)
	var m []string
	for m == nil {
		m = answerLine.FindStringSubmatch(p.stderr.String())
		if m != nil {
			break
		}
		select {
		case <-p.done:
			t.Fatalf("exited (%d) before printing the URL\nstdout:\n%s\nstderr:\n%s", p.code, p.stdout, p.stderr)
		default:
		}
		require.False(t, time.Now().After(deadline), "no URL on stderr: %q", p.stderr.String())
		time.Sleep(10 * time.Millisecond)
	}
	u, err := url.Parse(m[1])
	require.NoError(t, err)
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	return &webPage{t: t, p: p, base: u, client: &http.Client{Transport: tr}}
}

// question opens the page's event stream and returns the first pending
// question: its id and its call.
func (w *webPage) question() (id string, call json.RawMessage) {
	w.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	w.t.Cleanup(cancel)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, w.base.String()+"events", nil)
	require.NoError(w.t, err)
	res, err := w.client.Do(req)
	require.NoError(w.t, err)
	require.Equal(w.t, http.StatusOK, res.StatusCode)
	w.t.Cleanup(func() { res.Body.Close() })
	w.events = bufio.NewScanner(res.Body)
	w.events.Buffer(make([]byte, 1<<20), 1<<22)
	type question struct {
		ID   string          `json:"id"`
		Call json.RawMessage `json:"call"`
	}
	var snap struct{ Items []question }
	require.NoError(w.t, json.Unmarshal([]byte(w.next("pending")), &snap))
	if len(snap.Items) == 0 {
		// Not yet on the page (a server started before the question).
		var q question
		require.NoError(w.t, json.Unmarshal([]byte(w.next("add")), &q))
		return q.ID, q.Call
	}
	require.Len(w.t, snap.Items, 1)
	return snap.Items[0].ID, snap.Items[0].Call
}

// next returns the data of the next event named name.
func (w *webPage) next(name string) string {
	w.t.Helper()
	current := ""
	for w.events.Scan() {
		line := w.events.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			current = line[len("event: "):]
		case strings.HasPrefix(line, "data: ") && current == name:
			return line[len("data: "):]
		}
	}
	w.t.Fatalf("the event stream ended before a %s event", name)
	return ""
}

// post sends a reply as the page does.
func (w *webPage) post(id string, reply any) (int, string) {
	w.t.Helper()
	body, err := json.Marshal(map[string]any{"id": id, "reply": reply})
	require.NoError(w.t, err)
	req, err := http.NewRequest(http.MethodPost, w.base.String()+"answer", bytes.NewReader(body))
	require.NoError(w.t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Origin", w.base.Scheme+"://"+w.base.Host)
	res, err := w.client.Do(req)
	require.NoError(w.t, err)
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	require.NoError(w.t, err)
	return res.StatusCode, string(b)
}

const webDB = `{"header":"Database","question":"Which database?","options":[{"label":"PostgreSQL","value":"postgres","recommended":true},{"label":"SQLite","preview":"db := sqlite.Open(\"app.db\")"}],"allowCustom":true}`

// coreAnswerOf is the core's answer to arguments for reply.
func coreAnswerOf(t *testing.T, arguments string, reply askcore.Reply) string {
	t.Helper()
	call, err := askcore.NewCore(nil).Normalize(context.Background(), arguments)
	require.NoError(t, err)
	a, err := call.Resolve(context.Background(), reply)
	require.NoError(t, err)
	return string(a.JSON()) + "\n"
}

func TestAskWebAnswered(t *testing.T) {
	for _, engine := range []string{"native", "wasm"} {
		t.Run(engine, func(t *testing.T) {
			w := startWeb(t, baseEnv(), "--no-browser", "--engine", engine, "--request", webDB)
			id, call := w.question()
			norm, err := askcore.NewCore(nil).Normalize(context.Background(), webDB)
			require.NoError(t, err)
			assert.JSONEq(t, string(norm.JSON()), string(call))
			pk := askcore.Pick{Options: []int{1}, Notes: "just for tests"}
			status, body := w.post(id, map[string]any{"picks": []askcore.Pick{pk}})
			require.Equal(t, http.StatusOK, status, body)
			assert.JSONEq(t, `{"state":"answered","message":"→ SQLite (notes: just for tests)"}`, body)
			require.Equal(t, askExitOK, w.p.wait(), w.p.stderr.String())
			assert.Equal(t, coreAnswerOf(t, webDB, askcore.Picks(pk)), w.p.stdout.String())
			// The one line on stderr is the URL.
			assert.Equal(t, 1, strings.Count(w.p.stderr.String(), "askcore: answer at "))
		})
	}
}

func TestAskWebRequestOnStdin(t *testing.T) {
	p := start(t, baseEnv(), true, "ask", "--web", "--no-browser")
	p.send(webDB)
	require.NoError(t, p.stdin.Close())
	deadline := time.Now().Add(patience)
	for answerLine.FindStringSubmatch(p.stderr.String()) == nil {
		require.False(t, time.Now().After(deadline), "no URL: %s", p.stderr)
		time.Sleep(10 * time.Millisecond)
	}
	u, err := url.Parse(answerLine.FindStringSubmatch(p.stderr.String())[1])
	require.NoError(t, err)
	w := &webPage{t: t, p: p, base: u, client: &http.Client{Transport: &http.Transport{}}}
	id, _ := w.question()
	status, _ := w.post(id, map[string]any{"picks": []askcore.Pick{{Text: "DuckDB"}}})
	require.Equal(t, http.StatusOK, status)
	require.Equal(t, askExitOK, p.wait())
	assert.Equal(t, `{"answer":"DuckDB"}`+"\n", p.stdout.String())
}

func TestAskWebDeclined(t *testing.T) {
	w := startWeb(t, baseEnv(), "--no-browser", "--request", webDB)
	id, _ := w.question()
	status, body := w.post(id, map[string]any{"decline": true})
	require.Equal(t, http.StatusOK, status, body)
	assert.Equal(t, askExitDeclined, w.p.wait())
	assert.Equal(t, failure(askcore.Failure{Situation: askcore.SituationDeclined}), w.p.stdout.String())
}

func TestAskWebTimeout(t *testing.T) {
	w := startWeb(t, baseEnv(), "--no-browser", "--timeout", "1500ms", "--request", webDB)
	id, _ := w.question()
	ended := w.next("end")
	assert.JSONEq(t, `{"id":"`+id+`","state":"timeout","message":"no answer within 1.5s; nothing was chosen"}`, ended)
	w.next("bye")
	assert.Equal(t, askExitTimeout, w.p.wait())
	assert.Equal(t, failure(askcore.Failure{Situation: askcore.SituationTimeout, Millis: 1500}), w.p.stdout.String())
}

func TestAskWebSIGTERM(t *testing.T) {
	w := startWeb(t, baseEnv(), "--no-browser", "--request", webDB)
	id, _ := w.question()
	require.NoError(t, w.p.cmd.Process.Signal(syscall.SIGTERM))
	ended := w.next("end")
	assert.JSONEq(t, `{"id":"`+id+`","state":"aborted","message":"the question was aborted: terminated (SIGTERM)"}`, ended)
	assert.Equal(t, askExitAborted, w.p.wait())
	assert.Equal(t, failure(askcore.Failure{Situation: askcore.SituationAborted, Detail: "terminated (SIGTERM)"}), w.p.stdout.String())
}

func TestAskWebBadRequest(t *testing.T) {
	// A bad request is the core's verdict, before any page.
	stdout, stderr, code := runWith(t, baseEnv(), "", "ask", "--web", "--no-browser", "--request", `{"question":""}`)
	assert.Equal(t, askExitInvalidRequest, code)
	assert.Equal(t, "INVALID_REQUEST", errorObject(t, stdout))
	assert.NotContains(t, stderr, "answer at")
	// The web flags go with --web.
	for _, flag := range []string{"--no-browser", "--web-addr=127.0.0.1:0"} {
		stdout, _, code = runWith(t, baseEnv(), "", "ask", flag, "--request", webDB)
		assert.Equal(t, askExitInvalidRequest, code)
		assert.Equal(t, failure(askcore.Failure{Situation: askcore.SituationUsage, Detail: strings.SplitN(flag, "=", 2)[0] + " goes with --web"}), stdout)
	}
	// An address it cannot listen on.
	stdout, stderr, code = runWith(t, baseEnv(), "", "ask", "--web", "--no-browser", "--web-addr", "256.1.1.1:0", "--request", webDB)
	assert.Equal(t, askExitFailed, code)
	assert.Equal(t, "ASK_FAILED", errorObject(t, stdout))
	assert.Contains(t, stdout, "256.1.1.1:0")
	assert.NotContains(t, stderr, "answer at")
}

// The browser is opened with the URL where a desktop session is detected,
// and not with --no-browser or ASKCORE_BROWSER=none.
func TestAskWebOpensBrowser(t *testing.T) {
	dir := t.TempDir()
	record := filepath.Join(dir, "opened")
	fake := filepath.Join(dir, "xdg-open")
	require.NoError(t, os.WriteFile(fake, []byte("#!/bin/sh\nprintf '%s\\n' \"$1\" >> "+record+"\n"), 0o755))
	path := "PATH=" + dir + string(os.PathListSeparator) + os.Getenv("PATH")
	for _, c := range []struct {
		name   string
		env    []string
		args   []string
		opened bool
	}{
		{"desktop", []string{path, "DISPLAY=:99"}, nil, true},
		{"no desktop", []string{path, "DISPLAY=", "WAYLAND_DISPLAY="}, nil, false},
		{"--no-browser", []string{path, "DISPLAY=:99"}, []string{"--no-browser"}, false},
		{"ASKCORE_BROWSER=none", []string{path, "DISPLAY=:99", "ASKCORE_BROWSER=none"}, nil, false},
		{"ASKCORE_BROWSER=command", []string{"DISPLAY=", "ASKCORE_BROWSER=" + fake}, nil, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			os.Remove(record)
			env := baseEnv(c.env...)
			w := startWeb(t, env, append(c.args, "--request", webDB)...)
			id, _ := w.question()
			if c.opened {
				// The opener runs in the background: it has been started
				// once the page is asked for; wait for its record.
				require.Eventually(t, func() bool { _, err := os.Stat(record); return err == nil }, patience, 10*time.Millisecond)
			}
			status, _ := w.post(id, map[string]any{"picks": []askcore.Pick{{Options: []int{0}}}})
			require.Equal(t, http.StatusOK, status)
			require.Equal(t, askExitOK, w.p.wait())
			b, err := os.ReadFile(record)
			if c.opened {
				require.NoError(t, err)
				assert.Equal(t, w.base.String()+"\n", string(b))
			} else {
				assert.True(t, os.IsNotExist(err), "opened: %s", b)
			}
		})
	}
}

func TestAskWebHelp(t *testing.T) {
	stdout, _, code := runWith(t, baseEnv(), "", "ask", "--help")
	assert.Equal(t, 0, code)
	for _, want := range []string{"--web", "--no-browser", "ASKCORE_BROWSER=none", "askcore: answer at URL", "--web-addr", "ssh -L 8765:127.0.0.1:8765"} {
		assert.Contains(t, stdout, want)
	}
}
