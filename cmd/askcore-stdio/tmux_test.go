package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/askcore/askcore"
	"github.com/askcore/askcore/internal/testing/tmuxtest"
)

// newTmux is a private tmux server for t whose sessions see no model
// keys (the same as baseEnv), and whose waits read 200 lines of
// scrollback: a chat scrolls.
func newTmux(t *testing.T) *tmuxtest.Server {
	t.Helper()
	return tmuxtest.New(t, tmuxtest.Config{Unset: modelKeys, History: 200})
}

// chatCommand is the shell command that runs the chat, with flags, on
// model.
func chatCommand(model *fakeModel, flags string) string {
	return fmt.Sprintf("OPENAI_API_KEY=sk-test OPENAI_BASE_URL=%s OPENAI_MODEL=fake %s %s", tmuxtest.Quote(model.URL), bin, flags)
}

// TestTerminal types answers into the binary through a real terminal and
// reads the screen: the banner, a question set apart in colour, an answer
// by number, Ctrl-C dismissing a question (the model is told ASK_ABORTED,
// the conversation goes on), NO_COLOR and TERM=dumb, Ctrl-C and Ctrl-D at
// the prompt. Each session asks for the line mode (--plain, ASKCORE_PLAIN
// or TERM=dumb): on a plain terminal the core chooses the keyboard picker.
func TestTerminal(t *testing.T) {
	server := newTmux(t)
	script := writeScript(t,
		reply{Content: "Let me ask." + escapes, ToolCalls: ask("q1", colors(true))},
		reply{Content: "A1={{answer}}", ToolCalls: ask("q2", colors(true))},
		reply{Content: "A2={{answer}}"},
	)
	chat := bin + " --engine native --script " + tmuxtest.Quote(script)

	t.Run("answers, Ctrl-C in a question, Ctrl-D", func(t *testing.T) {
		tm := server.With(t)
		tm.Session("chat", 120, 40, chat+" --plain")
		tm.WaitFor("chat", "askcore-stdio", "Ctrl-D quits", "\n>")
		tm.Keys("chat", "hello", "Enter")
		scr := tm.WaitFor("chat", "Let me ask.", "1. Blue (recommended)", "Enter picks 1 (Blue).")
		assert.NotContains(t, scr, "pwned")
		colored := tm.Screen("chat", true)
		assert.Contains(t, colored, "\x1b[", "the question block is coloured on a terminal")

		tm.Keys("chat", "2", "Enter")
		scr = tm.WaitFor("chat", "A1=red")
		assert.Contains(t, scr, "? 2\n", "the typed answer is echoed by the terminal")
		assert.Contains(t, scr, "→ Red")

		tm.WaitScreen("chat", "the second question", func(scr string) bool {
			return strings.Count(scr, "Enter picks 1 (Blue).") == 2
		})
		tm.Keys("chat", "C-c")
		scr = tm.WaitFor("chat", said(askcore.SituationInterrupted)+"\n", "A2=ASK_ABORTED")
		assert.NotContains(t, scr, "[exit", "Ctrl-C in a question must not end the program")

		tm.Keys("chat", "C-d")
		tm.WaitFor("chat", "[exit 0]")
	})

	for _, c := range []struct{ name, env string }{
		{"NO_COLOR", "NO_COLOR=1 ASKCORE_PLAIN=1 "},
		{"TERM=dumb", "TERM=dumb "},
	} {
		t.Run(c.name, func(t *testing.T) {
			tm := server.With(t)
			name := strings.ReplaceAll(c.name, "=", "-")
			tm.Session(name, 120, 40, c.env+chat)
			tm.WaitFor(name, "Ctrl-D quits", "\n>")
			tm.Keys(name, "hello", "Enter")
			tm.WaitFor(name, "Enter picks 1 (Blue).")
			assert.NotContains(t, tm.Screen(name, true), "\x1b[", "%s: no colour", c.name)
			tm.Keys(name, "", "Enter")
			tm.WaitFor(name, "A1=blue")
		})
	}

	t.Run("Ctrl-C at the prompt exits", func(t *testing.T) {
		tm := server.With(t)
		tm.Session("quit", 120, 40, chat+" --plain")
		tm.WaitFor("quit", "Ctrl-D quits", "\n>")
		tm.Keys("quit", "C-c")
		tm.WaitFor("quit", "[exit 130]")
	})
}

