package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/askcore/askcore"
	"github.com/askcore/askcore/core"
	"github.com/askcore/askcore/frontdoor"
	"github.com/askcore/askcore/mcpserver"
	"github.com/askcore/askcore/termui"
)

const usage = `usage: askcore-mcp [--engine wasm|native] [--timeout DURATION] [--progress DURATION] [--web auto|always|never] [--no-browser] [--web-addr HOST:PORT]
An MCP server on stdio with one tool, ask_user_question; register it in your
MCP client (see docs/hosts.md).

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
	ctx, stop := frontdoor.NotifyStop(context.Background())
	defer stop()
	status := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Getenv)
	stop()
	os.Exit(status)
}

// stopWithin bounds the time from a signal to the exit (documented: 2 s;
// the budget leaves room for a loaded machine): pending calls are
// answered, forms withdrawn and the engine released within it, or the
// process exits anyway. A background compile of the wasm engine that is
// still running is abandoned (the next start compiles again).
const stopWithin = 1500 * time.Millisecond

// engineCloseBudget is the part of stopWithin kept for releasing the
// engine after the calls were answered.
const engineCloseBudget = 300 * time.Millisecond

// run is the whole program: it serves MCP on stdin/stdout until the client
// closes stdin or stdout, or ctx is cancelled (a signal, whose status it
// returns), and returns the exit status.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) int {
	fs := frontdoor.NewCommand("askcore-mcp", usage, stdout, stderr)
	var settings frontdoor.Settings
	settings.AddEngineFlag(fs.FlagSet)
	timeout := fs.Duration("timeout", 0,
		"give up on a question after `DURATION` with ASK_TIMEOUT (e.g. 10m; default: never, nothing is chosen for the person)")
	progress := fs.Duration("progress", 5*time.Second,
		"while a person answers a call that carries a progress token, send notifications/progress every `DURATION` (0: never)")
	var web frontdoor.Web
	web.AddFlags(fs.FlagSet)
	var hubFlags frontdoor.Hub
	hubFlags.AddFlags(fs.FlagSet)
	if status, done := fs.Parse(args); done {
		return status
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
		every = -1 // Options: negative is "never"
	}

	log := frontdoor.Logger(stderr, getenv)
	client, closeEngine, err := settings.Open(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return frontdoor.ExitStatus(context.Cause(ctx))
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

	svc := askcore.NewService(client)
	srv, err := mcpserver.New(svc, &mcpserver.Options{
		Timeout: *timeout, ProgressEvery: every, Web: web.Mode, Logger: log,
		// Who turns the browser off reads the printed address.
		URLShown:   isTerminal(stderr) || web.NoBrowser,
		Page:       web.PageOptions(stderr, getenv),
		StopWithin: stopWithin - engineCloseBudget,
		// Claude Code tells the servers it starts how it runs: the core
		// knows claude -p's cancel for what it is (nobody saw the form).
		ClientEntrypoint: getenv("CLAUDE_CODE_ENTRYPOINT"),
	})
	if err != nil {
		fmt.Fprintf(stderr, "askcore-mcp: %v\n", err)
		return 1
	}
	// With --hub, each question is also in the hub's inbox: a client
	// that shows no form (codex exec, claude -p) drops out and the run
	// waits for the person's answer there.
	prov, err := hubFlags.Provider(askcore.Surface{Name: "the form", Provider: srv.Provider()}, getenv)
	if err != nil {
		srv.Close()
		fmt.Fprintf(stderr, "askcore-mcp: %v\n", err)
		return 2
	}
	dispose, err := svc.Register(prov)
	if err != nil {
		fmt.Fprintf(stderr, "askcore-mcp: %v\n", err)
		return 1
	}
	defer srv.Close()
	defer dispose()
	log.Info("askcore-mcp ready", "engine", settings.Engine, "timeout", *timeout, "progress", *progress, "web", web.Mode, "max_line_bytes", core.MaxInputBytes)

	err = srv.Serve(ctx, stdin, stdout)
	if ctx.Err() != nil {
		engineDeadline, stopping = engineCloseBudget, true
		return frontdoor.ExitStatus(context.Cause(ctx))
	}
	if err != nil {
		log.Error("serving MCP", "err", err)
		return 1
	}
	return 0
}

// isTerminal reports whether w is a terminal: the answer page's address,
// written there, reaches the person.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && termui.IsTerminal(f)
}
