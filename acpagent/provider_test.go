package acpagent

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	acp "github.com/coder/acp-go-sdk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/askcore/askcore"
	"github.com/askcore/askcore/frontdoor"
	"github.com/askcore/askcore/hub"
	"github.com/askcore/askcore/hub/store"
	"github.com/askcore/askcore/internal/testing/hubtest"
)

// fakePeer answers elicitations with fixed raw bytes.
type fakePeer struct {
	form bool
	raw  string
	err  error
	// then are the replies to the forms sent again, in turn (raw after).
	then []string
	got  []elicitationRequest
}

func (p *fakePeer) formElicitation() bool { return p.form }

func (p *fakePeer) clientInfo() (name, version string) { return "fake", "0" }

func (p *fakePeer) elicit(_ context.Context, req elicitationRequest) (json.RawMessage, error) {
	p.got = append(p.got, req)
	if p.err != nil {
		return nil, p.err
	}
	if n := len(p.got) - 2; n >= 0 && n < len(p.then) {
		return json.RawMessage(p.then[n]), nil
	}
	return json.RawMessage(p.raw), nil
}

const whichOne = `{"question":"Which one?","options":[{"label":"A"},{"label":"B"}]}`

var nativeCore = askcore.NewCore(askcore.Native{})

// providerFixture is the ACP provider on a native core with session
// sess-1 (agent agent-1) open on p.
type providerFixture struct {
	svc    *askcore.Service
	pv     *provider
	router *askcore.Router
}

func newProviderFixture(t *testing.T, p *fakePeer) *providerFixture {
	t.Helper()
	f := &providerFixture{svc: askcore.NewService(nativeCore), router: &askcore.Router{}}
	f.pv = newProvider(f.router)
	dispose, err := f.svc.Register(f.pv)
	require.NoError(t, err)
	t.Cleanup(dispose)
	require.NoError(t, f.pv.openSession("sess-1", "agent-1", p))
	return f
}

func (f *providerFixture) ask(agentID, toolCallID string) (askcore.Answer, error) {
	return f.svc.Ask(context.Background(), whichOne,
		askcore.AskOptions{From: askcore.Identity{AgentID: agentID, SessionID: "sess-1", ToolCallID: toolCallID}})
}

func askThrough(t *testing.T, p *fakePeer, agentID string) (askcore.Answer, error) {
	t.Helper()
	return newProviderFixture(t, p).ask(agentID, "call_1")
}

func code(err error) askcore.Code {
	var he *askcore.Error
	if errors.As(err, &he) {
		return he.Code
	}
	return ""
}

// errorBytes is err's error object as the model receives it.
func errorBytes(t *testing.T, err error) string {
	t.Helper()
	var he *askcore.Error
	require.True(t, errors.As(err, &he), "%v", err)
	return string(he.JSON())
}

// failBytes is the core's error object for a situation.
func failBytes(f askcore.Failure) string {
	return string(nativeCore.Fail(context.Background(), f).JSON())
}

// coreVerdict is the core's error object for a client's response to the
// form of whichOne.
func coreVerdict(t *testing.T, response string) string {
	t.Helper()
	call, err := nativeCore.Normalize(context.Background(), whichOne)
	require.NoError(t, err)
	_, err = call.Resolve(context.Background(), askcore.FormReply(json.RawMessage(response)))
	return errorBytes(t, err)
}

func TestProviderRoutesAndAnswers(t *testing.T) {
	p := &fakePeer{form: true, raw: `{"action":"accept","content":{"choice":"B"}}`}
	res, err := askThrough(t, p, "agent-1")
	require.NoError(t, err)
	assert.Equal(t, `{"answer":"B","selected":{"index":1,"label":"B","value":"B"}}`, string(res.JSON()))
	require.Len(t, p.got, 1)
	assert.Equal(t, "form", p.got[0].Mode)
	assert.Equal(t, "sess-1", p.got[0].SessionID)
	assert.Equal(t, "call_1", p.got[0].ToolCallID)
	assert.Equal(t, "Which one?", p.got[0].Message)
}

