package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/askcore/askcore"
	"github.com/askcore/askcore/frontdoor"
	"github.com/askcore/askcore/internal/testing/pgtest"
	"github.com/askcore/askcore/internal/testing/syncbuf"
	"github.com/askcore/askcore/internal/testing/tmuxtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

// bin is askcore-stdio, built once for every test of the binary.
var bin string

// patience is how long a test waits for something that must happen (an
// output, an exit): the terminal tests' budget, one for the package. Only
// a failing test waits that long: a loaded machine makes the tests slower,
// never red.
const patience = tmuxtest.Patience

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "askcore-stdio-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fail := func(what string, err error) {
		fmt.Fprintln(os.Stderr, what, err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	// Built before XDG_CACHE_HOME moves: the go command's build cache
	// lives under it too, and an empty one would rebuild every dependency.
	bin = filepath.Join(dir, "askcore-stdio")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fail("building askcore-stdio:", err)
	}
	// The binary's wasm engine caches its compile under the user cache
	// dir: give the run (and every process it starts) one of its own.
	if err := os.Setenv("XDG_CACHE_HOME", filepath.Join(dir, "cache")); err != nil {
		fail("XDG_CACHE_HOME:", err)
	}
	// One ask fills that cache before the tests start (the binary waits at
	// exit for its compile to be written): otherwise the processes the
	// tests start in parallel each compile the module until one has
	// written it, minutes of CPU on a loaded machine.
	warm := exec.Command(bin, "ask", "--engine", "wasm", "--request", `{"question":"Ready?","options":[{"label":"Yes"},{"label":"No"}]}`)
	warm.Stdin = strings.NewReader("1\n")
	if out, err := warm.CombinedOutput(); err != nil {
		fail(fmt.Sprintf("warming the compilation cache: %s", out), err)
	}
	code := pgtest.Main(m) // one PostgreSQL cluster for the hub tests on both stores (hubtest.EachStore)
	os.RemoveAll(dir)
	os.Exit(code)
}

// modelKeys choose a model: the binary must not reach one the machine
// running the tests happens to have.
var modelKeys = []string{"DEEPSEEK_API_KEY", "OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_MODEL"}

// baseEnv is the test's environment without model keys, a hub's
// settings or colour settings, so the binary behaves the same on every
// machine.
func baseEnv(extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if slices.Contains(modelKeys, k) || strings.HasPrefix(k, "ASKCORE_HUB_") || k == "NO_COLOR" || k == "TMUX" || k == "TMUX_PANE" {
			continue
		}
		env = append(env, kv)
	}
	return append(env, extra...)
}

type proc struct {
	t              *testing.T
	cmd            *exec.Cmd
	stdin          io.WriteCloser
	stdout, stderr *syncbuf.Buffer
	done           chan struct{}
	code           int
}

// start runs the binary with its stdin, stdout and stderr on pipes.
func start(t *testing.T, env []string, setsid bool, args ...string) *proc {
	t.Helper()
	p := &proc{t: t, stdout: &syncbuf.Buffer{}, stderr: &syncbuf.Buffer{}, done: make(chan struct{})}
	p.cmd = exec.Command(bin, args...)
	p.cmd.Env = env
	p.cmd.Stdout, p.cmd.Stderr = p.stdout, p.stderr
	if setsid {
		// A new session has no controlling terminal: /dev/tty cannot be
		// opened, whatever terminal runs the tests.
		p.cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	}
	var err error
	p.stdin, err = p.cmd.StdinPipe()
	require.NoError(t, err)
	require.NoError(t, p.cmd.Start())
	go func() {
		_ = p.cmd.Wait()
		p.code = p.cmd.ProcessState.ExitCode()
		close(p.done)
	}()
	t.Cleanup(func() {
		select {
		case <-p.done:
		default:
			_ = p.cmd.Process.Kill()
			<-p.done
		}
	})
	return p
}

func (p *proc) send(s string) {
	p.t.Helper()
	_, err := io.WriteString(p.stdin, s)
	require.NoError(p.t, err)
}

