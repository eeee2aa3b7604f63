// Package tmuxtest runs programs on real pseudo-terminals for tests: a
// private tmux server per test starts sessions of a given size, the test
// types with send-keys and reads the screen back with capture-pane, both
// through one tmux client in control mode (see control) rather than a
// tmux process a command.
//
// Nothing sleeps to synchronise: every wait polls the screen until it
// shows what is expected, with one generous deadline (Patience), so the
// tests hold on a loaded machine; a keyboard picker's frame is read only
// once its paint is whole (see WaitScreen). termui's picker tests and
// cmd/askcore-stdio's binary tests share it; what they run (pickertest,
// askcore-stdio) and what they expect stays with them.
package tmuxtest

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/askcore/askcore/internal/testing/missing"
)

// Patience is how long a wait lasts before the test fails. Only a failing
// test waits that long: a loaded machine makes the tests slower, never
// red.
const Patience = 2 * time.Minute

// waitLimit is how long the waits last: Patience, or TMUXTEST_PATIENCE (a
// duration, e.g. 10s) to fail sooner while writing a test, where every
// failure would otherwise wait Patience out.
var waitLimit = func() time.Duration {
	if d, err := time.ParseDuration(os.Getenv("TMUXTEST_PATIENCE")); err == nil && d > 0 {
		return d
	}
	return Patience
}()

// poll is how often a wait reads the screen again: a polling interval,
// not a synchronisation.
const poll = 20 * time.Millisecond

// Config is what a server's sessions see.
type Config struct {
	// Unset names variables of the test's environment the sessions must
	// not see, besides the terminal's (see New).
	Unset []string
	// Env is added to the sessions' environment (KEY=value).
	Env []string
	// History is how many lines of scrollback Screen and the waits read
	// above the visible pane: a program whose output scrolls (a chat)
	// needs them, a picker drawn in place wants the visible pane only (0).
	History int
}

// Server is a private tmux server. Its methods fail the test they belong
// to (see With) when tmux fails.
type Server struct {
	t       testing.TB
	tmux    string
	dir     string
	sock    string
	env     []string
	history int
	ctl     *control
}

// New makes a private tmux server for t (tmux starts it with the first
// session) and kills it when t ends; without tmux t ends as
// missing.Tool says (skipped, or failed in CI). The sessions'
// environment is the test's without the variables that change how a
// terminal program draws or that would reach the tmux the tests run in
// (NO_COLOR, TMUX, TMUX_PANE, LANG, LC_ALL, LC_CTYPE, TERM, and c.Unset),
// with TERM=xterm-256color and LANG=C.UTF-8, and c.Env: the same screen on
// every machine.
func New(t testing.TB, c Config) *Server {
	t.Helper()
	path, err := exec.LookPath("tmux")
	if err != nil {
		missing.Tool(t, "tmux is not installed: the pseudo-terminal tests need it; install it with: apt-get install -y tmux")
	}
	// A short directory: unix socket paths are limited to about 100 bytes.
	dir, err := os.MkdirTemp("", "tmt")
	require.NoError(t, err)
	unset := append([]string{"NO_COLOR", "TMUX", "TMUX_PANE", "LANG", "LC_ALL", "LC_CTYPE", "TERM"}, c.Unset...)
	var env []string
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); !slices.Contains(unset, k) {
			env = append(env, kv)
		}
	}
	env = append(append(env, "TERM=xterm-256color", "LANG=C.UTF-8"), c.Env...)
	s := &Server{t: t, tmux: path, dir: dir, sock: filepath.Join(dir, "s"), env: env, history: c.History, ctl: &control{}}
	t.Cleanup(func() {
		_ = s.command("kill-server").Run()
		s.ctl.stop()
		os.RemoveAll(dir)
	})
	return s
}

// command is a tmux process on the server: UTF-8 (-u), no configuration
// file, the sessions' environment.
func (s *Server) command(args ...string) *exec.Cmd {
	cmd := exec.Command(s.tmux, append([]string{"-u", "-S", s.sock, "-f", "/dev/null"}, args...)...)
	cmd.Env = s.env
	return cmd
}

// With returns the server for use in subtest t: its failures are t's.
func (s *Server) With(t testing.TB) *Server {
	c := *s
	c.t = t
	return &c
}

