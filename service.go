package askcore

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// Identity says who asks, so that a provider can route the question (the
// ACP front door maps AgentID to its session through a Router).
type Identity struct {
	AgentID    string
	SessionID  string
	ToolCallID string
}

// Provider reaches a person. Ask puts call to them and returns what they
// gave (Lines, Picks, FormReply, Decline), or an error: a Failure names
// why the provider gave up (the input ended, the client cannot show
// forms) and the core words it. Ask should return when ctx is done (the
// ask was aborted, timed out or the provider disposed); the Service does
// not wait for it then: it reports the reason at once and drops what Ask
// returns later.
type Provider interface {
	Ask(ctx context.Context, call *Call) (Reply, error)
}

// ProviderFunc adapts a function to Provider.
type ProviderFunc func(ctx context.Context, call *Call) (Reply, error)

// Ask calls f.
func (f ProviderFunc) Ask(ctx context.Context, call *Call) (Reply, error) { return f(ctx, call) }

// AskOptions tune one Service.Ask.
type AskOptions struct {
	// From identifies the asking agent, for routing.
	From Identity
	// Timeout, when positive, ends the ask with ASK_TIMEOUT. Off by
	// default: nothing is ever chosen on a person's behalf.
	Timeout time.Duration
}

// Service is the seam between the agents that ask and the one provider
// that reaches a person. It has the core parse and normalize the model's
// arguments, refuses at once when nobody can ask (NO_PROVIDER, never an
// empty answer), hands the call to the provider, and has the core resolve
// what the person gave. Every error it returns is an *Error the core
// wrote. It is safe for concurrent use.
type Service struct {
	core *Core

	mu     sync.Mutex
	active *registration
}

type registration struct {
	provider Provider
	ctx      context.Context // done once disposed
	cancel   context.CancelCauseFunc
}

var (
	errDisposed   = errors.New("the provider was disposed")
	errNilService = errors.New("askcore: nil *Service (use NewService)")
)

// NewService returns a service whose rules run on c (nil: the native
// core), with no provider registered.
func NewService(c *Core) *Service {
	return &Service{core: c.core()}
}

// Core returns the core the service runs on.
func (s *Service) Core() *Core {
	if s == nil {
		return nativeCore
	}
	return s.core.core()
}

