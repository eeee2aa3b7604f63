package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/askcore/askcore"
	"github.com/askcore/askcore/core"
	"github.com/askcore/askcore/frontdoor"
	"github.com/askcore/askcore/internal/testing/coretest"
)

const (
	choiceArgs = `{"header":"Database","question":"Which database should I use?","options":[{"label":"PostgreSQL","value":"postgres","description":"a server"},{"label":"SQLite","value":"sqlite","recommended":true}],"allowCustom":true}`
	strictArgs = `{"question":"Deploy where?","options":[{"label":"Staging","value":"staging"},{"label":"Production","value":"prod"}]}`
	openArgs   = `{"question":"What should the project be called?"}`
)

func TestToolsListIsTheCoresTool(t *testing.T) {
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			h := start(t, m, options{}, nil)
			ctx, cancel := context.WithTimeout(context.Background(), waitLong)
			defer cancel()
			res, err := h.cs.ListTools(ctx, nil)
			require.NoError(t, err)
			require.Len(t, res.Tools, 1)
			tool := res.Tools[0]

			want, err := nativeCore.Tool(ctx)
			require.NoError(t, err)
			assert.Equal(t, want.Name, tool.Name)
			assert.Equal(t, "ask_user_question", tool.Name)
			assert.Equal(t, want.Description, tool.Description)
			got, err := json.Marshal(tool.InputSchema)
			require.NoError(t, err)
			assert.JSONEq(t, string(want.Parameters), string(got))
			assert.Nil(t, tool.OutputSchema, "no outputSchema: errors are results too")

			all, err := json.Marshal(res)
			require.NoError(t, err)
			assert.NotContains(t, string(all), `"desc"`, "desc is an input synonym only")
		})
	}
}

func TestAskOutcomes(t *testing.T) {
	cases := []struct {
		name    string
		args    string
		action  string
		content map[string]any
		code    string // "" for an answer
	}{
		{name: "choice", args: choiceArgs, action: "accept", content: map[string]any{"choice": "postgres", "custom_answer": ""}},
		{name: "custom answer wins", args: choiceArgs, action: "accept", content: map[string]any{"choice": "sqlite", "custom_answer": "DuckDB <3 & ü"}},
		{name: "custom answer naming an option", args: choiceArgs, action: "accept", content: map[string]any{"choice": "sqlite", "custom_answer": " postgresql "}},
		{name: "strict choice", args: strictArgs, action: "accept", content: map[string]any{"choice": "prod"}},
		{name: "optionless", args: openArgs, action: "accept", content: map[string]any{"answer": "askcore"}},
		{name: "decline", args: choiceArgs, action: "decline", code: "ASK_DECLINED"},
		{name: "cancel", args: openArgs, action: "cancel", code: "ASK_CANCELLED"},
		{name: "accept without content", args: choiceArgs, action: "accept", code: "INVALID_ANSWER"},
	}
	for _, m := range modes {
		for _, tc := range cases {
			t.Run(m.name+"/"+tc.name, func(t *testing.T) {
				e := &elicitor{respond: replyWith(tc.action, tc.content)}
				h := start(t, m, options{}, &mcp.ClientOptions{ElicitationHandler: e.handle})
				res := h.mustCall(json.RawMessage(tc.args))

				replyJSON, err := json.Marshal(elicitReply{Action: tc.action, Content: tc.content})
				require.NoError(t, err)
				forms := e.seen()
				if tc.code == "INVALID_ANSWER" {
					// The form went back to the person with the core's
					// message, core.MaxFormRounds times; then the person
					// gave up.
					require.Len(t, forms, 1+core.MaxFormRounds)
					again := wantStep(t, tc.args, string(replyJSON), 0)
					require.Equal(t, askcore.FormAskAgain, again.Next)
					assert.Equal(t, again.Form.Message, forms[1].Message)
					last := wantStep(t, tc.args, string(replyJSON), core.MaxFormRounds)
					require.Equal(t, askcore.FormEnd, last.Next)
					assertBytes(t, res, last.Err.JSON(), true)
					assert.Contains(t, string(last.Err.JSON()), `"code":"INVALID_ANSWER"`)
					return
				}
				want, isErr := coretest.FormAnswer(t, tc.args, string(replyJSON))
				assertBytes(t, res, want, isErr)
				if tc.code != "" {
					assert.Contains(t, string(want), `"code":"`+tc.code+`"`)
				} else {
					assert.False(t, isErr, "%s", want)
				}

				require.Len(t, forms, 1, "one form per call")
				f := wantForm(t, tc.args)
				assert.Equal(t, "form", forms[0].Mode)
				assert.Equal(t, f.Message, forms[0].Message)
				got, err := json.Marshal(forms[0].RequestedSchema)
				require.NoError(t, err)
				assert.JSONEq(t, string(f.RequestedSchema), string(got), "the requestedSchema is the core's")
			})
		}
	}
}

