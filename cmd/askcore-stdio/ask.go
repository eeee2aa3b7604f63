package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/askcore/askcore"
	"github.com/askcore/askcore/frontdoor"
	"github.com/askcore/askcore/termui"
)

// Exit statuses of "askcore-stdio ask", by error code.
const (
	askExitOK             = 0
	askExitFailed         = 1 // ASK_FAILED, and any other failure
	askExitInvalidRequest = 2 // INVALID_REQUEST (also bad flags or arguments)
	askExitAborted        = 3 // ASK_ABORTED: end of input, Ctrl-C, SIGTERM
	askExitTimeout        = 4 // ASK_TIMEOUT: --timeout elapsed
	askExitDeclined       = 5 // ASK_DECLINED: the person declined (Esc in the keyboard picker)
)

// maxRequestBytes bounds how much of stdin is read as the request. The
// core judges the text, with its own smaller limit (256 KiB, on the
// arguments text); this only stops an endless stream.
const maxRequestBytes = 4 << 20

const askUsage = `usage: askcore-stdio ask [--request JSON] [--engine wasm|native] [--timeout D] [--plain]
                         [--web [--no-browser] [--web-addr HOST:PORT]]

Asks a person a question (or a batch of questions) and prints the answer
as JSON.

The request is ask_user_question's arguments, as a model writes them:
  {"header":"...","question":"...","options":[{"label":"...","value":"...",
   "description":"...","recommended":true}],"allowCustom":false,
   "multiSelect":false}
or a batch {"questions":[{...},{...}]}, asked one question after another.
It is taken from --request, or else read from stdin (all of it).

Where the answer comes from:
  --request JSON      answer lines are read from stdin (a terminal or a pipe);
                      the prompt goes to the terminal (/dev/tty) when stdin
                      is one, else to stderr.
  request on stdin    stdin is used up by the request, so the answer is read
                      from the controlling terminal (/dev/tty), where the
                      prompt is shown too; with no terminal the ask fails
                      with ASK_FAILED (use --request and pipe the answer).
  --hub URL           the question is also in the askcore-hub's inbox; the
                      first answer wins. A terminal that cannot show the
                      question (none, or input at its end) drops out and
                      the ask waits for the inbox; --ask-id ID names the
                      ask, so that a re-run attaches to it. The agent's
                      token: ASKCORE_HUB_TOKEN, or the file
                      --hub-token-file FILE names.

In a browser (--web): the question is asked on a local web page instead
of the terminal; the request is still taken from --request or stdin. The
line "askcore: answer at URL" on stderr names the page (127.0.0.1, a free
port, a secret token); it is opened in the default browser when a desktop
session is detected, unless --no-browser or ASKCORE_BROWSER=none.
Over SSH, pick the port and forward it to the same port on your machine,
then open the URL printed:
  ssh -L 8765:127.0.0.1:8765 host askcore-stdio ask --web --web-addr 127.0.0.1:8765 ...
The page takes the same keys as the picker below and the mouse; Decline
(or Esc) declines.

Keyboard picker (the answer's input and the prompt on a terminal): Up/Down
(j/k) move, 1-9 jump, Space toggles (multi-select), Enter confirms (in a
batch: goes on to the next question), Tab/Shift-Tab switch questions of a
batch, typing on the last entry writes your own answer; Esc declines
(ASK_DECLINED, exit 5), Ctrl-C gives up (ASK_ABORTED, exit 3; only this
program sees it: the terminal is raw while the picker runs).

Line mode (pipes, TERM=dumb, --plain or ASKCORE_PLAIN=1): type a number, a
label or value, your own text when the question allows it, or an empty
line for the recommended option; for a multi-select question, several of
them separated by commas. An answer that does not fit is explained and
asked again. Ctrl-C or end of input gives up (the whole batch).

Output on stdout, one line:
  the answer  {"answer":"...","selected":{"index":0,"label":"...","value":"..."}}
              ("selected" only when an option was chosen); multi-select:
              {"answers":["..."],"selected":[{...}]}; a batch:
              {"answers":[{"question":"...",<that question's answer>}...]}
  an error    {"name":"UserInteractionError","code":"...","message":"..."}

Exit status:
  0  answered
  1  ASK_FAILED (no terminal to read the answer from, the engine failed, ...)
     and any other error
  2  INVALID_REQUEST (the request is malformed or ambiguous; bad flags)
  3  ASK_ABORTED (end of input before an answer, Ctrl-C, SIGTERM)
  4  ASK_TIMEOUT (--timeout elapsed; nothing was chosen)
  5  ASK_DECLINED (the person declined: Esc in the keyboard picker)

Flags:
`

