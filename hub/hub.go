// Package hub is an askcore.Provider that asks through an askcore-hub:
// the question outlives the agent's process and reaches the person in the
// hub's inbox, on any device.
//
// The provider posts the model's arguments text with the call's tool call
// id and session id, then long-polls until the person replies; the reply
// comes back as Lines, Picks, FormReply or Decline, which the agent's own
// core resolves. An agent that restarts and replays the same tool call
// attaches to the same ask. A lost hub is retried with a capped backoff;
// a cancelled ask is withdrawn (DELETE), unless the cause is
// askcore.ErrContinues (the call is made again, and attaches). When the agent's deadline (set
// by the hub's operator) passes, the ask ends with ASK_TIMEOUT; nothing
// ever answers for the person.
//
//	p := hub.New("https://hub.example.com", os.Getenv("ASKCORE_HUB_TOKEN"))
//	dispose, err := service.Register(p)
package hub

import (
	"bytes"
	"context"
	crand "crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/askcore/askcore"
	"github.com/askcore/askcore/hub/internal/wire"
)

// Provider asks through a hub. It is safe for concurrent use.
type Provider struct {
	base   string
	token  string
	client *http.Client
	// maxBackoff caps the wait between attempts while the hub cannot be
	// reached.
	maxBackoff time.Duration
	wait       int // seconds of each long poll
}

// Option tunes a Provider.
type Option func(*Provider)

// WithHTTPClient sends the requests with c (default: a client without a
// timeout of its own; each long poll is bounded by the hub).
func WithHTTPClient(c *http.Client) Option { return func(p *Provider) { p.client = c } }

// WithMaxBackoff caps the wait between attempts (default 10s).
func WithMaxBackoff(d time.Duration) Option { return func(p *Provider) { p.maxBackoff = d } }

// WithPollSeconds sets the length of each long poll, 1 to 60 (default 60).
func WithPollSeconds(n int) Option {
	return func(p *Provider) { p.wait = min(max(n, 1), 60) }
}

// New returns a provider for the hub at baseURL (e.g.
// "http://127.0.0.1:7433") with an agent token from askcore-hub agent add.
func New(baseURL, token string, opts ...Option) *Provider {
	p := &Provider{base: strings.TrimSuffix(baseURL, "/"), token: token, client: &http.Client{}, maxBackoff: 10 * time.Second, wait: 60}
	for _, o := range opts {
		o(p)
	}
	return p
}

// Ask puts call to the person through the hub and returns their reply.
func (p *Provider) Ask(ctx context.Context, call *askcore.Call) (askcore.Reply, error) {
	return p.ask(ctx, call, Watch{})
}

// Watch is what a front door that asks through the hub beside a surface of
// its own (askcore.FirstReply) learns while an ask is in the hub, so that
// the person hears on that surface what is happening with the hub. Every
// field may be nil.
type Watch struct {
	// AnsweredIn, called when the ask is withdrawn, names the surface
	// that got the answer ("the terminal"; "" when none did): the hub's
	// inbox says the question was answered there.
	AnsweredIn func() string
	// Unreachable is called when an attempt to reach the hub failed and
	// will be tried again (the hub is down, the network is), with why.
	Unreachable func(err error)
	// Reached is called when the hub answered again after Unreachable.
	Reached func()
	// Held is called once the hub holds the ask (it is in the inbox).
	Held func()
}

// Watched returns a provider that asks like p and tells w what happens.
func (p *Provider) Watched(w Watch) askcore.Provider {
	return askcore.ProviderFunc(func(ctx context.Context, call *askcore.Call) (askcore.Reply, error) {
		return p.ask(ctx, call, w)
	})
}

// Refused is the error of an ask the hub refused (a token it does not
// know, an ask that is not this agent's, other arguments under the same
// ids): trying again will not change it. It unwraps to the
// askcore.Failure the core words for the model.
type Refused struct{ Failure askcore.Failure }

func (r Refused) Error() string { return r.Failure.Error() }
func (r Refused) Unwrap() error { return r.Failure }

