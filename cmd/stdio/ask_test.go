package main

import (
	"encoding/json"
	"os"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
				assert.Contains(t, stderr, "\n"+reprompt(t, json.RawMessage(askRequest), "nope")+"\n? ")
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
	}{
		{"malformed request", "", false, []string{"--request", `{"question":`}, "INVALID_REQUEST", askExitInvalidRequest},
		{"ambiguous request", "", false, []string{"--request", `{"question":"?","options":[{"label":"A"},{"label":"a"}]}`}, "INVALID_REQUEST", askExitInvalidRequest},
		{"unknown flag", "", false, []string{"--nope"}, "INVALID_REQUEST", askExitInvalidRequest},
		{"stray argument", "", false, []string{"stray"}, "INVALID_REQUEST", askExitInvalidRequest},
		{"EOF before an answer", "", false, []string{"--request", askRequest}, "ASK_ABORTED", askExitAborted},
		{"EOF after invalid answers", "nope\nstill no\n", false, []string{"--request", askRequest}, "ASK_ABORTED", askExitAborted},
		{"request on stdin, no terminal", askRequest, true, nil, "ASK_FAILED", askExitFailed},
		{"bad request on stdin, no terminal", "not json", true, nil, "INVALID_REQUEST", askExitInvalidRequest},
		{"unknown engine", "", false, []string{"--engine", "quantum", "--request", askRequest}, "ASK_FAILED", askExitFailed},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := start(t, baseEnv(), c.setsid, append([]string{"ask", "--engine", "native"}, c.args...)...)
			p.send(c.stdin)
			require.NoError(t, p.stdin.Close())
			exit := p.wait()
			assert.Equal(t, c.code, errorObject(t, p.stdout.String()), "stderr: %s", p.stderr)
			assert.Equal(t, c.exit, exit)
		})
	}
}

func TestAskTimeoutAndInterrupt(t *testing.T) {
	p := start(t, baseEnv(), false, "ask", "--engine", "native", "--timeout", "300ms", "--request", askRequest)
	assert.Equal(t, askExitTimeout, p.wait())
	assert.Equal(t, "ASK_TIMEOUT", errorObject(t, p.stdout.String()))

	p = start(t, baseEnv(), false, "ask", "--engine", "native", "--request", askRequest)
	p.waitErr("the prompt", "? ")
	require.NoError(t, p.cmd.Process.Signal(os.Interrupt))
	assert.Equal(t, askExitAborted, p.wait())
	assert.Equal(t, "ASK_ABORTED", errorObject(t, p.stdout.String()))

	p = start(t, baseEnv(), false, "ask", "--engine", "native", "--request", askRequest)
	p.waitErr("the prompt", "? ")
	require.NoError(t, p.cmd.Process.Signal(syscall.SIGTERM))
	assert.Equal(t, askExitAborted, p.wait())
	assert.Equal(t, "ASK_ABORTED", errorObject(t, p.stdout.String()))
}

func TestAskHelp(t *testing.T) {
	stdout, _, code := runWith(t, baseEnv(), "", "ask", "--help")
	assert.Equal(t, 0, code)
	for _, want := range []string{"Exit status", "INVALID_REQUEST", "ASK_ABORTED", "ASK_FAILED", "ASK_TIMEOUT", "/dev/tty", "--request"} {
		assert.Contains(t, stdout, want)
	}
}