func TestInvalidArgumentsAreTheCoresInvalidRequest(t *testing.T) {
	cases := map[string]any{
		"no question":     json.RawMessage(`{"options":[{"label":"A"}]}`),
		"duplicate label": json.RawMessage(`{"question":"Q?","options":[{"label":"A"},{"label":"a"}]}`),
		"wrong type":      json.RawMessage(`{"question":42}`),
		"empty object":    map[string]any{},
	}
	for _, m := range modes {
		for name, args := range cases {
			t.Run(m.name+"/"+name, func(t *testing.T) {
				e := &elicitor{respond: replyWith("accept", map[string]any{"answer": "x"})}
				h := start(t, m, options{}, &mcp.ClientOptions{ElicitationHandler: e.handle})
				res := h.mustCall(args)

				raw, err := json.Marshal(args)
				require.NoError(t, err)
				_, coreErr := nativeCore.Normalize(context.Background(), string(raw))
				require.Error(t, coreErr)
				assertBytes(t, res, errorObject(coreErr), true)
				assert.Contains(t, res.Content[0].(*mcp.TextContent).Text, `"code":"INVALID_REQUEST"`)
				assert.Empty(t, e.seen(), "nobody is asked a malformed question")
				assert.Equal(t, "INVALID_REQUEST", h.logs.wait(t, 0))
			})
		}
	}
}

// TestClientWithoutFormElicitationFailsAtOnce: with --web=never, a client
// that shows no form gets ASK_FAILED (no_form_support) at once.
func TestClientWithoutFormElicitationFailsAtOnce(t *testing.T) {
	cases := map[string]*mcp.ClientOptions{
		"no elicitation capability": {},
		"url elicitation only": {
			Capabilities:       &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{URL: &mcp.URLElicitationCapabilities{}}},
			ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) { panic("not asked") },
		},
	}
	for _, m := range modes {
		for name, copts := range cases {
			t.Run(m.name+"/"+name, func(t *testing.T) {
				h := start(t, m, options{web: frontdoor.WebNever}, copts)
				res := h.mustCall(json.RawMessage(choiceArgs))
				want := nativeCore.Fail(context.Background(), askcore.Failure{Situation: askcore.SituationNoFormSupport})
				assertBytes(t, res, want.JSON(), true)
				assert.Contains(t, res.Content[0].(*mcp.TextContent).Text, `"code":"ASK_FAILED"`)
			})
		}
	}
}

// An empty elicitation capability {} means form (before 2025-11-25 there
// were no modes).
func TestEmptyElicitationCapabilityMeansForm(t *testing.T) {
	for _, version := range []string{"2025-06-18", "2025-11-25"} {
		t.Run(version, func(t *testing.T) {
			e := &elicitor{respond: replyWith("accept", map[string]any{"answer": "yes"})}
			h := start(t, modeLegacy, options{}, &mcp.ClientOptions{
				Capabilities:       &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{}},
				ElicitationHandler: e.handle,
			})
			res := h.mustCall(json.RawMessage(openArgs))
			want, _ := coretest.FormAnswer(t, openArgs, `{"action":"accept","content":{"answer":"yes"}}`)
			assertBytes(t, res, want, false)
		})
	}
}

