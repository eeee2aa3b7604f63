package main

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/askcore/askcore/core"
	"github.com/askcore/askcore/engine"
	"github.com/askcore/askcore/interaction"
)

// fakePeer answers elicitations with fixed raw bytes.
type fakePeer struct {
	form bool
	raw  string
	err  error
	got  []elicitationRequest
}

func (p *fakePeer) formElicitation() bool { return p.form }

func (p *fakePeer) elicit(_ context.Context, req elicitationRequest) (json.RawMessage, error) {
	p.got = append(p.got, req)
	if p.err != nil {
		return nil, p.err
	}
	return json.RawMessage(p.raw), nil
}

func askThrough(t *testing.T, p *fakePeer, agentID string) (engine.Result, error) {
	t.Helper()
	client := engine.Client{Core: engine.Native{}}
	svc := interaction.NewService(client)
	pv := newProvider(client)
	dispose, err := svc.Register(pv)
	require.NoError(t, err)
	defer dispose()
	pv.bind("agent-1", "sess-1", p)
	return svc.Ask(context.Background(), json.RawMessage(`{"question":"Which one?","options":[{"label":"A"},{"label":"B"}]}`),
		interaction.AskOptions{From: interaction.Identity{AgentID: agentID, SessionID: "sess-1", ToolCallID: "call_1"}})
}

func code(err error) core.Code {
	var he *core.HarnessError
	if errors.As(err, &he) {
		return he.Code
	}
	return ""
}

// The core judges the raw response: an action the SDK would have decoded
// as "accept" is ASK_FAILED.
func TestProviderUnknownActionIsAskFailed(t *testing.T) {
	_, err := askThrough(t, &fakePeer{form: true, raw: `{"action":"_custom","content":{"choice":"A"}}`}, "agent-1")
	assert.Equal(t, core.CodeAskFailed, code(err), "%v", err)
}

func TestProviderRoutesAndAnswers(t *testing.T) {
	p := &fakePeer{form: true, raw: `{"action":"accept","content":{"choice":"B"}}`}
	res, err := askThrough(t, p, "agent-1")
	require.NoError(t, err)
	assert.JSONEq(t, `{"answer":"B","selected":{"index":1,"label":"B","value":"B"}}`, string(res.Raw))
	require.Len(t, p.got, 1)
	assert.Equal(t, "form", p.got[0].Mode)
	assert.Equal(t, "sess-1", p.got[0].SessionID)
	assert.Equal(t, "call_1", p.got[0].ToolCallID)
	assert.Equal(t, "Which one?", p.got[0].Message)
}

func TestProviderUnknownAgent(t *testing.T) {
	p := &fakePeer{form: true}
	_, err := askThrough(t, p, "agent-2")
	assert.Equal(t, core.CodeSessionNotFound, code(err), "%v", err)
	assert.Empty(t, p.got)
}

func TestProviderNoFormCapability(t *testing.T) {
	p := &fakePeer{form: false}
	_, err := askThrough(t, p, "agent-1")
	assert.Equal(t, core.CodeAskFailed, code(err), "%v", err)
	assert.Empty(t, p.got)
}

func TestProviderClientError(t *testing.T) {
	_, err := askThrough(t, &fakePeer{form: true, err: errors.New("boom")}, "agent-1")
	assert.Equal(t, core.CodeAskFailed, code(err), "%v", err)
	assert.Contains(t, err.Error(), "boom")
	_, err = askThrough(t, &fakePeer{form: true, raw: `null`}, "agent-1")
	assert.Equal(t, core.CodeAskFailed, code(err), "%v", err)
}
