package acpagent

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	acp "github.com/coder/acp-go-sdk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/askcore/askcore"
	"github.com/askcore/askcore/internal/testing/coretest"
	"github.com/askcore/askcore/internal/testing/pagetest"
)

// The answer page through the real askcore-acp binary over pipes:
// acp-go-sdk's client side, without form elicitation, drives the binary;
// the page is driven over HTTP as its script does (the event stream, then
// a POST of the picks). The same in real Chromium with the TypeScript
// client: interop/web.test.mjs.

// pageDBArgs and pageNameArgs are testScript's two questions.
const (
	pageDBArgs   = `{"header":"Database","question":"Which database should I use?","options":[{"label":"PostgreSQL","value":"postgres","description":"server"},{"label":"SQLite","value":"sqlite","recommended":true}],"allowCustom":true}`
	pageNameArgs = `{"question":"What should the project be called?"}`
)

// webAgent is the askcore-acp binary with acp-go-sdk's client on its
// stdin and stdout.
type webAgent struct {
	t      *testing.T
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stderr *syncBuffer
	client *testClient
	conn   *acp.ClientSideConnection
	tap    *tap
	done   chan struct{}
}

// startWebAgent starts the binary on testScript with args (after
// --script) and env added to the test's environment (ASKCORE_BROWSER=none
// unless env says otherwise), and connects the client.
func startWebAgent(t *testing.T, env []string, args ...string) *webAgent {
	t.Helper()
	bin := acpBinary(t)
	a := &webAgent{t: t, stderr: &syncBuffer{}, tap: &tap{}, done: make(chan struct{})}
	a.client = &testClient{updates: make(map[acp.SessionId][]acp.SessionUpdate)}
	a.cmd = exec.Command(bin, append([]string{"--script", writeScript(t, testScript)}, args...)...)
	a.cmd.Env = append(append(childEnv(), "ASKCORE_BROWSER=none"), env...)
	a.cmd.Stderr = a.stderr
	var err error
	a.stdin, err = a.cmd.StdinPipe()
	require.NoError(t, err)
	stdout, err := a.cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, a.cmd.Start())
	clientInR, clientInW := io.Pipe()
	go a.tap.run(stdout, clientInW)
	go func() {
		_ = a.cmd.Wait()
		close(a.done)
	}()
	a.conn = acp.NewClientSideConnection(a.client, a.stdin, clientInR)
	t.Cleanup(func() {
		a.stdin.Close()
		select {
		case <-a.done:
		case <-time.After(patience):
			_ = a.cmd.Process.Kill()
			<-a.done
			t.Error("askcore-acp did not exit after stdin closed")
		}
		<-a.conn.Done()
		assert.NotContains(t, a.stderr.String(), "panic")
	})
	return a
}

func (a *webAgent) initialize(form bool) {
	a.t.Helper()
	initialize(a.t, a.conn, form)
}

func (a *webAgent) newSession() acp.SessionId {
	a.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), patience)
	defer cancel()
	resp, err := a.conn.NewSession(ctx, acp.NewSessionRequest{Cwd: "/tmp", McpServers: []acp.McpServer{}})
	require.NoError(a.t, err, a.stderr.String())
	return resp.SessionId
}

type promptResult struct {
	stop acp.StopReason
	err  error
}

// prompt sends a prompt and returns at once; the channel gets its end.
func (a *webAgent) prompt(sid acp.SessionId, text string) <-chan promptResult {
	ch := make(chan promptResult, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), patience)
		defer cancel()
		resp, err := a.conn.Prompt(ctx, acp.PromptRequest{SessionId: sid, Prompt: []acp.ContentBlock{acp.TextBlock(text)}})
		ch <- promptResult{resp.StopReason, err}
	}()
	return ch
}

func (a *webAgent) ended(ch <-chan promptResult) acp.StopReason {
	a.t.Helper()
	select {
	case r := <-ch:
		require.NoError(a.t, r.err, a.stderr.String())
		return r.stop
	case <-time.After(patience):
		a.t.Fatalf("the prompt did not end; stderr:\n%s", a.stderr.String())
		return ""
	}
}