// TestConcurrentCallsGetTheirOwnAnswers: five questions in flight at once
// on one connection, answered in the reverse order of their arrival.
func TestConcurrentCallsGetTheirOwnAnswers(t *testing.T) {
	const n = 5
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			arrived := make(chan string, n)
			release := make(map[string]chan struct{})
			for i := range n {
				release[fmt.Sprintf("Question %d?", i)] = make(chan struct{})
			}
			e := &elicitor{respond: func(ctx context.Context, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
				arrived <- p.Message
				select {
				case <-release[p.Message]:
				case <-ctx.Done():
					return nil, ctx.Err()
				}
				return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"answer": "answer to " + p.Message}}, nil
			}}
			h := start(t, m, options{}, &mcp.ClientOptions{ElicitationHandler: e.handle})

			type outcome struct {
				i   int
				res *mcp.CallToolResult
				err error
			}
			results := make(chan outcome, n)
			ctx, cancel := context.WithTimeout(context.Background(), waitLong)
			defer cancel()
			for i := range n {
				go func() {
					res, err := h.call(ctx, map[string]any{"question": fmt.Sprintf("Question %d?", i)})
					results <- outcome{i, res, err}
				}()
			}
			var order []string
			for range n {
				select {
				case q := <-arrived:
					order = append(order, q)
				case <-ctx.Done():
					t.Fatalf("only %d of %d questions reached the client", len(order), n)
				}
			}
			for i := len(order) - 1; i >= 0; i-- {
				close(release[order[i]])
			}
			for range n {
				o := <-results
				require.NoError(t, o.err)
				q := fmt.Sprintf("Question %d?", o.i)
				want, _ := coretest.FormAnswer(t, fmt.Sprintf(`{"question":%q}`, q),
					fmt.Sprintf(`{"action":"accept","content":{"answer":%q}}`, "answer to "+q))
				assertBytes(t, o.res, want, false)
			}
		})
	}
}

// TestProgressWhileThePersonAnswers: a call with a progress token hears
// from the server at every tick until the person answers; the values
// increase. The client answers only after three notifications, so the
// question was pending through all of them.
func TestProgressWhileThePersonAnswers(t *testing.T) {
	type note struct {
		token    any
		progress float64
	}
	notes := make(chan note, 100)
	e := &elicitor{respond: func(ctx context.Context, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
		for seen := 0; seen < 3; {
			select {
			case <-notes:
				seen++
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"answer": "done thinking"}}, nil
	}}
	var mu sync.Mutex
	var all []note
	h := start(t, modeLegacy, options{progressEvery: 5 * time.Millisecond}, &mcp.ClientOptions{
		ElicitationHandler: e.handle,
		ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
			n := note{token: r.Params.ProgressToken, progress: r.Params.Progress}
			mu.Lock()
			all = append(all, n)
			mu.Unlock()
			select {
			case notes <- n:
			default:
			}
		},
	})
	ctx, cancel := context.WithTimeout(context.Background(), waitLong)
	defer cancel()
	params := &mcp.CallToolParams{Name: "ask_user_question", Arguments: json.RawMessage(openArgs)}
	params.SetProgressToken("tok-1")
	res, err := h.cs.CallTool(ctx, params)
	require.NoError(t, err)
	want, _ := coretest.FormAnswer(t, openArgs, `{"action":"accept","content":{"answer":"done thinking"}}`)
	assertBytes(t, res, want, false)

	mu.Lock()
	defer mu.Unlock()
	require.GreaterOrEqual(t, len(all), 3)
	for i, n := range all {
		assert.Equal(t, "tok-1", n.token)
		if i > 0 {
			assert.Greater(t, n.progress, all[i-1].progress, "progress must increase")
		}
	}
}

