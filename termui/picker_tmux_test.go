//go:build unix

package termui

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/askcore/askcore"
	"github.com/askcore/askcore/internal/testing/tmuxtest"
)

// The picker through a real pseudo-terminal: tmux runs the pickertest
// program (termui/internal/pickertest) in a private server (tmuxtest), the
// test types with send-keys and reads the visible pane with capture-pane.
// Nothing sleeps to synchronise: every step polls the screen until it
// shows what is expected, so the tests hold on a loaded machine.

// buildPickerTest builds the test program (go's build cache makes the
// second build of a run cheap).
func buildPickerTest(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "pickertest")
	out, err := exec.Command("go", "build", "-o", bin, "./internal/pickertest").CombinedOutput()
	require.NoError(t, err, "building pickertest: %s", out)
	return bin
}

// ptmux is a private tmux server (its waits read the visible pane: the
// picker is drawn in place) that runs pickertest.
type ptmux struct {
	*tmuxtest.Server
	t   *testing.T
	bin string
}

func newPTmux(t *testing.T) *ptmux {
	t.Helper()
	s := tmuxtest.New(t, tmuxtest.Config{}) // skips t, before the build, when tmux is missing
	return &ptmux{Server: s, t: t, bin: buildPickerTest(t)}
}

func (s *ptmux) with(t *testing.T) *ptmux { return &ptmux{Server: s.With(t), t: t, bin: s.bin} }

// picker runs pickertest on layout (a file in testdata/picker, or a path)
// in a new cols x rows session; flags go to pickertest, env before it
// (VAR=value, or a command ending in ";"). The picks land in out(name).
func (s *ptmux) picker(name string, cols, rows int, layout, env string, flags ...string) {
	s.t.Helper()
	if !filepath.IsAbs(layout) {
		abs, err := filepath.Abs(filepath.Join("testdata", "picker", layout))
		require.NoError(s.t, err)
		layout = abs
	}
	s.Session(name, cols, rows, fmt.Sprintf(`%s %s -layout %s -out %s %s`,
		env, s.bin, layout, s.out(name), strings.Join(flags, " ")))
}

// out is the file pickertest writes the picks of session name to.
func (s *ptmux) out(name string) string { return filepath.Join(s.Dir(), name+".json") }

type pickOut struct {
	Picks  []askcore.Pick  `json:"picks"`
	Error  string          `json:"error"`
	Answer json.RawMessage `json:"answer"` // -request: the core's answer
}

// finish waits for the exit status and reads the picks.
func (s *ptmux) finish(name string, exit int) pickOut {
	s.t.Helper()
	s.WaitFor(name, fmt.Sprintf("[exit %d]", exit))
	b, err := os.ReadFile(s.out(name))
	require.NoError(s.t, err)
	var o pickOut
	require.NoError(s.t, json.Unmarshal(b, &o), "%s", b)
	return o
}

func picksOf(o pickOut) string { return picksJSON(o.Picks) }

