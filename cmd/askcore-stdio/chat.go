package main

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/askcore/askcore"
	"github.com/askcore/askcore/agent"
	"github.com/askcore/askcore/answerpage"
	"github.com/askcore/askcore/frontdoor"
	"github.com/askcore/askcore/frontdoor/openaimodel"
	"github.com/askcore/askcore/termui"
)

// demoKickoff is the user turn the program plays itself when the model is
// the built-in demo and a person sits at the terminal, so that a first run
// greets and asks on its own. Fed by a pipe, the demo waits for the first
// line instead: that line is the first prompt, never the answer to a
// question the program asked by itself.
const demoKickoff = "Hello!"

const chatUsage = `usage: askcore-stdio [--script FILE] [--engine wasm|native] [--plain]
                     [--web [--no-browser] [--web-addr HOST:PORT]]
                     [--hub URL [--hub-token-file FILE]]
       askcore-stdio ask [--request JSON] [--engine wasm|native] [--timeout D] [--plain]

A terminal agent whose model can ask you questions (ask_user_question).
Each line you type is a prompt for the model.

On a terminal a question is answered with the keyboard: Up/Down (j/k) move,
1-9 jump, Space toggles (multi-select), Enter confirms (in a batch: goes
on to the next question), Tab/Shift-Tab switch questions of a batch, typing
on the last entry writes your own answer, Esc declines (the model is told
ASK_DECLINED), Ctrl-C dismisses the question (ASK_ABORTED). After it, one
line such as "→ PostgreSQL" stays.

Line mode (pipes, TERM=dumb, --plain or ASKCORE_PLAIN=1; the screen-reader
mode): while a question is shown, the next line is its answer: a number, a
label or value, your own text when the question allows it, or an empty
line for the recommended option; for a multi-select question, several of
them separated by commas. A batch asks its questions one after another.
Ctrl-C during a question dismisses it (the model is told ASK_ABORTED).

Ctrl-C outside a question, or end of input (Ctrl-D), quits.

In a browser (--web): every question is asked on a local web page instead
of the terminal (stdin lines stay the prompts); the line "askcore: answer
at URL" on stderr names the page, which is opened in the default browser
when a desktop session is detected, unless --no-browser or
ASKCORE_BROWSER=none. Without --web, the page is where a question goes
when there is no terminal for it: stdin is not a terminal and has ended
(nothing is left to answer with), /dev/tty cannot be opened, and a
browser can be opened here (a desktop session, or ASKCORE_BROWSER naming
a command). The page takes the picker's keys and the mouse; Decline (or
Esc) declines. Over SSH, fix the port and forward it:
  ssh -L 8765:127.0.0.1:8765 host askcore-stdio --web --web-addr 127.0.0.1:8765

Through an askcore-hub (--hub URL, or ASKCORE_HUB_URL; the agent's token
in ASKCORE_HUB_TOKEN or the file --hub-token-file names): every question
is also in the hub's inbox, and the first answer wins; the other place
says it was answered elsewhere. When the terminal cannot take the answer
(stdin has ended), the question waits in the inbox instead (the answer
page is then not opened).

Model (first that applies):
  --script FILE       a scripted model (JSON Lines, one model reply a line)
  DEEPSEEK_API_KEY    DeepSeek's OpenAI-compatible API
  OPENAI_API_KEY      any OpenAI-compatible server (OPENAI_BASE_URL,
                      OPENAI_MODEL)
  (none)              the built-in demo, offline

Output: model text and questions on stdout (the keyboard picker on stderr
when stdout is not a terminal), errors on stderr. Colours only on a
terminal, and never when NO_COLOR is set or TERM=dumb.

Exit status: 0 at end of input; 1 start-up failure or a model error in some
turn; 2 usage; 130 Ctrl-C outside a question; 143 SIGTERM.
Run "askcore-stdio ask --help" for the one-question subcommand.

Flags:
`