// TestNoProgressWithoutToken: while a call with a token receives three
// notifications, a concurrent call without one receives none.
func TestNoProgressWithoutToken(t *testing.T) {
	withToken := make(chan struct{}, 100)
	otherDone := make(chan struct{})
	var mu sync.Mutex
	tokens := map[any]int{}
	e := &elicitor{respond: func(ctx context.Context, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
		switch p.Message {
		case "Without a token?":
			// Pending while the other call hears three notifications.
			for seen := 0; seen < 3; seen++ {
				select {
				case <-withToken:
				case <-ctx.Done():
					return nil, ctx.Err()
				}
			}
		case "With a token?":
			// Pending until the call without a token has ended.
			select {
			case <-otherDone:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"answer": "ok"}}, nil
	}}
	h := start(t, modeLegacy, options{progressEvery: 5 * time.Millisecond}, &mcp.ClientOptions{
		ElicitationHandler: e.handle,
		ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
			mu.Lock()
			tokens[r.Params.ProgressToken]++
			mu.Unlock()
			if r.Params.ProgressToken == "tok" {
				select {
				case withToken <- struct{}{}:
				default:
				}
			}
		},
	})
	ctx, cancel := context.WithTimeout(context.Background(), waitLong)
	defer cancel()
	errs := make(chan error, 1)
	go func() {
		params := &mcp.CallToolParams{Name: "ask_user_question", Arguments: map[string]any{"question": "With a token?"}}
		params.SetProgressToken("tok")
		_, err := h.cs.CallTool(ctx, params)
		errs <- err
	}()
	res, err := h.call(ctx, map[string]any{"question": "Without a token?"})
	require.NoError(t, err)
	assert.False(t, res.IsError)
	close(otherDone)
	require.NoError(t, <-errs)
	mu.Lock()
	defer mu.Unlock()
	assert.GreaterOrEqual(t, tokens["tok"], 3)
	assert.Len(t, tokens, 1, "only the call with a token hears progress: %v", tokens)
}

// TestCancelledCallWithdrawsTheQuestion: notifications/cancelled for the
// call cancels the pending elicitation/create on the client, and the call
// ends with ASK_ABORTED.
func TestCancelledCallWithdrawsTheQuestion(t *testing.T) {
	asked := make(chan struct{})
	withdrawn := make(chan struct{})
	e := &elicitor{respond: func(ctx context.Context, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
		close(asked)
		<-ctx.Done()
		close(withdrawn)
		return nil, ctx.Err()
	}}
	h := start(t, modeLegacy, options{}, &mcp.ClientOptions{ElicitationHandler: e.handle})
	ctx, cancel := context.WithCancel(context.Background())
	errs := make(chan error, 1)
	go func() {
		_, err := h.call(ctx, json.RawMessage(choiceArgs))
		errs <- err
	}()
	waitFor(t, asked, "the question never reached the client")
	cancel()
	require.ErrorIs(t, <-errs, context.Canceled)
	waitFor(t, withdrawn, "the client's form was not withdrawn")
	assert.Equal(t, "ASK_ABORTED", h.logs.wait(t, 0))

	// The connection goes on: the next call is answered.
	e.respond = replyWith("accept", map[string]any{"answer": "still here"})
	res := h.mustCall(json.RawMessage(openArgs))
	want, _ := coretest.FormAnswer(t, openArgs, `{"action":"accept","content":{"answer":"still here"}}`)
	assertBytes(t, res, want, false)
}

// TestTimeoutIsOptIn: with --timeout, an unanswered question ends with
// ASK_TIMEOUT and the client's form is withdrawn; nothing is chosen.
//
// The timeout is long enough for the form to reach the client first on a
// loaded machine: with 50 ms, under -race beside two CPU-bound processes,
// the question sometimes timed out before its form was sent (CI24), and
// there was nothing to withdraw.
func TestTimeoutIsOptIn(t *testing.T) {
	asked, withdrawn := make(chan struct{}), make(chan struct{})
	e := &elicitor{respond: func(ctx context.Context, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
		close(asked)
		<-ctx.Done()
		close(withdrawn)
		return nil, ctx.Err()
	}}
	h := start(t, modeLegacy, options{timeout: time.Second}, &mcp.ClientOptions{ElicitationHandler: e.handle})
	res := h.mustCall(json.RawMessage(choiceArgs))
	text := failedWith(t, res, "ASK_TIMEOUT")
	assertBytes(t, res, []byte(text), true)
	select {
	case <-asked:
	default:
		t.Fatal("the question timed out before its form reached the client")
	}
	waitFor(t, withdrawn, "the client's form was not withdrawn after the timeout")
}

