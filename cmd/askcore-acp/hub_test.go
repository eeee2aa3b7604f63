package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	acp "github.com/coder/acp-go-sdk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/askcore/askcore"
	"github.com/askcore/askcore/hub/store"
	"github.com/askcore/askcore/internal/testing/acpwire"
	"github.com/askcore/askcore/internal/testing/coretest"
	"github.com/askcore/askcore/internal/testing/hubtest"
	"github.com/askcore/askcore/internal/testing/syncbuf"
)

// hubQuestion is the model's question in the hub tests.
const hubQuestion = `{"header":"Database","question":"Which database should I use?","options":[` +
	`{"label":"PostgreSQL","value":"postgres"},{"label":"SQLite","value":"sqlite","recommended":true}]}`

// TestHubWaitsWhenTheEditorCannotShow: askcore-acp --hub with an editor
// that cannot show the question (it has no forms) drops the editor out;
// the ask waits in the hub, the person replies there, and the prompt's
// tool result is the core's answer for that reply, byte for byte. (An
// editor that declines a form sooner than a person could read it is
// not_shown too and drops out the same way, but only by the core's
// 250 ms rule, which a loaded machine's pipes can miss: that rule is
// tested where the clock is the test's, in the core's corpus.)
func TestHubWaitsWhenTheEditorCannotShow(t *testing.T) {
	h := hubtest.Start(t)
	editor := &formless{}
	a := startPrompt(t, h.URL, h.Env, editor, acp.ClientCapabilities{})
	ask := h.Ask(t, store.StatePending)
	assert.JSONEq(t, hubQuestion, ask.Arguments, "the model's arguments reach the hub")
	assert.Equal(t, "call_db", ask.ToolCallID, "the hub knows the ask by the model's tool call id")
	h.Reply(t, ask, `{"lines":["PostgreSQL"]}`, "phone")

	a.ended(t, func() string {
		asks, _ := h.Store.Asks(context.Background(), store.AskFilter{PersonID: h.Person})
		return fmt.Sprintf("the hub's asks: %+v", asks)
	})
	assert.Equal(t, []string{coretest.Resolved(t, hubQuestion, askcore.Lines("PostgreSQL"))}, rawOutputs(t, a.wire.String(), "call_db"),
		"the tool result is the core's answer for the inbox's reply, byte for byte")
	assert.Zero(t, editor.count(), "an editor without forms is never sent one")
}

// TestHubTellsTheEditor: with --hub, a hub that refuses the agent's token
// or cannot be reached is not an answer: the editor that shows forms is
// told so in the session (agent message text, the words the terminal
// prints), keeps the question, and the form's answer is the tool result,
// the core's bytes. Nothing says it was answered elsewhere.
func TestHubTellsTheEditor(t *testing.T) {
	for _, tc := range hubtest.NoHubs {
		t.Run(tc.Name, func(t *testing.T) {
			url, env := tc.Start(t)
			says := tc.Says(url)
			editor := &noticedEditor{waitFor: says[0]}
			a := startPrompt(t, url, env, editor, acp.ClientCapabilities{Elicitation: &acp.ElicitationCapabilities{Form: &acp.ElicitationFormCapabilities{}}})
			a.ended(t, func() string { return "the editor was told: " + editor.text.String() })
			for _, want := range says {
				assert.Contains(t, editor.text.String(), want, "the editor hears what happened with the hub")
			}
			assert.NotContains(t, editor.text.String(), "answered elsewhere")
			assert.Equal(t, []string{formAnswer(t)}, rawOutputs(t, a.wire.String(), "call_db"),
				"the tool result is the core's answer for the form's reply, byte for byte")
		})
	}
}

// TestHubAnsweredInInboxTellsTheEditor: the editor shows the form and
// hears the question is in the hub's inbox too; answered there, the form
// is withdrawn and the session says where it was answered, in the core's
// words; the tool result is the inbox's answer.
func TestHubAnsweredInInboxTellsTheEditor(t *testing.T) {
	h := hubtest.Start(t)
	elsewhere := askcore.NewCore(nil).Fail(context.Background(), askcore.Failure{Situation: askcore.SituationAnsweredElsewhere, Detail: "the hub's inbox"}).Message
	// The person does not answer the form: it waits until the session
	// says the question was answered elsewhere.
	editor := &noticedEditor{waitFor: elsewhere}
	a := startPrompt(t, h.URL, h.Env, editor, acp.ClientCapabilities{Elicitation: &acp.ElicitationCapabilities{Form: &acp.ElicitationFormCapabilities{}}})
	require.True(t, editor.text.WaitFor("This question is also in the hub's inbox ("+h.URL+"): answer it here or there.", patience), editor.text.String())
	h.Reply(t, h.Ask(t, store.StatePending), `{"lines":["PostgreSQL"]}`, "phone")
	a.ended(t, func() string { return "the editor was told: " + editor.text.String() })
	// A notification the editor may handle after the response it preceded.
	assert.True(t, editor.text.WaitFor(elsewhere, patience), "the session says where the question was answered: %s", editor.text.String())
	assert.Equal(t, []string{coretest.Resolved(t, hubQuestion, askcore.Lines("PostgreSQL"))}, rawOutputs(t, a.wire.String(), "call_db"),
		"the tool result is the core's answer for the inbox's reply, byte for byte")
}

