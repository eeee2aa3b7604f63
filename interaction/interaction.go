// Package interaction is the seam between an agent that needs to ask a
// person something and the front door that can reach one.
//
// A front door registers one Provider (a terminal prompt, an ACP or MCP form
// elicitation, ...). Agents call Service.Ask with the model's raw arguments
// text; the service has the core parse and normalize them, refuses at once
// when nobody can ask (NO_PROVIDER: never an empty answer), and hands the
// normalized Question to the provider together with the identity of the
// asking agent so the provider can route it.
//
// Every error Ask returns is a *core.HarnessError written by the core (Raw
// set): the rules' own verdicts, and for the situations around them (no
// provider, an abort at any stage, a timeout, a disposed or broken
// provider, an engine fault) the core's op "fail". The JS seam
// (hostjs/lib/interaction.js) meets the same situations with the same
// bytes; testdata/seam pins both.
package interaction

import (
	"context"
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

// Question is a normalized call on its way to a person.
type Question struct {
	// Call is the normalized call: Call.Raw as the core wrote it (pass it
	// back to the core unchanged: present, resolve, elicitation), and its
	// questions decoded.
	engine.Call
	From Identity
}

// Provider reaches a person. Ask should return when ctx is done (the ask was
// aborted, timed out or the provider was disposed); the service does not
// wait for it then: it reports the reason at once and drops whatever Ask
// returns later.
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

// Client is the engine client the service asks the core through.
func (s *Service) Client() engine.Client { return s.client }

// Register makes p the provider. It fails with DUPLICATE_PROVIDER while
// another provider is registered. dispose unregisters p and rejects its
// pending questions with ASK_ABORTED at once; it is safe to call more than
// once.
func (s *Service) Register(p Provider) (dispose func(), err error) {
	s.mu.Lock()
	if s.active != nil {
		s.mu.Unlock()
		return nil, s.fail(context.Background(), core.Failure{Situation: core.SituationDuplicateProvider})
	}
	ctx, cancel := context.WithCancelCause(context.Background())
	reg := &registration{provider: p, ctx: ctx, cancel: cancel}
	s.active = reg
	s.mu.Unlock()
	return func() {
		s.mu.Lock()
		if s.active == reg {
			s.active = nil
		}
		s.mu.Unlock()
		reg.cancel(errDisposed)
	}, nil
}

// Ask has the core parse and normalize arguments (the model's raw
// ask_user_question arguments, as text) and asks the registered provider.
// Errors are *core.HarnessError: ASK_ABORTED when ctx is done at any stage
// (or the provider is disposed), INVALID_REQUEST, NO_PROVIDER, ASK_TIMEOUT,
// whatever the provider returned, and ASK_FAILED for a provider or engine
// fault.
func (s *Service) Ask(ctx context.Context, arguments string, opts AskOptions) (engine.Result, error) {
	if ctx.Err() != nil {
		return engine.Result{}, s.aborted(ctx)
	}
	call, err := s.client.NormalizeArguments(ctx, arguments)
	// A ctx that ended while the core normalized is the caller's abort,
	// whatever the engine made of it (it gives up with a host error).
	if ctx.Err() != nil {
		return engine.Result{}, s.aborted(ctx)
	}
	if err != nil {
		return engine.Result{}, s.harness(ctx, err)
	}
	s.mu.Lock()
	reg := s.active
	s.mu.Unlock()
	if reg == nil {
		return engine.Result{}, s.fail(ctx, core.Failure{Situation: core.SituationNoProvider})
	}

	askCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	stop := context.AfterFunc(reg.ctx, func() { cancel(errDisposed) })
	defer stop()
	if opts.Timeout > 0 {
		var cancelTimeout context.CancelFunc
		askCtx, cancelTimeout = context.WithTimeoutCause(askCtx, opts.Timeout, errTimeout)
		defer cancelTimeout()
	}

	// The provider runs aside so that an abort, a timeout or a disposal
	// ends the ask at once even when the provider ignores its ctx (its
	// late answer is dropped); done is buffered so that the goroutine ends
	// as soon as the provider returns.
	done := make(chan providerResult, 1)
	go func() {
		res, err := callProvider(askCtx, reg.provider, Question{Call: call, From: opts.From})
		done <- providerResult{res, err}
	}()
	select {
	case r := <-done:
		if r.err == nil && len(r.res.Raw) > 0 {
			// An answer that arrived is kept, even when the ask ended
			// at the same moment: the person did answer.
			return r.res, nil
		}
		if askCtx.Err() == nil {
			return engine.Result{}, s.harness(ctx, r.err)
		}
		// The provider gave up because its ctx ended: say why it ended.
	case <-askCtx.Done():
	}
	switch cause := context.Cause(askCtx); {
	case errors.Is(cause, errTimeout):
		return engine.Result{}, s.fail(ctx, core.Failure{Situation: core.SituationTimeout, Millis: opts.Timeout.Milliseconds()})
	case errors.Is(cause, errDisposed):
		return engine.Result{}, s.fail(ctx, core.Failure{Situation: core.SituationWithdrawn})
	}
	// askCtx ends only by a timeout, a disposal or ctx.
	return engine.Result{}, s.aborted(ctx)
}

type providerResult struct {
	res engine.Result
	err error
}

// panicError is a recovered provider panic.
type panicError struct{ value any }

func (p panicError) Error() string { return fmt.Sprint(p.value) }

// callProvider turns a provider panic into an error: one broken front door
// must not take the agent down. A nil *core.HarnessError returned as an
// error (Go's typed-nil trap) is no error.
func callProvider(ctx context.Context, p Provider, q Question) (res engine.Result, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = panicError{r}
		}
	}()
	res, err = p.Ask(ctx, q)
	if he, ok := err.(*core.HarnessError); ok && he == nil {
		err = nil
	}
	return res, err
}

// fail returns the core's error for a situation.
func (s *Service) fail(ctx context.Context, f core.Failure) *core.HarnessError {
	return s.client.Fail(ctx, f)
}

// aborted is ASK_ABORTED for a done ctx, with its cause when it is not a
// plain cancellation.
func (s *Service) aborted(ctx context.Context) *core.HarnessError {
	f := core.Failure{Situation: core.SituationAborted}
	if cause := context.Cause(ctx); cause != nil && !errors.Is(cause, context.Canceled) {
		f.Detail = cause.Error()
	}
	return s.fail(ctx, f)
}

// harness keeps the core's structured errors as they are; an engine fault
// becomes engine_fault, no error and no answer no_answer, and anything else
// provider_failed, so the model always receives {name, code, message} as
// the core wrote it.
func (s *Service) harness(ctx context.Context, err error) *core.HarnessError {
	var he *core.HarnessError
	if errors.As(err, &he) {
		return he
	}
	var host *engine.HostError
	if errors.As(err, &host) {
		return s.fail(ctx, core.Failure{Situation: core.SituationEngineFault})
	}
	if err == nil {
		return s.fail(ctx, core.Failure{Situation: core.SituationNoAnswer})
	}
	return s.fail(ctx, core.Failure{Situation: core.SituationProviderFailed, Detail: err.Error()})
}