// TestDisconnectLeaksNothing: the client dies while a person is
// answering (its end of the pipe closes without a word); the server session
// ends, the question is aborted and no goroutine is left behind.
func TestDisconnectLeaksNothing(t *testing.T) {
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			before := goleak.IgnoreCurrent()
			asked := make(chan struct{})
			cut := make(chan struct{})
			e := &elicitor{respond: func(ctx context.Context, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
				close(asked)
				select {
				case <-ctx.Done(): // legacy: the request dies with the connection
				case <-cut: // 2026-07-28: the form is the client's own business
				}
				return nil, errors.New("gone")
			}}
			h := startCuttable(t, m, options{progressEvery: time.Millisecond}, &mcp.ClientOptions{ElicitationHandler: e.handle})
			errs := make(chan error, 1)
			go func() {
				params := &mcp.CallToolParams{Name: "ask_user_question", Arguments: json.RawMessage(choiceArgs)}
				params.SetProgressToken(1)
				_, err := h.cs.CallTool(context.Background(), params)
				errs <- err
			}()
			waitFor(t, asked, "the question never reached the client")
			h.cut()
			close(cut)
			select {
			case err := <-errs:
				require.Error(t, err)
			case <-time.After(waitLong):
				t.Fatal("the call did not end when the connection was cut")
			}
			h.close()
			if !m.inputRequests {
				assert.Equal(t, "ASK_ABORTED", h.logs.wait(t, 0))
			}
			goleak.VerifyNone(t, before)
		})
	}
}

func waitFor(t *testing.T, ch <-chan struct{}, msg string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(waitLong):
		t.Fatal(msg)
	}
}

// TestNotShown: a decline or cancel sooner than a person could read the
// form is the core's not_shown: never ASK_DECLINED or ASK_CANCELLED. With
// no other surface (the page off, or reaching nobody) the model hears at
// once, ASK_FAILED, that nobody saw the question.
func TestNotShown(t *testing.T) {
	for _, m := range modes {
		for _, action := range []string{"decline", "cancel"} {
			for _, web := range []frontdoor.WebMode{frontdoor.WebNever, frontdoor.WebAuto} {
				t.Run(m.name+"/"+action+"/"+fmt.Sprint(web), func(t *testing.T) {
					e := &elicitor{respond: func(context.Context, *mcp.ElicitParams) (*mcp.ElicitResult, error) {
						return &mcp.ElicitResult{Action: action}, nil
					}}
					h := start(t, m, options{web: web, now: stoppedClock()}, &mcp.ClientOptions{ElicitationHandler: e.handle})
					h.srv.provider.urlShown = false // the page's address reaches nobody
					res := h.mustCall(json.RawMessage(choiceArgs))
					text := failedWith(t, res, "ASK_FAILED")
					assert.Contains(t, text, "Nobody saw the question")
					assert.Contains(t, text, "askcore-test 0", "the client is named")
					assert.NotContains(t, text, "The person", "the person is not blamed")
					require.Len(t, e.seen(), 1)
				})
			}
		}
	}
}

// TestNotShownPrintMode: Claude Code tells the servers it starts how it
// runs (CLAUDE_CODE_ENTRYPOINT, Options.ClientEntrypoint): a cancel from
// claude -p is not_shown however late it comes (on a loaded machine its
// retried call took longer than core.NotShownMillis), and the same cancel
// from the interactive Claude Code is the person's.
func TestNotShownPrintMode(t *testing.T) {
	claude := mcp.Implementation{Name: "claude-code", Version: "2.1.328"}
	for _, m := range modes {
		for _, tc := range []struct {
			entrypoint, code string
		}{
			{"sdk-cli", "ASK_FAILED"},
			{"cli", "ASK_CANCELLED"},
		} {
			t.Run(m.name+"/"+tc.entrypoint, func(t *testing.T) {
				e := &elicitor{respond: replyWith("cancel", nil)} // after a person's time
				h := startAs(t, m, options{web: frontdoor.WebNever, entrypoint: tc.entrypoint}, &mcp.ClientOptions{ElicitationHandler: e.handle}, claude)
				res := h.mustCall(json.RawMessage(choiceArgs))
				text := failedWith(t, res, tc.code)
				if tc.code == "ASK_FAILED" {
					assert.Contains(t, text, "claude-code 2.1.328 cancelled the form without a person: it runs unattended (print mode, claude -p)")
				}
			})
		}
	}
}

