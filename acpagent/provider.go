package acpagent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	acp "github.com/coder/acp-go-sdk"

	"github.com/askcore/askcore"
	"github.com/askcore/askcore/answerpage"
	"github.com/askcore/askcore/frontdoor"
)

// peer is the client side of one ACP connection, as the provider needs it.
type peer interface {
	// formElicitation reports whether the client advertised
	// clientCapabilities.elicitation.form at initialize.
	formElicitation() bool
	// elicit sends elicitation/create and returns the client's raw result;
	// errClientGone when the connection closed before the client answered.
	elicit(ctx context.Context, req elicitationRequest) (json.RawMessage, error)
	// clientInfo is the client's name and version from initialize ("" when
	// it gave none): the core names it when it could not have shown a form.
	clientInfo() (name, version string)
}

// errClientGone: the client's connection closed while it was asked.
var errClientGone = errors.New("the ACP client disconnected")

// provider is the ACP askcore.Provider: it turns a question into a form
// elicitation in the asking agent's session, or, where the client shows no
// form (Options.Web), a question on the answer page (page.go). One provider
// serves every session of the process (the askcore.Service holds one
// provider).
//
// Routing has two steps: router (the public agent -> session map, which
// also holds the sub-agents bound to a session) gives the asking agent's
// session, and peers the connection that holds that session.
type provider struct {
	router *askcore.Router
	// mode says which questions go to page; a nil page takes none (a
	// client without forms gets ASK_FAILED, as with WebNever).
	mode frontdoor.WebMode
	page *answerpage.Lazy

	// now is the clock a reply's delay is measured with (the core's
	// not_shown rule reads it): time.Now, stopped by a test of a reply
	// nobody could have given, so that a loaded machine's delay is not
	// read as a person's.
	now func() time.Time

	mu    sync.Mutex
	peers map[string]peer // session ID -> its connection
}

func newProvider(router *askcore.Router) *provider {
	return &provider{router: router, now: time.Now, peers: make(map[string]peer)}
}

// openSession routes the questions of agentID, the agent sessionID was
// created with, to p. Sub-agents join the session through the router.
func (pv *provider) openSession(sessionID, agentID string, p peer) error {
	pv.mu.Lock()
	pv.peers[sessionID] = p
	pv.mu.Unlock()
	if _, err := pv.router.Bind(agentID, sessionID); err != nil {
		pv.closeSession(sessionID)
		return err
	}
	return nil
}

// closeSession unbinds every agent of sessionID (its agent and sub-agents):
// their later questions are SESSION_NOT_FOUND.
func (pv *provider) closeSession(sessionID string) {
	pv.router.UnbindSession(sessionID)
	pv.mu.Lock()
	defer pv.mu.Unlock()
	delete(pv.peers, sessionID)
}

// route returns the session of agentID and the connection that holds it.
func (pv *provider) route(agentID string) (string, peer, bool) {
	sessionID, ok := pv.router.SessionOf(agentID)
	if !ok {
		return "", nil, false
	}
	pv.mu.Lock()
	defer pv.mu.Unlock()
	p, ok := pv.peers[sessionID]
	return sessionID, p, ok
}

// Ask implements askcore.Provider. The core builds the form, judges the
// response and writes every error; this method only routes, carries bytes
// and names the situation. When ctx is done it returns ctx's cause and the
// service reports ASK_ABORTED. A question the page takes (Options.Web) goes
// there instead of a form.
func (pv *provider) Ask(ctx context.Context, call *askcore.Call) (askcore.Reply, error) {
	sessionID, p, ok := pv.route(call.From.AgentID)
	if !ok {
		return askcore.Reply{}, askcore.Failure{Situation: askcore.SituationSessionNotFound, Detail: call.From.AgentID}
	}
	if pv.page != nil && pv.mode.Page(p.formElicitation()) {
		return pv.askPage(ctx, sessionID, p, call)
	}
	if !p.formElicitation() {
		return askcore.Reply{}, askcore.Failure{Situation: askcore.SituationNoFormSupport}
	}
	name, version := p.clientInfo()
	form, err := call.FormFor(ctx, askcore.ForACP, name)
	if err != nil {
		return askcore.Reply{}, err
	}
	// The core judges each reply (op form_reply): a reply that does not
	// answer goes back to the person with the core's message, a decline
	// or cancel no person could have given is not_shown.
	for round := 0; ; {
		sent := pv.now()
		raw, err := p.elicit(ctx, elicitationRequest{
			Mode:            "form",
			SessionID:       sessionID,
			ToolCallID:      call.From.ToolCallID,
			Message:         form.Message,
			RequestedSchema: form.RequestedSchema,
		})
		elapsed := pv.now().Sub(sent)
		switch {
		case err == nil:
		case ctx.Err() != nil:
			pv.withdrawn(ctx, sessionID, p)
			return askcore.Reply{}, context.Cause(ctx)
		case errors.Is(err, errClientGone):
			// The connection's end cancels the prompt's ctx too, but it may
			// not have reached ctx yet: the question is aborted either way.
			return askcore.Reply{}, askcore.Failure{Situation: askcore.SituationAborted, Detail: err.Error()}
		default:
			return askcore.Reply{}, askcore.Failure{Situation: askcore.SituationClientError, Detail: clientErrorText(err)}
		}
		if len(raw) == 0 || string(raw) == "null" {
			return askcore.Reply{}, askcore.Failure{Situation: askcore.SituationClientNoResult}
		}
		step, err := call.JudgeForm(ctx, askcore.FormRound{Target: askcore.ForACP, Response: raw, Round: round,
			Delivery: &askcore.Delivery{Elapsed: elapsed, Client: name, ClientVersion: version, Mode: askcore.DeliveryForm}})
		if err != nil {
			return askcore.Reply{}, err
		}
		switch step.Next {
		case askcore.FormAnswer:
			return askcore.Answered(step.Answer), nil
		case askcore.FormAskAgain:
			form, round = step.Form, step.Round
			continue
		}
		return askcore.Reply{}, step.Err
	}
}

// NoticeAsk implements frontdoor.AskNoticer: what happens with a hub the
// question is also in (refused, unreachable, waiting in its inbox) reaches
// the session that asked, as agent message text beside the form.
func (pv *provider) NoticeAsk(_ context.Context, call *askcore.Call, text string) {
	sessionID, p, ok := pv.route(call.From.AgentID)
	if !ok {
		return
	}
	if n, ok := p.(noticer); ok {
		n.notice(sessionID, text)
	}
}

// withdrawn tells the session why its form was withdrawn, where the core
// said why: another surface ended the ask (askcore.FirstReply's cause is
// then the core's answered_elsewhere error: "answered elsewhere (the
// hub's inbox)"), the words the terminal leaves in place of its question.
// A session/cancel or a stop has none: the person knows.
func (pv *provider) withdrawn(ctx context.Context, sessionID string, p peer) {
	var e *askcore.Error
	if n, ok := p.(noticer); ok && errors.As(context.Cause(ctx), &e) {
		n.notice(sessionID, e.Message)
	}
}

// clientErrorText is a client's error as the core quotes it: the JSON-RPC
// message, its data when there is any, and its code.
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
