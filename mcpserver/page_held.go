package mcpserver

// page_held.go asks on the answer page for a client on 2026-07-28 that
// advertised URL-mode elicitation. Such a client is sent no
// elicitation/create: the page's URL goes back in an input-required result
// (a URL-mode input request), the call ends at once, and the client calls
// again with the person's reply to it. The page keeps the question between
// the calls, so no call stays open while the person answers: Claude Code
// moves a call still running after 120 s to the background, and delivers
// its result later as an automated event, not the person's answer.
//
// Claude Code 2.1.328 on 2026-07-28 shows the URL with "Open in browser",
// "I'm done, continue" and "Decline": its accept means the person is done
// on the page. Other clients may accept at once, as consent. A retry that
// accepts waits for the page's answer for urlHold, with progress naming
// the page, then sends the URL again: the call never stays open longer.

import (
	"context"
	"errors"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/askcore/askcore"
	"github.com/askcore/askcore/answerpage"
)

// defaultURLHold is how long a retry that accepted the page's URL waits
// for the person's answer there before the URL goes to the client again:
// long enough for a person finishing on the page, well under the 120 s
// after which Claude Code moves a running call to the background.
const defaultURLHold = 30 * time.Second

// defaultHeldFor is how long a question stays held on the page without
// the client calling again for it (whether or not the person answered
// there): a client that went away leaves no question behind for ever.
const defaultHeldFor = time.Hour

// urlStatePrefix begins the requestState of a URL-mode input request; the
// elicitationId and the call's id follow, "url.ELICITATION.ID".
const urlStatePrefix = "url."

// errHeldExpired withdraws a held question whose client never came back.
var errHeldExpired = errors.New("the MCP client did not call again for this question within an hour")

// heldPage is a question on the answer page between the calls of a
// 2026-07-28 client: put there by one call, answered to a later one.
type heldPage struct {
	id       string // the URL-mode request's elicitationId
	call     string // the normalized call: a retry must repeat it
	url      string
	formErr  error // why the form dropped out before the page, if it did
	withdraw context.CancelCauseFunc
	expiry   *time.Timer
	done     chan struct{} // closed when the page's question ended

	mu    sync.Mutex
	sent  time.Time // when the URL last went to the client
	reply askcore.Reply
	err   error
}

// since is how long before now the URL last went to the client (both read
// on the provider's clock, p.now).
func (h *heldPage) since(now time.Time) time.Duration {
	h.mu.Lock()
	defer h.mu.Unlock()
	return now.Sub(h.sent)
}

// outcome is what the page gave, once done is closed.
func (h *heldPage) outcome() (askcore.Reply, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.reply, h.err
}

// heldPages are the held questions by id, and how long they wait.
type heldPages struct {
	mu sync.Mutex
	m  map[string]*heldPage
	// urlHold and heldFor: defaultURLHold and defaultHeldFor, shorter in
	// tests.
	urlHold, heldFor time.Duration
}

func (hp *heldPages) put(h *heldPage) {
	hp.mu.Lock()
	defer hp.mu.Unlock()
	if hp.m == nil {
		hp.m = map[string]*heldPage{}
	}
	hp.m[h.id] = h
}

// take removes and returns the question held as id for q: nil when there
// is none (it expired, the process started since, or the id is not ours)
// or the retry asks another call (that one is withdrawn).
func (hp *heldPages) take(id string, q *askcore.Call) *heldPage {
	hp.mu.Lock()
	h := hp.m[id]
	delete(hp.m, id)
	hp.mu.Unlock()
	if h == nil {
		return nil
	}
	if h.call != string(q.JSON()) {
		h.expiry.Stop()
		h.withdraw(errors.New("the MCP client called again with other arguments"))
		return nil
	}
	return h
}

// drop forgets h (it ended, or its time is up).
func (hp *heldPages) drop(h *heldPage) {
	hp.mu.Lock()
	defer hp.mu.Unlock()
	if hp.m[h.id] == h {
		delete(hp.m, h.id)
	}
}

// heldID is the id of the held question a retry replies to: its
// requestState names one and it carries a reply.
func heldID(req *mcp.CallToolRequest) (string, bool) {
	rest, ok := strings.CutPrefix(req.Params.RequestState, urlStatePrefix)
	id, _, _ := strings.Cut(rest, ".")
	if !ok || id == "" {
		return "", false
	}
	_, replied := req.Params.InputResponses[inputKey]
	return id, replied
}

