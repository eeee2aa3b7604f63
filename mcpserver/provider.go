package mcpserver

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/askcore/askcore"
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

	mu sync.Mutex
	// inputRequest is set by the provider when the client negotiated
	// 2026-07-28 and has not answered yet: the handler then returns it as
	// an input-required result instead of the seam's verdict.
	inputRequest *mcp.ElicitParams
}

type callKey struct{}

func withCall(ctx context.Context, c *call) context.Context {
	return context.WithValue(ctx, callKey{}, c)
}

func callFrom(ctx context.Context) *call {
	c, _ := ctx.Value(callKey{}).(*call)
	return c
}

func (c *call) setInputRequest(p *mcp.ElicitParams) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.inputRequest = p
}

// takeInputRequest returns the form to send back as an input request, if
// the provider set one. (The seam runs the provider in a goroutine of its
// own, which may outlive an aborted Ask: hence the lock.)
func (c *call) takeInputRequest() *mcp.ElicitParams {
	c.mu.Lock()
	defer c.mu.Unlock()
	p := c.inputRequest
	c.inputRequest = nil
	return p
}

// errInputRequired ends the seam's Ask when the form goes back to the
// client as an input request; the handler ignores the seam's error then.
var errInputRequired = errors.New("the form was returned to the client as an input request")

// provider is the MCP askcore.Provider: it turns a question into a form
// elicitation to the client of the tool call that asked it. One provider
// serves every call of the process; each call carries its own state in ctx.
type provider struct {
	seam *seam
	log  *slog.Logger
	// progressEvery is the interval of progress notifications while a
	// person answers a legacy elicitation or on the answer page (0: none).
	progressEvery time.Duration
	// web is when the answer page is used; pages is the page.
	web   frontdoor.WebMode
	pages *pages
}

// Ask implements interaction.Provider. The core builds the form and judges
// the reply; this method carries bytes. When ctx is done it returns ctx's
// cause and the service reports ASK_ABORTED (or ASK_TIMEOUT).
func (p *provider) Ask(ctx context.Context, q *askcore.Call) (askcore.Reply, error) {
	c := callFrom(ctx)
	if c == nil {
		return askcore.Reply{}, failure(situationProviderFailed, "a question reached the MCP provider outside a tool call")
	}
	form := formElicitation(c.req.ClientCapabilities())
	switch {
	case p.web == frontdoor.WebAlways, p.web == frontdoor.WebAuto && !form:
		return p.askPage(ctx, c, q)
	case !form:
		return askcore.Reply{}, failure(situationNoFormSupport, "")
	}
	if inputRequests(c.req) {
		return p.askInResult(ctx, c, q)
	}
	return p.askLegacy(ctx, c, q)
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
// the client in an input-required result (the call ends at once). Second
// round: the client retries the call with the same arguments and its reply
// under inputKey, which the core judges.
func (p *provider) askInResult(ctx context.Context, c *call, q *askcore.Call) (askcore.Reply, error) {
	if resp, ok := c.req.Params.InputResponses[inputKey]; ok {
		er, ok := resp.(*mcp.ElicitResult)
		if !ok || er == nil {
			return askcore.Reply{}, failure(situationClientError,
				"the input response "+inputKey+" is not an elicitation result (it has no action)")
		}
		return reply(elicitReply{Action: er.Action, Content: er.Content})
	}
	msg, schema, err := p.seam.form(ctx, q)
	if err != nil {
		return askcore.Reply{}, err
	}
	c.setInputRequest(&mcp.ElicitParams{Mode: "form", Message: msg, RequestedSchema: schema})
	return askcore.Reply{}, errInputRequired
}

// askLegacy is the elicitation/create path (protocol 2025-11-25 and older):
// the call stays open while the person answers, with progress
// notifications when the call carries a progress token.
func (p *provider) askLegacy(ctx context.Context, c *call, q *askcore.Call) (askcore.Reply, error) {
	msg, schema, err := p.seam.form(ctx, q)
	if err != nil {
		return askcore.Reply{}, err
	}
	stop := p.progress(ctx, c.req, "")
	res, err := c.req.Session.Elicit(ctx, &mcp.ElicitParams{Mode: "form", Message: msg, RequestedSchema: schema})
	stop()
	if ctx.Err() != nil {
		return askcore.Reply{}, context.Cause(ctx)
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
		return askcore.Reply{}, *wr.failure
	case wr != nil:
		return askcore.FormReply(wr.raw), nil
	case errors.Is(err, io.EOF), errors.Is(err, mcp.ErrConnectionClosed):
		return askcore.Reply{}, failure(situationClientGone, "")
	case err != nil:
		return askcore.Reply{}, failure(situationClientError, err.Error())
	case res == nil:
		return askcore.Reply{}, failure(situationClientNoResult, "")
	}
	// Only over a transport other than lineTransport does a result reach
	// this point, decoded, validated and with defaults filled in by go-sdk.
	return reply(elicitReply{Action: res.Action, Content: res.Content})
}

// progress sends notifications/progress every progressEvery while the
// person answers, when the call carries a progress token, so that clients
// which reset their request timeout on progress never give up on a person
// who is thinking. With a message (the answer page's URL), each
// notification carries it, and the first goes out at once. stop ends it and
// waits.
func (p *provider) progress(ctx context.Context, req *mcp.CallToolRequest, message string) (stop func()) {
	token := req.Params.GetProgressToken()
	if token == nil || p.progressEvery <= 0 {
		return func() {}
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(p.progressEvery)
		defer t.Stop()
		for n := 1; ; n++ {
			if n > 1 || message == "" {
				select {
				case <-ctx.Done():
					return
				case <-t.C:
				}
			}
			err := req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: token, Progress: float64(n), Message: message})
			if err != nil && ctx.Err() == nil {
				p.log.Debug("progress notification not sent", "err", err)
			}
		}
	}()
	return func() {
		cancel()
		<-done
	}
}
