package frontdoor_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/askcore/askcore"
	"github.com/askcore/askcore/agent"
	"github.com/askcore/askcore/frontdoor"
)

// A sub-agent shares its parent's session: a provider that routes through
// the router sees the sub-agent's questions in the parent's session, until
// the sub-agent is released or the session closes.
func TestNewSubAgent(t *testing.T) {
	ctx := context.Background()
	path := writeScript(t, `{"tool_calls":[{"id":"call_sub","name":"ask_user_question","arguments":{"question":"Name?"}}]}
{"content":"Got {{answer}}."}
`)
	rt, err := frontdoor.Build(ctx, frontdoor.Settings{Engine: "native", Script: path}, env(nil))
	require.NoError(t, err)
	defer func() { require.NoError(t, rt.Close(ctx)) }()

	var router askcore.Router
	type routed struct{ agentID, sessionID, toolCallID string }
	var asked []routed
	dispose, err := rt.Service.Register(askcore.ProviderFunc(func(ctx context.Context, call *askcore.Call) (askcore.Reply, error) {
		sid, ok := router.SessionOf(call.From.AgentID)
		if !ok {
			return askcore.Reply{}, askcore.Failure{Situation: askcore.SituationSessionNotFound, Detail: call.From.AgentID}
		}
		asked = append(asked, routed{call.From.AgentID, sid, call.From.ToolCallID})
		if _, err := call.Form(ctx, askcore.ForACP); err != nil {
			return askcore.Reply{}, err
		}
		return askcore.FormReply(json.RawMessage(`{"action":"accept","content":{"answer":"Ada"}}`)), nil
	}))
	require.NoError(t, err)
	defer dispose()

	_, err = router.Bind("parent", "s1")
	require.NoError(t, err)

	var texts []string
	sub, release, err := rt.NewSubAgent(&router, "parent", "sub-1", agent.Hooks{OnText: func(s string) { texts = append(texts, s) }})
	require.NoError(t, err)
	assert.Equal(t, "sub-1", sub.ID)
	assert.Equal(t, "s1", sub.SessionID)
	assert.Equal(t, rt.System, sub.System)
	require.NoError(t, sub.Run(ctx, "find a name"))
	assert.Equal(t, []routed{{"sub-1", "s1", "call_sub"}}, asked)
	assert.Equal(t, []string{"Got Ada."}, texts)

	// Errors: an ID in use, a parent in no session.
	_, _, err = rt.NewSubAgent(&router, "parent", "sub-1", agent.Hooks{})
	require.ErrorIs(t, err, askcore.ErrAlreadyBound)
	_, _, err = rt.NewSubAgent(&router, "nobody", "sub-2", agent.Hooks{})
	require.ErrorIs(t, err, askcore.ErrNotBound)

	release()
	_, ok := router.SessionOf("sub-1")
	assert.False(t, ok)

	// Once the session closes, a sub-agent's question is SESSION_NOT_FOUND,
	// as the core writes it.
	var failure error
	sub2, _, err := rt.NewSubAgent(&router, "parent", "sub-2", agent.Hooks{OnToolResult: func(_ agent.ToolCall, _ json.RawMessage, err error) {
		failure = err
	}})
	require.NoError(t, err)
	router.UnbindSession("s1")
	require.NoError(t, sub2.Run(ctx, "again"))
	want := rt.Core.Fail(ctx, askcore.Failure{Situation: askcore.SituationSessionNotFound, Detail: "sub-2"})
	require.Error(t, failure)
	assert.Equal(t, string(want.JSON()), string(askcore.AsError(failure).JSON()))
	assert.Len(t, asked, 1)
}
