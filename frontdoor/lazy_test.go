package frontdoor

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/askcore/askcore"
)

// fakeClock stands for time.AfterFunc: the release timers it arms run when
// the test fires them, never on their own.
type fakeClock struct {
	mu    sync.Mutex
	armed []func()
}

func (c *fakeClock) afterFunc(_ time.Duration, f func()) func() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.armed = append(c.armed, f)
	return func() bool { return true }
}

// fire runs every timer armed so far, stopped or not, oldest first: a
// stopped or superseded timer must release nothing, as one that fired
// while a call began would.
func (c *fakeClock) fire() {
	c.mu.Lock()
	armed := c.armed
	c.armed = nil
	c.mu.Unlock()
	for _, f := range armed {
		f()
	}
}

// held reports whether l has an engine open.
func (l *lazyEngine) held() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.engine != nil
}

// fakeOpens is an engine opener that counts opens and closes; its engine
// answers as the native core and, on the input block, waits for unblock.
type fakeOpens struct {
	opened, closed atomic.Int32
	entered        chan struct{}
	unblock        chan struct{}
}

var block = []byte(`{"op":"normalize","arguments":"{\"question\":\"Blocked?\"}"}`)

func (f *fakeOpens) open(context.Context) (askcore.Engine, func(context.Context) error, error) {
	f.opened.Add(1)
	return blockingEngine{f}, func(context.Context) error { f.closed.Add(1); return nil }, nil
}

type blockingEngine struct{ f *fakeOpens }

func (e blockingEngine) Handle(ctx context.Context, input []byte) ([]byte, error) {
	if string(input) == string(block) {
		e.f.entered <- struct{}{}
		<-e.f.unblock
	}
	return askcore.Native{}.Handle(ctx, input)
}

var normalizeInput = []byte(`{"op":"normalize","arguments":"{\"question\":\"Which?\"}"}`)

func TestLazyEngineOpensAtFirstNeedAndReleasesWhenIdle(t *testing.T) {
	ctx := context.Background()
	f := fakeOpens{entered: make(chan struct{}), unblock: make(chan struct{})}
	var clock fakeClock
	l := &lazyEngine{open: f.open, idle: time.Minute, afterFunc: clock.afterFunc}

	for _, schema := range []string{`{"op":"schema"}`, `{"op":"schema","strict":true}`} {
		out, err := l.Handle(ctx, []byte(schema))
		require.NoError(t, err)
		want, _ := askcore.Native{}.Handle(ctx, []byte(schema))
		assert.Equal(t, string(want), string(out))
	}
	assert.Zero(t, f.opened.Load(), "op schema opens no engine")
	assert.False(t, l.held())

	// During a call the engine is held, and no timer releases it.
	done := make(chan error, 1)
	go func() { _, err := l.Handle(ctx, block); done <- err }()
	<-f.entered
	assert.True(t, l.held(), "held during the call")
	clock.fire()
	assert.True(t, l.held(), "no release while a call runs")
	close(f.unblock)
	require.NoError(t, <-done)

	for range 3 {
		_, err := l.Handle(ctx, normalizeInput)
		require.NoError(t, err)
	}
	assert.EqualValues(t, 1, f.opened.Load(), "opened once, at the first call that needs it")
	assert.True(t, l.held(), "held until the idle period is over")

	clock.fire() // the timers of the four calls: only the last one's releases
	assert.False(t, l.held(), "released once idle")
	assert.EqualValues(t, 1, f.closed.Load())

	_, err := l.Handle(ctx, normalizeInput)
	require.NoError(t, err)
	assert.EqualValues(t, 2, f.opened.Load(), "opened again at the next call")

	require.NoError(t, l.Close(ctx))
	assert.EqualValues(t, 2, f.closed.Load())
	clock.fire()
	assert.EqualValues(t, 2, f.closed.Load(), "a timer after Close releases nothing")
	_, err = l.Handle(ctx, normalizeInput)
	require.ErrorIs(t, err, errEngineClosed)
	require.NoError(t, l.Close(ctx), "a second Close does nothing")
}

