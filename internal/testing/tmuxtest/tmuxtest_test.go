package tmuxtest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestServer: what the terminal suites rely on without asserting it
// themselves: the cleaned environment, the "[exit N]" line, the three
// captures, the picker's cursor line, quoting, a resize waited for until
// the program painted for it.
func TestServer(t *testing.T) {
	t.Setenv("NO_COLOR", "1")
	t.Setenv("LC_ALL", "C")
	t.Setenv("TMUXTEST_GONE", "x")
	server := New(t, Config{Unset: []string{"TMUXTEST_GONE"}, Env: []string{"TMUXTEST_ADDED=yes"}, History: 100})

	t.Run("environment and exit status", func(t *testing.T) {
		s := server.With(t)
		s.Session("env", 80, 24, `echo "${NO_COLOR-none} ${LC_ALL-none} $LANG ${TMUXTEST_GONE-none} $TMUXTEST_ADDED"; (exit 3)`)
		s.WaitFor("env", "none none C.UTF-8 none yes\n[exit 3]")
	})

	t.Run("captures", func(t *testing.T) {
		s := server.With(t)
		s.Session("long", 80, 10, `seq 150; printf '\033[31mred\033[0m\n'`)
		scr := s.WaitFor("long", "red\n[exit 0]") // Screen: the visible pane and 100 lines above it
		assert.Contains(t, scr, "\n100\n")
		assert.NotContains(t, scr, "\n5\n")
		assert.Equal(t, scr, s.Screen("long", false))
		assert.NotContains(t, s.Pane("long", false), "\n140\n")
		assert.Contains(t, s.All("long", false), "1\n2\n3\n")
		assert.Contains(t, s.Pane("long", true), "\x1b[31m")
		assert.NotContains(t, s.All("long", false), "\x1b[")
	})

	t.Run("keys, cursor line, quoting", func(t *testing.T) {
		s := server.With(t)
		// A picker's stand-in paints a frame (see TestWhole), moves below
		// it and prints.
		s.Session("cursor", 80, 24, `read -r a; read -r b; printf '\r\033[2K  1. One\r\n\033[2K❯ 2. Two  x\r\n\033[2K%s\033[J\033[2A\r' `+Quote(`it's $HOME`)+
			`; printf '\033[2B\n'; echo "$a/$b"`)
		s.Line("cursor", "Enter")
		s.Type("cursor", "C-c")
		s.Keys("cursor", "Enter")
		scr := s.WaitCursor("cursor", "2. Two")
		assert.Equal(t, "2. Two  x", CursorLine(scr))
		assert.Contains(t, scr, "it's $HOME\n")
		s.WaitFor("cursor", "Enter/C-c\n[exit 0]")
		assert.Empty(t, CursorLine(strings.ReplaceAll(scr, "❯", ">")))
	})
	t.Run("paste: each session its own text", func(t *testing.T) {
		s := server.With(t)
		for _, name := range []string{"paste-a", "paste-b"} {
			s.Session(name, 80, 24, `read -r line; echo "got:$line"`)
		}
		// Both buffers set before either is pasted: one shared buffer would
		// paste b's text into both.
		s.Run("set-buffer", "-b", "paste-paste-a", "stale")
		s.Paste("paste-b", "from b\n")
		s.Paste("paste-a", "from a\n")
		s.WaitFor("paste-a", "got:from a\n[exit 0]")
		s.WaitFor("paste-b", "got:from b\n[exit 0]")
		assert.NotContains(t, s.Run("list-buffers"), "paste-", "a paste deletes its buffer")
	})
	t.Run("resize: returns once the program painted for the new size", func(t *testing.T) {
		s := server.With(t)
		// A picker's stand-in: on SIGWINCH it paints the size it reads,
		// ending the paint as the picker does (PaintEnd). The shell runs
		// a trap when the signal ends its wait (not a read).
		s.Session("winch", 80, 24, `trap 'printf "\r\033[2Ksize %s\033[J\r" "$(stty size)"' WINCH; echo ready; sleep 600 & while :; do wait $!; done`)
		s.WaitFor("winch", "ready")
		for _, sz := range [][2]int{{60, 15}, {120, 40}, {52, 12}, {52, 12}} {
			s.Resize("winch", sz[0], sz[1])
			// No wait: the paint is on the screen when Resize returns
			// (sizes one after another, none skipped).
			assert.Contains(t, s.Pane("winch", false), fmt.Sprintf("size %d %d", sz[1], sz[0]))
		}
	})
}

