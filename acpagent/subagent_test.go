package acpagent

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	acp "github.com/coder/acp-go-sdk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/askcore/askcore"
	"github.com/askcore/askcore/agent"
	"github.com/askcore/askcore/frontdoor"
	"github.com/askcore/askcore/model/script"
)

// The session's agent calls "delegate"; the tool (code running in the
// session) creates a sub-agent that asks its own question.
const delegateScript = `{"content":"Delegating.","tool_calls":[{"id":"call_delegate","name":"delegate","arguments":{"task":"pick a region"}}]}
{"content":"Done."}
`

const subScript = `{"tool_calls":[{"id":"call_sub","name":"ask_user_question","arguments":{"question":"Which region should the helper deploy to?"}}]}
{"content":"Region: {{answer}}."}
`

// delegateTool creates a sub-agent of the calling agent with
// frontdoor.Runtime.NewSubAgent and hands it to run; the sub-agent plays
// subScript.
type delegateTool struct {
	rt     *frontdoor.Runtime
	app    *Agent
	model  agent.Model
	run    func(ctx context.Context, sub *agent.Agent, release func()) (json.RawMessage, error)
	failed chan error // NewSubAgent errors
}

var delegateSpec = askcore.Tool{Name: "delegate", Description: "delegate a task", Parameters: json.RawMessage(`{"type":"object"}`)}

// execute is the delegate tool's agent.ToolHandler.
func (d *delegateTool) execute(ctx context.Context, call agent.ToolCall, from askcore.Identity) (json.RawMessage, error) {
	sub, release, err := d.rt.NewSubAgent(d.app.Router(), from.AgentID, from.AgentID+"/"+call.ID, agent.Hooks{})
	if err != nil {
		d.failed <- err
		return nil, err
	}
	sub.Model = d.model
	return d.run(ctx, sub, release)
}

// runToAnswer runs the sub-agent and returns its question's result (the
// answer, or the error object) as the delegate tool's result.
func runToAnswer(ctx context.Context, sub *agent.Agent, release func()) (json.RawMessage, error) {
	defer release()
	if err := sub.Run(ctx, "do it"); err != nil {
		return nil, err
	}
	return askResult(sub), nil
}

// askResult is the content of the sub-agent's ask_user_question result.
func askResult(sub *agent.Agent) json.RawMessage {
	for _, m := range sub.History {
		if m.Role == agent.RoleTool && m.ToolName == askcore.ToolName {
			return json.RawMessage(m.Content)
		}
	}
	return nil
}

// newDelegateHarness is a connection whose sessions' agents have the
// delegate tool beside ask_user_question.
func newDelegateHarness(t *testing.T, run func(context.Context, *agent.Agent, func()) (json.RawMessage, error), elicit elicitFunc) (*harness, *delegateTool) {
	t.Helper()
	h := newHarness(t, harnessOptions{script: delegateScript}, elicit)
	h.initialize(true)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	rt, err := h.rt.get(ctx)
	require.NoError(t, err)
	subModel, err := script.Parse(strings.NewReader(subScript))
	require.NoError(t, err)
	d := &delegateTool{rt: rt, app: h.app, model: subModel, run: run, failed: make(chan error, 16)}
	tools := rt.Tools.Tools()
	require.Len(t, tools, 1)
	require.Equal(t, askcore.ToolName, tools[0].Name)
	// Sessions are created after this: their agents take these tools.
	reg := agent.NewRegistry(rt.Core)
	require.NoError(t, reg.Add(tools[0], agent.AskHandler(rt.Service, 0)))
	require.NoError(t, reg.Add(delegateSpec, d.execute))
	rt.Tools = reg
	return h, d
}

