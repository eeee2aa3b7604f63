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
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The picker through a real pseudo-terminal: tmux runs the pickertest
// program (termui/internal/pickertest) in a private server, the test types
// with send-keys and reads the screen with capture-pane. Nothing sleeps to
// synchronise: every step polls the screen until it shows what is expected
// (deadline: pickerDeadline), so the tests hold on a loaded machine.

const pickerDeadline = 60 * time.Second

// buildPickerTest builds the test program (go's build cache makes the
// second build of a run cheap).
func buildPickerTest(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "pickertest")
	out, err := exec.Command("go", "build", "-o", bin, "./internal/pickertest").CombinedOutput()
	require.NoError(t, err, "building pickertest: %s", out)
	return bin
}

type ptmux struct {
	t    *testing.T
	tmux string
	sock string
	env  []string
	bin  string
	dir  string
}

func newPTmux(t *testing.T) *ptmux {
	t.Helper()
	path, err := exec.LookPath("tmux")
	if err != nil {
		t.Skip("tmux is not installed: the pseudo-terminal tests need it (Debian: apt-get install tmux)")
	}
	bin := buildPickerTest(t)
	dir, err := os.MkdirTemp("", "pkt") // short: unix socket paths are limited
	require.NoError(t, err)
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "NO_COLOR", "TMUX", "TMUX_PANE", "LANG", "LC_ALL", "LC_CTYPE", "TERM":
			continue
		}
		env = append(env, kv)
	}
	env = append(env, "TERM=xterm-256color", "LANG=C.UTF-8")
	s := &ptmux{t: t, tmux: path, sock: filepath.Join(dir, "s"), env: env, bin: bin, dir: dir}
	t.Cleanup(func() {
		_ = exec.Command(path, "-S", s.sock, "kill-server").Run()
		os.RemoveAll(dir)
	})
	return s
}

func (s *ptmux) with(t *testing.T) *ptmux {
	c := *s
	c.t = t
	return &c
}

func (s *ptmux) run(args ...string) string {
	s.t.Helper()
	cmd := exec.Command(s.tmux, append([]string{"-u", "-S", s.sock, "-f", "/dev/null"}, args...)...)
	cmd.Env = s.env
	out, err := cmd.CombinedOutput()
	require.NoError(s.t, err, "tmux %v: %s", args, out)
	return string(out)
}

// session runs pickertest on layout (a file in testdata/picker, or a path)
// in a new cols x rows window; flags go to pickertest, env before it. The
// picks land in <dir>/<name>.json. When the program ends the pane shows
// "[exit N]" and stays.
func (s *ptmux) session(name string, cols, rows int, layout, env string, flags ...string) {
	// env: words before the command (VAR=value, or a command ending in ";")
	s.t.Helper()
	if !filepath.IsAbs(layout) {
		abs, err := filepath.Abs(filepath.Join("testdata", "picker", layout))
		require.NoError(s.t, err)
		layout = abs
	}
	cmd := fmt.Sprintf(`%s %s -layout %s -out %s %s; echo "[exit $?]"; sleep 600`,
		env, s.bin, layout, s.out(name), strings.Join(flags, " "))
	s.run("new-session", "-d", "-s", name, "-x", fmt.Sprint(cols), "-y", fmt.Sprint(rows), cmd)
}

func (s *ptmux) out(name string) string { return filepath.Join(s.dir, name+".json") }

// keys sends tmux key names (Down, Enter, Space, Escape, C-c, BTab, ...).
func (s *ptmux) keys(name string, keys ...string) {
	s.t.Helper()
	s.run(append([]string{"send-keys", "-t", name}, keys...)...)
}

// typ sends text literally.
func (s *ptmux) typ(name, text string) {
	s.t.Helper()
	s.run("send-keys", "-t", name, "-l", text)
}