// Dir is a private directory with a short path, removed with the server:
// a place for a test's files (layouts, outputs, fifos).
func (s *Server) Dir() string { return s.dir }

// Run runs a tmux command on the server and returns its output: through
// the server's control client when it is one of the controlled commands
// and can be written as a line, else as a tmux process.
func (s *Server) Run(args ...string) string {
	s.t.Helper()
	if line, commands, ok := controlLine(args); ok {
		s.ctl.start(s.command("-C", "new-session", "-s", controlSession, "-x", "80", "-y", "24", "sleep 86400"))
		out, err := s.ctl.run(line, commands)
		require.NoError(s.t, err, "tmux %v", args)
		return out
	}
	out, err := s.command(args...).CombinedOutput()
	require.NoError(s.t, err, "tmux %v: %s", args, out)
	return string(out)
}

// Session starts shellCmd in a new session of cols x rows. When it ends
// the pane shows "[exit N]" (N its status) and stays, so the test can
// wait for the status and still read the screen. Everything the program
// writes is copied to the session's output log (pipe-pane, attached in
// the same tmux command, before tmux reads the pane's first byte): the
// waits and Resize read it to tell a whole paint from one half parsed.
func (s *Server) Session(name string, cols, rows int, shellCmd string) {
	s.t.Helper()
	s.Run("new-session", "-d", "-s", name, "-x", fmt.Sprint(cols), "-y", fmt.Sprint(rows),
		fmt.Sprintf(`%s; echo "[exit $?]"; sleep 600`, shellCmd),
		";", "pipe-pane", "-O", "-t", name, "cat > "+Quote(s.outputLog(name)))
}

// outputLog is the file that Session copies the output of session name
// to.
func (s *Server) outputLog(name string) string { return filepath.Join(s.dir, name+".output") }

// output is what the program of session name has written so far, as far
// as tmux has copied it: never more than tmux has parsed onto the screen
// (it copies each piece it reads in the step that parses it), possibly
// less (cat has not written it yet).
func (s *Server) output(name string) []byte {
	s.t.Helper()
	out, err := os.ReadFile(s.outputLog(name))
	if errors.Is(err, fs.ErrNotExist) {
		return nil // cat has not opened it yet
	}
	require.NoError(s.t, err)
	return out
}

// Keys sends tmux key names (Down, Enter, Space, Escape, C-c, BTab, ...);
// other words are typed as they are.
func (s *Server) Keys(name string, keys ...string) {
	s.t.Helper()
	s.Run(append([]string{"send-keys", "-t", name}, keys...)...)
}

// Type types text as it is, key names included (no Enter).
func (s *Server) Type(name, text string) {
	s.t.Helper()
	s.Run("send-keys", "-t", name, "-l", text)
}

// Paste pastes text into the session as a terminal paste (bracketed where
// the program asked for it). The buffer is named after the session and
// deleted by the paste: tests that run in parallel on one server each
// paste their own text (one shared buffer once pasted another test's).
func (s *Server) Paste(name, text string) {
	s.t.Helper()
	buffer := "paste-" + name
	s.Run("set-buffer", "-b", buffer, text)
	s.Run("paste-buffer", "-d", "-p", "-b", buffer, "-t", name)
}

// Line types text as it is, then Enter.
func (s *Server) Line(name, text string) {
	s.t.Helper()
	if text != "" {
		s.Type(name, text)
	}
	s.Keys(name, "Enter")
}

// capture is the pane's text from line start (tmux's -S: "" for the
// visible pane, "-N" for N lines of scrollback above it, "-" for all of
// it); escapes keeps colours as SGR sequences.
func (s *Server) capture(name, start string, escapes bool) string {
	s.t.Helper()
	args := []string{"capture-pane", "-p", "-t", name}
	if start != "" {
		args = append(args, "-S", start)
	}
	if escapes {
		args = append(args, "-e")
	}
	return s.Run(args...)
}

// Pane is the visible pane only.
func (s *Server) Pane(name string, escapes bool) string {
	s.t.Helper()
	return s.capture(name, "", escapes)
}

