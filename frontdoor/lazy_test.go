package frontdoor

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/askcore/askcore"
)

// fakeOpens is an engine opener that counts opens and closes.
type fakeOpens struct{ opened, closed atomic.Int32 }

func (f *fakeOpens) open(context.Context) (askcore.Engine, func(context.Context) error, error) {
	f.opened.Add(1)
	return askcore.Native{}, func(context.Context) error { f.closed.Add(1); return nil }, nil
}

func TestLazyEngineOpensAtFirstNeedAndReleasesWhenIdle(t *testing.T) {
	ctx := context.Background()
	var f fakeOpens
	l := &lazyEngine{open: f.open, idle: 20 * time.Millisecond}

	for _, schema := range []string{`{"op":"schema"}`, `{"op":"schema","strict":true}`} {
		out, err := l.Handle(ctx, []byte(schema))
		require.NoError(t, err)
		want, _ := askcore.Native{}.Handle(ctx, []byte(schema))
		assert.Equal(t, string(want), string(out))
	}
	assert.Zero(t, f.opened.Load(), "op schema opens no engine")

	normalize := []byte(`{"op":"normalize","arguments":"{\"question\":\"Which?\"}"}`)
	for range 3 {
		_, err := l.Handle(ctx, normalize)
		require.NoError(t, err)
	}
	assert.EqualValues(t, 1, f.opened.Load(), "opened once, at the first call that needs it")

	require.Eventually(t, func() bool { return f.closed.Load() == 1 }, 5*time.Second, 5*time.Millisecond, "released after idling")
	_, err := l.Handle(ctx, normalize)
	require.NoError(t, err)
	assert.EqualValues(t, 2, f.opened.Load(), "opened again at the next call")

	require.NoError(t, l.Close(ctx))
	assert.EqualValues(t, 2, f.closed.Load())
	_, err = l.Handle(ctx, normalize)
	require.ErrorIs(t, err, errEngineClosed)
	require.NoError(t, l.Close(ctx), "a second Close does nothing")
}

// The wasm engine Settings.Open gives answers as the native core does, op
// schema (answered natively) and the rest (on wazero) alike.
func TestOpenWasmIsLazyAndAnswersAsNative(t *testing.T) {
	ctx := context.Background()
	c, closeFn, err := Settings{Engine: EngineWasm}.Open(ctx)
	require.NoError(t, err)
	e := c.Engine()
	l := e.(*lazyEngine)
	l.mu.Lock()
	assert.Nil(t, l.engine, "nothing compiled before a call")
	l.mu.Unlock()
	for _, in := range []string{`{"op":"schema"}`, `{"op":"normalize","arguments":"{\"question\":\"Which?\",\"options\":[\"a\",\"b\"]}"}`} {
		got, err := e.Handle(ctx, []byte(in))
		require.NoError(t, err)
		want, _ := askcore.Native{}.Handle(ctx, []byte(in))
		assert.Equal(t, string(want), string(got), in)
	}
	l.mu.Lock()
	assert.NotNil(t, l.engine, "the normalize call opened the wasm engine")
	l.mu.Unlock()
	require.NoError(t, closeFn(ctx))
}