// screen is the visible pane; all adds the scrollback; escapes keeps
// colours as SGR sequences.
func (s *ptmux) screen(name string, all, escapes bool) string {
	args := []string{"capture-pane", "-p", "-t", name}
	if all {
		args = append(args, "-S", "-")
	}
	if escapes {
		args = append(args, "-e")
	}
	return s.run(args...)
}

func (s *ptmux) waitScreen(name, what string, cond func(scr string) bool) string {
	s.t.Helper()
	deadline := time.Now().Add(pickerDeadline)
	for {
		scr := s.screen(name, false, false)
		if cond(scr) {
			return scr
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("timed out waiting for %s; screen:\n%s", what, scr)
		}
		time.Sleep(20 * time.Millisecond) // polling interval, not synchronisation
	}
}

func (s *ptmux) waitFor(name string, texts ...string) string {
	s.t.Helper()
	return s.waitScreen(name, fmt.Sprintf("%q", texts), func(scr string) bool {
		for _, x := range texts {
			if !strings.Contains(scr, x) {
				return false
			}
		}
		return true
	})
}

// waitCursor waits until the entry line under the cursor starts with want
// (after "❯ ").
func (s *ptmux) waitCursor(name, want string) string {
	s.t.Helper()
	return s.waitScreen(name, "the cursor on "+want, func(scr string) bool {
		return cursorLine(scr) != "" && strings.HasPrefix(cursorLine(scr), want)
	})
}

// cursorLine is the line with the cursor glyph, without it.
func cursorLine(scr string) string {
	for _, l := range strings.Split(scr, "\n") {
		if rest, ok := strings.CutPrefix(l, "❯ "); ok {
			return strings.TrimSpace(rest)
		}
	}
	return ""
}

type pickOut struct {
	Picks []Pick `json:"picks"`
	Error string `json:"error"`
}

