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

	"github.com/askcore/askcore/core"
	"github.com/askcore/askcore/engine"
)

// The keyboard picker (contract section 9) through the real binary on a
// real pseudo-terminal (tmux): every key, batches, Esc and Ctrl-C, resizes,
// long lists, wide characters, NO_COLOR, hostile text, in the chat and in
// "ask", on both engines; and the line mode wherever the core says so.
// Every expected text is asked from the core (layout, messages, summaries,
// answers), never restated.

// cursorLine is the entry line under the picker's cursor, without the
// cursor glyph; "" when no picker is on the screen.
func cursorLine(scr string) string {
	for _, l := range strings.Split(scr, "\n") {
		if rest, ok := strings.CutPrefix(l, "❯ "); ok {
			return strings.TrimSpace(rest)
		}
	}
	return ""
}

// waitCursor waits until the entry under the cursor starts with want.
func (s *tmuxServer) waitCursor(name, want string) string {
	s.t.Helper()
	return s.waitScreen(name, "the cursor on "+want, func(scr string) bool {
		return strings.HasPrefix(cursorLine(scr), want)
	})
}

// entryNumber is the number of an option's entry line ("12. Label").
func entryNumber(line string) (int, bool) {
	num, _, ok := strings.Cut(line, ". ")
	n, err := strconv.Atoi(num)
	return n, ok && err == nil
}