// The wire in the 2026-07-28 mode: the first round returns exactly one
// input request, the core's form, and no content; the retry with the
// client's reply gets the answer. A client driving the retries itself sees
// both rounds.
func TestInputRequestRounds(t *testing.T) {
	h := start(t, modeInputRequests, options{}, &mcp.ClientOptions{
		MultiRoundTrip:     &mcp.MultiRoundTripOptions{Disabled: true},
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) { panic("not used") },
	})
	first := h.mustCall(json.RawMessage(choiceArgs))
	require.True(t, first.NeedsInput())
	assert.Empty(t, first.Content)
	assert.Nil(t, first.StructuredContent)
	require.Len(t, first.InputRequests, 1)
	ep, ok := first.InputRequests["ask_user_question"].(*mcp.ElicitParams)
	require.True(t, ok, "%T", first.InputRequests["ask_user_question"])
	f := wantForm(t, choiceArgs)
	assert.Equal(t, "form", ep.Mode)
	assert.Equal(t, f.Message, ep.Message)
	got, err := json.Marshal(ep.RequestedSchema)
	require.NoError(t, err)
	assert.JSONEq(t, string(f.RequestedSchema), string(got))

	retry := func(responses mcp.InputResponseMap) *mcp.CallToolResult {
		ctx, cancel := context.WithTimeout(context.Background(), waitLong)
		defer cancel()
		res, err := h.cs.CallTool(ctx, &mcp.CallToolParams{
			Name: "ask_user_question", Arguments: json.RawMessage(choiceArgs),
			InputResponses: responses, RequestState: first.RequestState,
		})
		require.NoError(t, err)
		return res
	}

	// A choice that was not offered goes back to the person with the
	// core's message (the server does not validate input responses
	// itself), round 1 in requestState.
	res := retry(mcp.InputResponseMap{"ask_user_question": &mcp.ElicitResult{Action: "accept", Content: map[string]any{"choice": "oracle"}}})
	require.True(t, res.NeedsInput())
	again := wantStep(t, choiceArgs, `{"action":"accept","content":{"choice":"oracle"}}`, 0)
	require.Equal(t, askcore.FormAskAgain, again.Next)
	assert.Equal(t, again.Form.Message, res.InputRequests["ask_user_question"].(*mcp.ElicitParams).Message)
	assert.Regexp(t, `^1\.[0-9]+\.mcp-[0-9a-f]{32}$`, res.RequestState)
	assert.Equal(t, stateCallID(first.RequestState), stateCallID(res.RequestState),
		"every round names the call by the same id, so that a hub finds the same ask")

	res = retry(mcp.InputResponseMap{"ask_user_question": &mcp.ElicitResult{Action: "accept", Content: map[string]any{"choice": "sqlite"}}})
	want, _ := coretest.FormAnswer(t, choiceArgs, `{"action":"accept","content":{"choice":"sqlite"}}`)
	assertBytes(t, res, want, false)

	// A response of another kind under the form's key is the client's
	// fault: ASK_FAILED, not an answer. (Roots are deprecated, which is why a
	// client may still send one: any non-elicitation result will do.)
	//lint:ignore SA1019 a deprecated result kind is exactly a wrong reply
	res = retry(mcp.InputResponseMap{"ask_user_question": &mcp.ListRootsResult{Roots: []*mcp.Root{}}})
	assert.True(t, res.IsError)
	assert.Contains(t, res.Content[0].(*mcp.TextContent).Text, `"code":"ASK_FAILED"`)

	// Responses under other keys only: the form is asked again.
	res = retry(mcp.InputResponseMap{"other": &mcp.ElicitResult{Action: "accept"}})
	assert.True(t, res.NeedsInput())
}

