package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/rivo/uniseg"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/askcore/askcore"
	"github.com/askcore/askcore/core"
	"github.com/askcore/askcore/internal/testing/tmuxtest"
)

// The keyboard picker (contract section 9) through the real binary on a
// real pseudo-terminal (tmux): every key, batches, Esc and Ctrl-C, resizes,
// long lists, wide characters, NO_COLOR, hostile text, in the chat and in
// "ask", on both engines; and the line mode wherever the core says so.
// Every expected text is asked from the core (layout, messages, summaries,
// answers), never restated.

// entryNumber is the number of an option's entry line ("12. Label").
func entryNumber(line string) (int, bool) {
	num, _, ok := strings.Cut(line, ". ")
	n, err := strconv.Atoi(num)
	return n, ok && err == nil
}

// fits reports whether every line of the screen fits in cols-1 cells (the
// terminal wrapped none) and the screen holds at most rows-1 lines of text.
func fits(scr string, cols, rows int) bool {
	used := 0
	for _, l := range strings.Split(strings.TrimRight(scr, "\n"), "\n") {
		if uniseg.StringWidth(l) > cols-1 {
			return false
		}
		if strings.TrimSpace(l) != "" {
			used++
		}
	}
	return used <= rows-1
}

// pickSummary is what stays of a picker after an answer: "→ " and the
// core's summary, one line per question.
func pickSummary(t *testing.T, arguments string, picks ...askcore.Pick) (answer, summary string) {
	t.Helper()
	call := nativeCall(t, arguments)
	res, err := call.Resolve(context.Background(), askcore.Picks(picks...))
	require.NoError(t, err)
	text, err := call.Summary(context.Background(), res)
	require.NoError(t, err)
	return string(res.JSON()), "→ " + strings.ReplaceAll(text, "\n", "\n→ ")
}

// pickerLayout is the core's picker layout for arguments.
func pickerLayout(t *testing.T, arguments string) struct{ Declined, Interrupted string } {
	t.Helper()
	raw, err := nativeCall(t, arguments).Picker(context.Background())
	require.NoError(t, err)
	var l struct{ Declined, Interrupted string }
	require.NoError(t, json.Unmarshal(raw, &l))
	require.NotEmpty(t, l.Declined)
	require.NotEmpty(t, l.Interrupted)
	return l
}

// manyOptions is a question with the most options a question may have,
// "Option 1" to "Option 64", every third with a description.
func manyOptions(t *testing.T) string {
	var opts []map[string]any
	for i := range core.MaxOptions {
		o := map[string]any{"label": fmt.Sprintf("Option %d", i+1), "value": fmt.Sprint(i + 1)}
		if i%3 == 0 {
			o["description"] = strings.Repeat("words ", 1+i%5)
		}
		opts = append(opts, o)
	}
	opts[0]["recommended"] = true
	return mustJSON(t, map[string]any{"header": "Many", "question": "Which one?", "options": opts, "allowCustom": true})
}

// pickRejection is the core's INVALID_ANSWER message for pick on question
// i.
func pickRejection(t *testing.T, arguments string, i int, pick askcore.Pick) string {
	t.Helper()
	_, err := nativeCall(t, arguments).CheckPick(context.Background(), i, pick)
	return invalidAnswer(t, err)
}

// writeFile writes content to a new file in dir and returns its path,
// quoted for the shell.
func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	require.NoError(t, os.WriteFile(path, []byte(content), 0o600))
	return tmuxtest.Quote(path)
}

func readOut(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(strings.Trim(path, "'"))
	require.NoError(t, err)
	return string(b)
}

