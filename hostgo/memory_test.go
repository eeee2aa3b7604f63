package hostgo

import (
	"bytes"
	"context"
	"errors"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tetratelabs/wazero"
	"go.uber.org/goleak"

	"github.com/askcore/askcore/core"
	"github.com/askcore/askcore/internal/bench/benchdata"
	"github.com/askcore/askcore/internal/wasmruntime"
)

// Memory limits no other test uses: configurations (and interpreter tiers)
// of their own, so that no shared Engine holds the tiers these tests watch.
const (
	pagesStandIn = DefaultMemoryLimitPages - 5
	pagesLock    = DefaultMemoryLimitPages - 6
	pagesAbandon = DefaultMemoryLimitPages - 7
)

// TestStandInReleasedOnceCompiled: an Engine that started on the
// interpreter (cold cache) and is never called moves to the compiled tier
// as soon as the background compile is done, closes its interpreter
// instance, and the interpreter tier (about 50 MB of Go heap) is closed,
// forgotten, and its memory returned to the OS. Before, an idle front door
// kept both tiers for good (measured: 98 MB per process when 20 started
// together, 128 MB alone on a cold cache).
func TestStandInReleasedOnceCompiled(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	ctx := context.Background()
	// A cold directory whose compile is a load of the seeded entry (the
	// swap is what is tested, not the compiler), held by the compile lock
	// until the checks of the cold start are done: the background compile
	// cannot finish before them, however the goroutines are scheduled.
	dir := t.TempDir()
	seedCompiledCode(t, dir)
	unlock, ok := lockCompile(dir, false, func() bool { return true })
	require.True(t, ok)
	e, err := New(ctx, WithCompilationCacheDir(dir), WithMemoryLimitPages(pagesStandIn))
	if err != nil {
		unlock()
		t.Fatal(err)
	}
	defer e.Close(ctx)
	s := e.Stats()
	e.mu.Lock()
	standIn := e.current
	e.mu.Unlock()
	returns := memoryReturns.Load()
	unlock()
	require.True(t, s.Interpreter && s.Pending, "cold start: want the interpreter with a compile pending, got %+v", s)

	<-e.watched // the watcher ends once it has promoted the Engine

	s = e.Stats()
	assert.False(t, s.Interpreter, "the compiled tier is ready but the Engine is still on the interpreter: %+v", s)
	assert.Equal(t, 1, s.Discarded, "the idle interpreter instance was not closed")
	e.mu.Lock()
	for _, in := range e.idle {
		assert.Same(t, e.current, in.tier, "an idle instance of the old tier is kept")
	}
	e.mu.Unlock()
	tiersMu.Lock()
	released, refs, known := standIn.released, standIn.refs, tiers[standIn.key] == standIn
	tiersMu.Unlock()
	assert.True(t, released, "the interpreter tier was not released")
	assert.Zero(t, refs, "references left on the interpreter tier")
	assert.False(t, known, "the released interpreter tier is still shared")
	assert.Greater(t, memoryReturns.Load(), returns, "the freed memory was not returned to the OS")
	// Its runtime is closed: nothing can instantiate from it any more.
	_, err = standIn.rt.InstantiateModule(ctx, standIn.mod, moduleConfig())
	assert.Error(t, err, "the interpreter tier's runtime is still open")

	for _, op := range benchdata.Ops {
		out, err := e.Handle(ctx, op.Input)
		same(t, "after the swap "+op.Name, op.Input, core.Handle(op.Input), out, err)
	}
}

// otherProcessCompiles is what another process starting at the same moment
// on the same cold cache does: it holds the compile lock of dir while it
// compiles into dir, then marks the cache warm. The lock is an advisory
// file lock held by an open file, so one taken here excludes an Engine of
// this process just as one taken by another process does.
func otherProcessCompiles(t *testing.T, dir string) (compile, unlock func()) {
	t.Helper()
	unlock, ok := lockCompile(dir, false, func() bool { return true })
	require.True(t, ok)
	return func() {
		ctx := context.Background()
		cache, err := wazero.NewCompilationCacheWithDir(dir)
		require.NoError(t, err)
		defer cache.Close(ctx)
		rt, _, err := wasmruntime.Compile(ctx, false, cache, pagesLock, false)
		require.NoError(t, err)
		require.NoError(t, rt.Close(ctx))
		markCacheWarm(dir)
	}, unlock
}