// TestTheCoreJudgesTheRawReply: go-sdk's ServerSession.Elicit validates an
// accepted reply and fills in defaults; askcore-mcp gives the core the
// reply as it came off the wire instead. The go-sdk client validates and
// fills defaults on its side too, so this test speaks JSON-RPC itself.
func TestTheCoreJudgesTheRawReply(t *testing.T) {
	cases := []struct {
		name, args, reply string
	}{
		// SDK: "does not match requested schema"; core: INVALID_ANSWER.
		{"choice not offered", choiceArgs, `{"action":"accept","content":{"choice":"oracle"}}`},
		// SDK: fills in the default (sqlite); core: INVALID_ANSWER.
		{"accept without a choice", choiceArgs, `{"action":"accept","content":{}}`},
		// SDK: minLength violated; core: INVALID_ANSWER.
		{"empty answer", openArgs, `{"action":"accept","content":{"answer":""}}`},
		// SDK: type violated; core: INVALID_ANSWER naming the field.
		{"number answer", openArgs, `{"action":"accept","content":{"answer":42}}`},
		// SDK and core agree.
		{"label instead of value", strictArgs, `{"action":"accept","content":{"choice":"Production"}}`},
		{"unknown action", openArgs, `{"action":"maybe"}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w := startWire(t)
			w.handshake(`{"elicitation":{"form":{}}}`)
			w.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"ask_user_question","arguments":` + tc.args + `}}`)
			var req struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
			}
			require.NoError(t, json.Unmarshal(w.recv(), &req))
			require.Equal(t, "elicitation/create", req.Method)
			w.send(`{"jsonrpc":"2.0","id":` + string(req.ID) + `,"result":` + tc.reply + `}`)
			var resp struct {
				ID     int                 `json:"id"`
				Result *mcp.CallToolResult `json:"result"`
			}
			line := w.recv()
			if step := wantStep(t, tc.args, tc.reply, 0); step.Next == askcore.FormAskAgain {
				// A reply that does not answer goes back to the person.
				var again struct {
					Method string           `json:"method"`
					Params mcp.ElicitParams `json:"params"`
				}
				require.NoError(t, json.Unmarshal(line, &again))
				require.Equal(t, "elicitation/create", again.Method)
				assert.Equal(t, step.Form.Message, again.Params.Message)
				return
			}
			require.NoError(t, json.Unmarshal(line, &resp))
			require.Equal(t, 2, resp.ID)
			want, isErr := coretest.FormAnswer(t, tc.args, tc.reply)
			assertBytes(t, resp.Result, want, isErr)
		})
	}
}

func TestMultipleSessionsShareOneServer(t *testing.T) {
	// Two clients, one server: each gets its own answers.
	ctx := context.Background()
	srv, err := startServer(ctx, nativeCore, options{})
	require.NoError(t, err)
	defer srv.close()
	var sessions []*mcp.ClientSession
	var servers []*mcp.ServerSession
	for i := range 2 {
		st, ct := mcp.NewInMemoryTransports()
		ss, err := srv.mcp.Connect(ctx, st, nil)
		require.NoError(t, err)
		servers = append(servers, ss)
		answer := fmt.Sprintf("client %d", i)
		c := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "0"}, &mcp.ClientOptions{
			ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
				return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"answer": answer}}, nil
			},
		})
		cs, err := c.Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
		require.NoError(t, err)
		sessions = append(sessions, cs)
	}
	for i, cs := range sessions {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "ask_user_question", Arguments: json.RawMessage(openArgs)})
		require.NoError(t, err)
		want, _ := coretest.FormAnswer(t, openArgs, fmt.Sprintf(`{"action":"accept","content":{"answer":"client %d"}}`, i))
		assertBytes(t, res, want, false)
	}
	for i, cs := range sessions {
		require.NoError(t, cs.Close())
		_ = servers[i].Wait()
	}
}