// answerBatchWithKeys answers batchArgs (colour, multi-select checks
// without free text, an optionless name) with every batch key: Tab and
// Shift-Tab move without confirming and keep what was chosen, an empty
// multi-select pick is rejected with the core's message, Enter confirms
// and moves on to the next question not confirmed yet.
func answerBatchWithKeys(t *testing.T, tm *tmuxtest.Server, name string) (answer, summary string) {
	tm.WaitFor(name, "Question 1 of 3", "[Colour] Which colour?")
	tm.WaitCursor(name, "1. Blue")
	tm.Keys(name, "Down") // Red, not confirmed
	tm.WaitCursor(name, "2. Red")
	tm.Keys(name, "Tab")
	tm.WaitFor(name, "Question 2 of 3", "Which checks?")
	tm.Keys(name, "Enter") // nothing toggled
	msg := pickRejection(t, batchArgs, 1, askcore.Pick{Options: []int{}})
	assert.Contains(t, msg, "Space toggles the option under the cursor.")
	tm.WaitFor(name, msg)
	tm.Keys(name, "Space")
	tm.WaitCursor(name, "[x] 1. Lint")
	tm.Keys(name, "j", "j", "Space")
	tm.WaitCursor(name, "[x] 3. Fuzz")
	tm.Keys(name, "Tab")
	tm.WaitFor(name, "Question 3 of 3", "What should the release be called?")
	entry := func(what, want string) { // waits for the text entry to hold want
		tm.WaitScreen(name, what, func(scr string) bool {
			c := tmuxtest.CursorLine(scr)
			return strings.HasPrefix(c, "✎ ") && strings.HasSuffix(c, ":"+want)
		})
	}
	tm.Type(name, "oops one")
	entry("typed", " oops one")
	tm.Keys(name, "C-w")
	entry("Ctrl-W: a word removed", " oops")
	tm.Keys(name, "C-u")
	entry("Ctrl-U: all removed", "")
	tm.Paste(name, "jk\nAuror") // the line break does not confirm
	entry("pasted", " jk Auror")
	tm.Type(name, "x")
	tm.Keys(name, "BSpace")
	tm.Type(name, "a")
	entry("the name typed", " jk Aurora")
	tm.Keys(name, "BTab", "BTab")
	scr := tm.WaitFor(name, "Question 1 of 3")
	assert.True(t, strings.HasPrefix(tmuxtest.CursorLine(scr), "2. Red"), "Tab kept the choice:\n%s", scr)
	tm.Keys(name, "Enter") // confirms 1, on to 2
	scr = tm.WaitFor(name, "Question 2 of 3", "✓ Colour")
	assert.Contains(t, scr, "  [ ] 2. Tests\n", "the toggles were kept")
	tm.Keys(name, "Enter") // confirms 2, on to 3
	scr = tm.WaitFor(name, "Question 3 of 3")
	assert.True(t, strings.HasSuffix(tmuxtest.CursorLine(scr), ": jk Aurora"), scr)
	tm.Keys(name, "Enter") // confirms 3: the batch is submitted
	return pickSummary(t, batchArgs, askcore.Pick{Options: []int{0}}, askcore.Pick{Options: []int{0, 2}}, askcore.Pick{Text: "jk Aurora"})
}

