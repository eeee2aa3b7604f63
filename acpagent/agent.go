package acpagent

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"

	"github.com/askcore/askcore"
	"github.com/askcore/askcore/agent"
	"github.com/askcore/askcore/answerpage"
	"github.com/askcore/askcore/frontdoor"
)

// Options configure an Agent.
type Options struct {
	// Start readies askcore for the agent: called once, in the background,
	// by New. initialize is answered at once; session/new waits for Start
	// (a WebAssembly engine that compiles). Required.
	Start func(ctx context.Context) (Backend, error)
	// Web says when a question goes to the answer page instead of a form
	// (default frontdoor.WebAuto: where the client advertised no form).
	Web frontdoor.WebMode
	// Page configures the answer page (answerpage.New's options).
	Page []answerpage.Option
	// Log receives the agent's diagnostics (nil: discarded).
	Log *slog.Logger
	// Beside, when set, returns the provider to register given the
	// editor's own (the client's form): e.g. frontdoor.Hub.Provider, which
	// also puts each question in a hub's inbox. Default: the editor's.
	Beside func(editor askcore.Provider) askcore.Provider
	// Name and Version are the agentInfo of initialize (default
	// "askcore-acp" and frontdoor.Version()).
	Name, Version string
}

// Backend is what an Agent needs of askcore, once Start has made it.
type Backend struct {
	// Core makes every text the client is shown safe (sanitize, summary,
	// titles) and words the answer page's situations.
	Core *askcore.Core
	// Service is the seam the agent registers its provider on: its
	// questions reach the person as forms or on the answer page.
	Service *askcore.Service
	// NewConversation starts the conversation of a new session: agentID
	// is the agent its questions come from (askcore.Identity), hooks
	// report its turns to the client. frontdoor.Runtime.NewAgent is one.
	NewConversation func(agentID, sessionID string, hooks agent.Hooks) Conversation
	// Close, when set, releases what Start made (after the provider is
	// disposed).
	Close func(context.Context) error
}

// Conversation runs a session's turns; *agent.Agent is one. Run returns
// when the turn ends, or ctx is done (session/cancel, a stop).
type Conversation interface {
	Run(ctx context.Context, prompt string) error
}

// Ready is a Start for a Backend made already.
func Ready(b Backend) func(context.Context) (Backend, error) {
	return func(context.Context) (Backend, error) { return b, nil }
}

// Agent is askcore's ACP agent: it serves ACP connections (Serve) and is
// the askcore.Provider of their questions. One Agent serves any number of
// connections and sessions; its answer page is one for all of them.
type Agent struct {
	opts     Options
	log      *slog.Logger
	router   *askcore.Router
	cancel   context.CancelFunc
	done     chan struct{} // closed once Start is over
	backend  Backend
	provider *provider
	dispose  func()
	err      error

	idMu   sync.Mutex
	lastID int
}

// New starts readying askcore in the background (Options.Start) and
// returns at once.
func New(o Options) *Agent {
	if o.Name == "" {
		o.Name = "askcore-acp"
	}
	if o.Version == "" {
		o.Version = frontdoor.Version()
	}
	log := o.Log
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	ctx, cancel := context.WithCancel(context.Background())
	a := &Agent{opts: o, log: log, router: &askcore.Router{}, cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(a.done)
		b, err := o.Start(ctx)
		if err != nil {
			a.err = fmt.Errorf("askcore could not start: %w", err)
			if ctx.Err() == nil {
				a.log.Error("starting askcore", "err", err)
			}
			return
		}
		pv := newProvider(a.router)
		pv.mode = o.Web
		pv.page = answerpage.NewLazy(b.Core, o.Page...)
		var reg askcore.Provider = pv
		if o.Beside != nil {
			reg = o.Beside(pv)
		}
		dispose, err := b.Service.Register(reg)
		if err != nil {
			if b.Close != nil {
				err = errors.Join(err, b.Close(context.WithoutCancel(ctx)))
			}
			a.err = err
			return
		}
		a.backend, a.provider, a.dispose = b, pv, dispose
	}()
	return a
}

// Router binds agents to sessions: a session's agent, and the sub-agents
// that code running in it creates (frontdoor.Runtime.NewSubAgent with this
// router), whose questions reach the same client.
func (a *Agent) Router() *askcore.Router { return a.router }

// ready waits for Start (or ctx).
func (a *Agent) ready(ctx context.Context) (Backend, error) {
	select {
	case <-a.done:
	case <-ctx.Done():
		return Backend{}, context.Cause(ctx)
	}
	if a.err != nil {
		return Backend{}, a.err
	}
	return a.backend, nil
}

// Close stops an unfinished Start, stops the answer page (once the
// questions on it ended, or ctx is done), disposes the provider and
// releases the backend. It returns when ctx is done even if Start has not
// ended yet: a signal's exit must not wait for a compile.
func (a *Agent) Close(ctx context.Context) error {
	a.cancel()
	select {
	case <-a.done:
	case <-ctx.Done():
		return fmt.Errorf("askcore was still starting: %w", context.Cause(ctx))
	}
	if a.provider == nil {
		return nil
	}
	_ = a.provider.page.Shutdown(ctx)
	a.dispose()
	if a.backend.Close != nil {
		return a.backend.Close(ctx)
	}
	return nil
}

// openSession waits for the backend, names a new session and the agent it
// is created with, and routes that agent's questions to p.
func (a *Agent) openSession(ctx context.Context, p peer) (b Backend, sessionID, agentID string, err error) {
	b, err = a.ready(ctx)
	if err != nil {
		return Backend{}, "", "", err
	}
	a.idMu.Lock()
	a.lastID++
	n := a.lastID
	a.idMu.Unlock()
	sessionID, agentID = fmt.Sprintf("sess-%d", n), fmt.Sprintf("acp-agent-%d", n)
	if err := a.provider.openSession(sessionID, agentID, p); err != nil {
		return Backend{}, "", "", err
	}
	return b, sessionID, agentID, nil
}

// closeSession unbinds every agent of the session (its agent and its
// sub-agents): their later questions are SESSION_NOT_FOUND.
func (a *Agent) closeSession(sessionID string) {
	a.provider.closeSession(sessionID)
}

// FromRuntime is the Backend of a front door's runtime (frontdoor.Build):
// its core, its service, a conversation per session with rt.NewAgent, and
// rt.Close.
func FromRuntime(rt *frontdoor.Runtime) Backend {
	return Backend{
		Core:    rt.Core,
		Service: rt.Service,
		NewConversation: func(agentID, sessionID string, hooks agent.Hooks) Conversation {
			return rt.NewAgent(agentID, sessionID, hooks)
		},
		Close: rt.Close,
	}
}