func runChat(ctx context.Context, args []string, s sys) int {
	fs := flag.NewFlagSet("askcore-stdio", flag.ContinueOnError)
	fs.SetOutput(s.stderr)
	settings := frontdoor.Settings{FromEnv: openaimodel.FromEnv}
	settings.AddFlags(fs)
	plain := fs.Bool("plain", false, plainUsage)
	version := fs.Bool("version", false, "print the version and exit")
	var web webFlags
	web.add(fs)
	var hubFlags frontdoor.Hub
	hubFlags.AddFlags(fs)
	if help, err := s.parseFlags(fs, chatUsage, args); help {
		return exitOK
	} else if err != nil {
		return exitUsage
	}
	if *version {
		fmt.Fprintln(s.stdout, frontdoor.VersionLine("askcore-stdio"))
		return exitOK
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(s.stderr, "askcore-stdio: unexpected argument %q (the only subcommand is \"ask\")\n", fs.Arg(0))
		return exitUsage
	}
	if bad := web.check(fs); bad != "" {
		fmt.Fprintf(s.stderr, "askcore-stdio: %s\n", bad)
		return exitUsage
	}

	rt, err := frontdoor.Build(ctx, settings, s.getenv)
	if err != nil {
		// No engine runs: the same rules, natively, make the error safe.
		show := shower{ctx, askcore.NewCore(nil)}
		fmt.Fprintln(s.stderr, show.text("askcore-stdio: "+err.Error()))
		return exitError
	}
	defer rt.Close(context.WithoutCancel(ctx))
	client := rt.Core
	show := shower{ctx, client}

	// What the terminal gets is the core's decision.
	mode, err := client.Terminal(ctx, s.terminal(*plain, s.stdinTTY, s.stderrTTY, s.stdoutTTY))
	var errMode askcore.TerminalMode
	if err == nil {
		errMode, err = client.Terminal(ctx, s.terminal(*plain, s.stdinTTY, s.stderrTTY, s.stderrTTY))
	}
	if err != nil {
		fmt.Fprintln(s.stderr, show.text("askcore-stdio: "+err.Error()))
		return exitError
	}
	return chat(ctx, s, rt, show, mode, errMode.Color, web, hubFlags)
}