// TestPickerChat: the chat answers with the picker on a terminal, on both
// engines: arrows, j/k and digits move, Enter chooses and one summary line
// stays in the scrollback (nothing else of the picker); Esc declines
// (ASK_DECLINED), Ctrl-C dismisses the question only (ASK_ABORTED) and the
// conversation goes on; Ctrl-D quits. The model's batch is answered with
// the batch keys and the model receives the core's answer, byte for byte.
func TestPickerChat(t *testing.T) {
	server := newTmux(t)
	script := writeScript(t,
		reply{Content: "Let me ask." + escapes, ToolCalls: ask("q1", colors(true))},
		reply{Content: "A1={{answer}}", ToolCalls: ask("q2", colors(false))},
		reply{Content: "A2={{answer}}", ToolCalls: ask("q3", colors(false))},
		reply{Content: "A3={{answer}}"},
	)
	texts := pickerLayout(t, mustJSON(t, colors(false)))
	for _, eng := range []string{"native", "wasm"} {
		t.Run("keys/"+eng, func(t *testing.T) {
			tm := server.With(t)
			name := "chat-" + eng
			tm.Session(name, 120, 40, fmt.Sprintf("%s --engine %s --script %s", bin, eng, tmuxtest.Quote(script)))
			tm.WaitFor(name, "askcore-stdio", "Esc declines.", "\n>")
			tm.Line(name, "hello")
			scr := tm.WaitCursor(name, "1. Blue  recommended")
			assert.Contains(t, scr, "[Colour] Which colour?")
			assert.Contains(t, scr, "     Calm.\n")
			assert.NotContains(t, scr, "pwned")
			assert.Contains(t, tm.Pane(name, true), "\x1b[", "colour on a terminal")
			for _, k := range []struct{ key, cursor string }{
				{"Down", "2. Red"}, {"j", "3. Green"}, {"k", "2. Red"}, {"Up", "1. Blue"},
				{"3", "3. Green"}, {"1", "1. Blue"}, {"End", "✎ "}, {"Home", "1. Blue"}, {"2", "2. Red"},
			} {
				tm.Keys(name, k.key)
				tm.WaitCursor(name, k.cursor)
			}
			tm.Keys(name, "Enter")
			tm.WaitFor(name, "A1=red")
			_, summary := pickSummary(t, mustJSON(t, colors(true)), askcore.Pick{Options: []int{0}})
			assert.Contains(t, tm.All(name, false), "> hello\nLet me ask.\nOVERWRITEesrever\n"+summary+"\nA1=red\n",
				"one summary line stays, nothing else of the picker")

			tm.WaitCursor(name, "1. Blue")
			tm.Keys(name, "Escape")
			scr = tm.WaitFor(name, "A2=ASK_DECLINED")
			assert.Contains(t, scr, "\n"+texts.Declined+"\n")
			assert.Contains(t, scr, "ask_user_question: ASK_DECLINED", "the error line (stderr) on the same terminal")

			tm.WaitCursor(name, "1. Blue")
			tm.Keys(name, "C-c")
			scr = tm.WaitFor(name, "A3=ASK_ABORTED")
			assert.Contains(t, scr, "\n"+texts.Interrupted+"\n")
			assert.NotContains(t, scr, "[exit", "Ctrl-C in a question does not end the program")
			tm.WaitFor(name, "A3=ASK_ABORTED\n>")
			tm.Keys(name, "C-d")
			tm.WaitFor(name, "[exit 0]")
			assert.NotContains(t, tm.All(name, false), "❯", "no picker left in the scrollback")
		})
		t.Run("batch/"+eng, func(t *testing.T) {
			tm := server.With(t)
			model := newFakeModel(t, batchArgs)
			name := "batch-" + eng
			tm.Session(name, 120, 40, chatCommand(model, "--engine "+eng))
			tm.WaitFor(name, "Esc declines.", "\n>")
			tm.Line(name, "plan the release")
			want, summary := answerBatchWithKeys(t, tm, name)
			tm.WaitFor(name, "Thanks.")
			assert.Equal(t, want, model.received())
			assert.Contains(t, tm.All(name, false), "Let me ask.\n"+summary+"\nThanks.\n")
			tm.Keys(name, "C-d")
			tm.WaitFor(name, "[exit 0]")
		})
	}

	t.Run("stdout not a terminal: the picker on stderr", func(t *testing.T) {
		tm := server.With(t)
		out := filepath.Join(t.TempDir(), "out.txt")
		tm.Session("redirected", 120, 40, fmt.Sprintf("%s --engine native --script %s > %s", bin, tmuxtest.Quote(script), tmuxtest.Quote(out)))
		tm.Line("redirected", "hello")
		tm.WaitCursor("redirected", "1. Blue")
		tm.Keys("redirected", "Enter")
		tm.WaitFor("redirected", "→ Blue\n")
		tm.WaitCursor("redirected", "1. Blue") // the next question: the first one was erased
		tm.Keys("redirected", "Escape")
		tm.WaitFor("redirected", texts.Declined)
		tm.WaitCursor("redirected", "1. Blue")
		tm.Keys("redirected", "Enter")
		tm.WaitScreen("redirected", "the third answer", func(scr string) bool { return strings.Count(scr, "→ Blue\n") == 2 })
		tm.Keys("redirected", "C-d") // the terminal is cooked again: end of input
		scr := tm.WaitFor("redirected", "[exit 0]")
		assert.Contains(t, scr, "→ Blue\n"+texts.Declined+"\n")
		b, err := os.ReadFile(out)
		require.NoError(t, err)
		assert.Contains(t, string(b), "A1=blue\nA2=ASK_DECLINED\nA3=blue\n")
		assert.NotContains(t, string(b), "❯")
	})
}