func (p *Provider) ask(ctx context.Context, call *askcore.Call, w Watch) (askcore.Reply, error) {
	answeredIn := w.AnsweredIn
	req := wire.CreateAsk{Arguments: call.Arguments(), ToolCallID: call.From.ToolCallID, SessionID: call.From.SessionID}
	if req.ToolCallID == "" {
		// Without the model's id a replay cannot be recognised: this ask
		// is this process's alone.
		var b [16]byte
		_, _ = crand.Read(b[:])
		req.ToolCallID = "askcore-" + hex.EncodeToString(b[:])
	}
	body, err := json.Marshal(req)
	if err != nil {
		return askcore.Reply{}, err
	}
	var ask wire.Ask
	if err := p.retry(ctx, w, func() error { return p.do(ctx, http.MethodPost, "/v1/asks", body, &ask) }); err != nil {
		if ctx.Err() != nil && !continues(ctx) {
			// The ask may exist without its id reaching us: the same ids
			// name it (the hub answers the existing ask), so withdraw that.
			wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
			defer cancel()
			if p.do(wctx, http.MethodPost, "/v1/asks", body, &ask) == nil {
				p.withdraw(ctx, ask.ID, answeredIn)
			}
		}
		return askcore.Reply{}, err
	}
	if w.Held != nil && ask.State == "pending" {
		w.Held()
	}
	for {
		if ask.State != "pending" {
			return wire.Outcome(ask)
		}
		path := "/v1/asks/" + url.PathEscape(ask.ID) + fmt.Sprintf("?wait=%d", p.wait)
		err := p.retry(ctx, w, func() error { return p.do(ctx, http.MethodGet, path, nil, &ask) })
		if err != nil {
			if ctx.Err() != nil && !continues(ctx) {
				p.withdraw(ctx, ask.ID, answeredIn)
			}
			return askcore.Reply{}, err
		}
	}
}

// continues reports whether the ask was ended because the question goes
// on in a later call (askcore.ErrContinues): the ask stays open for that
// call, which attaches to it by its tool call id.
func continues(ctx context.Context) bool {
	return errors.Is(context.Cause(ctx), askcore.ErrContinues)
}

// withdraw tells the hub the ask is given up, on its own short deadline
// (ctx is done already), and where the person answered instead when
// answeredIn knows.
func (p *Provider) withdraw(ctx context.Context, id string, answeredIn func() string) {
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	var body []byte
	if answeredIn != nil {
		if where := answeredIn(); wire.ValidSurfaceName(where) {
			body, _ = json.Marshal(wire.Withdrawal{AnsweredIn: where})
		}
	}
	var a wire.Ask
	_ = p.do(wctx, http.MethodDelete, "/v1/asks/"+url.PathEscape(id), body, &a)
}

// retry runs f until it succeeds, is refused, or ctx ends, waiting a
// doubling, jittered, capped time between attempts. w hears when the hub
// cannot be reached and when it is reached again.
func (p *Provider) retry(ctx context.Context, w Watch, f func() error) error {
	backoff := 100 * time.Millisecond
	lost := false
	for {
		err := f()
		var r Refused
		switch {
		case err == nil:
			if lost && w.Reached != nil {
				w.Reached()
			}
			return nil
		case errors.As(err, &r):
			return r
		case ctx.Err() != nil:
			return ctx.Err()
		}
		if !lost && w.Unreachable != nil {
			w.Unreachable(err)
		}
		lost = true
		t := time.NewTimer(backoff/2 + rand.N(backoff/2+1))
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
		backoff = min(2*backoff, p.maxBackoff)
	}
}

// do sends one request and decodes a 200 or 201 into out. A refusal the
// hub will repeat (4xx but 408 and 429) is a refusal, worded as the
// hub's error; anything else is for retry.
func (p *Provider) do(ctx context.Context, method, path string, body []byte, out any) error {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, p.base+path, rd)
	if err != nil {
		return Refused{askcore.Failure{Situation: askcore.SituationProviderFailed, Detail: err.Error()}}
	}
	req.Header.Set("Authorization", "Bearer "+p.token)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := p.client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 8<<20))
	if err != nil {
		return err
	}
	switch {
	case resp.StatusCode == http.StatusOK || resp.StatusCode == http.StatusCreated:
		if err := json.Unmarshal(data, out); err != nil {
			return fmt.Errorf("hub: unreadable answer: %w", err)
		}
		return nil
	case resp.StatusCode >= 400 && resp.StatusCode < 500 && resp.StatusCode != http.StatusRequestTimeout && resp.StatusCode != http.StatusTooManyRequests:
		var e wire.Error
		detail := fmt.Sprintf("the hub refused the ask (%s)", resp.Status)
		if json.Unmarshal(data, &e) == nil && e.Code != "" {
			detail = fmt.Sprintf("the hub refused the ask: %s: %s", e.Code, e.Message)
		}
		return Refused{askcore.Failure{Situation: askcore.SituationProviderFailed, Detail: detail}}
	}
	return fmt.Errorf("hub: %s", resp.Status)
}