// Screen is what the waits read: the visible pane and Config.History
// lines of scrollback above it.
func (s *Server) Screen(name string, escapes bool) string {
	s.t.Helper()
	if s.history == 0 {
		return s.Pane(name, escapes)
	}
	return s.capture(name, fmt.Sprint(-s.history), escapes)
}

// All is the whole history of the pane: the scrollback and the screen.
func (s *Server) All(name string, escapes bool) string {
	s.t.Helper()
	return s.capture(name, "-", escapes)
}

// Poll calls cond until it holds, for as long as a wait lasts (Patience),
// and reports whether it held: for a wait the other helpers do not
// express (two panes alike), whose caller says what failed.
func (s *Server) Poll(cond func() bool) bool {
	s.t.Helper()
	deadline := time.Now().Add(waitLimit)
	for !cond() {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(poll)
	}
	return true
}

// WaitScreen polls Screen until cond holds and returns that screen; what
// names the wait in the failure. A screen with a keyboard picker on it is
// only read between two paints (see whole): tmux parses a paint in the
// pieces it reads from the terminal, and a screen read in between holds
// the top of the new frame over the bottom of the old one.
func (s *Server) WaitScreen(name, what string, cond func(screen string) bool) string {
	s.t.Helper()
	var scr string
	if !s.Poll(func() bool {
		var ok bool
		scr, ok = s.wholeScreen(name)
		return ok && cond(scr)
	}) {
		s.t.Fatalf("timed out waiting for %s; screen:\n%s", what, scr)
	}
	return scr
}

// wholeScreen is Screen, and whether it shows no picker half drawn. The
// output log is read first, so tmux has parsed at least all of it when
// the screen is captured; the screen and the cursor are read by one tmux
// command, so nothing is parsed between them.
func (s *Server) wholeScreen(name string) (string, bool) {
	s.t.Helper()
	out := s.output(name)
	args := []string{"capture-pane", "-p", "-t", name}
	if s.history > 0 {
		args = append(args, "-S", fmt.Sprint(-s.history))
	}
	got := s.Run(append(args, ";", "display-message", "-p", "-t", name, "#{cursor_x} #{cursor_y} #{pane_height}")...)
	i := strings.LastIndex(strings.TrimSuffix(got, "\n"), "\n") + 1
	var x, y, height int
	_, err := fmt.Sscan(got[i:], &x, &y, &height)
	require.NoError(s.t, err, "the cursor in %q", got[i:])
	scr := got[:i]
	lines := strings.Split(strings.TrimSuffix(scr, "\n"), "\n")
	return scr, whole(lines[max(len(lines)-height, 0):], x, y, out)
}

// whole reports whether the visible rows, with the cursor at column x of
// row y, show no keyboard picker half drawn, given the program's output
// as far as tmux has copied it. Every paint of the picker (termui's and
// its Node twin's in hostjs) draws the frame line by line from its first
// line ("\x1b[2K" before each), clears below and parks the cursor at the
// first line, column 0 (PaintEnd, with "\x1b[nA" for a frame of n+1
// lines). So a frame is whole when the output ends with a paint and the
// cursor is parked n rows above the last row with text on the screen:
// while tmux is between two pieces of a paint the cursor is lower (or the
// frame below it is the older, and then n is its own). Before the first
// paint ended, a screen is whole if it shows no picker's cursor line;
// after the last paint, if the program wrote something else since (the
// picker's answer, "[exit N]") and no new paint began.
func whole(rows []string, x, y int, out []byte) bool {
	end, up := lastPaintEnd(out)
	switch {
	case end < 0: // no paint ended yet: a frame on the screen is half drawn
		return !bytes.Contains(out, paintLine) && CursorLine(strings.Join(rows, "\n")) == ""
	case end < len(out): // after the last paint, a new one begun, or other output
		return !bytes.Contains(out[end:], paintLine)
	}
	last := y + up
	if x != 0 || last >= len(rows) || strings.TrimSpace(rows[last]) == "" {
		return false
	}
	for _, r := range rows[last+1:] {
		if strings.TrimSpace(r) != "" {
			return false
		}
	}
	return true
}

// paintLine begins each line of a paint.
var paintLine = []byte("\x1b[2K")

