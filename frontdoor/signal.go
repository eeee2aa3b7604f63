package frontdoor

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
)

// StopSignals end a front door: every pending question is withdrawn with
// the core's stopped error naming the signal, and the process exits with
// ExitStatus.
var StopSignals = []os.Signal{syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP}

// Stopped is the cancellation cause of a front door's context when a
// signal stops it (NotifyStop).
type Stopped struct{ Signal os.Signal }

func (s Stopped) Error() string { return "received " + SignalName(s.Signal) }

// NotifyStop returns a context that the first of StopSignals cancels with
// the cause Stopped; a second one exits the process at once with its
// status, without waiting for the first to be served. SIGPIPE is ignored
// from then on: a client that dies leaves a broken stdout, and writing to
// it must fail (and end the session as a closed stdin does) rather than
// kill the process before it has withdrawn its questions. stop releases
// the signals.
func NotifyStop(parent context.Context) (ctx context.Context, stop func()) {
	ctx, cancel := context.WithCancelCause(parent)
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, StopSignals...)
	signal.Ignore(syscall.SIGPIPE)
	done := make(chan struct{})
	go func() {
		select {
		case sig := <-sigs:
			cancel(Stopped{sig})
		case <-done:
			return
		}
		select {
		case sig := <-sigs:
			os.Exit(SignalStatus(sig))
		case <-done:
		}
	}()
	return ctx, func() {
		signal.Stop(sigs)
		close(done)
		cancel(nil)
	}
}

// SignalName is a signal's conventional name ("SIGTERM").
func SignalName(sig os.Signal) string {
	switch sig {
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGINT:
		return "SIGINT"
	case syscall.SIGHUP:
		return "SIGHUP"
	}
	return sig.String()
}

// StoppedBy is the name of the signal cause names (Stopped), or "".
func StoppedBy(cause error) string {
	var s Stopped
	if errors.As(cause, &s) {
		return SignalName(s.Signal)
	}
	return ""
}

// SignalStatus is the exit status of a program sig ended, as a shell
// reports it: 128 plus the signal's number (SIGHUP 129, SIGINT 130,
// SIGTERM 143).
func SignalStatus(sig os.Signal) int {
	if n, ok := sig.(syscall.Signal); ok {
		return 128 + int(n)
	}
	return 1
}

// ExitStatus is the exit status for what ended a front door's context:
// SignalStatus for Stopped, 0 for anything else (a plain cancellation).
func ExitStatus(cause error) int {
	var s Stopped
	if errors.As(cause, &s) {
		return SignalStatus(s.Signal)
	}
	return 0
}

// LogLevel is the level of a front door's log on stderr: warn, unless
// ASKCORE_LOG is debug or info.
func LogLevel(getenv func(string) string) slog.Level {
	switch getenv("ASKCORE_LOG") {
	case "debug":
		return slog.LevelDebug
	case "info":
		return slog.LevelInfo
	}
	return slog.LevelWarn
}

// Logger is a front door's log: text records on w at LogLevel.
func Logger(w io.Writer, getenv func(string) string) *slog.Logger {
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: LogLevel(getenv)}))
}