// TestPickerAsk: "askcore-stdio ask" with the picker on both engines: the
// request as --request (keys on stdin) or on stdin (keys from /dev/tty);
// Esc exits 5 with ASK_DECLINED, Ctrl-C exits 3 with ASK_ABORTED (only ask
// sees it: the shell around it goes on); a batch with every batch key.
func TestPickerAsk(t *testing.T) {
	server := newTmux(t)
	dir := t.TempDir()
	req := writeFile(t, dir, "req.json", askRequest)
	texts := pickerLayout(t, askRequest)
	for _, eng := range []string{"native", "wasm"} {
		t.Run("--request/"+eng, func(t *testing.T) {
			tm := server.With(t)
			name, out := "flag-"+eng, tmuxtest.Quote(filepath.Join(dir, "flag-"+eng+".json"))
			tm.Session(name, 120, 40, fmt.Sprintf(`echo before; %s ask --engine %s --request "$(cat %s)" > %s`, bin, eng, req, out))
			scr := tm.WaitCursor(name, "1. Production  recommended")
			assert.Contains(t, scr, "[Deploy] Deploy to which environment?")
			tm.Keys(name, "Enter")
			tm.WaitFor(name, "[exit 0]")
			answer, summary := pickSummary(t, askRequest, askcore.Pick{Options: []int{1}})
			assert.Equal(t, answer+"\n", readOut(t, out))
			assert.True(t, strings.HasPrefix(tm.All(name, false), "before\n"+summary+"\n[exit 0]\n"), "only the summary stays:\n%s", tm.All(name, false))
		})
		t.Run("request on stdin/"+eng, func(t *testing.T) {
			tm := server.With(t)
			name, out := "pipe-"+eng, tmuxtest.Quote(filepath.Join(dir, "pipe-"+eng+".json"))
			tm.Session(name, 120, 40, fmt.Sprintf(`cat %s | %s ask --engine %s > %s`, req, bin, eng, out))
			tm.WaitCursor(name, "1. Production")
			tm.Keys(name, "Down")
			tm.WaitCursor(name, "2. Staging")
			tm.Keys(name, "Enter")
			tm.WaitFor(name, "[exit 0]")
			answer, _ := pickSummary(t, askRequest, askcore.Pick{Options: []int{0}})
			assert.Equal(t, answer+"\n", readOut(t, out))
		})
		t.Run("batch/"+eng, func(t *testing.T) {
			tm := server.With(t)
			breq := writeFile(t, dir, "batch-"+eng+".json", batchArgs)
			name, out := "abatch-"+eng, tmuxtest.Quote(filepath.Join(dir, "abatch-"+eng+".out"))
			tm.Session(name, 120, 40, fmt.Sprintf(`%s ask --engine %s --request "$(cat %s)" > %s`, bin, eng, breq, out))
			answer, summary := answerBatchWithKeys(t, tm, name)
			tm.WaitFor(name, "[exit 0]")
			assert.Equal(t, answer+"\n", readOut(t, out))
			assert.True(t, strings.HasPrefix(tm.All(name, false), summary+"\n[exit 0]\n"), tm.All(name, false))
		})
	}

	t.Run("no controlling terminal: the picker on stderr", func(t *testing.T) {
		// setsid: /dev/tty cannot be opened, stdin and stderr are still
		// the terminal.
		tm := server.With(t)
		out := tmuxtest.Quote(filepath.Join(dir, "setsid.json"))
		tm.Session("setsid", 120, 40, fmt.Sprintf(`setsid -w %s ask --engine native --request "$(cat %s)" > %s`, bin, req, out))
		tm.WaitCursor("setsid", "1. Production")
		tm.Keys("setsid", "j")
		tm.WaitCursor("setsid", "2. Staging")
		tm.Keys("setsid", "Enter")
		tm.WaitFor("setsid", "[exit 0]")
		answer, summary := pickSummary(t, askRequest, askcore.Pick{Options: []int{0}})
		assert.Equal(t, answer+"\n", readOut(t, out))
		assert.True(t, strings.HasPrefix(tm.All("setsid", false), summary+"\n[exit 0]\n"), tm.All("setsid", false))
	})

	t.Run("Esc: ASK_DECLINED, exit 5", func(t *testing.T) {
		tm := server.With(t)
		out := tmuxtest.Quote(filepath.Join(dir, "esc.json"))
		tm.Session("esc", 120, 40, fmt.Sprintf(`%s ask --engine native --request "$(cat %s)" > %s`, bin, req, out))
		tm.WaitCursor("esc", "1. Production")
		tm.Keys("esc", "Down")
		tm.WaitCursor("esc", "2. Staging")
		tm.Keys("esc", "Escape")
		tm.WaitFor("esc", "[exit 5]")
		assert.Equal(t, failure(askcore.Failure{Situation: askcore.SituationDeclined}), readOut(t, out))
		assert.True(t, strings.HasPrefix(tm.All("esc", false), texts.Declined+"\n[exit 5]\n"), tm.All("esc", false))
	})

	t.Run("Ctrl-C: ASK_ABORTED, exit 3, the shell goes on", func(t *testing.T) {
		tm := server.With(t)
		out := tmuxtest.Quote(filepath.Join(dir, "ctrlc.json"))
		tm.Session("ctrlc", 120, 40, fmt.Sprintf(`%s ask --engine native --request "$(cat %s)" > %s; echo "status $?"; echo "the script went on"`, bin, req, out))
		tm.WaitCursor("ctrlc", "1. Production")
		tm.Keys("ctrlc", "C-c")
		scr := tm.WaitFor("ctrlc", "the script went on", "[exit 0]")
		assert.Contains(t, scr, texts.Interrupted+"\nstatus 3\n")
		assert.Equal(t, failure(askcore.Failure{Situation: askcore.SituationInterrupted}), readOut(t, out))
	})

	t.Run("SIGTERM: the picker is erased, the terminal restored", func(t *testing.T) {
		tm := server.With(t)
		out := tmuxtest.Quote(filepath.Join(dir, "term.json"))
		pid := filepath.Join(dir, "term.pid")
		script := writeFile(t, dir, "term.sh", fmt.Sprintf("echo $$ > %s\nexec %s ask --engine native --request \"$(cat %s)\"\n",
			tmuxtest.Quote(pid), bin, req))
		tm.Session("term", 120, 40, fmt.Sprintf(`echo before; sh %s > %s; echo "status $?"; stty -a | grep -o ' -*icanon'`, script, out))
		tm.WaitCursor("term", "1. Production")
		b, err := os.ReadFile(pid)
		require.NoError(t, err)
		var p int
		_, err = fmt.Sscan(string(b), &p)
		require.NoError(t, err)
		require.NoError(t, syscall.Kill(p, syscall.SIGTERM))
		scr := tm.WaitFor("term", "status 3", "[exit 0]")
		assert.Contains(t, scr, "status 3\n icanon\n", "the terminal is cooked again")
		assert.True(t, strings.HasPrefix(tm.All("term", false), "before\nstatus 3\n"), "the picker is erased:\n%s", tm.All("term", false))
		assert.Equal(t, failure(askcore.Failure{Situation: askcore.SituationAborted, Detail: "terminated (SIGTERM)"}), readOut(t, out))
	})
}

