package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/askcore/askcore"
	"github.com/askcore/askcore/answerpage"
	"github.com/askcore/askcore/frontdoor"
)

// inputKey names the form in a 2026-07-28 input-required result; the client
// echoes it back in inputResponses.
const inputKey = "ask_user_question"

// protocolInputRequests is the first protocol version in which a server
// asks by returning input requests (SEP-2322) and may no longer send
// elicitation/create.
const protocolInputRequests = "2026-07-28"

// methodElicit is the legacy server-to-client request.
const methodElicit = "elicitation/create"

// call is one tools/call on its way through the seam. The tool handler puts
// it in the ctx it gives the seam; the provider reads it there.
type call struct {
	req *mcp.CallToolRequest
	// id names the model's tool call to the providers that keep questions
	// by id (a hub): the host's id where it sends one, else one this
	// server made, carried in requestState from round to round of a
	// 2026-07-28 client, so that every round finds the same question.
	id string

	mu sync.Mutex
	// inputRequest is set by the provider when the client negotiated
	// 2026-07-28 and has not answered yet: the handler then returns it as
	// an input-required result instead of the seam's verdict.
	inputRequest *mcp.ElicitParams
	state        string // its requestState

	// progressed counts the progress notifications sent for the call:
	// their progress value, which must increase from one to the next,
	// whoever sends them (the waiting words, a hub's notices).
	progressed atomic.Int64
}

type callKey struct{}

func withCall(ctx context.Context, c *call) context.Context {
	return context.WithValue(ctx, callKey{}, c)
}

func callFrom(ctx context.Context) *call {
	c, _ := ctx.Value(callKey{}).(*call)
	return c
}

func (c *call) setInputRequest(p *mcp.ElicitParams, state string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.inputRequest, c.state = p, state
}

// takeInputRequest returns the form to send back as an input request, if
// the provider set one. (The seam runs the provider in a goroutine of its
// own, which may outlive an aborted Ask: hence the lock.)
func (c *call) takeInputRequest() (*mcp.ElicitParams, string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	p := c.inputRequest
	c.inputRequest = nil
	return p, c.state
}

// errInputRequired ends the seam's Ask when the form goes back to the
// client as an input request; the handler ignores the seam's error then.
// It wraps askcore.ErrContinues: the client calls again with the reply,
// and the other surfaces (a hub's inbox) keep the question open for it.
var errInputRequired = fmt.Errorf("the form was returned to the client as an input request: %w", askcore.ErrContinues)

// provider is the MCP askcore.Provider: it turns a question into a form
// elicitation to the client of the tool call that asked it. One provider
// serves every call of the process; each call carries its own state in ctx.
type provider struct {
	seam *seam
	log  *slog.Logger
	// progressEvery is the interval of progress notifications while a
	// person answers a legacy elicitation or on the answer page (0: none).
	progressEvery time.Duration
	// web is when the answer page is used; page is the page; urlShown:
	// its address reaches the person (Options.URLShown).
	web      frontdoor.WebMode
	page     *answerpage.Lazy
	urlShown bool
	// entrypoint is Options.ClientEntrypoint, for Delivery.Entrypoint.
	entrypoint string
	// now is the clock a reply's delay is measured with (time.Now;
	// options.now).
	now func() time.Time
	// life ends when the server stops: it withdraws the questions held
	// on the page between the calls of a 2026-07-28 client (held).
	life context.Context
	// held are those questions, by the elicitationId of their URL-mode
	// input request (page_inresult.go).
	held heldPages
}