// TestPickerTerminal drives every key of contract section 9 through a real
// terminal.
func TestPickerTerminal(t *testing.T) {
	server := newPTmux(t)

	t.Run("single-select: arrows, j/k, digits, Enter; one summary line stays", func(t *testing.T) {
		tm := server.with(t)
		tm.picker("single", 80, 24, "db.json", "")
		scr := tm.WaitCursor("single", "1. PostgreSQL")
		assert.Contains(t, scr, "[Database] Which database should the service use?")
		assert.Contains(t, scr, "1. PostgreSQL  recommended")
		assert.Contains(t, scr, "     Scales well; needs a server.")
		assert.Contains(t, scr, "↑/↓ move · 1-9 jump · Enter choose · Ctrl-N notes · Esc decline")
		colored := tm.Pane("single", true)
		assert.Contains(t, colored, "\x1b[", "colour on a terminal without NO_COLOR")

		tm.Keys("single", "Down")
		tm.WaitCursor("single", "2. SQLite")
		tm.Keys("single", "j")
		tm.WaitCursor("single", "3. MySQL")
		tm.Keys("single", "k")
		tm.WaitCursor("single", "2. SQLite")
		tm.Keys("single", "Up")
		tm.WaitCursor("single", "1. PostgreSQL")
		tm.Keys("single", "3")
		tm.WaitCursor("single", "3. MySQL")
		tm.Keys("single", "2")
		tm.WaitCursor("single", "2. SQLite")
		tm.Keys("single", "Enter")
		o := tm.finish("single", 0)
		assert.Equal(t, `[{"options":[0],"text":""}]`, picksOf(o))

		all := tm.All("single", false)
		assert.Contains(t, all, "→ SQLite\n[exit 0]")
		assert.NotContains(t, all, "❯", "the picker is erased, nothing of it left in the scrollback")
		assert.NotContains(t, all, "Which database")
	})

	t.Run("Esc declines, Ctrl-C aborts", func(t *testing.T) {
		tm := server.with(t)
		tm.picker("esc", 80, 24, "db.json", "")
		tm.WaitCursor("esc", "1. PostgreSQL")
		tm.Keys("esc", "Down")
		tm.WaitCursor("esc", "2. SQLite")
		tm.Keys("esc", "Escape")
		o := tm.finish("esc", 5)
		assert.Nil(t, o.Picks)
		assert.Contains(t, tm.All("esc", false), "✗ declined\n[exit 5]")

		tm.picker("ctrlc", 80, 24, "db.json", "")
		tm.WaitCursor("ctrlc", "1. PostgreSQL")
		tm.Keys("ctrlc", "C-c")
		tm.finish("ctrlc", 6) // raw mode: Ctrl-C is a key, not SIGINT (130)
		assert.Contains(t, tm.All("ctrlc", false), "✗ dismissed (Ctrl-C)\n[exit 6]")
	})

	t.Run("own answer: typing writes text, j/k are letters", func(t *testing.T) {
		tm := server.with(t)
		tm.picker("text", 80, 24, "db.json", "")
		tm.WaitCursor("text", "1. PostgreSQL")
		tm.Keys("text", "Down", "Down", "Down")
		tm.WaitCursor("text", "✎ Type your own answer")
		tm.Type("text", "jk 12 kj")
		tm.WaitCursor("text", "✎ Type your own answer: jk 12 kj")
		tm.Keys("text", "BSpace", "BSpace")
		tm.WaitScreen("text", "backspace", func(scr string) bool {
			return strings.HasSuffix(tmuxtest.CursorLine(scr), ": jk 12") // the space and the cursor are trimmed
		})
		tm.Type("text", "ok")
		tm.WaitCursor("text", "✎ Type your own answer: jk 12 ok")
		tm.Keys("text", "Enter")
		o := tm.finish("text", 0)
		assert.Equal(t, `[{"options":[],"text":"jk 12 ok"}]`, picksOf(o))
		assert.Contains(t, tm.All("text", false), "→ jk 12 ok\n[exit 0]")
	})

	t.Run("multi-select: recommended start on, Space toggles", func(t *testing.T) {
		tm := server.with(t)
		tm.picker("multi", 80, 24, "multi.json", "")
		scr := tm.WaitCursor("multi", "[x] 1. Auth")
		assert.Contains(t, scr, "  [x] 2. Cache")
		assert.Contains(t, scr, "  [ ] 3. Logs")
		tm.Keys("multi", "Space")
		tm.WaitCursor("multi", "[ ] 1. Auth")
		tm.Keys("multi", "j", "j", "Space")
		tm.WaitCursor("multi", "[x] 3. Logs")
		tm.Keys("multi", "Down")
		tm.Type("multi", "x y")
		tm.WaitCursor("multi", "[x]  ✎ Other: x y")
		tm.Keys("multi", "Enter")
		o := tm.finish("multi", 0)
		assert.Equal(t, `[{"options":[0,1],"text":"x y"}]`, picksOf(o))
		assert.Contains(t, tm.All("multi", false), "→ Cache, Logs, x y\n[exit 0]")
	})

	t.Run("batch: Tab/Shift-Tab keep choices, Enter confirms and moves on", func(t *testing.T) {
		tm := server.with(t)
		tm.picker("batch", 80, 24, "batch.json", "")
		tm.WaitFor("batch", "Question 1 of 3", "[DB]")
		tm.Keys("batch", "Down") // PostgreSQL, not confirmed
		tm.WaitCursor("batch", "2. PostgreSQL")
		tm.Keys("batch", "Tab")
		tm.WaitFor("batch", "Question 2 of 3", "[Extras]")
		tm.Keys("batch", "Space")
		tm.WaitCursor("batch", "[x] 1. Auth")
		tm.Keys("batch", "Tab")
		tm.WaitFor("batch", "Question 3 of 3")
		tm.Type("batch", "Bo")
		tm.WaitCursor("batch", "✎ Type your answer: Bo")
		tm.Keys("batch", "BTab", "BTab")
		scr := tm.WaitFor("batch", "Question 1 of 3")
		assert.Equal(t, "2. PostgreSQL  recommended", tmuxtest.CursorLine(scr), "Tab kept the choice")
		tm.Keys("batch", "Enter") // confirm 1 -> 2
		scr = tm.WaitFor("batch", "Question 2 of 3", "✓ DB")
		assert.Equal(t, "[x] 1. Auth", tmuxtest.CursorLine(scr))
		tm.Keys("batch", "Enter") // confirm 2 -> 3
		scr = tm.WaitFor("batch", "Question 3 of 3", "✓ Extras")
		assert.Contains(t, scr, "Type your answer: Bo")
		tm.Keys("batch", "Enter") // confirm 3: submitted
		o := tm.finish("batch", 0)
		assert.Equal(t, `[{"options":[1],"text":""},{"options":[0],"text":""},{"options":[],"text":"Bo"}]`, picksOf(o))
		assert.Contains(t, tm.All("batch", false), "→ PostgreSQL\n→ Auth\n→ Bo\n[exit 0]")
	})

	t.Run("a rejected Enter shows the message and stays", func(t *testing.T) {
		tm := server.with(t)
		tm.picker("reject", 80, 24, "batch.json", "", "-reject", tmuxtest.Quote("Pick at least one extra."))
		tm.WaitFor("reject", "Question 1 of 3")
		tm.Keys("reject", "Enter")
		tm.WaitFor("reject", "Question 2 of 3")
		tm.Keys("reject", "Enter") // nothing toggled: rejected
		tm.WaitFor("reject", "Pick at least one extra.", "Question 2 of 3")
		tm.Keys("reject", "Space") // the message goes once something changes
		tm.WaitScreen("reject", "the message cleared", func(scr string) bool {
			return !strings.Contains(scr, "Pick at least one extra.") && tmuxtest.CursorLine(scr) == "[x] 1. Auth"
		})
		tm.Keys("reject", "Enter")
		tm.WaitFor("reject", "Question 3 of 3")
		tm.Keys("reject", "Escape")
		tm.finish("reject", 5)
	})
}

