package mcpserver

// page.go asks on the answer page (package answerpage) where the client
// shows no form: through the client's URL-mode elicitation when it
// advertises one, else the page alone (the URL on stderr, in the progress
// notifications' message, and in the default browser on a desktop).
//
// go-sdk v1.8.0 has URL mode (ElicitParams Mode "url" with URL and
// ElicitationID; ServerSession.NotifyElicitationComplete), so nothing
// goes around it; lineTransport hands the client's reply over raw, as for a
// form. On 2026-07-28 it sends no elicitation/create: the URL goes in an
// input request and the page keeps the question between the calls
// (page_held.go). It sends the notifications/cancelled of a request whose
// ctx ended in the background, after the call has returned, with the
// reason "context canceled" (so a client may hear it after
// notifications/elicitation/complete).

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/askcore/askcore"
	"github.com/askcore/askcore/answerpage"
	"github.com/askcore/askcore/internal/rpcline"
)

// pageReaches reports whether the answer page can reach the person of call
// c: through the client's URL-mode request (which the person accepts or
// not), a browser the page opens, or an address printed where the person
// sees it (Options.URLShown). Elsewhere a question on the page would wait
// unseen: it is not asked there.
func (p *provider) pageReaches(c *call) bool {
	return urlElicitation(c.req.ClientCapabilities()) || p.urlShown || p.page.OpensBrowser()
}

// urlElicitation reports whether the client advertised URL-mode
// elicitation (capabilities elicitation.url).
func urlElicitation(caps *mcp.ClientCapabilities) bool {
	return caps != nil && caps.Elicitation != nil && caps.Elicitation.URL != nil
}

// askPage asks q on the answer page. A client that advertised URL-mode
// elicitation is sent the page's URL through it, for its own consent
// dialog: on 2026-07-28 in an input request, the question held on the page
// for the client's next call (holdOnPage; formErr is why the form dropped
// out, if it did); before, in elicitation/create. Every call's progress
// notifications carry the URL. What the person gives on the page (picks,
// or a decline) goes back to the seam, which has the core resolve it. When
// ctx is done (notifications/cancelled, a timeout, a signal) the page
// withdraws the question and says why.
func (p *provider) askPage(ctx context.Context, c *call, q *askcore.Call, formErr error) (askcore.Reply, error) {
	viaClient := urlElicitation(c.req.ClientCapabilities())
	if viaClient && inputRequests(c.req) {
		return p.holdOnPage(c, q, formErr)
	}
	// The first question makes the page. It opens no browser when the
	// client opens the page itself (URL mode): a server serves clients
	// alike, so the first question says for all.
	var extra []answerpage.Option
	if viaClient {
		extra = append(extra, answerpage.WithBrowser(false))
	}
	page, end, err := p.page.Begin(extra...)
	if err != nil {
		return askcore.Reply{}, err
	}
	defer end()
	url, err := page.Start()
	if err != nil {
		return askcore.Reply{}, failure(situationProviderFailed, err.Error())
	}
	p.log.Info("ask_user_question: asking on the answer page", "url_mode", viaClient)
	stop := p.progress(ctx, c, url)
	defer stop()
	if !viaClient {
		return page.Ask(ctx, q)
	}
	return p.askURL(ctx, c, q, page, url, stop)
}

// errConsentRefused withdraws the page's question when the person refused,
// in the client, to open the page.
var errConsentRefused = errors.New("the page was not opened in the MCP client")

