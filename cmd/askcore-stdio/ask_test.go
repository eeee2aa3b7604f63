package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"strings"
	"syscall"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/askcore/askcore"
	"github.com/askcore/askcore/core"
	"github.com/askcore/askcore/hostgo"
)

const askRequest = `{"header":"Deploy","question":"Deploy to which environment?","options":[
 {"label":"Staging","value":"staging","description":"Safe to break."},
 {"label":"Production","value":"prod","description":"Real users.","recommended":true}]}`

// errorObject decodes the {"name","code","message"} line ask prints.
func errorObject(t *testing.T, stdout string) (code string) {
	t.Helper()
	require.True(t, strings.HasSuffix(stdout, "}\n"), "one JSON line: %q", stdout)
	var obj map[string]string
	require.NoError(t, json.Unmarshal([]byte(stdout), &obj), stdout)
	assert.Equal(t, "UserInteractionError", obj["name"])
	assert.NotEmpty(t, obj["message"])
	assert.Len(t, obj, 3)
	return obj["code"]
}

func TestAskAnswers(t *testing.T) {
	cases := []struct{ name, input, want string }{
		{"number", "2\n", `{"answer":"staging","selected":{"index":0,"label":"Staging","value":"staging"}}`},
		{"empty line", "\n", `{"answer":"prod","selected":{"index":1,"label":"Production","value":"prod"}}`},
		{"label after an invalid answer", "nope\nproduction\n", `{"answer":"prod","selected":{"index":1,"label":"Production","value":"prod"}}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			stdout, stderr, code := runWith(t, baseEnv(), c.input, "ask", "--engine", "native", "--request", askRequest)
			require.Equal(t, askExitOK, code, "stdout: %s\nstderr: %s", stdout, stderr)
			assert.Equal(t, c.want+"\n", stdout) // the core's bytes
			// The prompt went to stderr (stdin is not a terminal).
			assert.Contains(t, stderr, "[Deploy] Deploy to which environment?")
			assert.Contains(t, stderr, "1. Production (recommended)")
			if strings.HasPrefix(c.input, "nope") {
				assert.Contains(t, stderr, "\n"+reprompt(t, askRequest, 0, "nope")+"\n? ")
			}
		})
	}
}

func TestAskWasm(t *testing.T) {
	stdout, stderr, code := runWith(t, baseEnv(), "Ada\n", "ask", "--request", `{"question":"Your name?","allowCustom":false}`)
	require.Equal(t, askExitOK, code, stderr)
	assert.Equal(t, `{"answer":"Ada"}`+"\n", stdout)
}

func TestAskFailures(t *testing.T) {
	cases := []struct {
		name   string
		stdin  string
		setsid bool
		args   []string
		code   string
		exit   int
		want   string // the exact stdout, when the error is a situation
	}{
		{"malformed request", "", false, []string{"--request", `{"question":`}, "INVALID_REQUEST", askExitInvalidRequest, ""},
		{"ambiguous request", "", false, []string{"--request", `{"question":"?","options":[{"label":"A"},{"label":"a"}]}`}, "INVALID_REQUEST", askExitInvalidRequest, ""},
		{"unknown flag", "", false, []string{"--nope"}, "INVALID_REQUEST", askExitInvalidRequest,
			failure(askcore.Failure{Situation: askcore.SituationUsage, Detail: `flag provided but not defined: -nope (see "askcore-stdio ask --help")`})},
		{"stray argument", "", false, []string{"stray"}, "INVALID_REQUEST", askExitInvalidRequest,
			failure(askcore.Failure{Situation: askcore.SituationUsage, Detail: `unexpected argument "stray": pass the request with --request JSON or on stdin`})},
		{"--ask-id without --hub", "", false, []string{"--ask-id", "deploy-1", "--request", askRequest}, "INVALID_REQUEST", askExitInvalidRequest,
			failure(askcore.Failure{Situation: askcore.SituationUsage, Detail: "--ask-id needs --hub URL (or ASKCORE_HUB_URL)"})},
		{"EOF before an answer", "", false, []string{"--request", askRequest}, "ASK_ABORTED", askExitAborted,
			failure(askcore.Failure{Situation: askcore.SituationEOF})},
		{"EOF after invalid answers", "nope\nstill no\n", false, []string{"--request", askRequest}, "ASK_ABORTED", askExitAborted,
			failure(askcore.Failure{Situation: askcore.SituationEOF})},
		{"request on stdin, no terminal", askRequest, true, nil, "ASK_FAILED", askExitFailed,
			failure(askcore.Failure{Situation: askcore.SituationNoTerminal})},
		{"bad request on stdin, no terminal", "not json", true, nil, "INVALID_REQUEST", askExitInvalidRequest, ""},
		{"request on stdin over the core's limit", `{"question":"` + strings.Repeat("x", core.MaxArgumentsBytes) + `"}`, true, nil,
			"INVALID_REQUEST", askExitInvalidRequest, ""},
		{"unknown engine", "", false, []string{"--engine", "quantum", "--request", askRequest}, "ASK_FAILED", askExitFailed,
			failure(askcore.Failure{Situation: askcore.SituationEngineFault})},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := start(t, baseEnv(), c.setsid, append([]string{"ask", "--engine", "native"}, c.args...)...)
			p.send(c.stdin)
			require.NoError(t, p.stdin.Close())
			exit := p.wait()
			assert.Equal(t, c.code, errorObject(t, p.stdout.String()), "stderr: %s", p.stderr)
			assert.Equal(t, c.exit, exit)
			if c.want != "" {
				assert.Equal(t, c.want, p.stdout.String())
			}
		})
	}
}

// TestAskRequestReadFails: stdin fails while the request is read: the
// core's request_read_failed, with the error.
func TestAskRequestReadFails(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"ask", "--engine", "native"}, sys{
		stdin: iotest.ErrReader(errors.New("input/output error")), stdout: &stdout, stderr: &stderr,
		getenv: func(string) string { return "" }, signals: make(chan os.Signal),
	})
	assert.Equal(t, askExitFailed, code)
	assert.Equal(t, failure(askcore.Failure{Situation: askcore.SituationRequestReadFailed, Detail: "input/output error"}), stdout.String())
	assert.Empty(t, stderr.String())
}

// TestAskRequestErrorsAreTheCoresBytes: the request reaches the core as
// text, and its verdict is printed as the core wrote it, on every engine:
// an offset inside the arguments for invalid JSON, "<A>" quoted as it is
// (in the JSON line as the core escapes it, \u003cA\u003e).
func TestAskRequestErrorsAreTheCoresBytes(t *testing.T) {
	for _, c := range []struct{ args, quotes string }{
		{`{"question":"Q?","options":["<a>","<A>"]}`, `"<A>"`},
		{`{"question": "Q?",}`, "at byte 18 of 19"},
		{`  `, ""},
	} {
		_, err := native.Normalize(context.Background(), c.args)
		var he *askcore.Error
		require.ErrorAs(t, err, &he)
		require.Contains(t, he.Message, c.quotes)
		for _, eng := range []string{"native", "wasm"} {
			stdout, _, code := runWith(t, baseEnv(), "", "ask", "--engine", eng, "--request", c.args)
			assert.Equal(t, askExitInvalidRequest, code)
			assert.Equal(t, string(he.JSON())+"\n", stdout, "%s on %s", c.args, eng)
			var printed askcore.Error
			require.NoError(t, json.Unmarshal([]byte(stdout), &printed), stdout)
			assert.Equal(t, he.Message, printed.Message, "%s on %s", c.args, eng)
		}
	}
}

func TestAskTimeoutAndInterrupt(t *testing.T) {
	p := start(t, baseEnv(), false, "ask", "--engine", "native", "--timeout", "300ms", "--request", askRequest)
	assert.Equal(t, askExitTimeout, p.wait())
	assert.Equal(t, failure(askcore.Failure{Situation: askcore.SituationTimeout, Millis: 300}), p.stdout.String())

	p = start(t, baseEnv(), false, "ask", "--engine", "native", "--request", askRequest)
	p.waitErr("the prompt", "? ")
	require.NoError(t, p.cmd.Process.Signal(os.Interrupt))
	assert.Equal(t, askExitAborted, p.wait())
	assert.Equal(t, failure(askcore.Failure{Situation: askcore.SituationAborted, Detail: "interrupted (Ctrl-C)"}), p.stdout.String())

	p = start(t, baseEnv(), false, "ask", "--engine", "wasm", "--request", batchArgs)
	p.send("1\n")
	p.waitErr("the second question", "? ")
	p.waitErrContains("the second question", "Question 2 of 3")
	require.NoError(t, p.cmd.Process.Signal(syscall.SIGTERM))
	assert.Equal(t, askExitAborted, p.wait())
	assert.Equal(t, failure(askcore.Failure{Situation: askcore.SituationAborted, Detail: "terminated (SIGTERM)"}), p.stdout.String())
}

// TestAskExitStatusByCode pins the exit status of every code ask can
// print; ASK_DECLINED (Esc in the keyboard picker) has its own.
func TestAskExitStatusByCode(t *testing.T) {
	for code, exit := range map[askcore.Code]int{
		askcore.CodeInvalidRequest: askExitInvalidRequest,
		askcore.CodeAskAborted:     askExitAborted,
		askcore.CodeAskTimeout:     askExitTimeout,
		askcore.CodeAskDeclined:    askExitDeclined,
		askcore.CodeAskFailed:      askExitFailed,
		askcore.CodeNoProvider:     askExitFailed,
		askcore.CodeAskCancelled:   askExitFailed,
	} {
		assert.Equal(t, exit, askExitCode(code), code)
	}
	assert.Equal(t, 5, askExitDeclined)

	// A declined ask, as the picker will report it: the core's bytes on
	// stdout, exit 5.
	for _, eng := range []*askcore.Core{native, wasmClient(t)} {
		var stdout bytes.Buffer
		he := eng.Fail(context.Background(), askcore.Failure{Situation: askcore.SituationDeclined})
		exit := askFail(context.Background(), sys{stdout: &stdout, stderr: io.Discard}, eng, he)
		assert.Equal(t, askExitDeclined, exit)
		assert.Equal(t, failure(askcore.Failure{Situation: askcore.SituationDeclined}), stdout.String())
		assert.Equal(t, "ASK_DECLINED", errorObject(t, stdout.String()))
	}
}

func TestAskHelp(t *testing.T) {
	stdout, _, code := runWith(t, baseEnv(), "", "ask", "--help")
	assert.Equal(t, 0, code)
	for _, want := range []string{"Exit status", "INVALID_REQUEST", "ASK_ABORTED", "ASK_FAILED", "ASK_TIMEOUT",
		"5  ASK_DECLINED", "/dev/tty", "--request", "--plain", "ASKCORE_PLAIN", "multiSelect", `{"questions":`} {
		assert.Contains(t, stdout, want)
	}
}

// wasmClient is a client of the WebAssembly core, closed with the test.
func wasmClient(t *testing.T) *askcore.Core {
	t.Helper()
	e, err := hostgo.New(context.Background(), hostgo.WithInterpreter())
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, e.Close(context.Background())) })
	return askcore.NewCore(e)
}