// typ types text as it is (no Enter).
func (s *tmuxServer) typ(name, text string) {
	s.t.Helper()
	s.run("send-keys", "-t", name, "-l", text)
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
func pickSummary(t *testing.T, arguments string, picks ...core.Pick) (answer, summary string) {
	t.Helper()
	call, err := native.NormalizeArguments(context.Background(), arguments)
	require.NoError(t, err)
	inputs := make([]engine.Input, len(picks))
	for i := range picks {
		inputs[i] = engine.Input{Pick: &picks[i]}
	}
	res, err := native.ResolveAll(context.Background(), call.Raw, inputs)
	require.NoError(t, err)
	text, err := native.Summary(context.Background(), call.Raw, res.Raw)
	require.NoError(t, err)
	return string(res.Raw), "→ " + strings.ReplaceAll(text, "\n", "\n→ ")
}

// pickerLayout is the core's picker layout for arguments.
func pickerLayout(t *testing.T, arguments string) struct{ Declined, Interrupted string } {
	t.Helper()
	call, err := native.NormalizeArguments(context.Background(), arguments)
	require.NoError(t, err)
	raw, err := native.Picker(context.Background(), call.Raw)
	require.NoError(t, err)
	var l struct{ Declined, Interrupted string }
	require.NoError(t, json.Unmarshal(raw, &l))
	require.NotEmpty(t, l.Declined)
	require.NotEmpty(t, l.Interrupted)
	return l
}

// pickRejection is the core's INVALID_ANSWER message for pick on question
// i.
func pickRejection(t *testing.T, arguments string, i int, pick core.Pick) string {
	t.Helper()
	call, err := native.NormalizeArguments(context.Background(), arguments)
	require.NoError(t, err)
	_, err = native.Resolve(context.Background(), call.Raw, i, engine.Input{Pick: &pick})
	var he *core.HarnessError
	require.ErrorAs(t, err, &he)
	require.Equal(t, core.CodeInvalidAnswer, he.Code)
	return he.Message
}

// writeFile writes content to a new file in dir and returns its path,
// quoted for the shell.
func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	require.NoError(t, os.WriteFile(path, []byte(content), 0o600))
	return shellQuote(path)
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
func answerBatchWithKeys(t *testing.T, tm *tmuxServer, name string) (answer, summary string) {
	tm.waitFor(name, "Question 1 of 3", "[Colour] Which colour?")
	tm.waitCursor(name, "1. Blue")
	tm.keys(name, "Down") // Red, not confirmed
	tm.waitCursor(name, "2. Red")
	tm.keys(name, "Tab")
	tm.waitFor(name, "Question 2 of 3", "Which checks?")
	tm.keys(name, "Enter") // nothing toggled
	msg := pickRejection(t, batchArgs, 1, core.Pick{Options: []int{}})
	assert.Contains(t, msg, "Space toggles the option under the cursor.")
	tm.waitFor(name, msg)
	tm.keys(name, "Space")
	tm.waitCursor(name, "[x] 1. Lint")
	tm.keys(name, "j", "j", "Space")
	tm.waitCursor(name, "[x] 3. Fuzz")
	tm.keys(name, "Tab")
	tm.waitFor(name, "Question 3 of 3", "What should the release be called?")
	entry := func(what, want string) { // waits for the text entry to hold want
		tm.waitScreen(name, what, func(scr string) bool {
			c := cursorLine(scr)
			return strings.HasPrefix(c, "✎ ") && strings.HasSuffix(c, ":"+want)
		})
	}
	tm.typ(name, "oops one")
	entry("typed", " oops one")
	tm.keys(name, "C-w")
	entry("Ctrl-W: a word removed", " oops")
	tm.keys(name, "C-u")
	entry("Ctrl-U: all removed", "")
	tm.run("set-buffer", "-b", "clip", "jk\nAuror") // a paste: the line break does not confirm
	tm.run("paste-buffer", "-p", "-b", "clip", "-t", name)
	entry("pasted", " jk Auror")
	tm.typ(name, "x")
	tm.keys(name, "BSpace")
	tm.typ(name, "a")
	entry("the name typed", " jk Aurora")
	tm.keys(name, "BTab", "BTab")
	scr := tm.waitFor(name, "Question 1 of 3")
	assert.True(t, strings.HasPrefix(cursorLine(scr), "2. Red"), "Tab kept the choice:\n%s", scr)
	tm.keys(name, "Enter") // confirms 1, on to 2
	scr = tm.waitFor(name, "Question 2 of 3", "✓ Colour")
	assert.Contains(t, scr, "  [ ] 2. Tests\n", "the toggles were kept")
	tm.keys(name, "Enter") // confirms 2, on to 3
	scr = tm.waitFor(name, "Question 3 of 3")
	assert.True(t, strings.HasSuffix(cursorLine(scr), ": jk Aurora"), scr)
	tm.keys(name, "Enter") // confirms 3: the batch is submitted
	return pickSummary(t, batchArgs, core.Pick{Options: []int{0}}, core.Pick{Options: []int{0, 2}}, core.Pick{Text: "jk Aurora"})
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
			tm := server.with(t)
			name := "chat-" + eng
			tm.session(name, fmt.Sprintf("%s --engine %s --script %s", bin, eng, shellQuote(script)))
			tm.waitFor(name, "askcore-stdio", "Esc declines.", "\n>")
			tm.line(name, "hello")
			scr := tm.waitCursor(name, "1. Blue  recommended")
			assert.Contains(t, scr, "[Colour] Which colour?")
			assert.Contains(t, scr, "     Calm.\n")
			assert.NotContains(t, scr, "pwned")
			assert.Contains(t, tm.pane(name, true), "\x1b[", "colour on a terminal")
			for _, k := range []struct{ key, cursor string }{
				{"Down", "2. Red"}, {"j", "3. Green"}, {"k", "2. Red"}, {"Up", "1. Blue"},
				{"3", "3. Green"}, {"1", "1. Blue"}, {"End", "✎ "}, {"Home", "1. Blue"}, {"2", "2. Red"},
			} {
				tm.keys(name, k.key)
				tm.waitCursor(name, k.cursor)
			}
			tm.keys(name, "Enter")
			tm.waitFor(name, "A1=red")
			_, summary := pickSummary(t, mustJSON(t, colors(true)), core.Pick{Options: []int{0}})
			assert.Contains(t, tm.all(name), "> hello\nLet me ask.\nOVERWRITEesrever\n"+summary+"\nA1=red\n",
				"one summary line stays, nothing else of the picker")

			tm.waitCursor(name, "1. Blue")
			tm.keys(name, "Escape")
			scr = tm.waitFor(name, "A2=ASK_DECLINED")
			assert.Contains(t, scr, "\n"+texts.Declined+"\n")
			assert.Contains(t, scr, "ask_user_question: ASK_DECLINED", "the error line (stderr) on the same terminal")

			tm.waitCursor(name, "1. Blue")
			tm.keys(name, "C-c")
			scr = tm.waitFor(name, "A3=ASK_ABORTED")
			assert.Contains(t, scr, "\n"+texts.Interrupted+"\n")
			assert.NotContains(t, scr, "[exit", "Ctrl-C in a question does not end the program")
			tm.waitFor(name, "A3=ASK_ABORTED\n>")
			tm.keys(name, "C-d")
			tm.waitFor(name, "[exit 0]")
			assert.NotContains(t, tm.all(name), "❯", "no picker left in the scrollback")
		})
		t.Run("batch/"+eng, func(t *testing.T) {
			tm := server.with(t)
			model := newFakeModel(t, batchArgs)
			name := "batch-" + eng
			tm.session(name, fmt.Sprintf("OPENAI_API_KEY=sk-test OPENAI_BASE_URL=%s OPENAI_MODEL=fake %s --engine %s",
				shellQuote(model.URL), bin, eng))
			tm.waitFor(name, "Esc declines.", "\n>")
			tm.line(name, "plan the release")
			want, summary := answerBatchWithKeys(t, tm, name)
			tm.waitFor(name, "Thanks.")
			assert.Equal(t, want, model.received())
			assert.Contains(t, tm.all(name), "Let me ask.\n"+summary+"\nThanks.\n")
			tm.keys(name, "C-d")
			tm.waitFor(name, "[exit 0]")
		})
	}

	t.Run("stdout not a terminal: the picker on stderr", func(t *testing.T) {
		tm := server.with(t)
		out := filepath.Join(t.TempDir(), "out.txt")
		tm.session("redirected", fmt.Sprintf("%s --engine native --script %s > %s", bin, shellQuote(script), shellQuote(out)))
		tm.line("redirected", "hello")
		tm.waitCursor("redirected", "1. Blue")
		tm.keys("redirected", "Enter")
		tm.waitFor("redirected", "→ Blue\n")
		tm.waitCursor("redirected", "1. Blue") // the next question: the first one was erased
		tm.keys("redirected", "Escape")
		tm.waitFor("redirected", texts.Declined)
		tm.waitCursor("redirected", "1. Blue")
		tm.keys("redirected", "Enter")
		tm.waitScreen("redirected", "the third answer", func(scr string) bool { return strings.Count(scr, "→ Blue\n") == 2 })
		tm.keys("redirected", "C-d") // the terminal is cooked again: end of input
		scr := tm.waitFor("redirected", "[exit 0]")
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
			tm := server.with(t)
			name, out := "flag-"+eng, shellQuote(filepath.Join(dir, "flag-"+eng+".json"))
			tm.session(name, fmt.Sprintf(`echo before; %s ask --engine %s --request "$(cat %s)" > %s`, bin, eng, req, out))
			scr := tm.waitCursor(name, "1. Production  recommended")
			assert.Contains(t, scr, "[Deploy] Deploy to which environment?")
			tm.keys(name, "Enter")
			tm.waitFor(name, "[exit 0]")
			answer, summary := pickSummary(t, askRequest, core.Pick{Options: []int{1}})
			assert.Equal(t, answer+"\n", readOut(t, out))
			assert.True(t, strings.HasPrefix(tm.all(name), "before\n"+summary+"\n[exit 0]\n"), "only the summary stays:\n%s", tm.all(name))
		})
		t.Run("request on stdin/"+eng, func(t *testing.T) {
			tm := server.with(t)
			name, out := "pipe-"+eng, shellQuote(filepath.Join(dir, "pipe-"+eng+".json"))
			tm.session(name, fmt.Sprintf(`cat %s | %s ask --engine %s > %s`, req, bin, eng, out))
			tm.waitCursor(name, "1. Production")
			tm.keys(name, "Down")
			tm.waitCursor(name, "2. Staging")
			tm.keys(name, "Enter")
			tm.waitFor(name, "[exit 0]")
			answer, _ := pickSummary(t, askRequest, core.Pick{Options: []int{0}})
			assert.Equal(t, answer+"\n", readOut(t, out))
		})
		t.Run("batch/"+eng, func(t *testing.T) {
			tm := server.with(t)
			breq := writeFile(t, dir, "batch-"+eng+".json", batchArgs)
			name, out := "abatch-"+eng, shellQuote(filepath.Join(dir, "abatch-"+eng+".out"))
			tm.session(name, fmt.Sprintf(`%s ask --engine %s --request "$(cat %s)" > %s`, bin, eng, breq, out))
			answer, summary := answerBatchWithKeys(t, tm, name)
			tm.waitFor(name, "[exit 0]")
			assert.Equal(t, answer+"\n", readOut(t, out))
			assert.True(t, strings.HasPrefix(tm.all(name), summary+"\n[exit 0]\n"), tm.all(name))
		})
	}

	t.Run("no controlling terminal: the picker on stderr", func(t *testing.T) {
		// setsid: /dev/tty cannot be opened, stdin and stderr are still
		// the terminal.
		tm := server.with(t)
		out := shellQuote(filepath.Join(dir, "setsid.json"))
		tm.session("setsid", fmt.Sprintf(`setsid -w %s ask --engine native --request "$(cat %s)" > %s`, bin, req, out))
		tm.waitCursor("setsid", "1. Production")
		tm.keys("setsid", "j")
		tm.waitCursor("setsid", "2. Staging")
		tm.keys("setsid", "Enter")
		tm.waitFor("setsid", "[exit 0]")
		answer, summary := pickSummary(t, askRequest, core.Pick{Options: []int{0}})
		assert.Equal(t, answer+"\n", readOut(t, out))
		assert.True(t, strings.HasPrefix(tm.all("setsid"), summary+"\n[exit 0]\n"), tm.all("setsid"))
	})

	t.Run("Esc: ASK_DECLINED, exit 5", func(t *testing.T) {
		tm := server.with(t)
		out := shellQuote(filepath.Join(dir, "esc.json"))
		tm.session("esc", fmt.Sprintf(`%s ask --engine native --request "$(cat %s)" > %s`, bin, req, out))
		tm.waitCursor("esc", "1. Production")
		tm.keys("esc", "Down")
		tm.waitCursor("esc", "2. Staging")
		tm.keys("esc", "Escape")
		tm.waitFor("esc", "[exit 5]")
		assert.Equal(t, failure(core.Failure{Situation: core.SituationDeclined}), readOut(t, out))
		assert.True(t, strings.HasPrefix(tm.all("esc"), texts.Declined+"\n[exit 5]\n"), tm.all("esc"))
	})

	t.Run("Ctrl-C: ASK_ABORTED, exit 3, the shell goes on", func(t *testing.T) {
		tm := server.with(t)
		out := shellQuote(filepath.Join(dir, "ctrlc.json"))
		tm.session("ctrlc", fmt.Sprintf(`%s ask --engine native --request "$(cat %s)" > %s; echo "status $?"; echo "the script went on"`, bin, req, out))
		tm.waitCursor("ctrlc", "1. Production")
		tm.keys("ctrlc", "C-c")
		scr := tm.waitFor("ctrlc", "the script went on", "[exit 0]")
		assert.Contains(t, scr, texts.Interrupted+"\nstatus 3\n")
		assert.Equal(t, failure(core.Failure{Situation: core.SituationInterrupted}), readOut(t, out))
	})

	t.Run("SIGTERM: the picker is erased, the terminal restored", func(t *testing.T) {
		tm := server.with(t)
		out := shellQuote(filepath.Join(dir, "term.json"))
		pid := filepath.Join(dir, "term.pid")
		script := writeFile(t, dir, "term.sh", fmt.Sprintf("echo $$ > %s\nexec %s ask --engine native --request \"$(cat %s)\"\n",
			shellQuote(pid), bin, req))
		tm.session("term", fmt.Sprintf(`echo before; sh %s > %s; echo "status $?"; stty -a | grep -o ' -*icanon'`, script, out))
		tm.waitCursor("term", "1. Production")
		b, err := os.ReadFile(pid)
		require.NoError(t, err)
		var p int
		_, err = fmt.Sscan(string(b), &p)
		require.NoError(t, err)
		require.NoError(t, syscall.Kill(p, syscall.SIGTERM))
		scr := tm.waitFor("term", "status 3", "[exit 0]")
		assert.Contains(t, scr, "status 3\n icanon\n", "the terminal is cooked again")
		assert.True(t, strings.HasPrefix(tm.all("term"), "before\nstatus 3\n"), "the picker is erased:\n%s", tm.all("term"))
		assert.Equal(t, failure(core.Failure{Situation: core.SituationAborted, Detail: "terminated (SIGTERM)"}), readOut(t, out))
	})
}

