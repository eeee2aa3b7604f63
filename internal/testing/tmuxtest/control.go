package tmuxtest

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"sync"
)

// controlled are the commands a Server sends through its control client
// (see control) rather than as tmux processes: the ones the tests repeat,
// the reads of the screen and the keys. The others (new-session,
// pipe-pane, resize-window, the buffers) run a few times a test, as
// processes, with tmux's own parsing of their arguments.
var controlled = map[string]bool{"capture-pane": true, "display-message": true, "send-keys": true}

// controlSession is the session the control client attaches to: one of
// its own, so that it never sizes or switches a test's session.
const controlSession = "tmuxtest-control"

// control is one tmux client in control mode (tmux -C) on a Server,
// started with its first controlled command and shared by the copies
// With makes. Each tmux command run as a process cost a few milliseconds
// of CPU (a process started, a client connected and torn down), and the
// terminal suites ran thousands of them (the Node picker test about 2,000:
// most of its CPU); through one client a command is a line written and a
// block read. Commands are serialised, as the tmux server runs them one at
// a time anyway.
type control struct {
	once sync.Once
	mu   sync.Mutex
	cmd  *exec.Cmd
	in   io.WriteCloser
	out  *bufio.Reader
	err  error // why the client cannot be used; every command fails with it
}

// start starts the client, cmd (tmux -C new-session of controlSession),
// the first time it is called; the session's own output block is read
// before any command is sent.
func (c *control) start(cmd *exec.Cmd) {
	c.once.Do(func() {
		c.cmd = cmd
		var out io.ReadCloser
		if c.in, c.err = c.cmd.StdinPipe(); c.err != nil {
			return
		}
		if out, c.err = c.cmd.StdoutPipe(); c.err != nil {
			return
		}
		c.out = bufio.NewReader(out)
		if c.err = c.cmd.Start(); c.err != nil {
			return
		}
		if _, err := c.block(); err != nil {
			c.err = fmt.Errorf("tmux -C new-session: %w", err)
		}
	})
}

// run sends one command line of n commands (joined by ";") and returns
// their output, one block each, or the error text of the first that
// failed as the error: tmux runs none of the line's commands after a
// failed one, so no more blocks come for that line.
func (c *control) run(line string, n int) (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil {
		return "", c.err
	}
	if _, err := io.WriteString(c.in, line+"\n"); err != nil {
		c.err = fmt.Errorf("tmux control client: %w", err)
		return "", c.err
	}
	var out strings.Builder
	for range n {
		b, err := c.block()
		if err != nil {
			return out.String(), err
		}
		out.WriteString(b)
	}
	return out.String(), nil
}

// block reads the output block of the next command: the lines between
// "%begin TIME NUMBER FLAGS" and the "%end" (or "%error") with the same
// three fields. What comes between blocks is tmux's notifications
// (%session-changed, %window-add, ...), which no test reads; tmux never
// writes one inside a block.
func (c *control) block() (string, error) {
	var guard string
	for guard == "" {
		line, err := c.out.ReadString('\n')
		if err != nil {
			c.err = fmt.Errorf("tmux control client: %w", err)
			return "", c.err
		}
		if g, ok := strings.CutPrefix(strings.TrimSuffix(line, "\n"), "%begin "); ok {
			guard = g
		}
	}
	var b strings.Builder
	for {
		line, err := c.out.ReadString('\n')
		if err != nil {
			c.err = fmt.Errorf("tmux control client: %w", err)
			return "", c.err
		}
		switch strings.TrimSuffix(line, "\n") {
		case "%end " + guard:
			return b.String(), nil
		case "%error " + guard:
			return "", errors.New(strings.TrimSuffix(b.String(), "\n"))
		}
		b.WriteString(line)
	}
}

// stop ends the client once its server is killed: its input closed, its
// remaining notifications (%exit) read.
func (c *control) stop() {
	if c.cmd == nil || c.cmd.Process == nil {
		return
	}
	c.in.Close()
	_, _ = io.Copy(io.Discard, c.out)
	_ = c.cmd.Wait()
}

// controlLine is args as one line of tmux's command syntax, the number of
// commands in it, and whether they go through the control client: every
// command of the line a controlled one, each argument in single quotes
// (nothing is expanded in them), the separator ";" bare. An argument with
// a quote, a control character (a newline would end the line), a trailing
// ";" (which tmux treats apart on its command line) or a leading "--"
// cannot be written so: a target "--plain" (a session named after a flag)
// named the client's own session when parsed from a line, and the right
// one when given as a process's argument.
func controlLine(args []string) (line string, commands int, ok bool) {
	words := make([]string, len(args))
	command := true // the next argument names a command
	for i, a := range args {
		switch {
		case command:
			if !controlled[a] {
				return "", 0, false
			}
			commands++
			command = false
		case a == ";":
			words[i] = a
			command = true
			continue
		}
		if strings.HasSuffix(a, ";") || strings.HasPrefix(a, "--") || strings.ContainsFunc(a, func(r rune) bool { return r == '\'' || r < 0x20 || r == 0x7f }) {
			return "", 0, false
		}
		words[i] = "'" + a + "'"
	}
	if command { // no arguments, or a ";" last: a command without a block to read
		return "", 0, false
	}
	return strings.Join(words, " "), commands, true
}
