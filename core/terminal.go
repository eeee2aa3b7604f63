package core

import (
	"github.com/askcore/askcore/core/internal/jsonx"
)

// terminalFacts describes where a terminal front door runs (op "terminal"): the
// host reads the facts, the core decides what they mean.
type terminalFacts struct {
	StdinTTY  bool   // stdin is a terminal
	StderrTTY bool   // stderr is a terminal
	OutTTY    bool   // the writer to decorate is a terminal
	Term      string // $TERM
	NoColor   string // $NO_COLOR
	Plain     string // $ASKCORE_PLAIN
	PlainFlag bool   // --plain was given
}

// terminalMode is what a terminal front door does.
type terminalMode struct {
	// Picker: answer questions with the keyboard picker;
	// otherwise the line mode, which is also the mode for
	// screen readers.
	Picker bool
	// Color: the writer may carry colour (https://no-color.org).
	Color bool
}

// terminalModeFor decides: the picker needs stdin and stderr to be
// terminals, TERM other than "dumb", and neither --plain nor ASKCORE_PLAIN
// (any value but "" and "0"); colour needs the writer to be a terminal,
// TERM other than "dumb" and NO_COLOR unset or empty.
func terminalModeFor(t terminalFacts) terminalMode {
	dumb := t.Term == "dumb"
	plain := t.PlainFlag || (t.Plain != "" && t.Plain != "0")
	return terminalMode{
		Picker: t.StdinTTY && t.StderrTTY && !dumb && !plain,
		Color:  t.OutTTY && !dumb && t.NoColor == "",
	}
}

func envelopeTerminal(env *jsonx.Value) (terminalFacts, *harnessError) {
	var t terminalFacts
	var err *harnessError
	for _, f := range []struct {
		name string
		dst  *bool
	}{{"stdinTTY", &t.StdinTTY}, {"stderrTTY", &t.StderrTTY}, {"outTTY", &t.OutTTY}, {"plainFlag", &t.PlainFlag}} {
		if *f.dst, err = envelopeOptBool(env, f.name); err != nil {
			return t, err
		}
	}
	for _, f := range []struct {
		name string
		dst  *string
	}{{"term", &t.Term}, {"noColor", &t.NoColor}, {"plain", &t.Plain}} {
		if *f.dst, err = envelopeOptString(env, f.name); err != nil {
			return t, err
		}
	}
	return t, nil
}

func appendTerminalMode(b []byte, m terminalMode) []byte {
	b = append(b, `{"picker":`...)
	b = jsonx.AppendBool(b, m.Picker)
	b = append(b, `,"color":`...)
	b = jsonx.AppendBool(b, m.Color)
	return append(b, '}')
}
