package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/askcore/askcore/core"
)

// tmuxServer runs sessions on a private tmux server: a real pseudo-terminal
// whose screen the tests read back.
type tmuxServer struct {
	t    *testing.T
	tmux string
	sock string
	env  []string
}

func newTmux(t *testing.T) *tmuxServer {
	t.Helper()
	path, err := exec.LookPath("tmux")
	if err != nil {
		t.Skip("tmux is not installed: the pseudo-terminal tests need it (Debian: apt-get install tmux)")
	}
	// A short socket path: unix socket paths are limited to ~100 bytes.
	dir, err := os.MkdirTemp("", "askt")
	require.NoError(t, err)
	s := &tmuxServer{t: t, tmux: path, sock: filepath.Join(dir, "s"), env: baseEnv("TERM=xterm-256color", "LANG=C.UTF-8")}
	t.Cleanup(func() {
		_ = exec.Command(path, "-S", s.sock, "kill-server").Run()
		os.RemoveAll(dir)
	})
	return s
}

// with returns the server for use in subtest t.
func (s *tmuxServer) with(t *testing.T) *tmuxServer {
	c := *s
	c.t = t
	return &c
}

func (s *tmuxServer) run(args ...string) string {
	s.t.Helper()
	cmd := exec.Command(s.tmux, append([]string{"-u", "-S", s.sock, "-f", "/dev/null"}, args...)...)
	cmd.Env = s.env
	out, err := cmd.CombinedOutput()
	require.NoError(s.t, err, "tmux %v: %s", args, out)
	return string(out)
}

// session starts shellCmd in a new 120x40 session; when it ends the pane
// shows "[exit N]" and stays.
func (s *tmuxServer) session(name, shellCmd string) {
	s.t.Helper()
	s.sessionSized(name, 120, 40, shellCmd)
}

// sessionSized starts shellCmd in a new cols x rows session.
func (s *tmuxServer) sessionSized(name string, cols, rows int, shellCmd string) {
	s.t.Helper()
	s.run("new-session", "-d", "-s", name, "-x", fmt.Sprint(cols), "-y", fmt.Sprint(rows),
		fmt.Sprintf(`%s; echo "[exit $?]"; sleep 600`, shellCmd))
}

func (s *tmuxServer) keys(name string, keys ...string) {
	s.t.Helper()
	s.run(append([]string{"send-keys", "-t", name}, keys...)...)
}

// line types text as it is, then Enter.
func (s *tmuxServer) line(name, text string) {
	s.t.Helper()
	if text != "" {
		s.run("send-keys", "-t", name, "-l", text)
	}
	s.run("send-keys", "-t", name, "Enter")
}

// screen is the pane's text; with escapes it keeps colours as SGR
// sequences.
func (s *tmuxServer) screen(name string, escapes bool) string {
	args := []string{"capture-pane", "-p", "-t", name, "-S", "-200"}
	if escapes {
		args = append(args, "-e")
	}
	return s.run(args...)
}

// pane is the visible pane only.
func (s *tmuxServer) pane(name string, escapes bool) string {
	args := []string{"capture-pane", "-p", "-t", name}
	if escapes {
		args = append(args, "-e")
	}
	return s.run(args...)
}

// all is the whole history of the pane: the scrollback and the screen.
func (s *tmuxServer) all(name string) string {
	return s.run("capture-pane", "-p", "-t", name, "-S", "-")
}

func (s *tmuxServer) waitScreen(name, what string, cond func(screen string) bool) string {
	s.t.Helper()
	deadline := time.Now().Add(patience) // generous: nothing sleeps to synchronise
	for {
		scr := s.screen(name, false)
		if cond(scr) {
			return scr
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("timed out waiting for %s; screen:\n%s", what, scr)
		}
		time.Sleep(20 * time.Millisecond) // polling interval, not synchronisation
	}
}

func (s *tmuxServer) waitFor(name string, texts ...string) string {
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

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

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
	chat := bin + " --engine native --script " + shellQuote(script)

	t.Run("answers, Ctrl-C in a question, Ctrl-D", func(t *testing.T) {
		tm := server.with(t)
		tm.session("chat", chat+" --plain")
		tm.waitFor("chat", "askcore-stdio", "Ctrl-D quits", "\n>")
		tm.keys("chat", "hello", "Enter")
		scr := tm.waitFor("chat", "Let me ask.", "1. Blue (recommended)", "Enter picks 1 (Blue).")
		assert.NotContains(t, scr, "pwned")
		colored := tm.screen("chat", true)
		assert.Contains(t, colored, "\x1b[", "the question block is coloured on a terminal")

		tm.keys("chat", "2", "Enter")
		scr = tm.waitFor("chat", "A1=red")
		assert.Contains(t, scr, "? 2\n", "the typed answer is echoed by the terminal")
		assert.Contains(t, scr, "→ Red")

		tm.waitScreen("chat", "the second question", func(scr string) bool {
			return strings.Count(scr, "Enter picks 1 (Blue).") == 2
		})
		tm.keys("chat", "C-c")
		scr = tm.waitFor("chat", "(question aborted)", "A2=ASK_ABORTED")
		assert.NotContains(t, scr, "[exit", "Ctrl-C in a question must not end the program")

		tm.keys("chat", "C-d")
		tm.waitFor("chat", "[exit 0]")
	})

	for _, c := range []struct{ name, env string }{
		{"NO_COLOR", "NO_COLOR=1 ASKCORE_PLAIN=1 "},
		{"TERM=dumb", "TERM=dumb "},
	} {
		t.Run(c.name, func(t *testing.T) {
			tm := server.with(t)
			name := strings.ReplaceAll(c.name, "=", "-")
			tm.session(name, c.env+chat)
			tm.waitFor(name, "Ctrl-D quits", "\n>")
			tm.keys(name, "hello", "Enter")
			tm.waitFor(name, "Enter picks 1 (Blue).")
			assert.NotContains(t, tm.screen(name, true), "\x1b[", "%s: no colour", c.name)
			tm.keys(name, "", "Enter")
			tm.waitFor(name, "A1=blue")
		})
	}

	t.Run("Ctrl-C at the prompt exits", func(t *testing.T) {
		tm := server.with(t)
		tm.session("quit", chat+" --plain")
		tm.waitFor("quit", "Ctrl-D quits", "\n>")
		tm.keys("quit", "C-c")
		tm.waitFor("quit", "[exit 130]")
	})
}