// TestPickerScreen: the real world through the binary: resizes, a list
// longer than the terminal, wide characters and combining marks, NO_COLOR,
// hostile text.
func TestPickerScreen(t *testing.T) {
	server := newTmux(t)
	dir := t.TempDir()

	t.Run("resize: drawn again for each size, nothing left behind", func(t *testing.T) {
		// Sizes the frame fits (as termui's resize test: each narrower
		// size comes after a frame whose lines fit it).
		tm := server.With(t)
		req := writeFile(t, dir, "resize.json", askRequest)
		out := tmuxtest.Quote(filepath.Join(dir, "resize.out"))
		tm.Session("resize", 100, 30, fmt.Sprintf(`echo before; %s ask --engine native --request "$(cat %s)" > %s`, bin, req, out))
		tm.WaitCursor("resize", "1. Production")
		tm.Keys("resize", "Down")
		tm.WaitCursor("resize", "2. Staging")
		for _, sz := range [][2]int{{120, 40}, {60, 15}, {52, 12}, {80, 24}} {
			tm.Resize("resize", sz[0], sz[1])
			tm.WaitScreen("resize", fmt.Sprintf("the %dx%d frame", sz[0], sz[1]), func(scr string) bool {
				return strings.HasPrefix(tmuxtest.CursorLine(scr), "2. Staging") && fits(scr, sz[0], sz[1]) &&
					strings.Count(scr, "[Deploy]") == 1 && strings.Count(scr, "❯") == 1
			})
		}
		tm.Keys("resize", "Enter")
		tm.WaitFor("resize", "[exit 0]")
		answer, summary := pickSummary(t, askRequest, askcore.Pick{Options: []int{0}})
		assert.Equal(t, answer+"\n", readOut(t, out))
		assert.True(t, strings.HasPrefix(tm.All("resize", false), "before\n"+summary+"\n[exit 0]\n"), tm.All("resize", false))
	})

	t.Run("64 options in 12 rows scroll", func(t *testing.T) {
		tm := server.With(t)
		args := manyOptions(t)
		req := writeFile(t, dir, "many.json", args)
		out := tmuxtest.Quote(filepath.Join(dir, "many.out"))
		tm.Session("many", 70, 12, fmt.Sprintf(`%s ask --engine wasm --request "$(cat %s)" > %s`, bin, req, out))
		scr := tm.WaitCursor("many", "1. Option 1")
		assert.True(t, fits(scr, 70, 12), scr)
		assert.Regexp(t, `(?m)^  ↓ \d+ more$`, scr)
		for range 12 {
			tm.Keys("many", "Down")
		}
		scr = tm.WaitCursor("many", "13. Option 13")
		assert.Regexp(t, `(?m)^  ↑ \d+ more$`, scr)
		assert.True(t, fits(scr, 70, 12), scr)
		tm.Keys("many", "End")
		scr = tm.WaitCursor("many", "✎ ")
		assert.Contains(t, scr, "64. Option 64")
		tm.Keys("many", "PPage")
		scr = tm.WaitScreen("many", "a page up", func(scr string) bool {
			n, ok := entryNumber(tmuxtest.CursorLine(scr))
			return ok && n < 64
		})
		up, _ := entryNumber(tmuxtest.CursorLine(scr))
		tm.Keys("many", "PPage")
		scr = tm.WaitScreen("many", "another page up", func(scr string) bool {
			n, ok := entryNumber(tmuxtest.CursorLine(scr))
			return ok && n < up
		})
		upAgain, _ := entryNumber(tmuxtest.CursorLine(scr))
		tm.Keys("many", "NPage")
		tm.WaitScreen("many", "a page down", func(scr string) bool {
			n, ok := entryNumber(tmuxtest.CursorLine(scr))
			return ok && n > upAgain
		})
		tm.Keys("many", "Home")
		tm.WaitCursor("many", "1. Option 1")
		tm.Keys("many", "9")
		tm.WaitCursor("many", "9. Option 9")
		tm.Keys("many", "Enter")
		tm.WaitFor("many", "[exit 0]")
		answer, _ := pickSummary(t, args, askcore.Pick{Options: []int{8}})
		assert.Equal(t, answer+"\n", readOut(t, out))
		assert.NotContains(t, tm.All("many", false), "more\n", "no scroll line left behind")
	})

	t.Run("wide characters and combining marks stay aligned", func(t *testing.T) {
		tm := server.With(t)
		args := `{"header":"言語","question":"どの言語で返信しますか？","options":[` +
			`{"label":"日本語","description":"全角の説明文がここに入ります。","recommended":true},` +
			`{"label":"中文（简体）非常长的标签会被截断而不会换行到下一行"},{"label":"Cafe\u0301 cre\u0300me"},` +
			`{"label":"🚀 Emoji 👍 label"},{"label":"한국어"}],"allowCustom":true}`
		req := writeFile(t, dir, "wide.json", args)
		out := tmuxtest.Quote(filepath.Join(dir, "wide.out"))
		tm.Session("wide", 36, 20, fmt.Sprintf(`%s ask --engine native --request "$(cat %s)" > %s`, bin, req, out))
		scr := tm.WaitCursor("wide", "1. 日本語")
		assert.True(t, fits(scr, 36, 20), scr)
		// After a wide label, its note; under it, its description, at the
		// label's column; every label in one column; the long label cut.
		assert.Contains(t, scr, "❯ 1. 日本語  recommended\n     全角の説明文")
		n := 0
		for _, l := range strings.Split(scr, "\n") {
			if m := regexp.MustCompile(`^(❯ |  )( ?\d\. | ✎ )`).FindString(l); m != "" {
				n++
				assert.Equal(t, 5, len([]rune(m)), "%q", l)
			}
		}
		assert.Equal(t, 6, n, "five options and the own answer:\n%s", scr)
		assert.Contains(t, scr, "Cafe\u0301 cre\u0300me")
		assert.Regexp(t, `(?m)^  2\. 中文.*…$`, scr)
		tm.Keys("wide", "End")
		tm.WaitCursor("wide", "✎ ")
		tm.Type("wide", "中文 e\u0301 👍")
		tm.WaitScreen("wide", "the text typed", func(scr string) bool { return strings.Contains(tmuxtest.CursorLine(scr), ": 中文 e\u0301 👍") })
		tm.Keys("wide", "BSpace") // the emoji, whole
		tm.WaitScreen("wide", "the emoji removed", func(scr string) bool { return strings.HasSuffix(tmuxtest.CursorLine(scr), ": 中文 e\u0301") })
		tm.Keys("wide", "BSpace", "BSpace") // the space, then é whole
		tm.Type("wide", "x")
		tm.WaitScreen("wide", "x typed", func(scr string) bool { return strings.HasSuffix(tmuxtest.CursorLine(scr), ": 中文 x") })
		tm.Keys("wide", "Enter")
		tm.WaitFor("wide", "[exit 0]")
		answer, _ := pickSummary(t, args, askcore.Pick{Options: []int{}, Text: "中文 x"})
		assert.Equal(t, answer+"\n", readOut(t, out))
	})

	t.Run("NO_COLOR: no SGR at all", func(t *testing.T) {
		tm := server.With(t)
		req := writeFile(t, dir, "nocolor.json", featuresArgs)
		tm.Session("nocolor", 120, 40, fmt.Sprintf(`NO_COLOR=1 %s ask --engine native --request "$(cat %s)" > /dev/null`, bin, req))
		tm.WaitCursor("nocolor", "[x] 1. Auth")
		tm.Keys("nocolor", "End")
		tm.WaitCursor("nocolor", "[ ]  ✎ ")
		assert.NotContains(t, tm.Pane("nocolor", true), "\x1b[", "no colour, no reverse video")
		tm.Keys("nocolor", "Escape")
		tm.WaitFor("nocolor", "[exit 5]")
	})

	t.Run("hostile text cannot drive the terminal", func(t *testing.T) {
		tm := server.With(t)
		h := colors(true)
		h["question"] = "Which colour?" + escapes
		h["options"] = []map[string]any{
			{"label": "Red" + escapes, "value": "red", "description": "Warm." + escapes},
			{"label": "Blue\x1b[31m", "value": "blue", "recommended": true},
		}
		req := writeFile(t, dir, "hostile.json", mustJSON(t, h))
		tm.Session("hostile", 120, 40, fmt.Sprintf(`%s ask --engine wasm --request "$(cat %s)" > /dev/null`, bin, req))
		scr := tm.WaitCursor("hostile", "1. Blue")
		assert.Contains(t, scr, "[Colour] Which colour?\nOVERWRITEesrever\n", "a CR does not go back over the line: the core made it a line break")
		assert.Contains(t, scr, "  2. Red OVERWRITEesrever\n", "in a label, one space")
		assert.True(t, fits(scr, 120, 40), scr)
		assert.NotContains(t, tm.Pane("hostile", true), "\x1b[31m", "no red from the label")
		title := strings.TrimSpace(tm.Run("display-message", "-p", "-t", "hostile", "#{pane_title}"))
		assert.NotEqual(t, "pwned", title, "no OSC title change")
		tm.Keys("hostile", "Enter")
		tm.WaitFor("hostile", "[exit 0]")
	})
}

