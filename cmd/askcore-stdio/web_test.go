package main

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/askcore/askcore"
	"github.com/askcore/askcore/internal/testing/coretest"
	"github.com/askcore/askcore/internal/testing/pagetest"
)

// `askcore-stdio ask --web`, the binary end to end without a browser: the
// URL read from stderr, the page's event stream and its answer post, the
// core's answer on stdout. The same in a real browser:
// hostjs/test/page.test.mjs.

// webPage is one process serving the answer page, and a browser on it
// (pagetest) driving the page as its script does.
type webPage struct {
	t      *testing.T
	p      *proc
	page   *pagetest.Page
	events *pagetest.Stream
}

// startWeb runs ask --web with args and waits for its URL on stderr.
func startWeb(t *testing.T, env []string, args ...string) *webPage {
	t.Helper()
	return chatPage(t, start(t, env, false, append([]string{"ask", "--web"}, args...)...))
}

// question opens the page's event stream and returns the one pending
// question: its id and its call.
func (w *webPage) question() (id string, call json.RawMessage) {
	w.t.Helper()
	w.events = w.page.Events()
	q := w.events.Sole()
	return q.ID, q.Call
}

// next returns the data of the next event named name.
func (w *webPage) next(name string) string {
	w.t.Helper()
	return w.events.Next(name).Data
}

// post sends a reply as the page does.
func (w *webPage) post(id string, reply any) (int, string) {
	w.t.Helper()
	status, body := w.page.Post(id, reply, nil)
	return status, string(body)
}

const webDB = `{"header":"Database","question":"Which database?","options":[{"label":"PostgreSQL","value":"postgres","recommended":true},{"label":"SQLite","preview":"db := sqlite.Open(\"app.db\")"}],"allowCustom":true}`

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
			assert.Equal(t, coretest.Answer(t, webDB, askcore.Picks(pk))+"\n", w.p.stdout.String())
			// The one line on stderr is the URL.
			assert.Equal(t, 1, strings.Count(w.p.stderr.String(), "askcore: answer at "))
		})
	}
}

func TestAskWebRequestOnStdin(t *testing.T) {
	p := start(t, baseEnv(), true, "ask", "--web", "--no-browser")
	p.send(webDB)
	require.NoError(t, p.stdin.Close())
	w := chatPage(t, p)
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

// TestAskWebTimeout: 4.5 s, so that the page's event stream opens before
// the question ends however loaded the machine.
func TestAskWebTimeout(t *testing.T) {
	w := startWeb(t, baseEnv(), "--no-browser", "--timeout", "4500ms", "--request", webDB)
	id, _ := w.question()
	ended := w.next("end")
	assert.JSONEq(t, `{"id":"`+id+`","state":"timeout","message":"no answer within 4.5s; nothing was chosen"}`, ended)
	w.next("bye")
	assert.Equal(t, askExitTimeout, w.p.wait())
	assert.Equal(t, failure(askcore.Failure{Situation: askcore.SituationTimeout, Millis: 4500}), w.p.stdout.String())
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
	browser := pagetest.NewBrowser(t)
	for _, c := range append(browser.OpenCases(),
		pagetest.OpenCase{Name: "ASKCORE_BROWSER=command", Env: []string{"DISPLAY=", browser.Env()}, Opened: true}) {
		t.Run(c.Name, func(t *testing.T) {
			browser.Reset()
			env := baseEnv(c.Env...)
			w := startWeb(t, env, append(c.Args, "--request", webDB)...)
			id, _ := w.question()
			if c.Opened {
				// The opener runs in the background: it has been started
				// once the page is asked for; wait for its record.
				browser.WaitOpened()
			}
			status, _ := w.post(id, map[string]any{"picks": []askcore.Pick{{Options: []int{0}}}})
			require.Equal(t, http.StatusOK, status)
			require.Equal(t, askExitOK, w.p.wait())
			if c.Opened {
				assert.Equal(t, []string{w.page.URL().String()}, browser.Opened())
			} else {
				assert.Empty(t, browser.Opened())
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
