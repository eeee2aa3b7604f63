// Package interaction is the seam between an agent that needs to ask a
// person something and the front door that can reach one.
//
// A front door registers one Provider (a terminal prompt, an ACP form
// elicitation, ...). Agents call Service.Ask with the model's raw request; the
// service normalizes it through the core, refuses at once when nobody can ask
// (NO_PROVIDER: never an empty answer), and hands the normalized Question to
// the provider together with the identity of the asking agent so the
// provider can route it.
package interaction

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/askcore/askcore/core"
	"github.com/askcore/askcore/engine"
)

// Identity says who is asking, so a provider can route the question (the ACP
// front door maps AgentID to its session).
type Identity struct {
	AgentID    string
	SessionID  string
	ToolCallID string
}

// Question is a normalized request on its way to a person.
type Question struct {
	// Request is the normalized request, decoded.
	Request core.Request
	// Raw is the normalized request as the core wrote it: pass it back to
	// the core (present, resolve, elicitation) unchanged.
	Raw  json.RawMessage
	From Identity
}

// Provider reaches a person. Ask must return when ctx is done (the ask was
// aborted, timed out or the provider was disposed); the service then reports
// the reason, whatever error Ask returned.
type Provider interface {
	Ask(ctx context.Context, q Question) (engine.Result, error)
}

// ProviderFunc adapts a function to Provider.
type ProviderFunc func(ctx context.Context, q Question) (engine.Result, error)

// Ask calls f.
func (f ProviderFunc) Ask(ctx context.Context, q Question) (engine.Result, error) { return f(ctx, q) }

// AskOptions tune one Ask.
type AskOptions struct {
	// From identifies the asking agent for routing.
	From Identity
	// Timeout, when positive, ends the ask with ASK_TIMEOUT. Off by default:
	// nothing is ever chosen on a person's behalf.
	Timeout time.Duration
}

// Service holds the one active provider and asks through it.
type Service struct {
	client engine.Client

	mu     sync.Mutex
	active *registration
}

type registration struct {
	provider Provider
	ctx      context.Context // done once disposed
	cancel   context.CancelCauseFunc
}

var (
	errDisposed = errors.New("the provider was disposed")
	errTimeout  = errors.New("ask timed out")
)

// NewService returns a service whose rules run in client's core.
func NewService(client engine.Client) *Service {
	return &Service{client: client}
}

// Register makes p the provider. It fails with DUPLICATE_PROVIDER while
// another provider is registered. dispose unregisters p and rejects its
// pending questions with ASK_ABORTED; it is safe to call more than once.
func (s *Service) Register(p Provider) (dispose func(), err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.active != nil {
		return nil, core.NewError(core.CodeDuplicateProvider,
			"a provider is already registered; dispose it before registering another")
	}
	ctx, cancel := context.WithCancelCause(context.Background())
	reg := &registration{provider: p, ctx: ctx, cancel: cancel}
	s.active = reg
	return func() {
		s.mu.Lock()
		if s.active == reg {
			s.active = nil
		}
		s.mu.Unlock()
		reg.cancel(errDisposed)
	}, nil
}

// Ask normalizes request (the model's raw ask_user_question arguments)
// through the core and asks the registered provider. Errors are
// *core.HarnessError: ASK_ABORTED when ctx is done (before the provider is
// reached, if it already was), INVALID_REQUEST, NO_PROVIDER, ASK_TIMEOUT,
// whatever the provider returned, and ASK_FAILED for a provider fault.
func (s *Service) Ask(ctx context.Context, request json.RawMessage, opts AskOptions) (engine.Result, error) {
	if err := ctx.Err(); err != nil {
		return engine.Result{}, aborted(ctx)
	}
	req, raw, err := s.client.Normalize(ctx, request)
	if err != nil {
		return engine.Result{}, asHarness(err)
	}
	s.mu.Lock()
	reg := s.active
	s.mu.Unlock()
	if reg == nil {
		return engine.Result{}, core.NewError(core.CodeNoProvider,
			"no one can be asked here: no user-interaction provider is registered; continue without asking or stop and report")
	}

	askCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	stop := context.AfterFunc(reg.ctx, func() { cancel(context.Cause(reg.ctx)) })
	defer stop()
	if opts.Timeout > 0 {
		var cancelTimeout context.CancelFunc
		askCtx, cancelTimeout = context.WithTimeoutCause(askCtx, opts.Timeout, errTimeout)
		defer cancelTimeout()
	}

	res, err := callProvider(askCtx, reg.provider, Question{Request: req, Raw: raw, From: opts.From})
	if err == nil && len(res.Raw) == 0 {
		// A provider that returns neither an answer nor an error must not
		// become an empty answer for the model.
		err = core.NewError(core.CodeAskFailed, "the provider returned no answer")
	}
	if err == nil {
		return res, nil
	}
	switch cause := context.Cause(askCtx); {
	case errors.Is(cause, errTimeout):
		return engine.Result{}, core.NewError(core.CodeAskTimeout,
			fmt.Sprintf("no answer within %s; nothing was chosen", opts.Timeout))
	case errors.Is(cause, errDisposed):
		return engine.Result{}, core.NewError(core.CodeAskAborted, "the question was withdrawn: "+errDisposed.Error())
	case ctx.Err() != nil:
		return engine.Result{}, aborted(ctx)
	}
	return engine.Result{}, asHarness(err)
}

// callProvider turns a provider panic into ASK_FAILED: one broken front door
// must not take the agent down.
func callProvider(ctx context.Context, p Provider, q Question) (res engine.Result, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = core.NewError(core.CodeAskFailed, fmt.Sprintf("the provider failed: %v", r))
		}
	}()
	return p.Ask(ctx, q)
}

func aborted(ctx context.Context) error {
	msg := "the question was aborted"
	if cause := context.Cause(ctx); cause != nil && !errors.Is(cause, context.Canceled) {
		msg += ": " + cause.Error()
	}
	return core.NewError(core.CodeAskAborted, msg)
}

// asHarness keeps structured errors as they are and wraps anything else as
// ASK_FAILED, so the model always receives {name, code, message}.
func asHarness(err error) error {
	var he *core.HarnessError
	if errors.As(err, &he) {
		return he
	}
	return core.NewError(core.CodeAskFailed, err.Error())
}