// TestPickerTerminalScreen: sizes, scripts, colour, hostile text, other
// output, the hand-over to the line reader.
func TestPickerTerminalScreen(t *testing.T) {
	server := newPTmux(t)
	big := filepath.Join(server.Dir(), "big.json")
	require.NoError(t, os.WriteFile(big, []byte(bigLayout(64, false)), 0o600))

	t.Run("64 options in a short terminal scroll", func(t *testing.T) {
		tm := server.with(t)
		tm.picker("scroll", 70, 12, big, "")
		scr := tm.WaitCursor("scroll", "1. PostgreSQL 1")
		assertFits(t, scr, 70, 12)
		assert.Regexp(t, `(?m)^  ↓ \d+ more$`, scr)
		assert.NotRegexp(t, `(?m)^  ↑ `, scr)
		for range 12 {
			tm.Keys("scroll", "Down")
		}
		scr = tm.WaitCursor("scroll", "13. ")
		assert.Regexp(t, `(?m)^  ↑ \d+ more$`, scr)
		assertFits(t, scr, 70, 12)
		tm.Keys("scroll", "End")
		scr = tm.WaitCursor("scroll", "✎ Type your own answer")
		assert.Contains(t, scr, "64. PostgreSQL 64")
		assert.NotRegexp(t, `(?m)^  ↓ `, scr)
		tm.Keys("scroll", "PPage")
		tm.WaitScreen("scroll", "PgUp", func(scr string) bool {
			return strings.Contains(tmuxtest.CursorLine(scr), ". ") && !strings.HasPrefix(tmuxtest.CursorLine(scr), "64.")
		})
		tm.Keys("scroll", "Home")
		tm.WaitCursor("scroll", "1. PostgreSQL 1")
		tm.Keys("scroll", "9", "Enter")
		o := tm.finish("scroll", 0)
		assert.Equal(t, `[{"options":[8],"text":""}]`, picksOf(o))
		all := tm.All("scroll", false)
		assert.NotContains(t, all, "❯")
		assert.NotContains(t, all, "more\n")
	})

	t.Run("resize: the picker is drawn again for each size; nothing left behind", func(t *testing.T) {
		// Sizes the frame still fits in (narrower and shorter included):
		// the scrollback keeps nothing of it. Each size is narrower than
		// the last only where the last frame's lines fit it (the key help
		// is one line of 78 cells from 79 columns): 120 columns before 60
		// reflows a line and pushes the row above the frame ("before")
		// out, 120 before 52 would push the frame's own first line out
		// (PICKER.md, "Resize").
		tm := server.with(t)
		tm.picker("resize", 100, 30, "db.json", "echo before;")
		tm.WaitCursor("resize", "1. PostgreSQL")
		tm.Keys("resize", "Down")
		tm.WaitCursor("resize", "2. SQLite")
		for _, sz := range [][2]int{{120, 40}, {60, 15}, {52, 12}, {80, 24}} {
			tm.Resize("resize", sz[0], sz[1])
			scr := tm.WaitScreen("resize", fmt.Sprintf("the %dx%d frame", sz[0], sz[1]), func(scr string) bool {
				return tmuxtest.CursorLine(scr) == "2. SQLite" && fits(scr, sz[0], sz[1]) &&
					strings.Count(scr, "[Database]") == 1 && strings.Count(scr, "❯") == 1
			})
			assertFits(t, scr, sz[0], sz[1])
		}
		tm.Keys("resize", "Enter")
		o := tm.finish("resize", 0)
		assert.Equal(t, `[{"options":[0],"text":""}]`, picksOf(o))
		all := tm.All("resize", false)
		assert.Regexp(t, `^before\n→ SQLite\n\[exit 0\]\n`, all, "nothing of the picker in the scrollback")
	})

	t.Run("resize: smaller than the picker", func(t *testing.T) {
		// Narrowing reflows the frame's lines, a shorter window pushes the
		// top rows into the scrollback: when the frame no longer fits,
		// the terminal itself moves the top of the old frame out of the
		// picker's reach (PICKER.md). The live picker is drawn right for
		// every size, at the bottom of the output.
		tm := server.with(t)
		tm.picker("small", 100, 30, "db.json", "")
		tm.WaitCursor("small", "1. PostgreSQL")
		for _, sz := range [][2]int{{30, 9}, {24, 5}, {80, 24}} {
			tm.Resize("small", sz[0], sz[1])
			scr := tm.WaitScreen("small", fmt.Sprintf("the %dx%d frame", sz[0], sz[1]), func(scr string) bool {
				return strings.HasPrefix(tmuxtest.CursorLine(scr), "1. PostgreSQL") && fits(scr, sz[0], sz[1])
			})
			assertFits(t, scr, sz[0], sz[1])
		}
		scr := tm.WaitFor("small", "↑/↓ move · 1-9 jump · Enter choose · Ctrl-N notes · Esc decline")
		assert.True(t, strings.HasSuffix(strings.TrimRight(scr, "\n"), "  3. MySQL\n   ✎ Type your own answer\n↑/↓ move · 1-9 jump · Enter choose · Ctrl-N notes · Esc decline"), scr)
		tm.Keys("small", "Escape")
		tm.finish("small", 5)
		// The picker is gone: the declined line is where it was. Above it
		// may stay what the terminal moved out of the picker's reach while
		// it was smaller than the frame, and pulled back into view when it
		// grew again (which of the old frames' rows depends on their
		// lengths).
		scr = tm.Pane("small", false)
		i := strings.Index(scr, "✗ declined\n[exit 5]")
		require.GreaterOrEqual(t, i, 0, scr)
		assert.NotContains(t, scr[i:], "❯", scr)
		assert.NotContains(t, scr[i:], "MySQL", scr)
	})

	t.Run("resize: a full-height list narrowed", func(t *testing.T) {
		// Narrowing reflows the frame's lines: when they no longer fit,
		// the terminal itself pushes the top of the old frame into the
		// scrollback, out of the picker's reach (PICKER.md). The live
		// picker is still drawn right for the new size.
		tm := server.with(t)
		tm.picker("narrow", 100, 30, big, "")
		tm.WaitCursor("narrow", "1. PostgreSQL 1")
		tm.Keys("narrow", "Down", "Down")
		tm.WaitCursor("narrow", "3. Café crème 3")
		for _, sz := range [][2]int{{40, 10}, {90, 20}, {30, 25}} {
			tm.Resize("narrow", sz[0], sz[1])
			scr := tm.WaitScreen("narrow", fmt.Sprintf("the %dx%d frame", sz[0], sz[1]), func(scr string) bool {
				return strings.HasPrefix(tmuxtest.CursorLine(scr), "3. ") && fits(scr, sz[0], sz[1]) &&
					strings.Count(scr, "❯") == 1 && strings.Contains(scr, "↓ ")
			})
			assertFits(t, scr, sz[0], sz[1])
		}
		tm.Keys("narrow", "Down", "Enter")
		o := tm.finish("narrow", 0)
		assert.Equal(t, `[{"options":[3],"text":""}]`, picksOf(o))
		scr := tm.Pane("narrow", false)
		assert.NotContains(t, scr, "❯", "no frame left on the screen:\n%s", scr)
		assert.Contains(t, scr, "→ 🚀 Rocket 4\n[exit 0]")
	})

	t.Run("wide characters and combining marks stay aligned", func(t *testing.T) {
		tm := server.with(t)
		tm.picker("wide", 36, 20, "wide.json", "")
		scr := tm.WaitCursor("wide", "1. 日本語")
		assertFits(t, scr, 36, 20)
		// Every entry's label starts in the same column, whatever the
		// width of the characters before and in it.
		labelCol := -1
		n := 0
		for _, l := range strings.Split(scr, "\n") {
			m := regexp.MustCompile(`^(❯ |  )( ?\d\. | ✎ )`).FindString(l)
			if m == "" {
				continue
			}
			n++
			col := textWidth(m)
			if labelCol < 0 {
				labelCol = col
			}
			assert.Equal(t, labelCol, col, "%q", l)
		}
		assert.Equal(t, 6, n, "five options and the own answer:\n%s", scr)
		assert.Contains(t, scr, "Cafe\u0301 cre\u0300me")
		assert.Contains(t, scr, "…", "the long CJK label is cut, not wrapped")
		assert.Contains(t, scr, "     全角の説明文")
		tm.Keys("wide", "Down", "Down", "Down", "Down", "Down")
		tm.WaitCursor("wide", "✎ 自分で入力")
		tm.Type("wide", "中文 e\u0301 👍")
		tm.WaitCursor("wide", "✎ 自分で入力: 中文 e\u0301 👍")
		tm.Keys("wide", "BSpace")
		tm.WaitScreen("wide", "backspace removes 👍", func(scr string) bool {
			return tmuxtest.CursorLine(scr) == "✎ 自分で入力: 中文 e\u0301" // the space and the cursor are trimmed
		})
		tm.Keys("wide", "BSpace", "BSpace")
		tm.Type("wide", "x")
		tm.WaitCursor("wide", "✎ 自分で入力: 中文 x")
		tm.Keys("wide", "Enter")
		o := tm.finish("wide", 0)
		assert.Equal(t, `[{"options":[],"text":"中文 x"}]`, picksOf(o))
	})

	t.Run("NO_COLOR: no SGR at all", func(t *testing.T) {
		tm := server.with(t)
		tm.picker("nocolor", 80, 24, "multi.json", "NO_COLOR=1")
		tm.WaitCursor("nocolor", "[x] 1. Auth")
		tm.Keys("nocolor", "Down", "Down", "Down")
		tm.WaitCursor("nocolor", "[ ]  ✎ Other")
		assert.NotContains(t, tm.Pane("nocolor", true), "\x1b[", "NO_COLOR: no colour, no reverse video")
		tm.Keys("nocolor", "Escape")
		tm.finish("nocolor", 5)
	})

	t.Run("hostile text cannot drive the terminal", func(t *testing.T) {
		tm := server.with(t)
		tm.picker("hostile", 80, 24, "hostile.json", "")
		scr := tm.WaitCursor("hostile", "1. red")
		assert.Contains(t, scr, "Pick one]0;pwned now OVERWRITE\nsecond line\n", "a CR does not go back over the line; a line break stays one")
		assertFits(t, scr, 80, 24)
		colored := tm.Pane("hostile", true)
		assert.NotContains(t, colored, "\x1b[31m", "no red from the label")
		title := strings.TrimSpace(tm.Run("display-message", "-p", "-t", "hostile", "#{pane_title}"))
		assert.NotEqual(t, "pwned", title, "no OSC title change")
		assert.Contains(t, scr, "2. backspace CR\n", "BS and CR are not obeyed")
		tm.Keys("hostile", "Enter")
		tm.finish("hostile", 0)
	})

	t.Run("chat: model output during the question goes above the picker", func(t *testing.T) {
		tm := server.with(t)
		tm.picker("noise", 80, 24, "db.json", "", "-stdout", "-noise", "3")
		tm.WaitCursor("noise", "1. PostgreSQL")
		scr := tm.WaitFor("noise", "model text 3: the quick brown fox")
		lines := strings.Split(strings.TrimRight(scr, "\n"), "\n")
		iq := lastLine(lines, func(l string) bool { return strings.HasPrefix(l, "[Database]") })
		i3 := lastLine(lines, func(l string) bool { return strings.HasPrefix(l, "model text 3") })
		require.GreaterOrEqual(t, iq, 0, scr)
		assert.Equal(t, i3+1, iq, "the picker starts right below the last model line:\n%s", scr)
		assert.Equal(t, 1, strings.Count(scr, "[Database]"), "one picker, not a garbled copy:\n%s", scr)
		assert.Equal(t, 1, strings.Count(scr, "model text 1"))
		assert.Contains(t, scr, "❯ 1. PostgreSQL  recommended\n     Scales well; needs a server.\n  2. SQLite")
		tm.Keys("noise", "Enter")
		tm.finish("noise", 0)
		all := tm.All("noise", false)
		assert.Regexp(t, `model text 3: the quick brown fox\n→ PostgreSQL\n\[exit 0\]`, all)
	})

	t.Run("keys typed ahead go to the line reader; cooked mode is back", func(t *testing.T) {
		tm := server.with(t)
		tm.picker("ahead", 80, 24, "db.json", "", "-then-line")
		tm.WaitCursor("ahead", "1. PostgreSQL")
		// One write: the picker takes "2" and Enter, the line reader gets
		// the rest (typed while the terminal was raw).
		tm.Keys("ahead", "2", "Enter", "h", "e", "l", "l", "o", "Enter")
		o := tm.finish("ahead", 0)
		assert.Equal(t, `[{"options":[0],"text":""}]`, picksOf(o))
		b, err := os.ReadFile(tm.out("ahead") + ".line")
		require.NoError(t, err)
		assert.Equal(t, `"hello"`+"\n", string(b))

		tm.picker("after", 80, 24, "db.json", "", "-then-line")
		tm.WaitCursor("after", "1. PostgreSQL")
		tm.Keys("after", "Enter")
		tm.WaitFor("after", "→ PostgreSQL", "line>")
		tm.Type("after", "typed later")
		tm.WaitFor("after", "line> typed later") // echoed: the terminal is cooked again
		tm.Keys("after", "Enter")
		tm.finish("after", 0)
		b, err = os.ReadFile(tm.out("after") + ".line")
		require.NoError(t, err)
		assert.Equal(t, `"typed later"`+"\n", string(b))

		// Esc waits for the rest of an escape sequence, with a read of
		// the input in flight when the picker returns: Ctrl-D at the line
		// prompt after it still ends the input (TerminalInput).
		tm.picker("eof", 80, 24, "db.json", "", "-then-line")
		tm.WaitCursor("eof", "1. PostgreSQL")
		tm.Keys("eof", "Escape")
		tm.WaitFor("eof", "✗ declined", "line>")
		tm.Keys("eof", "C-d")
		tm.finish("eof", 5)
		b, err = os.ReadFile(tm.out("eof") + ".line")
		require.NoError(t, err)
		assert.Equal(t, `"error: EOF"`+"\n", string(b))
	})
}