// TestColdStartsShareOneCompile: while another process compiles into the
// same cold cache, an Engine serves on the interpreter and waits for that
// compile instead of running its own (measured before: 20 processes started
// together on a cold cache each compiled, 20 s of CPU on 2 cores, and each
// peaked above 120 MB); then it loads the result from the cache.
func TestColdStartsShareOneCompile(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	ctx := context.Background()
	// The other process's optimizing compile is a load of the seeded entry:
	// what is tested is that the Engine waits for it (the lock and the warm
	// marker), and under -race a real compile costs 5-15 s of CPU.
	dir := t.TempDir()
	seedCompiledCode(t, dir)
	compile, unlock := otherProcessCompiles(t, dir)
	unlocked := false
	defer func() {
		if !unlocked {
			unlock()
		}
	}()
	cold := coldCompiles.Load()

	e, err := New(ctx, WithCompilationCacheDir(dir), WithMemoryLimitPages(pagesLock))
	require.NoError(t, err)
	defer e.Close(ctx)
	s := e.Stats()
	require.True(t, s.Interpreter && s.Pending, "cold start: want the interpreter with a compile pending, got %+v", s)
	in := []byte(`{"op":"normalize","arguments":"{\"question\":\"Meanwhile?\"}"}`)
	out, err := e.Handle(ctx, in)
	same(t, "while the other process compiles", in, core.Handle(in), out, err)

	compile()
	unlock()
	unlocked = true
	<-e.watched

	assert.Equal(t, cold, coldCompiles.Load(), "the Engine compiled on its own instead of loading the other process's compile")
	s = e.Stats()
	assert.False(t, s.Interpreter, "not on compiled code after the other process's compile: %+v", s)
	assert.NoError(t, s.BackgroundError)
	out, err = e.Handle(ctx, in)
	same(t, "loaded from the cache", in, core.Handle(in), out, err)
}

// TestCompileWaitingForTheLockIsAbandoned: an Engine closed while its
// compile still waits for another process's gives the compile up (the
// other process fills the cache) instead of compiling for nobody, and
// Close does not wait for the other process. If the abandonment were
// missing, Close would return only after the lock wait's bound and a cold
// compile, which the last check sees.
func TestCompileWaitingForTheLockIsAbandoned(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	ctx := context.Background()
	dir := t.TempDir()
	_, unlock := otherProcessCompiles(t, dir)
	defer unlock()
	cold := coldCompiles.Load()

	e, err := New(ctx, WithCompilationCacheDir(dir), WithMemoryLimitPages(pagesAbandon))
	require.NoError(t, err)
	e.mu.Lock()
	pending := e.pending
	e.mu.Unlock()
	require.NotNil(t, pending, "cold start without a pending compile")
	require.NoError(t, e.Close(ctx))

	<-pending.done
	assert.True(t, errors.Is(pending.err, errAbandoned), "the compile ended with %v, want it abandoned", pending.err)
	assert.Equal(t, cold, coldCompiles.Load(), "an abandoned compile ran")
	assert.False(t, tierStarted(pending.key), "the abandoned tier is still shared")
}

// TestLargeInputReturnsMemory: after a call whose input was large (the
// guest's memory grew by megabytes, and growing it copies it) the freed
// memory goes back to the OS; after an ordinary call it does not (no
// garbage collection per call).
func TestLargeInputReturnsMemory(t *testing.T) {
	ctx := context.Background()
	e := sharedEngine(t, "compiler")
	small := benchdata.Ops[0].Input
	returns := memoryReturns.Load()
	for range 10 {
		out, err := e.Handle(ctx, small)
		same(t, "ordinary call", small, core.Handle(small), out, err)
	}
	assert.Equal(t, returns, memoryReturns.Load(), "memory returned after ordinary calls")

	large := append([]byte(`{"op":"normalize","arguments":"`), bytes.Repeat([]byte("x"), largeInputBytes)...)
	large = append(large, `"}`...)
	out, err := e.Handle(ctx, large)
	same(t, "large call", large, core.Handle(large), out, err)
	assert.Equal(t, returns+1, memoryReturns.Load(), "memory not returned after a %d-byte input", len(large))
}

// TestReleaseUnusedClosesTheTiersNothingHolds: ReleaseUnused leaves alone the
// compiled tier an Engine holds, closes it once the last Engine using it is
// closed, and a later New compiles (here: loads) it again and answers the
// same bytes.
func TestReleaseUnusedClosesTheTiersNothingHolds(t *testing.T) {
	ctx := context.Background()
	warmTestCache(t)
	dir := t.TempDir() // a configuration of its own: no shared Engine holds its tier
	require.NoError(t, os.CopyFS(dir, os.DirFS(testCacheDir)))
	opts := []Option{WithCompilationCacheDir(dir), WithTieredStart(false)}
	key := buildConfig(opts).key(false)
	known := func() bool {
		tiersMu.Lock()
		defer tiersMu.Unlock()
		return tiers[key] != nil
	}
	in := benchdata.Ops[0].Input // normalize

	e, err := New(ctx, opts...)
	require.NoError(t, err)
	want, err := e.Handle(ctx, in)
	require.NoError(t, err)
	ReleaseUnused()
	require.True(t, known(), "an Engine holds the tier")
	got, err := e.Handle(ctx, in)
	require.NoError(t, err)
	require.Equal(t, string(want), string(got))

	require.NoError(t, e.Close(ctx))
	require.True(t, known(), "an optimizing tier outlives its Engine")
	returns := memoryReturns.Load()
	require.GreaterOrEqual(t, ReleaseUnused(), 1)
	require.False(t, known(), "released once nothing holds it")
	require.Greater(t, memoryReturns.Load(), returns, "its memory is returned at once")

	e, err = New(ctx, opts...)
	require.NoError(t, err)
	defer e.Close(ctx)
	got, err = e.Handle(ctx, in)
	require.NoError(t, err)
	require.Equal(t, string(want), string(got), "the tier compiled again answers the same")
}
