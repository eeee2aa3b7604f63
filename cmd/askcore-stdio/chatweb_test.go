package main

import (
	"encoding/json"
	"net/http"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/askcore/askcore"
	"github.com/askcore/askcore/internal/testing/pagetest"
)

// The chat on the answer page, the binary end to end over HTTP (the page's
// event stream and its answer post, as web_test.go drives `ask --web`):
// with --web, and where a question has no terminal (stdin ended, no
// controlling terminal, a browser that can open).

// chatScript asks two questions in one turn.
func chatScript(t *testing.T) string {
	return writeScript(t,
		reply{Content: "asking", ToolCalls: ask("q1", colors(false))},
		reply{Content: "A1={{answer}}", ToolCalls: ask("q2", colors(true))},
		reply{Content: "A2={{answer}}"},
	)
}

// chatPage waits for the page's URL on p's stderr and opens a browser on
// it.
func chatPage(t *testing.T, p *proc) *webPage {
	t.Helper()
	u := pagetest.WaitURL(t, p.stderr.String, p.done)
	return &webPage{t: t, p: p, page: pagetest.Open(t, u)}
}

// nextQuestion is the id and call of the next question added to the page.
func (w *webPage) nextQuestion() (string, json.RawMessage) {
	w.t.Helper()
	q := w.events.Added()
	return q.ID, q.Call
}

func pickOf(i int) map[string]any {
	return map[string]any{"picks": []askcore.Pick{{Options: []int{i}}}}
}

// --web: every question of the chat is on the page, none on stdout; stdin
// lines stay prompts; the model gets the core's answers.
func TestChatWebAnswersOnThePage(t *testing.T) {
	for _, engine := range []string{"native", "wasm"} {
		t.Run(engine, func(t *testing.T) {
			p := start(t, baseEnv(), false, "--web", "--no-browser", "--engine", engine, "--script", chatScript(t))
			p.send("go\n")
			w := chatPage(t, p)
			id, call := w.question()
			norm, err := native.Normalize(t.Context(), mustJSON(t, colors(false)))
			require.NoError(t, err)
			assert.JSONEq(t, string(norm.JSON()), string(call))
			status, body := w.post(id, pickOf(2))
			require.Equal(t, http.StatusOK, status, body)
			assert.JSONEq(t, `{"state":"answered","message":"→ Green"}`, body)
			p.waitOut("A1", func(out string) bool { return strings.Contains(out, "A1=green\n") })

			id, _ = w.nextQuestion()
			status, body = w.post(id, map[string]any{"picks": []askcore.Pick{{Text: "magenta"}}})
			require.Equal(t, http.StatusOK, status, body)
			p.waitOut("A2", func(out string) bool { return strings.Contains(out, "A2=magenta\n") })
			require.NoError(t, p.stdin.Close())
			require.Equal(t, exitOK, p.wait(), p.stderr.String())
			assert.NotContains(t, p.stdout.String(), "Which colour?", "no question on the terminal")
			assert.Equal(t, 1, strings.Count(p.stderr.String(), "askcore: answer at "), "one page")
		})
	}
}

// No terminal for the question: stdin (a pipe) ended, the process has no
// controlling terminal (a new session), and a browser opens here
// (ASKCORE_BROWSER names a command): the question goes to the page, which
// is opened in that browser; the next question goes there at once.
func TestChatNoTerminalAsksOnThePage(t *testing.T) {
	browser := pagetest.NewBrowser(t)
	p := start(t, baseEnv(browser.Env()), true, "--engine", "native", "--script", chatScript(t))
	p.send("go\n")
	require.NoError(t, p.stdin.Close())
	w := chatPage(t, p)
	id, _ := w.question()
	browser.WaitOpened()
	status, body := w.post(id, pickOf(0))
	require.Equal(t, http.StatusOK, status, body)
	id, _ = w.nextQuestion()
	status, body = w.post(id, map[string]any{"decline": true})
	require.Equal(t, http.StatusOK, status, body)
	require.Equal(t, exitOK, p.wait(), p.stderr.String())

	out := p.stdout.String()
	assert.Contains(t, out, "A1=red\n")
	assert.Contains(t, out, "A2=ASK_DECLINED\n")
	// The terminal provider said why stdin could not answer, once.
	assert.Equal(t, 1, strings.Count(out, said(askcore.SituationEOF)), out)
	assert.Equal(t, []string{w.page.URL().String()}, browser.Opened(), "the browser was opened once, with the page's URL")
}

