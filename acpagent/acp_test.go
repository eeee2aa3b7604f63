package acpagent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	acp "github.com/coder/acp-go-sdk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/askcore/askcore"
	"github.com/askcore/askcore/core"
	"github.com/askcore/askcore/frontdoor"
)

const dbArgs = `{"header":"Database","question":"Which database should I use?","options":[{"label":"PostgreSQL","value":"postgres","description":"server"},{"label":"SQLite","value":"sqlite","recommended":true}],"allowCustom":true}`

// A selected option: tool_call, then tool_call_update completed with the
// core's answer object, and the loop goes on to the end of the turn.
func TestSelectedOption(t *testing.T) {
	var got []acp.UnstableCreateElicitationForm
	var scopes []wireScope
	h := newHarness(t, harnessOptions{}, func(_ context.Context, scope wireScope, f acp.UnstableCreateElicitationForm) (acp.UnstableCreateElicitationResponse, error) {
		got = append(got, f)
		scopes = append(scopes, scope)
		return acp.UnstableCreateElicitationResponse{Accept: &acp.UnstableCreateElicitationAccept{Action: "accept", Content: map[string]any{"choice": "sqlite"}}}, nil
	})
	h.initialize(true)
	sid := h.newSession()

	texts, tools := h.endedTurn(sid, "set up the project")
	assert.Equal(t, []string{"Let me ask.", "You chose sqlite."}, texts)
	require.Len(t, tools, 2)
	assert.Equal(t, "tool_call", tools[0].kind)
	assert.Equal(t, "call_db", tools[0].id)
	assert.Equal(t, acp.ToolCallStatusInProgress, tools[0].status)
	assert.Equal(t, acp.ToolKindOther, tools[0].toolKind)
	assert.NotEmpty(t, tools[0].title)
	assert.JSONEq(t, dbArgs, string(tools[0].rawInput))
	assert.Equal(t, "tool_call_update", tools[1].kind)
	assert.Equal(t, "call_db", tools[1].id)
	assert.Equal(t, acp.ToolCallStatusCompleted, tools[1].status)
	assert.Equal(t, []string{`{"answer":"sqlite","selected":{"index":1,"label":"SQLite","value":"sqlite"}}`}, h.tap.rawOutputs(sid, "call_db"),
		"rawOutput is the answer as the core wrote it")
	assert.Equal(t, []string{"SQLite"}, tools[1].content, "the card shows the core's summary")

	// The form came from the core and the scope was on the wire.
	require.Len(t, got, 1)
	assert.Equal(t, "Which database should I use?", got[0].Message)
	assert.Contains(t, got[0].RequestedSchema.Properties, "choice")
	assert.Equal(t, []wireScope{{SessionID: string(sid), ToolCallID: "call_db", Mode: "form"}}, scopes)
	wire := h.tap.elicitations()
	require.Len(t, wire, 1)
	assert.JSONEq(t, `"form"`, string(wire[0]["mode"]))
	assert.JSONEq(t, fmt.Sprintf("%q", sid), string(wire[0]["sessionId"]))
	assert.JSONEq(t, `"call_db"`, string(wire[0]["toolCallId"]))
	_, hasMeta := wire[0]["_meta"]
	assert.False(t, hasMeta, "no private _meta on the wire")
}

// An optionless question is free-form: the field is "answer". The session
// keeps its history: the second prompt continues the script.
func TestFreeFormAnswerAcrossPrompts(t *testing.T) {
	h := newHarness(t, harnessOptions{}, func(_ context.Context, _ wireScope, f acp.UnstableCreateElicitationForm) (acp.UnstableCreateElicitationResponse, error) {
		content := map[string]any{"choice": "postgres"}
		if _, ok := f.RequestedSchema.Properties["answer"]; ok {
			content = map[string]any{"answer": "  askcore  "}
		}
		return acp.UnstableCreateElicitationResponse{Accept: &acp.UnstableCreateElicitationAccept{Action: "accept", Content: content}}, nil
	})
	h.initialize(true)
	sid := h.newSession()

	texts, _ := h.endedTurn(sid, "first")
	assert.Equal(t, []string{"Let me ask.", "You chose postgres."}, texts)

	texts, tools := h.endedTurn(sid, "second")
	assert.Equal(t, []string{"Project: askcore."}, texts)
	require.Len(t, tools, 2)
	assert.Equal(t, "call_name", tools[0].id)
	assert.JSONEq(t, `{"question":"What should the project be called?"}`, string(tools[0].rawInput))
	assert.Equal(t, acp.ToolCallStatusCompleted, tools[1].status)
	assert.JSONEq(t, `{"answer":"askcore"}`, string(tools[1].rawOutput))
}

