package frontdoor

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"time"

	"github.com/askcore/askcore"
	"github.com/askcore/askcore/hostgo"
)

// engineIdleRelease is how long the wasm engine stays open after its last
// call: a server idle for minutes gives back its instances (their linear
// memory, the most of an idle engine's resident memory) and opens a fresh
// one at the next question.
const engineIdleRelease = 2 * time.Minute

// lazyEngine is the wasm engine of a front door, opened at the first call
// that needs it and released after idle of no call. A front door waiting
// for its first question (an MCP server listing its tool, an ACP agent
// answering initialize) then holds no engine: about 20 MB less resident
// (BENCHMARKS.md, "Idle memory").
//
// The one call that never needs it is op "schema": its output depends on
// nothing but the request's strict flag, and the conformance corpus holds
// native and wasm to the same bytes for it (testdata/conformance), so the
// native core answers it.
type lazyEngine struct {
	open func(context.Context) (askcore.Engine, func(context.Context) error, error)
	idle time.Duration

	mu      sync.Mutex
	engine  askcore.Engine
	closeFn func(context.Context) error
	calls   int         // calls running on engine
	timer   *time.Timer // releases engine after idle
	closed  bool
}

var errEngineClosed = errors.New("frontdoor: engine closed")

func newLazyEngine(idle time.Duration, opts ...hostgo.Option) *lazyEngine {
	return &lazyEngine{idle: idle, open: func(ctx context.Context) (askcore.Engine, func(context.Context) error, error) {
		return OpenEngine(ctx, EngineWasm, opts...)
	}}
}

// Handle answers op "schema" natively and every other call on the wasm
// engine, opening it when it is not open.
func (l *lazyEngine) Handle(ctx context.Context, input []byte) ([]byte, error) {
	if isSchema(input) {
		return askcore.Native{}.Handle(ctx, input)
	}
	e, err := l.acquire(ctx)
	if err != nil {
		return nil, err
	}
	defer l.done()
	return e.Handle(ctx, input)
}

// isSchema reports whether input asks for op "schema" (a request of a few
// bytes: a longer input is never one, and is not decoded here).
func isSchema(input []byte) bool {
	if len(input) > 64 {
		return false
	}
	var env struct {
		Op string `json:"op"`
	}
	return json.Unmarshal(input, &env) == nil && env.Op == "schema"
}

func (l *lazyEngine) acquire(ctx context.Context) (askcore.Engine, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return nil, errEngineClosed
	}
	if l.engine == nil {
		// Opening under the lock: concurrent first calls wait for the one
		// open rather than compiling twice.
		e, closeFn, err := l.open(ctx)
		if err != nil {
			return nil, err
		}
		l.engine, l.closeFn = e, closeFn
	}
	if l.timer != nil {
		l.timer.Stop()
		l.timer = nil
	}
	l.calls++
	return l.engine, nil
}

func (l *lazyEngine) done() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.calls--
	if l.calls == 0 && !l.closed {
		l.timer = time.AfterFunc(l.idle, l.release)
	}
}

// release closes the engine once it has been idle (no call began since the
// timer was set).
func (l *lazyEngine) release() {
	l.mu.Lock()
	if l.calls > 0 || l.engine == nil || l.closed || l.timer == nil {
		l.mu.Unlock()
		return
	}
	closeFn := l.closeFn
	l.engine, l.closeFn, l.timer = nil, nil, nil
	l.mu.Unlock()
	_ = closeFn(context.Background()) // no call runs: nothing to wait for
}

// Close releases the engine if it is open; later calls other than op
// "schema" fail.
func (l *lazyEngine) Close(ctx context.Context) error {
	l.mu.Lock()
	l.closed = true
	if l.timer != nil {
		l.timer.Stop()
		l.timer = nil
	}
	closeFn := l.closeFn
	l.engine, l.closeFn = nil, nil
	l.mu.Unlock()
	if closeFn == nil {
		return nil
	}
	return closeFn(ctx)
}
