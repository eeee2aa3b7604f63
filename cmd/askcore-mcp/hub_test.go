package main

import (
	"context"
	"encoding/json"
	"io"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/askcore/askcore"
	"github.com/askcore/askcore/hub/store"
	"github.com/askcore/askcore/internal/testing/coretest"
	"github.com/askcore/askcore/internal/testing/hubtest"
	"github.com/askcore/askcore/internal/testing/syncbuf"
)

// TestHubWaitsWhenTheClientShowsNoForms: a client without forms (a host
// in print or exec mode) drops out; askcore-mcp --hub waits for the
// person's reply in the hub and the model gets the core's answer for it,
// byte for byte.
func TestHubWaitsWhenTheClientShowsNoForms(t *testing.T) {
	h := hubtest.Start(t)
	ctx, cs, stderr := serveWithHub(t, h, mcp.NewClient(&mcp.Implementation{Name: "exec-like", Version: "0"}, nil), nil)

	result := startCall(ctx, t, h, cs, stderr, &mcp.CallToolParams{Name: "ask_user_question", Arguments: json.RawMessage(choiceArgs)})
	a := h.Ask(t, store.StatePending)
	assert.JSONEq(t, choiceArgs, a.Arguments, "the model's arguments reach the hub")
	text := replyInInbox(ctx, t, h, a, "PostgreSQL // a server, please", result)
	assert.Equal(t, choiceAnswer(ctx, t, "PostgreSQL // a server, please"), text, "the person's answer, byte for byte")
}

// serveWithHub runs askcore-mcp --hub on h and connects client to it
// (opts: the session's, may be nil).
func serveWithHub(t *testing.T, h *hubtest.Hub, client *mcp.Client, opts *mcp.ClientSessionOptions) (context.Context, *mcp.ClientSession, *syncbuf.Buffer) {
	return serveWithHubAt(t, h.URL, h.Env, client, opts)
}

// serveWithHubAt runs askcore-mcp --hub url (getenv gives the token) and
// connects client to it (opts: the session's, may be nil). The test's end cancels ctx before closing the
// session: a call still waiting ends first (Close waits for it), and
// askcore-mcp with it.
func serveWithHubAt(t *testing.T, url string, getenv func(string) string, client *mcp.Client, opts *mcp.ClientSessionOptions) (context.Context, *mcp.ClientSession, *syncbuf.Buffer) {
	ctx, cancel := context.WithCancel(context.Background())
	serverR, clientW := io.Pipe()
	clientR, serverW := io.Pipe()
	stderr := new(syncbuf.Buffer)
	done := make(chan struct{})
	go func() {
		defer close(done)
		run(ctx, []string{"--engine", "native", "--web=never", "--hub", url}, serverR, serverW, stderr, getenv)
		_ = serverW.Close()
	}()
	cs, err := client.Connect(ctx, &mcp.IOTransport{Reader: clientR, Writer: clientW}, opts)
	if err != nil {
		cancel()
		<-done
		t.Fatalf("connecting: %v; stderr: %s", err, stderr.String())
	}
	t.Cleanup(func() {
		cancel()
		_ = cs.Close()
		_ = clientW.Close() // askcore-mcp's end of input
		select {
		case <-done:
		case <-time.After(waitLong):
			t.Errorf("askcore-mcp did not end with its session; stderr: %s", stderr.String())
		}
	})
	return ctx, cs, stderr
}

// startCall makes the call in the background; result waits for its
// result, a minute at most after the inbox's reply, then fails with what
// the hub holds (not at the test binary's timeout).
func startCall(ctx context.Context, t *testing.T, h *hubtest.Hub, cs *mcp.ClientSession, stderr *syncbuf.Buffer, params *mcp.CallToolParams) (result func() *mcp.CallToolResult) {
	type callResult struct {
		res *mcp.CallToolResult
		err error
	}
	got := make(chan callResult, 1)
	go func() {
		res, err := cs.CallTool(ctx, params)
		got <- callResult{res, err}
	}()
	return func() *mcp.CallToolResult {
		t.Helper()
		select {
		case r := <-got:
			require.NoError(t, r.err, stderr.String())
			return r.res
		case <-time.After(time.Minute):
			asks, _ := h.Store.Asks(ctx, store.AskFilter{PersonID: h.Person})
			t.Fatalf("no result a minute after the inbox's reply; the hub's asks: %+v; stderr: %s", asks, stderr.String())
			return nil
		}
	}
}