// Where the page cannot reach the person by itself, or stdin still has
// lines, the chat behaves as before: the pipe's lines answer, and a
// question at the end of input is ASK_ABORTED; no page is served.
func TestChatNoPageWhereItCannotHelp(t *testing.T) {
	browser := pagetest.NewBrowser(t)
	for _, c := range []struct {
		name  string
		env   []string
		input string
		want  string
	}{
		{"stdin answers", []string{browser.Env()}, "go\n2\n", "A1=red\n"},
		{"no desktop", []string{"DISPLAY=", "WAYLAND_DISPLAY=", "ASKCORE_BROWSER="}, "go\n", "A1=ASK_ABORTED\n"},
		{"ASKCORE_BROWSER=none", []string{"DISPLAY=:99", "ASKCORE_BROWSER=none"}, "go\n", "A1=ASK_ABORTED\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := start(t, baseEnv(c.env...), true, "--engine", "native", "--script", writeScript(t,
				reply{Content: "asking", ToolCalls: ask("q1", colors(false))},
				reply{Content: "A1={{answer}}"},
			))
			p.send(c.input)
			require.NoError(t, p.stdin.Close())
			require.Equal(t, exitOK, p.wait(), p.stderr.String())
			assert.Contains(t, p.stdout.String(), c.want)
			assert.NotContains(t, p.stderr.String(), "answer at")
			assert.Empty(t, browser.Opened(), "a browser was opened")
		})
	}
}

// Ctrl-C with the question on the page dismisses that question only (the
// page says so, the model is told ASK_ABORTED) and the chat goes on;
// SIGTERM withdraws it and ends the chat (143).
func TestChatWebSignals(t *testing.T) {
	p := start(t, baseEnv(), false, "--web", "--no-browser", "--engine", "native", "--script", chatScript(t))
	p.send("go\n")
	w := chatPage(t, p)
	id, _ := w.question()
	require.NoError(t, p.cmd.Process.Signal(syscall.SIGINT))
	ended := w.next("end")
	assert.JSONEq(t, `{"id":"`+id+`","state":"aborted","message":"the question was aborted: interrupted (Ctrl-C)"}`, ended)
	p.waitOut("A1", func(out string) bool { return strings.Contains(out, "A1=ASK_ABORTED\n") })
	// stderr is another pipe: it may arrive after the model's next line
	// on stdout.
	p.waitErrContains("the model's error, on stderr", said(askcore.SituationInterrupted))

	id, _ = w.nextQuestion()
	require.NoError(t, p.cmd.Process.Signal(syscall.SIGTERM))
	ended = w.next("end")
	assert.JSONEq(t, `{"id":"`+id+`","state":"aborted","message":"the question was aborted: terminated (SIGTERM)"}`, ended)
	w.next("bye")
	assert.Equal(t, exitTerminated, p.wait())
	// A late answer is refused: the page is gone.
	_, err := http.Post(w.page.URL().String()+"answer", "application/json", strings.NewReader(`{}`))
	assert.Error(t, err)
}

func TestChatWebUsage(t *testing.T) {
	for _, flag := range []string{"--no-browser", "--web-addr=127.0.0.1:0"} {
		_, stderr, code := runWith(t, baseEnv(), "", flag)
		assert.Equal(t, exitUsage, code)
		assert.Equal(t, "askcore-stdio: "+strings.SplitN(flag, "=", 2)[0]+" goes with --web\n", stderr)
	}
	stdout, _, code := runWith(t, baseEnv(), "", "--help")
	assert.Equal(t, exitOK, code)
	for _, want := range []string{"--web", "--no-browser", "--web-addr", "ASKCORE_BROWSER=none", "askcore: answer at", "/dev/tty cannot be opened"} {
		assert.Contains(t, stdout, want)
	}
}