// holdOnPage puts q on the page beyond this call and sends its URL to the
// client as a URL-mode input request.
func (p *provider) holdOnPage(c *call, q *askcore.Call, formErr error) (askcore.Reply, error) {
	// The client opens the page itself: the page opens no browser.
	page, end, err := p.page.Begin(answerpage.WithBrowser(false))
	if err != nil {
		return askcore.Reply{}, err
	}
	url, err := page.Start()
	if err != nil {
		end()
		return askcore.Reply{}, failure(situationProviderFailed, err.Error())
	}
	ctx, withdraw := context.WithCancelCause(p.life)
	h := &heldPage{id: newOpaqueID(), call: string(q.JSON()), url: url, formErr: formErr,
		withdraw: withdraw, done: make(chan struct{})}
	h.expiry = time.AfterFunc(p.held.heldFor, func() {
		p.held.drop(h)
		withdraw(errHeldExpired)
	})
	go func() {
		defer end()
		r, err := page.Ask(ctx, q)
		h.mu.Lock()
		h.reply, h.err = r, err
		h.mu.Unlock()
		close(h.done)
		if err != nil {
			// Withdrawn, stopped or failed: nothing to hand a retry.
			h.expiry.Stop()
			p.held.drop(h)
		}
	}()
	p.log.Info("ask_user_question: asking on the answer page, its URL in an input request")
	return p.sendURL(c, q, h, "")
}

// sendURL ends this call with h's URL as a URL-mode input request, its
// message lead before the question.
func (p *provider) sendURL(c *call, q *askcore.Call, h *heldPage, lead string) (askcore.Reply, error) {
	h.mu.Lock()
	h.sent = p.now()
	h.mu.Unlock()
	h.expiry.Reset(p.held.heldFor)
	p.held.put(h)
	c.setInputRequest(&mcp.ElicitParams{Mode: "url", Message: lead + urlMessage(q), URL: h.url, ElicitationID: h.id}, urlStatePrefix+h.id+"."+c.id)
	return askcore.Reply{}, errInputRequired
}

// notYet leads the message of a URL sent again because the page has no
// answer yet.
const notYet = "No answer on the page yet. "

// resumeHeld is a call that carries the client's reply to the URL of the
// question held as id. The surfaces are those of the call that held it:
// the form, which dropped out then (its reason repeated, so that the
// core's no_surface names it), and the page.
func (p *provider) resumeHeld(ctx context.Context, c *call, q *askcore.Call, id string) (askcore.Reply, error) {
	reply, err := inputReply(c.req) // heldID saw that there is one
	if err != nil {
		return askcore.Reply{}, err
	}
	h := p.held.take(id, q)
	var surfaces []askcore.Surface
	if h != nil && h.formErr != nil {
		surfaces = append(surfaces, askcore.Surface{Name: formSurface, Provider: askcore.ProviderFunc(func(context.Context, *askcore.Call) (askcore.Reply, error) {
			return askcore.Reply{}, h.formErr
		})})
	}
	surfaces = append(surfaces, askcore.Surface{Name: pageSurface, Provider: askcore.ProviderFunc(func(ctx context.Context, q *askcore.Call) (askcore.Reply, error) {
		return p.awaitHeld(ctx, c, q, h, reply)
	})})
	return askcore.FirstReply(surfaces...).Ask(ctx, q)
}

// awaitHeld reads the client's reply to h's URL. An accept waits for
// the page's answer for urlHold, then sends the URL again. Any other
// reply withdraws the question, unless the person answered on the page
// meanwhile, and is the core's to judge as a reply to a URL-mode request
// (a cancel no person could have given is not_shown, as for a form). With
// no h (expired, or from before this process), an accept asks afresh, and
// anything else is judged as the person's.
func (p *provider) awaitHeld(ctx context.Context, c *call, q *askcore.Call, h *heldPage, reply *inputResponse) (askcore.Reply, error) {
	accepted := reply.action == "accept"
	if h == nil {
		if accepted {
			return p.holdOnPage(c, q, nil)
		}
		r, _, _, err := judge(ctx, c, q, reply.raw, 0, nil)
		return r, err
	}
	if !accepted {
		elapsed := h.since(p.now())
		h.expiry.Stop()
		h.withdraw(errConsentRefused)
		<-h.done
		if r, err := h.outcome(); err == nil {
			return r, nil
		}
		r, _, _, err := judge(ctx, c, q, reply.raw, 0, p.delivery(c, askcore.DeliveryURL, elapsed))
		return r, err
	}
	stop := p.progress(ctx, c, h.url)
	defer stop()
	wait := time.NewTimer(p.held.urlHold)
	defer wait.Stop()
	select {
	case <-h.done:
		h.expiry.Stop()
		return h.outcome()
	case <-wait.C:
		stop()
		return p.sendURL(c, q, h, notYet)
	case <-ctx.Done():
		// The call was cancelled, the server stopped, or the person
		// answered elsewhere: the page says which.
		cause := context.Cause(ctx)
		h.expiry.Stop()
		h.withdraw(cause)
		return askcore.Reply{}, cause
	}
}