// finish waits for the exit status and reads the picks.
func (s *ptmux) finish(name string, exit int) pickOut {
	s.t.Helper()
	s.waitFor(name, fmt.Sprintf("[exit %d]", exit))
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
		tm.session("single", 80, 24, "db.json", "")
		scr := tm.waitCursor("single", "1. PostgreSQL")
		assert.Contains(t, scr, "[Database] Which database should the service use?")
		assert.Contains(t, scr, "1. PostgreSQL  recommended")
		assert.Contains(t, scr, "     Scales well; needs a server.")
		assert.Contains(t, scr, "↑/↓ move · 1-9 jump · Enter choose · Esc decline")
		colored := tm.screen("single", false, true)
		assert.Contains(t, colored, "\x1b[", "colour on a terminal without NO_COLOR")

		tm.keys("single", "Down")
		tm.waitCursor("single", "2. SQLite")
		tm.keys("single", "j")
		tm.waitCursor("single", "3. MySQL")
		tm.keys("single", "k")
		tm.waitCursor("single", "2. SQLite")
		tm.keys("single", "Up")
		tm.waitCursor("single", "1. PostgreSQL")
		tm.keys("single", "3")
		tm.waitCursor("single", "3. MySQL")
		tm.keys("single", "2")
		tm.waitCursor("single", "2. SQLite")
		tm.keys("single", "Enter")
		o := tm.finish("single", 0)
		assert.Equal(t, `[{"options":[0],"text":""}]`, picksOf(o))

		all := tm.screen("single", true, false)
		assert.Contains(t, all, "→ SQLite\n[exit 0]")
		assert.NotContains(t, all, "❯", "the picker is erased, nothing of it left in the scrollback")
		assert.NotContains(t, all, "Which database")
	})

	t.Run("Esc declines, Ctrl-C aborts", func(t *testing.T) {
		tm := server.with(t)
		tm.session("esc", 80, 24, "db.json", "")
		tm.waitCursor("esc", "1. PostgreSQL")
		tm.keys("esc", "Down")
		tm.waitCursor("esc", "2. SQLite")
		tm.keys("esc", "Escape")
		o := tm.finish("esc", 5)
		assert.Nil(t, o.Picks)
		assert.Contains(t, tm.screen("esc", true, false), "✗ declined\n[exit 5]")

		tm.session("ctrlc", 80, 24, "db.json", "")
		tm.waitCursor("ctrlc", "1. PostgreSQL")
		tm.keys("ctrlc", "C-c")
		tm.finish("ctrlc", 6) // raw mode: Ctrl-C is a key, not SIGINT (130)
		assert.Contains(t, tm.screen("ctrlc", true, false), "✗ dismissed (Ctrl-C)\n[exit 6]")
	})

	t.Run("own answer: typing writes text, j/k are letters", func(t *testing.T) {
		tm := server.with(t)
		tm.session("text", 80, 24, "db.json", "")
		tm.waitCursor("text", "1. PostgreSQL")
		tm.keys("text", "Down", "Down", "Down")
		tm.waitCursor("text", "✎ Type your own answer")
		tm.typ("text", "jk 12 kj")
		tm.waitCursor("text", "✎ Type your own answer: jk 12 kj")
		tm.keys("text", "BSpace", "BSpace")
		tm.waitScreen("text", "backspace", func(scr string) bool {
			return strings.HasSuffix(cursorLine(scr), ": jk 12") // the space and the cursor are trimmed
		})
		tm.typ("text", "ok")
		tm.waitCursor("text", "✎ Type your own answer: jk 12 ok")
		tm.keys("text", "Enter")
		o := tm.finish("text", 0)
		assert.Equal(t, `[{"options":[],"text":"jk 12 ok"}]`, picksOf(o))
		assert.Contains(t, tm.screen("text", true, false), "→ jk 12 ok\n[exit 0]")
	})

	t.Run("multi-select: recommended start on, Space toggles", func(t *testing.T) {
		tm := server.with(t)
		tm.session("multi", 80, 24, "multi.json", "")
		scr := tm.waitCursor("multi", "[x] 1. Auth")
		assert.Contains(t, scr, "  [x] 2. Cache")
		assert.Contains(t, scr, "  [ ] 3. Logs")
		tm.keys("multi", "Space")
		tm.waitCursor("multi", "[ ] 1. Auth")
		tm.keys("multi", "j", "j", "Space")
		tm.waitCursor("multi", "[x] 3. Logs")
		tm.keys("multi", "Down")
		tm.typ("multi", "x y")
		tm.waitCursor("multi", "[x]  ✎ Other: x y")
		tm.keys("multi", "Enter")
		o := tm.finish("multi", 0)
		assert.Equal(t, `[{"options":[0,1],"text":"x y"}]`, picksOf(o))
		assert.Contains(t, tm.screen("multi", true, false), "→ Cache, Logs, x y\n[exit 0]")
	})

	t.Run("batch: Tab/Shift-Tab keep choices, Enter confirms and moves on", func(t *testing.T) {
		tm := server.with(t)
		tm.session("batch", 80, 24, "batch.json", "")
		tm.waitFor("batch", "Question 1 of 3", "[DB]")
		tm.keys("batch", "Down") // PostgreSQL, not confirmed
		tm.waitCursor("batch", "2. PostgreSQL")
		tm.keys("batch", "Tab")
		tm.waitFor("batch", "Question 2 of 3", "[Extras]")
		tm.keys("batch", "Space")
		tm.waitCursor("batch", "[x] 1. Auth")
		tm.keys("batch", "Tab")
		tm.waitFor("batch", "Question 3 of 3")
		tm.typ("batch", "Bo")
		tm.waitCursor("batch", "✎ Type your answer: Bo")
		tm.keys("batch", "BTab", "BTab")
		scr := tm.waitFor("batch", "Question 1 of 3")
		assert.Equal(t, "2. PostgreSQL  recommended", cursorLine(scr), "Tab kept the choice")
		tm.keys("batch", "Enter") // confirm 1 -> 2
		scr = tm.waitFor("batch", "Question 2 of 3", "✓ DB")
		assert.Equal(t, "[x] 1. Auth", cursorLine(scr))
		tm.keys("batch", "Enter") // confirm 2 -> 3
		scr = tm.waitFor("batch", "Question 3 of 3", "✓ Extras")
		assert.Contains(t, scr, "Type your answer: Bo")
		tm.keys("batch", "Enter") // confirm 3: submitted
		o := tm.finish("batch", 0)
		assert.Equal(t, `[{"options":[1],"text":""},{"options":[0],"text":""},{"options":[],"text":"Bo"}]`, picksOf(o))
		assert.Contains(t, tm.screen("batch", true, false), "→ PostgreSQL\n→ Auth\n→ Bo\n[exit 0]")
	})

	t.Run("a rejected Enter shows the message and stays", func(t *testing.T) {
		tm := server.with(t)
		tm.session("reject", 80, 24, "batch.json", "", "-reject", shellQ("Pick at least one extra."))
		tm.waitFor("reject", "Question 1 of 3")
		tm.keys("reject", "Enter")
		tm.waitFor("reject", "Question 2 of 3")
		tm.keys("reject", "Enter") // nothing toggled: rejected
		tm.waitFor("reject", "Pick at least one extra.", "Question 2 of 3")
		tm.keys("reject", "Space") // the message goes once something changes
		tm.waitScreen("reject", "the message cleared", func(scr string) bool {
			return !strings.Contains(scr, "Pick at least one extra.") && cursorLine(scr) == "[x] 1. Auth"
		})
		tm.keys("reject", "Enter")
		tm.waitFor("reject", "Question 3 of 3")
		tm.keys("reject", "Escape")
		tm.finish("reject", 5)
	})
}

