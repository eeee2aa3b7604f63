package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/askcore/askcore"
	"github.com/askcore/askcore/termui"
)

// Exit statuses of the terminal agent (the ask subcommand has its own, see
// ask.go).
const (
	exitOK          = 0
	exitError       = 1   // a start-up failure, or a model error in some turn
	exitUsage       = 2   // bad flags or arguments
	exitInterrupted = 130 // Ctrl-C outside a question (128+SIGINT)
	exitTerminated  = 143 // SIGTERM (128+SIGTERM)
)

// sys is the process's outside world, so that tests can run the program
// in-process when they need to.
type sys struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	getenv         func(string) string

	stdinTTY  bool // stdin is a terminal (line mode: it echoes what is typed)
	stdoutTTY bool
	stderrTTY bool

	// The standard streams as files, for the keyboard picker (raw mode,
	// the terminal's size); used only where the matching ...TTY is true.
	stdinFile, stdoutFile, stderrFile *os.File

	// openTTY opens the controlling terminal (/dev/tty) for reading and
	// writing.
	openTTY func() (*os.File, error)

	// signals delivers os.Interrupt and syscall.SIGTERM.
	signals <-chan os.Signal
}

// parseFlags parses args with fs, whose usage is usage and then the
// flags. Asked for help (-h, --help), it prints that on stdout and says
// so; a flag it cannot parse is err (fs has said what on its output).
func (s sys) parseFlags(fs *flag.FlagSet, usage string, args []string) (help bool, err error) {
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), usage)
		fs.PrintDefaults()
	}
	err = fs.Parse(args)
	if errors.Is(err, flag.ErrHelp) {
		fs.SetOutput(s.stdout)
		fs.Usage()
		return true, nil
	}
	return false, err
}

func main() {
	sigs := make(chan os.Signal, 4)
	// Ctrl-C is ours to handle: during a question it aborts that question
	// only; elsewhere the program ends cleanly (never mid-write).
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	s := sys{
		stdin:     os.Stdin,
		stdout:    os.Stdout,
		stderr:    os.Stderr,
		getenv:    os.Getenv,
		stdinTTY:  termui.IsTerminal(os.Stdin),
		stdoutTTY: termui.IsTerminal(os.Stdout),
		stderrTTY: termui.IsTerminal(os.Stderr),

		stdinFile:  os.Stdin,
		stdoutFile: os.Stdout,
		stderrFile: os.Stderr,
		openTTY: func() (*os.File, error) {
			return os.OpenFile("/dev/tty", os.O_RDWR, 0)
		},
		signals: sigs,
	}
	code := run(context.Background(), os.Args[1:], s)
	signal.Stop(sigs)
	os.Exit(code)
}

// run dispatches to the ask subcommand or the terminal agent.
func run(ctx context.Context, args []string, s sys) int {
	if len(args) > 0 && args[0] == "ask" {
		return runAsk(ctx, args[1:], s)
	}
	return runChat(ctx, args, s)
}

// plainUsage documents --plain for both commands.
const plainUsage = "line mode: answer by typing lines, never with the keyboard picker (also ASKCORE_PLAIN=1; the screen-reader mode)"

// terminal gathers what the core's terminal op decides from: whether the
// answer's input, the prompt's writer and the writer to decorate are
// terminals, TERM, NO_COLOR, ASKCORE_PLAIN and --plain. The decision (the
// keyboard picker or the line mode, colour or none) is the core's alone.
func (s sys) terminal(plainFlag, inTTY, promptTTY, outTTY bool) askcore.TerminalFacts {
	return askcore.TerminalFacts{
		StdinTTY:  inTTY,
		StderrTTY: promptTTY,
		OutTTY:    outTTY,
		Term:      s.getenv("TERM"),
		NoColor:   s.getenv("NO_COLOR"),
		Plain:     s.getenv(termui.EnvPlain),
		PlainFlag: plainFlag,
	}
}

// stderrOut is stderr as a file when it is one (the keyboard picker can
// then draw on it), else the writer tests give.
func (s sys) stderrOut() io.Writer {
	if s.stderrFile != nil {
		return s.stderrFile
	}
	return s.stderr
}

// signalError is the cancellation cause for a received signal.
type signalError struct{ sig os.Signal }

func (e signalError) Error() string {
	switch e.sig {
	case os.Interrupt:
		return "interrupted (Ctrl-C)"
	case syscall.SIGTERM:
		return "terminated (SIGTERM)"
	}
	return "received " + e.sig.String()
}

func exitForSignal(err error) (int, bool) {
	var se signalError
	if !errors.As(err, &se) {
		return 0, false
	}
	if se.sig == syscall.SIGTERM {
		return exitTerminated, true
	}
	return exitInterrupted, true
}
