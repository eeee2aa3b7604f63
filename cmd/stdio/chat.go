package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/askcore/askcore/agent"
	"github.com/askcore/askcore/core"
	"github.com/askcore/askcore/internal/frontdoor"
	"github.com/askcore/askcore/termui"
)

// demoKickoff is the user turn the program plays itself when the model is
// the built-in demo, so that a first run greets and asks on its own.
const demoKickoff = "Hello!"

const chatUsage = `usage: askcore-stdio [--script FILE] [--engine wasm|native]
       askcore-stdio ask [--request JSON] [--engine wasm|native] [--timeout D]

A terminal agent whose model can ask you questions (ask_user_question).
Each line you type is a prompt for the model; while a question is shown,
the next line is its answer: a number, a label or value, your own text
when the question allows it, or an empty line for the recommended option.
Ctrl-C during a question dismisses it (the model is told ASK_ABORTED);
Ctrl-C elsewhere, or end of input (Ctrl-D), quits.

Model (first that applies):
  --script FILE       a scripted model (JSON Lines, one model reply a line)
  DEEPSEEK_API_KEY    DeepSeek's OpenAI-compatible API
  OPENAI_API_KEY      any OpenAI-compatible server (OPENAI_BASE_URL,
                      OPENAI_MODEL)
  (none)              the built-in demo, offline

Output: model text and questions on stdout, errors on stderr. Colours only
on a terminal, and never when NO_COLOR is set.

Exit status: 0 at end of input; 1 start-up failure or a model error in some
turn; 2 usage; 130 Ctrl-C outside a question; 143 SIGTERM.
Run "askcore-stdio ask --help" for the one-question subcommand.

Flags:
`

func runChat(ctx context.Context, args []string, s sys) int {
	fs := flag.NewFlagSet("askcore-stdio", flag.ContinueOnError)
	fs.SetOutput(s.stderr)
	var settings frontdoor.Settings
	settings.AddFlags(fs)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), chatUsage)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fs.SetOutput(s.stdout)
			fs.Usage()
			return exitOK
		}
		return exitUsage
	}
	if fs.NArg() > 0 {
		printErr(s.stderr, "unexpected argument %q (the only subcommand is \"ask\")", fs.Arg(0))
		return exitUsage
	}

	rt, err := frontdoor.Build(ctx, settings, s.getenv)
	if err != nil {
		printErr(s.stderr, "%s", core.SanitizeText(err.Error()))
		return exitError
	}
	defer rt.Close(context.WithoutCancel(ctx))
	client := rt.Client

	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)

	out := termui.NewSyncWriter(s.stdout)
	errOut := termui.NewSyncWriter(s.stderr)
	style := termui.Style{Color: colorOK(s.stdoutTTY, s.getenv)}
	errStyle := termui.Style{Color: colorOK(s.stderrTTY, s.getenv)}

	lines := termui.NewLines(s.stdin)
	defer lines.Close()
	prov := termui.NewProvider(termui.Config{
		Client: client, Lines: lines, Out: out, Style: style, Echoed: s.stdinTTY,
	})
	defer prov.Close()

	// Signals: Ctrl-C dismisses the question on screen; with no question,
	// it (and SIGTERM always) ends the program between two writes.
	sigDone := make(chan struct{})
	defer close(sigDone)
	go func() {
		for {
			select {
			case <-sigDone:
				return
			case sig := <-s.signals:
				if sig == os.Interrupt && prov.Interrupt() {
					continue
				}
				cancel(signalError{sig})
			}
		}
	}()

	dispose, err := rt.Interaction.Register(prov)
	if err != nil {
		printErr(s.stderr, "%v", err)
		return exitError
	}
	defer dispose()
	ag := rt.NewAgent("stdio", "", agent.Hooks{
		OnText: func(text string) {
			out.WriteString(core.SanitizeText(strings.TrimRight(text, "\n")) + "\n")
		},
		OnToolResult: func(call agent.ToolCall, _ json.RawMessage, err error) {
			if err == nil {
				return
			}
			he := agent.AsHarnessError(err)
			errOut.WriteString(errStyle.Dim(core.SanitizeText(fmt.Sprintf(
				"askcore-stdio: %s: %s: %s", call.Name, he.Code, he.Message))) + "\n")
		},
	})

	if s.stdinTTY {
		out.WriteString(banner(style, rt.ModelInfo))
	}

	failed := false
	turn := func(prompt string) (exit int, stop bool) {
		err := ag.Run(ctx, prompt)
		switch {
		case err == nil:
			return 0, false
		case ctx.Err() != nil:
			out.WriteString("\n")
			if code, ok := exitForSignal(context.Cause(ctx)); ok {
				return code, true
			}
			return exitInterrupted, true
		default:
			failed = true
			errOut.WriteString(errStyle.Error(core.SanitizeText("askcore-stdio: model error: "+err.Error())) + "\n")
			return 0, false
		}
	}

	if rt.Source == frontdoor.SourceDemo {
		if code, stop := turn(demoKickoff); stop {
			return code
		}
	}
	for {
		if s.stdinTTY {
			out.WriteString(style.Prompt("> "))
		}
		line, err := lines.Next(ctx)
		if err != nil {
			if ctx.Err() != nil {
				out.WriteString("\n")
				if code, ok := exitForSignal(context.Cause(ctx)); ok {
					return code
				}
				return exitInterrupted
			}
			if s.stdinTTY {
				out.WriteString("\n")
			}
			if !errors.Is(err, io.EOF) {
				printErr(s.stderr, "reading stdin: %v", err)
				return exitError
			}
			if failed {
				return exitError
			}
			return exitOK
		}
		if strings.TrimSpace(line) == "" {
			continue
		}
		if code, stop := turn(line); stop {
			return code
		}
	}
}

func banner(st termui.Style, modelInfo string) string {
	return st.Question("askcore-stdio") + st.Dim(" · "+core.SanitizeText(modelInfo)+"\n"+
		"Type a message and press Enter. Answer a question with its number, label or your own text.\n"+
		"Ctrl-C dismisses a question; Ctrl-D quits.") + "\n\n"
}

func engineName(name string) string {
	if name == "" {
		return "wasm"
	}
	return name
}

func isTerminal(f *os.File) bool { return termui.IsTerminal(f) }