// TestPickerTerminalScreen: sizes, scripts, colour, hostile text, other
// output, the hand-over to the line reader.
func TestPickerTerminalScreen(t *testing.T) {
	server := newPTmux(t)
	big := filepath.Join(server.dir, "big.json")
	require.NoError(t, os.WriteFile(big, []byte(bigLayout(64, false)), 0o600))

	t.Run("64 options in a short terminal scroll", func(t *testing.T) {
		tm := server.with(t)
		tm.session("scroll", 70, 12, big, "")
		scr := tm.waitCursor("scroll", "1. PostgreSQL 1")
		assertFits(t, scr, 70, 12)
		assert.Regexp(t, `(?m)^  ↓ \d+ more$`, scr)
		assert.NotRegexp(t, `(?m)^  ↑ `, scr)
		for range 12 {
			tm.keys("scroll", "Down")
		}
		scr = tm.waitCursor("scroll", "13. ")
		assert.Regexp(t, `(?m)^  ↑ \d+ more$`, scr)
		assertFits(t, scr, 70, 12)
		tm.keys("scroll", "End")
		scr = tm.waitCursor("scroll", "✎ Type your own answer")
		assert.Contains(t, scr, "64. PostgreSQL 64")
		assert.NotRegexp(t, `(?m)^  ↓ `, scr)
		tm.keys("scroll", "PPage")
		tm.waitScreen("scroll", "PgUp", func(scr string) bool {
			return strings.Contains(cursorLine(scr), ". ") && !strings.HasPrefix(cursorLine(scr), "64.")
		})
		tm.keys("scroll", "Home")
		tm.waitCursor("scroll", "1. PostgreSQL 1")
		tm.keys("scroll", "9", "Enter")
		o := tm.finish("scroll", 0)
		assert.Equal(t, `[{"options":[8],"text":""}]`, picksOf(o))
		all := tm.screen("scroll", true, false)
		assert.NotContains(t, all, "❯")
		assert.NotContains(t, all, "more\n")
	})

	t.Run("resize: the picker is drawn again for each size; nothing left behind", func(t *testing.T) {
		// Sizes the frame still fits in (narrower and shorter included):
		// the scrollback keeps nothing of it.
		tm := server.with(t)
		tm.session("resize", 100, 30, "db.json", "echo before;")
		tm.waitCursor("resize", "1. PostgreSQL")
		tm.keys("resize", "Down")
		tm.waitCursor("resize", "2. SQLite")
		for _, sz := range [][2]int{{60, 15}, {120, 40}, {52, 12}, {80, 24}} {
			tm.run("resize-window", "-t", "resize", "-x", fmt.Sprint(sz[0]), "-y", fmt.Sprint(sz[1]))
			scr := tm.waitScreen("resize", fmt.Sprintf("the %dx%d frame", sz[0], sz[1]), func(scr string) bool {
				return cursorLine(scr) == "2. SQLite" && fits(scr, sz[0], sz[1]) &&
					strings.Count(scr, "[Database]") == 1 && strings.Count(scr, "❯") == 1
			})
			assertFits(t, scr, sz[0], sz[1])
		}
		tm.keys("resize", "Enter")
		o := tm.finish("resize", 0)
		assert.Equal(t, `[{"options":[0],"text":""}]`, picksOf(o))
		all := tm.screen("resize", true, false)
		assert.Regexp(t, `^before\n→ SQLite\n\[exit 0\]\n`, all, "nothing of the picker in the scrollback")
	})

	t.Run("resize: smaller than the picker", func(t *testing.T) {
		// Narrowing reflows the frame's lines, a shorter window pushes the
		// top rows into the scrollback: when the frame no longer fits,
		// the terminal itself moves the top of the old frame out of the
		// picker's reach (PICKER.md). The live picker is drawn right for
		// every size, at the bottom of the output.
		tm := server.with(t)
		tm.session("small", 100, 30, "db.json", "")
		tm.waitCursor("small", "1. PostgreSQL")
		for _, sz := range [][2]int{{30, 9}, {24, 5}, {80, 24}} {
			tm.run("resize-window", "-t", "small", "-x", fmt.Sprint(sz[0]), "-y", fmt.Sprint(sz[1]))
			scr := tm.waitScreen("small", fmt.Sprintf("the %dx%d frame", sz[0], sz[1]), func(scr string) bool {
				return strings.HasPrefix(cursorLine(scr), "1. PostgreSQL") && fits(scr, sz[0], sz[1])
			})
			assertFits(t, scr, sz[0], sz[1])
		}
		scr := tm.waitFor("small", "↑/↓ move · 1-9 jump · Enter choose · Esc decline")
		assert.True(t, strings.HasSuffix(strings.TrimRight(scr, "\n"), "  3. MySQL\n   ✎ Type your own answer\n↑/↓ move · 1-9 jump · Enter choose · Esc decline"), scr)
		tm.keys("small", "Escape")
		tm.finish("small", 5)
		assert.NotContains(t, tm.screen("small", false, false), "❯")
	})

	t.Run("resize: a full-height list narrowed", func(t *testing.T) {
		// Narrowing reflows the frame's lines: when they no longer fit,
		// the terminal itself pushes the top of the old frame into the
		// scrollback, out of the picker's reach (PICKER.md). The live
		// picker is still drawn right for the new size.
		tm := server.with(t)
		tm.session("narrow", 100, 30, big, "")
		tm.waitCursor("narrow", "1. PostgreSQL 1")
		tm.keys("narrow", "Down", "Down")
		tm.waitCursor("narrow", "3. Café crème 3")
		for _, sz := range [][2]int{{40, 10}, {90, 20}, {30, 25}} {
			tm.run("resize-window", "-t", "narrow", "-x", fmt.Sprint(sz[0]), "-y", fmt.Sprint(sz[1]))
			scr := tm.waitScreen("narrow", fmt.Sprintf("the %dx%d frame", sz[0], sz[1]), func(scr string) bool {
				return strings.HasPrefix(cursorLine(scr), "3. ") && fits(scr, sz[0], sz[1]) &&
					strings.Count(scr, "❯") == 1 && strings.Contains(scr, "↓ ")
			})
			assertFits(t, scr, sz[0], sz[1])
		}
		tm.keys("narrow", "Down", "Enter")
		o := tm.finish("narrow", 0)
		assert.Equal(t, `[{"options":[3],"text":""}]`, picksOf(o))
		scr := tm.screen("narrow", false, false)
		assert.NotContains(t, scr, "❯", "no frame left on the screen:\n%s", scr)
		assert.Contains(t, scr, "→ 🚀 Rocket 4\n[exit 0]")
	})

	t.Run("wide characters and combining marks stay aligned", func(t *testing.T) {
		tm := server.with(t)
		tm.session("wide", 36, 20, "wide.json", "")
		scr := tm.waitCursor("wide", "1. 日本語")
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
		tm.keys("wide", "Down", "Down", "Down", "Down", "Down")
		tm.waitCursor("wide", "✎ 自分で入力")
		tm.typ("wide", "中文 e\u0301 👍")
		tm.waitCursor("wide", "✎ 自分で入力: 中文 e\u0301 👍")
		tm.keys("wide", "BSpace")
		tm.waitScreen("wide", "backspace removes 👍", func(scr string) bool {
			return cursorLine(scr) == "✎ 自分で入力: 中文 e\u0301" // the space and the cursor are trimmed
		})
		tm.keys("wide", "BSpace", "BSpace")
		tm.typ("wide", "x")
		tm.waitCursor("wide", "✎ 自分で入力: 中文 x")
		tm.keys("wide", "Enter")
		o := tm.finish("wide", 0)
		assert.Equal(t, `[{"options":[],"text":"中文 x"}]`, picksOf(o))
	})

	t.Run("NO_COLOR: no SGR at all", func(t *testing.T) {
		tm := server.with(t)
		tm.session("nocolor", 80, 24, "multi.json", "NO_COLOR=1")
		tm.waitCursor("nocolor", "[x] 1. Auth")
		tm.keys("nocolor", "Down", "Down", "Down")
		tm.waitCursor("nocolor", "[ ]  ✎ Other")
		assert.NotContains(t, tm.screen("nocolor", false, true), "\x1b[", "NO_COLOR: no colour, no reverse video")
		tm.keys("nocolor", "Escape")
		tm.finish("nocolor", 5)
	})

	t.Run("hostile text cannot drive the terminal", func(t *testing.T) {
		tm := server.with(t)
		tm.session("hostile", 80, 24, "hostile.json", "")
		scr := tm.waitCursor("hostile", "1. red")
		assert.Contains(t, scr, "Pick one]0;pwned now OVERWRITE\nsecond line\n", "a CR does not go back over the line; a line break stays one")
		assertFits(t, scr, 80, 24)
		colored := tm.screen("hostile", false, true)
		assert.NotContains(t, colored, "\x1b[31m", "no red from the label")
		title := strings.TrimSpace(tm.run("display-message", "-p", "-t", "hostile", "#{pane_title}"))
		assert.NotEqual(t, "pwned", title, "no OSC title change")
		assert.Contains(t, scr, "2. backspace CR\n", "BS and CR are not obeyed")
		tm.keys("hostile", "Enter")
		tm.finish("hostile", 0)
	})

	t.Run("chat: model output during the question goes above the picker", func(t *testing.T) {
		tm := server.with(t)
		tm.session("noise", 80, 24, "db.json", "", "-stdout", "-noise", "3")
		tm.waitCursor("noise", "1. PostgreSQL")
		scr := tm.waitFor("noise", "model text 3: the quick brown fox")
		lines := strings.Split(strings.TrimRight(scr, "\n"), "\n")
		iq, i3 := -1, -1
		for i, l := range lines {
			if strings.HasPrefix(l, "[Database]") {
				iq = i
			}
			if strings.HasPrefix(l, "model text 3") {
				i3 = i
			}
		}
		require.GreaterOrEqual(t, iq, 0, scr)
		assert.Equal(t, i3+1, iq, "the picker starts right below the last model line:\n%s", scr)
		assert.Equal(t, 1, strings.Count(scr, "[Database]"), "one picker, not a garbled copy:\n%s", scr)
		assert.Equal(t, 1, strings.Count(scr, "model text 1"))
		assert.Contains(t, scr, "❯ 1. PostgreSQL  recommended\n     Scales well; needs a server.\n  2. SQLite")
		tm.keys("noise", "Enter")
		tm.finish("noise", 0)
		all := tm.screen("noise", true, false)
		assert.Regexp(t, `model text 3: the quick brown fox\n→ PostgreSQL\n\[exit 0\]`, all)
	})

	t.Run("keys typed ahead go to the line reader; cooked mode is back", func(t *testing.T) {
		tm := server.with(t)
		tm.session("ahead", 80, 24, "db.json", "", "-then-line")
		tm.waitCursor("ahead", "1. PostgreSQL")
		// One write: the picker takes "2" and Enter, the line reader gets
		// the rest (typed while the terminal was raw).
		tm.keys("ahead", "2", "Enter", "h", "e", "l", "l", "o", "Enter")
		o := tm.finish("ahead", 0)
		assert.Equal(t, `[{"options":[0],"text":""}]`, picksOf(o))
		b, err := os.ReadFile(tm.out("ahead") + ".line")
		require.NoError(t, err)
		assert.Equal(t, `"hello"`+"\n", string(b))

		tm.session("after", 80, 24, "db.json", "", "-then-line")
		tm.waitCursor("after", "1. PostgreSQL")
		tm.keys("after", "Enter")
		tm.waitFor("after", "→ PostgreSQL", "line>")
		tm.typ("after", "typed later")
		tm.waitFor("after", "line> typed later") // echoed: the terminal is cooked again
		tm.keys("after", "Enter")
		tm.finish("after", 0)
		b, err = os.ReadFile(tm.out("after") + ".line")
		require.NoError(t, err)
		assert.Equal(t, `"typed later"`+"\n", string(b))

		// Esc waits for the rest of an escape sequence, with a read of
		// the input in flight when the picker returns: Ctrl-D at the line
		// prompt after it still ends the input (TerminalInput).
		tm.session("eof", 80, 24, "db.json", "", "-then-line")
		tm.waitCursor("eof", "1. PostgreSQL")
		tm.keys("eof", "Escape")
		tm.waitFor("eof", "✗ declined", "line>")
		tm.keys("eof", "C-d")
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
	gate := filepath.Join(tm.dir, "gate")
	require.NoError(t, syscall.Mkfifo(gate, 0o600))
	tm.session("early", 80, 24, "db.json", fmt.Sprintf("read -r _ < %s;", gate), "-then-line")
	tm.keys("early", "e", "a", "r", "l", "y", "Enter") // the terminal holds them (cooked, echoed)
	tm.waitFor("early", "early")
	f, err := os.OpenFile(gate, os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.WriteString("go\n")
	require.NoError(t, err)
	require.NoError(t, f.Close())
	tm.waitCursor("early", "1. PostgreSQL")
	tm.keys("early", "Down", "Enter")
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

func assertFits(t *testing.T, scr string, cols, rows int) {
	t.Helper()
	for _, l := range strings.Split(strings.TrimRight(scr, "\n"), "\n") {
		assert.LessOrEqual(t, textWidth(l), cols-1, "line wider than the terminal allows: %q", l)
	}
	assert.True(t, fits(scr, cols, rows), "the frame does not fit %dx%d:\n%s", cols, rows, scr)
}

func shellQ(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