// pageURL waits for the "askcore: answer at URL" line on stderr.
func (a *webAgent) pageURL() *url.URL {
	a.t.Helper()
	u, err := url.Parse(pagetest.WaitURL(a.t, a.stderr.String, a.done))
	require.NoError(a.t, err)
	return u
}

// exitCode waits for the binary to exit.
func (a *webAgent) exitCode() int {
	a.t.Helper()
	select {
	case <-a.done:
	case <-time.After(patience):
		a.t.Fatalf("askcore-acp did not exit; stderr:\n%s", a.stderr.String())
	}
	return a.cmd.ProcessState.ExitCode()
}

// page is a browser on the answer page (pagetest), its event stream
// open.
type page struct {
	*pagetest.Page
	events *pagetest.Stream
}

func openPage(t *testing.T, base *url.URL) *page {
	t.Helper()
	b := pagetest.Open(t, base.String())
	return &page{b, b.Events()}
}

// question returns the next question to appear on the page: from the
// first snapshot (the one pending), else the next "add" event.
func (p *page) question() pagetest.Question { return p.events.Sole() }

// next returns the next event named name and its data.
func (p *page) next(name string) (string, string) {
	ev := p.events.Next(name)
	return ev.Name, ev.Data
}

// post sends a reply as the page's script does.
func (p *page) post(id string, reply any) (int, string) {
	status, body := p.Post(id, reply, nil)
	return status, string(body)
}

func normalized(t *testing.T, args string) string {
	t.Helper()
	call, err := askcore.NewCore(nil).Normalize(context.Background(), args)
	require.NoError(t, err)
	return string(call.JSON())
}

// A client without form elicitation (--web=auto, the default), on both
// engines: the question is on the page, its URL on stderr and in the
// session as agent message text; the picks posted as the page posts them
// are the core's answer in the tool_call_update's rawOutput. The next
// question of the session goes to the same page.
func TestWebNoFormAnsweredOnThePage(t *testing.T) {
	for _, engine := range []string{"native", "wasm"} {
		t.Run(engine, func(t *testing.T) {
			a := startWebAgent(t, nil, "--engine", engine)
			a.initialize(false)
			sid := a.newSession()
			done := a.prompt(sid, "go")
			base := a.pageURL()

			// The page itself, as a browser fetches it.
			res, err := http.Get(base.String())
			require.NoError(t, err)
			html, _ := io.ReadAll(res.Body)
			res.Body.Close()
			assert.Equal(t, http.StatusOK, res.StatusCode)
			assert.Contains(t, res.Header.Get("Content-Type"), "text/html")
			assert.Contains(t, res.Header.Get("Content-Security-Policy"), "script-src 'self' 'wasm-unsafe-eval'")
			assert.Contains(t, string(html), "page.js")

			p := openPage(t, base)
			q := p.question()
			assert.JSONEq(t, normalized(t, pageDBArgs), string(q.Call))
			assert.Equal(t, string(sid), q.From.SessionID)
			assert.Equal(t, "call_db", q.From.ToolCallID)
			status, body := p.post(q.ID, map[string]any{"picks": []askcore.Pick{{Options: []int{1}}}})
			require.Equal(t, http.StatusOK, status, body)
			assert.JSONEq(t, `{"state":"answered","message":"→ SQLite"}`, body)
			require.Equal(t, acp.StopReasonEndTurn, a.ended(done))

			// rawOutput is the core's bytes, on the wire.
			assert.Equal(t, []string{coretest.Answer(t, pageDBArgs, askcore.Picks(askcore.Pick{Options: []int{1}}))}, a.tap.rawOutputs(sid, "call_db"))
			texts, tools := summarize(t, a.client.takeUpdates(sid))
			assert.Equal(t, []string{"Let me ask.", "\n\naskcore: answer at " + base.String() + "\n\n", "You chose sqlite."}, texts)
			require.Len(t, tools, 2)
			assert.Equal(t, acp.ToolCallStatusCompleted, tools[1].status)
			assert.Equal(t, []string{"SQLite"}, tools[1].content, "the card shows the core's summary")
			assert.Empty(t, a.tap.elicitations(), "no form was sent")

			// The next question: the same page, the URL sent again.
			done = a.prompt(sid, "again")
			q = p.question()
			assert.Equal(t, "call_name", q.From.ToolCallID)
			status, body = p.post(q.ID, map[string]any{"picks": []askcore.Pick{{Text: "Atlas <b>&"}}})
			require.Equal(t, http.StatusOK, status, body)
			require.Equal(t, acp.StopReasonEndTurn, a.ended(done))
			assert.Equal(t, []string{`{"answer":"Atlas \u003cb\u003e\u0026"}`}, a.tap.rawOutputs(sid, "call_name"))
			texts, _ = summarize(t, a.client.takeUpdates(sid))
			assert.Equal(t, []string{"\n\naskcore: answer at " + base.String() + "\n\n", "Project: Atlas <b>&."}, texts)
			assert.Equal(t, 1, strings.Count(a.stderr.String(), "askcore: answer at "), "one page for the process")
		})
	}
}