// lastPaintEnd is where the last whole paint in out ends (-1 for none)
// and how many lines it parked the cursor above its last line. It looks
// back from the end: a log holds many paints.
func lastPaintEnd(out []byte) (end, up int) {
	for k := bytes.LastIndex(out, clearBelow); k >= 0; k = bytes.LastIndex(out[:k], clearBelow) {
		if m := paintEndAt.FindSubmatchIndex(out[k:]); m != nil {
			if m[2] >= 0 {
				up, _ = strconv.Atoi(string(out[k+m[2] : k+m[3]]))
			}
			return k + m[1], up
		}
	}
	return -1, 0
}

var clearBelow = []byte("\x1b[J")

// paintEnd is how every paint of the keyboard picker (termui's, and its
// Node twin's in hostjs) ends: the rest of the screen cleared, the cursor
// parked back at the frame's first line, column 0 (the group: how many
// lines up).
const paintEnd = `\x1b\[J(?:\x1b\[(\d+)A)?\r`

// PaintEnd matches output that ends with a paint.
var PaintEnd = regexp.MustCompile(paintEnd + `\z`)

// paintEndAt matches a paint's end at the start of the text.
var paintEndAt = regexp.MustCompile(`^` + paintEnd)

// Resize resizes the window of session name to cols x rows and waits until
// the picker in it has painted for that size: what the test waits for
// next is then the frame drawn for this size, never the previous frame that
// happens to fit it, and the next resize cannot reflow a frame still being
// drawn. tmux resizes its screen at once but tells the program later (it
// sends at most one size per pane every 250 ms, and a size replaced
// before it was sent is never sent: the program skips it), so two things
// are waited for: the pane's terminal has the new size (the kernel sends
// SIGWINCH as it is set), and the program's output since the resize ends
// with a whole paint (PaintEnd), read in the session's output log. The
// picker must be idle when Resize is called (the previous step waited for
// its frame), so that all it writes after the resize is its answer to the
// new size.
func (s *Server) Resize(name string, cols, rows int) {
	s.t.Helper()
	var now [2]int
	var tty string
	_, err := fmt.Sscan(s.Run("display-message", "-p", "-t", name, "#{window_width} #{window_height} #{pane_tty}"), &now[0], &now[1], &tty)
	require.NoError(s.t, err)
	if now == [2]int{cols, rows} {
		return // no resize: nothing is sent, nothing painted
	}
	before := len(s.output(name))
	s.Run("resize-window", "-t", name, "-x", fmt.Sprint(cols), "-y", fmt.Sprint(rows))
	var c, r int
	var out []byte
	if !s.Poll(func() bool {
		var err error
		c, r, err = ttySize(tty)
		require.NoError(s.t, err, "the size of %s", tty)
		out = s.output(name)[before:]
		return c == cols && r == rows && PaintEnd.Match(out)
	}) {
		s.t.Fatalf("timed out waiting for a paint at %dx%d: the terminal is %dx%d, the output since the resize %q; screen:\n%s",
			cols, rows, c, r, out, s.Screen(name, false))
	}
}

// WaitFor waits until the screen contains every text.
func (s *Server) WaitFor(name string, texts ...string) string {
	s.t.Helper()
	return s.WaitScreen(name, fmt.Sprintf("%q", texts), func(scr string) bool {
		for _, x := range texts {
			if !strings.Contains(scr, x) {
				return false
			}
		}
		return true
	})
}

// WaitCursor waits until a keyboard picker is on the screen with its
// cursor on an entry that starts with want (see CursorLine).
func (s *Server) WaitCursor(name, want string) string {
	s.t.Helper()
	return s.WaitScreen(name, "the cursor on "+want, func(scr string) bool {
		c := CursorLine(scr)
		return c != "" && strings.HasPrefix(c, want)
	})
}

// CursorLine is the entry line under the keyboard picker's cursor, without
// the cursor glyph ("❯ ", termui's; termui cannot be imported here, its
// own tests use this package); "" when no picker is on the screen.
func CursorLine(scr string) string {
	for _, l := range strings.Split(scr, "\n") {
		if rest, ok := strings.CutPrefix(l, "❯ "); ok {
			return strings.TrimSpace(rest)
		}
	}
	return ""
}

// Quote quotes s as one word for the shell commands of sessions.
func Quote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
