package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/askcore/askcore/internal/testing/leaktest"
)

func TestMain(m *testing.M) { leaktest.VerifyTestMain(m) }

// patience bounds every wait; only a failing test waits that long.
const patience = 2 * time.Minute

func noEnv(string) string { return "" }

// script is a scripted model that only talks.
func script(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "script.jsonl")
	require.NoError(t, os.WriteFile(path, []byte(`{"content":"hello"}`+"\n"), 0o600))
	return path
}

// The program answers initialize on stdout, and only protocol goes there;
// it exits 0 when stdin closes.
func TestRunServesStdio(t *testing.T) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	var stderr bytes.Buffer
	exit := make(chan int, 1)
	go func() {
		exit <- run(context.Background(), []string{"--script", script(t), "--engine", "native"}, inR, outW, &stderr, noEnv)
		outW.Close()
	}()
	_, err := io.WriteString(inW, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{"elicitation":{"form":{}}}}}`+"\n")
	require.NoError(t, err)
	line, err := bufio.NewReader(outR).ReadBytes('\n')
	require.NoError(t, err)
	var resp struct {
		ID     int `json:"id"`
		Result struct {
			ProtocolVersion int `json:"protocolVersion"`
			AgentInfo       struct {
				Name string `json:"name"`
			} `json:"agentInfo"`
		} `json:"result"`
	}
	require.NoError(t, json.Unmarshal(line, &resp), "%s", line)
	assert.Equal(t, 1, resp.Result.ProtocolVersion)
	assert.Equal(t, "askcore-acp", resp.Result.AgentInfo.Name)
	inW.Close()
	go io.Copy(io.Discard, outR)
	select {
	case code := <-exit:
		assert.Equal(t, 0, code, stderr.String())
	case <-time.After(patience):
		t.Fatal("run did not return after stdin closed")
	}
}

func TestRunBadSettings(t *testing.T) {
	var stdout, stderr bytes.Buffer
	assert.Equal(t, 1, run(context.Background(), []string{"--script", "/nonexistent/script.jsonl"}, bytes.NewReader(nil), &stdout, &stderr, noEnv))
	assert.Empty(t, stdout.String())
	assert.Contains(t, stderr.String(), "askcore-acp")
	assert.Equal(t, 2, run(context.Background(), []string{"--bogus"}, bytes.NewReader(nil), &stdout, &stderr, noEnv))
	assert.Equal(t, 2, run(context.Background(), []string{"extra"}, bytes.NewReader(nil), &stdout, &stderr, noEnv))
	assert.Empty(t, stdout.String())
}

// A bad --web is a usage error.
func TestWebFlag(t *testing.T) {
	var stdout, stderr bytes.Buffer
	assert.Equal(t, 2, run(context.Background(), []string{"--web", "sometimes"}, bytes.NewReader(nil), &stdout, &stderr, noEnv))
	assert.Contains(t, stderr.String(), `want auto, always or never, got "sometimes"`)
	stderr.Reset()
	assert.Equal(t, 0, run(context.Background(), []string{"--help"}, bytes.NewReader(nil), &stdout, &stderr, noEnv), "--help is no error, as in askcore-mcp")
	for _, want := range []string{"--web auto|always|never", "--no-browser", "--web-addr", "ASKCORE_BROWSER=none", "askcore: answer at URL", "ssh -L 8765:127.0.0.1:8765"} {
		assert.Contains(t, stderr.String(), want)
	}
	assert.Empty(t, stdout.String())
}