// TestWhole: a picker's frame is read whole, never while tmux is between
// two pieces of a paint (the rows, the cursor and the output tmux copied
// so far, as the waits read them).
func TestWhole(t *testing.T) {
	paint := func(lines ...string) string {
		return "\r\x1b[2K" + strings.Join(lines, "\r\n\x1b[2K") + fmt.Sprintf("\x1b[J\x1b[%dA\r", len(lines)-1)
	}
	old := paint("Which?", "❯ 1. One", "  2. Two", "Enter choose")
	next := paint("Which?", "  1. One", "❯ 2. Two", "Enter choose")
	screen := func(rows ...string) []string { return append(rows, "", "", "") }
	for _, c := range []struct {
		name string
		rows []string
		x, y int
		out  string
		want bool
	}{
		{"the last paint whole, the cursor parked", screen("Which?", "  1. One", "❯ 2. Two", "Enter choose"), 0, 0, old + next, true},
		{"parked below earlier output", screen("$ ask", "Which?", "❯ 1. One", "  2. Two", "Enter choose"), 0, 1, "$ ask\r\n" + old, true},
		{"no picker on the screen", screen("$ ask", "→ One"), 5, 1, old + "\r\x1b[K→ One", true},
		{"other output after the last paint", screen("❯ 1. One", "[exit 0]"), 0, 2, old + "\r\n[exit 0]\r\n", true},
		{"a cursor line before any paint was copied", screen("Which?", "❯ 1. One"), 0, 0, "", false},
		{"no paint yet, no picker", screen("$ ask"), 5, 0, "$ ask", true},
		{"the first paint half copied", screen("Which?", "❯ 1. One"), 8, 1, "\r\x1b[2KWhich?\r\n\x1b[2K❯ 1. One", false},
		{"a new paint half copied (the cursor line cleared)", screen("Which?", "  1. On", "  2. Two", "Enter choose"), 7, 1, old + next[:24], false},
		{"the copy behind the screen: the cursor in the frame", screen("Which?", "  1. One", "❯ 2. Two", "Enter choose"), 8, 2, old, false},
		{"the copy behind the screen: at a line's start", screen("Which?", "  1. One", "❯ 2. Two", "Enter choose"), 0, 2, old, false},
		{"a frame taller than the paint copied", screen("Which?", "  1. One", "❯ 2. Two", "  3. Three", "Enter choose"), 0, 0, old, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.want, whole(c.rows, c.x, c.y, []byte(c.out)))
		})
	}

	t.Run("a session: the wait reads the frame once its paint ended", func(t *testing.T) {
		s := New(t, Config{})
		fifo := filepath.Join(s.Dir(), "go")
		require.NoError(t, syscall.Mkfifo(fifo, 0o600))
		s.Session("half", 40, 10, `printf '\r\033[2KWhich?\r\n\033[2K❯ 1. One'; read -r _ < `+Quote(fifo)+
			`; printf '\r\n\033[2KEnter choose\033[J\033[2A\r'; sleep 600`)
		require.True(t, s.Poll(func() bool { return strings.Contains(s.Pane("half", false), "❯ 1. One") }))
		_, ok := s.wholeScreen("half")
		assert.False(t, ok, "half a paint on the screen")
		require.NoError(t, os.WriteFile(fifo, []byte("\n"), 0o600))
		scr := s.WaitCursor("half", "1. One")
		assert.Contains(t, scr, "❯ 1. One\nEnter choose\n")
	})
}

// TestControl: a command sent through the control client returns what the
// same command run as a tmux process prints, byte for byte (colours,
// wide characters, a line that looks like the client's own framing), a
// failed one its error, and the arguments a line cannot carry go by
// process.
func TestControl(t *testing.T) {
	s := New(t, Config{})
	s.Session("c", 60, 6, `printf '\033[31mred\033[0m 日本語 ❯ x\n%%end 1 2 1\n%%begin\n'`)
	s.WaitFor("c", "[exit 0]")
	for _, args := range [][]string{
		{"capture-pane", "-p", "-e", "-t", "c"},
		{"capture-pane", "-p", "-t", "c", ";", "display-message", "-p", "-t", "c", "#{cursor_x} #{cursor_y} #{pane_height}"},
	} {
		want, err := s.command(args...).Output()
		require.NoError(t, err)
		assert.Equal(t, string(want), s.Run(args...), "%q", args)
	}
	_, err := s.ctl.run(`capture-pane -p -t 'nosuch' ; display-message -p 'never'`, 2)
	assert.ErrorContains(t, err, "can't find")
	assert.Equal(t, "after\n", s.Run("display-message", "-p", "after"), "in step after a failed line")

	for _, c := range []struct {
		args     []string
		line     string
		commands int
	}{
		{[]string{"send-keys", "-t", "a", "C-c"}, `'send-keys' '-t' 'a' 'C-c'`, 1},
		{[]string{"capture-pane", "-p", ";", "display-message", "-p", "#{cursor_x} $HOME"}, `'capture-pane' '-p' ; 'display-message' '-p' '#{cursor_x} $HOME'`, 2},
		{[]string{"send-keys", "-l", "it's"}, "", 0},
		{[]string{"send-keys", "-l", "two\nlines"}, "", 0},
		{[]string{"send-keys", "x;"}, "", 0},
		{[]string{"capture-pane", "-t", "--plain"}, "", 0},
		{[]string{"new-session", "-d", "-s", "x"}, "", 0},
		{[]string{"capture-pane", "-p", ";", "kill-session", "-t", "x"}, "", 0},
		{[]string{"send-keys", ";"}, "", 0},
		{[]string{";", "send-keys"}, "", 0},
		{nil, "", 0},
		{[]string{"send-keys", ";", ";", "send-keys"}, "", 0},
	} {
		line, commands, ok := controlLine(c.args)
		assert.Equal(t, c.line != "", ok, "%q", c.args)
		assert.Equal(t, c.line, line, "%q", c.args)
		assert.Equal(t, c.commands, commands, "%q", c.args)
	}
}