// custom_answer wins over the pre-filled choice.
func TestCustomAnswer(t *testing.T) {
	h := newHarness(t, harnessOptions{}, accept(map[string]any{"choice": "sqlite", "custom_answer": "DuckDB"}))
	h.initialize(true)
	sid := h.newSession()
	texts, tools := h.endedTurn(sid, "go")
	assert.Equal(t, []string{"Let me ask.", "You chose DuckDB."}, texts)
	require.Len(t, tools, 2)
	assert.JSONEq(t, `{"answer":"DuckDB"}`, string(tools[1].rawOutput))
}

// Every way a question can fail reaches the model as a structured error and
// the turn still ends normally.
func TestStructuredFailures(t *testing.T) {
	cases := []struct {
		name   string
		elicit elicitFunc
		code   string
	}{
		{"decline", func(ctx context.Context, _ wireScope, _ acp.UnstableCreateElicitationForm) (acp.UnstableCreateElicitationResponse, error) {
			read(ctx)
			return acp.UnstableCreateElicitationResponse{Decline: &acp.UnstableCreateElicitationDecline{Action: "decline"}}, nil
		}, "ASK_DECLINED"},
		{"cancel", func(ctx context.Context, _ wireScope, _ acp.UnstableCreateElicitationForm) (acp.UnstableCreateElicitationResponse, error) {
			read(ctx)
			return acp.UnstableCreateElicitationResponse{Cancel: &acp.UnstableCreateElicitationCancel{Action: "cancel"}}, nil
		}, "ASK_CANCELLED"},
		{"missing answer", accept(map[string]any{}), "INVALID_ANSWER"},
		{"choice not offered", accept(map[string]any{"choice": "oracle"}), "INVALID_ANSWER"},
		{"client error", func(context.Context, wireScope, acp.UnstableCreateElicitationForm) (acp.UnstableCreateElicitationResponse, error) {
			return acp.UnstableCreateElicitationResponse{}, &acp.RequestError{Code: -32603, Message: "the form could not be shown"}
		}, "ASK_FAILED"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, harnessOptions{}, tc.elicit)
			h.initialize(true)
			sid := h.newSession()
			texts, tools := h.endedTurn(sid, "go")
			require.Len(t, tools, 2)
			assert.Equal(t, "tool_call_update", tools[1].kind)
			assert.Equal(t, acp.ToolCallStatusFailed, tools[1].status)
			assert.Equal(t, tc.code, errorCode(t, tools[1].rawOutput))
			assert.Equal(t, []string{"Let me ask.", "You chose " + tc.code + "."}, texts)
			if tc.name == "client error" {
				assert.Contains(t, string(tools[1].rawOutput), "the form could not be shown")
			}
			// The card shows the core's message, rawOutput carries its bytes.
			raws := h.tap.rawOutputs(sid, "call_db")
			require.Len(t, raws, 1)
			var he askcore.Error
			require.NoError(t, json.Unmarshal([]byte(raws[0]), &he))
			assert.Equal(t, []string{he.Message}, tools[1].content)
		})
	}
}

// A client without form elicitation gets ASK_FAILED at once and is never
// sent elicitation/create, with the answer page off (--web=never; with it,
// web_test.go).
func TestNoFormCapability(t *testing.T) {
	h := newHarness(t, harnessOptions{web: frontdoor.WebNever}, accept(map[string]any{"choice": "sqlite"}))
	h.initialize(false)
	sid := h.newSession()
	start := time.Now()
	stop, updates := h.prompt(sid, "go")
	require.Equal(t, acp.StopReasonEndTurn, stop)
	assert.Less(t, time.Since(start), 10*time.Second)
	_, tools := summarize(t, updates)
	require.Len(t, tools, 2)
	assert.Equal(t, acp.ToolCallStatusFailed, tools[1].status)
	assert.Equal(t, "ASK_FAILED", errorCode(t, tools[1].rawOutput))
	assert.Zero(t, h.client.askedCount())
	assert.Empty(t, h.tap.elicitations())
}

