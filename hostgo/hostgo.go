// Package hostgo runs the askcore core as WebAssembly under wazero: the very
// module (package wasm, wasm/askcore.wasm) that Node and browsers run, so a Go
// binary and a JS host give the same bytes for the same input, by
// construction rather than by keeping two implementations in step.
//
// An Engine is safe for concurrent use. Inside:
//
//   - one compiled module per process and configuration, shared by every
//     Engine (Warmup compiles it ahead of time);
//   - a bounded pool of instances, GOMAXPROCS by default; an instance serves
//     one call at a time, and any trap or host error discards it, so the next
//     call gets a clean one; an instance whose memory grew past a threshold is
//     replaced too;
//   - an on-disk compilation cache under os.UserCacheDir()/askcore/wazero,
//     and a tiered start: with a cold cache the first calls run on wazero's
//     interpreter while the optimizing compile runs in the background (and
//     fills the cache), then the Engine moves to compiled instances, called
//     or not, and the interpreter tier is released; processes starting
//     together on a cold cache share one compile (a lock file in the cache
//     directory), the others loading what the first wrote;
//   - an instance's linear memory is a reserved mapping (on Unix) that grows
//     in place and goes back to the kernel when the instance closes; other
//     memory freed in bulk (the interpreter tier, a large input's garbage) is
//     returned to the operating system at once;
//   - the guest gets a real monotonic clock (its garbage collector needs one),
//     no filesystem, no environment, no arguments, a memory page limit, and
//     inputs no larger than the core's own limit (a longer one is not copied
//     in: the guest answers it from its length, askcore_oversized);
//   - a cancelled ctx ends Handle at once (see Handle).
//
// The reasons for each choice are in RATIONALE.md; the guest ABI in
// wasm/ABI.md.
package hostgo

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/askcore/askcore/core"
)

// MaxInputBytes is the largest input the host copies into the guest: the
// core's own limit, which the guest also enforces (askcore_max_input).
const MaxInputBytes = core.MaxInputBytes

// ErrClosed is returned by Handle on a closed Engine.
var ErrClosed = errors.New("hostgo: engine closed")

// Engine runs the askcore core in a pool of WebAssembly instances.
type Engine struct {
	cfg config

	slots  chan struct{} // one token per instance that may exist
	closed chan struct{}

	mu      sync.Mutex
	idle    []*instance // LIFO: the most recently used instance is warmest
	current *tier       // where new instances come from
	pending *tier       // the optimizing tier still compiling, if any
	// deferred is the optimizing tier New starts compiling once the first
	// interpreter instance is up (a cold start).
	deferred *tierKey
	stats    Stats
	// watched is closed when the goroutine that moves the Engine to the
	// optimizing tier as soon as it is compiled (watch) has ended; nil when
	// New started none.
	watched chan struct{}

	closeOnce sync.Once
	closeErr  error
}

// Stats describes an Engine's state, for diagnostics and benchmarks.
type Stats struct {
	// Interpreter is true while new instances come from the interpreter.
	Interpreter bool
	// Pending is true while the optimizing compile runs in the background.
	Pending bool
	// Instantiated and Discarded count instances created and thrown away
	// (after an error, or because their memory passed the threshold).
	Instantiated, Discarded int
	// MaxPages is the largest linear memory, in 64 KiB pages, seen on an
	// instance after a call.
	MaxPages uint32
	// BackgroundError is the optimizing compile's error, when it failed and
	// the Engine stays on the interpreter.
	BackgroundError error
}

func buildConfig(opts []Option) config {
	cfg := defaultConfig()
	for _, o := range opts {
		if o != nil {
			o(&cfg)
		}
	}
	return cfg
}

// New returns an Engine ready to serve. It compiles the module unless this
// process already has (see Warmup). With the tiered start (the default) it
// never waits for a full optimizing compile: when the compiled code is
// neither in memory nor, by all signs, in the on-disk cache, it starts on the
// interpreter and swaps to compiled instances once the background compile is
// done. It instantiates one instance before returning, so a broken module
// fails here rather than in the first Handle.
func New(ctx context.Context, opts ...Option) (*Engine, error) {
	cfg := buildConfig(opts)
	e := &Engine{
		cfg:    cfg,
		slots:  make(chan struct{}, cfg.poolSize),
		closed: make(chan struct{}),
	}
	if err := e.start(ctx); err != nil {
		e.unrefTiers()
		return nil, err
	}
	in, err := e.current.instantiate(ctx)
	if err != nil {
		_ = e.Close(context.Background())
		return nil, err
	}
	e.stats.Instantiated++
	e.idle = append(e.idle, in)
	if e.deferred != nil {
		e.pending = getTier(*e.deferred)
	}
	if e.pending != nil {
		e.watched = make(chan struct{})
		go e.watch(e.pending)
	}
	return e, nil
}

