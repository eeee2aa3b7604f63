package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	acp "github.com/coder/acp-go-sdk"

	"github.com/askcore/askcore/core"
	"github.com/askcore/askcore/engine"
	"github.com/askcore/askcore/interaction"
)

// peer is the client side of one ACP connection, as the provider needs it.
type peer interface {
	// formElicitation reports whether the client advertised
	// clientCapabilities.elicitation.form at initialize.
	formElicitation() bool
	// elicit sends elicitation/create and returns the client's raw result.
	elicit(ctx context.Context, req elicitationRequest) (json.RawMessage, error)
}

// route is where the questions of one agent go.
type route struct {
	sessionID string
	peer      peer
}

// provider is the ACP interaction.Provider: it turns a question into a form
// elicitation in the asking agent's session. One provider serves every
// session of the process (the interaction.Service holds one provider).
type provider struct {
	client engine.Client

	mu     sync.Mutex
	routes map[string]route // agent ID -> its session
}

func newProvider(client engine.Client) *provider {
	return &provider{client: client, routes: make(map[string]route)}
}

// bind routes the questions of agentID to sessionID on p.
func (pv *provider) bind(agentID, sessionID string, p peer) {
	pv.mu.Lock()
	defer pv.mu.Unlock()
	pv.routes[agentID] = route{sessionID: sessionID, peer: p}
}

// unbind forgets agentID: its later questions are SESSION_NOT_FOUND.
func (pv *provider) unbind(agentID string) {
	pv.mu.Lock()
	defer pv.mu.Unlock()
	delete(pv.routes, agentID)
}

func (pv *provider) lookup(agentID string) (route, bool) {
	pv.mu.Lock()
	defer pv.mu.Unlock()
	r, ok := pv.routes[agentID]
	return r, ok
}

// Ask implements interaction.Provider. The core builds the form and judges
// the response (accept, decline, cancel, anything else); this method only
// routes and carries bytes. When ctx is done it returns ctx's cause and the
// service reports ASK_ABORTED.
func (pv *provider) Ask(ctx context.Context, q interaction.Question) (engine.Result, error) {
	r, ok := pv.lookup(q.From.AgentID)
	if !ok {
		return engine.Result{}, core.NewError(core.CodeSessionNotFound, fmt.Sprintf(
			"no ACP session is bound to agent %q, so the question cannot reach anyone; continue without asking", q.From.AgentID))
	}
	if !r.peer.formElicitation() {
		return engine.Result{}, core.NewError(core.CodeAskFailed,
			"this ACP client cannot show questions (it did not advertise the elicitation.form capability); continue without asking, or ask in your reply and stop")
	}
	form, _, err := pv.client.Elicitation(ctx, q.Raw)
	if err != nil {
		return engine.Result{}, err
	}
	raw, err := r.peer.elicit(ctx, elicitationRequest{
		Mode:            "form",
		SessionID:       r.sessionID,
		ToolCallID:      q.From.ToolCallID,
		Message:         form.Message,
		RequestedSchema: form.RequestedSchema,
	})
	if err != nil {
		if ctx.Err() != nil {
			return engine.Result{}, context.Cause(ctx)
		}
		return engine.Result{}, core.NewError(core.CodeAskFailed, "the ACP client could not ask the question: "+core.SanitizeText(clientErrorText(err)))
	}
	if len(raw) == 0 || string(raw) == "null" {
		return engine.Result{}, core.NewError(core.CodeAskFailed, "the ACP client answered elicitation/create without a result")
	}
	if t := bytes.TrimSpace(raw); len(t) == 0 || t[0] != '{' {
		// Not the model's fault: the core would call a non-object response
		// INVALID_REQUEST, which the model would read as "fix your request".
		return engine.Result{}, core.NewError(core.CodeAskFailed,
			"the ACP client answered elicitation/create with something other than an object {\"action\":...,\"content\":{...}}")
	}
	return pv.client.ElicitationResult(ctx, q.Raw, raw)
}

// clientErrorText is a client error as the model should read it: the
// JSON-RPC message, and its data when there is any.
func clientErrorText(err error) string {
	var re *acp.RequestError
	if !errors.As(err, &re) {
		return err.Error()
	}
	msg := re.Message
	if re.Data != nil {
		if b, mErr := json.Marshal(re.Data); mErr == nil && string(b) != "null" && string(b) != "{}" {
			msg += " " + string(b)
		}
	}
	return fmt.Sprintf("%s (JSON-RPC error %d)", msg, re.Code)
}
