package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"

	"github.com/askcore/askcore"
	"github.com/askcore/askcore/frontdoor"
)

// builder builds the runtime (frontdoor.Build outside tests).
type builder func(ctx context.Context) (*frontdoor.Runtime, error)

// app is what the process shares between connections and sessions: the
// front-door runtime (engine, interaction service, tools, model), built in
// the background, the one ACP provider registered on it, and the router
// that binds agents (a session's agent and its sub-agents) to sessions.
type app struct {
	log      *slog.Logger
	router   *askcore.Router
	cancel   context.CancelFunc
	done     chan struct{} // closed once the build is over
	rt       *frontdoor.Runtime
	provider *provider
	dispose  func()
	err      error

	idMu   sync.Mutex
	lastID int
}

// newApp starts building the runtime in the background and returns at
// once: initialize must never wait for the WebAssembly module to compile.
func newApp(build builder, log *slog.Logger) *app {
	ctx, cancel := context.WithCancel(context.Background())
	a := &app{log: log, router: &askcore.Router{}, cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(a.done)
		rt, err := build(ctx)
		if err != nil {
			a.err = fmt.Errorf("askcore could not start: %w", err)
			if ctx.Err() == nil {
				a.log.Error("starting the runtime", "err", err)
			}
			return
		}
		pv := newProvider(a.router)
		dispose, err := rt.Service.Register(pv)
		if err != nil {
			a.err = errors.Join(err, rt.Close(context.WithoutCancel(ctx)))
			return
		}
		a.rt, a.provider, a.dispose = rt, pv, dispose
	}()
	return a
}

// runtime waits for the build (or ctx).
func (a *app) runtime(ctx context.Context) (*frontdoor.Runtime, error) {
	select {
	case <-a.done:
	case <-ctx.Done():
		return nil, context.Cause(ctx)
	}
	if a.err != nil {
		return nil, a.err
	}
	return a.rt, nil
}

// close stops an unfinished build, withdraws pending questions and releases
// the engine. It returns when ctx is done even if the build has not ended
// yet (a compile that does not stop at once): a signal's exit must not
// wait for it.
func (a *app) close(ctx context.Context) error {
	a.cancel()
	select {
	case <-a.done:
	case <-ctx.Done():
		return fmt.Errorf("the engine was still starting: %w", context.Cause(ctx))
	}
	if a.rt == nil {
		return nil
	}
	a.dispose()
	return a.rt.Close(ctx)
}

// openSession waits for the runtime, names a new session and the agent it
// is created with, and routes that agent's questions to p.
func (a *app) openSession(ctx context.Context, p peer) (rt *frontdoor.Runtime, sessionID, agentID string, err error) {
	rt, err = a.runtime(ctx)
	if err != nil {
		return nil, "", "", err
	}
	a.idMu.Lock()
	a.lastID++
	n := a.lastID
	a.idMu.Unlock()
	sessionID, agentID = fmt.Sprintf("sess-%d", n), fmt.Sprintf("acp-agent-%d", n)
	if err := a.provider.openSession(sessionID, agentID, p); err != nil {
		return nil, "", "", err
	}
	return rt, sessionID, agentID, nil
}

// closeSession unbinds every agent of the session (its agent and its
// sub-agents): their later questions are SESSION_NOT_FOUND. Only sessions
// openSession opened are closed, so the provider is there.
func (a *app) closeSession(sessionID string) {
	a.provider.closeSession(sessionID)
}