// watch moves the Engine to the optimizing tier p as soon as it is
// compiled, rather than at the next Handle: an idle Engine (a front door
// waiting for its first call) must not keep its interpreter instances, and
// through them the interpreter tier, for good.
func (e *Engine) watch(p *tier) {
	defer close(e.watched)
	select {
	case <-p.done:
		e.promote()
	case <-e.closed:
	}
}

// promote makes a compiled pending tier current and closes the idle
// instances of the old one. The old tier's reference and its instances'
// go: a stand-in interpreter tier nothing else uses is released (unref).
func (e *Engine) promote() {
	e.mu.Lock()
	stale, old := e.promoteLocked()
	e.mu.Unlock()
	e.dropStale(stale, old)
}

// promoteLocked does promote's bookkeeping under e.mu and returns what to
// close and unref outside it.
func (e *Engine) promoteLocked() (stale []*instance, old []*tier) {
	if e.pending == nil || !isDone(e.pending.done) || e.isClosed() {
		return nil, nil
	}
	if e.pending.err == nil {
		old = append(old, e.current)
		e.current = e.pending
	} else {
		e.stats.BackgroundError = e.pending.err
		old = append(old, e.pending)
	}
	e.pending = nil
	keep := e.idle[:0]
	for _, in := range e.idle {
		if in.tier == e.current {
			keep = append(keep, in)
		} else {
			stale = append(stale, in)
		}
	}
	clear(e.idle[len(keep):])
	e.idle = keep
	e.stats.Discarded += len(stale)
	return stale, old
}

func (e *Engine) dropStale(stale []*instance, old []*tier) {
	for _, in := range stale {
		in.close()
	}
	for _, t := range old {
		t.unref()
	}
}

// unrefTiers gives back the Engine's references on its tiers.
func (e *Engine) unrefTiers() {
	e.mu.Lock()
	cur, pending := e.current, e.pending
	e.current, e.pending = nil, nil
	e.mu.Unlock()
	for _, t := range []*tier{cur, pending} {
		if t != nil {
			t.unref()
		}
	}
}

// start picks the tier new instances come from.
func (e *Engine) start(ctx context.Context) error {
	if e.cfg.interpreter {
		e.current = getTier(e.cfg.key(true))
		return e.current.wait(ctx)
	}
	optKey := e.cfg.key(false)
	if !e.cfg.tiered {
		e.current = getTier(optKey)
		return e.current.wait(ctx)
	}
	warm := e.cfg.cache == cacheDir && cacheLooksWarm(e.cfg.cacheDir)
	if !warm && !tierStarted(optKey) {
		// Cold: serve on the interpreter, and start the optimizing compile
		// only once New has the first instance, so that the two compiles do
		// not share the CPU before the first answer (startDeferred).
		e.deferred = &optKey
		e.current = acquireTier(e.cfg.key(true), true)
		return e.current.wait(ctx)
	}
	opt := getTier(optKey)
	if warm {
		waitWarm(ctx, opt.done, e.cfg.warmWait)
	}
	if err := ctx.Err(); err != nil {
		opt.unref()
		return err
	}
	if opt.ready() {
		e.current = opt
		return nil
	}
	select {
	case <-opt.done:
		// The optimizing compile failed: serve on the interpreter.
		e.stats.BackgroundError = opt.err
		opt.unref()
	default:
		e.pending = opt
	}
	e.current = acquireTier(e.cfg.key(true), true)
	return e.current.wait(ctx)
}

