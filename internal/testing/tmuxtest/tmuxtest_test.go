package tmuxtest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
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
		s.Session("cursor", 80, 24, `read -r a; read -r b; printf '  1. One\n❯ 2. Two  x\n%s\n' `+Quote(`it's $HOME`)+`; echo "$a/$b"`)
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