func (p *proc) waitOut(what string, cond func(stdout string) bool) string {
	p.t.Helper()
	deadline := time.Now().Add(patience)
	for {
		out := p.stdout.String()
		if cond(out) {
			return out
		}
		select {
		case <-p.done:
			if out := p.stdout.String(); cond(out) {
				return out
			}
			p.t.Fatalf("exited (%d) before %s\nstdout:\n%s\nstderr:\n%s", p.code, what, p.stdout, p.stderr)
		default:
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("timed out waiting for %s\nstdout:\n%s\nstderr:\n%s", what, out, p.stderr)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// waitPrompt waits until stdout ends with the n-th answer prompt.
func (p *proc) waitPrompt(n int) string {
	p.t.Helper()
	return p.waitOut(fmt.Sprintf("answer prompt %d", n), func(out string) bool {
		return strings.Count(out, "\n? ")-strings.Count(out, "\n? ─") >= n && strings.HasSuffix(out, "? ")
	})
}

func (p *proc) wait() int {
	p.t.Helper()
	select {
	case <-p.done:
		return p.code
	case <-time.After(patience):
		p.t.Fatalf("did not exit\nstdout:\n%s\nstderr:\n%s", p.stdout, p.stderr)
		return -1
	}
}

// runWith runs the binary to completion with stdin as input.
func runWith(t *testing.T, env []string, stdin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	p := start(t, env, false, args...)
	p.send(stdin)
	require.NoError(t, p.stdin.Close())
	code = p.wait()
	return p.stdout.String(), p.stderr.String(), code
}

// reply is one line of a --script file.
type reply struct {
	Content   string `json:"content,omitempty"`
	ToolCalls []call `json:"tool_calls,omitempty"`
}

type call struct {
	ID        string         `json:"id"`
	Name      string         `json:"name"`
	Arguments map[string]any `json:"arguments"`
}

func ask(id string, args map[string]any) []call {
	return []call{{ID: id, Name: "ask_user_question", Arguments: args}}
}

func writeScript(t *testing.T, replies ...reply) string {
	t.Helper()
	var b bytes.Buffer
	for _, r := range replies {
		line, err := json.Marshal(r)
		require.NoError(t, err)
		b.Write(line)
		b.WriteByte('\n')
	}
	path := filepath.Join(t.TempDir(), "script.jsonl")
	require.NoError(t, os.WriteFile(path, b.Bytes(), 0o600))
	return path
}

func colors(allowCustom bool) map[string]any {
	return map[string]any{
		"header":   "Colour",
		"question": "Which colour?",
		"options": []map[string]any{
			{"label": "Red", "value": "red", "description": "Warm."},
			{"label": "Blue", "value": "blue", "description": "Calm.", "recommended": true},
			{"label": "Green", "value": "green"},
		},
		"allowCustom": allowCustom,
	}
}

// escapes is text that would drive a terminal if printed as it is.
const escapes = "\x1b[2J\x1b]0;pwned\x07\rOVERWRITE\u202eesrever\u202c\a\b"

var forbidden = []string{"\x1b", "\r", "\a", "\b", "\u202e", "\u202c", "\u2066", "\u009b"}

// TestScriptedThroughPipe drives the binary with --script through pipes:
// answers by number (in display order), label, empty line, free text, an
// invalid answer asked again, and EOF while a question is pending; the
// {{answer}} of each reply shows what the model received.
func TestScriptedThroughPipe(t *testing.T) {
	hostile := colors(true)
	hostile["header"] = "Colour" + escapes
	hostile["question"] = "Which colour, free text allowed?" + escapes
	hostile["options"] = []map[string]any{
		{"label": "Red" + escapes, "value": "red", "description": "Warm." + escapes},
		{"label": "Blue", "value": "blue", "description": "Calm.\n" + escapes, "recommended": true},
		{"label": "Green", "value": "green"},
	}
	script := writeScript(t,
		reply{Content: "Let me ask." + escapes, ToolCalls: ask("q1", colors(false))},
		reply{Content: "A1={{answer}}", ToolCalls: ask("q2", colors(false))},
		reply{Content: "A2={{answer}}", ToolCalls: ask("q3", colors(false))},
		reply{Content: "A3={{answer}}", ToolCalls: ask("q4", hostile)},
		reply{Content: "A4={{answer}}", ToolCalls: ask("q5", colors(false))},
		reply{Content: "A5={{answer}}", ToolCalls: ask("q6", map[string]any{"question": "Your name?", "allowCustom": false})},
		reply{Content: "A6={{answer}}"},
	)
	for _, eng := range []string{"native", "wasm"} {
		t.Run(eng, func(t *testing.T) {
			stdout, stderr, code := runWith(t, baseEnv(), strings.Join([]string{
				"start",   // the user's prompt
				"2",       // q1: by number: 1 is Blue (recommended first), 2 is Red
				"GREEN",   // q2: by label, any case
				"",        // q3: empty line: the recommended option
				"magenta", // q4: free text
				"magenta", // q5: no free text: asked again with the core's message
				"3",       // q5: Green
				// q6 pending at EOF
			}, "\n")+"\n", "--engine", eng, "--script", script)
			require.Equal(t, 0, code, "stdout:\n%s\nstderr:\n%s", stdout, stderr)

			for _, want := range []string{"A1=red\n", "A2=green\n", "A3=blue\n", "A4=magenta\n", "A5=green\n", "A6=ASK_ABORTED\n"} {
				assert.Contains(t, stdout, want)
			}
			assert.Regexp(t, `(?s)1\. Blue \(recommended\)\n\s+Calm\.\n\s+2\. Red\n\s+Warm\.`, stdout)
			assert.Contains(t, stdout, "\n"+reprompt(t, colors(false), 0, "magenta")+"\n? ") // the core's re-prompt
			assert.Contains(t, stdout, "\n? \n"+said(askcore.SituationEOF)+"\n")             // the core's words for the end of input
			assert.Contains(t, stderr, "ASK_ABORTED")
			assert.Contains(t, stdout, "Let me ask.")
			assert.Contains(t, stdout, "OVERWRITE")
			for _, bad := range forbidden {
				assert.NotContains(t, stdout, bad, "%q reached stdout", bad)
			}
		})
	}
}

func TestTurnsAndScriptEnd(t *testing.T) {
	script := writeScript(t,
		reply{Content: "first turn", ToolCalls: ask("q1", colors(true))},
		reply{Content: "got {{answer}}"},
		reply{Content: "second turn"},
	)
	stdout, stderr, code := runWith(t, baseEnv(), "hello\n1\n\n   \nagain\nmore\n", "--engine", "native", "--script", script)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "got blue\n")
	assert.Contains(t, stdout, "second turn\n")
	assert.Contains(t, stdout, "(script finished)")
	assert.NotContains(t, stdout, "> ", "no user prompt marker on a pipe")
	assert.Empty(t, stderr)
}

// TestDemoRunsWithoutKeys plays the built-in demo offline, on both
// engines, through a pipe. Fed by a pipe, the demo waits for the first
// line, which is the first prompt (never the answer to a question the
// program asked by itself; on a terminal it starts on its own, see
// TestTerminalDemo): then a batch of two questions (Enter: the recommended
// language; then two features and one of the person's own), then a
// choice between two layouts shown as previews, answered with notes
// (ANSWER // NOTES), which the reply quotes.
func TestDemoRunsWithoutKeys(t *testing.T) {
	for _, eng := range []string{"native", "wasm"} {
		t.Run(eng, func(t *testing.T) {
			stdout, stderr, code := runWith(t, baseEnv(), "hello\n\n1, database, Tracing\n2 // keep shared code apart\n", "--engine", eng)
			require.Equal(t, exitOK, code, stderr)
			assert.Contains(t, stdout, "demo")
			assert.Regexp(t, `(?s)\n\? ─+\nQuestion 1 of 2\n\[Language\] .*\n  1\. Go \(recommended\)\n.*\n\? \n→ Go\n`+
				`\n\? ─+\nQuestion 2 of 2\n\[Features\] .*Enter picks 1, 2 \(HTTP API, Metrics\)\.\n\? \n→ HTTP API, Database, Tracing\n`+
				`The tool result I received says: go; http, database, Tracing\. .*after // .*\n\n\? ─+\n\[Layout\] How should the code be organised\?\n`+
				`\n  1\. By feature \(recommended\)\n.*\n     Preview:\n         `+"```"+`text\n         service/\n           orders/\n(?:.*\n)*?     \(end of preview\)\n  2\. By layer\n`+
				`.*\? \n→ By layer \(notes: keep shared code apart\)\n`+
				`Noted: by-layer\. Your notes: "keep shared code apart"\. That is the whole demo\.`, stdout)
			assert.NotContains(t, stdout, "→ hello", "the first line is a prompt, not an answer")
			assert.NotContains(t, stdout, "ASK_ABORTED")
			assert.Empty(t, stderr)
		})
	}
	t.Run("no line: nothing is asked", func(t *testing.T) {
		stdout, stderr, code := runWith(t, baseEnv(), "", "--engine", "native")
		assert.Equal(t, exitOK, code, stderr)
		assert.Empty(t, stdout, "the demo waits for a first line on a pipe")
		assert.Empty(t, stderr)
	})
}

// TestVersion: --version prints "askcore-stdio VERSION (COMMIT)" as the
// build recorded them (frontdoor.VersionLine) and exits 0 without starting
// anything.
func TestVersion(t *testing.T) {
	stdout, stderr, code := runWith(t, baseEnv(), "", "--version")
	assert.Equal(t, exitOK, code, stderr)
	assert.Empty(t, stderr)
	assert.Regexp(t, `^askcore-stdio (v\d+\.\d+\.\d+\S*|devel) \(([0-9a-f]{12}(-dirty)?|unknown)\)\n$`, stdout)

	// In process, it is exactly what frontdoor.VersionLine says, even with a
	// model key set: no model is reached.
	var out, errOut bytes.Buffer
	code = run(context.Background(), []string{"--version"}, sys{
		stdin: strings.NewReader(""), stdout: &out, stderr: &errOut,
		getenv: func(k string) string {
			return map[string]string{"OPENAI_API_KEY": "sk-test", "OPENAI_BASE_URL": "http://127.0.0.1:1"}[k]
		},
		openTTY: func() (*os.File, error) { return nil, os.ErrNotExist }, signals: make(chan os.Signal),
	})
	assert.Equal(t, exitOK, code)
	assert.Equal(t, frontdoor.VersionLine("askcore-stdio")+"\n", out.String())
	assert.Empty(t, errOut.String())

	// --help documents it.
	stdout, _, code = runWith(t, baseEnv(), "", "--help")
	assert.Equal(t, exitOK, code)
	assert.Contains(t, stdout, "-version")
}

func TestModelErrorsGoToStderr(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = io.WriteString(w, `{"error":{"message":"bad key\u001b[2J\u202e","type":"invalid_request_error","code":"invalid_api_key"}}`)
	}))
	defer srv.Close()
	env := baseEnv("OPENAI_API_KEY=sk-test", "OPENAI_BASE_URL="+srv.URL, "OPENAI_MODEL=test")
	stdout, stderr, code := runWith(t, env, "hello\n", "--engine", "native")
	assert.Equal(t, exitError, code)
	assert.Contains(t, stderr, "model error")
	assert.Contains(t, stderr, "bad key")
	for _, bad := range forbidden {
		assert.NotContains(t, stderr, bad)
	}
	assert.Empty(t, stdout)
}

