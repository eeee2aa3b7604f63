package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/askcore/askcore/frontdoor"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	// A client that dies leaves a broken stdout: writing to it must fail
	// (and end the session like a closed stdin) rather than kill the
	// process with SIGPIPE before it has withdrawn its questions.
	signal.Ignore(syscall.SIGPIPE)
	os.Exit(run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Getenv))
}

// run is the whole program: it serves MCP on stdin/stdout until the client
// closes stdin or ctx is cancelled (SIGINT, SIGTERM), and returns the exit
// status.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) int {
	fs := flag.NewFlagSet("askcore-mcp", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: askcore-mcp [--engine wasm|native] [--timeout DURATION] [--progress DURATION]")
		fmt.Fprintln(stderr, "An MCP server on stdio with one tool, ask_user_question; register it in your MCP client (see the README).")
		fs.PrintDefaults()
	}
	var settings frontdoor.Settings
	settings.AddEngineFlag(fs)
	timeout := fs.Duration("timeout", 0,
		"give up on a question after `DURATION` with ASK_TIMEOUT (e.g. 10m; default: never, nothing is chosen for the person)")
	progress := fs.Duration("progress", defaultProgressEvery,
		"while a person answers a call that carries a progress token, send notifications/progress every `DURATION` (0: never)")
	version := fs.Bool("version", false, "print the version and exit")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if *version {
		fmt.Fprintln(stdout, "askcore-mcp", frontdoor.Version())
		return 0
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "askcore-mcp: unexpected arguments %q\n", fs.Args())
		fs.Usage()
		return 2
	}
	for _, d := range []struct {
		name  string
		value time.Duration
	}{{"timeout", *timeout}, {"progress", *progress}} {
		if d.value < 0 {
			fmt.Fprintf(stderr, "askcore-mcp: --%s must not be negative, got %s\n", d.name, d.value)
			return 2
		}
	}
	every := *progress
	if every == 0 {
		every = -1 // options: negative is "never"
	}

	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: logLevel(getenv)}))
	client, closeEngine, err := settings.Open(ctx)
	if err != nil {
		fmt.Fprintf(stderr, "askcore-mcp: starting the engine: %v\n", err)
		return 1
	}
	defer func() {
		cctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := closeEngine(cctx); err != nil {
			log.Warn("closing the engine", "err", err)
		}
	}()

	srv, err := newServer(ctx, client, options{timeout: *timeout, progressEvery: every, log: log})
	if err != nil {
		fmt.Fprintf(stderr, "askcore-mcp: %v\n", err)
		return 1
	}
	defer srv.close()
	log.Info("askcore-mcp ready", "engine", settings.Engine, "timeout", *timeout, "progress", *progress)

	err = srv.mcp.Run(ctx, &mcp.IOTransport{Reader: io.NopCloser(stdin), Writer: nopWriteCloser{stdout}})
	switch {
	case err == nil, errors.Is(err, io.EOF), ctx.Err() != nil:
		return 0
	case errors.Is(err, syscall.EPIPE), errors.Is(err, io.ErrClosedPipe):
		// The client went away (its end of stdout closed): pending
		// questions were aborted, as at the end of stdin.
		log.Info("the client closed the connection", "err", err)
		return 0
	default:
		log.Error("serving MCP", "err", err)
		return 1
	}
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// logLevel is warn unless ASKCORE_LOG=debug or info.
func logLevel(getenv func(string) string) slog.Level {
	switch getenv("ASKCORE_LOG") {
	case "debug":
		return slog.LevelDebug
	case "info":
		return slog.LevelInfo
	}
	return slog.LevelWarn
}
