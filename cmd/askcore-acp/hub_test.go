package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
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
	script := filepath.Join(t.TempDir(), "script.jsonl")
	require.NoError(t, os.WriteFile(script, []byte(`{"content":"Let me ask.","tool_calls":[{"id":"call_db","name":"ask_user_question","arguments":`+hubQuestion+`}]}`+"\n"+
		`{"content":"You chose {{answer}}."}`+"\n"), 0o600))

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	toAgentR, toAgentW := io.Pipe()
	fromAgentR, fromAgentW := io.Pipe()
	var stderr, wire syncbuf.Buffer
	exited := make(chan int, 1)
	go func() {
		exited <- run(ctx, []string{"--engine", "native", "--script", script, "--web", "never", "--hub", h.URL}, toAgentR, fromAgentW, &stderr, h.Env)
		_ = fromAgentW.Close()
	}()
	editor := &formless{}
	// wire keeps every line the agent wrote: the tool result's
	// bytes, as they went to the editor.
	conn := acp.NewClientSideConnection(editor, toAgentW, io.TeeReader(fromAgentR, &wire))
	defer func() {
		// The prompt ended (or the test failed): end the agent,
		// then wait for it, within a bound.
		_ = toAgentW.Close()
		select {
		case <-exited:
		case <-time.After(patience):
			t.Errorf("askcore-acp did not return after its input closed; stderr: %s", stderr.String())
		}
		select {
		case <-conn.Done():
		case <-time.After(patience):
			t.Errorf("the client's connection did not end")
		}
	}()

	caps := acp.ClientCapabilities{}
	ictx, icancel := context.WithTimeout(ctx, patience)
	defer icancel()
	_, err := conn.Initialize(ictx, acp.InitializeRequest{ProtocolVersion: acp.ProtocolVersionNumber, ClientCapabilities: caps})
	require.NoError(t, err, stderr.String())
	sess, err := conn.NewSession(ictx, acp.NewSessionRequest{Cwd: "/tmp", McpServers: []acp.McpServer{}})
	require.NoError(t, err, stderr.String())

	type promptResult struct {
		resp acp.PromptResponse
		err  error
	}
	prompted := make(chan promptResult, 1)
	pctx, pcancel := context.WithCancel(ctx)
	defer pcancel() // a prompt still waiting ends before the connection closes
	go func() {
		resp, err := conn.Prompt(pctx, acp.PromptRequest{SessionId: sess.SessionId, Prompt: []acp.ContentBlock{acp.TextBlock("pick a database")}})
		prompted <- promptResult{resp, err}
	}()
	a := h.Ask(t, store.StatePending)
	assert.JSONEq(t, hubQuestion, a.Arguments, "the model's arguments reach the hub")
	assert.Equal(t, "call_db", a.ToolCallID, "the hub knows the ask by the model's tool call id")
	h.Reply(t, a, `{"lines":["PostgreSQL"]}`, "phone")

	var r promptResult
	select {
	case r = <-prompted:
	case <-time.After(patience): // fail with what the hub holds, not at the test binary's timeout
		asks, _ := h.Store.Asks(ctx, store.AskFilter{PersonID: h.Person})
		t.Fatalf("the prompt did not end after the inbox's reply; the hub's asks: %+v; stderr: %s", asks, stderr.String())
	}
	require.NoError(t, r.err, stderr.String())
	assert.Equal(t, acp.StopReasonEndTurn, r.resp.StopReason)

	call, err := askcore.NewCore(nil).Normalize(ctx, hubQuestion)
	require.NoError(t, err)
	want, err := call.Resolve(ctx, askcore.Lines("PostgreSQL"))
	require.NoError(t, err)
	assert.Equal(t, []string{string(want.JSON())}, rawOutputs(t, wire.String(), "call_db"),
		"the tool result is the core's answer for the inbox's reply, byte for byte")
	assert.Zero(t, editor.count(), "an editor without forms is never sent one")
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