// TestPickerScreen: the real world through the binary: resizes, a list
// longer than the terminal, wide characters and combining marks, NO_COLOR,
// hostile text.
func TestPickerScreen(t *testing.T) {
	server := newTmux(t)
	dir := t.TempDir()

	t.Run("resize: drawn again for each size, nothing left behind", func(t *testing.T) {
		tm := server.with(t)
		req := writeFile(t, dir, "resize.json", askRequest)
		out := shellQuote(filepath.Join(dir, "resize.out"))
		tm.sessionSized("resize", 100, 30, fmt.Sprintf(`echo before; %s ask --engine native --request "$(cat %s)" > %s`, bin, req, out))
		tm.waitCursor("resize", "1. Production")
		tm.keys("resize", "Down")
		tm.waitCursor("resize", "2. Staging")
		for _, sz := range [][2]int{{60, 15}, {120, 40}, {52, 12}, {80, 24}} {
			tm.run("resize-window", "-t", "resize", "-x", fmt.Sprint(sz[0]), "-y", fmt.Sprint(sz[1]))
			tm.waitScreen("resize", fmt.Sprintf("the %dx%d frame", sz[0], sz[1]), func(scr string) bool {
				return strings.HasPrefix(cursorLine(scr), "2. Staging") && fits(scr, sz[0], sz[1]) &&
					strings.Count(scr, "[Deploy]") == 1 && strings.Count(scr, "❯") == 1
			})
		}
		tm.keys("resize", "Enter")
		tm.waitFor("resize", "[exit 0]")
		answer, summary := pickSummary(t, askRequest, core.Pick{Options: []int{0}})
		assert.Equal(t, answer+"\n", readOut(t, out))
		assert.True(t, strings.HasPrefix(tm.all("resize"), "before\n"+summary+"\n[exit 0]\n"), tm.all("resize"))
	})

	t.Run("64 options in 12 rows scroll", func(t *testing.T) {
		tm := server.with(t)
		var opts []map[string]any
		for i := range core.MaxOptions {
			o := map[string]any{"label": fmt.Sprintf("Option %d", i+1), "value": fmt.Sprint(i + 1)}
			if i%3 == 0 {
				o["description"] = strings.Repeat("words ", 1+i%5)
			}
			opts = append(opts, o)
		}
		opts[0]["recommended"] = true
		args := mustJSON(t, map[string]any{"header": "Many", "question": "Which one?", "options": opts, "allowCustom": true})
		req := writeFile(t, dir, "many.json", args)
		out := shellQuote(filepath.Join(dir, "many.out"))
		tm.sessionSized("many", 70, 12, fmt.Sprintf(`%s ask --engine wasm --request "$(cat %s)" > %s`, bin, req, out))
		scr := tm.waitCursor("many", "1. Option 1")
		assert.True(t, fits(scr, 70, 12), scr)
		assert.Regexp(t, `(?m)^  ↓ \d+ more$`, scr)
		for range 12 {
			tm.keys("many", "Down")
		}
		scr = tm.waitCursor("many", "13. Option 13")
		assert.Regexp(t, `(?m)^  ↑ \d+ more$`, scr)
		assert.True(t, fits(scr, 70, 12), scr)
		tm.keys("many", "End")
		scr = tm.waitCursor("many", "✎ ")
		assert.Contains(t, scr, "64. Option 64")
		tm.keys("many", "PPage")
		scr = tm.waitScreen("many", "a page up", func(scr string) bool {
			n, ok := entryNumber(cursorLine(scr))
			return ok && n < 64
		})
		up, _ := entryNumber(cursorLine(scr))
		tm.keys("many", "PPage")
		scr = tm.waitScreen("many", "another page up", func(scr string) bool {
			n, ok := entryNumber(cursorLine(scr))
			return ok && n < up
		})
		upAgain, _ := entryNumber(cursorLine(scr))
		tm.keys("many", "NPage")
		tm.waitScreen("many", "a page down", func(scr string) bool {
			n, ok := entryNumber(cursorLine(scr))
			return ok && n > upAgain
		})
		tm.keys("many", "Home")
		tm.waitCursor("many", "1. Option 1")
		tm.keys("many", "9")
		tm.waitCursor("many", "9. Option 9")
		tm.keys("many", "Enter")
		tm.waitFor("many", "[exit 0]")
		answer, _ := pickSummary(t, args, core.Pick{Options: []int{8}})
		assert.Equal(t, answer+"\n", readOut(t, out))
		assert.NotContains(t, tm.all("many"), "more\n", "no scroll line left behind")
	})

	t.Run("wide characters and combining marks stay aligned", func(t *testing.T) {
		tm := server.with(t)
		args := `{"header":"言語","question":"どの言語で返信しますか？","options":[` +
			`{"label":"日本語","description":"全角の説明文がここに入ります。","recommended":true},` +
			`{"label":"中文（简体）非常长的标签会被截断而不会换行到下一行"},{"label":"Cafe\u0301 cre\u0300me"},` +
			`{"label":"🚀 Emoji 👍 label"},{"label":"한국어"}],"allowCustom":true}`
		req := writeFile(t, dir, "wide.json", args)
		out := shellQuote(filepath.Join(dir, "wide.out"))
		tm.sessionSized("wide", 36, 20, fmt.Sprintf(`%s ask --engine native --request "$(cat %s)" > %s`, bin, req, out))
		scr := tm.waitCursor("wide", "1. 日本語")
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
		tm.keys("wide", "End")
		tm.waitCursor("wide", "✎ ")
		tm.typ("wide", "中文 e\u0301 👍")
		tm.waitScreen("wide", "the text typed", func(scr string) bool { return strings.Contains(cursorLine(scr), ": 中文 e\u0301 👍") })
		tm.keys("wide", "BSpace") // the emoji, whole
		tm.waitScreen("wide", "the emoji removed", func(scr string) bool { return strings.HasSuffix(cursorLine(scr), ": 中文 e\u0301") })
		tm.keys("wide", "BSpace", "BSpace") // the space, then é whole
		tm.typ("wide", "x")
		tm.waitScreen("wide", "x typed", func(scr string) bool { return strings.HasSuffix(cursorLine(scr), ": 中文 x") })
		tm.keys("wide", "Enter")
		tm.waitFor("wide", "[exit 0]")
		answer, _ := pickSummary(t, args, core.Pick{Options: []int{}, Text: "中文 x"})
		assert.Equal(t, answer+"\n", readOut(t, out))
	})

	t.Run("NO_COLOR: no SGR at all", func(t *testing.T) {
		tm := server.with(t)
		req := writeFile(t, dir, "nocolor.json", featuresArgs)
		tm.session("nocolor", fmt.Sprintf(`NO_COLOR=1 %s ask --engine native --request "$(cat %s)" > /dev/null`, bin, req))
		tm.waitCursor("nocolor", "[x] 1. Auth")
		tm.keys("nocolor", "End")
		tm.waitCursor("nocolor", "[ ]  ✎ ")
		assert.NotContains(t, tm.pane("nocolor", true), "\x1b[", "no colour, no reverse video")
		tm.keys("nocolor", "Escape")
		tm.waitFor("nocolor", "[exit 5]")
	})

	t.Run("hostile text cannot drive the terminal", func(t *testing.T) {
		tm := server.with(t)
		h := colors(true)
		h["question"] = "Which colour?" + escapes
		h["options"] = []map[string]any{
			{"label": "Red" + escapes, "value": "red", "description": "Warm." + escapes},
			{"label": "Blue\x1b[31m", "value": "blue", "recommended": true},
		}
		req := writeFile(t, dir, "hostile.json", mustJSON(t, h))
		tm.session("hostile", fmt.Sprintf(`%s ask --engine wasm --request "$(cat %s)" > /dev/null`, bin, req))
		scr := tm.waitCursor("hostile", "1. Blue")
		assert.Contains(t, scr, "[Colour] Which colour?\nOVERWRITEesrever\n", "a CR does not go back over the line: the core made it a line break")
		assert.Contains(t, scr, "  2. Red OVERWRITEesrever\n", "in a label, one space")
		assert.True(t, fits(scr, 120, 40), scr)
		assert.NotContains(t, tm.pane("hostile", true), "\x1b[31m", "no red from the label")
		title := strings.TrimSpace(tm.run("display-message", "-p", "-t", "hostile", "#{pane_title}"))
		assert.NotEqual(t, "pwned", title, "no OSC title change")
		tm.keys("hostile", "Enter")
		tm.waitFor("hostile", "[exit 0]")
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
			tm := server.with(t)
			name := strings.NewReplacer(" ", "-", "=", "-").Replace(c.name)
			out := shellQuote(filepath.Join(dir, name+".out"))
			tm.session(name, fmt.Sprintf(c.cmd, bin, req, out))
			scr := tm.waitFor(name, "1. Production (recommended)", "\n? ")
			assert.Contains(t, scr, present(t, askRequest, 0))
			if c.name != "stdin a pipe" {
				tm.line(name, "2")
			}
			scr = tm.waitFor(name, "[exit 0]")
			assert.Contains(t, scr, "→ Staging\n")
			assert.NotContains(t, tm.all(name), "❯")
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