// session/cancel with two sessions' questions on the page: the cancelled
// one is withdrawn (the page hears it, in the core's words), its tool fails
// with ASK_ABORTED and its prompt ends cancelled; a late answer to it is
// refused and changes nothing; the other session's question stays on the
// page and gets its answer.
func TestWebSessionCancelWithdraws(t *testing.T) {
	a := startWebAgent(t, nil, "--engine", "native")
	a.initialize(false)
	victim, other := a.newSession(), a.newSession()
	victimDone := a.prompt(victim, "go")
	p := openPage(t, a.pageURL())
	first := p.question()
	require.Equal(t, string(victim), first.From.SessionID)
	otherDone := a.prompt(other, "go")
	second := p.question()
	require.Equal(t, string(other), second.From.SessionID)

	ctx, cancel := context.WithTimeout(context.Background(), patience)
	defer cancel()
	require.NoError(t, a.conn.Cancel(ctx, acp.CancelNotification{SessionId: victim}))
	_, ended := p.next("end")
	aborted := askcore.NewCore(nil).Fail(context.Background(), askcore.Failure{Situation: askcore.SituationAborted})
	assert.JSONEq(t, `{"id":"`+first.ID+`","state":"aborted","message":"`+aborted.Message+`"}`, ended)
	require.Equal(t, acp.StopReasonCancelled, a.ended(victimDone))
	raws := a.tap.rawOutputs(victim, "call_db")
	require.Len(t, raws, 1)
	assert.Equal(t, "ASK_ABORTED", errorCode(t, json.RawMessage(raws[0])))

	status, body := p.post(first.ID, map[string]any{"picks": []askcore.Pick{{Options: []int{0}}}})
	assert.Equal(t, http.StatusConflict, status)
	assert.JSONEq(t, `{"state":"aborted","message":"`+aborted.Message+`"}`, body)
	assert.Len(t, a.tap.rawOutputs(victim, "call_db"), 1, "the late answer changed nothing")

	status, body = p.post(second.ID, map[string]any{"picks": []askcore.Pick{{Options: []int{0}}}})
	require.Equal(t, http.StatusOK, status, body)
	require.Equal(t, acp.StopReasonEndTurn, a.ended(otherDone))
	assert.Equal(t, []string{coretest.Answer(t, pageDBArgs, askcore.Picks(askcore.Pick{Options: []int{0}}))}, a.tap.rawOutputs(other, "call_db"))
}

// A decline on the page is the core's ASK_DECLINED; --web=always asks on
// the page even a client that shows forms (it is sent none).
func TestWebAlwaysAndDecline(t *testing.T) {
	a := startWebAgent(t, nil, "--engine", "native", "--web=always")
	a.initialize(true)
	sid := a.newSession()
	done := a.prompt(sid, "go")
	p := openPage(t, a.pageURL())
	q := p.question()
	status, body := p.post(q.ID, map[string]any{"decline": true})
	require.Equal(t, http.StatusOK, status, body)
	require.Equal(t, acp.StopReasonEndTurn, a.ended(done))
	assert.Equal(t, []string{coretest.Failure(askcore.Failure{Situation: askcore.SituationDeclined})}, a.tap.rawOutputs(sid, "call_db"))
	assert.Empty(t, a.tap.elicitations())
	assert.Zero(t, a.client.askedCount())
}