// Register makes p the provider. It fails with DUPLICATE_PROVIDER while
// another provider is registered. dispose unregisters p and ends its
// pending questions with ASK_ABORTED at once; calling it again does
// nothing.
func (s *Service) Register(p Provider) (dispose func(), err error) {
	if s == nil {
		return nil, errNilService
	}
	if p == nil {
		return nil, errors.New("askcore: Register(nil)")
	}
	s.mu.Lock()
	if s.active != nil {
		s.mu.Unlock()
		return nil, s.Core().Fail(context.Background(), Failure{Situation: SituationDuplicateProvider})
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

// Ask puts the model's ask_user_question arguments (the text the model
// wrote, valid JSON or not) to the person through the registered provider
// and returns the core's answer: Answer.JSON is the tool result. Errors
// are *Error: INVALID_REQUEST for arguments the rules refuse, NO_PROVIDER,
// ASK_ABORTED when ctx is done at any stage or the provider was disposed,
// ASK_TIMEOUT, ASK_DECLINED, ASK_CANCELLED, INVALID_ANSWER for a reply
// that does not answer the call, and ASK_FAILED for a provider or engine
// fault or a reply that is not the person's.
func (s *Service) Ask(ctx context.Context, arguments string, opts AskOptions) (Answer, error) {
	if s == nil {
		return Answer{}, errNilService
	}
	c := s.Core()
	if ctx.Err() != nil {
		return Answer{}, aborted(ctx, c)
	}
	call, err := c.Normalize(ctx, arguments)
	// A ctx that ended while the core normalized is the caller's abort,
	// whatever the engine made of it.
	if ctx.Err() != nil {
		return Answer{}, aborted(ctx, c)
	}
	if err != nil {
		return Answer{}, structured(ctx, c, err)
	}
	call.From = opts.From
	s.mu.Lock()
	reg := s.active
	s.mu.Unlock()
	if reg == nil {
		return Answer{}, c.Fail(ctx, Failure{Situation: SituationNoProvider})
	}

	askCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	stop := context.AfterFunc(reg.ctx, func() { cancel(errDisposed) })
	defer stop()
	if opts.Timeout > 0 {
		var cancelTimeout context.CancelFunc
		askCtx, cancelTimeout = context.WithTimeoutCause(askCtx, opts.Timeout, &TimeoutError{Timeout: opts.Timeout})
		defer cancelTimeout()
	}

	// The provider runs aside so that an abort, a timeout or a disposal
	// ends the ask at once even when the provider ignores its ctx (its
	// late reply is dropped); done is buffered so that the goroutine ends
	// as soon as the provider returns.
	done := make(chan providerResult, 1)
	go func() {
		r, err := callProvider(askCtx, reg.provider, call)
		done <- providerResult{r, err}
	}()
	select {
	case r := <-done:
		if r.err == nil && r.reply.kind != replyNone {
			// A reply that arrived is resolved, even when the ask ended at
			// the same moment: the person did answer.
			a, err := call.Resolve(context.WithoutCancel(ctx), r.reply)
			if err != nil {
				return Answer{}, structured(ctx, c, err)
			}
			return a, nil
		}
		if askCtx.Err() == nil {
			return Answer{}, providerError(ctx, c, r.err)
		}
		// The provider gave up because its ctx ended: say why it ended.
	case <-askCtx.Done():
	}
	var timeout *TimeoutError
	switch cause := context.Cause(askCtx); {
	case errors.As(cause, &timeout):
		return Answer{}, c.Fail(ctx, Failure{Situation: SituationTimeout, Millis: timeout.Timeout.Milliseconds()})
	case errors.Is(cause, errDisposed):
		return Answer{}, c.Fail(ctx, Failure{Situation: SituationWithdrawn})
	}
	// askCtx ends only by a timeout, a disposal or ctx.
	return Answer{}, aborted(ctx, c)
}

type providerResult struct {
	reply Reply
	err   error
}

// panicError is a recovered provider panic.
type panicError struct{ value any }

func (p panicError) Error() string { return fmt.Sprint(p.value) }

// callProvider turns a provider panic into an error: one broken front door
// must not take the agent down. A nil *Error returned as an error (Go's
// typed-nil trap) is no error.
func callProvider(ctx context.Context, p Provider, call *Call) (r Reply, err error) {
	defer func() {
		if v := recover(); v != nil {
			r, err = Reply{}, panicError{v}
		}
	}()
	r, err = p.Ask(ctx, call)
	if e, ok := err.(*Error); ok && e == nil {
		err = nil
	}
	return r, err
}

// aborted is ASK_ABORTED for a done ctx, with its cause when it is not a
// plain cancellation.
func aborted(ctx context.Context, c *Core) *Error {
	f := Failure{Situation: SituationAborted}
	if cause := context.Cause(ctx); cause != nil && !errors.Is(cause, context.Canceled) {
		f.Detail = cause.Error()
	}
	return c.Fail(ctx, f)
}

// providerError is the core's error for a provider that failed: a
// Failure it named, worded by the core; an error the core wrote (an
// INVALID_ANSWER meant for the person becomes invalid_reply: that message
// is not for the model); an engine fault; nothing at all; or anything
// else, quoted as provider_failed.
func providerError(ctx context.Context, c *Core, err error) *Error {
	var f Failure
	var e *Error
	switch {
	case err == nil:
		return c.Fail(ctx, Failure{Situation: SituationNoAnswer})
	case errors.As(err, &f):
		return c.Fail(ctx, f)
	case errors.As(err, &e) && e.raw != nil && e.Code == CodeInvalidAnswer && e.situation != SituationInvalidReply:
		// The person's re-prompt (CheckLine's), never the model's words.
		return c.Fail(ctx, Failure{Situation: SituationInvalidReply, Detail: e.Message})
	case errors.As(err, &e) && e.raw != nil:
		return e
	}
	return structured(ctx, c, err)
}

// structured keeps the core's errors as they are; an engine fault becomes
// engine_fault and anything else provider_failed, so the model always
// receives {name, code, message} as the core wrote it.
func structured(ctx context.Context, c *Core, err error) *Error {
	var e *Error
	if errors.As(err, &e) && e.raw != nil {
		return e
	}
	var ee *EngineError
	if errors.As(err, &ee) {
		return c.Fail(ctx, Failure{Situation: SituationEngineFault})
	}
	return c.Fail(ctx, Failure{Situation: SituationProviderFailed, Detail: err.Error()})
}