// TestTerminalBatch: a model asks a batch with a multi-select question; the
// person answers it line by line on a terminal (line mode), and the model
// receives the core's answer to the whole batch. Chat and ask, on both
// engines.
func TestTerminalBatch(t *testing.T) {
	server := newTmux(t)
	want := resolveAll(t, batchArgs, "", "1, fuzz", "Aurora")
	answer := func(tm *tmuxtest.Server, name string) {
		tm.WaitFor(name, "Question 1 of 3", "Enter picks 1 (Blue).")
		tm.Line(name, "")
		tm.WaitFor(name, "→ Blue", "Question 2 of 3")
		tm.Line(name, "1, nope")
		msg := reprompt(t, batchArgs, 1, "1, nope")
		tm.WaitFor(name, msg[:min(len(msg), 40)]) // the core's message; short enough not to wrap
		tm.Line(name, "1, fuzz")
		tm.WaitFor(name, "→ Lint, Fuzz", "Question 3 of 3")
		tm.Line(name, "Aurora")
	}
	for _, eng := range []string{"native", "wasm"} {
		t.Run("chat/"+eng, func(t *testing.T) {
			tm := server.With(t)
			model := newFakeModel(t, batchArgs)
			name := "chat-" + eng
			tm.Session(name, 120, 40, chatCommand(model, "--plain --engine "+eng))
			tm.WaitFor(name, "Ctrl-D quits", "\n>")
			tm.Line(name, "plan the release")
			answer(tm, name)
			scr := tm.WaitFor(name, "→ Aurora", "Thanks.")
			assert.Contains(t, scr, "? 1, fuzz\n", "the terminal echoed the line")
			assert.Equal(t, want, model.received())
			tm.Keys(name, "C-d")
			tm.WaitFor(name, "[exit 0]")
		})
		t.Run("ask/"+eng, func(t *testing.T) {
			tm := server.With(t)
			dir := t.TempDir()
			req, out := filepath.Join(dir, "req.json"), filepath.Join(dir, "out.json")
			require.NoError(t, os.WriteFile(req, []byte(batchArgs), 0o600))
			name := "ask-" + eng
			tm.Session(name, 120, 40, fmt.Sprintf(`ASKCORE_PLAIN=1 %s ask --engine %s --request "$(cat %s)" > %s`, bin, eng, tmuxtest.Quote(req), tmuxtest.Quote(out)))
			answer(tm, name)
			tm.WaitFor(name, "[exit 0]")
			b, err := os.ReadFile(out)
			require.NoError(t, err)
			assert.Equal(t, want+"\n", string(b))
		})
	}
}

