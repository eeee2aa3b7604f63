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

	"github.com/askcore/askcore/answerpage"
	"github.com/askcore/askcore/frontdoor"
)

const usageLine = "usage: askcore-mcp [--engine wasm|native] [--timeout DURATION] [--progress DURATION] [--web auto|always|never] [--no-browser] [--web-addr HOST:PORT]"

const usageText = `An MCP server on stdio with one tool, ask_user_question; register it in your
MCP client (see cmd/mcp/README.md).

Where the question is shown: as the client's own form (MCP form
elicitation) where the client advertises it; else on a local answer page
(--web=auto, the default): the client's URL-mode elicitation carries the
page's URL where the client advertises elicitation.url, and otherwise the
line "askcore: answer at URL" on stderr, the progress notifications'
message and the default browser (on a desktop session, unless --no-browser
or ASKCORE_BROWSER=none) name it. --web=always uses the page even where
forms are available; --web=never answers ASK_FAILED where they are not.
The page listens on 127.0.0.1, a free port, behind a secret token in the
URL. Over SSH, fix the port and forward it, then open the URL printed:
  ssh -L 8765:127.0.0.1:8765 host askcore-mcp --web-addr 127.0.0.1:8765

Flags:
`

func main() {
	ctx, cancel := context.WithCancelCause(context.Background())
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	go func() {
		cancel(signalCause{<-sigs})
		// A second signal does not wait for the first to be served.
		os.Exit(exitStatus(signalCause{<-sigs}))
	}()
	// A client that dies leaves a broken stdout: writing to it must fail
	// (and end the session like a closed stdin) rather than kill the
	// process with SIGPIPE before it has withdrawn its questions.
	signal.Ignore(syscall.SIGPIPE)
	os.Exit(run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Getenv))
}

// signalCause is the cancellation cause of run's ctx for a signal.
type signalCause struct{ sig os.Signal }

func (s signalCause) Error() string { return "received " + signalName(s.sig) }

// signalName is a signal's conventional name ("SIGTERM").
func signalName(sig os.Signal) string {
	switch sig {
	case os.Interrupt:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGHUP:
		return "SIGHUP"
	}
	return sig.String()
}

// exitStatus is the status for what ended run's ctx: 128 plus the signal's
// number for a signal (130 SIGINT, 143 SIGTERM, 129 SIGHUP), as a shell
// reports a process a signal ended; 0 for a plain cancellation.
func exitStatus(cause error) int {
	var sc signalCause
	if errors.As(cause, &sc) {
		if n, ok := sc.sig.(syscall.Signal); ok {
			return 128 + int(n)
		}
		return 1
	}
	return 0
}

// stopWithin bounds the time from a signal to the exit (documented: 2 s;
// the budget leaves room for a loaded machine): pending calls are
// answered, forms withdrawn and the engine released within it, or the
// process exits anyway. A background compile of the wasm engine that is
// still running is abandoned (the next start compiles again).
const stopWithin = 1500 * time.Millisecond

// run is the whole program: it serves MCP on stdin/stdout until the client
// closes stdin or stdout, or ctx is cancelled (a signal: see stop), and
// returns the exit status.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) int {
	fs := flag.NewFlagSet("askcore-mcp", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(stderr, usageLine)
		fmt.Fprint(stderr, usageText)
		fs.PrintDefaults()
	}
	var settings frontdoor.Settings
	settings.AddEngineFlag(fs)
	timeout := fs.Duration("timeout", 0,
		"give up on a question after `DURATION` with ASK_TIMEOUT (e.g. 10m; default: never, nothing is chosen for the person)")
	progress := fs.Duration("progress", defaultProgressEvery,
		"while a person answers a call that carries a progress token, send notifications/progress every `DURATION` (0: never)")
	var web frontdoor.WebMode
	fs.Var(&web, "web", "`MODE` of the local answer page: auto (the default; where the client shows no form), always, or never (a client without forms gets ASK_FAILED)")
	noBrowser := fs.Bool("no-browser", false, "never open a browser for the answer page, only print its URL (also ASKCORE_BROWSER=none)")
	webAddr := fs.String("web-addr", answerpage.DefaultAddr, "the answer page's `HOST:PORT` (a fixed port to forward over SSH; an address other than loopback is warned about)")
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
		if ctx.Err() != nil {
			return exitStatus(context.Cause(ctx))
		}
		fmt.Fprintf(stderr, "askcore-mcp: starting the engine: %v\n", err)
		return 1
	}
	engineDeadline, stopping := 5*time.Second, false
	defer func() {
		cctx, cancel := context.WithTimeout(context.Background(), engineDeadline)
		defer cancel()
		if err := closeEngine(cctx); err != nil && stopping {
			log.Info("stopping: the engine was not released in time", "err", err)
		} else if err != nil {
			log.Warn("closing the engine", "err", err)
		}
	}()

	srv, err := newServer(ctx, client, options{timeout: *timeout, progressEvery: every, log: log, web: web,
		page: pageOptions{noBrowser: *noBrowser, addr: *webAddr, log: stderr, getenv: getenv}})
	if err != nil {
		fmt.Fprintf(stderr, "askcore-mcp: %v\n", err)
		return 1
	}
	defer srv.close()
	log.Info("askcore-mcp ready", "engine", settings.Engine, "timeout", *timeout, "progress", *progress, "web", web, "max_line_bytes", maxLineBytes)

	tr := &lineTransport{r: stdin, w: stdout, log: log}
	if c, ok := stdin.(io.Closer); ok {
		tr.closeReader = c.Close
	}
	ss, err := srv.mcp.Connect(context.WithoutCancel(ctx), tr, nil)
	if err != nil {
		log.Error("serving MCP", "err", err)
		return 1
	}
	ended := make(chan error, 1)
	go func() { ended <- ss.Wait() }()
	select {
	case err = <-ended:
	case <-ctx.Done():
		start := time.Now()
		status := exitStatus(context.Cause(ctx))
		srv.shutdown(ctx, ss, tr.conn, start.Add(stopWithin-engineCloseBudget))
		engineDeadline, stopping = max(time.Until(start.Add(stopWithin)), 10*time.Millisecond), true
		return status
	}
	switch {
	case err == nil, errors.Is(err, io.EOF):
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

// engineCloseBudget is the part of stopWithin kept for releasing the
// engine after the calls were answered.
const engineCloseBudget = 300 * time.Millisecond

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