// TestPickerTerminalEarlyKeys: keys typed before the picker showed (here:
// while the program had not started) do not answer it; they go to the
// next line reader.
func TestPickerTerminalEarlyKeys(t *testing.T) {
	tm := newPTmux(t)
	gate := filepath.Join(tm.Dir(), "gate")
	require.NoError(t, syscall.Mkfifo(gate, 0o600))
	tm.picker("early", 80, 24, "db.json", fmt.Sprintf("read -r _ < %s;", gate), "-then-line")
	tm.Keys("early", "e", "a", "r", "l", "y", "Enter") // the terminal holds them (cooked, echoed)
	tm.WaitFor("early", "early")
	f, err := os.OpenFile(gate, os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.WriteString("go\n")
	require.NoError(t, err)
	require.NoError(t, f.Close())
	tm.WaitCursor("early", "1. PostgreSQL")
	tm.Keys("early", "Down", "Enter")
	o := tm.finish("early", 0)
	assert.Equal(t, `[{"options":[0],"text":""}]`, picksOf(o), "the early Enter did not choose PostgreSQL")
	b, err := os.ReadFile(tm.out("early") + ".line")
	require.NoError(t, err)
	assert.Equal(t, `"early"`+"\n", string(b))
}

// fits reports whether the screen's lines all fit in cols-1 cells (so the
// terminal wrapped none) and the picker in rows-1 lines.
func fits(scr string, cols, rows int) bool {
	lines := strings.Split(strings.TrimRight(scr, "\n"), "\n")
	used := 0
	for _, l := range lines {
		if textWidth(l) > cols-1 {
			return false
		}
		if strings.TrimSpace(l) != "" {
			used++
		}
	}
	return used <= rows-1
}

// lastLine is the index of the last of lines that match, -1 if none does.
func lastLine(lines []string, match func(string) bool) int {
	for i := len(lines) - 1; i >= 0; i-- {
		if match(lines[i]) {
			return i
		}
	}
	return -1
}

func assertFits(t *testing.T, scr string, cols, rows int) {
	t.Helper()
	for _, l := range strings.Split(strings.TrimRight(scr, "\n"), "\n") {
		assert.LessOrEqual(t, textWidth(l), cols-1, "line wider than the terminal allows: %q", l)
	}
	assert.True(t, fits(scr, cols, rows), "the frame does not fit %dx%d:\n%s", cols, rows, scr)
}