// TestTerminalAsk runs "askcore-stdio ask" on a terminal: with --request
// the answer is typed on stdin; with the request piped in, the answer is
// read from /dev/tty.
func TestTerminalAsk(t *testing.T) {
	tm := newTmux(t)
	dir := t.TempDir()
	req := filepath.Join(dir, "req.json")
	require.NoError(t, os.WriteFile(req, []byte(askRequest), 0o600))

	out1 := filepath.Join(dir, "out1.json")
	tm.Session("flag", 120, 40, fmt.Sprintf(`%s ask --plain --engine native --request "$(cat %s)" > %s`, bin, tmuxtest.Quote(req), tmuxtest.Quote(out1)))
	tm.WaitFor("flag", "1. Production (recommended)")
	tm.Keys("flag", "2", "Enter")
	tm.WaitFor("flag", "[exit 0]")
	b, err := os.ReadFile(out1)
	require.NoError(t, err)
	assert.Equal(t, `{"answer":"staging","selected":{"index":0,"label":"Staging","value":"staging"}}`+"\n", string(b))

	out2 := filepath.Join(dir, "out2.json")
	tm.Session("pipe", 120, 40, fmt.Sprintf(`cat %s | ASKCORE_PLAIN=1 %s ask --engine native > %s 2>/dev/null`, tmuxtest.Quote(req), bin, tmuxtest.Quote(out2)))
	tm.WaitFor("pipe", "1. Production (recommended)")
	tm.Keys("pipe", "", "Enter")
	tm.WaitFor("pipe", "[exit 0]")
	b, err = os.ReadFile(out2)
	require.NoError(t, err)
	assert.Equal(t, `{"answer":"prod","selected":{"index":1,"label":"Production","value":"prod"}}`+"\n", string(b))

	out3 := filepath.Join(dir, "out3.json")
	tm.Session("abort", 120, 40, fmt.Sprintf(`%s ask --plain --engine native --request "$(cat %s)" > %s`, bin, tmuxtest.Quote(req), tmuxtest.Quote(out3)))
	tm.WaitFor("abort", "1. Production (recommended)")
	tm.Keys("abort", "C-c")
	tm.WaitFor("abort", "[exit 3]")
	b, err = os.ReadFile(out3)
	require.NoError(t, err)
	// Ctrl-C on a terminal signals the whole job: ask gives up with the
	// signal as the reason.
	assert.Equal(t, failure(askcore.Failure{Situation: askcore.SituationAborted, Detail: "interrupted (Ctrl-C)"}), string(b))
}

// TestTerminalDemo: on a terminal the built-in demo starts the first turn
// itself (nothing typed): it greets after the banner and asks its batch
// at once, in the line mode and with the keyboard picker, on both engines;
// in the line mode the layouts' previews are shown and notes typed after
// // reach the reply.
func TestTerminalDemo(t *testing.T) {
	server := newTmux(t)
	for _, eng := range []string{"native", "wasm"} {
		t.Run("line mode/"+eng, func(t *testing.T) {
			tm := server.With(t)
			name := "demo-line-" + eng
			tm.Session(name, 120, 40, fmt.Sprintf("%s --plain --engine %s", bin, eng))
			scr := tm.WaitFor(name, "Ctrl-D quits", "Question 1 of 2", "Enter picks 1 (Go).")
			assert.Contains(t, scr, "demo")
			assert.NotContains(t, scr, "> ", "the first turn started with nothing typed")
			tm.Line(name, "")
			tm.WaitFor(name, "→ Go", "Question 2 of 2")
			tm.Line(name, "1, database, Tracing")
			tm.WaitFor(name, "→ HTTP API, Database, Tracing", "The tool result I received says: go; http, database, Tracing.",
				"How should the code be organised?", "     Preview:", "     (end of preview)")
			tm.Line(name, "2 // keep shared code apart")
			tm.WaitFor(name, "→ By layer (notes: keep shared code apart)",
				`Noted: by-layer. Your notes: "keep shared code apart".`, "\n>")
			tm.Keys(name, "C-d")
			scr = tm.WaitFor(name, "[exit 0]")
			assert.NotContains(t, scr, "ASK_ABORTED")
		})
		t.Run("picker/"+eng, func(t *testing.T) {
			tm := server.With(t)
			name := "demo-picker-" + eng
			tm.Session(name, 120, 40, fmt.Sprintf("%s --engine %s", bin, eng))
			scr := tm.WaitCursor(name, "1. Go")
			assert.Contains(t, scr, "Esc declines.")
			assert.Contains(t, scr, "Question 1 of 2")
			assert.NotContains(t, scr, "> ", "the first turn started with nothing typed")
			tm.Keys(name, "Escape")
			tm.WaitFor(name, "The tool result I received says: ASK_DECLINED.")
			tm.WaitCursor(name, "1. By feature") // the layouts
			tm.Keys(name, "Escape")
			tm.WaitFor(name, "Noted: ASK_DECLINED.", "\n>")
			tm.Keys(name, "C-d")
			tm.WaitFor(name, "[exit 0]")
		})
	}
}
