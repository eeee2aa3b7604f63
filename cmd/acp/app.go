package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"

	"github.com/askcore/askcore/agent"
	"github.com/askcore/askcore/internal/frontdoor"
)

// builder builds the runtime (frontdoor.Build outside tests).
type builder func(ctx context.Context) (*frontdoor.Runtime, error)

// app is what the process shares between connections and sessions: the
// front-door runtime (engine, interaction service, tools, model), built in
// the background, and the one ACP provider registered on it.
type app struct {
	log      *slog.Logger
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
	a := &app{log: log, cancel: cancel, done: make(chan struct{})}
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
		pv := newProvider(rt.Client)
		dispose, err := rt.Interaction.Register(pv)
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
// the engine.
func (a *app) close(ctx context.Context) error {
	a.cancel()
	<-a.done
	if a.rt == nil {
		return nil
	}
	a.dispose()
	return a.rt.Close(ctx)
}

// newAgent creates the agent of a new session and routes its questions to
// p. It waits for the runtime.
func (a *app) newAgent(ctx context.Context, p peer, hooks func(sessionID string) agent.Hooks) (*agent.Agent, error) {
	rt, err := a.runtime(ctx)
	if err != nil {
		return nil, err
	}
	a.idMu.Lock()
	a.lastID++
	n := a.lastID
	a.idMu.Unlock()
	sessionID, agentID := fmt.Sprintf("sess-%d", n), fmt.Sprintf("acp-agent-%d", n)
	ag := rt.NewAgent(agentID, sessionID, hooks(sessionID))
	a.provider.bind(agentID, sessionID, p)
	return ag, nil
}

// forget unbinds an agent: its later questions are SESSION_NOT_FOUND.
func (a *app) forget(agentID string) {
	if a.provider != nil {
		a.provider.unbind(agentID)
	}
}
