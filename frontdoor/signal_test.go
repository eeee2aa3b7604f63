package frontdoor

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSignalStatusAndName(t *testing.T) {
	cases := []struct {
		sig    syscall.Signal
		name   string
		status int
	}{
		{syscall.SIGHUP, "SIGHUP", 129},
		{syscall.SIGINT, "SIGINT", 130},
		{syscall.SIGTERM, "SIGTERM", 143},
	}
	for _, tc := range cases {
		assert.Equal(t, tc.name, SignalName(tc.sig))
		assert.Equal(t, tc.status, SignalStatus(tc.sig))
		cause := fmt.Errorf("wrapped: %w", Stopped{tc.sig})
		assert.Equal(t, tc.status, ExitStatus(cause))
		assert.Equal(t, tc.name, StoppedBy(cause))
		assert.Equal(t, "received "+tc.name, Stopped{tc.sig}.Error())
	}
	assert.Equal(t, 0, ExitStatus(context.Canceled), "a plain cancellation")
	assert.Equal(t, 0, ExitStatus(nil))
	assert.Equal(t, "", StoppedBy(errors.New("x")))
}

// TestNotifyStop sends the process a real SIGHUP: the context ends with
// Stopped naming it.
func TestNotifyStop(t *testing.T) {
	ctx, stop := NotifyStop(context.Background())
	defer stop()
	require.NoError(t, syscall.Kill(syscall.Getpid(), syscall.SIGHUP))
	<-ctx.Done()
	assert.Equal(t, "SIGHUP", StoppedBy(context.Cause(ctx)))
	assert.Equal(t, 129, ExitStatus(context.Cause(ctx)))
}

func TestLogLevel(t *testing.T) {
	for env, want := range map[string]slog.Level{"": slog.LevelWarn, "debug": slog.LevelDebug, "info": slog.LevelInfo, "loud": slog.LevelWarn} {
		assert.Equal(t, want, LogLevel(func(string) string { return env }), env)
	}
}