func TestStartupErrors(t *testing.T) {
	_, stderr, code := runWith(t, baseEnv(), "", "--script", filepath.Join(t.TempDir(), "missing.jsonl"))
	assert.Equal(t, exitError, code)
	assert.Contains(t, stderr, "missing.jsonl")

	_, stderr, code = runWith(t, baseEnv(), "", "--engine", "quantum")
	assert.Equal(t, exitError, code)
	assert.Contains(t, stderr, "quantum")

	_, _, code = runWith(t, baseEnv(), "", "--nope")
	assert.Equal(t, exitUsage, code)

	stdout, _, code := runWith(t, baseEnv(), "", "--help")
	assert.Equal(t, exitOK, code)
	assert.Contains(t, stdout, "--script")
}

// TestInterrupt sends SIGINT (what Ctrl-C sends) to the binary: during a
// question it dismisses the question only; the model is told ASK_ABORTED
// and the conversation goes on. Outside a question it ends the program.
func TestInterrupt(t *testing.T) {
	script := writeScript(t,
		reply{Content: "asking", ToolCalls: ask("q1", colors(true))},
		reply{Content: "A1={{answer}}", ToolCalls: ask("q2", colors(true))},
		reply{Content: "A2={{answer}}"},
	)
	p := start(t, baseEnv(), false, "--engine", "native", "--script", script)
	p.send("go\n")
	p.waitPrompt(1)
	require.NoError(t, p.cmd.Process.Signal(os.Interrupt))
	p.waitPrompt(2)
	out := p.stdout.String()
	assert.Contains(t, out, "\n? \n"+said(askcore.SituationInterrupted)+"\nA1=ASK_ABORTED\n")
	p.send("2\n")
	p.waitOut("A2", func(out string) bool { return strings.Contains(out, "A2=red\n") })

	// Between turns: Ctrl-C ends the program.
	require.NoError(t, p.cmd.Process.Signal(os.Interrupt))
	assert.Equal(t, exitInterrupted, p.wait())
	assert.Contains(t, p.stderr.String(), "Ctrl-C")
}