// editorAnswer is the form reply noticedEditor gives; formAnswer is the
// core's answer for it.
var editorAnswer = map[string]any{"choice": "sqlite"}

func formAnswer(t *testing.T) string {
	t.Helper()
	reply, err := json.Marshal(map[string]any{"action": "accept", "content": editorAnswer})
	require.NoError(t, err)
	answer, isError := coretest.FormAnswer(t, hubQuestion, string(reply))
	require.False(t, isError, "%s", answer)
	return string(answer)
}

// noticedEditor shows forms and keeps the session's agent message text;
// it answers a form (editorAnswer) once it was told waitFor, as a person
// reads the notice first.
type noticedEditor struct {
	formless
	waitFor string
	text    syncbuf.Buffer
}

func (e *noticedEditor) SessionUpdate(_ context.Context, n acp.SessionNotification) error {
	if c := n.Update.AgentMessageChunk; c != nil && c.Content.Text != nil {
		_, _ = e.text.Write([]byte(c.Content.Text.Text))
	}
	return nil
}

func (e *noticedEditor) UnstableCreateElicitation(context.Context, acp.UnstableCreateElicitationRequest) (acp.UnstableCreateElicitationResponse, error) {
	e.asked.Add(1)
	// Past half the test's patience it declines, and the test fails on
	// that outcome.
	if !e.text.WaitFor(e.waitFor, patience/2) {
		return acp.UnstableCreateElicitationResponse{Decline: &acp.UnstableCreateElicitationDecline{Action: "decline"}}, nil
	}
	return acp.UnstableCreateElicitationResponse{Accept: &acp.UnstableCreateElicitationAccept{Action: "accept", Content: editorAnswer}}, nil
}

// prompt is a prompt under way in askcore-acp --hub: the agent's every
// line (wire: the tool result's bytes, as they went to the editor) and
// its stderr.
type prompt struct {
	wire, stderr *syncbuf.Buffer
	done         chan promptResult
}

type promptResult struct {
	resp acp.PromptResponse
	err  error
}

// startPrompt runs askcore-acp --hub url (getenv gives the token) with a
// scripted model that asks hubQuestion as call_db, connects editor with
// caps, and sends a prompt. The test's end ends the prompt, the agent and
// the connection, within a bound.
func startPrompt(t *testing.T, url string, getenv func(string) string, editor acp.Client, caps acp.ClientCapabilities) *prompt {
	t.Helper()
	script := filepath.Join(t.TempDir(), "script.jsonl")
	require.NoError(t, os.WriteFile(script, []byte(`{"content":"Let me ask.","tool_calls":[{"id":"call_db","name":"ask_user_question","arguments":`+hubQuestion+`}]}`+"\n"+
		`{"content":"You chose {{answer}}."}`+"\n"), 0o600))

	ctx, cancel := context.WithCancel(context.Background())
	toAgentR, toAgentW := io.Pipe()
	fromAgentR, fromAgentW := io.Pipe()
	p := &prompt{wire: new(syncbuf.Buffer), stderr: new(syncbuf.Buffer), done: make(chan promptResult, 1)}
	exited := make(chan int, 1)
	go func() {
		exited <- run(ctx, []string{"--engine", "native", "--script", script, "--web", "never", "--hub", url}, toAgentR, fromAgentW, p.stderr, getenv)
		_ = fromAgentW.Close()
	}()
	conn := acp.NewClientSideConnection(editor, toAgentW, io.TeeReader(fromAgentR, p.wire))
	pctx, pcancel := context.WithCancel(ctx)
	t.Cleanup(func() {
		// A prompt still waiting ends before the connection closes; then
		// the agent ends, and is waited for.
		pcancel()
		_ = toAgentW.Close()
		select {
		case <-exited:
		case <-time.After(patience):
			t.Errorf("askcore-acp did not return after its input closed; stderr: %s", p.stderr.String())
		}
		select {
		case <-conn.Done():
		case <-time.After(patience):
			t.Errorf("the client's connection did not end")
		}
		cancel()
	})

	ictx, icancel := context.WithTimeout(ctx, patience)
	defer icancel()
	_, err := conn.Initialize(ictx, acp.InitializeRequest{ProtocolVersion: acp.ProtocolVersionNumber, ClientCapabilities: caps})
	require.NoError(t, err, p.stderr.String())
	sess, err := conn.NewSession(ictx, acp.NewSessionRequest{Cwd: "/tmp", McpServers: []acp.McpServer{}})
	require.NoError(t, err, p.stderr.String())
	go func() {
		resp, err := conn.Prompt(pctx, acp.PromptRequest{SessionId: sess.SessionId, Prompt: []acp.ContentBlock{acp.TextBlock("pick a database")}})
		p.done <- promptResult{resp, err}
	}()
	return p
}

