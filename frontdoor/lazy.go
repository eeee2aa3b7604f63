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
// call: a server idle for minutes gives back the engine and the compiled
// module under it (the machine code, the decoded module, the instances'
// linear memory: most of an idle engine's resident memory) and opens a
// fresh one, from the on-disk cache, at the next question: about 120 ms of
// CPU, paid at most once per idle period (RATIONALE.md, "An engine that
// waits for a question, and goes when idle").
const engineIdleRelease = 2 * time.Minute

// lazyEngine is the wasm engine of a front door, opened at the first call
// that needs it and released after idle of no call. A front door waiting
// for its first question (an MCP server listing its tool, an ACP agent
// answering initialize), or idle since its last one, then holds no engine:
// about 20 MB less resident (BENCHMARKS.md, "The engine waits for a
// question, and goes when idle").
//
// The one call that never needs it is op "schema": its output depends on
// nothing but the request's strict flag, and the conformance corpus holds
// native and wasm to the same bytes for it (testdata/conformance), so the
// native core answers it.
type lazyEngine struct {
	open func(context.Context) (askcore.Engine, func(context.Context) error, error)
	idle time.Duration
	// afterFunc is time.AfterFunc's signature with Stop as a func; a test
	// sets one that runs f when the test says, not after d.
	afterFunc func(d time.Duration, f func()) (stop func() bool)

	mu      sync.Mutex
	engine  askcore.Engine
	closeFn func(context.Context) error
	calls   int         // calls running on engine
	stop    func() bool // stops the release timer armed last
	// armed counts the release timers armed: a timer whose release waited
	// for mu while a call began and ended (and armed a newer one) is stale
	// and releases nothing.
	armed  uint64
	closed bool
	// releasing counts the releases closing an engine outside mu: Close
	// waits for them, so nothing of the engine outlives it.
	releasing sync.WaitGroup
}

var errEngineClosed = errors.New("frontdoor: engine closed")

// newLazyEngine opens the wasm engine with opts when a call needs it; its
// release also gives back the compiled module, which hostgo otherwise keeps
// for the rest of the process.
func newLazyEngine(idle time.Duration, opts ...hostgo.Option) *lazyEngine {
	return &lazyEngine{idle: idle, afterFunc: afterFunc, open: func(ctx context.Context) (askcore.Engine, func(context.Context) error, error) {
		e, closeFn, err := OpenEngine(ctx, EngineWasm, opts...)
		if err != nil {
			return nil, nil, err
		}
		return e, func(ctx context.Context) error {
			err := closeFn(ctx)
			hostgo.ReleaseUnused()
			return err
		}, nil
	}}
}

func afterFunc(d time.Duration, f func()) func() bool { return time.AfterFunc(d, f).Stop }

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
	l.disarm()
	if l.engine == nil {
		// Opening under the lock: concurrent first calls wait for the one
		// open rather than compiling twice.
		e, closeFn, err := l.open(ctx)
		if err != nil {
			return nil, err
		}
		l.engine, l.closeFn = e, closeFn
	}
	l.calls++
	return l.engine, nil
}

func (l *lazyEngine) done() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.calls--
	if l.calls == 0 && !l.closed {
		l.armed++
		armed := l.armed
		l.stop = l.afterFunc(l.idle, func() { l.release(armed) })
	}
}

// disarm stops the release timer and makes a release already under way
// (waiting for mu) stale. l.mu must be held.
func (l *lazyEngine) disarm() {
	if l.stop != nil {
		l.stop()
		l.stop = nil
	}
	l.armed++
}

// release closes the engine when the timer armed is still the last one:
// no call began since.
func (l *lazyEngine) release(armed uint64) {
	l.mu.Lock()
	if armed != l.armed || l.calls > 0 || l.engine == nil || l.closed {
		l.mu.Unlock()
		return
	}
	closeFn := l.closeFn
	l.engine, l.closeFn, l.stop = nil, nil, nil
	l.releasing.Add(1)
	defer l.releasing.Done()
	l.mu.Unlock()
	_ = closeFn(context.Background()) // no call runs: nothing to wait for
}

// Close releases the engine if it is open; later calls other than op
// "schema" fail.
func (l *lazyEngine) Close(ctx context.Context) error {
	l.mu.Lock()
	l.closed = true
	l.disarm()
	closeFn := l.closeFn
	l.engine, l.closeFn = nil, nil
	l.mu.Unlock()
	l.releasing.Wait()
	if closeFn == nil {
		return nil
	}
	return closeFn(ctx)
}