// Ask implements interaction.Provider. The core builds the form and judges
// the reply; this method carries bytes. When ctx is done it returns ctx's
// cause and the service reports ASK_ABORTED (or ASK_TIMEOUT).
//
// The surfaces, in turn: the client's form, then the answer page where it
// can reach the person (pageReaches). A form the client answered before
// anyone could read it (the core's not_shown) goes on to the page; when no
// surface is left the ask fails at once with the core's no_surface.
func (p *provider) Ask(ctx context.Context, q *askcore.Call) (askcore.Reply, error) {
	c := callFrom(ctx)
	if c == nil {
		return askcore.Reply{}, failure(situationProviderFailed, "a question reached the MCP provider outside a tool call")
	}
	if id, ok := heldID(c.req); ok && p.web != frontdoor.WebNever {
		// The client's reply to the page's URL, sent in an earlier call.
		return p.resumeHeld(ctx, c, q, id)
	}
	form := formElicitation(c.req.ClientCapabilities())
	if !form && p.web != frontdoor.WebAlways && p.web != frontdoor.WebAuto {
		return askcore.Reply{}, failure(situationNoFormSupport, "")
	}
	var surfaces []askcore.Surface
	formDone := make(chan struct{}) // closed when the form dropped out
	var formErr error               // why, set before formDone closes
	if form && p.web != frontdoor.WebAlways {
		surfaces = append(surfaces, askcore.Surface{Name: formSurface, Provider: askcore.ProviderFunc(func(ctx context.Context, q *askcore.Call) (askcore.Reply, error) {
			r, err := p.askForm(ctx, c, q)
			if err != nil && !errors.Is(err, errInputRequired) {
				formErr = err
				close(formDone)
			}
			return r, err
		})})
	} else {
		close(formDone)
	}
	if p.web != frontdoor.WebNever {
		surfaces = append(surfaces, askcore.Surface{Name: pageSurface, Provider: askcore.ProviderFunc(func(ctx context.Context, q *askcore.Call) (askcore.Reply, error) {
			select {
			case <-formDone:
			case <-ctx.Done():
				return askcore.Reply{}, context.Cause(ctx)
			}
			if !p.pageReaches(c) {
				return askcore.Reply{}, failure(askcore.SituationNotShown, pageUnseen)
			}
			return p.askPage(ctx, c, q, formErr)
		})})
	}
	if len(surfaces) == 1 && p.web == frontdoor.WebNever {
		// The form alone: its own outcome, not_shown included.
		return p.askForm(ctx, c, q)
	}
	return askcore.FirstReply(surfaces...).Ask(ctx, q)
}

// The names of the surfaces in the core's messages (no_surface lists why
// each could not show the question).
const (
	formSurface = "the form"
	pageSurface = "the answer page"
)

// pageUnseen is why the answer page cannot reach the person: the detail
// of its not_shown.
const pageUnseen = "no browser can open here and the answer page's address reaches nobody (this client shows neither a URL-mode request nor the server's output)"

// askForm asks through the client's form, on the protocol the client
// negotiated.
func (p *provider) askForm(ctx context.Context, c *call, q *askcore.Call) (askcore.Reply, error) {
	if inputRequests(c.req) {
		return p.askInResult(ctx, c, q)
	}
	return p.askLegacy(ctx, c, q)
}

// delivery is what the core needs to tell a reply no person could have
// given (docs/SPEC.md, "Not shown"): the time the request waited, the
// client's name and version, the mode, Codex's turn trigger and the
// entrypoint Claude Code gave this process.
func (p *provider) delivery(c *call, mode askcore.DeliveryMode, elapsed time.Duration) *askcore.Delivery {
	d := &askcore.Delivery{Elapsed: elapsed, Mode: mode, Entrypoint: p.entrypoint}
	if ci := clientInfo(c.req); ci != nil {
		d.Client, d.ClientVersion = ci.Name, ci.Version
	}
	d.Trigger = turnTrigger(c.req.Params.Meta)
	return d
}

// turnTrigger is Codex's word on who started the turn, from a call's
// _meta: "exec" under codex exec. Codex 0.169.0 sends it inside
// _meta["x-codex-turn-metadata"]; a turn_trigger at the top of _meta is
// read first.
func turnTrigger(meta map[string]any) string {
	if t, ok := meta["turn_trigger"].(string); ok {
		return t
	}
	if m, ok := meta[codexTurnMetadata].(map[string]any); ok {
		if t, ok := m["turn_trigger"].(string); ok {
			return t
		}
	}
	return ""
}

// codexTurnMetadata is the _meta key of Codex's turn metadata.
const codexTurnMetadata = "x-codex-turn-metadata"

// clientInfo is the client's clientInfo: from the call's own metadata on
// 2026-07-28, else from its initialize.
func clientInfo(req *mcp.CallToolRequest) *mcp.Implementation {
	if ci := req.ClientInfo(); ci != nil {
		return ci
	}
	if ip := req.Session.InitializeParams(); ip != nil {
		return ip.ClientInfo
	}
	return nil
}

// hostToolCallID is the id the host gave the model's tool call, where it
// sends one in the call's _meta (Claude Code: "claudecode/toolUseId"): the
// same on the call's retries, so a provider that keeps questions by id (a
// hub) finds its question again when the client calls back.
func hostToolCallID(req *mcp.CallToolRequest) string {
	id, _ := req.Params.Meta["claudecode/toolUseId"].(string)
	return id
}

