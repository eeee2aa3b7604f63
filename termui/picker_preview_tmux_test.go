//go:build unix

package termui

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/askcore/askcore/internal/testing/tmuxtest"
)

// Previews and notes through a real pseudo-terminal (tmux): pickertest
// with -request has the core write the layout, check each Enter and
// resolve the picks, so each test ends with the very answer a model would
// receive.

// reqLongPreview has a 200-line preview on its first option.
func reqLongPreview() string {
	var ls []string
	for i := 1; i <= 200; i++ {
		ls = append(ls, fmt.Sprintf("line %d", i))
	}
	return fmt.Sprintf(`{"question":"Which log format?","options":[{"label":"Long","preview":%q},{"label":"Short","preview":"one line"}]}`,
		strings.Join(ls, "\n"))
}

// reqHostilePreview has previews meant to drive the terminal, and wide
// characters, combining marks and emoji that must keep the box aligned.
const reqHostilePreview = `{"question":"Which?","options":[
	{"label":"Hostile","preview":"\u001b]0;pwned\u0007title \u001b[2J\u001b[31mred\u001b[0m\rOVERWRITE\n\u001b]8;;http://evil\u0007link\u001b]8;;\u0007 \u202eevil\u202c\u0007 bell\u0008\u0008bs\n\u009b31mC1 \u001bPdcs\u001b\\ end"},
	{"label":"Wide","preview":"┌──────────┐\n│ 中文 e\u0301 👍🏽 │\n└──────────┘\n日本語のテキスト 한국어 Cafe\u0301"}]}`

// request runs pickertest on request (the JSON text) in a new cols x rows
// session.
func (s *ptmux) request(name string, cols, rows int, request string, flags ...string) {
	s.t.Helper()
	file := filepath.Join(s.Dir(), name+".request.json")
	require.NoError(s.t, os.WriteFile(file, []byte(request), 0o600))
	s.Session(name, cols, rows, fmt.Sprintf(`%s -request %s -out %s %s`,
		s.bin, file, s.out(name), strings.Join(flags, " ")))
}

// answerOf is the answer the core resolved from the picks.
func answerOf(t *testing.T, o pickOut) string {
	t.Helper()
	require.Empty(t, o.Error)
	require.NotNil(t, o.Answer, "no answer")
	return string(o.Answer)
}

// boxLines are the lines of the screen that hold the preview box, each
// from its left border on.
func boxLines(scr string) []string {
	var out []string
	for _, l := range strings.Split(scr, "\n") {
		if i := strings.IndexAny(l, "╭│╰"); i >= 0 && (strings.Contains(l, "╮") || strings.Contains(l, "╯") || strings.Count(l, "│") >= 2) {
			out = append(out, l[i:])
		}
	}
	return out
}

// assertBox checks that the screen has one preview box, every line of it
// as wide as its top border and ending with its right border, in the
// same column on every line.
func assertBox(t *testing.T, scr string) []string {
	t.Helper()
	box := boxLines(scr)
	require.GreaterOrEqual(t, len(box), 3, "no preview box:\n%s", scr)
	assert.Equal(t, 1, strings.Count(scr, "╭─"), "one box:\n%s", scr)
	assert.True(t, strings.HasPrefix(box[0], "╭─"), "%q", box[0])
	assert.True(t, strings.HasPrefix(box[len(box)-1], "╰"), "%q", box[len(box)-1])
	right := -1
	for _, l := range strings.Split(scr, "\n") {
		i := strings.LastIndexAny(l, "╮│╯")
		if i < 0 || !strings.ContainsAny(l, "╭│╰") {
			continue
		}
		col := textWidth(l[:i])
		if right < 0 {
			right = col
		}
		assert.Equal(t, right, col, "the right border in one column: %q", l)
	}
	return box
}

