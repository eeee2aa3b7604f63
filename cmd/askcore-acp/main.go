package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"time"

	"github.com/askcore/askcore"
	"github.com/askcore/askcore/acpagent"
	"github.com/askcore/askcore/frontdoor"
	"github.com/askcore/askcore/frontdoor/openaimodel"
)

const usage = `usage: askcore-acp [--script FILE] [--engine wasm|native] [--web auto|always|never] [--no-browser] [--web-addr HOST:PORT]
                   [--hub URL [--hub-token-file FILE]]
An ACP agent on stdio; configure your editor to launch it (see docs/acp.md).
Questions are form elicitations where the client advertised them; elsewhere
(--web=auto, the default) they are asked on a local web page, whose URL
("askcore: answer at URL") is written on stderr, sent to the session as
agent message text, and opened in the default browser on a desktop session
(unless --no-browser or ASKCORE_BROWSER=none). --web=always uses the page
even where forms are available; --web=never answers ASK_FAILED where they
are not. Over SSH, pick the port and forward it, then open the URL printed:
  ssh -L 8765:127.0.0.1:8765 host askcore-acp --web-addr 127.0.0.1:8765
With --hub URL (or ASKCORE_HUB_URL; the agent's token in ASKCORE_HUB_TOKEN or
the file --hub-token-file names), each question is also in the askcore-hub's
inbox and the first answer wins; a question the editor cannot show (no
forms under --web=never, a form declined before anyone could read it) waits
there.

Flags:
`

func main() {
	// From the first moment: a signal during start-up is handled too.
	ctx, stop := frontdoor.NotifyStop(context.Background())
	defer stop()
	// The ACP SDK's own diagnostics go through slog.Default: to stderr.
	slog.SetDefault(frontdoor.Logger(os.Stderr, os.Getenv))
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Getenv)
	stop()
	os.Exit(code)
}

// closeGrace bounds the engine's release after a signal (with
// acpagent.StopGrace, the exit comes within 2 s of the signal).
const closeGrace = 300 * time.Millisecond

// run is the whole program; it returns the exit status. When ctx is
// cancelled (frontdoor.NotifyStop: a signal) the agent stops as
// acpagent.Agent.Serve says and run returns frontdoor.ExitStatus.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) int {
	fs := frontdoor.NewCommand("askcore-acp", usage, stdout, stderr)
	settings := frontdoor.Settings{FromEnv: openaimodel.FromEnv}
	settings.AddFlags(fs.FlagSet)
	var web frontdoor.Web
	web.AddFlags(fs.FlagSet)
	var hubFlags frontdoor.Hub
	hubFlags.AddFlags(fs.FlagSet)
	if status, done := fs.Parse(args); done {
		return status
	}

	log := frontdoor.Logger(stderr, getenv)
	// Check the model settings now (a bad --script fails here, not at the
	// first session); the engine opens in the background.
	_, source, err := settings.Model(getenv)
	if err != nil {
		fmt.Fprintf(stderr, "askcore-acp: %v\n", err)
		return 1
	}
	// With --hub, each question is also in the hub's inbox; the settings
	// are checked (and the token read) now, before a client connects.
	beside, err := hubFlags.Beside(getenv)
	if err != nil {
		fmt.Fprintf(stderr, "askcore-acp: %v\n", err)
		return 2
	}
	log.Info("askcore-acp ready", "model", string(source), "engine", settings.Engine, "web", web.Mode)
	a := acpagent.New(acpagent.Options{
		Start: func(ctx context.Context) (acpagent.Backend, error) {
			rt, err := frontdoor.Build(ctx, settings, getenv)
			if err != nil {
				return acpagent.Backend{}, err
			}
			return acpagent.FromRuntime(rt), nil
		},
		Web:  web.Mode,
		Page: web.PageOptions(stderr, getenv),
		Log:  log,
		Beside: func(editor askcore.Provider) askcore.Provider {
			return beside(askcore.Surface{Name: "the editor", Provider: editor})
		},
	})
	served := a.Serve(ctx, stdin, stdout)

	grace := 5 * time.Second
	if served != nil {
		grace = closeGrace
	}
	closeCtx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	if err := a.Close(closeCtx); err != nil {
		log.Warn("closing the engine", "err", err)
	}
	return frontdoor.ExitStatus(served)
}