// callID is the id of the model's tool call (see call.id): the host's,
// else the one an earlier round wrote in requestState, else a new one.
func callID(req *mcp.CallToolRequest) string {
	if id := hostToolCallID(req); id != "" {
		return id
	}
	if id := stateCallID(req.Params.RequestState); id != "" {
		return id
	}
	return "mcp-" + newOpaqueID()
}

// asker names the asking agent on the answer page: the client's
// clientInfo title (or name) and version, "Claude Code 2.1.328".
func asker(req *mcp.CallToolRequest) string {
	ci := clientInfo(req)
	if ci == nil {
		return ""
	}
	name := ci.Title
	if name == "" {
		name = ci.Name
	}
	return strings.TrimSpace(name + " " + ci.Version)
}

// clientName is the client's clientInfo name ("" when unknown).
func clientName(req *mcp.CallToolRequest) string {
	if ci := clientInfo(req); ci != nil {
		return ci.Name
	}
	return ""
}

// judge has the core judge one reply to the call's form (op form_reply).
// It returns the answer, the form to send again (with its round), or the
// error that ends this surface.
func judge(ctx context.Context, c *call, q *askcore.Call, raw json.RawMessage, round int, d *askcore.Delivery) (askcore.Reply, *askcore.Form, int, error) {
	step, err := q.JudgeForm(ctx, askcore.FormRound{Target: askcore.ForMCP, Response: raw, Round: round, Delivery: d})
	if err != nil {
		return askcore.Reply{}, nil, 0, err
	}
	switch step.Next {
	case askcore.FormAnswer:
		return askcore.Answered(step.Answer), nil, 0, nil
	case askcore.FormAskAgain:
		return askcore.Reply{}, &step.Form, step.Round, nil
	}
	return askcore.Reply{}, nil, 0, step.Err
}

// formElicitation reports whether the client can show forms: its
// elicitation capability lists form, or lists no mode at all (before
// 2025-11-25 an empty {} meant form).
func formElicitation(caps *mcp.ClientCapabilities) bool {
	if caps == nil || caps.Elicitation == nil {
		return false
	}
	el := caps.Elicitation
	return el.Form != nil || el.URL == nil
}

// inputRequests reports whether the client negotiated 2026-07-28 or later:
// the form then travels in the tool result (the SDK's own rule, see
// clientSupportsMultiRoundTrip in go-sdk's mcp/mrtr.go).
func inputRequests(req *mcp.CallToolRequest) bool {
	ip := req.Session.InitializeParams()
	return ip == nil || ip.ProtocolVersion >= protocolInputRequests
}

// askInResult is the 2026-07-28 path. First round: the form goes back to
// the client in an input-required result (the call ends at once), with
// the round and the time it was sent in requestState. Next round: the
// client retries the call with the same arguments, its reply under
// inputKey and the requestState; the core judges the reply, and a reply
// that does not answer goes back the same way with the core's message.
func (p *provider) askInResult(ctx context.Context, c *call, q *askcore.Call) (askcore.Reply, error) {
	var form *askcore.Form
	round := 0
	if reply, err := inputReply(c.req); err != nil {
		return askcore.Reply{}, err
	} else if reply != nil {
		var d *askcore.Delivery
		var sent time.Time
		round, sent = readState(c.req.Params.RequestState)
		if !sent.IsZero() {
			d = p.delivery(c, askcore.DeliveryForm, p.now().Sub(sent))
		}
		r, again, next, err := judge(ctx, c, q, reply.raw, round, d)
		if again == nil {
			return r, err
		}
		form, round = again, next
	} else {
		f, err := q.FormFor(ctx, askcore.ForMCP, clientName(c.req))
		if err != nil {
			return askcore.Reply{}, err
		}
		form = &f
	}
	c.setInputRequest(&mcp.ElicitParams{Mode: "form", Message: form.Message, RequestedSchema: form.RequestedSchema}, writeState(round, p.now(), c.id))
	return askcore.Reply{}, errInputRequired
}

// inputResponse is the client's reply to the call's input request: its
// action, and the reply as the core reads a form reply.
type inputResponse struct {
	action string
	raw    json.RawMessage
}