func TestPickerTerminalPreviews(t *testing.T) {
	server := newPTmux(t)

	t.Run("wide terminal (120 columns): the preview beside the list; the own answer stays", func(t *testing.T) {
		tm := server.with(t)
		tm.request("wide", 120, 30, reqCodeLayouts)
		scr := tm.WaitCursor("wide", "1. Early return")
		assertFits(t, scr, 120, 30)
		assertBox(t, scr)
		lines := strings.Split(scr, "\n")
		// The box starts on the line of the first entry, right of the list.
		assert.Regexp(t, `^❯ 1\. Early return  recommended +╭─ Preview ─+╮$`, lines[2])
		assert.Regexp(t, `^     Guard clauses first\. +│ func handle\(r \*Request\) error \{ +│$`, lines[3])
		assert.Regexp(t, `^  2\. Nested +│     v, err := parse\(r\) +│$`, lines[4], "tabs expanded, indentation kept")
		assert.Regexp(t, `^  3\. Panic +│     if err != nil \{ +│$`, lines[5])
		assert.Regexp(t, `^     Only in main\. +│         return err +│$`, lines[6])
		assert.Regexp(t, `^   ✎ Type your own answer +│     \} +│$`, lines[7], "the free-text entry is there")
		assert.Contains(t, scr, "↑/↓ move · 1-9 jump · Enter choose · Ctrl-N notes · Esc decline")

		tm.Keys("wide", "Down")
		scr = tm.WaitCursor("wide", "2. Nested")
		assertBox(t, scr)
		assert.Contains(t, scr, "│     if v, err := parse(r); err == nil {")
		assert.NotContains(t, scr, "Guard clauses first.    │", "the other entry's preview is gone")

		tm.Keys("wide", "Down")
		scr = tm.WaitCursor("wide", "3. Panic")
		assert.NotContains(t, scr, "╭─", "no preview: no box")
		tm.Keys("wide", "Down")
		tm.WaitCursor("wide", "✎ Type your own answer")
		tm.Type("wide", "table driven")
		tm.WaitCursor("wide", "✎ Type your own answer: table driven")
		tm.Keys("wide", "Enter")
		o := tm.finish("wide", 0)
		assert.Equal(t, `{"answer":"table driven"}`, answerOf(t, o))
		assert.Contains(t, tm.All("wide", false), "→ table driven\n[exit 0]")
	})

	t.Run("narrow terminal (60 columns): the preview below the list", func(t *testing.T) {
		tm := server.with(t)
		tm.request("narrow", 60, 30, reqCodeLayouts)
		scr := tm.WaitCursor("narrow", "1. Early return")
		assertFits(t, scr, 60, 30)
		box := assertBox(t, scr)
		assert.Equal(t, 59, textWidth(box[0]), "the box takes the width")
		lines := strings.Split(scr, "\n")
		iOwn := lastLine(lines, func(l string) bool { return strings.Contains(l, "✎ Type your own answer") })
		iBox := lastLine(lines, func(l string) bool { return strings.HasPrefix(l, "╭─ Preview") })
		assert.Equal(t, iOwn+1, iBox, "the box right below the list:\n%s", scr)
		assert.Contains(t, scr, "│ func handle(r *Request) error {")
		assert.Contains(t, scr, "│     return use(v)")
		assert.Contains(t, scr, "↑/↓ move · 1-9 jump · Enter choose · Ctrl-N notes")

		tm.Keys("narrow", "2")
		scr = tm.WaitCursor("narrow", "2. Nested")
		assertBox(t, scr)
		assert.Contains(t, scr, "│     if v, err := parse(r); err == nil {")
		tm.Keys("narrow", "Enter")
		o := tm.finish("narrow", 0)
		assert.Equal(t, `{"answer":"nested","selected":{"index":1,"label":"Nested","value":"nested"}}`, answerOf(t, o))
	})

	t.Run("resize with a preview shown: drawn again for each size", func(t *testing.T) {
		// Growing sizes: below the list, then beside it; nothing of an
		// earlier frame is left anywhere.
		tm := server.with(t)
		tm.Session("grow", 60, 24, fmt.Sprintf("echo before; %s -request %s -out %s",
			tm.bin, writeReq(t, tm, "grow", reqCodeLayouts), tm.out("grow")))
		tm.WaitCursor("grow", "1. Early return")
		tm.Keys("grow", "Down")
		tm.WaitCursor("grow", "2. Nested")
		for _, sz := range [][3]int{{60, 24, 0}, {100, 30, 1}, {120, 40, 1}, {130, 40, 1}} {
			tm.Resize("grow", sz[0], sz[1])
			beside := sz[2] == 1
			scr := tm.WaitScreen("grow", fmt.Sprintf("the %dx%d frame", sz[0], sz[1]), func(scr string) bool {
				c := tmuxtest.CursorLine(scr)
				return strings.HasPrefix(c, "2. Nested") && fits(scr, sz[0], sz[1]) &&
					strings.Count(scr, "[Layout]") == 1 && strings.Count(scr, "╭─ Preview") == 1 &&
					strings.Contains(c, "│") == beside && textWidth(boxLines(scr)[0]) == boxWidth(sz[0], beside)
			})
			assertFits(t, scr, sz[0], sz[1])
			assertBox(t, scr)
			assert.Contains(t, scr, "if v, err := parse(r); err == nil {")
		}
		tm.Keys("grow", "Enter")
		o := tm.finish("grow", 0)
		assert.Equal(t, `{"answer":"nested","selected":{"index":1,"label":"Nested","value":"nested"}}`, answerOf(t, o))
		all := tm.All("grow", false)
		assert.Regexp(t, `^before\n→ Nested\n\[exit 0\]\n`, all, "nothing of the picker in the scrollback")

		// Narrower than the frame: the terminal reflows the old frame's
		// lines (PICKER.md, "Resize"); the live picker is drawn right at
		// each size, at the bottom of the output, and the answer is the
		// one chosen.
		tm.request("shrink", 130, 40, reqCodeLayouts)
		tm.WaitCursor("shrink", "1. Early return")
		for _, sz := range [][3]int{{100, 30, 1}, {120, 30, 1}, {70, 30, 0}, {60, 20, 0}} {
			tm.Resize("shrink", sz[0], sz[1])
			beside := sz[2] == 1
			scr := tm.WaitScreen("shrink", fmt.Sprintf("the %dx%d frame", sz[0], sz[1]), func(scr string) bool {
				box := boxLines(scr)
				return strings.HasPrefix(tmuxtest.CursorLine(scr), "1. Early return") && fits(scr, sz[0], sz[1]) &&
					len(box) > 0 && textWidth(box[len(box)-1]) == boxWidth(sz[0], beside) &&
					strings.HasSuffix(strings.TrimRight(scr, "\n"), "Esc decline")
			})
			assertFits(t, scr, sz[0], sz[1])
		}
		tm.Keys("shrink", "Enter")
		o = tm.finish("shrink", 0)
		assert.Equal(t, `{"answer":"early","selected":{"index":0,"label":"Early return","value":"early"}}`, answerOf(t, o))
		scr := tm.Pane("shrink", false)
		assert.NotContains(t, scr, "❯", "what the terminal kept of old frames is in the scrollback:\n%s", scr)
		assert.Contains(t, scr, "→ Early return\n[exit 0]")
	})

	t.Run("a 200-line preview scrolls (Shift-↑/↓, Shift-PgUp/PgDn)", func(t *testing.T) {
		for _, sz := range [][2]int{{120, 30}, {60, 24}} {
			tm := server.with(t)
			name := fmt.Sprintf("long%d", sz[0])
			tm.request(name, sz[0], sz[1], reqLongPreview())
			scr := tm.WaitCursor(name, "1. Long")
			assertFits(t, scr, sz[0], sz[1])
			box := assertBox(t, scr)
			shown := len(box) - 2
			require.Greater(t, shown, 5)
			assert.Contains(t, scr, "│ line 1 ")
			assert.Contains(t, scr, fmt.Sprintf("│ line %d ", shown))
			assert.NotContains(t, scr, fmt.Sprintf("│ line %d ", shown+1))
			assert.Regexp(t, fmt.Sprintf(`╰─ ↓ %d more ─+ Shift-↑/↓ scroll ─╯`, 200-shown), scr)

			tm.Keys(name, "S-Down", "S-Down", "S-Down")
			scr = tm.WaitFor(name, "│ line 4 ", "↑ 3 more")
			assert.NotContains(t, scr, "│ line 3 ")
			assert.Equal(t, "1. Long", firstWordsOf(tmuxtest.CursorLine(scr)), "Shift-↓ scrolls, the cursor stays")
			tm.Keys(name, "S-PageDown")
			tm.WaitFor(name, fmt.Sprintf("│ line %d ", 4+shown-1), fmt.Sprintf("↑ %d more", 3+shown-1))
			for range 200 / (shown - 1) {
				tm.Keys(name, "S-PageDown")
			}
			scr = tm.WaitFor(name, "│ line 200 ", fmt.Sprintf("↑ %d more", 200-shown))
			assert.NotRegexp(t, `↓ \d+ more`, scr, "nothing hidden below")
			assertBox(t, scr)
			tm.Keys(name, "S-Up")
			tm.WaitFor(name, "│ line 199 ", "↓ 1 more")
			tm.Keys(name, "S-PageUp")
			tm.WaitFor(name, fmt.Sprintf("│ line %d ", 200-shown-(shown-1)))

			// Another entry starts at its top; ↓ still moves.
			tm.Keys(name, "Down")
			scr = tm.WaitCursor(name, "2. Short")
			assert.Contains(t, scr, "│ one line ")
			assert.NotContains(t, scr, "scroll")
			tm.Keys(name, "Up")
			tm.WaitFor(name, "│ line 1 ")
			tm.Keys(name, "Enter")
			o := tm.finish(name, 0)
			assert.Equal(t, `{"answer":"Long","selected":{"index":0,"label":"Long","value":"Long"}}`, answerOf(t, o))
		}
	})

	t.Run("hostile previews cannot drive the terminal; wide text stays aligned", func(t *testing.T) {
		for _, cols := range []int{120, 60} {
			tm := server.with(t)
			name := fmt.Sprintf("hostile%d", cols)
			tm.request(name, cols, 24, reqHostilePreview)
			scr := tm.WaitCursor(name, "1. Hostile")
			assertFits(t, scr, cols, 24)
			assertBox(t, scr)
			assert.Contains(t, scr, "│ title red")
			assert.Contains(t, scr, "OVERWRITE", "a CR does not go back over the line")
			assert.Contains(t, scr, "link evil bellbs")
			assert.Contains(t, scr, "Which?", "the question is still there (no clear screen)")
			colored := tm.Pane(name, true)
			assert.NotContains(t, colored, "\x1b[31m", "no red from the preview")
			title := strings.TrimSpace(tm.Run("display-message", "-p", "-t", name, "#{pane_title}"))
			assert.NotEqual(t, "pwned", title, "no OSC title change")

			tm.Keys(name, "Down")
			scr = tm.WaitCursor(name, "2. Wide")
			box := assertBox(t, scr)
			assert.Contains(t, scr, "│ 中文 e\u0301 👍🏽 │")
			assert.Contains(t, scr, "日本語のテキスト 한국어 Cafe\u0301")
			for _, l := range box[1 : len(box)-1] {
				assert.True(t, strings.HasSuffix(l, "│"), "%q", l)
			}
			tm.Keys(name, "Enter")
			o := tm.finish(name, 0)
			assert.Equal(t, `{"answer":"Wide","selected":{"index":1,"label":"Wide","value":"Wide"}}`, answerOf(t, o))
		}
	})
}