// The core judges the raw response: an action the SDK would have decoded
// as "accept", and a response that is not an object, are ASK_FAILED as the
// core writes them (the host has no rule of its own).
func TestProviderResponsesJudgedByTheCore(t *testing.T) {
	for _, raw := range []string{
		`{"action":"_custom","content":{"choice":"A"}}`,
		`"garbage"`,
		`[1,2,3]`,
		`-0.5e3`,
	} {
		_, err := askThrough(t, &fakePeer{form: true, raw: raw}, "agent-1")
		assert.Equal(t, askcore.CodeAskFailed, code(err), "%s: %v", raw, err)
		assert.Equal(t, coreVerdict(t, raw), errorBytes(t, err), raw)
	}
}

// An agent bound to no session gets SESSION_NOT_FOUND as the core writes
// it, naming the agent; nothing is sent to any client.
func TestProviderUnknownAgent(t *testing.T) {
	p := &fakePeer{form: true}
	_, err := askThrough(t, p, "agent-2")
	assert.Equal(t, askcore.CodeSessionNotFound, code(err), "%v", err)
	assert.Equal(t, failBytes(askcore.Failure{Situation: askcore.SituationSessionNotFound, Detail: "agent-2"}), errorBytes(t, err))
	assert.Empty(t, p.got)
}

func TestProviderNoFormCapability(t *testing.T) {
	p := &fakePeer{form: false}
	_, err := askThrough(t, p, "agent-1")
	assert.Equal(t, failBytes(askcore.Failure{Situation: askcore.SituationNoFormSupport}), errorBytes(t, err))
	assert.Empty(t, p.got)
}

func TestProviderClientError(t *testing.T) {
	_, err := askThrough(t, &fakePeer{form: true, err: errors.New("boom")}, "agent-1")
	assert.Equal(t, failBytes(askcore.Failure{Situation: askcore.SituationClientError, Detail: "boom"}), errorBytes(t, err))

	rpc := &acp.RequestError{Code: -32603, Message: "the form could not be shown", Data: map[string]any{"why": "busy"}}
	_, err = askThrough(t, &fakePeer{form: true, err: rpc}, "agent-1")
	assert.Equal(t, failBytes(askcore.Failure{Situation: askcore.SituationClientError,
		Detail: `the form could not be shown {"why":"busy"} (JSON-RPC error -32603)`}), errorBytes(t, err))

	for _, raw := range []string{``, `null`} {
		_, err = askThrough(t, &fakePeer{form: true, raw: raw}, "agent-1")
		assert.Equal(t, failBytes(askcore.Failure{Situation: askcore.SituationClientNoResult}), errorBytes(t, err), "%q", raw)
	}
}

// A connection that closes while the client is asked aborts the question,
// even before the close has reached the ask's ctx.
func TestProviderClientGone(t *testing.T) {
	_, err := askThrough(t, &fakePeer{form: true, err: errClientGone}, "agent-1")
	assert.Equal(t, askcore.CodeAskAborted, code(err), "%v", err)
	assert.Equal(t, failBytes(askcore.Failure{Situation: askcore.SituationAborted, Detail: errClientGone.Error()}), errorBytes(t, err))
}

// A sub-agent bound to a session's agent asks in that session, with its own
// tool call; closing the session unbinds it with the session's agent.
func TestProviderSubAgent(t *testing.T) {
	p := &fakePeer{form: true, raw: `{"action":"accept","content":{"choice":"A"}}`}
	f := newProviderFixture(t, p)
	sid, _, err := f.router.BindSubAgent("agent-1", "agent-1/sub")
	require.NoError(t, err)
	assert.Equal(t, "sess-1", sid)

	res, err := f.ask("agent-1/sub", "call_sub")
	require.NoError(t, err)
	assert.Equal(t, `{"answer":"A","selected":{"index":0,"label":"A","value":"A"}}`, string(res.JSON()))
	require.Len(t, p.got, 1)
	assert.Equal(t, "sess-1", p.got[0].SessionID)
	assert.Equal(t, "call_sub", p.got[0].ToolCallID)

	f.pv.closeSession("sess-1")
	for _, id := range []string{"agent-1", "agent-1/sub"} {
		_, err = f.ask(id, "call_late")
		assert.Equal(t, failBytes(askcore.Failure{Situation: askcore.SituationSessionNotFound, Detail: id}), errorBytes(t, err))
	}
	assert.Len(t, p.got, 1)
}