// inputReply is the client's reply to the call's input request; nil when
// the call carries none.
func inputReply(req *mcp.CallToolRequest) (*inputResponse, error) {
	resp, ok := req.Params.InputResponses[inputKey]
	if !ok {
		return nil, nil
	}
	er, ok := resp.(*mcp.ElicitResult)
	if !ok || er == nil {
		return nil, failure(situationClientError,
			"the input response "+inputKey+" is not an elicitation result (it has no action)")
	}
	raw, err := json.Marshal(elicitReply{Action: er.Action, Content: er.Content})
	if err != nil { // a string and a map decoded from JSON always marshal
		return nil, failure(situationClientError, err.Error())
	}
	return &inputResponse{action: er.Action, raw: raw}, nil
}

// writeState is the requestState of an input request: the round of the
// form, when it was sent (Unix milliseconds) and the call's id, which the
// client echoes when it retries. A client that changes it changes only
// how its own reply is judged (the core bounds the round) and which of
// its own questions it answers.
func writeState(round int, sent time.Time, id string) string {
	return strconv.Itoa(round) + "." + strconv.FormatInt(sent.UnixMilli(), 10) + "." + id
}

// readState reads writeState's round and time; round 0 and no time for
// anything else.
func readState(s string) (round int, sent time.Time) {
	f := strings.SplitN(s, ".", 3)
	if len(f) < 2 {
		return 0, time.Time{}
	}
	n, err1 := strconv.Atoi(f[0])
	ms, err2 := strconv.ParseInt(f[1], 10, 64)
	if err1 != nil || err2 != nil || n < 0 {
		return 0, time.Time{}
	}
	return n, time.UnixMilli(ms)
}

// stateCallID is the call's id in a requestState this server wrote: the
// third of its dot-separated fields, in the form's state as in the page's
// ("url.ELICITATION.ID"); "" when there is none.
func stateCallID(s string) string {
	f := strings.SplitN(s, ".", 3)
	if len(f) < 3 {
		return ""
	}
	return f[2]
}

// askLegacy is the elicitation/create path (protocol 2025-11-25 and older):
// the call stays open while the person answers, with progress
// notifications when the call carries a progress token. A reply that
// does not answer goes back to the person with the core's message.
func (p *provider) askLegacy(ctx context.Context, c *call, q *askcore.Call) (askcore.Reply, error) {
	form, err := q.FormFor(ctx, askcore.ForMCP, clientName(c.req))
	if err != nil {
		return askcore.Reply{}, err
	}
	for round := 0; ; {
		sent := p.now()
		raw, err := p.elicitForm(ctx, c, form)
		if err != nil {
			return askcore.Reply{}, err
		}
		r, again, next, err := judge(ctx, c, q, raw, round, p.delivery(c, askcore.DeliveryForm, p.now().Sub(sent)))
		if again == nil {
			return r, err
		}
		form, round = *again, next
	}
}

// elicitForm sends one form as elicitation/create and returns the
// client's reply as it sent it.
func (p *provider) elicitForm(ctx context.Context, c *call, form askcore.Form) (json.RawMessage, error) {
	stop := p.progress(ctx, c, "")
	res, err := c.req.Session.Elicit(ctx, &mcp.ElicitParams{Mode: "form", Message: form.Message, RequestedSchema: form.RequestedSchema})
	stop()
	if ctx.Err() != nil {
		p.withdrawn(ctx, c)
		return nil, context.Cause(ctx)
	}
	// lineTransport hands the client's response over as a wireReply
	// error (sdkgap_replies.go): the raw result, which the core judges
	// as the client sent it (go-sdk would have validated it against the
	// form and filled in defaults, so an accept without an answer would
	// have chosen the default for the person), or the failure for a
	// client error or a response that cannot be read.
	var wr *wireReply
	switch {
	case errors.As(err, &wr) && wr.failure != nil:
		return nil, *wr.failure
	case wr != nil:
		return wr.raw, nil
	case errors.Is(err, io.EOF), errors.Is(err, mcp.ErrConnectionClosed):
		return nil, failure(situationClientGone, "")
	case err != nil:
		return nil, failure(situationClientError, err.Error())
	case res == nil:
		return nil, failure(situationClientNoResult, "")
	}
	// Only over a transport other than lineTransport does a result reach
	// this point, decoded, validated and with defaults filled in by go-sdk.
	raw, err := json.Marshal(elicitReply{Action: res.Action, Content: res.Content})
	if err != nil { // a string and a map decoded from JSON always marshal
		return nil, failure(situationClientError, err.Error())
	}
	return raw, nil
}