// replyInInbox replies line to a from the person's phone and returns the
// text of the call's result, which must not be an error.
func replyInInbox(ctx context.Context, t *testing.T, h *hubtest.Hub, a store.Ask, line string, result func() *mcp.CallToolResult) string {
	t.Helper()
	reply, err := json.Marshal(map[string][]string{"lines": {line}})
	require.NoError(t, err)
	h.Reply(t, a, string(reply), "phone")
	res := result()
	text := res.Content[0].(*mcp.TextContent).Text
	require.False(t, res.IsError, "%s", text)
	return text
}

// choiceAnswer is the core's answer bytes for line on choiceArgs.
func choiceAnswer(ctx context.Context, t *testing.T, line string) string {
	t.Helper()
	call, err := nativeCore.Normalize(ctx, choiceArgs)
	require.NoError(t, err)
	want, err := call.Resolve(ctx, askcore.Lines(line))
	require.NoError(t, err)
	return string(want.JSON())
}

// TestHubFlagsRefused: --hub without a token, or with a token file that
// holds none, is a usage error, before anything is served.
func TestHubFlagsRefused(t *testing.T) {
	hubtest.CheckHubFlagsRefused(t, func(_ *testing.T, args []string) (int, string) {
		var stderr syncbuf.Buffer
		code := run(context.Background(), args, eofReader{}, io.Discard, &stderr, noEnv)
		return code, stderr.String()
	})
}

type eofReader struct{}

func (eofReader) Read([]byte) (int, error) { return 0, io.EOF }

// TestHubWaitsWhenTheClientDeclinesUnseen: a client that declines the
// form in a turn nobody runs (codex exec says so in the call's _meta, as
// Codex 0.169.0 does) has not shown the question (not_shown), however long
// the decline took on a loaded machine: with --hub that surface drops out
// and the ask waits for the person's reply in the inbox.
func TestHubWaitsWhenTheClientDeclinesUnseen(t *testing.T) {
	h := hubtest.Start(t)
	declined := make(chan struct{}, 1)
	ctx, cs, stderr := serveWithHub(t, h, mcp.NewClient(&mcp.Implementation{Name: "codex-mcp-client", Version: "0"}, &mcp.ClientOptions{
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			declined <- struct{}{}
			return &mcp.ElicitResult{Action: "decline"}, nil
		},
	}), nil)
	result := startCall(ctx, t, h, cs, stderr, &mcp.CallToolParams{Name: "ask_user_question", Arguments: json.RawMessage(choiceArgs),
		Meta: mcp.Meta{"x-codex-turn-metadata": map[string]any{"turn_trigger": "exec"}}})
	select {
	case <-declined:
	case <-time.After(waitLong):
		t.Fatalf("the client was never sent the form; stderr: %s", stderr.String())
	}
	a := h.Ask(t, store.StatePending)
	text := replyInInbox(ctx, t, h, a, "PostgreSQL", result)
	assert.Equal(t, choiceAnswer(ctx, t, "PostgreSQL"), text, "the inbox's answer, not the unseen decline")
	asks, err := h.Store.Asks(ctx, store.AskFilter{PersonID: h.Person})
	require.NoError(t, err)
	assert.Len(t, asks, 1, "each round of the call (the form, its decline) names the same ask")
}