// --web=never keeps the old answer: a client without forms gets the core's
// ASK_FAILED no_form_support at once, and no page is served.
func TestWebNever(t *testing.T) {
	a := startWebAgent(t, nil, "--engine", "native", "--web", "never")
	a.initialize(false)
	sid := a.newSession()
	require.Equal(t, acp.StopReasonEndTurn, a.ended(a.prompt(sid, "go")))
	assert.Equal(t, []string{coretest.Failure(askcore.Failure{Situation: askcore.SituationNoFormSupport})}, a.tap.rawOutputs(sid, "call_db"))
	assert.NotContains(t, a.stderr.String(), "answer at")
	texts, _ := summarize(t, a.client.takeUpdates(sid))
	assert.Equal(t, []string{"Let me ask.", "You chose ASK_FAILED."}, texts)
}

// SIGTERM with the question on the page: the page hears why it ended
// (the agent received SIGTERM) and that the program stopped serving it,
// the tool fails with ASK_ABORTED, and the agent exits 143.
func TestWebSignalWithdraws(t *testing.T) {
	a := startWebAgent(t, nil, "--engine", "native")
	a.initialize(false)
	sid := a.newSession()
	done := a.prompt(sid, "go")
	p := openPage(t, a.pageURL())
	q := p.question()
	require.NoError(t, a.cmd.Process.Signal(syscall.SIGTERM))
	_, ended := p.next("end")
	var e struct{ ID, State, Message string }
	require.NoError(t, json.Unmarshal([]byte(ended), &e))
	assert.Equal(t, q.ID, e.ID)
	assert.Equal(t, "aborted", e.State)
	assert.Contains(t, e.Message, "the agent received SIGTERM")
	p.next("bye")
	require.Equal(t, acp.StopReasonCancelled, a.ended(done))
	assert.Equal(t, 143, a.exitCode())
	raws := a.tap.rawOutputs(sid, "call_db")
	require.Len(t, raws, 1)
	assert.Equal(t, "ASK_ABORTED", errorCode(t, json.RawMessage(raws[0])))
}

// The page is opened in the browser where a desktop session is detected,
// and not with --no-browser or ASKCORE_BROWSER=none. The page opens the
// browser only while no page listens to it, so the test opens none before
// the question is on it: where a browser opens, the test waits for it and
// then answers; elsewhere it cancels the question once its URL is in the
// session (the page decides when it takes the question, which the agent's
// exit waits for).
func TestWebOpensBrowser(t *testing.T) {
	browser := pagetest.NewBrowser(t)
	for _, c := range browser.OpenCases() {
		t.Run(c.Name, func(t *testing.T) {
			browser.Reset()
			a := startWebAgent(t, c.Env, append([]string{"--engine", "native"}, c.Args...)...)
			a.initialize(false)
			sid := a.newSession()
			done := a.prompt(sid, "go")
			base := a.pageURL()
			if c.Opened {
				browser.WaitOpened()
				p := openPage(t, base)
				status, _ := p.post(p.question().ID, map[string]any{"picks": []askcore.Pick{{Options: []int{0}}}})
				require.Equal(t, http.StatusOK, status)
				require.Equal(t, acp.StopReasonEndTurn, a.ended(done))
			} else {
				a.waitText(sid, "askcore: answer at "+base.String())
				ctx, cancel := context.WithTimeout(context.Background(), patience)
				defer cancel()
				require.NoError(t, a.conn.Cancel(ctx, acp.CancelNotification{SessionId: sid}))
				require.Equal(t, acp.StopReasonCancelled, a.ended(done))
			}
			require.NoError(t, a.stdin.Close())
			assert.Equal(t, 0, a.exitCode())
			if c.Opened {
				assert.Equal(t, []string{base.String()}, browser.Opened())
			} else {
				assert.Empty(t, browser.Opened())
			}
		})
	}
}

// waitText waits until the client has received agent message text in sid
// containing text.
func (a *webAgent) waitText(sid acp.SessionId, text string) {
	a.t.Helper()
	require.Eventually(a.t, func() bool {
		a.client.mu.Lock()
		defer a.client.mu.Unlock()
		for _, u := range a.client.updates[sid] {
			if u.AgentMessageChunk != nil && u.AgentMessageChunk.Content.Text != nil && strings.Contains(u.AgentMessageChunk.Content.Text.Text, text) {
				return true
			}
		}
		return false
	}, patience, 10*time.Millisecond, "no agent message with %q", text)
}