func runAsk(ctx context.Context, args []string, s sys) int {
	fs := flag.NewFlagSet("askcore-stdio ask", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	request := fs.String("request", "", "the request `JSON` (default: read stdin)")
	var settings frontdoor.Settings
	settings.AddEngineFlag(fs)
	timeout := fs.Duration("timeout", 0, "give up after this `duration` (e.g. 2m) with ASK_TIMEOUT; 0: wait for ever")
	plain := fs.Bool("plain", false, plainUsage)
	var web webFlags
	web.add(fs)
	var hubFlags frontdoor.Hub
	hubFlags.AddFlags(fs)
	askID := fs.String("ask-id", "", "with --hub: the `ID` the hub knows this ask by, so that a re-run (after a crash) attaches to the question already in the inbox instead of asking again")
	if help, err := s.parseFlags(fs, askUsage, args); help {
		return askExitOK
	} else if err != nil {
		return askUsageFail(s, err.Error()+` (see "askcore-stdio ask --help")`)
	}
	if fs.NArg() > 0 {
		return askUsageFail(s, fmt.Sprintf("unexpected argument %q: pass the request with --request JSON or on stdin", fs.Arg(0)))
	}
	if bad := web.check(fs); bad != "" {
		return askUsageFail(s, bad)
	}
	if *askID != "" && !hubFlags.On(s.getenv) {
		return askUsageFail(s, "--ask-id needs --hub URL (or ASKCORE_HUB_URL)")
	}
	requestSet := false
	fs.Visit(func(f *flag.Flag) { requestSet = requestSet || f.Name == "request" })

	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	sigDone := make(chan struct{})
	defer close(sigDone)
	go func() {
		select {
		case sig := <-s.signals:
			cancel(signalError{sig})
		case <-sigDone:
		}
	}()

	// The engine starts first, so that it warms up while the request is
	// read. Without one, the same rules run natively to report it.
	client, closeEngine, err := settings.Open(ctx)
	if err != nil {
		return askFail(ctx, s, askcore.NewCore(nil), err)
	}
	defer closeEngine(context.WithoutCancel(ctx))

	// The request: the model-style arguments text, which the core parses.
	arguments := *request
	if !requestSet {
		// Read in the background so that Ctrl-C works while a person types
		// the request on a terminal (the reader then ends with the process).
		type readResult struct {
			b   []byte
			err error
		}
		got := make(chan readResult, 1)
		go func() {
			b, err := io.ReadAll(io.LimitReader(s.stdin, maxRequestBytes+1))
			got <- readResult{b, err}
		}()
		select {
		case r := <-got:
			if r.err != nil {
				return askFail(ctx, s, client, client.Fail(ctx, askcore.Failure{
					Situation: askcore.SituationRequestReadFailed, Detail: r.err.Error()}))
			}
			arguments = string(r.b)
		case <-ctx.Done():
			return askFail(ctx, s, client, client.Fail(ctx, askcore.Failure{
				Situation: askcore.SituationAborted, Detail: context.Cause(ctx).Error()}))
		}
	}

	// A bad request is reported as such, whether or not a person could
	// have been asked.
	if _, err := client.Normalize(ctx, arguments); err != nil {
		return askFail(ctx, s, client, err)
	}

	if web.on {
		return askWeb(ctx, s, client, arguments, web, *timeout)
	}

	// Where the answer comes from and where the prompt goes.
	var (
		in  io.Reader
		out io.Writer
	)
	switch {
	case !requestSet:
		tty, err := s.openTTY()
		if err != nil {
			if !hubFlags.On(s.getenv) {
				return askFail(ctx, s, client, client.Fail(ctx, askcore.Failure{Situation: askcore.SituationNoTerminal}))
			}
			// No terminal, but the hub's inbox can still reach the
			// person: the terminal drops out and the ask waits there.
			return askHub(ctx, s, client, hubFlags, arguments, *askID, *timeout, noTerminal{s.stderr})
		}
		defer tty.Close()
		in, out = tty, tty
	case s.stdinTTY:
		in = s.stdinFile
		if tty, err := s.openTTY(); err == nil {
			defer tty.Close()
			out = tty
		} else {
			out = s.stderrOut()
		}
	default:
		in, out = s.stdin, s.stderrOut()
	}
	prov, err := termui.Open(ctx, client, termui.WithInput(in), termui.WithOutput(out),
		termui.WithPlain(*plain), termui.WithEnv(s.getenv))
	if err != nil {
		return askFail(ctx, s, client, err)
	}
	defer prov.Close()
	return askHub(ctx, s, client, hubFlags, arguments, *askID, *timeout, prov)
}

// noTerminal is the local surface of an ask with no terminal to show it
// on: it drops out at once, and what happens with the hub is said on
// stderr.
type noTerminal struct{ stderr io.Writer }

func (noTerminal) Ask(context.Context, *askcore.Call) (askcore.Reply, error) {
	return askcore.Reply{}, askcore.Failure{Situation: askcore.SituationNoTerminal}
}

func (n noTerminal) Notice(text string) { fmt.Fprintln(n.stderr, "askcore: "+text) }

// terminalSurface is a local surface that is closed before the answer is
// written (the picker erased, the terminal's mode restored).
type terminalSurface interface {
	askcore.Provider
	Close()
}

// askHub asks through local, and through the hub when one is set (the
// first reply wins and the other is withdrawn), and writes the outcome.
// askID, when set, is the tool call id the hub knows the ask by.
func askHub(ctx context.Context, s sys, client *askcore.Core, hubFlags frontdoor.Hub, arguments, askID string, timeout time.Duration, local askcore.Provider) int {
	both, err := hubFlags.Provider(askcore.Surface{Name: "the terminal", Provider: local}, s.getenv)
	if err != nil {
		return askUsageFail(s, err.Error())
	}
	svc := askcore.NewService(client)
	dispose, err := svc.Register(both)
	if err != nil {
		return askFail(ctx, s, client, err)
	}
	defer dispose()

	// An abort by a signal is reported by the service with its reason
	// ("interrupted (Ctrl-C)", "terminated (SIGTERM)").
	res, err := svc.Ask(ctx, arguments, askcore.AskOptions{
		From:    askcore.Identity{AgentID: "askcore-stdio-ask", ToolCallID: askID},
		Timeout: timeout,
	})
	// The service returns at once on a signal or a timeout: the provider
	// first erases its picker and restores the terminal, so that the
	// output below lands on a clean screen.
	if t, ok := local.(terminalSurface); ok {
		t.Close()
	}
	if err != nil {
		return askFail(ctx, s, client, err)
	}
	fmt.Fprintf(s.stdout, "%s\n", res.JSON())
	return askExitOK
}

// askFail writes the core's error object for err on stdout, as the core
// wrote it, and returns the exit status for its code. An error that is not
// the core's (the engine failed to start or faulted) is the core's
// engine_fault situation; its own text goes to stderr, for people.
func askFail(ctx context.Context, s sys, client *askcore.Core, err error) int {
	var he *askcore.Error
	if !errors.As(err, &he) {
		diag, serr := client.Sanitize(context.WithoutCancel(ctx), "askcore-stdio: "+err.Error())
		if serr == nil {
			fmt.Fprintln(s.stderr, diag)
		}
		he = client.Fail(ctx, askcore.Failure{Situation: askcore.SituationEngineFault})
	}
	return writeError(s, he)
}

// writeError writes he on stdout and returns the exit status for its code.
func writeError(s sys, he *askcore.Error) int {
	fmt.Fprintf(s.stdout, "%s\n", he.JSON())
	return askExitCode(he.Code)
}

// askUsageFail reports bad flags or arguments: the core's usage situation
// (INVALID_REQUEST). The command line is read before --engine is known, so
// the core runs natively for it.
func askUsageFail(s sys, detail string) int {
	return writeError(s, askcore.NewCore(nil).Fail(context.Background(),
		askcore.Failure{Situation: askcore.SituationUsage, Detail: detail}))
}

func askExitCode(code askcore.Code) int {
	switch code {
	case askcore.CodeInvalidRequest:
		return askExitInvalidRequest
	case askcore.CodeAskAborted:
		return askExitAborted
	case askcore.CodeAskTimeout:
		return askExitTimeout
	case askcore.CodeAskDeclined:
		return askExitDeclined
	default:
		return askExitFailed
	}
}