// session/cancel while a question is pending: the elicitation request is
// cancelled, the tool reports ASK_ABORTED, the prompt ends "cancelled", and
// another session of the same connection goes on undisturbed.
func TestSessionCancelMidQuestion(t *testing.T) {
	type pending struct {
		scope wireScope
		ctx   context.Context
		reply chan acp.UnstableCreateElicitationResponse
	}
	asked := make(chan pending, 4)
	h := newHarness(t, harnessOptions{}, func(ctx context.Context, scope wireScope, _ acp.UnstableCreateElicitationForm) (acp.UnstableCreateElicitationResponse, error) {
		p := pending{scope: scope, ctx: ctx, reply: make(chan acp.UnstableCreateElicitationResponse, 1)}
		asked <- p
		select {
		case r := <-p.reply:
			return r, nil
		case <-ctx.Done():
			return acp.UnstableCreateElicitationResponse{}, ctx.Err()
		}
	})
	h.initialize(true)
	victim := h.newSession()
	other := h.newSession()

	type result struct {
		stop    acp.StopReason
		updates []acp.SessionUpdate
	}
	run := func(id acp.SessionId) chan result {
		ch := make(chan result, 1)
		go func() {
			resp, err := h.conn.Prompt(context.Background(), acp.PromptRequest{SessionId: id, Prompt: []acp.ContentBlock{acp.TextBlock("go")}})
			if !assert.NoError(t, err) {
				ch <- result{}
				return
			}
			ch <- result{resp.StopReason, h.client.takeUpdates(id)}
		}()
		return ch
	}
	victimDone := run(victim)
	first := <-asked
	require.Equal(t, string(victim), first.scope.SessionID)
	otherDone := run(other)
	second := <-asked
	require.Equal(t, string(other), second.scope.SessionID)

	require.NoError(t, h.conn.Cancel(context.Background(), acp.CancelNotification{SessionId: victim}))
	select {
	case <-first.ctx.Done(): // $/cancel_request reached the client
	case <-time.After(patience):
		t.Fatal("the pending elicitation was not cancelled")
	}
	r := <-victimDone
	assert.Equal(t, acp.StopReasonCancelled, r.stop)
	texts, tools := summarize(t, r.updates)
	assert.Equal(t, []string{"Let me ask."}, texts)
	require.Len(t, tools, 2)
	assert.Equal(t, acp.ToolCallStatusFailed, tools[1].status)
	assert.Equal(t, "ASK_ABORTED", errorCode(t, tools[1].rawOutput))

	// The other session is still waiting for its answer, and gets it.
	select {
	case <-second.ctx.Done():
		t.Fatal("cancelling one session cancelled another session's question")
	default:
	}
	second.reply <- acp.UnstableCreateElicitationResponse{Accept: &acp.UnstableCreateElicitationAccept{Action: "accept", Content: map[string]any{"choice": "postgres"}}}
	r = <-otherDone
	assert.Equal(t, acp.StopReasonEndTurn, r.stop)
	texts, tools = summarize(t, r.updates)
	assert.Equal(t, []string{"Let me ask.", "You chose postgres."}, texts)
	require.Len(t, tools, 2)
	assert.Equal(t, acp.ToolCallStatusCompleted, tools[1].status)
}