// TestTerminalBatch: a model asks a batch with a multi-select question; the
// person answers it line by line on a terminal (line mode), and the model
// receives the core's answer to the whole batch. Chat and ask, on both
// engines.
func TestTerminalBatch(t *testing.T) {
	server := newTmux(t)
	want := resolveAll(t, batchArgs, "", "1, fuzz", "Aurora")
	answer := func(tm *tmuxServer, name string) {
		tm.waitFor(name, "Question 1 of 3", "Enter picks 1 (Blue).")
		tm.line(name, "")
		tm.waitFor(name, "→ Blue", "Question 2 of 3")
		tm.line(name, "1, nope")
		msg := reprompt(t, batchArgs, 1, "1, nope")
		tm.waitFor(name, msg[:min(len(msg), 40)]) // the core's message; short enough not to wrap
		tm.line(name, "1, fuzz")
		tm.waitFor(name, "→ Lint, Fuzz", "Question 3 of 3")
		tm.line(name, "Aurora")
	}
	for _, eng := range []string{"native", "wasm"} {
		t.Run("chat/"+eng, func(t *testing.T) {
			tm := server.with(t)
			model := newFakeModel(t, batchArgs)
			name := "chat-" + eng
			tm.session(name, fmt.Sprintf("OPENAI_API_KEY=sk-test OPENAI_BASE_URL=%s OPENAI_MODEL=fake %s --plain --engine %s",
				shellQuote(model.URL), bin, eng))
			tm.waitFor(name, "Ctrl-D quits", "\n>")
			tm.line(name, "plan the release")
			answer(tm, name)
			scr := tm.waitFor(name, "→ Aurora", "Thanks.")
			assert.Contains(t, scr, "? 1, fuzz\n", "the terminal echoed the line")
			assert.Equal(t, want, model.received())
			tm.keys(name, "C-d")
			tm.waitFor(name, "[exit 0]")
		})
		t.Run("ask/"+eng, func(t *testing.T) {
			tm := server.with(t)
			dir := t.TempDir()
			req, out := filepath.Join(dir, "req.json"), filepath.Join(dir, "out.json")
			require.NoError(t, os.WriteFile(req, []byte(batchArgs), 0o600))
			name := "ask-" + eng
			tm.session(name, fmt.Sprintf(`ASKCORE_PLAIN=1 %s ask --engine %s --request "$(cat %s)" > %s`, bin, eng, shellQuote(req), shellQuote(out)))
			answer(tm, name)
			tm.waitFor(name, "[exit 0]")
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
	tm.session("flag", fmt.Sprintf(`%s ask --plain --engine native --request "$(cat %s)" > %s`, bin, shellQuote(req), shellQuote(out1)))
	tm.waitFor("flag", "1. Production (recommended)")
	tm.keys("flag", "2", "Enter")
	tm.waitFor("flag", "[exit 0]")
	b, err := os.ReadFile(out1)
	require.NoError(t, err)
	assert.Equal(t, `{"answer":"staging","selected":{"index":0,"label":"Staging","value":"staging"}}`+"\n", string(b))

	out2 := filepath.Join(dir, "out2.json")
	tm.session("pipe", fmt.Sprintf(`cat %s | ASKCORE_PLAIN=1 %s ask --engine native > %s 2>/dev/null`, shellQuote(req), bin, shellQuote(out2)))
	tm.waitFor("pipe", "1. Production (recommended)")
	tm.keys("pipe", "", "Enter")
	tm.waitFor("pipe", "[exit 0]")
	b, err = os.ReadFile(out2)
	require.NoError(t, err)
	assert.Equal(t, `{"answer":"prod","selected":{"index":1,"label":"Production","value":"prod"}}`+"\n", string(b))

	out3 := filepath.Join(dir, "out3.json")
	tm.session("abort", fmt.Sprintf(`%s ask --plain --engine native --request "$(cat %s)" > %s`, bin, shellQuote(req), shellQuote(out3)))
	tm.waitFor("abort", "1. Production (recommended)")
	tm.keys("abort", "C-c")
	tm.waitFor("abort", "[exit 3]")
	b, err = os.ReadFile(out3)
	require.NoError(t, err)
	// Ctrl-C on a terminal signals the whole job: ask gives up with the
	// signal as the reason.
	assert.Equal(t, failure(core.Failure{Situation: core.SituationAborted, Detail: "interrupted (Ctrl-C)"}), string(b))
}