// progress sends notifications/progress every progressEvery while the
// person answers, when the call carries a progress token, so that clients
// which reset their request timeout on progress never give up on a person
// who is thinking. Each message is the core's words (Core.Progress): how
// long the question has waited and, with url, where to answer; with a url
// the first goes out at once. stop ends it and waits: call it as soon as
// the question ended, so that no progress follows its end.
func (p *provider) progress(ctx context.Context, c *call, url string) (stop func()) {
	req := c.req
	token := req.Params.GetProgressToken()
	if token == nil || p.progressEvery <= 0 {
		return func() {}
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	start := time.Now()
	go func() {
		defer close(done)
		t := time.NewTicker(p.progressEvery)
		defer t.Stop()
		for first := true; ; first = false {
			if !first || url == "" {
				select {
				case <-ctx.Done():
					return
				case <-t.C:
				}
			}
			message, err := p.seam.core.Progress(ctx, time.Since(start), url)
			if err != nil {
				p.log.Debug("progress message not written", "err", err)
				continue
			}
			p.notifyProgress(ctx, c, token, message)
		}
	}()
	var once sync.Once
	return func() {
		once.Do(func() {
			cancel()
			<-done
		})
	}
}

// NoticeAsk implements frontdoor.AskNoticer: what happens with a hub the
// question is also in (refused, unreachable, waiting in its inbox) reaches
// the client as a progress notification of the tool call that asked, its
// message the notice. Progress, not a log message (notifications/message):
// it belongs to the call, which the client shows while it waits, as it
// shows the server's waiting words; logging needs the client to have set
// a level first (go-sdk sends nothing until logging/setLevel), this server
// offers no logging capability, and 2026-07-28 deprecates logging
// (SEP-2577). A call without a progress token can be told nothing: the
// notice goes to the server's log.
func (p *provider) NoticeAsk(ctx context.Context, _ *askcore.Call, text string) {
	if c := callFrom(ctx); c != nil {
		p.tell(ctx, c, text)
	}
}

// withdrawn tells the client why its form was withdrawn, where the core
// said why: another surface ended the ask (askcore.FirstReply's cause is
// then the core's answered_elsewhere error: "answered elsewhere (the
// hub's inbox)"), the words the terminal leaves in place of its question.
// A cancel or a stop has none: the client knows.
func (p *provider) withdrawn(ctx context.Context, c *call) {
	var e *askcore.Error
	if errors.As(context.Cause(ctx), &e) {
		// The ask's ctx is done: the call, still open, is not.
		p.tell(context.WithoutCancel(ctx), c, e.Message)
	}
}

// tell sends text to the client in a progress notification of call c
// (see NoticeAsk), or to the server's log when c carries no token.
func (p *provider) tell(ctx context.Context, c *call, text string) {
	token := c.req.Params.GetProgressToken()
	if token == nil {
		p.log.Info("ask_user_question: the client is not told (the call carries no progress token)", "notice", text)
		return
	}
	p.notifyProgress(ctx, c, token, text)
}

// notifyProgress sends message as call c's next progress notification
// (token is c's progress token), whoever sends it: the waiting words and
// a hub's notices share c's count.
func (p *provider) notifyProgress(ctx context.Context, c *call, token any, message string) {
	err := c.req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: token, Progress: float64(c.progressed.Add(1)), Message: message})
	if err != nil && ctx.Err() == nil {
		p.log.Debug("progress notification not sent", "err", err)
	}
}

// ToolCall is the MCP tool call that a provider's ctx belongs to: a
// provider registered on the server's service reads the client, the
// request's authentication (Extra.TokenInfo over HTTP) and the session
// there. Nil outside a tool call of this package's servers.
func ToolCall(ctx context.Context) *mcp.CallToolRequest {
	if c := callFrom(ctx); c != nil {
		return c.req
	}
	return nil
}

// Progress sends progress notifications for the tool call of ctx (a
// provider's ctx) while a provider of your own waits for the person, as
// the server's own provider does: the core's words, every
// Options.ProgressEvery, when the call carries a progress token; with url
// (where the person answers) the first goes out at once and each names
// it. Call stop as soon as the question ended: no progress follows it.
func (s *Server) Progress(ctx context.Context, url string) (stop func()) {
	c := callFrom(ctx)
	if c == nil {
		return func() {}
	}
	return s.provider.progress(ctx, c, url)
}
