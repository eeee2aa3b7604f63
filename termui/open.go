package termui

import (
	"context"
	"io"
	"os"

	"github.com/askcore/askcore"
)

// EnvPlain asks for the line mode, like --plain (any value but "" and
// "0"; the core's terminal op reads it).
const EnvPlain = "ASKCORE_PLAIN"

// Option tunes Open.
type Option func(*openConfig)

type openConfig struct {
	in     io.Reader
	out    io.Writer
	plain  bool
	getenv func(string) string
}

// WithInput reads the person's answers from r instead of os.Stdin. The
// keyboard picker needs r to be a terminal (*os.File); anything else gets
// the line mode.
func WithInput(r io.Reader) Option { return func(c *openConfig) { c.in = r } }

// WithOutput shows the questions on w instead of os.Stderr. The keyboard
// picker needs w to be a terminal (*os.File).
func WithOutput(w io.Writer) Option { return func(c *openConfig) { c.out = w } }

// WithPlain(true) asks for the line mode even on a terminal (a --plain
// flag): the screen-reader mode.
func WithPlain(plain bool) Option { return func(c *openConfig) { c.plain = plain } }

// WithEnv reads TERM, NO_COLOR and ASKCORE_PLAIN through getenv instead of
// os.Getenv.
func WithEnv(getenv func(string) string) Option { return func(c *openConfig) { c.getenv = getenv } }

// Open returns the terminal provider on the process's terminal: answers
// read from stdin, questions shown on stderr (or on the reader and writer
// the options name), with the keyboard picker or the line mode and colour
// or none as the core's terminal op decides from the facts Open reads.
// Register it on a Service; Close releases the terminal.
func Open(ctx context.Context, c *askcore.Core, opts ...Option) (*Provider, error) {
	cfg := openConfig{in: os.Stdin, out: os.Stderr, getenv: os.Getenv}
	for _, o := range opts {
		o(&cfg)
	}
	inFile, _ := cfg.in.(*os.File)
	outFile, _ := cfg.out.(*os.File)
	inTTY, outTTY := IsTerminal(inFile), IsTerminal(outFile)
	mode, err := c.Terminal(ctx, askcore.TerminalFacts{
		StdinTTY:  inTTY,
		StderrTTY: outTTY,
		OutTTY:    outTTY,
		Term:      cfg.getenv("TERM"),
		NoColor:   cfg.getenv("NO_COLOR"),
		Plain:     cfg.getenv(EnvPlain),
		PlainFlag: cfg.plain,
	})
	if err != nil {
		return nil, err
	}
	in, done := cfg.in, func() {}
	if mode.Picker {
		inFile, done = TerminalInput(inFile)
		in = inFile
	}
	lines := NewLines(in)
	out := NewSyncWriter(cfg.out)
	style := Style{Color: mode.Color}
	pc := Config{Lines: lines, Out: out, Style: style, Echoed: inTTY}
	if mode.Picker {
		t := NewTerminal(lines, inFile, out, outFile, style)
		pc.Picker = &t
	}
	p := NewProvider(pc)
	p.release = func() {
		lines.Close()
		done()
	}
	return p, nil
}