func TestTerminate(t *testing.T) {
	script := writeScript(t, reply{Content: "asking", ToolCalls: ask("q1", colors(true))})
	p := start(t, baseEnv(), false, "--engine", "native", "--script", script)
	p.send("go\n")
	p.waitPrompt(1)
	require.NoError(t, p.cmd.Process.Signal(syscall.SIGTERM))
	assert.Equal(t, exitTerminated, p.wait())
}

// TestInProcessLeavesNoGoroutine runs the program in this process (native
// engine) and checks that the stdin reader, the signal watcher and the
// provider are all gone when run returns.
func TestInProcessLeavesNoGoroutine(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	script := writeScript(t,
		reply{Content: "asking", ToolCalls: ask("q1", colors(true))},
		reply{Content: "A1={{answer}}", ToolCalls: ask("q2", colors(true))},
		reply{Content: "A2={{answer}}"},
	)
	noEnv := func(string) string { return "" }
	noTTY := func() (*os.File, error) { return nil, os.ErrNotExist }

	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"--engine", "native", "--script", script}, sys{
		stdin: strings.NewReader("hi\n2\n"), stdout: &stdout, stderr: &stderr,
		getenv: noEnv, openTTY: noTTY, signals: make(chan os.Signal),
	})
	assert.Equal(t, exitOK, code, stderr.String())
	assert.Contains(t, stdout.String(), "A1=red\n")
	assert.Contains(t, stdout.String(), "A2=ASK_ABORTED\n")

	stdout.Reset()
	stderr.Reset()
	code = run(context.Background(), []string{"ask", "--engine", "native", "--request", `{"question":"Name?"}`}, sys{
		stdin: strings.NewReader("Ada\n"), stdout: &stdout, stderr: &stderr,
		getenv: noEnv, openTTY: noTTY, signals: make(chan os.Signal),
	})
	assert.Equal(t, askExitOK, code)
	assert.Equal(t, `{"answer":"Ada"}`+"\n", stdout.String())
	assert.Contains(t, stderr.String(), "Name?")
}

