package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/askcore/askcore"
	"github.com/askcore/askcore/internal/testing/syncbuf"
)

func noEnv(string) string { return "" }

func TestFlags(t *testing.T) {
	cases := []struct {
		args []string
		code int
		err  string
	}{
		{[]string{"--help"}, 0, "usage: askcore-mcp"},
		{[]string{"--nope"}, 2, "flag provided but not defined"},
		{[]string{"extra"}, 2, "unexpected arguments"},
		{[]string{"--timeout", "-1s"}, 2, "--timeout must not be negative"},
		{[]string{"--progress", "-1s"}, 2, "--progress must not be negative"},
		{[]string{"--engine", "quantum"}, 1, "unknown engine"},
		{[]string{"--web", "sometimes"}, 2, `invalid value "sometimes" for flag -web: want auto, always or never`},
		{[]string{"--help"}, 0, "--web auto|always|never"},
		{[]string{"--help"}, 0, "ssh -L 8765:127.0.0.1:8765 host askcore-mcp --web-addr 127.0.0.1:8765"},
		{[]string{"-h"}, 0, "-no-browser"},
	}
	for _, tc := range cases {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(context.Background(), tc.args, strings.NewReader(""), &stdout, &stderr, noEnv)
			assert.Equal(t, tc.code, code)
			assert.Contains(t, stderr.String(), tc.err)
			assert.Empty(t, stdout.String(), "stdout carries only the protocol")
		})
	}
}

// TestRunServesStdio runs the whole program on both engines over pipes:
// initialize, tools/list, a call from a client without elicitation
// (--web=never: ASK_FAILED at once), then end of input: exit status 0.
func TestRunServesStdio(t *testing.T) {
	for _, engineName := range []string{"native", "wasm"} {
		t.Run(engineName, func(t *testing.T) {
			stdinR, stdinW := io.Pipe()
			stdoutR, stdoutW := io.Pipe()
			var stderr syncbuf.Buffer
			done := make(chan int, 1)
			go func() {
				code := run(context.Background(), []string{"--engine", engineName, "--web=never"}, stdinR, stdoutW, &stderr, func(k string) string {
					if k == "ASKCORE_LOG" {
						return "info"
					}
					return ""
				})
				_ = stdoutW.Close()
				done <- code
			}()
			lines := bufio.NewScanner(stdoutR)
			lines.Buffer(nil, 1<<24)
			send := func(s string) {
				_, err := io.WriteString(stdinW, s+"\n")
				require.NoError(t, err)
			}
			recv := func() map[string]any {
				require.True(t, lines.Scan(), "no reply; stderr:\n%s", stderr.String())
				var m map[string]any
				require.NoError(t, json.Unmarshal(lines.Bytes(), &m))
				return m
			}
			send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`)
			init := recv()
			assert.Equal(t, "askcore-mcp", init["result"].(map[string]any)["serverInfo"].(map[string]any)["name"])
			send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
			send(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
			tools := recv()["result"].(map[string]any)["tools"].([]any)
			require.Len(t, tools, 1)
			assert.Equal(t, "ask_user_question", tools[0].(map[string]any)["name"])
			send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"ask_user_question","arguments":{"question":"Ship it?"}}}`)
			res := recv()["result"].(map[string]any)
			assert.Equal(t, true, res["isError"])
			assert.Equal(t, "ASK_FAILED", res["structuredContent"].(map[string]any)["code"])
			require.NoError(t, stdinW.Close())
			assert.False(t, lines.Scan(), "nothing after the end of input")
			select {
			case code := <-done:
				assert.Equal(t, 0, code, stderr.String())
			case <-time.After(waitLong):
				t.Fatal("askcore-mcp did not exit at the end of input")
			}
			assert.Contains(t, stderr.String(), "askcore-mcp ready")
			assert.Contains(t, stderr.String(), "outcome=ASK_FAILED")
		})
	}
}

// TestRunEndsOnCancel: a cancelled ctx ends a serving program with status
// 0 even while stdin stays open, and a question pending then is answered
// with the core's stopped error (no signal named: none was received).
func TestRunEndsOnCancel(t *testing.T) {
	stdinR, stdinW := io.Pipe()
	defer stdinW.Close()
	stdoutR, stdoutW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	var stderr syncbuf.Buffer
	done := make(chan int, 1)
	go func() {
		code := run(ctx, []string{"--engine", "native"}, stdinR, stdoutW, &stderr, noEnv)
		_ = stdoutW.Close()
		done <- code
	}()
	send := func(line string) {
		go func() { _, _ = io.WriteString(stdinW, line+"\n") }()
	}
	lines := bufio.NewScanner(stdoutR)
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{}},"clientInfo":{"name":"t","version":"0"}}}`)
	require.True(t, lines.Scan(), "no reply to initialize; stderr:\n%s", stderr.String())
	assert.Contains(t, lines.Text(), `"serverInfo"`)
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"ask_user_question","arguments":{"question":"Ship it?"}}}`)
	require.True(t, lines.Scan())
	assert.Contains(t, lines.Text(), `"elicitation/create"`)
	cancel()
	want := nativeCore.Fail(context.Background(), askcore.Failure{Situation: askcore.SituationStopped})
	var answered string
	for lines.Scan() {
		var m struct {
			ID     int `json:"id"`
			Result struct {
				Content []struct{ Text string } `json:"content"`
			} `json:"result"`
		}
		if json.Unmarshal(lines.Bytes(), &m) == nil && m.ID == 2 && len(m.Result.Content) == 1 {
			answered = m.Result.Content[0].Text
		}
	}
	assert.Equal(t, string(want.JSON()), answered)
	select {
	case code := <-done:
		assert.Equal(t, 0, code)
	case <-time.After(waitLong):
		t.Fatal("askcore-mcp did not exit on cancel")
	}
}