func TestPickerTerminalNotes(t *testing.T) {
	server := newPTmux(t)

	t.Run("single-select: Ctrl-N, Enter keeps, Enter answers with notes", func(t *testing.T) {
		tm := server.with(t)
		tm.request("single", 80, 24, reqCodeLayouts)
		tm.WaitCursor("single", "1. Early return")
		tm.Keys("single", "Down", "C-n")
		scr := tm.WaitFor("single", "\n  Notes:\n", "Enter keep notes · Esc cancel")
		lines := strings.Split(scr, "\n")
		assert.Equal(t, "[Layout] Which layout should the handler use?", lines[0])
		assert.Equal(t, "  Notes:", lines[1], "the notes line under the question")
		assert.Regexp(t, `Notes: \x1b\[[0-9;]*7m`, tm.Pane("single", true), "a drawn cursor (reverse video)")
		assert.NotContains(t, scr, "Ctrl-N notes", "the notes' own key help")
		tm.Type("single", "keep it, j k 1 2")
		tm.WaitFor("single", "  Notes: keep it, j k 1 2\n")
		assert.Equal(t, "2. Nested", firstWordsOf(tmuxtest.CursorLine(tm.Pane("single", false))), "j, k and digits were text")
		tm.Keys("single", "BSpace", "BSpace", "Enter")
		scr = tm.WaitFor("single", "  Notes: keep it, j k 1\n", "Ctrl-N notes · Esc decline")
		assert.NotContains(t, scr, "Enter keep notes", "kept: the question's key help again")
		tm.Keys("single", "Enter")
		o := tm.finish("single", 0)
		assert.Equal(t, `{"answer":"nested","selected":{"index":1,"label":"Nested","value":"nested"},"notes":"keep it, j k 1"}`, answerOf(t, o))
		assert.Contains(t, tm.All("single", false), "→ Nested (notes: keep it, j k 1)\n[exit 0]")
	})

	t.Run("Esc cancels the edit only; the next Esc declines", func(t *testing.T) {
		tm := server.with(t)
		tm.request("esc", 80, 24, reqCodeLayouts)
		tm.WaitCursor("esc", "1. Early return")
		tm.Keys("esc", "C-n")
		tm.Type("esc", "first")
		tm.Keys("esc", "Enter")
		tm.WaitFor("esc", "  Notes: first", "Ctrl-N notes")
		tm.Keys("esc", "C-n", "C-u")
		tm.Type("esc", "second")
		tm.WaitFor("esc", "  Notes: second\n", "Enter keep notes")
		tm.Keys("esc", "Escape")
		scr := tm.WaitFor("esc", "  Notes: first", "Ctrl-N notes · Esc decline")
		assert.NotContains(t, scr, "second")
		assert.Equal(t, "1. Early return  recommended", firstWordsOf(tmuxtest.CursorLine(scr)), "still on the question")
		tm.Keys("esc", "Escape")
		o := tm.finish("esc", 5)
		assert.Nil(t, o.Answer)
		assert.Contains(t, tm.All("esc", false), "✗ declined\n[exit 5]")
	})

	t.Run("notes beside the own answer, on a wide terminal with previews", func(t *testing.T) {
		tm := server.with(t)
		tm.request("own", 120, 30, reqCodeLayouts)
		tm.WaitCursor("own", "1. Early return")
		tm.Keys("own", "End")
		tm.Type("own", "table driven")
		tm.Keys("own", "C-n")
		tm.Type("own", "like the parser")
		scr := tm.WaitFor("own", "  Notes: like the parser\n", "Enter keep notes")
		assert.Contains(t, scr, "✎ Type your own answer: table driven")
		assertFits(t, scr, 120, 30)
		tm.Keys("own", "Enter", "Enter")
		o := tm.finish("own", 0)
		assert.Equal(t, `{"answer":"table driven","notes":"like the parser"}`, answerOf(t, o))
	})

	t.Run("multi-select with previews: toggles and notes", func(t *testing.T) {
		tm := server.with(t)
		tm.request("multi", 100, 24, reqScreens)
		scr := tm.WaitCursor("multi", "[x] 1. Dashboard")
		assertBox(t, scr)
		assert.Contains(t, scr, "|  KPIs  |  Feed  |")
		tm.Keys("multi", "Down", "Space")
		scr = tm.WaitCursor("multi", "[x] 2. Settings")
		assert.Contains(t, scr, "│ [ ] Beta features")
		tm.Keys("multi", "C-n")
		tm.Type("multi", "dark mode first")
		tm.Keys("multi", "Enter")
		tm.WaitFor("multi", "  Notes: dark mode first")
		tm.Keys("multi", "Enter")
		o := tm.finish("multi", 0)
		assert.Equal(t, `{"answers":["Dashboard","Settings"],"selected":[{"index":0,"label":"Dashboard","value":"Dashboard"},{"index":1,"label":"Settings","value":"Settings"}],"notes":"dark mode first"}`, answerOf(t, o))
		assert.Contains(t, tm.All("multi", false), "→ Dashboard, Settings (notes: dark mode first)\n[exit 0]")
	})

	t.Run("batch: notes per question", func(t *testing.T) {
		tm := server.with(t)
		tm.request("batch", 100, 30, `{"questions":[`+reqCodeLayouts+`,`+reqScreens+`,{"header":"Name","question":"What should the release be called?"}]}`)
		tm.WaitFor("batch", "Question 1 of 3", "[Layout]")
		tm.Keys("batch", "C-n")
		tm.Type("batch", "one")
		tm.Keys("batch", "Enter")
		tm.WaitFor("batch", "  Notes: one")
		tm.Keys("batch", "Enter")
		scr := tm.WaitFor("batch", "Question 2 of 3", "✓ Layout")
		assert.NotContains(t, scr, "Notes:", "question 2 has its own notes, none yet")
		tm.Keys("batch", "Enter")
		tm.WaitFor("batch", "Question 3 of 3")
		tm.Type("batch", "Aurora")
		tm.Keys("batch", "C-n")
		tm.Type("batch", "tentative")
		scr = tm.WaitFor("batch", "  Notes: tentative\n", "Enter keep notes")
		assert.Contains(t, scr, "Aurora")
		tm.Keys("batch", "Enter")
		tm.WaitFor("batch", "  Notes: tentative", "Ctrl-N notes")
		tm.Keys("batch", "BTab", "BTab")
		scr = tm.WaitFor("batch", "Question 1 of 3", "  Notes: one")
		assert.NotContains(t, scr, "tentative")
		tm.Keys("batch", "Tab", "Tab", "Enter")
		o := tm.finish("batch", 0)
		assert.Equal(t, `{"answers":[`+
			`{"question":"Which layout should the handler use?","answer":"early","selected":{"index":0,"label":"Early return","value":"early"},"notes":"one"},`+
			`{"question":"Which screens should the app have?","answers":["Dashboard"],"selected":[{"index":0,"label":"Dashboard","value":"Dashboard"}]},`+
			`{"question":"What should the release be called?","answer":"Aurora","notes":"tentative"}]}`, answerOf(t, o))
		assert.Contains(t, tm.All("batch", false), "→ Layout: Early return (notes: one)\n→ Screens: Dashboard\n→ Name: Aurora (notes: tentative)\n[exit 0]")
	})

	t.Run("notes too long: the core's message, the person stays", func(t *testing.T) {
		tm := server.with(t)
		tm.request("long", 80, 24, reqCodeLayouts)
		tm.WaitCursor("long", "1. Early return")
		tm.Keys("long", "C-n")
		tm.Paste("long", strings.Repeat("n", 2001))
		tm.WaitFor("long", "  Notes: …nnn")
		tm.Keys("long", "Enter", "Enter")
		scr := tm.WaitScreen("long", "the core's message", func(scr string) bool {
			return regexp.MustCompile(`(?i)notes`).MatchString(strings.Join(strings.Split(scr, "\n")[2:], "\n")) &&
				strings.Contains(scr, "2000")
		})
		assert.Contains(t, scr, "❯ 1. Early return", "still on the question")
		tm.Keys("long", "C-n", "C-u", "Enter", "Enter")
		o := tm.finish("long", 0)
		assert.Equal(t, `{"answer":"early","selected":{"index":0,"label":"Early return","value":"early"}}`, answerOf(t, o))
	})
}

// boxWidth is the width of the preview box on a terminal of cols columns.
func boxWidth(cols int, beside bool) int {
	if !beside {
		return cols - 1
	}
	// The list column of reqCodeLayouts: the own-answer label, room to
	// type, the label column's indent.
	width := cols - 1
	list := max(min(5+len("Type your own answer")+2+textRoom, width*2/5), min(minListCols, width/2))
	return width - list - len(sideGap)
}

// firstWordsOf is a cursor line without what is drawn beside the list.
func firstWordsOf(line string) string {
	if i := strings.Index(line, "   "); i >= 0 {
		line = line[:i]
	}
	return strings.TrimSpace(strings.Split(line, "│")[0])
}

// writeReq writes a request for a session started by hand.
func writeReq(t *testing.T, tm *ptmux, name, request string) string {
	t.Helper()
	file := filepath.Join(tm.Dir(), name+".request.json")
	require.NoError(t, os.WriteFile(file, []byte(request), 0o600))
	return file
}