// Calls arriving while the engine opens or is released: every call gets an
// open engine, and every engine opened is closed once.
func TestLazyEngineCallsDuringOpenAndRelease(t *testing.T) {
	ctx := context.Background()
	var f fakeOpens
	var clock fakeClock
	l := &lazyEngine{open: f.open, idle: time.Minute, afterFunc: clock.afterFunc}
	want, _ := askcore.Native{}.Handle(ctx, normalizeInput)

	stop := make(chan struct{})
	var releases sync.WaitGroup
	releases.Add(1)
	go func() {
		defer releases.Done()
		for {
			select {
			case <-stop:
				return
			default:
				clock.fire()
			}
		}
	}()
	var calls sync.WaitGroup
	for range 8 {
		calls.Add(1)
		go func() {
			defer calls.Done()
			for range 200 {
				out, err := l.Handle(ctx, normalizeInput)
				if !assert.NoError(t, err) || !assert.Equal(t, string(want), string(out)) {
					return
				}
			}
		}()
	}
	calls.Wait()
	close(stop)
	releases.Wait()
	require.NoError(t, l.Close(ctx))
	assert.Positive(t, f.opened.Load())
	assert.Equal(t, f.opened.Load(), f.closed.Load(), "every engine opened is closed once")
	t.Logf("%d opens for 1600 calls", f.opened.Load())
}

// A front door on the wasm engine (Settings.Open, as askcore-mcp and
// askcore-acp start): what initialize and tools/list need (the tool, op
// schema) opens no engine; a question opens the wasm engine, which holds it
// during the call and gives it back after the idle period; the answers of
// the engine opened again equal the native core's.
func TestOpenWasmIsLazyAndAnswersAsNative(t *testing.T) {
	ctx := context.Background()
	c, closeFn, err := Settings{Engine: EngineWasm}.Open(ctx)
	require.NoError(t, err)
	l := c.Engine().(*lazyEngine)
	var clock fakeClock
	l.afterFunc = clock.afterFunc
	var heldDuring atomic.Bool
	open := l.open
	l.open = func(ctx context.Context) (askcore.Engine, func(context.Context) error, error) {
		e, closeFn, err := open(ctx)
		return spyEngine{e, func() { heldDuring.Store(l.held()) }}, closeFn, err
	}

	native := askcore.NewCore(askcore.Native{})
	for _, strict := range []bool{false, true} {
		tool, err := c.Tool(ctx)
		if strict {
			tool, err = c.StrictTool(ctx)
		}
		require.NoError(t, err)
		want, _ := native.Tool(ctx)
		if strict {
			want, _ = native.StrictTool(ctx)
		}
		assert.Equal(t, want, tool)
	}
	assert.False(t, l.held(), "the tool (initialize, tools/list) opens no engine")

	in := []byte(`{"op":"normalize","arguments":"{\"question\":\"Which?\",\"options\":[\"a\",\"b\"]}"}`)
	want, _ := askcore.Native{}.Handle(ctx, in)
	for round := range 2 {
		got, err := c.Engine().Handle(ctx, in)
		require.NoError(t, err)
		assert.Equal(t, string(want), string(got), "round %d", round)
		assert.True(t, heldDuring.Load(), "the question ran on the wasm engine")
		assert.True(t, l.held(), "held until the idle period is over")
		clock.fire()
		assert.False(t, l.held(), "released after the idle period")
	}
	require.NoError(t, closeFn(ctx))
}

// spyEngine runs during before each call of Engine.
type spyEngine struct {
	askcore.Engine
	during func()
}

func (s spyEngine) Handle(ctx context.Context, input []byte) ([]byte, error) {
	s.during()
	return s.Engine.Handle(ctx, input)
}