// TestPickerLineModeFallbacks: wherever the core's terminal op says line
// mode, the line mode answers, unchanged: stdin a pipe (the prompt on the
// terminal), TERM=dumb, --plain, ASKCORE_PLAIN=1; no picker is drawn.
func TestPickerLineModeFallbacks(t *testing.T) {
	server := newTmux(t)
	dir := t.TempDir()
	req := writeFile(t, dir, "req.json", askRequest)
	want := `{"answer":"staging","selected":{"index":0,"label":"Staging","value":"staging"}}` + "\n"
	for _, c := range []struct{ name, cmd string }{
		{"stdin a pipe", `printf '2\n' | %s ask --engine native --request "$(cat %s)" > %s`},
		{"TERM=dumb", `TERM=dumb %s ask --engine native --request "$(cat %s)" > %s`},
		{"--plain", `%s ask --plain --engine native --request "$(cat %s)" > %s`},
		{"ASKCORE_PLAIN=1", `ASKCORE_PLAIN=1 %s ask --engine native --request "$(cat %s)" > %s`},
	} {
		t.Run(c.name, func(t *testing.T) {
			tm := server.With(t)
			name := strings.NewReplacer(" ", "-", "=", "-").Replace(c.name)
			out := tmuxtest.Quote(filepath.Join(dir, name+".out"))
			tm.Session(name, 120, 40, fmt.Sprintf(c.cmd, bin, req, out))
			scr := tm.WaitFor(name, "1. Production (recommended)", "\n? ")
			assert.Contains(t, scr, present(t, askRequest, 0))
			if c.name != "stdin a pipe" {
				tm.Line(name, "2")
			}
			scr = tm.WaitFor(name, "[exit 0]")
			assert.Contains(t, scr, "→ Staging\n")
			assert.NotContains(t, tm.All(name, false), "❯")
			assert.Equal(t, want, readOut(t, out))
		})
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}