// openSession refuses an agent ID that is bound already (to a sub-agent of
// another session, say) and leaves no peer behind.
func TestProviderOpenSessionRefusesBoundAgent(t *testing.T) {
	p := &fakePeer{form: true}
	f := newProviderFixture(t, p)
	_, _, err := f.router.BindSubAgent("agent-1", "acp-agent-9")
	require.NoError(t, err)
	other := &fakePeer{form: true}
	require.ErrorIs(t, f.pv.openSession("sess-9", "acp-agent-9", other), askcore.ErrAlreadyBound)
	_, _, ok := f.pv.route("acp-agent-9")
	assert.True(t, ok, "the sub-agent keeps its own session")
	sid, _ := f.router.SessionOf("acp-agent-9")
	assert.Equal(t, "sess-1", sid)
	f.pv.mu.Lock()
	_, kept := f.pv.peers["sess-9"]
	f.pv.mu.Unlock()
	assert.False(t, kept)
}

// A form reply that does not answer goes back to the person with the
// core's message (op form_reply); their next reply answers.
func TestProviderAsksAgain(t *testing.T) {
	empty := `{"action":"accept","content":{}}`
	p := &fakePeer{form: true, raw: empty, then: []string{`{"action":"accept","content":{"choice":"B"}}`}}
	res, err := askThrough(t, p, "agent-1")
	require.NoError(t, err)
	assert.Equal(t, `{"answer":"B","selected":{"index":1,"label":"B","value":"B"}}`, string(res.JSON()))
	require.Len(t, p.got, 2)
	call, err := nativeCore.Normalize(context.Background(), whichOne)
	require.NoError(t, err)
	step, err := call.JudgeForm(context.Background(), askcore.FormRound{Target: askcore.ForACP, Response: json.RawMessage(empty)})
	require.NoError(t, err)
	require.Equal(t, askcore.FormAskAgain, step.Next)
	assert.Equal(t, step.Form.Message, p.got[1].Message, "the form went back led by the core's message")
}

// A decline sooner than anyone could read the form is not the person's:
// ASK_FAILED (not_shown) naming the client, never ASK_DECLINED.
func TestProviderNotShown(t *testing.T) {
	f := newProviderFixture(t, &fakePeer{form: true, raw: `{"action":"decline"}`})
	at := time.Now()
	f.pv.now = func() time.Time { return at } // 0 ms however loaded the machine
	_, err := f.ask("agent-1", "call_1")
	assert.Equal(t, askcore.CodeAskFailed, code(err), "%v", err)
	assert.Contains(t, errorBytes(t, err), "Nobody saw the question: fake 0 declined the form")
}

// With a hub beside the editor, a decline the person could have given
// (the form was up a second by the provider's clock, past the core's
// 250 ms) still ends the ask: the agent gets the core's ASK_DECLINED, and
// the hub's ask is withdrawn rather than left in the inbox.
func TestProviderDeclineWithHub(t *testing.T) {
	h := hubtest.Start(t)
	svc := askcore.NewService(nativeCore)
	pv := newProvider(&askcore.Router{})
	at := time.Now()
	pv.now = func() time.Time { at = at.Add(time.Second); return at } // each reply a second after its form, however loaded the machine
	both, err := frontdoor.Hub{}.Provider(askcore.Surface{Name: "the editor", Provider: pv}, h.Env, hub.WithPollSeconds(1))
	require.NoError(t, err)
	dispose, err := svc.Register(both)
	require.NoError(t, err)
	t.Cleanup(dispose)
	require.NoError(t, pv.openSession("sess-1", "agent-1", &fakePeer{form: true, raw: `{"action":"decline"}`}))
	_, err = svc.Ask(context.Background(), whichOne, askcore.AskOptions{From: askcore.Identity{AgentID: "agent-1", SessionID: "sess-1", ToolCallID: "call_1"}})
	assert.Equal(t, coreVerdict(t, `{"action":"decline"}`), errorBytes(t, err), "the person's decline, in the core's words")
	assert.Equal(t, askcore.CodeAskDeclined, code(err))
	assert.Equal(t, store.WhereAgent, h.Ask(t, store.StateWithdrawn).RepliedWhere, "withdrawn, not answered in the editor: nobody answered")
}