// waitWarm waits for a compile that should be a load from the on-disk
// cache (done closed), for at most budget of the process's CPU time, or
// until ctx ends. CPU time, not wall time: a cache hit costs tens of
// milliseconds of CPU however busy the machine is, while a full compile
// (the warm marker lied) burns through the budget on every core it gets.
// On a loaded machine a wall-clock bound fell back to the interpreter for a
// cache hit that was merely waiting for a core, and made it worse: a second
// compile competing for the same cores, and 50 MB more memory.
func waitWarm(ctx context.Context, done <-chan struct{}, budget time.Duration) {
	if budget <= 0 {
		return
	}
	start, ok := processCPU()
	if !ok { // no CPU clock here: wall time
		ctx, cancel := context.WithTimeout(ctx, budget)
		defer cancel()
		select {
		case <-done:
		case <-ctx.Done():
		}
		return
	}
	tick := time.NewTicker(min(budget/16, 5*time.Millisecond) + time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-done:
			return
		case <-ctx.Done():
			return
		case <-tick.C:
			if now, _ := processCPU(); now-start >= budget {
				return
			}
		}
	}
}

// Handle runs the core on input and returns its output envelope: the same
// bytes core.Handle returns natively. The error is for host faults only: a
// trap, a closed Engine, a cancelled ctx. An instance that failed is
// discarded, so the next call gets a clean one.
//
// When ctx ends during a call, Handle returns at once with ctx's error. The
// guest cannot be stopped mid-call without termination checks that triple
// the cost of every call, so by default it finishes that call aside (the
// core's input limits bound it) and gives its instance back; with
// WithInterruptibleCalls wazero stops it and the instance is discarded.
//
// An input longer than MaxInputBytes (the core's own limit) is never copied
// into the guest: the guest writes the core's answer to an input of that
// length (askcore_oversized, the path a JS host takes too), which depends
// on the length alone. So every byte Handle returns comes from the module,
// as the engine choice says (see RATIONALE.md).
//
// After a call whose input was large (largeInputBytes, a quarter of the cap,
// or more) Handle returns the memory the Go heap freed to the operating
// system before it returns: growing the guest's linear memory copies it,
// and the old copies would otherwise stay resident (see RATIONALE.md,
// "Memory").
func (e *Engine) Handle(ctx context.Context, input []byte) ([]byte, error) {
	n := len(input)
	call := func(ctx context.Context, in *instance) ([]byte, error) { return in.call(ctx, input) }
	if n > MaxInputBytes {
		call = func(_ context.Context, in *instance) ([]byte, error) { return in.callOversized(n) }
	}
	return e.do(ctx, n >= largeInputBytes && n <= MaxInputBytes, call)
}

// largeInputBytes: an input this long is copied into the guest and parsed
// there, which grows its linear memory by megabytes. Ordinary inputs are a
// few kilobytes.
const largeInputBytes = 1 << 20

