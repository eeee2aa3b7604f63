package termui

import (
	"os"
	"strings"

	"golang.org/x/term"
)

// Style decides how our own decorations look. Colour is off unless asked
// for: the front door sets Color from the core's terminal op
// (askcore.Core.Terminal), which allows it only for a terminal, and never
// when NO_COLOR is set (https://no-color.org) or TERM is "dumb". Text from
// the model or the core is never styled by escape codes of its own: only
// these decorations add SGR sequences, around text that was sanitized
// first.
type Style struct {
	Color bool
}

// IsTerminal reports whether f is a terminal.
func IsTerminal(f *os.File) bool { return f != nil && term.IsTerminal(fdOf(f)) }

// fdOf is f's file descriptor, for ioctls, while f stays open. Unlike
// File.Fd it leaves a file the Go runtime polls (TerminalInput's, an
// opened /dev/tty) non-blocking.
func fdOf(f *os.File) int {
	fd := -1
	if rc, err := f.SyscallConn(); err == nil {
		_ = rc.Control(func(u uintptr) { fd = int(u) })
	}
	return fd
}

const (
	sgrReset  = "\x1b[0m"
	sgrBold   = "\x1b[1m"
	sgrDim    = "\x1b[2m"
	sgrRed    = "\x1b[31m"
	sgrYellow = "\x1b[33m"
	sgrCyan   = "\x1b[36m"
)

func (s Style) wrap(sgr, text string) string {
	if !s.Color || text == "" {
		return text
	}
	return sgr + text + sgrReset
}

// Question styles the rule that sets a question apart.
func (s Style) Question(text string) string { return s.wrap(sgrBold+sgrCyan, text) }

// Prompt styles a prompt marker.
func (s Style) Prompt(text string) string { return s.wrap(sgrBold+sgrCyan, text) }

// Dim styles secondary text (confirmations, notices).
func (s Style) Dim(text string) string { return s.wrap(sgrDim, text) }

// Warn styles a re-prompt.
func (s Style) Warn(text string) string { return s.wrap(sgrYellow, text) }

// Error styles an error line.
func (s Style) Error(text string) string { return s.wrap(sgrBold+sgrRed, text) }

// Rule is the line that opens a question block.
func (s Style) Rule() string {
	return s.Question("? " + strings.Repeat("─", 46))
}