// chat is the conversation: each stdin line a prompt, questions through the
// terminal provider in the mode the core chose.
func chat(ctx context.Context, s sys, rt *frontdoor.Runtime, show shower, mode askcore.TerminalMode, errColor bool, web webFlags, hubFlags frontdoor.Hub) int {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)

	out := termui.NewSyncWriter(s.stdout)
	errOut := termui.NewSyncWriter(s.stderr)
	if termui.SameTerminal(s.stdoutFile, s.stderrFile) {
		// One terminal: stderr's lines go above a pending picker too.
		errOut = out.Also(s.stderr)
	}
	style := termui.Style{Color: mode.Color}
	errStyle := termui.Style{Color: errColor}

	in, inFile := s.stdin, s.stdinFile
	if mode.Picker {
		var done func()
		inFile, done = termui.TerminalInput(s.stdinFile)
		defer done()
		in = inFile
	}
	lines := termui.NewLines(in)
	defer lines.Close()
	cfg := termui.Config{Lines: lines, Out: out, Style: style, Echoed: s.stdinTTY}
	if mode.Picker {
		// The core chose the keyboard picker (stdin and stderr are
		// terminals): it draws where questions go, on stdout, or on
		// stderr when stdout is not a terminal.
		pOut, pFile, pStyle := out, s.stdoutFile, style
		if !s.stdoutTTY {
			pOut, pFile, pStyle = errOut, s.stderrFile, errStyle
		}
		t := termui.NewTerminal(lines, inFile, pOut, pFile, pStyle)
		cfg.Picker = &t
	}
	term := termui.NewProvider(cfg)
	defer term.Close()
	// The answer page: every question with --web; else a question the
	// terminal provider cannot ask for want of input, when no terminal
	// can be opened and a browser can (chatPage).
	prov := &chatProvider{term: term, page: answerpage.NewLazy(rt.Core, web.page.PageOptions(errOut, s.getenv)...), always: web.on}
	defer func() {
		// The page says why each question on it ended (a signal, Ctrl-C)
		// rather than "withdrawn", if they end within pageCloseGrace.
		ctx, cancel := context.WithTimeout(context.Background(), pageCloseGrace)
		defer cancel()
		_ = prov.page.Shutdown(ctx)
	}()
	// With a hub, a question the terminal cannot take waits in the
	// hub's inbox: the answer page is not opened for it.
	if !web.on && !hubFlags.On(s.getenv) && !s.stdinTTY && !s.canOpenTTY() && prov.page.OpensBrowser() {
		prov.onEOF = true
	}
	local := askcore.Surface{Name: "the terminal", Provider: prov}
	if web.on {
		local.Name = "the answer page"
	}
	asker, err := hubFlags.Provider(local, s.getenv)
	if err != nil {
		errOut.WriteString(show.text("askcore-stdio: "+err.Error()) + "\n")
		return exitUsage
	}

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

	dispose, err := rt.Service.Register(asker)
	if err != nil {
		errOut.WriteString(show.text("askcore-stdio: "+err.Error()) + "\n")
		return exitError
	}
	defer dispose()
	// Each run is a session of its own: a hub knows an ask by its
	// session and tool call id, and a model's ids ("call_1", a script's)
	// repeat from one run to the next; without it, a new run's question
	// would attach to an old run's ask and get its answer.
	ag := rt.NewAgent("stdio", "stdio-"+rand.Text(), agent.Hooks{
		OnText: func(text string) {
			out.WriteString(show.text(text) + "\n")
		},
		OnToolResult: func(call agent.ToolCall, _ json.RawMessage, err error) {
			if err == nil {
				return
			}
			he := askcore.AsError(err)
			errOut.WriteString(errStyle.Dim(show.text(fmt.Sprintf(
				"askcore-stdio: %s: %s: %s", call.Name, he.Code, he.Message))) + "\n")
		},
	})

	if s.stdinTTY {
		out.WriteString(banner(style, show.text(rt.ModelInfo), mode.Picker))
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
			errOut.WriteString(errStyle.Error(show.text("askcore-stdio: model error: "+err.Error())) + "\n")
			return 0, false
		}
	}

	if rt.Source == frontdoor.SourceDemo && s.stdinTTY {
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
				errOut.WriteString(show.text("askcore-stdio: reading stdin: "+err.Error()) + "\n")
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

// shower makes text safe to show with the core's sanitize op, on the
// engine the front door runs (--engine).
type shower struct {
	ctx    context.Context
	client *askcore.Core
}

// text is s sanitized by the core. The text is never shown unsanitized:
// when the engine cannot answer, a notice stands in for it.
func (sh shower) text(s string) string {
	safe, err := sh.client.Sanitize(context.WithoutCancel(sh.ctx), s)
	if err != nil {
		return "(text not shown: the askcore engine failed)"
	}
	return safe
}

// banner greets on a terminal; modelInfo was sanitized.
func banner(st termui.Style, modelInfo string, picker bool) string {
	how := "Answer a question with its number, label or your own text."
	if picker {
		how = "Answer a question with the keys shown under it; Esc declines."
	}
	return st.Question("askcore-stdio") + st.Dim(" · "+modelInfo+"\n"+
		"Type a message and press Enter. "+how+"\n"+
		"Ctrl-C dismisses a question; Ctrl-D quits.") + "\n\n"
}

// chatProvider asks the chat's questions: on the terminal (termui), or on
// the answer page (answerpage.Lazy) with --web (always), or, when onEOF, where
// the terminal provider cannot ask for want of input: stdin is not a
// terminal and has ended, no terminal can be opened, and the page can
// open itself in a browser here. Lines on stdin answer as long as there
// are any (a program feeding the chat through a pipe keeps its answers).
type chatProvider struct {
	term   *termui.Provider
	page   *answerpage.Lazy
	always bool
	onEOF  bool
	ended  atomic.Bool // stdin ended: with onEOF, questions go to the page at once

	mu     sync.Mutex
	active context.CancelCauseFunc // the question on the page, for Ctrl-C
}

// Ask implements askcore.Provider.
func (p *chatProvider) Ask(ctx context.Context, call *askcore.Call) (askcore.Reply, error) {
	if p.always || p.onEOF && p.ended.Load() {
		return p.askPage(ctx, call)
	}
	reply, err := p.term.Ask(ctx, call)
	var f askcore.Failure
	if p.onEOF && errors.As(err, &f) && f.Situation == askcore.SituationEOF && ctx.Err() == nil {
		p.ended.Store(true)
		return p.askPage(ctx, call)
	}
	return reply, err
}

// Notice tells the person what happens with the hub while a question is
// asked (frontdoor.Noticer): on the terminal, where the chat writes.
func (p *chatProvider) Notice(text string) { p.term.Notice(text) }

// errPageInterrupted dismisses the question on the page (Ctrl-C).
var errPageInterrupted = errors.New("interrupted (Ctrl-C)")

func (p *chatProvider) askPage(ctx context.Context, call *askcore.Call) (askcore.Reply, error) {
	srv, done, err := p.page.Begin()
	if err != nil {
		return askcore.Reply{}, err
	}
	defer done()
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	p.mu.Lock()
	p.active = cancel
	p.mu.Unlock()
	defer func() {
		p.mu.Lock()
		p.active = nil
		p.mu.Unlock()
	}()
	reply, err := srv.Ask(ctx, call)
	if err != nil && errors.Is(context.Cause(ctx), errPageInterrupted) {
		return askcore.Reply{}, askcore.Failure{Situation: askcore.SituationInterrupted}
	}
	return reply, err
}

// Interrupt dismisses the question on screen (Ctrl-C): the terminal's, or
// the page's. It reports whether there was one.
func (p *chatProvider) Interrupt() bool {
	if p.term.Interrupt() {
		return true
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.active == nil {
		return false
	}
	p.active(errPageInterrupted)
	return true
}

// pageCloseGrace bounds how long the chat's end waits for the questions
// on the page to end by themselves.
const pageCloseGrace = time.Second

// canOpenTTY reports whether the controlling terminal can be opened.
func (s sys) canOpenTTY() bool {
	if s.openTTY == nil {
		return false
	}
	f, err := s.openTTY()
	if err != nil {
		return false
	}
	_ = f.Close()
	return true
}