// do runs call on an instance of the pool. large says the input copied in
// is large (Handle).
func (e *Engine) do(ctx context.Context, large bool, call func(context.Context, *instance) ([]byte, error)) ([]byte, error) {
	if e.isClosed() {
		return nil, ErrClosed
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	select {
	case e.slots <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-e.closed:
		return nil, ErrClosed
	}
	in, err := e.acquire(ctx)
	if err != nil {
		<-e.slots
		return nil, err
	}
	if ctx.Done() == nil || e.cfg.interruptible {
		// Either ctx cannot end, or wazero stops the guest when it does.
		out, err := e.run(ctx, in, large, call)
		return out, e.hostError(ctx, err)
	}
	// The guest cannot be stopped mid-call: run it aside and stop waiting
	// when ctx ends. The call finishes on its own (the core bounds its work
	// by its input limits), then returns its instance and slot; Close waits
	// for that.
	done := make(chan result, 1)
	go func() {
		out, err := e.run(context.Background(), in, large, call)
		done <- result{out, err}
	}()
	select {
	case r := <-done:
		return r.out, e.hostError(ctx, r.err)
	case <-ctx.Done():
		return nil, fmt.Errorf("hostgo: call abandoned: %w", ctx.Err())
	}
}

type result struct {
	out []byte
	err error
}

// run makes one call on in, then gives in and its slot back. After a call
// that freed megabytes (a large input, or an instance grown past the
// recycle threshold closed), the memory goes back to the operating system.
func (e *Engine) run(ctx context.Context, in *instance, large bool, call func(context.Context, *instance) ([]byte, error)) ([]byte, error) {
	out, err := call(ctx, in)
	freed := e.release(in, err)
	<-e.slots
	if large || freed {
		returnMemory()
	}
	return out, err
}

func (e *Engine) hostError(ctx context.Context, err error) error {
	if err == nil {
		return nil
	}
	if ctxErr := ctx.Err(); ctxErr != nil {
		return fmt.Errorf("hostgo: call interrupted: %w", ctxErr)
	}
	return err
}

// acquire returns an idle instance of the best tier, or a new one.
func (e *Engine) acquire(ctx context.Context) (*instance, error) {
	e.mu.Lock()
	if e.isClosed() {
		e.mu.Unlock()
		return nil, ErrClosed
	}
	// The watcher promotes too, but this call need not wait for it.
	stale, old := e.promoteLocked()
	cur := e.current
	var in *instance
	if n := len(e.idle); n > 0 {
		in = e.idle[n-1] // every idle instance is of cur (promoteLocked)
		e.idle[n-1] = nil
		e.idle = e.idle[:n-1]
	} else {
		// The watcher may promote the Engine while this instantiates from
		// cur: hold cur until the instance holds it, or a stand-in could be
		// released under it. Such an instance serves this call and is
		// discarded after it (release).
		cur.ref()
	}
	e.mu.Unlock()
	e.dropStale(stale, old)
	if in != nil {
		return in, nil
	}
	in, err := cur.instantiate(ctx)
	cur.unref()
	if err != nil {
		return nil, err
	}
	e.mu.Lock()
	e.stats.Instantiated++
	e.mu.Unlock()
	return in, nil
}

// release puts in back in the pool, or discards it after an error, when its
// memory grew past the threshold, when it is of a tier the Engine has left
// (an interpreter instance busy when the compiled tier arrived), or when the
// Engine is closing. Closing an instance that grew past the threshold frees
// its linear memory (up to the page limit, 64 MiB by default): release then
// reports true, and run returns that memory to the operating system at once
// (returnMemory), or one large request would keep it resident long after.
func (e *Engine) release(in *instance, callErr error) (freed bool) {
	pages := in.pages()
	e.mu.Lock()
	e.stats.MaxPages = max(e.stats.MaxPages, pages)
	keep := callErr == nil && pages <= e.cfg.recyclePages && !e.isClosed() && in.tier == e.current
	if keep {
		e.idle = append(e.idle, in)
	} else {
		e.stats.Discarded++
	}
	e.mu.Unlock()
	if !keep {
		in.close()
	}
	return !keep && pages > e.cfg.recyclePages
}

func (e *Engine) isClosed() bool {
	select {
	case <-e.closed:
		return true
	default:
		return false
	}
}

// Stats returns a snapshot of the Engine's state.
func (e *Engine) Stats() Stats {
	e.mu.Lock()
	defer e.mu.Unlock()
	s := e.stats
	s.Interpreter = e.current != nil && e.current.key.interpreter
	s.Pending = e.pending != nil && !isDone(e.pending.done)
	return s
}

func isDone(ch chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// Close waits for running calls, closes every instance, and waits for a
// background compile this Engine is waiting on (the compile itself cannot be
// interrupted; it takes under a second and fills the cache for the next
// process; a compile that has not begun because another process is
// compiling into the same cache is given up when no other Engine wants
// it). Later calls to Handle return ErrClosed. The shared compiled
// module stays for other Engines (ReleaseUnused closes it once none is
// left). When ctx ends first, Close returns its error and whatever is still
// running is closed as it finishes.
func (e *Engine) Close(ctx context.Context) error {
	e.closeOnce.Do(func() {
		close(e.closed)
		e.closeErr = e.drain(ctx)
	})
	return e.closeErr
}

func (e *Engine) drain(ctx context.Context) error {
	// Taking every slot means no call is running.
	for range cap(e.slots) {
		select {
		case e.slots <- struct{}{}:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	// The watcher sees e.closed and ends, unless it is promoting.
	if e.watched != nil {
		select {
		case <-e.watched:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	e.mu.Lock()
	idle := e.idle
	e.idle = nil
	pending := e.pending
	e.mu.Unlock()
	for _, in := range idle {
		in.close()
	}
	// Give the tiers back before waiting: a compile still waiting for
	// another process's (lockCompile) is then abandoned if no other Engine
	// wants it, and ends at once.
	e.unrefTiers()
	if pending != nil {
		select {
		case <-pending.done:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}
