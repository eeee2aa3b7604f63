package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/askcore/askcore/core"
	"github.com/askcore/askcore/interaction"
	"github.com/askcore/askcore/internal/frontdoor"
	"github.com/askcore/askcore/termui"
)

// Exit statuses of "askcore-stdio ask", by error code.
const (
	askExitOK             = 0
	askExitFailed         = 1 // ASK_FAILED, and any other failure
	askExitInvalidRequest = 2 // INVALID_REQUEST (also bad flags or arguments)
	askExitAborted        = 3 // ASK_ABORTED: end of input, Ctrl-C, SIGTERM
	askExitTimeout        = 4 // ASK_TIMEOUT: --timeout elapsed
)

// maxRequestBytes bounds a request read from stdin. The core enforces its
// own, smaller, documented limits; this only stops an endless stream.
const maxRequestBytes = 4 << 20

const askUsage = `usage: askcore-stdio ask [--request JSON] [--engine wasm|native] [--timeout D]

Asks a person one question and prints the answer as JSON.

The request is an ask_user_question request:
  {"header":"...","question":"...","options":[{"label":"...","value":"...",
   "description":"...","recommended":true}],"allowCustom":false}
taken from --request, or else read from stdin (all of it).

Where the answer comes from:
  --request JSON      answer lines are read from stdin (a terminal or a pipe);
                      the prompt goes to the terminal (/dev/tty) when stdin
                      is one, else to stderr.
  request on stdin    stdin is used up by the request, so the answer is read
                      from the controlling terminal (/dev/tty), where the
                      prompt is shown too; with no terminal the ask fails
                      with ASK_FAILED (use --request and pipe the answer).

Type a number, a label or value, your own text when the question allows
it, or an empty line for the recommended option. An answer that does not
fit is explained and asked again. Ctrl-C or end of input gives up.

Output on stdout, one line:
  the answer  {"answer":"...","selected":{"index":0,"label":"...","value":"..."}}
              ("selected" only when an option was chosen)
  an error    {"name":"UserInteractionError","code":"...","message":"..."}

Exit status:
  0  answered
  1  ASK_FAILED (no terminal to read the answer from, the engine failed, ...)
     and any other error
  2  INVALID_REQUEST (the request is malformed or ambiguous; bad flags)
  3  ASK_ABORTED (end of input before an answer, Ctrl-C, SIGTERM)
  4  ASK_TIMEOUT (--timeout elapsed; nothing was chosen)

Flags:
`

func runAsk(ctx context.Context, args []string, s sys) int {
	fs := flag.NewFlagSet("askcore-stdio ask", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	request := fs.String("request", "", "the request `JSON` (default: read stdin)")
	var settings frontdoor.Settings
	settings.AddEngineFlag(fs)
	timeout := fs.Duration("timeout", 0, "give up after this `duration` (e.g. 2m) with ASK_TIMEOUT; 0: wait for ever")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), askUsage)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fs.SetOutput(s.stdout)
			fs.Usage()
			return askExitOK
		}
		return askFail(s, core.NewError(core.CodeInvalidRequest, err.Error()+` (see "askcore-stdio ask --help")`))
	}
	if fs.NArg() > 0 {
		return askFail(s, core.NewError(core.CodeInvalidRequest,
			fmt.Sprintf("unexpected argument %q: pass the request with --request JSON or on stdin", fs.Arg(0))))
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

	// The request.
	var raw []byte
	if requestSet {
		raw = []byte(*request)
	} else {
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
		var b []byte
		select {
		case r := <-got:
			b = r.b
			switch {
			case r.err != nil:
				return askFail(s, core.NewError(core.CodeAskFailed, "reading the request from stdin: "+r.err.Error()))
			case len(b) > maxRequestBytes:
				return askFail(s, core.NewError(core.CodeInvalidRequest,
					fmt.Sprintf("the request on stdin is larger than %d bytes", maxRequestBytes)))
			}
		case <-ctx.Done():
			return askFail(s, core.NewError(core.CodeAskAborted,
				"the question was aborted while reading the request: "+context.Cause(ctx).Error()))
		}
		raw = b
	}

	client, closeEngine, err := settings.Open(ctx)
	if err != nil {
		return askFail(s, core.NewError(core.CodeAskFailed, "starting the core: "+err.Error()))
	}
	defer closeEngine(context.WithoutCancel(ctx))

	// A bad request is reported as such, whether or not a person could
	// have been asked.
	if _, _, err := client.Normalize(ctx, raw); err != nil {
		return askFail(s, err)
	}

	// Where the answer comes from and where the prompt goes.
	var (
		in     io.Reader
		out    io.Writer
		echoed bool
		color  bool
	)
	switch {
	case !requestSet:
		tty, err := s.openTTY()
		if err != nil {
			return askFail(s, core.NewError(core.CodeAskFailed,
				"the request came on stdin and there is no terminal (/dev/tty) to read the answer from: "+
					"pass the request with --request JSON and the answer on stdin"))
		}
		defer tty.Close()
		in, out, echoed, color = tty, tty, true, colorOK(true, s.getenv)
	case s.stdinTTY:
		in, echoed = s.stdin, true
		if tty, err := s.openTTY(); err == nil {
			defer tty.Close()
			out, color = tty, colorOK(true, s.getenv)
		} else {
			out, color = s.stderr, colorOK(s.stderrTTY, s.getenv)
		}
	default:
		in, out, color = s.stdin, s.stderr, colorOK(s.stderrTTY, s.getenv)
	}

	lines := termui.NewLines(in)
	defer lines.Close()
	prov := termui.NewProvider(termui.Config{
		Client: client, Lines: lines, Out: termui.NewSyncWriter(out),
		Style: termui.Style{Color: color}, Echoed: echoed,
	})
	defer prov.Close()
	svc := interaction.NewService(client)
	dispose, err := svc.Register(prov)
	if err != nil {
		return askFail(s, err)
	}
	defer dispose()

	res, err := svc.Ask(ctx, raw, interaction.AskOptions{
		From:    interaction.Identity{AgentID: "askcore-stdio-ask"},
		Timeout: *timeout,
	})
	if err != nil {
		if _, ok := exitForSignal(context.Cause(ctx)); ok {
			// The service says ASK_ABORTED; say why.
			err = core.NewError(core.CodeAskAborted, "the question was aborted: "+context.Cause(ctx).Error())
		}
		return askFail(s, err)
	}
	fmt.Fprintf(s.stdout, "%s\n", res.Raw)
	return askExitOK
}

// askFail writes err as {"name","code","message"} on stdout and returns the
// exit status for its code.
func askFail(s sys, err error) int {
	var he *core.HarnessError
	if !errors.As(err, &he) {
		he = core.NewError(core.CodeAskFailed, err.Error())
	}
	b, _ := json.Marshal(he)
	fmt.Fprintf(s.stdout, "%s\n", b)
	return askExitCode(he.Code)
}

func askExitCode(code core.Code) int {
	switch code {
	case core.CodeInvalidRequest:
		return askExitInvalidRequest
	case core.CodeAskAborted:
		return askExitAborted
	case core.CodeAskTimeout:
		return askExitTimeout
	default:
		return askExitFailed
	}
}