// TestArgumentsReachTheCoreAsText: whatever the client sends as arguments
// (absent, not an object, a JSON string holding JSON) reaches the core as
// the text it was on the wire, and the core's verdict comes back.
func TestArgumentsReachTheCoreAsText(t *testing.T) {
	cases := map[string]string{
		"absent":      ``,
		"null":        `null`,
		"a string":    `"{\"question\":\"Ship it?\"}"`,
		"an array":    `[{"question":"Ship it?"}]`,
		"a number":    `42`,
		"spaced":      `{ "question" : 42 }`,
		"both shapes": `{"question":"Ship it?","questions":[{"question":"Ship it?"}]}`,
		// Only the text has the key twice: a decoded map would not.
		"duplicate key": `{"question":"Ship it?","question":"Or not?"}`,
	}
	for name, args := range cases {
		t.Run(name, func(t *testing.T) {
			w := startWire(t)
			w.handshake(`{"elicitation":{"form":{}}}`)
			params := `{"name":"ask_user_question"}`
			if args != "" {
				params = `{"name":"ask_user_question","arguments":` + args + `}`
			}
			w.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":` + params + `}`)
			var resp struct {
				ID     int                 `json:"id"`
				Result *mcp.CallToolResult `json:"result"`
			}
			require.NoError(t, json.Unmarshal(w.recv(), &resp))
			require.Equal(t, 2, resp.ID)
			_, coreErr := nativeCore.Normalize(context.Background(), args)
			require.Error(t, coreErr)
			assertBytes(t, resp.Result, errorObject(coreErr), true)
			assert.Contains(t, resp.Result.Content[0].(*mcp.TextContent).Text, `"code":"INVALID_REQUEST"`)
		})
	}
}

// TestClientErrorIsAskFailed: a client that answers elicitation/create
// with a JSON-RPC error ends the call with ASK_FAILED quoting it, never an
// answer.
func TestClientErrorIsAskFailed(t *testing.T) {
	e := &elicitor{respond: func(context.Context, *mcp.ElicitParams) (*mcp.ElicitResult, error) {
		return nil, errors.New("the form could not be shown")
	}}
	h := start(t, modeLegacy, options{}, &mcp.ClientOptions{ElicitationHandler: e.handle})
	res := h.mustCall(json.RawMessage(choiceArgs))
	text := res.Content[0].(*mcp.TextContent).Text
	assert.Contains(t, text, `"code":"ASK_FAILED"`)
	assert.Contains(t, text, "the form could not be shown")
	assertBytes(t, res, []byte(text), true)
	var he askcore.Error
	require.NoError(t, json.Unmarshal([]byte(text), &he))
	want := nativeCore.Fail(context.Background(), askcore.Failure{Situation: askcore.SituationClientError, Detail: strings.TrimPrefix(he.Message, "the client could not ask the question: ")})
	assert.Equal(t, string(want.JSON()), text, "the core's client_error bytes")
}

// TestTurnTriggerExec: codex exec runs its turn without a person and says
// so in the call's _meta (Codex 0.169.0: inside "x-codex-turn-metadata";
// older: at the top): its decline is not_shown however long it took, on
// both protocol paths, and the message says why.
func TestTurnTriggerExec(t *testing.T) {
	for _, m := range modes {
		for name, meta := range map[string]mcp.Meta{
			"codex turn metadata": {"callId": "call_ask_1", "x-codex-turn-metadata": map[string]any{"thread_source": "user", "turn_trigger": "exec"}},
			"top level":           {"turn_trigger": "exec"},
		} {
			t.Run(m.name+"/"+name, func(t *testing.T) {
				e := &elicitor{respond: replyWith("decline", nil)} // after a person's time
				h := start(t, m, options{web: frontdoor.WebNever}, &mcp.ClientOptions{ElicitationHandler: e.handle})
				ctx, cancel := context.WithTimeout(context.Background(), waitLong)
				defer cancel()
				res, err := h.cs.CallTool(ctx, &mcp.CallToolParams{Meta: meta, Name: "ask_user_question", Arguments: json.RawMessage(choiceArgs)})
				require.NoError(t, err)
				text := failedWith(t, res, "ASK_FAILED")
				assert.Contains(t, text, "askcore-test 0 declined the form without a person: it runs this turn unattended (turn_trigger exec)")
			})
		}
	}
}