// A sub-agent of a session's agent asks: the form reaches that session's
// client, scoped to the session and to the sub-agent's tool call, and the
// answer comes back to the sub-agent.
func TestSubAgentAsksInItsSession(t *testing.T) {
	var scopes []wireScope
	h, d := newDelegateHarness(t, runToAnswer, func(_ context.Context, scope wireScope, f acp.UnstableCreateElicitationForm) (acp.UnstableCreateElicitationResponse, error) {
		scopes = append(scopes, scope)
		assert.Equal(t, "Which region should the helper deploy to?", f.Message)
		return acp.UnstableCreateElicitationResponse{Accept: &acp.UnstableCreateElicitationAccept{Action: "accept", Content: map[string]any{"answer": "eu-west"}}}, nil
	})
	sid := h.newSession()
	texts, tools := h.endedTurn(sid, "deploy")
	assert.Empty(t, d.failed)

	assert.Equal(t, []wireScope{{SessionID: string(sid), ToolCallID: "call_sub", Mode: "form"}}, scopes)
	assert.Equal(t, []string{"Delegating.", "Done."}, texts)
	require.Len(t, tools, 2)
	assert.Equal(t, "call_delegate", tools[0].id)
	assert.Equal(t, "delegate", tools[0].title)
	assert.Equal(t, acp.ToolCallStatusCompleted, tools[1].status)
	assert.Equal(t, []string{`{"answer":"eu-west"}`}, h.tap.rawOutputs(sid, "call_delegate"))
}

// Closing a session unbinds its sub-agents too: a sub-agent that outlives
// its session gets SESSION_NOT_FOUND as the core writes it, and its
// question reaches no client.
func TestClosingSessionUnbindsSubAgents(t *testing.T) {
	subs := make(chan *agent.Agent, 1)
	h, d := newDelegateHarness(t, func(_ context.Context, sub *agent.Agent, _ func()) (json.RawMessage, error) {
		subs <- sub // kept for later, bound to the session
		return json.RawMessage(`{}`), nil
	}, accept(map[string]any{"answer": "never"}))
	sid := h.newSession()
	stop, _ := h.prompt(sid, "deploy")
	require.Equal(t, acp.StopReasonEndTurn, stop)
	assert.Empty(t, d.failed)
	sub := <-subs
	bound, ok := h.app.Router().SessionOf(sub.ID)
	require.True(t, ok)
	assert.Equal(t, string(sid), bound)
	parentID := strings.TrimSuffix(sub.ID, "/call_delegate")
	_, ok = h.app.Router().SessionOf(parentID)
	require.True(t, ok)

	_, err := h.conn.CloseSession(context.Background(), acp.CloseSessionRequest{SessionId: sid})
	require.NoError(t, err)
	for _, id := range []string{parentID, sub.ID} {
		_, ok = h.app.Router().SessionOf(id)
		assert.False(t, ok, "%s is still bound after its session closed", id)
	}

	require.NoError(t, sub.Run(context.Background(), "do it"))
	want := failBytes(askcore.Failure{Situation: askcore.SituationSessionNotFound, Detail: sub.ID})
	assert.Equal(t, want, string(askResult(sub)))
	assert.Zero(t, h.client.askedCount())
}

// Concurrent sessions whose sub-agents all ask at once, answered in
// reverse order: every answer reaches the sub-agent of its own session.
func TestConcurrentSessionsWithSubAgentsNeverCross(t *testing.T) {
	const n = 8
	var asking sync.WaitGroup
	asking.Add(n)
	h, d := newDelegateHarness(t, runToAnswer, func(_ context.Context, scope wireScope, _ acp.UnstableCreateElicitationForm) (acp.UnstableCreateElicitationResponse, error) {
		assert.Equal(t, "call_sub", scope.ToolCallID)
		asking.Done()
		asking.Wait() // every session's sub-agent is asking now
		return acp.UnstableCreateElicitationResponse{Accept: &acp.UnstableCreateElicitationAccept{Action: "accept",
			Content: map[string]any{"answer": "region of " + scope.SessionID}}}, nil
	})
	ids := make([]acp.SessionId, n)
	for i := range ids {
		ids[i] = h.newSession()
	}
	var done sync.WaitGroup
	for _, id := range ids {
		done.Add(1)
		go func() {
			defer done.Done()
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			resp, err := h.conn.Prompt(ctx, acp.PromptRequest{SessionId: id, Prompt: []acp.ContentBlock{acp.TextBlock("deploy")}})
			if assert.NoError(t, err) {
				assert.Equal(t, acp.StopReasonEndTurn, resp.StopReason)
			}
		}()
	}
	done.Wait()
	assert.Empty(t, d.failed)
	for _, id := range ids {
		assert.Equal(t, []string{fmt.Sprintf(`{"answer":"region of %s"}`, id)}, h.tap.rawOutputs(id, "call_delegate"), "session %s", id)
	}
	assert.Equal(t, n, h.client.askedCount())
}