// TestHubTellsTheClient: with --hub, a hub that refuses the agent's token
// or cannot be reached is not an answer: the client is told so in a
// progress notification of the tool call (the words the terminal prints),
// keeps the question, and the form's answer is the call's result, the
// core's bytes. Nothing says it was answered elsewhere.
func TestHubTellsTheClient(t *testing.T) {
	for _, tc := range hubtest.NoHubs {
		t.Run(tc.Name, func(t *testing.T) {
			url, env := tc.Start(t)
			says := tc.Says(url)
			var told syncbuf.Buffer // the progress messages, a line each
			const reply = `{"action":"accept","content":{"choice":"sqlite"}}`
			ctx, cs, stderr := serveWithHubAt(t, url, env, mcp.NewClient(&mcp.Implementation{Name: "a-person's-client", Version: "0"}, &mcp.ClientOptions{
				ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
					_, _ = told.Write([]byte(r.Params.Message + "\n"))
				},
				// The person reads the notice, then answers the form (or,
				// never told, declines, and the test fails on that).
				ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
					if !told.WaitFor(says[0], waitLong/2) {
						return &mcp.ElicitResult{Action: "decline"}, nil
					}
					return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"choice": "sqlite"}}, nil
				},
				// On 2025-11-25 the call stays open while the person
				// answers the form, and hears of the hub meanwhile (on
				// 2026-07-28 it returns the form at once: nothing to tell).
			}), &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
			params := &mcp.CallToolParams{Name: "ask_user_question", Arguments: json.RawMessage(choiceArgs)}
			params.SetProgressToken("tok-hub")
			cctx, cancel := context.WithTimeout(ctx, waitLong)
			defer cancel()
			res, err := cs.CallTool(cctx, params)
			require.NoError(t, err, stderr.String())
			want, isError := coretest.FormAnswer(t, choiceArgs, reply)
			require.False(t, isError, "%s", want)
			assert.Equal(t, string(want), res.Content[0].(*mcp.TextContent).Text, "the form's answer, byte for byte")
			assert.False(t, res.IsError)
			for _, w := range says {
				assert.Contains(t, told.String(), w, "the client hears what happened with the hub")
			}
			assert.NotContains(t, told.String(), "answered elsewhere")
		})
	}
}

// TestHubAnsweredInInboxTellsTheClient: the client shows the form and
// hears the question is in the hub's inbox too; answered there, the form
// is withdrawn, the client is told where it was answered (the core's
// words) and the result is the inbox's answer, byte for byte.
func TestHubAnsweredInInboxTellsTheClient(t *testing.T) {
	h := hubtest.Start(t)
	elsewhere := nativeCore.Fail(context.Background(), askcore.Failure{Situation: askcore.SituationAnsweredElsewhere, Detail: "the hub's inbox"}).Message
	var told syncbuf.Buffer // the progress messages, a line each
	ctx, cs, stderr := serveWithHub(t, h, mcp.NewClient(&mcp.Implementation{Name: "a-person's-client", Version: "0"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
			_, _ = told.Write([]byte(r.Params.Message + "\n"))
		},
		// The person leaves the form be until it is withdrawn.
		ElicitationHandler: func(ctx context.Context, _ *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			<-ctx.Done()
			return nil, ctx.Err()
		},
	}), &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	params := &mcp.CallToolParams{Name: "ask_user_question", Arguments: json.RawMessage(choiceArgs)}
	params.SetProgressToken("tok-hub")
	result := startCall(ctx, t, h, cs, stderr, params)
	require.True(t, told.WaitFor("This question is also in the hub's inbox ("+h.URL+"): answer it here or there.", waitLong), told.String())
	text := replyInInbox(ctx, t, h, h.Ask(t, store.StatePending), "PostgreSQL", result)
	assert.Equal(t, choiceAnswer(ctx, t, "PostgreSQL"), text, "the inbox's answer, byte for byte")
	// A notification the client may handle after the result it preceded.
	assert.True(t, told.WaitFor(elsewhere, waitLong), "the client hears where the question was answered: %s", told.String())
}