// askURL asks on the page and sends its URL to the client as a URL-mode
// elicitation (elicitation/create, mode "url", with a fresh elicitationId).
// The question is on the page from the start, so an answer there counts
// even before the client's consent. The client's accept is only its
// consent: the answer is the page's, after which the client hears
// notifications/elicitation/complete (and the consent request, if it is
// still open, is cancelled). A decline, a cancel or any other reply is
// the core's to judge (ASK_DECLINED, ASK_CANCELLED, ASK_FAILED), and a
// client error fails the question as for a form; either way the question
// leaves the page.
//
// A decline or cancel no person could have given (the core's not_shown:
// Codex's TUI declines URL mode in 9 ms) drops the page out. stop ends the
// progress notifications, at once when the question ends.
func (p *provider) askURL(ctx context.Context, c *call, q *askcore.Call, page *answerpage.Server, url string, stop func()) (askcore.Reply, error) {
	type outcome struct {
		reply askcore.Reply
		err   error
	}
	pageCtx, withdraw := context.WithCancelCause(ctx)
	defer withdraw(nil)
	answered := make(chan outcome, 1)
	go func() {
		r, err := page.Ask(pageCtx, q)
		answered <- outcome{r, err}
	}()

	id := newOpaqueID()
	consentCtx, dropConsent := context.WithCancel(ctx)
	defer dropConsent()
	consented := make(chan outcome, 1)
	sent := p.now()
	go func() {
		res, err := c.req.Session.Elicit(consentCtx, &mcp.ElicitParams{
			Mode: "url", Message: urlMessage(q), URL: url, ElicitationID: id,
		})
		consented <- outcome{err: consentReply(res, err)}
	}()

	// complete tells the client the interaction is over, once the
	// consent request is settled (cancelled if still open).
	complete := func(pending bool) {
		if pending {
			dropConsent()
			<-consented
		}
		err := c.req.Session.NotifyElicitationComplete(context.WithoutCancel(ctx), &mcp.ElicitationCompleteParams{ElicitationID: id})
		if err != nil {
			p.log.Debug("notifications/elicitation/complete not sent", "err", err)
		}
	}
	pending := true
	for {
		select {
		case o := <-answered:
			stop()
			complete(pending)
			return o.reply, o.err
		case o := <-consented:
			pending = false
			elapsed := p.now().Sub(sent)
			if o.err == nil {
				p.log.Debug("ask_user_question: the client opened the answer page")
				consented = nil
				continue
			}
			// No consent: the question leaves the page, unless the
			// person answered there meanwhile.
			stop()
			withdraw(errConsentRefused)
			page := <-answered
			if page.err == nil {
				complete(false)
				return page.reply, nil
			}
			var refused consentRefusal
			if errors.As(o.err, &refused) {
				r, _, _, err := judge(ctx, c, q, refused.raw, 0, p.delivery(c, askcore.DeliveryURL, elapsed))
				return r, err
			}
			return askcore.Reply{}, o.err
		}
	}
}

// consentRefusal is the client's reply to the URL-mode request when it is
// not an accept: the core judges it as a form reply.
type consentRefusal struct{ raw json.RawMessage }

func (consentRefusal) Error() string { return "the client did not open the page" }

// consentReply reads what Elicit returned for the URL-mode request: nil
// for an accept (the person consented to open the page), a consentRefusal
// holding any other reply as the client sent it, or the failure of a
// client error, an unreadable reply or a lost connection (as for a form).
func consentReply(res *mcp.ElicitResult, err error) error {
	var wr *wireReply
	switch {
	case errors.As(err, &wr) && wr.failure != nil:
		return *wr.failure
	case wr != nil:
		var r struct {
			Action json.RawMessage `json:"action"`
		}
		if json.Unmarshal(wr.raw, &r) == nil && string(r.Action) == `"accept"` {
			return nil
		}
		return consentRefusal{wr.raw}
	case err == nil && res == nil:
		return failure(situationClientNoResult, "")
	case err == nil:
		// Only over a transport other than lineTransport, which hands
		// every reply over raw: go-sdk decoded it.
		if res.Action == "accept" {
			return nil
		}
		raw, err := json.Marshal(elicitReply{Action: res.Action})
		if err != nil { // a string always marshals
			return failure(situationClientError, err.Error())
		}
		return consentRefusal{raw}
	case errors.Is(err, io.EOF), errors.Is(err, mcp.ErrConnectionClosed):
		return failure(situationClientGone, "")
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return err
	}
	return failure(situationClientError, err.Error())
}

// urlMessage is the message of the URL-mode request, shown beside the URL
// in the client's consent dialog: the question (each question of a batch
// on a line of its own), as the core normalized it.
func urlMessage(q *askcore.Call) string {
	if len(q.Questions) == 1 && !q.Batch {
		return "Answer in your browser: " + rpcline.Cut(q.Questions[0].Question, maxURLMessage)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Answer %d questions in your browser:", len(q.Questions))
	for i, qq := range q.Questions {
		fmt.Fprintf(&b, "\n%d. %s", i+1, rpcline.Cut(qq.Question, maxURLMessage/len(q.Questions)))
	}
	return b.String()
}

// maxURLMessage bounds the question text in a URL-mode request: the
// client shows it in a consent dialog; the page shows the question whole.
const maxURLMessage = 1000

// newOpaqueID is an id nobody can guess, unique in the process: a URL-mode
// request's elicitationId, a tool call's id where the host gives none.
func newOpaqueID() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b) // crypto/rand.Read does not fail (Go 1.24)
	return hex.EncodeToString(b)
}