// waitErr waits until stderr ends with suffix.
func (p *proc) waitErr(what, suffix string) {
	p.t.Helper()
	p.waitStderr(what, func(stderr string) bool { return strings.HasSuffix(stderr, suffix) })
}

// waitErrContains waits until stderr contains text.
func (p *proc) waitErrContains(what, text string) {
	p.t.Helper()
	p.waitStderr(what, func(stderr string) bool { return strings.Contains(stderr, text) })
}

// waitStderr waits until done holds for stderr; what names the wait in
// its failure.
func (p *proc) waitStderr(what string, done func(stderr string) bool) {
	p.t.Helper()
	deadline := time.Now().Add(patience)
	for !done(p.stderr.String()) {
		if time.Now().After(deadline) {
			p.t.Fatalf("timed out waiting for %s\nstderr:\n%s", what, p.stderr)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// native runs the rules in this process: the tests ask it what the core
// says (re-prompts, failures) instead of restating its texts.
var native = askcore.NewCore(askcore.Native{})

// reprompt is the core's INVALID_ANSWER message for line on question index
// of request (a value to encode, or arguments text).
func reprompt(t *testing.T, request any, index int, line string) string {
	t.Helper()
	args, ok := request.(string)
	if !ok {
		raw, err := json.Marshal(request)
		require.NoError(t, err)
		args = string(raw)
	}
	_, err := nativeCall(t, args).CheckLine(context.Background(), index, line)
	return invalidAnswer(t, err)
}

// nativeCall is native's call for arguments, which it must accept.
func nativeCall(t *testing.T, arguments string) *askcore.Call {
	t.Helper()
	call, err := native.Normalize(context.Background(), arguments)
	require.NoError(t, err)
	return call
}

// invalidAnswer is the message of err, which must be the core's
// INVALID_ANSWER.
func invalidAnswer(t *testing.T, err error) string {
	t.Helper()
	var he *askcore.Error
	require.ErrorAs(t, err, &he)
	require.Equal(t, askcore.CodeInvalidAnswer, he.Code)
	return he.Message
}

// said is the core's message for a situation, as the terminal provider
// prints it when the situation ends a question (the input ended, Ctrl-C).
func said(situation askcore.Situation) string {
	return native.Fail(context.Background(), askcore.Failure{Situation: situation}).Message
}

// failure is the core's error object for a situation, as ask prints it.
func failure(f askcore.Failure) string {
	return string(native.Fail(context.Background(), f).JSON()) + "\n"
}