// ended waits for the prompt's end of turn; past patience it fails with
// state's word on what is still waiting (not at the test binary's
// timeout).
func (p *prompt) ended(t *testing.T, state func() string) {
	t.Helper()
	select {
	case r := <-p.done:
		require.NoError(t, r.err, p.stderr.String())
		assert.Equal(t, acp.StopReasonEndTurn, r.resp.StopReason)
	case <-time.After(patience):
		t.Fatalf("the prompt did not end; %s; stderr: %s", state(), p.stderr.String())
	}
}

// rawOutputs are the rawOutput bytes of each tool_call_update for
// toolCallID among the agent's lines.
func rawOutputs(t *testing.T, lines, toolCallID string) []string {
	t.Helper()
	var out []string
	sc := bufio.NewScanner(bytes.NewReader([]byte(lines)))
	sc.Buffer(make([]byte, 0, 64<<10), 10<<20)
	for sc.Scan() {
		if _, id, raw, ok := acpwire.ToolCallUpdate(sc.Bytes()); ok && id == toolCallID && len(raw) > 0 {
			out = append(out, string(raw))
		}
	}
	require.NoError(t, sc.Err())
	return out
}

// formless is an editor without forms (it says so at initialize) that
// implements nothing else of a client either; it counts the forms it is
// sent all the same, declining each: none should come.
type formless struct {
	asked atomic.Int32
}

func (d *formless) count() int { return int(d.asked.Load()) }

func (d *formless) UnstableCreateElicitation(context.Context, acp.UnstableCreateElicitationRequest) (acp.UnstableCreateElicitationResponse, error) {
	d.asked.Add(1)
	return acp.UnstableCreateElicitationResponse{Decline: &acp.UnstableCreateElicitationDecline{Action: "decline"}}, nil
}

func (d *formless) SessionUpdate(context.Context, acp.SessionNotification) error { return nil }

var errNotAClient = errors.New("not implemented by this editor")

func (d *formless) ReadTextFile(context.Context, acp.ReadTextFileRequest) (acp.ReadTextFileResponse, error) {
	return acp.ReadTextFileResponse{}, errNotAClient
}
func (d *formless) WriteTextFile(context.Context, acp.WriteTextFileRequest) (acp.WriteTextFileResponse, error) {
	return acp.WriteTextFileResponse{}, errNotAClient
}
func (d *formless) RequestPermission(context.Context, acp.RequestPermissionRequest) (acp.RequestPermissionResponse, error) {
	return acp.RequestPermissionResponse{}, errNotAClient
}
func (d *formless) CreateTerminal(context.Context, acp.CreateTerminalRequest) (acp.CreateTerminalResponse, error) {
	return acp.CreateTerminalResponse{}, errNotAClient
}
func (d *formless) KillTerminal(context.Context, acp.KillTerminalRequest) (acp.KillTerminalResponse, error) {
	return acp.KillTerminalResponse{}, errNotAClient
}
func (d *formless) TerminalOutput(context.Context, acp.TerminalOutputRequest) (acp.TerminalOutputResponse, error) {
	return acp.TerminalOutputResponse{}, errNotAClient
}
func (d *formless) ReleaseTerminal(context.Context, acp.ReleaseTerminalRequest) (acp.ReleaseTerminalResponse, error) {
	return acp.ReleaseTerminalResponse{}, errNotAClient
}
func (d *formless) WaitForTerminalExit(context.Context, acp.WaitForTerminalExitRequest) (acp.WaitForTerminalExitResponse, error) {
	return acp.WaitForTerminalExitResponse{}, errNotAClient
}

// TestHubFlagsRefused: --hub without a token, or with a token file that
// holds none, is a usage error, before an editor connects.
func TestHubFlagsRefused(t *testing.T) {
	hubtest.CheckHubFlagsRefused(t, func(t *testing.T, args []string) (int, string) {
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), args, bytes.NewReader(nil), &stdout, &stderr, noEnv)
		assert.Empty(t, stdout.String(), "nothing was served")
		return code, stderr.String()
	})
}