// Concurrent sessions, all asking at once and answered in reverse order:
// each gets its own answer.
func TestConcurrentSessionsAnswersNotCrossed(t *testing.T) {
	const n = 3
	answers := map[string]string{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	wg.Add(n)
	h := newHarness(t, harnessOptions{}, func(_ context.Context, scope wireScope, _ acp.UnstableCreateElicitationForm) (acp.UnstableCreateElicitationResponse, error) {
		mu.Lock()
		answer := answers[scope.SessionID]
		mu.Unlock()
		wg.Done()
		wg.Wait() // every session is asking now
		return acp.UnstableCreateElicitationResponse{Accept: &acp.UnstableCreateElicitationAccept{Action: "accept", Content: map[string]any{"custom_answer": answer}}}, nil
	})
	h.initialize(true)
	ids := make([]acp.SessionId, n)
	for i := range ids {
		ids[i] = h.newSession()
		answers[string(ids[i])] = fmt.Sprintf("answer for %s", ids[i])
	}
	var done sync.WaitGroup
	for _, id := range ids {
		done.Add(1)
		go func() {
			defer done.Done()
			resp, err := h.conn.Prompt(context.Background(), acp.PromptRequest{SessionId: id, Prompt: []acp.ContentBlock{acp.TextBlock("go")}})
			if !assert.NoError(t, err) {
				return
			}
			assert.Equal(t, acp.StopReasonEndTurn, resp.StopReason)
			texts, tools := summarize(t, h.client.takeUpdates(id))
			want := answers[string(id)]
			assert.Equal(t, []string{"Let me ask.", "You chose " + want + "."}, texts)
			if assert.Len(t, tools, 2) {
				assert.JSONEq(t, fmt.Sprintf(`{"answer":%q}`, want), string(tools[1].rawOutput))
			}
		}()
	}
	done.Wait()
	for _, p := range h.tap.elicitations() {
		var sid, call string
		require.NoError(t, json.Unmarshal(p["sessionId"], &sid))
		require.NoError(t, json.Unmarshal(p["toolCallId"], &call))
		assert.Contains(t, answers, sid)
		assert.Equal(t, "call_db", call)
	}
}

// initialize is answered while the engine is still opening; session/new
// waits for it.
func TestInitializeDoesNotWaitForEngine(t *testing.T) {
	release := make(chan struct{})
	var once sync.Once
	var released atomic.Bool
	unblock := func() { once.Do(func() { released.Store(true); close(release) }) }
	defer unblock()
	settings := testSettings(t, "")
	h := newHarness(t, harnessOptions{build: func(ctx context.Context) (*frontdoor.Runtime, error) {
		select {
		case <-release:
			return frontdoor.Build(ctx, settings, noEnv)
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}}, accept(map[string]any{"choice": "sqlite"}))

	initialized := make(chan struct{})
	go func() {
		defer close(initialized)
		h.initialize(true)
	}()
	select {
	case <-initialized:
	case <-time.After(patience): // the engine never opens before unblock
		t.Fatal("initialize waited for the engine")
	}

	// session/new must be answered after the engine is released, however
	// late a wrong answer comes: the goroutine records which side of
	// unblock the answer arrived on. The 100 ms only give a wrong early
	// answer a chance to arrive first.
	type createdSession struct {
		id          acp.SessionId
		afterEngine bool
	}
	created := make(chan createdSession, 1)
	go func() {
		id := h.newSession()
		created <- createdSession{id, released.Load()}
	}()
	select {
	case <-created:
		t.Fatal("session/new did not wait for the engine")
	case <-time.After(100 * time.Millisecond):
	}
	unblock()
	cs := <-created
	require.True(t, cs.afterEngine, "session/new did not wait for the engine")
	sid := cs.id
	stop, _ := h.prompt(sid, "go")
	assert.Equal(t, acp.StopReasonEndTurn, stop)
}

// A question from an agent no session is bound to is SESSION_NOT_FOUND,
// as the core writes it (naming the agent), whichever session the agent
// claims.
func TestUnknownAgentIsSessionNotFound(t *testing.T) {
	h := newHarness(t, harnessOptions{}, accept(map[string]any{"choice": "sqlite"}))
	h.initialize(true)
	sid := h.newSession()
	rt, err := h.rt.get(context.Background())
	require.NoError(t, err)
	_, err = rt.Service.Ask(context.Background(), `{"question":"Hello?"}`,
		askcore.AskOptions{From: askcore.Identity{AgentID: "nobody", SessionID: string(sid), ToolCallID: "call_1"}})
	assert.Equal(t, askcore.CodeSessionNotFound, code(err), "%v", err)
	assert.Equal(t, failBytes(askcore.Failure{Situation: askcore.SituationSessionNotFound, Detail: "nobody"}), errorBytes(t, err))
	assert.Zero(t, h.client.askedCount())
}

// Closing the connection mid-question ends everything it started: no
// goroutine outlives it.
func TestNoGoroutineOutlivesConnection(t *testing.T) {
	before := goleak.IgnoreCurrent() // now, not at the end: that would ignore the leaks
	asking := make(chan struct{})
	h := newHarness(t, harnessOptions{}, func(ctx context.Context, _ wireScope, _ acp.UnstableCreateElicitationForm) (acp.UnstableCreateElicitationResponse, error) {
		close(asking)
		<-ctx.Done()
		return acp.UnstableCreateElicitationResponse{}, ctx.Err()
	})
	h.initialize(true)
	sid := h.newSession()
	type outcome struct {
		resp acp.PromptResponse
		err  error
	}
	prompted := make(chan outcome, 1)
	go func() {
		resp, err := h.conn.Prompt(context.Background(), acp.PromptRequest{SessionId: sid, Prompt: []acp.ContentBlock{acp.TextBlock("go")}})
		prompted <- outcome{resp, err}
	}()
	<-asking
	h.close()
	select {
	case o := <-prompted:
		// The client closed only its side: the agent may still get its
		// "cancelled" out before its own output closes.
		if o.err == nil {
			assert.Equal(t, acp.StopReasonCancelled, o.resp.StopReason)
		}
	case <-time.After(patience):
		t.Fatal("the client's prompt did not end with the connection")
	}
	verifyNoLeaks(t, before)
}

// Prompting an unknown session is a JSON-RPC error, not a hang.
func TestPromptUnknownSession(t *testing.T) {
	h := newHarness(t, harnessOptions{}, nil)
	h.initialize(true)
	_, err := h.conn.Prompt(context.Background(), acp.PromptRequest{SessionId: "sess-none", Prompt: []acp.ContentBlock{acp.TextBlock("go")}})
	var re *acp.RequestError
	require.True(t, errors.As(err, &re), "%v", err)
	assert.Equal(t, -32602, re.Code)
}

// read waits as long as a person takes to read a form before declining or
// cancelling it: a reply sooner than core.NotShownMillis is not_shown.
func read(ctx context.Context) {
	select {
	case <-ctx.Done():
	case <-time.After((core.NotShownMillis + 50) * time.Millisecond):
	}
}
